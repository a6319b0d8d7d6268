/* The HTTP layer against a live server on a free port, driven by libcurl over TLS: keep-alive, request fields,
 * body limit (413), authentication (401) and authorization (403) bodies, ?timeout=, chunked streams (100
 * concurrent, client disconnect detection, deadlines, server stop with open streams) and plain-HTTP mode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json/json.h"
#include "server/authn.h"
#include "server/authz.h"
#include "server/http.h"
#include "server/tls.h"

/* ---- fixture ---- */

static char tmpdir[256];
static kg_tls_material tlsm;
static kg_authn *authn;
static kg_authorizer *authz;
static kg_http_server *srv;
static char base_url[64];
static char admin_hdr[128];

/* streams opened by the handler, for producer threads in the tests */
#define MAX_STREAMS 1024
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static kg_http_stream *reg[MAX_STREAMS];
static int reg_n;
static atomic_int on_done_calls;

static void on_done(void *ud)
{
    (void)ud;
    atomic_fetch_add(&on_done_calls, 1);
}

static atomic_int slow_bad_reads;

static void handler(void *ud, kg_http_request *req, kg_http_response *resp)
{
    (void)ud;
    kg_arena *a = req->arena;
    if (!strcmp(req->path, "/echo") || !strncmp(req->path, "/api/", 5) || !strcmp(req->path, "/apis")) {
        if (req->info->is_resource_request && !strcmp(req->info->verb, "watch")) {
            const char *ts = kg_http_query(req, "timeoutMs");
            int64_t deadline = ts ? kg_http_now_ms() + atoll(ts) : 0;
            kg_http_stream *s = kg_http_respond_stream(req, resp, 200, "application/json", deadline);
            kg_http_stream_on_done(s, on_done, NULL);
            pthread_mutex_lock(&reg_mu);
            reg[reg_n++] = s;
            pthread_mutex_unlock(&reg_mu);
            return;
        }
        kg_json *o = kg_json_new_object(a);
        kg_json_set(a, o, "method", kg_json_new_str(a, req->method));
        kg_json_set(a, o, "path", kg_json_new_str(a, req->path));
        kg_json_set(a, o, "rawPath", kg_json_new_str(a, req->raw_path));
        kg_json_set(a, o, "rawQuery", kg_json_new_str(a, req->raw_query));
        size_t n = 0;
        const char **vals = kg_http_query_all(req, "a", &n);
        kg_json *arr = kg_json_new_array(a);
        for (size_t i = 0; i < n; i++)
            kg_json_array_append(a, arr, kg_json_new_str(a, vals[i]));
        kg_json_set(a, o, "a", arr);
        const char *b = kg_http_query(req, "b");
        kg_json_set(a, o, "b", b ? kg_json_new_str(a, b) : kg_json_new_null(a));
        const char *xt = kg_http_header_get(req, "x-TEST");
        kg_json_set(a, o, "xTest", xt ? kg_json_new_str(a, xt) : kg_json_new_null(a));
        kg_json_set(a, o, "bodyLen", kg_json_new_int(a, (int64_t)req->body_len));
        kg_json_set(a, o, "bodyHead", kg_json_new_strn(a, req->body, req->body_len < 8 ? req->body_len : 8));
        kg_json_set(a, o, "user", kg_json_new_str(a, req->user->name));
        kg_json_set(a, o, "verb", kg_json_new_str(a, req->info->verb));
        kg_json_set(a, o, "resource", kg_json_new_str(a, req->info->resource));
        kg_json_set(a, o, "timeoutMs", kg_json_new_int(a, req->deadline_ms ? req->deadline_ms - kg_http_now_ms() : -1));
        kg_json_set(a, o, "remote", kg_json_new_bool(a, !strncmp(req->remote_addr, "127.0.0.1:", 10)));
        kg_json_set(a, o, "tls", kg_json_new_bool(a, req->tls));
        kg_json_set(a, o, "remoteAddr", kg_json_new_str(a, req->remote_addr));
        kg_http_add_header(req, resp, "X-Echo", "yes");
        kg_http_respond_json(req, resp, 200, o);
        return;
    }
    if (!strcmp(req->path, "/slow")) {
        const char *ms = kg_http_query(req, "sleepMs");
        struct timespec ts = {0, 0};
        if (ms) {
            ts.tv_sec = atoi(ms) / 1000;
            ts.tv_nsec = (long)(atoi(ms) % 1000) * 1000000L;
        }
        nanosleep(&ts, NULL);
        /* still readable after a timeout answered the client and the connection moved on */
        const char *au = kg_http_header_get(req, "authorization");
        if (!au || strncmp(au, "Bearer ", 7) != 0 || strcmp(req->path, "/slow") != 0)
            atomic_fetch_add(&slow_bad_reads, 1);
        if (kg_http_query(req, "stream")) {
            kg_http_stream *s = kg_http_respond_stream(req, resp, 200, "application/json", 0);
            kg_http_stream_on_done(s, on_done, NULL);
            pthread_mutex_lock(&reg_mu);
            reg[reg_n++] = s;
            pthread_mutex_unlock(&reg_mu);
            return;
        }
        kg_http_respond_bytes(resp, 200, "text/plain", "done", 4);
        return;
    }
    if (!strcmp(req->path, "/nothing"))
        return; /* no response set: 500 */
    kg_http_respond_status(req, resp, 404, "NotFound", "the server could not find the requested resource");
}

static kg_http_server *start(bool tls, bool anonymous_authn, unsigned workers)
{
    kg_http_config cfg;
    kg_http_config_defaults(&cfg);
    cfg.port = 0;
    cfg.worker_threads = workers;
    if (tls) {
        cfg.tls_cert_pem = tlsm.cert_pem;
        cfg.tls_key_pem = tlsm.key_pem;
    }
    static kg_authn *anon_authn;
    if (anonymous_authn) {
        if (!anon_authn) {
            kg_authn_config ac = {.anonymous_auth = true};
            kg_error err = {0};
            anon_authn = kg_authn_new(&ac, &err);
        }
        cfg.authn = anon_authn;
    } else {
        cfg.authn = authn;
    }
    cfg.authz = authz;
    cfg.handler = handler;
    kg_error err = {0};
    kg_http_server *s = kg_http_server_start(&cfg, &err);
    if (!s)
        fail_msg("start: %s", err.msg);
    return s;
}

static kg_authz_decision fail_on_path(void *ctx, const kg_authz_attributes *at, kg_arena *a, const char **reason,
                                      kg_error *err)
{
    (void)ctx;
    (void)a;
    (void)reason;
    if (!at->resource_request && at->path && strcmp(at->path, "/authz-error") == 0)
        kg_err_set(err, KG_EIO, "webhook authorizer unreachable");
    return KG_AUTHZ_NO_OPINION;
}
static kg_authorizer failing_authz = {NULL, fail_on_path, NULL}; /* borrowed: no destroy */

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/kg-http-XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    kg_error err = {0};
    kg_tls_config tc = {.data_dir = tmpdir};
    if (!kg_tls_load_or_generate(&tc, &tlsm, &err))
        return -1;
    char tokfile[400];
    snprintf(tokfile, sizeof(tokfile), "%s/tokens.csv", tmpdir);
    FILE *f = fopen(tokfile, "w");
    fputs("bob-token,bob,1001,\"devs\"\n", f);
    fclose(f);
    kg_authn_config ac = {.token_auth_file = tokfile, .data_dir = tmpdir, .anonymous_auth = false};
    authn = kg_authn_new(&ac, &err);
    if (!authn)
        return -1;
    snprintf(admin_hdr, sizeof(admin_hdr), "Authorization: Bearer %s", kg_authn_admin_token(authn));
    const char *masters[] = {"system:masters"};
    /* system:masters, then an authorizer that fails on /authz-error (no opinion elsewhere) */
    kg_authorizer *members[] = {kg_authz_new_privileged_groups(masters, 1), &failing_authz};
    authz = kg_authz_new_union(members, 2);
    curl_global_init(CURL_GLOBAL_ALL);
    srv = start(true, false, 8);
    snprintf(base_url, sizeof(base_url), "https://127.0.0.1:%d", kg_http_server_port(srv));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kg_http_server_stop(srv);
    kg_authn_free(authn);
    kg_authorizer_free(authz);
    kg_tls_material_free(&tlsm);
    curl_global_cleanup();
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- client helpers ---- */

typedef struct resp_buf {
    kg_buf body;
    kg_buf headers;
    long code;
    int chunks;
    size_t abort_after; /* abort the transfer once this many bytes arrived (0: never) */
} resp_buf;

static size_t on_body(char *p, size_t sz, size_t n, void *ud)
{
    resp_buf *r = ud;
    kg_buf_append(&r->body, p, sz * n);
    r->chunks++;
    if (r->abort_after && r->body.len >= r->abort_after)
        return 0;
    return sz * n;
}

static size_t on_header(char *p, size_t sz, size_t n, void *ud)
{
    resp_buf *r = ud;
    kg_buf_append(&r->headers, p, sz * n);
    return sz * n;
}

static CURL *client(const char *auth_header, struct curl_slist **hdrs)
{
    CURL *c = curl_easy_init();
    struct curl_blob ca = {.data = tlsm.ca_pem, .len = strlen(tlsm.ca_pem), .flags = CURL_BLOB_COPY};
    curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
    curl_easy_setopt(c, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    *hdrs = NULL;
    if (auth_header)
        *hdrs = curl_slist_append(*hdrs, auth_header);
    *hdrs = curl_slist_append(*hdrs, "Expect:");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, *hdrs);
    return c;
}

static CURLcode do_req(CURL *c, const char *method, const char *path, const char *body, size_t body_len, resp_buf *r)
{
    char url[1024];
    snprintf(url, sizeof(url), "%s%s", base_url, path);
    memset(r, 0, sizeof(*r));
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    } else {
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    }
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->code);
    kg_buf_cstr(&r->body);
    kg_buf_cstr(&r->headers);
    return rc;
}

static void resp_free(resp_buf *r)
{
    kg_buf_free(&r->body);
    kg_buf_free(&r->headers);
}

/* One request on a fresh handle: returns code, body copied into out (malloc'd). */
static long simple(const char *auth, const char *method, const char *path, char **out)
{
    struct curl_slist *h;
    CURL *c = client(auth, &h);
    resp_buf r;
    CURLcode rc = do_req(c, method, path, NULL, 0, &r);
    if (rc != CURLE_OK)
        fail_msg("%s %s: %s", method, path, curl_easy_strerror(rc));
    long code = r.code;
    if (out)
        *out = strdup(kg_buf_cstr(&r.body));
    resp_free(&r);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return code;
}

/* ---- tests ---- */

static void keepalive_and_request_fields(void **state)
{
    (void)state;
    struct curl_slist *h;
    CURL *c = client(admin_hdr, &h);
    h = curl_slist_append(h, "X-Test: hello");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    resp_buf r;
    assert_int_equal(do_req(c, "GET", "/echo?a=1&a=two%2F2&b=x+y%20z&c", NULL, 0, &r), CURLE_OK);
    assert_int_equal(r.code, 200);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err = {0};
    kg_json *j = kg_json_parse(&a, r.body.data, r.body.len, &err);
    assert_non_null(j);
    assert_string_equal(kg_json_get_str(j, "path"), "/echo");
    assert_string_equal(kg_json_get_str(j, "rawQuery"), "a=1&a=two%2F2&b=x+y%20z&c");
    assert_int_equal(kg_json_get(j, "a")->len, 2);
    assert_string_equal(kg_json_at(kg_json_get(j, "a"), 1)->u.s, "two/2");
    assert_string_equal(kg_json_get_str(j, "b"), "x y z");
    assert_string_equal(kg_json_get_str(j, "xTest"), "hello");
    assert_string_equal(kg_json_get_str(j, "user"), "kgate-admin");
    int64_t tmo = kg_json_get(j, "timeoutMs")->u.i;
    assert_true(tmo > 55000 && tmo <= 60000); /* default request timeout 60 s */
    assert_true(kg_json_get(j, "remote")->b);
    assert_true(kg_json_get(j, "tls")->b);
    assert_non_null(strstr(r.headers.data, "HTTP/1.1 200"));
    assert_non_null(strcasestr(r.headers.data, "Content-Type: application/json\r\n"));
    assert_non_null(strcasestr(r.headers.data, "X-Echo: yes\r\n"));
    assert_non_null(strcasestr(r.headers.data, "Cache-Control: no-cache, private\r\n"));
    assert_null(strcasestr(r.headers.data, "Connection: close"));
    resp_free(&r);

    /* percent-encoded path, second request on the same connection */
    assert_int_equal(do_req(c, "GET", "/api/v1/namespaces/my%20ns/pods/p%2F1?timeout=5s", NULL, 0, &r), CURLE_OK);
    assert_int_equal(r.code, 200);
    long connects = -1;
    curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &connects);
    assert_int_equal(connects, 0); /* keep-alive: no new connection */
    j = kg_json_parse(&a, r.body.data, r.body.len, &err);
    assert_string_equal(kg_json_get_str(j, "path"), "/api/v1/namespaces/my ns/pods/p/1");
    assert_string_equal(kg_json_get_str(j, "rawPath"), "/api/v1/namespaces/my%20ns/pods/p%2F1");
    assert_string_equal(kg_json_get_str(j, "verb"), "get");
    tmo = kg_json_get(j, "timeoutMs")->u.i;
    assert_true(tmo > 3000 && tmo <= 5000);
    resp_free(&r);

    /* a timeout above the maximum is clamped to the default; 0 means the default */
    assert_int_equal(do_req(c, "GET", "/echo?timeout=10m", NULL, 0, &r), CURLE_OK);
    j = kg_json_parse(&a, r.body.data, r.body.len, &err);
    tmo = kg_json_get(j, "timeoutMs")->u.i;
    assert_true(tmo > 55000 && tmo <= 60000);
    resp_free(&r);

    /* several requests in a row stay on the connection */
    for (int i = 0; i < 20; i++) {
        assert_int_equal(do_req(c, i % 2 ? "POST" : "GET", "/echo", i % 2 ? "{}" : NULL, 2, &r), CURLE_OK);
        assert_int_equal(r.code, 200);
        curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &connects);
        assert_int_equal(connects, 0);
        resp_free(&r);
    }
    kg_arena_free(&a);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
}

static void bad_timeout_and_errors(void **state)
{
    (void)state;
    char *body;
    assert_int_equal(simple(admin_hdr, "GET", "/echo?timeout=abc", &body), 400);
    assert_string_equal(body, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                              "\"message\":\"invalid timeout specified in the request URL - time: invalid duration "
                              "\\\"abc\\\"\",\"reason\":\"BadRequest\",\"code\":400}");
    free(body);
    /* checked before authentication, like WithRequestDeadline */
    assert_int_equal(simple(NULL, "GET", "/echo?timeout=5", &body), 400);
    assert_non_null(strstr(body, "time: missing unit in duration \\\"5\\\""));
    free(body);
    assert_int_equal(simple(admin_hdr, "GET", "/echo?timeout=1x", &body), 400);
    assert_non_null(strstr(body, "time: unknown unit \\\"x\\\" in duration \\\"1x\\\""));
    free(body);
    /* watch requests have no request deadline and ignore timeout= */
    /* a handler that sets nothing */
    assert_int_equal(simple(admin_hdr, "GET", "/nothing", &body), 500);
    free(body);
    assert_int_equal(simple(admin_hdr, "GET", "/nope", &body), 404);
    free(body);
    /* RequestInfo failure: 500 text like WithRequestInfo */
    assert_int_equal(simple(admin_hdr, "GET", "/api/v1/watch", &body), 500);
    assert_string_equal(body, "Internal Server Error: \"/api/v1/watch\": failed to create RequestInfo: unable to "
                              "determine kind and namespace from url, /api/v1/watch");
    free(body);
}

static void authentication_and_authorization(void **state)
{
    (void)state;
    char *body;
    const char *unauthorized = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                               "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}";
    assert_int_equal(simple(NULL, "GET", "/api/v1/namespaces", &body), 401);
    assert_string_equal(body, unauthorized);
    free(body);
    assert_int_equal(simple("Authorization: Bearer nope", "GET", "/api/v1/namespaces", &body), 401);
    assert_string_equal(body, unauthorized);
    free(body);
    assert_int_equal(simple("Authorization: Bearer bob-token", "GET", "/api/v1/namespaces/default/pods", &body), 403);
    assert_string_equal(body, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                              "\"message\":\"pods is forbidden: User \\\"bob\\\" cannot list resource \\\"pods\\\" in "
                              "API group \\\"\\\" in the namespace \\\"default\\\"\",\"reason\":\"Forbidden\","
                              "\"details\":{\"kind\":\"pods\"},\"code\":403}");
    free(body);
    assert_int_equal(simple("Authorization: Bearer bob-token", "GET", "/apis", &body), 403);
    assert_string_equal(body, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                              "\"message\":\"forbidden: User \\\"bob\\\" cannot get path \\\"/apis\\\"\",\"reason\":"
                              "\"Forbidden\",\"details\":{},\"code\":403}");
    free(body);
    assert_int_equal(simple(admin_hdr, "GET", "/api/v1/namespaces/default/pods", &body), 200);
    free(body);
    /* an authorizer error is a 500 (upstream InternalError); an allow from another authorizer still wins */
    assert_int_equal(simple("Authorization: Bearer bob-token", "GET", "/authz-error", &body), 500);
    assert_string_equal(body, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                              "\"message\":\"Internal error occurred: webhook authorizer unreachable\",\"reason\":"
                              "\"InternalError\",\"code\":500}");
    free(body);
    assert_int_not_equal(simple(admin_hdr, "GET", "/authz-error", &body), 500);
    free(body);

    /* 401/403 on a request with a body: answered without reading the body; the server keeps serving */
    struct curl_slist *h;
    CURL *c = client("Authorization: Bearer bob-token", &h);
    resp_buf r;
    size_t big = 2 * 1024 * 1024;
    char *payload = malloc(big);
    memset(payload, 'x', big);
    CURLcode rc = do_req(c, "POST", "/api/v1/namespaces/default/pods", payload, big, &r);
    assert_int_equal(rc, CURLE_OK); /* the body is drained (not stored), then 403 answered on a live connection */
    assert_int_equal(r.code, 403);
    assert_non_null(strstr(r.body.data, "pods is forbidden: User \\\"bob\\\" cannot create resource"));
    resp_free(&r);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    free(payload);
    assert_int_equal(simple(admin_hdr, "GET", "/echo", NULL), 200);

    /* anonymous requests allowed (plain HTTP server): system:anonymous is then forbidden by the authorizer */
    kg_http_server *s2 = start(false, true, 0);
    char saved[64];
    snprintf(saved, sizeof(saved), "%s", base_url);
    snprintf(base_url, sizeof(base_url), "http://127.0.0.1:%d", kg_http_server_port(s2));
    assert_int_equal(simple(NULL, "GET", "/api/v1/namespaces/default/configmaps/c", &body), 403);
    assert_string_equal(body,
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                        "\"message\":\"configmaps \\\"c\\\" is forbidden: User \\\"system:anonymous\\\" cannot "
                        "get resource \\\"configmaps\\\" in API group \\\"\\\" in the namespace \\\"default\\\"\","
                        "\"reason\":\"Forbidden\",\"details\":{\"name\":\"c\",\"kind\":\"configmaps\"},"
                        "\"code\":403}");
    free(body);
    /* a bad token is still 401 */
    assert_int_equal(simple("Authorization: Bearer nope", "GET", "/healthz", &body), 401);
    free(body);
    snprintf(base_url, sizeof(base_url), "%s", saved);
    kg_http_server_stop(s2);
}

static void body_limit(void **state)
{
    (void)state;
    const size_t limit = 3 * 1024 * 1024;
    char *payload = malloc(limit + 1);
    memset(payload, 'y', limit + 1);
    memcpy(payload, "{\"big\":", 7);
    struct curl_slist *h;
    CURL *c = client(admin_hdr, &h);
    resp_buf r;
    /* exactly 3 MiB is accepted */
    assert_int_equal(do_req(c, "POST", "/echo", payload, limit, &r), CURLE_OK);
    assert_int_equal(r.code, 200);
    assert_non_null(strstr(r.body.data, "\"bodyLen\":3145728,\"bodyHead\":\"{\\\"big\\\":y\""));
    resp_free(&r);
    /* one byte more: 413 with a Status body */
    assert_int_equal(do_req(c, "POST", "/echo", payload, limit + 1, &r), CURLE_OK);
    assert_int_equal(r.code, 413);
    assert_string_equal(r.body.data,
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                        "\"message\":\"Request entity too large: limit is 3145728\",\"reason\":"
                        "\"RequestEntityTooLarge\",\"code\":413}");
    assert_non_null(strcasestr(r.headers.data, "Connection: close"));
    resp_free(&r);
    /* the server still serves, on this handle and on new ones */
    assert_int_equal(do_req(c, "GET", "/echo", NULL, 0, &r), CURLE_OK);
    assert_int_equal(r.code, 200);
    resp_free(&r);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);

    /* with Expect: 100-continue the 413 comes before the body is sent */
    c = client(admin_hdr, &h);
    curl_slist_free_all(h); /* client() disables Expect; ask for it explicitly instead */
    h = curl_slist_append(NULL, admin_hdr);
    h = curl_slist_append(h, "Expect: 100-continue");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_EXPECT_100_TIMEOUT_MS, 10000L);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(do_req(c, "POST", "/echo", payload, limit + 1, &r), CURLE_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_int_equal(r.code, 413);
    assert_null(strstr(r.headers.data, "100 Continue"));
    assert_true((t1.tv_sec - t0.tv_sec) < 5); /* not waiting out the 10 s expect timeout */
    resp_free(&r);
    /* and a forbidden user is not invited to upload either */
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    c = client("Authorization: Bearer bob-token", &h);
    curl_slist_free_all(h);
    h = curl_slist_append(NULL, "Authorization: Bearer bob-token");
    h = curl_slist_append(h, "Expect: 100-continue");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_EXPECT_100_TIMEOUT_MS, 10000L);
    assert_int_equal(do_req(c, "POST", "/api/v1/namespaces/a/configmaps", payload, 5000, &r), CURLE_OK);
    assert_int_equal(r.code, 403);
    assert_null(strstr(r.headers.data, "100 Continue"));
    resp_free(&r);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);

    /* chunked upload (no Content-Length) past the limit: 413 too */
    c = client(admin_hdr, &h);
    h = curl_slist_append(h, "Transfer-Encoding: chunked");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    CURLcode rc = do_req(c, "PUT", "/echo", payload, limit + 1, &r);
    assert_int_equal(rc, CURLE_OK);
    assert_int_equal(r.code, 413);
    assert_non_null(strstr(r.body.data, "Request entity too large: limit is 3145728"));
    assert_non_null(strcasestr(r.headers.data, "Connection: close"));
    resp_free(&r);
    /* chunked under the limit works */
    assert_int_equal(do_req(c, "PUT", "/echo", payload, 1000, &r), CURLE_OK);
    assert_int_equal(r.code, 200);
    assert_non_null(strstr(r.body.data, "\"bodyLen\":1000"));
    resp_free(&r);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    free(payload);
    assert_int_equal(simple(admin_hdr, "GET", "/echo", NULL), 200);
}

/* ---- streams ---- */

static void reg_reset(void)
{
    pthread_mutex_lock(&reg_mu);
    reg_n = 0;
    pthread_mutex_unlock(&reg_mu);
    atomic_store(&on_done_calls, 0);
}

static int reg_count(void)
{
    pthread_mutex_lock(&reg_mu);
    int n = reg_n;
    pthread_mutex_unlock(&reg_mu);
    return n;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* on_done runs after the stream is marked done (and after the connection was resumed): wait for the count */
static int wait_on_done(int want, int ms)
{
    for (int waited = 0; atomic_load(&on_done_calls) < want && waited < ms; waited += 5)
        sleep_ms(5);
    return atomic_load(&on_done_calls);
}


typedef struct producer_arg {
    int nstreams;
    int nevents;
    int gap_ms;
} producer_arg;

static void *producer(void *p)
{
    producer_arg *pa = p;
    for (int waited = 0; reg_count() < pa->nstreams && waited < 30000; waited += 5)
        sleep_ms(5);
    for (int e = 0; e < pa->nevents; e++) {
        for (int i = 0; i < pa->nstreams; i++) {
            char ev[128];
            int n = snprintf(ev, sizeof(ev), "{\"type\":\"ADDED\",\"object\":{\"stream\":%d,\"n\":%d}}\n", i, e);
            kg_http_stream_write(reg[i], ev, (size_t)n);
        }
        sleep_ms(pa->gap_ms);
    }
    for (int i = 0; i < pa->nstreams; i++)
        kg_http_stream_close(reg[i]);
    return NULL;
}

static void streams_100_concurrent(void **state)
{
    (void)state;
    /* 100 by default; KG_TEST_STREAMS=500 for the 500-stream check (slow under sanitizers) */
    const char *env = getenv("KG_TEST_STREAMS");
    const int N = env && atoi(env) > 0 && atoi(env) <= MAX_STREAMS ? atoi(env) : 100;
    enum { EVENTS = 10 };
    reg_reset();
    kg_http_stats st0;
    kg_http_server_stats(srv, &st0);
    pthread_t pt;
    producer_arg pa = {N, EVENTS, 30};
    pthread_create(&pt, NULL, producer, &pa);

    CURLM *m = curl_multi_init();
    curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, 0L);
    CURL **easy = calloc((size_t)N, sizeof(*easy));
    resp_buf *rb = calloc((size_t)N, sizeof(*rb));
    struct curl_slist **hdrs = calloc((size_t)N, sizeof(*hdrs));
    bool *seen = calloc((size_t)N, sizeof(*seen));
    for (int i = 0; i < N; i++) {
        easy[i] = client(admin_hdr, &hdrs[i]);
        memset(&rb[i], 0, sizeof(rb[i]));
        char url[256];
        snprintf(url, sizeof(url), "%s/api/v1/namespaces/ns%d/pods?watch=true", base_url, i);
        curl_easy_setopt(easy[i], CURLOPT_URL, url);
        curl_easy_setopt(easy[i], CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(easy[i], CURLOPT_WRITEDATA, &rb[i]);
        curl_easy_setopt(easy[i], CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(easy[i], CURLOPT_HEADERDATA, &rb[i]);
        curl_easy_setopt(easy[i], CURLOPT_TIMEOUT, 60L);
        curl_multi_add_handle(m, easy[i]);
    }
    int running = 1;
    bool probed = false;
    double probe_ms = -1;
    while (running) {
        curl_multi_perform(m, &running);
        curl_multi_poll(m, NULL, 0, 100, NULL);
        /* a normal request while the streams are open */
        if (!probed && reg_count() == N) {
            probed = true;
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            assert_int_equal(simple(admin_hdr, "GET", "/echo", NULL), 200);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            probe_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
            kg_http_stats st;
            kg_http_server_stats(srv, &st);
            assert_true(st.streams_open >= (uint64_t)N - 5); /* all (or nearly all) open at once */
        }
    }
    assert_true(probed);
    print_message("  GET during %d open streams: %.1f ms (TLS handshake included)\n", N, probe_ms);
    CURLMsg *msg;
    int left;
    int ok = 0;
    while ((msg = curl_multi_info_read(m, &left)))
        if (msg->msg == CURLMSG_DONE && msg->data.result == CURLE_OK)
            ok++;
    assert_int_equal(ok, N);
    for (int i = 0; i < N; i++) {
        curl_easy_getinfo(easy[i], CURLINFO_RESPONSE_CODE, &rb[i].code);
        assert_int_equal(rb[i].code, 200);
        assert_non_null(strcasestr(kg_buf_cstr(&rb[i].headers), "Transfer-Encoding: chunked"));
        /* every client got all events of one producer stream, in order; each stream went to one client */
        int k = -1;
        assert_int_equal(sscanf(kg_buf_cstr(&rb[i].body), "{\"type\":\"ADDED\",\"object\":{\"stream\":%d", &k), 1);
        assert_true(k >= 0 && k < N && !seen[k]);
        seen[k] = true;
        kg_buf want = KG_BUF_INIT;
        for (int e = 0; e < EVENTS; e++)
            kg_buf_printf(&want, "{\"type\":\"ADDED\",\"object\":{\"stream\":%d,\"n\":%d}}\n", k, e);
        assert_string_equal(kg_buf_cstr(&rb[i].body), kg_buf_cstr(&want));
        kg_buf_free(&want);
        curl_multi_remove_handle(m, easy[i]);
        curl_easy_cleanup(easy[i]);
        curl_slist_free_all(hdrs[i]);
        resp_free(&rb[i]);
    }
    curl_multi_cleanup(m);
    free(easy);
    free(rb);
    free(hdrs);
    free(seen);
    pthread_join(pt, NULL);
    assert_int_equal(wait_on_done(0, 5000), 0); /* producer closed them all itself */
    kg_http_stats st;
    for (int waited = 0; waited < 2000; waited += 10) {
        kg_http_server_stats(srv, &st);
        if (st.streams_open == 0)
            break;
        sleep_ms(10);
    }
    assert_int_equal(st.streams_open, 0);
    assert_int_equal(st.streams_total - st0.streams_total, N);
}

typedef struct client_arg {
    const char *path;
    size_t abort_after;
    CURLcode rc;
    resp_buf r;
    double elapsed_ms;
} client_arg;

static void *client_thread(void *p)
{
    client_arg *ca = p;
    struct curl_slist *h;
    CURL *c = client(admin_hdr, &h);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char url[512];
    snprintf(url, sizeof(url), "%s%s", base_url, ca->path);
    memset(&ca->r, 0, sizeof(ca->r));
    ca->r.abort_after = ca->abort_after;
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &ca->r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &ca->r);
    ca->rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &ca->r.code);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ca->elapsed_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return NULL;
}

static bool wait_done(kg_http_stream *s, int ms)
{
    for (int waited = 0; waited < ms; waited += 5) {
        if (kg_http_stream_done(s))
            return true;
        sleep_ms(5);
    }
    return kg_http_stream_done(s);
}

static void stream_client_disconnect(void **state)
{
    (void)state;
    reg_reset();
    /* the client reads the first event and hangs up while the server has nothing to send (suspended) */
    client_arg ca = {.path = "/api/v1/watch/namespaces/default/pods", .abort_after = 1};
    pthread_t t;
    pthread_create(&t, NULL, client_thread, &ca);
    for (int w = 0; reg_count() < 1 && w < 10000; w += 5)
        sleep_ms(5);
    assert_int_equal(reg_count(), 1);
    kg_http_stream *s = reg[0];
    assert_true(kg_http_stream_write(s, "{\"type\":\"ADDED\"}\n", 17));
    pthread_join(t, NULL);
    assert_int_equal(ca.rc, CURLE_WRITE_ERROR); /* our abort */
    assert_true(wait_done(s, 3000));
    assert_int_equal(wait_on_done(1, 5000), 1);
    assert_false(kg_http_stream_write(s, "x", 1));
    kg_http_stream_close(s);
    resp_free(&ca.r);

    /* the same while data keeps flowing */
    reg_reset();
    client_arg cb = {.path = "/api/v1/pods?watch=1", .abort_after = 64 * 1024};
    pthread_create(&t, NULL, client_thread, &cb);
    for (int w = 0; reg_count() < 1 && w < 10000; w += 5)
        sleep_ms(5);
    s = reg[0];
    char chunk[4096];
    memset(chunk, 'z', sizeof(chunk));
    int writes = 0;
    while (kg_http_stream_write(s, chunk, sizeof(chunk)) && writes < 100000) {
        writes++;
        if (writes % 16 == 0)
            sleep_ms(1);
    }
    assert_true(writes < 100000);
    pthread_join(t, NULL);
    assert_true(wait_done(s, 3000));
    assert_int_equal(wait_on_done(1, 5000), 1);
    kg_http_stream_close(s);
    resp_free(&cb.r);
}

static void stream_deadline(void **state)
{
    (void)state;
    reg_reset();
    client_arg ca = {.path = "/api/v1/pods?watch=true&timeoutMs=400"};
    pthread_t t;
    pthread_create(&t, NULL, client_thread, &ca);
    for (int w = 0; reg_count() < 1 && w < 10000; w += 5)
        sleep_ms(5);
    kg_http_stream *s = reg[0];
    assert_true(kg_http_stream_write(s, "one\n", 4));
    pthread_join(t, NULL);
    /* ended cleanly (final chunk) after the deadline */
    assert_int_equal(ca.rc, CURLE_OK);
    assert_int_equal(ca.r.code, 200);
    assert_string_equal(kg_buf_cstr(&ca.r.body), "one\n");
    assert_true(ca.elapsed_ms >= 350 && ca.elapsed_ms < 5000);
    assert_true(kg_http_stream_done(s));
    /* the connection is resumed (and the client may finish) before on_done runs: wait for the callback */
    for (int w = 0; atomic_load(&on_done_calls) < 1 && w < 5000; w += 5)
        sleep_ms(5);
    assert_int_equal(wait_on_done(1, 5000), 1);
    assert_false(kg_http_stream_write(s, "two\n", 4));
    kg_http_stream_close(s);
    resp_free(&ca.r);
}

static void stop_with_open_streams(void **state)
{
    (void)state;
    reg_reset();
    kg_http_server *s2 = start(true, false, 2);
    char saved[64];
    snprintf(saved, sizeof(saved), "%s", base_url);
    snprintf(base_url, sizeof(base_url), "https://127.0.0.1:%d", kg_http_server_port(s2));
    client_arg ca[3];
    pthread_t t[3];
    for (int i = 0; i < 3; i++) {
        memset(&ca[i], 0, sizeof(ca[i]));
        ca[i].path = "/api/v1/pods?watch=true";
        pthread_create(&t[i], NULL, client_thread, &ca[i]);
    }
    for (int w = 0; reg_count() < 3 && w < 10000; w += 5)
        sleep_ms(5);
    assert_int_equal(reg_count(), 3);
    kg_http_stream_write(reg[0], "a\n", 2);
    sleep_ms(100);
    kg_http_server_stop(s2); /* must not hang on the suspended connections */
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
        assert_true(kg_http_stream_done(reg[i]));
        assert_false(kg_http_stream_write(reg[i], "b\n", 2));
        kg_http_stream_close(reg[i]); /* still valid after the server is gone */
        resp_free(&ca[i].r);
    }
    assert_int_equal(wait_on_done(3, 5000), 3);
    snprintf(base_url, sizeof(base_url), "%s", saved);
}

static void inline_handlers_plain_http(void **state)
{
    (void)state;
    kg_http_server *s2 = start(false, false, 0);
    char saved[64];
    snprintf(saved, sizeof(saved), "%s", base_url);
    snprintf(base_url, sizeof(base_url), "http://127.0.0.1:%d", kg_http_server_port(s2));
    struct curl_slist *h;
    CURL *c = client(admin_hdr, &h);
    resp_buf r;
    for (int i = 0; i < 10; i++) {
        assert_int_equal(do_req(c, "GET", "/echo?b=plain", NULL, 0, &r), CURLE_OK);
        assert_int_equal(r.code, 200);
        assert_non_null(strstr(r.body.data, "\"b\":\"plain\""));
        assert_non_null(strstr(r.body.data, "\"tls\":false"));
        resp_free(&r);
    }
    long connects = -1;
    curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &connects);
    assert_int_equal(connects, 0);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    /* binding a port in use fails with a clear message */
    kg_http_config cfg;
    kg_http_config_defaults(&cfg);
    cfg.port = kg_http_server_port(s2);
    cfg.handler = handler;
    kg_error err = {0};
    assert_null(kg_http_server_start(&cfg, &err));
    char want[128];
    snprintf(want, sizeof(want), "listen tcp 127.0.0.1:%d: bind: Address already in use", cfg.port);
    assert_string_equal(err.msg, want);
    kg_http_server_stop(s2);

    /* IPv6 loopback */
    kg_http_config_defaults(&cfg);
    cfg.port = 0;
    cfg.bind_address = "::1";
    cfg.handler = handler;
    cfg.authn = authn;
    s2 = kg_http_server_start(&cfg, &err);
    assert_non_null(s2);
    snprintf(base_url, sizeof(base_url), "http://[::1]:%d", kg_http_server_port(s2));
    char *body;
    assert_int_equal(simple(admin_hdr, "GET", "/echo", &body), 200);
    assert_non_null(strstr(body, "\"remoteAddr\":\"[::1]:"));
    free(body);
    kg_http_server_stop(s2);
    /* a bad bind address */
    cfg.bind_address = "not-an-ip";
    assert_null(kg_http_server_start(&cfg, &err));
    assert_string_equal(err.msg, "invalid bind address \"not-an-ip\"");
    snprintf(base_url, sizeof(base_url), "%s", saved);
}

static void handler_timeout(void **state)
{
    (void)state;
    char *body;
    /* a write (offloaded) that outlives ?timeout=: 504 like WithTimeoutForNonLongRunningRequests */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(simple(admin_hdr, "POST", "/slow?sleepMs=1500&timeout=300ms", &body), 504);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    assert_true(ms >= 250 && ms < 1400);
    assert_string_equal(body, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                              "\"message\":\"Timeout: request did not complete within requested timeout - context "
                              "deadline exceeded\",\"reason\":\"Timeout\",\"details\":{},\"code\":504}");
    free(body);
    /* in time: the handler's answer */
    assert_int_equal(simple(admin_hdr, "POST", "/slow?sleepMs=50&timeout=5s", &body), 200);
    assert_string_equal(body, "done");
    free(body);
    /* a stream created after the deadline is never attached: its producer sees it done */
    reg_reset();
    assert_int_equal(simple(admin_hdr, "POST", "/slow?sleepMs=600&timeout=200ms&stream=1", &body), 504);
    free(body);
    for (int w = 0; reg_count() < 1 && w < 5000; w += 5)
        sleep_ms(5);
    assert_int_equal(reg_count(), 1);
    assert_true(wait_done(reg[0], 2000));
    assert_false(kg_http_stream_write(reg[0], "x", 1));
    kg_http_stream_close(reg[0]);
    /* the first slow handler is still running in a worker; the server keeps serving meanwhile */
    assert_int_equal(simple(admin_hdr, "GET", "/echo", NULL), 200);
    /* keep that connection busy so MHD reuses its memory while the first slow handler still runs */
    for (int i = 0; i < 20; i++)
        assert_int_equal(simple(admin_hdr, "GET", "/echo?pad=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", NULL),
                         200);
    sleep_ms(1300); /* let it finish and release its request */
    assert_int_equal(atomic_load(&slow_bad_reads), 0);
}

static atomic_int offload_calls;
static bool offload_always(void *ud, const kg_http_request *req)
{
    (void)ud;
    (void)req;
    atomic_fetch_add(&offload_calls, 1);
    return true;
}

static void offload_policy(void **state)
{
    (void)state;
    static const struct {
        const char *method, *path, *query;
        bool offload;
    } cases[] = {
        {"GET", "/api/v1/namespaces/a/pods", "", false},
        {"GET", "/api/v1/namespaces/a/pods/p", "", false},
        {"GET", "/api/v1/pods", "watch=1", false},
        {"POST", "/api/v1/namespaces/a/pods", "", true},
        {"PUT", "/api/v1/namespaces/a/pods/p", "", true},
        {"PATCH", "/apis/apps/v1/namespaces/a/deployments/d", "", true},
        {"DELETE", "/api/v1/namespaces/a/pods", "", true},
        {"GET", "/healthz", "", false},
        {"HEAD", "/version", "", false},
        {"POST", "/apis/authentication.k8s.io", "", true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        kg_arena a;
        kg_arena_init(&a, 0);
        kg_request_info ri;
        kg_error err = {0};
        assert_true(kg_requestinfo_parse_url(&a, cases[i].method, cases[i].path, cases[i].query, &ri, &err));
        kg_http_request req = {.arena = &a, .method = cases[i].method, .path = cases[i].path, .info = &ri};
        if (kg_http_offload_default(NULL, &req) != cases[i].offload)
            fail_msg("%s %s: offload %d", cases[i].method, cases[i].path, !cases[i].offload);
        kg_arena_free(&a);
    }

    /* everything on workers, streams included (the response is queued after the worker resumes the connection) */
    kg_http_config cfg;
    kg_http_config_defaults(&cfg);
    cfg.port = 0;
    cfg.worker_threads = 2;
    cfg.tls_cert_pem = tlsm.cert_pem;
    cfg.tls_key_pem = tlsm.key_pem;
    cfg.authn = authn;
    cfg.authz = authz;
    cfg.handler = handler;
    cfg.offload = offload_always;
    kg_error err = {0};
    kg_http_server *s2 = kg_http_server_start(&cfg, &err);
    assert_non_null(s2);
    char saved[64];
    snprintf(saved, sizeof(saved), "%s", base_url);
    snprintf(base_url, sizeof(base_url), "https://127.0.0.1:%d", kg_http_server_port(s2));
    atomic_store(&offload_calls, 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(simple(admin_hdr, "GET", "/echo", NULL), 200);
    /* filters still answer on the network thread: no offload call for a 401 */
    assert_int_equal(simple(NULL, "GET", "/echo", NULL), 401);
    assert_int_equal(atomic_load(&offload_calls), 5);
    reg_reset();
    client_arg ca = {.path = "/api/v1/pods?watch=true"};
    pthread_t t;
    pthread_create(&t, NULL, client_thread, &ca);
    for (int w = 0; reg_count() < 1 && w < 10000; w += 5)
        sleep_ms(5);
    assert_int_equal(reg_count(), 1);
    assert_true(kg_http_stream_write(reg[0], "e1\n", 3));
    sleep_ms(50);
    assert_true(kg_http_stream_write(reg[0], "e2\n", 3));
    kg_http_stream_close(reg[0]);
    pthread_join(t, NULL);
    assert_int_equal(ca.rc, CURLE_OK);
    assert_string_equal(kg_buf_cstr(&ca.r.body), "e1\ne2\n");
    resp_free(&ca.r);
    kg_http_server_stop(s2);
    snprintf(base_url, sizeof(base_url), "%s", saved);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keepalive_and_request_fields),
        cmocka_unit_test(bad_timeout_and_errors),
        cmocka_unit_test(authentication_and_authorization),
        cmocka_unit_test(body_limit),
        cmocka_unit_test(streams_100_concurrent),
        cmocka_unit_test(stream_client_disconnect),
        cmocka_unit_test(stream_deadline),
        cmocka_unit_test(stop_with_open_streams),
        cmocka_unit_test(inline_handlers_plain_http),
        cmocka_unit_test(offload_policy),
        cmocka_unit_test(handler_timeout),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
