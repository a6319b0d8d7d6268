/* RBAC policy rules (rbac.authorization.k8s.io/v1 PolicyRule) compiled for matching, and upstream's evaluation
 * helpers (k/k pkg/apis/rbac/v1/evaluation_helpers.go):
 *   - verbs / apiGroups: the value or "*";
 *   - resources: "*", the requested "resource" or "resource/subresource" exactly, or "*\/sub" for any resource's
 *     subresource sub ("pods" does not cover "pods/log"; "pods/\*" is not a wildcard);
 *   - resourceNames: empty, or containing the requested name;
 *   - nonResourceURLs: "*", the path exactly, or "prefix*" as a prefix.
 * All comparisons exact and case-sensitive. A compiled rule borrows nothing: its strings live in the arena it was
 * compiled into. */
#ifndef KG_AUTH_RBAC_RULE_H
#define KG_AUTH_RBAC_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth/authorizer.h"
#include "base/arena.h"
#include "base/buf.h"
#include "json/json.h"

/* One string list of a rule; star: the list holds "*". */
typedef struct kg_rbac_strs {
    const char **v;
    uint32_t n;
    bool star;
} kg_rbac_strs;

typedef struct kg_rbac_rule {
    kg_rbac_strs verbs, api_groups, resources, resource_names, urls;
    /* Pre-filters computed by compile (a rule that fails them cannot match; one that passes is checked exactly):
     * the verbs as bits of the well-known verbs (KG_RBAC_VERB_OTHER for the rest, all bits for "*"), and 64-bit
     * Bloom masks of the API groups and of the resources' names before any '/' (all bits for "*"). */
    uint32_t verb_mask;
    uint64_t group_mask, resource_mask;
    bool any_sub_wildcard; /* a "*\/sub" resource entry */
} kg_rbac_rule;

#define KG_RBAC_VERB_OTHER (1u << 31)

/* A request's attributes with the pre-filter bits computed once per decision. */
typedef struct kg_rbac_req {
    const kg_authz_attributes *at;
    uint32_t verb_bit;
    uint64_t group_bit, resource_bit;
} kg_rbac_req;

void kg_rbac_req_init(kg_rbac_req *q, const kg_authz_attributes *at);
/* kg_rbac_rule_allows with the pre-filters. */
bool kg_rbac_rule_allows_req(const kg_rbac_rule *r, const kg_rbac_req *q);

/* Compile a PolicyRule JSON object into out (strings copied into a). Non-string list items are ignored. */
void kg_rbac_rule_compile(kg_arena *a, const kg_json *rule, kg_rbac_rule *out);
/* Compile the "rules" array of a Role/ClusterRole object; *n receives the count (0 for a missing array). */
kg_rbac_rule *kg_rbac_rules_compile(kg_arena *a, const kg_json *rules, size_t *n);

bool kg_rbac_verb_matches(const kg_rbac_rule *r, const char *verb);
bool kg_rbac_api_group_matches(const kg_rbac_rule *r, const char *group);
bool kg_rbac_resource_matches(const kg_rbac_rule *r, const char *resource, const char *subresource);
bool kg_rbac_resource_name_matches(const kg_rbac_rule *r, const char *name);
bool kg_rbac_url_matches(const kg_rbac_rule *r, const char *path);

/* RuleAllows: a resource request matches verb, group, resource and name; a non-resource request verb and URL. */
bool kg_rbac_rule_allows(const kg_rbac_rule *r, const kg_authz_attributes *at);

/* Deep copy of a rule into a (pre-filters included). */
void kg_rbac_rule_copy(kg_arena *a, const kg_rbac_rule *from, kg_rbac_rule *to);

/* The rule as a PolicyRule JSON object (empty lists omitted), built in a. */
kg_json *kg_rbac_rule_to_json(kg_arena *a, const kg_rbac_rule *r);

#endif
