/* PodSecurity as a plugin: namespace-label policies, the exact denial / warning / audit texts for pods, the
 * fail-closed bad label, exemptions, ignored subresources, the pod update rules, pod controllers (warn and audit
 * only), namespace label validation and the existing-pod scan, and PodSecurityConfiguration. */
#include "plugin_testutil.h"
#include "podsecurity_testutil.h"

#define P kg_admission_plugin_pod_security
#define L(k) "'pod-security.kubernetes.io/" k "'"
#define CFG(body) "{'apiVersion':'pod-security.admission.config.k8s.io/v1','kind':'PodSecurityConfiguration'" body "}"

static kg_admission_memcluster *g_m;
static const kg_apiserver_metrics *g_metrics; /* passed to the services when set */

static void put_ns(kg_arena *a, const char *name, const char *labels)
{
    kg_error e = {0};
    kg_json *ns =
        sq(a, kg_arena_sprintf(a, "{'apiVersion':'v1','kind':'Namespace','metadata':{'name':'%s','labels':%s}}", name,
                               labels));
    assert_true(kg_admission_memcluster_put(g_m, "namespaces", ns, 0, &e));
}

static void put_pod(kg_arena *a, const char *ns, const char *name, const char *extra_meta, const char *spec)
{
    kg_error e = {0};
    kg_json *pod = sq(a, kg_arena_sprintf(a,
                                          "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'%s','namespace':'%s'%s},"
                                          "'spec':%s}",
                                          name, ns, extra_meta, spec));
    assert_true(kg_admission_memcluster_put(g_m, "pods", pod, 0, &e));
}

#define PRIV_SPEC "{'containers':[{'name':'c','image':'x','securityContext':{'privileged':true}}]}"
#define HOSTNET_SPEC "{'hostNetwork':true,'containers':[{'name':'c','image':'x'}]}"
#define RESTRICTED_SPEC                                                                                                \
    "{'securityContext':{'runAsNonRoot':true,'seccompProfile':{'type':'RuntimeDefault'}},'containers':[{'name':'c',"   \
    "'image':'x','securityContext':{'allowPrivilegeEscalation':false,'capabilities':{'drop':['ALL']}}}]}"
/* passes baseline, fails restricted */
#define PLAIN_SPEC "{'containers':[{'name':'c','image':'x'}]}"

static int setup(void **state)
{
    g_m = kg_admission_memcluster_new();
    kg_arena a;
    kg_arena_init(&a, 0);
    put_ns(&a, "plain", "{}");
    put_ns(&a, "restricted", "{" L("enforce") ":'restricted'}");
    put_ns(&a, "mixed", "{" L("enforce") ":'baseline'," L("warn") ":'restricted'," L("audit") ":'restricted'}");
    put_ns(&a, "warnonly", "{" L("warn") ":'baseline'," L("warn-version") ":'v1.22'}");
    put_ns(&a, "bogus", "{" L("enforce") ":'bogus'}");
    put_ns(&a, "old", "{" L("enforce") ":'restricted'," L("enforce-version") ":'v1.7'}");
    put_ns(&a, "exempt", "{" L("enforce") ":'restricted'}");
    put_ns(&a, "scan", "{}");
    put_pod(&a, "scan", "p2", "", PRIV_SPEC);
    put_pod(&a, "scan", "p1", "", PRIV_SPEC);
    put_pod(&a, "scan", "p3", "", HOSTNET_SPEC);
    put_pod(&a, "scan", "p4", "", RESTRICTED_SPEC);
    put_pod(&a, "scan", "p5", "", "{'runtimeClassName':'kata','hostPID':true,'containers':[{'name':'c'}]}");
    put_pod(&a, "scan", "p6", "", "{'hostIPC':true,'containers':[{'name':'c'}]}");
    put_pod(&a, "scan", "p7", "", "{'hostIPC':true,'containers':[{'name':'c'}]}");
    put_pod(&a, "scan", "p8", "", "{'hostIPC':true,'containers':[{'name':'c'}]}");
    put_ns(&a, "many", "{}");
    for (int i = 0; i < 3002; i++)
        put_pod(&a, "many", kg_arena_sprintf(&a, "m%04d", i),
                i < 3000 ? "" : ",'ownerReferences':[{'uid':'rs1','controller':true,'name':'rs','kind':'ReplicaSet'}]",
                i == 3001 || i == 5 ? PRIV_SPEC : PLAIN_SPEC);
    kg_arena_free(&a);
    return 0;
}

static int teardown(void **state)
{
    kg_admission_memcluster_free(g_m);
    return 0;
}

typedef struct req {
    kg_arena a;
    kg_warnings w;
    kg_admission_attributes at;
    kg_status *st;
} req;

static void req_init(req *r)
{
    kg_arena_init(&r->a, 0);
    kg_warnings_init(&r->w, &r->a);
}

/* Run the validating phase with config (single-quoted JSON or NULL). */
static kg_status *run(req *r, const char *config, kg_admission_op op, const char *group, const char *resource,
                      const char *sub, const char *ns, const char *name, const char *obj, const char *old)
{
    kg_admission_services svc = kg_admission_memcluster_services(g_m, g_metrics);
    tattrs(&r->at, &r->a, op, "", resource, ns, name, obj ? sq(&r->a, obj) : NULL, old ? sq(&r->a, old) : NULL);
    r->at.resource.group = group;
    r->at.subresource = sub;
    r->at.warnings = &r->w;
    r->at.user.name = "alice";
    r->st = validate1(&P, config ? sq(&r->a, config) : NULL, &svc, &r->at);
    return r->st;
}

static kg_status *run_pod(req *r, const char *config, kg_admission_op op, const char *ns, const char *spec,
                          const char *old_spec)
{
    const char *obj =
        kg_arena_sprintf(&r->a, "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'x'},'spec':%s}", spec);
    const char *old =
        old_spec
            ? kg_arena_sprintf(&r->a, "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'x'},'spec':%s}", old_spec)
            : NULL;
    return run(r, config, op, "", "pods", "", ns, "x", obj, old);
}

static const char *ann(req *r, const char *key)
{
    if (!r->at.annotations)
        return NULL;
    return kg_json_get_str(r->at.annotations, kg_arena_sprintf(&r->a, "pod-security.kubernetes.io/%s", key));
}

static void assert_ann(req *r, const char *key, const char *want)
{
    const char *got = ann(r, key);
    if (!want) {
        if (got)
            fail_msg("annotation %s: unexpected %s", key, got);
        return;
    }
    if (!got || strcmp(got, want) != 0)
        fail_msg("annotation %s:\n got  %s\n want %s", key, got ? got : "(none)", want);
}

static void assert_warnings(const req *r, const char *const *want, size_t n)
{
    if (r->w.n != n) {
        for (size_t i = 0; i < r->w.n; i++)
            print_message("warning %zu: %s\n", i, r->w.items[i]);
        fail_msg("%zu warnings, want %zu", r->w.n, n);
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(r->w.items[i], want[i]) != 0)
            fail_msg("warning %zu:\n got  %s\n want %s", i, r->w.items[i], want[i]);
}

static void req_free(req *r)
{
    kg_arena_free(&r->a);
}

static void registered_default_on(void **state)
{
    const kg_admission_plugin_info *info = kg_admission_registry_find("PodSecurity");
    assert_ptr_equal(info->impl, &P);
    assert_true(info->default_on);
    assert_int_equal(P.handles, KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE);
    assert_null(P.admit);
}

/* ---- levels, versions, labels ---- */

static void versions_and_levels(void **state)
{
    static const char *const valid[] = {"latest", "v1.0", "v1.22", "v1.10000", "v1.33"};
    static const char *const invalid[] = {"v1",  "1.1", "v2.0", "v1.01",  "",
                                          "foo", "v1.", "v1.x", "Latest", "v1.99999999999999999999"};
    ps_version v;
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++)
        assert_true(ps_parse_version(valid[i], &v));
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
        assert_false(ps_parse_version(invalid[i], &v));
    ps_level l;
    assert_true(ps_parse_level("baseline", &l));
    assert_int_equal(l, PS_BASELINE);
    assert_false(ps_parse_level("Baseline", &l));
    assert_false(ps_parse_level("", &l));
    char buf[PS_LV_MAX];
    assert_string_equal(ps_lv_format(buf, (ps_lv){PS_BASELINE, {false, 10000}}), "baseline:v1.10000");
    assert_string_equal(ps_lv_format(buf, (ps_lv){PS_RESTRICTED, {true, 0}}), "restricted:latest");
    assert_int_equal(ps_effective_minor((ps_version){false, 34}), PS_MAX_MINOR);
    assert_int_equal(ps_effective_minor((ps_version){false, 5}), 5);
    assert_true(ps_lv_equivalent((ps_lv){PS_PRIVILEGED, {false, 1}}, (ps_lv){PS_PRIVILEGED, {true, 0}}));
    assert_false(ps_lv_equivalent((ps_lv){PS_BASELINE, {false, 1}}, (ps_lv){PS_BASELINE, {true, 0}}));
}

/* api/helpers_test.go TestPolicyToEvaluate */
static void labels_to_policy(void **state)
{
    static const struct {
        const char *labels;
        const char *enforce, *warn, *audit;
        size_t nerrs;
    } cases[] = {
        {"{}", "privileged:latest", "privileged:latest", "privileged:latest", 0},
        {"{" L("enforce") ":'baseline'}", "baseline:latest", "baseline:latest", "privileged:latest", 0},
        {"{" L("warn") ":'restricted'}", "privileged:latest", "restricted:latest", "privileged:latest", 0},
        {"{" L("audit") ":'baseline'}", "privileged:latest", "privileged:latest", "baseline:latest", 0},
        {"{" L("enforce") ":'baseline'," L("warn") ":'restricted'}", "baseline:latest", "restricted:latest",
         "privileged:latest", 0},
        {"{" L("enforce") ":'baseline'," L("enforce-version") ":'v1.22'}", "baseline:v1.22", "baseline:v1.22",
         "privileged:latest", 0},
        {"{" L("enforce") ":'baseline'," L("enforce-version") ":'v1.22'," L("warn-version") ":'latest'}",
         "baseline:v1.22", "baseline:latest", "privileged:latest", 0},
        {"{" L("enforce") ":'baseline'," L("warn-version") ":'v1.23'}", "baseline:latest", "baseline:v1.23",
         "privileged:latest", 0},
        {"{" L("enforce") ":'baseline'," L("enforce-version") ":'v1.20'," L("warn") ":'restricted'," L(
             "warn-version") ":'v1.21'," L("audit") ":'restricted'," L("audit-version") ":'v1.22'}",
         "baseline:v1.20", "restricted:v1.21", "restricted:v1.22", 0},
        {"{" L("enforce") ":'baseline'," L("warn") ":'privileged'}", "baseline:latest", "privileged:latest",
         "privileged:latest", 0},
        {"{" L("enforce") ":'baseline'," L("warn") ":'foo'}", "baseline:latest", "privileged:latest",
         "privileged:latest", 1},
        {"{" L("enforce") ":'foo'}", "restricted:latest", "privileged:latest", "privileged:latest", 1},
        {"{" L("enforce") ":''}", "restricted:latest", "privileged:latest", "privileged:latest", 1},
        {"{" L("audit") ":'x'," L("audit-version") ":'v2'," L("enforce-version") ":'1.1'}", "privileged:latest",
         "privileged:latest", "privileged:latest", 3},
        {"{'other':'x'}", "privileged:latest", "privileged:latest", "privileged:latest", 0},
    };
    kg_arena a;
    kg_arena_init(&a, 0);
    ps_lv def = {PS_PRIVILEGED, {true, 0}};
    ps_policy defaults = {def, def, def};
    char b1[PS_LV_MAX], b2[PS_LV_MAX], b3[PS_LV_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kg_field_errors errs = KG_FIELD_ERRORS_INIT;
        ps_policy p = ps_policy_from_labels(&a, sq(&a, cases[i].labels), &defaults, &errs);
        if (strcmp(ps_lv_format(b1, p.enforce), cases[i].enforce) || strcmp(ps_lv_format(b2, p.warn), cases[i].warn) ||
            strcmp(ps_lv_format(b3, p.audit), cases[i].audit) || errs.len != cases[i].nerrs)
            fail_msg("case %zu: enforce %s warn %s audit %s errs %zu", i, b1, b2, b3, errs.len);
    }
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    ps_policy_from_labels(&a, sq(&a, "{" L("enforce") ":'unknown'," L("enforce-version") ":'v1'}"), &defaults, &errs);
    assert_string_equal(kg_field_errors_aggregate(&a, &errs),
                        "[metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: \"unknown\": must be one "
                        "of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/"
                        "enforce-version]: Invalid value: \"v1\": must be \"latest\" or \"v1.x\"]");
    kg_arena_free(&a);
}

/* ---- pods ---- */

#define PRIV_DENY                                                                                                      \
    "pods \"x\" is forbidden: violates PodSecurity \"restricted:latest\": privileged (container \"c\" must not set "   \
    "securityContext.privileged=true), allowPrivilegeEscalation != false (container \"c\" must set "                   \
    "securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container \"c\" must set "            \
    "securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot != true (pod or container \"c\" must set "             \
    "securityContext.runAsNonRoot=true), seccompProfile (pod or container \"c\" must set "                             \
    "securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")"
#define PLAIN_RESTRICTED                                                                                               \
    "allowPrivilegeEscalation != false (container \"c\" must set securityContext.allowPrivilegeEscalation=false), "    \
    "unrestricted capabilities (container \"c\" must set securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot "  \
    "!= true (pod or container \"c\" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "   \
    "\"c\" must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")"

static void pod_enforce(void **state)
{
    req r;
    req_init(&r);
    assert_status(run_pod(&r, NULL, KG_ADMISSION_CREATE, "restricted", PRIV_SPEC, NULL), 403, "Forbidden", PRIV_DENY);
    assert_string_equal(r.st->details.kind, "pods");
    assert_string_equal(r.st->details.name, "x");
    assert_ann(&r, "enforce-policy", "restricted:latest");
    assert_ann(&r, "audit-violations", NULL);
    assert_warnings(&r, NULL, 0); /* warn = restricted too, but no warnings on a denied request */
    req_free(&r);

    req_init(&r);
    assert_null(run_pod(&r, NULL, KG_ADMISSION_CREATE, "restricted", RESTRICTED_SPEC, NULL));
    assert_ann(&r, "enforce-policy", "restricted:latest");
    assert_warnings(&r, NULL, 0);
    req_free(&r);

    /* an old enforce version: v1.7 has no allowPrivilegeEscalation check */
    req_init(&r);
    assert_null(run_pod(&r, NULL, KG_ADMISSION_CREATE, "old",
                        "{'securityContext':{'runAsNonRoot':true},'containers':[{'name':'c','image':'x'}]}", NULL));
    assert_ann(&r, "enforce-policy", "restricted:v1.7");
    req_free(&r);
}

static void pod_warn_and_audit(void **state)
{
    req r;
    req_init(&r);
    assert_null(run_pod(&r, NULL, KG_ADMISSION_CREATE, "mixed", PLAIN_SPEC, NULL));
    const char *w = "would violate PodSecurity \"restricted:latest\": " PLAIN_RESTRICTED;
    assert_warnings(&r, &w, 1);
    assert_ann(&r, "enforce-policy", "baseline:latest");
    assert_ann(&r, "audit-violations", w);
    req_free(&r);

    /* denied by enforce: audit is still recorded, warnings are not */
    req_init(&r);
    assert_non_null(run_pod(&r, NULL, KG_ADMISSION_CREATE, "mixed", PRIV_SPEC, NULL));
    assert_string_equal(r.st->message, "pods \"x\" is forbidden: violates PodSecurity \"baseline:latest\": privileged "
                                       "(container \"c\" must not set securityContext.privileged=true)");
    assert_warnings(&r, NULL, 0);
    assert_non_null(strstr(ann(&r, "audit-violations"), "would violate PodSecurity \"restricted:latest\": privileged"));
    req_free(&r);

    /* warn only, at a pinned version */
    req_init(&r);
    assert_null(run_pod(&r, NULL, KG_ADMISSION_CREATE, "warnonly", HOSTNET_SPEC, NULL));
    w = "would violate PodSecurity \"baseline:v1.22\": host namespaces (hostNetwork=true)";
    assert_warnings(&r, &w, 1);
    assert_ann(&r, "enforce-policy", "privileged:latest");
    req_free(&r);

    /* no labels: privileged:latest short-circuit */
    req_init(&r);
    assert_null(run_pod(&r, NULL, KG_ADMISSION_CREATE, "plain", PRIV_SPEC, NULL));
    assert_ann(&r, "enforce-policy", "privileged:latest");
    assert_warnings(&r, NULL, 0);
    req_free(&r);
}

static void pod_bad_label_fails_closed(void **state)
{
    req r;
    req_init(&r);
    assert_non_null(run_pod(&r, NULL, KG_ADMISSION_CREATE, "bogus", PRIV_SPEC, NULL));
    assert_string_equal(r.st->message, PRIV_DENY);
    assert_ann(&r, "error",
               "Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid "
               "value: \"bogus\": must be one of privileged, baseline, restricted");
    req_free(&r);
    req_init(&r);
    assert_null(run_pod(&r, NULL, KG_ADMISSION_CREATE, "bogus", RESTRICTED_SPEC, NULL));
    req_free(&r);
}

static void pod_namespace_lookup_errors(void **state)
{
    req r;
    req_init(&r);
    assert_status(run_pod(&r, NULL, KG_ADMISSION_CREATE, "missing", PRIV_SPEC, NULL), 500, "InternalError",
                  "Internal error occurred: failed to lookup namespace \"missing\"");
    assert_non_null(strstr(ann(&r, "error"), "Internal error occurred: failed to lookup namespace \"missing\": "));
    req_free(&r);
    /* controllers never deny: the error is only recorded */
    req_init(&r);
    assert_null(run(&r, NULL, KG_ADMISSION_CREATE, "apps", "deployments", "", "missing", "d",
                    "{'spec':{'template':{'spec':" PRIV_SPEC "}}}", NULL));
    assert_non_null(strstr(ann(&r, "error"), "failed to lookup namespace \"missing\": "));
    req_free(&r);
}

static void pod_subresources(void **state)
{
    static const char *const ignored[] = {"exec", "attach",      "binding", "eviction",
                                          "log",  "portforward", "proxy",   "status"};
    const char *pod = "{'metadata':{'name':'x'},'spec':" PRIV_SPEC "}";
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++) {
        req r;
        req_init(&r);
        assert_null(run(&r, NULL, KG_ADMISSION_UPDATE, "", "pods", ignored[i], "restricted", "x", pod, pod));
        assert_int_equal(r.at.annotations->len, 0); /* nothing recorded */
        req_free(&r);
    }
    /* ephemeralcontainers and unknown subresources are evaluated as pods */
    req r;
    req_init(&r);
    const char *old = "{'metadata':{'name':'x'},'spec':" RESTRICTED_SPEC "}";
    const char *with_debug =
        "{'metadata':{'name':'x'},'spec':{'securityContext':{'runAsNonRoot':true,'seccompProfile':{'type':"
        "'RuntimeDefault'}},'containers':[{'name':'c','image':'x','securityContext':{'allowPrivilegeEscalation':false,"
        "'capabilities':{'drop':['ALL']}}}],'ephemeralContainers':[{'name':'debug','image':'busybox'}]}}";
    assert_non_null(
        run(&r, NULL, KG_ADMISSION_UPDATE, "", "pods", "ephemeralcontainers", "restricted", "x", with_debug, old));
    assert_non_null(strstr(r.st->message, "allowPrivilegeEscalation != false (container \"debug\" must set"));
    req_free(&r);
    req_init(&r);
    assert_non_null(run(&r, NULL, KG_ADMISSION_UPDATE, "", "pods", "resize", "restricted", "x",
                        "{'metadata':{'name':'x'},'spec':" PRIV_SPEC "}", "{'metadata':{'name':'x'},'spec':{}}"));
    req_free(&r);
}

static void pod_updates(void **state)
{
    req r;
    /* nothing relevant changed: allowed without evaluation even though the pod violates */
    req_init(&r);
    assert_null(run(&r, NULL, KG_ADMISSION_UPDATE, "", "pods", "", "restricted", "x",
                    "{'metadata':{'name':'x','labels':{'a':'b'}},'spec':" PRIV_SPEC "}",
                    "{'metadata':{'name':'x'},'spec':" PRIV_SPEC "}"));
    assert_ann(&r, "enforce-policy", NULL);
    req_free(&r);
    /* an image change is significant */
    req_init(&r);
    assert_non_null(run_pod(&r, NULL, KG_ADMISSION_UPDATE, "restricted", PRIV_SPEC,
                            "{'containers':[{'name':'c','image':'old','securityContext':{'privileged':true}}]}"));
    req_free(&r);
    /* so is a different number of containers or init containers */
    req_init(&r);
    assert_non_null(run_pod(&r, NULL, KG_ADMISSION_UPDATE, "restricted", PRIV_SPEC,
                            "{'initContainers':[{'name':'i'}],'containers':[{'name':'c','image':'x','securityContext':{"
                            "'privileged':true}}]}"));
    req_free(&r);
    /* an ephemeral container added (or its image changed) is significant; an unchanged one is not */
    const char *eph = "{'containers':[{'name':'c','image':'x','securityContext':{'privileged':true}}],"
                      "'ephemeralContainers':[{'name':'e','image':'busybox'}]}";
    req_init(&r);
    assert_non_null(run_pod(&r, NULL, KG_ADMISSION_UPDATE, "restricted", eph, PRIV_SPEC));
    req_free(&r);
    req_init(&r);
    assert_null(run_pod(&r, NULL, KG_ADMISSION_UPDATE, "restricted", eph, eph));
    req_free(&r);
    /* a changed seccomp container annotation is significant too */
    req_init(&r);
    assert_non_null(run(&r, NULL, KG_ADMISSION_UPDATE, "", "pods", "", "restricted", "x",
                        "{'metadata':{'name':'x','annotations':{'container.seccomp.security.alpha.kubernetes.io/c':"
                        "'unconfined'}},'spec':" PRIV_SPEC "}",
                        "{'metadata':{'name':'x'},'spec':" PRIV_SPEC "}"));
    req_free(&r);
    /* a security context change alone is not re-evaluated (upstream: images only) */
    req_init(&r);
    assert_null(run_pod(&r, NULL, KG_ADMISSION_UPDATE, "restricted", PRIV_SPEC, RESTRICTED_SPEC));
    req_free(&r);
}

static void exemptions(void **state)
{
    const char *cfg = CFG(",'exemptions':{'usernames':['alice'],'runtimeClasses':['kata'],'namespaces':['exempt']}");
    const char *cfg_ns = CFG(",'exemptions':{'namespaces':['exempt'],'runtimeClasses':['kata']}");
    req r;
    req_init(&r);
    assert_null(run_pod(&r, cfg, KG_ADMISSION_CREATE, "exempt", PRIV_SPEC, NULL));
    assert_ann(&r, "exempt", "namespace");
    req_free(&r);
    req_init(&r);
    assert_null(run_pod(&r, cfg, KG_ADMISSION_CREATE, "restricted", PRIV_SPEC, NULL));
    assert_ann(&r, "exempt", "user");
    req_free(&r);
    req_init(&r);
    assert_null(run_pod(&r, cfg_ns, KG_ADMISSION_CREATE, "restricted",
                        "{'runtimeClassName':'kata','containers':[{'name':'c','securityContext':{'privileged':true}}]}",
                        NULL));
    assert_ann(&r, "exempt", "runtimeClass");
    req_free(&r);
    /* exact matches only */
    req_init(&r);
    assert_non_null(run_pod(&r, cfg_ns, KG_ADMISSION_CREATE, "restricted",
                            "{'runtimeClassName':'Kata','containers':[{'name':'c','securityContext':{'privileged':"
                            "true}}]}",
                            NULL));
    req_free(&r);
    /* controllers: the namespace exemption applies too */
    req_init(&r);
    assert_null(run(&r, cfg_ns, KG_ADMISSION_CREATE, "apps", "deployments", "", "exempt", "d",
                    "{'spec':{'template':{'spec':" PRIV_SPEC "}}}", NULL));
    assert_ann(&r, "exempt", "namespace");
    assert_warnings(&r, NULL, 0);
    req_free(&r);
}

/* ---- pod controllers ---- */

static void controllers_warn_only(void **state)
{
    static const struct {
        const char *group, *resource, *obj;
    } kinds[] = {
        {"apps", "deployments", "{'spec':{'template':{'metadata':{'labels':{'a':'b'}},'spec':" PRIV_SPEC "}}}"},
        {"apps", "replicasets", "{'spec':{'template':{'spec':" PRIV_SPEC "}}}"},
        {"apps", "statefulsets", "{'spec':{'template':{'spec':" PRIV_SPEC "}}}"},
        {"apps", "daemonsets", "{'spec':{'template':{'spec':" PRIV_SPEC "}}}"},
        {"batch", "jobs", "{'spec':{'template':{'spec':" PRIV_SPEC "}}}"},
        {"batch", "cronjobs", "{'spec':{'jobTemplate':{'spec':{'template':{'spec':" PRIV_SPEC "}}}}}"},
        {"", "replicationcontrollers", "{'spec':{'template':{'spec':" PRIV_SPEC "}}}"},
        {"", "podtemplates", "{'template':{'spec':" PRIV_SPEC "}}"},
    };
    const char *w = "would violate PodSecurity \"restricted:latest\": privileged (container \"c\" must not set "
                    "securityContext.privileged=true), allowPrivilegeEscalation != false (container \"c\" must set "
                    "securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container \"c\" must "
                    "set securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot != true (pod or container \"c\" "
                    "must set securityContext.runAsNonRoot=true), seccompProfile (pod or container \"c\" must set "
                    "securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")";
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        for (int op = 0; op < 2; op++) {
            req r;
            req_init(&r);
            /* enforce=restricted: warn defaults to restricted; controllers are never denied; every update re-runs */
            assert_null(run(&r, NULL, op ? KG_ADMISSION_UPDATE : KG_ADMISSION_CREATE, kinds[i].group, kinds[i].resource,
                            "", "restricted", "ctl", kinds[i].obj, op ? kinds[i].obj : NULL));
            assert_warnings(&r, &w, 1);
            assert_ann(&r, "enforce-policy", NULL);
            assert_ann(&r, "audit-violations", NULL);
            req_free(&r);
        }
    }
    req r;
    /* audit is recorded for templates */
    req_init(&r);
    assert_null(run(&r, NULL, KG_ADMISSION_CREATE, "apps", "deployments", "", "mixed", "d",
                    "{'spec':{'template':{'spec':" PLAIN_SPEC "}}}", NULL));
    assert_ann(&r, "audit-violations", "would violate PodSecurity \"restricted:latest\": " PLAIN_RESTRICTED);
    req_free(&r);
    /* a replication controller without a template, a subresource, other resources: nothing */
    req_init(&r);
    assert_null(
        run(&r, NULL, KG_ADMISSION_CREATE, "", "replicationcontrollers", "", "restricted", "rc", "{'spec':{}}", NULL));
    assert_null(run(&r, NULL, KG_ADMISSION_UPDATE, "apps", "deployments", "scale", "restricted", "d",
                    "{'spec':{'template':{'spec':" PRIV_SPEC "}}}", NULL));
    assert_null(run(&r, NULL, KG_ADMISSION_CREATE, "", "configmaps", "", "restricted", "cm", "{'data':{}}", NULL));
    assert_null(run(&r, NULL, KG_ADMISSION_CREATE, "extensions", "deployments", "", "restricted", "d",
                    "{'spec':{'template':{'spec':" PRIV_SPEC "}}}", NULL));
    assert_warnings(&r, NULL, 0);
    req_free(&r);
}

/* ---- namespaces ---- */

static kg_status *run_ns(req *r, const char *config, kg_admission_op op, const char *name, const char *labels,
                         const char *old_labels)
{
    const char *obj = kg_arena_sprintf(&r->a,
                                       "{'apiVersion':'v1','kind':'Namespace','metadata':{'name':'%s',"
                                       "'labels':%s}}",
                                       name, labels);
    const char *old = old_labels ? kg_arena_sprintf(&r->a,
                                                    "{'apiVersion':'v1','kind':'Namespace','metadata':{'name':'%s',"
                                                    "'labels':%s}}",
                                                    name, old_labels)
                                 : NULL;
    return run(r, config, op, "", "namespaces", "", name, name, obj, old);
}

static void namespace_labels_validated(void **state)
{
    req r;
    req_init(&r);
    assert_status(run_ns(&r, NULL, KG_ADMISSION_CREATE, "x", "{" L("enforce") ":'bogus'}", NULL), 422, "Invalid",
                  "Namespace \"x\" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "
                  "\"bogus\": must be one of privileged, baseline, restricted");
    assert_string_equal(r.st->details.kind, "Namespace");
    req_free(&r);
    req_init(&r);
    assert_status(run_ns(&r, NULL, KG_ADMISSION_CREATE, "x", "{" L("warn-version") ":'v1'," L("audit") ":'x'}", NULL),
                  422, "Invalid",
                  "Namespace \"x\" is invalid: [metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "
                  "\"x\": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/"
                  "warn-version]: Invalid value: \"v1\": must be \"latest\" or \"v1.x\"]");
    req_free(&r);
    req_init(&r);
    assert_null(run_ns(&r, NULL, KG_ADMISSION_CREATE, "x",
                       "{" L("enforce") ":'restricted'," L("enforce-version") ":'v1.10000'}", NULL));
    req_free(&r);
    /* update: a new bad value is rejected; the same bad labels as before are tolerated */
    req_init(&r);
    assert_non_null(run_ns(&r, NULL, KG_ADMISSION_UPDATE, "x", "{" L("enforce") ":'bogus'}", "{}"));
    assert_int_equal(kg_status_http_code(r.st), 422);
    assert_null(
        run_ns(&r, NULL, KG_ADMISSION_UPDATE, "x", "{" L("enforce") ":'bogus','a':'b'}", "{" L("enforce") ":'bogus'}"));
    assert_non_null(
        run_ns(&r, NULL, KG_ADMISSION_UPDATE, "x", "{" L("enforce") ":'bogus2'}", "{" L("enforce") ":'bogus'}"));
    /* subresources are ignored */
    assert_null(run(&r, NULL, KG_ADMISSION_UPDATE, "", "namespaces", "status", "x", "x",
                    "{'metadata':{'name':'x','labels':{" L("enforce") ":'bogus'}}}", "{'metadata':{'name':'x'}}"));
    req_free(&r);
}

static void namespace_update_scans_pods(void **state)
{
    req r;
    req_init(&r);
    assert_null(run_ns(&r, NULL, KG_ADMISSION_UPDATE, "scan", "{" L("enforce") ":'baseline'}", "{}"));
    /* p3 (hostNetwork), p5 (hostPID) and p6..p8 (hostIPC) share the reason "host namespaces": one group named after
     * the smallest pod name; p4 complies */
    const char *want[] = {
        "existing pods in namespace \"scan\" violate the new PodSecurity enforce level \"baseline:latest\"",
        "p1 (and 1 other pod): privileged",
        "p3 (and 4 other pods): host namespaces",
    };
    assert_warnings(&r, want, 3);
    req_free(&r);
    const char *want_grouped[] = {want[0], want[1], "p3 (and 3 other pods): host namespaces"};

    /* the runtime-class exemption removes p5 from the scan */
    req_init(&r);
    assert_null(run_ns(&r, CFG(",'exemptions':{'runtimeClasses':['kata']}"), KG_ADMISSION_UPDATE, "scan",
                       "{" L("enforce") ":'baseline'}", "{}"));
    assert_warnings(&r, want_grouped, 3);
    req_free(&r);

    /* no scan: unchanged enforce, privileged, relaxed at the same version, audit/warn changes only */
    static const char *const quiet[][2] = {
        {"{" L("enforce") ":'restricted'}", "{" L("enforce") ":'restricted','x':'y'}"},
        {"{" L("enforce") ":'privileged'}", "{}"},
        {"{" L("enforce") ":'baseline'}", "{" L("enforce") ":'restricted'}"},
        {"{" L("warn") ":'restricted'," L("audit") ":'restricted'}", "{}"},
    };
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++) {
        req_init(&r);
        assert_null(run_ns(&r, NULL, KG_ADMISSION_UPDATE, "scan", quiet[i][0], quiet[i][1]));
        assert_warnings(&r, NULL, 0);
        req_free(&r);
    }
    /* a version change scans even when the level is relaxed */
    req_init(&r);
    assert_null(run_ns(&r, NULL, KG_ADMISSION_UPDATE, "scan",
                       "{" L("enforce") ":'baseline'," L("enforce-version") ":'v1.0'}",
                       "{" L("enforce") ":'restricted'}"));
    assert_int_equal(r.w.n, 3);
    assert_string_equal(r.w.items[0], "existing pods in namespace \"scan\" violate the new PodSecurity enforce level "
                                      "\"baseline:v1.0\"");
    req_free(&r);
    /* namespace creation never scans */
    req_init(&r);
    assert_null(run_ns(&r, NULL, KG_ADMISSION_CREATE, "scan", "{" L("enforce") ":'restricted'}", NULL));
    assert_warnings(&r, NULL, 0);
    req_free(&r);
}

static void namespace_scan_is_bounded(void **state)
{
    req r;
    req_init(&r);
    assert_null(run_ns(&r, NULL, KG_ADMISSION_UPDATE, "many", "{" L("enforce") ":'baseline'}", "{}"));
    /* 3002 pods, 3000 checked: the 3000 uncontrolled pods come first, then rs1's first replica m3000, then its
     * other replica m3001 (privileged, but not checked) */
    const char *want[] = {
        "new PodSecurity enforce level only checked against the first 3000 of 3002 existing pods",
        "existing pods in namespace \"many\" violate the new PodSecurity enforce level \"baseline:latest\"",
        "m0005: privileged",
    };
    assert_warnings(&r, want, 3);
    req_free(&r);
}

static void namespace_exempt_warning(void **state)
{
    const char *cfg = CFG(",'exemptions':{'namespaces':['ex']}");
    req r;
    req_init(&r);
    assert_null(run_ns(&r, cfg, KG_ADMISSION_CREATE, "ex",
                       "{" L("enforce") ":'restricted'," L("enforce-version") ":'v1.0'," L("audit") ":'restricted'," L(
                           "warn") ":'baseline'}",
                       NULL));
    const char *w = "namespace \"ex\" is exempt from Pod Security, and the policy (enforce=restricted:v1.0, "
                    "audit=restricted:latest, warn=baseline:latest) will be ignored";
    assert_warnings(&r, &w, 1);
    req_free(&r);
    /* privileged or default-equivalent policies do not warn */
    req_init(&r);
    assert_null(run_ns(&r, cfg, KG_ADMISSION_CREATE, "ex", "{" L("enforce") ":'privileged'}", NULL));
    assert_warnings(&r, NULL, 0);
    req_free(&r);
    /* update to a stricter level: the exempt warning instead of a scan; the defaulted warn level is not listed */
    req_init(&r);
    assert_null(run_ns(&r, cfg, KG_ADMISSION_UPDATE, "ex", "{" L("enforce") ":'baseline'}", "{}"));
    w = "namespace \"ex\" is exempt from Pod Security, and the policy (enforce=baseline:latest) will be ignored";
    assert_warnings(&r, &w, 1);
    req_free(&r);
}

/* ---- configuration ---- */

static const char *init_err(const char *cfg)
{
    static char msg[KG_ERR_MSG_MAX];
    kg_arena a;
    kg_arena_init(&a, 0);
    void *st = NULL;
    kg_error e = {0};
    bool ok = P.init(cfg ? sq(&a, cfg) : NULL, NULL, &st, &e);
    if (ok)
        P.destroy(st);
    snprintf(msg, sizeof msg, "%s", ok ? "" : e.msg);
    kg_arena_free(&a);
    return msg;
}

static void configuration(void **state)
{
    assert_string_equal(init_err(NULL), "");
    assert_string_equal(init_err(CFG("")), "");
    assert_string_equal(
        init_err("{'apiVersion':'pod-security.admission.config.k8s.io/v1beta1','kind':'PodSecurityConfiguration',"
                 "'defaults':{'enforce':'baseline','enforce-version':'v1.22','audit':'','warn-version':'latest'},"
                 "'exemptions':{'usernames':['system:serviceaccount:kube-system:replicaset-controller'],"
                 "'runtimeClasses':['kata.io'],'namespaces':['kube-system']}}"),
        "");
    assert_string_equal(init_err("{'apiVersion':'pod-security.admission.config.k8s.io/v1alpha1','kind':"
                                 "'PodSecurityConfiguration'}"),
                        "");
    assert_string_equal(init_err(CFG(",'defaults':{'enforce':'foo'}")),
                        "defaults.enforce: Invalid value: \"foo\": must be one of privileged, baseline, restricted");
    assert_string_equal(init_err(CFG(",'defaults':{'audit-version':'v2.0','warn':'Baseline'}")),
                        "[defaults.warn: Invalid value: \"Baseline\": must be one of privileged, baseline, restricted, "
                        "defaults.audit-version: Invalid value: \"v2.0\": must be \"latest\" or \"v1.x\"]");
    assert_string_equal(init_err(CFG(",'exemptions':{'namespaces':['a','a']}")),
                        "exemptions.namespaces[1]: Duplicate value: \"a\"");
    assert_non_null(
        strstr(init_err(CFG(",'exemptions':{'namespaces':['Bad_NS']}")),
               "exemptions.namespaces[0]: Invalid value: \"Bad_NS\": a lowercase RFC 1123 label must consist of"));
    assert_non_null(strstr(init_err(CFG(",'exemptions':{'runtimeClasses':['a..b']}")),
                           "exemptions.runtimeClasses[0]: Invalid value: \"a..b\": a lowercase RFC 1123 subdomain"));
    assert_string_equal(init_err(CFG(",'exemptions':{'usernames':['']}")),
                        "exemptions.usernames[0]: Invalid value: \"\": username must not be empty");
    assert_non_null(strstr(init_err("{'apiVersion':'pod-security.admission.config.k8s.io/v99','kind':"
                                    "'PodSecurityConfiguration'}"),
                           "no kind \"PodSecurityConfiguration\" is registered for version "
                           "\"pod-security.admission.config.k8s.io/v99\""));
    assert_non_null(strstr(init_err(CFG(",'defaults':{'enforce':1}")), "defaults.enforce"));
    assert_non_null(strstr(init_err(CFG(",'exemptions':{'usernames':'x'}")), "exemptions.usernames"));
    assert_non_null(strstr(init_err("[]"), "expected a PodSecurityConfiguration object"));
}

/* an invalid configuration in the AdmissionConfiguration file stops the chain (start-up), naming file and field */
static void configuration_file(void **state)
{
    char path[] = "/tmp/kg_podsecurity_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *yaml = "apiVersion: apiserver.config.k8s.io/v1\n"
                       "kind: AdmissionConfiguration\n"
                       "plugins:\n"
                       "- name: PodSecurity\n"
                       "  configuration:\n"
                       "    apiVersion: pod-security.admission.config.k8s.io/v1\n"
                       "    kind: PodSecurityConfiguration\n"
                       "    defaults:\n"
                       "      enforce: strict\n";
    assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
    close(fd);
    kg_admission_options o = {"", "", NULL, path};
    kg_error e = {0};
    kg_admission_services svc = kg_admission_memcluster_services(g_m, NULL);
    assert_null(kg_admission_chain_new(&o, &svc, NULL, &e));
    char *want = NULL;
    assert_true(asprintf(&want,
                         "couldn't init admission plugin \"PodSecurity\" (configured in \"%s\"): defaults.enforce: "
                         "Invalid value: \"strict\": must be one of privileged, baseline, restricted",
                         path) > 0);
    assert_string_equal(e.msg, want);
    free(want);
    unlink(path);
}

static void configured_defaults(void **state)
{
    const char *cfg = CFG(",'defaults':{'enforce':'baseline','audit':'restricted'}");
    req r;
    req_init(&r);
    assert_non_null(run_pod(&r, cfg, KG_ADMISSION_CREATE, "plain", PRIV_SPEC, NULL));
    assert_string_equal(r.st->message, "pods \"x\" is forbidden: violates PodSecurity \"baseline:latest\": privileged "
                                       "(container \"c\" must not set securityContext.privileged=true)");
    req_free(&r);
    /* a default enforce level does not raise warn (only an explicit label does) */
    req_init(&r);
    assert_null(run_pod(&r, cfg, KG_ADMISSION_CREATE, "plain", PLAIN_SPEC, NULL));
    assert_warnings(&r, NULL, 0);
    assert_ann(&r, "audit-violations", "would violate PodSecurity \"restricted:latest\": " PLAIN_RESTRICTED);
    req_free(&r);
}

static void registry_validation(void **state)
{
    static const ps_versioned_check ok[] = {{0, ps_check_privileged, NULL}};
    static const ps_versioned_check dup[] = {{3, ps_check_privileged, NULL}, {3, ps_check_privileged, NULL}};
    static const ps_versioned_check dec[] = {{3, ps_check_privileged, NULL}, {1, ps_check_privileged, NULL}};
    static const ps_versioned_check undef[] = {{-1, ps_check_privileged, NULL}};
    static const ps_versioned_check latest[] = {{-2, ps_check_privileged, NULL}};
    static const char *const ov[] = {"a", NULL};
    static const ps_versioned_check over[] = {{0, ps_check_privileged, ov}};
    static const struct {
        ps_check checks[2];
        size_t n;
        const char *want;
    } cases[] = {
        {{{"a", PS_BASELINE, ok, 1}, {"a", PS_BASELINE, ok, 1}}, 2, "multiple checks registered for ID a"},
        {{{"a", PS_PRIVILEGED, ok, 1}}, 1, "check a: invalid level privileged"},
        {{{"a", PS_BASELINE, ok, 0}}, 1, "check a: empty"},
        {{{"a", PS_BASELINE, undef, 1}}, 1, "check a: undefined version found"},
        {{{"a", PS_BASELINE, latest, 1}}, 1, "check a: version cannot be 'latest'"},
        {{{"a", PS_BASELINE, dup, 2}}, 1, "check a: duplicate version v1.3"},
        {{{"a", PS_BASELINE, dec, 2}}, 1, "check a: versions must be strictly increasing"},
        {{{"b", PS_BASELINE, over, 1}}, 1, "check b: only restricted checks may set overrides"},
        {{{"a", PS_RESTRICTED, ok, 1}, {"b", PS_RESTRICTED, over, 1}}, 2, "check b: overrides restricted check a"},
    };
    static ps_evaluator ev;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kg_error e = {0};
        assert_false(ps_evaluator_init(&ev, cases[i].checks, cases[i].n, &e));
        assert_string_equal(e.msg, cases[i].want);
    }
    /* the default registry: list sizes from the reference's effective-list table */
    size_t n;
    const ps_check *checks = ps_default_checks(&n);
    kg_error e = {0};
    assert_true(ps_evaluator_init(&ev, checks, n, &e));
    static const struct {
        ps_level level;
        int minor;
        size_t n;
    } sizes[] = {{PS_BASELINE, 0, 11},    {PS_BASELINE, 33, 11},   {PS_RESTRICTED, 0, 12},
                 {PS_RESTRICTED, 7, 12},  {PS_RESTRICTED, 8, 13},  {PS_RESTRICTED, 19, 13},
                 {PS_RESTRICTED, 22, 13}, {PS_RESTRICTED, 23, 14}, {PS_RESTRICTED, 33, 14}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        assert_int_equal(ps_evaluator_list(&ev, (ps_lv){sizes[i].level, {false, sizes[i].minor}})->n, sizes[i].n);
    const ps_check_list *l = ps_evaluator_list(&ev, (ps_lv){PS_RESTRICTED, {true, 0}});
    static const char *const order[] = {"appArmorProfile",
                                        "hostNamespaces",
                                        "hostPorts",
                                        "privileged",
                                        "procMount",
                                        "seLinuxOptions",
                                        "sysctls",
                                        "windowsHostProcess",
                                        "allowPrivilegeEscalation",
                                        "capabilities_restricted",
                                        "restrictedVolumes",
                                        "runAsNonRoot",
                                        "runAsUser",
                                        "seccompProfile_restricted"};
    for (size_t i = 0; i < l->n; i++)
        assert_string_equal(l->ids[i], order[i]);
    assert_null(ps_evaluator_list(&ev, (ps_lv){PS_PRIVILEGED, {true, 0}}));
}

static void metrics(void **state)
{
    kg_metrics_registry *reg = kg_metrics_registry_new();
    kg_apiserver_metrics m;
    assert_true(kg_metrics_apiserver_register(reg, &m));
    g_metrics = &m;
    req r;
    req_init(&r);
    assert_non_null(run_pod(&r, NULL, KG_ADMISSION_CREATE, "restricted", PRIV_SPEC, NULL));
    assert_null(run_pod(&r, NULL, KG_ADMISSION_CREATE, "mixed", PLAIN_SPEC, NULL));
    assert_null(run_pod(&r, NULL, KG_ADMISSION_UPDATE, "plain", PLAIN_SPEC, PLAIN_SPEC));
    assert_null(run_pod(&r, NULL, KG_ADMISSION_CREATE, "old", RESTRICTED_SPEC, NULL));
    assert_null(run(&r, CFG(",'exemptions':{'usernames':['alice']}"), KG_ADMISSION_CREATE, "apps", "deployments", "",
                    "restricted", "d", "{'spec':{'template':{'spec':" PRIV_SPEC "}}}", NULL));
    assert_non_null(run_pod(&r, NULL, KG_ADMISSION_CREATE, "missing", PRIV_SPEC, NULL));
    assert_null(run_pod(&r, NULL, KG_ADMISSION_CREATE, "bogus", RESTRICTED_SPEC, NULL));
    req_free(&r);
    g_metrics = NULL;
    kg_metric *ev = kg_metrics_find(reg, "pod_security_evaluations_total");
    kg_metric *ex = kg_metrics_find(reg, "pod_security_exemptions_total");
    kg_metric *er = kg_metrics_find(reg, "pod_security_errors_total");
    assert_non_null(ev);
#define EV(...) kg_metric_value(ev, (const char *const[]){__VA_ARGS__})
    assert_true(EV("deny", "restricted", "latest", "enforce", "create", "pod", "") == 1);
    assert_true(EV("allow", "baseline", "latest", "enforce", "create", "pod", "") == 1);
    assert_true(EV("deny", "restricted", "latest", "audit", "create", "pod", "") == 1);
    assert_true(EV("deny", "restricted", "latest", "warn", "create", "pod", "") == 1);
    assert_true(EV("allow", "privileged", "latest", "enforce", "update", "pod", "") == 1);
    assert_true(EV("allow", "restricted", "v1.7", "enforce", "create", "pod", "") == 1);
    assert_true(EV("allow", "restricted", "latest", "enforce", "create", "pod", "") == 1); /* the bogus namespace */
    assert_true(kg_metric_value(ex, (const char *const[]){"create", "controller", ""}) == 1);
    assert_true(kg_metric_value(er, (const char *const[]){"true", "create", "pod", ""}) == 1);
    assert_true(kg_metric_value(er, (const char *const[]){"false", "create", "pod", ""}) == 1);
#undef EV
    kg_metrics_registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registered_default_on),
        cmocka_unit_test(versions_and_levels),
        cmocka_unit_test(labels_to_policy),
        cmocka_unit_test(pod_enforce),
        cmocka_unit_test(pod_warn_and_audit),
        cmocka_unit_test(pod_bad_label_fails_closed),
        cmocka_unit_test(pod_namespace_lookup_errors),
        cmocka_unit_test(pod_subresources),
        cmocka_unit_test(pod_updates),
        cmocka_unit_test(exemptions),
        cmocka_unit_test(controllers_warn_only),
        cmocka_unit_test(namespace_labels_validated),
        cmocka_unit_test(namespace_update_scans_pods),
        cmocka_unit_test(namespace_scan_is_bounded),
        cmocka_unit_test(namespace_exempt_warning),
        cmocka_unit_test(configuration),
        cmocka_unit_test(configuration_file),
        cmocka_unit_test(configured_defaults),
        cmocka_unit_test(registry_validation),
        cmocka_unit_test(metrics),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
