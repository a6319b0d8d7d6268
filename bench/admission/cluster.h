/* Shared by the admission benchmarks: the cluster state they admit pods against, the pod, and the policies of
 * issue 14's benchmark. */
#ifndef KG_BENCH_ADMISSION_CLUSTER_H
#define KG_BENCH_ADMISSION_CLUSTER_H

#include "admission/chain.h"
#include "admission/memcluster.h"

/* A typical pod create in ns-7. */
extern const char *const BENCH_POD;

/* 50 namespaces labelled pod-security.kubernetes.io/enforce=baseline (so PodSecurity evaluates the pod), each with a
 * LimitRange, a ResourceQuota, a default ServiceAccount and a ConfigMap "limits" (the policies' param); two
 * PriorityClasses and a default StorageClass. */
kg_admission_memcluster *bench_cluster_new(void);
void bench_put(kg_admission_memcluster *m, const char *resource, const char *json);

/* Install (or replace, with resourceVersion rv) policy p-<i> and its Deny binding b-<i>: 2 validations each on pod
 * creates; p-0 and p-1 take the ConfigMap param, p-2 has 3 variables; limit: the name length bound of the others
 * (changing it makes a real change). */
void bench_put_policy(kg_admission_memcluster *m, int i, int limit, int rv);
/* The same objects stored under other resource names (that no plugin watches: the harness' own cost); bindings
 * NULL: the policy only. */
void bench_put_policy_as(kg_admission_memcluster *m, int i, int limit, int rv, const char *policies,
                         const char *bindings);
void bench_remove_policy(kg_admission_memcluster *m, int i);

/* Admit the pod (dry-run) through chain for at least secs; ns and CPU ns per admission. */
void bench_admit_loop(const kg_admission_chain *chain, double secs, double *ns_per_pod, double *cpu_ns_per_pod,
                      long *iterations, long *rejected);

double bench_now(void);
double bench_cpu_now(void);

#endif
