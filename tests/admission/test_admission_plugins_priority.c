/* Priority: class resolution (default, lowest-value default, none), preset values, system classes, UPDATE carry-over,
 * one globalDefault, idempotence. */
#include "plugin_testutil.h"
#include "faulty_services.h"

#define P kg_admission_plugin_priority
#define PC(name, value, gd, extra)                                                                                     \
    "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"" name               \
    "\"},\"value\":" #value ",\"globalDefault\":" #gd extra "}"
#define POD(spec) "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":" spec "}"
#define LOWER ",\"preemptionPolicy\":\"PreemptLowerPriority\""

static kg_json *admitted(kg_arena *a, kg_admission_memcluster *m, const char *ns, const char *pod)
{
    kg_admission_services svc = kg_admission_memcluster_services(m, NULL);
    kg_admission_attributes at;
    tattrs(&at, a, KG_ADMISSION_CREATE, "Pod", "pods", ns, "p", tj(a, pod), NULL);
    admit_idempotent(&P, NULL, &svc, &at);
    return kg_json_get(at.object, "spec");
}

static kg_status *admit_pod_svc(kg_arena *a, const kg_admission_services *svc, const char *pod)
{
    kg_admission_attributes at;
    tattrs(&at, a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "p", tj(a, pod), NULL);
    return admit1(&P, NULL, svc, &at);
}

static kg_status *admit_pod(kg_arena *a, kg_admission_memcluster *m, const char *pod)
{
    kg_admission_services svc = kg_admission_memcluster_services(m, NULL);
    return admit_pod_svc(a, &svc, pod);
}

static void put_builtin(kg_admission_memcluster *m)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *b = kg_admission_priority_builtin_classes(&a);
    kg_error e = {0};
    for (size_t i = 0; i < b->len; i++)
        assert_true(kg_admission_memcluster_put(m, "priorityclasses", kg_json_at(b, i), 0, &e));
    kg_arena_free(&a);
}

static void handles(void **state)
{
    assert_int_equal(P.handles, KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE | KG_ADMISSION_DELETE);
    assert_true(kg_admission_registry_find("Priority")->default_on);
    assert_ptr_equal(kg_admission_registry_find("Priority")->impl, &P);
}

static void builtin_classes(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_json(&a, kg_admission_priority_builtin_classes(&a),
                "[{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":"
                "\"system-node-critical\"},\"value\":2000001000,\"globalDefault\":false,\"description\":\"Used for "
                "system critical pods that must not be moved from their current node.\",\"preemptionPolicy\":"
                "\"PreemptLowerPriority\"},{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\","
                "\"metadata\":{\"name\":\"system-cluster-critical\"},\"value\":2000000000,\"globalDefault\":false,"
                "\"description\":\"Used for system critical pods that must run in the cluster, but can be moved to "
                "another node if necessary.\",\"preemptionPolicy\":\"PreemptLowerPriority\"}]");
    kg_arena_free(&a);
}

static void resolve_class(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    /* no classes at all: priority 0, name stays empty, PreemptLowerPriority */
    assert_json(&a, admitted(&a, m, "ns", POD("{}")),
                "{\"priority\":0,\"preemptionPolicy\":\"PreemptLowerPriority\"}");
    tput(m, "priorityclasses", PC("nondefault", 500, false, LOWER), 0);
    assert_json(&a, admitted(&a, m, "ns", POD("{}")),
                "{\"priority\":0,\"preemptionPolicy\":\"PreemptLowerPriority\"}");
    tput(m, "priorityclasses", PC("default1", 1000, true, LOWER), 0);
    assert_json(&a, admitted(&a, m, "ns", POD("{}")),
                "{\"priorityClassName\":\"default1\",\"priority\":1000,\"preemptionPolicy\":\"PreemptLowerPriority\"}");
    assert_json(
        &a, admitted(&a, m, "ns", POD("{\"priorityClassName\":\"nondefault\"}")),
        "{\"priorityClassName\":\"nondefault\",\"priority\":500,\"preemptionPolicy\":\"PreemptLowerPriority\"}");
    /* two defaults in the cache: the lower value wins */
    tput(m, "priorityclasses", PC("default2", 10, true, ",\"preemptionPolicy\":\"Never\""), 0);
    assert_json(&a, admitted(&a, m, "ns", POD("{}")),
                "{\"priorityClassName\":\"default2\",\"priority\":10,\"preemptionPolicy\":\"Never\"}");
    /* deleting the defaults goes back to 0 */
    assert_true(kg_admission_memcluster_remove(m, "priorityclasses", "", "default1"));
    assert_true(kg_admission_memcluster_remove(m, "priorityclasses", "", "default2"));
    assert_json(&a, admitted(&a, m, "ns", POD("{}")),
                "{\"priority\":0,\"preemptionPolicy\":\"PreemptLowerPriority\"}");
    /* a class without preemptionPolicy leaves the pod's as it is */
    tput(m, "priorityclasses", PC("nopolicy", 7, false, ""), 0);
    assert_json(&a, admitted(&a, m, "ns", POD("{\"priorityClassName\":\"nopolicy\"}")),
                "{\"priorityClassName\":\"nopolicy\",\"priority\":7}");
    assert_json(&a, admitted(&a, m, "ns", POD("{\"priorityClassName\":\"nopolicy\",\"preemptionPolicy\":\"Never\"}")),
                "{\"priorityClassName\":\"nopolicy\",\"preemptionPolicy\":\"Never\",\"priority\":7}");
    kg_admission_memcluster_free(m);
    kg_arena_free(&a);
}

static void system_classes_any_namespace(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    put_builtin(m);
    assert_json(&a, admitted(&a, m, "kube-system", POD("{\"priorityClassName\":\"system-cluster-critical\"}")),
                "{\"priorityClassName\":\"system-cluster-critical\",\"priority\":2000000000,"
                "\"preemptionPolicy\":\"PreemptLowerPriority\"}");
    assert_json(&a, admitted(&a, m, "team-a", POD("{\"priorityClassName\":\"system-node-critical\"}")),
                "{\"priorityClassName\":\"system-node-critical\",\"priority\":2000001000,"
                "\"preemptionPolicy\":\"PreemptLowerPriority\"}");
    kg_admission_memcluster_free(m);
    kg_arena_free(&a);
}

static void rejections(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    assert_status(admit_pod(&a, m, POD("{\"priorityClassName\":\"nope\"}")), 403, "Forbidden",
                  "pods \"p\" is forbidden: no PriorityClass with name nope was found");
    assert_status(admit_pod(&a, m, POD("{\"priority\":1000}")), 403, "Forbidden",
                  "pods \"p\" is forbidden: the integer value of priority (1000) must not be provided in pod spec; "
                  "priority admission controller computed 0 from the given PriorityClass name");
    tput(m, "priorityclasses", PC("hi", 1000, false, LOWER), 0);
    assert_null(admit_pod(&a, m, POD("{\"priorityClassName\":\"hi\",\"priority\":1000}")));
    assert_status(
        admit_pod(&a, m, POD("{\"priorityClassName\":\"hi\",\"preemptionPolicy\":\"Never\"}")), 403, "Forbidden",
        "pods \"p\" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod "
        "spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name");
    kg_admission_services inner = kg_admission_memcluster_services(m, NULL);
    kg_faulty_services *fs = kg_faulty_services_new(&inner);
    kg_admission_services faulty = kg_faulty_services_get(fs);
    kg_faulty_fail_reads(fs, "priorityclasses", 0, KG_EIO);
    assert_status(admit_pod_svc(&a, &faulty, POD("{\"priorityClassName\":\"hi\"}")), 500, "",
                  "failed to get PriorityClass with name hi: injected read failure for priorityclasses \"hi\"");
    assert_status(admit_pod_svc(&a, &faulty, POD("{}")), 500, "",
                  "failed to get default priority class: injected read failure for priorityclasses");
    kg_faulty_services_free(fs);
    kg_admission_memcluster_free(m);
    kg_arena_free(&a);
}

static void update_keeps_priority(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_services svc = kg_admission_memcluster_services(m, NULL);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_UPDATE, "Pod", "pods", "ns", "p", tj(&a, POD("{\"priorityClassName\":\"x\"}")),
           tj(&a, POD("{\"priorityClassName\":\"x\",\"priority\":5,\"preemptionPolicy\":\"Never\"}")));
    admit_idempotent(&P, NULL, &svc, &at);
    assert_json(&a, kg_json_get(at.object, "spec"),
                "{\"priorityClassName\":\"x\",\"priority\":5,\"preemptionPolicy\":\"Never\"}");
    /* values the client did send are left for validation to judge */
    tattrs(&at, &a, KG_ADMISSION_UPDATE, "Pod", "pods", "ns", "p", tj(&a, POD("{\"priority\":6}")),
           tj(&a, POD("{\"priority\":5}")));
    admit_idempotent(&P, NULL, &svc, &at);
    assert_json(&a, kg_json_get(at.object, "spec"), "{\"priority\":6}");
    /* DELETE and subresources: nothing */
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "p", tj(&a, POD("{\"priorityClassName\":\"nope\"}")),
           NULL);
    at.subresource = "binding";
    assert_null(admit1(&P, NULL, &svc, &at));
    kg_admission_memcluster_free(m);
    kg_arena_free(&a);
}

static kg_status *pc_op(kg_arena *a, kg_admission_memcluster *m, kg_admission_op op, const char *pc)
{
    kg_admission_services svc = kg_admission_memcluster_services(m, NULL);
    kg_admission_attributes at;
    kg_admission_attrs_init(&at, a);
    at.operation = op;
    at.kind = (kg_gvk){"scheduling.k8s.io", "v1", "PriorityClass"};
    at.resource = (kg_gvr){"scheduling.k8s.io", "v1", "priorityclasses"};
    at.object = tj(a, pc);
    at.name = kg_json_path_str(at.object, "metadata.name");
    if (op == KG_ADMISSION_UPDATE)
        at.old_object = tj(a, pc);
    return validate1(&P, NULL, &svc, &at);
}

static void one_global_default(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    assert_null(pc_op(&a, m, KG_ADMISSION_CREATE, PC("first", 100, true, "")));
    tput(m, "priorityclasses", PC("first", 100, true, ""), 0);
    assert_status(pc_op(&a, m, KG_ADMISSION_CREATE, PC("second", 200, true, "")), 403, "Forbidden",
                  "priorityclasses.scheduling.k8s.io \"second\" is forbidden: PriorityClass first is already marked as "
                  "default. Only one default can exist");
    assert_null(pc_op(&a, m, KG_ADMISSION_CREATE, PC("second", 200, false, "")));
    /* updating the default itself is fine; making another one default is not */
    assert_null(pc_op(&a, m, KG_ADMISSION_UPDATE, PC("first", 100, true, "")));
    assert_status(pc_op(&a, m, KG_ADMISSION_UPDATE, PC("other", 5, true, "")), 403, "Forbidden",
                  "priorityclasses.scheduling.k8s.io \"other\" is forbidden: PriorityClass first is already marked as "
                  "default. Only one default can exist");
    assert_status(pc_op(&a, m, KG_ADMISSION_CREATE, "{\"kind\":\"Pod\"}"), 400, "BadRequest",
                  "resource was marked with kind PriorityClass but was unable to be converted");
    kg_admission_memcluster_free(m);
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles),
        cmocka_unit_test(builtin_classes),
        cmocka_unit_test(resolve_class),
        cmocka_unit_test(system_classes_any_namespace),
        cmocka_unit_test(rejections),
        cmocka_unit_test(update_keeps_priority),
        cmocka_unit_test(one_global_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
