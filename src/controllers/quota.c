/* Quota controller: keeps every ResourceQuota's status.used true. Any write to a quota-tracked resource marks its
 * namespace dirty; dirty namespaces are recalculated from the objects that exist (kg_quota_sync_namespace) at most
 * every 200 ms, and every namespace is resynced every 5 minutes as upstream does. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admission/plugins/resourcequota.h"
#include "base/log.h"
#include "controllers/controllers.h"
#include "server/apiserver.h"

typedef struct quota_ctl {
    kg_apiserver *s;
    pthread_t thread;
    kg_store_watch *w;
    int stop; /* atomic */
} quota_ctl;

/* resource and namespace of a storage key ("/registry/[group/]plural/ns/name") */
static const kg_resource *key_resource(const char *key, size_t n, const char **ns, size_t *nsn)
{
    for (size_t i = 0; i < kg_resources_count(); i++) {
        const kg_resource *r = kg_resource_at(i);
        size_t pl = strlen(r->storage_prefix);
        if (!r->namespaced || n <= pl || strncmp(key, r->storage_prefix, pl))
            continue;
        const char *rest = key + pl;
        const char *slash = memchr(rest, '/', n - pl);
        if (!slash)
            continue;
        *ns = rest;
        *nsn = (size_t)(slash - rest);
        return r;
    }
    return NULL;
}

static void mark(char ***dirty, size_t *n, size_t *cap, const char *ns, size_t nsn)
{
    for (size_t i = 0; i < *n; i++)
        if (strlen((*dirty)[i]) == nsn && !strncmp((*dirty)[i], ns, nsn))
            return;
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *dirty = realloc(*dirty, *cap * sizeof **dirty);
    }
    (*dirty)[(*n)++] = strndup(ns, nsn);
}

static void *run(void *arg)
{
    quota_ctl *q = arg;
    pthread_setname_np(pthread_self(), "kg-quota");
    kg_arena a;
    kg_arena_init(&a, 0);
    char **dirty = NULL;
    size_t ndirty = 0, cap = 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t last_full = 0;
    while (!__atomic_load_n(&q->stop, __ATOMIC_ACQUIRE)) {
        const kg_store_event *ev;
        kg_error err;
        /* gather events for up to 200 ms, then sync what they touched */
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t start = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
        for (;;) {
            kg_store_watch_status st = kg_store_watch_next(q->w, 200, &ev, &err);
            if (st == KG_WATCH_EVENT) {
                const char *ns;
                size_t nsn;
                const kg_resource *r = key_resource(ev->key, ev->key_len, &ns, &nsn);
                if (r && kg_quota_resource_tracked(r->group, r->plural))
                    mark(&dirty, &ndirty, &cap, ns, nsn);
                kg_store_event_release(ev);
            } else if (st == KG_WATCH_ERROR || st == KG_WATCH_CLOSED) {
                if (__atomic_load_n(&q->stop, __ATOMIC_ACQUIRE))
                    break;
                kg_store_watch_close(q->w);
                q->w = kg_store_watch_open(q->s->store, "/registry/", 0, &err);
                last_full = 0; /* missed events: resync everything */
                if (!q->w)
                    goto out;
            }
            clock_gettime(CLOCK_MONOTONIC, &ts);
            int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
            if (st == KG_WATCH_TIMEOUT || now - start >= 200)
                break;
        }
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t now_s = ts.tv_sec;
        if (now_s - last_full >= 300) { /* full resync: every namespace with a quota */
            kg_json *quotas = q->s->svc.list(q->s->svc.ctx, &a, "resourcequotas", "", KG_ADMISSION_GET_LIVE, &err);
            for (uint32_t i = 0; quotas && i < quotas->len; i++) {
                const char *ns = kg_json_path_str(quotas->u.items[i], "metadata.namespace");
                if (ns)
                    mark(&dirty, &ndirty, &cap, ns, strlen(ns));
            }
            last_full = now_s;
        }
        for (size_t i = 0; i < ndirty; i++) {
            size_t updated = 0;
            if (!kg_quota_sync_namespace(&a, &q->s->svc, dirty[i], &updated, &err))
                KG_V(1, "quota controller: %s: %s", dirty[i], err.msg);
            else if (updated)
                KG_V(2, "quota controller: %s: %zu quota(s) updated", dirty[i], updated);
            free(dirty[i]);
            kg_arena_reset(&a);
        }
        ndirty = 0;
    }
out:
    for (size_t i = 0; i < ndirty; i++)
        free(dirty[i]);
    free(dirty);
    kg_arena_free(&a);
    return NULL;
}

void *kg_quota_controller_start(kg_apiserver *s, kg_error *err)
{
    quota_ctl *q = calloc(1, sizeof *q);
    q->s = s;
    q->w = kg_store_watch_open(s->store, "/registry/", 0, err);
    if (!q->w) {
        free(q);
        return NULL;
    }
    pthread_create(&q->thread, NULL, run, q);
    return q;
}

void kg_quota_controller_stop(void *p)
{
    quota_ctl *q = p;
    if (!q)
        return;
    __atomic_store_n(&q->stop, 1, __ATOMIC_RELEASE);
    pthread_join(q->thread, NULL);
    if (q->w)
        kg_store_watch_close(q->w);
    free(q);
}
