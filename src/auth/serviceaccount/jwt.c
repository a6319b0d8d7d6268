/* Compact JWS signing and verification (see jwt.h). */
#include "auth/serviceaccount/jwt.h"

#include <string.h>

#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "base/base64.h"
#include "base/buf.h"

#define B64 (KG_BASE64_URL | KG_BASE64_RAW)

static const EVP_MD *alg_md(const char *alg)
{
    if (!strcmp(alg, "RS256") || !strcmp(alg, "ES256"))
        return EVP_sha256();
    if (!strcmp(alg, "ES384"))
        return EVP_sha384();
    if (!strcmp(alg, "ES512"))
        return EVP_sha512();
    return NULL;
}

/* Width in bytes of r and s for an ECDSA algorithm (0: not ECDSA). */
static size_t ec_width(const char *alg)
{
    return !strcmp(alg, "ES256") ? 32 : !strcmp(alg, "ES384") ? 48 : !strcmp(alg, "ES512") ? 66 : 0;
}

char *kg_jwt_sign(kg_arena *a, const kg_sa_key *key, const kg_json *claims, kg_error *err)
{
    if (!key->pkey) {
        kg_err_set(err, KG_EINVAL, "no signing key");
        return NULL;
    }
    kg_buf hdr = KG_BUF_INIT, b = KG_BUF_INIT;
    kg_buf_printf(&hdr, "{\"alg\":\"%s\",\"kid\":\"%s\"}", key->alg, key->kid);
    kg_base64_encode_buf(&b, hdr.data, hdr.len, B64);
    kg_buf_putc(&b, '.');
    size_t clen = 0;
    char *cjson = kg_json_to_string(a, claims, 0, &clen);
    kg_base64_encode_buf(&b, cjson, clen, B64);
    kg_buf_free(&hdr);

    unsigned char sig[1024];
    size_t slen = sizeof sig;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    bool ok = md && EVP_DigestSignInit(md, NULL, alg_md(key->alg), NULL, key->pkey) == 1 &&
              EVP_DigestSign(md, sig, &slen, (const unsigned char *)b.data, b.len) == 1;
    EVP_MD_CTX_free(md);
    size_t w = ec_width(key->alg);
    unsigned char raw[132];
    const unsigned char *out = sig;
    if (ok && w) { /* DER ECDSA-Sig-Value → r||s */
        const unsigned char *p = sig;
        ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)slen);
        ok = es && BN_bn2binpad(ECDSA_SIG_get0_r(es), raw, (int)w) == (int)w &&
             BN_bn2binpad(ECDSA_SIG_get0_s(es), raw + w, (int)w) == (int)w;
        ECDSA_SIG_free(es);
        out = raw;
        slen = 2 * w;
    }
    if (!ok) {
        ERR_clear_error();
        kg_buf_free(&b);
        kg_err_set(err, KG_EINTERNAL, "signing the token failed");
        return NULL;
    }
    kg_buf_putc(&b, '.');
    kg_base64_encode_buf(&b, out, slen, B64);
    char *r = kg_arena_strndup(a, b.data, b.len);
    kg_buf_free(&b);
    return r;
}

static kg_json *decode_part(kg_arena *a, const char *s, size_t n)
{
    size_t dl = 0;
    char *d = kg_base64_decode(a, s, n, B64, &dl, NULL);
    if (!d)
        return NULL;
    KG_ERROR_DECL(err);
    kg_json *j = kg_json_parse(a, d, dl, &err);
    return kg_json_is(j, KG_JSON_OBJECT) ? j : NULL;
}

const char *kg_jwt_peek_issuer(kg_arena *a, const char *token, size_t len)
{
    const char *d1 = memchr(token, '.', len);
    if (!d1)
        return "";
    const char *d2 = memchr(d1 + 1, '.', len - (size_t)(d1 + 1 - token));
    if (!d2 || memchr(d2 + 1, '.', len - (size_t)(d2 + 1 - token)))
        return "";
    kg_json *c = decode_part(a, d1 + 1, (size_t)(d2 - d1 - 1));
    const char *iss = kg_json_get_str(c, "iss");
    return iss ? iss : "";
}

bool kg_jwt_parse(kg_arena *a, const char *token, size_t len, kg_jwt *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    const char *d1 = memchr(token, '.', len);
    const char *d2 = d1 ? memchr(d1 + 1, '.', len - (size_t)(d1 + 1 - token)) : NULL;
    if (!d2 || memchr(d2 + 1, '.', len - (size_t)(d2 + 1 - token)))
        return kg_err_set(err, KG_EINVAL, "compact JWS format must have three parts");
    out->header = decode_part(a, token, (size_t)(d1 - token));
    out->claims = decode_part(a, d1 + 1, (size_t)(d2 - d1 - 1));
    if (!out->header || !out->claims)
        return kg_err_set(err, KG_EINVAL, "malformed JWS");
    out->alg = kg_json_get_str(out->header, "alg");
    out->kid = kg_json_get_str(out->header, "kid");
    if (!out->alg || !alg_md(out->alg))
        return kg_err_set(err, KG_EINVAL, "unexpected signature algorithm \"%s\"; expected [ES256 ES384 ES512 RS256]",
                          out->alg ? out->alg : "");
    out->signing_input = token;
    out->signing_len = (size_t)(d2 - token);
    const char *s = d2 + 1;
    size_t sl = len - (size_t)(s - token);
    out->sig = (unsigned char *)kg_base64_decode(a, s, sl, B64, &out->sig_len, NULL);
    if (!out->sig)
        return kg_err_set(err, KG_EINVAL, "malformed JWS signature");
    return true;
}

static bool verify_one(const kg_jwt *t, const kg_sa_key *k)
{
    const unsigned char *sig = t->sig;
    size_t sl = t->sig_len;
    unsigned char *der = NULL;
    size_t w = ec_width(t->alg);
    if (w) { /* r||s → DER */
        if (sl != 2 * w)
            return false;
        ECDSA_SIG *es = ECDSA_SIG_new();
        ECDSA_SIG_set0(es, BN_bin2bn(sig, (int)w, NULL), BN_bin2bn(sig + w, (int)w, NULL));
        int n = i2d_ECDSA_SIG(es, &der);
        ECDSA_SIG_free(es);
        if (n <= 0)
            return false;
        sig = der;
        sl = (size_t)n;
    }
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    bool ok = md && EVP_DigestVerifyInit(md, NULL, alg_md(t->alg), NULL, k->pkey) == 1 &&
              EVP_DigestVerify(md, sig, sl, (const unsigned char *)t->signing_input, t->signing_len) == 1;
    EVP_MD_CTX_free(md);
    OPENSSL_free(der);
    ERR_clear_error();
    return ok;
}

bool kg_jwt_verify(const kg_jwt *t, const kg_sa_key *keys, size_t nkeys, kg_error *err)
{
    size_t tried = 0;
    for (size_t i = 0; i < nkeys; i++) {
        if (t->kid && strcmp(t->kid, keys[i].kid))
            continue;
        if (strcmp(t->alg, keys[i].alg))
            continue;
        tried++;
        if (verify_one(t, &keys[i]))
            return true;
    }
    if (!tried)
        return kg_err_set(err, KG_EINVAL, "invalid signature, no keys found");
    return kg_err_set(err, KG_EINVAL, "error in cryptographic primitive");
}
