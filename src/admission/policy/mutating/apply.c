/* ApplyConfiguration: merging an apply configuration (an `Object{...}` value turned into JSON) into the object as
 * server-side apply merges (upstream patch/smd.go over structured-merge-diff):
 *
 *   - objects merge field by field, recursively; a field set to null is removed;
 *   - lists follow the field's x-kubernetes-list-type from the kind's OpenAPI schema, which the admission services
 *     look up (kg_admission_list_type_of; src/admission reads no schema itself):
 *       map     items are matched by their list-map-keys: a match merges into the existing item (recursively, by
 *               the same rules), other items are appended in order;
 *       set     values not yet present are appended;
 *       atomic  the list is replaced (upstream allows atomic lists in apply configurations, for command/args);
 *   - scalars replace.
 *
 * Merging the same configuration twice gives the same object, which keeps mutations idempotent under reinvocation. */
#include <string.h>

#include "admission/policy/mutating/mutating.h"

#define MAX_DEPTH 64

typedef struct mctx {
    kg_arena *a;
    const kg_gvk *kind;
    const kg_admission_services *svc;
    const char *path[MAX_DEPTH]; /* field names from the root, list items left out */
    size_t depth;
    const char **err;
} mctx;

/* A copy of v without null fields (a null in a new subtree means "absent"). */
static kg_json *strip_nulls(kg_arena *a, const kg_json *v)
{
    if (v->type == KG_JSON_OBJECT) {
        kg_json *o = kg_json_new_object(a);
        for (size_t i = 0; i < v->len; i++)
            if (v->u.members[i].val->type != KG_JSON_NULL)
                kg_json_set(a, o, v->u.members[i].key, strip_nulls(a, v->u.members[i].val));
        return o;
    }
    if (v->type == KG_JSON_ARRAY) {
        kg_json *arr = kg_json_new_array(a);
        for (size_t i = 0; i < v->len; i++)
            kg_json_array_append(a, arr, strip_nulls(a, v->u.items[i]));
        return arr;
    }
    return kg_json_clone(a, v);
}

static bool merge_object(mctx *m, kg_json *dst, const kg_json *src);

/* Whether item has the same values as cand for every key of the comma-separated list (absent equals absent). */
static bool same_keys(const kg_json *item, const kg_json *cand, const char *keys)
{
    if (cand->type != KG_JSON_OBJECT)
        return false;
    const char *k = keys;
    while (*k) {
        const char *end = strchr(k, ',');
        size_t n = end ? (size_t)(end - k) : strlen(k);
        char key[128];
        if (n >= sizeof key)
            return false;
        memcpy(key, k, n);
        key[n] = 0;
        const kg_json *x = kg_json_get(item, key), *y = kg_json_get(cand, key);
        if ((x && x->type == KG_JSON_NULL))
            x = NULL;
        if ((y && y->type == KG_JSON_NULL))
            y = NULL;
        if ((x == NULL) != (y == NULL) || (x && !kg_json_equal(x, y)))
            return false;
        k += n;
        if (*k == ',')
            k++;
    }
    return true;
}

static bool merge_list(mctx *m, kg_json *dst_parent, const char *key, kg_json *dst, const kg_json *src)
{
    const char *keys = NULL;
    kg_admission_list_type lt = kg_admission_list_type_of(m->svc, m->kind, m->path, m->depth, &keys);
    if (lt == KG_ADMISSION_LIST_ATOMIC || !dst || dst->type != KG_JSON_ARRAY) {
        kg_json_set(m->a, dst_parent, key, strip_nulls(m->a, src));
        return true;
    }
    if (lt == KG_ADMISSION_LIST_SET) {
        for (size_t i = 0; i < src->len; i++) {
            bool present = false;
            for (size_t j = 0; j < dst->len && !present; j++)
                present = kg_json_equal(dst->u.items[j], src->u.items[i]);
            if (!present)
                kg_json_array_append(m->a, dst, strip_nulls(m->a, src->u.items[i]));
        }
        return true;
    }
    /* map list: merge by the list-map-keys */
    for (size_t i = 0; i < src->len; i++) {
        const kg_json *item = src->u.items[i];
        if (item->type != KG_JSON_OBJECT) {
            *m->err =
                kg_arena_sprintf(m->a, "error applying patch: failed to merge patch: .%s: expected a map item", key);
            return false;
        }
        kg_json *match = NULL;
        for (size_t j = 0; j < dst->len && !match; j++)
            if (same_keys(item, dst->u.items[j], keys ? keys : ""))
                match = dst->u.items[j];
        if (match) {
            if (!merge_object(m, match, item))
                return false;
        } else {
            kg_json_array_append(m->a, dst, strip_nulls(m->a, item));
        }
    }
    return true;
}

static bool merge_object(mctx *m, kg_json *dst, const kg_json *src)
{
    for (size_t i = 0; i < src->len; i++) {
        const char *key = src->u.members[i].key;
        const kg_json *v = src->u.members[i].val;
        kg_json *cur = kg_json_get(dst, key);
        if (v->type == KG_JSON_NULL) {
            kg_json_del(dst, key);
            continue;
        }
        if (m->depth >= MAX_DEPTH) {
            *m->err = "error applying patch: failed to merge patch: the apply configuration is nested too deeply";
            return false;
        }
        m->path[m->depth++] = key;
        bool ok = true;
        if (v->type == KG_JSON_OBJECT && cur && cur->type == KG_JSON_OBJECT)
            ok = merge_object(m, cur, v);
        else if (v->type == KG_JSON_ARRAY)
            ok = merge_list(m, dst, key, cur, v);
        else
            kg_json_set(m->a, dst, key, strip_nulls(m->a, v));
        m->depth--;
        if (!ok)
            return false;
    }
    return true;
}

bool kg_map_apply(kg_arena *a, kg_json *obj, const kg_json *config, const kg_gvk *kind,
                  const kg_admission_services *svc, const char **err)
{
    if (!obj || obj->type != KG_JSON_OBJECT || !config || config->type != KG_JSON_OBJECT) {
        *err = "error applying patch: the object and the apply configuration must be objects";
        return false;
    }
    mctx m = {.a = a, .kind = kind, .svc = svc, .err = err};
    return merge_object(&m, obj, config);
}
