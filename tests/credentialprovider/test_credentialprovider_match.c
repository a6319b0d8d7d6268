/* Image matching (upstream TestURLsMatch, keyring tests, the reference's worked examples and edge cases), Go
 * durations, Go url.Parse errors, filepath.Match and docker reference normalisation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "credentialprovider/credentialprovider.h"

typedef struct mcase {
    const char *glob, *target;
    bool match;
} mcase;

static void check_cases(const mcase *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        bool got = kg_credentialprovider_urls_match(c[i].glob, c[i].target);
        if (got != c[i].match)
            fail_msg("URLsMatchStr(%s, %s) = %d, want %d", c[i].glob, c[i].target, got, c[i].match);
    }
}

static void upstream_urls_match_table(void **state)
{
    static const mcase c[] = {
        {"*.kubernetes.io", "prefix.kubernetes.io", true},
        {"prefix.*.io", "prefix.kubernetes.io", true},
        {"prefix.kubernetes.*", "prefix.kubernetes.io", true},
        {"*-good.kubernetes.io", "prefix-good.kubernetes.io", true},
        {"*.kubernetes.io/blah", "prefix.kubernetes.io/blah", true},
        {"prefix.*.io/foo", "prefix.kubernetes.io/foo/bar", true},
        {"*.kubernetes.io:1111/blah", "prefix.kubernetes.io:1111/blah", true},
        {"prefix.*.io:1111/foo", "prefix.kubernetes.io:1111/foo/bar", true},
        {"*.kubernetes.io", "kubernetes.io", false},
        {"*.*.kubernetes.io", "prefix.kubernetes.io", false},
        {"*.*.kubernetes.io", "kubernetes.io", false},
        {"kubernetes.io", "kubernetes.com", false},
        {"k*.io", "quay.io", false},
        {"*.kubernetes.io:1234/blah", "prefix.kubernetes.io:1111/blah", false},
        {"prefix.*.io/foo", "prefix.kubernetes.io:1111/foo/bar", false},
    };
    check_cases(c, sizeof c / sizeof c[0]);
}

static void reference_worked_examples(void **state)
{
    static const mcase c[] = {
        {"docker.io", "docker.io/library/nginx", true},
        {"*.dkr.ecr.*.amazonaws.com", "123456789012.dkr.ecr.us-east-1.amazonaws.com/app", true},
        {"*.azurecr.io", "myreg.azurecr.io/team/app", true},
        {"*.azurecr.io", "a.b.azurecr.io/app", false},
        {"*.io", "registry.k8s.io/pause", false},
        {"gcr.io", "us.gcr.io/proj/img", false},
        {"registry.io:8080/path", "registry.io:8080/path/sub/img", true},
        {"registry.io:8080/path", "registry.io/path/img", false},
        {"registry.io", "registry.io:5000/img", false},
        {"registry.io/path", "registry.io/pathology/img", true},
        {"registry.io/path/", "registry.io/pathology/img", false},
        {"app*.k8s.io", "app1.k8s.io/x", true},
        {"app*.k8s.io", "myapp.k8s.io/x", false},
        {"REGISTRY.io", "registry.io/x", false},
        {"*", "localhost/img", true},
        {"*", "localhost:5000/img", false},
        {"*:5000", "localhost:5000/img", true},
        {"registry.io:*", "registry.io/x", false},
        {"10.0.0.*", "10.0.0.5/img", true},
        {"10.0.0.*:5000", "10.0.0.5:5000/img", true},
        {"registry.io/team-a", "registry.io/team-b/app", false},
        {"registry.io/v2/", "registry.io/v2/app", true},
        {"k8s.*.io", "k8s.gcr.io/pause", true},
        {"k8s.*.io", "k8s.gcr.com/pause", false},
    };
    check_cases(c, sizeof c / sizeof c[0]);
}

static void edge_cases(void **state)
{
    static const mcase c[] = {
        /* IPv6 literals: brackets stay in the host; the port must still match */
        {"[::1]:5000", "[::1]:5000/img", true},
        {"[::1]", "[::1]:5000/img", false},
        {"[::1]:5000", "[::1]:5001/img", false},
        /* without a port the brackets stay in the label, where Go's Match reads them as a character class */
        {"[fd00::1]", "[fd00::1]/img", false},
        /* IPv4 with a glob in the last label, or in every label */
        {"*.*.*.*", "192.168.1.10/img", true},
        {"*.*.*", "192.168.1.10/img", false},
        /* globs in the TLD and character classes */
        {"registry.*", "registry.io/x", true},
        {"registry.i[a-o]", "registry.io/x", true},
        {"registry.i[^o]", "registry.io/x", false},
        {"registry.[", "registry.io/x", false},    /* bad pattern: no match */
        {"registry.i\\o", "registry.io/x", false}, /* '\\' is not allowed in a URL host */
        /* uppercase is compared as is */
        {"registry.io", "REGISTRY.io/x", false},
        {"Registry.IO", "Registry.IO/x", true},
        {"*.IO", "registry.IO/x", true},
        /* the path prefix is a raw, percent-decoded string prefix; ? and # end the path */
        {"registry.io/a%20b", "registry.io/a b/c", true},
        {"registry.io/team", "registry.io/team?x=1", true},
        {"registry.io/team?y", "registry.io/team/app", true},
        {"registry.io/team#frag", "registry.io/team/app", true},
        {"registry.io/", "registry.io", false},
        /* userinfo is dropped from the host */
        {"user@registry.io", "registry.io/x", true},
        /* an empty port equals no port */
        {"registry.io:", "registry.io/x", true},
        /* the target must parse too */
        {"*", "%zz/img", false},
        {"*.io", "bad host.io/x", false},
    };
    check_cases(c, sizeof c / sizeof c[0]);
}

static void url_parse_errors(void **state)
{
    static const struct {
        const char *in, *msg;
    } c[] = {
        {"%invalid%", "parse \"https://%invalid%\": invalid URL escape \"%in\""},
        {"registry.io:*", "parse \"https://registry.io:*\": invalid port \":*\" after host"},
        {"registry.io:80a/x", "parse \"https://registry.io:80a/x\": invalid port \":80a\" after host"},
        {"[::1", "parse \"https://[::1\": missing ']' in host"},
        {"bad host.io", "parse \"https://bad host.io\": invalid character \" \" in host name"},
        {"registry.io/%zz", "parse \"https://registry.io/%zz\": invalid URL escape \"%zz\""},
        {"registry.io/a%2", "parse \"https://registry.io/a%2\": invalid URL escape \"%2\""},
        {"reg\x01istry", "parse \"https://reg\\x01istry\": net/url: invalid control character in URL"},
        {"a{b}.io", "parse \"https://a{b}.io\": invalid character \"{\" in host name"},
        {"registry.io/x#%zz", "parse \"https://registry.io/x#%zz\": invalid URL escape \"%zz\""},
    };
    kg_arena a;
    kg_arena_init(&a, 0);
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        kg_cred_url u;
        kg_error e = {0};
        if (kg_credentialprovider_parse_schemeless_url(&a, c[i].in, &u, &e))
            fail_msg("%s parsed", c[i].in);
        assert_string_equal(e.msg, c[i].msg);
    }
    kg_cred_url u;
    assert_true(kg_credentialprovider_parse_schemeless_url(&a, "u:p@*.Reg.io:443/v2/a%2Fb?q#f", &u, NULL));
    assert_string_equal(u.host, "*.Reg.io:443");
    assert_string_equal(u.path, "/v2/a/b");
    assert_true(kg_credentialprovider_parse_schemeless_url(&a, "[fe80::1%25eth0]:80", &u, NULL));
    assert_string_equal(u.host, "[fe80::1%eth0]:80");
    kg_arena_free(&a);
}

static void glob_match_go_semantics(void **state)
{
    bool bad;
    assert_true(kg_credentialprovider_glob_match("*", "", &bad));
    assert_true(kg_credentialprovider_glob_match("a*b*c", "aXbYYc", &bad));
    assert_false(kg_credentialprovider_glob_match("a*b", "a/b", &bad)); /* * does not cross / */
    assert_false(kg_credentialprovider_glob_match("*", "a/b", &bad));
    assert_true(kg_credentialprovider_glob_match("?x", "yx", &bad));
    assert_true(kg_credentialprovider_glob_match("[a-c]*", "beta", &bad));
    assert_true(kg_credentialprovider_glob_match("\\*", "*", &bad));
    assert_false(kg_credentialprovider_glob_match("[", "a", &bad));
    assert_true(bad);
    assert_false(kg_credentialprovider_glob_match("a[", "a", &bad));
    assert_true(bad);
    assert_false(kg_credentialprovider_glob_match("x*[", "y", &bad)); /* Go validates the rest on a miss */
    assert_true(bad);
    assert_false(kg_credentialprovider_glob_match("[]a]", "]", &bad));
    assert_true(bad);
    assert_true(kg_credentialprovider_glob_match("[\\]a]", "]", &bad));
    assert_false(bad);
    assert_true(kg_credentialprovider_glob_match("*c", "abc", &bad));
    assert_false(kg_credentialprovider_glob_match("*c", "abcd", &bad));
}

static void go_durations(void **state)
{
    static const struct {
        const char *in;
        int64_t ns;
    } ok[] = {
        {"0", 0},
        {"0s", 0},
        {"12h", INT64_C(12) * 3600 * KG_CRED_SECOND},
        {"1h30m", INT64_C(5400) * KG_CRED_SECOND},
        {"1.5s", INT64_C(1500000000)},
        {"-1m", -INT64_C(60) * KG_CRED_SECOND},
        {"+5m", INT64_C(300) * KG_CRED_SECOND},
        {"300ms", INT64_C(300000000)},
        {"2us", 2000},
        {"2\xc2\xb5s", 2000},
        {"7ns", 7},
        {".5h", INT64_C(1800) * KG_CRED_SECOND},
        {"1h2m3.004s", INT64_C(3723004000000)},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int64_t ns = -42;
        kg_error e = {0};
        if (!kg_credentialprovider_parse_duration(ok[i].in, &ns, &e))
            fail_msg("%s: %s", ok[i].in, e.msg);
        assert_int_equal(ns, ok[i].ns);
    }
    static const struct {
        const char *in, *msg;
    } bad[] = {
        {"", "time: invalid duration \"\""},
        {"12", "time: missing unit in duration \"12\""},
        {"1d", "time: unknown unit \"d\" in duration \"1d\""},
        {"abc", "time: invalid duration \"abc\""},
        {".s", "time: invalid duration \".s\""},
        {"-", "time: invalid duration \"-\""},
        {"9999999999999999999h", "time: invalid duration \"9999999999999999999h\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t ns;
        kg_error e = {0};
        assert_false(kg_credentialprovider_parse_duration(bad[i].in, &ns, &e));
        assert_string_equal(e.msg, bad[i].msg);
    }
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_string_equal(kg_credentialprovider_format_duration(&a, 0), "0s");
    assert_string_equal(kg_credentialprovider_format_duration(&a, -60 * KG_CRED_SECOND), "-1m0s");
    assert_string_equal(kg_credentialprovider_format_duration(&a, INT64_C(6) * 3600 * KG_CRED_SECOND), "6h0m0s");
    assert_string_equal(kg_credentialprovider_format_duration(&a, INT64_C(1500000000)), "1.5s");
    assert_string_equal(kg_credentialprovider_format_duration(&a, INT64_C(300000000)), "300ms");
    assert_string_equal(kg_credentialprovider_format_duration(&a, 2000), "2\xc2\xb5s");
    assert_string_equal(kg_credentialprovider_format_duration(&a, 7), "7ns");
    assert_string_equal(kg_credentialprovider_format_duration(&a, INT64_C(3723004000000)), "1h2m3.004s");
    assert_string_equal(kg_credentialprovider_format_duration(&a, INT64_MIN), "-2562047h47m16.854775808s");
    kg_arena_free(&a);
}

static void image_normalisation(void **state)
{
    static const struct {
        const char *in, *out;
    } c[] = {
        {"nginx", "docker.io/library/nginx"},
        {"nginx:1.25", "docker.io/library/nginx"},
        {"foo/bar@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "docker.io/foo/bar"},
        {"localhost:5000/x:1", "localhost:5000/x"},
        {"localhost/x", "localhost/x"},
        {"index.docker.io/nginx", "docker.io/library/nginx"},
        {"docker.io/team/app:v1", "docker.io/team/app"},
        {"registry.k8s.io/pause:3.9", "registry.k8s.io/pause"},
        {"123456789012.dkr.ecr.us-east-1.amazonaws.com/app:latest", "123456789012.dkr.ecr.us-east-1.amazonaws.com/app"},
        {"[::1]:5000/img:tag", "[::1]:5000/img"},
        {"10.0.0.5:5000/a/b/c", "10.0.0.5:5000/a/b/c"},
        {"Registry.IO/team/app", "Registry.IO/team/app"},
        {"a__b/c--d", "docker.io/a__b/c--d"},
    };
    kg_arena a;
    kg_arena_init(&a, 0);
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        kg_error e = {0};
        char *n = kg_credentialprovider_normalize_image(&a, c[i].in, &e);
        if (!n)
            fail_msg("%s: %s", c[i].in, e.msg);
        assert_string_equal(n, c[i].out);
    }
    static const struct {
        const char *in, *msg;
    } bad[] = {
        {"", "repository name must have at least one component"},
        {"Nginx", "invalid reference format: repository name (library/Nginx) must be lowercase"},
        {"registry.io/Team/app", "invalid reference format: repository name (Team/app) must be lowercase"},
        {"registry.io/app:", "invalid reference format"},
        {"registry.io/-app", "invalid reference format"},
        {"registry.io//app", "invalid reference format"},
        {"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
         "invalid repository name (0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef), cannot specify "
         "64-byte hexadecimal strings"},
        {"app@sha256:abc", "invalid reference format"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kg_error e = {0};
        if (kg_credentialprovider_normalize_image(&a, bad[i].in, &e))
            fail_msg("%s normalised", bad[i].in);
        assert_string_equal(e.msg, bad[i].msg);
    }
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(upstream_urls_match_table),
        cmocka_unit_test(reference_worked_examples),
        cmocka_unit_test(edge_cases),
        cmocka_unit_test(url_parse_errors),
        cmocka_unit_test(glob_match_go_semantics),
        cmocka_unit_test(go_durations),
        cmocka_unit_test(image_normalisation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
