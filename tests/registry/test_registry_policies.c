/* ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding through the write pipeline: the strategy rows
 * (registry/strategy.c) default them and reject what upstream's validation rejects, with its field paths and
 * messages, compiling every CEL expression at write. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admission/policy/policy.h"
#include "registry/codec.h"
#include "registry/pipeline.h"

typedef struct fixture {
    char dir[64];
    kg_store *store;
    kg_pipeline p;
    kg_arena a;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/kg-policies-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    kg_error err = {0};
    f->store = kg_store_open("sqlite", f->dir, NULL, &err);
    assert_non_null(f->store);
    f->p.store = f->store;
    kg_arena_init(&f->a, 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    kg_store_close(f->store);
    kg_arena_free(&f->a);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    if (system(cmd) != 0)
        return -1;
    free(f);
    return 0;
}

static kg_json *tj(kg_arena *a, const char *text)
{
    kg_error e = {0};
    kg_json *j = kg_json_parse(a, text, strlen(text), &e);
    if (!j)
        fail_msg("bad test JSON: %s: %s", e.msg, text);
    return j;
}

/* Create a policy (kind "ValidatingAdmissionPolicy") or binding from its spec; returns NULL on success (the stored
 * object in *out) or the error message. */
static const char *create(fixture *f, bool binding, const char *name, const char *spec, kg_json **out)
{
    const char *plural = binding ? "validatingadmissionpolicybindings" : "validatingadmissionpolicies";
    const kg_resource *r = kg_resource_find("admissionregistration.k8s.io", "v1", plural);
    assert_non_null(r);
    kg_write_request rq;
    kg_write_request_init(&rq, &f->a, r);
    rq.user.name = "alice";
    char body[8192];
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"%s\",\"metadata\":{\"name\":\"%s\"},"
             "\"spec\":%s}",
             binding ? "ValidatingAdmissionPolicyBinding" : "ValidatingAdmissionPolicy", name, spec);
    kg_write_result res;
    if (!kg_pipeline_create(&f->p, &rq, tj(&f->a, body), &res)) {
        assert_int_equal(res.code, 422);
        return res.status->message;
    }
    if (out) {
        kg_error err = {0};
        *out = res.object ? res.object : kg_obj_decode(&f->a, res.bytes, res.len, res.rev, &err);
    }
    return NULL;
}

#define RULES                                                                                                          \
    "\"matchConstraints\":{\"resourceRules\":[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"operations\":["         \
    "\"CREATE\"],\"resources\":[\"configmaps\"]}]}"
#define VAP_INVALID(name) "ValidatingAdmissionPolicy.admissionregistration.k8s.io \"" name "\" is invalid: "
#define BINDING_INVALID(name) "ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io \"" name "\" is invalid: "

static void test_policy_defaults(void **state)
{
    fixture *f = *state;
    kg_json *o = NULL;
    assert_null(create(f, false, "p", "{" RULES ",\"validations\":[{\"expression\":\"true\"}]}", &o));
    assert_string_equal(kg_json_path_str(o, "spec.failurePolicy"), "Fail");
    assert_string_equal(kg_json_path_str(o, "spec.matchConstraints.matchPolicy"), "Equivalent");
    assert_non_null(kg_json_path(o, "spec.matchConstraints.namespaceSelector"));
    assert_non_null(kg_json_path(o, "spec.matchConstraints.objectSelector"));
    const kg_json *rule = kg_json_at(kg_json_path(o, "spec.matchConstraints.resourceRules"), 0);
    assert_string_equal(kg_json_get_str(rule, "scope"), "*");
}

static void test_policy_expressions_compiled_at_write(void **state)
{
    fixture *f = *state;
    assert_string_equal(create(f, false, "p", "{" RULES ",\"validations\":[{\"expression\":\"object.(\"}]}", NULL),
                        VAP_INVALID("p") "spec.validations[0].expression: Invalid value: \"object.(\": compilation "
                                         "failed: ERROR: <input>:1:8: Syntax error: no viable alternative at input "
                                         "'.('\n | object.(\n | .......^");
    assert_string_equal(create(f, false, "p", "{" RULES ",\"validations\":[{\"expression\":\"object.spec\"}]}", NULL),
                        VAP_INVALID("p") "spec.validations[0].expression: Invalid value: \"object.spec\": must "
                                         "evaluate to bool but got dyn");
    assert_string_equal(create(f, false, "p",
                               "{" RULES ",\"validations\":[{\"expression\":\"true\",\"messageExpression\":\"1\"}]}",
                               NULL),
                        VAP_INVALID("p") "spec.validations[0].messageExpression: Invalid value: \"1\": must evaluate "
                                         "to string but got int");
    /* messageExpression has no authorizer */
    const char *m = create(f, false, "p",
                           "{" RULES ",\"validations\":[{\"expression\":\"true\",\"messageExpression\":\"authorizer."
                           "path('/').check('get').reason()\"}]}",
                           NULL);
    assert_non_null(m);
    assert_non_null(strstr(m, "undeclared reference to 'authorizer'"));
    /* params only with a paramKind */
    m = create(f, false, "p", "{" RULES ",\"validations\":[{\"expression\":\"params.x == 1\"}]}", NULL);
    assert_non_null(strstr(m, "undeclared reference to 'params'"));
    assert_null(create(f, false, "p1",
                       "{" RULES ",\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"},\"validations\":[{"
                       "\"expression\":\"params.data.x == '1'\"}]}",
                       NULL));
    /* variables, in order */
    m = create(f, false, "p",
               "{" RULES ",\"variables\":[{\"name\":\"a\",\"expression\":\"variables.b\"},{\"name\":\"b\","
               "\"expression\":\"1\"}],\"validations\":[{\"expression\":\"variables.b == 1\"}]}",
               NULL);
    assert_non_null(strstr(m, "spec.variables[0].expression: Invalid value: \"variables.b\": compilation failed: "
                              "ERROR: <input>:1:10: undefined field 'b'"));
    assert_string_equal(create(f, false, "p",
                               "{" RULES ",\"variables\":[{\"name\":\"in\",\"expression\":\"1\"}],\"validations\":[{"
                               "\"expression\":\"true\"}]}",
                               NULL),
                        VAP_INVALID("p") "spec.variables[0].name: Invalid value: \"in\": name is not a valid CEL "
                                         "identifier");
    /* matchConditions and auditAnnotations */
    assert_string_equal(create(f, false, "p",
                               "{" RULES ",\"matchConditions\":[{\"name\":\"m\",\"expression\":\"'x'\"}],"
                               "\"validations\":[{\"expression\":\"true\"}]}",
                               NULL),
                        VAP_INVALID("p") "spec.matchConditions[0].expression: Invalid value: \"'x'\": must evaluate "
                                         "to bool but got string");
    assert_string_equal(
        create(f, false, "p", "{" RULES ",\"auditAnnotations\":[{\"key\":\"k\",\"valueExpression\":\"1\"}]}", NULL),
        VAP_INVALID("p") "spec.auditAnnotations[0].valueExpression: Invalid value: \"1\": must "
                         "evaluate to one of [string null_type] but got int");
    assert_null(create(f, false, "p2",
                       "{" RULES ",\"auditAnnotations\":[{\"key\":\"k\",\"valueExpression\":\"null\"}]}", NULL));
}

static void test_policy_fields(void **state)
{
    fixture *f = *state;
    assert_string_equal(create(f, false, "p", "{" RULES "}", NULL),
                        VAP_INVALID("p") "[spec.validations: Required value: validations or auditAnnotations must "
                                         "contain at least one item, spec.auditAnnotations: Required value: "
                                         "validations or auditAnnotations must contain at least one item]");
    assert_string_equal(create(f, false, "p", "{\"validations\":[{\"expression\":\"true\"}]}", NULL),
                        VAP_INVALID("p") "spec.matchConstraints: Required value");
    assert_string_equal(
        create(f, false, "p", "{\"matchConstraints\":{},\"validations\":[{\"expression\":\"true\"}]}", NULL),
        VAP_INVALID("p") "spec.matchConstraints.resourceRules: Required value");
    assert_string_equal(
        create(f, false, "p", "{" RULES ",\"validations\":[{\"expression\":\"true\",\"reason\":\"Teapot\"}]}", NULL),
        VAP_INVALID("p") "spec.validations[0].reason: Unsupported value: \"Teapot\": supported "
                         "values: \"Forbidden\", \"Invalid\", \"RequestEntityTooLarge\"");
    assert_string_equal(
        create(f, false, "p", "{" RULES ",\"validations\":[{\"expression\":\"true\",\"message\":\"a\\nb\"}]}", NULL),
        VAP_INVALID("p") "spec.validations[0].message: Invalid value: \"a\\nb\": message must not "
                         "contain line breaks");
    assert_string_equal(
        create(f, false, "p", "{" RULES ",\"failurePolicy\":\"Sometimes\",\"validations\":[{\"expression\":\"true\"}]}",
               NULL),
        VAP_INVALID("p") "spec.failurePolicy: Unsupported value: \"Sometimes\": supported values: "
                         "\"Fail\", \"Ignore\"");
    assert_string_equal(create(f, false, "p",
                               "{" RULES ",\"paramKind\":{\"apiVersion\":\"v1\"},\"validations\":[{\"expression\":"
                               "\"true\"}]}",
                               NULL),
                        VAP_INVALID("p") "spec.paramKind.kind: Required value");
    assert_string_equal(create(f, false, "p",
                               "{" RULES ",\"auditAnnotations\":[{\"key\":\"a\",\"valueExpression\":\"'x'\"},{\"key\":"
                               "\"a\",\"valueExpression\":\"'y'\"}]}",
                               NULL),
                        VAP_INVALID("p") "spec.auditAnnotations[1].key: Duplicate value: \"a\"");
}

/* Expressions new in a write compile with the previous minor version's libraries (semver is v1.33's). */
static void test_new_expressions_environment(void **state)
{
    fixture *f = *state;
    const char *m =
        create(f, false, "p", "{" RULES ",\"validations\":[{\"expression\":\"semver('1.2.3').major() == 1\"}]}", NULL);
    assert_non_null(m);
    assert_non_null(strstr(m, VAP_INVALID("p") "spec.validations[0].expression: Invalid value: \"semver('1.2.3')."
                                               "major() == 1\": compilation failed: ERROR: <input>:1:"));
    assert_non_null(strstr(m, "undeclared reference to 'semver'"));
    /* an update that keeps a stored expression may keep using it */
    const char *spec = "{\"spec\":{\"failurePolicy\":\"Fail\"," RULES ",\"validations\":[{\"expression\":"
                       "\"semver('1.2.3').major() == 1\"}]},\"metadata\":{\"name\":\"p\"}}";
    kg_json *obj = tj(&f->a, spec);
    kg_vap_policy_defaults(&f->a, obj);
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_vap_policy_validate(&f->a, obj, obj, &errs);
    assert_int_equal(errs.len, 0);
    kg_vap_policy_validate(&f->a, obj, NULL, &errs);
    assert_int_equal(errs.len, 1);
}

static void test_too_many_audit_annotations(void **state)
{
    fixture *f = *state;
    char spec[4096] = "{" RULES ",\"auditAnnotations\":[";
    for (int i = 0; i < 21; i++)
        snprintf(spec + strlen(spec), sizeof spec - strlen(spec), "%s{\"key\":\"k%d\",\"valueExpression\":\"'x'\"}",
                 i ? "," : "", i);
    strcat(spec, "]}");
    const char *m = create(f, false, "p", spec, NULL);
    assert_non_null(m);
    assert_non_null(strstr(m, VAP_INVALID("p") "spec.auditAnnotations: Invalid value: "
                                               "[]admissionregistration.AuditAnnotation{admissionregistration."
                                               "AuditAnnotation{Key:\"k0\", ValueExpression:\"'x'\"}, "));
    assert_non_null(strstr(m, "}}: must not have more than 20 auditAnnotations"));
}

static void test_binding_fields(void **state)
{
    fixture *f = *state;
    kg_json *o = NULL;
    assert_null(create(f, true, "b", "{\"policyName\":\"p\",\"validationActions\":[\"Deny\"]}", &o));
    assert_string_equal(create(f, true, "b", "{\"policyName\":\"p\",\"validationActions\":[]}", NULL),
                        BINDING_INVALID("b") "spec.validationActions: Required value: at least one validation action "
                                             "is required");
    assert_string_equal(create(f, true, "b", "{\"policyName\":\"p\",\"validationActions\":[\"Deny\",\"Warn\"]}", NULL),
                        BINDING_INVALID("b") "spec.validationActions: Invalid value: "
                                             "[]admissionregistration.ValidationAction{\"Deny\", \"Warn\"}: must not "
                                             "contain both Deny and Warn (repeating the same validation failure "
                                             "information in the API response and headers serves no purpose)");
    assert_string_equal(
        create(f, true, "b", "{\"policyName\":\"p\",\"validationActions\":[\"Audit\",\"Audit\"]}", NULL),
        BINDING_INVALID("b") "spec.validationActions[1]: Duplicate value: \"Audit\"");
    assert_string_equal(create(f, true, "b", "{\"policyName\":\"p\",\"validationActions\":[\"Block\"]}", NULL),
                        BINDING_INVALID("b") "spec.validationActions[0]: Unsupported value: \"Block\": supported "
                                             "values: \"Audit\", \"Deny\", \"Warn\"");
    assert_string_equal(create(f, true, "b", "{\"validationActions\":[\"Deny\"]}", NULL),
                        BINDING_INVALID("b") "spec.policyName: Required value");
    assert_string_equal(create(f, true, "b",
                               "{\"policyName\":\"p\",\"validationActions\":[\"Deny\"],\"paramRef\":{"
                               "\"parameterNotFoundAction\":\"Deny\"}}",
                               NULL),
                        BINDING_INVALID("b") "spec.paramRef: Required value: one of name or selector must be "
                                             "specified");
    assert_string_equal(create(f, true, "b",
                               "{\"policyName\":\"p\",\"validationActions\":[\"Deny\"],\"paramRef\":{\"name\":\"x\","
                               "\"selector\":{}}}",
                               NULL),
                        BINDING_INVALID("b") "[spec.paramRef.name: Forbidden: name and selector are mutually "
                                             "exclusive, spec.paramRef.selector: Forbidden: name and selector are "
                                             "mutually exclusive, spec.paramRef.parameterNotFoundAction: Required "
                                             "value]");
    /* matchResources defaults, and upstream's misspelt path */
    assert_null(
        create(f, true, "b2", "{\"policyName\":\"p\",\"validationActions\":[\"Deny\"],\"matchResources\":{}}", &o));
    assert_string_equal(kg_json_path_str(o, "spec.matchResources.matchPolicy"), "Equivalent");
    assert_string_equal(create(f, true, "b",
                               "{\"policyName\":\"p\",\"validationActions\":[\"Deny\"],\"matchResources\":{"
                               "\"matchPolicy\":\"Fuzzy\"}}",
                               NULL),
                        BINDING_INVALID("b") "spec.matchResouces.matchPolicy: Unsupported value: \"Fuzzy\": supported "
                                             "values: \"Equivalent\", \"Exact\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_policy_defaults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_policy_expressions_compiled_at_write, setup, teardown),
        cmocka_unit_test_setup_teardown(test_policy_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_expressions_environment, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_many_audit_annotations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_binding_fields, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
