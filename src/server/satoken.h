/* Service-account tokens in kgate serve (kube-apiserver's --service-account-* flags, k/k pkg/serviceaccount,
 * pkg/registry/core/serviceaccount/storage/token.go, pkg/registry/authentication/tokenreview, pkg/routes/
 * openidmetadata.go):
 *
 *  - Keys (auth/serviceaccount/keys.h): --service-account-signing-key-file, --service-account-key-file (repeatable;
 *    default the signing key), or a key generated in the data dir on first start.
 *  - Issuers: --service-account-issuer (repeatable; the first signs, all are accepted; default
 *    https://kubernetes.default.svc.cluster.local); --api-audiences (comma-separated, repeatable; default the
 *    issuers); --service-account-max-token-expiration (0: no cap; else between 1 h and 2^32 s);
 *    --service-account-extend-token-expiration (default true); --service-account-lookup (default true);
 *    --service-account-jwks-uri (https).
 *  - The bearer-token authenticator (token_authenticators[1] of server/authn.h) over watch-fed caches of
 *    ServiceAccounts, Secrets, Pods and Nodes; a cache miss falls back to one store read, as upstream's token getter
 *    falls back from its listers to the API.
 *  - TokenRequest: POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token (tokenrequest.c).
 *  - TokenReview: POST /apis/authentication.k8s.io/v1/tokenreviews (tokenrequest.c).
 *  - OIDC discovery: GET /.well-known/openid-configuration and /openid/v1/jwks, rendered once at start (served when
 *    the first issuer is an https URL without query or fragment). */
#ifndef KG_SERVER_SATOKEN_H
#define KG_SERVER_SATOKEN_H

#include <stdbool.h>
#include <stdint.h>

#include "auth/serviceaccount/keys.h"
#include "auth/serviceaccount/token.h"
#include "base/error.h"
#include "server/authn.h"

#define KG_SATOKEN_MAX_VALUES 16

/* The flags as given (list flags keep each occurrence; --api-audiences values are split on commas at start). */
typedef struct kg_satoken_options {
    const char *signing_key_file;
    const char *key_files[KG_SATOKEN_MAX_VALUES];
    size_t nkey_files;
    const char *issuers[KG_SATOKEN_MAX_VALUES];
    size_t nissuers;
    const char *api_audiences[KG_SATOKEN_MAX_VALUES];
    size_t napi_audiences;
    const char *jwks_uri;
    int64_t max_token_expiration_s;  /* 0: no cap */
    bool no_extend_token_expiration; /* --service-account-extend-token-expiration=false */
    bool no_lookup;                  /* --service-account-lookup=false */
} kg_satoken_options;

/* Check the flag values as kube-apiserver does (texts included). */
bool kg_satoken_options_validate(const kg_satoken_options *o, kg_error *err);

struct kg_apiserver;
struct kg_http_request;
struct kg_http_response;

typedef struct kg_satokens_controller kg_satokens_controller;

typedef struct kg_satoken {
    struct kg_apiserver *s;
    kg_arena mem;
    kg_sa_keys *keys;
    kg_sa_authenticator *auth;
    const char **issuers;
    size_t nissuers;
    const char **audiences; /* the API audiences */
    size_t naudiences;
    int64_t max_expiration_s;
    bool extend_expiration;
    char *openid_config, *jwks; /* rendered once; NULL: discovery not served */
    size_t openid_config_len, jwks_len;
    kg_satokens_controller *tokens; /* the legacy tokens controller, once started */
} kg_satoken;

/* Load the keys and require the caches (kg_cache_require: the server waits for them before serving). s->caches and
 * s->store must exist. */
kg_satoken *kg_satoken_start(struct kg_apiserver *s, const kg_satoken_options *o, kg_error *err);
void kg_satoken_stop(kg_satoken *t);
/* The authenticator for kg_authn_config.token_authenticators. */
kg_token_authenticator kg_satoken_authenticator(kg_satoken *t);

/* True when the request was one of ours (TokenRequest, TokenReview, the OIDC documents) and has been answered. */
bool kg_satoken_handle(kg_satoken *t, struct kg_http_request *req, struct kg_http_response *resp);

/* The legacy tokens controller (satokens_controller.c): fills Secrets of type kubernetes.io/service-account-token.
 * Start once the server's CA is known; kg_satoken_stop stops it. */
kg_satokens_controller *kg_satokens_controller_start(kg_satoken *t, const char *ca_pem);
void kg_satokens_controller_stop(kg_satokens_controller *c);

/* tokenrequest.c */
void kg_satoken_token_request(kg_satoken *t, struct kg_http_request *req, struct kg_http_response *resp);
void kg_satoken_token_review(kg_satoken *t, struct kg_http_request *req, struct kg_http_response *resp);
/* An object from the store (live read), or NULL. */
const kg_json *kg_satoken_store_get(kg_satoken *t, const char *plural, const char *ns, const char *name, kg_arena *a);

#endif
