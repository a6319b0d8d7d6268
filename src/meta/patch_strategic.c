/* Kubernetes strategic merge patch, server side (StrategicMergeMapPatchUsingLookupPatchMeta with
 * MergeParallelList and IgnoreUnmatchedNulls), following k8s.io/apimachinery/pkg/util/strategicpatch/patch.go.
 *
 * Both inputs are cloned into the arena first and then merged in place. Lookups of list items by merge key use a
 * small hash index, so merging lists is linear, not quadratic. Go-specific details kept:
 *   - merge-key and set-membership equality is Go's interface ==: 1 (int64) and 1.0 (float64) differ;
 *   - error texts print values like Go's %v (map[k:v ...], [a b]);
 *   - result ordering follows normalizeElementOrder: patch items in patch / $setElementOrder order, server-only
 *     items keep their relative order and are interleaved by their position in the live list.
 * Directive keys that upstream leaves in the merged map (and that typed decoding then drops) are stripped. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "json/json_index.h"
#include "meta/patch.h"
#include "base/hash.h"

#define DIRECTIVE "$patch"
#define RETAIN_KEYS "$retainKeys"
#define DEL_PRIM_PREFIX "$deleteFromPrimitiveList"
#define SET_ORDER_PREFIX "$setElementOrder"

typedef struct smp {
    kg_arena *a;
    const kg_patch_schema *s;
    kg_error *err;
} smp;

/* ---- Go-flavoured formatting for error messages ---------------------------------------------------------- */

static void go_float(kg_buf *b, double d)
{
    char tmp[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*g", p, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    kg_buf_puts(b, tmp);
}

static int cmp_members(const void *x, const void *y)
{
    const kg_json_member *a = *(const kg_json_member *const *)x, *b = *(const kg_json_member *const *)y;
    size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
    int c = memcmp(a->key, b->key, n);
    return c ? c : (a->key_len > b->key_len) - (a->key_len < b->key_len);
}

/* fmt's %v of the value json.Unmarshal would have produced */
static void go_v(kg_buf *b, const kg_json *v)
{
    if (!v || v->type == KG_JSON_NULL) {
        kg_buf_puts(b, "<nil>");
        return;
    }
    switch (v->type) {
    case KG_JSON_BOOL: kg_buf_puts(b, v->b ? "true" : "false"); break;
    case KG_JSON_INT: kg_buf_printf(b, "%" PRId64, v->u.i); break;
    case KG_JSON_NUMBER: go_float(b, v->u.num.d); break;
    case KG_JSON_STRING: kg_buf_append(b, v->u.s, v->len); break;
    case KG_JSON_ARRAY:
        kg_buf_putc(b, '[');
        for (uint32_t i = 0; i < v->len; i++) {
            if (i)
                kg_buf_putc(b, ' ');
            go_v(b, v->u.items[i]);
        }
        kg_buf_putc(b, ']');
        break;
    case KG_JSON_OBJECT: {
        const kg_json_member **ms = v->len ? malloc(v->len * sizeof *ms) : NULL;
        for (uint32_t i = 0; i < v->len; i++)
            ms[i] = &v->u.members[i];
        if (v->len > 1)
            qsort(ms, v->len, sizeof *ms, cmp_members);
        kg_buf_puts(b, "map[");
        for (uint32_t i = 0; i < v->len; i++) {
            if (i)
                kg_buf_putc(b, ' ');
            kg_buf_append(b, ms[i]->key, ms[i]->key_len);
            kg_buf_putc(b, ':');
            go_v(b, ms[i]->val);
        }
        kg_buf_putc(b, ']');
        free(ms);
        break;
    }
    default: break;
    }
}

static const char *go_type(const kg_json *v)
{
    if (!v || v->type == KG_JSON_NULL)
        return "%!s(<nil>)";
    switch (v->type) {
    case KG_JSON_BOOL: return "bool";
    case KG_JSON_INT: return "int64";
    case KG_JSON_NUMBER: return "float64";
    case KG_JSON_STRING: return "string";
    case KG_JSON_ARRAY: return "[]interface {}";
    default: return "map[string]interface {}";
    }
}

/* %s of an interface{} value */
static void go_s(kg_buf *b, const kg_json *v)
{
    if (v && v->type == KG_JSON_STRING) {
        kg_buf_append(b, v->u.s, v->len);
    } else if (!v || v->type == KG_JSON_NULL) {
        kg_buf_puts(b, "%!s(<nil>)");
    } else if (v->type == KG_JSON_OBJECT || v->type == KG_JSON_ARRAY) {
        go_v(b, v);
    } else {
        kg_buf_printf(b, "%%!s(%s=", go_type(v));
        go_v(b, v);
        kg_buf_putc(b, ')');
    }
}

static bool fail(smp *c, const char *msg)
{
    return kg_err_set(c->err, KG_EINVAL, "%s", msg);
}

static bool fail_buf(smp *c, kg_buf *b)
{
    kg_err_set(c->err, KG_EINVAL, "%s", kg_buf_cstr(b));
    kg_buf_free(b);
    return false;
}

static bool err_no_merge_key(smp *c, const kg_json *m, const char *key)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "map: ");
    go_v(&b, m);
    kg_buf_printf(&b, " does not contain declared merge key: %s", key);
    return fail_buf(c, &b);
}

static bool err_bad_arg_type(smp *c, const char *expected, const kg_json *actual)
{
    return kg_err_set(c->err, KG_EINVAL, "expected a %s, but received a %s", expected, go_type(actual));
}

static bool err_bad_patch_type(smp *c, const kg_json *t, const kg_json *m)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "unknown patch type: ");
    go_s(&b, t);
    kg_buf_puts(&b, " in map: ");
    go_v(&b, m);
    return fail_buf(c, &b);
}

/* ---- small helpers ---------------------------------------------------------------------------------------- */

static bool has_prefix(const char *s, size_t n, const char *p)
{
    size_t pn = strlen(p);
    return n >= pn && memcmp(s, p, pn) == 0;
}

static bool is_str(const kg_json *v, const char *s)
{
    return v && v->type == KG_JSON_STRING && v->len == strlen(s) && memcmp(v->u.s, s, v->len) == 0;
}

static void del_key(kg_json *obj, const char *key, size_t n)
{
    for (uint32_t j = 0; j < obj->len; j++) {
        kg_json_member *d = &obj->u.members[j];
        if (d->key_len == n && memcmp(d->key, key, n) == 0) {
            memmove(d, d + 1, (obj->len - j - 1) * sizeof *d);
            obj->len--;
            return;
        }
    }
}

/* Go interface == for decoded JSON values (maps and slices are never equal: Go would panic). */
static bool go_eq(const kg_json *x, const kg_json *y)
{
    bool xn = !x || x->type == KG_JSON_NULL, yn = !y || y->type == KG_JSON_NULL;
    if (xn || yn)
        return xn && yn;
    if (x->type != y->type)
        return false;
    switch (x->type) {
    case KG_JSON_BOOL: return x->b == y->b;
    case KG_JSON_INT: return x->u.i == y->u.i;
    case KG_JSON_NUMBER: return x->u.num.d == y->u.num.d;
    case KG_JSON_STRING: return x->len == y->len && memcmp(x->u.s, y->u.s, x->len) == 0;
    default: return false;
    }
}

static uint64_t go_hash(const kg_json *v)
{
    uint64_t h = KG_FNV1A64_INIT;
    const unsigned char *p = NULL;
    size_t n = 0;
    double d;
    int tag = v ? v->type : KG_JSON_NULL;
    h = kg_fnv1a64_byte(h, (uint64_t)tag);
    if (!v)
        return h;
    switch (v->type) {
    case KG_JSON_BOOL: h = kg_fnv1a64_byte(h, v->b); break;
    case KG_JSON_INT: p = (const unsigned char *)&v->u.i, n = sizeof v->u.i; break;
    case KG_JSON_NUMBER:
        d = v->u.num.d == 0 ? 0 : v->u.num.d;
        p = (const unsigned char *)&d, n = sizeof d;
        break;
    case KG_JSON_STRING: p = (const unsigned char *)v->u.s, n = v->len; break;
    default: break;
    }
    return kg_fnv1a64_continue(h, p, n);
}

/* Hash index: merge-key value (or the item itself for primitives) -> first position. */
typedef struct kidx {
    const kg_json **keys;
    int32_t *pos;
    uint32_t mask, n;
} kidx;

static void kidx_init(kg_arena *a, kidx *x, size_t expect)
{
    uint32_t cap = 8;
    while (cap < expect * 2 + 2)
        cap <<= 1;
    x->keys = kg_arena_calloc(a, cap * sizeof *x->keys);
    x->pos = kg_arena_alloc(a, cap * sizeof *x->pos);
    for (uint32_t i = 0; i < cap; i++)
        x->pos[i] = -1;
    x->mask = cap - 1;
    x->n = 0;
}

static int32_t kidx_get(const kidx *x, const kg_json *k)
{
    for (uint32_t i = (uint32_t)go_hash(k) & x->mask;; i = (i + 1) & x->mask) {
        if (x->pos[i] < 0)
            return -1;
        if (go_eq(x->keys[i], k))
            return x->pos[i];
    }
}

/* insert if absent (first occurrence wins); keys that can never be equal (maps, slices) are not indexed */
static void kidx_put(kg_arena *a, kidx *x, const kg_json *k, int32_t pos)
{
    if (k && (k->type == KG_JSON_OBJECT || k->type == KG_JSON_ARRAY))
        return;
    if ((x->n + 1) * 2 > x->mask + 1) {
        kidx old = *x;
        kidx_init(a, x, x->n + 1);
        for (uint32_t i = 0; i <= old.mask; i++)
            if (old.pos[i] >= 0)
                kidx_put(a, x, old.keys[i], old.pos[i]);
    }
    uint32_t i = (uint32_t)go_hash(k) & x->mask;
    for (; x->pos[i] >= 0; i = (i + 1) & x->mask)
        if (go_eq(x->keys[i], k))
            return;
    x->keys[i] = k;
    x->pos[i] = pos;
    x->n++;
}

/* the value an item is identified by: item[merge_key] for maps (NULL pointer if missing), else the item */
static const kg_json *item_key(const kg_json *item, const char *mk)
{
    if (mk && *mk) {
        if (!item || item->type != KG_JSON_OBJECT)
            return NULL;
        return kg_json_get(item, mk);
    }
    return item;
}

static void kidx_build(kg_arena *a, kidx *x, const kg_json *list, const char *mk)
{
    kidx_init(a, x, list ? list->len : 0);
    if (!list)
        return;
    for (uint32_t i = 0; i < list->len; i++) {
        const kg_json *k = item_key(list->u.items[i], mk);
        if (k || !(mk && *mk))
            kidx_put(a, x, k, (int32_t)i);
    }
}

static int32_t kidx_find(const kidx *x, const kg_json *item, const char *mk)
{
    const kg_json *k = item_key(item, mk);
    if (!k && mk && *mk)
        return -1;
    if (k && (k->type == KG_JSON_OBJECT || k->type == KG_JSON_ARRAY))
        return -1;
    return kidx_get(x, k);
}

static kg_json *list_new(kg_arena *a, uint32_t cap)
{
    kg_json *l = kg_json_new_array(a);
    if (cap) {
        l->u.items = kg_arena_alloc(a, cap * sizeof(kg_json *));
        l->cap = cap;
    }
    return l;
}

static void list_push(kg_arena *a, kg_json *l, kg_json *v)
{
    kg_json_array_append(a, l, v);
}

/* schema lookups; unknown fields get an all-zero description (merge like RFC 7386, lists replaced) */
static void lookup(smp *c, kg_patch_type t, const char *key, kg_patch_field *f)
{
    memset(f, 0, sizeof *f);
    if (c->s && t && c->s->field)
        if (!c->s->field(c->s, t, key, f))
            memset(f, 0, sizeof *f);
}

static bool strategy_is_merge(const kg_patch_field *f)
{
    return (f->strategy & KG_PATCH_STRATEGY_MERGE) != 0;
}
static bool strategy_is_replace(const kg_patch_field *f)
{
    return (f->strategy & KG_PATCH_STRATEGY_REPLACE) != 0;
}

/* ---- directive removal ----------------------------------------------------------------------------------- */

/* removeDirectives: drop maps carrying $patch (returns false if v itself is one) */
static bool remove_directives(kg_json *v)
{
    if (!v)
        return true;
    if (v->type == KG_JSON_OBJECT) {
        if (kg_json_get(v, DIRECTIVE))
            return false;
        uint32_t j = 0;
        for (uint32_t i = 0; i < v->len; i++)
            if (remove_directives(v->u.members[i].val))
                v->u.members[j++] = v->u.members[i];
        v->len = j;
    } else if (v->type == KG_JSON_ARRAY) {
        uint32_t j = 0;
        for (uint32_t i = 0; i < v->len; i++)
            if (remove_directives(v->u.items[i]))
                v->u.items[j++] = v->u.items[i];
        v->len = j;
    }
    return true;
}

static void discard_nulls(kg_json *v)
{
    if (v->type == KG_JSON_OBJECT) {
        uint32_t j = 0;
        for (uint32_t i = 0; i < v->len; i++) {
            if (v->u.members[i].val->type == KG_JSON_NULL)
                continue;
            discard_nulls(v->u.members[i].val);
            v->u.members[j++] = v->u.members[i];
        }
        v->len = j;
    } else if (v->type == KG_JSON_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++)
            discard_nulls(v->u.items[i]);
    }
}

/* final cleanup: directive keys left in values taken verbatim from the patch (typed decoding drops them upstream) */
static void strip_directive_keys(kg_json *v)
{
    if (v->type == KG_JSON_OBJECT) {
        uint32_t j = 0;
        for (uint32_t i = 0; i < v->len; i++) {
            const kg_json_member *m = &v->u.members[i];
            if (m->key_len && m->key[0] == '$' &&
                ((m->key_len == strlen(DIRECTIVE) && memcmp(m->key, DIRECTIVE, m->key_len) == 0) ||
                 (m->key_len == strlen(RETAIN_KEYS) && memcmp(m->key, RETAIN_KEYS, m->key_len) == 0) ||
                 has_prefix(m->key, m->key_len, SET_ORDER_PREFIX "/") ||
                 has_prefix(m->key, m->key_len, DEL_PRIM_PREFIX "/")))
                continue;
            strip_directive_keys(m->val);
            v->u.members[j++] = *m;
        }
        v->len = j;
    } else if (v->type == KG_JSON_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++)
            strip_directive_keys(v->u.items[i]);
    }
}

/* ---- element types and ordering -------------------------------------------------------------------------- */

typedef enum { EK_SCALAR, EK_MAP } elem_kind;

static int go_kind(const kg_json *v)
{
    if (!v)
        return KG_JSON_NULL;
    return v->type;
}

/* sliceElementType over up to two lists */
static bool slice_elem_kind(smp *c, const kg_json *l1, const kg_json *l2, elem_kind *out)
{
    const kg_json *ls[2] = {l1, l2};
    int prev = -1;
    for (int s = 0; s < 2; s++) {
        if (!ls[s])
            continue;
        for (uint32_t i = 0; i < ls[s]->len; i++) {
            int t = go_kind(ls[s]->u.items[i]);
            if (prev < 0) {
                prev = t;
                if (t == KG_JSON_ARRAY)
                    return fail(c, "lists of lists are not supported");
            } else if (prev != t) {
                kg_buf b = KG_BUF_INIT;
                kg_buf_puts(&b, "list element types are not identical: [");
                bool first = true;
                for (int k = 0; k < 2; k++) {
                    if (!first)
                        kg_buf_putc(&b, ' ');
                    first = false;
                    if (ls[k])
                        go_v(&b, ls[k]);
                    else
                        kg_buf_puts(&b, "[]");
                }
                kg_buf_putc(&b, ']');
                return fail_buf(c, &b);
            }
        }
    }
    if (prev < 0)
        return fail(c, "no elements in any of the given slices");
    *out = prev == KG_JSON_OBJECT ? EK_MAP : EK_SCALAR;
    return true;
}

static bool validate_merge_key(smp *c, const char *mk, const kg_json *list)
{
    if (!list)
        return true;
    for (uint32_t i = 0; i < list->len; i++) {
        const kg_json *m = list->u.items[i];
        if (!m || m->type != KG_JSON_OBJECT)
            return err_bad_arg_type(c, "map[string]interface {}", m);
        if (!kg_json_get(m, mk))
            return err_no_merge_key(c, m, mk);
    }
    return true;
}

typedef struct sort_ent {
    kg_json *item;
    int64_t rank;
    uint32_t seq;
} sort_ent;

static int cmp_sort_ent(const void *x, const void *y)
{
    const sort_ent *a = x, *b = y;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* normalizeSliceOrder: sort `list` by position in `order` (stable); $patch: delete items go last */
static bool normalize_slice_order(smp *c, kg_json *list, const kg_json *order, const char *mk, elem_kind kind)
{
    if (kind == EK_MAP) {
        if (!validate_merge_key(c, mk, list) || !validate_merge_key(c, mk, order))
            return false;
    }
    if (list->len < 2)
        return true;
    kidx x;
    kidx_build(c->a, &x, order, kind == EK_MAP ? mk : NULL);
    sort_ent *e = kg_arena_alloc(c->a, list->len * sizeof *e);
    for (uint32_t i = 0; i < list->len; i++) {
        kg_json *it = list->u.items[i];
        bool del = kind == EK_MAP && is_str(kg_json_get(it, DIRECTIVE), "delete");
        int32_t p = kidx_find(&x, it, kind == EK_MAP ? mk : NULL);
        e[i].item = it;
        e[i].rank = del ? INT64_MAX : (p >= 0 ? p : INT64_MAX - 1);
        e[i].seq = i;
    }
    qsort(e, list->len, sizeof *e, cmp_sort_ent);
    for (uint32_t i = 0; i < list->len; i++)
        list->u.items[i] = e[i].item;
    return true;
}

/* normalizeElementOrder + mergeSortedSlice */
static kg_json *normalize_element_order(smp *c, kg_json *patch_items, kg_json *server_only, const kg_json *patch_order,
                                        const kg_json *server_order, const char *mk, elem_kind kind)
{
    if (!normalize_slice_order(c, patch_items, patch_order, mk, kind) ||
        !normalize_slice_order(c, server_only, server_order, mk, kind))
        return NULL;
    const char *k = kind == EK_MAP ? mk : NULL;
    kidx x;
    kidx_build(c->a, &x, server_order, k);
    uint32_t n = patch_items->len + server_only->len, i = 0, j = 0;
    kg_json *out = list_new(c->a, n);
    for (uint32_t s = 0; s < n; s++) {
        if (i >= server_only->len) {
            list_push(c->a, out, patch_items->u.items[j++]);
        } else if (j >= patch_items->len) {
            list_push(c->a, out, server_only->u.items[i++]);
        } else {
            int32_t li = kidx_find(&x, server_only->u.items[i], k);
            int32_t ri = kidx_find(&x, patch_items->u.items[j], k);
            if (li >= 0 && ri >= 0 && li < ri)
                list_push(c->a, out, server_only->u.items[i++]);
            else
                list_push(c->a, out, patch_items->u.items[j++]);
        }
    }
    return out;
}

/* partition `merged` into items present in `by` and the others (server-only) */
static bool partition(smp *c, const kg_json *merged, const kg_json *by, const char *mk, kg_json **in, kg_json **out)
{
    *in = list_new(c->a, merged->len);
    *out = list_new(c->a, merged->len);
    kidx x;
    bool maps = mk && *mk;
    kidx_build(c->a, &x, by, maps ? mk : NULL);
    for (uint32_t i = 0; i < merged->len; i++) {
        kg_json *v = merged->u.items[i];
        if (maps) {
            if (!v || v->type != KG_JSON_OBJECT)
                return err_bad_arg_type(c, "map[string]interface {}", v);
            if (!kg_json_get(v, mk))
                return err_no_merge_key(c, v, mk);
        }
        list_push(c->a, kidx_find(&x, v, maps ? mk : NULL) >= 0 ? *in : *out, v);
    }
    return true;
}

/* ---- merging ---------------------------------------------------------------------------------------------- */

static kg_json *merge_map(smp *c, kg_json *orig, kg_json *patch, kg_patch_type t);

/* mergeSlice */
static kg_json *merge_slice(smp *c, kg_json *orig, kg_json *patch, kg_patch_type et, const char *mk, bool is_delete)
{
    if (orig->len == 0 && patch->len == 0)
        return orig;
    elem_kind kind;
    if (!slice_elem_kind(c, orig, patch, &kind))
        return NULL;
    kg_json *merged;
    if (kind != EK_MAP) {
        kidx x;
        if (is_delete) {
            kidx_build(c->a, &x, patch, NULL);
            kg_json *res = list_new(c->a, orig->len);
            for (uint32_t i = 0; i < orig->len; i++)
                if (kidx_find(&x, orig->u.items[i], NULL) < 0)
                    list_push(c->a, res, orig->u.items[i]);
            return res;
        }
        merged = list_new(c->a, orig->len + patch->len);
        kidx_init(c->a, &x, orig->len + patch->len);
        const kg_json *both[2] = {orig, patch};
        for (int s = 0; s < 2; s++)
            for (uint32_t i = 0; i < both[s]->len; i++) {
                kg_json *v = both[s]->u.items[i];
                if (kidx_find(&x, v, NULL) >= 0)
                    continue;
                kidx_put(c->a, &x, v, (int32_t)merged->len);
                list_push(c->a, merged, v);
            }
        mk = NULL;
    } else {
        if (!mk || !*mk) {
            /* schema.Name() of PatchMetaFromStruct is the element's reflect kind */
            kg_err_set(c->err, KG_EINVAL, "cannot merge lists without merge key for struct");
            return NULL;
        }
        /* mergeSliceWithSpecialElements */
        kg_json *plain = list_new(c->a, patch->len);
        kidx dels;
        kidx_init(c->a, &dels, 4);
        bool replace = false, any_del = false;
        for (uint32_t i = 0; i < patch->len; i++) {
            kg_json *v = patch->u.items[i];
            kg_json *d = kg_json_get(v, DIRECTIVE);
            if (!d) {
                list_push(c->a, plain, v);
            } else if (is_str(d, "delete")) {
                kg_json *kv = kg_json_get(v, mk);
                if (!kv) {
                    err_no_merge_key(c, v, mk);
                    return NULL;
                }
                kidx_put(c->a, &dels, kv, 0);
                any_del = true;
            } else if (is_str(d, "replace")) {
                replace = true;
            } else if (is_str(d, "merge")) {
                fail(c, "merging lists cannot yet be specified in the patch");
                return NULL;
            } else {
                err_bad_patch_type(c, d, v);
                return NULL;
            }
        }
        if (any_del) {
            kg_json *kept = list_new(c->a, orig->len);
            for (uint32_t i = 0; i < orig->len; i++) {
                const kg_json *kv = item_key(orig->u.items[i], mk);
                if (!kv || kidx_get(&dels, kv) < 0)
                    list_push(c->a, kept, orig->u.items[i]);
            }
            orig = kept;
        }
        if (replace) {
            orig = plain;
            patch = list_new(c->a, 0);
        } else {
            patch = plain;
        }
        /* mergeSliceWithoutSpecialElements */
        merged = list_new(c->a, orig->len + patch->len);
        for (uint32_t i = 0; i < orig->len; i++)
            list_push(c->a, merged, orig->u.items[i]);
        kidx x;
        kidx_build(c->a, &x, merged, mk);
        for (uint32_t i = 0; i < patch->len; i++) {
            kg_json *v = patch->u.items[i];
            kg_json *kv = kg_json_get(v, mk);
            if (!kv) {
                err_no_merge_key(c, v, mk);
                return NULL;
            }
            int32_t p = kidx_find(&x, v, mk);
            if (p >= 0) {
                kg_json *m = merge_map(c, merged->u.items[p], v, et);
                if (!m)
                    return NULL;
                merged->u.items[p] = m;
            } else {
                kidx_put(c->a, &x, kv, (int32_t)merged->len);
                list_push(c->a, merged, v);
            }
        }
    }
    kg_json *in, *out;
    if (!partition(c, merged, patch, mk, &in, &out))
        return NULL;
    return normalize_element_order(c, in, out, patch, orig, mk, kind);
}

static kg_json *merge_slice_handler(smp *c, kg_json *orig, kg_json *patch, const kg_patch_field *f, bool is_delete)
{
    /* deletion lists delete whatever the field's strategy (kubernetes#110472, 1.25+) */
    if (strategy_is_merge(f) || is_delete)
        return merge_slice(c, orig, patch, f->type, f->merge_key, is_delete);
    return patch;
}

/* extractKey: "<prefix>/<field>" -> field */
static const char *extract_key(smp *c, const kg_json_member *m, const char *prefix, const char *errmsg)
{
    size_t pn = strlen(prefix);
    const char *slash = memchr(m->key, '/', m->key_len);
    if (!slash || (size_t)(slash - m->key) != pn || memcmp(m->key, prefix, pn) != 0) {
        fail(c, errmsg);
        return NULL;
    }
    return slash + 1;
}

/* validatePatchWithSetOrderList */
static bool validate_set_order(smp *c, const kg_json *plist, const kg_json *order, const char *mk)
{
    if (!plist || plist->len == 0 || order->len == 0)
        return true;
    bool maps = mk && *mk;
    kg_json *non_del = list_new(c->a, plist->len);
    for (uint32_t i = 0; i < plist->len; i++) {
        kg_json *v = plist->u.items[i];
        if (maps) {
            if (!v || v->type != KG_JSON_OBJECT)
                return err_bad_arg_type(c, "map[string]interface {}", v);
            if (is_str(kg_json_get(v, DIRECTIVE), "delete"))
                continue;
        }
        list_push(c->a, non_del, v);
    }
    uint32_t pi = 0, si = 0;
    while (pi < non_del->len && si < order->len) {
        const kg_json *pv = non_del->u.items[pi], *sv = order->u.items[si];
        if (pv && pv->type == KG_JSON_OBJECT && kg_json_get(pv, DIRECTIVE)) {
            pi++;
            continue;
        }
        bool eq;
        if (!maps) {
            /* Go compares the items with ==, which panics for maps and slices (kube-apiserver answers 500) */
            const kg_json *bad = (pv && (pv->type == KG_JSON_OBJECT || pv->type == KG_JSON_ARRAY))   ? pv
                                 : (sv && (sv->type == KG_JSON_OBJECT || sv->type == KG_JSON_ARRAY)) ? sv
                                                                                                     : NULL;
            if (bad)
                return kg_err_set(c->err, KG_EINTERNAL, "runtime error: comparing uncomparable type %s", go_type(bad));
            eq = go_eq(pv, sv);
        } else {
            if (!pv || pv->type != KG_JSON_OBJECT)
                return err_bad_arg_type(c, "map[string]interface {}", pv);
            if (!sv || sv->type != KG_JSON_OBJECT)
                return err_bad_arg_type(c, "map[string]interface {}", sv);
            const kg_json *a = kg_json_get(pv, mk), *b = kg_json_get(sv, mk);
            if (!a)
                return err_no_merge_key(c, pv, mk);
            if (!b)
                return err_no_merge_key(c, sv, mk);
            eq = go_eq(a, b);
        }
        if (eq)
            pi++;
        si++;
    }
    if (pi < non_del->len && si >= order->len) {
        kg_buf b = KG_BUF_INIT;
        kg_buf_puts(&b, "the order in patch list:\n");
        go_v(&b, plist);
        kg_buf_puts(&b, "\n doesn't match " SET_ORDER_PREFIX " list:\n");
        go_v(&b, order);
        return fail_buf(c, &b);
    }
    return true;
}

/* mergePatchIntoOriginal: $setElementOrder/<field> directives */
static bool merge_set_order(smp *c, kg_json *orig, kg_json *patch, kg_patch_type t)
{
    for (uint32_t i = 0; i < patch->len;) {
        kg_json_member m = patch->u.members[i];
        if (!has_prefix(m.key, m.key_len, SET_ORDER_PREFIX)) {
            i++;
            continue;
        }
        del_key(patch, m.key, m.key_len); /* i now points at the next member */
        kg_json *order = m.val;
        if (!order || order->type != KG_JSON_ARRAY)
            return err_bad_arg_type(c, "[]interface {}", order);
        const char *key = extract_key(c, &m, SET_ORDER_PREFIX, "invalid patch format of setElementOrder list");
        if (!key)
            return false;
        size_t kn = m.key_len - (size_t)(key - m.key);
        kg_json *olist = kg_json_getn(orig, key, kn), *plist = kg_json_getn(patch, key, kn);
        if (olist && olist->type != KG_JSON_ARRAY)
            return err_bad_arg_type(c, "[]interface {}", olist);
        if (plist && plist->type != KG_JSON_ARRAY)
            return err_bad_arg_type(c, "[]interface {}", plist);
        char *kz = kg_arena_strndup(c->a, key, kn);
        kg_patch_field f;
        lookup(c, t, kz, &f);
        if (!validate_set_order(c, plist, order, f.merge_key))
            return false;
        kg_json *merged;
        if (olist && !plist) {
            merged = olist;
        } else if (!olist && plist) {
            remove_directives(plist);
            merged = plist;
        } else if (olist && plist) {
            if (!(merged = merge_slice_handler(c, olist, plist, &f, false)))
                return false;
        } else {
            continue;
        }
        kg_json *in, *out;
        const char *mk = f.merge_key && *f.merge_key ? f.merge_key : NULL;
        elem_kind kind;
        if (!slice_elem_kind(c, olist, plist, &kind))
            return false;
        if (kind == EK_MAP && !mk) {
            /* a list of maps without a merge key (untagged or unknown field) cannot be ordered: upstream fails
             * hashing the maps; keep the merged list as it is */
            kg_json_setn(c->a, orig, key, kn, merged);
            del_key(patch, key, kn);
            i = 0;
            continue;
        }
        if (!partition(c, merged, order, mk, &in, &out))
            return false;
        kg_json *both = normalize_element_order(c, in, out, order, olist, mk, kind);
        if (!both)
            return false;
        kg_json_setn(c->a, orig, key, kn, both);
        del_key(patch, key, kn);
        i = 0; /* members moved; rescan (directives are few) */
    }
    return true;
}

/* applyRetainKeysDirective */
static bool apply_retain_keys(smp *c, kg_json *orig, kg_json *patch)
{
    kg_json *rk = kg_json_get(patch, RETAIN_KEYS);
    if (!rk)
        return true;
    del_key(patch, RETAIN_KEYS, strlen(RETAIN_KEYS));
    if (rk->type != KG_JSON_ARRAY)
        return fail(c, "invalid patch format of retainKeys");
    kidx x;
    kidx_build(c->a, &x, rk, NULL);
    for (uint32_t i = 0; i < patch->len; i++) {
        const kg_json_member *m = &patch->u.members[i];
        if (m->val->type == KG_JSON_NULL || has_prefix(m->key, m->key_len, DEL_PRIM_PREFIX) ||
            has_prefix(m->key, m->key_len, SET_ORDER_PREFIX))
            continue;
        kg_json ks = {.type = KG_JSON_STRING, .len = m->key_len, .u.s = m->key};
        if (kidx_get(&x, &ks) < 0)
            return fail(c, "invalid patch format of retainKeys");
    }
    uint32_t j = 0;
    for (uint32_t i = 0; i < orig->len; i++) {
        const kg_json_member *m = &orig->u.members[i];
        kg_json ks = {.type = KG_JSON_STRING, .len = m->key_len, .u.s = m->key};
        if (kidx_get(&x, &ks) >= 0)
            orig->u.members[j++] = *m;
    }
    orig->len = j;
    return true;
}

/* ---- member index for large objects ----------------------------------------------------------------------
 * kg_json objects are looked up linearly; merging a big map (ConfigMap data, annotations) with a big patch would be
 * quadratic, so merge_map indexes the original's members by key. Deleted members become tombstones (val NULL)
 * until the loop ends, so indices stay valid. */
#define OIDX_MIN_MEMBERS 16


/* an object being merged into, with an optional index */
typedef struct objw {
    kg_json *o;
    kg_json_index *ix;
} objw;

static kg_json *ow_get(const objw *w, const char *k, size_t n)
{
    if (!w->ix)
        return kg_json_getn(w->o, k, n);
    int64_t i = kg_json_index_find(w->ix, w->o, k, n);
    return i < 0 ? NULL : w->o->u.members[i].val;
}

static void ow_set(kg_arena *a, objw *w, const char *k, size_t n, kg_json *v)
{
    if (!w->ix) {
        kg_json_setn(a, w->o, k, n, v);
        return;
    }
    int64_t i = kg_json_index_find(w->ix, w->o, k, n);
    if (i >= 0) {
        w->o->u.members[i].val = v;
        return;
    }
    kg_json *o = w->o;
    if (o->len == o->cap) {
        uint32_t nc = o->cap ? o->cap * 2 : 8;
        o->u.members = kg_arena_realloc(a, o->u.members, o->cap * sizeof *o->u.members, nc * sizeof *o->u.members);
        o->cap = nc;
    }
    kg_json_member *m = &o->u.members[o->len];
    m->key = kg_arena_strndup(a, k, n);
    m->key_len = (uint32_t)n;
    m->val = v;
    o->len++;
    if ((w->ix->n + 1) * 2 > w->ix->mask + 1)
        kg_json_index_build(a, w->ix, o, o->len);
    else
        kg_json_index_insert(w->ix, o, o->len - 1);
}

static void ow_del(objw *w, const char *k, size_t n)
{
    if (!w->ix) {
        del_key(w->o, k, n);
        return;
    }
    int64_t i = kg_json_index_find(w->ix, w->o, k, n);
    if (i >= 0)
        w->o->u.members[i].val = NULL; /* tombstone, compacted by ow_done */
}

static void ow_done(objw *w)
{
    if (!w->ix)
        return;
    uint32_t j = 0;
    for (uint32_t i = 0; i < w->o->len; i++)
        if (w->o->u.members[i].val)
            w->o->u.members[j++] = w->o->u.members[i];
    w->o->len = j;
}

/* mergeMap; orig and patch are owned (cloned) and may be modified; returns NULL on error */
static kg_json *merge_map(smp *c, kg_json *orig, kg_json *patch, kg_patch_type t)
{
    kg_json *d = kg_json_get(patch, DIRECTIVE);
    if (d) {
        if (is_str(d, "replace")) {
            del_key(patch, DIRECTIVE, strlen(DIRECTIVE));
            return patch;
        }
        if (is_str(d, "delete"))
            return kg_json_new_object(c->a);
        err_bad_patch_type(c, d, patch);
        return NULL;
    }
    if (!orig || orig->type != KG_JSON_OBJECT)
        orig = kg_json_new_object(c->a);
    if (!apply_retain_keys(c, orig, patch) || !merge_set_order(c, orig, patch, t))
        return NULL;

    kg_json_index ix;
    objw w = {orig, NULL};
    if (orig->len >= OIDX_MIN_MEMBERS && patch->len > 1) {
        kg_json_index_build(c->a, &ix, orig, patch->len);
        w.ix = &ix;
    }
    for (uint32_t i = 0; i < patch->len; i++) {
        const kg_json_member *m = &patch->u.members[i];
        const char *k = m->key;
        size_t kn = m->key_len;
        kg_json *pv = m->val;
        bool is_delete = false;
        if (has_prefix(k, kn, DEL_PRIM_PREFIX)) {
            const char *rest = extract_key(c, m, DEL_PRIM_PREFIX, "invalid patch format of primitive list");
            if (!rest)
                return NULL;
            kn -= (size_t)(rest - k);
            k = rest;
            is_delete = true;
        }
        if (pv->type == KG_JSON_NULL) {
            ow_del(&w, k, kn);
            continue;
        }
        kg_json *ov = ow_get(&w, k, kn);
        if (!ov || go_kind(ov) != go_kind(pv)) {
            if (!is_delete) {
                discard_nulls(pv);
                if (remove_directives(pv))
                    ow_set(c->a, &w, k, kn, pv);
                else if (ov)
                    ow_del(&w, k, kn);
            }
            continue;
        }
        kg_patch_field f;
        kg_json *nv;
        if (ov->type == KG_JSON_OBJECT) {
            char *kz = kg_arena_strndup(c->a, k, kn);
            lookup(c, t, kz, &f);
            nv = strategy_is_replace(&f) ? pv : merge_map(c, ov, pv, f.type);
        } else if (ov->type == KG_JSON_ARRAY) {
            char *kz = kg_arena_strndup(c->a, k, kn);
            lookup(c, t, kz, &f);
            nv = merge_slice_handler(c, ov, pv, &f, is_delete);
        } else {
            nv = pv;
        }
        if (!nv)
            return NULL;
        ow_set(c->a, &w, k, kn, nv);
    }
    ow_done(&w);
    return orig;
}

bool kg_patch_strategic(kg_arena *a, const kg_json *doc, const kg_json *patch, const kg_patch_schema *schema,
                        const char *kind, kg_json **out, kg_error *err)
{
    if (!a || !out || !doc || doc->type != KG_JSON_OBJECT)
        return kg_err_set(err, KG_EINVAL, "invalid JSON document");
    if (!patch || patch->type != KG_JSON_OBJECT) {
        const char *tn = !patch || patch->type == KG_JSON_NULL ? NULL
                         : patch->type == KG_JSON_ARRAY        ? "array"
                         : patch->type == KG_JSON_STRING       ? "string"
                         : patch->type == KG_JSON_BOOL         ? "bool"
                                                               : "number";
        if (!tn) { /* "null" decodes to an empty patch */
            *out = kg_json_clone(a, doc);
            return true;
        }
        return kg_err_set(err, KG_EINVAL, "json: cannot unmarshal %s into Go value of type map[string]interface {}",
                          tn);
    }
    smp c = {.a = a, .s = schema, .err = err};
    kg_patch_type t = (schema && schema->root && kind) ? schema->root(schema, kind) : NULL;
    kg_json *r = merge_map(&c, kg_json_clone(a, doc), kg_json_clone(a, patch), t);
    if (!r)
        return false;
    strip_directive_keys(r);
    *out = r;
    return true;
}

bool kg_patch_schema_lookup(const kg_patch_schema *s, const char *kind, const char *const *path, size_t n,
                            kg_patch_field *out)
{
    if (!s || !s->root || !s->field || !kind || n == 0)
        return false;
    kg_patch_type t = s->root(s, kind);
    kg_patch_field f;
    memset(&f, 0, sizeof f);
    for (size_t i = 0; i < n; i++) {
        if (!t || !s->field(s, t, path[i], &f))
            return false;
        t = f.type;
    }
    *out = f;
    return true;
}
