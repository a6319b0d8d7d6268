/* OwnerReferencesPermissionEnforcement against a table-driven authorizer: create is exempt from the delete check,
 * updates that change ownerReferences need delete on the object, newly blocking references need update on the
 * owner's finalizers (resolved through resource_for_kind), pods/status is skipped, and the messages carry the
 * authorizer's reason and "<nil>" error as upstream prints them. */
#include "fake_authorizer.h"
#include "plugin_testutil.h"

#define P kg_admission_plugin_owner_references_permission_enforcement

static const char *const rules[] = {
    "deleter delete apps replicasets ns1 *",
    "deleter update apps deployments/finalizers ns1 d1",
    "finalizer update apps deployments/finalizers ns1 d1",
    NULL,
};

static bool rfk(void *ctx, const char *group, const char *version, const char *kind, const char **plural,
                bool *namespaced)
{
    (void)ctx;
    *namespaced = true;
    if (!strcmp(group, "apps") && !strcmp(version, "v1") && !strcmp(kind, "Deployment")) {
        *plural = "deployments";
        return true;
    }
    return false;
}

typedef struct fixture {
    kg_arena a;
    fake_authz fz;
    kg_admission_services svc;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    kg_arena_init(&f->a, 0);
    fake_authz_init(&f->fz, rules);
    f->svc.authorizer = &f->fz.z;
    f->svc.resource_for_kind = rfk;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    kg_arena_free(&f->a);
    free(f);
    return 0;
}

/* a ReplicaSet with the given ownerReferences JSON array (NULL: none) */
static kg_json *rs(kg_arena *a, const char *refs)
{
    return tj(a, kg_arena_sprintf(a,
                                  "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":\"rs1\","
                                  "\"namespace\":\"ns1\"%s%s},\"spec\":{\"replicas\":1}}",
                                  refs ? ",\"ownerReferences\":" : "", refs ? refs : ""));
}

#define REF(block) "[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":\"d1\",\"uid\":\"u1\"" block "}]"

static kg_status *run(fixture *f, const char *user, kg_admission_op op, const char *sub, kg_json *obj, kg_json *old)
{
    kg_admission_attributes at;
    kg_admission_attrs_init(&at, &f->a);
    at.operation = op;
    at.resource = (kg_gvr){"apps", "v1", "replicasets"};
    at.kind = (kg_gvk){"apps", "v1", "ReplicaSet"};
    at.subresource = sub;
    at.ns = "ns1";
    at.name = "rs1";
    at.object = obj;
    at.old_object = old;
    at.user.name = user;
    return validate1(&P, NULL, &f->svc, &at);
}

static void registered(void **state)
{
    (void)state;
    const kg_admission_plugin_info *e = kg_admission_registry_find("OwnerReferencesPermissionEnforcement");
    assert_non_null(e);
    assert_ptr_equal(e->impl, &P);
    assert_false(e->default_on);
    assert_int_equal(P.handles, KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE);
}

static void create_is_exempt_from_delete(void **state)
{
    fixture *f = *state;
    assert_null(run(f, "nobody", KG_ADMISSION_CREATE, "", rs(&f->a, REF("")), NULL));
    assert_null(run(f, "nobody", KG_ADMISSION_CREATE, "", rs(&f->a, REF(",\"blockOwnerDeletion\":false")), NULL));
    /* but blocking the owner's deletion is checked on create too */
    assert_status(run(f, "nobody", KG_ADMISSION_CREATE, "", rs(&f->a, REF(",\"blockOwnerDeletion\":true")), NULL), 403,
                  "Forbidden",
                  "replicasets.apps \"rs1\" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers "
                  "to a resource you can't set finalizers on: no rule, <nil>");
    assert_string_equal(f->fz.last, "nobody update apps deployments/finalizers ns1 d1");
    assert_null(run(f, "finalizer", KG_ADMISSION_CREATE, "", rs(&f->a, REF(",\"blockOwnerDeletion\":true")), NULL));
}

static void update_needs_delete(void **state)
{
    fixture *f = *state;
    kg_json *none = rs(&f->a, NULL), *owned = rs(&f->a, REF(""));
    assert_status(run(f, "nobody", KG_ADMISSION_UPDATE, "", owned, none), 403, "Forbidden",
                  "replicasets.apps \"rs1\" is forbidden: cannot set an ownerRef on a resource you can't delete: no "
                  "rule, <nil>");
    assert_string_equal(f->fz.last, "nobody delete apps replicasets ns1 rs1");
    /* removing counts as changing */
    assert_status(run(f, "nobody", KG_ADMISSION_UPDATE, "", none, owned), 403, "Forbidden",
                  "replicasets.apps \"rs1\" is forbidden: cannot set an ownerRef on a resource you can't delete: no "
                  "rule, <nil>");
    assert_null(run(f, "deleter", KG_ADMISSION_UPDATE, "", owned, none));
    /* an update that leaves the references alone needs nothing */
    f->fz.asked = 0;
    kg_json *scaled = rs(&f->a, REF(""));
    kg_json_set(&f->a, kg_json_get(scaled, "spec"), "replicas", kg_json_new_int(&f->a, 3));
    assert_null(run(f, "nobody", KG_ADMISSION_UPDATE, "", scaled, owned));
    assert_int_equal(f->fz.asked, 0);
}

static void blocking(void **state)
{
    fixture *f = *state;
    kg_json *owned = rs(&f->a, REF("")), *blocked = rs(&f->a, REF(",\"blockOwnerDeletion\":true"));
    /* deleter may delete the replicaset and set finalizers on d1 */
    assert_null(run(f, "deleter", KG_ADMISSION_UPDATE, "", blocked, owned));
    /* already blocking in the old object: no owner check (only the delete check, for the changed list) */
    f->fz.asked = 0;
    kg_json *blocked2 = rs(&f->a, "[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":\"d1\",\"uid\":\"u1\","
                                  "\"blockOwnerDeletion\":true,\"controller\":true}]");
    assert_null(run(f, "deleter", KG_ADMISSION_UPDATE, "", blocked2, blocked));
    assert_int_equal(f->fz.asked, 1);
    /* an unknown owner kind: upstream's RESTMapping error */
    kg_json *foo = rs(&f->a, "[{\"apiVersion\":\"example.com/v1\",\"kind\":\"Foo\",\"name\":\"f\",\"uid\":\"u2\","
                             "\"blockOwnerDeletion\":true}]");
    assert_status(run(f, "deleter", KG_ADMISSION_CREATE, "", foo, NULL), 403, "Forbidden",
                  "replicasets.apps \"rs1\" is forbidden: cannot set blockOwnerDeletion in this case because cannot "
                  "find RESTMapping for APIVersion example.com/v1 Kind Foo: no matches for kind \"Foo\" in version "
                  "\"example.com/v1\"");
}

static void pods_status_skipped(void **state)
{
    fixture *f = *state;
    kg_admission_attributes at;
    tattrs(&at, &f->a, KG_ADMISSION_UPDATE, "Pod", "pods", "ns1", "p1",
           tj(&f->a, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\",\"ownerReferences\":" REF("") "}}"),
           tj(&f->a, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\"}}"));
    at.user.name = "nobody";
    at.subresource = "status";
    assert_null(validate1(&P, NULL, &f->svc, &at));
    at.subresource = "";
    assert_status(validate1(&P, NULL, &f->svc, &at), 403, "Forbidden",
                  "pods \"p1\" is forbidden: cannot set an ownerRef on a resource you can't delete: no rule, <nil>");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registered),
        cmocka_unit_test_setup_teardown(create_is_exempt_from_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(update_needs_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(blocking, setup, teardown),
        cmocka_unit_test_setup_teardown(pods_status_skipped, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
