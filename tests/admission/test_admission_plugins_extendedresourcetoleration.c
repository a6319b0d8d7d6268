/* ExtendedResourceToleration: extended resource detection, sorted tolerations, add-or-update, idempotence. */
#include "plugin_testutil.h"


#define P kg_admission_plugin_extended_resource_toleration

static kg_admission_attributes pod(kg_arena *a, kg_admission_op op, const char *spec)
{
    kg_admission_attributes at;
    tattrs(&at, a, op, "Pod", "pods", "ns", "p",
           tj(a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"}}"), NULL);
    kg_json_set(a, at.object, "spec", tj(a, spec));
    return at;
}

#define TOL(k) "{\"key\":\"" k "\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}"

static void handles(void **state)
{
    assert_int_equal(P.handles, KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE);
    assert_ptr_equal(kg_admission_registry_find("ExtendedResourceToleration")->impl, &P);
}

static void one_resource_gets_toleration(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at = pod(&a, KG_ADMISSION_CREATE,
                                     "{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\","
                                     "\"example.com/device\":\"1\"}}}]}");
    admit_idempotent(&P, NULL, NULL, &at);
    assert_json(&a, kg_json_path(at.object, "spec.tolerations"), "[" TOL("example.com/device") "]");
    kg_arena_free(&a);
}

static void several_sorted_init_and_limits(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at =
        pod(&a, KG_ADMISSION_UPDATE,
            "{\"tolerations\":[{\"key\":\"foo\",\"operator\":\"Exists\"}],"
            "\"initContainers\":[{\"name\":\"i\",\"resources\":{\"requests\":{\"zz.io/b\":\"1\"}}}],"
            "\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"aa.io/x\":\"2\"}}},"
            "{\"name\":\"d\",\"resources\":{\"requests\":{\"zz.io/b\":\"1\",\"mm.io/q\":\"1\"}}}]}");
    admit_idempotent(&P, NULL, NULL, &at);
    assert_json(&a, kg_json_path(at.object, "spec.tolerations"),
                "[{\"key\":\"foo\",\"operator\":\"Exists\"}," TOL("aa.io/x") "," TOL("mm.io/q") "," TOL("zz.io/b") "]");
    kg_arena_free(&a);
}

static void existing_identical_unchanged_different_replaced(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at =
        pod(&a, KG_ADMISSION_CREATE,
            "{\"tolerations\":[" TOL(
                "example.com/a") ",{\"key\":\"example.com/b\",\"operator\":\"Exists\","
                                 "\"effect\":\"NoSchedule\",\"tolerationSeconds\":5},{\"key\":\"x\",\"operator\":"
                                 "\"Exists\"}],"
                                 "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"example.com/a\":\"1\","
                                 "\"example.com/b\":\"1\"}}}]}");
    admit_idempotent(&P, NULL, NULL, &at);
    assert_json(&a, kg_json_path(at.object, "spec.tolerations"),
                "[" TOL("example.com/a") "," TOL("example.com/b") ",{\"key\":\"x\",\"operator\":\"Exists\"}]");
    kg_arena_free(&a);
}

/* AddOrUpdateTolerationInPod per name: an identical match anywhere means no change for that name at all; otherwise
 * every matching toleration is replaced in place */
static void identical_match_anywhere_leaves_name_alone(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *withsecs = "{\"key\":\"example.com/a\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\","
                           "\"tolerationSeconds\":7}";
    kg_admission_attributes at = pod(
        &a, KG_ADMISSION_CREATE,
        kg_arena_sprintf(
            &a,
            "{\"tolerations\":[%s," TOL(
                "example.com/a") ",%s,%s],\"containers\":[{\"name\":\"c\","
                                 "\"resources\":{\"requests\":{\"example.com/a\":\"1\",\"example.com/b\":\"1\"}}}]}",
            withsecs, withsecs,
            "{\"key\":\"example.com/b\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\","
            "\"tolerationSeconds\":1}"));
    admit_idempotent(&P, NULL, NULL, &at);
    assert_json(&a, kg_json_path(at.object, "spec.tolerations"),
                kg_arena_sprintf(&a, "[%s," TOL("example.com/a") ",%s," TOL("example.com/b") "]", withsecs, withsecs));
    /* two differing matches for one name: both replaced */
    at = pod(&a, KG_ADMISSION_CREATE,
             kg_arena_sprintf(&a,
                              "{\"tolerations\":[%s,{\"key\":\"x\",\"operator\":\"Exists\"},%s],\"containers\":[{"
                              "\"name\":\"c\",\"resources\":{\"requests\":{\"example.com/a\":\"1\"}}}]}",
                              withsecs, withsecs));
    admit_idempotent(&P, NULL, NULL, &at);
    assert_json(&a, kg_json_path(at.object, "spec.tolerations"),
                "[" TOL("example.com/a") ",{\"key\":\"x\",\"operator\":\"Exists\"}," TOL("example.com/a") "]");
    kg_arena_free(&a);
}

static void native_resources_ignored(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *spec = "{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\","
                       "\"hugepages-2Mi\":\"2Mi\",\"ephemeral-storage\":\"1Gi\",\"kubernetes.io/foo\":\"1\","
                       "\"nvidia.kubernetes.io/gpu\":\"1\",\"requests.example.com/x\":\"1\"}}}]}";
    kg_admission_attributes at = pod(&a, KG_ADMISSION_CREATE, spec);
    admit_idempotent(&P, NULL, NULL, &at);
    assert_json(&a, kg_json_get(at.object, "spec"), spec);
    kg_arena_free(&a);
}

static void non_pod_is_bad_request(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "p", tj(&a, "{\"kind\":\"Node\"}"), NULL);
    assert_status(admit1(&P, NULL, NULL, &at), 400, "BadRequest", "expected *core.Pod but got *core.Node");
    at.subresource = "status";
    assert_null(admit1(&P, NULL, NULL, &at));
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles),
        cmocka_unit_test(one_resource_gets_toleration),
        cmocka_unit_test(several_sorted_init_and_limits),
        cmocka_unit_test(existing_identical_unchanged_different_replaced),
        cmocka_unit_test(identical_match_anywhere_leaves_name_alone),
        cmocka_unit_test(native_resources_ignored),
        cmocka_unit_test(non_pod_is_bad_request),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
