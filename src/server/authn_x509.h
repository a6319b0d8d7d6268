/* Client-certificate authentication (kube-apiserver's --client-ca-file; k8s.io/apiserver
 * pkg/authentication/request/x509).
 *
 * The TLS handshake only asks for a client certificate (it neither requires nor verifies one, see tlscreds.h); the
 * chain the client presented is verified here, per request, against the client CA bundle: the leaf must chain to one
 * of the CAs (the other presented certificates serve as intermediates), every certificate must be inside its
 * validity period, and the chain must be usable for client authentication (extended key usage clientAuth when the
 * certificate lists extended key usages; OpenSSL's SSL-client purpose). A verified certificate authenticates the
 * user named by its subject CommonName, with the subject Organization values as groups (CommonNameUserConversion);
 * a verified certificate without a CommonName authenticates nobody (the next authenticator is tried).
 *
 * A presented certificate that does not verify (other CA, expired, wrong usage) is an error, not "no credentials":
 * the request gets 401 even when anonymous requests are allowed (upstream's union of request authenticators fails on
 * the x509 error). Verification runs on every request of the connection, as upstream's. */
#ifndef KG_SERVER_AUTHN_X509_H
#define KG_SERVER_AUTHN_X509_H

#include <stddef.h>
#include <stdint.h>

#include "auth/user.h"
#include "base/arena.h"
#include "base/error.h"

/* The DER certificates a client presented, leaf first. */
typedef struct kg_x509_chain {
    const unsigned char *const *der;
    const size_t *len;
    size_t n;
} kg_x509_chain;

typedef struct kg_x509_authn kg_x509_authn;

/* The CA bundle (PEM, one or more certificates). Errors: "client CA bundle: ...". */
kg_x509_authn *kg_x509_authn_new(const char *ca_pem, kg_error *err);
void kg_x509_authn_free(kg_x509_authn *x);

typedef enum kg_x509_verdict {
    KG_X509_NONE = 0, /* no certificate, or a verified one without CommonName: not a user, try the next */
    KG_X509_OK,       /* *out filled (strings in a); groups are the O values, system:authenticated not added */
    KG_X509_INVALID,  /* presented but not verified: 401; *reason says why (for the log) */
} kg_x509_verdict;

/* now_unix: the verification time (0: the current time). Thread-safe. */
kg_x509_verdict kg_x509_authn_verify(const kg_x509_authn *x, const kg_x509_chain *chain, int64_t now_unix, kg_arena *a,
                                     kg_user_info *out, const char **reason);

#endif
