/* ResourceList arithmetic tests (meta/resourcelist.h), after apiserver pkg/quota/v1 resources_test.go. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/resourcelist.h"

static kg_arena A;

static int setup(void **state)
{
    (void)state;
    kg_arena_init(&A, 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kg_arena_free(&A);
    return 0;
}

/* A list from JSON text ({"cpu":"100m",...}). */
static kg_rlist L(const char *json)
{
    kg_error err;
    kg_json *o = kg_json_parse(&A, json, strlen(json), &err);
    if (!o)
        fail_msg("parse %s", json);
    kg_rlist l;
    kg_rlist_from_json(&A, o, &l);
    return l;
}

/* The canonical "k=v,..." form (sorted). */
static const char *P(kg_rlist l)
{
    return kg_rlist_pretty(&A, &l);
}

static void test_from_json_and_find(void **state)
{
    (void)state;
    kg_rlist l = L("{\"memory\":\"1Gi\",\"cpu\":\"100m\",\"bad\":\"x1\",\"pods\":3}");
    assert_int_equal(l.n, 3); /* the unparsable value is skipped */
    assert_string_equal(l.e[0].name, "memory");
    assert_string_equal(l.e[1].name, "cpu");
    assert_non_null(kg_rlist_find(&l, "pods"));
    assert_null(kg_rlist_get(&l, "bad"));
    assert_int_equal(kg_quantity_milli_value(kg_rlist_get(&l, "cpu")), 100);
    assert_int_equal(kg_quantity_value(kg_rlist_get(&l, "pods")), 3);
    /* set replaces in place */
    kg_rlist_set_int(&A, &l, "pods", 5);
    assert_int_equal(l.n, 3);
    assert_string_equal(P(l), "cpu=100m,memory=1Gi,pods=5");
    /* not an object: the empty list */
    kg_rlist e = L("[1]");
    assert_int_equal(e.n, 0);
    assert_string_equal(P(e), "");
    assert_true(kg_rlist_is_zero(&e));
    /* growing past the first capacity keeps every entry */
    kg_rlist g = {0};
    char names[20][8];
    for (int i = 0; i < 20; i++) {
        snprintf(names[i], sizeof names[i], "r%02d", 19 - i);
        kg_rlist_set_int(&A, &g, names[i], i);
    }
    assert_int_equal(g.n, 20);
    assert_int_equal(kg_quantity_value(kg_rlist_get(&g, "r00")), 19);
    kg_json *j = kg_rlist_to_json(&A, &g);
    assert_string_equal(j->u.members[0].key, "r00");
    assert_string_equal(j->u.members[0].val->u.s, "19");
}

static void test_add(void **state)
{
    (void)state;
    kg_rlist a = L("{\"cpu\":\"100m\"}");
    kg_rlist b = L("{\"cpu\":\"100m\"}");
    kg_rlist_add(&A, &a, &b);
    assert_string_equal(P(a), "cpu=200m");
    a = L("{\"cpu\":\"100m\"}");
    b = L("{\"memory\":\"1Gi\"}");
    kg_rlist_add(&A, &a, &b);
    assert_string_equal(P(a), "cpu=100m,memory=1Gi");
    a = (kg_rlist){0};
    kg_rlist_add(&A, &a, &b);
    assert_string_equal(P(a), "memory=1Gi");
    /* the source is untouched */
    assert_string_equal(P(b), "memory=1Gi");
}

static void test_sub(void **state)
{
    (void)state;
    kg_rlist a = L("{\"cpu\":\"100m\"}");
    kg_rlist b = L("{\"cpu\":\"100m\"}");
    kg_rlist_sub(&A, &a, &b);
    assert_string_equal(P(a), "cpu=0");
    a = L("{\"cpu\":\"100m\"}");
    b = L("{\"memory\":\"1Gi\"}");
    kg_rlist_sub(&A, &a, &b);
    assert_string_equal(P(a), "cpu=100m,memory=-1Gi");
    const char **neg;
    assert_int_equal(kg_rlist_names_with_sign(&A, &a, -1, &neg), 1);
    assert_string_equal(neg[0], "memory");
    assert_int_equal(kg_rlist_names_with_sign(&A, &a, 1, &neg), 1);
    assert_string_equal(neg[0], "cpu");
}

static void test_sub_positive(void **state)
{
    (void)state;
    kg_rlist x = L("{\"cpu\":\"200m\",\"memory\":\"1Gi\",\"pods\":\"1\",\"secrets\":\"2\"}");
    kg_rlist y = L("{\"cpu\":\"100m\",\"memory\":\"2Gi\",\"pods\":\"1\"}");
    kg_rlist d;
    kg_rlist_sub_positive(&A, &x, &y, &d);
    assert_string_equal(P(d), "cpu=100m,secrets=2");
    assert_string_equal(P(x), "cpu=200m,memory=1Gi,pods=1,secrets=2");
}

static void test_max(void **state)
{
    (void)state;
    kg_rlist a = L("{\"cpu\":\"100m\",\"memory\":\"2Gi\"}");
    kg_rlist b = L("{\"cpu\":\"1\",\"memory\":\"1Gi\",\"pods\":\"2\"}");
    kg_rlist_max(&A, &a, &b);
    assert_string_equal(P(a), "cpu=1,memory=2Gi,pods=2");
}

static void test_mask(void **state)
{
    (void)state;
    kg_rlist l = L("{\"cpu\":\"100m\",\"memory\":\"1Gi\",\"pods\":\"3\"}");
    const char *names[] = {"pods", "cpu", "services"};
    kg_rlist m;
    kg_rlist_mask(&A, &l, names, 3, &m);
    assert_string_equal(P(m), "cpu=100m,pods=3");
    kg_rlist_mask(&A, &l, names, 0, &m);
    assert_int_equal(m.n, 0);
    kg_rlist keys = L("{\"memory\":\"0\",\"secrets\":\"1\"}");
    kg_rlist_mask_keys(&A, &l, &keys, &m);
    assert_string_equal(P(m), "memory=1Gi");
}

static void test_remove_zeros_is_zero(void **state)
{
    (void)state;
    kg_rlist l = L("{\"cpu\":\"0\",\"memory\":\"1Gi\",\"pods\":\"0m\"}");
    kg_rlist r;
    kg_rlist_remove_zeros(&A, &l, &r);
    assert_string_equal(P(r), "memory=1Gi");
    assert_false(kg_rlist_is_zero(&l));
    kg_rlist z = L("{\"cpu\":\"0\",\"pods\":\"0\"}");
    assert_true(kg_rlist_is_zero(&z));
    kg_rlist_remove_zeros(&A, &z, &r);
    assert_int_equal(r.n, 0);
    kg_rlist nz = L("{\"cpu\":\"1\"}");
    kg_rlist_remove_zeros(&A, &nz, &r);
    assert_ptr_equal(r.e, nz.e); /* nothing to drop: shared */
}

static void test_less_or_equal(void **state)
{
    (void)state;
    const char **ex;
    size_t nex;
    kg_rlist a = L("{\"cpu\":\"100m\"}"), b = L("{\"cpu\":\"100m\"}");
    assert_true(kg_rlist_less_or_equal(&A, &a, &b, &ex, &nex));
    assert_int_equal(nex, 0);
    a = L("{\"cpu\":\"200m\",\"memory\":\"1Gi\",\"pods\":\"5\"}");
    b = L("{\"cpu\":\"100m\",\"memory\":\"2Gi\",\"pods\":\"4\",\"secrets\":\"0\"}");
    assert_false(kg_rlist_less_or_equal(&A, &a, &b, &ex, &nex));
    assert_int_equal(nex, 2);
    assert_string_equal(ex[0], "cpu");
    assert_string_equal(ex[1], "pods");
    assert_false(kg_rlist_less_or_equal(&A, &a, &b, NULL, NULL));
    /* names only in one list do not count */
    a = L("{\"memory\":\"10Gi\"}");
    b = L("{\"cpu\":\"1\"}");
    assert_true(kg_rlist_less_or_equal(&A, &a, &b, NULL, NULL));
}

static void test_equal(void **state)
{
    (void)state;
    kg_rlist a = L("{\"cpu\":\"1\",\"memory\":\"1Gi\"}");
    kg_rlist b = L("{\"memory\":\"1024Mi\",\"cpu\":\"1000m\"}");
    assert_true(kg_rlist_equal(&a, &b));
    b = L("{\"memory\":\"1024Mi\",\"cpu\":\"1001m\"}");
    assert_false(kg_rlist_equal(&a, &b));
    b = L("{\"memory\":\"1Gi\"}");
    assert_false(kg_rlist_equal(&a, &b));
    b = L("{\"memory\":\"1Gi\",\"pods\":\"1\"}");
    assert_false(kg_rlist_equal(&a, &b));
    kg_rlist e1 = {0}, e2 = {0};
    assert_true(kg_rlist_equal(&e1, &e2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_from_json_and_find, setup, teardown),
        cmocka_unit_test_setup_teardown(test_add, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sub, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sub_positive, setup, teardown),
        cmocka_unit_test_setup_teardown(test_max, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mask, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remove_zeros_is_zero, setup, teardown),
        cmocka_unit_test_setup_teardown(test_less_or_equal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_equal, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
