#include "json/json.h"

#include "base/str.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ------------------------------------------------------------------------------------------------
 * Parser: recursive descent over a private, mutable copy of the input. Strings are decoded in place
 * (the decoded form is never longer than the escaped one) and NUL-terminated over their closing quote.
 * ---------------------------------------------------------------------------------------------- */

typedef struct path_seg {
    const char *key; /* NULL for array index */
    size_t idx;
} path_seg;

typedef struct parser {
    kg_arena *a;
    char *p, *end, *start;
    kg_error *err;
    unsigned flags;
    kg_json_parse_info *info;
    size_t dups_cap;
    int depth;
    bool failed;
    bool plain;     /* the last string parsed took the fast path: plain ASCII without escapes */
    path_seg *path; /* only tracked when duplicate keys are reported */
} parser;

static void describe_char(char *out, size_t n, unsigned char c)
{
    if (c == '\'')
        snprintf(out, n, "'\\''");
    else if (c == '"')
        snprintf(out, n, "'\"'");
    else if (c < 0x20 || c >= 0x7f)
        snprintf(out, n, "'\\x%02x'", c);
    else
        snprintf(out, n, "'%c'", c);
}

static kg_json *fail_char(parser *ps, const char *context)
{
    if (ps->failed)
        return NULL;
    ps->failed = true;
    if (ps->p >= ps->end) {
        kg_err_set(ps->err, KG_EINVAL, "unexpected end of JSON input");
        return NULL;
    }
    char d[16];
    describe_char(d, sizeof d, (unsigned char)*ps->p);
    kg_err_set(ps->err, KG_EINVAL, "invalid character %s %s (at offset %zu)", d, context, (size_t)(ps->p - ps->start));
    return NULL;
}

static kg_json *fail_msg(parser *ps, const char *msg)
{
    if (!ps->failed) {
        ps->failed = true;
        kg_err_set(ps->err, KG_EINVAL, "%s (at offset %zu)", msg, (size_t)(ps->p - ps->start));
    }
    return NULL;
}

static inline void skip_ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
        ps->p++;
}

static inline kg_json *new_node(kg_arena *a, kg_json_type t)
{
    kg_json *v = kg_arena_alloc(a, sizeof *v);
    memset(v, 0, sizeof *v);
    v->type = (uint8_t)t;
    return v;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool read_hex4(parser *ps, const char *q, unsigned *out)
{
    if (ps->end - q < 4)
        return false;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(q[i]);
        if (h < 0)
            return false;
        v = v * 16 + (unsigned)h;
    }
    *out = v;
    return true;
}

static char *put_utf8(char *w, unsigned cp)
{
    if (cp < 0x80) {
        *w++ = (char)cp;
    } else if (cp < 0x800) {
        *w++ = (char)(0xC0 | (cp >> 6));
        *w++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *w++ = (char)(0xE0 | (cp >> 12));
        *w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *w++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *w++ = (char)(0xF0 | (cp >> 18));
        *w++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *w++ = (char)(0x80 | (cp & 0x3F));
    }
    return w;
}

/* Length of a valid UTF-8 sequence starting at s (lead byte >= 0x80), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, const unsigned char *end)
{
    unsigned char c = s[0];
    size_t n;
    unsigned cp;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    if ((size_t)(end - s) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* bytes that end the fast path of a string scan: quote, backslash, control characters, non-ASCII */
static const unsigned char str_special[256] = {
    [0 ... 0x1f] = 1,
    ['"'] = 1,
    ['\\'] = 1,
    [0x80 ... 0xff] = 1,
};

/* Parse a string starting at the opening quote; returns the decoded start, sets *outlen. */
static char *parse_string_raw(parser *ps, size_t *outlen)
{
    char *q = ps->p + 1; /* after quote */
    char *end = ps->end;
    /* fast scan: no escapes, plain ASCII */
    char *s = q;
#ifdef __SSE2__
    {
        const __m128i qt = _mm_set1_epi8('"'), bsl = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
        while (s + 16 <= end) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
            __m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, qt), _mm_cmpeq_epi8(v, bsl));
            m = _mm_or_si128(m, _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));
            int bits = _mm_movemask_epi8(m) | _mm_movemask_epi8(v); /* high bit set: non-ASCII */
            if (bits) {
                s += __builtin_ctz((unsigned)bits);
                break;
            }
            s += 16;
        }
    }
#endif
    while (s + 4 <= end && !(str_special[(unsigned char)s[0]] | str_special[(unsigned char)s[1]] |
                             str_special[(unsigned char)s[2]] | str_special[(unsigned char)s[3]]))
        s += 4;
    while (s < end && !str_special[(unsigned char)*s])
        s++;
    if (s < end && *s == '"') {
        *s = 0;
        *outlen = (size_t)(s - q);
        ps->p = s + 1;
        ps->plain = true;
        return q;
    }
    ps->plain = false;
    char *w = s;
    while (s < end) {
        unsigned char c = (unsigned char)*s;
        if (c == '"') {
            *w = 0;
            *outlen = (size_t)(w - q);
            ps->p = s + 1;
            return q;
        }
        if (c < 0x20) {
            ps->p = s;
            fail_char(ps, "in string literal");
            return NULL;
        }
        if (c == '\\') {
            if (s + 1 >= end) {
                ps->p = end;
                fail_char(ps, "in string escape code");
                return NULL;
            }
            char e = s[1];
            s += 2;
            switch (e) {
            case '"': *w++ = '"'; break;
            case '\\': *w++ = '\\'; break;
            case '/': *w++ = '/'; break;
            case 'b': *w++ = '\b'; break;
            case 'f': *w++ = '\f'; break;
            case 'n': *w++ = '\n'; break;
            case 'r': *w++ = '\r'; break;
            case 't': *w++ = '\t'; break;
            case 'u': {
                unsigned cp;
                if (!read_hex4(ps, s, &cp)) {
                    ps->p = s;
                    fail_char(ps, "in \\u hexadecimal character escape");
                    return NULL;
                }
                s += 4;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    unsigned lo;
                    if (end - s >= 6 && s[0] == '\\' && s[1] == 'u' && read_hex4(ps, s + 2, &lo) && lo >= 0xDC00 &&
                        lo <= 0xDFFF) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        s += 6;
                    } else {
                        ps->p = s;
                        fail_msg(ps, "invalid unicode escape: lone surrogate");
                        return NULL;
                    }
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    ps->p = s;
                    fail_msg(ps, "invalid unicode escape: lone surrogate");
                    return NULL;
                }
                w = put_utf8(w, cp);
                break;
            }
            default:
                ps->p = s - 1;
                fail_char(ps, "in string escape code");
                return NULL;
            }
            continue;
        }
        if (c >= 0x80) {
            size_t n = utf8_seq((const unsigned char *)s, (const unsigned char *)end);
            if (!n) {
                ps->p = s;
                fail_msg(ps, "invalid UTF-8 in string");
                return NULL;
            }
            memmove(w, s, n);
            w += n;
            s += n;
            continue;
        }
        *w++ = (char)c;
        s++;
    }
    ps->p = end;
    fail_char(ps, "in string literal");
    return NULL;
}

static kg_json *parse_value(parser *ps);

static kg_json *parse_number(parser *ps)
{
    char *s = ps->p, *end = ps->end;
    bool neg = false, is_int = true;
    if (s < end && *s == '-')
        neg = true, s++;
    if (s >= end) {
        ps->p = s;
        return fail_char(ps, "in numeric literal");
    }
    if (*s == '0') {
        s++;
    } else if (*s >= '1' && *s <= '9') {
        while (s < end && *s >= '0' && *s <= '9')
            s++;
    } else {
        ps->p = s;
        return fail_char(ps, "in numeric literal");
    }
    if (s < end && *s == '.') {
        is_int = false;
        s++;
        if (s >= end || !(*s >= '0' && *s <= '9')) {
            ps->p = s;
            return fail_char(ps, "after decimal point in numeric literal");
        }
        while (s < end && *s >= '0' && *s <= '9')
            s++;
    }
    if (s < end && (*s == 'e' || *s == 'E')) {
        is_int = false;
        s++;
        if (s < end && (*s == '+' || *s == '-'))
            s++;
        if (s >= end || !(*s >= '0' && *s <= '9')) {
            ps->p = s;
            return fail_char(ps, "in exponent of numeric literal");
        }
        while (s < end && *s >= '0' && *s <= '9')
            s++;
    }
    char *start = ps->p;
    size_t n = (size_t)(s - start);
    ps->p = s;
    if (is_int) {
        /* exact int64 when it fits */
        const char *d = start + (neg ? 1 : 0);
        uint64_t acc = 0;
        bool overflow = false;
        for (const char *c = d; c < s; c++) {
            unsigned dig = (unsigned)(*c - '0');
            if (acc > (UINT64_MAX - dig) / 10) {
                overflow = true;
                break;
            }
            acc = acc * 10 + dig;
        }
        if (!overflow && (neg ? acc <= (uint64_t)INT64_MAX + 1 : acc <= (uint64_t)INT64_MAX)) {
            kg_json *v = new_node(ps->a, KG_JSON_INT);
            v->u.i = neg ? (int64_t)(0 - acc) : (int64_t)acc;
            return v;
        }
    }
    kg_json *v = new_node(ps->a, KG_JSON_NUMBER);
    char tmp[64];
    char *num = n < sizeof tmp ? tmp : kg_arena_alloc(ps->a, n + 1);
    memcpy(num, start, n);
    num[n] = 0;
    v->u.num.d = strtod(num, NULL);
    v->u.num.raw = kg_arena_strndup(ps->a, start, n);
    v->len = (uint32_t)n;
    return v;
}

static bool literal(parser *ps, const char *word, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (ps->p + i >= ps->end || ps->p[i] != word[i]) {
            ps->p += i;
            fail_char(ps, "in literal (expecting a valid value)");
            return false;
        }
    }
    ps->p += n;
    return true;
}

static void grow_items(kg_arena *a, kg_json *arr, uint32_t need)
{
    if (need <= arr->cap)
        return;
    uint32_t cap = arr->cap ? arr->cap * 2 : 4;
    while (cap < need)
        cap *= 2;
    arr->u.items = kg_arena_realloc(a, arr->u.items, arr->cap * sizeof(kg_json *), cap * sizeof(kg_json *));
    arr->cap = cap;
}

static void grow_members(kg_arena *a, kg_json *obj, uint32_t need)
{
    if (need <= obj->cap)
        return;
    uint32_t cap = obj->cap ? obj->cap * 2 : 4;
    while (cap < need)
        cap *= 2;
    obj->u.members =
        kg_arena_realloc(a, obj->u.members, obj->cap * sizeof(kg_json_member), cap * sizeof(kg_json_member));
    obj->cap = cap;
}

static const char *path_string(parser *ps)
{
    kg_buf b = KG_BUF_INIT;
    if (!ps->path)
        return "";
    for (int i = 1; i <= ps->depth; i++) {
        path_seg *sg = &ps->path[i];
        if (sg->key) {
            if (b.len)
                kg_buf_putc(&b, '.');
            kg_buf_puts(&b, sg->key);
        } else {
            kg_buf_printf(&b, "[%zu]", sg->idx);
        }
    }
    char *r = kg_arena_strndup(ps->a, kg_buf_cstr(&b), b.len);
    kg_buf_free(&b);
    return r;
}

static kg_json *parse_object(parser *ps)
{
    kg_json *obj = new_node(ps->a, KG_JSON_OBJECT);
    ps->p++; /* { */
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return obj;
    }
    for (;;) {
        skip_ws(ps);
        if (ps->p >= ps->end || *ps->p != '"')
            return fail_char(ps, "looking for beginning of object key string");
        size_t klen;
        char *key = parse_string_raw(ps, &klen);
        if (!key)
            return NULL;
        skip_ws(ps);
        if (ps->p >= ps->end || *ps->p != ':')
            return fail_char(ps, "after object key");
        ps->p++;
        skip_ws(ps);
        if (ps->path)
            ps->path[ps->depth].key = key;
        kg_json *val = parse_value(ps);
        if (!val)
            return NULL;
        /* duplicate detection (linear: objects are small; big ones are rare) */
        kg_json_member *dup = NULL;
        for (uint32_t i = 0; i < obj->len; i++) {
            kg_json_member *m = &obj->u.members[i];
            if (m->key_len == klen && m->key[0] == key[0] && memcmp(m->key, key, klen) == 0) {
                dup = m;
                break;
            }
        }
        if (dup) {
            if (ps->flags & KG_JSON_PARSE_DUP_ERROR) {
                ps->failed = true;
                kg_err_set(ps->err, KG_EINVAL, "duplicate field \"%s\"", path_string(ps));
                return NULL;
            }
            if ((ps->flags & KG_JSON_PARSE_DUP_REPORT) && ps->info) {
                if (ps->info->ndups == ps->dups_cap) {
                    size_t nc = ps->dups_cap ? ps->dups_cap * 2 : 4;
                    ps->info->dups = kg_arena_realloc(ps->a, (void *)ps->info->dups, ps->dups_cap * sizeof(char *),
                                                      nc * sizeof(char *));
                    ps->dups_cap = nc;
                }
                ps->info->dups[ps->info->ndups++] = path_string(ps);
            }
            dup->val = val; /* last one wins, as in Go */
        } else {
            grow_members(ps->a, obj, obj->len + 1);
            kg_json_member *m = &obj->u.members[obj->len++];
            m->key = key;
            m->key_len = (uint32_t)klen;
            m->val = val;
        }
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            return obj;
        }
        return fail_char(ps, "after object key:value pair");
    }
}

static kg_json *parse_array(parser *ps)
{
    kg_json *arr = new_node(ps->a, KG_JSON_ARRAY);
    ps->p++; /* [ */
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return arr;
    }
    for (;;) {
        skip_ws(ps);
        if (ps->path) {
            ps->path[ps->depth].key = NULL;
            ps->path[ps->depth].idx = arr->len;
        }
        kg_json *val = parse_value(ps);
        if (!val)
            return NULL;
        grow_items(ps->a, arr, arr->len + 1);
        arr->u.items[arr->len++] = val;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            return arr;
        }
        return fail_char(ps, "after array element");
    }
}

static kg_json *parse_value(parser *ps)
{
    if (ps->p >= ps->end)
        return fail_char(ps, "looking for beginning of value");
    switch (*ps->p) {
    case '{':
    case '[': {
        if (ps->depth >= KG_JSON_MAX_DEPTH)
            return fail_msg(ps, "exceeded max depth");
        ps->depth++;
        kg_json *v = *ps->p == '{' ? parse_object(ps) : parse_array(ps);
        ps->depth--;
        return v;
    }
    case '"': {
        size_t n;
        char *s = parse_string_raw(ps, &n);
        if (!s)
            return NULL;
        kg_json *v = new_node(ps->a, KG_JSON_STRING);
        v->u.s = s;
        v->len = (uint32_t)n;
        v->ascii = ps->plain;
        return v;
    }
    case 't':
        if (!literal(ps, "true", 4))
            return NULL;
        {
            kg_json *v = new_node(ps->a, KG_JSON_BOOL);
            v->b = true;
            return v;
        }
    case 'f':
        if (!literal(ps, "false", 5))
            return NULL;
        return new_node(ps->a, KG_JSON_BOOL);
    case 'n':
        if (!literal(ps, "null", 4))
            return NULL;
        return new_node(ps->a, KG_JSON_NULL);
    default:
        if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
            return parse_number(ps);
        return fail_char(ps, "looking for beginning of value");
    }
}

kg_json *kg_json_parse_ex(kg_arena *a, const char *text, size_t len, unsigned flags, kg_json_parse_info *info,
                          kg_error *err)
{
    if (len > UINT32_MAX) {
        kg_err_set(err, KG_ETOOLARGE, "JSON input too large");
        return NULL;
    }
    parser pstate, *ps = &pstate;
    ps->path = NULL;
    if (flags & (KG_JSON_PARSE_DUP_ERROR | KG_JSON_PARSE_DUP_REPORT)) {
        ps->path = malloc(sizeof(path_seg) * (KG_JSON_MAX_DEPTH + 1));
        if (!ps->path)
            abort();
    }
    ps->a = a;
    ps->start = kg_arena_alloc(a, len + 1);
    memcpy(ps->start, text, len);
    ps->start[len] = 0;
    ps->p = ps->start;
    ps->end = ps->start + len;
    ps->err = err;
    ps->flags = flags;
    ps->info = info;
    ps->dups_cap = 0;
    ps->depth = 0;
    ps->failed = false;
    if (info) {
        info->dups = NULL;
        info->ndups = 0;
    }
    skip_ws(ps);
    kg_json *v = parse_value(ps);
    if (v) {
        skip_ws(ps);
        if (ps->p < ps->end) {
            fail_char(ps, "after top-level value");
            v = NULL;
        }
    }
    free(ps->path);
    return v;
}

kg_json *kg_json_parse(kg_arena *a, const char *text, size_t len, kg_error *err)
{
    return kg_json_parse_ex(a, text, len, 0, NULL, err);
}

/* ------------------------------------------------------------------------------------------------
 * Writer
 * ---------------------------------------------------------------------------------------------- */

static const char hexdig[] = "0123456789abcdef";

static const unsigned char esc_bits[256] = {
    [0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, ['<'] = 2, ['>'] = 2, ['&'] = 2, [0xE2] = 4,
};

static inline void buf_put(kg_buf *out, const char *p, size_t n)
{
    if (out->len + n + 1 > out->cap)
        kg_buf_reserve(out, n);
    memcpy(out->data + out->len, p, n);
    out->len += n;
}

static inline void buf_putc(kg_buf *out, char c)
{
    if (out->len + 2 > out->cap)
        kg_buf_reserve(out, 1);
    out->data[out->len++] = c;
}

static inline char *copy_run(char *w, const char *src, size_t n)
{
    if (n <= 16) {
        for (size_t k = 0; k < n; k++)
            w[k] = src[k];
    } else {
        memcpy(w, src, n);
    }
    return w + n;
}

void kg_json_write_string(kg_buf *out, const char *s, size_t n, unsigned flags)
{
    /* reserve the worst case once (every byte as \u00XX), then write through a raw pointer */
    if (out->len + 6 * n + 3 > out->cap)
        kg_buf_reserve(out, 6 * n + 3);
    char *w = out->data + out->len;
    *w++ = '"';
    const unsigned char mask = (flags & KG_JSON_WRITE_NO_ESCAPE_HTML) ? 0x5 : 0x7;
    size_t run = 0, i = 0;
    while (i < n) {
#ifdef __SSE2__
        {
            const __m128i q = _mm_set1_epi8('"'), bsl = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f),
                          e2 = _mm_set1_epi8((char)0xE2), lt = _mm_set1_epi8('<'), gt = _mm_set1_epi8('>'),
                          amp = _mm_set1_epi8('&');
            bool html = mask == 0x7;
            while (i + 16 <= n) {
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
                __m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bsl));
                m = _mm_or_si128(m, _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));
                m = _mm_or_si128(m, _mm_cmpeq_epi8(v, e2));
                if (html)
                    m = _mm_or_si128(m, _mm_or_si128(_mm_cmpeq_epi8(v, lt),
                                                     _mm_or_si128(_mm_cmpeq_epi8(v, gt), _mm_cmpeq_epi8(v, amp))));
                int bits = _mm_movemask_epi8(m);
                if (bits) {
                    i += (size_t)__builtin_ctz((unsigned)bits);
                    break;
                }
                i += 16;
            }
        }
#endif
        while (i + 4 <= n && !((esc_bits[(unsigned char)s[i]] | esc_bits[(unsigned char)s[i + 1]] |
                                esc_bits[(unsigned char)s[i + 2]] | esc_bits[(unsigned char)s[i + 3]]) &
                               mask))
            i += 4;
        while (i < n && !(esc_bits[(unsigned char)s[i]] & mask))
            i++;
        if (i >= n)
            break;
        unsigned char c = (unsigned char)s[i];
        if (esc_bits[c] == 4) { /* 0xE2: escape only U+2028 / U+2029 */
            if (i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
                ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9)) {
                w = copy_run(w, s + run, i - run);
                w = copy_run(w, (unsigned char)s[i + 2] == 0xA8 ? "\\u2028" : "\\u2029", 6);
                i += 3;
                run = i;
            } else {
                i++;
            }
            continue;
        }
        w = copy_run(w, s + run, i - run);
        *w++ = '\\';
        switch (c) {
        case '"': *w++ = '"'; break;
        case '\\': *w++ = '\\'; break;
        case '\n': *w++ = 'n'; break;
        case '\r': *w++ = 'r'; break;
        case '\t': *w++ = 't'; break;
        default: *w++ = 'u', *w++ = '0', *w++ = '0'; *w++ = hexdig[c >> 4], *w++ = hexdig[c & 15];
        }
        i++;
        run = i;
    }
    w = copy_run(w, s + run, n - run);
    *w++ = '"';
    *w = 0;
    out->len = (size_t)(w - out->data);
}

static void write_double(kg_buf *out, double d)
{
    if (!isfinite(d)) {
        kg_buf_puts(out, "null");
        return;
    }
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    kg_buf_puts(out, tmp);
}

static void indent(kg_buf *out, int level)
{
    buf_putc(out, '\n');
    for (int i = 0; i < level; i++)
        buf_put(out, "    ", 4);
}

static void write_value(kg_buf *out, const kg_json *v, unsigned flags, int level)
{
    bool pretty = flags & KG_JSON_WRITE_PRETTY;
    switch (v->type) {
    case KG_JSON_NULL: buf_put(out, "null", 4); break;
    case KG_JSON_BOOL:
        if (v->b)
            buf_put(out, "true", 4);
        else
            buf_put(out, "false", 5);
        break;
    case KG_JSON_INT: {
        char tmp[24], *e = tmp + sizeof tmp, *p = e;
        uint64_t u = v->u.i < 0 ? 0 - (uint64_t)v->u.i : (uint64_t)v->u.i;
        do {
            *--p = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (v->u.i < 0)
            *--p = '-';
        buf_put(out, p, (size_t)(e - p));
        break;
    }
    case KG_JSON_NUMBER:
        if (v->u.num.raw)
            buf_put(out, v->u.num.raw, v->len);
        else
            write_double(out, v->u.num.d);
        break;
    case KG_JSON_STRING: kg_json_write_string(out, v->u.s, v->len, flags); break;
    case KG_JSON_ARRAY:
        buf_putc(out, '[');
        for (uint32_t i = 0; i < v->len; i++) {
            if (i)
                buf_putc(out, ',');
            if (pretty)
                indent(out, level + 1);
            write_value(out, v->u.items[i], flags, level + 1);
        }
        if (pretty && v->len)
            indent(out, level);
        buf_putc(out, ']');
        break;
    case KG_JSON_OBJECT:
        buf_putc(out, '{');
        for (uint32_t i = 0; i < v->len; i++) {
            if (i)
                buf_putc(out, ',');
            if (pretty)
                indent(out, level + 1);
            kg_json_write_string(out, v->u.members[i].key, v->u.members[i].key_len, flags);
            buf_putc(out, ':');
            if (pretty)
                buf_putc(out, ' ');
            write_value(out, v->u.members[i].val, flags, level + 1);
        }
        if (pretty && v->len)
            indent(out, level);
        buf_putc(out, '}');
        break;
    }
}

void kg_json_write(kg_buf *out, const kg_json *v, unsigned flags)
{
    if (!v) {
        kg_buf_puts(out, "null");
        return;
    }
    write_value(out, v, flags, 0);
    kg_buf_cstr(out);
    out->data[out->len] = 0;
}

char *kg_json_to_string(kg_arena *a, const kg_json *v, unsigned flags, size_t *len)
{
    kg_buf b = KG_BUF_INIT;
    kg_json_write(&b, v, flags);
    char *r = kg_arena_strndup(a, kg_buf_cstr(&b), b.len);
    if (len)
        *len = b.len;
    kg_buf_free(&b);
    return r;
}

/* ------------------------------------------------------------------------------------------------
 * Construction and access
 * ---------------------------------------------------------------------------------------------- */

kg_json *kg_json_new_null(kg_arena *a)
{
    return new_node(a, KG_JSON_NULL);
}

kg_json *kg_json_new_bool(kg_arena *a, bool b)
{
    kg_json *v = new_node(a, KG_JSON_BOOL);
    v->b = b;
    return v;
}

kg_json *kg_json_new_int(kg_arena *a, int64_t i)
{
    kg_json *v = new_node(a, KG_JSON_INT);
    v->u.i = i;
    return v;
}

kg_json *kg_json_new_double(kg_arena *a, double d)
{
    /* range check first: converting a double outside int64 (or NaN) to int64 is undefined */
    if (fabs(d) < 9.007199254740992e15 && d == (double)(int64_t)d)
        return kg_json_new_int(a, (int64_t)d);
    kg_json *v = new_node(a, KG_JSON_NUMBER);
    v->u.num.d = d;
    v->u.num.raw = NULL;
    return v;
}

kg_json *kg_json_new_strn(kg_arena *a, const char *s, size_t n)
{
    kg_json *v = new_node(a, KG_JSON_STRING);
    v->u.s = kg_arena_strndup(a, s, n);
    v->len = (uint32_t)n;
    return v;
}

kg_json *kg_json_new_str(kg_arena *a, const char *s)
{
    return kg_json_new_strn(a, s, strlen(s));
}

kg_json *kg_json_new_str_ref(kg_arena *a, const char *s, size_t n)
{
    kg_json *v = new_node(a, KG_JSON_STRING);
    v->u.s = s;
    v->len = (uint32_t)n;
    return v;
}

kg_json *kg_json_new_array(kg_arena *a)
{
    return new_node(a, KG_JSON_ARRAY);
}
kg_json *kg_json_new_object(kg_arena *a)
{
    return new_node(a, KG_JSON_OBJECT);
}

void kg_json_array_append(kg_arena *a, kg_json *arr, kg_json *v)
{
    grow_items(a, arr, arr->len + 1);
    arr->u.items[arr->len++] = v;
}

void kg_json_array_insert(kg_arena *a, kg_json *arr, size_t idx, kg_json *v)
{
    if (idx > arr->len)
        idx = arr->len;
    grow_items(a, arr, arr->len + 1);
    memmove(&arr->u.items[idx + 1], &arr->u.items[idx], (arr->len - idx) * sizeof(kg_json *));
    arr->u.items[idx] = v;
    arr->len++;
}

void kg_json_array_remove(kg_json *arr, size_t idx)
{
    if (idx >= arr->len)
        return;
    memmove(&arr->u.items[idx], &arr->u.items[idx + 1], (arr->len - idx - 1) * sizeof(kg_json *));
    arr->len--;
}

kg_json *kg_json_getn(const kg_json *obj, const char *key, size_t n)
{
    if (!obj || obj->type != KG_JSON_OBJECT)
        return NULL;
    if (!n) {
        for (uint32_t i = 0; i < obj->len; i++)
            if (!obj->u.members[i].key_len)
                return obj->u.members[i].val;
        return NULL;
    }
    for (uint32_t i = 0; i < obj->len; i++) {
        const kg_json_member *m = &obj->u.members[i];
        if (m->key_len == n && m->key[0] == key[0] && kg_bytes_eq(m->key, key, n))
            return m->val;
    }
    return NULL;
}

void kg_json_setn(kg_arena *a, kg_json *obj, const char *key, size_t n, kg_json *v)
{
    for (uint32_t i = 0; i < obj->len; i++) {
        kg_json_member *m = &obj->u.members[i];
        if (m->key_len == n && kg_bytes_eq(m->key, key, n)) {
            m->val = v;
            return;
        }
    }
    grow_members(a, obj, obj->len + 1);
    kg_json_member *m = &obj->u.members[obj->len++];
    m->key = kg_arena_strndup(a, key, n);
    m->key_len = (uint32_t)n;
    m->val = v;
}

bool kg_json_del(kg_json *obj, const char *key)
{
    if (!obj || obj->type != KG_JSON_OBJECT)
        return false;
    size_t n = strlen(key);
    for (uint32_t i = 0; i < obj->len; i++) {
        kg_json_member *m = &obj->u.members[i];
        if (m->key_len == n && memcmp(m->key, key, n) == 0) {
            memmove(m, m + 1, (obj->len - i - 1) * sizeof *m);
            obj->len--;
            return true;
        }
    }
    return false;
}

kg_json *kg_json_get_or_add_object(kg_arena *a, kg_json *obj, const char *key)
{
    kg_json *v = kg_json_get(obj, key);
    if (v && v->type == KG_JSON_OBJECT)
        return v;
    v = kg_json_new_object(a);
    kg_json_set(a, obj, key, v);
    return v;
}

kg_json *kg_json_path(const kg_json *v, const char *dotted)
{
    const char *p = dotted;
    while (v && *p) {
        const char *e = strchrnul(p, '.');
        v = kg_json_getn(v, p, (size_t)(e - p));
        p = *e ? e + 1 : e;
    }
    return (kg_json *)v;
}

const char *kg_json_path_str(const kg_json *v, const char *dotted)
{
    kg_json *s = kg_json_path(v, dotted);
    return s && s->type == KG_JSON_STRING ? s->u.s : NULL;
}

/* a copy of a scalar node (strings and number texts copied) */
static inline kg_json *clone_leaf(kg_arena *a, const kg_json *v)
{
    kg_json *c = kg_arena_alloc(a, sizeof *c);
    *c = *v;
    c->cap = 0;
    if (v->type == KG_JSON_STRING)
        c->u.s = kg_arena_strndup(a, v->u.s, v->len);
    else if (v->type == KG_JSON_NUMBER && v->u.num.raw)
        c->u.num.raw = kg_arena_strndup(a, v->u.num.raw, v->len);
    return c;
}

static inline bool is_container(const kg_json *v)
{
    return v->type == KG_JSON_ARRAY || v->type == KG_JSON_OBJECT;
}

/* Arrays and objects recurse; their scalar children (most nodes) are copied in the loop without a call. */
kg_json *kg_json_clone(kg_arena *a, const kg_json *v)
{
    if (!v)
        return NULL;
    if (!is_container(v))
        return clone_leaf(a, v);
    kg_json *c = kg_arena_alloc(a, sizeof *c);
    *c = *v;
    c->cap = v->len;
    if (v->type == KG_JSON_ARRAY) {
        c->u.items = v->len ? kg_arena_alloc(a, v->len * sizeof(kg_json *)) : NULL;
        for (uint32_t i = 0; i < v->len; i++) {
            const kg_json *x = v->u.items[i];
            c->u.items[i] = !x ? NULL : is_container(x) ? kg_json_clone(a, x) : clone_leaf(a, x);
        }
        return c;
    }
    c->u.members = v->len ? kg_arena_alloc(a, v->len * sizeof(kg_json_member)) : NULL;
    for (uint32_t i = 0; i < v->len; i++) {
        const kg_json_member *sm = &v->u.members[i];
        kg_json_member *dm = &c->u.members[i];
        dm->key = kg_arena_strndup(a, sm->key, sm->key_len);
        dm->key_len = sm->key_len;
        const kg_json *x = sm->val;
        dm->val = !x ? NULL : is_container(x) ? kg_json_clone(a, x) : clone_leaf(a, x);
    }
    return c;
}

kg_json *kg_json_clone_nodes(kg_arena *a, const kg_json *v)
{
    if (!v)
        return NULL;
    kg_json *c = kg_arena_alloc(a, sizeof *c);
    *c = *v;
    if (!is_container(v))
        return c;
    c->cap = v->len;
    if (v->type == KG_JSON_ARRAY) {
        c->u.items = v->len ? kg_arena_alloc(a, v->len * sizeof(kg_json *)) : NULL;
        for (uint32_t i = 0; i < v->len; i++) {
            const kg_json *x = v->u.items[i];
            kg_json *d = (kg_json *)x;
            if (x && is_container(x)) {
                d = kg_json_clone_nodes(a, x);
            } else if (x) {
                d = kg_arena_alloc(a, sizeof *d);
                *d = *x;
            }
            c->u.items[i] = d;
        }
        return c;
    }
    c->u.members = v->len ? kg_arena_alloc(a, v->len * sizeof(kg_json_member)) : NULL;
    for (uint32_t i = 0; i < v->len; i++) {
        const kg_json *x = v->u.members[i].val;
        kg_json *d = (kg_json *)x;
        if (x && is_container(x)) {
            d = kg_json_clone_nodes(a, x);
        } else if (x) {
            d = kg_arena_alloc(a, sizeof *d);
            *d = *x;
        }
        c->u.members[i].key = v->u.members[i].key;
        c->u.members[i].key_len = v->u.members[i].key_len;
        c->u.members[i].val = d;
    }
    return c;
}

bool kg_json_equal(const kg_json *x, const kg_json *y)
{
    if (x == y)
        return true;
    if (!x || !y)
        return false;
    if (kg_json_is_number(x) && kg_json_is_number(y)) {
        if (x->type == KG_JSON_INT && y->type == KG_JSON_INT)
            return x->u.i == y->u.i;
        return kg_json_number(x) == kg_json_number(y);
    }
    if (x->type != y->type)
        return false;
    switch (x->type) {
    case KG_JSON_NULL: return true;
    case KG_JSON_BOOL: return x->b == y->b;
    case KG_JSON_STRING: return x->len == y->len && memcmp(x->u.s, y->u.s, x->len) == 0;
    case KG_JSON_ARRAY:
        if (x->len != y->len)
            return false;
        for (uint32_t i = 0; i < x->len; i++)
            if (!kg_json_equal(x->u.items[i], y->u.items[i]))
                return false;
        return true;
    case KG_JSON_OBJECT:
        if (x->len != y->len)
            return false;
        for (uint32_t i = 0; i < x->len; i++) {
            const kg_json_member *m = &x->u.members[i];
            /* fast path: same position */
            const kg_json *other = (i < y->len && y->u.members[i].key_len == m->key_len &&
                                    memcmp(y->u.members[i].key, m->key, m->key_len) == 0)
                                       ? y->u.members[i].val
                                       : kg_json_getn(y, m->key, m->key_len);
            if (!other || !kg_json_equal(m->val, other))
                return false;
        }
        return true;
    default: return false;
    }
}

const char *kg_json_type_name(kg_json_type t)
{
    switch (t) {
    case KG_JSON_NULL: return "null";
    case KG_JSON_BOOL: return "boolean";
    case KG_JSON_INT:
    case KG_JSON_NUMBER: return "number";
    case KG_JSON_STRING: return "string";
    case KG_JSON_ARRAY: return "array";
    case KG_JSON_OBJECT: return "object";
    }
    return "unknown";
}
