/* A tiny Prometheus registry: counters and histograms with label sets, text exposition format.
 *
 * Updates are lock-free: each metric holds a fixed-size open-addressing table of series whose slots are filled by
 * compare-and-swap; values are atomics (histogram sums use a CAS loop on the double's bits). The first update of a
 * new label set allocates that series once (malloc); every later update of it allocates nothing and takes no lock.
 * Rendering (kg_metrics_write) may run concurrently with updates; it sorts series by label values.
 *
 * Usage:
 *     static const char *const labels[] = {"verb", "code", NULL};
 *     kg_metric *m = kg_metrics_counter(reg, "x_total", "help text", labels);
 *     kg_metric_inc(m, (const char *const[]){"GET", "200"});
 *
 * kg_metrics_apiserver() returns the process-wide registry with kube-apiserver's metric names (below); the server
 * renders GET /metrics with kg_metrics_write(kg_metrics_apiserver()->registry, &buf). */
#ifndef KG_BASE_METRICS_H
#define KG_BASE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

typedef struct kg_metrics_registry kg_metrics_registry;
typedef struct kg_metric kg_metric;

typedef enum kg_metric_type {
    KG_METRIC_COUNTER,
    KG_METRIC_GAUGE,
    KG_METRIC_HISTOGRAM,
} kg_metric_type;

/* Most distinct label sets one metric keeps; later new label sets are counted in kg_metric_dropped(). */
#define KG_METRIC_MAX_SERIES 4096
#define KG_METRIC_MAX_LABELS 16
#define KG_METRIC_MAX_BUCKETS 64

kg_metrics_registry *kg_metrics_registry_new(void);
/* Frees the registry, its metrics and their series. No update may run concurrently. */
void kg_metrics_registry_free(kg_metrics_registry *r);

/* Register a metric. label_names is NULL-terminated (NULL or {NULL} for none); strings are copied.
 * Registering an existing name returns the existing metric if type and labels match, else NULL. */
kg_metric *kg_metrics_counter(kg_metrics_registry *r, const char *name, const char *help,
                              const char *const *label_names);
kg_metric *kg_metrics_gauge(kg_metrics_registry *r, const char *name, const char *help, const char *const *label_names);
/* buckets: strictly increasing upper bounds (+Inf is implicit), at most KG_METRIC_MAX_BUCKETS. */
kg_metric *kg_metrics_histogram(kg_metrics_registry *r, const char *name, const char *help,
                                const char *const *label_names, const double *buckets, size_t nbuckets);
kg_metric *kg_metrics_find(const kg_metrics_registry *r, const char *name);

/* Updates. label_values has exactly as many entries as the metric has label names (NULL values count as "").
 * A NULL metric is ignored, so callers need not check registration results. */
void kg_metric_inc(kg_metric *m, const char *const *label_values);
void kg_metric_add(kg_metric *m, const char *const *label_values, double v);     /* counter: v >= 0 */
void kg_metric_set(kg_metric *m, const char *const *label_values, double v);     /* gauge */
void kg_metric_observe(kg_metric *m, const char *const *label_values, double v); /* histogram */

/* Reads (tests, diagnostics). Absent series read as 0. */
double kg_metric_value(kg_metric *m, const char *const *label_values);        /* counter / gauge */
uint64_t kg_metric_hist_count(kg_metric *m, const char *const *label_values); /* histogram _count */
double kg_metric_hist_sum(kg_metric *m, const char *const *label_values);     /* histogram _sum */
/* Cumulative count of observations <= buckets[i] (i == nbuckets → +Inf). */
uint64_t kg_metric_hist_bucket(kg_metric *m, const char *const *label_values, size_t i);
size_t kg_metric_series_count(const kg_metric *m);
uint64_t kg_metric_dropped(const kg_metric *m);

/* Prometheus text exposition format 0.0.4 as client_golang writes it: "# HELP", "# TYPE", then samples with labels
 * sorted by name; histograms as _bucket{...,le=...} (cumulative, ending with le="+Inf"), _sum and _count. Metrics in
 * registration order (those without any series are omitted), series sorted by label values. */
void kg_metrics_write(const kg_metrics_registry *r, kg_buf *out);
/* Format a float like Go's strconv.FormatFloat(v, 'g', -1, 64): "0.005", "60", "1e-05", "1.234567e+06"
 * ("+Inf", "-Inf", "NaN" for the specials). */
void kg_metrics_format_float(char *out, size_t cap, double v);

/* ---- kube-apiserver metrics (upstream names, help texts and label names) ---- */
typedef struct kg_apiserver_metrics {
    kg_metrics_registry *registry;
    /* apiserver_request_total{verb,dry_run,group,version,resource,subresource,scope,component,code} */
    kg_metric *request_total;
    /* apiserver_request_duration_seconds{verb,dry_run,group,version,resource,subresource,scope,component} */
    kg_metric *request_duration;
    /* apiserver_admission_controller_admission_duration_seconds{name,type,operation,rejected} */
    kg_metric *admission_controller_duration;
    /* apiserver_admission_step_admission_duration_seconds{type,operation,rejected} */
    kg_metric *admission_step_duration;
} kg_apiserver_metrics;

/* Register the four metrics above in r (buckets: upstream's plus sub-millisecond ones). */
bool kg_metrics_apiserver_register(kg_metrics_registry *r, kg_apiserver_metrics *out);
/* Process-wide instance, created on first use (thread-safe). */
const kg_apiserver_metrics *kg_metrics_apiserver(void);

/* Monotonic clock in seconds, for durations. */
double kg_metrics_now(void);

#endif
