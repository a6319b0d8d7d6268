/* Write-time checks of ValidatingAdmissionPolicy and its binding beyond validation (src/admission/policy/
 * writecheck.c): the paramKind / paramRef authorization with an authorizer that denies (upstream's texts and the
 * attributes asked about), the cases that skip it (system:masters, unchanged paramKind or paramRef, no authorizer),
 * an authorizer error, and the Warning for rules that match no served resource. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "admission/memcluster.h"
#include "admission/policy/policy.h"

static kg_arena A;
static kg_admission_memcluster *M;
static kg_admission_services S;
static kg_warnings W;

/* the authorizer: records what it was asked, answers with `answer` (or an error) */
static kg_authz_decision answer;
static bool fail_with_error;
static int calls;
static kg_authz_attributes asked;
static char asked_strs[8][128];

static const char *keep(int i, const char *s)
{
    snprintf(asked_strs[i], sizeof asked_strs[i], "%s", s ? s : "(null)");
    return asked_strs[i];
}

static kg_authz_decision authorize(void *ctx, const kg_authz_attributes *at, kg_arena *a, const char **reason,
                                   kg_error *err)
{
    (void)ctx;
    (void)a;
    calls++;
    asked = *at;
    asked.verb = keep(0, at->verb);
    asked.api_group = keep(1, at->api_group);
    asked.api_version = keep(2, at->api_version);
    asked.resource = keep(3, at->resource);
    asked.namespace_ = keep(4, at->namespace_);
    asked.name = keep(5, at->name);
    *reason = "denied by the test";
    if (fail_with_error) {
        kg_err_set(err, KG_EIO, "authorizer unavailable");
        return KG_AUTHZ_NO_OPINION;
    }
    return answer;
}
static const kg_authorizer Z = {.authorize = authorize};

/* served: configmaps (core v1, namespaced), deployments (apps/v1, with status and scale) */
static bool resource_for_kind(void *ctx, const char *group, const char *version, const char *kind, const char **plural,
                              bool *namespaced)
{
    (void)ctx;
    if (!strcmp(group, "") && !strcmp(version, "v1") && !strcmp(kind, "ConfigMap")) {
        *plural = "configmaps";
        *namespaced = true;
        return true;
    }
    return false;
}

static bool served(void *ctx, const char *group, const char *version, const char *resource)
{
    (void)ctx;
    bool g_core = !strcmp(group, "*") || !strcmp(group, ""), g_apps = !strcmp(group, "*") || !strcmp(group, "apps");
    bool v1 = !strcmp(version, "*") || !strcmp(version, "v1");
    if (!v1)
        return false;
    if (g_core && (!strcmp(resource, "configmaps") || !strcmp(resource, "*")))
        return true;
    return g_apps &&
           (!strcmp(resource, "deployments") || !strcmp(resource, "deployments/status") || !strcmp(resource, "*"));
}

static const char *alice_groups[] = {"dev", "system:authenticated"};
static const char *master_groups[] = {"system:masters", "system:authenticated"};
static kg_admission_user alice = {.name = "alice", .groups = alice_groups, .ngroups = 2};
static kg_admission_user admin = {.name = "admin", .groups = master_groups, .ngroups = 2};

static int setup(void **state)
{
    (void)state;
    kg_arena_init(&A, 0);
    M = kg_admission_memcluster_new();
    S = kg_admission_memcluster_services(M, NULL);
    S.authorizer = &Z;
    S.resource_for_kind = resource_for_kind;
    S.resource_served = served;
    kg_warnings_init(&W, &A);
    answer = KG_AUTHZ_NO_OPINION;
    fail_with_error = false;
    calls = 0;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kg_admission_memcluster_free(M);
    kg_arena_free(&A);
    return 0;
}

static kg_json *parse(const char *s)
{
    kg_error err;
    kg_json *j = kg_json_parse(&A, s, strlen(s), &err);
    assert_non_null(j);
    return j;
}

#define RULES(res)                                                                                                     \
    "\"matchConstraints\":{\"resourceRules\":[{\"apiGroups\":[\"apps\"],\"apiVersions\":[\"v1\"],\"operations\":["     \
    "\"CREATE\"],\"resources\":[" res "]}]}"

static kg_json *policy(const char *spec_rest)
{
    return parse(kg_arena_sprintf(&A, "{\"metadata\":{\"name\":\"p\"},\"spec\":{%s}}", spec_rest));
}

static void check_policy(const kg_admission_user *u, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    kg_vap_write_ctx c = {&A, u, &S, &W};
    *errs = (kg_field_errors)KG_FIELD_ERRORS_INIT;
    kg_vap_policy_check_write(&c, obj, old, errs);
}

static void check_binding(const kg_admission_user *u, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    kg_vap_write_ctx c = {&A, u, &S, &W};
    *errs = (kg_field_errors)KG_FIELD_ERRORS_INIT;
    kg_vap_binding_check_write(&c, obj, old, errs);
}

static void test_policy_param_kind_denied(void **state)
{
    (void)state;
    kg_json *p = policy("\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}," RULES("\"deployments\""));
    kg_field_errors errs;
    check_policy(&alice, p, NULL, &errs);
    assert_int_equal(errs.len, 1);
    assert_int_equal(errs.items[0].type, KG_FIELD_FORBIDDEN);
    assert_string_equal(errs.items[0].field, "spec.paramKind");
    assert_string_equal(errs.items[0].detail,
                        "user &{alice  [dev system:authenticated] map[]} must have \"get\" permission on all objects "
                        "of the referenced paramKind (kind=ConfigMap, apiVersion=v1)");
    /* what was asked: get on every configmap in every namespace */
    assert_int_equal(calls, 1);
    assert_string_equal(asked.verb, "get");
    assert_true(asked.resource_request);
    assert_string_equal(asked.api_group, "");
    assert_string_equal(asked.api_version, "v1");
    assert_string_equal(asked.resource, "configmaps");
    assert_string_equal(asked.namespace_, "*");
    assert_string_equal(asked.name, "*");
    assert_ptr_equal(asked.user, &alice);

    /* an unserved kind: its group and version, every resource */
    p = policy("\"paramKind\":{\"apiVersion\":\"example.com/v2\",\"kind\":\"Limit\"}," RULES("\"deployments\""));
    check_policy(&alice, p, NULL, &errs);
    assert_int_equal(errs.len, 1);
    assert_string_equal(asked.api_group, "example.com");
    assert_string_equal(asked.api_version, "v2");
    assert_string_equal(asked.resource, "*");

    /* allowed */
    answer = KG_AUTHZ_ALLOW;
    check_policy(&alice, p, NULL, &errs);
    assert_int_equal(errs.len, 0);

    /* an authorizer error is the detail */
    fail_with_error = true;
    check_policy(&alice, p, NULL, &errs);
    assert_int_equal(errs.len, 1);
    assert_string_equal(errs.items[0].detail, "authorizer unavailable");
}

static void test_policy_param_kind_skipped(void **state)
{
    (void)state;
    kg_json *p = policy("\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}," RULES("\"deployments\""));
    kg_field_errors errs;
    check_policy(&admin, p, NULL, &errs); /* system:masters */
    assert_int_equal(errs.len, 0);
    check_policy(&alice, policy(RULES("\"deployments\"")), NULL, &errs); /* no paramKind */
    assert_int_equal(errs.len, 0);
    /* an update that keeps the paramKind */
    kg_json *old =
        policy("\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"},\"failurePolicy\":\"Ignore\"," RULES(
            "\"deployments\""));
    check_policy(&alice, p, old, &errs);
    assert_int_equal(errs.len, 0);
    assert_int_equal(calls, 0);
    /* ...one that changes it is checked */
    kg_json *old2 = policy("\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"Secret\"}," RULES("\"deployments\""));
    check_policy(&alice, p, old2, &errs);
    assert_int_equal(errs.len, 1);
    /* no authorizer: nothing to ask */
    S.authorizer = NULL;
    check_policy(&alice, p, NULL, &errs);
    assert_int_equal(errs.len, 0);
    assert_int_equal(calls, 1);
}

static void test_binding_param_ref(void **state)
{
    (void)state;
    kg_error err;
    assert_true(kg_admission_memcluster_put(
        M, "validatingadmissionpolicies",
        parse(
            "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}}}"),
        KG_MEMCLUSTER_STORE_ONLY, &err));
    kg_json *b =
        parse("{\"metadata\":{\"name\":\"b\"},\"spec\":{\"policyName\":\"p\",\"validationActions\":[\"Deny\"],"
              "\"paramRef\":{\"name\":\"limits\",\"namespace\":\"team\",\"parameterNotFoundAction\":\"Deny\"}}}");
    kg_field_errors errs;
    check_binding(&alice, b, NULL, &errs);
    assert_int_equal(errs.len, 1);
    assert_string_equal(errs.items[0].field, "spec.paramKind");
    assert_string_equal(errs.items[0].detail, "user &{alice  [dev system:authenticated] map[]} does not have \"get\" "
                                              "permission on the object referenced by paramRef");
    assert_string_equal(asked.resource, "configmaps");
    assert_string_equal(asked.api_version, "v1");
    assert_string_equal(asked.namespace_, "team");
    assert_string_equal(asked.name, "limits");
    /* a policy that does not exist (yet): every resource */
    kg_json *b2 = parse("{\"metadata\":{\"name\":\"b\"},\"spec\":{\"policyName\":\"nope\",\"validationActions\":["
                        "\"Deny\"],\"paramRef\":{\"name\":\"limits\",\"parameterNotFoundAction\":\"Deny\"}}}");
    check_binding(&alice, b2, NULL, &errs);
    assert_int_equal(errs.len, 1);
    assert_string_equal(asked.resource, "*");
    assert_string_equal(asked.api_group, "*");
    assert_string_equal(asked.namespace_, "");
    /* unchanged paramRef and policyName on update: not asked again; a changed policyName is */
    int before = calls;
    check_binding(&alice, b, b, &errs);
    assert_int_equal(errs.len, 0);
    assert_int_equal(calls, before);
    kg_json *b3 = parse("{\"metadata\":{\"name\":\"b\"},\"spec\":{\"policyName\":\"other\",\"validationActions\":["
                        "\"Deny\"],\"paramRef\":{\"name\":\"limits\",\"namespace\":\"team\","
                        "\"parameterNotFoundAction\":\"Deny\"}}}");
    check_binding(&alice, b, b3, &errs);
    assert_int_equal(errs.len, 1);
    /* admins are not asked */
    check_binding(&admin, b, NULL, &errs);
    assert_int_equal(errs.len, 0);
}

static void test_no_match_warning(void **state)
{
    (void)state;
    kg_field_errors errs;
    answer = KG_AUTHZ_ALLOW;
    check_policy(&alice, policy(RULES("\"deployments\"")), NULL, &errs);
    assert_int_equal(W.n, 0);
    check_policy(&alice, policy(RULES("\"deployments/status\", \"deploymentz\"")), NULL, &errs); /* one matches */
    assert_int_equal(W.n, 0);
    check_policy(&alice, policy(RULES("\"*\"")), NULL, &errs);
    assert_int_equal(W.n, 0);
    check_policy(&alice, policy(RULES("\"deploymentz\", \"replicasetz\"")), NULL, &errs);
    assert_int_equal(errs.len, 0);
    assert_int_equal(W.n, 1);
    assert_string_equal(W.items[0], "spec.matchConstraints.resourceRules: no resource served by this server matches "
                                    "these rules (resources that match nothing: \"deploymentz\", \"replicasetz\"); "
                                    "this policy will never be evaluated");
    /* a binding's matchResources */
    kg_json *b = parse("{\"metadata\":{\"name\":\"b\"},\"spec\":{\"policyName\":\"p\",\"validationActions\":[\"Deny\"],"
                       "\"matchResources\":{\"resourceRules\":[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],"
                       "\"operations\":[\"*\"],\"resources\":[\"configmap\"]}]}}}");
    check_binding(&alice, b, NULL, &errs);
    assert_int_equal(W.n, 2);
    assert_string_equal(W.items[1], "spec.matchResources.resourceRules: no resource served by this server matches "
                                    "these rules (resources that match nothing: \"configmap\"); this binding will "
                                    "never apply");
    /* a binding without resourceRules applies to what its policy matches: no warning */
    check_binding(&alice, parse("{\"metadata\":{\"name\":\"b\"},\"spec\":{\"policyName\":\"p\"}}"), NULL, &errs);
    assert_int_equal(W.n, 2);
    /* a refused write gets no warning */
    answer = KG_AUTHZ_DENY;
    check_policy(&alice, policy("\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}," RULES("\"nothing\"")),
                 NULL, &errs);
    assert_int_equal(errs.len, 1);
    assert_int_equal(W.n, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_policy_param_kind_denied, setup, teardown),
        cmocka_unit_test_setup_teardown(test_policy_param_kind_skipped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_binding_param_ref, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_match_warning, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
