/* Structural schemas of CRDs: OpenAPI v3 validation messages (upstream's texts), pruning, defaulting, Go value
 * printing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "apiext/schema.h"

static kg_arena A;
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

static kg_json *J(const char *s)
{
    kg_error err;
    kg_json *v = kg_json_parse(&A, s, strlen(s), &err);
    if (!v)
        fail_msg("bad test JSON: %s (%s)", err.msg, s);
    return v;
}

static const char *S(const kg_json *v)
{
    return kg_json_to_string(&A, v, KG_JSON_WRITE_NO_ESCAPE_HTML, NULL);
}

/* The aggregate error text of validating value against schema at path. */
static const char *validate(const char *schema, const char *value, const char *path)
{
    kg_xs *s = kg_xs_compile(&A, J(schema));
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_xs_validate(&A, s, J(value), path, &errs);
    const char *agg = kg_field_errors_aggregate(&A, &errs);
    return agg ? agg : "";
}

static void validator_messages(void **state)
{
    static const struct {
        const char *schema, *value, *path, *want;
    } cases[] = {
        {"{\"type\":\"integer\"}", "\"x\"", "spec.replicas",
         "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\""},
        {"{\"type\":\"integer\"}", "1.5", "spec.replicas",
         "spec.replicas: Invalid value: \"number\": spec.replicas in body must be of type integer: \"number\""},
        {"{\"type\":\"number\"}", "3", "spec.x", ""},
        {"{\"type\":\"string\"}", "null", "spec.s",
         "spec.s: Invalid value: \"null\": spec.s in body must be of type string: \"null\""},
        {"{\"type\":\"string\",\"nullable\":true}", "null", "spec.s", ""},
        {"{\"x-kubernetes-int-or-string\":true}", "true", "spec.port",
         "spec.port: Invalid value: \"boolean\": spec.port in body must be of type integer,string: \"boolean\""},
        {"{\"x-kubernetes-int-or-string\":true}", "\"80%\"", "spec.port", ""},
        {"{\"type\":\"object\",\"required\":[\"foo\"],\"properties\":{\"foo\":{\"type\":\"string\"}}}", "{}", "spec",
         "spec.foo: Required value"},
        {"{\"type\":\"string\",\"enum\":[\"red\",\"blue\"]}", "\"pink\"", "spec.color",
         "spec.color: Unsupported value: \"pink\": supported values: \"red\", \"blue\""},
        {"{\"type\":\"integer\",\"enum\":[1,2]}", "3", "spec.n",
         "spec.n: Unsupported value: 3: supported values: 1, 2"},
        {"{\"type\":\"string\",\"maxLength\":5}", "\"abcdef\"", "spec.name",
         "spec.name: Too long: may not be more than 5 bytes"},
        {"{\"type\":\"string\",\"minLength\":3}", "\"ab\"", "spec.name",
         "spec.name: Invalid value: \"ab\": spec.name in body should be at least 3 chars long"},
        {"{\"type\":\"array\",\"maxItems\":3,\"items\":{\"type\":\"integer\"}}", "[1,2,3,4]", "spec.list",
         "spec.list: Too many: 4: must have at most 3 items"},
        {"{\"type\":\"array\",\"minItems\":2,\"items\":{\"type\":\"string\"}}", "[\"a\"]", "spec.list",
         "spec.list: Invalid value: []interface {}{\"a\"}: spec.list in body should have at least 2 items"},
        {"{\"type\":\"object\",\"maxProperties\":1,\"additionalProperties\":{\"type\":\"string\"}}",
         "{\"a\":\"1\",\"b\":\"2\"}", "spec.m", "spec.m: Too many: 2: must have at most 1 item"},
        {"{\"type\":\"object\",\"minProperties\":2,\"additionalProperties\":{\"type\":\"string\"}}", "{\"a\":\"1\"}",
         "spec.m",
         "spec.m: Invalid value: map[string]interface {}{\"a\":\"1\"}: spec.m in body should have at least 2 "
         "properties"},
        {"{\"type\":\"string\",\"pattern\":\"^[a-z]+$\"}", "\"A1\"", "spec.x",
         "spec.x: Invalid value: \"A1\": spec.x in body should match '^[a-z]+$'"},
        {"{\"type\":\"integer\",\"maximum\":10}", "15", "spec.replicas",
         "spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10"},
        {"{\"type\":\"integer\",\"maximum\":10,\"exclusiveMaximum\":true}", "10", "spec.replicas",
         "spec.replicas: Invalid value: 10: spec.replicas in body should be less than 10"},
        {"{\"type\":\"integer\",\"minimum\":1}", "0", "spec.replicas",
         "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1"},
        {"{\"type\":\"number\",\"minimum\":0.5,\"exclusiveMinimum\":true}", "0.5", "status.num",
         "status.num: Invalid value: 0.5: status.num in body should be greater than 0.5"},
        {"{\"type\":\"integer\",\"multipleOf\":3}", "7", "spec.n",
         "spec.n: Invalid value: 7: spec.n in body should be a multiple of 3"},
        {"{\"type\":\"string\",\"format\":\"date-time\"}", "\"yesterday\"", "spec.t",
         "spec.t: Invalid value: \"yesterday\": spec.t in body must be of type date-time: \"yesterday\""},
        {"{\"type\":\"string\",\"format\":\"date-time\"}", "\"2024-01-02T03:04:05Z\"", "spec.t", ""},
        {"{\"type\":\"string\",\"format\":\"uuid\"}", "\"1b4e28ba-2fa1-11d2-883f-0016d3cca427\"", "spec.u", ""},
        {"{\"type\":\"array\",\"x-kubernetes-list-type\":\"set\",\"items\":{\"type\":\"string\"}}",
         "[\"a\",\"b\",\"a\"]", "spec.tags", "spec.tags[2]: Duplicate value: \"a\""},
        {"{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":[\"name\"],"
         "\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"port\":{\"type\":"
         "\"integer\"}}}}",
         "[{\"name\":\"a\",\"port\":1},{\"name\":\"a\",\"port\":2}]", "spec.ports",
         "spec.ports[1]: Duplicate value: map[string]interface {}{\"name\":\"a\"}"},
        {"{\"type\":\"object\",\"x-kubernetes-embedded-resource\":true,\"x-kubernetes-preserve-unknown-fields\":true}",
         "{}", "spec.template",
         "[spec.template.apiVersion: Required value: must not be empty, spec.template.kind: Required value: must not "
         "be empty]"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"string\"}}}",
         "{\"a\":\"x\",\"b\":1}", "spec",
         "[spec.a: Invalid value: \"string\": spec.a in body must be of type integer: \"string\", spec.b: Invalid "
         "value: \"integer\": spec.b in body must be of type string: \"integer\"]"},
        {"{\"type\":\"object\",\"properties\":{\"items\":{\"type\":\"array\",\"items\":{\"type\":\"integer\","
         "\"maximum\":2}}}}",
         "{\"items\":[1,5]}", "spec",
         "spec.items[1]: Invalid value: 5: spec.items[1] in body should be less than or equal to 2"},
        {"{\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"string\"}]}", "true", "spec.x",
         "spec.x: Invalid value: true: spec.x in body must validate at least one schema (anyOf)"},
        {"{\"type\":\"integer\",\"not\":{\"enum\":[0]}}", "0", "spec.x",
         "spec.x: Invalid value: 0: spec.x in body must not validate the schema (not)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = validate(cases[i].schema, cases[i].value, cases[i].path);
        if (strcmp(got, cases[i].want))
            fail_msg("case %zu (%s on %s):\n want: %s\n  got: %s", i, cases[i].schema, cases[i].value, cases[i].want,
                     got);
    }
}

static const char CRONTAB[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"spec\":{\"type\":\"object\",\"properties\":{"
    "  \"cronSpec\":{\"type\":\"string\"},"
    "  \"replicas\":{\"type\":\"integer\",\"default\":1},"
    "  \"mode\":{\"type\":\"string\",\"default\":\"fast\"},"
    "  \"opts\":{\"type\":\"object\",\"default\":{\"a\":1},\"properties\":{\"a\":{\"type\":\"integer\"},"
    "           \"b\":{\"type\":\"integer\",\"default\":2}}},"
    "  \"labels\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
    "  \"free\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true,"
    "           \"properties\":{\"known\":{\"type\":\"object\",\"properties\":{\"k\":{\"type\":\"string\"}}}}},"
    "  \"workers\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "       \"name\":{\"type\":\"string\"},\"size\":{\"type\":\"integer\",\"default\":3}}}},"
    "  \"template\":{\"type\":\"object\",\"x-kubernetes-embedded-resource\":true,"
    "       \"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"}}}}}"
    "}},"
    "\"status\":{\"type\":\"object\",\"properties\":{\"ready\":{\"type\":\"boolean\"}}}}}";

static void pruning(void **state)
{
    kg_xs *s = kg_xs_compile(&A, J(CRONTAB));
    kg_json *obj = J("{\"apiVersion\":\"stable.example.com/v1\",\"kind\":\"CronTab\","
                     "\"metadata\":{\"name\":\"x\",\"labels\":{\"a\":\"b\"}},"
                     "\"spec\":{\"cronSpec\":\"* * * * *\",\"bogus\":1,\"labels\":{\"any\":\"v\"},"
                     "\"free\":{\"whatever\":{\"deep\":1},\"known\":{\"k\":\"v\",\"drop\":true}},"
                     "\"workers\":[{\"name\":\"a\",\"extra\":\"y\"}],"
                     "\"template\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},"
                     "\"spec\":{\"x\":\"1\",\"y\":\"2\"},\"junk\":1},"
                     "\"replicas\":null},"
                     "\"status\":{\"ready\":true,\"other\":1},\"top\":1}");
    const char **paths = NULL;
    size_t n = 0;
    kg_xs_prune(&A, s, obj, &paths, &n);
    const char *want[] = {"spec.bogus",
                          "spec.free.known.drop",
                          "spec.workers[0].extra",
                          "spec.template.spec.y",
                          "spec.template.junk",
                          "status.other",
                          "top"};
    assert_int_equal(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(paths[i], want[i]);
    assert_string_equal(S(obj), "{\"apiVersion\":\"stable.example.com/v1\",\"kind\":\"CronTab\","
                                "\"metadata\":{\"name\":\"x\",\"labels\":{\"a\":\"b\"}},"
                                "\"spec\":{\"cronSpec\":\"* * * * *\",\"labels\":{\"any\":\"v\"},"
                                "\"free\":{\"whatever\":{\"deep\":1},\"known\":{\"k\":\"v\"}},"
                                "\"workers\":[{\"name\":\"a\"}],"
                                "\"template\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},"
                                "\"spec\":{\"x\":\"1\"}},"
                                "\"replicas\":null},"
                                "\"status\":{\"ready\":true}}");
}

static void defaulting(void **state)
{
    kg_xs *s = kg_xs_compile(&A, J(CRONTAB));
    kg_json *obj = J("{\"spec\":{\"replicas\":null,\"workers\":[{\"name\":\"a\"},{\"name\":\"b\",\"size\":1}]}}");
    kg_xs_default(&A, s, obj);
    assert_string_equal(S(obj), "{\"spec\":{\"replicas\":1,\"workers\":[{\"name\":\"a\",\"size\":3},{\"name\":\"b\","
                                "\"size\":1}],\"mode\":\"fast\",\"opts\":{\"a\":1,\"b\":2}}}");
    /* idempotent */
    kg_xs_default(&A, s, obj);
    assert_string_equal(S(obj), "{\"spec\":{\"replicas\":1,\"workers\":[{\"name\":\"a\",\"size\":3},{\"name\":\"b\","
                                "\"size\":1}],\"mode\":\"fast\",\"opts\":{\"a\":1,\"b\":2}}}");
    /* no spec: nothing to default into (spec itself has no default) */
    kg_json *empty = J("{}");
    kg_xs_default(&A, s, empty);
    assert_string_equal(S(empty), "{}");
    /* the default is a copy: changing one object does not change the schema's */
    kg_json *o2 = J("{\"spec\":{}}");
    kg_xs_default(&A, s, o2);
    kg_json_set(&A, kg_json_path(o2, "spec.opts"), "a", kg_json_new_int(&A, 9));
    kg_json *o3 = J("{\"spec\":{}}");
    kg_xs_default(&A, s, o3);
    assert_int_equal(kg_json_path(o3, "spec.opts.a")->u.i, 1);
}

static void go_printing(void **state)
{
    assert_string_equal(kg_xs_go_repr(&A, J("{\"b\":1,\"a\":[true,null,\"x\",1.5]}")),
                        "map[string]interface {}{\"a\":[]interface {}{true, interface {}(nil), \"x\", 1.5}, \"b\":1}");
    assert_string_equal(kg_xs_go_float(&A, 10), "10");
    assert_string_equal(kg_xs_go_float(&A, 0.1), "0.1");
    assert_string_equal(kg_xs_go_float(&A, 1e21), "1e+21");
    assert_string_equal(kg_xs_go_float(&A, 123456789.0), "123456789");
    assert_string_equal(kg_xs_go_float(&A, 0.00001), "1e-05");
}

static void field_paths(void **state)
{
    (void)state;
    assert_string_equal(kg_xs_child_path(&A, "", "spec"), "spec");
    assert_string_equal(kg_xs_child_path(&A, "spec", "image"), "spec.image");
    assert_string_equal(kg_xs_child_path(&A, "spec.items[3]", "name"), "spec.items[3].name");
    assert_string_equal(kg_xs_index_path(&A, "spec.items", 0), "spec.items[0]");
    assert_string_equal(kg_xs_index_path(&A, "spec.items", 4294967295u), "spec.items[4294967295]");
    assert_string_equal(kg_xs_index_path(&A, "", 12), "[12]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(validator_messages, setup, teardown),
        cmocka_unit_test_setup_teardown(pruning, setup, teardown),
        cmocka_unit_test_setup_teardown(defaulting, setup, teardown),
        cmocka_unit_test_setup_teardown(go_printing, setup, teardown),
        cmocka_unit_test_setup_teardown(field_paths, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
