/* LimitRanger (plugin/pkg/admission/limitranger): mutating + validating, CREATE/UPDATE of pods and PVCs; no
 * configuration. Also the LimitRange defaulting the server applies when a LimitRange is written. */
#ifndef KG_ADMISSION_PLUGINS_LIMITRANGER_H
#define KG_ADMISSION_PLUGINS_LIMITRANGER_H

#include "admission/plugin.h"
#include "base/arena.h"
#include "json/json.h"

extern const kg_admission_plugin kg_admission_plugin_limit_ranger;

/* LimitRange defaulting (pkg/apis/core/v1 SetDefaults_LimitRangeItem), in place on a LimitRange object: for items
 * of type Container, a missing default[k] takes max[k]; a missing defaultRequest[k] takes default[k], then min[k].
 * Idempotent. The server calls it on LimitRange create/update before validation. */
void kg_admission_limitrange_defaults(kg_arena *a, kg_json *limitrange);

#endif
