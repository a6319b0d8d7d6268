/* policy/v1: PodDisruptionBudget. */
#include "api/schema_data.h"

#define TM ">io.k8s.apimachinery.pkg.apis.meta.v1._TypeMeta"
#define META                                                                                                           \
    ".metadata io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta |Standard object's metadata. More info: "               \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"

const char *const kg_schema_data_policy[] = {
    "=io.k8s.api.policy.v1",
    "@PodDisruptionBudget PodDisruptionBudget is an object to define the max disruption that can be caused to a "
    "collection of pods",
    TM,
    META,
    ".spec PodDisruptionBudgetSpec |Specification of the desired behavior of the PodDisruptionBudget.",
    ".status PodDisruptionBudgetStatus |Most recently observed status of the PodDisruptionBudget.",
    "@PodDisruptionBudgetSpec PodDisruptionBudgetSpec is a description of a PodDisruptionBudget.",
    ".maxUnavailable ios |An eviction is allowed if at most \"maxUnavailable\" pods selected by \"selector\" are "
    "unavailable after the eviction, i.e. even in absence of the evicted pod. For example, one can prevent all "
    "voluntary evictions by specifying 0. This is a mutually exclusive setting with \"minAvailable\".",
    ".minAvailable ios |An eviction is allowed if at least \"minAvailable\" pods selected by \"selector\" will still "
    "be available after the eviction, i.e. even in the absence of the evicted pod.  So for example you can prevent "
    "all voluntary evictions by specifying \"100%\".",
    ".selector io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector ps=replace |Label query over pods whose evictions "
    "are managed by the disruption budget. A null selector will match no pods, while an empty ({}) selector will "
    "select all pods within the namespace.",
    ".unhealthyPodEvictionPolicy s e=AlwaysAllow,IfHealthyBudget |UnhealthyPodEvictionPolicy defines the criteria "
    "for when unhealthy pods should be considered for eviction. Current implementation considers healthy pods, as "
    "pods that have status.conditions item with type=\"Ready\",status=\"True\".",
    "@PodDisruptionBudgetStatus PodDisruptionBudgetStatus represents information about the status of a "
    "PodDisruptionBudget. Status may trail the actual state of a system.",
    ".conditions []io.k8s.apimachinery.pkg.apis.meta.v1.Condition lt=map lk=type mk=type ps=merge |Conditions "
    "contain conditions for PDB. The disruption controller sets the DisruptionAllowed condition.",
    ".currentHealthy i32 ! |current number of healthy pods",
    ".desiredHealthy i32 ! |minimum desired number of healthy pods",
    ".disruptedPods {}io.k8s.apimachinery.pkg.apis.meta.v1.Time |DisruptedPods contains information about pods "
    "whose eviction was processed by the API server eviction subresource handler but has not yet been observed by "
    "the PodDisruptionBudget controller.",
    ".disruptionsAllowed i32 ! |Number of pod disruptions that are currently allowed.",
    ".expectedPods i32 ! |total number of pods counted by this disruption budget",
    ".observedGeneration i64 |Most recent generation observed when updating this PDB status. DisruptionsAllowed and "
    "other status information is valid only if observedGeneration equals to PDB's object generation.",
    NULL,
};
