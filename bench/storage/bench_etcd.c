/* etcd3 backend benchmark: durable creates through kgate's store (txn create + the wait for its own watch event)
 * against etcd's own put rate for the same 4 KB value over the same transport (JSON gateway, libcurl), 1 and 64
 * clients, on the same etcd in the same run. A gRPC reference (etcdctl put loop) is taken by run_etcd.sh.
 * Usage: bench_etcd <etcd client URL> [scale]. Prints one JSON object. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base64.h"
#include "base/buf.h"
#include "client/client.h"
#include "storage/storage.h"

#define VALUE_SIZE 4096

static char value[VALUE_SIZE + 1];
static const char *servers;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct targs {
    kg_store *s; /* kgate store, or NULL: raw gateway puts */
    kg_client *c;
    const char *prefix;
    int id, n;
    double *lat;
} targs;

static void *thread_main(void *p)
{
    targs *a = p;
    char key[128];
    kg_buf body = KG_BUF_INIT;
    static const char *const hdrs[] = {"Content-Type: application/json"};
    for (int i = 0; i < a->n; i++) {
        snprintf(key, sizeof key, "%st%02d-%07d", a->prefix, a->id, i);
        kg_error err = {0};
        double t0 = now();
        if (a->s) {
            if (!kg_store_create(a->s, key, value, VALUE_SIZE, NULL, &err)) {
                fprintf(stderr, "create: %s\n", err.msg);
                exit(1);
            }
        } else {
            kg_buf_reset(&body);
            kg_buf_puts(&body, "{\"key\":\"");
            kg_base64_encode_buf(&body, key, strlen(key), 0);
            kg_buf_puts(&body, "\",\"value\":\"");
            kg_base64_encode_buf(&body, value, VALUE_SIZE, 0);
            kg_buf_puts(&body, "\"}");
            kg_arena ar;
            kg_arena_init(&ar, 1024);
            kg_client_request req = {.method = "POST",
                                     .path = "/v3/kv/put",
                                     .headers = hdrs,
                                     .nheaders = 1,
                                     .body = body.data,
                                     .body_len = body.len};
            kg_client_response resp;
            if (kg_client_do(a->c, &ar, &req, &resp, &err) != KG_CLIENT_OK) {
                fprintf(stderr, "put: %s\n", err.msg);
                exit(1);
            }
            kg_arena_free(&ar);
        }
        a->lat[i] = now() - t0;
    }
    kg_buf_free(&body);
    return NULL;
}

typedef struct result {
    double ops, p50_ms, p99_ms;
} result;

static result run(kg_store *s, const char *prefix, int threads, int per)
{
    pthread_t th[64];
    targs args[64];
    kg_client *clients[64];
    double *lat = malloc(sizeof(double) * (size_t)threads * (size_t)per);
    for (int i = 0; i < threads; i++) {
        kg_client_config cfg = {.server = servers};
        kg_error err = {0};
        clients[i] = s ? NULL : kg_client_new(&cfg, &err);
    }
    double t0 = now();
    for (int i = 0; i < threads; i++) {
        args[i] = (targs){s, clients[i], prefix, i, per, lat + (size_t)i * (size_t)per};
        pthread_create(&th[i], NULL, thread_main, &args[i]);
    }
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    double dt = now() - t0;
    int n = threads * per;
    qsort(lat, (size_t)n, sizeof *lat, cmp_double);
    result r = {n / dt, lat[n / 2] * 1e3, lat[(size_t)n * 99 / 100] * 1e3};
    free(lat);
    for (int i = 0; i < threads; i++)
        kg_client_free(clients[i]);
    return r;
}

static void print(const char *name, result r, int last)
{
    printf("  \"%s\": {\"ops_per_s\": %.0f, \"p50_ms\": %.2f, \"p99_ms\": %.2f}%s\n", name, r.ops, r.p50_ms, r.p99_ms,
           last ? "" : ",");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_etcd <etcd client URL> [scale]\n");
        return 2;
    }
    servers = argv[1];
    double scale = argc > 2 ? atof(argv[2]) : 1.0;
    int n1 = (int)(1000 * scale), per64 = (int)(200 * scale);
    if (n1 < 10)
        n1 = 10;
    if (per64 < 2)
        per64 = 2;
    int n = snprintf(value, sizeof value, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"x\":\"");
    for (; n < VALUE_SIZE - 3; n++)
        value[n] = (char)('a' + n % 26);
    memcpy(value + n, "\"}}", 4);
    kg_error err = {0};
    kg_store_options o = {.etcd = {.servers = servers, .prefix = "/kgbench", .compaction_interval_ms = -1}};
    kg_store *s = kg_store_open("etcd3", NULL, &o, &err);
    if (!s) {
        fprintf(stderr, "open: %s\n", err.msg);
        return 1;
    }
    result raw1 = run(NULL, "/raw/one/", 1, n1);
    result kg1 = run(s, "/registry/configmaps/one/", 1, n1);
    result raw64 = run(NULL, "/raw/many/", 64, per64);
    result kg64 = run(s, "/registry/configmaps/many/", 64, per64);
    kg_store_close(s);
    double load[1] = {0};
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load[0]) != 1)
            load[0] = 0;
        fclose(f);
    }
    printf("{\n  \"value_bytes\": %d,\n  \"loadavg_1m\": %.2f,\n", VALUE_SIZE, load[0]);
    print("etcd_gateway_put_1_client", raw1, 0);
    print("kgate_etcd3_create_1_client", kg1, 0);
    print("etcd_gateway_put_64_clients", raw64, 0);
    print("kgate_etcd3_create_64_clients", kg64, 0);
    printf("  \"ratio_64_clients\": %.2f\n}\n", kg64.ops / raw64.ops);
    return 0;
}
