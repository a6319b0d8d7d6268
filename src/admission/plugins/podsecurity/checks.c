/* The versioned check registry of the Pod Security Standards as of Kubernetes v1.33 (policy/registry.go) and the
 * per-level, per-version check lists built from it once at start-up.
 *
 * A check has an ID, a level and versions: each versioned implementation applies from its minimum version until the
 * next one's. baseline(v) is every baseline check active at v; restricted(v) is baseline(v) minus the baseline checks
 * overridden by a restricted check active at v, followed by the restricted checks active at v. Each group runs in
 * bytewise ID order, which fixes the order of the reasons in messages.
 *
 * Checks newer than v1.33 (hostProbesAndHostLifecycle v1.34, procMount_restricted and the hostUsers relaxations
 * v1.35, the v1.37 sysctls) are not part of this registry: `latest` is v1.33. */
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/podsecurity/podsecurity.h"

#define V(min, fn)                                                                                                     \
    {                                                                                                                  \
        (min), (fn), NULL                                                                                              \
    }
#define VO(min, fn, ov)                                                                                                \
    {                                                                                                                  \
        (min), (fn), (ov)                                                                                              \
    }
#define CHECK(id, level, vs)                                                                                           \
    {                                                                                                                  \
        (id), (level), (vs), sizeof(vs) / sizeof((vs)[0])                                                              \
    }

static const char *const k_over_caps[] = {"capabilities_baseline", NULL};
static const char *const k_over_volumes[] = {"hostPathVolumes", NULL};
static const char *const k_over_seccomp[] = {"seccompProfile_baseline", NULL};

static const ps_versioned_check v_apparmor[] = {V(0, ps_check_apparmor)};
static const ps_versioned_check v_caps_baseline[] = {V(0, ps_check_capabilities_baseline)};
static const ps_versioned_check v_host_ns[] = {V(0, ps_check_host_namespaces)};
static const ps_versioned_check v_host_path[] = {V(0, ps_check_host_path_volumes)};
static const ps_versioned_check v_host_ports[] = {V(0, ps_check_host_ports)};
static const ps_versioned_check v_privileged[] = {V(0, ps_check_privileged)};
static const ps_versioned_check v_proc_mount[] = {V(0, ps_check_proc_mount)};
static const ps_versioned_check v_selinux[] = {V(0, ps_check_selinux_1_0), V(31, ps_check_selinux_1_31)};
static const ps_versioned_check v_seccomp_baseline[] = {V(0, ps_check_seccomp_baseline_1_0),
                                                        V(19, ps_check_seccomp_baseline_1_19)};
static const ps_versioned_check v_sysctls[] = {V(0, ps_check_sysctls_1_0), V(27, ps_check_sysctls_1_27),
                                               V(29, ps_check_sysctls_1_29), V(32, ps_check_sysctls_1_32)};
static const ps_versioned_check v_host_process[] = {V(0, ps_check_windows_host_process)};
static const ps_versioned_check v_ape[] = {V(8, ps_check_allow_privilege_escalation_1_8),
                                           V(25, ps_check_allow_privilege_escalation_1_25)};
static const ps_versioned_check v_caps_restricted[] = {VO(22, ps_check_capabilities_restricted_1_22, k_over_caps),
                                                       VO(25, ps_check_capabilities_restricted_1_25, k_over_caps)};
static const ps_versioned_check v_volumes[] = {VO(0, ps_check_restricted_volumes, k_over_volumes)};
static const ps_versioned_check v_non_root[] = {V(0, ps_check_run_as_non_root)};
static const ps_versioned_check v_run_as_user[] = {V(23, ps_check_run_as_user)};
static const ps_versioned_check v_seccomp_restricted[] = {VO(19, ps_check_seccomp_restricted_1_19, k_over_seccomp),
                                                          VO(25, ps_check_seccomp_restricted_1_25, k_over_seccomp)};

static const ps_check k_checks[] = {
    CHECK("appArmorProfile", PS_BASELINE, v_apparmor),
    CHECK("capabilities_baseline", PS_BASELINE, v_caps_baseline),
    CHECK("hostNamespaces", PS_BASELINE, v_host_ns),
    CHECK("hostPathVolumes", PS_BASELINE, v_host_path),
    CHECK("hostPorts", PS_BASELINE, v_host_ports),
    CHECK("privileged", PS_BASELINE, v_privileged),
    CHECK("procMount", PS_BASELINE, v_proc_mount),
    CHECK("seLinuxOptions", PS_BASELINE, v_selinux),
    CHECK("seccompProfile_baseline", PS_BASELINE, v_seccomp_baseline),
    CHECK("sysctls", PS_BASELINE, v_sysctls),
    CHECK("windowsHostProcess", PS_BASELINE, v_host_process),
    CHECK("allowPrivilegeEscalation", PS_RESTRICTED, v_ape),
    CHECK("capabilities_restricted", PS_RESTRICTED, v_caps_restricted),
    CHECK("restrictedVolumes", PS_RESTRICTED, v_volumes),
    CHECK("runAsNonRoot", PS_RESTRICTED, v_non_root),
    CHECK("runAsUser", PS_RESTRICTED, v_run_as_user),
    CHECK("seccompProfile_restricted", PS_RESTRICTED, v_seccomp_restricted),
};

const ps_check *ps_default_checks(size_t *n)
{
    *n = sizeof k_checks / sizeof k_checks[0];
    return k_checks;
}

static const ps_check *find(const ps_check *checks, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(checks[i].id, id) == 0)
            return &checks[i];
    return NULL;
}

/* validateChecks: the registry's invariants, with upstream's texts. */
static bool validate(const ps_check *checks, size_t n, kg_error *err)
{
    for (size_t i = 0; i < n; i++) {
        const ps_check *c = &checks[i];
        if (find(checks, i, c->id))
            return kg_err_set(err, KG_EINVAL, "multiple checks registered for ID %s", c->id);
        if (c->level != PS_BASELINE && c->level != PS_RESTRICTED)
            return kg_err_set(err, KG_EINVAL, "check %s: invalid level %s", c->id, ps_level_name(c->level));
        if (!c->nversions)
            return kg_err_set(err, KG_EINVAL, "check %s: empty", c->id);
        int max = -1;
        for (size_t v = 0; v < c->nversions; v++) {
            int m = c->versions[v].min_minor;
            if (m == -1)
                return kg_err_set(err, KG_EINVAL, "check %s: undefined version found", c->id);
            if (m < -1)
                return kg_err_set(err, KG_EINVAL, "check %s: version cannot be 'latest'", c->id);
            if (m == max)
                return kg_err_set(err, KG_EINVAL, "check %s: duplicate version v1.%d", c->id, m);
            if (m < max)
                return kg_err_set(err, KG_EINVAL, "check %s: versions must be strictly increasing", c->id);
            max = m;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const ps_check *c = &checks[i];
        for (size_t v = 0; v < c->nversions; v++) {
            const char *const *ov = c->versions[v].overrides;
            if (!ov || !ov[0])
                continue;
            if (c->level != PS_RESTRICTED)
                return kg_err_set(err, KG_EINVAL, "check %s: only restricted checks may set overrides", c->id);
            for (; *ov; ov++) {
                const ps_check *o = find(checks, n, *ov);
                if (o && o->level != PS_BASELINE)
                    return kg_err_set(err, KG_EINVAL, "check %s: overrides %s check %s", c->id, ps_level_name(o->level),
                                      *ov);
            }
        }
    }
    return true;
}

/* The implementation of c active at minor, or NULL when c is newer. */
static const ps_versioned_check *active(const ps_check *c, int minor)
{
    const ps_versioned_check *found = NULL;
    for (size_t v = 0; v < c->nversions; v++)
        if (c->versions[v].min_minor <= minor)
            found = &c->versions[v];
    return found;
}

static int cmp_check(const void *x, const void *y)
{
    return strcmp((*(const ps_check *const *)x)->id, (*(const ps_check *const *)y)->id);
}

static bool overridden(const ps_check *const *sorted, size_t n, int minor, const char *id)
{
    for (size_t i = 0; i < n; i++) {
        if (sorted[i]->level != PS_RESTRICTED)
            continue;
        const ps_versioned_check *vc = active(sorted[i], minor);
        for (const char *const *ov = vc ? vc->overrides : NULL; ov && *ov; ov++)
            if (strcmp(*ov, id) == 0)
                return true;
    }
    return false;
}

static bool append(ps_check_list *l, const ps_check *c, const ps_versioned_check *vc, kg_error *err)
{
    if (l->n == PS_MAX_CHECKS)
        return kg_err_set(err, KG_EINTERNAL, "too many PodSecurity checks");
    l->ids[l->n] = c->id;
    l->fns[l->n] = vc->fn;
    l->n++;
    return true;
}

bool ps_evaluator_init(ps_evaluator *ev, const ps_check *checks, size_t n, kg_error *err)
{
    memset(ev, 0, sizeof *ev);
    if (!validate(checks, n, err))
        return false;
    const ps_check **sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted)
        return kg_err_set(err, KG_EINTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++)
        sorted[i] = &checks[i];
    qsort((void *)sorted, n, sizeof *sorted, cmp_check);
    bool ok = true;
    for (int minor = 0; minor <= PS_MAX_MINOR && ok; minor++) {
        ps_check_list *base = &ev->lists[0][minor], *restr = &ev->lists[1][minor];
        for (size_t i = 0; i < n && ok; i++) {
            const ps_versioned_check *vc = active(sorted[i], minor);
            if (!vc || sorted[i]->level != PS_BASELINE)
                continue;
            ok = append(base, sorted[i], vc, err);
            if (ok && !overridden(sorted, n, minor, sorted[i]->id))
                ok = append(restr, sorted[i], vc, err);
        }
        for (size_t i = 0; i < n && ok; i++) {
            const ps_versioned_check *vc = active(sorted[i], minor);
            if (vc && sorted[i]->level == PS_RESTRICTED)
                ok = append(restr, sorted[i], vc, err);
        }
    }
    free((void *)sorted);
    return ok;
}

const ps_check_list *ps_evaluator_list(const ps_evaluator *ev, ps_lv lv)
{
    if (lv.level == PS_PRIVILEGED)
        return NULL;
    return &ev->lists[lv.level == PS_BASELINE ? 0 : 1][ps_effective_minor(lv.version)];
}
