/* matchConditions (src/admission/match/conditions.c): write-time field errors, and the evaluation semantics of
 * upstream's matcher: any false wins, errors without a false are an error (aggregated), the shared 2,500,000
 * budget, params only for policies. */
#include "../admission_testutil.h"

#include "admission/match/conditions.h"

static kg_arena A;

static int setup(void **state)
{
    kg_arena_init(&A, 0);
    return 0;
}
static int teardown(void **state)
{
    kg_arena_free(&A);
    return 0;
}

static char *errors_of(const char *json, bool params)
{
    kg_match_conditions mc;
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_match_conditions_compile(&mc, &A, tj(&A, json), params, "spec.matchConditions", &errs);
    kg_match_conditions_free(&mc);
    return kg_field_errors_aggregate(&A, &errs);
}

static void test_validation(void **state)
{
    assert_null(errors_of("[{\"name\":\"a\",\"expression\":\"true\"}]", false));
    assert_string_equal(
        errors_of("[{\"name\":\"a\",\"expression\":\"true\"},{\"name\":\"a\",\"expression\":\"true\"}]", false),
        "spec.matchConditions[1].name: Duplicate value: \"a\"");
    assert_string_equal(errors_of("[{\"name\":\"a\",\"expression\":\"  \"}]", false),
                        "spec.matchConditions[0].expression: Required value");
    assert_string_equal(errors_of("[{\"expression\":\"true\"}]", false),
                        "spec.matchConditions[0].name: Required value");
    assert_non_null(strstr(errors_of("[{\"name\":\"a b\",\"expression\":\"true\"}]", false),
                           "spec.matchConditions[0].name: Invalid value: \"a b\": name part must consist of"));
    assert_string_equal(errors_of("[{\"name\":\"a\",\"expression\":\"object.(\"}]", false),
                        "spec.matchConditions[0].expression: Invalid value: \"object.(\": compilation failed: "
                        "ERROR: <input>:1:8: Syntax error: no viable alternative at input '.('\n | object.(\n | "
                        ".......^");
    assert_string_equal(errors_of("[{\"name\":\"a\",\"expression\":\"'x'\"}]", false),
                        "spec.matchConditions[0].expression: Invalid value: \"'x'\": must evaluate to bool but got "
                        "string");
    assert_non_null(strstr(errors_of("[{\"name\":\"a\",\"expression\":\"params.x == 1\"}]", false),
                           "undeclared reference to 'params'"));
    assert_null(errors_of("[{\"name\":\"a\",\"expression\":\"params.x == 1\"}]", true));
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "[");
    for (int i = 0; i < 65; i++)
        kg_buf_printf(&b, "%s{\"name\":\"c%d\",\"expression\":\"true\"}", i ? "," : "", i);
    kg_buf_puts(&b, "]");
    assert_string_equal(errors_of(b.data, false), "spec.matchConditions: Too many: 65: must have at most 64 items");
    kg_buf_free(&b);
}

static kg_mc_result eval(const char *json, const char **error, const char **failed)
{
    kg_match_conditions mc;
    assert_true(kg_match_conditions_compile(&mc, &A, tj(&A, json), false, "x", NULL));
    kg_admission_attributes at;
    tattrs(&at, &A, KG_ADMISSION_CREATE, "ConfigMap", "configmaps", "ns", "skip",
           tj(&A, "{\"metadata\":{\"name\":\"skip\"}}"), NULL);
    kg_acel_input in;
    kg_acel_input_init(&in, &at, NULL, NULL, NULL, NULL);
    kg_mc_result r = kg_match_conditions_eval(&mc, &in, &A, error, failed);
    kg_match_conditions_free(&mc);
    return r;
}

static void test_semantics(void **state)
{
    const char *err, *failed;
    assert_int_equal(eval("[]", &err, &failed), KG_MC_MATCH);
    assert_int_equal(eval("[{\"name\":\"a\",\"expression\":\"true\"},{\"name\":\"b\",\"expression\":\"request.name "
                          "== 'skip'\"}]",
                          &err, &failed),
                     KG_MC_MATCH);
    assert_int_equal(eval("[{\"name\":\"a\",\"expression\":\"true\"},{\"name\":\"not-skip\",\"expression\":\"object."
                          "metadata.name != 'skip'\"}]",
                          &err, &failed),
                     KG_MC_NO_MATCH);
    assert_string_equal(failed, "not-skip");
    /* false wins over an error */
    assert_int_equal(eval("[{\"name\":\"e\",\"expression\":\"object.foo.bar == 1\"},{\"name\":\"f\",\"expression\":"
                          "\"false\"}]",
                          &err, &failed),
                     KG_MC_NO_MATCH);
    /* errors and no false: an error, aggregated */
    assert_int_equal(eval("[{\"name\":\"e\",\"expression\":\"object.foo.bar == 1\"},{\"name\":\"t\",\"expression\":"
                          "\"true\"}]",
                          &err, &failed),
                     KG_MC_ERROR);
    assert_string_equal(err, "expression 'object.foo.bar == 1' resulted in error: no such key: foo");
    assert_int_equal(eval("[{\"name\":\"e\",\"expression\":\"object.foo.bar == 1\"},{\"name\":\"g\",\"expression\":"
                          "\"object.x == 2\"}]",
                          &err, &failed),
                     KG_MC_ERROR);
    assert_string_equal(err, "[expression 'object.foo.bar == 1' resulted in error: no such key: foo, expression "
                             "'object.x == 2' resulted in error: no such key: x]");
    /* one expensive condition hits the per-expression limit */
    const char *big = "[{\"name\":\"c\",\"expression\":\"[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10]."
                      "all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10]."
                      "all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))\"}]";
    assert_int_equal(eval(big, &err, &failed), KG_MC_ERROR);
    assert_non_null(strstr(err, "resulted in error: operation cancelled: actual cost limit exceeded"));
    /* three of them run out of the hook's budget */
    const char *cond = "{\"name\":\"c%d\",\"expression\":\"[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10]."
                       "all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10]."
                       "all(e, e > 0)))))\"}";
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "[");
    for (int i = 0; i < 5; i++) {
        if (i)
            kg_buf_puts(&b, ",");
        kg_buf_printf(&b, cond, i);
    }
    kg_buf_puts(&b, "]");
    assert_int_equal(eval(b.data, &err, &failed), KG_MC_ERROR);
    assert_string_equal(err, "validation failed due to running out of cost budget, no further validation rules will "
                             "be run");
    kg_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_semantics, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
