/* PodSecurity check catalogue, table-driven like the upstream fixtures (pod-security-admission test/testdata):
 * each row mutates the minimal valid pod of a level/version and must pass or fail at every version of its range
 * (the ranges end or start at the version boundaries where a check's behaviour changes). A failing pod's message
 * must contain the check's expected substring and never "unknown forbidden reason". Versions newer than v1.33 and
 * `latest` must behave as v1.33. A second table pins exact detail texts. */
#include "podsecurity_testutil.h"

enum { B = 1, R = 2, BR = 3 };
#define MAX PS_MAX_MINOR

typedef struct fixture {
    const char *check; /* check ID: selects the expected substring */
    unsigned levels;   /* B and/or R */
    int from, to;      /* inclusive minor versions */
    bool pass;
    const char *patch; /* merged into the minimal valid pod (single-quoted JSON) */
} fixture;

#define C0(sc) "{'spec':{'containers':[{'securityContext':" sc "}]}}"
#define I0(sc) "{'spec':{'initContainers':[{'securityContext':" sc "}]}}"
#define PSC(sc) "{'spec':{'securityContext':" sc "}}"
#define VOL(v) "{'spec':{'volumes':[{'name':'volume1'," v "}]}}"
#define WIN(x) "{'spec':{'os':{'name':'windows'}," x "}}"

static const fixture k_fixtures[] = {
    /* the minimal pods themselves */
    {"base", BR, 0, MAX, true, "{}"},
    {"base", R, 29, MAX, true, "{'spec':{'os':{'name':'linux'}}}"},

    /* privileged */
    {"privileged", BR, 0, MAX, true, C0("{'privileged':false}")},
    {"privileged", BR, 0, MAX, false, C0("{'privileged':true}")},
    {"privileged", BR, 0, MAX, false, I0("{'privileged':true}")},

    /* hostNamespaces */
    {"hostNamespaces", BR, 0, MAX, true, "{'spec':{'hostNetwork':false,'hostPID':false,'hostIPC':false}}"},
    {"hostNamespaces", BR, 0, MAX, false, "{'spec':{'hostNetwork':true}}"},
    {"hostNamespaces", BR, 0, MAX, false, "{'spec':{'hostPID':true}}"},
    {"hostNamespaces", BR, 0, MAX, false, "{'spec':{'hostIPC':true}}"},

    /* hostPathVolumes (restricted: rejected by restrictedVolumes, the substring still matches) */
    {"hostPathVolumes", BR, 0, MAX, false, VOL("'hostPath':{'path':'/a'}")},
    {"hostPathVolumes", BR, 0, MAX, false,
     "{'spec':{'volumes':[{'name':'a','emptyDir':{}},{'name':'b','hostPath':{'path':'/b'}}]}}"},
    {"hostPathVolumes", B, 0, MAX, true, VOL("'nfs':{'server':'s','path':'/p'}")},

    /* hostPorts */
    {"hostPorts", BR, 0, MAX, true, "{'spec':{'containers':[{'ports':[{'containerPort':80},{'hostPort':0}]}]}}"},
    {"hostPorts", BR, 0, MAX, false, "{'spec':{'containers':[{'ports':[{'containerPort':80,'hostPort':8080}]}]}}"},
    {"hostPorts", BR, 0, MAX, false, "{'spec':{'initContainers':[{'ports':[{'hostPort':1}]}]}}"},

    /* appArmorProfile */
    {"appArmorProfile", BR, 0, MAX, true,
     "{'metadata':{'annotations':{'container.apparmor.security.beta.kubernetes.io/container1':'runtime/default',"
     "'container.apparmor.security.beta.kubernetes.io/initcontainer1':'localhost/foo',"
     "'container.apparmor.security.beta.kubernetes.io/other':''}},"
     "'spec':{'securityContext':{'appArmorProfile':{'type':'RuntimeDefault'}},"
     "'containers':[{'securityContext':{'appArmorProfile':{'type':'Localhost','localhostProfile':'p'}}}]}}"},
    {"appArmorProfile", BR, 0, MAX, false, PSC("{'appArmorProfile':{'type':'Unconfined'}}")},
    {"appArmorProfile", BR, 0, MAX, false, C0("{'appArmorProfile':{}}")},
    {"appArmorProfile", BR, 0, MAX, false,
     "{'metadata':{'annotations':{'container.apparmor.security.beta.kubernetes.io/container1':'unconfined'}}}"},

    /* capabilities_baseline (replaced by capabilities_restricted from restricted v1.22) */
    {"capabilities_baseline", B, 0, MAX, true,
     C0("{'capabilities':{'add':['AUDIT_WRITE','CHOWN','DAC_OVERRIDE','FOWNER','FSETID','KILL','MKNOD',"
        "'NET_BIND_SERVICE','SETFCAP','SETGID','SETPCAP','SETUID','SYS_CHROOT']}}")},
    {"capabilities_baseline", R, 0, 21, true, C0("{'capabilities':{'add':['CHOWN','KILL']}}")},
    {"capabilities_baseline", BR, 0, MAX, false, C0("{'capabilities':{'add':['NET_RAW']}}")},
    {"capabilities_baseline", BR, 0, MAX, false, C0("{'capabilities':{'add':['chown']}}")},
    {"capabilities_baseline", BR, 0, MAX, false, C0("{'capabilities':{'add':['CAP_CHOWN']}}")},
    {"capabilities_baseline", BR, 0, MAX, false, I0("{'capabilities':{'add':['SYS_ADMIN']}}")},

    /* procMount */
    {"procMount", BR, 0, MAX, true, C0("{'procMount':'Default'}")},
    {"procMount", BR, 0, MAX, false, C0("{'procMount':'Unmasked'}")},
    {"procMount", BR, 0, MAX, false, I0("{'procMount':'other'}")},

    /* seLinuxOptions: container_engine_t from v1.31 */
    {"seLinuxOptions", BR, 0, MAX, true,
     "{'spec':{'securityContext':{'seLinuxOptions':{'type':'container_t','level':'s0:c1,c2'}},"
     "'initContainers':[{'securityContext':{'seLinuxOptions':{'type':'container_init_t'}}}],"
     "'containers':[{'securityContext':{'seLinuxOptions':{'type':'container_kvm_t'}}}]}}"},
    {"seLinuxOptions", BR, 31, MAX, true, C0("{'seLinuxOptions':{'type':'container_engine_t'}}")},
    {"seLinuxOptions", BR, 0, 30, false, C0("{'seLinuxOptions':{'type':'container_engine_t'}}")},
    {"seLinuxOptions", BR, 0, MAX, false, PSC("{'seLinuxOptions':{'type':'foo'}}")},
    {"seLinuxOptions", BR, 0, MAX, false, C0("{'seLinuxOptions':{'user':'u'}}")},
    {"seLinuxOptions", BR, 0, MAX, false, I0("{'seLinuxOptions':{'role':'r'}}")},

    /* seccompProfile_baseline: annotations until v1.18, fields from v1.19 */
    {"seccompProfile_baseline", BR, 0, 18, true,
     "{'metadata':{'annotations':{'seccomp.security.alpha.kubernetes.io/pod':'runtime/default',"
     "'container.seccomp.security.alpha.kubernetes.io/container1':'docker/default',"
     "'container.seccomp.security.alpha.kubernetes.io/initcontainer1':'localhost/p'}}}"},
    {"seccompProfile_baseline", BR, 0, 18, false,
     "{'metadata':{'annotations':{'seccomp.security.alpha.kubernetes.io/pod':'unconfined'}}}"},
    {"seccompProfile_baseline", BR, 0, 18, false,
     "{'metadata':{'annotations':{'container.seccomp.security.alpha.kubernetes.io/initcontainer1':''}}}"},
    {"seccompProfile_baseline", BR, 19, MAX, true,
     "{'metadata':{'annotations':{'seccomp.security.alpha.kubernetes.io/pod':'unconfined'}}}"},
    {"seccompProfile_baseline", B, 0, 18, true, PSC("{'seccompProfile':{'type':'Unconfined'}}")},
    {"seccompProfile_baseline", BR, 19, MAX, true,
     "{'spec':{'securityContext':{'seccompProfile':{'type':'Localhost','localhostProfile':'p'}},"
     "'containers':[{'securityContext':{'seccompProfile':{'type':'RuntimeDefault'}}}]}}"},
    {"seccompProfile_baseline", BR, 19, MAX, false, PSC("{'seccompProfile':{'type':'Unconfined'}}")},
    {"seccompProfile_baseline", BR, 19, MAX, false, C0("{'seccompProfile':{'type':'Unconfined'}}")},
    {"seccompProfile_baseline", BR, 19, MAX, false, I0("{'seccompProfile':{'type':''}}")},

    /* sysctls: the allow-list grows at v1.27, v1.29 and v1.32 */
    {"sysctls", BR, 0, MAX, true,
     PSC("{'sysctls':[{'name':'kernel.shm_rmid_forced','value':'0'},{'name':'net.ipv4.ip_local_port_range','value':"
         "'1024 65535'},{'name':'net.ipv4.tcp_syncookies','value':'0'},{'name':'net.ipv4.ping_group_range','value':"
         "'1 0'},{'name':'net.ipv4.ip_unprivileged_port_start','value':'1024'}]}")},
    {"sysctls", BR, 0, MAX, false, PSC("{'sysctls':[{'name':'kernel.msgmax','value':'1'}]}")},
    {"sysctls", BR, 0, 26, false, PSC("{'sysctls':[{'name':'net.ipv4.ip_local_reserved_ports','value':'1'}]}")},
    {"sysctls", BR, 27, MAX, true, PSC("{'sysctls':[{'name':'net.ipv4.ip_local_reserved_ports','value':'1'}]}")},
    {"sysctls", BR, 0, 28, false,
     PSC("{'sysctls':[{'name':'net.ipv4.tcp_keepalive_time','value':'1'},{'name':'net.ipv4.tcp_fin_timeout',"
         "'value':'1'},{'name':'net.ipv4.tcp_keepalive_intvl','value':'1'},{'name':'net.ipv4.tcp_keepalive_probes',"
         "'value':'1'}]}")},
    {"sysctls", BR, 29, MAX, true,
     PSC("{'sysctls':[{'name':'net.ipv4.tcp_keepalive_time','value':'1'},{'name':'net.ipv4.tcp_fin_timeout',"
         "'value':'1'},{'name':'net.ipv4.tcp_keepalive_intvl','value':'1'},{'name':'net.ipv4.tcp_keepalive_probes',"
         "'value':'1'}]}")},
    {"sysctls", BR, 0, 31, false, PSC("{'sysctls':[{'name':'net.ipv4.tcp_rmem','value':'1'}]}")},
    {"sysctls", BR, 32, MAX, true,
     PSC("{'sysctls':[{'name':'net.ipv4.tcp_rmem','value':'1'},{'name':'net.ipv4.tcp_wmem','value':'1'}]}")},
    /* a v1.37 addition: not part of a v1.33 registry, so forbidden even at latest */
    {"sysctls", BR, 0, MAX, false, PSC("{'sysctls':[{'name':'net.ipv4.tcp_slow_start_after_idle','value':'0'}]}")},

    /* windowsHostProcess */
    {"windowsHostProcess", BR, 0, MAX, true, C0("{'windowsOptions':{'hostProcess':false}}")},
    {"windowsHostProcess", BR, 0, MAX, false, PSC("{'windowsOptions':{'hostProcess':true}}")},
    {"windowsHostProcess", BR, 0, MAX, false, C0("{'windowsOptions':{'hostProcess':true}}")},

    /* allowPrivilegeEscalation: restricted from v1.8; Windows pods exempt from v1.25 */
    {"allowPrivilegeEscalation", R, 0, 7, true, C0("{'allowPrivilegeEscalation':true}")},
    {"allowPrivilegeEscalation", R, 8, MAX, false, C0("{'allowPrivilegeEscalation':true}")},
    {"allowPrivilegeEscalation", R, 8, MAX, false, I0("{'allowPrivilegeEscalation':null}")},
    {"allowPrivilegeEscalation", R, 8, 21, false, "{'spec':{'containers':[{'securityContext':null}]}}"},
    {"allowPrivilegeEscalation", B, 0, MAX, true, C0("{'allowPrivilegeEscalation':true}")},
    {"allowPrivilegeEscalation", R, 8, 24, false,
     WIN("'containers':[{'securityContext':{'allowPrivilegeEscalation':true}}]")},
    {"allowPrivilegeEscalation", R, 25, MAX, true,
     WIN("'containers':[{'securityContext':{'allowPrivilegeEscalation':true}}]")},

    /* capabilities_restricted: from v1.22; Windows pods exempt from v1.25 */
    {"capabilities_restricted", R, 22, MAX, true, C0("{'capabilities':{'add':['NET_BIND_SERVICE']}}")},
    {"capabilities_restricted", R, 22, MAX, false, C0("{'capabilities':null}")},
    {"capabilities_restricted", R, 22, MAX, false, C0("{'capabilities':{'drop':['NET_RAW']}}")},
    {"capabilities_restricted", R, 22, MAX, false, C0("{'capabilities':{'drop':['all']}}")},
    {"capabilities_restricted", R, 22, MAX, false, I0("{'capabilities':{'add':['CHOWN']}}")},
    {"capabilities_restricted", R, 0, 21, true, C0("{'capabilities':{'add':['CHOWN']}}")},
    {"capabilities_restricted", R, 22, 24, false, WIN("'containers':[{'securityContext':{'capabilities':null}}]")},
    {"capabilities_restricted", R, 25, MAX, true, WIN("'containers':[{'securityContext':{'capabilities':null}}]")},

    /* restrictedVolumes */
    {"restrictedVolumes", R, 0, MAX, true,
     "{'spec':{'volumes':[{'name':'a','configMap':{'name':'c'}},{'name':'b','csi':{'driver':'d'}},"
     "{'name':'c','downwardAPI':{}},{'name':'d','emptyDir':{}},{'name':'e','ephemeral':{}},"
     "{'name':'f','image':{'reference':'x'}},{'name':'g','persistentVolumeClaim':{'claimName':'c'}},"
     "{'name':'h','projected':{}},{'name':'i','secret':{'secretName':'s'}}]}}"},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'gcePersistentDisk':{'pdName':'x'}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'awsElasticBlockStore':{'volumeID':'x'}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'gitRepo':{'repository':'x'}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'nfs':{'server':'s','path':'/p'}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'iscsi':{}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'glusterfs':{}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'rbd':{}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'flexVolume':{'driver':'d'}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'cinder':{}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'cephfs':{}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'flocker':{}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'fc':{}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'azureFile':{}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'vsphereVolume':{}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'quobyte':{}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'azureDisk':{}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'photonPersistentDisk':{}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'portworxVolume':{}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'scaleIO':{}")},
    {"restrictedVolumes", R, 0, MAX, false, VOL("'storageos':{}")},
    {"restrictedVolumes", R, 0, MAX, false, "{'spec':{'volumes':[{'name':'nosource'}]}}"},

    /* runAsNonRoot */
    {"runAsNonRoot", R, 0, MAX, true,
     "{'spec':{'securityContext':{'runAsNonRoot':null},"
     "'initContainers':[{'securityContext':{'runAsNonRoot':true}}],'containers':[{'securityContext':{'runAsNonRoot':"
     "true}}]}}"},
    {"runAsNonRoot", R, 0, MAX, false, PSC("{'runAsNonRoot':false}")},
    {"runAsNonRoot", R, 0, MAX, false, C0("{'runAsNonRoot':false}")},
    {"runAsNonRoot", R, 0, MAX, false, PSC("{'runAsNonRoot':null}")},
    {"runAsNonRoot", R, 25, MAX, false, WIN("'securityContext':{'runAsNonRoot':false}")},
    {"runAsNonRoot", B, 0, MAX, true, PSC("{'runAsNonRoot':false}")},

    /* runAsUser: from v1.23 */
    {"runAsUser", R, 0, MAX, true,
     "{'spec':{'securityContext':{'runAsUser':1000},'containers':[{'securityContext':"
     "{'runAsUser':1}}]}}"},
    {"runAsUser", R, 0, 22, true, PSC("{'runAsUser':0}")},
    {"runAsUser", R, 23, MAX, false, PSC("{'runAsUser':0}")},
    {"runAsUser", R, 23, MAX, false, C0("{'runAsUser':0}")},
    {"runAsUser", R, 23, MAX, false, I0("{'runAsUser':0}")},
    {"runAsUser", B, 0, MAX, true, PSC("{'runAsUser':0}")},

    /* seccompProfile_restricted: from v1.19; Windows pods exempt from v1.25 */
    {"seccompProfile_restricted", R, 19, MAX, true,
     "{'spec':{'securityContext':{'seccompProfile':null},"
     "'initContainers':[{'securityContext':{'seccompProfile':{'type':'RuntimeDefault'}}}],"
     "'containers':[{'securityContext':{'seccompProfile':{'type':'Localhost','localhostProfile':'p'}}}]}}"},
    {"seccompProfile_restricted", R, 19, MAX, false, PSC("{'seccompProfile':null}")},
    {"seccompProfile_restricted", R, 19, MAX, false, PSC("{'seccompProfile':{'type':'Unconfined'}}")},
    {"seccompProfile_restricted", R, 19, MAX, false, C0("{'seccompProfile':{'type':'Unconfined'}}")},
    {"seccompProfile_restricted", R, 19, MAX, false, PSC("{'seccompProfile':{'type':null}}")},
    {"seccompProfile_restricted", R, 0, 18, true, PSC("{'seccompProfile':{'type':'Unconfined'}}")},
    {"seccompProfile_restricted", R, 19, 24, false, WIN("'securityContext':{'seccompProfile':null}")},
    {"seccompProfile_restricted", R, 25, MAX, true, WIN("'securityContext':{'seccompProfile':null}")},
};

/* expectErrorSubstring per check (test/fixtures*.go) */
static const char *substring(const char *check)
{
    static const char *const map[][2] = {
        {"appArmorProfile", "forbidden AppArmor profile"},
        {"capabilities_baseline", "capabilities"},
        {"capabilities_restricted", "unrestricted capabilities"},
        {"hostNamespaces", "host namespaces"},
        {"hostPathVolumes", "hostPath"},
        {"hostPorts", "hostPort"},
        {"procMount", "procMount"},
        {"restrictedVolumes", "restricted volume types"},
        {"seLinuxOptions", "seLinuxOptions"},
        {"seccompProfile_baseline", "seccompProfile"},
        {"seccompProfile_restricted", "seccompProfile"},
        {"sysctls", "forbidden sysctl"},
        {"windowsHostProcess", "hostProcess"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i][0], check) == 0)
            return map[i][1];
    return check;
}

static ps_evaluator g_ev;
static size_t g_evaluations;

static int setup(void **state)
{
    size_t n;
    const ps_check *checks = ps_default_checks(&n);
    kg_error e = {0};
    if (!ps_evaluator_init(&g_ev, checks, n, &e))
        fail_msg("evaluator: %s", e.msg);
    return 0;
}

/* Evaluate one fixture at lv; returns the ForbiddenDetail ("" when allowed). */
static const char *eval(kg_arena *a, const fixture *f, ps_level level, int minor, ps_version v)
{
    kg_json *pod = ps_merge(a, ps_minimal_pod(a, level, minor), sq(a, f->patch));
    ps_pod view;
    ps_pod_view(a, kg_json_get(pod, "metadata"), kg_json_get(pod, "spec"), &view);
    ps_agg r;
    ps_evaluate(&g_ev, a, (ps_lv){level, v}, &view, &r);
    g_evaluations++;
    return r.allowed ? "" : ps_forbidden_detail(a, &r);
}

static void fixtures_at_every_version(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    size_t cases = 0;
    for (size_t i = 0; i < sizeof k_fixtures / sizeof k_fixtures[0]; i++) {
        const fixture *f = &k_fixtures[i];
        for (int l = 0; l < 2; l++) {
            if (!(f->levels & (l == 0 ? B : R)))
                continue;
            ps_level level = l == 0 ? PS_BASELINE : PS_RESTRICTED;
            for (int m = f->from; m <= f->to; m++) {
                const char *d = eval(&a, f, level, m, (ps_version){false, m});
                cases++;
                if (f->pass && d[0])
                    fail_msg("fixture %zu (%s, %s:v1.%d) should pass: %s\n%s", i, f->check, ps_level_name(level), m, d,
                             f->patch);
                if (!f->pass && (!d[0] || !strstr(d, substring(f->check)) || strstr(d, "unknown forbidden reason")))
                    fail_msg("fixture %zu (%s, %s:v1.%d) should fail with %s: got \"%s\"\n%s", i, f->check,
                             ps_level_name(level), m, substring(f->check), d, f->patch);
                /* newer versions and latest behave as the newest known one */
                if (m == MAX) {
                    const char *later[] = {eval(&a, f, level, m, (ps_version){true, 0}),
                                           eval(&a, f, level, m, (ps_version){false, MAX + 1}),
                                           eval(&a, f, level, m, (ps_version){false, 10000})};
                    for (int k = 0; k < 3; k++)
                        if (strcmp(later[k], d) != 0)
                            fail_msg("fixture %zu: newer version differs from v1.%d: %s vs %s", i, MAX, later[k], d);
                }
                kg_arena_reset(&a);
            }
        }
    }
    print_message("%zu fixtures, %zu level/version cases, %zu evaluations\n", sizeof k_fixtures / sizeof k_fixtures[0],
                  cases, g_evaluations);
    kg_arena_free(&a);
}

/* privileged passes everything */
static void privileged_allows_all(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    for (size_t i = 0; i < sizeof k_fixtures / sizeof k_fixtures[0]; i++) {
        kg_json *pod = ps_merge(&a, ps_minimal_pod(&a, PS_BASELINE, 0), sq(&a, k_fixtures[i].patch));
        ps_pod view;
        ps_pod_view(&a, kg_json_get(pod, "metadata"), kg_json_get(pod, "spec"), &view);
        ps_agg r;
        ps_evaluate(&g_ev, &a, (ps_lv){PS_PRIVILEGED, {true, 0}}, &view, &r);
        assert_true(r.allowed);
    }
    kg_arena_free(&a);
}

/* ---- exact detail texts ---- */

typedef struct exact {
    ps_level level;
    int minor;        /* -1: latest */
    const char *pod;  /* a full pod (single-quoted JSON) */
    const char *want; /* ForbiddenDetail */
} exact;

#define POD(spec) "{'metadata':{'name':'p'},'spec':" spec "}"

static const exact k_exact[] = {
    {PS_RESTRICTED, -1,
     POD("{'hostNetwork':true,'containers':[{'name':'c','image':'x','securityContext':{'privileged':true}}]}"),
     "host namespaces (hostNetwork=true), privileged (container \"c\" must not set securityContext.privileged=true), "
     "allowPrivilegeEscalation != false (container \"c\" must set securityContext.allowPrivilegeEscalation=false), "
     "unrestricted capabilities (container \"c\" must set securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot "
     "!= true (pod or container \"c\" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "
     "\"c\" must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")"},
    {PS_BASELINE, -1,
     POD("{'hostNetwork':true,'hostPID':true,'hostIPC':true,'containers':[{'name':'a','securityContext':{"
         "'privileged':true}},{'name':'b','securityContext':{'privileged':true}}]}"),
     "host namespaces (hostNetwork=true, hostPID=true, hostIPC=true), privileged (containers \"a\", \"b\" must not "
     "set securityContext.privileged=true)"},
    {PS_BASELINE, -1,
     POD("{'containers':[{'name':'a'},{'name':'b','ports':[{'hostPort':20}]},{'name':'c','ports':[{'hostPort':10},"
         "{'hostPort':30},{'hostPort':20}]}]}"),
     "hostPort (containers \"b\", \"c\" use hostPorts 10, 20, 30)"},
    {PS_BASELINE, -1, POD("{'containers':[{'name':'b','ports':[{'hostPort':20}]}]}"),
     "hostPort (container \"b\" uses hostPort 20)"},
    {PS_BASELINE, -1, POD("{'containers':[{'name':'b','ports':[{'hostPort':9},{'hostPort':8080},{'hostPort':10}]}]}"),
     "hostPort (container \"b\" uses hostPorts 10, 8080, 9)"},
    {PS_BASELINE, -1, POD("{'volumes':[{'name':'a','hostPath':{}},{'name':'b','hostPath':{}}]}"),
     "hostPath volumes (volumes \"a\", \"b\")"},
    {PS_BASELINE, -1, POD("{'securityContext':{'appArmorProfile':{'type':'Unconfined'}}}"),
     "forbidden AppArmor profile (pod must not set AppArmor profile type to \"Unconfined\")"},
    {PS_BASELINE, -1,
     "{'metadata':{'name':'p','annotations':{'container.apparmor.security.beta.kubernetes.io/f':'unknown',"
     "'container.apparmor.security.beta.kubernetes.io/e':'unconfined'}},'spec':{}}",
     "forbidden AppArmor profiles (annotations must not set AppArmor profile type to "
     "\"container.apparmor.security.beta.kubernetes.io/e=\"unconfined\"\", "
     "\"container.apparmor.security.beta.kubernetes.io/f=\"unknown\"\")"},
    {PS_BASELINE, -1,
     "{'metadata':{'name':'p','annotations':{'container.apparmor.security.beta.kubernetes.io/x':'unconfined'}},"
     "'spec':{'securityContext':{'appArmorProfile':{'type':'Unconfined'}},'containers':[{'name':'a',"
     "'securityContext':{'appArmorProfile':{'type':''}}}]}}",
     "forbidden AppArmor profiles (pod and container \"a\" and annotation must not set AppArmor profile type to \"\", "
     "\"Unconfined\", \"container.apparmor.security.beta.kubernetes.io/x=\"unconfined\"\")"},
    {PS_BASELINE, -1,
     POD("{'containers':[{'name':'a','securityContext':{'capabilities':{'add':['SYS_TIME','NET_RAW','CHOWN']}}},"
         "{'name':'b','securityContext':{'capabilities':{'add':['NET_RAW']}}}]}"),
     "non-default capabilities (containers \"a\", \"b\" must not include \"NET_RAW\", \"SYS_TIME\" in "
     "securityContext.capabilities.add)"},
    {PS_RESTRICTED, -1,
     POD("{'securityContext':{'runAsNonRoot':true,'seccompProfile':{'type':'RuntimeDefault'}},'containers':[{'name':"
         "'a','securityContext':{'allowPrivilegeEscalation':false,'capabilities':{'add':['NET_RAW']}}},{'name':'b',"
         "'securityContext':{'allowPrivilegeEscalation':false,'capabilities':{'drop':['ALL'],'add':['CHOWN','NET_"
         "BIND_SERVICE']}}}]}"),
     "unrestricted capabilities (container \"a\" must set securityContext.capabilities.drop=[\"ALL\"]; containers "
     "\"a\", \"b\" must not include \"CHOWN\", \"NET_RAW\" in securityContext.capabilities.add)"},
    {PS_BASELINE, -1,
     POD("{'containers':[{'name':'d','securityContext':{'procMount':'Unmasked'}},{'name':'e','securityContext':{"
         "'procMount':'other'}}]}"),
     "procMount (containers \"d\", \"e\" must not set securityContext.procMount to \"Unmasked\", \"other\")"},
    {PS_BASELINE, -1,
     POD("{'securityContext':{'seLinuxOptions':{'type':'foo'}},'containers':[{'name':'e','securityContext':{"
         "'seLinuxOptions':{'type':'bar'}}},{'name':'f','securityContext':{'seLinuxOptions':{'user':'u'}}},"
         "{'name':'g','securityContext':{'seLinuxOptions':{'role':'r','type':'foo'}}}]}"),
     "seLinuxOptions (pod and containers \"e\", \"f\", \"g\" set forbidden securityContext.seLinuxOptions: types "
     "\"bar\", \"foo\"; user may not be set; role may not be set)"},
    {PS_BASELINE, 30,
     POD("{'containers':[{'name':'a','securityContext':{'seLinuxOptions':{'type':'container_engine_t'}}}]}"),
     "seLinuxOptions (container \"a\" set forbidden securityContext.seLinuxOptions: type \"container_engine_t\")"},
    {PS_BASELINE, 18,
     "{'metadata':{'name':'p','annotations':{'seccomp.security.alpha.kubernetes.io/pod':'unconfined'}},'spec':{}}",
     "seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod=\"unconfined\")"},
    {PS_BASELINE, 18,
     "{'metadata':{'name':'p','annotations':{'seccomp.security.alpha.kubernetes.io/pod':'unconfined',"
     "'container.seccomp.security.alpha.kubernetes.io/a':''}},'spec':{'containers':[{'name':'a'}]}}",
     "seccompProfile (forbidden annotations container.seccomp.security.alpha.kubernetes.io/a=\"\", "
     "seccomp.security.alpha.kubernetes.io/pod=\"unconfined\")"},
    {PS_BASELINE, -1,
     POD("{'securityContext':{'seccompProfile':{'type':'Unconfined'}},'containers':[{'name':'a','securityContext':{"
         "'seccompProfile':{'type':'Foo'}}}]}"),
     "seccompProfile (pod and container \"a\" must not set securityContext.seccompProfile.type to \"Foo\", "
     "\"Unconfined\")"},
    {PS_BASELINE, -1,
     POD("{'securityContext':{'sysctls':[{'name':'a'},{'name':'kernel.shm_rmid_forced'},{'name':'b'},{'name':'a'}]}}"),
     "forbidden sysctls (a, b, a)"},
    {PS_BASELINE, -1,
     POD("{'securityContext':{'windowsOptions':{'hostProcess':true}},'containers':[{'name':'a','securityContext':{"
         "'windowsOptions':{'hostProcess':true}}}]}"),
     "hostProcess (pod and container \"a\" must not set securityContext.windowsOptions.hostProcess=true)"},
    {PS_RESTRICTED, 0,
     POD("{'securityContext':{'runAsNonRoot':false},'containers':[{'name':'c','securityContext':{'runAsNonRoot':"
         "false}},{'name':'d'}]}"),
     "runAsNonRoot != true (pod and container \"c\" must not set securityContext.runAsNonRoot=false)"},
    {PS_RESTRICTED, 0,
     POD("{'containers':[{'name':'c','securityContext':{'runAsNonRoot':true}},{'name':'d'},{'name':'e'}]}"),
     "runAsNonRoot != true (pod or containers \"d\", \"e\" must set securityContext.runAsNonRoot=true)"},
    {PS_RESTRICTED, 23,
     POD("{'securityContext':{'runAsNonRoot':true,'runAsUser':0},'containers':[{'name':'c','securityContext':{"
         "'allowPrivilegeEscalation':false,'capabilities':{'drop':['ALL']},'runAsUser':0}}]}"),
     "runAsUser=0 (pod and container \"c\" must not set runAsUser=0), seccompProfile (pod or container \"c\" must set "
     "securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")"},
    {PS_RESTRICTED, 0,
     POD("{'securityContext':{'runAsNonRoot':true},'volumes':[{'name':'a','hostPath':{}},{'name':'b','nfs':{}},"
         "{'name':'c','emptyDir':{}},{'name':'d','hostPath':{}}]}"),
     "restricted volume types (volumes \"a\", \"b\", \"d\" use restricted volume types \"hostPath\", \"nfs\")"},
    {PS_RESTRICTED, 0, POD("{'securityContext':{'runAsNonRoot':true},'volumes':[{'name':'v'}]}"),
     "restricted volume types (volume \"v\" uses restricted volume type \"unknown\")"},
    {PS_RESTRICTED, 8,
     POD("{'securityContext':{'runAsNonRoot':true},'initContainers':[{'name':'i'}],'containers':[{'name':'c',"
         "'securityContext':{'allowPrivilegeEscalation':true}}],'ephemeralContainers':[{'name':'e'}]}"),
     "allowPrivilegeEscalation != false (containers \"i\", \"c\", \"e\" must set "
     "securityContext.allowPrivilegeEscalation=false)"},
    {PS_RESTRICTED, 19,
     POD("{'securityContext':{'runAsNonRoot':true,'seccompProfile':{'type':'Bad'}},'containers':[{'name':'c',"
         "'securityContext':{'allowPrivilegeEscalation':false}},{'name':'d','securityContext':{'"
         "allowPrivilegeEscalation':false,'seccompProfile':{'type':'Unconfined'}}}]}"),
     "seccompProfile (pod and container \"d\" must not set securityContext.seccompProfile.type to \"Bad\", "
     "\"Unconfined\")"},
};

static void exact_details(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    for (size_t i = 0; i < sizeof k_exact / sizeof k_exact[0]; i++) {
        const exact *x = &k_exact[i];
        kg_json *pod = sq(&a, x->pod);
        ps_pod view;
        ps_pod_view(&a, kg_json_get(pod, "metadata"), kg_json_get(pod, "spec"), &view);
        ps_agg r;
        ps_version v = x->minor < 0 ? (ps_version){true, 0} : (ps_version){false, x->minor};
        ps_evaluate(&g_ev, &a, (ps_lv){x->level, v}, &view, &r);
        assert_false(r.allowed);
        const char *got = ps_forbidden_detail(&a, &r);
        if (strcmp(got, x->want) != 0)
            fail_msg("exact %zu:\n got  %s\n want %s", i, got, x->want);
    }
    print_message("%zu exact detail texts\n", sizeof k_exact / sizeof k_exact[0]);
    kg_arena_free(&a);
}

/* odd shapes: never crash, treat wrong types as unset */
static void odd_shapes(void **state)
{
    static const char *const pods[] = {
        "{}",
        "{'metadata':null,'spec':null}",
        "{'spec':[]}",
        "{'spec':{'containers':null,'initContainers':{},'ephemeralContainers':'x'}}",
        "{'spec':{'containers':[null,1,'x',[],{}],'securityContext':[]}}",
        "{'spec':{'containers':[{'securityContext':null},{'securityContext':{'capabilities':{'add':[1,null],'drop':"
        "'ALL'},'seccompProfile':null,'seLinuxOptions':[],'privileged':'true','runAsUser':'0'}}]}}",
        "{'metadata':{'annotations':{'container.apparmor.security.beta.kubernetes.io/a':5}},'spec':{'volumes':[null,"
        "{},{'name':5}],'securityContext':{'sysctls':[null,{},{'name':3}]},'hostNetwork':'yes'}}",
    };
    kg_arena a;
    kg_arena_init(&a, 0);
    for (size_t i = 0; i < sizeof pods / sizeof pods[0]; i++) {
        kg_json *pod = sq(&a, pods[i]);
        for (int minor = 0; minor <= MAX; minor++) {
            ps_pod view;
            ps_pod_view(&a, kg_json_get(pod, "metadata"), kg_json_get(pod, "spec"), &view);
            ps_agg r;
            ps_evaluate(&g_ev, &a, (ps_lv){PS_RESTRICTED, {false, minor}}, &view, &r);
            if (!r.allowed)
                assert_null(strstr(ps_forbidden_detail(&a, &r), "unknown forbidden reason"));
        }
    }
    kg_arena_free(&a);
}

/* a pod with thousands of containers evaluates */
static void huge_container_lists(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *pod = sq(&a, "{'spec':{'containers':[]}}");
    kg_json *cs = kg_json_path(pod, "spec.containers");
    for (int i = 0; i < 5000; i++)
        kg_json_array_append(&a, cs,
                             sq(&a, kg_arena_sprintf(&a, "{'name':'c%d','securityContext':{'privileged':true}}", i)));
    ps_pod view;
    ps_pod_view(&a, kg_json_get(pod, "metadata"), kg_json_get(pod, "spec"), &view);
    assert_int_equal(view.ncontainers, 5000);
    ps_agg r;
    ps_evaluate(&g_ev, &a, (ps_lv){PS_RESTRICTED, {true, 0}}, &view, &r);
    assert_false(r.allowed);
    assert_non_null(strstr(ps_forbidden_detail(&a, &r), "\"c4999\" must not set securityContext.privileged=true"));
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixtures_at_every_version),
        cmocka_unit_test(privileged_allows_all),
        cmocka_unit_test(exact_details),
        cmocka_unit_test(odd_shapes),
        cmocka_unit_test(huge_container_lists),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
