/* DefaultStorageClass: default selection (GA/beta annotations, newest, ties by name), claims that already name a class,
 * lister failure, idempotence. */
#include "plugin_testutil.h"
#include "faulty_services.h"

#define P kg_admission_plugin_default_storage_class

#define SC(name, ann, value, ts)                                                                                       \
    "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"metadata\":{\"name\":\"" name                   \
    "\",\"creationTimestamp\":\"" ts "\",\"annotations\":{\"" ann "\":\"" value "\"}},\"provisioner\":\"x\"}"
#define GA "storageclass.kubernetes.io/is-default-class"
#define BETA "storageclass.beta.kubernetes.io/is-default-class"

static kg_arena g_arena; /* results of claim_class live here until the group ends */

static const char *claim_class(kg_admission_memcluster *m, const char *pvc)
{
    kg_arena *ap = &g_arena;
#define a (*ap)
    kg_admission_services svc = kg_admission_memcluster_services(m, NULL);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "PersistentVolumeClaim", "persistentvolumeclaims", "ns", "c", tj(&a, pvc),
           NULL);
    admit_idempotent(&P, NULL, &svc, &at);
    const kg_json *v = kg_json_path(at.object, "spec.storageClassName");
    return !v ? "<absent>" : kg_json_is(v, KG_JSON_STRING) ? v->u.s : "<not a string>";
#undef a
}

#define PVC(spec, anns)                                                                                                \
    "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\",\"annotations\":" anns     \
    "},\"spec\":" spec "}"
#define PLAIN PVC("{\"accessModes\":[\"ReadWriteOnce\"]}", "{}")

static void handles(void **state)
{
    assert_int_equal(P.handles, KG_ADMISSION_CREATE);
    assert_true(kg_admission_registry_find("DefaultStorageClass")->default_on);
    assert_ptr_equal(kg_admission_registry_find("DefaultStorageClass")->impl, &P);
}

static void no_default_unchanged(void **state)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    assert_string_equal(claim_class(m, PLAIN), "<absent>");
    tput(m, "storageclasses", SC("a", GA, "false", "2024-01-01T00:00:00Z"), 0);
    tput(m, "storageclasses", SC("b", "other", "true", "2024-01-01T00:00:00Z"), 0);
    assert_string_equal(claim_class(m, PLAIN), "<absent>");
    kg_admission_memcluster_free(m);
}

static void one_default_set(void **state)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    tput(m, "storageclasses", SC("plain", GA, "false", "2024-01-01T00:00:00Z"), 0);
    tput(m, "storageclasses", SC("fast", GA, "true", "2024-01-01T00:00:00Z"), 0);
    assert_string_equal(claim_class(m, PLAIN), "fast");
    kg_admission_memcluster_free(m);
    m = kg_admission_memcluster_new();
    tput(m, "storageclasses", SC("beta", BETA, "true", "2024-01-01T00:00:00Z"), 0);
    assert_string_equal(claim_class(m, PLAIN), "beta");
    kg_admission_memcluster_free(m);
}

static void claim_with_class_untouched(void **state)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    tput(m, "storageclasses", SC("fast", GA, "true", "2024-01-01T00:00:00Z"), 0);
    assert_string_equal(claim_class(m, PVC("{\"storageClassName\":\"\"}", "{}")), "");
    assert_string_equal(claim_class(m, PVC("{\"storageClassName\":\"slow\"}", "{}")), "slow");
    assert_string_equal(claim_class(m, PVC("{}", "{\"volume.beta.kubernetes.io/storage-class\":\"\"}")), "<absent>");
    kg_admission_memcluster_free(m);
}

static void several_defaults_newest_then_name(void **state)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    tput(m, "storageclasses", SC("old", GA, "true", "2023-01-01T00:00:00Z"), 0);
    tput(m, "storageclasses", SC("new", BETA, "true", "2024-06-01T00:00:00Z"), 0);
    tput(m, "storageclasses", SC("mid", GA, "true", "2024-01-01T00:00:00Z"), 0);
    assert_string_equal(claim_class(m, PLAIN), "new");
    tput(m, "storageclasses", SC("aaa", GA, "true", "2024-06-01T00:00:00Z"), 0);
    assert_string_equal(claim_class(m, PLAIN), "aaa");
    kg_admission_memcluster_free(m);
}

static void list_failure_forbidden(void **state)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_services inner = kg_admission_memcluster_services(m, NULL);
    kg_faulty_services *fs = kg_faulty_services_new(&inner);
    kg_faulty_fail_reads(fs, "storageclasses", 0, KG_EIO);
    kg_admission_services svc = kg_faulty_services_get(fs);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "PersistentVolumeClaim", "persistentvolumeclaims", "ns", "c", tj(&a, PLAIN),
           NULL);
    assert_status(admit1(&P, NULL, &svc, &at), 403, "Forbidden",
                  "persistentvolumeclaims \"c\" is forbidden: injected read failure for storageclasses");
    /* other resources, subresources and non-claims are ignored */
    at.subresource = "status";
    assert_null(admit1(&P, NULL, &svc, &at));
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "c", tj(&a, PLAIN), NULL);
    assert_null(admit1(&P, NULL, &svc, &at));
    kg_arena_free(&a);
    kg_faulty_services_free(fs);
    kg_admission_memcluster_free(m);
}

static int setup(void **state)
{
    kg_arena_init(&g_arena, 0);
    return 0;
}

static int teardown(void **state)
{
    kg_arena_free(&g_arena);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles),
        cmocka_unit_test(no_default_unchanged),
        cmocka_unit_test(one_default_set),
        cmocka_unit_test(claim_with_class_untouched),
        cmocka_unit_test(several_defaults_newest_then_name),
        cmocka_unit_test(list_failure_forbidden),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
