/* ClusterRole aggregation controller (k/k pkg/controller/clusterroleaggregation): every ClusterRole with an
 * aggregationRule gets as rules the rules of the ClusterRoles its clusterRoleSelectors (ORed) select — per selector,
 * the matching roles sorted by name, skipping itself, each rule appended unless an equal one is already there. Rules
 * set by hand on an aggregated role are overwritten. This is how admin, edit and view get their rules. */
#ifndef KG_CONTROLLERS_CLUSTERROLEAGGREGATION_H
#define KG_CONTROLLERS_CLUSTERROLEAGGREGATION_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/error.h"
#include "controllers/client.h"
#include "json/json.h"

/* The rules role should have given every ClusterRole in all (an array), or NULL when role has no aggregationRule or
 * a selector does not parse (err set then). */
kg_json *kg_clusterrole_aggregate(kg_arena *a, const kg_json *role, const kg_json *all, kg_error *err);

/* One pass over every ClusterRole through c: aggregated roles whose rules differ are updated. Returns the number of
 * roles written. */
size_t kg_clusterrole_aggregation_sync(const kg_controller_client *c, kg_arena *a);

typedef struct kg_aggregation_controller kg_aggregation_controller;
/* Sync once, then again after every change to a ClusterRole (changes arriving together are handled in one pass). */
kg_aggregation_controller *kg_aggregation_controller_start(const kg_controller_client *c, kg_error *err);
void kg_aggregation_controller_stop(kg_aggregation_controller *ac);

#endif
