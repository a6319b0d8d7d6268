/* CEL values: native lists/maps, optionals, errors, equality, ordering, UTF-8 and display helpers; types. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cel/cel_internal.h"
#include "base/hash.h"

/* ---------------------------------------------------------------- UTF-8 */

int cel_utf8_decode(const char *s, size_t n, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n == 0)
        return 0;
    if (u[0] < 0x80) {
        *cp = u[0];
        return 1;
    }
    int len;
    uint32_t c, min;
    if ((u[0] & 0xE0) == 0xC0) {
        len = 2;
        c = u[0] & 0x1F;
        min = 0x80;
    } else if ((u[0] & 0xF0) == 0xE0) {
        len = 3;
        c = u[0] & 0x0F;
        min = 0x800;
    } else if ((u[0] & 0xF8) == 0xF0) {
        len = 4;
        c = u[0] & 0x07;
        min = 0x10000;
    } else {
        *cp = 0xFFFD;
        return -1;
    }
    if ((size_t)len > n) {
        *cp = 0xFFFD;
        return -1;
    }
    for (int i = 1; i < len; i++) {
        if ((u[i] & 0xC0) != 0x80) {
            *cp = 0xFFFD;
            return -1;
        }
        c = (c << 6) | (u[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c < 0xE000)) {
        *cp = 0xFFFD;
        return -1;
    }
    *cp = c;
    return len;
}

int cel_utf8_encode(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t cel_utf8_len(const char *s, size_t n)
{
    /* code points = bytes - continuation bytes (10xxxxxx). Strings are mostly ASCII: first one pass that only ORs
     * the words together; only when a byte has bit 7 set, count the continuation bytes 8 at a time (bit 7 set and
     * bit 6, shifted into bit 7's place by w << 1, clear) */
    const uint64_t hi = 0x8080808080808080ull;
    if (n < 8) {
        size_t c = 0;
        for (size_t i = 0; i < n; i++)
            c += ((unsigned char)s[i] & 0xC0) != 0x80;
        return c;
    }
    uint64_t any = 0, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, s + i, 8);
        any |= w;
    }
    memcpy(&w, s + n - 8, 8); /* the last 8 bytes (overlapping the words above when n is not a multiple of 8) */
    any |= w;
    if (!(any & hi))
        return n;
    size_t cont = 0;
    for (i = 0; i + 8 <= n; i += 8) {
        memcpy(&w, s + i, 8);
        cont += (size_t)__builtin_popcountll(w & hi & ~(w << 1));
    }
    if (i < n) {
        /* the last partial word: the final 8 bytes without the ones already counted */
        memcpy(&w, s + n - 8, 8);
        w &= ~0ull << (8 * (8 - (n - i)));
        cont += (size_t)__builtin_popcountll(w & hi & ~(w << 1));
    }
    return n - cont;
}

bool cel_utf8_valid(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        uint32_t cp;
        int k = cel_utf8_decode(s + i, n - i, &cp);
        if (k <= 0)
            return false;
        i += (size_t)k;
    }
    return true;
}

/* ---------------------------------------------------------------- native list / map */

static size_t nlist_size(const cel_value *l)
{
    return ((const nlist *)l->u.ptr)->n;
}
static cel_value nlist_get(cel_call_ctx *ctx, const cel_value *l, size_t i)
{
    (void)ctx;
    return ((const nlist *)l->u.ptr)->items[i];
}
const cel_list_vt cel_nlist_vt = {nlist_size, nlist_get};

nlist *nlist_new(kg_arena *a, size_t cap)
{
    nlist *l = kg_arena_alloc(a, sizeof *l);
    l->n = 0;
    l->cap = cap;
    l->items = cap ? kg_arena_alloc(a, cap * sizeof(cel_value)) : NULL;
    return l;
}

void nlist_push(kg_arena *a, nlist *l, cel_value v)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 4;
        l->items = kg_arena_realloc(a, l->items, l->cap * sizeof(cel_value), nc * sizeof(cel_value));
        l->cap = nc;
    }
    l->items[l->n++] = v;
}

static uint64_t hash_bytes(const char *s, size_t n)
{
    return kg_fnv1a64(s, n);
}

static uint64_t key_hash(const cel_value *k)
{
    switch (k->kind) {
    case CEL_STRING: return hash_bytes(k->u.s, k->n);
    case CEL_INT: return (uint64_t)k->u.i * 0x9E3779B97F4A7C15ull;
    case CEL_UINT: return k->u.u * 0x9E3779B97F4A7C15ull;
    case CEL_DOUBLE: {
        double d = k->u.d;
        if (d == trunc(d) && d >= -9.2e18 && d <= 1.8e19) {
            if (d < 0)
                return (uint64_t)(int64_t)d * 0x9E3779B97F4A7C15ull;
            return (uint64_t)d * 0x9E3779B97F4A7C15ull;
        }
        return 7;
    }
    case CEL_BOOL: return k->u.b ? 3 : 5;
    default: return 11;
    }
}

static bool key_eq(const cel_value *a, const cel_value *b)
{
    if (a->kind == CEL_STRING && b->kind == CEL_STRING)
        return a->n == b->n && memcmp(a->u.s, b->u.s, a->n) == 0;
    if (a->kind == CEL_STRING || b->kind == CEL_STRING)
        return false;
    return cel_compare(a, b) == 0 && (a->kind == b->kind || (a->kind != CEL_BOOL && b->kind != CEL_BOOL));
}

nmap *nmap_new(kg_arena *a, size_t cap)
{
    nmap *m = kg_arena_calloc(a, sizeof *m);
    m->cap = cap;
    if (cap) {
        m->keys = kg_arena_alloc(a, cap * sizeof(cel_value));
        m->vals = kg_arena_alloc(a, cap * sizeof(cel_value));
    }
    return m;
}

static long nmap_find(const nmap *m, const cel_value *k)
{
    if (m->index) {
        size_t mask = m->index_cap - 1;
        for (size_t h = key_hash(k) & mask;; h = (h + 1) & mask) {
            uint32_t e = m->index[h];
            if (!e)
                return -1;
            if (key_eq(&m->keys[e - 1], k))
                return (long)e - 1;
        }
    }
    for (size_t i = 0; i < m->n; i++)
        if (key_eq(&m->keys[i], k))
            return (long)i;
    return -1;
}

static void nmap_index_insert(nmap *m, size_t i)
{
    size_t mask = m->index_cap - 1;
    size_t h = key_hash(&m->keys[i]) & mask;
    while (m->index[h])
        h = (h + 1) & mask;
    m->index[h] = (uint32_t)i + 1;
}

bool nmap_put(kg_arena *a, nmap *m, cel_value k, cel_value v)
{
    if (nmap_find(m, &k) >= 0)
        return false;
    if (m->n == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 4;
        m->keys = kg_arena_realloc(a, m->keys, m->cap * sizeof(cel_value), nc * sizeof(cel_value));
        m->vals = kg_arena_realloc(a, m->vals, m->cap * sizeof(cel_value), nc * sizeof(cel_value));
        m->cap = nc;
    }
    m->keys[m->n] = k;
    m->vals[m->n] = v;
    m->n++;
    if (m->n > 8) {
        if (!m->index || m->n * 2 > m->index_cap) {
            size_t ic = 16;
            while (ic < m->n * 4)
                ic *= 2;
            m->index = kg_arena_calloc(a, ic * sizeof(uint32_t));
            m->index_cap = ic;
            for (size_t i = 0; i < m->n; i++)
                nmap_index_insert(m, i);
        } else {
            nmap_index_insert(m, m->n - 1);
        }
    }
    return true;
}

static size_t nmap_size(const cel_value *m)
{
    return ((const nmap *)m->u.ptr)->n;
}
static bool nmap_get(cel_call_ctx *ctx, const cel_value *mv, const cel_value *k, cel_value *out)
{
    (void)ctx;
    const nmap *m = mv->u.ptr;
    long i = nmap_find(m, k);
    if (i < 0)
        return false;
    *out = m->vals[i];
    return true;
}
static void nmap_entry(cel_call_ctx *ctx, const cel_value *mv, size_t i, cel_value *k, cel_value *v)
{
    (void)ctx;
    const nmap *m = mv->u.ptr;
    if (k)
        *k = m->keys[i];
    if (v)
        *v = m->vals[i];
}
static const cel_type *nmap_type(const cel_value *mv)
{
    return ((const nmap *)mv->u.ptr)->type;
}
const cel_map_vt cel_nmap_vt = {nmap_size, nmap_get, nmap_entry, NULL, nmap_type};

/* ---------------------------------------------------------------- public value API */

cel_value cel_string_copy(kg_arena *a, const char *s, size_t n)
{
    return cel_string(kg_arena_strndup(a, s, n), n);
}
cel_value cel_bytes_copy(kg_arena *a, const char *s, size_t n)
{
    return cel_bytes(kg_arena_strndup(a, s, n), n);
}

cel_value cel_list_new(kg_arena *a, const cel_value *items, size_t n)
{
    nlist *l = nlist_new(a, n);
    if (n)
        memcpy(l->items, items, n * sizeof *items);
    l->n = n;
    return nlist_value(l);
}

cel_value cel_map_new(kg_arena *a, const cel_value *keys, const cel_value *vals, size_t n)
{
    nmap *m = nmap_new(a, n);
    for (size_t i = 0; i < n; i++) {
        if (!cel_valid_key(&keys[i]))
            return cel_err_a(a, "unsupported key type");
        if (!nmap_put(a, m, keys[i], vals[i]))
            return cel_err_a(a, "Failed with repeated key");
    }
    return nmap_value(m);
}

cel_value cel_optional_none(void)
{
    cel_value v = {0};
    v.kind = CEL_OPTIONAL;
    v.u.ptr = NULL;
    return v;
}

cel_value cel_optional_of(kg_arena *a, cel_value inner)
{
    nopt *o = kg_arena_alloc(a, sizeof *o);
    o->v = inner;
    cel_value v = {0};
    v.kind = CEL_OPTIONAL;
    v.u.ptr = o;
    return v;
}

bool cel_optional_has(const cel_value *opt)
{
    return opt->kind == CEL_OPTIONAL && opt->u.ptr != NULL;
}
cel_value cel_optional_value(const cel_value *opt)
{
    return cel_optional_has(opt) ? ((const nopt *)opt->u.ptr)->v : cel_null();
}

static cel_value err_v(kg_arena *a, const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    cel_value v = {0};
    v.kind = CEL_ERROR;
    v.u.s = kg_arena_strdup(a, buf);
    return v;
}

cel_value cel_error_new(kg_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cel_value v = err_v(a, fmt, ap);
    va_end(ap);
    return v;
}
cel_value cel_err_a(kg_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cel_value v = err_v(a, fmt, ap);
    va_end(ap);
    return v;
}
cel_value cel_err(cel_call_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cel_value v = err_v(ctx->arena, fmt, ap);
    va_end(ap);
    return v;
}

const char *cel_error_message(const cel_value *err)
{
    return err->kind == CEL_ERROR ? err->u.s : "";
}

cel_value cel_no_overload(cel_call_ctx *ctx, const char *fn, const cel_value *args, size_t n)
{
    char buf[512];
    size_t o = 0;
    for (size_t i = 0; i < n && o < sizeof buf - 64; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i ? ", " : "", cel_type_name_of(&args[i]));
    buf[o] = 0;
    return cel_err(ctx, "no such overload: %s(%s)", fn, buf);
}

size_t cel_list_size(const cel_value *l)
{
    if (l->aux == &cel_jarr_vt) /* JSON arrays: the node's length, no call */
        return ((const kg_json *)l->u.ptr)->len;
    return ((const cel_list_vt *)l->aux)->size(l);
}
cel_value cel_list_get(cel_call_ctx *ctx, const cel_value *l, size_t i)
{
    return ((const cel_list_vt *)l->aux)->get(ctx, l, i);
}
size_t cel_map_size(const cel_value *m)
{
    if (m->aux == &cel_jobj_vt) /* JSON objects: the node's length, no call */
        return ((const kg_json *)m->u.ptr)->len;
    return ((const cel_map_vt *)m->aux)->size(m);
}
bool cel_map_get(cel_call_ctx *ctx, const cel_value *m, const cel_value *k, cel_value *out)
{
    return ((const cel_map_vt *)m->aux)->get(ctx, m, k, out);
}
bool cel_map_get_str(cel_call_ctx *ctx, const cel_value *m, const char *key, size_t klen, cel_value *out)
{
    const cel_map_vt *vt = m->aux;
    if (vt->get_str)
        return vt->get_str(ctx, m, key, klen, out);
    cel_value k = cel_string(key, klen);
    return vt->get(ctx, m, &k, out);
}
void cel_map_entry(cel_call_ctx *ctx, const cel_value *m, size_t i, cel_value *k, cel_value *v)
{
    ((const cel_map_vt *)m->aux)->entry(ctx, m, i, k, v);
}

bool cel_valid_key(const cel_value *k)
{
    return k->kind == CEL_INT || k->kind == CEL_UINT || k->kind == CEL_BOOL || k->kind == CEL_STRING;
}

const char *cel_kind_name(cel_kind k)
{
    static const char *names[] = {"null_type",
                                  "bool",
                                  "int",
                                  "uint",
                                  "double",
                                  "string",
                                  "bytes",
                                  "list",
                                  "map",
                                  "type",
                                  "google.protobuf.Timestamp",
                                  "google.protobuf.Duration",
                                  "optional_type",
                                  "opaque",
                                  "error",
                                  "unknown"};
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

const char *cel_type_name_of(const cel_value *v)
{
    if (v->kind == CEL_OPAQUE)
        return ((const cel_opaque_vt *)v->aux)->type_name;
    if (v->kind == CEL_MAP) {
        const cel_map_vt *vt = v->aux;
        if (vt->type) {
            const cel_type *t = vt->type(v);
            if (t)
                return t->name;
        }
    }
    return cel_kind_name((cel_kind)v->kind);
}

/* ---------------------------------------------------------------- compare / equality */

static int cmp_i_u(int64_t a, uint64_t b)
{
    if (a < 0)
        return -1;
    return (uint64_t)a < b ? -1 : (uint64_t)a > b ? 1 : 0;
}

static int cmp_d_i(double a, int64_t b)
{
    if (isnan(a))
        return 2;
    {
        double bd = (double)b;
        return a < bd ? -1 : a > bd ? 1 : 0;
    }
    if (a < -9223372036854775808.0)
        return -1;
    if (a >= 9223372036854775808.0)
        return 1;
    double t = trunc(a);
    int64_t ti = (int64_t)t;
    if (ti < b)
        return -1;
    if (ti > b)
        return 1;
    return a > t ? 1 : a < t ? -1 : 0;
}

static int cmp_d_u(double a, uint64_t b)
{
    if (isnan(a))
        return 2;
    {
        double bd = (double)b;
        return a < bd ? -1 : a > bd ? 1 : 0;
    }
    if (a < 0)
        return -1;
    if (a >= 18446744073709551616.0)
        return 1;
    double t = trunc(a);
    uint64_t tu = (uint64_t)t;
    if (tu < b)
        return -1;
    if (tu > b)
        return 1;
    return a > t ? 1 : 0;
}

static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int c = memcmp(a, b, n);
    if (c)
        return c < 0 ? -1 : 1;
    return an < bn ? -1 : an > bn ? 1 : 0;
}

int cel_compare(const cel_value *a, const cel_value *b)
{
    switch (a->kind) {
    case CEL_INT:
        if (b->kind == CEL_INT)
            return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
        if (b->kind == CEL_UINT)
            return cmp_i_u(a->u.i, b->u.u);
        if (b->kind == CEL_DOUBLE) {
            int c = cmp_d_i(b->u.d, a->u.i);
            return c == 2 ? 2 : -c;
        }
        return 2;
    case CEL_UINT:
        if (b->kind == CEL_UINT)
            return a->u.u < b->u.u ? -1 : a->u.u > b->u.u;
        if (b->kind == CEL_INT)
            return -cmp_i_u(b->u.i, a->u.u);
        if (b->kind == CEL_DOUBLE) {
            int c = cmp_d_u(b->u.d, a->u.u);
            return c == 2 ? 2 : -c;
        }
        return 2;
    case CEL_DOUBLE:
        if (b->kind == CEL_DOUBLE) {
            if (isnan(a->u.d) || isnan(b->u.d))
                return 2;
            return a->u.d < b->u.d ? -1 : a->u.d > b->u.d;
        }
        if (b->kind == CEL_INT)
            return cmp_d_i(a->u.d, b->u.i);
        if (b->kind == CEL_UINT)
            return cmp_d_u(a->u.d, b->u.u);
        return 2;
    case CEL_STRING:
        if (b->kind != CEL_STRING)
            return 2;
        return cmp_bytes(a->u.s, a->n, b->u.s, b->n);
    case CEL_BYTES:
        if (b->kind != CEL_BYTES)
            return 2;
        return cmp_bytes(a->u.s, a->n, b->u.s, b->n);
    case CEL_BOOL:
        if (b->kind != CEL_BOOL)
            return 2;
        return (int)a->u.b - (int)b->u.b;
    case CEL_TIMESTAMP:
        if (b->kind != CEL_TIMESTAMP)
            return 2;
        if (a->u.i != b->u.i)
            return a->u.i < b->u.i ? -1 : 1;
        return a->n < b->n ? -1 : a->n > b->n;
    case CEL_DURATION:
        if (b->kind != CEL_DURATION)
            return 2;
        return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
    default: return 2;
    }
}

static bool is_num(const cel_value *v)
{
    return v->kind == CEL_INT || v->kind == CEL_UINT || v->kind == CEL_DOUBLE;
}

bool cel_eq(cel_call_ctx *ctx, const cel_value *a, const cel_value *b)
{
    if (is_num(a) && is_num(b))
        return cel_compare(a, b) == 0;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case CEL_NULL: return true;
    case CEL_BOOL: return a->u.b == b->u.b;
    case CEL_STRING:
    case CEL_BYTES: return a->n == b->n && memcmp(a->u.s, b->u.s, a->n) == 0;
    case CEL_TIMESTAMP: return a->u.i == b->u.i && a->n == b->n;
    case CEL_DURATION: return a->u.i == b->u.i;
    case CEL_TYPE: return cel_type_equal(a->u.type, b->u.type);
    case CEL_LIST: {
        size_t n = cel_list_size(a);
        if (n != cel_list_size(b))
            return false;
        for (size_t i = 0; i < n; i++) {
            cel_value x = cel_list_get(ctx, a, i), y = cel_list_get(ctx, b, i);
            if (!cel_eq(ctx, &x, &y))
                return false;
        }
        return true;
    }
    case CEL_MAP: {
        size_t n = cel_map_size(a);
        if (n != cel_map_size(b))
            return false;
        const cel_map_vt *va = a->aux, *vb = b->aux;
        const cel_type *ta = va->type ? va->type(a) : NULL, *tb = vb->type ? vb->type(b) : NULL;
        if (ta != tb && !(ta && tb && !strcmp(ta->name, tb->name)))
            return false;
        for (size_t i = 0; i < n; i++) {
            cel_value k, v, w;
            cel_map_entry(ctx, a, i, &k, &v);
            if (!cel_map_get(ctx, b, &k, &w))
                return false;
            if (!cel_eq(ctx, &v, &w))
                return false;
        }
        return true;
    }
    case CEL_OPTIONAL: {
        bool ha = cel_optional_has(a), hb = cel_optional_has(b);
        if (ha != hb)
            return false;
        if (!ha)
            return true;
        cel_value x = cel_optional_value(a), y = cel_optional_value(b);
        return cel_eq(ctx, &x, &y);
    }
    case CEL_OPAQUE: {
        if (a->aux != b->aux)
            return false;
        const cel_opaque_vt *vt = a->aux;
        return vt->equal ? vt->equal(a, b) : a->u.ptr == b->u.ptr;
    }
    default: return false;
    }
}

bool cel_value_equal(cel_call_ctx *ctx, const cel_value *a, const cel_value *b)
{
    return cel_eq(ctx, a, b);
}

/* ---------------------------------------------------------------- formatting */

/* Go strconv.FormatFloat(d, 'g', -1, 64) style, shortest round trip, exponent when exp < -4 || exp >= 21 */
void cel_format_double(kg_buf *b, double d)
{
    if (isnan(d)) {
        kg_buf_puts(b, "NaN");
        return;
    }
    if (isinf(d)) {
        kg_buf_puts(b, d > 0 ? "+Inf" : "-Inf");
        return;
    }
    char tmp[64];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    /* tmp = [-]D.DDDDe[+-]XX */
    char digits[32];
    int nd = 0;
    const char *p = tmp;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
    int exp = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    if (neg)
        kg_buf_putc(b, '-');
    if (exp < -4 || exp >= 21) {
        kg_buf_putc(b, digits[0]);
        if (nd > 1) {
            kg_buf_putc(b, '.');
            kg_buf_append(b, digits + 1, (size_t)nd - 1);
        }
        kg_buf_printf(b, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
        return;
    }
    if (exp < 0) {
        kg_buf_puts(b, "0.");
        for (int i = 0; i < -exp - 1; i++)
            kg_buf_putc(b, '0');
        kg_buf_append(b, digits, (size_t)nd);
        return;
    }
    for (int i = 0; i <= exp; i++)
        kg_buf_putc(b, i < nd ? digits[i] : '0');
    if (nd > exp + 1) {
        kg_buf_putc(b, '.');
        kg_buf_append(b, digits + exp + 1, (size_t)(nd - exp - 1));
    }
}

static void debug_quote(kg_buf *b, const char *s, size_t n, bool bytes)
{
    if (bytes)
        kg_buf_putc(b, 'b');
    kg_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            kg_buf_printf(b, "\\%c", c);
        else if (c == '\n')
            kg_buf_puts(b, "\\n");
        else if (c < 0x20 || (bytes && c >= 0x80))
            kg_buf_printf(b, "\\x%02x", c);
        else
            kg_buf_putc(b, (char)c);
    }
    kg_buf_putc(b, '"');
}

static void debug_val(kg_buf *b, const cel_value *v, int depth)
{
    if (depth > 50) {
        kg_buf_puts(b, "...");
        return;
    }
    switch (v->kind) {
    case CEL_NULL: kg_buf_puts(b, "null"); break;
    case CEL_BOOL: kg_buf_puts(b, v->u.b ? "true" : "false"); break;
    case CEL_INT: kg_buf_printf(b, "%lld", (long long)v->u.i); break;
    case CEL_UINT: kg_buf_printf(b, "%lluu", (unsigned long long)v->u.u); break;
    case CEL_DOUBLE: cel_format_double(b, v->u.d); break;
    case CEL_STRING: debug_quote(b, v->u.s, v->n, false); break;
    case CEL_BYTES: debug_quote(b, v->u.s, v->n, true); break;
    case CEL_TYPE: kg_buf_puts(b, v->u.type->name); break;
    case CEL_TIMESTAMP:
        kg_buf_puts(b, "timestamp(\"");
        cel_format_timestamp(b, v->u.i, (int32_t)v->n);
        kg_buf_puts(b, "\")");
        break;
    case CEL_DURATION:
        kg_buf_puts(b, "duration(\"");
        cel_format_duration_secs(b, v->u.i);
        kg_buf_puts(b, "\")");
        break;
    case CEL_LIST: {
        kg_buf_putc(b, '[');
        size_t n = cel_list_size(v);
        for (size_t i = 0; i < n; i++) {
            if (i)
                kg_buf_puts(b, ", ");
            cel_value e = cel_list_get(NULL, v, i);
            debug_val(b, &e, depth + 1);
        }
        kg_buf_putc(b, ']');
        break;
    }
    case CEL_MAP: {
        kg_buf_putc(b, '{');
        size_t n = cel_map_size(v);
        for (size_t i = 0; i < n; i++) {
            if (i)
                kg_buf_puts(b, ", ");
            cel_value k, e;
            cel_map_entry(NULL, v, i, &k, &e);
            debug_val(b, &k, depth + 1);
            kg_buf_puts(b, ": ");
            debug_val(b, &e, depth + 1);
        }
        kg_buf_putc(b, '}');
        break;
    }
    case CEL_OPTIONAL:
        if (cel_optional_has(v)) {
            cel_value e = cel_optional_value(v);
            kg_buf_puts(b, "optional.of(");
            debug_val(b, &e, depth + 1);
            kg_buf_putc(b, ')');
        } else {
            kg_buf_puts(b, "optional.none()");
        }
        break;
    case CEL_OPAQUE: kg_buf_printf(b, "<%s>", ((const cel_opaque_vt *)v->aux)->type_name); break;
    case CEL_ERROR: kg_buf_printf(b, "error(%s)", v->u.s); break;
    default: kg_buf_puts(b, "unknown"); break;
    }
}

const char *cel_value_debug(kg_arena *a, const cel_value *v)
{
    kg_buf b = KG_BUF_INIT;
    debug_val(&b, v, 0);
    char *s = kg_arena_strndup(a, b.data ? b.data : "", b.len);
    kg_buf_free(&b);
    return s;
}
