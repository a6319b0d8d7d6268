/* The object validations added for the session-9 fidelity audit, each with upstream's exact field path and message:
 * Service port names / duplicate ports / nodePort on ClusterIP / cluster IPs immutable, environment variable names,
 * Job counts and completions immutability, rolling-update strategies, the selector-vs-template message, Secret type
 * keys and type immutability, immutable ConfigMaps and Secrets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "api/defaults.h"
#include "api/validation.h"

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

static kg_json *J(const char *s)
{
    if (!s)
        return NULL;
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

/* The aggregate of kg_api_validate's errors ("" when valid). */
static const char *validate(const char *group, const char *plural, const char *obj, const char *old)
{
    const kg_resource *r = kg_resource_find(group, "v1", plural);
    assert_non_null(r);
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_api_validate(&A, r, J(obj), J(old), &errs);
    const char *m = kg_field_errors_aggregate(&A, &errs);
    return m ? m : "";
}

static void check(const char *got, const char *want, const char *what)
{
    if (strcmp(got, want))
        fail_msg("%s\n got: %s\nwant: %s", what, got, want);
}

#define MD "'metadata':{'name':'x','namespace':'default'}"
#define SVC(spec) "{" MD ",'spec':{" spec "}}"

static void test_service(void **s)
{
    (void)s;
    check(validate("", "services",
                   SVC("'ports':[{'name':'a','port':80,'protocol':'TCP'},{'name':'a','port':81,'protocol':'TCP'}]"),
                   NULL),
          "spec.ports[1].name: Duplicate value: \"a\"", "duplicate port name");
    check(validate("", "services",
                   SVC("'ports':[{'name':'a','port':80,'protocol':'TCP'},{'name':'b','port':80,'protocol':'TCP'}]"),
                   NULL),
          "spec.ports[1]: Duplicate value: core.ServicePort{Name:\"\", Protocol:\"TCP\", AppProtocol:(*string)(nil), "
          "Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}",
          "duplicate protocol/port");
    check(validate("", "services",
                   SVC("'ports':[{'name':'a','port':53,'protocol':'TCP'},{'name':'b','port':53,'protocol':'UDP'}]"),
                   NULL),
          "", "same port, other protocol");
    check(validate("", "services", SVC("'type':'ClusterIP','ports':[{'port':80,'nodePort':30080}]"), NULL),
          "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'", "nodePort on ClusterIP");
    check(validate("", "services", SVC("'type':'NodePort','ports':[{'port':80,'nodePort':30080}]"), NULL), "",
          "nodePort on NodePort");
    check(validate("", "services", SVC("'ports':[{'name':'Web','port':80}]"), NULL),
          "spec.ports[0].name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case "
          "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
          "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
          "port name DNS label");
    const char *old = SVC("'clusterIP':'10.0.0.5','clusterIPs':['10.0.0.5'],'ports':[{'port':80}]");
    check(validate("", "services", SVC("'clusterIP':'10.0.0.9','clusterIPs':['10.0.0.9'],'ports':[{'port':80}]"), old),
          "spec.clusterIPs[0]: Invalid value: []string{\"10.0.0.9\"}: may not change once set", "clusterIP change");
    check(validate("", "services", SVC("'clusterIP':'10.0.0.5','clusterIPs':['10.0.0.5'],'ports':[{'port':81}]"), old),
          "", "port change keeps the IP");
    check(validate("", "services", SVC("'type':'ExternalName','externalName':'a.b'"), old), "",
          "to ExternalName releases the IP");
}

#define POD(containers) "{" MD ",'spec':{'containers':[" containers "]}}"

static void test_env(void **s)
{
    (void)s;
    check(validate("", "pods", POD("{'name':'c','image':'i','env':[{'name':'A=B','value':'x'}]}"), NULL),
          "spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist "
          "only of printable ASCII characters other than '='",
          "= in env name");
    check(validate("", "pods", POD("{'name':'c','image':'i','env':[{'name':'','value':'x'}]}"), NULL),
          "spec.containers[0].env[0].name: Required value", "empty env name");
    check(validate("", "pods", POD("{'name':'c','image':'i','env':[{'name':'1-my.VAR','value':'x'}]}"), NULL), "",
          "relaxed names are valid");
}

#define JOB(spec)                                                                                                      \
    "{" MD ",'spec':{" spec ",'template':{'spec':{'restartPolicy':'Never','containers':[{'name':'c','image':'i'}]}}}}"

static void test_job(void **s)
{
    (void)s;
    check(validate("batch", "jobs", JOB("'parallelism':-2,'completions':-1"), NULL),
          "[spec.parallelism: Invalid value: -2: must be greater than or equal to 0, spec.completions: Invalid value: "
          "-1: must be greater than or equal to 0]",
          "negative counts");
    check(validate("batch", "jobs", JOB("'backoffLimit':-1"), NULL),
          "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0", "negative backoffLimit");
    check(validate("batch", "jobs", JOB("'completions':5"), JOB("'completions':3")),
          "spec.completions: Invalid value: 5: field is immutable", "completions immutable");
    check(validate("batch", "jobs", JOB("'completionMode':'Indexed','completions':5,'parallelism':5"),
                   JOB("'completionMode':'Indexed','completions':3,'parallelism':3")),
          "", "elastic indexed job");
    check(validate("batch", "jobs", JOB("'completions':3,'parallelism':9"), JOB("'completions':3")), "",
          "parallelism is mutable");
}

#define DEP(strategy, labels)                                                                                          \
    "{" MD ",'spec':{'selector':{'matchLabels':{'app':'a'}}" strategy ",'template':{'metadata':{'labels':" labels      \
    "},'spec':{'containers':[{'name':'c','image':'i'}]}}}}"

static void test_deployment(void **s)
{
    (void)s;
    check(
        validate("apps", "deployments",
                 DEP(",'strategy':{'type':'RollingUpdate','rollingUpdate':{'maxSurge':0,'maxUnavailable':0}}",
                     "{'app':'a'}"),
                 NULL),
        "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}: "
        "may not be 0 when `maxSurge` is 0",
        "maxSurge = maxUnavailable = 0");
    check(validate("apps", "deployments",
                   DEP(",'strategy':{'type':'RollingUpdate','rollingUpdate':{'maxSurge':'0%','maxUnavailable':'0%'}}",
                       "{'app':'a'}"),
                   NULL),
          "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
          "StrVal:\"0%\"}: may not be 0 when `maxSurge` is 0",
          "0% and 0%");
    check(validate("apps", "deployments",
                   DEP(",'strategy':{'type':'RollingUpdate','rollingUpdate':{'maxUnavailable':'150%'}}", "{'app':'a'}"),
                   NULL),
          "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
          "StrVal:\"150%\"}: must not be greater than 100%",
          "over 100%");
    check(validate("apps", "deployments",
                   DEP(",'strategy':{'type':'RollingUpdate','rollingUpdate':{'maxSurge':'x'}}", "{'app':'a'}"), NULL),
          "spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"x\"}: a "
          "valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used "
          "for validation is '[0-9]+%')",
          "bad percent");
    check(validate("apps", "deployments",
                   DEP(",'strategy':{'type':'Recreate','rollingUpdate':{'maxSurge':1}}", "{'app':'a'}"), NULL),
          "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
          "Recreate with rollingUpdate");
    check(validate("apps", "deployments", DEP("", "{'tier':'b','app':'z'}"), NULL),
          "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"z\", \"tier\":\"b\"}: `selector` "
          "does not match template `labels`",
          "selector does not match the labels");
}

#define SECRET(type, data) "{" MD ",'type':'" type "'" data "}"

static void test_secret(void **s)
{
    (void)s;
    check(validate("", "secrets", SECRET("kubernetes.io/tls", ",'data':{'a':'Yg=='}"), NULL),
          "[data[tls.crt]: Required value, data[tls.key]: Required value]", "tls keys");
    check(validate("", "secrets", SECRET("kubernetes.io/tls", ",'data':{'tls.crt':'','tls.key':''}"), NULL), "",
          "tls keys present");
    check(validate("", "secrets", SECRET("kubernetes.io/dockerconfigjson", ",'data':{'a':'Yg=='}"), NULL),
          "data[.dockerconfigjson]: Required value", "dockerconfigjson key");
    /* "bad" and "[1]" base64-encoded */
    check(
        validate("", "secrets", SECRET("kubernetes.io/dockerconfigjson", ",'data':{'.dockerconfigjson':'YmFk'}"), NULL),
        "data[.dockerconfigjson]: Invalid value: \"<secret contents redacted>\": invalid character 'b' looking for "
        "beginning of value",
        "dockerconfigjson not JSON");
    check(
        validate("", "secrets", SECRET("kubernetes.io/dockerconfigjson", ",'data':{'.dockerconfigjson':'WzFd'}"), NULL),
        "data[.dockerconfigjson]: Invalid value: \"<secret contents redacted>\": json: cannot unmarshal array into "
        "Go value of type map[string]interface {}",
        "dockerconfigjson not an object");
    check(validate("", "secrets",
                   SECRET("kubernetes.io/dockerconfigjson", ",'stringData':{'.dockerconfigjson':'{\\\"auths\\\":{}}'}"),
                   NULL),
          "", "dockerconfigjson in stringData");
    check(validate("", "secrets", SECRET("kubernetes.io/basic-auth", ""), NULL),
          "[data[username]: Required value, data[password]: Required value]", "basic auth");
    check(validate("", "secrets", SECRET("kubernetes.io/ssh-auth", ""), NULL), "data[ssh-privatekey]: Required value",
          "ssh auth");
    check(validate("", "secrets", SECRET("kubernetes.io/service-account-token", ""), NULL),
          "metadata.annotations[kubernetes.io/service-account.name]: Required value", "sa token");
    check(validate("", "secrets", SECRET("Opaque2", ""), SECRET("Opaque", "")),
          "type: Invalid value: \"Opaque2\": field is immutable", "type immutable");
    check(validate("", "secrets", "{" MD ",'data':{'a':'Yg=='}}", SECRET("Opaque", "")), "",
          "defaulted type unchanged");
}

static void test_immutable(void **s)
{
    (void)s;
    const char *old = "{" MD ",'immutable':true,'data':{'a':'b'}}";
    check(validate("", "configmaps", "{" MD ",'immutable':true,'data':{'a':'c'}}", old),
          "data: Forbidden: field is immutable when `immutable` is set", "configmap data");
    check(validate("", "configmaps", "{" MD ",'immutable':false,'data':{'a':'b'}}", old),
          "immutable: Forbidden: field is immutable when `immutable` is set", "configmap immutable flag");
    check(validate("", "configmaps", "{" MD ",'immutable':true,'data':{'a':'b'},'binaryData':{'x':'eA=='}}", old),
          "binaryData: Forbidden: field is immutable when `immutable` is set", "configmap binaryData");
    check(validate("", "configmaps", "{" MD ",'immutable':true,'data':{'a':'b'}}", old), "", "no change");
    check(validate("", "secrets", "{" MD ",'immutable':true,'data':{'a':'Yw=='}}",
                   "{" MD ",'immutable':true,'data':{'a':'Yg=='}}"),
          "data: Forbidden: field is immutable when `immutable` is set", "secret data");
}

/* kg_api_prepare_for_update: what a Service update keeps or drops before it is validated. */
static void test_service_update_carry_over(void **s)
{
    (void)s;
    const kg_resource *r = kg_resource_find("", "v1", "services");
    const kg_json *old = J(SVC("'type':'NodePort','clusterIP':'10.0.0.5','clusterIPs':['10.0.0.5'],'ipFamilies':["
                               "'IPv4'],'ports':[{'port':80,'nodePort':30080}]"));
    kg_json *put = J(SVC("'type':'NodePort','ports':[{'port':80,'nodePort':30080}]"));
    kg_api_prepare_for_update(&A, r, put, old);
    assert_string_equal(kg_json_path_str(put, "spec.clusterIP"), "10.0.0.5");
    assert_string_equal(kg_json_to_string(&A, kg_json_path(put, "spec.clusterIPs"), 0, NULL), "[\"10.0.0.5\"]");
    kg_json *to_cip = J(SVC("'type':'ClusterIP','clusterIP':'10.0.0.5','clusterIPs':['10.0.0.5'],'ports':[{'port':80,"
                            "'nodePort':30080}]"));
    kg_api_prepare_for_update(&A, r, to_cip, old);
    assert_null(kg_json_path(to_cip, "spec.ports")->u.items[0]->type == KG_JSON_OBJECT
                    ? kg_json_get(kg_json_path(to_cip, "spec.ports")->u.items[0], "nodePort")
                    : NULL);
    kg_json *to_ext = J(SVC("'type':'ExternalName','externalName':'a.b','clusterIP':'10.0.0.5','clusterIPs':["
                            "'10.0.0.5'],'ipFamilies':['IPv4'],'ports':[{'port':80,'nodePort':30080}]"));
    kg_api_prepare_for_update(&A, r, to_ext, old);
    assert_null(kg_json_path(to_ext, "spec.clusterIP"));
    assert_null(kg_json_path(to_ext, "spec.clusterIPs"));
    assert_null(kg_json_path(to_ext, "spec.ipFamilies"));
    check(validate("", "services", kg_json_to_string(&A, to_cip, 0, NULL), NULL), "", "NodePort to ClusterIP");
}

static void test_names(void **s)
{
    (void)s;
    const kg_resource *csr = kg_resource_find("certificates.k8s.io", "v1", "certificatesigningrequests");
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_api_validate(&A, csr,
                    J("{'metadata':{'name':'Node CSR_1'},'spec':{'request':'eA==','signerName':'example.com/x',"
                      "'usages':['digital signature']}}"),
                    NULL, &errs);
    for (size_t i = 0; i < errs.len; i++)
        if (!strcmp(errs.items[i].field, "metadata.name"))
            fail_msg("a CSR name is free-form: %s", kg_field_error_string(&A, &errs.items[i]));
    check(validate("batch", "cronjobs",
                   "{'metadata':{'name':'a-very-long-cronjob-name-that-is-more-than-fifty-two-chars','namespace':'d'},"
                   "'spec':{'schedule':'* * * * *','jobTemplate':{'spec':{'template':{'spec':{'restartPolicy':'Never',"
                   "'containers':[{'name':'c','image':'i'}]}}}}}}",
                   NULL),
          "metadata.name: Invalid value: \"a-very-long-cronjob-name-that-is-more-than-fifty-two-chars\": must be no "
          "more than 52 characters",
          "cronjob name length");
    const char *sts = "{'metadata':{'name':'web.v1','namespace':'d'},'spec':{'serviceName':'Web_Svc','selector':{"
                      "'matchLabels':{'a':'b'}},'template':{'metadata':{'labels':{'a':'b'}},'spec':{'containers':[{"
                      "'name':'c','image':'i'}]}}}}";
    const char *dns = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
                      "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
                      "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    const kg_resource *ss = kg_resource_find("apps", "v1", "statefulsets");
    kg_field_errors e2 = KG_FIELD_ERRORS_INIT;
    kg_api_validate(&A, ss, J(sts), NULL, &e2);
    check(
        kg_field_errors_aggregate(&A, &e2),
        kg_arena_sprintf(&A,
                         "[metadata.name: Invalid value: \"web.v1\": must not contain dots, spec.serviceName: Invalid "
                         "value: \"Web_Svc\": %s]",
                         dns),
        "statefulset name and serviceName");
    kg_field_errors e3 = KG_FIELD_ERRORS_INIT;
    kg_api_validate(&A, ss, J(sts), J(sts), &e3);
    check(kg_field_errors_aggregate(&A, &e3),
          kg_arena_sprintf(&A, "spec.serviceName: Invalid value: \"Web_Svc\": %s", dns),
          "an update does not revalidate the name");
}

/* kg_api_prepare_for_create: a Job gets the generated selector and template labels unless manualSelector. */
static void test_job_generated_selector(void **s)
{
    (void)s;
    const kg_resource *r = kg_resource_find("batch", "v1", "jobs");
    kg_json *job =
        J("{'metadata':{'name':'j','uid':'u1'},'spec':{'template':{'metadata':{'labels':{'job-name':'mine'}},"
          "'spec':{'containers':[]}}}}");
    kg_api_prepare_for_create(&A, r, job);
    assert_string_equal(kg_json_to_string(&A, kg_json_path(job, "spec.selector"), 0, NULL),
                        "{\"matchLabels\":{\"batch.kubernetes.io/controller-uid\":\"u1\"}}");
    assert_string_equal(kg_json_to_string(&A, kg_json_path(job, "spec.template.metadata.labels"), 0, NULL),
                        "{\"job-name\":\"mine\",\"controller-uid\":\"u1\",\"batch.kubernetes.io/job-name\":\"j\","
                        "\"batch.kubernetes.io/controller-uid\":\"u1\"}");
    kg_json *manual = J("{'metadata':{'name':'j','uid':'u1'},'spec':{'manualSelector':true,'selector':{'matchLabels':{"
                        "'a':'b'}},'template':{'spec':{'containers':[]}}}}");
    kg_api_prepare_for_create(&A, r, manual);
    assert_string_equal(kg_json_to_string(&A, kg_json_path(manual, "spec.selector"), 0, NULL),
                        "{\"matchLabels\":{\"a\":\"b\"}}");
    assert_null(kg_json_path(manual, "spec.template.metadata"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_service, setup, teardown),
        cmocka_unit_test_setup_teardown(test_env, setup, teardown),
        cmocka_unit_test_setup_teardown(test_job, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deployment, setup, teardown),
        cmocka_unit_test_setup_teardown(test_secret, setup, teardown),
        cmocka_unit_test_setup_teardown(test_immutable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_service_update_carry_over, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_job_generated_selector, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
