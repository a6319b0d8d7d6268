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

/* Go's %#v of a []string: []string{"a", "b"} */
static const char *go_strings(kg_arena *a, const kg_json *arr)
{
    const char *out = "[]string{";
    for (uint32_t i = 0; kg_json_is(arr, KG_JSON_ARRAY) && i < arr->len; i++)
        out = kg_arena_sprintf(a, "%s%s\"%s\"", out, i ? ", " : "",
                               kg_json_is(arr->u.items[i], KG_JSON_STRING) ? arr->u.items[i]->u.s : "");
    return kg_arena_sprintf(a, "%s}", out);
}

static size_t len_of(const kg_json *o, const char *key)
{
    const kg_json *v = kg_json_get(o, key);
    return kg_json_is(v, KG_JSON_ARRAY) ? v->len : 0;
}

void kg_rbac_validate_role(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    (void)old;
    bool namespaced = strcmp(nz(kg_json_get_str(obj, "kind")), "ClusterRole") != 0;
    const kg_json *rules = kg_json_get(obj, "rules");
    for (uint32_t i = 0; kg_json_is(rules, KG_JSON_ARRAY) && i < rules->len; i++) {
        const kg_json *r = rules->u.items[i];
        const char *p = kg_arena_sprintf(a, "rules[%u]", i);
        if (!len_of(r, "verbs"))
            kg_field_required(a, errs, kg_arena_sprintf(a, "%s.verbs", p), "verbs must contain at least one value");
        if (len_of(r, "nonResourceURLs")) {
            const char *f = kg_arena_sprintf(a, "%s.nonResourceURLs", p);
            const char *v = go_strings(a, kg_json_get(r, "nonResourceURLs"));
            if (namespaced)
                kg_field_invalid_raw(a, errs, f, v, "namespaced rules cannot apply to non-resource URLs");
            if (len_of(r, "apiGroups") || len_of(r, "resources") || len_of(r, "resourceNames"))
                kg_field_invalid_raw(a, errs, f, v,
                                     "rules cannot apply to both regular resources and non-resource URLs");
            continue;
        }
        if (!len_of(r, "apiGroups"))
            kg_field_required(a, errs, kg_arena_sprintf(a, "%s.apiGroups", p),
                              "resource rules must supply at least one api group");
        if (!len_of(r, "resources"))
            kg_field_required(a, errs, kg_arena_sprintf(a, "%s.resources", p),
                              "resource rules must supply at least one resource");
    }
}

void kg_rbac_validate_binding(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    bool namespaced = strcmp(nz(kg_json_get_str(obj, "kind")), "ClusterRoleBinding") != 0;
    const kg_json *ref = kg_json_get(obj, "roleRef");
    static const char *const group[] = {KG_RBAC_GROUP};
    static const char *const kinds[] = {"Role", "ClusterRole"};
    static const char *const subject_kinds[] = {"ServiceAccount", "User", "Group"};
    static const char *const core[] = {""};
    const char *ref_group = nz(kg_json_get_str(ref, "apiGroup")), *ref_kind = nz(kg_json_get_str(ref, "kind"));
    if (strcmp(ref_group, KG_RBAC_GROUP))
        kg_field_not_supported(a, errs, "roleRef.apiGroup", ref_group, group, 1);
    if (namespaced ? strcmp(ref_kind, "Role") && strcmp(ref_kind, "ClusterRole") : strcmp(ref_kind, "ClusterRole"))
        kg_field_not_supported(a, errs, "roleRef.kind", ref_kind, namespaced ? kinds : kinds + 1, namespaced ? 2 : 1);
    if (!*nz(kg_json_get_str(ref, "name")))
        kg_field_required(a, errs, "roleRef.name", "");
    const kg_json *subs = kg_json_get(obj, "subjects");
    for (uint32_t i = 0; kg_json_is(subs, KG_JSON_ARRAY) && i < subs->len; i++) {
        const kg_json *sj = subs->u.items[i];
        const char *p = kg_arena_sprintf(a, "subjects[%u]", i);
        const char *kind = nz(kg_json_get_str(sj, "kind")), *sg = nz(kg_json_get_str(sj, "apiGroup"));
        if (!*nz(kg_json_get_str(sj, "name")))
            kg_field_required(a, errs, kg_arena_sprintf(a, "%s.name", p), "");
        if (!strcmp(kind, "ServiceAccount")) {
            if (*sg)
                kg_field_not_supported(a, errs, kg_arena_sprintf(a, "%s.apiGroup", p), sg, core, 1);
            if (!namespaced && !*nz(kg_json_get_str(sj, "namespace")))
                kg_field_required(a, errs, kg_arena_sprintf(a, "%s.namespace", p), "");
        } else if (!strcmp(kind, "User") || !strcmp(kind, "Group")) {
            if (strcmp(sg, KG_RBAC_GROUP))
                kg_field_not_supported(a, errs, kg_arena_sprintf(a, "%s.apiGroup", p), sg, group, 1);
        } else {
            kg_field_not_supported(a, errs, kg_arena_sprintf(a, "%s.kind", p), kind, subject_kinds, 3);
        }
    }
    if (!old)
        return;
    const kg_json *oref = kg_json_get(old, "roleRef");
    if (same(ref, oref))
        return;
    const char *v = kg_arena_sprintf(a, "rbac.RoleRef{APIGroup:\"%s\", Kind:\"%s\", Name:\"%s\"}",
                                     nz(kg_json_get_str(ref, "apiGroup")), nz(kg_json_get_str(ref, "kind")),
                                     nz(kg_json_get_str(ref, "name")));
    kg_field_invalid_raw(a, errs, "roleRef", v, "cannot change roleRef");
}
