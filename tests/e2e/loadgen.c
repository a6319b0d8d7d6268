/* Create load for the end-to-end durability test and benchmarks: T threads, each with its own keep-alive
 * connection, POST pods with unique names. Every create that returned 201 is printed (one name per line, flushed)
 * so a test can check that each acknowledged object survives a crash.
 * Usage: e2e_loadgen URL TOKEN NAMESPACE THREADS PER_THREAD [PREFIX] */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *url, *token, *ns, *prefix = "load";
static int per_thread;
static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;
static long ok_total, err_total;

static size_t discard(char *p, size_t s, size_t n, void *ud) { return s * n; }

static void *worker(void *arg)
{
    long id = (long)arg;
    CURL *c = curl_easy_init();
    char target[1024], auth[1024], body[2048], name[128];
    snprintf(target, sizeof target, "%s/api/v1/namespaces/%s/pods", url, ns);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    struct curl_slist *h = NULL;
    h = curl_slist_append(h, auth);
    h = curl_slist_append(h, "Content-Type: application/json");
    h = curl_slist_append(h, "Expect:");
    curl_easy_setopt(c, CURLOPT_URL, target);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    int consecutive_errors = 0;
    for (int i = 0; i < per_thread; i++) {
        snprintf(name, sizeof name, "%s-%ld-%d", prefix, id, i);
        snprintf(body, sizeof body,
                 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"labels\":{\"app\":\"load\"}},"
                 "\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"registry.example.com/app:1.0\","
                 "\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}}}]}}",
                 name);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        CURLcode rc = curl_easy_perform(c);
        long code = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
        if (rc == CURLE_OK && code == 201) {
            pthread_mutex_lock(&out_mu);
            printf("%s\n", name);
            fflush(stdout);
            ok_total++;
            pthread_mutex_unlock(&out_mu);
            consecutive_errors = 0;
        } else {
            pthread_mutex_lock(&out_mu);
            err_total++;
            pthread_mutex_unlock(&out_mu);
            if (++consecutive_errors >= 3)
                break; /* the server is gone */
        }
    }
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: %s URL TOKEN NAMESPACE THREADS PER_THREAD [PREFIX]\n", argv[0]);
        return 2;
    }
    url = argv[1], token = argv[2], ns = argv[3];
    int threads = atoi(argv[4]);
    per_thread = atoi(argv[5]);
    if (argc > 6)
        prefix = argv[6];
    curl_global_init(CURL_GLOBAL_ALL);
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    fprintf(stderr, "loadgen: %ld created, %ld errors in %.2f s (%.0f/s)\n", ok_total, err_total, secs,
            secs > 0 ? ok_total / secs : 0);
    free(t);
    curl_global_cleanup();
    return 0;
}
