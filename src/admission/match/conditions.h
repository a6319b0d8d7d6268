/* matchConditions of admission webhooks and admission policies (upstream webhook/matchconditions/matcher.go over
 * plugin/cel filter.go; validation in pkg/apis/admissionregistration/validation validateMatchConditions).
 *
 * A list of {name, expression} CEL conditions, compiled once when its configuration changes
 * (kg_match_conditions_compile, which also gives the write-time field errors) and evaluated per request after the
 * rules matched (kg_match_conditions_eval):
 *
 *   - any condition false            → KG_MC_NO_MATCH (even when others errored)
 *   - all true                       → KG_MC_MATCH
 *   - some errors and no false       → KG_MC_ERROR with the aggregated messages; the caller applies its failurePolicy
 *                                      (webhooks under Fail: 403 `<gr> "<name>" is forbidden: <errors>`)
 *
 * Budget: every condition runs under the per-expression limit (CEL_PER_CALL_LIMIT) and all conditions of one hook
 * share CEL_RUNTIME_BUDGET_MATCH_CONDITIONS (2,500,000); running out ends the evaluation with the error
 * `validation failed due to running out of cost budget, no further validation rules will be run`. An erroring
 * condition reads `expression '<expr>' resulted in error: <error>`.
 *
 * Environment: webhooks declare object, oldObject, request, namespaceObject (always null here), authorizer; policies
 * add params when they have a paramKind (kg_match_conditions_compile's params flag). Never `variables`.
 *
 * A webhook, for instance:
 *
 *   on configuration change:  kg_match_conditions_compile(&hook->mc, cfg_arena, kg_json_get(webhook,
 * "matchConditions"), false, "webhooks[0].matchConditions", errs_or_NULL); per request, after kg_match said YES (inv =
 * what it matched): kg_acel_input in; kg_acel_input_init(&in, attrs, &inv.resource, &inv.kind, NULL, svc->authorizer);
 *       switch (kg_match_conditions_eval(&hook->mc, &in, attrs->arena, &err, NULL)) {
 *       case KG_MC_NO_MATCH: skip the hook;
 *       case KG_MC_ERROR:    failurePolicy Fail → kg_admission_forbidden(attrs, "%s", err); Ignore → skip;
 *       case KG_MC_MATCH:    call it;
 *       } */
#ifndef KG_ADMISSION_MATCH_CONDITIONS_H
#define KG_ADMISSION_MATCH_CONDITIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "admission/cel/admission_cel.h"
#include "base/arena.h"
#include "json/json.h"
#include "meta/status.h"

#define KG_MATCH_CONDITIONS_MAX 64

typedef struct kg_match_condition {
    const char *name;
    kg_acel_expr expr;
} kg_match_condition;

typedef struct kg_match_conditions {
    kg_match_condition *items;
    size_t n;
} kg_match_conditions;

/* Compile the matchConditions array `list` (NULL or absent: none) at field path `path` (e.g.
 * "webhooks[0].matchConditions", "spec.matchConditions"). params: declare `params` (policies with a paramKind).
 * Strings are allocated in a, which must outlive the result. Field errors as upstream (Too many, Required name /
 * expression, name not a qualified name, Duplicate name, Invalid expression with the compiler's detail) are
 * appended to errs when errs is given. Returns true when everything compiled; out is usable either way (a
 * condition that did not compile evaluates to its compile error). */
bool kg_match_conditions_compile(kg_match_conditions *out, kg_arena *a, const kg_json *list, bool params,
                                 const char *path, kg_field_errors *errs);
void kg_match_conditions_free(kg_match_conditions *mc);

typedef enum kg_mc_result {
    KG_MC_MATCH = 0,
    KG_MC_NO_MATCH,
    KG_MC_ERROR,
} kg_mc_result;

/* Evaluate over a request's input (params set by the caller when declared). Values and the error text (*error,
 * for KG_MC_ERROR) live in a; *failed (may be NULL) names the condition that was false on KG_MC_NO_MATCH. */
kg_mc_result kg_match_conditions_eval(const kg_match_conditions *mc, const kg_acel_input *in, kg_arena *a,
                                      const char **error, const char **failed);

#endif
