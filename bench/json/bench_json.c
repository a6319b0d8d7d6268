/* Parse + serialize of a ~5 KB Pod: kgate's arena DOM vs jansson (the library it replaces on the hot path).
 * Usage: bench_json <pod.json> [seconds-per-case]. Prints one JSON object with ns/op figures. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/str.h"
#include "json/json.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile size_t sink;

static double run_kgate(const char *doc, size_t n, double secs, int mode)
{
    kg_arena a;
    kg_arena_init(&a, 256 * 1024);
    kg_buf out = KG_BUF_INIT;
    long iters = 0;
    double t0 = now(), t;
    do {
        for (int i = 0; i < 200; i++) {
            kg_error err;
            kg_json *v = kg_json_parse(&a, doc, n, &err);
            if (mode) {
                kg_buf_reset(&out);
                kg_json_write(&out, v, 0);
                sink += out.len;
            }
            sink += v->len;
            kg_arena_reset(&a);
        }
        iters += 200;
        t = now() - t0;
    } while (t < secs);
    kg_buf_free(&out);
    kg_arena_free(&a);
    return t / iters * 1e9;
}

static double run_jansson(const char *doc, size_t n, double secs, int mode)
{
    long iters = 0;
    double t0 = now(), t;
    do {
        for (int i = 0; i < 50; i++) {
            json_error_t e;
            json_t *j = json_loadb(doc, n, 0, &e);
            if (mode) {
                char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
                sink += strlen(s);
                free(s);
            }
            json_decref(j);
        }
        iters += 50;
        t = now() - t0;
    } while (t < secs);
    return t / iters * 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_json pod.json [seconds]\n");
        return 2;
    }
    size_t n;
    char *doc = kg_read_file(argv[1], &n);
    if (!doc) {
        perror(argv[1]);
        return 1;
    }
    double secs = argc > 2 ? atof(argv[2]) : 1.0;
    double best[4] = {1e18, 1e18, 1e18, 1e18};
    for (int round = 0; round < 3; round++) { /* best of 3, interleaved */
        double r[4] = {run_kgate(doc, n, secs, 0), run_kgate(doc, n, secs, 1), run_jansson(doc, n, secs, 0),
                       run_jansson(doc, n, secs, 1)};
        for (int i = 0; i < 4; i++)
            best[i] = r[i] < best[i] ? r[i] : best[i];
    }
    printf("{\"input_bytes\":%zu,\"kgate_parse_ns\":%.0f,\"kgate_parse_serialize_ns\":%.0f,"
           "\"jansson_parse_ns\":%.0f,\"jansson_parse_serialize_ns\":%.0f,\"speedup_parse_serialize\":%.1f,"
           "\"goal_parse_serialize_ns\":10000}\n",
           n, best[0], best[1], best[2], best[3], best[3] / best[1]);
    free(doc);
    return 0;
}
