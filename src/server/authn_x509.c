/* Client-certificate authentication (see authn_x509.h). */
#include "server/authn_x509.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#define MAX_CHAIN 16
#define MAX_GROUPS 64

struct kg_x509_authn {
    X509_STORE *store; /* the client CAs; read-only after creation (X509_STORE lookups are thread-safe) */
};

kg_x509_authn *kg_x509_authn_new(const char *ca_pem, kg_error *err)
{
    X509_STORE *store = X509_STORE_new();
    BIO *bio = BIO_new_mem_buf(ca_pem, -1);
    if (!store || !bio)
        abort();
    int n = 0;
    X509 *c;
    while ((c = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        X509_STORE_add_cert(store, c);
        X509_free(c);
        n++;
    }
    BIO_free(bio);
    ERR_clear_error(); /* the end of the PEM data */
    if (!n) {
        X509_STORE_free(store);
        kg_err_set(err, KG_EINVAL, "client CA bundle: no certificate found");
        return NULL;
    }
    kg_x509_authn *x = calloc(1, sizeof(*x));
    if (!x)
        abort();
    x->store = store;
    return x;
}

void kg_x509_authn_free(kg_x509_authn *x)
{
    if (!x)
        return;
    X509_STORE_free(x->store);
    free(x);
}

/* The UTF-8 value of a name entry, in the arena. */
static const char *entry_utf8(X509_NAME_ENTRY *e, kg_arena *a)
{
    unsigned char *u = NULL;
    int n = ASN1_STRING_to_UTF8(&u, X509_NAME_ENTRY_get_data(e));
    if (n < 0)
        return NULL;
    const char *s = kg_arena_strndup(a, (const char *)u, (size_t)n);
    OPENSSL_free(u);
    return s;
}

/* Upstream's certificateIdentifier: "SN=<serial>, SKID=<hex>, AKID=<hex>". */
static const char *cert_id(X509 *leaf, kg_arena *a)
{
    const char *sn = "?";
    BIGNUM *bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(leaf), NULL);
    if (bn) {
        char *d = BN_bn2dec(bn);
        if (d) {
            sn = kg_arena_strdup(a, d);
            OPENSSL_free(d);
        }
        BN_free(bn);
    }
    const ASN1_OCTET_STRING *sk = X509_get0_subject_key_id(leaf);
    const ASN1_OCTET_STRING *ak = X509_get0_authority_key_id(leaf);
    char skid[3 * 64 + 1] = "", akid[3 * 64 + 1] = "";
    for (int i = 0; sk && i < ASN1_STRING_length(sk) && i < 64; i++)
        snprintf(skid + 3 * i, 4, "%s%02x", i ? ":" : "", ASN1_STRING_get0_data(sk)[i]);
    for (int i = 0; ak && i < ASN1_STRING_length(ak) && i < 64; i++)
        snprintf(akid + 3 * i, 4, "%s%02x", i ? ":" : "", ASN1_STRING_get0_data(ak)[i]);
    return kg_arena_sprintf(a, "SN=%s, SKID=%s, AKID=%s", sn, skid, akid);
}

kg_x509_verdict kg_x509_authn_verify(const kg_x509_authn *x, const kg_x509_chain *chain, int64_t now_unix, kg_arena *a,
                                     kg_user_info *out, const char **reason)
{
    if (!x || !chain || !chain->n)
        return KG_X509_NONE;
    X509 *certs[MAX_CHAIN];
    size_t n = chain->n < MAX_CHAIN ? chain->n : MAX_CHAIN;
    size_t got = 0;
    for (; got < n; got++) {
        const unsigned char *p = chain->der[got];
        certs[got] = d2i_X509(NULL, &p, (long)chain->len[got]);
        if (!certs[got])
            break;
    }
    kg_x509_verdict v = KG_X509_INVALID;
    STACK_OF(X509) *inter = NULL;
    X509_STORE_CTX *ctx = NULL;
    if (got < n) {
        *reason = "x509: malformed certificate";
        goto done;
    }
    inter = sk_X509_new_null();
    for (size_t i = 1; i < n; i++)
        sk_X509_push(inter, certs[i]);
    ctx = X509_STORE_CTX_new();
    if (!ctx || !inter || X509_STORE_CTX_init(ctx, x->store, certs[0], inter) != 1)
        abort();
    X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_CLIENT);
    if (now_unix)
        X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(ctx), (time_t)now_unix);
    if (X509_verify_cert(ctx) != 1) {
        int e = X509_STORE_CTX_get_error(ctx);
        *reason = kg_arena_sprintf(a, "verifying certificate %s failed: x509: %s", cert_id(certs[0], a),
                                   e == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY ||
                                           e == X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT ||
                                           e == X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN
                                       ? "certificate signed by unknown authority"
                                       : X509_verify_cert_error_string(e));
        ERR_clear_error();
        goto done;
    }
    /* CommonNameUserConversion: user = CN (none: not a user), groups = O values */
    X509_NAME *subj = X509_get_subject_name(certs[0]);
    int cn = X509_NAME_get_index_by_NID(subj, NID_commonName, -1);
    const char *name = cn >= 0 ? entry_utf8(X509_NAME_get_entry(subj, cn), a) : NULL;
    if (!name || !*name) {
        v = KG_X509_NONE;
        goto done;
    }
    const char *groups[MAX_GROUPS];
    size_t ng = 0;
    for (int i = -1; ng < MAX_GROUPS && (i = X509_NAME_get_index_by_NID(subj, NID_organizationName, i)) >= 0;) {
        const char *g = entry_utf8(X509_NAME_get_entry(subj, i), a);
        if (g)
            groups[ng++] = g;
    }
    const char **gs = ng ? kg_arena_alloc(a, ng * sizeof(*gs)) : NULL;
    if (ng)
        memcpy(gs, groups, ng * sizeof(*gs));
    memset(out, 0, sizeof(*out));
    out->name = name;
    out->uid = "";
    out->groups = gs;
    out->ngroups = ng;
    v = KG_X509_OK;
done:
    X509_STORE_CTX_free(ctx);
    sk_X509_free(inter);
    for (size_t i = 0; i < got; i++)
        X509_free(certs[i]);
    return v;
}
