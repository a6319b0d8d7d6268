/* Service-account token keys (kube-apiserver's --service-account-signing-key-file / --service-account-key-file).
 *
 *  - The signing key: a PEM private key, RSA (→ RS256) or ECDSA P-256/P-384/P-521 (→ ES256/ES384/ES512).
 *  - Verification keys: every key of every --service-account-key-file (PEM public keys, private keys or
 *    certificates; several blocks per file allowed); without such a file, the signing key's public part.
 *  - Neither flag: an RSA-2048 key is generated in <data-dir>/sa.key (0600, written atomically through a
 *    temporary file and rename) on first start and reused afterwards — like the CA of server/tls.c.
 *  - Key id (the JWT header's "kid" and the JWKS "kid"): upstream's keyIDFromPublicKey, base64url without padding
 *    of SHA-256 over the PKIX (SubjectPublicKeyInfo) DER of the public key.
 * Read-only after kg_sa_keys_load: safe to share between threads. */
#ifndef KG_AUTH_SERVICEACCOUNT_KEYS_H
#define KG_AUTH_SERVICEACCOUNT_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"

typedef struct evp_pkey_st kg_sa_pkey; /* OpenSSL's EVP_PKEY */

typedef struct kg_sa_key {
    kg_sa_pkey *pkey;
    char alg[8];  /* "RS256", "ES256", "ES384", "ES512" */
    char kid[48]; /* base64url(SHA-256(PKIX DER)) */
} kg_sa_key;

typedef struct kg_sa_keys {
    kg_sa_key signing; /* pkey NULL: this server cannot issue tokens */
    kg_sa_key *verify;
    size_t nverify;
} kg_sa_keys;

typedef struct kg_sa_keys_config {
    const char *signing_key_file; /* NULL: the data dir's generated key (when data_dir is set) */
    const char *const *key_files; /* --service-account-key-file values */
    size_t nkey_files;
    const char *data_dir; /* where sa.key is generated; NULL: no generation */
} kg_sa_keys_config;

/* Load (or generate) the keys. Errors name the file. */
kg_sa_keys *kg_sa_keys_load(const kg_sa_keys_config *cfg, kg_error *err);
/* The same from PEM text already in memory (tests): signing_pem may be NULL; verify_pems NULL: the signing key. */
kg_sa_keys *kg_sa_keys_from_pem(const char *signing_pem, const char *const *verify_pems, size_t n, kg_error *err);
void kg_sa_keys_free(kg_sa_keys *k);

/* Fill k from a key (takes the reference): alg by key type and size, kid from the public key. False for keys JWT
 * cannot use (DSA, other curves). */
bool kg_sa_key_init(kg_sa_key *k, kg_sa_pkey *pkey, kg_error *err);

/* A new RSA-2048 private key as PEM (malloc'd), or NULL. */
char *kg_sa_keys_generate_pem(void);

/* The JWKS document served at /openid/v1/jwks: {"keys":[{use,kty,kid,crv?,alg,x?,y?,n?,e?}...]} (go-jose's field
 * order), one entry per distinct verification key. */
kg_json *kg_sa_keys_jwks(const kg_sa_keys *k, kg_arena *a);
/* Sorted distinct algorithms of the verification keys (id_token_signing_alg_values_supported). */
kg_json *kg_sa_keys_algs(const kg_sa_keys *k, kg_arena *a);

#endif
