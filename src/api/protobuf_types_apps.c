/* Protobuf schema tables: k8s.io/api apps/v1 and batch/v1 (field numbers of their generated.proto files).
 * Status messages are not decoded. */
#include "api/protobuf_internal.h"

#define F KG_PB_F
#define K KG_PB_K
#define R KG_PB_R
#define M KG_PB_M
#define RM KG_PB_RM
#define S KG_PB_STRING
#define B KG_PB_BOOL
#define I32 KG_PB_INT32
#define I64 KG_PB_INT64
#define IS KG_PB_INTSTR

#define META M(1, "metadata", kg_api_pb_ObjectMeta)

/* ---- apps/v1 ---- */
KG_PB_LOCAL(pb_RollingUpdateDeployment, F(1, IS, "maxUnavailable"), F(2, IS, "maxSurge"));
KG_PB_LOCAL(pb_DeploymentStrategy, F(1, S, "type"), M(2, "rollingUpdate", pb_RollingUpdateDeployment));
KG_PB_LOCAL(pb_DeploymentSpec, K(1, I32, "replicas"), M(2, "selector", kg_api_pb_LabelSelector),
            M(3, "template", kg_api_pb_PodTemplateSpec), M(4, "strategy", pb_DeploymentStrategy),
            F(5, I32, "minReadySeconds"), K(6, I32, "revisionHistoryLimit"), F(7, B, "paused"),
            K(9, I32, "progressDeadlineSeconds"), K(10, S, "podReplacementPolicy"));
KG_PB_MESSAGE(kg_api_pb_Deployment, META, M(2, "spec", pb_DeploymentSpec));

KG_PB_LOCAL(pb_ReplicaSetSpec, K(1, I32, "replicas"), F(4, I32, "minReadySeconds"),
            M(2, "selector", kg_api_pb_LabelSelector), M(3, "template", kg_api_pb_PodTemplateSpec));
KG_PB_MESSAGE(kg_api_pb_ReplicaSet, META, M(2, "spec", pb_ReplicaSetSpec));

KG_PB_LOCAL(pb_RollingUpdateStatefulSetStrategy, K(1, I32, "partition"), F(2, IS, "maxUnavailable"));
KG_PB_LOCAL(pb_StatefulSetUpdateStrategy, F(1, S, "type"), M(2, "rollingUpdate", pb_RollingUpdateStatefulSetStrategy));
KG_PB_LOCAL(pb_StatefulSetPersistentVolumeClaimRetentionPolicy, F(1, S, "whenDeleted"), F(2, S, "whenScaled"));
KG_PB_LOCAL(pb_StatefulSetOrdinals, F(1, I32, "start"));
KG_PB_LOCAL(pb_StatefulSetSpec, K(1, I32, "replicas"), M(2, "selector", kg_api_pb_LabelSelector),
            M(3, "template", kg_api_pb_PodTemplateSpec), RM(4, "volumeClaimTemplates", kg_api_pb_PersistentVolumeClaim),
            F(5, S, "serviceName"), F(6, S, "podManagementPolicy"),
            M(7, "updateStrategy", pb_StatefulSetUpdateStrategy), K(8, I32, "revisionHistoryLimit"),
            F(9, I32, "minReadySeconds"),
            M(10, "persistentVolumeClaimRetentionPolicy", pb_StatefulSetPersistentVolumeClaimRetentionPolicy),
            M(11, "ordinals", pb_StatefulSetOrdinals));
KG_PB_MESSAGE(kg_api_pb_StatefulSet, META, M(2, "spec", pb_StatefulSetSpec));

KG_PB_LOCAL(pb_RollingUpdateDaemonSet, F(1, IS, "maxUnavailable"), F(2, IS, "maxSurge"));
KG_PB_LOCAL(pb_DaemonSetUpdateStrategy, F(1, S, "type"), M(2, "rollingUpdate", pb_RollingUpdateDaemonSet));
KG_PB_LOCAL(pb_DaemonSetSpec, M(1, "selector", kg_api_pb_LabelSelector), M(2, "template", kg_api_pb_PodTemplateSpec),
            M(3, "updateStrategy", pb_DaemonSetUpdateStrategy), F(4, I32, "minReadySeconds"),
            K(6, I32, "revisionHistoryLimit"));
KG_PB_MESSAGE(kg_api_pb_DaemonSet, META, M(2, "spec", pb_DaemonSetSpec));

KG_PB_MESSAGE(kg_api_pb_ControllerRevision, META, F(2, KG_PB_RAW, "data"), K(3, I64, "revision"));

/* ---- batch/v1 ---- */
KG_PB_LOCAL(pb_PodFailurePolicyOnExitCodesRequirement, K(1, S, "containerName"), K(2, S, "operator"),
            R(3, I32, "values"));
KG_PB_LOCAL(pb_PodFailurePolicyOnPodConditionsPattern, K(1, S, "type"), K(2, S, "status"));
KG_PB_LOCAL(pb_PodFailurePolicyRule, K(1, S, "action"), M(2, "onExitCodes", pb_PodFailurePolicyOnExitCodesRequirement),
            RM(3, "onPodConditions", pb_PodFailurePolicyOnPodConditionsPattern));
KG_PB_LOCAL(pb_PodFailurePolicy, RM(1, "rules", pb_PodFailurePolicyRule));
KG_PB_LOCAL(pb_SuccessPolicyRule, K(1, S, "succeededIndexes"), K(2, I32, "succeededCount"));
KG_PB_LOCAL(pb_SuccessPolicy, RM(1, "rules", pb_SuccessPolicyRule));
KG_PB_LOCAL(pb_JobSpec, K(1, I32, "parallelism"), K(2, I32, "completions"), K(3, I64, "activeDeadlineSeconds"),
            M(11, "podFailurePolicy", pb_PodFailurePolicy), M(16, "successPolicy", pb_SuccessPolicy),
            K(7, I32, "backoffLimit"), K(12, I32, "backoffLimitPerIndex"), K(13, I32, "maxFailedIndexes"),
            M(4, "selector", kg_api_pb_LabelSelector), K(5, B, "manualSelector"),
            M(6, "template", kg_api_pb_PodTemplateSpec), K(8, I32, "ttlSecondsAfterFinished"),
            K(9, S, "completionMode"), K(10, B, "suspend"), K(14, S, "podReplacementPolicy"), K(15, S, "managedBy"));
KG_PB_MESSAGE(kg_api_pb_Job, META, M(2, "spec", pb_JobSpec));

KG_PB_LOCAL(pb_JobTemplateSpec, META, M(2, "spec", pb_JobSpec));
KG_PB_LOCAL(pb_CronJobSpec, K(1, S, "schedule"), K(8, S, "timeZone"), K(2, I64, "startingDeadlineSeconds"),
            F(3, S, "concurrencyPolicy"), K(4, B, "suspend"), M(5, "jobTemplate", pb_JobTemplateSpec),
            K(6, I32, "successfulJobsHistoryLimit"), K(7, I32, "failedJobsHistoryLimit"));
KG_PB_MESSAGE(kg_api_pb_CronJob, META, M(2, "spec", pb_CronJobSpec));
