/* TokenRequest (serviceaccounts/token) and TokenReview (see satoken.h): k/k pkg/registry/core/serviceaccount/storage/
 * token.go and pkg/registry/authentication/tokenreview/storage.go, with their defaults, limits and messages. */
#include <string.h>
#include <time.h>

#include "auth/serviceaccount/jwt.h"
#include "auth/serviceaccount/request.h"
#include "meta/object.h"
#include "server/apiserver.h"
#include "server/reviews.h"
#include "server/satoken.h"

#define AUTHN_GROUP "authentication.k8s.io"

static const char *nz(const char *s)
{
    return s ? s : "";
}

static kg_json *str_array(kg_arena *a, const char *const *v, size_t n)
{
    kg_json *arr = kg_json_new_array(a);
    for (size_t i = 0; i < n; i++)
        kg_json_array_append(a, arr, kg_json_new_str(a, v[i]));
    return arr;
}

/* The string items of a JSON array (non-strings skipped). */
static const char **strings_of(kg_arena *a, const kg_json *arr, size_t *n)
{
    *n = 0;
    if (!kg_json_is(arr, KG_JSON_ARRAY) || !arr->len)
        return NULL;
    const char **v = kg_arena_alloc(a, arr->len * sizeof *v);
    for (uint32_t i = 0; i < arr->len; i++)
        if (kg_json_is(arr->u.items[i], KG_JSON_STRING))
            v[(*n)++] = arr->u.items[i]->u.s;
    return v;
}

static void invalid(kg_http_request *req, kg_http_response *resp, const char *name, const char *field,
                    const char *value, const char *detail)
{
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_field_invalid(req->arena, &errs, field, value, detail);
    kg_respond_status(req, resp, kg_status_invalid(req->arena, (kg_gk){AUTHN_GROUP, "TokenRequest"}, name, &errs));
}

/* All of auds are API audiences (upstream's isKubeAudiences). */
static bool kube_audiences(const kg_satoken *t, const char *const *auds, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        bool found = false;
        for (size_t j = 0; j < t->naudiences && !found; j++)
            found = !strcmp(auds[i], t->audiences[j]);
        if (!found)
            return false;
    }
    return true;
}

void kg_satoken_token_request(kg_satoken *t, kg_http_request *req, kg_http_response *resp)
{
    kg_arena *a = req->arena;
    const char *ns = req->info->namespace_, *name = req->info->name;
    kg_json *obj = kg_reviews_read_body(req, resp, AUTHN_GROUP, "TokenRequest");
    if (!obj)
        return;
    kg_json *md = kg_json_get_or_add_object(a, obj, "metadata");
    const char *bname = kg_json_get_str(md, "name"), *bns = kg_json_get_str(md, "namespace");
    if (bname && *bname && strcmp(bname, name)) {
        invalid(req, resp, name, "metadata.name", bname, "must match the service account name if specified");
        return;
    }
    if (bns && *bns && strcmp(bns, ns)) {
        invalid(req, resp, name, "metadata.namespace", bns, "must match the service account namespace if specified");
        return;
    }
    const kg_json *sa = kg_satoken_store_get(t, "serviceaccounts", ns, name, a);
    if (!sa) {
        kg_respond_status(req, resp, kg_status_not_found(a, (kg_gr){"", "serviceaccounts"}, name));
        return;
    }
    if (!t->keys->signing.pkey) {
        kg_respond_status(req, resp,
                          kg_status_new(a, 500, KG_REASON_INTERNAL_ERROR,
                                        "Internal error occurred: no service-account signing key is configured"));
        return;
    }
    kg_json *spec = kg_json_get_or_add_object(a, obj, "spec");
    size_t naud;
    const char **auds = strings_of(a, kg_json_get(spec, "audiences"), &naud);
    if (!naud) {
        auds = (const char **)t->audiences;
        naud = t->naudiences;
        kg_json_set(a, spec, "audiences", str_array(a, auds, naud));
    }
    kg_json_set(a, md, "name", kg_json_new_str(a, name));
    kg_json_set(a, md, "namespace", kg_json_new_str(a, ns));
    time_t now = time(NULL);
    char ts[KG_TIME_BUF];
    kg_json_set(a, md, "creationTimestamp", kg_json_new_str(a, kg_time_format(now, ts)));
    kg_json_del(obj, "status");

    /* defaults and validation */
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_sa_expiration ex;
    const kg_json *ref = kg_json_get(spec, "boundObjectRef");
    bool pod_ref = kg_json_is(ref, KG_JSON_OBJECT) && !strcmp(nz(kg_json_get_str(ref, "kind")), "Pod");
    if (!kg_sa_token_expiration(a, kg_json_get(spec, "expirationSeconds"), t->max_expiration_s, t->extend_expiration,
                                pod_ref, kube_audiences(t, auds, naud), &ex, &errs)) {
        kg_respond_status(req, resp, kg_status_invalid(a, (kg_gk){AUTHN_GROUP, "TokenRequest"}, "", &errs));
        return;
    }
    kg_json_set(a, spec, "expirationSeconds", kg_json_new_int(a, ex.requested));

    kg_sa_token_spec ts_spec = {.issuer = t->issuers[0],
                                .audiences = auds,
                                .naudiences = naud,
                                .ns = ns,
                                .sa_name = name,
                                .sa_uid = nz(kg_meta_uid(sa))};
    /* the bound object */
    if (kg_json_is(ref, KG_JSON_OBJECT)) {
        const char *kind = nz(kg_json_get_str(ref, "kind"));
        const char *rname = nz(kg_json_get_str(ref, "name")), *ruid = nz(kg_json_get_str(ref, "uid"));
        const char *bad = NULL;
        const char *plural = kg_sa_bound_plural(a, kg_json_get_str(ref, "apiVersion"), kind, &bad);
        if (!plural) {
            kg_respond_status(req, resp, kg_status_bad_request(a, bad));
            return;
        }
        const kg_json *o = kg_satoken_store_get(t, plural, ns, rname, a);
        if (!o) {
            kg_respond_status(req, resp, kg_status_not_found(a, (kg_gr){"", plural}, rname));
            return;
        }
        const char *uid = nz(kg_meta_uid(o));
        if (!strcmp(plural, "pods")) {
            if (strcmp(name, nz(kg_json_path_str(o, "spec.serviceAccountName")))) {
                kg_respond_status(req, resp,
                                  kg_status_bad_request(a, kg_arena_sprintf(a,
                                                                            "cannot bind token for serviceaccount "
                                                                            "\"%s\" to pod running with different "
                                                                            "serviceaccount name.",
                                                                            name)));
                return;
            }
            ts_spec.pod_name = rname;
            ts_spec.pod_uid = uid;
            const char *node = kg_json_path_str(o, "spec.nodeName");
            const kg_json *n = node && *node ? kg_satoken_store_get(t, "nodes", "", node, a) : NULL;
            if (n) { /* the pod's node rides along (ServiceAccountTokenPodNodeInfo) */
                ts_spec.node_name = node;
                ts_spec.node_uid = nz(kg_meta_uid(n));
            }
        } else if (!strcmp(plural, "secrets")) {
            ts_spec.secret_name = rname;
            ts_spec.secret_uid = uid;
        } else {
            ts_spec.node_name = rname;
            ts_spec.node_uid = uid;
        }
        if (*ruid && strcmp(ruid, uid)) {
            kg_respond_status(req, resp,
                              kg_status_conflict(a, (kg_gr){"", kind}, rname,
                                                 kg_arena_sprintf(a,
                                                                  "the UID in the bound object reference (%s) does not "
                                                                  "match the UID in record. The object might have been "
                                                                  "deleted and then recreated",
                                                                  ruid)));
            return;
        }
    }
    if (ex.shortened) {
        char *w = kg_arena_sprintf(a, "299 - \"requested expiration of %lld seconds shortened to %lld seconds\"",
                                   (long long)ex.requested, (long long)ex.seconds);
        kg_http_add_header(req, resp, "Warning", w);
        kg_json_set(a, spec, "expirationSeconds", kg_json_new_int(a, ex.seconds));
    }
    if (ex.warnafter_s)
        ts_spec.warnafter = (int64_t)now + ex.warnafter_s;
    char jti[37];
    kg_uuid_v4(jti);
    ts_spec.jti = jti;
    ts_spec.iat = (int64_t)now;
    ts_spec.exp = (int64_t)now + ex.token_seconds;
    KG_ERROR_DECL(err);
    char *tok = kg_jwt_sign(a, &t->keys->signing, kg_sa_bound_claims(a, &ts_spec), &err);
    if (!tok) {
        kg_respond_status(req, resp,
                          kg_status_new(a, 500, KG_REASON_INTERNAL_ERROR,
                                        kg_arena_sprintf(a, "Internal error occurred: %s", err.msg)));
        return;
    }
    if (!kg_json_is(ref, KG_JSON_OBJECT))
        kg_json_set(a, spec, "boundObjectRef", kg_json_new_null(a));
    kg_json *st = kg_json_new_object(a);
    kg_json_set(a, st, "token", kg_json_new_str(a, tok));
    kg_json_set(a, st, "expirationTimestamp", kg_json_new_str(a, kg_time_format(now + ex.seconds, ts)));
    kg_json_set(a, obj, "status", st);
    kg_http_respond_json(req, resp, 201, obj);
}

void kg_satoken_token_review(kg_satoken *t, kg_http_request *req, kg_http_response *resp)
{
    kg_arena *a = req->arena;
    kg_json *obj = kg_reviews_read_body(req, resp, AUTHN_GROUP, "TokenReview");
    if (!obj)
        return;
    kg_json *spec = kg_json_get_or_add_object(a, obj, "spec");
    const char *token = kg_json_get_str(spec, "token");
    if (!token || !*token) {
        kg_respond_status(req, resp, kg_status_bad_request(a, "token is required for TokenReview in authentication"));
        return;
    }
    size_t nreq;
    const char **requested = strings_of(a, kg_json_get(spec, "audiences"), &nreq);
    kg_json *st = kg_json_new_object(a);
    kg_sa_result r;
    kg_sa_verdict v = kg_sa_authenticate(t->auth, token, strlen(token), requested, nreq, a, &r);
    kg_user_info u = {0};
    const char *error = NULL;
    const char *const *auds = NULL;
    size_t nauds = 0;
    bool ok = false;
    if (v == KG_SA_OK) {
        ok = true;
        u = r.user;
        auds = r.audiences;
        nauds = r.naudiences;
        const char **g = kg_arena_alloc(a, (u.ngroups + 1) * sizeof *g);
        memcpy(g, u.groups, u.ngroups * sizeof *g);
        g[u.ngroups++] = KG_GROUP_AUTHENTICATED;
        u.groups = g;
    } else if (v == KG_SA_INVALID) {
        error = r.reason;
    } else {
        /* the other token authenticators are audience-agnostic: they answer for the API audiences */
        const char **both = kg_arena_alloc(a, (t->naudiences ? t->naudiences : 1) * sizeof *both);
        for (size_t i = 0; i < t->naudiences; i++) {
            bool in = !nreq;
            for (size_t j = 0; j < nreq && !in; j++)
                in = !strcmp(t->audiences[i], requested[j]);
            if (in)
                both[nauds++] = t->audiences[i];
        }
        if (nauds &&
            kg_authn_authenticate(t->s->authn, kg_arena_sprintf(a, "Bearer %s", token), a, &u) == KG_AUTHN_OK) {
            ok = true;
            auds = both;
        } else {
            nauds = 0;
        }
    }
    if (ok)
        kg_json_set(a, st, "authenticated", kg_json_new_bool(a, true));
    kg_json *ui = kg_json_new_object(a);
    if (ok) {
        kg_json_set(a, ui, "username", kg_json_new_str(a, nz(u.name)));
        if (u.uid && *u.uid)
            kg_json_set(a, ui, "uid", kg_json_new_str(a, u.uid));
        if (u.ngroups)
            kg_json_set(a, ui, "groups", str_array(a, u.groups, u.ngroups));
        if (u.nextra) {
            kg_json *ex = kg_json_new_object(a);
            for (size_t i = 0; i < u.nextra; i++)
                kg_json_set(a, ex, u.extra[i].key, str_array(a, u.extra[i].values, u.extra[i].nvalues));
            kg_json_set(a, ui, "extra", ex);
        }
    }
    kg_json_set(a, st, "user", ui);
    if (ok && nauds)
        kg_json_set(a, st, "audiences", str_array(a, auds, nauds));
    if (error)
        kg_json_set(a, st, "error", kg_json_new_str(a, error));
    kg_json_set(a, obj, "status", st);
    kg_http_respond_json(req, resp, 201, obj);
}
