/* Storage encoding of objects and the resourceVersion splice used to serve stored bytes without a parse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "registry/codec.h"

static void encode_orders_fields_and_drops_rv(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err;
    const char *in = "{\"spec\":{\"x\":1},\"metadata\":{\"name\":\"p\",\"resourceVersion\":\"9\"},\"kind\":\"Pod\","
                     "\"apiVersion\":\"v1\"}";
    kg_json *o = kg_json_parse(&a, in, strlen(in), &err);
    size_t n;
    const char *enc = kg_obj_encode(&a, o, &n);
    assert_string_equal(enc, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"x\":1}}");
    kg_arena_free(&a);
}

static void splice_matches_decode(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    static const char *const stored[] = {
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{}}",
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{},\"spec\":{}}",
        /* a string value that looks like the pattern must not confuse the splice */
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\",\"annotations\":{\"x\":"
        "\"\\\"metadata\\\":{\"}},\"data\":{\"k\":\"\\\"metadata\\\":{\"}}",
    };
    for (size_t i = 0; i < 3; i++) {
        kg_buf b = KG_BUF_INIT;
        kg_obj_splice_rv(&b, stored[i], strlen(stored[i]), 12345);
        kg_error err;
        kg_json *spliced = kg_json_parse(&a, b.data, b.len, &err);
        if (!spliced)
            fail_msg("splice produced invalid JSON for #%zu: %s", i, b.data);
        kg_json *decoded = kg_obj_decode(&a, stored[i], strlen(stored[i]), 12345, &err);
        assert_true(kg_json_equal(spliced, decoded));
        assert_string_equal(kg_json_path_str(spliced, "metadata.resourceVersion"), "12345");
        kg_buf_free(&b);
    }
    kg_arena_free(&a);
}

static void uids_are_v4_and_unique(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    char *u1 = kg_obj_new_uid(&a), *u2 = kg_obj_new_uid(&a);
    assert_int_equal(strlen(u1), 36);
    assert_int_equal(u1[14], '4');
    assert_true(strchr("89ab", u1[19]) != NULL);
    assert_string_not_equal(u1, u2);
    char *ts = kg_obj_now_rfc3339(&a);
    assert_int_equal(strlen(ts), 20);
    assert_int_equal(ts[10], 'T');
    assert_int_equal(ts[19], 'Z');
    kg_arena_free(&a);
}

/* Conversion None of custom resources: the apiVersion rewritten in stored bytes, without a parse when it leads
 * them (as kg_obj_encode writes it) and through one otherwise; unchanged bytes are returned as they are. */
static void api_version_rewrite(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *v1 = "{\"apiVersion\":\"ex.com/v1\",\"kind\":\"W\",\"metadata\":{\"name\":\"w\"},\"spec\":{\"a\":"
                     "\"ex.com/v1\"}}";
    size_t n;
    const char *out = kg_obj_with_api_version(&a, v1, strlen(v1), "ex.com/v2", &n);
    assert_int_equal(n, strlen(out));
    assert_string_equal(out, "{\"apiVersion\":\"ex.com/v2\",\"kind\":\"W\",\"metadata\":{\"name\":\"w\"},\"spec\":{"
                             "\"a\":\"ex.com/v1\"}}");
    assert_true(kg_obj_with_api_version(&a, v1, strlen(v1), "ex.com/v1", &n) == v1); /* no copy */
    assert_true(kg_obj_with_api_version(&a, v1, strlen(v1), NULL, &n) == v1);        /* built-in: as stored */
    assert_true(kg_obj_api_version_is(v1, strlen(v1), "ex.com/v1"));
    assert_false(kg_obj_api_version_is(v1, strlen(v1), "ex.com/v10"));
    assert_false(kg_obj_api_version_is(v1, strlen(v1), "ex.com/"));
    /* apiVersion not first: decoded and re-encoded in storage order */
    const char *late = "{\"kind\":\"W\",\"apiVersion\":\"ex.com/v1\",\"metadata\":{}}";
    out = kg_obj_with_api_version(&a, late, strlen(late), "ex.com/v2", &n);
    assert_string_equal(out, "{\"apiVersion\":\"ex.com/v2\",\"kind\":\"W\",\"metadata\":{}}");
    /* with the resourceVersion splice, as reads serve them */
    kg_buf b = KG_BUF_INIT;
    kg_obj_splice_rv_as(&a, &b, v1, strlen(v1), 7, "ex.com/v2");
    assert_string_equal(kg_buf_cstr(&b), "{\"apiVersion\":\"ex.com/v2\",\"kind\":\"W\",\"metadata\":{"
                                         "\"resourceVersion\":\"7\",\"name\":\"w\"},\"spec\":{\"a\":\"ex.com/v1\"}}");
    kg_buf_free(&b);
    /* a decoded object */
    kg_error err;
    kg_json *o = kg_obj_decode(&a, v1, strlen(v1), 3, &err);
    kg_obj_set_api_version(&a, o, "ex.com/v2");
    assert_string_equal(kg_json_get_str(o, "apiVersion"), "ex.com/v2");
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(encode_orders_fields_and_drops_rv),
        cmocka_unit_test(splice_matches_decode),
        cmocka_unit_test(uids_are_v4_and_unique),
        cmocka_unit_test(api_version_rewrite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
