/* managedFields (smd.h): the entries, the Update and Apply algorithms (structured-merge-diff merge/update.go with
 * apimachinery's managedfields wrappers: ignored fields, the "current operation" time rule, the cap of Update
 * entries) and upstream's conflict message (apimachinery internal/conflict.go). */
#include <stdlib.h>
#include <string.h>

#include "meta/smd/smd.h"

/* ---- entries ---- */

static void push(kg_arena *a, kg_smd_managers *m, kg_smd_manager e)
{
    if (m->n == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 4;
        m->v = kg_arena_realloc(a, m->v, m->cap * sizeof(kg_smd_manager), nc * sizeof(kg_smd_manager));
        m->cap = nc;
    }
    m->v[m->n++] = e;
}

bool kg_smd_managers_decode(kg_arena *a, const kg_json *list, kg_smd_managers *out, const char **err)
{
    memset(out, 0, sizeof *out);
    if (!list || list->type == KG_JSON_NULL)
        return true;
    if (list->type != KG_JSON_ARRAY) {
        *err = "metadata.managedFields: expected a list";
        return false;
    }
    for (size_t i = 0; i < list->len; i++) {
        const kg_json *e = list->u.items[i];
        if (e->type != KG_JSON_OBJECT) {
            *err = "metadata.managedFields: expected an object";
            return false;
        }
        const char *op = kg_json_get_str(e, "operation"), *av = kg_json_get_str(e, "apiVersion");
        const char *ft = kg_json_get_str(e, "fieldsType");
        if (!op || (strcmp(op, "Apply") && strcmp(op, "Update"))) {
            *err = kg_arena_sprintf(a, "metadata.managedFields[%zu]: unsupported operation", i);
            return false;
        }
        if (!av || !av[0]) {
            *err = kg_arena_sprintf(a, "metadata.managedFields[%zu]: empty apiVersion", i);
            return false;
        }
        if (!ft || strcmp(ft, "FieldsV1")) {
            *err = kg_arena_sprintf(a, "metadata.managedFields[%zu]: unsupported fieldsType", i);
            return false;
        }
        kg_smd_manager m = {0};
        const kg_json *f = kg_json_get(e, "fieldsV1");
        if (f && f->type != KG_JSON_NULL) {
            if (!kg_fs_from_json(a, f, &m.set, err))
                return false;
        } else {
            m.set = kg_fs_new(a);
        }
        const char *mgr = kg_json_get_str(e, "manager"), *sub = kg_json_get_str(e, "subresource");
        m.manager = mgr ? mgr : "";
        m.apply = !strcmp(op, "Apply");
        m.api_version = av;
        m.subresource = sub ? sub : "";
        m.time = kg_json_get_str(e, "time");
        push(a, out, m);
    }
    return true;
}

static int entry_cmp(const void *x, const void *y)
{
    const kg_smd_manager *p = x, *q = y;
    if (p->apply != q->apply)
        return p->apply ? -1 : 1;
    const char *pt = p->time ? p->time : "", *qt = q->time ? q->time : "";
    int c = strcmp(pt, qt);
    if (!c)
        c = strcmp(p->manager, q->manager);
    if (!c)
        c = strcmp(p->api_version, q->api_version);
    if (!c)
        c = strcmp(p->subresource, q->subresource);
    return c;
}

static kg_json *sref(kg_arena *a, const char *s)
{
    return kg_json_new_str_ref(a, s, strlen(s));
}

kg_json *kg_smd_managers_encode(kg_arena *a, const kg_smd_managers *m)
{
    kg_smd_manager *v = kg_arena_alloc(a, (m->n + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++)
        if (!kg_fs_empty(m->v[i].set))
            v[n++] = m->v[i];
    qsort(v, n, sizeof *v, entry_cmp);
    kg_json *arr = kg_json_new_array(a);
    for (size_t i = 0; i < n; i++) {
        kg_json *e = kg_json_new_object(a);
        kg_json_set(a, e, "manager", sref(a, v[i].manager));
        kg_json_set(a, e, "operation", sref(a, v[i].apply ? "Apply" : "Update"));
        kg_json_set(a, e, "apiVersion", sref(a, v[i].api_version));
        if (v[i].time)
            kg_json_set(a, e, "time", sref(a, v[i].time));
        kg_json_set(a, e, "fieldsType", sref(a, "FieldsV1"));
        kg_json_set(a, e, "fieldsV1", kg_fs_to_json(a, v[i].set));
        if (v[i].subresource[0])
            kg_json_set(a, e, "subresource", sref(a, v[i].subresource));
        kg_json_array_append(a, arr, e);
    }
    return arr;
}

const kg_fs *kg_smd_ignored_fields(kg_arena *a, bool with_status)
{
    static const char *const meta[] = {"f:name",       "f:namespace",     "f:creationTimestamp",
                                       "f:selfLink",   "f:uid",           "f:clusterName",
                                       "f:generation", "f:managedFields", "f:resourceVersion"};
    kg_fs *s = kg_fs_new(a);
    kg_fs_child(a, s, "f:apiVersion", true)->member = true;
    kg_fs_child(a, s, "f:kind", true)->member = true;
    kg_fs *md = kg_fs_child(a, s, "f:metadata", true);
    md->member = true; /* the metadata node itself (not what is under it) */
    for (size_t i = 0; i < sizeof meta / sizeof meta[0]; i++)
        kg_fs_child(a, md, meta[i], true)->member = true;
    if (with_status)
        kg_fs_child(a, s, "f:status", true)->member = true;
    return s;
}

/* x without the ignored paths: an ignored member drops the whole subtree, except f:metadata whose own membership
 * only is ignored. */
static kg_fs *strip(kg_arena *a, const kg_fs *x, const kg_fs *ign, bool top)
{
    kg_fs *r = kg_fs_new(a);
    r->key = x->key;
    r->member = x->member && !(ign && ign->member);
    for (unsigned i = 0; i < x->n; i++) {
        kg_fs *ic = ign ? kg_fs_child(a, (kg_fs *)ign, x->kids[i]->key, false) : NULL;
        kg_fs *d;
        if (!ic)
            d = x->kids[i];
        else if (ic->member && !ic->n && !(top && !strcmp(ic->key, "f:metadata")))
            continue;
        else
            d = strip(a, x->kids[i], ic, false);
        if (d->member || d->n) {
            if (r->n == r->cap) {
                unsigned nc = r->cap ? r->cap * 2 : 4;
                r->kids = kg_arena_realloc(a, r->kids, r->cap * sizeof(kg_fs *), nc * sizeof(kg_fs *));
                r->cap = nc;
            }
            r->kids[r->n++] = d;
        }
    }
    return r;
}

static const kg_fs *ignored_of(kg_arena *a, const kg_smd_op *op)
{
    return op->ignored ? op->ignored : kg_smd_ignored_fields(a, false);
}

static long find_entry(const kg_smd_managers *m, const kg_smd_op *op, bool apply)
{
    for (size_t i = 0; i < m->n; i++) {
        const kg_smd_manager *e = &m->v[i];
        if (e->apply == apply && !strcmp(e->manager, op->manager) && !strcmp(e->subresource, op->subresource) &&
            (apply || !strcmp(e->api_version, op->api_version)))
            return (long)i;
    }
    return -1;
}

static void drop_empty(kg_smd_managers *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++)
        if (!kg_fs_empty(m->v[i].set))
            m->v[n++] = m->v[i];
    m->n = n;
}

static int age_cmp(const void *x, const void *y)
{
    const kg_smd_manager *p = *(kg_smd_manager *const *)x, *q = *(kg_smd_manager *const *)y;
    int c = strcmp(p->time ? p->time : "", q->time ? q->time : "");
    return c ? c : strcmp(p->manager, q->manager);
}

/* capManagers: more than KG_SMD_MAX_UPDATE_MANAGERS Update entries -> the oldest merge into "ancient-changes"
 * (one per apiVersion) until the count fits. */
static void cap_managers(kg_arena *a, kg_smd_managers *m)
{
    for (;;) {
        size_t nupd = 0;
        for (size_t i = 0; i < m->n; i++)
            nupd += !m->v[i].apply;
        if (nupd <= KG_SMD_MAX_UPDATE_MANAGERS)
            return;
        kg_smd_manager **u = kg_arena_alloc(a, nupd * sizeof *u);
        size_t k = 0;
        for (size_t i = 0; i < m->n; i++)
            if (!m->v[i].apply && strcmp(m->v[i].manager, "ancient-changes"))
                u[k++] = &m->v[i];
        if (!k)
            return;
        qsort(u, k, sizeof *u, age_cmp);
        kg_smd_manager *old = u[0];
        kg_smd_manager *anc = NULL;
        for (size_t i = 0; i < m->n; i++)
            if (!m->v[i].apply && !strcmp(m->v[i].manager, "ancient-changes") &&
                !strcmp(m->v[i].api_version, old->api_version))
                anc = &m->v[i];
        if (anc) {
            anc->set = kg_fs_union(a, anc->set, old->set);
            old->set = kg_fs_new(a);
        } else {
            old->manager = "ancient-changes";
            old->subresource = "";
        }
        drop_empty(m);
    }
}

bool kg_smd_update(kg_arena *a, const kg_smd_op *op, const kg_json *old, const kg_json *neu, kg_smd_managers *m,
                   const char **err)
{
    kg_smd_comparison c;
    if (!kg_smd_compare(a, op->schema, op->root, old, neu, &c, err))
        return false;
    const kg_fs *ign = ignored_of(a, op);
    kg_fs *changed = strip(a, kg_fs_union(a, c.modified, c.added), ign, true);
    kg_fs *removed = strip(a, c.removed, ign, true);
    long self = find_entry(m, op, false);
    for (size_t i = 0; i < m->n; i++) {
        if ((long)i == self)
            continue;
        m->v[i].set = kg_fs_difference(a, kg_fs_difference(a, m->v[i].set, changed), removed);
    }
    if (!kg_fs_empty(changed)) {
        if (self < 0) {
            push(a, m, (kg_smd_manager){op->manager, false, op->api_version, op->subresource, op->now, kg_fs_new(a)});
            self = (long)m->n - 1;
        }
        kg_smd_manager *e = &m->v[self];
        e->set = kg_fs_union(a, kg_fs_difference(a, e->set, removed), changed);
        e->time = op->now;
    } else if (self >= 0) {
        m->v[self].set = kg_fs_difference(a, m->v[self].set, removed);
    }
    drop_empty(m);
    cap_managers(a, m);
    return true;
}

/* Whether s has any member at or under it. */
static bool owned(const kg_fs *s)
{
    return !kg_fs_empty(s) || (s && s->member);
}

/* The paths of last that nobody owns any more (nothing at or under them in keep), to prune. */
static kg_fs *to_prune(kg_arena *a, const kg_fs *last, const kg_fs *keep)
{
    kg_fs *r = kg_fs_new(a);
    r->key = last->key;
    r->member = last->member && !owned(keep);
    for (unsigned i = 0; i < last->n; i++) {
        kg_fs *kc = keep ? kg_fs_child(a, (kg_fs *)keep, last->kids[i]->key, false) : NULL;
        kg_fs *d = to_prune(a, last->kids[i], kc);
        if (d->member || d->n) {
            if (r->n == r->cap) {
                unsigned nc = r->cap ? r->cap * 2 : 4;
                r->kids = kg_arena_realloc(a, r->kids, r->cap * sizeof(kg_fs *), nc * sizeof(kg_fs *));
                r->cap = nc;
            }
            r->kids[r->n++] = d;
        }
    }
    return r;
}

bool kg_smd_apply(kg_arena *a, const kg_smd_op *op, const kg_json *live, const kg_json *config, bool force,
                  kg_smd_managers *m, kg_smd_apply_result *out, const char **err)
{
    memset(out, 0, sizeof *out);
    const kg_fs *ign = ignored_of(a, op);
    kg_json *merged;
    if (!kg_smd_merge(a, op->schema, op->root, live, config, &merged, err))
        return false;
    merged = kg_json_clone(a, merged); /* pruning edits it in place; live's subtrees are shared */
    kg_fs *cset;
    if (!kg_smd_fieldset(a, op->schema, op->root, config, &cset, err))
        return false;
    cset = strip(a, cset, ign, true);
    long self = find_entry(m, op, true);
    const kg_fs *last = self >= 0 ? m->v[self].set : NULL;
    const char *last_time = self >= 0 ? m->v[self].time : NULL;
    if (self < 0) {
        push(a, m, (kg_smd_manager){op->manager, true, op->api_version, op->subresource, op->now, cset});
        self = (long)m->n - 1;
    }
    m->v[self].set = cset;
    m->v[self].api_version = op->api_version;
    if (last && !kg_fs_empty(last)) {
        kg_fs *keep = kg_fs_new(a);
        for (size_t i = 0; i < m->n; i++)
            keep = kg_fs_union(a, keep, m->v[i].set);
        kg_smd_remove(a, op->schema, op->root, merged, to_prune(a, last, keep));
    }
    kg_smd_comparison c;
    if (!kg_smd_compare(a, op->schema, op->root, live, merged, &c, err))
        return false;
    kg_fs *changed = strip(a, kg_fs_union(a, c.modified, c.added), ign, true);
    kg_fs *removed = strip(a, c.removed, ign, true);
    /* conflicts: what other managers own and the apply changes */
    size_t cap = 0;
    for (size_t i = 0; i < m->n; i++) {
        if ((long)i == self)
            continue;
        kg_fs *x = kg_fs_intersection(a, m->v[i].set, changed);
        if (op->forgiven)
            x = kg_fs_difference(a, x, op->forgiven);
        if (kg_fs_empty(x))
            continue;
        if (!force) {
            const char **paths;
            size_t np = kg_fs_paths(a, x, &paths);
            if (out->nconflicts + np > cap) {
                size_t nc = (out->nconflicts + np) * 2;
                out->conflicts =
                    kg_arena_realloc(a, out->conflicts, cap * sizeof(kg_smd_conflict), nc * sizeof(kg_smd_conflict));
                cap = nc;
            }
            for (size_t j = 0; j < np; j++)
                out->conflicts[out->nconflicts++] = (kg_smd_conflict){&m->v[i], paths[j]};
        }
    }
    if (out->nconflicts)
        return true;
    for (size_t i = 0; i < m->n; i++)
        if ((long)i != self)
            m->v[i].set = kg_fs_difference(a, kg_fs_difference(a, m->v[i].set, changed), removed);
    out->object = merged;
    out->changed = !live || !kg_json_equal(live, merged);
    m->v[self].time = out->changed || !last_time ? op->now : last_time;
    drop_empty(m);
    return true;
}

/* ---- conflicts ---- */

char *kg_smd_manager_describe(kg_arena *a, const kg_smd_manager *m)
{
    kg_buf b = KG_BUF_INIT;
    kg_json_write_string(&b, m->manager, strlen(m->manager), KG_JSON_WRITE_NO_ESCAPE_HTML);
    if (m->subresource && m->subresource[0]) {
        kg_buf_puts(&b, " with subresource ");
        kg_json_write_string(&b, m->subresource, strlen(m->subresource), KG_JSON_WRITE_NO_ESCAPE_HTML);
    }
    if (!m->apply)
        kg_buf_printf(&b, " using %s", m->api_version);
    char *s = kg_arena_strndup(a, b.data, b.len);
    kg_buf_free(&b);
    return s;
}

static int mgr_cmp(const kg_smd_manager *p, const kg_smd_manager *q)
{
    int c = strcmp(p->manager, q->manager);
    if (!c && p->apply != q->apply)
        c = p->apply ? -1 : 1;
    if (!c)
        c = strcmp(p->api_version, q->api_version);
    if (!c)
        c = strcmp(p->subresource, q->subresource);
    return c;
}

char *kg_smd_conflict_message(kg_arena *a, const kg_smd_conflict *c, size_t n)
{
    if (n == 1)
        return kg_arena_sprintf(a, "Apply failed with 1 conflict: conflict with %s: %s",
                                kg_smd_manager_describe(a, c[0].owner), c[0].path);
    /* managers sorted (upstream sorts their encoded identifiers), each with its paths in set order */
    const kg_smd_manager **mgrs = kg_arena_alloc(a, (n + 1) * sizeof *mgrs);
    size_t nm = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < nm && mgrs[j] != c[i].owner)
            j++;
        if (j == nm)
            mgrs[nm++] = c[i].owner;
    }
    for (size_t i = 1; i < nm; i++)
        for (size_t j = i; j > 0 && mgr_cmp(mgrs[j - 1], mgrs[j]) > 0; j--) {
            const kg_smd_manager *t = mgrs[j];
            mgrs[j] = mgrs[j - 1];
            mgrs[j - 1] = t;
        }
    kg_buf b = KG_BUF_INIT;
    kg_buf_printf(&b, "Apply failed with %zu conflicts: ", n);
    for (size_t j = 0; j < nm; j++) {
        if (j)
            kg_buf_putc(&b, '\n');
        kg_buf_printf(&b, "conflicts with %s:", kg_smd_manager_describe(a, mgrs[j]));
        for (size_t i = 0; i < n; i++)
            if (c[i].owner == mgrs[j])
                kg_buf_printf(&b, "\n- %s", c[i].path);
    }
    char *s = kg_arena_strndup(a, b.data, b.len);
    kg_buf_free(&b);
    return s;
}
