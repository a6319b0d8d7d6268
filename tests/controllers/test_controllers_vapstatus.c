/* The ValidatingAdmissionPolicy status controller's reconcile (src/controllers/vapstatus.c) over an in-memory
 * cluster: observedGeneration and typeChecking written for a new generation and only then, warnings from the schema
 * the services give for the matched kind (a small hand-written OpenAPI schema: the checker takes any), the list
 * omitted when empty, a recursive schema, the ParamKindResolved condition for a paramKind that is not served (kept with
 * its lastTransitionTime while it stays, removed when the kind resolves), other conditions kept, deleted policies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "client_memcluster.h"
#include "controllers/vapstatus.h"

static kg_arena A;
static kg_admission_memcluster *M;
static test_client TC;
static bool widget_served;

/* served: apps/v1 deployments (kind Deployment); example.com/v1 Widget only when widget_served */
static bool kind_for_resource(void *ctx, const char *group, const char *version, const char *resource,
                              const char **kind)
{
    (void)ctx;
    if (!strcmp(group, "apps") && !strcmp(version, "v1") && !strcmp(resource, "deployments")) {
        *kind = "Deployment";
        return true;
    }
    return false;
}

static const char *SCHEMA =
    "{\"d.Deployment\":{\"type\":\"object\",\"properties\":{\"metadata\":{\"$ref\":\"#/components/schemas/d.Meta\"},"
    "\"spec\":{\"allOf\":[{\"$ref\":\"#/components/schemas/d.Spec\"}]}}},"
    "\"d.Meta\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"labels\":{\"type\":\"object\","
    "\"additionalProperties\":{\"type\":\"string\"}}}},"
    "\"d.Spec\":{\"type\":\"object\",\"properties\":{\"replicas\":{\"type\":\"integer\",\"format\":\"int32\"},"
    "\"next\":{\"$ref\":\"#/components/schemas/d.Spec\"}}}}"; /* recursive */

static kg_json *kind_schema(void *ctx, kg_arena *a, const char *group, const char *version, const char *kind,
                            const char **root)
{
    (void)ctx;
    if (strcmp(group, "apps") || strcmp(version, "v1") || strcmp(kind, "Deployment"))
        return NULL;
    kg_error err;
    *root = "d.Deployment";
    return kg_json_parse(a, SCHEMA, strlen(SCHEMA), &err);
}

static bool resource_for_kind(void *ctx, const char *group, const char *version, const char *kind, const char **plural,
                              bool *namespaced)
{
    (void)ctx;
    if (widget_served && !strcmp(group, "example.com") && !strcmp(version, "v1") && !strcmp(kind, "Widget")) {
        *plural = "widgets";
        *namespaced = false;
        return true;
    }
    return false;
}

static int setup(void **state)
{
    (void)state;
    kg_arena_init(&A, 0);
    M = kg_admission_memcluster_new();
    test_client_init(&TC, M);
    TC.svc.kind_for_resource = kind_for_resource;
    TC.svc.kind_schema = kind_schema;
    TC.svc.resource_for_kind = resource_for_kind;
    widget_served = false;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kg_admission_memcluster_free(M);
    kg_arena_free(&A);
    return 0;
}

static void put(const char *json)
{
    kg_error err;
    kg_json *o = kg_json_parse(&A, json, strlen(json), &err);
    assert_non_null(o);
    assert_true(kg_admission_memcluster_put(M, "validatingadmissionpolicies", o, 0, &err));
}

static kg_json *status_of(const char *name)
{
    kg_error err;
    kg_json *p = TC.c.get(TC.c.ctx, &A, "validatingadmissionpolicies", "", name, &err);
    assert_non_null(p);
    return kg_json_get(p, "status");
}

static void reconcile(const char *name)
{
    kg_error err;
    assert_true(kg_vapstatus_reconcile(&TC.c, &A, name, &err));
}

#define RULES                                                                                                          \
    "\"matchConstraints\":{\"resourceRules\":[{\"apiGroups\":[\"apps\"],\"apiVersions\":[\"v1\"],\"operations\":["     \
    "\"CREATE\"],\"resources\":[\"deployments\"]}]}"

static void test_type_checking_written(void **state)
{
    (void)state;
    put("{\"metadata\":{\"name\":\"p\",\"generation\":1},\"spec\":{" RULES
        ",\"validations\":[{\"expression\":\"object.spec.replicas > 1\"},{\"expression\":\"object.spec.replicaz > "
        "1\"},{\"expression\":\"object.metadata.labels['a'] == 1\"},{\"expression\":\"object.spec.next.next.replicas "
        "> 1\"}]}}");
    reconcile("p");
    kg_json *st = status_of("p");
    assert_int_equal(kg_json_get(st, "observedGeneration")->u.i, 1);
    kg_json *w = kg_json_path(st, "typeChecking.expressionWarnings");
    assert_non_null(w);
    assert_int_equal(w->len, 2);
    assert_string_equal(kg_json_get_str(kg_json_at(w, 0), "fieldRef"), "spec.validations[1].expression");
    assert_string_equal(kg_json_get_str(kg_json_at(w, 0), "warning"),
                        "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicaz'\n"
                        " | object.spec.replicaz > 1\n"
                        " | ...........^\n");
    assert_string_equal(kg_json_get_str(kg_json_at(w, 1), "fieldRef"), "spec.validations[2].expression");
    assert_null(kg_json_get(st, "conditions"));
    /* current: nothing to compute */
    kg_error err;
    kg_json *p = TC.c.get(TC.c.ctx, &A, "validatingadmissionpolicies", "", "p", &err);
    assert_null(kg_vapstatus_compute(&A, &TC.svc, p, 0));
    /* a new generation without problems: typeChecking without the list */
    put("{\"metadata\":{\"name\":\"p\",\"generation\":2},\"spec\":{" RULES
        ",\"validations\":[{\"expression\":\"object.spec.replicas > 1\"}]},\"status\":{\"observedGeneration\":1}}");
    reconcile("p");
    st = status_of("p");
    assert_int_equal(kg_json_get(st, "observedGeneration")->u.i, 2);
    assert_non_null(kg_json_get(st, "typeChecking"));
    assert_null(kg_json_path(st, "typeChecking.expressionWarnings"));
    /* a deleted policy is nothing to do */
    reconcile("gone");
}

static void test_param_kind_condition(void **state)
{
    (void)state;
    put("{\"metadata\":{\"name\":\"q\",\"generation\":1},\"spec\":{\"paramKind\":{\"apiVersion\":\"example.com/v1\","
        "\"kind\":\"Widget\"}," RULES ",\"validations\":[{\"expression\":\"true\"}]},\"status\":{\"conditions\":[{"
        "\"type\":\"Other\",\"status\":\"True\"}]}}");
    kg_error err;
    kg_json *p = TC.c.get(TC.c.ctx, &A, "validatingadmissionpolicies", "", "q", &err);
    kg_json *st = kg_vapstatus_compute(&A, &TC.svc, p, 1700000000);
    kg_json *conds = kg_json_get(st, "conditions");
    assert_int_equal(conds->len, 2);
    assert_string_equal(kg_json_get_str(kg_json_at(conds, 0), "type"), "Other");
    kg_json *c = kg_json_at(conds, 1);
    assert_string_equal(kg_json_get_str(c, "type"), "ParamKindResolved");
    assert_string_equal(kg_json_get_str(c, "status"), "False");
    assert_string_equal(kg_json_get_str(c, "reason"), "ParamKindNotFound");
    assert_string_equal(kg_json_get_str(c, "message"),
                        "failed to find resource referenced by paramKind: 'example.com/v1, Kind=Widget'");
    assert_string_equal(kg_json_get_str(c, "lastTransitionTime"), "2023-11-14T22:13:20Z");
    assert_int_equal(kg_json_get(c, "observedGeneration")->u.i, 1);
    /* the next generation, still unresolved: the transition time stays */
    kg_json_set(&A, p, "status", st);
    kg_json_set(&A, kg_json_get(p, "metadata"), "generation", kg_json_new_int(&A, 2));
    st = kg_vapstatus_compute(&A, &TC.svc, p, 1800000000);
    c = kg_json_at(kg_json_get(st, "conditions"), 1);
    assert_string_equal(kg_json_get_str(c, "lastTransitionTime"), "2023-11-14T22:13:20Z");
    assert_int_equal(kg_json_get(c, "observedGeneration")->u.i, 2);
    /* resolved: the condition goes, the other stays */
    widget_served = true;
    kg_json_set(&A, p, "status", st);
    kg_json_set(&A, kg_json_get(p, "metadata"), "generation", kg_json_new_int(&A, 3));
    st = kg_vapstatus_compute(&A, &TC.svc, p, 1800000000);
    conds = kg_json_get(st, "conditions");
    assert_int_equal(conds->len, 1);
    assert_string_equal(kg_json_get_str(kg_json_at(conds, 0), "type"), "Other");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_type_checking_written, setup, teardown),
        cmocka_unit_test_setup_teardown(test_param_kind_condition, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
