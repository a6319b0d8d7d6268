/* The audit policy (audit_policy.h): parsing errors and a table of rules × requests (first matching rule wins). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "server/audit_policy.h"

static const char *const POLICY = "apiVersion: audit.k8s.io/v1\n"
                                  "kind: Policy\n"
                                  "omitStages: [RequestReceived]\n"
                                  "omitManagedFields: true\n"
                                  "rules:\n"
                                  "- level: None\n" /* 0 */
                                  "  users: [system:kube-proxy]\n"
                                  "  verbs: [watch]\n"
                                  "- level: None\n" /* 1 */
                                  "  nonResourceURLs: [/healthz*, /version]\n"
                                  "- level: RequestResponse\n" /* 2 */
                                  "  omitManagedFields: false\n"
                                  "  resources:\n"
                                  "  - group: \"\"\n"
                                  "    resources: [configmaps]\n"
                                  "    resourceNames: [controller-leader]\n"
                                  "- level: Metadata\n" /* 3 */
                                  "  resources:\n"
                                  "  - group: \"\"\n"
                                  "    resources: [secrets, configmaps]\n"
                                  "- level: Request\n" /* 4 */
                                  "  userGroups: [system:nodes]\n"
                                  "  omitStages: [ResponseStarted]\n"
                                  "  resources:\n"
                                  "  - group: \"\"\n"
                                  "    resources: [nodes/status, '*/log']\n"
                                  "- level: RequestResponse\n" /* 5 */
                                  "  resources:\n"
                                  "  - group: apps\n"
                                  "    resources: ['deployments/*']\n"
                                  "- level: Request\n" /* 6 */
                                  "  namespaces: [kube-system]\n"
                                  "- level: None\n" /* 7 */
                                  "  resources:\n"
                                  "  - group: batch\n"  /* a group alone: all its resources */
                                  "- level: Metadata\n" /* 8: everything else */
                                  "  omitStages: [ResponseComplete]\n";

static const char *const node_groups[] = {"system:nodes", "system:authenticated"};
static const kg_user_info proxy = {.name = "system:kube-proxy"};
static const kg_user_info node = {.name = "system:node:n1", .groups = node_groups, .ngroups = 2};
static const kg_user_info alice = {.name = "alice"};

typedef struct row {
    const char *what;
    const kg_user_info *user;
    const char *verb;
    bool res;
    const char *group, *resource, *sub, *ns, *name, *path;
    kg_audit_level want;
    unsigned omit; /* expected omit stages */
    bool omf;
} row;

#define RR KG_AUDIT_STAGE_REQUEST_RECEIVED
#define RS KG_AUDIT_STAGE_RESPONSE_STARTED
#define RC KG_AUDIT_STAGE_RESPONSE_COMPLETE

static const row rows[] = {
    {"proxy watch: rule 0", &proxy, "watch", true, "", "endpoints", "", "", "", "", KG_AUDIT_NONE, RR, true},
    {"proxy list falls to the catch-all", &proxy, "list", true, "", "endpoints", "", "", "", "", KG_AUDIT_METADATA,
     RR | RC, true},
    {"healthz prefix", &alice, "get", false, "", "", "", "", "", "/healthz/etcd", KG_AUDIT_NONE, RR, true},
    {"exact /version", &alice, "get", false, "", "", "", "", "", "/version", KG_AUDIT_NONE, RR, true},
    {"/versions is not /version", &alice, "get", false, "", "", "", "", "", "/versions", KG_AUDIT_METADATA, RR | RC,
     true},
    {"resourceNames match, rule's omitManagedFields wins", &alice, "update", true, "", "configmaps", "", "kube-system",
     "controller-leader", "", KG_AUDIT_REQUEST_RESPONSE, RR, false},
    {"other configmap: Metadata", &alice, "update", true, "", "configmaps", "", "kube-system", "x", "",
     KG_AUDIT_METADATA, RR, true},
    {"secrets list (no name): Metadata", &alice, "list", true, "", "secrets", "", "", "", "", KG_AUDIT_METADATA, RR,
     true},
    {"nodes/status by a node", &node, "patch", true, "", "nodes", "status", "", "n1", "", KG_AUDIT_REQUEST, RR | RS,
     true},
    {"nodes/status by alice: catch-all", &alice, "patch", true, "", "nodes", "status", "", "n1", "", KG_AUDIT_METADATA,
     RR | RC, true},
    {"*/log matches pods/log", &node, "get", true, "", "pods", "log", "default", "p", "", KG_AUDIT_REQUEST, RR | RS,
     true},
    {"*/log does not match pods", &node, "get", true, "", "pods", "", "default", "p", "", KG_AUDIT_METADATA, RR | RC,
     true},
    {"deployments/* matches deployments/scale", &alice, "update", true, "apps", "deployments", "scale", "default", "d",
     "", KG_AUDIT_REQUEST_RESPONSE, RR, true},
    {"deployments/* matches deployments", &alice, "update", true, "apps", "deployments", "", "default", "d", "",
     KG_AUDIT_REQUEST_RESPONSE, RR, true},
    {"deployments/* in another group", &alice, "update", true, "extensions", "deployments", "", "default", "d", "",
     KG_AUDIT_METADATA, RR | RC, true},
    {"namespace rule", &alice, "create", true, "", "pods", "", "kube-system", "", "", KG_AUDIT_REQUEST, RR, true},
    {"namespace rule does not match non-resource", &alice, "get", false, "", "", "", "", "", "/api", KG_AUDIT_METADATA,
     RR | RC, true},
    {"group-only rule", &alice, "create", true, "batch", "jobs", "", "default", "", "", KG_AUDIT_NONE, RR, true},
};

static void test_table(void **state)
{
    (void)state;
    kg_error err = {0};
    kg_audit_policy *p = kg_audit_policy_parse(POLICY, strlen(POLICY), &err);
    if (!p)
        fail_msg("parse: %s", err.msg);
    assert_int_equal(kg_audit_policy_nrules(p), 9);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row *r = &rows[i];
        kg_audit_request q = {r->user, r->verb, r->res, r->group, r->resource, r->sub, r->ns, r->name, r->path};
        kg_audit_decision d = kg_audit_policy_evaluate(p, &q);
        if (d.level != r->want || d.omit_stages != r->omit || d.omit_managed_fields != r->omf)
            fail_msg("%s: got level %s omit %u omf %d, want %s omit %u omf %d", r->what, kg_audit_level_name(d.level),
                     d.omit_stages, d.omit_managed_fields, kg_audit_level_name(r->want), r->omit, r->omf);
    }
    kg_audit_policy_free(p);
}

static void test_no_rules_is_none(void **state)
{
    (void)state;
    const char *doc = "{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\"}";
    kg_error err = {0};
    kg_audit_policy *p = kg_audit_policy_parse(doc, strlen(doc), &err);
    assert_non_null(p);
    kg_audit_request q = {.user = &alice, .verb = "get", .path = "/api"};
    assert_int_equal(kg_audit_policy_evaluate(p, &q).level, KG_AUDIT_NONE);
    kg_audit_policy_free(p);
}

static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *doc, *want;
    } cases[] = {
        {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n",
         "rules[0].level: Unsupported value: \"Everything\": supported values: \"None\", \"Metadata\", \"Request\", "
         "\"RequestResponse\""},
        {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n- verbs: [get]\n",
         "rules[1].level: Required value"},
        {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  omitStages: [Done]\n",
         "rules[0].omitStages[0]: Unsupported value: \"Done\""},
        {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [/x]\n  namespaces: "
         "[a]\n",
         "rules cannot apply to both regular resources and non-resource URLs"},
        {"apiVersion: audit.k8s.io/v1beta1\nkind: Policy\n", "no kind \"Policy\" is registered for version"},
        {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  users: alice\n",
         "rules[0].users: expected a list of strings"},
        {"[1, 2", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kg_error err = {0};
        assert_null(kg_audit_policy_parse(cases[i].doc, strlen(cases[i].doc), &err));
        if (!strstr(err.msg, cases[i].want))
            fail_msg("case %zu: %s (want %s)", i, err.msg, cases[i].want);
    }
    kg_error err = {0};
    assert_null(kg_audit_policy_load("/nonexistent/policy.yaml", &err));
    assert_non_null(strstr(err.msg, "/nonexistent/policy.yaml"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_no_rules_is_none),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
