/* The MutatingAdmissionPolicy plugin (src/admission/policy/mutating) driven through a one-plugin chain over an
 * in-memory cluster: write-time validation with upstream's field paths and messages, JSONPatch (with
 * jsonpatch.escapeKey, failing `test` ops as no-ops, patch errors), ApplyConfiguration merges by list type (map
 * lists by key, sets, atomic lists replaced, null removals), params, variables, matchConditions, failurePolicy,
 * reinvocation (IfNeeded against Never) and idempotence, the feature gate, and recompilation on change. */
#include "../plugin_testutil.h"

#include "admission/policy/mutating/mutating.h"
#include "base/buf.h"

static kg_arena A;
static kg_admission_memcluster *M;
static kg_admission_services S;
static kg_admission_chain *C;

/* The list types of the test schema (the server reads them from its OpenAPI schemas). */
static kg_admission_list_type list_type(void *ctx, const kg_gvk *kind, const char *const *path, size_t n,
                                        const char **keys)
{
    (void)ctx;
    (void)kind;
    const char *last = n ? path[n - 1] : "";
    if (!strcmp(last, "containers") || !strcmp(last, "env")) {
        *keys = "name";
        return KG_ADMISSION_LIST_MAP;
    }
    if (!strcmp(last, "ports")) {
        *keys = "containerPort,protocol";
        return KG_ADMISSION_LIST_MAP;
    }
    if (!strcmp(last, "finalizers"))
        return KG_ADMISSION_LIST_SET;
    return KG_ADMISSION_LIST_ATOMIC;
}

/* The test schema's unknown fields: a top-level "bogus". */
static bool unknown_field(void *ctx, kg_arena *a, const kg_gvk *kind, const kg_json *obj, const char **path)
{
    (void)ctx;
    (void)a;
    (void)kind;
    if (!kg_json_get(obj, "bogus"))
        return false;
    *path = "bogus";
    return true;
}

static int setup(void **state)
{
    (void)state;
    kg_arena_init(&A, 0);
    M = kg_admission_memcluster_new();
    kg_admission_memcluster_set_feature(M, "MutatingAdmissionPolicy", true);
    S = kg_admission_memcluster_services(M, NULL);
    S.list_type = list_type;
    S.unknown_field = unknown_field;
    tput(M, "namespaces", "{\"metadata\":{\"name\":\"default\",\"labels\":{\"inject\":\"yes\"}}}", 0);
    C = chain1(&kg_admission_plugin_mutating_admission_policy, NULL, &S);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kg_admission_chain_free(C);
    kg_admission_memcluster_free(M);
    kg_arena_free(&A);
    return 0;
}

#define RULES_PODS                                                                                                     \
    "\"matchConstraints\":{\"resourceRules\":[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"operations\":["         \
    "\"CREATE\",\"UPDATE\"],\"resources\":[\"pods\"]}]}"

static void put_policy(const char *name, const char *spec_rest)
{
    char buf[8192];
    snprintf(buf, sizeof buf,
             "{\"apiVersion\":\"admissionregistration.k8s.io/v1beta1\",\"kind\":\"MutatingAdmissionPolicy\","
             "\"metadata\":{\"name\":\"%s\"},\"spec\":{\"failurePolicy\":\"Fail\",\"reinvocationPolicy\":"
             "\"Never\"," RULES_PODS ",%s}}",
             name, spec_rest);
    tput(M, "mutatingadmissionpolicies", buf, 0);
}

static void put_binding(const char *name, const char *policy, const char *spec_rest)
{
    char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"apiVersion\":\"admissionregistration.k8s.io/v1beta1\",\"kind\":\"MutatingAdmissionPolicyBinding\","
             "\"metadata\":{\"name\":\"%s\"},\"spec\":{\"policyName\":\"%s\"%s%s}}",
             name, policy, *spec_rest ? "," : "", spec_rest);
    tput(M, "mutatingadmissionpolicybindings", buf, 0);
}

#define POD                                                                                                            \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"labels\":{"      \
    "\"app\":\"web\"},\"finalizers\":[\"a\"]},\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"app:1\","        \
    "\"args\":[\"x\"],\"ports\":[{\"containerPort\":80,\"protocol\":\"TCP\"}]}]}}"

static kg_status *admit_pod(kg_admission_attributes *at, const char *pod)
{
    kg_admission_attrs_init(at, &A);
    at->operation = KG_ADMISSION_CREATE;
    at->kind = at->request_kind = (kg_gvk){"", "v1", "Pod"};
    at->resource = at->request_resource = (kg_gvr){"", "v1", "pods"};
    at->ns = "default";
    at->name = "p";
    at->object = tj(&A, pod);
    at->user = (kg_admission_user){.name = "alice"};
    return kg_admission_chain_admit(C, at);
}

#define JSONPATCH(e) "\"mutations\":[{\"patchType\":\"JSONPatch\",\"jsonPatch\":{\"expression\":\"" e "\"}}]"
#define APPLY(e)                                                                                                       \
    "\"mutations\":[{\"patchType\":\"ApplyConfiguration\",\"applyConfiguration\":{\"expression\":\"" e "\"}}]"

/* ---- validation on write ---- */

static const char *validate_policy(const char *json)
{
    kg_field_errors errs = {0};
    kg_json *o = tj(&A, json);
    kg_map_policy_defaults(&A, o);
    kg_map_policy_validate(&A, o, NULL, &errs);
    kg_buf b = KG_BUF_INIT;
    for (size_t i = 0; i < errs.len; i++)
        kg_buf_printf(&b, "%s%s", i ? "\n" : "", kg_field_error_string(&A, &errs.items[i]));
    const char *s = kg_arena_strdup(&A, b.data ? b.data : "");
    kg_buf_free(&b);
    return s;
}

#define POLICY_JSON(spec) "{\"metadata\":{\"name\":\"p\"},\"spec\":{" RULES_PODS "," spec "}}"

static void test_validation(void **state)
{
    (void)state;
    assert_string_equal(validate_policy(POLICY_JSON(JSONPATCH("[JSONPatch{op: 'add', path: '/a', value: 1}]"))), "");
    assert_string_equal(validate_policy(POLICY_JSON(APPLY("Object{metadata: Object.metadata{labels: {'a': 'b'}}}"))),
                        "");
    assert_string_equal(validate_policy(POLICY_JSON("\"mutations\":[]")),
                        "spec.mutations: Required value: mutations must contain at least one item");
    assert_string_equal(validate_policy(POLICY_JSON("\"mutations\":[{\"patchType\":\"Merge\"}]")),
                        "spec.mutations[0].patchType: Unsupported value: \"Merge\": supported values: "
                        "\"ApplyConfiguration\", \"JSONPatch\"");
    assert_string_equal(validate_policy(POLICY_JSON("\"mutations\":[{\"jsonPatch\":{\"expression\":\"[]\"}}]")),
                        "spec.mutations[0].patchType: Required value");
    assert_string_equal(validate_policy(POLICY_JSON("\"mutations\":[{\"patchType\":\"ApplyConfiguration\","
                                                    "\"jsonPatch\":{\"expression\":\"[]\"}}]")),
                        "spec.mutations[0].applyConfiguration: Required value: must be specified when patchType is "
                        "ApplyConfiguration\nspec.mutations[0].jsonPatch: Invalid value: \"{jsonPatch}\": must not be "
                        "specified when patchType is ApplyConfiguration");
    assert_string_equal(validate_policy(POLICY_JSON(JSONPATCH("object.("))),
                        "spec.mutations[0].jsonPatch.expression: Invalid value: \"object.(\": compilation failed: "
                        "ERROR: <input>:1:8: Syntax error: no viable alternative at input '.('\n | object.(\n | "
                        ".......^");
    assert_string_equal(validate_policy(POLICY_JSON(APPLY("'teapot'"))),
                        "spec.mutations[0].applyConfiguration.expression: Invalid value: \"'teapot'\": must evaluate "
                        "to Object but got string");
    assert_string_equal(validate_policy(POLICY_JSON(JSONPATCH("   "))),
                        "spec.mutations[0].jsonPatch.expression: Required value");
    assert_string_equal(
        validate_policy("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"reinvocationPolicy\":\"Always\","
                        "\"matchConstraints\":{\"resourceRules\":[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],"
                        "\"operations\":[\"DELETE\"],\"resources\":[\"pods\"]}]}," JSONPATCH("[]") "}}"),
        "spec.matchConstraints.resourceRules.operations: Unsupported value: \"DELETE\": supported values: \"*\", "
        "\"CONNECT\", \"CREATE\", \"UPDATE\"\nspec.reinvocationPolicy: Unsupported value: \"Always\": supported "
        "values: \"IfNeeded\", \"Never\"");
    /* the parts shared with ValidatingAdmissionPolicy */
    assert_string_equal(validate_policy("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"failurePolicy\":\"Maybe\","
                                        "\"paramKind\":{\"kind\":\"ConfigMap\"}," JSONPATCH("[]") "}}"),
                        "spec.failurePolicy: Unsupported value: \"Maybe\": supported values: \"Fail\", \"Ignore\"\n"
                        "spec.paramKind.apiVersion: Required value\nspec.matchConstraints: Required value");
    assert_string_equal(
        validate_policy(POLICY_JSON("\"variables\":[{\"name\":\"in\",\"expression\":\"1\"}],"
                                    "\"matchConditions\":[{\"name\":\"m\",\"expression\":\"1\"}]," JSONPATCH("[]"))),
        "spec.matchConditions[0].expression: Invalid value: \"1\": must evaluate to bool but got int\n"
        "spec.variables[0].name: Invalid value: \"in\": name is not a valid CEL identifier");
    /* variables see the mutation types */
    assert_string_equal(validate_policy(POLICY_JSON("\"variables\":[{\"name\":\"l\",\"expression\":\"Object."
                                                    "metadata{labels: {'a': 'b'}}\"}]," APPLY("Object{metadata: "
                                                                                              "variables.l}"))),
                        "");
    /* defaults */
    kg_json *o = tj(&A, POLICY_JSON(JSONPATCH("[]")));
    kg_map_policy_defaults(&A, o);
    assert_string_equal(kg_json_path_str(o, "spec.failurePolicy"), "Fail");
    assert_string_equal(kg_json_path_str(o, "spec.reinvocationPolicy"), "Never");
    assert_string_equal(kg_json_path_str(o, "spec.matchConstraints.matchPolicy"), "Equivalent");
    /* bindings: no validationActions; paramRef rules and defaults as VAP's */
    kg_field_errors errs = {0};
    kg_json *b = tj(&A, "{\"metadata\":{\"name\":\"b\"},\"spec\":{\"policyName\":\"p\",\"paramRef\":{\"name\":\"x\","
                        "\"selector\":{}}}}");
    kg_map_binding_defaults(&A, b);
    assert_string_equal(kg_json_path_str(b, "spec.paramRef.parameterNotFoundAction"), "Deny");
    kg_map_binding_validate(&A, b, NULL, &errs);
    assert_int_equal(errs.len, 2);
    assert_string_equal(kg_field_error_string(&A, &errs.items[0]),
                        "spec.paramRef.name: Forbidden: name and selector are mutually exclusive");
    errs = (kg_field_errors){0};
    kg_map_binding_validate(&A, tj(&A, "{\"metadata\":{\"name\":\"b\"},\"spec\":{\"policyName\":\"p\"}}"), NULL, &errs);
    assert_int_equal(errs.len, 0);
}

/* ---- JSONPatch ---- */

static void test_json_patch(void **state)
{
    (void)state;
    kg_admission_attributes at;
    put_policy("p", JSONPATCH("[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/"
                              "team'), value: 'blue'}]"));
    assert_null(admit_pod(&at, POD)); /* no binding yet */
    assert_null(kg_json_path_str(at.object, "metadata.labels.example\\.com/team"));
    put_binding("b", "p", "");
    assert_null(admit_pod(&at, POD));
    assert_string_equal(kg_json_get_str(kg_json_path(at.object, "metadata.labels"), "example.com/team"), "blue");
    assert_string_equal(kg_json_get_str(kg_json_path(at.object, "metadata.labels"), "app"), "web");
    /* a failing test op makes the whole patch a no-op */
    put_policy("p", JSONPATCH("[JSONPatch{op: 'add', path: '/metadata/labels/x', value: 'y'}, JSONPatch{op: "
                              "'test', path: '/metadata/name', value: 'other'}]"));
    assert_null(admit_pod(&at, POD));
    assert_json(&A, at.object, POD);
    /* other patch errors are policy errors */
    put_policy("p", JSONPATCH("[JSONPatch{op: 'remove', path: '/spec/nope'}]"));
    kg_status *st = admit_pod(&at, POD);
    assert_status(st, 403, "Invalid",
                  "policy 'p' with binding 'b' denied request: JSON Patch: error in remove for path: '/spec/nope': "
                  "Unable to remove nonexistent key: nope: missing value");
    assert_json(&A, at.object, POD);
    put_policy("p", JSONPATCH("[JSONPatch{op: 'replace', path: '/spec/containers/0/image', value: 'app:' + "
                              "string(size(object.spec.containers))}]"));
    assert_null(admit_pod(&at, POD));
    assert_string_equal(kg_json_path_str(kg_json_at(kg_json_path(at.object, "spec.containers"), 0), "image"), "app:1");
}

/* ---- ApplyConfiguration ---- */

static void test_apply_configuration(void **state)
{
    (void)state;
    kg_admission_attributes at;
    put_binding("b", "p", "");
    /* map list by key: an existing container merges, a new one is appended; nested map list (ports) by its keys */
    put_policy("p", APPLY("Object{spec: Object.spec{containers: [Object.spec.containers{name: 'app', ports: "
                          "[Object.spec.containers.ports{containerPort: 80, protocol: 'TCP', name: 'http'}, "
                          "Object.spec.containers.ports{containerPort: 443, protocol: 'TCP'}]}, "
                          "Object.spec.containers{name: 'sidecar', image: 'log:1'}]}}"));
    assert_null(admit_pod(&at, POD));
    assert_json(&A, kg_json_path(at.object, "spec.containers"),
                "[{\"name\":\"app\",\"image\":\"app:1\",\"args\":[\"x\"],\"ports\":[{\"containerPort\":80,"
                "\"protocol\":\"TCP\",\"name\":\"http\"},{\"containerPort\":443,\"protocol\":\"TCP\"}]},"
                "{\"name\":\"sidecar\",\"image\":\"log:1\"}]");
    /* idempotent: the same configuration again leaves the object as it is */
    kg_json *once = kg_json_clone(&A, at.object);
    assert_null(kg_admission_chain_admit(C, &at));
    assert_true(kg_json_equal(once, at.object));
    /* set: values not present are added; atomic: replaced */
    put_policy("p", APPLY("Object{metadata: Object.metadata{finalizers: ['a', 'b']}, spec: Object.spec{containers: "
                          "[Object.spec.containers{name: 'app', args: ['y', 'z']}]}}"));
    kg_status *st = admit_pod(&at, POD);
    if (st)
        fail_msg("%s", st->message);
    assert_json(&A, kg_json_path(at.object, "metadata.finalizers"), "[\"a\",\"b\"]");
    assert_json(&A, kg_json_path(kg_json_at(kg_json_path(at.object, "spec.containers"), 0), "args"), "[\"y\",\"z\"]");
    /* null removes a field; maps merge */
    put_policy("p", APPLY("Object{metadata: Object.metadata{labels: {'app': dyn(null), 'tier': dyn('front')}}, spec: "
                          "Object.spec{containers: [Object.spec.containers{name: 'app', args: null}]}}"));
    st = admit_pod(&at, POD);
    if (st)
        fail_msg("%s", st->message);
    assert_json(&A, kg_json_path(at.object, "metadata.labels"), "{\"tier\":\"front\"}");
    assert_null(kg_json_get(kg_json_at(kg_json_path(at.object, "spec.containers"), 0), "args"));
    /* struct literals are named after their field path (upstream's type check) */
    put_policy("p", APPLY("Object{spec: Object.specx{containers: [Object.spec.containers{name: 'app'}]}}"));
    assert_status(admit_pod(&at, POD), 403, "Invalid",
                  "policy 'p' with binding 'b' denied request: type mismatch: unexpected type name \"Object.specx\", "
                  "expected \"Object.spec\", which matches field name path from root Object type");
    put_policy("p", APPLY("Object{spec: Object.spec{containers: [Object.spec.container{name: 'app'}]}}"));
    assert_status(admit_pod(&at, POD), 403, "Invalid",
                  "policy 'p' with binding 'b' denied request: type mismatch: unexpected type name "
                  "\"Object.spec.container\", expected \"Object.spec.containers\", which matches field name path "
                  "from root Object type");
    assert_json(&A, at.object, POD);
    /* fields the kind's schema does not declare */
    put_policy("p", APPLY("Object{bogus: 1}"));
    assert_status(admit_pod(&at, POD), 403, "Invalid",
                  "policy 'p' with binding 'b' denied request: error applying patch: failed to convert patch object to "
                  "typed object: .bogus: field not declared in schema");
    /* a result that is not an Object */
    put_policy("p", "\"mutations\":[{\"patchType\":\"ApplyConfiguration\",\"applyConfiguration\":{\"expression\":"
                    "\"object.metadata\"}}]");
    assert_status(admit_pod(&at, POD), 403, "Invalid",
                  "policy 'p' with binding 'b' denied request: unsupported return type from ApplyConfiguration "
                  "expression: map");
}

/* ---- params, variables, matchConditions, failurePolicy ---- */

static void test_params_and_failure(void **state)
{
    (void)state;
    kg_admission_attributes at;
    tput(M, "configmaps", "{\"metadata\":{\"name\":\"team\",\"namespace\":\"default\"},\"data\":{\"team\":\"blue\"}}",
         0);
    put_policy("p", "\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"},\"variables\":[{\"name\":\"team\","
                    "\"expression\":\"params.data.team\"}],\"matchConditions\":[{\"name\":\"web\",\"expression\":"
                    "\"object.metadata.labels.app == 'web'\"}]," APPLY("Object{metadata: Object.metadata{labels: "
                                                                       "{'team': variables.team}}}"));
    put_binding("b", "p", "\"paramRef\":{\"name\":\"team\",\"parameterNotFoundAction\":\"Deny\"}");
    assert_null(admit_pod(&at, POD));
    assert_string_equal(kg_json_path_str(at.object, "metadata.labels.team"), "blue");
    /* matchConditions false: skipped */
    char other[1024];
    snprintf(other, sizeof other, "%s", POD);
    memcpy(strstr(other, "\"web\""), "\"api\"", 5);
    assert_null(admit_pod(&at, other));
    assert_null(kg_json_path_str(at.object, "metadata.labels.team"));
    /* a missing param with Deny: a configuration error under Fail */
    put_binding("b", "p", "\"paramRef\":{\"name\":\"nope\",\"parameterNotFoundAction\":\"Deny\"}");
    assert_status(admit_pod(&at, POD), 403, "Invalid",
                  "policy 'p' with binding 'b' denied request: failed to configure binding: no params found for "
                  "policy binding with `Deny` parameterNotFoundAction");
    put_binding("b", "p", "\"paramRef\":{\"name\":\"nope\",\"parameterNotFoundAction\":\"Allow\"}");
    assert_null(admit_pod(&at, POD));
    assert_json(&A, at.object, POD);
    /* evaluation errors: Fail denies, Ignore admits the object untouched */
    put_binding("b", "p", "");
    put_policy("p", APPLY("Object{metadata: Object.metadata{labels: {'n': string(object.spec.nope)}}}"));
    assert_status(admit_pod(&at, POD), 403, "Invalid",
                  "policy 'p' with binding 'b' denied request: expression 'Object{metadata: Object.metadata{labels: "
                  "{'n': string(object.spec.nope)}}}' resulted in error: no such key: nope");
    tput(M, "mutatingadmissionpolicies",
         "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"failurePolicy\":\"Ignore\",\"reinvocationPolicy\":"
         "\"Never\"," RULES_PODS
         "," JSONPATCH("[JSONPatch{op: 'add', path: '/metadata/labels/n', value: object.spec.nope}]") "}}",
         0);
    assert_null(admit_pod(&at, POD));
    assert_json(&A, at.object, POD);
}

/* ---- reinvocation ---- */

static void test_reinvocation(void **state)
{
    (void)state;
    kg_admission_attributes at;
    /* "a" counts the containers into an annotation; "b" (after it) adds a sidecar: with IfNeeded, "a" runs again
     * and sees two */
    tput(M, "mutatingadmissionpolicies",
         "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"failurePolicy\":\"Fail\",\"reinvocationPolicy\":"
         "\"IfNeeded\"," RULES_PODS "," APPLY("Object{metadata: Object.metadata{annotations: {'containers': "
                                              "string(size(object.spec.containers))}}}") "}}",
         0);
    put_policy("b", APPLY("Object{spec: Object.spec{containers: [Object.spec.containers{name: 'sidecar', image: "
                          "'log:1'}]}}"));
    put_binding("ba", "a", "");
    put_binding("bb", "b", "");
    assert_null(admit_pod(&at, POD));
    assert_true(at.is_reinvoke);
    assert_string_equal(kg_json_path_str(at.object, "metadata.annotations.containers"), "2");
    assert_int_equal(kg_json_path(at.object, "spec.containers")->len, 2);
    /* idempotent under a further run */
    kg_json *once = kg_json_clone(&A, at.object);
    at.is_reinvoke = false;
    assert_null(kg_admission_chain_admit(C, &at));
    assert_true(kg_json_equal(once, at.object));
    /* with Never, "a" keeps what it saw first */
    tput(M, "mutatingadmissionpolicies",
         "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"failurePolicy\":\"Fail\",\"reinvocationPolicy\":"
         "\"Never\"," RULES_PODS "," APPLY("Object{metadata: Object.metadata{annotations: {'containers': "
                                           "string(size(object.spec.containers))}}}") "}}",
         0);
    assert_null(admit_pod(&at, POD));
    assert_string_equal(kg_json_path_str(at.object, "metadata.annotations.containers"), "1");
    kg_admission_memcluster_remove(M, "mutatingadmissionpolicies", "", "a");
    assert_null(admit_pod(&at, POD));
    assert_null(kg_json_path(at.object, "metadata.annotations"));
}

/* A later mutator (as a webhook would) that adds a label on the first round and asks for reinvocation. */
static kg_status *late_admit(void *state, kg_admission_attributes *at, const kg_admission_services *svc)
{
    (void)state;
    (void)svc;
    if (!at->is_reinvoke) {
        kg_json *labels = kg_json_path(at->object, "metadata.labels");
        kg_json_set(at->arena, labels, "late", kg_json_new_str(at->arena, "yes"));
        at->reinvoke_requested = true;
    }
    return NULL;
}

static const kg_admission_plugin late_plugin = {.name = "Late", .handles = KG_ADMISSION_ALL_OPS, .admit = late_admit};

static void test_reinvocation_by_a_later_plugin(void **state)
{
    (void)state;
    const kg_admission_plugin *ps[] = {&kg_admission_plugin_mutating_admission_policy, &late_plugin};
    const kg_json *cfgs[] = {NULL, NULL};
    kg_error e = {0};
    kg_admission_chain_free(C);
    C = kg_admission_chain_new_from(ps, 2, cfgs, &S, NULL, &e);
    assert_non_null(C);
    const char *count = APPLY("Object{metadata: Object.metadata{annotations: {'labels': "
                              "string(size(object.metadata.labels))}}}");
    char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"failurePolicy\":\"Fail\",\"reinvocationPolicy\":"
             "\"IfNeeded\"," RULES_PODS ",%s}}",
             count);
    tput(M, "mutatingadmissionpolicies", buf, 0);
    put_binding("b", "a", "");
    kg_admission_attributes at;
    assert_null(admit_pod(&at, POD));
    assert_true(at.is_reinvoke);
    /* round 1: the object changed after the policy ran, so the IfNeeded policy ran again and saw the label */
    assert_string_equal(kg_json_path_str(at.object, "metadata.annotations.labels"), "2");
    put_policy("a", count); /* reinvocationPolicy Never */
    assert_null(admit_pod(&at, POD));
    assert_string_equal(kg_json_path_str(at.object, "metadata.annotations.labels"), "1");
    assert_string_equal(kg_json_path_str(at.object, "metadata.labels.late"), "yes");
}

static void test_metrics(void **state)
{
    (void)state;
    kg_metrics_registry *r = kg_metrics_registry_new();
    kg_apiserver_metrics am = {.registry = r};
    kg_admission_services ms = kg_admission_memcluster_services(M, &am);
    ms.list_type = list_type;
    kg_admission_chain_free(C);
    C = chain1(&kg_admission_plugin_mutating_admission_policy, NULL, &ms);
    put_policy("p", JSONPATCH("[JSONPatch{op: 'add', path: '/metadata/labels/x', value: 'y'}]"));
    put_binding("b", "p", "");
    kg_admission_attributes at;
    assert_null(admit_pod(&at, POD));
    put_policy("p", JSONPATCH("[JSONPatch{op: 'add', path: '/metadata/labels/x', value: object.nope}]"));
    assert_non_null(admit_pod(&at, POD));
    kg_metric *total = kg_metrics_find(r, "apiserver_mutating_admission_policy_check_total");
    kg_metric *dur = kg_metrics_find(r, "apiserver_mutating_admission_policy_check_duration_seconds");
    assert_non_null(total);
    assert_non_null(dur);
    assert_true(kg_metric_value(total, (const char *const[]){"p", "b", "no_error"}) == 1);
    assert_true(kg_metric_value(total, (const char *const[]){"p", "b", "invalid_error"}) == 1);
    assert_int_equal(kg_metric_hist_count(dur, (const char *const[]){"p", "b", "no_error"}), 1);
    kg_buf b = KG_BUF_INIT;
    kg_metrics_write(r, &b);
    assert_non_null(strstr(b.data, "apiserver_mutating_admission_policy_check_total{error_type=\"no_error\",policy="
                                   "\"p\",policy_binding=\"b\"} 1"));
    kg_buf_free(&b);
    kg_admission_chain_free(C);
    C = chain1(&kg_admission_plugin_mutating_admission_policy, NULL, &S);
    kg_metrics_registry_free(r);
}

static void test_gate_off(void **state)
{
    (void)state;
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_services s = kg_admission_memcluster_services(m, NULL);
    tput(m, "mutatingadmissionpolicies",
         "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"failurePolicy\":\"Fail\",\"reinvocationPolicy\":"
         "\"Never\"," RULES_PODS "," JSONPATCH("[JSONPatch{op: 'add', path: '/metadata/labels/x', value: 'y'}]") "}}",
         0);
    tput(m, "mutatingadmissionpolicybindings", "{\"metadata\":{\"name\":\"b\"},\"spec\":{\"policyName\":\"p\"}}", 0);
    kg_admission_chain *c = chain1(&kg_admission_plugin_mutating_admission_policy, NULL, &s);
    kg_admission_attributes at;
    kg_admission_attrs_init(&at, &A);
    at.operation = KG_ADMISSION_CREATE;
    at.kind = at.request_kind = (kg_gvk){"", "v1", "Pod"};
    at.resource = at.request_resource = (kg_gvr){"", "v1", "pods"};
    at.ns = "default";
    at.name = "p";
    at.object = tj(&A, POD);
    assert_null(kg_admission_chain_admit(c, &at));
    assert_json(&A, at.object, POD);
    kg_admission_chain_free(c);
    kg_admission_memcluster_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_patch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_apply_configuration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_params_and_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reinvocation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reinvocation_by_a_later_plugin, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metrics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gate_off, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
