/* JSON DOM → block-style YAML (see yaml.h, kg_yaml_write). */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "yaml/yaml.h"

static bool plain_safe(const char *s, size_t n)
{
    static const char *const reserved[] = {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"};
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '/' || s[0] == '_'))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                  c == '/' || c == '-';
        if (!ok)
            return false;
    }
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strlen(reserved[i]) == n && !strncasecmp(s, reserved[i], n))
            return false;
    return true;
}

static void scalar_str(kg_buf *out, const char *s, size_t n)
{
    if (plain_safe(s, n))
        kg_buf_append(out, s, n);
    else
        kg_json_write_string(out, s, n, KG_JSON_WRITE_NO_ESCAPE_HTML);
}

static void indent(kg_buf *out, int n)
{
    for (int i = 0; i < n; i++)
        kg_buf_putc(out, ' ');
}

static bool is_block(const kg_json *v)
{
    return (kg_json_is(v, KG_JSON_OBJECT) || kg_json_is(v, KG_JSON_ARRAY)) && v->len > 0;
}

static void scalar(kg_buf *out, const kg_json *v)
{
    switch (v->type) {
    case KG_JSON_STRING: scalar_str(out, v->u.s, v->len); break;
    case KG_JSON_OBJECT: kg_buf_puts(out, "{}"); break;
    case KG_JSON_ARRAY: kg_buf_puts(out, "[]"); break;
    default: kg_json_write(out, v, 0);
    }
}

static void node(kg_buf *out, const kg_json *v, int ind, bool first_inline);

/* The members of an object at indentation ind; the first one follows what is already on the line when
 * first_inline (a sequence item's "- "). */
static void members(kg_buf *out, const kg_json *v, int ind, bool first_inline)
{
    for (uint32_t i = 0; i < v->len; i++) {
        const kg_json_member *m = &v->u.members[i];
        if (i > 0 || !first_inline)
            indent(out, ind);
        scalar_str(out, m->key, m->key_len);
        kg_buf_putc(out, ':');
        if (is_block(m->val)) {
            kg_buf_putc(out, '\n');
            node(out, m->val, kg_json_is(m->val, KG_JSON_ARRAY) ? ind : ind + 2, false);
        } else {
            kg_buf_putc(out, ' ');
            scalar(out, m->val);
            kg_buf_putc(out, '\n');
        }
    }
}

static void node(kg_buf *out, const kg_json *v, int ind, bool first_inline)
{
    if (kg_json_is(v, KG_JSON_OBJECT) && v->len) {
        members(out, v, ind, first_inline);
        return;
    }
    if (kg_json_is(v, KG_JSON_ARRAY) && v->len) {
        for (uint32_t i = 0; i < v->len; i++) {
            const kg_json *it = kg_json_at(v, i);
            if (i > 0 || !first_inline)
                indent(out, ind);
            kg_buf_puts(out, "- ");
            if (kg_json_is(it, KG_JSON_OBJECT) && it->len)
                members(out, it, ind + 2, true);
            else if (kg_json_is(it, KG_JSON_ARRAY) && it->len)
                node(out, it, ind + 2, true);
            else {
                scalar(out, it);
                kg_buf_putc(out, '\n');
            }
        }
        return;
    }
    if (!first_inline)
        indent(out, ind);
    scalar(out, v);
    kg_buf_putc(out, '\n');
}

void kg_yaml_write(kg_buf *out, const kg_json *v)
{
    node(out, v, 0, false);
}
