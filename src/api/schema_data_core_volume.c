/* core/v1 volumes: Volume and its sources, PersistentVolume, PersistentVolumeClaim. */
#include "api/schema_data.h"

#define META_DESC                                                                                                      \
    "|Standard object's metadata. More info: "                                                                         \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
#define SPEC_DESC "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status"
#define LEGACY(name, what)                                                                                             \
    "." name " obj |" what " (in-tree volume source, deprecated or rarely used; kgate keeps its fields opaque)."
#define DEFAULT_MODE                                                                                                   \
    ".defaultMode i32 |Optional: mode bits used to set permissions on created files by default. Must be an octal "     \
    "value between 0000 and 0777 or a decimal value between 0 and 511. YAML accepts both octal and decimal values, "   \
    "JSON requires decimal values for mode bits. Defaults to 0644."
#define ITEMS(what)                                                                                                    \
    ".items []KeyToPath lt=atomic |If unspecified, each key-value pair in the Data field of the referenced " what      \
    " will be projected into the volume as a file whose name is the key and content is the value. If specified, "      \
    "the listed keys will be projected into the specified paths, and unlisted keys will not be present."

const char *const kg_schema_data_core_volume[] = {
    "=io.k8s.api.core.v1",
    "@Volume Volume represents a named volume in a pod that may be accessed by any container in the pod.",
    LEGACY("awsElasticBlockStore", "awsElasticBlockStore represents an AWS Disk resource"),
    LEGACY("azureDisk", "azureDisk represents an Azure Data Disk mount on the host and bind mount to the pod"),
    LEGACY("azureFile", "azureFile represents an Azure File Service mount on the host and bind mount to the pod"),
    LEGACY("cephfs", "cephFS represents a Ceph FS mount on the host that shares a pod's lifetime"),
    LEGACY("cinder", "cinder represents a cinder volume attached and mounted on kubelets host machine"),
    ".configMap ConfigMapVolumeSource |configMap represents a configMap that should populate this volume",
    ".csi CSIVolumeSource |csi (Container Storage Interface) represents ephemeral storage that is handled by "
    "certain external CSI drivers.",
    ".downwardAPI DownwardAPIVolumeSource |downwardAPI represents downward API about the pod that should populate "
    "this volume",
    ".emptyDir EmptyDirVolumeSource |emptyDir represents a temporary directory that shares a pod's lifetime. More "
    "info: https://kubernetes.io/docs/concepts/storage/volumes#emptydir",
    ".ephemeral EphemeralVolumeSource |ephemeral represents a volume that is handled by a cluster storage driver. The "
    "volume's lifecycle is tied to the pod that defines it - it will be created before the pod starts, and deleted "
    "when the pod is removed.",
    LEGACY("fc", "fc represents a Fibre Channel resource that is attached to a kubelet's host machine"),
    LEGACY("flexVolume", "flexVolume represents a generic volume resource that is provisioned/attached using an exec "
                         "based plugin"),
    LEGACY("flocker", "flocker represents a Flocker volume attached to a kubelet's host machine"),
    LEGACY("gcePersistentDisk", "gcePersistentDisk represents a GCE Disk resource"),
    LEGACY("gitRepo", "gitRepo represents a git repository at a particular revision"),
    LEGACY("glusterfs", "glusterfs represents a Glusterfs mount on the host that shares a pod's lifetime"),
    ".hostPath HostPathVolumeSource |hostPath represents a pre-existing file or directory on the host machine that "
    "is directly exposed to the container. This is generally used for system agents or other privileged things that "
    "are allowed to see the host machine. More info: https://kubernetes.io/docs/concepts/storage/volumes#hostpath",
    ".image ImageVolumeSource |image represents an OCI object (a container image or artifact) pulled and mounted on "
    "the kubelet's host machine.",
    LEGACY("iscsi", "iscsi represents an ISCSI Disk resource that is attached to a kubelet's host machine"),
    ".name s ! |name of the volume. Must be a DNS_LABEL and unique within the pod. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names",
    ".nfs NFSVolumeSource |nfs represents an NFS mount on the host that shares a pod's lifetime More info: "
    "https://kubernetes.io/docs/concepts/storage/volumes#nfs",
    ".persistentVolumeClaim PersistentVolumeClaimVolumeSource |persistentVolumeClaimVolumeSource represents a "
    "reference to a PersistentVolumeClaim in the same namespace. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#persistentvolumeclaims",
    LEGACY("photonPersistentDisk", "photonPersistentDisk represents a PhotonController persistent disk"),
    LEGACY("portworxVolume", "portworxVolume represents a portworx volume attached and mounted on kubelets host "
                             "machine"),
    ".projected ProjectedVolumeSource |projected items for all in one resources secrets, configmaps, and downward "
    "API",
    LEGACY("quobyte", "quobyte represents a Quobyte mount on the host that shares a pod's lifetime"),
    LEGACY("rbd", "rbd represents a Rados Block Device mount on the host that shares a pod's lifetime"),
    LEGACY("scaleIO", "scaleIO represents a ScaleIO persistent volume attached and mounted on Kubernetes nodes"),
    ".secret SecretVolumeSource |secret represents a secret that should populate this volume. More info: "
    "https://kubernetes.io/docs/concepts/storage/volumes#secret",
    LEGACY("storageos", "storageOS represents a StorageOS volume attached and mounted on Kubernetes nodes"),
    LEGACY("vsphereVolume", "vsphereVolume represents a vSphere volume attached and mounted on kubelets host machine"),

    "@KeyToPath Maps a string key to a path within a volume.",
    ".key s ! |key is the key to project.",
    ".mode i32 |mode is Optional: mode bits used to set permissions on this file. Must be an octal value between 0000 "
    "and 0777 or a decimal value between 0 and 511. If not specified, the volume defaultMode will be used.",
    ".path s ! |path is the relative path of the file to map the key to. May not be an absolute path. May not "
    "contain the path element '..'. May not start with the string '..'.",
    "@ConfigMapVolumeSource Adapts a ConfigMap into a volume. The contents of the target ConfigMap's Data field will "
    "be presented in a volume as files using the keys in the Data field as the file names, unless the items element "
    "is populated with specific mappings of keys to paths.",
    DEFAULT_MODE,
    ITEMS("ConfigMap"),
    ".name s |Name of the referent. This field is effectively required, but due to backwards compatibility is "
    "allowed to be empty. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names",
    ".optional b |optional specify whether the ConfigMap or its keys must be defined",
    "@SecretVolumeSource Adapts a Secret into a volume. The contents of the target Secret's Data field will be "
    "presented in a volume as files using the keys in the Data field as the file names.",
    DEFAULT_MODE,
    ITEMS("Secret"),
    ".optional b |optional field specify whether the Secret or its keys must be defined",
    ".secretName s |secretName is the name of the secret in the pod's namespace to use. More info: "
    "https://kubernetes.io/docs/concepts/storage/volumes#secret",
    "@EmptyDirVolumeSource Represents an empty directory for a pod. Empty directory volumes support ownership "
    "management and SELinux relabeling.",
    ".medium s |medium represents what type of storage medium should back this directory. The default is '' which "
    "means to use the node's default medium. Must be an empty string (default) or Memory. More info: "
    "https://kubernetes.io/docs/concepts/storage/volumes#emptydir",
    ".sizeLimit q |sizeLimit is the total amount of local storage required for this EmptyDir volume. The size limit "
    "is also applicable for memory medium. The default is nil which means that the limit is undefined. More info: "
    "https://kubernetes.io/docs/concepts/storage/volumes#emptydir",
    "@HostPathVolumeSource Represents a host path mapped into a pod. Host path volumes do not support ownership "
    "management or SELinux relabeling.",
    ".path s ! |path of the directory on the host. If the path is a symlink, it will follow the link to the real "
    "path. More info: https://kubernetes.io/docs/concepts/storage/volumes#hostpath",
    ".type s e=,BlockDevice,CharDevice,Directory,DirectoryOrCreate,File,FileOrCreate,Socket |type for HostPath "
    "Volume Defaults to '' More info: https://kubernetes.io/docs/concepts/storage/volumes#hostpath",
    "@NFSVolumeSource Represents an NFS mount that lasts the lifetime of a pod. NFS volumes do not support ownership "
    "management or SELinux relabeling.",
    ".path s ! |path that is exported by the NFS server. More info: "
    "https://kubernetes.io/docs/concepts/storage/volumes#nfs",
    ".readOnly b |readOnly here will force the NFS export to be mounted with read-only permissions. Defaults to "
    "false. More info: https://kubernetes.io/docs/concepts/storage/volumes#nfs",
    ".server s ! |server is the hostname or IP address of the NFS server. More info: "
    "https://kubernetes.io/docs/concepts/storage/volumes#nfs",
    "@PersistentVolumeClaimVolumeSource PersistentVolumeClaimVolumeSource references the user's PVC in the same "
    "namespace. This volume finds the bound PV and mounts that volume for the pod.",
    ".claimName s ! |claimName is the name of a PersistentVolumeClaim in the same namespace as the pod using this "
    "volume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#persistentvolumeclaims",
    ".readOnly b |readOnly Will force the ReadOnly setting in VolumeMounts. Default false.",
    "@DownwardAPIVolumeSource DownwardAPIVolumeSource represents a volume containing downward API info. Downward API "
    "volumes support ownership management and SELinux relabeling.",
    DEFAULT_MODE,
    ".items []DownwardAPIVolumeFile lt=atomic |Items is a list of downward API volume file",
    "@DownwardAPIVolumeFile DownwardAPIVolumeFile represents information to create the file containing the pod "
    "field",
    ".fieldRef ObjectFieldSelector |Required: Selects a field of the pod: only annotations, labels, name, namespace "
    "and uid are supported.",
    ".mode i32 |Optional: mode bits used to set permissions on this file, must be an octal value between 0000 and "
    "0777 or a decimal value between 0 and 511. If not specified, the volume defaultMode will be used.",
    ".path s ! |Required: Path is the relative path name of the file to be created. Must not be absolute or contain "
    "the '..' path. Must be utf-8 encoded. The first item of the relative path must not start with '..'",
    ".resourceFieldRef ResourceFieldSelector |Selects a resource of the container: only resources limits and "
    "requests (limits.cpu, limits.memory, requests.cpu and requests.memory) are currently supported.",
    "@ProjectedVolumeSource Represents a projected volume source",
    DEFAULT_MODE,
    ".sources []VolumeProjection lt=atomic |sources is the list of volume projections. Each entry in this list "
    "handles one source.",
    "@VolumeProjection Projection that may be projected along with other supported volume types. Exactly one of "
    "these fields must be set.",
    ".clusterTrustBundle ClusterTrustBundleProjection |ClusterTrustBundle allows a pod to access the "
    "`.spec.trustBundle` field of ClusterTrustBundle objects in an auto-updating file.",
    ".configMap ConfigMapProjection |configMap information about the configMap data to project",
    ".downwardAPI DownwardAPIProjection |downwardAPI information about the downwardAPI data to project",
    ".secret SecretProjection |secret information about the secret data to project",
    ".serviceAccountToken ServiceAccountTokenProjection |serviceAccountToken is information about the "
    "serviceAccountToken data to project",
    "@ConfigMapProjection Adapts a ConfigMap into a projected volume.",
    ITEMS("ConfigMap"),
    ".name s |Name of the referent. This field is effectively required, but due to backwards compatibility is "
    "allowed to be empty.",
    ".optional b |optional specify whether the ConfigMap or its keys must be defined",
    "@SecretProjection Adapts a secret into a projected volume.",
    ITEMS("Secret"),
    ".name s |Name of the referent. This field is effectively required, but due to backwards compatibility is "
    "allowed to be empty.",
    ".optional b |optional field specify whether the Secret or its key must be defined",
    "@DownwardAPIProjection Represents downward API info for projecting into a projected volume.",
    ".items []DownwardAPIVolumeFile lt=atomic |Items is a list of DownwardAPIVolume file",
    "@ServiceAccountTokenProjection ServiceAccountTokenProjection represents a projected service account token "
    "volume. This projection can be used to insert a service account token into the pods runtime filesystem for use "
    "against APIs (Kubernetes API Server or otherwise).",
    ".audience s |audience is the intended audience of the token. A recipient of a token must identify itself with "
    "an identifier specified in the audience of the token, and otherwise should reject the token. The audience "
    "defaults to the identifier of the apiserver.",
    ".expirationSeconds i64 |expirationSeconds is the requested duration of validity of the service account token. "
    "The kubelet will start trying to rotate the token if the token is older than 80 percent of its time to live or "
    "if the token is older than 24 hours. Defaults to 1 hour and must be at least 10 minutes.",
    ".path s ! |path is the path relative to the mount point of the file to project the token into.",
    "@ClusterTrustBundleProjection ClusterTrustBundleProjection describes how to select a set of ClusterTrustBundle "
    "objects and project their contents into the pod filesystem.",
    ".labelSelector LabelSelector |Select all ClusterTrustBundles that match this label selector. Only has effect if "
    "signerName is set. Mutually-exclusive with name.",
    ".name s |Select a single ClusterTrustBundle by object name. Mutually-exclusive with signerName and "
    "labelSelector.",
    ".optional b |If true, don't block pod startup if the referenced ClusterTrustBundle(s) aren't available.",
    ".path s ! |Relative path from the volume root to write the bundle.",
    ".signerName s |Select all ClusterTrustBundles that match this signer name. Mutually-exclusive with name.",
    "@CSIVolumeSource Represents a source location of a volume to mount, managed by an external CSI driver",
    ".driver s ! |driver is the name of the CSI driver that handles this volume. Consult with your admin for the "
    "correct name as registered in the cluster.",
    ".fsType s |fsType to mount. Ex. 'ext4', 'xfs', 'ntfs'. If not provided, the empty value is passed to the "
    "associated CSI driver which will determine the default filesystem to apply.",
    ".nodePublishSecretRef LocalObjectReference |nodePublishSecretRef is a reference to the secret object containing "
    "sensitive information to pass to the CSI driver to complete the CSI NodePublishVolume and NodeUnpublishVolume "
    "calls.",
    ".readOnly b |readOnly specifies a read-only configuration for the volume. Defaults to false (read/write).",
    ".volumeAttributes {}s |volumeAttributes stores driver-specific properties that are passed to the CSI driver. "
    "Consult your driver's documentation for supported values.",
    "@EphemeralVolumeSource Represents an ephemeral volume that is handled by a normal storage driver.",
    ".volumeClaimTemplate PersistentVolumeClaimTemplate |Will be used to create a stand-alone PVC to provision the "
    "volume. The pod in which this EphemeralVolumeSource is embedded will be the owner of the PVC. The PVC name is "
    "'<pod name>-<volume name>'. Required, must not be nil.",
    "@PersistentVolumeClaimTemplate PersistentVolumeClaimTemplate is used to produce PersistentVolumeClaim objects as "
    "part of an EphemeralVolumeSource.",
    ".metadata ObjectMeta |May contain labels and annotations that will be copied into the PVC when creating it. No "
    "other fields are allowed and will be rejected during validation.",
    ".spec PersistentVolumeClaimSpec ! |The specification for the PersistentVolumeClaim. The entire content is "
    "copied unchanged into the PVC that gets created from this template.",
    "@ImageVolumeSource ImageVolumeSource represents a image volume resource.",
    ".pullPolicy s e=Always,IfNotPresent,Never |Policy for pulling OCI objects. Possible values are: Always, Never, "
    "IfNotPresent. Defaults to Always if :latest tag is specified, or IfNotPresent otherwise.",
    ".reference s |Required: Image or artifact reference to be used. Behaves in the same way as "
    "pod.spec.containers[*].image.",

    "@PersistentVolumeClaim PersistentVolumeClaim is a user's request for and claim to a persistent volume",
    ">io.k8s.apimachinery.pkg.apis.meta.v1._TypeMeta",
    ".metadata ObjectMeta " META_DESC,
    ".spec PersistentVolumeClaimSpec |spec defines the desired characteristics of a volume requested by a pod "
    "author. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#persistentvolumeclaims",
    ".status PersistentVolumeClaimStatus |status represents the current information/status of a persistent volume "
    "claim. Read-only. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#persistentvolumeclaims",
    "@PersistentVolumeClaimSpec PersistentVolumeClaimSpec describes the common attributes of storage devices and "
    "allows a Source for provider-specific attributes",
    ".accessModes []s lt=atomic |accessModes contains the desired access modes the volume should have. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1",
    ".dataSource TypedLocalObjectReference |dataSource field can be used to specify either: * An existing "
    "VolumeSnapshot object (snapshot.storage.k8s.io/VolumeSnapshot) * An existing PVC (PersistentVolumeClaim). If "
    "the provisioner or an external controller can support the specified data source, it will create a new volume "
    "based on the contents of the specified data source.",
    ".dataSourceRef TypedObjectReference |dataSourceRef specifies the object from which to populate the volume with "
    "data, if a non-empty volume is desired. This may be any object from a non-empty API group (non core object) or "
    "a PersistentVolumeClaim object.",
    ".resources VolumeResourceRequirements |resources represents the minimum resources the volume should have. More "
    "info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#resources",
    ".selector LabelSelector |selector is a label query over volumes to consider for binding.",
    ".storageClassName s |storageClassName is the name of the StorageClass required by the claim. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#class-1",
    ".volumeAttributesClassName s |volumeAttributesClassName may be used to set the VolumeAttributesClass used by "
    "this claim.",
    ".volumeMode s e=Block,Filesystem |volumeMode defines what type of volume is required by the claim. Value of "
    "Filesystem is implied when not included in claim spec.",
    ".volumeName s |volumeName is the binding reference to the PersistentVolume backing this claim.",
    "@VolumeResourceRequirements VolumeResourceRequirements describes the storage resource requirements for a volume.",
    ".limits {}q |Limits describes the maximum amount of compute resources allowed. More info: "
    "https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/",
    ".requests {}q |Requests describes the minimum amount of compute resources required. More info: "
    "https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/",
    "@TypedLocalObjectReference TypedLocalObjectReference contains enough information to let you locate the typed "
    "referenced object inside the same namespace.",
    ".apiGroup s |APIGroup is the group for the resource being referenced. If APIGroup is not specified, the "
    "specified Kind must be in the core API group. For any other third-party types, APIGroup is required.",
    ".kind s ! |Kind is the type of resource being referenced",
    ".name s ! |Name is the name of resource being referenced",
    "@TypedObjectReference TypedObjectReference contains enough information to let you locate the typed referenced "
    "object",
    ".apiGroup s |APIGroup is the group for the resource being referenced. If APIGroup is not specified, the "
    "specified Kind must be in the core API group. For any other third-party types, APIGroup is required.",
    ".kind s ! |Kind is the type of resource being referenced",
    ".name s ! |Name is the name of resource being referenced",
    ".namespace s |Namespace is the namespace of resource being referenced. Note that when a namespace is specified, "
    "a gateway.networking.k8s.io/ReferenceGrant object is required in the referent namespace to allow that "
    "namespace's owner to accept the reference.",
    "@PersistentVolumeClaimStatus PersistentVolumeClaimStatus is the current status of a persistent volume claim.",
    ".accessModes []s lt=atomic |accessModes contains the actual access modes the volume backing the PVC has.",
    ".allocatedResourceStatuses {}s |allocatedResourceStatuses stores status of resource being resized for the given "
    "PVC.",
    ".allocatedResources {}q |allocatedResources tracks the resources allocated to a PVC including its capacity.",
    ".capacity {}q |capacity represents the actual resources of the underlying volume.",
    ".conditions []PersistentVolumeClaimCondition lt=map lk=type mk=type ps=merge |conditions is the current "
    "Condition of persistent volume claim. If underlying persistent volume is being resized then the Condition will "
    "be set to 'Resizing'.",
    ".currentVolumeAttributesClassName s |currentVolumeAttributesClassName is the current name of the "
    "VolumeAttributesClass the PVC is using.",
    ".modifyVolumeStatus obj |ModifyVolumeStatus represents the status object of ControllerModifyVolume operation.",
    ".phase s e=Bound,Lost,Pending |phase represents the current phase of PersistentVolumeClaim.",
    "@PersistentVolumeClaimCondition PersistentVolumeClaimCondition contains details about state of pvc",
    ".lastProbeTime t |lastProbeTime is the time we probed the condition.",
    ".lastTransitionTime t |lastTransitionTime is the time the condition transitioned from one status to another.",
    ".message s |message is the human-readable message indicating details about last transition.",
    ".reason s |reason is a unique, this should be a short, machine understandable string that gives the reason for "
    "condition's last transition.",
    ".status s ! |Status is the status of the condition. Can be True, False, Unknown.",
    ".type s ! |Type is the type of the condition.",

    "@PersistentVolume PersistentVolume (PV) is a storage resource provisioned by an administrator. It is analogous "
    "to a node. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes",
    ">io.k8s.apimachinery.pkg.apis.meta.v1._TypeMeta",
    ".metadata ObjectMeta " META_DESC,
    ".spec PersistentVolumeSpec |spec defines a specification of a persistent volume owned by the cluster. "
    "Provisioned by an administrator. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#persistent-volumes",
    ".status PersistentVolumeStatus |status represents the current information/status for the persistent volume. "
    "Populated by the system. Read-only. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#persistent-volumes",
    "@PersistentVolumeSpec PersistentVolumeSpec is the specification of a persistent volume.",
    ".accessModes []s lt=atomic |accessModes contains all ways the volume can be mounted. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes",
    LEGACY("awsElasticBlockStore", "awsElasticBlockStore represents an AWS Disk resource"),
    LEGACY("azureDisk", "azureDisk represents an Azure Data Disk mount on the host and bind mount to the pod"),
    LEGACY("azureFile", "azureFile represents an Azure File Service mount on the host and bind mount to the pod"),
    ".capacity {}q |capacity is the description of the persistent volume's resources and capacity. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity",
    LEGACY("cephfs", "cephFS represents a Ceph FS mount on the host that shares a pod's lifetime"),
    LEGACY("cinder", "cinder represents a cinder volume attached and mounted on kubelets host machine"),
    ".claimRef ObjectReference |claimRef is part of a bi-directional binding between PersistentVolume and "
    "PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between "
    "PV and PVC.",
    ".csi CSIPersistentVolumeSource |csi represents storage that is handled by an external CSI driver.",
    LEGACY("fc", "fc represents a Fibre Channel resource that is attached to a kubelet's host machine"),
    LEGACY("flexVolume", "flexVolume represents a generic volume resource that is provisioned/attached using an exec "
                         "based plugin"),
    LEGACY("flocker", "flocker represents a Flocker volume attached to a kubelet's host machine"),
    LEGACY("gcePersistentDisk", "gcePersistentDisk represents a GCE Disk resource"),
    LEGACY("glusterfs", "glusterfs represents a Glusterfs volume that is attached to a host and exposed to the pod"),
    ".hostPath HostPathVolumeSource |hostPath represents a directory on the host. Provisioned by a developer or "
    "tester. This is useful for single-node development and testing only! More info: "
    "https://kubernetes.io/docs/concepts/storage/volumes#hostpath",
    LEGACY("iscsi", "iscsi represents an ISCSI Disk resource that is attached to a kubelet's host machine"),
    ".local LocalVolumeSource |local represents directly-attached storage with node affinity",
    ".mountOptions []s lt=atomic |mountOptions is the list of mount options, e.g. ['ro', 'soft']. Not validated - "
    "mount will simply fail if one is invalid. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes/#mount-options",
    ".nfs NFSVolumeSource |nfs represents an NFS mount on the host. Provisioned by an admin. More info: "
    "https://kubernetes.io/docs/concepts/storage/volumes#nfs",
    ".nodeAffinity VolumeNodeAffinity |nodeAffinity defines constraints that limit what nodes this volume can be "
    "accessed from. This field influences the scheduling of pods that use this volume.",
    ".persistentVolumeReclaimPolicy s e=Delete,Recycle,Retain |persistentVolumeReclaimPolicy defines what happens to "
    "a persistent volume when released from its claim. Valid options are Retain (default for manually created "
    "PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated).",
    LEGACY("photonPersistentDisk", "photonPersistentDisk represents a PhotonController persistent disk"),
    LEGACY("portworxVolume", "portworxVolume represents a portworx volume attached and mounted on kubelets host "
                             "machine"),
    LEGACY("quobyte", "quobyte represents a Quobyte mount on the host that shares a pod's lifetime"),
    LEGACY("rbd", "rbd represents a Rados Block Device mount on the host that shares a pod's lifetime"),
    LEGACY("scaleIO", "scaleIO represents a ScaleIO persistent volume attached and mounted on Kubernetes nodes"),
    ".storageClassName s |storageClassName is the name of StorageClass to which this persistent volume belongs. "
    "Empty value means that this volume does not belong to any StorageClass.",
    LEGACY("storageos", "storageOS represents a StorageOS volume attached and mounted on Kubernetes nodes"),
    ".volumeAttributesClassName s |Name of VolumeAttributesClass to which this persistent volume belongs.",
    ".volumeMode s e=Block,Filesystem |volumeMode defines if a volume is intended to be used with a formatted "
    "filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.",
    LEGACY("vsphereVolume", "vsphereVolume represents a vSphere volume attached and mounted on kubelets host machine"),
    "@CSIPersistentVolumeSource Represents storage that is managed by an external CSI volume driver",
    ".controllerExpandSecretRef SecretReference |controllerExpandSecretRef is a reference to the secret object "
    "containing sensitive information to pass to the CSI driver to complete the CSI ControllerExpandVolume call.",
    ".controllerPublishSecretRef SecretReference |controllerPublishSecretRef is a reference to the secret object "
    "containing sensitive information to pass to the CSI driver to complete the CSI ControllerPublishVolume and "
    "ControllerUnpublishVolume calls.",
    ".driver s ! |driver is the name of the driver to use for this volume. Required.",
    ".fsType s |fsType to mount. Must be a filesystem type supported by the host operating system. Ex. 'ext4', "
    "'xfs', 'ntfs'.",
    ".nodeExpandSecretRef SecretReference |nodeExpandSecretRef is a reference to the secret object containing "
    "sensitive information to pass to the CSI driver to complete the CSI NodeExpandVolume call.",
    ".nodePublishSecretRef SecretReference |nodePublishSecretRef is a reference to the secret object containing "
    "sensitive information to pass to the CSI driver to complete the CSI NodePublishVolume and NodeUnpublishVolume "
    "calls.",
    ".nodeStageSecretRef SecretReference |nodeStageSecretRef is a reference to the secret object containing sensitive "
    "information to pass to the CSI driver to complete the CSI NodeStageVolume and NodeStageVolume and "
    "NodeUnstageVolume calls.",
    ".readOnly b |readOnly value to pass to ControllerPublishVolumeRequest. Defaults to false (read/write).",
    ".volumeAttributes {}s |volumeAttributes of the volume to publish.",
    ".volumeHandle s ! |volumeHandle is the unique volume name returned by the CSI volume plugin's CreateVolume to "
    "refer to the volume on all subsequent calls. Required.",
    "@SecretReference SecretReference represents a Secret Reference. It has enough information to retrieve secret in "
    "any namespace",
    ".name s |name is unique within a namespace to reference a secret resource.",
    ".namespace s |namespace defines the space within which the secret name must be unique.",
    "@LocalVolumeSource Local represents directly-attached storage with node affinity",
    ".fsType s |fsType is the filesystem type to mount. It applies only when the Path is a block device.",
    ".path s ! |path of the full path to the volume on the node. It can be either a directory or block device (disk, "
    "partition, ...).",
    "@VolumeNodeAffinity VolumeNodeAffinity defines constraints that limit what nodes this volume can be accessed "
    "from.",
    ".required NodeSelector |required specifies hard node constraints that must be met.",
    "@PersistentVolumeStatus PersistentVolumeStatus is the current status of a persistent volume.",
    ".lastPhaseTransitionTime t |lastPhaseTransitionTime is the time the phase transitioned from one to another and "
    "automatically resets to current time everytime a volume phase transitions.",
    ".message s |message is a human-readable message indicating details about why the volume is in this state.",
    ".phase s e=Available,Bound,Failed,Pending,Released |phase indicates if a volume is available, bound to a claim, "
    "or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase",
    ".reason s |reason is a brief CamelCase string that describes any failure and is meant for machine parsing and "
    "tidy display in the CLI.",
    NULL,
};
