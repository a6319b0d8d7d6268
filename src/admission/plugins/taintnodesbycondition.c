/* TaintNodesByCondition (plugin/pkg/admission/nodetaint), mutating, CREATE of nodes: a new node starts with the
 * taint node.kubernetes.io/not-ready:NoSchedule (the node lifecycle controller removes it once the node is Ready),
 * so nothing is scheduled onto it before its conditions are known. */
#include <string.h>

#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"

#define NOT_READY "node.kubernetes.io/not-ready"

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (!kg_admission_pu_is(a, "", "nodes"))
        return NULL;
    if (!kg_admission_pu_obj_kind(a->object, "Node"))
        return kg_admission_forbidden(a, "unexpected type *core.%s", kg_admission_pu_str(a->object, "kind"));
    kg_arena *ar = a->arena;
    kg_json *spec = kg_json_get_or_add_object(ar, a->object, "spec");
    kg_json *taints = kg_json_get(spec, "taints");
    for (size_t i = 0; kg_json_is(taints, KG_JSON_ARRAY) && i < taints->len; i++) {
        const kg_json *t = kg_json_at(taints, i);
        if (strcmp(kg_admission_pu_str(t, "key"), NOT_READY) == 0 &&
            strcmp(kg_admission_pu_str(t, "effect"), "NoSchedule") == 0)
            return NULL; /* MatchTaint: key and effect */
    }
    taints = kg_admission_pu_array(ar, spec, "taints");
    kg_json *t = kg_json_new_object(ar);
    kg_json_set(ar, t, "key", kg_json_new_str(ar, NOT_READY));
    kg_json_set(ar, t, "effect", kg_json_new_str(ar, "NoSchedule"));
    kg_json_array_append(ar, taints, t);
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_taint_nodes_by_condition = {
    .name = "TaintNodesByCondition",
    .handles = KG_ADMISSION_CREATE,
    .admit = admit,
};
