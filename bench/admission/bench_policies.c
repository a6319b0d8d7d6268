/* ValidatingAdmissionPolicy costs (issue 14's benchmarks), in-process over the cluster of cluster.h:
 *
 * (a) pod admission through the default chain with the 10 matching policies of cluster.h (20 validations, 2 policies
 *     with params, 3 variables) against the same chain with no policy, in the same run: rounds alternate the two
 *     (the policies installed before a "with" round and removed after it, through the plugin's subscriptions), and
 *     the medians are compared; goal: at most 5 µs added per pod;
 * (b) recompilation after a change of 100 policies: every policy replaced by a changed one (a new resourceVersion
 *     and a different bound), each change recompiled by the plugin and published as a new snapshot, as a policy
 *     update is in kgate serve: the whole (recompile_through_plugin_us), the harness' own share (the same writes to
 *     resources nothing watches: JSON parse and memcluster store) and the difference, the plugin's work
 *     (recompile_plugin_work_us: compile, and one snapshot publication per change, policies and bindings; and
 *     recompile_policies_only_plugin_work_us: the 100 policies changed, their bindings not); and the
 *     compilation alone (kg_vap_policy_compile in run mode, as the plugin runs it); goal: at most 1 ms for 100.
 *
 * Usage: bench_policies [seconds-per-round [rounds]]; prints one JSON object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/policy/policy.h"
#include "admission/registry.h"
#include "cluster.h"

#define NPOL 10
#define NRECOMPILE 100

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 0.5;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (rounds < 1 || rounds > 50)
        rounds = 5;
    kg_admission_memcluster *m = bench_cluster_new();
    kg_admission_options opts = {0};
    kg_error err;
    static kg_admission_services svc;
    svc = kg_admission_memcluster_services(m, NULL);
    kg_admission_chain *chain = kg_admission_chain_new(&opts, &svc, NULL, &err);
    if (!chain) {
        fprintf(stderr, "bench_policies: %s\n", err.msg);
        return 1;
    }
    double base[50], with[50], base_cpu[50], with_cpu[50];
    long iters, rejected, rejected_with = 0;
    bench_admit_loop(chain, 0.1, &base[0], &base_cpu[0], &iters, &rejected); /* warm-up; loads the plugin */
    int rv = 1;
    for (int r = 0; r < rounds; r++) {
        bench_admit_loop(chain, secs, &base[r], &base_cpu[r], &iters, &rejected);
        for (int i = 0; i < NPOL; i++)
            bench_put_policy(m, i, 64, rv);
        rv++;
        bench_admit_loop(chain, secs, &with[r], &with_cpu[r], &iters, &rejected);
        rejected_with += rejected;
        for (int i = 0; i < NPOL; i++)
            bench_remove_policy(m, i);
    }
    double b = median(base, rounds), w = median(with, rounds);
    double bc = median(base_cpu, rounds), wc = median(with_cpu, rounds);

    /* (b) in CPU time of this thread (the plugin compiles on the writer's thread in a memcluster): a shared machine's
     * descheduling is not the code's cost */
    /* through the plugin: 100 policies installed, then each replaced by a changed one */
    for (int i = 0; i < NRECOMPILE; i++)
        bench_put_policy(m, i, 64, rv);
    rv++;
    double plugin_runs[20], compile_runs[20];
    for (int r = 0; r < 20; r++) {
        double t0 = bench_cpu_now();
        for (int i = 0; i < NRECOMPILE; i++)
            bench_put_policy(m, i, 64 + (r % 2 ? 1 : 2), rv); /* policy and binding: both recompiled */
        rv++;
        plugin_runs[r] = (bench_cpu_now() - t0) * 1e6;
    }
    /* policies only (their bindings unchanged) */
    double policy_runs[20], policy_harness_runs[20];
    for (int r = 0; r < 20; r++) {
        double t0 = bench_cpu_now();
        for (int i = 0; i < NRECOMPILE; i++)
            bench_put_policy_as(m, i, 64 + (r % 2 ? 1 : 2), rv, "validatingadmissionpolicies", NULL);
        rv++;
        policy_runs[r] = (bench_cpu_now() - t0) * 1e6;
        t0 = bench_cpu_now();
        for (int i = 0; i < NRECOMPILE; i++)
            bench_put_policy_as(m, i, 64 + (r % 2 ? 1 : 2), rv, "unwatched-policies", NULL);
        rv++;
        policy_harness_runs[r] = (bench_cpu_now() - t0) * 1e6;
    }
    /* the harness' share: the same writes to resources nothing watches */
    double harness_runs[20];
    for (int r = 0; r < 20; r++) {
        double t0 = bench_cpu_now();
        for (int i = 0; i < NRECOMPILE; i++)
            bench_put_policy_as(m, i, 64 + (r % 2 ? 1 : 2), rv, "unwatched-policies", "unwatched-bindings");
        rv++;
        harness_runs[r] = (bench_cpu_now() - t0) * 1e6;
    }
    /* the compilation alone */
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *objs[NRECOMPILE];
    for (int i = 0; i < NRECOMPILE; i++) {
        char name[32];
        snprintf(name, sizeof name, "p-%d", i);
        objs[i] = kg_admission_get(&svc, &a, "validatingadmissionpolicies", "", name, 0, &err);
        if (!objs[i]) {
            fprintf(stderr, "bench_policies: %s\n", err.msg);
            return 1;
        }
    }
    for (int r = 0; r < 20; r++) {
        double t0 = bench_cpu_now();
        for (int i = 0; i < NRECOMPILE; i++)
            kg_vap_policy_unref(kg_vap_policy_compile(objs[i], NULL, &svc, NULL, NULL));
        compile_runs[r] = (bench_cpu_now() - t0) * 1e6;
    }
    double plugin_us = median(plugin_runs, 20), compile_us = median(compile_runs, 20);
    double harness_us = median(harness_runs, 20);
    double policy_us = median(policy_runs, 20) - median(policy_harness_runs, 20);
    printf("{\"policies\":%d,\"ns_per_pod_without_policies\":%.0f,\"ns_per_pod_with_policies\":%.0f,"
           "\"added_ns_per_pod\":%.0f,\"cpu_ns_per_pod_without_policies\":%.0f,\"cpu_ns_per_pod_with_policies\":%.0f,"
           "\"added_cpu_ns_per_pod\":%.0f,\"goal_added_ns_per_pod\":5000,\"rejected_with_policies\":%ld,"
           "\"recompile_policies\":%d,\"recompile_through_plugin_us\":%.1f,\"harness_writes_us\":%.1f,"
           "\"recompile_plugin_work_us\":%.1f,\"recompile_policies_only_plugin_work_us\":%.1f,\"compile_only_us\":%.1f,"
           "\"goal_recompile_us\":1000,\"rounds\":%d,\"seconds_per_round\":%.2f}\n",
           NPOL, b, w, w - b, bc, wc, wc - bc, rejected_with, NRECOMPILE, plugin_us, harness_us, plugin_us - harness_us,
           policy_us, compile_us, rounds, secs);
    kg_arena_free(&a);
    kg_admission_chain_free(chain);
    kg_admission_memcluster_free(m);
    return 0;
}
