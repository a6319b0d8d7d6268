/* TokenRequest's rules: expirationSeconds defaulting, the 10-minute and 2^32-second limits with upstream's field
 * errors, the --service-account-max-token-expiration cap, the 3607 s projected-token extension (only pod-bound, only
 * for API audiences, only when enabled), and which bound object kinds are accepted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "auth/serviceaccount/request.h"

static kg_json *num(kg_arena *a, int64_t v)
{
    return kg_json_new_int(a, v);
}

static void expiration(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_sa_expiration ex;
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;

    /* default */
    assert_true(kg_sa_token_expiration(&a, NULL, 0, true, false, true, &ex, &errs));
    assert_int_equal(ex.requested, 3600);
    assert_int_equal(ex.seconds, 3600);
    assert_int_equal(ex.token_seconds, 3600);
    assert_int_equal(ex.warnafter_s, 0);
    assert_false(ex.shortened);
    assert_true(kg_sa_token_expiration(&a, kg_json_new_null(&a), 0, true, false, true, &ex, &errs));
    assert_int_equal(ex.seconds, 3600);

    /* limits */
    assert_true(kg_sa_token_expiration(&a, num(&a, 600), 0, true, false, true, &ex, &errs));
    assert_false(kg_sa_token_expiration(&a, num(&a, 599), 0, true, false, true, &ex, &errs));
    assert_int_equal(errs.len, 1);
    assert_string_equal(kg_field_errors_aggregate(&a, &errs),
                        "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes");
    errs = (kg_field_errors)KG_FIELD_ERRORS_INIT;
    assert_false(kg_sa_token_expiration(&a, num(&a, 0), 0, true, false, true, &ex, &errs));
    errs = (kg_field_errors)KG_FIELD_ERRORS_INIT;
    assert_true(kg_sa_token_expiration(&a, num(&a, 1LL << 32), 0, true, false, true, &ex, &errs));
    assert_false(kg_sa_token_expiration(&a, num(&a, (1LL << 32) + 1), 0, true, false, true, &ex, &errs));
    assert_string_equal(kg_field_errors_aggregate(&a, &errs), "spec.expirationSeconds: Invalid value: 4294967297: may "
                                                              "not specify a duration larger than 2^32 seconds");
    errs = (kg_field_errors)KG_FIELD_ERRORS_INIT;
    assert_false(kg_sa_token_expiration(&a, kg_json_new_str(&a, "1h"), 0, true, false, true, &ex, &errs));
    errs = (kg_field_errors)KG_FIELD_ERRORS_INIT;

    /* the cap: only above it, a warning's numbers */
    assert_true(kg_sa_token_expiration(&a, num(&a, 36000), 7200, true, false, true, &ex, &errs));
    assert_true(ex.shortened);
    assert_int_equal(ex.requested, 36000);
    assert_int_equal(ex.seconds, 7200);
    assert_int_equal(ex.token_seconds, 7200);
    assert_true(kg_sa_token_expiration(&a, num(&a, 7200), 7200, true, false, true, &ex, &errs));
    assert_false(ex.shortened);
    /* below the minimum is an error even with a cap */
    assert_false(kg_sa_token_expiration(&a, num(&a, 60), 7200, true, false, true, &ex, &errs));
    errs = (kg_field_errors)KG_FIELD_ERRORS_INIT;

    /* the projected-token extension */
    assert_true(kg_sa_token_expiration(&a, num(&a, 3607), 0, true, true, true, &ex, &errs));
    assert_int_equal(ex.seconds, 3607);
    assert_int_equal(ex.token_seconds, 24LL * 365 * 3600);
    assert_int_equal(ex.warnafter_s, 3607);
    assert_true(kg_sa_token_expiration(&a, num(&a, 3607), 0, false, true, true, &ex, &errs)); /* disabled */
    assert_int_equal(ex.token_seconds, 3607);
    assert_int_equal(ex.warnafter_s, 0);
    assert_true(kg_sa_token_expiration(&a, num(&a, 3607), 0, true, false, true, &ex, &errs)); /* not pod-bound */
    assert_int_equal(ex.token_seconds, 3607);
    assert_true(kg_sa_token_expiration(&a, num(&a, 3607), 0, true, true, false, &ex, &errs)); /* other audience */
    assert_int_equal(ex.token_seconds, 3607);
    assert_true(kg_sa_token_expiration(&a, num(&a, 3608), 0, true, true, true, &ex, &errs)); /* not exactly 3607 */
    assert_int_equal(ex.token_seconds, 3608);
    assert_int_equal(errs.len, 0);
    kg_arena_free(&a);
}

static void bound_kinds(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *bad = NULL;
    assert_string_equal(kg_sa_bound_plural(&a, "v1", "Pod", &bad), "pods");
    assert_string_equal(kg_sa_bound_plural(&a, "v1", "Secret", &bad), "secrets");
    assert_string_equal(kg_sa_bound_plural(&a, "v1", "Node", &bad), "nodes");
    assert_string_equal(kg_sa_bound_plural(&a, "", "Pod", &bad), "pods");
    assert_null(bad);
    assert_null(kg_sa_bound_plural(&a, "v1", "ConfigMap", &bad));
    assert_string_equal(bad, "cannot bind token to object of type /v1, Kind=ConfigMap");
    assert_null(kg_sa_bound_plural(&a, "apps/v1", "Pod", &bad));
    assert_string_equal(bad, "cannot bind token to object of type apps/v1, Kind=Pod");
    assert_null(kg_sa_bound_plural(&a, NULL, NULL, &bad));
    assert_string_equal(bad, "cannot bind token to object of type /, Kind=");
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expiration),
        cmocka_unit_test(bound_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
