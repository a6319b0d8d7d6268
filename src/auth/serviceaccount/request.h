/* TokenRequest's rules that need no server (k/k pkg/registry/core/serviceaccount/storage/token.go,
 * pkg/apis/authentication/validation): expiration defaulting, limits, capping and the projected-token extension;
 * which bound object kinds are accepted. server/tokenrequest.c applies them. */
#ifndef KG_AUTH_SERVICEACCOUNT_REQUEST_H
#define KG_AUTH_SERVICEACCOUNT_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "json/json.h"
#include "meta/status.h"

#define KG_SA_MIN_EXPIRATION_S 600
#define KG_SA_DEFAULT_EXPIRATION_S 3600
#define KG_SA_WARN_ONLY_EXPIRATION_S 3607               /* the ServiceAccount admission plugin's projected value */
#define KG_SA_EXTENDED_EXPIRATION_S (24LL * 365 * 3600) /* token.ExpirationExtensionSeconds */

typedef struct kg_sa_expiration {
    int64_t requested;     /* spec.expirationSeconds after defaulting */
    int64_t seconds;       /* after the --service-account-max-token-expiration cap: spec and status use it */
    bool shortened;        /* capped: warn "requested expiration of R seconds shortened to S seconds" */
    int64_t token_seconds; /* exp - iat in the token */
    int64_t warnafter_s;   /* 0, or warnafter - iat */
} kg_sa_expiration;

/* spec.expirationSeconds (NULL or null: default 3600) → *out; false with errs filled (spec.expirationSeconds:
 * "may not specify a duration less than 10 minutes" / "... larger than 2^32 seconds"). max_s 0: no cap. The
 * extension applies when extend, pod_bound, the request is exactly 3607 s and every audience is an API audience. */
bool kg_sa_token_expiration(kg_arena *a, const kg_json *expiration_seconds, int64_t max_s, bool extend, bool pod_bound,
                            bool kube_audiences, kg_sa_expiration *out, kg_field_errors *errs);

/* The plural of a bound object reference ("pods", "secrets", "nodes"), or NULL with *bad_request set to upstream's
 * "cannot bind token to object of type <group>/<version>, Kind=<kind>". */
const char *kg_sa_bound_plural(kg_arena *a, const char *api_version, const char *kind, const char **bad_request);

#endif
