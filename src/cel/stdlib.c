/* CEL standard library: operators' signatures, size, string predicates, matches (RE2), conversions, type, dyn,
 * and the optional library. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cel/cel_internal.h"
#include "cel/regex/cel_regex.h"

#define A ctx, args, n

static uint64_t str_size(const cel_value *v)
{
    if (v->kind == CEL_STRING)
        return cel_utf8_len(v->u.s, v->n);
    if (v->kind == CEL_BYTES)
        return v->n;
    if (v->kind == CEL_LIST)
        return cel_list_size(v);
    if (v->kind == CEL_MAP)
        return cel_map_size(v);
    return 1;
}
static uint64_t c01(uint64_t x)
{
    return (x + 9) / 10;
}

/* ---------------------------------------------------------------- size & strings */

static cel_value f_size(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    const cel_value *v = &args[0];
    switch (v->kind) {
    case CEL_STRING: return cel_int((int64_t)cel_utf8_len(v->u.s, v->n));
    case CEL_BYTES: return cel_int((int64_t)v->n);
    case CEL_LIST: return cel_int((int64_t)cel_list_size(v));
    case CEL_MAP: return cel_int((int64_t)cel_map_size(v));
    default: return cel_no_overload(ctx, "size", args, 1);
    }
}

static cel_value f_contains(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx;
    (void)n;
    const cel_value *s = &args[0], *t = &args[1];
    if (t->n == 0)
        return cel_bool(true);
    if (t->n > s->n)
        return cel_bool(false);
    return cel_bool(memmem(s->u.s, s->n, t->u.s, t->n) != NULL);
}
static uint64_t cost_contains(cel_call_ctx *ctx, const cel_value *args, size_t n, const cel_value *r)
{
    (void)ctx;
    (void)n;
    (void)r;
    uint64_t c = c01(str_size(&args[0])) * c01(str_size(&args[1]));
    return c ? c : 1;
}
static cel_value f_starts(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx;
    (void)n;
    return cel_bool(args[1].n <= args[0].n && memcmp(args[0].u.s, args[1].u.s, args[1].n) == 0);
}
static cel_value f_ends(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx;
    (void)n;
    return cel_bool(args[1].n <= args[0].n && memcmp(args[0].u.s + args[0].n - args[1].n, args[1].u.s, args[1].n) == 0);
}
static uint64_t cost_arg0_01(cel_call_ctx *ctx, const cel_value *args, size_t n, const cel_value *r)
{
    (void)ctx;
    (void)n;
    (void)r;
    uint64_t c = c01(str_size(&args[0]));
    return c ? c : 1;
}

/* the evaluator recognises these overloads to run size(x), x.startsWith("c") / x.endsWith("c") inline (eval_fast.c) */

const cel_fn cel_std_starts_with = f_starts;
const cel_fn cel_std_ends_with = f_ends;
const cel_cost_fn cel_std_cost_arg0_01 = cost_arg0_01;

/* matches with RE2; a constant pattern is compiled once at compile time */
static void re_free(void *p)
{
    cel_regex_free(p);
}
static void *prep_matches(cel_prepare_ctx *pc, const cel_value *consts, const bool *isc, size_t n, const char **error)
{
    if (n < 2 || !isc[1] || consts[1].kind != CEL_STRING)
        return NULL;
    char eb[256];
    cel_regex *re = cel_regex_compile(consts[1].u.s, consts[1].n, 0, CEL_REGEX_GO_ERRORS, eb, sizeof eb);
    if (!re) {
        *error = kg_arena_sprintf(cel_prepare_arena(pc), "%s", eb);
        return NULL;
    }
    cel_prepare_on_free(pc, re_free, re);
    return re;
}

static cel_value f_matches(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    cel_regex *re = cel_call_state(ctx);
    if (re)
        return cel_bool(cel_regex_partial_match(re, args[0].u.s, args[0].n));
    char eb[256];
    re = cel_regex_compile(args[1].u.s, args[1].n, 0, CEL_REGEX_GO_ERRORS, eb, sizeof eb);
    if (!re)
        return cel_err(ctx, "%s", eb);
    bool m = cel_regex_partial_match(re, args[0].u.s, args[0].n);
    cel_regex_free(re);
    return cel_bool(m);
}
static uint64_t cost_matches(cel_call_ctx *ctx, const cel_value *args, size_t n, const cel_value *r)
{
    (void)ctx;
    (void)n;
    (void)r;
    uint64_t a = c01(1 + str_size(&args[0]));
    uint64_t b = (str_size(&args[1]) + 3) / 4;
    uint64_t c = a * (b ? b : 1);
    return c ? c : 1;
}

/* the evaluator recognises these overloads to run size(x), matches with a constant pattern inline (eval_fast.c) */
const cel_fn cel_std_size = f_size;
const cel_fn cel_std_matches = f_matches;
const cel_cost_fn cel_std_cost_matches = cost_matches;

/* ---------------------------------------------------------------- conversions */

static bool parse_i64(const char *s, size_t n, int64_t *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    for (size_t i = 0; i < n; i++)
        if (!((buf[i] >= '0' && buf[i] <= '9') || (i == 0 && (buf[i] == '-' || buf[i] == '+'))))
            return false;
    errno = 0;
    char *end;
    long long v = strtoll(buf, &end, 10);
    if (errno || *end || end == buf)
        return false;
    *out = v;
    return true;
}

static bool parse_u64(const char *s, size_t n, uint64_t *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    for (size_t i = 0; i < n; i++)
        if (!((buf[i] >= '0' && buf[i] <= '9') || (i == 0 && buf[i] == '+')))
            return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(buf, &end, 10);
    if (errno || *end || end == buf)
        return false;
    *out = v;
    return true;
}

static cel_value f_int(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    const cel_value *v = &args[0];
    switch (v->kind) {
    case CEL_INT: return *v;
    case CEL_UINT:
        if (v->u.u > (uint64_t)INT64_MAX)
            return cel_err(ctx, "range error");
        return cel_int((int64_t)v->u.u);
    case CEL_DOUBLE: {
        double d = v->u.d;
        if (isnan(d) || d <= -9223372036854775808.0 || d >= 9223372036854775807.0)
            return cel_err(ctx, "range error");
        return cel_int((int64_t)d);
    }
    case CEL_STRING: {
        int64_t r;
        if (!parse_i64(v->u.s, v->n, &r))
            return cel_err(ctx, "cannot convert string to int: %.*s", (int)v->n, v->u.s);
        return cel_int(r);
    }
    case CEL_TIMESTAMP: return cel_int(v->u.i);
    default: return cel_no_overload(ctx, "int", args, n);
    }
}

static cel_value f_uint(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    const cel_value *v = &args[0];
    switch (v->kind) {
    case CEL_UINT: return *v;
    case CEL_INT:
        if (v->u.i < 0)
            return cel_err(ctx, "range error");
        return cel_uint((uint64_t)v->u.i);
    case CEL_DOUBLE: {
        double d = v->u.d;
        if (isnan(d) || d <= -1.0 || d >= 18446744073709551615.0)
            return cel_err(ctx, "range error");
        return cel_uint((uint64_t)d);
    }
    case CEL_STRING: {
        uint64_t r;
        if (!parse_u64(v->u.s, v->n, &r))
            return cel_err(ctx, "cannot convert string to uint: %.*s", (int)v->n, v->u.s);
        return cel_uint(r);
    }
    default: return cel_no_overload(ctx, "uint", args, n);
    }
}

static cel_value f_double(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    const cel_value *v = &args[0];
    switch (v->kind) {
    case CEL_DOUBLE: return *v;
    case CEL_INT: return cel_double((double)v->u.i);
    case CEL_UINT: return cel_double((double)v->u.u);
    case CEL_STRING: {
        char buf[128];
        if (v->n == 0 || v->n >= sizeof buf)
            return cel_err(ctx, "cannot convert string to double");
        memcpy(buf, v->u.s, v->n);
        buf[v->n] = 0;
        for (size_t i = 0; i < v->n; i++)
            if (buf[i] == 'x' || buf[i] == 'X' || buf[i] == ' ')
                return cel_err(ctx, "cannot convert string to double");
        char *end;
        double d = strtod(buf, &end);
        if (*end)
            return cel_err(ctx, "cannot convert string to double");
        return cel_double(d);
    }
    default: return cel_no_overload(ctx, "double", args, n);
    }
}

static cel_value buf_string(cel_call_ctx *ctx, kg_buf *b)
{
    cel_value r = cel_string_copy(ctx->arena, b->data ? b->data : "", b->len);
    kg_buf_free(b);
    return r;
}

static cel_value f_string(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    const cel_value *v = &args[0];
    kg_buf b = KG_BUF_INIT;
    switch (v->kind) {
    case CEL_STRING: return *v;
    case CEL_BOOL: return v->u.b ? cel_string("true", 4) : cel_string("false", 5);
    case CEL_INT: kg_buf_printf(&b, "%lld", (long long)v->u.i); return buf_string(ctx, &b);
    case CEL_UINT: kg_buf_printf(&b, "%llu", (unsigned long long)v->u.u); return buf_string(ctx, &b);
    case CEL_DOUBLE: cel_format_double(&b, v->u.d); return buf_string(ctx, &b);
    case CEL_BYTES:
        if (!cel_utf8_valid(v->u.s, v->n))
            return cel_err(ctx, "invalid UTF-8 in bytes, cannot convert to string");
        return cel_string(v->u.s, v->n);
    case CEL_TIMESTAMP: cel_format_timestamp(&b, v->u.i, (int32_t)v->n); return buf_string(ctx, &b);
    case CEL_DURATION: cel_format_duration_secs(&b, v->u.i); return buf_string(ctx, &b);
    case CEL_OPAQUE: {
        const cel_opaque_vt *vt = v->aux;
        if (vt->to_string)
            return vt->to_string(ctx, v);
        break;
    }
    default: break;
    }
    return cel_no_overload(ctx, "string", args, n);
}

static cel_value f_bytes(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    if (args[0].kind == CEL_BYTES)
        return args[0];
    if (args[0].kind == CEL_STRING)
        return cel_bytes(args[0].u.s, args[0].n);
    return cel_no_overload(ctx, "bytes", args, n);
}

static cel_value f_bool(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    if (args[0].kind == CEL_BOOL)
        return args[0];
    if (args[0].kind == CEL_STRING) {
        static const char *t[] = {"1", "t", "true", "TRUE", "True"}, *f[] = {"0", "f", "false", "FALSE", "False"};
        for (int i = 0; i < 5; i++) {
            if (strlen(t[i]) == args[0].n && !memcmp(t[i], args[0].u.s, args[0].n))
                return cel_bool(true);
            if (strlen(f[i]) == args[0].n && !memcmp(f[i], args[0].u.s, args[0].n))
                return cel_bool(false);
        }
        return cel_err(ctx, "type conversion error from 'string' to 'bool'");
    }
    return cel_no_overload(ctx, "bool", args, n);
}

static cel_value f_dyn(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx;
    (void)n;
    return args[0];
}

static cel_value f_type(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx;
    (void)n;
    return cel_type_value(cel_value_type(&args[0]));
}

/* ---------------------------------------------------------------- optionals */

static cel_value f_opt_of(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return cel_optional_of(ctx->arena, args[0]);
}

static bool is_zero(const cel_value *v)
{
    switch (v->kind) {
    case CEL_NULL: return true;
    case CEL_BOOL: return !v->u.b;
    case CEL_INT: return v->u.i == 0;
    case CEL_UINT: return v->u.u == 0;
    case CEL_DOUBLE: return v->u.d == 0;
    case CEL_STRING:
    case CEL_BYTES: return v->n == 0;
    case CEL_LIST: return cel_list_size(v) == 0;
    case CEL_MAP: return cel_map_size(v) == 0;
    case CEL_DURATION: return v->u.i == 0;
    case CEL_TIMESTAMP: return v->u.i == 0 && v->n == 0;
    case CEL_OPTIONAL: return !cel_optional_has(v);
    default: return false;
    }
}

static cel_value f_opt_of_nz(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return is_zero(&args[0]) ? cel_optional_none() : cel_optional_of(ctx->arena, args[0]);
}
static cel_value f_opt_none(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx;
    (void)args;
    (void)n;
    return cel_optional_none();
}
static cel_value f_has_value(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx;
    (void)n;
    return cel_bool(cel_optional_has(&args[0]));
}
static cel_value f_value(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    if (!cel_optional_has(&args[0]))
        return cel_err(ctx, "optional.none() dereference");
    return cel_optional_value(&args[0]);
}
static cel_value f_or(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx;
    (void)n;
    return cel_optional_has(&args[0]) ? args[0] : args[1];
}
static cel_value f_or_value(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx;
    (void)n;
    return cel_optional_has(&args[0]) ? cel_optional_value(&args[0]) : args[1];
}
static cel_value f_unwrap(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    size_t cnt = cel_list_size(&args[0]);
    nlist *l = nlist_new(ctx->arena, cnt);
    for (size_t i = 0; i < cnt; i++) {
        cel_value e = cel_list_get(ctx, &args[0], i);
        if (e.kind != CEL_OPTIONAL)
            return cel_err(ctx, "optional.unwrap: element is not an optional: %s", cel_type_name_of(&e));
        if (cel_optional_has(&e))
            l->items[l->n++] = cel_optional_value(&e);
    }
    return nlist_value(l);
}
static cel_value f_first(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    size_t cnt = cel_list_size(&args[0]);
    return cnt ? cel_optional_of(ctx->arena, cel_list_get(ctx, &args[0], 0)) : cel_optional_none();
}
static cel_value f_last(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    size_t cnt = cel_list_size(&args[0]);
    return cnt ? cel_optional_of(ctx->arena, cel_list_get(ctx, &args[0], cnt - 1)) : cel_optional_none();
}

/* ---------------------------------------------------------------- registration */

#define M CEL_FN_MEMBER

void cel_stdlib_register(cel_env *env)
{
    cel_env_builtin(env, "_&&_", OP_AND, 0, "bool, bool -> bool", NULL, NULL);
    cel_env_builtin(env, "_||_", OP_OR, 0, "bool, bool -> bool", NULL, NULL);
    cel_env_builtin(env, "_?_:_", OP_COND, 0, "bool, A, A -> A", NULL, NULL);
    cel_env_builtin(env, "!_", OP_NOT, 0, "bool -> bool", NULL, NULL);
    cel_env_builtin(env, "@not_strictly_false", OP_NOT_STRICTLY_FALSE, 0, "bool -> bool", NULL, NULL);
    cel_env_builtin(env, "-_", OP_NEG, 0, "int -> int", NULL, NULL);
    cel_env_builtin(env, "-_", OP_NEG, 0, "double -> double", NULL, NULL);
    static const char *arith[] = {"_+_", "_-_", "_*_", "_/_"};
    static const opcode aops[] = {OP_ADD, OP_SUB, OP_MUL, OP_DIV};
    for (int i = 0; i < 4; i++) {
        cel_env_builtin(env, arith[i], aops[i], 0, "int, int -> int", NULL, NULL);
        cel_env_builtin(env, arith[i], aops[i], 0, "uint, uint -> uint", NULL, NULL);
        cel_env_builtin(env, arith[i], aops[i], 0, "double, double -> double", NULL, NULL);
    }
    cel_env_builtin(env, "_%_", OP_MOD, 0, "int, int -> int", NULL, NULL);
    cel_env_builtin(env, "_%_", OP_MOD, 0, "uint, uint -> uint", NULL, NULL);
    cel_env_builtin(env, "_+_", OP_ADD, 0, "string, string -> string", NULL, NULL);
    cel_env_builtin(env, "_+_", OP_ADD, 0, "bytes, bytes -> bytes", NULL, NULL);
    cel_env_builtin(env, "_+_", OP_ADD, 0, "list(A), list(A) -> list(A)", NULL, NULL);
    cel_env_builtin(env, "_+_", OP_ADD, 0, "timestamp, duration -> timestamp", NULL, NULL);
    cel_env_builtin(env, "_+_", OP_ADD, 0, "duration, timestamp -> timestamp", NULL, NULL);
    cel_env_builtin(env, "_+_", OP_ADD, 0, "duration, duration -> duration", NULL, NULL);
    cel_env_builtin(env, "_-_", OP_SUB, 0, "timestamp, timestamp -> duration", NULL, NULL);
    cel_env_builtin(env, "_-_", OP_SUB, 0, "timestamp, duration -> timestamp", NULL, NULL);
    cel_env_builtin(env, "_-_", OP_SUB, 0, "duration, duration -> duration", NULL, NULL);
    cel_env_builtin(env, "_==_", OP_EQ, 0, "A, A -> bool", NULL, NULL);
    cel_env_builtin(env, "_!=_", OP_NE, 0, "A, A -> bool", NULL, NULL);
    static const char *rel[] = {"_<_", "_<=_", "_>_", "_>=_"};
    static const opcode rops[] = {OP_LT, OP_LE, OP_GT, OP_GE};
    static const char *relsig[] = {
        "bool, bool",           "int, int",           "uint, uint", "double, double", "string, string", "bytes, bytes",
        "timestamp, timestamp", "duration, duration", "int, uint",  "int, double",    "uint, int",      "uint, double",
        "double, int",          "double, uint",       NULL};
    for (int i = 0; i < 4; i++)
        for (int j = 0; relsig[j]; j++) {
            char sig[64];
            snprintf(sig, sizeof sig, "%s -> bool", relsig[j]);
            cel_env_builtin(env, rel[i], rops[i], 0, sig, NULL, NULL);
        }
    cel_env_builtin(env, "@in", OP_IN, 0, "A, list(A) -> bool", NULL, NULL);
    cel_env_builtin(env, "@in", OP_IN, 0, "A, map(A, B) -> bool", NULL, NULL);
    cel_env_builtin(env, "_[_]", OP_INDEX, 0, "list(A), int -> A", NULL, NULL);
    cel_env_builtin(env, "_[_]", OP_INDEX, 0, "map(A, B), A -> B", NULL, NULL);
    cel_env_builtin(env, "cel.@mapInsert", OP_MAP_INSERT, 0, "map(K, V), K, V -> map(K, V)", NULL, NULL);
    cel_env_builtin(env, "cel.@mapInsert", OP_MAP_INSERT, 0, "map(K, V), map(K, V) -> map(K, V)", NULL, NULL);

    static const char *sized[] = {"string", "bytes", "list(A)", "map(A, B)", NULL};
    for (int j = 0; sized[j]; j++) {
        char sig[64];
        snprintf(sig, sizeof sig, "%s -> int", sized[j]);
        cel_env_builtin(env, "size", 0, 0, sig, f_size, NULL);
        cel_env_builtin(env, "size", 0, M, sig, f_size, NULL);
    }
    cel_env_builtin(env, "contains", 0, M, "string, string -> bool", f_contains, cost_contains);
    cel_env_builtin(env, "startsWith", 0, M, "string, string -> bool", f_starts, cost_arg0_01);
    cel_env_builtin(env, "endsWith", 0, M, "string, string -> bool", f_ends, cost_arg0_01);
    cel_env_builtin(env, "matches", 0, 0, "string, string -> bool", f_matches, cost_matches);
    cel_env_builtin(env, "matches", 0, M, "string, string -> bool", f_matches, cost_matches);
    {
        cel_func *f = cel_env_func(env, "matches");
        for (size_t i = 0; i < f->novl; i++)
            f->ovls[i].prepare = prep_matches;
    }

    static const char *ints[] = {"int", "uint", "double", "string", "timestamp", NULL};
    for (int j = 0; ints[j]; j++) {
        char sig[64];
        snprintf(sig, sizeof sig, "%s -> int", ints[j]);
        cel_env_builtin(env, "int", 0, 0, sig, f_int, NULL);
    }
    static const char *uints[] = {"uint", "int", "double", "string", NULL};
    for (int j = 0; uints[j]; j++) {
        char sig[64];
        snprintf(sig, sizeof sig, "%s -> uint", uints[j]);
        cel_env_builtin(env, "uint", 0, 0, sig, f_uint, NULL);
    }
    static const char *dbls[] = {"double", "int", "uint", "string", NULL};
    for (int j = 0; dbls[j]; j++) {
        char sig[64];
        snprintf(sig, sizeof sig, "%s -> double", dbls[j]);
        cel_env_builtin(env, "double", 0, 0, sig, f_double, NULL);
    }
    static const char *strs[] = {"string", "int", "uint", "double", "bool", "bytes", "timestamp", "duration", NULL};
    for (int j = 0; strs[j]; j++) {
        char sig[64];
        snprintf(sig, sizeof sig, "%s -> string", strs[j]);
        cel_env_builtin(env, "string", 0, 0, sig, f_string, strcmp(strs[j], "bytes") ? NULL : cost_arg0_01);
    }
    cel_env_builtin(env, "bytes", 0, 0, "bytes -> bytes", f_bytes, NULL);
    cel_env_builtin(env, "bytes", 0, 0, "string -> bytes", f_bytes, cost_arg0_01);
    cel_env_builtin(env, "bool", 0, 0, "bool -> bool", f_bool, NULL);
    cel_env_builtin(env, "bool", 0, 0, "string -> bool", f_bool, NULL);
    cel_env_builtin(env, "dyn", 0, 0, "A -> dyn", f_dyn, NULL);
    cel_env_builtin(env, "type", 0, 0, "A -> type(A)", f_type, NULL);

    if (env->libs & CEL_LIB_OPTIONALS) {
        cel_env_builtin(env, "_?._", OP_OPT_SELECT, 0, "map(K, V), string -> optional(V)", NULL, NULL);
        cel_env_builtin(env, "_?._", OP_OPT_SELECT, 0, "optional(map(K, V)), string -> optional(V)", NULL, NULL);
        cel_env_builtin(env, "_[?_]", OP_OPT_INDEX, 0, "list(A), int -> optional(A)", NULL, NULL);
        cel_env_builtin(env, "_[?_]", OP_OPT_INDEX, 0, "map(K, V), K -> optional(V)", NULL, NULL);
        cel_env_builtin(env, "_[?_]", OP_OPT_INDEX, 0, "optional(list(A)), int -> optional(A)", NULL, NULL);
        cel_env_builtin(env, "_[?_]", OP_OPT_INDEX, 0, "optional(map(K, V)), K -> optional(V)", NULL, NULL);
        cel_env_builtin(env, "_[_]", OP_INDEX, 0, "optional(list(A)), int -> optional(A)", NULL, NULL);
        cel_env_builtin(env, "_[_]", OP_INDEX, 0, "optional(map(K, V)), K -> optional(V)", NULL, NULL);
        cel_env_builtin(env, "optional.of", 0, 0, "A -> optional(A)", f_opt_of, NULL);
        cel_env_builtin(env, "optional.ofNonZeroValue", 0, 0, "A -> optional(A)", f_opt_of_nz, NULL);
        cel_env_builtin(env, "optional.none", 0, 0, "-> optional(T)", f_opt_none, NULL);
        cel_env_builtin(env, "hasValue", 0, M, "optional(A) -> bool", f_has_value, NULL);
        cel_env_builtin(env, "value", 0, M, "optional(A) -> A", f_value, NULL);
        cel_env_builtin(env, "or", 0, M, "optional(A), optional(A) -> optional(A)", f_or, NULL);
        cel_env_builtin(env, "orValue", 0, M, "optional(A), A -> A", f_or_value, NULL);
        cel_env_builtin(env, "optional.unwrap", 0, 0, "list(optional(A)) -> list(A)", f_unwrap, NULL);
        cel_env_builtin(env, "unwrapOpt", 0, M, "list(optional(A)) -> list(A)", f_unwrap, NULL);
        cel_env_builtin(env, "first", 0, M, "list(A) -> optional(A)", f_first, NULL);
        cel_env_builtin(env, "last", 0, M, "list(A) -> optional(A)", f_last, NULL);
    }
}
