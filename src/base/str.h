/* Small string helpers: length-delimited views and common predicates. */
#ifndef KG_BASE_STR_H
#define KG_BASE_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct kg_str {
    const char *p;
    size_t n;
} kg_str;

#define KG_STR(lit) ((kg_str){(lit), sizeof(lit) - 1})

static inline kg_str kg_str_c(const char *s)
{
    return (kg_str){s, s ? strlen(s) : 0};
}
static inline bool kg_str_eq(kg_str a, kg_str b)
{
    return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}
static inline bool kg_str_eqc(kg_str a, const char *b)
{
    return kg_str_eq(a, kg_str_c(b));
}
/* C-string equality with the first byte compared inline (most compares on hot paths fail there) */
static inline bool kg_streq(const char *a, const char *b)
{
    return a[0] == b[0] && (!a[0] || strcmp(a + 1, b + 1) == 0);
}
/* n bytes equal? Inline word compares for the short keys and literals of hot paths (a libc memcmp call costs more
 * than the compare); reads only the n bytes of each side (the last load overlaps the previous one). */
__attribute__((always_inline)) static inline bool kg_bytes_eq(const void *pa, const void *pb, size_t n)
{
    const unsigned char *a = (const unsigned char *)pa, *b = (const unsigned char *)pb;
    if (n >= 8) {
        unsigned long long x, y;
        if (n <= 16) { /* most keys: two overlapping words a side, no loop */
            unsigned long long x2, y2;
            memcpy(&x, a, 8);
            memcpy(&y, b, 8);
            memcpy(&x2, a + n - 8, 8);
            memcpy(&y2, b + n - 8, 8);
            return ((x ^ y) | (x2 ^ y2)) == 0;
        }
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y)
                return false;
        }
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    if (n >= 4) {
        unsigned int x, y, x2, y2;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        memcpy(&x2, a + n - 4, 4);
        memcpy(&y2, b + n - 4, 4);
        return ((x ^ y) | (x2 ^ y2)) == 0;
    }
    if (n >= 2) { /* 2..3: two overlapping half-words */
        unsigned short x, y, x2, y2;
        memcpy(&x, a, 2);
        memcpy(&y, b, 2);
        memcpy(&x2, a + n - 2, 2);
        memcpy(&y2, b + n - 2, 2);
        return ((x ^ y) | (x2 ^ y2)) == 0;
    }
    return n == 0 || a[0] == b[0];
}
bool kg_str_has_prefix(const char *s, const char *prefix);
bool kg_str_has_suffix(const char *s, const char *suffix);
/* Split s at the first occurrence of sep: returns false when sep is absent. */
bool kg_str_cut(kg_str s, char sep, kg_str *before, kg_str *after);
/* Trim ASCII whitespace. */
kg_str kg_str_trim(kg_str s);
/* Read a whole file into a malloc'd NUL-terminated buffer; NULL on error (errno set). */
char *kg_read_file(const char *path, size_t *len);

#endif
