/* The baseline checks of the Pod Security Standards (pod-security-admission policy/check_*.go), each with the exact
 * upstream reason and detail texts. Containers are visited in the order initContainers, containers,
 * ephemeralContainers; "sorted" lists are Go string sets (bytewise, de-duplicated). Unset (absent or null) fields
 * are allowed unless stated otherwise. */
#include <string.h>

#include "admission/plugins/podsecurity/podsecurity.h"

static ps_result deny(const char *reason, const char *detail)
{
    return (ps_result){false, reason, detail};
}

/* true when o[key] is explicitly true */
static bool is_true(const kg_json *o, const char *key)
{
    bool b;
    return ps_bool(o, key, &b) && b;
}

/* `a and b and c` for a list of setters */
static char *setters(kg_arena *a, const ps_strs *l)
{
    return ps_join(a, l, " and ");
}

/* privileged (v1.0): securityContext.privileged must not be true. */
ps_result ps_check_privileged(kg_arena *a, const ps_pod *p)
{
    ps_strs bad = {0};
    for (size_t i = 0; i < p->ncontainers; i++)
        if (is_true(p->containers[i].sc, "privileged"))
            ps_strs_add(a, &bad, p->containers[i].name);
    if (!bad.n)
        return PS_ALLOWED;
    return deny("privileged",
                kg_arena_sprintf(a, "%s must not set securityContext.privileged=true", ps_containers_phrase(a, &bad)));
}

/* hostNamespaces (v1.0): hostNetwork, hostPID, hostIPC must not be true. */
ps_result ps_check_host_namespaces(kg_arena *a, const ps_pod *p)
{
    ps_strs bad = {0};
    if (is_true(p->spec, "hostNetwork"))
        ps_strs_add(a, &bad, "hostNetwork=true");
    if (is_true(p->spec, "hostPID"))
        ps_strs_add(a, &bad, "hostPID=true");
    if (is_true(p->spec, "hostIPC"))
        ps_strs_add(a, &bad, "hostIPC=true");
    if (!bad.n)
        return PS_ALLOWED;
    return deny("host namespaces", ps_join(a, &bad, ", "));
}

/* hostPathVolumes (v1.0): no volume may be a hostPath. */
ps_result ps_check_host_path_volumes(kg_arena *a, const ps_pod *p)
{
    ps_strs bad = {0};
    const kg_json *vols = ps_arr(p->spec, "volumes");
    for (size_t i = 0; vols && i < vols->len; i++)
        if (ps_obj(kg_json_at(vols, i), "hostPath")) {
            const char *n = ps_str(kg_json_at(vols, i), "name");
            ps_strs_add(a, &bad, n ? n : "");
        }
    if (!bad.n)
        return PS_ALLOWED;
    return deny("hostPath volumes",
                kg_arena_sprintf(a, "%s %s", ps_plural("volume", "volumes", bad.n), ps_join_quote(a, &bad)));
}

/* hostPorts (v1.0): ports[*].hostPort must be unset or 0. */
ps_result ps_check_host_ports(kg_arena *a, const ps_pod *p)
{
    ps_strs bad = {0}, ports = {0};
    for (size_t i = 0; i < p->ncontainers; i++) {
        const kg_json *ps = ps_arr(p->containers[i].c, "ports");
        bool found = false;
        for (size_t j = 0; ps && j < ps->len; j++) {
            int64_t hp;
            if (ps_int(kg_json_at(ps, j), "hostPort", &hp) && hp != 0) {
                found = true;
                ps_strs_add(a, &ports, kg_arena_sprintf(a, "%lld", (long long)hp));
            }
        }
        if (found)
            ps_strs_add(a, &bad, p->containers[i].name);
    }
    if (!bad.n)
        return PS_ALLOWED;
    ps_strs_sort_unique(&ports);
    return deny("hostPort",
                kg_arena_sprintf(a, "%s %s %s %s", ps_containers_phrase(a, &bad), ps_plural("uses", "use", bad.n),
                                 ps_plural("hostPort", "hostPorts", ports.n), ps_join(a, &ports, ", ")));
}

/* appArmorProfile (v1.0): appArmorProfile.type RuntimeDefault or Localhost; the beta annotations
 * container.apparmor.security.beta.kubernetes.io/<name>: "", runtime/default or localhost/<x>. */
static bool apparmor_type_ok(const kg_json *prof)
{
    const char *t = ps_str(prof, "type");
    return t && (strcmp(t, "RuntimeDefault") == 0 || strcmp(t, "Localhost") == 0);
}

#define APPARMOR_PREFIX "container.apparmor.security.beta.kubernetes.io/"

ps_result ps_check_apparmor(kg_arena *a, const ps_pod *p)
{
    ps_strs who = {0}, values = {0}, bad = {0}, anns = {0};
    const kg_json *prof = ps_obj(p->sc, "appArmorProfile");
    if (prof && !apparmor_type_ok(prof)) {
        ps_strs_add(a, &who, "pod");
        ps_strs_add(a, &values, ps_str(prof, "type"));
    }
    for (size_t i = 0; i < p->ncontainers; i++) {
        prof = ps_obj(p->containers[i].sc, "appArmorProfile");
        if (prof && !apparmor_type_ok(prof)) {
            ps_strs_add(a, &bad, p->containers[i].name);
            ps_strs_add(a, &values, ps_str(prof, "type"));
        }
    }
    if (bad.n)
        ps_strs_add(a, &who, ps_containers_phrase(a, &bad));
    for (size_t i = 0; p->annotations && i < p->annotations->len; i++) {
        const kg_json_member *m = &p->annotations->u.members[i];
        if (strncmp(m->key, APPARMOR_PREFIX, strlen(APPARMOR_PREFIX)) != 0)
            continue;
        const char *v = kg_json_is(m->val, KG_JSON_STRING) ? m->val->u.s : "";
        if (!v[0] || strcmp(v, "runtime/default") == 0 || strncmp(v, "localhost/", 10) == 0)
            continue;
        ps_strs_add(a, &anns, kg_arena_sprintf(a, "%s=%s", m->key, kg_meta_quote_a(a, v)));
    }
    ps_strs_sort_unique(&values);
    if (anns.n) {
        ps_strs_sort_unique(&anns);
        for (size_t i = 0; i < anns.n; i++)
            ps_strs_add(a, &values, anns.v[i]);
        ps_strs_add(a, &who, ps_plural("annotation", "annotations", anns.n));
    }
    if (!who.n)
        return PS_ALLOWED;
    return deny(ps_plural("forbidden AppArmor profile", "forbidden AppArmor profiles", values.n),
                kg_arena_sprintf(a, "%s must not set AppArmor profile type to %s", setters(a, &who),
                                 ps_join_quote(a, &values)));
}

/* capabilities_baseline (v1.0): capabilities.add only from the default set. */
static const char *const k_default_caps[] = {"AUDIT_WRITE", "CHOWN",  "DAC_OVERRIDE",     "FOWNER",  "FSETID",
                                             "KILL",        "MKNOD",  "NET_BIND_SERVICE", "SETFCAP", "SETGID",
                                             "SETPCAP",     "SETUID", "SYS_CHROOT"};

ps_result ps_check_capabilities_baseline(kg_arena *a, const ps_pod *p)
{
    ps_strs bad = {0}, caps = {0};
    for (size_t i = 0; i < p->ncontainers; i++) {
        const kg_json *add = ps_arr(ps_obj(p->containers[i].sc, "capabilities"), "add");
        bool found = false;
        for (size_t j = 0; add && j < add->len; j++) {
            const kg_json *c = kg_json_at(add, j);
            const char *cap = kg_json_is(c, KG_JSON_STRING) ? c->u.s : "";
            bool ok = false;
            for (size_t k = 0; k < sizeof k_default_caps / sizeof k_default_caps[0] && !ok; k++)
                ok = strcmp(cap, k_default_caps[k]) == 0;
            if (!ok) {
                found = true;
                ps_strs_add(a, &caps, cap);
            }
        }
        if (found)
            ps_strs_add(a, &bad, p->containers[i].name);
    }
    if (!bad.n)
        return PS_ALLOWED;
    ps_strs_sort_unique(&caps);
    return deny("non-default capabilities",
                kg_arena_sprintf(a, "%s must not include %s in securityContext.capabilities.add",
                                 ps_containers_phrase(a, &bad), ps_join_quote(a, &caps)));
}

/* procMount (v1.0): securityContext.procMount unset or Default. (The v1.35 user-namespace relaxation is newer than
 * this registry.) */
ps_result ps_check_proc_mount(kg_arena *a, const ps_pod *p)
{
    ps_strs bad = {0}, types = {0};
    for (size_t i = 0; i < p->ncontainers; i++) {
        const kg_json *sc = p->containers[i].sc;
        const kg_json *pm = sc ? kg_json_get(sc, "procMount") : NULL;
        if (!pm || kg_json_is(pm, KG_JSON_NULL))
            continue;
        const char *v = kg_json_is(pm, KG_JSON_STRING) ? pm->u.s : "";
        if (strcmp(v, "Default") != 0) {
            ps_strs_add(a, &bad, p->containers[i].name);
            ps_strs_add(a, &types, v);
        }
    }
    if (!bad.n)
        return PS_ALLOWED;
    ps_strs_sort_unique(&types);
    return deny("procMount", kg_arena_sprintf(a, "%s must not set securityContext.procMount to %s",
                                              ps_containers_phrase(a, &bad), ps_join_quote(a, &types)));
}

/* seLinuxOptions (v1.0; v1.31 adds container_engine_t): type from the allow-list, user and role empty. */
typedef struct selinux_acc {
    ps_strs types;
    bool user, role;
} selinux_acc;

static bool selinux_ok(kg_arena *a, const kg_json *o, bool v131, selinux_acc *acc)
{
    bool ok = true;
    const char *t = ps_str(o, "type"), *u = ps_str(o, "user"), *r = ps_str(o, "role");
    t = t ? t : "";
    if (t[0] && strcmp(t, "container_t") != 0 && strcmp(t, "container_init_t") != 0 &&
        strcmp(t, "container_kvm_t") != 0 && !(v131 && strcmp(t, "container_engine_t") == 0)) {
        ok = false;
        ps_strs_add(a, &acc->types, t);
    }
    if (u && u[0]) {
        ok = false;
        acc->user = true;
    }
    if (r && r[0]) {
        ok = false;
        acc->role = true;
    }
    return ok;
}

static ps_result selinux(kg_arena *a, const ps_pod *p, bool v131)
{
    selinux_acc acc = {0};
    ps_strs who = {0}, bad = {0};
    const kg_json *o = ps_obj(p->sc, "seLinuxOptions");
    if (o && !selinux_ok(a, o, v131, &acc))
        ps_strs_add(a, &who, "pod");
    for (size_t i = 0; i < p->ncontainers; i++) {
        o = ps_obj(p->containers[i].sc, "seLinuxOptions");
        if (o && !selinux_ok(a, o, v131, &acc))
            ps_strs_add(a, &bad, p->containers[i].name);
    }
    if (bad.n)
        ps_strs_add(a, &who, ps_containers_phrase(a, &bad));
    if (!who.n)
        return PS_ALLOWED;
    ps_strs data = {0};
    ps_strs_sort_unique(&acc.types);
    if (acc.types.n)
        ps_strs_add(
            a, &data,
            kg_arena_sprintf(a, "%s %s", ps_plural("type", "types", acc.types.n), ps_join_quote(a, &acc.types)));
    if (acc.user)
        ps_strs_add(a, &data, "user may not be set");
    if (acc.role)
        ps_strs_add(a, &data, "role may not be set");
    return deny("seLinuxOptions", kg_arena_sprintf(a, "%s set forbidden securityContext.seLinuxOptions: %s",
                                                   setters(a, &who), ps_join(a, &data, "; ")));
}

ps_result ps_check_selinux_1_0(kg_arena *a, const ps_pod *p)
{
    return selinux(a, p, false);
}

ps_result ps_check_selinux_1_31(kg_arena *a, const ps_pod *p)
{
    return selinux(a, p, true);
}

/* seccompProfile_baseline v1.0: the alpha annotations must be runtime/default, docker/default or localhost/<x>. */
#define SECCOMP_POD_ANN "seccomp.security.alpha.kubernetes.io/pod"
#define SECCOMP_CONTAINER_ANN "container.seccomp.security.alpha.kubernetes.io/"

static void seccomp_ann(kg_arena *a, const kg_json *anns, const char *key, ps_strs *bad)
{
    const kg_json *v = anns ? kg_json_getn(anns, key, strlen(key)) : NULL;
    if (!v)
        return;
    const char *s = kg_json_is(v, KG_JSON_STRING) ? v->u.s : "";
    if (strcmp(s, "runtime/default") == 0 || strcmp(s, "docker/default") == 0 || strncmp(s, "localhost/", 10) == 0)
        return;
    ps_strs_add(a, bad, kg_arena_sprintf(a, "%s=%s", key, kg_meta_quote_a(a, s)));
}

ps_result ps_check_seccomp_baseline_1_0(kg_arena *a, const ps_pod *p)
{
    ps_strs bad = {0};
    seccomp_ann(a, p->annotations, SECCOMP_POD_ANN, &bad);
    for (size_t i = 0; p->annotations && i < p->ncontainers; i++)
        seccomp_ann(a, p->annotations, kg_arena_sprintf(a, SECCOMP_CONTAINER_ANN "%s", p->containers[i].name), &bad);
    if (!bad.n)
        return PS_ALLOWED;
    ps_strs_sort_unique(&bad);
    return deny("seccompProfile", kg_arena_sprintf(a, "forbidden %s %s", ps_plural("annotation", "annotations", bad.n),
                                                   ps_join(a, &bad, ", ")));
}

/* seccompProfile_baseline v1.19: seccompProfile.type, when set, RuntimeDefault or Localhost. */
ps_result ps_check_seccomp_baseline_1_19(kg_arena *a, const ps_pod *p)
{
    ps_strs who = {0}, bad = {0}, values = {0};
    const kg_json *prof = ps_obj(p->sc, "seccompProfile");
    if (prof && !ps_seccomp_type_ok(prof)) {
        ps_strs_add(a, &who, "pod");
        ps_strs_add(a, &values, ps_str(prof, "type"));
    }
    for (size_t i = 0; i < p->ncontainers; i++) {
        prof = ps_obj(p->containers[i].sc, "seccompProfile");
        if (prof && !ps_seccomp_type_ok(prof)) {
            ps_strs_add(a, &bad, p->containers[i].name);
            ps_strs_add(a, &values, ps_str(prof, "type"));
        }
    }
    if (bad.n)
        ps_strs_add(a, &who, ps_containers_phrase(a, &bad));
    if (!who.n)
        return PS_ALLOWED;
    ps_strs_sort_unique(&values);
    return deny("seccompProfile", kg_arena_sprintf(a, "%s must not set securityContext.seccompProfile.type to %s",
                                                   setters(a, &who), ps_join_quote(a, &values)));
}

/* sysctls: spec.securityContext.sysctls[*].name from the allow-list of the version (cumulative). */
static const char *const k_sysctls[] = {
    /* v1.0 */
    "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range",
    "net.ipv4.ip_unprivileged_port_start",
    /* v1.27 */
    "net.ipv4.ip_local_reserved_ports",
    /* v1.29 */
    "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
    /* v1.32 */
    "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"};

static ps_result sysctls(kg_arena *a, const ps_pod *p, size_t nallowed)
{
    ps_strs bad = {0};
    const kg_json *list = ps_arr(p->sc, "sysctls");
    for (size_t i = 0; list && i < list->len; i++) {
        const char *n = ps_str(kg_json_at(list, i), "name");
        n = n ? n : "";
        bool ok = false;
        for (size_t k = 0; k < nallowed && !ok; k++)
            ok = strcmp(n, k_sysctls[k]) == 0;
        if (!ok)
            ps_strs_add(a, &bad, n);
    }
    if (!bad.n)
        return PS_ALLOWED;
    return deny("forbidden sysctls", ps_join(a, &bad, ", "));
}

ps_result ps_check_sysctls_1_0(kg_arena *a, const ps_pod *p)
{
    return sysctls(a, p, 5);
}

ps_result ps_check_sysctls_1_27(kg_arena *a, const ps_pod *p)
{
    return sysctls(a, p, 6);
}

ps_result ps_check_sysctls_1_29(kg_arena *a, const ps_pod *p)
{
    return sysctls(a, p, 10);
}

ps_result ps_check_sysctls_1_32(kg_arena *a, const ps_pod *p)
{
    return sysctls(a, p, 12);
}

/* windowsHostProcess (v1.0): windowsOptions.hostProcess must not be true. */
ps_result ps_check_windows_host_process(kg_arena *a, const ps_pod *p)
{
    ps_strs who = {0}, bad = {0};
    if (is_true(ps_obj(p->sc, "windowsOptions"), "hostProcess"))
        ps_strs_add(a, &who, "pod");
    for (size_t i = 0; i < p->ncontainers; i++)
        if (is_true(ps_obj(p->containers[i].sc, "windowsOptions"), "hostProcess"))
            ps_strs_add(a, &bad, p->containers[i].name);
    if (bad.n)
        ps_strs_add(a, &who, ps_containers_phrase(a, &bad));
    if (!who.n)
        return PS_ALLOWED;
    return deny("hostProcess", kg_arena_sprintf(a, "%s must not set securityContext.windowsOptions.hostProcess=true",
                                                setters(a, &who)));
}
