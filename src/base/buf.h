/* Growable byte buffer (heap backed). Used for building responses and serialized output. */
#ifndef KG_BASE_BUF_H
#define KG_BASE_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct kg_buf {
    char *data; /* always NUL-terminated when len>0 or after kg_buf_cstr */
    size_t len;
    size_t cap;
} kg_buf;

#define KG_BUF_INIT {NULL, 0, 0}

void kg_buf_init(kg_buf *b);
void kg_buf_free(kg_buf *b);
void kg_buf_reset(kg_buf *b);
/* Ensure room for n more bytes (plus a NUL). */
void kg_buf_reserve(kg_buf *b, size_t n);
void kg_buf_append(kg_buf *b, const void *p, size_t n);
void kg_buf_puts(kg_buf *b, const char *s);
void kg_buf_putc(kg_buf *b, char c);
void kg_buf_printf(kg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kg_buf_vprintf(kg_buf *b, const char *fmt, va_list ap);
/* NUL-terminated view (never NULL). */
const char *kg_buf_cstr(kg_buf *b);
/* Hand the storage to the caller (malloc'd, NUL-terminated); the buffer becomes empty. */
char *kg_buf_steal(kg_buf *b, size_t *len);

#endif
