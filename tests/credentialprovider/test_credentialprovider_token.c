/* Service-account-token mode against a small in-test API server (libmicrohttpd): ServiceAccount GET, TokenRequest
 * POST with the provider's audience and the pod binding, required/optional annotations, requireServiceAccount,
 * the token echo guard and the saKey-dependent cache. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/str.h"
#include "credentialprovider/credentialprovider.h"

#define V1 "credentialprovider.kubelet.k8s.io/v1"

static char tmpdir[256], bindir[300];
static struct MHD_Daemon *daemon_;
static int port;
static kg_buf errors, last_token_request, last_auth_header;
static int token_requests;
static struct MHD_Daemon *tls_daemon;
static int tls_port;
static int tls_verified_clients; /* requests that presented a client certificate signed by the test CA */
static char *ca_pem, *srv_cert, *srv_key;

static const char plugin_script[] = "#!/bin/sh\n"
                                    "cat >> \"$REQ_LOG\"\n"
                                    "printf '%s' \"$RESPONSE\"\n";

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
    if (cls) { /* the TLS server: note a verified client certificate */
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
        unsigned int n = 0, status = 1;
        if (ci && gnutls_certificate_get_peers(ci->tls_session, &n) && n > 0 &&
            gnutls_certificate_verify_peers2(ci->tls_session, &status) == 0 && status == 0)
            tls_verified_clients++;
    }
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    kg_buf_reset(&last_auth_header);
    kg_buf_puts(&last_auth_header, auth ? auth : "");
    const char *prefix = "/api/v1/namespaces/ns1/serviceaccounts/";
    if (strncmp(url, prefix, strlen(prefix)) != 0)
        return reply(c, 404, "{\"kind\":\"Status\",\"message\":\"no route\"}");
    const char *rest = url + strlen(prefix);
    if (!strcmp(method, "GET")) {
        if (!strcmp(rest, "sa1"))
            return reply(c, 200,
                         "{\"kind\":\"ServiceAccount\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"sa1\","
                         "\"namespace\":\"ns1\",\"uid\":\"sa-uid-1\",\"annotations\":{\"acme.io/identity-type\":"
                         "\"workload\",\"acme.io/identity-id\":\"1234\",\"unrelated\":\"x\"}}}");
        if (!strcmp(rest, "sa2"))
            return reply(c, 200,
                         "{\"kind\":\"ServiceAccount\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"sa2\","
                         "\"namespace\":\"ns1\",\"uid\":\"sa-uid-2\",\"annotations\":{\"acme.io/identity-id\":"
                         "\"1234\"}}}");
        if (!strcmp(rest, "bare"))
            return reply(c, 200,
                         "{\"kind\":\"ServiceAccount\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"bare\","
                         "\"namespace\":\"ns1\",\"uid\":\"sa-uid-3\"}}");
        return reply(c, 404,
                     "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":"
                     "\"serviceaccounts \\\"ghost\\\" not found\",\"reason\":\"NotFound\",\"code\":404}");
    }
    if (!strcmp(method, "POST") && kg_str_has_suffix(rest, "/token")) {
        token_requests++;
        kg_buf_reset(&last_token_request);
        kg_buf_append(&last_token_request, u->body.data ? u->body.data : "", u->body.len);
        return reply(c, 201,
                     "{\"kind\":\"TokenRequest\",\"apiVersion\":\"authentication.k8s.io/v1\",\"status\":{\"token\":"
                     "\"the-token\",\"expirationTimestamp\":\"2030-01-01T00:00:00Z\"}}");
    }
    return reply(c, 405, "{\"kind\":\"Status\",\"message\":\"method not allowed\"}");
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

static void on_error(void *ctx, const char *provider, const char *msg)
{
    kg_buf_printf(&errors, "[%s] %s\n", provider, msg);
}

static void write_file(const char *path, const char *text, int mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    chmod(path, (mode_t)mode);
}

static int count_lines(const char *path)
{
    size_t len;
    char *d = kg_read_file(path, &len);
    if (!d)
        return 0;
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += d[i] == '\n';
    free(d);
    return n;
}

typedef struct env {
    kg_arena a;
    kg_cred_provider p;
    kg_cred_token_attributes t;
    kg_cred_env penv[2];
    kg_cred_options o;
    kg_cred_pod pod;
    kg_cred_token_source ts;
    char *req_log;
} env;

static const char *required_keys[] = {"acme.io/identity-id"};
static const char *optional_keys[] = {"acme.io/identity-type", "acme.io/absent"};
static const char *match[] = {"registry.acme.io"};

static void env_init(env *e, const char *name, const char *cache_type, bool require_sa, const char *password)
{
    kg_arena_init(&e->a, 0);
    kg_arena *a = &e->a;
    char *path = kg_arena_sprintf(a, "%s/%s", bindir, name);
    write_file(path, plugin_script, 0755);
    e->req_log = kg_arena_sprintf(a, "%s/%s.log", tmpdir, name);
    unlink(e->req_log);
    e->penv[0] = (kg_cred_env){"REQ_LOG", e->req_log};
    e->penv[1] =
        (kg_cred_env){"RESPONSE", kg_arena_sprintf(a,
                                                   "{\"kind\":\"CredentialProviderResponse\",\"apiVersion\":\"" V1
                                                   "\",\"cacheKeyType\":\"Registry\",\"auth\":{\"registry.acme.io\":{"
                                                   "\"username\":\"u\",\"password\":\"%s\"}}}",
                                                   password)};
    e->t = (kg_cred_token_attributes){.audience = "registry.acme.io",
                                      .cache_type = cache_type,
                                      .has_require_sa = true,
                                      .require_sa = require_sa,
                                      .required_keys = require_sa ? required_keys : NULL,
                                      .n_required = require_sa ? 1 : 0,
                                      .optional_keys = optional_keys,
                                      .n_optional = 2};
    e->p = (kg_cred_provider){.name = name,
                              .match_images = match,
                              .n_match_images = 1,
                              .has_default_cache_duration = true,
                              .default_cache_duration = 3600 * KG_CRED_SECOND,
                              .api_version = V1,
                              .env = e->penv,
                              .n_env = 2,
                              .token = &e->t};
    char *kc_path = kg_arena_sprintf(a, "%s/kubeconfig-%s", tmpdir, name);
    write_file(kc_path,
               kg_arena_sprintf(a,
                                "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                                "contexts:\n- name: other\n  context: {cluster: nowhere, user: nobody}\n"
                                "- name: test\n  context:\n    cluster: local\n    user: node\n"
                                "clusters:\n- name: local\n  cluster:\n    server: http://127.0.0.1:%d/\n"
                                "users:\n- name: node\n  user:\n    token: test-bearer\n",
                                port),
               0600);
    kg_error err = {0};
    kg_cred_kubeconfig *kc = kg_credentialprovider_kubeconfig_load(a, kc_path, &err);
    if (!kc)
        fail_msg("kubeconfig: %s", err.msg);
    kg_credentialprovider_kubeconfig_source(kc, &e->ts);
    e->pod = (kg_cred_pod){"ns1", "pod-1", "pod-uid-1", "sa1"};
    e->o = (kg_cred_options){.bin_dir = bindir,
                             .cache_dir = kg_arena_sprintf(a, "%s/cache-%s", tmpdir, name),
                             .exec_timeout_ms = 5000,
                             .now_ns = INT64_C(1700000000) * KG_CRED_SECOND,
                             .sa_token_gate = true,
                             .pod = &e->pod,
                             .tokens = &e->ts,
                             .on_error = on_error};
    kg_buf_reset(&errors);
}

static size_t run(env *e, const char *image, kg_cred_auth **c)
{
    kg_cred_config cfg = {.providers = &e->p, .n_providers = 1};
    size_t n = 0;
    kg_error err = {0};
    if (!kg_credentialprovider_lookup(&e->a, &cfg, &e->o, image, c, &n, &err))
        fail_msg("%s", err.msg);
    return n;
}

static void token_and_annotations_passed(void **state)
{
    env e;
    env_init(&e, "sa-plugin", "ServiceAccount", true, "secret");
    kg_cred_auth *c;
    assert_int_equal(run(&e, "registry.acme.io/team/app:v1", &c), 1);
    assert_string_equal(kg_buf_cstr(&errors), "");
    assert_string_equal(c[0].password, "secret");
    size_t len;
    char *req = kg_read_file(e.req_log, &len);
    assert_non_null(req);
    assert_string_equal(req, "{\"kind\":\"CredentialProviderRequest\",\"apiVersion\":\"" V1
                             "\",\"image\":\"registry.acme.io/team/app\",\"serviceAccountToken\":\"the-token\","
                             "\"serviceAccountAnnotations\":{\"acme.io/identity-id\":\"1234\","
                             "\"acme.io/identity-type\":\"workload\"}}\n");
    free(req);
    /* the TokenRequest: audience, pod binding, service account uid; bearer auth from the kubeconfig */
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *tr = kg_json_parse(&a, kg_buf_cstr(&last_token_request), last_token_request.len, NULL);
    assert_non_null(tr);
    assert_string_equal(kg_json_get_str(tr, "kind"), "TokenRequest");
    assert_string_equal(kg_json_get_str(tr, "apiVersion"), "authentication.k8s.io/v1");
    assert_string_equal(kg_json_path_str(tr, "metadata.uid"), "sa-uid-1");
    kg_json *aud = kg_json_path(tr, "spec.audiences");
    assert_int_equal(aud->len, 1);
    assert_string_equal(kg_json_at(aud, 0)->u.s, "registry.acme.io");
    assert_string_equal(kg_json_path_str(tr, "spec.boundObjectRef.kind"), "Pod");
    assert_string_equal(kg_json_path_str(tr, "spec.boundObjectRef.apiVersion"), "v1");
    assert_string_equal(kg_json_path_str(tr, "spec.boundObjectRef.name"), "pod-1");
    assert_string_equal(kg_json_path_str(tr, "spec.boundObjectRef.uid"), "pod-uid-1");
    assert_string_equal(kg_buf_cstr(&last_auth_header), "Bearer test-bearer");
    kg_arena_free(&a);

    /* cacheType ServiceAccount: the same service account shares the cached answer, another one does not */
    assert_int_equal(run(&e, "registry.acme.io/team/other", &c), 1);
    assert_int_equal(count_lines(e.req_log), 1);
    e.pod.sa_name = "sa2";
    assert_int_equal(run(&e, "registry.acme.io/team/other", &c), 1);
    assert_int_equal(count_lines(e.req_log), 2);
    /* an image outside matchImages neither runs the plugin nor asks for a token */
    int before = token_requests;
    assert_int_equal(run(&e, "elsewhere.io/x", &c), 0);
    assert_int_equal(token_requests, before);
    kg_arena_free(&e.a);
}

static void required_annotation_missing_refuses(void **state)
{
    env e;
    env_init(&e, "sa-required", "ServiceAccount", true, "secret");
    e.pod.sa_name = "bare";
    int before = token_requests;
    kg_cred_auth *c;
    assert_int_equal(run(&e, "registry.acme.io/app", &c), 0);
    assert_int_equal(count_lines(e.req_log), 0);
    assert_int_equal(token_requests, before);
    assert_string_equal(kg_buf_cstr(&errors), "[sa-required] Failed to get service account data ns1/bare: required "
                                              "annotation acme.io/identity-id not found\n");
    /* a service account the server does not know */
    kg_buf_reset(&errors);
    e.pod.sa_name = "ghost";
    assert_int_equal(run(&e, "registry.acme.io/app", &c), 0);
    assert_string_equal(kg_buf_cstr(&errors),
                        kg_arena_sprintf(&e.a,
                                         "[sa-required] Failed to get service account ns1/ghost: GET "
                                         "http://127.0.0.1:%d/api/v1/namespaces/ns1/serviceaccounts/ghost: the server "
                                         "responded with status 404: serviceaccounts \"ghost\" not found\n",
                                         port));
    kg_arena_free(&e.a);
}

static void require_service_account_rules(void **state)
{
    env e;
    env_init(&e, "sa-require-true", "ServiceAccount", true, "secret");
    e.pod.sa_name = "";
    kg_cred_auth *c;
    assert_int_equal(run(&e, "registry.acme.io/app", &c), 0);
    assert_int_equal(count_lines(e.req_log), 0);
    assert_true(strstr(kg_buf_cstr(&errors), "requires a service account") != NULL);
    kg_arena_free(&e.a);

    /* requireServiceAccount false: the plugin runs without a token when the pod has no service account */
    env_init(&e, "sa-require-false", "ServiceAccount", false, "secret");
    e.pod.sa_name = "";
    assert_int_equal(run(&e, "registry.acme.io/app", &c), 1);
    size_t len;
    char *req = kg_read_file(e.req_log, &len);
    assert_string_equal(req, "{\"kind\":\"CredentialProviderRequest\",\"apiVersion\":\"" V1
                             "\",\"image\":\"registry.acme.io/app\"}\n");
    free(req);
    assert_string_equal(kg_buf_cstr(&errors), "");
    kg_arena_free(&e.a);

    /* with the feature gate off, tokenAttributes are ignored at run time */
    env_init(&e, "sa-gate-off", "ServiceAccount", true, "secret");
    e.o.sa_token_gate = false;
    e.pod.sa_name = "";
    assert_int_equal(run(&e, "registry.acme.io/app", &c), 1);
    assert_int_equal(count_lines(e.req_log), 1);
    kg_arena_free(&e.a);
}

static void token_echo_guard(void **state)
{
    env e;
    env_init(&e, "sa-echo", "ServiceAccount", true, "the-token");
    kg_cred_auth *c;
    assert_int_equal(run(&e, "registry.acme.io/app", &c), 0);
    assert_string_equal(kg_buf_cstr(&errors),
                        "[sa-echo] Credential provider plugin returned the service account token as the password for "
                        "image \"registry.acme.io/app\", which is not allowed when service account cache type is not "
                        "set to 'Token'\n");
    kg_arena_free(&e.a);
    /* allowed with cacheType Token, which caches per token */
    env_init(&e, "sa-echo-token", "Token", true, "the-token");
    assert_int_equal(run(&e, "registry.acme.io/app", &c), 1);
    assert_string_equal(c[0].password, "the-token");
    assert_int_equal(run(&e, "registry.acme.io/app", &c), 1);
    assert_int_equal(count_lines(e.req_log), 1); /* same token: cached */
    assert_string_equal(kg_buf_cstr(&errors), "");
    kg_arena_free(&e.a);
}

static void kubeconfig_errors(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    char *p = kg_arena_sprintf(&a, "%s/kc-bad", tmpdir);
    write_file(p, "apiVersion: v1\nkind: Config\ncurrent-context: missing\ncontexts: []\n", 0600);
    kg_error e = {0};
    assert_null(kg_credentialprovider_kubeconfig_load(&a, p, &e));
    assert_string_equal(e.msg, kg_arena_sprintf(&a, "kubeconfig %s: context \"missing\" not found", p));
    write_file(p,
               "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n"
               "  cluster:\n    server: https://127.0.0.1:1\n    certificate-authority-data: \"!!!\"\n",
               0600);
    assert_null(kg_credentialprovider_kubeconfig_load(&a, p, &e));
    assert_string_equal(e.msg, kg_arena_sprintf(&a, "kubeconfig %s: certificate-authority-data is not base64", p));
    kg_arena_free(&a);
}

static char *b64(kg_arena *a, const char *s)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(s);
    char *o = kg_arena_alloc(a, (n + 2) / 3 * 4 + 1), *p = o;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)s[i] << 16 | (i + 1 < n ? (uint32_t)(unsigned char)s[i + 1] << 8 : 0) |
                     (i + 2 < n ? (unsigned char)s[i + 2] : 0);
        *p++ = t[v >> 18 & 63];
        *p++ = t[v >> 12 & 63];
        *p++ = i + 1 < n ? t[v >> 6 & 63] : '=';
        *p++ = i + 2 < n ? t[v & 63] : '=';
    }
    *p = 0;
    return o;
}

static char *slurp(kg_arena *a, const char *path)
{
    size_t len;
    char *d = kg_read_file(path, &len);
    assert_non_null(d);
    char *r = kg_arena_strndup(a, d, len);
    free(d);
    return r;
}

/* https with the CA and client certificate given inline (…-data) or as files relative to the kubeconfig */
static void https_with_ca_and_client_certificate(void **state)
{
    env e;
    env_init(&e, "sa-https", "ServiceAccount", true, "secret");
    kg_arena *a = &e.a;
    const char *ca = slurp(a, kg_arena_sprintf(a, "%s/pki/ca.crt", tmpdir));
    const char *cc = slurp(a, kg_arena_sprintf(a, "%s/pki/client.crt", tmpdir));
    const char *ck = slurp(a, kg_arena_sprintf(a, "%s/pki/client.key", tmpdir));
    const char *variants[] = {
        kg_arena_sprintf(a,
                         "current-context: t\ncontexts:\n- name: t\n  context: {cluster: k, user: u}\n"
                         "clusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:%d\n"
                         "    certificate-authority-data: %s\n"
                         "users:\n- name: u\n  user:\n    client-certificate-data: %s\n    client-key-data: %s\n",
                         tls_port, b64(a, ca), b64(a, cc), b64(a, ck)),
        kg_arena_sprintf(a,
                         "current-context: t\ncontexts:\n- name: t\n  context: {cluster: k, user: u}\n"
                         "clusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:%d\n"
                         "    certificate-authority: pki/ca.crt\n"
                         "users:\n- name: u\n  user:\n    client-certificate: pki/client.crt\n"
                         "    client-key: pki/client.key\n",
                         tls_port),
    };
    for (int v = 0; v < 2; v++) {
        char *kc_path = kg_arena_sprintf(a, "%s/kubeconfig-https-%d", tmpdir, v);
        write_file(kc_path, variants[v], 0600);
        kg_error err = {0};
        kg_cred_kubeconfig *kc = kg_credentialprovider_kubeconfig_load(a, kc_path, &err);
        if (!kc)
            fail_msg("%s", err.msg);
        kg_credentialprovider_kubeconfig_source(kc, &e.ts);
        e.o.no_cache = true;
        int before = tls_verified_clients;
        kg_cred_auth *c;
        assert_int_equal(run(&e, "registry.acme.io/app", &c), 1);
        assert_string_equal(kg_buf_cstr(&errors), "");
        assert_int_equal(tls_verified_clients, before + 2); /* GET ServiceAccount + POST TokenRequest */
    }
    /* without the CA the server is not trusted */
    char *kc_path = kg_arena_sprintf(a, "%s/kubeconfig-https-noca", tmpdir);
    write_file(kc_path,
               kg_arena_sprintf(a,
                                "current-context: t\ncontexts:\n- name: t\n  context: {cluster: k, user: u}\n"
                                "clusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:%d\n"
                                "users:\n- name: u\n  user: {token: x}\n",
                                tls_port),
               0600);
    kg_error err = {0};
    kg_cred_kubeconfig *kc = kg_credentialprovider_kubeconfig_load(a, kc_path, &err);
    assert_non_null(kc);
    kg_credentialprovider_kubeconfig_source(kc, &e.ts);
    kg_cred_auth *c;
    assert_int_equal(run(&e, "registry.acme.io/app", &c), 0);
    assert_true(strstr(kg_buf_cstr(&errors), "[sa-https] Failed to get service account ns1/sa1: GET https://") != NULL);
    assert_int_equal(count_lines(e.req_log), 2);
    kg_arena_free(&e.a);
}

static int make_pki(void)
{
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
             "openssl req $EC -keyout client.key -out client.csr -subj /CN=system:node:test/O=system:nodes "
             "2>/dev/null; "
             "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile cli.ext "
             "-out client.crt 2>/dev/null",
             tmpdir);
    return system(cmd);
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kgate-cred-token-XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    snprintf(bindir, sizeof bindir, "%s/bin", tmpdir);
    mkdir(bindir, 0755);
    kg_buf_init(&errors);
    kg_buf_init(&last_token_request);
    kg_buf_init(&last_auth_header);
    daemon_ = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, handler, NULL,
                               MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
    if (!daemon_)
        return -1;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
    port = info->port;
    if (make_pki() != 0)
        return -1;
    char path[400];
    size_t len;
    snprintf(path, sizeof path, "%s/pki/ca.crt", tmpdir);
    ca_pem = kg_read_file(path, &len);
    snprintf(path, sizeof path, "%s/pki/server.crt", tmpdir);
    srv_cert = kg_read_file(path, &len);
    snprintf(path, sizeof path, "%s/pki/server.key", tmpdir);
    srv_key = kg_read_file(path, &len);
    if (!ca_pem || !srv_cert || !srv_key)
        return -1;
    tls_daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_TLS, 0, NULL, NULL, handler, (void *)1,
                                  MHD_OPTION_HTTPS_MEM_KEY, srv_key, MHD_OPTION_HTTPS_MEM_CERT, srv_cert,
                                  MHD_OPTION_HTTPS_MEM_TRUST, ca_pem, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
                                  MHD_OPTION_END);
    if (!tls_daemon)
        return -1;
    tls_port = MHD_get_daemon_info(tls_daemon, MHD_DAEMON_INFO_BIND_PORT)->port;
    return 0;
}

static int teardown(void **state)
{
    MHD_stop_daemon(daemon_);
    MHD_stop_daemon(tls_daemon);
    free(ca_pem);
    free(srv_cert);
    free(srv_key);
    kg_buf_free(&errors);
    kg_buf_free(&last_token_request);
    kg_buf_free(&last_auth_header);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(token_and_annotations_passed),
        cmocka_unit_test(required_annotation_missing_refuses),
        cmocka_unit_test(require_service_account_rules),
        cmocka_unit_test(token_echo_guard),
        cmocka_unit_test(kubeconfig_errors),
        cmocka_unit_test(https_with_ca_and_client_certificate),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
