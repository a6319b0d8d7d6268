/* The REST layer (src/server/rest.c) over a live kgate serve started in-process (plain HTTP on a free port): request
 * parsing (media types, dryRun, fieldValidation, DeleteOptions), the mapping of pipeline results to HTTP (codes,
 * Status bodies, Warning headers) and the verbs a resource or subresource does not serve. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "server/apiserver.h"

static kg_apiserver *srv;
static char dir[64];
static char base_url[64];
static char auth[256];

typedef struct resp {
    long code;
    kg_buf body, headers;
} resp;

static size_t on_data(char *p, size_t sz, size_t n, void *ud)
{
    kg_buf_append(ud, p, sz * n);
    return sz * n;
}

/* One request; content_type NULL = JSON. */
static void call(const char *method, const char *path, const char *content_type, const char *body, resp *r)
{
    CURL *c = curl_easy_init();
    char url[1024], ct[128];
    snprintf(url, sizeof url, "%s%s", base_url, path);
    snprintf(ct, sizeof ct, "Content-Type: %s", content_type ? content_type : "application/json");
    struct curl_slist *h = curl_slist_append(NULL, auth);
    h = curl_slist_append(h, ct);
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

/* The response must be a Status with this code and message. */
static void expect_status(resp *r, long code, const char *reason, const char *message)
{
    if (r->code != code)
        fail_msg("code %ld, want %ld: %s", r->code, code, r->body.data);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err = {0};
    kg_json *j = kg_json_parse(&a, r->body.data, r->body.len, &err);
    assert_non_null(j);
    assert_string_equal(kg_json_get_str(j, "kind"), "Status");
    assert_int_equal(kg_json_get(j, "code")->u.i, code);
    if (reason)
        assert_string_equal(kg_json_get_str(j, "reason"), reason);
    if (message)
        assert_string_equal(kg_json_get_str(j, "message"), message);
    kg_arena_free(&a);
    resp_free(r);
}

static int group_setup(void **state)
{
    curl_global_init(CURL_GLOBAL_ALL);
    snprintf(dir, sizeof dir, "/tmp/kg-rest-XXXXXX");
    assert_non_null(mkdtemp(dir));
    kg_apiserver_options o;
    kg_apiserver_options_defaults(&o);
    o.data_dir = dir;
    o.secure_port = 0;
    o.insecure = true;
    o.worker_threads = 4;
    kg_error err = {0};
    srv = kg_apiserver_start(&o, &err);
    if (!srv)
        fail_msg("start: %s", err.msg);
    snprintf(base_url, sizeof base_url, "http://127.0.0.1:%d", kg_apiserver_port(srv));
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", kg_apiserver_admin_token(srv));
    return 0;
}

static int group_teardown(void **state)
{
    kg_apiserver_stop(srv);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    curl_global_cleanup();
    return system(cmd) == 0 ? 0 : -1;
}

#define CM_PATH "/api/v1/namespaces/default/configmaps"

static void test_create_warns_on_unknown_fields(void **state)
{
    resp r;
    call("POST", CM_PATH, NULL,
         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"w1\"},\"bogus\":1,"
         "\"data\":{\"a\":\"1\",\"a\":\"2\"}}",
         &r);
    assert_int_equal(r.code, 201);
    assert_non_null(strstr(r.headers.data, "Warning: 299 - \"unknown field \\\"bogus\\\"\""));
    assert_non_null(strstr(r.headers.data, "Warning: 299 - \"duplicate field \\\"data.a\\\"\""));
    assert_non_null(strstr(r.body.data, "\"resourceVersion\":\""));
    resp_free(&r);
    call("POST", CM_PATH "?fieldValidation=Strict", NULL,
         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"w2\"},\"bogus\":1}", &r);
    expect_status(&r, 400, "BadRequest",
                  "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field "
                  "\"bogus\"");
}

static void test_bad_parameters(void **state)
{
    resp r;
    call("POST", CM_PATH "?dryRun=Some", NULL, "{}", &r);
    expect_status(&r, 400, "BadRequest", "Invalid dry run value: \"Some\"; the only supported value is \"All\"");
    call("POST", CM_PATH "?fieldValidation=Loose", NULL, "{}", &r);
    expect_status(&r, 400, "BadRequest",
                  "fieldValidation must be one of \"Ignore\", \"Warn\", or \"Strict\", got \"Loose\"");
    call("POST", CM_PATH, NULL, "", &r);
    expect_status(&r, 400, "BadRequest", "the body of the request was empty");
    call("POST", CM_PATH, "text/plain", "x", &r);
    expect_status(&r, 415, "UnsupportedMediaType", NULL);
    call("POST", CM_PATH, NULL, "[1,2]", &r);
    expect_status(&r, 400, "BadRequest", NULL);
    call("POST", "/api/v1/configmaps", NULL, "{}", &r); /* a namespaced create needs a namespace */
    expect_status(&r, 404, "NotFound", NULL);
}

static void test_yaml_create_and_dry_run(void **state)
{
    resp r;
    call("POST", CM_PATH "?dryRun=All", "application/yaml",
         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\ndata:\n  k: v\n", &r);
    assert_int_equal(r.code, 201);
    assert_non_null(strstr(r.body.data, "\"name\":\"y1\""));
    resp_free(&r);
    call("GET", CM_PATH "/y1", NULL, NULL, &r);
    expect_status(&r, 404, "NotFound", "configmaps \"y1\" not found");
    call("POST", CM_PATH, "application/yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\n", &r);
    assert_int_equal(r.code, 201);
    resp_free(&r);
    call("POST", CM_PATH, "application/yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\n", &r);
    expect_status(&r, 409, "AlreadyExists", "configmaps \"y1\" already exists");
}

static void test_patch_media_types_and_errors(void **state)
{
    resp r;
    call("POST", CM_PATH, NULL, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"p1\"}}", &r);
    assert_int_equal(r.code, 201);
    resp_free(&r);
    call("PATCH", CM_PATH "/p1", "application/apply-patch+cbor", "{}", &r);
    expect_status(&r, 415, "UnsupportedMediaType", NULL);
    /* server-side apply needs a field manager (tests/e2e/ssa.sh drives the rest through kubectl) */
    call("PATCH", CM_PATH "/p1", "application/apply-patch+yaml", "{}", &r);
    expect_status(
        &r, 422, "Invalid",
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
    call("PATCH", CM_PATH "/p1?force=true", "application/merge-patch+json", "{}", &r);
    expect_status(
        &r, 422, "Invalid",
        "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch");
    call("PATCH", CM_PATH "/p1", "application/merge-patch+json", "{not json", &r);
    expect_status(&r, 400, "BadRequest", NULL);
    call("PATCH", CM_PATH "/p1", "application/json-patch+json", "[{\"op\":\"remove\",\"path\":\"/nope\"}]", &r);
    expect_status(&r, 422, "Invalid", "the server rejected our request due to an error in our request");
    call("PATCH", CM_PATH "/p1", "application/merge-patch+json", "{\"data\":{\"x\":\"y\"}}", &r);
    assert_int_equal(r.code, 200);
    assert_non_null(strstr(r.body.data, "\"x\":\"y\""));
    resp_free(&r);
    call("PATCH", CM_PATH "/nope", "application/merge-patch+json", "{}", &r);
    expect_status(&r, 404, "NotFound", "configmaps \"nope\" not found");
}

static void test_delete_and_options(void **state)
{
    resp r;
    call("POST", CM_PATH, NULL, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"d1\"}}", &r);
    resp_free(&r);
    call("DELETE", CM_PATH "/d1?propagationPolicy=Sideways", NULL, NULL, &r);
    expect_status(&r, 422, "Invalid", NULL);
    call("DELETE", CM_PATH "/d1", NULL, "{\"preconditions\":{\"resourceVersion\":\"1\"}}", &r);
    expect_status(&r, 409, "Conflict", NULL);
    call("DELETE", CM_PATH "/d1", NULL, "{\"dryRun\":[\"All\"]}", &r);
    assert_int_equal(r.code, 200);
    resp_free(&r);
    call("DELETE", CM_PATH "/d1", NULL, NULL, &r);
    assert_int_equal(r.code, 200);
    assert_non_null(strstr(r.body.data, "\"status\":\"Success\""));
    resp_free(&r);
    call("DELETE", CM_PATH "/d1", NULL, NULL, &r);
    expect_status(&r, 404, "NotFound", "configmaps \"d1\" not found");
    call("DELETE", CM_PATH "?labelSelector=a%20in", NULL, NULL, &r); /* malformed selector */
    expect_status(&r, 400, "BadRequest", NULL);
}

static void test_unsupported_verbs(void **state)
{
    resp r;
    call("PUT", "/api/v1/namespaces/default/pods/x/binding", NULL, "{}", &r);
    expect_status(&r, 405, "MethodNotAllowed", NULL);
    call("GET", "/api/v1/namespaces/default/pods/x/nosuch", NULL, NULL, &r);
    expect_status(&r, 404, "NotFound", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_warns_on_unknown_fields),
        cmocka_unit_test(test_bad_parameters),
        cmocka_unit_test(test_yaml_create_and_dry_run),
        cmocka_unit_test(test_patch_media_types_and_errors),
        cmocka_unit_test(test_delete_and_options),
        cmocka_unit_test(test_unsupported_verbs),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
