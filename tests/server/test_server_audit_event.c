/* Audit event encoding (audit_event.h), the request-side glue (audit.h) and the log's lumberjack rotation
 * (audit_log.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/str.h"
#include "json/json.h"
#include "server/audit.h"
#include "server/audit_event.h"
#include "server/audit_log.h"

static void test_encode(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    static const char *const groups[] = {"system:masters", "system:authenticated"};
    kg_user_info admin = {.name = "admin", .uid = "u1", .groups = groups, .ngroups = 2};
    kg_user_info bob = {.name = "bob"};
    kg_audit_object_ref ref = {"pods", "default", "p", "", "v1", "status"};
    kg_error err = {0};
    const char *annt = "{\"pod-security.kubernetes.io/enforce-policy\":\"restricted:latest\"}";
    kg_json *ann = kg_json_parse(&a, annt, strlen(annt), &err);
    kg_json *obj = kg_json_parse(&a, "{\"kind\":\"Pod\"}", 14, &err);
    kg_audit_event e = {.level = KG_AUDIT_REQUEST,
                        .audit_id = "id-1",
                        .stage = KG_AUDIT_STAGE_RESPONSE_COMPLETE,
                        .request_uri = "/api/v1/namespaces/default/pods/p/status?a=1&b=2",
                        .verb = "update",
                        .user = &admin,
                        .impersonated_user = &bob,
                        .source_ip = "127.0.0.1",
                        .user_agent = "kubectl/v1.33.1",
                        .object_ref = &ref,
                        .code = 403,
                        .status = "Failure",
                        .reason = "Forbidden",
                        .message = "no \"way\"",
                        .request_object = obj,
                        .received_us = 1800000000123456,
                        .stage_us = 1800000001000001,
                        .annotations = ann};
    kg_buf b = KG_BUF_INIT;
    kg_audit_event_encode(&b, &e);
    const char *want =
        "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Request\",\"auditID\":\"id-1\","
        "\"stage\":\"ResponseComplete\",\"requestURI\":\"/api/v1/namespaces/default/pods/p/status?a=1\\u0026b=2\","
        "\"verb\":\"update\",\"user\":{\"username\":\"admin\",\"uid\":\"u1\",\"groups\":[\"system:masters\","
        "\"system:authenticated\"]},\"impersonatedUser\":{\"username\":\"bob\"},\"sourceIPs\":[\"127.0.0.1\"],"
        "\"userAgent\":\"kubectl/v1.33.1\",\"objectRef\":{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":"
        "\"p\",\"apiVersion\":\"v1\",\"subresource\":\"status\"},\"responseStatus\":{\"metadata\":{},\"status\":"
        "\"Failure\",\"message\":\"no \\\"way\\\"\",\"reason\":\"Forbidden\",\"code\":403},\"requestObject\":{"
        "\"kind\":\"Pod\"},\"requestReceivedTimestamp\":\"2027-01-15T08:00:00.123456Z\",\"stageTimestamp\":"
        "\"2027-01-15T08:00:01.000001Z\",\"annotations\":{\"pod-security.kubernetes.io/enforce-policy\":"
        "\"restricted:latest\"}}\n";
    assert_string_equal(kg_buf_cstr(&b), want);
    /* a success without objectRef, annotations or user agent */
    kg_buf_reset(&b);
    kg_audit_event m = {.level = KG_AUDIT_METADATA,
                        .audit_id = "id-2",
                        .stage = KG_AUDIT_STAGE_REQUEST_RECEIVED,
                        .request_uri = "/version",
                        .verb = "get",
                        .user = &bob,
                        .received_us = 1800000000000000,
                        .stage_us = 1800000000000000};
    kg_audit_event_encode(&b, &m);
    assert_string_equal(kg_buf_cstr(&b),
                        "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Metadata\",\"auditID\":"
                        "\"id-2\",\"stage\":\"RequestReceived\",\"requestURI\":\"/version\",\"verb\":\"get\",\"user\":{"
                        "\"username\":\"bob\"},\"requestReceivedTimestamp\":\"2027-01-15T08:00:00.000000Z\","
                        "\"stageTimestamp\":\"2027-01-15T08:00:00.000000Z\"}\n");
    kg_buf_free(&b);
    kg_arena_free(&a);
}

static char dir[] = "/tmp/kg-audit-XXXXXX";

static size_t count_lines(const char *path)
{
    size_t n = 0, len = 0;
    char *d = kg_read_file(path, &len);
    for (size_t i = 0; d && i < len; i++)
        n += d[i] == '\n';
    free(d);
    return n;
}

static size_t backups(char names[][256], size_t max)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t n = 0;
    while ((de = readdir(d)))
        if (!strncmp(de->d_name, "audit-", 6) && n < max)
            snprintf(names[n++], 256, "%s", de->d_name);
    closedir(d);
    return n;
}

/* The glue end to end: policy, stages, request/response objects, managedFields, annotations, into a file. */
static void test_glue_and_rotation(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    char policy[128], log[128];
    snprintf(policy, sizeof policy, "%s/policy.yaml", dir);
    snprintf(log, sizeof log, "%s/audit.log", dir);
    FILE *f = fopen(policy, "w");
    fputs("apiVersion: audit.k8s.io/v1\nkind: Policy\nomitManagedFields: true\nrules:\n"
          "- level: None\n  users: [quiet]\n"
          "- level: RequestResponse\n",
          f);
    fclose(f);
    kg_audit_log_config lc = {.path = log, .max_backups = 2, .max_bytes = 4096};
    kg_error err = {0};
    kg_audit *au = kg_audit_new(policy, &lc, &err);
    if (!au)
        fail_msg("%s", err.msg);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_request_info ri = {.is_resource_request = true,
                          .path = "/api/v1/namespaces/default/configmaps",
                          .verb = "create",
                          .api_version = "v1",
                          .api_group = "",
                          .namespace_ = "default",
                          .resource = "configmaps",
                          .subresource = "",
                          .name = ""};
    kg_user_info quiet = {.name = "quiet"}, alice = {.name = "alice"};
    kg_audit_begin_args args = {.audit_id = "abc",
                                .request_uri = "/api/v1/namespaces/default/configmaps",
                                .info = &ri,
                                .user = &quiet,
                                .source_ip = "10.0.0.1"};
    assert_null(kg_audit_begin(au, &a, &args)); /* level None */
    args.user = &alice;
    kg_audit_ctx *c = kg_audit_begin(au, &a, &args);
    assert_non_null(c);
    assert_string_equal(kg_audit_id(c), "abc");
    kg_audit_annotate(c, "authorization.k8s.io/decision", "allow");
    kg_json_set(&a, kg_audit_annotations(c), "mutation.webhook.admission.k8s.io/round_0_index_0",
                kg_json_new_str(&a, "{}"));
    const char *req = "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\",\"managedFields\":[{\"manager\":\"x\"}]}}";
    const char *resp = "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\",\"uid\":\"1\"}}";
    kg_audit_request_body(c, "application/json", req, strlen(req));
    kg_audit_response(c, 201, "application/json", resp, strlen(resp), false);
    kg_audit_complete(c, false);
    size_t len = 0;
    char *text = kg_read_file(log, &len);
    assert_non_null(text);
    /* two lines: RequestReceived (no objects yet), ResponseComplete */
    char *nl = strchr(text, '\n');
    assert_non_null(nl);
    kg_json *e1 = kg_json_parse(&a, text, (size_t)(nl - text), &err);
    kg_json *e2 = kg_json_parse(&a, nl + 1, len - (size_t)(nl + 1 - text) - 1, &err);
    assert_non_null(e1);
    assert_non_null(e2);
    assert_string_equal(kg_json_get_str(e1, "stage"), "RequestReceived");
    assert_null(kg_json_get(e1, "requestObject"));
    assert_string_equal(kg_json_get_str(e2, "stage"), "ResponseComplete");
    assert_string_equal(kg_json_get_str(e2, "level"), "RequestResponse");
    assert_string_equal(kg_json_get_str(e2, "auditID"), "abc");
    assert_int_equal(kg_json_path(e2, "responseStatus.code")->u.i, 201);
    assert_string_equal(kg_json_path_str(e2, "requestObject.metadata.name"), "c");
    assert_null(kg_json_path(e2, "requestObject.metadata.managedFields"));
    assert_string_equal(kg_json_path_str(e2, "responseObject.metadata.uid"), "1");
    assert_string_equal(kg_json_path_str(e2, "objectRef.resource"), "configmaps");
    assert_string_equal(kg_json_get_str(kg_json_get(e2, "annotations"), "authorization.k8s.io/decision"), "allow");
    assert_non_null(kg_json_get(kg_json_get(e2, "annotations"), "mutation.webhook.admission.k8s.io/round_0_index_0"));
    free(text);
    /* rotation: 4 KiB files, at most 2 backups, no line lost from the current file */
    for (int i = 0; i < 60; i++) {
        args.audit_id = NULL;
        kg_audit_ctx *ci = kg_audit_begin(au, &a, &args);
        assert_non_null(ci);
        assert_int_equal(strlen(kg_audit_id(ci)), 36); /* a fresh UUID */
        kg_audit_response(ci, 200, "application/json", resp, strlen(resp), false);
        kg_audit_complete(ci, false);
        kg_arena_reset(&a);
        if (i % 20 == 19)
            usleep(2000); /* distinct backup timestamps (milliseconds) */
    }
    char names[8][256];
    size_t nb = backups(names, 8);
    assert_int_equal(nb, 2);
    for (size_t i = 0; i < nb; i++) {
        /* audit-2006-01-02T15-04-05.000.log */
        assert_int_equal(strlen(names[i]), strlen("audit-2006-01-02T15-04-05.000.log"));
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        assert_true(count_lines(p) > 0);
        FILE *bf = fopen(p, "r");
        fseek(bf, 0, SEEK_END);
        assert_true(ftell(bf) <= 4096);
        fclose(bf);
    }
    assert_true(count_lines(log) > 0);
    kg_audit_free(au);
    kg_arena_free(&a);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* A watch (ResponseStarted then ResponseComplete) and a failed authentication (one ResponseStarted, 401, no user). */
static void test_stream_and_failed_authentication(void **state)
{
    (void)state;
    char d[] = "/tmp/kg-audit2-XXXXXX";
    assert_non_null(mkdtemp(d));
    char policy[128], log[128];
    snprintf(policy, sizeof policy, "%s/policy.json", d);
    snprintf(log, sizeof log, "%s/audit.log", d);
    FILE *f = fopen(policy, "w");
    fputs("{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\",\"rules\":[{\"level\":\"None\",\"userGroups\":"
          "[\"quiet\"]},{\"level\":\"Metadata\",\"omitStages\":[\"RequestReceived\"]}]}",
          f);
    fclose(f);
    kg_audit_log_config lc = {.path = log};
    kg_error err = {0};
    kg_audit *au = kg_audit_new(policy, &lc, &err);
    assert_non_null(au);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_request_info ri = {.is_resource_request = true,
                          .path = "/api/v1/pods",
                          .verb = "watch",
                          .api_version = "v1",
                          .api_group = "",
                          .namespace_ = "",
                          .resource = "pods",
                          .subresource = "",
                          .name = ""};
    kg_user_info bob = {.name = "bob"};
    kg_audit_begin_args args = {.request_uri = "/api/v1/pods?watch=1", .info = &ri, .user = &bob};
    kg_audit_ctx *c = kg_audit_begin(au, &a, &args);
    static const char *const quiet_groups[] = {"quiet"};
    kg_user_info imp = {.name = "carol", .groups = quiet_groups, .ngroups = 1};
    kg_audit_set_impersonated_user(c, &imp); /* the policy already matched on bob */
    kg_audit_response(c, 200, "application/json", NULL, 0, true);
    kg_audit_complete(c, false);
    args.audit_id = "failed-1";
    assert_string_equal(kg_audit_failed_authentication(au, &a, &args, "Bearer nope", true), "failed-1");
    assert_non_null(kg_audit_failed_authentication(au, &a, &args, NULL, false));
    size_t len = 0;
    char *text = kg_read_file(log, &len);
    const char *stages[4] = {0};
    const char *msgs[4] = {0};
    size_t n = 0;
    for (char *line = text, *nl; line && (nl = strchr(line, '\n')) && n < 4; line = nl + 1) {
        kg_json *e = kg_json_parse(&a, line, (size_t)(nl - line), &err);
        assert_non_null(e);
        stages[n] = kg_json_get_str(e, "stage");
        msgs[n] = kg_json_path_str(e, "responseStatus.message");
        if (n < 2) {
            assert_string_equal(kg_json_path_str(e, "user.username"), "bob");
            assert_string_equal(kg_json_path_str(e, "impersonatedUser.username"), "carol");
        }
        if (n >= 2) {
            assert_int_equal(kg_json_path(e, "responseStatus.code")->u.i, 401);
            assert_int_equal(kg_json_get(e, "user")->len, 0); /* "user":{} */
        }
        n++;
    }
    assert_int_equal(n, 4);
    assert_string_equal(stages[0], "ResponseStarted");
    assert_string_equal(stages[1], "ResponseComplete");
    assert_string_equal(stages[2], "ResponseStarted");
    assert_string_equal(msgs[2], "Authentication failed, attempted: bearer, x509");
    assert_string_equal(msgs[3], "Authentication failed, no credentials provided");
    free(text);
    kg_audit_free(au);
    kg_arena_free(&a);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
}

static void test_log_errors(void **state)
{
    (void)state;
    kg_error err = {0};
    kg_audit_log_config lc = {.path = "/nonexistent/dir/audit.log"};
    assert_null(kg_audit_log_open(&lc, &err));
    assert_non_null(strstr(err.msg, "/nonexistent/dir/audit.log"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode),
        cmocka_unit_test(test_glue_and_rotation),
        cmocka_unit_test(test_stream_and_failed_authentication),
        cmocka_unit_test(test_log_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
