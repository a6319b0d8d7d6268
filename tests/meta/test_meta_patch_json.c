/* RFC 6902 JSON Patch: the RFC's appendix A vectors, plus evanphx/json-patch v4 behaviour and error texts as
 * kube-apiserver returns them (PATCH with application/json-patch+json, mutating webhook patches). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "meta/patch.h"

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

static kg_json *J(const char *text)
{
    kg_error e = {0};
    kg_json *v = kg_json_parse(&A, text, strlen(text), &e);
    if (!v)
        fail_msg("bad test JSON %s: %s", text, e.msg);
    return v;
}

/* apply and compare with expected (object member order ignored, array order significant) */
static void ok(const char *doc, const char *patch, const char *expect)
{
    kg_error e = {0};
    kg_json *d = J(doc), *out = NULL;
    char *before = kg_json_to_string(&A, d, 0, NULL);
    if (!kg_patch_json(&A, d, J(patch), &out, &e))
        fail_msg("patch %s failed: %s", patch, e.msg);
    if (!kg_json_equal(out, J(expect)))
        fail_msg("patch %s on %s: got %s want %s", patch, doc, kg_json_to_string(&A, out, 0, NULL), expect);
    assert_string_equal(before, kg_json_to_string(&A, d, 0, NULL)); /* input untouched */
}

static void bad(const char *doc, const char *patch, const char *msg)
{
    kg_error e = {0};
    kg_json *out = NULL;
    assert_false(kg_patch_json(&A, J(doc), J(patch), &out, &e));
    assert_null(out);
    assert_int_equal(e.code, KG_EINVAL);
    assert_string_equal(e.msg, msg);
}

static void test_rfc6902_appendix_a(void **s)
{
    (void)s;
    /* A.1 - A.8, A.10, A.11, A.14, A.16 */
    ok("{\"foo\":\"bar\"}", "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\"}]",
       "{\"baz\":\"qux\",\"foo\":\"bar\"}");
    ok("{\"foo\":[\"bar\",\"baz\"]}", "[{\"op\":\"add\",\"path\":\"/foo/1\",\"value\":\"qux\"}]",
       "{\"foo\":[\"bar\",\"qux\",\"baz\"]}");
    ok("{\"baz\":\"qux\",\"foo\":\"bar\"}", "[{\"op\":\"remove\",\"path\":\"/baz\"}]", "{\"foo\":\"bar\"}");
    ok("{\"foo\":[\"bar\",\"qux\",\"baz\"]}", "[{\"op\":\"remove\",\"path\":\"/foo/1\"}]",
       "{\"foo\":[\"bar\",\"baz\"]}");
    ok("{\"baz\":\"qux\",\"foo\":\"bar\"}", "[{\"op\":\"replace\",\"path\":\"/baz\",\"value\":\"boo\"}]",
       "{\"baz\":\"boo\",\"foo\":\"bar\"}");
    ok("{\"foo\":{\"bar\":\"baz\",\"waldo\":\"fred\"},\"qux\":{\"corge\":\"grault\"}}",
       "[{\"op\":\"move\",\"from\":\"/foo/waldo\",\"path\":\"/qux/thud\"}]",
       "{\"foo\":{\"bar\":\"baz\"},\"qux\":{\"corge\":\"grault\",\"thud\":\"fred\"}}");
    ok("{\"foo\":[\"all\",\"grass\",\"cows\",\"eat\"]}", "[{\"op\":\"move\",\"from\":\"/foo/1\",\"path\":\"/foo/3\"}]",
       "{\"foo\":[\"all\",\"cows\",\"eat\",\"grass\"]}");
    ok("{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}",
       "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"qux\"},{\"op\":\"test\",\"path\":\"/foo/1\",\"value\":2}]",
       "{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}");
    ok("{\"foo\":\"bar\"}", "[{\"op\":\"add\",\"path\":\"/child\",\"value\":{\"grandchild\":{}}}]",
       "{\"foo\":\"bar\",\"child\":{\"grandchild\":{}}}");
    ok("{\"foo\":\"bar\"}", "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\",\"xyz\":123}]",
       "{\"foo\":\"bar\",\"baz\":\"qux\"}");
    ok("{\"/\":9,\"~1\":10}", "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":10}]", "{\"/\":9,\"~1\":10}");
    ok("{\"foo\":[\"bar\"]}", "[{\"op\":\"add\",\"path\":\"/foo/-\",\"value\":[\"abc\",\"def\"]}]",
       "{\"foo\":[\"bar\",[\"abc\",\"def\"]]}");
    /* A.9, A.12, A.15: errors */
    bad("{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}", "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"bar\"}]",
        "testing value /baz failed: test failed");
    bad("{\"foo\":\"bar\"}", "[{\"op\":\"add\",\"path\":\"/baz/bat\",\"value\":\"qux\"}]",
        "add operation does not apply: doc is missing path: \"/baz/bat\": missing value");
    bad("{\"/\":9,\"~1\":10}", "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":\"10\"}]",
        "testing value /~01 failed: test failed");
}

static void test_kubernetes_paths(void **s)
{
    (void)s;
    const char *pod = "{\"metadata\":{\"name\":\"p\",\"labels\":{\"app\":\"web\"}},"
                      "\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"nginx:1\"}]}}";
    /* label keys with "/" use ~1 */
    ok(pod, "[{\"op\":\"add\",\"path\":\"/metadata/labels/app.kubernetes.io~1name\",\"value\":\"x\"}]",
       "{\"metadata\":{\"name\":\"p\",\"labels\":{\"app\":\"web\",\"app.kubernetes.io/name\":\"x\"}},"
       "\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"nginx:1\"}]}}");
    ok(pod, "[{\"op\":\"replace\",\"path\":\"/spec/containers/0/image\",\"value\":\"nginx:2\"}]",
       "{\"metadata\":{\"name\":\"p\",\"labels\":{\"app\":\"web\"}},"
       "\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"nginx:2\"}]}}");
    /* append a container with "-", then copy its name into a label, then test it */
    ok(pod,
       "[{\"op\":\"add\",\"path\":\"/spec/containers/-\",\"value\":{\"name\":\"b\"}},"
       "{\"op\":\"copy\",\"from\":\"/spec/containers/1/name\",\"path\":\"/metadata/labels/second\"},"
       "{\"op\":\"test\",\"path\":\"/metadata/labels/second\",\"value\":\"b\"}]",
       "{\"metadata\":{\"name\":\"p\",\"labels\":{\"app\":\"web\",\"second\":\"b\"}},"
       "\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"nginx:1\"},{\"name\":\"b\"}]}}");
    /* a later op must not see an earlier op's value aliased (add then mutate inside it) */
    kg_error e = {0};
    kg_json *patch = J("[{\"op\":\"add\",\"path\":\"/x\",\"value\":{\"a\":1}},"
                       "{\"op\":\"add\",\"path\":\"/x/b\",\"value\":2}]");
    char *pbefore = kg_json_to_string(&A, patch, 0, NULL);
    kg_json *out;
    assert_true(kg_patch_json(&A, J("{}"), patch, &out, &e));
    assert_true(kg_json_equal(out, J("{\"x\":{\"a\":1,\"b\":2}}")));
    assert_string_equal(pbefore, kg_json_to_string(&A, patch, 0, NULL));
    /* empty patch and null patch are no-ops */
    ok(pod, "[]", pod);
    ok(pod, "null", pod);
}

static void test_v4_quirks(void **s)
{
    (void)s;
    /* replace of a missing member adds it (v4 only checks the parent) */
    ok("{\"a\":1}", "[{\"op\":\"replace\",\"path\":\"/b\",\"value\":2}]", "{\"a\":1,\"b\":2}");
    /* negative indices count from the end */
    ok("{\"l\":[1,2,3]}", "[{\"op\":\"remove\",\"path\":\"/l/-1\"}]", "{\"l\":[1,2]}");
    ok("{\"l\":[1,2,3]}", "[{\"op\":\"add\",\"path\":\"/l/-1\",\"value\":9}]", "{\"l\":[1,2,3,9]}");
    /* add without value adds null; copy of a missing member copies null */
    ok("{}", "[{\"op\":\"add\",\"path\":\"/a\"}]", "{\"a\":null}");
    ok("{}", "[{\"op\":\"copy\",\"from\":\"/nope\",\"path\":\"/a\"}]", "{\"a\":null}");
    /* test of a missing member against null passes */
    ok("{}", "[{\"op\":\"test\",\"path\":\"/nope\",\"value\":null}]", "{}");
    /* test compares objects and arrays structurally (member order ignored, nulls significant) */
    ok("{\"o\":{\"a\":1,\"n\":null}}", "[{\"op\":\"test\",\"path\":\"/o\",\"value\":{\"n\":null,\"a\":1}}]",
       "{\"o\":{\"a\":1,\"n\":null}}");
    bad("{\"o\":{\"a\":1}}", "[{\"op\":\"test\",\"path\":\"/o\",\"value\":{\"a\":1,\"b\":2}}]",
        "testing value /o failed: test failed");
    bad("{\"o\":{\"a\":1,\"b\":2}}", "[{\"op\":\"test\",\"path\":\"/o\",\"value\":{\"a\":1}}]",
        "testing value /o failed: test failed");
    bad("{\"o\":{\"a\":null}}", "[{\"op\":\"test\",\"path\":\"/o\",\"value\":{\"a\":1}}]",
        "testing value /o failed: test failed");
    /* "" is the whole document for replace (objects and arrays only; anything else is ignored) and test */
    ok("{\"a\":1}", "[{\"op\":\"replace\",\"path\":\"\",\"value\":{\"b\":2}}]", "{\"b\":2}");
    ok("{\"a\":1}", "[{\"op\":\"replace\",\"path\":\"\",\"value\":3}]", "{\"a\":1}");
    ok("{\"a\":1}", "[{\"op\":\"test\",\"path\":\"\",\"value\":{\"a\":1}}]", "{\"a\":1}");
    bad("{\"a\":1}", "[{\"op\":\"test\",\"path\":\"\",\"value\":{\"a\":2}}]", "testing value  failed: test failed");
    /* numbers compare by their text: 1 and 1.0 differ */
    bad("{\"n\":1}", "[{\"op\":\"test\",\"path\":\"/n\",\"value\":1.0}]", "testing value /n failed: test failed");
    /* a whole-document op at "" is not supported by v4 */
    bad("{\"a\":1}", "[{\"op\":\"add\",\"path\":\"\",\"value\":{}}]",
        "add operation does not apply: doc is missing path: \"\": missing value");
    /* an array document works too */
    ok("[1,2]", "[{\"op\":\"add\",\"path\":\"/0\",\"value\":0}]", "[0,1,2]");
}

/* jsonpatch.AccumulatedCopySizeLimit (kube-apiserver's JSONPatchMaxCopyBytes, 3 MiB): copies doubling a value
 * stop at the budget instead of growing the document exponentially */
static void test_copy_size_limit(void **s)
{
    (void)s;
    kg_buf doc = KG_BUF_INIT;
    kg_buf_puts(&doc, "{\"a\":\"");
    for (int i = 0; i < 100000; i++)
        kg_buf_putc(&doc, 'x');
    kg_buf_puts(&doc, "\"}");
    kg_buf patch = KG_BUF_INIT;
    kg_buf_puts(&patch,
                "[{\"op\":\"add\",\"path\":\"/d\",\"value\":{}},{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/d/a\"}");
    for (int i = 0; i < 30; i++)
        kg_buf_printf(&patch, ",{\"op\":\"copy\",\"from\":\"/d\",\"path\":\"/d/c%d\"}", i);
    kg_buf_putc(&patch, ']');
    kg_error e = {0};
    kg_json *out = NULL;
    assert_false(kg_patch_json(&A, J(kg_buf_cstr(&doc)), J(kg_buf_cstr(&patch)), &out, &e));
    assert_int_equal(e.code, KG_EINVAL);
    /* the string, then /d doubling: the 6th copy takes the total to 3200406 bytes */
    assert_string_equal(e.msg, "Unable to complete the copy, the accumulated size increase of copy is 3200406, "
                               "exceeding the limit 3145728");
    /* under the budget copies still work */
    ok("{\"a\":[1,2]}", "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/b\"}]", "{\"a\":[1,2],\"b\":[1,2]}");
    kg_buf_free(&doc);
    kg_buf_free(&patch);
}

static void test_errors(void **s)
{
    (void)s;
    bad("{}", "[{\"op\":\"remove\",\"path\":\"/x\"}]",
        "error in remove for path: '/x': Unable to remove nonexistent key: x: missing value");
    bad("{\"a\":{}}", "[{\"op\":\"remove\",\"path\":\"/a/b/c\"}]",
        "remove operation does not apply: doc is missing path: \"/a/b/c\": missing value");
    bad("{\"spec\":{}}", "[{\"op\":\"replace\",\"path\":\"/spec/foo/bar\",\"value\":1}]",
        "replace operation does not apply: doc is missing path: /spec/foo/bar: missing value");
    bad("{\"l\":[1]}", "[{\"op\":\"replace\",\"path\":\"/l/5\",\"value\":1}]",
        "replace operation does not apply: doc is missing key: /l/5: missing value");
    bad("{\"l\":[1]}", "[{\"op\":\"add\",\"path\":\"/l/5\",\"value\":1}]",
        "error in add for path: '/l/5': Unable to access invalid index: 5: invalid index referenced");
    bad("{\"l\":[1]}", "[{\"op\":\"add\",\"path\":\"/l/x\",\"value\":1}]",
        "error in add for path: '/l/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": "
        "invalid syntax");
    bad("{\"l\":[1]}", "[{\"op\":\"remove\",\"path\":\"/l/3\"}]",
        "error in remove for path: '/l/3': Unable to access invalid index: 3: invalid index referenced");
    bad("{}", "[{\"op\":\"bogus\",\"path\":\"/x\"}]", "Unexpected kind: bogus");
    bad("{}", "[{\"path\":\"/x\"}]", "Unexpected kind: unknown");
    bad("{}", "[null]", "Unexpected kind: unknown");
    bad("{}", "{\"op\":\"add\"}", "json: cannot unmarshal object into Go value of type jsonpatch.Patch");
    bad("{}", "[\"add\"]", "json: cannot unmarshal string into Go value of type jsonpatch.Operation");
    bad("{}", "[{\"op\":\"add\",\"value\":1}]", "add operation failed to decode path: missing value");
    bad("{}", "[{\"op\":\"replace\",\"value\":1}]",
        "replace operation failed to decode path: operation missing path field: missing value");
    bad("{}", "[{\"op\":\"move\",\"path\":\"/a\"}]",
        "move operation failed to decode from: operation, missing from field: missing value");
    bad("{}", "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/b\"}]",
        "error in move for path: 'a': Unable to remove nonexistent key: a: missing value");
    bad("{\"a\":{\"b\":1}}", "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a/c\"}]",
        "move operation does not apply: doc is missing destination path: /a/c: missing value");
    bad("{}", "[{\"op\":\"test\",\"path\":\"/a/b\",\"value\":1}]",
        "test operation does not apply: is missing path: /a/b: missing value");
    bad("{\"l\":[]}", "[{\"op\":\"test\",\"path\":\"/l/0\",\"value\":1}]",
        "error in test for path: '/l/0': Unable to access invalid index: 0: invalid index referenced");
    bad("{}", "[{\"op\":\"copy\",\"from\":\"/a/b\",\"path\":\"/c\"}]",
        "copy operation does not apply: doc is missing from path: /a/b: missing value");
    /* the first failing op aborts the whole patch: nothing of the earlier ops is visible */
    bad("{\"a\":1}", "[{\"op\":\"add\",\"path\":\"/b\",\"value\":2},{\"op\":\"test\",\"path\":\"/a\",\"value\":2}]",
        "testing value /a failed: test failed");
}

static void test_escape_key(void **s)
{
    (void)s;
    assert_string_equal(kg_patch_json_escape_key(&A, "app.kubernetes.io/name"), "app.kubernetes.io~1name");
    assert_string_equal(kg_patch_json_escape_key(&A, "a~b/c"), "a~0b~1c");
    assert_string_equal(kg_patch_json_escape_key(&A, "plain"), "plain");
    /* round trip through a patch */
    const char *k = kg_patch_json_escape_key(&A, "x/~y");
    char *p = kg_arena_sprintf(&A, "[{\"op\":\"add\",\"path\":\"/%s\",\"value\":1}]", k);
    ok("{}", p, "{\"x/~y\":1}");
}

static int status_of(kg_patch_format f, const char *doc, const char *patch)
{
    kg_error e = {0};
    kg_json *out = NULL;
    bool okp = f == KG_PATCH_FORMAT_JSON ? kg_patch_json(&A, J(doc), J(patch), &out, &e)
               : f == KG_PATCH_FORMAT_MERGE
                   ? kg_patch_merge(&A, J(doc), J(patch), &out, &e)
                   : kg_patch_strategic(&A, J(doc), J(patch), kg_patch_schema_builtin(), "Pod", &out, &e);
    assert_false(okp);
    return kg_patch_http_status(f, &e);
}

static void test_server_helpers(void **s)
{
    (void)s;
    kg_patch_format f = KG_PATCH_FORMAT_MERGE;
    assert_true(kg_patch_format_from_content_type("application/json-patch+json", &f));
    assert_int_equal(f, KG_PATCH_FORMAT_JSON);
    assert_true(kg_patch_format_from_content_type("application/merge-patch+json; charset=utf-8", &f));
    assert_int_equal(f, KG_PATCH_FORMAT_MERGE);
    assert_true(kg_patch_format_from_content_type("application/strategic-merge-patch+json", &f));
    assert_int_equal(f, KG_PATCH_FORMAT_STRATEGIC);
    assert_false(kg_patch_format_from_content_type("application/apply-patch+yaml", &f));
    assert_false(kg_patch_format_from_content_type("application/json", &f));
    assert_false(kg_patch_format_from_content_type(NULL, &f));
    /* JSON patch: undecodable body 400, failing operation 422 */
    assert_int_equal(status_of(KG_PATCH_FORMAT_JSON, "{}", "{}"), 400);
    assert_int_equal(status_of(KG_PATCH_FORMAT_JSON, "{}", "[{\"op\":\"remove\",\"path\":\"/a\"}]"), 422);
    assert_int_equal(status_of(KG_PATCH_FORMAT_JSON, "{}", "[{\"op\":\"test\",\"path\":\"/a\",\"value\":1}]"), 422);
    /* merge patch: a non-object, non-array patch is BadRequest */
    assert_int_equal(status_of(KG_PATCH_FORMAT_MERGE, "{}", "1"), 400);
    /* strategic: malformed directives 400, lists of lists 422, the rest surfaces as 500 */
    assert_int_equal(status_of(KG_PATCH_FORMAT_STRATEGIC, "{}", "[]"), 400);
    assert_int_equal(status_of(KG_PATCH_FORMAT_STRATEGIC, "{\"metadata\":{\"finalizers\":[\"a\"]}}",
                               "{\"metadata\":{\"$deleteFromPrimitiveListX/finalizers\":[\"a\"]}}"),
                     400);
    assert_int_equal(status_of(KG_PATCH_FORMAT_STRATEGIC, "{\"metadata\":{\"finalizers\":[[\"a\"]]}}",
                               "{\"metadata\":{\"finalizers\":[[\"b\"]]}}"),
                     422);
    assert_int_equal(status_of(KG_PATCH_FORMAT_STRATEGIC, "{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}",
                               "{\"spec\":{\"containers\":[{\"image\":\"b\"}]}}"),
                     500);
}

/* evanphx/json-patch v4 patch_test.go: Cases, MutationTestCases, BadCases and TestCases */
static void test_evanphx_cases(void **s)
{
    (void)s;
    static const char *const cases[][3] = {
        {"{\"foo\":[\"bar\",\"baz\"]}", "[{\"op\":\"add\",\"path\":\"/foo/-1\",\"value\":\"qux\"}]",
         "{\"foo\":[\"bar\",\"baz\",\"qux\"]}"},
        {"{\"foo\":[\"all\",\"grass\",\"cows\",\"eat\"]}",
         "[{\"op\":\"move\",\"from\":\"/foo/1\",\"path\":\"/foo/2\"}]",
         "{\"foo\":[\"all\",\"cows\",\"grass\",\"eat\"]}"},
        {"{\"foo\":\"bar\",\"qux\":{\"baz\":1,\"bar\":null}}", "[{\"op\":\"remove\",\"path\":\"/qux/bar\"}]",
         "{\"foo\":\"bar\",\"qux\":{\"baz\":1}}"},
        {"{\"foo\":\"bar\"}", "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":null}]", "{\"baz\":null,\"foo\":\"bar\"}"},
        {"{\"foo\":[\"bar\",\"qux\",\"baz\"]}", "[{\"op\":\"replace\",\"path\":\"/foo/1\",\"value\":\"bum\"}]",
         "{\"foo\":[\"bar\",\"bum\",\"baz\"]}"},
        {"[{\"foo\":[\"bar\",\"qux\",\"baz\"]}]", "[{\"op\":\"replace\",\"path\":\"/0/foo/0\",\"value\":\"bum\"}]",
         "[{\"foo\":[\"bum\",\"qux\",\"baz\"]}]"},
        {"[{\"foo\":[\"bar\",\"qux\",\"baz\"],\"bar\":[\"qux\",\"baz\"]}]",
         "[{\"op\":\"copy\",\"from\":\"/0/foo/0\",\"path\":\"/0/bar/0\"}]",
         "[{\"foo\":[\"bar\",\"qux\",\"baz\"],\"bar\":[\"bar\",\"qux\",\"baz\"]}]"},
        {"[{\"foo\":[\"bar\",\"qux\",\"baz\"],\"bar\":[\"qux\",\"baz\"]}]",
         "[{\"op\":\"copy\",\"from\":\"/0/foo/0\",\"path\":\"/0/bar\"}]",
         "[{\"foo\":[\"bar\",\"qux\",\"baz\"],\"bar\":\"bar\"}]"},
        {"[{\"foo\":{\"bar\":[\"qux\",\"baz\"]},\"baz\":{\"qux\":\"bum\"}}]",
         "[{\"op\":\"copy\",\"from\":\"/0/foo/bar\",\"path\":\"/0/baz/bar\"}]",
         "[{\"baz\":{\"bar\":[\"qux\",\"baz\"],\"qux\":\"bum\"},\"foo\":{\"bar\":[\"qux\",\"baz\"]}}]"},
        {"{\"foo\":[\"bar\"]}", "[{\"op\":\"copy\",\"path\":\"/foo/0\",\"from\":\"/foo\"}]",
         "{\"foo\":[[\"bar\"],\"bar\"]}"},
        {"{\"foo\":[\"bar\",\"qux\",\"baz\"]}", "[{\"op\":\"remove\",\"path\":\"/foo/-2\"}]",
         "{\"foo\":[\"bar\",\"baz\"]}"},
        {"{\"foo\":[]}", "[{\"op\":\"add\",\"path\":\"/foo/-1\",\"value\":\"qux\"}]", "{\"foo\":[\"qux\"]}"},
        {"{\"bar\":[{\"baz\":null}]}", "[{\"op\":\"replace\",\"path\":\"/bar/0/baz\",\"value\":1}]",
         "{\"bar\":[{\"baz\":1}]}"},
        {"{\"bar\":[{\"baz\":1}]}", "[{\"op\":\"replace\",\"path\":\"/bar/0/baz\",\"value\":null}]",
         "{\"bar\":[{\"baz\":null}]}"},
        {"{\"bar\":[null]}", "[{\"op\":\"replace\",\"path\":\"/bar/0\",\"value\":1}]", "{\"bar\":[1]}"},
        {"{\"bar\":[1]}", "[{\"op\":\"replace\",\"path\":\"/bar/0\",\"value\":null}]", "{\"bar\":[null]}"},
        {"{\"foo\":\"bar\",\"qux\":{\"baz\":1,\"bar\":null}}",
         "[{\"op\":\"replace\",\"path\":\"/qux/baz\",\"value\":null}]",
         "{\"foo\":\"bar\",\"qux\":{\"baz\":null,\"bar\":null}}"},
        {"{\"baz/foo\":\"qux\"}", "[{\"op\":\"test\",\"path\":\"/baz~1foo\",\"value\":\"qux\"}]",
         "{\"baz/foo\":\"qux\"}"},
        {"{\"foo\":null}", "[{\"op\":\"test\",\"path\":\"/foo\",\"value\":null}]", "{\"foo\":null}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ok(cases[i][0], cases[i][1], cases[i][2]);

    static const char *const bad_cases[][3] = {
        {"{\"a\":{\"b\":{\"d\":1}}}", "[{\"op\":\"remove\",\"path\":\"/a/b/c\"}]",
         "error in remove for path: '/a/b/c': Unable to remove nonexistent key: c: missing value"},
        {"{\"a\":{\"b\":{\"d\":1}}}", "[{\"op\":\"move\",\"from\":\"/a/b/c\",\"path\":\"/a/b/e\"}]",
         "error in move for path: 'c': Unable to remove nonexistent key: c: missing value"},
        {"{\"a\":{\"b\":[1]}}", "[{\"op\":\"move\",\"from\":\"/a/b/1\",\"path\":\"/a/b/2\"}]",
         "error in move for path: '1': Unable to access invalid index: 1: invalid index referenced"},
        {"{\"foo\":\"bar\"}", "[{\"op\":\"add\",\"pathz\":\"/baz\",\"value\":\"qux\"}]",
         "add operation failed to decode path: missing value"},
        {"{\"foo\":[\"bar\",\"baz\"]}", "[{\"op\":\"add\",\"path\":\"/foo/-4\",\"value\":\"bum\"}]",
         "error in add for path: '/foo/-4': Unable to access invalid index: -4: invalid index referenced"},
        {"{\"name\":{\"foo\":\"bat\",\"qux\":\"bum\"}}",
         "[{\"op\":\"replace\",\"path\":\"/foo/bar\",\"value\":\"baz\"}]",
         "replace operation does not apply: doc is missing path: /foo/bar: missing value"},
        {"{\"foo\":[]}", "[{\"op\":\"remove\",\"path\":\"/foo/-\"}]",
         "error in remove for path: '/foo/-': strconv.Atoi: parsing \"-\": invalid syntax"},
        {"{\"foo\":[]}", "[{\"op\":\"remove\",\"path\":\"/foo/-1\"}]",
         "error in remove for path: '/foo/-1': Unable to access invalid index: -1: invalid index referenced"},
        {"{\"foo\":[\"bar\"]}", "[{\"op\":\"remove\",\"path\":\"/foo/-2\"}]",
         "error in remove for path: '/foo/-2': Unable to access invalid index: -2: invalid index referenced"},
        {"{}", "[{\"op\":null,\"path\":\"\"}]", "Unexpected kind: unknown"},
        {"{}", "[{\"op\":\"add\",\"path\":null}]", "add operation failed to decode path: missing value"},
        {"{}", "[{\"op\":\"copy\",\"from\":null}]",
         "copy operation failed to decode from: operation, missing from field: missing value"},
        {"{\"foo\":[\"bar\"]}", "[{\"op\":\"copy\",\"path\":\"/foo/6666666666\",\"from\":\"/\"}]",
         "error while adding value during copy: Unable to access invalid index: 6666666666: invalid index referenced"},
        {"{\"foo\":[\"bar\"]}", "[{\"op\":\"copy\",\"path\":\"/foo/2\",\"from\":\"/foo/0\"}]",
         "error while adding value during copy: Unable to access invalid index: 2: invalid index referenced"},
        {"{\"foo\":[\"all\",\"grass\",\"cows\",\"eat\"]}",
         "[{\"op\":\"move\",\"from\":\"/foo/1\",\"path\":\"/foo/4\"}]",
         "error in move for path: '/foo/4': Unable to access invalid index: 4: invalid index referenced"},
        {"{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}",
         "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"qux\"},{\"op\":\"test\",\"path\":\"/foo/"
         "1\",\"value\":\"c\"}]",
         "testing value /foo/1 failed: test failed"},
        {"{\"baz\":\"qux\"}", "[{\"op\":\"test\",\"path\":\"/foo\",\"value\":42}]",
         "testing value /foo failed: test failed"},
        {"{\"foo\":{}}", "[{\"op\":\"test\",\"path\":\"/foo\",\"value\":null}]",
         "testing value /foo failed: test failed"},
        {"{\"foo\":[]}", "[{\"op\":\"test\",\"path\":\"/foo\",\"value\":null}]",
         "testing value /foo failed: test failed"},
        {"{\"foo\":[]}", "[{\"op\":\"test\",\"path\":\"/foo\"}]", "testing value /foo failed: test failed"},
    };
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
        bad(bad_cases[i][0], bad_cases[i][1], bad_cases[i][2]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rfc6902_appendix_a, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kubernetes_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v4_quirks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_evanphx_cases, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_size_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_escape_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_server_helpers, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
