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
}

/* CRD write errors of a whole schema (typed compilation, costs) at the usual root path. */
static const char *check_tree(const char *schema)
{
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_xs_rules_check_tree(&A, J(schema), "spec.validation.openAPIV3Schema", false, &errs);
    return agg(&errs);
}

/* A schema whose spec (properties given) carries the rule(s) validations. */
static const char *spec_rules(const char *props, const char *validations)
{
    return kg_arena_sprintf(&A,
                            "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":"
                            "%s,\"x-kubernetes-validations\":%s}}}",
                            props, validations);
}

static void compile_checks(void **state)
{
    const char *P = "{\"a\":{\"type\":\"integer\"},\"s\":{\"type\":\"string\"}}";
    assert_string_equal(check_tree(spec_rules(P, "[{\"rule\":\"self.a > 1 && self.s != 'x'\"}]")), "");
    const char *got = check_tree(spec_rules(P, "[{\"rule\":\"self.a == \"}]"));
    assert_non_null(strstr(got,
                           "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: "
                           "Invalid value: apiextensions.ValidationRule{Rule:\"self.a == \", Message:\"\", "
                           "MessageExpression:\"\", Reason:(*apiextensions.FieldValueErrorReason)(nil), "
                           "FieldPath:\"\", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:"));
    /* typed self: undefined fields and wrong operand types are compile errors, as upstream */
    got = check_tree(spec_rules(P, "[{\"rule\":\"self.foo == 1\"}]"));
    assert_non_null(strstr(got, "compilation failed: ERROR: <input>:1:5: undefined field 'foo'"));
    got = check_tree(spec_rules(P, "[{\"rule\":\"self.a == 'x'\"}]"));
    assert_non_null(strstr(got,
                           "compilation failed: ERROR: <input>:1:8: found no matching overload for '_==_' applied to "
                           "'(int, string)'"));
    assert_non_null(
        strstr(check_tree(spec_rules(P, "[{\"rule\":\"self.a + 1\"}]")),
               "x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:\"self.a + "
               "1\", Message:\"\", MessageExpression:\"\", Reason:(*apiextensions.FieldValueErrorReason)(nil), "
               "FieldPath:\"\", OptionalOldSelf:(*bool)(nil)}: cel expression must evaluate to a bool"));
    assert_non_null(strstr(check_tree(spec_rules(P, "[{\"rule\":\"true\",\"messageExpression\":\"self.a\"}]")),
                           "x-kubernetes-validations[0].messageExpression: Invalid value: "
                           "apiextensions.ValidationRule{Rule:\"true\", Message:\"\", MessageExpression:\"self.a\", "
                           "Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\"\", "
                           "OptionalOldSelf:(*bool)(nil)}: messageExpression must evaluate to a string"));
    assert_non_null(strstr(check_tree(spec_rules(P, "[{\"rule\":\"true\",\"messageExpression\":\"self.b\"}]")),
                           "messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'b'"));
    /* the root exposes apiVersion, kind, metadata.name and metadata.generateName, no other metadata */
    const char *root = "{\"type\":\"object\",\"x-kubernetes-validations\":[{\"rule\":\"%s\"}]}";
    assert_string_equal(check_tree(kg_arena_sprintf(&A, root,
                                                    "self.apiVersion != '' && self.kind != '' && "
                                                    "self.metadata.name.startsWith('a') && "
                                                    "!has(self.metadata.generateName)")),
                        "");
    assert_non_null(strstr(check_tree(kg_arena_sprintf(&A, root, "self.metadata.namespace == 'x'")),
                           "undefined field 'namespace'"));
    /* oldSelf only where old values correlate: not under items of lists other than list-type=map */
    got = check_tree(spec_rules("{\"l\":{\"type\":\"array\",\"maxItems\":10,\"items\":{\"type\":\"string\","
                                "\"maxLength\":10,\"x-kubernetes-validations\":[{\"rule\":\"self == oldSelf\"}]}}}",
                                "[]"));
    assert_string_equal(got, "spec.validation.openAPIV3Schema.properties[spec].properties[l].items."
                             "x-kubernetes-validations[0].rule: Invalid value: \"self == oldSelf\": oldSelf cannot be "
                             "used on the uncorrelatable portion of the schema within "
                             "spec.validation.openAPIV3Schema.properties[spec].properties[l]");
    assert_string_equal(check_tree(spec_rules("{\"l\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\","
                                              "\"x-kubernetes-list-map-keys\":[\"k\"],\"items\":{\"type\":\"object\","
                                              "\"properties\":{\"k\":{\"type\":\"string\"}},"
                                              "\"x-kubernetes-validations\":[{\"rule\":\"self == oldSelf\"}]}}}",
                                              "[]")),
                        "");
}

/* Estimated costs with the schema's bounds (figures as cel-go's estimator computes them: see
 * test_apiext_celtypes.c for the comparison with upstream's). */
static void cost_checks(void **state)
{
    /* a nested all() over a list of 1000 strings of up to 1000 characters: 405,006,003 */
    const char *L = "{\"l\":{\"type\":\"array\",\"maxItems\":1000,\"items\":{\"type\":\"string\",\"maxLength\":1000}}}";
    const char *got = check_tree(spec_rules(L, "[{\"rule\":\"self.l.all(x, self.l.all(y, x == y))\"}]"));
    assert_non_null(strstr(got, "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: "
                                "Forbidden: estimated rule cost exceeds budget by factor of 40.5x (try simplifying "
                                "the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and "
                                "strings are declared)"));
    /* the same rule within bounds */
    const char *S = "{\"l\":{\"type\":\"array\",\"maxItems\":100,\"items\":{\"type\":\"string\",\"maxLength\":100}}}";
    assert_string_equal(check_tree(spec_rules(S, "[{\"rule\":\"self.l.all(x, self.l.all(y, x == y))\"}]")), "");
    /* unbounded: the list's items from the 3 MiB request size */
    got = check_tree(spec_rules("{\"l\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}",
                                "[{\"rule\":\"self.l.all(x, self.l.all(y, x == y))\"}]"));
    assert_non_null(strstr(got, "estimated rule cost exceeds budget by factor of more than 100x"));
    /* a rule on the items of an unbounded list counts once per item that fits in a request (1,048,576 strings):
     * 6 x 1,048,576 each, 16 of them exceed the schema's total of 100,000,000 */
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\",\"items\":{\"type\":\"string\","
                    "\"x-kubernetes-validations\":[");
    for (int i = 0; i < 16; i++)
        kg_buf_printf(&b, "%s{\"rule\":\"self.startsWith('a') && self.endsWith('b') && self.startsWith('c')\"}",
                      i ? "," : "");
    kg_buf_puts(&b, "]}}}}");
    got = check_tree(kg_arena_strndup(&A, b.data, b.len));
    kg_buf_free(&b);
    assert_string_equal(got, "[spec.validation.openAPIV3Schema.properties[l].items.x-kubernetes-validations[0].rule: "
                             "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire "
                             "OpenAPIv3 schema, "
                             "spec.validation.openAPIV3Schema.properties[l].items.x-kubernetes-validations[1].rule: "
                             "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire "
                             "OpenAPIv3 schema, "
                             "spec.validation.openAPIV3Schema.properties[l].items.x-kubernetes-validations[2].rule: "
                             "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire "
                             "OpenAPIv3 schema, "
                             "spec.validation.openAPIV3Schema.properties[l].items.x-kubernetes-validations[3].rule: "
                             "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire "
                             "OpenAPIv3 schema, spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations "
                             "estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of "
                             "1.006633x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength "
                             "where arrays, maps, and strings are declared)]");
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
    assert_string_equal(
        run(SCHEMA, "{\"spec\":{\"min\":1,\"max\":5,\"opt\":\"y\"}}", "{\"spec\":{\"min\":1,\"max\":5,\"opt\":\"x\"}}"),
        "spec.opt: Invalid value: \"string\": opt is set once");
    /* root rules print the nil path; evaluation errors name the rule */
    assert_string_equal(
        run("{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
            "\"x\":{\"type\":\"integer\"}}}},\"x-kubernetes-validations\":[{\"rule\":\"self.spec.x > 0\"}]}",
            "{\"spec\":{}}", NULL),
        "<nil>: Invalid value: \"object\": no such key: x evaluating rule: self.spec.x > 0");
    /* the per-call cost limit */
    const char *got =
        run("{\"type\":\"object\",\"x-kubernetes-validations\":[{\"rule\":\"[1,2,3,4,5,6,7,8,9,10]."
            "all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10]."
            "all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a+b+c+d+e+f > 0))))))\"}]}",
            "{}", NULL);
    assert_non_null(strstr(got, "'operation cancelled: actual cost limit exceeded': no further validation rules will "
                                "be run due to call cost exceeds limit for rule: "));
}

/* Rules see values through their schema types: escaped names, formats, numbers as doubles, embedded resources. */
static void typed_evaluation(void **state)
{
    const char *schema = "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
                         "\"max-size\":{\"type\":\"integer\"},\"ratio\":{\"type\":\"number\"},"
                         "\"start\":{\"type\":\"string\",\"format\":\"date-time\"},"
                         "\"end\":{\"type\":\"string\",\"format\":\"date-time\"},"
                         "\"timeout\":{\"type\":\"string\",\"format\":\"duration\"},"
                         "\"tpl\":{\"type\":\"object\",\"x-kubernetes-embedded-resource\":true,"
                         "  \"x-kubernetes-preserve-unknown-fields\":true,"
                         "  \"x-kubernetes-validations\":[{\"rule\":\"self.kind == 'Pod' && self.metadata.name != ''\","
                         "    \"message\":\"a named pod\"}]}},"
                         "\"x-kubernetes-validations\":["
                         "  {\"rule\":\"self.max__dash__size <= 10\",\"message\":\"max-size too big\"},"
                         "  {\"rule\":\"self.ratio * 2.0 <= 1.0\",\"message\":\"ratio above one half\"},"
                         "  {\"rule\":\"self.start < self.end\",\"message\":\"start after end\"},"
                         "  {\"rule\":\"self.timeout <= duration('1h')\",\"message\":\"timeout above an hour\"}]}}}";
    const char *ok = "{\"spec\":{\"max-size\":3,\"ratio\":0,\"start\":\"2024-01-01T00:00:00Z\","
                     "\"end\":\"2024-01-02T00:00:00Z\",\"timeout\":\"30m\","
                     "\"tpl\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
                     "\"labels\":{\"a\":\"b\"}},\"spec\":{}}}}";
    assert_string_equal(run(schema, ok, NULL), "");
    const char *bad = "{\"spec\":{\"max-size\":30,\"ratio\":1,\"start\":\"2024-01-03T00:00:00Z\","
                      "\"end\":\"2024-01-02T00:00:00Z\",\"timeout\":\"2h\","
                      "\"tpl\":{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"p\"}}}}";
    assert_string_equal(run(schema, bad, NULL),
                        "[spec: Invalid value: \"object\": max-size too big, spec: Invalid value: \"object\": ratio "
                        "above one half, spec: Invalid value: \"object\": start after end, spec: Invalid value: "
                        "\"object\": timeout above an hour, spec.tpl: Invalid value: \"object\": a named pod]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(write_time_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(compile_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(cost_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(evaluation, setup, teardown),
        cmocka_unit_test_setup_teardown(typed_evaluation, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
