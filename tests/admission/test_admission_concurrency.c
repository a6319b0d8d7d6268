/* Many request threads share one chain, one in-memory state and one metrics registry: results stay exact (run
 * under ASan/UBSan here; the chain and plugin states are read-only or atomic on the request path). Prints the
 * measured per-request cost. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sched.h>
#include <time.h>

#include "admission/plugins/limitranger.h"
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
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_memcluster_set_clock(m, 0); /* the 50 ms missing-namespace wait is virtual here */
    tput(m, "namespaces", "{\"metadata\":{\"name\":\"default\"},\"status\":{\"phase\":\"Active\"}}", 0);
    tput(m, "namespaces", "{\"metadata\":{\"name\":\"term\"},\"status\":{\"phase\":\"Terminating\"}}", 0);
    /* ServiceAccount (default-on) needs the default service account of the namespace, as a real cluster has */
    tput(m, "serviceaccounts", "{\"metadata\":{\"name\":\"default\",\"namespace\":\"default\"}}", 0);
    kg_metrics_registry *r = kg_metrics_registry_new();
    kg_apiserver_metrics met;
    assert_true(kg_metrics_apiserver_register(r, &met));
    kg_admission_services svc = kg_admission_memcluster_services(m, &met);
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
    kg_admission_memcluster_free(m);
}

/* Shared views: readers pin cached LimitRanges (and their memoised parsed form) while a writer keeps replacing
 * them; every reader sees one whole version, and the replaced documents are freed only after the last reader (ASan
 * and ThreadSanitizer check the lifetimes and the memo publication). */
typedef struct views_shared {
    kg_admission_memcluster *m;
    kg_admission_chain *chain;
    atomic_int stop;
    atomic_int seen; /* bit per version observed */
} views_shared;

static void *views_reader(void *p)
{
    views_shared *s = p;
    kg_arena a;
    kg_arena_init(&a, 0);
    /* ITERS rounds, and more while no update has been seen yet: on a loaded machine the writer may not have run
     * (bounded, so a writer that never publishes fails the test instead of hanging it) */
    for (int i = 0; i < ITERS || (__builtin_popcount((unsigned)atomic_load(&s->seen)) < 2 && i < 1000 * ITERS); i++) {
        if (i >= ITERS)
            sched_yield();
        kg_arena_reset(&a);
        kg_admission_attributes at;
        kg_json *pod = tj(&a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"},"
                              "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}");
        tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "default", "x", pod, NULL);
        assert_null(kg_admission_chain_run(s->chain, &at));
        const char *cpu = kg_json_path_str(kg_json_at(kg_json_path(pod, "spec.containers"), 0), "resources.limits.cpu");
        const char *mem =
            kg_json_path_str(kg_json_at(kg_json_path(pod, "spec.containers"), 0), "resources.limits.memory");
        assert_non_null(cpu);
        assert_non_null(mem);
        /* versions pair cpu N with memory NGi: never a mix of two versions */
        assert_true(strlen(cpu) == 1 && strlen(mem) == 3 && cpu[0] == mem[0]);
        atomic_fetch_or(&s->seen, 1 << (cpu[0] - '0'));
    }
    kg_arena_free(&a);
    return NULL;
}

static void *views_writer(void *p)
{
    views_shared *s = p;
    char buf[256];
    for (int v = 0; !atomic_load(&s->stop); v = (v + 1) % 9) {
        snprintf(buf, sizeof buf,
                 "{\"metadata\":{\"name\":\"lr\",\"namespace\":\"default\"},\"spec\":{\"limits\":[{\"type\":"
                 "\"Container\",\"default\":{\"cpu\":\"%d\",\"memory\":\"%dGi\"}}]}}",
                 v + 1, v + 1);
        tput(s->m, "limitranges", buf, 0);
    }
    return NULL;
}

static void views_under_concurrent_updates(void **state)
{
    (void)state;
    views_shared s = {kg_admission_memcluster_new(), NULL, 0, 0};
    tput(s.m, "limitranges",
         "{\"metadata\":{\"name\":\"lr\",\"namespace\":\"default\"},\"spec\":{\"limits\":[{\"type\":"
         "\"Container\",\"default\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}]}}",
         0);
    kg_admission_services svc = kg_admission_memcluster_services(s.m, NULL);
    const kg_admission_plugin *ps[] = {&kg_admission_plugin_limit_ranger};
    kg_error e = {0};
    s.chain = kg_admission_chain_new_from(ps, 1, NULL, &svc, NULL, &e);
    assert_non_null(s.chain);
    pthread_t w, r[3];
    pthread_create(&w, NULL, views_writer, &s);
    for (int i = 0; i < 3; i++)
        pthread_create(&r[i], NULL, views_reader, &s);
    for (int i = 0; i < 3; i++)
        pthread_join(r[i], NULL);
    atomic_store(&s.stop, 1);
    pthread_join(w, NULL);
    assert_true(__builtin_popcount((unsigned)atomic_load(&s.seen)) >= 2); /* the readers did see updates */
    kg_admission_chain_free(s.chain);
    kg_admission_memcluster_free(s.m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(concurrent_requests),
        cmocka_unit_test(views_under_concurrent_updates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
