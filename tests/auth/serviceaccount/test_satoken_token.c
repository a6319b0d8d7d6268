/* Service-account tokens: JWS signing and verification (RS256, ES256; tampering, wrong key, kid, alg "none"), the
 * claims of bound and legacy tokens, and the authenticator's checks (issuer, audiences, time with leeway, the
 * ServiceAccount and bound objects, legacy Secret lookup) with upstream's texts; keys generated in a data dir and
 * reused; the JWKS document. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "auth/serviceaccount/jwt.h"
#include "auth/serviceaccount/keys.h"
#include "auth/serviceaccount/token.h"
#include "base/base64.h"

static char *pem_of(EVP_PKEY *k)
{
    BIO *b = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL);
    char *p = NULL;
    long n = BIO_get_mem_data(b, &p);
    char *r = strndup(p, (size_t)n);
    BIO_free(b);
    EVP_PKEY_free(k);
    return r;
}

static char *rsa_pem;
static char *rsa2_pem;
static char *ec_pem;

static int setup(void **state)
{
    (void)state;
    rsa_pem = kg_sa_keys_generate_pem();
    rsa2_pem = kg_sa_keys_generate_pem();
    ec_pem = pem_of(EVP_EC_gen("P-256"));
    return rsa_pem && rsa2_pem && ec_pem ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(rsa_pem);
    free(rsa2_pem);
    free(ec_pem);
    return 0;
}

/* ---- objects the authenticator looks up ---- */
static const char *objects[16];
static size_t nobjects;

static const kg_json *get(void *ud, const char *plural, const char *ns, const char *name, kg_arena *a)
{
    (void)ud;
    for (size_t i = 0; i < nobjects; i++) {
        kg_json *o = kg_json_parse(a, objects[i], strlen(objects[i]), NULL);
        const char *p = kg_json_get_str(o, "plural");
        const char *ons = kg_json_path_str(o, "metadata.namespace");
        if (!strcmp(p, plural) && !strcmp(ons ? ons : "", ns) && !strcmp(kg_json_path_str(o, "metadata.name"), name))
            return o;
    }
    return NULL;
}

static int64_t fake_now;
static int64_t now_fn(void)
{
    return fake_now;
}

static const char *const issuers[] = {"https://kgate.test", "https://old.example"};
static const char *const api_auds[] = {"https://kgate.test"};

static kg_sa_authenticator *new_auth(const kg_sa_keys *ks)
{
    kg_sa_authenticator_config c = {.issuers = issuers,
                                    .nissuers = 2,
                                    .api_audiences = api_auds,
                                    .napi_audiences = 1,
                                    .keys = ks,
                                    .lookup = true,
                                    .get = get,
                                    .now = now_fn};
    return kg_sa_authenticator_new(&c);
}

static kg_sa_token_spec spec(void)
{
    return (kg_sa_token_spec){.issuer = issuers[0],
                              .audiences = api_auds,
                              .naudiences = 1,
                              .ns = "team",
                              .sa_name = "bot",
                              .sa_uid = "sa-uid-1",
                              .iat = fake_now,
                              .exp = fake_now + 3600,
                              .jti = "3b0c7e4e-0000-4000-8000-000000000001"};
}

static char *sign(kg_arena *a, const kg_sa_keys *ks, const kg_sa_token_spec *s)
{
    return kg_jwt_sign(a, &ks->signing, kg_sa_bound_claims(a, s), NULL);
}

static void jws_roundtrip(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    KG_ERROR_DECL(err);
    const char *pems[] = {rsa_pem, ec_pem};
    for (int i = 0; i < 2; i++) {
        kg_sa_keys *ks = kg_sa_keys_from_pem(pems[i], NULL, 0, &err);
        assert_non_null(ks);
        assert_string_equal(ks->signing.alg, i ? "ES256" : "RS256");
        assert_int_equal(strlen(ks->signing.kid), 43);
        assert_int_equal(ks->nverify, 1);
        assert_string_equal(ks->verify[0].kid, ks->signing.kid);
        kg_json *claims = kg_json_parse(&a, "{\"iss\":\"x\",\"n\":1}", 17, NULL);
        char *tok = kg_jwt_sign(&a, &ks->signing, claims, &err);
        assert_non_null(tok);
        kg_jwt t;
        assert_true(kg_jwt_parse(&a, tok, strlen(tok), &t, &err));
        assert_string_equal(t.alg, ks->signing.alg);
        assert_string_equal(t.kid, ks->signing.kid);
        assert_int_equal(kg_json_path(t.claims, "n")->u.i, 1);
        if (i)
            assert_int_equal(t.sig_len, 64); /* r||s, not DER */
        assert_true(kg_jwt_verify(&t, ks->verify, ks->nverify, &err));
        assert_string_equal(kg_jwt_peek_issuer(&a, tok, strlen(tok)), "x");

        /* tampered payload: same header and signature, another claim set */
        char *dot1 = strchr(tok, '.'), *dot2 = strchr(dot1 + 1, '.');
        char *forged = kg_arena_sprintf(
            &a, "%.*s.%s%s", (int)(dot1 - tok), tok,
            kg_base64_encode(&a, "{\"iss\":\"x\",\"n\":2}", 17, KG_BASE64_URL | KG_BASE64_RAW, NULL), dot2);
        assert_true(kg_jwt_parse(&a, forged, strlen(forged), &t, &err));
        assert_false(kg_jwt_verify(&t, ks->verify, ks->nverify, &err));
        assert_string_equal(err.msg, "error in cryptographic primitive");
        kg_sa_keys_free(ks);
    }
    /* another key with the same kid-less header: no key verifies; with a kid that no key has: no keys found */
    kg_sa_keys *k1 = kg_sa_keys_from_pem(rsa_pem, NULL, 0, &err);
    kg_sa_keys *k2 = kg_sa_keys_from_pem(rsa2_pem, NULL, 0, &err);
    char *tok = kg_jwt_sign(&a, &k1->signing, kg_json_new_object(&a), &err);
    kg_jwt t;
    assert_true(kg_jwt_parse(&a, tok, strlen(tok), &t, &err));
    assert_false(kg_jwt_verify(&t, k2->verify, k2->nverify, &err));
    assert_string_equal(err.msg, "invalid signature, no keys found");
    t.kid = NULL;
    assert_false(kg_jwt_verify(&t, k2->verify, k2->nverify, &err));
    assert_string_equal(err.msg, "error in cryptographic primitive");
    /* RS256 header against an EC key: not applicable */
    kg_sa_keys *ke = kg_sa_keys_from_pem(ec_pem, NULL, 0, &err);
    assert_false(kg_jwt_verify(&t, ke->verify, ke->nverify, &err));
    assert_string_equal(err.msg, "invalid signature, no keys found");

    /* alg none and HMAC are not accepted; malformed shapes */
    const char *none = "eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.";
    assert_false(kg_jwt_parse(&a, none, strlen(none), &t, &err));
    assert_string_equal(err.msg, "unexpected signature algorithm \"none\"; expected [ES256 ES384 ES512 RS256]");
    const char *hs = "eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln";
    assert_false(kg_jwt_parse(&a, hs, strlen(hs), &t, &err));
    assert_false(kg_jwt_parse(&a, "a.b", 3, &t, &err));
    assert_false(kg_jwt_parse(&a, "a.b.c.d", 7, &t, &err));
    assert_false(kg_jwt_parse(&a, "!!.??.--", 8, &t, &err));
    assert_string_equal(kg_jwt_peek_issuer(&a, "x.y", 3), "");
    kg_sa_keys_free(k1);
    kg_sa_keys_free(k2);
    kg_sa_keys_free(ke);
    kg_arena_free(&a);
}

static void bound_claims_shape(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    fake_now = 1700000000;
    kg_sa_token_spec s = spec();
    s.pod_name = "web";
    s.pod_uid = "pod-uid";
    s.node_name = "n1";
    s.node_uid = "node-uid";
    s.warnafter = fake_now + 3607;
    char *j = kg_json_to_string(&a, kg_sa_bound_claims(&a, &s), 0, NULL);
    assert_string_equal(j, "{\"aud\":[\"https://kgate.test\"],\"exp\":1700003600,\"iat\":1700000000,"
                           "\"iss\":\"https://kgate.test\",\"jti\":\"3b0c7e4e-0000-4000-8000-000000000001\","
                           "\"kubernetes.io\":{\"namespace\":\"team\",\"node\":{\"name\":\"n1\",\"uid\":\"node-uid\"},"
                           "\"pod\":{\"name\":\"web\",\"uid\":\"pod-uid\"},\"serviceaccount\":{\"name\":\"bot\","
                           "\"uid\":\"sa-uid-1\"},\"warnafter\":1700003607},\"nbf\":1700000000,"
                           "\"sub\":\"system:serviceaccount:team:bot\"}");
    const char *ns, *name;
    assert_true(kg_sa_split_username(&a, "system:serviceaccount:team:bot", &ns, &name));
    assert_string_equal(ns, "team");
    assert_string_equal(name, "bot");
    assert_false(kg_sa_split_username(&a, "system:serviceaccount:team", &ns, &name));
    assert_false(kg_sa_split_username(&a, "system:serviceaccount::bot", &ns, &name));
    assert_false(kg_sa_split_username(&a, "alice", &ns, &name));
    kg_arena_free(&a);
}

#define SA_BOT                                                                                                         \
    "{\"plural\":\"serviceaccounts\",\"metadata\":{\"namespace\":\"team\",\"name\":\"bot\",\"uid\":\"sa-uid-1\"}}"
#define POD_WEB "{\"plural\":\"pods\",\"metadata\":{\"namespace\":\"team\",\"name\":\"web\",\"uid\":\"pod-uid\"}}"
#define NODE_N1 "{\"plural\":\"nodes\",\"metadata\":{\"name\":\"n1\",\"uid\":\"node-uid\"}}"

static kg_sa_verdict auth(const kg_sa_authenticator *sa, const char *tok, const char *const *auds, size_t n,
                          kg_arena *a, kg_sa_result *r)
{
    return kg_sa_authenticate(sa, tok, strlen(tok), auds, n, a, r);
}

static void authenticator_bound(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    KG_ERROR_DECL(err);
    kg_sa_keys *ks = kg_sa_keys_from_pem(rsa_pem, NULL, 0, &err);
    kg_sa_authenticator *sa = new_auth(ks);
    fake_now = 1700000000;
    nobjects = 0;
    objects[nobjects++] = SA_BOT;
    objects[nobjects++] = POD_WEB;
    objects[nobjects++] = NODE_N1;
    kg_sa_result r;

    kg_sa_token_spec s = spec();
    char *tok = sign(&a, ks, &s);
    assert_int_equal(auth(sa, tok, NULL, 0, &a, &r), KG_SA_OK);
    assert_string_equal(r.user.name, "system:serviceaccount:team:bot");
    assert_string_equal(r.user.uid, "sa-uid-1");
    assert_int_equal(r.user.ngroups, 2);
    assert_string_equal(r.user.groups[0], "system:serviceaccounts");
    assert_string_equal(r.user.groups[1], "system:serviceaccounts:team");
    assert_int_equal(r.user.nextra, 1);
    assert_string_equal(r.user.extra[0].key, "authentication.kubernetes.io/credential-id");
    assert_string_equal(r.user.extra[0].values[0], "JTI=3b0c7e4e-0000-4000-8000-000000000001");
    assert_int_equal(r.naudiences, 1);
    assert_string_equal(r.audiences[0], "https://kgate.test");

    /* an issuer this server does not accept: not mine (other JWT authenticators may take it) */
    s.issuer = "https://elsewhere";
    assert_int_equal(auth(sa, sign(&a, ks, &s), NULL, 0, &a, &r), KG_SA_NOT_MINE);
    assert_int_equal(auth(sa, "not-a-jwt", NULL, 0, &a, &r), KG_SA_NOT_MINE);
    /* a second accepted issuer works */
    s.issuer = issuers[1];
    assert_int_equal(auth(sa, sign(&a, ks, &s), NULL, 0, &a, &r), KG_SA_OK);
    s = spec();

    /* time: the leeway is 60 s either way */
    fake_now = 1700003600 + 60;
    assert_int_equal(auth(sa, tok, NULL, 0, &a, &r), KG_SA_OK);
    fake_now = 1700003600 + 61;
    assert_int_equal(auth(sa, tok, NULL, 0, &a, &r), KG_SA_INVALID);
    assert_string_equal(r.reason, "service account token has expired");
    fake_now = 1700000000 - 61;
    assert_int_equal(auth(sa, tok, NULL, 0, &a, &r), KG_SA_INVALID);
    assert_string_equal(r.reason, "service account token is not valid yet");
    fake_now = 1700000000;

    /* audiences */
    static const char *const other[] = {"vault", "https://kgate.test"};
    assert_int_equal(auth(sa, tok, other, 1, &a, &r), KG_SA_INVALID);
    assert_string_equal(r.reason,
                        "token audiences [\"https://kgate.test\"] is invalid for the target audiences [\"vault\"]");
    assert_int_equal(auth(sa, tok, other, 2, &a, &r), KG_SA_OK);
    s.audiences = other;
    s.naudiences = 1;
    char *vault = sign(&a, ks, &s);
    assert_int_equal(auth(sa, vault, NULL, 0, &a, &r), KG_SA_INVALID);
    assert_string_equal(r.reason,
                        "token audiences [\"vault\"] is invalid for the target audiences [\"https://kgate.test\"]");
    assert_int_equal(auth(sa, vault, other, 1, &a, &r), KG_SA_OK);
    assert_string_equal(r.audiences[0], "vault");
    s = spec();

    /* a token signed by another key */
    kg_sa_keys *k2 = kg_sa_keys_from_pem(rsa2_pem, NULL, 0, &err);
    assert_int_equal(auth(sa, sign(&a, k2, &s), NULL, 0, &a, &r), KG_SA_INVALID);
    assert_string_equal(r.reason, "invalid signature, no keys found");
    kg_sa_keys_free(k2);

    /* the ServiceAccount: uid, existence, deletion */
    s.sa_uid = "old-uid";
    assert_int_equal(auth(sa, sign(&a, ks, &s), NULL, 0, &a, &r), KG_SA_INVALID);
    assert_string_equal(r.reason, "service account UID (sa-uid-1) does not match claim (old-uid)");
    s = spec();
    s.sa_name = "gone";
    assert_int_equal(auth(sa, sign(&a, ks, &s), NULL, 0, &a, &r), KG_SA_INVALID);
    assert_string_equal(r.reason, "serviceaccounts \"gone\" not found");
    s = spec();
    objects[0] = "{\"plural\":\"serviceaccounts\",\"metadata\":{\"namespace\":\"team\",\"name\":\"bot\",\"uid\":"
                 "\"sa-uid-1\",\"deletionTimestamp\":\"2023-11-14T22:11:00Z\"}}"; /* 1699999860: 140 s ago */
    assert_int_equal(auth(sa, tok, NULL, 0, &a, &r), KG_SA_INVALID);
    assert_string_equal(r.reason, "service account team/bot has been deleted");
    objects[0] = "{\"plural\":\"serviceaccounts\",\"metadata\":{\"namespace\":\"team\",\"name\":\"bot\",\"uid\":"
                 "\"sa-uid-1\",\"deletionTimestamp\":\"2023-11-14T22:13:00Z\"}}"; /* 20 s ago: still valid */
    assert_int_equal(auth(sa, tok, NULL, 0, &a, &r), KG_SA_OK);
    objects[0] = SA_BOT;

    /* bound to a pod (and its node) */
    s.pod_name = "web";
    s.pod_uid = "pod-uid";
    s.node_name = "n1";
    s.node_uid = "node-uid";
    char *podtok = sign(&a, ks, &s);
    assert_int_equal(auth(sa, podtok, NULL, 0, &a, &r), KG_SA_OK);
    assert_int_equal(r.user.nextra, 5);
    assert_string_equal(r.user.extra[0].key, "authentication.kubernetes.io/pod-name");
    assert_string_equal(r.user.extra[0].values[0], "web");
    assert_string_equal(r.user.extra[1].values[0], "pod-uid");
    assert_string_equal(r.user.extra[2].key, "authentication.kubernetes.io/node-name");
    assert_string_equal(r.user.extra[3].values[0], "node-uid");
    s.pod_uid = "other";
    assert_int_equal(auth(sa, sign(&a, ks, &s), NULL, 0, &a, &r), KG_SA_INVALID);
    assert_string_equal(r.reason, "pod UID (pod-uid) does not match service account pod ref claim (other)");
    nobjects = 1; /* the pod and node are gone */
    assert_int_equal(auth(sa, podtok, NULL, 0, &a, &r), KG_SA_INVALID);
    assert_string_equal(r.reason, "service account token has been invalidated");

    kg_sa_authenticator_free(sa);
    kg_sa_keys_free(ks);
    kg_arena_free(&a);
}

static void authenticator_legacy(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    KG_ERROR_DECL(err);
    kg_sa_keys *ks = kg_sa_keys_from_pem(ec_pem, NULL, 0, &err);
    kg_sa_authenticator *sa = new_auth(ks);
    fake_now = 1700000000;
    char *tok = kg_jwt_sign(&a, &ks->signing, kg_sa_legacy_claims(&a, "team", "bot-token", "bot", "sa-uid-1"), &err);
    char *secret = kg_arena_sprintf(&a,
                                    "{\"plural\":\"secrets\",\"metadata\":{\"namespace\":\"team\",\"name\":"
                                    "\"bot-token\",\"uid\":\"s1\"},\"data\":{\"token\":\"%s\"}}",
                                    kg_base64_encode(&a, tok, strlen(tok), 0, NULL));
    nobjects = 0;
    objects[nobjects++] = SA_BOT;
    objects[nobjects++] = secret;
    kg_sa_result r;
    assert_int_equal(auth(sa, tok, NULL, 0, &a, &r), KG_SA_OK);
    assert_string_equal(r.user.name, "system:serviceaccount:team:bot");
    assert_int_equal(r.user.nextra, 0);
    /* legacy tokens have no aud: they count as the API audiences only */
    static const char *const vault[] = {"vault"};
    assert_int_equal(auth(sa, tok, vault, 1, &a, &r), KG_SA_INVALID);
    objects[1] = "{\"plural\":\"secrets\",\"metadata\":{\"namespace\":\"team\",\"name\":\"bot-token\"},\"data\":"
                 "{\"token\":\"b3RoZXI=\"}}";
    assert_int_equal(auth(sa, tok, NULL, 0, &a, &r), KG_SA_INVALID);
    assert_string_equal(r.reason, "Token does not match server's copy");
    nobjects = 1;
    assert_int_equal(auth(sa, tok, NULL, 0, &a, &r), KG_SA_INVALID);
    assert_string_equal(r.reason, "Token has been invalidated");
    objects[nobjects++] = secret;
    objects[0] =
        "{\"plural\":\"serviceaccounts\",\"metadata\":{\"namespace\":\"team\",\"name\":\"bot\",\"uid\":\"x\"}}";
    assert_int_equal(auth(sa, tok, NULL, 0, &a, &r), KG_SA_INVALID);
    assert_string_equal(r.reason, "ServiceAccount UID (x) does not match claim (sa-uid-1)");
    /* a missing claim */
    kg_json *c = kg_sa_legacy_claims(&a, "team", "bot-token", "bot", "sa-uid-1");
    kg_json_del(c, "kubernetes.io/serviceaccount/secret.name");
    assert_int_equal(auth(sa, kg_jwt_sign(&a, &ks->signing, c, &err), NULL, 0, &a, &r), KG_SA_INVALID);
    assert_string_equal(r.reason, "secretName claim is missing");
    kg_sa_authenticator_free(sa);
    kg_sa_keys_free(ks);
    kg_arena_free(&a);
}

static void keys_generated_and_jwks(void **state)
{
    (void)state;
    char dir[] = "/tmp/kg-satoken-XXXXXX";
    assert_non_null(mkdtemp(dir));
    KG_ERROR_DECL(err);
    kg_sa_keys_config cfg = {.data_dir = dir};
    kg_sa_keys *k1 = kg_sa_keys_load(&cfg, &err);
    assert_non_null(k1);
    char path[256];
    snprintf(path, sizeof path, "%s/sa.key", dir);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    kg_sa_keys *k2 = kg_sa_keys_load(&cfg, &err); /* reused, not regenerated */
    assert_non_null(k2);
    assert_string_equal(k1->signing.kid, k2->signing.kid);

    kg_arena a;
    kg_arena_init(&a, 0);
    char *j = kg_json_to_string(&a, kg_sa_keys_jwks(k1, &a), 0, NULL);
    char *want = kg_arena_sprintf(
        &a, "{\"keys\":[{\"use\":\"sig\",\"kty\":\"RSA\",\"kid\":\"%s\",\"alg\":\"RS256\",\"n\":\"", k1->signing.kid);
    assert_memory_equal(j, want, strlen(want));
    assert_non_null(strstr(j, "\"e\":\"AQAB\"}]}"));
    assert_string_equal(kg_json_to_string(&a, kg_sa_keys_algs(k1, &a), 0, NULL), "[\"RS256\"]");

    /* a public-key file as the only verification key: this server verifies but cannot sign */
    char pub[256];
    snprintf(pub, sizeof pub, "%s/pub.pem", dir);
    FILE *f = fopen(pub, "w");
    BIO *b = BIO_new_mem_buf(ec_pem, -1);
    EVP_PKEY *ek = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
    BIO_free(b);
    PEM_write_PUBKEY(f, ek);
    EVP_PKEY_free(ek);
    fclose(f);
    const char *files[] = {pub};
    kg_sa_keys_config c2 = {.key_files = files, .nkey_files = 1, .signing_key_file = path};
    kg_sa_keys *k3 = kg_sa_keys_load(&c2, &err);
    assert_non_null(k3);
    assert_int_equal(k3->nverify, 1);
    assert_string_equal(k3->verify[0].alg, "ES256");
    j = kg_json_to_string(&a, kg_sa_keys_jwks(k3, &a), 0, NULL);
    assert_non_null(strstr(j, "\"kty\":\"EC\""));
    assert_non_null(strstr(j, "\"crv\":\"P-256\",\"alg\":\"ES256\",\"x\":\""));
    /* errors name the file */
    const char *bad[] = {path, "/nonexistent/key.pem"};
    kg_sa_keys_config c3 = {.key_files = bad + 1, .nkey_files = 1};
    assert_null(kg_sa_keys_load(&c3, &err));
    assert_non_null(strstr(err.msg, "/nonexistent/key.pem"));
    (void)bad;
    kg_sa_keys_free(k1);
    kg_sa_keys_free(k2);
    kg_sa_keys_free(k3);
    kg_arena_free(&a);
    unlink(pub);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(jws_roundtrip),           cmocka_unit_test(bound_claims_shape),
        cmocka_unit_test(authenticator_bound),     cmocka_unit_test(authenticator_legacy),
        cmocka_unit_test(keys_generated_and_jwks),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
