/* RFC 7386 JSON Merge Patch: the RFC's appendix A vectors, and where evanphx/json-patch v4 (kube-apiserver's
 * application/merge-patch+json) deviates from the RFC, v4's behaviour. */
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

static void ok(const char *doc, const char *patch, const char *expect)
{
    kg_error e = {0};
    kg_json *d = J(doc), *p = J(patch), *out = NULL;
    char *db = kg_json_to_string(&A, d, 0, NULL), *pb = kg_json_to_string(&A, p, 0, NULL);
    if (!kg_patch_merge(&A, d, p, &out, &e))
        fail_msg("merge %s failed: %s", patch, e.msg);
    if (!kg_json_equal(out, J(expect)))
        fail_msg("merge %s into %s: got %s want %s", patch, doc, kg_json_to_string(&A, out, 0, NULL), expect);
    assert_string_equal(db, kg_json_to_string(&A, d, 0, NULL));
    assert_string_equal(pb, kg_json_to_string(&A, p, 0, NULL));
}

static void bad(const char *doc, const char *patch, const char *msg)
{
    kg_error e = {0};
    kg_json *out = NULL;
    assert_false(kg_patch_merge(&A, J(doc), J(patch), &out, &e));
    assert_null(out);
    assert_string_equal(e.msg, msg);
}

static void test_rfc7386_appendix_a(void **s)
{
    (void)s;
    ok("{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
    ok("{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}");
    ok("{\"a\":\"b\"}", "{\"a\":null}", "{}");
    ok("{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}");
    ok("{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
    ok("{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}");
    ok("{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}");
    ok("{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}");
    ok("[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]");
    ok("{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]");
    ok("{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}");
    ok("[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}");
    ok("{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}");
    /* the RFC makes "null" and "bar" patches replace the document; v4 rejects them */
    bad("{\"a\":\"foo\"}", "null", "Invalid JSON Patch");
    bad("{\"a\":\"foo\"}", "\"bar\"", "Invalid JSON Patch");
    bad("null", "{\"a\":1}", "Invalid JSON Document");
}

static void test_kubernetes_objects(void **s)
{
    (void)s;
    const char *dep = "{\"metadata\":{\"name\":\"d\",\"labels\":{\"app\":\"web\",\"tier\":\"fe\"}},"
                      "\"spec\":{\"replicas\":1,\"template\":{\"spec\":{\"containers\":["
                      "{\"name\":\"a\",\"image\":\"nginx:1\"},{\"name\":\"b\",\"image\":\"busybox\"}]}}}}";
    /* kubectl scale: a merge patch on spec.replicas */
    ok(dep, "{\"spec\":{\"replicas\":3}}",
       "{\"metadata\":{\"name\":\"d\",\"labels\":{\"app\":\"web\",\"tier\":\"fe\"}},"
       "\"spec\":{\"replicas\":3,\"template\":{\"spec\":{\"containers\":["
       "{\"name\":\"a\",\"image\":\"nginx:1\"},{\"name\":\"b\",\"image\":\"busybox\"}]}}}}");
    /* kubectl label x- : null removes; lists are replaced wholesale (no merge keys in merge patch) */
    ok(dep,
       "{\"metadata\":{\"labels\":{\"tier\":null}},\"spec\":{\"template\":{\"spec\":{\"containers\":"
       "[{\"name\":\"a\",\"image\":\"nginx:2\"}]}}}}",
       "{\"metadata\":{\"name\":\"d\",\"labels\":{\"app\":\"web\"}},"
       "\"spec\":{\"replicas\":1,\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"nginx:2\"}]}}}}");
    /* nulls inside added values are pruned, array elements included (v4 pruneAryNulls) */
    ok("{}", "{\"a\":{\"b\":null,\"c\":[null,{\"d\":null,\"e\":1}]}}", "{\"a\":{\"c\":[{\"e\":1}]}}");
    ok("{\"l\":[1]}", "{\"l\":[null,2]}", "{\"l\":[2]}");
    ok("{}", "[null,{\"a\":null}]", "[{}]");
    /* ...but an array or scalar that replaces an object is taken verbatim */
    ok("{\"o\":{\"a\":1}}", "{\"o\":[null,{\"b\":null}]}", "{\"o\":[null,{\"b\":null}]}");
    /* a null in the document survives unrelated patches; deleting a missing key is a no-op */
    ok("{\"x\":null}", "{\"y\":null}", "{\"x\":null}");
}

/* big maps take the indexed path: deletions, replacements and additions in one patch */
static void test_large_maps(void **s)
{
    (void)s;
    kg_buf doc = KG_BUF_INIT, patch = KG_BUF_INIT, want = KG_BUF_INIT;
    kg_buf_puts(&doc, "{\"data\":{");
    kg_buf_puts(&patch, "{\"data\":{");
    kg_buf_puts(&want, "{\"data\":{");
    for (int i = 0; i < 200; i++)
        kg_buf_printf(&doc, "%s\"k%d\":\"v%d\"", i ? "," : "", i, i);
    for (int i = 0; i < 300; i++) {
        /* 0-49 deleted, 50-149 replaced, 150-199 untouched, 200-299 added */
        if (i < 50)
            kg_buf_printf(&patch, "%s\"k%d\":null", i ? "," : "", i);
        else if (i < 150 || i >= 200)
            kg_buf_printf(&patch, ",\"k%d\":\"w%d\"", i, i);
        if (i >= 50)
            kg_buf_printf(&want, "%s\"k%d\":\"%c%d\"", i > 50 ? "," : "", i, (i < 150 || i >= 200) ? 'w' : 'v', i);
    }
    kg_buf_puts(&doc, "}}");
    kg_buf_puts(&patch, "}}");
    kg_buf_puts(&want, "}}");
    ok(kg_buf_cstr(&doc), kg_buf_cstr(&patch), kg_buf_cstr(&want));
    kg_error e = {0};
    kg_json *out;
    assert_true(kg_patch_merge(&A, J(kg_buf_cstr(&doc)), J(kg_buf_cstr(&patch)), &out, &e));
    assert_int_equal(kg_json_get(out, "data")->len, 250);
    /* a key deleted and set again in one patch (duplicate keys) ends up set */
    ok("{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9,\"j\":10,\"k\":11,"
       "\"l\":12,\"m\":13,\"n\":14,\"o\":15,\"p\":16,\"q\":17}",
       "{\"a\":null,\"q\":{\"x\":null,\"y\":1}}",
       "{\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9,\"j\":10,\"k\":11,"
       "\"l\":12,\"m\":13,\"n\":14,\"o\":15,\"p\":16,\"q\":{\"y\":1}}");
    kg_buf_free(&doc);
    kg_buf_free(&patch);
    kg_buf_free(&want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rfc7386_appendix_a, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kubernetes_objects, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_maps, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
