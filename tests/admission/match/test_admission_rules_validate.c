/* Write-time validation of admission rules (src/admission/match/rules_validate.c) with upstream's paths and texts. */
#include "../admission_testutil.h"

#include "admission/match/rules_validate.h"

static kg_arena A;

static const char *errs_of(const char *rule, bool named)
{
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_match_rule_validate(&A, tj(&A, rule), "r", named, &errs);
    return kg_field_errors_aggregate(&A, &errs);
}

#define OK_TAIL "\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"]"

static void test_rules(void **state)
{
    kg_arena_init(&A, 0);
    assert_null(errs_of("{\"operations\":[\"CREATE\"]," OK_TAIL ",\"resources\":[\"pods\",\"pods/status\"]}", true));
    assert_string_equal(errs_of("{}", false), "[r.operations: Required value, r.apiGroups: Required value, "
                                              "r.apiVersions: Required value, r.resources: Required value]");
    assert_string_equal(errs_of("{\"operations\":[\"*\",\"CREATE\"]," OK_TAIL ",\"resources\":[\"pods\"]}", false),
                        "r.operations: Invalid value: []admissionregistration.OperationType{\"*\", \"CREATE\"}: if "
                        "'*' is present, must not specify other operations");
    assert_string_equal(errs_of("{\"operations\":[\"PATCH\"]," OK_TAIL ",\"resources\":[\"pods\"]}", false),
                        "r.operations[0]: Unsupported value: \"PATCH\": supported values: \"*\", \"CONNECT\", "
                        "\"CREATE\", \"DELETE\", \"UPDATE\"");
    assert_string_equal(errs_of("{\"operations\":[\"*\"],\"apiGroups\":[\"*\",\"apps\"],\"apiVersions\":[\"v1\"],"
                                "\"resources\":[\"pods\"]}",
                                false),
                        "r.apiGroups: Invalid value: []string{\"*\", \"apps\"}: if '*' is present, must not specify "
                        "other API groups");
    assert_string_equal(errs_of("{\"operations\":[\"*\"]," OK_TAIL ",\"resources\":[\"*/*\",\"pods\"]}", false),
                        "r.resources: Invalid value: []string{\"*/*\", \"pods\"}: if '*/*' is present, must not "
                        "specify other resources");
    assert_string_equal(errs_of("{\"operations\":[\"*\"]," OK_TAIL ",\"resources\":[\"*\",\"pods\"]}", false),
                        "r.resources: Invalid value: []string{\"*\", \"pods\"}: if '*' is present, must not specify "
                        "other resources without subresources");
    assert_string_equal(
        errs_of("{\"operations\":[\"*\"]," OK_TAIL ",\"resources\":[\"pods/*\",\"pods/status\"]}", false),
        "r.resources[1]: Invalid value: \"pods/status\": if 'pods/*' is present, must not specify "
        "pods/status");
    assert_string_equal(
        errs_of("{\"operations\":[\"*\"]," OK_TAIL ",\"resources\":[\"*/status\",\"pods/status\"]}", false),
        "r.resources[1]: Invalid value: \"pods/status\": if '*/status' is present, must not specify "
        "pods/status");
    assert_string_equal(
        errs_of("{\"operations\":[\"*\"]," OK_TAIL ",\"resources\":[\"pods\"],\"scope\":\"Global\"}", false),
        "r.scope: Unsupported value: \"Global\": supported values: \"*\", \"Cluster\", \"Namespaced\"");
    assert_string_equal(errs_of("{\"operations\":[\"*\"]," OK_TAIL ",\"resources\":[\"pods\"],\"resourceNames\":["
                                "\"a\",\"a\",\"b/c\"]}",
                                true),
                        "[r.resourceNames[1]: Duplicate value: \"a\", r.resourceNames[2]: Invalid value: \"b/c\": may "
                        "not contain '/']");
    kg_arena_free(&A);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_rules)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
