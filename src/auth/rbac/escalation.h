/* RBAC escalation prevention's rule comparison (k8s.io/component-helpers auth/rbac/validation policy_comparator.go
 * and k/k pkg/registry/rbac/validation ConfirmNoEscalation): whether the rules a user holds cover the rules they try
 * to grant, and upstream's 403 text when they do not.
 *
 * Coverage: each requested rule is broken down into atoms (group × resource × verb [× name]; URL × verb); an atom is
 * covered by one owner rule whose verbs and groups hold it or "*", whose resources hold it, "*" or "*\/<sub>" for
 * "<res>/<sub>", whose names are empty or hold the atom's name (an owner rule with names never covers an unnamed
 * atom), and whose URLs hold it, "*" or a "prefix*" of it. */
#ifndef KG_AUTH_RBAC_ESCALATION_H
#define KG_AUTH_RBAC_ESCALATION_H

#include <stdbool.h>
#include <stddef.h>

#include "auth/rbac/rule.h"
#include "auth/user.h"
#include "base/arena.h"

/* NULL when owner covers every requested rule; otherwise the uncovered atoms compacted (verbs of the same
 * group/resource/name merged), each printed as upstream's PolicyRule.CompactString
 * (`{APIGroups:[""], Resources:["nodes"], Verbs:["get" "list"]}`), sorted, deduplicated and joined by "\n". */
const char *kg_rbac_missing_rules(kg_arena *a, const kg_rbac_rule *owner, size_t nowner, const kg_rbac_rule *want,
                                  size_t nwant);

/* `user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n<missing>`
 * with `; resolution errors: [<errors>]` when errors is non-empty. */
const char *kg_rbac_escalation_message(kg_arena *a, const kg_user_info *user, const char *missing, const char *errors);

#endif
