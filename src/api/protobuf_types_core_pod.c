/* Protobuf schema tables: k8s.io/api core/v1 — Pod, PodSpec, Container, probes, security contexts, affinity,
 * volumes (field numbers of k8s.io/api/core/v1/generated.proto). KG_PB_K marks Go pointer fields and fields without
 * omitempty, whose zero values are meaningful (runAsUser: 0, optional: false, ...). */
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

/* ---- references and selectors ---- */
KG_PB_MESSAGE(kg_api_pb_LocalObjectReference, F(1, S, "name"));
KG_PB_MESSAGE(kg_api_pb_ObjectReference, F(1, S, "kind"), F(2, S, "namespace"), F(3, S, "name"), F(4, S, "uid"),
              F(5, S, "apiVersion"), F(6, S, "resourceVersion"), F(7, S, "fieldPath"));
KG_PB_MESSAGE(kg_api_pb_TypedLocalObjectReference, K(1, S, "apiGroup"), K(2, S, "kind"), K(3, S, "name"));
KG_PB_LOCAL(pb_ObjectFieldSelector, F(1, S, "apiVersion"), K(2, S, "fieldPath"));
KG_PB_LOCAL(pb_ResourceFieldSelector, F(1, S, "containerName"), K(2, S, "resource"), F(3, Q, "divisor"));
KG_PB_LOCAL(pb_ConfigMapKeySelector, IN(1, kg_api_pb_LocalObjectReference), K(2, S, "key"), K(3, B, "optional"));
KG_PB_LOCAL(pb_SecretKeySelector, IN(1, kg_api_pb_LocalObjectReference), K(2, S, "key"), K(3, B, "optional"));

/* ---- container ---- */
KG_PB_LOCAL(pb_ContainerPort, F(1, S, "name"), F(2, I32, "hostPort"), K(3, I32, "containerPort"), F(4, S, "protocol"),
            F(5, S, "hostIP"));
KG_PB_LOCAL(pb_EnvVarSource, M(1, "fieldRef", pb_ObjectFieldSelector),
            M(2, "resourceFieldRef", pb_ResourceFieldSelector), M(3, "configMapKeyRef", pb_ConfigMapKeySelector),
            M(4, "secretKeyRef", pb_SecretKeySelector));
KG_PB_LOCAL(pb_EnvVar, K(1, S, "name"), F(2, S, "value"), M(3, "valueFrom", pb_EnvVarSource));
KG_PB_LOCAL(pb_ConfigMapEnvSource, IN(1, kg_api_pb_LocalObjectReference), K(2, B, "optional"));
KG_PB_LOCAL(pb_SecretEnvSource, IN(1, kg_api_pb_LocalObjectReference), K(2, B, "optional"));
KG_PB_LOCAL(pb_EnvFromSource, F(1, S, "prefix"), M(2, "configMapRef", pb_ConfigMapEnvSource),
            M(3, "secretRef", pb_SecretEnvSource));
KG_PB_LOCAL(pb_ResourceClaim, K(1, S, "name"), F(2, S, "request"));
KG_PB_MESSAGE(kg_api_pb_ResourceRequirements, MAPF(1, Q, "limits"), MAPF(2, Q, "requests"),
              RM(3, "claims", pb_ResourceClaim));
KG_PB_LOCAL(pb_VolumeMount, K(1, S, "name"), F(2, B, "readOnly"), K(3, S, "mountPath"), F(4, S, "subPath"),
            K(5, S, "mountPropagation"), F(6, S, "subPathExpr"), K(7, S, "recursiveReadOnly"));
KG_PB_LOCAL(pb_VolumeDevice, K(1, S, "name"), K(2, S, "devicePath"));
KG_PB_LOCAL(pb_ExecAction, R(1, S, "command"));
KG_PB_LOCAL(pb_HTTPHeader, K(1, S, "name"), K(2, S, "value"));
KG_PB_LOCAL(pb_HTTPGetAction, F(1, S, "path"), F(2, KG_PB_INTSTR, "port"), F(3, S, "host"), F(4, S, "scheme"),
            RM(5, "httpHeaders", pb_HTTPHeader));
KG_PB_LOCAL(pb_TCPSocketAction, F(1, KG_PB_INTSTR, "port"), F(2, S, "host"));
KG_PB_LOCAL(pb_GRPCAction, K(1, I32, "port"), K(2, S, "service"));
KG_PB_LOCAL(pb_SleepAction, K(1, I64, "seconds"));
KG_PB_LOCAL(pb_ProbeHandler, M(1, "exec", pb_ExecAction), M(2, "httpGet", pb_HTTPGetAction),
            M(3, "tcpSocket", pb_TCPSocketAction), M(4, "grpc", pb_GRPCAction));
KG_PB_LOCAL(pb_LifecycleHandler, M(1, "exec", pb_ExecAction), M(2, "httpGet", pb_HTTPGetAction),
            M(3, "tcpSocket", pb_TCPSocketAction), M(4, "sleep", pb_SleepAction));
KG_PB_LOCAL(pb_Probe, IN(1, pb_ProbeHandler), F(2, I32, "initialDelaySeconds"), F(3, I32, "timeoutSeconds"),
            F(4, I32, "periodSeconds"), F(5, I32, "successThreshold"), F(6, I32, "failureThreshold"),
            K(7, I64, "terminationGracePeriodSeconds"));
KG_PB_LOCAL(pb_Lifecycle, M(1, "postStart", pb_LifecycleHandler), M(2, "preStop", pb_LifecycleHandler),
            K(3, S, "stopSignal"));
KG_PB_LOCAL(pb_Capabilities, R(1, S, "add"), R(2, S, "drop"));
KG_PB_LOCAL(pb_SELinuxOptions, F(1, S, "user"), F(2, S, "role"), F(3, S, "type"), F(4, S, "level"));
KG_PB_LOCAL(pb_WindowsSecurityContextOptions, K(1, S, "gmsaCredentialSpecName"), K(2, S, "gmsaCredentialSpec"),
            K(3, S, "runAsUserName"), K(4, B, "hostProcess"));
KG_PB_LOCAL(pb_SeccompProfile, K(1, S, "type"), K(2, S, "localhostProfile"));
KG_PB_LOCAL(pb_AppArmorProfile, K(1, S, "type"), K(2, S, "localhostProfile"));
KG_PB_LOCAL(pb_SecurityContext, M(1, "capabilities", pb_Capabilities), K(2, B, "privileged"),
            M(3, "seLinuxOptions", pb_SELinuxOptions), K(4, I64, "runAsUser"), K(5, B, "runAsNonRoot"),
            K(6, B, "readOnlyRootFilesystem"), K(7, B, "allowPrivilegeEscalation"), K(8, I64, "runAsGroup"),
            K(9, S, "procMount"), M(10, "windowsOptions", pb_WindowsSecurityContextOptions),
            M(11, "seccompProfile", pb_SeccompProfile), M(12, "appArmorProfile", pb_AppArmorProfile));
KG_PB_LOCAL(pb_ContainerResizePolicy, K(1, S, "resourceName"), K(2, S, "restartPolicy"));

KG_PB_MESSAGE(kg_api_pb_Container, K(1, S, "name"), F(2, S, "image"), R(3, S, "command"), R(4, S, "args"),
              F(5, S, "workingDir"), RM(6, "ports", pb_ContainerPort), RM(19, "envFrom", pb_EnvFromSource),
              RM(7, "env", pb_EnvVar), M(8, "resources", kg_api_pb_ResourceRequirements),
              RM(23, "resizePolicy", pb_ContainerResizePolicy), K(24, S, "restartPolicy"),
              RM(9, "volumeMounts", pb_VolumeMount), RM(21, "volumeDevices", pb_VolumeDevice),
              M(10, "livenessProbe", pb_Probe), M(11, "readinessProbe", pb_Probe), M(22, "startupProbe", pb_Probe),
              M(12, "lifecycle", pb_Lifecycle), F(13, S, "terminationMessagePath"),
              F(20, S, "terminationMessagePolicy"), F(14, S, "imagePullPolicy"),
              M(15, "securityContext", pb_SecurityContext), F(16, B, "stdin"), F(17, B, "stdinOnce"), F(18, B, "tty"));

/* EphemeralContainer = EphemeralContainerCommon (same field numbers as Container) inlined + targetContainerName */
KG_PB_LOCAL(pb_EphemeralContainer, IN(1, kg_api_pb_Container), F(2, S, "targetContainerName"));

/* ---- scheduling ---- */
KG_PB_MESSAGE(kg_api_pb_Toleration, F(1, S, "key"), F(2, S, "operator"), F(3, S, "value"), F(4, S, "effect"),
              K(5, I64, "tolerationSeconds"));
KG_PB_LOCAL(pb_NodeSelectorRequirement, K(1, S, "key"), K(2, S, "operator"), R(3, S, "values"));
KG_PB_LOCAL(pb_NodeSelectorTerm, RM(1, "matchExpressions", pb_NodeSelectorRequirement),
            RM(2, "matchFields", pb_NodeSelectorRequirement));
KG_PB_MESSAGE(kg_api_pb_NodeSelector, RM(1, "nodeSelectorTerms", pb_NodeSelectorTerm));
KG_PB_LOCAL(pb_PreferredSchedulingTerm, K(1, I32, "weight"), M(2, "preference", pb_NodeSelectorTerm));
KG_PB_LOCAL(pb_NodeAffinity, M(1, "requiredDuringSchedulingIgnoredDuringExecution", kg_api_pb_NodeSelector),
            RM(2, "preferredDuringSchedulingIgnoredDuringExecution", pb_PreferredSchedulingTerm));
KG_PB_LOCAL(pb_PodAffinityTerm, M(1, "labelSelector", kg_api_pb_LabelSelector), R(2, S, "namespaces"),
            K(3, S, "topologyKey"), M(4, "namespaceSelector", kg_api_pb_LabelSelector), R(5, S, "matchLabelKeys"),
            R(6, S, "mismatchLabelKeys"));
KG_PB_LOCAL(pb_WeightedPodAffinityTerm, K(1, I32, "weight"), M(2, "podAffinityTerm", pb_PodAffinityTerm));
KG_PB_LOCAL(pb_PodAffinity, RM(1, "requiredDuringSchedulingIgnoredDuringExecution", pb_PodAffinityTerm),
            RM(2, "preferredDuringSchedulingIgnoredDuringExecution", pb_WeightedPodAffinityTerm));
KG_PB_MESSAGE(kg_api_pb_Affinity, M(1, "nodeAffinity", pb_NodeAffinity), M(2, "podAffinity", pb_PodAffinity),
              M(3, "podAntiAffinity", pb_PodAffinity));
KG_PB_LOCAL(pb_TopologySpreadConstraint, K(1, I32, "maxSkew"), K(2, S, "topologyKey"), K(3, S, "whenUnsatisfiable"),
            M(4, "labelSelector", kg_api_pb_LabelSelector), K(5, I32, "minDomains"), K(6, S, "nodeAffinityPolicy"),
            K(7, S, "nodeTaintsPolicy"), R(8, S, "matchLabelKeys"));

/* ---- pod-level ---- */
KG_PB_LOCAL(pb_Sysctl, K(1, S, "name"), K(2, S, "value"));
KG_PB_LOCAL(pb_PodSecurityContext, M(1, "seLinuxOptions", pb_SELinuxOptions),
            M(8, "windowsOptions", pb_WindowsSecurityContextOptions), K(2, I64, "runAsUser"), K(6, I64, "runAsGroup"),
            K(3, B, "runAsNonRoot"), R(4, I64, "supplementalGroups"), K(12, S, "supplementalGroupsPolicy"),
            K(5, I64, "fsGroup"), RM(7, "sysctls", pb_Sysctl), K(9, S, "fsGroupChangePolicy"),
            M(10, "seccompProfile", pb_SeccompProfile), M(11, "appArmorProfile", pb_AppArmorProfile),
            K(13, S, "seLinuxChangePolicy"));
KG_PB_LOCAL(pb_HostAlias, K(1, S, "ip"), R(2, S, "hostnames"));
KG_PB_LOCAL(pb_PodDNSConfigOption, F(1, S, "name"), K(2, S, "value"));
KG_PB_LOCAL(pb_PodDNSConfig, R(1, S, "nameservers"), R(2, S, "searches"), RM(3, "options", pb_PodDNSConfigOption));
KG_PB_LOCAL(pb_PodReadinessGate, K(1, S, "conditionType"));
KG_PB_LOCAL(pb_PodOS, K(1, S, "name"));
KG_PB_LOCAL(pb_PodSchedulingGate, K(1, S, "name"));
KG_PB_LOCAL(pb_PodResourceClaim, K(1, S, "name"), K(3, S, "resourceClaimName"), K(4, S, "resourceClaimTemplateName"));

/* ---- volumes ---- */
KG_PB_LOCAL(pb_HostPathVolumeSource, K(1, S, "path"), K(2, S, "type"));
KG_PB_LOCAL(pb_EmptyDirVolumeSource, F(1, S, "medium"), F(2, Q, "sizeLimit"));
KG_PB_LOCAL(pb_GCEPersistentDiskVolumeSource, K(1, S, "pdName"), F(2, S, "fsType"), F(3, I32, "partition"),
            F(4, B, "readOnly"));
KG_PB_LOCAL(pb_AWSElasticBlockStoreVolumeSource, K(1, S, "volumeID"), F(2, S, "fsType"), F(3, I32, "partition"),
            F(4, B, "readOnly"));
KG_PB_LOCAL(pb_GitRepoVolumeSource, K(1, S, "repository"), F(2, S, "revision"), F(3, S, "directory"));
KG_PB_LOCAL(pb_KeyToPath, K(1, S, "key"), K(2, S, "path"), K(3, I32, "mode"));
KG_PB_LOCAL(pb_SecretVolumeSource, F(1, S, "secretName"), RM(2, "items", pb_KeyToPath), K(3, I32, "defaultMode"),
            K(4, B, "optional"));
KG_PB_LOCAL(pb_NFSVolumeSource, K(1, S, "server"), K(2, S, "path"), F(3, B, "readOnly"));
KG_PB_LOCAL(pb_ISCSIVolumeSource, K(1, S, "targetPortal"), K(2, S, "iqn"), K(3, I32, "lun"), F(4, S, "iscsiInterface"),
            F(5, S, "fsType"), F(6, B, "readOnly"), R(7, S, "portals"), F(8, B, "chapAuthDiscovery"),
            F(11, B, "chapAuthSession"), M(10, "secretRef", kg_api_pb_LocalObjectReference), K(12, S, "initiatorName"));
KG_PB_LOCAL(pb_GlusterfsVolumeSource, K(1, S, "endpoints"), K(2, S, "path"), F(3, B, "readOnly"));
KG_PB_LOCAL(pb_PersistentVolumeClaimVolumeSource, K(1, S, "claimName"), F(2, B, "readOnly"));
KG_PB_LOCAL(pb_RBDVolumeSource, R(1, S, "monitors"), K(2, S, "image"), F(3, S, "fsType"), F(4, S, "pool"),
            F(5, S, "user"), F(6, S, "keyring"), M(7, "secretRef", kg_api_pb_LocalObjectReference),
            F(8, B, "readOnly"));
KG_PB_LOCAL(pb_FlexVolumeSource, K(1, S, "driver"), F(2, S, "fsType"),
            M(3, "secretRef", kg_api_pb_LocalObjectReference), F(4, B, "readOnly"), MAPF(5, S, "options"));
KG_PB_LOCAL(pb_CinderVolumeSource, K(1, S, "volumeID"), F(2, S, "fsType"), F(3, B, "readOnly"),
            M(4, "secretRef", kg_api_pb_LocalObjectReference));
KG_PB_LOCAL(pb_CephFSVolumeSource, R(1, S, "monitors"), F(2, S, "path"), F(3, S, "user"), F(4, S, "secretFile"),
            M(5, "secretRef", kg_api_pb_LocalObjectReference), F(6, B, "readOnly"));
KG_PB_LOCAL(pb_DownwardAPIVolumeFile, K(1, S, "path"), M(2, "fieldRef", pb_ObjectFieldSelector),
            M(3, "resourceFieldRef", pb_ResourceFieldSelector), K(4, I32, "mode"));
KG_PB_LOCAL(pb_DownwardAPIVolumeSource, RM(1, "items", pb_DownwardAPIVolumeFile), K(2, I32, "defaultMode"));
KG_PB_LOCAL(pb_FCVolumeSource, R(1, S, "targetWWNs"), K(2, I32, "lun"), F(3, S, "fsType"), F(4, B, "readOnly"),
            R(5, S, "wwids"));
KG_PB_LOCAL(pb_AzureFileVolumeSource, K(1, S, "secretName"), K(2, S, "shareName"), F(3, B, "readOnly"));
KG_PB_LOCAL(pb_ConfigMapVolumeSource, IN(1, kg_api_pb_LocalObjectReference), RM(2, "items", pb_KeyToPath),
            K(3, I32, "defaultMode"), K(4, B, "optional"));
KG_PB_LOCAL(pb_AzureDiskVolumeSource, K(1, S, "diskName"), K(2, S, "diskURI"), K(3, S, "cachingMode"),
            K(4, S, "fsType"), K(5, B, "readOnly"), K(6, S, "kind"));
KG_PB_LOCAL(pb_SecretProjection, IN(1, kg_api_pb_LocalObjectReference), RM(2, "items", pb_KeyToPath),
            K(4, B, "optional"));
KG_PB_LOCAL(pb_ConfigMapProjection, IN(1, kg_api_pb_LocalObjectReference), RM(2, "items", pb_KeyToPath),
            K(4, B, "optional"));
KG_PB_LOCAL(pb_DownwardAPIProjection, RM(1, "items", pb_DownwardAPIVolumeFile));
KG_PB_LOCAL(pb_ServiceAccountTokenProjection, F(1, S, "audience"), K(2, I64, "expirationSeconds"), F(3, S, "path"));
KG_PB_LOCAL(pb_VolumeProjection, M(1, "secret", pb_SecretProjection), M(2, "downwardAPI", pb_DownwardAPIProjection),
            M(3, "configMap", pb_ConfigMapProjection), M(4, "serviceAccountToken", pb_ServiceAccountTokenProjection));
KG_PB_LOCAL(pb_ProjectedVolumeSource, RM(1, "sources", pb_VolumeProjection), K(2, I32, "defaultMode"));
KG_PB_LOCAL(pb_CSIVolumeSource, K(1, S, "driver"), K(2, B, "readOnly"), K(3, S, "fsType"),
            MAPF(4, S, "volumeAttributes"), M(5, "nodePublishSecretRef", kg_api_pb_LocalObjectReference));
KG_PB_LOCAL(pb_PersistentVolumeClaimTemplate, M(1, "metadata", kg_api_pb_ObjectMeta),
            M(2, "spec", kg_api_pb_PersistentVolumeClaimSpec));
KG_PB_LOCAL(pb_EphemeralVolumeSource, M(1, "volumeClaimTemplate", pb_PersistentVolumeClaimTemplate));
KG_PB_LOCAL(pb_ImageVolumeSource, F(1, S, "reference"), F(2, S, "pullPolicy"));

/* Not decoded (deprecated in-tree drivers): flocker 15, vsphereVolume 20, quobyte 21, photonPersistentDisk 23,
 * portworxVolume 24, scaleIO 25, storageos 27. */
KG_PB_LOCAL(pb_VolumeSource, M(1, "hostPath", pb_HostPathVolumeSource), M(2, "emptyDir", pb_EmptyDirVolumeSource),
            M(3, "gcePersistentDisk", pb_GCEPersistentDiskVolumeSource),
            M(4, "awsElasticBlockStore", pb_AWSElasticBlockStoreVolumeSource), M(5, "gitRepo", pb_GitRepoVolumeSource),
            M(6, "secret", pb_SecretVolumeSource), M(7, "nfs", pb_NFSVolumeSource), M(8, "iscsi", pb_ISCSIVolumeSource),
            M(9, "glusterfs", pb_GlusterfsVolumeSource),
            M(10, "persistentVolumeClaim", pb_PersistentVolumeClaimVolumeSource), M(11, "rbd", pb_RBDVolumeSource),
            M(12, "flexVolume", pb_FlexVolumeSource), M(13, "cinder", pb_CinderVolumeSource),
            M(14, "cephfs", pb_CephFSVolumeSource), M(16, "downwardAPI", pb_DownwardAPIVolumeSource),
            M(17, "fc", pb_FCVolumeSource), M(18, "azureFile", pb_AzureFileVolumeSource),
            M(19, "configMap", pb_ConfigMapVolumeSource), M(22, "azureDisk", pb_AzureDiskVolumeSource),
            M(26, "projected", pb_ProjectedVolumeSource), M(28, "csi", pb_CSIVolumeSource),
            M(29, "ephemeral", pb_EphemeralVolumeSource), M(30, "image", pb_ImageVolumeSource));
KG_PB_MESSAGE(kg_api_pb_Volume, K(1, S, "name"), IN(2, pb_VolumeSource));

/* ---- PodSpec / Pod ---- */
KG_PB_MESSAGE(kg_api_pb_PodSpec, RM(1, "volumes", kg_api_pb_Volume), RM(20, "initContainers", kg_api_pb_Container),
              RM(2, "containers", kg_api_pb_Container), RM(34, "ephemeralContainers", pb_EphemeralContainer),
              F(3, S, "restartPolicy"), K(4, I64, "terminationGracePeriodSeconds"), K(5, I64, "activeDeadlineSeconds"),
              F(6, S, "dnsPolicy"), MAPF(7, S, "nodeSelector"), F(8, S, "serviceAccountName"),
              F(9, S, "serviceAccount"), K(21, B, "automountServiceAccountToken"), F(10, S, "nodeName"),
              F(11, B, "hostNetwork"), F(12, B, "hostPID"), F(13, B, "hostIPC"), K(27, B, "shareProcessNamespace"),
              M(14, "securityContext", pb_PodSecurityContext),
              RM(15, "imagePullSecrets", kg_api_pb_LocalObjectReference), F(16, S, "hostname"), F(17, S, "subdomain"),
              M(18, "affinity", kg_api_pb_Affinity), F(19, S, "schedulerName"),
              RM(22, "tolerations", kg_api_pb_Toleration), RM(23, "hostAliases", pb_HostAlias),
              F(24, S, "priorityClassName"), K(25, I32, "priority"), M(26, "dnsConfig", pb_PodDNSConfig),
              RM(28, "readinessGates", pb_PodReadinessGate), K(29, S, "runtimeClassName"),
              K(30, B, "enableServiceLinks"), K(31, S, "preemptionPolicy"), MAPF(32, Q, "overhead"),
              RM(33, "topologySpreadConstraints", pb_TopologySpreadConstraint), K(35, B, "setHostnameAsFQDN"),
              M(36, "os", pb_PodOS), K(37, B, "hostUsers"), RM(38, "schedulingGates", pb_PodSchedulingGate),
              RM(39, "resourceClaims", pb_PodResourceClaim), M(40, "resources", kg_api_pb_ResourceRequirements));

/* status (3) is not decoded: clients do not send it on create/update of the main resource */
KG_PB_MESSAGE(kg_api_pb_Pod, M(1, "metadata", kg_api_pb_ObjectMeta), M(2, "spec", kg_api_pb_PodSpec));
KG_PB_MESSAGE(kg_api_pb_PodTemplateSpec, M(1, "metadata", kg_api_pb_ObjectMeta), M(2, "spec", kg_api_pb_PodSpec));
KG_PB_MESSAGE(kg_api_pb_PodTemplate, M(1, "metadata", kg_api_pb_ObjectMeta),
              M(2, "template", kg_api_pb_PodTemplateSpec));
