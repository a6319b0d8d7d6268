/* The in-memory cluster of kgate check and its reports: serve's bootstrap and controllers are there (a pod in a new
 * namespace gets the default ServiceAccount), later objects see earlier ones (quota usage), verdicts carry serve's
 * codes and messages, UPDATE goes through the update pipeline, and the patch and YAML outputs give back the
 * admitted object. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "check/cluster.h"
#include "check/report.h"
#include "meta/patch.h"
#include "yaml/yaml.h"

typedef struct fx {
    kg_arena a;
    kg_check_cluster *c;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    kg_arena_init(&f->a, 0);
    kg_check_config cfg = {0};
    kg_error err;
    f->c = kg_check_cluster_new(&cfg, &err);
    assert_non_null(f->c);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    kg_check_cluster_free(f->c);
    kg_arena_free(&f->a);
    free(f);
    return 0;
}

static kg_json *yaml(fx *f, const char *text)
{
    kg_error err;
    kg_json *v = kg_yaml_parse(&f->a, text, strlen(text), &err);
    assert_non_null(v);
    return v;
}

static kg_check_verdict submit(fx *f, const char *text)
{
    kg_check_verdict v;
    kg_check_submit(f->c, &f->a, yaml(f, text), NULL, &v);
    return v;
}

#define POD(name, ns, extra)                                                                                           \
    "apiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: " ns "}\nspec:\n  containers:\n  - name: c\n"    \
    "    image: nginx\n" extra

static void new_namespace_gets_its_service_account(void **state)
{
    fx *f = *state;
    kg_check_verdict v = submit(f, "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n");
    assert_true(v.allowed);
    assert_int_equal(v.code, 201);
    v = submit(f, POD("p", "team", ""));
    assert_true(v.allowed);
    assert_string_equal(kg_json_path_str(v.admitted, "spec.serviceAccountName"), "default");
    /* the default namespace from the bootstrap has one too, and a namespace-less object goes there */
    v = submit(f, "apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n  containers: [{name: c, image: x}]\n");
    assert_true(v.allowed);
    assert_string_equal(v.ns, "default");
}

static void denials_carry_serves_status(void **state)
{
    fx *f = *state;
    kg_check_verdict v = submit(f, POD("p", "nowhere", ""));
    assert_false(v.allowed);
    assert_int_equal(v.code, 404);
    assert_string_equal(v.reason, "NotFound");
    assert_string_equal(v.message, "namespaces \"nowhere\" not found");
    v = submit(f, POD("Bad", "default", ""));
    assert_int_equal(v.code, 422);
    assert_string_equal(v.reason, "Invalid");
    v = submit(f, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n");
    assert_true(v.input_error);
    assert_string_equal(v.message, "no matches for kind \"Widget\" in version \"example.com/v1\"");
}

static void later_objects_see_earlier_ones(void **state)
{
    fx *f = *state;
    assert_true(submit(f, "apiVersion: v1\nkind: Namespace\nmetadata: {name: q}\n").allowed);
    assert_true(
        submit(f,
               "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: rq, namespace: q}\nspec: {hard: {pods: '1'}}\n")
            .allowed);
    assert_true(submit(f, POD("one", "q", "")).allowed);
    kg_check_verdict v = submit(f, POD("two", "q", ""));
    assert_false(v.allowed);
    assert_int_equal(v.code, 403);
    assert_string_equal(
        v.message, "pods \"two\" is forbidden: exceeded quota: rq, requested: pods=1, used: pods=1, limited: pods=1");
}

static void update_goes_through_the_update_pipeline(void **state)
{
    fx *f = *state;
    kg_json *old =
        yaml(f, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\ndata: {a: '1'}\n");
    kg_json *neu =
        yaml(f, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\ndata: {a: '2'}\n");
    kg_check_verdict v;
    kg_check_submit(f->c, &f->a, neu, old, &v);
    assert_true(v.allowed);
    assert_int_equal(v.code, 200);
    assert_string_equal(kg_json_path_str(v.admitted, "data.a"), "2");
    /* a pod's spec changed beyond what updates may change: the update validation answers */
    old = yaml(f, POD("pu", "default", "  restartPolicy: Always\n"));
    neu = yaml(f, POD("pu", "default", "  restartPolicy: Never\n"));
    kg_check_submit(f->c, &f->a, neu, old, &v);
    assert_false(v.allowed);
    assert_int_equal(v.code, 422);
}

static void patch_and_yaml_give_back_the_admitted_object(void **state)
{
    fx *f = *state;
    kg_json *submitted = yaml(f, POD("p", "default", "  tolerations: [{key: k, operator: Exists}]\n"));
    kg_json *copy = kg_json_clone(&f->a, submitted);
    kg_check_verdict v;
    kg_check_submit(f->c, &f->a, submitted, NULL, &v);
    assert_true(v.allowed);
    kg_json *stripped = kg_check_strip_server_fields(&f->a, v.admitted);
    assert_null(kg_json_path(stripped, "metadata.uid"));
    assert_null(kg_json_path(stripped, "metadata.resourceVersion"));
    assert_null(kg_json_get(stripped, "status")); /* pods have a status subresource */
    kg_json *patch = kg_patch_json_diff(&f->a, copy, stripped);
    assert_true(patch->len > 0);
    kg_json *patched;
    kg_error err;
    assert_true(kg_patch_json(&f->a, copy, patch, &patched, &err));
    assert_true(kg_json_equal(patched, stripped));
    kg_buf b = KG_BUF_INIT;
    kg_yaml_write(&b, stripped);
    kg_json *back = kg_yaml_parse(&f->a, kg_buf_cstr(&b), b.len, &err);
    kg_buf_free(&b);
    assert_non_null(back);
    assert_true(kg_json_equal(back, stripped));
}

static void yaml_writer_quotes_what_yaml_would_misread(void **state)
{
    fx *f = *state;
    kg_error err;
    const char *in = "{\"a\":\"yes\",\"b\":\"0644\",\"c\":\"1e3\",\"d\":\"x: y\",\"e\":\"line\\nnext\",\"f\":\"\","
                     "\"g\":[[1,2],[]],\"h\":{},\"i\":null,\"j\":true,\"k\":-1.5,\"l\":\"- dash\",\"m\":\"#c\"}";
    kg_json *v = kg_json_parse(&f->a, in, strlen(in), &err);
    kg_buf b = KG_BUF_INIT;
    kg_yaml_write(&b, v);
    kg_json *back = kg_yaml_parse(&f->a, kg_buf_cstr(&b), b.len, &err);
    kg_buf_free(&b);
    assert_non_null(back);
    assert_true(kg_json_equal(back, v));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(new_namespace_gets_its_service_account, setup, teardown),
        cmocka_unit_test_setup_teardown(denials_carry_serves_status, setup, teardown),
        cmocka_unit_test_setup_teardown(later_objects_see_earlier_ones, setup, teardown),
        cmocka_unit_test_setup_teardown(update_goes_through_the_update_pipeline, setup, teardown),
        cmocka_unit_test_setup_teardown(patch_and_yaml_give_back_the_admitted_object, setup, teardown),
        cmocka_unit_test_setup_teardown(yaml_writer_quotes_what_yaml_would_misread, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
