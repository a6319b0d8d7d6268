#include "server/cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "server/apiserver.h"

typedef struct centry {
    char *key;   /* storage key (its suffix after the prefix is "ns/name" or "name": sorts like upstream lists) */
    char *value; /* stored bytes */
    size_t len;
    int64_t rev;
} centry;

typedef struct rcache {
    const kg_resource *r;
    pthread_rwlock_t lock;
    centry *items; /* sorted by key */
    size_t n, cap;
    int synced; /* atomic */
    kg_store_watch *w;
    pthread_t thread;
    bool started;
    kg_cache_set *cs;
} rcache;

struct kg_cache_set {
    kg_store *store;
    pthread_mutex_t mu; /* guards starting caches */
    rcache *caches;     /* one slot per registered resource (kg_resource.index) */
    size_t ncaches;
    int stopping; /* atomic */
};

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

/* caller holds the write lock */
static void put(rcache *c, const char *key, const char *value, size_t len, int64_t rev)
{
    bool found;
    size_t i = find(c, key, &found);
    char *copy = malloc(len + 1);
    if (!copy)
        abort();
    memcpy(copy, value, len);
    copy[len] = 0;
    if (found) {
        free(c->items[i].value);
        c->items[i].value = copy;
        c->items[i].len = len;
        c->items[i].rev = rev;
        return;
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->items = realloc(c->items, c->cap * sizeof *c->items);
        if (!c->items)
            abort();
    }
    memmove(&c->items[i + 1], &c->items[i], (c->n - i) * sizeof *c->items);
    c->items[i] = (centry){strdup(key), copy, len, rev};
    c->n++;
}

static void del(rcache *c, const char *key)
{
    bool found;
    size_t i = find(c, key, &found);
    if (!found)
        return;
    free(c->items[i].key);
    free(c->items[i].value);
    memmove(&c->items[i], &c->items[i + 1], (c->n - i - 1) * sizeof *c->items);
    c->n--;
}

static void clear(rcache *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->items[i].key);
        free(c->items[i].value);
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
        pthread_rwlock_wrlock(&c->lock);
        clear(c);
        for (size_t i = 0; i < res.n; i++)
            put(c, res.items[i].key, res.items[i].value, res.items[i].value_len, res.items[i].mod_revision);
        pthread_rwlock_unlock(&c->lock);
        if (c->w)
            kg_store_watch_close(c->w);
        c->w = kg_store_watch_open(c->cs->store, c->r->storage_prefix, res.revision, &err);
        ok = c->w != NULL;
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
            __atomic_store_n(&c->synced, 1, __ATOMIC_RELEASE);
        }
        const kg_store_event *ev;
        kg_error err;
        kg_store_watch_status st = kg_store_watch_next(c->w, 200, &ev, &err); /* re-checks `stopping` */
        if (st == KG_WATCH_EVENT) {
            pthread_rwlock_wrlock(&c->lock);
            char key[1024];
            size_t kl = ev->key_len < sizeof key - 1 ? ev->key_len : sizeof key - 1;
            memcpy(key, ev->key, kl);
            key[kl] = 0;
            if (ev->type == KG_STORE_DELETED)
                del(c, key);
            else
                put(c, key, ev->value, ev->value_len, ev->revision);
            pthread_rwlock_unlock(&c->lock);
            kg_store_event_release(ev);
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
    cs->ncaches = kg_resources_count();
    cs->caches = calloc(cs->ncaches, sizeof *cs->caches);
    for (size_t i = 0; i < cs->ncaches; i++) {
        cs->caches[i].r = kg_resource_at(i);
        cs->caches[i].cs = cs;
        pthread_rwlock_init(&cs->caches[i].lock, NULL);
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
        pthread_rwlock_destroy(&c->lock);
    }
    free(cs->caches);
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
    kg_cache_start(cs, r);
    for (int waited = 0; !kg_cache_synced(cs, r); waited++) {
        if (waited >= timeout_ms)
            return false;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return true;
}

kg_json *kg_cache_get(kg_cache_set *cs, const kg_resource *r, const char *ns, const char *name, kg_arena *a,
                      kg_error *err)
{
    rcache *c = &cs->caches[r->index];
    const char *key = kg_resource_key(a, r, ns ? ns : "", name);
    pthread_rwlock_rdlock(&c->lock);
    bool found;
    size_t i = find(c, key, &found);
    kg_json *obj = NULL;
    if (found)
        obj = kg_obj_decode(a, c->items[i].value, c->items[i].len, c->items[i].rev, err);
    pthread_rwlock_unlock(&c->lock);
    if (!found)
        kg_err_set(err, KG_ENOTFOUND, "%s \"%s\" not found", r->plural, name);
    return obj;
}

kg_json *kg_cache_list(kg_cache_set *cs, const kg_resource *r, const char *ns, kg_arena *a, kg_error *err)
{
    rcache *c = &cs->caches[r->index];
    const char *prefix = kg_resource_list_prefix(a, r, ns);
    size_t pl = strlen(prefix);
    kg_json *arr = kg_json_new_array(a);
    pthread_rwlock_rdlock(&c->lock);
    bool found;
    for (size_t i = find(c, prefix, &found); i < c->n && !strncmp(c->items[i].key, prefix, pl); i++) {
        kg_json *o = kg_obj_decode(a, c->items[i].value, c->items[i].len, c->items[i].rev, err);
        if (o)
            kg_json_array_append(a, arr, o);
    }
    pthread_rwlock_unlock(&c->lock);
    return arr;
}
