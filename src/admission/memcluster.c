#include "admission/memcluster.h"
#include "base/str.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NBUCKETS 4096u
#define MAX_FLAGS 64

typedef struct entry {
    struct entry *next;
    uint64_t hash;
    char *resource, *ns, *name;
    kg_json_shared *doc; /* the object, shared with the readers of views */
    const kg_json *obj;  /* its root */
    bool store_only;
} entry;

/* Entries of one (resource, namespace) — and of one resource across namespaces (ns == ALL_NS) — so list() costs
 * O(result), not O(everything held). */
#define ALL_NS "\x01*"
typedef struct group {
    struct group *next;
    uint64_t hash;
    char *resource, *ns;
    entry **items;
    size_t n, cap;
} group;

/* A subscriber (services.subscribe), and an event waiting for delivery. */
typedef struct sub {
    struct sub *next;
    uint64_t id;
    char *resource;
    kg_admission_event_fn fn;
    void *ud;
} sub;

typedef struct pending {
    struct pending *next;
    kg_admission_event_type type;
    char *resource, *ns, *name;
    kg_json_shared *doc; /* a reference: the object outlives a concurrent replace */
} pending;

typedef struct named_flag {
    char *name;
    int live;
    int value; /* feature: 0/1; not ready: 0/1 */
} named_flag;

struct kg_admission_memcluster {
    pthread_rwlock_t lock;
    entry *buckets[NBUCKETS];
    group *groups[NBUCKETS];
    size_t count;
    uint64_t revision;
    named_flag features[MAX_FLAGS];
    size_t nfeatures;
    named_flag not_ready[MAX_FLAGS];
    size_t nnot_ready;
    bool fake_clock;
    _Atomic int64_t now;
    _Atomic uint64_t gets, live_gets, lists, creates, updates;
    /* Change notification. Writers queue events under the write lock (so the queue is in write order) and
     * deliver after releasing it; notify_mu makes one thread at a time deliver, and guards subs. */
    pthread_mutex_t notify_mu, queue_mu;
    sub *subs;
    uint64_t next_sub_id;
    _Atomic size_t nsubs;
    pending *qhead, **qtail; /* queue_mu */
    bool delivering;         /* queue_mu: deliverer is draining the queue */
    pthread_t deliverer;
};

static uint64_t hash3(const char *r, const char *ns, const char *n);

static group *group_find(const kg_admission_memcluster *m, const char *resource, const char *ns, bool create)
{
    uint64_t h = hash3(resource, ns, "");
    for (group *g = m->groups[h % NBUCKETS]; g; g = g->next)
        if (g->hash == h && kg_streq(g->resource, resource) && kg_streq(g->ns, ns))
            return g;
    if (!create)
        return NULL;
    group *g = calloc(1, sizeof *g);
    if (!g)
        abort();
    g->hash = h;
    g->resource = strdup(resource);
    g->ns = strdup(ns);
    if (!g->resource || !g->ns)
        abort();
    kg_admission_memcluster *mw = (kg_admission_memcluster *)m;
    g->next = mw->groups[h % NBUCKETS];
    mw->groups[h % NBUCKETS] = g;
    return g;
}

static int entry_order(const entry *a, const entry *b)
{
    int c = strcmp(a->ns, b->ns);
    return c ? c : strcmp(a->name, b->name);
}

/* A group's entries are kept ordered by (namespace, name) — the order list() returns — so readers copy them out
 * without sorting; writes (rare) pay the binary search and the shift. */
static void group_add(group *g, entry *e)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 8;
        g->items = realloc(g->items, g->cap * sizeof *g->items);
        if (!g->items)
            abort();
    }
    size_t lo = 0, hi = g->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (entry_order(g->items[mid], e) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&g->items[lo + 1], &g->items[lo], (g->n - lo) * sizeof *g->items);
    g->items[lo] = e;
    g->n++;
}

static void group_del(group *g, entry *e)
{
    for (size_t i = 0; g && i < g->n; i++) {
        if (g->items[i] == e) {
            memmove(&g->items[i], &g->items[i + 1], (g->n - i - 1) * sizeof *g->items);
            g->n--;
            return;
        }
    }
}

/* Hash of (resource, namespace, name), 8 bytes at a time (keys are short; lookups happen on every admission). */
static inline uint64_t hash_mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    size_t n = strlen(s), i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = hash_mix(h, w);
    }
    uint64_t w = 0;
    for (size_t j = 0; i + j < n; j++)
        w |= (uint64_t)(unsigned char)s[i + j] << (8 * j);
    return hash_mix(h, w ^ ((uint64_t)n << 56) ^ 0xff);
}

static uint64_t hash3(const char *r, const char *ns, const char *n)
{
    return hash_str(hash_str(hash_str(0x243F6A8885A308D3ull, r), ns), n);
}

static char *xstrdup(const char *s)
{
    char *p = strdup(s ? s : "");
    if (!p)
        abort();
    return p;
}

kg_admission_memcluster *kg_admission_memcluster_new(void)
{
    kg_admission_memcluster *m = calloc(1, sizeof *m);
    if (!m)
        abort();
    pthread_rwlock_init(&m->lock, NULL);
    pthread_mutex_init(&m->notify_mu, NULL);
    pthread_mutex_init(&m->queue_mu, NULL);
    m->qtail = &m->qhead;
    return m;
}

static void entry_free(entry *e)
{
    free(e->resource);
    free(e->ns);
    free(e->name);
    kg_json_shared_unref(e->doc);
    free(e);
}

static void pending_free(pending *p)
{
    free(p->resource);
    free(p->ns);
    free(p->name);
    kg_json_shared_unref(p->doc);
    free(p);
}

static void flags_free(named_flag *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(f[i].name);
}

void kg_admission_memcluster_free(kg_admission_memcluster *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < NBUCKETS; i++) {
        entry *e = m->buckets[i];
        while (e) {
            entry *n = e->next;
            entry_free(e);
            e = n;
        }
    }
    for (size_t i = 0; i < NBUCKETS; i++) {
        group *g = m->groups[i];
        while (g) {
            group *n = g->next;
            free(g->resource);
            free(g->ns);
            free(g->items);
            free(g);
            g = n;
        }
    }
    while (m->subs) {
        sub *n = m->subs->next;
        free(m->subs->resource);
        free(m->subs);
        m->subs = n;
    }
    while (m->qhead) {
        pending *n = m->qhead->next;
        pending_free(m->qhead);
        m->qhead = n;
    }
    pthread_mutex_destroy(&m->notify_mu);
    pthread_mutex_destroy(&m->queue_mu);
    flags_free(m->features, m->nfeatures);
    flags_free(m->not_ready, m->nnot_ready);
    pthread_rwlock_destroy(&m->lock);
    free(m);
}

static entry *find(const kg_admission_memcluster *m, const char *resource, const char *ns, const char *name, uint64_t h)
{
    for (entry *e = m->buckets[h % NBUCKETS]; e; e = e->next)
        if (e->hash == h && kg_streq(e->resource, resource) && kg_streq(e->ns, ns) && kg_streq(e->name, name))
            return e;
    return NULL;
}

/* ---- change notification ---- */

/* Queue an event (caller holds the write lock). doc: a reference is taken. No subscribers: nothing to do. */
static void enqueue(kg_admission_memcluster *m, kg_admission_event_type type, const char *resource, const char *ns,
                    const char *name, kg_json_shared *doc)
{
    if (!type || atomic_load(&m->nsubs) == 0)
        return;
    pending *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->type = type;
    p->resource = xstrdup(resource);
    p->ns = xstrdup(ns);
    p->name = xstrdup(name);
    p->doc = doc ? kg_json_shared_ref(doc) : NULL;
    pthread_mutex_lock(&m->queue_mu);
    *m->qtail = p;
    m->qtail = &p->next;
    pthread_mutex_unlock(&m->queue_mu);
}

static pending *dequeue(kg_admission_memcluster *m)
{
    pthread_mutex_lock(&m->queue_mu);
    pending *p = m->qhead;
    if (p) {
        m->qhead = p->next;
        if (!m->qhead)
            m->qtail = &m->qhead;
    }
    pthread_mutex_unlock(&m->queue_mu);
    return p;
}

/* Deliver queued events in order (caller holds no lock). A write made by a callback only queues: the loop of the
 * delivering thread picks it up. */
static void deliver(kg_admission_memcluster *m)
{
    pthread_mutex_lock(&m->queue_mu);
    bool idle = !m->qhead;
    bool nested = m->delivering && pthread_equal(m->deliverer, pthread_self());
    pthread_mutex_unlock(&m->queue_mu);
    if (idle || nested)
        return;
    pthread_mutex_lock(&m->notify_mu);
    pthread_mutex_lock(&m->queue_mu);
    m->delivering = true;
    m->deliverer = pthread_self();
    pthread_mutex_unlock(&m->queue_mu);
    for (pending *p; (p = dequeue(m));) {
        kg_admission_event ev = {p->type, p->resource, p->ns, p->name, p->doc ? kg_json_shared_root(p->doc) : NULL};
        for (sub *sb = m->subs; sb; sb = sb->next)
            if (kg_streq(sb->resource, p->resource))
                sb->fn(sb->ud, &ev);
        pending_free(p);
    }
    pthread_mutex_lock(&m->queue_mu);
    m->delivering = false;
    pthread_mutex_unlock(&m->queue_mu);
    pthread_mutex_unlock(&m->notify_mu);
}

static uint64_t svc_subscribe(void *ctx, const char *resource, kg_admission_event_fn fn, void *ud, kg_error *err)
{
    kg_admission_memcluster *m = ctx;
    if (!resource || !fn) {
        kg_err_set(err, KG_EINVAL, "subscribe: resource and callback are required");
        return 0;
    }
    sub *sb = calloc(1, sizeof *sb);
    if (!sb)
        abort();
    sb->resource = xstrdup(resource);
    sb->fn = fn;
    sb->ud = ud;
    pthread_mutex_lock(&m->notify_mu);
    sb->id = ++m->next_sub_id;
    sub **pp = &m->subs;
    while (*pp)
        pp = &(*pp)->next;
    *pp = sb; /* subscription order is call order */
    atomic_fetch_add(&m->nsubs, 1);
    pthread_mutex_unlock(&m->notify_mu);
    return sb->id;
}

static void svc_unsubscribe(void *ctx, uint64_t id)
{
    kg_admission_memcluster *m = ctx;
    pthread_mutex_lock(&m->notify_mu); /* waits for a delivery in progress */
    for (sub **pp = &m->subs; *pp; pp = &(*pp)->next) {
        if ((*pp)->id == id) {
            sub *sb = *pp;
            *pp = sb->next;
            free(sb->resource);
            free(sb);
            atomic_fetch_sub(&m->nsubs, 1);
            break;
        }
    }
    pthread_mutex_unlock(&m->notify_mu);
}

/* Insert or replace under the write lock, and queue the event the cache would see: none for store-only objects,
 * ADDED when the object was not visible before, else MODIFIED. */
static void store_locked(kg_admission_memcluster *m, const char *resource, const char *ns, const char *name,
                         const kg_json *obj, bool store_only)
{
    uint64_t h = hash3(resource, ns, name);
    entry *e = find(m, resource, ns, name, h);
    bool was_visible = e && !e->store_only;
    if (e) {
        kg_json_shared_unref(e->doc); /* readers that pinned it keep it alive */
    } else {
        e = calloc(1, sizeof *e);
        if (!e)
            abort();
        e->hash = h;
        e->resource = xstrdup(resource);
        e->ns = xstrdup(ns);
        e->name = xstrdup(name);
        e->next = m->buckets[h % NBUCKETS];
        m->buckets[h % NBUCKETS] = e;
        m->count++;
        group_add(group_find(m, resource, ns, true), e);
        group_add(group_find(m, resource, ALL_NS, true), e);
    }
    e->doc = kg_json_shared_new(obj);
    e->obj = kg_json_shared_root(e->doc);
    e->store_only = store_only;
    if (!store_only)
        enqueue(m, was_visible ? KG_ADMISSION_EVENT_MODIFIED : KG_ADMISSION_EVENT_ADDED, resource, ns, name, e->doc);
}

bool kg_admission_memcluster_put(kg_admission_memcluster *m, const char *resource, const kg_json *obj, unsigned flags,
                                 kg_error *err)
{
    const char *name = kg_json_path_str(obj, "metadata.name");
    if (!name || !name[0])
        return kg_err_set(err, KG_EINVAL, "metadata.name: Required value");
    const char *ns = kg_json_path_str(obj, "metadata.namespace");
    pthread_rwlock_wrlock(&m->lock);
    store_locked(m, resource, ns ? ns : "", name, obj, (flags & KG_MEMCLUSTER_STORE_ONLY) != 0);
    pthread_rwlock_unlock(&m->lock);
    deliver(m);
    return true;
}

bool kg_admission_memcluster_remove(kg_admission_memcluster *m, const char *resource, const char *ns, const char *name)
{
    uint64_t h = hash3(resource, ns ? ns : "", name);
    bool found = false;
    pthread_rwlock_wrlock(&m->lock);
    for (entry **pp = &m->buckets[h % NBUCKETS]; *pp; pp = &(*pp)->next) {
        entry *e = *pp;
        if (e->hash == h && kg_streq(e->resource, resource) && kg_streq(e->ns, ns ? ns : "") &&
            kg_streq(e->name, name)) {
            *pp = e->next;
            group_del(group_find(m, e->resource, e->ns, false), e);
            group_del(group_find(m, e->resource, ALL_NS, false), e);
            if (!e->store_only)
                enqueue(m, KG_ADMISSION_EVENT_DELETED, e->resource, e->ns, e->name, e->doc);
            entry_free(e);
            m->count--;
            found = true;
            break;
        }
    }
    pthread_rwlock_unlock(&m->lock);
    deliver(m);
    return found;
}

static named_flag *flag_find(named_flag *f, size_t n, const char *name, int live)
{
    for (size_t i = 0; i < n; i++)
        if (kg_streq(f[i].name, name) && (live < 0 || f[i].live == live))
            return &f[i];
    return NULL;
}

static void flag_set(named_flag *f, size_t *n, const char *name, int live, int value)
{
    named_flag *x = flag_find(f, *n, name, live);
    if (!x) {
        if (*n == MAX_FLAGS)
            return;
        x = &f[(*n)++];
        x->name = xstrdup(name);
        x->live = live;
    }
    x->value = value;
}

void kg_admission_memcluster_set_feature(kg_admission_memcluster *m, const char *gate, bool on)
{
    pthread_rwlock_wrlock(&m->lock);
    flag_set(m->features, &m->nfeatures, gate, 0, on);
    pthread_rwlock_unlock(&m->lock);
}

void kg_admission_memcluster_set_clock(kg_admission_memcluster *m, int64_t now_ns)
{
    m->fake_clock = true;
    atomic_store(&m->now, now_ns);
}

void kg_admission_memcluster_set_ready(kg_admission_memcluster *m, const char *resource, bool ready)
{
    pthread_rwlock_wrlock(&m->lock);
    flag_set(m->not_ready, &m->nnot_ready, resource, 0, !ready);
    pthread_rwlock_unlock(&m->lock);
}

kg_admission_memcluster_stats kg_admission_memcluster_get_stats(kg_admission_memcluster *m)
{
    kg_admission_memcluster_stats s = {atomic_load(&m->gets), atomic_load(&m->live_gets), atomic_load(&m->lists),
                                       atomic_load(&m->creates), atomic_load(&m->updates)};
    return s;
}

/* ---- services ---- */

static kg_json *svc_get(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name, unsigned flags,
                        kg_error *err)
{
    kg_admission_memcluster *m = ctx;
    bool live = (flags & KG_ADMISSION_GET_LIVE) != 0;
    atomic_fetch_add(live ? &m->live_gets : &m->gets, 1);
    ns = ns ? ns : "";
    kg_json *out = NULL;
    pthread_rwlock_rdlock(&m->lock);
    entry *e = find(m, resource, ns, name, hash3(resource, ns, name));
    if (e && (live || !e->store_only))
        out = kg_json_clone(a, e->obj);
    else
        kg_err_set(err, KG_ENOTFOUND, "%s \"%s\" not found", resource, name);
    pthread_rwlock_unlock(&m->lock);
    return out;
}

typedef struct list_item {
    const char *ns, *name;
    const kg_json *obj;
} list_item;

static kg_json *svc_list(void *ctx, kg_arena *a, const char *resource, const char *ns, unsigned flags, kg_error *err)
{
    kg_admission_memcluster *m = ctx;
    bool live = (flags & KG_ADMISSION_GET_LIVE) != 0;
    atomic_fetch_add(&m->lists, 1);
    ns = ns ? ns : "";
    kg_json *arr = NULL;
    pthread_rwlock_rdlock(&m->lock);
    const group *g = group_find(m, resource, ns[0] ? ns : ALL_NS, false);
    size_t n = 0;
    list_item *items = g && g->n ? kg_arena_alloc(a, g->n * sizeof *items) : NULL;
    for (size_t i = 0; g && i < g->n; i++) {
        const entry *e = g->items[i];
        if (live || !e->store_only)
            items[n++] = (list_item){e->ns, e->name, e->obj};
    }
    arr = kg_json_new_array(a);
    for (size_t i = 0; i < n; i++)
        kg_json_array_append(a, arr, kg_json_clone(a, items[i].obj));
    pthread_rwlock_unlock(&m->lock);
    return arr;
}

static kg_json_shared *svc_view(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name,
                                kg_error *err)
{
    kg_admission_memcluster *m = ctx;
    atomic_fetch_add(&m->gets, 1);
    kg_json_shared *out = NULL;
    pthread_rwlock_rdlock(&m->lock);
    entry *e = find(m, resource, ns, name, hash3(resource, ns, name));
    if (e && !e->store_only)
        out = kg_json_shared_pin(e->doc, a);
    else
        kg_err_set(err, KG_ENOTFOUND, "%s \"%s\" not found", resource, name);
    pthread_rwlock_unlock(&m->lock);
    return out;
}

static size_t svc_view_list(void *ctx, kg_arena *a, const char *resource, const char *ns, kg_json_shared ***out,
                            kg_error *err)
{
    kg_admission_memcluster *m = ctx;
    atomic_fetch_add(&m->lists, 1);
    pthread_rwlock_rdlock(&m->lock);
    const group *g = group_find(m, resource, ns[0] ? ns : ALL_NS, false);
    size_t n = 0;
    kg_json_shared **v = kg_arena_alloc(a, ((g ? g->n : 0) + 1) * sizeof *v);
    for (size_t i = 0; g && i < g->n; i++) {
        entry *e = g->items[i];
        if (!e->store_only)
            v[n++] = kg_json_shared_pin(e->doc, a);
    }
    pthread_rwlock_unlock(&m->lock);
    *out = v;
    return n;
}

static kg_json *svc_create(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                           kg_error *err)
{
    kg_admission_memcluster *m = ctx;
    atomic_fetch_add(&m->creates, 1);
    const char *name = kg_json_path_str(obj, "metadata.name");
    if (!name || !name[0]) {
        kg_err_set(err, KG_EINVAL, "metadata.name: Required value");
        return NULL;
    }
    ns = ns ? ns : "";
    kg_json *out = NULL;
    pthread_rwlock_wrlock(&m->lock);
    if (find(m, resource, ns, name, hash3(resource, ns, name))) {
        kg_err_set(err, KG_EEXIST, "%s \"%s\" already exists", resource, name);
    } else {
        kg_json *copy = kg_json_clone(a, obj);
        kg_json *md = kg_json_get_or_add_object(a, copy, "metadata");
        kg_json_set(a, md, "resourceVersion",
                    kg_json_new_str(a, kg_arena_sprintf(a, "%llu", (unsigned long long)++m->revision)));
        store_locked(m, resource, ns, name, copy, false);
        out = copy;
    }
    pthread_rwlock_unlock(&m->lock);
    return out;
}

static kg_json *svc_update(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                           kg_error *err)
{
    kg_admission_memcluster *m = ctx;
    atomic_fetch_add(&m->updates, 1);
    const char *name = kg_json_path_str(obj, "metadata.name");
    ns = ns ? ns : "";
    kg_json *out = NULL;
    pthread_rwlock_wrlock(&m->lock);
    entry *e = name ? find(m, resource, ns, name, hash3(resource, ns, name)) : NULL;
    const char *want = kg_json_path_str(obj, "metadata.resourceVersion");
    const char *have = e ? kg_json_path_str(e->obj, "metadata.resourceVersion") : NULL;
    if (!e) {
        kg_err_set(err, KG_ENOTFOUND, "%s \"%s\" not found", resource, name ? name : "");
    } else if (want && want[0] && have && !kg_streq(want, have)) {
        kg_err_set(err, KG_ECONFLICT,
                   "Operation cannot be fulfilled on %s \"%s\": the object has been modified; "
                   "please apply your changes to the latest version and try again",
                   resource, name);
    } else {
        kg_json *copy = kg_json_clone(a, obj);
        kg_json *md = kg_json_get_or_add_object(a, copy, "metadata");
        kg_json_set(a, md, "resourceVersion",
                    kg_json_new_str(a, kg_arena_sprintf(a, "%llu", (unsigned long long)++m->revision)));
        store_locked(m, resource, ns, name, copy, false);
        out = copy;
    }
    pthread_rwlock_unlock(&m->lock);
    deliver(m);
    return out;
}

static bool svc_ready(void *ctx, const char *resource)
{
    kg_admission_memcluster *m = ctx;
    pthread_rwlock_rdlock(&m->lock);
    named_flag *f = flag_find(m->not_ready, m->nnot_ready, resource, 0);
    bool ready = !f || !f->value;
    pthread_rwlock_unlock(&m->lock);
    return ready;
}

static bool svc_feature(void *ctx, const char *gate)
{
    kg_admission_memcluster *m = ctx;
    pthread_rwlock_rdlock(&m->lock);
    named_flag *f = flag_find(m->features, m->nfeatures, gate, 0);
    bool on = f && f->value;
    pthread_rwlock_unlock(&m->lock);
    return on;
}

static int64_t svc_now(void *ctx)
{
    kg_admission_memcluster *m = ctx;
    if (m->fake_clock)
        return atomic_load(&m->now);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void svc_sleep(void *ctx, int64_t ns)
{
    kg_admission_memcluster *m = ctx;
    if (m->fake_clock) {
        atomic_fetch_add(&m->now, ns);
        return;
    }
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

kg_admission_services kg_admission_memcluster_services(kg_admission_memcluster *m, const kg_apiserver_metrics *metrics)
{
    kg_admission_services s = {
        .ctx = m,
        .get = svc_get,
        .list = svc_list,
        .view = svc_view,
        .view_list = svc_view_list,
        .ready = svc_ready,
        .create = svc_create,
        .update = svc_update,
        .feature_enabled = svc_feature,
        .now_ns = svc_now,
        .sleep_ns = svc_sleep,
        .subscribe = svc_subscribe,
        .unsubscribe = svc_unsubscribe,
        .authorizer = NULL,
        .metrics = metrics,
    };
    return s;
}
