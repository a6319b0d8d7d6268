/* The per-kind checks validation_semantic.c calls (one file per concept), with upstream's field paths and
 * messages. obj has passed the typed decode; old is NULL on create. */
#ifndef KG_API_VALIDATION_INTERNAL_H
#define KG_API_VALIDATION_INTERNAL_H

#include "api/resources.h"
#include "base/arena.h"
#include "json/json.h"
#include "meta/status.h"

/* validation_service.c: Service port names (DNS label, unique), duplicate protocol/port pairs, nodePort on a
 * ClusterIP Service; on update the cluster IPs that may not change once set. */
void kg_api_validate_service(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs);

/* validation_config.c: Secret type-specific keys (TLS, docker config, basic/ssh auth, service-account token),
 * Secret type immutability, and the data of ConfigMaps and Secrets marked immutable. */
void kg_api_validate_config(kg_arena *a, const kg_resource *r, const kg_json *obj, const kg_json *old,
                            kg_field_errors *errs);

/* Go's %#v of a map[string]string (keys sorted): map[string]string{"a":"b"}. */
char *kg_api_go_string_map(kg_arena *a, const kg_json *m);

#endif
