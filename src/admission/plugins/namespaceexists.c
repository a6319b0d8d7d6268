/* NamespaceExists (plugin/pkg/admission/namespace/exists), validating, CREATE/UPDATE/DELETE: rejects requests in a
 * namespace that does not exist (cache first, then a live lookup in case the cache lags). */
#include "admission/plugin.h"
#include "admission/registry.h"

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (!a->ns[0] || kg_admission_is_namespace_kind(a))
        return NULL;
    if (!kg_admission_wait_ready(svc, "namespaces"))
        return kg_admission_forbidden(a, "not yet ready to handle request");
    KG_ERROR_DECL(e);
    if (kg_admission_view(svc, a->arena, "namespaces", "", a->ns, &e))
        return NULL;
    if (e.code != KG_ENOTFOUND)
        return kg_status_internal(a->arena, e.msg);
    /* the cache may lag: ask the store */
    kg_err_clear(&e);
    if (kg_admission_get(svc, a->arena, "namespaces", "", a->ns, KG_ADMISSION_GET_LIVE, &e))
        return NULL;
    if (e.code == KG_ENOTFOUND)
        return kg_status_not_found(a->arena, KG_GR("", "namespaces"), a->ns);
    return kg_status_internal(a->arena, e.msg);
}

const kg_admission_plugin kg_admission_plugin_namespace_exists = {
    .name = "NamespaceExists",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE | KG_ADMISSION_DELETE,
    .validate = validate,
};
