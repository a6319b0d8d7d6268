/* Webhook configurations through the write pipeline (src/registry, strategy validate hook → admission/webhook/
 * validation.c): upstream's defaults and field errors, on create and update. No admission chain. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "registry/codec.h"
#include "registry/pipeline.h"

typedef struct fixture {
    char dir[64];
    kg_store *store;
    kg_pipeline p;
    kg_arena a;
    kg_warnings w;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/kg-whcfg-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    kg_error err = {0};
    f->store = kg_store_open("sqlite", f->dir, NULL, &err);
    assert_non_null(f->store);
    f->p.store = f->store;
    kg_arena_init(&f->a, 0);
    kg_warnings_init(&f->w, &f->a);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    kg_store_close(f->store);
    kg_arena_free(&f->a);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    if (system(cmd) != 0)
        return -1;
    free(f);
    return 0;
}

static kg_json *tj(kg_arena *a, const char *text)
{
    kg_error e = {0};
    kg_json *j = kg_json_parse(a, text, strlen(text), &e);
    if (!j)
        fail_msg("bad test JSON: %s: %s", e.msg, text);
    return j;
}

static void req(fixture *f, kg_write_request *rq, const char *plural, const char *name)
{
    const kg_resource *r = kg_resource_find("admissionregistration.k8s.io", "v1", plural);
    assert_non_null(r);
    kg_write_request_init(rq, &f->a, r);
    rq->ns = "";
    rq->name = name;
    rq->user.name = "alice";
    rq->warnings = &f->w;
}

/* Create a ValidatingWebhookConfiguration named "cfg" with the given webhooks; the Status message or "" (created). */
static const char *create(fixture *f, const char *plural, const char *hooks, kg_json **out)
{
    kg_write_request rq;
    req(f, &rq, plural, "");
    const char *kind = plural[0] == 'm' ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
    char *body = kg_arena_sprintf(&f->a,
                                  "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"%s\",\"metadata\":"
                                  "{\"name\":\"cfg\"},\"webhooks\":[%s]}",
                                  kind, hooks);
    kg_write_result res;
    if (!kg_pipeline_create(&f->p, &rq, tj(&f->a, body), &res)) {
        assert_int_equal(res.code, 422);
        return res.status->message;
    }
    if (out) {
        kg_error err = {0};
        *out = res.object ? res.object : kg_obj_decode(&f->a, res.bytes, res.len, res.rev, &err);
    }
    return "";
}

#define GOOD_CC "\"clientConfig\":{\"url\":\"https://example.com/hook\"}"
#define GOOD_TAIL "\"sideEffects\":\"None\",\"admissionReviewVersions\":[\"v1\"]"
#define VWC "ValidatingWebhookConfiguration.admissionregistration.k8s.io \"cfg\" is invalid: "

static void issue_examples(void **state)
{
    fixture *f = *state;
    /* a webhook named noDots without sideEffects: the name is not even a DNS subdomain (upstream checks that first) */
    assert_string_equal(
        create(f, "validatingwebhookconfigurations",
               "{\"name\":\"noDots\"," GOOD_CC ",\"admissionReviewVersions\":[\"v1\"]}", NULL),
        VWC "[webhooks[0].name: Invalid value: \"noDots\": a lowercase RFC 1123 subdomain must consist of lower case "
            "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), "
            "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun]");
    assert_string_equal(
        create(f, "validatingwebhookconfigurations", "{\"name\":\"two.parts\"," GOOD_CC "," GOOD_TAIL "}", NULL),
        VWC "webhooks[0].name: Invalid value: \"two.parts\": should be a domain with at least three "
            "segments separated by dots");
    /* http, user, fragment, query */
    assert_string_equal(
        create(f, "validatingwebhookconfigurations",
               "{\"name\":\"a.b.c\",\"clientConfig\":{\"url\":\"http://u:p@example.com/x?q=1#frag\"}," GOOD_TAIL "}",
               NULL),
        VWC "[webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired "
            "format: https://host[/path], webhooks[0].clientConfig.url: Invalid value: \"u:p\": user information is "
            "not permitted in the URL, webhooks[0].clientConfig.url: Invalid value: \"frag\": fragments are not "
            "permitted in the URL, webhooks[0].clientConfig.url: Invalid value: \"q=1\": query parameters are not "
            "permitted in the URL]");
}

static void fields(void **state)
{
    fixture *f = *state;
    /* both url and service; bad sideEffects, timeout, versions, policies; duplicate names */
    assert_string_equal(
        create(f, "mutatingwebhookconfigurations",
               "{\"name\":\"a.b.c\",\"clientConfig\":{\"url\":\"https://x\",\"service\":{\"name\":\"s\","
               "\"namespace\":\"n\"}},\"sideEffects\":\"Some\",\"timeoutSeconds\":31,\"failurePolicy\":\"Maybe\","
               "\"matchPolicy\":\"Nope\",\"reinvocationPolicy\":\"Always\",\"admissionReviewVersions\":[\"v2\"]},"
               "{\"name\":\"a.b.c\"," GOOD_CC "," GOOD_TAIL "}",
               NULL),
        "MutatingWebhookConfiguration.admissionregistration.k8s.io \"cfg\" is invalid: "
        "[webhooks[0].failurePolicy: Unsupported value: \"Maybe\": supported values: \"Fail\", \"Ignore\", "
        "webhooks[0].matchPolicy: Unsupported value: \"Nope\": supported values: \"Equivalent\", \"Exact\", "
        "webhooks[0].sideEffects: Unsupported value: \"Some\": supported values: \"None\", \"NoneOnDryRun\", "
        "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds, "
        "webhooks[0].reinvocationPolicy: Unsupported value: \"Always\": supported values: \"IfNeeded\", \"Never\", "
        "webhooks[0].clientConfig: Required value: exactly one of url or service is required, "
        "webhooks[0].admissionReviewVersions: Invalid value: []string{\"v2\"}: must include at least one of v1, "
        "v1beta1, webhooks[1].name: Duplicate value: \"a.b.c\"]");
    /* service: port range, path segments; review versions required */
    assert_string_equal(
        create(f, "validatingwebhookconfigurations",
               "{\"name\":\"a.b.c\",\"clientConfig\":{\"service\":{\"name\":\"s\",\"namespace\":\"n\",\"port\":0,"
               "\"path\":\"/ok//Bad\"}},\"sideEffects\":\"None\"}",
               NULL),
        VWC
        "[webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, "
        "inclusive, webhooks[0].clientConfig.service.path: Invalid value: \"/ok//Bad\": segment[1] may not be "
        "empty, webhooks[0].clientConfig.service.path: Invalid value: \"/ok//Bad\": segment[2]: a lowercase RFC "
        "1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with "
        "an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), "
        "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1]");
    /* rules */
    assert_string_equal(
        create(f, "validatingwebhookconfigurations",
               "{\"name\":\"a.b.c\"," GOOD_CC "," GOOD_TAIL ",\"rules\":[{\"operations\":[\"*\",\"CREATE\",\"PATCH\"],"
               "\"apiGroups\":[],\"apiVersions\":[\"v1\",\"\"],\"resources\":[\"*\",\"pods\",\"*/*\"],"
               "\"scope\":\"Galaxy\"}]}",
               NULL),
        VWC "[webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{\"*\", \"CREATE\", "
            "\"PATCH\"}: if '*' is "
            "present, must not specify other operations, webhooks[0].rules[0].operations[2]: Unsupported value: "
            "\"PATCH\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"DELETE\", \"UPDATE\", "
            "webhooks[0].rules[0].apiGroups: Required value, webhooks[0].rules[0].apiVersions[1]: Required value, "
            "webhooks[0].rules[0].resources: Invalid value: []string{\"*\", \"pods\", \"*/*\"}: if '*/*' is present, "
            "must not specify other resources, webhooks[0].rules[0].resources: Invalid value: []string{\"*\", "
            "\"pods\", \"*/*\"}: if '*' is present, must not specify other resources without subresources, "
            "webhooks[0].rules[0].scope: Unsupported value: \"Galaxy\": supported values: \"*\", \"Cluster\", "
            "\"Namespaced\"]");
    /* matchConditions: compiled at write with the compiler's message */
    const char *msg = create(f, "validatingwebhookconfigurations",
                             "{\"name\":\"a.b.c\"," GOOD_CC "," GOOD_TAIL ",\"matchConditions\":[{\"name\":\"x\","
                             "\"expression\":\"object.metadata.name\"},{\"name\":\"x\",\"expression\":\"true\"}]}",
                             NULL);
    assert_non_null(strstr(msg, "webhooks[0].matchConditions[0].expression: Invalid value: \"object.metadata.name\""));
    assert_non_null(strstr(msg, "webhooks[0].matchConditions[1].name: Duplicate value: \"x\""));
}

static void defaults_and_valid(void **state)
{
    fixture *f = *state;
    kg_json *o = NULL;
    assert_string_equal(
        create(f, "mutatingwebhookconfigurations",
               "{\"name\":\"a.b.c\",\"clientConfig\":{\"service\":{\"name\":\"s\",\"namespace\":\"n\"}},"
               "\"rules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],"
               "\"resources\":[\"pods\",\"pods/status\"]}]," GOOD_TAIL "}",
               &o),
        "");
    const kg_json *h = kg_json_at(kg_json_get(o, "webhooks"), 0);
    assert_string_equal(kg_json_get_str(h, "failurePolicy"), "Fail");
    assert_string_equal(kg_json_get_str(h, "matchPolicy"), "Equivalent");
    assert_string_equal(kg_json_get_str(h, "reinvocationPolicy"), "Never");
    assert_int_equal(kg_json_get(h, "timeoutSeconds")->u.i, 10);
    assert_int_equal(kg_json_path(h, "clientConfig.service.port")->u.i, 443);
    assert_string_equal(kg_json_path_str(kg_json_at(kg_json_get(h, "rules"), 0), "scope"), "*");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(issue_examples, setup, teardown),
        cmocka_unit_test_setup_teardown(fields, setup, teardown),
        cmocka_unit_test_setup_teardown(defaults_and_valid, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
