/* RFC 6902 JSON patch between two documents (see patch.h, kg_patch_json_diff). */
#include <stdio.h>
#include <string.h>

#include "meta/patch.h"

static void op(kg_arena *a, kg_json *out, const char *name, const char *path, const kg_json *value)
{
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "op", kg_json_new_str(a, name));
    kg_json_set(a, o, "path", kg_json_new_str(a, path));
    if (value)
        kg_json_set(a, o, "value", kg_json_clone(a, value));
    kg_json_array_append(a, out, o);
}

static void diff(kg_arena *a, kg_json *out, const char *path, const kg_json *from, const kg_json *to)
{
    if (kg_json_equal(from, to))
        return;
    if (kg_json_is(from, KG_JSON_OBJECT) && kg_json_is(to, KG_JSON_OBJECT)) {
        for (uint32_t i = 0; i < from->len; i++) {
            const kg_json_member *m = &from->u.members[i];
            char *p = kg_arena_sprintf(a, "%s/%s", path, kg_patch_json_escape_key(a, m->key));
            const kg_json *tv = kg_json_getn(to, m->key, m->key_len);
            if (!tv)
                op(a, out, "remove", p, NULL);
            else
                diff(a, out, p, m->val, tv);
        }
        for (uint32_t i = 0; i < to->len; i++) {
            const kg_json_member *m = &to->u.members[i];
            if (!kg_json_getn(from, m->key, m->key_len))
                op(a, out, "add", kg_arena_sprintf(a, "%s/%s", path, kg_patch_json_escape_key(a, m->key)), m->val);
        }
        return;
    }
    if (kg_json_is(from, KG_JSON_ARRAY) && kg_json_is(to, KG_JSON_ARRAY) && from->len == to->len) {
        for (uint32_t i = 0; i < from->len; i++)
            diff(a, out, kg_arena_sprintf(a, "%s/%u", path, i), kg_json_at(from, i), kg_json_at(to, i));
        return;
    }
    op(a, out, "replace", path, to);
}

kg_json *kg_patch_json_diff(kg_arena *a, const kg_json *from, const kg_json *to)
{
    kg_json *out = kg_json_new_array(a);
    diff(a, out, "", from, to);
    return out;
}
