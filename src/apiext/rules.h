/* x-kubernetes-validations: CEL rules of CRD schemas (apiextensions-apiserver pkg/apiserver/schema/cel), on kgate's
 * CEL engine with the Kubernetes libraries.
 *
 * Rules are compiled once per CRD version with the schema (kg_xs_compile calls kg_xs_rules_compile_tree), in an
 * environment of that schema where `self` is typed at each rule's node (apiext/celtypes.h) and `oldSelf` alike (an
 * optional of it with optionalOldSelf). They are evaluated per request by kg_xs_validate_rules, which walks the
 * object and the old object together (old values correlate through object properties, map values and
 * list-type=map items by key) and runs each node's rules over the typed view of the values: transition rules
 * (those using oldSelf) only where an old value correlates, unless optionalOldSelf is set (oldSelf is then an
 * optional). Per-call limit CEL_PER_CALL_LIMIT, per-object budget CEL_RUNTIME_BUDGET, upstream's messages.
 *
 * At CRD write, kg_xs_rules_check checks each node's rule fields and kg_xs_rules_check_tree compiles every rule
 * typed and estimates its cost with the schema's size bounds, as upstream: compile errors, results that are no
 * bool (messageExpression: no string), per-expression cost over 10,000,000 (the rule's estimate times how often its
 * node can occur: the maxItems / maxProperties above it, or what fits in a 3 MiB request), the schema's total over
 * 100,000,000, and transition rules under list items that cannot correlate. */
#ifndef KG_APIEXT_RULES_H
#define KG_APIEXT_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "apiext/schema.h"
#include "base/arena.h"
#include "json/json.h"
#include "meta/status.h"

/* Compile the rules of every node of root, a resource's schema compiled by kg_xs_compile_nodes (programs and the
 * environment freed when a is reset or freed). Rules that do not compile are left out (CRD validation reports
 * them). */
void kg_xs_rules_compile_tree(kg_arena *a, kg_xs *root);

/* CRD validation of one node's rule fields (static checks with upstream's messages); path is the node's schema path
 * ("spec.validation.openAPIV3Schema.properties[spec]"). */
void kg_xs_rules_check(kg_arena *a, const kg_json *validations, const char *path, kg_field_errors *errs);

/* CRD validation of the rules of a whole schema (the root of a resource; path its schema path), with upstream's
 * messages: compile errors of the typed rules and results that are no bool are always reported; the cost estimates,
 * messageExpression errors and oldSelf correlation only when the schema has no other errors (schema_errors false,
 * and no compile error). */
void kg_xs_rules_check_tree(kg_arena *a, const kg_json *schema, const char *path, bool schema_errors,
                            kg_field_errors *errs);

/* Run every rule of the schema tree over v (old: the stored object on update, NULL on create); path is v's field
 * path ("" for the root, reported as upstream's nil path "<nil>"). */
void kg_xs_validate_rules(kg_arena *a, const kg_xs *s, const kg_json *v, const kg_json *old, kg_field_errors *errs);

#endif
