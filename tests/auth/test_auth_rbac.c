/* RBAC: upstream's rule matching (table), the subject index (users, groups, ServiceAccounts; ClusterRoleBindings
 * vs RoleBindings of the request's namespace), reasons, missing roles, updates, the modes in a union, and the
 * bootstrap policy's grants. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "auth/rbac/bootstrappolicy.h"
#include "auth/rbac/escalation.h"
#include "auth/rbac/rbac.h"

static kg_json *J(kg_arena *a, const char *s)
{
    kg_error err;
    kg_json *j = kg_json_parse(a, s, strlen(s), &err);
    if (!j)
        fail_msg("bad JSON in test: %s: %s", err.msg, s);
    return j;
}

static kg_authz_attributes res(const kg_user_info *u, const char *verb, const char *group, const char *resource,
                               const char *sub, const char *ns, const char *name)
{
    return (kg_authz_attributes){.user = u,
                                 .verb = verb,
                                 .resource_request = true,
                                 .api_group = group,
                                 .resource = resource,
                                 .subresource = sub,
                                 .namespace_ = ns,
                                 .name = name};
}

static kg_authz_attributes url(const kg_user_info *u, const char *verb, const char *path)
{
    return (kg_authz_attributes){.user = u, .verb = verb, .path = path};
}

/* ---- rule matching ---- */

typedef struct rule_case {
    const char *rule;
    kg_authz_attributes at;
    bool allowed;
} rule_case;

static void rule_matching(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    const rule_case cases[] = {
        /* stars */
        {"{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"]}",
         res(NULL, "get", "apps", "deployments", "scale", "ns", "d"), true},
        {"{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"]}", url(NULL, "get", "/healthz"), false},
        /* tuple expansion */
        {"{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\",\"apps\"],\"resources\":[\"pods\",\"deployments\"]}",
         res(NULL, "list", "apps", "pods", "", "", ""), true},
        {"{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\",\"apps\"],\"resources\":[\"pods\",\"deployments\"]}",
         res(NULL, "watch", "", "pods", "", "", ""), false},
        {"{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}",
         res(NULL, "get", "apps", "pods", "", "", ""), false},
        /* subresources: pods does not cover pods/log; pods/log exactly; */
        {"{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}",
         res(NULL, "get", "", "pods", "log", "n", "p"), false},
        {"{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods/log\"]}",
         res(NULL, "get", "", "pods", "log", "n", "p"), true},
        {"{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods/log\"]}",
         res(NULL, "get", "", "pods", "", "n", "p"), false},
        /* "*\/scale" covers any resource's scale, not the resource itself */
        {"{\"verbs\":[\"update\"],\"apiGroups\":[\"*\"],\"resources\":[\"*/scale\"]}",
         res(NULL, "update", "apps", "deployments", "scale", "n", "d"), true},
        {"{\"verbs\":[\"update\"],\"apiGroups\":[\"*\"],\"resources\":[\"*/scale\"]}",
         res(NULL, "update", "apps", "deployments", "", "n", "d"), false},
        {"{\"verbs\":[\"update\"],\"apiGroups\":[\"*\"],\"resources\":[\"*/scale\"]}",
         res(NULL, "update", "apps", "deployments", "status", "n", "d"), false},
        /* "pods/\*" is not a wildcard */
        {"{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods/*\"]}",
         res(NULL, "get", "", "pods", "log", "n", "p"), false},
        /* resourceNames */
        {"{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"resourceNames\":[\"p\"]}",
         res(NULL, "get", "", "pods", "", "n", "p"), true},
        {"{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"resourceNames\":[\"p\"]}",
         res(NULL, "get", "", "pods", "", "n", "q"), false},
        {"{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"resourceNames\":[\"p\"]}",
         res(NULL, "list", "", "pods", "", "n", ""), false},
        /* non-resource URLs: exact, "*", prefix "*" (trailing stars trimmed) */
        {"{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/healthz\"]}", url(NULL, "get", "/healthz"), true},
        {"{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/healthz\"]}", url(NULL, "get", "/healthz/etcd"), false},
        {"{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/apis/*\"]}", url(NULL, "get", "/apis/apps/v1"), true},
        {"{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/apis/*\"]}", url(NULL, "get", "/apis"), false},
        {"{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/foo**\"]}", url(NULL, "get", "/foobar"), true},
        {"{\"verbs\":[\"*\"],\"nonResourceURLs\":[\"*\"]}", url(NULL, "post", "/anything"), true},
        {"{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"*\"]}", url(NULL, "post", "/anything"), false},
        {"{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"*\"]}", res(NULL, "get", "", "pods", "", "", ""), false},
        /* case-sensitive */
        {"{\"verbs\":[\"Get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}",
         res(NULL, "get", "", "pods", "", "", ""), false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kg_rbac_rule r;
        kg_rbac_rule_compile(&a, J(&a, cases[i].rule), &r);
        if (kg_rbac_rule_allows(&r, &cases[i].at) != cases[i].allowed)
            fail_msg("case %zu: %s: want %d", i, cases[i].rule, cases[i].allowed);
    }
    kg_arena_free(&a);
}

/* ---- the authorizer over a policy ---- */

static const char *const bob_groups[] = {"devs", KG_GROUP_AUTHENTICATED};
static const kg_user_info bob = {.name = "bob", .groups = bob_groups, .ngroups = 2};
static const char *const sa_groups[] = {"system:serviceaccounts", "system:serviceaccounts:team"};
static const kg_user_info sa = {.name = "system:serviceaccount:team:builder", .groups = sa_groups, .ngroups = 2};
static const kg_user_info eve = {.name = "eve"};

static void add(kg_rbac *r, kg_rbac_kind k, kg_arena *a, const char *json)
{
    kg_rbac_upsert(r, k, J(a, json));
}

static kg_authz_decision ask(kg_authorizer *z, kg_authz_attributes at, kg_arena *a, const char **reason)
{
    KG_ERROR_DECL(err);
    kg_authz_decision d = kg_authz_authorize(z, &at, a, reason, &err);
    assert_int_equal(err.code, KG_OK);
    return d;
}

static void subject_index(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_rbac *r = kg_rbac_new();
    kg_authorizer *z = kg_rbac_authorizer(r);
    add(r, KG_RBAC_CLUSTERROLE, &a,
        "{\"metadata\":{\"name\":\"reader\"},\"rules\":[{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],"
        "\"resources\":[\"configmaps\"]}]}");
    add(r, KG_RBAC_CLUSTERROLE, &a,
        "{\"metadata\":{\"name\":\"nodes\"},\"rules\":[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],"
        "\"resources\":[\"nodes\"]},{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/metrics\"]}]}");
    add(r, KG_RBAC_ROLE, &a,
        "{\"metadata\":{\"name\":\"deployer\",\"namespace\":\"team\"},\"rules\":[{\"verbs\":[\"create\"],"
        "\"apiGroups\":[\"apps\"],\"resources\":[\"deployments\"]}]}");
    /* bob reads configmaps in team through a RoleBinding to a ClusterRole */
    add(r, KG_RBAC_ROLEBINDING, &a,
        "{\"metadata\":{\"name\":\"bob-read\",\"namespace\":\"team\"},\"roleRef\":{\"kind\":\"ClusterRole\","
        "\"name\":\"reader\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"bob\"}]}");
    /* group devs may get nodes and /metrics cluster-wide */
    add(r, KG_RBAC_CLUSTERROLEBINDING, &a,
        "{\"metadata\":{\"name\":\"devs-nodes\"},\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"nodes\"},"
        "\"subjects\":[{\"kind\":\"Group\",\"name\":\"devs\"}]}");
    /* the ServiceAccount team/builder (namespace defaulted from the RoleBinding) may create deployments */
    add(r, KG_RBAC_ROLEBINDING, &a,
        "{\"metadata\":{\"name\":\"builder\",\"namespace\":\"team\"},\"roleRef\":{\"kind\":\"Role\","
        "\"name\":\"deployer\"},\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"builder\"}]}");
    /* a ServiceAccount subject without namespace in a ClusterRoleBinding never matches */
    add(r, KG_RBAC_CLUSTERROLEBINDING, &a,
        "{\"metadata\":{\"name\":\"sa-no-ns\"},\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"reader\"},"
        "\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"builder\"}]}");
    /* eve is bound to a role that does not exist */
    add(r, KG_RBAC_ROLEBINDING, &a,
        "{\"metadata\":{\"name\":\"eve\",\"namespace\":\"team\"},\"roleRef\":{\"kind\":\"Role\","
        "\"name\":\"ghost\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"eve\"}]}");
    assert_true(kg_rbac_sync(r, 5000));

    const char *reason;
    assert_int_equal(ask(z, res(&bob, "list", "", "configmaps", "", "team", ""), &a, &reason), KG_AUTHZ_ALLOW);
    assert_string_equal(reason,
                        "RBAC: allowed by RoleBinding \"bob-read/team\" of ClusterRole \"reader\" to User \"bob\"");
    /* limited to the RoleBinding's namespace; never cluster-wide */
    assert_int_equal(ask(z, res(&bob, "list", "", "configmaps", "", "other", ""), &a, &reason), KG_AUTHZ_NO_OPINION);
    assert_null(reason);
    assert_int_equal(ask(z, res(&bob, "list", "", "configmaps", "", "", ""), &a, &reason), KG_AUTHZ_NO_OPINION);
    assert_int_equal(ask(z, res(&bob, "delete", "", "configmaps", "", "team", "c"), &a, &reason), KG_AUTHZ_NO_OPINION);
    /* through the group */
    assert_int_equal(ask(z, res(&bob, "get", "", "nodes", "", "", "n1"), &a, &reason), KG_AUTHZ_ALLOW);
    assert_string_equal(
        reason, "RBAC: allowed by ClusterRoleBinding \"devs-nodes\" of ClusterRole \"nodes\" to Group \"devs\"");
    assert_int_equal(ask(z, url(&bob, "get", "/metrics"), &a, &reason), KG_AUTHZ_ALLOW);
    assert_int_equal(ask(z, url(&bob, "get", "/healthz"), &a, &reason), KG_AUTHZ_NO_OPINION);
    /* the ServiceAccount */
    assert_int_equal(ask(z, res(&sa, "create", "apps", "deployments", "", "team", ""), &a, &reason), KG_AUTHZ_ALLOW);
    assert_string_equal(reason, "RBAC: allowed by RoleBinding \"builder/team\" of Role \"deployer\" to "
                                "ServiceAccount \"builder/team\"");
    assert_int_equal(ask(z, res(&sa, "list", "", "configmaps", "", "x", ""), &a, &reason), KG_AUTHZ_NO_OPINION);
    /* a missing role: no opinion with the resolution error */
    assert_int_equal(ask(z, res(&eve, "get", "", "pods", "", "team", "p"), &a, &reason), KG_AUTHZ_NO_OPINION);
    assert_string_equal(reason, "RBAC: role.rbac.authorization.k8s.io \"ghost\" not found");
    /* ... which does not show up elsewhere */
    assert_int_equal(ask(z, res(&eve, "get", "", "pods", "", "other", "p"), &a, &reason), KG_AUTHZ_NO_OPINION);
    assert_null(reason);
    /* no user: nothing */
    assert_int_equal(ask(z, res(NULL, "get", "", "nodes", "", "", ""), &a, &reason), KG_AUTHZ_NO_OPINION);

    /* changes: the role appears, a binding goes, a role's rules change */
    add(r, KG_RBAC_ROLE, &a,
        "{\"metadata\":{\"name\":\"ghost\",\"namespace\":\"team\"},\"rules\":[{\"verbs\":[\"get\"],"
        "\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]}");
    kg_rbac_remove(r, KG_RBAC_CLUSTERROLEBINDING, "", "devs-nodes");
    add(r, KG_RBAC_CLUSTERROLE, &a,
        "{\"metadata\":{\"name\":\"reader\"},\"rules\":[{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],"
        "\"resources\":[\"secrets\"]}]}");
    assert_true(kg_rbac_sync(r, 5000));
    assert_int_equal(ask(z, res(&eve, "get", "", "pods", "", "team", "p"), &a, &reason), KG_AUTHZ_ALLOW);
    assert_int_equal(ask(z, res(&bob, "get", "", "nodes", "", "", "n1"), &a, &reason), KG_AUTHZ_NO_OPINION);
    assert_int_equal(ask(z, res(&bob, "list", "", "configmaps", "", "team", ""), &a, &reason), KG_AUTHZ_NO_OPINION);
    assert_int_equal(ask(z, res(&bob, "list", "", "secrets", "", "team", ""), &a, &reason), KG_AUTHZ_ALLOW);

    /* a relist replaces the kind wholesale */
    kg_rbac_replace(r, KG_RBAC_ROLEBINDING, NULL, 0);
    assert_true(kg_rbac_sync(r, 5000));
    assert_int_equal(ask(z, res(&bob, "list", "", "secrets", "", "team", ""), &a, &reason), KG_AUTHZ_NO_OPINION);
    assert_int_equal(ask(z, res(&sa, "create", "apps", "deployments", "", "team", ""), &a, &reason),
                     KG_AUTHZ_NO_OPINION);

    /* role lookup */
    kg_rbac_rule *rules;
    size_t n;
    assert_true(kg_rbac_role_rules(r, KG_RBAC_CLUSTERROLE, "", "reader", &a, &rules, &n));
    assert_int_equal(n, 1);
    assert_string_equal(rules[0].resources.v[0], "secrets");
    assert_false(kg_rbac_role_rules(r, KG_RBAC_ROLE, "team", "reader", &a, &rules, &n));

    kg_authorizer_free(z);
    kg_rbac_free(r);
    kg_arena_free(&a);
}

/* The modes in upstream's chain: system:masters, then the configured members. */
static void union_of_modes(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_rbac *r = kg_rbac_new();
    kg_json *policy = kg_rbac_bootstrap_policy(&a);
    for (uint32_t i = 0; i < policy->len; i++) {
        const kg_json *o = policy->u.items[i];
        add(r, strcmp(kg_json_get_str(o, "kind"), "ClusterRole") ? KG_RBAC_CLUSTERROLEBINDING : KG_RBAC_CLUSTERROLE, &a,
            kg_json_to_string(&a, o, 0, NULL));
    }
    assert_true(kg_rbac_sync(r, 5000));
    static const char *const masters[] = {KG_GROUP_MASTERS};
    kg_authorizer *m[] = {kg_authz_new_privileged_groups(masters, 1), kg_rbac_authorizer(r),
                          kg_authz_new_always_deny()};
    kg_authorizer *z = kg_authz_new_union(m, 3);
    static const char *const admin_groups[] = {KG_GROUP_MASTERS, KG_GROUP_AUTHENTICATED};
    const kg_user_info admin = {.name = "kgate-admin", .groups = admin_groups, .ngroups = 2};
    static const char *const anon_groups[] = {KG_GROUP_UNAUTHENTICATED};
    const kg_user_info anon = {.name = KG_USER_ANONYMOUS, .groups = anon_groups, .ngroups = 1};
    const char *reason;
    assert_int_equal(ask(z, res(&admin, "delete", "", "nodes", "", "", "n"), &a, &reason), KG_AUTHZ_ALLOW);
    /* bootstrap: discovery and self reviews for every authenticated user, health for everyone */
    assert_int_equal(ask(z, url(&bob, "get", "/apis/apps/v1"), &a, &reason), KG_AUTHZ_ALLOW);
    assert_string_equal(reason, "RBAC: allowed by ClusterRoleBinding \"system:discovery\" of ClusterRole "
                                "\"system:discovery\" to Group \"system:authenticated\"");
    assert_int_equal(
        ask(z, res(&bob, "create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", ""), &a, &reason),
        KG_AUTHZ_ALLOW);
    assert_int_equal(ask(z, url(&anon, "get", "/healthz"), &a, &reason), KG_AUTHZ_ALLOW);
    assert_int_equal(ask(z, url(&anon, "get", "/apis"), &a, &reason), KG_AUTHZ_NO_OPINION);
    assert_string_equal(reason, "Everything is forbidden.");
    assert_int_equal(ask(z, res(&bob, "list", "", "pods", "", "default", ""), &a, &reason), KG_AUTHZ_NO_OPINION);
    kg_authorizer *allow = kg_authz_new_always_allow();
    assert_int_equal(ask(allow, res(&anon, "delete", "", "nodes", "", "", ""), &a, &reason), KG_AUTHZ_ALLOW);
    kg_authorizer_free(allow);
    kg_authorizer_free(z);
    kg_rbac_free(r);
    kg_arena_free(&a);
}

static kg_rbac_rule *rules(kg_arena *a, const char *json, size_t *n)
{
    return kg_rbac_rules_compile(a, J(a, json), n);
}

/* Escalation prevention's coverage (policy_comparator) and its message. */
static void coverage(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    size_t no, nw;
    kg_rbac_rule *owner =
        rules(&a,
              "[{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\",\"*/scale\"]},"
              "{\"verbs\":[\"*\"],\"apiGroups\":[\"apps\"],\"resources\":[\"deployments\"],"
              "\"resourceNames\":[\"web\"]},{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/logs/*\"]}]",
              &no);
    kg_rbac_rule *w;
    /* covered: subset verbs, */
    w = rules(&a, "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]", &nw);
    assert_null(kg_rbac_missing_rules(&a, owner, no, w, nw));
    /* "*\/scale" covers any scale; a named owner rule covers that name */
    w = rules(&a,
              "[{\"verbs\":[\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"replicationcontrollers/scale\"]},"
              "{\"verbs\":[\"delete\"],\"apiGroups\":[\"apps\"],\"resources\":[\"deployments\"],"
              "\"resourceNames\":[\"web\"]},{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/logs/x\"]}]",
              &nw);
    assert_null(kg_rbac_missing_rules(&a, owner, no, w, nw));
    /* not covered: pods ⊉ pods/log, a named owner rule never covers an unnamed atom, verbs beyond, URL outside */
    w = rules(&a,
              "[{\"verbs\":[\"get\",\"watch\",\"delete\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\",\"pods/log\"]},"
              "{\"verbs\":[\"get\"],\"apiGroups\":[\"apps\"],\"resources\":[\"deployments\"]},"
              "{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/logs\",\"/metrics\"]}]",
              &nw);
    const char *missing = kg_rbac_missing_rules(&a, owner, no, w, nw);
    assert_string_equal(missing, "{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"watch\" \"delete\"]}\n"
                                 "{APIGroups:[\"\"], Resources:[\"pods/log\"], Verbs:[\"get\" \"watch\" \"delete\"]}\n"
                                 "{APIGroups:[\"apps\"], Resources:[\"deployments\"], Verbs:[\"get\"]}\n"
                                 "{NonResourceURLs:[\"/logs\"], Verbs:[\"get\"]}\n"
                                 "{NonResourceURLs:[\"/metrics\"], Verbs:[\"get\"]}");
    assert_string_equal(kg_rbac_escalation_message(&a, &bob, "{X}", NULL),
                        "user \"bob\" (groups=[\"devs\" \"system:authenticated\"]) is attempting to grant RBAC "
                        "permissions not currently held:\n{X}");
    assert_string_equal(kg_rbac_escalation_message(&a, &eve, "{X}", "e1"),
                        "user \"eve\" (groups=[]) is attempting to grant RBAC permissions not currently held:\n{X}; "
                        "resolution errors: [e1]");
    /* nothing held: everything missing; full authority covers everything */
    assert_non_null(kg_rbac_missing_rules(&a, NULL, 0, w, nw));
    kg_rbac_rule *all = rules(&a,
                              "[{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"]},"
                              "{\"verbs\":[\"*\"],\"nonResourceURLs\":[\"*\"]}]",
                              &no);
    assert_null(kg_rbac_missing_rules(&a, all, no, w, nw));
    kg_arena_free(&a);
}

/* Readers deciding while the policy changes under them: every decision sees a whole snapshot (the role and the
 * binding come and go together here, so a decision is Allow with the right reason or NoOpinion without one) and no
 * snapshot is freed under a reader (ASan checks this test). */
typedef struct reader_ctx {
    kg_authorizer *z;
    int stop; /* atomic */
    long allows, none;
} reader_ctx;

static void *reader(void *arg)
{
    reader_ctx *c = arg;
    kg_arena a;
    kg_arena_init(&a, 0);
    while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
        const char *reason;
        kg_authz_attributes at = res(&bob, "get", "", "pods", "", "team", "p");
        kg_authz_decision d = kg_authz_authorize(c->z, &at, &a, &reason, NULL);
        if (d == KG_AUTHZ_ALLOW) {
            if (!reason || strcmp(reason, "RBAC: allowed by RoleBinding \"b/team\" of Role \"r\" to User \"bob\""))
                fail_msg("bad reason %s", reason ? reason : "(null)");
            __atomic_add_fetch(&c->allows, 1, __ATOMIC_RELAXED);
        } else {
            if (d != KG_AUTHZ_NO_OPINION)
                fail_msg("unexpected decision %d", d);
            __atomic_add_fetch(&c->none, 1, __ATOMIC_RELAXED);
        }
        kg_arena_reset(&a);
    }
    kg_arena_free(&a);
    return NULL;
}

static void concurrent_changes(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_rbac *r = kg_rbac_new();
    reader_ctx c = {.z = kg_rbac_authorizer(r)};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, reader, &c);
    kg_json *role = J(&a, "{\"metadata\":{\"name\":\"r\",\"namespace\":\"team\"},\"rules\":[{\"verbs\":[\"get\"],"
                          "\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]}");
    kg_json *binding = J(&a, "{\"metadata\":{\"name\":\"b\",\"namespace\":\"team\"},\"roleRef\":{\"kind\":\"Role\","
                             "\"name\":\"r\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"bob\"}]}");
    for (int i = 0; i < 300; i++) {
        const kg_json *roles[] = {role}, *bindings[] = {binding};
        kg_rbac_replace(r, KG_RBAC_ROLE, roles, 1);
        kg_rbac_replace(r, KG_RBAC_ROLEBINDING, bindings, 1);
        kg_rbac_sync(r, 5000);
        kg_rbac_remove(r, KG_RBAC_ROLEBINDING, "team", "b");
        kg_rbac_remove(r, KG_RBAC_ROLE, "team", "r");
        if (i % 3 == 0)
            kg_rbac_sync(r, 5000);
    }
    kg_rbac_sync(r, 5000);
    __atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert_true(c.allows + c.none > 0);
    kg_authorizer_free(c.z);
    kg_rbac_free(r);
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rule_matching), cmocka_unit_test(subject_index),      cmocka_unit_test(union_of_modes),
        cmocka_unit_test(coverage),      cmocka_unit_test(concurrent_changes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
