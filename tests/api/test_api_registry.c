/* Resource registry, discovery, defaulting, validation and table printing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "api/defaults.h"
#include "api/openapi.h"
#include "api/resources.h"
#include "api/table.h"
#include "api/validation.h"

static kg_arena A;
static int setup(void **s)
{
    kg_arena_init(&A, 0);
    return 0;
}
static int teardown(void **s)
{
    kg_arena_free(&A);
    return 0;
}

static kg_json *J(const char *s)
{
    kg_error err;
    kg_json *v = kg_json_parse(&A, s, strlen(s), &err);
    if (!v)
        fail_msg("bad test JSON: %s", err.msg);
    return v;
}

static const char *S(const kg_json *v) { return kg_json_to_string(&A, v, KG_JSON_WRITE_NO_ESCAPE_HTML, NULL); }

static void registry_lookup_and_keys(void **state)
{
    const kg_resource *d = kg_resource_find("apps", "v1", "deployments");
    assert_non_null(d);
    assert_string_equal(d->kind, "Deployment");
    assert_string_equal(d->list_kind, "DeploymentList");
    assert_string_equal(d->api_version, "apps/v1");
    assert_true(d->namespaced);
    assert_string_equal(kg_resource_key(&A, d, "ns1", "web"), "/registry/apps/deployments/ns1/web");
    const kg_resource *ns = kg_resource_find("", "v1", "namespaces");
    assert_string_equal(kg_resource_key(&A, ns, "", "team"), "/registry/namespaces/team");
    assert_null(kg_resource_find("", "v1", "deployments"));
    assert_non_null(kg_resource_subresource(d, "scale"));
    assert_null(kg_resource_subresource(d, "binding"));
    /* every resource the issue lists is served */
    static const char *const want[][3] = {
        {"", "v1", "endpoints"},           {"apps", "v1", "daemonsets"},
        {"batch", "v1", "cronjobs"},       {"networking.k8s.io", "v1", "ingressclasses"},
        {"node.k8s.io", "v1", "runtimeclasses"}, {"certificates.k8s.io", "v1", "certificatesigningrequests"},
        {"admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings"},
        {"rbac.authorization.k8s.io", "v1", "clusterrolebindings"}, {"coordination.k8s.io", "v1", "leases"},
        {"events.k8s.io", "v1", "events"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_non_null(kg_resource_find(want[i][0], want[i][1], want[i][2]));
}

static void discovery_documents(void **state)
{
    kg_json *list = kg_discovery_resource_list(&A, "", "v1");
    assert_string_equal(kg_json_get_str(list, "kind"), "APIResourceList");
    assert_string_equal(kg_json_get_str(list, "groupVersion"), "v1");
    kg_json *res = kg_json_get(list, "resources");
    bool pods = false, status = false;
    for (uint32_t i = 0; i < res->len; i++) {
        const char *n = kg_json_get_str(res->u.items[i], "name");
        if (!strcmp(n, "pods")) {
            pods = true;
            assert_string_equal(S(kg_json_get(res->u.items[i], "shortNames")), "[\"po\"]");
            assert_string_equal(S(kg_json_get(res->u.items[i], "verbs")),
                                "[\"create\",\"delete\",\"deletecollection\",\"get\",\"list\",\"patch\",\"update\","
                                "\"watch\"]");
        }
        if (!strcmp(n, "pods/status"))
            status = true;
    }
    assert_true(pods && status);
    kg_json *groups = kg_discovery_api_groups(&A);
    assert_string_equal(kg_json_get_str(groups, "kind"), "APIGroupList");
    assert_true(kg_json_get(groups, "groups")->len >= 10);
    kg_json *apps = kg_discovery_api_group(&A, "apps");
    assert_string_equal(kg_json_path_str(apps, "preferredVersion.groupVersion"), "apps/v1");
    assert_null(kg_discovery_api_group(&A, "nope.example.com"));
    assert_null(kg_discovery_resource_list(&A, "apps", "v2"));
    kg_json *agg = kg_discovery_aggregated(&A, false);
    assert_string_equal(kg_json_get_str(agg, "kind"), "APIGroupDiscoveryList");
}

static void pod_defaults_like_upstream(void **state)
{
    const kg_resource *r = kg_resource_find("", "v1", "pods");
    kg_json *pod = J("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":["
                     "{\"name\":\"a\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":80}]},"
                     "{\"name\":\"b\",\"image\":\"nginx:1.25\",\"resources\":{\"limits\":{\"cpu\":\"1\"}}},"
                     "{\"name\":\"c\",\"image\":\"reg:5000/x@sha256:abc\"}],"
                     "\"volumes\":[{\"name\":\"v\",\"configMap\":{\"name\":\"cm\"}},{\"name\":\"w\"},"
                     "{\"name\":\"x\",\"hostPath\":null}]}}");
    kg_api_default(&A, r, pod);
    kg_json *spec = kg_json_get(pod, "spec");
    assert_string_equal(kg_json_get_str(spec, "restartPolicy"), "Always");
    assert_string_equal(kg_json_get_str(spec, "dnsPolicy"), "ClusterFirst");
    assert_int_equal(kg_json_get(spec, "terminationGracePeriodSeconds")->u.i, 30);
    kg_json *cs = kg_json_get(spec, "containers");
    assert_string_equal(kg_json_get_str(cs->u.items[0], "imagePullPolicy"), "Always"); /* untagged */
    assert_string_equal(kg_json_get_str(cs->u.items[1], "imagePullPolicy"), "IfNotPresent");
    assert_string_equal(kg_json_get_str(cs->u.items[2], "imagePullPolicy"), "IfNotPresent"); /* digest */
    assert_null(kg_json_path_str(cs->u.items[0], "ports")); /* an array, not a string */
    assert_string_equal(kg_json_get_str(kg_json_get(cs->u.items[0], "ports")->u.items[0], "protocol"), "TCP");
    /* requests default to limits */
    assert_string_equal(kg_json_path_str(cs->u.items[1], "resources.requests.cpu"), "1");
    assert_int_equal(kg_json_path(spec, "volumes")->u.items[0]->type, KG_JSON_OBJECT);
    assert_int_equal(kg_json_path(kg_json_path(spec, "volumes")->u.items[0], "configMap.defaultMode")->u.i, 420);
    /* SetDefaults_Volume: no source (or only null ones) → emptyDir */
    assert_null(kg_json_get(kg_json_path(spec, "volumes")->u.items[0], "emptyDir"));
    assert_int_equal(kg_json_get(kg_json_path(spec, "volumes")->u.items[1], "emptyDir")->type, KG_JSON_OBJECT);
    assert_int_equal(kg_json_get(kg_json_path(spec, "volumes")->u.items[2], "emptyDir")->type, KG_JSON_OBJECT);
    /* defaulting is idempotent */
    kg_json *again = kg_json_clone(&A, pod);
    kg_api_default(&A, r, again);
    assert_true(kg_json_equal(pod, again));
    assert_string_equal(kg_api_pod_qos(spec), "Burstable");
}

static void qos_classes(void **state)
{
    assert_string_equal(kg_api_pod_qos(J("{\"containers\":[{\"name\":\"a\"}]}")), "BestEffort");
    assert_string_equal(kg_api_pod_qos(J("{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":"
                                         "\"1Gi\"},\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]}")),
                        "Guaranteed");
    assert_string_equal(kg_api_pod_qos(J("{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}")),
                        "Burstable");
}

static void deployment_defaults_and_validation(void **state)
{
    const kg_resource *r = kg_resource_find("apps", "v1", "deployments");
    kg_json *d = J("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\",\"namespace\":"
                   "\"ns\"},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"x\"}},\"template\":{\"metadata\":{"
                   "\"labels\":{\"app\":\"y\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}}}");
    kg_api_default(&A, r, d);
    assert_int_equal(kg_json_path(d, "spec.replicas")->u.i, 1);
    assert_string_equal(kg_json_path_str(d, "spec.strategy.rollingUpdate.maxSurge"), "25%");
    assert_int_equal(kg_json_path(d, "spec.revisionHistoryLimit")->u.i, 10);
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_api_validate(&A, r, d, NULL, &errs);
    assert_int_equal(errs.len, 1);
    assert_string_equal(kg_field_error_string(&A, &errs.items[0]),
                        "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"y\"}: `selector` "
                        "does not match template `labels`");
}

static void validation_messages(void **state)
{
    const kg_resource *pods = kg_resource_find("", "v1", "pods");
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_api_validate(&A, pods,
                    J("{\"metadata\":{\"name\":\"p\",\"namespace\":\"d\"},\"spec\":{\"containers\":[{\"name\":\"A\","
                      "\"image\":\"\"},{\"name\":\"b\",\"image\":\"x\"},{\"name\":\"b\",\"image\":\"y\"}],"
                      "\"restartPolicy\":\"Sometimes\"}}"),
                    NULL, &errs);
    char *agg = kg_field_errors_aggregate(&A, &errs);
    assert_non_null(strstr(agg, "spec.containers[0].name: Invalid value: \"A\": a lowercase RFC 1123 label must "
                                "consist of lower case alphanumeric characters or '-'"));
    assert_non_null(strstr(agg, "spec.containers[0].image: Required value"));
    assert_non_null(strstr(agg, "spec.containers[2].name: Duplicate value: \"b\""));
    assert_non_null(strstr(agg, "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: "
                                "\"Always\", \"Never\", \"OnFailure\""));
    /* namespaces use DNS-1123 labels, services DNS-1035 labels */
    errs = (kg_field_errors)KG_FIELD_ERRORS_INIT;
    kg_api_validate(&A, kg_resource_find("", "v1", "services"),
                    J("{\"metadata\":{\"name\":\"1svc\",\"namespace\":\"d\"},\"spec\":{\"ports\":[{\"port\":80}]}}"),
                    NULL, &errs);
    assert_int_equal(errs.len, 1);
    assert_non_null(strstr(kg_field_error_string(&A, &errs.items[0]), "a DNS-1035 label must consist of"));
    /* pod updates may only change images and a few fields */
    kg_json *old = J("{\"metadata\":{\"name\":\"p\",\"namespace\":\"d\"},\"spec\":{\"restartPolicy\":\"Always\","
                     "\"containers\":[{\"name\":\"a\",\"image\":\"x:1\"}]}}");
    kg_json *img = J("{\"metadata\":{\"name\":\"p\",\"namespace\":\"d\"},\"spec\":{\"restartPolicy\":\"Always\","
                     "\"containers\":[{\"name\":\"a\",\"image\":\"x:2\"}]}}");
    errs = (kg_field_errors)KG_FIELD_ERRORS_INIT;
    kg_api_validate(&A, pods, img, old, &errs);
    assert_int_equal(errs.len, 0);
    kg_json *rp = J("{\"metadata\":{\"name\":\"p\",\"namespace\":\"d\"},\"spec\":{\"restartPolicy\":\"Never\","
                    "\"containers\":[{\"name\":\"a\",\"image\":\"x:1\"}]}}");
    kg_api_validate(&A, pods, rp, old, &errs);
    assert_int_equal(errs.len, 1);
    assert_non_null(strstr(kg_field_error_string(&A, &errs.items[0]),
                           "spec: Forbidden: pod updates may not change fields other than"));
}

static void human_durations(void **state)
{
    static const struct {
        int64_t s;
        const char *want;
    } c[] = {{-5, "<invalid>"}, {-1, "0s"},   {0, "0s"},      {119, "119s"},  {120, "2m"},     {150, "2m30s"},
             {600, "10m"},      {3600, "60m"}, {10800, "3h"}, {11000, "3h3m"}, {28800, "8h"},   {172800, "2d"},
             {180000, "2d2h"},  {864000, "10d"}, {63072000, "2y"}, {63158400, "2y1d"}, {252460800, "8y"}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (strcmp(kg_api_human_duration(&A, c[i].s), c[i].want))
            fail_msg("%lld: got %s want %s", (long long)c[i].s, kg_api_human_duration(&A, c[i].s), c[i].want);
}

static void tables_have_kubectl_columns(void **state)
{
    const kg_resource *r = kg_resource_find("", "v1", "pods");
    kg_json *pod =
        J("{\"metadata\":{\"name\":\"web\",\"namespace\":\"d\",\"creationTimestamp\":\"2020-01-01T00:00:00Z\"},"
          "\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}],\"nodeName\":\"n1\"},"
          "\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.0.5\",\"containerStatuses\":[{\"ready\":true,"
          "\"restartCount\":2,\"state\":{\"running\":{}}},{\"ready\":false,\"restartCount\":1,\"state\":{\"waiting\":{"
          "\"reason\":"
          "\"CrashLoopBackOff\"}}}]}}");
    kg_json *t = kg_api_table(&A, r, &pod, 1, NULL, "42");
    assert_string_equal(kg_json_get_str(t, "kind"), "Table");
    assert_string_equal(kg_json_path_str(t, "metadata.resourceVersion"), "42");
    kg_json *cols = kg_json_get(t, "columnDefinitions");
    assert_string_equal(kg_json_get_str(cols->u.items[0], "name"), "Name");
    assert_string_equal(kg_json_get_str(cols->u.items[1], "name"), "Ready");
    kg_json *cells = kg_json_get(kg_json_get(t, "rows")->u.items[0], "cells");
    assert_int_equal(cells->len, cols->len);
    assert_string_equal(cells->u.items[1]->u.s, "1/2");
    assert_string_equal(cells->u.items[2]->u.s, "CrashLoopBackOff");
    assert_string_equal(cells->u.items[3]->u.s, "3"); /* printPod's restarts are a string: "3 (5m ago)" */
    assert_string_equal(cells->u.items[5]->u.s, "10.0.0.5");
    assert_string_equal(kg_json_path_str(kg_json_get(t, "rows")->u.items[0], "object.kind"), "PartialObjectMetadata");
    /* a resource without a specific printer gets Name + Age */
    kg_json *cm = J("{\"metadata\":{\"name\":\"l\"}}");
    kg_json *t2 = kg_api_table(&A, kg_resource_find("coordination.k8s.io", "v1", "leases"), &cm, 1, "None", "");
    assert_null(kg_json_get(kg_json_get(t2, "rows")->u.items[0], "object"));
    kg_json *svc = J("{\"metadata\":{\"name\":\"s\"},\"spec\":{\"type\":\"NodePort\",\"clusterIP\":\"10.96.0.10\","
                     "\"ports\":[{\"port\":80,\"nodePort\":30080,\"protocol\":\"TCP\"},{\"port\":53,\"protocol\":\"UDP\"}],"
                     "\"selector\":{\"app\":\"x\"}}}");
    kg_json *t3 = kg_api_table(&A, kg_resource_find("", "v1", "services"), &svc, 1, NULL, "");
    assert_string_equal(S(kg_json_get(kg_json_get(t3, "rows")->u.items[0], "cells")),
                        "[\"s\",\"NodePort\",\"10.96.0.10\",\"<none>\",\"80:30080/TCP,53/UDP\",\"<unknown>\",\"app=x\"]");
}

static void scale_view(void **state)
{
    kg_json *d = J("{\"metadata\":{\"name\":\"d\",\"namespace\":\"n\",\"uid\":\"u\",\"resourceVersion\":\"7\"},\"spec\":{"
                   "\"replicas\":3,\"selector\":{\"matchLabels\":{\"app\":\"x\"}}},\"status\":{\"replicas\":2}}");
    kg_json *s = kg_api_scale_from(&A, kg_resource_find("apps", "v1", "deployments"), d);
    assert_string_equal(S(s), "{\"kind\":\"Scale\",\"apiVersion\":\"autoscaling/v1\",\"metadata\":{\"name\":\"d\","
                              "\"namespace\":\"n\",\"uid\":\"u\",\"resourceVersion\":\"7\"},\"spec\":{\"replicas\":3},"
                              "\"status\":{\"replicas\":2,\"selector\":\"app=x\"}}");
}

static void openapi_documents_for_kubectl(void **state)
{
    kg_json *root = kg_openapi_document(&A, "/openapi/v3");
    assert_non_null(kg_json_path(root, "paths"));
    assert_non_null(kg_json_get(kg_json_get(root, "paths"), "apis/apps/v1"));
    kg_json *gv = kg_openapi_document(&A, "/openapi/v3/apis/apps/v1");
    kg_json *p = kg_json_get(kg_json_get(gv, "paths"), "/apis/apps/v1/namespaces/{namespace}/deployments/{name}");
    assert_non_null(p);
    /* kubectl's QueryParamVerifierV3 looks for fieldValidation on the PATCH operation of the GVK */
    kg_json *patch = kg_json_get(p, "patch");
    assert_string_equal(kg_json_path_str(patch, "x-kubernetes-group-version-kind.kind"), "Deployment");
    bool fv = false;
    kg_json *params = kg_json_get(patch, "parameters");
    for (uint32_t i = 0; i < params->len; i++)
        if (!strcmp(kg_json_get_str(params->u.items[i], "name"), "fieldValidation"))
            fv = true;
    assert_true(fv);
    assert_null(kg_openapi_document(&A, "/openapi/v3/apis/apps/v9"));
    assert_non_null(kg_openapi_document(&A, "/openapi/v2"));
}

/* The storage prefix index finds, for every served resource, the first resource in table order with its prefix
 * (what scanning the table finds), and nothing for prefixes that are not whole. */
static void storage_prefix_index(void **state)
{
    (void)state;
    for (size_t i = 0; i < kg_resources_count(); i++) {
        const kg_resource *r = kg_resource_at(i), *first = NULL;
        for (size_t j = 0; j < kg_resources_count() && !first; j++)
            if (!strcmp(kg_resource_at(j)->storage_prefix, r->storage_prefix))
                first = kg_resource_at(j);
        const kg_resource *got[4];
        size_t n = kg_resource_by_storage_prefix(r->storage_prefix, strlen(r->storage_prefix), got, 4);
        assert_true(n >= 1);
        assert_ptr_equal(got[0], first);
        for (size_t k = 1; k < n; k++)
            assert_true(got[k]->index > got[k - 1]->index);
    }
    const kg_resource *got[4];
    const char *key = "/registry/apps/deployments/ns1/web";
    assert_int_equal(kg_resource_by_storage_prefix(key, strlen("/registry/apps/deployments/"), got, 4), 1);
    assert_ptr_equal(got[0], kg_resource_find("apps", "v1", "deployments"));
    assert_int_equal(kg_resource_by_storage_prefix(key, strlen("/registry/apps/"), got, 4), 0);
    assert_int_equal(kg_resource_by_storage_prefix("/registry/pod", 13, got, 4), 0);
    assert_int_equal(kg_resource_by_storage_prefix("/registry/pods/", 15, got, 0), 0);
    assert_int_equal(kg_resource_by_storage_prefix("/registry/pods/", 15, got, 4), 1);
    assert_ptr_equal(got[0], kg_resource_find("", "v1", "pods"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_lookup_and_keys),    cmocka_unit_test(discovery_documents),
        cmocka_unit_test(storage_prefix_index),
        cmocka_unit_test(pod_defaults_like_upstream),  cmocka_unit_test(qos_classes),
        cmocka_unit_test(deployment_defaults_and_validation), cmocka_unit_test(validation_messages),
        cmocka_unit_test(human_durations),             cmocka_unit_test(tables_have_kubectl_columns),
        cmocka_unit_test(scale_view),                  cmocka_unit_test(openapi_documents_for_kubectl),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
