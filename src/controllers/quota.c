/* Quota controller: keeps every ResourceQuota's status.used true. Any write to a quota-tracked resource marks its
 * namespace dirty; dirty namespaces are recalculated from the objects that exist (kg_quota_sync_namespace) at most
 * every 200 ms, and every namespace is resynced every 5 minutes as upstream does.
 *
 * Admission charges status.used before the object is written, so a recount taken between a charge and its write
 * misses that object. Writing such a recount would hand the charge back and let a concurrent create through (the
 * quota exceeded by one). The controller therefore lowers a used value only once the quota's resourceVersion (its
 * last charge) has been seen unchanged for the settle window (kg_quota_settle); increases are written at once. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admission/plugins/resourcequota/resourcequota.h"
#include "base/log.h"
#include "controllers/quota.h"
#include "meta/quantity.h"
#include "meta/resourcelist.h"

#define MAX_RETRIES 3   /* conflicts re-read and recompute, as upstream's quota status writes */
#define SETTLE_MS 5000  /* longer than a charge takes to reach storage (the write follows the charge at once) */
#define SETTLE_CAP 4096 /* quotas remembered; when full the table starts afresh (that only delays decreases) */

struct kg_quota_controller {
    kg_controller_client c;
    pthread_t thread;
    kg_client_watch *w;
    int stop; /* atomic */
    kg_quota_settle *settle;
};

typedef struct settle_entry {
    char *key; /* "ns/name" */
    char *rv;
    int64_t seen_ms; /* when rv was first seen */
} settle_entry;

struct kg_quota_settle {
    int64_t window_ms;
    settle_entry *e;
    size_t n;
};

kg_quota_settle *kg_quota_settle_new(int64_t window_ms)
{
    kg_quota_settle *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->window_ms = window_ms;
    s->e = calloc(SETTLE_CAP, sizeof *s->e);
    if (!s->e) {
        free(s);
        return NULL;
    }
    return s;
}

static void settle_clear(kg_quota_settle *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->e[i].key);
        free(s->e[i].rv);
    }
    s->n = 0;
}

void kg_quota_settle_free(kg_quota_settle *s)
{
    if (!s)
        return;
    settle_clear(s);
    free(s->e);
    free(s);
}

/* Record that quota key was read at rv now; the time since when it has been at that rv. */
static int64_t settle_seen(kg_quota_settle *s, const char *key, const char *rv, int64_t now_ms)
{
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->e[i].key, key))
            continue;
        if (strcmp(s->e[i].rv, rv)) {
            char *nrv = strdup(rv);
            if (!nrv)
                return now_ms;
            free(s->e[i].rv);
            s->e[i].rv = nrv;
            s->e[i].seen_ms = now_ms;
        }
        return s->e[i].seen_ms;
    }
    if (s->n == SETTLE_CAP)
        settle_clear(s);
    char *k = strdup(key), *r = strdup(rv);
    if (!k || !r) {
        free(k);
        free(r);
        return now_ms;
    }
    s->e[s->n++] = (settle_entry){k, r, now_ms};
    return now_ms;
}

/* Whether two ResourceLists (JSON objects of quantities) hold equal values for the same names (quota.Equals). */
static bool qmap_equal(kg_arena *a, const kg_json *x, const kg_json *y)
{
    kg_rlist lx, ly;
    kg_rlist_from_json(a, x, &lx);
    kg_rlist_from_json(a, y, &ly);
    return kg_rlist_equal(&lx, &ly);
}

/* Keep the current value of every used entry the recount lowers (status: the recount, modified in place). Returns
 * whether any was kept. */
static bool keep_decreases(kg_arena *a, const kg_json *cur_used, kg_json *status)
{
    kg_json *used = kg_json_get(status, "used");
    bool kept = false;
    for (size_t i = 0; kg_json_is(used, KG_JSON_OBJECT) && i < used->len; i++) {
        const kg_json *old = kg_json_get(cur_used, used->u.members[i].key);
        kg_quantity o, n;
        KG_ERROR_DECL(e);
        if (old && kg_quantity_from_json(old, &o, &e) && kg_quantity_from_json(used->u.members[i].val, &n, &e) &&
            kg_quantity_cmp(&n, &o) < 0) {
            used->u.members[i].val = kg_json_clone(a, old);
            kept = true;
        }
    }
    return kept;
}

bool kg_quota_sync_namespace(kg_arena *a, const kg_admission_services *svc, const char *ns, size_t *updated,
                             kg_error *err)
{
    return kg_quota_sync_namespace_settled(a, svc, ns, NULL, 0, NULL, updated, err);
}

bool kg_quota_sync_namespace_settled(kg_arena *a, const kg_admission_services *svc, const char *ns,
                                     kg_quota_settle *settle, int64_t now_ms, int64_t *retry_at_ms, size_t *updated,
                                     kg_error *err)
{
    if (updated)
        *updated = 0;
    if (retry_at_ms)
        *retry_at_ms = 0;
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
            const kg_json *md = kg_json_get(q, "metadata");
            const char *rv = kg_json_get_str(md, "resourceVersion");
            if (settle && rv) {
                const char *key = kg_arena_sprintf(a, "%s/%s", ns, kg_json_get_str(md, "name"));
                int64_t since = settle_seen(settle, key, rv, now_ms);
                const kg_json *cur = kg_json_get(q, "status");
                if (changed && now_ms - since < settle->window_ms &&
                    keep_decreases(a, kg_json_get(cur, "used"), status)) {
                    int64_t at = since + settle->window_ms;
                    if (retry_at_ms && (!*retry_at_ms || at < *retry_at_ms))
                        *retry_at_ms = at;
                    changed = !qmap_equal(a, kg_json_get(cur, "used"), kg_json_get(status, "used")) ||
                              !qmap_equal(a, kg_json_get(cur, "hard"), kg_json_get(status, "hard"));
                }
            }
            if (!changed)
                break;
            kg_json *upd = kg_json_clone(a, q);
            kg_json_set(a, upd, "status", status);
            KG_ERROR_DECL(ue);
            kg_json *stored = svc->update ? svc->update(svc->ctx, a, "resourcequotas", ns, upd, &ue) : NULL;
            if (stored) {
                const kg_json *smd = kg_json_get(stored, "metadata");
                const char *srv = kg_json_get_str(smd, "resourceVersion");
                if (settle && srv) /* the version this write made: seen from now on */
                    settle_seen(settle, kg_arena_sprintf(a, "%s/%s", ns, kg_json_get_str(smd, "name")), srv, now_ms);
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
    /* namespaces whose decreases wait for their quotas to settle, and when to look again */
    char **later = NULL;
    int64_t *later_at = NULL;
    size_t nlater = 0, later_cap = 0;
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
        int64_t now_s = ts.tv_sec, now_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
        for (size_t i = 0; i < nlater;) {
            if (later_at[i] > now_ms) {
                i++;
                continue;
            }
            mark(&dirty, &ndirty, &cap, later[i], strlen(later[i]));
            free(later[i]);
            later[i] = later[nlater - 1];
            later_at[i] = later_at[nlater - 1];
            nlater--;
        }
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
            int64_t retry_at = 0;
            if (!kg_quota_sync_namespace_settled(&a, svc, dirty[i], q->settle, now_ms, &retry_at, &updated, &err))
                KG_V(1, "quota controller: %s: %s", dirty[i], err.msg);
            else if (updated)
                KG_V(2, "quota controller: %s: %zu quota(s) updated", dirty[i], updated);
            size_t k = 0;
            while (retry_at && k < nlater && strcmp(later[k], dirty[i]))
                k++;
            if (retry_at && k < nlater) {
                free(dirty[i]);
                later_at[k] = later_at[k] < retry_at ? later_at[k] : retry_at;
            } else if (retry_at) {
                if (nlater == later_cap) {
                    later_cap = later_cap ? later_cap * 2 : 16;
                    later = realloc(later, later_cap * sizeof *later);
                    later_at = realloc(later_at, later_cap * sizeof *later_at);
                }
                later[nlater] = dirty[i]; /* kept for later */
                later_at[nlater++] = retry_at;
            } else {
                free(dirty[i]);
            }
            kg_arena_reset(&a);
        }
        ndirty = 0;
        kg_arena_reset(&a); /* the watch events */
    }
out:
    for (size_t i = 0; i < ndirty; i++)
        free(dirty[i]);
    free(dirty);
    for (size_t i = 0; i < nlater; i++)
        free(later[i]);
    free(later);
    free(later_at);
    kg_arena_free(&a);
    return NULL;
}

kg_quota_controller *kg_quota_controller_start(const kg_controller_client *c, kg_error *err)
{
    kg_quota_controller *q = calloc(1, sizeof *q);
    q->c = *c;
    q->settle = kg_quota_settle_new(SETTLE_MS);
    q->w = q->settle ? q->c.watch_open(q->c.ctx, NULL, false, err) : NULL;
    if (!q->w) {
        if (!q->settle)
            kg_err_set(err, KG_EINTERNAL, "quota controller: out of memory");
        kg_quota_settle_free(q->settle);
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
    kg_quota_settle_free(q->settle);
    free(q);
}
