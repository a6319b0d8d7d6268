/* AlwaysDeny (plugin/pkg/admission/deny): rejects every request in both phases with
 * admission.NewForbidden(a, "admission control is denying all modifications"). Deprecated upstream. */
#include "admission/plugin.h"
#include "admission/registry.h"
#include "base/log.h"

static bool init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    KG_WARN("%s admission controller is deprecated. Please remove this controller from your configuration files and "
            "scripts.",
            "AlwaysDeny");
    *state = NULL;
    return true;
}

static kg_status *admit(void *state, kg_admission_attributes *attrs, const kg_admission_services *svc)
{
    return kg_admission_forbidden(attrs, "admission control is denying all modifications");
}

static kg_status *validate(void *state, const kg_admission_attributes *attrs, const kg_admission_services *svc)
{
    return kg_admission_forbidden(attrs, "admission control is denying all modifications");
}

const kg_admission_plugin kg_admission_plugin_always_deny = {
    .name = "AlwaysDeny",
    .handles = KG_ADMISSION_ALL_OPS,
    .init = init,
    .admit = admit,
    .validate = validate,
};
