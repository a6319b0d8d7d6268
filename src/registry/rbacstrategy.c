/* RBAC escalation prevention and roleRef immutability (see rbacstrategy.h). */
#include "registry/rbacstrategy.h"

#include <string.h>

#include "auth/rbac/escalation.h"
#include "auth/rbac/rbac.h"

static const char *nz(const char *s)
{
    return s ? s : "";
}

static bool allowed(const kg_write_authz *az, kg_arena *a, const kg_user_info *user, const char *verb,
                    const char *resource, const char *ns, const char *name)
{
    kg_authz_attributes at = {.user = user,
                              .verb = verb,
                              .resource_request = true,
                              .api_group = KG_RBAC_GROUP,
                              .api_version = "v1",
                              .resource = resource,
                              .subresource = "",
                              .namespace_ = ns,
                              .name = name};
    const char *reason;
    return kg_authz_authorize(az->authorizer, &at, a, &reason, NULL) == KG_AUTHZ_ALLOW;
}

/* The rules user holds in ns (RulesFor), copied into a. */
typedef struct owner_rules {
    kg_arena *a;
    kg_rbac_rule *v;
    size_t n, cap;
    const char *errors;
} owner_rules;

static bool collect(void *ud, const kg_rbac_rule *r, const char *source)
{
    (void)source;
    owner_rules *o = ud;
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 32;
        o->v = kg_arena_realloc(o->a, o->v, o->cap * sizeof *o->v, cap * sizeof *o->v);
        o->cap = cap;
    }
    kg_rbac_rule_copy(o->a, r, &o->v[o->n++]);
    return true;
}

static void collect_err(void *ud, const char *msg)
{
    owner_rules *o = ud;
    o->errors = o->errors ? kg_arena_sprintf(o->a, "%s %s", o->errors, msg) : msg;
}

/* ConfirmNoEscalation: NULL when covered, else the message. */
static const char *confirm(kg_arena *a, const kg_write_authz *az, const kg_user_info *user, const char *ns,
                           const kg_rbac_rule *want, size_t nwant)
{
    owner_rules o = {.a = a};
    if (az->rbac)
        kg_rbac_visit(az->rbac, user, ns, a, collect, collect_err, &o);
    const char *missing = kg_rbac_missing_rules(a, o.v, o.n, want, nwant);
    return missing ? kg_rbac_escalation_message(a, user, missing, o.errors) : NULL;
}

static bool same(const kg_json *x, const kg_json *y)
{
    return (!x && !y) || (x && y && kg_json_equal(x, y));
}

static bool has_aggregation(const kg_json *o)
{
    const kg_json *ar = o ? kg_json_get(o, "aggregationRule") : NULL;
    return ar && !kg_json_is(ar, KG_JSON_NULL);
}

kg_status *kg_rbac_authorize_role_write(kg_arena *a, const kg_write_authz *az, const kg_user_info *user, const char *ns,
                                        const char *url_name, const kg_json *obj, const kg_json *old)
{
    if (kg_user_in_group(user, KG_GROUP_MASTERS))
        return NULL;
    if (old && same(kg_json_get(obj, "rules"), kg_json_get(old, "rules")) &&
        same(kg_json_get(obj, "aggregationRule"), kg_json_get(old, "aggregationRule")))
        return NULL;
    bool cluster = !strcmp(nz(kg_json_get_str(obj, "kind")), "ClusterRole");
    const char *resource = cluster ? "clusterroles" : "roles";
    if (allowed(az, a, user, "escalate", resource, ns, url_name))
        return NULL;
    const char *name = nz(kg_json_path_str(obj, "metadata.name"));
    kg_gr gr = {KG_RBAC_GROUP, resource};
    size_t n;
    kg_rbac_rule *rules = kg_rbac_rules_compile(a, kg_json_get(obj, "rules"), &n);
    const char *msg = confirm(a, az, user, ns, rules, n);
    if (msg)
        return kg_status_forbidden(a, gr, name, msg);
    if (cluster && (has_aggregation(obj) || has_aggregation(old))) {
        static const char *const star[] = {"*"};
        kg_rbac_strs st = {(const char **)star, 1, true};
        const kg_rbac_rule full[2] = {{.verbs = st, .api_groups = st, .resources = st}, {.verbs = st, .urls = st}};
        if (confirm(a, az, user, ns, full, 2))
            return kg_status_forbidden(a, gr, name, "must have cluster-admin privileges to use the aggregationRule");
    }
    return NULL;
}

kg_status *kg_rbac_authorize_binding_write(kg_arena *a, const kg_write_authz *az, const kg_user_info *user,
                                           const char *ns, const char *url_name, const kg_json *obj, const kg_json *old)
{
    (void)url_name;
    if (kg_user_in_group(user, KG_GROUP_MASTERS))
        return NULL;
    if (old && same(kg_json_get(obj, "roleRef"), kg_json_get(old, "roleRef")) &&
        same(kg_json_get(obj, "subjects"), kg_json_get(old, "subjects")))
        return NULL;
    const kg_json *ref = kg_json_get(obj, "roleRef");
    bool cluster_role = !strcmp(nz(kg_json_get_str(ref, "kind")), "ClusterRole");
    const char *role_name = nz(kg_json_get_str(ref, "name"));
    if (allowed(az, a, user, "bind", cluster_role ? "clusterroles" : "roles", ns, role_name))
        return NULL;
    kg_rbac_rule *rules = NULL;
    size_t n = 0;
    if (!az->rbac ||
        !kg_rbac_role_rules(az->rbac, cluster_role ? KG_RBAC_CLUSTERROLE : KG_RBAC_ROLE, ns, role_name, a, &rules, &n))
        return kg_status_not_found(a, (kg_gr){KG_RBAC_GROUP, cluster_role ? "clusterrole" : "role"}, role_name);
    const char *msg = confirm(a, az, user, ns, rules, n);
    if (msg) {
        bool crb = !strcmp(nz(kg_json_get_str(obj, "kind")), "ClusterRoleBinding");
        return kg_status_forbidden(a, (kg_gr){KG_RBAC_GROUP, crb ? "clusterrolebindings" : "rolebindings"},
                                   nz(kg_json_path_str(obj, "metadata.name")), msg);
    }
    return NULL;
}

void kg_rbac_validate_binding(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    if (!old)
        return;
    const kg_json *ref = kg_json_get(obj, "roleRef"), *oref = kg_json_get(old, "roleRef");
    if (same(ref, oref))
        return;
    const char *v = kg_arena_sprintf(a, "rbac.RoleRef{APIGroup:\"%s\", Kind:\"%s\", Name:\"%s\"}",
                                     nz(kg_json_get_str(ref, "apiGroup")), nz(kg_json_get_str(ref, "kind")),
                                     nz(kg_json_get_str(ref, "name")));
    kg_field_invalid_raw(a, errs, "roleRef", v, "cannot change roleRef");
}
