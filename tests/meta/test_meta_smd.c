/* The structured merge engine (meta/smd/smd.h): field sets and their FieldsV1 encoding, upstream's path printing,
 * the apply merge of each list type, the Update and Apply algorithms (ownership, pruning, conflicts and their 409
 * text, force, before-first-apply, the cap of Update entries), over a small hand-written schema. The expected
 * texts are the recorded upstream results of the reference (apiserver-fidelity §3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "meta/smd/smd.h"

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

static char *S(const kg_json *v)
{
    size_t n;
    return kg_json_to_string(&A, v, KG_JSON_WRITE_NO_ESCAPE_HTML, &n);
}

/* ---- a miniature Pod / Deployment schema ---- */

typedef struct tfield {
    const char *type, *name;
    kg_smd_type t;
} tfield;

static const tfield FIELDS[] = {
    {"Obj", "metadata", {KG_SMD_GRANULAR, false, NULL, "Meta"}},
    {"Obj", "spec", {KG_SMD_GRANULAR, false, NULL, "Spec"}},
    {"Meta", "labels", {KG_SMD_GRANULAR, true, NULL, NULL}},
    {"Meta", "finalizers", {KG_SMD_SET, false, NULL, NULL}},
    {"Spec", "containers", {KG_SMD_ASSOC, false, "name", "Container"}},
    {"Spec", "tolerations", {KG_SMD_ATOMIC, false, NULL, NULL}},
    {"Spec", "selector", {KG_SMD_GRANULAR, false, NULL, "Selector"}},
    {"Container", "ports", {KG_SMD_ASSOC, false, "containerPort,protocol", "Port"}},
    {"Container", "args", {KG_SMD_ATOMIC, false, NULL, NULL}},
};

static bool tfield_lookup(const kg_smd_schema *s, const void *h, const char *name, kg_smd_type *out)
{
    (void)s;
    for (size_t i = 0; i < sizeof FIELDS / sizeof FIELDS[0]; i++)
        if (!strcmp(FIELDS[i].type, h) && !strcmp(FIELDS[i].name, name)) {
            *out = FIELDS[i].t;
            return true;
        }
    return false;
}

static const kg_smd_schema SCHEMA = {tfield_lookup, NULL};
#define ROOT kg_smd_root("Obj")

static const char *fieldset(const char *obj)
{
    kg_fs *s;
    const char *err = NULL;
    if (!kg_smd_fieldset(&A, &SCHEMA, ROOT, J(obj), &s, &err))
        fail_msg("fieldset failed: %s", err);
    return S(kg_fs_to_json(&A, s));
}

/* the reference's FieldsV1 example, byte for byte */
static void test_fieldset_encoding(void **s)
{
    (void)s;
    assert_string_equal(
        fieldset("{\"metadata\":{\"labels\":{\"app\":\"x\"}},\"spec\":{\"containers\":[{\"name\":\"nginx\","
                 "\"image\":\"nginx\"}]}}"),
        "{\"f:metadata\":{\"f:labels\":{\"f:app\":{}}},\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"nginx\\\"}"
        "\":{\".\":{},\"f:image\":{},\"f:name\":{}}}}}");
    /* keyed by two fields, sorted, protocol defaulted; sets by value; atomic lists and empty maps are leaves */
    assert_string_equal(
        fieldset(
            "{\"metadata\":{\"finalizers\":[\"b\",\"a\"],\"labels\":{}},\"spec\":{\"tolerations\":[{\"k\":1}],"
            "\"containers\":[{\"name\":\"c\",\"args\":[\"x\"],\"ports\":[{\"protocol\":\"UDP\",\"containerPort\":53},"
            "{\"containerPort\":80}]}]}}"),
        "{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"a\\\"\":{},\"v:\\\"b\\\"\":{}},\"f:labels\":{}},\"f:spec\":{"
        "\"f:containers\":{\"k:{\\\"name\\\":\\\"c\\\"}\":{\".\":{},\"f:args\":{},\"f:name\":{},\"f:ports\":{"
        "\"k:{\\\"containerPort\\\":53,\\\"protocol\\\":\\\"UDP\\\"}\":{\".\":{},\"f:containerPort\":{},"
        "\"f:protocol\":{}},\"k:{\\\"containerPort\\\":80,\\\"protocol\\\":\\\"TCP\\\"}\":{\".\":{},"
        "\"f:containerPort\":{}}}}},\"f:tolerations\":{}}}");
    /* no schema: maps granular, lists atomic */
    kg_fs *fs;
    const char *err;
    assert_true(kg_smd_fieldset(&A, NULL, kg_smd_root(NULL), J("{\"a\":{\"b\":[1,2]},\"c\":null}"), &fs, &err));
    assert_string_equal(S(kg_fs_to_json(&A, fs)), "{\"f:a\":{\"f:b\":{}},\"f:c\":{}}");
}

static void test_fieldset_errors(void **s)
{
    (void)s;
    kg_fs *fs;
    const char *err = NULL;
    assert_false(kg_smd_fieldset(&A, &SCHEMA, ROOT,
                                 J("{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"a\"}]}}"), &fs, &err));
    assert_string_equal(err, ".spec.containers: duplicate entries for key [name=\"a\"]");
    assert_false(kg_smd_fieldset(&A, &SCHEMA, ROOT, J("{\"spec\":{\"containers\":[{\"image\":\"a\"}]}}"), &fs, &err));
    assert_string_equal(err, ".spec.containers: associative list with keys has an element that omits key field "
                             "\"name\" (and doesn't have default value)");
}

static void test_fieldsv1_roundtrip_and_paths(void **s)
{
    (void)s;
    const char *text = "{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"x\\\"\":{}}},\"f:spec\":{\"f:containers\":{"
                       "\"k:{\\\"name\\\":\\\"nginx\\\"}\":{\".\":{},\"f:image\":{}}},\"f:replicas\":{}}}";
    kg_fs *fs;
    const char *err;
    assert_true(kg_fs_from_json(&A, J(text), &fs, &err));
    assert_string_equal(S(kg_fs_to_json(&A, fs)), text);
    const char **paths;
    size_t n = kg_fs_paths(&A, fs, &paths);
    assert_int_equal(n, 4);
    assert_string_equal(paths[0], ".metadata.finalizers[=\"x\"]");
    assert_string_equal(paths[1], ".spec.replicas");
    assert_string_equal(paths[2], ".spec.containers[name=\"nginx\"]");
    assert_string_equal(paths[3], ".spec.containers[name=\"nginx\"].image");
    assert_false(kg_fs_from_json(&A, J("{\"x:a\":{}}"), &fs, &err));
    assert_false(kg_fs_from_json(&A, J("{\"f:a\":1}"), &fs, &err));
}

static const char *merge(const char *live, const char *config)
{
    kg_json *out;
    const char *err = NULL;
    if (!kg_smd_merge(&A, &SCHEMA, ROOT, J(live), J(config), &out, &err))
        fail_msg("merge failed: %s", err);
    return S(out);
}

static void test_merge_list_types(void **s)
{
    (void)s;
    /* keyed: shared items merge, live-only items keep their place, config items come in config order */
    assert_string_equal(merge("{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"1\"},{\"name\":\"b\"},"
                              "{\"name\":\"c\"}]}}",
                              "{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"3\"},{\"name\":\"d\"},"
                              "{\"name\":\"a\",\"image\":\"2\"}]}}"),
                        "{\"spec\":{\"containers\":[{\"name\":\"b\"},{\"name\":\"c\",\"image\":\"3\"},{\"name\":\"d\"},"
                        "{\"name\":\"a\",\"image\":\"2\"}]}}");
    /* set: values added once */
    assert_string_equal(merge("{\"metadata\":{\"finalizers\":[\"a\",\"b\"]}}", "{\"metadata\":{\"finalizers\":[\"c\","
                                                                               "\"a\"]}}"),
                        "{\"metadata\":{\"finalizers\":[\"c\",\"a\",\"b\"]}}");
    /* atomic: replaced; untagged lists too */
    assert_string_equal(
        merge("{\"spec\":{\"tolerations\":[1,2],\"x\":[1]}}", "{\"spec\":{\"tolerations\":[3],\"x\":[2]}}"),
        "{\"spec\":{\"tolerations\":[3],\"x\":[2]}}");
    /* maps merge, null removes, scalars replace */
    assert_string_equal(merge("{\"metadata\":{\"labels\":{\"a\":\"1\",\"b\":\"2\"}}}",
                              "{\"metadata\":{\"labels\":{\"a\":null,\"c\":\"3\"}}}"),
                        "{\"metadata\":{\"labels\":{\"b\":\"2\",\"c\":\"3\"}}}");
}

/* ---- managers ---- */

static kg_smd_op op_for(const char *manager)
{
    kg_smd_op op = {0};
    op.schema = &SCHEMA;
    op.root = ROOT;
    op.manager = manager;
    op.api_version = "v1";
    op.subresource = "";
    op.now = "2026-01-01T00:00:00Z";
    return op;
}

static kg_json *apply(kg_json *live, const char *manager, const char *config, bool force, kg_smd_managers *m,
                      kg_smd_apply_result *res)
{
    kg_smd_op op = op_for(manager);
    const char *err = NULL;
    if (!kg_smd_apply(&A, &op, live, J(config), force, m, res, &err))
        fail_msg("apply failed: %s", err);
    return res->object;
}

static const char *entry_set(const kg_smd_managers *m, const char *manager)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->v[i].manager, manager))
            return S(kg_fs_to_json(&A, m->v[i].set));
    return NULL;
}

static void test_apply_conflict_force_and_removal(void **s)
{
    (void)s;
    kg_smd_managers m = {0};
    kg_smd_apply_result r;
    kg_json *o = apply(NULL, "a",
                       "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\",\"labels\":{\"k\":\"1\",\"j\":"
                       "\"1\"}},\"data\":{\"p\":\"1\",\"q\":\"1\"}}",
                       false, &m, &r);
    assert_true(r.changed);
    assert_string_equal(entry_set(&m, "a"),
                        "{\"f:data\":{\"f:p\":{},\"f:q\":{}},\"f:metadata\":{\"f:labels\":{\"f:j\":{},\"f:k\":{}}}}");
    /* the same value is no conflict: both own it */
    o = apply(o, "b", "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\"},\"data\":{\"p\":\"1\"}}", false, &m, &r);
    assert_int_equal(r.nconflicts, 0);
    assert_false(r.changed);
    assert_string_equal(entry_set(&m, "b"), "{\"f:data\":{\"f:p\":{}}}");
    /* a different value is: 409 text as upstream */
    kg_smd_apply_result c;
    apply(o, "b", "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\"},\"data\":{\"p\":\"2\"}}", false, &m, &c);
    assert_int_equal(c.nconflicts, 1);
    assert_string_equal(kg_smd_conflict_message(&A, c.conflicts, c.nconflicts),
                        "Apply failed with 1 conflict: conflict with \"a\": .data.p");
    apply(o, "b",
          "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\",\"labels\":{\"k\":\"2\"}},\"data\":{\"p\":\"2\","
          "\"q\":\"2\"}}",
          false, &m, &c);
    assert_int_equal(c.nconflicts, 3);
    assert_string_equal(kg_smd_conflict_message(&A, c.conflicts, c.nconflicts),
                        "Apply failed with 3 conflicts: conflicts with \"a\":\n- .data.p\n- .data.q\n- "
                        ".metadata.labels.k");
    /* force: ownership moves */
    o = apply(o, "b", "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\"},\"data\":{\"p\":\"2\"}}", true, &m, &r);
    assert_string_equal(S(kg_json_get(o, "data")), "{\"p\":\"2\",\"q\":\"1\"}");
    assert_string_equal(entry_set(&m, "a"), "{\"f:data\":{\"f:q\":{}},\"f:metadata\":{\"f:labels\":{\"f:j\":{},"
                                            "\"f:k\":{}}}}");
    /* removal: a stops applying label j and data.q; p is b's now and stays */
    o = apply(o, "a", "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\",\"labels\":{\"k\":\"1\"}}}", false, &m, &r);
    assert_string_equal(S(o), "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\",\"labels\":{\"k\":\"1\"}},"
                              "\"data\":{\"p\":\"2\"}}");
    /* the encoded list: Apply entries, then by time and manager */
    assert_string_equal(S(kg_smd_managers_encode(&A, &m)),
                        "[{\"manager\":\"a\",\"operation\":\"Apply\",\"apiVersion\":\"v1\",\"time\":\"2026-01-01T00:00:"
                        "00Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:labels\":{\"f:k\":{}}}}},"
                        "{\"manager\":\"b\",\"operation\":\"Apply\",\"apiVersion\":\"v1\",\"time\":\"2026-01-01T00:00:"
                        "00Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:data\":{\"f:p\":{}}}}]");
}

static void test_apply_list_item_removal(void **s)
{
    (void)s;
    kg_smd_managers m = {0};
    kg_smd_apply_result r;
    kg_json *o = apply(
        NULL, "a", "{\"spec\":{\"containers\":[{\"name\":\"x\",\"image\":\"1\"},{\"name\":\"y\",\"image\":\"1\"}]}}",
        false, &m, &r);
    o = apply(o, "a", "{\"spec\":{\"containers\":[{\"name\":\"y\",\"image\":\"1\"}]}}", false, &m, &r);
    assert_string_equal(S(o), "{\"spec\":{\"containers\":[{\"name\":\"y\",\"image\":\"1\"}]}}");
}

static void test_update_and_before_first_apply(void **s)
{
    (void)s;
    kg_smd_managers m = {0};
    const char *err;
    kg_json *v1 =
        J("{\"apiVersion\":\"apps/v1\",\"metadata\":{\"name\":\"d\",\"uid\":\"u\"},\"spec\":{\"replicas\":1}}");
    kg_smd_op up = op_for("before-first-apply");
    up.api_version = "apps/v1";
    assert_true(kg_smd_update(&A, &up, NULL, v1, &m, &err));
    assert_string_equal(S(kg_smd_managers_encode(&A, &m)),
                        "[{\"manager\":\"before-first-apply\",\"operation\":\"Update\",\"apiVersion\":\"apps/v1\","
                        "\"time\":\"2026-01-01T00:00:00Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{"
                        "\"f:replicas\":{}}}}]");
    kg_smd_apply_result r;
    apply(v1, "kubectl", "{\"apiVersion\":\"apps/v1\",\"metadata\":{\"name\":\"d\"},\"spec\":{\"replicas\":2}}", false,
          &m, &r);
    assert_int_equal(r.nconflicts, 1);
    assert_string_equal(
        kg_smd_conflict_message(&A, r.conflicts, r.nconflicts),
        "Apply failed with 1 conflict: conflict with \"before-first-apply\" using apps/v1: .spec.replicas");
    assert_string_equal(kg_smd_manager_describe(&A, r.conflicts[0].owner), "\"before-first-apply\" using apps/v1");
    /* an Update takes over what it changed and keeps its time when nothing changed */
    kg_json *v2 =
        J("{\"apiVersion\":\"apps/v1\",\"metadata\":{\"name\":\"d\"},\"spec\":{\"replicas\":3,\"paused\":true}}");
    kg_smd_op up2 = op_for("kube-controller-manager");
    up2.api_version = "apps/v1";
    assert_true(kg_smd_update(&A, &up2, v1, v2, &m, &err));
    assert_null(entry_set(&m, "before-first-apply")); /* its only field moved: the entry is gone */
    assert_string_equal(entry_set(&m, "kube-controller-manager"), "{\"f:spec\":{\"f:paused\":{},\"f:replicas\":{}}}");
    up2.now = "2026-02-02T00:00:00Z";
    assert_true(kg_smd_update(&A, &up2, v2, v2, &m, &err));
    assert_string_equal(m.v[0].time, "2026-01-01T00:00:00Z");
}

static void test_update_cap(void **s)
{
    (void)s;
    kg_smd_managers m = {0};
    const char *err;
    kg_json *prev = J("{}");
    for (int i = 0; i < 12; i++) {
        kg_json *next = kg_json_clone(&A, prev);
        kg_json_set(&A, next, kg_arena_sprintf(&A, "f%02d", i), kg_json_new_int(&A, i));
        kg_smd_op op = op_for(kg_arena_sprintf(&A, "m%02d", i));
        op.now = kg_arena_sprintf(&A, "2026-01-01T00:00:%02dZ", i);
        assert_true(kg_smd_update(&A, &op, prev, next, &m, &err));
        prev = next;
    }
    assert_int_equal(m.n, 10);
    assert_string_equal(entry_set(&m, "ancient-changes"), "{\"f:f00\":{},\"f:f01\":{},\"f:f02\":{}}");
    assert_null(entry_set(&m, "m00"));
    assert_non_null(entry_set(&m, "m11"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fieldset_encoding),
        cmocka_unit_test(test_fieldset_errors),
        cmocka_unit_test(test_fieldsv1_roundtrip_and_paths),
        cmocka_unit_test(test_merge_list_types),
        cmocka_unit_test(test_apply_conflict_force_and_removal),
        cmocka_unit_test(test_apply_list_item_removal),
        cmocka_unit_test(test_update_and_before_first_apply),
        cmocka_unit_test(test_update_cap),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
