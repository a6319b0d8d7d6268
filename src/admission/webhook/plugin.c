/* The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugin descriptors: each owns a hook source (the
 * compiled configurations, kept current by change notifications) and dispatches over the set current when a request
 * arrives. Both handle every operation (CREATE, UPDATE, DELETE, CONNECT). When the services carry a metrics registry
 * the webhook metrics (metrics.h) are registered there and every call is recorded. */
#include <stdlib.h>

#include "admission/plugin.h"
#include "admission/registry.h"
#include "admission/webhook/call.h"
#include "admission/webhook/mutating.h"
#include "admission/webhook/validating.h"

typedef struct plugin_state {
    kg_arena arena;            /* the kubeconfig's users */
    kg_client_kubeconfig auth; /* kubeConfigFile users */
    bool has_auth;
    kg_webhook_source *src;
    bool has_metrics;
    kg_webhook_metrics metrics;
} plugin_state;

/* WebhookAdmissionConfiguration (apiserver.config.k8s.io/v1; config/kubeconfig.go LoadConfig): kubeConfigFile, an
 * absolute path, whose users give the client credentials per webhook host. No configuration: none. */
static bool load_config(plugin_state *ps, const kg_json *config, kg_error *err)
{
    if (!config || kg_json_is(config, KG_JSON_NULL))
        return true;
    const kg_json *kc = kg_json_get(config, "kubeConfigFile");
    if (kc && !kg_json_is(kc, KG_JSON_STRING) && !kg_json_is(kc, KG_JSON_NULL))
        return kg_err_set(
            err, KG_EINVAL,
            "json: cannot unmarshal %s into Go struct field WebhookAdmission.kubeConfigFile of type string",
            kg_json_is(kc, KG_JSON_INT) || kg_json_is(kc, KG_JSON_NUMBER) ? "number"
            : kg_json_is(kc, KG_JSON_BOOL)                                ? "bool"
            : kg_json_is(kc, KG_JSON_ARRAY)                               ? "array"
                                                                          : "object");
    const char *path = kg_json_is(kc, KG_JSON_STRING) ? kc->u.s : "";
    if (path[0] != '/')
        return kg_err_set(err, KG_EINVAL, "kubeConfigFile: Invalid value: \"%s\": must be an absolute file path", path);
    if (!kg_client_kubeconfig_load(&ps->arena, path, &ps->auth, err))
        return false;
    ps->has_auth = true;
    return true;
}

static bool init_common(const kg_json *config, const kg_admission_services *svc, bool mutating, void **state,
                        kg_error *err)
{
    plugin_state *ps = calloc(1, sizeof *ps);
    if (!ps)
        return kg_err_set(err, KG_EINTERNAL, "out of memory");
    kg_arena_init(&ps->arena, 0);
    if (!load_config(ps, config, err) ||
        !(ps->src = kg_webhook_source_new_auth(svc, mutating, ps->has_auth ? &ps->auth : NULL, err))) {
        kg_arena_free(&ps->arena);
        free(ps);
        return false;
    }
    if (svc && svc->metrics && svc->metrics->registry)
        ps->has_metrics = kg_webhook_metrics_register(svc->metrics->registry, &ps->metrics);
    *state = ps;
    return true;
}

static bool init_mutating(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    return init_common(config, svc, true, state, err);
}

static bool init_validating(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    return init_common(config, svc, false, state, err);
}

static void destroy(void *state)
{
    plugin_state *ps = state;
    if (!ps)
        return;
    kg_webhook_source_free(ps->src);
    kg_arena_free(&ps->arena);
    free(ps);
}

static kg_status *admit(void *state, kg_admission_attributes *attrs, const kg_admission_services *svc)
{
    plugin_state *ps = state;
    kg_status *st = kg_webhook_wait_ready(attrs, svc, ps->src);
    if (st)
        return st;
    kg_webhook_set *set = kg_webhook_source_acquire(ps->src);
    st = kg_webhook_mutate(set, attrs, svc, ps->has_metrics ? &ps->metrics : NULL);
    kg_webhook_set_release(set);
    return st;
}

static kg_status *validate(void *state, const kg_admission_attributes *attrs, const kg_admission_services *svc)
{
    plugin_state *ps = state;
    if (kg_webhook_exempt(attrs)) { /* never sent to webhooks; a webhook configuration write gets safety warnings */
        kg_webhook_safety_warn(attrs, svc);
        return NULL;
    }
    kg_status *st = kg_webhook_wait_ready(attrs, svc, ps->src);
    if (st)
        return st;
    kg_webhook_set *set = kg_webhook_source_acquire(ps->src);
    /* the calling thread adds warnings and audit annotations after the calls (attributes.h: validating plugins may
     * record these; the chain runs one plugin at a time) */
    st = kg_webhook_validate(set, (kg_admission_attributes *)attrs, svc, ps->has_metrics ? &ps->metrics : NULL);
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
