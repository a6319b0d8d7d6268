/* The built-in kinds' list and map semantics for structured merge (api/smd_schema.h), as the reference lists them
 * (apiserver-fidelity §3.5): containers / volumes / env keyed by name, container ports by containerPort+protocol,
 * Service ports by port+protocol and its selector an atomic map, tolerations and command atomic, ownerReferences by
 * uid, finalizers a set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "api/resources.h"
#include "api/smd_schema.h"

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

static const char *fieldset(const char *group, const char *kind, const char *obj)
{
    const kg_resource *r = kg_resource_find_kind(group, kind);
    assert_non_null(r);
    kg_error e = {0};
    kg_json *v = kg_json_parse(&A, obj, strlen(obj), &e);
    assert_non_null(v);
    kg_fs *fs;
    const char *err = NULL;
    if (!kg_smd_fieldset(&A, kg_api_smd_schema(), kg_api_smd_root(r), v, &fs, &err))
        fail_msg("fieldset: %s", err);
    size_t n;
    return kg_json_to_string(&A, kg_fs_to_json(&A, fs), KG_JSON_WRITE_NO_ESCAPE_HTML, &n);
}

static void test_deployment(void **s)
{
    (void)s;
    assert_string_equal(
        fieldset("apps", "Deployment",
                 "{\"metadata\":{\"finalizers\":[\"x\"],\"ownerReferences\":[{\"uid\":\"u\",\"name\":\"o\"}]},"
                 "\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"command\":[\"a\"],"
                 "\"env\":[{\"name\":\"E\",\"value\":\"v\"}],\"ports\":[{\"containerPort\":80}]}],"
                 "\"tolerations\":[{\"key\":\"k\"}],\"volumes\":[{\"name\":\"v\",\"emptyDir\":{}}]}}}}"),
        "{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"x\\\"\":{}},\"f:ownerReferences\":{\"k:{\\\"uid\\\":\\\"u\\\"}\":{"
        "\".\":{},\"f:name\":{},\"f:uid\":{}}}},\"f:spec\":{\"f:template\":{\"f:spec\":{\"f:containers\":{"
        "\"k:{\\\"name\\\":\\\"c\\\"}\":{\".\":{},\"f:command\":{},\"f:env\":{\"k:{\\\"name\\\":\\\"E\\\"}\":{\".\":{},"
        "\"f:name\":{},\"f:value\":{}}},\"f:name\":{},\"f:ports\":{\"k:{\\\"containerPort\\\":80,\\\"protocol\\\":"
        "\\\"TCP\\\"}\":{\".\":{},\"f:containerPort\":{}}}}},\"f:tolerations\":{},\"f:volumes\":{\"k:{\\\"name\\\":"
        "\\\"v\\\"}\":{\".\":{},\"f:emptyDir\":{},\"f:name\":{}}}}}}}");
}

static void test_service(void **s)
{
    (void)s;
    assert_string_equal(
        fieldset("", "Service",
                 "{\"spec\":{\"ports\":[{\"port\":80,\"protocol\":\"UDP\"}],\"selector\":{\"a\":\"b\"}}}"),
        "{\"f:spec\":{\"f:ports\":{\"k:{\\\"port\\\":80,\\\"protocol\\\":\\\"UDP\\\"}\":{\".\":{},"
        "\"f:port\":{},\"f:protocol\":{}}},\"f:selector\":{}}}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deployment),
        cmocka_unit_test(test_service),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
