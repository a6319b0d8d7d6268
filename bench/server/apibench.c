/* HTTP load against kgate serve over TLS keep-alive: T client threads for D seconds doing one kind of request.
 *   modes: create (POST a pod), get (GET one pod), list (GET a pod list), noop (GET /healthz: the same HTTP/TLS/
 *   authn/authz stack with a handler that does nothing — the ceiling).
 * Prints one JSON object: {"mode","threads","ops","seconds","ops_per_s","p50_ms","p99_ms","errors"}.
 * Usage: bench_api URL TOKEN MODE THREADS SECONDS [NAMESPACE] */
#include <curl/curl.h>
#include <stdbool.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *url, *token, *mode, *ns = "default";
static double seconds;
static volatile int go;
static long run_id;

typedef struct result {
    double *lat;
    size_t n, cap;
    long errors;
} result;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t discard(char *p, size_t s, size_t n, void *ud) { return s * n; }

static void *worker(void *arg)
{
    long id = (long)arg;
    result *r = calloc(1, sizeof *r);
    r->cap = 1 << 16;
    r->lat = malloc(r->cap * sizeof(double));
    CURL *c = curl_easy_init();
    char target[1024], auth[1024], body[2048];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    struct curl_slist *h = NULL;
    h = curl_slist_append(h, auth);
    h = curl_slist_append(h, "Content-Type: application/json");
    h = curl_slist_append(h, "Expect:");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    bool create = !strcmp(mode, "create");
    if (!strcmp(mode, "noop"))
        snprintf(target, sizeof target, "%s/healthz", url);
    else if (!strcmp(mode, "get"))
        snprintf(target, sizeof target, "%s/api/v1/namespaces/%s/pods/bench-get", url, ns);
    else
        snprintf(target, sizeof target, "%s/api/v1/namespaces/%s/pods", url, ns);
    curl_easy_setopt(c, CURLOPT_URL, target);
    if (!create)
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    while (!go)
        ;
    double end = now() + seconds;
    for (long i = 0;; i++) {
        double t0 = now();
        if (t0 >= end)
            break;
        if (create) {
            snprintf(body, sizeof body,
                     "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"b-%ld-%ld-%ld\",\"labels\":{"
                     "\"app\":\"bench\"}},\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"registry.example.com/"
                     "app:1.0\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}}}]}}",
                     (long)run_id, id, i);
            curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        }
        CURLcode rc = curl_easy_perform(c);
        long code = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
        double dt = now() - t0;
        if (rc != CURLE_OK || code >= 300) {
            r->errors++;
            continue;
        }
        if (r->n == r->cap) {
            r->cap *= 2;
            r->lat = realloc(r->lat, r->cap * sizeof(double));
        }
        r->lat[r->n++] = dt;
    }
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return r;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: %s URL TOKEN MODE THREADS SECONDS [NAMESPACE]\n", argv[0]);
        return 2;
    }
    url = argv[1], token = argv[2], mode = argv[3];
    int threads = atoi(argv[4]);
    seconds = atof(argv[5]);
    if (argc > 6)
        ns = argv[6];
    run_id = (long)time(NULL) % 100000;
    curl_global_init(CURL_GLOBAL_ALL);
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    for (long i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    struct timespec warm = {0, 200 * 1000000};
    nanosleep(&warm, NULL);
    double t0 = now();
    go = 1;
    result all = {0};
    for (int i = 0; i < threads; i++) {
        result *r;
        pthread_join(t[i], (void **)&r);
        all.errors += r->errors;
        all.lat = realloc(all.lat, (all.n + r->n + 1) * sizeof(double));
        memcpy(all.lat + all.n, r->lat, r->n * sizeof(double));
        all.n += r->n;
        free(r->lat);
        free(r);
    }
    double el = now() - t0;
    qsort(all.lat, all.n, sizeof(double), cmpd);
    double p50 = all.n ? all.lat[all.n / 2] * 1000 : 0, p99 = all.n ? all.lat[(size_t)(all.n * 0.99)] * 1000 : 0;
    printf("{\"mode\":\"%s\",\"threads\":%d,\"ops\":%zu,\"seconds\":%.2f,\"ops_per_s\":%.0f,\"p50_ms\":%.3f,"
           "\"p99_ms\":%.3f,\"errors\":%ld}\n",
           mode, threads, all.n, el, all.n / el, p50, p99, all.errors);
    free(all.lat);
    free(t);
    curl_global_cleanup();
    return 0;
}
