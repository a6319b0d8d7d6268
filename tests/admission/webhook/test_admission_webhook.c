/* MutatingAdmissionWebhook and ValidatingAdmissionWebhook end to end inside one process: an HTTPS webhook server
 * (libmicrohttpd, certificates made with openssl) on 127.0.0.1, configurations in an in-memory cluster (recompiled
 * through change notifications), and the two plugins in a chain: allow/deny, patches, warnings and audit annotations,
 * failurePolicy for every failure kind, timeouts, reinvocation order, parallel validation, dry-run, config changes,
 * exemptions, Service references, matchConditions, and the webhook metrics. */
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <time.h>

#include "../admission_testutil.h"
#include "admission/webhook/webhook.h"
#include "base/base64.h"
#include "base/buf.h"
#include "base/str.h"

static char tmpdir[256];
static struct MHD_Daemon *srv;
static int port;
static char *ca_pem, *srv_cert, *srv_key, *ca_b64, *other_ca_b64;

/* what the server saw: the paths called, in order, and the last review */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char call_log[4096];
static atomic_bool flaky_fails; /* /flaky answers 500 while set */
static atomic_int drop_count;   /* requests seen by /drop-second; the second is dropped without an answer */
static char last_review[65536];

/* ---- the webhook server ---- */

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

static const char *label(const kg_json *review, const char *key)
{
    const kg_json *labels = kg_json_path(review, "request.object.metadata.labels");
    return labels ? kg_json_get_str(labels, key) : NULL;
}

/* {"response":{...}} with the request's uid and the given response members */
static enum MHD_Result review_reply(struct MHD_Connection *c, const char *uid, const char *members)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_printf(
        &b, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"%s\"%s%s}}",
        uid, members[0] ? "," : "", members);
    enum MHD_Result r = reply(c, 200, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return r;
}

static enum MHD_Result patch_reply(struct MHD_Connection *c, const char *uid, const char *patch)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    char *b64 = kg_base64_encode(&a, patch, strlen(patch), 0, NULL);
    enum MHD_Result r = review_reply(
        c, uid, kg_arena_sprintf(&a, "\"allowed\":true,\"patchType\":\"JSONPatch\",\"patch\":\"%s\"", b64));
    kg_arena_free(&a);
    return r;
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
    pthread_mutex_lock(&log_mu);
    if (strlen(call_log) + strlen(url) + 2 < sizeof call_log) {
        if (call_log[0])
            strcat(call_log, ",");
        strcat(call_log, url + 1);
    }
    snprintf(last_review, sizeof last_review, "%.*s", (int)u->body.len, u->body.data ? u->body.data : "");
    pthread_mutex_unlock(&log_mu);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *rv = kg_json_parse(&a, u->body.data ? u->body.data : "", u->body.len, NULL);
    const char *uid = rv ? kg_json_path_str(rv, "request.uid") : "";
    uid = kg_arena_strdup(&a, uid ? uid : "");
    enum MHD_Result r;
    if (!strcmp(url, "/drop-second") && atomic_fetch_add(&drop_count, 1) == 1) {
        kg_arena_free(&a);
        return MHD_NO; /* closes the (reused) connection before any response byte */
    }
    if (!strcmp(url, "/allow") || !strcmp(url, "/drop-second") ||
        (!strcmp(url, "/flaky") && !atomic_load(&flaky_fails))) {
        r = review_reply(c, uid, "\"allowed\":true");
    } else if (!strcmp(url, "/deny-label")) {
        const char *d = label(rv, "deny");
        if (d && !strcmp(d, "true"))
            r = review_reply(c, uid,
                             "\"allowed\":false,\"status\":{\"code\":403,\"reason\":\"Forbidden\",\"message\":\"pods "
                             "labelled deny=true are not allowed\"}");
        else
            r = review_reply(c, uid, "\"allowed\":true");
    } else if (!strcmp(url, "/deny-bare")) {
        r = review_reply(c, uid, "\"allowed\":false");
    } else if (!strcmp(url, "/patch")) {
        r = patch_reply(c, uid, "[{\"op\":\"add\",\"path\":\"/metadata/labels/patched\",\"value\":\"yes\"}]");
    } else if (!strcmp(url, "/patch-b")) { /* changes the object once: b=1 */
        if (label(rv, "b"))
            r = review_reply(c, uid, "\"allowed\":true");
        else
            r = patch_reply(c, uid, "[{\"op\":\"add\",\"path\":\"/metadata/labels/b\",\"value\":\"1\"}]");
    } else if (!strcmp(url, "/bad-patch")) {
        r = patch_reply(c, uid, "[{\"op\":\"remove\",\"path\":\"/spec/nothing\"}]");
    } else if (!strcmp(url, "/warn")) {
        r = review_reply(c, uid,
                         "\"allowed\":true,\"warnings\":[\"first warning\",\"second warning\"],"
                         "\"auditAnnotations\":{\"decision\":\"ok\"}");
    } else if (!strcmp(url, "/sleep1")) {
        usleep(1000 * 1000);
        r = review_reply(c, uid, "\"allowed\":true");
    } else if (!strcmp(url, "/hang")) {
        usleep(4000 * 1000);
        r = review_reply(c, uid, "\"allowed\":true");
    } else if (!strcmp(url, "/wrong-uid")) {
        r = review_reply(c, "nope", "\"allowed\":true");
    } else if (!strcmp(url, "/garbage")) {
        r = reply(c, 200, "this is not json");
    } else if (!strcmp(url, "/500") || !strcmp(url, "/flaky")) {
        r = reply(c, 500, "oops");
    } else if (!strcmp(url, "/big")) {
        size_t n = 4u << 20;
        char *big = malloc(n + 1);
        memset(big, ' ', n);
        big[n] = 0;
        r = reply(c, 200, big);
        free(big);
    } else {
        r = reply(c, 404, "{}");
    }
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

static void reset_log(void)
{
    pthread_mutex_lock(&log_mu);
    call_log[0] = 0;
    last_review[0] = 0;
    pthread_mutex_unlock(&log_mu);
}

static const char *get_log(kg_arena *a)
{
    pthread_mutex_lock(&log_mu);
    const char *s = kg_arena_strdup(a, call_log);
    pthread_mutex_unlock(&log_mu);
    return s;
}

/* ---- fixtures ---- */

typedef struct fx {
    kg_arena a;
    kg_admission_memcluster *m;
    kg_admission_services svc;
    kg_admission_chain *chain;
    kg_warnings warnings;
} fx;

static void fx_init_with(fx *f, const kg_apiserver_metrics *metrics)
{
    kg_arena_init(&f->a, 0);
    f->m = kg_admission_memcluster_new();
    f->svc = kg_admission_memcluster_services(f->m, metrics);
    const kg_admission_plugin *plugins[] = {&kg_admission_plugin_mutating_admission_webhook,
                                            &kg_admission_plugin_validating_admission_webhook};
    kg_error e = {0};
    f->chain = kg_admission_chain_new_from(plugins, 2, NULL, &f->svc, NULL, &e);
    assert_non_null(f->chain);
    kg_warnings_init(&f->warnings, &f->a);
    tput(f->m, "namespaces", "{\"metadata\":{\"name\":\"default\",\"labels\":{\"env\":\"test\"}}}", 0);
    reset_log();
}

static void fx_init(fx *f)
{
    fx_init_with(f, NULL);
}

static void fx_free(fx *f)
{
    kg_admission_chain_free(f->chain);
    kg_admission_memcluster_free(f->m);
    kg_arena_free(&f->a);
}

/* One webhook entry. path: the server path; extra: more members (",\"k\":v"). */
static const char *hook(fx *f, const char *name, const char *path, const char *extra)
{
    return kg_arena_sprintf(
        &f->a,
        "{\"name\":\"%s\",\"clientConfig\":{\"url\":\"https://127.0.0.1:%d/%s\",\"caBundle\":\"%s\"},"
        "\"rules\":[{\"operations\":[\"CREATE\",\"UPDATE\"],\"apiGroups\":[\"\"],\"apiVersions\":"
        "[\"v1\"],\"resources\":[\"pods\"]}],\"sideEffects\":\"None\",\"admissionReviewVersions\":"
        "[\"v1\"]%s}",
        name, port, path, ca_b64, extra ? extra : "");
}

static void put_config(fx *f, bool mutating, const char *name, const char *hooks)
{
    tput(f->m, mutating ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations",
         kg_arena_sprintf(&f->a,
                          "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"%sWebhookConfiguration\","
                          "\"metadata\":{\"name\":\"%s\"},\"webhooks\":[%s]}",
                          mutating ? "Mutating" : "Validating", name, hooks),
         0);
}

static int64_t next_deadline_ns; /* the deadline create_pod gives the request (0: none) */

static kg_status *create_pod(fx *f, kg_admission_attributes *at, const char *name, const char *labels, bool dry_run)
{
    kg_json *pod = tj(&f->a, kg_arena_sprintf(&f->a,
                                              "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\","
                                              "\"namespace\":\"default\",\"labels\":{%s}},\"spec\":{}}",
                                              name, labels ? labels : ""));
    tattrs(at, &f->a, KG_ADMISSION_CREATE, "Pod", "pods", "default", name, pod, NULL);
    at->request_kind = at->kind;
    at->request_resource = at->resource;
    at->uid = "req-1";
    at->dry_run = dry_run;
    at->deadline_ns = next_deadline_ns;
    at->warnings = &f->warnings;
    at->user = (kg_admission_user){.name = "alice", .uid = ""};
    return kg_admission_chain_run(f->chain, at);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *annotation(const kg_admission_attributes *at, const char *key)
{
    return at->annotations ? kg_json_get_str(at->annotations, key) : NULL;
}

/* ---- tests ---- */

static void allow_and_deny(void **state)
{
    fx f;
    fx_init(&f);
    put_config(&f, false, "deny-labelled",
               kg_arena_sprintf(&f.a, "%s,%s", hook(&f, "allow.example.com", "allow", NULL),
                                hook(&f, "deny.example.com", "deny-label", NULL)));
    kg_admission_attributes at;
    assert_null(create_pod(&f, &at, "ok", NULL, false));
    assert_status(create_pod(&f, &at, "bad", "\"deny\":\"true\"", false), 403, "Forbidden",
                  "admission webhook \"deny.example.com\" denied the request: pods labelled deny=true are not allowed");
    /* the review as upstream sends it */
    kg_json *rv = tj(&f.a, last_review);
    assert_string_equal(kg_json_get_str(rv, "apiVersion"), "admission.k8s.io/v1");
    assert_string_equal(kg_json_path_str(rv, "request.operation"), "CREATE");
    assert_string_equal(kg_json_path_str(rv, "request.resource.resource"), "pods");
    assert_string_equal(kg_json_path_str(rv, "request.kind.kind"), "Pod");
    assert_string_equal(kg_json_path_str(rv, "request.requestResource.resource"), "pods");
    assert_string_equal(kg_json_path_str(rv, "request.namespace"), "default");
    assert_string_equal(kg_json_path_str(rv, "request.name"), "bad");
    assert_string_equal(kg_json_path_str(rv, "request.userInfo.username"), "alice");
    assert_int_equal(kg_json_path(rv, "request.oldObject")->type, KG_JSON_NULL);
    assert_false(kg_json_path(rv, "request.dryRun")->b);
    assert_int_equal(strlen(kg_json_path_str(rv, "request.uid")), 36);
    /* a denial without a status: 400, "without explanation" */
    put_config(&f, false, "deny-labelled", hook(&f, "bare.example.com", "deny-bare", NULL));
    assert_status(create_pod(&f, &at, "p", NULL, false), 400, "",
                  "admission webhook \"bare.example.com\" denied the request without explanation");
    /* namespaceSelector: the namespace's labels (env=test) */
    put_config(&f, false, "deny-labelled",
               hook(&f, "ns.example.com", "deny-bare", ",\"namespaceSelector\":{\"matchLabels\":{\"env\":\"prod\"}}"));
    assert_null(create_pod(&f, &at, "p", NULL, false));
    put_config(&f, false, "deny-labelled",
               hook(&f, "ns.example.com", "deny-bare", ",\"namespaceSelector\":{\"matchLabels\":{\"env\":\"test\"}}"));
    assert_non_null(create_pod(&f, &at, "p", NULL, false));
    /* objectSelector: the object's labels */
    put_config(&f, false, "deny-labelled",
               hook(&f, "obj.example.com", "deny-bare", ",\"objectSelector\":{\"matchLabels\":{\"app\":\"x\"}}"));
    assert_null(create_pod(&f, &at, "p", NULL, false));
    assert_non_null(create_pod(&f, &at, "p", "\"app\":\"x\"", false));
    /* a caBundle that is not base64 (stored around validation): the hook stays and its calls fail closed */
    kg_json *hj = tj(&f.a, hook(&f, "badca.example.com", "allow", NULL));
    kg_json_set(&f.a, kg_json_get(hj, "clientConfig"), "caBundle", kg_json_new_str(&f.a, "!!not base64!!"));
    put_config(&f, false, "deny-labelled", kg_json_to_string(&f.a, hj, 0, NULL));
    assert_status(create_pod(&f, &at, "p", NULL, false), 500, "InternalError",
                  "Internal error occurred: failed calling webhook \"badca.example.com\": failed to call webhook: "
                  "clientConfig.caBundle: not base64");
    /* not matching operations / resources: not called */
    reset_log();
    kg_json *obj = tj(&f.a, "{\"metadata\":{\"name\":\"cm\",\"namespace\":\"default\"}}");
    tattrs(&at, &f.a, KG_ADMISSION_CREATE, "ConfigMap", "configmaps", "default", "cm", obj, NULL);
    assert_null(kg_admission_chain_run(f.chain, &at));
    assert_string_equal(get_log(&f.a), "");
    fx_free(&f);
}

static void patches_warnings_and_audit(void **state)
{
    fx f;
    fx_init(&f);
    put_config(&f, true, "mutate", hook(&f, "patch.example.com", "patch", NULL));
    put_config(&f, false, "warn", hook(&f, "warn.example.com", "warn", NULL));
    kg_admission_attributes at;
    assert_null(create_pod(&f, &at, "p", NULL, false));
    assert_string_equal(kg_json_path_str(at.object, "metadata.labels.patched"), "yes");
    assert_string_equal(annotation(&at, "mutation.webhook.admission.k8s.io/round_0_index_0"),
                        "{\"configuration\":\"mutate\",\"webhook\":\"patch.example.com\",\"mutated\":true}");
    assert_non_null(annotation(&at, "patch.webhook.admission.k8s.io/round_0_index_0"));
    assert_int_equal(f.warnings.n, 2);
    assert_string_equal(f.warnings.items[0], "first warning");
    assert_string_equal(f.warnings.items[1], "second warning");
    assert_string_equal(annotation(&at, "warn.example.com/decision"), "ok");
    /* a patch on DELETE (no object to patch): 500 */
    put_config(&f, true, "mutate",
               hook(&f, "del.example.com", "patch",
                    ",\"rules\":[{\"operations\":[\"DELETE\"],\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],"
                    "\"resources\":[\"pods\"]}]"));
    tattrs(&at, &f.a, KG_ADMISSION_DELETE, "Pod", "pods", "default", "p", NULL,
           tj(&f.a, "{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\"}}"));
    assert_status(
        kg_admission_chain_run(f.chain, &at), 500, "InternalError",
        "Internal error occurred: admission webhook \"del.example.com\" attempted to modify the object, which "
        "is not supported for this operation");
    assert_int_equal(kg_json_path(tj(&f.a, last_review), "request.object")->type, KG_JSON_NULL);
    assert_string_equal(kg_json_path_str(tj(&f.a, last_review), "request.oldObject.metadata.name"), "p");
    /* a patch that does not apply: 500, not subject to failurePolicy */
    put_config(&f, true, "mutate", hook(&f, "badpatch.example.com", "bad-patch", ",\"failurePolicy\":\"Ignore\""));
    kg_status *st = create_pod(&f, &at, "p2", NULL, false);
    assert_non_null(st);
    assert_int_equal(kg_status_http_code(st), 500);
    assert_non_null(strstr(st->message, "Internal error occurred: "));
    fx_free(&f);
}

/* path → the reason's expected beginning after `failed calling webhook "x": ` */
static void failure_policy_each_kind(void **state)
{
    static const struct {
        const char *path;
        const char *url; /* NULL: our server */
        bool other_ca;
        const char *want;
    } cases[] = {
        {"allow", "https://127.0.0.1:1/allow", false,
         "failed to call webhook: Post \"https://127.0.0.1:1/allow?timeout="},
        {"allow", NULL, true, "failed to call webhook: Post \"https://127.0.0.1:"},
        {"hang", NULL, false, "failed to call webhook: Post \"https://127.0.0.1:"},
        {"500", NULL, false, "failed to call webhook: the server responded with status 500"},
        {"garbage", NULL, false, "failed to call webhook: "},
        {"wrong-uid", NULL, false, "received invalid webhook response: expected response.uid=\""},
        {"big", NULL, false, "failed to call webhook: Post \"https://127.0.0.1:"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int ignore = 0; ignore < 2; ++ignore) {
            fx f;
            fx_init(&f);
            const char *h = hook(
                &f, "fp.example.com", cases[i].path,
                kg_arena_sprintf(&f.a, ",\"timeoutSeconds\":1,\"failurePolicy\":\"%s\"", ignore ? "Ignore" : "Fail"));
            if (cases[i].url) {
                kg_json *hj = tj(&f.a, h);
                kg_json_set(&f.a, kg_json_get(hj, "clientConfig"), "url", kg_json_new_str(&f.a, cases[i].url));
                h = kg_json_to_string(&f.a, hj, 0, NULL);
            }
            if (cases[i].other_ca) {
                kg_json *hj = tj(&f.a, h);
                kg_json_set(&f.a, kg_json_get(hj, "clientConfig"), "caBundle", kg_json_new_str(&f.a, other_ca_b64));
                h = kg_json_to_string(&f.a, hj, 0, NULL);
            }
            put_config(&f, false, "fp", h);
            kg_admission_attributes at;
            double t0 = now_s();
            kg_status *st = create_pod(&f, &at, "p", NULL, false);
            double took = now_s() - t0;
            assert_true(took < 2.5); /* a hanging webhook never holds the request past its timeout (1 s) */
            if (ignore) {
                assert_null(st);
                assert_string_equal(annotation(&at, "failed-open.validating.webhook.admission.k8s.io/round_0_index_0"),
                                    "fp.example.com");
            } else {
                assert_non_null(st);
                assert_int_equal(kg_status_http_code(st), 500);
                assert_string_equal(st->reason, "InternalError");
                const char *pre = "Internal error occurred: failed calling webhook \"fp.example.com\": ";
                if (strncmp(st->message, pre, strlen(pre)) ||
                    strncmp(st->message + strlen(pre), cases[i].want, strlen(cases[i].want)))
                    fail_msg("case %s: %s", cases[i].path, st->message);
                print_message("%s: %s\n", cases[i].path, st->message);
                if (!strcmp(cases[i].path, "hang"))
                    assert_non_null(strstr(st->message, "?timeout=1s\": context deadline exceeded"));
            }
            fx_free(&f);
        }
    }
}

static void parallel_validating(void **state)
{
    fx f;
    fx_init(&f);
    put_config(&f, false, "slow",
               kg_arena_sprintf(&f.a, "%s,%s,%s", hook(&f, "slow1.example.com", "sleep1", NULL),
                                hook(&f, "slow2.example.com", "sleep1", NULL),
                                hook(&f, "deny.example.com", "deny-label", NULL)));
    kg_admission_attributes at;
    double t0 = now_s();
    assert_null(create_pod(&f, &at, "p", NULL, false));
    double took = now_s() - t0;
    assert_true(took >= 0.99);
    assert_true(took < 1.95); /* two 1 s hooks in parallel cost ~1 s; in sequence they could not take under 2 */
    /* the verdict is merged in hook order */
    assert_status(create_pod(&f, &at, "p", "\"deny\":\"true\"", false), 403, "Forbidden",
                  "admission webhook \"deny.example.com\" denied the request: pods labelled deny=true are not allowed");
    fx_free(&f);
}

static void reinvocation_order(void **state)
{
    fx f;
    fx_init(&f);
    /* a (IfNeeded) does nothing; b changes the object: a is called again, b is not (Never) */
    put_config(&f, true, "a-config", hook(&f, "a.example.com", "allow", ",\"reinvocationPolicy\":\"IfNeeded\""));
    put_config(&f, true, "b-config", hook(&f, "b.example.com", "patch-b", NULL));
    kg_admission_attributes at;
    assert_null(create_pod(&f, &at, "p", NULL, false));
    assert_string_equal(get_log(&f.a), "allow,patch-b,allow");
    assert_string_equal(kg_json_path_str(at.object, "metadata.labels.b"), "1");
    assert_non_null(annotation(&at, "mutation.webhook.admission.k8s.io/round_1_index_0"));
    /* nothing changed: nobody is reinvoked */
    reset_log();
    assert_null(create_pod(&f, &at, "p", "\"b\":\"0\"", false));
    assert_string_equal(get_log(&f.a), "allow,patch-b");
    fx_free(&f);
}

static void dry_run_side_effects(void **state)
{
    fx f;
    fx_init(&f);
    put_config(&f, false, "se", hook(&f, "unknown.example.com", "allow", NULL));
    /* stored before validation existed: sideEffects Unknown */
    kg_json *cfg = tj(&f.a, kg_arena_sprintf(&f.a, "{\"metadata\":{\"name\":\"se\"},\"webhooks\":[%s]}",
                                             hook(&f, "unknown.example.com", "allow", NULL)));
    kg_json_set(&f.a, kg_json_at(kg_json_get(cfg, "webhooks"), 0), "sideEffects", kg_json_new_str(&f.a, "Unknown"));
    kg_error e = {0};
    assert_true(kg_admission_memcluster_put(f.m, "validatingwebhookconfigurations", cfg, 0, &e));
    kg_admission_attributes at;
    assert_status(create_pod(&f, &at, "p", NULL, true), 400, "BadRequest",
                  "admission webhook \"unknown.example.com\" does not support dry run");
    assert_string_equal(get_log(&f.a), "");
    assert_null(create_pod(&f, &at, "p", NULL, false)); /* not dry-run: called */
    put_config(&f, false, "se", hook(&f, "none.example.com", "allow", ",\"sideEffects\":\"NoneOnDryRun\""));
    reset_log();
    assert_null(create_pod(&f, &at, "p", NULL, true));
    assert_string_equal(get_log(&f.a), "allow");
    assert_true(kg_json_path(tj(&f.a, last_review), "request.dryRun")->b);
    fx_free(&f);
}

static void recompiled_on_change(void **state)
{
    fx f;
    fx_init(&f);
    kg_admission_attributes at;
    assert_null(create_pod(&f, &at, "p", "\"deny\":\"true\"", false));
    put_config(&f, false, "cfg", hook(&f, "deny.example.com", "deny-label", NULL));
    assert_non_null(create_pod(&f, &at, "p", "\"deny\":\"true\"", false));
    put_config(&f, false, "cfg", hook(&f, "deny.example.com", "allow", NULL));
    assert_null(create_pod(&f, &at, "p", "\"deny\":\"true\"", false));
    put_config(&f, false, "cfg", hook(&f, "deny.example.com", "deny-label", NULL));
    assert_non_null(create_pod(&f, &at, "p", "\"deny\":\"true\"", false));
    assert_true(kg_admission_memcluster_remove(f.m, "validatingwebhookconfigurations", "", "cfg"));
    reset_log();
    assert_null(create_pod(&f, &at, "p", "\"deny\":\"true\"", false));
    assert_string_equal(get_log(&f.a), "");
    fx_free(&f);
}

static void exemptions_and_order(void **state)
{
    fx f;
    fx_init(&f);
    const char *all = ",\"rules\":[{\"operations\":[\"*\"],\"apiGroups\":[\"*\"],\"apiVersions\":[\"*\"],"
                      "\"resources\":[\"*/*\"]}]";
    /* configurations in name order, hooks in list order */
    put_config(&f, false, "z-last", hook(&f, "z.example.com", "deny-bare", all));
    put_config(&f, true, "b",
               kg_arena_sprintf(&f.a, "%s,%s", hook(&f, "m2.example.com", "allow", NULL),
                                hook(&f, "m3.example.com", "patch", NULL)));
    put_config(&f, true, "a", hook(&f, "m1.example.com", "allow", NULL));
    kg_admission_attributes at;
    kg_json *obj = tj(&f.a, "{\"metadata\":{\"name\":\"x\"},\"webhooks\":[]}");
    kg_admission_attrs_init(&at, &f.a);
    at.operation = KG_ADMISSION_CREATE;
    at.kind = (kg_gvk){"admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration"};
    at.resource = (kg_gvr){"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"};
    at.name = "x";
    at.object = obj;
    assert_null(kg_admission_chain_run(f.chain, &at)); /* never sent to API-defined webhooks */
    assert_string_equal(get_log(&f.a), "");
    assert_non_null(create_pod(&f, &at, "p", NULL, false));
    assert_string_equal(get_log(&f.a), "allow,allow,patch,deny-bare");
    fx_free(&f);
}

static void service_reference(void **state)
{
    fx f;
    fx_init(&f);
    tput(f.m, "services",
         "{\"metadata\":{\"name\":\"webhook\",\"namespace\":\"default\"},\"spec\":{\"ports\":[{\"name\":\"https\","
         "\"port\":443}]}}",
         0);
    kg_json *h = tj(&f.a, hook(&f, "svc.example.com", "deny-label", NULL));
    kg_json *cc = kg_json_get(h, "clientConfig");
    kg_json_del(cc, "url");
    kg_json_set(&f.a, cc, "service",
                tj(&f.a, "{\"namespace\":\"default\",\"name\":\"webhook\",\"path\":\"/deny-label\",\"port\":443}"));
    put_config(&f, false, "svc", kg_json_to_string(&f.a, h, 0, NULL));
    kg_admission_attributes at;
    kg_status *st = create_pod(&f, &at, "p", "\"deny\":\"true\"", false);
    assert_non_null(st);
    assert_string_equal(st->message, "Internal error occurred: failed calling webhook \"svc.example.com\": failed to "
                                     "call webhook: no endpoints available for service \"webhook\"");
    tput(f.m, "endpoints",
         kg_arena_sprintf(&f.a,
                          "{\"metadata\":{\"name\":\"webhook\",\"namespace\":\"default\"},\"subsets\":[{"
                          "\"addresses\":[{\"ip\":\"127.0.0.1\"}],\"ports\":[{\"name\":\"https\",\"port\":%d}]}]}",
                          port),
         0);
    /* dialled at the endpoint, verified as webhook.default.svc */
    assert_status(create_pod(&f, &at, "p", "\"deny\":\"true\"", false), 403, "Forbidden",
                  "admission webhook \"svc.example.com\" denied the request: pods labelled deny=true are not allowed");
    assert_null(create_pod(&f, &at, "p", NULL, false));
    fx_free(&f);
}

static void match_conditions(void **state)
{
    fx f;
    fx_init(&f);
    put_config(
        &f, false, "mc",
        hook(&f, "mc.example.com", "deny-bare",
             ",\"matchConditions\":[{\"name\":\"not-skip\",\"expression\":\"object.metadata.name != 'skip'\"}]"));
    kg_admission_attributes at;
    assert_null(create_pod(&f, &at, "skip", NULL, false));
    assert_string_equal(get_log(&f.a), "");
    assert_non_null(create_pod(&f, &at, "other", NULL, false));
    /* an evaluation error under Fail: 403 forbidden with the condition's error; under Ignore: skipped */
    const char *bad =
        ",\"matchConditions\":[{\"name\":\"err\",\"expression\":\"object.metadata.labels.nokey == 'x'\"}]";
    put_config(&f, false, "mc", hook(&f, "mc.example.com", "deny-bare", bad));
    kg_status *st = create_pod(&f, &at, "p", NULL, false);
    assert_non_null(st);
    assert_int_equal(kg_status_http_code(st), 403);
    assert_non_null(strstr(st->message, "pods \"p\" is forbidden: expression 'object.metadata.labels.nokey == 'x'' "
                                        "resulted in error: "));
    put_config(&f, false, "mc",
               hook(&f, "mc.example.com", "deny-bare", kg_arena_sprintf(&f.a, "%s,\"failurePolicy\":\"Ignore\"", bad)));
    assert_null(create_pod(&f, &at, "p", NULL, false));
    fx_free(&f);
}

/* Requests on several threads while the configuration changes under them: every request sees a whole set (old or
 * new), sets are freed only when their last request is done (TSan and ASan check the lock-free hand-over). */
typedef struct worker_arg {
    fx *f;
    int denied, allowed;
} worker_arg;

static void *request_loop(void *p)
{
    worker_arg *w = p;
    for (int i = 0; i < 15; i++) {
        kg_arena a;
        kg_arena_init(&a, 0);
        kg_json *pod = tj(&a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":"
                              "\"default\",\"labels\":{\"deny\":\"true\"}},\"spec\":{}}");
        kg_admission_attributes at;
        tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "default", "p", pod, NULL);
        kg_status *st = kg_admission_chain_run(w->f->chain, &at);
        if (st)
            w->denied++;
        else
            w->allowed++;
        kg_arena_free(&a);
    }
    return NULL;
}

static void concurrent_requests_and_changes(void **state)
{
    fx f;
    fx_init(&f);
    put_config(&f, false, "cfg",
               kg_arena_sprintf(&f.a, "%s,%s", hook(&f, "a.example.com", "allow", NULL),
                                hook(&f, "b.example.com", "deny-label", NULL)));
    pthread_t t[4];
    worker_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (worker_arg){.f = &f};
        assert_int_equal(pthread_create(&t[i], NULL, request_loop, &args[i]), 0);
    }
    for (int i = 0; i < 20; i++)
        put_config(&f, false, "cfg", hook(&f, "b.example.com", i % 2 ? "deny-label" : "allow", NULL));
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(args[i].denied + args[i].allowed, 15);
    }
    fx_free(&f);
}

/* The series line `<name>{<labels>} <value>` is in the metrics text (fail with the whole text when not). */
static void assert_series(const char *text, const char *series, const char *value)
{
    char want[1024];
    snprintf(want, sizeof want, "\n%s %s\n", series, value);
    if (!strstr(text, want))
        fail_msg("missing %s in:\n%s", want + 1, text);
}

static void metrics_recorded(void **state)
{
    kg_metrics_registry *reg = kg_metrics_registry_new();
    kg_apiserver_metrics am;
    assert_true(kg_metrics_apiserver_register(reg, &am));
    fx f;
    fx_init_with(&f, &am);
    put_config(&f, true, "mutate", hook(&f, "patch.example.com", "patch", NULL));
    put_config(&f, false, "deny-labelled",
               kg_arena_sprintf(&f.a, "%s,%s", hook(&f, "allow.example.com", "allow", NULL),
                                hook(&f, "deny.example.com", "deny-label", NULL)));
    kg_admission_attributes at;
    assert_null(create_pod(&f, &at, "ok", NULL, false));
    assert_non_null(create_pod(&f, &at, "bad", "\"deny\":\"true\"", false));
    /* an unreachable webhook, failing open and then closed */
    const char *down = ",\"timeoutSeconds\":1,\"failurePolicy\":\"Ignore\"";
    kg_json *hj = tj(&f.a, hook(&f, "down.example.com", "allow", down));
    kg_json_set(&f.a, kg_json_get(hj, "clientConfig"), "url", kg_json_new_str(&f.a, "https://127.0.0.1:1/allow"));
    put_config(&f, false, "deny-labelled", kg_json_to_string(&f.a, hj, 0, NULL));
    assert_null(create_pod(&f, &at, "open", NULL, false));
    kg_json_set(&f.a, hj, "failurePolicy", kg_json_new_str(&f.a, "Fail"));
    put_config(&f, false, "deny-labelled", kg_json_to_string(&f.a, hj, 0, NULL));
    assert_non_null(create_pod(&f, &at, "closed", NULL, false));

    kg_buf b = KG_BUF_INIT;
    kg_metrics_write(reg, &b);
    const char *t = kg_buf_cstr(&b);
    const char *rt = "apiserver_admission_webhook_request_total";
    char s[512];
#define SERIES(...) (snprintf(s, sizeof s, __VA_ARGS__), s)
    assert_series(
        t,
        SERIES("%s{code=\"200\",name=\"patch.example.com\",operation=\"CREATE\",rejected=\"false\",type=\"admit\"}",
               rt),
        "4");
    assert_series(
        t,
        SERIES(
            "%s{code=\"200\",name=\"allow.example.com\",operation=\"CREATE\",rejected=\"false\",type=\"validating\"}",
            rt),
        "2");
    assert_series(
        t,
        SERIES("%s{code=\"200\",name=\"deny.example.com\",operation=\"CREATE\",rejected=\"false\",type=\"validating\"}",
               rt),
        "1");
    assert_series(
        t,
        SERIES("%s{code=\"403\",name=\"deny.example.com\",operation=\"CREATE\",rejected=\"true\",type=\"validating\"}",
               rt),
        "1");
    assert_series(
        t,
        SERIES("%s{code=\"503\",name=\"down.example.com\",operation=\"CREATE\",rejected=\"false\",type=\"validating\"}",
               rt),
        "1");
    assert_series(
        t,
        SERIES("%s{code=\"503\",name=\"down.example.com\",operation=\"CREATE\",rejected=\"true\",type=\"validating\"}",
               rt),
        "1");
    assert_series(t,
                  "apiserver_admission_webhook_rejection_count{error_type=\"no_error\",name=\"deny.example.com\","
                  "operation=\"CREATE\",rejection_code=\"403\",type=\"validating\"}",
                  "1");
    assert_series(t,
                  "apiserver_admission_webhook_rejection_count{error_type=\"calling_webhook_error\","
                  "name=\"down.example.com\",operation=\"CREATE\",rejection_code=\"503\",type=\"validating\"}",
                  "1");
    assert_series(t, "apiserver_admission_webhook_fail_open_count{name=\"down.example.com\",type=\"validating\"}", "1");
    assert_series(t,
                  "apiserver_admission_webhook_admission_duration_seconds_count{name=\"allow.example.com\","
                  "operation=\"CREATE\",rejected=\"false\",type=\"validating\"}",
                  "2");
    /* the sub-millisecond buckets in front of upstream's */
    const char *allowed = "name=\"allow.example.com\",operation=\"CREATE\",rejected=\"false\",type=\"validating\"";
    assert_non_null(
        strstr(t, SERIES("apiserver_admission_webhook_admission_duration_seconds_bucket{%s,le=\"5e-05\"}", allowed)));
    assert_non_null(
        strstr(t, SERIES("apiserver_admission_webhook_admission_duration_seconds_bucket{%s,le=\"25\"}", allowed)));
#undef SERIES
    kg_buf_free(&b);
    fx_free(&f);
    kg_metrics_registry_free(reg);
}

/* ---- setup ---- */

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kgate-webhook-XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "set -e; cd '%s'; "
             "EC='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'; "
             "openssl req -x509 $EC -keyout ca.key -out ca.crt -days 2 -subj /CN=webhook-test-ca 2>/dev/null; "
             "openssl req -x509 $EC -keyout other.key -out other.crt -days 2 -subj /CN=other-ca 2>/dev/null; "
             "printf 'subjectAltName=IP:127.0.0.1,DNS:webhook.default.svc\\nextendedKeyUsage=serverAuth\\n' > srv.ext; "
             "openssl req $EC -keyout server.key -out server.csr -subj /CN=webhook 2>/dev/null; "
             "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile srv.ext "
             "-out server.crt 2>/dev/null",
             tmpdir);
    if (system(cmd) != 0)
        return -1;
    char p[400];
    size_t len;
    snprintf(p, sizeof p, "%s/ca.crt", tmpdir);
    ca_pem = kg_read_file(p, &len);
    snprintf(p, sizeof p, "%s/server.crt", tmpdir);
    srv_cert = kg_read_file(p, &len);
    snprintf(p, sizeof p, "%s/server.key", tmpdir);
    srv_key = kg_read_file(p, &len);
    snprintf(p, sizeof p, "%s/other.crt", tmpdir);
    char *other = kg_read_file(p, &len);
    if (!ca_pem || !srv_cert || !srv_key || !other)
        return -1;
    static kg_arena keep;
    kg_arena_init(&keep, 0);
    ca_b64 = kg_base64_encode(&keep, ca_pem, strlen(ca_pem), 0, NULL);
    other_ca_b64 = kg_base64_encode(&keep, other, strlen(other), 0, NULL);
    free(other);
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
    free(ca_pem);
    free(srv_cert);
    free(srv_key);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The request's deadline bounds every call: timeoutSeconds is cut to what is left (and ?timeout= says so, rounded up
 * to seconds); once it has passed, the remaining calls fail through failurePolicy without a call, with upstream's
 * `context deadline exceeded`. */
static void request_deadline(void **state)
{
    (void)state;
    fx f;
    fx_init(&f);
    kg_admission_attributes at;
    /* a 1 s webhook, timeoutSeconds 10, 300 ms left: cut at 300 ms */
    put_config(&f, false, "slow", hook(&f, "slow.example.com", "sleep1", NULL));
    next_deadline_ns = mono_ns() + 300 * 1000000LL;
    double t0 = now_s();
    kg_status *st = create_pod(&f, &at, "p", NULL, false);
    double took = now_s() - t0;
    assert_true(took < 0.9);
    assert_non_null(st);
    assert_string_equal(st->message, kg_arena_sprintf(&f.a,
                                                      "Internal error occurred: failed calling webhook "
                                                      "\"slow.example.com\": failed to call webhook: Post "
                                                      "\"https://127.0.0.1:%d/sleep1?timeout=1s\": context deadline "
                                                      "exceeded",
                                                      port));
    /* far away: timeoutSeconds as is */
    put_config(&f, false, "slow", hook(&f, "slow.example.com", "allow", NULL));
    next_deadline_ns = mono_ns() + 60 * 1000000000LL;
    assert_null(create_pod(&f, &at, "p", NULL, false));
    /* in sequence: the first mutating call (Ignore) eats the time left, the second finds the deadline passed */
    put_config(&f, false, "slow", "");
    put_config(&f, true, "m",
               kg_arena_sprintf(&f.a, "%s,%s", hook(&f, "a.example.com", "sleep1", ",\"failurePolicy\":\"Ignore\""),
                                hook(&f, "b.example.com", "allow", NULL)));
    reset_log();
    next_deadline_ns = mono_ns() + 500 * 1000000LL;
    st = create_pod(&f, &at, "p", NULL, false);
    assert_non_null(st);
    assert_string_equal(st->message, kg_arena_sprintf(&f.a,
                                                      "Internal error occurred: failed calling webhook "
                                                      "\"b.example.com\": failed to call webhook: Post "
                                                      "\"https://127.0.0.1:%d/allow\": context deadline exceeded",
                                                      port));
    assert_string_equal(annotation(&at, "failed-open.mutation.webhook.admission.k8s.io/round_0_index_0"),
                        "a.example.com");
    usleep(600 * 1000); /* the server finishes the sleep; b was never called */
    assert_string_equal(get_log(&f.a), "sleep1");
    /* already past, Ignore: allowed, failed open, not called */
    put_config(&f, true, "m", hook(&f, "c.example.com", "allow", ",\"failurePolicy\":\"Ignore\""));
    reset_log();
    next_deadline_ns = mono_ns() - 1;
    assert_null(create_pod(&f, &at, "p", NULL, false));
    assert_string_equal(annotation(&at, "failed-open.mutation.webhook.admission.k8s.io/round_0_index_0"),
                        "c.example.com");
    assert_string_equal(get_log(&f.a), "");
    next_deadline_ns = 0;
    fx_free(&f);
}

static size_t log_calls(fx *f)
{
    const char *l = get_log(&f->a);
    size_t n = l[0] ? 1 : 0;
    for (; *l; l++)
        n += *l == ',';
    return n;
}

/* failurePolicy Ignore: after 5 consecutive failures the calls are skipped (same verdict and annotation), a probe
 * after the window closes the breaker on success; a failed probe doubles the window; Fail webhooks have none; the
 * breaker survives a recompilation that leaves the webhook unchanged. */
static void circuit_breaker(void **state)
{
    (void)state;
    kg_metrics_registry *reg = kg_metrics_registry_new();
    kg_apiserver_metrics am;
    assert_true(kg_metrics_apiserver_register(reg, &am));
    fx f;
    fx_init_with(&f, &am);
    atomic_store(&flaky_fails, true);
    put_config(&f, false, "cb", hook(&f, "cb.example.com", "flaky", ",\"failurePolicy\":\"Ignore\""));
    kg_admission_attributes at;
    for (int i = 0; i < 5; i++) {
        assert_null(create_pod(&f, &at, "p", NULL, false));
        assert_string_equal(annotation(&at, "failed-open.validating.webhook.admission.k8s.io/round_0_index_0"),
                            "cb.example.com");
    }
    assert_int_equal(log_calls(&f), 5);
    /* open: not called, same verdict and annotation */
    assert_null(create_pod(&f, &at, "p", NULL, false));
    assert_string_equal(annotation(&at, "failed-open.validating.webhook.admission.k8s.io/round_0_index_0"),
                        "cb.example.com");
    assert_int_equal(log_calls(&f), 5);
    /* an unrelated configuration change recompiles the set: the unchanged webhook keeps its breaker */
    put_config(&f, false, "other", hook(&f, "other.example.com", "allow", NULL));
    assert_null(create_pod(&f, &at, "p", NULL, false));
    assert_int_equal(log_calls(&f), 6); /* other.example.com only */
    /* after the 1 s window one probe; it fails: open again for 2 s */
    usleep(1100 * 1000);
    assert_null(create_pod(&f, &at, "p", NULL, false));
    assert_int_equal(log_calls(&f), 8);
    usleep(1100 * 1000);
    assert_null(create_pod(&f, &at, "p", NULL, false));
    assert_int_equal(log_calls(&f), 9); /* still open (2 s window) */
    /* the webhook recovers: the next probe succeeds and the breaker closes */
    atomic_store(&flaky_fails, false);
    usleep(1000 * 1000);
    assert_null(create_pod(&f, &at, "p", NULL, false));
    assert_int_equal(log_calls(&f), 11);
    assert_null(annotation(&at, "failed-open.validating.webhook.admission.k8s.io/round_0_index_0"));
    assert_null(create_pod(&f, &at, "p", NULL, false));
    assert_int_equal(log_calls(&f), 13);
    /* skipped calls count as failed open, and in kgate's skip counter */
    const char *const labels[] = {"cb.example.com", "validating"};
    assert_int_equal(kg_metric_value(kg_metrics_find(reg, "apiserver_admission_webhook_fail_open_count"), labels), 9);
    assert_int_equal(
        kg_metric_value(kg_metrics_find(reg, "kgate_admission_webhook_circuit_breaker_skips_total"), labels), 3);
    /* failurePolicy Fail: every call is made */
    atomic_store(&flaky_fails, true);
    put_config(&f, false, "cb", hook(&f, "cb.example.com", "flaky", NULL));
    put_config(&f, false, "other", "");
    reset_log();
    for (int i = 0; i < 7; i++)
        assert_non_null(create_pod(&f, &at, "p", NULL, false));
    assert_int_equal(log_calls(&f), 7);
    atomic_store(&flaky_fails, false);
    fx_free(&f);
    kg_metrics_registry_free(reg);
}

/* A kept-alive connection that the webhook closes before answering: the call is sent again once on a new connection
 * (libcurl's retry of a dead reused connection), not more. */
static void retry_on_dropped_keepalive(void **state)
{
    (void)state;
    fx f;
    fx_init(&f);
    atomic_store(&drop_count, 0);
    put_config(&f, false, "drop", hook(&f, "drop.example.com", "drop-second", NULL));
    kg_admission_attributes at;
    assert_null(create_pod(&f, &at, "p", NULL, false)); /* request 1: answered, connection kept */
    assert_null(create_pod(&f, &at, "p", NULL, false)); /* request 2 dropped on the reused connection, 3 answers */
    assert_int_equal(atomic_load(&drop_count), 3);
    assert_null(create_pod(&f, &at, "p", NULL, false));
    assert_int_equal(atomic_load(&drop_count), 4);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(allow_and_deny),
        cmocka_unit_test(patches_warnings_and_audit),
        cmocka_unit_test(failure_policy_each_kind),
        cmocka_unit_test(parallel_validating),
        cmocka_unit_test(reinvocation_order),
        cmocka_unit_test(dry_run_side_effects),
        cmocka_unit_test(recompiled_on_change),
        cmocka_unit_test(exemptions_and_order),
        cmocka_unit_test(service_reference),
        cmocka_unit_test(match_conditions),
        cmocka_unit_test(concurrent_requests_and_changes),
        cmocka_unit_test(metrics_recorded),
        cmocka_unit_test(circuit_breaker),
        cmocka_unit_test(request_deadline),
        cmocka_unit_test(retry_on_dropped_keepalive),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
