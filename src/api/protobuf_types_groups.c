/* Protobuf schema tables: rbac.authorization.k8s.io/v1, networking.k8s.io/v1, scheduling.k8s.io/v1,
 * storage.k8s.io/v1 (StorageClass), coordination.k8s.io/v1, policy/v1, events.k8s.io/v1. */
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
#define IS KG_PB_INTSTR

#define META M(1, "metadata", kg_api_pb_ObjectMeta)

/* ---- rbac.authorization.k8s.io/v1 ---- */
KG_PB_LOCAL(pb_PolicyRule, R(1, S, "verbs"), R(2, S, "apiGroups"), R(3, S, "resources"), R(4, S, "resourceNames"),
            R(5, S, "nonResourceURLs"));
KG_PB_LOCAL(pb_AggregationRule, RM(1, "clusterRoleSelectors", kg_api_pb_LabelSelector));
KG_PB_LOCAL(pb_Subject, K(1, S, "kind"), F(2, S, "apiGroup"), K(3, S, "name"), F(4, S, "namespace"));
KG_PB_LOCAL(pb_RoleRef, K(1, S, "apiGroup"), K(2, S, "kind"), K(3, S, "name"));
KG_PB_MESSAGE(kg_api_pb_Role, META, RM(2, "rules", pb_PolicyRule));
KG_PB_MESSAGE(kg_api_pb_ClusterRole, META, RM(2, "rules", pb_PolicyRule), M(3, "aggregationRule", pb_AggregationRule));
KG_PB_MESSAGE(kg_api_pb_RoleBinding, META, RM(2, "subjects", pb_Subject), M(3, "roleRef", pb_RoleRef));
KG_PB_MESSAGE(kg_api_pb_ClusterRoleBinding, META, RM(2, "subjects", pb_Subject), M(3, "roleRef", pb_RoleRef));

/* ---- networking.k8s.io/v1 ---- */
KG_PB_LOCAL(pb_ServiceBackendPort, F(1, S, "name"), F(2, I32, "number"));
KG_PB_LOCAL(pb_IngressServiceBackend, K(1, S, "name"), M(2, "port", pb_ServiceBackendPort));
KG_PB_LOCAL(pb_IngressBackend, M(4, "service", pb_IngressServiceBackend),
            M(3, "resource", kg_api_pb_TypedLocalObjectReference));
KG_PB_LOCAL(pb_HTTPIngressPath, F(1, S, "path"), K(3, S, "pathType"), M(2, "backend", pb_IngressBackend));
KG_PB_LOCAL(pb_HTTPIngressRuleValue, RM(1, "paths", pb_HTTPIngressPath));
KG_PB_LOCAL(pb_IngressRuleValue, M(1, "http", pb_HTTPIngressRuleValue));
KG_PB_LOCAL(pb_IngressRule, F(1, S, "host"), IN(2, pb_IngressRuleValue));
KG_PB_LOCAL(pb_IngressTLS, R(1, S, "hosts"), F(2, S, "secretName"));
KG_PB_LOCAL(pb_IngressSpec, K(4, S, "ingressClassName"), M(1, "defaultBackend", pb_IngressBackend),
            RM(2, "tls", pb_IngressTLS), RM(3, "rules", pb_IngressRule));
KG_PB_MESSAGE(kg_api_pb_Ingress, META, M(2, "spec", pb_IngressSpec));

KG_PB_LOCAL(pb_IngressClassParametersReference, K(1, S, "apiGroup"), K(2, S, "kind"), K(3, S, "name"), K(4, S, "scope"),
            K(5, S, "namespace"));
KG_PB_LOCAL(pb_IngressClassSpec, F(1, S, "controller"), M(2, "parameters", pb_IngressClassParametersReference));
KG_PB_MESSAGE(kg_api_pb_IngressClass, META, M(2, "spec", pb_IngressClassSpec));

KG_PB_LOCAL(pb_IPBlock, K(1, S, "cidr"), R(2, S, "except"));
KG_PB_LOCAL(pb_NetworkPolicyPeer, M(1, "podSelector", kg_api_pb_LabelSelector),
            M(2, "namespaceSelector", kg_api_pb_LabelSelector), M(3, "ipBlock", pb_IPBlock));
KG_PB_LOCAL(pb_NetworkPolicyPort, K(1, S, "protocol"), F(2, IS, "port"), K(3, I32, "endPort"));
KG_PB_LOCAL(pb_NetworkPolicyIngressRule, RM(1, "ports", pb_NetworkPolicyPort), RM(2, "from", pb_NetworkPolicyPeer));
KG_PB_LOCAL(pb_NetworkPolicyEgressRule, RM(1, "ports", pb_NetworkPolicyPort), RM(2, "to", pb_NetworkPolicyPeer));
KG_PB_LOCAL(pb_NetworkPolicySpec, M(1, "podSelector", kg_api_pb_LabelSelector),
            RM(2, "ingress", pb_NetworkPolicyIngressRule), RM(3, "egress", pb_NetworkPolicyEgressRule),
            R(4, S, "policyTypes"));
KG_PB_MESSAGE(kg_api_pb_NetworkPolicy, META, M(2, "spec", pb_NetworkPolicySpec));

/* ---- scheduling.k8s.io/v1 ---- */
KG_PB_MESSAGE(kg_api_pb_PriorityClass, META, K(2, I32, "value"), F(3, B, "globalDefault"), F(4, S, "description"),
              K(5, S, "preemptionPolicy"));

/* ---- storage.k8s.io/v1 ---- */
KG_PB_LOCAL(pb_TopologySelectorLabelRequirement, K(1, S, "key"), R(2, S, "values"));
KG_PB_LOCAL(pb_TopologySelectorTerm, RM(1, "matchLabelExpressions", pb_TopologySelectorLabelRequirement));
KG_PB_MESSAGE(kg_api_pb_StorageClass, META, K(2, S, "provisioner"), MAPF(3, S, "parameters"), K(4, S, "reclaimPolicy"),
              R(5, S, "mountOptions"), K(6, B, "allowVolumeExpansion"), K(7, S, "volumeBindingMode"),
              RM(8, "allowedTopologies", pb_TopologySelectorTerm));

/* ---- coordination.k8s.io/v1 ---- */
KG_PB_LOCAL(pb_LeaseSpec, K(1, S, "holderIdentity"), K(2, I32, "leaseDurationSeconds"),
            F(3, KG_PB_MICROTIME, "acquireTime"), F(4, KG_PB_MICROTIME, "renewTime"), K(5, I32, "leaseTransitions"),
            K(6, S, "strategy"), K(7, S, "preferredHolder"));
KG_PB_MESSAGE(kg_api_pb_Lease, META, M(2, "spec", pb_LeaseSpec));

/* ---- policy/v1 ---- */
KG_PB_LOCAL(pb_PodDisruptionBudgetSpec, F(1, IS, "minAvailable"), M(2, "selector", kg_api_pb_LabelSelector),
            F(3, IS, "maxUnavailable"), K(4, S, "unhealthyPodEvictionPolicy"));
KG_PB_MESSAGE(kg_api_pb_PodDisruptionBudget, META, M(2, "spec", pb_PodDisruptionBudgetSpec));
KG_PB_MESSAGE(kg_api_pb_Eviction, META, M(2, "deleteOptions", kg_api_pb_DeleteOptions));

/* ---- events.k8s.io/v1 ---- */
KG_PB_LOCAL(pb_EventsEventSeries, K(1, I32, "count"), F(2, KG_PB_MICROTIME, "lastObservedTime"));
KG_PB_MESSAGE(kg_api_pb_EventsEvent, META, F(2, KG_PB_MICROTIME, "eventTime"), M(3, "series", pb_EventsEventSeries),
              F(4, S, "reportingController"), F(5, S, "reportingInstance"), F(6, S, "action"), F(7, S, "reason"),
              M(8, "regarding", kg_api_pb_ObjectReference), M(9, "related", kg_api_pb_ObjectReference),
              F(10, S, "note"), F(11, S, "type"), M(12, "deprecatedSource", kg_api_pb_EventSource),
              F(13, KG_PB_TIME, "deprecatedFirstTimestamp"), F(14, KG_PB_TIME, "deprecatedLastTimestamp"),
              F(15, I32, "deprecatedCount"));

/* ---- authentication.k8s.io/v1 (TokenRequest, the serviceaccounts/token subresource) ---- */
KG_PB_LOCAL(pb_BoundObjectReference, F(1, S, "kind"), F(2, S, "apiVersion"), F(3, S, "name"), F(4, S, "uid"));
KG_PB_LOCAL(pb_TokenRequestSpec, R(1, S, "audiences"), K(4, KG_PB_INT64, "expirationSeconds"),
            M(3, "boundObjectRef", pb_BoundObjectReference));
KG_PB_MESSAGE(kg_api_pb_TokenRequest, META, M(2, "spec", pb_TokenRequestSpec));

/* ---- authorization.k8s.io/v1 and authentication.k8s.io/v1 SelfSubjectReview (the access reviews; kubectl auth
 * can-i / whoami send them as protobuf). Status fields are not decoded: the server computes them. ---- */
KG_PB_LOCAL(pb_FieldSelectorRequirement, F(1, S, "key"), F(2, S, "operator"), R(3, S, "values"));
KG_PB_LOCAL(pb_FieldSelectorAttributes, F(1, S, "rawSelector"), RM(2, "requirements", pb_FieldSelectorRequirement));
KG_PB_LOCAL(pb_LabelSelectorAttributes, F(1, S, "rawSelector"), RM(2, "requirements", kg_api_pb_LabelSelectorRequirement));
KG_PB_LOCAL(pb_ResourceAttributes, F(1, S, "namespace"), F(2, S, "verb"), F(3, S, "group"), F(4, S, "version"),
            F(5, S, "resource"), F(6, S, "subresource"), F(7, S, "name"),
            M(8, "fieldSelector", pb_FieldSelectorAttributes), M(9, "labelSelector", pb_LabelSelectorAttributes));
KG_PB_LOCAL(pb_NonResourceAttributes, F(1, S, "path"), F(2, S, "verb"));
KG_PB_LOCAL(pb_SelfSubjectAccessReviewSpec, M(1, "resourceAttributes", pb_ResourceAttributes),
            M(2, "nonResourceAttributes", pb_NonResourceAttributes));
KG_PB_LOCAL(pb_SubjectAccessReviewSpec, M(1, "resourceAttributes", pb_ResourceAttributes),
            M(2, "nonResourceAttributes", pb_NonResourceAttributes), F(3, S, "user"), R(4, S, "groups"),
            MAPF(5, KG_PB_STRINGS, "extra"), F(6, S, "uid"));
KG_PB_LOCAL(pb_SelfSubjectRulesReviewSpec, F(1, S, "namespace"));
KG_PB_MESSAGE(kg_api_pb_SelfSubjectAccessReview, META, M(2, "spec", pb_SelfSubjectAccessReviewSpec));
KG_PB_MESSAGE(kg_api_pb_SubjectAccessReview, META, M(2, "spec", pb_SubjectAccessReviewSpec));
KG_PB_MESSAGE(kg_api_pb_SelfSubjectRulesReview, META, M(2, "spec", pb_SelfSubjectRulesReviewSpec));
KG_PB_MESSAGE(kg_api_pb_SelfSubjectReview, META);

/* ---- certificates.k8s.io/v1 (status too: kubectl certificate approve|deny sends it to /approval) ---- */
KG_PB_LOCAL(pb_CertificateSigningRequestSpec, K(1, KG_PB_BYTES, "request"), K(7, S, "signerName"),
            K(8, I32, "expirationSeconds"), R(5, S, "usages"), F(2, S, "username"), F(3, S, "uid"), R(4, S, "groups"),
            MAPF(6, KG_PB_STRINGS, "extra"));
KG_PB_LOCAL(pb_CertificateSigningRequestCondition, K(1, S, "type"), K(6, S, "status"), F(2, S, "reason"),
            F(3, S, "message"), F(4, KG_PB_TIME, "lastUpdateTime"), F(5, KG_PB_TIME, "lastTransitionTime"));
KG_PB_LOCAL(pb_CertificateSigningRequestStatus, RM(1, "conditions", pb_CertificateSigningRequestCondition),
            F(2, KG_PB_BYTES, "certificate"));
KG_PB_MESSAGE(kg_api_pb_CertificateSigningRequest, META, M(2, "spec", pb_CertificateSigningRequestSpec),
              M(3, "status", pb_CertificateSigningRequestStatus));

/* ---- autoscaling/v1 (kubectl autoscale sends a HorizontalPodAutoscaler) ---- */
KG_PB_LOCAL(pb_CrossVersionObjectReference, K(1, S, "kind"), K(2, S, "name"), F(3, S, "apiVersion"));
KG_PB_LOCAL(pb_HPASpecV1, M(1, "scaleTargetRef", pb_CrossVersionObjectReference), K(2, I32, "minReplicas"),
            K(3, I32, "maxReplicas"), K(4, I32, "targetCPUUtilizationPercentage"));
KG_PB_LOCAL(pb_HPAStatusV1, K(1, KG_PB_INT64, "observedGeneration"), F(2, KG_PB_TIME, "lastScaleTime"),
            K(3, I32, "currentReplicas"), K(4, I32, "desiredReplicas"), K(5, I32, "currentCPUUtilizationPercentage"));
KG_PB_MESSAGE(kg_api_pb_HorizontalPodAutoscalerV1, META, M(2, "spec", pb_HPASpecV1), M(3, "status", pb_HPAStatusV1));
