/* List and watch (see watch.h). */
#include "client/watch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/log.h"

#define PAGE 500
#define WATCH_TIMEOUT_S 300
#define BACKOFF_MIN_MS 200
#define BACKOFF_MAX_MS 30000
#define NOT_SERVED_RETRY_MS 60000
#define MAX_LINE (16u * 1024u * 1024u) /* one watch event */

struct kg_informer {
    kg_client *c;
    char *path;
    bool optional;
    const kg_informer_handlers *h;
    void *ud;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    atomic_bool stopping; /* read by the streaming callback without the lock */
    atomic_bool synced;
    atomic_uint_fast64_t lists, watches, events, errors;
    /* the watch in progress */
    char rv[128];
    kg_buf line;
    bool gone;   /* a 410 arrived: relist */
    bool broken; /* a line was not an event */
    kg_arena ev_arena;
};

kg_json *kg_client_list(kg_client *c, kg_arena *a, const char *path, const char **rv, kg_error *err)
{
    kg_json *items = kg_json_new_array(a);
    const char *cont = NULL;
    const char *sep = strchr(path, '?') ? "&" : "?";
    do {
        const char *p = cont ? kg_arena_sprintf(a, "%s%slimit=%d&continue=%s", path, sep, PAGE, cont)
                             : kg_arena_sprintf(a, "%s%slimit=%d", path, sep, PAGE);
        kg_json *page = kg_client_json(c, a, "GET", p, NULL, NULL, err);
        if (!page)
            return NULL;
        kg_json *its = kg_json_get(page, "items");
        for (uint32_t i = 0; its && i < its->len; i++)
            kg_json_array_append(a, items, kg_json_at(its, i));
        cont = kg_json_path_str(page, "metadata.continue");
        if (rv)
            *rv = kg_json_path_str(page, "metadata.resourceVersion");
        /* continue tokens are base64url and safe in a query */
    } while (cont && cont[0]);
    return items;
}

static int64_t code_of(const kg_json *status)
{
    const kg_json *c = kg_json_get(status, "code");
    return c && kg_json_is_number(c) ? (int64_t)kg_json_number(c) : 0;
}

static void sleep_ms(kg_informer *inf, int64_t ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&inf->mu);
    while (!inf->stop && pthread_cond_timedwait(&inf->cv, &inf->mu, &ts) == 0)
        ;
    pthread_mutex_unlock(&inf->mu);
}

static void set_rv(kg_informer *inf, const char *rv)
{
    if (rv && rv[0])
        snprintf(inf->rv, sizeof inf->rv, "%s", rv);
}

/* One line of the watch stream: {"type": ..., "object": ...}. */
static void on_line(kg_informer *inf, const char *p, size_t n)
{
    kg_arena *a = &inf->ev_arena;
    KG_ERROR_DECL(err);
    kg_json *ev = kg_json_parse(a, p, n, &err);
    const char *type = ev ? kg_json_get_str(ev, "type") : NULL;
    kg_json *obj = ev ? kg_json_get(ev, "object") : NULL;
    if (!type || !obj) {
        /* not an event: a Status answer (410 Gone when the resourceVersion is too old, or another failure) */
        const char *kind = ev ? kg_json_get_str(ev, "kind") : NULL;
        if (kind && !strcmp(kind, "Status") && code_of(ev) == 410)
            inf->gone = true;
        else
            inf->broken = true;
    } else if (!strcmp(type, "ERROR")) {
        if (code_of(obj) == 410)
            inf->gone = true;
        else
            inf->broken = true;
        KG_INFO("watch %s: %s", inf->path, kg_json_get_str(obj, "message") ? kg_json_get_str(obj, "message") : type);
    } else if (!strcmp(type, "BOOKMARK")) {
        set_rv(inf, kg_json_path_str(obj, "metadata.resourceVersion"));
    } else {
        set_rv(inf, kg_json_path_str(obj, "metadata.resourceVersion"));
        atomic_fetch_add(&inf->events, 1);
        inf->h->event(inf->ud, a, type, obj);
    }
    kg_arena_reset(a);
}

static bool on_data(void *ud, const char *p, size_t n)
{
    kg_informer *inf = ud;
    if (atomic_load(&inf->stopping))
        return false;
    for (size_t i = 0; i < n; i++) {
        const char *nl = memchr(p + i, '\n', n - i);
        size_t k = nl ? (size_t)(nl - (p + i)) : n - i;
        if (inf->line.len + k > MAX_LINE)
            return false;
        kg_buf_append(&inf->line, p + i, k);
        i += k;
        if (nl) {
            if (inf->line.len)
                on_line(inf, inf->line.data, inf->line.len);
            kg_buf_reset(&inf->line);
            if (inf->gone || inf->broken)
                return false;
        }
    }
    return true;
}

/* One list: hands the items over and records the resourceVersion. */
static kg_client_result do_list(kg_informer *inf, kg_error *err)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *rv = NULL;
    kg_json *items = kg_client_list(inf->c, &a, inf->path, &rv, err);
    kg_client_result r = KG_CLIENT_OK;
    if (items) {
        atomic_fetch_add(&inf->lists, 1);
        inf->rv[0] = 0;
        set_rv(inf, rv);
        inf->h->replace(inf->ud, &a, items);
        atomic_store(&inf->synced, true);
    } else {
        r = err->code == KG_ENOTFOUND ? KG_CLIENT_HTTP_ERROR : KG_CLIENT_TRANSPORT;
    }
    kg_arena_free(&a);
    return r;
}

static void *run(void *arg)
{
    kg_informer *inf = arg;
    int64_t backoff = BACKOFF_MIN_MS;
    bool need_list = true;
    while (!atomic_load(&inf->stopping)) {
        KG_ERROR_DECL(err);
        if (need_list) {
            kg_client_result r = do_list(inf, &err);
            if (r != KG_CLIENT_OK) {
                atomic_fetch_add(&inf->errors, 1);
                if (err.code == KG_ENOTFOUND && inf->optional) {
                    if (!atomic_load(&inf->synced))
                        KG_INFO("%s is not served: nothing to watch (tried again every minute)", inf->path);
                    kg_arena a;
                    kg_arena_init(&a, 0);
                    if (!atomic_load(&inf->synced))
                        inf->h->replace(inf->ud, &a, kg_json_new_array(&a));
                    kg_arena_free(&a);
                    atomic_store(&inf->synced, true);
                    sleep_ms(inf, NOT_SERVED_RETRY_MS);
                    continue;
                }
                KG_WARN("list %s: %s (retrying in %lld ms)", inf->path, err.msg, (long long)backoff);
                sleep_ms(inf, backoff);
                backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
                continue;
            }
            need_list = false;
            backoff = BACKOFF_MIN_MS;
        }
        kg_arena a;
        kg_arena_init(&a, 0);
        const char *sep = strchr(inf->path, '?') ? "&" : "?";
        kg_client_request req = {
            .method = "GET",
            .path = kg_arena_sprintf(&a, "%s%swatch=1&allowWatchBookmarks=true&timeoutSeconds=%d&resourceVersion=%s",
                                     inf->path, sep, WATCH_TIMEOUT_S, inf->rv),
            .timeout_ms = (WATCH_TIMEOUT_S + 30) * 1000LL,
            .on_data = on_data,
            .on_data_ud = inf,
        };
        inf->gone = inf->broken = false;
        kg_buf_reset(&inf->line);
        uint64_t before = atomic_load(&inf->events);
        atomic_fetch_add(&inf->watches, 1);
        kg_client_response resp;
        kg_client_result r = kg_client_do(inf->c, &a, &req, &resp, &err);
        if (inf->line.len && !inf->gone && !inf->broken) /* an answer without a final newline (a Status) */
            on_line(inf, inf->line.data, inf->line.len);
        kg_arena_free(&a);
        if (atomic_load(&inf->stopping))
            break;
        if (inf->gone || resp.status == 410) {
            KG_INFO("watch %s: resourceVersion %s is too old, listing again", inf->path, inf->rv);
            need_list = true;
            continue;
        }
        if (r == KG_CLIENT_OK && !inf->broken) {
            backoff = BACKOFF_MIN_MS; /* the watch ended normally (timeoutSeconds): resume */
            continue;
        }
        atomic_fetch_add(&inf->errors, 1);
        if (atomic_load(&inf->events) > before)
            backoff = BACKOFF_MIN_MS;
        KG_WARN("watch %s: %s (again in %lld ms)", inf->path, inf->broken ? "the server sent an error" : err.msg,
                (long long)backoff);
        sleep_ms(inf, backoff);
        backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
        if (resp.status >= 400 && resp.status != 429 && resp.status < 500)
            need_list = true; /* e.g. 404 once the resource is gone: start over */
    }
    return NULL;
}

kg_informer *kg_informer_start(kg_client *c, const char *path, bool optional, const kg_informer_handlers *h, void *ud)
{
    kg_informer *inf = calloc(1, sizeof *inf);
    if (!inf)
        abort();
    inf->c = c;
    inf->path = strdup(path);
    inf->optional = optional;
    inf->h = h;
    inf->ud = ud;
    kg_buf_init(&inf->line);
    kg_arena_init(&inf->ev_arena, 0);
    pthread_mutex_init(&inf->mu, NULL);
    pthread_cond_init(&inf->cv, NULL);
    if (pthread_create(&inf->thread, NULL, run, inf)) {
        kg_informer_stop(inf);
        return NULL;
    }
    return inf;
}

bool kg_informer_synced(const kg_informer *inf)
{
    return atomic_load(&((kg_informer *)inf)->synced);
}

void kg_informer_get_stats(const kg_informer *inf, kg_informer_stats *out)
{
    kg_informer *i = (kg_informer *)inf;
    out->lists = atomic_load(&i->lists);
    out->watches = atomic_load(&i->watches);
    out->events = atomic_load(&i->events);
    out->errors = atomic_load(&i->errors);
}

void kg_informer_stop(kg_informer *inf)
{
    if (!inf)
        return;
    pthread_mutex_lock(&inf->mu);
    inf->stop = true;
    atomic_store(&inf->stopping, true);
    pthread_cond_broadcast(&inf->cv);
    pthread_mutex_unlock(&inf->mu);
    if (inf->thread)
        pthread_join(inf->thread, NULL);
    pthread_mutex_destroy(&inf->mu);
    pthread_cond_destroy(&inf->cv);
    kg_buf_free(&inf->line);
    kg_arena_free(&inf->ev_arena);
    free(inf->path);
    free(inf);
}
