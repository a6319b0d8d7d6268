/* The shared matcher (src/admission/match): rule predicates as upstream's predicates/rules tests state them,
 * namespace and object selectors with their label sources, exclusions, resourceNames, Equivalent matching and the
 * order in which a namespace lookup error surfaces. Namespaces come from a tiny services stub. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "admission/match/match.h"

static kg_arena A;

static kg_json *tj(const char *text)
{
    kg_error e = {0};
    kg_json *j = kg_json_parse(&A, text, strlen(text), &e);
    if (!j)
        fail_msg("bad test JSON: %s: %s", e.msg, text);
    return j;
}

/* namespaces: "prod" (env=prod), "dev" (env=dev); "broken" fails with an I/O error; anything else is absent */
static kg_json *stub_get(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name,
                         unsigned flags, kg_error *err)
{
    if (strcmp(resource, "namespaces"))
        return kg_err_set(err, KG_ENOTFOUND, "not found"), NULL;
    if (!strcmp(name, "prod"))
        return tj("{\"metadata\":{\"name\":\"prod\",\"labels\":{\"env\":\"prod\"}}}");
    if (!strcmp(name, "dev"))
        return tj("{\"metadata\":{\"name\":\"dev\",\"labels\":{\"env\":\"dev\"}}}");
    if (!strcmp(name, "broken"))
        return kg_err_set(err, KG_EIO, "disk on fire"), NULL;
    kg_err_set(err, KG_ENOTFOUND, "namespaces \"%s\" not found", name);
    return NULL;
}

static const kg_admission_services svc = {.get = stub_get};

static void attrs(kg_admission_attributes *at, kg_admission_op op, const char *group, const char *version,
                  const char *resource, const char *sub, const char *ns, const char *name, kg_json *obj)
{
    kg_admission_attrs_init(at, &A);
    at->operation = op;
    at->resource = (kg_gvr){group, version, resource};
    at->kind = (kg_gvk){group, version, "Thing"};
    at->subresource = sub;
    at->request_resource = at->resource;
    at->request_kind = at->kind;
    at->request_subresource = sub;
    at->ns = ns;
    at->name = name;
    at->object = obj;
}

static kg_match_rule rule(const char *json)
{
    kg_match_rule r;
    kg_error err = {0};
    if (!kg_match_rule_decode(&A, tj(json), &r, &err))
        fail_msg("decode: %s", err.msg);
    return r;
}

static bool rm(const char *rule_json, kg_admission_op op, const char *group, const char *resource, const char *sub,
               const char *ns)
{
    kg_match_rule r = rule(rule_json);
    kg_admission_attributes at;
    attrs(&at, op, group, "v1", resource, sub, ns, "x", NULL);
    return kg_match_rule_matches(&r, &at, &at.resource, at.subresource);
}

#define ALL_OPS "\"operations\":[\"*\"],\"apiGroups\":[\"*\"],\"apiVersions\":[\"*\"]"

static void test_rule_resources_and_subresources(void **state)
{
    /* "*" is every main resource, not subresources */
    assert_true(rm("{" ALL_OPS ",\"resources\":[\"*\"]}", KG_ADMISSION_CREATE, "", "pods", "", "default"));
    assert_false(rm("{" ALL_OPS ",\"resources\":[\"*\"]}", KG_ADMISSION_CREATE, "", "pods", "status", "default"));
    /* "*" slash "*": everything */
    assert_true(rm("{" ALL_OPS ",\"resources\":[\"*/*\"]}", KG_ADMISSION_UPDATE, "", "pods", "status", "default"));
    /* pods slash "*": pods itself and every pods subresource (upstream's rules_test) */
    assert_true(rm("{" ALL_OPS ",\"resources\":[\"pods/*\"]}", KG_ADMISSION_CREATE, "", "pods", "", "default"));
    assert_true(rm("{" ALL_OPS ",\"resources\":[\"pods/*\"]}", KG_ADMISSION_CREATE, "", "pods", "binding", "d"));
    assert_false(rm("{" ALL_OPS ",\"resources\":[\"pods/*\"]}", KG_ADMISSION_CREATE, "", "services", "", "d"));
    /* "*" slash status: every status subresource, no main resource */
    assert_true(rm("{" ALL_OPS ",\"resources\":[\"*/status\"]}", KG_ADMISSION_UPDATE, "apps", "deployments", "status",
                   "d"));
    assert_false(rm("{" ALL_OPS ",\"resources\":[\"*/status\"]}", KG_ADMISSION_UPDATE, "apps", "deployments", "", "d"));
    /* pods does not match pods/status */
    assert_false(rm("{" ALL_OPS ",\"resources\":[\"pods\"]}", KG_ADMISSION_UPDATE, "", "pods", "status", "d"));
}

static void test_rule_operations_groups_versions(void **state)
{
    const char *r = "{\"operations\":[\"CREATE\",\"DELETE\"],\"apiGroups\":[\"apps\"],\"apiVersions\":[\"v1\"],"
                    "\"resources\":[\"deployments\"]}";
    assert_true(rm(r, KG_ADMISSION_CREATE, "apps", "deployments", "", "d"));
    assert_true(rm(r, KG_ADMISSION_DELETE, "apps", "deployments", "", "d"));
    assert_false(rm(r, KG_ADMISSION_UPDATE, "apps", "deployments", "", "d"));
    assert_false(rm(r, KG_ADMISSION_CREATE, "", "deployments", "", "d")); /* core group differs */
    assert_false(rm("{\"operations\":[\"CREATE\"],\"apiGroups\":[\"apps\"],\"apiVersions\":[\"v2\"],\"resources\":"
                    "[\"deployments\"]}",
                    KG_ADMISSION_CREATE, "apps", "deployments", "", "d"));
    kg_match_rule bad;
    kg_error err = {0};
    assert_false(kg_match_rule_decode(&A, tj("{\"operations\":[\"PATCH\"]}"), &bad, &err));
    assert_string_equal(err.msg, "operations[0]: unsupported value \"PATCH\"");
}

static void test_rule_scope(void **state)
{
    const char *ns = "{" ALL_OPS ",\"resources\":[\"*\"],\"scope\":\"Namespaced\"}";
    const char *cl = "{" ALL_OPS ",\"resources\":[\"*\"],\"scope\":\"Cluster\"}";
    assert_true(rm(ns, KG_ADMISSION_CREATE, "", "pods", "", "default"));
    assert_false(rm(ns, KG_ADMISSION_CREATE, "", "nodes", "", ""));
    /* a Namespace is cluster-scoped even though its attributes carry its own name as namespace */
    assert_false(rm(ns, KG_ADMISSION_CREATE, "", "namespaces", "", "team"));
    assert_true(rm(cl, KG_ADMISSION_CREATE, "", "namespaces", "", "team"));
    assert_true(rm(cl, KG_ADMISSION_CREATE, "", "nodes", "", ""));
    assert_false(rm(cl, KG_ADMISSION_CREATE, "", "pods", "", "default"));
}

static kg_match_criteria webhook(const char *json)
{
    kg_match_criteria c;
    kg_error err = {0};
    if (!kg_match_criteria_from_webhook(&A, tj(json), &c, &err))
        fail_msg("criteria: %s", err.msg);
    return c;
}

#define PODS_RULE "\"rules\":[{\"operations\":[\"*\"],\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"resources\":[\"pods\"]}]"

static void test_namespace_selector(void **state)
{
    kg_match_criteria c = webhook("{" PODS_RULE ",\"namespaceSelector\":{\"matchLabels\":{\"env\":\"prod\"}}}");
    kg_admission_attributes at;
    kg_status *st = NULL;
    attrs(&at, KG_ADMISSION_CREATE, "", "v1", "pods", "", "prod", "p", NULL);
    assert_int_equal(kg_match(&c, &at, &svc, NULL, &st), KG_MATCH_YES);
    attrs(&at, KG_ADMISSION_CREATE, "", "v1", "pods", "", "dev", "p", NULL);
    assert_int_equal(kg_match(&c, &at, &svc, NULL, &st), KG_MATCH_NO);
    /* an absent namespace: 404, surfaced because the rule matched */
    attrs(&at, KG_ADMISSION_CREATE, "", "v1", "pods", "", "ghost", "p", NULL);
    assert_int_equal(kg_match(&c, &at, &svc, NULL, &st), KG_MATCH_ERROR);
    assert_int_equal(kg_status_http_code(st), 404);
    assert_string_equal(st->message, "namespaces \"ghost\" not found");
    /* ... and not surfaced when no rule matches */
    attrs(&at, KG_ADMISSION_CREATE, "", "v1", "configmaps", "", "ghost", "p", NULL);
    assert_int_equal(kg_match(&c, &at, &svc, NULL, &st), KG_MATCH_NO);
    /* other lookup failures are a 500 */
    attrs(&at, KG_ADMISSION_CREATE, "", "v1", "pods", "", "broken", "p", NULL);
    assert_int_equal(kg_match(&c, &at, &svc, NULL, &st), KG_MATCH_ERROR);
    assert_int_equal(kg_status_http_code(st), 500);
    /* a Namespace being created is judged by its own new labels, not a lookup */
    kg_match_criteria nsc = webhook("{\"rules\":[{\"operations\":[\"*\"],\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],"
                                    "\"resources\":[\"namespaces\"]}],\"namespaceSelector\":{\"matchLabels\":{\"env\":"
                                    "\"prod\"}}}");
    attrs(&at, KG_ADMISSION_CREATE, "", "v1", "namespaces", "", "new",
          "new", tj("{\"metadata\":{\"name\":\"new\",\"labels\":{\"env\":\"prod\"}}}"));
    assert_int_equal(kg_match(&nsc, &at, &svc, NULL, &st), KG_MATCH_YES);
    /* a cluster-scoped request always passes the namespace selector */
    kg_match_criteria nodes = webhook("{\"rules\":[{\"operations\":[\"*\"],\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],"
                                      "\"resources\":[\"nodes\"]}],\"namespaceSelector\":{\"matchLabels\":{\"env\":"
                                      "\"prod\"}}}");
    attrs(&at, KG_ADMISSION_CREATE, "", "v1", "nodes", "", "", "n1", NULL);
    assert_int_equal(kg_match(&nodes, &at, &svc, NULL, &st), KG_MATCH_YES);
}

static void test_object_selector(void **state)
{
    kg_match_criteria c = webhook("{" PODS_RULE ",\"objectSelector\":{\"matchLabels\":{\"deny\":\"true\"}}}");
    kg_admission_attributes at;
    kg_status *st = NULL;
    attrs(&at, KG_ADMISSION_CREATE, "", "v1", "pods", "", "dev", "p",
          tj("{\"metadata\":{\"labels\":{\"deny\":\"true\"}}}"));
    assert_int_equal(kg_match(&c, &at, &svc, NULL, &st), KG_MATCH_YES);
    attrs(&at, KG_ADMISSION_UPDATE, "", "v1", "pods", "", "dev", "p", tj("{\"metadata\":{}}"));
    assert_int_equal(kg_match(&c, &at, &svc, NULL, &st), KG_MATCH_NO);
    /* the old object's labels count too (a label being removed) */
    at.old_object = tj("{\"metadata\":{\"labels\":{\"deny\":\"true\"}}}");
    assert_int_equal(kg_match(&c, &at, &svc, NULL, &st), KG_MATCH_YES);
    /* an object without metadata (CONNECT options) never matches a non-empty selector */
    attrs(&at, KG_ADMISSION_CONNECT, "", "v1", "pods", "exec", "dev", "p", tj("{\"command\":[\"sh\"]}"));
    assert_int_equal(kg_match(&c, &at, &svc, NULL, &st), KG_MATCH_NO);
}

static void test_policy_resources_exclusions_and_names(void **state)
{
    kg_match_criteria c;
    kg_error err = {0};
    assert_true(kg_match_criteria_from_resources(
            &A,
            tj("{\"resourceRules\":[{\"operations\":[\"CREATE\",\"UPDATE\"],\"apiGroups\":[\"\"],\"apiVersions\":"
               "[\"v1\"],\"resources\":[\"configmaps\"],\"resourceNames\":[\"cfg\"]},{\"operations\":[\"*\"],"
               "\"apiGroups\":[\"apps\"],\"apiVersions\":[\"*\"],\"resources\":[\"*\"]}],\"excludeResourceRules\":"
               "[{\"operations\":[\"*\"],\"apiGroups\":[\"apps\"],\"apiVersions\":[\"*\"],\"resources\":"
               "[\"daemonsets\"]}]}"),
            &c, &err));
    kg_admission_attributes at;
    kg_status *st = NULL;
    attrs(&at, KG_ADMISSION_CREATE, "", "v1", "configmaps", "", "dev", "cfg", NULL);
    assert_int_equal(kg_match(&c, &at, &svc, NULL, &st), KG_MATCH_YES);
    attrs(&at, KG_ADMISSION_CREATE, "", "v1", "configmaps", "", "dev", "other", NULL);
    assert_int_equal(kg_match(&c, &at, &svc, NULL, &st), KG_MATCH_NO);
    /* a CREATE with generateName has no name yet: never matches a resourceNames rule */
    attrs(&at, KG_ADMISSION_CREATE, "", "v1", "configmaps", "", "dev", "", NULL);
    assert_int_equal(kg_match(&c, &at, &svc, NULL, &st), KG_MATCH_NO);
    attrs(&at, KG_ADMISSION_CREATE, "apps", "v1", "deployments", "", "dev", "d", NULL);
    assert_int_equal(kg_match(&c, &at, &svc, NULL, &st), KG_MATCH_YES);
    attrs(&at, KG_ADMISSION_CREATE, "apps", "v1", "daemonsets", "", "dev", "d", NULL);
    assert_int_equal(kg_match(&c, &at, &svc, NULL, &st), KG_MATCH_NO);
    /* a binding without matchResources matches whatever reaches it */
    kg_match_criteria all;
    assert_true(kg_match_criteria_from_resources(&A, NULL, &all, &err));
    assert_int_equal(kg_match(&all, &at, &svc, NULL, &st), KG_MATCH_YES);
}

static void test_equivalent_matching(void **state)
{
    /* the webhook door: the calling apiserver converted extensions/v1beta1 to apps/v1; a rule for the original
     * version matches only under Equivalent, and the invocation names the equivalent that matched */
    const char *rule_json = "\"rules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":[\"extensions\"],\"apiVersions\":"
                            "[\"v1beta1\"],\"resources\":[\"deployments\"]}]";
    char buf[512];
    snprintf(buf, sizeof buf, "{%s}", rule_json);
    kg_match_criteria eq = webhook(buf);
    snprintf(buf, sizeof buf, "{%s,\"matchPolicy\":\"Exact\"}", rule_json);
    kg_match_criteria exact = webhook(buf);
    kg_admission_attributes at;
    kg_status *st = NULL;
    attrs(&at, KG_ADMISSION_CREATE, "apps", "v1", "deployments", "", "dev", "d", NULL);
    at.request_resource = (kg_gvr){"extensions", "v1beta1", "deployments"};
    at.request_kind = (kg_gvk){"extensions", "v1beta1", "Deployment"};
    kg_match_invocation inv;
    assert_int_equal(kg_match(&eq, &at, &svc, &inv, &st), KG_MATCH_YES);
    assert_string_equal(inv.resource.group, "extensions");
    assert_string_equal(inv.kind.version, "v1beta1");
    assert_int_equal(kg_match(&exact, &at, &svc, &inv, &st), KG_MATCH_NO);
}

static void test_admission_config_kinds_are_exempt(void **state)
{
    kg_admission_attributes at;
    attrs(&at, KG_ADMISSION_CREATE, "admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", "", "",
          "x", NULL);
    at.kind = (kg_gvk){"admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration"};
    assert_true(kg_match_is_admission_config_kind(&at));
    at.kind = (kg_gvk){"", "v1", "ConfigMap"};
    assert_false(kg_match_is_admission_config_kind(&at));
}

static int setup(void **state)
{
    kg_arena_init(&A, 0);
    return 0;
}

static int teardown(void **state)
{
    kg_arena_free(&A);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_resources_and_subresources),
        cmocka_unit_test(test_rule_operations_groups_versions),
        cmocka_unit_test(test_rule_scope),
        cmocka_unit_test(test_namespace_selector),
        cmocka_unit_test(test_object_selector),
        cmocka_unit_test(test_policy_resources_exclusions_and_names),
        cmocka_unit_test(test_equivalent_matching),
        cmocka_unit_test(test_admission_config_kinds_are_exempt),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
