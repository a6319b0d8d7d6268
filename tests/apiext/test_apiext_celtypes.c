/* CEL types of structural schemas (apiext/celtypes.h): the type mapping (objects, maps, lists, formats,
 * int-or-string, preserved unknown fields, embedded resources, escaped names), size bounds, the typed view of values,
 * and cost estimates compared with upstream's figures (apiextensions-apiserver pkg/apiserver/schema/cel
 * compilation_test.go TestCostEstimation: the rule's estimated MaxCost on a non-root schema). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "apiext/celtypes.h"
#include "apiext/schema.h"
#include "cel/cel_json.h"

static kg_arena A;
static cel_env *E;

static int setup(void **s)
{
    kg_arena_init(&A, 0);
    E = cel_env_new(CEL_LIB_K8S);
    cel_env_set_options(E, CEL_OPT_K8S);
    cel_env_declare_var(E, "self", cel_type_dyn());
    return 0;
}
static int teardown(void **s)
{
    cel_env_free(E);
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

static const kg_xs_decl *decl(const char *schema, bool root)
{
    return kg_xs_decl_build(E, &A, kg_xs_compile_nodes(&A, J(schema)), root, "selfType");
}

static const char *fmt(const cel_type *t)
{
    static char buf[256];
    return cel_type_format(t, buf, sizeof buf);
}

/* The field names of an object type, in order, joined with ',' (the closing "" field left out). */
static const char *fields(const cel_type *t)
{
    kg_buf b = KG_BUF_INIT;
    for (size_t i = 0; i < t->nfields; i++)
        if (t->field_names[i][0])
            kg_buf_printf(&b, "%s%s", b.len ? "," : "", t->field_names[i]);
    const char *s = kg_arena_strndup(&A, b.data ? b.data : "", b.len);
    kg_buf_free(&b);
    return s;
}

static void type_mapping(void **state)
{
    const kg_xs_decl *d =
        decl("{\"type\":\"object\",\"properties\":{"
             "\"i\":{\"type\":\"integer\"},\"n\":{\"type\":\"number\"},\"b\":{\"type\":\"boolean\"},"
             "\"s\":{\"type\":\"string\",\"maxLength\":10},"
             "\"by\":{\"type\":\"string\",\"format\":\"byte\"},\"du\":{\"type\":\"string\",\"format\":\"duration\"},"
             "\"dt\":{\"type\":\"string\",\"format\":\"date-time\"},\"da\":{\"type\":\"string\",\"format\":\"date\"},"
             "\"ios\":{\"x-kubernetes-int-or-string\":true},"
             "\"m\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"},\"maxProperties\":7},"
             "\"l\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
             "\"free\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true},"
             "\"emb\":{\"type\":\"object\",\"x-kubernetes-embedded-resource\":true,"
             "  \"x-kubernetes-preserve-unknown-fields\":true},"
             "\"notype\":{\"description\":\"x\"},"
             "\"foo-bar\":{\"type\":\"string\"},\"namespace\":{\"type\":\"string\"},\"a b\":{\"type\":\"string\"}"
             "}}",
             true);
    assert_non_null(d);
    assert_int_equal(d->kind, KG_XD_OBJECT);
    assert_string_equal(fmt(d->type), "selfType");
    /* the root: apiVersion, kind and metadata besides the properties; unescapable names and untyped schemas are
     * not visible */
    assert_string_equal(fields(d->type), "i,n,b,s,by,du,dt,da,ios,m,l,free,emb,foo__dash__bar,__namespace__,"
                                         "apiVersion,kind,metadata");
    struct {
        const char *field, *type;
    } want[] = {{"i", "int"},
                {"n", "double"},
                {"b", "bool"},
                {"s", "string"},
                {"by", "bytes"},
                {"du", "google.protobuf.Duration"},
                {"dt", "google.protobuf.Timestamp"},
                {"da", "google.protobuf.Timestamp"},
                {"ios", "dyn"},
                {"m", "map(string, int)"},
                {"l", "list(string)"},
                {"free", "selfType.free"},
                {"emb", "selfType.emb"},
                {"foo__dash__bar", "string"},
                {"__namespace__", "string"},
                {"metadata", "selfType.metadata"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const kg_xs_decl *f = kg_xs_decl_field(d, want[i].field);
        assert_non_null(f);
        if (strcmp(fmt(f->type), want[i].type))
            fail_msg("%s: %s, want %s", want[i].field, fmt(f->type), want[i].type);
    }
    /* preserve-unknown-fields: no field is visible; an embedded resource shows its type and object meta */
    assert_string_equal(fields(kg_xs_decl_field(d, "free")->type), "");
    assert_string_equal(fields(kg_xs_decl_field(d, "emb")->type), "apiVersion,kind,metadata");
    assert_string_equal(fields(kg_xs_decl_field(d, "metadata")->type), "name,generateName");
    assert_null(kg_xs_decl_field(d, "notype"));
    /* size bounds: maxLength x 4 bytes, maxProperties, unbounded lists from the request size */
    assert_int_equal(kg_xs_decl_field(d, "s")->max_elements, 40);
    assert_int_equal(kg_xs_decl_field(d, "m")->max_elements, 7);
    assert_int_equal(kg_xs_decl_field(d, "l")->max_elements, (3 * 1024 * 1024 - 2) / 3);
    assert_int_equal(kg_xs_decl_field(d, "ios")->max_elements, 3 * 1024 * 1024 - 2);
    /* arrays without items are not visible */
    assert_null(decl("{\"type\":\"array\"}", false));
}

/* Compile src with self typed by d and evaluate it over the typed view of the JSON value. */
static const char *eval(const kg_xs_decl *d, const char *value, const char *src)
{
    cel_env_redeclare_var(E, "self", d->type);
    cel_program *p;
    cel_error err;
    if (!cel_compile(E, src, NULL, &p, &err))
        return kg_arena_sprintf(&A, "compile: %s", err.message);
    cel_value v = kg_xs_decl_value(&A, d, J(value)), out;
    cel_eval_status st = cel_eval_slots(p, &A, &v, 1, CEL_NO_COST_LIMIT, &out, NULL);
    const char *r = st == CEL_EVAL_OK ? cel_value_debug(&A, &out) : cel_error_message(&out);
    r = kg_arena_strdup(&A, r);
    cel_program_free(p);
    return r;
}

static void typed_values(void **state)
{
    const kg_xs_decl *d = decl("{\"type\":\"object\",\"properties\":{"
                               "\"n\":{\"type\":\"number\"},\"dt\":{\"type\":\"string\",\"format\":\"date-time\"},"
                               "\"da\":{\"type\":\"string\",\"format\":\"date\"},"
                               "\"du\":{\"type\":\"string\",\"format\":\"duration\"},"
                               "\"by\":{\"type\":\"string\",\"format\":\"byte\"},"
                               "\"foo-bar\":{\"type\":\"integer\"},"
                               "\"l\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"format\":\"duration\"}},"
                               "\"m\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"number\"}},"
                               "\"free\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true,"
                               "  \"properties\":{\"a\":{\"type\":\"integer\"}}}}}",
                               false);
    const char *obj = "{\"n\":1,\"dt\":\"2024-05-06T07:08:09Z\",\"da\":\"2024-05-06\",\"du\":\"1h30m\","
                      "\"by\":\"aGk=\",\"foo-bar\":3,\"l\":[\"1s\",\"2m\"],\"m\":{\"x\":2},"
                      "\"free\":{\"a\":1,\"hidden\":2}}";
    /* numbers are doubles even when written as integers */
    assert_string_equal(eval(d, obj, "self.n + 0.5 == 1.5"), "true");
    assert_string_equal(eval(d, obj, "self.m.x / 4.0"), "0.5");
    /* formats */
    assert_string_equal(eval(d, obj, "self.dt.getHours() == 7 && self.dt > timestamp('2024-01-01T00:00:00Z')"), "true");
    assert_string_equal(eval(d, obj, "self.da == timestamp('2024-05-06T00:00:00Z')"), "true");
    assert_string_equal(eval(d, obj, "self.du == duration('90m')"), "true");
    assert_string_equal(eval(d, obj, "self.by == b'hi'"), "true");
    assert_string_equal(eval(d, obj, "self.l.all(x, x < duration('3m')) && self.l[1] == duration('120s')"), "true");
    /* escaped names read the JSON property */
    assert_string_equal(eval(d, obj, "self.foo__dash__bar == 3 && has(self.foo__dash__bar)"), "true");
    /* fields the schema does not declare are not visible */
    assert_string_equal(eval(d, obj, "self.free.a"), "1");
    assert_non_null(strstr(eval(d, obj, "self.free.hidden"), "undefined field 'hidden'"));
    /* type checking */
    assert_non_null(strstr(eval(d, obj, "self.dt == 'x'"),
                           "found no matching overload for '_==_' applied to '(google.protobuf.Timestamp, string)'"));
}

/* The estimated cost of rule over a value of the (non-root) schema, as upstream's schemaChecker computes it. */
static uint64_t cost(const char *schema, const char *rule)
{
    const kg_xs_decl *d = decl(schema, false);
    assert_non_null(d);
    cel_env_redeclare_var(E, "self", d->type);
    cel_program *p;
    cel_error err;
    if (!cel_compile(E, rule, NULL, &p, &err))
        fail_msg("%s: %s", rule, err.message);
    cel_size_host h;
    kg_xs_decl_size_host(&h, d);
    uint64_t c = cel_program_estimate_cost_host(p, KG_XS_MAX_REQUEST_BYTES, &h).max;
    cel_program_free(p);
    return c;
}

static const char *array_of(const char *item, const char *max)
{
    return kg_arena_sprintf(&A, "{\"type\":\"array\",\"items\":%s%s}", item, max);
}

/* one of upstream's figures: mismatches are all listed before the test fails */
#define want_cost(schema, rule, want)                                                                                  \
    do {                                                                                                               \
        uint64_t got_ = cost(schema, rule);                                                                            \
        if (got_ != (uint64_t)(want)) {                                                                                \
            print_error("%s over %s: estimated %llu, upstream %llu\n", rule, schema, (unsigned long long)got_,         \
                        (unsigned long long)(want));                                                                   \
            bad++;                                                                                                     \
        }                                                                                                              \
    } while (0)

static void cost_estimates(void **state)
{
    int bad = 0;
    const char *num = "{\"type\":\"number\"}", *str = "{\"type\":\"string\"}", *boo = "{\"type\":\"boolean\"}";
    /* upstream TestCostEstimation: expectedCalcCost (no bounds) and expectedSetCost (maxItems/maxLength set) */
    want_cost(array_of(num, ""), "self.all(x, true)", 4718591);
    want_cost(array_of(num, ",\"maxItems\":10"), "self.all(x, true)", 32);
    want_cost(array_of(str, ""), "self.all(x, true)", 3145727);
    want_cost(array_of(str, ",\"maxItems\":20"), "self.all(x, true)", 62);
    want_cost(array_of(boo, ""), "self.all(x, true)", 1887437);
    want_cost(array_of(boo, ",\"maxItems\":5"), "self.all(x, true)", 17);
    want_cost("{\"type\":\"object\",\"additionalProperties\":{\"type\":\"number\"}}", "self.all(x, true)", 1348169);
    want_cost("{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}", "self.all(x, true)", 1179647);
    want_cost("{\"type\":\"string\"}", "self.contains('test')", 314574);
    want_cost("{\"type\":\"string\",\"maxLength\":10}", "self.contains('test')", 5);
    want_cost("{\"type\":\"string\"}", "self.startsWith('test')", 2);
    want_cost("{\"type\":\"string\"}", "size(self + \"hello\") > size(\"hello\")", 314578);
    want_cost(array_of(num, ""), "self[1] == 0.0", 2);
    want_cost(array_of("{\"x-kubernetes-int-or-string\":true}", ""), "self[0] == 5", 3);
    want_cost(array_of(boo, ""), "self[0] == false", 2);
    /* has() is free in Kubernetes environments: only its operand costs (upstream's figure, 0, comes from an older
     * cel-go that did not count the operand either) */
    want_cost("{\"type\":\"object\",\"additionalProperties\":{\"type\":\"number\"}}", "has(self.x)", 1);
    want_cost("{\"type\":\"string\",\"maxLength\":0}", "self == \"x\"", 1);
    want_cost("{\"type\":\"string\"}", "self == \"x\"", 2);
    want_cost("{\"type\":\"string\",\"format\":\"byte\",\"maxLength\":0}", "self == b\"x\"", 1);
    want_cost(array_of(array_of(num, ""), ""), "self[0][0] == -1.0", 3);
    want_cost(array_of(array_of(num, ""), ""), "self.all(x, true)", 3145727);
    want_cost(array_of(array_of(num, ""), ",\"maxItems\":100"), "self.all(x, true)", 302);
    want_cost(array_of("{\"type\":\"string\",\"format\":\"duration\"}", ""), "self[0].getHours() == 2", 4);
    want_cost(array_of(str, ""), "self[1] == self[1]", 314577);
    want_cost(array_of(num, ",\"maxItems\":10"), "self.all(x, self.all(y, true))", 352);
    want_cost(array_of(num, ",\"maxItems\":10"), "self.all(x, self.all(y, self.all(z, true)))", 3552);
    assert_true(cost(array_of(num, ""), "self.all(x, self.all(y, true))") > 10000000);
    want_cost("{\"type\":\"string\"}", "self.matches(\"x\")", 314574);
    want_cost("{\"type\":\"string\",\"maxLength\":50}", "self.matches(\"x\")", 22);
    want_cost(array_of("{\"x-kubernetes-int-or-string\":true}", ""), "self.all(x, true)", 4718591);
    want_cost(array_of("{\"type\":\"string\",\"format\":\"duration\"}", ""), "self.all(x, true)", 2359295);
    want_cost(array_of("{\"type\":\"string\",\"format\":\"date\"}", ""), "self.all(x, true)", 725936);
    want_cost(array_of("{\"type\":\"string\",\"format\":\"date-time\"}", ""), "self.all(x, true)", 428963);
    if (bad)
        fail_msg("%d cost estimates differ from upstream's", bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(type_mapping, setup, teardown),
        cmocka_unit_test_setup_teardown(typed_values, setup, teardown),
        cmocka_unit_test_setup_teardown(cost_estimates, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
