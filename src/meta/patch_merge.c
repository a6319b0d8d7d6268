/* RFC 7386 JSON Merge Patch as evanphx/json-patch v4 MergePatch implements it (kube-apiserver's
 * application/merge-patch+json): null deletes, objects merge recursively, anything else replaces. Values that are
 * added rather than merged have their nulls pruned, null array elements included (v4's pruneAryNulls); an array or
 * scalar patch value that replaces an object is taken as is. */
#include <string.h>

#include "json/json_index.h"
#include "meta/patch.h"

/* Remove null members of objects and null array elements, recursively. */
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
            if (v->u.items[i]->type != KG_JSON_NULL)
                kg_json_array_append(a, arr, prune_nulls(a, v->u.items[i]));
        return arr;
    }
    return kg_json_clone(a, v);
}

/* Index of an object's members by key, so merging a big map with a big patch stays linear (kg_json objects are
 * searched linearly). Deleted members become tombstones (val NULL) until the merge of that object ends. */
#define IDX_MIN_MEMBERS 16


static int64_t find_member(const kg_json *obj, const kg_json_index *x, const char *k, size_t n)
{
    if (x)
        return kg_json_index_find(x, obj, k, n);
    for (uint32_t j = 0; j < obj->len; j++) {
        const kg_json_member *d = &obj->u.members[j];
        if (d->key_len == n && memcmp(d->key, k, n) == 0)
            return j;
    }
    return -1;
}

static void append_member(kg_arena *a, kg_json *obj, kg_json_index *x, const char *k, size_t n, kg_json *v)
{
    if (obj->len == obj->cap) {
        uint32_t nc = obj->cap ? obj->cap * 2 : 8;
        obj->u.members =
            kg_arena_realloc(a, obj->u.members, obj->cap * sizeof *obj->u.members, nc * sizeof *obj->u.members);
        obj->cap = nc;
    }
    kg_json_member *m = &obj->u.members[obj->len++];
    m->key = kg_arena_strndup(a, k, n);
    m->key_len = (uint32_t)n;
    m->val = v;
    if (x) {
        if ((x->n + 1) * 2 > x->mask + 1)
            kg_json_index_build(a, x, obj, obj->len);
        else
            kg_json_index_insert(x, obj, obj->len - 1);
    }
}

/* doc is a fresh (owned) object; patch is an object. */
static void merge_docs(kg_arena *a, kg_json *doc, const kg_json *patch)
{
    kg_json_index ix, *x = NULL;
    if (doc->len >= IDX_MIN_MEMBERS && patch->len > 1) {
        kg_json_index_build(a, &ix, doc, patch->len);
        x = &ix;
    }
    bool tombstones = false;
    for (uint32_t i = 0; i < patch->len; i++) {
        const kg_json_member *m = &patch->u.members[i];
        int64_t j = find_member(doc, x, m->key, m->key_len);
        kg_json *cur = j >= 0 ? doc->u.members[j].val : NULL;
        if (m->val->type == KG_JSON_NULL) {
            if (j >= 0 && cur) {
                doc->u.members[j].val = NULL;
                tombstones = true;
            }
            continue;
        }
        kg_json *nv;
        if (!cur || cur->type != KG_JSON_OBJECT) {
            nv = prune_nulls(a, m->val);
        } else if (m->val->type != KG_JSON_OBJECT) {
            nv = kg_json_clone(a, m->val); /* v4 returns such a patch value unpruned */
        } else {
            nv = cur; /* already owned (doc was cloned) */
            merge_docs(a, nv, m->val);
        }
        if (j >= 0)
            doc->u.members[j].val = nv;
        else
            append_member(a, doc, x, m->key, m->key_len, nv);
    }
    if (tombstones) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < doc->len; i++)
            if (doc->u.members[i].val)
                doc->u.members[k++] = doc->u.members[i];
        doc->len = k;
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
