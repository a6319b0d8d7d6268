/* x-kubernetes-validations: CEL rules of CRD schemas (apiextensions-apiserver pkg/apiserver/schema/cel), on kgate's
 * CEL engine with the Kubernetes libraries.
 *
 * Rules are compiled once with the schema (kg_xs_compile calls kg_xs_rules_compile) in one shared environment where
 * `self` and `oldSelf` are dyn; evaluated per request by kg_xs_validate_rules, which walks the object and the old
 * object together (old values correlate through object properties, map values and list-type=map items by key) and
 * runs each node's rules: transition rules (those using oldSelf) only where an old value correlates, unless
 * optionalOldSelf is set (oldSelf is then an optional). Per-call limit CEL_PER_CALL_LIMIT, per-object budget
 * CEL_RUNTIME_BUDGET, upstream's messages. */
#ifndef KG_APIEXT_RULES_H
#define KG_APIEXT_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "apiext/schema.h"
#include "base/arena.h"
#include "json/json.h"
#include "meta/status.h"

/* Compile the rules of one schema node (its "x-kubernetes-validations" array) into s->rules (programs freed when a
 * is reset or freed). Rules that do not compile are left out (CRD validation reports them). */
void kg_xs_rules_compile(kg_arena *a, kg_xs *s, const kg_json *validations);

/* CRD validation of one node's rules: static checks and compilation with upstream's messages; path is the node's
 * schema path ("spec.validation.openAPIV3Schema.properties[spec]"). */
void kg_xs_rules_check(kg_arena *a, const kg_json *validations, const char *path, kg_field_errors *errs);

/* Run every rule of the schema tree over v (old: the stored object on update, NULL on create); path is v's field
 * path ("" for the root, reported as upstream's nil path "<nil>"). */
void kg_xs_validate_rules(kg_arena *a, const kg_xs *s, const kg_json *v, const kg_json *old, kg_field_errors *errs);

#endif
