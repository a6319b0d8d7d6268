/* CEL names of schema properties (escaping.h). */
#include "cel/k8s/escaping.h"

#include <string.h>

#include "base/buf.h"

static const char *const reserved[] = {"true",     "false",   "null",      "in",       "as",  "break",  "const",
                                       "continue", "else",    "for",       "function", "if",  "import", "let",
                                       "loop",     "package", "namespace", "return",   "var", "void",   "while"};

static bool plain_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

const char *cel_k8s_escape_name(kg_arena *a, const char *s)
{
    if (!s[0] || (s[0] >= '0' && s[0] <= '9'))
        return NULL;
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (!strcmp(s, reserved[i]))
            return kg_arena_sprintf(a, "__%s__", s);
    /* the common case: nothing to escape, the name itself */
    bool simple = true;
    for (const char *p = s; *p && simple; p++)
        simple = plain_char(*p) && !(p[0] == '_' && p[1] == '_');
    if (simple)
        return s;
    kg_buf b = KG_BUF_INIT;
    bool ok = true;
    for (const char *p = s; *p && ok; p++) {
        if (p[0] == '_' && p[1] == '_') {
            kg_buf_puts(&b, "__underscores__");
            p++;
        } else if (*p == '.')
            kg_buf_puts(&b, "__dot__");
        else if (*p == '-')
            kg_buf_puts(&b, "__dash__");
        else if (*p == '/')
            kg_buf_puts(&b, "__slash__");
        else if (plain_char(*p))
            kg_buf_putc(&b, *p);
        else
            ok = false;
    }
    const char *r = ok ? kg_arena_strndup(a, b.data ? b.data : "", b.len) : NULL;
    kg_buf_free(&b);
    return r;
}
