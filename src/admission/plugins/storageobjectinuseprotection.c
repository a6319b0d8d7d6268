/* StorageObjectInUseProtection (plugin/pkg/admission/storage/storageobjectinuseprotection), mutating, CREATE:
 * new PersistentVolumes, PersistentVolumeClaims and (gate VolumeAttributesClass) VolumeAttributesClasses get the
 * protection finalizer, so they are not removed while a pod or claim still uses them. */
#include <string.h>

#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    const char *fin = NULL, *kind = NULL;
    if (kg_admission_pu_is(a, "", "persistentvolumes")) {
        fin = "kubernetes.io/pv-protection";
        kind = "PersistentVolume";
    } else if (kg_admission_pu_is(a, "", "persistentvolumeclaims")) {
        fin = "kubernetes.io/pvc-protection";
        kind = "PersistentVolumeClaim";
    } else if (kg_admission_pu_is(a, "storage.k8s.io", "volumeattributesclasses") &&
               kg_admission_feature(svc, "VolumeAttributesClass")) {
        fin = "kubernetes.io/vac-protection";
        kind = "VolumeAttributesClass";
    } else {
        return NULL;
    }
    if (!kg_admission_pu_obj_kind(a->object, kind))
        return NULL;
    kg_arena *ar = a->arena;
    kg_json *md = kg_json_get_or_add_object(ar, a->object, "metadata");
    kg_json *fins = kg_json_get(md, "finalizers");
    for (size_t i = 0; kg_json_is(fins, KG_JSON_ARRAY) && i < fins->len; i++) {
        const kg_json *f = kg_json_at(fins, i);
        if (kg_json_is(f, KG_JSON_STRING) && strcmp(f->u.s, fin) == 0)
            return NULL;
    }
    kg_json_array_append(ar, kg_admission_pu_array(ar, md, "finalizers"), kg_json_new_str(ar, fin));
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_storage_object_in_use_protection = {
    .name = "StorageObjectInUseProtection",
    .handles = KG_ADMISSION_CREATE,
    .admit = admit,
};
