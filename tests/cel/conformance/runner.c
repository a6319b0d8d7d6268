/* CEL conformance runner: evaluates the cel-spec v0.25.1 simple tests (exported to JSON by export.js) the way
 * cel-go's conformance harness does, prints per-file pass/fail/skip counts, every skip with its reason, the
 * failures, and the total; exits non-zero when the pass rate over the tests that need no protobuf messages falls
 * under the threshold.
 *
 * usage: cel_conformance SUITE.json [--min-pass PERCENT] [--filter SUBSTR] [--verbose] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "cel/cel.h"
#include "json/json.h"

static const char *jstr(const kg_json *o, const char *k)
{
    const char *s = kg_json_get_str(o, k);
    return s ? s : "";
}
static bool jbool(const kg_json *o, const char *k)
{
    kg_json *v = kg_json_get(o, k);
    return v && v->type == KG_JSON_BOOL && v->b;
}

/* ---- conformance Type (cel.expr.Type JSON) → cel_type ---- */
static const cel_type *conv_type(cel_env *env, const kg_json *t, bool *unsupported)
{
    if (!t)
        return cel_type_dyn();
    const char *p = kg_json_get_str(t, "primitive");
    if (p) {
        if (!strcmp(p, "BOOL"))
            return cel_type_bool();
        if (!strcmp(p, "INT64"))
            return cel_type_int();
        if (!strcmp(p, "UINT64"))
            return cel_type_uint();
        if (!strcmp(p, "DOUBLE"))
            return cel_type_double();
        if (!strcmp(p, "STRING"))
            return cel_type_string();
        if (!strcmp(p, "BYTES"))
            return cel_type_bytes();
    }
    const char *mt = kg_json_get_str(t, "messageType");
    if (mt && !strcmp(mt, "google.protobuf.Timestamp"))
        return cel_type_timestamp();
    if (mt && !strcmp(mt, "google.protobuf.Duration"))
        return cel_type_duration();
    const char *w = kg_json_get_str(t, "wellKnown");
    if (w) {
        if (!strcmp(w, "TIMESTAMP"))
            return cel_type_timestamp();
        if (!strcmp(w, "DURATION"))
            return cel_type_duration();
        *unsupported = true;
        return cel_type_dyn();
    }
    kg_json *l = kg_json_get(t, "listType");
    if (l)
        return cel_type_list(env, conv_type(env, kg_json_get(l, "elemType"), unsupported));
    kg_json *m = kg_json_get(t, "mapType");
    if (m)
        return cel_type_map(env, conv_type(env, kg_json_get(m, "keyType"), unsupported),
                            conv_type(env, kg_json_get(m, "valueType"), unsupported));
    const char *tp = kg_json_get_str(t, "typeParam");
    if (tp)
        return cel_type_param(env, tp);
    if (kg_json_get(t, "dyn"))
        return cel_type_dyn();
    if (kg_json_get(t, "null"))
        return cel_type_null();
    kg_json *ty = kg_json_get(t, "type");
    if (ty)
        return cel_type_type_of(env, conv_type(env, ty, unsupported));
    kg_json *ab = kg_json_get(t, "abstractType");
    if (ab) {
        const char *name = jstr(ab, "name");
        kg_json *ps = kg_json_get(ab, "parameterTypes");
        const cel_type *params[8];
        size_t np = 0;
        for (size_t i = 0; ps && i < ps->len && np < 8; i++)
            params[np++] = conv_type(env, kg_json_at(ps, i), unsupported);
        if (!strcmp(name, "optional_type") && np == 1)
            return cel_type_optional(env, params[0]);
        return cel_type_opaque(env, name, params, np);
    }
    *unsupported = true;
    return cel_type_dyn();
}

/* ---- ExprValue JSON → cel_value ---- */
static bool b64dec(kg_arena *a, const char *s, char **out, size_t *n)
{
    size_t len = strlen(s);
    char *o = kg_arena_alloc(a, len * 3 / 4 + 4);
    size_t w = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        int v;
        if (c >= 'A' && c <= 'Z')
            v = c - 'A';
        else if (c >= 'a' && c <= 'z')
            v = c - 'a' + 26;
        else if (c >= '0' && c <= '9')
            v = c - '0' + 52;
        else if (c == '+' || c == '-')
            v = 62;
        else if (c == '/' || c == '_')
            v = 63;
        else if (c == '=')
            break;
        else
            return false;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            o[w++] = (char)((acc >> bits) & 0xFF);
        }
    }
    *out = o;
    *n = w;
    return true;
}

static bool conv_value(kg_arena *a, cel_env *env, const kg_json *v, cel_value *out)
{
    if (!v || v->type != KG_JSON_OBJECT || v->len == 0)
        return false;
    const char *k = v->u.members[0].key;
    kg_json *x = v->u.members[0].val;
    if (!strcmp(k, "nullValue")) {
        *out = cel_null();
        return true;
    }
    if (!strcmp(k, "boolValue")) {
        *out = cel_bool(x->b);
        return true;
    }
    if (!strcmp(k, "int64Value")) {
        *out = cel_int(x->type == KG_JSON_STRING ? strtoll(x->u.s, NULL, 10) : x->u.i);
        return true;
    }
    if (!strcmp(k, "uint64Value")) {
        *out = cel_uint(x->type == KG_JSON_STRING ? strtoull(x->u.s, NULL, 10) : (uint64_t)x->u.i);
        return true;
    }
    if (!strcmp(k, "doubleValue")) {
        double d;
        if (x->type == KG_JSON_STRING) {
            if (!strcmp(x->u.s, "NaN"))
                d = NAN;
            else if (!strcmp(x->u.s, "Infinity"))
                d = INFINITY;
            else if (!strcmp(x->u.s, "-Infinity"))
                d = -INFINITY;
            else
                d = strtod(x->u.s, NULL);
        } else {
            d = kg_json_number(x);
            if (x->type == KG_JSON_INT && x->u.i == 0 && x->type == KG_JSON_NUMBER)
                d = -0.0;
        }
        *out = cel_double(d);
        return true;
    }
    if (!strcmp(k, "stringValue")) {
        *out = cel_string(x->u.s, x->len);
        return true;
    }
    if (!strcmp(k, "bytesValue")) {
        char *b;
        size_t n;
        if (!b64dec(a, x->u.s, &b, &n))
            return false;
        *out = cel_bytes(b, n);
        return true;
    }
    if (!strcmp(k, "listValue")) {
        kg_json *vals = kg_json_get(x, "values");
        size_t n = vals ? vals->len : 0;
        cel_value *items = kg_arena_alloc(a, (n ? n : 1) * sizeof *items);
        for (size_t i = 0; i < n; i++)
            if (!conv_value(a, env, kg_json_at(vals, i), &items[i]))
                return false;
        *out = cel_list_new(a, items, n);
        return true;
    }
    if (!strcmp(k, "mapValue")) {
        kg_json *ents = kg_json_get(x, "entries");
        size_t n = ents ? ents->len : 0;
        cel_value *ks = kg_arena_alloc(a, (n ? n : 1) * sizeof *ks), *vs = kg_arena_alloc(a, (n ? n : 1) * sizeof *vs);
        for (size_t i = 0; i < n; i++) {
            kg_json *e = kg_json_at(ents, i);
            if (!conv_value(a, env, kg_json_get(e, "key"), &ks[i]) ||
                !conv_value(a, env, kg_json_get(e, "value"), &vs[i]))
                return false;
        }
        *out = cel_map_new(a, ks, vs, n);
        return out->kind == CEL_MAP;
    }
    if (!strcmp(k, "objectValue")) {
        /* only the Any-packed Duration abstract type (proto3 JSON "1.5s") */
        const char *ty = jstr(x, "@type");
        const char *val = jstr(x, "value");
        if (!strcmp(ty, "type.googleapis.com/google.protobuf.Duration")) {
            size_t n = strlen(val);
            if (n < 2 || val[n - 1] != 's')
                return false;
            /* seconds with up to 9 fractional digits */
            int64_t secs = 0, nanos = 0;
            int sign = 1, fd = 0;
            const char *p = val;
            if (*p == '-') {
                sign = -1;
                p++;
            }
            for (; *p >= '0' && *p <= '9'; p++)
                secs = secs * 10 + (*p - '0');
            if (*p == '.')
                for (p++; *p >= '0' && *p <= '9'; p++, fd++)
                    if (fd < 9)
                        nanos = nanos * 10 + (*p - '0');
            for (; fd < 9; fd++)
                nanos *= 10;
            *out = cel_duration(sign * (secs * 1000000000 + nanos));
            return true;
        }
        return false; /* (the plain suite packs no other message; Timestamp values appear only as strings) */
    }
    if (!strcmp(k, "typeValue")) {
        const char *name = x->u.s;
        static const struct {
            const char *n;
            const cel_type *(*f)(void);
        } prim[] = {{"int", cel_type_int},
                    {"uint", cel_type_uint},
                    {"double", cel_type_double},
                    {"bool", cel_type_bool},
                    {"string", cel_type_string},
                    {"bytes", cel_type_bytes},
                    {"null_type", cel_type_null},
                    {"type", cel_type_type},
                    {"google.protobuf.Timestamp", cel_type_timestamp},
                    {"google.protobuf.Duration", cel_type_duration}};
        for (size_t i = 0; i < sizeof prim / sizeof *prim; i++)
            if (!strcmp(prim[i].n, name)) {
                *out = cel_type_value(prim[i].f());
                return true;
            }
        /* list, map, optional_type and others: compare by name */
        cel_type *t = kg_arena_calloc(a, sizeof *t);
        t->kind = !strcmp(name, "list")            ? CEL_T_LIST
                  : !strcmp(name, "map")           ? CEL_T_MAP
                  : !strcmp(name, "optional_type") ? CEL_T_OPTIONAL
                                                   : CEL_T_OPAQUE;
        t->name = name;
        *out = cel_type_value(t);
        return true;
    }
    (void)env;
    return false;
}

/* strict structural equality (kinds must match; NaN equals NaN) */
static bool strict_eq(const cel_value *x, const cel_value *y)
{
    if (x->kind != y->kind)
        return false;
    switch (x->kind) {
    case CEL_DOUBLE:
        if (isnan(x->u.d) && isnan(y->u.d))
            return true;
        return x->u.d == y->u.d && signbit(x->u.d) == signbit(y->u.d);
    case CEL_LIST: {
        size_t n = cel_list_size(x);
        if (n != cel_list_size(y))
            return false;
        for (size_t i = 0; i < n; i++) {
            cel_value a = cel_list_get(NULL, x, i), b = cel_list_get(NULL, y, i);
            if (!strict_eq(&a, &b))
                return false;
        }
        return true;
    }
    case CEL_MAP: {
        size_t n = cel_map_size(x);
        if (n != cel_map_size(y))
            return false;
        for (size_t i = 0; i < n; i++) {
            cel_value k, v, w;
            cel_map_entry(NULL, x, i, &k, &v);
            bool found = false;
            for (size_t j = 0; j < n && !found; j++) {
                cel_value k2;
                cel_map_entry(NULL, y, j, &k2, &w);
                found = strict_eq(&k, &k2);
            }
            if (!found || !strict_eq(&v, &w))
                return false;
        }
        return true;
    }
    case CEL_TYPE: return !strcmp(x->u.type->name, y->u.type->name);
    default: return cel_value_equal(NULL, x, y);
    }
}

static void fmt_expected_type(kg_buf *b, const kg_json *t)
{
    const char *p = kg_json_get_str(t, "primitive");
    if (p) {
        static const char *from[] = {"BOOL", "INT64", "UINT64", "DOUBLE", "STRING", "BYTES"};
        static const char *to[] = {"bool", "int", "uint", "double", "string", "bytes"};
        for (int i = 0; i < 6; i++)
            if (!strcmp(p, from[i]))
                kg_buf_puts(b, to[i]);
        return;
    }
    const char *w = kg_json_get_str(t, "wellKnown");
    if (w) {
        kg_buf_puts(b, !strcmp(w, "TIMESTAMP")  ? "google.protobuf.Timestamp"
                       : !strcmp(w, "DURATION") ? "google.protobuf.Duration"
                                                : "any");
        return;
    }
    kg_json *l = kg_json_get(t, "listType");
    if (l) {
        kg_buf_puts(b, "list(");
        fmt_expected_type(b, kg_json_get(l, "elemType"));
        kg_buf_putc(b, ')');
        return;
    }
    kg_json *m = kg_json_get(t, "mapType");
    if (m) {
        kg_buf_puts(b, "map(");
        fmt_expected_type(b, kg_json_get(m, "keyType"));
        kg_buf_puts(b, ", ");
        fmt_expected_type(b, kg_json_get(m, "valueType"));
        kg_buf_putc(b, ')');
        return;
    }
    if (kg_json_get(t, "typeParam")) {
        kg_buf_puts(b, jstr(t, "typeParam"));
        return;
    }
    if (kg_json_get(t, "dyn")) {
        kg_buf_puts(b, "dyn");
        return;
    }
    if (kg_json_get(t, "null")) {
        kg_buf_puts(b, "null_type");
        return;
    }
    kg_json *ty = kg_json_get(t, "type");
    if (ty) {
        kg_buf_puts(b, "type(");
        fmt_expected_type(b, ty);
        kg_buf_putc(b, ')');
        return;
    }
    kg_json *ab = kg_json_get(t, "abstractType");
    if (ab) {
        kg_buf_puts(b, jstr(ab, "name"));
        kg_json *ps = kg_json_get(ab, "parameterTypes");
        if (ps && ps->len) {
            kg_buf_putc(b, '(');
            for (size_t i = 0; i < ps->len; i++) {
                if (i)
                    kg_buf_puts(b, ", ");
                fmt_expected_type(b, kg_json_at(ps, i));
            }
            kg_buf_putc(b, ')');
        }
        return;
    }
    kg_buf_puts(b, "?");
}

static cel_value no_impl(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)args;
    (void)n;
    return cel_error_new(cel_call_arena(ctx), "no implementation bound for declared function");
}

typedef struct file_stats {
    char name[64];
    int pass, fail, skip;
} file_stats;

typedef enum { R_PASS, R_FAIL, R_SKIP } result;

static result run_test(const kg_json *t, char *why, size_t whycap)
{
    const char *kind = jstr(t, "kind");
    if (strcmp(kind, "plain") != 0) {
        snprintf(why, whycap, "%s",
                 !strcmp(kind, "msg") ? "needs protobuf message types (cel.expr.conformance.*)"
                                      : "needs protobuf well-known message types "
                                        "(wrappers/Struct/Value/Any)");
        return R_SKIP;
    }
    kg_json *expect = kg_json_get(t, "expect");
    if (kg_json_get(expect, "unknown")) {
        snprintf(why, whycap, "unknown-value matchers (partial evaluation) are not implemented");
        return R_SKIP;
    }
    kg_arena a;
    kg_arena_init(&a, 0);
    result r = R_FAIL;
    cel_env *env = cel_env_new(CEL_LIB_ALL);
    cel_env_set_options(env, CEL_OPT_ERROR_ON_BAD_PRESENCE);
    cel_env_set_container(env, jstr(t, "container"));
    bool unsupported = false;
    kg_json *decls = kg_json_get(t, "typeEnv");
    for (size_t i = 0; decls && i < decls->len; i++) {
        kg_json *d = kg_json_at(decls, i);
        kg_json *id = kg_json_get(d, "ident");
        kg_json *fn = kg_json_get(d, "function");
        if (id) {
            cel_env_declare_var(env, jstr(d, "name"), conv_type(env, kg_json_get(id, "type"), &unsupported));
        } else if (fn) {
            kg_json *ovs = kg_json_get(fn, "overloads");
            for (size_t j = 0; ovs && j < ovs->len; j++) {
                kg_json *o = kg_json_at(ovs, j);
                cel_overload ov;
                memset(&ov, 0, sizeof ov);
                ov.id = jstr(o, "overloadId");
                ov.flags = jbool(o, "isInstanceFunction") ? CEL_FN_MEMBER : 0;
                kg_json *ps = kg_json_get(o, "params");
                for (size_t k = 0; ps && k < ps->len && k < 8; k++)
                    ov.args[ov.nargs++] = conv_type(env, kg_json_at(ps, k), &unsupported);
                ov.result = conv_type(env, kg_json_get(o, "resultType"), &unsupported);
                ov.impl = no_impl;
                cel_env_add_function(env, jstr(d, "name"), &ov, 1, NULL);
            }
        }
    }
    kg_json *binds = kg_json_get(t, "bindings");
    for (size_t i = 0; binds && i < binds->len; i++)
        cel_env_declare_var(env, binds->u.members[i].key, cel_type_dyn());
    if (unsupported) {
        snprintf(why, whycap, "type environment uses an unsupported type");
        cel_env_free(env);
        kg_arena_free(&a);
        return R_SKIP;
    }
    unsigned flags = 0;
    if (jbool(t, "disableCheck"))
        flags |= CEL_COMPILE_NO_CHECK;
    if (jbool(t, "disableMacros"))
        flags |= CEL_COMPILE_NO_MACROS;
    kg_json *exj = kg_json_get(t, "expr");
    cel_compile_opts co = {flags, NULL, exj ? exj->len : 0};
    cel_program *p = NULL, *p2 = NULL;
    cel_error cerr;
    kg_json *ev = kg_json_get(expect, "error");
    kg_json *typed = kg_json_get(expect, "typed");
    kg_json *val = typed ? kg_json_get(typed, "result") : kg_json_get(expect, "value");
    if (!cel_compile(env, jstr(t, "expr"), &co, &p, &cerr)) {
        if (ev) {
            r = R_PASS;
        } else {
            snprintf(why, whycap, "compile error: %s", cerr.message);
        }
        goto done;
    }
    /* compiled again in the same environment (overload resolutions now come from the checker's memo): the same
     * type, and below the same value or error */
    if (!cel_compile(env, jstr(t, "expr"), &co, &p2, &cerr)) {
        snprintf(why, whycap, "second compile failed: %s", cerr.message);
        goto done;
    }
    {
        char t1[256], t2[256];
        cel_type_format(cel_program_type(p), t1, sizeof t1);
        cel_type_format(cel_program_type(p2), t2, sizeof t2);
        if (strcmp(t1, t2) != 0) {
            snprintf(why, whycap, "second compile: type %s, first %s", t2, t1);
            goto done;
        }
    }
    if (typed) {
        kg_json *dt = kg_json_get(typed, "deducedType");
        if (dt && !(flags & CEL_COMPILE_NO_CHECK)) {
            kg_buf eb = KG_BUF_INIT, gb = KG_BUF_INIT;
            fmt_expected_type(&eb, dt);
            char tb[256];
            cel_type_format(cel_program_type(p), tb, sizeof tb);
            bool ok = !strcmp(kg_buf_cstr(&eb), tb);
            if (!ok)
                snprintf(why, whycap, "deduced type %s, want %s", tb, kg_buf_cstr(&eb));
            kg_buf_free(&eb);
            kg_buf_free(&gb);
            if (!ok)
                goto done;
        }
    }
    if (jbool(t, "checkOnly")) {
        r = R_PASS;
        goto done;
    }
    {
        cel_activation *act = cel_activation_new(env, &a);
        for (size_t i = 0; binds && i < binds->len; i++) {
            cel_value bv;
            if (!conv_value(&a, env, kg_json_get(binds->u.members[i].val, "value"), &bv)) {
                snprintf(why, whycap, "binding %s has an unsupported value", binds->u.members[i].key);
                r = R_SKIP;
                goto done;
            }
            cel_activation_set(act, binds->u.members[i].key, bv);
        }
        cel_value out;
        uint64_t cost;
        cel_eval_status st = cel_eval(p, act, CEL_NO_COST_LIMIT, &out, &cost);
        {
            cel_value out2;
            uint64_t cost2;
            cel_eval_status st2 = cel_eval(p2, act, CEL_NO_COST_LIMIT, &out2, &cost2);
            if (st2 != st || cost2 != cost || (st == CEL_EVAL_OK && !strict_eq(&out, &out2))) {
                snprintf(why, whycap, "second compile evaluates differently: %s", cel_value_debug(&a, &out2));
                goto done;
            }
        }
        if (ev) {
            if (st != CEL_EVAL_OK)
                r = R_PASS;
            else
                snprintf(why, whycap, "want error, got %s", cel_value_debug(&a, &out));
            goto done;
        }
        if (st != CEL_EVAL_OK) {
            snprintf(why, whycap, "eval error: %s", cel_error_message(&out));
            goto done;
        }
        cel_value want;
        if (!conv_value(&a, env, val, &want)) {
            snprintf(why, whycap, "expected value not supported by the runner");
            r = R_SKIP;
            goto done;
        }
        if (strict_eq(&out, &want))
            r = R_PASS;
        else
            snprintf(why, whycap, "got %s, want %s", cel_value_debug(&a, &out), cel_value_debug(&a, &want));
    }
done:
    cel_program_free(p);
    cel_program_free(p2);
    cel_env_free(env);
    kg_arena_free(&a);
    return r;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s SUITE.json [--min-pass PERCENT] [--filter SUBSTR] [--verbose]\n", argv[0]);
        return 2;
    }
    double min_pass = 0;
    const char *filter = NULL;
    bool verbose = false;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--min-pass") && i + 1 < argc)
            min_pass = atof(argv[++i]);
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
            filter = argv[++i];
        else if (!strcmp(argv[i], "--verbose"))
            verbose = true;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", argv[1]);
        return 2;
    }
    kg_buf b = KG_BUF_INIT;
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        kg_buf_append(&b, tmp, n);
    fclose(f);
    kg_arena a;
    kg_arena_init(&a, 1 << 20);
    kg_error err = {0};
    kg_json *root = kg_json_parse(&a, b.data, b.len, &err);
    kg_buf_free(&b);
    if (!root) {
        fprintf(stderr, "bad suite JSON: %s\n", err.msg);
        kg_arena_free(&a);
        return 2;
    }
    kg_json *tests = kg_json_get(root, "tests");
    file_stats files[64];
    int nfiles = 0;
    int pass = 0, fail = 0, skip = 0, plain_total = 0, plain_pass = 0;
    kg_buf skips = KG_BUF_INIT, fails = KG_BUF_INIT;
    for (size_t i = 0; tests && i < tests->len; i++) {
        kg_json *t = kg_json_at(tests, i);
        const char *id = jstr(t, "id");
        if (filter && !strstr(id, filter))
            continue;
        const char *file = jstr(t, "file");
        file_stats *fs = NULL;
        for (int k = 0; k < nfiles; k++)
            if (!strcmp(files[k].name, file))
                fs = &files[k];
        if (!fs && nfiles < 64) {
            fs = &files[nfiles++];
            memset(fs, 0, sizeof *fs);
            snprintf(fs->name, sizeof fs->name, "%s", file);
        }
        char why[2048] = "";
        result r = run_test(t, why, sizeof why);
        bool plain = !strcmp(jstr(t, "kind"), "plain");
        if (plain)
            plain_total++;
        if (r == R_PASS) {
            pass++;
            fs->pass++;
            if (plain)
                plain_pass++;
        } else if (r == R_FAIL) {
            fail++;
            fs->fail++;
            kg_buf_printf(&fails, "FAIL %s: %s\n    expr: %s\n", id, why, jstr(t, "expr"));
        } else {
            skip++;
            fs->skip++;
            kg_buf_printf(&skips, "SKIP %s: %s\n", id, why);
        }
    }
    (void)verbose;
    fputs(kg_buf_cstr(&skips), stdout); /* every skip, with its reason */
    fputs(kg_buf_cstr(&fails), stdout);
    printf("\n%-16s %6s %6s %6s\n", "file", "pass", "fail", "skip");
    for (int k = 0; k < nfiles; k++)
        printf("%-16s %6d %6d %6d\n", files[k].name, files[k].pass, files[k].fail, files[k].skip);
    double rate = plain_total ? 100.0 * plain_pass / plain_total : 100.0;
    printf("TOTAL            %6d %6d %6d   (%d tests)\n", pass, fail, skip, pass + fail + skip);
    printf("tests needing no protobuf messages: %d/%d passed (%.2f%%), threshold %.2f%%\n", plain_pass, plain_total,
           rate, min_pass);
    kg_buf_free(&skips);
    kg_buf_free(&fails);
    kg_arena_free(&a);
    return rate + 1e-9 >= min_pass ? 0 : 1;
}
