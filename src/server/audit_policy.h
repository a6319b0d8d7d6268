/* The audit policy (kube-apiserver's --audit-policy-file; audit.k8s.io/v1 Policy and k8s.io/apiserver
 * pkg/audit/policy).
 *
 * A Policy has rules tried in order; the first rule matching a request gives its level (None, Metadata, Request,
 * RequestResponse) and, merged with the policy-wide values, the stages to omit and whether managed fields are
 * omitted. No rule matching: level None (not audited). A rule matches when every field it sets matches:
 *   users (user name), userGroups (any of the user's groups), verbs;
 *   namespaces / resources (resource requests only; "" names cluster-scoped requests; resources entries are
 *     {group, resources, resourceNames} with "resource/subresource", "*", "*\/subresource" and "resource/\*" forms);
 *   nonResourceURLs (non-resource requests only; exact, "*", or a prefix ending in "*").
 * Parsed once at start-up (YAML or JSON); the matcher reads the compiled rules and allocates nothing. */
#ifndef KG_SERVER_AUDIT_POLICY_H
#define KG_SERVER_AUDIT_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "auth/user.h"
#include "base/error.h"

typedef enum kg_audit_level {
    KG_AUDIT_NONE = 0,
    KG_AUDIT_METADATA,
    KG_AUDIT_REQUEST,
    KG_AUDIT_REQUEST_RESPONSE,
} kg_audit_level;

/* Stages as a bit set. */
enum {
    KG_AUDIT_STAGE_REQUEST_RECEIVED = 1u << 0,
    KG_AUDIT_STAGE_RESPONSE_STARTED = 1u << 1,
    KG_AUDIT_STAGE_RESPONSE_COMPLETE = 1u << 2,
    KG_AUDIT_STAGE_PANIC = 1u << 3,
};

const char *kg_audit_level_name(kg_audit_level l);
const char *kg_audit_stage_name(unsigned stage); /* one bit */

typedef struct kg_audit_policy kg_audit_policy;

/* Parse a Policy document (YAML or JSON). Errors name the field ("rules[2].level: Unsupported value: ..."). */
kg_audit_policy *kg_audit_policy_parse(const char *text, size_t len, kg_error *err);
/* Read and parse path; errors are prefixed with the path. */
kg_audit_policy *kg_audit_policy_load(const char *path, kg_error *err);
void kg_audit_policy_free(kg_audit_policy *p);
size_t kg_audit_policy_nrules(const kg_audit_policy *p);

/* What the matcher looks at (RequestInfo + user). */
typedef struct kg_audit_request {
    const kg_user_info *user;
    const char *verb;
    bool is_resource;
    const char *api_group, *resource, *subresource, *ns, *name; /* resource requests ("" when absent) */
    const char *path;                                           /* non-resource requests */
} kg_audit_request;

typedef struct kg_audit_decision {
    kg_audit_level level;
    unsigned omit_stages; /* KG_AUDIT_STAGE_* */
    bool omit_managed_fields;
} kg_audit_decision;

kg_audit_decision kg_audit_policy_evaluate(const kg_audit_policy *p, const kg_audit_request *rq);

#endif
