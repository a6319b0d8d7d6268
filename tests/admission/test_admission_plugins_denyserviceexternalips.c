/* DenyServiceExternalIPs: create/update scenarios from upstream tests, exact messages. */
#include "plugin_testutil.h"


#define P kg_admission_plugin_deny_service_external_ips
#define DENIED "services \"s\" is forbidden: Use of external IPs is denied by admission control"

static kg_status *check(kg_arena *a, kg_admission_op op, const char *ips, const char *old_ips)
{
    kg_admission_attributes at;
    const char *fmt = "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"s\"},\"spec\":{%s%s}}";
    kg_json *obj = tj(a, kg_arena_sprintf(a, fmt, ips ? "\"externalIPs\":" : "", ips ? ips : ""));
    kg_json *old = old_ips ? tj(a, kg_arena_sprintf(a, fmt, "\"externalIPs\":", old_ips)) : NULL;
    if (op == KG_ADMISSION_UPDATE && !old)
        old = tj(a, kg_arena_sprintf(a, fmt, "", ""));
    tattrs(&at, a, op, "Service", "services", "ns", "s", obj, old);
    return validate1(&P, NULL, NULL, &at);
}

static void handles(void **state)
{
    assert_int_equal(P.handles, KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE);
    assert_ptr_equal(kg_admission_registry_find("DenyServiceExternalIPs")->impl, &P);
    assert_false(kg_admission_registry_find("DenyServiceExternalIPs")->default_on);
}

static void create(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_null(check(&a, KG_ADMISSION_CREATE, NULL, NULL));
    assert_null(check(&a, KG_ADMISSION_CREATE, "[]", NULL));
    assert_status(check(&a, KG_ADMISSION_CREATE, "[\"1.1.1.1\"]", NULL), 403, "Forbidden", DENIED);
    kg_arena_free(&a);
}

static void update(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_null(check(&a, KG_ADMISSION_UPDATE, "[\"1.1.1.1\",\"2.2.2.2\"]", "[\"1.1.1.1\",\"2.2.2.2\"]"));
    assert_null(check(&a, KG_ADMISSION_UPDATE, "[\"2.2.2.2\",\"1.1.1.1\"]", "[\"1.1.1.1\",\"2.2.2.2\"]"));
    assert_null(check(&a, KG_ADMISSION_UPDATE, "[\"2.2.2.2\"]", "[\"1.1.1.1\",\"2.2.2.2\"]"));
    assert_null(check(&a, KG_ADMISSION_UPDATE, NULL, "[\"1.1.1.1\"]"));
    assert_status(check(&a, KG_ADMISSION_UPDATE, "[\"1.1.1.1\"]", NULL), 403, "Forbidden", DENIED);
    assert_status(check(&a, KG_ADMISSION_UPDATE, "[\"1.1.1.1\",\"3.3.3.3\"]", "[\"1.1.1.1\"]"), 403, "Forbidden",
                  DENIED);
    assert_status(check(&a, KG_ADMISSION_UPDATE, "[\"3.3.3.3\"]", "[\"1.1.1.1\"]"), 403, "Forbidden", DENIED);
    kg_arena_free(&a);
}

static void other_objects(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Service", "services", "ns", "s",
           tj(&a, "{\"kind\":\"Service\",\"spec\":{\"externalIPs\":[\"1.1.1.1\"]}}"), NULL);
    at.subresource = "status";
    assert_null(validate1(&P, NULL, NULL, &at));
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "services", "ns", "s", tj(&a, "{\"kind\":\"Pod\"}"), NULL);
    assert_status(validate1(&P, NULL, NULL, &at), 500, "InternalError",
                  "Internal error occurred: Expected Service resource, got: /v1, Kind=Pod");
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles),
        cmocka_unit_test(create),
        cmocka_unit_test(update),
        cmocka_unit_test(other_objects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
