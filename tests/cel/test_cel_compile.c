/* Tests of the compile-side fast paths (parser, resolver, checker, lazily built regexes): each fast path must give
 * the same results, errors and costs as the general path it short-cuts. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cel/cel.h"
#include "cel/compile_internal.h"
#include "cel/regex/cel_regex.h"

typedef struct fx {
    cel_env *env;  /* no container: select chains on undeclared roots take the fast path */
    cel_env *envc; /* a container: every name goes through the general qualified-name search */
    kg_arena arena;
    kg_arena marena;    /* the value bound to m */
    cel_program *mprog; /* the program that built it */
    cel_value m;
} fx;

static cel_env *mk_env(const char *container)
{
    cel_env *env = cel_env_new(CEL_LIB_ALL);
    if (container)
        cel_env_set_container(env, container);
    cel_env_declare_var(env, "x", cel_type_int());
    cel_env_declare_var(env, "d", cel_type_dyn());
    cel_env_declare_var(env, "m", cel_type_map(env, cel_type_string(), cel_type_dyn()));
    cel_env_declare_var(env, "a.b.c", cel_type_string());
    cel_env_declare_var(env, "a.b", cel_type_map(env, cel_type_string(), cel_type_string()));
    cel_type_object(env, "qq.Obj"); /* a dotted type name: roots starting with 'q' may qualify */
    return env;
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    f->env = mk_env(NULL);
    f->envc = mk_env("zz.unused");
    kg_arena_init(&f->arena, 0);
    kg_arena_init(&f->marena, 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    kg_arena_free(&f->arena);
    cel_program_free(f->mprog);
    kg_arena_free(&f->marena);
    cel_env_free(f->env);
    cel_env_free(f->envc);
    free(f);
    return 0;
}

/* m = {"spec": {"name": "web", "n": 3}, "k": "v"}, built by CEL itself; its strings live in the program, which
 * stays alive until teardown */
static cel_value dyn_map(fx *f)
{
    if (f->mprog)
        return f->m;
    cel_error err;
    f->m = cel_null();
    if (cel_compile(f->env, "{'spec': {'name': 'web', 'n': 3}, 'k': 'v'}", NULL, &f->mprog, &err)) {
        cel_activation *act = cel_activation_new(f->env, &f->marena);
        if (cel_eval(f->mprog, act, CEL_NO_COST_LIMIT, &f->m, NULL) != CEL_EVAL_OK)
            f->m = cel_null();
    }
    return f->m;
}

/* compile + evaluate; the result text (value, runtime error or compile error) and the cost */
static const char *run_env(fx *f, cel_env *env, const char *src, uint64_t *cost, const char **type)
{
    cel_program *p = NULL;
    cel_error err;
    if (!cel_compile(env, src, NULL, &p, &err))
        return kg_arena_sprintf(&f->arena, "compile: %s", err.message);
    if (type) {
        char b[256];
        *type = kg_arena_strdup(&f->arena, cel_type_format(cel_program_type(p), b, sizeof b));
    }
    cel_activation *act = cel_activation_new(env, &f->arena);
    cel_activation_set(act, "x", cel_int(7));
    cel_activation_set(act, "d", cel_string("dyn", 3));
    cel_activation_set(act, "m", dyn_map(f));
    cel_value v;
    uint64_t c = 0;
    cel_eval_status st = cel_eval(p, act, CEL_NO_COST_LIMIT, &v, &c);
    const char *out = st == CEL_EVAL_OK ? cel_value_debug(&f->arena, &v)
                                        : kg_arena_sprintf(&f->arena, "error: %s", cel_error_message(&v));
    if (cost)
        *cost = c;
    cel_program_free(p);
    return out;
}

static void expect(fx *f, const char *src, const char *want)
{
    const char *got = run_env(f, f->env, src, NULL, NULL);
    if (strncmp(got, want, strlen(want)) != 0)
        fail_msg("%s: got %s, want %s", src, got, want);
}

/* the fast-path environment and the container environment agree on result, error text, type and cost */
static void same_both(fx *f, const char *src)
{
    uint64_t c1 = 0, c2 = 0;
    const char *t1 = "", *t2 = "";
    const char *r1 = run_env(f, f->env, src, &c1, &t1);
    const char *r2 = run_env(f, f->envc, src, &c2, &t2);
    /* the container name appears in undeclared-reference errors: compare up to it */
    const char *cut1 = strstr(r1, "(in container"), *cut2 = strstr(r2, "(in container");
    size_t n1 = cut1 ? (size_t)(cut1 - r1) : strlen(r1), n2 = cut2 ? (size_t)(cut2 - r2) : strlen(r2);
    if (n1 != n2 || memcmp(r1, r2, n1) != 0 || c1 != c2 || strcmp(t1, t2) != 0)
        fail_msg("%s: [%s] %s cost %llu vs [%s] %s cost %llu", src, t1, r1, (unsigned long long)c1, t2, r2,
                 (unsigned long long)c2);
}

static void test_parser_fast_paths(void **state)
{
    fx *f = *state;
    /* every reserved word is still reserved; similar identifiers are not */
    static const char *reserved[] = {"as",        "break",  "const",  "continue", "else",  "for",
                                     "function",  "if",     "import", "let",      "loop",  "package",
                                     "namespace", "return", "var",    "void",     "while", NULL};
    for (int i = 0; reserved[i]; i++) {
        char want[128];
        snprintf(want, sizeof want, "compile: ERROR: <input>:1:1: reserved identifier: %s", reserved[i]);
        expect(f, reserved[i], want);
    }
    static const char *near[] = {"a", "ass", "iff", "fo", "vars", "namespaces", "Namespace", "whilex", "_if", NULL};
    for (int i = 0; near[i]; i++) {
        char want[160];
        snprintf(want, sizeof want, "compile: ERROR: <input>:1:1: undeclared reference to '%s'", near[i]);
        expect(f, near[i], want);
    }
    /* keywords and identifiers next to punctuation, string prefixes, comments, all token kinds */
    expect(f, "true&&!false||null==null", "true");
    expect(f, "1 in [1,2]&&x in[7]", "true");
    expect(f, "inx", "compile: ERROR: <input>:1:1: undeclared reference to 'inx'");
    expect(f, "r'a\\n' + b'x'.string()", "compile: ERROR: <input>:1:21: found no matching overload for 'string'");
    expect(f, "r'a\\n' + string(b'x') + R\"q\" + string(B'y') + string(rb'z') + string(Br'w')", "\"a\\\\nxqyzw\"");
    expect(f, "x // comment\n + 1 /* not a comment */",
           "compile: ERROR: <input>:2:7: Syntax error: extraneous input '*'");
    expect(f, "x // comment\n + 1", "8");
    /* number literals: the lexer's short-int fast path and everything it leaves to the general path */
    expect(f, "[0, 7, 00, 10, 123456789012345678, 1234567890123456789, 9223372036854775807]",
           "[0, 7, 0, 10, 123456789012345678, 1234567890123456789, 9223372036854775807]");
    expect(f, "9223372036854775808", "compile: ERROR: <input>:1:1: invalid int literal");
    expect(f, "[0x1F, 10u, 18446744073709551615u, 1.5, 1e3, 2.5e-1, 0XfU, -9223372036854775808]",
           "[31, 10u, 18446744073709551615u, 1.5, 1000, 0.25, 15u, -9223372036854775808]");
    expect(f, "[1].size()==1 && 1<2 && 2>1 && 1<=1 && 1>=1 && 1!=2 && !(1==2)", "true");
    expect(f, "x", "7");
    expect(f, " x ", "7");
    expect(f, "x //", "7");
    expect(f,
           "{'a': 1}.a + [1][0] - (2 * 3 % 4) + (x > 1 ? 1 : 0) + (x >= 1 ? 1 : 0) + (x < 1 ? 1 : 0) + "
           "(x <= 1 ? 1 : 0) + (x != 1 ? 1 : 0)",
           "3");
    expect(f, "x = 1", "compile: ERROR: <input>:1:3: Syntax error: token recognition error at: '='");
    expect(f, "x & 1", "compile: ERROR: <input>:1:3: Syntax error: token recognition error at: '&'");
    expect(f, "x # 1", "compile: ERROR: <input>:1:3: Syntax error: token recognition error at: '#'");
    expect(f, "`x`", "compile: ERROR: <input>:1:1: Syntax error: extraneous input '`x`'");
    expect(f, "m.`a-b`", "error: no such key: a-b");
    /* macro names are still macros; non-macro member names starting with the same letters are calls */
    expect(f,
           "[1, 2].all(v, v > 0) && [1].exists(v, v == 1) && [1].exists_one(v, v == 1) && "
           "[1].existsOne(i, v, v == 1) && [1].map(v, v * 2) == [2] && [1].filter(v, v > 1) == [] && "
           "[3, 1].sortBy(v, v) == [1, 3] && [1].transformList(i, v, v) == [1] && "
           "{'a': 1}.transformMap(k, v, v) == {'a': 1} && optional.of(1).optMap(v, v) == optional.of(1) && "
           "has(m.a) == false",
           "true");
    expect(f, "'abc'.startsWith('a') && 'abc'.endsWith('c') && 'abc'.size() == 3 && 'a'.matches('a')", "true");
    expect(f, "[1].allx(1, 2)", "compile: ERROR: <input>:1:9: undeclared reference to 'allx'");
    /* the depth check still runs for large trees, and small deep-looking trees are fine */
    {
        size_t n = 2 + 2 * 320;
        char *big = malloc(n + 1);
        big[0] = 'x';
        for (size_t i = 1; i + 1 < n; i += 2)
            big[i] = '+', big[i + 1] = '1';
        big[n - 1] = 0;
        const char *got = run_env(f, f->env, big, NULL, NULL);
        if (!strstr(got, "expression recursion limit exceeded"))
            fail_msg("deep tree: %s", got);
        big[2 * 150 + 1] = 0; /* 150 additions: fine */
        got = run_env(f, f->env, big, NULL, NULL);
        if (strcmp(got, "157") != 0)
            fail_msg("150 additions: %s", got);
        free(big);
    }
}

static void test_resolver_fast_paths(void **state)
{
    fx *f = *state;
    /* select chains: roots that can and cannot start a qualified name, in both environments */
    static const char *exprs[] = {
        "a.b.c",
        "a.b.c + '!'",
        "a.b['c']",
        "a.b.x",
        "has(a.b.c)",
        "m.spec.name",
        "m.spec.name.size()",
        "has(m.spec.name)",
        "m.?spec.name",
        "d.spec",
        "[{'p': {'q': 1}}].all(e, e.p.q == 1)",
        "[{'p': {'q': 1}}].map(e, e.p.q)",
        "{'x': {'y': 2}}.x.y",
        "nope.a.b",
        ".x + 1",
        ".a.b.c",
        "math.greatest(1, 2)",
        "math.least([3, 1, 2])",
        "strings.quote('a')",
        "base64.encode(b'ab')",
        "optional.of(1).hasValue()",
        "optional.none().orValue(2)",
        "sets.contains([1, 2], [1])",
        "math.nothere(1)",
        "m.greatest(1, 2)",
        "x.size()",
        "'abc'.matches('^a') && 'abc'.matches('c$')",
        "google.protobuf.Timestamp",
        "int",
        "type(1) == int",
        "cel.bind(v, 2, v * x)",
        "qq.Obj",
        "type(1) != qq.Obj",
        "qq.Other",
        "[qq.Obj].size()",
        "qq",
        NULL,
    };
    for (int i = 0; exprs[i]; i++)
        same_both(f, exprs[i]);
    expect(f, "a.b.c", "error: no such attribute(s): a.b.c"); /* declared but not bound */
    expect(f, "math.greatest(1, 2)", "2");
    expect(f, ".x + 1", "8");
}

/* the overload's user data is its index: the function returns it */
static cel_value f_index(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)args;
    (void)n;
    return cel_int((int64_t)(intptr_t)cel_call_userdata(ctx));
}

static void add_index_fn(cel_env *env, const char *name, int64_t idx)
{
    cel_overload o;
    memset(&o, 0, sizeof o);
    char id[96];
    snprintf(id, sizeof id, "idx_%lld", (long long)idx);
    o.id = id;
    o.nargs = 1;
    o.args[0] = cel_type_int();
    o.result = cel_type_int();
    o.impl = f_index;
    o.ud = (void *)(intptr_t)idx;
    cel_error err;
    assert_true(cel_env_add_function(env, name, &o, 1, &err));
}

static void index_fn_name(char *name, int len, int v)
{
    for (int i = 0; i < len; i++)
        name[i] = (char)('a' + (i * 7 + v * 3 + len) % 26);
    name[0] = 'z'; /* no clash with the standard functions */
    name[len] = 0;
}

/* function lookup by tag and word compares: names of every length up to 40 (registered past the table's growth,
 * which rehashes the tags and the dotted-root filter) are found, names of the same length that differ in one byte
 * are not; namespaced functions are still found from any root, member calls on other roots stay member calls */
static void test_function_lookup_fast_paths(void **state)
{
    fx *f = *state;
    cel_env *envs[2] = {f->env, f->envc};
    for (int e = 0; e < 2; e++) {
        for (int len = 1; len <= 40; len++) {
            for (int v = 0; v < (len == 1 ? 1 : 6); v++) {
                char name[48];
                index_fn_name(name, len, v);
                add_index_fn(envs[e], name, len * 10 + v);
            }
        }
        add_index_fn(envs[e], "zq9.fn", 1001);
        add_index_fn(envs[e], "zq9.sub.fn", 1002);
        add_index_fn(envs[e], "d.fn", 1003); /* d is also a variable: the variable wins, d.fn(1) is a member call */
    }
    for (int len = 1; len <= 40; len++) {
        for (int v = 0; v < (len == 1 ? 1 : 6); v++) {
            char name[48], src[96], want[32];
            index_fn_name(name, len, v);
            snprintf(src, sizeof src, "%s(1)", name);
            snprintf(want, sizeof want, "%d", len * 10 + v);
            expect(f, src, want);
            same_both(f, src);
            /* one byte off, at the start, the middle and the end */
            for (int at = 0; at < 3; at++) {
                int k = at == 0 ? 0 : at == 1 ? len / 2 : len - 1;
                char miss[48];
                memcpy(miss, name, (size_t)len + 1);
                miss[k] = miss[k] == 'y' ? 'x' : 'y';
                bool registered = false; /* the change may land on another registered name */
                for (int w = 0; w < (len == 1 ? 1 : 6) && !registered; w++) {
                    char other[48];
                    index_fn_name(other, len, w);
                    registered = strcmp(other, miss) == 0;
                }
                snprintf(src, sizeof src, "%s(1)", miss);
                char want2[160];
                snprintf(want2, sizeof want2, "compile: ERROR: <input>:1:%d: undeclared reference to '%s'", len + 1,
                         miss);
                const char *got = run_env(f, f->env, src, NULL, NULL);
                if (registered ? strncmp(got, "compile:", 8) == 0 : strncmp(got, want2, strlen(want2)) != 0)
                    fail_msg("%s: %s", src, got);
            }
        }
    }
    static const char *exprs[] = {
        "zq9.fn(1)",
        "zq9.sub.fn(1)",
        "zq9.other(1)",
        "zq9.sub.other(1)",
        "d.fn(1)",
        "m.spec.fn(1)",
        "m.spec.size()",
        "m.spec.name.startsWith('w')",
        "[m].all(e, e.spec.name.startsWith('w'))",
        "[m].exists(zq9, zq9.spec.name.size() == 3)",
        "[1].exists(zq9, zq9.fn(1) == 1)",
        NULL,
    };
    for (int i = 0; exprs[i]; i++)
        same_both(f, exprs[i]);
    expect(f, "zq9.fn(1)", "1001");
    expect(f, "zq9.sub.fn(1)", "1002");
    expect(f, "d.fn(1)", "compile: ERROR: <input>:1:5: undeclared reference to 'fn'");
    expect(f, "[m].exists(zq9, zq9.spec.name.size() == 3)", "true");
}

/* The parser's calls of fixed-name functions carry the env's function and the resolver takes it when there is no
 * container; with a container the name still goes through the container search (a container-qualified function of
 * the same name wins, as before). Variables are found by length and word compares. */
static void test_fixed_name_functions_and_variables(void **state)
{
    fx *f = *state;
    for (unsigned k = 0; k < CEL_WK_COUNT; k++) {
        assert_int_equal(strlen(cel_wk_names[k]), cel_wk_lens[k]);
        assert_ptr_equal(cel_env_wk(f->env, k), cel_env_func(f->env, cel_wk_names[k]));
        assert_non_null(cel_env_wk(f->env, k));
    }
    static const char *exprs[] = {
        "x + 1 - 2 * 3 / 1 % 5 == 1 || x != 2 && x < 3 || x <= 4 || x > 5 && x >= 6",
        "!(x in [1, 2]) && -x < 0 && [1, 2][1] == 2 && (x > 1 ? 'a' : 'b') == 'a'",
        "[1, 2].all(v, v > 0) && [1, 2].exists(v, v == 2) && [1, 2].exists_one(v, v == 2)",
        "[1, 2].map(v, v * 2) == [2, 4] && [1, 2].filter(v, v > 1) == [2] && [1, 2].map(v, v > 1, v) == [2]",
        "d + 'x' == 'dynx' && m.k == 'v' && m['k'] == 'v'",
        NULL,
    };
    for (int i = 0; exprs[i]; i++) {
        same_both(f, exprs[i]);
        expect(f, exprs[i], "true");
    }
    /* a container-qualified function named like an operator takes the call in its container only */
    cel_env *env = cel_env_new(CEL_LIB_ALL);
    cel_env_set_container(env, "ns");
    add_index_fn(env, "ns.-_", 42);
    add_index_fn(env, "ns.@not_strictly_false", 43);
    cel_program *p = NULL;
    cel_error err;
    assert_true(cel_compile(env, "-(1)", NULL, &p, &err));
    cel_activation *act = cel_activation_new(env, &f->arena);
    cel_value v;
    assert_int_equal(cel_eval(p, act, CEL_NO_COST_LIMIT, &v, NULL), CEL_EVAL_OK);
    assert_int_equal(v.kind, CEL_INT);
    assert_int_equal(v.u.i, 42);
    cel_program_free(p);
    assert_false(cel_compile(env, "[1].all(v, v > 0)", NULL, &p, &err)); /* @not_strictly_false(int) -> int */
    cel_env_set_container(env, "");
    assert_true(cel_compile(env, "-(1) == -1 && [1].all(v, v > 0)", NULL, &p, &err));
    act = cel_activation_new(env, &f->arena);
    assert_int_equal(cel_eval(p, act, CEL_NO_COST_LIMIT, &v, NULL), CEL_EVAL_OK);
    assert_true(v.kind == CEL_BOOL && v.u.b);
    cel_program_free(p);
    cel_env_free(env);

    /* variables of many lengths, some prefixes of others, declared past the array's growth */
    env = cel_env_new(CEL_LIB_ALL);
    static const char base[] = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqr";
    for (int len = 1; len <= 40; len++) {
        char name[48];
        memcpy(name, base, (size_t)len);
        name[len] = 0;
        assert_true(cel_env_declare_var(env, name, cel_type_int()));
    }
    for (int len = 1; len <= 40; len++) {
        char name[48], src[128];
        memcpy(name, base, (size_t)len);
        name[len] = 0;
        snprintf(src, sizeof src, "%s + 1", name);
        assert_true(cel_compile(env, src, NULL, &p, &err));
        act = cel_activation_new(env, &f->arena);
        cel_activation_set(act, name, cel_int(len));
        assert_int_equal(cel_eval(p, act, CEL_NO_COST_LIMIT, &v, NULL), CEL_EVAL_OK);
        assert_int_equal(v.u.i, len + 1);
        cel_program_free(p);
        name[len - 1] = 'Z'; /* same length, last byte off: undeclared */
        snprintf(src, sizeof src, "%s + 1", name);
        assert_false(cel_compile(env, src, NULL, &p, &err));
        assert_non_null(strstr(err.message, "undeclared reference"));
    }
    /* redeclaring with the same type is fine, with another type not */
    assert_true(cel_env_declare_var(env, "abc", cel_type_int()));
    assert_false(cel_env_declare_var(env, "abc", cel_type_string()));
    cel_env_free(env);
}

/* compile (and evaluate) src both ways: NUL-terminated (the lexer's lex_nul path) and with an explicit length and
 * other bytes behind it (the bounded path); results, errors' first lines and costs must agree */
static void same_both_lexers(fx *f, const char *src)
{
    size_t n = strlen(src);
    cel_program *p1 = NULL, *p2 = NULL;
    cel_error e1, e2;
    bool ok1 = cel_compile(f->env, src, NULL, &p1, &e1);
    char *buf = malloc(n + 40);
    memcpy(buf, src, n);
    memcpy(buf + n, "zzzzzzzzzzzzzzzzzzzz'\"zzzzzzzzzzzzzz", 37);
    buf[n + 37] = 0;
    cel_compile_opts o = {0, NULL, n};
    bool ok2 = n ? cel_compile(f->env, buf, &o, &p2, &e2) : cel_compile(f->env, src, NULL, &p2, &e2);
    free(buf);
    size_t l1 = ok1 ? 0 : strcspn(e1.message, "\n"), l2 = ok2 ? 0 : strcspn(e2.message, "\n");
    if (ok1 != ok2 || l1 != l2 || (!ok1 && strncmp(e1.message, e2.message, l1) != 0))
        fail_msg("%s: %d %s vs %d %s", src, ok1, ok1 ? "" : e1.message, ok2, ok2 ? "" : e2.message);
    if (ok1) {
        const char *r[2];
        uint64_t c[2];
        cel_program *ps[2] = {p1, p2};
        for (int k = 0; k < 2; k++) {
            cel_activation *act = cel_activation_new(f->env, &f->arena);
            cel_activation_set(act, "x", cel_int(7));
            cel_activation_set(act, "d", cel_string("dyn", 3));
            cel_activation_set(act, "m", dyn_map(f));
            cel_value v;
            c[k] = 0;
            cel_eval_status st = cel_eval(ps[k], act, 100000, &v, &c[k]);
            r[k] = st == CEL_EVAL_OK ? cel_value_debug(&f->arena, &v)
                                     : kg_arena_sprintf(&f->arena, "error: %s", cel_error_message(&v));
        }
        if (strcmp(r[0], r[1]) != 0 || c[0] != c[1])
            fail_msg("%s: %s (%llu) vs %s (%llu)", src, r[0], (unsigned long long)c[0], r[1], (unsigned long long)c[1]);
    }
    cel_program_free(p1);
    cel_program_free(p2);
}

/* the lexer's scans that stop on the source's NUL (length from strlen) give what the bounded scans give for the
 * same text with an explicit length and other bytes after it */
static void test_lexer_nul_end(void **state)
{
    fx *f = *state;
    static const char *exprs[] = {
        "x",
        "x + 1",
        "abcdefghijklmno",
        "abcdefghijklmnop",
        "abcdefghijklmnopq",
        "x == 7 && abcdefghijklmn",
        "'abc'",
        "'abc",
        "\"abc",
        "'abc' + \"de\"",
        "'a\\nb'",
        "'caf\xc3\xa9'.size()",
        "'\xff'",
        "m.spec.name + 'x'",
        "m.spec.name.startsWith('w')",
        "[1, 2].all(v, v > 0)",
        "r'a' + b'x'.string()",
        "x //",
        "'",
        "'''a'''",
        "x'",
        NULL,
    };
    for (int i = 0; exprs[i]; i++) {
        const char *src = exprs[i];
        size_t n = strlen(src);
        cel_program *p1 = NULL, *p2 = NULL;
        cel_error e1, e2;
        bool ok1 = cel_compile(f->env, src, NULL, &p1, &e1);
        /* the same bytes, followed by more identifier and string bytes, with an explicit length */
        char *buf = malloc(n + 40);
        memcpy(buf, src, n);
        memcpy(buf + n, "zzzzzzzzzzzzzzzzzzzz'\"zzzzzzzzzzzzzz", 37);
        buf[n + 37] = 0;
        cel_compile_opts o = {0, NULL, n};
        bool ok2 = cel_compile(f->env, buf, &o, &p2, &e2);
        free(buf);
        /* the messages' first lines (the source excerpt after them shows the bytes beyond an explicit length) */
        if (ok1 != ok2 || (!ok1 && strcspn(e1.message, "\n") != strcspn(e2.message, "\n")) ||
            (!ok1 && strncmp(e1.message, e2.message, strcspn(e1.message, "\n")) != 0))
            fail_msg("%s: %d %s vs %d %s", src, ok1, ok1 ? "" : e1.message, ok2, ok2 ? "" : e2.message);
        if (ok1) {
            const char *r[2];
            uint64_t c[2];
            cel_program *ps[2] = {p1, p2};
            for (int k = 0; k < 2; k++) {
                cel_activation *act = cel_activation_new(f->env, &f->arena);
                cel_activation_set(act, "x", cel_int(7));
                cel_activation_set(act, "m", dyn_map(f));
                cel_value v;
                c[k] = 0;
                cel_eval_status st = cel_eval(ps[k], act, CEL_NO_COST_LIMIT, &v, &c[k]);
                r[k] = st == CEL_EVAL_OK ? cel_value_debug(&f->arena, &v)
                                         : kg_arena_sprintf(&f->arena, "error: %s", cel_error_message(&v));
            }
            if (strcmp(r[0], r[1]) != 0 || c[0] != c[1])
                fail_msg("%s: %s (%llu) vs %s (%llu)", src, r[0], (unsigned long long)c[0], r[1],
                         (unsigned long long)c[1]);
        }
        cel_program_free(p1);
        cel_program_free(p2);
    }
    /* string literals of every length around the inline copy's limits, both quotes, with the other quote, tabs,
     * escapes and non-ASCII bytes inside, alone and followed by more tokens */
    {
        static const char *const fill[] = {"a", "'", "\"", "\t", "\\n", "\xc3\xa9", " ", "~"};
        for (size_t fi = 0; fi < sizeof fill / sizeof *fill; fi++) {
            for (int len = 0; len <= 40; len++) {
                for (int qi = 0; qi < 2; qi++) {
                    char q = qi ? '"' : '\'';
                    char src[256];
                    size_t k = 0;
                    src[k++] = q;
                    for (int i = 0; i < len && k + 8 < 200; i++) {
                        const char *pc = i == len / 2 ? fill[fi] : "x";
                        if (pc[0] == q && pc[1] == 0)
                            pc = "y";
                        size_t pl = strlen(pc);
                        memcpy(src + k, pc, pl);
                        k += pl;
                    }
                    src[k++] = q;
                    src[k] = 0;
                    same_both_lexers(f, src);
                    memcpy(src + k, ".size() + 1", 12);
                    same_both_lexers(f, src);
                }
            }
        }
    }
    /* identifiers of every length up to 20, at the end of the source and before more tokens: their copies */
    for (int len = 1; len <= 20; len++) {
        char name[32], src[64], want[128];
        for (int i = 0; i < len; i++)
            name[i] = (char)('a' + (i * 5 + len) % 26);
        name[0] = 'q';
        name[len] = 0;
        snprintf(want, sizeof want, "compile: ERROR: <input>:1:1: undeclared reference to '%s'", name);
        expect(f, name, want);
        snprintf(src, sizeof src, "%s + 1", name);
        expect(f, src, want);
        snprintf(src, sizeof src, "[1].all(%s, %s > 0)", name, name);
        expect(f, src, "true");
        same_both_lexers(f, src);
    }
    /* call arguments that are a lone identifier or string (made without the operator descent when the source ends
     * on its NUL): followed by ',' or ')' after spaces, reserved words, other following tokens, the nesting limit */
    {
        static const char *const args[] = {
            "size(d)",
            "size( d )",
            "size(d )",
            "size('abc')",
            "size('abc' )",
            "'abc'.startsWith('a')",
            "'abc'.startsWith( 'a' ,)",
            "'abc'.startsWith('a', 'b')",
            "[1].all(v , v > 0)",
            "[1].all(v,v>0)",
            "[1].all(v\t, v > 0)",
            "[1].all(if, if > 0)",
            "size(for)",
            "size(in)",
            "size(true)",
            "size(null)",
            "size(d.x)",
            "size('a' + 'b')",
            "size(x)",
            "size(nope)",
            "size(b'ab')",
            "size(r'ab')",
            "f(x)",
            "m.k.startsWith(d)",
            NULL,
        };
        for (int i = 0; args[i]; i++)
            same_both_lexers(f, args[i]);
        for (int depth = 246; depth <= 252; depth++) {
            char *src = malloc((size_t)depth * 6 + 8);
            size_t k = 0;
            for (int i = 0; i < depth; i++)
                memcpy(src + k, "size(", 5), k += 5;
            src[k++] = 'd';
            for (int i = 0; i < depth; i++)
                src[k++] = ')';
            src[k] = 0;
            same_both_lexers(f, src);
            free(src);
        }
    }
    /* a NUL inside an explicitly sized string literal is a byte of the string (the general path) */
    {
        const char src[] = "'a\0b'.size()";
        cel_compile_opts o = {0, NULL, sizeof src - 1};
        cel_program *p = NULL;
        cel_error err;
        assert_true(cel_compile(f->env, src, &o, &p, &err));
        cel_activation *act = cel_activation_new(f->env, &f->arena);
        cel_value v;
        assert_int_equal(cel_eval(p, act, CEL_NO_COST_LIMIT, &v, NULL), CEL_EVAL_OK);
        assert_int_equal(v.kind, CEL_INT);
        assert_int_equal(v.u.i, 3);
        cel_program_free(p);
    }
}

/* random token soup (valid and invalid) through both lexer paths */
static void test_lexer_paths_random(void **state)
{
    fx *f = *state;
    static const char *const pieces[] = {
        "x",
        "d",
        "m",
        "m.spec",
        ".name",
        "in",
        "true",
        "false",
        "null",
        "inx",
        "r",
        "b",
        "rb",
        "br",
        "R",
        "_a1",
        "abcdefghijklmnopq",
        "0",
        "7",
        "00",
        "123",
        "1.5",
        ".5",
        "1e3",
        "0x1F",
        "10u",
        "9223372036854775807",
        "99999999999999999999",
        "'a'",
        "\"b\"",
        "'''t'''",
        "\"\"\"u\"\"\"",
        "'\\n'",
        "'\\x41'",
        "'\\u00e9'",
        "'\\z'",
        "'caf\xc3\xa9'",
        "'\xff'",
        "'",
        "\"",
        "`q`",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        "?",
        "+",
        "-",
        "*",
        "/",
        "%",
        "!",
        "=",
        "==",
        "!=",
        "<",
        "<=",
        ">",
        ">=",
        "&&",
        "||",
        "&",
        "|",
        ".",
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "// c\n",
        "/* */",
        "#",
        "$",
        "@",
        "\\",
        ".all(v, v > 0)",
        ".size()",
        "has(m.k)",
        "[1, 2].exists(v, v == 2)",
        /* selections read as one run (parse.c select_run) and what stops it */
        ".spec",
        ".k",
        ".in",
        ".true",
        ".null",
        ".br",
        ".exists(k, k == 'k')",
        ".startsWith(",
        ".x{",
        "m.spec.name",
        "m.k.size()",
    };
    const size_t np = sizeof pieces / sizeof *pieces;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    char src[512];
    for (int iter = 0; iter < 20000; iter++) {
        size_t len = 0;
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        int k = 1 + (int)(seed % 9);
        for (int j = 0; j < k; j++) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            const char *pc = pieces[seed % np];
            size_t pl = strlen(pc);
            if (len + pl + 1 >= sizeof src)
                break;
            memcpy(src + len, pc, pl);
            len += pl;
        }
        src[len] = 0;
        same_both_lexers(f, src);
    }
    /* operand (operator operand)*, with random white space: mostly valid expressions */
    static const char *const operands[] = {
        "x",
        "d",
        "m.k",
        "m.spec.n",
        "m['k']",
        "1",
        "0",
        "42",
        "2.5",
        "1u",
        "'s'",
        "\"t\"",
        "true",
        "false",
        "null",
        "[1, 2]",
        "{'a': 1}",
        "size(d)",
        "d.size()",
        "(x + 1)",
        "-x",
        "!true",
        "x in [7]",
        "m.spec.name",
        "[1].all(v, v > 0)",
        "[1, 2].exists(v, v == x)",
        "has(m.spec)",
        "'abc'.startsWith('a')",
        "r'\\d'",
        "b'x'",
    };
    static const char *const ops[] = {"+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "in"};
    static const char *const spaces[] = {"", " ", "  ", "\t", "\n", " // c\n"};
    for (int iter = 0; iter < 20000; iter++) {
        size_t len = 0;
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        int k = 1 + (int)(seed % 4);
        for (int j = 0; j < k; j++) {
            const char *parts[4];
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            parts[0] = j ? ops[seed % (sizeof ops / sizeof *ops)] : "";
            parts[1] = spaces[(seed >> 8) % (sizeof spaces / sizeof *spaces)];
            parts[2] = operands[(seed >> 16) % (sizeof operands / sizeof *operands)];
            parts[3] = spaces[(seed >> 24) % (sizeof spaces / sizeof *spaces)];
            for (int q = 0; q < 4; q++) {
                size_t pl = strlen(parts[q]);
                if (len + pl + 1 < sizeof src) {
                    memcpy(src + len, parts[q], pl);
                    len += pl;
                }
            }
        }
        src[len] = 0;
        same_both_lexers(f, src);
    }
}

/* Declared variables found directly by an identifier (no container), comprehension variables shadowing them,
 * macro names matched by length, the checker's shortcut for trivially assignable accumulator and range types:
 * same results, errors and costs in both environments (the container one takes the general paths). */
static void test_ident_macro_assign_paths(void **state)
{
    fx *f = *state;
    static const char *exprs[] = {
        "x + 1",
        "x + [1].map(x, x * 2)[0]",
        "[1, 2].all(x, x > 0) && x == 7",
        "[1, 2].exists(d, d == 2) && d == 'dyn'",
        "m.spec.name + d",
        "[x, x].filter(v, v == x).size()",
        "{'a': x}.all(k, k == 'a')",
        "d.all(c, c == 'y')",
        "m.all(k, m[k] != null)",
        "[1, 2].map(v, [v]).exists(l, l.size() == 1)",
        "[[1], [2]].all(l, l.all(v, v > 0))",
        "[1, 2].exists_one(v, v > 1) && [1].existsOne(v, v > 0)",
        "[1].alL(v, v > 0)",
        "[1].exist(v, v > 0)",
        "[1].existsone(v, v > 0)",
        "[1].sortBy(v, -v)",
        "[1, 2].all(v, v)",
        "[1, 2].all(v, d)",
        "[1, 2].exists(v, 'a')",
        NULL,
    };
    for (int i = 0; exprs[i]; i++)
        same_both(f, exprs[i]);
    expect(f, "x + [1].map(x, x * 2)[0]", "9");
    expect(f, "[1, 2].exists(d, d == 2) && d == 'dyn'", "true");
    expect(f, "[1].alL(v, v > 0)", "compile: ERROR: <input>:1:9: undeclared reference to 'v'");
    expect(f, "[1, 2].all(v, v)",
           "compile: ERROR: <input>:1:11: found no matching overload for '_&&_' applied to '(bool, int)'");
    expect(f, "[1, 2].all(v, d)", "error: no such overload");
    /* more calls with constant arguments than the checker's inline list holds: all prepared (a bad pattern in the
     * last one is still a compile error) */
    {
        char src[1024];
        size_t k = 0;
        for (int i = 0; i < 20; i++)
            k += (size_t)snprintf(src + k, sizeof src - k, "%s'a%d'.matches('^a%d$')", i ? " && " : "", i, i);
        expect(f, src, "true");
        snprintf(src + k, sizeof src - k, " && 'x'.matches('(')");
        expect(f, src, "compile: ERROR: <input>:1:");
        const char *got = run_env(f, f->env, src, NULL, NULL);
        if (!strstr(got, "missing"))
            fail_msg("bad pattern after 20 prepared calls: %s", got);
    }
}

static void test_checker_fast_paths(void **state)
{
    fx *f = *state;
    static const struct {
        const char *src, *type;
    } typed[] = {
        {"x < 1", "bool"},
        {"x < 1.5", "bool"},
        {"x < 1u", "bool"},
        {"'a' < 'b'", "bool"},
        {"d < 1", "bool"},
        {"x + 1", "int"},
        {"1.5 + 2.5", "double"},
        {"'a' + 'b'", "string"},
        {"[1] + [2]", "list(int)"},
        {"d + 1", "int"},
        {"d + d", "dyn"},
        {"size('a') + size([1]) + size({1: 2})", "int"},
        {"x == 1 ? 'a' : 'b'", "string"},
        {"duration('1s') + timestamp('2020-01-01T00:00:00Z')", "google.protobuf.Timestamp"},
        {"timestamp('2020-01-01T00:00:00Z') - timestamp('2020-01-01T00:00:00Z')", "google.protobuf.Duration"},
        {"m['k']", "dyn"},
        {"[1, 2][0]", "int"},
        {"{'a': 1}['a']", "int"},
        {"1 in [1]", "bool"},
        {"[[], [1]]", "list(list(int))"},
        {"[] + []", "list(dyn)"},
        {"1 == 1 && 'a' != 'b' && d == 1 && 1 == d && d != d && null == null && [1] == [2]", "bool"},
        {"{'a': 1} == {'b': 2} && [d] == [1] && timestamp('2020-01-01T00:00:00Z') != timestamp(d)", "bool"},
        {"[] == [] && [1] == [] && {} == {'a': [1]}", "bool"},
        {"'a' in d && 'a' in m && 1 in [1] && 'a' in {'a': 1} && d in d && [1] in [[1]] && d in [1] && d in {1: 'a'}",
         "bool"},
        {"[1, 2].exists(v, v in d) && m.all(k, k in d) && has(m.a) && size(d) > 0", "bool"},
        {"size(d)", "int"},
        {"d.size() + size(m)", "int"},
        {"d[0]", "dyn"},
        {"m['a']['b']", "dyn"},
        {"[d][0]", "dyn"},
        {"size(d) < size([d]) ? d : [d]", "dyn"},
        {NULL, NULL},
    };
    for (int i = 0; typed[i].src; i++) {
        const char *t = "";
        const char *r = run_env(f, f->env, typed[i].src, NULL, &t);
        if (strncmp(r, "compile:", 8) == 0 || strcmp(t, typed[i].type) != 0)
            fail_msg("%s: type %s (%s), want %s", typed[i].src, t, r, typed[i].type);
    }
    expect(f, "1 < 'a'",
           "compile: ERROR: <input>:1:3: found no matching overload for '_<_' applied to '(int, string)'");
    expect(f, "'a' + 1",
           "compile: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(string, int)'");
    expect(f, "true - false",
           "compile: ERROR: <input>:1:6: found no matching overload for '_-_' applied to '(bool, bool)'");
    expect(f, "size(1)", "compile: ERROR: <input>:1:5: found no matching overload for 'size' applied to '(int)'");
    expect(f, "1 == 'a'",
           "compile: ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, string)'");
    expect(f, "[1] != ['a']",
           "compile: ERROR: <input>:1:5: found no matching overload for '_!=_' applied to '(list(int), list(string))'");
    expect(f, "null == 1",
           "compile: ERROR: <input>:1:6: found no matching overload for '_==_' applied to '(null_type, int)'");
    expect(f, "1 == 1u", "compile: ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, uint)'");
    expect(f, "x == 7 && d == 'dyn' && [x, 1] == [7, 1]", "true");
    expect(f, "'a' in [1]",
           "compile: ERROR: <input>:1:5: found no matching overload for '@in' applied to '(string, list(int))'");
    expect(f, "1 in 1", "compile: ERROR: <input>:1:3: found no matching overload for '@in' applied to '(int, int)'");
    expect(f, "'y' in d", "error: no such overload");
    expect(f, "'a' in ['a'] && 'k' in m && !('z' in m)", "true");
    expect(f, "[1] + ['a']",
           "compile: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(list(int), list(string))'");
    expect(f, "1 < 2u && 1.5 > 1 && 2u >= 1.0 && d < 3", "error: no such overload");
    expect(f, "1 < 2u && 1.5 > 1 && 2u >= 1.0", "true");
}

static cel_value f_ident(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx;
    (void)n;
    return args[0];
}

/* Overload resolution's shortcut for calls whose reachable overloads are all non-generic (and whose generic ones,
 * if any, the argument kinds rule out): types, values, costs and errors as written down from the general path
 * (this test also passes against the build before the shortcut). Fresh-variable numbering after such calls shows
 * in the later generic calls' types. */
static const struct resolution_case {
    const char *src, *type, *value;
    uint64_t cost;
} resolution_cases[] = {
    {"x + 1", "int", "8", 2},
    {"d + 'x'", "string", "\"dynx\"", 2},
    {"'x' + d", "string", "\"xdyn\"", 2},
    {"d + 1", "int", "error: no such overload: _+_(string, int)", 3},
    {"1.5 + d", "double", "error: no such overload: _+_(double, string)", 3},
    {"x - 1 + x * 2 - x / 2 + x % 3", "int", "18", 11},
    {"d - d", "dyn", "error: no such overload: _-_(string, string)", 4},
    {"-x + -(1.5)", NULL,
     "compile: ERROR: <input>:1:4: found no matching overload for '_+_' applied to '(int, double)'", 0},
    {"-d", "dyn", "error: no such overload: -_(string)", 3},
    {"x < d", "bool", "error: no such overload: _<_(int, string)", 4},
    {"d < d", "bool", "false", 3},
    {"d <= 'e' && 'c' >= d", "bool", "false", 4},
    {"!d", "bool", "error: no such overload: !_(string)", 3},
    {"d && true", "bool", "error: no such overload: _&&_(string, bool)", 1},
    {"true || d", "bool", "true", 0},
    {"d.startsWith('d') && d.endsWith('n') && d.contains('y')", "bool", "true", 6},
    {"'abc'.startsWith(d)", "bool", "false", 2},
    {"d.matches('^d') && 'dyn'.matches(d)", "bool", "true", 4},
    {"int(x) + int(1.5) + int('3') + int(d)", "int", "error: cannot convert string to int: dyn", 9},
    {"string(x) + string(d) + string(1.5)", "string", "\"7dyn1.5\"", 7},
    {"double(x) + double(d)", "double", "error: cannot convert string to double", 5},
    {"duration('1s') + duration('2s') > duration('2s')", "bool", "true", 5},
    {"timestamp(0) + duration('1s') - timestamp(1) == duration('0s')", "bool", "true", 7},
    {"[x + 1, d + 'x'][0]", "dyn", "8", 15},
    {"x + 1 == 8 && [] == [] && [d + 'a'] == ['dyna']", "bool", "true", 47},
    {"m.k + 'x'", "string", "\"vx\"", 3},
    {"m.spec.n + 1 < 5 && m.spec.name + 'x' == 'webx'", "bool", "true", 10},
    {"[1, 2].all(v, v + 1 > d)", "bool", "error: no such overload: _>_(int, string)", 27},
    {"[1, 2].exists(v, d + 'a' == 'dyna')", "bool", "true", 21},
    {"{'a': x + 1}['a'] + 1", "int", "9", 34},
    {"x.startsWith('a')", NULL,
     "compile: ERROR: <input>:1:13: found no matching overload for 'startsWith' applied to 'int.(string)'", 0},
    {"!x", NULL, "compile: ERROR: <input>:1:1: found no matching overload for '!_' applied to '(int)'", 0},
    {"x && true", NULL, "compile: ERROR: <input>:1:3: found no matching overload for '_&&_' applied to '(int, bool)'",
     0},
    {"'a' - d", NULL, "compile: ERROR: <input>:1:5: found no matching overload for '_-_' applied to '(string, dyn)'",
     0},
    {"null + 1", NULL,
     "compile: ERROR: <input>:1:6: found no matching overload for '_+_' applied to '(null_type, int)'", 0},
    {"d == 'dyn'", "bool", "true", 2},
    {"'dyn' == d && d != 'x' && x == 7 && 7 != x", "bool", "false", 8},
    {"m.k == 'v' && m.spec.n == 3 && m.spec == m.spec", "bool", "true", 12},
    {"[1] == [1] && [d] == ['dyn'] && {'a': 1} != {'a': 2}", "bool", "true", 104},
    {"1 == 1.0", NULL, "compile: ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, double)'",
     0},
    {"x == d", "bool", "false", 3},
    {"null == d && d != null", "bool", "false", 2},
    {"'k' in m && 'k' in d && 1 in [1] && d in [1, 2] && d in {'dyn': 1}", "bool", "false", 29},
    {"size(d) + size(m) + d.size() + size('ab') + size([1]) + size({1: 2})", "int", "12", 54},
    {"[1, 2].exists(v, v == 2) && ['a'].all(s, s == 'a') && m.exists(k, k == 'k')", "bool", "true", 53},
    {"[1, 2].exists(v, v == d) && [d].exists(v, v == 'dyn')", "bool", "false", 25},
    {"[[1]].exists(l, l == [1]) && [[1]].exists(l, [1] == l)", "bool", "true", 74},
    {"type(d) == string && type(x) == int", "bool", "true", 6},
    {"[].exists(v, v == 1) || [{}].exists(v, v == {})", "bool", "true", 88},
    {"x == 'a'", NULL, "compile: ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, string)'",
     0},
    {"[x] == ['a']", NULL,
     "compile: ERROR: <input>:1:5: found no matching overload for '_==_' applied to '(list(int), list(string))'", 0},
    {"1 in 'abc'", NULL, "compile: ERROR: <input>:1:3: found no matching overload for '@in' applied to '(int, string)'",
     0},
    {NULL, NULL, NULL, 0},
};

static void test_checker_simple_resolution(void **state)
{
    fx *f = *state;
    const struct resolution_case *cases = resolution_cases;
    for (int i = 0; cases[i].src; i++) {
        const char *t = "";
        uint64_t c = 0;
        const char *r = run_env(f, f->env, cases[i].src, &c, &t);
        if (!cases[i].type) {
            if (strncmp(r, cases[i].value, strlen(cases[i].value)) != 0)
                fail_msg("%s: %s, want %s", cases[i].src, r, cases[i].value);
            continue;
        }
        if (strcmp(t, cases[i].type) != 0 || strcmp(r, cases[i].value) != 0 || c != cases[i].cost)
            fail_msg("%s: [%s] %s cost %llu, want [%s] %s cost %llu", cases[i].src, t, r, (unsigned long long)c,
                     cases[i].type, cases[i].value, (unsigned long long)cases[i].cost);
        same_both(f, cases[i].src);
    }
}

/* user overloads registered one by one (the overload array and its per-overload facts grow several times) resolve
 * as before: generic and non-generic, scalar mismatches, results */
static void test_checker_overload_registry(void **state)
{
    fx *f = *state;
    cel_env *env = f->env;
    const cel_type *A = cel_type_param(env, "A"), *B = cel_type_param(env, "B");
    const cel_type *sig[][3] = {
        {cel_type_int(), NULL, cel_type_int()},
        {cel_type_string(), NULL, cel_type_string()},
        {cel_type_list(env, A), NULL, A},
        {cel_type_double(), NULL, cel_type_double()},
        {cel_type_map(env, A, B), NULL, B},
        {cel_type_bool(), NULL, cel_type_bool()},
        {cel_type_bytes(), NULL, cel_type_bytes()},
        {cel_type_uint(), NULL, cel_type_uint()},
        {cel_type_int(), cel_type_int(), cel_type_int()},
        {cel_type_list(env, A), cel_type_list(env, A), cel_type_list(env, A)},
        {cel_type_string(), A, A},
    };
    for (size_t i = 0; i < sizeof sig / sizeof *sig; i++) {
        cel_overload o;
        memset(&o, 0, sizeof o);
        char id[32];
        snprintf(id, sizeof id, "pick_%zu", i);
        o.id = id;
        o.nargs = sig[i][1] ? 2 : 1;
        o.args[0] = sig[i][0];
        if (sig[i][1])
            o.args[1] = sig[i][1];
        o.result = sig[i][2];
        o.impl = f_ident;
        cel_error err;
        assert_true(cel_env_add_function(env, "pick", &o, 1, &err));
    }
    static const struct {
        const char *src, *type;
    } typed[] = {
        {"pick(1)", "int"},
        {"pick('a')", "string"},
        {"pick([1])", "int"},
        {"pick({'a': 2.5})", "double"},
        {"pick(true)", "bool"},
        {"pick(1u)", "uint"},
        {"pick(d)", "dyn"},
        {"pick(1, 2)", "int"},
        {"pick([1], [2])", "list(int)"},
        {"pick('k', [1])", "list(int)"},
        {"pick('k', d)", "dyn"},
        {NULL, NULL},
    };
    for (int i = 0; typed[i].src; i++) {
        const char *t = "";
        const char *r = run_env(f, env, typed[i].src, NULL, &t);
        if (strncmp(r, "compile:", 8) == 0 || strcmp(t, typed[i].type) != 0)
            fail_msg("%s: type %s (%s), want %s", typed[i].src, t, r, typed[i].type);
    }
    /* more overloads than the resolution index covers (64): the rest are scanned */
    for (int i = 0; i < 70; i++) {
        char tn[32], id[32];
        snprintf(tn, sizeof tn, "test.T%d", i);
        snprintf(id, sizeof id, "many_%d", i);
        cel_overload o;
        memset(&o, 0, sizeof o);
        o.id = id;
        o.nargs = 1;
        o.args[0] = cel_type_opaque(env, tn, NULL, 0);
        o.result = cel_type_int();
        o.impl = f_ident;
        cel_error err;
        assert_true(cel_env_add_function(env, "many", &o, 1, &err));
    }
    {
        cel_overload o;
        memset(&o, 0, sizeof o);
        o.id = "many_string";
        o.nargs = 1;
        o.args[0] = cel_type_string();
        o.result = cel_type_string();
        o.impl = f_ident;
        cel_error err;
        assert_true(cel_env_add_function(env, "many", &o, 1, &err));
    }
    {
        const char *t = "";
        const char *r = run_env(f, env, "many('a')", NULL, &t);
        if (strcmp(t, "string") != 0 || strcmp(r, "\"a\"") != 0)
            fail_msg("many('a'): %s %s", t, r);
        r = run_env(f, env, "many(d)", NULL, &t);
        if (strcmp(t, "dyn") != 0)
            fail_msg("many(d): %s %s", t, r);
    }
    expect(f, "many(1)", "compile: ERROR: <input>:1:5: found no matching overload for 'many' applied to '(int)'");
    expect(f, "pick(1)", "1");
    expect(f, "pick(null)",
           "compile: ERROR: <input>:1:5: found no matching overload for 'pick' applied to '(null_type)'");
    expect(f, "pick(1, 'a')",
           "compile: ERROR: <input>:1:5: found no matching overload for 'pick' applied to '(int, string)'");
    expect(f, "pick([1], ['a'])",
           "compile: ERROR: <input>:1:5: found no matching overload for 'pick' applied to '(list(int), list(string))'");
}

/* ---------------------------------------------------------------- regexes */

/* words of the function's resolution memo in use */
static int memo_entries(cel_env *env, const char *fn)
{
    const cel_func *fp = cel_env_func(env, fn);
    int n = 0;
    for (size_t i = 0; fp && i < sizeof fp->rcache / sizeof *fp->rcache; i++)
        n += __atomic_load_n(&fp->rcache[i], __ATOMIC_RELAXED) != 0;
    return n;
}

/* The checker's memo of resolutions (check.c rcache_*): a call over primitive argument types resolves from the
 * function's memo once an earlier compile in the environment resolved it. Each case of the table above, compiled
 * in a fresh environment (nothing memoized), then twice more in it (from the memo), gives the same type, value,
 * error and cost as written down; so do all of them in one environment, in order and in reverse. */
static void test_checker_resolution_memo(void **state)
{
    fx *f = *state;
    cel_env *base = f->env;
    dyn_map(f); /* built once, in the fixture's environment */
    for (int i = 0; resolution_cases[i].src; i++) {
        const struct resolution_case *k = &resolution_cases[i];
        cel_env *env = mk_env(NULL);
        for (int round = 0; round < 3; round++) {
            const char *t = "";
            uint64_t c = 0;
            const char *r = run_env(f, env, k->src, &c, &t);
            bool ok = k->type ? !strcmp(t, k->type) && !strcmp(r, k->value) && c == k->cost
                              : !strncmp(r, k->value, strlen(k->value));
            if (!ok)
                fail_msg("round %d, %s: [%s] %s cost %llu, want [%s] %s cost %llu", round, k->src, t, r,
                         (unsigned long long)c, k->type ? k->type : "", k->value, (unsigned long long)k->cost);
        }
        cel_env_free(env);
    }
    int n = 0;
    while (resolution_cases[n].src)
        n++;
    cel_env *env = mk_env(NULL);
    for (int pass = 0; pass < 2; pass++)
        for (int j = 0; j < n; j++) {
            const struct resolution_case *k = &resolution_cases[pass ? n - 1 - j : j];
            const char *t = "";
            uint64_t c = 0;
            const char *r = run_env(f, env, k->src, &c, &t);
            if (k->type ? strcmp(t, k->type) || strcmp(r, k->value) || c != k->cost
                        : strncmp(r, k->value, strlen(k->value)))
                fail_msg("pass %d, %s: [%s] %s cost %llu", pass, k->src, t, r, (unsigned long long)c);
        }
    /* the memo is in use: calls over int, string, dyn, double ... left entries */
    assert_true(memo_entries(env, "_+_") >= 3);
    assert_true(memo_entries(env, "_==_") >= 2);
    assert_true(memo_entries(env, "size") >= 1);
    cel_env_free(env);
    f->env = base;
}

static cel_value f_one(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx;
    (void)args;
    (void)n;
    return cel_int(1);
}

/* An overload added after a resolution was memoized is seen by the next compile: g(dyn) -> int gives g(1) the
 * type int; with g(int) -> string added, two overloads with different results match, and the type is dyn, as in
 * an environment that had both from the start. */
static void test_checker_resolution_memo_invalidated(void **state)
{
    (void)state;
    cel_env *env = cel_env_new(CEL_LIB_ALL);
    cel_overload o = {0};
    o.id = "g_dyn";
    o.nargs = 1;
    o.args[0] = cel_type_dyn();
    o.result = cel_type_int();
    o.impl = f_one;
    assert_true(cel_env_add_function(env, "g", &o, 1, NULL));
    char b[64];
    for (int i = 0; i < 2; i++) {
        cel_program *p = NULL;
        cel_error err;
        assert_true(cel_compile(env, "g(1)", NULL, &p, &err));
        assert_string_equal(cel_type_format(cel_program_type(p), b, sizeof b), "int");
        cel_program_free(p);
    }
    assert_int_equal(memo_entries(env, "g"), 1);
    cel_overload o2 = o;
    o2.id = "g_int";
    o2.args[0] = cel_type_int();
    o2.result = cel_type_string();
    assert_true(cel_env_add_function(env, "g", &o2, 1, NULL));
    assert_int_equal(memo_entries(env, "g"), 0);
    cel_env *fresh_env = cel_env_new(CEL_LIB_ALL);
    assert_true(cel_env_add_function(fresh_env, "g", &o, 1, NULL));
    assert_true(cel_env_add_function(fresh_env, "g", &o2, 1, NULL));
    cel_env *envs[2] = {env, fresh_env};
    for (int e = 0; e < 2; e++)
        for (int i = 0; i < 2; i++) {
            cel_program *p = NULL;
            cel_error err;
            assert_true(cel_compile(envs[e], "g(1)", NULL, &p, &err));
            assert_string_equal(cel_type_format(cel_program_type(p), b, sizeof b), "dyn");
            cel_program_free(p);
        }
    cel_env_free(env);
    cel_env_free(fresh_env);
}

/* n threads (at most 8) each run fn on its own record of `args` (elem bytes apart); the records carry the barrier
 * that lines them up; returns once all are joined */
static void run_threads(void *(*fn)(void *), void *args, size_t elem, int n)
{
    pthread_t th[8];
    assert_true(n <= 8);
    for (int i = 0; i < n; i++)
        assert_int_equal(pthread_create(&th[i], NULL, fn, (char *)args + (size_t)i * elem), 0);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
}

/* threads compiling in one environment fill and read the memo at the same time (run under TSan in make test):
 * every compile gives the type or the compile error written down */
typedef struct memo_race {
    cel_env *env;
    pthread_barrier_t *bar;
    int bad;
} memo_race;

static void *memo_race_fn(void *arg)
{
    memo_race *r = arg;
    pthread_barrier_wait(r->bar);
    for (int rep = 0; rep < 20; rep++)
        for (int i = 0; resolution_cases[i].src; i++) {
            const struct resolution_case *k = &resolution_cases[i];
            cel_program *p = NULL;
            cel_error err;
            char b[128];
            if (!cel_compile(r->env, k->src, NULL, &p, &err)) {
                char m[512];
                snprintf(m, sizeof m, "compile: %s", err.message);
                r->bad += k->type != NULL || strncmp(m, k->value, strlen(k->value)) != 0;
                continue;
            }
            r->bad += !k->type || strcmp(cel_type_format(cel_program_type(p), b, sizeof b), k->type) != 0;
            cel_program_free(p);
        }
    return NULL;
}

static void test_checker_resolution_memo_concurrent(void **state)
{
    (void)state;
    enum { NT = 4 };
    for (int round = 0; round < 5; round++) {
        cel_env *env = mk_env(NULL);
        pthread_barrier_t bar;
        pthread_barrier_init(&bar, NULL, NT);
        memo_race rs[NT];
        for (int i = 0; i < NT; i++)
            rs[i] = (memo_race){env, &bar, 0};
        run_threads(memo_race_fn, rs, sizeof *rs, NT);
        for (int i = 0; i < NT; i++)
            assert_int_equal(rs[i].bad, 0);
        pthread_barrier_destroy(&bar);
        cel_env_free(env);
    }
}

/* every node of a checked tree has its type; selections (test-only ones aside) from a dyn operand are dyn */
static void check_select_types(const cel_node *n, const char *src, int depth)
{
    if (!n || depth > 100)
        return;
    if (!n->type)
        fail_msg("%s: node at %d (kind %d) has no type", src, n->pos, n->kind);
    if (n->kind == N_SELECT && !(n->flags & (NF_TEST_ONLY | NF_OPTIONAL)) && n->target->type &&
        n->target->type->kind == CEL_T_DYN && n->type->kind != CEL_T_DYN)
        fail_msg("%s: selection .%s of a dyn operand typed %d", src, n->name, n->type->kind);
    if (n->kind == N_SELECT && (n->flags & NF_TEST_ONLY) && n->type->kind != CEL_T_BOOL)
        fail_msg("%s: has() typed %d", src, n->type->kind);
    if (n->kind == N_SELECT || n->kind == N_COMPR)
        check_select_types(n->target, src, depth + 1);
    if (n->kind == N_COMPR) {
        check_select_types(n->range, src, depth + 1);
        check_select_types(n->accu_init, src, depth + 1);
        check_select_types(n->result, src, depth + 1);
        if (!(n->flags & (NF_ALL | NF_EXISTS))) {
            check_select_types(n->cond, src, depth + 1);
            check_select_types(n->step, src, depth + 1);
        }
    }
    for (size_t i = 0; i < n->nargs; i++) {
        if (n->kind == N_SELECT)
            break;
        check_select_types(n->args[i], src, depth + 1);
        if (n->kind == N_MAP || n->kind == N_STRUCT)
            check_select_types(n->vals[i], src, depth + 1);
    }
}

/* The checker types a chain of plain selections from a dyn variable in one walk (check.c chk_select_node): every
 * node of the chain gets dyn, the program the type and value the selection-by-selection way gives (written down),
 * and chains from other operands, has() and optional selections keep their own types. */
static void test_checker_select_chain(void **state)
{
    fx *f = *state;
    static const struct {
        const char *src, *type, *value;
    } cases[] = {
        {"d.a", "dyn", "error: type 'string' does not support field selection"},
        {"m.spec.name", "dyn", "\"web\""},
        {"m.spec.name.size() + m.spec.n", "int", "6"},
        {"has(m.spec.name) && has(m.spec)", "bool", "true"},
        {"[m].all(v, v.spec.name == 'web' && v.k == 'v')", "bool", "true"},
        {"[m].map(v, v.spec)[0].name", "dyn", "\"web\""},
        {"m.?spec.name.orValue('z')", "dyn", "\"web\""},
        {"a.b.c + 'x'", "string", "error: no such attribute(s): a.b.c"},
        {"{'k': m}.k.spec.n", "dyn", "3"},
        {NULL, NULL, NULL},
    };
    for (int i = 0; cases[i].src; i++) {
        const char *t = "";
        const char *r = run_env(f, f->env, cases[i].src, NULL, &t);
        if (strcmp(t, cases[i].type) != 0 || strncmp(r, cases[i].value, strlen(cases[i].value)) != 0)
            fail_msg("%s: [%s] %s, want [%s] %s", cases[i].src, t, r, cases[i].type, cases[i].value);
        cel_program *p = NULL;
        cel_error err;
        assert_true(cel_compile(f->env, cases[i].src, NULL, &p, &err));
        check_select_types(p->root, cases[i].src, 0);
        cel_program_free(p);
        same_both(f, cases[i].src);
    }
}

/* ---- inline resolution (parse.c ires_*) against cel_resolve's walk */

static void same_name(const char *what, const char *a, const char *b, const char *src)
{
    if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
        fail_msg("%s: %s %s vs %s", src, what, a ? a : "(null)", b ? b : "(null)");
}

/* the resolution of two trees of the same source, node by node */
static void same_tree(const cel_node *a, const cel_node *b, const char *src, int depth)
{
    if ((a == NULL) != (b == NULL))
        fail_msg("%s: a node on one side only", src);
    if (!a || depth > 200)
        return;
    if (a->kind != b->kind || a->slot != b->slot || a->op != b->op || a->fn != b->fn || a->nargs != b->nargs ||
        a->flags != b->flags || a->name_len != b->name_len)
        fail_msg("%s: node at %d: kind %d/%d slot %d/%d op %d/%d fn %p/%p nargs %zu/%zu flags %x/%x", src, a->pos,
                 a->kind, b->kind, a->slot, b->slot, a->op, b->op, (const void *)a->fn, (const void *)b->fn, a->nargs,
                 b->nargs, a->flags, b->flags);
    same_name("name", a->name, b->name, src);
    if (a->kind == N_COMPR) {
        same_name("iter_var", a->iter_var, b->iter_var, src);
        same_name("iter_var2", a->iter_var2, b->iter_var2, src);
        same_name("accu_var", a->accu_var, b->accu_var, src);
        same_tree(a->range, b->range, src, depth + 1);
        same_tree(a->accu_init, b->accu_init, src, depth + 1);
        same_tree(a->cond, b->cond, src, depth + 1);
        same_tree(a->step, b->step, src, depth + 1);
        same_tree(a->result, b->result, src, depth + 1);
    }
    if (a->kind == N_SELECT || a->kind == N_COMPR)
        same_tree(a->target, b->target, src, depth + 1);
    for (size_t i = 0; i < a->nargs; i++) {
        same_tree(a->args[i], b->args[i], src, depth + 1);
        if (a->kind == N_MAP || a->kind == N_STRUCT)
            same_tree(a->vals[i], b->vals[i], src, depth + 1);
    }
}

/* expressions over the fixture's variables (x int, d dyn, m map(string, dyn), a.b.c, a.b) and the comprehension
 * macros: the ones the parser resolves itself and the ones it leaves to cel_resolve (expect_inline 0) */
static const struct {
    const char *src;
    int expect_inline;
} ires_cases[] = {
    {"x + 1 == 8 && d == 'dyn'", 1},
    {"m.spec.name.startsWith('w') && size(m.spec.name) < 10", 1},
    {"[1, 2, 3].all(v, v > 0) && m.exists(k, k == 'k')", 1},
    {"[1, 2].exists(x, x == 2) && x == 7", 1},
    {"[1, 2].map(v, v * x) == [7, 14]", 1},
    {"[1, 2, 3].map(v, v > 1, v + d.size())", 1},
    {"[1, 2, 3].filter(v, v % 2 == 1)", 1},
    {"[1, 2, 3].exists_one(v, v == 2)", 1},
    {"[[1], [2]].all(l, l.exists(v, v == l[0]))", 1},
    {"[[1], [2]].all(v, v.all(v, v > 0))", 1},
    {"m.all(k, m.exists(j, j == k) && k != '')", 1},
    {"{'a': 1}.all(k, v, k == 'a' && v == 1)", 1},
    {"[1, 2].exists(i, v, i == 0 && v == 1)", 1},
    {"[1, 2].existsOne(i, v, v == 2)", 1},
    {"m.all(k, d)", 1},
    {"m.all(k, v)", 0},
    {"[1].existsOne(v, v == 1)", 0},
    {"[1].exists(v, v == 1, v)", 0},
    {"[true].all(v, d)", 1},
    {"has(m.spec) && has(m.spec.name)", 1},
    {"[1].map(x, x) == [1] && x == 7", 1},
    {"d.contains('y') && string(x) == '7' && int('3') == 3", 1},
    {"dyn(x) == 7 && type(x) == int", 0},
    {"a.b.c == 'q'", 0},
    {"a.b['c'] == 'q'", 0},
    {".x == 7", 0},
    {"undeclared == 1", 0},
    {"[1].transformList(i, v, v + i)", 0},
    {"cel.bind(y, x + 1, y * 2)", 0},
    {"m.?k.orValue('z')", 0},
    {"[1, 2].map(v)", 0},
    {"[1, 2].all(v, w, v > 0)", 1},
    {"[1, 2].sortBy(v, -v)", 0},
    {"math.greatest(1, 2)", 0},
    {"google.x == 1", 0},
    {"[1, 2].exists(v, [3].exists(w, w > v && v < x))", 1},
    {"[1, 2].all(v, v > 0) ? m.map(k, k) : []", 1},
    {NULL, 0},
};

/* Each expression compiles (or fails) the same with inline resolution and with cel_resolve's walk over the tree:
 * every node's kind, slot, function, op, flags and names, the type and the value agree; the parser resolved the
 * expected ones itself. */
static void test_inline_resolution_same_tree(void **state)
{
    fx *f = *state;
    for (int i = 0; ires_cases[i].src; i++) {
        const char *src = ires_cases[i].src;
        cel_program *p1 = NULL, *p2 = NULL;
        cel_error e1, e2;
        cel_compile_opts o1 = {0, NULL, 0}, o2 = {CEL_COMPILE_FULL_RESOLVE, NULL, 0};
        bool ok1 = cel_compile(f->env, src, &o1, &p1, &e1), ok2 = cel_compile(f->env, src, &o2, &p2, &e2);
        if (ok1 != ok2 || (!ok1 && strcmp(e1.message, e2.message) != 0))
            fail_msg("%s: %s / %s", src, ok1 ? "ok" : e1.message, ok2 ? "ok" : e2.message);
        if (ok1) {
            same_tree(p1->root, p2->root, src, 0);
            char t1[128], t2[128];
            assert_string_equal(cel_type_format(cel_program_type(p1), t1, sizeof t1),
                                cel_type_format(cel_program_type(p2), t2, sizeof t2));
        }
        cel_program_free(p1);
        cel_program_free(p2);
        /* the value, error and cost of the default compile are what the container environment (resolved by the
         * walk) gives */
        same_both(f, src);
        kg_arena a;
        kg_arena_init(&a, 0);
        parse_result pr;
        cel_error err;
        if (cel_parse(&a, f->env, src, 0, 0, &pr, &err) && pr.resolved != (ires_cases[i].expect_inline != 0))
            fail_msg("%s: resolved inline %d, want %d", src, pr.resolved, ires_cases[i].expect_inline);
        kg_arena_free(&a);
    }
}

static const char *const patterns[] = {
    "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
    "^[a-z]+$",
    "a.c",
    "[^a-c]x",
    "(ab|cd)+e?",
    "x{2,3}y",
    "\\d\\w\\s",
    "",
    "^$",
    "(?:ab)*",
    "a|b",
    "^a|b$",
    "\\bfoo",
    "(?P<n>a)",
    "ü+",
    "(?i)abc",
    "(a{1000}){1000}",
    "a{1001}",
    "(",
    "a)",
    "[z-a]",
    "a**",
    "\\C",
    "\\q",
    "x{2}{3}",
    "[[:alpha:]]+",
    "(a|b|c|d|e|f|g|h)(a|b|c|d|e|f|g|h)(a|b|c|d|e|f|g|h){0,8}z",
    NULL,
};
static const char *const texts[] = {"",      "a",     "abc", "web-1", "-web", "Web",       "aXc",
                                    "dx",    "ababe", "cde", "xxy",   "xxxy", "1a ",       "foo",
                                    "a foo", "üü",    "ABC", "é",     "a\nc", "abcdefghz", NULL};

static void test_regex_lazy_same_results(void **state)
{
    (void)state;
    for (int i = 0; patterns[i]; i++) {
        const char *pat = patterns[i];
        char e1[256] = "", e2[256] = "";
        cel_regex *lazy = cel_regex_compile(pat, strlen(pat), 0, CEL_REGEX_GO_ERRORS, e1, sizeof e1);
        cel_regex *eager =
            cel_regex_compile(pat, strlen(pat), 0, CEL_REGEX_GO_ERRORS | CEL_REGEX_NO_DFA, e2, sizeof e2);
        if (!lazy != !eager || strcmp(e1, e2) != 0)
            fail_msg("%s: compile %p '%s' vs %p '%s'", pat, (void *)lazy, e1, (void *)eager, e2);
        if (!lazy)
            continue;
        assert_int_equal(cel_regex_num_groups(lazy), cel_regex_num_groups(eager));
        size_t pl;
        assert_string_equal(cel_regex_pattern(lazy, &pl), pat);
        for (int j = 0; texts[j]; j++) {
            const char *t = texts[j];
            size_t tl = strlen(t);
            bool a = cel_regex_partial_match(lazy, t, tl), b = cel_regex_partial_match(eager, t, tl);
            if (a != b)
                fail_msg("%s ~ '%s': %d vs %d", pat, t, a, b);
            assert_int_equal(cel_regex_full_match(lazy, t, tl), cel_regex_full_match(eager, t, tl));
            size_t s1 = 0, x1 = 0, s2 = 0, x2 = 0;
            bool f1 = cel_regex_find(lazy, t, tl, 0, &s1, &x1), f2 = cel_regex_find(eager, t, tl, 0, &s2, &x2);
            assert_int_equal(f1, f2);
            if (f1) {
                assert_int_equal(s1, s2);
                assert_int_equal(x1, x2);
            }
        }
        cel_regex_free(lazy);
        cel_regex_free(eager);
    }
    /* a lazily compiled simple pattern still reports its DFA; first use may be find() (RE2) */
    char eb[128];
    cel_regex *re = cel_regex_compile("^[a-z]+$", 8, 0, CEL_REGEX_GO_ERRORS, eb, sizeof eb);
    size_t s, e;
    assert_true(cel_regex_find(re, "abc", 3, 0, &s, &e));
    assert_true(cel_regex_uses_dfa(re));
    assert_true(cel_regex_partial_match(re, "abc", 3));
    cel_regex_free(re);
    /* freed without any use */
    re = cel_regex_compile("^[a-z]+$", 8, 0, CEL_REGEX_GO_ERRORS, eb, sizeof eb);
    cel_regex_free(re);
}

/* the compile-time syntax check accepts exactly what the DFA's parser accepts, on listed and random patterns */
static void test_regex_subset_check(void **state)
{
    (void)state;
    static const char *const extra[] = {
        "a{0}",
        "(a{0}){3}",
        "(ab){31}",
        "(ab){30}c",
        "a{62}",
        "a{63}",
        "(a|b){20}c{3}",
        "x{1,}",
        "x{,2}",
        "x{2,1}",
        "x{1000}",
        "x{1001}",
        "[a-]",
        "[-a]",
        "[a-b-c]",
        "[]a]",
        "[^]a]",
        "[\\d-z]",
        "[\\d-]",
        "[a-\\]]",
        "[\\w]+",
        "\\$",
        "a\\$",
        "a\\\\$",
        "^^",
        "$$",
        "^a|b",
        "(^a)",
        "((((a))))",
        "(?:a|)",
        "(|a)",
        "()",
        "a||b",
        "\\.\\*",
        "(?P<x>a)",
        "a*?",
        "a+?b??",
        "a{2}?",
        "a*+",
        "\\",
        "[",
        "[a",
        /* shapes of the one-loop fast path (leading/final '-' in classes, +, groups, nesting, positions) */
        "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        "[-a]",
        "[^-a]",
        "[a-z-]",
        "[-]",
        "[^-]",
        "[--a]",
        "[a--]",
        "[a-]",
        "(ab)+c",
        "((a)+)+",
        "((((((((((((((((a))))))))))))))))",
        "(((((((((((((((((a)))))))))))))))))",
        "(?:ab)?",
        "(?x)",
        "a+?",
        "a*?*",
        "a??",
        "[a-z]{2}",
        ".+",
        "\\d+\\.\\w*",
        "(a+)+(b+)+",
        "^$",
        "^",
        "$",
        "",
        "(a{31})+",
        "(ab)+(cd)+(ef)+(gh)+(ij)+(kl)+(mn)+(op)+(qr)+(st)+(uv)+(wx)+(yz)+(ab)+(cd)+(e)",
        "a)",
        "(a",
        "[z-a]",
        "[a-\\d]",
        "[\\]]",
        "a|b",
        "^(a|b)$",
        "x{2,}",
        NULL,
    };
    for (int i = 0; extra[i]; i++) {
        int r = cel_regex_subset_selftest(extra[i], strlen(extra[i]));
        if (r != 0 && r != 3)
            fail_msg("%s: quick %d full %d", extra[i], r >> 1, r & 1);
    }
    for (int i = 0; patterns[i]; i++) {
        int r = cel_regex_subset_selftest(patterns[i], strlen(patterns[i]));
        if (r != 0 && r != 3)
            fail_msg("%s: quick %d full %d", patterns[i], r >> 1, r & 1);
    }
    static const char alphabet[] = "ab^$|()[]-*+?{},0123\\.dws:^?";
    uint64_t seed = 12345;
    int accepted = 0;
    for (int k = 0; k < 200000; k++) {
        char pat[16];
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        size_t n = (size_t)(seed >> 60) % 12;
        for (size_t j = 0; j < n; j++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            pat[j] = alphabet[(seed >> 33) % (sizeof alphabet - 1)];
        }
        pat[n] = 0;
        int r = cel_regex_subset_selftest(pat, n);
        if (r != 0 && r != 3)
            fail_msg("'%s': quick %d full %d", pat, r >> 1, r & 1);
        accepted += r == 3;
    }
    assert_true(accepted > 1000);
}

static void test_regex_errors_at_compile(void **state)
{
    fx *f = *state;
    /* invalid patterns are still rejected by cel_compile with the cel-go texts */
    expect(f, "'abc'.matches('(')", "compile: ERROR: <input>:1:14: error parsing regexp: missing closing ): `(`");
    expect(f, "matches('abc', '(')", "compile: ERROR: <input>:1:8: error parsing regexp: missing closing ): `(`");
    expect(f, "matches('abc', '^a') && !matches('abc', '^b') && 'abc'.matches('c$')", "true");
    expect(f, "'abc'.matches('a)')", "compile: ERROR: <input>:1:14: error parsing regexp: unexpected ): `a)`");
    expect(f, "'abc'.matches('[z-a]')",
           "compile: ERROR: <input>:1:14: error parsing regexp: invalid character class range: `z-a`");
    expect(f, "'abc'.matches('\\\\C')", "compile: ERROR: <input>:1:14: error parsing regexp: invalid escape sequence");
    expect(f, "'abc'.matches('(a{1000}){1000}')", "compile: ERROR: <input>:1:14: error parsing regexp:");
    expect(f, "'abc'.matches('^[a-c]+$') && !'abd'.matches('^[a-c]+$') && 'ü'.matches('^.$')", "true");
    /* a non-constant pattern is compiled (and its errors reported) when evaluated */
    expect(f, "'abc'.matches(d)", "false");
    /* the cost of matches() does not depend on when the pattern is compiled */
    uint64_t c1 = 0, c2 = 0;
    run_env(f, f->env, "'abcdefgh'.matches('^[a-z]+$')", &c1, NULL);
    run_env(f, f->env, "'abcdefgh'.matches(string(dyn('^[a-z]+$')))", &c2, NULL);
    assert_true(c1 > 0);
    assert_true(c2 >= c1);
}

/* many threads race on the first use of one shared compiled pattern (and one shared program) */
typedef struct race {
    cel_regex *re;
    cel_program *prog;
    cel_env *env;
    pthread_barrier_t *bar;
    int bad;
} race;

static void *race_fn(void *arg)
{
    race *r = arg;
    pthread_barrier_wait(r->bar);
    kg_arena a;
    kg_arena_init(&a, 0);
    for (int i = 0; i < 200; i++) {
        if (!cel_regex_partial_match(r->re, "web-1", 5) || cel_regex_partial_match(r->re, "-web-", 5) ||
            !cel_regex_partial_match(r->re, "a", 1))
            r->bad++;
        size_t s, e;
        if (!cel_regex_find(r->re, "xx web-1", 8, 0, &s, &e) || s != 3 || e != 8)
            r->bad++;
        kg_arena_reset(&a);
        cel_activation *act = cel_activation_new(r->env, &a);
        cel_value v;
        if (cel_eval(r->prog, act, CEL_NO_COST_LIMIT, &v, NULL) != CEL_EVAL_OK || v.kind != CEL_BOOL || !v.u.b)
            r->bad++;
    }
    kg_arena_free(&a);
    return NULL;
}

static void test_regex_concurrent_first_use(void **state)
{
    fx *f = *state;
    enum { NT = 8 };
    for (int round = 0; round < 20; round++) {
        char eb[128];
        cel_regex *re = cel_regex_compile("[a-z]([-a-z0-9]*[a-z0-9])?$", 27, 0, CEL_REGEX_GO_ERRORS, eb, sizeof eb);
        assert_non_null(re);
        cel_program *p = NULL;
        cel_error err;
        assert_true(cel_compile(
            f->env, "'web-1'.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$') && !'-x'.matches('^[a-z]+$')", NULL, &p, &err));
        pthread_barrier_t bar;
        pthread_barrier_init(&bar, NULL, NT);
        race rs[NT];
        for (int i = 0; i < NT; i++)
            rs[i] = (race){re, p, f->env, &bar, 0};
        run_threads(race_fn, rs, sizeof *rs, NT);
        for (int i = 0; i < NT; i++)
            assert_int_equal(rs[i].bad, 0);
        pthread_barrier_destroy(&bar);
        assert_true(cel_regex_uses_dfa(re));
        cel_regex_free(re);
        cel_program_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_parser_fast_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resolver_fast_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_function_lookup_fast_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lexer_nul_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lexer_paths_random, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fixed_name_functions_and_variables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checker_fast_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ident_macro_assign_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checker_simple_resolution, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checker_overload_registry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checker_resolution_memo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checker_select_chain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inline_resolution_same_tree, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checker_resolution_memo_invalidated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checker_resolution_memo_concurrent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_regex_lazy_same_results, setup, teardown),
        cmocka_unit_test_setup_teardown(test_regex_subset_check, setup, teardown),
        cmocka_unit_test_setup_teardown(test_regex_errors_at_compile, setup, teardown),
        cmocka_unit_test_setup_teardown(test_regex_concurrent_first_use, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
