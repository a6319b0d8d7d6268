/* CustomResourceDefinitions: validation and structural-schema messages, defaults and conditions, the published
 * dynamic resource set and its lookups, custom resource pipeline steps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "api/dynamic.h"
#include "api/resources.h"
#include "apiext/crd.h"

static kg_arena A;
static int setup(void **s)
{
    kg_arena_init(&A, 0);
    return 0;
}
static int teardown(void **s)
{
    kg_arena_free(&A);
    kg_dynamic_reset();
    return 0;
}

static kg_json *J(const char *s)
{
    kg_error err;
    kg_json *v = kg_json_parse(&A, s, strlen(s), &err);
    if (!v)
        fail_msg("bad test JSON: %s (%s)", err.msg, s);
    return v;
}

static const char *S(const kg_json *v)
{
    return kg_json_to_string(&A, v, KG_JSON_WRITE_NO_ESCAPE_HTML, NULL);
}

/* A CRD for group stable.example.com, kind CronTab, with `versions` as given. */
static kg_json *crd(const char *name, const char *plural, const char *kind, const char *versions)
{
    return J(kg_arena_sprintf(&A,
                              "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
                              "\"metadata\":{\"name\":\"%s\"},\"spec\":{\"group\":\"stable.example.com\","
                              "\"scope\":\"Namespaced\",\"names\":{\"plural\":\"%s\",\"kind\":\"%s\","
                              "\"shortNames\":[\"ct\"]},\"versions\":%s}}",
                              name, plural, kind, versions));
}

static const char V1[] = "[{\"name\":\"v1\",\"served\":true,\"storage\":true,\"subresources\":{\"status\":{}},"
                         "\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":"
                         "\"object\",\"properties\":{\"replicas\":{\"type\":\"integer\",\"default\":1}}}}}}}]";

/* Validation as the pipeline runs it: after the defaults. */
static const char *errors_of(const kg_json *in, const kg_json *old)
{
    kg_json *obj = kg_json_clone(&A, in);
    kg_crd_default(&A, obj, "2026-01-01T00:00:00Z");
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_crd_validate(&A, obj, old, &errs);
    const char *agg = kg_field_errors_aggregate(&A, &errs);
    return agg ? agg : "";
}

static void crd_validation(void **state)
{
    assert_string_equal(errors_of(crd("crontabs.stable.example.com", "crontabs", "CronTab", V1), NULL), "");
    assert_string_equal(errors_of(crd("crontab.stable.example.com", "crontabs", "CronTab", V1), NULL),
                        "metadata.name: Invalid value: \"crontab.stable.example.com\": must be "
                        "spec.names.plural+\".\"+spec.group");
    assert_string_equal(errors_of(crd("Crontabs.stable.example.com", "Crontabs", "CronTab", V1), NULL),
                        "spec.names.plural: Invalid value: \"Crontabs\": a DNS-1035 label must consist of lower case "
                        "alphanumeric characters or '-', start with an alphabetic character, and end with an "
                        "alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
                        "'[a-z]([-a-z0-9]*[a-z0-9])?')");
    /* no storage version; duplicate names */
    const char *two = "[{\"name\":\"v1\",\"served\":true,\"storage\":false,\"schema\":{\"openAPIV3Schema\":{\"type\":"
                      "\"object\"}}},{\"name\":\"v1\",\"served\":true,\"storage\":false,\"schema\":{"
                      "\"openAPIV3Schema\":{\"type\":\"object\"}}}]";
    const char *got = errors_of(crd("crontabs.stable.example.com", "crontabs", "CronTab", two), NULL);
    assert_non_null(strstr(got, ": must contain unique version names"));
    assert_non_null(strstr(got, ": must have exactly one version marked as storage version"));
    /* a missing schema */
    got = errors_of(crd("crontabs.stable.example.com", "crontabs", "CronTab",
                        "[{\"name\":\"v1\",\"served\":true,\"storage\":true}]"),
                    NULL);
    assert_string_equal(got, "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required");
    /* scope and the group */
    kg_json *c = crd("crontabs.stable.example.com", "crontabs", "CronTab", V1);
    kg_json_set(&A, kg_json_get(c, "spec"), "scope", kg_json_new_str(&A, "Global"));
    assert_string_equal(errors_of(c, NULL),
                        "spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\"");
    c = crd("crontabs.example", "crontabs", "CronTab", V1);
    kg_json_set(&A, kg_json_get(c, "spec"), "group", kg_json_new_str(&A, "example"));
    assert_string_equal(errors_of(c, NULL),
                        "spec.group: Invalid value: \"example\": should be a domain with at least one dot");
    c = crd("crontabs.stable.example.com", "crontabs", "CronTab", V1);
    kg_json_set(&A, kg_json_get(c, "spec"), "preserveUnknownFields", kg_json_new_bool(&A, true));
    assert_string_equal(errors_of(c, NULL),
                        "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set "
                        "x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead");
    /* kind and listKind */
    c = crd("crontabs.stable.example.com", "crontabs", "CronTab", V1);
    kg_json_set(&A, kg_json_path(c, "spec.names"), "listKind", kg_json_new_str(&A, "CronTab"));
    assert_string_equal(errors_of(c, NULL),
                        "spec.names.listKind: Invalid value: \"CronTab\": kind and listKind may not be the same");
    /* immutable group and plural */
    kg_json *old = crd("crontabs.stable.example.com", "crontabs", "CronTab", V1);
    c = crd("crontabs.stable.example.com", "crontabz", "CronTab", V1);
    got = errors_of(c, old);
    assert_non_null(strstr(got, "spec.names.plural: Invalid value: \"crontabz\": field is immutable"));
}

static const char *schema_errors(const char *schema, bool status)
{
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_crd_validate_schema(&A, J(schema), "spec.validation.openAPIV3Schema", status, &errs);
    const char *agg = kg_field_errors_aggregate(&A, &errs);
    return agg ? agg : "";
}

static void structural_rules(void **state)
{
    static const struct {
        const char *schema, *want;
    } cases[] = {
        {"{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\"}}}", ""},
        {"{\"properties\":{}}", "spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root"},
        {"{\"type\":\"array\",\"items\":{\"type\":\"string\"}}",
         "spec.validation.openAPIV3Schema.type: Invalid value: \"array\": must be object at the root"},
        {"{\"type\":\"object\",\"properties\":{\"spec\":{\"properties\":{}}}}",
         "spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified "
         "object fields"},
        {"{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\"}}}",
         "spec.validation.openAPIV3Schema.properties[l].items: Required value: must be specified"},
        {"{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\",\"items\":{}}}}",
         "spec.validation.openAPIV3Schema.properties[l].items.type: Required value: must not be empty for specified "
         "array items"},
        {"{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}",
         "spec.validation.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root"},
        {"{\"type\":\"object\",\"properties\":{\"metadata\":{\"type\":\"object\",\"properties\":{\"labels\":{"
         "\"type\":\"object\"}}}}}",
         "spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name "
         "and generateName, but metadata is implicitly specified"},
        {"{\"type\":\"object\",\"properties\":{\"p\":{\"x-kubernetes-int-or-string\":true,"
         "\"x-kubernetes-preserve-unknown-fields\":true}}}",
         "spec.validation.openAPIV3Schema.properties[p].x-kubernetes-preserve-unknown-fields: Invalid value: true: "
         "must be false if x-kubernetes-int-or-string is true"},
        {"{\"type\":\"object\",\"properties\":{\"p\":{\"x-kubernetes-int-or-string\":true,\"anyOf\":[{\"type\":"
         "\"integer\"},{\"type\":\"string\"}]}}}",
         ""},
        {"{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\",\"pattern\":\"(a\"}}}",
         "spec.validation.openAPIV3Schema.properties[s].pattern: Invalid value: \"(a\": must be a valid regular "
         "expression, but isn't: error parsing regexp: missing closing ): `(a`"},
        {"{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\",\"uniqueItems\":true,\"items\":{\"type\":"
         "\"string\"}}}}",
         "spec.validation.openAPIV3Schema.properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true "
         "since the runtime complexity becomes quadratic"},
        {"{\"type\":\"object\",\"properties\":{\"r\":{\"$ref\":\"#/x\",\"type\":\"object\"}}}",
         "spec.validation.openAPIV3Schema.properties[r].$ref: Forbidden: $ref is not supported"},
        {"{\"type\":\"object\",\"properties\":{\"e\":{\"type\":\"object\",\"x-kubernetes-embedded-resource\":true}}}",
         "spec.validation.openAPIV3Schema.properties[e].properties: Required value: must not be empty if "
         "x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"},
        {"{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"default\":\"x\"}}}",
         "spec.validation.openAPIV3Schema.properties[n].default: Invalid value: \"string\": body in body must be of "
         "type integer: \"string\""},
        {"{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\",\"allOf\":[{\"type\":\"string\"}]}}}",
         "spec.validation.openAPIV3Schema.properties[x].allOf[0].type: Forbidden: must be empty to be structural"},
        /* several errors: sorted by their text */
        {"{\"type\":\"object\",\"properties\":{\"b\":{},\"a\":{}}}",
         "[spec.validation.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified "
         "object fields, spec.validation.openAPIV3Schema.properties[b].type: Required value: must not be empty for "
         "specified object fields]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = schema_errors(cases[i].schema, false);
        if (strcmp(got, cases[i].want))
            fail_msg("case %zu (%s):\n want: %s\n  got: %s", i, cases[i].schema, cases[i].want, got);
    }
    assert_non_null(strstr(schema_errors("{\"type\":\"object\",\"additionalProperties\":false}", true),
                           "fields are allowed at the root of the schema if the status subresource is enabled"));
}

static void defaults_conditions_and_publish(void **state)
{
    kg_json *c = crd("crontabs.stable.example.com", "crontabs", "CronTab", V1);
    kg_crd_default(&A, c, "2026-01-01T00:00:00Z");
    assert_string_equal(kg_json_path_str(c, "spec.names.singular"), "crontab");
    assert_string_equal(kg_json_path_str(c, "spec.names.listKind"), "CronTabList");
    assert_string_equal(kg_json_path_str(c, "spec.conversion.strategy"), "None");
    assert_true(kg_crd_condition_true(c, "NamesAccepted"));
    assert_true(kg_crd_condition_true(c, "Established"));
    assert_string_equal(S(kg_json_path(c, "status.storedVersions")), "[\"v1\"]");
    assert_string_equal(kg_json_path_str(c, "status.acceptedNames.plural"), "crontabs");

    const kg_json *crds[] = {c};
    kg_crd_publish(crds, 1);
    const kg_resource *r = kg_resource_find("stable.example.com", "v1", "crontabs");
    assert_non_null(r);
    assert_string_equal(r->kind, "CronTab");
    assert_string_equal(r->list_kind, "CronTabList");
    assert_string_equal(r->api_version, "stable.example.com/v1");
    assert_string_equal(r->storage_prefix, "/registry/stable.example.com/crontabs/");
    assert_string_equal(r->short_names[0], "ct");
    assert_true(r->namespaced);
    assert_true(r->has_status);
    assert_int_equal(r->index, -1);
    assert_ptr_equal(kg_resource_find_kind("stable.example.com", "CronTab"), r);
    assert_ptr_equal(kg_resource_find_plural("crontabs"), r);
    assert_non_null(kg_resource_subresource(r, "status"));
    /* discovery lists it */
    kg_json *rl = kg_discovery_resource_list(&A, "stable.example.com", "v1");
    assert_non_null(rl);
    assert_non_null(strstr(S(rl), "\"name\":\"crontabs\""));
    assert_non_null(strstr(S(rl), "\"name\":\"crontabs/status\""));
    assert_non_null(strstr(S(kg_discovery_api_groups(&A)), "\"name\":\"stable.example.com\""));

    /* the pipeline steps: prune + default on decode, validation */
    kg_json *obj = J("{\"apiVersion\":\"stable.example.com/v1\",\"kind\":\"CronTab\",\"metadata\":{\"name\":\"a\"},"
                     "\"spec\":{\"x\":1}}");
    const char **paths = NULL;
    size_t n = 0;
    kg_cr_decode(&A, r, obj, &paths, &n);
    assert_int_equal(n, 1);
    assert_string_equal(paths[0], "spec.x");
    assert_string_equal(S(kg_json_get(obj, "spec")), "{\"replicas\":1}");
    kg_json_set(&A, kg_json_get(obj, "spec"), "replicas", kg_json_new_str(&A, "two"));
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_cr_validate(&A, obj, NULL, &errs);
    assert_string_equal(kg_field_errors_aggregate(&A, &errs),
                        "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: "
                        "\"string\"");

    /* a second CRD of the group with a conflicting short name is not accepted */
    kg_json *c2 = crd("crontabz.stable.example.com", "crontabz", "CronTabZ", V1);
    kg_crd_default(&A, c2, "2026-01-01T00:00:00Z");
    assert_false(kg_crd_condition_true(c2, "NamesAccepted"));
    assert_false(kg_crd_condition_true(c2, "Established"));
    assert_non_null(strstr(S(kg_json_path(c2, "status.conditions")),
                           "\"reason\":\"ShortNamesConflict\",\"message\":\"\\\"ct\\\" is already in use\""));
    const kg_json *both[] = {c, c2};
    kg_crd_publish(both, 2);
    assert_null(kg_resource_find("stable.example.com", "v1", "crontabz"));
    /* republished without the CRD: no longer served */
    kg_crd_publish(NULL, 0);
    assert_null(kg_resource_find("stable.example.com", "v1", "crontabs"));
    assert_null(kg_discovery_resource_list(&A, "stable.example.com", "v1"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(crd_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(structural_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(defaults_conditions_and_publish, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
