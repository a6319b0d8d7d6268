/* The MutatingAdmissionPolicy plugin: keeps the compiled policies and bindings of the cluster and applies them to
 * every CREATE, UPDATE and CONNECT in the mutating phase (kg_map_dispatch), just before MutatingAdmissionWebhook.
 *
 * Active only with the feature gate MutatingAdmissionPolicy and when the resources are served (`kgate serve` serves
 * them with --runtime-config=admissionregistration.k8s.io/v1beta1=true or /v1alpha1=true): otherwise the plugin
 * admits everything untouched, as upstream's plugin does with the gate off.
 *
 * The policies are kept by the policy source shared with the ValidatingAdmissionPolicy plugin
 * (policy/generic/source.h): compiled on change, an immutable snapshot per change, lock-free reads. */
#include <stdlib.h>

#include "admission/policy/generic/source.h"
#include "admission/policy/mutating/mutating.h"

static void *compile_policy(const kg_json *obj, const kg_admission_services *svc)
{
    return kg_map_policy_compile(obj, NULL, svc, NULL, NULL);
}
static void *compile_binding(const kg_json *obj)
{
    return kg_map_binding_compile(obj, NULL, NULL);
}
static void *ref_policy(void *p)
{
    return kg_map_policy_ref(p);
}
static void unref_policy(void *p)
{
    kg_map_policy_unref(p);
}
static void *ref_binding(void *b)
{
    return kg_map_binding_ref(b);
}
static void unref_binding(void *b)
{
    kg_map_binding_unref(b);
}
static const char *policy_name(const void *p)
{
    return ((const kg_map_policy *)p)->common->name;
}
static const char *policy_rv(const void *p)
{
    return ((const kg_map_policy *)p)->common->resource_version;
}
static const char *binding_name(const void *b)
{
    return ((const kg_map_binding *)b)->common->name;
}
static const char *binding_rv(const void *b)
{
    return ((const kg_map_binding *)b)->common->resource_version;
}
static const char *binding_policy(const void *b)
{
    return ((const kg_map_binding *)b)->common->policy_name;
}

static const kg_policy_source_ops map_ops = {
    .kind = "MutatingAdmissionPolicy",
    .policies_resource = "mutatingadmissionpolicies",
    .bindings_resource = "mutatingadmissionpolicybindings",
    .compile_policy = compile_policy,
    .compile_binding = compile_binding,
    .ref_policy = ref_policy,
    .unref_policy = unref_policy,
    .ref_binding = ref_binding,
    .unref_binding = unref_binding,
    .policy_name = policy_name,
    .policy_resource_version = policy_rv,
    .binding_name = binding_name,
    .binding_resource_version = binding_rv,
    .binding_policy = binding_policy,
};

typedef struct map_state {
    kg_policy_source *source; /* NULL: the gate is off or the API is not served */
    bool has_metrics;
    kg_map_metrics metrics;
} map_state;

static void map_destroy(void *state)
{
    map_state *st = state;
    if (!st)
        return;
    kg_policy_source_free(st->source);
    free(st);
}

static bool map_init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    (void)config;
    map_state *st = calloc(1, sizeof *st);
    if (!st)
        return kg_err_set(err, KG_EINTERNAL, "out of memory");
    *state = st;
    if (!kg_admission_feature(svc, "MutatingAdmissionPolicy"))
        return true; /* gate off: the plugin does nothing */
    bool not_served = false;
    st->source = kg_policy_source_new(&map_ops, svc, &not_served);
    if (not_served) { /* services that do not serve the resources (the API is not enabled): nothing to apply */
        kg_policy_source_free(st->source);
        st->source = NULL;
    }
    if (st->source && svc->metrics && svc->metrics->registry)
        st->has_metrics = kg_map_metrics_register(svc->metrics->registry, &st->metrics);
    return true;
}

static kg_status *map_admit(void *state, kg_admission_attributes *attrs, const kg_admission_services *svc)
{
    map_state *st = state;
    if (!st->source || !attrs->object || kg_vap_request_excluded(attrs))
        return NULL;
    bool not_ready;
    kg_policy_snapshot *s = kg_policy_source_acquire(st->source, &not_ready);
    if (not_ready)
        return kg_admission_forbidden(attrs, "not yet ready to handle request");
    if (!s)
        return NULL;
    kg_status *res = s->n ? kg_map_dispatch(s->entries, s->n, attrs, svc, st->has_metrics ? &st->metrics : NULL) : NULL;
    kg_policy_source_release(st->source, s);
    return res;
}

const kg_admission_plugin kg_admission_plugin_mutating_admission_policy = {
    .name = "MutatingAdmissionPolicy",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE | KG_ADMISSION_CONNECT,
    .init = map_init,
    .admit = map_admit,
    .destroy = map_destroy,
};
