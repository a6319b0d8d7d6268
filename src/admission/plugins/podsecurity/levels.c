/* PodSecurity levels, versions and the namespace-label policy (pod-security-admission api/constants.go,
 * api/helpers.go).
 *
 * A version is `latest` or matches ^v1\.(0|[1-9][0-9]*)$ (and fits Go's int). A namespace's labels
 * pod-security.kubernetes.io/{enforce,audit,warn}[-version] select its policy; a bad label value is a field error
 * and the mode falls back: enforce to restricted (fail closed), audit and warn to privileged, versions to latest. An
 * explicit valid enforce level raises an unset warn level to it (warn defaulting). */
#include <string.h>

#include "admission/plugins/podsecurity/podsecurity.h"

static const char *const k_levels[] = {"privileged", "baseline", "restricted"};

const char *ps_level_name(ps_level l)
{
    return (unsigned)l < 3 ? k_levels[l] : "";
}

bool ps_parse_level(const char *s, ps_level *out)
{
    for (int i = 0; s && i < 3; i++)
        if (strcmp(s, k_levels[i]) == 0) {
            *out = (ps_level)i;
            return true;
        }
    return false;
}

bool ps_parse_version(const char *s, ps_version *out)
{
    if (!s)
        return false;
    if (strcmp(s, "latest") == 0) {
        *out = (ps_version){true, 0};
        return true;
    }
    if (strncmp(s, "v1.", 3) != 0 || !s[3])
        return false;
    const char *d = s + 3;
    if (d[0] == '0' && d[1])
        return false; /* no leading zeros */
    int64_t minor = 0;
    for (; *d; d++) {
        if (*d < '0' || *d > '9')
            return false;
        if (minor > (INT64_MAX - (*d - '0')) / 10)
            return false; /* strconv.Atoi overflow */
        minor = minor * 10 + (*d - '0');
    }
    *out = (ps_version){false, minor};
    return true;
}

char *ps_lv_format(char *buf, ps_lv lv)
{
    /* on the request path (annotations, messages): no printf */
    const char *name = ps_level_name(lv.level);
    size_t n = strlen(name);
    memcpy(buf, name, n);
    if (lv.version.latest) {
        memcpy(buf + n, ":latest", 8);
        return buf;
    }
    memcpy(buf + n, ":v1.", 4);
    n += 4;
    char digits[24];
    size_t nd = 0;
    int64_t m = lv.version.minor;
    do {
        digits[nd++] = (char)('0' + m % 10);
        m /= 10;
    } while (m > 0);
    while (nd)
        buf[n++] = digits[--nd];
    buf[n] = 0;
    return buf;
}

char *ps_lv_string(kg_arena *a, ps_lv lv)
{
    char buf[PS_LV_MAX];
    return kg_arena_strdup(a, ps_lv_format(buf, lv));
}

int ps_effective_minor(ps_version v)
{
    if (v.latest || v.minor > PS_MAX_MINOR)
        return PS_MAX_MINOR;
    return (int)v.minor;
}

bool ps_lv_equal(ps_lv x, ps_lv y)
{
    return x.level == y.level && x.version.latest == y.version.latest &&
           (x.version.latest || x.version.minor == y.version.minor);
}

bool ps_lv_equivalent(ps_lv x, ps_lv y)
{
    if (x.level == PS_PRIVILEGED && y.level == PS_PRIVILEGED)
        return true;
    return ps_lv_equal(x, y);
}

bool ps_policy_fully_privileged(const ps_policy *p)
{
    return p->enforce.level == PS_PRIVILEGED && p->audit.level == PS_PRIVILEGED && p->warn.level == PS_PRIVILEGED;
}

bool ps_policy_equivalent(const ps_policy *x, const ps_policy *y)
{
    return ps_lv_equivalent(x->enforce, y->enforce) && ps_lv_equivalent(x->audit, y->audit) &&
           ps_lv_equivalent(x->warn, y->warn);
}

/* labels[key] as a string, or NULL when absent (a non-string value is treated as an invalid "" value). */
static const char *label(const kg_json *labels, const char *key, bool *present)
{
    const kg_json *v = kg_json_is(labels, KG_JSON_OBJECT) ? kg_json_getn(labels, key, strlen(key)) : NULL;
    *present = v != NULL && !kg_json_is(v, KG_JSON_NULL);
    if (!*present)
        return NULL;
    return kg_json_is(v, KG_JSON_STRING) ? v->u.s : "";
}

static void label_err(kg_arena *a, kg_field_errors *errs, const char *key, const char *value, const char *detail)
{
    kg_field_invalid(a, errs, kg_arena_sprintf(a, "metadata.labels[%s]", key), value, detail);
}

/* One mode: level label, then version label. Returns whether the level label was present and valid. */
static bool parse_mode(kg_arena *a, const kg_json *labels, const char *level_key, const char *version_key,
                       ps_level fallback, ps_lv *lv, bool *has_level, bool *has_version, kg_field_errors *errs)
{
    const char *key = level_key;
    bool valid_level = false;
    const char *v = label(labels, key, has_level);
    if (*has_level) {
        if (ps_parse_level(v, &lv->level)) {
            valid_level = true;
        } else {
            lv->level = fallback;
            label_err(a, errs, key, v, PS_LEVEL_ERR);
        }
    }
    key = version_key;
    v = label(labels, key, has_version);
    if (*has_version && !ps_parse_version(v, &lv->version)) {
        lv->version = (ps_version){true, 0};
        label_err(a, errs, key, v, PS_VERSION_ERR);
    }
    return valid_level;
}

ps_policy ps_policy_from_labels(kg_arena *a, const kg_json *labels, const ps_policy *defaults, kg_field_errors *errs)
{
    ps_policy p = *defaults;
    if (!kg_json_is(labels, KG_JSON_OBJECT) || labels->len == 0)
        return p;
    bool has_level, has_version, has_warn_level, has_warn_version;
    bool has_enforce = parse_mode(a, labels, PS_LABEL_PREFIX "enforce", PS_LABEL_PREFIX "enforce-version",
                                  PS_RESTRICTED, &p.enforce, &has_level, &has_version, errs);
    parse_mode(a, labels, PS_LABEL_PREFIX "audit", PS_LABEL_PREFIX "audit-version", PS_PRIVILEGED, &p.audit, &has_level,
               &has_version, errs);
    parse_mode(a, labels, PS_LABEL_PREFIX "warn", PS_LABEL_PREFIX "warn-version", PS_PRIVILEGED, &p.warn,
               &has_warn_level, &has_warn_version, errs);
    /* warn defaults to the explicitly set enforce level when stricter */
    if (!has_warn_level && has_enforce && p.enforce.level > p.warn.level) {
        p.warn.level = p.enforce.level;
        if (!has_warn_version)
            p.warn.version = p.enforce.version;
    }
    return p;
}
