/* core/v1 scheduling types (affinity, tolerations, topology spread), ObjectReference, topology selectors. */
#include "api/schema_data.h"

#define REQ_DESC(what)                                                                                                 \
    "If the " what " requirements specified by this field are not met at scheduling time, the pod will not be "        \
    "scheduled onto the node. If the " what " requirements specified by this field cease to be met at some point "     \
    "during pod execution (e.g. due to an update), the system may or may not try to eventually evict the pod from "    \
    "its node."
#define PREF_DESC(what)                                                                                                \
    "The scheduler will prefer to schedule pods to nodes that satisfy the " what " expressions specified by this "     \
    "field, but it may choose a node that violates one or more of the expressions. The node that is most preferred "   \
    "is the one with the greatest sum of weights."

const char *const kg_schema_data_core_misc[] = {
    "=io.k8s.api.core.v1",
    "@Affinity Affinity is a group of affinity scheduling rules.",
    ".nodeAffinity NodeAffinity |Describes node affinity scheduling rules for the pod.",
    ".podAffinity PodAffinity |Describes pod affinity scheduling rules (e.g. co-locate this pod in the same node, "
    "zone, etc. as some other pod(s)).",
    ".podAntiAffinity PodAntiAffinity |Describes pod anti-affinity scheduling rules (e.g. avoid putting this pod in "
    "the same node, zone, etc. as some other pod(s)).",
    "@NodeAffinity Node affinity is a group of node affinity scheduling rules.",
    ".preferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm lt=atomic |" PREF_DESC("affinity"),
    ".requiredDuringSchedulingIgnoredDuringExecution NodeSelector |" REQ_DESC("affinity"),
    "@NodeSelector A node selector represents the union of the results of one or more label queries over a set of "
    "nodes; that is, it represents the OR of the selectors represented by the node selector terms.",
    ".nodeSelectorTerms []NodeSelectorTerm ! lt=atomic |Required. A list of node selector terms. The terms are ORed.",
    "@NodeSelectorTerm A null or empty node selector term matches no objects. The requirements of them are ANDed. The "
    "TopologySelectorTerm type implements a subset of the NodeSelectorTerm.",
    ".matchExpressions []NodeSelectorRequirement lt=atomic |A list of node selector requirements by node's labels.",
    ".matchFields []NodeSelectorRequirement lt=atomic |A list of node selector requirements by node's fields.",
    "@NodeSelectorRequirement A node selector requirement is a selector that contains values, a key, and an operator "
    "that relates the key and values.",
    ".key s ! |The label key that the selector applies to.",
    ".operator s ! e=DoesNotExist,Exists,Gt,In,Lt,NotIn |Represents a key's relationship to a set of values. Valid "
    "operators are In, NotIn, Exists, DoesNotExist. Gt, and Lt.",
    ".values []s lt=atomic |An array of string values. If the operator is In or NotIn, the values array must be "
    "non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. If the operator is Gt or "
    "Lt, the values array must have a single element, which will be interpreted as an integer.",
    "@PreferredSchedulingTerm An empty preferred scheduling term matches all objects with implicit weight 0 (i.e. "
    "it's a no-op). A null preferred scheduling term matches no objects (i.e. is also a no-op).",
    ".preference NodeSelectorTerm ! |A node selector term, associated with the corresponding weight.",
    ".weight i32 ! |Weight associated with matching the corresponding nodeSelectorTerm, in the range 1-100.",
    "@PodAffinity Pod affinity is a group of inter pod affinity scheduling rules.",
    ".preferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm lt=atomic |" PREF_DESC("affinity"),
    ".requiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm lt=atomic |" REQ_DESC(
        "affinity") " When there are multiple elements, the lists of nodes corresponding to each podAffinityTerm are "
                    "intersected.",
    "@PodAntiAffinity Pod anti affinity is a group of inter pod anti affinity scheduling rules.",
    ".preferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm lt=atomic |" PREF_DESC("anti-affinity"),
    ".requiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm lt=atomic |" REQ_DESC(
        "anti-affinity") " When there are multiple elements, the lists of nodes corresponding to each podAffinityTerm "
                         "are intersected.",
    "@PodAffinityTerm Defines a set of pods (namely those matching the labelSelector relative to the given "
    "namespace(s)) that this pod should be co-located (affinity) or not co-located (anti-affinity) with, where "
    "co-located is defined as running on a node whose value of the label with key <topologyKey> matches that of any "
    "node on which a pod of the set of pods is running",
    ".labelSelector LabelSelector |A label query over a set of resources, in this case pods. If it's null, this "
    "PodAffinityTerm matches with no Pods.",
    ".matchLabelKeys []s lt=atomic |MatchLabelKeys is a set of pod label keys to select which pods will be taken "
    "into consideration. The keys are used to lookup values from the incoming pod labels, those key-value labels are "
    "merged with labelSelector as key in (value).",
    ".mismatchLabelKeys []s lt=atomic |MismatchLabelKeys is a set of pod label keys to select which pods will be "
    "taken into consideration. The keys are used to lookup values from the incoming pod labels, those key-value "
    "labels are merged with labelSelector as key notin (value).",
    ".namespaceSelector LabelSelector |A label query over the set of namespaces that the term applies to. The term "
    "is applied to the union of the namespaces selected by this field and the ones listed in the namespaces field. "
    "null selector and null or empty namespaces list means 'this pod's namespace'. An empty selector ({}) matches "
    "all namespaces.",
    ".namespaces []s lt=atomic |namespaces specifies a static list of namespace names that the term applies to. The "
    "term is applied to the union of the namespaces listed in this field and the ones selected by namespaceSelector.",
    ".topologyKey s ! |This pod should be co-located (affinity) or not co-located (anti-affinity) with the pods "
    "matching the labelSelector in the specified namespaces, where co-located is defined as running on a node whose "
    "value of the label with key topologyKey matches that of any node on which any of the selected pods is running. "
    "Empty topologyKey is not allowed.",
    "@WeightedPodAffinityTerm The weights of all of the matched WeightedPodAffinityTerm fields are added per-node to "
    "find the most preferred node(s)",
    ".podAffinityTerm PodAffinityTerm ! |Required. A pod affinity term, associated with the corresponding weight.",
    ".weight i32 ! |weight associated with matching the corresponding podAffinityTerm, in the range 1-100.",
    "@Toleration The pod this Toleration is attached to tolerates any taint that matches the triple "
    "<key,value,effect> using the matching operator <operator>.",
    ".effect s e=NoExecute,NoSchedule,PreferNoSchedule |Effect indicates the taint effect to match. Empty means match "
    "all taint effects. When specified, allowed values are NoSchedule, PreferNoSchedule and NoExecute.",
    ".key s |Key is the taint key that the toleration applies to. Empty means match all taint keys. If the key is "
    "empty, operator must be Exists; this combination means to match all values and all keys.",
    ".operator s e=Equal,Exists |Operator represents a key's relationship to the value. Valid operators are Exists "
    "and Equal. Defaults to Equal. Exists is equivalent to wildcard for value, so that a pod can tolerate all taints "
    "of a particular category.",
    ".tolerationSeconds i64 |TolerationSeconds represents the period of time the toleration (which must be of effect "
    "NoExecute, otherwise this field is ignored) tolerates the taint. By default, it is not set, which means "
    "tolerate the taint forever (do not evict). Zero and negative values will be treated as 0 (evict immediately) by "
    "the system.",
    ".value s |Value is the taint value the toleration matches to. If the operator is Exists, the value should be "
    "empty, otherwise just a regular string.",
    "@TopologySpreadConstraint TopologySpreadConstraint specifies how to spread matching pods among the given "
    "topology.",
    ".labelSelector LabelSelector |LabelSelector is used to find matching pods. Pods that match this label selector "
    "are counted to determine the number of pods in their corresponding topology domain.",
    ".matchLabelKeys []s lt=atomic |MatchLabelKeys is a set of pod label keys to select the pods over which "
    "spreading will be calculated. The keys are used to lookup values from the incoming pod labels, those key-value "
    "labels are ANDed with labelSelector to select the group of existing pods over which spreading will be "
    "calculated for the incoming pod.",
    ".maxSkew i32 ! |MaxSkew describes the degree to which pods may be unevenly distributed. When "
    "`whenUnsatisfiable=DoNotSchedule`, it is the maximum permitted difference between the number of matching pods "
    "in the target topology and the global minimum. It's a required field. Default value is 1 and 0 is not allowed.",
    ".minDomains i32 |MinDomains indicates a minimum number of eligible domains. When the number of eligible domains "
    "with matching topology keys is less than minDomains, Pod Topology Spread treats 'global minimum' as 0. If value "
    "is nil, the constraint behaves as if MinDomains is equal to 1.",
    ".nodeAffinityPolicy s e=Honor,Ignore |NodeAffinityPolicy indicates how we will treat Pod's "
    "nodeAffinity/nodeSelector when calculating pod topology spread skew. Options are: Honor and Ignore. If this "
    "value is nil, the behavior is equivalent to the Honor policy.",
    ".nodeTaintsPolicy s e=Honor,Ignore |NodeTaintsPolicy indicates how we will treat node taints when calculating "
    "pod topology spread skew. Options are: Honor and Ignore. If this value is nil, the behavior is equivalent to "
    "the Ignore policy.",
    ".topologyKey s ! |TopologyKey is the key of node labels. Nodes that have a label with this key and identical "
    "values are considered to be in the same topology. It's a required field.",
    ".whenUnsatisfiable s ! e=DoNotSchedule,ScheduleAnyway |WhenUnsatisfiable indicates how to deal with a pod if it "
    "doesn't satisfy the spread constraint. DoNotSchedule (default) tells the scheduler not to schedule it. "
    "ScheduleAnyway tells the scheduler to schedule the pod in any location, but giving higher precedence to "
    "topologies that would help reduce the skew. It's a required field.",
    "@ObjectReference ObjectReference contains enough information to let you inspect or modify the referred object.",
    ".apiVersion s |API version of the referent.",
    ".fieldPath s |If referring to a piece of an object instead of an entire object, this string should contain a "
    "valid JSON/Go field access statement, such as desiredState.manifest.containers[2].",
    ".kind s |Kind of the referent. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
    ".name s |Name of the referent. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names",
    ".namespace s |Namespace of the referent. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/",
    ".resourceVersion s |Specific resourceVersion to which this reference is made, if any. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#concurrency-control-and-consistency",
    ".uid s |UID of the referent. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#uids",
    "@TopologySelectorTerm A topology selector term represents the result of label queries. A null or empty topology "
    "selector term matches no objects. The requirements of them are ANDed.",
    ".matchLabelExpressions []TopologySelectorLabelRequirement lt=atomic |A list of topology selector requirements "
    "by labels.",
    "@TopologySelectorLabelRequirement A topology selector requirement is a selector that matches given label.",
    ".key s ! |The label key that the selector applies to.",
    ".values []s ! lt=atomic |An array of string values. One value must match the label to be selected. Each entry "
    "in Values is ORed.",
    NULL,
};
