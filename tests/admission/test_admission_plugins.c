/* AlwaysAdmit, AlwaysDeny, NamespaceLifecycle, NamespaceExists, NamespaceAutoProvision: upstream scenarios and
 * messages; admission.NewForbidden naming; audit annotations. */
#include "admission_testutil.h"
#include "faulty_services.h"

#define POD_X "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"}}"
#define NS(name, phase)                                                                                                \
    "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" name                                     \
    "\"},\"status\":{\"phase\":\"" phase "\"}}"

static const kg_admission_op k_ops[] = {KG_ADMISSION_CREATE, KG_ADMISSION_UPDATE, KG_ADMISSION_DELETE,
                                        KG_ADMISSION_CONNECT};

static kg_status *run1(const kg_admission_plugin *p, kg_admission_attributes *at, const kg_admission_services *svc)
{
    const kg_admission_plugin *ps[] = {p};
    kg_error e = {0};
    kg_admission_chain *c = kg_admission_chain_new_from(ps, 1, NULL, svc, NULL, &e);
    assert_non_null(c);
    kg_status *st = kg_admission_chain_run(c, at);
    kg_admission_chain_free(c);
    return st;
}

/* ---- attributes basics ---- */

static void op_names(void **state)
{
    const char *names[] = {"CREATE", "UPDATE", "DELETE", "CONNECT"};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(kg_admission_op_name(k_ops[i]), names[i]);
        kg_admission_op op;
        assert_true(kg_admission_op_parse(names[i], &op));
        assert_int_equal(op, k_ops[i]);
    }
    kg_admission_op op;
    assert_false(kg_admission_op_parse("create", &op));
    assert_false(kg_admission_op_parse("PATCH", &op));
}

static void annotations_first_write_wins(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    kg_admission_attrs_init(&at, &a);
    kg_error e = {0};
    assert_true(kg_admission_add_annotation(&at, "podsecurity.kubernetes.io/enforce-policy", "restricted:latest", &e));
    assert_true(kg_admission_add_annotation(&at, "podsecurity.kubernetes.io/enforce-policy", "restricted:latest", &e));
    assert_false(kg_admission_add_annotation(&at, "podsecurity.kubernetes.io/enforce-policy", "baseline", &e));
    assert_string_equal(e.msg,
                        "admission annotations are not allowed to be overridden, key:\"podsecurity.kubernetes.io/"
                        "enforce-policy\", old value: \"restricted:latest\", new value:\"baseline\"");
    assert_string_equal(kg_json_get_str(at.annotations, "podsecurity.kubernetes.io/enforce-policy"),
                        "restricted:latest");
    assert_false(kg_admission_add_annotation(&at, "no-slash", "v", &e));
    assert_string_equal(e.msg, "annotation key has invalid format, the right format is a DNS subdomain prefix and '/' "
                               "and key name. (e.g. 'podsecuritypolicy.admission.k8s.io/admit-policy')");
    assert_false(kg_admission_add_annotation(&at, "a/b/c", "v", &e));
    assert_false(kg_admission_add_annotation(&at, "Upper.Case/x", "v", &e));
    assert_non_null(strstr(e.msg, "annotation key has invalid format Upper.Case/x."));
    assert_false(kg_admission_add_annotation(&at, "example.com/-bad", "v", &e));
    kg_arena_free(&a);
}

/* ---- AlwaysAdmit / AlwaysDeny ---- */

static void always_admit_admits_everything(void **state)
{
    assert_int_equal(kg_admission_plugin_always_admit.handles, KG_ADMISSION_ALL_OPS);
    kg_arena a;
    kg_arena_init(&a, 0);
    for (int i = 0; i < 4; i++) {
        kg_admission_attributes at;
        tattrs(&at, &a, k_ops[i], "Pod", "pods", "default", "x", tj(&a, POD_X), NULL);
        assert_null(run1(&kg_admission_plugin_always_admit, &at, NULL));
    }
    kg_arena_free(&a);
}

static void always_deny_denies_everything(void **state)
{
    assert_int_equal(kg_admission_plugin_always_deny.handles, KG_ADMISSION_ALL_OPS);
    assert_non_null(kg_admission_plugin_always_deny.admit);
    assert_non_null(kg_admission_plugin_always_deny.validate);
    kg_arena a;
    kg_arena_init(&a, 0);
    for (int i = 0; i < 4; i++) {
        kg_admission_attributes at;
        tattrs(&at, &a, k_ops[i], "Pod", "pods", "default", "x", tj(&a, POD_X), NULL);
        kg_status *st = run1(&kg_admission_plugin_always_deny, &at, NULL);
        assert_status(st, 403, "Forbidden", "pods \"x\" is forbidden: admission control is denying all modifications");
        assert_string_equal(st->details.name, "x");
        assert_string_equal(st->details.kind, "pods");
    }
    kg_arena_free(&a);
}

static void forbidden_naming_rules(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    /* group resource printed as resource.group; name from generateName when metadata.name is empty */
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Deployment", "deployments", "default", "",
           tj(&a, "{\"metadata\":{\"generateName\":\"web-\"}}"), NULL);
    at.kind.group = at.resource.group = "apps";
    assert_status(kg_admission_plugin_always_deny.validate(NULL, &at, NULL), 403, "Forbidden",
                  "deployments.apps \"web-\" is forbidden: admission control is denying all modifications");
    /* name from the object when the request has none */
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "default", "", tj(&a, POD_X), NULL);
    assert_string_equal(kg_admission_forbidden_name(&at), "x");
    /* objects without metadata (e.g. Scale) */
    tattrs(&at, &a, KG_ADMISSION_UPDATE, "Scale", "deployments", "default", "", tj(&a, "{\"spec\":{}}"), NULL);
    assert_string_equal(kg_admission_forbidden_name(&at), "Unknown/errorGettingName");
    /* no object, no name */
    tattrs(&at, &a, KG_ADMISSION_DELETE, "Pod", "pods", "default", "", NULL, NULL);
    assert_status(kg_admission_plugin_always_deny.admit(NULL, &at, NULL), 403, "Forbidden",
                  "pods \"Unknown\" is forbidden: admission control is denying all modifications");
    /* no double wrap of an existing Forbidden */
    kg_status *f = kg_status_forbidden(&a, KG_GR("", "secrets"), "s", "already");
    assert_ptr_equal(kg_admission_forbidden_status(&at, f), f);
    kg_status *other = kg_status_internal(&a, "boom");
    assert_status(kg_admission_forbidden_status(&at, other), 403, "Forbidden",
                  "pods \"Unknown\" is forbidden: Internal error occurred: boom");
    kg_arena_free(&a);
}

/* ---- NamespaceLifecycle ---- */

typedef struct fixture {
    kg_admission_memcluster *m;
    kg_faulty_services *fs; /* around m: injected read/write failures */
    kg_admission_services svc;
    kg_arena a;
} fixture;

static int fx_setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->m = kg_admission_memcluster_new();
    kg_admission_memcluster_set_clock(f->m, 1000000000LL);
    kg_admission_services inner = kg_admission_memcluster_services(f->m, NULL);
    f->fs = kg_faulty_services_new(&inner);
    f->svc = kg_faulty_services_get(f->fs);
    kg_arena_init(&f->a, 0);
    tput(f->m, "namespaces", NS("default", "Active"), 0);
    tput(f->m, "namespaces", NS("kube-system", "Active"), 0);
    tput(f->m, "namespaces", NS("term", "Terminating"), 0);
    tput(f->m, "namespaces", NS("lagging", "Active"), KG_MEMCLUSTER_STORE_ONLY);
    *state = f;
    return 0;
}

static int fx_teardown(void **state)
{
    fixture *f = *state;
    kg_arena_free(&f->a);
    kg_faulty_services_free(f->fs);
    kg_admission_memcluster_free(f->m);
    free(f);
    return 0;
}

static kg_status *lc(fixture *f, kg_admission_op op, const char *ns, kg_json *obj)
{
    kg_admission_attributes at;
    tattrs(&at, &f->a, op, "Pod", "pods", ns, "x", obj, op == KG_ADMISSION_CREATE ? NULL : tj(&f->a, POD_X));
    return run1(&kg_admission_plugin_namespace_lifecycle, &at, &f->svc);
}

static void lifecycle_immortal_namespaces(void **state)
{
    fixture *f = *state;
    assert_int_equal(kg_admission_plugin_namespace_lifecycle.handles,
                     KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE | KG_ADMISSION_DELETE);
    assert_null(kg_admission_plugin_namespace_lifecycle.validate); /* Admit only: mutating phase */
    const char *immortal[] = {"default", "kube-system", "kube-public"};
    for (int i = 0; i < 3; i++) {
        kg_admission_attributes at;
        tattrs(&at, &f->a, KG_ADMISSION_DELETE, "Namespace", "namespaces", immortal[i], immortal[i], NULL, NULL);
        kg_status *st = run1(&kg_admission_plugin_namespace_lifecycle, &at, &f->svc);
        char want[128];
        snprintf(want, sizeof want, "namespaces \"%s\" is forbidden: this namespace may not be deleted", immortal[i]);
        assert_status(st, 403, "Forbidden", want);
        /* updating them is fine */
        tattrs(&at, &f->a, KG_ADMISSION_UPDATE, "Namespace", "namespaces", immortal[i], immortal[i],
               tj(&f->a, "{\"metadata\":{}}"), tj(&f->a, "{\"metadata\":{}}"));
        assert_null(run1(&kg_admission_plugin_namespace_lifecycle, &at, &f->svc));
    }
    kg_admission_attributes at;
    tattrs(&at, &f->a, KG_ADMISSION_DELETE, "Namespace", "namespaces", "term", "term", NULL, NULL);
    assert_null(run1(&kg_admission_plugin_namespace_lifecycle, &at, &f->svc));
    /* creating a namespace never looks anything up */
    tattrs(&at, &f->a, KG_ADMISSION_CREATE, "Namespace", "namespaces", "brand-new", "brand-new",
           tj(&f->a, NS("brand-new", "Active")), NULL);
    assert_null(run1(&kg_admission_plugin_namespace_lifecycle, &at, &f->svc));
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).gets, 0);
}

static void lifecycle_create_in_missing_namespace(void **state)
{
    fixture *f = *state;
    kg_status *st = lc(f, KG_ADMISSION_CREATE, "ghost", tj(&f->a, POD_X));
    assert_status(st, 404, "NotFound", "namespaces \"ghost\" not found");
    assert_string_equal(st->details.name, "ghost");
    assert_string_equal(st->details.kind, "namespaces");
    /* cache, 50 ms wait, cache again, then the store */
    kg_admission_memcluster_stats s = kg_admission_memcluster_get_stats(f->m);
    assert_int_equal(s.gets, 2);
    assert_int_equal(s.live_gets, 1);
    assert_int_equal(f->svc.now_ns(f->svc.ctx), 1000000000LL + 50000000LL);
    /* UPDATE in a missing namespace is rejected too (no wait) */
    st = lc(f, KG_ADMISSION_UPDATE, "ghost", tj(&f->a, POD_X));
    assert_status(st, 404, "NotFound", "namespaces \"ghost\" not found");
    assert_int_equal(f->svc.now_ns(f->svc.ctx), 1000000000LL + 50000000LL);
    /* DELETE is always allowed */
    assert_null(lc(f, KG_ADMISSION_DELETE, "ghost", NULL));
}

static void lifecycle_terminating_namespace(void **state)
{
    fixture *f = *state;
    kg_status *st = lc(f, KG_ADMISSION_CREATE, "term", tj(&f->a, POD_X));
    assert_status(st, 403, "Forbidden",
                  "pods \"x\" is forbidden: unable to create new content in namespace term because it is being "
                  "terminated");
    assert_int_equal(st->details.ncauses, 1);
    assert_string_equal(st->details.causes[0].reason, "NamespaceTerminating");
    assert_string_equal(st->details.causes[0].message, "namespace term is being terminated");
    assert_string_equal(st->details.causes[0].field, "metadata.namespace");
    /* the rendered Status carries the cause */
    kg_buf b = KG_BUF_INIT;
    kg_status_write(&b, st);
    assert_non_null(strstr(kg_buf_cstr(&b), "\"causes\":[{\"reason\":\"NamespaceTerminating\",\"message\":\"namespace "
                                            "term is being terminated\",\"field\":\"metadata.namespace\"}]"));
    kg_buf_free(&b);
    /* update and delete of existing objects stay possible while the namespace terminates */
    assert_null(lc(f, KG_ADMISSION_UPDATE, "term", tj(&f->a, POD_X)));
    assert_null(lc(f, KG_ADMISSION_DELETE, "term", NULL));
    /* subresource creates are denied as well (pods/eviction) */
    kg_admission_attributes at;
    tattrs(&at, &f->a, KG_ADMISSION_CREATE, "Eviction", "pods", "term", "x",
           tj(&f->a, "{\"metadata\":{\"name\":\"x\"}}"), NULL);
    at.kind.group = "policy";
    at.subresource = "eviction";
    assert_non_null(run1(&kg_admission_plugin_namespace_lifecycle, &at, &f->svc));
}

static void lifecycle_allowed_cases(void **state)
{
    fixture *f = *state;
    assert_null(lc(f, KG_ADMISSION_CREATE, "default", tj(&f->a, POD_X)));
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).live_gets, 0);
    /* namespace not yet in the cache but in the store */
    assert_null(lc(f, KG_ADMISSION_CREATE, "lagging", tj(&f->a, POD_X)));
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).live_gets, 1);
    /* cluster-scoped objects never look anything up */
    kg_admission_attributes at;
    tattrs(&at, &f->a, KG_ADMISSION_CREATE, "ClusterRole", "clusterroles", "", "r", tj(&f->a, "{\"metadata\":{}}"),
           NULL);
    at.kind.group = at.resource.group = "rbac.authorization.k8s.io";
    uint64_t gets = kg_admission_memcluster_get_stats(f->m).gets;
    assert_null(run1(&kg_admission_plugin_namespace_lifecycle, &at, &f->svc));
    /* access reviews must not reveal whether a namespace exists */
    tattrs(&at, &f->a, KG_ADMISSION_CREATE, "LocalSubjectAccessReview", "localsubjectaccessreviews", "ghost", "",
           tj(&f->a, "{\"metadata\":{}}"), NULL);
    at.kind.group = at.resource.group = "authorization.k8s.io";
    assert_null(run1(&kg_admission_plugin_namespace_lifecycle, &at, &f->svc));
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).gets, gets);
}

static void lifecycle_errors(void **state)
{
    fixture *f = *state;
    kg_admission_memcluster_set_ready(f->m, "namespaces", false);
    kg_status *st = lc(f, KG_ADMISSION_CREATE, "default", tj(&f->a, POD_X));
    assert_status(st, 403, "Forbidden", "pods \"x\" is forbidden: not yet ready to handle request");
    /* waited 10 s (100 polls of 100 ms) on the fake clock */
    assert_int_equal(f->svc.now_ns(f->svc.ctx), 1000000000LL + 10000000000LL);
    kg_admission_memcluster_set_ready(f->m, "namespaces", true);
    kg_faulty_fail_reads(f->fs, "namespaces", 0, KG_EIO);
    st = lc(f, KG_ADMISSION_CREATE, "default", tj(&f->a, POD_X));
    assert_status(st, 500, "InternalError",
                  "Internal error occurred: injected read failure for namespaces \"default\"");
    kg_faulty_fail_reads(f->fs, "namespaces", 0, KG_OK);
    kg_faulty_fail_reads(f->fs, "namespaces", 1, KG_ETIMEOUT);
    st = lc(f, KG_ADMISSION_CREATE, "ghost", tj(&f->a, POD_X));
    assert_status(st, 500, "InternalError", "Internal error occurred: injected read failure for namespaces \"ghost\"");
}

static void lifecycle_is_idempotent(void **state)
{
    fixture *f = *state;
    kg_json *obj = tj(&f->a, POD_X);
    kg_json *orig = kg_json_clone(&f->a, obj);
    assert_null(lc(f, KG_ADMISSION_CREATE, "default", obj));
    assert_null(lc(f, KG_ADMISSION_CREATE, "default", obj));
    assert_true(kg_json_equal(obj, orig));
}

/* A services view whose cache and store disagree: the cache still says Active, the store says Terminating. */
typedef struct stale_view {
    const char *cached_phase, *live_phase;
    int live_gets;
    int64_t now;
} stale_view;

static kg_json *stale_get(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name,
                          unsigned flags, kg_error *err)
{
    stale_view *v = ctx;
    if (flags & KG_ADMISSION_GET_LIVE)
        v->live_gets++;
    const char *phase = (flags & KG_ADMISSION_GET_LIVE) ? v->live_phase : v->cached_phase;
    return tj(a, kg_arena_sprintf(a, "{\"metadata\":{\"name\":\"%s\"},\"status\":{\"phase\":\"%s\"}}", name, phase));
}
static int64_t stale_now(void *ctx)
{
    return ((stale_view *)ctx)->now;
}

static void lifecycle_force_live_lookup_after_delete(void **state)
{
    stale_view v = {"Active", "Terminating", 0, 5000000000LL};
    kg_admission_services svc = {.ctx = &v, .get = stale_get, .now_ns = stale_now};
    const kg_admission_plugin *ps[] = {&kg_admission_plugin_namespace_lifecycle};
    kg_error e = {0};
    kg_admission_chain *c = kg_admission_chain_new_from(ps, 1, NULL, &svc, NULL, &e);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    /* before any delete the cache is trusted */
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "doomed", "x", tj(&a, POD_X), NULL);
    assert_null(kg_admission_chain_run(c, &at));
    assert_int_equal(v.live_gets, 0);
    /* the namespace is deleted through this server */
    tattrs(&at, &a, KG_ADMISSION_DELETE, "Namespace", "namespaces", "doomed", "doomed", NULL, NULL);
    assert_null(kg_admission_chain_run(c, &at));
    /* within 30 s a create sees past the stale cache */
    v.now += 29LL * 1000000000LL;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "doomed", "x", tj(&a, POD_X), NULL);
    assert_status(kg_admission_chain_run(c, &at), 403, "Forbidden",
                  "pods \"x\" is forbidden: unable to create new content in namespace doomed because it is being "
                  "terminated");
    assert_int_equal(v.live_gets, 1);
    /* other namespaces are unaffected */
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "other", "x", tj(&a, POD_X), NULL);
    assert_null(kg_admission_chain_run(c, &at));
    assert_int_equal(v.live_gets, 1);
    /* a cached Terminating phase needs no live lookup */
    v.cached_phase = "Terminating";
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "doomed", "x", tj(&a, POD_X), NULL);
    assert_non_null(kg_admission_chain_run(c, &at));
    assert_int_equal(v.live_gets, 1);
    v.cached_phase = "Active";
    /* after the 30 s window the cache is trusted again */
    v.now += 2LL * 1000000000LL;
    assert_null(kg_admission_chain_run(c, &at));
    assert_int_equal(v.live_gets, 1);
    kg_arena_free(&a);
    kg_admission_chain_free(c);
}

/* The namespace shows up in the cache while NamespaceLifecycle waits its 50 ms: no live lookup is needed. */
static kg_admission_memcluster *g_ms;
static void appear_on_sleep(void *ctx, int64_t ns)
{
    tput(g_ms, "namespaces", NS("late", "Active"), 0);
}

static void lifecycle_waits_for_cache_on_create(void **state)
{
    fixture *f = *state;
    g_ms = f->m;
    kg_admission_services svc = f->svc;
    svc.sleep_ns = appear_on_sleep;
    kg_admission_attributes at;
    tattrs(&at, &f->a, KG_ADMISSION_CREATE, "Pod", "pods", "late", "x", tj(&f->a, POD_X), NULL);
    assert_null(run1(&kg_admission_plugin_namespace_lifecycle, &at, &svc));
    kg_admission_memcluster_stats s = kg_admission_memcluster_get_stats(f->m);
    assert_int_equal(s.gets, 2);
    assert_int_equal(s.live_gets, 0);
}

/* ---- NamespaceExists ---- */

static kg_status *ex(fixture *f, kg_admission_op op, const char *kind, const char *resource, const char *ns)
{
    kg_admission_attributes at;
    tattrs(&at, &f->a, op, kind, resource, ns, "x", op == KG_ADMISSION_DELETE ? NULL : tj(&f->a, POD_X),
           op == KG_ADMISSION_CREATE ? NULL : tj(&f->a, POD_X));
    return run1(&kg_admission_plugin_namespace_exists, &at, &f->svc);
}

static void exists_scenarios(void **state)
{
    fixture *f = *state;
    assert_int_equal(kg_admission_plugin_namespace_exists.handles,
                     KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE | KG_ADMISSION_DELETE);
    assert_null(kg_admission_plugin_namespace_exists.admit);
    assert_null(ex(f, KG_ADMISSION_CREATE, "Pod", "pods", "default"));
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).live_gets, 0);
    /* only in storage: allowed through the live lookup */
    assert_null(ex(f, KG_ADMISSION_UPDATE, "Pod", "pods", "lagging"));
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).live_gets, 1);
    /* a terminating namespace exists */
    assert_null(ex(f, KG_ADMISSION_CREATE, "Pod", "pods", "term"));
    kg_admission_op ops[] = {KG_ADMISSION_CREATE, KG_ADMISSION_UPDATE, KG_ADMISSION_DELETE};
    for (int i = 0; i < 3; i++)
        assert_status(ex(f, ops[i], "Pod", "pods", "ghost"), 404, "NotFound", "namespaces \"ghost\" not found");
    /* the Namespace kind itself and cluster-scoped objects are ignored */
    assert_null(ex(f, KG_ADMISSION_CREATE, "Namespace", "namespaces", "ghost"));
    assert_null(ex(f, KG_ADMISSION_CREATE, "Node", "nodes", ""));
    /* CONNECT is not handled */
    assert_null(ex(f, KG_ADMISSION_CONNECT, "PodExecOptions", "pods", "ghost"));
    /* errors other than not-found are internal errors */
    kg_faulty_fail_reads(f->fs, "namespaces", 0, KG_EIO);
    assert_status(ex(f, KG_ADMISSION_CREATE, "Pod", "pods", "default"), 500, "InternalError",
                  "Internal error occurred: injected read failure for namespaces \"default\"");
    kg_faulty_fail_reads(f->fs, "namespaces", 0, KG_OK);
    kg_admission_memcluster_set_ready(f->m, "namespaces", false);
    assert_status(ex(f, KG_ADMISSION_CREATE, "Pod", "pods", "default"), 403, "Forbidden",
                  "pods \"x\" is forbidden: not yet ready to handle request");
}

/* ---- NamespaceAutoProvision ---- */

static kg_status *ap(fixture *f, kg_admission_op op, const char *kind, const char *resource, const char *ns,
                     bool dry_run, kg_json *obj)
{
    kg_admission_attributes at;
    tattrs(&at, &f->a, op, kind, resource, ns, "x", obj, NULL);
    at.dry_run = dry_run;
    return run1(&kg_admission_plugin_namespace_autoprovision, &at, &f->svc);
}

static bool ns_exists(fixture *f, const char *name)
{
    kg_error e = {0};
    return f->svc.get(f->svc.ctx, &f->a, "namespaces", "", name, 0, &e) != NULL;
}

static void autoprovision_scenarios(void **state)
{
    fixture *f = *state;
    assert_int_equal(kg_admission_plugin_namespace_autoprovision.handles, KG_ADMISSION_CREATE);
    assert_null(kg_admission_plugin_namespace_autoprovision.validate);
    /* create in a missing namespace: the namespace is created, the object admitted unchanged */
    kg_json *pod = tj(&f->a, POD_X), *orig = kg_json_clone(&f->a, pod);
    assert_null(ap(f, KG_ADMISSION_CREATE, "Pod", "pods", "fresh", false, pod));
    assert_true(ns_exists(f, "fresh"));
    assert_true(kg_json_equal(pod, orig));
    kg_error e = {0};
    kg_json *ns = f->svc.get(f->svc.ctx, &f->a, "namespaces", "", "fresh", 0, &e);
    assert_string_equal(kg_json_get_str(ns, "kind"), "Namespace");
    assert_string_equal(kg_json_path_str(ns, "metadata.name"), "fresh");
    assert_null(kg_json_path_str(ns, "metadata.namespace"));
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).creates, 1);
    /* idempotent: running again (reinvocation) creates nothing more */
    assert_null(ap(f, KG_ADMISSION_CREATE, "Pod", "pods", "fresh", false, pod));
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).creates, 1);
    assert_true(kg_json_equal(pod, orig));
    /* existing namespace: no create call */
    assert_null(ap(f, KG_ADMISSION_CREATE, "Pod", "pods", "default", false, tj(&f->a, POD_X)));
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).creates, 1);
    /* cache miss but the store has it: AlreadyExists is fine */
    assert_null(ap(f, KG_ADMISSION_CREATE, "Pod", "pods", "lagging", false, tj(&f->a, POD_X)));
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).creates, 2);
    /* dry-run never creates */
    assert_null(ap(f, KG_ADMISSION_CREATE, "Pod", "pods", "dry", true, tj(&f->a, POD_X)));
    assert_false(ns_exists(f, "dry"));
    /* namespaces themselves and cluster-scoped objects are ignored */
    assert_null(ap(f, KG_ADMISSION_CREATE, "Namespace", "namespaces", "nsobj", false, tj(&f->a, NS("nsobj", ""))));
    assert_false(ns_exists(f, "nsobj"));
    assert_null(ap(f, KG_ADMISSION_CREATE, "Node", "nodes", "", false, tj(&f->a, "{\"metadata\":{}}")));
    /* UPDATE is not handled: nothing created */
    assert_null(ap(f, KG_ADMISSION_UPDATE, "Pod", "pods", "upd", false, tj(&f->a, POD_X)));
    assert_false(ns_exists(f, "upd"));
    /* a failing create rejects the request */
    kg_faulty_fail_writes(f->fs, 1, KG_EIO);
    assert_status(ap(f, KG_ADMISSION_CREATE, "Pod", "pods", "broken", false, tj(&f->a, POD_X)), 403, "Forbidden",
                  "pods \"x\" is forbidden: injected write failure");
    assert_false(ns_exists(f, "broken"));
    kg_faulty_fail_writes(f->fs, 1, KG_EFORBIDDEN);
    assert_status(ap(f, KG_ADMISSION_CREATE, "Pod", "pods", "broken", false, tj(&f->a, POD_X)), 403, "Forbidden",
                  "injected write failure");
    /* a failing lookup rejects too */
    kg_faulty_fail_reads(f->fs, "namespaces", 0, KG_EIO);
    assert_status(ap(f, KG_ADMISSION_CREATE, "Pod", "pods", "broken", false, tj(&f->a, POD_X)), 403, "Forbidden",
                  "pods \"x\" is forbidden: injected read failure for namespaces \"broken\"");
}

static void autoprovision_then_lifecycle_in_one_chain(void **state)
{
    fixture *f = *state;
    /* flag order reversed on purpose: AutoProvision still runs before Lifecycle */
    /* ServiceAccount is off: an auto-provisioned namespace has no default service account in this fixture */
    kg_admission_options o = {"NamespaceAutoProvision", "ServiceAccount", NULL, NULL};
    kg_error e = {0};
    kg_admission_chain *c = kg_admission_chain_new(&o, &f->svc, NULL, &e);
    assert_non_null(c);
    assert_string_equal(kg_admission_chain_name(c, 0), "NamespaceAutoProvision");
    assert_string_equal(kg_admission_chain_name(c, 1), "NamespaceLifecycle");
    kg_admission_attributes at;
    tattrs(&at, &f->a, KG_ADMISSION_CREATE, "Pod", "pods", "auto", "x", tj(&f->a, POD_X), NULL);
    assert_null(kg_admission_chain_run(c, &at));
    assert_true(ns_exists(f, "auto"));
    /* dry-run: nothing is created, so Lifecycle rejects the missing namespace */
    tattrs(&at, &f->a, KG_ADMISSION_CREATE, "Pod", "pods", "auto-dry", "x", tj(&f->a, POD_X), NULL);
    at.dry_run = true;
    assert_status(kg_admission_chain_run(c, &at), 404, "NotFound", "namespaces \"auto-dry\" not found");
    kg_admission_chain_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(op_names),
        cmocka_unit_test(annotations_first_write_wins),
        cmocka_unit_test(always_admit_admits_everything),
        cmocka_unit_test(always_deny_denies_everything),
        cmocka_unit_test(forbidden_naming_rules),
        cmocka_unit_test_setup_teardown(lifecycle_immortal_namespaces, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(lifecycle_create_in_missing_namespace, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(lifecycle_terminating_namespace, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(lifecycle_allowed_cases, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(lifecycle_errors, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(lifecycle_is_idempotent, fx_setup, fx_teardown),
        cmocka_unit_test(lifecycle_force_live_lookup_after_delete),
        cmocka_unit_test_setup_teardown(lifecycle_waits_for_cache_on_create, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(exists_scenarios, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(autoprovision_scenarios, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(autoprovision_then_lifecycle_in_one_chain, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
