/* kgate webhook's transport: the serving pair re-read when its files change (a broken new pair logged and the old
 * one kept), client certificates required and verified with --client-ca-file, and 429 over
 * --max-requests-inflight. Certificates come from the openssl command line, as an operator would make them. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "base/buf.h"
#include "webhookdoor/door.h"

static char dir[256];

static void sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (system(cmd) != 0)
        fail_msg("command failed: %s", cmd);
}

/* A CA NAME and a certificate LEAF signed by it (EC P-256; server certs for 127.0.0.1, client certs clientAuth). */
static void make_ca(const char *name)
{
    sh("cd %s && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout %s.key -out %s.crt "
       "-subj /CN=%s -days 2 2>/dev/null",
       dir, name, name, name);
}

static void make_leaf(const char *ca, const char *leaf, bool client)
{
    sh("cd %s && printf '%s' >%s.ext && openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "
       "%s.key -out %s.csr -subj /CN=%s 2>/dev/null && openssl x509 -req -in %s.csr -CA %s.crt -CAkey %s.key "
       "-CAcreateserial -out %s.crt -days 2 -extfile %s.ext 2>/dev/null",
       dir, client ? "extendedKeyUsage=clientAuth\\n" : "subjectAltName=IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n",
       leaf, leaf, leaf, leaf, leaf, ca, ca, leaf, leaf);
}

static int setup(void **state)
{
    (void)state;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    snprintf(dir, sizeof dir, "/tmp/kg-doortls-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    make_ca("ca1");
    make_ca("ca2");
    make_leaf("ca1", "srv1", false);
    make_leaf("ca2", "srv2", false);
    make_leaf("ca1", "cli1", true);
    make_leaf("ca2", "cli2", true);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    curl_global_cleanup();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static size_t on_body(char *p, size_t sz, size_t n, void *ud)
{
    kg_buf_append(ud, p, sz * n);
    return sz * n;
}

static size_t on_header(char *p, size_t sz, size_t n, void *ud)
{
    if (!strncasecmp(p, "Retry-After:", 12))
        snprintf(ud, 32, "%.*s", (int)strcspn(p + 12, "\r\n"), p + 12);
    return sz * n;
}

typedef struct call {
    const char *ca, *cert, *key; /* file names in dir */
    const char *path;
    const char *body;
    int body_delay_ms; /* hold the request: headers first, the body this much later */
    CURLcode rc;
    long status;
    kg_buf out;
    char retry_after[32];
    int port;
} call;

static size_t slow_body(char *buf, size_t sz, size_t n, void *ud)
{
    call *c = ud;
    if (c->body_delay_ms) {
        usleep((useconds_t)c->body_delay_ms * 1000);
        c->body_delay_ms = 0;
    }
    size_t len = strlen(c->body);
    if (!len)
        return 0;
    size_t k = len < sz * n ? len : sz * n;
    memcpy(buf, c->body, k);
    c->body += k;
    return k;
}

static void *do_call(void *arg)
{
    call *c = arg;
    char url[256], f[3][512];
    snprintf(url, sizeof url, "https://127.0.0.1:%d%s", c->port, c->path);
    CURL *h = curl_easy_init();
    curl_easy_setopt(h, CURLOPT_URL, url);
    snprintf(f[0], sizeof f[0], "%s/%s", dir, c->ca);
    curl_easy_setopt(h, CURLOPT_CAINFO, f[0]);
    if (c->cert) {
        snprintf(f[1], sizeof f[1], "%s/%s", dir, c->cert);
        snprintf(f[2], sizeof f[2], "%s/%s", dir, c->key);
        curl_easy_setopt(h, CURLOPT_SSLCERT, f[1]);
        curl_easy_setopt(h, CURLOPT_SSLKEY, f[2]);
    }
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 10L);
    curl_easy_setopt(h, CURLOPT_FORBID_REUSE, 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &c->out);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, c->retry_after);
    struct curl_slist *hd = curl_slist_append(NULL, "Content-Type: application/json");
    hd = curl_slist_append(hd, "Expect:");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
    if (c->body) {
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(c->body));
        curl_easy_setopt(h, CURLOPT_READFUNCTION, slow_body);
        curl_easy_setopt(h, CURLOPT_READDATA, c);
    }
    c->rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &c->status);
    curl_slist_free_all(hd);
    curl_easy_cleanup(h);
    return NULL;
}

static call get(kg_door *d, const char *ca, const char *cert, const char *key)
{
    call c = {.ca = ca, .cert = cert, .key = key, .path = "/readyz", .port = kg_door_port(d), .out = KG_BUF_INIT};
    do_call(&c);
    kg_buf_free(&c.out);
    return c;
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    bind(fd, (struct sockaddr *)&sa, sizeof sa);
    getsockname(fd, (struct sockaddr *)&sa, &len);
    close(fd);
    return ntohs(sa.sin_port);
}

static kg_door *start(const char *client_ca, int max_inflight)
{
    char cert[512], key[512], ca[512];
    snprintf(cert, sizeof cert, "%s/serving.crt", dir);
    snprintf(key, sizeof key, "%s/serving.key", dir);
    snprintf(ca, sizeof ca, "%s/%s", dir, client_ca ? client_ca : "");
    sh("cp %s/srv1.crt %s && cp %s/srv1.key %s", dir, cert, dir, key);
    kg_door_config cfg = {.bind_address = "127.0.0.1",
                          .tls_cert_file = cert,
                          .tls_key_file = key,
                          .client_ca_file = client_ca ? ca : NULL,
                          .max_inflight = max_inflight,
                          .health_port = client_ca ? free_port() : 0,
                          .cert_reload_interval_ms = 100};
    KG_ERROR_DECL(err);
    kg_door *d = kg_door_start(&cfg, &err);
    if (!d)
        fail_msg("door: %s", err.msg);
    return d;
}

/* Wait (up to 5 s) until a fresh connection trusting ca succeeds. */
static bool served_by(kg_door *d, const char *ca)
{
    for (int i = 0; i < 100; i++) {
        if (get(d, ca, NULL, NULL).status == 200)
            return true;
        usleep(50000);
    }
    return false;
}

static void serving_pair_reloaded_on_change(void **state)
{
    (void)state;
    kg_door *d = start(NULL, 0);
    assert_int_equal(get(d, "ca1.crt", NULL, NULL).status, 200);
    assert_int_not_equal(get(d, "ca2.crt", NULL, NULL).rc, CURLE_OK);

    /* rotate: key first, then certificate (a moment where the pair does not match: refused, old kept) */
    sh("cp %s/srv2.key %s/serving.key.tmp && mv %s/serving.key.tmp %s/serving.key", dir, dir, dir, dir);
    usleep(300000);
    assert_int_equal(get(d, "ca1.crt", NULL, NULL).status, 200); /* mismatched pair: still the old certificate */
    sh("cp %s/srv2.crt %s/serving.crt.tmp && mv %s/serving.crt.tmp %s/serving.crt", dir, dir, dir, dir);
    assert_true(served_by(d, "ca2.crt"));
    assert_int_not_equal(get(d, "ca1.crt", NULL, NULL).rc, CURLE_OK);

    /* a broken certificate file: logged, the current pair kept */
    sh("echo garbage >%s/serving.crt", dir);
    usleep(300000);
    assert_int_equal(get(d, "ca2.crt", NULL, NULL).status, 200);
    kg_door_stop(d);
}

static void client_certificates_required_with_client_ca(void **state)
{
    (void)state;
    kg_door *d = start("ca1.crt", 0);
    assert_int_equal(get(d, "ca1.crt", "cli1.crt", "cli1.key").status, 200);
    call none = get(d, "ca1.crt", NULL, NULL);
    assert_int_not_equal(none.rc, CURLE_OK); /* the handshake fails: no HTTP answer at all */
    assert_int_equal(none.status, 0);
    call other = get(d, "ca1.crt", "cli2.crt", "cli2.key");
    assert_int_not_equal(other.rc, CURLE_OK);
    assert_int_equal(other.status, 0);
    /* probes without a certificate: the plain-HTTP health port, which serves no reviews */
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/readyz", kg_door_health_port(d));
    CURL *h = curl_easy_init();
    kg_buf body = KG_BUF_INIT;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
    assert_int_equal(curl_easy_perform(h), CURLE_OK);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    assert_int_equal(status, 200);
    assert_string_equal(kg_buf_cstr(&body), "ok");
    snprintf(url, sizeof url, "http://127.0.0.1:%d/validate", kg_door_health_port(d));
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, "{}");
    assert_int_equal(curl_easy_perform(h), CURLE_OK);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    assert_int_equal(status, 404);
    curl_easy_cleanup(h);
    kg_buf_free(&body);
    kg_door_stop(d);
}

static void too_many_requests_over_the_limit(void **state)
{
    (void)state;
    kg_door *d = start(NULL, 1);
    static const char review[] = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}";
    call held = {.ca = "ca1.crt",
                 .path = "/validate",
                 .body = review,
                 .body_delay_ms = 1500,
                 .port = kg_door_port(d),
                 .out = KG_BUF_INIT};
    pthread_t t;
    pthread_create(&t, NULL, do_call, &held);
    usleep(500000); /* its headers are in: it holds the only slot */
    call over = {.ca = "ca1.crt", .path = "/validate", .body = review, .port = kg_door_port(d), .out = KG_BUF_INIT};
    do_call(&over);
    assert_int_equal(over.status, 429);
    assert_string_equal(over.retry_after, " 1");
    assert_non_null(strstr(kg_buf_cstr(&over.out), "\"kind\":\"Status\""));
    assert_non_null(strstr(kg_buf_cstr(&over.out), "\"reason\":\"TooManyRequests\""));
    assert_non_null(strstr(kg_buf_cstr(&over.out), "\"message\":\"Too many requests, please try again later.\""));
    assert_non_null(strstr(kg_buf_cstr(&over.out), "\"code\":429"));
    assert_int_equal(get(d, "ca1.crt", NULL, NULL).status, 200); /* probes are not counted */
    pthread_join(t, NULL);
    assert_int_equal(held.status, 400); /* the held request was served (a review without request: 400) */
    call after = {.ca = "ca1.crt", .path = "/validate", .body = review, .port = kg_door_port(d), .out = KG_BUF_INIT};
    do_call(&after);
    assert_int_equal(after.status, 400); /* the slot is free again */
    kg_buf_free(&held.out);
    kg_buf_free(&over.out);
    kg_buf_free(&after.out);
    kg_door_stop(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(serving_pair_reloaded_on_change),
        cmocka_unit_test(client_certificates_required_with_client_ca),
        cmocka_unit_test(too_many_requests_over_the_limit),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
