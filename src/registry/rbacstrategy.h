/* RBAC objects' write strategy (k/k pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased
 * and escalation_check.go): escalation prevention, checked in the write pipeline before admission, never by the
 * authorizer.
 *   - system:masters members pass;
 *   - Role/ClusterRole: pass when the user may `escalate` roles/clusterroles (name = the URL's, "" on create);
 *     otherwise every rule must be covered by the rules the user holds in that namespace
 *     (auth/rbac/escalation.h), and a ClusterRole with an aggregationRule (new or old) needs `*` on everything:
 *     `must have cluster-admin privileges to use the aggregationRule`;
 *   - RoleBinding/ClusterRoleBinding: pass when the user may `bind` the referenced role (roles/clusterroles named
 *     roleRef.name, in the binding's namespace); otherwise the role must exist (404) and be covered.
 *   An update whose rules (bindings: roleRef and subjects) did not change is not checked (upstream skips updates
 *   that only touch garbage-collection fields).
 * Validation (k/k pkg/apis/rbac/validation, 422): rules need verbs; non-resource URLs only in ClusterRoles and
 * never together with groups/resources/names; resource rules need groups and resources. Bindings: roleRef.apiGroup
 * rbac.authorization.k8s.io, roleRef.kind Role or ClusterRole (ClusterRoleBinding: ClusterRole), a name; subjects
 * ServiceAccount (core group; a namespace in ClusterRoleBindings), User or Group (rbac group). And roleRef is
 * immutable: `roleRef: Invalid value: rbac.RoleRef{...}: cannot change roleRef`. */
#ifndef KG_REGISTRY_RBACSTRATEGY_H
#define KG_REGISTRY_RBACSTRATEGY_H

#include "registry/strategy.h"

kg_status *kg_rbac_authorize_role_write(kg_arena *a, const kg_write_authz *az, const kg_user_info *user, const char *ns,
                                        const char *url_name, const kg_json *obj, const kg_json *old);
kg_status *kg_rbac_authorize_binding_write(kg_arena *a, const kg_write_authz *az, const kg_user_info *user,
                                           const char *ns, const char *url_name, const kg_json *obj,
                                           const kg_json *old);
void kg_rbac_validate_role(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs);
void kg_rbac_validate_binding(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs);

#endif
