/* The garbage collector (see collector.h). */
#include "controllers/gc/collector.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "meta/object.h"

typedef enum { GC_BACKGROUND, GC_FOREGROUND, GC_ORPHAN } gc_policy;

struct kg_gc_state {
    kg_controller_client c;
    kg_gc_graph g;
    kg_gc_entry **q; /* ring of queued entries (each at most once: entry->queued) */
    size_t qhead, qlen, qcap;
    bool loading;       /* initial list: queue nothing until every object is known */
    kg_gc_entry **reap; /* terminating pods (entry->reaping) */
    size_t nreap, capreap;
    kg_arena a; /* scratch of one step */
};

struct kg_gc_controller {
    kg_gc_state *s;
    kg_client_watch *w;
    pthread_t thread;
    int stop; /* atomic */
};

static const int CONFLICT_RETRIES = 3;

/* ---- queue ---- */

static void enqueue(kg_gc_state *s, kg_gc_entry *e)
{
    if (!e || e->queued || s->loading)
        return;
    if (s->qlen == s->qcap) {
        size_t cap = s->qcap ? s->qcap * 2 : 64;
        kg_gc_entry **q = malloc(cap * sizeof *q);
        if (!q)
            abort();
        for (size_t i = 0; i < s->qlen; i++)
            q[i] = s->q[(s->qhead + i) % s->qcap];
        free(s->q);
        s->q = q;
        s->qhead = 0;
        s->qcap = cap;
    }
    s->q[(s->qhead + s->qlen++) % s->qcap] = e;
    e->queued = true;
}

static kg_gc_entry *dequeue(kg_gc_state *s)
{
    if (!s->qlen)
        return NULL;
    kg_gc_entry *e = s->q[s->qhead];
    s->qhead = (s->qhead + 1) % s->qcap;
    s->qlen--;
    e->queued = false;
    return e;
}

/* ---- helpers ---- */

static const char *now_rfc3339(kg_arena *a)
{
    char buf[32];
    return kg_arena_strdup(a, kg_time_format(time(NULL), buf));
}

static bool is_event(const char *group, const char *resource)
{
    return !strcmp(resource, "events") && (!*group || !strcmp(group, "events.k8s.io"));
}

/* Whether an owner node can own dep: a namespaced owner only in dep's own namespace. */
static bool owner_in_scope(const kg_gc_node *dep, const kg_gc_node *owner)
{
    return !*owner->ns || !strcmp(owner->ns, dep->ns);
}

static bool has_fin(const kg_json *obj, const char *f)
{
    const kg_json *fins = kg_json_path(obj, "metadata.finalizers");
    for (size_t i = 0; fins && fins->type == KG_JSON_ARRAY && i < fins->len; i++)
        if (kg_json_at(fins, i)->type == KG_JSON_STRING && !strcmp(kg_json_at(fins, i)->u.s, f))
            return true;
    return false;
}

static size_t fin_count(const kg_json *obj)
{
    const kg_json *fins = kg_json_path(obj, "metadata.finalizers");
    return fins && fins->type == KG_JSON_ARRAY ? fins->len : 0;
}

static void fin_remove(kg_arena *a, kg_json *obj, const char *f)
{
    kg_json *md = kg_json_get_or_add_object(a, obj, "metadata");
    const kg_json *fins = kg_json_get(md, "finalizers");
    kg_json *keep = kg_json_new_array(a);
    for (size_t i = 0; fins && fins->type == KG_JSON_ARRAY && i < fins->len; i++) {
        const kg_json *x = kg_json_at(fins, i);
        if (!(x->type == KG_JSON_STRING && !strcmp(x->u.s, f)))
            kg_json_array_append(a, keep, kg_json_clone(a, x));
    }
    if (keep->len)
        kg_json_set(a, md, "finalizers", keep);
    else
        kg_json_del(md, "finalizers");
}

static void fin_add(kg_arena *a, kg_json *obj, const char *f)
{
    if (has_fin(obj, f))
        return;
    kg_json *md = kg_json_get_or_add_object(a, obj, "metadata");
    kg_json *fins = kg_json_get(md, "finalizers");
    if (!fins || fins->type != KG_JSON_ARRAY) {
        fins = kg_json_new_array(a);
        kg_json_set(a, md, "finalizers", fins);
    }
    kg_json_array_append(a, fins, kg_json_new_str(a, f));
}

static const char *uid_of(const kg_json *obj)
{
    const char *u = obj ? kg_json_path_str(obj, "metadata.uid") : NULL;
    return u ? u : "";
}

/* The live object of node n (NULL when gone or replaced by another object of the same name). */
static kg_json *get_live(kg_gc_state *s, const kg_gc_node *n)
{
    KG_ERROR_DECL(err);
    kg_json *o = s->c.get(s->c.ctx, &s->a, n->resource, n->ns, n->name, &err);
    if (!o) {
        if (err.code != KG_ENOTFOUND)
            KG_V(2, "garbage collector: get %s %s/%s: %s", n->resource, n->ns, n->name, err.msg);
        return NULL;
    }
    return strcmp(uid_of(o), n->uid) ? NULL : o;
}

/* Write obj back (its resourceVersion is the precondition); an object being deleted without finalizers left is
 * deleted instead. false on conflict or error. */
static bool write_back(kg_gc_state *s, const kg_gc_node *n, kg_json *obj)
{
    KG_ERROR_DECL(err);
    bool ok;
    if (kg_json_path(obj, "metadata.deletionTimestamp") && !fin_count(obj)) {
        ok = s->c.delete_object(s->c.ctx, &s->a, n->resource, n->ns, n->name,
                                kg_json_path_str(obj, "metadata.resourceVersion"), &err) ||
             err.code == KG_ENOTFOUND;
    } else {
        ok = s->c.update(s->c.ctx, &s->a, n->resource, n->ns, obj, &err) != NULL;
    }
    if (!ok && err.code != KG_ECONFLICT)
        KG_V(2, "garbage collector: writing %s %s/%s: %s", n->resource, n->ns, n->name, err.msg);
    return ok;
}

/* Delete the live object obj of n with a propagation policy: a policy finalizer or any finalizer makes it a
 * graceful deletion (deletionTimestamp set, the finalizers finish it), otherwise it is removed at once. */
static void delete_with(kg_gc_state *s, const kg_gc_node *n, kg_json *obj, gc_policy policy)
{
    if (kg_json_path(obj, "metadata.deletionTimestamp"))
        return;
    if (policy == GC_FOREGROUND) {
        fin_remove(&s->a, obj, "orphan");
        fin_add(&s->a, obj, "foregroundDeletion");
    } else if (policy == GC_ORPHAN) {
        fin_remove(&s->a, obj, "foregroundDeletion");
        fin_add(&s->a, obj, "orphan");
    }
    KG_V(1, "garbage collector: deleting %s %s/%s (%s)", n->resource, n->ns, n->name,
         policy == GC_FOREGROUND ? "Foreground"
         : policy == GC_ORPHAN   ? "Orphan"
                                 : "Background");
    if (fin_count(obj)) {
        kg_json *md = kg_json_get_or_add_object(&s->a, obj, "metadata");
        kg_json_set(&s->a, md, "deletionTimestamp", kg_json_new_str(&s->a, now_rfc3339(&s->a)));
        kg_json_set(&s->a, md, "deletionGracePeriodSeconds", kg_json_new_int(&s->a, 0));
        write_back(s, n, obj);
        return;
    }
    KG_ERROR_DECL(err);
    if (!s->c.delete_object(s->c.ctx, &s->a, n->resource, n->ns, n->name,
                            kg_json_path_str(obj, "metadata.resourceVersion"), &err) &&
        err.code != KG_ENOTFOUND && err.code != KG_ECONFLICT)
        KG_V(2, "garbage collector: deleting %s %s/%s: %s", n->resource, n->ns, n->name, err.msg);
}

/* Remove from n's live object the owner references whose uids are listed; retried on conflicts. */
static void drop_owner_refs(kg_gc_state *s, const kg_gc_node *n, const char *const *uids, size_t nuids)
{
    for (int attempt = 0; attempt < CONFLICT_RETRIES; attempt++) {
        kg_json *obj = get_live(s, n);
        if (!obj)
            return;
        kg_json *md = kg_json_get(obj, "metadata");
        const kg_json *refs = kg_json_get(md, "ownerReferences");
        kg_json *keep = kg_json_new_array(&s->a);
        bool changed = false;
        for (size_t i = 0; refs && refs->type == KG_JSON_ARRAY && i < refs->len; i++) {
            const kg_json *r = kg_json_at(refs, i);
            const char *u = kg_json_get_str(r, "uid");
            bool drop = false;
            for (size_t j = 0; u && j < nuids && !drop; j++)
                drop = !strcmp(u, uids[j]);
            if (drop)
                changed = true;
            else
                kg_json_array_append(&s->a, keep, kg_json_clone(&s->a, r));
        }
        if (!changed)
            return;
        if (keep->len)
            kg_json_set(&s->a, md, "ownerReferences", keep);
        else
            kg_json_del(md, "ownerReferences");
        if (write_back(s, n, obj))
            return;
    }
}

static void remove_finalizer(kg_gc_state *s, const kg_gc_node *n, const char *f)
{
    for (int attempt = 0; attempt < CONFLICT_RETRIES; attempt++) {
        kg_json *obj = get_live(s, n);
        if (!obj || !has_fin(obj, f))
            return;
        fin_remove(&s->a, obj, f);
        if (write_back(s, n, obj))
            return;
    }
}

/* ---- the three kinds of work ---- */

typedef enum { OWNER_SOLID, OWNER_DANGLING, OWNER_WAITING } owner_state;

/* Classify one owner reference of dep (upstream classifyReferences): from the graph when it knows the owner, else
 * by a live read. Owners that cannot be resolved count as solid (the dependent is kept). */
static owner_state classify(kg_gc_state *s, const kg_gc_node *dep, const kg_gc_owner *o)
{
    kg_gc_entry *oe = kg_gc_graph_find(&s->g, o->uid);
    if (oe && oe->node) {
        if (!owner_in_scope(dep, oe->node))
            return OWNER_DANGLING;
        return oe->node->deleting && oe->node->foreground ? OWNER_WAITING : OWNER_SOLID;
    }
    const char *slash = strchr(o->api_version, '/');
    const char *group = slash ? kg_arena_strndup(&s->a, o->api_version, (size_t)(slash - o->api_version)) : "";
    const char *version = slash ? slash + 1 : o->api_version;
    const char *plural = NULL;
    bool namespaced = false;
    if (!s->c.services ||
        !kg_admission_resource_for_kind(s->c.services, &s->a, group, version, o->kind, &plural, &namespaced)) {
        KG_V(2, "garbage collector: owner %s %s of %s %s/%s: kind not served", o->api_version, o->kind, dep->resource,
             dep->ns, dep->name);
        return OWNER_SOLID;
    }
    if (namespaced && !*dep->ns)
        return OWNER_SOLID; /* cluster-scoped objects cannot refer to namespaced owners: never collected */
    KG_ERROR_DECL(err);
    kg_json *live = s->c.get(s->c.ctx, &s->a, plural, namespaced ? dep->ns : "", o->name, &err);
    if (!live) {
        if (err.code != KG_ENOTFOUND)
            return OWNER_SOLID; /* cannot tell: keep */
        return OWNER_DANGLING;
    }
    if (strcmp(uid_of(live), o->uid))
        return OWNER_DANGLING;
    return kg_json_path(live, "metadata.deletionTimestamp") && has_fin(live, "foregroundDeletion") ? OWNER_WAITING
                                                                                                   : OWNER_SOLID;
}

/* upstream attemptToDeleteItem */
static void attempt_to_delete(kg_gc_state *s, kg_gc_entry *e)
{
    const kg_gc_node *n = e->node;
    if (!n->nowners || n->deleting)
        return;
    kg_json *obj = get_live(s, n);
    if (!obj || kg_json_path(obj, "metadata.deletionTimestamp"))
        return;
    size_t solid = 0, waiting = 0, dangling = 0;
    const char **drop = kg_arena_alloc(&s->a, n->nowners * sizeof *drop);
    for (size_t i = 0; i < n->nowners; i++) {
        owner_state st = classify(s, n, &n->owners[i]);
        if (st == OWNER_SOLID)
            solid++;
        else {
            drop[dangling + waiting] = n->owners[i].uid;
            if (st == OWNER_WAITING)
                waiting++;
            else
                dangling++;
        }
    }
    if (solid) {
        if (dangling + waiting)
            drop_owner_refs(s, n, drop, dangling + waiting);
        return;
    }
    if (waiting && e->ndeps) {
        delete_with(s, n, obj, GC_FOREGROUND);
        return;
    }
    gc_policy p = has_fin(obj, "orphan")               ? GC_ORPHAN
                  : has_fin(obj, "foregroundDeletion") ? GC_FOREGROUND
                                                       : GC_BACKGROUND;
    delete_with(s, n, obj, p);
}

/* An owner deleted with propagationPolicy=Orphan: release every dependent, then drop the finalizer. */
static void orphan_dependents(kg_gc_state *s, kg_gc_entry *e)
{
    const char *uid = e->uid;
    for (size_t i = 0; i < e->ndeps; i++)
        if (e->deps[i]->node)
            drop_owner_refs(s, e->deps[i]->node, &uid, 1);
    remove_finalizer(s, e->node, "orphan");
}

/* An owner deleted in the foreground: delete the dependents; drop the finalizer once none blocks. */
static void delete_dependents(kg_gc_state *s, kg_gc_entry *e)
{
    bool blocked = false;
    for (size_t i = 0; i < e->ndeps; i++) {
        kg_gc_entry *d = e->deps[i];
        if (!d->node)
            continue;
        const kg_gc_owner *ref = kg_gc_node_owner(d->node, e->uid);
        if (ref && ref->block_owner_deletion)
            blocked = true;
        if (d->node->deleting)
            continue;
        kg_json *obj = get_live(s, d->node);
        if (obj)
            delete_with(s, d->node, obj, d->ndeps ? GC_FOREGROUND : GC_BACKGROUND);
    }
    if (!blocked)
        remove_finalizer(s, e->node, "foregroundDeletion");
}

static void process(kg_gc_state *s, kg_gc_entry *e)
{
    kg_arena_reset(&s->a);
    if (e->node) {
        if (e->node->deleting) {
            if (e->node->orphan)
                orphan_dependents(s, e);
            else if (e->node->foreground)
                delete_dependents(s, e);
        } else {
            attempt_to_delete(s, e);
        }
    }
    kg_gc_graph_prune(&s->g, e);
}

/* ---- observing ---- */

/* What a change of e makes due (upstream's graph builder: processTransitions and virtual owners). */
static void queue_due(kg_gc_state *s, kg_gc_entry *e)
{
    const kg_gc_node *n = e->node;
    if (n->deleting && (n->foreground || n->orphan))
        enqueue(s, e);
    for (size_t i = 0; i < n->nowners; i++) {
        kg_gc_entry *oe = kg_gc_graph_find(&s->g, n->owners[i].uid);
        if (!oe || !oe->node || !owner_in_scope(n, oe->node))
            enqueue(s, e); /* an owner not seen (virtual): verify it */
        else if (oe->node->deleting && oe->node->foreground)
            enqueue(s, oe); /* it waits for its dependents: this one changed */
    }
}

void kg_gc_state_observe(kg_gc_state *s, const kg_client_event *ev)
{
    if (!ev->resource || is_event(ev->group ? ev->group : "", ev->resource) || !ev->object)
        return;
    const char *uid = uid_of(ev->object);
    if (ev->type == KG_CLIENT_DELETED) {
        kg_gc_entry *e = kg_gc_graph_find(&s->g, uid);
        if (!e || !e->node)
            return;
        for (size_t i = 0; i < e->ndeps; i++)
            enqueue(s, e->deps[i]); /* their owner is gone */
        for (size_t i = 0; i < e->node->nowners; i++) {
            kg_gc_entry *oe = kg_gc_graph_find(&s->g, e->node->owners[i].uid);
            if (oe && oe->node && oe->node->deleting && oe->node->foreground)
                enqueue(s, oe); /* one dependent fewer to wait for */
        }
        kg_gc_graph_remove(&s->g, uid);
        return;
    }
    kg_gc_entry *e = kg_gc_graph_upsert(&s->g, ev->group ? ev->group : "", ev->resource, ev->ns ? ev->ns : "",
                                        ev->name ? ev->name : "", ev->object, NULL);
    if (!e)
        return;
    queue_due(s, e);
    if (e->node->grace_deadline && !e->reaping) {
        if (s->nreap == s->capreap) {
            s->capreap = s->capreap ? s->capreap * 2 : 16;
            s->reap = realloc(s->reap, s->capreap * sizeof *s->reap);
            if (!s->reap)
                abort();
        }
        s->reap[s->nreap++] = e;
        e->reaping = true;
    }
}

size_t kg_gc_state_reap(kg_gc_state *s, long long now)
{
    size_t deleted = 0;
    for (size_t i = 0; i < s->nreap;) {
        kg_gc_entry *e = s->reap[i];
        const kg_gc_node *n = e->node;
        if (n && n->grace_deadline && n->grace_deadline > now) {
            i++;
            continue;
        }
        if (n && n->grace_deadline) {
            kg_arena_reset(&s->a);
            KG_ERROR_DECL(err);
            bool node_exists = *n->node_name && s->c.get(s->c.ctx, &s->a, "nodes", "", n->node_name, &err);
            kg_json *pod = node_exists ? NULL : get_live(s, n);
            if (pod && !fin_count(pod)) {
                KG_V(1, "garbage collector: pod %s/%s: grace period over, node %s does not exist: deleting", n->ns,
                     n->name, n->node_name);
                KG_ERROR_DECL(derr);
                if (s->c.delete_object(s->c.ctx, &s->a, "pods", n->ns, n->name,
                                       kg_json_path_str(pod, "metadata.resourceVersion"), &derr))
                    deleted++;
            }
        }
        e->reaping = false;
        s->reap[i] = s->reap[--s->nreap];
        kg_gc_graph_prune(&s->g, e);
    }
    return deleted;
}

size_t kg_gc_state_work(kg_gc_state *s, size_t max)
{
    size_t done = 0;
    kg_gc_entry *e;
    while (done < max && (e = dequeue(s))) {
        process(s, e);
        done++;
    }
    return done;
}

kg_gc_state *kg_gc_state_new(const kg_controller_client *c)
{
    kg_gc_state *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->c = *c;
    kg_gc_graph_init(&s->g);
    kg_arena_init(&s->a, 0);
    return s;
}

void kg_gc_state_free(kg_gc_state *s)
{
    if (!s)
        return;
    kg_gc_graph_free(&s->g);
    free(s->q);
    free(s->reap);
    kg_arena_free(&s->a);
    free(s);
}

const kg_gc_graph *kg_gc_state_graph(const kg_gc_state *s)
{
    return &s->g;
}

/* ---- the thread ---- */

static void on_listed(void *ud, const kg_client_event *ev)
{
    kg_gc_state_observe(ud, ev);
}

/* The initial state: every object, then what is due in it. */
static bool load(kg_gc_state *s, kg_error *err)
{
    kg_gc_graph_free(&s->g);
    kg_gc_graph_init(&s->g);
    s->qlen = 0;
    s->nreap = 0;
    s->loading = true;
    kg_arena la;
    kg_arena_init(&la, 0);
    bool ok = s->c.list_all(s->c.ctx, &la, on_listed, s, err);
    kg_arena_free(&la);
    s->loading = false;
    for (size_t b = 0; b < s->g.nbuckets; b++)
        for (kg_gc_entry *e = s->g.buckets[b]; e; e = e->next)
            if (e->node)
                queue_due(s, e);
    return ok;
}

static void *run(void *arg)
{
    kg_gc_controller *gc = arg;
    kg_gc_state *s = gc->s;
    kg_arena a;
    kg_arena_init(&a, 0);
    while (!__atomic_load_n(&gc->stop, __ATOMIC_ACQUIRE)) {
        kg_client_event ev;
        KG_ERROR_DECL(err);
        kg_client_watch_status st = s->c.watch_next(gc->w, s->qlen ? 0 : 500, &a, &ev, &err);
        if (st == KG_CLIENT_WATCH_EVENT) {
            kg_gc_state_observe(s, &ev);
        } else if (st == KG_CLIENT_WATCH_ERROR || st == KG_CLIENT_WATCH_CLOSED) {
            if (__atomic_load_n(&gc->stop, __ATOMIC_ACQUIRE))
                break;
            s->c.watch_close(gc->w);
            gc->w = s->c.watch_open(s->c.ctx, "*", true, &err);
            if (!gc->w) {
                KG_WARN("garbage collector: cannot watch: %s", err.msg);
                break;
            }
            KG_ERROR_DECL(lerr);
            if (!load(s, &lerr))
                KG_WARN("garbage collector: listing: %s", lerr.msg);
        }
        kg_gc_state_work(s, 64);
        if (s->nreap)
            kg_gc_state_reap(s, (long long)time(NULL));
        kg_arena_reset(&a);
    }
    kg_arena_free(&a);
    return NULL;
}

kg_gc_controller *kg_gc_controller_start(const kg_controller_client *c, kg_error *err)
{
    if (!c->list_all || !c->watch_open) {
        kg_err_set(err, KG_EINVAL, "garbage collector: the client cannot list every object");
        return NULL;
    }
    kg_gc_controller *gc = calloc(1, sizeof *gc);
    if (!gc)
        abort();
    gc->s = kg_gc_state_new(c);
    gc->w = c->watch_open(c->ctx, "*", true, err); /* first: no change falls between the list and the watch */
    if (!gc->w || !load(gc->s, err)) {
        if (gc->w)
            c->watch_close(gc->w);
        kg_gc_state_free(gc->s);
        free(gc);
        return NULL;
    }
    pthread_create(&gc->thread, NULL, run, gc);
    return gc;
}

void kg_gc_controller_stop(kg_gc_controller *gc)
{
    if (!gc)
        return;
    __atomic_store_n(&gc->stop, 1, __ATOMIC_RELEASE);
    gc->s->c.watch_cancel(gc->w);
    pthread_join(gc->thread, NULL);
    gc->s->c.watch_close(gc->w);
    kg_gc_state_free(gc->s);
    free(gc);
}
