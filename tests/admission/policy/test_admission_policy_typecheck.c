/* The ValidatingAdmissionPolicy type checker (src/admission/policy/typecheck.c) over kgate's real schemas: the test
 * plays the server's part of the admission services (kind_for_resource, kind_schema over api/resources.h and
 * api/schema.h, as src/server/clusterstate.c does). Undefined fields, comparisons of the wrong types, fields of list
 * elements and of map values, params typed from paramKind (and undeclared when paramKind is unknown), variables,
 * several kinds in one warning, the kinds that are not checked (wildcards, subresources, unknown resources), and
 * upstream's warning text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "admission/policy/policy.h"
#include "api/resources.h"
#include "api/schema.h"

static bool kind_for_resource(void *ctx, const char *group, const char *version, const char *resource,
                              const char **kind)
{
    (void)ctx;
    const kg_resource *r = kg_resource_find(group, version, resource);
    if (r)
        *kind = r->kind;
    return r != NULL;
}

static kg_json *kind_schema(void *ctx, kg_arena *a, const char *group, const char *version, const char *kind,
                            const char **root)
{
    (void)ctx;
    const kg_resource *r = kg_resource_find_kind(group, kind);
    if (!r || strcmp(r->version, version))
        return NULL;
    kg_json *s = kg_json_new_object(a);
    kg_schema_add_resource(a, s, r, true);
    *root = kg_schema_type_name(a, r);
    return s;
}

static kg_arena A;
static kg_admission_services S = {.kind_for_resource = kind_for_resource, .kind_schema = kind_schema};

static int setup(void **state)
{
    (void)state;
    kg_arena_init(&A, 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kg_arena_free(&A);
    return 0;
}

#define DEPLOY_RULES "[{\"apiGroups\":[\"apps\"],\"apiVersions\":[\"v1\"],\"resources\":[\"deployments\"]}]"

/* The warnings for a policy with the given rules and spec members. */
static kg_json *check(const char *rules, const char *spec_rest)
{
    char *src = kg_arena_sprintf(
        &A, "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"matchConstraints\":{\"resourceRules\":%s},%s}}", rules,
        spec_rest);
    kg_error err;
    kg_json *p = kg_json_parse(&A, src, strlen(src), &err);
    assert_non_null(p);
    kg_json *w = kg_vap_typecheck(p, &S, &A);
    assert_non_null(w);
    assert_int_equal(w->type, KG_JSON_ARRAY);
    if (getenv("TC_DEBUG"))
        fprintf(stderr, "%s\n", kg_json_to_string(&A, w, 0, NULL));
    return w;
}

static const char *field_ref(const kg_json *w, size_t i)
{
    return kg_json_get_str(kg_json_at(w, i), "fieldRef");
}

static const char *warning(const kg_json *w, size_t i)
{
    return kg_json_get_str(kg_json_at(w, i), "warning");
}

static void test_undefined_field(void **state)
{
    (void)state;
    kg_json *w = check(DEPLOY_RULES, "\"validations\":[{\"expression\":\"object.spec.replicas > 1\"},"
                                     "{\"expression\":\"object.spec.replicaz > 1\"}]");
    assert_int_equal(w->len, 1);
    assert_string_equal(field_ref(w, 0), "spec.validations[1].expression");
    assert_string_equal(warning(w, 0), "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicaz'\n"
                                       " | object.spec.replicaz > 1\n"
                                       " | ...........^\n");
}

static void test_wrong_type_comparison(void **state)
{
    (void)state;
    kg_json *w = check(DEPLOY_RULES, "\"validations\":[{\"expression\":\"object.spec.replicas == 'three'\","
                                     "\"messageExpression\":\"object.metadata.name + 1\"}]");
    assert_int_equal(w->len, 2);
    assert_string_equal(field_ref(w, 0), "spec.validations[0].expression");
    assert_non_null(strstr(warning(w, 0), "apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload "
                                          "for '_==_' applied to '(int, string)'"));
    assert_string_equal(field_ref(w, 1), "spec.validations[0].messageExpression");
    assert_non_null(strstr(warning(w, 1), "found no matching overload for '_+_' applied to '(string, int)'"));
}

static void test_list_elements_and_maps(void **state)
{
    (void)state;
    kg_json *w = check("[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"resources\":[\"pods\"]}]",
                       "\"validations\":["
                       "{\"expression\":\"object.spec.containers.all(c, c.image != '' && c.imagePullPolicy != '')\"},"
                       "{\"expression\":\"object.spec.containers.all(c, c.imagez != '')\"},"
                       "{\"expression\":\"object.metadata.labels['app'] == 'x'\"},"
                       "{\"expression\":\"object.spec.containers[0].ports[0].containerPort == 'x'\"},"
                       "{\"expression\":\"object.metadata.labels['app'] == 1\"}]");
    assert_int_equal(w->len, 3);
    assert_string_equal(field_ref(w, 0), "spec.validations[1].expression");
    assert_non_null(strstr(warning(w, 0), "/v1, Kind=Pod: ERROR: <input>:1:32: undefined field 'imagez'"));
    assert_string_equal(field_ref(w, 1), "spec.validations[3].expression");
    assert_non_null(strstr(warning(w, 1), "applied to '(int, string)'"));
    assert_string_equal(field_ref(w, 2), "spec.validations[4].expression");
    assert_non_null(strstr(warning(w, 2), "applied to '(string, int)'"));
}

static void test_params(void **state)
{
    (void)state;
    /* ConfigMap params: data is map(string, string) */
    kg_json *w =
        check(DEPLOY_RULES, "\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"},"
                            "\"validations\":[{\"expression\":\"object.spec.replicas <= int(params.data.max)\"},"
                            "{\"expression\":\"params.datax.max == 'x'\"},"
                            "{\"expression\":\"params.data.max > 3\"}]");
    assert_int_equal(w->len, 2);
    assert_string_equal(field_ref(w, 0), "spec.validations[1].expression");
    assert_non_null(strstr(warning(w, 0), "undefined field 'datax'"));
    assert_string_equal(field_ref(w, 1), "spec.validations[2].expression");
    assert_non_null(strstr(warning(w, 1), "applied to '(string, int)'"));
    /* an unknown paramKind: params is not declared, as upstream */
    w = check(DEPLOY_RULES, "\"paramKind\":{\"apiVersion\":\"example.com/v1\",\"kind\":\"Limits\"},"
                            "\"validations\":[{\"expression\":\"params.max > 1\"}]");
    assert_int_equal(w->len, 1);
    assert_non_null(strstr(warning(w, 0), "undeclared reference to 'params'"));
}

static void test_variables_and_other_expressions(void **state)
{
    (void)state;
    kg_json *w =
        check(DEPLOY_RULES, "\"variables\":[{\"name\":\"r\",\"expression\":\"object.spec.replicas\"},"
                            "{\"name\":\"bad\",\"expression\":\"object.spec.nope\"}],"
                            "\"validations\":[{\"expression\":\"variables.r == 'x'\"}],"
                            "\"auditAnnotations\":[{\"key\":\"k\",\"valueExpression\":\"object.spec.foo\"}],"
                            "\"matchConditions\":[{\"name\":\"m\",\"expression\":\"object.spec.paused == 1\"}]");
    assert_int_equal(w->len, 4);
    assert_string_equal(field_ref(w, 0), "spec.validations[0].expression"); /* variables.r is an int */
    assert_non_null(strstr(warning(w, 0), "applied to '(int, string)'"));
    assert_string_equal(field_ref(w, 1), "spec.variables[1].expression");
    assert_non_null(strstr(warning(w, 1), "undefined field 'nope'"));
    assert_string_equal(field_ref(w, 2), "spec.auditAnnotations[0].valueExpression");
    assert_string_equal(field_ref(w, 3), "spec.matchConditions[0].expression");
    assert_non_null(strstr(warning(w, 3), "applied to '(bool, int)'"));
}

static void test_several_kinds(void **state)
{
    (void)state;
    /* sorted by group, version, kind; one result per kind, joined with "\n" */
    kg_json *w = check("[{\"apiGroups\":[\"apps\"],\"apiVersions\":[\"v1\"],\"resources\":[\"replicasets\","
                       "\"deployments\"]}]",
                       "\"validations\":[{\"expression\":\"object.replicas > 1\"}]");
    assert_int_equal(w->len, 1);
    assert_string_equal(warning(w, 0), "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n"
                                       " | object.replicas > 1\n"
                                       " | ......^\n"
                                       "\n"
                                       "apps/v1, Kind=ReplicaSet: ERROR: <input>:1:7: undefined field 'replicas'\n"
                                       " | object.replicas > 1\n"
                                       " | ......^\n");
}

static void test_unchecked(void **state)
{
    (void)state;
    const char *bad = "\"validations\":[{\"expression\":\"object.nothing == 1\"}]";
    /* wildcards in groups or versions, wildcard and subresources, unknown resources: nothing to check */
    assert_int_equal(check("[{\"apiGroups\":[\"*\"],\"apiVersions\":[\"v1\"],\"resources\":[\"pods\"]}]", bad)->len, 0);
    assert_int_equal(check("[{\"apiGroups\":[\"\"],\"apiVersions\":[\"*\"],\"resources\":[\"pods\"]}]", bad)->len, 0);
    assert_int_equal(
        check("[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"resources\":[\"*\",\"pods/status\"]}]", bad)->len, 0);
    assert_int_equal(check("[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"resources\":[\"podz\"]}]", bad)->len, 0);
    /* a reserved word is escaped in the schema, as upstream: object.metadata.namespace is not a field */
    kg_json *w = check(DEPLOY_RULES, "\"validations\":[{\"expression\":\"object.metadata.__namespace__ == 'a'\"},"
                                     "{\"expression\":\"object.metadata.namespace == 'a'\"}]");
    assert_int_equal(w->len, 1);
    assert_string_equal(field_ref(w, 0), "spec.validations[1].expression");
    /* well-typed policies: no warnings */
    assert_int_equal(
        check(DEPLOY_RULES,
              "\"validations\":[{\"expression\":\"object.spec.template.spec.containers."
              "all(c, !has(c.securityContext) || c.securityContext.privileged != true)\"},"
              "{\"expression\":\"object.metadata.creationTimestamp < timestamp('2030-01-01T00:00:00Z')\"}]")
            ->len,
        0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_undefined_field, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_type_comparison, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_elements_and_maps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_params, setup, teardown),
        cmocka_unit_test_setup_teardown(test_variables_and_other_expressions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_several_kinds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unchecked, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
