/* Authorization: system:masters-only decisions and upstream's Forbidden texts and Status bodies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/authz.h"

static const char *bob_groups[] = {"devs", "system:authenticated"};
static const kg_user bob = {.name = "bob", .uid = "1", .groups = bob_groups, .ngroups = 2};
static const char *admin_groups[] = {"system:masters", "system:authenticated"};
static const kg_user admin = {.name = "kgate-admin", .uid = "", .groups = admin_groups, .ngroups = 2};

static const char *msg_for(kg_arena *a, const kg_user *u, const char *method, const char *path, const char *query,
                           const char *reason)
{
    kg_request_info ri;
    kg_error err = {0};
    assert_true(kg_requestinfo_parse_url(a, method, path, query, &ri, &err));
    kg_authz_attributes at;
    kg_authz_attributes_from_request(&at, u, &ri);
    return kg_authz_forbidden_message(a, &at, reason);
}

static void forbidden_messages(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_string_equal(msg_for(&a, &bob, "GET", "/api/v1/namespaces/default/pods", "", NULL),
                        "pods is forbidden: User \"bob\" cannot list resource \"pods\" in API group \"\" in the "
                        "namespace \"default\"");
    assert_string_equal(msg_for(&a, &bob, "GET", "/api/v1/nodes/n1", "", NULL),
                        "nodes \"n1\" is forbidden: User \"bob\" cannot get resource \"nodes\" in API group \"\" at "
                        "the cluster scope");
    assert_string_equal(msg_for(&a, &bob, "POST", "/apis/apps/v1/namespaces/ns1/deployments", "", NULL),
                        "deployments.apps is forbidden: User \"bob\" cannot create resource \"deployments\" in API "
                        "group \"apps\" in the namespace \"ns1\"");
    assert_string_equal(msg_for(&a, &bob, "PUT", "/apis/apps/v1/namespaces/ns1/deployments/web/scale", "", NULL),
                        "deployments.apps \"web\" is forbidden: User \"bob\" cannot update resource "
                        "\"deployments/scale\" in API group \"apps\" in the namespace \"ns1\"");
    assert_string_equal(msg_for(&a, &bob, "GET", "/api/v1/namespaces", "watch=1", NULL),
                        "namespaces is forbidden: User \"bob\" cannot watch resource \"namespaces\" in API group \"\" "
                        "at the cluster scope");
    /* a namespace object: the namespace is its own name */
    assert_string_equal(msg_for(&a, &bob, "DELETE", "/api/v1/namespaces/kube-system", "", NULL),
                        "namespaces \"kube-system\" is forbidden: User \"bob\" cannot delete resource \"namespaces\" "
                        "in API group \"\" in the namespace \"kube-system\"");
    assert_string_equal(msg_for(&a, &bob, "DELETE", "/api/v1/namespaces/ns/secrets", "", NULL),
                        "secrets is forbidden: User \"bob\" cannot deletecollection resource \"secrets\" in API group "
                        "\"\" in the namespace \"ns\"");
    /* non-resource URLs */
    assert_string_equal(msg_for(&a, &bob, "GET", "/healthz", "", NULL),
                        "forbidden: User \"bob\" cannot get path \"/healthz\"");
    assert_string_equal(msg_for(&a, &bob, "GET", "/apis", "", NULL),
                        "forbidden: User \"bob\" cannot get path \"/apis\"");
    /* the anonymous user and a reason */
    static const char *anon_groups[] = {"system:unauthenticated"};
    kg_user anon = {.name = "system:anonymous", .uid = "", .groups = anon_groups, .ngroups = 1};
    assert_string_equal(
        msg_for(&a, &anon, "GET", "/api/v1/namespaces/default/configmaps/c", "", "no RBAC policy matched"),
        "configmaps \"c\" is forbidden: User \"system:anonymous\" cannot get resource \"configmaps\" "
        "in API group \"\" in the namespace \"default\": no RBAC policy matched");
    /* quoting like Go's %q */
    kg_user odd = {.name = "a\"b\\c", .uid = "", .groups = NULL, .ngroups = 0};
    assert_string_equal(msg_for(&a, &odd, "GET", "/version", "", NULL),
                        "forbidden: User \"a\\\"b\\\\c\" cannot get path \"/version\"");
    kg_arena_free(&a);
}

static void forbidden_status_body(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_request_info ri;
    kg_error err = {0};
    kg_authz_attributes at;
    kg_buf b = KG_BUF_INIT;

    assert_true(kg_requestinfo_parse_url(&a, "GET", "/apis/apps/v1/namespaces/ns/deployments/web", "", &ri, &err));
    kg_authz_attributes_from_request(&at, &bob, &ri);
    kg_authz_forbidden_status(&b, &a, &at, NULL);
    assert_string_equal(kg_buf_cstr(&b),
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
                        "\"deployments.apps \\\"web\\\" is forbidden: User \\\"bob\\\" cannot get resource "
                        "\\\"deployments\\\" in API group \\\"apps\\\" in the namespace \\\"ns\\\"\",\"reason\":"
                        "\"Forbidden\",\"details\":{\"name\":\"web\",\"group\":\"apps\",\"kind\":\"deployments\"},"
                        "\"code\":403}");
    kg_buf_reset(&b);
    assert_true(kg_requestinfo_parse_url(&a, "GET", "/api/v1/namespaces/default/pods", "", &ri, &err));
    kg_authz_attributes_from_request(&at, &bob, &ri);
    kg_authz_forbidden_status(&b, &a, &at, NULL);
    assert_string_equal(kg_buf_cstr(&b),
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
                        "\"pods is forbidden: User \\\"bob\\\" cannot list resource \\\"pods\\\" in API group \\\"\\\" "
                        "in the namespace \\\"default\\\"\",\"reason\":\"Forbidden\",\"details\":{\"kind\":\"pods\"},"
                        "\"code\":403}");
    kg_buf_reset(&b);
    assert_true(kg_requestinfo_parse_url(&a, "GET", "/healthz", "", &ri, &err));
    kg_authz_attributes_from_request(&at, &bob, &ri);
    kg_authz_forbidden_status(&b, &a, &at, NULL);
    assert_string_equal(kg_buf_cstr(&b),
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
                        "\"forbidden: User \\\"bob\\\" cannot get path \\\"/healthz\\\"\",\"reason\":\"Forbidden\","
                        "\"details\":{},\"code\":403}");
    kg_buf_free(&b);
    kg_arena_free(&a);
}

static void masters_only(void **state)
{
    (void)state;
    const char *groups[] = {"system:masters"};
    kg_authorizer *z = kg_authz_new_privileged_groups(groups, 1);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_request_info ri;
    kg_error err = {0};
    const char *reason;
    kg_authz_attributes at;
    const char *paths[] = {"/api/v1/namespaces/default/pods", "/healthz", "/apis/apps/v1/deployments"};
    for (size_t i = 0; i < 3; i++) {
        assert_true(kg_requestinfo_parse_url(&a, "GET", paths[i], "", &ri, &err));
        kg_authz_attributes_from_request(&at, &admin, &ri);
        assert_int_equal(kg_authz_authorize(z, &at, &a, &reason, NULL), KG_AUTHZ_ALLOW);
        kg_authz_attributes_from_request(&at, &bob, &ri);
        assert_int_equal(kg_authz_authorize(z, &at, &a, &reason, NULL), KG_AUTHZ_NO_OPINION);
        assert_true(reason == NULL || *reason == '\0');
        kg_authz_attributes_from_request(&at, NULL, &ri);
        assert_int_equal(kg_authz_authorize(z, &at, &a, &reason, NULL), KG_AUTHZ_NO_OPINION);
    }
    kg_authorizer_free(z);
    kg_arena_free(&a);
}

/* A test authorizer: a fixed decision and reason. */
typedef struct fixed {
    kg_authorizer base;
    kg_authz_decision d;
    const char *reason;
    int *calls;
} fixed;

static kg_authz_decision fixed_authorize(void *ctx, const kg_authz_attributes *attrs, kg_arena *a,
                                         const char **reason, kg_error *err)
{
    (void)attrs;
    (void)a;
    (void)err;
    const fixed *f = ctx;
    (*f->calls)++;
    *reason = f->reason;
    return f->d;
}

static void fixed_destroy(void *ctx)
{
    free(ctx);
}

static kg_authorizer *new_fixed(kg_authz_decision d, const char *reason, int *calls)
{
    fixed *f = calloc(1, sizeof(*f));
    f->base = (kg_authorizer){.ctx = f, .authorize = fixed_authorize, .destroy = fixed_destroy};
    f->d = d;
    f->reason = reason;
    f->calls = calls;
    return &f->base;
}

static void union_semantics(void **state)
{
    (void)state;
    int calls = 0;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_authz_attributes at = {.user = &bob, .verb = "get", .resource_request = false, .path = "/x"};
    const char *reason;

    kg_authorizer *m1[] = {new_fixed(KG_AUTHZ_NO_OPINION, "first says nothing", &calls),
                           new_fixed(KG_AUTHZ_NO_OPINION, "", &calls),
                           new_fixed(KG_AUTHZ_NO_OPINION, "third neither", &calls)};
    kg_authorizer *u = kg_authz_new_union(m1, 3);
    assert_int_equal(kg_authz_authorize(u, &at, &a, &reason, NULL), KG_AUTHZ_NO_OPINION);
    assert_string_equal(reason, "first says nothing\nthird neither");
    assert_int_equal(calls, 3);
    kg_authorizer_free(u);

    calls = 0;
    kg_authorizer *m2[] = {new_fixed(KG_AUTHZ_NO_OPINION, "x", &calls), new_fixed(KG_AUTHZ_DENY, "denied", &calls),
                           new_fixed(KG_AUTHZ_ALLOW, NULL, &calls)};
    u = kg_authz_new_union(m2, 3);
    assert_int_equal(kg_authz_authorize(u, &at, &a, &reason, NULL), KG_AUTHZ_DENY);
    assert_string_equal(reason, "denied");
    assert_int_equal(calls, 2); /* stops at the first decision */
    kg_authorizer_free(u);

    const char *groups[] = {"devs"};
    kg_authorizer *m3[] = {kg_authz_new_privileged_groups(groups, 1), new_fixed(KG_AUTHZ_DENY, "no", &calls)};
    u = kg_authz_new_union(m3, 2);
    assert_int_equal(kg_authz_authorize(u, &at, &a, &reason, NULL), KG_AUTHZ_ALLOW);
    kg_authorizer_free(u);
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(forbidden_messages),
        cmocka_unit_test(forbidden_status_body),
        cmocka_unit_test(masters_only),
        cmocka_unit_test(union_semantics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
