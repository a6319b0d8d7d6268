/* The typed decode check (schema.h kg_schema_decode_check): what decoding a JSON object into the built-in Go type
 * would report, computed from kgate's schema index in one walk, with no per-kind code.
 *
 * Upstream decodes a body with sigs.k8s.io/json (encoding/json semantics, case-sensitive): a value whose JSON type
 * cannot go into the field's Go type is an *UnmarshalTypeError, printed as
 *   json: cannot unmarshal <number|string|bool|array|object> into Go struct field <Struct>.<path> of type <type>
 * where <Struct> is the innermost Go struct holding the field and <path> the JSON names of the struct fields from
 * the root (no list indexes, no map keys). An integer that does not fit (or is not integral) reads
 * `number <literal>`. The first error in document order wins. Three custom unmarshalers keep their own texts:
 * Time/MicroTime (a string, else the inner `... of type string`), IntOrString (a string, else an int32) and
 * Quantity (`quantities must match the regular expression ...`); []byte values must be StdEncoding base64
 * (`illegal base64 data at input byte N`, without context, as Go). JSON null decodes into anything.
 *
 * The same walk collects the paths of unknown fields ("spec.containers[0].foo") as the strict decoder names them,
 * and optionally removes them from the object (fieldValidation Ignore and Warn: unknown fields are never stored). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "api/schema.h"
#include "api/schema_internal.h"
#include "base/base64.h"
#include "base/buf.h"
#include "meta/quantity.h"
#include "meta/status.h"

#define MAX_FRAMES 160
#define MAX_DEPTH 64

#define QUANTITY_FORMAT_ERR                                                                                            \
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

enum { FR_FIELD, FR_KEY, FR_INDEX };

typedef struct frame {
    const char *key;
    uint32_t len; /* key length or list index */
    uint8_t kind;
} frame;

typedef struct dctx {
    kg_arena *a;
    bool drop;
    frame st[MAX_FRAMES];
    size_t depth;
    const char *error;
    const char **unknown;
    size_t n, cap;
} dctx;

static const char *json_word(const kg_json *v)
{
    switch (v->type) {
    case KG_JSON_BOOL: return "bool";
    case KG_JSON_INT:
    case KG_JSON_NUMBER: return "number";
    case KG_JSON_STRING: return "string";
    case KG_JSON_ARRAY: return "array";
    default: return "object";
    }
}

/* "io.k8s.api.apps.v1.DeploymentSpec" -> "v1.DeploymentSpec" (Go's reflect type string) */
static const char *go_struct_type(int t)
{
    const char *name = kg_schema_i_type_at(t)->name;
    const char *last = strrchr(name, '.');
    const char *p = last;
    while (p > name && p[-1] != '.')
        p--;
    return p > name ? p : last + 1;
}

static const char *go_short_name(int t)
{
    return strrchr(kg_schema_i_type_at(t)->name, '.') + 1;
}

static const char *go_elem_type(dctx *c, const sfield *f)
{
    switch (f->kind) {
    case K_STRING: return "string";
    case K_INT32: return "int32";
    case K_INT64: return "int64";
    case K_BOOL: return "bool";
    case K_NUMBER: return "float64";
    case K_BYTE: return "[]uint8";
    case K_OBJ: return "interface {}";
    default: break;
    }
    (void)c;
    return go_struct_type(f->ref);
}

static const char *go_field_type(dctx *c, const sfield *f)
{
    const char *e = go_elem_type(c, f);
    if (f->shape == SH_ARRAY)
        return kg_arena_sprintf(c->a, "[]%s", e);
    if (f->shape == SH_MAP)
        return kg_arena_sprintf(c->a, "map[string]%s%s", f->inner_array ? "[]" : "", e);
    return e;
}

static void push(dctx *c, const char *key, uint32_t len, uint8_t kind)
{
    c->st[c->depth].key = key;
    c->st[c->depth].len = len;
    c->st[c->depth].kind = kind;
    c->depth++;
}

/* The error of the value at the top of the stack (the frames hold the Go field path). */
static void type_error(dctx *c, int strct, const char *value, const char *type)
{
    if (c->error)
        return;
    kg_buf b = KG_BUF_INIT;
    kg_buf_printf(&b, "json: cannot unmarshal %s into Go struct field %s.", value, go_short_name(strct));
    bool first = true;
    for (size_t i = 0; i < c->depth; i++) {
        if (c->st[i].kind != FR_FIELD)
            continue;
        kg_buf_printf(&b, "%s%.*s", first ? "" : ".", (int)c->st[i].len, c->st[i].key);
        first = false;
    }
    kg_buf_printf(&b, " of type %s", type);
    c->error = kg_arena_strdup(c->a, kg_buf_cstr(&b));
    kg_buf_free(&b);
}

static void plain_error(dctx *c, const char *msg)
{
    if (!c->error)
        c->error = msg;
}

static void report_unknown(dctx *c, const char *key, uint32_t klen)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 8;
        c->unknown = kg_arena_realloc(c->a, c->unknown, c->cap * sizeof *c->unknown, nc * sizeof *c->unknown);
        c->cap = nc;
    }
    kg_buf b = KG_BUF_INIT;
    for (size_t i = 0; i < c->depth; i++) {
        if (c->st[i].kind == FR_INDEX)
            kg_buf_printf(&b, "[%" PRIu32 "]", c->st[i].len);
        else
            kg_buf_printf(&b, "%s%.*s", i ? "." : "", (int)c->st[i].len, c->st[i].key);
    }
    kg_buf_printf(&b, "%s%.*s", c->depth ? "." : "", (int)klen, key);
    c->unknown[c->n++] = kg_arena_strdup(c->a, kg_buf_cstr(&b));
    kg_buf_free(&b);
}

/* An integer literal for an int32/int64 field: Go's ParseInt plus the overflow check. */
static void check_int(dctx *c, int strct, const kg_json *v, bool is32, const char *type)
{
    if (v->type == KG_JSON_INT) {
        if (!is32 || (v->u.i >= INT32_MIN && v->u.i <= INT32_MAX))
            return;
        type_error(c, strct, kg_arena_sprintf(c->a, "number %" PRId64, v->u.i), type);
    } else if (v->type == KG_JSON_NUMBER) {
        const char *raw = v->u.num.raw ? v->u.num.raw : kg_arena_sprintf(c->a, "%g", v->u.num.d);
        kg_buf b = KG_BUF_INIT; /* the literal is client input: echoed bounded (status.h) */
        kg_buf_puts(&b, "number ");
        kg_meta_echo(&b, raw, v->u.num.raw ? v->len : strlen(raw));
        type_error(c, strct, kg_arena_strdup(c->a, kg_buf_cstr(&b)), type);
        kg_buf_free(&b);
    } else {
        type_error(c, strct, json_word(v), type);
    }
}

static void walk_struct(dctx *c, int t, kg_json *v, int level);

/* One value of field f's element type (f's list items and map values included). strct: the struct holding f. */
static void check_elem(dctx *c, int strct, const sfield *f, kg_json *v, int level)
{
    if (v->type == KG_JSON_NULL)
        return;
    switch (f->kind) {
    case K_STRING:
        if (v->type != KG_JSON_STRING)
            type_error(c, strct, json_word(v), "string");
        return;
    case K_INT32: check_int(c, strct, v, true, "int32"); return;
    case K_INT64: check_int(c, strct, v, false, "int64"); return;
    case K_BOOL:
        if (v->type != KG_JSON_BOOL)
            type_error(c, strct, json_word(v), "bool");
        return;
    case K_NUMBER:
        if (v->type != KG_JSON_INT && v->type != KG_JSON_NUMBER)
            type_error(c, strct, json_word(v), "float64");
        return;
    case K_BYTE: {
        if (v->type != KG_JSON_STRING) {
            type_error(c, strct, json_word(v), "[]uint8");
            return;
        }
        size_t pos = 0;
        if (!c->error && !kg_base64_valid(v->u.s, v->len, KG_BASE64_SKIP_CRLF)) {
            kg_base64_decode(c->a, v->u.s, v->len, KG_BASE64_SKIP_CRLF, NULL, &pos);
            plain_error(c, kg_arena_sprintf(c->a, "illegal base64 data at input byte %zu", pos));
        }
        return;
    }
    case K_OBJ: return;
    default: break;
    }
    const stype *ty = kg_schema_i_type_at(f->ref);
    if (!ty->prim_type) {
        if (v->type != KG_JSON_OBJECT) {
            type_error(c, strct, json_word(v), go_struct_type(f->ref));
            return;
        }
        walk_struct(c, f->ref, v, level + 1);
        return;
    }
    const char *name = ty->name;
    size_t nl = strlen(name);
    if (nl >= 4 && !strcmp(name + nl - 4, "Time")) { /* Time, MicroTime: a string inside their unmarshaler */
        if (v->type != KG_JSON_STRING)
            type_error(c, strct, json_word(v), "string");
    } else if (nl >= 11 && !strcmp(name + nl - 11, "IntOrString")) {
        if (v->type != KG_JSON_STRING)
            check_int(c, strct, v, true, "int32");
    } else if (nl >= 8 && !strcmp(name + nl - 8, "Quantity")) {
        if (v->type == KG_JSON_STRING) {
            kg_quantity q;
            kg_error err;
            if (!kg_quantity_parse(v->u.s, v->len, &q, &err))
                plain_error(c, QUANTITY_FORMAT_ERR);
        } else if (v->type != KG_JSON_INT && v->type != KG_JSON_NUMBER) {
            plain_error(c, QUANTITY_FORMAT_ERR);
        }
    }
    /* other primitive definitions (RawExtension, JSON, ...) take any value */
}

static void check_value(dctx *c, int strct, const sfield *f, kg_json *v, int level)
{
    if (v->type == KG_JSON_NULL || level > MAX_DEPTH || c->depth + 2 > MAX_FRAMES)
        return;
    if (f->shape == SH_ARRAY) {
        if (v->type != KG_JSON_ARRAY) {
            type_error(c, strct, json_word(v), go_field_type(c, f));
            return;
        }
        for (uint32_t i = 0; i < v->len; i++) {
            push(c, NULL, i, FR_INDEX);
            check_elem(c, strct, f, v->u.items[i], level);
            c->depth--;
        }
    } else if (f->shape == SH_MAP) {
        if (v->type != KG_JSON_OBJECT) {
            type_error(c, strct, json_word(v), go_field_type(c, f));
            return;
        }
        for (uint32_t i = 0; i < v->len; i++) {
            kg_json_member *m = &v->u.members[i];
            push(c, m->key, m->key_len, FR_KEY);
            if (!f->inner_array) {
                check_elem(c, strct, f, m->val, level);
            } else if (m->val->type != KG_JSON_NULL) {
                if (m->val->type != KG_JSON_ARRAY) {
                    type_error(c, strct, json_word(m->val), kg_arena_sprintf(c->a, "[]%s", go_elem_type(c, f)));
                } else {
                    for (uint32_t k = 0; k < m->val->len; k++) {
                        push(c, NULL, k, FR_INDEX);
                        check_elem(c, strct, f, m->val->u.items[k], level);
                        c->depth--;
                    }
                }
            }
            c->depth--;
        }
    } else {
        check_elem(c, strct, f, v, level);
    }
}

static void walk_struct(dctx *c, int t, kg_json *v, int level)
{
    if (level > MAX_DEPTH)
        return;
    uint32_t w = 0;
    for (uint32_t i = 0; i < v->len; i++) {
        kg_json_member *m = &v->u.members[i];
        const sfield *f = kg_schema_i_find_field(t, m->key, m->key_len);
        if (!f) {
            report_unknown(c, m->key, m->key_len);
            if (c->drop)
                continue;
        } else {
            push(c, m->key, m->key_len, FR_FIELD);
            check_value(c, t, f, m->val, level);
            c->depth--;
        }
        if (w != i)
            v->u.members[w] = *m;
        w++;
    }
    v->len = w;
}

bool kg_schema_decode_check(kg_arena *a, const char *type_name, kg_json *obj, bool drop_unknown, kg_schema_decode *out)
{
    memset(out, 0, sizeof *out);
    int t = kg_schema_i_find_type(type_name);
    if (t < 0 || kg_schema_i_type_at(t)->prim_type)
        return false;
    if (!obj || obj->type != KG_JSON_OBJECT)
        return true;
    dctx *c = kg_arena_alloc(a, sizeof *c); /* ~4 KB of frames: from the arena, not the stack */
    memset(c, 0, sizeof *c);
    c->a = a;
    c->drop = drop_unknown;
    walk_struct(c, t, obj, 0);
    out->error = c->error;
    out->unknown = c->unknown;
    out->nunknown = c->n;
    return true;
}
