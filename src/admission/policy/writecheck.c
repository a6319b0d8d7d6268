/* Write-time checks of policies and bindings that depend on who writes and on what the cluster serves (registry's
 * strategy check_write, after the object validated):
 *
 * paramKind authorization (upstream pkg/registry/admissionregistration/validatingadmissionpolicy{,binding}/authz.go):
 * whoever writes a policy with a paramKind must be allowed to "get" every object of that kind (name and namespace
 * "*"); whoever writes a binding with a paramRef must be allowed to "get" the object it refers to (of the paramKind
 * of the policy it names, or "*" resources when that is unknown). Skipped when the paramKind (policy) or the
 * paramRef and policyName (binding) are unchanged by an update, for members of system:masters (upstream's
 * EscalationAllowed), and when there is no authorizer. A refusal is `spec.paramKind: Forbidden: ...` (for bindings
 * too, as upstream) with upstream's texts, which print the user as Go's %v of a user.DefaultInfo.
 *
 * Beyond upstream: rules that no served resource matches (`resources: ["deploymentz"]`) make a policy (or a binding)
 * that never applies; the write succeeds with a Warning saying so and naming the resources that match nothing. */
#include <string.h>

#include "admission/policy/policy.h"
#include "base/buf.h"

/* Go's %v of &user.DefaultInfo{Name, UID, Groups, Extra}: "&{alice  [g1 g2] map[k:[v]]}" (map keys sorted, as
 * fmt prints them; kgate keeps extra sorted by key). */
static const char *user_v(kg_arena *a, const kg_admission_user *u)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_printf(&b, "&{%s %s [", u->name ? u->name : "", u->uid ? u->uid : "");
    for (size_t i = 0; i < u->ngroups; i++)
        kg_buf_printf(&b, "%s%s", i ? " " : "", u->groups[i]);
    kg_buf_puts(&b, "] map[");
    for (size_t i = 0; i < u->nextra; i++) {
        kg_buf_printf(&b, "%s%s:[", i ? " " : "", u->extra[i].key);
        for (size_t j = 0; j < u->extra[i].nvalues; j++)
            kg_buf_printf(&b, "%s%s", j ? " " : "", u->extra[i].values[j]);
        kg_buf_putc(&b, ']');
    }
    kg_buf_puts(&b, "]}");
    const char *s = kg_arena_strdup(a, b.data);
    kg_buf_free(&b);
    return s;
}

static bool is_master(const kg_admission_user *u)
{
    for (size_t i = 0; u && i < u->ngroups; i++)
        if (u->groups[i] && !strcmp(u->groups[i], KG_GROUP_MASTERS))
            return true;
    return false;
}

/* The group, version and plural to authorize for a paramKind: "*" for what cannot be parsed or resolved. */
static void param_resource(const kg_vap_write_ctx *c, const kg_json *pk, const char **group, const char **version,
                           const char **resource)
{
    *group = *version = *resource = "*";
    const char *gv = kg_json_get_str(pk, "apiVersion"), *kind = kg_json_get_str(pk, "kind");
    if (!gv || !gv[0])
        return;
    const char *slash = strchr(gv, '/');
    if (slash && strchr(slash + 1, '/'))
        return;
    *group = slash ? kg_arena_strndup(c->a, gv, (size_t)(slash - gv)) : "";
    *version = slash ? slash + 1 : gv;
    const char *plural;
    bool namespaced;
    /* only a served kind resolves (the services' guess of memclusters is not a resolution) */
    if (kind && c->svc && c->svc->resource_for_kind &&
        c->svc->resource_for_kind(c->svc->ctx, *group, *version, kind, &plural, &namespaced))
        *resource = plural;
}

/* Ask the authorizer; NULL when allowed, else the error text (deny_text for a refusal). */
static const char *authorize_get(const kg_vap_write_ctx *c, const char *group, const char *version,
                                 const char *resource, const char *ns, const char *name, const char *deny_text)
{
    kg_authz_attributes at = {.user = c->user,
                              .verb = "get",
                              .resource_request = true,
                              .api_group = group,
                              .api_version = version,
                              .resource = resource,
                              .namespace_ = ns,
                              .name = name};
    const char *reason;
    KG_ERROR_DECL(err);
    kg_authz_decision d = kg_authz_authorize(c->svc->authorizer, &at, c->a, &reason, &err);
    if (err.code != KG_OK)
        return kg_arena_strdup(c->a, err.msg);
    return d == KG_AUTHZ_ALLOW ? NULL : deny_text;
}

/* Whether the writer is to be authorized at all (an authorizer, and not a member of system:masters). */
static bool needs_check(const kg_vap_write_ctx *c)
{
    return c && c->svc && c->svc->authorizer && !is_master(c->user);
}

static void policy_authorize(const kg_vap_write_ctx *c, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    const kg_json *pk = kg_json_path(obj, "spec.paramKind");
    if (!pk || pk->type != KG_JSON_OBJECT)
        return;
    if (old) {
        const kg_json *opk = kg_json_path(old, "spec.paramKind");
        if (opk && opk->type == KG_JSON_OBJECT && kg_json_equal(opk, pk))
            return;
    }
    if (!needs_check(c))
        return;
    const char *e;
    if (!c->user || !c->user->name) {
        e = "cannot identify user to authorize read access to paramKind resources";
    } else {
        const char *g, *v, *r;
        param_resource(c, pk, &g, &v, &r);
        const char *kind = kg_json_get_str(pk, "kind"), *apiv = kg_json_get_str(pk, "apiVersion");
        e = authorize_get(c, g, v, r, "*", "*",
                          kg_arena_sprintf(c->a,
                                           "user %s must have \"get\" permission on all objects of the referenced "
                                           "paramKind (kind=%s, apiVersion=%s)",
                                           user_v(c->a, c->user), kind ? kind : "", apiv ? apiv : ""));
    }
    if (e)
        kg_field_forbidden(c->a, errs, "spec.paramKind", e);
}

static void binding_authorize(const kg_vap_write_ctx *c, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    const kg_json *ref = kg_json_path(obj, "spec.paramRef");
    if (!ref || ref->type != KG_JSON_OBJECT)
        return;
    const char *policy = kg_json_path_str(obj, "spec.policyName");
    if (old) {
        const kg_json *oref = kg_json_path(old, "spec.paramRef");
        const char *opolicy = kg_json_path_str(old, "spec.policyName");
        if (oref && oref->type == KG_JSON_OBJECT && kg_json_equal(oref, ref) && policy && opolicy &&
            !strcmp(policy, opolicy))
            return;
    }
    if (!needs_check(c))
        return;
    const char *e;
    if (!c->user || !c->user->name) {
        e = "cannot identify user to authorize read access to paramRef object";
    } else {
        const char *g = "*", *v = "*", *r = "*";
        KG_ERROR_DECL(err);
        kg_json *p = policy ? kg_admission_get(c->svc, c->a, "validatingadmissionpolicies", "", policy,
                                               KG_ADMISSION_GET_LIVE, &err)
                            : NULL;
        const kg_json *pk = kg_json_path(p, "spec.paramKind");
        if (pk && pk->type == KG_JSON_OBJECT)
            param_resource(c, pk, &g, &v, &r);
        const char *name = kg_json_get_str(ref, "name"), *ns = kg_json_get_str(ref, "namespace");
        e = authorize_get(c, g, v, r, ns ? ns : "", name ? name : "",
                          kg_arena_sprintf(c->a,
                                           "user %s does not have \"get\" permission on the object referenced by "
                                           "paramRef",
                                           user_v(c->a, c->user)));
    }
    if (e)
        kg_field_forbidden(c->a, errs, "spec.paramKind", e);
}

/* ---- rules that match nothing served ---- */

static size_t str_list(const kg_json *l, const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; l && l->type == KG_JSON_ARRAY && i < l->len && n < cap; i++)
        if (kg_json_at(l, i)->type == KG_JSON_STRING)
            out[n++] = kg_json_at(l, i)->u.s;
    return n;
}

#define MAX_LIST 64

/* Warn when rules (a non-empty resourceRules) match no served resource. */
static void warn_unmatched(const kg_vap_write_ctx *c, const kg_json *rules, const char *path, const char *what)
{
    if (!c || !c->warnings || !c->svc || !c->svc->resource_served || !rules || rules->type != KG_JSON_ARRAY ||
        !rules->len)
        return;
    kg_buf unknown = KG_BUF_INIT;
    bool any = false;
    for (size_t i = 0; i < rules->len && !any; i++) {
        const kg_json *rule = kg_json_at(rules, i);
        const char *g[MAX_LIST], *v[MAX_LIST], *r[MAX_LIST];
        size_t ng = str_list(kg_json_get(rule, "apiGroups"), g, MAX_LIST);
        size_t nv = str_list(kg_json_get(rule, "apiVersions"), v, MAX_LIST);
        size_t nr = str_list(kg_json_get(rule, "resources"), r, MAX_LIST);
        for (size_t k = 0; k < nr && !any; k++) {
            bool hit = false;
            for (size_t x = 0; x < ng && !hit; x++)
                for (size_t y = 0; y < nv && !hit; y++)
                    hit = c->svc->resource_served(c->svc->ctx, g[x], v[y], r[k]);
            if (hit)
                any = true;
            else if (!strstr(unknown.data ? unknown.data : "", kg_arena_sprintf(c->a, "\"%s\"", r[k])))
                kg_buf_printf(&unknown, "%s\"%s\"", unknown.len ? ", " : "", r[k]);
        }
    }
    if (!any)
        kg_warnings_addf(c->warnings,
                         "%s: no resource served by this server matches these rules (resources that match nothing: "
                         "%s); %s",
                         path, unknown.data ? unknown.data : "none", what);
    kg_buf_free(&unknown);
}

void kg_vap_policy_check_write(const kg_vap_write_ctx *c, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    policy_authorize(c, obj, old, errs);
    if (!errs->len)
        warn_unmatched(c, kg_json_path(obj, "spec.matchConstraints.resourceRules"),
                       "spec.matchConstraints.resourceRules", "this policy will never be evaluated");
}

void kg_vap_binding_check_write(const kg_vap_write_ctx *c, const kg_json *obj, const kg_json *old,
                                kg_field_errors *errs)
{
    binding_authorize(c, obj, old, errs);
    if (!errs->len)
        warn_unmatched(c, kg_json_path(obj, "spec.matchResources.resourceRules"), "spec.matchResources.resourceRules",
                       "this binding will never apply");
}
