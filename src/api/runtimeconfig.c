/* --runtime-config parsing (runtimeconfig.h). */
#include "api/runtimeconfig.h"

#include <stdlib.h>
#include <string.h>

#include "api/resources.h"
#include "base/log.h"

/* Group/versions kgate has registered but does not serve by default. */
static const char *const optional_gvs[] = {"admissionregistration.k8s.io/v1beta1",
                                           "admissionregistration.k8s.io/v1alpha1"};

/* strconv.ParseBool */
static bool parse_bool(const char *v, bool *out)
{
    static const char *const t[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const f[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (size_t i = 0; i < 6; i++) {
        if (!strcmp(v, t[i]))
            return *out = true, true;
        if (!strcmp(v, f[i]))
            return *out = false, true;
    }
    return false;
}

static bool group_known(const char *group)
{
    for (size_t i = 0; i < kg_resources_count(); i++)
        if (!strcmp(kg_resource_at(i)->group, group))
            return true;
    return false;
}

static bool gv_served(const char *group, const char *version)
{
    for (size_t i = 0; i < kg_resources_count(); i++)
        if (!strcmp(kg_resource_at(i)->group, group) && !strcmp(kg_resource_at(i)->version, version))
            return true;
    return false;
}

static void set_optional(kg_runtime_config *out, const char *gv, bool on)
{
    if (!strcmp(gv, optional_gvs[0]))
        out->admissionregistration_v1beta1 = on;
    else if (!strcmp(gv, optional_gvs[1]))
        out->admissionregistration_v1alpha1 = on;
}

bool kg_runtime_config_parse(const char *spec, kg_runtime_config *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    if (!spec || !*spec)
        return true;
    bool ok = true;
    /* two passes, as upstream: the api/<stability> keys first, then the group/versions, which win */
    for (int pass = 0; pass < 2 && ok; pass++) {
        char *work = strdup(spec);
        if (!work)
            return kg_err_set(err, KG_EINTERNAL, "out of memory");
        char *save = NULL;
        for (char *kv = strtok_r(work, ",", &save); kv && ok; kv = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(kv, '=');
            const char *val = eq ? eq + 1 : "";
            if (eq)
                *eq = 0;
            const char *key = kv;
            bool on = true;
            if (*val && !parse_bool(val, &on)) {
                ok = kg_err_set(err, KG_EINVAL,
                                "invalid value of %s: %s, err: strconv.ParseBool: parsing \"%s\": "
                                "invalid syntax",
                                key, val, val);
                break;
            }
            bool stability = !strcmp(key, "api/all") || !strcmp(key, "api/ga") || !strcmp(key, "api/beta") ||
                             !strcmp(key, "api/alpha");
            if (pass == 0) {
                if (!strcmp(key, "api/all") || !strcmp(key, "api/beta"))
                    out->admissionregistration_v1beta1 = on;
                if (!strcmp(key, "api/all") || !strcmp(key, "api/alpha"))
                    out->admissionregistration_v1alpha1 = on;
                continue;
            }
            if (stability || !strcmp(key, "api/legacy") || !strcmp(key, "api/v1") || !strcmp(key, "v1")) {
                if (!on && !stability)
                    KG_WARN("--runtime-config: %s=false is not supported: the core API stays served", key);
                continue;
            }
            const char *slash = strchr(key, '/');
            if (!slash || strchr(slash + 1, '/') || slash == key || !slash[1]) {
                ok = kg_err_set(err, KG_EINVAL, "invalid key %s", key);
                break;
            }
            char group[256];
            size_t gl = (size_t)(slash - key);
            if (gl >= sizeof group) {
                ok = kg_err_set(err, KG_EINVAL, "invalid key %s", key);
                break;
            }
            memcpy(group, key, gl);
            group[gl] = 0;
            if (!group_known(group))
                continue; /* not a group of this server */
            bool optional = !strcmp(key, optional_gvs[0]) || !strcmp(key, optional_gvs[1]);
            if (optional) {
                set_optional(out, key, on);
            } else if (gv_served(group, slash + 1)) {
                if (!on)
                    KG_WARN("--runtime-config: %s=false is not supported: %s stays served", key, key);
            } else {
                ok = kg_err_set(err, KG_EINVAL, "group version %s that has not been registered", key);
            }
        }
        free(work);
    }
    return ok;
}
