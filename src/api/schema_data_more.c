/* core/v1 PodTemplate, apps/v1 ControllerRevision, networking.k8s.io/v1 NetworkPolicy, discovery.k8s.io/v1
 * EndpointSlice, storage.k8s.io/v1 CSIDriver, CSINode and VolumeAttachment. */
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

    "=io.k8s.api.storage.v1",
    "@CSIDriver CSIDriver captures information about a Container Storage Interface (CSI) volume driver deployed on "
    "the cluster.",
    TM,
    META,
    ".spec CSIDriverSpec ! |spec represents the specification of the CSI Driver.",
    "@CSIDriverSpec CSIDriverSpec is the specification of a CSIDriver.",
    ".attachRequired b |attachRequired indicates this CSI volume driver requires an attach operation (because it "
    "implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should "
    "call the attach volume interface which checks the volumeattachment status and waits until the volume is "
    "attached before proceeding to mounting.",
    ".fsGroupPolicy s |fsGroupPolicy defines if the underlying volume supports changing ownership and permission of "
    "the volume before being mounted.",
    ".podInfoOnMount b |podInfoOnMount indicates this CSI volume driver requires additional pod information (like "
    "podName, podUID, etc.) during mount operations, if set to true.",
    ".requiresRepublish b |requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically "
    "called to reflect any possible change in the mounted volume.",
    ".seLinuxMount b |seLinuxMount specifies if the CSI driver supports \"-o context\" mount option.",
    ".storageCapacity b |storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the "
    "storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity "
    "information, if set to true.",
    ".tokenRequests []TokenRequest lt=atomic |tokenRequests indicates the CSI driver needs pods' service account "
    "tokens it is mounting volume for to do necessary authentication.",
    ".volumeLifecycleModes []s lt=set |volumeLifecycleModes defines what kind of volumes this CSI volume driver "
    "supports. The default if the list is empty is \"Persistent\".",
    "@TokenRequest TokenRequest contains parameters of a service account token.",
    ".audience s ! |audience is the intended audience of the token in \"TokenRequestSpec\".",
    ".expirationSeconds i64 |expirationSeconds is the duration of validity of the token in \"TokenRequestSpec\".",
    "@CSINode CSINode holds information about all CSI drivers installed on a node.",
    TM,
    ".metadata io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta |Standard object's metadata. metadata.name must be "
    "the Kubernetes node name.",
    ".spec CSINodeSpec ! |spec is the specification of CSINode",
    "@CSINodeSpec CSINodeSpec holds information about the specification of all CSI drivers installed on a node",
    ".drivers []CSINodeDriver ! mk=name ps=merge |drivers is a list of information of all CSI Drivers existing on a "
    "node. If all drivers in the list are uninstalled, this can become empty.",
    "@CSINodeDriver CSINodeDriver holds information about the specification of one CSI driver installed on a node",
    ".allocatable VolumeNodeResources |allocatable represents the volume resources of a node that are available for "
    "scheduling. This field is beta.",
    ".name s ! |name represents the name of the CSI driver that this object refers to.",
    ".nodeID s ! |nodeID of the node from the driver point of view.",
    ".topologyKeys []s lt=atomic |topologyKeys is the list of keys supported by the driver.",
    "@VolumeNodeResources VolumeNodeResources is a set of resource limits for scheduling of volumes.",
    ".count i32 |count indicates the maximum number of unique volumes managed by the CSI driver that can be used on "
    "a node.",
    "@VolumeAttachment VolumeAttachment captures the intent to attach or detach the specified volume to/from the "
    "specified node.",
    TM,
    META,
    ".spec VolumeAttachmentSpec ! |spec represents specification of the desired attach/detach volume behavior.",
    ".status VolumeAttachmentStatus |status represents status of the VolumeAttachment request.",
    "@VolumeAttachmentSpec VolumeAttachmentSpec is the specification of a VolumeAttachment request.",
    ".attacher s ! |attacher indicates the name of the volume driver that MUST handle this request.",
    ".nodeName s ! |nodeName represents the node that the volume should be attached to.",
    ".source VolumeAttachmentSource ! |source represents the volume that should be attached.",
    "@VolumeAttachmentSource VolumeAttachmentSource represents a volume that should be attached.",
    ".inlineVolumeSpec io.k8s.api.core.v1.PersistentVolumeSpec |inlineVolumeSpec contains all the information "
    "necessary to attach a persistent volume defined by a pod's inline VolumeSource.",
    ".persistentVolumeName s |persistentVolumeName represents the name of the persistent volume to attach.",
    "@VolumeAttachmentStatus VolumeAttachmentStatus is the status of a VolumeAttachment request.",
    ".attachError VolumeError |attachError represents the last error encountered during attach operation, if any.",
    ".attached b ! |attached indicates the volume is successfully attached.",
    ".attachmentMetadata {}s |attachmentMetadata is populated with any information returned by the attach operation, "
    "upon successful attach, that must be passed into subsequent WaitForAttach or Mount calls.",
    ".detachError VolumeError |detachError represents the last error encountered during detach operation, if any.",
    "@VolumeError VolumeError captures an error encountered during a volume operation.",
    ".errorCode i32 |errorCode is a numeric gRPC code representing the error encountered during Attach or Detach "
    "operations.",
    ".message s |message represents the error encountered during Attach or Detach operation.",
    ".time io.k8s.apimachinery.pkg.apis.meta.v1.Time |time represents the time the error was encountered.",
    NULL,
};
