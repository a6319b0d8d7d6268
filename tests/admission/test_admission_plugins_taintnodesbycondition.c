/* TaintNodesByCondition: not-ready taint added once (MatchTaint by key+effect), idempotence. */
#include "plugin_testutil.h"


#define P kg_admission_plugin_taint_nodes_by_condition
#define NR "{\"key\":\"node.kubernetes.io/not-ready\",\"effect\":\"NoSchedule\"}"

static kg_json *taints_after(kg_arena *a, const char *spec)
{
    kg_admission_attributes at;
    tattrs(&at, a, KG_ADMISSION_CREATE, "Node", "nodes", "", "n1",
           tj(a, kg_arena_sprintf(a, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"}%s%s}",
                                  spec ? ",\"spec\":" : "", spec ? spec : "")),
           NULL);
    admit_idempotent(&P, NULL, NULL, &at);
    return kg_json_path(at.object, "spec.taints");
}

static void handles(void **state)
{
    assert_int_equal(P.handles, KG_ADMISSION_CREATE);
    assert_true(kg_admission_registry_find("TaintNodesByCondition")->default_on);
    assert_ptr_equal(kg_admission_registry_find("TaintNodesByCondition")->impl, &P);
}

static void taint_added(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_json(&a, taints_after(&a, NULL), "[" NR "]");
    assert_json(&a, taints_after(&a, "{\"taints\":[{\"key\":\"a\",\"value\":\"b\",\"effect\":\"NoExecute\"}]}"),
                "[{\"key\":\"a\",\"value\":\"b\",\"effect\":\"NoExecute\"}," NR "]");
    /* same key, other effect: not a match */
    assert_json(&a,
                taints_after(&a, "{\"taints\":[{\"key\":\"node.kubernetes.io/not-ready\",\"effect\":\"NoExecute\"}]}"),
                "[{\"key\":\"node.kubernetes.io/not-ready\",\"effect\":\"NoExecute\"}," NR "]");
    kg_arena_free(&a);
}

static void existing_taint_not_duplicated(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    /* MatchTaint ignores the value */
    assert_json(&a,
                taints_after(&a, "{\"taints\":[{\"key\":\"node.kubernetes.io/not-ready\",\"value\":\"x\","
                                 "\"effect\":\"NoSchedule\"}]}"),
                "[{\"key\":\"node.kubernetes.io/not-ready\",\"value\":\"x\",\"effect\":\"NoSchedule\"}]");
    kg_arena_free(&a);
}

static void ignored_and_wrong_type(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Node", "nodes", "", "n1", tj(&a, "{\"kind\":\"Node\",\"spec\":{}}"), NULL);
    at.subresource = "status";
    assert_null(admit1(&P, NULL, NULL, &at));
    assert_json(&a, at.object, "{\"kind\":\"Node\",\"spec\":{}}");
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Node", "nodes", "", "n1", tj(&a, "{\"kind\":\"Pod\"}"), NULL);
    assert_status(admit1(&P, NULL, NULL, &at), 403, "Forbidden",
                  "nodes \"n1\" is forbidden: unexpected type *core.Pod");
    /* UPDATE is not handled: the chain skips the plugin */
    tattrs(&at, &a, KG_ADMISSION_UPDATE, "Node", "nodes", "", "n1", tj(&a, "{\"kind\":\"Node\",\"spec\":{}}"),
           tj(&a, "{\"kind\":\"Node\"}"));
    assert_null(admit1(&P, NULL, NULL, &at));
    assert_json(&a, at.object, "{\"kind\":\"Node\",\"spec\":{}}");
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles),
        cmocka_unit_test(taint_added),
        cmocka_unit_test(existing_taint_not_duplicated),
        cmocka_unit_test(ignored_and_wrong_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
