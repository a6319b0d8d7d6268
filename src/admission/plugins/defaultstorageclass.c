/* DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault), mutating, CREATE of
 * persistentvolumeclaims: a claim that names no class (spec.storageClassName absent and no
 * volume.beta.kubernetes.io/storage-class annotation) gets the default StorageClass — the one annotated
 * storageclass.kubernetes.io/is-default-class (or the beta key) "true"; with several, the newest, ties by name. */
#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"
#include "base/log.h"

#define BETA_CLASS_ANN "volume.beta.kubernetes.io/storage-class"

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (!kg_admission_pu_is(a, "", "persistentvolumeclaims") ||
        !kg_admission_pu_obj_kind(a->object, "PersistentVolumeClaim"))
        return NULL;
    kg_arena *ar = a->arena;
    /* PersistentVolumeClaimHasClass: an explicit "" also counts as a class */
    const kg_json *anns = kg_json_path(a->object, "metadata.annotations");
    if (kg_json_path(a->object, "spec.storageClassName") ||
        (kg_json_is(anns, KG_JSON_OBJECT) && kg_json_get(anns, BETA_CLASS_ANN)))
        return NULL;
    KG_ERROR_DECL(e);
    const kg_json *list = kg_admission_view_array(svc, ar, "storageclasses", "", &e);
    if (!list)
        return kg_admission_forbidden(a, "%s", e.msg);
    const kg_json *def = kg_admission_pu_default_class(list, "storageclass.kubernetes.io/is-default-class",
                                                       "storageclass.beta.kubernetes.io/is-default-class");
    if (!def)
        return NULL;
    const char *name = kg_json_path_str(def, "metadata.name");
    KG_V(4, "defaulting storage class for claim %s (generate: %s) to %s", kg_admission_forbidden_name(a),
         kg_json_path_str(a->object, "metadata.generateName") ? "yes" : "no", name ? name : "");
    kg_json *spec = kg_json_get_or_add_object(ar, a->object, "spec");
    kg_json_set(ar, spec, "storageClassName", kg_json_new_str(ar, name ? name : ""));
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_default_storage_class = {
    .name = "DefaultStorageClass",
    .handles = KG_ADMISSION_CREATE,
    .admit = admit,
};
