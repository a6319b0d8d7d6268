/* LimitPodHardAntiAffinityTopology (plugin/pkg/admission/antiaffinity), validating, CREATE/UPDATE of pods: required
 * pod anti-affinity terms may only use the topology key kubernetes.io/hostname (a zone-wide hard anti-affinity
 * lets one pod block a whole zone). */
#include <string.h>

#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"

#define HOSTNAME "kubernetes.io/hostname"

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (!kg_admission_pu_is(a, "", "pods"))
        return NULL;
    if (!kg_admission_pu_obj_kind(a->object, "Pod"))
        return kg_status_bad_request(a->arena, "Resource was marked with kind Pod but was unable to be converted");
    const kg_json *terms =
        kg_json_path(a->object, "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution");
    for (size_t i = 0; kg_json_is(terms, KG_JSON_ARRAY) && i < terms->len; i++) {
        const char *key = kg_admission_pu_str(kg_json_at(terms, i), "topologyKey");
        if (strcmp(key, HOSTNAME) != 0) {
            const char *name = kg_json_path_str(a->object, "metadata.name");
            return kg_status_forbidden(
                a->arena, KG_GR(a->resource.group, a->resource.resource), name ? name : "",
                kg_arena_sprintf(a->arena,
                                 "affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey %s but only key "
                                 "%s is allowed",
                                 key, HOSTNAME));
        }
    }
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_limit_pod_hard_anti_affinity_topology = {
    .name = "LimitPodHardAntiAffinityTopology",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE,
    .validate = validate,
};
