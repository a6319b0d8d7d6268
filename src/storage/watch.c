/* Watch hub: committed events go into one ring of refcounted events shared by every watcher. A watcher is a
 * cursor (the next revision it will look at) over that ring, so fan-out costs one pointer read and one refcount
 * increment per watcher and event, never a copy. A watcher that starts before the ring (an old from_revision)
 * replays from the backend's history until it reaches the ring; a live watcher that falls a whole ring behind
 * is closed with KG_EGONE (the client re-lists), so slow watchers never hold up writers.
 * Revisions may have gaps (etcd: changes outside the store's keys); a gap is an empty slot, and a watcher that
 * finds itself before the ring only lost something if an event it had not seen was evicted (evicted_max). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "storage/storage_internal.h"
#include "storage/transformer.h"

#define KG_WATCH_BATCH 64     /* events taken from the ring per lock acquisition */
#define KG_WATCH_SCAN 4096    /* most ring slots scanned per lock acquisition */

kg_store_event *kg_event_new(kg_store_event_type type, int64_t rev, int64_t create_rev, int64_t prev_rev,
                             const char *key, size_t key_len, const void *value, size_t value_len, const void *prev,
                             size_t prev_len)
{
    size_t total = sizeof(kg_event_obj) + key_len + 1 + (value ? value_len + 1 : 0) + (prev ? prev_len + 1 : 0);
    kg_event_obj *o = malloc(total);
    if (!o)
        abort();
    char *p = (char *)(o + 1);
    o->ev.type = type;
    o->ev.revision = rev;
    o->ev.create_revision = create_rev;
    o->ev.prev_revision = prev_rev;
    memcpy(p, key, key_len);
    p[key_len] = 0;
    o->ev.key = p;
    o->ev.key_len = key_len;
    p += key_len + 1;
    o->ev.value = NULL;
    o->ev.value_len = 0;
    if (value) {
        if (value_len)
            memcpy(p, value, value_len);
        p[value_len] = 0;
        o->ev.value = p;
        o->ev.value_len = value_len;
        p += value_len + 1;
    }
    o->ev.prev_value = NULL;
    o->ev.prev_value_len = 0;
    if (prev) {
        if (prev_len)
            memcpy(p, prev, prev_len);
        p[prev_len] = 0;
        o->ev.prev_value = p;
        o->ev.prev_value_len = prev_len;
    }
    atomic_init(&o->refs, 1);
    return &o->ev;
}

void kg_store_event_retain(const kg_store_event *ev)
{
    if (ev)
        atomic_fetch_add_explicit(&((kg_event_obj *)ev)->refs, 1, memory_order_relaxed);
}

void kg_store_event_release(const kg_store_event *ev)
{
    if (!ev)
        return;
    kg_event_obj *o = (kg_event_obj *)ev;
    if (atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) == 1)
        free(o);
}

struct kg_watch_hub {
    pthread_mutex_t mu; /* ring, head, cond */
    pthread_cond_t cond;
    const kg_store_event **ring;
    int64_t cap, mask;
    int64_t ring_lo; /* oldest revision in the ring (ring_lo > head: empty) */
    size_t bytes, max_bytes; /* payload bytes held by the ring and the budget */
    int64_t head;    /* newest published revision */
    int64_t evicted_max; /* newest revision whose event left the ring (or was never in it: history) */
    atomic_llong head_pub; /* = head, readable without the lock (kg_store_current_revision is on request paths) */
    bool closing;

    pthread_mutex_t wl_mu; /* watcher list (notify callbacks); lock order: wl_mu before mu */
    kg_store_watch *watchers;

    kg_history_fn history;
    void *backend;
    const kg_transformer *xf;
    atomic_int refs; /* the store's reference plus one per open watcher: a watcher may outlive the store */
};

struct kg_store_watch {
    kg_watch_hub *h;
    char *prefix, *prefix_end;
    size_t plen;
    int64_t next_rev; /* next revision to examine */
    bool in_ring;     /* has read from the ring: falling out of it now means "too slow" */
    atomic_bool cancelled;
    int final_status; /* 0 while open; KG_WATCH_CLOSED / KG_WATCH_ERROR afterwards */
    kg_error final_err;
    const kg_store_event *buf[KG_WATCH_BATCH];
    int buf_pos, buf_n;
    void (*notify)(void *ud);
    void *notify_ud;
    kg_store_watch *prev, *next;
};

static size_t ev_bytes(const kg_store_event *e) { return e ? e->key_len + e->value_len + e->prev_value_len : 0; }

kg_watch_hub *kg_watch_hub_new(int window, size_t max_bytes, int64_t head, kg_history_fn history, void *backend)
{
    kg_watch_hub *h = calloc(1, sizeof *h);
    if (!h)
        abort();
    int64_t cap = 1;
    while (cap < window)
        cap <<= 1;
    h->cap = cap;
    h->mask = cap - 1;
    h->ring = calloc((size_t)cap, sizeof *h->ring);
    if (!h->ring)
        abort();
    h->head = head;
    atomic_init(&h->head_pub, head);
    h->ring_lo = head + 1;
    h->evicted_max = head;
    h->max_bytes = max_bytes;
    h->history = history;
    h->backend = backend;
    atomic_init(&h->refs, 1);
    pthread_mutex_init(&h->mu, NULL);
    pthread_mutex_init(&h->wl_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&h->cond, &ca);
    pthread_condattr_destroy(&ca);
    return h;
}

void kg_watch_hub_shutdown(kg_watch_hub *h)
{
    pthread_mutex_lock(&h->mu);
    h->closing = true;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->mu);
}

void kg_watch_hub_free(kg_watch_hub *h)
{
    if (!h || atomic_fetch_sub(&h->refs, 1) != 1)
        return;
    for (int64_t r = h->ring_lo; r <= h->head; r++)
        kg_store_event_release(h->ring[r & h->mask]);
    free(h->ring);
    pthread_mutex_destroy(&h->mu);
    pthread_mutex_destroy(&h->wl_mu);
    pthread_cond_destroy(&h->cond);
    free(h);
}

void kg_watch_hub_skip_to(kg_watch_hub *h, int64_t rev)
{
    pthread_mutex_lock(&h->mu);
    for (int64_t r = h->ring_lo; r <= h->head; r++) {
        kg_store_event_release(h->ring[r & h->mask]);
        h->ring[r & h->mask] = NULL;
    }
    h->bytes = 0;
    if (rev > h->head)
        h->head = rev;
    h->evicted_max = h->head;
    h->ring_lo = h->head + 1;
    atomic_store_explicit(&h->head_pub, h->head, memory_order_release);
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->mu);
}

void kg_watch_hub_set_transformer(kg_watch_hub *h, const kg_transformer *xf)
{
    h->xf = xf;
}

/* The event with its values decrypted (a new event; ev's reference is dropped), or ev itself when nothing in it
 * is encrypted. A value that cannot be decrypted (a key removed from the configuration) is left as stored and
 * logged: the client gets undecodable data instead of the stream stopping. */
static kg_store_event *decrypt_event(const kg_watch_hub *h, kg_store_event *ev)
{
    if (!h->xf || !ev ||
        (!(ev->value && kg_transformer_is_encrypted(ev->value, ev->value_len)) &&
         !(ev->prev_value && kg_transformer_is_encrypted(ev->prev_value, ev->prev_value_len))))
        return ev;
    kg_arena a;
    kg_arena_init(&a, ev->value_len + ev->prev_value_len + 256);
    const char *v = ev->value, *pv = ev->prev_value;
    size_t vn = ev->value_len, pvn = ev->prev_value_len;
    bool stale;
    KG_ERROR_DECL(e);
    kg_store_event *out = ev;
    if ((!v || kg_transformer_from_storage(h->xf, ev->key, ev->key_len, v, vn, &a, &v, &vn, &stale, &e)) &&
        (!pv || kg_transformer_from_storage(h->xf, ev->key, ev->key_len, pv, pvn, &a, &pv, &pvn, &stale, &e))) {
        out = kg_event_new(ev->type, ev->revision, ev->create_revision, ev->prev_revision, ev->key, ev->key_len, v, vn,
                           pv, pvn);
        kg_store_event_release(ev);
    } else {
        KG_WARN("storage: watch event for %s at revision %lld: %s", ev->key, (long long)ev->revision, e.msg);
    }
    kg_arena_free(&a);
    return out;
}

int64_t kg_watch_hub_head(kg_watch_hub *h) { return atomic_load_explicit(&h->head_pub, memory_order_acquire); }

static bool key_in(const kg_store_watch *w, const char *key, size_t klen)
{
    return klen >= w->plen && memcmp(key, w->prefix, w->plen) == 0;
}

void kg_watch_hub_publish(kg_watch_hub *h, kg_store_event **evs, size_t n)
{
    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++)
        evs[i] = decrypt_event(h, evs[i]);
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; i < n; i++) {
        int64_t rev = evs[i]->revision;
        if (rev <= h->head) { /* not newer than what is published: a backend bug, never reorder */
            kg_store_event_release(evs[i]);
            evs[i] = NULL;
            continue;
        }
        int64_t slot = rev & h->mask;
        size_t nb = ev_bytes(evs[i]);
        /* evict the oldest while rev's slot (and the gap before it) is still taken, or while over the byte budget
         * (the newest event always stays) */
        while (h->ring_lo <= h->head &&
               (h->ring_lo <= rev - h->cap || (h->max_bytes && h->bytes + nb > h->max_bytes))) {
            const kg_store_event *old = h->ring[h->ring_lo & h->mask];
            if (old) {
                h->bytes -= ev_bytes(old);
                h->evicted_max = h->ring_lo;
                kg_store_event_release(old);
                h->ring[h->ring_lo & h->mask] = NULL;
            }
            h->ring_lo++;
        }
        if (h->ring_lo > h->head) /* empty ring */
            h->ring_lo = rev;
        h->ring[slot] = evs[i];
        h->bytes += nb;
        h->head = rev;
    }
    atomic_store_explicit(&h->head_pub, h->head, memory_order_release);
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->mu);

    /* notify callbacks of watchers the batch concerns */
    pthread_mutex_lock(&h->wl_mu);
    for (kg_store_watch *w = h->watchers; w; w = w->next) {
        if (!w->notify)
            continue;
        for (size_t i = 0; i < n; i++) {
            if (evs[i] && key_in(w, evs[i]->key, evs[i]->key_len)) {
                w->notify(w->notify_ud);
                break;
            }
        }
    }
    pthread_mutex_unlock(&h->wl_mu);
}

/* smallest string greater than every string starting with p ("" = no upper bound) */
static char *prefix_end(const char *p)
{
    size_t n = strlen(p);
    char *e = strdup(p);
    if (!e)
        abort();
    while (n > 0) {
        unsigned char c = (unsigned char)e[n - 1];
        if (c < 0xff) {
            e[n - 1] = (char)(c + 1);
            e[n] = 0;
            return e;
        }
        n--;
    }
    e[0] = 0;
    return e;
}

kg_store_watch *kg_watch_hub_open(kg_watch_hub *h, const char *prefix, int64_t from_rev, int64_t committed,
                                  int64_t compacted, kg_error *err)
{
    if (from_rev < 0) {
        kg_err_set(err, KG_EINVAL, "invalid resource version: %lld", (long long)from_rev);
        return NULL;
    }
    if (from_rev > 0 && from_rev < compacted) {
        kg_err_set(err, KG_EGONE, "too old resource version: %lld (%lld)", (long long)from_rev,
                   (long long)compacted);
        return NULL;
    }
    if (from_rev > committed) {
        kg_err_set(err, KG_ETIMEOUT, "Too large resource version: %lld, current: %lld", (long long)from_rev,
                   (long long)committed);
        return NULL;
    }
    kg_store_watch *w = calloc(1, sizeof *w);
    if (!w)
        abort();
    w->h = h;
    w->prefix = strdup(prefix);
    if (!w->prefix)
        abort();
    w->plen = strlen(prefix);
    w->prefix_end = prefix_end(prefix);
    atomic_init(&w->cancelled, false);
    pthread_mutex_lock(&h->wl_mu);
    pthread_mutex_lock(&h->mu);
    w->next_rev = (from_rev == 0 ? h->head : from_rev) + 1;
    /* live from the start unless it must first replay history older than the ring */
    w->in_ring = w->next_rev >= h->ring_lo || w->next_rev > h->evicted_max;
    pthread_mutex_unlock(&h->mu);
    w->next = h->watchers;
    if (h->watchers)
        h->watchers->prev = w;
    h->watchers = w;
    atomic_fetch_add(&h->refs, 1);
    pthread_mutex_unlock(&h->wl_mu);
    return w;
}

kg_store_watch *kg_store_watch_open(kg_store *s, const char *prefix, int64_t from_revision, kg_error *err)
{
    if (!prefix || prefix[0] != '/') {
        kg_err_set(err, KG_EINVAL, "watch prefix must start with '/'");
        return NULL;
    }
    int64_t committed = s->ops->committed_revision(s->b);
    int64_t compacted = s->ops->compacted_revision(s->b);
    return kg_watch_hub_open(s->hub, prefix, from_revision, committed, compacted, err);
}

void kg_store_watch_set_notify(kg_store_watch *w, void (*fn)(void *ud), void *ud)
{
    pthread_mutex_lock(&w->h->wl_mu);
    w->notify = fn;
    w->notify_ud = ud;
    pthread_mutex_unlock(&w->h->wl_mu);
}

void kg_store_watch_cancel(kg_store_watch *w)
{
    if (!w)
        return;
    atomic_store(&w->cancelled, true);
    pthread_mutex_lock(&w->h->mu);
    pthread_cond_broadcast(&w->h->cond);
    pthread_mutex_unlock(&w->h->mu);
}

static void drop_buffer(kg_store_watch *w)
{
    for (int i = w->buf_pos; i < w->buf_n; i++)
        kg_store_event_release(w->buf[i]);
    w->buf_pos = w->buf_n = 0;
}

void kg_store_watch_close(kg_store_watch *w)
{
    if (!w)
        return;
    kg_store_watch_cancel(w);
    kg_watch_hub *h = w->h;
    pthread_mutex_lock(&h->wl_mu);
    if (w->prev)
        w->prev->next = w->next;
    else
        h->watchers = w->next;
    if (w->next)
        w->next->prev = w->prev;
    pthread_mutex_unlock(&h->wl_mu);
    drop_buffer(w);
    free(w->prefix);
    free(w->prefix_end);
    free(w);
    kg_watch_hub_free(h);
}

int64_t kg_store_watch_progress(kg_store_watch *w)
{
    if (w->buf_pos < w->buf_n)
        return w->buf[w->buf_pos]->revision - 1;
    return w->next_rev - 1;
}

static kg_store_watch_status finish(kg_store_watch *w, kg_store_watch_status st, kg_error *err)
{
    drop_buffer(w);
    w->final_status = st;
    if (st == KG_WATCH_ERROR && err)
        *err = w->final_err;
    return st;
}

static kg_store_watch_status take(kg_store_watch *w, const kg_store_event **ev)
{
    *ev = w->buf[w->buf_pos++];
    if (w->buf_pos == w->buf_n)
        w->buf_pos = w->buf_n = 0;
    return KG_WATCH_EVENT;
}

/* Replay from the backend's history (unlocked). Returns false on error (final_err set). */
static bool replay_batch(kg_store_watch *w)
{
    kg_store_event *evs[KG_WATCH_BATCH];
    int n = 0;
    int64_t last = 0;
    KG_ERROR_DECL(e);
    if (!w->h->history(w->h->backend, w->next_rev - 1, w->prefix, w->prefix_end, KG_WATCH_BATCH, evs, &n, &last,
                       &e)) {
        w->final_err = e;
        return false;
    }
    for (int i = 0; i < n; i++)
        w->buf[w->buf_n++] = decrypt_event(w->h, evs[i]);
    if (last + 1 > w->next_rev)
        w->next_rev = last + 1;
    return true;
}

kg_store_watch_status kg_store_watch_next(kg_store_watch *w, int timeout_ms, const kg_store_event **ev,
                                          kg_error *err)
{
    *ev = NULL;
    if (w->final_status)
        return w->final_status == KG_WATCH_ERROR ? finish(w, KG_WATCH_ERROR, err) : KG_WATCH_CLOSED;
    if (atomic_load(&w->cancelled))
        return finish(w, KG_WATCH_CLOSED, err);
    if (w->buf_pos < w->buf_n)
        return take(w, ev);

    struct timespec deadline;
    if (timeout_ms > 0) {
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        deadline.tv_sec += timeout_ms / 1000;
        deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
    }
    kg_watch_hub *h = w->h;
    pthread_mutex_lock(&h->mu);
    for (;;) {
        if (atomic_load(&w->cancelled) || h->closing) {
            pthread_mutex_unlock(&h->mu);
            if (w->next_rev < h->ring_lo && w->next_rev > h->evicted_max) {
                w->next_rev = h->ring_lo; /* only gaps were skipped */
                w->in_ring = true;
            }
            return finish(w, KG_WATCH_CLOSED, err);
        }
        if (w->next_rev <= h->head) {
            if (w->next_rev < h->ring_lo) {
                if (w->in_ring) {
                    kg_err_set(&w->final_err, KG_EGONE,
                               "watcher fell too far behind: next revision %lld, oldest buffered %lld (window %lld)",
                               (long long)w->next_rev, (long long)h->ring_lo, (long long)h->cap);
                    pthread_mutex_unlock(&h->mu);
                    return finish(w, KG_WATCH_ERROR, err);
                }
                pthread_mutex_unlock(&h->mu);
                int64_t before = w->next_rev;
                if (!replay_batch(w))
                    return finish(w, KG_WATCH_ERROR, err);
                if (w->buf_n == 0 && w->next_rev == before) {
                    kg_err_set(&w->final_err, KG_EINTERNAL, "watch replay made no progress at revision %lld",
                               (long long)before);
                    return finish(w, KG_WATCH_ERROR, err);
                }
                if (w->buf_n > 0)
                    return take(w, ev);
                pthread_mutex_lock(&h->mu);
                continue;
            }
            w->in_ring = true;
            int scanned = 0;
            while (w->next_rev <= h->head && w->buf_n < KG_WATCH_BATCH && scanned < KG_WATCH_SCAN) {
                const kg_store_event *e = h->ring[w->next_rev & h->mask];
                w->next_rev++;
                scanned++;
                if (e && key_in(w, e->key, e->key_len)) {
                    kg_store_event_retain(e);
                    w->buf[w->buf_n++] = e;
                }
            }
            if (w->buf_n > 0) {
                pthread_mutex_unlock(&h->mu);
                return take(w, ev);
            }
            if (scanned == KG_WATCH_SCAN) { /* a long run of other prefixes: let the writer in */
                pthread_mutex_unlock(&h->mu);
                pthread_mutex_lock(&h->mu);
            }
            continue;
        }
        if (timeout_ms == 0) {
            pthread_mutex_unlock(&h->mu);
            return KG_WATCH_TIMEOUT;
        }
        if (timeout_ms < 0) {
            pthread_cond_wait(&h->cond, &h->mu);
        } else if (pthread_cond_timedwait(&h->cond, &h->mu, &deadline) == ETIMEDOUT) {
            /* one last look happens only if something arrived; otherwise report the timeout */
            if (w->next_rev > h->head || atomic_load(&w->cancelled) || h->closing) {
                bool closed = atomic_load(&w->cancelled) || h->closing;
                pthread_mutex_unlock(&h->mu);
                return closed ? finish(w, KG_WATCH_CLOSED, err) : KG_WATCH_TIMEOUT;
            }
        }
    }
}
