/* Rules of webhooks and policies (match.h): decoding from admissionregistration.k8s.io/v1 JSON and the five rule
 * predicates of upstream's predicates/rules (scope, operation, group, version, resource). The objects were
 * validated when written; decoding still rejects wrong shapes instead of trusting them. */
#include <string.h>

#include "admission/match/match.h"

static bool has(const char *const *list, size_t n, const char *v)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i], "*") || !strcmp(list[i], v))
            return true;
    return false;
}

/* An array of strings into the arena ("field" names the field in errors). Absent = empty. */
static bool strings(kg_arena *a, const kg_json *obj, const char *field, const char *const **out, size_t *n,
                    kg_error *err)
{
    const kg_json *arr = kg_json_get(obj, field);
    *out = NULL;
    *n = 0;
    if (!arr || arr->type == KG_JSON_NULL)
        return true;
    if (arr->type != KG_JSON_ARRAY)
        return kg_err_set(err, KG_EINVAL, "%s: must be a list of strings", field);
    const char **v = kg_arena_alloc(a, (arr->len + 1) * sizeof *v);
    for (uint32_t i = 0; i < arr->len; i++) {
        const kg_json *s = kg_json_at(arr, i);
        if (!s || s->type != KG_JSON_STRING)
            return kg_err_set(err, KG_EINVAL, "%s[%u]: must be a string", field, i);
        v[i] = kg_arena_strndup(a, s->u.s, s->len);
    }
    *out = v;
    *n = arr->len;
    return true;
}

bool kg_match_rule_decode(kg_arena *a, const kg_json *rule, kg_match_rule *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    if (!rule || rule->type != KG_JSON_OBJECT)
        return kg_err_set(err, KG_EINVAL, "rule must be an object");
    const char *const *ops;
    size_t nops;
    if (!strings(a, rule, "operations", &ops, &nops, err))
        return false;
    for (size_t i = 0; i < nops; i++) {
        kg_admission_op op;
        if (!strcmp(ops[i], "*"))
            out->ops |= KG_ADMISSION_ALL_OPS;
        else if (kg_admission_op_parse(ops[i], &op))
            out->ops |= op;
        else
            return kg_err_set(err, KG_EINVAL, "operations[%zu]: unsupported value \"%s\"", i, ops[i]);
    }
    if (!strings(a, rule, "apiGroups", &out->groups, &out->ngroups, err) ||
        !strings(a, rule, "apiVersions", &out->versions, &out->nversions, err) ||
        !strings(a, rule, "resourceNames", &out->names, &out->nnames, err))
        return false;
    const char *const *res;
    size_t nres;
    if (!strings(a, rule, "resources", &res, &nres, err))
        return false;
    kg_match_resource *r = kg_arena_alloc(a, (nres + 1) * sizeof *r);
    for (size_t i = 0; i < nres; i++) {
        const char *slash = strchr(res[i], '/');
        r[i].res = slash ? kg_arena_strndup(a, res[i], (size_t)(slash - res[i])) : res[i];
        r[i].sub = slash ? slash + 1 : "";
    }
    out->resources = r;
    out->nresources = nres;
    const char *scope = kg_json_get_str(rule, "scope");
    if (!scope || !strcmp(scope, "*"))
        out->scope = KG_MATCH_SCOPE_ANY;
    else if (!strcmp(scope, "Cluster"))
        out->scope = KG_MATCH_SCOPE_CLUSTER;
    else if (!strcmp(scope, "Namespaced"))
        out->scope = KG_MATCH_SCOPE_NAMESPACED;
    else
        return kg_err_set(err, KG_EINVAL, "scope: unsupported value \"%s\"", scope);
    return true;
}

static bool is_namespaces(const kg_gvr *r)
{
    return !r->group[0] && !strcmp(r->version, "v1") && !strcmp(r->resource, "namespaces");
}

static bool scope_matches(kg_match_scope scope, const kg_admission_attributes *at, const kg_gvr *resource)
{
    switch (scope) {
    case KG_MATCH_SCOPE_ANY: return true;
    case KG_MATCH_SCOPE_NAMESPACED: return !is_namespaces(resource) && at->ns[0];
    case KG_MATCH_SCOPE_CLUSTER: return is_namespaces(resource) || !at->ns[0];
    }
    return false;
}

bool kg_match_rule_matches(const kg_match_rule *r, const kg_admission_attributes *at, const kg_gvr *resource,
                           const char *subresource)
{
    if (!(r->ops & at->operation))
        return false;
    if (!scope_matches(r->scope, at, resource))
        return false;
    if (!has(r->groups, r->ngroups, resource->group) || !has(r->versions, r->nversions, resource->version))
        return false;
    for (size_t i = 0; i < r->nresources; i++) {
        const kg_match_resource *m = &r->resources[i];
        if ((!strcmp(m->res, "*") || !strcmp(m->res, resource->resource)) &&
            (!strcmp(m->sub, "*") || !strcmp(m->sub, subresource)))
            return true;
    }
    return false;
}
