/* The admission CEL environment (src/admission/cel): declared variables per environment, upstream's compile errors
 * and result-type checks, the request value's shape (omitempty fields), lazy variables with their cost and errors,
 * and the authorizer variables. */
#include "../admission_testutil.h"

#include "admission/cel/admission_cel.h"
#include "cel/cel_json.h"

static kg_arena A;
/* programs of run(): their results may point into them, so they live until the test's end */
static kg_acel_expr kept[64];
static size_t nkept;

static int setup(void **state)
{
    kg_arena_init(&A, 0);
    return 0;
}
static int teardown(void **state)
{
    for (size_t i = 0; i < nkept; i++)
        kg_acel_expr_free(&kept[i]);
    nkept = 0;
    kg_arena_free(&A);
    return 0;
}

static const char *compile_error(unsigned decls, const char *src, kg_acel_return ret)
{
    kg_acel_expr e;
    bool ok = kg_acel_compile(kg_acel_env_base(decls), &A, src, ret, &e);
    kg_acel_expr_free(&e);
    return ok ? NULL : e.error;
}

static void test_compile_errors(void **state)
{
    assert_null(compile_error(0, "object.spec.replicas <= 5", KG_ACEL_RETURN_BOOL));
    assert_string_equal(compile_error(0, "object.(", KG_ACEL_RETURN_BOOL),
                        "compilation failed: ERROR: <input>:1:8: Syntax error: no viable alternative at input '.('\n"
                        " | object.(\n"
                        " | .......^");
    assert_string_equal(compile_error(0, "object.spec", KG_ACEL_RETURN_BOOL), "must evaluate to bool but got dyn");
    assert_string_equal(compile_error(0, "1", KG_ACEL_RETURN_STRING), "must evaluate to string but got int");
    assert_string_equal(compile_error(0, "1", KG_ACEL_RETURN_STRING_OR_NULL),
                        "must evaluate to one of [string null_type] but got int");
    assert_null(compile_error(0, "null", KG_ACEL_RETURN_STRING_OR_NULL));
    assert_null(compile_error(0, "'a'", KG_ACEL_RETURN_STRING_OR_NULL));
    /* params and the authorizer only where declared */
    assert_non_null(strstr(compile_error(0, "params.x == 1", KG_ACEL_RETURN_BOOL), "undeclared reference to 'params'"));
    assert_null(compile_error(KG_ACEL_PARAMS, "params.x == 1", KG_ACEL_RETURN_BOOL));
    assert_non_null(strstr(compile_error(0, "authorizer.path('/x').check('get').allowed()", KG_ACEL_RETURN_BOOL),
                           "undeclared reference to 'authorizer'"));
    assert_null(
        compile_error(KG_ACEL_AUTHORIZER, "authorizer.requestResource.check('get').allowed()", KG_ACEL_RETURN_BOOL));
    /* request is typed: unknown fields are compile errors */
    assert_non_null(strstr(compile_error(0, "request.nope == 'x'", KG_ACEL_RETURN_BOOL), "undefined field 'nope'"));
    assert_null(compile_error(0, "request.userInfo.username == 'x'", KG_ACEL_RETURN_BOOL));
    assert_null(compile_error(0, "namespaceObject.metadata.labels['a'] == 'b'", KG_ACEL_RETURN_BOOL));
    /* no variables in the base environments */
    assert_non_null(strstr(compile_error(0, "variables.x == 1", KG_ACEL_RETURN_BOOL), "undeclared reference"));
}

static void pod_attrs(kg_admission_attributes *at, kg_admission_op op, kg_json *obj, kg_json *old)
{
    tattrs(at, &A, op, "Pod", "pods", "ns1", "p1", obj, old);
    at->request_kind = at->kind;
    at->request_resource = at->resource;
    static const char *groups[] = {"g1", "system:authenticated"};
    static const char *ev[] = {"v1"};
    static const kg_user_extra extra[] = {{"k", ev, 1}};
    at->user =
        (kg_admission_user){.name = "alice", .uid = "u-1", .groups = groups, .ngroups = 2, .extra = extra, .nextra = 1};
}

static cel_value run(const kg_acel_env *env, const char *src, kg_acel_input *in, cel_eval_status *st)
{
    assert_true(nkept < sizeof kept / sizeof kept[0]);
    kg_acel_expr *e = &kept[nkept++];
    if (!kg_acel_compile(env, &A, src, KG_ACEL_RETURN_ANY, e))
        fail_msg("compile %s: %s", src, e->error);
    cel_value v;
    *st = kg_acel_eval(e, in, &A, CEL_PER_CALL_LIMIT, &v, NULL);
    return v;
}

static bool run_bool(const kg_acel_env *env, const char *src, kg_acel_input *in)
{
    cel_eval_status st;
    cel_value v = run(env, src, in, &st);
    if (st != CEL_EVAL_OK)
        fail_msg("%s: %s", src, cel_error_message(&v));
    assert_int_equal(v.kind, CEL_BOOL);
    return v.u.b;
}

static void test_request_values(void **state)
{
    kg_admission_attributes at;
    pod_attrs(&at, KG_ADMISSION_CREATE, tj(&A, "{\"metadata\":{\"name\":\"p1\"},\"spec\":{\"n\":3}}"), NULL);
    kg_acel_input in;
    kg_json *ns = tj(&A, "{\"metadata\":{\"name\":\"ns1\",\"labels\":{\"env\":\"prod\"}}}");
    kg_acel_input_init(&in, &at, NULL, NULL, ns, NULL);
    const kg_acel_env *env = kg_acel_env_base(0);
    assert_true(run_bool(env, "object.spec.n == 3 && oldObject == null", &in));
    assert_true(
        run_bool(env, "request.operation == 'CREATE' && request.name == 'p1' && request.namespace == 'ns1'", &in));
    assert_true(run_bool(env,
                         "request.kind.kind == 'Pod' && request.resource.resource == 'pods' && "
                         "request.resource.group == '' && request.requestResource.version == 'v1'",
                         &in));
    assert_true(run_bool(env,
                         "request.userInfo.username == 'alice' && request.userInfo.uid == 'u-1' && "
                         "'g1' in request.userInfo.groups && request.userInfo.extra['k'] == ['v1']",
                         &in));
    assert_true(run_bool(env, "request.dryRun == false && request.options == null", &in));
    assert_true(run_bool(env, "!has(request.subResource)", &in));
    assert_true(run_bool(env, "namespaceObject.metadata.labels.env == 'prod'", &in));
    /* omitempty: a cluster-scoped request has no namespace */
    at.ns = "";
    kg_acel_input_init(&in, &at, NULL, NULL, NULL, NULL);
    cel_eval_status st;
    cel_value v = run(env, "request.namespace == ''", &in, &st);
    assert_int_equal(st, CEL_EVAL_ERROR);
    assert_string_equal(cel_error_message(&v), "no such key: namespace");
    assert_true(run_bool(env, "namespaceObject == null", &in));
    /* the authorizer without an authorizer: checks are errored decisions */
    const kg_acel_env *aenv = kg_acel_env_base(KG_ACEL_AUTHORIZER);
    assert_true(run_bool(aenv,
                         "!authorizer.requestResource.check('create').allowed() && "
                         "authorizer.requestResource.check('create').errored()",
                         &in));
}

static void test_variables(void **state)
{
    const char *names[] = {"replicas", "big", "late", "boom"};
    const char *exprs[] = {"object.spec.n", "variables.replicas > 2", "variables.nothere", "object.missing"};
    kg_acel_vars vars;
    assert_true(kg_acel_vars_new(&vars, &A, KG_ACEL_AUTHORIZER, names, exprs, 4, true));
    assert_null(vars.items[0].expr.error);
    assert_null(vars.items[1].expr.error);
    /* a variable only sees the ones before it */
    assert_non_null(vars.items[2].expr.error);
    assert_non_null(strstr(vars.items[2].expr.error, "undefined field 'nothere'"));
    assert_null(vars.items[3].expr.error);
    /* typed from the expression: variables.big is bool, so it is a valid validation on its own */
    kg_acel_expr e, m, bad;
    assert_true(kg_acel_compile(&vars.full, &A, "variables.big", KG_ACEL_RETURN_BOOL, &e));
    assert_true(kg_acel_vars_compile(&vars, &A, "'n=' + string(variables.replicas)", KG_ACEL_RETURN_STRING, true, &m));
    assert_false(kg_acel_vars_compile(&vars, &A, "authorizer.path('/').check('get').allowed()", KG_ACEL_RETURN_BOOL,
                                      true, &bad));
    assert_false(kg_acel_compile(&vars.full, &A, "variables.unknown == 1", KG_ACEL_RETURN_BOOL, &bad));

    kg_admission_attributes at;
    pod_attrs(&at, KG_ADMISSION_CREATE, tj(&A, "{\"spec\":{\"n\":3}}"), NULL);
    kg_acel_input in;
    kg_acel_input_init(&in, &at, NULL, NULL, NULL, NULL);
    kg_acel_eval_state es;
    kg_acel_eval_state_init(&es, &vars, &in, &A);
    cel_value v;
    uint64_t cost = 0;
    assert_int_equal(kg_acel_eval(&e, &in, &A, CEL_PER_CALL_LIMIT, &v, &cost), CEL_EVAL_OK);
    assert_true(v.kind == CEL_BOOL && v.u.b);
    uint64_t vcost = kg_acel_take_cost(&es);
    assert_true(vcost > 0);
    /* evaluated once: a second use costs nothing more */
    assert_int_equal(kg_acel_eval(&m, &in, &A, CEL_PER_CALL_LIMIT, &v, &cost), CEL_EVAL_OK);
    assert_int_equal(v.kind, CEL_STRING);
    assert_memory_equal(v.u.s, "n=3", 3);
    assert_int_equal(kg_acel_take_cost(&es), 0);
    /* a failing variable */
    kg_acel_expr f;
    assert_true(kg_acel_compile(&vars.full, &A, "variables.boom == 1", KG_ACEL_RETURN_BOOL, &f));
    assert_int_equal(kg_acel_eval(&f, &in, &A, CEL_PER_CALL_LIMIT, &v, &cost), CEL_EVAL_ERROR);
    assert_string_equal(cel_error_message(&v), "composited variable \"boom\" fails to evaluate: no such key: missing");
    kg_acel_expr_free(&e);
    kg_acel_expr_free(&m);
    kg_acel_expr_free(&f);
    kg_acel_vars_free(&vars);
}

/* Untyped variables (how the plugin runs validated policies): the shared environment, dyn variables. */
static void test_untyped_variables(void **state)
{
    const char *names[] = {"r", "big"};
    const char *exprs[] = {"object.spec.n", "variables.r > 2"};
    kg_acel_vars vars;
    assert_true(kg_acel_vars_new(&vars, &A, KG_ACEL_AUTHORIZER, names, exprs, 2, false));
    assert_null(vars.items[1].expr.error);
    kg_acel_expr e;
    assert_true(kg_acel_vars_compile(&vars, &A, "variables.big", KG_ACEL_RETURN_BOOL, false, &e));
    kg_admission_attributes at;
    pod_attrs(&at, KG_ADMISSION_CREATE, tj(&A, "{\"spec\":{\"n\":3}}"), NULL);
    kg_acel_input in;
    kg_acel_input_init(&in, &at, NULL, NULL, NULL, NULL);
    kg_acel_eval_state es;
    kg_acel_eval_state_init(&es, &vars, &in, &A);
    cel_value v;
    assert_int_equal(kg_acel_eval(&e, &in, &A, CEL_PER_CALL_LIMIT, &v, NULL), CEL_EVAL_OK);
    assert_true(v.kind == CEL_BOOL && v.u.b);
    kg_acel_expr_free(&e);
    kg_acel_vars_free(&vars);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_compile_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_request_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_variables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_untyped_variables, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
