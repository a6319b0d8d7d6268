#include "cel/k8s/k8s_util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Decodes one UTF-8 rune; returns its width (1 for invalid, with *r = -1). */
static size_t utf8_decode(const unsigned char *s, size_t n, int32_t *r)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *r = c;
        return 1;
    }
    size_t w;
    int32_t v;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        w = 2;
        v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        w = 3;
        v = c & 0x0F;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        w = 4;
        v = c & 0x07;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else {
        *r = -1;
        return 1;
    }
    if (n < w || s[1] < lo || s[1] > hi) {
        *r = -1;
        return 1;
    }
    v = (v << 6) | (s[1] & 0x3F);
    for (size_t i = 2; i < w; i++) {
        if (s[i] < 0x80 || s[i] > 0xBF) {
            *r = -1;
            return 1;
        }
        v = (v << 6) | (s[i] & 0x3F);
    }
    *r = v;
    return w;
}

/* Approximation of Go's unicode.IsPrint for non-ASCII: everything except C1 controls, a few format/space
 * characters and the unassigned/private ranges that matter in practice. */
static bool rune_printable(int32_t r)
{
    if (r < 0x20 || r == 0x7F)
        return false;
    if (r < 0x7F)
        return true;
    if (r >= 0x80 && r <= 0xA0)
        return false;
    if (r == 0xAD)
        return false;
    if (r >= 0x2000 && r <= 0x200F)
        return false;
    if (r >= 0x2028 && r <= 0x202F)
        return false;
    if (r >= 0x205F && r <= 0x206F)
        return false;
    if (r == 0x3000 || r == 0xFEFF)
        return false;
    if (r >= 0xE000 && r <= 0xF8FF)
        return false;
    if (r >= 0xFFF0 && r <= 0xFFFF)
        return false;
    return true;
}

void cel_k8s_goquote_buf(kg_buf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    kg_buf_putc(b, '"');
    for (size_t i = 0; i < n;) {
        int32_t r;
        size_t w = utf8_decode(u + i, n - i, &r);
        if (r < 0) {
            kg_buf_printf(b, "\\x%02x", u[i]);
            i++;
            continue;
        }
        switch (r) {
        case '"': kg_buf_puts(b, "\\\""); break;
        case '\\': kg_buf_puts(b, "\\\\"); break;
        case '\a': kg_buf_puts(b, "\\a"); break;
        case '\b': kg_buf_puts(b, "\\b"); break;
        case '\f': kg_buf_puts(b, "\\f"); break;
        case '\n': kg_buf_puts(b, "\\n"); break;
        case '\r': kg_buf_puts(b, "\\r"); break;
        case '\t': kg_buf_puts(b, "\\t"); break;
        case '\v': kg_buf_puts(b, "\\v"); break;
        default:
            if (rune_printable(r)) {
                kg_buf_append(b, s + i, w);
            } else if (r < 0x80) {
                kg_buf_printf(b, "\\x%02x", (unsigned)r);
            } else if (r < 0x10000) {
                kg_buf_printf(b, "\\u%04x", (unsigned)r);
            } else {
                kg_buf_printf(b, "\\U%08x", (unsigned)r);
            }
        }
        i += w;
    }
    kg_buf_putc(b, '"');
}

char *cel_k8s_goquote(kg_arena *a, const char *s, size_t n)
{
    kg_buf b = KG_BUF_INIT;
    cel_k8s_goquote_buf(&b, s, n);
    char *out = kg_arena_strndup(a, kg_buf_cstr(&b), b.len);
    kg_buf_free(&b);
    return out;
}

bool cel_k8s_fail(kg_arena *a, const char **err, const char *fmt, ...)
{
    if (!err)
        return false;
    va_list ap;
    va_start(ap, fmt);
    kg_buf b = KG_BUF_INIT;
    kg_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    *err = kg_arena_strndup(a, kg_buf_cstr(&b), b.len);
    kg_buf_free(&b);
    return false;
}
