/* Watch fan-out: W watchers (one curl multi, one TLS connection each) watch configmaps in a namespace; then N
 * configmaps are created. Measures the time until every watcher has received every event.
 * Prints {"watchers","events","seconds","deliveries_per_s","create_seconds"}.
 * Usage: bench_watch URL TOKEN NAMESPACE WATCHERS EVENTS */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct watcher {
    CURL *c;
    long events;
} watcher;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t on_data(char *p, size_t s, size_t n, void *ud)
{
    watcher *w = ud;
    for (size_t i = 0; i < s * n; i++)
        if (p[i] == '\n')
            w->events++;
    return s * n;
}

static size_t discard(char *p, size_t s, size_t n, void *ud) { return s * n; }

static const char *url, *token, *ns;
static int nevents;
static double create_secs;

static void *creator(void *arg)
{
    CURL *c = curl_easy_init();
    char target[1024], auth[1024], body[1024];
    snprintf(target, sizeof target, "%s/api/v1/namespaces/%s/configmaps", url, ns);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    struct curl_slist *h = curl_slist_append(NULL, auth);
    h = curl_slist_append(h, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, target);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    double t0 = now();
    for (int i = 0; i < nevents; i++) {
        snprintf(body, sizeof body,
                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"wb-%d-%ld\"},\"data\":{\"k\":"
                 "\"value-%d\"}}",
                 i, (long)arg, i);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_perform(c);
    }
    create_secs = now() - t0;
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: %s URL TOKEN NAMESPACE WATCHERS EVENTS\n", argv[0]);
        return 2;
    }
    url = argv[1], token = argv[2], ns = argv[3];
    int nw = atoi(argv[4]);
    nevents = atoi(argv[5]);
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *m = curl_multi_init();
    curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)nw + 1);
    watcher *ws = calloc((size_t)nw, sizeof *ws);
    char target[1024], auth[1024];
    /* resourceVersion far in the past is not needed: start from "now" by using the current list RV */
    snprintf(target, sizeof target, "%s/api/v1/namespaces/%s/configmaps?watch=1&timeoutSeconds=120", url, ns);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    struct curl_slist *h = curl_slist_append(NULL, auth);
    for (int i = 0; i < nw; i++) {
        CURL *c = curl_easy_init();
        ws[i].c = c;
        curl_easy_setopt(c, CURLOPT_URL, target);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &ws[i]);
        curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
        curl_multi_add_handle(m, c);
    }
    /* let every watcher connect (all have an open stream once the server answered 200) */
    int running = 1;
    double t_connect = now();
    for (;;) {
        curl_multi_perform(m, &running);
        int connected = 0;
        for (int i = 0; i < nw; i++) {
            long code = 0;
            curl_easy_getinfo(ws[i].c, CURLINFO_RESPONSE_CODE, &code);
            if (code == 200)
                connected++;
        }
        if (connected == nw || now() - t_connect > 60)
            break;
        curl_multi_poll(m, NULL, 0, 50, NULL);
    }
    double connect_secs = now() - t_connect;
    pthread_t th;
    double t0 = now();
    pthread_create(&th, NULL, creator, (void *)(long)time(NULL));
    long want = (long)nevents * nw;
    for (;;) {
        curl_multi_perform(m, &running);
        long got = 0;
        for (int i = 0; i < nw; i++)
            got += ws[i].events;
        if (got >= want || now() - t0 > 120 || !running)
            break;
        curl_multi_poll(m, NULL, 0, 20, NULL);
    }
    double el = now() - t0;
    pthread_join(th, NULL);
    long got = 0;
    for (int i = 0; i < nw; i++)
        got += ws[i].events;
    printf("{\"watchers\":%d,\"events\":%d,\"delivered\":%ld,\"expected\":%ld,\"seconds\":%.3f,"
           "\"deliveries_per_s\":%.0f,\"create_seconds\":%.3f,\"connect_seconds\":%.2f}\n",
           nw, nevents, got, want, el, got / el, create_secs, connect_secs);
    for (int i = 0; i < nw; i++) {
        curl_multi_remove_handle(m, ws[i].c);
        curl_easy_cleanup(ws[i].c);
    }
    curl_multi_cleanup(m);
    curl_slist_free_all(h);
    free(ws);
    curl_global_cleanup();
    return got >= want ? 0 : 1;
}
