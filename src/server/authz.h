/* Authorization: an interface (k8s.io/apiserver authorizer.Authorizer) and kgate's current implementation,
 * upstream's privileged-group authorizer for system:masters (everyone else: no opinion, hence denied).
 * RBAC and webhooks plug in later behind the same interface. */
#ifndef KG_SERVER_AUTHZ_H
#define KG_SERVER_AUTHZ_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/buf.h"
#include "server/authn.h"
#include "server/requestinfo.h"

/* authorizer.Attributes */
typedef struct kg_authz_attributes {
    const kg_user *user;
    const char *verb;
    bool resource_request;
    const char *path;      /* non-resource requests */
    const char *api_group; /* resource requests ("" = core) */
    const char *api_version;
    const char *resource;
    const char *subresource;
    const char *namespace_;
    const char *name;
} kg_authz_attributes;

/* Fill attributes from a parsed request (all strings borrowed). */
void kg_authz_attributes_from_request(kg_authz_attributes *attrs, const kg_user *user, const kg_request_info *ri);

typedef enum kg_authz_decision {
    KG_AUTHZ_DENY = 0,
    KG_AUTHZ_ALLOW,
    KG_AUTHZ_NO_OPINION,
} kg_authz_decision;

typedef struct kg_authorizer kg_authorizer;
struct kg_authorizer {
    /* Decide; *reason may be set to an arena/static string (NULL or "" = no reason). Must be thread-safe. */
    kg_authz_decision (*authorize)(const kg_authorizer *self, const kg_authz_attributes *attrs, kg_arena *a,
                                   const char **reason);
    void (*destroy)(kg_authorizer *self); /* may be NULL */
    void *impl;
};

static inline kg_authz_decision kg_authz_authorize(const kg_authorizer *z, const kg_authz_attributes *attrs,
                                                   kg_arena *a, const char **reason)
{
    *reason = NULL;
    return z->authorize(z, attrs, a, reason);
}
void kg_authorizer_free(kg_authorizer *z);

/* Allow every request whose user is in one of the groups (upstream authorizerfactory.NewPrivilegedGroups);
 * no opinion otherwise. kgate's default: kg_authz_new_privileged_groups((const char *[]){"system:masters"}, 1). */
kg_authorizer *kg_authz_new_privileged_groups(const char *const *groups, size_t ngroups);

/* Union of authorizers (upstream union.New): the first Allow or Deny wins; all no-opinion -> no opinion with
 * the non-empty reasons joined by "\n". Takes ownership of the members. */
kg_authorizer *kg_authz_new_union(kg_authorizer **members, size_t n);

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
