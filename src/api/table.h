/* Server-side printing: meta.k8s.io/v1 Table responses with the columns kubectl shows for each resource,
 * and the autoscaling/v1 Scale view of scalable resources. */
#ifndef KG_API_TABLE_H
#define KG_API_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "api/resources.h"
#include "base/arena.h"
#include "json/json.h"

/* include_object: NULL/"Metadata" (PartialObjectMetadata), "None", "Object". list_rv may be "" (omitted). */
kg_json *kg_api_table(kg_arena *a, const kg_resource *r, kg_json *const *objs, size_t n, const char *include_object,
                      const char *list_rv);
kg_json *kg_api_scale_from(kg_arena *a, const kg_resource *r, const kg_json *obj);
/* duration.HumanDuration of a number of seconds ("5m", "2d3h", "<invalid>"). */
char *kg_api_human_duration(kg_arena *a, int64_t seconds);
/* Age column of an object from metadata.creationTimestamp ("<unknown>" when absent). */
char *kg_api_age(kg_arena *a, const kg_json *obj, int64_t now);

#endif
