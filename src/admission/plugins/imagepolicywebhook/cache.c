/* The verdict cache (upstream's LRUExpireCache of 1024 entries keyed by the serialized review spec): a fixed array of
 * at most cap entries under one mutex. A lookup compares hashes first, then keys; an expired entry is a miss. When
 * the array is full, the least recently used entry is replaced. Verdicts are stored as copies
 * (the audit annotations as JSON text) and handed out as copies in the caller's arena. Errors are never cached (the
 * caller only puts verdicts). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/imagepolicywebhook/imagepolicywebhook.h"
#include "base/hash.h"

typedef struct entry {
    char *key; /* NULL: free slot */
    uint64_t hash;
    bool allowed;
    char *reason;
    char *audit; /* JSON object text or NULL */
    int64_t expires;
    uint64_t used; /* recency stamp */
} entry;

struct kg_ipw_cache {
    pthread_mutex_t mu;
    entry *e;
    size_t cap, n;
    uint64_t clock;
};

kg_ipw_cache *kg_ipw_cache_new(size_t cap)
{
    kg_ipw_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->e = calloc(cap ? cap : 1, sizeof *c->e);
    if (!c->e) {
        free(c);
        return NULL;
    }
    c->cap = cap ? cap : 1;
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

static void clear(entry *e)
{
    free(e->key);
    free(e->reason);
    free(e->audit);
    memset(e, 0, sizeof *e);
}

void kg_ipw_cache_free(kg_ipw_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        clear(&c->e[i]);
    free(c->e);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

static entry *find(kg_ipw_cache *c, const char *key, uint64_t h)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->e[i].hash == h && !strcmp(c->e[i].key, key))
            return &c->e[i];
    return NULL;
}

bool kg_ipw_cache_get(kg_ipw_cache *c, const char *key, int64_t now, kg_arena *a, kg_ipw_verdict *out)
{
    uint64_t h = kg_fnv1a64_str(key);
    pthread_mutex_lock(&c->mu);
    entry *e = find(c, key, h);
    bool hit = e && now < e->expires;
    if (hit) {
        e->used = ++c->clock;
        out->allowed = e->allowed;
        out->reason = kg_arena_strdup(a, e->reason);
        out->audit = e->audit ? kg_json_parse(a, e->audit, strlen(e->audit), NULL) : NULL;
    }
    pthread_mutex_unlock(&c->mu);
    return hit;
}

void kg_ipw_cache_put(kg_ipw_cache *c, const char *key, const kg_ipw_verdict *v, int64_t expires)
{
    kg_arena tmp;
    kg_arena_init(&tmp, 0);
    const char *audit = v->audit ? kg_json_to_string(&tmp, v->audit, 0, NULL) : NULL;
    entry fresh = {.key = strdup(key),
                   .hash = kg_fnv1a64_str(key),
                   .allowed = v->allowed,
                   .reason = strdup(v->reason ? v->reason : ""),
                   .audit = audit ? strdup(audit) : NULL,
                   .expires = expires};
    kg_arena_free(&tmp);
    if (!fresh.key || !fresh.reason || (audit && !fresh.audit)) {
        clear(&fresh); /* out of memory: not cached */
        return;
    }
    pthread_mutex_lock(&c->mu);
    entry *slot = find(c, key, fresh.hash);
    if (!slot && c->n < c->cap)
        slot = &c->e[c->n++];
    if (!slot) { /* full: the least recently used goes, as in upstream's LRU */
        slot = &c->e[0];
        for (size_t i = 1; i < c->n; i++)
            if (c->e[i].used < slot->used)
                slot = &c->e[i];
    }
    if (slot->key)
        clear(slot);
    fresh.used = ++c->clock;
    *slot = fresh;
    pthread_mutex_unlock(&c->mu);
}

size_t kg_ipw_cache_len(kg_ipw_cache *c)
{
    pthread_mutex_lock(&c->mu);
    size_t n = c->n;
    pthread_mutex_unlock(&c->mu);
    return n;
}
