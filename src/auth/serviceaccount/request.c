/* TokenRequest's expiration rules and bound kinds (see request.h). */
#include "auth/serviceaccount/request.h"

#include <string.h>

bool kg_sa_token_expiration(kg_arena *a, const kg_json *expiration_seconds, int64_t max_s, bool extend, bool pod_bound,
                            bool kube_audiences, kg_sa_expiration *out, kg_field_errors *errs)
{
    memset(out, 0, sizeof *out);
    int64_t s = KG_SA_DEFAULT_EXPIRATION_S;
    if (expiration_seconds && !kg_json_is(expiration_seconds, KG_JSON_NULL)) {
        if (!kg_json_is(expiration_seconds, KG_JSON_INT)) {
            kg_field_invalid(a, errs, "spec.expirationSeconds", "", "must be an integer");
            return false;
        }
        s = expiration_seconds->u.i;
    }
    out->requested = s;
    size_t before = errs->len;
    if (s < KG_SA_MIN_EXPIRATION_S)
        kg_field_invalid_int(a, errs, "spec.expirationSeconds", s, "may not specify a duration less than 10 minutes");
    if (s > (1LL << 32))
        kg_field_invalid_int(a, errs, "spec.expirationSeconds", s,
                             "may not specify a duration larger than 2^32 seconds");
    if (errs->len != before)
        return false;
    if (max_s > 0 && s > max_s) {
        s = max_s;
        out->shortened = true;
    }
    out->seconds = s;
    out->token_seconds = s;
    if (extend && pod_bound && s == KG_SA_WARN_ONLY_EXPIRATION_S && kube_audiences) {
        out->warnafter_s = s;
        out->token_seconds = KG_SA_EXTENDED_EXPIRATION_S;
    }
    return true;
}

const char *kg_sa_bound_plural(kg_arena *a, const char *api_version, const char *kind, const char **bad_request)
{
    api_version = api_version ? api_version : "";
    kind = kind ? kind : "";
    const char *slash = strrchr(api_version, '/');
    const char *group = slash ? kg_arena_strndup(a, api_version, (size_t)(slash - api_version)) : "";
    const char *version = slash ? slash + 1 : api_version;
    if (!*group) {
        if (!strcmp(kind, "Pod"))
            return "pods";
        if (!strcmp(kind, "Secret"))
            return "secrets";
        if (!strcmp(kind, "Node"))
            return "nodes";
    }
    *bad_request = kg_arena_sprintf(a, "cannot bind token to object of type %s/%s, Kind=%s", group, version, kind);
    return NULL;
}
