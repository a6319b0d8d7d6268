/* flowcontrol.apiserver.k8s.io/v1: FlowSchema and PriorityLevelConfiguration (served and stored; kgate does no
 * API priority and fairness). */
#include "api/schema_data.h"

#define TM ">io.k8s.apimachinery.pkg.apis.meta.v1._TypeMeta"
#define META                                                                                                           \
    ".metadata io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta |`metadata` is the standard object's metadata. More "   \
    "info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
#define COND(what)                                                                                                     \
    ".lastTransitionTime io.k8s.apimachinery.pkg.apis.meta.v1.Time |`lastTransitionTime` is the last time the "        \
    "condition transitioned from one status to another.",                                                              \
        ".message s |`message` is a human-readable message indicating details about last transition.",                 \
        ".reason s |`reason` is a unique, one-word, CamelCase reason for the condition's last transition.",            \
        ".status s |`status` is the status of the condition. Can be True, False, Unknown. Required.",                  \
        ".type s |`type` is the type of the condition. Required."

const char *const kg_schema_data_flowcontrol[] = {
    "=io.k8s.api.flowcontrol.v1",
    "@FlowSchema FlowSchema defines the schema of a group of flows. Note that a flow is made up of a set of inbound "
    "API requests with similar attributes and is identified by a pair of strings: the name of the FlowSchema and a "
    "\"flow distinguisher\".",
    TM,
    META,
    ".spec FlowSchemaSpec |`spec` is the specification of the desired behavior of a FlowSchema.",
    ".status FlowSchemaStatus |`status` is the current status of a FlowSchema.",
    "@FlowSchemaSpec FlowSchemaSpec describes how the FlowSchema's specification looks like.",
    ".distinguisherMethod FlowDistinguisherMethod |`distinguisherMethod` defines how to compute the flow "
    "distinguisher for requests that match this schema.",
    ".matchingPrecedence i32 |`matchingPrecedence` is used to choose among the FlowSchemas that match a given "
    "request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically "
    "highest) MatchingPrecedence.",
    ".priorityLevelConfiguration PriorityLevelConfigurationReference ! |`priorityLevelConfiguration` should "
    "reference a PriorityLevelConfiguration in the cluster.",
    ".rules []PolicyRulesWithSubjects lt=atomic |`rules` describes which requests will match this flow schema.",
    "@FlowDistinguisherMethod FlowDistinguisherMethod specifies the method of a flow distinguisher.",
    ".type s ! |`type` is the type of flow distinguisher method The supported types are \"ByUser\" and "
    "\"ByNamespace\". Required.",
    "@PriorityLevelConfigurationReference PriorityLevelConfigurationReference contains information that points to "
    "the \"request-priority\" being used.",
    ".name s ! |`name` is the name of the priority level configuration being referenced Required.",
    "@PolicyRulesWithSubjects PolicyRulesWithSubjects prescribes a test that applies to a request to an apiserver.",
    ".nonResourceRules []NonResourcePolicyRule lt=atomic |`nonResourceRules` is a list of NonResourcePolicyRules "
    "that identify matching requests according to their verb and the target non-resource URL.",
    ".resourceRules []ResourcePolicyRule lt=atomic |`resourceRules` is a slice of ResourcePolicyRules that identify "
    "matching requests according to their verb and the target resource.",
    ".subjects []Subject ! lt=atomic |subjects is the list of normal user, serviceaccount, or group that this rule "
    "cares about.",
    "@NonResourcePolicyRule NonResourcePolicyRule is a predicate that matches non-resource requests according to "
    "their verb and the target non-resource URL.",
    ".nonResourceURLs []s ! lt=set |`nonResourceURLs` is a set of url prefixes that a user should have access to and "
    "may not be empty.",
    ".verbs []s ! lt=set |`verbs` is a list of matching verbs and may not be empty. \"*\" matches all verbs.",
    "@ResourcePolicyRule ResourcePolicyRule is a predicate that matches some resource requests, testing the "
    "request's verb and the target resource.",
    ".apiGroups []s ! lt=set |`apiGroups` is a list of matching API groups and may not be empty. \"*\" matches all "
    "API groups and, if present, must be the only entry. Required.",
    ".clusterScope b |`clusterScope` indicates whether to match requests that do not specify a namespace.",
    ".namespaces []s lt=set |`namespaces` is a list of target namespaces that restricts matches.",
    ".resources []s ! lt=set |`resources` is a list of matching resources (i.e., lowercase and plural) with, if "
    "desired, subresource.",
    ".verbs []s ! lt=set |`verbs` is a list of matching verbs and may not be empty. \"*\" matches all verbs and, if "
    "present, must be the only entry. Required.",
    "@Subject Subject matches the originator of a request, as identified by the request authentication system.",
    ".group GroupSubject |`group` matches based on user group name.",
    ".kind s ! |`kind` indicates which one of the other fields is non-empty. Required",
    ".serviceAccount ServiceAccountSubject |`serviceAccount` matches ServiceAccounts.",
    ".user UserSubject |`user` matches based on username.",
    "@GroupSubject GroupSubject holds detailed information for group-kind subject.",
    ".name s ! |name is the user group that matches, or \"*\" to match all user groups.",
    "@ServiceAccountSubject ServiceAccountSubject holds detailed information for service-account-kind subject.",
    ".name s ! |`name` is the name of matching ServiceAccount objects, or \"*\" to match regardless of name. "
    "Required.",
    ".namespace s ! |`namespace` is the namespace of matching ServiceAccount objects. Required.",
    "@UserSubject UserSubject holds detailed information for user-kind subject.",
    ".name s ! |`name` is the username that matches, or \"*\" to match all usernames. Required.",
    "@FlowSchemaStatus FlowSchemaStatus represents the current state of a FlowSchema.",
    ".conditions []FlowSchemaCondition lt=map lk=type mk=type ps=merge |`conditions` is a list of the current states "
    "of FlowSchema.",
    "@FlowSchemaCondition FlowSchemaCondition describes conditions for a FlowSchema.",
    COND("FlowSchema"),

    "@PriorityLevelConfiguration PriorityLevelConfiguration represents the configuration of a priority level.",
    TM,
    META,
    ".spec PriorityLevelConfigurationSpec |`spec` is the specification of the desired behavior of a "
    "\"request-priority\".",
    ".status PriorityLevelConfigurationStatus |`status` is the current status of a \"request-priority\".",
    "@PriorityLevelConfigurationSpec PriorityLevelConfigurationSpec specifies the configuration of a priority "
    "level.",
    ".exempt ExemptPriorityLevelConfiguration |`exempt` specifies how requests are handled for an exempt priority "
    "level.",
    ".limited LimitedPriorityLevelConfiguration |`limited` specifies how requests are handled for a Limited priority "
    "level.",
    ".type s ! |`type` indicates whether this priority level is subject to limitation on request execution.  A value "
    "of `\"Exempt\"` means that requests of this priority level are not subject to a limit (and thus are never "
    "queued) and do not detract from the capacity made available to other priority levels.",
    "@ExemptPriorityLevelConfiguration ExemptPriorityLevelConfiguration describes the configurable aspects of the "
    "handling of exempt requests.",
    ".lendablePercent i32 |`lendablePercent` prescribes the fraction of the level's NominalCL that can be borrowed by "
    "other priority levels.",
    ".nominalConcurrencyShares i32 |`nominalConcurrencyShares` (NCS) contributes to the computation of the "
    "NominalConcurrencyLimit (NominalCL) of this level.",
    "@LimitedPriorityLevelConfiguration LimitedPriorityLevelConfiguration specifies how to handle requests that are "
    "subject to limits.",
    ".borrowingLimitPercent i32 |`borrowingLimitPercent`, if present, configures a limit on how many seats this "
    "priority level can borrow from other priority levels.",
    ".lendablePercent i32 |`lendablePercent` prescribes the fraction of the level's NominalCL that can be borrowed by "
    "other priority levels.",
    ".limitResponse LimitResponse |`limitResponse` indicates what to do with requests that can not be executed right "
    "now",
    ".nominalConcurrencyShares i32 |`nominalConcurrencyShares` (NCS) contributes to the computation of the "
    "NominalConcurrencyLimit (NominalCL) of this level.",
    "@LimitResponse LimitResponse defines how to handle requests that can not be executed right now.",
    ".queuing QueuingConfiguration |`queuing` holds the configuration parameters for queuing. This field may be "
    "non-empty only if `type` is `\"Queue\"`.",
    ".type s ! |`type` is \"Queue\" or \"Reject\".",
    "@QueuingConfiguration QueuingConfiguration holds the configuration parameters for queuing",
    ".handSize i32 |`handSize` is a small positive number that configures the shuffle sharding of requests into "
    "queues.",
    ".queueLengthLimit i32 |`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given "
    "queue of this priority level at a time; excess requests are rejected.",
    ".queues i32 |`queues` is the number of queues for this priority level.",
    "@PriorityLevelConfigurationStatus PriorityLevelConfigurationStatus represents the current state of a "
    "\"request-priority\".",
    ".conditions []PriorityLevelConfigurationCondition lt=map lk=type mk=type ps=merge |`conditions` is the current "
    "state of \"request-priority\".",
    "@PriorityLevelConfigurationCondition PriorityLevelConfigurationCondition defines the condition of priority "
    "level.",
    COND("PriorityLevelConfiguration"),
    NULL,
};
