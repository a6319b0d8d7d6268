/* Encryption at rest: kube-apiserver's value transformers (k8s.io/apiserver/pkg/storage/value) configured by an
 * EncryptionConfiguration (apiserver.config.k8s.io/v1, --encryption-provider-config).
 *
 * The store applies a transformer to values only (keys and revisions stay in clear), on every backend: a write
 * is encrypted by the first provider of the first resources[] entry that matches the key's resource, and a read
 * is decrypted by whichever provider of that entry the stored prefix names, so rotating keys is "add the new key
 * first, then rewrite every object" (kubectl get secrets -A -o json | kubectl replace -f -). Stored layout, as
 * upstream (so a database written by one can be read by the other given the same keys):
 *
 *   aescbc   "k8s:enc:aescbc:v1:<key name>:" IV(16 random bytes) AES-CBC(PKCS#7 padded value)
 *   aesgcm   "k8s:enc:aesgcm:v1:<key name>:" nonce(12 random bytes) AES-GCM(value, additional data = the key)
 *   secretbox "k8s:enc:secretbox:v1:<key name>:" nonce(24 random bytes) tag(16) XSalsa20(value) (NaCl secretbox,
 *            secretbox.h; a 32-byte key)
 *   identity the value as is (reads any value that does not start with "k8s:enc:")
 *
 * kms is refused when the configuration is loaded: kgate has no KMS plugin client (see docs/server-security.md).
 *
 * Keys are mapped to resources as kgate lays them out (storage.h): "/registry/<plural>/..." for the core group,
 * "/registry/<group>/<plural>/..." otherwise (a group segment contains a '.' or is one of the dot-less built-in
 * groups apps, batch, policy, autoscaling, extensions). A transformer is immutable once loaded and safe to use
 * from any thread. */
#ifndef KG_STORAGE_TRANSFORMER_H
#define KG_STORAGE_TRANSFORMER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"

typedef struct kg_transformer kg_transformer;

/* Load and validate an EncryptionConfiguration (YAML or JSON) from path. Errors are upstream's: "error while
 * parsing file: resources[0].providers[0].aescbc.keys[0].secret: Invalid value: \"REDACTED\": secret is not of the
 * expected length, got 8, expected one of [16 24 32]" (several errors are joined as "[e1, e2]"). */
kg_transformer *kg_transformer_load(const char *path, kg_error *err);
/* The same from bytes (tests, fuzzing). */
kg_transformer *kg_transformer_parse(const char *text, size_t len, kg_error *err);
void kg_transformer_free(kg_transformer *t);

/* Whether values of key are transformed at all (a resources[] entry matches and its first provider or any
 * provider is not identity). */
bool kg_transformer_applies(const kg_transformer *t, const char *key, size_t key_len);

/* Value of key as it is stored: *out points into a (or at value itself when nothing changes). t may be NULL. */
bool kg_transformer_to_storage(const kg_transformer *t, const char *key, size_t key_len, const void *value, size_t len,
                               kg_arena *a, const char **out, size_t *out_len, kg_error *err);

/* Value of key as read from storage. *stale is set when the value was not written by the current first provider
 * and key (it should be rewritten: an update that changes nothing still writes it, as upstream). Without a
 * matching entry the value is returned as is. A value no provider can read fails with KG_EINTERNAL ("no matching
 * prefix found", or the provider's error for a wrong key or damaged data). *out may point at value. */
bool kg_transformer_from_storage(const kg_transformer *t, const char *key, size_t key_len, const void *value,
                                 size_t len, kg_arena *a, const char **out, size_t *out_len, bool *stale,
                                 kg_error *err);

/* True when value starts with "k8s:enc:" (a value some provider encrypted). */
bool kg_transformer_is_encrypted(const void *value, size_t len);

#endif
