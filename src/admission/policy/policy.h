/* ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1): their compiled
 * form, the write-time defaults and validation the registry calls (registry/strategy.c), the evaluation of one
 * request against the compiled policies, and the plugin (kg_admission_plugin_validating_admission_policy).
 *
 * Compilation happens when a policy or binding is written (to validate it) and when the plugin sees it change
 * (to run it); never per request. kg_vap_policy_compile and kg_vap_binding_compile are that one code path: with a
 * field error list they are the validation (upstream pkg/apis/admissionregistration/validation, field paths and
 * messages as upstream), without one they build what the plugin runs. At run time, as upstream, an expression that
 * did not compile errors when evaluated (`compilation error: ...`), and what keeps the whole policy or binding from
 * running (an unknown paramKind, match criteria that do not decode) is a configuration error; both are handled by the
 * policy's failurePolicy.
 *
 * Upstream sources: k8s.io/apiserver pkg/admission/plugin/policy/validating (dispatcher.go, validator.go),
 * policy/generic (policy_dispatcher.go CollectParams), policy/matching, plugin/cel. */
#ifndef KG_ADMISSION_POLICY_H
#define KG_ADMISSION_POLICY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "admission/attributes.h"
#include "admission/cel/admission_cel.h"
#include "admission/match/conditions.h"
#include "admission/match/match.h"
#include "admission/policy/generic/source.h"
#include "admission/plugin.h"
#include "admission/services.h"
#include "admission/warnings.h"
#include "base/arena.h"
#include "base/metrics.h"
#include "json/json.h"
#include "meta/labels.h"
#include "meta/status.h"

#define KG_VAP_MAX_AUDIT_ANNOTATIONS 20
#define KG_VAP_MAX_AUDIT_VALUE_EXPRESSION 5120
#define KG_VAP_MAX_AUDIT_VALUE_LENGTH (10 * 1024)
#define KG_VAP_VALIDATION_FAILURE_KEY "validation.policy.admission.k8s.io/validation_failure"

/* validationActions */
enum {
    KG_VAP_DENY = 1u << 0,
    KG_VAP_WARN = 1u << 1,
    KG_VAP_AUDIT = 1u << 2,
};

typedef struct kg_vap_validation {
    kg_acel_expr expr;
    const char *message;       /* trimmed message, "" when absent */
    kg_acel_expr message_expr; /* source NULL when absent */
    const char *reason;        /* Forbidden, Invalid (default), RequestEntityTooLarge, Unauthorized */
} kg_vap_validation;

typedef struct kg_vap_audit_annotation {
    const char *key;
    kg_acel_expr expr;
} kg_vap_audit_annotation;

/* A compiled policy. Immutable once built; shared by requests through the plugin's snapshots (refs). */
typedef struct kg_vap_policy {
    atomic_uint refs;
    kg_arena arena; /* everything below */
    const char *name;
    const char *resource_version;
    bool fail_open; /* failurePolicy Ignore */
    /* paramKind */
    bool has_param_kind;
    const char *param_api_version, *param_kind;
    const char *param_resource; /* plural resolved through the services; NULL: unknown kind (config error) */
    bool param_namespaced;
    kg_match_criteria match; /* matchConstraints */
    kg_match_conditions conditions;
    bool has_vars;
    kg_acel_vars vars; /* composited environments (has_vars) */
    kg_vap_validation *validations;
    size_t nvalidations;
    kg_vap_audit_annotation *audits;
    size_t naudits;
    /* Set when the policy cannot run (a field that did not decode or compile, an unknown paramKind): every
     * matching request gets `failed to configure policy: <config_error>` under failurePolicy Fail. */
    const char *config_error;
} kg_vap_policy;

typedef struct kg_vap_binding {
    atomic_uint refs;
    kg_arena arena;
    const char *name;
    const char *resource_version;
    const char *policy_name;
    bool has_match; /* matchResources given */
    kg_match_criteria match;
    /* paramRef */
    bool has_param_ref;
    const char *param_name;      /* "" when selecting */
    const char *param_namespace; /* "" when not given */
    bool has_param_selector;
    kg_label_selector param_selector;
    bool param_not_found_deny;
    unsigned actions;         /* KG_VAP_DENY | KG_VAP_WARN | KG_VAP_AUDIT */
    const char *actions_json; /* validationActions as a JSON array, for the Audit annotation */
    const char *config_error; /* `failed to configure binding: <config_error>` */
} kg_vap_binding;

/* Compile a policy object. errs (with a, the arena for the error strings): validation mode, the field errors as
 * upstream; old is then the stored object on update (NULL on create): expressions it does not have are new and must
 * also compile with the previous minor version's CEL libraries, as upstream's NewExpressions environment. svc may be
 * NULL (paramKind is then not resolved). Returns NULL only when obj is not an object. */
kg_vap_policy *kg_vap_policy_compile(const kg_json *obj, const kg_json *old, const kg_admission_services *svc,
                                     kg_arena *a, kg_field_errors *errs);
kg_vap_policy *kg_vap_policy_ref(kg_vap_policy *p);
void kg_vap_policy_unref(kg_vap_policy *p);

kg_vap_binding *kg_vap_binding_compile(const kg_json *obj, kg_arena *a, kg_field_errors *errs);
kg_vap_binding *kg_vap_binding_ref(kg_vap_binding *b);
void kg_vap_binding_unref(kg_vap_binding *b);

/* ---- registry hooks (registry/strategy.c) ---- */
/* SetDefaults: spec.failurePolicy Fail, matchConstraints' matchPolicy Equivalent, namespaceSelector and
 * objectSelector {}, rules' scope "*". */
void kg_vap_policy_defaults(kg_arena *a, kg_json *obj);
void kg_vap_binding_defaults(kg_arena *a, kg_json *obj);
/* Validation on create (old NULL) and update: field errors as upstream. */
void kg_vap_policy_validate(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs);
void kg_vap_binding_validate(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs);

/* ---- evaluation ---- */

/* A policy (kg_vap_policy *) with the bindings that name it (kg_vap_binding *), as the policy source's snapshot
 * holds them (policy/generic/source.h). */
typedef kg_policy_entry kg_vap_entry;

/* upstream's validating/metrics: apiserver_validating_admission_policy_check_total and
 * apiserver_validating_admission_policy_check_duration_seconds, labels {policy, policy_binding, error_type,
 * enforcement_action}. Recorded per decision and action: deny / warn / audit for failed validations (and errors under
 * Fail), allow for errors under Ignore; error_type compile_error, out_of_budget or invalid_error (as upstream, a
 * validation that is simply false counts as invalid_error). */
typedef struct kg_vap_metrics {
    kg_metric *check_total;
    kg_metric *check_duration;
} kg_vap_metrics;

/* Register both in r, or find them when already registered. */
bool kg_vap_metrics_register(kg_metrics_registry *r, kg_vap_metrics *out);

/* Evaluate the request against the entries (in order) and apply the binding actions: warnings, audit
 * annotations, and the first denial as the returned Status (NULL: admitted). Allocates in attrs->arena only.
 * metrics may be NULL. */
kg_status *kg_vap_dispatch(const kg_vap_entry *entries, size_t n, kg_admission_attributes *attrs,
                           const kg_admission_services *svc, const kg_vap_metrics *metrics);

/* upstream CollectParams for one (policy, binding): the param objects to evaluate with (a single NULL when the
 * policy or the binding has none; possibly none). False with *err (in attrs->arena) on a configuration error.
 * Shared with MutatingAdmissionPolicy. */
bool kg_vap_collect_params(kg_admission_attributes *attrs, const kg_admission_services *svc, const kg_vap_policy *p,
                           const kg_vap_binding *b, const kg_json ***out, size_t *n, const char **err);

/* The policy resources themselves are never evaluated by policies (upstream's exclusion of the four
 * admissionregistration.k8s.io policy resources, any subresource; and the auth virtual resources). */
bool kg_vap_request_excluded(const kg_admission_attributes *attrs);

/* ---- write-time checks beyond validation (writecheck.c; registry/strategy.c runs them once the object is valid) */

/* Who writes, and what the check may consult. */
typedef struct kg_vap_write_ctx {
    kg_arena *a;
    const kg_admission_user *user;
    const kg_admission_services *svc; /* the authorizer, resource_for_kind, resource_served, the stored policies */
    kg_warnings *warnings;            /* NULL: warnings dropped */
} kg_vap_write_ctx;

/* paramKind authorization (`spec.paramKind: Forbidden: user ... must have "get" permission on all objects of the
 * referenced paramKind (kind=K, apiVersion=V)`, as upstream), then the Warning for resourceRules that match no
 * served resource. old: the stored object on update, NULL on create. */
void kg_vap_policy_check_write(const kg_vap_write_ctx *c, const kg_json *obj, const kg_json *old,
                               kg_field_errors *errs);
/* paramRef authorization (`... does not have "get" permission on the object referenced by paramRef`), then the
 * Warning for matchResources.resourceRules that match no served resource. */
void kg_vap_binding_check_write(const kg_vap_write_ctx *c, const kg_json *obj, const kg_json *old,
                                kg_field_errors *errs);

/* ---- type checking (typecheck.c; the status controller writes the result) ---- */

/* Type-check the policy's expressions against the OpenAPI schema of every kind its matchConstraints can match (at
 * most 10; kinds and schemas through svc->kind_for_resource and svc->kind_schema), with `params` typed from
 * paramKind's schema (upstream's TypeChecker.Check). Returns status.typeChecking.expressionWarnings: a JSON array
 * in a of {fieldRef, warning}, empty when nothing was found (or nothing could be checked). */
kg_json *kg_vap_typecheck(const kg_json *policy, const kg_admission_services *svc, kg_arena *a);

extern const kg_admission_plugin kg_admission_plugin_validating_admission_policy;

#endif
