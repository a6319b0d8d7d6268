/* The ValidatingAdmissionPolicy plugin (src/admission/policy) driven through a one-plugin chain over an in-memory
 * cluster: Deny / Warn / Audit with upstream's texts and codes, reasons, message and messageExpression, params by
 * name and selector with parameterNotFoundAction, variables, failurePolicy for evaluation and configuration
 * errors, matchConditions, auditAnnotations, binding matchResources, recompilation when a policy or binding
 * changes in the cluster, the exclusion of the policy resources, and requests racing policy updates. */
#include <pthread.h>

#include "../plugin_testutil.h"

#include "../faulty_services.h"
#include "admission/policy/policy.h"
#include "base/log.h"

static kg_arena A;
static kg_admission_memcluster *M;
static kg_admission_services S;
static kg_admission_chain *C;
static kg_warnings W;

static int setup(void **state)
{
    kg_arena_init(&A, 0);
    M = kg_admission_memcluster_new();
    S = kg_admission_memcluster_services(M, NULL);
    tput(M, "namespaces", "{\"metadata\":{\"name\":\"default\",\"labels\":{\"env\":\"prod\"}}}", 0);
    C = chain1(&kg_admission_plugin_validating_admission_policy, NULL, &S);
    return 0;
}

static int teardown(void **state)
{
    kg_admission_chain_free(C);
    kg_admission_memcluster_free(M);
    kg_arena_free(&A);
    return 0;
}

#define RULES_DEPLOY                                                                                                   \
    "\"matchConstraints\":{\"resourceRules\":[{\"apiGroups\":[\"apps\"],\"apiVersions\":[\"v1\"],\"operations\":["     \
    "\"CREATE\",\"UPDATE\"],\"resources\":[\"deployments\"]}]}"

static void put_policy(const char *name, const char *spec_rest)
{
    char buf[8192];
    snprintf(buf, sizeof buf,
             "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingAdmissionPolicy\","
             "\"metadata\":{\"name\":\"%s\"},\"spec\":{" RULES_DEPLOY ",%s}}",
             name, spec_rest);
    tput(M, "validatingadmissionpolicies", buf, 0);
}

static void put_binding(const char *name, const char *policy, const char *spec_rest)
{
    char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingAdmissionPolicyBinding\","
             "\"metadata\":{\"name\":\"%s\"},\"spec\":{\"policyName\":\"%s\",%s}}",
             name, policy, spec_rest);
    tput(M, "validatingadmissionpolicybindings", buf, 0);
}

/* Validate a deployment create with the given replicas and labels JSON. */
static kg_status *deploy(kg_admission_attributes *at, int replicas)
{
    char buf[512];
    snprintf(buf, sizeof buf,
             "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\",\"namespace\":"
             "\"default\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"replicas\":%d}}",
             replicas);
    kg_admission_attrs_init(at, &A);
    at->operation = KG_ADMISSION_CREATE;
    at->kind = at->request_kind = (kg_gvk){"apps", "v1", "Deployment"};
    at->resource = at->request_resource = (kg_gvr){"apps", "v1", "deployments"};
    at->ns = "default";
    at->name = "d";
    at->object = tj(&A, buf);
    at->user = (kg_admission_user){.name = "alice"};
    kg_warnings_init(&W, &A);
    at->warnings = &W;
    return kg_admission_chain_validate(C, at);
}

#define DENIED "deployments.apps \"d\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "

static void test_deny(void **state)
{
    kg_admission_attributes at;
    assert_null(deploy(&at, 6)); /* nothing installed */
    put_policy("p", "\"validations\":[{\"expression\":\"object.spec.replicas <= 5\"}]");
    assert_null(deploy(&at, 6)); /* a policy without a binding does nothing */
    put_binding("b", "p", "\"validationActions\":[\"Deny\"]");
    kg_status *st = deploy(&at, 6);
    assert_status(st, 422, "Invalid", DENIED "failed expression: object.spec.replicas <= 5");
    assert_int_equal(st->details.ncauses, 1);
    assert_string_equal(st->details.causes[0].message,
                        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: "
                        "object.spec.replicas <= 5");
    assert_null(deploy(&at, 5));
    /* reason and messages */
    put_policy("p", "\"validations\":[{\"expression\":\"object.spec.replicas <= 5\",\"reason\":\"Forbidden\"}]");
    assert_status(deploy(&at, 6), 403, "Forbidden", DENIED "failed expression: object.spec.replicas <= 5");
    put_policy("p", "\"validations\":[{\"expression\":\"object.spec.replicas <= 5\",\"reason\":"
                    "\"RequestEntityTooLarge\",\"message\":\"  too big  \"}]");
    assert_status(deploy(&at, 6), 413, "RequestEntityTooLarge", DENIED "too big");
    put_policy("p", "\"validations\":[{\"expression\":\"object.spec.replicas <= 5\",\"reason\":\"Unauthorized\","
                    "\"message\":\"static\",\"messageExpression\":\"'too many: ' + string(object.spec.replicas)\"}]");
    assert_status(deploy(&at, 6), 401, "Unauthorized", DENIED "too many: 6");
    /* a messageExpression that gives nothing usable falls back to the message */
    put_policy("p", "\"validations\":[{\"expression\":\"object.spec.replicas <= 5\",\"message\":\"static\","
                    "\"messageExpression\":\"'a\\\\nb'\"}]");
    assert_status(deploy(&at, 6), 422, "Invalid", DENIED "static");
    /* the first failing validation is the message */
    put_policy("p", "\"validations\":[{\"expression\":\"true\"},{\"expression\":\"object.spec.replicas < 3\","
                    "\"message\":\"second\"},{\"expression\":\"false\",\"message\":\"third\"}]");
    assert_status(deploy(&at, 6), 422, "Invalid", DENIED "second");
    /* -v=4 logs each failing validation with its value and cost */
    kg_log_verbosity = 4;
    assert_status(deploy(&at, 6), 422, "Invalid", DENIED "second");
    kg_log_verbosity = 0;
}

static void test_warn_and_audit(void **state)
{
    kg_admission_attributes at;
    put_policy("p", "\"validations\":[{\"expression\":\"object.spec.replicas <= 5\"}]");
    put_binding("b", "p", "\"validationActions\":[\"Warn\",\"Audit\"]");
    assert_null(deploy(&at, 6));
    assert_int_equal(W.n, 1);
    assert_string_equal(W.items[0], "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': failed "
                                    "expression: object.spec.replicas <= 5");
    assert_string_equal(kg_json_get_str(at.annotations, KG_VAP_VALIDATION_FAILURE_KEY),
                        "[{\"message\":\"failed expression: object.spec.replicas \\u003c= 5\",\"policy\":\"p\","
                        "\"binding\":\"b\",\"expressionIndex\":0,\"validationActions\":[\"Warn\",\"Audit\"]}]");
    assert_null(deploy(&at, 5));
    assert_int_equal(W.n, 0);
    assert_int_equal(at.annotations->len, 0); /* no audit annotation */
}

static void test_params(void **state)
{
    kg_admission_attributes at;
    tput(M, "configmaps",
         "{\"metadata\":{\"name\":\"limits\",\"namespace\":\"default\",\"labels\":{\"kind\":\"limit\"}},"
         "\"data\":{\"max\":\"3\"}}",
         0);
    tput(M, "configmaps",
         "{\"metadata\":{\"name\":\"limits2\",\"namespace\":\"default\",\"labels\":{\"kind\":\"limit\"}},"
         "\"data\":{\"max\":\"10\"}}",
         0);
    put_policy("p", "\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"},\"validations\":[{\"expression\":"
                    "\"params == null || object.spec.replicas <= int(params.data.max)\",\"messageExpression\":"
                    "\"'max ' + params.data.max\"}]");
    put_binding("b", "p",
                "\"paramRef\":{\"name\":\"limits\",\"parameterNotFoundAction\":\"Deny\"},"
                "\"validationActions\":[\"Deny\"]");
    assert_status(deploy(&at, 6), 422, "Invalid", DENIED "max 3");
    assert_null(deploy(&at, 3));
    /* missing param: Deny action → config error; Allow → nothing to evaluate */
    put_binding("b", "p",
                "\"paramRef\":{\"name\":\"missing\",\"parameterNotFoundAction\":\"Deny\"},"
                "\"validationActions\":[\"Deny\"]");
    assert_status(deploy(&at, 1), 422, "Invalid",
                  DENIED "failed to configure binding: no params found for policy binding with `Deny` "
                         "parameterNotFoundAction");
    put_binding("b", "p",
                "\"paramRef\":{\"name\":\"missing\",\"parameterNotFoundAction\":\"Allow\"},"
                "\"validationActions\":[\"Deny\"]");
    assert_null(deploy(&at, 100));
    /* config errors deny regardless of the actions, unless the policy ignores failures */
    put_binding("b", "p",
                "\"paramRef\":{\"name\":\"missing\",\"parameterNotFoundAction\":\"Deny\"},"
                "\"validationActions\":[\"Warn\"]");
    assert_non_null(deploy(&at, 1));
    put_policy("p", "\"failurePolicy\":\"Ignore\",\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"},"
                    "\"validations\":[{\"expression\":\"object.spec.replicas <= int(params.data.max)\"}]");
    assert_null(deploy(&at, 1));
    /* a selector evaluates every selected param: the stricter one denies */
    put_policy("p", "\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"},\"validations\":[{\"expression\":"
                    "\"object.spec.replicas <= int(params.data.max)\",\"messageExpression\":\"'max ' + "
                    "params.data.max\"}]");
    put_binding("b", "p",
                "\"paramRef\":{\"selector\":{\"matchLabels\":{\"kind\":\"limit\"}},"
                "\"parameterNotFoundAction\":\"Deny\"},\"validationActions\":[\"Deny\"]");
    assert_status(deploy(&at, 5), 422, "Invalid", DENIED "max 3");
    assert_null(deploy(&at, 2));
    /* a param kind whose cache does not sync within 1 s */
    kg_admission_memcluster_set_clock(M, 0);
    kg_admission_memcluster_set_ready(M, "configmaps", false);
    assert_status(deploy(&at, 1), 422, "Invalid",
                  DENIED "failed to configure binding: paramKind kind `&ParamKind{APIVersion:v1,Kind:ConfigMap,}` not "
                         "yet synced to use for admission");
    kg_admission_memcluster_set_ready(M, "configmaps", true);
    /* a paramRef namespace elsewhere */
    put_binding("b", "p",
                "\"paramRef\":{\"name\":\"limits\",\"namespace\":\"other\",\"parameterNotFoundAction\":"
                "\"Deny\"},\"validationActions\":[\"Deny\"]");
    assert_status(deploy(&at, 1), 422, "Invalid",
                  DENIED "failed to configure binding: no params found for policy binding with `Deny` "
                         "parameterNotFoundAction");
}

static void test_variables_and_errors(void **state)
{
    kg_admission_attributes at;
    put_policy("p", "\"variables\":[{\"name\":\"r\",\"expression\":\"object.spec.replicas\"},{\"name\":\"big\","
                    "\"expression\":\"variables.r > 5\"}],\"validations\":[{\"expression\":\"!variables.big\","
                    "\"messageExpression\":\"'r=' + string(variables.r)\"}]");
    put_binding("b", "p", "\"validationActions\":[\"Deny\"]");
    assert_status(deploy(&at, 6), 422, "Invalid", DENIED "r=6");
    assert_null(deploy(&at, 5));
    /* evaluation errors: Fail denies (through the actions), Ignore admits */
    put_policy("p", "\"validations\":[{\"expression\":\"object.spec.missing > 1\"}]");
    assert_status(deploy(&at, 1), 422, "Invalid",
                  DENIED "expression 'object.spec.missing > 1' resulted in error: no such key: missing");
    put_binding("b", "p", "\"validationActions\":[\"Warn\"]");
    assert_null(deploy(&at, 1));
    assert_string_equal(W.items[0], "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': "
                                    "expression 'object.spec.missing > 1' resulted in error: no such key: missing");
    put_binding("b", "p", "\"validationActions\":[\"Deny\"]");
    put_policy("p", "\"failurePolicy\":\"Ignore\",\"validations\":[{\"expression\":\"object.spec.missing > 1\"}]");
    assert_null(deploy(&at, 1));
    /* a failing variable */
    put_policy("p", "\"variables\":[{\"name\":\"x\",\"expression\":\"object.nope\"}],\"validations\":[{"
                    "\"expression\":\"variables.x == 1\"}]");
    assert_status(deploy(&at, 1), 422, "Invalid",
                  DENIED "expression 'variables.x == 1' resulted in error: composited variable \"x\" fails to "
                         "evaluate: no such key: nope");
    /* the per-expression cost limit */
    put_policy("p", "\"validations\":[{\"expression\":\"[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, "
                    "[1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, "
                    "[1,2,3,4,5,6,7,8,9,10].all(f, true))))))\"}]");
    kg_status *st = deploy(&at, 1);
    assert_non_null(st);
    assert_non_null(strstr(st->message, "resulted in error: operation cancelled: actual cost limit exceeded"));
}

static void test_match_conditions_and_audit_annotations(void **state)
{
    kg_admission_attributes at;
    put_policy("p", "\"matchConditions\":[{\"name\":\"big-only\",\"expression\":\"object.spec.replicas > 3\"}],"
                    "\"validations\":[{\"expression\":\"false\",\"message\":\"no\"}]");
    put_binding("b", "p", "\"validationActions\":[\"Deny\"]");
    assert_null(deploy(&at, 3));
    assert_status(deploy(&at, 4), 422, "Invalid", DENIED "no");
    put_policy("p", "\"matchConditions\":[{\"name\":\"e\",\"expression\":\"object.spec.nope > 3\"}],"
                    "\"validations\":[{\"expression\":\"false\",\"message\":\"no\"}]");
    assert_status(deploy(&at, 4), 422, "Invalid",
                  DENIED "expression 'object.spec.nope > 3' resulted in error: no such key: nope");
    /* matchConditions see no namespaceObject; validations do */
    put_policy("p", "\"matchConditions\":[{\"name\":\"n\",\"expression\":\"namespaceObject == null\"}],"
                    "\"validations\":[{\"expression\":\"namespaceObject == null\",\"message\":\"has ns\"}]");
    assert_status(deploy(&at, 4), 422, "Invalid", DENIED "has ns");
    /* auditAnnotations */
    put_policy("p", "\"auditAnnotations\":[{\"key\":\"replicas\",\"valueExpression\":\"string(object.spec."
                    "replicas)\"},{\"key\":\"none\",\"valueExpression\":\"null\"}]");
    assert_null(deploy(&at, 6));
    assert_string_equal(kg_json_get_str(at.annotations, "p/replicas"), "6");
    assert_null(kg_json_get(at.annotations, "p/none"));
    /* namespaceObject and request */
    put_policy("p", "\"validations\":[{\"expression\":\"namespaceObject.metadata.labels.env == 'prod' && "
                    "request.userInfo.username == 'alice' && request.operation == 'CREATE'\"}]");
    assert_null(deploy(&at, 1));
}

static void test_binding_match_resources(void **state)
{
    kg_admission_attributes at;
    put_policy("p", "\"validations\":[{\"expression\":\"false\",\"message\":\"no\"}]");
    put_binding("b", "p",
                "\"validationActions\":[\"Deny\"],\"matchResources\":{\"objectSelector\":{"
                "\"matchLabels\":{\"app\":\"db\"}}}");
    assert_null(deploy(&at, 1));
    put_binding("b", "p",
                "\"validationActions\":[\"Deny\"],\"matchResources\":{\"objectSelector\":{"
                "\"matchLabels\":{\"app\":\"web\"}}}");
    assert_non_null(deploy(&at, 1));
    put_binding("b", "p",
                "\"validationActions\":[\"Deny\"],\"matchResources\":{\"excludeResourceRules\":[{"
                "\"apiGroups\":[\"apps\"],\"apiVersions\":[\"*\"],\"operations\":[\"*\"],\"resources\":["
                "\"deployments\"],\"resourceNames\":[\"d\"]}]}");
    assert_null(deploy(&at, 1));
    /* deleting the binding ends the denial; deleting the policy too */
    put_binding("b", "p", "\"validationActions\":[\"Deny\"]");
    assert_non_null(deploy(&at, 1));
    kg_admission_memcluster_remove(M, "validatingadmissionpolicybindings", "", "b");
    assert_null(deploy(&at, 1));
    put_binding("b", "p", "\"validationActions\":[\"Deny\"]");
    kg_admission_memcluster_remove(M, "validatingadmissionpolicies", "", "p");
    assert_null(deploy(&at, 1));
}

static void test_policy_resources_excluded(void **state)
{
    put_policy("p", "\"validations\":[{\"expression\":\"false\"}]");
    put_binding("b", "p", "\"validationActions\":[\"Deny\"]");
    kg_admission_attributes at;
    kg_admission_attrs_init(&at, &A);
    at.operation = KG_ADMISSION_CREATE;
    at.kind = at.request_kind = (kg_gvk){"admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy"};
    at.resource = at.request_resource = (kg_gvr){"admissionregistration.k8s.io", "v1", "validatingadmissionpolicies"};
    at.name = "x";
    at.object = tj(&A, "{\"metadata\":{\"name\":\"x\"}}");
    assert_true(kg_vap_request_excluded(&at));
    assert_null(kg_admission_chain_validate(C, &at));
    at.resource.resource = "validatingwebhookconfigurations";
    assert_false(kg_vap_request_excluded(&at));
}

static void test_operations_and_param_scope(void **state)
{
    /* UPDATE sees oldObject, DELETE sees object null */
    char pol[4096];
    snprintf(pol, sizeof pol,
             "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"matchConstraints\":{\"resourceRules\":[{\"apiGroups\":["
             "\"apps\"],\"apiVersions\":[\"v1\"],\"operations\":[\"UPDATE\",\"DELETE\"],\"resources\":["
             "\"deployments\"]}]},\"validations\":[{\"expression\":\"request.operation == 'DELETE' ? object == null "
             "&& oldObject.spec.replicas == 2 : object.spec.replicas >= oldObject.spec.replicas\",\"message\":"
             "\"no scaling down\"}]}}");
    tput(M, "validatingadmissionpolicies", pol, 0);
    put_binding("b", "p", "\"validationActions\":[\"Deny\"]");
    kg_admission_attributes at;
    assert_null(deploy(&at, 6)); /* CREATE is not matched */
    deploy(&at, 1);
    at.operation = KG_ADMISSION_UPDATE;
    at.old_object = tj(&A, "{\"metadata\":{\"name\":\"d\"},\"spec\":{\"replicas\":2}}");
    assert_status(kg_admission_chain_validate(C, &at), 422, "Invalid", DENIED "no scaling down");
    at.operation = KG_ADMISSION_DELETE;
    at.object = NULL;
    assert_null(kg_admission_chain_validate(C, &at));

    /* a namespaced paramKind for a cluster-scoped request needs paramRef.namespace */
    put_policy("p", "\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"},\"validations\":[{\"expression\":"
                    "\"true\"}]");
    tput(M, "validatingadmissionpolicies",
         "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"},"
         "\"matchConstraints\":{\"resourceRules\":[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"operations\":["
         "\"CREATE\"],\"resources\":[\"namespaces\"]}]},\"validations\":[{\"expression\":\"true\"}]}}",
         0);
    put_binding("b", "p",
                "\"paramRef\":{\"name\":\"limits\",\"parameterNotFoundAction\":\"Deny\"},"
                "\"validationActions\":[\"Deny\"]");
    kg_admission_attrs_init(&at, &A);
    at.operation = KG_ADMISSION_CREATE;
    at.kind = at.request_kind = (kg_gvk){"", "v1", "Namespace"};
    at.resource = at.request_resource = (kg_gvr){"", "v1", "namespaces"};
    at.name = "newns";
    at.ns = "newns";
    at.object = tj(&A, "{\"metadata\":{\"name\":\"newns\"}}");
    assert_status(kg_admission_chain_validate(C, &at), 422, "Invalid",
                  "namespaces \"newns\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "
                  "failed to configure binding: no params found for policy binding with `Deny` "
                  "parameterNotFoundAction");
    at.ns = ""; /* as a cluster-scoped object would */
    at.kind = at.request_kind = (kg_gvk){"", "v1", "Thing"};
    assert_status(kg_admission_chain_validate(C, &at), 422, "Invalid",
                  "namespaces \"newns\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "
                  "failed to configure binding: cannot use namespaced paramRef in policy binding that matches "
                  "cluster-scoped resources");
}

static void test_metrics(void **state)
{
    kg_metrics_registry *r = kg_metrics_registry_new();
    kg_apiserver_metrics am = {.registry = r};
    kg_admission_services ms = kg_admission_memcluster_services(M, &am);
    kg_admission_chain_free(C);
    C = chain1(&kg_admission_plugin_validating_admission_policy, NULL, &ms);
    put_policy("p", "\"validations\":[{\"expression\":\"object.spec.replicas <= 5\"}]");
    put_binding("b", "p", "\"validationActions\":[\"Deny\",\"Audit\"]");
    kg_admission_attributes at;
    assert_non_null(deploy(&at, 6));
    assert_null(deploy(&at, 1));
    kg_metric *total = kg_metrics_find(r, "apiserver_validating_admission_policy_check_total");
    kg_metric *dur = kg_metrics_find(r, "apiserver_validating_admission_policy_check_duration_seconds");
    assert_non_null(total);
    assert_non_null(dur);
    assert_true(kg_metric_value(total, (const char *const[]){"p", "b", "invalid_error", "deny"}) == 1);
    assert_true(kg_metric_value(total, (const char *const[]){"p", "b", "invalid_error", "audit"}) == 1);
    assert_int_equal(kg_metric_hist_count(dur, (const char *const[]){"p", "b", "invalid_error", "deny"}), 1);
    /* errors under Ignore are admits */
    put_policy("p", "\"failurePolicy\":\"Ignore\",\"validations\":[{\"expression\":\"object.nope == 1\"}]");
    assert_null(deploy(&at, 1));
    assert_true(kg_metric_value(total, (const char *const[]){"p", "b", "invalid_error", "allow"}) == 1);
    kg_buf b = KG_BUF_INIT;
    kg_metrics_write(r, &b);
    assert_non_null(strstr(b.data, "apiserver_validating_admission_policy_check_total{enforcement_action=\"deny\","
                                   "error_type=\"invalid_error\",policy=\"p\",policy_binding=\"b\"} 1"));
    kg_buf_free(&b);
    kg_admission_chain_free(C);
    C = chain1(&kg_admission_plugin_validating_admission_policy, NULL, &S);
    kg_metrics_registry_free(r);
}

/* Policies that cannot be listed yet: requests are refused (upstream's WaitForReady), and the next one retries. */
static void test_not_ready(void **state)
{
    put_policy("p", "\"validations\":[{\"expression\":\"false\",\"message\":\"no\"}]");
    put_binding("b", "p", "\"validationActions\":[\"Deny\"]");
    kg_faulty_services *fs = kg_faulty_services_new(&S);
    kg_admission_services fsvc = kg_faulty_services_get(fs);
    kg_admission_chain_free(C);
    C = chain1(&kg_admission_plugin_validating_admission_policy, NULL, &fsvc);
    kg_faulty_fail_reads(fs, "validatingadmissionpolicybindings", 0, KG_EIO);
    kg_admission_attributes at;
    assert_status(deploy(&at, 1), 403, "Forbidden",
                  "deployments.apps \"d\" is forbidden: not yet ready to handle request");
    kg_faulty_fail_reads(fs, "validatingadmissionpolicybindings", 0, KG_OK);
    assert_status(deploy(&at, 1), 422, "Invalid", DENIED "no");
    kg_admission_chain_free(C);
    C = chain1(&kg_admission_plugin_validating_admission_policy, NULL, &S);
    kg_faulty_services_free(fs);
}

/* Requests on several threads while another rewrites the policy: every verdict is one of the two policies'. */
static atomic_bool stop;

static void *requester(void *arg)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    int bad = 0;
    while (!atomic_load(&stop)) {
        kg_admission_attributes at;
        kg_admission_attrs_init(&at, &a);
        at.operation = KG_ADMISSION_CREATE;
        at.kind = at.request_kind = (kg_gvk){"apps", "v1", "Deployment"};
        at.resource = at.request_resource = (kg_gvr){"apps", "v1", "deployments"};
        at.ns = "default";
        at.name = "d";
        at.object = tj(&a, "{\"metadata\":{\"name\":\"d\"},\"spec\":{\"replicas\":6}}");
        kg_status *st = kg_admission_chain_validate(C, &at);
        if (st && strcmp(st->message, DENIED "one") && strcmp(st->message, DENIED "two"))
            bad++;
        kg_arena_reset(&a);
    }
    kg_arena_free(&a);
    return (void *)(intptr_t)bad;
}

static void test_concurrent_updates(void **state)
{
    put_policy("p", "\"validations\":[{\"expression\":\"false\",\"message\":\"one\"}]");
    put_binding("b", "p", "\"validationActions\":[\"Deny\"]");
    kg_admission_attributes at;
    assert_non_null(deploy(&at, 1)); /* loaded */
    atomic_store(&stop, false);
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, requester, NULL);
    for (int i = 0; i < 40; i++)
        put_policy("p", i % 2 ? "\"validations\":[{\"expression\":\"false\",\"message\":\"one\"}]"
                              : "\"validations\":[{\"expression\":\"object.spec.replicas < 2\",\"message\":\"two\"}]");
    atomic_store(&stop, true);
    int bad = 0;
    for (int i = 0; i < 3; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad += (int)(intptr_t)r;
    }
    assert_int_equal(bad, 0);
    assert_status(deploy(&at, 1), 422, "Invalid", DENIED "one");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_deny, setup, teardown),
        cmocka_unit_test_setup_teardown(test_warn_and_audit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_params, setup, teardown),
        cmocka_unit_test_setup_teardown(test_variables_and_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_match_conditions_and_audit_annotations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_binding_match_resources, setup, teardown),
        cmocka_unit_test_setup_teardown(test_policy_resources_excluded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_operations_and_param_scope, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metrics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_ready, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_updates, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
