/* x509 client-certificate authentication (authn_x509.h): chains, validity, key usage, CN/O mapping, and the place
 * of the certificate in the authentication chain. Certificates are made here with OpenSSL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "server/authn.h"
#include "server/authn_x509.h"

typedef struct cert {
    X509 *x;
    EVP_PKEY *k;
} cert;

static EVP_PKEY *ec_key(void)
{
    EVP_PKEY *k = EVP_EC_gen("P-256");
    assert_non_null(k);
    return k;
}

static void add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
    X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    assert_non_null(e);
    X509_add_ext(x, e, -1);
    X509_EXTENSION_free(e);
}

/* subject: "CN" then O values; issuer NULL = self-signed CA. Valid from now+from_s to now+to_s. eku: NULL = none. */
static cert make(const char *cn, const char *const *orgs, size_t norgs, const cert *issuer, bool ca, long from_s,
                 long to_s, const char *eku)
{
    static long serial = 1;
    cert c = {X509_new(), ec_key()};
    X509_set_version(c.x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(c.x), serial++);
    X509_gmtime_adj(X509_getm_notBefore(c.x), from_s);
    X509_gmtime_adj(X509_getm_notAfter(c.x), to_s);
    X509_set_pubkey(c.x, c.k);
    X509_NAME *n = X509_get_subject_name(c.x);
    for (size_t i = 0; i < norgs; i++)
        X509_NAME_add_entry_by_txt(n, "O", MBSTRING_UTF8, (const unsigned char *)orgs[i], -1, -1, 0);
    if (cn)
        X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_UTF8, (const unsigned char *)cn, -1, -1, 0);
    X509_set_issuer_name(c.x, issuer ? X509_get_subject_name(issuer->x) : n);
    X509 *ix = issuer ? issuer->x : c.x;
    add_ext(c.x, ix, NID_subject_key_identifier, "hash");
    add_ext(c.x, ix, NID_authority_key_identifier, "keyid:always");
    if (ca) {
        add_ext(c.x, ix, NID_basic_constraints, "critical,CA:TRUE");
        add_ext(c.x, ix, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
    } else {
        add_ext(c.x, ix, NID_key_usage, "critical,digitalSignature");
    }
    if (eku)
        add_ext(c.x, ix, NID_ext_key_usage, eku);
    assert_true(X509_sign(c.x, issuer ? issuer->k : c.k, EVP_sha256()) > 0);
    return c;
}

static void cert_free(cert *c)
{
    X509_free(c->x);
    EVP_PKEY_free(c->k);
}

static char *pem(const cert *c)
{
    BIO *b = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(b, c->x);
    char *p;
    long n = BIO_get_mem_data(b, &p);
    char *s = strndup(p, (size_t)n);
    BIO_free(b);
    return s;
}

/* DER chain holder */
typedef struct chain {
    unsigned char *der[4];
    size_t len[4];
    size_t n;
    kg_x509_chain c;
} chain;

static void chain_of(chain *ch, const cert *const *certs, size_t n)
{
    ch->n = n;
    for (size_t i = 0; i < n; i++) {
        ch->der[i] = NULL;
        int l = i2d_X509(certs[i]->x, &ch->der[i]);
        assert_true(l > 0);
        ch->len[i] = (size_t)l;
    }
    ch->c = (kg_x509_chain){(const unsigned char *const *)ch->der, ch->len, n};
}

static void chain_free(chain *ch)
{
    for (size_t i = 0; i < ch->n; i++)
        OPENSSL_free(ch->der[i]);
}

static cert ca, other_ca, inter;
static char *ca_pem;

static int setup(void **state)
{
    (void)state;
    ca = make("test-ca", NULL, 0, NULL, true, -3600, 86400, NULL);
    other_ca = make("other-ca", NULL, 0, NULL, true, -3600, 86400, NULL);
    inter = make("intermediate", NULL, 0, &ca, true, -3600, 86400, NULL);
    ca_pem = pem(&ca);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cert_free(&ca);
    cert_free(&other_ca);
    cert_free(&inter);
    free(ca_pem);
    return 0;
}

static kg_x509_verdict verify1(const cert *leaf, const cert *mid, int64_t now, kg_arena *a, kg_user_info *u,
                               const char **reason)
{
    kg_error err = {0};
    kg_x509_authn *x = kg_x509_authn_new(ca_pem, &err);
    assert_non_null(x);
    const cert *cs[2] = {leaf, mid};
    chain ch;
    chain_of(&ch, cs, mid ? 2 : 1);
    kg_x509_verdict v = kg_x509_authn_verify(x, &ch.c, now, a, u, reason);
    chain_free(&ch);
    kg_x509_authn_free(x);
    return v;
}

static void test_cn_and_orgs(void **state)
{
    (void)state;
    static const char *const orgs[] = {"devs", "qa"};
    cert leaf = make("alice", orgs, 2, &ca, false, -60, 3600, "clientAuth");
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_user_info u;
    const char *reason = NULL;
    assert_int_equal(verify1(&leaf, NULL, 0, &a, &u, &reason), KG_X509_OK);
    assert_string_equal(u.name, "alice");
    assert_int_equal(u.ngroups, 2);
    assert_string_equal(u.groups[0], "devs");
    assert_string_equal(u.groups[1], "qa");
    cert_free(&leaf);
    kg_arena_free(&a);
}

static void test_intermediate_and_no_eku(void **state)
{
    (void)state;
    /* signed by an intermediate the client presents; no extended key usage at all is fine (any usage) */
    cert leaf = make("bob", NULL, 0, &inter, false, -60, 3600, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_user_info u;
    const char *reason = NULL;
    assert_int_equal(verify1(&leaf, &inter, 0, &a, &u, &reason), KG_X509_OK);
    assert_string_equal(u.name, "bob");
    assert_int_equal(u.ngroups, 0);
    /* without the intermediate the chain does not reach the CA */
    assert_int_equal(verify1(&leaf, NULL, 0, &a, &u, &reason), KG_X509_INVALID);
    assert_non_null(strstr(reason, "certificate signed by unknown authority"));
    cert_free(&leaf);
    kg_arena_free(&a);
}

static void test_rejections(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_user_info u;
    const char *reason = NULL;
    static const char *const masters[] = {"system:masters"};
    /* another CA */
    cert m = make("mallory", masters, 1, &other_ca, false, -60, 3600, "clientAuth");
    assert_int_equal(verify1(&m, NULL, 0, &a, &u, &reason), KG_X509_INVALID);
    assert_non_null(strstr(reason, "verifying certificate SN="));
    assert_non_null(strstr(reason, "certificate signed by unknown authority"));
    /* expired, and not yet valid */
    cert old = make("old", NULL, 0, &ca, false, -7200, -3600, "clientAuth");
    assert_int_equal(verify1(&old, NULL, 0, &a, &u, &reason), KG_X509_INVALID);
    assert_non_null(strstr(reason, "expired"));
    cert young = make("young", NULL, 0, &ca, false, 3600, 7200, "clientAuth");
    assert_int_equal(verify1(&young, NULL, 0, &a, &u, &reason), KG_X509_INVALID);
    /* ... which is valid at a time inside its period */
    assert_int_equal(verify1(&young, NULL, (int64_t)time(NULL) + 5400, &a, &u, &reason), KG_X509_OK);
    /* a serving-only certificate is not a client certificate */
    cert srv = make("server", NULL, 0, &ca, false, -60, 3600, "serverAuth");
    assert_int_equal(verify1(&srv, NULL, 0, &a, &u, &reason), KG_X509_INVALID);
    /* verified but without a CommonName: nobody (the next authenticator decides) */
    static const char *const o[] = {"devs"};
    cert nocn = make(NULL, o, 1, &ca, false, -60, 3600, "clientAuth");
    assert_int_equal(verify1(&nocn, NULL, 0, &a, &u, &reason), KG_X509_NONE);
    /* garbage DER */
    kg_error err = {0};
    kg_x509_authn *x = kg_x509_authn_new(ca_pem, &err);
    const unsigned char junk[] = {0x30, 0x03, 0x02, 0x01};
    const unsigned char *jp[1] = {junk};
    size_t jl[1] = {sizeof(junk)};
    kg_x509_chain jc = {jp, jl, 1};
    assert_int_equal(kg_x509_authn_verify(x, &jc, 0, &a, &u, &reason), KG_X509_INVALID);
    /* no certificate */
    kg_x509_chain none = {NULL, NULL, 0};
    assert_int_equal(kg_x509_authn_verify(x, &none, 0, &a, &u, &reason), KG_X509_NONE);
    kg_x509_authn_free(x);
    assert_null(kg_x509_authn_new("not a pem", &err));
    assert_non_null(strstr(err.msg, "client CA bundle"));
    cert_free(&m);
    cert_free(&old);
    cert_free(&young);
    cert_free(&srv);
    cert_free(&nocn);
    kg_arena_free(&a);
}

/* The chain order: certificate first; a bad certificate is 401 unless a token authenticates; anonymous otherwise. */
static void test_in_chain(void **state)
{
    (void)state;
    char dir[] = "/tmp/kg-x509-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], tokens[128];
    snprintf(path, sizeof path, "%s/ca.crt", dir);
    snprintf(tokens, sizeof tokens, "%s/tokens.csv", dir);
    FILE *f = fopen(path, "w");
    fputs(ca_pem, f);
    fclose(f);
    f = fopen(tokens, "w");
    fputs("tok,bob,1\n", f);
    fclose(f);
    kg_authn_config cfg = {.client_ca_file = path, .token_auth_file = tokens, .anonymous_auth = true};
    kg_error err = {0};
    kg_authn *an = kg_authn_new(&cfg, &err);
    assert_non_null(an);
    assert_non_null(kg_authn_client_ca_pem(an));
    static const char *const orgs[] = {"devs"};
    cert good = make("alice", orgs, 1, &ca, false, -60, 3600, "clientAuth");
    cert bad = make("mallory", NULL, 0, &other_ca, false, -60, 3600, "clientAuth");
    const cert *g1[1] = {&good}, *b1[1] = {&bad};
    chain gc, bc;
    chain_of(&gc, g1, 1);
    chain_of(&bc, b1, 1);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_user u;
    /* certificate wins over a token */
    assert_int_equal(kg_authn_authenticate_request(an, &gc.c, "Bearer tok", &a, &u), KG_AUTHN_OK);
    assert_string_equal(u.name, "alice");
    assert_int_equal(u.ngroups, 2);
    assert_string_equal(u.groups[1], "system:authenticated");
    /* bad certificate + good token: the token authenticates (union) */
    assert_int_equal(kg_authn_authenticate_request(an, &bc.c, "Bearer tok", &a, &u), KG_AUTHN_OK);
    assert_string_equal(u.name, "bob");
    /* bad certificate alone: 401 although anonymous is on */
    assert_int_equal(kg_authn_authenticate_request(an, &bc.c, NULL, &a, &u), KG_AUTHN_UNAUTHORIZED);
    /* nothing: anonymous */
    assert_int_equal(kg_authn_authenticate_request(an, NULL, NULL, &a, &u), KG_AUTHN_ANONYMOUS);
    kg_authn_free(an);
    /* without --client-ca-file certificates are ignored */
    kg_authn_config nocfg = {.anonymous_auth = true};
    an = kg_authn_new(&nocfg, &err);
    assert_null(kg_authn_client_ca_pem(an));
    assert_int_equal(kg_authn_authenticate_request(an, &gc.c, NULL, &a, &u), KG_AUTHN_ANONYMOUS);
    kg_authn_free(an);
    /* a missing CA file names it */
    kg_authn_config missing = {.client_ca_file = "/nonexistent/ca.crt"};
    assert_null(kg_authn_new(&missing, &err));
    assert_non_null(strstr(err.msg, "/nonexistent/ca.crt"));
    chain_free(&gc);
    chain_free(&bc);
    cert_free(&good);
    cert_free(&bad);
    kg_arena_free(&a);
    remove(path);
    remove(tokens);
    remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cn_and_orgs),
        cmocka_unit_test(test_intermediate_and_no_eku),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_in_chain),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
