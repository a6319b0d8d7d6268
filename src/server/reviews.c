/* SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectRulesReview and
 * SelfSubjectReview (see reviews.h). */
#include "server/reviews.h"

#include <strings.h>
#include <string.h>

#include "api/protobuf.h"
#include "auth/rbac/rbac.h"
#include "json/json.h"
#include "meta/status.h"

#define AUTHZ_GROUP "authorization.k8s.io"
#define AUTHN_GROUP "authentication.k8s.io"

static const char *nz(const char *s)
{
    return s ? s : "";
}

static kg_json *str_array(kg_arena *a, const char *const *v, size_t n)
{
    kg_json *arr = kg_json_new_array(a);
    for (size_t i = 0; i < n; i++)
        kg_json_array_append(a, arr, kg_json_new_str(a, nz(v[i])));
    return arr;
}

static void respond_invalid(kg_http_request *req, kg_http_response *resp, const char *kind, const char *group,
                            const kg_field_errors *errs)
{
    kg_respond_status(req, resp, kg_status_invalid(req->arena, (kg_gk){group, kind}, "", errs));
}

/* The request body as an object of kind (apiVersion group/v1), or NULL after answering 400. */
kg_json *kg_reviews_read_body(kg_http_request *req, kg_http_response *resp, const char *group, const char *kind)
{
    KG_ERROR_DECL(err);
    const char *ct = kg_http_header_get(req, "Content-Type");
    bool pb = ct && !strncasecmp(ct, KG_PROTOBUF_MEDIA_TYPE, strlen(KG_PROTOBUF_MEDIA_TYPE));
    kg_json *obj = !req->body_len ? NULL
                   : pb           ? kg_protobuf_decode(req->arena, req->body, req->body_len, &err)
                                  : kg_json_parse(req->arena, req->body, req->body_len, &err);
    if (!kg_json_is(obj, KG_JSON_OBJECT)) {
        kg_respond_status(
            req, resp,
            kg_status_bad_request(req->arena, obj || !req->body_len ? "the body must be a JSON object" : err.msg));
        return NULL;
    }
    const char *k = kg_json_get_str(obj, "kind"), *av = kg_json_get_str(obj, "apiVersion");
    const char *want_av = kg_arena_sprintf(req->arena, "%s/v1", group);
    if ((k && strcmp(k, kind)) || (av && strcmp(av, want_av))) {
        kg_respond_status(req, resp,
                          kg_status_bad_request(req->arena, kg_arena_sprintf(req->arena,
                                                                             "the API version in the data (%s) does "
                                                                             "not match the expected API version (%s)",
                                                                             av ? av : "", want_av)));
        return NULL;
    }
    kg_json_set(req->arena, obj, "kind", kg_json_new_str(req->arena, kind));
    kg_json_set(req->arena, obj, "apiVersion", kg_json_new_str(req->arena, want_av));
    kg_json *md = kg_json_get_or_add_object(req->arena, obj, "metadata");
    if (!kg_json_get(md, "creationTimestamp"))
        kg_json_set(req->arena, md, "creationTimestamp", kg_json_new_null(req->arena));
    return obj;
}

/* ---- access reviews ---- */

/* Decide spec's attributes for user; fill obj.status. */
static void decide(kg_apiserver *s, kg_arena *a, kg_json *obj, const kg_json *spec, const kg_user_info *user)
{
    const kg_json *ra = kg_json_get(spec, "resourceAttributes");
    const kg_json *na = kg_json_get(spec, "nonResourceAttributes");
    kg_authz_attributes at = {.user = user};
    if (kg_json_is(ra, KG_JSON_OBJECT)) {
        at.resource_request = true;
        at.namespace_ = nz(kg_json_get_str(ra, "namespace"));
        at.verb = nz(kg_json_get_str(ra, "verb"));
        at.api_group = nz(kg_json_get_str(ra, "group"));
        at.api_version = nz(kg_json_get_str(ra, "version"));
        at.resource = nz(kg_json_get_str(ra, "resource"));
        at.subresource = nz(kg_json_get_str(ra, "subresource"));
        at.name = nz(kg_json_get_str(ra, "name"));
    } else {
        at.path = nz(kg_json_get_str(na, "path"));
        at.verb = nz(kg_json_get_str(na, "verb"));
    }
    const char *reason = NULL;
    KG_ERROR_DECL(err);
    kg_authz_decision d = kg_authz_authorize(s->authz, &at, a, &reason, &err);
    kg_json *st = kg_json_new_object(a);
    kg_json_set(a, st, "allowed", kg_json_new_bool(a, d == KG_AUTHZ_ALLOW));
    if (d == KG_AUTHZ_DENY)
        kg_json_set(a, st, "denied", kg_json_new_bool(a, true));
    if (reason && *reason)
        kg_json_set(a, st, "reason", kg_json_new_str(a, reason));
    if (err.code)
        kg_json_set(a, st, "evaluationError", kg_json_new_str(a, err.msg));
    kg_json_set(a, obj, "status", st);
}

static const char *go_nonresource(kg_arena *a, const kg_json *na)
{
    return kg_arena_sprintf(a, "&authorization.NonResourceAttributes{Path:\"%s\", Verb:\"%s\"}",
                            nz(kg_json_get_str(na, "path")), nz(kg_json_get_str(na, "verb")));
}

/* ValidateSelfSubjectAccessReviewSpec: exactly one of the attribute kinds. */
static void validate_attrs(kg_arena *a, const kg_json *spec, kg_field_errors *errs)
{
    const kg_json *ra = kg_json_get(spec, "resourceAttributes");
    const kg_json *na = kg_json_get(spec, "nonResourceAttributes");
    bool has_ra = kg_json_is(ra, KG_JSON_OBJECT), has_na = kg_json_is(na, KG_JSON_OBJECT);
    if (has_ra && has_na)
        kg_field_invalid_raw(a, errs, "spec.nonResourceAttributes", go_nonresource(a, na),
                             "cannot be specified in combination with resourceAttributes");
    if (!has_ra && !has_na)
        kg_field_invalid_raw(a, errs, "spec.resourceAttributes", "\"null\"",
                             "exactly one of nonResourceAttributes or resourceAttributes must be specified");
}

static bool metadata_empty(const kg_json *obj, bool allow_namespace)
{
    const kg_json *md = kg_json_get(obj, "metadata");
    for (uint32_t i = 0; kg_json_is(md, KG_JSON_OBJECT) && i < md->len; i++) {
        const char *k = md->u.members[i].key;
        const kg_json *v = md->u.members[i].val;
        if (!strcmp(k, "creationTimestamp") && kg_json_is(v, KG_JSON_NULL))
            continue;
        if (allow_namespace && !strcmp(k, "namespace"))
            continue;
        if (kg_json_is(v, KG_JSON_NULL) || (kg_json_is(v, KG_JSON_STRING) && !v->len) ||
            ((kg_json_is(v, KG_JSON_OBJECT) || kg_json_is(v, KG_JSON_ARRAY)) && !v->len))
            continue;
        return false;
    }
    return true;
}

/* spec.user/groups/uid/extra as a user (SubjectAccessReview): verbatim, no group added. */
static kg_user_info spec_user(kg_arena *a, const kg_json *spec)
{
    kg_user_info u = {.name = nz(kg_json_get_str(spec, "user")), .uid = nz(kg_json_get_str(spec, "uid"))};
    const kg_json *g = kg_json_get(spec, "groups");
    if (kg_json_is(g, KG_JSON_ARRAY) && g->len) {
        const char **groups = kg_arena_alloc(a, g->len * sizeof *groups);
        for (uint32_t i = 0; i < g->len; i++)
            if (kg_json_is(g->u.items[i], KG_JSON_STRING))
                groups[u.ngroups++] = g->u.items[i]->u.s;
        u.groups = groups;
    }
    const kg_json *ex = kg_json_get(spec, "extra");
    if (kg_json_is(ex, KG_JSON_OBJECT) && ex->len) {
        kg_user_extra *extra = kg_arena_calloc(a, ex->len * sizeof *extra);
        for (uint32_t i = 0; i < ex->len; i++) {
            const kg_json *vals = ex->u.members[i].val;
            extra[i].key = ex->u.members[i].key;
            if (kg_json_is(vals, KG_JSON_ARRAY) && vals->len) {
                const char **v = kg_arena_alloc(a, vals->len * sizeof *v);
                for (uint32_t j = 0; j < vals->len; j++)
                    if (kg_json_is(vals->u.items[j], KG_JSON_STRING))
                        v[extra[i].nvalues++] = vals->u.items[j]->u.s;
                extra[i].values = v;
            }
        }
        u.extra = extra;
        u.nextra = ex->len;
    }
    return u;
}

static void access_review(kg_apiserver *s, kg_http_request *req, kg_http_response *resp, const char *resource)
{
    kg_arena *a = req->arena;
    bool self = !strcmp(resource, "selfsubjectaccessreviews");
    bool local = !strcmp(resource, "localsubjectaccessreviews");
    const char *kind = self ? "SelfSubjectAccessReview" : local ? "LocalSubjectAccessReview" : "SubjectAccessReview";
    kg_json *obj = kg_reviews_read_body(req, resp, AUTHZ_GROUP, kind);
    if (!obj)
        return;
    const kg_json *spec = kg_json_get(obj, "spec");
    kg_field_errors errs = {0};
    validate_attrs(a, spec, &errs);
    if (!self && !*nz(kg_json_get_str(spec, "user")) &&
        !(kg_json_is(kg_json_get(spec, "groups"), KG_JSON_ARRAY) && kg_json_get(spec, "groups")->len))
        kg_field_invalid(a, &errs, "spec.user", "", "at least one of user or group must be specified");
    const char *url_ns = req->info->namespace_;
    if (local) {
        if (!metadata_empty(obj, true))
            kg_field_invalid_raw(a, &errs, "metadata", "\"metadata\"", "must be empty except for namespace");
        const kg_json *ra = kg_json_get(spec, "resourceAttributes");
        if (kg_json_is(ra, KG_JSON_OBJECT) &&
            strcmp(nz(kg_json_get_str(ra, "namespace")), nz(kg_json_path_str(obj, "metadata.namespace"))))
            kg_field_invalid(a, &errs, "spec.resourceAttributes.namespace", nz(kg_json_get_str(ra, "namespace")),
                             "must match metadata.namespace");
        if (kg_json_is(kg_json_get(spec, "nonResourceAttributes"), KG_JSON_OBJECT))
            kg_field_invalid_raw(a, &errs, "spec.nonResourceAttributes",
                                 go_nonresource(a, kg_json_get(spec, "nonResourceAttributes")),
                                 "disallowed on this kind of request");
    } else if (!metadata_empty(obj, false)) {
        kg_field_invalid_raw(a, &errs, "metadata", "\"metadata\"", "must be empty");
    }
    if (errs.len) {
        respond_invalid(req, resp, kind, AUTHZ_GROUP, &errs);
        return;
    }
    if (local) {
        const char *ns = nz(kg_json_path_str(obj, "metadata.namespace"));
        if (!*ns) {
            kg_json_set(a, kg_json_get_or_add_object(a, obj, "metadata"), "namespace", kg_json_new_str(a, url_ns));
        } else if (strcmp(ns, url_ns)) {
            kg_respond_status(req, resp,
                              kg_status_bad_request(a, kg_arena_sprintf(a,
                                                                        "spec.resourceAttributes.namespace must match "
                                                                        "namespace: %s",
                                                                        url_ns)));
            return;
        }
    }
    kg_user_info u = self ? *req->user : spec_user(a, spec);
    decide(s, a, obj, spec, &u);
    kg_http_respond_json(req, resp, 201, obj);
}

/* ---- SelfSubjectRulesReview ---- */

typedef struct rules_acc {
    kg_arena *a;
    kg_json *res, *nonres;
    const char *errors;
} rules_acc;

static bool add_rule(void *ud, const kg_rbac_rule *r, const char *source)
{
    (void)source;
    rules_acc *acc = ud;
    kg_arena *a = acc->a;
    if (r->resources.n) {
        kg_json *o = kg_json_new_object(a);
        kg_json_set(a, o, "verbs", str_array(a, r->verbs.v, r->verbs.n));
        if (r->api_groups.n)
            kg_json_set(a, o, "apiGroups", str_array(a, r->api_groups.v, r->api_groups.n));
        kg_json_set(a, o, "resources", str_array(a, r->resources.v, r->resources.n));
        if (r->resource_names.n)
            kg_json_set(a, o, "resourceNames", str_array(a, r->resource_names.v, r->resource_names.n));
        kg_json_array_append(a, acc->res, o);
    }
    if (r->urls.n) {
        kg_json *o = kg_json_new_object(a);
        kg_json_set(a, o, "verbs", str_array(a, r->verbs.v, r->verbs.n));
        kg_json_set(a, o, "nonResourceURLs", str_array(a, r->urls.v, r->urls.n));
        kg_json_array_append(a, acc->nonres, o);
    }
    return true;
}

static void add_error(void *ud, const char *msg)
{
    rules_acc *acc = ud;
    acc->errors = acc->errors ? kg_arena_sprintf(acc->a, "%s, %s", acc->errors, msg) : msg;
}

static void rules_review(kg_apiserver *s, kg_http_request *req, kg_http_response *resp)
{
    kg_arena *a = req->arena;
    kg_json *obj = kg_reviews_read_body(req, resp, AUTHZ_GROUP, "SelfSubjectRulesReview");
    if (!obj)
        return;
    const char *ns = nz(kg_json_path_str(obj, "spec.namespace"));
    if (!*ns) {
        kg_respond_status(req, resp, kg_status_bad_request(a, "no namespace on request"));
        return;
    }
    rules_acc acc = {a, kg_json_new_array(a), kg_json_new_array(a), NULL};
    if (s->authz_always_allow) { /* AlwaysAllow's RulesFor: everything */
        static const char *const star[] = {"*"};
        kg_rbac_strs st = {(const char **)star, 1, true};
        kg_rbac_rule all = {.verbs = st, .api_groups = st, .resources = st};
        add_rule(&acc, &all, NULL);
        kg_rbac_rule urls = {.verbs = st, .urls = st};
        add_rule(&acc, &urls, NULL);
    }
    if (s->rbac)
        kg_rbac_visit(s->rbac, req->user, ns, a, add_rule, add_error, &acc);
    kg_json *st = kg_json_new_object(a);
    kg_json_set(a, st, "resourceRules", acc.res);
    kg_json_set(a, st, "nonResourceRules", acc.nonres);
    kg_json_set(a, st, "incomplete", kg_json_new_bool(a, false));
    if (acc.errors)
        kg_json_set(a, st, "evaluationError", kg_json_new_str(a, acc.errors));
    kg_json_set(a, obj, "status", st);
    kg_http_respond_json(req, resp, 201, obj);
}

/* ---- SelfSubjectReview ---- */

static void self_review(kg_http_request *req, kg_http_response *resp)
{
    kg_arena *a = req->arena;
    kg_json *obj = kg_reviews_read_body(req, resp, AUTHN_GROUP, "SelfSubjectReview");
    if (!obj)
        return;
    const kg_user_info *u = req->user;
    kg_json *ui = kg_json_new_object(a);
    kg_json_set(a, ui, "username", kg_json_new_str(a, nz(u->name)));
    if (u->uid && *u->uid)
        kg_json_set(a, ui, "uid", kg_json_new_str(a, u->uid));
    if (u->ngroups)
        kg_json_set(a, ui, "groups", str_array(a, u->groups, u->ngroups));
    if (u->nextra) {
        kg_json *ex = kg_json_new_object(a);
        for (size_t i = 0; i < u->nextra; i++)
            kg_json_set(a, ex, u->extra[i].key, str_array(a, u->extra[i].values, u->extra[i].nvalues));
        kg_json_set(a, ui, "extra", ex);
    }
    kg_json *st = kg_json_new_object(a);
    kg_json_set(a, st, "userInfo", ui);
    kg_json_set(a, obj, "status", st);
    kg_http_respond_json(req, resp, 201, obj);
}

bool kg_reviews_handle(kg_apiserver *s, kg_http_request *req, kg_http_response *resp)
{
    const kg_request_info *ri = req->info;
    if (!ri->is_resource_request || strcmp(ri->api_version, "v1") || *ri->subresource || *ri->name)
        return false;
    bool authz = !strcmp(ri->api_group, AUTHZ_GROUP), authn = !strcmp(ri->api_group, AUTHN_GROUP);
    const char *r = ri->resource;
    bool ns = *ri->namespace_ != 0;
    bool known = (authz && ((!ns && (!strcmp(r, "selfsubjectaccessreviews") || !strcmp(r, "subjectaccessreviews") ||
                                     !strcmp(r, "selfsubjectrulesreviews"))) ||
                            (ns && !strcmp(r, "localsubjectaccessreviews")))) ||
                 (authn && !ns && !strcmp(r, "selfsubjectreviews"));
    if (!known)
        return false;
    if (strcmp(ri->verb, "create")) {
        kg_respond_status(req, resp, kg_status_method_not_supported(req->arena, (kg_gr){ri->api_group, r}, ri->verb));
        return true;
    }
    if (authn)
        self_review(req, resp);
    else if (!strcmp(r, "selfsubjectrulesreviews"))
        rules_review(s, req, resp);
    else
        access_review(s, req, resp, r);
    return true;
}
