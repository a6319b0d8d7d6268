/* admissionregistration.k8s.io/v1: webhook configurations, ValidatingAdmissionPolicy and its bindings. */
#include "api/schema_data.h"

#define TM ">io.k8s.apimachinery.pkg.apis.meta.v1._TypeMeta"
#define META                                                                                                           \
    ".metadata io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta |Standard object metadata; More info: "                 \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata."
#define WEBHOOK_COMMON                                                                                                 \
    ".admissionReviewVersions []s ! lt=atomic |AdmissionReviewVersions is an ordered list of preferred "               \
    "`AdmissionReview` versions the Webhook expects. API server will try to use first version in the list which it "   \
    "supports. If none of the versions specified in this list supported by API server, validation will fail for "      \
    "this object.",                                                                                                    \
        ".clientConfig WebhookClientConfig ! |ClientConfig defines how to communicate with the hook. Required",        \
        ".failurePolicy s e=Fail,Ignore |FailurePolicy defines how unrecognized errors from the admission endpoint "   \
        "are handled - allowed values are Ignore or Fail. Defaults to Fail.",                                          \
        ".matchConditions []MatchCondition lt=map lk=name mk=name ps=merge |MatchConditions is a list of conditions "  \
        "that must be met for a request to be sent to this webhook. Match conditions filter requests that have "       \
        "already been matched by the rules, namespaceSelector, and objectSelector. An empty list of matchConditions "  \
        "matches all requests. There are a maximum of 64 match conditions allowed.",                                   \
        ".matchPolicy s e=Equivalent,Exact |matchPolicy defines how the 'rules' list is used to match incoming "       \
        "requests. Allowed values are 'Exact' or 'Equivalent'. Defaults to 'Equivalent'",                              \
        ".name s ! |The name of the admission webhook. Name should be fully qualified, e.g., "                         \
        "imagepolicy.kubernetes.io, where 'imagepolicy' is the name of the webhook, and kubernetes.io is the name of " \
        "the organization. Required.",                                                                                 \
        ".namespaceSelector io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector |NamespaceSelector decides whether to " \
        "run the webhook on an object based on whether the namespace for that object matches the selector. If the "    \
        "object itself is a namespace, the matching is performed on object.metadata.labels. Default to the empty "     \
        "LabelSelector, which matches everything.",                                                                    \
        ".objectSelector io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector |ObjectSelector decides whether to run "   \
        "the webhook based on if the object has matching labels. objectSelector is evaluated against both the "        \
        "oldObject and newObject that would be sent to the webhook, and is considered to match if either object "      \
        "matches the selector. Default to the empty LabelSelector, which matches everything.",                         \
        ".rules []RuleWithOperations lt=atomic |Rules describes what operations on what resources/subresources the "   \
        "webhook cares about. The webhook cares about an operation if it matches _any_ Rule.",                         \
        ".sideEffects s ! e=None,NoneOnDryRun,Some,Unknown |SideEffects states whether this webhook has side "         \
        "effects. Acceptable values are: None, NoneOnDryRun (webhooks created via v1beta1 may also specify Some or "   \
        "Unknown). Requests with the dryRun attribute will be auto-rejected if they match a webhook with "             \
        "sideEffects == Unknown or Some.",                                                                             \
        ".timeoutSeconds i32 |TimeoutSeconds specifies the timeout for this webhook. After the timeout passes, the "   \
        "webhook call will be ignored or the API call will fail based on the failure policy. The timeout value must "  \
        "be between 1 and 30 seconds. Default to 10 seconds."
#define RULE_FIELDS                                                                                                    \
    ".apiGroups []s lt=atomic |APIGroups is the API groups the resources belong to. '*' is all groups. If '*' is "     \
    "present, the length of the slice must be one. Required.",                                                         \
        ".apiVersions []s lt=atomic |APIVersions is the API versions the resources belong to. '*' is all versions. "   \
        "If '*' is present, the length of the slice must be one. Required.",                                           \
        ".operations []s lt=atomic |Operations is the operations the admission hook cares about - CREATE, UPDATE, "    \
        "DELETE, CONNECT or * for all of those operations and any future admission operations that are added. If "     \
        "'*' is present, the length of the slice must be one. Required.",                                              \
        ".resources []s lt=atomic |Resources is a list of resources this rule applies to. For example: 'pods' means "  \
        "pods. 'pods/log' means the log subresource of pods. '*' means all resources, but not subresources. "          \
        "'pods/*' means all subresources of pods. '*/scale' means all scale subresources. '*/*' means all resources "  \
        "and their subresources.",                                                                                     \
        ".scope s e=*,Cluster,Namespaced |scope specifies the scope of this rule. Valid values are 'Cluster', "        \
        "'Namespaced', and '*'. Default is '*'."

const char *const kg_schema_data_admission[] = {
    "=io.k8s.api.admissionregistration.v1",
    "@MutatingWebhookConfiguration MutatingWebhookConfiguration describes the configuration of and admission "
    "webhook that accept or reject and may change the object.",
    TM,
    META,
    ".webhooks []MutatingWebhook lt=map lk=name mk=name ps=merge |Webhooks is a list of webhooks and the affected "
    "resources and operations.",
    "@MutatingWebhook MutatingWebhook describes an admission webhook and the resources and operations it applies to.",
    WEBHOOK_COMMON,
    ".reinvocationPolicy s e=IfNeeded,Never |reinvocationPolicy indicates whether this webhook should be called "
    "multiple times as part of a single admission evaluation. Allowed values are 'Never' and 'IfNeeded'. Defaults to "
    "'Never'.",
    "@ValidatingWebhookConfiguration ValidatingWebhookConfiguration describes the configuration of and admission "
    "webhook that accept or reject and object without changing it.",
    TM,
    META,
    ".webhooks []ValidatingWebhook lt=map lk=name mk=name ps=merge |Webhooks is a list of webhooks and the affected "
    "resources and operations.",
    "@ValidatingWebhook ValidatingWebhook describes an admission webhook and the resources and operations it applies "
    "to.",
    WEBHOOK_COMMON,
    "@WebhookClientConfig WebhookClientConfig contains the information to make a TLS connection with the webhook",
    ".caBundle byte |`caBundle` is a PEM encoded CA bundle which will be used to validate the webhook's server "
    "certificate. If unspecified, system trust roots on the apiserver are used.",
    ".service ServiceReference |`service` is a reference to the service for this webhook. Either `service` or `url` "
    "must be specified. If the webhook is running within the cluster, then you should use `service`.",
    ".url s |`url` gives the location of the webhook, in standard URL form (`scheme://host:port/path`). Exactly one "
    "of `url` or `service` must be specified. The scheme must be 'https'; the URL must begin with 'https://'.",
    "@ServiceReference ServiceReference holds a reference to Service.legacy.k8s.io",
    ".name s ! |`name` is the name of the service. Required",
    ".namespace s ! |`namespace` is the namespace of the service. Required",
    ".path s |`path` is an optional URL path which will be sent in any request to this service.",
    ".port i32 |If specified, the port on the service that hosting webhook. Default to 443 for backward "
    "compatibility. `port` should be a valid port number (1-65535, inclusive).",
    "@RuleWithOperations RuleWithOperations is a tuple of Operations and Resources. It is recommended to make sure "
    "that all the tuple expansions are valid.",
    RULE_FIELDS,
    "@MatchCondition MatchCondition represents a condition which must by fulfilled for a request to be sent to a "
    "webhook.",
    ".expression s ! |Expression represents the expression which will be evaluated by CEL. Must evaluate to bool. CEL "
    "expressions have access to the contents of the AdmissionRequest and Authorizer, organized into CEL variables: "
    "'object', 'oldObject', 'request', 'authorizer', 'authorizer.requestResource'. Required.",
    ".name s ! |Name is an identifier for this match condition, used for strategic merging of MatchConditions, as "
    "well as providing an identifier for logging purposes. A good name should be descriptive of the associated "
    "expression. Required.",

    "@ValidatingAdmissionPolicy ValidatingAdmissionPolicy describes the definition of an admission validation policy "
    "that accepts or rejects an object without changing it.",
    TM,
    META,
    ".spec ValidatingAdmissionPolicySpec |Specification of the desired behavior of the ValidatingAdmissionPolicy.",
    ".status ValidatingAdmissionPolicyStatus |The status of the ValidatingAdmissionPolicy, including warnings that "
    "are useful to determine if the policy behaves in the expected way. Populated by the system. Read-only.",
    "@ValidatingAdmissionPolicySpec ValidatingAdmissionPolicySpec is the specification of the desired behavior of "
    "the AdmissionPolicy.",
    ".auditAnnotations []AuditAnnotation lt=atomic |auditAnnotations contains CEL expressions which are used to "
    "produce audit annotations for the audit event of the API request. validations and auditAnnotations may not both "
    "be empty; a least one of validations or auditAnnotations is required.",
    ".failurePolicy s e=Fail,Ignore |failurePolicy defines how to handle failures for the admission policy. Failures "
    "can occur from CEL expression parse errors, type check errors, runtime errors and invalid or mis-configured "
    "policy definitions or bindings. Allowed values are Ignore or Fail. Defaults to Fail.",
    ".matchConditions []MatchCondition lt=map lk=name mk=name ps=merge |MatchConditions is a list of conditions that "
    "must be met for a request to be validated. Match conditions filter requests that have already been matched by "
    "the rules, namespaceSelector, and objectSelector. An empty list of matchConditions matches all requests.",
    ".matchConstraints MatchResources |MatchConstraints specifies what resources this policy is designed to validate. "
    "The AdmissionPolicy cares about a request if it matches _all_ Constraints. Required.",
    ".paramKind ParamKind |ParamKind specifies the kind of resources used to parameterize this policy. If absent, "
    "there are no parameters for this policy and the param CEL variable will not be provided to validation "
    "expressions.",
    ".validations []Validation lt=atomic |Validations contain CEL expressions which is used to apply the validation. "
    "Validations and AuditAnnotations may not both be empty; a minimum of one Validations or AuditAnnotations is "
    "required.",
    ".variables []Variable lt=atomic |Variables contain definitions of variables that can be used in composition of "
    "other expressions. Each variable is defined as a named CEL expression. The variables defined here will be "
    "available under `variables` in other expressions of the policy except MatchConditions.",
    "@ParamKind ParamKind is a tuple of Group Kind and Version.",
    ".apiVersion s |APIVersion is the API group version the resources belong to. In format of 'group/version'. "
    "Required.",
    ".kind s |Kind is the API kind the resources belong to. Required.",
    "@MatchResources MatchResources decides whether to run the admission control policy on an object based on "
    "whether it meets the match criteria. The exclude rules take precedence over include rules (if a resource "
    "matches both, it is excluded)",
    ".excludeResourceRules []NamedRuleWithOperations lt=atomic |ExcludeResourceRules describes what operations on "
    "what resources/subresources the ValidatingAdmissionPolicy should not care about. The exclude rules take "
    "precedence over include rules (if a resource matches both, it is excluded)",
    ".matchPolicy s e=Equivalent,Exact |matchPolicy defines how the 'MatchResources' list is used to match incoming "
    "requests. Allowed values are 'Exact' or 'Equivalent'. Defaults to 'Equivalent'",
    ".namespaceSelector io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector |NamespaceSelector decides whether to run "
    "the admission control policy on an object based on whether the namespace for that object matches the selector. "
    "Default to the empty LabelSelector, which matches everything.",
    ".objectSelector io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector |ObjectSelector decides whether to run the "
    "validation based on if the object has matching labels. Default to the empty LabelSelector, which matches "
    "everything.",
    ".resourceRules []NamedRuleWithOperations lt=atomic |ResourceRules describes what operations on what "
    "resources/subresources the ValidatingAdmissionPolicy matches. The policy cares about an operation if it matches "
    "_any_ Rule.",
    "@NamedRuleWithOperations NamedRuleWithOperations is a tuple of Operations and Resources with ResourceNames.",
    RULE_FIELDS,
    ".resourceNames []s lt=atomic |ResourceNames is an optional white list of names that the rule applies to. An "
    "empty set means that everything is allowed.",
    "@Validation Validation specifies the CEL expression which is used to apply the validation.",
    ".expression s ! |Expression represents the expression which will be evaluated by CEL. ref: "
    "https://github.com/google/cel-spec CEL expressions have access to the contents of the API request/response, "
    "organized into CEL variables as well as some other useful variables: 'object', 'oldObject', 'request', "
    "'params', 'namespaceObject', 'authorizer', 'variables'. Required.",
    ".message s |Message represents the message displayed when validation fails. The message is required if the "
    "Expression contains line breaks. If unspecified, the message is 'failed rule: {Rule}'.",
    ".messageExpression s |messageExpression declares a CEL expression that evaluates to the validation failure "
    "message that is returned when this rule fails. Since messageExpression is used as a failure message, it must "
    "evaluate to a string. If both message and messageExpression are present on a validation, then "
    "messageExpression will be used if validation fails.",
    ".reason s |Reason represents a machine-readable description of why this validation failed. If this is the first "
    "validation in the list to fail, this reason, as well as the corresponding HTTP response code, are used in the "
    "HTTP response to the client. Supported values: 'Unauthorized', 'Forbidden', 'Invalid', "
    "'RequestEntityTooLarge'. If not set, StatusReasonInvalid is used in the response to the client.",
    "@AuditAnnotation AuditAnnotation describes how to produce an audit annotation for an API request.",
    ".key s ! |key specifies the audit annotation key. The audit annotation keys of a ValidatingAdmissionPolicy must "
    "be unique. The key must be a qualified name ([A-Za-z0-9][-A-Za-z0-9_.]*) no more than 63 bytes in length.",
    ".valueExpression s ! |valueExpression represents the expression which is evaluated by CEL to produce an audit "
    "annotation value. The expression must evaluate to either a string or null value.",
    "@Variable Variable is the definition of a variable that is used for composition. A variable is defined as a "
    "named expression.",
    ".expression s ! |Expression is the expression that will be evaluated as the value of the variable. The CEL "
    "expression has access to the same identifiers as the CEL expressions in Validation.",
    ".name s ! |Name is the name of the variable. The name must be a valid CEL identifier and unique among all "
    "variables. The variable can be accessed in other expressions through `variables`.",
    "@ValidatingAdmissionPolicyStatus ValidatingAdmissionPolicyStatus represents the status of an admission "
    "validation policy.",
    ".conditions []io.k8s.apimachinery.pkg.apis.meta.v1.Condition lt=map lk=type |The conditions represent the "
    "latest available observations of a policy's current state.",
    ".observedGeneration i64 |The generation observed by the controller.",
    ".typeChecking TypeChecking |The results of type checking for each expression. Presence of this field indicates "
    "the completion of the type checking.",
    "@TypeChecking TypeChecking contains results of type checking the expressions in the ValidatingAdmissionPolicy",
    ".expressionWarnings []ExpressionWarning lt=atomic |The type checking warnings for each expression.",
    "@ExpressionWarning ExpressionWarning is a warning information that targets a specific expression.",
    ".fieldRef s ! |The path to the field that refers the expression. For example, the reference to the expression of "
    "the first item of validations is 'spec.validations[0].expression'",
    ".warning s ! |The content of type checking information in a human-readable form. Each line of the warning "
    "contains the type that the expression is checked against, followed by the type check error from the compiler.",

    "@ValidatingAdmissionPolicyBinding ValidatingAdmissionPolicyBinding binds the ValidatingAdmissionPolicy with "
    "paramerized resources. ValidatingAdmissionPolicyBinding and parameter CRDs together define how cluster "
    "administrators configure policies for clusters.",
    TM,
    META,
    ".spec ValidatingAdmissionPolicyBindingSpec |Specification of the desired behavior of the "
    "ValidatingAdmissionPolicyBinding.",
    "@ValidatingAdmissionPolicyBindingSpec ValidatingAdmissionPolicyBindingSpec is the specification of the "
    "ValidatingAdmissionPolicyBinding.",
    ".matchResources MatchResources |MatchResources declares what resources match this binding and will be validated "
    "by it. Note that this is intersected with the policy's matchConstraints, so only requests that are matched by "
    "the policy can be selected by this. If this is unset, all resources matched by the policy are validated by this "
    "binding.",
    ".paramRef ParamRef |paramRef specifies the parameter resource used to configure the admission control policy. "
    "It should point to a resource of the type specified in ParamKind of the bound ValidatingAdmissionPolicy.",
    ".policyName s |PolicyName references a ValidatingAdmissionPolicy name which the ValidatingAdmissionPolicyBinding "
    "binds to. If the referenced resource does not exist, this binding is considered invalid and will be ignored. "
    "Required.",
    ".validationActions []s lt=set |validationActions declares how Validations of the referenced "
    "ValidatingAdmissionPolicy are enforced. If a validation evaluates to false it is always enforced according to "
    "these actions. The supported actions values are: 'Deny', 'Warn' and 'Audit'. Required.",
    "@ParamRef ParamRef describes how to locate the params to be used as input to expressions of rules applied by a "
    "policy binding.",
    ".name s |name is the name of the resource being referenced. One of `name` or `selector` must be set, but `name` "
    "and `selector` are mutually exclusive properties.",
    ".namespace s |namespace is the namespace of the referenced resource. Allows limiting the search for params to a "
    "specific namespace. Applies to both `name` and `selector` fields.",
    ".parameterNotFoundAction s |parameterNotFoundAction controls the behavior of the binding when the resource "
    "exists, and name or selector is valid, but there are no parameters matched by the binding. Allowed values are "
    "`Allow` or `Deny`. Required",
    ".selector io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector |selector can be used to match multiple param "
    "objects based on their labels. Supply selector: {} to match all resources of the ParamKind.",
    NULL,
};
