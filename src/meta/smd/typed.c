/* Typed values (smd.h): field sets, comparison, the apply merge and field removal over a kg_json value walked with
 * a schema (structured-merge-diff typed/{tofieldset,compare,merge,remove}.go). */
#include <stdlib.h>
#include <string.h>

#include "meta/smd/smd.h"

#define MAX_DEPTH 200

typedef struct tctx {
    kg_arena *a;
    const kg_smd_schema *s;
    const char **err;
    const char *stack[MAX_DEPTH + 2]; /* path element keys of the current node, printed only in error messages */
    size_t sp;
    kg_buf tmp;
    int depth;
} tctx;

static kg_smd_type child_type(const tctx *c, kg_smd_type t, const char *name)
{
    kg_smd_type out = {KG_SMD_DEDUCED, false, NULL, NULL};
    if (t.rel != KG_SMD_GRANULAR || !t.handle)
        return out;
    if (t.map)
        return kg_smd_root(t.handle);
    if (c->s && c->s->field && c->s->field(c->s, t.handle, name, &out))
        return out;
    out = (kg_smd_type){KG_SMD_DEDUCED, false, NULL, NULL};
    return out;
}

static kg_smd_type item_type(kg_smd_type t)
{
    return kg_smd_root(t.handle);
}

static bool is_list(kg_smd_type t)
{
    return t.rel == KG_SMD_SET || t.rel == KG_SMD_ASSOC;
}

static bool granular_object(kg_smd_type t, const kg_json *v)
{
    return v && v->type == KG_JSON_OBJECT && t.rel != KG_SMD_ATOMIC;
}

static bool granular_list(kg_smd_type t, const kg_json *v)
{
    return v && v->type == KG_JSON_ARRAY && is_list(t);
}

static char *field_key(kg_arena *a, const char *name)
{
    size_t n = strlen(name);
    char *k = kg_arena_alloc(a, n + 3);
    k[0] = 'f';
    k[1] = ':';
    memcpy(k + 2, name, n + 1);
    return k;
}

static bool fail(tctx *c, const char *fmt, const char *arg)
{
    kg_buf m = KG_BUF_INIT;
    for (size_t i = 0; i < c->sp; i++)
        kg_fs_write_element(&m, c->stack[i]);
    kg_buf_puts(&m, ": ");
    kg_buf_printf(&m, fmt, arg);
    *c->err = kg_arena_strndup(c->a, m.data, m.len);
    kg_buf_free(&m);
    return false;
}

typedef struct kv {
    const char *k;
    const kg_json *v;
} kv;

static int kv_cmp(const void *x, const void *y)
{
    return strcmp(((const kv *)x)->k, ((const kv *)y)->k);
}

/* The path element key of a list item: "k:{...}" (key fields sorted by name) or "v:<json>". A key field missing
 * from the item takes its schema default where Kubernetes has one (protocol: TCP). */
static bool item_key(tctx *c, kg_smd_type t, const kg_json *item, const char **out)
{
    kg_buf *b = &c->tmp; /* reused: no allocation per item */
    b->len = 0;
    if (t.rel == KG_SMD_SET) {
        kg_buf_puts(b, "v:");
        kg_json_write(b, item, KG_JSON_WRITE_NO_ESCAPE_HTML);
        *out = kg_arena_strndup(c->a, b->data, b->len);
        return true;
    }
    if (item->type != KG_JSON_OBJECT) {
        return fail(c, "%s", "associative list with keys has an element that is not a map");
    }
    kv keys[8];
    size_t n = 0;
    static const kg_json tcp = {.type = KG_JSON_STRING, .len = 3, .u.s = "TCP"};
    const char *p = t.keys ? t.keys : "";
    while (*p && n < 8) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char *name = kg_arena_strndup(c->a, p, len);
        const kg_json *v = kg_json_get(item, name);
        if (!v || v->type == KG_JSON_NULL) {
            if (!strcmp(name, "protocol"))
                v = &tcp;
            else {
                return fail(c,
                            "associative list with keys has an element that omits key field \"%s\" (and doesn't "
                            "have default value)",
                            name);
            }
        }
        keys[n++] = (kv){name, v};
        p += len;
        if (*p == ',')
            p++;
    }
    qsort(keys, n, sizeof keys[0], kv_cmp);
    kg_buf_puts(b, "k:{");
    for (size_t i = 0; i < n; i++) {
        if (i)
            kg_buf_putc(b, ',');
        kg_json_write_string(b, keys[i].k, strlen(keys[i].k), KG_JSON_WRITE_NO_ESCAPE_HTML);
        kg_buf_putc(b, ':');
        kg_json_write(b, keys[i].v, KG_JSON_WRITE_NO_ESCAPE_HTML);
    }
    kg_buf_putc(b, '}');
    *out = kg_arena_strndup(c->a, b->data, b->len);
    return true;
}

/* Item keys of a granular list; duplicates are an error when strict. */
static bool list_keys(tctx *c, kg_smd_type t, const kg_json *l, const char ***out, bool strict)
{
    const char **k = kg_arena_alloc(c->a, (l->len + 1) * sizeof(char *));
    for (size_t i = 0; i < l->len; i++) {
        if (!item_key(c, t, l->u.items[i], &k[i]))
            return false;
        if (strict)
            for (size_t j = 0; j < i; j++)
                if (!strcmp(k[i], k[j])) {
                    kg_buf e = KG_BUF_INIT;
                    kg_fs_write_element(&e, k[i]);
                    const char *el = kg_arena_strndup(c->a, e.data, e.len);
                    kg_buf_free(&e);
                    return fail(c, "duplicate entries for key %s", el);
                }
    }
    *out = k;
    return true;
}

static void path_push(tctx *c, const char *key, size_t *mark)
{
    *mark = c->sp;
    if (c->sp < MAX_DEPTH + 2)
        c->stack[c->sp++] = key;
}

/* ---- object helpers: big objects (a ConfigMap's 30,000 keys) are looked up through a sorted index, built
 * objects take members without a duplicate check (their keys are unique by construction) ---- */

typedef struct oidx {
    const kg_json *o;
    uint32_t *ord; /* member indexes sorted by key; NULL: small object, linear search */
} oidx;

static int ord_cmp(const void *x, const void *y, void *ctx)
{
    const kg_json *o = ctx;
    return strcmp(o->u.members[*(const uint32_t *)x].key, o->u.members[*(const uint32_t *)y].key);
}

static void oidx_init(kg_arena *a, oidx *x, const kg_json *o)
{
    x->o = o;
    x->ord = NULL;
    if (o->len <= 16)
        return;
    x->ord = kg_arena_alloc(a, o->len * sizeof(uint32_t));
    for (uint32_t i = 0; i < o->len; i++)
        x->ord[i] = i;
    qsort_r(x->ord, o->len, sizeof(uint32_t), ord_cmp, (void *)o);
}

/* Index of member name, or -1. */
static long oidx_find(const oidx *x, const char *name)
{
    const kg_json *o = x->o;
    if (!x->ord) {
        for (uint32_t i = 0; i < o->len; i++)
            if (!strcmp(o->u.members[i].key, name))
                return (long)i;
        return -1;
    }
    size_t lo = 0, hi = o->len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(o->u.members[x->ord[mid]].key, name);
        if (!c)
            return (long)x->ord[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static kg_json *obj_with_cap(kg_arena *a, size_t n)
{
    kg_json *o = kg_json_new_object(a);
    if (n) {
        o->u.members = kg_arena_alloc(a, n * sizeof(kg_json_member));
        o->cap = (uint32_t)n;
    }
    return o;
}

static void obj_push(kg_json *o, const kg_json_member *m, kg_json *v)
{
    kg_json_member *d = &o->u.members[o->len++];
    d->key = m->key;
    d->key_len = m->key_len;
    d->val = v;
}

/* ---- field sets ---- */

static bool to_set(tctx *c, kg_smd_type t, const kg_json *v, kg_fs *s)
{
    if (++c->depth > MAX_DEPTH) {
        c->depth--;
        return fail(c, "%s", "the object is nested too deeply");
    }
    bool ok = true;
    if (granular_object(t, v) && v->len) {
        for (size_t i = 0; i < v->len && ok; i++) {
            const char *name = v->u.members[i].key;
            const kg_json *cv = v->u.members[i].val;
            kg_fs *k = kg_fs_child(c->a, s, field_key(c->a, name), true);
            if (cv->type == KG_JSON_NULL || (cv->type == KG_JSON_OBJECT && !cv->len)) {
                k->member = true;
                continue;
            }
            size_t mark;
            path_push(c, k->key, &mark);
            ok = to_set(c, child_type(c, t, name), cv, k);
            c->sp = mark;
        }
    } else if (granular_list(t, v)) {
        const char **keys;
        ok = list_keys(c, t, v, &keys, true);
        for (size_t i = 0; ok && i < v->len; i++) {
            kg_fs *k = kg_fs_child(c->a, s, keys[i], true);
            k->member = true;
            const kg_json *item = v->u.items[i];
            if (item->type == KG_JSON_OBJECT && item->len) {
                size_t mark;
                path_push(c, k->key, &mark);
                ok = to_set(c, item_type(t), item, k);
                c->sp = mark;
            }
        }
    } else {
        s->member = true;
    }
    c->depth--;
    return ok;
}

bool kg_smd_fieldset(kg_arena *a, const kg_smd_schema *s, kg_smd_type t, const kg_json *v, kg_fs **out,
                     const char **err)
{
    tctx c = {.a = a, .s = s, .err = err};
    kg_fs *fs = kg_fs_new(a);
    bool ok = !v || to_set(&c, t, v, fs);
    fs->member = false;
    *out = fs;
    kg_buf_free(&c.tmp);
    return ok;
}

/* ---- compare ---- */

static bool subtree(tctx *c, kg_smd_type t, const kg_json *v, kg_fs *k)
{
    if (v->type == KG_JSON_NULL || (v->type == KG_JSON_OBJECT && !v->len) ||
        !(granular_object(t, v) || granular_list(t, v))) {
        k->member = true;
        return true;
    }
    return to_set(c, t, v, k);
}

static bool cmp(tctx *c, kg_smd_type t, const kg_json *o, const kg_json *n, kg_fs *A, kg_fs *M, kg_fs *R);

static bool cmp_child(tctx *c, kg_smd_type ct, const char *key, const kg_json *ov, const kg_json *nv, kg_fs *A,
                      kg_fs *M, kg_fs *R)
{
    size_t mark;
    path_push(c, key, &mark);
    bool ok;
    if (!nv)
        ok = subtree(c, ct, ov, kg_fs_child(c->a, R, key, true));
    else if (!ov)
        ok = subtree(c, ct, nv, kg_fs_child(c->a, A, key, true));
    else
        ok = cmp(c, ct, ov, nv, kg_fs_child(c->a, A, key, true), kg_fs_child(c->a, M, key, true),
                 kg_fs_child(c->a, R, key, true));
    c->sp = mark;
    return ok;
}

static bool cmp(tctx *c, kg_smd_type t, const kg_json *o, const kg_json *n, kg_fs *A, kg_fs *M, kg_fs *R)
{
    if (++c->depth > MAX_DEPTH) {
        c->depth--;
        return fail(c, "%s", "the object is nested too deeply");
    }
    bool ok = true;
    if (granular_object(t, o) && granular_object(t, n) && o->len && n->len) {
        oidx oi, ni;
        oidx_init(c->a, &oi, o);
        oidx_init(c->a, &ni, n);
        for (size_t i = 0; i < o->len && ok; i++) {
            const char *name = o->u.members[i].key;
            long j = oidx_find(&ni, name);
            ok = cmp_child(c, child_type(c, t, name), field_key(c->a, name), o->u.members[i].val,
                           j >= 0 ? n->u.members[j].val : NULL, A, M, R);
        }
        for (size_t i = 0; i < n->len && ok; i++) {
            const char *name = n->u.members[i].key;
            if (oidx_find(&oi, name) < 0)
                ok = cmp_child(c, child_type(c, t, name), field_key(c->a, name), NULL, n->u.members[i].val, A, M, R);
        }
    } else if (granular_list(t, o) && granular_list(t, n)) {
        const char **ok_, **nk;
        ok = list_keys(c, t, o, &ok_, false) && list_keys(c, t, n, &nk, true);
        kg_smd_type it = item_type(t);
        for (size_t i = 0; ok && i < o->len; i++) {
            size_t j = 0;
            while (j < n->len && strcmp(ok_[i], nk[j]))
                j++;
            ok = cmp_child(c, it, ok_[i], o->u.items[i], j < n->len ? n->u.items[j] : NULL, A, M, R);
            if (j < n->len) /* a list item present on both sides is not itself modified */
                kg_fs_child(c->a, M, ok_[i], true)->member = false;
        }
        for (size_t j = 0; ok && j < n->len; j++) {
            size_t i = 0;
            while (i < o->len && strcmp(ok_[i], nk[j]))
                i++;
            if (i == o->len) {
                size_t mark;
                path_push(c, nk[j], &mark);
                kg_fs *k = kg_fs_child(c->a, A, nk[j], true);
                k->member = true;
                if (n->u.items[j]->type == KG_JSON_OBJECT && n->u.items[j]->len)
                    ok = to_set(c, it, n->u.items[j], k);
                c->sp = mark;
            }
        }
    } else if (!kg_json_equal(o, n)) {
        /* a scalar or atomic value changed, or the shape changed: the old subtree goes, the new one comes */
        bool og = granular_object(t, o) || granular_list(t, o), ng = granular_object(t, n) || granular_list(t, n);
        if ((og && o->len) || (ng && n->len)) {
            if (og && o->len)
                ok = to_set(c, t, o, R);
            if (ok && ng && n->len)
                ok = to_set(c, t, n, A);
            if (!(og && o->len) || !(ng && n->len))
                M->member = true;
        } else {
            M->member = true;
        }
    }
    c->depth--;
    return ok;
}

bool kg_smd_compare(kg_arena *a, const kg_smd_schema *s, kg_smd_type t, const kg_json *old, const kg_json *neu,
                    kg_smd_comparison *out, const char **err)
{
    tctx c = {.a = a, .s = s, .err = err};
    out->added = kg_fs_new(a);
    out->modified = kg_fs_new(a);
    out->removed = kg_fs_new(a);
    bool ok;
    if (!old || (old->type == KG_JSON_OBJECT && !old->len))
        ok = !neu || to_set(&c, t, neu, out->added);
    else
        ok = cmp(&c, t, old, neu, out->added, out->modified, out->removed);
    out->added->member = out->modified->member = out->removed->member = false;
    kg_buf_free(&c.tmp);
    return ok;
}

/* ---- merge ---- */

/* A copy of v without null fields (a null in a new subtree means "absent"). */
static kg_json *strip_nulls(kg_arena *a, const kg_json *v)
{
    if (v->type == KG_JSON_OBJECT) {
        kg_json *o = obj_with_cap(a, v->len);
        for (size_t i = 0; i < v->len; i++)
            if (v->u.members[i].val->type != KG_JSON_NULL)
                obj_push(o, &v->u.members[i], strip_nulls(a, v->u.members[i].val));
        return o;
    }
    if (v->type == KG_JSON_ARRAY) {
        kg_json *arr = kg_json_new_array(a);
        for (size_t i = 0; i < v->len; i++)
            kg_json_array_append(a, arr, strip_nulls(a, v->u.items[i]));
        return arr;
    }
    return (kg_json *)v;
}

static bool merge(tctx *c, kg_smd_type t, const kg_json *l, const kg_json *r, kg_json **out);

static bool merge_object(tctx *c, kg_smd_type t, const kg_json *l, const kg_json *r, kg_json **out)
{
    kg_json *o = obj_with_cap(c->a, (size_t)l->len + r->len);
    for (size_t i = 0; i < l->len; i++)
        obj_push(o, &l->u.members[i], l->u.members[i].val);
    oidx li;
    oidx_init(c->a, &li, l);
    bool removed = false;
    for (size_t i = 0; i < r->len; i++) {
        const char *name = r->u.members[i].key;
        const kg_json *rv = r->u.members[i].val;
        long j = oidx_find(&li, name);
        if (rv->type == KG_JSON_NULL) {
            if (j >= 0 && o->u.members[j].val) {
                o->u.members[j].val = NULL; /* removed below, keeping the indexes valid meanwhile */
                removed = true;
            }
            continue;
        }
        kg_json *nv;
        size_t mark;
        path_push(c, field_key(c->a, name), &mark);
        bool ok = j >= 0 ? merge(c, child_type(c, t, name), l->u.members[j].val, rv, &nv)
                         : (nv = strip_nulls(c->a, rv), true);
        c->sp = mark;
        if (!ok)
            return false;
        if (j >= 0)
            o->u.members[j].val = nv;
        else
            obj_push(o, &r->u.members[i], nv); /* config keys are unique (the decoder rejects duplicates) */
    }
    if (removed) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < o->len; i++)
            if (o->u.members[i].val)
                o->u.members[n++] = o->u.members[i];
        o->len = n;
    }
    *out = o;
    return true;
}

static long find_key(const char **keys, size_t n, const char *k)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(keys[i], k))
            return (long)i;
    return -1;
}

/* structured-merge-diff's list merge: the config's order for the items it names, live-only items kept in
 * place relative to the shared ones. */
static bool merge_list(tctx *c, kg_smd_type t, const kg_json *l, const kg_json *r, kg_json **out)
{
    const char **lk, **rk;
    if (!list_keys(c, t, l, &lk, false) || !list_keys(c, t, r, &rk, true))
        return false;
    size_t L = l->len, R = r->len;
    kg_smd_type it = item_type(t);
    size_t *shared = kg_arena_alloc(c->a, (R + 1) * sizeof(size_t)), ns = 0, si = 0;
    for (size_t i = 0; i < R; i++)
        if (find_key(lk, L, rk[i]) >= 0)
            shared[ns++] = i;
    bool *merged_r = kg_arena_calloc(c->a, R + 1);
    kg_json *o = kg_json_new_array(c->a);
    const char *next = si < ns ? rk[shared[si++]] : NULL;
    size_t li = 0, ri = 0;
    while (li < L || ri < R) {
        if (li < L && ri < R) {
            if (!strcmp(lk[li], rk[ri])) {
                kg_json *m;
                if (!merge(c, it, l->u.items[li], r->u.items[ri], &m))
                    return false;
                merged_r[ri] = true;
                kg_json_array_append(c->a, o, m);
                li++, ri++;
                next = si < ns ? rk[shared[si++]] : NULL;
                continue;
            }
            if (find_key(rk, R, lk[li]) >= 0 && next && strcmp(next, lk[li])) {
                li++;
                continue;
            }
        }
        if (li < L) {
            long j = find_key(rk, R, lk[li]);
            if (j < 0) {
                kg_json_array_append(c->a, o, l->u.items[li]);
                li++;
                continue;
            }
            if (merged_r[j]) {
                li++;
                continue;
            }
        }
        if (ri < R) {
            merged_r[ri] = true;
            long j = find_key(lk, L, rk[ri]);
            kg_json *m;
            if (j >= 0) {
                if (!merge(c, it, l->u.items[j], r->u.items[ri], &m))
                    return false;
            } else {
                m = strip_nulls(c->a, r->u.items[ri]);
            }
            kg_json_array_append(c->a, o, m);
            if (next && !strcmp(next, rk[ri]))
                next = si < ns ? rk[shared[si++]] : NULL;
            ri++;
        }
    }
    *out = o;
    return true;
}

static bool merge(tctx *c, kg_smd_type t, const kg_json *l, const kg_json *r, kg_json **out)
{
    if (++c->depth > MAX_DEPTH) {
        c->depth--;
        return fail(c, "%s", "the object is nested too deeply");
    }
    bool ok = true;
    if (granular_object(t, l) && granular_object(t, r))
        ok = merge_object(c, t, l, r, out);
    else if (granular_list(t, l) && granular_list(t, r))
        ok = merge_list(c, t, l, r, out);
    else
        *out = strip_nulls(c->a, r);
    c->depth--;
    return ok;
}

bool kg_smd_merge(kg_arena *a, const kg_smd_schema *s, kg_smd_type t, const kg_json *live, const kg_json *config,
                  kg_json **out, const char **err)
{
    tctx c = {.a = a, .s = s, .err = err};
    bool ok;
    if (!live)
        ok = (*out = strip_nulls(a, config)) != NULL;
    else
        ok = merge(&c, t, live, config, out);
    kg_buf_free(&c.tmp);
    return ok;
}

/* ---- removal ---- */

static void remove_in(tctx *c, kg_smd_type t, kg_json *v, const kg_fs *s)
{
    if (++c->depth > MAX_DEPTH) {
        c->depth--;
        return;
    }
    if (granular_object(t, v)) {
        for (unsigned i = 0; i < s->n; i++) {
            const kg_fs *k = s->kids[i];
            if (k->key[0] != 'f')
                continue;
            const char *name = k->key + 2;
            kg_json *cv = kg_json_get(v, name);
            if (!cv)
                continue;
            if (k->member) {
                kg_json_del(v, name);
            } else if (k->n) {
                kg_smd_type ct = child_type(c, t, name);
                bool had = cv->type == KG_JSON_OBJECT && cv->len;
                remove_in(c, ct, cv, k);
                /* a map emptied by the removal disappears (Go omits empty maps) */
                if (had && cv->type == KG_JSON_OBJECT && !cv->len && (ct.map || ct.rel == KG_SMD_DEDUCED))
                    kg_json_del(v, name);
            }
        }
    } else if (granular_list(t, v)) {
        const char **keys;
        if (!list_keys(c, t, v, &keys, false)) {
            c->depth--;
            return;
        }
        for (size_t i = v->len; i-- > 0;) {
            kg_fs *k = kg_fs_child(c->a, (kg_fs *)s, keys[i], false);
            if (!k)
                continue;
            if (k->member)
                kg_json_array_remove(v, i);
            else if (k->n)
                remove_in(c, item_type(t), v->u.items[i], k);
        }
    }
    c->depth--;
}

void kg_smd_remove(kg_arena *a, const kg_smd_schema *s, kg_smd_type t, kg_json *v, const kg_fs *remove)
{
    const char *err = NULL;
    tctx c = {.a = a, .s = s, .err = &err};
    if (v && remove)
        remove_in(&c, t, v, remove);
    kg_buf_free(&c.tmp);
}
