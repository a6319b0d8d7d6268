/* Name validation tests: upstream verdicts (validation_test.go cases) and exact message texts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "meta/names.h"

static void test_dns1123_label(void **st)
{
    (void)st;
    const char *good[] = {"a",
                          "ab",
                          "abc",
                          "a1",
                          "a-1",
                          "a--1--2--b",
                          "0",
                          "01",
                          "012",
                          "1a",
                          "1-a",
                          "1--a--b--2",
                          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(kg_is_dns1123_label(good[i], NULL));
    const char *bad[] = {"",    "A",
                         "ABC", "aBc",
                         "A1",  "A-1",
                         "1-A", "-",
                         "a-",  "-a",
                         "1-",  "-1",
                         "_",   "a_",
                         "_a",  "a_b",
                         "1_",  "_1",
                         "1_2", ".",
                         "a.",  ".a",
                         "a.b", "1.",
                         ".1",  "1.2",
                         " ",   "a ",
                         " a",  "a b",
                         "1 ",  " 1",
                         "1 2", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (kg_is_dns1123_label(bad[i], NULL))
            fail_msg("%s accepted", bad[i]);
    kg_name_errs e;
    assert_false(kg_is_dns1123_label("a.b", &e));
    assert_int_equal(e.n, 1);
    assert_string_equal(e.msg[0], "must not contain dots");
    assert_false(kg_is_dns1123_label("A", &e));
    assert_string_equal(e.msg[0], "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
                                  "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
                                  "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
    char long64[65];
    memset(long64, 'a', 64);
    long64[64] = 0;
    assert_false(kg_is_dns1123_label(long64, &e));
    assert_int_equal(e.n, 1);
    assert_string_equal(e.msg[0], "must be no more than 63 characters");
}

static void test_dns1123_subdomain(void **st)
{
    (void)st;
    const char *good[] = {"a",
                          "ab",
                          "a1",
                          "a-1",
                          "0",
                          "1-a",
                          "a.a",
                          "ab.a",
                          "a-1.a",
                          "a--1--2--b.0",
                          "0.a",
                          "01.a",
                          "1-a.0",
                          "a.b.c.d.e",
                          "aa.bb.cc.dd.ee",
                          "1.2.3.4.5",
                          "11.22.33.44.55"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(kg_is_dns1123_subdomain(good[i], NULL));
    const char *bad[] = {"",    "A", "a.B", "-",  "a-",   "-a",   "a.-a", "_",
                         "a_b", ".", "a.",  ".a", "a..b", "1..2", " ",    "a b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (kg_is_dns1123_subdomain(bad[i], NULL))
            fail_msg("%s accepted", bad[i]);
    kg_name_errs e;
    assert_false(kg_is_dns1123_subdomain("X", &e));
    assert_string_equal(e.msg[0],
                        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                        "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
                        "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    char big[300];
    memset(big, 'a', 254);
    big[254] = 0;
    assert_false(kg_is_dns1123_subdomain(big, &e));
    assert_int_equal(e.n, 1);
    assert_string_equal(e.msg[0], "must be no more than 253 characters");
}

static void test_dns1035_label(void **st)
{
    (void)st;
    const char *good[] = {"a", "ab", "abc", "a1", "a-1", "a--1--2--b"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(kg_is_dns1035_label(good[i], NULL));
    const char *bad[] = {"0", "01", "1a", "1-a", "", "A", "a-", "-a", "a_b", "a.b", "a b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (kg_is_dns1035_label(bad[i], NULL))
            fail_msg("%s accepted", bad[i]);
    kg_name_errs e;
    kg_is_dns1035_label("1a", &e);
    assert_string_equal(e.msg[0],
                        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
                        "with an alphabetic character, and end with an alphanumeric character (e.g. "
                        "'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
}

static void test_qualified_name(void **st)
{
    (void)st;
    const char *good[] = {"simple",
                          "now-with-dashes",
                          "1-starts-with-num",
                          "1234",
                          "simple/simple",
                          "now-with-dashes/simple",
                          "now-with-dashes/now-with-dashes",
                          "now.with.dots/simple",
                          "now-with.dashes-and.dots/simple",
                          "1-num.2-num/3-num",
                          "1234/5678",
                          "1.2.3.4/5678",
                          "Uppercase_Is_OK_123",
                          "example.com/Uppercase_Is_OK_123",
                          "requests.storage-foo",
                          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (!kg_is_qualified_name(good[i], NULL))
            fail_msg("%s rejected", good[i]);
    const char *bad[] = {
        "nospecialchars%^=@", "cantendwithadash-", "-cantstartwithadash-",
        "only/one/slash",     "Example.com/abc",   "example_com/abc",
        "example.com/",       "/simple",           "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (kg_is_qualified_name(bad[i], NULL))
            fail_msg("%s accepted", bad[i]);
    kg_name_errs e;
    kg_is_qualified_name("a b", &e);
    assert_int_equal(e.n, 1);
    assert_string_equal(e.msg[0],
                        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
                        "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
                        "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
    kg_is_qualified_name("/simple", &e);
    assert_int_equal(e.n, 1);
    assert_string_equal(e.msg[0], "prefix part must be non-empty");
    kg_is_qualified_name("example.com/", &e);
    assert_int_equal(e.n, 2);
    assert_string_equal(e.msg[0], "name part must be non-empty");
    kg_is_qualified_name("Example.com/abc", &e);
    assert_int_equal(e.n, 1);
    assert_true(strncmp(e.msg[0], "prefix part a lowercase RFC 1123 subdomain", 42) == 0);
    kg_is_qualified_name("a/b/c", &e);
    assert_int_equal(e.n, 1);
    assert_true(strncmp(e.msg[0], "a qualified name must consist of", 32) == 0);
    assert_non_null(strstr(e.msg[0], " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"));
}

static void test_label_value(void **st)
{
    (void)st;
    const char *good[] = {"simple",
                          "now-with-dashes",
                          "1-starts-with-num",
                          "end-with-num-1",
                          "1234",
                          "",
                          "A.B_c-1",
                          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(kg_is_valid_label_value(good[i], NULL));
    const char *bad[] = {"nospecialchars%^=@",      "Tama-nui-te-rā.is.Māori.sun",
                         "\\backslashes\\are\\bad", "-starts-with-dash",
                         "ends-with-dash-",         ".starts.with.dot",
                         "ends.with.dot.",          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (kg_is_valid_label_value(bad[i], NULL))
            fail_msg("%s accepted", bad[i]);
    kg_name_errs e;
    kg_is_valid_label_value("-x", &e);
    assert_string_equal(e.msg[0], KG_MSG_LABEL_VALUE);
    assert_non_null(strstr(KG_MSG_LABEL_VALUE, "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
                                               "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"));
}

static void test_path_segment_and_prefix(void **st)
{
    (void)st;
    kg_name_errs e;
    assert_false(kg_is_valid_path_segment_name(".", false, &e));
    assert_string_equal(e.msg[0], "may not be '.'");
    assert_false(kg_is_valid_path_segment_name("..", false, &e));
    assert_string_equal(e.msg[0], "may not be '..'");
    assert_true(kg_is_valid_path_segment_name("..", true, &e));
    assert_false(kg_is_valid_path_segment_name("a/b%c", false, &e));
    assert_int_equal(e.n, 2);
    assert_string_equal(e.msg[0], "may not contain '/'");
    assert_string_equal(e.msg[1], "may not contain '%'");
    assert_true(kg_is_valid_path_segment_name("system:admin", false, &e));
    /* generateName prefixes: the trailing dash is masked */
    assert_true(kg_name_is_dns_subdomain("web-", true, &e));
    assert_false(kg_name_is_dns_subdomain("web-", false, &e));
    assert_true(kg_name_is_dns_label("ns-", true, &e));
    assert_false(kg_name_is_dns_label("Ns-", true, &e));
    assert_true(kg_validate_namespace_name("kube-system", false, &e));
    assert_false(kg_validate_namespace_name("kube.system", false, &e));
    assert_string_equal(e.msg[0], "must not contain dots");
}

static void test_misc_validators(void **st)
{
    (void)st;
    kg_name_errs e;
    assert_true(kg_is_valid_port_name("http", &e));
    assert_true(kg_is_valid_port_name("h-2", &e));
    assert_false(kg_is_valid_port_name("--80ABCdefghijklm", &e));
    assert_int_equal(e.n, 4);
    assert_string_equal(e.msg[0], "must be no more than 15 characters");
    assert_string_equal(e.msg[1], "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    assert_string_equal(e.msg[2], "must not contain consecutive hyphens");
    assert_string_equal(e.msg[3], "must not begin or end with a hyphen");
    assert_false(kg_is_valid_port_name("8080", &e));
    assert_string_equal(e.msg[0], "must contain at least one letter (a-z)");
    assert_true(kg_is_valid_port_num(443, &e));
    assert_false(kg_is_valid_port_num(0, &e));
    assert_string_equal(e.msg[0], "must be between 1 and 65535, inclusive");
    assert_true(kg_is_config_map_key("key.name", &e));
    assert_false(kg_is_config_map_key("..data", &e));
    assert_int_equal(e.n, 1);
    assert_string_equal(e.msg[0], "must not start with '..'");
    assert_false(kg_is_config_map_key("a/b", &e));
    assert_true(strncmp(e.msg[0], "a valid config key must consist of alphanumeric characters", 58) == 0);
    assert_true(kg_is_env_var_name("MY_ENV.NAME", &e));
    assert_false(kg_is_env_var_name("1X", &e));
    assert_false(kg_is_env_var_name("..", &e));
    assert_int_equal(e.n, 1);
    assert_string_equal(e.msg[0], "must not be '..'");
    assert_true(kg_is_c_identifier("_abc1", &e));
    assert_false(kg_is_c_identifier("1abc", &e));
    assert_true(kg_is_valid_percent("93%", &e));
    assert_false(kg_is_valid_percent("9.3%", &e));
    assert_true(kg_is_http_header_name("X-Header-Name", &e));
    assert_false(kg_is_http_header_name("X_Header", &e));
    assert_true(kg_is_wildcard_dns1123_subdomain("*.example.com", &e));
    assert_false(kg_is_wildcard_dns1123_subdomain("*.*.example.com", &e));
    assert_false(kg_is_wildcard_dns1123_subdomain("f*.example.com", &e));
    assert_non_null(strstr(e.msg[0], "regex used for validation is '\\*\\.[a-z0-9]"));
}

static void test_generate_name(void **st)
{
    (void)st;
    kg_arena a;
    kg_arena_init(&a, 0);
    char *n = kg_generate_name(&a, "web-");
    assert_int_equal(strlen(n), 9);
    assert_memory_equal(n, "web-", 4);
    for (int i = 4; i < 9; i++)
        assert_non_null(strchr("bcdfghjklmnpqrstvwxz2456789", n[i]));
    char base[100];
    memset(base, 'x', 80);
    base[80] = 0;
    n = kg_generate_name(&a, base);
    assert_int_equal(strlen(n), 63);
    assert_true(kg_is_dns1123_label(kg_generate_name(&a, "pod-"), NULL));
    /* names differ between calls */
    int same = 0;
    for (int i = 0; i < 20; i++)
        same += strcmp(kg_generate_name(&a, "a-"), kg_generate_name(&a, "a-")) == 0;
    assert_true(same < 2);
    /* every symbol is used, about equally (10,000 symbols: ~370 each) */
    int counts[256] = {0};
    for (int i = 0; i < 2000; i++) {
        const char *g = kg_generate_name(&a, "");
        for (int k = 0; k < 5; k++)
            counts[(unsigned char)g[k]]++;
    }
    for (const char *s = "bcdfghjklmnpqrstvwxz2456789"; *s; s++) {
        assert_true(counts[(unsigned char)*s] > 250);
        assert_true(counts[(unsigned char)*s] < 500);
    }
    kg_arena_free(&a);
}

static kg_json *J(kg_arena *a, const char *s)
{
    kg_error err;
    kg_json *j = kg_json_parse(a, s, strlen(s), &err);
    if (!j)
        fail_msg("json: %s", err.msg);
    return j;
}

static void test_object_meta(void **st)
{
    (void)st;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_validate_object_meta(&a, J(&a, "{\"name\":\"X\",\"labels\":{\"a b\":\"-v\"},\"generation\":-1}"), true,
                            kg_name_is_dns_subdomain, "metadata", &errs);
    assert_int_equal(errs.len, 5);
    assert_string_equal(kg_field_error_string(&a, &errs.items[0]),
                        "metadata.name: Invalid value: \"X\": " KG_MSG_DNS1123_SUBDOMAIN);
    assert_string_equal(kg_field_error_string(&a, &errs.items[1]), "metadata.namespace: Required value");
    assert_string_equal(kg_field_error_string(&a, &errs.items[2]),
                        "metadata.generation: Invalid value: -1: must be greater than or equal to 0");
    assert_string_equal(kg_field_error_string(&a, &errs.items[3]),
                        "metadata.labels: Invalid value: \"a b\": name part " KG_MSG_QUALIFIED_NAME);
    assert_string_equal(kg_field_error_string(&a, &errs.items[4]),
                        "metadata.labels: Invalid value: \"-v\": " KG_MSG_LABEL_VALUE);

    errs.len = 0;
    kg_validate_object_meta(&a, J(&a, "{\"generateName\":\"x-\",\"namespace\":\"ns\"}"), false, NULL, "metadata",
                            &errs);
    assert_int_equal(errs.len, 2);
    assert_string_equal(kg_field_error_string(&a, &errs.items[0]),
                        "metadata.name: Required value: name or generateName is required");
    assert_string_equal(kg_field_error_string(&a, &errs.items[1]),
                        "metadata.namespace: Forbidden: not allowed on this type");

    errs.len = 0;
    kg_validate_object_meta(
        &a,
        J(&a, "{\"name\":\"ok\",\"namespace\":\"ns\",\"finalizers\":[\"orphan\","
              "\"foregroundDeletion\",\"bad finalizer\"],\"annotations\":{\"A/b\":\"x\",\"Ex_ample/c\":\"y\"},"
              "\"ownerReferences\":[{\"apiVersion\":\"\",\"kind\":\"K\",\"name\":\"n\",\"uid\":"
              "\"u\",\"controller\":true},{\"apiVersion\":\"v1\",\"kind\":\"K\",\"name\":\"m\","
              "\"uid\":\"u\",\"controller\":true}]}"),
        true, NULL, "metadata", &errs);
    assert_int_equal(errs.len, 5);
    assert_string_equal(kg_field_error_string(&a, &errs.items[0]),
                        "metadata.annotations: Invalid value: \"Ex_ample/c\": prefix part " KG_MSG_DNS1123_SUBDOMAIN);
    assert_string_equal(kg_field_error_string(&a, &errs.items[1]),
                        "metadata.ownerReferences.apiVersion: Invalid value: \"\": version must not be empty");
    assert_true(strstr(kg_field_error_string(&a, &errs.items[2]),
                       "Only one reference can have Controller set to true. Found \"true\" in references for K/n and "
                       "K/m") != NULL);
    assert_string_equal(kg_field_error_string(&a, &errs.items[3]),
                        "metadata.finalizers: Invalid value: \"bad finalizer\": name part " KG_MSG_QUALIFIED_NAME);
    assert_string_equal(kg_field_error_string(&a, &errs.items[4]),
                        "metadata.finalizers: Invalid value: []string{\"orphan\", \"foregroundDeletion\", \"bad "
                        "finalizer\"}: finalizer orphan and foregroundDeletion cannot be both set");

    /* annotations size limit: 256 KiB of keys + values */
    kg_json *ann = kg_json_new_object(&a);
    char *big = kg_arena_alloc(&a, 200 * 1024 + 1);
    memset(big, 'x', 200 * 1024);
    big[200 * 1024] = 0;
    kg_json_set(&a, ann, "a", kg_json_new_str(&a, big));
    errs.len = 0;
    kg_validate_annotations(&a, ann, "metadata.annotations", &errs);
    assert_int_equal(errs.len, 0);
    kg_json_set(&a, ann, "b", kg_json_new_str(&a, big));
    kg_validate_annotations(&a, ann, "metadata.annotations", &errs);
    assert_int_equal(errs.len, 1);
    assert_string_equal(kg_field_error_string(&a, &errs.items[0]),
                        "metadata.annotations: Too long: may not be more than 262144 bytes");
    assert_int_equal(kg_annotations_size(ann), 2 + 2 * 200 * 1024);
    kg_arena_free(&a);
}

static void test_object_meta_update(void **st)
{
    (void)st;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_json *old = J(&a, "{\"name\":\"a\",\"namespace\":\"ns\",\"uid\":\"u1\",\"resourceVersion\":\"5\","
                         "\"generation\":3,\"creationTimestamp\":\"2006-01-02T15:04:05Z\","
                         "\"deletionTimestamp\":\"2006-01-02T16:00:00Z\",\"deletionGracePeriodSeconds\":30,"
                         "\"finalizers\":[\"x\"]}");
    kg_json *upd = J(&a, "{\"name\":\"b\",\"namespace\":\"ns\",\"uid\":\"u1\",\"generation\":2,"
                         "\"creationTimestamp\":\"2007-01-02T15:04:05Z\",\"finalizers\":[\"z\",\"x\",\"y\","
                         "\"z\"]}");
    kg_validate_object_meta_update(&a, upd, old, "metadata", &errs);
    const char *want[] = {
        "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new "
        "finalizers []string{\"y\", \"z\"}",
        "metadata.resourceVersion: Invalid value: \"\": must be specified for an update",
        "metadata.generation: Invalid value: 2: must not be decremented",
        "metadata.name: Invalid value: \"b\": field is immutable",
        "metadata.creationTimestamp: Invalid value: 2007-01-02 15:04:05 +0000 UTC: field is immutable",
        "metadata.deletionTimestamp: Invalid value: \"null\": field is immutable",
        "metadata.deletionGracePeriodSeconds: Invalid value: \"null\": field is immutable",
    };
    assert_int_equal(errs.len, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < errs.len; i++)
        assert_string_equal(kg_field_error_string(&a, &errs.items[i]), want[i]);
    errs.len = 0;
    kg_validate_object_meta_update(&a, old, old, "metadata", &errs);
    assert_int_equal(errs.len, 0);
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dns1123_label),      cmocka_unit_test(test_dns1123_subdomain),
        cmocka_unit_test(test_dns1035_label),      cmocka_unit_test(test_qualified_name),
        cmocka_unit_test(test_label_value),        cmocka_unit_test(test_path_segment_and_prefix),
        cmocka_unit_test(test_generate_name),      cmocka_unit_test(test_object_meta),
        cmocka_unit_test(test_object_meta_update), cmocka_unit_test(test_misc_validators),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
