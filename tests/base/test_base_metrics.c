#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/metrics.h"

static const char *const two_labels[] = {"verb", "code", NULL};

static void counter_counts_per_label_set(void **state)
{
    kg_metrics_registry *r = kg_metrics_registry_new();
    kg_metric *c = kg_metrics_counter(r, "x_total", "X.", two_labels);
    assert_non_null(c);
    kg_metric_inc(c, (const char *const[]){"GET", "200"});
    kg_metric_inc(c, (const char *const[]){"GET", "200"});
    kg_metric_add(c, (const char *const[]){"POST", "201"}, 3);
    kg_metric_add(c, (const char *const[]){"POST", "201"}, -1); /* counters never go down */
    assert_true(kg_metric_value(c, (const char *const[]){"GET", "200"}) == 2);
    assert_true(kg_metric_value(c, (const char *const[]){"POST", "201"}) == 3);
    assert_true(kg_metric_value(c, (const char *const[]){"GET", "404"}) == 0);
    /* label values are separated in the key: ("a","bc") and ("ab","c") are different series */
    kg_metric_inc(c, (const char *const[]){"a", "bc"});
    assert_true(kg_metric_value(c, (const char *const[]){"ab", "c"}) == 0);
    assert_int_equal(kg_metric_series_count(c), 3);
    kg_metrics_registry_free(r);
}

static void register_same_name(void **state)
{
    kg_metrics_registry *r = kg_metrics_registry_new();
    kg_metric *a = kg_metrics_counter(r, "x_total", "X.", two_labels);
    assert_ptr_equal(kg_metrics_counter(r, "x_total", "X.", two_labels), a);
    static const char *const other[] = {"verb", NULL};
    assert_null(kg_metrics_counter(r, "x_total", "X.", other));
    assert_null(kg_metrics_gauge(r, "x_total", "X.", two_labels));
    static const double bad[] = {1, 1};
    assert_null(kg_metrics_histogram(r, "h", "H.", NULL, bad, 2));
    assert_ptr_equal(kg_metrics_find(r, "x_total"), a);
    assert_null(kg_metrics_find(r, "nope"));
    kg_metrics_registry_free(r);
}

static void histogram_buckets_and_exposition(void **state)
{
    kg_metrics_registry *r = kg_metrics_registry_new();
    static const char *const l[] = {"type", NULL};
    static const double b[] = {0.00001, 0.005, 1, 2.5};
    kg_metric *h = kg_metrics_histogram(r, "lat_seconds", "Latency.", l, b, 4);
    const char *const v[] = {"admit"};
    kg_metric_observe(h, v, 0.000001);
    kg_metric_observe(h, v, 0.005); /* le is inclusive */
    kg_metric_observe(h, v, 0.5);
    kg_metric_observe(h, v, 100);
    assert_int_equal(kg_metric_hist_count(h, v), 4);
    assert_int_equal(kg_metric_hist_bucket(h, v, 0), 1);
    assert_int_equal(kg_metric_hist_bucket(h, v, 1), 2);
    assert_int_equal(kg_metric_hist_bucket(h, v, 2), 3);
    assert_int_equal(kg_metric_hist_bucket(h, v, 3), 3);
    assert_int_equal(kg_metric_hist_bucket(h, v, 4), 4);
    assert_true(kg_metric_hist_sum(h, v) > 100.5049 && kg_metric_hist_sum(h, v) < 100.5051);

    kg_buf out = KG_BUF_INIT;
    kg_metrics_write(r, &out);
    const char *want = "# HELP lat_seconds Latency.\n"
                       "# TYPE lat_seconds histogram\n"
                       "lat_seconds_bucket{type=\"admit\",le=\"1e-05\"} 1\n"
                       "lat_seconds_bucket{type=\"admit\",le=\"0.005\"} 2\n"
                       "lat_seconds_bucket{type=\"admit\",le=\"1\"} 3\n"
                       "lat_seconds_bucket{type=\"admit\",le=\"2.5\"} 3\n"
                       "lat_seconds_bucket{type=\"admit\",le=\"+Inf\"} 4\n"
                       "lat_seconds_sum{type=\"admit\"} 100.505001\n"
                       "lat_seconds_count{type=\"admit\"} 4\n";
    assert_string_equal(kg_buf_cstr(&out), want);
    kg_buf_free(&out);
    kg_metrics_registry_free(r);
}

static void exposition_sorts_and_escapes(void **state)
{
    kg_metrics_registry *r = kg_metrics_registry_new();
    kg_metric *c = kg_metrics_counter(r, "c_total", "Help with \\ and\nnewline.", two_labels);
    kg_metric *g = kg_metrics_gauge(r, "g", "G.", NULL);
    kg_metrics_counter(r, "unused_total", "never updated, not exposed", NULL);
    kg_metric_inc(c, (const char *const[]){"PUT", "200"});
    kg_metric_inc(c, (const char *const[]){"GET", "say \"hi\"\\\n"});
    kg_metric_set(g, NULL, -2.5);
    kg_buf out = KG_BUF_INIT;
    kg_metrics_write(r, &out);
    const char *want = "# HELP c_total Help with \\\\ and\\nnewline.\n"
                       "# TYPE c_total counter\n"
                       "c_total{code=\"200\",verb=\"PUT\"} 1\n"
                       "c_total{code=\"say \\\"hi\\\"\\\\\\n\",verb=\"GET\"} 1\n"
                       "# HELP g G.\n"
                       "# TYPE g gauge\n"
                       "g -2.5\n";
    assert_string_equal(kg_buf_cstr(&out), want);
    kg_buf_free(&out);
    kg_metrics_registry_free(r);
}

static void float_format_matches_go(void **state)
{
    char b[64];
    struct {
        double v;
        const char *s;
    } cases[] = {{0.005, "0.005"},
                 {1, "1"},
                 {2.5, "2.5"},
                 {0.00001, "1e-05"},
                 {0.0001, "0.0001"},
                 {60, "60"},
                 {0.1, "0.1"},
                 {1e21, "1e+21"},
                 {-0.25, "-0.25"},
                 {1.0 / 0.0, "+Inf"},
                 {0, "0"},
                 {123456789, "1.23456789e+08"},
                 {1e6, "1e+06"},
                 {100000, "100000"},
                 {1234567, "1.234567e+06"},
                 {100.505001, "100.505001"},
                 {0.00025, "0.00025"},
                 {1.5e-7, "1.5e-07"},
                 {999999.5, "999999.5"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kg_metrics_format_float(b, sizeof b, cases[i].v);
        assert_string_equal(b, cases[i].s);
    }
}

static void apiserver_metrics_upstream_names(void **state)
{
    kg_metrics_registry *r = kg_metrics_registry_new();
    kg_apiserver_metrics m;
    assert_true(kg_metrics_apiserver_register(r, &m));
    kg_metric_inc(m.request_total,
                  (const char *const[]){"POST", "", "", "v1", "pods", "", "namespace", "apiserver", "201"});
    kg_metric_observe(m.request_duration,
                      (const char *const[]){"POST", "", "", "v1", "pods", "", "namespace", "apiserver"}, 0.0002);
    kg_metric_observe(m.admission_controller_duration,
                      (const char *const[]){"NamespaceLifecycle", "admit", "CREATE", "false"}, 0.00002);
    kg_metric_observe(m.admission_step_duration, (const char *const[]){"validate", "CREATE", "true"}, 0.3);
    kg_buf out = KG_BUF_INIT;
    kg_metrics_write(r, &out);
    const char *s = kg_buf_cstr(&out);
    /* labels in name order, as client_golang writes them */
    assert_non_null(strstr(s, "# TYPE apiserver_request_total counter\n"
                              "apiserver_request_total{code=\"201\",component=\"apiserver\",dry_run=\"\",group=\"\","
                              "resource=\"pods\",scope=\"namespace\",subresource=\"\",verb=\"POST\",version=\"v1\"} "
                              "1\n"));
    assert_non_null(strstr(s, "# TYPE apiserver_request_duration_seconds histogram\n"));
    /* sub-millisecond buckets in front of upstream's 0.005 ... 60 */
    assert_non_null(strstr(s, "apiserver_request_duration_seconds_bucket{component=\"apiserver\",dry_run=\"\","
                              "group=\"\",resource=\"pods\",scope=\"namespace\",subresource=\"\",verb=\"POST\","
                              "version=\"v1\",le=\"0.00025\"} 1\n"));
    assert_non_null(strstr(s, ",le=\"0.0001\"} 0\n"));
    assert_non_null(strstr(s, ",le=\"60\"} 1\n"));
    assert_non_null(strstr(s, "apiserver_admission_controller_admission_duration_seconds_bucket{name=\""
                              "NamespaceLifecycle\",operation=\"CREATE\",rejected=\"false\",type=\"admit\","
                              "le=\"2.5e-05\"} 1\n"));
    assert_non_null(strstr(s, "apiserver_admission_step_admission_duration_seconds_bucket{operation=\"CREATE\","
                              "rejected=\"true\",type=\"validate\",le=\"0.1\"} 0\n"));
    assert_non_null(strstr(s, "apiserver_admission_step_admission_duration_seconds_bucket{operation=\"CREATE\","
                              "rejected=\"true\",type=\"validate\",le=\"0.5\"} 1\n"));
    assert_non_null(strstr(s, "# HELP apiserver_admission_step_admission_duration_seconds Admission sub-step "
                              "latency histogram in seconds, broken out for each operation and API resource and "
                              "step type (validate or admit).\n"));
    kg_buf_free(&out);
    kg_metrics_registry_free(r);
    const kg_apiserver_metrics *g = kg_metrics_apiserver();
    assert_ptr_equal(g, kg_metrics_apiserver());
    assert_non_null(g->request_total);
}

typedef struct {
    kg_metric *c, *h;
    kg_metrics_registry *r;
} worker_arg;

#define THREADS 4
#define ITERS 20000

static void *worker(void *p)
{
    worker_arg *w = p;
    char code[16];
    for (int i = 0; i < ITERS; i++) {
        snprintf(code, sizeof code, "%d", 200 + (i % 8));
        kg_metric_inc(w->c, (const char *const[]){"GET", code});
        kg_metric_observe(w->h, (const char *const[]){"x"}, 0.001);
    }
    return NULL;
}

static void concurrent_updates_are_exact(void **state)
{
    kg_metrics_registry *r = kg_metrics_registry_new();
    static const char *const l[] = {"k", NULL};
    static const double b[] = {0.01};
    worker_arg w = {kg_metrics_counter(r, "c_total", "C.", two_labels), kg_metrics_histogram(r, "h", "H.", l, b, 1), r};
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, &w);
    /* rendering concurrently with updates is safe */
    for (int i = 0; i < 20; i++) {
        kg_buf out = KG_BUF_INIT;
        kg_metrics_write(w.r, &out);
        kg_buf_free(&out);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    double total = 0;
    for (int i = 0; i < 8; i++) {
        char code[16];
        snprintf(code, sizeof code, "%d", 200 + i);
        total += kg_metric_value(w.c, (const char *const[]){"GET", code});
    }
    assert_true(total == THREADS * ITERS);
    assert_int_equal(kg_metric_series_count(w.c), 8);
    assert_int_equal(kg_metric_hist_count(w.h, (const char *const[]){"x"}), THREADS * ITERS);
    double sum = kg_metric_hist_sum(w.h, (const char *const[]){"x"});
    assert_true(sum > THREADS * ITERS * 0.001 * 0.999 && sum < THREADS * ITERS * 0.001 * 1.001);
    kg_metrics_registry_free(r);
}

static void too_many_series_are_dropped(void **state)
{
    kg_metrics_registry *r = kg_metrics_registry_new();
    static const char *const l[] = {"k", NULL};
    kg_metric *c = kg_metrics_counter(r, "c_total", "C.", l);
    char v[32];
    for (int i = 0; i < KG_METRIC_MAX_SERIES + 10; i++) {
        snprintf(v, sizeof v, "v%d", i);
        kg_metric_inc(c, (const char *const[]){v});
    }
    assert_int_equal(kg_metric_series_count(c), KG_METRIC_MAX_SERIES);
    assert_int_equal(kg_metric_dropped(c), 10);
    /* existing series keep counting */
    kg_metric_inc(c, (const char *const[]){"v0"});
    assert_true(kg_metric_value(c, (const char *const[]){"v0"}) == 2);
    kg_metrics_registry_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counter_counts_per_label_set),     cmocka_unit_test(register_same_name),
        cmocka_unit_test(histogram_buckets_and_exposition), cmocka_unit_test(exposition_sorts_and_escapes),
        cmocka_unit_test(float_format_matches_go),          cmocka_unit_test(apiserver_metrics_upstream_names),
        cmocka_unit_test(concurrent_updates_are_exact),     cmocka_unit_test(too_many_series_are_dropped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
