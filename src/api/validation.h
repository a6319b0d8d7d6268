/* Object validation done by the registry strategies before validating admission (422 Invalid). */
#ifndef KG_API_VALIDATION_H
#define KG_API_VALIDATION_H

#include "api/resources.h"
#include "base/arena.h"
#include "json/json.h"
#include "meta/status.h"

/* Validate obj (old NULL on create). Appends field errors. */
void kg_api_validate(kg_arena *a, const kg_resource *r, const kg_json *obj, const kg_json *old, kg_field_errors *errs);
/* The semantic checks users hit most (validation_semantic.c: resources, volume mounts, probes, Service ports,
 * CronJob schedule and time zone, Lease durations, immutable selectors); called by kg_api_validate. */
void kg_api_validate_semantic(kg_arena *a, const kg_resource *r, const kg_json *obj, const kg_json *old,
                              kg_field_errors *errs);

/* Events, core/v1 and events.k8s.io/v1 (validation_event.c); called by kg_api_validate. */
void kg_api_validate_event(kg_arena *a, const kg_resource *r, const kg_json *obj, const kg_json *old,
                           kg_field_errors *errs);

#endif
