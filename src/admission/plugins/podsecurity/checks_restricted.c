/* The restricted checks of the Pod Security Standards (pod-security-admission policy/check_*.go) with the exact
 * upstream reason and detail texts. Unlike most baseline checks, several of these require a value to be set
 * (allowPrivilegeEscalation=false, capabilities.drop ALL, runAsNonRoot, a seccomp profile). From v1.25 the checks
 * allowPrivilegeEscalation, capabilities_restricted and seccompProfile_restricted skip Windows pods
 * (spec.os.name "windows"). */
#include <string.h>

#include "admission/plugins/podsecurity/podsecurity.h"

static ps_result deny(const char *reason, const char *detail)
{
    return (ps_result){false, reason, detail};
}

bool ps_seccomp_type_ok(const kg_json *prof)
{
    const char *t = ps_str(prof, "type");
    return t && (strcmp(t, "RuntimeDefault") == 0 || strcmp(t, "Localhost") == 0);
}

/* allowPrivilegeEscalation (v1.8; v1.25 skips Windows pods): must be explicitly false on every container. */
ps_result ps_check_allow_privilege_escalation_1_8(kg_arena *a, const ps_pod *p)
{
    ps_strs bad = {0};
    for (size_t i = 0; i < p->ncontainers; i++) {
        bool v;
        if (!ps_bool(p->containers[i].sc, "allowPrivilegeEscalation", &v) || v)
            ps_strs_add(a, &bad, p->containers[i].name);
    }
    if (!bad.n)
        return PS_ALLOWED;
    return deny("allowPrivilegeEscalation != false",
                kg_arena_sprintf(a, "%s must set securityContext.allowPrivilegeEscalation=false",
                                 ps_containers_phrase(a, &bad)));
}

ps_result ps_check_allow_privilege_escalation_1_25(kg_arena *a, const ps_pod *p)
{
    return p->windows ? PS_ALLOWED : ps_check_allow_privilege_escalation_1_8(a, p);
}

/* capabilities_restricted (v1.22; v1.25 skips Windows pods): drop must contain "ALL", add only NET_BIND_SERVICE. */
ps_result ps_check_capabilities_restricted_1_22(kg_arena *a, const ps_pod *p)
{
    ps_strs missing = {0}, adding = {0}, caps = {0};
    for (size_t i = 0; i < p->ncontainers; i++) {
        const kg_json *c = ps_obj(p->containers[i].sc, "capabilities");
        if (!c) {
            ps_strs_add(a, &missing, p->containers[i].name);
            continue;
        }
        const kg_json *drop = ps_arr(c, "drop"), *add = ps_arr(c, "add");
        bool all = false;
        for (size_t j = 0; drop && j < drop->len && !all; j++) {
            const kg_json *d = kg_json_at(drop, j);
            all = kg_json_is(d, KG_JSON_STRING) && strcmp(d->u.s, "ALL") == 0;
        }
        if (!all)
            ps_strs_add(a, &missing, p->containers[i].name);
        bool forbidden = false;
        for (size_t j = 0; add && j < add->len; j++) {
            const kg_json *x = kg_json_at(add, j);
            const char *cap = kg_json_is(x, KG_JSON_STRING) ? x->u.s : "";
            if (strcmp(cap, "NET_BIND_SERVICE") != 0) {
                forbidden = true;
                ps_strs_add(a, &caps, cap);
            }
        }
        if (forbidden)
            ps_strs_add(a, &adding, p->containers[i].name);
    }
    ps_strs parts = {0};
    if (missing.n)
        ps_strs_add(a, &parts,
                    kg_arena_sprintf(a, "%s must set securityContext.capabilities.drop=[\"ALL\"]",
                                     ps_containers_phrase(a, &missing)));
    if (adding.n) {
        ps_strs_sort_unique(&caps);
        ps_strs_add(a, &parts,
                    kg_arena_sprintf(a, "%s must not include %s in securityContext.capabilities.add",
                                     ps_containers_phrase(a, &adding), ps_join_quote(a, &caps)));
    }
    if (!parts.n)
        return PS_ALLOWED;
    return deny("unrestricted capabilities", ps_join(a, &parts, "; "));
}

ps_result ps_check_capabilities_restricted_1_25(kg_arena *a, const ps_pod *p)
{
    return p->windows ? PS_ALLOWED : ps_check_capabilities_restricted_1_22(a, p);
}

/* restrictedVolumes (v1.0): only the listed volume sources. */
static const char *const k_allowed_volumes[] = {"configMap", "csi",   "downwardAPI",           "emptyDir",
                                                "ephemeral", "image", "persistentVolumeClaim", "projected",
                                                "secret"};
static const char *const k_restricted_volumes[] = {"hostPath",
                                                   "gcePersistentDisk",
                                                   "awsElasticBlockStore",
                                                   "gitRepo",
                                                   "nfs",
                                                   "iscsi",
                                                   "glusterfs",
                                                   "rbd",
                                                   "flexVolume",
                                                   "cinder",
                                                   "cephfs",
                                                   "flocker",
                                                   "fc",
                                                   "azureFile",
                                                   "vsphereVolume",
                                                   "quobyte",
                                                   "azureDisk",
                                                   "photonPersistentDisk",
                                                   "portworxVolume",
                                                   "scaleIO",
                                                   "storageos"};

#define NELEM(x) (sizeof(x) / sizeof((x)[0]))

/* a non-null member (Go: a non-nil pointer field) */
static bool has(const kg_json *o, const char *key)
{
    const kg_json *v = kg_json_is(o, KG_JSON_OBJECT) ? kg_json_getn(o, key, strlen(key)) : NULL;
    return v && !kg_json_is(v, KG_JSON_NULL);
}

ps_result ps_check_restricted_volumes(kg_arena *a, const ps_pod *p)
{
    ps_strs bad = {0}, types = {0};
    const kg_json *vols = ps_arr(p->spec, "volumes");
    for (size_t i = 0; vols && i < vols->len; i++) {
        const kg_json *v = kg_json_at(vols, i);
        bool ok = false;
        for (size_t k = 0; k < NELEM(k_allowed_volumes) && !ok; k++)
            ok = has(v, k_allowed_volumes[k]);
        if (ok)
            continue;
        const char *n = ps_str(v, "name");
        ps_strs_add(a, &bad, n ? n : "");
        const char *type = "unknown";
        for (size_t k = 0; k < NELEM(k_restricted_volumes); k++)
            if (has(v, k_restricted_volumes[k])) {
                type = k_restricted_volumes[k];
                break;
            }
        ps_strs_add(a, &types, type);
    }
    if (!bad.n)
        return PS_ALLOWED;
    ps_strs_sort_unique(&types);
    return deny("restricted volume types",
                kg_arena_sprintf(a, "%s %s %s %s %s", ps_plural("volume", "volumes", bad.n), ps_join_quote(a, &bad),
                                 ps_plural("uses", "use", bad.n),
                                 ps_plural("restricted volume type", "restricted volume types", types.n),
                                 ps_join_quote(a, &types)));
}

/* runAsNonRoot (v1.0): true at pod level or on every container; an explicit false anywhere is reported first. */
ps_result ps_check_run_as_non_root(kg_arena *a, const ps_pod *p)
{
    ps_strs who = {0}, explicit_bad = {0}, implicit_bad = {0};
    bool pod_true = false, v;
    if (ps_bool(p->sc, "runAsNonRoot", &v)) {
        if (!v)
            ps_strs_add(a, &who, "pod");
        else
            pod_true = true;
    }
    for (size_t i = 0; i < p->ncontainers; i++) {
        if (ps_bool(p->containers[i].sc, "runAsNonRoot", &v)) {
            if (!v)
                ps_strs_add(a, &explicit_bad, p->containers[i].name);
        } else if (!pod_true) {
            ps_strs_add(a, &implicit_bad, p->containers[i].name);
        }
    }
    if (explicit_bad.n)
        ps_strs_add(a, &who, ps_containers_phrase(a, &explicit_bad));
    if (who.n)
        return deny("runAsNonRoot != true", kg_arena_sprintf(a, "%s must not set securityContext.runAsNonRoot=false",
                                                             ps_join(a, &who, " and ")));
    if (implicit_bad.n)
        return deny("runAsNonRoot != true", kg_arena_sprintf(a, "pod or %s must set securityContext.runAsNonRoot=true",
                                                             ps_containers_phrase(a, &implicit_bad)));
    return PS_ALLOWED;
}

/* runAsUser (v1.23): runAsUser must not be 0 at pod or container level. */
ps_result ps_check_run_as_user(kg_arena *a, const ps_pod *p)
{
    ps_strs who = {0}, bad = {0};
    int64_t u;
    if (ps_int(p->sc, "runAsUser", &u) && u == 0)
        ps_strs_add(a, &who, "pod");
    for (size_t i = 0; i < p->ncontainers; i++)
        if (ps_int(p->containers[i].sc, "runAsUser", &u) && u == 0)
            ps_strs_add(a, &bad, p->containers[i].name);
    if (bad.n)
        ps_strs_add(a, &who, ps_containers_phrase(a, &bad));
    if (!who.n)
        return PS_ALLOWED;
    return deny("runAsUser=0", kg_arena_sprintf(a, "%s must not set runAsUser=0", ps_join(a, &who, " and ")));
}

/* seccompProfile_restricted (v1.19; v1.25 skips Windows pods): a valid profile at pod level or on every container. */
ps_result ps_check_seccomp_restricted_1_19(kg_arena *a, const ps_pod *p)
{
    ps_strs who = {0}, values = {0}, explicit_bad = {0}, implicit_bad = {0};
    bool pod_set = false;
    const kg_json *prof = ps_obj(p->sc, "seccompProfile");
    if (prof) {
        if (!ps_seccomp_type_ok(prof)) {
            ps_strs_add(a, &who, "pod");
            ps_strs_add(a, &values, ps_str(prof, "type"));
        } else {
            pod_set = true;
        }
    }
    for (size_t i = 0; i < p->ncontainers; i++) {
        prof = ps_obj(p->containers[i].sc, "seccompProfile");
        if (prof) {
            if (!ps_seccomp_type_ok(prof)) {
                ps_strs_add(a, &explicit_bad, p->containers[i].name);
                ps_strs_add(a, &values, ps_str(prof, "type"));
            }
        } else if (!pod_set) {
            ps_strs_add(a, &implicit_bad, p->containers[i].name);
        }
    }
    if (explicit_bad.n)
        ps_strs_add(a, &who, ps_containers_phrase(a, &explicit_bad));
    if (who.n) {
        ps_strs_sort_unique(&values);
        return deny("seccompProfile", kg_arena_sprintf(a, "%s must not set securityContext.seccompProfile.type to %s",
                                                       ps_join(a, &who, " and "), ps_join_quote(a, &values)));
    }
    if (implicit_bad.n)
        return deny("seccompProfile",
                    kg_arena_sprintf(a,
                                     "pod or %s must set securityContext.seccompProfile.type to \"RuntimeDefault\" or "
                                     "\"Localhost\"",
                                     ps_containers_phrase(a, &implicit_bad)));
    return PS_ALLOWED;
}

ps_result ps_check_seccomp_restricted_1_25(kg_arena *a, const ps_pod *p)
{
    return p->windows ? PS_ALLOWED : ps_check_seccomp_restricted_1_19(a, p);
}
