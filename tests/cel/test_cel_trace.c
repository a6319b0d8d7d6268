/* cel_eval_trace: the value of every sub-expression outside comprehension bodies, children first, each with the
 * text of its source range; constants and select operands left out; the result equals cel_eval_slots'. */
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

static const char *obj_json = "{\"metadata\":{\"name\":\"web\",\"labels\":{\"app\":\"x\"}},\"spec\":{\"replicas\":6,"
                              "\"containers\":[{\"name\":\"a\",\"image\":\"nginx\"},{\"name\":\"b\",\"image\":\"\"}]}}";

typedef struct fx {
    cel_env *env;
    kg_arena arena;
    cel_value obj;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    f->env = cel_env_new(CEL_LIB_K8S);
    cel_env_set_options(f->env, CEL_OPT_K8S);
    cel_env_declare_var(f->env, "object", cel_type_dyn());
    kg_arena_init(&f->arena, 0);
    kg_error err = {0};
    kg_json *o = kg_json_parse(&f->arena, obj_json, strlen(obj_json), &err);
    assert_non_null(o);
    f->obj = cel_json_to_value(o);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    kg_arena_free(&f->arena);
    cel_env_free(f->env);
    free(f);
    return 0;
}

/* Trace src; the rendered "text = value" pairs joined by "; " into out. */
static cel_value trace(fx *f, const char *src, char *out, size_t cap)
{
    cel_program *p = NULL;
    cel_error err;
    assert_true(cel_compile(f->env, src, NULL, &p, &err));
    int slot = cel_env_var_slot(f->env, "object");
    assert_int_equal(slot, 0);
    cel_value result, plain;
    cel_trace_entry *e;
    size_t n;
    cel_eval_trace(p, src, &f->arena, &f->obj, 1, CEL_NO_COST_LIMIT, &result, &e, &n);
    cel_eval_slots(p, &f->arena, &f->obj, 1, CEL_NO_COST_LIMIT, &plain, NULL);
    assert_string_equal(cel_value_debug(&f->arena, &result), cel_value_debug(&f->arena, &plain));
    out[0] = 0;
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        assert_true(e[i].start <= e[i].end && e[i].end <= strlen(src));
        len += (size_t)snprintf(out + len, cap - len, "%s%.*s = %s", i ? "; " : "", (int)(e[i].end - e[i].start),
                                src + e[i].start, cel_value_debug(&f->arena, &e[i].value));
        assert_true(len < cap);
    }
    cel_program_free(p);
    return result;
}

static void test_comparison_and_call(void **state)
{
    char out[2048];
    cel_value r = trace(*state, "object.spec.replicas <= 5 && object.metadata.name.startsWith('web')", out, sizeof out);
    assert_int_equal(r.kind, CEL_BOOL);
    assert_false(r.u.b);
    assert_string_equal(out, "object.spec.replicas = 6; object.spec.replicas <= 5 = false; "
                             "object.metadata.name = \"web\"; object.metadata.name.startsWith('web') = true; "
                             "object.spec.replicas <= 5 && object.metadata.name.startsWith('web') = false");
}

static void test_parentheses_and_global_calls(void **state)
{
    char out[2048];
    trace(*state, "size(object.spec.containers) * (1 + 2) > 7", out, sizeof out);
    assert_string_equal(out, "object.spec.containers = [{\"name\": \"a\", \"image\": \"nginx\"}, {\"name\": \"b\", "
                             "\"image\": \"\"}]; size(object.spec.containers) = 2; 1 + 2 = 3; "
                             "size(object.spec.containers) * (1 + 2) = 6; "
                             "size(object.spec.containers) * (1 + 2) > 7 = false");
}

static void test_comprehension_body_not_entered(void **state)
{
    char out[2048];
    trace(*state, "object.spec.containers.all(c, c.image != \"\")", out, sizeof out);
    /* the range and the whole macro; c is only bound inside the loop */
    assert_non_null(strstr(out, "object.spec.containers = ["));
    assert_non_null(strstr(out, "; object.spec.containers.all(c, c.image != \"\") = false"));
    assert_null(strstr(out, "c.image = "));
}

static void test_errors_are_values(void **state)
{
    char out[2048];
    trace(*state, "has(object.metadata.annotations) || object.metadata.annotations['x'] == 'y'", out, sizeof out);
    assert_non_null(strstr(out, "has(object.metadata.annotations) = false"));
    assert_non_null(strstr(out, "object.metadata.annotations = error"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_comparison_and_call, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parentheses_and_global_calls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_comprehension_body_not_entered, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors_are_values, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
