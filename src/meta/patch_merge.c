/* RFC 7386 JSON Merge Patch as evanphx/json-patch v4 MergePatch implements it (kube-apiserver's
 * application/merge-patch+json): null deletes, objects merge recursively, anything else replaces; null members
 * inside values that are added (not merged) are pruned, nulls that are array elements are kept. */
#include <string.h>

#include "meta/patch.h"

/* Remove null members of objects, recursively (also inside arrays); array null elements stay. */
static kg_json *prune_nulls(kg_arena *a, const kg_json *v)
{
    if (v->type == KG_JSON_OBJECT) {
        kg_json *o = kg_json_new_object(a);
        for (uint32_t i = 0; i < v->len; i++) {
            const kg_json_member *m = &v->u.members[i];
            if (m->val->type != KG_JSON_NULL)
                kg_json_setn(a, o, m->key, m->key_len, prune_nulls(a, m->val));
        }
        return o;
    }
    if (v->type == KG_JSON_ARRAY) {
        kg_json *arr = kg_json_new_array(a);
        for (uint32_t i = 0; i < v->len; i++)
            kg_json_array_append(a, arr, prune_nulls(a, v->u.items[i]));
        return arr;
    }
    return kg_json_clone(a, v);
}

/* doc is a fresh (owned) object; patch is an object. */
static void merge_docs(kg_arena *a, kg_json *doc, const kg_json *patch)
{
    for (uint32_t i = 0; i < patch->len; i++) {
        const kg_json_member *m = &patch->u.members[i];
        if (m->val->type == KG_JSON_NULL) {
            /* kg_json_del wants a C string; keys with embedded NULs are matched by length below */
            for (uint32_t j = 0; j < doc->len; j++) {
                kg_json_member *d = &doc->u.members[j];
                if (d->key_len == m->key_len && memcmp(d->key, m->key, m->key_len) == 0) {
                    memmove(d, d + 1, (doc->len - j - 1) * sizeof *d);
                    doc->len--;
                    break;
                }
            }
            continue;
        }
        kg_json *cur = kg_json_getn(doc, m->key, m->key_len);
        kg_json *nv;
        if (!cur || cur->type == KG_JSON_NULL || cur->type != KG_JSON_OBJECT) {
            nv = prune_nulls(a, m->val);
        } else if (m->val->type != KG_JSON_OBJECT) {
            nv = kg_json_clone(a, m->val); /* v4 returns such a patch value unpruned */
        } else {
            nv = cur; /* already owned (doc was cloned) */
            merge_docs(a, nv, m->val);
        }
        kg_json_setn(a, doc, m->key, m->key_len, nv);
    }
}

bool kg_patch_merge(kg_arena *a, const kg_json *doc, const kg_json *patch, kg_json **out, kg_error *err)
{
    if (!a || !out || !doc || doc->type == KG_JSON_NULL)
        return kg_err_set(err, KG_EINVAL, "Invalid JSON Document");
    if (!patch || patch->type == KG_JSON_NULL)
        return kg_err_set(err, KG_EINVAL, "Invalid JSON Patch");
    if (patch->type == KG_JSON_OBJECT) {
        if (doc->type != KG_JSON_OBJECT) {
            *out = prune_nulls(a, patch);
            return true;
        }
        kg_json *work = kg_json_clone(a, doc);
        merge_docs(a, work, patch);
        *out = work;
        return true;
    }
    if (patch->type == KG_JSON_ARRAY) {
        *out = prune_nulls(a, patch);
        return true;
    }
    return kg_err_set(err, KG_EINVAL, "Invalid JSON Patch");
}
