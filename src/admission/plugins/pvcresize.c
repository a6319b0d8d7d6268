/* PersistentVolumeClaimResize (plugin/pkg/admission/storage/persistentvolume/resize), validating, UPDATE of
 * persistentvolumeclaims: growing spec.resources.requests.storage is only allowed for a Bound claim whose
 * StorageClass (same on old and new, non-empty, existing) has allowVolumeExpansion: true. */
#include <string.h>

#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"
#include "meta/quantity.h"

/* GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName */
static const char *claim_class(const kg_json *pvc)
{
    const kg_json *anns = kg_json_path(pvc, "metadata.annotations");
    const char *c =
        kg_json_is(anns, KG_JSON_OBJECT) ? kg_json_get_str(anns, "volume.beta.kubernetes.io/storage-class") : NULL;
    if (c)
        return c;
    c = kg_json_path_str(pvc, "spec.storageClassName");
    return c ? c : "";
}

static kg_quantity storage(const kg_json *pvc)
{
    kg_quantity q = kg_quantity_zero();
    const kg_json *v = kg_json_path(pvc, "spec.resources.requests");
    v = kg_json_is(v, KG_JSON_OBJECT) ? kg_json_get(v, "storage") : NULL;
    if (v && !kg_quantity_from_json(v, &q, NULL))
        q = kg_quantity_zero();
    return q;
}

static bool allow_resize(const kg_admission_attributes *a, const kg_admission_services *svc)
{
    const char *cls = claim_class(a->object), *old = claim_class(a->old_object);
    if (!cls[0] || !old[0] || strcmp(cls, old) != 0)
        return false;
    KG_ERROR_DECL(e);
    const kg_json *sc = kg_admission_view_obj(svc, a->arena, "storageclasses", "", cls, &e);
    const kg_json *ave = sc ? kg_json_get(sc, "allowVolumeExpansion") : NULL;
    return kg_json_is(ave, KG_JSON_BOOL) && ave->b;
}

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (!kg_admission_pu_is(a, "", "persistentvolumeclaims") ||
        !kg_admission_pu_obj_kind(a->object, "PersistentVolumeClaim") ||
        !kg_admission_pu_obj_kind(a->old_object, "PersistentVolumeClaim"))
        return NULL;
    kg_quantity nq = storage(a->object), oq = storage(a->old_object);
    if (kg_quantity_cmp(&nq, &oq) <= 0)
        return NULL; /* shrinking is rejected by validation, not here */
    const char *phase = kg_json_path_str(a->old_object, "status.phase");
    if (!phase || strcmp(phase, "Bound") != 0)
        return kg_admission_forbidden(a, "Only bound persistent volume claims can be expanded");
    if (!allow_resize(a, svc))
        return kg_admission_forbidden(a, "only dynamically provisioned pvc can be resized and the storageclass that "
                                         "provisions the pvc must support resize");
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_persistent_volume_claim_resize = {
    .name = "PersistentVolumeClaimResize",
    .handles = KG_ADMISSION_UPDATE,
    .validate = validate,
};
