/* DefaultIngressClass: default selection, explicit class and legacy annotation respected, errors, idempotence. */
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

#define P kg_admission_plugin_default_ingress_class
#define IC(name, value, ts)                                                                                            \
    "{\"apiVersion\":\"networking.k8s.io/v1\",\"kind\":\"IngressClass\",\"metadata\":{\"name\":\"" name                \
    "\",\"creationTimestamp\":\"" ts "\",\"annotations\":{\"ingressclass.kubernetes.io/is-default-class\":\"" value    \
    "\"}},\"spec\":{\"controller\":\"example.com/c\"}}"
#define ING(spec, anns)                                                                                                \
    "{\"apiVersion\":\"networking.k8s.io/v1\",\"kind\":\"Ingress\",\"metadata\":{\"name\":\"i\",\"annotations\":" anns \
    "},\"spec\":" spec "}"

static void ing_attrs(kg_admission_attributes *at, kg_arena *a, const char *obj)
{
    kg_admission_attrs_init(at, a);
    at->operation = KG_ADMISSION_CREATE;
    at->kind = (kg_gvk){"networking.k8s.io", "v1", "Ingress"};
    at->resource = (kg_gvr){"networking.k8s.io", "v1", "ingresses"};
    at->ns = "ns";
    at->name = "i";
    at->object = tj(a, obj);
}

static const char *class_after(kg_arena *a, kg_admission_memstate *m, const char *obj)
{
    kg_admission_services svc = kg_admission_memstate_services(m, NULL);
    kg_admission_attributes at;
    ing_attrs(&at, a, obj);
    admit_idempotent(&P, NULL, &svc, &at);
    const kg_json *v = kg_json_path(at.object, "spec.ingressClassName");
    return !v ? "<absent>" : kg_json_is(v, KG_JSON_STRING) ? v->u.s : "<not a string>";
}

static void handles(void **state)
{
    assert_int_equal(P.handles, KG_ADMISSION_CREATE);
    assert_true(kg_admission_registry_find("DefaultIngressClass")->default_on);
    assert_ptr_equal(kg_admission_registry_find("DefaultIngressClass")->impl, &P);
}

static void defaults(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memstate *m = kg_admission_memstate_new();
    assert_string_equal(class_after(&a, m, ING("{}", "{}")), "<absent>");
    tput(m, "ingressclasses", IC("nginx", "false", "2024-01-01T00:00:00Z"), 0);
    assert_string_equal(class_after(&a, m, ING("{}", "{}")), "<absent>");
    tput(m, "ingressclasses", IC("traefik", "true", "2024-01-01T00:00:00Z"), 0);
    assert_string_equal(class_after(&a, m, ING("{}", "{}")), "traefik");
    tput(m, "ingressclasses", IC("newer", "true", "2025-01-01T00:00:00Z"), 0);
    assert_string_equal(class_after(&a, m, ING("{}", "{}")), "newer");
    tput(m, "ingressclasses", IC("alpha", "true", "2025-01-01T00:00:00Z"), 0);
    assert_string_equal(class_after(&a, m, ING("{}", "{}")), "alpha");
    /* an explicit class or the deprecated annotation wins */
    assert_string_equal(class_after(&a, m, ING("{\"ingressClassName\":\"mine\"}", "{}")), "mine");
    assert_string_equal(class_after(&a, m, ING("{}", "{\"kubernetes.io/ingress.class\":\"nginx\"}")), "<absent>");
    kg_admission_memstate_free(m);
    kg_arena_free(&a);
}

static void errors(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memstate *m = kg_admission_memstate_new();
    kg_admission_memstate_fail_reads(m, "ingressclasses", 0, KG_EIO);
    kg_admission_services svc = kg_admission_memstate_services(m, NULL);
    kg_admission_attributes at;
    ing_attrs(&at, &a, ING("{}", "{}"));
    assert_status(admit1(&P, NULL, &svc, &at), 403, "Forbidden",
                  "ingresses.networking.k8s.io \"i\" is forbidden: injected read failure for ingressclasses");
    ing_attrs(&at, &a, "{\"kind\":\"Service\"}");
    assert_status(admit1(&P, NULL, &svc, &at), 500, "InternalError",
                  "Internal error occurred: Expected Ingress resource, got: networking.k8s.io/v1, Kind=Ingress");
    /* core-group "ingresses" or a subresource: not ours */
    ing_attrs(&at, &a, ING("{}", "{}"));
    at.subresource = "status";
    assert_null(admit1(&P, NULL, &svc, &at));
    ing_attrs(&at, &a, ING("{}", "{}"));
    at.resource.group = "extensions";
    assert_null(admit1(&P, NULL, &svc, &at));
    kg_admission_memstate_free(m);
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles),
        cmocka_unit_test(defaults),
        cmocka_unit_test(errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
