/* DefaultTolerationSeconds: upstream admission_test.go scenarios, flag values, idempotence. */
#include "plugin_testutil.h"


#define P kg_admission_plugin_default_toleration_seconds
#define NR                                                                                                             \
    "{\"key\":\"node.kubernetes.io/"                                                                                   \
    "not-ready\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300}"
#define UN                                                                                                             \
    "{\"key\":\"node.kubernetes.io/"                                                                                   \
    "unreachable\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300}"

static kg_json *tolerations_after(kg_arena *a, const char *spec)
{
    kg_admission_attributes at;
    tattrs(&at, a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "p",
           tj(a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"}}"), NULL);
    kg_json_set(a, at.object, "spec", tj(a, spec));
    admit_idempotent(&P, NULL, NULL, &at);
    return kg_json_path(at.object, "spec.tolerations");
}

static void handles(void **state)
{
    assert_int_equal(P.handles, KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE);
    assert_null(P.validate);
    assert_ptr_equal(kg_admission_registry_find("DefaultTolerationSeconds")->impl, &P);
    assert_true(kg_admission_registry_find("DefaultTolerationSeconds")->default_on);
}

static void no_tolerations_gets_both(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_json(&a, tolerations_after(&a, "{}"), "[" NR "," UN "]");
    kg_arena_free(&a);
}

static void unrelated_toleration_kept_first(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *foo = "{\"key\":\"foo\",\"operator\":\"Equal\",\"value\":\"bar\",\"effect\":\"NoSchedule\"}";
    assert_json(&a, tolerations_after(&a, kg_arena_sprintf(&a, "{\"tolerations\":[%s]}", foo)),
                kg_arena_sprintf(&a, "[%s," NR "," UN "]", foo));
    kg_arena_free(&a);
}

static void existing_not_ready_only_unreachable_added(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *t = "{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
                    "\"tolerationSeconds\":700}";
    assert_json(&a, tolerations_after(&a, kg_arena_sprintf(&a, "{\"tolerations\":[%s]}", t)),
                kg_arena_sprintf(&a, "[%s," UN "]", t));
    kg_arena_free(&a);
}

static void unreachable_empty_effect_only_not_ready_added(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *t = "{\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\"}";
    assert_json(&a, tolerations_after(&a, kg_arena_sprintf(&a, "{\"tolerations\":[%s]}", t)),
                kg_arena_sprintf(&a, "[%s," NR "]", t));
    kg_arena_free(&a);
}

static void noschedule_does_not_count(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *t = "{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}";
    assert_json(&a, tolerations_after(&a, kg_arena_sprintf(&a, "{\"tolerations\":[%s]}", t)),
                kg_arena_sprintf(&a, "[%s," NR "," UN "]", t));
    kg_arena_free(&a);
}

static void wildcard_tolerates_everything(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_json(&a, tolerations_after(&a, "{\"tolerations\":[{\"operator\":\"Exists\"}]}"),
                "[{\"operator\":\"Exists\"}]");
    kg_arena_free(&a);
}

static void flags_reach_the_plugin(void **state)
{
    kg_admission_plugin_options o = {.default_not_ready_toleration_seconds = 60,
                                     .default_unreachable_toleration_seconds = 120};
    kg_admission_services svc = {.options = &o};
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "p",
           tj(&a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{}}"), NULL);
    admit_idempotent(&P, NULL, &svc, &at);
    assert_json(&a, kg_json_path(at.object, "spec.tolerations"),
                "[{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
                "\"tolerationSeconds\":60},{\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\","
                "\"effect\":\"NoExecute\",\"tolerationSeconds\":120}]");
    /* the options belong to these services only: a chain built without them still gets the defaults */
    assert_json(&a, tolerations_after(&a, "{}"), "[" NR "," UN "]");
    kg_arena_free(&a);
}

static void non_pods_and_subresources_ignored(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "p",
           tj(&a, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{}}"), NULL);
    at.subresource = "binding";
    assert_null(admit1(&P, NULL, NULL, &at));
    assert_json(&a, at.object, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{}}");
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "p",
           tj(&a, "{\"kind\":\"Service\",\"metadata\":{\"name\":\"p\"}}"), NULL);
    assert_status(admit1(&P, NULL, NULL, &at), 400, "BadRequest", "expected *api.Pod but got *core.Service");
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles),
        cmocka_unit_test(no_tolerations_gets_both),
        cmocka_unit_test(unrelated_toleration_kept_first),
        cmocka_unit_test(existing_not_ready_only_unreachable_added),
        cmocka_unit_test(unreachable_empty_effect_only_not_ready_added),
        cmocka_unit_test(noschedule_does_not_count),
        cmocka_unit_test(wildcard_tolerates_everything),
        cmocka_unit_test(flags_reach_the_plugin),
        cmocka_unit_test(non_pods_and_subresources_ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
