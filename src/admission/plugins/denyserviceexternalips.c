/* DenyServiceExternalIPs (plugin/pkg/admission/network/denyserviceexternalips), validating, CREATE/UPDATE of
 * services: no new spec.externalIPs (CVE-2020-8554); an UPDATE may keep, reorder or drop existing ones. */
#include <string.h>

#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (!kg_admission_pu_is(a, "", "services"))
        return NULL;
    if (!kg_admission_pu_obj_kind(a->object, "Service"))
        return kg_status_internal(a->arena, kg_arena_sprintf(a->arena, "Expected Service resource, got: %s/%s, Kind=%s",
                                                             a->kind.group, a->kind.version, a->kind.kind));
    const kg_json *ips = kg_json_path(a->object, "spec.externalIPs");
    if (!kg_json_is(ips, KG_JSON_ARRAY) || ips->len == 0)
        return NULL;
    if (a->operation == KG_ADMISSION_UPDATE && kg_json_is(a->old_object, KG_JSON_OBJECT)) {
        const kg_json *old = kg_json_path(a->old_object, "spec.externalIPs");
        kg_admission_pu_strset prev = {0};
        for (size_t i = 0; kg_json_is(old, KG_JSON_ARRAY) && i < old->len; i++)
            if (kg_json_is(kg_json_at(old, i), KG_JSON_STRING))
                kg_admission_pu_strset_add(a->arena, &prev, kg_json_at(old, i)->u.s);
        kg_admission_pu_strset_seal(&prev);
        bool all_old = true;
        for (size_t i = 0; i < ips->len && all_old; i++) {
            const kg_json *v = kg_json_at(ips, i);
            all_old = kg_json_is(v, KG_JSON_STRING) && kg_admission_pu_strset_has(&prev, v->u.s);
        }
        if (all_old)
            return NULL;
    }
    return kg_admission_forbidden(a, "Use of external IPs is denied by admission control");
}

const kg_admission_plugin kg_admission_plugin_deny_service_external_ips = {
    .name = "DenyServiceExternalIPs",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE,
    .validate = validate,
};
