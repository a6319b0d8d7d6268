/* Shared toleration helpers (pkg/util/tolerations): isSuperset rules, MergeTolerations cases, the bucketed merge
 * against the pairwise reference on random inputs, and its speed on large inputs. */
#include "plugin_testutil.h"
#include "admission/plugins/plugin_util.h"

#include <time.h>


/* pkg/util/tolerations, written out pairwise exactly as upstream (the reference the bucketed merge must match) */
static kg_json *ref_merge(kg_arena *a, const kg_json *first, const kg_json *second)
{
    kg_json *all = kg_json_new_array(a), *merged = kg_json_new_array(a);
    for (size_t i = 0; first && i < first->len; i++)
        kg_json_array_append(a, all, kg_json_at(first, i));
    for (size_t i = 0; second && i < second->len; i++)
        kg_json_array_append(a, all, kg_json_at(second, i));
    for (size_t i = 0; i < all->len; i++) {
        const kg_json *t = kg_json_at(all, i);
        bool skip = false;
        for (size_t j = 0; j < merged->len && !skip; j++)
            skip = kg_admission_pu_tol_superset(kg_json_at(merged, j), t);
        for (size_t j = i + 1; j < all->len && !skip; j++)
            skip = !kg_admission_pu_tol_equal(t, kg_json_at(all, j)) &&
                   kg_admission_pu_tol_superset(kg_json_at(all, j), t);
        if (!skip)
            kg_json_array_append(a, merged, (kg_json *)t);
    }
    return merged;
}

static bool superset(kg_arena *a, const char *ss, const char *t)
{
    return kg_admission_pu_tol_superset(tj(a, ss), tj(a, t));
}

/* isSuperset cases (tolerations_test.go) */
static void superset_rules(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    /* equal */
    assert_true(superset(&a, "{\"key\":\"k\",\"operator\":\"Equal\",\"value\":\"v\"}",
                         "{\"key\":\"k\",\"operator\":\"Equal\",\"value\":\"v\"}"));
    /* wildcard key */
    assert_true(superset(&a, "{\"operator\":\"Exists\"}", "{\"key\":\"k\",\"operator\":\"Equal\",\"value\":\"v\"}"));
    assert_false(superset(&a, "{\"operator\":\"Equal\"}", "{\"key\":\"k\",\"operator\":\"Equal\"}"));
    /* different keys */
    assert_false(superset(&a, "{\"key\":\"a\",\"operator\":\"Exists\"}", "{\"key\":\"b\",\"operator\":\"Exists\"}"));
    /* effect: empty matches all, otherwise equal */
    assert_true(superset(&a, "{\"key\":\"k\",\"operator\":\"Exists\"}",
                         "{\"key\":\"k\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}"));
    assert_false(superset(&a, "{\"key\":\"k\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}",
                          "{\"key\":\"k\",\"operator\":\"Exists\",\"effect\":\"NoExecute\"}"));
    /* NoExecute seconds: t must have seconds <= ss's */
    assert_true(superset(&a,
                         "{\"key\":\"k\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":10}",
                         "{\"key\":\"k\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":5}"));
    assert_false(superset(&a,
                          "{\"key\":\"k\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":5}",
                          "{\"key\":\"k\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":10}"));
    assert_false(superset(&a,
                          "{\"key\":\"k\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":5}",
                          "{\"key\":\"k\",\"operator\":\"Exists\",\"effect\":\"NoExecute\"}"));
    /* Equal (or empty) operator: t must be Equal with the same value */
    assert_true(
        superset(&a, "{\"key\":\"k\",\"value\":\"v\"}", "{\"key\":\"k\",\"operator\":\"Equal\",\"value\":\"v\"}"));
    assert_false(superset(&a, "{\"key\":\"k\",\"operator\":\"Equal\",\"value\":\"v\"}",
                          "{\"key\":\"k\",\"operator\":\"Exists\"}"));
    assert_false(superset(&a, "{\"key\":\"k\",\"operator\":\"Equal\",\"value\":\"v\"}",
                          "{\"key\":\"k\",\"operator\":\"Equal\",\"value\":\"w\"}"));
    /* unknown operator */
    assert_false(superset(&a, "{\"key\":\"k\",\"operator\":\"Foo\"}", "{\"key\":\"k\",\"operator\":\"Equal\"}"));
    kg_arena_free(&a);
}

/* MergeTolerations cases (tolerations_test.go) */
static void merge_cases(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *cases[][3] = {
        /* first, second, want */
        {"[]", "[]", "[]"},
        {"[{\"key\":\"a\",\"operator\":\"Exists\"}]", "[{\"key\":\"a\",\"operator\":\"Exists\"}]",
         "[{\"key\":\"a\",\"operator\":\"Exists\"}]"},
        /* the superset wins wherever it is */
        {"[{\"key\":\"a\",\"operator\":\"Equal\",\"value\":\"v\",\"effect\":\"NoSchedule\"}]",
         "[{\"key\":\"a\",\"operator\":\"Exists\"}]", "[{\"key\":\"a\",\"operator\":\"Exists\"}]"},
        {"[{\"operator\":\"Exists\"},{\"key\":\"a\",\"operator\":\"Exists\"}]",
         "[{\"key\":\"b\",\"operator\":\"Exists\"}]", "[{\"operator\":\"Exists\"}]"},
        /* tolerationSeconds: the larger covers the smaller */
        {"[{\"key\":\"a\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":1}]",
         "[{\"key\":\"a\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":2}]",
         "[{\"key\":\"a\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":2}]"},
        /* unrelated ones keep their order */
        {"[{\"key\":\"b\",\"operator\":\"Exists\"},{\"key\":\"a\",\"operator\":\"Equal\",\"value\":\"1\"}]",
         "[{\"key\":\"a\",\"operator\":\"Equal\",\"value\":\"2\"}]",
         "[{\"key\":\"b\",\"operator\":\"Exists\"},{\"key\":\"a\",\"operator\":\"Equal\",\"value\":\"1\"},{\"key\":"
         "\"a\","
         "\"operator\":\"Equal\",\"value\":\"2\"}]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_json(&a, kg_admission_pu_merge_tolerations(&a, tj(&a, cases[i][0]), tj(&a, cases[i][1])), cases[i][2]);
    kg_arena_free(&a);
}

static uint64_t g_rng = 88172645463325252ull;
static unsigned rnd(unsigned n)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (unsigned)(g_rng % n);
}

static kg_json *random_list(kg_arena *a, size_t n)
{
    static const char *const keys[] = {NULL, "", "a", "b"};
    static const char *const ops[] = {NULL, "", "Equal", "Exists"};
    static const char *const vals[] = {NULL, "", "x", "y"};
    static const char *const effs[] = {NULL, "", "NoSchedule", "NoExecute"};
    kg_json *arr = kg_json_new_array(a);
    for (size_t i = 0; i < n; i++) {
        kg_json *t = kg_json_new_object(a);
        const char *k = keys[rnd(4)], *o = ops[rnd(4)], *v = vals[rnd(4)], *e = effs[rnd(4)];
        if (k)
            kg_json_set(a, t, "key", kg_json_new_str(a, k));
        if (o)
            kg_json_set(a, t, "operator", kg_json_new_str(a, o));
        if (v)
            kg_json_set(a, t, "value", kg_json_new_str(a, v));
        if (e)
            kg_json_set(a, t, "effect", kg_json_new_str(a, e));
        unsigned s = rnd(3);
        if (s)
            kg_json_set(a, t, "tolerationSeconds", kg_json_new_int(a, s * 5));
        kg_json_array_append(a, arr, t);
    }
    return arr;
}

/* the bucketed merge gives exactly the pairwise result (same items, same order) */
static void merge_matches_pairwise_reference(void **state)
{
    for (int round = 0; round < 3000; round++) {
        kg_arena a;
        kg_arena_init(&a, 0);
        kg_json *x = random_list(&a, rnd(7)), *y = random_list(&a, rnd(7));
        kg_json *got = kg_admission_pu_merge_tolerations(&a, x, y), *want = ref_merge(&a, x, y);
        assert_int_equal(got->len, want->len);
        for (size_t i = 0; i < got->len; i++)
            assert_ptr_equal(kg_json_at(got, i), kg_json_at(want, i));
        kg_arena_free(&a);
    }
}

/* 50000 distinct tolerations (what a 3 MB pod could carry) merge in linear-ish time */
static void merge_is_not_pairwise_on_distinct_keys(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *x = kg_json_new_array(&a);
    for (int i = 0; i < 50000; i++)
        kg_json_array_append(
            &a, x,
            kg_admission_pu_toleration(&a, kg_arena_sprintf(&a, "example.com/k%d", i), "Exists", "NoSchedule", -1));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    kg_json *m = kg_admission_pu_merge_tolerations(
        &a, x, tj(&a, "[{\"key\":\"node.kubernetes.io/memory-pressure\",\"operator\":\"Exists\"}]"));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_int_equal(m->len, 50001);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    /* pairwise would be 2.5e9 comparisons (minutes under ASan); bucketed is well under a second */
    if (secs > 2.0)
        fail_msg("merging 50001 tolerations took %.2f s", secs);
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(superset_rules),
        cmocka_unit_test(merge_cases),
        cmocka_unit_test(merge_matches_pairwise_reference),
        cmocka_unit_test(merge_is_not_pairwise_on_distinct_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
