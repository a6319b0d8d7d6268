/* PodTopologyLabels: the Node's zone/region labels copied onto pods created with nodeName and onto pods/binding
 * Bindings; other node labels not copied; node missing → no change; existing pod label overwritten; gate off → no-op;
 * idempotent. */
#include "plugin_testutil.h"

#define P (&kg_admission_plugin_pod_topology_labels)

static kg_admission_memcluster *state_with_node(bool gate)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_memcluster_set_feature(m, "PodTopologyLabelsAdmission", gate);
    tput(m, "nodes",
         "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\",\"labels\":{"
         "\"topology.kubernetes.io/zone\":\"z1\",\"topology.kubernetes.io/region\":\"r1\",\"kubernetes.io/os\":"
         "\"linux\"}}}",
         0);
    return m;
}

static void pod_with_node_name_gets_topology_labels(void **state)
{
    kg_admission_memcluster *m = state_with_node(true);
    kg_admission_services svc = kg_admission_memcluster_services(m, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "p",
           tj(&a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"labels\":{"
                  "\"topology.kubernetes.io/zone\":\"old\",\"app\":\"x\"}},\"spec\":{\"nodeName\":\"n1\"}}"),
           NULL);
    admit_idempotent(P, NULL, &svc, &at);
    /* zone overwritten, region added, other node labels (kubernetes.io/os) not copied */
    assert_json(&a, kg_json_path(at.object, "metadata.labels"),
                "{\"topology.kubernetes.io/zone\":\"z1\",\"app\":\"x\",\"topology.kubernetes.io/region\":\"r1\"}");
    /* no nodeName: untouched */
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "q",
           tj(&a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"q\"},\"spec\":{}}"), NULL);
    assert_null(admit1(P, NULL, &svc, &at));
    assert_null(kg_json_path(at.object, "metadata.labels"));
    /* node missing: no change, no error */
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "r",
           tj(&a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"r\"},\"spec\":{\"nodeName\":"
                  "\"gone\"}}"),
           NULL);
    assert_null(admit1(P, NULL, &svc, &at));
    assert_null(kg_json_path(at.object, "metadata.labels"));
    kg_arena_free(&a);
    kg_admission_memcluster_free(m);
}

static void binding_to_node_gets_topology_labels(void **state)
{
    kg_admission_memcluster *m = state_with_node(true);
    kg_admission_services svc = kg_admission_memcluster_services(m, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Binding", "pods", "ns", "p",
           tj(&a, "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"p\"},\"target\":{\"kind\":"
                  "\"Node\",\"name\":\"n1\"}}"),
           NULL);
    at.subresource = "binding";
    admit_idempotent(P, NULL, &svc, &at);
    assert_json(&a, kg_json_path(at.object, "metadata.labels"),
                "{\"topology.kubernetes.io/zone\":\"z1\",\"topology.kubernetes.io/region\":\"r1\"}");
    /* a target that is not a Node is left alone */
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Binding", "pods", "ns", "p",
           tj(&a, "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"p\"},\"target\":{\"kind\":"
                  "\"Other\",\"name\":\"n1\"}}"),
           NULL);
    at.subresource = "binding";
    assert_null(admit1(P, NULL, &svc, &at));
    assert_null(kg_json_path(at.object, "metadata.labels"));
    /* wrong object type: plain 500 error */
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Binding", "pods", "ns", "p",
           tj(&a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"}}"), NULL);
    at.subresource = "binding";
    kg_status *st = admit1(P, NULL, &svc, &at);
    assert_non_null(st);
    assert_string_equal(st->message, "expected Binding but got Binding");
    assert_int_equal(kg_status_http_code(st), 500);
    kg_arena_free(&a);
    kg_admission_memcluster_free(m);
}

static void gate_off_is_a_no_op(void **state)
{
    kg_admission_memcluster *m = state_with_node(false);
    kg_admission_services svc = kg_admission_memcluster_services(m, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "p",
           tj(&a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"nodeName\":"
                  "\"n1\"}}"),
           NULL);
    assert_null(admit1(P, NULL, &svc, &at));
    assert_null(kg_json_path(at.object, "metadata.labels"));
    kg_arena_free(&a);
    kg_admission_memcluster_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pod_with_node_name_gets_topology_labels),
        cmocka_unit_test(binding_to_node_gets_topology_labels),
        cmocka_unit_test(gate_off_is_a_no_op),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
