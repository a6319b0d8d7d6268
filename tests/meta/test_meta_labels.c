/* Label and field selector tests: parse/print/match behaviour and upstream error texts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "meta/fields.h"
#include "meta/labels.h"
#include "meta/names.h"

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

static void test_parse_good_and_string(void **st)
{
    (void)st;
    static const struct {
        const char *in, *out;
    } T[] = {
        {"x=a,y=b,z=c", "x=a,y=b,z=c"},
        {"", ""},
        {"x!=a,y=b", "x!=a,y=b"},
        {"x=", "x="},
        {"x= ", "x="},
        {"x=,z= ", "x=,z="},
        {"x= ,z= ", "x=,z="},
        {"!x", "!x"},
        {"x>1", "x>1"},
        {"x>1,z<5", "x>1,z<5"},
        {"z=c,y=b,x=a", "x=a,y=b,z=c"},
        {"x in (abc,def),y=jkl,z!=a", "x in (abc,def),y=jkl,z!=a"},
        {"  x  in  ( b , a ) ", "x in (a,b)"},
        {"x notin (a,a,b)", "x notin (a,b)"},
        {"x in ()", "x in ()"},
        {"x in (,a)", "x in (,a)"},
        {"x in (a,)", "x in (,a)"},
        {"x in (a,,)", "x in (,a)"},
        {"x in (,,b)", "x in (,b)"},
        {"x==a", "x==a"},
        {"example.com/app", "example.com/app"},
        {"a,!b,c in (d)", "a,!b,c in (d)"},
        {"x in (in,notin)", "x in (in,notin)"},
        {"x=notin", "x=notin"},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        kg_label_selector sel;
        kg_error err;
        if (!kg_labels_parse(&A, T[i].in, &sel, &err))
            fail_msg("%s: %s", T[i].in, err.msg);
        assert_string_equal(kg_labels_string(&A, &sel), T[i].out);
        /* the printed form parses back to the same form */
        kg_label_selector again;
        assert_true(kg_labels_parse(&A, T[i].out, &again, &err));
        assert_string_equal(kg_labels_string(&A, &again), T[i].out);
    }
}

static void test_large_inputs(void **st)
{
    (void)st;
    /* 20000 values and 2000 requirements: parsed without quadratic work, deduplicated and sorted */
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "x in (");
    for (int i = 20000; i > 0; i--)
        kg_buf_printf(&b, "v%d,v%d,", i, i);
    kg_buf_puts(&b, "v1)");
    for (int i = 2000; i > 0; i--)
        kg_buf_printf(&b, ",k%d=a", i);
    kg_label_selector sel;
    kg_error err;
    assert_true(kg_labels_parse(&A, kg_buf_cstr(&b), &sel, &err));
    kg_buf_free(&b);
    assert_int_equal(sel.n, 2001);
    assert_string_equal(sel.reqs[0].key, "k1");
    assert_string_equal(sel.reqs[1].key, "k10");
    assert_string_equal(sel.reqs[2000].key, "x");
    assert_int_equal(sel.reqs[2000].nvalues, 20000);
    assert_string_equal(sel.reqs[2000].values[0], "v1");
    assert_string_equal(sel.reqs[2000].values[1], "v10");
}

/* Random byte strings built from the selector alphabet: parsing never crashes (ASan/UBSan), and whatever parses
 * prints to a form that parses to the same form. */
static void test_random_inputs(void **st)
{
    (void)st;
    static const char alpha[] = "ab=!(),<> in notin\\x1-._/";
    srand(11);
    for (int i = 0; i < 20000; i++) {
        char in[24];
        int n = rand() % 23;
        for (int k = 0; k < n; k++)
            in[k] = alpha[rand() % (sizeof alpha - 1)];
        in[n] = 0;
        kg_label_selector sel, again;
        kg_error err;
        if (kg_labels_parse(&A, in, &sel, &err)) {
            const char *printed = kg_labels_string(&A, &sel);
            if (!kg_labels_parse(&A, printed, &again, &err))
                fail_msg("'%s' printed as '%s' which fails: %s", in, printed, err.msg);
            assert_string_equal(kg_labels_string(&A, &again), printed);
        }
        kg_field_selector fs, fs2;
        if (kg_fields_parse(&A, in, &fs, &err)) {
            const char *printed = kg_fields_string(&A, &fs);
            if (!kg_fields_parse(&A, printed, &fs2, &err))
                fail_msg("fields '%s' printed as '%s' which fails: %s", in, printed, err.msg);
            assert_string_equal(kg_fields_string(&A, &fs2), printed);
        }
        if ((i & 1023) == 0) {
            kg_arena_free(&A);
            kg_arena_init(&A, 0);
        }
    }
}

/* Validity cases from upstream selector_test.go (TestSetSelectorParser, TestSelectorParse, TestRequirementConstructor)
 * with the String() each valid input prints as. */
static void test_upstream_set_selector_parser(void **st)
{
    (void)st;
    static const struct {
        const char *in, *out; /* out NULL: must fail */
    } T[] = {
        {"", ""},
        {"\rx", "x"},
        {"this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"},
        {"this-is-another-dns.domain.com/key-with-dash in (so,what)",
         "this-is-another-dns.domain.com/key-with-dash in (so,what)"},
        {"0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"},
        {"foo  in\t (abc)", "foo in (abc)"},
        {"x notin\n (abc)", "x notin (abc)"},
        {"x  notin\t\t\t(abc,def)", "x notin (abc,def)"},
        {"x in (abc,def)", "x in (abc,def)"},
        {"x in (abc,)", "x in (,abc)"},
        {"x in ()", "x in ()"},
        {"x notin (abc,def),bar,z in (),w", "bar,w,x notin (abc,def),z in ()"},
        {"x,y in (a)", "x,y in (a)"},
        {"x=a", "x=a"},
        {"x>1", "x>1"},
        {"x<7", "x<7"},
        {"x=a,y!=b", "x=a,y!=b"},
        {"x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)"},
        {"x notin ( )", "x notin ()"},
        {"x notin (, a)", "x notin (,a)"},
        {"a ", "a"},
        {"a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"},
        {"x=a||y=b", NULL},
        {"x nott in (y)", NULL},
        {"a in (xyz),", NULL},
        {"a in (xyz)b notin ()", NULL},
        {"a in (xyz abc)", NULL},
        {"a notin(", NULL},
        {"a (", NULL},
        {"(", NULL},
        {"x==a==b", NULL},
        {"!x=a", NULL},
        {"x<a", NULL},
        {"foo>bar", NULL},
        {"barz<blah", NULL},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        kg_label_selector sel;
        kg_error err;
        bool ok = kg_labels_parse(&A, T[i].in, &sel, &err);
        if (ok != (T[i].out != NULL))
            fail_msg("'%s': parse %s", T[i].in, ok ? "succeeded" : err.msg);
        if (ok)
            assert_string_equal(kg_labels_string(&A, &sel), T[i].out);
    }
    /* deterministic order */
    kg_label_selector s1, s2;
    kg_error err;
    assert_true(kg_labels_parse(&A, "x=a,a=x", &s1, &err));
    assert_true(kg_labels_parse(&A, "a=x,x=a", &s2, &err));
    assert_string_equal(kg_labels_string(&A, &s1), kg_labels_string(&A, &s2));
    /* TestRequirementConstructor */
    kg_label_req r;
    const char *foo = "foo", *bar = "bar", *one = "1", *blah = "blah";
    assert_false(kg_label_req_new(&A, "x", KG_LOP_IN, NULL, 0, &r, &err));
    assert_true(kg_label_req_new(&A, "x", KG_LOP_NOT_IN, &foo, 1, &r, &err));
    assert_true(kg_label_req_new(&A, "x", KG_LOP_EXISTS, NULL, 0, &r, &err));
    assert_true(kg_label_req_new(&A, "1foo", KG_LOP_IN, &bar, 1, &r, &err));
    assert_true(kg_label_req_new(&A, "1234", KG_LOP_IN, &bar, 1, &r, &err));
    assert_true(kg_label_req_new(&A, "y", KG_LOP_GT, &one, 1, &r, &err));
    assert_false(kg_label_req_new(&A, "foo", KG_LOP_GT, &bar, 1, &r, &err));
    assert_false(kg_label_req_new(&A, "barz", KG_LOP_LT, &blah, 1, &r, &err));
    char key[300];
    memset(key, 'a', 254);
    key[254] = 0;
    assert_false(kg_label_req_new(&A, key, KG_LOP_EXISTS, NULL, 0, &r, &err));
    /* TestSelectorMatches */
    static const struct {
        const char *sel, *labels;
        bool match;
    } M[] = {
        {"", "{\"x\":\"y\"}", true},
        {"x=y", "{\"x\":\"y\"}", true},
        {"x=y,z=w", "{\"x\":\"y\",\"z\":\"w\"}", true},
        {"x!=y,z!=w", "{\"x\":\"z\",\"z\":\"a\"}", true},
        {"notin=in", "{\"notin\":\"in\"}", true},
        {"x", "{\"x\":\"z\"}", true},
        {"!x", "{\"y\":\"z\"}", true},
        {"x>1", "{\"x\":\"2\"}", true},
        {"x<1", "{\"x\":\"0\"}", true},
        {"x=z", "{}", false},
        {"x=y", "{\"x\":\"z\"}", false},
        {"x=y,z=w", "{\"x\":\"w\",\"z\":\"w\"}", false},
        {"x!=y,z!=w", "{\"x\":\"z\",\"z\":\"w\"}", false},
        {"x", "{\"y\":\"z\"}", false},
        {"!x", "{\"x\":\"z\"}", false},
        {"x>1", "{\"x\":\"0\"}", false},
        {"x<1", "{\"x\":\"2\"}", false},
        {"foo=bar,foobar=bar,baz=blah", "{\"foo\":\"bar\",\"baz\":\"blah\"}", false},
        {"x in ()", "{\"y\":\"baz\"}", false},
        {"z>1", "{\"z\":\"v2\"}", false},
    };
    for (size_t i = 0; i < sizeof M / sizeof M[0]; i++) {
        kg_label_selector sel;
        assert_true(kg_labels_parse(&A, M[i].sel, &sel, &err));
        if (kg_labels_matches(&sel, J(M[i].labels)) != M[i].match)
            fail_msg("%s vs %s", M[i].sel, M[i].labels);
    }
}

static const char *field_get(void *ctx, const char *field)
{
    const kg_json *set = ctx;
    const char *v = kg_json_get_str(set, field);
    return v ? v : "";
}

/* Cases from upstream fields/selector_test.go. */
static void test_upstream_field_selectors(void **st)
{
    (void)st;
    const char *good[] = {"x=a,y=b,z=c", "", "x!=a,y=b", "x=a||y\\=b", "x=a\\=\\=b"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        kg_field_selector sel;
        kg_error err;
        if (!kg_fields_parse(&A, good[i], &sel, &err))
            fail_msg("%s: %s", good[i], err.msg);
        assert_string_equal(kg_fields_string(&A, &sel), good[i]);
    }
    const char *bad[] = {"x=a||y=b", "x==a==b", "x=a,b", "x in (a)", "x in (a,b,c)", "x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kg_field_selector sel;
        kg_error err;
        if (kg_fields_parse(&A, bad[i], &sel, &err))
            fail_msg("%s parsed", bad[i]);
    }
    /* EscapeValue / UnescapeValue pairs */
    static const struct {
        const char *raw, *escaped;
    } E[] = {{"", ""}, {"a", "a"}, {"=", "\\="}, {",", "\\,"}, {"\\", "\\\\"}, {"\\=\\,\\", "\\\\\\=\\\\\\,\\\\"}};
    for (size_t i = 0; i < sizeof E / sizeof E[0]; i++) {
        assert_string_equal(kg_fields_escape_value(&A, E[i].raw), E[i].escaped);
        char *un;
        kg_error err;
        assert_true(kg_fields_unescape_value(&A, E[i].escaped, &un, &err));
        assert_string_equal(un, E[i].raw);
    }
    const char *invalid[] = {"\\", "\\\\\\", "\\a"};
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        char *un;
        kg_error err;
        assert_false(kg_fields_unescape_value(&A, invalid[i], &un, &err));
        assert_non_null(strstr(err.msg, "invalid escape sequence"));
    }
    /* TestSelectorMatches */
    kg_json *set = J("{\"foo\":\"bar\",\"baz\":\"blah\",\"complex\":\"=value\\\\,\\\\\"}");
    static const struct {
        const char *sel;
        bool match;
    } M[] = {
        {"foo=bar", true},
        {"baz=blah", true},
        {"foo=bar,baz=blah", true},
        {"foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\", true},
        {"foo=blah", false},
        {"baz=bar", false},
        {"foo=bar,foobar=bar,baz=blah", false},
    };
    for (size_t i = 0; i < sizeof M / sizeof M[0]; i++) {
        kg_field_selector sel;
        kg_error err;
        assert_true(kg_fields_parse(&A, M[i].sel, &sel, &err));
        if (kg_fields_matches_fn(&sel, field_get, set) != M[i].match)
            fail_msg("%s", M[i].sel);
    }
    kg_field_selector s1, s2;
    kg_error err;
    assert_true(kg_fields_parse(&A, "x=a,a=x", &s1, &err));
    assert_true(kg_fields_parse(&A, "a=x,x=a", &s2, &err));
    assert_string_equal(kg_fields_string(&A, &s1), kg_fields_string(&A, &s2));
    assert_true(kg_fields_parse(&A, "test=", &s1, &err));
    assert_string_equal(kg_fields_requires_exact_match(&s1, "test"), "");
    assert_true(kg_fields_parse(&A, "test!=b", &s1, &err));
    assert_null(kg_fields_requires_exact_match(&s1, "test"));
}

static void test_parse_errors(void **st)
{
    (void)st;
    static const struct {
        const char *in, *msg;
    } T[] = {
        {"x=a||y=b", "unable to parse requirement: values[0][x]: Invalid value: \"a||y\": " KG_MSG_LABEL_VALUE},
        {"x==a==b", "found '==', expected: ',' or 'end of string'"},
        {"!x=a", "found '=', expected: ',' or 'end of string'"},
        {"x<a", "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value "
                "must be an integer"},
        {"x in (a", "unable to parse requirement: found '', expected: ',' or ')'"},
        {",x=a", "found ',', expected: !, identifier, or 'end of string'"},
        {"x=a,", "found '', expected: identifier after ','"},
        {"x=a b", "found 'b', expected: ',' or 'end of string'"},
        {"a b=c", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"},
        {"x ~ y", "unable to parse requirement: found '~', expected: in, notin, =, ==, !=, gt, lt"},
        {"-x=a", "unable to parse requirement: <nil>: Invalid value: \"-x\": name part " KG_MSG_QUALIFIED_NAME},
        {"x=(a)", "unable to parse requirement: found '(', expected: identifier"},
        {"x in a", "unable to parse requirement: found 'a' expected: '('"},
        {"x in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"},
        {"x in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"},
        {"x in (a,=)", "unable to parse requirement: found '=', expected: ',', or identifier"},
        {"=", "found '=', expected: !, identifier, or 'end of string'"},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        kg_label_selector sel;
        kg_error err = {0};
        if (kg_labels_parse(&A, T[i].in, &sel, &err))
            fail_msg("%s parsed as %s", T[i].in, kg_labels_string(&A, &sel));
        if (strcmp(err.msg, T[i].msg) != 0)
            fail_msg("%s:\n got  %s\n want %s", T[i].in, err.msg, T[i].msg);
    }
}

static void test_matching(void **st)
{
    (void)st;
    kg_json *labels = J("{\"x\":\"y\",\"n\":\"2\",\"s\":\"abc\",\"empty\":\"\"}");
    static const struct {
        const char *sel;
        bool want;
    } T[] = {
        {"x=y", true},
        {"x=z", false},
        {"x!=y", false},
        {"x!=z", true},
        {"x", true},
        {"!x", false},
        {"y!=z", true},
        {"x in (y,z)", true},
        {"x notin (y)", false},
        {"z notin (a)", true},
        {"n>1", true},
        {"n<1", false},
        {"n>2", false},
        {"s>1", false},
        {"missing>1", false},
        {"x=y,n>1", true},
        {"x=y,n>5", false},
        {"", true},
        {"empty=", true},
        {"empty", true},
        {"missing=", false},
        {"x==y", true},
        {"missing in ()", false},
        {"empty in ()", true},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        kg_label_selector sel;
        kg_error err;
        assert_true(kg_labels_parse(&A, T[i].sel, &sel, &err));
        if (kg_labels_matches(&sel, labels) != T[i].want)
            fail_msg("%s: expected %d", T[i].sel, T[i].want);
    }
    kg_label_selector sel;
    kg_error err;
    assert_true(kg_labels_parse(&A, "app=web", &sel, &err));
    assert_true(kg_labels_matches_object(&sel, J("{\"metadata\":{\"labels\":{\"app\":\"web\"}}}")));
    assert_false(kg_labels_matches_object(&sel, J("{\"metadata\":{}}")));
    assert_true(kg_labels_parse(&A, "tier in (fe),app==web", &sel, &err));
    assert_string_equal(kg_labels_requires_exact_match(&sel, "app"), "web");
    assert_string_equal(kg_labels_requires_exact_match(&sel, "tier"), "fe");
    assert_null(kg_labels_requires_exact_match(&sel, "other"));
    kg_labels_from_set(&A, J("{\"tier\":\"fe\",\"app\":\"web\"}"), &sel);
    assert_string_equal(kg_labels_string(&A, &sel), "app=web,tier=fe");
    assert_true(kg_labels_matches(&sel, J("{\"app\":\"web\",\"tier\":\"fe\",\"x\":\"y\"}")));
    assert_false(kg_labels_matches(&sel, J("{\"app\":\"web\"}")));
    kg_labels_from_set(&A, NULL, &sel);
    assert_true(kg_labels_empty(&sel));
    assert_true(kg_labels_parse(&A, "!app", &sel, &err));
    assert_true(kg_labels_matches(&sel, NULL));
}

static void test_label_selector_json(void **st)
{
    (void)st;
    kg_label_selector sel;
    kg_error err = {0};
    assert_true(kg_label_selector_from_json(
        &A,
        J("{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\","
          "\"values\":[\"b\",\"a\"]},{\"key\":\"canary\",\"operator\":\"DoesNotExist\"}]}"),
        &sel, &err));
    assert_string_equal(kg_labels_string(&A, &sel), "app=web,!canary,tier in (a,b)");
    assert_true(kg_labels_matches(&sel, J("{\"app\":\"web\",\"tier\":\"a\"}")));
    assert_false(kg_labels_matches(&sel, J("{\"app\":\"web\",\"tier\":\"a\",\"canary\":\"1\"}")));
    assert_false(kg_labels_matches(&sel, J("{\"app\":\"web\",\"tier\":\"c\"}")));

    assert_true(kg_label_selector_from_json(&A, NULL, &sel, &err));
    assert_true(sel.nothing);
    assert_false(kg_labels_matches(&sel, J("{}")));
    assert_true(kg_label_selector_from_json(&A, J("null"), &sel, &err));
    assert_true(sel.nothing);
    assert_true(kg_label_selector_from_json(&A, J("{}"), &sel, &err));
    assert_true(kg_labels_empty(&sel));
    assert_true(kg_labels_matches(&sel, J("{\"a\":\"b\"}")));

    assert_false(kg_label_selector_from_json(&A, J("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Foo\"}]}"),
                                             &sel, &err));
    assert_string_equal(err.msg, "\"Foo\" is not a valid label selector operator");
    assert_false(kg_label_selector_from_json(&A, J("{\"matchLabels\":{\"a b\":\"c\"}}"), &sel, &err));
    assert_string_equal(err.msg, "key: Invalid value: \"a b\": name part " KG_MSG_QUALIFIED_NAME);
    assert_false(kg_label_selector_from_json(&A, J("{\"matchLabels\":{\"a b\":\"-\"}}"), &sel, &err));
    assert_string_equal(err.msg, "[key: Invalid value: \"a b\": name part " KG_MSG_QUALIFIED_NAME
                                 ", values[0][a b]: Invalid value: \"-\": " KG_MSG_LABEL_VALUE "]");
    assert_false(kg_label_selector_from_json(
        &A, J("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[]}]}"), &sel, &err));
    assert_string_equal(err.msg,
                        "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty");
    assert_false(kg_label_selector_from_json(
        &A, J("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\",\"values\":[\"x\"]}]}"), &sel, &err));
    assert_string_equal(err.msg, "values: Invalid value: []string{\"x\"}: values set must be empty for exists and "
                                 "does not exist");

    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_validate_label_selector(
        &A,
        J("{\"matchLabels\":{\"ok\":\"-bad\"},\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\"},"
          "{\"key\":\"b\",\"operator\":\"Exists\",\"values\":[\"x\"]},{\"key\":\"-c\",\"operator\":\"Foo\","
          "\"values\":[\"-v\"]}]}"),
        false, "spec.selector", &errs);
    const char *want[] = {
        "spec.selector.matchLabels: Invalid value: \"-bad\": " KG_MSG_LABEL_VALUE,
        "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or "
        "'NotIn'",
        "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or "
        "'DoesNotExist'",
        "spec.selector.matchExpressions[2].operator: Invalid value: \"Foo\": not a valid selector operator",
        "spec.selector.matchExpressions[2].key: Invalid value: \"-c\": name part " KG_MSG_QUALIFIED_NAME,
        "spec.selector.matchExpressions[2].values[0]: Invalid value: \"-v\": " KG_MSG_LABEL_VALUE,
    };
    assert_int_equal(errs.len, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < errs.len; i++)
        assert_string_equal(kg_field_error_string(&A, &errs.items[i]), want[i]);
    errs.len = 0;
    kg_validate_label_selector(&A, J("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[\"-\"]}]}"),
                               true, "s", &errs);
    assert_int_equal(errs.len, 0);
}

static void test_field_selectors(void **st)
{
    (void)st;
    static const struct {
        const char *in, *out;
    } G[] = {
        {"", ""},
        {"a=b", "a=b"},
        {"a==b", "a=b"},
        {"a!=b", "a!=b"},
        {"b=2,a=1", "a=1,b=2"},
        {"metadata.name=x\\,y", "metadata.name=x\\,y"},
        {"x=a\\=b", "x=a\\=b"},
        {"x=a\\\\b", "x=a\\\\b"},
        {"x=", "x="},
        {"a=b,,c=d", "a=b,c=d"},
    };
    for (size_t i = 0; i < sizeof G / sizeof G[0]; i++) {
        kg_field_selector sel;
        kg_error err;
        if (!kg_fields_parse(&A, G[i].in, &sel, &err))
            fail_msg("%s: %s", G[i].in, err.msg);
        assert_string_equal(kg_fields_string(&A, &sel), G[i].out);
    }
    static const struct {
        const char *in, *msg;
    } B[] = {
        {"a", "invalid selector: 'a'; can't understand 'a'"},
        {"x=a,b", "invalid selector: 'x=a,b'; can't understand 'b'"},
        {"x=a=b", "invalid field selector: unescaped character in value: 61"},
        {"x=a,b\\,c", "invalid selector: 'x=a,b\\,c'; can't understand 'b\\,c'"},
        {"x=a\\", "invalid field selector: invalid escape sequence: \\"},
        {"x=a\\b", "invalid field selector: invalid escape sequence: \\b"},
    };
    for (size_t i = 0; i < sizeof B / sizeof B[0]; i++) {
        kg_field_selector sel;
        kg_error err = {0};
        if (kg_fields_parse(&A, B[i].in, &sel, &err))
            fail_msg("%s parsed", B[i].in);
        assert_string_equal(err.msg, B[i].msg);
    }
    kg_field_selector sel;
    kg_error err;
    assert_true(kg_fields_parse(&A, "metadata.name=x\\,y", &sel, &err));
    assert_string_equal(sel.reqs[0].value, "x,y");
    assert_string_equal(kg_fields_escape_value(&A, "a\\b,c=d"), "a\\\\b\\,c\\=d");

    kg_json *pod = J("{\"metadata\":{\"name\":\"web\",\"namespace\":\"prod\"},\"spec\":{\"nodeName\":\"n1\","
                     "\"unschedulable\":true},\"status\":{\"phase\":\"Running\"}}");
    static const struct {
        const char *sel;
        bool want;
    } M[] = {
        {"metadata.name=web", true},       {"metadata.name=web,status.phase!=Failed", true},
        {"metadata.name==db", false},      {"metadata.namespace!=prod", false},
        {"spec.nodeName=", false},         {"spec.missing=", true},
        {"spec.unschedulable=true", true}, {"", true},
    };
    for (size_t i = 0; i < sizeof M / sizeof M[0]; i++) {
        assert_true(kg_fields_parse(&A, M[i].sel, &sel, &err));
        if (kg_fields_matches_object(&A, &sel, pod) != M[i].want)
            fail_msg("%s: expected %d", M[i].sel, M[i].want);
    }
    assert_true(kg_fields_parse(&A, "metadata.namespace=prod,metadata.name!=x", &sel, &err));
    assert_string_equal(kg_fields_requires_exact_match(&sel, "metadata.namespace"), "prod");
    assert_null(kg_fields_requires_exact_match(&sel, "metadata.name"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_parse_good_and_string, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_upstream_set_selector_parser, setup, teardown),
        cmocka_unit_test_setup_teardown(test_upstream_field_selectors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_matching, setup, teardown),
        cmocka_unit_test_setup_teardown(test_label_selector_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_field_selectors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
