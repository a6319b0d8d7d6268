/* Bootstrap token authentication (kube-apiserver's --enable-bootstrap-token-auth; k8s.io/kubernetes
 * plugin/pkg/auth/authenticator/token/bootstrap).
 *
 * A bearer token "<id>.<secret>" ([a-z0-9]{6}.[a-z0-9]{16}) names the Secret kube-system/bootstrap-token-<id>. It
 * authenticates when that Secret exists and is not being deleted, has type bootstrap.kubernetes.io/token, its data
 * token-id and token-secret equal the token's parts (the secret compared in constant time), its expiration (RFC 3339)
 * has not passed (an unparsable one counts as expired) and usage-bootstrap-authentication is "true". The user is
 * system:bootstrap:<id> in the group system:bootstrappers plus the auth-extra-groups (a comma list, each of which must
 * match ^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$), deduplicated and sorted.
 *
 * Any mismatch is "not mine" (the next authenticator is tried, as upstream answers (nil, false, nil)); only an
 * invalid extra group is an error (401). Secrets come from a lookup function: the server reads its watch-fed Secret
 * cache (server/cache.h), never the store, per request. */
#ifndef KG_SERVER_AUTHN_BOOTSTRAP_H
#define KG_SERVER_AUTHN_BOOTSTRAP_H

#include <stdint.h>

#include "json/json.h"
#include "server/authn.h"

/* The Secret kube-system/<name> (decoded JSON, valid while a lives), or NULL when there is none. */
typedef const kg_json *(*kg_bootstrap_lookup_fn)(void *ud, const char *name, kg_arena *a);

typedef struct kg_bootstrap_authn {
    kg_bootstrap_lookup_fn lookup;
    void *ud;
    int64_t now_unix; /* 0: the current time (tests set it) */
} kg_bootstrap_authn;

/* A kg_token_authenticator_fn; ud is a kg_bootstrap_authn. */
kg_token_verdict kg_bootstrap_token_authenticate(void *ud, const char *token, size_t len, kg_arena *a,
                                                 kg_user_info *out, const char **reason);

/* The lookup over the server's caches (ud: a struct kg_cache_set *, Secrets cached). */
const kg_json *kg_bootstrap_cache_lookup(void *ud, const char *name, kg_arena *a);

#endif
