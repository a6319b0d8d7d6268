/* AlwaysPullImages: mutation of every container kind, NotSupported messages (aggregate → 500 even for one), UPDATE
 * image rule, idempotence. */
#include "plugin_testutil.h"


#define POD(spec)                                                                                                      \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},\"spec\":" spec "}"
#define P kg_admission_plugin_always_pull_images

static void handles(void **state)
{
    assert_int_equal(P.handles, KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE);
    assert_non_null(P.admit);
    assert_non_null(P.validate);
    assert_ptr_equal(kg_admission_registry_find("AlwaysPullImages")->impl, &P);
}

static void admit_sets_always_everywhere(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(
        &at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "p",
        tj(&a, POD("{\"initContainers\":[{\"name\":\"i\",\"image\":\"busybox\",\"imagePullPolicy\":\"IfNotPresent\"}],"
                   "\"containers\":[{\"name\":\"a\",\"image\":\"nginx\",\"imagePullPolicy\":\"Never\"},"
                   "{\"name\":\"b\",\"image\":\"redis\"}],"
                   "\"ephemeralContainers\":[{\"name\":\"e\",\"image\":\"debug\",\"imagePullPolicy\":\"\"}]}")),
        NULL);
    admit_idempotent(&P, NULL, NULL, &at);
    assert_json(&a, kg_json_get(at.object, "spec"),
                "{\"initContainers\":[{\"name\":\"i\",\"image\":\"busybox\",\"imagePullPolicy\":\"Always\"}],"
                "\"containers\":[{\"name\":\"a\",\"image\":\"nginx\",\"imagePullPolicy\":\"Always\"},"
                "{\"name\":\"b\",\"image\":\"redis\",\"imagePullPolicy\":\"Always\"}],"
                "\"ephemeralContainers\":[{\"name\":\"e\",\"image\":\"debug\",\"imagePullPolicy\":\"Always\"}]}");
    kg_arena_free(&a);
}

/* utilerrors.NewAggregate is not an API status: even one violation is a 500 with the Forbidden text */
static void validate_one_bad_is_500(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "p",
           tj(&a, POD("{\"containers\":[{\"name\":\"a\",\"image\":\"nginx\",\"imagePullPolicy\":\"Always\"},"
                      "{\"name\":\"b\",\"image\":\"redis\",\"imagePullPolicy\":\"Never\"}]}")),
           NULL);
    assert_status(validate1(&P, NULL, NULL, &at), 500, "",
                  "pods \"p\" is forbidden: spec.containers[1].imagePullPolicy: Unsupported value: \"Never\": "
                  "supported values: \"Always\"");
    kg_arena_free(&a);
}

static void validate_several_bad_is_aggregate(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "p",
           tj(&a, POD("{\"initContainers\":[{\"name\":\"i\",\"image\":\"x\",\"imagePullPolicy\":\"IfNotPresent\"}],"
                      "\"containers\":[{\"name\":\"a\",\"image\":\"nginx\"}],"
                      "\"ephemeralContainers\":[{\"name\":\"e\",\"image\":\"d\",\"imagePullPolicy\":\"Never\"}]}")),
           NULL);
    assert_status(validate1(&P, NULL, NULL, &at), 500, "",
                  "[pods \"p\" is forbidden: spec.initContainers[0].imagePullPolicy: Unsupported value: "
                  "\"IfNotPresent\": supported values: \"Always\", pods \"p\" is forbidden: "
                  "spec.containers[0].imagePullPolicy: Unsupported value: \"\": supported values: \"Always\", "
                  "pods \"p\" is forbidden: spec.ephemeralContainers[0].imagePullPolicy: Unsupported value: \"Never\": "
                  "supported values: \"Always\"]");
    kg_arena_free(&a);
}

static void other_resources_and_subresources_ignored(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    const char *spec = "{\"containers\":[{\"name\":\"a\",\"image\":\"nginx\",\"imagePullPolicy\":\"Never\"}]}";
    tattrs(&at, &a, KG_ADMISSION_CREATE, "PodTemplate", "podtemplates", "ns", "p", tj(&a, POD("{}")), NULL);
    kg_json_set(&a, at.object, "spec", tj(&a, spec));
    assert_null(admit1(&P, NULL, NULL, &at));
    assert_null(validate1(&P, NULL, NULL, &at));
    assert_json(&a, kg_json_get(at.object, "spec"), spec);
    tattrs(&at, &a, KG_ADMISSION_UPDATE, "Pod", "pods", "ns", "p", tj(&a, POD("{}")), tj(&a, POD("{}")));
    kg_json_set(&a, at.object, "spec", tj(&a, spec));
    at.subresource = "status";
    assert_null(admit1(&P, NULL, NULL, &at));
    assert_null(validate1(&P, NULL, NULL, &at));
    assert_json(&a, kg_json_get(at.object, "spec"), spec);
    kg_arena_free(&a);
}

static void update_same_images_not_touched(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    const char *spec = "{\"containers\":[{\"name\":\"a\",\"image\":\"nginx\",\"imagePullPolicy\":\"IfNotPresent\"}]}";
    tattrs(&at, &a, KG_ADMISSION_UPDATE, "Pod", "pods", "ns", "p", tj(&a, POD("{}")), tj(&a, POD("{}")));
    kg_json_set(&a, at.object, "spec", tj(&a, spec));
    kg_json_set(&a, at.old_object, "spec", tj(&a, spec));
    assert_null(admit1(&P, NULL, NULL, &at));
    assert_null(validate1(&P, NULL, NULL, &at));
    assert_json(&a, kg_json_get(at.object, "spec"), spec);
    kg_arena_free(&a);
}

static void update_new_image_mutated(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(
        &at, &a, KG_ADMISSION_UPDATE, "Pod", "pods", "ns", "p",
        tj(&a, POD("{\"containers\":[{\"name\":\"a\",\"image\":\"nginx:2\",\"imagePullPolicy\":\"IfNotPresent\"}]}")),
        tj(&a, POD("{\"containers\":[{\"name\":\"a\",\"image\":\"nginx:1\",\"imagePullPolicy\":\"IfNotPresent\"}]}")));
    assert_status(validate1(&P, NULL, NULL, &at), 500, "",
                  "pods \"p\" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: \"IfNotPresent\": "
                  "supported values: \"Always\"");
    admit_idempotent(&P, NULL, NULL, &at);
    assert_string_equal(kg_json_path_str(kg_json_at(kg_json_path(at.object, "spec.containers"), 0), "imagePullPolicy"),
                        "Always");
    kg_arena_free(&a);
}

static void non_pod_object_is_bad_request(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "p",
           tj(&a, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"p\"}}"), NULL);
    assert_status(admit1(&P, NULL, NULL, &at), 400, "BadRequest",
                  "Resource was marked with kind Pod but was unable to be converted");
    assert_status(validate1(&P, NULL, NULL, &at), 400, "BadRequest",
                  "Resource was marked with kind Pod but was unable to be converted");
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles),
        cmocka_unit_test(admit_sets_always_everywhere),
        cmocka_unit_test(validate_one_bad_is_500),
        cmocka_unit_test(validate_several_bad_is_aggregate),
        cmocka_unit_test(other_resources_and_subresources_ignored),
        cmocka_unit_test(update_same_images_not_touched),
        cmocka_unit_test(update_new_image_mutated),
        cmocka_unit_test(non_pod_object_is_bad_request),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
