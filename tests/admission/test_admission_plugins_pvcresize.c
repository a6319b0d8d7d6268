/* PersistentVolumeClaimResize: growth only for Bound claims of expandable classes; exact quantities. */
#include "plugin_testutil.h"


#define P kg_admission_plugin_persistent_volume_claim_resize
#define SC(name, ave) "{\"kind\":\"StorageClass\",\"metadata\":{\"name\":\"" name "\"},\"provisioner\":\"x\"" ave "}"
#define PVC(cls, size, phase)                                                                                          \
    "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"spec\":{" cls            \
    "\"resources\":{\"requests\":{\"storage\":\"" size "\"}}},\"status\":{\"phase\":\"" phase "\"}}"
#define DENY_BOUND "persistentvolumeclaims \"c\" is forbidden: Only bound persistent volume claims can be expanded"
#define DENY_CLASS                                                                                                     \
    "persistentvolumeclaims \"c\" is forbidden: only dynamically provisioned pvc can be resized and the storageclass " \
    "that provisions the pvc must support resize"

static kg_admission_memcluster *g_m;

static kg_status *resize(kg_arena *a, const char *newpvc, const char *oldpvc)
{
    kg_admission_services svc = kg_admission_memcluster_services(g_m, NULL);
    kg_admission_attributes at;
    tattrs(&at, a, KG_ADMISSION_UPDATE, "PersistentVolumeClaim", "persistentvolumeclaims", "ns", "c", tj(a, newpvc),
           tj(a, oldpvc));
    return validate1(&P, NULL, &svc, &at);
}

static int setup(void **state)
{
    g_m = kg_admission_memcluster_new();
    tput(g_m, "storageclasses", SC("yes", ",\"allowVolumeExpansion\":true"), 0);
    tput(g_m, "storageclasses", SC("no", ",\"allowVolumeExpansion\":false"), 0);
    tput(g_m, "storageclasses", SC("unset", ""), 0);
    return 0;
}

static int teardown(void **state)
{
    kg_admission_memcluster_free(g_m);
    return 0;
}

static void handles(void **state)
{
    assert_int_equal(P.handles, KG_ADMISSION_UPDATE);
    assert_null(P.admit);
    assert_true(kg_admission_registry_find("PersistentVolumeClaimResize")->default_on);
    assert_ptr_equal(kg_admission_registry_find("PersistentVolumeClaimResize")->impl, &P);
}

static void grow(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_null(resize(&a, PVC("\"storageClassName\":\"yes\",", "2Gi", "Bound"),
                       PVC("\"storageClassName\":\"yes\",", "1Gi", "Bound")));
    assert_status(resize(&a, PVC("\"storageClassName\":\"no\",", "2Gi", "Bound"),
                         PVC("\"storageClassName\":\"no\",", "1Gi", "Bound")),
                  403, "Forbidden", DENY_CLASS);
    assert_status(resize(&a, PVC("\"storageClassName\":\"unset\",", "2Gi", "Bound"),
                         PVC("\"storageClassName\":\"unset\",", "1Gi", "Bound")),
                  403, "Forbidden", DENY_CLASS);
    assert_status(resize(&a, PVC("", "2Gi", "Bound"), PVC("", "1Gi", "Bound")), 403, "Forbidden", DENY_CLASS);
    assert_status(resize(&a, PVC("\"storageClassName\":\"missing\",", "2Gi", "Bound"),
                         PVC("\"storageClassName\":\"missing\",", "1Gi", "Bound")),
                  403, "Forbidden", DENY_CLASS);
    /* class changed between old and new */
    assert_status(resize(&a, PVC("\"storageClassName\":\"yes\",", "2Gi", "Bound"),
                         PVC("\"storageClassName\":\"no\",", "1Gi", "Bound")),
                  403, "Forbidden", DENY_CLASS);
    assert_status(resize(&a, PVC("\"storageClassName\":\"yes\",", "2Gi", "Pending"),
                         PVC("\"storageClassName\":\"yes\",", "1Gi", "Pending")),
                  403, "Forbidden", DENY_BOUND);
    kg_arena_free(&a);
}

static void beta_annotation_class(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *old = "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\",\"annotations\":{"
                      "\"volume.beta.kubernetes.io/storage-class\":\"yes\"}},\"spec\":{\"storageClassName\":\"no\","
                      "\"resources\":{\"requests\":{\"storage\":\"1G\"}}},\"status\":{\"phase\":\"Bound\"}}";
    kg_json *nw = tj(&a, old);
    kg_json_set(&a, kg_json_path(nw, "spec.resources.requests"), "storage", kg_json_new_str(&a, "1001M"));
    assert_null(resize(&a, kg_json_to_string(&a, nw, 0, NULL), old));
    kg_arena_free(&a);
}

static void shrink_or_equal_allowed(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_null(resize(&a, PVC("", "1Gi", "Pending"), PVC("", "2Gi", "Pending")));
    /* equal quantities in other spellings */
    assert_null(resize(&a, PVC("", "1024Mi", "Pending"), PVC("", "1Gi", "Pending")));
    assert_null(resize(&a, PVC("", "1000M", "Pending"), PVC("", "1G", "Pending")));
    /* subresources are ignored */
    kg_admission_services svc = kg_admission_memcluster_services(g_m, NULL);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_UPDATE, "PersistentVolumeClaim", "persistentvolumeclaims", "ns", "c",
           tj(&a, PVC("", "2Gi", "Pending")), tj(&a, PVC("", "1Gi", "Pending")));
    at.subresource = "status";
    assert_null(validate1(&P, NULL, &svc, &at));
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles),
        cmocka_unit_test(grow),
        cmocka_unit_test(beta_annotation_class),
        cmocka_unit_test(shrink_or_equal_allowed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
