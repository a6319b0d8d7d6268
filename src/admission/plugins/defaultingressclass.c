/* DefaultIngressClass (plugin/pkg/admission/network/defaultingressclass), mutating, CREATE of
 * ingresses.networking.k8s.io: an Ingress without spec.ingressClassName and without the deprecated
 * kubernetes.io/ingress.class annotation gets the default IngressClass (annotated
 * ingressclass.kubernetes.io/is-default-class "true"; with several, the newest, ties by name). */
#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (!kg_admission_pu_is(a, "networking.k8s.io", "ingresses"))
        return NULL;
    kg_arena *ar = a->arena;
    if (!kg_admission_pu_obj_kind(a->object, "Ingress"))
        return kg_status_internal(ar, kg_arena_sprintf(ar, "Expected Ingress resource, got: %s/%s, Kind=%s",
                                                       a->kind.group, a->kind.version, a->kind.kind));
    const kg_json *anns = kg_json_path(a->object, "metadata.annotations");
    if (kg_json_path(a->object, "spec.ingressClassName") ||
        (kg_json_is(anns, KG_JSON_OBJECT) && kg_json_get(anns, "kubernetes.io/ingress.class")))
        return NULL;
    KG_ERROR_DECL(e);
    const kg_json *list = kg_admission_view_array(svc, ar, "ingressclasses", "", &e);
    if (!list)
        return kg_admission_forbidden(a, "%s", e.msg);
    const kg_json *def = kg_admission_pu_default_class(list, "ingressclass.kubernetes.io/is-default-class", NULL);
    if (!def)
        return NULL;
    const char *name = kg_json_path_str(def, "metadata.name");
    kg_json *spec = kg_json_get_or_add_object(ar, a->object, "spec");
    kg_json_set(ar, spec, "ingressClassName", kg_json_new_str(ar, name ? name : ""));
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_default_ingress_class = {
    .name = "DefaultIngressClass",
    .handles = KG_ADMISSION_CREATE,
    .admit = admit,
};
