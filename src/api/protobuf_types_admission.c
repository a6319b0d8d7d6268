/* Protobuf schema tables: admissionregistration.k8s.io/v1 (webhook configurations, ValidatingAdmissionPolicy and
 * its binding) and node.k8s.io/v1 RuntimeClass. Client-go programs (e.g. CA injectors updating caBundle) send
 * these as protobuf. */
#include "api/protobuf_internal.h"

#define F KG_PB_F
#define K KG_PB_K
#define R KG_PB_R
#define M KG_PB_M
#define RM KG_PB_RM
#define IN KG_PB_IN
#define MAPF KG_PB_MAPF
#define S KG_PB_STRING
#define I32 KG_PB_INT32

#define META M(1, "metadata", kg_api_pb_ObjectMeta)

/* ---- admissionregistration.k8s.io/v1 ---- */
KG_PB_LOCAL(pb_ServiceReference, K(1, S, "namespace"), K(2, S, "name"), K(3, S, "path"), K(4, I32, "port"));
KG_PB_LOCAL(pb_WebhookClientConfig, K(3, S, "url"), M(1, "service", pb_ServiceReference),
            F(2, KG_PB_BYTES, "caBundle"));
KG_PB_LOCAL(pb_Rule, R(1, S, "apiGroups"), R(2, S, "apiVersions"), R(3, S, "resources"), K(4, S, "scope"));
/* RuleWithOperations embeds Rule (json ",inline") */
KG_PB_LOCAL(pb_RuleWithOperations, R(1, S, "operations"), IN(2, pb_Rule));
KG_PB_LOCAL(pb_MatchCondition, K(1, S, "name"), K(2, S, "expression"));
KG_PB_LOCAL(pb_MutatingWebhook, K(1, S, "name"), M(2, "clientConfig", pb_WebhookClientConfig),
            RM(3, "rules", pb_RuleWithOperations), K(4, S, "failurePolicy"), K(9, S, "matchPolicy"),
            M(5, "namespaceSelector", kg_api_pb_LabelSelector), M(11, "objectSelector", kg_api_pb_LabelSelector),
            K(6, S, "sideEffects"), K(7, I32, "timeoutSeconds"), R(8, S, "admissionReviewVersions"),
            K(10, S, "reinvocationPolicy"), RM(12, "matchConditions", pb_MatchCondition));
KG_PB_LOCAL(pb_ValidatingWebhook, K(1, S, "name"), M(2, "clientConfig", pb_WebhookClientConfig),
            RM(3, "rules", pb_RuleWithOperations), K(4, S, "failurePolicy"), K(9, S, "matchPolicy"),
            M(5, "namespaceSelector", kg_api_pb_LabelSelector), M(10, "objectSelector", kg_api_pb_LabelSelector),
            K(6, S, "sideEffects"), K(7, I32, "timeoutSeconds"), R(8, S, "admissionReviewVersions"),
            RM(11, "matchConditions", pb_MatchCondition));
KG_PB_MESSAGE(kg_api_pb_MutatingWebhookConfiguration, META, RM(2, "webhooks", pb_MutatingWebhook));
KG_PB_MESSAGE(kg_api_pb_ValidatingWebhookConfiguration, META, RM(2, "webhooks", pb_ValidatingWebhook));

KG_PB_LOCAL(pb_ParamKind, F(1, S, "apiVersion"), F(2, S, "kind"));
/* NamedRuleWithOperations embeds RuleWithOperations (json ",inline") */
KG_PB_LOCAL(pb_NamedRuleWithOperations, R(1, S, "resourceNames"), IN(2, pb_RuleWithOperations));
KG_PB_LOCAL(pb_MatchResources, M(1, "namespaceSelector", kg_api_pb_LabelSelector),
            M(2, "objectSelector", kg_api_pb_LabelSelector), RM(3, "resourceRules", pb_NamedRuleWithOperations),
            RM(4, "excludeResourceRules", pb_NamedRuleWithOperations), K(7, S, "matchPolicy"));
KG_PB_LOCAL(pb_Validation, K(1, S, "expression"), F(2, S, "message"), K(3, S, "reason"), F(4, S, "messageExpression"));
KG_PB_LOCAL(pb_AuditAnnotation, K(1, S, "key"), K(2, S, "valueExpression"));
KG_PB_LOCAL(pb_Variable, K(1, S, "name"), K(2, S, "expression"));
KG_PB_LOCAL(pb_ValidatingAdmissionPolicySpec, M(1, "paramKind", pb_ParamKind),
            M(2, "matchConstraints", pb_MatchResources), RM(3, "validations", pb_Validation), K(4, S, "failurePolicy"),
            RM(5, "auditAnnotations", pb_AuditAnnotation), RM(6, "matchConditions", pb_MatchCondition),
            RM(7, "variables", pb_Variable));
KG_PB_MESSAGE(kg_api_pb_ValidatingAdmissionPolicy, META, M(2, "spec", pb_ValidatingAdmissionPolicySpec));

KG_PB_LOCAL(pb_ParamRef, F(1, S, "name"), F(2, S, "namespace"), M(3, "selector", kg_api_pb_LabelSelector),
            K(4, S, "parameterNotFoundAction"));
KG_PB_LOCAL(pb_ValidatingAdmissionPolicyBindingSpec, F(1, S, "policyName"), M(2, "paramRef", pb_ParamRef),
            M(3, "matchResources", pb_MatchResources), R(4, S, "validationActions"));
KG_PB_MESSAGE(kg_api_pb_ValidatingAdmissionPolicyBinding, META, M(2, "spec", pb_ValidatingAdmissionPolicyBindingSpec));

/* ---- node.k8s.io/v1 ---- */
KG_PB_LOCAL(pb_Overhead, MAPF(1, KG_PB_QUANTITY, "podFixed"));
KG_PB_LOCAL(pb_Scheduling, MAPF(1, S, "nodeSelector"), RM(2, "tolerations", kg_api_pb_Toleration));
KG_PB_MESSAGE(kg_api_pb_RuntimeClass, META, K(2, S, "handler"), M(3, "overhead", pb_Overhead),
              M(4, "scheduling", pb_Scheduling));
