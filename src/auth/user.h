/* The user a request acts as (k8s.io/apiserver pkg/authentication/user.Info): the one user type shared by
 * authentication (server/authn.h fills it), authorization (auth/authorizer.h reads it) and admission (the
 * attributes' user, admission/attributes.h).
 *
 * Strings and arrays are borrowed: owned by whoever filled the struct (the authenticator's static users, or the
 * request arena). */
#ifndef KG_AUTH_USER_H
#define KG_AUTH_USER_H

#include <stdbool.h>
#include <stddef.h>

/* One entry of user.Info's Extra: a key and its string list. */
typedef struct kg_user_extra {
    const char *key;
    const char *const *values;
    size_t nvalues;
} kg_user_extra;

typedef struct kg_user_info {
    const char *name;
    const char *uid;
    const char *const *groups;
    size_t ngroups;
    const kg_user_extra *extra; /* key → string list; NULL when nextra is 0 */
    size_t nextra;
} kg_user_info;

/* Well-known names (k8s.io/apiserver pkg/authentication/user). */
#define KG_USER_ANONYMOUS "system:anonymous"
#define KG_GROUP_UNAUTHENTICATED "system:unauthenticated"
#define KG_GROUP_AUTHENTICATED "system:authenticated"
#define KG_GROUP_MASTERS "system:masters"
#define KG_GROUP_SERVICEACCOUNTS "system:serviceaccounts"
/* The administrator kgate serve writes admin.kubeconfig for (groups system:masters, system:authenticated); the user
 * `kgate check` submits as by default. */
#define KG_ADMIN_USER "kgate-admin"

/* True when u (may be NULL) is a member of group. */
bool kg_user_in_group(const kg_user_info *u, const char *group);

#endif
