/* core/v1 resources other than Pod and the volume kinds. */
#include "api/schema_data.h"

#define TM ">io.k8s.apimachinery.pkg.apis.meta.v1._TypeMeta"
#define META                                                                                                           \
    ".metadata ObjectMeta |Standard object's metadata. More info: "                                                    \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
#define SPEC_DESC "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status"
#define COND_FIELDS(kind)                                                                                              \
    ".lastTransitionTime t |Last time the condition transitioned from one status to another.",                         \
        ".message s |A human readable message indicating details about the transition.",                               \
        ".reason s |The reason for the condition's last transition.",                                                  \
        ".status s ! |Status of the condition, one of True, False, Unknown.", ".type s ! |Type of " kind " condition."

const char *const kg_schema_data_core[] = {
    "=io.k8s.api.core.v1",
    /* Namespace */
    "@Namespace Namespace provides a scope for Names. Use of multiple namespaces is optional.",
    TM,
    META,
    ".spec NamespaceSpec |Spec defines the behavior of the Namespace. More info: " SPEC_DESC,
    ".status NamespaceStatus |Status describes the current status of a Namespace. More info: " SPEC_DESC,
    "@NamespaceSpec NamespaceSpec describes the attributes on a Namespace.",
    ".finalizers []s lt=atomic |Finalizers is an opaque list of values that must be empty to permanently remove "
    "object from storage. More info: https://kubernetes.io/docs/tasks/administer-cluster/namespaces/",
    "@NamespaceStatus NamespaceStatus is information about the current status of a Namespace.",
    ".conditions []NamespaceCondition lt=map lk=type mk=type ps=merge |Represents the latest available observations "
    "of a namespace's current state.",
    ".phase s e=Active,Terminating |Phase is the current lifecycle phase of the namespace. More info: "
    "https://kubernetes.io/docs/tasks/administer-cluster/namespaces/",
    "@NamespaceCondition NamespaceCondition contains details about state of namespace.",
    COND_FIELDS("namespace"),

    /* Service */
    "@Service Service is a named abstraction of software service (for example, mysql) consisting of local port (for "
    "example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent "
    "through the proxy.",
    TM,
    META,
    ".spec ServiceSpec |Spec defines the behavior of a service. " SPEC_DESC,
    ".status ServiceStatus |Most recently observed status of the service. Populated by the system. Read-only. More "
    "info: " SPEC_DESC,
    "@ServiceSpec ServiceSpec describes the attributes that a user creates on a service.",
    ".allocateLoadBalancerNodePorts b |allocateLoadBalancerNodePorts defines if NodePorts will be automatically "
    "allocated for services with type LoadBalancer. Default is 'true'.",
    ".clusterIP s |clusterIP is the IP address of the service and is usually assigned randomly. If an address is "
    "specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the "
    "service; otherwise creation of the service will fail. This field may not be changed through updates unless the "
    "type field is also being changed to ExternalName. Valid values are 'None', empty string (''), or a valid IP "
    "address. More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies",
    ".clusterIPs []s lt=atomic |ClusterIPs is a list of IP addresses assigned to this service, and are usually "
    "assigned randomly. If this field is specified, the first entry must match clusterIP.",
    ".externalIPs []s lt=atomic |externalIPs is a list of IP addresses for which nodes in the cluster will also "
    "accept traffic for this service. These IPs are not managed by Kubernetes.",
    ".externalName s |externalName is the external reference that discovery mechanisms will return as an alias for "
    "this service (e.g. a DNS CNAME record). No proxying will be involved. Must be a lowercase RFC-1123 hostname and "
    "requires type to be 'ExternalName'.",
    ".externalTrafficPolicy s e=Cluster,Local |externalTrafficPolicy describes how nodes distribute service traffic "
    "they receive on one of the Service's 'externally-facing' addresses (NodePorts, ExternalIPs, and LoadBalancer "
    "IPs). If set to 'Local', the proxy will configure the service in a way that assumes that external load "
    "balancers will take care of balancing the service traffic between nodes. If set to 'Cluster' (the default), "
    "the proxy will forward traffic to all endpoints evenly.",
    ".healthCheckNodePort i32 |healthCheckNodePort specifies the healthcheck nodePort for the service. This only "
    "applies when type is set to LoadBalancer and externalTrafficPolicy is set to Local.",
    ".internalTrafficPolicy s e=Cluster,Local |InternalTrafficPolicy describes how nodes distribute service traffic "
    "they receive on the ClusterIP. If set to 'Local', the proxy will assume that pods only want to talk to "
    "endpoints of the service on the same node as the pod. The default value is 'Cluster'.",
    ".ipFamilies []s lt=atomic |IPFamilies is a list of IP families (e.g. IPv4, IPv6) assigned to this service. This "
    "field is usually assigned automatically based on cluster configuration and the ipFamilyPolicy field.",
    ".ipFamilyPolicy s e=PreferDualStack,RequireDualStack,SingleStack |IPFamilyPolicy represents the dual-stack-ness "
    "requested or required by this Service. If there is no value provided, then this field will be set to "
    "SingleStack.",
    ".loadBalancerClass s |loadBalancerClass is the class of the load balancer implementation this Service belongs "
    "to. If specified, the value of this field must be a label-style identifier. This field can only be set when the "
    "Service type is 'LoadBalancer'.",
    ".loadBalancerIP s |Only applies to Service Type: LoadBalancer. This feature depends on whether the underlying "
    "cloud-provider supports specifying the loadBalancerIP when a load balancer is created. Deprecated: This field "
    "was under-specified and its meaning varies across implementations.",
    ".loadBalancerSourceRanges []s lt=atomic |If specified and supported by the platform, this will restrict traffic "
    "through the cloud-provider load-balancer will be restricted to the specified client IPs. More info: "
    "https://kubernetes.io/docs/tasks/access-application-cluster/create-external-load-balancer/",
    ".ports []ServicePort lt=map lk=port,protocol mk=port ps=merge |The list of ports that are exposed by this "
    "service. More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies",
    ".publishNotReadyAddresses b |publishNotReadyAddresses indicates that any agent which deals with endpoints for "
    "this Service should disregard any indications of ready/not-ready. The primary use case for setting this field "
    "is for a StatefulSet's Headless Service to propagate SRV DNS records for its Pods for the purpose of peer "
    "discovery.",
    ".selector {}s |Route service traffic to pods with label keys and values matching this selector. If empty or not "
    "present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not "
    "modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/",
    ".sessionAffinity s e=ClientIP,None |Supports 'ClientIP' and 'None'. Used to maintain session affinity. Enable "
    "client IP based session affinity. Must be ClientIP or None. Defaults to None. More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies",
    ".sessionAffinityConfig SessionAffinityConfig |sessionAffinityConfig contains the configurations of session "
    "affinity.",
    ".trafficDistribution s |TrafficDistribution offers a way to express preferences for how traffic is distributed "
    "to Service endpoints. Implementations can use this field as a hint, but are not required to guarantee strict "
    "adherence.",
    ".type s e=ClusterIP,ExternalName,LoadBalancer,NodePort |type determines how the Service is exposed. Defaults to "
    "ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types",
    "@ServicePort ServicePort contains information on service's port.",
    ".appProtocol s |The application protocol for this port. This is used as a hint for implementations to offer "
    "richer behavior for protocols that they understand. This field follows standard Kubernetes label syntax.",
    ".name s |The name of this port within the service. This must be a DNS_LABEL. All ports within a ServiceSpec "
    "must have unique names. Optional if only one ServicePort is defined on this service.",
    ".nodePort i32 |The port on each node on which this service is exposed when type is NodePort or LoadBalancer. "
    "Usually assigned by the system. More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/#type-nodeport",
    ".port i32 ! |The port that will be exposed by this service.",
    ".protocol s e=SCTP,TCP,UDP |The IP protocol for this port. Supports 'TCP', 'UDP', and 'SCTP'. Default is TCP.",
    ".targetPort ios |Number or name of the port to access on the pods targeted by the service. Number must be in the "
    "range 1 to 65535. Name must be an IANA_SVC_NAME. If this is a string, it will be looked up as a named port in "
    "the target Pod's container ports. If this is not specified, the value of the 'port' field is used (an identity "
    "map). More info: https://kubernetes.io/docs/concepts/services-networking/service/#defining-a-service",
    "@SessionAffinityConfig SessionAffinityConfig represents the configurations of session affinity.",
    ".clientIP ClientIPConfig |clientIP contains the configurations of Client IP based session affinity.",
    "@ClientIPConfig ClientIPConfig represents the configurations of Client IP based session affinity.",
    ".timeoutSeconds i32 |timeoutSeconds specifies the seconds of ClientIP type session sticky time. The value must "
    "be >0 && <=86400(for 1 day) if ServiceAffinity == 'ClientIP'. Default value is 10800(for 3 hours).",
    "@ServiceStatus ServiceStatus represents the current status of a service.",
    ".conditions []io.k8s.apimachinery.pkg.apis.meta.v1.Condition lt=map lk=type mk=type ps=merge |Current service "
    "state",
    ".loadBalancer LoadBalancerStatus |LoadBalancer contains the current status of the load-balancer, if one is "
    "present.",
    "@LoadBalancerStatus LoadBalancerStatus represents the status of a load-balancer.",
    ".ingress []LoadBalancerIngress lt=atomic |Ingress is a list containing ingress points for the load-balancer. "
    "Traffic intended for the service should be sent to these ingress points.",
    "@LoadBalancerIngress LoadBalancerIngress represents the status of a load-balancer ingress point: traffic "
    "intended for the service should be sent to an ingress point.",
    ".hostname s |Hostname is set for load-balancer ingress points that are DNS based (typically AWS "
    "load-balancers)",
    ".ip s |IP is set for load-balancer ingress points that are IP based (typically GCE or OpenStack "
    "load-balancers)",
    ".ipMode s |IPMode specifies how the load-balancer IP behaves, and may only be specified when the ip field is "
    "specified. Setting this to 'VIP' indicates that traffic is delivered to the node with the destination set to "
    "the load-balancer's IP and port. Setting this to 'Proxy' indicates that traffic is delivered to the node or pod "
    "with the destination set to the node's IP and node port or the pod's IP and port.",
    ".ports []PortStatus lt=atomic |Ports is a list of records of service ports. If used, every port defined in the "
    "service should have an entry in it",
    "@PortStatus PortStatus represents the error condition of a service port",
    ".error s |Error is to record the problem with the service port. The format of the error shall comply with the "
    "following rules: - built-in error values shall be specified in this file and those shall use CamelCase names - "
    "cloud provider specific error values must have names that comply with the format foo.example.com/CamelCase.",
    ".port i32 ! |Port is the port number of the service port of which status is recorded here",
    ".protocol s ! e=SCTP,TCP,UDP |Protocol is the protocol of the service port of which status is recorded here. "
    "The supported values are: 'TCP', 'UDP', 'SCTP'",

    /* ConfigMap, Secret, ServiceAccount */
    "@ConfigMap ConfigMap holds configuration data for pods to consume.",
    TM,
    ".binaryData {}byte |BinaryData contains the binary data. Each key must consist of alphanumeric characters, '-', "
    "'_' or '.'. BinaryData can contain byte sequences that are not in the UTF-8 range. The keys stored in "
    "BinaryData must not overlap with the ones in the Data field, this is enforced during validation process.",
    ".data {}s |Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or "
    "'.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not "
    "overlap with the keys in the BinaryData field, this is enforced during validation process.",
    ".immutable b |Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated (only "
    "object metadata can be modified). If not set to true, the field can be modified at any time. Defaulted to nil.",
    META,
    "@Secret Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less "
    "than MaxSecretSize bytes.",
    TM,
    ".data {}byte |Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. "
    "The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly "
    "non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
    ".immutable b |Immutable, if set to true, ensures that data stored in the Secret cannot be updated (only object "
    "metadata can be modified). If not set to true, the field can be modified at any time. Defaulted to nil.",
    META,
    ".stringData {}s |stringData allows specifying non-binary secret data in string form. It is provided as a "
    "write-only input field for convenience. All keys and values are merged into the data field on write, "
    "overwriting any existing values. The stringData field is never output when reading from the API.",
    ".type s |Used to facilitate programmatic handling of secret data. More info: "
    "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types",
    "@ServiceAccount ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral systems, "
    "for an identity * a principal that can be authenticated and authorized * a set of secrets",
    TM,
    ".automountServiceAccountToken b |AutomountServiceAccountToken indicates whether pods running as this service "
    "account should have an API token automatically mounted. Can be overridden at the pod level.",
    ".imagePullSecrets []LocalObjectReference lt=atomic |ImagePullSecrets is a list of references to secrets in the "
    "same namespace to use for pulling any images in pods that reference this ServiceAccount. More info: "
    "https://kubernetes.io/docs/concepts/containers/images/#specifying-imagepullsecrets-on-a-pod",
    META,
    ".secrets []ObjectReference mk=name ps=merge |Secrets is a list of the secrets in the same "
    "namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if "
    "this service account has a 'kubernetes.io/enforce-mountable-secrets' annotation set to 'true'. Deprecated.",

    /* Event (core) */
    "@Event Event is a report of an event somewhere in the cluster. Events have a limited retention time and "
    "triggers and messages may evolve with time.",
    TM,
    ".action s |What action was taken/failed regarding to the Regarding object.",
    ".count i32 |The number of times this event has occurred.",
    ".eventTime mt |Time when this Event was first observed.",
    ".firstTimestamp t |The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
    ".involvedObject ObjectReference ! |The object that this event is about.",
    ".lastTimestamp t |The time at which the most recent occurrence of this event was recorded.",
    ".message s |A human-readable description of the status of this operation.",
    ".metadata ObjectMeta ! |Standard object's metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    ".reason s |This should be a short, machine understandable string that gives the reason for the transition into "
    "the object's current status.",
    ".related ObjectReference |Optional secondary object for more complex actions.",
    ".reportingComponent s |Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.",
    ".reportingInstance s |ID of the controller instance, e.g. `kubelet-xyzf`.",
    ".series EventSeries |Data about the Event series this event represents or nil if it's a singleton Event.",
    ".source EventSource |The component reporting this event. Should be a short machine understandable string.",
    ".type s |Type of this event (Normal, Warning), new types could be added in the future",
    "@EventSource EventSource contains information for an event.",
    ".component s |Component from which the event is generated.",
    ".host s |Node name on which the event is generated.",
    "@EventSeries EventSeries contain information on series of events, i.e. thing that was/is happening "
    "continuously for some time.",
    ".count i32 |Number of occurrences in this series up to the last heartbeat time",
    ".lastObservedTime mt |Time of the last occurrence observed",

    /* LimitRange, ResourceQuota */
    "@LimitRange LimitRange sets resource usage limits for each kind of resource in a Namespace.",
    TM,
    META,
    ".spec LimitRangeSpec |Spec defines the limits enforced. More info: " SPEC_DESC,
    "@LimitRangeSpec LimitRangeSpec defines a min/max usage limit for resources that match on kind.",
    ".limits []LimitRangeItem ! lt=atomic |Limits is the list of LimitRangeItem objects that are enforced.",
    "@LimitRangeItem LimitRangeItem defines a min/max usage limit for any resource that matches on kind.",
    ".default {}q |Default resource requirement limit value by resource name if resource limit is omitted.",
    ".defaultRequest {}q |DefaultRequest is the default resource requirement request value by resource name if "
    "resource request is omitted.",
    ".max {}q |Max usage constraints on this kind by resource name.",
    ".maxLimitRequestRatio {}q |MaxLimitRequestRatio if specified, the named resource must have a request and limit "
    "that are both non-zero where limit divided by request is less than or equal to the enumerated value; this "
    "represents the max burst for the named resource.",
    ".min {}q |Min usage constraints on this kind by resource name.",
    ".type s ! |Type of resource that this limit applies to (Pod, Container or PersistentVolumeClaim).",
    "@ResourceQuota ResourceQuota sets aggregate quota restrictions enforced per namespace",
    TM,
    META,
    ".spec ResourceQuotaSpec |Spec defines the desired quota. " SPEC_DESC,
    ".status ResourceQuotaStatus |Status defines the actual enforced quota and its current usage. " SPEC_DESC,
    "@ResourceQuotaSpec ResourceQuotaSpec defines the desired hard limits to enforce for Quota.",
    ".hard {}q |hard is the set of desired hard limits for each named resource. More info: "
    "https://kubernetes.io/docs/concepts/policy/resource-quotas/",
    ".scopeSelector ScopeSelector |scopeSelector is also a collection of filters like scopes that must match each "
    "object tracked by a quota but expressed using ScopeSelectorOperator in combination with possible values. For a "
    "resource to match, both scopes AND scopeSelector (if specified in spec), must be matched.",
    ".scopes []s lt=atomic |A collection of filters that must match each object tracked by a quota. If not "
    "specified, the quota matches all objects.",
    "@ScopeSelector A scope selector represents the AND of the selectors represented by the scoped-resource selector "
    "requirements.",
    ".matchExpressions []ScopedResourceSelectorRequirement lt=atomic |A list of scope selector requirements by scope "
    "of the resources.",
    "@ScopedResourceSelectorRequirement A scoped-resource selector requirement is a selector that contains values, a "
    "scope name, and an operator that relates the scope name and values.",
    ".operator s ! e=DoesNotExist,Exists,In,NotIn |Represents a scope's relationship to a set of values. Valid "
    "operators are In, NotIn, Exists, DoesNotExist.",
    ".scopeName s ! e=BestEffort,CrossNamespacePodAffinity,NotBestEffort,NotTerminating,PriorityClass,Terminating "
    "|The name of the scope that the selector applies to.",
    ".values []s lt=atomic |An array of string values. If the operator is In or NotIn, the values array must be "
    "non-empty. If the operator is Exists or DoesNotExist, the values array must be empty.",
    "@ResourceQuotaStatus ResourceQuotaStatus defines the enforced hard limits and observed use.",
    ".hard {}q |Hard is the set of enforced hard limits for each named resource. More info: "
    "https://kubernetes.io/docs/concepts/policy/resource-quotas/",
    ".used {}q |Used is the current observed total usage of the resource in the namespace.",

    /* Node */
    "@Node Node is a worker node in Kubernetes. Each node will have a unique identifier in the cache (i.e. in etcd).",
    TM,
    META,
    ".spec NodeSpec |Spec defines the behavior of a node. " SPEC_DESC,
    ".status NodeStatus |Most recently observed status of the node. Populated by the system. Read-only. More "
    "info: " SPEC_DESC,
    "@NodeSpec NodeSpec describes the attributes that a node is created with.",
    ".configSource obj |Deprecated: Previously used to specify the source of the node's configuration for the "
    "DynamicKubeletConfig feature. This feature is removed.",
    ".externalID s |Deprecated. Not all kubelets will set this field. Remove field after 1.13.",
    ".podCIDR s |PodCIDR represents the pod IP range assigned to the node.",
    ".podCIDRs []s lt=set ps=merge |podCIDRs represents the IP ranges assigned to the node for usage by Pods on that "
    "node. If this field is specified, the 0th entry must match the podCIDR field.",
    ".providerID s |ID of the node assigned by the cloud provider in the format: "
    "<ProviderName>://<ProviderSpecificNodeID>",
    ".taints []Taint lt=atomic |If specified, the node's taints.",
    ".unschedulable b |Unschedulable controls node schedulability of new pods. By default, node is schedulable. More "
    "info: https://kubernetes.io/docs/concepts/nodes/node/#manual-node-administration",
    "@Taint The node this Taint is attached to has the 'effect' on any pod that does not tolerate the Taint.",
    ".effect s ! e=NoExecute,NoSchedule,PreferNoSchedule |Required. The effect of the taint on pods that do not "
    "tolerate the taint. Valid effects are NoSchedule, PreferNoSchedule and NoExecute.",
    ".key s ! |Required. The taint key to be applied to a node.",
    ".timeAdded t |TimeAdded represents the time at which the taint was added.",
    ".value s |The taint value corresponding to the taint key.",
    "@NodeStatus NodeStatus is information about the current status of a node.",
    ".addresses []NodeAddress lt=map lk=type mk=type ps=merge |List of addresses reachable to the node. Queried from "
    "cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses",
    ".allocatable {}q |Allocatable represents the resources of a node that are available for scheduling. Defaults to "
    "Capacity.",
    ".capacity {}q |Capacity represents the total resources of a node. More info: "
    "https://kubernetes.io/docs/reference/node/node-status/#capacity",
    ".conditions []NodeCondition lt=map lk=type mk=type ps=merge |Conditions is an array of current observed node "
    "conditions. More info: https://kubernetes.io/docs/reference/node/node-status/#condition",
    ".config obj |Status of the config assigned to the node via the dynamic Kubelet config feature.",
    ".daemonEndpoints obj |Endpoints of daemons running on the Node.",
    ".features obj |Features describes the set of features implemented by the CRI implementation.",
    ".images []obj lt=atomic |List of container images on this node",
    ".nodeInfo NodeSystemInfo |Set of ids/uuids to uniquely identify the node. More info: "
    "https://kubernetes.io/docs/reference/node/node-status/#info",
    ".phase s e=Pending,Running,Terminated |NodePhase is the recently observed lifecycle phase of the node. The field "
    "is never populated, and now is deprecated.",
    ".runtimeHandlers []obj lt=atomic |The available runtime handlers.",
    ".volumesAttached []obj lt=atomic |List of volumes that are attached to the node.",
    ".volumesInUse []s lt=atomic |List of attachable volumes in use (mounted) by the node.",
    "@NodeCondition NodeCondition contains condition information for a node.",
    ".lastHeartbeatTime t |Last time we got an update on a given condition.",
    COND_FIELDS("node"),
    "@NodeAddress NodeAddress contains information for the node's address.",
    ".address s ! |The node address.",
    ".type s ! |Node address type, one of Hostname, ExternalIP or InternalIP.",
    "@NodeSystemInfo NodeSystemInfo is a set of ids/uuids to uniquely identify the node.",
    ".architecture s ! |The Architecture reported by the node",
    ".bootID s ! |Boot ID reported by the node.",
    ".containerRuntimeVersion s ! |ContainerRuntime Version reported by the node through runtime remote API (e.g. "
    "containerd://1.4.2).",
    ".kernelVersion s ! |Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
    ".kubeProxyVersion s ! |Deprecated: KubeProxy Version reported by the node.",
    ".kubeletVersion s ! |Kubelet Version reported by the node.",
    ".machineID s ! |MachineID reported by the node. For unique machine identification in the cluster this field is "
    "preferred.",
    ".operatingSystem s ! |The Operating System reported by the node",
    ".osImage s ! |OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
    ".swap obj |Swap Info reported by the node.",
    ".systemUUID s ! |SystemUUID reported by the node. For unique machine identification MachineID is preferred.",

    /* ReplicationController */
    "@ReplicationController ReplicationController represents the configuration of a replication controller.",
    TM,
    ".metadata ObjectMeta |If the Labels of a ReplicationController are empty, they are defaulted to be the same as "
    "the Pod(s) that the replication controller manages. Standard object's metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    ".spec ReplicationControllerSpec |Spec defines the specification of the desired behavior of the replication "
    "controller. More info: " SPEC_DESC,
    ".status ReplicationControllerStatus |Status is the most recently observed status of the replication "
    "controller. This data may be out of date by some window of time. Populated by the system. Read-only. More "
    "info: " SPEC_DESC,
    "@ReplicationControllerSpec ReplicationControllerSpec is the specification of a replication controller.",
    ".minReadySeconds i32 |Minimum number of seconds for which a newly created pod should be ready without any of "
    "its container crashing, for it to be considered available. Defaults to 0 (pod will be considered available as "
    "soon as it is ready)",
    ".replicas i32 |Replicas is the number of desired replicas. This is a pointer to distinguish between explicit "
    "zero and unspecified. Defaults to 1. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
    ".selector {}s |Selector is a label query over pods that should match the Replicas count. If Selector is empty, "
    "it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be "
    "controlled by this replication controller, if empty defaulted to labels on Pod template. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
    ".template PodTemplateSpec |Template is the object that describes the pod that will be created if insufficient "
    "replicas are detected. This takes precedence over a TemplateRef. The only allowed template.spec.restartPolicy "
    "value is 'Always'. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template",
    "@ReplicationControllerStatus ReplicationControllerStatus represents the current status of a replication "
    "controller.",
    ".availableReplicas i32 |The number of available replicas (ready for at least minReadySeconds) for this "
    "replication controller.",
    ".conditions []ReplicationControllerCondition lt=map lk=type mk=type ps=merge |Represents the latest available "
    "observations of a replication controller's current state.",
    ".fullyLabeledReplicas i32 |The number of pods that have labels matching the labels of the pod template of the "
    "replication controller.",
    ".observedGeneration i64 |ObservedGeneration reflects the generation of the most recently observed replication "
    "controller.",
    ".readyReplicas i32 |The number of ready replicas for this replication controller.",
    ".replicas i32 ! |Replicas is the most recently observed number of replicas. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
    "@ReplicationControllerCondition ReplicationControllerCondition describes the state of a replication controller "
    "at a certain point.",
    COND_FIELDS("replication controller"),

    /* Endpoints */
    "@Endpoints Endpoints is a collection of endpoints that implement the actual service. Deprecated: This API is "
    "deprecated in v1.33+. Use discoveryv1.EndpointSlice.",
    TM,
    META,
    ".subsets []EndpointSubset lt=atomic |The set of all endpoints is the union of all subsets. Addresses are placed "
    "into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and "
    "some of which are not (because they come from different containers) will result in the address being displayed "
    "in different subsets for the different ports.",
    "@EndpointSubset EndpointSubset is a group of addresses with a common set of ports. The expanded set of endpoints "
    "is the Cartesian product of Addresses x Ports.",
    ".addresses []EndpointAddress lt=atomic |IP addresses which offer the related ports that are marked as ready. "
    "These endpoints should be considered safe for load balancers and clients to utilize.",
    ".notReadyAddresses []EndpointAddress lt=atomic |IP addresses which offer the related ports but are not currently "
    "marked as ready because they have not yet finished starting, have recently failed a readiness check, or have "
    "recently failed a liveness check.",
    ".ports []EndpointPort lt=atomic |Port numbers available on the related IP addresses.",
    "@EndpointAddress EndpointAddress is a tuple that describes single IP address.",
    ".hostname s |The Hostname of this endpoint",
    ".ip s ! |The IP of this endpoint. May not be loopback (127.0.0.0/8 or ::1), link-local (169.254.0.0/16 or "
    "fe80::/10), or link-local multicast (224.0.0.0/24 or ff02::/16).",
    ".nodeName s |Optional: Node hosting this endpoint. This can be used to determine endpoints local to a node.",
    ".targetRef ObjectReference |Reference to object providing the endpoint.",
    "@EndpointPort EndpointPort is a tuple that describes a single port.",
    ".appProtocol s |The application protocol for this port. This is used as a hint for implementations to offer "
    "richer behavior for protocols that they understand.",
    ".name s |The name of this port. This must match the 'name' field in the corresponding ServicePort. Must be a "
    "DNS_LABEL. Optional only if one port is defined.",
    ".port i32 ! |The port number of the endpoint.",
    ".protocol s e=SCTP,TCP,UDP |The IP protocol for this port. Must be UDP, TCP, or SCTP. Default is TCP.",

    /* Binding: the body of pods/binding */
    "@Binding Binding ties one object to another; for example, a pod is bound to a node by a scheduler.",
    TM,
    META,
    ".target ObjectReference ! |The target object that you want to bind to the standard object.",
    NULL,
};
