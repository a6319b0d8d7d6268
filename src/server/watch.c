/* Watch: a chunked stream of {"type":...,"object":...} events per request, fed by the store's watch.
 *
 * No thread is held per watcher. The store's notify hook and the HTTP stream's done hook only put the watcher
 * on a ready queue; a small pump pool drains ready watchers (events → frames → kg_http_stream_write) and sends
 * bookmarks. The store hands out each event once, refcounted and shared by all watchers.
 *
 * Back-pressure. A watcher's memory is bounded twice: in bytes by its HTTP stream queue, in events by the
 * store's shared window (kg_store_options.watch_window). The pump stops taking events (and initial-list pages)
 * for a watcher whose stream holds WATCH_HIGH_WATER bytes or more; the stream's drain callback puts it back on
 * the ready queue once the client has read it below WATCH_LOW_WATER. A watcher that stays blocked for
 * WATCH_STALL_MS is closed (upstream's cacher closes unresponsive watchers; the client re-lists), and one that
 * lags behind the store's window gets a 410 Expired ERROR event when it next reads. The initial list of a
 * watch without resourceVersion is read in pages of WATCH_LIST_PAGE objects from one snapshot, each page only
 * when the stream has room, so a huge collection is never buffered whole. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/dynamic.h"
#include "api/table.h"
#include "api/versions.h"
#include "base/log.h"
#include "server/apiserver.h"
#include "server/selectors.h"
#include "server/watch.h"

typedef struct wctx {
    struct wctx *next_ready; /* ready queue link */
    struct wctx *prev_all, *next_all;
    kg_arena arena; /* selectors, resource strings */
    kg_store_watch *w;
    kg_store *store;
    kg_http_stream *stream;
    const kg_resource *r;
    kg_selectors sel;
    bool table;
    bool bookmarks;
    int64_t last_bookmark_ms;
    int64_t blocked_since_ms; /* stream at the high-water mark since (0: not blocked); atomic: the ticker reads it */
    char *list_cont;          /* initial list still being streamed: the next page's continue token */
    int64_t initial_end_rev;  /* sendInitialEvents: the snapshot's revision, for the initial-events-end bookmark
                                 sent once the initial list is out (0: none to send) */
    const char *prefix;       /* the store prefix (in arena) */
    int queued;               /* on the ready queue */
    int processing;           /* a pump thread is on it */
    int requeue;              /* readiness arrived while processing */
    int done;                 /* client gone / deadline / error */
} wctx;

struct kg_watch_pump {
    pthread_mutex_t mu;
    pthread_cond_t cv;      /* pump threads wait here for ready watchers */
    pthread_cond_t tick_cv; /* the bookmark ticker waits here (a separate condvar, so a signal meant for the pump
                               never wakes the ticker instead) */
    wctx *head, *tail;
    wctx *all;
    int stopping;
    size_t nthreads;
    pthread_t threads[4];
    pthread_t ticker;
    int64_t bookmark_ms;
    size_t active;
};

#define WATCH_HIGH_WATER (512u * 1024u)
#define WATCH_LOW_WATER (128u * 1024u)
#define WATCH_STALL_MS 10000
#define WATCH_LIST_PAGE 64

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* caller holds mu */
static void enqueue_locked(kg_watch_pump *p, wctx *c)
{
    if (c->processing) {
        c->requeue = 1;
        return;
    }
    if (c->queued)
        return;
    c->queued = 1;
    c->next_ready = NULL;
    if (p->tail)
        p->tail->next_ready = c;
    else
        p->head = c;
    p->tail = c;
    pthread_cond_signal(&p->cv);
}

typedef struct notify_ud {
    kg_watch_pump *p;
    wctx *c;
} notify_ud;

static kg_watch_pump *g_pump_for_cb; /* one pump per process (one server) */

static void on_ready(void *ud)
{
    wctx *c = ud;
    kg_watch_pump *p = g_pump_for_cb;
    pthread_mutex_lock(&p->mu);
    enqueue_locked(p, c);
    pthread_mutex_unlock(&p->mu);
}

static void on_stream_done(void *ud)
{
    wctx *c = ud;
    kg_watch_pump *p = g_pump_for_cb;
    pthread_mutex_lock(&p->mu);
    c->done = 1;
    enqueue_locked(p, c);
    pthread_mutex_unlock(&p->mu);
}

/* ---- encoding ---- */

static void frame_begin(kg_buf *b, const char *type)
{
    kg_buf_printf(b, "{\"type\":\"%s\",\"object\":", type);
}

void kg_watch_encode_event(kg_buf *b, kg_arena *a, const kg_resource *r, bool table, const char *type,
                           const char *bytes, size_t len, int64_t rev)
{
    frame_begin(b, type);
    if (table) {
        kg_error err;
        kg_json *obj = kg_obj_decode(a, bytes, len, rev, &err);
        if (obj) { /* printed from the stored shape every served version shares */
            kg_obj_set_api_version(a, obj, kg_dynamic_read_as(r));
            kg_json *t = kg_api_table(a, kg_version_storage_resource(r), &obj, 1, NULL, "");
            kg_json_write(b, t, 0);
        } else {
            kg_buf_puts(b, "null");
        }
    } else {
        bytes = kg_version_stored_bytes(a, r, bytes, len, &len); /* each event in the watched version */
        kg_obj_splice_rv_as(a, b, bytes, len, rev, kg_dynamic_read_as(r));
    }
    kg_buf_puts(b, "}\n");
}

static void encode_bookmark(kg_buf *b, const kg_resource *r, int64_t rev)
{
    kg_buf_printf(b,
                  "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":{"
                  "\"resourceVersion\":\"%lld\",\"creationTimestamp\":null}}}\n",
                  r->kind, r->api_version, (long long)rev);
}

/* The bookmark that ends a sendInitialEvents=true watch's initial events (annotation k8s.io/initial-events-end). */
static void encode_initial_events_end(kg_buf *b, const kg_resource *r, int64_t rev)
{
    kg_buf_printf(b,
                  "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":{"
                  "\"resourceVersion\":\"%lld\",\"creationTimestamp\":null,\"annotations\":{"
                  "\"k8s.io/initial-events-end\":\"true\"}}}}\n",
                  r->kind, r->api_version, (long long)rev);
}

void kg_watch_encode_error(kg_buf *b, const kg_status *st)
{
    kg_buf_puts(b, "{\"type\":\"ERROR\",\"object\":");
    kg_status_write(b, st);
    kg_buf_puts(b, "}\n");
}

/* Translate one store event into zero or one frame, applying selectors (ADDED/DELETED when an object starts
 * or stops matching). */
static void encode_store_event(wctx *c, kg_buf *b, kg_arena *a, const kg_store_event *ev)
{
    const char *type;
    const char *bytes;
    size_t len;
    if (ev->type == KG_STORE_DELETED) {
        type = "DELETED";
        bytes = ev->prev_value, len = ev->prev_value_len;
    } else {
        type = ev->type == KG_STORE_ADDED ? "ADDED" : "MODIFIED";
        bytes = ev->value, len = ev->value_len;
    }
    if (!c->sel.empty) {
        kg_error err;
        kg_json *cur = kg_version_from_storage(a, c->r, kg_json_parse(a, bytes, len, &err));
        bool now = cur && kg_selectors_match(&c->sel, cur);
        bool before = false;
        if (ev->type == KG_STORE_MODIFIED && ev->prev_value) {
            kg_json *prev = kg_version_from_storage(a, c->r, kg_json_parse(a, ev->prev_value, ev->prev_value_len, &err));
            before = prev && kg_selectors_match(&c->sel, prev);
        }
        if (ev->type == KG_STORE_MODIFIED) {
            if (now && !before)
                type = "ADDED";
            else if (!now && before)
                type = "DELETED";
            else if (!now)
                return;
        } else if (!now) {
            return;
        }
    }
    kg_watch_encode_event(b, a, c->r, c->table, type, bytes, len, ev->revision);
}

static void free_ctx(kg_watch_pump *p, wctx *c)
{
    pthread_mutex_lock(&p->mu);
    if (c->prev_all)
        c->prev_all->next_all = c->next_all;
    else
        p->all = c->next_all;
    if (c->next_all)
        c->next_all->prev_all = c->prev_all;
    p->active--;
    pthread_mutex_unlock(&p->mu);
    free(c->list_cont);
    kg_arena_free(&c->arena);
    free(c);
}

/* Frames of one page of the initial list. Returns false when the page could not be read (err set). */
static bool list_page(wctx *c, kg_store *store, kg_buf *b, kg_arena *a, const char *cont, int64_t *rev, char **next,
                      kg_error *err)
{
    kg_store_list_opts lo = {.limit = WATCH_LIST_PAGE, .continue_token = cont};
    kg_store_list_result res;
    if (!kg_store_list(store, c->prefix, &lo, a, &res, err))
        return false;
    for (size_t i = 0; i < res.n; i++) {
        if (!c->sel.empty) {
            kg_json *o = kg_version_from_storage(a, c->r, kg_json_parse(a, res.items[i].value, res.items[i].value_len, err));
            if (!o || !kg_selectors_match(&c->sel, o))
                continue;
        }
        kg_watch_encode_event(b, a, c->r, c->table, "ADDED", res.items[i].value, res.items[i].value_len,
                              res.items[i].mod_revision);
    }
    *rev = res.revision;
    *next = res.continue_token ? strdup(res.continue_token) : NULL;
    return true;
}

static void write_error(wctx *c, kg_buf *b, kg_arena *scratch, const kg_error *err)
{
    kg_buf_reset(b);
    kg_status *s =
        err->code == KG_EGONE ? kg_status_resource_expired(scratch, err->msg) : kg_status_internal(scratch, err->msg);
    kg_watch_encode_error(b, s);
    kg_http_stream_write(c->stream, b->data, b->len);
}

/* Drain a watcher. Returns true when it is finished (closed and freed). */
static bool service(kg_watch_pump *p, wctx *c, kg_buf *b, kg_arena *scratch)
{
    bool finished = c->done;
    kg_error err;
    int budget = 256; /* events per turn: fairness between watchers */
    size_t pending = kg_http_stream_pending(c->stream);
    if (!finished && pending >= WATCH_HIGH_WATER) {
        /* the client is not keeping up: wait for the drain callback; close it if it never comes */
        int64_t t = now_ms();
        int64_t since = __atomic_load_n(&c->blocked_since_ms, __ATOMIC_RELAXED);
        if (!since) {
            __atomic_store_n(&c->blocked_since_ms, t, __ATOMIC_RELAXED);
        } else if (t - since >= WATCH_STALL_MS) {
            KG_V(1, "closing an unresponsive %s watcher (%zu bytes not read for %d s)", c->r->plural, pending,
                 WATCH_STALL_MS / 1000);
            finished = true;
        }
        if (!finished)
            return false;
    } else {
        __atomic_store_n(&c->blocked_since_ms, 0, __ATOMIC_RELAXED);
    }
    /* the rest of the initial list, a page at a time while the stream has room */
    while (!finished && c->list_cont && pending < WATCH_HIGH_WATER && budget > 0) {
        budget -= WATCH_LIST_PAGE / 4;
        kg_buf_reset(b);
        char *next = NULL;
        int64_t rev;
        if (!list_page(c, c->store, b, scratch, c->list_cont, &rev, &next, &err)) {
            write_error(c, b, scratch, &err);
            finished = true;
            break;
        }
        free(c->list_cont);
        c->list_cont = next;
        if (!next && c->initial_end_rev) {
            encode_initial_events_end(b, c->r, c->initial_end_rev);
            c->initial_end_rev = 0;
        }
        if (b->len && !kg_http_stream_write(c->stream, b->data, b->len))
            finished = true;
        pending += b->len;
        kg_arena_reset(scratch);
    }
    while (!finished && !c->list_cont && pending < WATCH_HIGH_WATER && budget-- > 0) {
        const kg_store_event *ev;
        kg_store_watch_status st = kg_store_watch_next(c->w, 0, &ev, &err);
        if (st == KG_WATCH_TIMEOUT)
            break;
        if (st != KG_WATCH_EVENT) {
            if (st == KG_WATCH_ERROR)
                write_error(c, b, scratch, &err);
            finished = true;
            break;
        }
        kg_buf_reset(b);
        encode_store_event(c, b, scratch, ev);
        kg_store_event_release(ev);
        if (b->len && !kg_http_stream_write(c->stream, b->data, b->len))
            finished = true;
        pending += b->len;
        kg_arena_reset(scratch);
    }
    if (!finished && c->bookmarks && !c->list_cont) {
        int64_t t = now_ms();
        if (t - c->last_bookmark_ms >= p->bookmark_ms) {
            c->last_bookmark_ms = t;
            kg_buf_reset(b);
            encode_bookmark(b, c->r, kg_store_watch_progress(c->w));
            if (!kg_http_stream_write(c->stream, b->data, b->len))
                finished = true;
        }
    }
    /* more to do and room for it: another turn (past the high-water mark the drain callback requeues) */
    if (budget <= 0 && !finished && pending < WATCH_HIGH_WATER) {
        pthread_mutex_lock(&p->mu);
        c->requeue = 1;
        pthread_mutex_unlock(&p->mu);
    }
    if (finished || kg_http_stream_done(c->stream)) {
        kg_store_watch_close(c->w);
        kg_http_stream_close(c->stream);
        free_ctx(p, c);
        return true;
    }
    return false;
}

static void *pump_main(void *arg)
{
    kg_watch_pump *p = arg;
    kg_buf b = KG_BUF_INIT;
    kg_arena scratch;
    kg_arena_init(&scratch, 64 * 1024);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->head && !p->stopping)
            pthread_cond_wait(&p->cv, &p->mu);
        if (!p->head && p->stopping)
            break;
        wctx *c = p->head;
        p->head = c->next_ready;
        if (!p->head)
            p->tail = NULL;
        c->queued = 0;
        c->processing = 1;
        c->requeue = 0;
        pthread_mutex_unlock(&p->mu);
        bool finished = service(p, c, &b, &scratch);
        pthread_mutex_lock(&p->mu);
        if (!finished) {
            c->processing = 0;
            if (c->requeue || c->done)
                enqueue_locked(p, c);
        }
    }
    pthread_mutex_unlock(&p->mu);
    kg_buf_free(&b);
    kg_arena_free(&scratch);
    return NULL;
}

/* Bookmarks: every second, watchers that asked for them are made ready. */
static void *ticker_main(void *arg)
{
    kg_watch_pump *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stopping) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&p->tick_cv, &p->mu, &ts);
        if (p->stopping)
            break;
        int64_t t = now_ms();
        for (wctx *c = p->all; c; c = c->next_all)
            if ((c->bookmarks && t - c->last_bookmark_ms >= p->bookmark_ms) ||
                __atomic_load_n(&c->blocked_since_ms, __ATOMIC_RELAXED))
                enqueue_locked(p, c);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

kg_watch_pump *kg_watch_pump_start(size_t threads, int64_t bookmark_ms)
{
    kg_watch_pump *p = calloc(1, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    pthread_cond_init(&p->tick_cv, NULL);
    p->bookmark_ms = bookmark_ms > 0 ? bookmark_ms : 60000;
    p->nthreads = threads < 1 ? 1 : threads > 4 ? 4 : threads;
    g_pump_for_cb = p;
    for (size_t i = 0; i < p->nthreads; i++)
        pthread_create(&p->threads[i], NULL, pump_main, p);
    pthread_create(&p->ticker, NULL, ticker_main, p);
    return p;
}

void kg_watch_pump_stop(kg_watch_pump *p)
{
    if (!p)
        return;
    /* end every watcher: they finish on their next service */
    pthread_mutex_lock(&p->mu);
    for (wctx *c = p->all; c; c = c->next_all) {
        c->done = 1;
        enqueue_locked(p, c);
    }
    pthread_mutex_unlock(&p->mu);
    /* wait for the watchers to drain */
    for (int i = 0; i < 500; i++) {
        pthread_mutex_lock(&p->mu);
        size_t n = p->active;
        pthread_mutex_unlock(&p->mu);
        if (!n)
            break;
        struct timespec ts = {0, 10 * 1000000};
        nanosleep(&ts, NULL);
    }
    pthread_mutex_lock(&p->mu);
    p->stopping = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_cond_broadcast(&p->tick_cv);
    pthread_mutex_unlock(&p->mu);
    for (size_t i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    pthread_join(p->ticker, NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    pthread_cond_destroy(&p->tick_cv);
    g_pump_for_cb = NULL;
    free(p);
}

size_t kg_watch_pump_active(kg_watch_pump *p)
{
    pthread_mutex_lock(&p->mu);
    size_t n = p->active;
    pthread_mutex_unlock(&p->mu);
    return n;
}

/* ---- the handler ---- */

void kg_rest_watch(kg_apiserver *s, kg_http_request *req, kg_http_response *resp, const kg_resource *r)
{
    kg_arena *a = req->arena;
    const kg_request_info *ri = req->info;
    const char *ns = (!strcmp(r->plural, "namespaces") && !r->group[0]) ? "" : ri->namespace_;
    kg_error err;
    wctx *c = calloc(1, sizeof *c);
    kg_arena_init(&c->arena, 0);
    c->r = r;
    const char *fs = kg_http_query(req, "fieldSelector");
    if (!kg_selectors_parse(&c->arena, kg_http_query(req, "labelSelector"), fs, r, &c->sel, &err)) {
        kg_arena_free(&c->arena);
        free(c);
        kg_respond_status(req, resp, kg_status_bad_request(a, err.msg));
        return;
    }
    const char *acc = kg_http_header_get(req, "Accept");
    c->table = acc && strstr(acc, "as=Table");
    const char *bm = kg_http_query(req, "allowWatchBookmarks");
    c->bookmarks = bm && (!strcmp(bm, "true") || !strcmp(bm, "1"));
    c->last_bookmark_ms = now_ms();
    int64_t timeout_s = 0;
    const char *ts = kg_http_query(req, "timeoutSeconds");
    if (ts && ts[0])
        timeout_s = strtoll(ts, NULL, 10);
    if (timeout_s <= 0)
        timeout_s = 1800 + (now_ms() % 1800); /* upstream: MinRequestTimeout (1800 s) * [1, 2) */
    const char *rvs = kg_http_query(req, "resourceVersion");
    int64_t from = 0;
    const char *sie = kg_http_query(req, "sendInitialEvents");
    bool send_initial = sie && (!strcmp(sie, "true") || !strcmp(sie, "1"));
    bool initial = !rvs || !rvs[0] || !strcmp(rvs, "0") || send_initial;
    if (!initial) {
        char *end;
        from = strtoll(rvs, &end, 10);
        if (*end || from < 0) {
            kg_arena_free(&c->arena);
            free(c);
            kg_respond_status(req, resp,
                              kg_status_bad_request(a, kg_arena_sprintf(a, "invalid resource version: %s", rvs)));
            return;
        }
    }
    c->prefix = kg_resource_list_prefix(&c->arena, r, ns);
    c->store = s->store;
    kg_buf b = KG_BUF_INIT;
    if (initial) {
        /* synthetic ADDED events for the current state, then changes after that snapshot; the first page here,
         * the others from the pump as the client reads them */
        if (!list_page(c, s->store, &b, a, NULL, &from, &c->list_cont, &err)) {
            kg_buf_free(&b);
            kg_arena_free(&c->arena);
            free(c);
            kg_respond_status(req, resp, kg_status_from_error(a, &err));
            return;
        }
        if (send_initial && c->bookmarks) {
            if (c->list_cont)
                c->initial_end_rev = from;
            else
                encode_initial_events_end(&b, r, from);
        }
    }
    c->w = kg_store_watch_open(s->store, c->prefix, from, &err);
    kg_http_stream *st =
        kg_http_respond_stream(req, resp, 200, "application/json", kg_http_now_ms() + timeout_s * 1000);
    if (!c->w) {
        /* upstream answers 200 with one ERROR event carrying the Status */
        kg_buf_reset(&b);
        kg_status *sst = err.code == KG_EGONE ? kg_status_resource_expired(a, err.msg) : kg_status_from_error(a, &err);
        kg_watch_encode_error(&b, sst);
        kg_http_stream_write(st, b.data, b.len);
        kg_http_stream_close(st);
        kg_buf_free(&b);
        free(c->list_cont);
        kg_arena_free(&c->arena);
        free(c);
        return;
    }
    c->stream = st;
    if (b.len)
        kg_http_stream_write(st, b.data, b.len);
    kg_buf_free(&b);
    kg_watch_pump *p = s->pump;
    pthread_mutex_lock(&p->mu);
    c->next_all = p->all;
    if (p->all)
        p->all->prev_all = c;
    p->all = c;
    p->active++;
    pthread_mutex_unlock(&p->mu);
    kg_http_stream_on_drain(st, WATCH_LOW_WATER, on_ready, c);
    kg_store_watch_set_notify(c->w, on_ready, c);
    kg_http_stream_on_done(st, on_stream_done, c);
    on_ready(c); /* drain anything already pending */
}
