/* Encryption at rest: the prefix transformer over aescbc / aesgcm / secretbox / identity providers (see
 * transformer.h).
 * The EncryptionConfiguration parser is transformer_config.c; both share transformer_internal.h. */
#include <string.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "storage/secretbox.h"
#include "storage/transformer_internal.h"

#define ENC_PREFIX "k8s:enc:"
#define SHORT_DATA "the stored data was shorter than the required size"
/* the most any provider adds after the prefix: aescbc IV + a padding block, secretbox nonce + tag */
#define SEAL_OVERHEAD 40

bool kg_transformer_is_encrypted(const void *value, size_t len)
{
    return len >= sizeof ENC_PREFIX - 1 && memcmp(value, ENC_PREFIX, sizeof ENC_PREFIX - 1) == 0;
}

void kg_transformer_free(kg_transformer *t)
{
    if (!t)
        return;
    /* keys live in the arena: wipe them before the memory goes back */
    for (size_t i = 0; i < t->nrules; i++)
        for (size_t j = 0; j < t->rules[i].nkeys; j++)
            OPENSSL_cleanse(t->rules[i].keys[j].secret, sizeof t->rules[i].keys[j].secret);
    kg_arena_free(&t->arena);
    free(t);
}

/* ---- key → (group, resource) ---- */

static bool dotless_group(const char *s, size_t n)
{
    static const char *const groups[] = {"apps", "batch", "policy", "autoscaling", "extensions"};
    for (size_t i = 0; i < sizeof groups / sizeof *groups; i++)
        if (strlen(groups[i]) == n && memcmp(groups[i], s, n) == 0)
            return true;
    return memchr(s, '.', n) != NULL;
}

/* "/registry/<plural>/..." or "/registry/<group>/<plural>/..." */
static bool split_key(const char *key, size_t klen, const char **g, size_t *gn, const char **r, size_t *rn)
{
    static const char reg[] = "/registry/";
    if (klen < sizeof reg - 1 || memcmp(key, reg, sizeof reg - 1) != 0)
        return false;
    const char *p = key + sizeof reg - 1, *end = key + klen;
    const char *s1 = memchr(p, '/', (size_t)(end - p));
    size_t n1 = s1 ? (size_t)(s1 - p) : (size_t)(end - p);
    if (n1 == 0)
        return false;
    if (s1 && dotless_group(p, n1)) {
        const char *q = s1 + 1;
        const char *s2 = memchr(q, '/', (size_t)(end - q));
        size_t n2 = s2 ? (size_t)(s2 - q) : (size_t)(end - q);
        if (n2 == 0)
            return false;
        *g = p;
        *gn = n1;
        *r = q;
        *rn = n2;
        return true;
    }
    *g = "";
    *gn = 0;
    *r = p;
    *rn = n1;
    return true;
}

static bool pattern_matches(const kg_xf_pattern *pt, const char *g, size_t gn, const char *r, size_t rn)
{
    if (!pt->any_group && (strlen(pt->group) != gn || memcmp(pt->group, g, gn) != 0))
        return false;
    return pt->any_resource || (strlen(pt->resource) == rn && memcmp(pt->resource, r, rn) == 0);
}

static const kg_xf_rule *rule_for(const kg_transformer *t, const char *key, size_t klen)
{
    if (!t)
        return NULL;
    const char *g, *r;
    size_t gn, rn;
    if (!split_key(key, klen, &g, &gn, &r, &rn))
        return NULL;
    for (size_t i = 0; i < t->nrules; i++)
        for (size_t j = 0; j < t->rules[i].npatterns; j++)
            if (pattern_matches(&t->rules[i].patterns[j], g, gn, r, rn))
                return &t->rules[i];
    return NULL;
}

bool kg_transformer_applies(const kg_transformer *t, const char *key, size_t key_len)
{
    const kg_xf_rule *rule = rule_for(t, key, key_len);
    if (!rule)
        return false;
    for (size_t i = 0; i < rule->nkeys; i++)
        if (rule->keys[i].type != KG_XF_IDENTITY)
            return true;
    return false;
}

/* ---- ciphers ---- */

/* secretbox: nonce(24 random bytes) then the box (tag, ciphertext), as upstream; out has room for len + 40 */
static bool box_seal(const kg_xf_key *k, const unsigned char *in, size_t len, unsigned char *out, size_t *out_len,
                     kg_error *err)
{
    memcpy(out, k->prefix, k->plen);
    unsigned char *nonce = out + k->plen;
    if (RAND_bytes(nonce, KG_SECRETBOX_NONCE_BYTES) != 1)
        return kg_err_set(err, KG_EINTERNAL, "unable to read sufficient random bytes");
    if (!kg_secretbox_seal(nonce + KG_SECRETBOX_NONCE_BYTES, in, len, nonce, k->secret))
        return kg_err_set(err, KG_EINTERNAL, "secretbox encryption failed");
    *out_len = k->plen + KG_SECRETBOX_NONCE_BYTES + KG_SECRETBOX_OVERHEAD + len;
    return true;
}

static bool box_open(const kg_xf_key *k, const unsigned char *in, size_t len, unsigned char *out, size_t *out_len,
                     kg_error *err)
{
    if (len < KG_SECRETBOX_NONCE_BYTES + KG_SECRETBOX_OVERHEAD)
        return kg_err_set(err, KG_EINTERNAL, SHORT_DATA);
    /* upstream's text when secretbox.Open fails (wrong key, damaged data) */
    if (!kg_secretbox_open(out, in + KG_SECRETBOX_NONCE_BYTES, len - KG_SECRETBOX_NONCE_BYTES, in, k->secret))
        return kg_err_set(err, KG_EINTERNAL, "output array was not large enough for encryption");
    *out_len = len - KG_SECRETBOX_NONCE_BYTES - KG_SECRETBOX_OVERHEAD;
    return true;
}

static const EVP_CIPHER *aes(kg_xf_type type, size_t klen)
{
    if (type == KG_XF_AESCBC)
        return klen == 16 ? EVP_aes_128_cbc() : klen == 24 ? EVP_aes_192_cbc() : EVP_aes_256_cbc();
    return klen == 16 ? EVP_aes_128_gcm() : klen == 24 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
}

/* prefix + IV/nonce + ciphertext (+ tag) into out (room for plen + SEAL_OVERHEAD + len bytes) */
static bool seal(const kg_xf_key *k, const char *key, size_t klen, const unsigned char *in, size_t len,
                 unsigned char *out, size_t *out_len, kg_error *err)
{
    if (k->type == KG_XF_SECRETBOX)
        return box_seal(k, in, len, out, out_len, err);
    size_t ivlen = k->type == KG_XF_AESCBC ? 16 : 12;
    memcpy(out, k->prefix, k->plen);
    unsigned char *iv = out + k->plen, *ct = iv + ivlen;
    if (RAND_bytes(iv, (int)ivlen) != 1)
        return kg_err_set(err, KG_EINTERNAL, "failed to read random bytes for the IV");
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int n1 = 0, n2 = 0;
    bool ok = c && EVP_EncryptInit_ex(c, aes(k->type, k->secret_len), NULL, NULL, NULL) == 1;
    if (ok && k->type == KG_XF_AESGCM)
        ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, (int)ivlen, NULL) == 1;
    ok = ok && EVP_EncryptInit_ex(c, NULL, NULL, k->secret, iv) == 1;
    if (ok && k->type == KG_XF_AESGCM) /* upstream authenticates the storage key with the value */
        ok = EVP_EncryptUpdate(c, NULL, &n1, (const unsigned char *)key, (int)klen) == 1;
    ok = ok && EVP_EncryptUpdate(c, ct, &n1, in, (int)len) == 1 && EVP_EncryptFinal_ex(c, ct + n1, &n2) == 1;
    if (ok && k->type == KG_XF_AESGCM) {
        ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, ct + n1 + n2) == 1;
        n2 += 16;
    }
    EVP_CIPHER_CTX_free(c);
    if (!ok)
        return kg_err_set(err, KG_EINTERNAL, "%s encryption failed", k->type == KG_XF_AESCBC ? "aescbc" : "aesgcm");
    *out_len = k->plen + ivlen + (size_t)n1 + (size_t)n2;
    return true;
}

/* data after the prefix → plaintext in out (room for len bytes) */
static bool open_(const kg_xf_key *k, const char *key, size_t klen, const unsigned char *in, size_t len,
                  unsigned char *out, size_t *out_len, kg_error *err)
{
    if (k->type == KG_XF_SECRETBOX)
        return box_open(k, in, len, out, out_len, err);
    EVP_CIPHER_CTX *c = NULL;
    int n1 = 0, n2 = 0;
    bool ok;
    if (k->type == KG_XF_AESCBC) {
        if (len < 16)
            return kg_err_set(err, KG_EINTERNAL, SHORT_DATA);
        if ((len - 16) % 16 != 0)
            return kg_err_set(err, KG_EINTERNAL, "the stored data is not a multiple of the block size");
        if (len == 16)
            return kg_err_set(err, KG_EINTERNAL, "invalid PKCS7 data (empty or not padded)");
        c = EVP_CIPHER_CTX_new();
        ok = c && EVP_DecryptInit_ex(c, aes(k->type, k->secret_len), NULL, k->secret, in) == 1 &&
             EVP_DecryptUpdate(c, out, &n1, in + 16, (int)(len - 16)) == 1;
        if (ok && EVP_DecryptFinal_ex(c, out + n1, &n2) != 1) {
            EVP_CIPHER_CTX_free(c);
            return kg_err_set(err, KG_EINTERNAL, "invalid padding on input");
        }
    } else {
        if (len < 12 + 16)
            return kg_err_set(err, KG_EINTERNAL, SHORT_DATA);
        c = EVP_CIPHER_CTX_new();
        ok = c && EVP_DecryptInit_ex(c, aes(k->type, k->secret_len), NULL, NULL, NULL) == 1 &&
             EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1 &&
             EVP_DecryptInit_ex(c, NULL, NULL, k->secret, in) == 1 &&
             EVP_DecryptUpdate(c, NULL, &n1, (const unsigned char *)key, (int)klen) == 1 &&
             EVP_DecryptUpdate(c, out, &n1, in + 12, (int)(len - 12 - 16)) == 1 &&
             EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, 16, (void *)(in + len - 16)) == 1;
        if (ok && EVP_DecryptFinal_ex(c, out + n1, &n2) != 1) {
            EVP_CIPHER_CTX_free(c);
            return kg_err_set(err, KG_EINTERNAL, "cipher: message authentication failed");
        }
    }
    EVP_CIPHER_CTX_free(c);
    if (!ok)
        return kg_err_set(err, KG_EINTERNAL, "%s decryption failed", k->type == KG_XF_AESCBC ? "aescbc" : "aesgcm");
    *out_len = (size_t)n1 + (size_t)n2;
    return true;
}

bool kg_transformer_to_storage(const kg_transformer *t, const char *key, size_t key_len, const void *value, size_t len,
                               kg_arena *a, const char **out, size_t *out_len, kg_error *err)
{
    const kg_xf_rule *rule = rule_for(t, key, key_len);
    if (!rule || rule->keys[0].type == KG_XF_IDENTITY) {
        *out = value;
        *out_len = len;
        return true;
    }
    const kg_xf_key *k = &rule->keys[0];
    unsigned char *buf = kg_arena_alloc(a, k->plen + SEAL_OVERHEAD + len + 1);
    size_t n = 0;
    if (!seal(k, key, key_len, value, len, buf, &n, err))
        return false;
    buf[n] = 0;
    *out = (const char *)buf;
    *out_len = n;
    return true;
}

bool kg_transformer_from_storage(const kg_transformer *t, const char *key, size_t key_len, const void *value,
                                 size_t len, kg_arena *a, const char **out, size_t *out_len, bool *stale, kg_error *err)
{
    *stale = false;
    const kg_xf_rule *rule = rule_for(t, key, key_len);
    if (!rule) {
        *out = value;
        *out_len = len;
        return true;
    }
    /* upstream's prefix transformer: the first provider key whose prefix the data has reads it; identity
     * (empty prefix) reads anything not encrypted; read by any but the first: stale */
    for (size_t i = 0; i < rule->nkeys; i++) {
        const kg_xf_key *k = &rule->keys[i];
        if (k->type == KG_XF_IDENTITY) {
            if (kg_transformer_is_encrypted(value, len))
                continue; /* "identity transformer tried to read encrypted data" */
            *out = value;
            *out_len = len;
            *stale = i != 0;
            return true;
        }
        if (len < k->plen || memcmp(value, k->prefix, k->plen) != 0)
            continue;
        unsigned char *buf = kg_arena_alloc(a, len + 1);
        size_t n = 0;
        if (!open_(k, key, key_len, (const unsigned char *)value + k->plen, len - k->plen, buf, &n, err))
            return false;
        buf[n] = 0;
        *out = (const char *)buf;
        *out_len = n;
        *stale = i != 0;
        return true;
    }
    return kg_err_set(err, KG_EINTERNAL, "no matching prefix found");
}
