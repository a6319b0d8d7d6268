/* Service-account tokens in kgate serve (src/server/satoken.c, tokenrequest.c) over a live in-process server (plain
 * HTTP, free port) configured with an ECDSA signing key file, two issuers, custom API audiences and a lifetime cap:
 * TokenRequest's answers and errors, the token as a credential (and tokens forged, of the second issuer, of another
 * audience), TokenReview, the OIDC documents, and the flag checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <curl/curl.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auth/serviceaccount/jwt.h"
#include "base/base64.h"
#include "base/buf.h"
#include "server/apiserver.h"

static kg_apiserver *srv;
static char dir[64];
static char base_url[64];
static char admin[256];
static char *key_pem;

typedef struct resp {
    long code;
    kg_buf body, headers;
} resp;

static size_t on_data(char *p, size_t sz, size_t n, void *ud)
{
    kg_buf_append(ud, p, sz * n);
    return sz * n;
}

/* One JSON request with "Authorization: Bearer <token>" (token NULL: the admin). */
static void call(const char *method, const char *path, const char *token, const char *body, resp *r)
{
    CURL *c = curl_easy_init();
    char url[1024], auth[4096];
    snprintf(url, sizeof url, "%s%s", base_url, path);
    if (token)
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    struct curl_slist *h = curl_slist_append(NULL, token ? auth : admin);
    h = curl_slist_append(h, "Content-Type: application/json");
    h = curl_slist_append(h, "Expect:");
    memset(r, 0, sizeof *r);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    }
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r->body);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r->headers);
    assert_int_equal(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->code);
    kg_buf_cstr(&r->body);
    kg_buf_cstr(&r->headers);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
}

static void resp_free(resp *r)
{
    kg_buf_free(&r->body);
    kg_buf_free(&r->headers);
}

static kg_json *body_json(kg_arena *a, resp *r)
{
    kg_error err = {0};
    kg_json *j = kg_json_parse(a, r->body.data, r->body.len, &err);
    if (!j)
        fail_msg("not JSON (%ld): %s", r->code, r->body.data);
    return j;
}

static void expect_status(resp *r, long code, const char *message)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    if (r->code != code)
        fail_msg("code %ld, want %ld: %s", r->code, code, r->body.data);
    assert_string_equal(kg_json_get_str(body_json(&a, r), "message"), message);
    kg_arena_free(&a);
    resp_free(r);
}

#define SA_TOKEN "/api/v1/namespaces/default/serviceaccounts/robot/token"

/* A TokenRequest's token, copied into a. */
static char *request_token(kg_arena *a, const char *body)
{
    resp r;
    call("POST", SA_TOKEN, NULL, body, &r);
    if (r.code != 201)
        fail_msg("TokenRequest %ld: %s", r.code, r.body.data);
    char *tok = kg_arena_strdup(a, kg_json_path_str(body_json(a, &r), "status.token"));
    resp_free(&r);
    return tok;
}

static const char *whoami(kg_arena *a, const char *token, long *code)
{
    resp r;
    call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", token,
         "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"SelfSubjectReview\"}", &r);
    *code = r.code;
    const char *u =
        r.code == 201 ? kg_arena_strdup(a, kg_json_path_str(body_json(a, &r), "status.userInfo.username")) : NULL;
    resp_free(&r);
    return u;
}

static int group_setup(void **state)
{
    curl_global_init(CURL_GLOBAL_ALL);
    snprintf(dir, sizeof dir, "/tmp/kg-satoken-XXXXXX");
    assert_non_null(mkdtemp(dir));
    /* an ECDSA P-256 signing key file */
    EVP_PKEY *k = EVP_EC_gen("P-256");
    char path[128];
    snprintf(path, sizeof path, "%s/sa-ec.pem", dir);
    FILE *f = fopen(path, "w");
    PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL);
    fclose(f);
    BIO *b = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL);
    char *p = NULL;
    long n = BIO_get_mem_data(b, &p);
    key_pem = strndup(p, (size_t)n);
    BIO_free(b);
    EVP_PKEY_free(k);

    kg_apiserver_options o;
    kg_apiserver_options_defaults(&o);
    o.data_dir = dir;
    o.secure_port = 0;
    o.insecure = true;
    o.worker_threads = 4;
    static char keyfile[128];
    snprintf(keyfile, sizeof keyfile, "%s", path);
    o.satoken.signing_key_file = keyfile;
    o.satoken.issuers[o.satoken.nissuers++] = "https://issuer.example/cluster";
    o.satoken.issuers[o.satoken.nissuers++] = "https://old.example";
    o.satoken.api_audiences[o.satoken.napi_audiences++] = "api,https://issuer.example/cluster";
    o.satoken.max_token_expiration_s = 7200;
    kg_error err = {0};
    srv = kg_apiserver_start(&o, &err);
    if (!srv)
        fail_msg("start: %s", err.msg);
    snprintf(base_url, sizeof base_url, "http://127.0.0.1:%d", kg_apiserver_port(srv));
    snprintf(admin, sizeof admin, "Authorization: Bearer %s", kg_apiserver_admin_token(srv));
    resp r;
    call("POST", "/api/v1/namespaces/default/serviceaccounts", NULL,
         "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"robot\"}}", &r);
    assert_int_equal(r.code, 201);
    resp_free(&r);
    return 0;
}

static int group_teardown(void **state)
{
    kg_apiserver_stop(srv);
    free(key_pem);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    curl_global_cleanup();
    return system(cmd) == 0 ? 0 : -1;
}

static void token_request(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    resp r;
    call("POST", SA_TOKEN, NULL, "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenRequest\"}", &r);
    assert_int_equal(r.code, 201);
    kg_json *j = body_json(&a, &r);
    assert_string_equal(kg_json_path_str(j, "metadata.name"), "robot");
    assert_string_equal(kg_json_path_str(j, "metadata.namespace"), "default");
    assert_int_equal(kg_json_path(j, "spec.expirationSeconds")->u.i, 3600);
    assert_string_equal(kg_json_to_string(&a, kg_json_path(j, "spec.audiences"), 0, NULL),
                        "[\"api\",\"https://issuer.example/cluster\"]");
    assert_non_null(kg_json_path_str(j, "status.expirationTimestamp"));
    const char *tok = kg_json_path_str(j, "status.token");
    kg_jwt t;
    KG_ERROR_DECL(err);
    assert_true(kg_jwt_parse(&a, tok, strlen(tok), &t, &err));
    assert_string_equal(t.alg, "ES256");
    assert_string_equal(kg_json_get_str(t.claims, "iss"), "https://issuer.example/cluster"); /* the first issuer */
    resp_free(&r);

    /* the cap: a warning, the spec shows the capped value */
    call("POST", SA_TOKEN, NULL, "{\"spec\":{\"expirationSeconds\":36000}}", &r);
    assert_int_equal(r.code, 201);
    assert_non_null(strstr(r.headers.data, "requested expiration of 36000 seconds shortened to 7200 seconds"));
    assert_int_equal(kg_json_path(body_json(&a, &r), "spec.expirationSeconds")->u.i, 7200);
    resp_free(&r);

    call("POST", SA_TOKEN, NULL, "{\"spec\":{\"expirationSeconds\":60}}", &r);
    expect_status(&r, 422,
                  "TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid value: 60: may "
                  "not specify a duration less than 10 minutes");
    call("POST", SA_TOKEN, NULL, "{\"metadata\":{\"namespace\":\"other\"}}", &r);
    expect_status(&r, 422,
                  "TokenRequest.authentication.k8s.io \"robot\" is invalid: metadata.namespace: Invalid value: "
                  "\"other\": must match the service account namespace if specified");
    call("POST", "/api/v1/namespaces/default/serviceaccounts/ghost/token", NULL, "{}", &r);
    expect_status(&r, 404, "serviceaccounts \"ghost\" not found");
    call("POST", SA_TOKEN, NULL,
         "{\"spec\":{\"boundObjectRef\":{\"kind\":\"Secret\",\"apiVersion\":\"v1\",\"name\":\"s\"}}}", &r);
    expect_status(&r, 404, "secrets \"s\" not found");
    call("GET", SA_TOKEN, NULL, NULL, &r);
    assert_int_equal(r.code, 405);
    resp_free(&r);
    kg_arena_free(&a);
}

static void authentication(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    long code;
    char *tok = request_token(&a, "{}");
    assert_string_equal(whoami(&a, tok, &code), "system:serviceaccount:default:robot");

    /* tampered: one character of the signature changed */
    char *bad = kg_arena_strdup(&a, tok);
    size_t n = strlen(bad);
    bad[n - 2] = bad[n - 2] == 'A' ? 'B' : 'A';
    assert_null(whoami(&a, bad, &code));
    assert_int_equal(code, 401);

    /* signed by this key for the second issuer: accepted; for an unknown issuer: not ours → 401 */
    KG_ERROR_DECL(err);
    kg_sa_keys *ks = kg_sa_keys_from_pem(key_pem, NULL, 0, &err);
    assert_non_null(ks);
    kg_jwt t;
    assert_true(kg_jwt_parse(&a, tok, strlen(tok), &t, &err));
    kg_json_set(&a, t.claims, "iss", kg_json_new_str(&a, "https://old.example"));
    assert_string_equal(whoami(&a, kg_jwt_sign(&a, &ks->signing, t.claims, &err), &code),
                        "system:serviceaccount:default:robot");
    kg_json_set(&a, t.claims, "iss", kg_json_new_str(&a, "https://stranger.example"));
    assert_null(whoami(&a, kg_jwt_sign(&a, &ks->signing, t.claims, &err), &code));
    assert_int_equal(code, 401);
    /* expired beyond the leeway */
    kg_json_set(&a, t.claims, "iss", kg_json_new_str(&a, "https://old.example"));
    kg_json_set(&a, t.claims, "exp", kg_json_new_int(&a, (int64_t)time(NULL) - 120));
    assert_null(whoami(&a, kg_jwt_sign(&a, &ks->signing, t.claims, &err), &code));
    assert_int_equal(code, 401);
    /* alg none: a valid payload, no signature */
    const char *dot = strchr(tok, '.');
    const char *payload = kg_arena_strndup(&a, dot + 1, (size_t)(strchr(dot + 1, '.') - dot - 1));
    const char *none = kg_arena_sprintf(
        &a, "%s.%s.", kg_base64_encode(&a, "{\"alg\":\"none\"}", 14, KG_BASE64_URL | KG_BASE64_RAW, NULL), payload);
    assert_null(whoami(&a, none, &code));
    assert_int_equal(code, 401);
    kg_sa_keys_free(ks);

    /* another audience: not an API credential, but TokenReview with that audience accepts it */
    char *vault = request_token(&a, "{\"spec\":{\"audiences\":[\"vault\"]}}");
    assert_null(whoami(&a, vault, &code));
    assert_int_equal(code, 401);
    resp r;
    const char *rv = kg_arena_sprintf(&a,
                                      "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenReview\",\"spec\":"
                                      "{\"token\":\"%s\",\"audiences\":[\"vault\",\"x\"]}}",
                                      vault);
    call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", NULL, rv, &r);
    assert_int_equal(r.code, 201);
    kg_json *st = kg_json_get(body_json(&a, &r), "status");
    assert_true(kg_json_get(st, "authenticated")->b);
    assert_string_equal(kg_json_path_str(st, "user.username"), "system:serviceaccount:default:robot");
    assert_string_equal(kg_json_to_string(&a, kg_json_path(st, "user.groups"), 0, NULL),
                        "[\"system:serviceaccounts\",\"system:serviceaccounts:default\",\"system:authenticated\"]");
    assert_string_equal(kg_json_to_string(&a, kg_json_get(st, "audiences"), 0, NULL), "[\"vault\"]");
    resp_free(&r);
    /* the admin's static token with a foreign audience: not authenticated (audience-agnostic) */
    rv = kg_arena_sprintf(&a, "{\"kind\":\"TokenReview\",\"spec\":{\"token\":\"%s\",\"audiences\":[\"vault\"]}}",
                          kg_apiserver_admin_token(srv));
    call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", NULL, rv, &r);
    assert_int_equal(r.code, 201);
    assert_null(kg_json_path(body_json(&a, &r), "status.authenticated"));
    resp_free(&r);
    call("GET", "/apis/authentication.k8s.io/v1/tokenreviews", NULL, NULL, &r);
    assert_int_equal(r.code, 405);
    resp_free(&r);
    kg_arena_free(&a);
}

static void discovery(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    resp r;
    call("GET", "/.well-known/openid-configuration", NULL, NULL, &r);
    assert_int_equal(r.code, 200);
    assert_string_equal(r.body.data,
                        "{\"issuer\":\"https://issuer.example/cluster\",\"jwks_uri\":\"https://issuer.example/cluster/"
                        "openid/v1/jwks\",\"response_types_supported\":[\"id_token\"],\"subject_types_supported\":"
                        "[\"public\"],\"id_token_signing_alg_values_supported\":[\"ES256\"]}");
    assert_non_null(strstr(r.headers.data, "Cache-Control: public, max-age=3600"));
    resp_free(&r);
    call("GET", "/openid/v1/jwks", NULL, NULL, &r);
    assert_int_equal(r.code, 200);
    assert_non_null(strstr(r.headers.data, "application/jwk-set+json"));
    kg_json *k = kg_json_at(kg_json_get(body_json(&a, &r), "keys"), 0);
    assert_string_equal(kg_json_get_str(k, "kty"), "EC");
    assert_string_equal(kg_json_get_str(k, "crv"), "P-256");
    assert_int_equal(strlen(kg_json_get_str(k, "x")), 43);
    resp_free(&r);
    kg_arena_free(&a);
}

static void flag_checks(void **state)
{
    kg_satoken_options o = {0};
    KG_ERROR_DECL(err);
    assert_true(kg_satoken_options_validate(&o, &err));
    o.max_token_expiration_s = 600;
    assert_false(kg_satoken_options_validate(&o, &err));
    assert_string_equal(err.msg, "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds");
    o.max_token_expiration_s = 3600;
    o.jwks_uri = "http://x/jwks";
    assert_false(kg_satoken_options_validate(&o, &err));
    assert_string_equal(err.msg, "service-account-jwks-uri requires https scheme, parsed as: http://x/jwks");
    o.jwks_uri = NULL;
    o.issuers[o.nissuers++] = "https://a";
    o.issuers[o.nissuers++] = "https://a";
    assert_false(kg_satoken_options_validate(&o, &err));
    assert_string_equal(err.msg, "service-account-issuer \"https://a\" is already specified");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(token_request),
        cmocka_unit_test(authentication),
        cmocka_unit_test(discovery),
        cmocka_unit_test(flag_checks),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
