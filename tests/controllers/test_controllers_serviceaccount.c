/* The serviceaccounts controller and root-CA publisher (controllers/serviceaccount.h) driven through the
 * controller client: what they create, fix and leave alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "client_memcluster.h"
#include "controllers/serviceaccount.h"

static kg_json *tj(kg_arena *a, const char *text)
{
    kg_error e = {0};
    kg_json *j = kg_json_parse(a, text, strlen(text), &e);
    if (!j)
        fail_msg("bad test JSON: %s: %s", e.msg, text);
    return j;
}

static void creates_then_fixes(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    test_client tc;
    test_client_init(&tc, m);
    KG_ERROR_DECL(e);

    kg_sa_controllers_sync(&tc.c, &a, tj(&a, "{\"metadata\":{\"name\":\"team\"}}"), "CA1");
    kg_json *sa = tc.c.get(tc.c.ctx, &a, "serviceaccounts", "team", "default", &e);
    assert_non_null(sa);
    assert_string_equal(kg_json_path_str(sa, "kind"), "ServiceAccount");
    kg_json *cm = tc.c.get(tc.c.ctx, &a, "configmaps", "team", "kube-root-ca.crt", &e);
    assert_non_null(cm);
    assert_string_equal(kg_json_get_str(kg_json_get(cm, "data"), "ca.crt"), "CA1");
    const char *rv = kg_json_path_str(cm, "metadata.resourceVersion");

    /* up to date: nothing written */
    kg_sa_controllers_sync(&tc.c, &a, tj(&a, "{\"metadata\":{\"name\":\"team\"}}"), "CA1");
    cm = tc.c.get(tc.c.ctx, &a, "configmaps", "team", "kube-root-ca.crt", &e);
    assert_string_equal(kg_json_path_str(cm, "metadata.resourceVersion"), rv);

    /* a new CA bundle: the ConfigMap is fixed in place */
    kg_sa_controllers_sync(&tc.c, &a, tj(&a, "{\"metadata\":{\"name\":\"team\"}}"), "CA2");
    cm = tc.c.get(tc.c.ctx, &a, "configmaps", "team", "kube-root-ca.crt", &e);
    assert_string_equal(kg_json_get_str(kg_json_get(cm, "data"), "ca.crt"), "CA2");
    assert_string_not_equal(kg_json_path_str(cm, "metadata.resourceVersion"), rv);

    kg_admission_memcluster_free(m);
    kg_arena_free(&a);
}

static void terminating_namespaces_are_left_alone(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    test_client tc;
    test_client_init(&tc, m);
    KG_ERROR_DECL(e);
    kg_sa_controllers_sync(&tc.c, &a, tj(&a, "{\"metadata\":{\"name\":\"t\"},\"status\":{\"phase\":\"Terminating\"}}"),
                           "CA");
    kg_sa_controllers_sync(
        &tc.c, &a, tj(&a, "{\"metadata\":{\"name\":\"d\",\"deletionTimestamp\":\"2024-01-01T00:00:00Z\"}}"), "CA");
    assert_null(tc.c.get(tc.c.ctx, &a, "serviceaccounts", "t", "default", &e));
    assert_int_equal(e.code, KG_ENOTFOUND);
    assert_null(tc.c.get(tc.c.ctx, &a, "configmaps", "d", "kube-root-ca.crt", &e));
    kg_admission_memcluster_free(m);
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(creates_then_fixes),
        cmocka_unit_test(terminating_namespaces_are_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
