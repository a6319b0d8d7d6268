/* CustomResourceDefinitions against kgate serve:
 *   establish  N CRDs created one after the other; for each, the time from sending the POST to the CRD reading
 *              Established=True and to its resource answering a list (served) — the goal is <= 100 ms
 *   create     T client threads POSTing for D seconds: ConfigMaps, then custom resources of a CRD with a schema
 *              (pruning, defaults, OpenAPI validation and one CEL rule on every create) — the goal is CR creates/s
 *              >= 0.8 x ConfigMap creates/s
 * Prints one JSON object. Usage: bench_crd URL TOKEN THREADS SECONDS CRDS */
#include <curl/curl.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *url, *token;
static double seconds;
static volatile int go;
static long run_id;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct body {
    char *p;
    size_t n;
} body;

static size_t collect(char *p, size_t s, size_t n, void *ud)
{
    body *b = ud;
    if (!b)
        return s * n;
    b->p = realloc(b->p, b->n + s * n + 1);
    memcpy(b->p + b->n, p, s * n);
    b->n += s * n;
    b->p[b->n] = 0;
    return s * n;
}

static CURL *client(struct curl_slist **h, const char *content_type)
{
    CURL *c = curl_easy_init();
    char auth[1024];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    *h = curl_slist_append(NULL, auth);
    *h = curl_slist_append(*h, content_type);
    *h = curl_slist_append(*h, "Expect:");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, *h);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    return c;
}

/* One request; the status code (0 on transport errors); the body into b when b != NULL. */
static long request(CURL *c, const char *method, const char *target, const char *data, body *b)
{
    curl_easy_setopt(c, CURLOPT_URL, target);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (data)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, data);
    else
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, b);
    if (b) {
        free(b->p);
        b->p = NULL;
        b->n = 0;
    }
    long code = 0;
    if (curl_easy_perform(c) != CURLE_OK)
        return 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

static const char CRD_FMT[] =
    "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\"metadata\":{\"name\":"
    "\"%s.bench.example.com\"},\"spec\":{\"group\":\"bench.example.com\",\"scope\":\"Namespaced\",\"names\":{"
    "\"plural\":\"%s\",\"kind\":\"%s\"},\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true,"
    "\"subresources\":{\"status\":{}},\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\",\"properties\":{"
    "\"spec\":{\"type\":\"object\",\"required\":[\"image\"],\"x-kubernetes-validations\":[{\"rule\":"
    "\"self.replicas <= 100\",\"message\":\"at most 100 replicas\"}],\"properties\":{"
    "\"image\":{\"type\":\"string\",\"maxLength\":256},"
    "\"replicas\":{\"type\":\"integer\",\"minimum\":0,\"default\":1},"
    "\"mode\":{\"type\":\"string\",\"enum\":[\"fast\",\"slow\"],\"default\":\"fast\"},"
    "\"labels\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}}},"
    "\"status\":{\"type\":\"object\",\"properties\":{\"ready\":{\"type\":\"boolean\"}}}}}}}]}}";

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- establish ---- */

static void establish(int n, double *p50_est, double *max_est, double *p50_served, double *max_served)
{
    struct curl_slist *h;
    CURL *c = client(&h, "Content-Type: application/json");
    double *est = calloc((size_t)n, sizeof *est), *served = calloc((size_t)n, sizeof *served);
    body b = {0};
    char target[1024], data[4096], plural[64], kind[64];
    int ok = 0;
    for (int i = 0; i < n; i++) {
        snprintf(plural, sizeof plural, "widgets%ld%d", run_id, i);
        snprintf(kind, sizeof kind, "Widget%ld%d", run_id, i);
        snprintf(data, sizeof data, CRD_FMT, plural, plural, kind);
        snprintf(target, sizeof target, "%s/apis/apiextensions.k8s.io/v1/customresourcedefinitions", url);
        double t0 = now();
        if (request(c, "POST", target, data, &b) != 201)
            continue;
        /* Established as written (kgate sets it with the create) or by a later update: poll the CRD */
        snprintf(target, sizeof target,
                 "%s/apis/apiextensions.k8s.io/v1/customresourcedefinitions/%s.bench.example.com", url, plural);
        const char *mark = "\"type\":\"Established\",\"status\":\"True\"";
        while (!(b.p && strstr(b.p, mark)) && now() - t0 < 10)
            request(c, "GET", target, NULL, &b);
        double t1 = now();
        snprintf(target, sizeof target, "%s/apis/bench.example.com/v1/namespaces/default/%s", url, plural);
        while (request(c, "GET", target, NULL, &b) != 200 && now() - t0 < 10)
            ;
        double t2 = now();
        est[ok] = (t1 - t0) * 1000;
        served[ok] = (t2 - t0) * 1000;
        ok++;
    }
    qsort(est, (size_t)ok, sizeof *est, cmpd);
    qsort(served, (size_t)ok, sizeof *served, cmpd);
    *p50_est = ok ? est[ok / 2] : -1;
    *max_est = ok ? est[ok - 1] : -1;
    *p50_served = ok ? served[ok / 2] : -1;
    *max_served = ok ? served[ok - 1] : -1;
    free(est);
    free(served);
    free(b.p);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
}

/* ---- create rate ---- */

typedef struct worker_arg {
    long id;
    bool cr;
    long ops, errors;
} worker_arg;

static void *worker(void *ud)
{
    worker_arg *w = ud;
    struct curl_slist *h;
    CURL *c = client(&h, "Content-Type: application/json");
    char target[1024], data[1024];
    if (w->cr)
        snprintf(target, sizeof target, "%s/apis/bench.example.com/v1/namespaces/default/crbenches", url);
    else
        snprintf(target, sizeof target, "%s/api/v1/namespaces/default/configmaps", url);
    while (!go)
        ;
    double end = now() + seconds;
    for (long i = 0; now() < end; i++) {
        if (w->cr)
            snprintf(data, sizeof data,
                     "{\"apiVersion\":\"bench.example.com/v1\",\"kind\":\"CrBench\",\"metadata\":{\"name\":"
                     "\"c-%ld-%ld-%ld\",\"labels\":{\"app\":\"bench\"}},\"spec\":{\"image\":\"registry.example.com/"
                     "app:1.0\",\"replicas\":3,\"labels\":{\"tier\":\"web\"}}}",
                     run_id, w->id, i);
        else
            snprintf(data, sizeof data,
                     "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c-%ld-%ld-%ld\","
                     "\"labels\":{\"app\":\"bench\"}},\"data\":{\"image\":\"registry.example.com/app:1.0\","
                     "\"replicas\":\"3\",\"tier\":\"web\"}}",
                     run_id, w->id, i);
        if (request(c, "POST", target, data, NULL) == 201)
            w->ops++;
        else
            w->errors++;
    }
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return NULL;
}

static double create_rate(int threads, bool cr, long *errors)
{
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    worker_arg *w = calloc((size_t)threads, sizeof *w);
    go = 0;
    for (int i = 0; i < threads; i++) {
        w[i] = (worker_arg){i, cr, 0, 0};
        pthread_create(&t[i], NULL, worker, &w[i]);
    }
    struct timespec warm = {0, 200 * 1000000};
    nanosleep(&warm, NULL);
    double t0 = now();
    go = 1;
    long ops = 0;
    *errors = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        ops += w[i].ops;
        *errors += w[i].errors;
    }
    double el = now() - t0;
    free(t);
    free(w);
    return ops / el;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: %s URL TOKEN THREADS SECONDS CRDS\n", argv[0]);
        return 2;
    }
    url = argv[1], token = argv[2];
    int threads = atoi(argv[3]);
    seconds = atof(argv[4]);
    int ncrds = atoi(argv[5]);
    run_id = (long)time(NULL) % 100000;
    curl_global_init(CURL_GLOBAL_ALL);
    double p50_est, max_est, p50_served, max_served;
    establish(ncrds, &p50_est, &max_est, &p50_served, &max_served);
    /* the CRD of the create benchmark */
    struct curl_slist *h;
    CURL *c = client(&h, "Content-Type: application/json");
    char data[4096], target[1024];
    snprintf(data, sizeof data, CRD_FMT, "crbenches", "crbenches", "CrBench");
    snprintf(target, sizeof target, "%s/apis/apiextensions.k8s.io/v1/customresourcedefinitions", url);
    request(c, "POST", target, data, NULL);
    snprintf(target, sizeof target, "%s/apis/bench.example.com/v1/namespaces/default/crbenches", url);
    double t0 = now();
    while (request(c, "GET", target, NULL, NULL) != 200 && now() - t0 < 10)
        ;
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    long cm_err, cr_err;
    double cm = create_rate(threads, false, &cm_err);
    double cr = create_rate(threads, true, &cr_err);
    printf("{\"crds\":%d,\"established_p50_ms\":%.2f,\"established_max_ms\":%.2f,\"served_p50_ms\":%.2f,"
           "\"served_max_ms\":%.2f,\"threads\":%d,\"seconds\":%.1f,\"configmap_creates_per_s\":%.0f,"
           "\"cr_creates_per_s\":%.0f,\"cr_vs_configmap\":%.3f,\"errors\":%ld}\n",
           ncrds, p50_est, max_est, p50_served, max_served, threads, seconds, cm, cr, cm > 0 ? cr / cm : 0,
           cm_err + cr_err);
    curl_global_cleanup();
    return 0;
}
