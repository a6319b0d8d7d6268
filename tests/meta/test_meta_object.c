/* ObjectMeta helper tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "meta/object.h"

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

static kg_json *J(const char *s)
{
    kg_error err;
    kg_json *j = kg_json_parse(&A, s, strlen(s), &err);
    if (!j)
        fail_msg("json: %s", err.msg);
    return j;
}

static const char *S(const kg_json *j)
{
    return kg_json_to_string(&A, j, 0, NULL);
}

static void test_strings_and_ints(void **st)
{
    (void)st;
    kg_json *o = J("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"}");
    assert_null(kg_meta_get(o));
    assert_null(kg_meta_name(o));
    kg_meta_set_name(&A, o, "web");
    kg_meta_set_namespace(&A, o, "prod");
    kg_meta_set_generate_name(&A, o, "web-");
    kg_meta_set_resource_version(&A, o, "42");
    kg_meta_set_generation(&A, o, 3);
    assert_string_equal(S(o), "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
                              "\"namespace\":\"prod\",\"generateName\":\"web-\",\"resourceVersion\":\"42\","
                              "\"generation\":3}}");
    assert_string_equal(kg_meta_name(o), "web");
    assert_string_equal(kg_meta_namespace(o), "prod");
    assert_string_equal(kg_meta_generate_name(o), "web-");
    assert_string_equal(kg_meta_resource_version(o), "42");
    assert_int_equal(kg_meta_generation(o), 3);
    assert_int_equal(kg_meta_deletion_grace_period(o), -1);
    kg_meta_set_deletion_grace_period(&A, o, 30);
    assert_int_equal(kg_meta_deletion_grace_period(o), 30);
    kg_meta_set_generate_name(&A, o, NULL);
    assert_null(kg_meta_generate_name(o));
    assert_string_equal(kg_meta_namespace_key(&A, o), "prod/web");
    kg_meta_set_namespace(&A, o, NULL);
    assert_string_equal(kg_meta_namespace_key(&A, o), "web");

    kg_gvk g = kg_object_gvk(&A, o);
    assert_string_equal(g.group, "apps");
    assert_string_equal(g.version, "v1");
    assert_string_equal(g.kind, "Deployment");
    kg_object_set_gvk(&A, o, (kg_gvk){"", "v1", "Pod"});
    assert_string_equal(kg_json_get_str(o, "apiVersion"), "v1");
    assert_string_equal(kg_json_get_str(o, "kind"), "Pod");
    g = kg_object_gvk(&A, J("{\"apiVersion\":\"a/b/c\",\"kind\":\"K\"}"));
    assert_string_equal(g.version, "");
    assert_string_equal(g.kind, "K");
}

static void test_time(void **st)
{
    (void)st;
    char buf[KG_TIME_BUF];
    assert_string_equal(kg_time_format(0, buf), "1970-01-01T00:00:00Z");
    assert_string_equal(kg_time_format(1136214245, buf), "2006-01-02T15:04:05Z");
    assert_string_equal(kg_time_format(951782400, buf), "2000-02-29T00:00:00Z");
    time_t t;
    assert_true(kg_time_parse("2006-01-02T15:04:05Z", &t));
    assert_int_equal(t, 1136214245);
    assert_true(kg_time_parse("2006-01-02T08:04:05-07:00", &t));
    assert_int_equal(t, 1136214245);
    assert_true(kg_time_parse("2006-01-02T15:04:05.999999999Z", &t));
    assert_int_equal(t, 1136214245);
    assert_true(kg_time_parse("2000-02-29T00:00:00Z", &t));
    assert_int_equal(t, 951782400);
    assert_false(kg_time_parse("2001-02-29T00:00:00Z", &t));
    assert_false(kg_time_parse("2006-01-02 15:04:05Z", &t));
    assert_false(kg_time_parse("2006-01-02T15:04:05", &t));
    assert_false(kg_time_parse("2006-13-02T15:04:05Z", &t));
    assert_false(kg_time_parse("2006-01-02T15:04:05Zx", &t));
    kg_json *o = J("{}");
    kg_meta_set_creation_timestamp(&A, o, 1136214245);
    kg_meta_set_deletion_timestamp(&A, o, 1136214250);
    assert_string_equal(kg_meta_creation_timestamp(o), "2006-01-02T15:04:05Z");
    assert_string_equal(kg_meta_deletion_timestamp(o), "2006-01-02T15:04:10Z");
}

static void test_uid(void **st)
{
    (void)st;
    char u[37], v[37];
    kg_uuid_v4(u);
    kg_uuid_v4(v);
    assert_int_equal(strlen(u), 36);
    assert_string_not_equal(u, v);
    for (int i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23)
            assert_int_equal(u[i], '-');
        else
            assert_non_null(strchr("0123456789abcdef", u[i]));
    }
    assert_int_equal(u[14], '4');
    assert_non_null(strchr("89ab", u[19]));
    kg_json *o = J("{\"metadata\":{}}");
    const char *uid = kg_meta_new_uid(&A, o);
    assert_string_equal(kg_meta_uid(o), uid);
}

static void test_maps_and_lists(void **st)
{
    (void)st;
    kg_json *o = J("{\"metadata\":{\"name\":\"p\",\"ownerReferences\":[{\"kind\":\"A\",\"name\":\"a\"},"
                   "{\"kind\":\"RS\",\"name\":\"rs\",\"controller\":true}]}}");
    kg_meta_set_label(&A, o, "app", "web");
    kg_meta_set_label(&A, o, "tier", "fe");
    kg_meta_set_annotation(&A, o, "note", "x");
    assert_string_equal(kg_meta_label(o, "app"), "web");
    assert_string_equal(kg_meta_annotation(o, "note"), "x");
    kg_meta_set_label(&A, o, "app", NULL);
    assert_null(kg_meta_label(o, "app"));
    assert_string_equal(S(kg_meta_labels(o)), "{\"tier\":\"fe\"}");
    assert_false(kg_meta_has_finalizer(o, "f"));
    assert_true(kg_meta_add_finalizer(&A, o, "f"));
    assert_false(kg_meta_add_finalizer(&A, o, "f"));
    assert_true(kg_meta_add_finalizer(&A, o, "g"));
    assert_string_equal(S(kg_meta_finalizers(o)), "[\"f\",\"g\"]");
    assert_true(kg_meta_remove_finalizer(o, "f"));
    assert_false(kg_meta_remove_finalizer(o, "f"));
    assert_string_equal(S(kg_meta_finalizers(o)), "[\"g\"]");
    const kg_json *c = kg_meta_controller_ref(o);
    assert_non_null(c);
    assert_string_equal(kg_json_get_str(c, "name"), "rs");
    assert_int_equal(kg_meta_owner_references(o)->len, 2);
    assert_null(kg_meta_controller_ref(J("{}")));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_strings_and_ints, setup, teardown),
        cmocka_unit_test_setup_teardown(test_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_uid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_maps_and_lists, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
