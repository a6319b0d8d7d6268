/* The authorizer interface (k8s.io/apiserver pkg/authorization/authorizer.Authorizer): a request's attributes in,
 * a decision (allow / deny / no opinion) with a reason and possibly an error out. One interface for every caller:
 * the HTTP layer's authorization filter, admission plugins (admission/services.h) and CEL's `authorizer` library.
 *
 * An authorizer is a small value {ctx, authorize, destroy}; the constructors below return heap ones that
 * kg_authorizer_free releases. Implementations must be safe to call concurrently from many request threads. */
#ifndef KG_AUTH_AUTHORIZER_H
#define KG_AUTH_AUTHORIZER_H

#include <stdbool.h>
#include <stddef.h>

#include "auth/user.h"
#include "base/arena.h"
#include "base/error.h"

/* authorizer.AttributesRecord. Strings are borrowed; NULL reads as "". */
typedef struct kg_authz_attributes {
    const kg_user_info *user; /* NULL: no user (never allowed by group-based authorizers) */
    const char *verb;
    bool resource_request; /* false: a non-resource request for path */
    const char *path;      /* non-resource requests */
    const char *api_group; /* resource requests ("" = core) */
    const char *api_version;
    const char *resource;
    const char *subresource;
    const char *namespace_;
    const char *name;
    const char *field_selector; /* raw selectors (AuthorizeWithSelectors), NULL = none */
    const char *label_selector;
} kg_authz_attributes;

typedef enum kg_authz_decision {
    KG_AUTHZ_DENY = 0,
    KG_AUTHZ_ALLOW,
    KG_AUTHZ_NO_OPINION,
} kg_authz_decision;

typedef struct kg_authorizer {
    void *ctx; /* passed back to authorize and destroy */
    /* Decide. *reason may be set to an arena (a) or static string (NULL or "" = no reason); a failure to decide
     * sets err (may be NULL) and returns the decision to use anyway (usually NO_OPINION). */
    kg_authz_decision (*authorize)(void *ctx, const kg_authz_attributes *attrs, kg_arena *a, const char **reason,
                                   kg_error *err);
    void (*destroy)(void *ctx); /* releases ctx and the authorizer itself; NULL for borrowed authorizers */
} kg_authorizer;

/* Ask z. *reason is reset first; err (may be NULL) is cleared first. A NULL z has no opinion. */
static inline kg_authz_decision kg_authz_authorize(const kg_authorizer *z, const kg_authz_attributes *attrs,
                                                   kg_arena *a, const char **reason, kg_error *err)
{
    *reason = NULL;
    if (err) {
        err->code = KG_OK;
        err->msg[0] = 0;
    }
    if (!z || !z->authorize)
        return KG_AUTHZ_NO_OPINION;
    return z->authorize(z->ctx, attrs, a, reason, err);
}

/* Release an authorizer made by a constructor below (NULL is fine). */
void kg_authorizer_free(kg_authorizer *z);

/* Allow every request whose user is in one of the groups (upstream authorizerfactory.NewPrivilegedGroups);
 * no opinion otherwise. kgate's default: kg_authz_new_privileged_groups((const char *[]){"system:masters"}, 1). */
kg_authorizer *kg_authz_new_privileged_groups(const char *const *groups, size_t ngroups);

/* --authorization-mode=AlwaysAllow: Allow everything. AlwaysDeny: no opinion, reason "Everything is forbidden."
 * (upstream authorizerfactory; in a union the request is then denied unless an earlier member allowed it). */
kg_authorizer *kg_authz_new_always_allow(void);
kg_authorizer *kg_authz_new_always_deny(void);

/* Union of authorizers (upstream union.New): the first Allow or Deny wins; all no-opinion -> no opinion with
 * the non-empty reasons joined by "\n". Errors: an Allow or Deny comes with its member's error; a final no opinion
 * with the members' error messages joined by ", " (utilerrors.NewAggregate). Takes ownership of the members. */
kg_authorizer *kg_authz_new_union(kg_authorizer **members, size_t n);

#endif
