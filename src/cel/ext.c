/* Extension libraries: strings, lists, sets, math, encoders (cel-go ext semantics). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cel/cel_internal.h"
#include "base/base64.h"

#define UNUSED (void)ctx, (void)n

static cel_value bufv(cel_call_ctx *ctx, kg_buf *b)
{
    cel_value r = cel_string_copy(ctx->arena, b->data ? b->data : "", b->len);
    kg_buf_free(b);
    return r;
}

/* code point index → byte offset; returns -1 if cp > length */
static long cp_offset(const char *s, size_t n, int64_t cp)
{
    size_t i = 0;
    int64_t c = 0;
    while (c < cp) {
        if (i >= n)
            return -1;
        i++;
        while (i < n && ((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
        c++;
    }
    return (long)i;
}

/* ---------------------------------------------------------------- strings */

static cel_value s_char_at(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    UNUSED;
    int64_t i = a[1].u.i;
    size_t len = cel_utf8_len(a[0].u.s, a[0].n);
    if (i < 0 || (uint64_t)i > len)
        return cel_err(ctx, "index out of range: %lld", (long long)i);
    if ((uint64_t)i == len)
        return cel_string("", 0);
    long o = cp_offset(a[0].u.s, a[0].n, i);
    long e = cp_offset(a[0].u.s, a[0].n, i + 1);
    return cel_string(a[0].u.s + o, (size_t)(e - o));
}

static cel_value s_index_of(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    const char *s = a[0].u.s;
    size_t sn = a[0].n;
    int64_t start = n == 3 ? a[2].u.i : 0;
    size_t len = cel_utf8_len(s, sn);
    if (start < 0 || (uint64_t)start > len)
        return cel_err(ctx, "index out of range: %lld", (long long)start);
    if (a[1].n == 0)
        return cel_int(start);
    long off = cp_offset(s, sn, start);
    const char *p = memmem(s + off, sn - (size_t)off, a[1].u.s, a[1].n);
    if (!p)
        return cel_int(-1);
    return cel_int((int64_t)cel_utf8_len(s, (size_t)(p - s)));
}

static cel_value s_last_index_of(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    const char *s = a[0].u.s;
    size_t sn = a[0].n;
    size_t len = cel_utf8_len(s, sn);
    int64_t start = n == 3 ? a[2].u.i : (int64_t)len;
    if (start < 0 || (uint64_t)start > len)
        return cel_err(ctx, "index out of range: %lld", (long long)start);
    if (a[1].n == 0)
        return cel_int(start);
    /* last occurrence beginning at code point <= start */
    long limit = cp_offset(s, sn, start);
    long best = -1;
    for (long i = 0; i <= limit && (size_t)i + a[1].n <= sn; i++)
        if (!memcmp(s + i, a[1].u.s, a[1].n))
            best = i;
    if (best < 0)
        return cel_int(-1);
    return cel_int((int64_t)cel_utf8_len(s, (size_t)best));
}

static cel_value s_case(cel_call_ctx *ctx, const cel_value *a, bool upper)
{
    char *o = kg_arena_alloc(ctx->arena, a[0].n + 1);
    for (size_t i = 0; i < a[0].n; i++) {
        char c = a[0].u.s[i];
        if (upper && c >= 'a' && c <= 'z')
            c = (char)(c - 32);
        else if (!upper && c >= 'A' && c <= 'Z')
            c = (char)(c + 32);
        o[i] = c;
    }
    o[a[0].n] = 0;
    return cel_string(o, a[0].n);
}
static cel_value s_lower(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    return s_case(ctx, a, false);
}
static cel_value s_upper(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    return s_case(ctx, a, true);
}

static cel_value s_replace(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    int64_t limit = n == 4 ? a[3].u.i : -1;
    const char *s = a[0].u.s, *old = a[1].u.s, *nw = a[2].u.s;
    size_t sn = a[0].n, on = a[1].n, nn = a[2].n;
    /* bound the result before building it: a 100 KB string replacing each char by itself is 10 GB */
    {
        uint64_t occ = 0;
        if (on == 0) {
            occ = cel_utf8_len(s, sn) + 1;
        } else {
            for (const char *q = s; (q = memmem(q, sn - (size_t)(q - s), old, on)) != NULL; q += on)
                occ++;
        }
        if (limit >= 0 && (uint64_t)limit < occ)
            occ = (uint64_t)limit;
        if (nn > on && (sn + occ * (nn - on)) > ((uint64_t)64 << 20))
            return cel_err(ctx, "replace: result exceeds 64 MiB");
    }
    kg_buf b = KG_BUF_INIT;
    size_t i = 0;
    int64_t done = 0;
    if (on == 0) {
        /* Go: insert at the start and after each rune */
        while (limit < 0 || done < limit) {
            kg_buf_append(&b, nw, nn);
            done++;
            if (i >= sn)
                break;
            size_t j = i + 1;
            while (j < sn && ((unsigned char)s[j] & 0xC0) == 0x80)
                j++;
            kg_buf_append(&b, s + i, j - i);
            i = j;
        }
        kg_buf_append(&b, s + i, sn - i);
        return bufv(ctx, &b);
    }
    while (i < sn && (limit < 0 || done < limit)) {
        const char *p = memmem(s + i, sn - i, old, on);
        if (!p)
            break;
        kg_buf_append(&b, s + i, (size_t)(p - (s + i)));
        kg_buf_append(&b, nw, nn);
        i = (size_t)(p - s) + on;
        done++;
    }
    kg_buf_append(&b, s + i, sn - i);
    return bufv(ctx, &b);
}

static cel_value s_split(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    int64_t limit = n == 3 ? a[2].u.i : -1;
    const char *s = a[0].u.s, *sep = a[1].u.s;
    size_t sn = a[0].n, pn = a[1].n;
    nlist *l = nlist_new(ctx->arena, 4);
    if (limit == 0)
        return nlist_value(l);
    if (pn == 0) {
        size_t i = 0;
        while (i < sn) {
            if (limit > 0 && (int64_t)l->n == limit - 1) {
                nlist_push(ctx->arena, l, cel_string(s + i, sn - i));
                return nlist_value(l);
            }
            size_t j = i + 1;
            while (j < sn && ((unsigned char)s[j] & 0xC0) == 0x80)
                j++;
            nlist_push(ctx->arena, l, cel_string(s + i, j - i));
            i = j;
        }
        return nlist_value(l);
    }
    size_t i = 0;
    for (;;) {
        if (limit > 0 && (int64_t)l->n == limit - 1)
            break;
        const char *p = i <= sn ? memmem(s + i, sn - i, sep, pn) : NULL;
        if (!p)
            break;
        nlist_push(ctx->arena, l, cel_string(s + i, (size_t)(p - (s + i))));
        i = (size_t)(p - s) + pn;
    }
    nlist_push(ctx->arena, l, cel_string(s + i, sn - i));
    return nlist_value(l);
}

static cel_value s_substring(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    const char *s = a[0].u.s;
    size_t sn = a[0].n;
    size_t len = cel_utf8_len(s, sn);
    int64_t st = a[1].u.i, en = n == 3 ? a[2].u.i : (int64_t)len;
    if (st < 0 || (uint64_t)st > len)
        return cel_err(ctx, "index out of range: %lld", (long long)st);
    if (n == 3) {
        if (en < 0 || (uint64_t)en > len)
            return cel_err(ctx, "index out of range: %lld", (long long)en);
        if (en < st)
            return cel_err(ctx, "invalid substring range. start: %lld, end: %lld", (long long)st, (long long)en);
    }
    long o = cp_offset(s, sn, st), e = cp_offset(s, sn, en);
    return cel_string(s + o, (size_t)(e - o));
}

static bool is_space(uint32_t c)
{
    return c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == ' ' || c == 0x85 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
           c == 0x3000;
}

static cel_value s_trim(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    UNUSED;
    const char *s = a[0].u.s;
    size_t b = 0, e = a[0].n;
    while (b < e) {
        uint32_t c;
        int k = cel_utf8_decode(s + b, e - b, &c);
        if (k <= 0 || !is_space(c))
            break;
        b += (size_t)k;
    }
    while (e > b) {
        size_t j = e - 1;
        while (j > b && ((unsigned char)s[j] & 0xC0) == 0x80)
            j--;
        uint32_t c;
        int k = cel_utf8_decode(s + j, e - j, &c);
        if (k <= 0 || !is_space(c))
            break;
        e = j;
    }
    return cel_string(s + b, e - b);
}

static cel_value s_join(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    kg_buf b = KG_BUF_INIT;
    size_t cnt = cel_list_size(&a[0]);
    for (size_t i = 0; i < cnt; i++) {
        cel_value e = cel_list_get(ctx, &a[0], i);
        if (e.kind != CEL_STRING) {
            kg_buf_free(&b);
            return cel_no_overload(ctx, "join", &e, 1);
        }
        if (i && n == 2)
            kg_buf_append(&b, a[1].u.s, a[1].n);
        kg_buf_append(&b, e.u.s, e.n);
    }
    return bufv(ctx, &b);
}

static void quote_into(kg_buf *b, const char *s, size_t n)
{
    kg_buf_putc(b, '"');
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '\a':
            kg_buf_puts(b, "\\a");
            i++;
            continue;
        case '\b':
            kg_buf_puts(b, "\\b");
            i++;
            continue;
        case '\f':
            kg_buf_puts(b, "\\f");
            i++;
            continue;
        case '\n':
            kg_buf_puts(b, "\\n");
            i++;
            continue;
        case '\r':
            kg_buf_puts(b, "\\r");
            i++;
            continue;
        case '\t':
            kg_buf_puts(b, "\\t");
            i++;
            continue;
        case '\v':
            kg_buf_puts(b, "\\v");
            i++;
            continue;
        case '\\':
            kg_buf_puts(b, "\\\\");
            i++;
            continue;
        case '"':
            kg_buf_puts(b, "\\\"");
            i++;
            continue;
        default: break;
        }
        uint32_t cp;
        int k = cel_utf8_decode(s + i, n - i, &cp);
        if (k <= 0) {
            kg_buf_puts(b, "\xef\xbf\xbd");
            i++;
            continue;
        }
        kg_buf_append(b, s + i, (size_t)k);
        i += (size_t)k;
    }
    kg_buf_putc(b, '"');
}

static cel_value s_quote(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    kg_buf b = KG_BUF_INIT;
    quote_into(&b, a[0].u.s, a[0].n);
    return bufv(ctx, &b);
}

static cel_value s_reverse(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    const char *s = a[0].u.s;
    size_t sn = a[0].n;
    char *o = kg_arena_alloc(ctx->arena, sn + 1);
    size_t w = sn;
    size_t i = 0;
    while (i < sn) {
        size_t j = i + 1;
        while (j < sn && ((unsigned char)s[j] & 0xC0) == 0x80)
            j++;
        w -= j - i;
        memcpy(o + w, s + i, j - i);
        i = j;
    }
    o[sn] = 0;
    return cel_string(o, sn);
}

/* ---- format ---- */

static bool fmt_value_str(cel_call_ctx *ctx, kg_buf *b, const cel_value *v, bool nested, cel_value *err);

static bool fmt_double_fixed(kg_buf *b, double d, int prec)
{
    if (isnan(d)) {
        kg_buf_puts(b, "NaN");
        return true;
    }
    if (isinf(d)) {
        kg_buf_puts(b, d > 0 ? "Infinity" : "-Infinity");
        return true;
    }
    kg_buf_printf(b, "%.*f", prec, d);
    return true;
}

typedef struct fmt_entry {
    const char *k, *v;
} fmt_entry;

static int entry_cmp(const void *x, const void *y)
{
    return strcmp(((const fmt_entry *)x)->k, ((const fmt_entry *)y)->k);
}

static bool fmt_value_str(cel_call_ctx *ctx, kg_buf *b, const cel_value *v, bool nested, cel_value *err)
{
    switch (v->kind) {
    case CEL_NULL: kg_buf_puts(b, "null"); return true;
    case CEL_BOOL: kg_buf_puts(b, v->u.b ? "true" : "false"); return true;
    case CEL_INT: kg_buf_printf(b, "%lld", (long long)v->u.i); return true;
    case CEL_UINT: kg_buf_printf(b, "%llu", (unsigned long long)v->u.u); return true;
    case CEL_DOUBLE:
        if (isnan(v->u.d))
            kg_buf_puts(b, "NaN");
        else if (isinf(v->u.d))
            kg_buf_puts(b, v->u.d > 0 ? "Infinity" : "-Infinity");
        else
            cel_format_double(b, v->u.d);
        return true;
    case CEL_STRING:
    case CEL_BYTES:
        (void)nested;
        kg_buf_append(b, v->u.s, v->n);
        return true;
    case CEL_TIMESTAMP: cel_format_timestamp(b, v->u.i, (int32_t)v->n); return true;
    case CEL_DURATION: cel_format_duration_secs(b, v->u.i); return true;
    case CEL_TYPE: kg_buf_puts(b, v->u.type->name); return true;
    case CEL_LIST: {
        kg_buf_putc(b, '[');
        size_t cnt = cel_list_size(v);
        for (size_t i = 0; i < cnt; i++) {
            if (i)
                kg_buf_puts(b, ", ");
            cel_value e = cel_list_get(ctx, v, i);
            if (!fmt_value_str(ctx, b, &e, true, err))
                return false;
        }
        kg_buf_putc(b, ']');
        return true;
    }
    case CEL_MAP: {
        size_t cnt = cel_map_size(v);
        fmt_entry *es = kg_arena_alloc(ctx->arena, (cnt ? cnt : 1) * sizeof *es);
        for (size_t i = 0; i < cnt; i++) {
            cel_value k, e;
            cel_map_entry(ctx, v, i, &k, &e);
            kg_buf kb = KG_BUF_INIT, vb = KG_BUF_INIT;
            bool ok = fmt_value_str(ctx, &kb, &k, true, err) && fmt_value_str(ctx, &vb, &e, true, err);
            es[i].k = kg_arena_strndup(ctx->arena, kb.data ? kb.data : "", kb.len);
            es[i].v = kg_arena_strndup(ctx->arena, vb.data ? vb.data : "", vb.len);
            kg_buf_free(&kb);
            kg_buf_free(&vb);
            if (!ok)
                return false;
        }
        qsort(es, cnt, sizeof *es, entry_cmp);
        kg_buf_putc(b, '{');
        for (size_t i = 0; i < cnt; i++) {
            if (i)
                kg_buf_puts(b, ", ");
            kg_buf_puts(b, es[i].k);
            kg_buf_puts(b, ": ");
            kg_buf_puts(b, es[i].v);
        }
        kg_buf_putc(b, '}');
        return true;
    }
    default:
        *err = cel_err(ctx, "error during formatting: no formatting function for %s", cel_type_name_of(v));
        return false;
    }
}

static void fmt_radix(kg_buf *b, uint64_t u, int base, bool upper, bool neg)
{
    char tmp[80];
    int i = 0;
    const char *dg = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    if (u == 0)
        tmp[i++] = '0';
    while (u) {
        tmp[i++] = dg[u % (unsigned)base];
        u /= (unsigned)base;
    }
    if (neg)
        kg_buf_putc(b, '-');
    while (i)
        kg_buf_putc(b, tmp[--i]);
}

static cel_value s_format(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    const char *f = a[0].u.s;
    size_t fn = a[0].n;
    size_t nargs = cel_list_size(&a[1]);
    size_t ai = 0;
    kg_buf b = KG_BUF_INIT;
    cel_value err;
    for (size_t i = 0; i < fn; i++) {
        if (f[i] != '%') {
            kg_buf_putc(&b, f[i]);
            continue;
        }
        i++;
        if (i >= fn) {
            kg_buf_free(&b);
            return cel_err(ctx, "could not parse formatting clause: unexpected end of string");
        }
        if (f[i] == '%') {
            kg_buf_putc(&b, '%');
            continue;
        }
        int prec = -1;
        if (f[i] == '.') {
            i++;
            prec = 0;
            size_t st = i;
            while (i < fn && f[i] >= '0' && f[i] <= '9') {
                prec = prec * 10 + (f[i] - '0');
                i++;
            }
            if (i == st || i >= fn || prec > 1000) {
                kg_buf_free(&b);
                return cel_err(ctx, "could not parse formatting clause: error while parsing precision");
            }
        }
        char verb = f[i];
        if (!strchr("sdfeboxX", verb)) {
            kg_buf_free(&b);
            return cel_err(ctx, "could not parse formatting clause: unrecognized formatting clause \"%c\"", verb);
        }
        if (ai >= nargs) {
            kg_buf_free(&b);
            return cel_err(ctx, "index %zu out of range", ai);
        }
        cel_value v = cel_list_get(ctx, &a[1], ai++);
        switch (verb) {
        case 's':
            if (!fmt_value_str(ctx, &b, &v, false, &err)) {
                kg_buf_free(&b);
                return cel_err(ctx,
                               "error during formatting: string clause can only be used on strings, bools, "
                               "bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given %s",
                               cel_type_name_of(&v));
            }
            break;
        case 'd':
            if (v.kind == CEL_INT)
                kg_buf_printf(&b, "%lld", (long long)v.u.i);
            else if (v.kind == CEL_UINT)
                kg_buf_printf(&b, "%llu", (unsigned long long)v.u.u);
            else if (v.kind == CEL_DOUBLE && (isnan(v.u.d) || isinf(v.u.d)))
                fmt_double_fixed(&b, v.u.d, 0);
            else {
                kg_buf_free(&b);
                return cel_err(ctx,
                               "error during formatting: decimal clause can only be used on integers, was given %s",
                               cel_type_name_of(&v));
            }
            break;
        case 'f':
        case 'e': {
            double d;
            if (v.kind == CEL_DOUBLE)
                d = v.u.d;
            else if (v.kind == CEL_INT)
                d = (double)v.u.i;
            else if (v.kind == CEL_UINT)
                d = (double)v.u.u;
            else {
                kg_buf_free(&b);
                return cel_err(ctx, "error during formatting: %s clause can only be used on doubles, was given %s",
                               verb == 'f' ? "fixed-point" : "scientific", cel_type_name_of(&v));
            }
            if (prec < 0)
                prec = 6;
            if (isnan(d) || isinf(d))
                fmt_double_fixed(&b, d, prec);
            else if (verb == 'f')
                kg_buf_printf(&b, "%.*f", prec, d);
            else
                kg_buf_printf(&b, "%.*e", prec, d);
            break;
        }
        case 'b':
            if (v.kind == CEL_INT)
                fmt_radix(&b, v.u.i < 0 ? (uint64_t)0 - (uint64_t)v.u.i : (uint64_t)v.u.i, 2, false, v.u.i < 0);
            else if (v.kind == CEL_UINT)
                fmt_radix(&b, v.u.u, 2, false, false);
            else if (v.kind == CEL_BOOL)
                kg_buf_putc(&b, v.u.b ? '1' : '0');
            else {
                kg_buf_free(&b);
                return cel_err(ctx,
                               "error during formatting: only integers and bools can be formatted as binary, "
                               "was given %s",
                               cel_type_name_of(&v));
            }
            break;
        case 'o':
            if (v.kind == CEL_INT)
                fmt_radix(&b, v.u.i < 0 ? (uint64_t)0 - (uint64_t)v.u.i : (uint64_t)v.u.i, 8, false, v.u.i < 0);
            else if (v.kind == CEL_UINT)
                fmt_radix(&b, v.u.u, 8, false, false);
            else {
                kg_buf_free(&b);
                return cel_err(ctx, "error during formatting: octal clause can only be used on integers, was given %s",
                               cel_type_name_of(&v));
            }
            break;
        case 'x':
        case 'X': {
            bool up = verb == 'X';
            if (v.kind == CEL_INT)
                fmt_radix(&b, v.u.i < 0 ? (uint64_t)0 - (uint64_t)v.u.i : (uint64_t)v.u.i, 16, up, v.u.i < 0);
            else if (v.kind == CEL_UINT)
                fmt_radix(&b, v.u.u, 16, up, false);
            else if (v.kind == CEL_STRING || v.kind == CEL_BYTES) {
                for (size_t k = 0; k < v.n; k++)
                    kg_buf_printf(&b, up ? "%02X" : "%02x", (unsigned char)v.u.s[k]);
            } else {
                kg_buf_free(&b);
                return cel_err(ctx,
                               "error during formatting: only integers, byte buffers, and strings can be "
                               "formatted as hex, was given %s",
                               cel_type_name_of(&v));
            }
            break;
        }
        }
    }
    if (ai < nargs) {
        /* cel-go ignores extra arguments */
    }
    return bufv(ctx, &b);
}

/* ---------------------------------------------------------------- lists */

static cel_value l_slice(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    int64_t s = a[1].u.i, e = a[2].u.i;
    size_t len = cel_list_size(&a[0]);
    if (s < 0 || e < 0)
        return cel_err(ctx, "cannot slice(%lld, %lld), negative indexes not supported", (long long)s, (long long)e);
    if (s > e)
        return cel_err(ctx, "cannot slice(%lld, %lld), start index must be less than or equal to end index",
                       (long long)s, (long long)e);
    if ((uint64_t)e > len)
        return cel_err(ctx, "cannot slice(%lld, %lld), list is length %zu", (long long)s, (long long)e, len);
    nlist *l = nlist_new(ctx->arena, (size_t)(e - s));
    for (int64_t i = s; i < e; i++)
        l->items[l->n++] = cel_list_get(ctx, &a[0], (size_t)i);
    return nlist_value(l);
}

static void flatten_into(cel_call_ctx *ctx, nlist *out, const cel_value *v, int64_t depth)
{
    size_t cnt = cel_list_size(v);
    for (size_t i = 0; i < cnt; i++) {
        cel_value e = cel_list_get(ctx, v, i);
        if (e.kind == CEL_LIST && depth > 0)
            flatten_into(ctx, out, &e, depth - 1);
        else
            nlist_push(ctx->arena, out, e);
    }
}

static cel_value l_flatten(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    int64_t depth = n == 2 ? a[1].u.i : 1;
    if (depth < 0)
        return cel_err(ctx, "level must be non-negative");
    nlist *l = nlist_new(ctx->arena, 4);
    flatten_into(ctx, l, &a[0], depth);
    return nlist_value(l);
}

static cel_value l_distinct(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    size_t cnt = cel_list_size(&a[0]);
    nlist *l = nlist_new(ctx->arena, cnt);
    uint64_t cmps = 0;
    for (size_t i = 0; i < cnt; i++) {
        cel_value e = cel_list_get(ctx, &a[0], i);
        bool dup = false;
        for (size_t j = 0; j < l->n && !dup; j++) {
            dup = cel_eq(ctx, &l->items[j], &e);
            /* quadratic on large lists: charge as it goes (1 per 64 comparisons) so the limit stops it */
            if ((++cmps & 63) == 0)
                cel_charge(ctx, 1);
        }
        if (!dup)
            l->items[l->n++] = e;
    }
    return nlist_value(l);
}

static cel_value l_range(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    int64_t cnt = a[0].u.i;
    if (cnt < 0)
        cnt = 0;
    if (cnt > (1 << 20))
        return cel_err(ctx, "lists.range: size %lld too large", (long long)cnt);
    nlist *l = nlist_new(ctx->arena, (size_t)cnt);
    for (int64_t i = 0; i < cnt; i++)
        l->items[l->n++] = cel_int(i);
    return nlist_value(l);
}

static cel_value l_reverse(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    size_t cnt = cel_list_size(&a[0]);
    nlist *l = nlist_new(ctx->arena, cnt);
    for (size_t i = 0; i < cnt; i++)
        l->items[l->n++] = cel_list_get(ctx, &a[0], cnt - 1 - i);
    return nlist_value(l);
}

typedef struct sort_item {
    cel_value key, val;
} sort_item;

static int sort_cmp(const void *x, const void *y)
{
    const sort_item *a = x, *b = y;
    int c = cel_compare(&a->key, &b->key);
    return c == 2 ? 0 : c;
}

static cel_value sort_impl(cel_call_ctx *ctx, const cel_value *list, const cel_value *keys)
{
    size_t cnt = cel_list_size(list);
    if (cel_list_size(keys) != cnt)
        return cel_err(ctx, "@sortByAssociatedKeys() expected a list of the same size as the associated keys list");
    sort_item *it = kg_arena_alloc(ctx->arena, (cnt ? cnt : 1) * sizeof *it);
    for (size_t i = 0; i < cnt; i++) {
        it[i].val = cel_list_get(ctx, list, i);
        it[i].key = cel_list_get(ctx, keys, i);
        if (i > 0) {
            int k = it[i].key.kind, k0 = it[0].key.kind;
            if (k != k0)
                return cel_err(ctx, "list elements must have the same type");
        }
        if (cel_compare(&it[i].key, &it[i].key) == 2 && it[i].key.kind != CEL_DOUBLE)
            return cel_err(ctx, "no such overload: sort(%s)", cel_type_name_of(&it[i].key));
    }
    /* stable insertion-merge via qsort on (key, index) */
    for (size_t i = 1; i < cnt; i++) {
        sort_item x = it[i];
        size_t j = i;
        while (j > 0 && sort_cmp(&it[j - 1], &x) > 0) {
            it[j] = it[j - 1];
            j--;
        }
        it[j] = x;
        if (cnt > 64) {
            /* fall back to qsort for big lists */
            qsort(it, cnt, sizeof *it, sort_cmp);
            break;
        }
    }
    nlist *l = nlist_new(ctx->arena, cnt);
    for (size_t i = 0; i < cnt; i++)
        l->items[l->n++] = it[i].val;
    return nlist_value(l);
}

static cel_value l_sort(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    return sort_impl(ctx, &a[0], &a[0]);
}
static cel_value l_sort_by(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    return sort_impl(ctx, &a[0], &a[1]);
}

static bool list_has(cel_call_ctx *ctx, const cel_value *l, const cel_value *x)
{
    size_t cnt = cel_list_size(l);
    for (size_t i = 0; i < cnt; i++) {
        cel_value e = cel_list_get(ctx, l, i);
        if (cel_eq(ctx, &e, x))
            return true;
    }
    return false;
}

static bool set_contains(cel_call_ctx *ctx, const cel_value *a, const cel_value *b)
{
    size_t cnt = cel_list_size(b);
    for (size_t i = 0; i < cnt; i++) {
        cel_value e = cel_list_get(ctx, b, i);
        if (!list_has(ctx, a, &e))
            return false;
    }
    return true;
}
/* Kubernetes' cost (pkg/cel/library/cost.go): 1 + n*m comparisons (equivalent: 1 + 2*n*m), charged before the
 * comparisons so the limit is enforced up front, never after a long loop. */
static void charge_sets(cel_call_ctx *ctx, const cel_value *a, uint64_t factor)
{
    uint64_t c = (uint64_t)cel_list_size(&a[0]) * cel_list_size(&a[1]);
    cel_charge(ctx, 1 + factor * c);
}
static cel_value st_contains(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    charge_sets(ctx, a, 1);
    return cel_bool(set_contains(ctx, &a[0], &a[1]));
}
static cel_value st_equivalent(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    charge_sets(ctx, a, 2);
    return cel_bool(set_contains(ctx, &a[0], &a[1]) && set_contains(ctx, &a[1], &a[0]));
}
static cel_value st_intersects(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    charge_sets(ctx, a, 1);
    size_t cnt = cel_list_size(&a[1]);
    for (size_t i = 0; i < cnt; i++) {
        cel_value e = cel_list_get(ctx, &a[1], i);
        if (list_has(ctx, &a[0], &e))
            return cel_bool(true);
    }
    return cel_bool(false);
}
static uint64_t cost_sets(cel_call_ctx *ctx, const cel_value *a, size_t n, const cel_value *r)
{
    (void)ctx;
    (void)a;
    (void)n;
    (void)r;
    return 0; /* charged by the implementation before it runs */
}
static uint64_t cost_range(cel_call_ctx *ctx, const cel_value *a, size_t n, const cel_value *r)
{
    (void)ctx;
    (void)a;
    (void)n;
    uint64_t c = r->kind == CEL_LIST ? cel_list_size(r) : 1;
    return c ? c : 1;
}
static uint64_t cost_traverse(cel_call_ctx *ctx, const cel_value *a, size_t n, const cel_value *r)
{
    (void)ctx;
    (void)n;
    (void)r;
    uint64_t c = a[0].kind == CEL_LIST ? cel_list_size(&a[0]) : 1;
    return c ? c : 1;
}

/* ---------------------------------------------------------------- math */

static bool is_num(const cel_value *v)
{
    return v->kind == CEL_INT || v->kind == CEL_UINT || v->kind == CEL_DOUBLE;
}

static cel_value m_extreme(cel_call_ctx *ctx, const cel_value *a, size_t n, bool greatest)
{
    const char *fn = greatest ? "math.greatest" : "math.least";
    const cel_value *items = a;
    size_t cnt = n;
    cel_value *tmp = NULL;
    if (n == 1 && a[0].kind == CEL_LIST) {
        cnt = cel_list_size(&a[0]);
        if (cnt == 0)
            return cel_err(ctx, "%s(list) argument must not be empty", fn);
        tmp = kg_arena_alloc(ctx->arena, cnt * sizeof *tmp);
        for (size_t i = 0; i < cnt; i++)
            tmp[i] = cel_list_get(ctx, &a[0], i);
        items = tmp;
    }
    cel_value best = items[0];
    if (!is_num(&best))
        return cel_no_overload(ctx, fn, a, n);
    for (size_t i = 1; i < cnt; i++) {
        if (!is_num(&items[i]))
            return cel_no_overload(ctx, fn, a, n);
        int c = cel_compare(&items[i], &best);
        if (c == 2) {
            if (items[i].kind == CEL_DOUBLE && isnan(items[i].u.d))
                best = items[i];
            continue;
        }
        if ((greatest && c > 0) || (!greatest && c < 0))
            best = items[i];
    }
    return best;
}
static cel_value m_greatest(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    return m_extreme(ctx, a, n, true);
}
static cel_value m_least(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    return m_extreme(ctx, a, n, false);
}

static cel_value m_ceil(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    UNUSED;
    return cel_double(ceil(a[0].u.d));
}
static cel_value m_floor(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    UNUSED;
    return cel_double(floor(a[0].u.d));
}
static cel_value m_round(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    UNUSED;
    return cel_double(round(a[0].u.d));
}
static cel_value m_trunc(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    UNUSED;
    return cel_double(trunc(a[0].u.d));
}
static cel_value m_isnan(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    UNUSED;
    return cel_bool(isnan(a[0].u.d));
}
static cel_value m_isinf(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    UNUSED;
    return cel_bool(isinf(a[0].u.d));
}
static cel_value m_isfinite(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    UNUSED;
    return cel_bool(isfinite(a[0].u.d));
}

static cel_value m_abs(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    switch (a[0].kind) {
    case CEL_INT:
        if (a[0].u.i == INT64_MIN)
            return cel_err(ctx, "integer overflow");
        return cel_int(a[0].u.i < 0 ? -a[0].u.i : a[0].u.i);
    case CEL_UINT: return a[0];
    default: return cel_double(fabs(a[0].u.d));
    }
}
static cel_value m_sign(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    UNUSED;
    switch (a[0].kind) {
    case CEL_INT: return cel_int(a[0].u.i > 0 ? 1 : a[0].u.i < 0 ? -1 : 0);
    case CEL_UINT: return cel_uint(a[0].u.u > 0 ? 1 : 0);
    default: {
        double d = a[0].u.d;
        if (isnan(d))
            return a[0];
        return cel_double(d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0);
    }
    }
}
static cel_value m_bit(cel_call_ctx *ctx, const cel_value *a, size_t n, int op)
{
    (void)ctx;
    (void)n;
    if (a[0].kind == CEL_INT) {
        int64_t x = a[0].u.i, y = a[1].u.i;
        return cel_int(op == 0 ? (x & y) : op == 1 ? (x | y) : (x ^ y));
    }
    uint64_t x = a[0].u.u, y = a[1].u.u;
    return cel_uint(op == 0 ? (x & y) : op == 1 ? (x | y) : (x ^ y));
}
static cel_value m_and(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    return m_bit(ctx, a, n, 0);
}
static cel_value m_or(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    return m_bit(ctx, a, n, 1);
}
static cel_value m_xor(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    return m_bit(ctx, a, n, 2);
}
static cel_value m_not(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    UNUSED;
    return a[0].kind == CEL_INT ? cel_int(~a[0].u.i) : cel_uint(~a[0].u.u);
}
static cel_value m_shift(cel_call_ctx *ctx, const cel_value *a, size_t n, bool left)
{
    (void)n;
    int64_t s = a[1].u.i;
    if (s < 0)
        return cel_err(ctx, "math.bitShift%s() negative offset: %lld", left ? "Left" : "Right", (long long)s);
    uint64_t x = a[0].kind == CEL_INT ? (uint64_t)a[0].u.i : a[0].u.u;
    uint64_t r = s >= 64 ? 0 : left ? x << s : x >> s;
    return a[0].kind == CEL_INT ? cel_int((int64_t)r) : cel_uint(r);
}
static cel_value m_shl(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    return m_shift(ctx, a, n, true);
}
static cel_value m_shr(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    return m_shift(ctx, a, n, false);
}

/* ---------------------------------------------------------------- encoders */

static cel_value b64_encode(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    kg_buf b = KG_BUF_INIT;
    kg_base64_encode_buf(&b, a[0].u.s, a[0].n, 0);
    return bufv(ctx, &b);
}

static cel_value b64_decode(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)n;
    const char *s = a[0].u.s;
    size_t sn = a[0].n;
    while (sn > 0 && s[sn - 1] == '=')
        sn--;
    if (a[0].n % 4 != 0 && a[0].n != sn) {
        return cel_err(ctx, "illegal base64 data at input byte %zu", sn);
    }
    size_t w = 0, bad = 0;
    char *o = kg_base64_decode(ctx->arena, s, sn, KG_BASE64_RAW, &w, &bad);
    if (!o)
        return cel_err(ctx, "illegal base64 data at input byte %zu", bad);
    return cel_bytes(o, w);
}

/* ---------------------------------------------------------------- registration */

#define M CEL_FN_MEMBER

static uint64_t cost_str01(cel_call_ctx *ctx, const cel_value *a, size_t n, const cel_value *r)
{
    (void)ctx;
    (void)n;
    (void)r;
    uint64_t c = (cel_utf8_len(a[0].u.s, a[0].n) + 9) / 10;
    return c ? c : 1;
}
static uint64_t cost_str02(cel_call_ctx *ctx, const cel_value *a, size_t n, const cel_value *r)
{
    (void)ctx;
    (void)n;
    (void)r;
    uint64_t c = (cel_utf8_len(a[0].u.s, a[0].n) * 2 + 9) / 10;
    return c ? c : 1;
}
static uint64_t cost_join(cel_call_ctx *ctx, const cel_value *a, size_t n, const cel_value *r)
{
    (void)ctx;
    (void)a;
    (void)n;
    uint64_t c = r->kind == CEL_STRING ? (cel_utf8_len(r->u.s, r->n) * 2 + 9) / 10 : 1;
    return c ? c : 1;
}

void cel_time_enable_validation(cel_env *env);

void cel_ext_register(cel_env *env)
{
    unsigned libs = env->libs;
    if (libs & CEL_LIB_STRINGS) {
        cel_env_builtin(env, "charAt", 0, M, "string, int -> string", s_char_at, NULL);
        cel_env_builtin(env, "indexOf", 0, M, "string, string -> int", s_index_of, cost_str01);
        cel_env_builtin(env, "indexOf", 0, M, "string, string, int -> int", s_index_of, cost_str01);
        cel_env_builtin(env, "lastIndexOf", 0, M, "string, string -> int", s_last_index_of, cost_str01);
        cel_env_builtin(env, "lastIndexOf", 0, M, "string, string, int -> int", s_last_index_of, cost_str01);
        cel_env_builtin(env, "lowerAscii", 0, M, "string -> string", s_lower, cost_str01);
        cel_env_builtin(env, "upperAscii", 0, M, "string -> string", s_upper, cost_str01);
        cel_env_builtin(env, "replace", 0, M, "string, string, string -> string", s_replace, cost_str02);
        cel_env_builtin(env, "replace", 0, M, "string, string, string, int -> string", s_replace, cost_str02);
        cel_env_builtin(env, "split", 0, M, "string, string -> list(string)", s_split, cost_str02);
        cel_env_builtin(env, "split", 0, M, "string, string, int -> list(string)", s_split, cost_str02);
        cel_env_builtin(env, "substring", 0, M, "string, int -> string", s_substring, cost_str01);
        cel_env_builtin(env, "substring", 0, M, "string, int, int -> string", s_substring, cost_str01);
        cel_env_builtin(env, "trim", 0, M, "string -> string", s_trim, cost_str01);
        cel_env_builtin(env, "join", 0, M, "list(string) -> string", s_join, cost_join);
        cel_env_builtin(env, "join", 0, M, "list(string), string -> string", s_join, cost_join);
        cel_env_builtin(env, "strings.quote", 0, 0, "string -> string", s_quote, cost_str01);
        cel_env_builtin(env, "format", 0, M, "string, list(dyn) -> string", s_format, cost_str01);
        cel_env_builtin(env, "reverse", 0, M, "string -> string", s_reverse, cost_str01);
    }
    if (libs & CEL_LIB_LISTS) {
        cel_env_builtin(env, "slice", 0, M, "list(A), int, int -> list(A)", l_slice, cost_traverse);
        cel_env_builtin(env, "flatten", 0, M, "list(list(A)) -> list(A)", l_flatten, cost_traverse);
        cel_env_builtin(env, "flatten", 0, M, "list(dyn), int -> list(dyn)", l_flatten, cost_traverse);
        cel_env_builtin(env, "distinct", 0, M, "list(A) -> list(A)", l_distinct, cost_traverse);
        cel_env_builtin(env, "lists.range", 0, 0, "int -> list(int)", l_range, cost_range);
        cel_env_builtin(env, "reverse", 0, M, "list(A) -> list(A)", l_reverse, cost_traverse);
        cel_env_builtin(env, "sort", 0, M, "list(A) -> list(A)", l_sort, cost_traverse);
        cel_env_builtin(env, "@sortByAssociatedKeys", 0, M, "list(A), list(B) -> list(A)", l_sort_by, cost_traverse);
    }
    if (libs & CEL_LIB_SETS) {
        cel_env_builtin(env, "sets.contains", 0, 0, "list(A), list(A) -> bool", st_contains, cost_sets);
        cel_env_builtin(env, "sets.equivalent", 0, 0, "list(A), list(A) -> bool", st_equivalent, cost_sets);
        cel_env_builtin(env, "sets.intersects", 0, 0, "list(A), list(A) -> bool", st_intersects, cost_sets);
    }
    if (libs & CEL_LIB_MATH) {
        static const char *one[] = {"int",        "uint",         "double",    "list(int)",
                                    "list(uint)", "list(double)", "list(dyn)", NULL};
        for (int i = 0; one[i]; i++) {
            char sig[64];
            snprintf(sig, sizeof sig, "%s -> %s", one[i],
                     !strncmp(one[i], "list(", 5) ? (strstr(one[i], "dyn") ? "dyn" : one[i] + 5) : one[i]);
            char *p = strchr(sig + strlen(one[i]), ')');
            if (p && strncmp(one[i], "list(", 5) == 0)
                *p = 0;
            cel_env_builtin(env, "math.greatest", 0, 0, sig, m_greatest, NULL);
            cel_env_builtin(env, "math.least", 0, 0, sig, m_least, NULL);
        }
        for (int k = 2; k <= 8; k++) {
            char sig[128] = "";
            for (int j = 0; j < k; j++)
                strcat(sig, j ? ", dyn" : "dyn");
            strcat(sig, " -> dyn");
            cel_env_builtin(env, "math.greatest", 0, 0, sig, m_greatest, NULL);
            cel_env_builtin(env, "math.least", 0, 0, sig, m_least, NULL);
        }
        cel_env_builtin(env, "math.ceil", 0, 0, "double -> double", m_ceil, NULL);
        cel_env_builtin(env, "math.floor", 0, 0, "double -> double", m_floor, NULL);
        cel_env_builtin(env, "math.round", 0, 0, "double -> double", m_round, NULL);
        cel_env_builtin(env, "math.trunc", 0, 0, "double -> double", m_trunc, NULL);
        cel_env_builtin(env, "math.isNaN", 0, 0, "double -> bool", m_isnan, NULL);
        cel_env_builtin(env, "math.isInf", 0, 0, "double -> bool", m_isinf, NULL);
        cel_env_builtin(env, "math.isFinite", 0, 0, "double -> bool", m_isfinite, NULL);
        static const char *nt[] = {"int", "uint", "double", NULL};
        for (int i = 0; nt[i]; i++) {
            char sig[64];
            snprintf(sig, sizeof sig, "%s -> %s", nt[i], nt[i]);
            cel_env_builtin(env, "math.abs", 0, 0, sig, m_abs, NULL);
            cel_env_builtin(env, "math.sign", 0, 0, sig, m_sign, NULL);
        }
        static const char *it[] = {"int", "uint", NULL};
        for (int i = 0; it[i]; i++) {
            char sig[64];
            snprintf(sig, sizeof sig, "%s, %s -> %s", it[i], it[i], it[i]);
            cel_env_builtin(env, "math.bitAnd", 0, 0, sig, m_and, NULL);
            cel_env_builtin(env, "math.bitOr", 0, 0, sig, m_or, NULL);
            cel_env_builtin(env, "math.bitXor", 0, 0, sig, m_xor, NULL);
            snprintf(sig, sizeof sig, "%s -> %s", it[i], it[i]);
            cel_env_builtin(env, "math.bitNot", 0, 0, sig, m_not, NULL);
            snprintf(sig, sizeof sig, "%s, int -> %s", it[i], it[i]);
            cel_env_builtin(env, "math.bitShiftLeft", 0, 0, sig, m_shl, NULL);
            cel_env_builtin(env, "math.bitShiftRight", 0, 0, sig, m_shr, NULL);
        }
    }
    if (libs & CEL_LIB_ENCODERS) {
        cel_env_builtin(env, "base64.encode", 0, 0, "bytes -> string", b64_encode, NULL);
        cel_env_builtin(env, "base64.decode", 0, 0, "string -> bytes", b64_decode, NULL);
    }
}
