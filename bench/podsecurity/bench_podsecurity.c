/* PodSecurity cost, in-process: a typical pod (one init container, three containers, four volumes) evaluated against
 * restricted:latest — compliant (the common case: no text is built) and violating (reasons and details built) —
 * and the PodSecurity plugin alone in a one-plugin chain for a pod CREATE in an enforce=restricted namespace
 * (namespace lookup, labels, enforce + audit + warn). Prints ns per operation as JSON (thread CPU time).
 * Usage: bench_podsecurity [seconds per figure] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admission/chain.h"
#include "admission/memcluster.h"
#include "admission/plugins/podsecurity/podsecurity.h"
#include "admission/registry.h"

#define SC "\"securityContext\":{\"allowPrivilegeEscalation\":false,\"capabilities\":{\"drop\":[\"ALL\"]}}"
#define CONTAINER(n) "{\"name\":\"" n "\",\"image\":\"registry.example.com/" n ":1.0\"," SC "}"

static const char *POD =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-0\",\"namespace\":\"team\",\"labels\":{"
    "\"app\":\"web\"}},\"spec\":{\"securityContext\":{\"runAsNonRoot\":true,\"runAsUser\":1000,\"seccompProfile\":{"
    "\"type\":\"RuntimeDefault\"}},\"initContainers\":[" CONTAINER("init") "],\"containers\":[" CONTAINER(
        "app") "," CONTAINER("proxy") "," CONTAINER("logs") "],\"volumes\":[{\"name\":\"config\",\"configMap\":{"
                                                            "\"name\":\"web\"}},{\"name\":\"tls\",\"secret\":{"
                                                            "\"secretName\":\"web-tls\"}},{\"name\":\"cache\","
                                                            "\"emptyDir\":{}},{\"name\":\"token\",\"projected\":{"
                                                            "\"sources\":[]}}]}}";

static const char *BAD_POD =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-0\"},\"spec\":{\"hostNetwork\":true,"
    "\"initContainers\":[{\"name\":\"init\",\"image\":\"x\"}],\"containers\":[{\"name\":\"app\",\"image\":\"x\","
    "\"securityContext\":{\"privileged\":true}},{\"name\":\"proxy\",\"image\":\"x\"},{\"name\":\"logs\",\"image\":"
    "\"x\"}],\"volumes\":[{\"name\":\"host\",\"hostPath\":{\"path\":\"/\"}}]}}";

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static kg_json *parse(kg_arena *a, const char *text)
{
    kg_error err;
    kg_json *j = kg_json_parse(a, text, strlen(text), &err);
    if (!j) {
        fprintf(stderr, "bench_podsecurity: %s\n", err.msg);
        exit(1);
    }
    return j;
}

/* ns per ps_evaluate of pod at restricted:latest (pod view included); *allowed gets the result */
static double bench_evaluate(const ps_evaluator *ev, const kg_json *pod, double secs, bool *allowed, bool detail)
{
    kg_arena a;
    kg_arena_init(&a, 64 * 1024);
    long iters = 0;
    double c0 = cpu_now(), el;
    ps_lv lv = {PS_RESTRICTED, {true, 0}};
    do {
        for (int i = 0; i < 1000; i++) {
            ps_pod view;
            ps_pod_view(&a, kg_json_get(pod, "metadata"), kg_json_get(pod, "spec"), &view);
            ps_agg r;
            ps_evaluate(ev, &a, lv, &view, &r);
            *allowed = r.allowed;
            if (detail && !r.allowed)
                ps_forbidden_detail(&a, &r);
            kg_arena_reset(&a);
        }
        iters += 1000;
        el = cpu_now() - c0;
    } while (el < secs);
    kg_arena_free(&a);
    return el / iters * 1e9;
}

static double bench_plugin(const kg_json *pod, double secs)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_arena a;
    kg_arena_init(&a, 64 * 1024);
    kg_error err;
    kg_admission_memcluster_put(m, "namespaces",
                              parse(&a, "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team\","
                                        "\"labels\":{\"pod-security.kubernetes.io/enforce\":\"restricted\"}}}"),
                              0, &err);
    static kg_admission_services svc;
    svc = kg_admission_memcluster_services(m, NULL);
    const kg_admission_plugin *ps[] = {&kg_admission_plugin_pod_security};
    kg_admission_chain *chain = kg_admission_chain_new_from(ps, 1, NULL, &svc, NULL, &err);
    if (!chain) {
        fprintf(stderr, "bench_podsecurity: %s\n", err.msg);
        exit(1);
    }
    kg_arena_reset(&a);
    long iters = 0, rejected = 0;
    double c0 = cpu_now(), el;
    do {
        for (int i = 0; i < 1000; i++) {
            kg_warnings w;
            kg_warnings_init(&w, &a);
            kg_admission_attributes at;
            kg_admission_attrs_init(&at, &a);
            at.operation = KG_ADMISSION_CREATE;
            at.kind = (kg_gvk){"", "v1", "Pod"};
            at.resource = (kg_gvr){"", "v1", "pods"};
            at.name = "web-0";
            at.ns = "team";
            at.object = (kg_json *)pod; /* validating only: never edited */
            at.user.name = "alice";
            at.warnings = &w;
            if (kg_admission_chain_validate(chain, &at))
                rejected++;
            kg_arena_reset(&a);
        }
        iters += 1000;
        el = cpu_now() - c0;
    } while (el < secs);
    if (rejected) {
        fprintf(stderr, "bench_podsecurity: the typical pod was rejected\n");
        exit(1);
    }
    kg_admission_chain_free(chain);
    kg_admission_memcluster_free(m);
    kg_arena_free(&a);
    return el / iters * 1e9;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 1.0;
    static ps_evaluator ev;
    size_t n;
    const ps_check *checks = ps_default_checks(&n);
    kg_error err;
    if (!ps_evaluator_init(&ev, checks, n, &err)) {
        fprintf(stderr, "bench_podsecurity: %s\n", err.msg);
        return 1;
    }
    kg_arena keep;
    kg_arena_init(&keep, 0);
    kg_json *pod = parse(&keep, POD), *bad = parse(&keep, BAD_POD);
    bool ok_allowed = false, bad_allowed = true;
    double eval_ns = bench_evaluate(&ev, pod, secs, &ok_allowed, false);
    double bad_ns = bench_evaluate(&ev, bad, secs, &bad_allowed, true);
    double plugin_ns = bench_plugin(pod, secs);
    if (!ok_allowed || bad_allowed) {
        fprintf(stderr, "bench_podsecurity: unexpected evaluation results\n");
        return 1;
    }
    printf("{\"evaluate_ns\":%.0f,\"evaluate_violating_with_detail_ns\":%.0f,\"plugin_pod_create_ns\":%.0f}\n", eval_ns,
           bad_ns, plugin_ns);
    kg_arena_free(&keep);
    return 0;
}
