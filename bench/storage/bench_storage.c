/* Storage benchmark (SQLite backend, durable: WAL + synchronous=FULL, group commit).
 * Usage: bench_storage <dir on the disk to measure> [scale]   (scale 1 = default sizes; 0.2 for a quick run)
 * Prints one JSON object:
 *   creates with 1 and 64 threads (4 KB values; ops/s, p50/p99 latency), get/s with 1 and 4 threads, list of 5k
 *   objects (ms; whole and paged by 500), watch fan-out to 500 watchers (events delivered/s, live and catch-up). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "storage/storage.h"

#define VALUE_SIZE 4096

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char value[VALUE_SIZE + 1];

static void make_value(void)
{
    int n = snprintf(value, sizeof value, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"x\":\"");
    for (; n < VALUE_SIZE - 3; n++)
        value[n] = (char)('a' + n % 26);
    value[n++] = '"';
    value[n++] = '}';
    value[n++] = '}';
    value[n] = 0;
}

static void die(const char *what, const kg_error *e)
{
    fprintf(stderr, "bench_storage: %s: %s\n", what, e->msg);
    exit(1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- creates ---- */

typedef struct cargs {
    kg_store *s;
    const char *prefix;
    int id, n;
    double *lat;
} cargs;

static void *create_thread(void *p)
{
    cargs *a = p;
    char key[128];
    for (int i = 0; i < a->n; i++) {
        snprintf(key, sizeof key, "%st%02d-%07d", a->prefix, a->id, i);
        kg_error err = {0};
        double t0 = now();
        if (!kg_store_create(a->s, key, value, VALUE_SIZE, NULL, &err))
            die("create", &err);
        a->lat[i] = now() - t0;
    }
    return NULL;
}

typedef struct result {
    double ops, p50_ms, p99_ms, secs;
    int n;
} result;

static result run_creates(kg_store *s, const char *prefix, int threads, int per_thread)
{
    pthread_t th[256];
    cargs args[256];
    double *lat = malloc(sizeof(double) * (size_t)threads * (size_t)per_thread);
    double t0 = now();
    for (int i = 0; i < threads; i++) {
        args[i] = (cargs){s, prefix, i, per_thread, lat + (size_t)i * (size_t)per_thread};
        pthread_create(&th[i], NULL, create_thread, &args[i]);
    }
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    double dt = now() - t0;
    int n = threads * per_thread;
    qsort(lat, (size_t)n, sizeof *lat, cmp_double);
    result r = {n / dt, lat[n / 2] * 1e3, lat[(size_t)n * 99 / 100] * 1e3, dt, n};
    free(lat);
    return r;
}

/* ---- gets ---- */

typedef struct gargs {
    kg_store *s;
    const char *prefix;
    int keys, threads_per_prefix;
    double secs;
    long done;
} gargs;

static void *get_thread(void *p)
{
    gargs *a = p;
    kg_arena ar;
    kg_arena_init(&ar, 64 * 1024);
    unsigned seed = (unsigned)(uintptr_t)p;
    char key[128];
    double t0 = now();
    long n = 0;
    while (now() - t0 < a->secs) {
        for (int k = 0; k < 100; k++) {
            seed = seed * 1103515245u + 12345u;
            int idx = (int)((seed >> 8) % (unsigned)a->keys);
            snprintf(key, sizeof key, "%st%02d-%07d", a->prefix, idx % 64, idx / 64);
            kg_store_kv kv;
            kg_error err = {0};
            if (!kg_store_get(a->s, key, &ar, &kv, &err))
                die("get", &err);
            kg_arena_reset(&ar);
        }
        n += 100;
    }
    a->done = n;
    kg_arena_free(&ar);
    return NULL;
}

static double run_gets(kg_store *s, const char *prefix, int keys, int threads, double secs)
{
    pthread_t th[16];
    gargs args[16];
    double t0 = now();
    for (int i = 0; i < threads; i++) {
        args[i] = (gargs){s, prefix, keys, threads, secs, 0};
        pthread_create(&th[i], NULL, get_thread, &args[i]);
    }
    long total = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        total += args[i].done;
    }
    return (double)total / (now() - t0);
}

/* ---- lists ---- */

static double run_list(kg_store *s, const char *prefix, int64_t limit, int reps, size_t *items)
{
    kg_arena ar;
    kg_arena_init(&ar, 1 << 20);
    double t0 = now();
    for (int r = 0; r < reps; r++) {
        kg_store_list_opts o = {.limit = limit};
        size_t n = 0;
        for (;;) {
            kg_store_list_result res;
            kg_error err = {0};
            if (!kg_store_list(s, prefix, &o, &ar, &res, &err))
                die("list", &err);
            n += res.n;
            if (!res.continue_token)
                break;
            o.continue_token = res.continue_token;
        }
        *items = n;
        kg_arena_reset(&ar);
    }
    kg_arena_free(&ar);
    return (now() - t0) / reps * 1e3;
}

/* ---- watch fan-out ---- */

typedef struct wstate {
    kg_store_watch *w;
    long want;
    long got;
    double done_at;
} wstate;

static void *watch_thread(void *p)
{
    wstate *ws = p;
    const kg_store_event *ev;
    kg_error err = {0};
    while (ws->got < ws->want) {
        kg_store_watch_status st = kg_store_watch_next(ws->w, -1, &ev, &err);
        if (st != KG_WATCH_EVENT) {
            fprintf(stderr, "bench_storage: watcher ended: %d %s\n", st, err.msg);
            break;
        }
        ws->got++;
        kg_store_event_release(ev);
    }
    ws->done_at = now();
    return NULL;
}

typedef struct fanout {
    double write_secs, deliver_secs, events_per_sec, writes_per_sec;
    long delivered;
} fanout;

static fanout run_fanout(kg_store *s, int watchers, const char *prefix, int writers, int per_writer, bool catch_up)
{
    kg_error err = {0};
    wstate *ws = calloc((size_t)watchers, sizeof *ws);
    pthread_t *th = calloc((size_t)watchers, sizeof *th);
    long events = (long)writers * per_writer;
    int64_t from = kg_store_current_revision(s);
    fanout f = {0};
    if (!catch_up) {
        for (int i = 0; i < watchers; i++) {
            ws[i].w = kg_store_watch_open(s, prefix, from, &err);
            if (!ws[i].w)
                die("watch", &err);
            ws[i].want = events;
            pthread_create(&th[i], NULL, watch_thread, &ws[i]);
        }
    }
    double t0 = now();
    result r = run_creates(s, prefix, writers, per_writer);
    f.write_secs = now() - t0;
    f.writes_per_sec = r.ops;
    double t1 = t0;
    if (catch_up) { /* all events are in the shared in-memory window: pure fan-out speed */
        t1 = now();
        for (int i = 0; i < watchers; i++) {
            ws[i].w = kg_store_watch_open(s, prefix, from, &err);
            if (!ws[i].w)
                die("watch", &err);
            ws[i].want = events;
            pthread_create(&th[i], NULL, watch_thread, &ws[i]);
        }
    }
    double last = t1;
    for (int i = 0; i < watchers; i++) {
        pthread_join(th[i], NULL);
        f.delivered += ws[i].got;
        if (ws[i].done_at > last)
            last = ws[i].done_at;
        kg_store_watch_close(ws[i].w);
    }
    f.deliver_secs = last - t1;
    f.events_per_sec = (double)f.delivered / f.deliver_secs;
    free(ws);
    free(th);
    return f;
}

/* the machine is shared: record its load next to the numbers */
static double loadavg1(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

int main(int argc, char **argv)
{
    double load_start = loadavg1();
    if (argc < 2) {
        fprintf(stderr, "usage: bench_storage <dir> [scale]\n");
        return 2;
    }
    double scale = argc > 2 ? atof(argv[2]) : 1.0;
    if (scale <= 0)
        scale = 1.0;
    make_value();
    kg_error err = {0};
    kg_store_options o = {.compact_interval_ms = -1, .watch_window = 65536, .history_revisions = 1000000};
    kg_store *s = kg_store_open("sqlite", argv[1], &o, &err);
    if (!s)
        die("open", &err);

    int n1 = (int)(2000 * scale), per64 = (int)(400 * scale);
    if (per64 < 79)
        per64 = 79; /* at least 5k objects for the list benchmark */
    result c1 = run_creates(s, "/registry/configmaps/one/", 1, n1);
    result c64 = run_creates(s, "/registry/configmaps/many/", 64, per64);
    int keys = 64 * per64;
    double g1 = run_gets(s, "/registry/configmaps/many/", keys, 1, 2.0 * scale);
    double g4 = run_gets(s, "/registry/configmaps/many/", keys, 4, 2.0 * scale);
    /* a prefix with exactly 5000 objects */
    result c5k = run_creates(s, "/registry/pods/bench/", 50, 100);
    size_t items = 0, items_paged = 0;
    double l5k = run_list(s, "/registry/pods/bench/", 0, 10, &items);
    double l5k_paged = run_list(s, "/registry/pods/bench/", 500, 10, &items_paged);

    int per_writer = (int)(50 * scale);
    if (per_writer < 5)
        per_writer = 5;
    fanout live = run_fanout(s, 500, "/registry/events/live/", 64, per_writer, false);
    fanout catchup = run_fanout(s, 500, "/registry/events/catchup/", 64, per_writer, true);
    kg_store_close(s);

    printf("{\n");
    printf("  \"backend\": \"sqlite (WAL, synchronous=FULL, group commit)\",\n");
    printf("  \"value_bytes\": %d,\n", VALUE_SIZE);
    printf("  \"create_1_thread\": {\"n\": %d, \"ops_per_sec\": %.0f, \"p50_ms\": %.3f, \"p99_ms\": %.3f},\n", c1.n,
           c1.ops, c1.p50_ms, c1.p99_ms);
    printf("  \"create_64_threads\": {\"n\": %d, \"ops_per_sec\": %.0f, \"p50_ms\": %.3f, \"p99_ms\": %.3f},\n",
           c64.n, c64.ops, c64.p50_ms, c64.p99_ms);
    printf("  \"create_50_threads_5k_prefix\": {\"n\": %d, \"ops_per_sec\": %.0f},\n", c5k.n, c5k.ops);
    printf("  \"get_1_thread_per_sec\": %.0f,\n", g1);
    printf("  \"get_4_threads_per_sec\": %.0f,\n", g4);
    printf("  \"list_5k\": {\"items\": %zu, \"ms\": %.2f},\n", items, l5k);
    printf("  \"list_5k_paged_500\": {\"items\": %zu, \"ms_total\": %.2f},\n", items_paged, l5k_paged);
    printf("  \"watch_fanout_live\": {\"watchers\": 500, \"writers\": 64, \"events\": %d, \"delivered\": %ld, "
           "\"writes_per_sec\": %.0f, \"seconds\": %.3f, \"events_delivered_per_sec\": %.0f},\n",
           64 * per_writer, live.delivered, live.writes_per_sec, live.deliver_secs, live.events_per_sec);
    printf("  \"watch_fanout_catch_up\": {\"watchers\": 500, \"events\": %d, \"delivered\": %ld, \"seconds\": %.3f, "
           "\"events_delivered_per_sec\": %.0f},\n",
           64 * per_writer, catchup.delivered, catchup.deliver_secs, catchup.events_per_sec);
    printf("  \"cores\": %ld,\n", sysconf(_SC_NPROCESSORS_ONLN));
    printf("  \"loadavg_1min_start\": %.2f,\n", load_start);
    printf("  \"loadavg_1min_end\": %.2f\n", loadavg1());
    printf("}\n");
    return 0;
}
