/* StorageObjectInUseProtection: pv/pvc/vac protection finalizers, once, VAC behind its gate. */
#include "plugin_testutil.h"


#define P kg_admission_plugin_storage_object_in_use_protection

static kg_json *after(kg_arena *a, kg_admission_memcluster *m, const char *group, const char *resource, const char *obj,
                      kg_admission_op op)
{
    kg_admission_services svc = kg_admission_memcluster_services(m, NULL);
    kg_admission_attributes at;
    kg_admission_attrs_init(&at, a);
    at.operation = op;
    at.resource = (kg_gvr){group, "v1", resource};
    at.name = "x";
    at.object = tj(a, obj);
    if (op == KG_ADMISSION_CREATE)
        admit_idempotent(&P, NULL, &svc, &at);
    else
        assert_null(admit1(&P, NULL, &svc, &at));
    return kg_json_path(at.object, "metadata.finalizers");
}

static void handles(void **state)
{
    assert_int_equal(P.handles, KG_ADMISSION_CREATE);
    assert_true(kg_admission_registry_find("StorageObjectInUseProtection")->default_on);
    assert_ptr_equal(kg_admission_registry_find("StorageObjectInUseProtection")->impl, &P);
}

static void finalizers_added_once(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    assert_json(&a,
                after(&a, m, "", "persistentvolumeclaims",
                      "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"x\"}}", KG_ADMISSION_CREATE),
                "[\"kubernetes.io/pvc-protection\"]");
    assert_json(&a,
                after(&a, m, "", "persistentvolumeclaims",
                      "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"x\",\"finalizers\":[\"a/b\","
                      "\"kubernetes.io/pvc-protection\"]}}",
                      KG_ADMISSION_CREATE),
                "[\"a/b\",\"kubernetes.io/pvc-protection\"]");
    assert_json(&a,
                after(&a, m, "", "persistentvolumes",
                      "{\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"x\",\"finalizers\":[\"a/b\"]}}",
                      KG_ADMISSION_CREATE),
                "[\"a/b\",\"kubernetes.io/pv-protection\"]");
    kg_admission_memcluster_free(m);
    kg_arena_free(&a);
}

static void vac_behind_gate(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    const char *vac = "{\"apiVersion\":\"storage.k8s.io/v1beta1\",\"kind\":\"VolumeAttributesClass\","
                      "\"metadata\":{\"name\":\"x\"},\"driverName\":\"d\"}";
    assert_null(after(&a, m, "storage.k8s.io", "volumeattributesclasses", vac, KG_ADMISSION_CREATE));
    kg_admission_memcluster_set_feature(m, "VolumeAttributesClass", true);
    assert_json(&a, after(&a, m, "storage.k8s.io", "volumeattributesclasses", vac, KG_ADMISSION_CREATE),
                "[\"kubernetes.io/vac-protection\"]");
    kg_admission_memcluster_free(m);
    kg_arena_free(&a);
}

static void ignored(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    /* UPDATE is not handled, other resources and wrong kinds are ignored */
    assert_null(after(&a, m, "", "persistentvolumeclaims",
                      "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"x\"}}", KG_ADMISSION_UPDATE));
    assert_null(after(&a, m, "", "pods", "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"}}", KG_ADMISSION_CREATE));
    assert_null(
        after(&a, m, "", "persistentvolumes", "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"}}", KG_ADMISSION_CREATE));
    kg_admission_memcluster_free(m);
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles),
        cmocka_unit_test(finalizers_added_once),
        cmocka_unit_test(vac_behind_gate),
        cmocka_unit_test(ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
