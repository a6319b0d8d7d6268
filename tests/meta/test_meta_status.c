/* Status and field error tests: message texts and JSON shapes as k8s.io/apimachinery produces them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "meta/status.h"

static kg_arena A;

static int setup(void **s)
{
    (void)s;
    kg_arena_init(&A, 0);
    return 0;
}

static int teardown(void **s)
{
    (void)s;
    kg_arena_free(&A);
    return 0;
}

static const char *to_json(const kg_status *st)
{
    return kg_json_to_string(&A, kg_status_to_json(&A, st), 0, NULL);
}

static void test_not_found_and_exists(void **s)
{
    (void)s;
    kg_status *st = kg_status_not_found(&A, KG_GR("", "pods"), "x");
    assert_string_equal(st->message, "pods \"x\" not found");
    assert_int_equal(st->code, 404);
    assert_string_equal(to_json(st),
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                        "\"message\":\"pods \\\"x\\\" not found\",\"reason\":\"NotFound\","
                        "\"details\":{\"name\":\"x\",\"kind\":\"pods\"},\"code\":404}");
    st = kg_status_not_found(&A, KG_GR("apps", "deployments"), "web");
    assert_string_equal(st->message, "deployments.apps \"web\" not found");
    assert_string_equal(to_json(st),
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                        "\"message\":\"deployments.apps \\\"web\\\" not found\",\"reason\":\"NotFound\","
                        "\"details\":{\"name\":\"web\",\"group\":\"apps\",\"kind\":\"deployments\"},"
                        "\"code\":404}");
    st = kg_status_already_exists(&A, KG_GR("", "configmaps"), "cm");
    assert_string_equal(st->message, "configmaps \"cm\" already exists");
    assert_string_equal(st->reason, "AlreadyExists");
    assert_int_equal(st->code, 409);
    st = kg_status_generate_name_conflict(&A, KG_GR("", "pods"), "web-abcde", 1);
    assert_string_equal(st->message, "pods \"web-abcde\" already exists, the server was not able to generate a unique "
                                     "name for the object");
    assert_int_equal(st->details.retry_after_seconds, 1);
}

static void test_conflict(void **s)
{
    (void)s;
    kg_status *st = kg_status_conflict(&A, KG_GR("", "pods"), "x", NULL);
    assert_string_equal(st->message,
                        "Operation cannot be fulfilled on pods \"x\": the object has been modified; please "
                        "apply your changes to the latest version and try again");
    assert_string_equal(st->reason, "Conflict");
    assert_int_equal(st->code, 409);
    st = kg_status_conflict(&A, KG_GR("apps", "deployments"), "d", "custom");
    assert_string_equal(st->message, "Operation cannot be fulfilled on deployments.apps \"d\": custom");
}

static void test_field_error_bodies(void **s)
{
    (void)s;
    kg_field_errors l = KG_FIELD_ERRORS_INIT;
    kg_field_required(&A, &l, "spec.containers[0].name", NULL);
    kg_field_invalid(&A, &l, "metadata.name", "X",
                     "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters");
    kg_field_required(&A, &l, "spec.x", "must be set");
    kg_field_too_long(&A, &l, "metadata.annotations", 262144);
    kg_field_too_long(&A, &l, "f", 1);
    kg_field_too_long(&A, &l, "f", -1);
    kg_field_too_many(&A, &l, "spec.items", 5, 3);
    kg_field_too_many(&A, &l, "spec.items", -1, 1);
    kg_field_too_many(&A, &l, "spec.items", 2, -1);
    kg_field_duplicate(&A, &l, "spec.ports[1].name", "http");
    kg_field_forbidden(&A, &l, "spec.nodeName", "may not be set");
    kg_field_invalid_int(&A, &l, "spec.replicas", -1, "must be greater than or equal to 0");
    kg_field_invalid_bool(&A, &l, "spec.b", true, "nope");
    kg_field_invalid(&A, &l, "spec.n", NULL, "x");
    kg_field_not_found(&A, &l, "spec.ref", "abc");
    kg_field_internal(&A, &l, "spec", "boom");
    const char *const sv[] = {"Always", "IfNotPresent", "Never"};
    kg_field_not_supported(&A, &l, "spec.imagePullPolicy", "Sometimes", sv, 3);
    kg_field_not_supported(&A, &l, "spec.policy", "x", NULL, 0);
    kg_field_invalid(&A, &l, "metadata.labels", "a\"b\n\x01\xff\xc3\xa9", "");
    kg_field_type_invalid(&A, &l, "spec.t", "s", "must be an integer");

    const char *want[] = {
        "spec.containers[0].name: Required value",
        "metadata.name: Invalid value: \"X\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
        "characters",
        "spec.x: Required value: must be set",
        "metadata.annotations: Too long: may not be more than 262144 bytes",
        "f: Too long: may not be more than 1 byte",
        "f: Too long: value is too long",
        "spec.items: Too many: 5: must have at most 3 items",
        "spec.items: Too many: must have at most 1 item",
        "spec.items: Too many: 2: has too many items",
        "spec.ports[1].name: Duplicate value: \"http\"",
        "spec.nodeName: Forbidden: may not be set",
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
        "spec.b: Invalid value: true: nope",
        "spec.n: Invalid value: \"null\": x",
        "spec.ref: Not found: \"abc\"",
        "spec: Internal error: boom",
        "spec.imagePullPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"IfNotPresent\", "
        "\"Never\"",
        "spec.policy: Unsupported value: \"x\"",
        "metadata.labels: Invalid value: \"a\\\"b\\n\\x01\\xffé\"",
        "spec.t: Invalid value: \"s\": must be an integer",
    };
    assert_int_equal(l.len, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < l.len; i++)
        assert_string_equal(kg_field_error_string(&A, &l.items[i]), want[i]);
    assert_string_equal(kg_field_error_cause_type(l.items[0].type), "FieldValueRequired");
    assert_string_equal(kg_field_error_cause_type(l.items[6].type), "FieldValueTooMany");
    assert_string_equal(kg_field_error_cause_type(l.items[15].type), "InternalError");
    assert_string_equal(kg_field_error_cause_type(l.items[19].type), "FieldValueTypeInvalid");
}

static void test_invalid_aggregation(void **s)
{
    (void)s;
    kg_field_errors l = KG_FIELD_ERRORS_INIT;
    kg_status *st = kg_status_invalid(&A, KG_GK("", "Pod"), "x", &l);
    assert_string_equal(st->message, "Pod \"x\" is invalid");
    kg_field_invalid(&A, &l, "metadata.name", "X", "bad");
    st = kg_status_invalid(&A, KG_GK("", "Pod"), "X", &l);
    assert_string_equal(st->message, "Pod \"X\" is invalid: metadata.name: Invalid value: \"X\": bad");
    kg_field_required(&A, &l, "spec.containers", NULL);
    kg_field_invalid(&A, &l, "metadata.name", "X", "bad"); /* duplicate message dropped from the text */
    st = kg_status_invalid(&A, KG_GK("apps", "Deployment"), "X", &l);
    assert_string_equal(st->message, "Deployment.apps \"X\" is invalid: [metadata.name: Invalid value: \"X\": bad, "
                                     "spec.containers: Required value]");
    assert_int_equal(st->code, 422);
    assert_int_equal(st->details.ncauses, 3); /* causes keep every entry */
    assert_string_equal(
        to_json(st),
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Deployment."
        "apps "
        "\\\"X\\\" is invalid: [metadata.name: Invalid value: \\\"X\\\": bad, spec.containers: Required value]\","
        "\"reason\":\"Invalid\",\"details\":{\"name\":\"X\",\"group\":\"apps\",\"kind\":\"Deployment\",\"causes\":["
        "{\"reason\":\"FieldValueInvalid\",\"message\":\"Invalid value: \\\"X\\\": bad\",\"field\":\"metadata.name\"},"
        "{\"reason\":\"FieldValueRequired\",\"message\":\"Required value\",\"field\":\"spec.containers\"},"
        "{\"reason\":\"FieldValueInvalid\",\"message\":\"Invalid value: \\\"X\\\": bad\",\"field\":\"metadata.name\"}"
        "]},\"code\":422}");
}

static void test_forbidden_variants(void **s)
{
    (void)s;
    kg_status *st = kg_status_forbidden(&A, KG_GR("", "pods"), "x", "not allowed");
    assert_string_equal(st->message, "pods \"x\" is forbidden: not allowed");
    assert_int_equal(st->code, 403);
    st = kg_status_forbidden(&A, KG_GR("apps", "deployments"), "", "nope");
    assert_string_equal(st->message, "deployments.apps is forbidden: nope");
    st = kg_status_forbidden(&A, KG_GR("", ""), "", "nope");
    assert_string_equal(st->message, "forbidden: nope");
    st = kg_status_forbidden(&A, KG_GR("", "namespaces"), "default", "this namespace may not be deleted");
    assert_string_equal(to_json(st),
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
                        "\"namespaces \\\"default\\\" is forbidden: this namespace may not be deleted\",\"reason\":"
                        "\"Forbidden\",\"details\":{\"name\":\"default\",\"kind\":\"namespaces\"},\"code\":403}");
}

static void test_admission_helpers(void **s)
{
    (void)s;
    kg_error err;
    const char *pod = "{\"metadata\":{\"generateName\":\"web-\"}}";
    kg_json *obj = kg_json_parse(&A, pod, strlen(pod), &err);
    kg_status *st = kg_status_admission_forbidden(&A, KG_GR("", "pods"), "", obj, "no");
    assert_string_equal(st->message, "pods \"web-\" is forbidden: no");
    st = kg_status_admission_forbidden(&A, KG_GR("", "pods"), "named", obj, "no");
    assert_string_equal(st->message, "pods \"named\" is forbidden: no");
    st = kg_status_admission_forbidden(&A, KG_GR("", "pods"), NULL, NULL, "no");
    assert_string_equal(st->message, "pods \"Unknown\" is forbidden: no");
    obj = kg_json_parse(&A, "{}", 2, &err);
    st = kg_status_admission_forbidden(&A, KG_GR("apps", "deployments"), NULL, obj, "no");
    assert_string_equal(st->message, "deployments.apps \"Unknown/errorGettingName\" is forbidden: no");
    st = kg_status_too_many_requests_error(&A, "limit reached on type Namespace for key ns1");
    assert_string_equal(to_json(st), "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                                     "\"Failure\",\"message\":\"Too many requests: limit reached on type Namespace "
                                     "for key ns1\",\"reason\":\"TooManyRequests\",\"code\":429}");
    const char *msgs[] = {"a", "b", "a", "c"};
    assert_string_equal(kg_errors_aggregate(&A, msgs, 4), "[a, b, c]");
    assert_string_equal(kg_errors_aggregate(&A, msgs, 1), "a");
    const char *order[] = {"z", "a", "z", "m", "a"};
    assert_string_equal(kg_errors_aggregate(&A, order, 5), "[z, a, m]");
    const char *dup[] = {"x", "x"};
    assert_string_equal(kg_errors_aggregate(&A, dup, 2), "x");
    assert_null(kg_errors_aggregate(&A, msgs, 0));
}

static void test_other_constructors(void **s)
{
    (void)s;
    kg_status *st = kg_status_internal(&A, "boom");
    assert_string_equal(st->message, "Internal error occurred: boom");
    assert_string_equal(to_json(st),
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                        "\"message\":\"Internal error occurred: boom\",\"reason\":\"InternalError\","
                        "\"details\":{\"causes\":[{\"message\":\"boom\"}]},\"code\":500}");
    st = kg_status_timeout(&A, "request did not complete within requested timeout", 0);
    assert_string_equal(st->message, "Timeout: request did not complete within requested timeout");
    assert_int_equal(st->code, 504);
    assert_string_equal(to_json(st),
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                        "\"message\":\"Timeout: request did not complete within requested timeout\","
                        "\"reason\":\"Timeout\",\"details\":{},\"code\":504}");
    st = kg_status_too_old_resource_version(&A, 5, 10);
    assert_string_equal(st->message, "too old resource version: 5 (10)");
    assert_int_equal(st->code, 410);
    assert_int_equal(kg_status_gone(&A, "g")->code, 410);
    assert_string_equal(kg_status_gone(&A, "g")->reason, "Gone");
    st = kg_status_request_entity_too_large(&A, "limit is 3145728");
    assert_string_equal(st->message, "Request entity too large: limit is 3145728");
    assert_int_equal(st->code, 413);
    st = kg_status_method_not_supported(&A, KG_GR("", "pods"), "create");
    assert_string_equal(st->message, "create is not supported on resources of kind \"pods\"");
    assert_int_equal(st->code, 405);
    const char *const mt[] = {"application/json", "application/yaml"};
    st = kg_status_unsupported_media_type(&A, mt, 2);
    assert_string_equal(st->message, "the body of the request was in an unknown format - accepted media types include: "
                                     "application/json, application/yaml");
    assert_int_equal(st->code, 415);
    st = kg_status_not_acceptable(&A, mt, 1);
    assert_string_equal(st->message, "only the following media types are accepted: application/json");
    assert_int_equal(st->code, 406);
    st = kg_status_too_many_requests(&A, "slow down", 2);
    assert_int_equal(st->code, 429);
    assert_string_equal(to_json(st),
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                        "\"message\":\"slow down\",\"reason\":\"TooManyRequests\","
                        "\"details\":{\"retryAfterSeconds\":2},\"code\":429}");
    assert_string_equal(kg_status_unauthorized(&A, "")->message, "not authorized");
    assert_int_equal(kg_status_unauthorized(&A, NULL)->code, 401);
    assert_int_equal(kg_status_service_unavailable(&A, "x")->code, 503);
    assert_int_equal(kg_status_bad_request(&A, "x")->code, 400);
    st = kg_status_server_timeout(&A, KG_GR("", "pods"), "create", 2);
    assert_string_equal(st->message,
                        "The create operation against pods could not be completed at this time, please try again.");
}

static void test_success_and_roundtrip(void **s)
{
    (void)s;
    kg_status *st = kg_status_success_delete(&A, KG_GR("", "configmaps"), "cm", "1234-uid");
    assert_string_equal(to_json(st),
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Success\","
                        "\"details\":{\"name\":\"cm\",\"kind\":\"configmaps\",\"uid\":\"1234-uid\"}}");
    assert_int_equal(kg_status_http_code(st), 200);

    const char *in = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
                     "\"no\",\"reason\":\"Forbidden\",\"details\":{\"causes\":[{\"reason\":\"R\",\"message\":\"m\","
                     "\"field\":\"f\"}],\"retryAfterSeconds\":3},\"code\":403}";
    kg_error err;
    kg_json *j = kg_json_parse(&A, in, strlen(in), &err);
    assert_non_null(j);
    st = kg_status_from_json(&A, j);
    assert_int_equal(st->code, 403);
    assert_string_equal(st->reason, "Forbidden");
    assert_int_equal(st->details.ncauses, 1);
    assert_string_equal(st->details.causes[0].field, "f");
    assert_true(kg_json_equal(kg_status_to_json(&A, st), j));

    kg_status *w = kg_status_from_json(&A, kg_json_parse(&A, "{\"message\":\"m\"}", 15, &err));
    kg_status_as_error(w);
    assert_string_equal(to_json(w), "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                                    "\"Failure\",\"message\":\"m\",\"code\":500}");
    kg_status *z = kg_status_new(&A, 0, "", "plain");
    assert_int_equal(kg_status_http_code(z), 500);
    kg_buf b = KG_BUF_INIT;
    kg_status_write(&b, z);
    assert_string_equal(kg_buf_cstr(&b), "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                                         "\"Failure\",\"message\":\"plain\"}");
    kg_buf_free(&b);
}

static void test_from_error(void **s)
{
    (void)s;
    kg_error e;
    kg_err_set(&e, KG_ENOTFOUND, "pods \"a\" not found");
    kg_status *st = kg_status_from_error(&A, &e);
    assert_int_equal(st->code, 404);
    assert_string_equal(st->reason, "NotFound");
    assert_string_equal(st->message, "pods \"a\" not found");
    kg_err_set(&e, KG_EIO, "disk on fire");
    st = kg_status_from_error(&A, &e);
    assert_int_equal(st->code, 500);
    assert_string_equal(st->reason, "");
    kg_err_set(&e, KG_ECONFLICT, "c");
    assert_int_equal(kg_status_from_error(&A, &e)->code, 409);
    kg_err_set(&e, KG_EFORBIDDEN, "f");
    assert_true(kg_status_is(kg_status_from_error(&A, &e), KG_REASON_FORBIDDEN));
}

static void test_go_quote(void **s)
{
    (void)s;
    static const struct {
        const char *in, *out;
    } T[] = {
        {"plain", "\"plain\""},
        {"caf\xc3\xa9", "\"caf\xc3\xa9\""},           /* printable non-ASCII kept */
        {"\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""}, /* emoji kept */
        {"a\xc2\xa0"
         "b",
         "\"a\\u00a0b\""},               /* no-break space is not printable in Go */
        {"\xe2\x80\x8b", "\"\\u200b\""}, /* zero-width space */
        {"\x7f\x1b", "\"\\x7f\\x1b\""},
        {"\xff\xfe", "\"\\xff\\xfe\""}, /* invalid UTF-8 bytes */
        {"\xc3", "\"\\xc3\""},          /* truncated sequence */
        {"tab\tnl\nq\"bs\\", "\"tab\\tnl\\nq\\\"bs\\\\\""},
        {"\xef\xbb\xbf", "\"\\ufeff\""},         /* BOM */
        {"\xf3\xa0\x80\x81", "\"\\U000e0001\""}, /* tag character */
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        assert_string_equal(kg_meta_quote_a(&A, T[i].in), T[i].out);
}

/* Echoed client input is bounded (KG_ECHO_MAX_BYTES): values, paths and names up to the bound print exactly as
 * upstream, longer ones are cut (on a UTF-8 boundary) and marked, so a 1 MiB invalid label gets a ~9 KiB Status. */
static void test_echo_bounded(void **s)
{
    (void)s;
    size_t big = 1 << 20;
    char *v = kg_arena_alloc(&A, big + 1);
    memset(v, 'a', big);
    v[big] = 0;
    /* at the bound: unchanged */
    char *edge = kg_arena_strndup(&A, v, KG_ECHO_MAX_BYTES);
    kg_field_errors l = KG_FIELD_ERRORS_INIT;
    kg_field_invalid(&A, &l, "metadata.labels", edge, "must be no more than 63 characters");
    char *want = kg_arena_sprintf(&A, "Invalid value: \"%s\": must be no more than 63 characters", edge);
    assert_string_equal(kg_field_error_body(&A, &l.items[0]), want);
    /* one byte over: cut to the bound and marked */
    char *over = kg_arena_strndup(&A, v, KG_ECHO_MAX_BYTES + 1);
    l = (kg_field_errors)KG_FIELD_ERRORS_INIT;
    kg_field_invalid(&A, &l, "metadata.labels", over, "must be no more than 63 characters");
    want =
        kg_arena_sprintf(&A, "Invalid value: \"%s\"... (truncated from %d bytes): must be no more than 63 characters",
                         edge, KG_ECHO_MAX_BYTES + 1);
    assert_string_equal(kg_field_error_body(&A, &l.items[0]), want);
    /* a 1 MiB label value in a 422: message and cause bounded, the response a few KiB */
    l = (kg_field_errors)KG_FIELD_ERRORS_INIT;
    kg_field_invalid(&A, &l, "metadata.labels", v, "must be no more than 63 characters");
    kg_status *st = kg_status_invalid(&A, KG_GK("", "ConfigMap"), "c", &l);
    want = kg_arena_sprintf(&A,
                            "ConfigMap \"c\" is invalid: metadata.labels: Invalid value: \"%s\"... (truncated from "
                            "1048576 bytes): must be no more than 63 characters",
                            edge);
    assert_string_equal(st->message, want);
    assert_true(strlen(to_json(st)) < 3 * KG_ECHO_MAX_BYTES);
    /* NotSupported, Duplicate, raw values and a path holding a huge map key */
    l = (kg_field_errors)KG_FIELD_ERRORS_INIT;
    const char *valid[] = {"Always"};
    kg_field_not_supported(&A, &l, "spec.restartPolicy", v, valid, 1);
    kg_field_duplicate(&A, &l, "spec.x", v);
    kg_field_invalid_raw(&A, &l, "spec.y", v, "bad");
    kg_field_invalid(&A, &l, kg_arena_sprintf(&A, "data[%s]", v), "k", "bad key");
    for (size_t i = 0; i < l.len; i++)
        assert_true(strlen(kg_field_error_string(&A, &l.items[i])) < KG_ECHO_MAX_BYTES + 200);
    assert_string_equal(kg_field_error_body(&A, &l.items[2]) + strlen("Invalid value: ") + KG_ECHO_MAX_BYTES,
                        "... (truncated from 1048576 bytes): bad");
    /* a huge name (e.g. metadata.name too long): message and details.name bounded too */
    st = kg_status_invalid(&A, KG_GK("", "ConfigMap"), v, &l);
    assert_true(strlen(to_json(st)) < 16 * KG_ECHO_MAX_BYTES);
    assert_int_equal(strlen(st->details.name), KG_ECHO_MAX_BYTES + strlen("... (truncated from 1048576 bytes)"));
    assert_true(strlen(st->details.causes[3].field) < KG_ECHO_MAX_BYTES + 50);
    st = kg_status_not_found(&A, KG_GR("", "configmaps"), v);
    assert_true(strlen(st->message) < KG_ECHO_MAX_BYTES + 100);
    /* the cut never splits a UTF-8 sequence: a 2-byte character across the bound is left out whole */
    char *u = kg_arena_strdup(&A, v);
    u[KG_ECHO_MAX_BYTES - 1] = (char)0xc3;
    u[KG_ECHO_MAX_BYTES] = (char)0xa9;
    kg_buf b = KG_BUF_INIT;
    kg_meta_quote_echo(&b, u, strlen(u));
    assert_int_equal(b.data[KG_ECHO_MAX_BYTES], '"'); /* the quote, BOUND - 1 bytes of a, the closing quote */
    assert_int_equal(b.data[KG_ECHO_MAX_BYTES - 1], 'a');
    kg_buf_free(&b);
    assert_string_equal(kg_meta_echo_a(&A, "short"), "short");
    assert_string_equal(kg_meta_echo_a(&A, NULL), "");
}

static void test_gvk(void **s)
{
    (void)s;
    kg_gv gv;
    kg_error err;
    assert_true(kg_gv_parse(&A, "apps/v1", &gv, &err));
    assert_string_equal(gv.group, "apps");
    assert_string_equal(gv.version, "v1");
    assert_true(kg_gv_parse(&A, "v1", &gv, &err));
    assert_string_equal(gv.group, "");
    assert_string_equal(gv.version, "v1");
    assert_true(kg_gv_parse(&A, "/", &gv, &err));
    assert_string_equal(gv.version, "");
    assert_false(kg_gv_parse(&A, "a/b/c", &gv, &err));
    assert_string_equal(err.msg, "unexpected GroupVersion string: a/b/c");
    assert_string_equal(kg_gvk_string(&A, (kg_gvk){"", "v1", "Pod"}), "/v1, Kind=Pod");
    assert_string_equal(kg_gvr_string(&A, (kg_gvr){"apps", "v1", "deployments"}), "apps/v1, Resource=deployments");
    assert_string_equal(kg_gvk_api_version(&A, (kg_gvk){"apps", "v1", "Deployment"}), "apps/v1");
    assert_string_equal(kg_gvk_api_version(&A, (kg_gvk){"", "v1", "Pod"}), "v1");
    assert_true(kg_gvk_equal((kg_gvk){NULL, "v1", "Pod"}, (kg_gvk){"", "v1", "Pod"}));
    assert_false(kg_gvr_equal((kg_gvr){"", "v1", "pods"}, (kg_gvr){"", "v1", "nodes"}));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_not_found_and_exists, setup, teardown),
        cmocka_unit_test_setup_teardown(test_conflict, setup, teardown),
        cmocka_unit_test_setup_teardown(test_field_error_bodies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalid_aggregation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_forbidden_variants, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_constructors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_admission_helpers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_success_and_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_from_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gvk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_go_quote, setup, teardown),
        cmocka_unit_test_setup_teardown(test_echo_bounded, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
