#include "base/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kg_buf_init(kg_buf *b) { b->data = NULL, b->len = 0, b->cap = 0; }

void kg_buf_free(kg_buf *b)
{
    free(b->data);
    kg_buf_init(b);
}

void kg_buf_reset(kg_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = 0;
}

void kg_buf_reserve(kg_buf *b, size_t n)
{
    if (b->len + n + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d)
        abort();
    b->data = d;
    b->cap = cap;
}

void kg_buf_append(kg_buf *b, const void *p, size_t n)
{
    kg_buf_reserve(b, n);
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0;
}

void kg_buf_puts(kg_buf *b, const char *s) { kg_buf_append(b, s, strlen(s)); }

void kg_buf_putc(kg_buf *b, char c)
{
    kg_buf_reserve(b, 1);
    b->data[b->len++] = c;
    b->data[b->len] = 0;
}

void kg_buf_vprintf(kg_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    kg_buf_reserve(b, 64);
    int n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if ((size_t)n >= b->cap - b->len) {
        kg_buf_reserve(b, (size_t)n);
        vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap2);
    }
    b->len += (size_t)n;
    va_end(ap2);
}

void kg_buf_printf(kg_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kg_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

const char *kg_buf_cstr(kg_buf *b)
{
    if (!b->data)
        kg_buf_reserve(b, 0), b->data[0] = 0;
    return b->data;
}

char *kg_buf_steal(kg_buf *b, size_t *len)
{
    kg_buf_cstr(b);
    char *d = b->data;
    if (len)
        *len = b->len;
    kg_buf_init(b);
    return d;
}
