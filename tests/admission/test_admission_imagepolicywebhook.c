/* ImagePolicyWebhook against an HTTPS backend inside the test (libmicrohttpd, certificates made with openssl, as in
 * webhook/test_admission_webhook.c), reached through a kubeconfig written by the test: allow, deny with and without a
 * reason, the ImageReview sent (images in order, filtered annotations, namespace; ephemeral containers), the verdict
 * cache (one backend call for two identical pods within allowTTL, a call again once it expired or with caching
 * disabled), retries with backoff (on the services' fake clock), defaultAllow true/false when the backend is
 * unreachable, audit annotations, and the configuration's validation and defaults. */
#include <microhttpd.h>
#include <pthread.h>
#include <sys/stat.h>

#include "admission_testutil.h"
#include "admission/plugins/imagepolicywebhook/imagepolicywebhook.h"
#include "base/buf.h"
#include "base/str.h"

static char tmpdir[256];
static struct MHD_Daemon *srv;
static int port;
static char *srv_cert, *srv_key;

/* what the backend saw */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static int calls;
static char last_review[65536];

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

static const char *k_allow = "{\"apiVersion\":\"imagepolicy.k8s.io/v1alpha1\",\"kind\":\"ImageReview\",\"status\":"
                             "{\"allowed\":true,\"auditAnnotations\":{\"rule\":\"ok\"}}}";

/* /review: denies when an image contains "bad"; /deny-bare: denies without a reason; /500, /503: that status */
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
    const char *body = u->body.data ? kg_buf_cstr(&u->body) : "";
    pthread_mutex_lock(&log_mu);
    calls++;
    snprintf(last_review, sizeof last_review, "%s", body);
    pthread_mutex_unlock(&log_mu);
    if (!strcmp(url, "/500"))
        return reply(c, 500, "boom");
    if (!strcmp(url, "/503"))
        return reply(c, 503, "busy");
    if (!strcmp(url, "/garbage"))
        return reply(c, 200, "not json");
    if (!strcmp(url, "/deny-bare"))
        return reply(c, 200, "{\"status\":{\"allowed\":false}}");
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *rv = kg_json_parse(&a, body, strlen(body), NULL);
    const kg_json *cs = kg_json_path(rv, "spec.containers");
    const char *bad = NULL;
    for (uint32_t i = 0; cs && i < cs->len; i++) {
        const char *img = kg_json_get_str(kg_json_at(cs, i), "image");
        if (img && strstr(img, "bad"))
            bad = img;
    }
    enum MHD_Result r =
        bad ? reply(c, 200,
                    kg_arena_sprintf(&a,
                                     "{\"status\":{\"allowed\":false,\"reason\":\"image %s is blocked\","
                                     "\"auditAnnotations\":{\"rule\":\"blocked\"}}}",
                                     bad))
            : reply(c, 200, k_allow);
    kg_arena_free(&a);
    return r;
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

static int get_calls(void)
{
    pthread_mutex_lock(&log_mu);
    int n = calls;
    pthread_mutex_unlock(&log_mu);
    return n;
}

/* ---- fixtures ---- */

typedef struct fx {
    kg_arena a;
    kg_admission_memcluster *m;
    kg_admission_services svc;
    void *state;
} fx;

/* A kubeconfig for server (written once per name) and the plugin configuration's JSON around it. */
static const char *config_json(kg_arena *a, const char *server, const char *policy_extra)
{
    static int n;
    const char *path = kg_arena_sprintf(a, "%s/kubeconfig-%d.yaml", tmpdir, ++n);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "apiVersion: v1\nkind: Config\nclusters:\n- name: backend\n  cluster:\n    server: %s\n"
            "    certificate-authority: %s/ca.crt\nusers:\n- name: apiserver\n  user:\n    token: secret\n"
            "contexts:\n- name: webhook\n  context:\n    cluster: backend\n    user: apiserver\n"
            "current-context: webhook\n",
            server, tmpdir);
    fclose(f);
    return kg_arena_sprintf(a, "{\"imagePolicy\":{\"kubeConfigFile\":\"%s\"%s}}", path, policy_extra);
}

/* The plugin for backend path (or a full URL when it starts with https:) with more imagePolicy members. */
static void fx_init(fx *f, const char *path, const char *extra)
{
    kg_arena_init(&f->a, 0);
    f->m = kg_admission_memcluster_new();
    kg_admission_memcluster_set_clock(f->m, INT64_C(1000) * 1000000000);
    f->svc = kg_admission_memcluster_services(f->m, NULL);
    const char *server =
        !strncmp(path, "https:", 6) ? path : kg_arena_sprintf(&f->a, "https://127.0.0.1:%d/%s", port, path);
    kg_error e = {0};
    if (!kg_admission_plugin_image_policy_webhook.init(tj(&f->a, config_json(&f->a, server, extra)), &f->svc, &f->state,
                                                       &e))
        fail_msg("init: %s", e.msg);
    pthread_mutex_lock(&log_mu);
    calls = 0;
    last_review[0] = 0;
    pthread_mutex_unlock(&log_mu);
}

static void fx_free(fx *f)
{
    kg_admission_plugin_image_policy_webhook.destroy(f->state);
    kg_admission_memcluster_free(f->m);
    kg_arena_free(&f->a);
}

/* Review a pod named name in ns with the given spec and annotations members. */
static kg_status *review(fx *f, kg_admission_attributes *at, const char *ns, const char *name, const char *spec,
                         const char *annotations)
{
    kg_json *pod = tj(&f->a, kg_arena_sprintf(&f->a,
                                              "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\","
                                              "\"namespace\":\"%s\",\"annotations\":{%s}},\"spec\":%s}",
                                              name, ns, annotations ? annotations : "", spec));
    tattrs(at, &f->a, KG_ADMISSION_CREATE, "Pod", "pods", ns, name, pod, NULL);
    return kg_admission_plugin_image_policy_webhook.validate(f->state, at, &f->svc);
}

static const char *annotation(const kg_admission_attributes *at, const char *key)
{
    return at->annotations ? kg_json_get_str(at->annotations, key) : NULL;
}

#define GOOD "{\"containers\":[{\"name\":\"c\",\"image\":\"good:1\"}]}"

/* ---- tests ---- */

static void allow_deny_and_the_review(void **state)
{
    fx f;
    fx_init(&f, "review", "");
    kg_admission_attributes at;
    assert_null(review(&f, &at, "team", "p1",
                       "{\"containers\":[{\"name\":\"a\",\"image\":\"good:1\"},{\"name\":\"b\",\"image\":\"good:1\"}],"
                       "\"initContainers\":[{\"name\":\"i\",\"image\":\"init:2\"}]}",
                       "\"z.image-policy.k8s.io/ticket\":\"1\",\"my.image-policy.k8s.io/break-glass\":\"true\","
                       "\"image-policy.k8s.io/x\":\"no\",\"test\":\"no\""));
    assert_string_equal(annotation(&at, "imagepolicywebhook.image-policy.k8s.io/rule"), "ok");
    /* the ImageReview: containers then init containers (duplicates kept), filtered annotations in key order */
    kg_json *rv = tj(&f.a, last_review);
    assert_string_equal(kg_json_get_str(rv, "kind"), "ImageReview");
    assert_string_equal(kg_json_get_str(rv, "apiVersion"), "imagepolicy.k8s.io/v1alpha1");
    assert_string_equal(kg_json_to_string(&f.a, kg_json_get(rv, "spec"), 0, NULL),
                        "{\"containers\":[{\"image\":\"good:1\"},{\"image\":\"good:1\"},{\"image\":\"init:2\"}],"
                        "\"annotations\":{\"my.image-policy.k8s.io/break-glass\":\"true\","
                        "\"z.image-policy.k8s.io/ticket\":\"1\"},\"namespace\":\"team\"}");
    /* a bad init container image denies the pod, with the backend's reason and audit annotations */
    kg_status *st = review(&f, &at, "team", "p2",
                           "{\"containers\":[{\"name\":\"a\",\"image\":\"good:1\"}],"
                           "\"initContainers\":[{\"name\":\"i\",\"image\":\"bad:1\"}]}",
                           NULL);
    assert_status(st, 403, "Forbidden",
                  "pods \"p2\" is forbidden: image policy webhook backend denied one or more images: image bad:1 is "
                  "blocked");
    assert_string_equal(annotation(&at, "imagepolicywebhook.image-policy.k8s.io/rule"), "blocked");
    /* other resources and subresources are not reviewed */
    int before = get_calls();
    kg_json *cm = tj(&f.a, "{\"metadata\":{\"name\":\"cm\"}}");
    tattrs(&at, &f.a, KG_ADMISSION_CREATE, "ConfigMap", "configmaps", "team", "cm", cm, NULL);
    assert_null(kg_admission_plugin_image_policy_webhook.validate(f.state, &at, &f.svc));
    tattrs(&at, &f.a, KG_ADMISSION_UPDATE, "Pod", "pods", "team", "p", tj(&f.a, "{\"spec\":" GOOD "}"), NULL);
    at.subresource = "status";
    assert_null(kg_admission_plugin_image_policy_webhook.validate(f.state, &at, &f.svc));
    assert_int_equal(get_calls(), before);
    /* the ephemeralcontainers subresource: only the ephemeral containers' images */
    kg_json *pod = tj(&f.a, "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"image\":\"bad:0\"}],"
                            "\"ephemeralContainers\":[{\"name\":\"dbg\",\"image\":\"busybox:1\"}]}}");
    tattrs(&at, &f.a, KG_ADMISSION_UPDATE, "Pod", "pods", "team", "p", pod, NULL);
    at.subresource = "ephemeralcontainers";
    assert_null(kg_admission_plugin_image_policy_webhook.validate(f.state, &at, &f.svc));
    assert_string_equal(kg_json_to_string(&f.a, kg_json_path(tj(&f.a, last_review), "spec.containers"), 0, NULL),
                        "[{\"image\":\"busybox:1\"}]");
    fx_free(&f);
    /* a denial without a reason */
    fx_init(&f, "deny-bare", "");
    assert_status(review(&f, &at, "team", "p", GOOD, NULL), 403, "Forbidden",
                  "pods \"p\" is forbidden: one or more images rejected by webhook backend");
    fx_free(&f);
}

static void cache_within_ttl(void **state)
{
    fx f;
    fx_init(&f, "review", ",\"allowTTL\":10,\"denyTTL\":5");
    kg_admission_attributes at;
    assert_null(review(&f, &at, "team", "a", GOOD, NULL));
    assert_null(review(&f, &at, "team", "b", GOOD, NULL)); /* the same spec: the name is not part of it */
    assert_int_equal(get_calls(), 1);
    assert_string_equal(annotation(&at, "imagepolicywebhook.image-policy.k8s.io/rule"), "ok"); /* cached too */
    assert_null(review(&f, &at, "other", "a", GOOD, NULL));                                    /* the namespace is */
    assert_int_equal(get_calls(), 2);
    /* denials are cached for denyTTL */
    const char *bad = "{\"containers\":[{\"name\":\"c\",\"image\":\"bad:1\"}]}";
    assert_non_null(review(&f, &at, "team", "a", bad, NULL));
    assert_non_null(review(&f, &at, "team", "a", bad, NULL));
    assert_int_equal(get_calls(), 3);
    kg_admission_sleep_ns(&f.svc, INT64_C(6) * 1000000000); /* past denyTTL, within allowTTL */
    assert_non_null(review(&f, &at, "team", "a", bad, NULL));
    assert_null(review(&f, &at, "team", "a", GOOD, NULL));
    assert_int_equal(get_calls(), 4);
    kg_admission_sleep_ns(&f.svc, INT64_C(5) * 1000000000); /* past allowTTL */
    assert_null(review(&f, &at, "team", "a", GOOD, NULL));
    assert_int_equal(get_calls(), 5);
    fx_free(&f);
    /* -1: not cached */
    fx_init(&f, "review", ",\"allowTTL\":-1");
    assert_null(review(&f, &at, "team", "a", GOOD, NULL));
    assert_null(review(&f, &at, "team", "a", GOOD, NULL));
    assert_int_equal(get_calls(), 2);
    fx_free(&f);
}

static void default_allow_on_failure(void **state)
{
    for (int allow = 0; allow < 2; allow++) {
        fx f;
        fx_init(&f, "https://127.0.0.1:1/review", allow ? ",\"defaultAllow\":true" : "");
        kg_admission_attributes at;
        kg_status *st = review(&f, &at, "team", "p", GOOD, NULL);
        if (allow) {
            assert_null(st);
            assert_string_equal(annotation(&at, "imagepolicywebhook.image-policy.k8s.io/failed-open"), "true");
            assert_string_equal(kg_json_get_str(kg_json_path(at.object, "metadata.annotations"),
                                                "alpha.image-policy.k8s.io/failed-open"),
                                "true");
        } else {
            assert_non_null(st);
            assert_int_equal(st->code, 403);
            const char *want = "pods \"p\" is forbidden: Post \"https://127.0.0.1:1/review\": dial tcp: ";
            if (strncmp(st->message, want, strlen(want)))
                fail_msg("%s", st->message);
            assert_null(annotation(&at, "imagepolicywebhook.image-policy.k8s.io/failed-open"));
        }
        fx_free(&f);
    }
}

static void retries_with_backoff(void **state)
{
    fx f;
    /* 500: retried, 5 attempts in all; the sleeps run on the fake clock: 1, 1.5, 2.25, 3.375 ms + up to 20 % */
    fx_init(&f, "500", ",\"retryBackoff\":1");
    kg_admission_attributes at;
    int64_t t0 = kg_admission_now_ns(&f.svc);
    assert_status(review(&f, &at, "team", "p", GOOD, NULL), 403, "Forbidden",
                  "pods \"p\" is forbidden: an error on the server (\"boom\") has prevented the request from "
                  "succeeding");
    assert_int_equal(get_calls(), 5);
    int64_t slept = kg_admission_now_ns(&f.svc) - t0;
    assert_true(slept >= 8125000 && slept <= 9750000);
    /* errors are never cached */
    assert_non_null(review(&f, &at, "team", "p", GOOD, NULL));
    assert_int_equal(get_calls(), 10);
    fx_free(&f);
    /* 503 and undecodable answers are not retried */
    fx_init(&f, "503", "");
    assert_status(review(&f, &at, "team", "p", GOOD, NULL), 403, "Forbidden",
                  "pods \"p\" is forbidden: the server is currently unable to handle the request");
    assert_int_equal(get_calls(), 1);
    fx_free(&f);
    fx_init(&f, "garbage", "");
    kg_status *st = review(&f, &at, "team", "p", GOOD, NULL);
    assert_non_null(st);
    assert_non_null(strstr(st->message, "pods \"p\" is forbidden: invalid character"));
    assert_int_equal(get_calls(), 1);
    fx_free(&f);
}

static void config_validation_and_defaults(void **state)
{
    static const struct {
        const char *config;
        const char *want;
    } bad[] = {
        {"{\"imagePolicy\":{\"kubeConfigFile\":\"/k\",\"allowTTL\":2400}}",
         "valid value is between 1s and 30m0s, got 40m0s"},
        {"{\"imagePolicy\":{\"kubeConfigFile\":\"/k\",\"denyTTL\":-2}}",
         "valid value is between 1s and 30m0s, got -2s"},
        {"{\"imagePolicy\":{\"kubeConfigFile\":\"/k\",\"retryBackoff\":300001}}",
         "valid value is between 1ns and 5m0s, got 5m0.001s"},
        {"{\"imagePolicy\":{\"kubeConfigFile\":\"/k\",\"allowTTL\":\"50s\"}}",
         "json: cannot unmarshal string into Go struct field AdmissionConfig.imagePolicy.allowTTL of type "
         "time.Duration"},
        {"{\"imagePolicy\":{\"kubeConfigFile\":\"/k\",\"retryBackoff\":-5,\"allowTTL\":2400}}",
         "valid value is between 1ns and 5m0s, got -5ms"},
        {"{\"imagePolicy\":{\"defaultAllow\":\"yes\"}}",
         "json: cannot unmarshal string into Go struct field AdmissionConfig.imagePolicy.defaultAllow of type bool"},
    };
    kg_arena a;
    kg_arena_init(&a, 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kg_ipw_config c;
        kg_error e = {0};
        assert_false(kg_ipw_config_parse(&a, tj(&a, bad[i].config), &c, &e));
        assert_string_equal(e.msg, bad[i].want);
    }
    kg_ipw_config c;
    kg_error e = {0};
    assert_false(kg_ipw_config_parse(&a, NULL, &c, &e));
    assert_string_equal(e.msg, "no config specified");
    /* defaults; -1 disables; unknown keys ignored */
    assert_true(kg_ipw_config_parse(&a, tj(&a, "{\"imagePolicy\":{\"kubeConfigFile\":\"/k\",\"x\":1}}"), &c, &e));
    assert_true(c.allow_ttl_ns == INT64_C(300) * 1000000000 && c.deny_ttl_ns == INT64_C(30) * 1000000000);
    assert_true(c.backoff_ns == INT64_C(500) * 1000000 && !c.default_allow);
    assert_true(kg_ipw_config_parse(
        &a,
        tj(&a, "{\"imagePolicy\":{\"kubeConfigFile\":\"/k\",\"allowTTL\":-1,\"denyTTL\":1800,\"retryBackoff\":-1,"
               "\"defaultAllow\":true}}"),
        &c, &e));
    assert_true(c.allow_ttl_ns == 0 && c.deny_ttl_ns == INT64_C(1800) * 1000000000 && c.backoff_ns == 0);
    assert_true(c.default_allow);
    /* the plugin: no kubeconfig, an unreadable one */
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_services svc = kg_admission_memcluster_services(m, NULL);
    void *st = NULL;
    assert_false(kg_admission_plugin_image_policy_webhook.init(NULL, &svc, &st, &e));
    assert_string_equal(e.msg, "no config specified");
    assert_false(kg_admission_plugin_image_policy_webhook.init(tj(&a, "{\"imagePolicy\":{}}"), &svc, &st, &e));
    assert_string_equal(e.msg, "invalid configuration: no configuration has been provided");
    assert_false(kg_admission_plugin_image_policy_webhook.init(
        tj(&a, "{\"imagePolicy\":{\"kubeConfigFile\":\"/nonexistent/kubeconfig\"}}"), &svc, &st, &e));
    assert_non_null(strstr(e.msg, "/nonexistent/kubeconfig"));
    kg_admission_memcluster_free(m);
    char buf[40];
    assert_string_equal(kg_ipw_format_duration(buf, sizeof buf, 1), "1ns");
    assert_string_equal(kg_ipw_format_duration(buf, sizeof buf, 1500000), "1.5ms");
    assert_string_equal(kg_ipw_format_duration(buf, sizeof buf, INT64_C(3723) * 1000000000 + 500000000), "1h2m3.5s");
    kg_arena_free(&a);
}

/* ---- setup ---- */

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kgate-ipw-XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "set -e; cd '%s'; "
             "EC='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'; "
             "openssl req -x509 $EC -keyout ca.key -out ca.crt -days 2 -subj /CN=ipw-test-ca 2>/dev/null; "
             "printf 'subjectAltName=IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n' > srv.ext; "
             "openssl req $EC -keyout server.key -out server.csr -subj /CN=backend 2>/dev/null; "
             "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile srv.ext "
             "-out server.crt 2>/dev/null",
             tmpdir);
    if (system(cmd) != 0)
        return -1;
    char p[400];
    size_t len;
    snprintf(p, sizeof p, "%s/server.crt", tmpdir);
    srv_cert = kg_read_file(p, &len);
    snprintf(p, sizeof p, "%s/server.key", tmpdir);
    srv_key = kg_read_file(p, &len);
    if (!srv_cert || !srv_key)
        return -1;
    srv = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_TLS, 0, NULL, NULL,
                           handler, NULL, MHD_OPTION_HTTPS_MEM_KEY, srv_key, MHD_OPTION_HTTPS_MEM_CERT, srv_cert,
                           MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
    if (!srv)
        return -1;
    port = MHD_get_daemon_info(srv, MHD_DAEMON_INFO_BIND_PORT)->port;
    return 0;
}

static int teardown(void **state)
{
    MHD_stop_daemon(srv);
    free(srv_cert);
    free(srv_key);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(allow_deny_and_the_review),      cmocka_unit_test(cache_within_ttl),
        cmocka_unit_test(default_allow_on_failure),       cmocka_unit_test(retries_with_backoff),
        cmocka_unit_test(config_validation_and_defaults),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
