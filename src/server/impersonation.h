/* Impersonation (apiserver pkg/endpoints/filters/impersonation.go), run after authentication and before
 * authorization: the Impersonate-User, Impersonate-Group (repeatable), Impersonate-Uid and Impersonate-Extra-<key>
 * headers. Each requested item is authorized as the real user with verb "impersonate":
 *   user  -> "" users (name)               ServiceAccount (system:serviceaccount:ns:name) -> "" serviceaccounts (ns,
 * name) group -> "" groups (name)              extra -> authentication.k8s.io userextras/<key> (name = value) uid   ->
 * authentication.k8s.io uids (name) in that order; the first one not allowed is a 403 with upstream's text. The request
 * then runs as the new user: the given groups (for a ServiceAccount without groups: system:serviceaccounts,
 * system:serviceaccounts:<ns>), plus system:authenticated (system:unauthenticated for system:anonymous) unless present,
 * only the impersonated extras and uid. Groups, extras or uid without a user are upstream's 500. Extra keys are
 * lower-cased, then percent-decoded. */
#ifndef KG_SERVER_IMPERSONATION_H
#define KG_SERVER_IMPERSONATION_H

#include "auth/authorizer.h"
#include "base/arena.h"
#include "base/buf.h"
#include "server/authn.h"
#include "server/http.h"

typedef enum kg_impersonation_result {
    KG_IMPERSONATION_NONE = 0,  /* no Impersonate-* header: *user unchanged */
    KG_IMPERSONATION_OK,        /* *user is the impersonated user (built in a) */
    KG_IMPERSONATION_FORBIDDEN, /* 403: *body the Status JSON */
    KG_IMPERSONATION_ERROR,     /* 500: *body upstream's plain-text internal error */
} kg_impersonation_result;

kg_impersonation_result kg_impersonate(const kg_authorizer *z, const kg_http_header *headers, size_t nheaders,
                                       const char *raw_uri, kg_arena *a, kg_user *user, const char **body);

#endif
