/* Write-time validation of admission rules (pkg/apis/admissionregistration/validation validateRuleWithOperations,
 * validateRule, validateResources, and NamedRuleWithOperations' resourceNames), shared by webhook configurations and
 * admission policies. Field paths and messages as upstream; slice values print as Go's %#v
 * (`[]string{"*", "pods"}`). */
#ifndef KG_ADMISSION_MATCH_RULES_VALIDATE_H
#define KG_ADMISSION_MATCH_RULES_VALIDATE_H

#include <stdbool.h>

#include "base/arena.h"
#include "json/json.h"
#include "meta/status.h"

/* Validate one rule object at path (e.g. "webhooks[0].rules[1]", "spec.matchConstraints.resourceRules[0]"). named:
 * a NamedRuleWithOperations (policies), whose resourceNames are validated too. Errors are appended to errs. */
void kg_match_rule_validate(kg_arena *a, const kg_json *rule, const char *path, bool named, kg_field_errors *errs);

#endif
