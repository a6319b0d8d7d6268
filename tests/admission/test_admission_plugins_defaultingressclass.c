/* DefaultIngressClass: default selection, explicit class and legacy annotation respected, errors, idempotence. */
#include "plugin_testutil.h"
#include "faulty_services.h"

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

static const char *class_after(kg_arena *a, kg_admission_memcluster *m, const char *obj)
{
    kg_admission_services svc = kg_admission_memcluster_services(m, NULL);
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
    kg_admission_memcluster *m = kg_admission_memcluster_new();
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
    kg_admission_memcluster_free(m);
    kg_arena_free(&a);
}

static void errors(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_services inner = kg_admission_memcluster_services(m, NULL);
    kg_faulty_services *fs = kg_faulty_services_new(&inner);
    kg_faulty_fail_reads(fs, "ingressclasses", 0, KG_EIO);
    kg_admission_services svc = kg_faulty_services_get(fs);
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
    kg_faulty_services_free(fs);
    kg_admission_memcluster_free(m);
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
