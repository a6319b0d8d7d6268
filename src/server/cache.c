#include "server/cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "server/apiserver.h"

typedef struct centry {
    char *key; /* storage key (its suffix after the prefix is "ns/name" or "name": sorts like upstream lists) */
    kg_json_shared *doc; /* the decoded object (with metadata.resourceVersion), shared with readers */
} centry;

typedef struct csub {
    struct csub *next;
    uint64_t id;
    kg_admission_event_fn fn;
    void *ud;
} csub;

typedef struct rcache {
    const kg_resource *r;
    pthread_mutex_t sub_mu; /* guards subs; held while notifying, so unsubscribe waits for a call in progress */
    csub *subs;
    pthread_rwlock_t lock;
    centry *items; /* sorted by key */
    size_t n, cap;
    int synced; /* atomic */
    kg_store_watch *w;
    pthread_t thread;
    bool started;
    bool required; /* readiness waits for it (kg_cache_require); guarded by cs->mu */
    kg_cache_set *cs;
} rcache;

struct kg_cache_set {
    kg_store *store;
    pthread_mutex_t mu; /* guards starting caches */
    rcache *caches;     /* one slot per registered resource (kg_resource.index) */
    size_t ncaches;
    int stopping;         /* atomic */
    uint64_t next_sub_id; /* atomic */
    /* a cache turning synced broadcasts sync_cond under sync_mu: waiters sleep until then, they never poll */
    pthread_mutex_t sync_mu;
    pthread_cond_t sync_cond; /* on CLOCK_MONOTONIC */
};

/* r's cache reads as synced: wake everybody waiting for some set of caches */
static void mark_synced(rcache *c)
{
    if (__atomic_load_n(&c->synced, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&c->cs->sync_mu);
    __atomic_store_n(&c->synced, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&c->cs->sync_cond);
    pthread_mutex_unlock(&c->cs->sync_mu);
}

/* binary search: index of key, or insertion point with *found false */
static size_t find(const rcache *c, const char *key, bool *found)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int cmp = strcmp(c->items[mid].key, key);
        if (!cmp) {
            *found = true;
            return mid;
        }
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

/* Decode stored bytes into a shared document (outside the lock); NULL (logged) when they do not decode. */
static kg_json_shared *decode(const rcache *c, const char *key, size_t key_len, const char *value, size_t len,
                              int64_t rev)
{
    kg_arena a;
    kg_arena_init(&a, len + 1024);
    kg_error err;
    kg_json *o = kg_obj_decode(&a, value, len, rev, &err);
    if (!o) {
        KG_WARN("cache %s: cannot decode %.*s: %s", c->r->plural, (int)key_len, key, err.msg);
        kg_arena_free(&a);
        return NULL;
    }
    return kg_json_shared_adopt(&a, o);
}

/* caller holds the write lock; takes over doc. True when an object was replaced (false: added). */
static bool put(rcache *c, const char *key, kg_json_shared *doc)
{
    bool found;
    size_t i = find(c, key, &found);
    if (found) {
        kg_json_shared_unref(c->items[i].doc); /* readers that pinned it keep it alive */
        c->items[i].doc = doc;
        return true;
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->items = realloc(c->items, c->cap * sizeof *c->items);
        if (!c->items)
            abort();
    }
    memmove(&c->items[i + 1], &c->items[i], (c->n - i) * sizeof *c->items);
    c->items[i] = (centry){strdup(key), doc};
    c->n++;
    return false;
}

/* caller holds the write lock; returns the removed document (the caller's reference now), NULL when absent */
static kg_json_shared *del(rcache *c, const char *key)
{
    bool found;
    size_t i = find(c, key, &found);
    if (!found)
        return NULL;
    free(c->items[i].key);
    kg_json_shared *doc = c->items[i].doc;
    memmove(&c->items[i], &c->items[i + 1], (c->n - i - 1) * sizeof *c->items);
    c->n--;
    return doc;
}

/* Tell the subscribers (watcher thread, no cache lock held). doc: the object (NULL for RESYNC). */
static void notify(rcache *c, kg_admission_event_type type, const kg_json_shared *doc)
{
    pthread_mutex_lock(&c->sub_mu);
    if (c->subs) {
        kg_admission_event ev = {type, c->r->plural, "", "", NULL};
        if (doc) {
            ev.object = kg_json_shared_root(doc);
            const char *ns = kg_json_path_str(ev.object, "metadata.namespace");
            const char *name = kg_json_path_str(ev.object, "metadata.name");
            ev.ns = ns ? ns : "";
            ev.name = name ? name : "";
        }
        for (csub *sb = c->subs; sb; sb = sb->next)
            sb->fn(sb->ud, &ev);
    }
    pthread_mutex_unlock(&c->sub_mu);
}

static void clear(rcache *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->items[i].key);
        kg_json_shared_unref(c->items[i].doc);
    }
    c->n = 0;
}

/* List everything and (re)open the watch from the list revision. */
static bool relist(rcache *c)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_store_list_opts lo = {0};
    kg_store_list_result res;
    kg_error err;
    bool ok = kg_store_list(c->cs->store, c->r->storage_prefix, &lo, &a, &res, &err);
    if (ok) {
        kg_json_shared **docs = kg_arena_alloc(&a, (res.n + 1) * sizeof *docs);
        for (size_t i = 0; i < res.n; i++)
            docs[i] = decode(c, res.items[i].key, strlen(res.items[i].key), res.items[i].value, res.items[i].value_len,
                             res.items[i].mod_revision);
        pthread_rwlock_wrlock(&c->lock);
        clear(c);
        for (size_t i = 0; i < res.n; i++)
            if (docs[i])
                put(c, res.items[i].key, docs[i]);
        pthread_rwlock_unlock(&c->lock);
        if (c->w)
            kg_store_watch_close(c->w);
        c->w = kg_store_watch_open(c->cs->store, c->r->storage_prefix, res.revision, &err);
        ok = c->w != NULL;
        if (ok) {
            /* synced before telling: a subscriber that reads through the services must not wait for itself */
            mark_synced(c);
            notify(c, KG_ADMISSION_EVENT_RESYNC, NULL);
        }
    }
    if (!ok)
        KG_WARN("cache %s: relist failed: %s", c->r->plural, err.msg);
    kg_arena_free(&a);
    return ok;
}

static void *watch_main(void *arg)
{
    rcache *c = arg;
    pthread_setname_np(pthread_self(), "kg-cache");
    while (!__atomic_load_n(&c->cs->stopping, __ATOMIC_ACQUIRE)) {
        if (!c->w) {
            if (!relist(c)) {
                struct timespec ts = {0, 200 * 1000000};
                nanosleep(&ts, NULL);
                continue;
            }
        }
        const kg_store_event *ev;
        kg_error err;
        kg_store_watch_status st = kg_store_watch_next(c->w, 200, &ev, &err); /* re-checks `stopping` */
        if (st == KG_WATCH_EVENT) {
            char key[1024];
            size_t kl = ev->key_len < sizeof key - 1 ? ev->key_len : sizeof key - 1;
            memcpy(key, ev->key, kl);
            key[kl] = 0;
            kg_json_shared *doc = NULL;
            if (ev->type != KG_STORE_DELETED)
                doc = decode(c, ev->key, ev->key_len, ev->value, ev->value_len, ev->revision);
            kg_json_shared *gone = NULL;
            bool replaced = false;
            pthread_rwlock_wrlock(&c->lock);
            if (!doc)
                gone = del(c, key); /* deleted, or no longer decodable: gone from the cache */
            else
                replaced = put(c, key, doc);
            pthread_rwlock_unlock(&c->lock);
            kg_store_event_release(ev);
            /* only this thread changes the cache: doc stays alive through the calls */
            if (doc)
                notify(c, replaced ? KG_ADMISSION_EVENT_MODIFIED : KG_ADMISSION_EVENT_ADDED, doc);
            else if (gone)
                notify(c, KG_ADMISSION_EVENT_DELETED, gone);
            kg_json_shared_unref(gone);
        } else if (st == KG_WATCH_ERROR) {
            /* fell behind or compacted: relist, like an informer */
            kg_store_watch_close(c->w);
            c->w = NULL;
        } else if (st == KG_WATCH_CLOSED) {
            break;
        }
    }
    return NULL;
}

kg_cache_set *kg_cache_set_new(kg_store *store)
{
    kg_cache_set *cs = calloc(1, sizeof *cs);
    cs->store = store;
    pthread_mutex_init(&cs->mu, NULL);
    pthread_mutex_init(&cs->sync_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&cs->sync_cond, &ca);
    pthread_condattr_destroy(&ca);
    cs->ncaches = kg_resources_count();
    cs->caches = calloc(cs->ncaches, sizeof *cs->caches);
    for (size_t i = 0; i < cs->ncaches; i++) {
        cs->caches[i].r = kg_resource_at(i);
        cs->caches[i].cs = cs;
        pthread_rwlock_init(&cs->caches[i].lock, NULL);
        pthread_mutex_init(&cs->caches[i].sub_mu, NULL);
    }
    return cs;
}

void kg_cache_set_free(kg_cache_set *cs)
{
    if (!cs)
        return;
    __atomic_store_n(&cs->stopping, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&cs->mu); /* no cache starts after this */
    pthread_mutex_unlock(&cs->mu);
    pthread_mutex_lock(&cs->sync_mu); /* waiters give up */
    pthread_cond_broadcast(&cs->sync_cond);
    pthread_mutex_unlock(&cs->sync_mu);
    for (size_t i = 0; i < cs->ncaches; i++) {
        rcache *c = &cs->caches[i];
        if (c->started) {
            /* the watcher thread sees `stopping` within 200 ms */
            pthread_join(c->thread, NULL);
            if (c->w)
                kg_store_watch_close(c->w);
        }
        clear(c);
        free(c->items);
        while (c->subs) {
            csub *n = c->subs->next;
            free(c->subs);
            c->subs = n;
        }
        pthread_mutex_destroy(&c->sub_mu);
        pthread_rwlock_destroy(&c->lock);
    }
    free(cs->caches);
    pthread_cond_destroy(&cs->sync_cond);
    pthread_mutex_destroy(&cs->sync_mu);
    pthread_mutex_destroy(&cs->mu);
    free(cs);
}

void kg_cache_start(kg_cache_set *cs, const kg_resource *r)
{
    rcache *c = &cs->caches[r->index];
    if (__atomic_load_n(&c->started, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&cs->mu);
    if (!c->started && !__atomic_load_n(&cs->stopping, __ATOMIC_ACQUIRE)) {
        pthread_create(&c->thread, NULL, watch_main, c);
        __atomic_store_n(&c->started, true, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&cs->mu);
}

bool kg_cache_synced(kg_cache_set *cs, const kg_resource *r)
{
    return __atomic_load_n(&cs->caches[r->index].synced, __ATOMIC_ACQUIRE);
}

bool kg_cache_wait_synced(kg_cache_set *cs, const kg_resource *r, int timeout_ms)
{
    if (kg_cache_synced(cs, r)) /* the request path: one atomic load */
        return true;
    return kg_cache_wait_all_synced(cs, &r, 1, timeout_ms, NULL);
}

/* index of the first of rs not synced, n when all are */
static size_t first_unsynced(kg_cache_set *cs, const kg_resource *const *rs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!kg_cache_synced(cs, rs[i]))
            return i;
    return n;
}

bool kg_cache_wait_all_synced(kg_cache_set *cs, const kg_resource *const *rs, size_t n, int timeout_ms,
                              const kg_resource **unsynced)
{
    for (size_t i = 0; i < n; i++) /* every list starts before the wait: they run side by side */
        kg_cache_start(cs, rs[i]);
    size_t k = first_unsynced(cs, rs, n);
    if (k < n) {
        struct timespec deadline;
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        deadline.tv_sec += timeout_ms / 1000;
        deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&cs->sync_mu);
        /* k only grows: a synced cache stays synced */
        while ((k += first_unsynced(cs, rs + k, n - k)) < n && !__atomic_load_n(&cs->stopping, __ATOMIC_ACQUIRE))
            if (pthread_cond_timedwait(&cs->sync_cond, &cs->sync_mu, &deadline) == ETIMEDOUT) {
                k += first_unsynced(cs, rs + k, n - k);
                break;
            }
        pthread_mutex_unlock(&cs->sync_mu);
    }
    if (unsynced)
        *unsynced = k < n ? rs[k] : NULL;
    return k == n;
}

void kg_cache_require(kg_cache_set *cs, const kg_resource *r)
{
    pthread_mutex_lock(&cs->mu);
    cs->caches[r->index].required = true;
    pthread_mutex_unlock(&cs->mu);
    kg_cache_start(cs, r);
}

bool kg_cache_wait_required(kg_cache_set *cs, int timeout_ms, const kg_resource **unsynced)
{
    const kg_resource **rs = calloc(cs->ncaches + 1, sizeof *rs);
    if (!rs)
        abort();
    size_t n = 0;
    pthread_mutex_lock(&cs->mu);
    for (size_t i = 0; i < cs->ncaches; i++)
        if (cs->caches[i].required)
            rs[n++] = cs->caches[i].r;
    pthread_mutex_unlock(&cs->mu);
    bool ok = kg_cache_wait_all_synced(cs, rs, n, timeout_ms, unsynced);
    free(rs);
    return ok;
}

kg_json *kg_cache_get(kg_cache_set *cs, const kg_resource *r, const char *ns, const char *name, kg_arena *a,
                      kg_error *err)
{
    kg_json_shared *d = kg_cache_view(cs, r, ns, name, a, err);
    return d ? kg_json_clone(a, kg_json_shared_root(d)) : NULL;
}

kg_json *kg_cache_list(kg_cache_set *cs, const kg_resource *r, const char *ns, kg_arena *a, kg_error *err)
{
    kg_json_shared **docs;
    size_t n = kg_cache_view_list(cs, r, ns, a, &docs, err);
    kg_json *arr = kg_json_new_array(a);
    for (size_t i = 0; i < n; i++)
        kg_json_array_append(a, arr, kg_json_clone(a, kg_json_shared_root(docs[i])));
    return arr;
}

kg_json_shared *kg_cache_view(kg_cache_set *cs, const kg_resource *r, const char *ns, const char *name, kg_arena *a,
                              kg_error *err)
{
    rcache *c = &cs->caches[r->index];
    const char *key = kg_resource_key(a, r, ns ? ns : "", name);
    pthread_rwlock_rdlock(&c->lock);
    bool found;
    size_t i = find(c, key, &found);
    kg_json_shared *d = found ? kg_json_shared_pin(c->items[i].doc, a) : NULL;
    pthread_rwlock_unlock(&c->lock);
    if (!found)
        kg_err_set(err, KG_ENOTFOUND, "%s \"%s\" not found", r->plural, name);
    return d;
}

size_t kg_cache_view_list(kg_cache_set *cs, const kg_resource *r, const char *ns, kg_arena *a, kg_json_shared ***out,
                          kg_error *err)
{
    (void)err;
    rcache *c = &cs->caches[r->index];
    const char *prefix = kg_resource_list_prefix(a, r, ns);
    size_t pl = strlen(prefix);
    pthread_rwlock_rdlock(&c->lock);
    bool found;
    size_t first = find(c, prefix, &found), end = first;
    while (end < c->n && !strncmp(c->items[end].key, prefix, pl))
        end++;
    kg_json_shared **v = kg_arena_alloc(a, (end - first + 1) * sizeof *v);
    for (size_t i = first; i < end; i++)
        v[i - first] = kg_json_shared_pin(c->items[i].doc, a);
    pthread_rwlock_unlock(&c->lock);
    *out = v;
    return end - first;
}

uint64_t kg_cache_subscribe(kg_cache_set *cs, const kg_resource *r, kg_admission_event_fn fn, void *ud)
{
    rcache *c = &cs->caches[r->index];
    csub *sb = calloc(1, sizeof *sb);
    if (!sb)
        abort();
    sb->id = __atomic_add_fetch(&cs->next_sub_id, 1, __ATOMIC_RELAXED);
    sb->fn = fn;
    sb->ud = ud;
    pthread_mutex_lock(&c->sub_mu);
    csub **pp = &c->subs;
    while (*pp)
        pp = &(*pp)->next;
    *pp = sb;
    pthread_mutex_unlock(&c->sub_mu);
    kg_cache_start(cs, r);
    return sb->id;
}

void kg_cache_unsubscribe(kg_cache_set *cs, uint64_t id)
{
    for (size_t i = 0; i < cs->ncaches; i++) {
        rcache *c = &cs->caches[i];
        pthread_mutex_lock(&c->sub_mu);
        for (csub **pp = &c->subs; *pp; pp = &(*pp)->next) {
            if ((*pp)->id == id) {
                csub *sb = *pp;
                *pp = sb->next;
                free(sb);
                pthread_mutex_unlock(&c->sub_mu);
                return;
            }
        }
        pthread_mutex_unlock(&c->sub_mu);
    }
}
