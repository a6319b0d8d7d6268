/* Authorization in the HTTP layer: request attributes for the authorizer interface (auth/authorizer.h, where
 * kgate's current implementation lives: upstream's privileged-group authorizer for system:masters, everyone else
 * no opinion, hence denied) and upstream's 403 texts. RBAC and webhooks plug in later behind the same interface. */
#ifndef KG_SERVER_AUTHZ_H
#define KG_SERVER_AUTHZ_H

#include <stdbool.h>

#include "auth/authorizer.h"
#include "base/arena.h"
#include "base/buf.h"
#include "server/authn.h"
#include "server/requestinfo.h"

/* --authorization-mode values kgate knows (upstream's modes minus ABAC and Webhook). */
typedef enum kg_authz_mode {
    KG_AUTHZ_MODE_ALWAYS_ALLOW = 1,
    KG_AUTHZ_MODE_ALWAYS_DENY,
    KG_AUTHZ_MODE_RBAC,
    KG_AUTHZ_MODE_NODE,
} kg_authz_mode;
#define KG_AUTHZ_MAX_MODES 4
/* kgate's default: Node,RBAC (kubeadm's and every conformant cluster's; kube-apiserver's bare flag default is
 * AlwaysAllow). */
#define KG_AUTHZ_DEFAULT_MODES "Node,RBAC"

/* Parse the comma-separated list (upstream's validation texts: `authorization-mode "X" is not a valid mode`,
 * `authorization-mode "RBAC" has mode specified more than once`, `at least one authorization-mode must be passed`;
 * ABAC and Webhook are valid upstream but `not supported by kgate`). */
bool kg_authz_parse_modes(const char *s, kg_authz_mode *modes, size_t *n, kg_error *err);

/* Fill attributes from a parsed request (all strings borrowed). */
void kg_authz_attributes_from_request(kg_authz_attributes *attrs, const kg_user *user, const kg_request_info *ri);

/* The Forbidden message of responsewriters.Forbidden + apierrors.NewForbidden, e.g.
 *   pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"
 *   nodes "n1" is forbidden: User "bob" cannot get resource "nodes" in API group "" at the cluster scope
 *   deployments.apps is forbidden: User "bob" cannot create resource "deployments" in API group "apps" ...
 *   forbidden: User "bob" cannot get path "/healthz"
 * with ": <reason>" appended to the inner message when reason is non-empty. */
const char *kg_authz_forbidden_message(kg_arena *a, const kg_authz_attributes *attrs, const char *reason);

/* The whole 403 Status object as JSON text (kind Status, reason Forbidden, details {name, group, kind}, code
 * 403), written to out. */
void kg_authz_forbidden_status(kg_buf *out, kg_arena *a, const kg_authz_attributes *attrs, const char *reason);

#endif
