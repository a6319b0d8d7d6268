/* The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugin descriptors: each owns a hook source (the
 * compiled configurations, kept current by change notifications) and dispatches over the set current when a request
 * arrives. Both handle every operation (CREATE, UPDATE, DELETE, CONNECT). */
#include <stdlib.h>

#include "admission/plugin.h"
#include "admission/registry.h"
#include "admission/webhook/call.h"
#include "admission/webhook/mutating.h"
#include "admission/webhook/validating.h"

static bool init_common(const kg_admission_services *svc, bool mutating, void **state, kg_error *err)
{
    kg_webhook_source *src = kg_webhook_source_new(svc, mutating, err);
    if (!src)
        return false;
    *state = src;
    return true;
}

static bool init_mutating(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    return init_common(svc, true, state, err);
}

static bool init_validating(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    return init_common(svc, false, state, err);
}

static void destroy(void *state)
{
    kg_webhook_source_free(state);
}

static kg_status *admit(void *state, kg_admission_attributes *attrs, const kg_admission_services *svc)
{
    kg_status *st = kg_webhook_wait_ready(attrs, svc, state);
    if (st)
        return st;
    kg_webhook_set *set = kg_webhook_source_acquire(state);
    st = kg_webhook_mutate(set, attrs, svc);
    kg_webhook_set_release(set);
    return st;
}

static kg_status *validate(void *state, const kg_admission_attributes *attrs, const kg_admission_services *svc)
{
    kg_status *st = kg_webhook_wait_ready(attrs, svc, state);
    if (st)
        return st;
    kg_webhook_set *set = kg_webhook_source_acquire(state);
    /* the calling thread adds warnings and audit annotations after the calls (attributes.h: validating plugins may
     * record these; the chain runs one plugin at a time) */
    st = kg_webhook_validate(set, (kg_admission_attributes *)attrs, svc);
    kg_webhook_set_release(set);
    return st;
}

const kg_admission_plugin kg_admission_plugin_mutating_admission_webhook = {
    .name = "MutatingAdmissionWebhook",
    .handles = KG_ADMISSION_ALL_OPS,
    .init = init_mutating,
    .admit = admit,
    .destroy = destroy,
};

const kg_admission_plugin kg_admission_plugin_validating_admission_webhook = {
    .name = "ValidatingAdmissionWebhook",
    .handles = KG_ADMISSION_ALL_OPS,
    .init = init_validating,
    .validate = validate,
    .destroy = destroy,
};
