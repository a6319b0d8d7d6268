/* kgate webhook end to end in one process: the door is started on a free port over a policy dir (a namespace
 * labelled enforce=restricted, a ValidatingAdmissionPolicy and its binding), and AdmissionReviews are POSTed over
 * HTTPS with libcurl, trusting the CA the door generated. */
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
#include <curl/curl.h>

#include "base/base64.h"
#include "base/buf.h"
#include "json/json.h"
#include "webhookdoor/door.h"

static char tmpdir[256];
static kg_door *door;
static char base_url[128];

#define PRIV_POD                                                                                                       \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"priv\",\"namespace\":\"psa\"},"                  \
    "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1.25\",\"securityContext\":{\"privileged\":true}}]}}"
#define OK_POD                                                                                                         \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"ok\",\"namespace\":\"psa\"},"                    \
    "\"spec\":{\"securityContext\":{\"runAsNonRoot\":true,\"seccompProfile\":{\"type\":\"RuntimeDefault\"}},"          \
    "\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1.25\",\"securityContext\":{\"allowPrivilegeEscalation\":"      \
    "false,\"capabilities\":{\"drop\":[\"ALL\"]}}}]}}"

static const char psa_message[] =
    "pods \"priv\" is forbidden: violates PodSecurity \"restricted:latest\": privileged (container \"c\" must not set "
    "securityContext.privileged=true), allowPrivilegeEscalation != false (container \"c\" must set "
    "securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container \"c\" must set "
    "securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot != true (pod or container \"c\" must set "
    "securityContext.runAsNonRoot=true), seccompProfile (pod or container \"c\" must set "
    "securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")";

static const char policies[] =
    "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: psa\n  labels: {pod-security.kubernetes.io/enforce: "
    "restricted}\n---\n"
    "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: guarded\n  labels: {policy: \"on\"}\n---\n"
    "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: small-configmaps}\n"
    "spec:\n  matchConstraints:\n    resourceRules: [{apiGroups: [\"\"], apiVersions: [\"v1\"], operations: "
    "[\"CREATE\", \"UPDATE\"], resources: [\"configmaps\"]}]\n  validations:\n"
    "  - expression: \"!has(object.data) || object.data.size() <= 1\"\n"
    "    messageExpression: \"'too many keys: ' + string(object.data.size())\"\n---\n"
    "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
    "metadata: {name: small-configmaps-deny}\nspec:\n  policyName: small-configmaps\n  validationActions: [Deny]\n"
    "  matchResources:\n    namespaceSelector: {matchLabels: {policy: \"on\"}}\n";

static int setup(void **state)
{
    (void)state;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kg-door-test-XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    char path[512];
    snprintf(path, sizeof path, "%s/policies", tmpdir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/policies/all.yaml", tmpdir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(policies, f);
    fclose(f);
    char pdir[512], cdir[512];
    snprintf(pdir, sizeof pdir, "%s/policies", tmpdir);
    snprintf(cdir, sizeof cdir, "%s/certs", tmpdir);
    kg_door_config cfg = {.policy_dir = pdir, .bind_address = "127.0.0.1", .port = 0, .cert_dir = cdir};
    KG_ERROR_DECL(err);
    door = kg_door_start(&cfg, &err);
    if (!door) {
        fprintf(stderr, "door: %s\n", err.msg);
        return -1;
    }
    snprintf(base_url, sizeof base_url, "https://127.0.0.1:%d", kg_door_port(door));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kg_door_stop(door);
    curl_global_cleanup();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static size_t on_body(char *p, size_t sz, size_t n, void *ud)
{
    kg_buf_append(ud, p, sz * n);
    return sz * n;
}

/* One request; returns the HTTP code, the body in *out (malloc'd). */
static long request(const char *method, const char *path, const char *ctype, const char *body, size_t len, char **out)
{
    CURL *c = curl_easy_init();
    const char *ca = kg_door_ca_pem(door);
    struct curl_blob blob = {.data = (void *)ca, .len = strlen(ca), .flags = CURL_BLOB_COPY};
    curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    struct curl_slist *h = curl_slist_append(NULL, "Expect:");
    char ct[128];
    snprintf(ct, sizeof ct, "Content-Type: %s", ctype ? ctype : "");
    h = curl_slist_append(h, ct);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    char url[512];
    snprintf(url, sizeof url, "%s%s", base_url, path);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    }
    kg_buf b = KG_BUF_INIT;
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    CURLcode rc = curl_easy_perform(c);
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    if (rc != CURLE_OK)
        code = -1;
    *out = strdup(kg_buf_cstr(&b));
    kg_buf_free(&b);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return code;
}

/* POST an AdmissionReview of version for obj (kind/resource given) and parse the answer. */
static kg_json *review(kg_arena *a, const char *path, const char *version, const char *uid, const char *kind,
                       const char *resource, const char *ns, const char *name, const char *obj, long *code)
{
    char *body = kg_arena_sprintf(
        a,
        "{\"apiVersion\":\"admission.k8s.io/%s\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"%s\","
        "\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"%s\"},"
        "\"resource\":{\"group\":\"\",\"version\":\"v1\",\"resource\":\"%s\"},"
        "\"name\":\"%s\",\"namespace\":\"%s\",\"operation\":\"CREATE\","
        "\"userInfo\":{\"username\":\"alice\",\"groups\":[\"system:authenticated\"]},"
        "\"object\":%s,\"oldObject\":null,\"dryRun\":false,"
        "\"options\":{\"kind\":\"CreateOptions\",\"apiVersion\":\"meta.k8s.io/v1\"}}}",
        version, uid, kind, resource, name, ns, obj);
    char *out;
    *code = request("POST", path, "application/json", body, strlen(body), &out);
    KG_ERROR_DECL(err);
    kg_json *j = kg_json_parse(a, out, strlen(out), &err);
    if (!j)
        fail_msg("not JSON (%ld): %s", *code, out);
    free(out);
    return j;
}

static void privileged_pod_denied_with_serves_message(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    long code;
    kg_json *rv = review(&a, "/validate", "v1", "u-1", "Pod", "pods", "psa", "priv", PRIV_POD, &code);
    assert_int_equal(code, 200);
    assert_string_equal(kg_json_get_str(rv, "apiVersion"), "admission.k8s.io/v1");
    assert_string_equal(kg_json_get_str(rv, "kind"), "AdmissionReview");
    kg_json *resp = kg_json_get(rv, "response");
    assert_string_equal(kg_json_get_str(resp, "uid"), "u-1");
    assert_false(kg_json_get(resp, "allowed")->b);
    assert_string_equal(kg_json_path_str(resp, "status.message"), psa_message);
    assert_string_equal(kg_json_path_str(resp, "status.reason"), "Forbidden");
    assert_int_equal(kg_json_path(resp, "status.code")->u.i, 403);
    kg_arena_free(&a);
}

static void compliant_pod_allowed(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    long code;
    kg_json *rv = review(&a, "/validate", "v1", "u-2", "Pod", "pods", "psa", "ok", OK_POD, &code);
    assert_int_equal(code, 200);
    kg_json *resp = kg_json_get(rv, "response");
    assert_string_equal(kg_json_get_str(resp, "uid"), "u-2");
    assert_true(kg_json_get(resp, "allowed")->b);
    assert_null(kg_json_get(resp, "status"));
    assert_null(kg_json_get(resp, "patch"));
    kg_arena_free(&a);
}

static void policy_from_the_policy_dir_denies(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    long code;
    const char *cm = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c1\",\"namespace\":"
                     "\"guarded\"},\"data\":{\"a\":\"1\",\"b\":\"2\"}}";
    kg_json *rv = review(&a, "/validate", "v1", "u-3", "ConfigMap", "configmaps", "guarded", "c1", cm, &code);
    assert_int_equal(code, 200);
    kg_json *resp = kg_json_get(rv, "response");
    assert_false(kg_json_get(resp, "allowed")->b);
    assert_string_equal(kg_json_path_str(resp, "status.message"),
                        "configmaps \"c1\" is forbidden: ValidatingAdmissionPolicy 'small-configmaps' with binding "
                        "'small-configmaps-deny' denied request: too many keys: 2");
    /* the binding's namespaceSelector: another namespace is not matched (absent namespaces match nothing) */
    const char *cm2 = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c1\",\"namespace\":"
                      "\"psa\"},\"data\":{\"a\":\"1\",\"b\":\"2\"}}";
    rv = review(&a, "/validate", "v1", "u-4", "ConfigMap", "configmaps", "psa", "c1", cm2, &code);
    assert_true(kg_json_path(rv, "response.allowed")->b);
    kg_arena_free(&a);
}

static void v1beta1_answered_in_v1beta1(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    long code;
    kg_json *rv = review(&a, "/validate", "v1beta1", "u-beta", "Pod", "pods", "psa", "priv", PRIV_POD, &code);
    assert_int_equal(code, 200);
    assert_string_equal(kg_json_get_str(rv, "apiVersion"), "admission.k8s.io/v1beta1");
    assert_string_equal(kg_json_path_str(rv, "response.uid"), "u-beta");
    assert_false(kg_json_path(rv, "response.allowed")->b);
    kg_arena_free(&a);
}

/* /mutate runs the mutating phase: with the door's defaults nothing mutates, so an allowed answer without patch;
 * the validating plugins do not run there, so the privileged pod passes /mutate. */
static void mutate_runs_the_mutating_phase(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    long code;
    kg_json *rv = review(&a, "/mutate", "v1", "u-m", "Pod", "pods", "psa", "priv", PRIV_POD, &code);
    assert_int_equal(code, 200);
    assert_string_equal(kg_json_path_str(rv, "response.uid"), "u-m");
    assert_true(kg_json_path(rv, "response.allowed")->b);
    assert_null(kg_json_path(rv, "response.patch"));
    kg_arena_free(&a);
}

/* With a mutating plugin enabled (any plugin can be): DefaultTolerationSeconds adds the two NoExecute tolerations,
 * answered as a base64 JSONPatch that turns the pod sent into the pod as mutated. */
static void mutate_answers_a_json_patch(void **state)
{
    (void)state;
    char cdir[512];
    snprintf(cdir, sizeof cdir, "%s/certs", tmpdir);
    kg_door_config cfg = {
        .admission = {.enable_plugins = "DefaultTolerationSeconds"}, .bind_address = "127.0.0.1", .cert_dir = cdir};
    KG_ERROR_DECL(err);
    kg_door *d2 = kg_door_start(&cfg, &err);
    assert_non_null(d2);
    kg_door *saved = door;
    char saved_url[128];
    memcpy(saved_url, base_url, sizeof saved_url);
    door = d2;
    snprintf(base_url, sizeof base_url, "https://127.0.0.1:%d", kg_door_port(d2));
    kg_arena a;
    kg_arena_init(&a, 0);
    long code;
    kg_json *rv = review(&a, "/mutate", "v1", "u-p", "Pod", "pods", "psa", "ok", OK_POD, &code);
    assert_int_equal(code, 200);
    assert_true(kg_json_path(rv, "response.allowed")->b);
    assert_string_equal(kg_json_path_str(rv, "response.patchType"), "JSONPatch");
    const char *b64 = kg_json_path_str(rv, "response.patch");
    assert_non_null(b64);
    size_t n;
    char *patch = kg_base64_decode(&a, b64, strlen(b64), 0, &n, NULL);
    assert_non_null(patch);
    assert_non_null(strstr(patch, "node.kubernetes.io/not-ready"));
    assert_non_null(strstr(patch, "/spec/tolerations"));
    kg_arena_free(&a);
    door = saved;
    memcpy(base_url, saved_url, sizeof saved_url);
    kg_door_stop(d2);
}

static void protocol_errors(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(request("GET", "/validate", NULL, NULL, 0, &out), 405);
    free(out);
    assert_int_equal(request("POST", "/validate", "text/plain", "{}", 2, &out), 415);
    free(out);
    assert_int_equal(request("POST", "/validate", "application/json", "{not json", 9, &out), 400);
    assert_non_null(strstr(out, "undecodable AdmissionReview"));
    free(out);
    const char *nokind = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}";
    assert_int_equal(request("POST", "/mutate", "application/json", nokind, strlen(nokind), &out), 400);
    free(out);
    size_t big = 3u * 1024u * 1024u + 1;
    char *huge = malloc(big);
    memset(huge, ' ', big);
    assert_int_equal(request("POST", "/validate", "application/json", huge, big, &out), 413);
    free(out);
    free(huge);
    assert_int_equal(request("GET", "/nowhere", NULL, NULL, 0, &out), 404);
    free(out);
}

static void health_and_metrics(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(request("GET", "/healthz", NULL, NULL, 0, &out), 200);
    assert_string_equal(out, "ok");
    free(out);
    assert_int_equal(request("GET", "/readyz", NULL, NULL, 0, &out), 200);
    free(out);
    assert_int_equal(request("GET", "/metrics", NULL, NULL, 0, &out), 200);
    /* the reviews above ran the chain: serve's admission metric names */
    assert_non_null(strstr(out, "apiserver_admission_controller_admission_duration_seconds"));
    free(out);
}

static void default_plugins_of_the_door(void **state)
{
    (void)state;
    char buf[4096];
    kg_admission_options in = {0}, out;
    kg_door_admission_options(&in, &out, buf, sizeof buf);
    assert_non_null(out.disable_plugins);
    assert_null(strstr(out.disable_plugins, "PodSecurity"));
    assert_null(strstr(out.disable_plugins, "ValidatingAdmissionPolicy"));
    assert_null(strstr(out.disable_plugins, "MutatingAdmissionPolicy"));
    assert_non_null(strstr(out.disable_plugins, "NamespaceLifecycle"));
    in.enable_plugins = "LimitRanger";
    kg_door_admission_options(&in, &out, buf, sizeof buf);
    assert_null(strstr(out.disable_plugins, "LimitRanger"));
    in = (kg_admission_options){.admission_control = "PodSecurity"};
    kg_door_admission_options(&in, &out, buf, sizeof buf);
    assert_null(out.disable_plugins);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(privileged_pod_denied_with_serves_message),
        cmocka_unit_test(compliant_pod_allowed),
        cmocka_unit_test(policy_from_the_policy_dir_denies),
        cmocka_unit_test(v1beta1_answered_in_v1beta1),
        cmocka_unit_test(mutate_runs_the_mutating_phase),
        cmocka_unit_test(mutate_answers_a_json_patch),
        cmocka_unit_test(protocol_errors),
        cmocka_unit_test(health_and_metrics),
        cmocka_unit_test(default_plugins_of_the_door),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
