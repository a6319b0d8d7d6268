/* The matcher's evaluation order (match.h): selectors, exclusions, rules with Equivalent matching, resourceNames,
 * then the namespace lookup errors of a matching request. Decoding of whole criteria lives here too. */
#include <string.h>

#include "admission/match/match.h"

/* ---- decoding ---- */

static bool selector(kg_arena *a, const kg_json *obj, const char *field, kg_label_selector *out, bool *has,
                     kg_error *err)
{
    const kg_json *ls = kg_json_get(obj, field);
    *has = false;
    memset(out, 0, sizeof *out);
    if (!ls || ls->type == KG_JSON_NULL)
        return true; /* defaulted to {} */
    KG_ERROR_DECL(e);
    if (!kg_label_selector_from_json(a, ls, out, &e))
        return kg_err_set(err, KG_EINVAL, "%s: %s", field, e.msg);
    *has = !kg_labels_empty(out);
    return true;
}

static bool rules(kg_arena *a, const kg_json *obj, const char *field, const kg_match_rule **out, size_t *n,
                  kg_error *err)
{
    const kg_json *arr = kg_json_get(obj, field);
    *out = NULL;
    *n = 0;
    if (!arr || arr->type == KG_JSON_NULL)
        return true;
    if (arr->type != KG_JSON_ARRAY)
        return kg_err_set(err, KG_EINVAL, "%s: must be a list", field);
    kg_match_rule *r = kg_arena_alloc(a, (arr->len + 1) * sizeof *r);
    for (uint32_t i = 0; i < arr->len; i++) {
        KG_ERROR_DECL(e);
        if (!kg_match_rule_decode(a, kg_json_at(arr, i), &r[i], &e))
            return kg_err_set(err, KG_EINVAL, "%s[%u].%s", field, i, e.msg);
    }
    *out = r;
    *n = arr->len;
    return true;
}

static bool match_policy(const kg_json *obj, bool *equivalent, kg_error *err)
{
    const char *mp = kg_json_get_str(obj, "matchPolicy");
    if (!mp || !strcmp(mp, "Equivalent"))
        *equivalent = true;
    else if (!strcmp(mp, "Exact"))
        *equivalent = false;
    else
        return kg_err_set(err, KG_EINVAL, "matchPolicy: unsupported value \"%s\"", mp);
    return true;
}

bool kg_match_criteria_from_webhook(kg_arena *a, const kg_json *hook, kg_match_criteria *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    return rules(a, hook, "rules", &out->rules, &out->nrules, err) &&
           selector(a, hook, "namespaceSelector", &out->ns_sel, &out->has_ns_sel, err) &&
           selector(a, hook, "objectSelector", &out->obj_sel, &out->has_obj_sel, err) &&
           match_policy(hook, &out->equivalent, err);
}

bool kg_match_criteria_from_resources(kg_arena *a, const kg_json *mr, kg_match_criteria *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    out->equivalent = true;
    if (!mr || mr->type == KG_JSON_NULL) {
        out->any_resource = true;
        return true;
    }
    if (!rules(a, mr, "resourceRules", &out->rules, &out->nrules, err) ||
        !rules(a, mr, "excludeResourceRules", &out->exclude, &out->nexclude, err) ||
        !selector(a, mr, "namespaceSelector", &out->ns_sel, &out->has_ns_sel, err) ||
        !selector(a, mr, "objectSelector", &out->obj_sel, &out->has_obj_sel, err) ||
        !match_policy(mr, &out->equivalent, err))
        return false;
    out->any_resource = out->nrules == 0;
    return true;
}

/* ---- evaluation ---- */

static bool gvr_equal(const kg_gvr *x, const kg_gvr *y)
{
    return !strcmp(x->group, y->group) && !strcmp(x->version, y->version) && !strcmp(x->resource, y->resource);
}

static bool name_listed(const kg_match_rule *r, const char *name)
{
    if (!r->nnames)
        return true;
    for (size_t i = 0; i < r->nnames; i++)
        if (!strcmp(r->names[i], name))
            return true;
    return false;
}

/* The first rule that matches the request's resource, then (Equivalent) its original resource when that differs.
 * On a match, inv says which. */
static bool rules_match(const kg_match_rule *rs, size_t n, bool equivalent, const kg_admission_attributes *at,
                        kg_match_invocation *inv)
{
    for (size_t i = 0; i < n; i++) {
        if (kg_match_rule_matches(&rs[i], at, &at->resource, at->subresource) && name_listed(&rs[i], at->name)) {
            if (inv)
                *inv = (kg_match_invocation){at->resource, at->subresource, at->kind};
            return true;
        }
    }
    if (!equivalent || !at->request_resource.resource || !at->request_resource.resource[0] ||
        gvr_equal(&at->request_resource, &at->resource))
        return false;
    const char *sub = at->request_subresource ? at->request_subresource : "";
    for (size_t i = 0; i < n; i++) {
        if (kg_match_rule_matches(&rs[i], at, &at->request_resource, sub) && name_listed(&rs[i], at->name)) {
            if (inv)
                *inv = (kg_match_invocation){at->request_resource, sub, at->request_kind};
            return true;
        }
    }
    return false;
}

static bool is_namespace_resource(const kg_admission_attributes *at)
{
    return !at->resource.group[0] && !strcmp(at->resource.resource, "namespaces");
}

/* Labels the namespaceSelector is evaluated against; NULL with *st set when the namespace cannot be read. */
static const kg_json *namespace_labels(const kg_admission_attributes *at, const kg_admission_services *svc,
                                       kg_status **st)
{
    if (is_namespace_resource(at) && !at->subresource[0] &&
        (at->operation == KG_ADMISSION_CREATE || at->operation == KG_ADMISSION_UPDATE))
        return at->object ? kg_json_path(at->object, "metadata.labels") : NULL;
    KG_ERROR_DECL(err);
    const kg_json *ns = kg_admission_view_obj(svc, at->arena, "namespaces", "", at->ns, &err);
    if (!ns) {
        kg_err_clear(&err);
        ns = kg_admission_get(svc, at->arena, "namespaces", "", at->ns, KG_ADMISSION_GET_LIVE, &err);
    }
    if (!ns) {
        *st = err.code == KG_ENOTFOUND ? kg_status_not_found(at->arena, KG_GR("", "namespaces"), at->ns)
                                       : kg_status_internal(at->arena, err.msg);
        return NULL;
    }
    return kg_json_path(ns, "metadata.labels");
}

static bool object_selected(const kg_label_selector *sel, const kg_json *obj)
{
    if (!obj || obj->type != KG_JSON_OBJECT)
        return false;
    const kg_json *md = kg_json_get(obj, "metadata");
    if (!md || md->type != KG_JSON_OBJECT)
        return false;
    return kg_labels_matches(sel, kg_json_get(md, "labels"));
}

kg_match_result kg_match(const kg_match_criteria *c, const kg_admission_attributes *at,
                         const kg_admission_services *svc, kg_match_invocation *inv, kg_status **st)
{
    kg_status *ns_err = NULL;
    /* 1. namespaceSelector: cluster-scoped requests (no namespace, not a Namespace) always match */
    if (c->has_ns_sel && (at->ns[0] || is_namespace_resource(at))) {
        const kg_json *labels = namespace_labels(at, svc, &ns_err);
        if (!ns_err && !kg_labels_matches(&c->ns_sel, labels))
            return KG_MATCH_NO;
    }
    /* 2. objectSelector: the new or the old object */
    if (c->has_obj_sel && !object_selected(&c->obj_sel, at->object) && !object_selected(&c->obj_sel, at->old_object))
        return KG_MATCH_NO;
    /* 3. exclusions */
    if (c->nexclude && rules_match(c->exclude, c->nexclude, c->equivalent, at, NULL))
        return KG_MATCH_NO;
    /* 4. rules */
    if (c->any_resource) {
        if (inv)
            *inv = (kg_match_invocation){at->resource, at->subresource, at->kind};
    } else if (!rules_match(c->rules, c->nrules, c->equivalent, at, inv)) {
        return KG_MATCH_NO;
    }
    /* 5. a namespace that could not be read only matters for a request that matched otherwise */
    if (ns_err) {
        *st = ns_err;
        return KG_MATCH_ERROR;
    }
    return KG_MATCH_YES;
}

bool kg_match_is_admission_config_kind(const kg_admission_attributes *at)
{
    static const char *const kinds[] = {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
                                        "ValidatingAdmissionPolicy",      "ValidatingAdmissionPolicyBinding",
                                        "MutatingAdmissionPolicy",        "MutatingAdmissionPolicyBinding"};
    if (!at->kind.group || strcmp(at->kind.group, "admissionregistration.k8s.io"))
        return false;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(at->kind.kind, kinds[i]))
            return true;
    return false;
}
