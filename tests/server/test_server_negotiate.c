/* Content negotiation (406 for an Accept kgate cannot serve) and the 504 for a list at a future resourceVersion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "server/negotiate.h"

static void test_accept(void **s)
{
    (void)s;
    kg_arena a;
    kg_arena_init(&a, 0);
    static const char *const ok[] = {
        NULL,
        "",
        "*/*",
        "application/json",
        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
        "application/json",
        "application/vnd.kubernetes.protobuf,application/json",
        "text/html, application/*;q=0.8",
        "application/yaml",
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        if (kg_negotiate_accept(&a, ok[i], false))
            fail_msg("rejected %s", ok[i]);
    kg_status *st = kg_negotiate_accept(&a, "text/html", false);
    assert_non_null(st);
    assert_int_equal(kg_status_http_code(st), 406);
    assert_string_equal(st->reason, "NotAcceptable");
    assert_string_equal(st->message, "only the following media types are accepted: application/json, "
                                     "application/yaml, application/vnd.kubernetes.protobuf");
    assert_null(kg_negotiate_accept(&a, "application/json;stream=watch", true));
    st = kg_negotiate_accept(&a, "application/yaml", true);
    assert_non_null(st);
    assert_string_equal(
        st->message,
        "only the following media types are accepted: application/json, application/vnd.kubernetes.protobuf");
    kg_arena_free(&a);
}

static void test_too_large_rv(void **s)
{
    (void)s;
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_null(kg_negotiate_too_large_rv(&a, 10, 10));
    kg_status *st = kg_negotiate_too_large_rv(&a, 99, 12);
    assert_non_null(st);
    assert_int_equal(kg_status_http_code(st), 504);
    assert_string_equal(st->reason, "Timeout");
    assert_string_equal(st->message, "Timeout: Too large resource version: 99, current: 12");
    kg_arena_free(&a);
}

static void test_list_options(void **s)
{
    (void)s;
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_null(kg_negotiate_list_options(&a, "5", "NotOlderThan", NULL));
    assert_null(kg_negotiate_list_options(&a, NULL, NULL, "tok"));
    kg_status *st = kg_negotiate_list_options(&a, NULL, "NotOlderThan", NULL);
    assert_non_null(st);
    assert_int_equal(kg_status_http_code(st), 422);
    assert_string_equal(st->message, "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
                                     "resourceVersionMatch is forbidden unless resourceVersion is provided");
    st = kg_negotiate_list_options(&a, "0", "Exact", NULL);
    assert_string_equal(st->message, "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
                                     "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"");
    st = kg_negotiate_list_options(&a, "3", "Newest", NULL);
    assert_string_equal(st->message, "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported "
                                     "value: \"Newest\": supported values: \"Exact\", \"NotOlderThan\", \"\"");
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accept),
        cmocka_unit_test(test_too_large_rv),
        cmocka_unit_test(test_list_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
