/* authentication.k8s.io/v1 (TokenReview, SelfSubjectReview) and authorization.k8s.io/v1 (the access and rules
 * reviews): create-only kinds, never stored. */
#include "api/schema_data.h"

#define TM ">io.k8s.apimachinery.pkg.apis.meta.v1._TypeMeta"
#define META                                                                                                           \
    ".metadata io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta |Standard list metadata. More info: "                  \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"

const char *const kg_schema_data_reviews[] = {
    "=io.k8s.api.authentication.v1",
    "@TokenReview TokenReview attempts to authenticate a token to a known user. Note: TokenReview requests may be "
    "cached by the webhook token authenticator plugin in the kube-apiserver.",
    TM,
    META,
    ".spec TokenReviewSpec ! |Spec holds information about the request being evaluated",
    ".status TokenReviewStatus |Status is filled in by the server and indicates whether the request can be "
    "authenticated.",
    "@TokenReviewSpec TokenReviewSpec is a description of the token authentication request.",
    ".token s |Token is the opaque bearer token.",
    ".audiences []s lt=atomic |Audiences is a list of the identifiers that the resource server presented with the "
    "token identifies as. Audience-aware token authenticators will verify that the token was intended for at least "
    "one of the audiences in this list. If no audiences are provided, the audience will default to the audience of "
    "the Kubernetes apiserver.",
    "@TokenReviewStatus TokenReviewStatus is the result of the token authentication request.",
    ".authenticated b |Authenticated indicates that the token was associated with a known user.",
    ".user UserInfo |User is the UserInfo associated with the provided token.",
    ".audiences []s lt=atomic |Audiences are audience identifiers chosen by the authenticator that are compatible "
    "with both the TokenReview and token.",
    ".error s |Error indicates that the token couldn't be checked",
    "@UserInfo UserInfo holds the information about the user needed to implement the user.Info interface.",
    ".username s |The name that uniquely identifies this user among all active users.",
    ".uid s |A unique value that identifies this user across time.",
    ".groups []s lt=atomic |The names of groups this user is a part of.",
    ".extra {}[]s |Any additional information provided by the authenticator.",
    "@SelfSubjectReview SelfSubjectReview contains the user information that the kube-apiserver has about the user "
    "making this request.",
    TM,
    META,
    ".status SelfSubjectReviewStatus |Status is filled in by the server with the user attributes.",
    "@SelfSubjectReviewStatus SelfSubjectReviewStatus is filled by the kube-apiserver and sent back to a user.",
    ".userInfo UserInfo |User attributes of the user making this request.",

    "=io.k8s.api.authorization.v1",
    "@SubjectAccessReview SubjectAccessReview checks whether or not a user or group can perform an action.",
    TM,
    META,
    ".spec SubjectAccessReviewSpec ! |Spec holds information about the request being evaluated",
    ".status SubjectAccessReviewStatus |Status is filled in by the server and indicates whether the request is "
    "allowed or not",
    "@LocalSubjectAccessReview LocalSubjectAccessReview checks whether or not a user or group can perform an action "
    "in a given namespace.",
    TM,
    META,
    ".spec SubjectAccessReviewSpec ! |Spec holds information about the request being evaluated. spec.namespace must "
    "be equal to the namespace you made the request against.",
    ".status SubjectAccessReviewStatus |Status is filled in by the server and indicates whether the request is "
    "allowed or not",
    "@SelfSubjectAccessReview SelfSubjectAccessReview checks whether or the current user can perform an action.",
    TM,
    META,
    ".spec SelfSubjectAccessReviewSpec ! |Spec holds information about the request being evaluated. user and groups "
    "must be empty",
    ".status SubjectAccessReviewStatus |Status is filled in by the server and indicates whether the request is "
    "allowed or not",
    "@SubjectAccessReviewSpec SubjectAccessReviewSpec is a description of the access request. Exactly one of "
    "ResourceAuthorizationAttributes and NonResourceAuthorizationAttributes must be set",
    ".resourceAttributes ResourceAttributes |ResourceAuthorizationAttributes describes information for a resource "
    "access request",
    ".nonResourceAttributes NonResourceAttributes |NonResourceAttributes describes information for a non-resource "
    "access request",
    ".user s |User is the user you're testing for.",
    ".groups []s lt=atomic |Groups is the groups you're testing for.",
    ".extra {}[]s |Extra corresponds to the user.Info.GetExtra() method from the authenticator.",
    ".uid s |UID information about the requesting user.",
    "@SelfSubjectAccessReviewSpec SelfSubjectAccessReviewSpec is a description of the access request. Exactly one "
    "of ResourceAuthorizationAttributes and NonResourceAuthorizationAttributes must be set",
    ".resourceAttributes ResourceAttributes |ResourceAuthorizationAttributes describes information for a resource "
    "access request",
    ".nonResourceAttributes NonResourceAttributes |NonResourceAttributes describes information for a non-resource "
    "access request",
    "@ResourceAttributes ResourceAttributes includes the authorization attributes available for resource requests "
    "to the Authorizer interface",
    ".namespace s |Namespace is the namespace of the action being requested.",
    ".verb s |Verb is a kubernetes resource API verb, like: get, list, watch, create, update, delete, proxy.  \"*\" "
    "means all.",
    ".group s |Group is the API Group of the Resource.  \"*\" means all.",
    ".version s |Version is the API Version of the Resource.  \"*\" means all.",
    ".resource s |Resource is one of the existing resource types.  \"*\" means all.",
    ".subresource s |Subresource is one of the existing resource types.  \"\" means none.",
    ".name s |Name is the name of the resource being requested for a \"get\" or deleted for a \"delete\". \"\" "
    "(empty) means all.",
    ".fieldSelector FieldSelectorAttributes |fieldSelector describes the limitation on access based on field.",
    ".labelSelector LabelSelectorAttributes |labelSelector describes the limitation on access based on labels.",
    "@FieldSelectorAttributes FieldSelectorAttributes indicates a field limited access.",
    ".rawSelector s |rawSelector is the serialization of a field selector that would be included in a query "
    "parameter.",
    ".requirements []io.k8s.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement lt=atomic |requirements is the "
    "parsed interpretation of a field selector.",
    "@LabelSelectorAttributes LabelSelectorAttributes indicates a label limited access.",
    ".rawSelector s |rawSelector is the serialization of a field selector that would be included in a query "
    "parameter.",
    ".requirements []io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement lt=atomic |requirements is the "
    "parsed interpretation of a label selector.",
    "@NonResourceAttributes NonResourceAttributes includes the authorization attributes available for non-resource "
    "requests to the Authorizer interface",
    ".path s |Path is the URL path of the request",
    ".verb s |Verb is the standard HTTP verb",
    "@SubjectAccessReviewStatus SubjectAccessReviewStatus",
    ".allowed b ! |Allowed is required. True if the action would be allowed, false otherwise.",
    ".denied b |Denied is optional. True if the action would be denied, otherwise false.",
    ".reason s |Reason is optional.  It indicates why a request was allowed or denied.",
    ".evaluationError s |EvaluationError is an indication that some error occurred during the authorization check.",
    "@SelfSubjectRulesReview SelfSubjectRulesReview enumerates the set of actions the current user can perform "
    "within a namespace.",
    TM,
    META,
    ".spec SelfSubjectRulesReviewSpec ! |Spec holds information about the request being evaluated.",
    ".status SubjectRulesReviewStatus |Status is filled in by the server and indicates the set of actions a user can "
    "perform.",
    "@SelfSubjectRulesReviewSpec SelfSubjectRulesReviewSpec defines the specification for SelfSubjectRulesReview.",
    ".namespace s |Namespace to evaluate rules for. Required.",
    "@SubjectRulesReviewStatus SubjectRulesReviewStatus contains the result of a rules check.",
    ".resourceRules []ResourceRule ! lt=atomic |ResourceRules is the list of actions the subject is allowed to "
    "perform on resources.",
    ".nonResourceRules []NonResourceRule ! lt=atomic |NonResourceRules is the list of actions the subject is allowed "
    "to perform on non-resources.",
    ".incomplete b ! |Incomplete is true when the rules returned by this call are incomplete.",
    ".evaluationError s |EvaluationError can appear in combination with Rules.",
    "@ResourceRule ResourceRule is the list of actions the subject is allowed to perform on resources.",
    ".verbs []s ! lt=atomic |Verb is a list of kubernetes resource API verbs.",
    ".apiGroups []s lt=atomic |APIGroups is the name of the APIGroup that contains the resources.",
    ".resources []s lt=atomic |Resources is a list of resources this rule applies to.",
    ".resourceNames []s lt=atomic |ResourceNames is an optional white list of names that the rule applies to.",
    "@NonResourceRule NonResourceRule holds information that describes a rule for the non-resource",
    ".verbs []s ! lt=atomic |Verb is a list of kubernetes non-resource API verbs.",
    ".nonResourceURLs []s lt=atomic |NonResourceURLs is a set of partial urls that a user should have access to.",

    "=io.k8s.apimachinery.pkg.apis.meta.v1",
    "@FieldSelectorRequirement FieldSelectorRequirement is a selector that contains values, a key, and an operator "
    "that relates the key and values.",
    ".key s ! |key is the field selector key that the requirement applies to.",
    ".operator s ! |operator represents a key's relationship to a set of values. Valid operators are In, NotIn, "
    "Exists, DoesNotExist. The list of operators may grow in the future.",
    ".values []s lt=atomic |values is an array of string values.",
    NULL,
};
