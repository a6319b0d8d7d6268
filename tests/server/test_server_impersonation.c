/* Impersonation headers (upstream impersonation_test.go's cases): no headers, group/uid/extra without a user (500
 * text), a disallowed group (403 text), an allowed ServiceAccount (its groups), system:anonymous (no
 * system:authenticated), percent-escaped extras, the order of the checks and the attributes each check asks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/impersonation.h"

/* An authorizer that records what it is asked and allows everything except the listed names. */
typedef struct recorder {
    kg_authorizer base;
    const char *deny_name;
    char log[2048];
} recorder;

static kg_authz_decision rec_authorize(void *ctx, const kg_authz_attributes *at, kg_arena *a, const char **reason,
                                       kg_error *err)
{
    (void)a, (void)err;
    recorder *r = ctx;
    size_t n = strlen(r->log);
    snprintf(r->log + n, sizeof r->log - n, "%s %s %s/%s %s/%s|", at->user->name, at->verb, at->api_group, at->resource,
             at->subresource, at->namespace_[0] ? at->namespace_ : "-");
    n = strlen(r->log);
    snprintf(r->log + n, sizeof r->log - n, "%s;", at->name);
    if (r->deny_name && !strcmp(at->name, r->deny_name)) {
        *reason = "nope";
        return KG_AUTHZ_NO_OPINION;
    }
    return KG_AUTHZ_ALLOW;
}

static recorder *rec(const char *deny)
{
    recorder *r = calloc(1, sizeof *r);
    r->base = (kg_authorizer){.ctx = r, .authorize = rec_authorize, .destroy = free};
    r->deny_name = deny;
    return r;
}

static const char *const bob_groups[] = {KG_GROUP_AUTHENTICATED};
static const kg_user bob = {.name = "bob", .uid = "1", .groups = bob_groups, .ngroups = 1};

static kg_impersonation_result run(recorder *r, const kg_http_header *h, size_t n, kg_arena *a, kg_user *u,
                                   const char **body)
{
    *u = bob;
    *body = NULL;
    return kg_impersonate(&r->base, h, n, "/api/v1/pods?x=1", a, u, body);
}

static void groups_are(const kg_user *u, const char *joined)
{
    char buf[512] = "";
    for (size_t i = 0; i < u->ngroups; i++) {
        strcat(buf, i ? "," : "");
        strcat(buf, u->groups[i]);
    }
    assert_string_equal(buf, joined);
}

static void impersonation(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_user u;
    const char *body;
    recorder *r = rec(NULL);

    /* no headers: untouched */
    kg_http_header other[] = {{"Accept", "application/json"}};
    assert_int_equal(run(r, other, 1, &a, &u, &body), KG_IMPERSONATION_NONE);
    assert_string_equal(u.name, "bob");

    /* impersonating-group-without-user, and extras/uid without a user: 500 naming every request */
    kg_http_header no_user[] = {{"Impersonate-Group", "g1"}, {"impersonate-group", "g2"}, {"Impersonate-Uid", "7"}};
    assert_int_equal(run(r, no_user, 3, &a, &u, &body), KG_IMPERSONATION_ERROR);
    assert_string_equal(body, "Internal Server Error: \"/api/v1/pods?x=1\": requested [{Group  g1    } {Group  g2    } "
                              "{UID  7    }] without impersonating a user");

    /* user + groups + extras + uid: checked in that order, then the new identity */
    r->log[0] = 0;
    kg_http_header all[] = {{"Impersonate-Uid", "u-9"},
                            {"Impersonate-User", "alice"},
                            {"Impersonate-Extra-Example.com%2fScopes", "s1"},
                            {"Impersonate-Group", "devs"},
                            {"Impersonate-Extra-example.com%2fscopes", "s2"}};
    assert_int_equal(run(r, all, 5, &a, &u, &body), KG_IMPERSONATION_OK);
    assert_string_equal(r->log, "bob impersonate /users /-|alice;bob impersonate /groups /-|devs;"
                                "bob impersonate authentication.k8s.io/userextras example.com/scopes/-|s1;"
                                "bob impersonate authentication.k8s.io/userextras example.com/scopes/-|s2;"
                                "bob impersonate authentication.k8s.io/uids /-|u-9;");
    assert_string_equal(u.name, "alice");
    assert_string_equal(u.uid, "u-9");
    groups_are(&u, "devs,system:authenticated");
    assert_int_equal(u.nextra, 1);
    assert_string_equal(u.extra[0].key, "example.com/scopes");
    assert_int_equal(u.extra[0].nvalues, 2);
    assert_string_equal(u.extra[0].values[1], "s2");

    /* allowed-sa-impersonating: serviceaccounts in the SA's namespace, SA groups added */
    r->log[0] = 0;
    kg_http_header sa[] = {{"Impersonate-User", "system:serviceaccount:ns1:builder"}};
    assert_int_equal(run(r, sa, 1, &a, &u, &body), KG_IMPERSONATION_OK);
    assert_string_equal(r->log, "bob impersonate /serviceaccounts /ns1|builder;");
    assert_string_equal(u.name, "system:serviceaccount:ns1:builder");
    assert_string_equal(u.uid, "");
    groups_are(&u, "system:serviceaccounts,system:serviceaccounts:ns1,system:authenticated");
    /* ... not a valid SA name: an ordinary user */
    kg_http_header not_sa[] = {{"Impersonate-User", "system:serviceaccount:NS:x"}};
    assert_int_equal(run(r, not_sa, 1, &a, &u, &body), KG_IMPERSONATION_OK);
    groups_are(&u, "system:authenticated");

    /* anonymous-username-prevents-adding-authenticated-group */
    kg_http_header anon[] = {{"Impersonate-User", "system:anonymous"}};
    assert_int_equal(run(r, anon, 1, &a, &u, &body), KG_IMPERSONATION_OK);
    groups_are(&u, "system:unauthenticated");
    kg_http_header unauth[] = {{"Impersonate-User", "x"}, {"Impersonate-Group", "system:unauthenticated"}};
    assert_int_equal(run(r, unauth, 2, &a, &u, &body), KG_IMPERSONATION_OK);
    groups_are(&u, "system:unauthenticated");
    kg_authorizer_free(&r->base);

    /* disallowed-group: 403 with upstream's text and the authorizer's reason */
    r = rec("wheel");
    kg_http_header bad[] = {{"Impersonate-User", "alice"}, {"Impersonate-Group", "wheel"}};
    assert_int_equal(run(r, bad, 2, &a, &u, &body), KG_IMPERSONATION_FORBIDDEN);
    assert_string_equal(u.name, "bob");
    assert_non_null(strstr(body,
                           "\"message\":\"groups \\\"wheel\\\" is forbidden: User \\\"bob\\\" cannot "
                           "impersonate resource \\\"groups\\\" in API group \\\"\\\" at the cluster scope: nope\""));
    assert_non_null(strstr(body, "\"code\":403"));
    kg_authorizer_free(&r->base);
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(impersonation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
