/* Admission webhook benchmarks, in-process (issue 13): a typical pod create through the whole default admission chain
 * over an in-memory cluster, calling bench_hookd (bench/webhook/hookd.c) over HTTPS keep-alive.
 *
 *   dispatch: the chain with no webhook (base), the chain with one no-op validating webhook (hook), and the raw
 *             keep-alive round trip of the same AdmissionReview body to the same webhook through the same client
 *             library (raw), interleaved call by call in one run; per round the median of each, overhead =
 *             hook - base - raw, median over rounds (goal <= 50 us); also in CPU time of the calling thread.
 *   parallel: the chain with 4 validating webhooks that each answer after 10 ms vs with one (goal <= 1.2x).
 *
 * Prints one JSON object. Usage: bench_webhook HOOK_URL CA_FILE [ROUNDS [SECONDS_PER_PHASE]]
 * (HOOK_URL: https://127.0.0.1:PORT) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admission/chain.h"
#include "admission/memcluster.h"
#include "admission/registry.h"
#include "admission/webhook/call.h"
#include "base/base64.h"
#include "client/client.h"

static const char *POD =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-0\",\"namespace\":\"ns-7\",\"labels\":{"
    "\"app\":\"web\",\"tier\":\"frontend\"}},\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":"
    "\"registry.example.com/web:1.2.3\",\"ports\":[{\"containerPort\":8080,\"protocol\":\"TCP\"}],\"resources\":{"
    "\"requests\":{\"cpu\":\"250m\",\"memory\":\"128Mi\"},\"limits\":{\"cpu\":\"500m\",\"memory\":\"256Mi\"}},"
    "\"imagePullPolicy\":\"IfNotPresent\",\"terminationMessagePath\":\"/dev/termination-log\","
    "\"terminationMessagePolicy\":\"File\"},{\"name\":\"sidecar\",\"image\":\"registry.example.com/proxy:1.0\","
    "\"resources\":{}}],\"restartPolicy\":\"Always\",\"terminationGracePeriodSeconds\":30,\"dnsPolicy\":"
    "\"ClusterFirst\",\"schedulerName\":\"default-scheduler\",\"securityContext\":{},\"enableServiceLinks\":true}}";

static const char *hook_url, *ca_b64;
static char *ca_pem;
static kg_json *pod_template;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of this thread: time spent descheduled on a shared machine is not the code's cost */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void put(kg_admission_memcluster *m, const char *resource, const char *json)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err = {0};
    kg_json *o = kg_json_parse(&a, json, strlen(json), &err);
    if (!o || !kg_admission_memcluster_put(m, resource, o, 0, &err)) {
        fprintf(stderr, "bench_webhook: cannot load %s: %s\n", resource, err.msg);
        exit(1);
    }
    kg_arena_free(&a);
}

typedef struct setup {
    kg_admission_memcluster *m;
    kg_admission_services svc;
    kg_admission_chain *chain;
} setup;

/* The default chain over a cluster with namespace ns-7 and n validating webhooks at path. */
static void setup_init(setup *s, int n, const char *path)
{
    s->m = kg_admission_memcluster_new();
    put(s->m, "namespaces",
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"ns-7\"},\"status\":{\"phase\":"
        "\"Active\"}}");
    put(s->m, "serviceaccounts",
        "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"default\",\"namespace\":\"ns-7\"}"
        "}");
    if (n) {
        size_t cap = 4096 + (size_t)n * (1024 + strlen(ca_b64));
        char *cfg = malloc(cap);
        size_t off = (size_t)snprintf(cfg, cap,
                                      "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
                                      "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"bench\"},"
                                      "\"webhooks\":[");
        for (int i = 0; i < n; i++)
            off += (size_t)snprintf(cfg + off, cap - off,
                                    "%s{\"name\":\"h%d.bench.example.com\",\"clientConfig\":{\"url\":\"%s%s\","
                                    "\"caBundle\":\"%s\"},\"rules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":[\"\"],"
                                    "\"apiVersions\":[\"v1\"],\"resources\":[\"pods\"]}],\"sideEffects\":\"None\","
                                    "\"failurePolicy\":\"Fail\",\"timeoutSeconds\":10,\"admissionReviewVersions\":"
                                    "[\"v1\"]}",
                                    i ? "," : "", i, hook_url, path, ca_b64);
        snprintf(cfg + off, cap - off, "]}");
        put(s->m, "validatingwebhookconfigurations", cfg);
        free(cfg);
    }
    s->svc = kg_admission_memcluster_services(s->m, NULL);
    kg_admission_options opts = {0};
    kg_error err = {0};
    s->chain = kg_admission_chain_new(&opts, &s->svc, NULL, &err);
    if (!s->chain) {
        fprintf(stderr, "bench_webhook: %s\n", err.msg);
        exit(1);
    }
}

static void setup_free(setup *s)
{
    kg_admission_chain_free(s->chain);
    kg_admission_memcluster_free(s->m);
}

static void pod_attrs(kg_admission_attributes *at, kg_arena *a)
{
    kg_admission_attrs_init(at, a);
    at->operation = KG_ADMISSION_CREATE;
    at->kind = (kg_gvk){"", "v1", "Pod"};
    at->resource = (kg_gvr){"", "v1", "pods"};
    at->request_kind = at->kind;
    at->request_resource = at->resource;
    at->name = "web-0";
    at->ns = "ns-7";
    at->uid = "bench";
    at->object = kg_json_clone(a, pod_template);
    at->user.name = "alice";
    at->dry_run = true; /* no side effects: every iteration admits the same pod (the hooks say sideEffects None) */
}

/* One pod create through s's chain; exits on a rejection (the benchmark would measure nothing). */
static void admit_once(setup *s, kg_arena *a)
{
    kg_admission_attributes at;
    pod_attrs(&at, a);
    kg_status *st = kg_admission_chain_run(s->chain, &at);
    if (st) {
        fprintf(stderr, "bench_webhook: the pod was rejected: %s\n", st->message);
        exit(1);
    }
    kg_arena_reset(a);
}

/* ns per pod create through s for about secs (*cpu: this thread's CPU ns per pod) */
static double time_chain(setup *s, double secs, double *cpu)
{
    kg_arena a;
    kg_arena_init(&a, 64 * 1024);
    long n = 0;
    double t0 = now(), c0 = cpu_now(), el;
    do {
        for (int i = 0; i < 50; i++, n++)
            admit_once(s, &a);
        el = now() - t0;
    } while (el < secs);
    if (cpu)
        *cpu = (cpu_now() - c0) / (double)n * 1e9;
    kg_arena_free(&a);
    return el / (double)n * 1e9;
}

/* ns per raw POST of body to the webhook, keep-alive, same client library (*cpu: CPU ns per call) */
static double time_raw(kg_client *c, const char *body, size_t len, double secs, double *cpu)
{
    kg_arena a;
    kg_arena_init(&a, 16 * 1024);
    static const char *const headers[] = {"Content-Type: application/json", "Accept: application/json"};
    kg_client_request rq = {.method = "POST",
                            .path = "/allow?timeout=10s",
                            .headers = headers,
                            .nheaders = 2,
                            .body = body,
                            .body_len = len};
    long n = 0;
    double t0 = now(), c0 = cpu_now(), el;
    do {
        for (int i = 0; i < 50; i++, n++) {
            kg_client_response resp;
            kg_error err = {0};
            if (kg_client_do(c, &a, &rq, &resp, &err) != KG_CLIENT_OK) {
                fprintf(stderr, "bench_webhook: raw call failed: %s\n", err.msg);
                exit(1);
            }
            kg_arena_reset(&a);
        }
        el = now() - t0;
    } while (el < secs);
    if (cpu)
        *cpu = (cpu_now() - c0) / (double)n * 1e9;
    kg_arena_free(&a);
    return el / (double)n * 1e9;
}

/* one raw POST of body to the webhook (keep-alive) */
static void time_raw_once(kg_client *c, const char *body, size_t len, kg_arena *a)
{
    static const char *const headers[] = {"Content-Type: application/json", "Accept: application/json"};
    kg_client_request rq = {.method = "POST",
                            .path = "/allow?timeout=10s",
                            .headers = headers,
                            .nheaders = 2,
                            .body = body,
                            .body_len = len};
    kg_client_response resp;
    kg_error err = {0};
    if (kg_client_do(c, a, &rq, &resp, &err) != KG_CLIENT_OK) {
        fprintf(stderr, "bench_webhook: raw call failed: %s\n", err.msg);
        exit(1);
    }
    kg_arena_reset(a);
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double median(double *v, int n)
{
    double *c = malloc((size_t)n * sizeof *c);
    memcpy(c, v, (size_t)n * sizeof *c);
    qsort(c, (size_t)n, sizeof *c, cmp);
    double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}

static void print_arr(const char *name, const double *v, int n, double scale)
{
    printf("\"%s\":[", name);
    for (int i = 0; i < n; i++)
        printf("%s%.1f", i ? "," : "", v[i] / scale);
    printf("],");
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_webhook HOOK_URL CA_FILE [ROUNDS [SECONDS_PER_PHASE]]\n");
        return 2;
    }
    hook_url = argv[1];
    int rounds = argc > 3 ? atoi(argv[3]) : 7;
    double secs = argc > 4 ? atof(argv[4]) : 0.5;
    if (rounds < 1 || rounds > 100)
        rounds = 7;
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
        fprintf(stderr, "bench_webhook: cannot read %s\n", argv[2]);
        return 1;
    }
    ca_pem = calloc(1, 1 << 16);
    size_t ca_len = fread(ca_pem, 1, (1 << 16) - 1, f);
    fclose(f);
    kg_arena keep;
    kg_arena_init(&keep, 0);
    ca_b64 = kg_base64_encode(&keep, ca_pem, ca_len, 0, NULL);
    kg_error err = {0};
    pod_template = kg_json_parse(&keep, POD, strlen(POD), &err);

    /* ---- dispatch overhead ---- */
    setup base, one;
    setup_init(&base, 0, "");
    setup_init(&one, 1, "/allow");
    /* the body the plugin sends (same attributes, a fixed uid) for the raw round trip */
    kg_admission_attributes at;
    pod_attrs(&at, &keep);
    kg_match_invocation inv = {.resource = at.resource, .kind = at.kind};
    kg_json *review = kg_webhook_review_request(&keep, &at, &inv, "v1", "00000000-0000-4000-8000-000000000000");
    size_t body_len = 0;
    const char *body = kg_json_to_string(&keep, review, 0, &body_len);
    kg_client_config cc = {.server = hook_url,
                           .ca_pem = ca_pem,
                           .ca_len = ca_len,
                           .timeout_ms = 10000,
                           .max_body = 3u << 20,
                           .user_agent = "kgate-admission"};
    kg_client *raw = kg_client_new(&cc, &err);
    double *tb = calloc((size_t)rounds, sizeof(double)), *th = calloc((size_t)rounds, sizeof(double)),
           *tr = calloc((size_t)rounds, sizeof(double)), *ov = calloc((size_t)rounds, sizeof(double));
    /* interleaved one by one (base create, raw call, create with the hook), each timed: a busy shared machine
     * disturbs the three alike, and per-call medians ignore the calls that were descheduled */
    int per = (int)(secs * 2000) > 200 ? (int)(secs * 2000) : 200;
    double *lb = malloc((size_t)per * sizeof(double)), *lr = malloc((size_t)per * sizeof(double)),
           *lh = malloc((size_t)per * sizeof(double));
    double *cb = calloc((size_t)rounds, sizeof(double)), *ch = calloc((size_t)rounds, sizeof(double)),
           *cr = calloc((size_t)rounds, sizeof(double)), *cov = calloc((size_t)rounds, sizeof(double));
    time_chain(&base, 0.2, NULL), time_chain(&one, 0.2, NULL), time_raw(raw, body, body_len, 0.2, NULL); /* warm up */
    kg_arena la;
    kg_arena_init(&la, 64 * 1024);
    for (int r = 0; r < rounds; r++) {
        double cpu_b = 0, cpu_r = 0, cpu_h = 0;
        for (int i = 0; i < per; i++) {
            double t0 = now(), c0 = cpu_now();
            admit_once(&base, &la);
            double t1 = now(), c1 = cpu_now();
            time_raw_once(raw, body, body_len, &la);
            double t2 = now(), c2 = cpu_now();
            admit_once(&one, &la);
            double t3 = now(), c3 = cpu_now();
            lb[i] = t1 - t0, lr[i] = t2 - t1, lh[i] = t3 - t2;
            cpu_b += c1 - c0, cpu_r += c2 - c1, cpu_h += c3 - c2;
        }
        tb[r] = median(lb, per) * 1e9, tr[r] = median(lr, per) * 1e9, th[r] = median(lh, per) * 1e9;
        ov[r] = th[r] - tb[r] - tr[r];
        cb[r] = cpu_b / per * 1e9, cr[r] = cpu_r / per * 1e9, ch[r] = cpu_h / per * 1e9;
        cov[r] = ch[r] - cb[r] - cr[r];
    }
    kg_arena_free(&la);
    free(lb), free(lr), free(lh);
    kg_client_free(raw);
    setup_free(&base);
    setup_free(&one);

    /* ---- 4 parallel 10 ms webhooks vs 1 ---- */
    setup s1, s4;
    setup_init(&s1, 1, "/sleep10");
    setup_init(&s4, 4, "/sleep10");
    double *l1 = calloc((size_t)rounds, sizeof(double)), *l4 = calloc((size_t)rounds, sizeof(double));
    double *ratio = calloc((size_t)rounds, sizeof(double));
    time_chain(&s1, 0.1, NULL), time_chain(&s4, 0.1, NULL);
    for (int r = 0; r < rounds; r++) {
        l1[r] = time_chain(&s1, secs, NULL);
        l4[r] = time_chain(&s4, secs, NULL);
        ratio[r] = l4[r] / l1[r];
    }
    setup_free(&s1);
    setup_free(&s4);

    printf("{\"rounds\":%d,\"seconds_per_phase\":%.2f,\"body_bytes\":%zu,", rounds, secs, body_len);
    /* wall clock: per round the medians of the interleaved calls, then the median over rounds; CPU: this thread's
     * CPU time per call (the webhook server's CPU is not in it) */
    printf("\"base_us\":%.2f,\"raw_roundtrip_us\":%.2f,\"with_hook_us\":%.2f,\"dispatch_overhead_us\":%.2f,",
           median(tb, rounds) / 1e3, median(tr, rounds) / 1e3, median(th, rounds) / 1e3, median(ov, rounds) / 1e3);
    printf("\"base_cpu_us\":%.2f,\"raw_roundtrip_cpu_us\":%.2f,\"with_hook_cpu_us\":%.2f,"
           "\"dispatch_overhead_cpu_us\":%.2f,",
           median(cb, rounds) / 1e3, median(cr, rounds) / 1e3, median(ch, rounds) / 1e3, median(cov, rounds) / 1e3);
    print_arr("runs_base_us", tb, rounds, 1e3);
    print_arr("runs_raw_roundtrip_us", tr, rounds, 1e3);
    print_arr("runs_with_hook_us", th, rounds, 1e3);
    print_arr("runs_dispatch_overhead_us", ov, rounds, 1e3);
    print_arr("runs_dispatch_overhead_cpu_us", cov, rounds, 1e3);
    printf("\"goal_dispatch_overhead_us\":50,");
    printf("\"one_10ms_hook_ms\":%.3f,\"four_10ms_hooks_ms\":%.3f,\"parallel_ratio\":%.3f,", median(l1, rounds) / 1e6,
           median(l4, rounds) / 1e6, median(ratio, rounds));
    print_arr("runs_parallel_ratio_x1000", ratio, rounds, 1e-3);
    printf("\"goal_parallel_ratio\":1.2}\n");
    free(cb), free(ch), free(cr), free(cov);
    free(tb), free(th), free(tr), free(ov), free(l1), free(l4), free(ratio), free(ca_pem);
    kg_arena_free(&keep);
    return 0;
}
