/* Admission of a typical pod create through the whole default chain, in-process (no HTTP, no store), with
 * populated cluster state (cluster.h). Prints ns per admission and the chain it ran.
 * Usage: bench_admission [seconds [plugins-to-disable [policies]]]
 * policies: install that many matching ValidatingAdmissionPolicies with Deny bindings (2 validations each; the first
 * two take a ConfigMap param, the third has 3 variables), as issue 14's benchmark describes for 10; bench_policies
 * measures them against the chain without policies in the same run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/registry.h"
#include "cluster.h"

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 2.0;
    kg_admission_memcluster *m = bench_cluster_new();
    int npolicies = argc > 3 ? atoi(argv[3]) : 0;
    for (int i = 0; i < npolicies; i++)
        bench_put_policy(m, i, 64, 1);
    kg_admission_options opts = {0}; /* the v1.33 default set (the implemented part of it) */
    if (argc > 2 && *argv[2])
        opts.disable_plugins = argv[2]; /* per-plugin cost: bench_admission SECONDS Plugin1,Plugin2 */
    kg_error err;
    static kg_admission_services svc;
    svc = kg_admission_memcluster_services(m, NULL);
    kg_admission_chain *chain = kg_admission_chain_new(&opts, &svc, NULL, &err);
    if (!chain) {
        fprintf(stderr, "bench_admission: %s\n", err.msg);
        return 1;
    }
    double ns, cpu_ns;
    long iters, rejected;
    bench_admit_loop(chain, secs, &ns, &cpu_ns, &iters, &rejected);
    printf(
        "{\"ns_per_pod\":%.0f,\"cpu_ns_per_pod\":%.0f,\"iterations\":%ld,\"rejected\":%ld,\"plugins\":%zu,\"chain\":\"",
        ns, cpu_ns, iters, rejected, kg_admission_chain_len(chain));
    for (size_t i = 0; i < kg_admission_chain_len(chain); i++)
        printf("%s%s", i ? "," : "", kg_admission_chain_name(chain, i));
    printf("\",\"policies\":%d,\"goal_ns_per_pod\":5000}\n", npolicies);
    kg_admission_chain_free(chain);
    kg_admission_memcluster_free(m);
    return 0;
}
