/* Unit tests of the CEL core: parser errors (cel-go texts and positions), checker messages, evaluation semantics,
 * overflow, absorption, macros, optionals, time zones, extension API, lazy activation, cost accounting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cel/cel.h"

typedef struct fx {
    cel_env *env;
    kg_arena arena;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    f->env = cel_env_new(CEL_LIB_ALL);
    cel_env_declare_var(f->env, "x", cel_type_int());
    cel_env_declare_var(f->env, "d", cel_type_dyn());
    kg_arena_init(&f->arena, 0);
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

/* evaluate; returns status, result debug text in *out */
static cel_eval_status run(fx *f, const char *src, const char **out, uint64_t *cost, uint64_t limit)
{
    cel_program *p = NULL;
    cel_error err;
    if (!cel_compile(f->env, src, NULL, &p, &err)) {
        *out = kg_arena_strdup(&f->arena, err.message);
        return (cel_eval_status)-1;
    }
    cel_activation *act = cel_activation_new(f->env, &f->arena);
    cel_activation_set(act, "x", cel_int(7));
    cel_activation_set(act, "d", cel_string("dyn", 3));
    cel_value v;
    uint64_t c = 0;
    cel_eval_status st = cel_eval(p, act, limit, &v, &c);
    *out = st == CEL_EVAL_OK ? cel_value_debug(&f->arena, &v) : kg_arena_strdup(&f->arena, cel_error_message(&v));
    if (cost)
        *cost = c;
    cel_program_free(p);
    return st;
}

static void expect_val(fx *f, const char *src, const char *want)
{
    const char *out;
    cel_eval_status st = run(f, src, &out, NULL, CEL_NO_COST_LIMIT);
    if (st != CEL_EVAL_OK || strcmp(out, want) != 0)
        fail_msg("%s: got [%d] %s, want %s", src, (int)st, out, want);
}

static void expect_err(fx *f, const char *src, const char *want)
{
    const char *out;
    cel_eval_status st = run(f, src, &out, NULL, CEL_NO_COST_LIMIT);
    if (st != CEL_EVAL_ERROR || strcmp(out, want) != 0)
        fail_msg("%s: got [%d] %s, want error %s", src, (int)st, out, want);
}

static void expect_compile_err(fx *f, const char *src, int line, int col, const char *prefix)
{
    cel_program *p = NULL;
    cel_error err;
    bool ok = cel_compile(f->env, src, NULL, &p, &err);
    cel_program_free(p);
    if (ok)
        fail_msg("%s: compiled, want error %s", src, prefix);
    if (err.line != line || err.column != col || strncmp(err.message, prefix, strlen(prefix)) != 0)
        fail_msg("%s: got %d:%d %s, want %d:%d %s", src, err.line, err.column, err.message, line, col, prefix);
}

static void test_arith_and_literals(void **state)
{
    fx *f = *state;
    expect_val(f, "1 + 2 * 3 - 4 / 2 % 3", "5");
    expect_val(f, "-9223372036854775808", "-9223372036854775808");
    expect_val(f, "0x10 + 0x10 == 32 && 0x10u == 16u", "true");
    expect_val(f, "1.5e1 + .5", "15.5");
    expect_val(f, "-3 % 5 == -3 && 43 % -5 == 3 && -42 % -5 == -2", "true");
    expect_val(f, "'\\u00ff' == '\\377' && size(b'\\377') == 1 && size('\\377') == 1", "true");
    expect_val(f, "r'\\n' == '\\\\n'", "true");
    expect_val(f, "'''a\nb''' == 'a\\nb'", "true");
    expect_val(f, "1.0 / 0.0 > 1e308", "true");
    expect_err(f, "9223372036854775807 + 1", "integer overflow");
    expect_err(f, "-(-9223372036854775807 - 1)", "integer overflow");
    expect_err(f, "0u - 1u", "unsigned integer overflow");
    expect_err(f, "[1, 2][2]", "index '2' out of range in list size '2'");
    expect_err(f, "[1, 2][dyn(0.5)]", "unsupported index value 0.5 in list");
    expect_err(f, "1 / 0", "division by zero");
    expect_err(f, "1 % 0", "modulus by zero");
    expect_err(f, "int(9223372036854775807.0)", "range error");
    expect_val(f, "string(-4.5e-3) + ' ' + string(1e21) + ' ' + string(123.0)", "\"-0.0045 1e+21 123\"");
}

static void test_parse_errors(void **state)
{
    fx *f = *state;
    expect_compile_err(f, "1 +", 1, 4, "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting");
    expect_compile_err(f, "a.b(\n  1,, 2)", 2, 5, "ERROR: <input>:2:5: Syntax error:");
    expect_compile_err(f, "'\\s'", 1, 2, "ERROR: <input>:1:2: Syntax error: token recognition error at: '\\s'");
    expect_compile_err(f, "9223372036854775808", 1, 1, "ERROR: <input>:1:1: invalid int literal");
    expect_compile_err(f, "has(x)", 1, 5, "ERROR: <input>:1:5: invalid argument to has() macro");
    expect_compile_err(f, "if", 1, 1, "ERROR: <input>:1:1: reserved identifier: if");
    /* long left-recursive chains are rejected, not a stack overflow later */
    {
        char *big = malloc(60001);
        big[0] = 'x';
        for (int i = 1; i < 60000; i += 2) {
            big[i] = '+';
            big[i + 1] = '1';
        }
        big[59999] = 0;
        cel_program *p2 = NULL;
        cel_error e2;
        assert_false(cel_compile(f->env, big, NULL, &p2, &e2));
        assert_non_null(strstr(e2.message, "expression recursion limit exceeded: 300"));
        for (int i = 1; i < 59998; i += 2) {
            big[i] = '.';
            big[i + 1] = 'a';
        }
        assert_false(cel_compile(f->env, big, NULL, &p2, &e2));
        free(big);
    }
    /* the caret line */
    cel_program *p = NULL;
    cel_error err;
    assert_false(cel_compile(f->env, "1 + ", NULL, &p, &err));
    assert_non_null(strstr(err.message, "\n | 1 + \n | ....^"));
}

static void test_check_errors(void **state)
{
    fx *f = *state;
    expect_compile_err(f, "y + 1", 1, 1, "ERROR: <input>:1:1: undeclared reference to 'y' (in container '')");
    expect_compile_err(f, "1 + 1u", 1, 3,
                       "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, uint)'");
    expect_compile_err(f, "x.size()", 1, 7,
                       "ERROR: <input>:1:7: found no matching overload for 'size' applied to 'int.()'");
    expect_compile_err(f, "undefined_fn(1)", 1, 13, "ERROR: <input>:1:13: undeclared reference to 'undefined_fn'");
    /* dyn defers to runtime */
    expect_val(f, "d + 'x'", "\"dynx\"");
    expect_err(f, "d + 1", "no such overload: _+_(string, int)");
    /* result type */
    cel_program *p = NULL;
    cel_error err;
    assert_true(cel_compile(f->env, "[x, 2].map(i, i * 2)", NULL, &p, &err));
    char buf[64];
    assert_string_equal(cel_type_format(cel_program_type(p), buf, sizeof buf), "list(int)");
    cel_program_free(p);
    cel_compile_opts o = {0, cel_type_bool(), 0};
    assert_false(cel_compile(f->env, "x + 1", &o, &p, &err));
    assert_non_null(strstr(err.message, "expected type 'bool' but found 'int'"));
}

static void test_logic_absorption(void **state)
{
    fx *f = *state;
    expect_val(f, "false && 1 / 0 > 0", "false");
    expect_val(f, "1 / 0 > 0 && false", "false");
    expect_val(f, "true || 1 / 0 > 0", "true");
    expect_val(f, "1 / 0 > 0 || true", "true");
    expect_err(f, "1 / 0 > 0 && true", "division by zero");
    expect_err(f, "!(1 / 0 > 0)", "division by zero");
    expect_val(f, "true ? 1 : 1 / 0", "1");
    expect_val(f, "[1, 2, 3].exists(i, i / (i - 2) > 5 || i == 3)", "true");
    expect_err(f, "[0, 1].exists_one(i, 1 / i > 0)", "division by zero");
}

static void test_equality_and_ordering(void **state)
{
    fx *f = *state;
    expect_val(f, "dyn(1) == 1u && dyn(1u) == 1.0 && dyn(1) == 1.0", "true");
    expect_compile_err(f, "1 == 1u", 1, 3,
                       "ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, uint)'");
    expect_val(f, "dyn(1) == 'a' || dyn(null) == 1", "false");
    expect_val(f, "[1.0, 2.0, 3] == [1u, 2, 3u]", "true");
    expect_val(f, "{'a': 1, 'b': 2} == {'b': 2u, 'a': 1.0}", "true");
    expect_val(f, "-1 < dyn(1u) && dyn(2.5) > 2", "true");
    expect_val(f, "0.0/0.0 == 0.0/0.0", "false");
    expect_err(f, "dyn('foo') < 1024", "no such overload: _<_(string, int)");
    expect_val(f, "dyn({1u: 'a', 2: 'b'})[2u] + dyn({1u: 'a'})[1] + dyn({3: 'c'})[3.0]", "\"bac\"");
    expect_err(f, "dyn({3: 'c'})[3.1]", "no such key: 3.1");
    expect_err(f, "{'a': 1}.b", "no such key: b");
    expect_err(f, "{0: 1, dyn(0u): 2}", "Failed with repeated key");
    expect_val(f, "dyn(3.0) in {3u: 3} && dyn(2) in [1.0, 2.0]", "true");
}

static void test_macros(void **state)
{
    fx *f = *state;
    expect_val(f, "[1, 2, 3].map(i, i * 2)", "[2, 4, 6]");
    expect_val(f, "[1, 2, 3].map(i, i > 1, i * 10)", "[20, 30]");
    expect_val(f, "[1, 2, 3].filter(i, i % 2 == 1)", "[1, 3]");
    expect_val(f, "[1, 2, 3].all(i, i > 0) && ![1, 2, 3].all(i, i > 1)", "true");
    expect_val(f, "{'a': 1, 'b': 2}.exists_one(k, k == 'a')", "true");
    expect_val(f, "has({'a': 1}.a) && !has({'a': 1}.b)", "true");
    expect_val(f, "[10, 20].all(i, v, v == (i + 1) * 10)", "true");
    expect_val(f, "[1, 2].transformList(i, v, v * i)", "[0, 2]");
    expect_val(f, "{'a': 1, 'b': 2}.transformMap(k, v, v > 1, v * 2)", "{\"b\": 4}");
    expect_val(f, "{'a': 1}.transformMapEntry(k, v, {v: k})", "{1: \"a\"}");
    expect_err(f, "[1, 2].transformMapEntry(i, v, {'k': v})", "insert failed: key \"k\" already exists");
    expect_val(f, "cel.bind(a, 5, a * a)", "25");
    expect_val(f, "[[1, 2], [3]].map(l, l.map(i, i + x))", "[[8, 9], [10]]");
    expect_val(f, "[3, 1, 2].sortBy(i, -i)", "[3, 2, 1]");
}

static void test_optionals(void **state)
{
    fx *f = *state;
    expect_val(f, "{'a': 1}.?b.orValue(5)", "5");
    expect_val(f, "{'a': {'b': 2}}.?a.b", "optional.of(2)");
    expect_val(f, "{'a': {'b': 2}}.?x.b.hasValue()", "false");
    expect_val(f, "[1, 2][?5].orValue(0) + [1, 2][?1].value()", "2");
    expect_val(f, "[1, ?optional.none(), ?optional.of(3)]", "[1, 3]");
    expect_val(f, "{'a': 1, ?'b': optional.none()}", "{\"a\": 1}");
    expect_val(f, "optional.of(2).optMap(v, v * 3)", "optional.of(6)");
    expect_val(f, "optional.none() == optional.none()", "true");
    expect_err(f, "optional.none().value()", "optional.none() dereference");
    expect_val(f, "[1, 2, 3].first().value() + [1, 2, 3].last().value()", "4");
}

static void test_strings_lists_sets(void **state)
{
    fx *f = *state;
    expect_val(f, "'hello'.substring(1, 3) + 'héllo'.charAt(1) + 'a,b,c'.split(',')[2]", "\"eléc\"");
    expect_val(f, "'  x \\t'.trim() + 'AbC'.lowerAscii() + 'abc'.upperAscii()", "\"xabcABC\"");
    expect_val(f, "'hello'.indexOf('l') + 'hello'.lastIndexOf('l') + 'hello'.replace('l', 'L').size()", "10");
    expect_val(f, "['a', 'b'].join('-') + strings.quote('a\"b') + 'abc'.reverse()", "\"a-b\\\"a\\\\\\\"b\\\"cba\"");
    expect_val(f, "'%s is %d, %.2f%%'.format(['pi', 3, 3.14159])", "\"pi is 3, 3.14%\"");
    expect_err(f, "'abc'.substring(2, 1)", "invalid substring range. start: 2, end: 1");
    expect_val(f, "[1, 2, 3, 4].slice(1, 3) + [[1], [2, [3]]].flatten() + [1, 1, 2].distinct()",
               "[2, 3, 1, 2, [3], 1, 2]");
    expect_val(f, "lists.range(3).reverse() + [3, 1, 2].sort()", "[2, 1, 0, 1, 2, 3]");
    expect_val(f, "sets.contains([1, 2, 3], [1u, 2.0]) && sets.equivalent([1, 1], [1]) && !sets.intersects([1], [2])",
               "true");
    expect_val(f, "'abc'.matches('^a.c$') && matches('xabcx', 'b') && !'abc'.matches('^b')", "true");
    expect_compile_err(f, "'abc'.matches('(')", 1, 14, "ERROR: <input>:1:14: error parsing regexp: missing closing )");
    expect_val(f, "math.greatest(1, 5, 3) + math.least([4, 2])", "7");
    expect_val(f, "base64.encode(b'hello') + string(base64.decode('aGk='))", "\"aGVsbG8=hi\"");
}

static void test_time(void **state)
{
    fx *f = *state;
    expect_val(f, "timestamp('2009-02-13T23:31:30Z').getHours('America/New_York')", "18");
    expect_val(f,
               "timestamp('2009-02-13T23:31:30Z').getHours('+05:30') + "
               "timestamp('2009-02-13T23:31:30Z').getMinutes('Asia/Kathmandu')",
               "21");
    expect_val(
        f, "timestamp('2009-02-13T23:31:30.5Z').getMilliseconds() + timestamp('2009-02-13T23:31:30Z').getDayOfWeek()",
        "505");
    expect_val(f, "string(duration('1h2m3.5s')) + string(timestamp('2009-02-13T23:31:30.120Z'))",
               "\"3723.5s2009-02-13T23:31:30.12Z\"");
    expect_val(f, "timestamp('2009-02-13T23:31:30Z') - timestamp('2009-02-13T23:31:00Z') == duration('30s')", "true");
    expect_val(f, "duration('-1.5h').getMinutes() + int(timestamp('1970-01-01T00:00:10+00:00'))", "-80");
    expect_err(f, "timestamp('9999-12-31T23:59:59Z') + duration('1s')", "timestamp overflow");
    expect_err(f, "timestamp('2009-02-13T23:31:30Z').getHours('Mars/Olympus')", "unknown time zone Mars/Olympus");
    expect_err(f, "timestamp('2009-02-13T23:31:30Z').getHours('Mars/Olympus')", "unknown time zone Mars/Olympus");
    expect_err(f, "duration('1x')", "type conversion error from 'string' to 'google.protobuf.Duration'");
    expect_val(f, "type(duration('1s')) == google.protobuf.Duration && type(1) == int && type(type(1)) == type",
               "true");
}

/* ---- extension API ---- */
static cel_value twice(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx;
    (void)n;
    return cel_int(args[0].u.i * 2);
}
static cel_value shout(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    kg_arena *a = cel_call_arena(ctx);
    char *s = kg_arena_alloc(a, args[0].n + 2);
    memcpy(s, args[0].u.s, args[0].n);
    s[args[0].n] = '!';
    s[args[0].n + 1] = 0;
    int *calls = cel_call_userdata(ctx);
    (*calls)++;
    return cel_string(s, args[0].n + 1);
}
static uint64_t cost_100(cel_call_ctx *ctx, const cel_value *a, size_t n, const cel_value *r)
{
    (void)ctx;
    (void)a;
    (void)n;
    (void)r;
    return 100;
}

static bool thing_eq(const cel_value *a, const cel_value *b)
{
    return *(const int *)a->u.ptr == *(const int *)b->u.ptr;
}
static const cel_opaque_vt thing_vt = {"test.Thing", thing_eq, NULL, NULL};
static cel_value make_thing(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    int *p = kg_arena_alloc(cel_call_arena(ctx), sizeof *p);
    *p = (int)args[0].u.i;
    return cel_opaque(&thing_vt, p);
}

static void test_extension_api(void **state)
{
    fx *f = *state;
    static int calls;
    cel_overload ov[2];
    memset(ov, 0, sizeof ov);
    ov[0].id = "twice_int";
    ov[0].result = cel_type_int();
    ov[0].nargs = 1;
    ov[0].args[0] = cel_type_int();
    ov[0].impl = twice;
    ov[0].cost = cost_100;
    cel_error err;
    assert_true(cel_env_add_function(f->env, "twice", ov, 1, &err));
    ov[1].id = "string_shout";
    ov[1].flags = CEL_FN_MEMBER;
    ov[1].result = cel_type_string();
    ov[1].nargs = 1;
    ov[1].args[0] = cel_type_string();
    ov[1].impl = shout;
    ov[1].ud = &calls;
    assert_true(cel_env_add_function(f->env, "shout", &ov[1], 1, &err));
    assert_false(cel_env_add_function(f->env, "twice", ov, 1, &err));
    expect_val(f, "twice(x) + size('ab'.shout())", "17");
    assert_int_equal(calls, 1);
    expect_compile_err(f, "twice('a')", 1, 6,
                       "ERROR: <input>:1:6: found no matching overload for 'twice' applied to '(string)'");
    const char *out;
    uint64_t cost;
    assert_int_equal(run(f, "twice(1)", &out, &cost, CEL_NO_COST_LIMIT), CEL_EVAL_OK);
    assert_int_equal(cost, 100);

    /* opaque values: equality through the vtable, type() by name, checker signatures */
    const cel_type *thing = cel_type_opaque(f->env, "test.Thing", NULL, 0);
    cel_overload mk;
    memset(&mk, 0, sizeof mk);
    mk.id = "thing_int";
    mk.result = thing;
    mk.nargs = 1;
    mk.args[0] = cel_type_int();
    mk.impl = make_thing;
    assert_true(cel_env_add_function(f->env, "thing", &mk, 1, &err));
    expect_val(f, "thing(1) == thing(1) && thing(1) != thing(2) && type(thing(3)) == test.Thing", "true");
    expect_compile_err(f, "thing(1) + 1", 1, 10,
                       "ERROR: <input>:1:10: found no matching overload for '_+_' applied to '(test.Thing, int)'");

    /* object types */
    cel_type *obj = cel_type_object(f->env, "test.Obj");
    cel_type_object_add_field(f->env, obj, "name", cel_type_string());
    cel_env_declare_var(f->env, "o", obj);
    expect_compile_err(f, "o.nope", 1, 2, "ERROR: <input>:1:2: undefined field 'nope'");
    cel_program *p;
    assert_true(cel_compile(f->env, "o.name + '!'", NULL, &p, &err));
    cel_activation *act = cel_activation_new(f->env, &f->arena);
    cel_value k = cel_string("name", 4), v = cel_string("n", 1);
    cel_activation_set(act, "o", cel_map_new(&f->arena, &k, &v, 1));
    cel_value r;
    assert_int_equal(cel_eval(p, act, CEL_NO_COST_LIMIT, &r, NULL), CEL_EVAL_OK);
    assert_int_equal(r.kind, CEL_STRING);
    assert_memory_equal(r.u.s, "n!", 2);
    cel_program_free(p);

    /* schemaless struct literals (MutatingAdmissionPolicy Object types) */
    cel_env_add_dynamic_struct_prefix(f->env, "Object");
    assert_true(cel_compile(f->env, "Object{spec: Object.spec{replicas: 3}}", NULL, &p, &err));
    assert_int_equal(cel_eval(p, act, CEL_NO_COST_LIMIT, &r, NULL), CEL_EVAL_OK);
    assert_string_equal(cel_value_debug(&f->arena, &r), "{\"spec\": {\"replicas\": 3}}");
    assert_string_equal(cel_value_type(&r)->name, "Object");
    cel_value spec;
    assert_true(cel_map_get_str(NULL, &r, "spec", 4, &spec));
    assert_string_equal(cel_value_type(&spec)->name, "Object.spec");
    cel_program_free(p);
    assert_false(cel_compile(f->env, "Other{a: 1}", NULL, &p, &err));
    assert_non_null(strstr(err.message, "undeclared reference to 'Other'"));
}

static int resolves;
static bool resolver(void *ud, cel_call_ctx *ctx, const char *name, cel_value *out)
{
    (void)ud;
    if (strcmp(name, "d") != 0)
        return false;
    resolves++;
    cel_call_add_cost(ctx, 1000);
    *out = cel_int(5);
    return true;
}

static void test_lazy_activation(void **state)
{
    fx *f = *state;
    cel_program *p;
    cel_error err;
    assert_true(cel_compile(f->env, "d + d", NULL, &p, &err));
    cel_activation *act = cel_activation_new(f->env, &f->arena);
    cel_activation_set_resolver(act, resolver, NULL);
    cel_value r;
    uint64_t cost;
    resolves = 0;
    assert_int_equal(cel_eval(p, act, CEL_NO_COST_LIMIT, &r, &cost), CEL_EVAL_OK);
    assert_int_equal(r.u.i, 10);
    assert_int_equal(resolves, 1);
    assert_int_equal(cost, 1000 + 3);
    cel_program_free(p);
    /* unbound, undeclared (unchecked) variable */
    cel_compile_opts o = {CEL_COMPILE_NO_CHECK, NULL, 0};
    assert_true(cel_compile(f->env, "zz", &o, &p, &err));
    act = cel_activation_new(f->env, &f->arena);
    assert_int_equal(cel_eval(p, act, CEL_NO_COST_LIMIT, &r, NULL), CEL_EVAL_ERROR);
    assert_string_equal(cel_error_message(&r), "no such attribute(s): zz");
    cel_program_free(p);
}

static void test_cost(void **state)
{
    fx *f = *state;
    const char *out;
    uint64_t cost;
    /* k8s.io/apiserver pkg/cel/library/cost_test.go: runtime cost 21 */
    assert_int_equal(run(f, "[1, 2].all(i, v, v > 0)", &out, &cost, CEL_NO_COST_LIMIT), CEL_EVAL_OK);
    assert_int_equal(cost, 21);
    /* static estimates: cel-go's {min, max} from k8s cost_test.go */
    cel_program *p;
    cel_error err;
    static const struct {
        const char *expr;
        uint64_t min, max;
    } estimates[] = {
        {"[1, 2].all(i, v, v > 0)", 17, 21},
        {"[1, 2].exists(i, v, v > 0)", 19, 23},
        {"[1, 2].existsOne(i, v, v > 0)", 18, 20},
        {"[1, 2].transformList(i, v, v + 1)", 49, 49},
        {"{'a': 1, 'b': 2}.all(k, v, v > 0)", 37, 41},
        {"{'a': 1, 'b': 2}.transformMap(k, v, v + 1)", 71, 71},
        {"{'a': 1, 'b': 2}.transformMapEntry(k, v, {k: v + 1})", 131, 131},
        {"'ABCDEFGHIJ abcdefghij'.lowerAscii()", 3, 3},
        {"'abc 123 def 123'.replace('123', '456')", 3, 3},
        {"'abc 123 def 123'.substring(5)", 2, 2},
        {"sets.contains([1, 2, 3, 4], [2, 3])", 29, 29},
        {"sets.equivalent([1, 2, 3], [3u, 2.0, 1])", 39, 39},
        {"!sets.intersects([1], [2])", 23, 23},
    };
    for (size_t i = 0; i < sizeof estimates / sizeof *estimates; i++) {
        assert_true(cel_compile(f->env, estimates[i].expr, NULL, &p, &err));
        cel_size_range est = cel_program_estimate_cost(p, 100);
        cel_program_free(p);
        if (est.min != estimates[i].min || est.max != estimates[i].max)
            fail_msg("%s: estimate %llu..%llu, want %llu..%llu", estimates[i].expr, (unsigned long long)est.min,
                     (unsigned long long)est.max, (unsigned long long)estimates[i].min,
                     (unsigned long long)estimates[i].max);
    }
    assert_true(cel_compile(f->env, "d.all(s, s.startsWith('a'))", NULL, &p, &err));
    cel_size_range est = cel_program_estimate_cost(p, 1000);
    assert_true(est.max >= 1000 * 3 && est.min < 10);
    cel_program_free(p);
    assert_int_equal(run(f, "x == 7", &out, &cost, CEL_NO_COST_LIMIT), CEL_EVAL_OK);
    assert_int_equal(cost, 2);
    assert_int_equal(run(f, "'abcdefghijklmnopqrstuvwxyz'.startsWith('abc')", &out, &cost, CEL_NO_COST_LIMIT),
                     CEL_EVAL_OK);
    assert_int_equal(cost, 3);
    assert_int_equal(run(f, "{'a': 1}", &out, &cost, CEL_NO_COST_LIMIT), CEL_EVAL_OK);
    assert_int_equal(cost, 30);
    /* runtime costs from k8s.io/apiserver pkg/cel/library/cost_test.go (core and cel-go extension functions) */
    static const struct {
        const char *expr;
        uint64_t cost;
    } vectors[] = {
        {"{'a': 1, 'b': 2}.all(k, v, v > 0)", 41},
        {"{'a': 1, 'b': 2}.exists(k, v, v > 0)", 40},
        {"{'a': 1, 'b': 2}.existsOne(k, v, v > 0)", 40},
        {"{'a': 1, 'b': 2}.transformMap(k, v, v + 1)", 71},
        {"{'a': 1, 'b': 2}.transformMap(k, v, v < 5, v + 1)", 75},
        {"{'a': 1, 'b': 2}.transformMapEntry(k, v, {k: v + 1})", 131},
        {"{'a': 1, 'b': 2}.transformMapEntry(k, v, v < 5, {k: v + 1})", 135},
        {"[1, 2].exists(i, v, v > 0)", 20},
        {"[1, 2].existsOne(i, v, v > 0)", 20},
        {"[1, 2].transformList(i, v, v + 1)", 49},
        {"[1, 2].transformList(i, v, v < 5, v + 1)", 53},
        {"'ABCDEFGHIJ abcdefghij'.lowerAscii()", 3},
        {"'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()", 9},
        {"strings.quote('ABCDEFGHIJ abcdefghij') == strings.quote('ABCDEFGHIJ abcdefghij')", 9},
        {"'abc 123 def 123'.replace('123', '456')", 3},
        {"'abc 123 def 123'.replace('', 'x')", 3},
        {"'abc 123 def 123'.split(' ', 1)", 3},
        {"'abc 123 def 123'.substring(5, 8)", 2},
        {"'  abc 123 def 123  '.trim()", 2},
        {"['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')", 15},
        {"['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()", 13},
        {"'01234567890123456789012345678901234567890123456789'.indexOf('123')", 5},
        {"sets.contains([], [])", 21},
        {"sets.contains([1, 2, 3, 4], [2, 3])", 29},
        {"sets.contains([[1], [2, 3]], [[2, 3.0]])", 53},
        {"!sets.contains([1], [2])", 23},
        {"sets.equivalent([1, 2, 3], [3u, 2.0, 1])", 39},
        {"sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])", 69},
        {"sets.intersects([1, 2], [2u, 2, 2.0])", 27},
        {"!sets.intersects([], [])", 22},
        {"[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), "
         "bytes('012345678901')].size()",
         21},
    };
    for (size_t i = 0; i < sizeof vectors / sizeof *vectors; i++) {
        cel_eval_status st = run(f, vectors[i].expr, &out, &cost, CEL_NO_COST_LIMIT);
        if (st != CEL_EVAL_OK || cost != vectors[i].cost)
            fail_msg("%s: status %d cost %llu, want %llu (%s)", vectors[i].expr, (int)st, (unsigned long long)cost,
                     (unsigned long long)vectors[i].cost, out);
    }
    /* exceeding the limit stops evaluation, never hangs */
    assert_int_equal(
        run(f, "lists.range(2000).all(i, lists.range(2000).all(j, i * j >= 0))", &out, &cost, CEL_PER_CALL_LIMIT),
        CEL_EVAL_COST_EXCEEDED);
    assert_string_equal(out, "operation cancelled: actual cost limit exceeded");
    assert_true(cost > CEL_PER_CALL_LIMIT && cost < CEL_PER_CALL_LIMIT + 100);
    /* quadratic library functions are charged before/while they run, so the limit stops them */
    assert_int_equal(
        run(f, "sets.contains(lists.range(1000000), lists.range(1000000))", &out, &cost, CEL_PER_CALL_LIMIT),
        CEL_EVAL_COST_EXCEEDED);
    assert_int_equal(run(f, "lists.range(100000).distinct().size() > 0", &out, &cost, CEL_PER_CALL_LIMIT),
                     CEL_EVAL_COST_EXCEEDED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_arith_and_literals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_logic_absorption, setup, teardown),
        cmocka_unit_test_setup_teardown(test_equality_and_ordering, setup, teardown),
        cmocka_unit_test_setup_teardown(test_macros, setup, teardown),
        cmocka_unit_test_setup_teardown(test_optionals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_strings_lists_sets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_extension_api, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lazy_activation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cost, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
