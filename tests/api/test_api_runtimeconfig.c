/* --runtime-config (api/runtimeconfig.h) and the optional MutatingAdmissionPolicy resources it enables
 * (api/resources.h kg_resources_serve_mutating_policies), and the schema list types MutatingAdmissionPolicy's
 * ApplyConfiguration merges by (api/schema.h kg_schema_list_type_of). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "api/resources.h"
#include "api/runtimeconfig.h"
#include "api/schema.h"

static const char *parse_err(const char *spec)
{
    static kg_error e;
    memset(&e, 0, sizeof e);
    kg_runtime_config rc;
    return kg_runtime_config_parse(spec, &rc, &e) ? NULL : e.msg;
}

static void test_parse(void **state)
{
    (void)state;
    kg_runtime_config rc;
    kg_error e = {0};
    assert_true(kg_runtime_config_parse(NULL, &rc, &e));
    assert_false(rc.admissionregistration_v1beta1 || rc.admissionregistration_v1alpha1);
    assert_true(kg_runtime_config_parse("admissionregistration.k8s.io/v1beta1=true", &rc, &e));
    assert_true(rc.admissionregistration_v1beta1);
    assert_false(rc.admissionregistration_v1alpha1);
    /* an empty value is true */
    assert_true(kg_runtime_config_parse("admissionregistration.k8s.io/v1alpha1", &rc, &e));
    assert_true(rc.admissionregistration_v1alpha1);
    /* api/<stability> first, then the group/versions, whatever the order */
    assert_true(kg_runtime_config_parse("admissionregistration.k8s.io/v1beta1=false,api/all=true", &rc, &e));
    assert_false(rc.admissionregistration_v1beta1);
    assert_true(rc.admissionregistration_v1alpha1);
    assert_true(kg_runtime_config_parse("api/beta=1", &rc, &e));
    assert_true(rc.admissionregistration_v1beta1);
    assert_false(rc.admissionregistration_v1alpha1);
    /* GA and core keys, and groups of other servers, are accepted */
    assert_null(parse_err("apps/v1=true,api/v1=true,api/legacy=true,flowcontrol.example.io/v1=true"));
    /* upstream's errors */
    assert_string_equal(parse_err("admissionregistration.k8s.io/v9=true"),
                        "group version admissionregistration.k8s.io/v9 that has not been registered");
    assert_string_equal(parse_err("apps/v1beta7"), "group version apps/v1beta7 that has not been registered");
    assert_string_equal(parse_err("nonsense"), "invalid key nonsense");
    assert_string_equal(parse_err("apps/v1/deployments=true"), "invalid key apps/v1/deployments");
    assert_string_equal(parse_err("api/all=maybe"),
                        "invalid value of api/all: maybe, err: strconv.ParseBool: parsing \"maybe\": invalid syntax");
}

static void test_serve_optional(void **state)
{
    (void)state;
    size_t base = kg_resources_count();
    assert_null(kg_resource_find("admissionregistration.k8s.io", "v1beta1", "mutatingadmissionpolicies"));
    assert_null(kg_resource_find_kind("admissionregistration.k8s.io", "MutatingAdmissionPolicy"));
    assert_true(kg_resources_serve_mutating_policies("v1alpha1"));
    assert_int_equal(kg_resources_count(), base + 2);
    const kg_resource *r = kg_resource_find("admissionregistration.k8s.io", "v1alpha1", "mutatingadmissionpolicies");
    assert_non_null(r);
    assert_string_equal(r->api_version, "admissionregistration.k8s.io/v1alpha1");
    assert_false(r->namespaced);
    assert_non_null(kg_resource_find("admissionregistration.k8s.io", "v1alpha1", "mutatingadmissionpolicybindings"));
    assert_true(kg_resources_serve_mutating_policies("v1beta1"));
    assert_null(kg_resource_find("admissionregistration.k8s.io", "v1alpha1", "mutatingadmissionpolicies"));
    assert_non_null(kg_resource_find("admissionregistration.k8s.io", "v1beta1", "mutatingadmissionpolicies"));
    assert_false(kg_resources_serve_mutating_policies("v1"));
    assert_true(kg_resources_serve_mutating_policies(NULL));
    assert_int_equal(kg_resources_count(), base);
    assert_null(kg_resource_find_plural("mutatingadmissionpolicies"));
}

static void test_list_types(void **state)
{
    (void)state;
    const char *keys;
    const char *containers[] = {"spec", "containers"};
    assert_int_equal(kg_schema_list_type_of("", "Pod", containers, 2, &keys), KG_SCHEMA_LIST_MAP);
    assert_string_equal(keys, "name");
    const char *ports[] = {"spec", "containers", "ports"};
    assert_int_equal(kg_schema_list_type_of("", "Pod", ports, 3, &keys), KG_SCHEMA_LIST_MAP);
    assert_string_equal(keys, "containerPort,protocol");
    const char *fin[] = {"metadata", "finalizers"};
    assert_int_equal(kg_schema_list_type_of("apps", "Deployment", fin, 2, &keys), KG_SCHEMA_LIST_SET);
    const char *args[] = {"spec", "template", "spec", "containers", "args"};
    assert_int_equal(kg_schema_list_type_of("apps", "Deployment", args, 5, &keys), KG_SCHEMA_LIST_ATOMIC);
    assert_null(keys);
    const char *tmpl[] = {"spec", "template", "spec", "containers"};
    assert_int_equal(kg_schema_list_type_of("apps", "Deployment", tmpl, 4, &keys), KG_SCHEMA_LIST_MAP);
    const char *nope[] = {"spec", "nope"};
    assert_int_equal(kg_schema_list_type_of("", "Pod", nope, 2, &keys), KG_SCHEMA_LIST_ATOMIC);
    assert_int_equal(kg_schema_list_type_of("example.com", "Widget", containers, 2, &keys), KG_SCHEMA_LIST_ATOMIC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_serve_optional),
        cmocka_unit_test(test_list_types),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
