/* ClusterRole aggregation: rules of the selected roles (ORed selectors, sorted by name, itself skipped, duplicates
 * dropped), no aggregationRule → nothing to do, a bad selector → error, and the admin/edit/view chain of the
 * bootstrap policy (admin ⊇ edit ⊇ view) after passes to a fixed point. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "auth/rbac/bootstrappolicy.h"
#include "controllers/clusterroleaggregation.h"

static kg_json *J(kg_arena *a, const char *s)
{
    kg_error err;
    kg_json *j = kg_json_parse(a, s, strlen(s), &err);
    if (!j)
        fail_msg("bad JSON: %s", err.msg);
    return j;
}

static void aggregate(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *all = J(&a, "["
                         "{\"metadata\":{\"name\":\"agg\",\"labels\":{\"x\":\"1\"}},\"aggregationRule\":"
                         "{\"clusterRoleSelectors\":[{\"matchLabels\":{\"x\":\"1\"}},{\"matchLabels\":{\"y\":\"1\"}}]},"
                         "\"rules\":[{\"verbs\":[\"stale\"]}]},"
                         "{\"metadata\":{\"name\":\"b\",\"labels\":{\"x\":\"1\"}},\"rules\":[{\"verbs\":[\"get\"],"
                         "\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]},"
                         "{\"metadata\":{\"name\":\"a\",\"labels\":{\"x\":\"1\",\"y\":\"1\"}},\"rules\":[{\"verbs\":"
                         "[\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]},{\"verbs\":[\"get\"],\"apiGroups\":"
                         "[\"\"],\"resources\":[\"pods\"]}]},"
                         "{\"metadata\":{\"name\":\"c\",\"labels\":{\"z\":\"1\"}},\"rules\":[{\"verbs\":[\"*\"]}]}"
                         "]");
    KG_ERROR_DECL(err);
    kg_json *rules = kg_clusterrole_aggregate(&a, all->u.items[0], all, &err);
    assert_non_null(rules);
    /* selector x: a (list, get), b (get: duplicate); selector y: a again; c never; agg's own stale rule dropped */
    assert_string_equal(kg_json_to_string(&a, rules, 0, NULL),
                        "[{\"verbs\":[\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]},"
                        "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]");
    assert_null(kg_clusterrole_aggregate(&a, all->u.items[1], all, &err));
    assert_int_equal(err.code, KG_OK);
    kg_json *bad = J(&a, "{\"metadata\":{\"name\":\"bad\"},\"aggregationRule\":{\"clusterRoleSelectors\":"
                         "[{\"matchExpressions\":[{\"key\":\"x\",\"operator\":\"Foo\"}]}]}}");
    assert_null(kg_clusterrole_aggregate(&a, bad, all, &err));
    assert_int_not_equal(err.code, KG_OK);
    kg_arena_free(&a);
}

static void bootstrap_chain(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *policy = kg_rbac_bootstrap_policy(&a);
    kg_json *roles = kg_json_new_array(&a);
    for (uint32_t i = 0; i < policy->len; i++)
        if (!strcmp(kg_json_get_str(policy->u.items[i], "kind"), "ClusterRole"))
            kg_json_array_append(&a, roles, policy->u.items[i]);
    /* a few passes reach the fixed point (view feeds edit feeds admin) */
    for (int pass = 0; pass < 3; pass++)
        for (uint32_t i = 0; i < roles->len; i++) {
            KG_ERROR_DECL(err);
            kg_json *r = kg_clusterrole_aggregate(&a, roles->u.items[i], roles, &err);
            if (r)
                kg_json_set(&a, roles->u.items[i], "rules", r);
        }
    const char *view = NULL, *edit = NULL, *admin = NULL;
    for (uint32_t i = 0; i < roles->len; i++) {
        const char *n = kg_json_path_str(roles->u.items[i], "metadata.name");
        const char *s = kg_json_to_string(&a, kg_json_get(roles->u.items[i], "rules"), 0, NULL);
        if (!strcmp(n, "view"))
            view = s;
        else if (!strcmp(n, "edit"))
            edit = s;
        else if (!strcmp(n, "admin"))
            admin = s;
    }
    assert_non_null(strstr(view, "\"pods/log\""));
    assert_null(strstr(view, "\"secrets\""));
    assert_non_null(strstr(edit, "\"pods/log\""));
    assert_non_null(strstr(edit, "\"impersonate\""));
    assert_non_null(strstr(admin, "\"impersonate\""));
    assert_non_null(strstr(admin, "\"localsubjectaccessreviews\""));
    assert_null(strstr(edit, "\"localsubjectaccessreviews\""));
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(aggregate),
        cmocka_unit_test(bootstrap_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
