/* LimitPodHardAntiAffinityTopology: allowed terms, exact 403 messages, ignored inputs. */
#include "plugin_testutil.h"


#define P kg_admission_plugin_limit_pod_hard_anti_affinity_topology

static kg_status *check(kg_arena *a, kg_admission_op op, const char *name, const char *affinity, const char *sub)
{
    kg_admission_attributes at;
    tattrs(&at, a, op, "Pod", "pods", "ns", "",
           tj(a, kg_arena_sprintf(a,
                                  "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},"
                                  "\"spec\":{\"affinity\":%s}}",
                                  name, affinity)),
           op == KG_ADMISSION_UPDATE ? tj(a, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"}}") : NULL);
    at.subresource = sub;
    return validate1(&P, NULL, NULL, &at);
}

#define ANTI(required, preferred)                                                                                      \
    "{\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":" required                               \
    ",\"preferredDuringSchedulingIgnoredDuringExecution\":" preferred "}}"
#define TERM(key) "{\"labelSelector\":{\"matchLabels\":{\"a\":\"b\"}},\"topologyKey\":\"" key "\"}"

static void handles(void **state)
{
    assert_int_equal(P.handles, KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE);
    assert_null(P.admit);
    assert_ptr_equal(kg_admission_registry_find("LimitPodHardAntiAffinityTopology")->impl, &P);
}

static void allowed(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_null(check(&a, KG_ADMISSION_CREATE, "p", "{}", ""));
    assert_null(check(&a, KG_ADMISSION_CREATE, "p", ANTI("[" TERM("kubernetes.io/hostname") "]", "[]"), ""));
    assert_null(check(&a, KG_ADMISSION_CREATE, "p",
                      ANTI("[]", "[{\"weight\":1,\"podAffinityTerm\":" TERM("topology.kubernetes.io/zone") "}]"), ""));
    assert_null(check(&a, KG_ADMISSION_CREATE, "p",
                      "{\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[" TERM(
                          "topology.kubernetes.io/zone") "]}}",
                      ""));
    assert_null(check(&a, KG_ADMISSION_UPDATE, "p", ANTI("[" TERM("topology.kubernetes.io/zone") "]", "[]"), "status"));
    kg_arena_free(&a);
}

static void denied(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_status(check(&a, KG_ADMISSION_CREATE, "p",
                        ANTI("[" TERM("kubernetes.io/hostname") "," TERM("topology.kubernetes.io/zone") "]", "[]"), ""),
                  403, "Forbidden",
                  "pods \"p\" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey "
                  "topology.kubernetes.io/zone but only key kubernetes.io/hostname is allowed");
    assert_status(check(&a, KG_ADMISSION_UPDATE, "p", ANTI("[" TERM("") "]", "[]"), ""), 403, "Forbidden",
                  "pods \"p\" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey  but "
                  "only key kubernetes.io/hostname is allowed");
    /* the pod's own name (empty for generateName pods), not admission.NewForbidden's naming */
    assert_status(check(&a, KG_ADMISSION_CREATE, "", ANTI("[" TERM("zone") "]", "[]"), ""), 403, "Forbidden",
                  "pods is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey zone but only "
                  "key kubernetes.io/hostname is allowed");
    kg_arena_free(&a);
}

static void non_pod_is_bad_request(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "ns", "p", tj(&a, "{\"kind\":\"Secret\"}"), NULL);
    assert_status(validate1(&P, NULL, NULL, &at), 400, "BadRequest",
                  "Resource was marked with kind Pod but was unable to be converted");
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles),
        cmocka_unit_test(allowed),
        cmocka_unit_test(denied),
        cmocka_unit_test(non_pod_is_bad_request),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
