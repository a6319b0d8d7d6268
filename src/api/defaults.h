/* Defaulting (upstream SetDefaults_* for the served types) and PrepareForCreate status resets. */
#ifndef KG_API_DEFAULTS_H
#define KG_API_DEFAULTS_H

#include "api/resources.h"
#include "base/arena.h"
#include "json/json.h"

/* Apply v1.33 defaults in place (idempotent). */
void kg_api_default(kg_arena *a, const kg_resource *r, kg_json *obj);
/* Create-time resets done by the registry strategies (status reset, pod phase Pending + qosClass, namespace
 * phase Active and finalizer, service cluster IP allocation). */
void kg_api_prepare_for_create(kg_arena *a, const kg_resource *r, kg_json *obj);
/* Update-time carry-overs of the registry strategies (old is the stored object): a Service keeps its allocated
 * cluster IPs when the update omits them, and drops them (and its node ports) when it changes to a type that has
 * none, as upstream's patchAllocatedValues / dropTypeDependentFields do. */
void kg_api_prepare_for_update(kg_arena *a, const kg_resource *r, kg_json *obj, const kg_json *old);
/* Pod QoS class ("Guaranteed", "Burstable", "BestEffort") of a pod spec. */
const char *kg_api_pod_qos(const kg_json *pod_spec);

#endif
