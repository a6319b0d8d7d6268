/* PersistentVolumeClaimResize: growth only for Bound claims of expandable classes; exact quantities. */
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

#define P kg_admission_plugin_persistent_volume_claim_resize
#define SC(name, ave) "{\"kind\":\"StorageClass\",\"metadata\":{\"name\":\"" name "\"},\"provisioner\":\"x\"" ave "}"
#define PVC(cls, size, phase)                                                                                          \
    "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"spec\":{" cls            \
    "\"resources\":{\"requests\":{\"storage\":\"" size "\"}}},\"status\":{\"phase\":\"" phase "\"}}"
#define DENY_BOUND "persistentvolumeclaims \"c\" is forbidden: Only bound persistent volume claims can be expanded"
#define DENY_CLASS                                                                                                     \
    "persistentvolumeclaims \"c\" is forbidden: only dynamically provisioned pvc can be resized and the storageclass " \
    "that provisions the pvc must support resize"

static kg_admission_memstate *g_m;

static kg_status *resize(kg_arena *a, const char *newpvc, const char *oldpvc)
{
    kg_admission_services svc = kg_admission_memstate_services(g_m, NULL);
    kg_admission_attributes at;
    tattrs(&at, a, KG_ADMISSION_UPDATE, "PersistentVolumeClaim", "persistentvolumeclaims", "ns", "c", tj(a, newpvc),
           tj(a, oldpvc));
    return validate1(&P, NULL, &svc, &at);
}

static int setup(void **state)
{
    g_m = kg_admission_memstate_new();
    tput(g_m, "storageclasses", SC("yes", ",\"allowVolumeExpansion\":true"), 0);
    tput(g_m, "storageclasses", SC("no", ",\"allowVolumeExpansion\":false"), 0);
    tput(g_m, "storageclasses", SC("unset", ""), 0);
    return 0;
}

static int teardown(void **state)
{
    kg_admission_memstate_free(g_m);
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
    kg_admission_services svc = kg_admission_memstate_services(g_m, NULL);
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
