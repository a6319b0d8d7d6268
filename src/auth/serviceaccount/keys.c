/* Service-account token keys: loading, generation, key ids and the JWKS document (see keys.h). */
#include "auth/serviceaccount/keys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "base/base64.h"
#include "base/buf.h"
#include "base/log.h"

#define GENERATED_KEY "sa.key"

static bool ossl_fail(kg_error *err, const char *what)
{
    unsigned long e = ERR_get_error();
    char buf[256] = "unknown error";
    if (e)
        ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    return kg_err_set(err, KG_EINVAL, "%s: %s", what, buf);
}

/* Never let OpenSSL prompt for a passphrase: encrypted keys are not supported. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf, (void)size, (void)rwflag, (void)u;
    return -1;
}

bool kg_sa_key_init(kg_sa_key *k, kg_sa_pkey *pkey, kg_error *err)
{
    memset(k, 0, sizeof *k);
    const char *alg = NULL;
    if (EVP_PKEY_is_a(pkey, "RSA") || EVP_PKEY_is_a(pkey, "RSA-PSS")) {
        alg = "RS256";
    } else if (EVP_PKEY_is_a(pkey, "EC")) {
        char curve[64] = "";
        size_t cl = 0;
        EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, curve, sizeof curve, &cl);
        if (!strcmp(curve, "prime256v1") || !strcmp(curve, "P-256"))
            alg = "ES256";
        else if (!strcmp(curve, "secp384r1") || !strcmp(curve, "P-384"))
            alg = "ES384";
        else if (!strcmp(curve, "secp521r1") || !strcmp(curve, "P-521"))
            alg = "ES512";
        else {
            EVP_PKEY_free(pkey);
            return kg_err_set(err, KG_EINVAL, "unsupported ECDSA curve %s", curve);
        }
    } else {
        EVP_PKEY_free(pkey);
        return kg_err_set(err, KG_EINVAL, "unsupported key type (want RSA or ECDSA)");
    }
    unsigned char *der = NULL;
    int n = i2d_PUBKEY(pkey, &der);
    if (n <= 0) {
        EVP_PKEY_free(pkey);
        return ossl_fail(err, "encoding the public key");
    }
    unsigned char sum[32];
    unsigned int sl = 0;
    EVP_Digest(der, (size_t)n, sum, &sl, EVP_sha256(), NULL);
    OPENSSL_free(der);
    kg_base64_encode_to(k->kid, sum, sizeof sum, KG_BASE64_URL | KG_BASE64_RAW);
    snprintf(k->alg, sizeof k->alg, "%s", alg);
    k->pkey = pkey;
    return true;
}

/* Every key of a PEM text: private keys, public keys and certificates, in order. */
static bool add_pem_keys(kg_sa_keys *ks, const char *pem, size_t len, const char *what, kg_error *err)
{
    BIO *b = BIO_new_mem_buf(pem, (int)len);
    size_t before = ks->nverify;
    char *name = NULL, *header = NULL;
    unsigned char *data = NULL;
    long dlen = 0;
    bool ok = true;
    while (ok && PEM_read_bio(b, &name, &header, &data, &dlen)) {
        const unsigned char *p = data;
        EVP_PKEY *k = NULL;
        if (!strcmp(name, "PUBLIC KEY")) {
            k = d2i_PUBKEY(NULL, &p, dlen);
        } else if (!strcmp(name, "RSA PUBLIC KEY")) {
            k = d2i_PublicKey(EVP_PKEY_RSA, NULL, &p, dlen);
        } else if (!strcmp(name, "CERTIFICATE")) {
            X509 *x = d2i_X509(NULL, &p, dlen);
            if (x) {
                k = X509_get_pubkey(x);
                X509_free(x);
            }
        } else if (strstr(name, "PRIVATE KEY")) {
            BIO *kb = BIO_new(BIO_s_mem());
            PEM_write_bio(kb, name, header, data, dlen);
            k = PEM_read_bio_PrivateKey(kb, NULL, no_passphrase, NULL);
            BIO_free(kb);
        }
        if (k) {
            ks->verify = realloc(ks->verify, (ks->nverify + 1) * sizeof *ks->verify);
            if (!ks->verify)
                abort();
            if (!kg_sa_key_init(&ks->verify[ks->nverify], k, err)) {
                kg_err_prefix(err, "%s", what);
                ok = false;
            } else {
                ks->nverify++;
            }
        } else if (strstr(name, "KEY") || !strcmp(name, "CERTIFICATE")) {
            ok = ossl_fail(err, what);
        }
        OPENSSL_free(name);
        OPENSSL_free(header);
        OPENSSL_free(data);
        name = header = NULL;
        data = NULL;
    }
    ERR_clear_error();
    BIO_free(b);
    if (ok && ks->nverify == before)
        return kg_err_set(err, KG_EINVAL, "%s: no public keys found", what);
    return ok;
}

static bool set_signing(kg_sa_keys *ks, const char *pem, const char *what, kg_error *err)
{
    BIO *b = BIO_new_mem_buf(pem, -1);
    EVP_PKEY *k = PEM_read_bio_PrivateKey(b, NULL, no_passphrase, NULL);
    BIO_free(b);
    if (!k)
        return ossl_fail(err, what);
    if (!kg_sa_key_init(&ks->signing, k, err))
        return kg_err_prefix(err, "%s", what);
    return true;
}

kg_sa_keys *kg_sa_keys_from_pem(const char *signing_pem, const char *const *verify_pems, size_t n, kg_error *err)
{
    kg_sa_keys *ks = calloc(1, sizeof *ks);
    if (!ks)
        abort();
    if (signing_pem && !set_signing(ks, signing_pem, "signing key", err))
        goto fail;
    for (size_t i = 0; i < n; i++)
        if (!add_pem_keys(ks, verify_pems[i], strlen(verify_pems[i]), "verification key", err))
            goto fail;
    if (!n && signing_pem && !add_pem_keys(ks, signing_pem, strlen(signing_pem), "signing key", err))
        goto fail;
    return ks;
fail:
    kg_sa_keys_free(ks);
    return NULL;
}

static char *read_file(const char *path, size_t *len, kg_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        kg_err_set(err, errno == ENOENT ? KG_ENOTFOUND : KG_EIO, "open %s: %s", path, strerror(errno));
        return NULL;
    }
    kg_buf b = KG_BUF_INIT;
    char tmp[4096];
    size_t r;
    while ((r = fread(tmp, 1, sizeof tmp, f)) > 0 && b.len < (1u << 20))
        kg_buf_append(&b, tmp, r);
    fclose(f);
    kg_buf_cstr(&b);
    return kg_buf_steal(&b, len);
}

/* Write atomically with mode (temporary file, fsync, rename). */
static bool write_atomic(const char *path, const char *data, size_t len, mode_t mode, kg_error *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0)
        return kg_err_set(err, KG_EIO, "open %s: %s", tmp, strerror(errno));
    size_t off = 0;
    bool ok = true;
    while (ok && off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno != EINTR)
            ok = false;
        else if (w > 0)
            off += (size_t)w;
    }
    ok = ok && fsync(fd) == 0;
    int e = errno;
    close(fd);
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        unlink(tmp);
        return kg_err_set(err, KG_EIO, "write %s: %s", path, strerror(e));
    }
    return true;
}

char *kg_sa_keys_generate_pem(void)
{
    EVP_PKEY *k = EVP_RSA_gen(2048);
    if (!k)
        return NULL;
    BIO *b = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL);
    char *p = NULL;
    long n = BIO_get_mem_data(b, &p);
    char *r = malloc((size_t)n + 1);
    if (!r)
        abort();
    memcpy(r, p, (size_t)n);
    r[n] = 0;
    BIO_free(b);
    EVP_PKEY_free(k);
    return r;
}

kg_sa_keys *kg_sa_keys_load(const kg_sa_keys_config *cfg, kg_error *err)
{
    char *signing = NULL;
    size_t len = 0;
    char path[4096];
    if (cfg->signing_key_file) {
        signing = read_file(cfg->signing_key_file, &len, err);
        if (!signing)
            return NULL;
        snprintf(path, sizeof path, "%s", cfg->signing_key_file);
    } else if (cfg->data_dir && !cfg->nkey_files) {
        snprintf(path, sizeof path, "%s/%s", cfg->data_dir, GENERATED_KEY);
        signing = read_file(path, &len, err);
        if (!signing && err->code == KG_ENOTFOUND) {
            kg_err_clear(err);
            signing = kg_sa_keys_generate_pem();
            if (!signing) {
                ossl_fail(err, "generating the service-account signing key");
                return NULL;
            }
            if (!write_atomic(path, signing, strlen(signing), 0600, err)) {
                free(signing);
                return NULL;
            }
            KG_INFO("generated the service-account signing key %s", path);
        } else if (!signing) {
            return NULL;
        }
    }
    kg_sa_keys *ks = calloc(1, sizeof *ks);
    if (!ks)
        abort();
    if (signing && !set_signing(ks, signing, path, err))
        goto fail;
    for (size_t i = 0; i < cfg->nkey_files; i++) {
        char *pem = read_file(cfg->key_files[i], &len, err);
        if (!pem)
            goto fail;
        bool ok = add_pem_keys(ks, pem, len, cfg->key_files[i], err);
        free(pem);
        if (!ok)
            goto fail;
    }
    if (!cfg->nkey_files && signing && !add_pem_keys(ks, signing, strlen(signing), path, err))
        goto fail;
    free(signing);
    return ks;
fail:
    free(signing);
    kg_sa_keys_free(ks);
    return NULL;
}

void kg_sa_keys_free(kg_sa_keys *k)
{
    if (!k)
        return;
    EVP_PKEY_free(k->signing.pkey);
    for (size_t i = 0; i < k->nverify; i++)
        EVP_PKEY_free(k->verify[i].pkey);
    free(k->verify);
    free(k);
}

/* A big-endian unsigned parameter as base64url; pad to width bytes when width > 0 (EC coordinates). */
static kg_json *bn_b64(kg_arena *a, EVP_PKEY *k, const char *param, size_t width)
{
    BIGNUM *bn = NULL;
    if (!EVP_PKEY_get_bn_param(k, param, &bn))
        return kg_json_new_str(a, "");
    size_t n = (size_t)BN_num_bytes(bn);
    size_t w = width > n ? width : n;
    unsigned char *buf = kg_arena_alloc(a, w ? w : 1);
    BN_bn2binpad(bn, buf, (int)w);
    BN_free(bn);
    size_t el = 0;
    char *enc = kg_base64_encode(a, buf, w, KG_BASE64_URL | KG_BASE64_RAW, &el);
    return kg_json_new_str_ref(a, enc, el);
}

kg_json *kg_sa_keys_jwks(const kg_sa_keys *k, kg_arena *a)
{
    kg_json *keys = kg_json_new_array(a);
    for (size_t i = 0; i < k->nverify; i++) {
        const kg_sa_key *key = &k->verify[i];
        bool dup = false;
        for (size_t j = 0; j < i; j++)
            dup = dup || !strcmp(k->verify[j].kid, key->kid);
        if (dup)
            continue;
        kg_json *o = kg_json_new_object(a);
        bool ec = key->alg[0] == 'E';
        kg_json_set(a, o, "use", kg_json_new_str(a, "sig"));
        kg_json_set(a, o, "kty", kg_json_new_str(a, ec ? "EC" : "RSA"));
        kg_json_set(a, o, "kid", kg_json_new_str(a, key->kid));
        size_t width = 0;
        if (ec) {
            const char *crv = !strcmp(key->alg, "ES256") ? "P-256" : !strcmp(key->alg, "ES384") ? "P-384" : "P-521";
            width = !strcmp(key->alg, "ES256") ? 32 : !strcmp(key->alg, "ES384") ? 48 : 66;
            kg_json_set(a, o, "crv", kg_json_new_str(a, crv));
        }
        kg_json_set(a, o, "alg", kg_json_new_str(a, key->alg));
        if (ec) {
            kg_json_set(a, o, "x", bn_b64(a, key->pkey, OSSL_PKEY_PARAM_EC_PUB_X, width));
            kg_json_set(a, o, "y", bn_b64(a, key->pkey, OSSL_PKEY_PARAM_EC_PUB_Y, width));
        } else {
            kg_json_set(a, o, "n", bn_b64(a, key->pkey, OSSL_PKEY_PARAM_RSA_N, 0));
            kg_json_set(a, o, "e", bn_b64(a, key->pkey, OSSL_PKEY_PARAM_RSA_E, 0));
        }
        kg_json_array_append(a, keys, o);
    }
    kg_json *doc = kg_json_new_object(a);
    kg_json_set(a, doc, "keys", keys);
    return doc;
}

kg_json *kg_sa_keys_algs(const kg_sa_keys *k, kg_arena *a)
{
    static const char *const order[] = {"ES256", "ES384", "ES512", "RS256"}; /* sorted */
    kg_json *arr = kg_json_new_array(a);
    for (size_t o = 0; o < 4; o++)
        for (size_t i = 0; i < k->nverify; i++)
            if (!strcmp(k->verify[i].alg, order[o])) {
                kg_json_array_append(a, arr, kg_json_new_str(a, order[o]));
                break;
            }
    return arr;
}
