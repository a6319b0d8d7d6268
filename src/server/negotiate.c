/* Content negotiation and read-freshness checks (negotiate.h); upstream: apimachinery
 * pkg/runtime/serializer/negotiation (errNotAcceptable) and apiserver pkg/storage/errors.go (TooLargeResourceVersion).
 */
#include "server/negotiate.h"

#include <string.h>
#include <strings.h>

/* Served media types, in upstream's order of the negotiation error. */
static const char *const served[] = {"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"};
static const char *const served_watch[] = {"application/json", "application/vnd.kubernetes.protobuf"};

static bool range_matches(const char *r, size_t n, bool watch)
{
    while (n && (r[n - 1] == ' ' || r[n - 1] == '\t'))
        n--;
    while (n && (*r == ' ' || *r == '\t')) {
        r++;
        n--;
    }
    if ((n == 3 && !memcmp(r, "*/*", 3)) || (n == 13 && !strncasecmp(r, "application/*", 13)))
        return true;
    const char *const *list = watch ? served_watch : served;
    size_t count = watch ? 2 : 3;
    for (size_t i = 0; i < count; i++)
        if (strlen(list[i]) == n && !strncasecmp(r, list[i], n))
            return true;
    return false;
}

kg_status *kg_negotiate_accept(kg_arena *a, const char *accept, bool watch)
{
    if (!accept || !accept[0])
        return NULL;
    for (const char *p = accept; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        const char *semi = memchr(p, ';', n);
        if (range_matches(p, semi ? (size_t)(semi - p) : n, watch))
            return NULL;
        if (!comma)
            break;
        p = comma + 1;
    }
    return kg_status_newf(a, 406, KG_REASON_NOT_ACCEPTABLE, "only the following media types are accepted: %s",
                          watch ? "application/json, application/vnd.kubernetes.protobuf"
                                : "application/json, application/yaml, application/vnd.kubernetes.protobuf");
}

kg_status *kg_negotiate_too_large_rv(kg_arena *a, int64_t rv, int64_t current)
{
    if (rv <= current)
        return NULL;
    kg_status *st =
        kg_status_newf(a, 504, KG_REASON_TIMEOUT, "Timeout: Too large resource version: %lld, current: %lld",
                       (long long)rv, (long long)current);
    kg_status_add_cause(a, st, "ResourceVersionTooLarge", "Too large resource version", NULL);
    return st;
}

kg_status *kg_negotiate_list_options(kg_arena *a, const char *rv, const char *match, const char *cont)
{
    if (!match || !match[0])
        return NULL;
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    if (!rv || !rv[0])
        kg_field_forbidden(a, &errs, "resourceVersionMatch",
                           "resourceVersionMatch is forbidden unless resourceVersion is provided");
    if (cont && cont[0])
        kg_field_forbidden(a, &errs, "resourceVersionMatch",
                           "resourceVersionMatch is forbidden when continue is provided");
    if (!strcmp(match, "Exact")) {
        if (rv && !strcmp(rv, "0"))
            kg_field_forbidden(a, &errs, "resourceVersionMatch",
                               "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"");
    } else if (strcmp(match, "NotOlderThan")) {
        static const char *const valid[] = {"Exact", "NotOlderThan", ""};
        kg_field_not_supported(a, &errs, "resourceVersionMatch", match, valid, 3);
    }
    return errs.len ? kg_status_invalid(a, KG_GK("meta.k8s.io", "ListOptions"), "", &errs) : NULL;
}
