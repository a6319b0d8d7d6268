/* The RBAC authorizer (k/k plugin/pkg/auth/authorizer/rbac + pkg/registry/rbac/validation/rule.go) over an
 * in-memory copy of the Role, ClusterRole, RoleBinding and ClusterRoleBinding objects.
 *
 * Feeding: whoever watches the objects (kgate serve: server/rbacfeed.c over the watch-fed caches) calls
 * kg_rbac_upsert / kg_rbac_remove / kg_rbac_replace. A background thread compiles the objects into an immutable
 * snapshot indexed by subject — (cluster | namespace) × (user name | group name), a ServiceAccount subject being the
 * user system:serviceaccount:<ns>:<name> — with each binding's role resolved. Changes arriving while a snapshot is
 * built are coalesced into the next one. Readers never lock: they enter a grace-period read section (two reader
 * counters flipped by the single writer, as userspace RCU), so a decision costs a few hash lookups plus the rules of
 * the subject's bindings and never reads the store.
 *
 * Decision (upstream VisitRulesFor + authorizingVisitor): the ClusterRoleBindings of the user and of each of its
 * groups, then, only for a request with a namespace, the RoleBindings of that namespace. The first rule that allows
 * decides Allow with reason `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "u"` (RoleBinding
 * "b/ns", ServiceAccount "sa/ns"); otherwise NoOpinion, with reason `RBAC: <errors>` when a binding that applied to
 * the user named a missing role. RBAC never denies. */
#ifndef KG_AUTH_RBAC_H
#define KG_AUTH_RBAC_H

#include <stdbool.h>
#include <stddef.h>

#include "auth/authorizer.h"
#include "auth/rbac/rule.h"
#include "auth/user.h"
#include "base/arena.h"
#include "json/json.h"

typedef enum kg_rbac_kind {
    KG_RBAC_ROLE = 0,
    KG_RBAC_CLUSTERROLE,
    KG_RBAC_ROLEBINDING,
    KG_RBAC_CLUSTERROLEBINDING,
} kg_rbac_kind;

#define KG_RBAC_GROUP "rbac.authorization.k8s.io"

typedef struct kg_rbac kg_rbac;

/* An empty policy and its builder thread. */
kg_rbac *kg_rbac_new(void);
void kg_rbac_free(kg_rbac *r);

/* The kind for a resource plural ("roles", ...), or -1. */
int kg_rbac_kind_of(const char *resource);

/* Add or replace one object (obj: the object as stored; copied). */
void kg_rbac_upsert(kg_rbac *r, kg_rbac_kind kind, const kg_json *obj);
void kg_rbac_remove(kg_rbac *r, kg_rbac_kind kind, const char *ns, const char *name);
/* Replace every object of kind with objs (after a relist). */
void kg_rbac_replace(kg_rbac *r, kg_rbac_kind kind, const kg_json *const *objs, size_t n);
/* Wait until the snapshot readers see includes every change made before the call; false on timeout. */
bool kg_rbac_sync(kg_rbac *r, int timeout_ms);

/* The authorizer (heap; kg_authorizer_free releases the wrapper only; r must outlive it). */
kg_authorizer *kg_rbac_authorizer(kg_rbac *r);

/* Visit every rule that applies to user in namespace ns ("" = cluster bindings only), in decision order. fn returns
 * false to stop. Missing roles are reported through err_fn (may be NULL) as upstream's not-found texts. Rules are
 * valid during the call only. Returns false when fn stopped the walk. */
typedef bool (*kg_rbac_rule_fn)(void *ud, const kg_rbac_rule *rule, const char *source);
typedef void (*kg_rbac_err_fn)(void *ud, const char *msg);
bool kg_rbac_visit(kg_rbac *r, const kg_user_info *user, const char *ns, kg_arena *a, kg_rbac_rule_fn fn,
                   kg_rbac_err_fn err_fn, void *ud);

/* The rules of one role (kind KG_RBAC_ROLE or KG_RBAC_CLUSTERROLE) copied into a; false when it does not exist. */
bool kg_rbac_role_rules(kg_rbac *r, kg_rbac_kind kind, const char *ns, const char *name, kg_arena *a,
                        kg_rbac_rule **rules, size_t *n);

#endif
