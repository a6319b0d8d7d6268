/* networking, storage, scheduling, node, certificates, rbac, coordination and events (all v1). */
#include "api/schema_data.h"

#define TM ">io.k8s.apimachinery.pkg.apis.meta.v1._TypeMeta"
#define META                                                                                                           \
    ".metadata io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta |Standard object's metadata. More info: "               \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
#define SPEC_DESC "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status"

const char *const kg_schema_data_groups[] = {
    "=io.k8s.api.networking.v1",
    "@Ingress Ingress is a collection of rules that allow inbound connections to reach the endpoints defined by a "
    "backend. An Ingress can be configured to give services externally-reachable urls, load balance traffic, "
    "terminate SSL, offer name based virtual hosting etc.",
    TM,
    META,
    ".spec IngressSpec |spec is the desired state of the Ingress. More info: " SPEC_DESC,
    ".status IngressStatus |status is the current state of the Ingress. More info: " SPEC_DESC,
    "@IngressSpec IngressSpec describes the Ingress the user wishes to exist.",
    ".defaultBackend IngressBackend |defaultBackend is the backend that should handle requests that don't match any "
    "rule. If Rules are not specified, DefaultBackend must be specified.",
    ".ingressClassName s |ingressClassName is the name of an IngressClass cluster resource. Ingress controller "
    "implementations use this field to know whether they should be serving this Ingress resource, by a transitive "
    "connection (controller -> IngressClass -> Ingress resource).",
    ".rules []IngressRule lt=atomic |rules is a list of host rules used to configure the Ingress. If unspecified, or "
    "no rule matches, all traffic is sent to the default backend.",
    ".tls []IngressTLS lt=atomic |tls represents the TLS configuration. Currently the Ingress only supports a single "
    "TLS port, 443. If multiple members of this list specify different hosts, they will be multiplexed on the same "
    "port according to the hostname specified through the SNI TLS extension.",
    "@IngressBackend IngressBackend describes all endpoints for a given service and port.",
    ".resource io.k8s.api.core.v1.TypedLocalObjectReference |resource is an ObjectRef to another Kubernetes resource "
    "in the namespace of the Ingress object. If resource is specified, a service.Name and service.Port must not be "
    "specified.",
    ".service IngressServiceBackend |service references a service as a backend. This is a mutually exclusive setting "
    "with 'Resource'.",
    "@IngressServiceBackend IngressServiceBackend references a Kubernetes Service as a Backend.",
    ".name s ! |name is the referenced service. The service must exist in the same namespace as the Ingress object.",
    ".port ServiceBackendPort |port of the referenced service. A port name or port number is required for a "
    "IngressServiceBackend.",
    "@ServiceBackendPort ServiceBackendPort is the service port being referenced.",
    ".name s |name is the name of the port on the Service. This is a mutually exclusive setting with 'Number'.",
    ".number i32 |number is the numerical port number (e.g. 80) on the Service. This is a mutually exclusive setting "
    "with 'Name'.",
    "@IngressRule IngressRule represents the rules mapping the paths under a specified host to the related backend "
    "services. Incoming requests are first evaluated for a host match, then routed to the backend associated with "
    "the matching IngressRuleValue.",
    ".host s |host is the fully qualified domain name of a network host, as defined by RFC 3986. Incoming requests "
    "are matched against the host before the IngressRuleValue. If the host is unspecified, the Ingress routes all "
    "traffic based on the specified IngressRuleValue. host can be 'precise' or a wildcard like '*.foo.com'.",
    ".http HTTPIngressRuleValue",
    "@HTTPIngressRuleValue HTTPIngressRuleValue is a list of http selectors pointing to backends. In the example: "
    "http://<host>/<path>?<searchpart> -> backend where where parts of the url correspond to RFC 3986, this resource "
    "will be used to match against everything after the last '/' and before the first '?' or '#'.",
    ".paths []HTTPIngressPath ! lt=atomic |paths is a collection of paths that map requests to backends.",
    "@HTTPIngressPath HTTPIngressPath associates a path with a backend. Incoming urls matching the path are "
    "forwarded to the backend.",
    ".backend IngressBackend ! |backend defines the referenced service endpoint to which the traffic will be "
    "forwarded to.",
    ".path s |path is matched against the path of an incoming request. Currently it can contain characters "
    "disallowed from the conventional 'path' part of a URL as defined by RFC 3986. Paths must begin with a '/' and "
    "must be present when using PathType with value 'Exact' or 'Prefix'.",
    ".pathType s ! e=Exact,ImplementationSpecific,Prefix |pathType determines the interpretation of the path "
    "matching. PathType can be one of the following values: * Exact: Matches the URL path exactly. * Prefix: Matches "
    "based on a URL path prefix split by '/'. * ImplementationSpecific: Interpretation of the Path matching is up to "
    "the IngressClass.",
    "@IngressTLS IngressTLS describes the transport layer security associated with an ingress.",
    ".hosts []s lt=atomic |hosts is a list of hosts included in the TLS certificate. The values in this list must "
    "match the name/s used in the tlsSecret. Defaults to the wildcard host setting for the loadbalancer controller "
    "fulfilling this Ingress, if left unspecified.",
    ".secretName s |secretName is the name of the secret used to terminate TLS traffic on port 443. Field is left "
    "optional to allow TLS routing based on SNI hostname alone.",
    "@IngressStatus IngressStatus describe the current state of the Ingress.",
    ".loadBalancer IngressLoadBalancerStatus |loadBalancer contains the current status of the load-balancer.",
    "@IngressLoadBalancerStatus IngressLoadBalancerStatus represents the status of a load-balancer.",
    ".ingress []IngressLoadBalancerIngress lt=atomic |ingress is a list containing ingress points for the "
    "load-balancer.",
    "@IngressLoadBalancerIngress IngressLoadBalancerIngress represents the status of a load-balancer ingress point.",
    ".hostname s |hostname is set for load-balancer ingress points that are DNS based.",
    ".ip s |ip is set for load-balancer ingress points that are IP based.",
    ".ports []IngressPortStatus lt=atomic |ports provides information about the ports exposed by this LoadBalancer.",
    "@IngressPortStatus IngressPortStatus represents the error condition of a service port",
    ".error s |error is to record the problem with the service port.",
    ".port i32 ! |port is the port number of the ingress port.",
    ".protocol s ! e=SCTP,TCP,UDP |protocol is the protocol of the ingress port. The supported values are: 'TCP', "
    "'UDP', 'SCTP'",
    "@IngressClass IngressClass represents the class of the Ingress, referenced by the Ingress Spec. The "
    "`ingressclass.kubernetes.io/is-default-class` annotation can be used to indicate that an IngressClass should be "
    "considered default.",
    TM,
    META,
    ".spec IngressClassSpec |spec is the desired state of the IngressClass. More info: " SPEC_DESC,
    "@IngressClassSpec IngressClassSpec provides information about the class of an Ingress.",
    ".controller s |controller refers to the name of the controller that should handle this class. This allows for "
    "different 'flavors' that are controlled by the same controller. This should be specified as a domain-prefixed "
    "path no more than 250 characters in length, e.g. 'acme.io/ingress-controller'. This field is immutable.",
    ".parameters IngressClassParametersReference |parameters is a link to a custom resource containing additional "
    "configuration for the controller. This is optional if the controller does not require extra parameters.",
    "@IngressClassParametersReference IngressClassParametersReference identifies an API object. This can be used to "
    "specify a cluster or namespace-scoped resource.",
    ".apiGroup s |apiGroup is the group for the resource being referenced. If APIGroup is not specified, the "
    "specified Kind must be in the core API group.",
    ".kind s ! |kind is the type of resource being referenced.",
    ".name s ! |name is the name of resource being referenced.",
    ".namespace s |namespace is the namespace of the resource being referenced. This field is required when scope is "
    "set to 'Namespace' and must be unset when scope is set to 'Cluster'.",
    ".scope s |scope represents if this refers to a cluster or namespace scoped resource. This may be set to "
    "'Cluster' (default) or 'Namespace'.",

    "=io.k8s.api.autoscaling.v1",
    "@Scale Scale represents a scaling request for a resource.",
    TM,
    ".metadata io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta |Standard object metadata; More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata.",
    ".spec ScaleSpec |spec defines the behavior of the scale. More info: " SPEC_DESC,
    ".status ScaleStatus |status is the current status of the scale. More info: " SPEC_DESC ". Read-only.",
    "@ScaleSpec ScaleSpec describes the attributes of a scale subresource.",
    ".replicas i32 |replicas is the desired number of instances for the scaled object.",
    "@ScaleStatus ScaleStatus represents the current status of a scale subresource.",
    ".replicas i32 ! |replicas is the actual number of observed instances of the scaled object.",
    ".selector s |selector is the label query over pods that should match the replicas count. This is same as the "
    "label selector but in the string format to avoid introspection by clients. The string will be in the same "
    "format as the query-param syntax. More info about label selectors: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/",

    "=io.k8s.api.storage.v1",
    "@StorageClass StorageClass describes the parameters for a class of storage for which PersistentVolumes can be "
    "dynamically provisioned. StorageClasses are non-namespaced; the name of the storage class according to etcd is "
    "in ObjectMeta.Name.",
    TM,
    ".allowVolumeExpansion b |allowVolumeExpansion shows whether the storage class allow volume expand.",
    ".allowedTopologies []io.k8s.api.core.v1.TopologySelectorTerm lt=atomic |allowedTopologies restrict the node "
    "topologies where volumes can be dynamically provisioned. Each volume plugin defines its own supported topology "
    "specifications. An empty TopologySelectorTerm list means there is no topology restriction.",
    META,
    ".mountOptions []s lt=atomic |mountOptions controls the mountOptions for dynamically provisioned "
    "PersistentVolumes of this storage class. e.g. ['ro', 'soft']. Not validated - mount of the PVs will simply fail "
    "if one is invalid.",
    ".parameters {}s |parameters holds the parameters for the provisioner that should create volumes of this storage "
    "class.",
    ".provisioner s ! |provisioner indicates the type of the provisioner.",
    ".reclaimPolicy s e=Delete,Recycle,Retain |reclaimPolicy controls the reclaimPolicy for dynamically provisioned "
    "PersistentVolumes of this storage class. Defaults to Delete.",
    ".volumeBindingMode s e=Immediate,WaitForFirstConsumer |volumeBindingMode indicates how PersistentVolumeClaims "
    "should be provisioned and bound. When unset, VolumeBindingImmediate is used. This field is only honored by "
    "servers that enable the VolumeScheduling feature.",

    "=io.k8s.api.scheduling.v1",
    "@PriorityClass PriorityClass defines mapping from a priority class name to the priority integer value. The value "
    "can be any valid integer.",
    TM,
    ".description s |description is an arbitrary string that usually provides guidelines on when this priority class "
    "should be used.",
    ".globalDefault b |globalDefault specifies whether this PriorityClass should be considered as the default "
    "priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. "
    "However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest "
    "value of such global default PriorityClasses will be used as the default priority.",
    META,
    ".preemptionPolicy s e=Never,PreemptLowerPriority |preemptionPolicy is the Policy for preempting pods with lower "
    "priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.",
    ".value i32 ! |value represents the integer value of this priority class. This is the actual priority that pods "
    "receive when they have the name of this class in their pod spec.",

    "=io.k8s.api.node.v1",
    "@RuntimeClass RuntimeClass defines a class of container runtime supported in the cluster. The RuntimeClass is "
    "used to determine which container runtime is used to run all containers in a pod. RuntimeClasses are manually "
    "defined by a user or cluster provisioner, and referenced in the PodSpec.",
    TM,
    ".handler s ! |handler specifies the underlying runtime and configuration that the CRI implementation will use "
    "to handle pods of this class. The possible values are specific to the node & CRI configuration. The Handler "
    "must be lowercase, conform to the DNS Label (RFC 1123) requirements, and is immutable.",
    META,
    ".overhead Overhead |overhead represents the resource overhead associated with running a pod for a given "
    "RuntimeClass. For more details, see "
    "https://kubernetes.io/docs/concepts/scheduling-eviction/pod-overhead/",
    ".scheduling Scheduling |scheduling holds the scheduling constraints to ensure that pods running with this "
    "RuntimeClass are scheduled to nodes that support it. If scheduling is nil, this RuntimeClass is assumed to be "
    "supported by all nodes.",
    "@Overhead Overhead structure represents the resource overhead associated with running a pod.",
    ".podFixed {}q |podFixed represents the fixed resource overhead associated with running a pod.",
    "@Scheduling Scheduling specifies the scheduling constraints for nodes supporting a RuntimeClass.",
    ".nodeSelector {}s |nodeSelector lists labels that must be present on nodes that support this RuntimeClass. Pods "
    "using this RuntimeClass can only be scheduled to a node matched by this selector.",
    ".tolerations []io.k8s.api.core.v1.Toleration lt=atomic |tolerations are appended (excluding duplicates) to pods "
    "running with this RuntimeClass during admission, effectively unioning the set of nodes tolerated by the pod and "
    "the RuntimeClass.",

    "=io.k8s.api.certificates.v1",
    "@CertificateSigningRequest CertificateSigningRequest objects provide a mechanism to obtain x509 certificates by "
    "submitting a certificate signing request, and having it asynchronously approved and issued.",
    TM,
    META,
    ".spec CertificateSigningRequestSpec ! |spec contains the certificate request, and is immutable after creation. "
    "Only the request, signerName, expirationSeconds, and usages fields can be set on creation.",
    ".status CertificateSigningRequestStatus |status contains information about whether the request is approved or "
    "denied, and the certificate issued by the signer, or the failure condition indicating signer failure.",
    "@CertificateSigningRequestSpec CertificateSigningRequestSpec contains the certificate request.",
    ".expirationSeconds i32 |expirationSeconds is the requested duration of validity of the issued certificate. The "
    "certificate signer may issue a certificate with a different validity duration so a client must check the delta "
    "between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.",
    ".extra {}[]s |extra contains extra attributes of the user that created the CertificateSigningRequest. Populated "
    "by the API server on creation and immutable.",
    ".groups []s lt=atomic |groups contains group membership of the user that created the CertificateSigningRequest. "
    "Populated by the API server on creation and immutable.",
    ".request byte ! lt=atomic |request contains an x509 certificate signing request encoded in a 'CERTIFICATE "
    "REQUEST' PEM block. When serialized as JSON or YAML, the data is additionally base64-encoded.",
    ".signerName s ! |signerName indicates the requested signer, and is a qualified name. List/watch requests for "
    "CertificateSigningRequests can filter on this field using a 'spec.signerName=NAME' fieldSelector. Well-known "
    "Kubernetes signers are: kubernetes.io/kube-apiserver-client, kubernetes.io/kube-apiserver-client-kubelet, "
    "kubernetes.io/kubelet-serving.",
    ".uid s |uid contains the uid of the user that created the CertificateSigningRequest. Populated by the API server "
    "on creation and immutable.",
    ".usages []s lt=atomic |usages specifies a set of key usages requested in the issued certificate. Requests for "
    "TLS client certificates typically request: 'digital signature', 'key encipherment', 'client auth'.",
    ".username s |username contains the name of the user that created the CertificateSigningRequest. Populated by the "
    "API server on creation and immutable.",
    "@CertificateSigningRequestStatus CertificateSigningRequestStatus contains conditions used to indicate "
    "approved/denied/failed status of the request, and the issued certificate.",
    ".certificate byte lt=atomic |certificate is populated with an issued certificate by the signer after an "
    "Approved condition is present. This field is set via the /status subresource. Once populated, this field is "
    "immutable.",
    ".conditions []CertificateSigningRequestCondition lt=map lk=type |conditions applied to the request. Known "
    "conditions are 'Approved', 'Denied', and 'Failed'.",
    "@CertificateSigningRequestCondition CertificateSigningRequestCondition describes a condition of a "
    "CertificateSigningRequest object",
    ".lastTransitionTime t |lastTransitionTime is the time the condition last transitioned from one status to "
    "another. If unset, when a new condition type is added or an existing condition's status is changed, the server "
    "defaults this to the current time.",
    ".lastUpdateTime t |lastUpdateTime is the time of the last update to this condition",
    ".message s |message contains a human readable message with details about the request state",
    ".reason s |reason indicates a brief reason for the request state",
    ".status s ! |status of the condition, one of True, False, Unknown. Approved, Denied, and Failed conditions may "
    "not be 'False' or 'Unknown'.",
    ".type s ! |type of the condition. Known conditions are 'Approved', 'Denied', and 'Failed'.",

    "=io.k8s.api.rbac.v1",
    "@Role Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.",
    TM,
    ".metadata io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta |Standard object's metadata.",
    ".rules []PolicyRule lt=atomic |Rules holds all the PolicyRules for this Role",
    "@ClusterRole ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by "
    "a RoleBinding or ClusterRoleBinding.",
    TM,
    ".aggregationRule AggregationRule |AggregationRule is an optional field that describes how to build the Rules for "
    "this ClusterRole. If AggregationRule is set, then the Rules are controller managed and direct changes to Rules "
    "will be stomped by the controller.",
    ".metadata io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta |Standard object's metadata.",
    ".rules []PolicyRule lt=atomic |Rules holds all the PolicyRules for this ClusterRole",
    "@PolicyRule PolicyRule holds information that describes a policy rule, but does not contain information about "
    "who the rule applies to or which namespace the rule applies to.",
    ".apiGroups []s lt=atomic |APIGroups is the name of the APIGroup that contains the resources. If multiple API "
    "groups are specified, any action requested against one of the enumerated resources in any API group will be "
    "allowed. '' represents the core API group and '*' represents all API groups.",
    ".nonResourceURLs []s lt=atomic |NonResourceURLs is a set of partial urls that a user should have access to. *s "
    "are allowed, but only as the full, final step in the path. Rules can either apply to API resources (such as "
    "'pods' or 'secrets') or non-resource URL paths (such as '/api'), but not both.",
    ".resourceNames []s lt=atomic |ResourceNames is an optional white list of names that the rule applies to. An "
    "empty set means that everything is allowed.",
    ".resources []s lt=atomic |Resources is a list of resources this rule applies to. '*' represents all resources.",
    ".verbs []s ! lt=atomic |Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule. "
    "'*' represents all verbs.",
    "@AggregationRule AggregationRule describes how to locate ClusterRoles to aggregate into the ClusterRole",
    ".clusterRoleSelectors []io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector lt=atomic |ClusterRoleSelectors "
    "holds a list of selectors which will be used to find ClusterRoles and create the rules. If any of the selectors "
    "match, then the ClusterRole's permissions will be added",
    "@RoleBinding RoleBinding references a role, but does not contain it. It can reference a Role in the same "
    "namespace or a ClusterRole in the global namespace. It adds who information via Subjects and namespace "
    "information by which namespace it exists in.",
    TM,
    ".metadata io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta |Standard object's metadata.",
    ".roleRef RoleRef ! |RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
    "namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.",
    ".subjects []Subject lt=atomic |Subjects holds references to the objects the role applies to.",
    "@ClusterRoleBinding ClusterRoleBinding references a ClusterRole, but not contain it. It can reference a "
    "ClusterRole in the global namespace, and adds who information via Subject.",
    TM,
    ".metadata io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta |Standard object's metadata.",
    ".roleRef RoleRef ! |RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be "
    "resolved, the Authorizer must return an error. This field is immutable.",
    ".subjects []Subject lt=atomic |Subjects holds references to the objects the role applies to.",
    "@RoleRef RoleRef contains information that points to the role being used",
    ".apiGroup s ! |APIGroup is the group for the resource being referenced",
    ".kind s ! |Kind is the type of resource being referenced",
    ".name s ! |Name is the name of resource being referenced",
    "@Subject Subject contains a reference to the object or user identities a role binding applies to. This can "
    "either hold a direct API object reference, or a value for non-objects such as user and group names.",
    ".apiGroup s |APIGroup holds the API group of the referenced subject. Defaults to '' for ServiceAccount subjects. "
    "Defaults to 'rbac.authorization.k8s.io' for User and Group subjects.",
    ".kind s ! |Kind of object being referenced. Values defined by this API group are 'User', 'Group', and "
    "'ServiceAccount'. If the Authorizer does not recognized the kind value, the Authorizer should report an error.",
    ".name s ! |Name of the object being referenced.",
    ".namespace s |Namespace of the referenced object. If the object kind is non-namespace, such as 'User' or "
    "'Group', and this value is not empty the Authorizer should report an error.",

    "=io.k8s.api.coordination.v1",
    "@Lease Lease defines a lease concept.",
    TM,
    META,
    ".spec LeaseSpec |spec contains the specification of the Lease. More info: " SPEC_DESC,
    "@LeaseSpec LeaseSpec is a specification of a Lease.",
    ".acquireTime mt |acquireTime is a time when the current lease was acquired.",
    ".holderIdentity s |holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader "
    "Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.",
    ".leaseDurationSeconds i32 |leaseDurationSeconds is a duration that candidates for a lease need to wait to force "
    "acquire it. This is measured against the time of last observed renewTime.",
    ".leaseTransitions i32 |leaseTransitions is the number of transitions of a lease between holders.",
    ".preferredHolder s |PreferredHolder signals to a lease holder that the lease has a more optimal holder and "
    "should be given up. This field can only be set if Strategy is also set.",
    ".renewTime mt |renewTime is a time when the current holder of a lease has last updated the lease.",
    ".strategy s |Strategy indicates the strategy for picking the leader for coordinated leader election. If the "
    "field is not specified, there is no active coordination for this lease.",

    "=io.k8s.api.events.v1",
    "@Event Event is a report of an event somewhere in the cluster. It generally denotes some state change in the "
    "system. Events have a limited retention time and triggers and messages may evolve with time.",
    TM,
    ".action s |action is what action was taken/failed regarding to the regarding object. It is machine-readable. "
    "This field cannot be empty for new Events and it can have at most 128 characters.",
    ".deprecatedCount i32 |deprecatedCount is the deprecated field assuring backward compatibility with core.v1 Event "
    "type.",
    ".deprecatedFirstTimestamp t |deprecatedFirstTimestamp is the deprecated field assuring backward compatibility "
    "with core.v1 Event type.",
    ".deprecatedLastTimestamp t |deprecatedLastTimestamp is the deprecated field assuring backward compatibility with "
    "core.v1 Event type.",
    ".deprecatedSource io.k8s.api.core.v1.EventSource |deprecatedSource is the deprecated field assuring backward "
    "compatibility with core.v1 Event type.",
    ".eventTime mt ! |eventTime is the time when this Event was first observed. It is required.",
    META,
    ".note s |note is a human-readable description of the status of this operation. Maximal length of the note is "
    "1kB, but libraries should be prepared to handle values up to 64kB.",
    ".reason s |reason is why the action was taken. It is human-readable. This field cannot be empty for new Events "
    "and it can have at most 128 characters.",
    ".regarding io.k8s.api.core.v1.ObjectReference |regarding contains the object this Event is about. In most cases "
    "it's an Object reporting controller implements, e.g. ReplicaSetController implements ReplicaSets and this event "
    "is emitted because it acts on some changes in a ReplicaSet object.",
    ".related io.k8s.api.core.v1.ObjectReference |related is the optional secondary object for more complex actions. "
    "E.g. when regarding object triggers a creation or deletion of related object.",
    ".reportingController s |reportingController is the name of the controller that emitted this Event, e.g. "
    "`kubernetes.io/kubelet`. This field cannot be empty for new Events.",
    ".reportingInstance s |reportingInstance is the ID of the controller instance, e.g. `kubelet-xyzf`. This field "
    "cannot be empty for new Events and it can have at most 128 characters.",
    ".series EventSeries |series is data about the Event series this event represents or nil if it's a singleton "
    "Event.",
    ".type s |type is the type of this event (Normal, Warning), new types could be added in the future. It is "
    "machine-readable. This field cannot be empty for new Events.",
    "@EventSeries EventSeries contain information on series of events, i.e. thing that was/is happening continuously "
    "for some time. How often to update the EventSeries is up to the event reporters.",
    ".count i32 ! |count is the number of occurrences in this series up to the last heartbeat time.",
    ".lastObservedTime mt ! |lastObservedTime is the time when last Event from the series was seen before last "
    "heartbeat.",
    NULL,
};
