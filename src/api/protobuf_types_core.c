/* Protobuf schema tables: k8s.io/api core/v1 — everything but the pod types (protobuf_types_core_pod.c).
 * Status messages are not decoded (clients send them only to /status subresources). */
#include "api/protobuf_internal.h"

#define F KG_PB_F
#define K KG_PB_K
#define R KG_PB_R
#define M KG_PB_M
#define RM KG_PB_RM
#define IN KG_PB_IN
#define MAPF KG_PB_MAPF
#define S KG_PB_STRING
#define B KG_PB_BOOL
#define I32 KG_PB_INT32
#define I64 KG_PB_INT64
#define Q KG_PB_QUANTITY

#define META M(1, "metadata", kg_api_pb_ObjectMeta)

KG_PB_LOCAL(pb_NamespaceSpec, R(1, S, "finalizers"));
KG_PB_MESSAGE(kg_api_pb_Namespace, META, M(2, "spec", pb_NamespaceSpec));

KG_PB_MESSAGE(kg_api_pb_ConfigMap, META, K(4, B, "immutable"), MAPF(2, S, "data"), MAPF(3, KG_PB_BYTES, "binaryData"));

KG_PB_MESSAGE(kg_api_pb_Secret, META, K(5, B, "immutable"), MAPF(2, KG_PB_BYTES, "data"), MAPF(4, S, "stringData"),
              F(3, S, "type"));

KG_PB_MESSAGE(kg_api_pb_ServiceAccount, META, RM(2, "secrets", kg_api_pb_ObjectReference),
              RM(3, "imagePullSecrets", kg_api_pb_LocalObjectReference), K(4, B, "automountServiceAccountToken"));

/* ---- Service ---- */
KG_PB_LOCAL(pb_ServicePort, F(1, S, "name"), F(2, S, "protocol"), K(6, S, "appProtocol"), K(3, I32, "port"),
            F(4, KG_PB_INTSTR, "targetPort"), F(5, I32, "nodePort"));
KG_PB_LOCAL(pb_ClientIPConfig, K(1, I32, "timeoutSeconds"));
KG_PB_LOCAL(pb_SessionAffinityConfig, M(1, "clientIP", pb_ClientIPConfig));
KG_PB_LOCAL(pb_ServiceSpec, RM(1, "ports", pb_ServicePort), MAPF(2, S, "selector"), F(3, S, "clusterIP"),
            R(18, S, "clusterIPs"), F(4, S, "type"), R(5, S, "externalIPs"), F(7, S, "sessionAffinity"),
            F(8, S, "loadBalancerIP"), R(9, S, "loadBalancerSourceRanges"), F(10, S, "externalName"),
            F(11, S, "externalTrafficPolicy"), F(12, I32, "healthCheckNodePort"), F(13, B, "publishNotReadyAddresses"),
            M(14, "sessionAffinityConfig", pb_SessionAffinityConfig), R(19, S, "ipFamilies"),
            K(17, S, "ipFamilyPolicy"), K(20, B, "allocateLoadBalancerNodePorts"), K(21, S, "loadBalancerClass"),
            K(22, S, "internalTrafficPolicy"), K(23, S, "trafficDistribution"));
KG_PB_MESSAGE(kg_api_pb_Service, META, M(2, "spec", pb_ServiceSpec));

/* ---- Endpoints ---- */
KG_PB_LOCAL(pb_EndpointAddress, K(1, S, "ip"), F(3, S, "hostname"), K(4, S, "nodeName"),
            M(2, "targetRef", kg_api_pb_ObjectReference));
KG_PB_LOCAL(pb_EndpointPort, F(1, S, "name"), K(2, I32, "port"), F(3, S, "protocol"), K(4, S, "appProtocol"));
KG_PB_LOCAL(pb_EndpointSubset, RM(1, "addresses", pb_EndpointAddress), RM(2, "notReadyAddresses", pb_EndpointAddress),
            RM(3, "ports", pb_EndpointPort));
KG_PB_MESSAGE(kg_api_pb_Endpoints, META, RM(2, "subsets", pb_EndpointSubset));

/* ---- quota and limits ---- */
KG_PB_LOCAL(pb_ScopedResourceSelectorRequirement, K(1, S, "scopeName"), K(2, S, "operator"), R(3, S, "values"));
KG_PB_LOCAL(pb_ScopeSelector, RM(1, "matchExpressions", pb_ScopedResourceSelectorRequirement));
KG_PB_LOCAL(pb_ResourceQuotaSpec, MAPF(1, Q, "hard"), R(2, S, "scopes"), M(3, "scopeSelector", pb_ScopeSelector));
KG_PB_LOCAL(pb_ResourceQuotaStatus, MAPF(1, Q, "hard"), MAPF(2, Q, "used"));
KG_PB_MESSAGE(kg_api_pb_ResourceQuota, META, M(2, "spec", pb_ResourceQuotaSpec),
              M(3, "status", pb_ResourceQuotaStatus));

KG_PB_LOCAL(pb_LimitRangeItem, K(1, S, "type"), MAPF(2, Q, "max"), MAPF(3, Q, "min"), MAPF(4, Q, "default"),
            MAPF(5, Q, "defaultRequest"), MAPF(6, Q, "maxLimitRequestRatio"));
KG_PB_LOCAL(pb_LimitRangeSpec, RM(1, "limits", pb_LimitRangeItem));
KG_PB_MESSAGE(kg_api_pb_LimitRange, META, M(2, "spec", pb_LimitRangeSpec));

/* ---- PersistentVolumeClaim ---- */
KG_PB_LOCAL(pb_TypedObjectReference, K(1, S, "apiGroup"), K(2, S, "kind"), K(3, S, "name"), K(4, S, "namespace"));
KG_PB_MESSAGE(kg_api_pb_PersistentVolumeClaimSpec, R(1, S, "accessModes"), M(4, "selector", kg_api_pb_LabelSelector),
              M(2, "resources", kg_api_pb_ResourceRequirements), F(3, S, "volumeName"), K(5, S, "storageClassName"),
              K(6, S, "volumeMode"), M(7, "dataSource", kg_api_pb_TypedLocalObjectReference),
              M(8, "dataSourceRef", pb_TypedObjectReference), K(9, S, "volumeAttributesClassName"));
KG_PB_MESSAGE(kg_api_pb_PersistentVolumeClaim, META, M(2, "spec", kg_api_pb_PersistentVolumeClaimSpec));

/* ---- Event (core/v1) ---- */
KG_PB_MESSAGE(kg_api_pb_EventSource, F(1, S, "component"), F(2, S, "host"));
KG_PB_MESSAGE(kg_api_pb_EventSeries, F(1, I32, "count"), F(2, KG_PB_MICROTIME, "lastObservedTime"));
KG_PB_MESSAGE(kg_api_pb_CoreEvent, META, M(2, "involvedObject", kg_api_pb_ObjectReference), F(3, S, "reason"),
              F(4, S, "message"), M(5, "source", kg_api_pb_EventSource), F(6, KG_PB_TIME, "firstTimestamp"),
              F(7, KG_PB_TIME, "lastTimestamp"), F(8, I32, "count"), F(9, S, "type"),
              F(10, KG_PB_MICROTIME, "eventTime"), M(11, "series", kg_api_pb_EventSeries), F(12, S, "action"),
              M(13, "related", kg_api_pb_ObjectReference), K(14, S, "reportingComponent"),
              K(15, S, "reportingInstance"));

/* ---- ReplicationController, Binding ---- */
KG_PB_LOCAL(pb_ReplicationControllerSpec, K(1, I32, "replicas"), F(4, I32, "minReadySeconds"), MAPF(2, S, "selector"),
            M(3, "template", kg_api_pb_PodTemplateSpec));
KG_PB_MESSAGE(kg_api_pb_ReplicationController, META, M(2, "spec", pb_ReplicationControllerSpec));
KG_PB_MESSAGE(kg_api_pb_Binding, META, M(2, "target", kg_api_pb_ObjectReference));

/* ---- Node (spec only: status comes from kubelets on /status) ---- */
KG_PB_LOCAL(pb_Taint, K(1, S, "key"), F(2, S, "value"), K(3, S, "effect"), F(4, KG_PB_TIME, "timeAdded"));
KG_PB_LOCAL(pb_NodeSpec, F(1, S, "podCIDR"), R(7, S, "podCIDRs"), F(3, S, "providerID"), F(4, B, "unschedulable"),
            RM(5, "taints", pb_Taint), F(2, S, "externalID"));
KG_PB_MESSAGE(kg_api_pb_Node, META, M(2, "spec", pb_NodeSpec));

/* ---- PersistentVolume ---- */
KG_PB_LOCAL(pb_SecretReference, F(1, S, "name"), F(2, S, "namespace"));
KG_PB_LOCAL(pb_PVHostPath, K(1, S, "path"), K(2, S, "type"));
KG_PB_LOCAL(pb_PVNFS, K(1, S, "server"), K(2, S, "path"), F(3, B, "readOnly"));
KG_PB_LOCAL(pb_PVLocal, K(1, S, "path"), K(2, S, "fsType"));
KG_PB_LOCAL(pb_PVGCEPersistentDisk, K(1, S, "pdName"), F(2, S, "fsType"), F(3, I32, "partition"), F(4, B, "readOnly"));
KG_PB_LOCAL(pb_PVAWSElasticBlockStore, K(1, S, "volumeID"), F(2, S, "fsType"), F(3, I32, "partition"),
            F(4, B, "readOnly"));
KG_PB_LOCAL(pb_PVFC, R(1, S, "targetWWNs"), K(2, I32, "lun"), F(3, S, "fsType"), F(4, B, "readOnly"), R(5, S, "wwids"));
KG_PB_LOCAL(pb_PVAzureDisk, K(1, S, "diskName"), K(2, S, "diskURI"), K(3, S, "cachingMode"), K(4, S, "fsType"),
            K(5, B, "readOnly"), K(6, S, "kind"));
KG_PB_LOCAL(pb_PVAzureFile, K(1, S, "secretName"), K(2, S, "shareName"), F(3, B, "readOnly"),
            K(4, S, "secretNamespace"));
KG_PB_LOCAL(pb_PVISCSI, K(1, S, "targetPortal"), K(2, S, "iqn"), K(3, I32, "lun"), F(4, S, "iscsiInterface"),
            F(5, S, "fsType"), F(6, B, "readOnly"), R(7, S, "portals"), F(8, B, "chapAuthDiscovery"),
            F(11, B, "chapAuthSession"), M(10, "secretRef", pb_SecretReference), K(12, S, "initiatorName"));
KG_PB_LOCAL(pb_CSIPersistentVolumeSource, K(1, S, "driver"), K(2, S, "volumeHandle"), F(3, B, "readOnly"),
            F(4, S, "fsType"), MAPF(5, S, "volumeAttributes"), M(6, "controllerPublishSecretRef", pb_SecretReference),
            M(7, "nodeStageSecretRef", pb_SecretReference), M(8, "nodePublishSecretRef", pb_SecretReference),
            M(9, "controllerExpandSecretRef", pb_SecretReference), M(10, "nodeExpandSecretRef", pb_SecretReference));
/* PersistentVolumeSource (inlined in the spec); not decoded: glusterfs 4, rbd 6, cinder 8, cephfs 9, flocker 11,
 * flexVolume 12, vsphereVolume 14, quobyte 15, photonPersistentDisk 17, portworxVolume 18, scaleIO 19, storageos 21 */
KG_PB_LOCAL(pb_PersistentVolumeSource, M(1, "gcePersistentDisk", pb_PVGCEPersistentDisk),
            M(2, "awsElasticBlockStore", pb_PVAWSElasticBlockStore), M(3, "hostPath", pb_PVHostPath),
            M(5, "nfs", pb_PVNFS), M(7, "iscsi", pb_PVISCSI), M(10, "fc", pb_PVFC), M(13, "azureFile", pb_PVAzureFile),
            M(16, "azureDisk", pb_PVAzureDisk), M(20, "local", pb_PVLocal), M(22, "csi", pb_CSIPersistentVolumeSource));
KG_PB_LOCAL(pb_VolumeNodeAffinity, M(1, "required", kg_api_pb_NodeSelector));
KG_PB_LOCAL(pb_PersistentVolumeSpec, MAPF(1, Q, "capacity"), IN(2, pb_PersistentVolumeSource), R(3, S, "accessModes"),
            M(4, "claimRef", kg_api_pb_ObjectReference), F(5, S, "persistentVolumeReclaimPolicy"),
            F(6, S, "storageClassName"), R(7, S, "mountOptions"), K(8, S, "volumeMode"),
            M(9, "nodeAffinity", pb_VolumeNodeAffinity), K(10, S, "volumeAttributesClassName"));
KG_PB_MESSAGE(kg_api_pb_PersistentVolume, META, M(2, "spec", pb_PersistentVolumeSpec));
