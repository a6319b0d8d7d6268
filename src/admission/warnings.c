#include "admission/warnings.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void kg_warnings_init(kg_warnings *w, kg_arena *a)
{
    memset(w, 0, sizeof *w);
    w->arena = a;
}

bool kg_warnings_add(kg_warnings *w, const char *text)
{
    if (!w || !text || !text[0])
        return false;
    for (size_t i = 0; i < w->n; i++)
        if (strcmp(w->items[i], text) == 0)
            return false;
    size_t len = strlen(text);
    if (w->n == KG_WARNINGS_MAX || w->bytes + len > KG_WARNINGS_MAX_BYTES) {
        w->dropped++;
        return false;
    }
    w->items[w->n++] = kg_arena_strndup(w->arena, text, len);
    w->bytes += len;
    return true;
}

bool kg_warnings_addf(kg_warnings *w, const char *fmt, ...)
{
    char buf[KG_WARNINGS_MAX_BYTES + 1];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return kg_warnings_add(w, buf);
}
