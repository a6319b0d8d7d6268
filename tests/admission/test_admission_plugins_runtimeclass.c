/* RuntimeClass: overhead set/matched/rejected, live lookup, not-found, scheduling merge and conflicts, idempotence. */
#include "plugin_testutil.h"
#include "faulty_services.h"

#define P kg_admission_plugin_runtime_class
#define POD(spec) "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":" spec "}"

static kg_admission_memcluster *g_m;

static int setup(void **state)
{
    g_m = kg_admission_memcluster_new();
    tput(g_m, "runtimeclasses",
         "{\"apiVersion\":\"node.k8s.io/"
         "v1\",\"kind\":\"RuntimeClass\",\"metadata\":{\"name\":\"kata\"},\"handler\":\"kata\","
         "\"overhead\":{\"podFixed\":{\"cpu\":\"250m\",\"memory\":\"120Mi\"}}}",
         0);
    tput(g_m, "runtimeclasses",
         "{\"apiVersion\":\"node.k8s.io/v1\",\"kind\":\"RuntimeClass\",\"metadata\":{\"name\":\"gvisor\"},"
         "\"handler\":\"runsc\",\"scheduling\":{\"nodeSelector\":{\"sandbox\":\"gvisor\",\"os\":\"linux\"},"
         "\"tolerations\":[{\"key\":\"sandbox\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"},"
         "{\"key\":\"dup\",\"operator\":\"Equal\",\"value\":\"v\",\"effect\":\"NoSchedule\"}]}}",
         0);
    tput(g_m, "runtimeclasses",
         "{\"apiVersion\":\"node.k8s.io/"
         "v1\",\"kind\":\"RuntimeClass\",\"metadata\":{\"name\":\"plain\"},\"handler\":\"runc\"}",
         0);
    /* only in the store: found through the live lookup */
    tput(g_m, "runtimeclasses",
         "{\"apiVersion\":\"node.k8s.io/"
         "v1\",\"kind\":\"RuntimeClass\",\"metadata\":{\"name\":\"late\"},\"handler\":\"x\","
         "\"overhead\":{\"podFixed\":{\"cpu\":\"1\"}}}",
         KG_MEMCLUSTER_STORE_ONLY);
    return 0;
}

static int teardown(void **state)
{
    kg_admission_memcluster_free(g_m);
    return 0;
}

static void pod_attrs(kg_admission_attributes *at, kg_arena *a, const char *pod)
{
    tattrs(at, a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "p", tj(a, pod), NULL);
}

static void handles(void **state)
{
    assert_int_equal(P.handles, KG_ADMISSION_CREATE);
    assert_true(kg_admission_registry_find("RuntimeClass")->default_on);
    assert_ptr_equal(kg_admission_registry_find("RuntimeClass")->impl, &P);
}

static void overhead_set(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_services svc = kg_admission_memcluster_services(g_m, NULL);
    kg_admission_attributes at;
    pod_attrs(&at, &a, POD("{\"runtimeClassName\":\"kata\",\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}"));
    admit_idempotent(&P, NULL, &svc, &at);
    assert_json(&a, kg_json_path(at.object, "spec.overhead"), "{\"cpu\":\"250m\",\"memory\":\"120Mi\"}");
    /* a matching overhead (other spelling of the same quantities) is accepted */
    pod_attrs(&at, &a, POD("{\"runtimeClassName\":\"kata\",\"overhead\":{\"cpu\":\"0.25\",\"memory\":\"120Mi\"}}"));
    assert_null(admit1(&P, NULL, &svc, &at));
    assert_null(validate1(&P, NULL, &svc, &at));
    /* store-only class: live lookup */
    pod_attrs(&at, &a, POD("{\"runtimeClassName\":\"late\"}"));
    admit_idempotent(&P, NULL, &svc, &at);
    assert_json(&a, kg_json_path(at.object, "spec.overhead"), "{\"cpu\":\"1\"}");
    kg_arena_free(&a);
}

static void overhead_mismatch(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_services svc = kg_admission_memcluster_services(g_m, NULL);
    kg_admission_attributes at;
    pod_attrs(&at, &a, POD("{\"runtimeClassName\":\"kata\",\"overhead\":{\"cpu\":\"100m\"}}"));
    assert_status(
        admit1(&P, NULL, &svc, &at), 403, "Forbidden",
        "pods \"p\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
    assert_status(
        validate1(&P, NULL, &svc, &at), 403, "Forbidden",
        "pods \"p\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
    /* overhead without a class defining one */
    pod_attrs(&at, &a, POD("{\"overhead\":{\"cpu\":\"100m\"}}"));
    assert_null(admit1(&P, NULL, &svc, &at));
    assert_status(validate1(&P, NULL, &svc, &at), 403, "Forbidden",
                  "pods \"p\" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined "
                  "Overhead");
    pod_attrs(&at, &a, POD("{\"runtimeClassName\":\"plain\",\"overhead\":{\"cpu\":\"100m\"}}"));
    assert_status(validate1(&P, NULL, &svc, &at), 403, "Forbidden",
                  "pods \"p\" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined "
                  "Overhead");
    kg_arena_free(&a);
}

static void missing_class(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_services inner = kg_admission_memcluster_services(g_m, NULL);
    kg_faulty_services *fs = kg_faulty_services_new(&inner);
    kg_admission_services svc = kg_faulty_services_get(fs);
    kg_admission_attributes at;
    pod_attrs(&at, &a, POD("{\"runtimeClassName\":\"nope\"}"));
    assert_status(admit1(&P, NULL, &svc, &at), 403, "Forbidden",
                  "pods \"p\" is forbidden: pod rejected: RuntimeClass \"nope\" not found");
    assert_status(validate1(&P, NULL, &svc, &at), 403, "Forbidden",
                  "pods \"p\" is forbidden: pod rejected: RuntimeClass \"nope\" not found");
    kg_faulty_fail_reads(fs, "runtimeclasses", 0, KG_EIO);
    pod_attrs(&at, &a, POD("{\"runtimeClassName\":\"kata\"}"));
    assert_status(admit1(&P, NULL, &svc, &at), 500, "", "injected read failure for runtimeclasses \"kata\"");
    kg_faulty_services_free(fs);
    kg_arena_free(&a);
}

static void scheduling_merged(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_services svc = kg_admission_memcluster_services(g_m, NULL);
    kg_admission_attributes at;
    pod_attrs(&at, &a, POD("{\"runtimeClassName\":\"gvisor\"}"));
    admit_idempotent(&P, NULL, &svc, &at);
    assert_json(&a, kg_json_get(at.object, "spec"),
                "{\"runtimeClassName\":\"gvisor\",\"nodeSelector\":{\"sandbox\":\"gvisor\",\"os\":\"linux\"},"
                "\"tolerations\":[{\"key\":\"sandbox\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"},"
                "{\"key\":\"dup\",\"operator\":\"Equal\",\"value\":\"v\",\"effect\":\"NoSchedule\"}]}");
    /* existing selector keys kept, class keys added; a pod toleration that covers a class one absorbs it */
    pod_attrs(&at, &a,
              POD("{\"runtimeClassName\":\"gvisor\",\"nodeSelector\":{\"zone\":\"a\",\"os\":\"linux\"},"
                  "\"tolerations\":[{\"key\":\"dup\",\"operator\":\"Exists\"}]}"));
    admit_idempotent(&P, NULL, &svc, &at);
    assert_json(&a, kg_json_get(at.object, "spec"),
                "{\"runtimeClassName\":\"gvisor\",\"nodeSelector\":{\"zone\":\"a\",\"os\":\"linux\","
                "\"sandbox\":\"gvisor\"},\"tolerations\":[{\"key\":\"dup\",\"operator\":\"Exists\"},"
                "{\"key\":\"sandbox\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}]}");
    pod_attrs(&at, &a, POD("{\"runtimeClassName\":\"gvisor\",\"nodeSelector\":{\"sandbox\":\"kata\"}}"));
    assert_status(admit1(&P, NULL, &svc, &at), 403, "Forbidden",
                  "pods \"p\" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = gvisor; "
                  "pod.spec.nodeSelector[sandbox] = kata");
    kg_arena_free(&a);
}

static void ignored(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_services svc = kg_admission_memcluster_services(g_m, NULL);
    kg_admission_attributes at;
    pod_attrs(&at, &a, POD("{\"containers\":[]}"));
    admit_idempotent(&P, NULL, &svc, &at);
    assert_json(&a, kg_json_get(at.object, "spec"), "{\"containers\":[]}");
    pod_attrs(&at, &a, POD("{\"runtimeClassName\":\"nope\"}"));
    at.subresource = "status";
    assert_null(admit1(&P, NULL, &svc, &at));
    pod_attrs(&at, &a, "{\"kind\":\"Node\"}");
    assert_status(admit1(&P, NULL, &svc, &at), 400, "BadRequest",
                  "Resource was marked with kind Pod but was unable to be converted");
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles),       cmocka_unit_test(overhead_set),      cmocka_unit_test(overhead_mismatch),
        cmocka_unit_test(missing_class), cmocka_unit_test(scheduling_merged), cmocka_unit_test(ignored),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
