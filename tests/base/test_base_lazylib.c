/* Libraries opened on first use (base/lazylib.h): symbol lookup and caching, a missing library, a missing symbol. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/lazylib.h"

static kg_lazylib libm_lib = KG_LAZYLIB("libm", false, "libm-does-not-exist.so.9", "libm.so.6");
static kg_lazylib missing = KG_LAZYLIB("libnothing", true, "libkgate-nothing.so.1");

static void finds_and_caches(void **state)
{
    (void)state;
    void *cache = NULL;
    double (*cosine)(double) = (double (*)(double))kg_lazylib_sym(&libm_lib, &cache, "cos", true);
    assert_non_null(cosine);
    assert_ptr_equal(cache, (void *)cosine);
    assert_true(cosine(0.0) == 1.0);                              /* the second soname was the one opened */
    void *again = kg_lazylib_sym(&libm_lib, &cache, "sin", true); /* the cache wins: no second lookup */
    assert_ptr_equal(again, (void *)cosine);
    void *c2 = NULL;
    assert_null(kg_lazylib_sym(&libm_lib, &c2, "kgate_no_such_symbol", false));
    assert_null(c2);
}

static void missing_library(void **state)
{
    (void)state;
    assert_null(kg_lazylib_handle(&missing));
    assert_null(kg_lazylib_handle(&missing)); /* tried once, stays unloaded */
    void *cache = NULL;
    assert_null(kg_lazylib_sym(&missing, &cache, "anything", false));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(finds_and_caches), cmocka_unit_test(missing_library)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
