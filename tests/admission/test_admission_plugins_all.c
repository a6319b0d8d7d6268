/* The first batch of built-in plugins together: v1.33 order from the flags, and the whole mutating phase run twice on
 * one pod (reinvocation) giving the same object. */
#include "plugin_testutil.h"


/* The fifteen first-batch plugins enabled together through the flags: execution order, and one pass of the whole
 * mutating phase on a pod that every pod mutator touches, run twice (webhook reinvocation) with the same result. */
static const char *const k_batch1 =
    "LimitPodHardAntiAffinityTopology,TaintNodesByCondition,AlwaysPullImages,PodNodeSelector,Priority,"
    "DefaultTolerationSeconds,PodTolerationRestriction,ExtendedResourceToleration,DefaultStorageClass,"
    "StorageObjectInUseProtection,PersistentVolumeClaimResize,RuntimeClass,CertificateSubjectRestriction,"
    "DefaultIngressClass,DenyServiceExternalIPs";

static void order_and_phases(void **state)
{
    /* the flags name them in a scrambled order; the chain runs them in v1.33 order */
    kg_admission_options o = {"DenyServiceExternalIPs,PodTolerationRestriction,AlwaysPullImages,PodNodeSelector,"
                              "ExtendedResourceToleration,LimitPodHardAntiAffinityTopology",
                              NULL, NULL, NULL};
    kg_error e = {0};
    kg_admission_chain *c = kg_admission_chain_new(&o, NULL, NULL, &e);
    if (!c)
        fail_msg("%s", e.msg);
    const char *want[] = {"NamespaceLifecycle",
                          "LimitPodHardAntiAffinityTopology",
                          "TaintNodesByCondition",
                          "AlwaysPullImages",
                          "PodNodeSelector",
                          "Priority",
                          "DefaultTolerationSeconds",
                          "PodTolerationRestriction",
                          "ExtendedResourceToleration",
                          "DefaultStorageClass",
                          "StorageObjectInUseProtection",
                          "PersistentVolumeClaimResize",
                          "RuntimeClass",
                          "CertificateSubjectRestriction",
                          "DefaultIngressClass",
                          "DenyServiceExternalIPs"};
    /* other engineers may add default-on plugins: check the relative order of ours */
    size_t j = 0;
    for (size_t i = 0; i < kg_admission_chain_len(c) && j < sizeof want / sizeof want[0]; i++)
        if (strcmp(kg_admission_chain_name(c, i), want[j]) == 0)
            j++;
    assert_int_equal(j, sizeof want / sizeof want[0]);
    kg_admission_chain_free(c);
}

static void whole_mutating_phase_is_idempotent(void **state)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    tput(m, "namespaces",
         "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team\",\"annotations\":{"
         "\"scheduler.alpha.kubernetes.io/node-selector\":\"pool=team\","
         "\"scheduler.alpha.kubernetes.io/defaultTolerations\":\"[{\\\"key\\\":\\\"team\\\",\\\"operator\\\":"
         "\\\"Exists\\\",\\\"effect\\\":\\\"NoSchedule\\\"}]\"}},\"status\":{\"phase\":\"Active\"}}",
         0);
    tput(m, "priorityclasses",
         "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"normal\"},"
         "\"value\":100,\"globalDefault\":true,\"preemptionPolicy\":\"PreemptLowerPriority\"}",
         0);
    tput(m, "runtimeclasses",
         "{\"apiVersion\":\"node.k8s.io/v1\",\"kind\":\"RuntimeClass\",\"metadata\":{\"name\":\"kata\"},\"handler\":"
         "\"kata\",\"overhead\":{\"podFixed\":{\"cpu\":\"100m\"}},\"scheduling\":{\"nodeSelector\":{\"kata\":\"yes\"},"
         "\"tolerations\":[{\"key\":\"kata\",\"operator\":\"Exists\"}]}}",
         0);
    /* ServiceAccount (default-on) needs the namespace's default service account */
    tput(m, "serviceaccounts", "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"default\","
                               "\"namespace\":\"team\"}}",
         0);
    kg_admission_services svc = kg_admission_memcluster_services(m, NULL);
    kg_admission_options o = {k_batch1, NULL, NULL, NULL};
    kg_error e = {0};
    kg_admission_chain *c = kg_admission_chain_new(&o, &svc, NULL, &e);
    if (!c)
        fail_msg("%s", e.msg);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "team", "p",
           tj(&a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"team\"},"
                  "\"spec\":{\"runtimeClassName\":\"kata\",\"containers\":[{\"name\":\"c\",\"image\":\"nginx\","
                  "\"resources\":{\"requests\":{\"cpu\":\"1\",\"example.com/gpu\":\"1\"}}}]}}"),
           NULL);
    kg_status *st = kg_admission_chain_admit(c, &at);
    if (st)
        fail_msg("admit: %s", st->message);
    kg_json *once = kg_json_clone(&a, at.object);
    st = kg_admission_chain_admit(c, &at);
    if (st)
        fail_msg("second admit: %s", st->message);
    assert_true(kg_json_equal(once, at.object));
    assert_null(kg_admission_chain_validate(c, &at));
    /* ServiceAccount's additions (the volume name has a random suffix): check them, then compare the rest */
    kg_json *spec = kg_json_get(at.object, "spec");
    assert_string_equal(kg_json_get_str(spec, "serviceAccountName"), "default");
    const char *vname = kg_json_get_str(kg_json_at(kg_json_get(spec, "volumes"), 0), "name");
    assert_non_null(vname);
    assert_int_equal(strncmp(vname, "kube-api-access-", 16), 0);
    kg_json *c0 = kg_json_at(kg_json_get(spec, "containers"), 0);
    assert_string_equal(kg_json_get_str(kg_json_at(kg_json_get(c0, "volumeMounts"), 0), "name"), vname);
    kg_json_del(spec, "serviceAccountName");
    kg_json_del(spec, "volumes");
    kg_json_del(c0, "volumeMounts");
    assert_json(&a, kg_json_get(at.object, "spec"),
                "{\"runtimeClassName\":\"kata\",\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"resources\":{"
                "\"requests\":{\"cpu\":\"1\",\"example.com/gpu\":\"1\"}},\"imagePullPolicy\":\"Always\"}],"
                "\"nodeSelector\":{\"pool\":\"team\",\"kata\":\"yes\"},\"priorityClassName\":\"normal\","
                "\"priority\":100,\"preemptionPolicy\":\"PreemptLowerPriority\",\"tolerations\":["
                "{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
                "\"tolerationSeconds\":300},{\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\","
                "\"effect\":\"NoExecute\",\"tolerationSeconds\":300},{\"key\":\"team\",\"operator\":\"Exists\","
                "\"effect\":\"NoSchedule\"},{\"key\":\"node.kubernetes.io/memory-pressure\",\"operator\":\"Exists\","
                "\"effect\":\"NoSchedule\"},{\"key\":\"example.com/gpu\",\"operator\":\"Exists\",\"effect\":"
                "\"NoSchedule\"},{\"key\":\"kata\",\"operator\":\"Exists\"}],\"overhead\":{\"cpu\":\"100m\"}}");
    kg_arena_free(&a);
    kg_admission_chain_free(c);
    kg_admission_memcluster_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(order_and_phases),
        cmocka_unit_test(whole_mutating_phase_is_idempotent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
