/* PodNodeSelector: namespace annotation / cluster default merge, conflicts, whitelist, errors, configuration checks,
 * idempotence. */
#include "plugin_testutil.h"


#define P kg_admission_plugin_pod_node_selector
#define NS(name, anns) "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" name "\"" anns "}}"
#define ANN(v) ",\"annotations\":{\"scheduler.alpha.kubernetes.io/node-selector\":\"" v "\"}"
#define POD(sel)                                                                                                       \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"nodeSelector\":" sel "}}"
#define CONFLICT "pods \"p\" is forbidden: pod node label selector conflicts with its namespace node label selector"
#define WHITELIST "pods \"p\" is forbidden: pod node label selector labels conflict with its namespace whitelist"

static kg_admission_memcluster *g_m;

static int setup(void **state)
{
    g_m = kg_admission_memcluster_new();
    tput(g_m, "namespaces", NS("infra", ANN("infra=false")), 0);
    tput(g_m, "namespaces", NS("empty", ANN("")), 0);
    tput(g_m, "namespaces", NS("plain", ""), 0);
    tput(g_m, "namespaces", NS("multi", ANN("a=1, b = 2")), 0);
    tput(g_m, "namespaces", NS("bad", ANN("a=1=2")), 0);
    tput(g_m, "namespaces", NS("late", ANN("late=yes")), KG_MEMCLUSTER_STORE_ONLY);
    return 0;
}

static int teardown(void **state)
{
    kg_admission_memcluster_free(g_m);
    return 0;
}

static const kg_json *cfg(kg_arena *a, const char *json)
{
    return json ? tj(a, json) : NULL;
}

static kg_status *run(kg_arena *a, const char *config, const char *ns, const char *pod, kg_json **out)
{
    kg_admission_services svc = kg_admission_memcluster_services(g_m, NULL);
    kg_admission_attributes at;
    tattrs(&at, a, KG_ADMISSION_CREATE, "Pod", "pods", ns, "p", tj(a, pod), NULL);
    kg_status *st = admit1(&P, cfg(a, config), &svc, &at);
    if (!st) {
        kg_json *once = kg_json_clone(a, at.object);
        assert_null(admit1(&P, cfg(a, config), &svc, &at));
        assert_true(kg_json_equal(once, at.object));
        assert_null(validate1(&P, cfg(a, config), &svc, &at));
    }
    if (out)
        *out = kg_json_path(at.object, "spec.nodeSelector");
    return st;
}

static void handles(void **state)
{
    assert_int_equal(P.handles, KG_ADMISSION_CREATE);
    assert_false(kg_admission_registry_find("PodNodeSelector")->default_on);
    assert_ptr_equal(kg_admission_registry_find("PodNodeSelector")->impl, &P);
}

static void namespace_selector_merged(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *sel;
    assert_null(run(&a, NULL, "infra", POD("{}"), &sel));
    assert_json(&a, sel, "{\"infra\":\"false\"}");
    assert_null(run(&a, NULL, "infra", POD("{\"disk\":\"ssd\",\"infra\":\"false\"}"), &sel));
    assert_json(&a, sel, "{\"disk\":\"ssd\",\"infra\":\"false\"}");
    assert_null(run(&a, NULL, "multi", POD("{\"x\":\"y\"}"), &sel));
    assert_json(&a, sel, "{\"x\":\"y\",\"a\":\"1\",\"b\":\"2\"}");
    /* namespace only in the store: live lookup */
    assert_null(run(&a, NULL, "late", POD("{}"), &sel));
    assert_json(&a, sel, "{\"late\":\"yes\"}");
    kg_arena_free(&a);
}

static void conflict_rejected(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_status(run(&a, NULL, "infra", POD("{\"infra\":\"true\"}"), NULL), 403, "Forbidden", CONFLICT);
    kg_admission_services svc = kg_admission_memcluster_services(g_m, NULL);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "infra", "p", tj(&a, POD("{\"infra\":\"true\"}")), NULL);
    assert_status(validate1(&P, NULL, &svc, &at), 403, "Forbidden", CONFLICT);
    kg_arena_free(&a);
}

static void cluster_default(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *c = "{\"podNodeSelectorPluginConfig\":{\"clusterDefaultNodeSelector\":\"env=prod\"}}";
    kg_json *sel;
    assert_null(run(&a, c, "plain", POD("{}"), &sel));
    assert_json(&a, sel, "{\"env\":\"prod\"}");
    /* an empty annotation is an empty selector: the cluster default does not apply */
    assert_null(run(&a, c, "empty", POD("{\"a\":\"b\"}"), &sel));
    assert_json(&a, sel, "{\"a\":\"b\"}");
    assert_status(run(&a, c, "plain", POD("{\"env\":\"dev\"}"), NULL), 403, "Forbidden", CONFLICT);
    /* no configuration and no annotation: nothing added */
    assert_null(run(&a, NULL, "plain", "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{}}", &sel));
    assert_null(sel);
    kg_arena_free(&a);
}

static void whitelist(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *c = "{\"podNodeSelectorPluginConfig\":{\"plain\":\"a=b,e=f\"}}";
    kg_json *sel;
    assert_status(run(&a, c, "plain", POD("{\"c\":\"d\"}"), NULL), 403, "Forbidden", WHITELIST);
    assert_status(run(&a, c, "plain", POD("{\"a\":\"x\"}"), NULL), 403, "Forbidden", WHITELIST);
    assert_null(run(&a, c, "plain", POD("{\"a\":\"b\"}"), &sel));
    assert_json(&a, sel, "{\"a\":\"b\"}");
    /* the whitelist of another namespace does not apply */
    assert_null(run(&a, c, "infra", POD("{\"c\":\"d\"}"), &sel));
    kg_arena_free(&a);
}

static void errors(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_status(run(&a, NULL, "bad", POD("{}"), NULL), 500, "", "invalid selector: [a 1 2]");
    assert_status(run(&a, NULL, "missing", POD("{}"), NULL), 500, "InternalError",
                  "Internal error occurred: namespace missing does not exist");
    kg_arena_free(&a);
}

static void bad_configuration_stops_start(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *bad[][2] = {
        {"{\"podNodeSelectorPluginConfig\":{\"ns1\":3}}",
         "podNodeSelectorPluginConfig.ns1: expected a string, got number"},
        {"{\"podNodeSelectorPluginConfig\":{\"clusterDefaultNodeSelector\":\"a=b=c\"}}",
         "podNodeSelectorPluginConfig.clusterDefaultNodeSelector: invalid selector: [a b c]"},
        {"{\"podNodeSelectorPluginConfig\":[]}", "podNodeSelectorPluginConfig: expected an object, got array"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const kg_admission_plugin *ps[] = {&P};
        const kg_json *cfgs[] = {tj(&a, bad[i][0])};
        kg_error e = {0};
        assert_null(kg_admission_chain_new_from(ps, 1, cfgs, NULL, NULL, &e));
        assert_string_equal(e.msg,
                            kg_arena_sprintf(&a, "couldn't init admission plugin \"PodNodeSelector\": %s", bad[i][1]));
    }
    kg_arena_free(&a);
}

static void through_the_config_file(void **state)
{
    /* legacy top-level file and AdmissionConfiguration entry both reach the plugin */
    char dir[] = "/tmp/kg_pns_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/adm.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"apiVersion\":\"apiserver.config.k8s.io/v1\",\"kind\":\"AdmissionConfiguration\",\"plugins\":[{\"name\":"
          "\"PodNodeSelector\",\"configuration\":{\"podNodeSelectorPluginConfig\":{\"clusterDefaultNodeSelector\":"
          "\"bad selector\"}}}]}",
          f);
    fclose(f);
    kg_admission_options o = {"PodNodeSelector", NULL, NULL, path};
    kg_error e = {0};
    assert_null(kg_admission_chain_new(&o, NULL, NULL, &e));
    /* the message names the plugin, the configuration file and the field */
    char want[1024];
    snprintf(want, sizeof want,
             "couldn't init admission plugin \"PodNodeSelector\" (configured in \"%s\"): "
             "podNodeSelectorPluginConfig.clusterDefaultNodeSelector: invalid selector: [bad selector]",
             path);
    assert_string_equal(e.msg, want);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles),
        cmocka_unit_test(namespace_selector_merged),
        cmocka_unit_test(conflict_rejected),
        cmocka_unit_test(cluster_default),
        cmocka_unit_test(whitelist),
        cmocka_unit_test(errors),
        cmocka_unit_test(bad_configuration_stops_start),
        cmocka_unit_test(through_the_config_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
