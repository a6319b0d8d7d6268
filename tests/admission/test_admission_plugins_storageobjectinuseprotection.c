/* StorageObjectInUseProtection: pv/pvc/vac protection finalizers, once, VAC behind its gate. */
#include "admission_testutil.h"

/* ---- helpers (each plugin test file carries its own copy) ---- */
__attribute__((unused)) static kg_admission_chain *chain1(const kg_admission_plugin *p, const kg_json *cfg,
                                                          const kg_admission_services *svc)
{
    const kg_admission_plugin *ps[] = {p};
    const kg_json *cfgs[] = {cfg};
    kg_error e = {0};
    kg_admission_chain *c = kg_admission_chain_new_from(ps, 1, cfgs, svc, NULL, &e);
    if (!c)
        fail_msg("chain: %s", e.msg);
    return c;
}

/* Mutating phase once. */
__attribute__((unused)) static kg_status *admit1(const kg_admission_plugin *p, const kg_json *cfg,
                                                 const kg_admission_services *svc, kg_admission_attributes *at)
{
    kg_admission_chain *c = chain1(p, cfg, svc);
    kg_status *st = kg_admission_chain_admit(c, at);
    kg_admission_chain_free(c);
    return st;
}

__attribute__((unused)) static kg_status *validate1(const kg_admission_plugin *p, const kg_json *cfg,
                                                    const kg_admission_services *svc, kg_admission_attributes *at)
{
    kg_admission_chain *c = chain1(p, cfg, svc);
    kg_status *st = kg_admission_chain_validate(c, at);
    kg_admission_chain_free(c);
    return st;
}

/* Admit must succeed, and a second admit (webhook reinvocation) must leave the object as the first left it;
 * then the validating phase must accept the result. */
__attribute__((unused)) static void admit_idempotent(const kg_admission_plugin *p, const kg_json *cfg,
                                                     const kg_admission_services *svc, kg_admission_attributes *at)
{
    kg_status *st = admit1(p, cfg, svc, at);
    if (st)
        fail_msg("admit rejected: %s", st->message);
    kg_json *once = kg_json_clone(at->arena, at->object);
    st = admit1(p, cfg, svc, at);
    if (st)
        fail_msg("second admit rejected: %s", st->message);
    if (!kg_json_equal(once, at->object))
        fail_msg("not idempotent:\n%s\n%s", kg_json_to_string(at->arena, once, 0, NULL),
                 kg_json_to_string(at->arena, at->object, 0, NULL));
    if (p->validate) {
        st = validate1(p, cfg, svc, at);
        if (st)
            fail_msg("validate after admit rejected: %s", st->message);
    }
}

__attribute__((unused)) static void assert_json(kg_arena *a, const kg_json *got, const char *want)
{
    kg_json *w = tj(a, want);
    if (!kg_json_equal(got, w))
        fail_msg("got  %s\nwant %s", got ? kg_json_to_string(a, got, 0, NULL) : "(null)",
                 kg_json_to_string(a, w, 0, NULL));
}
/* ---- end helpers ---- */

#define P kg_admission_plugin_storage_object_in_use_protection

static kg_json *after(kg_arena *a, kg_admission_memstate *m, const char *group, const char *resource, const char *obj,
                      kg_admission_op op)
{
    kg_admission_services svc = kg_admission_memstate_services(m, NULL);
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
    kg_admission_memstate *m = kg_admission_memstate_new();
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
    kg_admission_memstate_free(m);
    kg_arena_free(&a);
}

static void vac_behind_gate(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memstate *m = kg_admission_memstate_new();
    const char *vac = "{\"apiVersion\":\"storage.k8s.io/v1beta1\",\"kind\":\"VolumeAttributesClass\","
                      "\"metadata\":{\"name\":\"x\"},\"driverName\":\"d\"}";
    assert_null(after(&a, m, "storage.k8s.io", "volumeattributesclasses", vac, KG_ADMISSION_CREATE));
    kg_admission_memstate_set_feature(m, "VolumeAttributesClass", true);
    assert_json(&a, after(&a, m, "storage.k8s.io", "volumeattributesclasses", vac, KG_ADMISSION_CREATE),
                "[\"kubernetes.io/vac-protection\"]");
    kg_admission_memstate_free(m);
    kg_arena_free(&a);
}

static void ignored(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memstate *m = kg_admission_memstate_new();
    /* UPDATE is not handled, other resources and wrong kinds are ignored */
    assert_null(after(&a, m, "", "persistentvolumeclaims",
                      "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"x\"}}", KG_ADMISSION_UPDATE));
    assert_null(after(&a, m, "", "pods", "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"}}", KG_ADMISSION_CREATE));
    assert_null(
        after(&a, m, "", "persistentvolumes", "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"}}", KG_ADMISSION_CREATE));
    kg_admission_memstate_free(m);
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
