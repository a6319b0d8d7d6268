/* Bootstrap token authentication (authn_bootstrap.h): token shape, the Secret's checks (type, id, secret, expiry,
 * usage, deletion), the extra-groups rule, and its place among the token authenticators. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "json/json.h"
#include "server/authn_bootstrap.h"

#define NOW 1800000000 /* 2027-01-15T08:00:00Z */

typedef struct fake {
    const char *name; /* the one Secret in kube-system, NULL: none */
    const char *json;
} fake;

static const kg_json *lookup(void *ud, const char *name, kg_arena *a)
{
    fake *f = ud;
    if (!f->name || strcmp(f->name, name) != 0)
        return NULL;
    kg_error err = {0};
    kg_json *v = kg_json_parse(a, f->json, strlen(f->json), &err);
    assert_non_null(v);
    return v;
}

/* A Secret JSON with data given as key=value pairs (values base64-encoded here); extra_top is added to the top. */
static char *secret(const char *type, const char *extra_meta, const char *const *kv, size_t n)
{
    static char buf[4096];
    kg_arena a;
    kg_arena_init(&a, 0);
    int off = snprintf(buf, sizeof buf,
                       "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"bootstrap-token-abcdef\","
                       "\"namespace\":\"kube-system\"%s},\"type\":\"%s\",\"data\":{",
                       extra_meta ? extra_meta : "", type);
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(kv[i], '=');
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(eq - kv[i]), kv[i]);
        char *b = kg_base64_encode(&a, eq + 1, strlen(eq + 1), 0, NULL);
        off += snprintf(buf + off, sizeof buf - (size_t)off, "%s\"%s\":\"%s\"", i ? "," : "", key, b);
    }
    snprintf(buf + off, sizeof buf - (size_t)off, "}}");
    kg_arena_free(&a);
    return buf;
}

static const char *const base_kv[] = {"token-id=abcdef", "token-secret=0123456789abcdef",
                                      "usage-bootstrap-authentication=true", "expiration=2027-06-01T00:00:00Z"};

static kg_token_verdict run(const char *json, const char *token, kg_arena *a, kg_user_info *u, const char **reason)
{
    fake f = {"bootstrap-token-abcdef", json};
    kg_bootstrap_authn b = {.lookup = lookup, .ud = &f, .now_unix = NOW};
    *reason = NULL;
    return kg_bootstrap_token_authenticate(&b, token, strlen(token), a, u, reason);
}

static void test_valid(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_user_info u;
    const char *reason;
    const char *kv[] = {base_kv[0], base_kv[1], base_kv[2], base_kv[3],
                        "auth-extra-groups=system:bootstrappers:kubeadm:default-node-token,system:bootstrappers:a,"
                        "system:bootstrappers:a"};
    char *j = strdup(secret("bootstrap.kubernetes.io/token", NULL, kv, 5));
    assert_int_equal(run(j, "abcdef.0123456789abcdef", &a, &u, &reason), KG_TOKEN_OK);
    assert_string_equal(u.name, "system:bootstrap:abcdef");
    /* deduplicated and sorted, the default group included */
    assert_int_equal(u.ngroups, 3);
    assert_string_equal(u.groups[0], "system:bootstrappers");
    assert_string_equal(u.groups[1], "system:bootstrappers:a");
    assert_string_equal(u.groups[2], "system:bootstrappers:kubeadm:default-node-token");
    /* no extra groups, no expiration */
    free(j);
    j = strdup(secret("bootstrap.kubernetes.io/token", NULL, base_kv, 3));
    assert_int_equal(run(j, "abcdef.0123456789abcdef", &a, &u, &reason), KG_TOKEN_OK);
    assert_int_equal(u.ngroups, 1);
    assert_string_equal(u.groups[0], "system:bootstrappers");
    free(j);
    kg_arena_free(&a);
}

static void test_not_mine(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_user_info u;
    const char *reason;
    char *j = strdup(secret("bootstrap.kubernetes.io/token", NULL, base_kv, 4));
    /* token shape */
    static const char *const shapes[] = {"abcdef.0123456789abcde",
                                         "abcdef.0123456789abcdef0",
                                         "ABCDEF.0123456789abcdef",
                                         "abcdef:0123456789abcdef",
                                         "abcdef.0123456789ABCDEF",
                                         "some-static-token",
                                         ""};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        assert_int_equal(run(j, shapes[i], &a, &u, &reason), KG_TOKEN_NOT_MINE);
    /* wrong secret, other id (no such Secret) */
    assert_int_equal(run(j, "abcdef.0123456789abcdee", &a, &u, &reason), KG_TOKEN_NOT_MINE);
    assert_int_equal(run(j, "abcdeg.0123456789abcdef", &a, &u, &reason), KG_TOKEN_NOT_MINE);
    free(j);
    /* wrong type */
    j = strdup(secret("Opaque", NULL, base_kv, 4));
    assert_int_equal(run(j, "abcdef.0123456789abcdef", &a, &u, &reason), KG_TOKEN_NOT_MINE);
    free(j);
    /* being deleted */
    j = strdup(secret("bootstrap.kubernetes.io/token", ",\"deletionTimestamp\":\"2027-01-01T00:00:00Z\"", base_kv, 4));
    assert_int_equal(run(j, "abcdef.0123456789abcdef", &a, &u, &reason), KG_TOKEN_NOT_MINE);
    free(j);
    /* token-id differs from the name */
    const char *kv_id[] = {"token-id=zzzzzz", base_kv[1], base_kv[2]};
    j = strdup(secret("bootstrap.kubernetes.io/token", NULL, kv_id, 3));
    assert_int_equal(run(j, "abcdef.0123456789abcdef", &a, &u, &reason), KG_TOKEN_NOT_MINE);
    free(j);
    /* usage flag missing or not exactly "true" */
    const char *kv_u[] = {base_kv[0], base_kv[1], "usage-bootstrap-authentication=yes"};
    j = strdup(secret("bootstrap.kubernetes.io/token", NULL, kv_u, 3));
    assert_int_equal(run(j, "abcdef.0123456789abcdef", &a, &u, &reason), KG_TOKEN_NOT_MINE);
    free(j);
    j = strdup(secret("bootstrap.kubernetes.io/token", NULL, base_kv, 2));
    assert_int_equal(run(j, "abcdef.0123456789abcdef", &a, &u, &reason), KG_TOKEN_NOT_MINE);
    free(j);
    /* expired; an unparsable expiration counts as expired */
    const char *kv_e[] = {base_kv[0], base_kv[1], base_kv[2], "expiration=2027-01-15T07:59:59Z"};
    j = strdup(secret("bootstrap.kubernetes.io/token", NULL, kv_e, 4));
    assert_int_equal(run(j, "abcdef.0123456789abcdef", &a, &u, &reason), KG_TOKEN_NOT_MINE);
    free(j);
    const char *kv_e2[] = {base_kv[0], base_kv[1], base_kv[2], "expiration=tomorrow"};
    j = strdup(secret("bootstrap.kubernetes.io/token", NULL, kv_e2, 4));
    assert_int_equal(run(j, "abcdef.0123456789abcdef", &a, &u, &reason), KG_TOKEN_NOT_MINE);
    free(j);
    /* an offset expiration still in the future */
    const char *kv_e3[] = {base_kv[0], base_kv[1], base_kv[2], "expiration=2027-01-15T08:30:00+00:00"};
    j = strdup(secret("bootstrap.kubernetes.io/token", NULL, kv_e3, 4));
    assert_int_equal(run(j, "abcdef.0123456789abcdef", &a, &u, &reason), KG_TOKEN_OK);
    free(j);
    kg_arena_free(&a);
}

static void test_bad_groups(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_user_info u;
    const char *reason;
    static const char *const bad[] = {"auth-extra-groups=system:masters", "auth-extra-groups=system:bootstrappers:",
                                      "auth-extra-groups=system:bootstrappers:a-",
                                      "auth-extra-groups=system:bootstrappers:ok,system:bootstrappers:Upper",
                                      "auth-extra-groups=system:bootstrappers:a,"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *kv[] = {base_kv[0], base_kv[1], base_kv[2], bad[i]};
        char *j = strdup(secret("bootstrap.kubernetes.io/token", NULL, kv, 4));
        assert_int_equal(run(j, "abcdef.0123456789abcdef", &a, &u, &reason), KG_TOKEN_INVALID);
        assert_non_null(strstr(reason, "is invalid (must match ^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$)"));
        free(j);
    }
    kg_arena_free(&a);
}

/* As token authenticator 0 after the static tokens: an invalid group is 401, an unknown token falls through. */
static void test_in_authn(void **state)
{
    (void)state;
    const char *kv[] = {base_kv[0], base_kv[1], base_kv[2], "auth-extra-groups=system:masters"};
    fake f = {"bootstrap-token-abcdef", NULL};
    f.json = strdup(secret("bootstrap.kubernetes.io/token", NULL, base_kv, 3));
    kg_bootstrap_authn b = {.lookup = lookup, .ud = &f, .now_unix = NOW};
    kg_authn_config cfg = {.anonymous_auth = true, .ntoken_authenticators = 1};
    cfg.token_authenticators[0] = (kg_token_authenticator){kg_bootstrap_token_authenticate, &b};
    kg_error err = {0};
    kg_authn *an = kg_authn_new(&cfg, &err);
    assert_non_null(an);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_user u;
    assert_int_equal(kg_authn_authenticate(an, "Bearer abcdef.0123456789abcdef", &a, &u), KG_AUTHN_OK);
    assert_string_equal(u.name, "system:bootstrap:abcdef");
    assert_int_equal(u.ngroups, 2);
    assert_string_equal(u.groups[1], "system:authenticated");
    assert_int_equal(kg_authn_authenticate(an, "Bearer abcdef.0123456789abcdee", &a, &u), KG_AUTHN_UNAUTHORIZED);
    free((char *)f.json);
    f.json = strdup(secret("bootstrap.kubernetes.io/token", NULL, kv, 4));
    assert_int_equal(kg_authn_authenticate(an, "Bearer abcdef.0123456789abcdef", &a, &u), KG_AUTHN_UNAUTHORIZED);
    free((char *)f.json);
    kg_authn_free(an);
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_not_mine),
        cmocka_unit_test(test_bad_groups),
        cmocka_unit_test(test_in_authn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
