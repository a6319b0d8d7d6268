/* A CRD version's structural schema as the structured-merge schema of server-side apply (apiext/smd.c): list types
 * (map with keys, set, atomic, unset), map types, undeclared fields deduced, ObjectMeta's semantics for metadata
 * (root and embedded resources), and whole applies over it: two managers sharing a listType=map list, a conflict
 * on an entry, force, removal; atomic lists and maps replaced as a whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "apiext/crd.h"

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
    kg_json *v = kg_json_parse(&A, s, strlen(s), &err);
    if (!v)
        fail_msg("bad test JSON: %s (%s)", err.msg, s);
    return v;
}

static const char *S(const kg_json *v)
{
    return kg_json_to_string(&A, v, KG_JSON_WRITE_NO_ESCAPE_HTML, NULL);
}

static const char SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"metadata\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}},"
    "\"spec\":{\"type\":\"object\",\"properties\":{"
    "\"ports\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":"
    "[\"name\"],\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"protocol\":{\"type\":\"string\"},\"port\":{\"type\":\"integer\"}}}},"
    "\"pairs\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":"
    "[\"a\",\"b\"],\"items\":{\"type\":\"object\"}},"
    "\"tags\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"set\",\"items\":{\"type\":\"string\"}},"
    "\"args\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"atomic\",\"items\":{\"type\":\"string\"}},"
    "\"plain\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"labels\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
    "\"selector\":{\"type\":\"object\",\"x-kubernetes-map-type\":\"atomic\",\"additionalProperties\":"
    "{\"type\":\"string\"}},"
    "\"extra\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true},"
    "\"child\":{\"type\":\"object\",\"x-kubernetes-embedded-resource\":true,"
    "\"x-kubernetes-preserve-unknown-fields\":true}"
    "}}}}";

/* A compiled version as kg_crd_publish makes it. */
static kg_crd_version *version(void)
{
    kg_crd_version *v = kg_arena_alloc(&A, sizeof *v);
    memset(v, 0, sizeof *v);
    v->schema = kg_xs_compile(&A, J(SCHEMA));
    v->meta_schema = kg_cr_object_meta_schema(&A);
    kg_cr_smd_init(v);
    return v;
}

/* The type of the field at a dotted path below the root ("spec.ports"). */
static kg_smd_type type_at(const kg_crd_version *v, const char *path)
{
    kg_smd_type t = kg_smd_root(v->schema);
    char buf[128];
    strcpy(buf, path);
    for (char *p = strtok(buf, "."); p; p = strtok(NULL, ".")) {
        kg_smd_type out;
        if (!v->smd.field(&v->smd, t.handle, p, &out))
            return (kg_smd_type){KG_SMD_DEDUCED, false, NULL, NULL};
        t = out;
    }
    return t;
}

static void list_and_map_types(void **state)
{
    (void)state;
    kg_crd_version *v = version();
    kg_smd_type t = type_at(v, "spec.ports");
    assert_int_equal(t.rel, KG_SMD_ASSOC);
    assert_string_equal(t.keys, "name");
    assert_string_equal(type_at(v, "spec.pairs").keys, "a,b");
    assert_non_null(t.handle);
    assert_int_equal(type_at(v, "spec.tags").rel, KG_SMD_SET);
    assert_int_equal(type_at(v, "spec.args").rel, KG_SMD_ATOMIC);
    assert_int_equal(type_at(v, "spec.plain").rel, KG_SMD_ATOMIC); /* CRD lists without a list type: atomic */
    assert_int_equal(type_at(v, "spec.labels").rel, KG_SMD_GRANULAR);
    assert_int_equal(type_at(v, "spec.labels.anykey").rel, KG_SMD_DEDUCED); /* a string value */
    assert_int_equal(type_at(v, "spec.selector").rel, KG_SMD_ATOMIC);
    /* undeclared fields under preserve-unknown-fields are deduced */
    assert_int_equal(type_at(v, "spec.extra").rel, KG_SMD_GRANULAR);
    assert_int_equal(type_at(v, "spec.extra.whatever").rel, KG_SMD_DEDUCED);
    /* metadata is ObjectMeta at the root and in embedded resources, whatever the schema declares */
    assert_int_equal(type_at(v, "metadata.finalizers").rel, KG_SMD_SET);
    t = type_at(v, "metadata.ownerReferences");
    assert_int_equal(t.rel, KG_SMD_ASSOC);
    assert_string_equal(t.keys, "uid");
    assert_int_equal(type_at(v, "metadata.labels").rel, KG_SMD_GRANULAR);
    assert_int_equal(type_at(v, "metadata.managedFields").rel, KG_SMD_ATOMIC);
    assert_int_equal(type_at(v, "spec.child.metadata.finalizers").rel, KG_SMD_SET);
    /* a NULL schema is deduced */
    assert_int_equal(kg_cr_smd_type_of(NULL).rel, KG_SMD_DEDUCED);
}

static kg_smd_op op_for(const kg_crd_version *v, const char *manager)
{
    kg_smd_op op;
    memset(&op, 0, sizeof op);
    op.schema = &v->smd;
    op.root = kg_smd_root(v->schema);
    op.manager = manager;
    op.api_version = "ex.com/v2";
    op.subresource = "";
    op.now = "2026-01-01T00:00:00Z";
    return op;
}

static void two_managers_share_a_map_list(void **state)
{
    (void)state;
    kg_crd_version *v = version();
    kg_smd_managers m = {0};
    kg_smd_apply_result r;
    const char *err = NULL;
    kg_smd_op a = op_for(v, "a"), b = op_for(v, "b");
    const char *base = "{\"apiVersion\":\"ex.com/v2\",\"kind\":\"W\",\"metadata\":{\"name\":\"w\"},";
    kg_json *ca = J(kg_arena_sprintf(&A,
                                     "%s\"spec\":{\"ports\":[{\"name\":\"http\",\"port\":80}],\"tags\":[\"x\"],"
                                     "\"args\":[\"1\",\"2\"]}}",
                                     base));
    assert_true(kg_smd_apply(&A, &a, NULL, ca, false, &m, &r, &err));
    kg_json *live = r.object;
    kg_json *cb =
        J(kg_arena_sprintf(&A, "%s\"spec\":{\"ports\":[{\"name\":\"https\",\"port\":443}],\"tags\":[\"y\"]}}", base));
    assert_true(kg_smd_apply(&A, &b, live, cb, false, &m, &r, &err));
    assert_int_equal(r.nconflicts, 0);
    live = r.object;
    /* merged by key and by value, not replaced */
    assert_string_equal(S(kg_json_path(live, "spec.ports")),
                        "[{\"name\":\"http\",\"port\":80},{\"name\":\"https\",\"port\":443}]");
    assert_string_equal(S(kg_json_path(live, "spec.tags")), "[\"x\",\"y\"]");
    /* each manager owns its entry by key */
    kg_json *mf = kg_smd_managers_encode(&A, &m);
    assert_string_equal(S(mf),
                        "[{\"manager\":\"a\",\"operation\":\"Apply\",\"apiVersion\":\"ex.com/v2\",\"time\":\"2026-01-"
                        "01T00:00:00Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:args\":{},"
                        "\"f:ports\":{\"k:{\\\"name\\\":\\\"http\\\"}\":{\".\":{},"
                        "\"f:name\":{},\"f:port\":{}}},\"f:tags\":{\"v:\\\"x\\\"\":{}}}}},"
                        "{\"manager\":\"b\",\"operation\":\"Apply\",\"apiVersion\":\"ex.com/v2\",\"time\":\"2026-01-"
                        "01T00:00:00Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:ports\":{"
                        "\"k:{\\\"name\\\":\\\"https\\\"}\":{\".\":{},\"f:name\":{},"
                        "\"f:port\":{}}},\"f:tags\":{\"v:\\\"y\\\"\":{}}}}}]");
    /* b changing a's entry and the atomic list conflicts */
    kg_json *cb2 = J(kg_arena_sprintf(
        &A, "%s\"spec\":{\"ports\":[{\"name\":\"http\",\"port\":8080}],\"tags\":[\"y\"],\"args\":[\"3\"]}}", base));
    assert_true(kg_smd_apply(&A, &b, live, cb2, false, &m, &r, &err));
    assert_int_equal(r.nconflicts, 2);
    assert_string_equal(kg_smd_conflict_message(&A, r.conflicts, r.nconflicts),
                        "Apply failed with 2 conflicts: conflicts with \"a\":\n- .spec.args\n- "
                        ".spec.ports[name=\"http\"].port");
    /* force: b takes them; its https entry, no longer applied and owned by nobody else, is removed */
    m = (kg_smd_managers){0};
    assert_true(kg_smd_managers_decode(&A, mf, &m, &err));
    assert_true(kg_smd_apply(&A, &b, live, cb2, true, &m, &r, &err));
    assert_int_equal(r.nconflicts, 0);
    assert_string_equal(S(kg_json_path(r.object, "spec.ports")), "[{\"name\":\"http\",\"port\":8080}]");
    assert_string_equal(S(kg_json_path(r.object, "spec.args")), "[\"3\"]"); /* atomic: replaced */
}

static void atomic_map_replaced_granular_merged(void **state)
{
    (void)state;
    kg_crd_version *v = version();
    kg_smd_managers m = {0};
    kg_smd_apply_result r;
    const char *err = NULL;
    kg_smd_op a = op_for(v, "a"), b = op_for(v, "b");
    kg_json *ca = J("{\"apiVersion\":\"ex.com/v2\",\"kind\":\"W\",\"metadata\":{\"name\":\"w\"},\"spec\":{"
                    "\"labels\":{\"x\":\"1\"},\"selector\":{\"x\":\"1\"}}}");
    assert_true(kg_smd_apply(&A, &a, NULL, ca, false, &m, &r, &err));
    kg_json *cb = J("{\"apiVersion\":\"ex.com/v2\",\"kind\":\"W\",\"metadata\":{\"name\":\"w\"},\"spec\":{"
                    "\"labels\":{\"y\":\"2\"}}}");
    assert_true(kg_smd_apply(&A, &b, r.object, cb, false, &m, &r, &err));
    assert_int_equal(r.nconflicts, 0);
    assert_string_equal(S(kg_json_path(r.object, "spec.labels")), "{\"x\":\"1\",\"y\":\"2\"}");
    kg_json *cb2 = J("{\"apiVersion\":\"ex.com/v2\",\"kind\":\"W\",\"metadata\":{\"name\":\"w\"},\"spec\":{"
                     "\"selector\":{\"y\":\"2\"}}}");
    assert_true(kg_smd_apply(&A, &b, r.object, cb2, false, &m, &r, &err));
    assert_int_equal(r.nconflicts, 1);
    assert_string_equal(r.conflicts[0].path, ".spec.selector"); /* owned as a whole */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(list_and_map_types, setup, teardown),
        cmocka_unit_test_setup_teardown(two_managers_share_a_map_list, setup, teardown),
        cmocka_unit_test_setup_teardown(atomic_map_replaced_granular_merged, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
