/* apps/v1: Deployment, ReplicaSet, StatefulSet, DaemonSet. */
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
#define MIN_READY                                                                                                      \
    ".minReadySeconds i32 |Minimum number of seconds for which a newly created pod should be ready without any of "    \
    "its container crashing, for it to be considered available. Defaults to 0 (pod will be considered available as "   \
    "soon as it is ready)"
#define HISTORY(what)                                                                                                  \
    ".revisionHistoryLimit i32 |The number of old " what " to retain to allow rollback. This is a pointer to "         \
    "distinguish between explicit zero and not specified. Defaults to 10."
#define SELECTOR(what)                                                                                                 \
    ".selector io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector ! |Label selector for pods. Existing " what          \
    " whose pods are selected by this will be the ones affected by this " what ". It must match the pod template's "   \
    "labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
#define COLLISION                                                                                                      \
    ".collisionCount i32 |Count of hash collisions for the controller. The controller uses this field as a "           \
    "collision avoidance mechanism when it needs to create the name for the newest ControllerRevision."
#define OBSERVED ".observedGeneration i64 |The generation observed by the controller."

const char *const kg_schema_data_apps[] = {
    "=io.k8s.api.apps.v1",
    "@Deployment Deployment enables declarative updates for Pods and ReplicaSets.",
    TM,
    META,
    ".spec DeploymentSpec |Specification of the desired behavior of the Deployment.",
    ".status DeploymentStatus |Most recently observed status of the Deployment.",
    "@DeploymentSpec DeploymentSpec is the specification of the desired behavior of the Deployment.",
    MIN_READY,
    ".paused b |Indicates that the deployment is paused.",
    ".progressDeadlineSeconds i32 |The maximum time in seconds for a deployment to make progress before it is "
    "considered to be failed. The deployment controller will continue to process failed deployments and a condition "
    "with a ProgressDeadlineExceeded reason will be surfaced in the deployment status. Defaults to 600s.",
    ".replicas i32 |Number of desired pods. This is a pointer to distinguish between explicit zero and not "
    "specified. Defaults to 1.",
    HISTORY("ReplicaSets"),
    SELECTOR("ReplicaSets"),
    ".strategy DeploymentStrategy ps=retainKeys |The deployment strategy to use to replace existing pods with new "
    "ones.",
    ".template io.k8s.api.core.v1.PodTemplateSpec ! |Template describes the pods that will be created. The only "
    "allowed template.spec.restartPolicy value is 'Always'.",
    "@DeploymentStrategy DeploymentStrategy describes how to replace existing pods with new ones.",
    ".rollingUpdate RollingUpdateDeployment |Rolling update config params. Present only if DeploymentStrategyType = "
    "RollingUpdate.",
    ".type s e=Recreate,RollingUpdate |Type of deployment. Can be 'Recreate' or 'RollingUpdate'. Default is "
    "RollingUpdate.",
    "@RollingUpdateDeployment Spec to control the desired behavior of rolling update.",
    ".maxSurge ios |The maximum number of pods that can be scheduled above the desired number of pods. Value can be "
    "an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). This can not be 0 if MaxUnavailable is 0. "
    "Absolute number is calculated from percentage by rounding up. Defaults to 25%.",
    ".maxUnavailable ios |The maximum number of pods that can be unavailable during the update. Value can be an "
    "absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Absolute number is calculated from "
    "percentage by rounding down. This can not be 0 if MaxSurge is 0. Defaults to 25%.",
    "@DeploymentStatus DeploymentStatus is the most recently observed status of the Deployment.",
    ".availableReplicas i32 |Total number of available non-terminating pods (ready for at least minReadySeconds) "
    "targeted by this deployment.",
    COLLISION,
    ".conditions []DeploymentCondition lt=map lk=type mk=type ps=merge |Represents the latest available observations "
    "of a deployment's current state.",
    OBSERVED,
    ".readyReplicas i32 |Total number of non-terminating pods targeted by this Deployment with a Ready Condition.",
    ".replicas i32 |Total number of non-terminating pods targeted by this deployment (their labels match the "
    "selector).",
    ".terminatingReplicas i32 |Total number of terminating pods targeted by this deployment. Terminating pods have a "
    "non-null .metadata.deletionTimestamp and have not yet reached the Failed or Succeeded .status.phase.",
    ".unavailableReplicas i32 |Total number of unavailable pods targeted by this deployment. This is the total number "
    "of pods that are still required for the deployment to have 100% available capacity.",
    ".updatedReplicas i32 |Total number of non-terminating pods targeted by this deployment that have the desired "
    "template spec.",
    "@DeploymentCondition DeploymentCondition describes the state of a deployment at a certain point.",
    ".lastUpdateTime t |The last time this condition was updated.",
    COND_FIELDS("deployment"),

    "@ReplicaSet ReplicaSet ensures that a specified number of pod replicas are running at any given time.",
    TM,
    ".metadata ObjectMeta |If the Labels of a ReplicaSet are empty, they are defaulted to be the same as the Pod(s) "
    "that the ReplicaSet manages. Standard object's metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    ".spec ReplicaSetSpec |Spec defines the specification of the desired behavior of the ReplicaSet. More "
    "info: " SPEC_DESC,
    ".status ReplicaSetStatus |Status is the most recently observed status of the ReplicaSet. Populated by the "
    "system. Read-only. More info: " SPEC_DESC,
    "@ReplicaSetSpec ReplicaSetSpec is the specification of a ReplicaSet.",
    MIN_READY,
    ".replicas i32 |Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero "
    "and unspecified. Defaults to 1. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicaset",
    SELECTOR("ReplicaSets"),
    ".template io.k8s.api.core.v1.PodTemplateSpec |Template is the object that describes the pod that will be "
    "created if insufficient replicas are detected. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicaset/#pod-template",
    "@ReplicaSetStatus ReplicaSetStatus represents the current status of a ReplicaSet.",
    ".availableReplicas i32 |The number of available non-terminating pods (ready for at least minReadySeconds) for "
    "this replica set.",
    ".conditions []ReplicaSetCondition lt=map lk=type mk=type ps=merge |Represents the latest available observations "
    "of a replica set's current state.",
    ".fullyLabeledReplicas i32 |The number of non-terminating pods that have labels matching the labels of the pod "
    "template of the replicaset.",
    ".observedGeneration i64 |ObservedGeneration reflects the generation of the most recently observed ReplicaSet.",
    ".readyReplicas i32 |The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.",
    ".replicas i32 ! |Replicas is the most recently observed number of non-terminating pods. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicaset",
    ".terminatingReplicas i32 |The number of terminating pods for this replica set. Terminating pods have a non-null "
    ".metadata.deletionTimestamp and have not yet reached the Failed or Succeeded .status.phase.",
    "@ReplicaSetCondition ReplicaSetCondition describes the state of a replica set at a certain point.",
    COND_FIELDS("replica set"),

    "@StatefulSet StatefulSet represents a set of pods with consistent identities. Identities are defined as: - "
    "Network: A single stable DNS and hostname. - Storage: As many VolumeClaims as requested. The StatefulSet "
    "guarantees that a given network identity will always map to the same storage identity.",
    TM,
    META,
    ".spec StatefulSetSpec |Spec defines the desired identities of pods in this set.",
    ".status StatefulSetStatus |Status is the current status of Pods in this StatefulSet. This data may be out of "
    "date by some window of time.",
    "@StatefulSetSpec A StatefulSetSpec is the specification of a StatefulSet.",
    MIN_READY,
    ".ordinals StatefulSetOrdinals |ordinals controls the numbering of replica indices in a StatefulSet. The default "
    "ordinals behavior assigns a '0' index to the first replica and increments the index by one for each additional "
    "replica requested.",
    ".persistentVolumeClaimRetentionPolicy StatefulSetPersistentVolumeClaimRetentionPolicy "
    "|persistentVolumeClaimRetentionPolicy describes the lifecycle of persistent volume claims created from "
    "volumeClaimTemplates. By default, all persistent volume claims are created as needed and retained until "
    "manually deleted.",
    ".podManagementPolicy s e=OrderedReady,Parallel |podManagementPolicy controls how pods are created during initial "
    "scale up, when replacing pods on nodes, or when scaling down. The default policy is `OrderedReady`, where pods "
    "are created in increasing order (pod-0, then pod-1, etc) and the controller will wait until each pod is ready "
    "before continuing. The alternative policy is `Parallel`.",
    ".replicas i32 |replicas is the desired number of replicas of the given Template. These are replicas in the "
    "sense that they are instantiations of the same Template, but individual replicas also have a consistent "
    "identity. If unspecified, defaults to 1.",
    HISTORY("ControllerRevisions"),
    ".selector io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector ! |selector is a label query over pods that should "
    "match the replica count. It must match the pod template's labels. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
    ".serviceName s |serviceName is the name of the service that governs this StatefulSet. This service must exist "
    "before the StatefulSet, and is responsible for the network identity of the set. Pods get DNS/hostnames that "
    "follow the pattern: pod-specific-string.serviceName.default.svc.cluster.local",
    ".template io.k8s.api.core.v1.PodTemplateSpec ! |template is the object that describes the pod that will be "
    "created if insufficient replicas are detected. Each pod stamped out by the StatefulSet will fulfill this "
    "Template, but have a unique identity from the rest of the StatefulSet.",
    ".updateStrategy StatefulSetUpdateStrategy |updateStrategy indicates the StatefulSetUpdateStrategy that will be "
    "employed to update Pods in the StatefulSet when a revision is made to Template.",
    ".volumeClaimTemplates []io.k8s.api.core.v1.PersistentVolumeClaim lt=atomic |volumeClaimTemplates is a list of "
    "claims that pods are allowed to reference. The StatefulSet controller is responsible for mapping network "
    "identities to claims in a way that maintains the identity of a pod.",
    "@StatefulSetOrdinals StatefulSetOrdinals describes the policy used for replica ordinal assignment in this "
    "StatefulSet.",
    ".start i32 |start is the number representing the first replica's index. It may be used to number replicas from "
    "an alternate index (eg: 1-indexed) over the default 0-indexed names. If unset, defaults to 0.",
    "@StatefulSetPersistentVolumeClaimRetentionPolicy StatefulSetPersistentVolumeClaimRetentionPolicy describes the "
    "policy used for PVCs created from the StatefulSet VolumeClaimTemplates.",
    ".whenDeleted s e=Delete,Retain |WhenDeleted specifies what happens to PVCs created from StatefulSet "
    "VolumeClaimTemplates when the StatefulSet is deleted. The default policy of `Retain` causes PVCs to not be "
    "affected by StatefulSet deletion.",
    ".whenScaled s e=Delete,Retain |WhenScaled specifies what happens to PVCs created from StatefulSet "
    "VolumeClaimTemplates when the StatefulSet is scaled down. The default policy of `Retain` causes PVCs to not be "
    "affected by a scaledown.",
    "@StatefulSetUpdateStrategy StatefulSetUpdateStrategy indicates the strategy that the StatefulSet controller will "
    "use to perform updates. It includes any additional parameters necessary to perform the update for the indicated "
    "strategy.",
    ".rollingUpdate RollingUpdateStatefulSetStrategy |RollingUpdate is used to communicate parameters when Type is "
    "RollingUpdateStatefulSetStrategyType.",
    ".type s e=OnDelete,RollingUpdate |Type indicates the type of the StatefulSetUpdateStrategy. Default is "
    "RollingUpdate.",
    "@RollingUpdateStatefulSetStrategy RollingUpdateStatefulSetStrategy is used to communicate parameter for "
    "RollingUpdateStatefulSetStrategyType.",
    ".maxUnavailable ios |The maximum number of pods that can be unavailable during the update. Value can be an "
    "absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Defaults to 1. This field is alpha-level "
    "and is only honored by servers that enable the MaxUnavailableStatefulSet feature.",
    ".partition i32 |Partition indicates the ordinal at which the StatefulSet should be partitioned for updates. "
    "During a rolling update, all pods from ordinal Replicas-1 to Partition are updated. All pods from ordinal "
    "Partition-1 to 0 remain untouched. Default value is 0.",
    "@StatefulSetStatus StatefulSetStatus represents the current state of a StatefulSet.",
    ".availableReplicas i32 |Total number of available pods (ready for at least minReadySeconds) targeted by this "
    "statefulset.",
    COLLISION,
    ".conditions []StatefulSetCondition lt=map lk=type mk=type ps=merge |Represents the latest available "
    "observations of a statefulset's current state.",
    ".currentReplicas i32 |currentReplicas is the number of Pods created by the StatefulSet controller from the "
    "StatefulSet version indicated by currentRevision.",
    ".currentRevision s |currentRevision, if not empty, indicates the version of the StatefulSet used to generate "
    "Pods in the sequence [0,currentReplicas).",
    ".observedGeneration i64 |observedGeneration is the most recent generation observed for this StatefulSet. It "
    "corresponds to the StatefulSet's generation, which is updated on mutation by the API Server.",
    ".readyReplicas i32 |readyReplicas is the number of pods created for this StatefulSet with a Ready Condition.",
    ".replicas i32 ! |replicas is the number of Pods created by the StatefulSet controller.",
    ".updateRevision s |updateRevision, if not empty, indicates the version of the StatefulSet used to generate Pods "
    "in the sequence [replicas-updatedReplicas,replicas)",
    ".updatedReplicas i32 |updatedReplicas is the number of Pods created by the StatefulSet controller from the "
    "StatefulSet version indicated by updateRevision.",
    "@StatefulSetCondition StatefulSetCondition describes the state of a statefulset at a certain point.",
    COND_FIELDS("statefulset"),

    "@DaemonSet DaemonSet represents the configuration of a daemon set.",
    TM,
    META,
    ".spec DaemonSetSpec |The desired behavior of this daemon set. More info: " SPEC_DESC,
    ".status DaemonSetStatus |The current status of this daemon set. This data may be out of date by some window of "
    "time. Populated by the system. Read-only. More info: " SPEC_DESC,
    "@DaemonSetSpec DaemonSetSpec is the specification of a daemon set.",
    ".minReadySeconds i32 |The minimum number of seconds for which a newly created DaemonSet pod should be ready "
    "without any of its container crashing, for it to be considered available. Defaults to 0 (pod will be "
    "considered available as soon as it is ready).",
    HISTORY("history"),
    ".selector io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector ! |A label query over pods that are managed by the "
    "daemon set. Must match in order to be controlled. It must match the pod template's labels. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
    ".template io.k8s.api.core.v1.PodTemplateSpec ! |An object that describes the pod that will be created. The "
    "DaemonSet will create exactly one copy of this pod on every node that matches the template's node selector (or "
    "on every node if no node selector is specified). The only allowed template.spec.restartPolicy value is "
    "'Always'. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template",
    ".updateStrategy DaemonSetUpdateStrategy |An update strategy to replace existing DaemonSet pods with new pods.",
    "@DaemonSetUpdateStrategy DaemonSetUpdateStrategy is a struct used to control the update strategy for a "
    "DaemonSet.",
    ".rollingUpdate RollingUpdateDaemonSet |Rolling update config params. Present only if type = 'RollingUpdate'.",
    ".type s e=OnDelete,RollingUpdate |Type of daemon set update. Can be 'RollingUpdate' or 'OnDelete'. Default is "
    "RollingUpdate.",
    "@RollingUpdateDaemonSet Spec to control the desired behavior of daemon set rolling update.",
    ".maxSurge ios |The maximum number of nodes with an existing available DaemonSet pod that can have an updated "
    "DaemonSet pod during during an update. Value can be an absolute number (ex: 5) or a percentage of desired pods "
    "(ex: 10%). This can not be 0 if MaxUnavailable is 0. Default value is 0.",
    ".maxUnavailable ios |The maximum number of DaemonSet pods that can be unavailable during the update. Value can "
    "be an absolute number (ex: 5) or a percentage of total number of DaemonSet pods at the start of the update "
    "(ex: 10%). This cannot be 0 if MaxSurge is 0. Default value is 1.",
    "@DaemonSetStatus DaemonSetStatus represents the current status of a daemon set.",
    COLLISION,
    ".conditions []DaemonSetCondition lt=map lk=type mk=type ps=merge |Represents the latest available observations "
    "of a DaemonSet's current state.",
    ".currentNumberScheduled i32 ! |The number of nodes that are running at least 1 daemon pod and are supposed to "
    "run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
    ".desiredNumberScheduled i32 ! |The total number of nodes that should be running the daemon pod (including nodes "
    "correctly running the daemon pod). More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
    ".numberAvailable i32 |The number of nodes that should be running the daemon pod and have one or more of the "
    "daemon pod running and available (ready for at least spec.minReadySeconds)",
    ".numberMisscheduled i32 ! |The number of nodes that are running the daemon pod, but are not supposed to run the "
    "daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
    ".numberReady i32 ! |numberReady is the number of nodes that should be running the daemon pod and have one or "
    "more of the daemon pod running with a Ready Condition.",
    ".numberUnavailable i32 |The number of nodes that should be running the daemon pod and have none of the daemon "
    "pod running and available (ready for at least spec.minReadySeconds)",
    ".observedGeneration i64 |The most recent generation observed by the daemon set controller.",
    ".updatedNumberScheduled i32 |The total number of nodes that are running updated daemon pod",
    "@DaemonSetCondition DaemonSetCondition describes the state of a DaemonSet at a certain point.",
    COND_FIELDS("DaemonSet"),
    NULL,
};
