/* The objects every kgate cluster starts with, whichever door runs it (kube-apiserver's post-start hooks):
 *   - the namespaces default, kube-system, kube-public and kube-node-lease (bootstrap-controller);
 *   - the built-in PriorityClasses system-node-critical and system-cluster-critical (the Priority plugin's
 *     "scheduling/bootstrap-system-priority-classes" hook).
 * `kgate serve` runs it over its SQLite store at start, `kgate check` over its in-memory store. Objects that
 * already exist are left as they are. */
#ifndef KG_REGISTRY_BOOTSTRAP_H
#define KG_REGISTRY_BOOTSTRAP_H

#include <stdbool.h>

#include "base/error.h"
#include "storage/storage.h"

bool kg_registry_bootstrap(kg_store *store, kg_error *err);

/* The RBAC bootstrap policy (auth/rbac/bootstrappolicy.h) reconciled as kube-apiserver's rbac/bootstrap-roles hook
 * does at every start: missing objects are created; objects annotated rbac.authorization.kubernetes.io/autoupdate
 * other than "true" are left alone; the others get the missing rules, aggregation selectors, subjects, labels and
 * annotations added (what is there is kept, existing values win); a ClusterRoleBinding whose roleRef differs is
 * recreated. `kgate serve` runs it before its caches start. */
bool kg_registry_rbac_bootstrap(kg_store *store, kg_error *err);

#endif
