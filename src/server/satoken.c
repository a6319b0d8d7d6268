/* Service-account tokens in kgate serve: configuration, the cache-backed authenticator and the OIDC discovery
 * documents (see satoken.h). */
#include "server/satoken.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "registry/codec.h"
#include "server/apiserver.h"
#include "server/cache.h"

static const char *const cached[] = {"serviceaccounts", "secrets", "pods", "nodes"};

bool kg_satoken_options_validate(const kg_satoken_options *o, kg_error *err)
{
    if (o->max_token_expiration_s && (o->max_token_expiration_s < 3600 || o->max_token_expiration_s > (1LL << 32)))
        return kg_err_set(err, KG_EINVAL,
                          "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds");
    if (o->jwks_uri && strncmp(o->jwks_uri, "https://", 8))
        return kg_err_set(err, KG_EINVAL, "service-account-jwks-uri requires https scheme, parsed as: %s", o->jwks_uri);
    for (size_t i = 0; i < o->nissuers; i++) {
        if (!*o->issuers[i])
            return kg_err_set(err, KG_EINVAL, "service-account-issuer should not be an empty string");
        for (size_t j = 0; j < i; j++)
            if (!strcmp(o->issuers[i], o->issuers[j]))
                return kg_err_set(err, KG_EINVAL, "service-account-issuer \"%s\" is already specified", o->issuers[i]);
    }
    return true;
}

const kg_json *kg_satoken_store_get(kg_satoken *t, const char *plural, const char *ns, const char *name, kg_arena *a)
{
    const kg_resource *r = kg_resource_find("", "v1", plural);
    if (!r || !name || !*name)
        return NULL;
    kg_store_kv kv;
    KG_ERROR_DECL(err);
    if (!kg_store_get(t->s->store, kg_resource_key(a, r, r->namespaced ? ns : "", name), a, &kv, &err))
        return NULL;
    return kg_obj_decode(a, kv.value, kv.value_len, kv.mod_revision, &err);
}

/* The authenticator's getter: the watch-fed cache, then (on a miss: the cache may lag a just-created object) the
 * store. */
static const kg_json *cache_get(void *ud, const char *plural, const char *ns, const char *name, kg_arena *a)
{
    kg_satoken *t = ud;
    const kg_resource *r = kg_resource_find("", "v1", plural);
    if (!r || !name || !*name)
        return NULL;
    KG_ERROR_DECL(err);
    kg_json_shared *d = kg_cache_view(t->s->caches, r, r->namespaced ? ns : "", name, a, &err);
    if (d)
        return kg_json_shared_root(d);
    return kg_satoken_store_get(t, plural, ns, name, a);
}

static kg_token_verdict authenticate(void *ud, const char *token, size_t len, kg_arena *a, kg_user_info *out,
                                     const char **reason)
{
    kg_satoken *t = ud;
    kg_sa_result r;
    kg_sa_verdict v = kg_sa_authenticate(t->auth, token, len, NULL, 0, a, &r);
    if (v == KG_SA_NOT_MINE)
        return KG_TOKEN_NOT_MINE;
    if (v == KG_SA_INVALID) {
        *reason = r.reason;
        return KG_TOKEN_INVALID;
    }
    *out = r.user;
    return KG_TOKEN_OK;
}

kg_token_authenticator kg_satoken_authenticator(kg_satoken *t)
{
    return (kg_token_authenticator){authenticate, t};
}

/* Served only for an https issuer without query or fragment (upstream's NewOpenIDMetadata). */
static void render_discovery(kg_satoken *t, const char *jwks_uri)
{
    const char *iss = t->issuers[0];
    if (strncmp(iss, "https://", 8) || strchr(iss, '?') || strchr(iss, '#'))
        return;
    kg_arena *a = &t->mem;
    kg_json *c = kg_json_new_object(a);
    kg_json_set(a, c, "issuer", kg_json_new_str(a, iss));
    size_t il = strlen(iss);
    const char *uri =
        jwks_uri ? jwks_uri
                 : kg_arena_sprintf(a, "%.*s/openid/v1/jwks", (int)(il && iss[il - 1] == '/' ? il - 1 : il), iss);
    kg_json_set(a, c, "jwks_uri", kg_json_new_str(a, uri));
    kg_json *rt = kg_json_new_array(a), *st = kg_json_new_array(a);
    kg_json_array_append(a, rt, kg_json_new_str(a, "id_token"));
    kg_json_array_append(a, st, kg_json_new_str(a, "public"));
    kg_json_set(a, c, "response_types_supported", rt);
    kg_json_set(a, c, "subject_types_supported", st);
    kg_json_set(a, c, "id_token_signing_alg_values_supported", kg_sa_keys_algs(t->keys, a));
    t->openid_config = kg_json_to_string(a, c, 0, &t->openid_config_len);
    t->jwks = kg_json_to_string(a, kg_sa_keys_jwks(t->keys, a), 0, &t->jwks_len);
}

kg_satoken *kg_satoken_start(struct kg_apiserver *s, const kg_satoken_options *o, kg_error *err)
{
    if (!kg_satoken_options_validate(o, err))
        return NULL;
    kg_satoken *t = calloc(1, sizeof *t);
    if (!t)
        abort();
    t->s = s;
    kg_arena_init(&t->mem, 0);
    kg_sa_keys_config kc = {.signing_key_file = o->signing_key_file,
                            .key_files = o->key_files,
                            .nkey_files = o->nkey_files,
                            .data_dir = s->opts.data_dir};
    t->keys = kg_sa_keys_load(&kc, err);
    if (!t->keys) {
        kg_satoken_stop(t);
        return NULL;
    }
    static const char *const default_issuer[] = {KG_SA_DEFAULT_ISSUER};
    const char *const *iss = o->nissuers ? o->issuers : default_issuer;
    t->nissuers = o->nissuers ? o->nissuers : 1;
    t->issuers = kg_arena_alloc(&t->mem, t->nissuers * sizeof *t->issuers);
    for (size_t i = 0; i < t->nissuers; i++)
        t->issuers[i] = kg_arena_strdup(&t->mem, iss[i]);
    /* --api-audiences: a string slice (comma-separated, repeatable); default the issuers */
    size_t cap = t->nissuers + 1;
    for (size_t i = 0; i < o->napi_audiences; i++)
        for (const char *p = o->api_audiences[i]; *p; p++)
            cap += *p == ',';
    cap += o->napi_audiences;
    t->audiences = kg_arena_alloc(&t->mem, cap * sizeof *t->audiences);
    for (size_t i = 0; i < o->napi_audiences; i++) {
        const char *p = o->api_audiences[i];
        while (*p) {
            const char *e = strchr(p, ',');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            if (n)
                t->audiences[t->naudiences++] = kg_arena_strndup(&t->mem, p, n);
            p += n + (e ? 1 : 0);
        }
    }
    if (!t->naudiences)
        for (size_t i = 0; i < t->nissuers; i++)
            t->audiences[t->naudiences++] = t->issuers[i];
    t->max_expiration_s = o->max_token_expiration_s;
    t->extend_expiration = !o->no_extend_token_expiration;
    kg_sa_authenticator_config ac = {.issuers = t->issuers,
                                     .nissuers = t->nissuers,
                                     .api_audiences = t->audiences,
                                     .napi_audiences = t->naudiences,
                                     .keys = t->keys,
                                     .lookup = !o->no_lookup,
                                     .get = cache_get,
                                     .get_ud = t};
    t->auth = kg_sa_authenticator_new(&ac);
    /* the server serves (and so authenticates) only once these are synced: it waits once for every required cache */
    for (size_t i = 0; i < sizeof cached / sizeof *cached; i++)
        kg_cache_require(s->caches, kg_resource_find("", "v1", cached[i]));
    render_discovery(t, o->jwks_uri);
    KG_V(1, "service-account tokens: issuer %s, %zu verification key(s), signing key %s", t->issuers[0],
         t->keys->nverify, t->keys->signing.pkey ? t->keys->signing.kid : "(none)");
    return t;
}

void kg_satoken_stop(kg_satoken *t)
{
    if (!t)
        return;
    kg_satokens_controller_stop(t->tokens);
    kg_sa_authenticator_free(t->auth);
    kg_sa_keys_free(t->keys);
    kg_arena_free(&t->mem);
    free(t);
}

static void serve_doc(kg_http_request *req, kg_http_response *resp, const char *ctype, const char *body, size_t len)
{
    kg_http_add_header(req, resp, "Cache-Control", "public, max-age=3600");
    kg_http_respond_bytes(resp, 200, ctype, body, len);
}

bool kg_satoken_handle(kg_satoken *t, kg_http_request *req, kg_http_response *resp)
{
    const kg_request_info *ri = req->info;
    if (ri->is_resource_request) {
        if (!strcmp(ri->api_version, "v1") && !*ri->api_group && !strcmp(ri->resource, "serviceaccounts") &&
            !strcmp(ri->subresource, "token") && *ri->name) {
            if (strcmp(ri->verb, "create"))
                kg_respond_status(req, resp,
                                  kg_status_method_not_supported(req->arena, (kg_gr){"", "serviceaccounts"}, ri->verb));
            else
                kg_satoken_token_request(t, req, resp);
            return true;
        }
        if (!strcmp(ri->api_group, "authentication.k8s.io") && !strcmp(ri->api_version, "v1") &&
            !strcmp(ri->resource, "tokenreviews") && !*ri->namespace_ && !*ri->name && !*ri->subresource) {
            if (strcmp(ri->verb, "create"))
                kg_respond_status(req, resp,
                                  kg_status_method_not_supported(
                                      req->arena, (kg_gr){"authentication.k8s.io", "tokenreviews"}, ri->verb));
            else
                kg_satoken_token_review(t, req, resp);
            return true;
        }
        return false;
    }
    if (!t->openid_config || (strcmp(req->method, "GET") && strcmp(req->method, "HEAD")))
        return false;
    const char *p = req->path;
    if (!strcmp(p, "/.well-known/openid-configuration") || !strcmp(p, "/.well-known/openid-configuration/")) {
        serve_doc(req, resp, "application/json", t->openid_config, t->openid_config_len);
        return true;
    }
    if (!strcmp(p, "/openid/v1/jwks") || !strcmp(p, "/openid/v1/jwks/")) {
        serve_doc(req, resp, "application/jwk-set+json", t->jwks, t->jwks_len);
        return true;
    }
    return false;
}
