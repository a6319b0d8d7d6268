/* The typed decode check (api/schema.h kg_schema_decode_check): upstream's JSON decode errors for wrong JSON types,
 * integer ranges, base64 and quantities at several depths, and unknown fields collected and dropped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "api/schema.h"

static kg_arena A;

static int setup(void **s)
{
    (void)s;
    kg_arena_init(&A, 0);
    return 0;
}

static int teardown(void **s)
{
    (void)s;
    kg_arena_free(&A);
    return 0;
}

/* JSON written with single quotes. */
static kg_json *J(const char *s)
{
    char *t = kg_arena_strdup(&A, s);
    for (char *p = t; *p; p++)
        if (*p == '\'')
            *p = '"';
    kg_error err = {0};
    kg_json *v = kg_json_parse(&A, t, strlen(t), &err);
    if (!v)
        fail_msg("bad test JSON: %s", err.msg);
    return v;
}

static const char *decode_error(const char *type, const char *json)
{
    kg_schema_decode d;
    assert_true(kg_schema_decode_check(&A, type, J(json), false, &d));
    return d.error ? d.error : "";
}

#define CM "io.k8s.api.core.v1.ConfigMap"
#define DEPLOY "io.k8s.api.apps.v1.Deployment"
#define POD "io.k8s.api.core.v1.Pod"

static void test_decode_errors(void **s)
{
    (void)s;
    static const struct {
        const char *type, *json, *want;
    } cases[] = {
        /* the reference's table */
        {CM, "{'data':{'a':1}}", "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"},
        {DEPLOY, "{'spec':{'replicas':'3'}}",
         "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"},
        {DEPLOY, "{'spec':{'template':{'spec':{'containers':[{'name':'a','env':[{'name':'x','value':5}]}]}}}}",
         "json: cannot unmarshal number into Go struct field EnvVar.spec.template.spec.containers.env.value of type "
         "string"},
        /* shapes: object where a list is expected and the reverse, scalar for a struct */
        {POD, "{'spec':{'containers':{'name':'a'}}}",
         "json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container"},
        {DEPLOY, "{'spec':[]}",
         "json: cannot unmarshal array into Go struct field Deployment.spec of type v1.DeploymentSpec"},
        {CM, "{'data':['a']}",
         "json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string"},
        {POD, "{'spec':{'containers':['a']}}",
         "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type v1.Container"},
        {CM, "{'metadata':{'labels':{'a':true}}}",
         "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string"},
        {CM, "{'immutable':'yes'}",
         "json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool"},
        /* integer ranges and literals */
        {DEPLOY, "{'spec':{'replicas':3000000000}}",
         "json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32"},
        {DEPLOY, "{'spec':{'replicas':1.5}}",
         "json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32"},
        {POD, "{'spec':{'activeDeadlineSeconds':3000000000}}", ""},
        /* custom unmarshalers */
        {CM, "{'metadata':{'creationTimestamp':5}}",
         "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string"},
        {POD, "{'spec':{'containers':[{'name':'a','resources':{'limits':{'cpu':'lots'}}}]}}",
         "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
        {POD, "{'spec':{'containers':[{'name':'a','resources':{'limits':{'cpu':2,'memory':'1Gi'}}}]}}", ""},
        {"io.k8s.api.core.v1.Service", "{'spec':{'ports':[{'port':80,'targetPort':true}]}}",
         "json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32"},
        {"io.k8s.api.core.v1.Service", "{'spec':{'ports':[{'port':80,'targetPort':'http'}]}}", ""},
        {"io.k8s.api.core.v1.Secret", "{'data':{'a':'not base64!'}}", "illegal base64 data at input byte 3"},
        {"io.k8s.api.core.v1.Secret", "{'data':{'a':'aGVsbG8='}}", ""},
        /* null decodes into anything; the first error in document order wins */
        {DEPLOY, "{'spec':{'replicas':null,'selector':null}}", ""},
        {CM, "{'data':{'a':1},'immutable':'x'}",
         "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *got = decode_error(cases[i].type, cases[i].json);
        if (strcmp(got, cases[i].want))
            fail_msg("case %zu %s\n got: %s\nwant: %s", i, cases[i].json, got, cases[i].want);
    }
}

static void test_unknown_fields_dropped(void **s)
{
    (void)s;
    kg_json *obj = J("{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'d','foo':1},'spec':{'unknown1':"
                     "true,'replicas':2,'template':{'spec':{'containers':[{'name':'a','unknownNested':1}]}}}}");
    kg_schema_decode d;
    assert_true(kg_schema_decode_check(&A, DEPLOY, obj, true, &d));
    assert_null(d.error);
    assert_int_equal(d.nunknown, 3);
    assert_string_equal(d.unknown[0], "metadata.foo");
    assert_string_equal(d.unknown[1], "spec.unknown1");
    assert_string_equal(d.unknown[2], "spec.template.spec.containers[0].unknownNested");
    kg_buf b = KG_BUF_INIT;
    kg_json_write(&b, obj, 0);
    assert_string_equal(kg_buf_cstr(&b), "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
                                         "\"d\"},\"spec\":{\"replicas\":2,\"template\":{\"spec\":{\"containers\":[{"
                                         "\"name\":\"a\"}]}}}}");
    kg_buf_free(&b);
    /* without dropping (Strict) the object is left as it is */
    kg_json *obj2 = J("{'spec':{'unknown1':true}}");
    assert_true(kg_schema_decode_check(&A, DEPLOY, obj2, false, &d));
    assert_int_equal(d.nunknown, 1);
    assert_non_null(kg_json_path(obj2, "spec.unknown1"));
    /* free-form values (annotations' map, RawExtension) are not reported */
    assert_false(kg_schema_decode_check(&A, "io.k8s.api.nope.v1.Nope", obj2, false, &d));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_decode_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_fields_dropped, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
