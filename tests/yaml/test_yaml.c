/* YAML → JSON as sigs.k8s.io/yaml (go-yaml v2) does it. Expected outputs follow go-yaml v2's resolve table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "yaml/yaml.h"

static kg_arena A;

static char *to_json(const char *yaml)
{
    kg_error err;
    kg_json *v = kg_yaml_parse(&A, yaml, strlen(yaml), &err);
    if (!v)
        fail_msg("parse failed for <%s>: %s", yaml, err.msg);
    return kg_json_to_string(&A, v, KG_JSON_WRITE_NO_ESCAPE_HTML, NULL);
}

static int setup(void **s)
{
    kg_arena_init(&A, 0);
    return 0;
}
static int teardown(void **s)
{
    kg_arena_free(&A);
    return 0;
}

static void scalars_follow_go_yaml_v2(void **state)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"a: yes", "{\"a\":true}"},
        {"a: No", "{\"a\":false}"},
        {"a: on", "{\"a\":true}"},
        {"a: OFF", "{\"a\":false}"},
        {"a: y", "{\"a\":true}"},
        {"a: n", "{\"a\":false}"},
        {"a: True", "{\"a\":true}"},
        {"a: 0644", "{\"a\":420}"},
        {"a: 0x1F", "{\"a\":31}"},
        {"a: 0b101", "{\"a\":5}"},
        {"a: 0o17", "{\"a\":15}"},
        {"a: 1_000", "{\"a\":1000}"},
        {"a: -42", "{\"a\":-42}"},
        {"a: +7", "{\"a\":7}"},
        {"a: 1e3", "{\"a\":1000}"},
        {"a: 1.5", "{\"a\":1.5}"},
        {"a: .5", "{\"a\":0.5}"},
        {"a: 08", "{\"a\":8}"},
        {"a: ~", "{\"a\":null}"},
        {"a: null", "{\"a\":null}"},
        {"a:", "{\"a\":null}"},
        {"a: \"yes\"", "{\"a\":\"yes\"}"},
        {"a: '0644'", "{\"a\":\"0644\"}"},
        {"a: !!str 123", "{\"a\":\"123\"}"},
        {"a: 1:30", "{\"a\":\"1:30\"}"},
        {"a: 9223372036854775807", "{\"a\":9223372036854775807}"},
        {"a: 18446744073709551615", "{\"a\":18446744073709551615}"},
        /* beyond int64 in other bases or with '_': go-yaml's uint, written as its decimal digits (found by fuzzing) */
        {"a: 0xaCCCCCCCCCCCCCCC", "{\"a\":12451552249753947340}"},
        {"a: 0xFFFF_FFFF_FFFF_FFFF", "{\"a\":18446744073709551615}"},
        {"a: 0b1000000000000000000000000000000000000000000000000000000000000000", "{\"a\":9223372036854775808}"},
        {"a: 01777777777777777777777", "{\"a\":18446744073709551615}"},
        {"a: 9_223_372_036_854_775_808", "{\"a\":9223372036854775808}"},
        {"a: 2001-12-14", "{\"a\":\"2001-12-14T00:00:00Z\"}"},
        {"a: hello world", "{\"a\":\"hello world\"}"},
        {"a: 500m", "{\"a\":\"500m\"}"},
        {"a: 128Mi", "{\"a\":\"128Mi\"}"},
        {"a: '-'", "{\"a\":\"-\"}"},
        {"1: one\ntrue: t\n~: n", "{\"1\":\"one\",\"true\":\"t\",\"null\":false}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = to_json(cases[i].in);
        if (strcmp(got, cases[i].out) != 0)
            fail_msg("case %zu <%s>: got %s want %s", i, cases[i].in, got, cases[i].out);
    }
}

static void block_styles_and_nesting(void **state)
{
    const char *y = "apiVersion: v1\n"
                    "kind: ConfigMap\n"
                    "metadata:\n"
                    "  name: cfg\n"
                    "  labels: {app: web, tier: \"fe\"}\n"
                    "data:\n"
                    "  literal: |\n"
                    "    line1\n"
                    "    line2\n"
                    "  folded: >\n"
                    "    a\n"
                    "    b\n"
                    "  list:\n"
                    "  - x\n"
                    "  - [1, 2]\n";
    assert_string_equal(to_json(y),
                        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cfg\","
                        "\"labels\":{\"app\":\"web\",\"tier\":\"fe\"}},\"data\":{\"literal\":\"line1\\nline2\\n\","
                        "\"folded\":\"a b\\n\",\"list\":[\"x\",[1,2]]}}");
}

static void anchors_aliases_and_merge(void **state)
{
    const char *y = "base: &b {cpu: 1, mem: 2}\n"
                    "copy: *b\n"
                    "merged:\n"
                    "  <<: *b\n"
                    "  mem: 3\n";
    assert_string_equal(to_json(y), "{\"base\":{\"cpu\":1,\"mem\":2},\"copy\":{\"cpu\":1,\"mem\":2},"
                                    "\"merged\":{\"mem\":3,\"cpu\":1}}");
    kg_error err;
    assert_null(kg_yaml_parse(&A, "a: *nope", 8, &err));
    assert_string_equal(err.msg, "yaml: unknown anchor 'nope' referenced");
}

static void billion_laughs_is_bounded(void **state)
{
    /* each level multiplies by 9: 9^9 ≈ 387M nodes if expanded */
    const char *y = "a: &a [x,x,x,x,x,x,x,x,x]\n"
                    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
                    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
                    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
                    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
                    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
                    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
                    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n";
    kg_error err;
    assert_null(kg_yaml_parse(&A, y, strlen(y), &err));
    assert_string_equal(err.msg, "yaml: document contains excessive aliasing");
}

static void multi_document_streams(void **state)
{
    const char *y = "---\na: 1\n---\n# only a comment\n---\nb: 2\n...\n---\n";
    kg_error err;
    kg_json *docs = kg_yaml_parse_all(&A, y, strlen(y), &err);
    assert_non_null(docs);
    assert_int_equal(docs->len, 2);
    assert_string_equal(kg_json_to_string(&A, docs, 0, NULL), "[{\"a\":1},{\"b\":2}]");
    /* single-document parse takes the first */
    assert_string_equal(to_json("x: 1\n---\ny: 2\n"), "{\"x\":1}");
    assert_string_equal(to_json(""), "null");
}

static void errors_carry_line_numbers(void **state)
{
    kg_error err;
    const char *bad = "a: 1\nb: [1, 2\nc: 3\n";
    assert_null(kg_yaml_parse(&A, bad, strlen(bad), &err));
    assert_non_null(strstr(err.msg, "yaml: line "));
    const char *bad2 = "a: b: c\n";
    assert_null(kg_yaml_parse(&A, bad2, strlen(bad2), &err));
    assert_string_equal(err.msg, "yaml: line 1: mapping values are not allowed in this context");
    assert_null(kg_yaml_parse(&A, "a: .inf", 7, &err));
    assert_string_equal(err.msg, "json: unsupported value: +Inf");
    assert_null(kg_yaml_parse(&A, "? [a]\n: x\n", 10, &err));
    assert_non_null(strstr(err.msg, "unsupported map key"));
}

static void json_fast_path(void **state)
{
    kg_error err;
    const char *j = "  {\"a\": [1, 2.5, \"x\"], \"b\": {\"c\": null}}";
    kg_json *v = kg_yaml_or_json_parse(&A, j, strlen(j), &err);
    assert_non_null(v);
    assert_string_equal(kg_json_to_string(&A, v, 0, NULL), "{\"a\":[1,2.5,\"x\"],\"b\":{\"c\":null}}");
    /* YAML flow mapping that is not JSON still parses */
    v = kg_yaml_or_json_parse(&A, "{a: 1}", 6, &err);
    assert_non_null(v);
    assert_string_equal(kg_json_to_string(&A, v, 0, NULL), "{\"a\":1}");
    v = kg_yaml_or_json_parse(&A, "kind: Pod", 9, &err);
    assert_string_equal(kg_json_path_str(v, "kind"), "Pod");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scalars_follow_go_yaml_v2),
        cmocka_unit_test(block_styles_and_nesting),
        cmocka_unit_test(anchors_aliases_and_merge),
        cmocka_unit_test(billion_laughs_is_bounded),
        cmocka_unit_test(multi_document_streams),
        cmocka_unit_test(errors_carry_line_numbers),
        cmocka_unit_test(json_fast_path),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
