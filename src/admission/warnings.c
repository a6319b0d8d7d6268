#include "admission/warnings.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void kg_warnings_init(kg_warnings *w, kg_arena *a)
{
    memset(w, 0, sizeof *w);
    w->arena = a;
}

/* UTF-8 code points in s (continuation bytes not counted, as utf8.RuneCountInString counts valid text). */
static size_t runes(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* s cut to at most max code points (a copy in the arena when cut). */
static const char *cut(kg_arena *a, const char *s, size_t max)
{
    size_t n = 0, i = 0;
    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xc0) != 0x80 && n++ == max)
            break;
    }
    return s[i] ? kg_arena_strndup(a, s, i) : s;
}

static void push(kg_arena *a, const char ***arr, size_t *n, size_t *cap, const char *s)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        const char **na = kg_arena_alloc(a, nc * sizeof *na);
        if (*n)
            memcpy(na, *arr, *n * sizeof *na);
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = s;
}

bool kg_warnings_add(kg_warnings *w, const char *text)
{
    if (!w || !text || !text[0])
        return false;
    for (size_t i = 0; i < w->nseen; i++)
        if (strcmp(w->seen[i], text) == 0)
            return false;
    text = kg_arena_strdup(w->arena, text);
    push(w->arena, &w->seen, &w->nseen, &w->seen_cap, text);
    size_t len = runes(text);
    if (!w->truncating && w->runes + len > KG_WARNINGS_MAX_RUNES) {
        w->truncating = true;
        w->runes = 0;
        for (size_t i = 0; i < w->n; i++) {
            w->items[i] = cut(w->arena, w->items[i], KG_WARNINGS_ITEM_RUNES);
            w->runes += runes(w->items[i]);
        }
    }
    if (w->truncating) {
        text = cut(w->arena, text, KG_WARNINGS_ITEM_RUNES);
        len = runes(text);
    }
    if (w->runes + len > KG_WARNINGS_MAX_RUNES) {
        w->dropped++;
        return false;
    }
    w->runes += len;
    push(w->arena, &w->items, &w->n, &w->cap, text);
    return true;
}

bool kg_warnings_addf(kg_warnings *w, const char *fmt, ...)
{
    char buf[16384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return kg_warnings_add(w, buf);
}
