/* Compact JWS (RFC 7515) for service-account tokens: signing (RS256, ES256/384/512 with OpenSSL EVP) and
 * parsing/verification, as go-jose does for kube-apiserver (pkg/serviceaccount/jwt.go).
 *
 *  - Signing: header {"alg":<key alg>,"kid":<key id>}, the claims serialized compactly, base64url without padding
 *    (src/base/base64); ECDSA signatures are the fixed-width r||s of RFC 7518, not DER.
 *  - Parsing: exactly three dot-separated base64url parts, a JSON object header with an "alg" among the supported
 *    ones ("none" and HMAC are rejected), a JSON object payload.
 *  - Verification: the header's "kid", when present, selects the keys with that id; each key whose algorithm matches
 *    the header's is tried. */
#ifndef KG_AUTH_SERVICEACCOUNT_JWT_H
#define KG_AUTH_SERVICEACCOUNT_JWT_H

#include <stdbool.h>
#include <stddef.h>

#include "auth/serviceaccount/keys.h"
#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"

typedef struct kg_jwt {
    kg_json *header;
    kg_json *claims;
    const char *alg, *kid;     /* kid NULL when absent */
    const char *signing_input; /* "<header>.<payload>" as received */
    size_t signing_len;
    unsigned char *sig;
    size_t sig_len;
} kg_jwt;

/* The claims of token as a compact JWS string in a, or NULL with err set. */
char *kg_jwt_sign(kg_arena *a, const kg_sa_key *key, const kg_json *claims, kg_error *err);

/* Split and decode (no signature check). False with err for anything that is not a compact JWS with a supported
 * algorithm. */
bool kg_jwt_parse(kg_arena *a, const char *token, size_t len, kg_jwt *out, kg_error *err);

/* The "iss" of an unverified token ("" when not a 3-part token with a decodable JSON payload): upstream's
 * hasCorrectIssuer peek, cheap enough to run on every bearer token. */
const char *kg_jwt_peek_issuer(kg_arena *a, const char *token, size_t len);

/* Check the signature against keys. False with err: "invalid signature, no keys found" when no key applies,
 * "error in cryptographic primitive" when none verifies. */
bool kg_jwt_verify(const kg_jwt *t, const kg_sa_key *keys, size_t nkeys, kg_error *err);

#endif
