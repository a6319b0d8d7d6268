/* Message helpers of the PodSecurity checks (policy/helpers.go): string lists in the request arena, Go's sorted
 * string sets (bytewise order, duplicates dropped), joinQuote (`"a", "b"`) and the `container "a"` /
 * `containers "a", "b"` phrase. */
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/podsecurity/podsecurity.h"

void ps_strs_add(kg_arena *a, ps_strs *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 4;
        l->v = kg_arena_realloc(a, (void *)l->v, l->cap * sizeof *l->v, cap * sizeof *l->v);
        l->cap = cap;
    }
    l->v[l->n++] = s ? s : "";
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

void ps_strs_sort_unique(ps_strs *l)
{
    if (l->n < 2)
        return;
    qsort((void *)l->v, l->n, sizeof *l->v, cmp_str);
    size_t out = 1;
    for (size_t i = 1; i < l->n; i++)
        if (strcmp(l->v[i], l->v[out - 1]) != 0)
            l->v[out++] = l->v[i];
    l->n = out;
}

/* Concatenate the items with sep, each optionally wrapped in quotes. */
static char *join(kg_arena *a, const ps_strs *l, const char *sep, bool quote)
{
    size_t seplen = strlen(sep), total = 1;
    for (size_t i = 0; i < l->n; i++)
        total += strlen(l->v[i]) + seplen + (quote ? 2 : 0);
    char *out = kg_arena_alloc(a, total), *p = out;
    for (size_t i = 0; i < l->n; i++) {
        if (i) {
            memcpy(p, sep, seplen);
            p += seplen;
        }
        if (quote)
            *p++ = '"';
        size_t n = strlen(l->v[i]);
        memcpy(p, l->v[i], n);
        p += n;
        if (quote)
            *p++ = '"';
    }
    *p = 0;
    return out;
}

char *ps_join_quote(kg_arena *a, const ps_strs *l)
{
    return join(a, l, ", ", true);
}

char *ps_join(kg_arena *a, const ps_strs *l, const char *sep)
{
    return join(a, l, sep, false);
}

char *ps_containers_phrase(kg_arena *a, const ps_strs *names)
{
    return kg_arena_sprintf(a, "%s %s", ps_plural("container", "containers", names->n), ps_join_quote(a, names));
}
