#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/str.h"

static void arena_alloc_is_aligned_and_distinct(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 64);
    char *p = kg_arena_alloc(&a, 3);
    char *q = kg_arena_alloc(&a, 5);
    assert_true(((uintptr_t)p & 15) == 0);
    assert_true(((uintptr_t)q & 15) == 0);
    assert_ptr_not_equal(p, q);
    /* a big allocation goes into its own chunk and leaves the current one usable */
    char *big = kg_arena_alloc(&a, 100000);
    memset(big, 'x', 100000);
    char *r = kg_arena_alloc(&a, 8);
    assert_non_null(r);
    kg_arena_free(&a);
}

static void arena_realloc_extends_last_in_place(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 4096);
    char *p = kg_arena_alloc(&a, 16);
    memcpy(p, "0123456789abcde", 16);
    char *q = kg_arena_realloc(&a, p, 16, 64);
    assert_ptr_equal(p, q);
    kg_arena_alloc(&a, 1); /* p no longer last: must move and keep its content */
    char *r = kg_arena_realloc(&a, q, 64, 128);
    assert_ptr_not_equal(q, r);
    assert_string_equal(r, "0123456789abcde");
    kg_arena_free(&a);
}

static void arena_reset_reuses_memory(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 128);
    for (int i = 0; i < 100; i++)
        kg_arena_alloc(&a, 100);
    kg_arena_reset(&a);
    char *s = kg_arena_sprintf(&a, "%s-%d", "pod", 42);
    assert_string_equal(s, "pod-42");
    char long_fmt[600];
    memset(long_fmt, 'a', sizeof long_fmt - 1);
    long_fmt[sizeof long_fmt - 1] = 0;
    char *l = kg_arena_sprintf(&a, "%s!", long_fmt);
    assert_int_equal(strlen(l), 600);
    kg_arena_free(&a);
}

static void buf_printf_grows(void **state)
{
    kg_buf b = KG_BUF_INIT;
    for (int i = 0; i < 1000; i++)
        kg_buf_printf(&b, "%d,", i);
    assert_true(b.len > 3000);
    assert_memory_equal(b.data, "0,1,2,", 6);
    size_t n;
    char *s = kg_buf_steal(&b, &n);
    assert_int_equal(strlen(s), n);
    assert_null(b.data);
    free(s);
}

static void error_prefix_and_names(void **state)
{
    kg_error e;
    assert_false(kg_err_set(&e, KG_ENOTFOUND, "pods \"%s\" not found", "x"));
    kg_err_prefix(&e, "get");
    assert_string_equal(e.msg, "get: pods \"x\" not found");
    assert_string_equal(kg_errcode_name(KG_ECONFLICT), "Conflict");
    assert_false(kg_err_set(NULL, KG_EINVAL, "ignored"));
}

static void str_cut_trim(void **state)
{
    kg_str before, after;
    assert_true(kg_str_cut(kg_str_c("key=value=x"), '=', &before, &after));
    assert_true(kg_str_eqc(before, "key"));
    assert_true(kg_str_eqc(after, "value=x"));
    assert_false(kg_str_cut(kg_str_c("novalue"), '=', &before, &after));
    assert_true(kg_str_eqc(before, "novalue"));
    assert_true(kg_str_eqc(kg_str_trim(kg_str_c("  a b \n")), "a b"));
    assert_true(kg_str_has_prefix("kube-system", "kube-"));
    assert_true(kg_str_has_suffix("admin.kubeconfig", ".kubeconfig"));
    assert_false(kg_str_has_suffix("a", "abc"));
}

static int cleanup_log[8], ncleanup;
static void note_cleanup(void *p)
{
    cleanup_log[ncleanup++] = (int)(intptr_t)p;
}
/* reset rewinds to the start of the one chunk it keeps, whichever way the arena got its chunks: one chunk (the
 * inline rewind), several (the slow path keeps the oldest), a first allocation too big for a chunk (its own chunk),
 * a big one behind the head; an allocation after each reset starts the kept chunk again */
static void arena_reset_rewinds_one_chunk(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 256);
    char *first = kg_arena_alloc(&a, 16);
    assert_ptr_equal(a.rewind, first);
    kg_arena_alloc(&a, 64);
    kg_arena_reset(&a);
    assert_ptr_equal(kg_arena_alloc(&a, 16), first);
    for (int i = 0; i < 40; i++) /* several chunks */
        kg_arena_alloc(&a, 100);
    assert_null(a.rewind);
    kg_arena_reset(&a);
    assert_ptr_equal(a.rewind, first); /* the oldest chunk is kept */
    assert_ptr_equal(kg_arena_alloc(&a, 16), first);
    kg_arena_alloc(&a, 10000); /* big: its own chunk behind the head */
    assert_null(a.rewind);
    kg_arena_reset(&a); /* the big chunk is now the last in the list: the one kept */
    char *kept = a.rewind;
    assert_non_null(kept);
    assert_ptr_equal(kg_arena_alloc(&a, 16), kept);
    kg_arena_reset(&a);
    assert_ptr_equal(kg_arena_alloc(&a, 9000), kept);
    kg_arena_free(&a);
    assert_null(a.rewind);

    kg_arena_init(&a, 256);
    char *big = kg_arena_alloc(&a, 5000); /* the first chunk is a big one, full */
    assert_ptr_equal(a.rewind, big);
    kg_arena_reset(&a);
    char *again = kg_arena_alloc(&a, 4000); /* it is reused from its start */
    assert_ptr_equal(again, big);
    memset(again, 1, 4000);
    kg_arena_free(&a);
}

static kg_arena *chained_arena;
static void register_more(void *p)
{
    note_cleanup(p);
    kg_arena_on_reset(chained_arena, note_cleanup, (void *)(intptr_t)9);
}

/* cleanups run newest first, once, on reset and on free; one registered by a cleanup runs too */
static void arena_cleanups_run_on_reset_and_free(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 64);
    ncleanup = 0;
    kg_arena_on_reset(&a, note_cleanup, (void *)(intptr_t)1);
    kg_arena_on_reset(&a, note_cleanup, (void *)(intptr_t)2);
    kg_arena_reset(&a);
    assert_int_equal(ncleanup, 2);
    assert_int_equal(cleanup_log[0], 2);
    assert_int_equal(cleanup_log[1], 1);
    kg_arena_reset(&a); /* nothing registered any more */
    assert_int_equal(ncleanup, 2);
    chained_arena = &a;
    kg_arena_on_reset(&a, register_more, (void *)(intptr_t)3);
    kg_arena_free(&a);
    assert_int_equal(ncleanup, 4);
    assert_int_equal(cleanup_log[2], 3);
    assert_int_equal(cleanup_log[3], 9);
    assert_null(a.cleanups);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arena_alloc_is_aligned_and_distinct),
        cmocka_unit_test(arena_realloc_extends_last_in_place),
        cmocka_unit_test(arena_reset_reuses_memory),
        cmocka_unit_test(arena_reset_rewinds_one_chunk),
        cmocka_unit_test(arena_cleanups_run_on_reset_and_free),
        cmocka_unit_test(buf_printf_grows),
        cmocka_unit_test(error_prefix_and_names),
        cmocka_unit_test(str_cut_trim),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
