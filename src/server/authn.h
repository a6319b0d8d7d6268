/* Authentication as kube-apiserver does it with --token-auth-file and --anonymous-auth, plus kgate's generated
 * admin token.
 *
 *  - Static tokens: the CSV file (token,user,uid[,"group1,group2"]) parsed like upstream's tokenfile.NewCSV
 *    (Go encoding/csv rules: RFC 4180 quoting, blank lines skipped, no comments, at least 3 columns; empty token
 *    rows skipped with a warning; a duplicate token: the later row wins, with a warning).
 *  - The admin token: 32 random bytes as 64 hex chars, kept in <data-dir>/admin.token (0600), created on first
 *    start and reused afterwards; user "kgate-admin", groups system:masters.
 *  - "Authorization: Bearer <token>" (scheme case-insensitive); any other Authorization header is "no
 *    credentials". A presented but unknown token is always 401 (upstream: union.NewFailOnError), even when
 *    anonymous requests are allowed.
 *  - Every authenticated user also gets the group system:authenticated (appended when missing).
 *  - No credentials: user system:anonymous in group system:unauthenticated when anonymous auth is enabled,
 *    otherwise 401.
 * Token lookup: a keyed SipHash-2-4 picks the hash-table slot, then a constant-time comparison of the stored
 * token. */
#ifndef KG_SERVER_AUTHN_H
#define KG_SERVER_AUTHN_H

#include <stdbool.h>
#include <stddef.h>

#include "auth/user.h"
#include "base/arena.h"
#include "base/error.h"
#include "server/authn_x509.h"

/* The authenticated user is the shared user.Info type (auth/user.h; KG_USER_ANONYMOUS, KG_GROUP_* live there too).
 * kg_user is its name in the server code. */
typedef kg_user_info kg_user;

/* A further bearer-token authenticator tried, in order, after the static tokens (upstream's union of token
 * authenticators: token file, bootstrap tokens, service-account JWTs). NOT_MINE passes the token on; INVALID stops
 * the chain with 401 (union.NewFailOnError semantics), *reason (may stay NULL) being logged, never sent.
 * On OK *out is filled; its strings live in `a` or in the authenticator. Must be thread-safe. */
typedef enum kg_token_verdict {
    KG_TOKEN_NOT_MINE = 0,
    KG_TOKEN_OK,
    KG_TOKEN_INVALID,
} kg_token_verdict;
typedef kg_token_verdict (*kg_token_authenticator_fn)(void *ud, const char *token, size_t len, kg_arena *a,
                                                      kg_user_info *out, const char **reason);
typedef struct kg_token_authenticator {
    kg_token_authenticator_fn fn;
    void *ud;
} kg_token_authenticator;
#define KG_AUTHN_MAX_TOKEN_AUTHENTICATORS 4

typedef struct kg_authn_config {
    const char *token_auth_file; /* NULL: no static tokens */
    const char *data_dir;        /* where admin.token lives; NULL: no admin token */
    bool anonymous_auth;         /* --anonymous-auth (kube-apiserver's default is true) */
    /* tried after the static tokens, in array order (bootstrap tokens, then service-account tokens) */
    kg_token_authenticator token_authenticators[KG_AUTHN_MAX_TOKEN_AUTHENTICATORS];
    size_t ntoken_authenticators;
    const char *client_ca_file; /* --client-ca-file: x509 client certificates, tried first (authn_x509.h) */
} kg_authn_config;

typedef struct kg_authn kg_authn;

/* Load the token file and create/load the admin token. Errors name the file (and line for CSV errors). */
kg_authn *kg_authn_new(const kg_authn_config *cfg, kg_error *err);
void kg_authn_free(kg_authn *a);

/* The admin bearer token (NULL when there is no data dir). */
const char *kg_authn_admin_token(const kg_authn *a);
/* Number of distinct static tokens loaded (admin token not counted). */
size_t kg_authn_token_count(const kg_authn *a);

typedef enum kg_authn_result {
    KG_AUTHN_OK = 0,       /* *out is an authenticated user */
    KG_AUTHN_ANONYMOUS,    /* no credentials, anonymous allowed: *out is system:anonymous */
    KG_AUTHN_UNAUTHORIZED, /* 401: bad token, or no credentials and anonymous disabled */
} kg_authn_result;

/* Authenticate from the Authorization header value (NULL when absent). The user's group array is built in
 * `a` when system:authenticated has to be appended. Thread-safe (read-only after kg_authn_new). */
kg_authn_result kg_authn_authenticate(const kg_authn *an, const char *authorization, kg_arena *a, kg_user *out);

/* The whole chain in upstream order: the client certificate (certs: the chain the client presented, NULL or empty
 * when none; ignored without --client-ca-file), then the bearer token, then anonymous. As upstream's union, a
 * certificate that fails verification is an error only when no later authenticator accepts the request: a valid
 * token still authenticates, and without one the request gets 401 even when anonymous requests are allowed. */
kg_authn_result kg_authn_authenticate_request(const kg_authn *an, const kg_x509_chain *certs, const char *authorization,
                                              kg_arena *a, kg_user *out);
/* Whether client certificates are verified (--client-ca-file given): the server then asks for them. */
const char *kg_authn_client_ca_pem(const kg_authn *an);

/* Token file parsing alone (used by kg_authn_new and by tests). Calls fn for every accepted row in file order
 * (groups NULL/0 when the row has 3 columns); returns false with "token file '<path>' ..." style errors. */
typedef void (*kg_authn_token_fn)(void *ud, const char *token, const char *user, const char *uid,
                                  const char *const *groups, size_t ngroups);
bool kg_authn_parse_token_file(const char *path, kg_authn_token_fn fn, void *ud, kg_error *err);

#endif
