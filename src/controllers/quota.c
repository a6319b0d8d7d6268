/* Quota controller: keeps every ResourceQuota's status.used true. Any write to a quota-tracked resource marks its
 * namespace dirty; dirty namespaces are recalculated from the objects that exist (kg_quota_sync_namespace) at most
 * every 200 ms, and every namespace is resynced every 5 minutes as upstream does. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admission/plugins/resourcequota/resourcequota.h"
#include "base/log.h"
#include "controllers/quota.h"

#define MAX_RETRIES 3 /* conflicts re-read and recompute, as upstream's quota status writes */

struct kg_quota_controller {
    kg_controller_client c;
    pthread_t thread;
    kg_client_watch *w;
    int stop; /* atomic */
};

bool kg_quota_sync_namespace(kg_arena *a, const kg_admission_services *svc, const char *ns, size_t *updated,
                             kg_error *err)
{
    if (updated)
        *updated = 0;
    kg_json *items = kg_admission_list(svc, a, "resourcequotas", ns, KG_ADMISSION_GET_LIVE, err);
    if (!items)
        return false;
    for (size_t i = 0; i < items->len; i++) {
        kg_json *q = kg_json_at(items, i);
        for (int attempt = 0;; attempt++) {
            kg_json *status;
            bool changed;
            if (!kg_quota_recalculate(a, svc, q, KG_ADMISSION_GET_LIVE, &status, &changed, err))
                return false;
            if (!changed)
                break;
            kg_json *upd = kg_json_clone(a, q);
            kg_json_set(a, upd, "status", status);
            KG_ERROR_DECL(ue);
            if (svc->update && svc->update(svc->ctx, a, "resourcequotas", ns, upd, &ue)) {
                if (updated)
                    (*updated)++;
                break;
            }
            if (!svc->update)
                return kg_err_set(err, KG_EUNSUPPORTED, "quota status cannot be written");
            if (ue.code != KG_ECONFLICT || attempt >= MAX_RETRIES) {
                *err = ue;
                return false;
            }
            KG_ERROR_DECL(ge);
            q = kg_admission_get(svc, a, "resourcequotas", ns, kg_json_get_str(kg_json_get(q, "metadata"), "name"),
                                 KG_ADMISSION_GET_LIVE, &ge);
            if (!q)
                break; /* deleted meanwhile */
        }
    }
    return true;
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
    kg_quota_controller *q = arg;
    const kg_admission_services *svc = q->c.services;
    pthread_setname_np(pthread_self(), "kg-quota");
    kg_arena a;
    kg_arena_init(&a, 0);
    char **dirty = NULL;
    size_t ndirty = 0, cap = 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t last_full = 0;
    while (!__atomic_load_n(&q->stop, __ATOMIC_ACQUIRE)) {
        kg_client_event ev;
        kg_error err;
        /* gather events for up to 200 ms, then sync what they touched */
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t start = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
        for (;;) {
            kg_client_watch_status st = q->c.watch_next(q->w, 200, &a, &ev, &err);
            if (st == KG_CLIENT_WATCH_EVENT) {
                if (ev.ns[0] && kg_quota_resource_tracked(ev.group, ev.resource))
                    mark(&dirty, &ndirty, &cap, ev.ns, strlen(ev.ns));
            } else if (st == KG_CLIENT_WATCH_ERROR || st == KG_CLIENT_WATCH_CLOSED) {
                if (__atomic_load_n(&q->stop, __ATOMIC_ACQUIRE))
                    break;
                q->c.watch_close(q->w);
                q->w = q->c.watch_open(q->c.ctx, NULL, false, &err);
                last_full = 0; /* missed events: resync everything */
                if (!q->w)
                    goto out;
            }
            clock_gettime(CLOCK_MONOTONIC, &ts);
            int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
            if (st == KG_CLIENT_WATCH_TIMEOUT || now - start >= 200)
                break;
        }
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t now_s = ts.tv_sec;
        if (now_s - last_full >= 300) { /* full resync: every namespace with a quota */
            kg_json *quotas = kg_admission_list(svc, &a, "resourcequotas", "", KG_ADMISSION_GET_LIVE, &err);
            for (uint32_t i = 0; quotas && i < quotas->len; i++) {
                const char *ns = kg_json_path_str(quotas->u.items[i], "metadata.namespace");
                if (ns)
                    mark(&dirty, &ndirty, &cap, ns, strlen(ns));
            }
            last_full = now_s;
        }
        for (size_t i = 0; i < ndirty; i++) {
            size_t updated = 0;
            if (!kg_quota_sync_namespace(&a, svc, dirty[i], &updated, &err))
                KG_V(1, "quota controller: %s: %s", dirty[i], err.msg);
            else if (updated)
                KG_V(2, "quota controller: %s: %zu quota(s) updated", dirty[i], updated);
            free(dirty[i]);
            kg_arena_reset(&a);
        }
        ndirty = 0;
        kg_arena_reset(&a); /* the watch events */
    }
out:
    for (size_t i = 0; i < ndirty; i++)
        free(dirty[i]);
    free(dirty);
    kg_arena_free(&a);
    return NULL;
}

kg_quota_controller *kg_quota_controller_start(const kg_controller_client *c, kg_error *err)
{
    kg_quota_controller *q = calloc(1, sizeof *q);
    q->c = *c;
    q->w = q->c.watch_open(q->c.ctx, NULL, false, err);
    if (!q->w) {
        free(q);
        return NULL;
    }
    pthread_create(&q->thread, NULL, run, q);
    return q;
}

void kg_quota_controller_stop(kg_quota_controller *q)
{
    if (!q)
        return;
    __atomic_store_n(&q->stop, 1, __ATOMIC_RELEASE);
    pthread_join(q->thread, NULL);
    if (q->w)
        q->c.watch_close(q->w);
    free(q);
}
