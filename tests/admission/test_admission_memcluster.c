/* The in-memory services implementation: get/list visibility, copies, writer semantics, failure injection. */
#include "admission_testutil.h"
#include "faulty_services.h"

static const char *names_of(kg_arena *a, const kg_json *arr)
{
    assert_true(kg_json_is(arr, KG_JSON_ARRAY));
    char *out = kg_arena_strdup(a, "");
    for (size_t i = 0; i < arr->len; i++) {
        const char *ns = kg_json_path_str(kg_json_at(arr, i), "metadata.namespace");
        out = kg_arena_sprintf(a, "%s%s%s/%s", out, i ? "," : "", ns ? ns : "",
                               kg_json_path_str(kg_json_at(arr, i), "metadata.name"));
    }
    return out;
}

static void get_and_list(void **state)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_services s = kg_admission_memcluster_services(m, NULL);
    tput(m, "limitranges", "{\"metadata\":{\"name\":\"b\",\"namespace\":\"ns1\"}}", 0);
    tput(m, "limitranges", "{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns1\"}}", 0);
    tput(m, "limitranges", "{\"metadata\":{\"name\":\"z\",\"namespace\":\"ns0\"}}", 0);
    tput(m, "limitranges", "{\"metadata\":{\"name\":\"hidden\",\"namespace\":\"ns1\"}}", KG_MEMCLUSTER_STORE_ONLY);
    tput(m, "resourcequotas", "{\"metadata\":{\"name\":\"q\",\"namespace\":\"ns1\"}}", 0);
    tput(m, "priorityclasses", "{\"metadata\":{\"name\":\"high\"},\"value\":1000}", 0);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error e = {0};
    assert_string_equal(names_of(&a, s.list(m, &a, "limitranges", "ns1", 0, &e)), "ns1/a,ns1/b");
    assert_string_equal(names_of(&a, s.list(m, &a, "limitranges", "ns1", KG_ADMISSION_GET_LIVE, &e)),
                        "ns1/a,ns1/b,ns1/hidden");
    assert_string_equal(names_of(&a, s.list(m, &a, "limitranges", "", 0, &e)), "ns0/z,ns1/a,ns1/b");
    assert_string_equal(names_of(&a, s.list(m, &a, "limitranges", "nope", 0, &e)), "");
    assert_string_equal(names_of(&a, s.list(m, &a, "priorityclasses", "", 0, &e)), "/high");
    assert_string_equal(names_of(&a, s.list(m, &a, "secrets", "", 0, &e)), "");
    /* get: copies, visibility, not found */
    kg_json *pc = s.get(m, &a, "priorityclasses", "", "high", 0, &e);
    assert_int_equal(kg_json_get(pc, "value")->u.i, 1000);
    kg_json_set(&a, pc, "value", kg_json_new_int(&a, 1)); /* editing the copy leaves the state alone */
    assert_int_equal(kg_json_get(s.get(m, &a, "priorityclasses", "", "high", 0, &e), "value")->u.i, 1000);
    assert_null(s.get(m, &a, "limitranges", "ns1", "hidden", 0, &e));
    assert_int_equal(e.code, KG_ENOTFOUND);
    assert_string_equal(e.msg, "limitranges \"hidden\" not found");
    assert_non_null(s.get(m, &a, "limitranges", "ns1", "hidden", KG_ADMISSION_GET_LIVE, &e));
    assert_null(s.get(m, &a, "limitranges", "ns0", "a", 0, &e)); /* namespaces are separate */
    /* replace and remove */
    tput(m, "limitranges", "{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns1\"},\"spec\":{\"v\":2}}", 0);
    assert_int_equal(kg_json_path(s.get(m, &a, "limitranges", "ns1", "a", 0, &e), "spec.v")->u.i, 2);
    assert_string_equal(names_of(&a, s.list(m, &a, "limitranges", "ns1", 0, &e)), "ns1/a,ns1/b");
    assert_true(kg_admission_memcluster_remove(m, "limitranges", "ns1", "a"));
    assert_false(kg_admission_memcluster_remove(m, "limitranges", "ns1", "a"));
    assert_string_equal(names_of(&a, s.list(m, &a, "limitranges", "", 0, &e)), "ns0/z,ns1/b");
    /* objects need a name */
    assert_false(kg_admission_memcluster_put(m, "pods", tj(&a, "{\"metadata\":{}}"), 0, &e));
    kg_admission_memcluster_stats st = kg_admission_memcluster_get_stats(m);
    assert_int_equal(st.lists, 8);
    kg_arena_free(&a);
    kg_admission_memcluster_free(m);
}

/* Groups stay ordered by (namespace, name) through inserts, replacements and removals in any order: list() and
 * view_list() return that order without sorting, and every object stays reachable by get()/view(). */
static void ordered_groups(void **state)
{
    (void)state;
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_services s = kg_admission_memcluster_services(m, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error e = {0};
    enum { N = 240 };
    bool present[N] = {false};
    uint32_t x = 12345;
    for (int round = 0; round < 3 * N; round++) {
        x = x * 1103515245u + 12345u;
        int k = (int)((x >> 8) % N);
        char ns[16], name[48];
        snprintf(ns, sizeof ns, "ns-%d", k % 7);
        /* names of every length around the hash's 8-byte steps */
        snprintf(name, sizeof name, "%.*s-%d", k % 20, "abcdefghijklmnopqrstuvwxyz", k);
        if (present[k] && (x >> 20) % 3 == 0) {
            assert_true(kg_admission_memcluster_remove(m, "configmaps", ns, name));
            present[k] = false;
        } else {
            char *doc = kg_arena_sprintf(&a, "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\"}}", name, ns);
            tput(m, "configmaps", doc, 0);
            present[k] = true;
        }
    }
    for (int scope = 0; scope < 8; scope++) {
        char ns[16];
        snprintf(ns, sizeof ns, "ns-%d", scope);
        const char *want_ns = scope == 7 ? "" : ns;
        kg_json *arr = s.list(m, &a, "configmaps", want_ns, 0, &e);
        kg_json_shared **docs;
        size_t nv = kg_admission_view_list(&s, &a, "configmaps", want_ns, &docs, &e);
        assert_int_equal(nv, arr->len);
        size_t expect = 0;
        for (int k = 0; k < N; k++)
            expect += present[k] && (scope == 7 || k % 7 == scope);
        assert_int_equal(arr->len, expect);
        for (size_t i = 0; i < arr->len; i++) {
            const kg_json *it = kg_json_at(arr, i);
            const char *in = kg_json_path_str(it, "metadata.namespace"), *nm = kg_json_path_str(it, "metadata.name");
            assert_string_equal(nm, kg_json_path_str(kg_json_shared_root(docs[i]), "metadata.name"));
            assert_non_null(kg_admission_view_obj(&s, &a, "configmaps", in, nm, &e));
            if (i) {
                const kg_json *pv = kg_json_at(arr, i - 1);
                int c = strcmp(kg_json_path_str(pv, "metadata.namespace"), in);
                assert_true(c < 0 || (c == 0 && strcmp(kg_json_path_str(pv, "metadata.name"), nm) < 0));
            }
        }
    }
    for (int k = 0; k < N; k++) {
        char ns[16], name[48];
        snprintf(ns, sizeof ns, "ns-%d", k % 7);
        snprintf(name, sizeof name, "%.*s-%d", k % 20, "abcdefghijklmnopqrstuvwxyz", k);
        KG_ERROR_DECL(ge);
        assert_int_equal(kg_admission_view_obj(&s, &a, "configmaps", ns, name, &ge) != NULL, present[k]);
        assert_null(kg_admission_view_obj(&s, &a, "secrets", ns, name, &ge));
    }
    kg_arena_free(&a);
    kg_admission_memcluster_free(m);
}

static void writer(void **state)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_services s = kg_admission_memcluster_services(m, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error e = {0};
    kg_json *q =
        s.create(m, &a, "resourcequotas", "ns", tj(&a, "{\"metadata\":{\"name\":\"q\",\"namespace\":\"ns\"}}"), &e);
    assert_non_null(q);
    const char *rv = kg_json_path_str(q, "metadata.resourceVersion");
    assert_non_null(rv);
    assert_null(s.create(m, &a, "resourcequotas", "ns", q, &e));
    assert_int_equal(e.code, KG_EEXIST);
    assert_string_equal(e.msg, "resourcequotas \"q\" already exists");
    /* update with the current resourceVersion succeeds and bumps it; a stale one conflicts */
    kg_json *q2 = s.update(m, &a, "resourcequotas", "ns", q, &e);
    assert_non_null(q2);
    assert_string_not_equal(kg_json_path_str(q2, "metadata.resourceVersion"), rv);
    assert_null(s.update(m, &a, "resourcequotas", "ns", q, &e));
    assert_int_equal(e.code, KG_ECONFLICT);
    assert_null(s.update(m, &a, "resourcequotas", "ns",
                         tj(&a, "{\"metadata\":{\"name\":\"missing\",\"namespace\":\"ns\"}}"), &e));
    assert_int_equal(e.code, KG_ENOTFOUND);
    /* injected failures come from a wrapper (tests/admission/faulty_services.h), not from the cluster */
    kg_faulty_services *fs = kg_faulty_services_new(&s);
    kg_admission_services fsvc = kg_faulty_services_get(fs);
    kg_faulty_fail_writes(fs, 1, KG_EIO);
    assert_null(fsvc.create(fsvc.ctx, &a, "namespaces", "", tj(&a, "{\"metadata\":{\"name\":\"n\"}}"), &e));
    assert_int_equal(e.code, KG_EIO);
    assert_non_null(fsvc.create(fsvc.ctx, &a, "namespaces", "", tj(&a, "{\"metadata\":{\"name\":\"n\"}}"), &e));
    kg_faulty_services_free(fs);
    /* features, readiness, fake clock */
    assert_false(s.feature_enabled(m, "PodLevelResources"));
    kg_admission_memcluster_set_feature(m, "PodLevelResources", true);
    assert_true(kg_admission_feature(&s, "PodLevelResources"));
    assert_true(kg_admission_ready(&s, "namespaces"));
    kg_admission_memcluster_set_ready(m, "namespaces", false);
    assert_false(kg_admission_ready(&s, "namespaces"));
    kg_admission_memcluster_set_clock(m, 42);
    kg_admission_sleep_ns(&s, 8);
    assert_int_equal(kg_admission_now_ns(&s), 50);
    kg_arena_free(&a);
    kg_admission_memcluster_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(get_and_list),
        cmocka_unit_test(writer),
        cmocka_unit_test(ordered_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
