/* Kubernetes protobuf wire decoder: runtime.Unknown envelope + schema-driven object decoding into kg_json.
 *
 * The schema tables (protobuf_types_*.c) give, per message, the field number -> JSON name / type mapping of the
 * upstream generated.proto files. The mapping reproduces what Go does (proto.Unmarshal into the typed struct, then
 * json.Marshal): Go value fields are always on the wire, so a zero scalar is dropped unless the table marks the
 * field KG_PB_KEEP (a pointer field or one without omitempty); messages, repeated fields and maps appear when present.
 * Everything is bounds-checked; nesting is limited to KG_PB_MAX_DEPTH; every allocation is in the caller's arena. */
#include "api/protobuf.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "api/protobuf_internal.h"
#include "base/hash.h"
#include "base/base64.h"

#define KG_PB_MAX_DEPTH 100
#define KG_PB_MAP_LINEAR 32 /* map entries inserted with a linear duplicate check below this size */

static const uint8_t magic[4] = {'k', '8', 's', 0};

typedef struct pb_ctx {
    kg_arena *a;
    kg_error *err;
} pb_ctx;

typedef struct pb_buf {
    const uint8_t *p;
    const uint8_t *end;
} pb_buf;

/* ---- wire primitives ---- */

static bool truncated(pb_ctx *c)
{
    return kg_err_set(c->err, KG_EINVAL, "proto: unexpected EOF");
}

static bool rd_varint(pb_ctx *c, pb_buf *b, uint64_t *out)
{
    uint64_t v = 0;
    *out = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (b->p >= b->end)
            return truncated(c);
        uint8_t byte = *b->p++;
        if (shift == 63 && byte > 1)
            return kg_err_set(c->err, KG_EINVAL, "proto: integer overflow");
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *out = v;
            return true;
        }
    }
    return kg_err_set(c->err, KG_EINVAL, "proto: integer overflow");
}

static bool rd_bytes(pb_ctx *c, pb_buf *b, pb_buf *out)
{
    uint64_t n;
    if (!rd_varint(c, b, &n))
        return false;
    if (n > (uint64_t)(b->end - b->p)) {
        if ((int64_t)n < 0)
            return kg_err_set(c->err, KG_EINVAL, "proto: negative length found during unmarshaling");
        return truncated(c);
    }
    out->p = b->p;
    out->end = b->p + n;
    b->p += n;
    return true;
}

static bool rd_fixed(pb_ctx *c, pb_buf *b, unsigned n, uint64_t *out)
{
    if ((size_t)(b->end - b->p) < n)
        return truncated(c);
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)b->p[i] << (8 * i);
    b->p += n;
    *out = v;
    return true;
}

static bool skip_field(pb_ctx *c, pb_buf *b, uint32_t num, unsigned wt, int depth);

static bool skip_group(pb_ctx *c, pb_buf *b, uint32_t num, int depth)
{
    if (depth > KG_PB_MAX_DEPTH)
        return kg_err_set(c->err, KG_EINVAL, "proto: exceeded maximum nesting depth %d", KG_PB_MAX_DEPTH);
    while (b->p < b->end) {
        uint64_t key;
        if (!rd_varint(c, b, &key))
            return false;
        unsigned wt = (unsigned)(key & 7);
        uint32_t n = (uint32_t)(key >> 3);
        if (wt == 4) {
            if (n != num)
                return kg_err_set(c->err, KG_EINVAL, "proto: mismatched end group");
            return true;
        }
        if (!skip_field(c, b, n, wt, depth + 1))
            return false;
    }
    return truncated(c);
}

static bool skip_field(pb_ctx *c, pb_buf *b, uint32_t num, unsigned wt, int depth)
{
    uint64_t v = 0;
    pb_buf sub;
    switch (wt) {
    case 0: return rd_varint(c, b, &v);
    case 1: return rd_fixed(c, b, 8, &v);
    case 2: return rd_bytes(c, b, &sub);
    case 3: return skip_group(c, b, num, depth);
    case 5: return rd_fixed(c, b, 4, &v);
    case 4: return kg_err_set(c->err, KG_EINVAL, "proto: unexpected end group");
    default: return kg_err_set(c->err, KG_EINVAL, "proto: illegal wireType %u", wt);
    }
}

/* Read the next key into num and wt. Field number 0 is illegal. */
static bool rd_key(pb_ctx *c, pb_buf *b, const char *msg, uint32_t *num, unsigned *wt)
{
    *num = 0;
    *wt = 0;
    uint64_t key;
    if (!rd_varint(c, b, &key))
        return false;
    *wt = (unsigned)(key & 7);
    uint64_t n = key >> 3;
    if (n == 0 || n > 0x1fffffff)
        return kg_err_set(c->err, KG_EINVAL, "proto: %s: illegal tag %" PRIu64 " (wire type %u)", msg, n, *wt);
    *num = (uint32_t)n;
    return true;
}

/* ---- value conversions ---- */

/* A JSON string from possibly invalid UTF-8: invalid bytes become U+FFFD, as Go's encoding/json writes them. */
static kg_json *new_utf8(kg_arena *a, const uint8_t *s, size_t n)
{
    size_t i = 0;
    bool ok = true;
    while (i < n) {
        uint8_t ch = s[i];
        if (ch < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint32_t cp;
        if (ch >= 0xc2 && ch <= 0xdf)
            len = 2, cp = ch & 0x1f;
        else if (ch >= 0xe0 && ch <= 0xef)
            len = 3, cp = ch & 0x0f;
        else if (ch >= 0xf0 && ch <= 0xf4)
            len = 4, cp = ch & 0x07;
        else {
            ok = false;
            break;
        }
        if (i + len > n) {
            ok = false;
            break;
        }
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80) {
                ok = false;
                break;
            }
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if (!ok)
            break;
        if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
            (len == 4 && (cp < 0x10000 || cp > 0x10ffff))) {
            ok = false;
            break;
        }
        i += len;
    }
    if (ok)
        return kg_json_new_strn(a, (const char *)s, n);
    /* slow path: rebuild with replacements */
    char *out = kg_arena_alloc(a, n * 3 + 1);
    size_t o = 0;
    i = 0;
    while (i < n) {
        uint8_t ch = s[i];
        size_t len = 0;
        uint32_t cp = 0;
        if (ch < 0x80) {
            out[o++] = (char)ch;
            i++;
            continue;
        }
        if (ch >= 0xc2 && ch <= 0xdf)
            len = 2, cp = ch & 0x1f;
        else if (ch >= 0xe0 && ch <= 0xef)
            len = 3, cp = ch & 0x0f;
        else if (ch >= 0xf0 && ch <= 0xf4)
            len = 4, cp = ch & 0x07;
        bool good = len && i + len <= n;
        for (size_t k = 1; good && k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                good = false;
            else
                cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if (good && ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
                     (len == 4 && (cp < 0x10000 || cp > 0x10ffff))))
            good = false;
        if (good) {
            memcpy(out + o, s + i, len);
            o += len;
            i += len;
        } else {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    out[o] = 0;
    return kg_json_new_str_ref(a, out, o);
}

static kg_json *new_base64(kg_arena *a, const uint8_t *s, size_t n)
{
    size_t len = 0;
    char *out = kg_base64_encode(a, s, n, 0, &len);
    return kg_json_new_str_ref(a, out, len);
}

/* Proleptic Gregorian date from days since 1970-01-01 (H. Hinnant's civil_from_days). */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yy + (*m <= 2);
}

/* RFC 3339 in UTC; micro adds 6 fractional digits (metav1.MicroTime). */
static kg_json *new_time(pb_ctx *c, int64_t secs, int32_t nanos, bool micro)
{
    /* keep the arithmetic in range: years 0..9999 only (Go's RFC 3339 form has 4-digit years) */
    if (secs < -62167219200LL || secs > 253402300799LL) {
        kg_err_set(c->err, KG_EINVAL, "proto: timestamp %" PRId64 " is outside the years 0000-9999", secs);
        return NULL;
    }
    int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
    int64_t rem = secs - days * 86400;
    int64_t y;
    unsigned mo, d;
    civil_from_days(days, &y, &mo, &d);
    char buf[48];
    if (micro) {
        if (nanos < 0 || nanos > 999999999) {
            kg_err_set(c->err, KG_EINVAL, "proto: timestamp nanos %" PRId32 " out of range", nanos);
            return NULL;
        }
        snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%06dZ", (int)y, mo, d, (int)(rem / 3600),
                 (int)(rem / 60 % 60), (int)(rem % 60), (int)(nanos / 1000));
    } else {
        snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", (int)y, mo, d, (int)(rem / 3600),
                 (int)(rem / 60 % 60), (int)(rem % 60));
    }
    return kg_json_new_str(c->a, buf);
}

/* Go's time.Duration.String(). */
kg_json *kg_api_pb_duration(kg_arena *a, int64_t d)
{
    char buf[40];
    size_t w = sizeof buf;
    uint64_t u = (uint64_t)d;
    bool neg = d < 0;
    if (neg)
        u = -u;
    if (u < 1000000000ULL) {
        /* sub-second: ns, µs or ms with a fraction */
        int prec = 0;
        w--;
        buf[w] = 's';
        w--;
        if (u == 0)
            return kg_json_new_str(a, "0s");
        if (u < 1000ULL) {
            prec = 0;
            buf[w] = 'n';
        } else if (u < 1000000ULL) {
            prec = 3;
            w--; /* U+00B5 MICRO SIGN in UTF-8 */
            memcpy(&buf[w], "\xc2\xb5", 2);
        } else {
            prec = 6;
            buf[w] = 'm';
        }
        /* fraction */
        bool print = false;
        for (int i = 0; i < prec; i++) {
            unsigned digit = (unsigned)(u % 10);
            print = print || digit != 0;
            if (print) {
                w--;
                buf[w] = (char)('0' + digit);
            }
            u /= 10;
        }
        if (print) {
            w--;
            buf[w] = '.';
        }
        if (u == 0) {
            w--;
            buf[w] = '0';
        }
        while (u > 0) {
            w--;
            buf[w] = (char)('0' + u % 10);
            u /= 10;
        }
    } else {
        w--;
        buf[w] = 's';
        /* seconds fraction (9 digits) */
        bool print = false;
        for (int i = 0; i < 9; i++) {
            unsigned digit = (unsigned)(u % 10);
            print = print || digit != 0;
            if (print) {
                w--;
                buf[w] = (char)('0' + digit);
            }
            u /= 10;
        }
        if (print) {
            w--;
            buf[w] = '.';
        }
        /* integer seconds % 60 */
        uint64_t s = u % 60;
        u /= 60;
        if (s == 0) {
            w--;
            buf[w] = '0';
        }
        while (s > 0) {
            w--;
            buf[w] = (char)('0' + s % 10);
            s /= 10;
        }
        if (u > 0) {
            w--;
            buf[w] = 'm';
            uint64_t m = u % 60;
            u /= 60;
            if (m == 0) {
                w--;
                buf[w] = '0';
            }
            while (m > 0) {
                w--;
                buf[w] = (char)('0' + m % 10);
                m /= 10;
            }
            if (u > 0) {
                w--;
                buf[w] = 'h';
                while (u > 0) {
                    w--;
                    buf[w] = (char)('0' + u % 10);
                    u /= 10;
                }
            }
        }
    }
    if (neg) {
        w--;
        buf[w] = '-';
    }
    return kg_json_new_strn(a, &buf[w], sizeof buf - w);
}

/* ---- well-known small messages ---- */

static kg_json *dec_time(pb_ctx *c, pb_buf b, bool micro)
{
    if (b.p == b.end)
        return kg_json_new_null(c->a); /* zero time: Go marshals it as an empty message, JSON null */
    int64_t secs = 0;
    int32_t nanos = 0;
    while (b.p < b.end) {
        uint32_t num;
        unsigned wt;
        uint64_t v;
        if (!rd_key(c, &b, "Timestamp", &num, &wt))
            return NULL;
        if ((num == 1 || num == 2) && wt == 0) {
            if (!rd_varint(c, &b, &v))
                return NULL;
            if (num == 1)
                secs = (int64_t)v;
            else
                nanos = (int32_t)v;
        } else if (num == 1 || num == 2) {
            kg_err_set(c->err, KG_EINVAL, "proto: wrong wireType = %u for field %s", wt,
                       num == 1 ? "Seconds" : "Nanos");
            return NULL;
        } else if (!skip_field(c, &b, num, wt, 0))
            return NULL;
    }
    /* metav1.Time keeps whole seconds only (its Unmarshal drops nanos); MicroTime keeps them */
    return new_time(c, secs, micro ? nanos : 0, micro);
}

static kg_json *dec_duration(pb_ctx *c, pb_buf b)
{
    int64_t d = 0;
    while (b.p < b.end) {
        uint32_t num;
        unsigned wt;
        uint64_t v;
        if (!rd_key(c, &b, "Duration", &num, &wt))
            return NULL;
        if (num == 1) {
            if (wt != 0) {
                kg_err_set(c->err, KG_EINVAL, "proto: wrong wireType = %u for field Duration", wt);
                return NULL;
            }
            if (!rd_varint(c, &b, &v))
                return NULL;
            d = (int64_t)v;
        } else if (!skip_field(c, &b, num, wt, 0))
            return NULL;
    }
    return kg_api_pb_duration(c->a, d);
}

static kg_json *dec_intstr(pb_ctx *c, pb_buf b)
{
    int64_t type = 0;
    int32_t ival = 0;
    pb_buf sval = {b.p, b.p};
    while (b.p < b.end) {
        uint32_t num;
        unsigned wt;
        uint64_t v;
        if (!rd_key(c, &b, "IntOrString", &num, &wt))
            return NULL;
        if (num == 1 || num == 2) {
            if (wt != 0) {
                kg_err_set(c->err, KG_EINVAL, "proto: wrong wireType = %u for field %s", wt,
                           num == 1 ? "Type" : "IntVal");
                return NULL;
            }
            if (!rd_varint(c, &b, &v))
                return NULL;
            if (num == 1)
                type = (int64_t)v;
            else
                ival = (int32_t)v;
        } else if (num == 3) {
            if (wt != 2) {
                kg_err_set(c->err, KG_EINVAL, "proto: wrong wireType = %u for field StrVal", wt);
                return NULL;
            }
            if (!rd_bytes(c, &b, &sval))
                return NULL;
        } else if (!skip_field(c, &b, num, wt, 0))
            return NULL;
    }
    if (type == 0)
        return kg_json_new_int(c->a, ival);
    if (type == 1)
        return new_utf8(c->a, sval.p, (size_t)(sval.end - sval.p));
    kg_err_set(c->err, KG_EINVAL, "impossible IntOrString.Type");
    return NULL;
}

/* A message holding one string/bytes field 1 (resource.Quantity, runtime.RawExtension). */
static bool dec_field1_bytes(pb_ctx *c, pb_buf b, const char *what, pb_buf *out, bool *seen)
{
    *seen = false;
    out->p = out->end = b.p;
    while (b.p < b.end) {
        uint32_t num;
        unsigned wt;
        if (!rd_key(c, &b, what, &num, &wt))
            return false;
        if (num == 1) {
            if (wt != 2)
                return kg_err_set(c->err, KG_EINVAL, "proto: wrong wireType = %u for field %s", wt, what);
            if (!rd_bytes(c, &b, out))
                return false;
            *seen = true;
        } else if (!skip_field(c, &b, num, wt, 0))
            return false;
    }
    return true;
}

static kg_json *decode_envelope(pb_ctx *c, pb_buf b, int depth);

static kg_json *dec_raw(pb_ctx *c, pb_buf b, int depth)
{
    pb_buf raw;
    bool seen;
    if (!dec_field1_bytes(c, b, "Raw", &raw, &seen))
        return NULL;
    size_t n = (size_t)(raw.end - raw.p);
    if (!seen)
        return kg_json_new_null(c->a);
    if (n >= 4 && !memcmp(raw.p, magic, 4)) /* an embedded protobuf object */
        return decode_envelope(c, (pb_buf){raw.p + 4, raw.end}, depth + 1);
    kg_error jerr;
    kg_json *v = kg_json_parse(c->a, (const char *)raw.p, n, &jerr);
    if (!v)
        kg_err_set(c->err, KG_EINVAL, "proto: RawExtension: %s", jerr.msg);
    return v;
}

/* ---- schema-driven decoding ---- */

static bool decode_msg(pb_ctx *c, const kg_pb_msg *m, pb_buf b, kg_json *obj, int depth);

static const kg_pb_field *find_field(const kg_pb_msg *m, uint32_t num)
{
    for (uint32_t i = 0; i < m->nfields; i++)
        if (m->fields[i].num == num)
            return &m->fields[i];
    return NULL;
}

static bool is_scalar_varint(uint8_t kind)
{
    return kind == KG_PB_INT32 || kind == KG_PB_INT64 || kind == KG_PB_BOOL;
}

static unsigned wire_type_of(uint8_t kind)
{
    if (is_scalar_varint(kind))
        return 0;
    if (kind == KG_PB_DOUBLE)
        return 1;
    return 2;
}

static bool wrong_wt(pb_ctx *c, const kg_pb_msg *m, const kg_pb_field *f, unsigned wt)
{
    return kg_err_set(c->err, KG_EINVAL, "proto: wrong wireType = %u for field %s.%s", wt, m->name,
                      f->json ? f->json : "(inline)");
}

/* Decode one scalar element from b (varint/fixed already selected by the caller's wire type). *zero reports a zero
 * value so the caller can drop it. */
static kg_json *dec_scalar(pb_ctx *c, uint8_t kind, pb_buf *b, bool *zero)
{
    uint64_t v = 0;
    switch (kind) {
    case KG_PB_INT32:
        if (!rd_varint(c, b, &v))
            return NULL;
        *zero = (int32_t)v == 0;
        return kg_json_new_int(c->a, (int32_t)v);
    case KG_PB_INT64:
        if (!rd_varint(c, b, &v))
            return NULL;
        *zero = v == 0;
        return kg_json_new_int(c->a, (int64_t)v);
    case KG_PB_BOOL:
        if (!rd_varint(c, b, &v))
            return NULL;
        *zero = v == 0;
        return kg_json_new_bool(c->a, v != 0);
    case KG_PB_DOUBLE: {
        if (!rd_fixed(c, b, 8, &v))
            return NULL;
        double d;
        memcpy(&d, &v, sizeof d);
        *zero = d == 0;
        return kg_json_new_double(c->a, d);
    }
    default: kg_err_set(c->err, KG_EINTERNAL, "proto: bad scalar kind %u", kind); return NULL;
    }
}

/* Decode a length-delimited value of `kind` (strings, bytes, messages, well-known types). For KG_PB_MSG, into (may
 * be NULL) is an existing object to merge into, as proto merges repeated occurrences of a singular message. */
static kg_json *dec_len_value(pb_ctx *c, uint8_t kind, const kg_pb_msg *sub, pb_buf v, kg_json *into, int depth,
                              bool *zero)
{
    size_t n = (size_t)(v.end - v.p);
    *zero = false;
    switch (kind) {
    case KG_PB_STRING: *zero = n == 0; return new_utf8(c->a, v.p, n);
    case KG_PB_BYTES: *zero = n == 0; return new_base64(c->a, v.p, n);
    case KG_PB_MSG: {
        kg_json *o = into ? into : kg_json_new_object(c->a);
        if (!decode_msg(c, sub, v, o, depth + 1))
            return NULL;
        return o;
    }
    case KG_PB_TIME:
    case KG_PB_MICROTIME: return dec_time(c, v, kind == KG_PB_MICROTIME);
    case KG_PB_DURATION: return dec_duration(c, v);
    case KG_PB_INTSTR: return dec_intstr(c, v);
    case KG_PB_QUANTITY: {
        pb_buf s;
        bool seen;
        if (!dec_field1_bytes(c, v, "Quantity", &s, &seen))
            return NULL;
        return new_utf8(c->a, s.p, (size_t)(s.end - s.p));
    }
    case KG_PB_RAW: return dec_raw(c, v, depth);
    case KG_PB_STRINGS: {
        kg_json *arr = kg_json_new_array(c->a);
        while (v.p < v.end) {
            uint32_t num;
            unsigned wt;
            if (!rd_key(c, &v, "ExtraValue", &num, &wt))
                return NULL;
            if (num == 1) {
                pb_buf s;
                if (wt != 2) {
                    kg_err_set(c->err, KG_EINVAL, "proto: wrong wireType = %u for field Items", wt);
                    return NULL;
                }
                if (!rd_bytes(c, &v, &s))
                    return NULL;
                kg_json_array_append(c->a, arr, new_utf8(c->a, s.p, (size_t)(s.end - s.p)));
            } else if (!skip_field(c, &v, num, wt, depth))
                return NULL;
        }
        return arr;
    }
    default: kg_err_set(c->err, KG_EINTERNAL, "proto: bad kind %u", kind); return NULL;
    }
}

/* Append a map member; small maps replace duplicates in place (last wins, as Go's map does), big ones are
 * appended and deduplicated once at the end of the message (dedupe_maps). */
static void map_put(kg_arena *a, kg_json *obj, const uint8_t *k, size_t kn, kg_json *v)
{
    if (obj->len < KG_PB_MAP_LINEAR) {
        kg_json_setn(a, obj, (const char *)k, kn, v);
        return;
    }
    if (obj->len == obj->cap) {
        uint32_t cap = obj->cap ? obj->cap * 2 : 4;
        obj->u.members =
            kg_arena_realloc(a, obj->u.members, obj->cap * sizeof(kg_json_member), cap * sizeof(kg_json_member));
        obj->cap = cap;
    }
    kg_json_member *m = &obj->u.members[obj->len++];
    m->key = kg_arena_strndup(a, (const char *)k, kn);
    m->key_len = (uint32_t)kn;
    m->val = v;
}

static uint64_t hash_key(const char *s, size_t n)
{
    return kg_fnv1a64(s, n);
}

/* Remove duplicate keys of a big map object: the first position is kept with the last value. O(n). */
static void dedupe_map(kg_arena *a, kg_json *obj)
{
    if (!obj || obj->type != KG_JSON_OBJECT || obj->len <= KG_PB_MAP_LINEAR)
        return;
    size_t cap = 1;
    while (cap < (size_t)obj->len * 2)
        cap <<= 1;
    uint32_t *slots = kg_arena_calloc(a, cap * sizeof *slots); /* index+1 into the compacted members */
    uint32_t out = 0;
    for (uint32_t i = 0; i < obj->len; i++) {
        kg_json_member m = obj->u.members[i];
        size_t h = (size_t)hash_key(m.key, m.key_len) & (cap - 1);
        for (;;) {
            uint32_t s = slots[h];
            if (!s) {
                obj->u.members[out] = m;
                slots[h] = ++out;
                break;
            }
            kg_json_member *e = &obj->u.members[s - 1];
            if (e->key_len == m.key_len && !memcmp(e->key, m.key, m.key_len)) {
                e->val = m.val;
                break;
            }
            h = (h + 1) & (cap - 1);
        }
    }
    obj->len = out;
}

static bool dec_map_entry(pb_ctx *c, const kg_pb_msg *m, const kg_pb_field *f, pb_buf e, kg_json *obj, int depth)
{
    pb_buf key = {e.p, e.p};
    kg_json *val = NULL;
    while (e.p < e.end) {
        uint32_t num;
        unsigned wt;
        if (!rd_key(c, &e, "map entry", &num, &wt))
            return false;
        if (num == 1) {
            if (wt != 2)
                return wrong_wt(c, m, f, wt);
            if (!rd_bytes(c, &e, &key))
                return false;
        } else if (num == 2) {
            bool zero;
            if (wt != wire_type_of(f->kind))
                return wrong_wt(c, m, f, wt);
            if (wt == 2) {
                pb_buf v;
                if (!rd_bytes(c, &e, &v))
                    return false;
                val = dec_len_value(c, f->kind, f->msg, v, NULL, depth, &zero);
            } else
                val = dec_scalar(c, f->kind, &e, &zero);
            if (!val)
                return false;
        } else if (!skip_field(c, &e, num, wt, depth))
            return false;
    }
    if (!val) { /* value absent: Go stores the zero value */
        switch (f->kind) {
        case KG_PB_STRING:
        case KG_PB_BYTES:
        case KG_PB_QUANTITY:
            val = f->kind == KG_PB_QUANTITY ? kg_json_new_str(c->a, "0") : kg_json_new_str(c->a, "");
            break;
        case KG_PB_MSG: val = kg_json_new_object(c->a); break;
        case KG_PB_STRINGS:
            val = kg_json_new_null(c->a); /* a nil ExtraValue */
            break;
        case KG_PB_BOOL: val = kg_json_new_bool(c->a, false); break;
        default: val = kg_json_new_int(c->a, 0); break;
        }
    }
    kg_json *map = kg_json_get(obj, f->json);
    if (!map || map->type != KG_JSON_OBJECT) {
        map = kg_json_new_object(c->a);
        kg_json_set(c->a, obj, f->json, map);
    }
    /* map keys are Go strings: sanitize invalid UTF-8 the same way as values */
    kg_json *k = new_utf8(c->a, key.p, (size_t)(key.end - key.p));
    map_put(c->a, map, (const uint8_t *)k->u.s, k->len, val);
    return true;
}

static kg_json *get_array(pb_ctx *c, kg_json *obj, const char *name)
{
    kg_json *arr = kg_json_get(obj, name);
    if (!arr || arr->type != KG_JSON_ARRAY) {
        arr = kg_json_new_array(c->a);
        kg_json_set(c->a, obj, name, arr);
    }
    return arr;
}

static bool decode_msg(pb_ctx *c, const kg_pb_msg *m, pb_buf b, kg_json *obj, int depth)
{
    if (depth > KG_PB_MAX_DEPTH)
        return kg_err_set(c->err, KG_EINVAL, "proto: exceeded maximum nesting depth %d", KG_PB_MAX_DEPTH);
    bool has_big_map = false;
    while (b.p < b.end) {
        uint32_t num;
        unsigned wt;
        if (!rd_key(c, &b, m->name, &num, &wt))
            return false;
        const kg_pb_field *f = find_field(m, num);
        if (!f) {
            if (!skip_field(c, &b, num, wt, depth))
                return false;
            continue;
        }
        if (f->flags & KG_PB_MAP) {
            pb_buf e;
            if (wt != 2)
                return wrong_wt(c, m, f, wt);
            if (!rd_bytes(c, &b, &e) || !dec_map_entry(c, m, f, e, obj, depth + 1))
                return false;
            has_big_map = true;
            continue;
        }
        if (f->kind == KG_PB_INLINE) {
            pb_buf v;
            if (wt != 2)
                return wrong_wt(c, m, f, wt);
            if (!rd_bytes(c, &b, &v) || !decode_msg(c, f->msg, v, obj, depth + 1))
                return false;
            continue;
        }
        unsigned want = wire_type_of(f->kind);
        bool zero = false;
        if (f->flags & KG_PB_REPEATED) {
            kg_json *arr = get_array(c, obj, f->json);
            if (want != 2 && wt == 2) { /* packed scalars */
                pb_buf v;
                if (!rd_bytes(c, &b, &v))
                    return false;
                while (v.p < v.end) {
                    kg_json *x = dec_scalar(c, f->kind, &v, &zero);
                    if (!x)
                        return false;
                    kg_json_array_append(c->a, arr, x);
                }
                continue;
            }
            if (wt != want)
                return wrong_wt(c, m, f, wt);
            kg_json *x;
            if (want == 2) {
                pb_buf v;
                if (!rd_bytes(c, &b, &v))
                    return false;
                x = dec_len_value(c, f->kind, f->msg, v, NULL, depth, &zero);
            } else
                x = dec_scalar(c, f->kind, &b, &zero);
            if (!x)
                return false;
            kg_json_array_append(c->a, arr, x);
            continue;
        }
        if (wt != want)
            return wrong_wt(c, m, f, wt);
        kg_json *x;
        if (want == 2) {
            pb_buf v;
            if (!rd_bytes(c, &b, &v))
                return false;
            kg_json *into = NULL;
            if (f->kind == KG_PB_MSG) {
                into = kg_json_get(obj, f->json);
                if (into && into->type != KG_JSON_OBJECT)
                    into = NULL;
            }
            x = dec_len_value(c, f->kind, f->msg, v, into, depth, &zero);
        } else
            x = dec_scalar(c, f->kind, &b, &zero);
        if (!x)
            return false;
        if (zero && !(f->flags & KG_PB_KEEP))
            kg_json_del(obj, f->json); /* a Go value field at its zero value: omitempty drops it */
        else
            kg_json_set(c->a, obj, f->json, x);
    }
    if (has_big_map)
        for (uint32_t i = 0; i < m->nfields; i++)
            if (m->fields[i].flags & KG_PB_MAP)
                dedupe_map(c->a, kg_json_get(obj, m->fields[i].json));
    return true;
}

/* ---- envelope ---- */

static const kg_pb_type *find_type(const char *api_version, size_t avn, const char *kind, size_t kn)
{
    for (size_t i = 0; i < kg_api_pb_ntypes; i++) {
        const kg_pb_type *t = &kg_api_pb_types[i];
        if (strlen(t->kind) != kn || memcmp(t->kind, kind, kn))
            continue;
        if (!t->api_version || (strlen(t->api_version) == avn && !memcmp(t->api_version, api_version, avn)))
            return t;
    }
    return NULL;
}

bool kg_protobuf_supports(const char *api_version, const char *kind)
{
    if (!api_version || !kind)
        return false;
    return find_type(api_version, strlen(api_version), kind, strlen(kind)) != NULL;
}

/* runtime.Unknown {typeMeta=1 {apiVersion=1, kind=2}, raw=2, contentEncoding=3, contentType=4} */
static kg_json *decode_envelope(pb_ctx *c, pb_buf b, int depth)
{
    if (depth > 8) {
        kg_err_set(c->err, KG_EINVAL, "proto: too many nested RawExtension objects");
        return NULL;
    }
    pb_buf api = {b.p, b.p}, kind = {b.p, b.p}, raw = {b.p, b.p}, enc = {b.p, b.p}, ctype = {b.p, b.p};
    while (b.p < b.end) {
        uint32_t num;
        unsigned wt;
        if (!rd_key(c, &b, "Unknown", &num, &wt))
            return NULL;
        if (num >= 1 && num <= 4) {
            static const char *const names[] = {"", "TypeMeta", "Raw", "ContentEncoding", "ContentType"};
            pb_buf v;
            if (wt != 2) {
                kg_err_set(c->err, KG_EINVAL, "proto: wrong wireType = %u for field %s", wt, names[num]);
                return NULL;
            }
            if (!rd_bytes(c, &b, &v))
                return NULL;
            if (num == 1) {
                while (v.p < v.end) {
                    uint32_t tn;
                    unsigned twt;
                    if (!rd_key(c, &v, "TypeMeta", &tn, &twt))
                        return NULL;
                    if (tn == 1 || tn == 2) {
                        if (twt != 2) {
                            kg_err_set(c->err, KG_EINVAL, "proto: wrong wireType = %u for field %s", twt,
                                       tn == 1 ? "APIVersion" : "Kind");
                            return NULL;
                        }
                        if (!rd_bytes(c, &v, tn == 1 ? &api : &kind))
                            return NULL;
                    } else if (!skip_field(c, &v, tn, twt, 0))
                        return NULL;
                }
            } else if (num == 2)
                raw = v;
            else if (num == 3)
                enc = v;
            else
                ctype = v;
        } else if (!skip_field(c, &b, num, wt, 0))
            return NULL;
    }
    (void)ctype;
    size_t kn = (size_t)(kind.end - kind.p), avn = (size_t)(api.end - api.p);
    if (enc.end != enc.p) {
        kg_err_set(c->err, KG_EINVAL, "protobuf content encoding \"%.*s\" is not supported", (int)(enc.end - enc.p),
                   (const char *)enc.p);
        return NULL;
    }
    if (kn == 0) {
        kg_err_set(c->err, KG_EINVAL, "Object 'Kind' is missing in the protobuf envelope");
        return NULL;
    }
    const kg_pb_type *t = find_type((const char *)api.p, avn, (const char *)kind.p, kn);
    if (!t) {
        kg_err_set(c->err, KG_EINVAL, "no kind \"%.*s\" is registered for version \"%.*s\" in the protobuf decoder",
                   (int)(kn > 200 ? 200 : kn), (const char *)kind.p, (int)(avn > 200 ? 200 : avn), (const char *)api.p);
        return NULL;
    }
    kg_json *obj = kg_json_new_object(c->a);
    kg_json_set(c->a, obj, "apiVersion", new_utf8(c->a, api.p, avn));
    kg_json_set(c->a, obj, "kind", new_utf8(c->a, kind.p, kn));
    if (!decode_msg(c, t->msg, raw, obj, depth)) {
        kg_err_prefix(c->err, "decoding %.*s", (int)kn, (const char *)kind.p);
        return NULL;
    }
    return obj;
}

kg_json *kg_protobuf_decode(kg_arena *a, const void *body, size_t len, kg_error *err)
{
    pb_ctx c = {a, err};
    const uint8_t *p = body;
    if (!p || len < 4 || memcmp(p, magic, 4)) {
        kg_err_set(err, KG_EINVAL,
                   "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
        return NULL;
    }
    return decode_envelope(&c, (pb_buf){p + 4, p + len}, 0);
}
