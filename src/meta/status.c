/* Kubernetes Status errors and field error lists with upstream message formats. */
#include "meta/status.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *nz(const char *s)
{
    return s ? s : "";
}
static char *dup_or_null(kg_arena *a, const char *s)
{
    return s ? kg_arena_strdup(a, s) : NULL;
}

/* ---- Go strconv.Quote ---------------------------------------------------------------------------------------- */

/* Decode one UTF-8 sequence; returns its length or 0 when invalid (Go's RuneError for that byte). */
static size_t utf8_decode(const unsigned char *p, size_t n, uint32_t *r)
{
    unsigned c = p[0];
    if (c < 0x80) {
        *r = c;
        return 1;
    }
    size_t len;
    uint32_t min;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2, min = 0x80, *r = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3, min = 0x800, *r = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4, min = 0x10000, *r = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        *r = (*r << 6) | (p[i] & 0x3f);
    }
    if (*r < min || *r > 0x10ffff || (*r >= 0xd800 && *r <= 0xdfff))
        return 0;
    return len;
}

/* Approximation of Go's unicode.IsPrint for non-ASCII runes: excludes C1 controls, non-ASCII spaces, format
 * characters, line/paragraph separators, private use and noncharacters. */
static bool rune_printable(uint32_t r)
{
    if (r < 0xa1)
        return false; /* C1 controls and U+00A0 */
    if (r == 0xad || r == 0x1680 || r == 0x180e || (r >= 0x2000 && r <= 0x200f) || (r >= 0x2028 && r <= 0x202f) ||
        (r >= 0x205f && r <= 0x206f) || r == 0x3000 || r == 0xfeff || (r >= 0xfff9 && r <= 0xfffb) ||
        (r >= 0xe000 && r <= 0xf8ff) || r >= 0xf0000 || (r & 0xfffe) == 0xfffe || (r >= 0xfdd0 && r <= 0xfdef) ||
        r == 0x61c || (r >= 0x600 && r <= 0x605) || r == 0x6dd || r == 0x70f || (r >= 0xe0000 && r <= 0xe007f))
        return false;
    return true;
}

void kg_meta_quote(kg_buf *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    kg_buf_putc(out, '"');
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        if (c >= 0x20 && c < 0x7f) {
            if (c == '"' || c == '\\')
                kg_buf_putc(out, '\\');
            kg_buf_putc(out, (char)c);
            i++;
            continue;
        }
        if (c < 0x80) {
            switch (c) {
            case '\a': kg_buf_puts(out, "\\a"); break;
            case '\b': kg_buf_puts(out, "\\b"); break;
            case '\f': kg_buf_puts(out, "\\f"); break;
            case '\n': kg_buf_puts(out, "\\n"); break;
            case '\r': kg_buf_puts(out, "\\r"); break;
            case '\t': kg_buf_puts(out, "\\t"); break;
            case '\v': kg_buf_puts(out, "\\v"); break;
            default: kg_buf_printf(out, "\\x%02x", c); break;
            }
            i++;
            continue;
        }
        uint32_t r;
        size_t len = utf8_decode(p + i, n - i, &r);
        if (len == 0) {
            kg_buf_printf(out, "\\x%02x", c);
            i++;
            continue;
        }
        if (rune_printable(r))
            kg_buf_append(out, p + i, len);
        else if (r < 0x10000)
            kg_buf_printf(out, "\\u%04" PRIx32, r);
        else
            kg_buf_printf(out, "\\U%08" PRIx32, r);
        i += len;
    }
    kg_buf_putc(out, '"');
}

/* ---- bounded echo of client input ----------------------------------------------------------------------------- */

/* How much of s is echoed: all of it up to KG_ECHO_MAX_BYTES, else that many bytes cut back to a UTF-8 boundary. */
static size_t echo_cut(const char *s, size_t n)
{
    if (n <= KG_ECHO_MAX_BYTES)
        return n;
    size_t cut = KG_ECHO_MAX_BYTES;
    for (int i = 0; i < 3 && cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80; i++)
        cut--;
    return cut;
}

static void echo_mark(kg_buf *out, size_t n)
{
    kg_buf_printf(out, "... (truncated from %zu bytes)", n);
}

void kg_meta_quote_echo(kg_buf *out, const char *s, size_t n)
{
    size_t cut = echo_cut(s, n);
    kg_meta_quote(out, s, cut);
    if (cut < n)
        echo_mark(out, n);
}

void kg_meta_echo(kg_buf *out, const char *s, size_t n)
{
    size_t cut = echo_cut(s, n);
    kg_buf_append(out, s, cut);
    if (cut < n)
        echo_mark(out, n);
}

char *kg_meta_echo_a(kg_arena *a, const char *s)
{
    size_t n = strlen(nz(s));
    if (n <= KG_ECHO_MAX_BYTES)
        return kg_arena_strndup(a, nz(s), n);
    kg_buf b = KG_BUF_INIT;
    kg_meta_echo(&b, s, n);
    char *r = kg_arena_strndup(a, b.data, b.len);
    kg_buf_free(&b);
    return r;
}

char *kg_meta_quote_a(kg_arena *a, const char *s)
{
    kg_buf b = KG_BUF_INIT;
    kg_meta_quote(&b, nz(s), strlen(nz(s)));
    char *r = kg_arena_strndup(a, b.data, b.len);
    kg_buf_free(&b);
    return r;
}

/* ---- field errors --------------------------------------------------------------------------------------------- */

const char *kg_field_error_type_string(kg_field_error_type t)
{
    switch (t) {
    case KG_FIELD_NOT_FOUND: return "Not found";
    case KG_FIELD_REQUIRED: return "Required value";
    case KG_FIELD_DUPLICATE: return "Duplicate value";
    case KG_FIELD_INVALID: return "Invalid value";
    case KG_FIELD_NOT_SUPPORTED: return "Unsupported value";
    case KG_FIELD_FORBIDDEN: return "Forbidden";
    case KG_FIELD_TOO_LONG: return "Too long";
    case KG_FIELD_TOO_MANY: return "Too many";
    case KG_FIELD_INTERNAL: return "Internal error";
    case KG_FIELD_TYPE_INVALID: return "Invalid value";
    }
    return "Invalid value";
}

const char *kg_field_error_cause_type(kg_field_error_type t)
{
    switch (t) {
    case KG_FIELD_NOT_FOUND: return "FieldValueNotFound";
    case KG_FIELD_REQUIRED: return "FieldValueRequired";
    case KG_FIELD_DUPLICATE: return "FieldValueDuplicate";
    case KG_FIELD_INVALID: return "FieldValueInvalid";
    case KG_FIELD_NOT_SUPPORTED: return "FieldValueNotSupported";
    case KG_FIELD_FORBIDDEN: return "FieldValueForbidden";
    case KG_FIELD_TOO_LONG: return "FieldValueTooLong";
    case KG_FIELD_TOO_MANY: return "FieldValueTooMany";
    case KG_FIELD_INTERNAL: return "InternalError";
    case KG_FIELD_TYPE_INVALID: return "FieldValueTypeInvalid";
    }
    return "FieldValueInvalid";
}

kg_field_error *kg_field_errors_add(kg_arena *a, kg_field_errors *l, const kg_field_error *e)
{
    if (l->len == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 4;
        l->items = kg_arena_realloc(a, l->items, l->cap * sizeof(*l->items), ncap * sizeof(*l->items));
        l->cap = ncap;
    }
    kg_field_error *d = &l->items[l->len++];
    *d = *e;
    d->field = kg_arena_strdup(a, nz(e->field));
    d->bv_str = dup_or_null(a, e->bv_str);
    d->detail = dup_or_null(a, e->detail);
    return d;
}

void kg_field_errors_extend(kg_arena *a, kg_field_errors *dst, const kg_field_errors *src)
{
    for (size_t i = 0; src && i < src->len; i++)
        kg_field_errors_add(a, dst, &src->items[i]);
}

static kg_field_error *add(kg_arena *a, kg_field_errors *l, kg_field_error_type t, const char *field,
                           kg_bad_value_kind k, const char *s, int64_t i, const char *detail)
{
    kg_field_error e = {.type = t, .field = field, .bv_kind = k, .bv_str = s, .bv_int = i, .detail = detail};
    return kg_field_errors_add(a, l, &e);
}

kg_field_error *kg_field_required(kg_arena *a, kg_field_errors *l, const char *field, const char *detail)
{
    return add(a, l, KG_FIELD_REQUIRED, field, KG_BV_OMIT, NULL, 0, detail);
}

kg_field_error *kg_field_forbidden(kg_arena *a, kg_field_errors *l, const char *field, const char *detail)
{
    return add(a, l, KG_FIELD_FORBIDDEN, field, KG_BV_OMIT, NULL, 0, detail);
}

kg_field_error *kg_field_invalid(kg_arena *a, kg_field_errors *l, const char *field, const char *value,
                                 const char *detail)
{
    return add(a, l, KG_FIELD_INVALID, field, value ? KG_BV_STRING : KG_BV_NULL, value, 0, detail);
}

kg_field_error *kg_field_invalid_int(kg_arena *a, kg_field_errors *l, const char *field, int64_t value,
                                     const char *detail)
{
    return add(a, l, KG_FIELD_INVALID, field, KG_BV_INT, NULL, value, detail);
}

kg_field_error *kg_field_invalid_bool(kg_arena *a, kg_field_errors *l, const char *field, bool value,
                                      const char *detail)
{
    kg_field_error *e = add(a, l, KG_FIELD_INVALID, field, KG_BV_BOOL, NULL, 0, detail);
    e->bv_bool = value;
    return e;
}

kg_field_error *kg_field_invalid_raw(kg_arena *a, kg_field_errors *l, const char *field, const char *raw,
                                     const char *detail)
{
    return add(a, l, KG_FIELD_INVALID, field, raw ? KG_BV_RAW : KG_BV_NULL, raw, 0, detail);
}

kg_field_error *kg_field_type_invalid(kg_arena *a, kg_field_errors *l, const char *field, const char *value,
                                      const char *detail)
{
    return add(a, l, KG_FIELD_TYPE_INVALID, field, value ? KG_BV_STRING : KG_BV_NULL, value, 0, detail);
}

kg_field_error *kg_field_not_supported(kg_arena *a, kg_field_errors *l, const char *field, const char *value,
                                       const char *const *valid, size_t nvalid)
{
    char *detail = NULL;
    if (nvalid > 0) {
        kg_buf b = KG_BUF_INIT;
        kg_buf_puts(&b, "supported values: ");
        for (size_t i = 0; i < nvalid; i++) {
            if (i)
                kg_buf_puts(&b, ", ");
            kg_meta_quote(&b, nz(valid[i]), strlen(nz(valid[i])));
        }
        detail = kg_arena_strndup(a, b.data, b.len);
        kg_buf_free(&b);
    }
    return add(a, l, KG_FIELD_NOT_SUPPORTED, field, value ? KG_BV_STRING : KG_BV_NULL, value, 0, detail);
}

kg_field_error *kg_field_duplicate(kg_arena *a, kg_field_errors *l, const char *field, const char *value)
{
    return add(a, l, KG_FIELD_DUPLICATE, field, value ? KG_BV_STRING : KG_BV_NULL, value, 0, NULL);
}

kg_field_error *kg_field_not_found(kg_arena *a, kg_field_errors *l, const char *field, const char *value)
{
    return add(a, l, KG_FIELD_NOT_FOUND, field, value ? KG_BV_STRING : KG_BV_NULL, value, 0, NULL);
}

kg_field_error *kg_field_too_long(kg_arena *a, kg_field_errors *l, const char *field, int64_t max_len)
{
    char buf[64];
    if (max_len >= 0)
        snprintf(buf, sizeof buf, "may not be more than %" PRId64 " %s", max_len, max_len == 1 ? "byte" : "bytes");
    else
        snprintf(buf, sizeof buf, "value is too long");
    return add(a, l, KG_FIELD_TOO_LONG, field, KG_BV_OMIT, NULL, 0, buf);
}

kg_field_error *kg_field_too_many(kg_arena *a, kg_field_errors *l, const char *field, int64_t actual, int64_t max)
{
    char buf[64];
    if (max >= 0)
        snprintf(buf, sizeof buf, "must have at most %" PRId64 " %s", max, max == 1 ? "item" : "items");
    else
        snprintf(buf, sizeof buf, "has too many items");
    return add(a, l, KG_FIELD_TOO_MANY, field, actual >= 0 ? KG_BV_INT : KG_BV_OMIT, NULL, actual, buf);
}

kg_field_error *kg_field_internal(kg_arena *a, kg_field_errors *l, const char *field, const char *detail)
{
    return add(a, l, KG_FIELD_INTERNAL, field, KG_BV_OMIT, NULL, 0, detail);
}

static void write_body(kg_buf *b, const kg_field_error *e)
{
    kg_buf_puts(b, kg_field_error_type_string(e->type));
    bool show = !(e->type == KG_FIELD_REQUIRED || e->type == KG_FIELD_FORBIDDEN || e->type == KG_FIELD_TOO_LONG ||
                  e->type == KG_FIELD_INTERNAL || e->bv_kind == KG_BV_OMIT);
    if (show) {
        kg_buf_puts(b, ": ");
        switch (e->bv_kind) {
        case KG_BV_NULL: kg_buf_puts(b, "\"null\""); break;
        case KG_BV_STRING: kg_meta_quote_echo(b, nz(e->bv_str), strlen(nz(e->bv_str))); break;
        case KG_BV_INT: kg_buf_printf(b, "%" PRId64, e->bv_int); break;
        case KG_BV_BOOL: kg_buf_puts(b, e->bv_bool ? "true" : "false"); break;
        case KG_BV_RAW: kg_meta_echo(b, nz(e->bv_str), strlen(nz(e->bv_str))); break;
        case KG_BV_OMIT: break;
        }
    }
    if (e->detail && e->detail[0]) {
        kg_buf_puts(b, ": ");
        kg_buf_puts(b, e->detail);
    }
}

char *kg_field_error_body(kg_arena *a, const kg_field_error *e)
{
    kg_buf b = KG_BUF_INIT;
    write_body(&b, e);
    char *r = kg_arena_strndup(a, kg_buf_cstr(&b), b.len);
    kg_buf_free(&b);
    return r;
}

static void write_error(kg_buf *b, const kg_field_error *e)
{
    kg_meta_echo(b, nz(e->field), strlen(nz(e->field))); /* paths hold map keys: client input */
    kg_buf_puts(b, ": ");
    write_body(b, e);
}

char *kg_field_error_string(kg_arena *a, const kg_field_error *e)
{
    kg_buf b = KG_BUF_INIT;
    write_error(&b, e);
    char *r = kg_arena_strndup(a, kg_buf_cstr(&b), b.len);
    kg_buf_free(&b);
    return r;
}

char *kg_field_errors_aggregate(kg_arena *a, const kg_field_errors *l)
{
    if (!l || l->len == 0)
        return NULL;
    const char **msgs = kg_arena_alloc(a, l->len * sizeof(char *));
    for (size_t i = 0; i < l->len; i++)
        msgs[i] = kg_field_error_string(a, &l->items[i]);
    return kg_errors_aggregate(a, msgs, l->len);
}

typedef struct agg_item {
    const char *msg;
    size_t idx;
} agg_item;

static int agg_cmp(const void *x, const void *y)
{
    const agg_item *a = x, *b = y;
    int c = strcmp(a->msg, b->msg);
    return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

char *kg_errors_aggregate(kg_arena *a, const char *const *in, size_t count)
{
    if (count == 0)
        return NULL;
    /* drop duplicate messages keeping the first occurrence, in O(n log n) */
    agg_item *items = kg_arena_alloc(a, count * sizeof(agg_item));
    bool *keep = kg_arena_alloc(a, count * sizeof(bool));
    for (size_t i = 0; i < count; i++) {
        items[i] = (agg_item){in[i] ? in[i] : "", i};
        keep[i] = true;
    }
    qsort(items, count, sizeof(agg_item), agg_cmp);
    for (size_t i = 1; i < count; i++)
        if (strcmp(items[i].msg, items[i - 1].msg) == 0)
            keep[items[i].idx] = false;
    const char **msgs = kg_arena_alloc(a, count * sizeof(char *));
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (keep[i])
            msgs[n++] = in[i] ? in[i] : "";
    if (n == 1)
        return kg_arena_strdup(a, msgs[0]);
    kg_buf b = KG_BUF_INIT;
    kg_buf_putc(&b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            kg_buf_puts(&b, ", ");
        kg_buf_puts(&b, msgs[i]);
    }
    kg_buf_putc(&b, ']');
    char *r = kg_arena_strndup(a, b.data, b.len);
    kg_buf_free(&b);
    return r;
}

/* ---- Status --------------------------------------------------------------------------------------------------- */

kg_status *kg_status_new(kg_arena *a, int32_t code, const char *reason, const char *message)
{
    kg_status *st = kg_arena_calloc(a, sizeof *st);
    st->status = "Failure";
    st->code = code;
    st->reason = kg_arena_strdup(a, nz(reason));
    st->message = kg_arena_strdup(a, nz(message));
    return st;
}

kg_status *kg_status_newf(kg_arena *a, int32_t code, const char *reason, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kg_buf b = KG_BUF_INIT;
    kg_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    kg_status *st = kg_status_new(a, code, reason, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return st;
}

static void set_details(kg_arena *a, kg_status *st, const char *group, const char *kind, const char *name)
{
    st->has_details = true;
    st->details.group = kg_arena_strdup(a, nz(group));
    st->details.kind = kg_arena_strdup(a, nz(kind));
    st->details.name = kg_meta_echo_a(a, name);
}

void kg_status_add_cause(kg_arena *a, kg_status *st, const char *reason, const char *message, const char *field)
{
    st->has_details = true;
    kg_status_details *d = &st->details;
    d->causes = kg_arena_realloc(a, d->causes, d->ncauses * sizeof(*d->causes), (d->ncauses + 1) * sizeof(*d->causes));
    d->causes[d->ncauses++] = (kg_status_cause){kg_arena_strdup(a, nz(reason)), kg_arena_strdup(a, nz(message)),
                                                kg_arena_strdup(a, nz(field))};
}

static kg_status *gr_name_status(kg_arena *a, int32_t code, const char *reason, kg_gr gr, const char *name,
                                 const char *fmt_tail)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, kg_gr_string(a, gr));
    kg_buf_putc(&b, ' ');
    kg_meta_quote_echo(&b, nz(name), strlen(nz(name)));
    kg_buf_puts(&b, fmt_tail);
    kg_status *st = kg_status_new(a, code, reason, kg_buf_cstr(&b));
    kg_buf_free(&b);
    set_details(a, st, gr.group, gr.resource, name);
    return st;
}

kg_status *kg_status_not_found(kg_arena *a, kg_gr gr, const char *name)
{
    return gr_name_status(a, 404, KG_REASON_NOT_FOUND, gr, name, " not found");
}

kg_status *kg_status_already_exists(kg_arena *a, kg_gr gr, const char *name)
{
    return gr_name_status(a, 409, KG_REASON_ALREADY_EXISTS, gr, name, " already exists");
}

kg_status *kg_status_generate_name_conflict(kg_arena *a, kg_gr gr, const char *name, int32_t retry_after)
{
    kg_status *st = gr_name_status(a, 409, KG_REASON_ALREADY_EXISTS, gr, name,
                                   " already exists, the server was not able to generate a unique name for the object");
    st->details.retry_after_seconds = retry_after;
    return st;
}

kg_status *kg_status_conflict(kg_arena *a, kg_gr gr, const char *name, const char *msg)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "Operation cannot be fulfilled on ");
    kg_buf_puts(&b, kg_gr_string(a, gr));
    kg_buf_putc(&b, ' ');
    kg_meta_quote_echo(&b, nz(name), strlen(nz(name)));
    kg_buf_puts(&b, ": ");
    kg_buf_puts(&b, msg ? msg : KG_OPTIMISTIC_LOCK_MSG);
    kg_status *st = kg_status_new(a, 409, KG_REASON_CONFLICT, kg_buf_cstr(&b));
    kg_buf_free(&b);
    set_details(a, st, gr.group, gr.resource, name);
    return st;
}

kg_status *kg_status_invalid(kg_arena *a, kg_gk gk, const char *name, const kg_field_errors *errs)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, kg_gk_string(a, gk));
    kg_buf_putc(&b, ' ');
    kg_meta_quote_echo(&b, nz(name), strlen(nz(name)));
    kg_buf_puts(&b, " is invalid");
    char *agg = kg_field_errors_aggregate(a, errs);
    if (agg) {
        kg_buf_puts(&b, ": ");
        kg_buf_puts(&b, agg);
    }
    kg_status *st = kg_status_new(a, 422, KG_REASON_INVALID, kg_buf_cstr(&b));
    kg_buf_free(&b);
    set_details(a, st, gk.group, gk.kind, name);
    for (size_t i = 0; errs && i < errs->len; i++) {
        const kg_field_error *e = &errs->items[i];
        kg_status_add_cause(a, st, kg_field_error_cause_type(e->type), kg_field_error_body(a, e),
                            kg_meta_echo_a(a, e->field));
    }
    return st;
}

kg_status *kg_status_forbidden(kg_arena *a, kg_gr gr, const char *name, const char *msg)
{
    kg_status *st;
    if (nz(gr.group)[0] == '\0' && nz(gr.resource)[0] == '\0')
        st = kg_status_newf(a, 403, KG_REASON_FORBIDDEN, "forbidden: %s", nz(msg));
    else if (nz(name)[0] == '\0')
        st = kg_status_newf(a, 403, KG_REASON_FORBIDDEN, "%s is forbidden: %s", kg_gr_string(a, gr), nz(msg));
    else {
        kg_buf b = KG_BUF_INIT;
        kg_buf_puts(&b, kg_gr_string(a, gr));
        kg_buf_putc(&b, ' ');
        kg_meta_quote_echo(&b, name, strlen(name));
        kg_buf_puts(&b, " is forbidden: ");
        kg_buf_puts(&b, nz(msg));
        st = kg_status_new(a, 403, KG_REASON_FORBIDDEN, kg_buf_cstr(&b));
        kg_buf_free(&b);
    }
    set_details(a, st, gr.group, gr.resource, name);
    return st;
}

kg_status *kg_status_bad_request(kg_arena *a, const char *msg)
{
    return kg_status_new(a, 400, KG_REASON_BAD_REQUEST, msg);
}

kg_status *kg_status_method_not_supported(kg_arena *a, kg_gr gr, const char *action)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, nz(action));
    kg_buf_puts(&b, " is not supported on resources of kind ");
    const char *grs = kg_gr_string(a, gr);
    kg_meta_quote(&b, grs, strlen(grs));
    kg_status *st = kg_status_new(a, 405, KG_REASON_METHOD_NOT_ALLOWED, kg_buf_cstr(&b));
    kg_buf_free(&b);
    set_details(a, st, gr.group, gr.resource, "");
    return st;
}

static char *join(kg_arena *a, const char *const *v, size_t n)
{
    kg_buf b = KG_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (i)
            kg_buf_puts(&b, ", ");
        kg_buf_puts(&b, nz(v[i]));
    }
    char *r = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return r;
}

kg_status *kg_status_unsupported_media_type(kg_arena *a, const char *const *accepted, size_t n)
{
    return kg_status_newf(a, 415, KG_REASON_UNSUPPORTED_MEDIA_TYPE,
                          "the body of the request was in an unknown format - accepted media types include: %s",
                          join(a, accepted, n));
}

kg_status *kg_status_not_acceptable(kg_arena *a, const char *const *accepted, size_t n)
{
    return kg_status_newf(a, 406, KG_REASON_NOT_ACCEPTABLE, "only the following media types are accepted: %s",
                          join(a, accepted, n));
}

kg_status *kg_status_request_entity_too_large(kg_arena *a, const char *msg)
{
    return kg_status_newf(a, 413, KG_REASON_REQUEST_ENTITY_TOO_LARGE, "Request entity too large: %s", nz(msg));
}

kg_status *kg_status_gone(kg_arena *a, const char *msg)
{
    return kg_status_new(a, 410, KG_REASON_GONE, msg);
}

kg_status *kg_status_resource_expired(kg_arena *a, const char *msg)
{
    return kg_status_new(a, 410, KG_REASON_EXPIRED, msg);
}

kg_status *kg_status_too_old_resource_version(kg_arena *a, uint64_t requested, uint64_t oldest)
{
    return kg_status_newf(a, 410, KG_REASON_EXPIRED, "too old resource version: %" PRIu64 " (%" PRIu64 ")", requested,
                          oldest);
}

kg_status *kg_status_too_many_requests(kg_arena *a, const char *msg, int32_t retry_after)
{
    kg_status *st = kg_status_new(a, 429, KG_REASON_TOO_MANY_REQUESTS, msg);
    st->has_details = true; /* upstream always sets Details, so "details":{} appears even without a retry hint */
    st->details.retry_after_seconds = retry_after;
    return st;
}

kg_status *kg_status_too_many_requests_error(kg_arena *a, const char *msg)
{
    return kg_status_newf(a, 429, KG_REASON_TOO_MANY_REQUESTS, "Too many requests: %s", nz(msg));
}

kg_status *kg_status_admission_forbidden(kg_arena *a, kg_gr gr, const char *attr_name, const kg_json *obj,
                                         const char *msg)
{
    const char *name = attr_name;
    if (!name || !name[0]) {
        const kg_json *meta = kg_json_get(obj, "metadata");
        if (!obj) {
            name = "Unknown";
        } else if (!kg_json_is(meta, KG_JSON_OBJECT)) {
            name = "Unknown/errorGettingName";
        } else {
            name = kg_json_get_str(meta, "name");
            if (!name || !name[0])
                name = kg_json_get_str(meta, "generateName");
            if (!name || !name[0])
                name = "Unknown";
        }
    }
    return kg_status_forbidden(a, gr, name, msg);
}

kg_status *kg_status_internal(kg_arena *a, const char *msg)
{
    kg_status *st = kg_status_newf(a, 500, KG_REASON_INTERNAL_ERROR, "Internal error occurred: %s", nz(msg));
    kg_status_add_cause(a, st, "", msg, "");
    return st;
}

kg_status *kg_status_timeout(kg_arena *a, const char *msg, int32_t retry_after)
{
    kg_status *st = kg_status_newf(a, 504, KG_REASON_TIMEOUT, "Timeout: %s", nz(msg));
    st->has_details = true; /* upstream always sets Details, so "details":{} appears even without a retry hint */
    st->details.retry_after_seconds = retry_after;
    return st;
}

kg_status *kg_status_server_timeout(kg_arena *a, kg_gr gr, const char *operation, int32_t retry_after)
{
    kg_status *st = kg_status_newf(a, 500, KG_REASON_SERVER_TIMEOUT,
                                   "The %s operation against %s could not be completed at this time, please try again.",
                                   nz(operation), kg_gr_string(a, gr));
    set_details(a, st, gr.group, gr.resource, operation);
    st->details.retry_after_seconds = retry_after;
    return st;
}

kg_status *kg_status_unauthorized(kg_arena *a, const char *msg)
{
    return kg_status_new(a, 401, KG_REASON_UNAUTHORIZED, (msg && msg[0]) ? msg : "not authorized");
}

kg_status *kg_status_service_unavailable(kg_arena *a, const char *msg)
{
    return kg_status_new(a, 503, KG_REASON_SERVICE_UNAVAILABLE, msg);
}

kg_status *kg_status_success_delete(kg_arena *a, kg_gr gr, const char *name, const char *uid)
{
    kg_status *st = kg_arena_calloc(a, sizeof *st);
    st->status = "Success";
    st->reason = "";
    st->message = "";
    set_details(a, st, gr.group, gr.resource, name);
    st->details.uid = kg_arena_strdup(a, nz(uid));
    return st;
}

kg_status *kg_status_from_error(kg_arena *a, const kg_error *err)
{
    const char *m = err ? err->msg : "";
    switch (err ? err->code : KG_EINTERNAL) {
    case KG_EINVAL: return kg_status_new(a, 400, KG_REASON_BAD_REQUEST, m);
    case KG_ENOTFOUND: return kg_status_new(a, 404, KG_REASON_NOT_FOUND, m);
    case KG_EEXIST: return kg_status_new(a, 409, KG_REASON_ALREADY_EXISTS, m);
    case KG_ECONFLICT: return kg_status_new(a, 409, KG_REASON_CONFLICT, m);
    case KG_EGONE: return kg_status_new(a, 410, KG_REASON_EXPIRED, m);
    case KG_ETOOLARGE: return kg_status_new(a, 413, KG_REASON_REQUEST_ENTITY_TOO_LARGE, m);
    case KG_ETIMEOUT: return kg_status_new(a, 504, KG_REASON_TIMEOUT, m);
    case KG_EFORBIDDEN: return kg_status_new(a, 403, KG_REASON_FORBIDDEN, m);
    case KG_EUNSUPPORTED: return kg_status_new(a, 415, KG_REASON_UNSUPPORTED_MEDIA_TYPE, m);
    default: return kg_status_new(a, 500, KG_REASON_UNKNOWN, m);
    }
}

int kg_status_http_code(const kg_status *st)
{
    if (st->code != 0)
        return st->code;
    return strcmp(nz(st->status), "Success") == 0 ? 200 : 500;
}

kg_status *kg_status_as_error(kg_status *st)
{
    if (!st->status || !st->status[0])
        st->status = "Failure";
    if (st->code == 0)
        st->code = strcmp(st->status, "Success") == 0 ? 200 : 500;
    return st;
}

bool kg_status_is(const kg_status *st, const char *reason)
{
    return st && strcmp(nz(st->reason), nz(reason)) == 0;
}

static void set_str_nonempty(kg_arena *a, kg_json *o, const char *key, const char *v)
{
    if (v && v[0])
        kg_json_set(a, o, key, kg_json_new_str(a, v));
}

kg_json *kg_status_to_json(kg_arena *a, const kg_status *st)
{
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "kind", kg_json_new_str_ref(a, "Status", 6));
    kg_json_set(a, o, "apiVersion", kg_json_new_str_ref(a, "v1", 2));
    kg_json_set(a, o, "metadata", kg_json_new_object(a));
    set_str_nonempty(a, o, "status", st->status);
    set_str_nonempty(a, o, "message", st->message);
    set_str_nonempty(a, o, "reason", st->reason);
    const kg_status_details *d = &st->details;
    if (st->has_details) {
        kg_json *dj = kg_json_new_object(a);
        set_str_nonempty(a, dj, "name", d->name);
        set_str_nonempty(a, dj, "group", d->group);
        set_str_nonempty(a, dj, "kind", d->kind);
        set_str_nonempty(a, dj, "uid", d->uid);
        if (d->ncauses) {
            kg_json *arr = kg_json_new_array(a);
            for (size_t i = 0; i < d->ncauses; i++) {
                kg_json *c = kg_json_new_object(a);
                set_str_nonempty(a, c, "reason", d->causes[i].reason);
                set_str_nonempty(a, c, "message", d->causes[i].message);
                set_str_nonempty(a, c, "field", d->causes[i].field);
                kg_json_array_append(a, arr, c);
            }
            kg_json_set(a, dj, "causes", arr);
        }
        if (d->retry_after_seconds)
            kg_json_set(a, dj, "retryAfterSeconds", kg_json_new_int(a, d->retry_after_seconds));
        kg_json_set(a, o, "details", dj);
    }
    if (st->code)
        kg_json_set(a, o, "code", kg_json_new_int(a, st->code));
    return o;
}

void kg_status_write(kg_buf *out, const kg_status *st)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json_write(out, kg_status_to_json(&a, st), 0);
    kg_arena_free(&a);
}

static const char *str_or_empty(const kg_json *o, const char *key)
{
    const char *s = kg_json_get_str(o, key);
    return s ? s : "";
}

kg_status *kg_status_from_json(kg_arena *a, const kg_json *j)
{
    kg_status *st = kg_arena_calloc(a, sizeof *st);
    st->status = str_or_empty(j, "status");
    st->message = str_or_empty(j, "message");
    st->reason = str_or_empty(j, "reason");
    kg_json *code = kg_json_get(j, "code");
    if (kg_json_is(code, KG_JSON_INT) && code->u.i >= INT32_MIN && code->u.i <= INT32_MAX)
        st->code = (int32_t)code->u.i;
    kg_json *d = kg_json_get(j, "details");
    if (kg_json_is(d, KG_JSON_OBJECT)) {
        st->has_details = true;
        st->details.name = str_or_empty(d, "name");
        st->details.group = str_or_empty(d, "group");
        st->details.kind = str_or_empty(d, "kind");
        st->details.uid = str_or_empty(d, "uid");
        kg_json *ra = kg_json_get(d, "retryAfterSeconds");
        if (kg_json_is(ra, KG_JSON_INT) && ra->u.i >= INT32_MIN && ra->u.i <= INT32_MAX)
            st->details.retry_after_seconds = (int32_t)ra->u.i;
        kg_json *causes = kg_json_get(d, "causes");
        if (kg_json_is(causes, KG_JSON_ARRAY) && causes->len) {
            st->details.causes = kg_arena_calloc(a, causes->len * sizeof(kg_status_cause));
            for (size_t i = 0; i < causes->len; i++) {
                kg_json *c = causes->u.items[i];
                st->details.causes[st->details.ncauses++] =
                    (kg_status_cause){str_or_empty(c, "reason"), str_or_empty(c, "message"), str_or_empty(c, "field")};
            }
        }
    }
    return st;
}
