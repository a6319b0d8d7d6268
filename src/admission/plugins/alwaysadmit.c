/* AlwaysAdmit (plugin/pkg/admission/admit): admits every request, in both phases. Deprecated upstream. */
#include "admission/plugin.h"
#include "admission/registry.h"
#include "base/log.h"

static bool init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    KG_WARN("%s admission controller is deprecated. Please remove this controller from your configuration files and "
            "scripts.",
            "AlwaysAdmit");
    *state = NULL;
    return true;
}

static kg_status *admit(void *state, kg_admission_attributes *attrs, const kg_admission_services *svc)
{
    return NULL;
}

static kg_status *validate(void *state, const kg_admission_attributes *attrs, const kg_admission_services *svc)
{
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_always_admit = {
    .name = "AlwaysAdmit",
    .handles = KG_ADMISSION_ALL_OPS,
    .init = init,
    .admit = admit,
    .validate = validate,
};
