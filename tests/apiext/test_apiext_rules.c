/* x-kubernetes-validations: compile checks at CRD write and evaluation per request (self, oldSelf, transition
 * rules, optionalOldSelf, message, messageExpression, reason, fieldPath, list-map correlation). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "apiext/rules.h"
#include "apiext/schema.h"

static kg_arena A;
static int setup(void **s)
{
    kg_arena_init(&A, 0);
    return 0;
}
static int teardown(void **s)
{
    kg_arena_free(&A);
    return 0;
}

static kg_json *J(const char *s)
{
    kg_error err;
    kg_json *v = kg_json_parse(&A, s, strlen(s), &err);
    if (!v)
        fail_msg("bad test JSON: %s (%s)", err.msg, s);
    return v;
}

static const char *agg(const kg_field_errors *errs)
{
    const char *s = kg_field_errors_aggregate(&A, errs);
    return s ? s : "";
}

/* Errors of running the schema's rules over obj (old may be NULL). */
static const char *run(const char *schema, const char *obj, const char *old)
{
    kg_xs *s = kg_xs_compile(&A, J(schema));
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_xs_validate_rules(&A, s, J(obj), old ? J(old) : NULL, &errs);
    return agg(&errs);
}

static const char *check(const char *validations)
{
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_xs_rules_check(&A, J(validations), "spec.validation.openAPIV3Schema", &errs);
    return agg(&errs);
}

static void write_time_checks(void **state)
{
    assert_string_equal(check("[{\"rule\":\"self.a > 1\"}]"), "");
    assert_string_equal(check("[{\"rule\":\"\"}]"),
                        "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Required value: rule is not "
                        "specified");
    assert_string_equal(check("[{\"rule\":\"self.a\",\"message\":\"\"}]"),
                        "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].message: Required value: message "
                        "must be non-empty if specified");
    assert_string_equal(check("[{\"rule\":\"self.a\",\"reason\":\"Bad\"}]"),
                        "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].reason: Unsupported value: "
                        "\"Bad\": supported values: \"FieldValueInvalid\", \"FieldValueForbidden\", "
                        "\"FieldValueRequired\", \"FieldValueDuplicate\"");
    assert_string_equal(check("[{\"rule\":\"self.a\",\"fieldPath\":\"a.b\"}]"),
                        "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].fieldPath: Invalid value: "
                        "\"a.b\": fieldPath must be a valid path");
    assert_string_equal(check("[{\"rule\":\"self.a\",\"optionalOldSelf\":true}]"),
                        "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].optionalOldSelf: Invalid value: "
                        "true: may not be set if oldSelf is not used in rule");
    const char *got = check("[{\"rule\":\"self.a == \"}]");
    assert_non_null(strstr(got, "x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"
                                "\"self.a == \", Message:\"\", MessageExpression:\"\", Reason:"
                                "(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\"\", "
                                "OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:"));
    assert_non_null(strstr(check("[{\"rule\":\"1 + 1\"}]"), "cel expression must evaluate to a bool"));
    assert_non_null(strstr(check("[{\"rule\":\"true\",\"messageExpression\":\"1\"}]"),
                           "messageExpression must evaluate to a string"));
}

static const char SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\","
    " \"x-kubernetes-validations\":["
    "   {\"rule\":\"self.min <= self.max\"},"
    "   {\"rule\":\"self.max < 100\",\"message\":\"max too large\",\"fieldPath\":\".max\"},"
    "   {\"rule\":\"self.min >= 0\",\"messageExpression\":\"'min is ' + string(self.min)\",\"reason\":"
    "     \"FieldValueForbidden\"},"
    "   {\"rule\":\"self.max >= oldSelf.max\",\"message\":\"max may not shrink\"}],"
    " \"properties\":{\"min\":{\"type\":\"integer\"},\"max\":{\"type\":\"integer\"},"
    "  \"name\":{\"type\":\"string\",\"x-kubernetes-validations\":[{\"rule\":\"self == oldSelf\",\"message\":"
    "     \"name is immutable\"}]},"
    "  \"ports\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":[\"name\"],"
    "    \"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"port\":{\"type\":"
    "     \"integer\"}},\"x-kubernetes-validations\":[{\"rule\":\"self.port >= oldSelf.port\",\"message\":"
    "     \"port may not decrease\"}]}},"
    "  \"opt\":{\"type\":\"string\",\"x-kubernetes-validations\":[{\"rule\":\"!oldSelf.hasValue() || "
    "     oldSelf.value() == self\",\"optionalOldSelf\":true,\"message\":\"opt is set once\"}]}"
    "}}}}";

static void evaluation(void **state)
{
    assert_string_equal(run(SCHEMA, "{\"spec\":{\"min\":1,\"max\":5}}", NULL), "");
    assert_string_equal(run(SCHEMA, "{\"spec\":{\"min\":6,\"max\":5}}", NULL),
                        "spec: Invalid value: \"object\": failed rule: self.min <= self.max");
    assert_string_equal(run(SCHEMA, "{\"spec\":{\"min\":1,\"max\":500}}", NULL),
                        "spec.max: Invalid value: \"object\": max too large");
    assert_string_equal(run(SCHEMA, "{\"spec\":{\"min\":-2,\"max\":5}}", NULL), "spec: Forbidden: min is -2");
    /* transition rules: skipped on create, run on update where the old value correlates */
    assert_string_equal(run(SCHEMA, "{\"spec\":{\"min\":1,\"max\":3}}", "{\"spec\":{\"min\":1,\"max\":5}}"),
                        "spec: Invalid value: \"object\": max may not shrink");
    assert_string_equal(run(SCHEMA, "{\"spec\":{\"min\":1,\"max\":5,\"name\":\"b\"}}",
                            "{\"spec\":{\"min\":1,\"max\":5,\"name\":\"a\"}}"),
                        "spec.name: Invalid value: \"string\": name is immutable");
    assert_string_equal(
        run(SCHEMA, "{\"spec\":{\"min\":1,\"max\":5,\"name\":\"b\"}}", "{\"spec\":{\"min\":1,\"max\":5}}"), "");
    /* list-type=map items correlate by key, not position */
    assert_string_equal(run(SCHEMA,
                            "{\"spec\":{\"min\":1,\"max\":5,\"ports\":[{\"name\":\"b\",\"port\":1},{\"name\":\"a\","
                            "\"port\":10}]}}",
                            "{\"spec\":{\"min\":1,\"max\":5,\"ports\":[{\"name\":\"a\",\"port\":9},{\"name\":\"b\","
                            "\"port\":2}]}}"),
                        "spec.ports[0]: Invalid value: \"object\": port may not decrease");
    /* optionalOldSelf: runs on create too, oldSelf an optional */
    assert_string_equal(run(SCHEMA, "{\"spec\":{\"min\":1,\"max\":5,\"opt\":\"x\"}}", NULL), "");
    assert_string_equal(run(SCHEMA, "{\"spec\":{\"min\":1,\"max\":5,\"opt\":\"y\"}}",
                            "{\"spec\":{\"min\":1,\"max\":5,\"opt\":\"x\"}}"),
                        "spec.opt: Invalid value: \"string\": opt is set once");
    /* root rules print the nil path; evaluation errors name the rule */
    assert_string_equal(run("{\"type\":\"object\",\"x-kubernetes-validations\":[{\"rule\":\"self.spec.x > 0\"}]}",
                            "{\"spec\":{}}", NULL),
                        "<nil>: Invalid value: \"object\": no such key: x evaluating rule: self.spec.x > 0");
    /* the per-call cost limit */
    const char *got = run("{\"type\":\"object\",\"x-kubernetes-validations\":[{\"rule\":\"[1,2,3,4,5,6,7,8,9,10]."
                          "all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10]."
                          "all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a+b+c+d+e+f > 0))))))\"}]}",
                          "{}", NULL);
    assert_non_null(strstr(got, "'operation cancelled: actual cost limit exceeded': no further validation rules will "
                                "be run due to call cost exceeds limit for rule: "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(write_time_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(evaluation, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
