/* ResourceQuota: upstream scenarios (k8s.io/apiserver pkg/admission/plugin/resourcequota admission_test.go and
 * pkg/quota/v1/evaluator/core tests) with exact messages and codes, usage charging in status.used, dry-run,
 * conflict retries, limitedResources configuration, and the controller's usage recalculation. */
#include <pthread.h>
#include <stdatomic.h>

#include "admission/plugins/resourcequota/resourcequota.h"
#include "controllers/quota.h"
#include "admission_testutil.h"
#include "faulty_services.h"

typedef struct fixture {
    kg_admission_memcluster *m;
    kg_faulty_services *fs; /* around m: injected read/write failures */
    kg_admission_services svc;
    kg_admission_chain *chain;
    kg_arena a;
} fixture;

static fixture *new_fixture(const char *config_json)
{
    fixture *f = calloc(1, sizeof *f);
    f->m = kg_admission_memcluster_new();
    kg_admission_memcluster_set_clock(f->m, 1000000000LL);
    kg_admission_services inner = kg_admission_memcluster_services(f->m, NULL);
    f->fs = kg_faulty_services_new(&inner);
    f->svc = kg_faulty_services_get(f->fs);
    kg_arena_init(&f->a, 0);
    const kg_admission_plugin *ps[] = {&kg_admission_plugin_resource_quota};
    const kg_json *cfgs[] = {config_json ? tj(&f->a, config_json) : NULL};
    kg_error e = {0};
    f->chain = kg_admission_chain_new_from(ps, 1, cfgs, &f->svc, NULL, &e);
    if (!f->chain)
        fail_msg("chain: %s", e.msg);
    return f;
}

static int setup(void **state)
{
    *state = new_fixture(NULL);
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    kg_admission_chain_free(f->chain);
    kg_arena_free(&f->a);
    kg_faulty_services_free(f->fs);
    kg_admission_memcluster_free(f->m);
    free(f);
    return 0;
}

/* A quota in ns "test" with spec.hard = status.hard = hard and status.used = used (NULL: no used). */
static void put_quota(fixture *f, const char *name, const char *hard, const char *used, const char *spec_extra)
{
    char *text = kg_arena_sprintf(&f->a,
                                  "{\"apiVersion\":\"v1\",\"kind\":\"ResourceQuota\",\"metadata\":{\"name\":\"%s\","
                                  "\"namespace\":\"test\"},\"spec\":{\"hard\":%s%s%s},"
                                  "\"status\":{\"hard\":%s%s%s}}",
                                  name, hard, spec_extra ? "," : "", spec_extra ? spec_extra : "", hard,
                                  used ? ",\"used\":" : "", used ? used : "");
    tput(f->m, "resourcequotas", text, 0);
}

static const char *used_of(fixture *f, const char *name)
{
    kg_error e = {0};
    kg_json *q = f->svc.get(f->svc.ctx, &f->a, "resourcequotas", "test", name, KG_ADMISSION_GET_LIVE, &e);
    assert_non_null(q);
    return kg_json_to_string(&f->a, kg_json_path(q, "status.used"), 0, NULL);
}

static kg_status *run(fixture *f, kg_admission_op op, const char *group, const char *kind, const char *resource,
                      const char *sub, kg_json *obj, kg_json *old, bool dry)
{
    kg_admission_attributes at;
    tattrs(&at, &f->a, op, kind, resource, "test", kg_json_path_str(obj, "metadata.name"), obj, old);
    at.kind.group = group;
    at.resource.group = group;
    at.subresource = sub;
    at.dry_run = dry;
    return kg_admission_chain_run(f->chain, &at);
}

/* A pod with containers given as a JSON array text. */
static kg_json *pod(fixture *f, const char *containers, const char *spec_extra)
{
    return tj(&f->a, kg_arena_sprintf(&f->a,
                                      "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
                                      "\"namespace\":\"test\"},\"spec\":{\"containers\":%s%s%s}}",
                                      containers, spec_extra ? "," : "", spec_extra ? spec_extra : ""));
}

static kg_json *res_pod(fixture *f, const char *requests, const char *limits)
{
    return pod(
        f,
        kg_arena_sprintf(&f->a, "[{\"name\":\"c1\",\"resources\":{\"requests\":%s,\"limits\":%s}}]", requests, limits),
        NULL);
}

static kg_status *create_pod(fixture *f, kg_json *p)
{
    return run(f, KG_ADMISSION_CREATE, "", "Pod", "pods", "", p, NULL, false);
}

/* ---- pods ---- */

static void test_pod_exceeds_requests_memory(void **state)
{
    fixture *f = *state;
    put_quota(f, "compute", "{\"requests.memory\":\"512Mi\",\"pods\":\"10\"}",
              "{\"requests.memory\":\"456Mi\",\"pods\":\"3\"}", NULL);
    kg_status *st = create_pod(f, res_pod(f, "{\"memory\":\"200Mi\",\"cpu\":\"1\"}", "{}"));
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: exceeded quota: compute, requested: requests.memory=200Mi, used: "
                  "requests.memory=456Mi, limited: requests.memory=512Mi");
    /* nothing charged */
    assert_string_equal(used_of(f, "compute"), "{\"requests.memory\":\"456Mi\",\"pods\":\"3\"}");
}

static void test_pod_admitted_and_charged(void **state)
{
    fixture *f = *state;
    put_quota(f, "quota",
              "{\"cpu\":\"3\",\"memory\":\"100Gi\",\"pods\":\"5\",\"limits.cpu\":\"4\",\"count/pods\":\"10\"}",
              "{\"cpu\":\"1\",\"memory\":\"50Gi\",\"pods\":\"3\",\"limits.cpu\":\"1\",\"count/pods\":\"3\"}", NULL);
    kg_json *p = res_pod(f, "{\"cpu\":\"100m\",\"memory\":\"2Gi\"}", "{\"cpu\":\"500m\"}");
    assert_null(create_pod(f, p));
    assert_string_equal(used_of(f, "quota"), "{\"count/pods\":\"4\",\"cpu\":\"1100m\",\"limits.cpu\":\"1500m\","
                                             "\"memory\":\"52Gi\",\"pods\":\"4\"}");
    kg_admission_memcluster_stats s = kg_admission_memcluster_get_stats(f->m);
    assert_int_equal(s.updates, 1);
}

static void test_pod_limits_default_requests_and_overhead(void **state)
{
    fixture *f = *state;
    put_quota(f, "quota", "{\"requests.cpu\":\"10\",\"limits.memory\":\"10Gi\"}",
              "{\"requests.cpu\":\"0\",\"limits.memory\":\"0\"}", NULL);
    /* requests default to limits; an init container's peak wins over the sum of the containers; overhead adds */
    kg_json *p = pod(f,
                     "[{\"name\":\"a\",\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}},"
                     "{\"name\":\"b\",\"resources\":{\"requests\":{\"cpu\":\"500m\"},\"limits\":{\"cpu\":\"1\","
                     "\"memory\":\"1Gi\"}}}]",
                     "\"initContainers\":[{\"name\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"2\"},\"limits\":"
                     "{\"cpu\":\"2\",\"memory\":\"1Gi\"}}}],\"overhead\":{\"cpu\":\"250m\",\"memory\":\"64Mi\"}");
    assert_null(create_pod(f, p));
    assert_string_equal(used_of(f, "quota"), "{\"limits.memory\":\"2112Mi\",\"requests.cpu\":\"2250m\"}");
}

static void test_pod_status_unknown(void **state)
{
    fixture *f = *state;
    put_quota(f, "quota", "{\"pods\":\"5\",\"cpu\":\"2\",\"secrets\":\"3\"}", NULL, NULL);
    kg_status *st = create_pod(f, res_pod(f, "{\"cpu\":\"1\"}", "{}"));
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: status unknown for quota: quota, resources: cpu,pods");
}

static void test_pod_must_specify(void **state)
{
    fixture *f = *state;
    put_quota(f, "quota", "{\"requests.cpu\":\"10\",\"limits.memory\":\"10Gi\",\"pods\":\"5\"}",
              "{\"requests.cpu\":\"0\",\"limits.memory\":\"0\",\"pods\":\"0\"}", NULL);
    kg_json *p = pod(f, "[{\"name\":\"c2\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}},{\"name\":\"c1\"}]", NULL);
    kg_status *st = create_pod(f, p);
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: failed quota: quota: must specify limits.memory for: c1,c2; requests.cpu "
                  "for: c1");
}

static void test_pod_extended_and_hugepages(void **state)
{
    fixture *f = *state;
    put_quota(f, "quota", "{\"requests.example.com/gpu\":\"1\",\"requests.hugepages-2Mi\":\"4Mi\"}",
              "{\"requests.example.com/gpu\":\"0\",\"requests.hugepages-2Mi\":\"0\"}", NULL);
    kg_status *st = create_pod(f, res_pod(f, "{\"example.com/gpu\":\"2\"}", "{\"example.com/gpu\":\"2\"}"));
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: exceeded quota: quota, requested: requests.example.com/gpu=2, used: "
                  "requests.example.com/gpu=0, limited: requests.example.com/gpu=1");
    assert_null(create_pod(f, res_pod(f, "{\"hugepages-2Mi\":\"2Mi\"}", "{\"hugepages-2Mi\":\"2Mi\"}")));
    assert_string_equal(used_of(f, "quota"), "{\"requests.example.com/gpu\":\"0\",\"requests.hugepages-2Mi\":\"2Mi\"}");
}

static void test_terminal_pod_only_counts_objects(void **state)
{
    fixture *f = *state;
    put_quota(f, "quota", "{\"pods\":\"0\",\"count/pods\":\"5\"}", "{\"pods\":\"0\",\"count/pods\":\"0\"}", NULL);
    kg_json *p = res_pod(f, "{}", "{}");
    kg_json_set(&f->a, p, "status", tj(&f->a, "{\"phase\":\"Succeeded\"}"));
    assert_null(create_pod(f, p));
    assert_string_equal(used_of(f, "quota"), "{\"count/pods\":\"1\",\"pods\":\"0\"}");
    kg_status *st = create_pod(f, res_pod(f, "{}", "{}"));
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: exceeded quota: quota, requested: pods=1, used: pods=0, limited: pods=0");
}

static void test_pod_resize_charges_delta_per_quota(void **state)
{
    fixture *f = *state;
    put_quota(f, "all", "{\"pods\":\"5\",\"requests.cpu\":\"4\"}", "{\"pods\":\"1\",\"requests.cpu\":\"0\"}", NULL);
    put_quota(f, "nbe", "{\"pods\":\"5\",\"requests.cpu\":\"4\"}", "{\"pods\":\"0\",\"requests.cpu\":\"0\"}",
              "\"scopes\":[\"NotBestEffort\"]");
    kg_json *old = pod(f, "[{\"name\":\"c\"}]", NULL);
    kg_json_set(&f->a, kg_json_get(old, "metadata"), "resourceVersion", kg_json_new_str(&f->a, "5"));
    kg_json *new = res_pod(f, "{\"cpu\":\"1\"}", "{\"cpu\":\"1\"}");
    kg_json_set(&f->a, kg_json_get(new, "metadata"), "resourceVersion", kg_json_new_str(&f->a, "5"));
    /* a plain UPDATE of a pod is not quota'd; the resize subresource is */
    assert_null(run(f, KG_ADMISSION_UPDATE, "", "Pod", "pods", "", new, old, false));
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).updates, 0);
    assert_null(run(f, KG_ADMISSION_UPDATE, "", "Pod", "pods", "resize", new, old, false));
    /* the unscoped quota (which matched the old pod) gets the delta; the NotBestEffort one, which did not, the
     * whole usage */
    assert_string_equal(used_of(f, "all"), "{\"pods\":\"1\",\"requests.cpu\":\"1\"}");
    assert_string_equal(used_of(f, "nbe"), "{\"pods\":\"1\",\"requests.cpu\":\"1\"}");
}

/* ---- scopes ---- */

static void test_scope_best_effort(void **state)
{
    fixture *f = *state;
    put_quota(f, "be", "{\"pods\":\"0\"}", "{\"pods\":\"0\"}", "\"scopes\":[\"BestEffort\"]");
    put_quota(f, "nbe", "{\"pods\":\"1\"}", "{\"pods\":\"0\"}", "\"scopes\":[\"NotBestEffort\"]");
    kg_status *st = create_pod(f, res_pod(f, "{}", "{}"));
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: exceeded quota: be, requested: pods=1, used: pods=0, limited: pods=0");
    /* a Burstable pod is ignored by the BestEffort quota and charged to the NotBestEffort one */
    assert_null(create_pod(f, res_pod(f, "{\"cpu\":\"100m\"}", "{}")));
    assert_string_equal(used_of(f, "be"), "{\"pods\":\"0\"}");
    assert_string_equal(used_of(f, "nbe"), "{\"pods\":\"1\"}");
}

static void test_scope_terminating(void **state)
{
    fixture *f = *state;
    put_quota(f, "term", "{\"pods\":\"0\"}", "{\"pods\":\"0\"}", "\"scopes\":[\"Terminating\"]");
    put_quota(f, "nonterm", "{\"pods\":\"5\"}", "{\"pods\":\"0\"}", "\"scopes\":[\"NotTerminating\"]");
    assert_null(create_pod(f, res_pod(f, "{}", "{}")));
    assert_string_equal(used_of(f, "nonterm"), "{\"pods\":\"1\"}");
    kg_status *st = create_pod(f, pod(f, "[{\"name\":\"c\"}]", "\"activeDeadlineSeconds\":60"));
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: exceeded quota: term, requested: pods=1, used: pods=0, limited: pods=0");
}

static void test_scope_priority_class_selector(void **state)
{
    fixture *f = *state;
    put_quota(f, "high", "{\"pods\":\"1\",\"requests.cpu\":\"1\"}", "{\"pods\":\"0\",\"requests.cpu\":\"0\"}",
              "\"scopeSelector\":{\"matchExpressions\":[{\"scopeName\":\"PriorityClass\",\"operator\":\"In\","
              "\"values\":[\"high\",\"urgent\"]}]}");
    put_quota(f, "notlow", "{\"pods\":\"10\"}", "{\"pods\":\"0\"}",
              "\"scopeSelector\":{\"matchExpressions\":[{\"scopeName\":\"PriorityClass\",\"operator\":\"NotIn\","
              "\"values\":[\"low\"]}]}");
    /* class low: neither quota */
    assert_null(create_pod(f, pod(f, "[{\"name\":\"c\"}]", "\"priorityClassName\":\"low\"")));
    assert_string_equal(used_of(f, "high"), "{\"pods\":\"0\",\"requests.cpu\":\"0\"}");
    assert_string_equal(used_of(f, "notlow"), "{\"pods\":\"0\"}");
    /* no class: NotIn matches */
    assert_null(create_pod(f, pod(f, "[{\"name\":\"c\"}]", NULL)));
    assert_string_equal(used_of(f, "notlow"), "{\"pods\":\"1\"}");
    /* class high without a cpu request: the quota's constraint */
    kg_status *st = create_pod(f, pod(f, "[{\"name\":\"c\"}]", "\"priorityClassName\":\"high\""));
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: failed quota: high: must specify requests.cpu for: c");
    kg_json *p = res_pod(f, "{\"cpu\":\"500m\"}", "{}");
    kg_json_set(&f->a, kg_json_get(p, "spec"), "priorityClassName", kg_json_new_str(&f->a, "urgent"));
    assert_null(create_pod(f, p));
    assert_string_equal(used_of(f, "high"), "{\"pods\":\"1\",\"requests.cpu\":\"500m\"}");
    st = create_pod(f, p);
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: exceeded quota: high, requested: pods=1, used: pods=1, limited: pods=1");
}

static void test_scope_selector_error(void **state)
{
    fixture *f = *state;
    put_quota(f, "bad", "{\"pods\":\"1\"}", "{\"pods\":\"0\"}",
              "\"scopeSelector\":{\"matchExpressions\":[{\"scopeName\":\"PriorityClass\",\"operator\":\"Foo\","
              "\"values\":[\"a\",\"b\"]}]}");
    kg_status *st = create_pod(f, pod(f, "[{\"name\":\"c\"}]", "\"priorityClassName\":\"a\""));
    assert_status(st, 500, "",
                  "error matching scopes of quota bad, err: error on matching scope {PriorityClass Foo [a b]}: failed "
                  "to parse and convert selector: \"Foo\" is not a valid scope selector operator");
}

static void test_scope_cross_namespace_affinity(void **state)
{
    fixture *f = *state;
    put_quota(f, "xns", "{\"pods\":\"0\"}", "{\"pods\":\"0\"}", "\"scopes\":[\"CrossNamespacePodAffinity\"]");
    assert_null(create_pod(f, pod(f, "[{\"name\":\"c\"}]", NULL)));
    kg_status *st = create_pod(
        f, pod(f, "[{\"name\":\"c\"}]",
               "\"affinity\":{\"podAntiAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":1,"
               "\"podAffinityTerm\":{\"topologyKey\":\"k\",\"namespaceSelector\":{}}}]}}"));
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: exceeded quota: xns, requested: pods=1, used: pods=0, limited: pods=0");
}

static void test_scoped_quota_ignores_services(void **state)
{
    fixture *f = *state;
    put_quota(f, "be", "{\"services\":\"0\"}", "{\"services\":\"0\"}", "\"scopes\":[\"BestEffort\"]");
    kg_json *s =
        tj(&f->a, "{\"metadata\":{\"name\":\"s\",\"namespace\":\"test\"},\"spec\":{\"ports\":[{\"port\":80}]}}");
    assert_null(run(f, KG_ADMISSION_CREATE, "", "Service", "services", "", s, NULL, false));
}

/* ---- object counts ---- */

static void test_count_deployments(void **state)
{
    fixture *f = *state;
    put_quota(f, "q", "{\"count/deployments.apps\":\"2\",\"configmaps\":\"1\"}",
              "{\"count/deployments.apps\":\"1\",\"configmaps\":\"0\"}", NULL);
    kg_json *d = tj(&f->a, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\","
                           "\"namespace\":\"test\"}}");
    assert_null(run(f, KG_ADMISSION_CREATE, "apps", "Deployment", "deployments", "", d, NULL, false));
    assert_string_equal(used_of(f, "q"), "{\"configmaps\":\"0\",\"count/deployments.apps\":\"2\"}");
    kg_status *st = run(f, KG_ADMISSION_CREATE, "apps", "Deployment", "deployments", "", d, NULL, false);
    assert_status(st, 403, "Forbidden",
                  "deployments.apps \"d\" is forbidden: exceeded quota: q, requested: count/deployments.apps=1, used: "
                  "count/deployments.apps=2, limited: count/deployments.apps=2");
    /* updates and subresources of counted objects are free */
    assert_null(run(f, KG_ADMISSION_UPDATE, "apps", "Deployment", "deployments", "", d, d, false));
    assert_null(run(f, KG_ADMISSION_CREATE, "apps", "Scale", "deployments", "scale", d, NULL, false));
    /* legacy name configmaps */
    kg_json *cm = tj(&f->a, "{\"metadata\":{\"name\":\"cm\",\"namespace\":\"test\"}}");
    assert_null(run(f, KG_ADMISSION_CREATE, "", "ConfigMap", "configmaps", "", cm, NULL, false));
    st = run(f, KG_ADMISSION_CREATE, "", "ConfigMap", "configmaps", "", cm, NULL, false);
    assert_status(st, 403, "Forbidden",
                  "configmaps \"cm\" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=1, "
                  "limited: configmaps=1");
}

static void test_skips(void **state)
{
    fixture *f = *state;
    put_quota(f, "q", "{\"count/events\":\"0\",\"count/namespaces\":\"0\"}", "{}", NULL);
    kg_json *ev = tj(&f->a, "{\"metadata\":{\"name\":\"e\",\"namespace\":\"test\"}}");
    assert_null(run(f, KG_ADMISSION_CREATE, "", "Event", "events", "", ev, NULL, false));
    /* namespace creation is never quota'd */
    kg_json *nsobj = tj(&f->a, "{\"metadata\":{\"name\":\"test\"}}");
    assert_null(run(f, KG_ADMISSION_CREATE, "", "Namespace", "namespaces", "", nsobj, NULL, false));
    /* cluster-scoped requests are skipped */
    kg_admission_attributes at;
    tattrs(&at, &f->a, KG_ADMISSION_CREATE, "Pod", "pods", "", "p", res_pod(f, "{}", "{}"), NULL);
    assert_null(kg_admission_chain_run(f->chain, &at));
}

/* ---- services ---- */

static kg_json *service(fixture *f, const char *type, int nports, const char *extra)
{
    kg_buf b = KG_BUF_INIT;
    for (int i = 0; i < nports; i++)
        kg_buf_printf(&b, "%s{\"port\":%d}", i ? "," : "", 80 + i);
    kg_json *s = tj(&f->a, kg_arena_sprintf(&f->a,
                                            "{\"metadata\":{\"name\":\"s\",\"namespace\":\"test\",\"resourceVersion\":"
                                            "\"7\"},\"spec\":{\"type\":\"%s\",\"ports\":[%s]%s}}",
                                            type, b.len ? kg_buf_cstr(&b) : "", extra ? extra : ""));
    kg_buf_free(&b);
    return s;
}

static void test_service_nodeports_and_loadbalancers(void **state)
{
    fixture *f = *state;
    put_quota(f, "q", "{\"services\":\"10\",\"services.nodeports\":\"3\",\"services.loadbalancers\":\"1\"}",
              "{\"services\":\"0\",\"services.nodeports\":\"1\",\"services.loadbalancers\":\"0\"}", NULL);
    kg_status *st =
        run(f, KG_ADMISSION_CREATE, "", "Service", "services", "", service(f, "NodePort", 3, NULL), NULL, false);
    assert_status(st, 403, "Forbidden",
                  "services \"s\" is forbidden: exceeded quota: q, requested: services.nodeports=3, used: "
                  "services.nodeports=1, limited: services.nodeports=3");
    assert_null(
        run(f, KG_ADMISSION_CREATE, "", "Service", "services", "", service(f, "LoadBalancer", 2, NULL), NULL, false));
    assert_string_equal(used_of(f, "q"),
                        "{\"services\":\"1\",\"services.loadbalancers\":\"1\",\"services.nodeports\":\"3\"}");
    /* allocateLoadBalancerNodePorts=false counts only explicit node ports */
    put_quota(f, "q", "{\"services.nodeports\":\"0\",\"services.loadbalancers\":\"1\"}",
              "{\"services.nodeports\":\"0\",\"services.loadbalancers\":\"0\"}", NULL);
    assert_null(run(f, KG_ADMISSION_CREATE, "", "Service", "services", "",
                    service(f, "LoadBalancer", 2, ",\"allocateLoadBalancerNodePorts\":false"), NULL, false));
}

static void test_service_update_type_change(void **state)
{
    fixture *f = *state;
    put_quota(f, "q", "{\"services\":\"2\",\"services.nodeports\":\"1\"}",
              "{\"services\":\"1\",\"services.nodeports\":\"0\"}", NULL);
    kg_json *old = service(f, "ClusterIP", 2, NULL);
    /* ClusterIP -> NodePort with two ports: only the nodeports delta is charged, and it exceeds */
    kg_status *st =
        run(f, KG_ADMISSION_UPDATE, "", "Service", "services", "", service(f, "NodePort", 2, NULL), old, false);
    assert_status(st, 403, "Forbidden",
                  "services \"s\" is forbidden: exceeded quota: q, requested: services.nodeports=2, used: "
                  "services.nodeports=0, limited: services.nodeports=1");
    assert_null(
        run(f, KG_ADMISSION_UPDATE, "", "Service", "services", "", service(f, "NodePort", 1, NULL), old, false));
    assert_string_equal(used_of(f, "q"), "{\"services\":\"1\",\"services.nodeports\":\"1\"}");
    /* an update that reduces usage is free and changes nothing */
    kg_admission_memcluster_stats before = kg_admission_memcluster_get_stats(f->m);
    assert_null(run(f, KG_ADMISSION_UPDATE, "", "Service", "services", "", service(f, "ClusterIP", 1, NULL),
                    service(f, "NodePort", 1, NULL), false));
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).updates, before.updates);
    /* an old object without resourceVersion is charged in full (create on update) */
    kg_json *norv = service(f, "ClusterIP", 1, NULL);
    kg_json_del(kg_json_get(norv, "metadata"), "resourceVersion");
    st = run(f, KG_ADMISSION_UPDATE, "", "Service", "services", "", service(f, "ClusterIP", 1, NULL), norv, false);
    assert_null(st);
    assert_string_equal(used_of(f, "q"), "{\"services\":\"2\",\"services.nodeports\":\"1\"}");
}

/* ---- PVCs ---- */

static kg_json *pvc(fixture *f, const char *cls, const char *storage, const char *rv)
{
    return tj(&f->a, kg_arena_sprintf(&f->a,
                                      "{\"metadata\":{\"name\":\"c\",\"namespace\":\"test\"%s%s%s},\"spec\":{%s%s%s"
                                      "\"resources\":{\"requests\":{\"storage\":\"%s\"}}}}",
                                      rv ? ",\"resourceVersion\":\"" : "", rv ? rv : "", rv ? "\"" : "",
                                      cls ? "\"storageClassName\":\"" : "", cls ? cls : "", cls ? "\"," : "", storage));
}

static void test_pvc_storage_classes(void **state)
{
    fixture *f = *state;
    put_quota(f, "q",
              "{\"requests.storage\":\"100Gi\",\"persistentvolumeclaims\":\"10\","
              "\"gold.storageclass.storage.k8s.io/requests.storage\":\"5Gi\","
              "\"gold.storageclass.storage.k8s.io/persistentvolumeclaims\":\"1\"}",
              "{\"requests.storage\":\"0\",\"persistentvolumeclaims\":\"0\","
              "\"gold.storageclass.storage.k8s.io/requests.storage\":\"0\","
              "\"gold.storageclass.storage.k8s.io/persistentvolumeclaims\":\"0\"}",
              NULL);
    kg_status *st = run(f, KG_ADMISSION_CREATE, "", "PersistentVolumeClaim", "persistentvolumeclaims", "",
                        pvc(f, "gold", "10Gi", NULL), NULL, false);
    assert_status(st, 403, "Forbidden",
                  "persistentvolumeclaims \"c\" is forbidden: exceeded quota: q, requested: "
                  "gold.storageclass.storage.k8s.io/requests.storage=10Gi, used: "
                  "gold.storageclass.storage.k8s.io/requests.storage=0, limited: "
                  "gold.storageclass.storage.k8s.io/requests.storage=5Gi");
    /* fractional byte requests are rounded up; other classes only count toward the totals */
    assert_null(run(f, KG_ADMISSION_CREATE, "", "PersistentVolumeClaim", "persistentvolumeclaims", "",
                    pvc(f, "silver", "1500m", NULL), NULL, false));
    assert_null(run(f, KG_ADMISSION_CREATE, "", "PersistentVolumeClaim", "persistentvolumeclaims", "",
                    pvc(f, "gold", "1Gi", NULL), NULL, false));
    assert_string_equal(used_of(f, "q"), "{\"gold.storageclass.storage.k8s.io/persistentvolumeclaims\":\"1\","
                                         "\"gold.storageclass.storage.k8s.io/requests.storage\":\"1Gi\","
                                         "\"persistentvolumeclaims\":\"2\",\"requests.storage\":\"1073741826\"}");
}

static void test_pvc_update_increases_usage(void **state)
{
    fixture *f = *state;
    put_quota(f, "q", "{\"requests.storage\":\"2Gi\"}", "{\"requests.storage\":\"1Gi\"}", NULL);
    kg_json *old = pvc(f, NULL, "1Gi", "3");
    kg_status *st = run(f, KG_ADMISSION_UPDATE, "", "PersistentVolumeClaim", "persistentvolumeclaims", "",
                        pvc(f, NULL, "3Gi", "3"), old, false);
    assert_status(
        st, 403, "Forbidden",
        "persistentvolumeclaims \"c\" is forbidden: exceeded quota: q, requested: requests.storage=2Gi, used: "
        "requests.storage=1Gi, limited: requests.storage=2Gi");
    assert_null(run(f, KG_ADMISSION_UPDATE, "", "PersistentVolumeClaim", "persistentvolumeclaims", "",
                    pvc(f, NULL, "2Gi", "3"), old, false));
    assert_string_equal(used_of(f, "q"), "{\"requests.storage\":\"2Gi\"}");
    /* the status subresource is never refused for exceeding */
    assert_null(run(f, KG_ADMISSION_UPDATE, "", "PersistentVolumeClaim", "persistentvolumeclaims", "status",
                    pvc(f, NULL, "5Gi", "3"), old, false));
    /* missing old object */
    st = run(f, KG_ADMISSION_UPDATE, "", "PersistentVolumeClaim", "persistentvolumeclaims", "",
             pvc(f, NULL, "2Gi", "3"), NULL, false);
    assert_status(st, 403, "Forbidden",
                  "persistentvolumeclaims \"c\" is forbidden: unable to get previous usage since prior version of "
                  "object was not found");
}

static void test_negative_usage(void **state)
{
    fixture *f = *state;
    put_quota(f, "q", "{\"requests.storage\":\"2Gi\"}", "{\"requests.storage\":\"0\"}", NULL);
    kg_status *st = run(f, KG_ADMISSION_CREATE, "", "PersistentVolumeClaim", "persistentvolumeclaims", "",
                        pvc(f, NULL, "-1Gi", NULL), NULL, false);
    assert_status(st, 403, "Forbidden",
                  "persistentvolumeclaims \"c\" is forbidden: quota usage is negative for resource(s): "
                  "requests.storage");
}

/* ---- persistence ---- */

static void test_dry_run_not_charged(void **state)
{
    fixture *f = *state;
    put_quota(f, "q", "{\"pods\":\"1\"}", "{\"pods\":\"0\"}", NULL);
    kg_json *p = res_pod(f, "{}", "{}");
    assert_null(run(f, KG_ADMISSION_CREATE, "", "Pod", "pods", "", p, NULL, true));
    assert_string_equal(used_of(f, "q"), "{\"pods\":\"0\"}");
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).updates, 0);
    /* dry-run still rejects */
    put_quota(f, "q", "{\"pods\":\"1\"}", "{\"pods\":\"1\"}", NULL);
    kg_status *st = run(f, KG_ADMISSION_CREATE, "", "Pod", "pods", "", p, NULL, true);
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1");
}

static void test_conflict_retry(void **state)
{
    fixture *f = *state;
    put_quota(f, "q", "{\"pods\":\"2\"}", "{\"pods\":\"0\"}", NULL);
    kg_faulty_fail_writes(f->fs, 2, KG_ECONFLICT);
    assert_null(create_pod(f, res_pod(f, "{}", "{}")));
    assert_string_equal(used_of(f, "q"), "{\"pods\":\"1\"}");
    /* the two injected conflicts fail in the wrapper: only the third attempt reaches the cluster */
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).updates, 1);
    /* only the quota whose write failed is re-read and re-checked: the other one is charged once */
    put_quota(f, "q", "{\"pods\":\"2\"}", "{\"pods\":\"1\"}", NULL);
    kg_faulty_fail_writes(f->fs, 1, KG_ECONFLICT);
    put_quota(f, "q2", "{\"count/pods\":\"5\"}", "{\"count/pods\":\"0\"}", NULL);
    assert_null(create_pod(f, res_pod(f, "{}", "{}")));
    assert_string_equal(used_of(f, "q"), "{\"pods\":\"2\"}");
    assert_string_equal(used_of(f, "q2"), "{\"count/pods\":\"1\"}");
    /* four conflicts in a row: the request fails with the conflict */
    put_quota(f, "q", "{\"pods\":\"5\"}", "{\"pods\":\"0\"}", NULL);
    kg_admission_memcluster_remove(f->m, "resourcequotas", "test", "q2");
    kg_faulty_fail_writes(f->fs, 4, KG_ECONFLICT);
    kg_status *st = create_pod(f, res_pod(f, "{}", "{}"));
    assert_status(st, 409, "Conflict",
                  "Operation cannot be fulfilled on resourcequotas \"q\": the object has been modified; please apply "
                  "your changes to the latest version and try again");
    assert_string_equal(used_of(f, "q"), "{\"pods\":\"0\"}");
}

static void test_live_lookup_when_cache_empty(void **state)
{
    fixture *f = *state;
    tput(f->m, "resourcequotas",
         "{\"metadata\":{\"name\":\"q\",\"namespace\":\"test\"},\"spec\":{\"hard\":{\"pods\":\"0\"}},"
         "\"status\":{\"hard\":{\"pods\":\"0\"},\"used\":{\"pods\":\"0\"}}}",
         KG_MEMCLUSTER_STORE_ONLY);
    kg_status *st = create_pod(f, res_pod(f, "{}", "{}"));
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0");
}

typedef struct racer {
    fixture *f;
    atomic_int *admitted, *rejected;
} racer;

static void *race_pods(void *arg)
{
    racer *r = arg;
    for (int i = 0; i < 25; i++) {
        kg_arena a;
        kg_arena_init(&a, 0);
        kg_error e = {0};
        const char *text = "{\"metadata\":{\"name\":\"p\",\"namespace\":\"test\"},\"spec\":{\"containers\":[{\"name\":"
                           "\"c\",\"resources\":{\"requests\":{\"cpu\":\"10m\"}}}]}}";
        kg_admission_attributes at;
        kg_admission_attrs_init(&at, &a);
        at.operation = KG_ADMISSION_CREATE;
        at.kind = (kg_gvk){"", "v1", "Pod"};
        at.resource = (kg_gvr){"", "v1", "pods"};
        at.ns = "test";
        at.name = "p";
        at.object = kg_json_parse(&a, text, strlen(text), &e);
        kg_status *st = kg_admission_chain_run(r->f->chain, &at);
        if (st)
            atomic_fetch_add(r->rejected, 1);
        else
            atomic_fetch_add(r->admitted, 1);
        kg_arena_free(&a);
    }
    return NULL;
}

/* Concurrent creates in one namespace: exactly `hard` are admitted and status.used counts each once. */
static void test_concurrent_creates(void **state)
{
    fixture *f = *state;
    put_quota(f, "q", "{\"pods\":\"60\",\"requests.cpu\":\"100\"}", "{\"pods\":\"0\",\"requests.cpu\":\"0\"}", NULL);
    atomic_int admitted = 0, rejected = 0;
    pthread_t th[4];
    racer r = {f, &admitted, &rejected};
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, race_pods, &r);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(atomic_load(&admitted), 60);
    assert_int_equal(atomic_load(&rejected), 40);
    assert_string_equal(used_of(f, "q"), "{\"pods\":\"60\",\"requests.cpu\":\"600m\"}");
}

/* Services whose cached quota list is a snapshot that never catches up (a lagging informer). */
typedef struct stale_ctx {
    kg_admission_services inner;
    const char *snapshot;
} stale_ctx;

static kg_json *stale_list(void *ctx, kg_arena *a, const char *resource, const char *ns, unsigned flags, kg_error *err)
{
    stale_ctx *c = ctx;
    if (strcmp(resource, "resourcequotas") == 0 && !(flags & KG_ADMISSION_GET_LIVE))
        return kg_json_parse(a, c->snapshot, strlen(c->snapshot), err);
    return c->inner.list(c->inner.ctx, a, resource, ns, flags, err);
}
static kg_json *stale_get(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name,
                          unsigned flags, kg_error *err)
{
    stale_ctx *c = ctx;
    return c->inner.get(c->inner.ctx, a, resource, ns, name, flags, err);
}
static kg_json *stale_update(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                             kg_error *err)
{
    stale_ctx *c = ctx;
    return c->inner.update(c->inner.ctx, a, resource, ns, obj, err);
}

/* The quotas this plugin wrote are used instead of older cached copies, so a lagging cache costs no conflicts. */
static void test_lagging_cache_uses_own_writes(void **state)
{
    fixture *f = *state;
    put_quota(f, "q", "{\"pods\":\"2\"}", "{\"pods\":\"0\"}", NULL);
    kg_error e = {0};
    kg_json *q = f->svc.get(f->svc.ctx, &f->a, "resourcequotas", "test", "q", 0, &e);
    q = f->svc.update(f->svc.ctx, &f->a, "resourcequotas", "test", q, &e); /* gives it a resourceVersion */
    assert_non_null(q);
    kg_json *list = kg_json_new_array(&f->a);
    kg_json_array_append(&f->a, list, q);
    stale_ctx sc = {f->svc, kg_json_to_string(&f->a, list, 0, NULL)};
    kg_admission_services svc = {.ctx = &sc, .get = stale_get, .list = stale_list, .update = stale_update};
    const kg_admission_plugin *ps[] = {&kg_admission_plugin_resource_quota};
    kg_admission_chain *c = kg_admission_chain_new_from(ps, 1, NULL, &svc, NULL, &e);
    assert_non_null(c);
    uint64_t before = kg_admission_memcluster_get_stats(f->m).updates;
    kg_status *st[3];
    for (int i = 0; i < 3; i++) {
        kg_admission_attributes at;
        tattrs(&at, &f->a, KG_ADMISSION_CREATE, "Pod", "pods", "test", "p", res_pod(f, "{}", "{}"), NULL);
        st[i] = kg_admission_chain_run(c, &at);
    }
    kg_admission_chain_free(c);
    assert_null(st[0]);
    assert_null(st[1]);
    assert_status(st[2], 403, "Forbidden",
                  "pods \"p\" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2");
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).updates - before, 2);
    assert_string_equal(used_of(f, "q"), "{\"pods\":\"2\"}");
}

static void test_quota_lookup_failure(void **state)
{
    fixture *f = *state;
    kg_faulty_fail_reads(f->fs, "resourcequotas", 0, KG_EIO);
    kg_status *st = create_pod(f, res_pod(f, "{}", "{}"));
    assert_non_null(st);
    assert_int_equal(kg_status_http_code(st), 500);
    assert_string_equal(st->reason ? st->reason : "", "");
    assert_true(strncmp(st->message, "error resolving quota: ", 23) == 0);
}

/* ---- configuration / limitedResources ---- */

static void test_limited_resources(void **state)
{
    (void)state;
    fixture *f = new_fixture(
        "{\"apiVersion\":\"apiserver.config.k8s.io/v1\",\"kind\":\"ResourceQuotaConfiguration\",\"limitedResources\":"
        "[{\"resource\":\"persistentvolumeclaims\",\"matchContains\":[\".storageclass.storage.k8s.io/"
        "requests.storage\"]},"
        "{\"resource\":\"pods\",\"matchScopes\":[{\"scopeName\":\"PriorityClass\",\"operator\":\"In\",\"values\":"
        "[\"cluster-services\"]}]}]}");
    kg_status *st = run(f, KG_ADMISSION_CREATE, "", "PersistentVolumeClaim", "persistentvolumeclaims", "",
                        pvc(f, "gold", "1Gi", NULL), NULL, false);
    assert_status(st, 403, "Forbidden",
                  "persistentvolumeclaims \"c\" is forbidden: insufficient quota to consume: "
                  "gold.storageclass.storage.k8s.io/requests.storage");
    /* without a class nothing is limited */
    assert_null(run(f, KG_ADMISSION_CREATE, "", "PersistentVolumeClaim", "persistentvolumeclaims", "",
                    pvc(f, NULL, "1Gi", NULL), NULL, false));
    st = create_pod(f, pod(f, "[{\"name\":\"c\"}]", "\"priorityClassName\":\"cluster-services\""));
    assert_status(st, 500, "", "insufficient quota to match these scopes: [{PriorityClass In [cluster-services]}]");
    assert_null(create_pod(f, pod(f, "[{\"name\":\"c\"}]", "\"priorityClassName\":\"other\"")));
    /* a covering quota lets both through */
    put_quota(f, "cover", "{\"gold.storageclass.storage.k8s.io/requests.storage\":\"10Gi\"}",
              "{\"gold.storageclass.storage.k8s.io/requests.storage\":\"0\"}", NULL);
    put_quota(f, "cs", "{\"pods\":\"10\"}", "{\"pods\":\"0\"}",
              "\"scopeSelector\":{\"matchExpressions\":[{\"scopeName\":\"PriorityClass\",\"operator\":\"In\","
              "\"values\":[\"cluster-services\"]}]}");
    assert_null(run(f, KG_ADMISSION_CREATE, "", "PersistentVolumeClaim", "persistentvolumeclaims", "",
                    pvc(f, "gold", "1Gi", NULL), NULL, false));
    assert_null(create_pod(f, pod(f, "[{\"name\":\"c\"}]", "\"priorityClassName\":\"cluster-services\"")));
    assert_string_equal(used_of(f, "cs"), "{\"pods\":\"1\"}");
    teardown((void **)&f);
}

static void test_limited_resources_legacy_config(void **state)
{
    (void)state;
    fixture *f =
        new_fixture("{\"apiVersion\":\"resourcequota.admission.k8s.io/v1beta1\",\"kind\":\"Configuration\","
                    "\"unknownField\":1,\"limitedResources\":[{\"resource\":\"pods\",\"matchContains\":[\"cpu\"]}]}");
    kg_status *st = create_pod(f, res_pod(f, "{\"cpu\":\"1\",\"memory\":\"1Gi\"}", "{\"cpu\":\"2\"}"));
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: insufficient quota to consume: cpu,limits.cpu,requests.cpu");
    /* a pod without cpu is not limited */
    assert_null(create_pod(f, res_pod(f, "{\"memory\":\"1Gi\"}", "{}")));
    /* a quota covering only requests.cpu is not enough */
    put_quota(f, "q", "{\"requests.cpu\":\"10\"}", "{\"requests.cpu\":\"0\"}", NULL);
    st = create_pod(f, res_pod(f, "{\"cpu\":\"1\"}", "{\"cpu\":\"2\"}"));
    assert_status(st, 403, "Forbidden", "pods \"p\" is forbidden: insufficient quota to consume: cpu,limits.cpu");
    teardown((void **)&f);
}

static void expect_config_error(const char *config, const char *want)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_services svc = kg_admission_memcluster_services(m, NULL);
    const kg_admission_plugin *ps[] = {&kg_admission_plugin_resource_quota};
    const kg_json *cfgs[] = {tj(&a, config)};
    kg_error e = {0};
    kg_admission_chain *c = kg_admission_chain_new_from(ps, 1, cfgs, &svc, NULL, &e);
    assert_null(c);
    assert_string_equal(e.msg, want);
    kg_admission_memcluster_free(m);
    kg_arena_free(&a);
}

static void test_config_errors(void **state)
{
    (void)state;
    expect_config_error("{\"apiVersion\":\"apiserver.config.k8s.io/v1\",\"kind\":\"ResourceQuotaConfiguration\","
                        "\"limitedResources\":[{\"matchContains\":[\"x\"]},{\"resource\":\"pods\"},{}]}",
                        "couldn't init admission plugin \"ResourceQuota\": [limitedResources[0].resource: Required "
                        "value, limitedResources[2].resource: Required value]");
    expect_config_error("{\"apiVersion\":\"apiserver.config.k8s.io/v1\",\"kind\":\"Foo\"}",
                        "couldn't init admission plugin \"ResourceQuota\": no kind \"Foo\" is registered for version "
                        "\"apiserver.config.k8s.io/v1\"");
    expect_config_error("{\"apiVersion\":\"apiserver.config.k8s.io/v1alpha1\",\"kind\":\"ResourceQuotaConfiguration\"}",
                        "couldn't init admission plugin \"ResourceQuota\": no kind \"ResourceQuotaConfiguration\" is "
                        "registered for version \"apiserver.config.k8s.io/v1alpha1\"");
    expect_config_error("{\"limitedResources\":[]}", "couldn't init admission plugin \"ResourceQuota\": Object 'Kind' "
                                                     "is missing in '{\"limitedResources\":[]}'");
    expect_config_error("{\"apiVersion\":\"resourcequota.admission.k8s.io/v1beta1\",\"kind\":\"Configuration\","
                        "\"limitedResources\":[{\"resource\":\"pods\",\"matchContains\":\"cpu\"}]}",
                        "couldn't init admission plugin \"ResourceQuota\": json: cannot unmarshal string into Go "
                        "struct field LimitedResource.limitedResources.matchContains of type []string");
}

/* ---- controller recalculation ---- */

static void test_recalculate(void **state)
{
    fixture *f = *state;
    tput(f->m, "pods",
         "{\"metadata\":{\"name\":\"a\",\"namespace\":\"test\"},\"spec\":{\"containers\":[{\"name\":\"c\","
         "\"resources\":{\"requests\":{\"cpu\":\"250m\",\"memory\":\"1Gi\"}}}]}}",
         0);
    tput(f->m, "pods",
         "{\"metadata\":{\"name\":\"b\",\"namespace\":\"test\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}", 0);
    tput(f->m, "pods",
         "{\"metadata\":{\"name\":\"done\",\"namespace\":\"test\"},\"spec\":{\"containers\":[{\"name\":\"c\","
         "\"resources\":{\"requests\":{\"cpu\":\"8\"}}}]},\"status\":{\"phase\":\"Failed\"}}",
         0);
    /* deleted at t=0 with 0 s grace, clock at 1 s: no longer charged compute */
    tput(f->m, "pods",
         "{\"metadata\":{\"name\":\"gone\",\"namespace\":\"test\",\"deletionTimestamp\":\"1970-01-01T00:00:00Z\","
         "\"deletionGracePeriodSeconds\":0},\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
         "{\"cpu\":\"4\"}}}]}}",
         0);
    tput(f->m, "pods",
         "{\"metadata\":{\"name\":\"other\",\"namespace\":\"elsewhere\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}",
         0);
    tput(
        f->m, "services",
        "{\"metadata\":{\"name\":\"s\",\"namespace\":\"test\"},\"spec\":{\"type\":\"NodePort\",\"ports\":[{\"port\":1},"
        "{\"port\":2}]}}",
        0);
    tput(f->m, "deployments", "{\"metadata\":{\"name\":\"d\",\"namespace\":\"test\"}}", 0);
    put_quota(f, "q",
              "{\"pods\":\"10\",\"count/pods\":\"10\",\"requests.cpu\":\"10\",\"memory\":\"10Gi\","
              "\"services.nodeports\":\"5\",\"count/deployments.apps\":\"3\",\"unknown\":\"1\"}",
              "{\"pods\":\"9\",\"count/pods\":\"9\",\"requests.cpu\":\"9\",\"stale\":\"1\",\"unknown\":\"1\"}", NULL);
    put_quota(f, "be", "{\"pods\":\"10\"}", "{\"pods\":\"0\"}", "\"scopes\":[\"BestEffort\"]");

    kg_error e = {0};
    kg_json *q = f->svc.get(f->svc.ctx, &f->a, "resourcequotas", "test", "q", 0, &e);
    kg_json *status = NULL;
    bool changed = false;
    assert_true(kg_quota_recalculate(&f->a, &f->svc, q, 0, &status, &changed, &e));
    assert_true(changed);
    assert_string_equal(kg_json_to_string(&f->a, kg_json_get(status, "used"), 0, NULL),
                        "{\"count/deployments.apps\":\"1\",\"count/pods\":\"4\",\"memory\":\"1Gi\",\"pods\":\"2\","
                        "\"requests.cpu\":\"250m\",\"services.nodeports\":\"2\",\"unknown\":\"1\"}");
    assert_true(kg_json_equal(kg_json_get(status, "hard"), kg_json_path(q, "spec.hard")));

    size_t updated = 0;
    assert_true(kg_quota_sync_namespace(&f->a, &f->svc, "test", &updated, &e));
    assert_int_equal(updated, 2);
    assert_string_equal(used_of(f, "be"), "{\"pods\":\"1\"}");
    assert_string_equal(used_of(f, "q"),
                        "{\"count/deployments.apps\":\"1\",\"count/pods\":\"4\",\"memory\":\"1Gi\",\"pods\":\"2\","
                        "\"requests.cpu\":\"250m\",\"services.nodeports\":\"2\",\"unknown\":\"1\"}");
    /* idempotent */
    assert_true(kg_quota_sync_namespace(&f->a, &f->svc, "test", &updated, &e));
    assert_int_equal(updated, 0);
    /* after a delete the usage drops; the admission charge then lines up with reality */
    kg_admission_memcluster_remove(f->m, "pods", "test", "a");
    assert_true(kg_quota_sync_namespace(&f->a, &f->svc, "test", &updated, &e));
    assert_int_equal(updated, 1);
    assert_string_equal(used_of(f, "q"),
                        "{\"count/deployments.apps\":\"1\",\"count/pods\":\"3\",\"memory\":\"0\",\"pods\":\"1\","
                        "\"requests.cpu\":\"0\",\"services.nodeports\":\"2\",\"unknown\":\"1\"}");
    /* a failing list is reported */
    kg_faulty_fail_reads(f->fs, "pods", 1, KG_EIO);
    assert_false(kg_quota_sync_namespace(&f->a, &f->svc, "test", &updated, &e));
    assert_int_equal(e.code, KG_EIO);
}

/* The race that let one create too many through: admission charges status.used before the object is written, so a
 * recount taken in between misses the object. The controller must not hand that charge back before the quota has
 * been at one resourceVersion for the settle window; increases are written at once. */
static void test_sync_settles_decreases(void **state)
{
    fixture *f = *state;
    tput(f->m, "pods",
         "{\"metadata\":{\"name\":\"a\",\"namespace\":\"test\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}", 0);
    put_quota(f, "q", "{\"pods\":\"2\"}", "{\"pods\":\"1\"}", NULL);
    /* a create is admitted and charged; its object is not written yet (in flight) */
    assert_null(create_pod(f, pod(f, "[{\"name\":\"c\"}]", NULL)));
    assert_string_equal(used_of(f, "q"), "{\"pods\":\"2\"}");

    kg_quota_settle *settle = kg_quota_settle_new(1000);
    assert_non_null(settle);
    kg_error e = {0};
    size_t updated = 9;
    int64_t retry_at = 0;
    /* the recount (1 pod) is lower than the charge: held back, look again when the window has passed */
    assert_true(kg_quota_sync_namespace_settled(&f->a, &f->svc, "test", settle, 100, &retry_at, &updated, &e));
    assert_int_equal(updated, 0);
    assert_int_equal(retry_at, 1100);
    assert_string_equal(used_of(f, "q"), "{\"pods\":\"2\"}");
    /* so a second create is refused: the quota holds exactly */
    kg_status *st = create_pod(f, pod(f, "[{\"name\":\"c\"}]", NULL));
    assert_non_null(st);
    assert_int_equal(st->code, 403);
    assert_true(kg_quota_sync_namespace_settled(&f->a, &f->svc, "test", settle, 1099, &retry_at, &updated, &e));
    assert_int_equal(updated, 0);
    assert_int_equal(retry_at, 1100);
    /* the window passed at one resourceVersion: the write never came (the request failed), the charge is returned */
    assert_true(kg_quota_sync_namespace_settled(&f->a, &f->svc, "test", settle, 1100, &retry_at, &updated, &e));
    assert_int_equal(updated, 1);
    assert_int_equal(retry_at, 0);
    assert_string_equal(used_of(f, "q"), "{\"pods\":\"1\"}");

    /* objects written without a charge (controllers): the increase is written at once, even at a fresh version */
    tput(f->m, "pods",
         "{\"metadata\":{\"name\":\"b\",\"namespace\":\"test\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}", 0);
    assert_true(kg_quota_sync_namespace_settled(&f->a, &f->svc, "test", settle, 1101, &retry_at, &updated, &e));
    assert_int_equal(updated, 1);
    assert_int_equal(retry_at, 0);
    assert_string_equal(used_of(f, "q"), "{\"pods\":\"2\"}");

    /* a delete right after a write (a fresh resourceVersion) waits for the window from when that version was seen */
    kg_admission_memcluster_remove(f->m, "pods", "test", "b");
    assert_true(kg_quota_sync_namespace_settled(&f->a, &f->svc, "test", settle, 1500, &retry_at, &updated, &e));
    assert_int_equal(updated, 0);
    assert_int_equal(retry_at, 2101);
    assert_true(kg_quota_sync_namespace_settled(&f->a, &f->svc, "test", settle, 2101, &retry_at, &updated, &e));
    assert_int_equal(updated, 1);
    assert_string_equal(used_of(f, "q"), "{\"pods\":\"1\"}");
    /* without a settle table (kgate check: no concurrent admission) decreases are written at once */
    kg_admission_memcluster_remove(f->m, "pods", "test", "a");
    assert_true(kg_quota_sync_namespace(&f->a, &f->svc, "test", &updated, &e));
    assert_int_equal(updated, 1);
    assert_string_equal(used_of(f, "q"), "{\"pods\":\"0\"}");
    kg_quota_settle_free(settle);
}

/* InPlacePodVerticalScaling: a running pod is charged the larger of its spec and what its status reports, and only
 * the status while the resize is infeasible. */
static void test_recalculate_resized_pods(void **state)
{
    fixture *f = *state;
    tput(f->m, "pods",
         "{\"metadata\":{\"name\":\"up\",\"namespace\":\"test\"},\"spec\":{\"containers\":[{\"name\":\"c\","
         "\"resources\":{\"requests\":{\"cpu\":\"250m\"},\"limits\":{\"cpu\":\"1\"}}}]},\"status\":{"
         "\"containerStatuses\":[{\"name\":\"c\",\"allocatedResources\":{\"cpu\":\"500m\"},\"resources\":{"
         "\"requests\":{\"cpu\":\"300m\"},\"limits\":{\"cpu\":\"2\"}}}]}}",
         0);
    tput(f->m, "pods",
         "{\"metadata\":{\"name\":\"inf\",\"namespace\":\"test\"},\"spec\":{\"containers\":[{\"name\":\"c\","
         "\"resources\":{\"requests\":{\"cpu\":\"4\"},\"limits\":{\"cpu\":\"4\"}}}]},\"status\":{"
         "\"conditions\":[{\"type\":\"PodResizePending\",\"reason\":\"Infeasible\"}],"
         "\"containerStatuses\":[{\"name\":\"c\",\"allocatedResources\":{\"cpu\":\"100m\"},\"resources\":{"
         "\"requests\":{\"cpu\":\"100m\"},\"limits\":{\"cpu\":\"200m\"}}}]}}",
         0);
    put_quota(f, "q", "{\"requests.cpu\":\"10\",\"limits.cpu\":\"10\"}", "{}", NULL);
    kg_error e = {0};
    kg_json *q = f->svc.get(f->svc.ctx, &f->a, "resourcequotas", "test", "q", 0, &e);
    kg_json *status = NULL;
    assert_true(kg_quota_recalculate(&f->a, &f->svc, q, 0, &status, NULL, &e));
    /* gate off: the spec only */
    assert_string_equal(kg_json_to_string(&f->a, kg_json_get(status, "used"), 0, NULL),
                        "{\"limits.cpu\":\"5\",\"requests.cpu\":\"4250m\"}");
    kg_admission_memcluster_set_feature(f->m, "InPlacePodVerticalScaling", true);
    assert_true(kg_quota_recalculate(&f->a, &f->svc, q, 0, &status, NULL, &e));
    assert_string_equal(kg_json_to_string(&f->a, kg_json_get(status, "used"), 0, NULL),
                        "{\"limits.cpu\":\"2200m\",\"requests.cpu\":\"600m\"}");
}

static void test_resource_tracked(void **state)
{
    (void)state;
    assert_true(kg_quota_resource_tracked("", "pods"));
    assert_true(kg_quota_resource_tracked("apps", "deployments"));
    assert_false(kg_quota_resource_tracked("", "events"));
    assert_false(kg_quota_resource_tracked("events.k8s.io", "events"));
    assert_false(kg_quota_resource_tracked("authorization.k8s.io", "subjectaccessreviews"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pod_exceeds_requests_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pod_admitted_and_charged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pod_limits_default_requests_and_overhead, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pod_status_unknown, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pod_must_specify, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pod_extended_and_hugepages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_terminal_pod_only_counts_objects, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pod_resize_charges_delta_per_quota, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scope_best_effort, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scope_terminating, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scope_priority_class_selector, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scope_selector_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scope_cross_namespace_affinity, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scoped_quota_ignores_services, setup, teardown),
        cmocka_unit_test_setup_teardown(test_count_deployments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_skips, setup, teardown),
        cmocka_unit_test_setup_teardown(test_service_nodeports_and_loadbalancers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_service_update_type_change, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pvc_storage_classes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pvc_update_increases_usage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_negative_usage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dry_run_not_charged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_conflict_retry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_live_lookup_when_cache_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_creates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quota_lookup_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lagging_cache_uses_own_writes, setup, teardown),
        cmocka_unit_test(test_limited_resources),
        cmocka_unit_test(test_limited_resources_legacy_config),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test_setup_teardown(test_recalculate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recalculate_resized_pods, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sync_settles_decreases, setup, teardown),
        cmocka_unit_test(test_resource_tracked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
