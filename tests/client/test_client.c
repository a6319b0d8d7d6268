/* The HTTP client against in-test servers: requests and headers, connection reuse, per-call timeouts, typed
 * failures (connect, timeout, TLS, HTTP status, too large), TLS with CA bundles and client certificates, and
 * kubeconfig loading. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/str.h"
#include "client/client.h"

static char tmpdir[256];
static struct MHD_Daemon *plain, *tls;
static int plain_port, tls_port;
static int connections; /* atomic: TCP connections the servers accepted */
static char *ca_pem, *srv_cert, *srv_key, *cli_cert, *cli_key;

typedef struct upload {
    kg_buf body;
} upload;

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static const char *hdr(struct MHD_Connection *c, const char *name)
{
    const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
    return v ? v : "";
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *data, size_t *data_size, void **con_cls)
{
    upload *u = *con_cls;
    if (!u) {
        u = calloc(1, sizeof *u);
        *con_cls = u;
        return MHD_YES;
    }
    if (*data_size) {
        kg_buf_append(&u->body, data, *data_size);
        *data_size = 0;
        return MHD_YES;
    }
    if (!strcmp(url, "/echo")) {
        kg_buf b = KG_BUF_INIT;
        kg_buf_printf(&b, "{\"method\":\"%s\",\"auth\":\"%s\",\"ua\":\"%s\",\"x\":\"%s\",\"body\":\"%.*s\"}", method,
                      hdr(c, "Authorization"), hdr(c, "User-Agent"), hdr(c, "X-Test"), (int)u->body.len,
                      u->body.data ? u->body.data : "");
        enum MHD_Result r = reply(c, 200, b.data);
        kg_buf_free(&b);
        return r;
    }
    if (!strcmp(url, "/slow")) {
        usleep(1500 * 1000);
        return reply(c, 200, "{}");
    }
    if (!strcmp(url, "/big")) {
        char *big = malloc(64 * 1024 + 1);
        memset(big, 'x', 64 * 1024);
        big[64 * 1024] = 0;
        enum MHD_Result r = reply(c, 200, big);
        free(big);
        return r;
    }
    return reply(
        c, 404,
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"widgets \\\"w\\\" not "
        "found\",\"reason\":\"NotFound\",\"code\":404}");
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
    upload *u = *con_cls;
    if (u) {
        kg_buf_free(&u->body);
        free(u);
    }
    *con_cls = NULL;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        __atomic_add_fetch(&connections, 1, __ATOMIC_RELAXED);
}

static char *url_of(kg_arena *a, bool https, int port)
{
    return kg_arena_sprintf(a, "%s://127.0.0.1:%d/", https ? "https" : "http", port);
}

static void requests_and_headers(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    KG_ERROR_DECL(err);
    kg_client *c = kg_client_new(&(kg_client_config){.server = url_of(&a, false, plain_port), .token = "t0k"}, &err);
    assert_non_null(c);
    assert_string_equal(kg_client_server(c), kg_arena_sprintf(&a, "http://127.0.0.1:%d", plain_port));
    const char *hdrs[] = {"X-Test: yes"};
    kg_client_response resp;
    kg_client_request req = {.method = "PUT", .path = "/echo", .headers = hdrs, .nheaders = 1, .body = "abc"};
    assert_int_equal(kg_client_do(c, &a, &req, &resp, &err), KG_CLIENT_OK);
    assert_int_equal(resp.status, 200);
    assert_string_equal(resp.body,
                        "{\"method\":\"PUT\",\"auth\":\"Bearer t0k\",\"ua\":\"kgate\",\"x\":\"yes\",\"body\":\"abc\"}");
    /* JSON helper: GET, POST with a body */
    kg_json *doc = kg_client_json(c, &a, "GET", "/echo", NULL, NULL, &err);
    assert_non_null(doc);
    assert_string_equal(kg_json_get_str(doc, "method"), "GET");
    kg_client_result r;
    doc = kg_client_json(c, &a, "POST", "/echo", "{}", &r, &err);
    assert_int_equal(r, KG_CLIENT_OK);
    assert_string_equal(kg_json_get_str(doc, "method"), "POST");
    assert_string_equal(kg_json_get_str(doc, "body"), "{}");
    /* HTTP status: typed, body kept, the Status message in the JSON helper's error */
    req = (kg_client_request){.method = "GET", .path = "/nothing"};
    assert_int_equal(kg_client_do(c, &a, &req, &resp, &err), KG_CLIENT_HTTP_ERROR);
    assert_int_equal(resp.status, 404);
    assert_int_equal(err.code, KG_ENOTFOUND);
    assert_non_null(strstr(resp.body, "NotFound"));
    assert_null(kg_client_json(c, &a, "GET", "/nothing", NULL, &r, &err));
    assert_int_equal(r, KG_CLIENT_HTTP_ERROR);
    assert_string_equal(err.msg, kg_arena_sprintf(&a,
                                                  "GET http://127.0.0.1:%d/nothing: the server responded with status "
                                                  "404: widgets \"w\" not found",
                                                  plain_port));
    assert_null(kg_client_new(&(kg_client_config){.server = ""}, &err));
    assert_int_equal(err.code, KG_EINVAL);
    kg_client_free(c);
    kg_arena_free(&a);
}

typedef struct worker {
    kg_client *c;
    int ok;
} worker;

static void *hammer(void *p)
{
    worker *w = p;
    kg_arena a;
    kg_arena_init(&a, 0);
    for (int i = 0; i < 20; i++) {
        kg_client_response resp;
        kg_client_request req = {.method = "GET", .path = "/echo"};
        if (kg_client_do(w->c, &a, &req, &resp, NULL) == KG_CLIENT_OK)
            w->ok++;
        kg_arena_reset(&a);
    }
    kg_arena_free(&a);
    return NULL;
}

static void connections_are_reused(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_client *c = kg_client_new(&(kg_client_config){.server = url_of(&a, false, plain_port)}, NULL);
    int before = __atomic_load_n(&connections, __ATOMIC_RELAXED);
    for (int i = 0; i < 10; i++) {
        kg_client_response resp;
        kg_client_request req = {.method = "GET", .path = "/echo"};
        assert_int_equal(kg_client_do(c, &a, &req, &resp, NULL), KG_CLIENT_OK);
    }
    assert_int_equal(__atomic_load_n(&connections, __ATOMIC_RELAXED) - before, 1);
    /* many threads share a client: at most a handle (connection) per concurrent request, not one per request */
    worker w[4] = {{c, 0}, {c, 0}, {c, 0}, {c, 0}};
    pthread_t t[4];
    before = __atomic_load_n(&connections, __ATOMIC_RELAXED);
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, hammer, &w[i]);
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].ok, 20);
    }
    assert_true(__atomic_load_n(&connections, __ATOMIC_RELAXED) - before <= 4);
    kg_client_free(c);
    kg_arena_free(&a);
}

static void typed_failures(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    KG_ERROR_DECL(err);
    kg_client_response resp;
    /* timeout: per call, or the client's default */
    kg_client *c = kg_client_new(&(kg_client_config){.server = url_of(&a, false, plain_port)}, NULL);
    kg_client_request req = {.method = "GET", .path = "/slow", .timeout_ms = 200};
    assert_int_equal(kg_client_do(c, &a, &req, &resp, &err), KG_CLIENT_TIMEOUT);
    assert_int_equal(err.code, KG_ETIMEOUT);
    assert_int_equal(resp.status, 0);
    assert_string_equal(resp.body, "");
    kg_client_free(c);
    c = kg_client_new(&(kg_client_config){.server = url_of(&a, false, plain_port), .timeout_ms = 200}, NULL);
    req.timeout_ms = 0;
    assert_int_equal(kg_client_do(c, &a, &req, &resp, &err), KG_CLIENT_TIMEOUT);
    /* too large */
    kg_client_free(c);
    c = kg_client_new(&(kg_client_config){.server = url_of(&a, false, plain_port), .max_body = 1000}, NULL);
    req = (kg_client_request){.method = "GET", .path = "/big"};
    assert_int_equal(kg_client_do(c, &a, &req, &resp, &err), KG_CLIENT_TOO_LARGE);
    assert_int_equal(err.code, KG_ETOOLARGE);
    kg_client_free(c);
    /* connection refused: a port nobody listens on */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(getsockname(s, (struct sockaddr *)&sa, &sl), 0);
    close(s);
    c = kg_client_new(&(kg_client_config){.server = url_of(&a, false, ntohs(sa.sin_port))}, NULL);
    req = (kg_client_request){.method = "GET", .path = "/echo"};
    assert_int_equal(kg_client_do(c, &a, &req, &resp, &err), KG_CLIENT_CONNECT);
    assert_int_equal(err.code, KG_EIO);
    assert_non_null(strstr(err.msg, "GET http://127.0.0.1:"));
    kg_client_free(c);
    /* TLS: the test CA is not among the system's */
    c = kg_client_new(&(kg_client_config){.server = url_of(&a, true, tls_port)}, NULL);
    assert_int_equal(kg_client_do(c, &a, &req, &resp, &err), KG_CLIENT_TLS);
    kg_client_free(c);
    /* TLS: speaking TLS to a plain HTTP server */
    c = kg_client_new(&(kg_client_config){.server = url_of(&a, true, plain_port), .insecure = true}, NULL);
    kg_client_result r = kg_client_do(c, &a, &req, &resp, &err);
    assert_true(r == KG_CLIENT_TLS || r == KG_CLIENT_TRANSPORT);
    kg_client_free(c);
    assert_string_equal(kg_client_result_name(KG_CLIENT_TLS), "tls");
    kg_arena_free(&a);
}

static void tls_with_ca_and_client_certificate(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    KG_ERROR_DECL(err);
    kg_client_response resp;
    kg_client_request req = {.method = "GET", .path = "/echo"};
    /* PEM data */
    kg_client *c = kg_client_new(
        &(kg_client_config){
            .server = url_of(&a, true, tls_port), .ca_pem = ca_pem, .cert_pem = cli_cert, .key_pem = cli_key},
        &err);
    int before = __atomic_load_n(&connections, __ATOMIC_RELAXED);
    for (int i = 0; i < 3; i++)
        assert_int_equal(kg_client_do(c, &a, &req, &resp, &err), KG_CLIENT_OK);
    assert_int_equal(__atomic_load_n(&connections, __ATOMIC_RELAXED) - before, 1); /* one handshake */
    kg_client_free(c);
    /* files */
    c = kg_client_new(&(kg_client_config){.server = url_of(&a, true, tls_port),
                                          .ca_file = kg_arena_sprintf(&a, "%s/pki/ca.crt", tmpdir),
                                          .cert_file = kg_arena_sprintf(&a, "%s/pki/client.crt", tmpdir),
                                          .key_file = kg_arena_sprintf(&a, "%s/pki/client.key", tmpdir)},
                      &err);
    assert_int_equal(kg_client_do(c, &a, &req, &resp, &err), KG_CLIENT_OK);
    kg_client_free(c);
    /* a broken client certificate is a TLS failure */
    c = kg_client_new(&(kg_client_config){.server = url_of(&a, true, tls_port),
                                          .ca_pem = ca_pem,
                                          .cert_pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
                                          .key_pem = cli_key},
                      &err);
    assert_int_equal(kg_client_do(c, &a, &req, &resp, &err), KG_CLIENT_TLS);
    kg_client_free(c);
    kg_arena_free(&a);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void kubeconfig(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    KG_ERROR_DECL(err);
    /* YAML, relative CA and client files, tokenFile (trimmed) */
    char *p = kg_arena_sprintf(&a, "%s/kubeconfig", tmpdir);
    write_file(kg_arena_sprintf(&a, "%s/token", tmpdir), "  file-token\n");
    write_file(p, kg_arena_sprintf(&a,
                                   "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                                   "contexts:\n- name: other\n  context: {cluster: nope, user: nope}\n"
                                   "- name: c\n  context: {cluster: k, user: u}\n"
                                   "clusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:%d\n"
                                   "    certificate-authority: pki/ca.crt\n"
                                   "users:\n- name: u\n  user:\n    tokenFile: token\n"
                                   "    client-certificate: pki/client.crt\n    client-key: %s/pki/client.key\n",
                                   tls_port, tmpdir));
    kg_client_config cfg;
    assert_true(kg_client_config_from_kubeconfig(&a, p, &cfg, &err));
    assert_string_equal(cfg.server, kg_arena_sprintf(&a, "https://127.0.0.1:%d", tls_port));
    assert_string_equal(cfg.ca_file, kg_arena_sprintf(&a, "%s/pki/ca.crt", tmpdir));
    assert_string_equal(cfg.cert_file, kg_arena_sprintf(&a, "%s/pki/client.crt", tmpdir));
    assert_string_equal(cfg.key_file, kg_arena_sprintf(&a, "%s/pki/client.key", tmpdir));
    assert_string_equal(cfg.token, "file-token");
    assert_null(cfg.ca_pem);
    kg_client *c = kg_client_from_kubeconfig(p, &err);
    assert_non_null(c);
    kg_json *doc = kg_client_json(c, &a, "GET", "/echo", NULL, NULL, &err);
    assert_non_null(doc);
    assert_string_equal(kg_json_get_str(doc, "auth"), "Bearer file-token");
    kg_client_free(c);
    /* inline data (base64) */
    kg_buf b64 = KG_BUF_INIT;
    FILE *f = popen(kg_arena_sprintf(&a, "base64 -w0 '%s/pki/ca.crt'", tmpdir), "r");
    char line[8192];
    while (fgets(line, sizeof line, f))
        kg_buf_puts(&b64, line);
    pclose(f);
    write_file(p, kg_arena_sprintf(&a,
                                   "{\"current-context\":\"c\",\"contexts\":[{\"name\":\"c\",\"context\":{\"cluster\":"
                                   "\"k\"}}],\"clusters\":[{\"name\":\"k\",\"cluster\":{\"server\":\"https://"
                                   "127.0.0.1:%d\",\"certificate-authority-data\":\"%s\"}}]}",
                                   tls_port, b64.data));
    kg_buf_free(&b64);
    assert_true(kg_client_config_from_kubeconfig(&a, p, &cfg, &err));
    assert_memory_equal(cfg.ca_pem, ca_pem, strlen(ca_pem));
    assert_null(cfg.token);
    /* errors name the file */
    write_file(p, "{\"current-context\":\"missing\",\"contexts\":[]}");
    assert_false(kg_client_config_from_kubeconfig(&a, p, &cfg, &err));
    assert_string_equal(err.msg, kg_arena_sprintf(&a, "kubeconfig %s: context \"missing\" not found", p));
    write_file(p, "{\"current-context\":\"c\",\"contexts\":[{\"name\":\"c\",\"context\":{\"cluster\":\"k\"}}],"
                  "\"clusters\":[{\"name\":\"k\",\"cluster\":{}}]}");
    assert_false(kg_client_config_from_kubeconfig(&a, p, &cfg, &err));
    assert_string_equal(err.msg, kg_arena_sprintf(&a, "kubeconfig %s: cluster \"k\" has no server", p));
    assert_null(kg_client_from_kubeconfig(kg_arena_sprintf(&a, "%s/absent", tmpdir), &err));
    assert_int_equal(err.code, KG_EIO);
    kg_arena_free(&a);
}

static char *slurp(const char *name)
{
    char path[400];
    size_t len;
    snprintf(path, sizeof path, "%s/pki/%s", tmpdir, name);
    return kg_read_file(path, &len);
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kgate-client-XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "set -e; cd '%s'; mkdir -p pki; cd pki; "
             "EC='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'; "
             "openssl req -x509 $EC -keyout ca.key -out ca.crt -days 2 -subj /CN=kgate-test-ca 2>/dev/null; "
             "printf 'subjectAltName=IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n' > srv.ext; "
             "printf 'extendedKeyUsage=clientAuth\\n' > cli.ext; "
             "openssl req $EC -keyout server.key -out server.csr -subj /CN=127.0.0.1 2>/dev/null; "
             "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile srv.ext "
             "-out server.crt 2>/dev/null; "
             "openssl req $EC -keyout client.key -out client.csr -subj /CN=client 2>/dev/null; "
             "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile cli.ext "
             "-out client.crt 2>/dev/null",
             tmpdir);
    if (system(cmd) != 0)
        return -1;
    ca_pem = slurp("ca.crt");
    srv_cert = slurp("server.crt");
    srv_key = slurp("server.key");
    cli_cert = slurp("client.crt");
    cli_key = slurp("client.key");
    if (!ca_pem || !srv_cert || !srv_key || !cli_cert || !cli_key)
        return -1;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION;
    plain = MHD_start_daemon(flags, 0, NULL, NULL, handler, NULL, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
                             MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL, MHD_OPTION_END);
    tls = MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, handler, NULL, MHD_OPTION_HTTPS_MEM_KEY, srv_key,
                           MHD_OPTION_HTTPS_MEM_CERT, srv_cert, MHD_OPTION_HTTPS_MEM_TRUST, ca_pem,
                           MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_NOTIFY_CONNECTION, on_connection,
                           NULL, MHD_OPTION_END);
    if (!plain || !tls)
        return -1;
    plain_port = MHD_get_daemon_info(plain, MHD_DAEMON_INFO_BIND_PORT)->port;
    tls_port = MHD_get_daemon_info(tls, MHD_DAEMON_INFO_BIND_PORT)->port;
    return 0;
}

static int teardown(void **state)
{
    MHD_stop_daemon(plain);
    MHD_stop_daemon(tls);
    free(ca_pem);
    free(srv_cert);
    free(srv_key);
    free(cli_cert);
    free(cli_key);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Users by host, as kube-apiserver's webhook AuthenticationInfoResolver picks them. */
static void kubeconfig_users_by_host(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    char *p = kg_arena_sprintf(&a, "%s/users.kubeconfig", tmpdir);
    write_file(p, "{\"current-context\":\"c\",\"contexts\":[{\"name\":\"c\",\"context\":{\"user\":\"me\"}}],"
                  "\"users\":[{\"name\":\"hook.ns.svc:8443\",\"user\":{\"token\":\"exact\"}},"
                  "{\"name\":\"*.ns.svc\",\"user\":{\"token\":\"ns-no-port\"}},"
                  "{\"name\":\"*.svc:8443\",\"user\":{\"token\":\"svc-8443\"}},"
                  "{\"name\":\"10.0.0.1:443\",\"user\":{\"username\":\"u\",\"password\":\"pw\"}},"
                  "{\"name\":\"me\",\"user\":{\"client-certificate\":\"c.crt\",\"client-key\":\"c.key\"}}]}");
    kg_client_kubeconfig kc;
    kg_error err = {0};
    assert_true(kg_client_kubeconfig_load(&a, p, &kc, &err));
    assert_int_equal(kc.n, 5);
    assert_string_equal(kg_client_kubeconfig_auth_for(&kc, "hook.ns.svc:8443")->token, "exact");
    assert_string_equal(kg_client_kubeconfig_auth_for(&kc, "other.ns.svc:8443")->token, "svc-8443");
    /* "*.ns.svc" has no port: it matches only a :443 target, in the second round */
    assert_string_equal(kg_client_kubeconfig_auth_for(&kc, "other.ns.svc:443")->token, "ns-no-port");
    assert_string_equal(kg_client_kubeconfig_auth_for(&kc, "10.0.0.1:443")->username, "u");
    assert_string_equal(kg_client_kubeconfig_auth_for(&kc, "10.0.0.1:443")->password, "pw");
    /* no "*" user: the current context's user, files relative to the kubeconfig */
    const kg_client_config *cur = kg_client_kubeconfig_auth_for(&kc, "elsewhere.example.com:443");
    assert_non_null(cur);
    assert_string_equal(cur->cert_file, kg_arena_sprintf(&a, "%s/c.crt", tmpdir));
    /* a "*" user wins over the current context */
    write_file(p, "{\"users\":[{\"name\":\"*\",\"user\":{\"token\":\"star\"}}]}");
    assert_true(kg_client_kubeconfig_load(&a, p, &kc, &err));
    assert_string_equal(kg_client_kubeconfig_auth_for(&kc, "x.y:1")->token, "star");
    write_file(p, "{\"users\":[{\"name\":\"a\",\"user\":{\"client-key-data\":\"!!\"}}]}");
    assert_false(kg_client_kubeconfig_load(&a, p, &kc, &err));
    assert_non_null(strstr(err.msg, "client-key-data is not base64"));
    write_file(p, "{\"users\":[]}");
    assert_true(kg_client_kubeconfig_load(&a, p, &kc, &err));
    assert_null(kg_client_kubeconfig_auth_for(&kc, "x.y:1"));
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(requests_and_headers), cmocka_unit_test(connections_are_reused),
        cmocka_unit_test(typed_failures),       cmocka_unit_test(tls_with_ca_and_client_certificate),
        cmocka_unit_test(kubeconfig),           cmocka_unit_test(kubeconfig_users_by_host),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
