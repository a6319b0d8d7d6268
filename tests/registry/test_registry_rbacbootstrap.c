/* The RBAC bootstrap policy reconciled over a store (the rbac/bootstrap-roles hook): created on an empty store;
 * missing rules, subjects and labels added back to autoupdate objects while what users added stays; objects with
 * autoupdate "false" left alone; a ClusterRoleBinding with another roleRef recreated; idempotent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "registry/bootstrap.h"
#include "registry/storeservices.h"

static kg_json *J(kg_arena *a, const char *s)
{
    kg_error err;
    kg_json *j = kg_json_parse(a, s, strlen(s), &err);
    if (!j)
        fail_msg("bad JSON: %s", err.msg);
    return j;
}

static kg_json *get(kg_store *st, kg_arena *a, const char *plural, const char *name)
{
    KG_ERROR_DECL(err);
    kg_json *o = kg_store_object_get(st, a, plural, "", name, &err);
    if (!o)
        fail_msg("%s %s: %s", plural, name, err.msg);
    return o;
}

static const char *rules_of(kg_store *st, kg_arena *a, const char *name)
{
    return kg_json_to_string(a, kg_json_get(get(st, a, "clusterroles", name), "rules"), 0, NULL);
}

static void put(kg_store *st, kg_arena *a, const char *plural, kg_json *obj)
{
    KG_ERROR_DECL(err);
    assert_non_null(kg_store_object_update(st, a, plural, "", obj, &err));
}

static void reconcile(void **state)
{
    (void)state;
    KG_ERROR_DECL(err);
    kg_store *st = kg_store_open("memory", NULL, NULL, &err);
    assert_non_null(st);
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_true(kg_registry_rbac_bootstrap(st, &err));
    const char *discovery = rules_of(st, &a, "system:discovery");
    assert_non_null(strstr(discovery, "\"/apis/*\""));
    assert_string_equal(kg_json_get_str(kg_json_path(get(st, &a, "clusterroles", "view"), "metadata.labels"),
                                        "kubernetes.io/bootstrapping"),
                        "rbac-defaults");

    /* autoupdate "true": a user's extra rule and label stay, the removed default rule and label come back */
    kg_json *d = get(st, &a, "clusterroles", "system:discovery");
    kg_json_set(&a, d, "rules", J(&a, "[{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/custom\"]}]"));
    kg_json_set(&a, kg_json_path(d, "metadata"), "labels", J(&a, "{\"team\":\"x\"}"));
    put(st, &a, "clusterroles", d);
    /* autoupdate "false": left as the user made it */
    kg_json *ca = get(st, &a, "clusterroles", "cluster-admin");
    kg_json_set(&a, ca, "rules", J(&a, "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]"));
    kg_json_set(&a, kg_json_path(ca, "metadata"), "annotations",
                J(&a, "{\"rbac.authorization.kubernetes.io/autoupdate\":\"false\"}"));
    put(st, &a, "clusterroles", ca);
    /* a binding whose subject was removed, one whose roleRef changed */
    kg_json *b = get(st, &a, "clusterrolebindings", "system:basic-user");
    kg_json_set(&a, b, "subjects",
                J(&a, "[{\"kind\":\"User\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":\"u\"}]"));
    put(st, &a, "clusterrolebindings", b);
    kg_json *m = get(st, &a, "clusterrolebindings", "system:monitoring");
    kg_json_set(&a, m, "roleRef",
                J(&a, "{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"view\"}"));
    put(st, &a, "clusterrolebindings", m);
    /* a deleted role */
    assert_true(kg_store_object_delete(st, &a, "clusterroles", "", "system:basic-user", NULL, &err));

    assert_true(kg_registry_rbac_bootstrap(st, &err));
    discovery = rules_of(st, &a, "system:discovery");
    assert_non_null(strstr(discovery, "\"/custom\""));
    assert_non_null(strstr(discovery, "\"/apis/*\""));
    d = get(st, &a, "clusterroles", "system:discovery");
    assert_string_equal(kg_json_path_str(d, "metadata.labels.team"), "x");
    assert_string_equal(kg_json_get_str(kg_json_path(d, "metadata.labels"), "kubernetes.io/bootstrapping"),
                        "rbac-defaults");
    assert_string_equal(rules_of(st, &a, "cluster-admin"),
                        "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]");
    const char *subs = kg_json_to_string(
        &a, kg_json_get(get(st, &a, "clusterrolebindings", "system:basic-user"), "subjects"), 0, NULL);
    assert_non_null(strstr(subs, "\"u\""));
    assert_non_null(strstr(subs, "\"system:authenticated\""));
    assert_string_equal(kg_json_path_str(get(st, &a, "clusterrolebindings", "system:monitoring"), "roleRef.name"),
                        "system:monitoring");
    assert_non_null(strstr(rules_of(st, &a, "system:basic-user"), "selfsubjectaccessreviews"));

    /* idempotent: a third pass writes nothing */
    int64_t before = kg_store_current_revision(st);
    assert_true(kg_registry_rbac_bootstrap(st, &err));
    assert_int_equal(kg_store_current_revision(st), before);
    kg_arena_free(&a);
    kg_store_close(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reconcile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
