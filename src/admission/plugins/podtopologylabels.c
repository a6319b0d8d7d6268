/* PodTopologyLabels (plugin/pkg/admission/podtopologylabels), mutating, CREATE, behind the
 * PodTopologyLabelsAdmission feature gate (alpha in v1.33, off by default). Copies the Node's
 * topology.kubernetes.io/zone and /region labels: onto a pod created with spec.nodeName, or onto a pods/binding
 * Binding whose target is a Node (the binding handler then copies them to the pod). Idempotent: re-running copies
 * the same values. */
#include <string.h>

#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"

static const char *const topology_labels[] = {"topology.kubernetes.io/zone", "topology.kubernetes.io/region"};

/* Copy the topology labels of node `name` into obj.metadata.labels (overwriting). Node absent: no change. */
static kg_status *copy_from_node(const kg_admission_attributes *a, const kg_admission_services *svc, kg_json *obj,
                                 const char *name)
{
    KG_ERROR_DECL(e);
    const kg_json *node = kg_admission_view_obj(svc, a->arena, "nodes", "", name, &e);
    if (!node)
        return e.code == KG_ENOTFOUND ? NULL : kg_admission_pu_plain(a->arena, "%s", e.msg);
    const kg_json *nlabels = kg_json_path(node, "metadata.labels");
    kg_json *labels = NULL;
    for (size_t i = 0; i < 2; i++) {
        const char *v = kg_json_get_str(nlabels, topology_labels[i]);
        if (!v)
            continue;
        if (!labels)
            labels = kg_json_get_or_add_object(a->arena, kg_json_get_or_add_object(a->arena, obj, "metadata"),
                                               "labels");
        kg_json_set(a->arena, labels, topology_labels[i], kg_json_new_str(a->arena, v));
    }
    return NULL;
}

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (!kg_admission_feature(svc, "PodTopologyLabelsAdmission"))
        return NULL;
    if (strcmp(a->resource.group, "") || strcmp(a->resource.resource, "pods"))
        return NULL;
    if (!a->subresource[0]) {
        if (!kg_admission_pu_obj_kind(a->object, "Pod"))
            return kg_admission_pu_plain(a->arena, "expected Pod but got %s", a->kind.kind);
        const char *node = kg_json_path_str(a->object, "spec.nodeName");
        if (!node || !node[0])
            return NULL;
        if (!kg_admission_wait_ready(svc, "nodes"))
            return kg_admission_forbidden(a, "not yet ready to handle request");
        return copy_from_node(a, svc, a->object, node);
    }
    if (!strcmp(a->subresource, "binding")) {
        if (!kg_admission_pu_obj_kind(a->object, "Binding"))
            return kg_admission_pu_plain(a->arena, "expected Binding but got %s", a->kind.kind);
        const char *kind = kg_json_path_str(a->object, "target.kind");
        const char *node = kg_json_path_str(a->object, "target.name");
        if (!kind || strcmp(kind, "Node") || !node || !node[0])
            return NULL;
        if (!kg_admission_wait_ready(svc, "nodes"))
            return kg_admission_forbidden(a, "not yet ready to handle request");
        return copy_from_node(a, svc, a->object, node);
    }
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_pod_topology_labels = {
    .name = "PodTopologyLabels",
    .handles = KG_ADMISSION_CREATE,
    .admit = admit,
};
