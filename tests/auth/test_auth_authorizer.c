/* The authorizer interface: privileged groups, the union's decisions, reasons and errors, NULL handling. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "auth/authorizer.h"

static const char *const dev_groups[] = {"devs", KG_GROUP_AUTHENTICATED};
static const kg_user_info dev = {.name = "dana", .uid = "7", .groups = dev_groups, .ngroups = 2};

typedef struct fixed {
    kg_authorizer base;
    kg_authz_decision d;
    const char *reason, *error;
    int *calls;
} fixed;

static kg_authz_decision fixed_authorize(void *ctx, const kg_authz_attributes *attrs, kg_arena *a, const char **reason,
                                         kg_error *err)
{
    (void)attrs;
    (void)a;
    const fixed *f = ctx;
    (*f->calls)++;
    *reason = f->reason;
    if (f->error)
        kg_err_set(err, KG_EIO, "%s", f->error);
    return f->d;
}

static void fixed_destroy(void *ctx)
{
    free(ctx);
}

static kg_authorizer *new_fixed(kg_authz_decision d, const char *reason, const char *error, int *calls)
{
    fixed *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->base = (kg_authorizer){.ctx = f, .authorize = fixed_authorize, .destroy = fixed_destroy};
    f->d = d;
    f->reason = reason;
    f->error = error;
    f->calls = calls;
    return &f->base;
}

static void user_groups(void **state)
{
    (void)state;
    assert_true(kg_user_in_group(&dev, "devs"));
    assert_false(kg_user_in_group(&dev, "dev"));
    assert_false(kg_user_in_group(NULL, "devs"));
}

static void privileged_groups(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *groups[] = {"ops", "devs"};
    kg_authorizer *z = kg_authz_new_privileged_groups(groups, 2);
    kg_authz_attributes at = {.user = &dev, .verb = "delete", .resource_request = true, .resource = "pods"};
    const char *reason = "stale";
    KG_ERROR_DECL(err);
    assert_int_equal(kg_authz_authorize(z, &at, &a, &reason, &err), KG_AUTHZ_ALLOW);
    assert_null(reason);
    assert_int_equal(err.code, KG_OK);
    at.user = NULL;
    assert_int_equal(kg_authz_authorize(z, &at, &a, &reason, NULL), KG_AUTHZ_NO_OPINION);
    kg_authorizer_free(z);
    /* no authorizer at all: no opinion */
    assert_int_equal(kg_authz_authorize(NULL, &at, &a, &reason, &err), KG_AUTHZ_NO_OPINION);
    kg_authorizer_free(NULL);
    kg_arena_free(&a);
}

static void union_errors(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    int calls = 0;
    kg_authz_attributes at = {.user = &dev, .verb = "get", .path = "/healthz"};
    const char *reason;
    KG_ERROR_DECL(err);

    /* all no opinion: reasons joined by "\n", errors aggregated */
    kg_authorizer *m1[] = {new_fixed(KG_AUTHZ_NO_OPINION, "webhook down", "dial tcp: refused", &calls),
                           new_fixed(KG_AUTHZ_NO_OPINION, NULL, NULL, &calls),
                           new_fixed(KG_AUTHZ_NO_OPINION, "rbac: no rule", "timeout", &calls)};
    kg_authorizer *u = kg_authz_new_union(m1, 3);
    assert_int_equal(kg_authz_authorize(u, &at, &a, &reason, &err), KG_AUTHZ_NO_OPINION);
    assert_string_equal(reason, "webhook down\nrbac: no rule");
    assert_int_equal(err.code, KG_EIO);
    assert_string_equal(err.msg, "dial tcp: refused, timeout");
    assert_int_equal(calls, 3);
    kg_authorizer_free(u);

    /* a decision stops the walk and carries only its own error */
    calls = 0;
    kg_authorizer *m2[] = {new_fixed(KG_AUTHZ_NO_OPINION, "x", "earlier", &calls),
                           new_fixed(KG_AUTHZ_ALLOW, "ok", NULL, &calls),
                           new_fixed(KG_AUTHZ_DENY, "never asked", NULL, &calls)};
    u = kg_authz_new_union(m2, 3);
    assert_int_equal(kg_authz_authorize(u, &at, &a, &reason, &err), KG_AUTHZ_ALLOW);
    assert_string_equal(reason, "ok");
    assert_int_equal(err.code, KG_OK);
    assert_int_equal(calls, 2);
    kg_authorizer_free(u);

    /* empty union */
    u = kg_authz_new_union(NULL, 0);
    assert_int_equal(kg_authz_authorize(u, &at, &a, &reason, &err), KG_AUTHZ_NO_OPINION);
    assert_null(reason);
    kg_authorizer_free(u);
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(user_groups),
        cmocka_unit_test(privileged_groups),
        cmocka_unit_test(union_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
