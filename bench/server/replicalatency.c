/* Watch delivery latency across replicas: a watcher on replica B watches configmaps in a namespace while N
 * configmaps are created one after another through replica A; latency = the event's arrival on B's watch minus the
 * moment the create was sent to A (so it includes the create itself, as a client sees "write here, event there").
 * Prints {"events","delivered","p50_ms","p99_ms","max_ms","create_p50_ms"}.
 * Usage: bench_replica_latency URL_A URL_B TOKEN NAMESPACE EVENTS */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *url_a, *url_b, *token, *ns;
static int nevents;
static double *sent, *arrived, *create_lat;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char run_tag[32];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* the watch stream: one JSON event per line; find "name":"rl-<tag>-<i>" */
static char line[1 << 20];
static size_t line_len;

static void on_line(const char *l, size_t n)
{
    char pat[64];
    int pn = snprintf(pat, sizeof pat, "\"name\":\"rl-%s-", run_tag);
    const char *p = memmem(l, n, pat, (size_t)pn);
    if (!p)
        return;
    int i = atoi(p + pn);
    if (i < 0 || i >= nevents)
        return;
    double t = now();
    pthread_mutex_lock(&mu);
    if (arrived[i] == 0)
        arrived[i] = t;
    pthread_mutex_unlock(&mu);
}

static size_t on_data(char *p, size_t s, size_t n, void *ud)
{
    (void)ud;
    for (size_t k = 0; k < s * n; k++) {
        if (p[k] == '\n') {
            on_line(line, line_len);
            line_len = 0;
        } else if (line_len < sizeof line) {
            line[line_len++] = p[k];
        }
    }
    return s * n;
}

static size_t discard(char *p, size_t s, size_t n, void *ud)
{
    (void)p;
    (void)ud;
    return s * n;
}

static volatile int watching, done;

static void *watcher(void *arg)
{
    (void)arg;
    CURL *c = curl_easy_init();
    char target[1024], auth[1024];
    snprintf(target, sizeof target, "%s/api/v1/namespaces/%s/configmaps?watch=1&timeoutSeconds=300", url_b, ns);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    struct curl_slist *h = curl_slist_append(NULL, auth);
    curl_easy_setopt(c, CURLOPT_URL, target);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    CURLM *m = curl_multi_init();
    curl_multi_add_handle(m, c);
    int running = 1;
    while (running && !done) {
        curl_multi_perform(m, &running);
        long code = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
        if (code == 200)
            watching = 1;
        curl_multi_poll(m, NULL, 0, 5, NULL);
    }
    curl_multi_remove_handle(m, c);
    curl_multi_cleanup(m);
    curl_easy_cleanup(c);
    curl_slist_free_all(h);
    return NULL;
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: %s URL_A URL_B TOKEN NAMESPACE EVENTS\n", argv[0]);
        return 2;
    }
    url_a = argv[1], url_b = argv[2], token = argv[3], ns = argv[4];
    nevents = atoi(argv[5]);
    if (nevents <= 0)
        return 2;
    snprintf(run_tag, sizeof run_tag, "%lx", (unsigned long)time(NULL) ^ (unsigned long)getpid());
    sent = calloc((size_t)nevents, sizeof *sent);
    arrived = calloc((size_t)nevents, sizeof *arrived);
    create_lat = calloc((size_t)nevents, sizeof *create_lat);
    curl_global_init(CURL_GLOBAL_ALL);
    pthread_t th;
    pthread_create(&th, NULL, watcher, NULL);
    for (int k = 0; k < 1000 && !watching; k++) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    struct timespec settle = {0, 200000000}; /* the stream is open once the 200 arrived; let it start */
    nanosleep(&settle, NULL);
    CURL *c = curl_easy_init();
    char target[1024], auth[1024], body[512];
    snprintf(target, sizeof target, "%s/api/v1/namespaces/%s/configmaps", url_a, ns);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    struct curl_slist *h = curl_slist_append(NULL, auth);
    h = curl_slist_append(h, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, target);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    for (int i = 0; i < nevents; i++) {
        snprintf(body, sizeof body,
                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"rl-%s-%d\"},\"data\":{\"k\":"
                 "\"v\"}}",
                 run_tag, i);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        pthread_mutex_lock(&mu);
        sent[i] = now();
        pthread_mutex_unlock(&mu);
        curl_easy_perform(c);
        create_lat[i] = now() - sent[i];
    }
    /* wait up to 10 s for the last events */
    double t0 = now();
    for (;;) {
        int got = 0;
        pthread_mutex_lock(&mu);
        for (int i = 0; i < nevents; i++)
            got += arrived[i] != 0;
        pthread_mutex_unlock(&mu);
        if (got == nevents || now() - t0 > 10)
            break;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    done = 1;
    pthread_join(th, NULL);
    double *lat = calloc((size_t)nevents, sizeof *lat);
    int n = 0;
    for (int i = 0; i < nevents; i++)
        if (arrived[i] != 0)
            lat[n++] = (arrived[i] - sent[i]) * 1000;
    qsort(lat, (size_t)n, sizeof *lat, cmp);
    qsort(create_lat, (size_t)nevents, sizeof *create_lat, cmp);
    printf("{\"events\":%d,\"delivered\":%d,\"p50_ms\":%.1f,\"p99_ms\":%.1f,\"max_ms\":%.1f,\"create_p50_ms\":%.1f}\n",
           nevents, n, n ? lat[n / 2] : 0, n ? lat[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1] : 0, n ? lat[n - 1] : 0,
           create_lat[nevents / 2] * 1000);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    curl_global_cleanup();
    free(lat);
    free(sent);
    free(arrived);
    free(create_lat);
    return n == nevents ? 0 : 1;
}
