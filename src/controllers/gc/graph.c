/* The garbage collector's graph (see graph.h). */
#include "controllers/gc/graph.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "meta/object.h"

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        abort();
    return p;
}

static char *xstrdup(const char *s)
{
    char *p = strdup(s ? s : "");
    if (!p)
        abort();
    return p;
}

void kg_gc_graph_init(kg_gc_graph *g)
{
    g->nbuckets = 64;
    g->buckets = xcalloc(g->nbuckets, sizeof *g->buckets);
    g->count = 0;
}

static void node_free(kg_gc_node *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->nowners; i++) {
        free(n->owners[i].uid);
        free(n->owners[i].api_version);
        free(n->owners[i].kind);
        free(n->owners[i].name);
    }
    free(n->owners);
    free(n->uid);
    free(n->group);
    free(n->resource);
    free(n->ns);
    free(n->name);
    free(n->node_name);
    free(n);
}

static void entry_free(kg_gc_entry *e)
{
    node_free(e->node);
    free(e->deps);
    free(e->uid);
    free(e);
}

void kg_gc_graph_free(kg_gc_graph *g)
{
    for (size_t b = 0; b < g->nbuckets; b++)
        for (kg_gc_entry *e = g->buckets[b], *nx; e; e = nx) {
            nx = e->next;
            entry_free(e);
        }
    free(g->buckets);
    memset(g, 0, sizeof *g);
}

kg_gc_entry *kg_gc_graph_find(const kg_gc_graph *g, const char *uid)
{
    for (kg_gc_entry *e = g->buckets[kg_fnv1a64_str(uid) & (g->nbuckets - 1)]; e; e = e->next)
        if (!strcmp(e->uid, uid))
            return e;
    return NULL;
}

static void grow(kg_gc_graph *g)
{
    size_t nb = g->nbuckets * 2;
    kg_gc_entry **b = xcalloc(nb, sizeof *b);
    for (size_t i = 0; i < g->nbuckets; i++)
        for (kg_gc_entry *e = g->buckets[i], *nx; e; e = nx) {
            nx = e->next;
            size_t h = kg_fnv1a64_str(e->uid) & (nb - 1);
            e->next = b[h];
            b[h] = e;
        }
    free(g->buckets);
    g->buckets = b;
    g->nbuckets = nb;
}

static kg_gc_entry *get_or_add(kg_gc_graph *g, const char *uid)
{
    kg_gc_entry *e = kg_gc_graph_find(g, uid);
    if (e)
        return e;
    if (g->count >= g->nbuckets)
        grow(g);
    e = xcalloc(1, sizeof *e);
    e->uid = xstrdup(uid);
    size_t h = kg_fnv1a64_str(uid) & (g->nbuckets - 1);
    e->next = g->buckets[h];
    g->buckets[h] = e;
    g->count++;
    return e;
}

void kg_gc_graph_prune(kg_gc_graph *g, kg_gc_entry *e)
{
    if (!e || e->node || e->ndeps || e->queued || e->reaping)
        return;
    kg_gc_entry **pp = &g->buckets[kg_fnv1a64_str(e->uid) & (g->nbuckets - 1)];
    while (*pp && *pp != e)
        pp = &(*pp)->next;
    assert(*pp == e);
    *pp = e->next;
    g->count--;
    entry_free(e);
}

static void dep_add(kg_gc_entry *owner, kg_gc_entry *dep)
{
    for (size_t i = 0; i < owner->ndeps; i++)
        if (owner->deps[i] == dep)
            return;
    if (owner->ndeps == owner->capdeps) {
        owner->capdeps = owner->capdeps ? owner->capdeps * 2 : 4;
        owner->deps = realloc(owner->deps, owner->capdeps * sizeof *owner->deps);
        if (!owner->deps)
            abort();
    }
    owner->deps[owner->ndeps++] = dep;
}

static void dep_remove(kg_gc_graph *g, const char *owner_uid, kg_gc_entry *dep)
{
    kg_gc_entry *o = kg_gc_graph_find(g, owner_uid);
    if (!o)
        return;
    for (size_t i = 0; i < o->ndeps; i++)
        if (o->deps[i] == dep) {
            o->deps[i] = o->deps[--o->ndeps];
            break;
        }
    kg_gc_graph_prune(g, o);
}

static bool has_finalizer(const kg_json *md, const char *f)
{
    const kg_json *fins = kg_json_get(md, "finalizers");
    for (size_t i = 0; fins && fins->type == KG_JSON_ARRAY && i < fins->len; i++) {
        const kg_json *x = kg_json_at(fins, i);
        if (x->type == KG_JSON_STRING && !strcmp(x->u.s, f))
            return true;
    }
    return false;
}

static bool same_owner_uids(const kg_gc_node *a, const kg_gc_node *b)
{
    if (!a || !b)
        return !a && !b;
    if (a->nowners != b->nowners)
        return false;
    for (size_t i = 0; i < a->nowners; i++)
        if (strcmp(a->owners[i].uid, b->owners[i].uid))
            return false;
    return true;
}

kg_gc_entry *kg_gc_graph_upsert(kg_gc_graph *g, const char *group, const char *resource, const char *ns,
                                const char *name, const kg_json *obj, bool *owners_changed)
{
    const kg_json *md = kg_json_get(obj, "metadata");
    const char *uid = kg_json_get_str(md, "uid");
    if (!uid || !*uid)
        return NULL;
    kg_gc_node *n = xcalloc(1, sizeof *n);
    n->uid = xstrdup(uid);
    n->group = xstrdup(group);
    n->resource = xstrdup(resource);
    n->ns = xstrdup(ns);
    n->name = xstrdup(name);
    n->deleting =
        kg_json_get(md, "deletionTimestamp") != NULL && kg_json_get(md, "deletionTimestamp")->type != KG_JSON_NULL;
    n->foreground = has_finalizer(md, "foregroundDeletion");
    n->orphan = has_finalizer(md, "orphan");
    const kg_json *grace = kg_json_get(md, "deletionGracePeriodSeconds");
    time_t when;
    if (n->deleting && !*group && !strcmp(resource, "pods") && grace && grace->type == KG_JSON_INT && grace->u.i > 0 &&
        kg_json_get(md, "deletionTimestamp")->type == KG_JSON_STRING &&
        kg_time_parse(kg_json_get(md, "deletionTimestamp")->u.s, &when)) {
        n->grace_deadline = (long long)when;
        n->node_name = xstrdup(kg_json_path_str(obj, "spec.nodeName"));
    }
    const kg_json *refs = kg_json_get(md, "ownerReferences");
    size_t nr = refs && refs->type == KG_JSON_ARRAY ? refs->len : 0;
    n->owners = xcalloc(nr, sizeof *n->owners);
    for (size_t i = 0; i < nr; i++) {
        const kg_json *r = kg_json_at(refs, i);
        const char *ouid = kg_json_get_str(r, "uid");
        if (!ouid || !*ouid)
            continue;
        kg_gc_owner *o = &n->owners[n->nowners++];
        o->uid = xstrdup(ouid);
        o->api_version = xstrdup(kg_json_get_str(r, "apiVersion"));
        o->kind = xstrdup(kg_json_get_str(r, "kind"));
        o->name = xstrdup(kg_json_get_str(r, "name"));
        const kg_json *b = kg_json_get(r, "blockOwnerDeletion");
        o->block_owner_deletion = b && b->type == KG_JSON_BOOL && b->b;
    }
    kg_gc_entry *e = get_or_add(g, uid);
    kg_gc_node *old = e->node;
    bool changed = !same_owner_uids(old, n);
    if (owners_changed)
        *owners_changed = changed;
    e->node = n;
    if (changed) {
        for (size_t i = 0; old && i < old->nowners; i++)
            dep_remove(g, old->owners[i].uid, e);
        for (size_t i = 0; i < n->nowners; i++)
            dep_add(get_or_add(g, n->owners[i].uid), e);
    }
    node_free(old);
    return e;
}

void kg_gc_graph_remove(kg_gc_graph *g, const char *uid)
{
    kg_gc_entry *e = kg_gc_graph_find(g, uid);
    if (!e || !e->node)
        return;
    kg_gc_node *n = e->node;
    e->node = NULL;
    for (size_t i = 0; i < n->nowners; i++)
        if (strcmp(n->owners[i].uid, uid)) /* a self-reference is no dependency to drop twice */
            dep_remove(g, n->owners[i].uid, e);
        else
            for (size_t j = 0; j < e->ndeps; j++)
                if (e->deps[j] == e) {
                    e->deps[j] = e->deps[--e->ndeps];
                    break;
                }
    node_free(n);
    kg_gc_graph_prune(g, e);
}

const kg_gc_owner *kg_gc_node_owner(const kg_gc_node *dep, const char *uid)
{
    for (size_t i = 0; dep && i < dep->nowners; i++)
        if (!strcmp(dep->owners[i].uid, uid))
            return &dep->owners[i];
    return NULL;
}
