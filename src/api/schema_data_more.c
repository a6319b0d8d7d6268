/* core/v1 PodTemplate, apps/v1 ControllerRevision, networking.k8s.io/v1 NetworkPolicy, discovery.k8s.io/v1
 * EndpointSlice. */
#include "api/schema_data.h"

#define TM ">io.k8s.apimachinery.pkg.apis.meta.v1._TypeMeta"
#define META                                                                                                           \
    ".metadata io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta |Standard object's metadata. More info: "               \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
#define LS "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"

const char *const kg_schema_data_more[] = {
    "=io.k8s.api.core.v1",
    "@PodTemplate PodTemplate describes a template for creating copies of a predefined pod.",
    TM,
    META,
    ".template PodTemplateSpec |Template defines the pods that will be created from this pod template. "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status",

    "=io.k8s.api.apps.v1",
    "@ControllerRevision ControllerRevision implements an immutable snapshot of state data. Clients are responsible "
    "for serializing and deserializing the objects that contain their internal state. Once a ControllerRevision has "
    "been successfully created, it can not be updated.",
    TM,
    ".data io.k8s.apimachinery.pkg.runtime.RawExtension |Data is the serialized representation of the state.",
    META,
    ".revision i64 ! |Revision indicates the revision of the state represented by Data.",

    "=io.k8s.api.networking.v1",
    "@NetworkPolicy NetworkPolicy describes what network traffic is allowed for a set of Pods",
    TM,
    META,
    ".spec NetworkPolicySpec |spec represents the specification of the desired behavior for this NetworkPolicy.",
    "@NetworkPolicySpec NetworkPolicySpec provides the specification of a NetworkPolicy",
    ".egress []NetworkPolicyEgressRule lt=atomic |egress is a list of egress rules to be applied to the selected "
    "pods.",
    ".ingress []NetworkPolicyIngressRule lt=atomic |ingress is a list of ingress rules to be applied to the selected "
    "pods.",
    ".podSelector " LS " |podSelector selects the pods to which this NetworkPolicy object applies. An empty "
    "selector matches all pods in this namespace.",
    ".policyTypes []s lt=atomic |policyTypes is a list of rule types that the NetworkPolicy relates to. Valid options "
    "are [\"Ingress\"], [\"Egress\"], or [\"Ingress\", \"Egress\"].",
    "@NetworkPolicyIngressRule NetworkPolicyIngressRule describes a particular set of traffic that is allowed to the "
    "pods matched by a NetworkPolicySpec's podSelector.",
    ".from []NetworkPolicyPeer lt=atomic |from is a list of sources which should be able to access the pods selected "
    "for this rule.",
    ".ports []NetworkPolicyPort lt=atomic |ports is a list of ports which should be made accessible on the pods "
    "selected for this rule.",
    "@NetworkPolicyEgressRule NetworkPolicyEgressRule describes a particular set of traffic that is allowed out of "
    "pods matched by a NetworkPolicySpec's podSelector.",
    ".ports []NetworkPolicyPort lt=atomic |ports is a list of destination ports for outgoing traffic.",
    ".to []NetworkPolicyPeer lt=atomic |to is a list of destinations for outgoing traffic of pods selected for this "
    "rule.",
    "@NetworkPolicyPeer NetworkPolicyPeer describes a peer to allow traffic to/from.",
    ".ipBlock IPBlock |ipBlock defines policy on a particular IPBlock.",
    ".namespaceSelector " LS " |namespaceSelector selects namespaces using cluster-scoped labels.",
    ".podSelector " LS " |podSelector is a label selector which selects pods.",
    "@IPBlock IPBlock describes a particular CIDR (Ex. \"192.168.1.0/24\",\"2001:db8::/64\") that is allowed to the "
    "pods matched by a NetworkPolicySpec's podSelector.",
    ".cidr s ! |cidr is a string representing the IPBlock Valid examples are \"192.168.1.0/24\" or \"2001:db8::/64\"",
    ".except []s lt=atomic |except is a slice of CIDRs that should not be included within an IPBlock",
    "@NetworkPolicyPort NetworkPolicyPort describes a port to allow traffic on",
    ".endPort i32 |endPort indicates that the range of ports from port to endPort if set, inclusive, should be "
    "allowed by the policy.",
    ".port io.k8s.apimachinery.pkg.util.intstr.IntOrString |port represents the port on the given protocol.",
    ".protocol s e=SCTP,TCP,UDP |protocol represents the protocol (TCP, UDP, or SCTP) which traffic must match.",

    "=io.k8s.api.discovery.v1",
    "@EndpointSlice EndpointSlice represents a set of service endpoints.",
    ".addressType s ! e=FQDN,IPv4,IPv6 |addressType specifies the type of address carried by this EndpointSlice.",
    TM,
    ".endpoints []Endpoint ! lt=atomic |endpoints is a list of unique endpoints in this slice.",
    META,
    ".ports []EndpointPort lt=atomic |ports specifies the list of network ports exposed by each endpoint in this "
    "slice.",
    "@Endpoint Endpoint represents a single logical \"backend\" implementing a service.",
    ".addresses []s ! lt=set |addresses of this endpoint.",
    ".conditions EndpointConditions |conditions contains information about the current status of the endpoint.",
    ".deprecatedTopology {}s |deprecatedTopology contains topology information part of the v1beta1 API.",
    ".hints EndpointHints |hints contains information associated with how an endpoint should be consumed.",
    ".hostname s |hostname of this endpoint.",
    ".nodeName s |nodeName represents the name of the Node hosting this endpoint.",
    ".targetRef io.k8s.api.core.v1.ObjectReference |targetRef is a reference to a Kubernetes object that represents "
    "this endpoint.",
    ".zone s |zone is the name of the Zone this endpoint exists in.",
    "@EndpointConditions EndpointConditions represents the current condition of an endpoint.",
    ".ready b |ready indicates that this endpoint is ready to receive traffic, according to whatever system is "
    "managing the endpoint.",
    ".serving b |serving indicates that this endpoint is able to receive traffic, according to whatever system is "
    "managing the endpoint.",
    ".terminating b |terminating indicates that this endpoint is terminating.",
    "@EndpointHints EndpointHints provides hints describing how an endpoint should be consumed.",
    ".forNodes []ForNode lt=atomic |forNodes indicates the node(s) this endpoint should be consumed by when using "
    "topology aware routing.",
    ".forZones []ForZone lt=atomic |forZones indicates the zone(s) this endpoint should be consumed by when using "
    "topology aware routing.",
    "@ForNode ForNode provides information about which nodes should consume this endpoint.",
    ".name s ! |name represents the name of the node.",
    "@ForZone ForZone provides information about which zones should consume this endpoint.",
    ".name s ! |name represents the name of the zone.",
    "@EndpointPort EndpointPort represents a Port used by an EndpointSlice",
    ".appProtocol s |The application protocol for this port.",
    ".name s |name represents the name of this port.",
    ".port i32 |port represents the port number of the endpoint.",
    ".protocol s e=SCTP,TCP,UDP |protocol represents the IP protocol for this port. Must be UDP, TCP, or SCTP. "
    "Default is TCP.",
    NULL,
};
