/* Write-time validation of admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and
 * ValidatingWebhookConfiguration (k8s pkg/apis/admissionregistration/validation ValidateValidatingWebhookConfiguration
 * / ValidateMutatingWebhookConfiguration and k8s.io/apiserver pkg/util/webhook ValidateWebhookURL /
 * ValidateWebhookService), with upstream's field paths and messages:
 *
 *   webhooks[i].name                     IsFullyQualifiedName ("should be a domain with at least three segments
 *                                        separated by dots"), unique within the configuration (Duplicate value)
 *   webhooks[i].rules[j]                 operations / apiGroups / apiVersions / resources / scope (the rule
 *                                        validator shared with policies, match/rules_validate.h)
 *   webhooks[i].failurePolicy            Fail, Ignore
 *   webhooks[i].matchPolicy              Exact, Equivalent
 *   webhooks[i].sideEffects              required; None or NoneOnDryRun (Some/Unknown only kept on an update whose
 *                                        old object already had them)
 *   webhooks[i].timeoutSeconds           1..30
 *   webhooks[i].namespaceSelector / objectSelector   label selectors
 *   webhooks[i].clientConfig             exactly one of url (https, host, no user/fragment/query) or service
 *                                        (name, namespace, port 1..65535, path segments)
 *   webhooks[i].matchConditions          at most 64, names required, qualified and unique, expression required and
 *                                        compiled (bool result) by the shared condition compiler (match/conditions.h)
 *   webhooks[i].admissionReviewVersions  required, no duplicates, DNS-1035 labels, one of v1, v1beta1
 *   webhooks[i].reinvocationPolicy       (mutating) Never, IfNeeded
 *
 * Defaults (failurePolicy Fail, matchPolicy Equivalent, selectors {}, timeoutSeconds 10, reinvocationPolicy Never,
 * rule scope "*", service port 443) are applied before validation by api/defaults.c (kg_api_default), as upstream's
 * defaulting runs at decode. The registry calls these through its strategy table (registry/strategy.c). */
#ifndef KG_ADMISSION_WEBHOOK_VALIDATION_H
#define KG_ADMISSION_WEBHOOK_VALIDATION_H

#include <stdbool.h>

#include "base/arena.h"
#include "json/json.h"
#include "meta/status.h"

/* Append the field errors of obj (old: the stored object on update, NULL on create). mutating selects
 * MutatingWebhookConfiguration's rules (reinvocationPolicy). */
void kg_webhook_validate_configuration(kg_arena *a, const kg_json *obj, const kg_json *old, bool mutating,
                                       kg_field_errors *errs);
/* The two strategy hooks (same signature as kg_strategy.validate). */
void kg_webhook_validate_mutating(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs);
void kg_webhook_validate_validating(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs);

#endif
