/* PodTolerationRestriction: namespace/cluster defaults, memory-pressure toleration, whitelists (namespace/cluster
 * scope), configuration checks, idempotence. */
#include "plugin_testutil.h"


#define P kg_admission_plugin_pod_toleration_restriction
#define DEF_ANN "scheduler.alpha.kubernetes.io/defaultTolerations"
#define WL_ANN "scheduler.alpha.kubernetes.io/tolerationsWhitelist"
#define MP "{\"key\":\"node.kubernetes.io/memory-pressure\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}"
#define T(k, v, e) "{\"key\":\"" k "\",\"operator\":\"Equal\",\"value\":\"" v "\",\"effect\":\"" e "\"}"
#define CFG(body)                                                                                                      \
    "{\"apiVersion\":\"podtolerationrestriction.admission.k8s.io/v1alpha1\",\"kind\":\"Configuration\"" body "}"

static kg_admission_memcluster *g_m;

/* a namespace whose annotations are given as (key, JSON-text) pairs */
static void put_ns(const char *name, const char *def, const char *wl)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *ns = tj(&a, "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"annotations\":{}}}");
    kg_json_set(&a, kg_json_get(ns, "metadata"), "name", kg_json_new_str(&a, name));
    kg_json *anns = kg_json_path(ns, "metadata.annotations");
    if (def)
        kg_json_set(&a, anns, DEF_ANN, kg_json_new_str(&a, def));
    if (wl)
        kg_json_set(&a, anns, WL_ANN, kg_json_new_str(&a, wl));
    kg_error e = {0};
    assert_true(kg_admission_memcluster_put(g_m, "namespaces", ns, 0, &e));
    kg_arena_free(&a);
}

static int setup(void **state)
{
    g_m = kg_admission_memcluster_new();
    put_ns("plain", NULL, NULL);
    put_ns("nsdef", "[" T("ns", "v", "NoSchedule") "]", NULL);
    put_ns("emptydef", "", "");
    put_ns("wl", NULL, "[" T("ok", "v", "NoSchedule") ",{\"key\":\"any\",\"operator\":\"Exists\"}]");
    put_ns("badjson", "[{", NULL);
    put_ns("kv", "[" T("k", "v", "NoSchedule") "]", NULL);
    return 0;
}

static int teardown(void **state)
{
    kg_admission_memcluster_free(g_m);
    return 0;
}

#define BESTEFFORT "[{\"name\":\"c\",\"image\":\"i\"}]"
#define BURSTABLE "[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"100m\"}}}]"

static kg_status *run(kg_arena *a, const char *config, kg_admission_op op, const char *ns, const char *containers,
                      const char *tolerations, kg_json **out)
{
    kg_admission_services svc = kg_admission_memcluster_services(g_m, NULL);
    kg_admission_attributes at;
    kg_json *pod =
        tj(a, kg_arena_sprintf(a,
                               "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},"
                               "\"spec\":{\"containers\":%s%s%s}}",
                               containers, tolerations ? ",\"tolerations\":" : "", tolerations ? tolerations : ""));
    tattrs(&at, a, op, "Pod", "pods", ns, "p", pod, op == KG_ADMISSION_UPDATE ? kg_json_clone(a, pod) : NULL);
    const kg_json *cfg = config ? tj(a, config) : NULL;
    kg_status *st = admit1(&P, cfg, &svc, &at);
    if (!st) {
        kg_json *once = kg_json_clone(a, at.object);
        assert_null(admit1(&P, cfg, &svc, &at));
        assert_true(kg_json_equal(once, at.object));
        assert_null(validate1(&P, cfg, &svc, &at));
    }
    if (out)
        *out = kg_json_path(at.object, "spec.tolerations");
    return st;
}

static void handles(void **state)
{
    assert_int_equal(P.handles, KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE);
    assert_ptr_equal(kg_admission_registry_find("PodTolerationRestriction")->impl, &P);
}

static void defaults_merged(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *cluster = CFG(",\"default\":[" T("cluster", "v", "NoSchedule") "]");
    kg_json *t;
    /* cluster default with an empty pod */
    assert_null(run(&a, cluster, KG_ADMISSION_CREATE, "plain", BESTEFFORT, NULL, &t));
    assert_json(&a, t, "[" T("cluster", "v", "NoSchedule") "]");
    /* namespace default overrides the cluster default */
    assert_null(run(&a, cluster, KG_ADMISSION_CREATE, "nsdef", BESTEFFORT, NULL, &t));
    assert_json(&a, t, "[" T("ns", "v", "NoSchedule") "]");
    /* an empty annotation is an empty list: the cluster default does not apply */
    assert_null(run(&a, cluster, KG_ADMISSION_CREATE, "emptydef", BESTEFFORT, NULL, &t));
    assert_null(t);
    /* ns default k=v and pod k=v1: both kept */
    assert_null(run(&a, NULL, KG_ADMISSION_CREATE, "kv", BESTEFFORT, "[" T("k", "v1", "NoSchedule") "]", &t));
    assert_json(&a, t, "[" T("k", "v1", "NoSchedule") "," T("k", "v", "NoSchedule") "]");
    /* a pod toleration covering the default absorbs it */
    assert_null(run(&a, NULL, KG_ADMISSION_CREATE, "kv", BESTEFFORT, "[{\"key\":\"k\",\"operator\":\"Exists\"}]", &t));
    assert_json(&a, t, "[{\"key\":\"k\",\"operator\":\"Exists\"}]");
    kg_arena_free(&a);
}

static void memory_pressure_for_non_besteffort(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *t;
    assert_null(run(&a, NULL, KG_ADMISSION_CREATE, "nsdef", BURSTABLE, "[" T("pod", "v", "NoExecute") "]", &t));
    assert_json(&a, t, "[" T("pod", "v", "NoExecute") "," T("ns", "v", "NoSchedule") "," MP "]");
    /* limits count too; zero requests do not */
    assert_null(run(&a, NULL, KG_ADMISSION_CREATE, "plain",
                    "[{\"name\":\"c\",\"resources\":{\"limits\":{\"memory\":\"1Gi\"}}}]", NULL, &t));
    assert_json(&a, t, "[" MP "]");
    assert_null(run(&a, NULL, KG_ADMISSION_CREATE, "plain",
                    "[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"0\"}}}]", NULL, &t));
    assert_null(t);
    /* UPDATE: defaults are not re-applied, memory-pressure is */
    assert_null(run(&a, NULL, KG_ADMISSION_UPDATE, "nsdef", BURSTABLE, NULL, &t));
    assert_json(&a, t, "[" MP "]");
    assert_null(run(&a, NULL, KG_ADMISSION_UPDATE, "nsdef", BESTEFFORT, NULL, &t));
    assert_null(t);
    kg_arena_free(&a);
}

static void whitelists(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *t;
    assert_null(run(&a, NULL, KG_ADMISSION_CREATE, "wl", BESTEFFORT,
                    "[" T("ok", "v", "NoSchedule") "," T("any", "x", "NoExecute") "]", &t));
    assert_status(run(&a, NULL, KG_ADMISSION_CREATE, "wl", BESTEFFORT, "[" T("ok", "other", "NoSchedule") "]", NULL),
                  500, "",
                  "pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace "
                  "whitelist");
    const char *cluster = CFG(",\"whitelist\":[" T("c", "v", "NoSchedule") "]");
    assert_status(run(&a, cluster, KG_ADMISSION_CREATE, "plain", BESTEFFORT, "[" T("x", "v", "NoSchedule") "]", NULL),
                  500, "",
                  "pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster "
                  "whitelist");
    /* merged defaults are checked too: the namespace default is not in the cluster whitelist */
    assert_status(run(&a, cluster, KG_ADMISSION_CREATE, "nsdef", BESTEFFORT, NULL, NULL), 500, "",
                  "pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster "
                  "whitelist");
    /* an empty namespace whitelist overrides the cluster one and allows everything */
    assert_null(run(&a, cluster, KG_ADMISSION_CREATE, "emptydef", BESTEFFORT, "[" T("x", "v", "NoSchedule") "]", &t));
    /* UPDATE still enforces the whitelist */
    assert_status(run(&a, NULL, KG_ADMISSION_UPDATE, "wl", BESTEFFORT, "[" T("no", "v", "NoSchedule") "]", NULL), 500,
                  "",
                  "pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace "
                  "whitelist");
    kg_arena_free(&a);
}

static void namespace_errors(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_status(run(&a, NULL, KG_ADMISSION_CREATE, "missing", BESTEFFORT, NULL, NULL), 404, "NotFound",
                  "namespaces \"missing\" not found");
    kg_status *st = run(&a, NULL, KG_ADMISSION_CREATE, "badjson", BESTEFFORT, NULL, NULL);
    assert_non_null(st);
    assert_int_equal(kg_status_http_code(st), 500);
    assert_string_equal(st->reason, "");
    kg_arena_free(&a);
}

static void configuration_checked(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *bad[][2] = {
        {CFG(",\"default\":[{\"key\":\"\",\"operator\":\"Equal\",\"value\":\"v\"}]"),
         "invalid config: [podtolerationrestriction.default[0].operator: Invalid value: \"Equal\": operator must be "
         "Exists when `key` is empty, which means \"match all values and all keys\"]"},
        {CFG(",\"whitelist\":[{\"key\":\"k\",\"operator\":\"Foo\"},{\"key\":\"k\",\"operator\":\"Exists\","
             "\"effect\":\"Bad\"}]"),
         "invalid config: [podtolerationrestriction.whitelist[0].operator: Unsupported value: \"Foo\": supported "
         "values: \"Equal\", \"Exists\" podtolerationrestriction.whitelist[1].effect: Unsupported value: \"Bad\": "
         "supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"]"},
        {CFG(",\"defaults\":[]"), "strict decoding error: unknown field \"defaults\""},
        {CFG(",\"default\":[{\"key\":\"k\",\"operator\":\"Exists\",\"tolerationseconds\":5}]"),
         "strict decoding error: unknown field \"default[0].tolerationseconds\""},
        {CFG(",\"whitelist\":[{\"key\":5}]"), "whitelist[0].key: expected a string, got number"},
        {CFG(",\"default\":[{\"key\":\"k\",\"effect\":\"NoExecute\",\"tolerationSeconds\":\"5\"}]"),
         "default[0].tolerationSeconds: expected an integer, got string"},
        {CFG(",\"default\":[\"k=v\"]"), "default[0]: expected a toleration object, got string"},
        {"{\"apiVersion\":\"v9\",\"kind\":\"Configuration\"}",
         "apiVersion: unsupported value \"v9\" (want podtolerationrestriction.admission.k8s.io/v1alpha1 or "
         "podtolerationrestriction.admission.k8s.io/v1)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const kg_admission_plugin *ps[] = {&P};
        const kg_json *cfgs[] = {tj(&a, bad[i][0])};
        kg_error e = {0};
        assert_null(kg_admission_chain_new_from(ps, 1, cfgs, NULL, NULL, &e));
        assert_string_equal(
            e.msg, kg_arena_sprintf(&a, "couldn't init admission plugin \"PodTolerationRestriction\": %s", bad[i][1]));
    }
    /* /v1 is accepted as well */
    const kg_admission_plugin *ps[] = {&P};
    const kg_json *cfgs[] = {tj(&a, "{\"apiVersion\":\"podtolerationrestriction.admission.k8s.io/v1\",\"kind\":"
                                    "\"Configuration\",\"default\":[],\"whitelist\":null}")};
    kg_error e = {0};
    kg_admission_chain *c = kg_admission_chain_new_from(ps, 1, cfgs, NULL, NULL, &e);
    assert_non_null(c);
    kg_admission_chain_free(c);
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles),
        cmocka_unit_test(defaults_merged),
        cmocka_unit_test(memory_pressure_for_non_besteffort),
        cmocka_unit_test(whitelists),
        cmocka_unit_test(namespace_errors),
        cmocka_unit_test(configuration_checked),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
