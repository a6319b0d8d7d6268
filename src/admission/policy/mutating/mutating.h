/* MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding (admissionregistration.k8s.io v1alpha1 / v1beta1,
 * Kubernetes v1.34 shape): their compiled form, the write-time defaults and validation the registry calls
 * (registry/strategy.c), the evaluation of one request (kg_map_dispatch) and the plugin
 * (kg_admission_plugin_mutating_admission_policy), which runs in the mutating phase just before
 * MutatingAdmissionWebhook.
 *
 * What a MAP shares with a ValidatingAdmissionPolicy (failurePolicy, paramKind, matchConstraints, matchConditions;
 * a binding's policyName, paramRef and matchResources) is compiled, validated and evaluated by the VAP code
 * (policy.h): a MAP holds a kg_vap_policy for those parts and a binding a kg_vap_binding, so the matcher, the param
 * collection and the error texts are the same code. What is MAP's own is here: variables in the mutation
 * environment (`Object`, `JSONPatch`, `jsonpatch.escapeKey`), mutations (JSONPatch and ApplyConfiguration),
 * reinvocationPolicy and the reinvocation record.
 *
 * Compilation happens on write (validation) and when the plugin sees a policy change; never per request.
 *
 * Upstream sources: k8s.io/apiserver pkg/admission/plugin/policy/mutating (dispatcher.go, compilation.go,
 * reinvocationcontext.go, patch/json_patch.go, patch/smd.go); validation in pkg/apis/admissionregistration/
 * validation. */
#ifndef KG_ADMISSION_POLICY_MUTATING_H
#define KG_ADMISSION_POLICY_MUTATING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "admission/policy/policy.h"

typedef enum kg_map_patch_type {
    KG_MAP_APPLY_CONFIGURATION = 1,
    KG_MAP_JSON_PATCH,
} kg_map_patch_type;

typedef struct kg_map_mutation {
    kg_map_patch_type type; /* 0: invalid (the policy then has a config error) */
    kg_acel_expr expr;
} kg_map_mutation;

/* A compiled MutatingAdmissionPolicy. Immutable once built; shared by requests through the plugin's snapshots. */
typedef struct kg_map_policy {
    atomic_uint refs;
    kg_arena arena;
    kg_vap_policy *common; /* name, failurePolicy, paramKind, matchConstraints, matchConditions, config_error */
    bool has_vars;
    kg_acel_vars vars; /* in the mutation environment */
    kg_map_mutation *mutations;
    size_t nmutations;
    bool reinvoke_if_needed;  /* reinvocationPolicy IfNeeded */
    const char *config_error; /* MAP's own (a variable environment that could not be built) */
} kg_map_policy;

/* A compiled binding: policyName, paramRef, matchResources (the VAP binding without validationActions). */
typedef struct kg_map_binding {
    atomic_uint refs;
    kg_vap_binding *common;
} kg_map_binding;

/* Compile a policy (errs: validation mode, field errors as upstream; old: the stored object on update). svc may be
 * NULL (paramKind not resolved). NULL only when obj is not an object. */
kg_map_policy *kg_map_policy_compile(const kg_json *obj, const kg_json *old, const kg_admission_services *svc,
                                     kg_arena *a, kg_field_errors *errs);
kg_map_policy *kg_map_policy_ref(kg_map_policy *p);
void kg_map_policy_unref(kg_map_policy *p);
kg_map_binding *kg_map_binding_compile(const kg_json *obj, kg_arena *a, kg_field_errors *errs);
kg_map_binding *kg_map_binding_ref(kg_map_binding *b);
void kg_map_binding_unref(kg_map_binding *b);

/* ---- registry hooks (registry/strategy.c) ---- */
/* SetDefaults: spec.failurePolicy Fail, reinvocationPolicy Never, matchConstraints / matchResources as VAP. */
void kg_map_policy_defaults(kg_arena *a, kg_json *obj);
void kg_map_binding_defaults(kg_arena *a, kg_json *obj);
void kg_map_policy_validate(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs);
void kg_map_binding_validate(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs);

/* ---- ApplyConfiguration merge (apply.c) ---- */

/* Merge an apply configuration into obj in place with server-side apply's merge rules: maps (objects) merge
 * recursively, `null` removes a field, lists follow their x-kubernetes-list-type as the services' schema gives it
 * for the kind (kg_admission_list_type): `map` lists merge items by their list-map-keys (an item whose keys match
 * merges into the existing one, others are appended), `set` lists add the values not yet present, `atomic` lists
 * (and lists of unknown type) are replaced. Returns false with *err (in a) when the configuration does not fit
 * the object (a map item without its keys, a non-object where an object is). */
bool kg_map_apply(kg_arena *a, kg_json *obj, const kg_json *config, const kg_gvk *kind,
                  const kg_admission_services *svc, const char **err);

/* ---- evaluation ---- */

/* A policy (kg_map_policy *) with the bindings that name it (kg_map_binding *): policy/generic/source.h. */
typedef kg_policy_entry kg_map_entry;

/* upstream mutating/metrics.go: apiserver_mutating_admission_policy_check_total and
 * apiserver_mutating_admission_policy_check_duration_seconds, labels {policy, policy_binding, error_type}. */
typedef struct kg_map_metrics {
    kg_metric *check_total;
    kg_metric *check_duration;
} kg_map_metrics;

bool kg_map_metrics_register(kg_metrics_registry *r, kg_map_metrics *out);

/* Apply the matching (policy, binding, param) mutations to attrs->object in order; reinvocation per the record
 * kept in the plugin's request slot. Returns the first error under failurePolicy Fail (NULL: admitted). */
kg_status *kg_map_dispatch(const kg_map_entry *entries, size_t n, kg_admission_attributes *attrs,
                           const kg_admission_services *svc, const kg_map_metrics *metrics);

extern const kg_admission_plugin kg_admission_plugin_mutating_admission_policy;

#endif
