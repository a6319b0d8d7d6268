/* The one matcher of admission webhooks and admission policies (upstream webhook/predicates/{rules,namespace,object},
 * generic.ShouldCallHook and policy/matching): does a request concern a hook / policy / binding?
 *
 * A kg_match_criteria is decoded once, when its configuration object changes (never per request), into the
 * configuration's long-lived arena. kg_match evaluates it against a request in upstream's order:
 *
 *   1. namespaceSelector  — a cluster-scoped request (namespace "" and not a Namespace) always matches; {} matches;
 *                           labels of the request object for Namespace CREATE/UPDATE (no subresource), else of the
 *                           namespace attrs->ns (cache, then a live read)
 *   2. objectSelector     — {} matches; else the object's labels OR the old object's labels; no object/metadata (CONNECT
 *                           options, DeleteOptions) never matches a non-empty selector
 *   3. excludeResourceRules (policies) — any match (with equivalents under Equivalent) → no match
 *   4. resourceRules      — any rule, first against the request's resource, then (matchPolicy Equivalent) against each
 *                           equivalent resource; resourceNames, when given, must contain the request name (so a CREATE
 *                           with generateName never matches them)
 *   5. only now are namespace lookup errors surfaced (404 `namespaces "x" not found`, 500 otherwise), and only when a
 *      rule matched
 *
 * matchConditions (CEL) come after a YES and belong to the caller (they need the CEL environment).
 *
 * Rule semantics (predicates/rules): a rule matches iff scope ∧ operation ∧ group ∧ version ∧ resource; "*" matches
 * any value; a resource entry "res/sub" matches (res == "*" or the request resource) and (sub == "*" or the request
 * subresource), an entry without a slash has sub "". So "*" is every main resource; "*" slash "*" everything; "pods"
 * slash "*" pods itself and every pods subresource; "*" slash "status" every status subresource. Scope Namespaced: the
 * request has a namespace and is not a Namespace; Cluster: a Namespace or no namespace.
 *
 * Equivalent resources: kgate serve serves one version per resource, so the only equivalent it knows is the request's
 * original resource when the door received one that differs (attrs->request_resource; the webhook door). */
#ifndef KG_ADMISSION_MATCH_H
#define KG_ADMISSION_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "admission/attributes.h"
#include "admission/services.h"
#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"
#include "meta/gvk.h"
#include "meta/labels.h"
#include "meta/status.h"

typedef enum kg_match_scope {
    KG_MATCH_SCOPE_ANY = 0, /* "*" or unset */
    KG_MATCH_SCOPE_CLUSTER,
    KG_MATCH_SCOPE_NAMESPACED,
} kg_match_scope;

typedef struct kg_match_resource {
    const char *res; /* "*" or a plural */
    const char *sub; /* "*", "" or a subresource */
} kg_match_resource;

/* RuleWithOperations / NamedRuleWithOperations. */
typedef struct kg_match_rule {
    unsigned ops; /* mask of kg_admission_op; "*" = KG_ADMISSION_ALL_OPS */
    const char *const *groups;
    size_t ngroups;
    const char *const *versions;
    size_t nversions;
    const kg_match_resource *resources;
    size_t nresources;
    kg_match_scope scope;
    const char *const *names; /* resourceNames (policies); none = any name */
    size_t nnames;
} kg_match_rule;

typedef struct kg_match_criteria {
    const kg_match_rule *rules;
    size_t nrules;
    bool any_resource; /* no resourceRules (a binding without matchResources rules): everything passes step 4 */
    const kg_match_rule *exclude;
    size_t nexclude;
    kg_label_selector ns_sel, obj_sel;
    bool has_ns_sel, has_obj_sel; /* false: {} (matches everything) */
    bool equivalent;              /* matchPolicy Equivalent (the default) */
} kg_match_criteria;

/* One rule from its JSON ({operations, apiGroups, apiVersions, resources, scope[, resourceNames]}). */
bool kg_match_rule_decode(kg_arena *a, const kg_json *rule, kg_match_rule *out, kg_error *err);
/* A webhook's criteria: rules, namespaceSelector, objectSelector, matchPolicy. */
bool kg_match_criteria_from_webhook(kg_arena *a, const kg_json *webhook, kg_match_criteria *out, kg_error *err);
/* A policy's matchConstraints or a binding's matchResources (MatchResources). NULL: matches everything. */
bool kg_match_criteria_from_resources(kg_arena *a, const kg_json *match_resources, kg_match_criteria *out,
                                      kg_error *err);

/* Rule predicates against a resource/subresource (the request's or an equivalent) and attrs' operation, namespace. */
bool kg_match_rule_matches(const kg_match_rule *r, const kg_admission_attributes *at, const kg_gvr *resource,
                           const char *subresource);

/* What a match was made against: the request's resource, or the equivalent one that matched. */
typedef struct kg_match_invocation {
    kg_gvr resource;
    const char *subresource;
    kg_gvk kind;
} kg_match_invocation;

typedef enum kg_match_result {
    KG_MATCH_NO = 0,
    KG_MATCH_YES,
    KG_MATCH_ERROR, /* *st set: the namespace of a matching request could not be read */
} kg_match_result;

kg_match_result kg_match(const kg_match_criteria *c, const kg_admission_attributes *at,
                         const kg_admission_services *svc, kg_match_invocation *inv, kg_status **st);

/* IsExemptAdmissionConfigurationResource: API-defined webhooks are never called for the admission configuration
 * kinds of admissionregistration.k8s.io (webhook configurations, policies and their bindings), any subresource. */
bool kg_match_is_admission_config_kind(const kg_admission_attributes *at);

#endif
