/* ImagePolicyWebhook's configuration (imagepolicy/config.go), the AdmissionConfiguration entry's object:
 *
 *   imagePolicy:
 *     kubeConfigFile: /path/to/kubeconfig   # the backend: server URL (https), CA, client credentials
 *     allowTTL: 50                          # seconds an allow is cached      (0/omitted: 5m,    -1: not cached)
 *     denyTTL: 50                           # seconds a denial is cached      (0/omitted: 30s,   -1: not cached)
 *     retryBackoff: 500                     # milliseconds before the 1st retry (0/omitted: 500ms, -1: none)
 *     defaultAllow: true                    # allow when the backend cannot be asked (default false)
 *
 * As upstream, unknown keys are ignored, the three durations must be JSON integers (Go decodes them into
 * time.Duration), and after scaling they must lie in [1s, 30m] (TTLs) or [1ns, 5m] (backoff), checked in upstream's
 * order (backoff, allow, deny) with its text: `valid value is between 1s and 30m0s, got 40m0s`. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "admission/plugins/imagepolicywebhook/imagepolicywebhook.h"

#define GO_STRUCT "AdmissionConfig.imagePolicy."

static const char *go_type(const kg_json *v)
{
    switch ((kg_json_type)v->type) {
    case KG_JSON_NULL: return "null";
    case KG_JSON_BOOL: return "bool";
    case KG_JSON_INT:
    case KG_JSON_NUMBER: return "number";
    case KG_JSON_STRING: return "string";
    case KG_JSON_ARRAY: return "array";
    case KG_JSON_OBJECT: return "object";
    }
    return "value";
}

/* Append a non-negative fraction v/unit ("1.5", "30", "0.001") with trailing zeros trimmed, as Go's fmtFrac. */
static void frac(char *buf, size_t cap, uint64_t v, uint64_t unit, const char *suffix)
{
    size_t n = strlen(buf);
    int digits = 0;
    for (uint64_t u = unit; u > 1; u /= 10)
        digits++;
    uint64_t whole = v / unit, rest = v % unit;
    if (!rest) {
        snprintf(buf + n, cap - n, "%" PRIu64 "%s", whole, suffix);
        return;
    }
    char fr[24];
    snprintf(fr, sizeof fr, "%0*" PRIu64, digits, rest);
    for (size_t k = strlen(fr); k > 0 && fr[k - 1] == '0'; k--)
        fr[k - 1] = 0;
    snprintf(buf + n, cap - n, "%" PRIu64 ".%s%s", whole, fr, suffix);
}

const char *kg_ipw_format_duration(char *buf, size_t cap, int64_t ns)
{
    buf[0] = 0;
    if (ns == 0) {
        snprintf(buf, cap, "0s");
        return buf;
    }
    uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0)
        snprintf(buf, cap, "-");
    if (u < 1000) {
        frac(buf, cap, u, 1, "ns");
    } else if (u < 1000000) {
        frac(buf, cap, u, 1000, "\xc2\xb5s");
    } else if (u < 1000000000) {
        frac(buf, cap, u, 1000000, "ms");
    } else {
        uint64_t s = u / 1000000000, h = s / 3600, m = s / 60 % 60;
        size_t n = strlen(buf);
        if (h)
            snprintf(buf + n, cap - n, "%" PRIu64 "h%" PRIu64 "m", h, m);
        else if (m)
            snprintf(buf + n, cap - n, "%" PRIu64 "m", m);
        frac(buf, cap, u % 60000000000u, 1000000000, "s");
    }
    return buf;
}

/* One duration field: Go's decode rules, then normalizeConfigDuration. */
static bool duration(const kg_json *ip, const char *key, int64_t scale, int64_t min, int64_t max, int64_t def,
                     int64_t *out, kg_error *err)
{
    const kg_json *v = kg_json_get(ip, key);
    int64_t raw = 0;
    if (v && !kg_json_is(v, KG_JSON_NULL)) {
        if (kg_json_is(v, KG_JSON_NUMBER))
            return kg_err_set(err, KG_EINVAL,
                              "json: cannot unmarshal number %s into Go struct field " GO_STRUCT
                              "%s of type time.Duration",
                              v->u.num.raw ? v->u.num.raw : "", key);
        if (!kg_json_is(v, KG_JSON_INT))
            return kg_err_set(err, KG_EINVAL,
                              "json: cannot unmarshal %s into Go struct field " GO_STRUCT "%s of type time.Duration",
                              go_type(v), key);
        raw = v->u.i;
    }
    if (raw == -1) { /* disabled */
        *out = 0;
        return true;
    }
    if (raw == 0) {
        *out = def;
        return true;
    }
    int64_t val = raw > INT64_MAX / scale ? INT64_MAX : raw < INT64_MIN / scale ? INT64_MIN : raw * scale;
    if (val < min || val > max) {
        char a[40], b[40], c[40];
        return kg_err_set(err, KG_EINVAL, "valid value is between %s and %s, got %s",
                          kg_ipw_format_duration(a, sizeof a, min), kg_ipw_format_duration(b, sizeof b, max),
                          kg_ipw_format_duration(c, sizeof c, val));
    }
    *out = val;
    return true;
}

bool kg_ipw_config_parse(kg_arena *a, const kg_json *config, kg_ipw_config *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    if (!config)
        return kg_err_set(err, KG_EINVAL, "no config specified");
    if (!kg_json_is(config, KG_JSON_OBJECT))
        return kg_err_set(err, KG_EINVAL, "json: cannot unmarshal %s into Go value of type imagepolicy.AdmissionConfig",
                          go_type(config));
    const kg_json *ip = kg_json_get(config, "imagePolicy");
    if (ip && !kg_json_is(ip, KG_JSON_NULL) && !kg_json_is(ip, KG_JSON_OBJECT))
        return kg_err_set(err, KG_EINVAL,
                          "json: cannot unmarshal %s into Go struct field AdmissionConfig.imagePolicy of type "
                          "imagepolicy.imagePolicyWebhookConfig",
                          go_type(ip));
    if (!kg_json_is(ip, KG_JSON_OBJECT))
        ip = NULL;
    const kg_json *kc = kg_json_get(ip, "kubeConfigFile");
    if (kc && !kg_json_is(kc, KG_JSON_NULL) && !kg_json_is(kc, KG_JSON_STRING))
        return kg_err_set(err, KG_EINVAL,
                          "json: cannot unmarshal %s into Go struct field " GO_STRUCT "kubeConfigFile of type string",
                          go_type(kc));
    out->kubeconfig = kg_arena_strdup(a, kg_json_is(kc, KG_JSON_STRING) ? kc->u.s : "");
    const kg_json *da = kg_json_get(ip, "defaultAllow");
    if (da && !kg_json_is(da, KG_JSON_NULL) && !kg_json_is(da, KG_JSON_BOOL))
        return kg_err_set(err, KG_EINVAL,
                          "json: cannot unmarshal %s into Go struct field " GO_STRUCT "defaultAllow of type bool",
                          go_type(da));
    out->default_allow = kg_json_is(da, KG_JSON_BOOL) && da->b;
    const int64_t s = KG_IPW_NS_PER_S, ms = KG_IPW_NS_PER_MS;
    return duration(ip, "retryBackoff", ms, 1, 300 * s, 500 * ms, &out->backoff_ns, err) &&
           duration(ip, "allowTTL", s, s, 1800 * s, 300 * s, &out->allow_ttl_ns, err) &&
           duration(ip, "denyTTL", s, s, 1800 * s, 30 * s, &out->deny_ttl_ns, err);
}
