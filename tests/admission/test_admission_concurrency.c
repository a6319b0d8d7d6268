/* Many request threads share one chain, one in-memory state and one metrics registry: results stay exact (run
 * under ASan/UBSan here; the chain and plugin states are read-only or atomic on the request path). Prints the
 * measured per-request cost. */
#include <pthread.h>
#include <time.h>

#include "admission_testutil.h"

#define THREADS 4
#define ITERS 3000

typedef struct shared {
    kg_admission_chain *chain;
    int denied;
    pthread_mutex_t mu;
} shared;

static void *worker(void *p)
{
    shared *s = p;
    kg_arena a;
    kg_arena_init(&a, 0);
    int denied = 0;
    for (int i = 0; i < ITERS; i++) {
        kg_arena_reset(&a);
        kg_admission_attributes at;
        const char *ns = (i % 3 == 0) ? "term" : (i % 3 == 1) ? "default" : "ghost";
        tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", ns, "x",
               tj(&a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"}}"), NULL);
        kg_status *st = kg_admission_chain_run(s->chain, &at);
        if (st) {
            denied++;
            if (strcmp(ns, "term") == 0)
                assert_int_equal(kg_status_http_code(st), 403);
            else
                assert_int_equal(kg_status_http_code(st), 404);
        } else {
            assert_string_equal(ns, "default");
        }
    }
    kg_arena_free(&a);
    pthread_mutex_lock(&s->mu);
    s->denied += denied;
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static void concurrent_requests(void **state)
{
    kg_admission_memstate *m = kg_admission_memstate_new();
    kg_admission_memstate_set_clock(m, 0); /* the 50 ms missing-namespace wait is virtual here */
    tput(m, "namespaces", "{\"metadata\":{\"name\":\"default\"},\"status\":{\"phase\":\"Active\"}}", 0);
    tput(m, "namespaces", "{\"metadata\":{\"name\":\"term\"},\"status\":{\"phase\":\"Terminating\"}}", 0);
    /* ServiceAccount (default-on) needs the default service account of the namespace, as a real cluster has */
    tput(m, "serviceaccounts", "{\"metadata\":{\"name\":\"default\",\"namespace\":\"default\"}}", 0);
    kg_metrics_registry *r = kg_metrics_registry_new();
    kg_apiserver_metrics met;
    assert_true(kg_metrics_apiserver_register(r, &met));
    kg_admission_services svc = kg_admission_memstate_services(m, &met);
    kg_admission_options o = {"NamespaceExists", NULL, NULL, NULL};
    kg_error e = {0};
    shared s = {kg_admission_chain_new(&o, &svc, &met, &e), 0, PTHREAD_MUTEX_INITIALIZER};
    assert_non_null(s.chain);

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, &s);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    int total = THREADS * ITERS;
    print_message("%d admission runs on %d threads in %.3f s (%.1f us per request per thread)\n", total, THREADS, secs,
                  secs * 1e6 / total * THREADS);

    int per_kind = total / 3;
    assert_int_equal(s.denied, 2 * per_kind);
    kg_metric *step = met.admission_step_duration, *ctl = met.admission_controller_duration;
    /* NamespaceLifecycle rejects "term" and "ghost" in the mutating phase */
    assert_int_equal(kg_metric_hist_count(step, (const char *const[]){"admit", "CREATE", "false"}), per_kind);
    assert_int_equal(kg_metric_hist_count(step, (const char *const[]){"admit", "CREATE", "true"}), 2 * per_kind);
    assert_int_equal(kg_metric_hist_count(step, (const char *const[]){"admit", "CREATE", "true"}) +
                         kg_metric_hist_count(step, (const char *const[]){"admit", "CREATE", "false"}),
                     total);
    /* only requests that passed the mutating phase reach NamespaceExists */
    assert_int_equal(kg_metric_hist_count(ctl, (const char *const[]){"NamespaceExists", "validate", "CREATE", "false"}),
                     per_kind);
    kg_admission_chain_free(s.chain);
    kg_metrics_registry_free(r);
    kg_admission_memstate_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(concurrent_requests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
