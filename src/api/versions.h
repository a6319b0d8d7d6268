/* One storage, several served versions of a built-in kind (upstream's storage version plus conversion through the
 * internal type, here done directly between the two JSON shapes).
 *
 * A served resource row can name the resource its objects are stored as (group, version, plural) and a pair of
 * converters between its shape and the stored shape. Both rows then read and write the same keys: an object
 * created through one version is read, listed, watched, updated and deleted through the other; resourceVersion
 * and uid are shared. Served today:
 *
 *   autoscaling/v1 horizontalpodautoscalers   stored as autoscaling/v2 (api/convert_hpa.c)
 *   events.k8s.io/v1 events                   stored as core v1 events, /registry/events/<ns>/<name>
 *                                             (api/convert_event.c)
 *
 * Where conversion happens: the write pipeline works in the request's version (decode, defaults, admission,
 * validation: admission sees the object as the client sent it, see docs/serve.md) and converts at the store
 * boundary — the stored object is converted out when loaded (update, patch: a patch applies to the requested
 * version's shape) and the result converted in when persisted. The HTTP reads (get, list, watch events) convert
 * each stored object out. Tables are printed from the stored shape (upstream prints the internal type, which
 * both versions share). */
#ifndef KG_API_VERSIONS_H
#define KG_API_VERSIONS_H

#include <stddef.h>

#include "api/resources.h"
#include "base/arena.h"
#include "json/json.h"

/* A converter returns a new object in the other shape (the input is not changed); it never fails: what the
 * target shape cannot hold is kept in annotations where upstream does so, else dropped as upstream drops it. */
typedef kg_json *(*kg_version_convert_fn)(kg_arena *a, const kg_json *in);

typedef struct kg_version_conv {
    const char *group, *version, *plural;                         /* the served resource */
    const char *storage_group, *storage_version, *storage_plural; /* the resource its objects are stored as */
    kg_version_convert_fn to_storage, from_storage;
} kg_version_conv;

/* The conversion for a served resource, NULL when it stores its own objects. */
const kg_version_conv *kg_version_conv_find(const char *group, const char *version, const char *plural);

/* The resource r's objects are stored as (r itself when it has no conversion). */
const kg_resource *kg_version_storage_resource(const kg_resource *r);

/* obj (in r's version) in the storage version: a new object, defaulted as the storage version defaults it; obj
 * itself when r has no conversion. */
kg_json *kg_version_to_storage(kg_arena *a, const kg_resource *r, kg_json *obj);
/* A stored object in r's version (obj itself when r has no conversion). */
kg_json *kg_version_from_storage(kg_arena *a, const kg_resource *r, kg_json *obj);
/* Stored bytes (no resourceVersion) in r's version, still without resourceVersion: the bytes themselves when r has
 * no conversion (or they do not parse: then they are served as stored). */
const char *kg_version_stored_bytes(kg_arena *a, const kg_resource *r, const char *bytes, size_t len, size_t *out_len);

/* A Table printed from stored objects (kg_api_table with kg_version_storage_resource(r)): the full objects its rows
 * carry (includeObject=Object) converted to r's version. Nothing for resources without conversion. */
void kg_version_table_objects(kg_arena *a, const kg_resource *r, kg_json *table);

/* the converters (api/convert_hpa.c, api/convert_event.c), exported for their unit tests */
kg_json *kg_convert_hpa_v1_to_v2(kg_arena *a, const kg_json *in);
kg_json *kg_convert_hpa_v2_to_v1(kg_arena *a, const kg_json *in);
kg_json *kg_convert_event_events_to_core(kg_arena *a, const kg_json *in);
kg_json *kg_convert_event_core_to_events(kg_arena *a, const kg_json *in);

#endif
