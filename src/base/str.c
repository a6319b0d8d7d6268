#include "base/str.h"

#include <stdio.h>
#include <stdlib.h>

bool kg_str_has_prefix(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

bool kg_str_has_suffix(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

bool kg_str_cut(kg_str s, char sep, kg_str *before, kg_str *after)
{
    const char *q = s.n ? memchr(s.p, sep, s.n) : NULL;
    if (!q) {
        if (before)
            *before = s;
        if (after)
            *after = (kg_str){s.p + s.n, 0};
        return false;
    }
    if (before)
        *before = (kg_str){s.p, (size_t)(q - s.p)};
    if (after)
        *after = (kg_str){q + 1, s.n - (size_t)(q - s.p) - 1};
    return true;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

kg_str kg_str_trim(kg_str s)
{
    while (s.n && is_space(s.p[0]))
        s.p++, s.n--;
    while (s.n && is_space(s.p[s.n - 1]))
        s.n--;
    return s;
}

char *kg_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *d = malloc(cap);
    if (!d) {
        fclose(f);
        return NULL;
    }
    for (;;) {
        if (n + 1 >= cap) {
            cap *= 2;
            char *nd = realloc(d, cap);
            if (!nd) {
                free(d);
                fclose(f);
                return NULL;
            }
            d = nd;
        }
        size_t r = fread(d + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(d);
        return NULL;
    }
    d[n] = 0;
    if (len)
        *len = n;
    return d;
}
