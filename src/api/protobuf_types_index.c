/* Protobuf schema tables: the apiVersion/kind -> top-level message index used by kg_protobuf_decode. */
#include "api/protobuf_internal.h"

const kg_pb_type kg_api_pb_types[] = {
    /* core/v1 */
    {"v1", "Namespace", &kg_api_pb_Namespace},
    {"v1", "ConfigMap", &kg_api_pb_ConfigMap},
    {"v1", "Secret", &kg_api_pb_Secret},
    {"v1", "ServiceAccount", &kg_api_pb_ServiceAccount},
    {"v1", "Pod", &kg_api_pb_Pod},
    {"v1", "PodTemplate", &kg_api_pb_PodTemplate},
    {"v1", "Service", &kg_api_pb_Service},
    {"v1", "Endpoints", &kg_api_pb_Endpoints},
    {"v1", "ResourceQuota", &kg_api_pb_ResourceQuota},
    {"v1", "LimitRange", &kg_api_pb_LimitRange},
    {"v1", "PersistentVolumeClaim", &kg_api_pb_PersistentVolumeClaim},
    {"v1", "Event", &kg_api_pb_CoreEvent},
    {"v1", "ReplicationController", &kg_api_pb_ReplicationController},
    {"v1", "Binding", &kg_api_pb_Binding},
    {"v1", "Node", &kg_api_pb_Node},
    {"v1", "PersistentVolume", &kg_api_pb_PersistentVolume},
    /* apps/v1 */
    {"apps/v1", "Deployment", &kg_api_pb_Deployment},
    {"apps/v1", "ReplicaSet", &kg_api_pb_ReplicaSet},
    {"apps/v1", "StatefulSet", &kg_api_pb_StatefulSet},
    {"apps/v1", "DaemonSet", &kg_api_pb_DaemonSet},
    {"apps/v1", "ControllerRevision", &kg_api_pb_ControllerRevision},
    /* batch/v1 */
    {"batch/v1", "Job", &kg_api_pb_Job},
    {"batch/v1", "CronJob", &kg_api_pb_CronJob},
    /* rbac.authorization.k8s.io/v1 */
    {"rbac.authorization.k8s.io/v1", "Role", &kg_api_pb_Role},
    {"rbac.authorization.k8s.io/v1", "ClusterRole", &kg_api_pb_ClusterRole},
    {"rbac.authorization.k8s.io/v1", "RoleBinding", &kg_api_pb_RoleBinding},
    {"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", &kg_api_pb_ClusterRoleBinding},
    /* networking.k8s.io/v1 */
    {"networking.k8s.io/v1", "Ingress", &kg_api_pb_Ingress},
    {"networking.k8s.io/v1", "IngressClass", &kg_api_pb_IngressClass},
    {"networking.k8s.io/v1", "NetworkPolicy", &kg_api_pb_NetworkPolicy},
    /* others */
    {"scheduling.k8s.io/v1", "PriorityClass", &kg_api_pb_PriorityClass},
    {"storage.k8s.io/v1", "StorageClass", &kg_api_pb_StorageClass},
    {"coordination.k8s.io/v1", "Lease", &kg_api_pb_Lease},
    {"policy/v1", "PodDisruptionBudget", &kg_api_pb_PodDisruptionBudget},
    {"policy/v1", "Eviction", &kg_api_pb_Eviction},
    {"events.k8s.io/v1", "Event", &kg_api_pb_EventsEvent},
    {"autoscaling/v1", "HorizontalPodAutoscaler", &kg_api_pb_HorizontalPodAutoscalerV1},
    {"authentication.k8s.io/v1", "TokenRequest", &kg_api_pb_TokenRequest},
    {"authentication.k8s.io/v1", "SelfSubjectReview", &kg_api_pb_SelfSubjectReview},
    {"authorization.k8s.io/v1", "SelfSubjectAccessReview", &kg_api_pb_SelfSubjectAccessReview},
    {"authorization.k8s.io/v1", "SubjectAccessReview", &kg_api_pb_SubjectAccessReview},
    {"authorization.k8s.io/v1", "LocalSubjectAccessReview", &kg_api_pb_SubjectAccessReview},
    {"authorization.k8s.io/v1", "SelfSubjectRulesReview", &kg_api_pb_SelfSubjectRulesReview},
    {"certificates.k8s.io/v1", "CertificateSigningRequest", &kg_api_pb_CertificateSigningRequest},
    /* admissionregistration.k8s.io/v1, node.k8s.io/v1 */
    {"admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", &kg_api_pb_MutatingWebhookConfiguration},
    {"admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", &kg_api_pb_ValidatingWebhookConfiguration},
    {"admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", &kg_api_pb_ValidatingAdmissionPolicy},
    {"admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding",
     &kg_api_pb_ValidatingAdmissionPolicyBinding},
    {"node.k8s.io/v1", "RuntimeClass", &kg_api_pb_RuntimeClass},
    /* meta/v1 options, registered in every group version */
    {NULL, "DeleteOptions", &kg_api_pb_DeleteOptions},
};

const size_t kg_api_pb_ntypes = sizeof kg_api_pb_types / sizeof kg_api_pb_types[0];
