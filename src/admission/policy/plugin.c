/* The ValidatingAdmissionPolicy plugin: evaluates every request against the compiled policies and bindings of the
 * cluster in the validating phase (kg_vap_dispatch). The policies are kept by the shared policy source
 * (policy/generic/source.h: compiled on change, an immutable snapshot per change, lock-free reads). */
#include <stdlib.h>

#include "admission/policy/generic/source.h"
#include "admission/policy/policy.h"

static void *compile_policy(const kg_json *obj, const kg_admission_services *svc)
{
    return kg_vap_policy_compile(obj, NULL, svc, NULL, NULL);
}
static void *compile_binding(const kg_json *obj)
{
    return kg_vap_binding_compile(obj, NULL, NULL);
}
static void *ref_policy(void *p)
{
    return kg_vap_policy_ref(p);
}
static void unref_policy(void *p)
{
    kg_vap_policy_unref(p);
}
static void *ref_binding(void *b)
{
    return kg_vap_binding_ref(b);
}
static void unref_binding(void *b)
{
    kg_vap_binding_unref(b);
}
static const char *policy_name(const void *p)
{
    return ((const kg_vap_policy *)p)->name;
}
static const char *policy_rv(const void *p)
{
    return ((const kg_vap_policy *)p)->resource_version;
}
static const char *binding_name(const void *b)
{
    return ((const kg_vap_binding *)b)->name;
}
static const char *binding_rv(const void *b)
{
    return ((const kg_vap_binding *)b)->resource_version;
}
static const char *binding_policy(const void *b)
{
    return ((const kg_vap_binding *)b)->policy_name;
}

static const kg_policy_source_ops vap_ops = {
    .kind = "ValidatingAdmissionPolicy",
    .policies_resource = "validatingadmissionpolicies",
    .bindings_resource = "validatingadmissionpolicybindings",
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

typedef struct vap_state {
    kg_policy_source *source;
    bool has_metrics;
    kg_vap_metrics metrics;
} vap_state;

static void vap_destroy(void *state)
{
    vap_state *st = state;
    if (!st)
        return;
    kg_policy_source_free(st->source);
    free(st);
}

static bool vap_init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    (void)config;
    vap_state *st = calloc(1, sizeof *st);
    if (!st)
        return kg_err_set(err, KG_EINTERNAL, "out of memory");
    if (svc && svc->metrics && svc->metrics->registry)
        st->has_metrics = kg_vap_metrics_register(svc->metrics->registry, &st->metrics);
    st->source = kg_policy_source_new(&vap_ops, svc, NULL);
    *state = st;
    return true;
}

static kg_status *vap_validate(void *state, const kg_admission_attributes *attrs, const kg_admission_services *svc)
{
    vap_state *st = state;
    if (kg_vap_request_excluded(attrs))
        return NULL;
    bool not_ready;
    kg_policy_snapshot *s = kg_policy_source_acquire(st->source, &not_ready);
    if (not_ready)
        return kg_admission_forbidden(attrs, "not yet ready to handle request");
    if (!s)
        return NULL;
    kg_status *res = NULL;
    if (s->n) {
        /* validating plugins may add warnings and audit annotations (attributes.h): they live in the request */
        res = kg_vap_dispatch(s->entries, s->n, (kg_admission_attributes *)(uintptr_t)attrs, svc,
                              st->has_metrics ? &st->metrics : NULL);
    }
    kg_policy_source_release(st->source, s);
    return res;
}

const kg_admission_plugin kg_admission_plugin_validating_admission_policy = {
    .name = "ValidatingAdmissionPolicy",
    .handles = KG_ADMISSION_ALL_OPS,
    .init = vap_init,
    .validate = vap_validate,
    .destroy = vap_destroy,
};
