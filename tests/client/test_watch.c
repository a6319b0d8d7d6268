/* List and watch (client/watch.h) against a scripted API server inside the test: a paginated list, watch events
 * handed over in order, 410 Gone making the informer list again, a failing watch retried, bookmarks moving the
 * resourceVersion, and a prompt stop while a watch is open. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "client/watch.h"

static struct MHD_Daemon *d;
static int port;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int lists, watches;
static char watch_rvs[16][32]; /* resourceVersion of each watch */
static kg_buf seen;            /* what the handlers got: "R:a,b;" for a replace, "E:ADDED:c;" for an event */

typedef struct stream {
    const char *text;
    size_t off;
    int idle_ms; /* after the text: stay open this long (0: end) */
} stream;

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    stream *s = cls;
    size_t left = strlen(s->text) - s->off;
    if (left) {
        size_t k = left < max ? left : max;
        memcpy(buf, s->text + s->off, k);
        s->off += k;
        return (ssize_t)k;
    }
    if (s->idle_ms > 0) {
        usleep(20000);
        s->idle_ms -= 20;
        return 0; /* thread per connection: called again */
    }
    return MHD_CONTENT_READER_END_OF_STREAM;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

#define NS(name, rv) "{\"metadata\":{\"name\":\"" name "\",\"resourceVersion\":\"" rv "\"}}"
#define EV(type, obj) "{\"type\":\"" type "\",\"object\":" obj "}\n"

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *data, size_t *data_size, void **con_cls)
{
    (void)cls, (void)url, (void)method, (void)version, (void)data, (void)data_size;
    if (!*con_cls) {
        *con_cls = (void *)1;
        return MHD_YES;
    }
    const char *w = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "watch");
    const char *cont = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "continue");
    const char *rv = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "resourceVersion");
    pthread_mutex_lock(&mu);
    int n;
    if (!w) {
        n = cont ? lists : ++lists;
        pthread_mutex_unlock(&mu);
        if (n == 1 && !cont) /* first list, page 1 of 2 */
            return reply(
                c, 200, "{\"metadata\":{\"resourceVersion\":\"10\",\"continue\":\"p2\"},\"items\":[" NS("a", "5") "]}");
        if (n == 1)
            return reply(c, 200, "{\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[" NS("b", "6") "]}");
        return reply(c, 200, "{\"metadata\":{\"resourceVersion\":\"20\"},\"items\":[" NS("a", "15") "]}");
    }
    n = ++watches;
    if (n <= 16)
        snprintf(watch_rvs[n - 1], sizeof watch_rvs[0], "%s", rv ? rv : "");
    pthread_mutex_unlock(&mu);
    static stream streams[16];
    stream *s = &streams[(n - 1) % 16];
    *s = (stream){0};
    switch (n) {
    case 1: /* events, then the resourceVersion is gone */
        s->text = EV("ADDED", NS("c", "11")) EV("MODIFIED", NS("a", "12")) EV("BOOKMARK", NS("", "13"))
            EV("ERROR", "{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\",\"message\":\"too old resource "
                        "version: 10 (12)\"}");
        break;
    case 2: /* after the relist: the server fails once */
        return reply(c, 500, "{\"kind\":\"Status\",\"code\":500,\"message\":\"etcd is down\"}");
    case 3: s->text = EV("DELETED", NS("a", "21")); break;
    default: /* an idle watch, held open */
        s->text = "";
        s->idle_ms = 10000;
        break;
    }
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1024, reader, s, NULL);
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
    (void)cls, (void)c, (void)t;
    *con_cls = NULL;
}

static int setup(void **state)
{
    (void)state;
    d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handler, NULL,
                         MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
    if (!d)
        return -1;
    port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    MHD_stop_daemon(d);
    kg_buf_free(&seen);
    return 0;
}

static void on_replace(void *ud, kg_arena *a, const kg_json *items)
{
    (void)ud, (void)a;
    pthread_mutex_lock(&mu);
    kg_buf_puts(&seen, "R:");
    for (uint32_t i = 0; i < items->len; i++)
        kg_buf_printf(&seen, "%s%s", i ? "," : "", kg_json_path_str(kg_json_at(items, i), "metadata.name"));
    kg_buf_puts(&seen, ";");
    pthread_mutex_unlock(&mu);
}

static void on_event(void *ud, kg_arena *a, const char *type, const kg_json *obj)
{
    (void)ud, (void)a;
    pthread_mutex_lock(&mu);
    kg_buf_printf(&seen, "E:%s:%s;", type, kg_json_path_str(obj, "metadata.name"));
    pthread_mutex_unlock(&mu);
}

static bool wait_for(int nwatches)
{
    for (int i = 0; i < 300; i++) {
        pthread_mutex_lock(&mu);
        bool ok = watches >= nwatches;
        pthread_mutex_unlock(&mu);
        if (ok)
            return true;
        usleep(10000);
    }
    return false;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void list_watch_relist_retry(void **state)
{
    (void)state;
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    KG_ERROR_DECL(err);
    kg_client *c = kg_client_new(&(kg_client_config){.server = url}, &err);
    assert_non_null(c);
    static const kg_informer_handlers h = {on_replace, on_event};
    kg_informer *inf = kg_informer_start(c, "/api/v1/namespaces", false, &h, NULL);
    assert_non_null(inf);
    assert_true(wait_for(4)); /* the fourth watch is the idle one */
    assert_true(kg_informer_synced(inf));
    pthread_mutex_lock(&mu);
    /* both pages, the events in order, a relist after 410, the failed watch retried, then the deletion */
    assert_string_equal(kg_buf_cstr(&seen), "R:a,b;E:ADDED:c;E:MODIFIED:a;R:a;E:DELETED:a;");
    assert_string_equal(watch_rvs[0], "10"); /* from the list */
    assert_string_equal(watch_rvs[1], "20"); /* from the relist */
    assert_string_equal(watch_rvs[2], "20"); /* retried at the same point */
    assert_string_equal(watch_rvs[3], "21"); /* resumed after the last event */
    assert_int_equal(lists, 2);
    pthread_mutex_unlock(&mu);
    kg_informer_stats st;
    kg_informer_get_stats(inf, &st);
    assert_int_equal(st.lists, 2);
    assert_int_equal(st.events, 3);
    assert_true(st.errors >= 1);
    int64_t t0 = now_ms();
    kg_informer_stop(inf); /* while the idle watch is open */
    assert_true(now_ms() - t0 < 2500);
    kg_client_free(c);
}

static void list_once_pages(void **state)
{
    (void)state;
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    KG_ERROR_DECL(err);
    kg_client *c = kg_client_new(&(kg_client_config){.server = url}, &err);
    kg_arena a;
    kg_arena_init(&a, 0);
    pthread_mutex_lock(&mu);
    lists = 0; /* the scripted server answers its two-page list again */
    pthread_mutex_unlock(&mu);
    const char *rv = NULL;
    kg_json *items = kg_client_list(c, &a, "/api/v1/namespaces", &rv, &err);
    assert_non_null(items);
    assert_int_equal(items->len, 2);
    assert_string_equal(rv, "10");
    kg_arena_free(&a);
    kg_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(list_watch_relist_retry),
        cmocka_unit_test(list_once_pages),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
