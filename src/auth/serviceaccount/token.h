/* Service-account tokens: the claims kube-apiserver puts in them (pkg/serviceaccount/claims.go, legacy.go) and the
 * authenticator that accepts them (pkg/serviceaccount/jwt.go), independent of where objects are looked up.
 *
 * Bound tokens (TokenRequest) carry iss (the first --service-account-issuer), sub
 * system:serviceaccount:<ns>:<name>, aud, exp, iat, nbf (= iat), jti and
 *   "kubernetes.io": {namespace, node?{name,uid}, pod?{name,uid}, secret?{name,uid}, serviceaccount{name,uid},
 *                     warnafter?}
 * (keys in go-jose's output order: the claims are merged through a map, hence sorted).
 * Legacy tokens (the tokens controller's Secrets) have iss "kubernetes/serviceaccount", sub and the
 * kubernetes.io/serviceaccount/{namespace,secret.name,service-account.name,service-account.uid} claims.
 *
 * Authentication of a bearer token:
 *  1. Claimed only when it is a three-part token whose unverified "iss" is an accepted issuer (or the legacy one):
 *     otherwise NOT_MINE, so other JWT authenticators may have it.
 *  2. The signature against the verification keys (jwt.h), then the audiences: aud ∩ requested audiences (default
 *     the API audiences; a token without aud counts as having the API audiences) must not be empty.
 *  3. Bound: exp / nbf / iat with go-jose's 60 s leeway; the ServiceAccount must exist (deleted more than 60 s ago
 *     counts as gone) with the claimed uid, and the bound Secret / Pod / Node likewise. Legacy (with lookup): the
 *     Secret must exist, not be deleting, hold the same token, and the ServiceAccount must exist with its uid.
 *  4. The user: system:serviceaccount:<ns>:<name>, uid = the ServiceAccount's, groups system:serviceaccounts and
 *     system:serviceaccounts:<ns>, extra authentication.kubernetes.io/{pod-name,pod-uid,node-name,node-uid,
 *     credential-id ("JTI=<jti>")}.
 * Every failure is INVALID with upstream's error text in reason (for logs and TokenReview; clients see 401).
 * Objects come from a getter (the server's watch-fed caches). Thread-safe; read-only after creation. */
#ifndef KG_AUTH_SERVICEACCOUNT_TOKEN_H
#define KG_AUTH_SERVICEACCOUNT_TOKEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth/serviceaccount/keys.h"
#include "auth/user.h"
#include "base/arena.h"
#include "json/json.h"

#define KG_SA_LEGACY_ISSUER "kubernetes/serviceaccount"
#define KG_SA_DEFAULT_ISSUER "https://kubernetes.default.svc.cluster.local"
#define KG_SA_USER_PREFIX "system:serviceaccount:"
#define KG_SA_LEEWAY_SECONDS 60

/* What a bound token says. Optional refs: name NULL. */
typedef struct kg_sa_token_spec {
    const char *issuer;
    const char *const *audiences;
    size_t naudiences;
    const char *ns, *sa_name, *sa_uid;
    const char *pod_name, *pod_uid;
    const char *secret_name, *secret_uid;
    const char *node_name, *node_uid;
    int64_t iat, exp;
    int64_t warnafter; /* 0: none */
    const char *jti;
} kg_sa_token_spec;

/* The claims of a bound token. */
kg_json *kg_sa_bound_claims(kg_arena *a, const kg_sa_token_spec *s);
/* The claims of a legacy (Secret-based) token. */
kg_json *kg_sa_legacy_claims(kg_arena *a, const char *ns, const char *secret_name, const char *sa_name,
                             const char *sa_uid);

/* Looks an object up: plural "serviceaccounts", "secrets", "pods" or "nodes"; NULL when it does not exist. The
 * returned document must stay valid while a lives. */
typedef const kg_json *(*kg_sa_get_fn)(void *ud, const char *plural, const char *ns, const char *name, kg_arena *a);

typedef struct kg_sa_authenticator_config {
    const char *const *issuers; /* accepted; the first signs */
    size_t nissuers;
    const char *const *api_audiences;
    size_t napi_audiences;
    const kg_sa_keys *keys;
    bool lookup; /* --service-account-lookup (legacy tokens); default true */
    kg_sa_get_fn get;
    void *get_ud;
    int64_t (*now)(void); /* NULL: time(NULL) */
} kg_sa_authenticator_config;

typedef struct kg_sa_authenticator kg_sa_authenticator;

typedef enum kg_sa_verdict {
    KG_SA_NOT_MINE = 0,
    KG_SA_OK,
    KG_SA_INVALID,
} kg_sa_verdict;

typedef struct kg_sa_result {
    kg_user_info user;            /* KG_SA_OK: strings in the arena */
    const char *const *audiences; /* the accepted audiences (TokenReview's status.audiences) */
    size_t naudiences;
    const char *reason; /* KG_SA_INVALID: upstream's text */
} kg_sa_result;

/* Copies the arrays and strings of cfg. */
kg_sa_authenticator *kg_sa_authenticator_new(const kg_sa_authenticator_config *cfg);
void kg_sa_authenticator_free(kg_sa_authenticator *sa);

/* audiences NULL/0: the API audiences. The user gets no system:authenticated (the caller's group adder does). */
kg_sa_verdict kg_sa_authenticate(const kg_sa_authenticator *sa, const char *token, size_t len,
                                 const char *const *audiences, size_t naudiences, kg_arena *a, kg_sa_result *out);

/* "system:serviceaccount:<ns>:<name>" split (upstream's SplitUsername); false when malformed. */
bool kg_sa_split_username(kg_arena *a, const char *user, const char **ns, const char **name);

#endif
