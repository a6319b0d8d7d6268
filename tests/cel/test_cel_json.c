/* JSON bridge: Kubernetes' mapping of unstructured objects to CEL (ints, no-such-key, has(), optionals) and CEL
 * values back to JSON (numbers, base64 bytes, RFC 3339 timestamps, Go durations, type names). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cel/cel.h"
#include "cel/cel_json.h"

static const char *pod_json =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-7d4b9c6f5-x2x9k\",\"namespace\":\"prod\","
    "\"annotations\":{\"a\":\"b\"}},\"spec\":{\"terminationGracePeriodSeconds\":30,\"ratio\":1.5,"
    "\"containers\":[{\"name\":\"app\",\"image\":\"registry.example.com/app:1\",\"resources\":{\"limits\":"
    "{\"memory\":\"1Gi\"}}},{\"name\":\"side\",\"image\":\"registry.example.com/side:2\",\"resources\":{\"limits\":"
    "{\"memory\":\"64Mi\",\"cpu\":\"100m\"}}}]}}";

typedef struct fx {
    cel_env *env;
    kg_arena arena;
    kg_json *pod;
    cel_program *progs[64]; /* results may reference program constants: freed at teardown */
    int nprogs;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    f->env = cel_env_new(CEL_LIB_K8S);
    cel_env_set_options(f->env, CEL_OPT_K8S);
    cel_env_declare_var(f->env, "object", cel_type_dyn());
    kg_arena_init(&f->arena, 0);
    kg_error err = {0};
    f->pod = kg_json_parse(&f->arena, pod_json, strlen(pod_json), &err);
    assert_non_null(f->pod);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    for (int i = 0; i < f->nprogs; i++)
        cel_program_free(f->progs[i]);
    kg_arena_free(&f->arena);
    cel_env_free(f->env);
    free(f);
    return 0;
}

static cel_eval_status eval_pod(fx *f, const char *src, cel_value *out, uint64_t *cost)
{
    cel_program *p = NULL;
    cel_error err;
    if (!cel_compile(f->env, src, NULL, &p, &err))
        fail_msg("%s: %s", src, err.message);
    cel_activation *act = cel_activation_new(f->env, &f->arena);
    cel_activation_set(act, "object", cel_json_to_value(f->pod));
    cel_eval_status st = cel_eval(p, act, CEL_PER_CALL_LIMIT, out, cost);
    assert_true(f->nprogs < 64);
    f->progs[f->nprogs++] = p;
    return st;
}

static void expect_true(fx *f, const char *src)
{
    cel_value v;
    cel_eval_status st = eval_pod(f, src, &v, NULL);
    if (st != CEL_EVAL_OK || v.kind != CEL_BOOL || !v.u.b)
        fail_msg("%s: got [%d] %s", src, (int)st, cel_value_debug(&f->arena, &v));
}

static void test_pod_expressions(void **state)
{
    fx *f = *state;
    expect_true(f, "object.spec.containers.all(c, c.image.startsWith(\"registry.example.com/\"))");
    expect_true(f, "object.metadata.annotations.exists(k, k == \"a\")");
    expect_true(f, "size(object.spec.containers) <= 10 && object.spec.terminationGracePeriodSeconds < 100");
    expect_true(f, "object.metadata.name.matches(\"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\")");
    expect_true(f, "object.metadata.namespace + \"/\" + object.metadata.name == \"prod/web-7d4b9c6f5-x2x9k\"");
    expect_true(f, "object.spec.containers.all(c, has(c.resources) && has(c.resources.limits) && \"memory\" in "
                   "c.resources.limits)");
    /* integral JSON numbers are int, others double */
    expect_true(f, "type(object.spec.terminationGracePeriodSeconds) == int && type(object.spec.ratio) == double");
    /* guarded access */
    expect_true(f, "!has(object.metadata.labels) && object.metadata.?labels.orValue({}).size() == 0");
    expect_true(f, "object.?spec.?replicas.orValue(1) == 1");
    expect_true(f, "object.spec.containers.map(c, c.name) == ['app', 'side']");
}

static void test_missing_field_error(void **state)
{
    fx *f = *state;
    cel_value v;
    assert_int_equal(eval_pod(f, "object.metadata.labels.app == 'x'", &v, NULL), CEL_EVAL_ERROR);
    assert_string_equal(cel_error_message(&v), "no such key: labels");
    assert_int_equal(eval_pod(f, "object.spec.containers[5].name", &v, NULL), CEL_EVAL_ERROR);
    assert_string_equal(cel_error_message(&v), "index '5' out of range in list size '2'");
}

static const char *to_json(fx *f, const char *src)
{
    cel_value v;
    if (eval_pod(f, src, &v, NULL) != CEL_EVAL_OK)
        fail_msg("%s: %s", src, cel_error_message(&v));
    char eb[256];
    kg_json *j = cel_value_to_json(&f->arena, &v, eb, sizeof eb);
    if (!j)
        fail_msg("%s: %s", src, eb);
    return kg_json_to_string(&f->arena, j, 0, NULL);
}

static void test_homogeneous_literals(void **state)
{
    fx *f = *state;
    cel_program *p = NULL;
    cel_error err;
    assert_false(cel_compile(f->env, "[1, 'a']", NULL, &p, &err));
    assert_int_equal(err.column, 5);
    assert_non_null(strstr(err.message, "ERROR: <input>:1:5: expected type 'int' but found 'string'"));
    assert_true(cel_compile(f->env, "[1, dyn('a')]", NULL, &p, &err));
    cel_program_free(p);
}

static void test_to_json(void **state)
{
    fx *f = *state;
    assert_string_equal(to_json(f, "[1, dyn(2u), dyn(2.5), dyn('a'), dyn(b'hi'), dyn(null), dyn(true)]"),
                        "[1,2,2.5,\"a\",\"aGk=\",null,true]");
    assert_string_equal(to_json(f, "{'t': dyn(timestamp('2009-02-13T23:31:30.5Z')), 'd': dyn(duration('3723s')), "
                                   "'ms': dyn(duration('1.5ms')), 'ty': dyn(type(1))}"),
                        "{\"t\":\"2009-02-13T23:31:30.5Z\",\"d\":\"1h2m3s\",\"ms\":\"1.5ms\",\"ty\":\"int\"}");
    assert_string_equal(to_json(f, "object.metadata.annotations"), "{\"a\":\"b\"}");
    assert_string_equal(to_json(f, "{1: optional.of(2), 2: optional.none()}"), "{\"1\":2,\"2\":null}");
    cel_value nan = cel_double(0.0 / 0.0);
    char eb[128];
    assert_null(cel_value_to_json(&f->arena, &nan, eb, sizeof eb));
    assert_string_equal(eb, "double value NaN has no JSON representation");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pod_expressions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_field_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_to_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_homogeneous_literals, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
