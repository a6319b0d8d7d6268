/* The default RBAC policy every kgate serve cluster starts with (upstream's bootstrappolicy, the data behind the
 * rbac/bootstrap-roles post-start hook): ClusterRoles cluster-admin, admin/edit/view (aggregated from the
 * system:aggregate-to-* roles), system:discovery, system:basic-user, system:public-info-viewer, system:monitoring,
 * system:auth-delegator, system:node, system:kube-controller-manager, system:kube-scheduler, and the
 * ClusterRoleBindings that grant them. Every object carries label kubernetes.io/bootstrapping=rbac-defaults and
 * annotation rbac.authorization.kubernetes.io/autoupdate="true". */
#ifndef KG_AUTH_RBAC_BOOTSTRAPPOLICY_H
#define KG_AUTH_RBAC_BOOTSTRAPPOLICY_H

#include "base/arena.h"
#include "json/json.h"

#define KG_RBAC_AUTOUPDATE_ANNOTATION "rbac.authorization.kubernetes.io/autoupdate"

/* The ClusterRoles then the ClusterRoleBindings, as a JSON array of complete objects built in a. */
kg_json *kg_rbac_bootstrap_policy(kg_arena *a);

#endif
