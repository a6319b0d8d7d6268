/* JSON DOM tests. jansson (strict RFC 8259) is the oracle: every document is parsed by both and the trees compared,
 * and inputs that jansson rejects must be rejected too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "json/template.h"
#include "json/shared.h"

static const char *POD =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-7d4b9c\",\"namespace\":\"prod\","
    "\"labels\":{\"app\":\"web\",\"tier\":\"frontend\",\"version\":\"1.2.3\"},"
    "\"annotations\":{\"note\":\"caf\xc3\xa9 \xe2\x9c\x93 \\u00e9 \\\"quoted\\\" "
    "<b>&amp;</b>\",\"emoji\":\"\\ud83d\\ude00\"},"
    "\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"web\",\"uid\":\"abc\","
    "\"controller\":true,\"blockOwnerDeletion\":true}]},"
    "\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"registry.example.com/web:1.2.3\","
    "\"resources\":{\"limits\":{\"cpu\":\"500m\",\"memory\":\"128Mi\"}},\"ports\":[{\"containerPort\":8080,"
    "\"protocol\":\"TCP\"}],\"env\":[{\"name\":\"X\",\"value\":\"line1\\nline2\\ttab\"}]}],"
    "\"terminationGracePeriodSeconds\":30,\"activeDeadlineSeconds\":9223372036854775807,"
    "\"ratio\":0.25,\"big\":-9223372036854775808,\"huge\":18446744073709551616,\"exp\":1e3,\"neg\":-0.5,"
    "\"nothing\":null,\"flag\":false,\"empty\":{},\"none\":[]}}";

/* compare a kgate tree with a jansson tree */
static int same(const kg_json *k, const json_t *j)
{
    switch (k->type) {
    case KG_JSON_NULL: return json_is_null(j);
    case KG_JSON_BOOL: return json_is_boolean(j) && (k->b == json_is_true(j));
    case KG_JSON_INT: return json_is_integer(j) && json_integer_value(j) == k->u.i;
    case KG_JSON_NUMBER: return json_is_number(j) && json_number_value(j) == k->u.num.d;
    case KG_JSON_STRING:
        return json_is_string(j) && json_string_length(j) == k->len &&
               memcmp(json_string_value(j), k->u.s, k->len) == 0;
    case KG_JSON_ARRAY:
        if (!json_is_array(j) || json_array_size(j) != k->len)
            return 0;
        for (uint32_t i = 0; i < k->len; i++)
            if (!same(k->u.items[i], json_array_get(j, i)))
                return 0;
        return 1;
    case KG_JSON_OBJECT: {
        if (!json_is_object(j) || json_object_size(j) != k->len)
            return 0;
        /* order kept: iterate jansson in insertion order (JSON_PRESERVE_ORDER is the default for iteration) */
        uint32_t i = 0;
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)j, key, val)
        {
            if (strcmp(k->u.members[i].key, key) != 0 || !same(k->u.members[i].val, val))
                return 0;
            i++;
        }
        return 1;
    }
    }
    return 0;
}

static void pod_roundtrip_matches_jansson(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err;
    kg_json *v = kg_json_parse(&a, POD, strlen(POD), &err);
    assert_non_null(v);
    json_error_t jerr;
    json_t *j = json_loads(POD, JSON_DECODE_ANY, &jerr);
    /* jansson rejects the 2^64 integer ("too big integer"), so compare without it */
    assert_null(j);
    const char *pod2 = strstr(POD, "\"huge\"");
    assert_non_null(pod2);
    char *copy = strdup(POD);
    char *h = strstr(copy, "18446744073709551616");
    memcpy(h, "18446744073709551616.0", 0); /* keep length; replace digits by a float jansson accepts */
    h[0] = '1', h[1] = '.';                 /* "1.446744073709551616" */
    j = json_loads(copy, JSON_DECODE_ANY, &jerr);
    assert_non_null(j);
    kg_json *v2 = kg_json_parse(&a, copy, strlen(copy), &err);
    assert_non_null(v2);
    assert_true(same(v2, j));

    /* serialize and reparse: identical tree; compact output without HTML escaping equals the input byte for byte */
    size_t n;
    char *out = kg_json_to_string(&a, v2, KG_JSON_WRITE_NO_ESCAPE_HTML, &n);
    kg_json *v3 = kg_json_parse(&a, out, n, &err);
    assert_non_null(v3);
    assert_true(kg_json_equal(v2, v3));
    assert_true(same(v3, j));
    json_decref(j);
    free(copy);

    /* exact int64 limits */
    assert_int_equal(kg_json_path(v, "spec.activeDeadlineSeconds")->u.i, INT64_MAX);
    assert_true(kg_json_path(v, "spec.big")->u.i == INT64_MIN);
    /* an integer beyond int64 keeps its text */
    kg_json *huge = kg_json_path(v, "spec.huge");
    assert_int_equal(huge->type, KG_JSON_NUMBER);
    char *hs = kg_json_to_string(&a, huge, 0, NULL);
    assert_string_equal(hs, "18446744073709551616");
    assert_string_equal(kg_json_to_string(&a, kg_json_path(v, "spec.exp"), 0, NULL), "1e3");
    kg_arena_free(&a);
}

static void html_and_control_escaping_like_go(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *s = kg_json_new_str(&a, "<a&b>\x01\xe2\x80\xa8\"\\/");
    char *out = kg_json_to_string(&a, s, 0, NULL);
    assert_string_equal(out, "\"\\u003ca\\u0026b\\u003e\\u0001\\u2028\\\"\\\\/\"");
    out = kg_json_to_string(&a, s, KG_JSON_WRITE_NO_ESCAPE_HTML, NULL);
    assert_string_equal(out, "\"<a&b>\\u0001\\u2028\\\"\\\\/\"");
    kg_arena_free(&a);
}

static void rejects_what_jansson_rejects(void **state)
{
    static const char *bad[] = {
        "",
        "{",
        "{\"a\":1,}",
        "[1,]",
        "[1 2]",
        "{\"a\" 1}",
        "{a:1}",
        "01",
        "1.",
        ".5",
        "1e",
        "-",
        "+1",
        "tru",
        "nul",
        "\"abc",
        "\"a\\x\"",
        "\"\\ud800\"",      /* lone high surrogate */
        "\"\\udc00\"",      /* lone low surrogate */
        "\"\xff\"",         /* invalid UTF-8 */
        "\"\xc0\xaf\"",     /* overlong */
        "\"\xed\xa0\x80\"", /* encoded surrogate */
        "\"a\nb\"",         /* raw control char */
        "[1] x",
        "{\"a\":1}}",
        "NaN",
        "Infinity",
    };
    kg_arena a;
    kg_arena_init(&a, 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kg_error err = {0};
        kg_json *v = kg_json_parse(&a, bad[i], strlen(bad[i]), &err);
        if (v)
            fail_msg("accepted bad input #%zu: %s", i, bad[i]);
        assert_int_equal(err.code, KG_EINVAL);
        assert_true(strlen(err.msg) > 0);
        json_error_t jerr;
        json_t *j = json_loads(bad[i], JSON_DECODE_ANY, &jerr);
        assert_null(j); /* the oracle agrees */
    }
    kg_error err;
    assert_null(kg_json_parse(&a, "", 0, &err));
    assert_string_equal(err.msg, "unexpected end of JSON input");
    assert_null(kg_json_parse(&a, "{\"a\":}", 6, &err));
    assert_string_equal(err.msg, "invalid character '}' looking for beginning of value (at offset 5)");
    kg_arena_free(&a);
}

static void duplicate_keys_reported_with_paths(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *doc = "{\"metadata\":{\"name\":\"a\",\"name\":\"b\"},\"spec\":{\"containers\":[{\"name\":\"x\","
                      "\"image\":\"i\",\"image\":\"j\"}]}}";
    kg_error err;
    kg_json_parse_info info;
    kg_json *v = kg_json_parse_ex(&a, doc, strlen(doc), KG_JSON_PARSE_DUP_REPORT, &info, &err);
    assert_non_null(v);
    assert_int_equal(info.ndups, 2);
    assert_string_equal(info.dups[0], "metadata.name");
    assert_string_equal(info.dups[1], "spec.containers[0].image");
    assert_string_equal(kg_json_path_str(v, "metadata.name"), "b"); /* last wins, as in Go */
    assert_null(kg_json_parse_ex(&a, doc, strlen(doc), KG_JSON_PARSE_DUP_ERROR, NULL, &err));
    assert_string_equal(err.msg, "duplicate field \"metadata.name\"");
    /* without flags duplicates are silently merged */
    v = kg_json_parse(&a, doc, strlen(doc), &err);
    assert_int_equal(kg_json_path(v, "metadata")->len, 1);
    kg_arena_free(&a);
}

/* the parser marks the strings it read as plain ASCII without escapes (what CEL's cost accounting relies on to
 * take byte lengths for code points); an escape, a non-ASCII byte or a constructed string leaves the mark off */
static void ascii_mark(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *text = "{\"plain\":\"web-7d4b9c6f5-x2x9k and a longer tail of ASCII text\",\"empty\":\"\","
                       "\"esc\":\"a\\nb\",\"uesc\":\"\\u0041\",\"utf8\":\"\xc3\xa9t\xc3\xa9\",\"late\":"
                       "\"aaaaaaaaaaaaaaaaaaaaa\xc3\xa9\","
                       "\"arr\":[\"x\",\"y\\\"\"]}";
    kg_error err;
    kg_json *d = kg_json_parse(&a, text, strlen(text), &err);
    assert_non_null(d);
    assert_true(kg_json_get(d, "plain")->ascii);
    assert_true(kg_json_get(d, "empty")->ascii);
    assert_false(kg_json_get(d, "esc")->ascii);
    assert_false(kg_json_get(d, "uesc")->ascii); /* ASCII in the end, but unescaped on the slow path: unknown */
    assert_false(kg_json_get(d, "utf8")->ascii);
    assert_false(kg_json_get(d, "late")->ascii);
    assert_true(kg_json_at(kg_json_get(d, "arr"), 0)->ascii);
    assert_false(kg_json_at(kg_json_get(d, "arr"), 1)->ascii);
    assert_false(kg_json_new_str(&a, "constructed")->ascii);
    /* a copy keeps the mark (same bytes) */
    kg_json *c = kg_json_clone(&a, d);
    assert_true(kg_json_get(c, "plain")->ascii);
    assert_false(kg_json_get(c, "utf8")->ascii);
    kg_arena_free(&a);
}

static void depth_limit(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    size_t n = 5000;
    char *deep = malloc(2 * n + 1);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = 0;
    kg_error err;
    assert_null(kg_json_parse(&a, deep, 2 * n, &err));
    assert_non_null(strstr(err.msg, "exceeded max depth"));
    free(deep);
    kg_arena_free(&a);
}

static void mutation_api(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err;
    kg_json *o = kg_json_parse(&a, "{\"b\":1,\"a\":[1,2,3]}", 19, &err);
    kg_json_set(&a, o, "b", kg_json_new_str(&a, "x")); /* replace keeps position */
    kg_json_set(&a, o, "c", kg_json_new_bool(&a, true));
    kg_json *arr = kg_json_get(o, "a");
    kg_json_array_insert(&a, arr, 0, kg_json_new_int(&a, 0));
    kg_json_array_remove(arr, 2);
    kg_json_array_append(&a, arr, kg_json_new_double(&a, 2.5));
    /* integral doubles within 2^53 become ints; beyond int64 (no undefined cast, UBSan) and NaN stay numbers */
    assert_int_equal(kg_json_new_double(&a, 3.0)->type, KG_JSON_INT);
    assert_int_equal(kg_json_new_double(&a, 2.2222e28)->type, KG_JSON_NUMBER);
    assert_int_equal(kg_json_new_double(&a, -1e300)->type, KG_JSON_NUMBER);
    assert_int_equal(kg_json_new_double(&a, 0.0 / 0.0)->type, KG_JSON_NUMBER);
    kg_json_get_or_add_object(&a, o, "meta");
    kg_json_set(&a, kg_json_get(o, "meta"), "k", kg_json_new_null(&a));
    assert_string_equal(kg_json_to_string(&a, o, 0, NULL),
                        "{\"b\":\"x\",\"a\":[0,1,3,2.5],\"c\":true,\"meta\":{\"k\":null}}");
    assert_true(kg_json_del(o, "b"));
    assert_false(kg_json_del(o, "b"));
    kg_json *c = kg_json_clone(&a, o);
    assert_true(kg_json_equal(o, c));
    kg_json_set(&a, c, "c", kg_json_new_bool(&a, false));
    assert_false(kg_json_equal(o, c));
    /* a node copy shares strings but not structure: editing it leaves the source alone */
    kg_json *n = kg_json_clone_nodes(&a, o);
    assert_true(kg_json_equal(o, n));
    assert_ptr_equal(kg_json_at(kg_json_get(o, "a"), 0) != NULL, true);
    kg_json_set(&a, kg_json_get(n, "meta"), "k", kg_json_new_int(&a, 7));
    kg_json_array_append(&a, kg_json_get(n, "a"), kg_json_new_int(&a, 9));
    assert_string_equal(kg_json_to_string(&a, o, 0, NULL), "{\"a\":[0,1,3,2.5],\"c\":true,\"meta\":{\"k\":null}}");
    assert_string_equal(kg_json_to_string(&a, n, 0, NULL), "{\"a\":[0,1,3,2.5,9],\"c\":true,\"meta\":{\"k\":7}}");
    assert_ptr_equal(o->u.members[0].key, n->u.members[0].key);
    /* member order does not matter for equality; 1 == 1.0 */
    kg_json *x = kg_json_parse(&a, "{\"p\":1,\"q\":[true]}", 18, &err);
    kg_json *y = kg_json_parse(&a, "{\"q\":[true],\"p\":1.0}", 20, &err);
    assert_true(kg_json_equal(x, y));
    assert_string_equal(kg_json_to_string(&a, o, KG_JSON_WRITE_PRETTY, NULL),
                        "{\n    \"a\": [\n        0,\n        1,\n        3,\n        2.5\n    ],\n    \"c\": true,\n"
                        "    \"meta\": {\n        \"k\": null\n    }\n}");
    kg_arena_free(&a);
}

/* kg_json_clone lays the copy out in one block: every string length around the short-copy boundaries, keys,
 * raw number texts, embedded NULs and nesting come out equal, own their bytes, and the copy can still grow. */
static void test_clone_layout(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err;
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "{\"arr\":[");
    for (int n = 0; n <= 40; n++) {
        kg_buf_puts(&b, n ? ",\"" : "\"");
        for (int i = 0; i < n; i++)
            kg_buf_putc(&b, (char)('a' + (i * 7 + n) % 26));
        kg_buf_putc(&b, '"');
    }
    kg_buf_puts(&b, ",1.50,-0.0,12345678901234567890,\"nul\\u0000inside\",[],{},null,true,[[{\"x\":[1]}]]]");
    for (int n = 1; n <= 20; n++) {
        kg_buf_puts(&b, ",\"");
        for (int i = 0; i < n; i++)
            kg_buf_putc(&b, (char)('A' + (i + n) % 26));
        kg_buf_printf(&b, "\":%d", n);
    }
    kg_buf_puts(&b, ",\"\":\"empty key\"}");
    const char *text = kg_buf_cstr(&b);
    kg_json *o = kg_json_parse(&a, text, strlen(text), &err);
    assert_non_null(o);
    kg_json *c = kg_json_clone(&a, o);
    assert_true(kg_json_equal(o, c));
    assert_string_equal(kg_json_to_string(&a, c, 0, NULL), kg_json_to_string(&a, o, 0, NULL));
    const kg_json *arr = kg_json_get(o, "arr"), *carr = kg_json_get(c, "arr");
    for (uint32_t i = 0; i < arr->len; i++) {
        const kg_json *s = arr->u.items[i], *d = carr->u.items[i];
        assert_ptr_not_equal(s, d);
        if (s->type == KG_JSON_STRING) {
            assert_ptr_not_equal(s->u.s, d->u.s);
            assert_int_equal(s->len, d->len);
            assert_memory_equal(s->u.s, d->u.s, s->len + 1); /* NUL-terminated, embedded NULs kept */
        }
    }
    for (uint32_t i = 0; i < o->len; i++) {
        assert_ptr_not_equal(o->u.members[i].key, c->u.members[i].key);
        assert_int_equal(strlen(c->u.members[i].key), c->u.members[i].key_len);
    }
    /* the copy grows and changes without touching the source */
    kg_json_set(&a, c, "added", kg_json_new_str(&a, "v"));
    kg_json_array_append(&a, kg_json_get(c, "arr"), kg_json_new_int(&a, 7));
    kg_json_at(kg_json_get(c, "arr"), 1)->u.s = "changed";
    assert_null(kg_json_get(o, "added"));
    assert_int_equal(kg_json_get(o, "arr")->len + 1, kg_json_get(c, "arr")->len);
    assert_string_equal(kg_json_at(kg_json_get(o, "arr"), 1)->u.s, "b");
    assert_null(kg_json_clone(&a, NULL));
    kg_buf_free(&b);
    kg_arena_free(&a);
}

/* Dotted paths: segments split at every '.', empty segments look up the empty key, a trailing dot is ignored,
 * keys that contain a dot are unreachable by path; key compares at every length around the 4/8-byte loads. */
static void paths_and_key_lengths(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err;
    const char *doc = "{\"a\":{\"b\":{\"c\":\"abc\"},\"\":{\"e\":1}},\"x.y\":2,\"\":{\"z\":3}}";
    kg_json *v = kg_json_parse(&a, doc, strlen(doc), &err);
    assert_non_null(v);
    assert_ptr_equal(kg_json_path(v, ""), v);
    assert_string_equal(kg_json_path_str(v, "a.b.c"), "abc");
    assert_string_equal(kg_json_path_str(v, "a.b.c."), "abc");
    assert_null(kg_json_path(v, "a.b.c.d"));
    assert_null(kg_json_path(v, "a.bc"));
    assert_null(kg_json_path(v, "a.b.cc"));
    assert_int_equal(kg_json_path(v, "a..e")->u.i, 1);
    assert_int_equal(kg_json_path(v, ".z")->u.i, 3);
    assert_null(kg_json_path(v, "x.y"));
    assert_int_equal(kg_json_get(v, "x.y")->u.i, 2);
    assert_null(kg_json_path_str(v, "a.b"));
    kg_json *o = kg_json_new_object(&a);
    char key[40];
    for (int n = 0; n < 30; n++) {
        for (int i = 0; i < n; i++)
            key[i] = (char)('a' + (i * 5 + n) % 26);
        key[n] = 0;
        kg_json_setn(&a, o, key, (size_t)n, kg_json_new_int(&a, n));
    }
    for (int n = 0; n < 30; n++) {
        for (int i = 0; i < n; i++)
            key[i] = (char)('a' + (i * 5 + n) % 26);
        key[n] = 0;
        assert_int_equal(kg_json_getn(o, key, (size_t)n)->u.i, n);
        for (int i = 0; i < n; i++) { /* one byte off anywhere: no match */
            key[i] ^= 0x20;
            assert_null(kg_json_getn(o, key, (size_t)n));
            key[i] ^= 0x20;
        }
    }
    assert_int_equal(o->len, 30);
    kg_arena_free(&a);
}

/* Templates: an instance equals the source, shares its strings, owns its nodes (editing one instance leaves the
 * template and other instances alone) and grows like any object; empty containers, nested arrays, scalar roots. */
static void template_instances(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err;
    const char *doc = "{\"name\":\"kube-api-access\",\"projected\":{\"defaultMode\":420,\"sources\":[{\"sa\":"
                      "{\"expirationSeconds\":3607,\"path\":\"token\"}},{\"cm\":{\"items\":[{\"key\":\"ca.crt\"}]}},"
                      "[],{},null,[1,[2,[3]]],true,1.5]},\"e\":{},\"f\":[]}";
    kg_json *src = kg_json_parse(&a, doc, strlen(doc), &err);
    assert_non_null(src);
    kg_json_template *t = kg_json_template_new(src);
    assert_non_null(t);
    kg_json *x = kg_json_template_instance(&a, t), *y = kg_json_template_instance(&a, t);
    assert_true(kg_json_equal(src, x));
    assert_string_equal(kg_json_to_string(&a, x, 0, NULL), doc);
    assert_ptr_not_equal(x, y);
    assert_ptr_equal(kg_json_get(x, "name")->u.s, kg_json_get(src, "name")->u.s); /* strings shared */
    assert_ptr_not_equal(kg_json_get(x, "name"), kg_json_get(y, "name"));         /* nodes not */
    /* edit x everywhere: y, the template and the source keep their values */
    kg_json_set(&a, x, "name", kg_json_new_str(&a, "other"));
    kg_json_set(&a, x, "added", kg_json_new_int(&a, 1));
    kg_json *sources = kg_json_path(x, "projected.sources");
    kg_json_array_append(&a, sources, kg_json_new_int(&a, 9));
    kg_json_set(&a, kg_json_path(kg_json_at(sources, 0), "sa"), "path", kg_json_new_str(&a, "changed"));
    kg_json_array_append(&a, kg_json_get(x, "f"), kg_json_new_null(&a));
    kg_json_set(&a, kg_json_get(x, "e"), "k", kg_json_new_bool(&a, false));
    assert_true(kg_json_equal(src, y));
    assert_true(kg_json_equal(src, kg_json_template_instance(&a, t)));
    assert_string_equal(kg_json_to_string(&a, src, 0, NULL), doc);
    assert_string_equal(kg_json_path_str(kg_json_at(kg_json_path(x, "projected.sources"), 0), "sa.path"), "changed");
    assert_int_equal(kg_json_path(x, "projected.sources")->len, 9);
    kg_json_template_free(t);
    /* a scalar root */
    kg_json *n = kg_json_new_int(&a, 42);
    t = kg_json_template_new(n);
    kg_json *ni = kg_json_template_instance(&a, t);
    assert_ptr_not_equal(ni, n);
    assert_int_equal(ni->u.i, 42);
    kg_json_template_free(t);
    assert_null(kg_json_template_new(NULL));
    kg_arena_free(&a);
}

static int memo_builds;
static void *count_members(kg_arena *a, const kg_json *root, void *ud)
{
    (void)ud;
    memo_builds++;
    size_t *n = kg_arena_alloc(a, sizeof *n);
    *n = root->len;
    return n;
}

/* Shared documents: a pinned copy lives until its arena is reset, independent of the source; the memo is built once
 * per document; references taken by pins keep a document alive after its owner dropped it (LSan checks the frees). */
static void shared_documents(void **state)
{
    (void)state;
    kg_arena a, req;
    kg_arena_init(&a, 0);
    kg_arena_init(&req, 0);
    kg_error err;
    kg_json *src = kg_json_parse(&a, "{\"x\":1,\"y\":[true]}", 18, &err);
    kg_json_shared *p = kg_json_shared_new_pinned(&req, src);
    kg_json_set(&a, src, "x", kg_json_new_int(&a, 2)); /* the document holds its own copy */
    assert_int_equal(kg_json_get(kg_json_shared_root(p), "x")->u.i, 1);
    memo_builds = 0;
    const size_t *n1 = kg_json_shared_memo(p, 0, count_members, NULL);
    const size_t *n2 = kg_json_shared_memo(p, 0, count_members, NULL);
    assert_ptr_equal(n1, n2);
    assert_int_equal(*n1, 2);
    assert_int_equal(memo_builds, 1);
    kg_arena_reset(&req); /* frees p and its memo */

    kg_json_shared *owned = kg_json_shared_new(src);
    kg_json_shared_pin(owned, &req);
    kg_json_shared_unref(owned); /* the owner lets go; the pin keeps it */
    assert_int_equal(kg_json_get(kg_json_shared_root(owned), "x")->u.i, 2);
    kg_arena_free(&req);
    kg_arena_free(&a);
}

/* Random documents generated and dumped by jansson, parsed by kgate, compared node by node. */
static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static json_t *random_json(int depth)
{
    int kind = (int)(next_rand() % (depth > 4 ? 5 : 7));
    switch (kind) {
    case 0: return json_null();
    case 1: return json_boolean(next_rand() & 1);
    case 2: return json_integer((json_int_t)next_rand());
    case 3: return json_real((double)(int64_t)next_rand() / 1e6);
    case 4: {
        char s[24];
        size_t n = next_rand() % 12;
        static const char *pieces[] = {"a",    "\xc3\xa9", "\xe2\x9c\x93", "\xf0\x9f\x98\x80", "\"", "\\", "\n", "<",
                                       "\x01", " "};
        s[0] = 0;
        size_t len = 0;
        for (size_t i = 0; i < n && len < 16; i++) {
            const char *p = pieces[next_rand() % 10];
            strcat(s, p);
            len += strlen(p);
        }
        return json_string(s);
    }
    case 5: {
        json_t *arr = json_array();
        int n = (int)(next_rand() % 5);
        for (int i = 0; i < n; i++)
            json_array_append_new(arr, random_json(depth + 1));
        return arr;
    }
    default: {
        json_t *obj = json_object();
        int n = (int)(next_rand() % 5);
        for (int i = 0; i < n; i++) {
            char key[16];
            snprintf(key, sizeof key, "k%d", (int)(next_rand() % 100));
            json_object_set_new(obj, key, random_json(depth + 1));
        }
        return obj;
    }
    }
}

static void differential_random_documents(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    for (int i = 0; i < 3000; i++) {
        json_t *j = random_json(0);
        char *text = json_dumps(j, JSON_ENCODE_ANY | JSON_PRESERVE_ORDER | (i % 2 ? JSON_INDENT(2) : JSON_COMPACT));
        kg_error err;
        kg_json *k = kg_json_parse(&a, text, strlen(text), &err);
        if (!k)
            fail_msg("kgate rejected jansson output: %s (%s)", text, err.msg);
        if (!same(k, j))
            fail_msg("tree differs for %s", text);
        /* and our output is accepted by jansson with the same tree */
        char *back = kg_json_to_string(&a, k, 0, NULL);
        json_error_t jerr;
        json_t *j2 = json_loads(back, JSON_DECODE_ANY, &jerr);
        if (!j2 || !json_equal(j, j2))
            fail_msg("jansson disagrees on kgate output %s", back);
        json_decref(j2);
        free(text);
        json_decref(j);
        if (i % 100 == 0)
            kg_arena_reset(&a);
    }
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pod_roundtrip_matches_jansson),
        cmocka_unit_test(shared_documents),
        cmocka_unit_test(test_clone_layout),
        cmocka_unit_test(paths_and_key_lengths),
        cmocka_unit_test(template_instances),
        cmocka_unit_test(html_and_control_escaping_like_go),
        cmocka_unit_test(rejects_what_jansson_rejects),
        cmocka_unit_test(duplicate_keys_reported_with_paths),
        cmocka_unit_test(depth_limit),
        cmocka_unit_test(ascii_mark),
        cmocka_unit_test(mutation_api),
        cmocka_unit_test(differential_random_documents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
