#include "base/metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/hash.h"

/* One label set's values. For histograms counts[] has nbuckets+1 entries (last = +Inf), not cumulative. */
typedef struct kg_series {
    uint64_t hash;
    char **values;             /* nlabels strings */
    _Atomic uint64_t value;    /* counter/gauge: double bits */
    _Atomic uint64_t sum;      /* histogram: double bits */
    _Atomic uint64_t count;    /* histogram */
    _Atomic uint64_t counts[]; /* histogram buckets */
} kg_series;

struct kg_metric {
    kg_metric_type type;
    char *name;
    char *help;
    size_t nlabels;
    char **labels;
    size_t *order; /* label indexes sorted by name: exposition order, like client_golang */
    size_t nbuckets;
    double *buckets;
    _Atomic(kg_series *) *slots; /* KG_METRIC_MAX_SERIES, open addressing */
    _Atomic size_t nseries;
    _Atomic uint64_t dropped;
    kg_metric *next;
};

struct kg_metrics_registry {
    pthread_mutex_t mu; /* registration only */
    kg_metric *head, *tail;
};

static char *xstrdup(const char *s)
{
    char *p = strdup(s ? s : "");
    if (!p)
        abort();
    return p;
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n, sz);
    if (!p)
        abort();
    return p;
}

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

kg_metrics_registry *kg_metrics_registry_new(void)
{
    kg_metrics_registry *r = xcalloc(1, sizeof *r);
    pthread_mutex_init(&r->mu, NULL);
    return r;
}

static void metric_free(kg_metric *m)
{
    for (size_t i = 0; i < KG_METRIC_MAX_SERIES; i++) {
        kg_series *s = atomic_load(&m->slots[i]);
        if (!s)
            continue;
        for (size_t j = 0; j < m->nlabels; j++)
            free(s->values[j]);
        free(s->values);
        free(s);
    }
    free(m->slots);
    for (size_t j = 0; j < m->nlabels; j++)
        free(m->labels[j]);
    free(m->labels);
    free(m->order);
    free(m->buckets);
    free(m->name);
    free(m->help);
    free(m);
}

void kg_metrics_registry_free(kg_metrics_registry *r)
{
    if (!r)
        return;
    kg_metric *m = r->head;
    while (m) {
        kg_metric *n = m->next;
        metric_free(m);
        m = n;
    }
    pthread_mutex_destroy(&r->mu);
    free(r);
}

static size_t count_labels(const char *const *names)
{
    size_t n = 0;
    while (names && names[n])
        n++;
    return n;
}

static kg_metric *find_locked(const kg_metrics_registry *r, const char *name)
{
    for (kg_metric *m = r->head; m; m = m->next)
        if (strcmp(m->name, name) == 0)
            return m;
    return NULL;
}

kg_metric *kg_metrics_find(const kg_metrics_registry *r, const char *name)
{
    kg_metrics_registry *rw = (kg_metrics_registry *)r;
    pthread_mutex_lock(&rw->mu);
    kg_metric *m = find_locked(r, name);
    pthread_mutex_unlock(&rw->mu);
    return m;
}

static kg_metric *reg(kg_metrics_registry *r, kg_metric_type type, const char *name, const char *help,
                      const char *const *label_names, const double *buckets, size_t nbuckets)
{
    size_t nl = count_labels(label_names);
    if (!r || !name || nl > KG_METRIC_MAX_LABELS || nbuckets > KG_METRIC_MAX_BUCKETS)
        return NULL;
    for (size_t i = 1; i < nbuckets; i++)
        if (!(buckets[i] > buckets[i - 1]))
            return NULL;
    pthread_mutex_lock(&r->mu);
    kg_metric *m = find_locked(r, name);
    if (m) {
        bool same = m->type == type && m->nlabels == nl && m->nbuckets == nbuckets;
        for (size_t i = 0; same && i < nl; i++)
            same = strcmp(m->labels[i], label_names[i]) == 0;
        for (size_t i = 0; same && i < nbuckets; i++)
            same = m->buckets[i] == buckets[i];
        pthread_mutex_unlock(&r->mu);
        return same ? m : NULL;
    }
    m = xcalloc(1, sizeof *m);
    m->type = type;
    m->name = xstrdup(name);
    m->help = xstrdup(help);
    m->nlabels = nl;
    m->labels = xcalloc(nl ? nl : 1, sizeof(char *));
    for (size_t i = 0; i < nl; i++)
        m->labels[i] = xstrdup(label_names[i]);
    m->order = xcalloc(nl ? nl : 1, sizeof(size_t));
    for (size_t i = 0; i < nl; i++) { /* insertion sort: at most KG_METRIC_MAX_LABELS */
        size_t j = i;
        while (j > 0 && strcmp(m->labels[m->order[j - 1]], m->labels[i]) > 0) {
            m->order[j] = m->order[j - 1];
            j--;
        }
        m->order[j] = i;
    }
    m->nbuckets = nbuckets;
    m->buckets = xcalloc(nbuckets ? nbuckets : 1, sizeof(double));
    if (nbuckets)
        memcpy(m->buckets, buckets, nbuckets * sizeof(double));
    m->slots = xcalloc(KG_METRIC_MAX_SERIES, sizeof(*m->slots));
    if (r->tail)
        r->tail->next = m;
    else
        r->head = m;
    r->tail = m;
    pthread_mutex_unlock(&r->mu);
    return m;
}

kg_metric *kg_metrics_counter(kg_metrics_registry *r, const char *name, const char *help,
                              const char *const *label_names)
{
    return reg(r, KG_METRIC_COUNTER, name, help, label_names, NULL, 0);
}

kg_metric *kg_metrics_gauge(kg_metrics_registry *r, const char *name, const char *help, const char *const *label_names)
{
    return reg(r, KG_METRIC_GAUGE, name, help, label_names, NULL, 0);
}

kg_metric *kg_metrics_histogram(kg_metrics_registry *r, const char *name, const char *help,
                                const char *const *label_names, const double *buckets, size_t nbuckets)
{
    return reg(r, KG_METRIC_HISTOGRAM, name, help, label_names, buckets, nbuckets);
}

/* ---- series lookup (lock-free) ---- */

static uint64_t hash_values(const kg_metric *m, const char *const *values)
{
    uint64_t h = KG_FNV1A64_INIT;
    for (size_t i = 0; i < m->nlabels; i++) {
        h = kg_fnv1a64_continue_str(h, values && values[i] ? values[i] : "");
        h = kg_fnv1a64_byte(h, 0xff); /* separator: ("a","bc") != ("ab","c") */
    }
    return h;
}

static bool series_match(const kg_metric *m, const kg_series *s, uint64_t h, const char *const *values)
{
    if (s->hash != h)
        return false;
    for (size_t i = 0; i < m->nlabels; i++) {
        const char *v = values && values[i] ? values[i] : "";
        if (strcmp(s->values[i], v) != 0)
            return false;
    }
    return true;
}

static void series_free(const kg_metric *m, kg_series *s)
{
    for (size_t i = 0; i < m->nlabels; i++)
        free(s->values[i]);
    free(s->values);
    free(s);
}

/* Find the series for values; create it when create is set. NULL when absent (or the table is full). */
static kg_series *series_get(kg_metric *m, const char *const *values, bool create)
{
    uint64_t h = hash_values(m, values);
    size_t mask = KG_METRIC_MAX_SERIES - 1;
    kg_series *mine = NULL;
    for (size_t probe = 0; probe < KG_METRIC_MAX_SERIES; probe++) {
        size_t i = (size_t)(h + probe) & mask;
        kg_series *s = atomic_load_explicit(&m->slots[i], memory_order_acquire);
        if (s) {
            if (series_match(m, s, h, values)) {
                if (mine)
                    series_free(m, mine);
                return s;
            }
            continue;
        }
        if (!create)
            return NULL;
        if (!mine) {
            size_t nb = m->type == KG_METRIC_HISTOGRAM ? m->nbuckets + 1 : 0;
            mine = xcalloc(1, sizeof *mine + nb * sizeof(mine->counts[0]));
            mine->hash = h;
            mine->values = xcalloc(m->nlabels ? m->nlabels : 1, sizeof(char *));
            for (size_t j = 0; j < m->nlabels; j++)
                mine->values[j] = xstrdup(values && values[j] ? values[j] : "");
        }
        kg_series *expected = NULL;
        if (atomic_compare_exchange_strong_explicit(&m->slots[i], &expected, mine, memory_order_acq_rel,
                                                    memory_order_acquire)) {
            atomic_fetch_add(&m->nseries, 1);
            return mine;
        }
        /* another thread filled this slot: it may be our label set */
        if (series_match(m, expected, h, values)) {
            series_free(m, mine);
            return expected;
        }
    }
    if (mine)
        series_free(m, mine);
    if (atomic_fetch_add(&m->dropped, 1) == 0)
        KG_WARN("metric %s: more than %d label sets, dropping new ones", m->name, KG_METRIC_MAX_SERIES);
    return NULL;
}

static void atomic_add_double(_Atomic uint64_t *p, double v)
{
    uint64_t old = atomic_load_explicit(p, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(p, &old, dbits(bitsd(old) + v), memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
}

void kg_metric_add(kg_metric *m, const char *const *values, double v)
{
    if (!m || m->type == KG_METRIC_HISTOGRAM || (m->type == KG_METRIC_COUNTER && !(v >= 0)))
        return;
    kg_series *s = series_get(m, values, true);
    if (s)
        atomic_add_double(&s->value, v);
}

void kg_metric_inc(kg_metric *m, const char *const *values)
{
    kg_metric_add(m, values, 1.0);
}

void kg_metric_set(kg_metric *m, const char *const *values, double v)
{
    if (!m || m->type != KG_METRIC_GAUGE)
        return;
    kg_series *s = series_get(m, values, true);
    if (s)
        atomic_store_explicit(&s->value, dbits(v), memory_order_relaxed);
}

void kg_metric_observe(kg_metric *m, const char *const *values, double v)
{
    if (!m || m->type != KG_METRIC_HISTOGRAM)
        return;
    kg_series *s = series_get(m, values, true);
    if (!s)
        return;
    /* first bucket whose upper bound is >= v (binary search; NaN lands in +Inf) */
    size_t lo = 0, hi = m->nbuckets;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v <= m->buckets[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    atomic_fetch_add_explicit(&s->counts[lo], 1, memory_order_relaxed);
    atomic_add_double(&s->sum, v);
    atomic_fetch_add_explicit(&s->count, 1, memory_order_relaxed);
}

double kg_metric_value(kg_metric *m, const char *const *values)
{
    if (!m || m->type == KG_METRIC_HISTOGRAM)
        return 0;
    kg_series *s = series_get(m, values, false);
    return s ? bitsd(atomic_load(&s->value)) : 0;
}

uint64_t kg_metric_hist_count(kg_metric *m, const char *const *values)
{
    if (!m || m->type != KG_METRIC_HISTOGRAM)
        return 0;
    kg_series *s = series_get(m, values, false);
    return s ? atomic_load(&s->count) : 0;
}

double kg_metric_hist_sum(kg_metric *m, const char *const *values)
{
    if (!m || m->type != KG_METRIC_HISTOGRAM)
        return 0;
    kg_series *s = series_get(m, values, false);
    return s ? bitsd(atomic_load(&s->sum)) : 0;
}

uint64_t kg_metric_hist_bucket(kg_metric *m, const char *const *values, size_t i)
{
    if (!m || m->type != KG_METRIC_HISTOGRAM || i > m->nbuckets)
        return 0;
    kg_series *s = series_get(m, values, false);
    if (!s)
        return 0;
    uint64_t c = 0;
    for (size_t j = 0; j <= i; j++)
        c += atomic_load(&s->counts[j]);
    return c;
}

size_t kg_metric_series_count(const kg_metric *m)
{
    return m ? atomic_load(&((kg_metric *)m)->nseries) : 0;
}
uint64_t kg_metric_dropped(const kg_metric *m)
{
    return m ? atomic_load(&((kg_metric *)m)->dropped) : 0;
}

/* ---- exposition ---- */

void kg_metrics_format_float(char *out, size_t cap, double v)
{
    if (isnan(v)) {
        snprintf(out, cap, "NaN");
        return;
    }
    if (isinf(v)) {
        snprintf(out, cap, v > 0 ? "+Inf" : "-Inf");
        return;
    }
    /* Go's strconv.FormatFloat(v, 'g', -1, 64): the shortest digits that round-trip; scientific notation when the
     * decimal exponent is < -4 or >= 6 (Go uses precision 6 for this decision with shortest formatting), else plain
     * decimal with exactly those digits. */
    char e[64];
    int p = 0;
    for (; p <= 16; p++) {
        snprintf(e, sizeof e, "%.*e", p, v);
        if (strtod(e, NULL) == v)
            break;
    }
    if (p > 16)
        p = 16;
    const char *ep = strchr(e, 'e');
    int exp = ep ? atoi(ep + 1) : 0;
    int nd = p + 1;
    if (exp < -4 || exp >= 6) {
        snprintf(out, cap, "%s", e);
        return;
    }
    int dec = nd - (exp + 1);
    snprintf(out, cap, "%.*f", dec > 0 ? dec : 0, v);
}

static void write_escaped(kg_buf *out, const char *s, bool quote_escape)
{
    for (; *s; s++) {
        if (*s == '\\')
            kg_buf_puts(out, "\\\\");
        else if (*s == '\n')
            kg_buf_puts(out, "\\n");
        else if (*s == '"' && quote_escape)
            kg_buf_puts(out, "\\\"");
        else
            kg_buf_putc(out, *s);
    }
}

static void write_labels(kg_buf *out, const kg_metric *m, const kg_series *s, const char *le)
{
    if (m->nlabels == 0 && !le)
        return;
    kg_buf_putc(out, '{');
    bool first = true;
    for (size_t k = 0; k < m->nlabels; k++) {
        size_t i = m->order[k];
        if (!first)
            kg_buf_putc(out, ',');
        first = false;
        kg_buf_puts(out, m->labels[i]);
        kg_buf_puts(out, "=\"");
        write_escaped(out, s->values[i], true);
        kg_buf_putc(out, '"');
    }
    if (le) {
        if (!first)
            kg_buf_putc(out, ',');
        kg_buf_puts(out, "le=\"");
        kg_buf_puts(out, le);
        kg_buf_putc(out, '"');
    }
    kg_buf_putc(out, '}');
}

static const kg_metric *g_sort_metric;
static int cmp_series(const void *x, const void *y)
{
    const kg_series *a = *(kg_series *const *)x, *b = *(kg_series *const *)y;
    for (size_t k = 0; k < g_sort_metric->nlabels; k++) {
        size_t i = g_sort_metric->order[k];
        int c = strcmp(a->values[i], b->values[i]);
        if (c)
            return c;
    }
    return 0;
}

static pthread_mutex_t g_sort_mu = PTHREAD_MUTEX_INITIALIZER;

static void sort_series(kg_series **v, size_t n, const kg_metric *m)
{
    /* qsort has no context argument in C17; rendering is rare, so a lock around the comparator's parameter is fine */
    pthread_mutex_lock(&g_sort_mu);
    g_sort_metric = m;
    qsort(v, n, sizeof *v, cmp_series);
    pthread_mutex_unlock(&g_sort_mu);
}

void kg_metrics_write(const kg_metrics_registry *r, kg_buf *out)
{
    if (!r)
        return;
    kg_metrics_registry *rw = (kg_metrics_registry *)r;
    /* the registry lock only guards the metric list against concurrent registration; updates never take it */
    pthread_mutex_lock(&rw->mu);
    kg_metric *head = r->head;
    kg_series **list = malloc(KG_METRIC_MAX_SERIES * sizeof *list);
    if (!list)
        abort();
    char num[64];
    for (kg_metric *m = head; m; m = m->next) {
        size_t n = 0;
        for (size_t i = 0; i < KG_METRIC_MAX_SERIES; i++) {
            kg_series *s = atomic_load_explicit(&m->slots[i], memory_order_acquire);
            if (s)
                list[n++] = s;
        }
        if (n == 0)
            continue; /* like client_golang: a vector without children is not exposed */
        sort_series(list, n, m);
        kg_buf_printf(out, "# HELP %s ", m->name);
        write_escaped(out, m->help, false);
        kg_buf_printf(out, "\n# TYPE %s %s\n", m->name,
                      m->type == KG_METRIC_COUNTER ? "counter"
                      : m->type == KG_METRIC_GAUGE ? "gauge"
                                                   : "histogram");
        for (size_t k = 0; k < n; k++) {
            kg_series *s = list[k];
            if (m->type != KG_METRIC_HISTOGRAM) {
                kg_buf_puts(out, m->name);
                write_labels(out, m, s, NULL);
                kg_metrics_format_float(num, sizeof num, bitsd(atomic_load(&s->value)));
                kg_buf_printf(out, " %s\n", num);
                continue;
            }
            /* read the buckets first and derive count from them so the exposition is self-consistent */
            uint64_t cum = 0;
            char le[64];
            for (size_t b = 0; b <= m->nbuckets; b++) {
                cum += atomic_load_explicit(&s->counts[b], memory_order_relaxed);
                if (b < m->nbuckets)
                    kg_metrics_format_float(le, sizeof le, m->buckets[b]);
                else
                    snprintf(le, sizeof le, "+Inf");
                kg_buf_printf(out, "%s_bucket", m->name);
                write_labels(out, m, s, le);
                kg_buf_printf(out, " %llu\n", (unsigned long long)cum);
            }
            kg_buf_printf(out, "%s_sum", m->name);
            write_labels(out, m, s, NULL);
            kg_metrics_format_float(num, sizeof num, bitsd(atomic_load(&s->sum)));
            kg_buf_printf(out, " %s\n", num);
            kg_buf_printf(out, "%s_count", m->name);
            write_labels(out, m, s, NULL);
            kg_buf_printf(out, " %llu\n", (unsigned long long)cum);
        }
    }
    free(list);
    pthread_mutex_unlock(&rw->mu);
}

/* ---- kube-apiserver metrics ---- */

/* upstream buckets with sub-millisecond ones in front (kgate answers most admission steps in microseconds) */
static const double k_request_buckets[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.025, 0.05, 0.1, 0.2,
                                           0.4,    0.6,     0.8,    1.0,   1.25,   1.5,   2,     3,    4,   5,
                                           6,      8,       10,     15,    20,     30,    45,    60};
static const double k_admission_buckets[] = {0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001,
                                             0.005,   0.025,    0.1,     0.5,    1.0,     2.5};

bool kg_metrics_apiserver_register(kg_metrics_registry *r, kg_apiserver_metrics *out)
{
    static const char *const request_total_labels[] = {"verb",        "dry_run", "group",     "version", "resource",
                                                       "subresource", "scope",   "component", "code",    NULL};
    static const char *const request_duration_labels[] = {"verb",        "dry_run", "group",     "version", "resource",
                                                          "subresource", "scope",   "component", NULL};
    static const char *const controller_labels[] = {"name", "type", "operation", "rejected", NULL};
    static const char *const step_labels[] = {"type", "operation", "rejected", NULL};
    memset(out, 0, sizeof *out);
    out->registry = r;
    out->request_total = kg_metrics_counter(
        r, "apiserver_request_total",
        "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, "
        "component, and HTTP response code.",
        request_total_labels);
    out->request_duration = kg_metrics_histogram(
        r, "apiserver_request_duration_seconds",
        "Response latency distribution in seconds for each verb, dry run value, group, version, resource, "
        "subresource, scope and component.",
        request_duration_labels, k_request_buckets, sizeof k_request_buckets / sizeof k_request_buckets[0]);
    out->admission_controller_duration = kg_metrics_histogram(
        r, "apiserver_admission_controller_admission_duration_seconds",
        "Admission controller latency histogram in seconds, identified by name and broken out for each operation and "
        "API resource and type (validate or admit).",
        controller_labels, k_admission_buckets, sizeof k_admission_buckets / sizeof k_admission_buckets[0]);
    out->admission_step_duration = kg_metrics_histogram(
        r, "apiserver_admission_step_admission_duration_seconds",
        "Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step "
        "type (validate or admit).",
        step_labels, k_admission_buckets, sizeof k_admission_buckets / sizeof k_admission_buckets[0]);
    return out->request_total && out->request_duration && out->admission_controller_duration &&
           out->admission_step_duration;
}

static kg_apiserver_metrics g_apiserver;
static pthread_once_t g_apiserver_once = PTHREAD_ONCE_INIT;

static void apiserver_init(void)
{
    kg_metrics_apiserver_register(kg_metrics_registry_new(), &g_apiserver);
}

const kg_apiserver_metrics *kg_metrics_apiserver(void)
{
    pthread_once(&g_apiserver_once, apiserver_init);
    return &g_apiserver;
}

double kg_metrics_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
