/* cel_json.h - the bridge between kgate's JSON DOM and CEL values (library kgate_cel_json).
 *
 * JSON -> CEL follows Kubernetes' mapping of unstructured objects (types.DefaultTypeAdapter over
 * map[string]interface{}): objects are map(string, dyn), arrays are lists, integral numbers are int, other numbers
 * double, strings/bools/null map directly. The conversion is lazy and zero-copy: objects and arrays are wrapped,
 * their children are converted on access; nothing is allocated for scalars. A missing field is the runtime error
 * "no such key: f" unless guarded by has() or optionals. The kg_json must outlive every evaluation using it.
 *
 * CEL -> JSON is used for output (`kgate cel`): int/uint/double as numbers, bytes as base64, timestamps as RFC 3339
 * strings, durations as Go-style strings ("1h2m3s"), types as their names, optionals as their value or null.
 */
#ifndef KG_CEL_JSON_H
#define KG_CEL_JSON_H

#include "base/arena.h"
#include "cel/cel.h"
#include "json/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Wrap a JSON value (NULL gives CEL null). A document (an object) is wrapped inline. */
extern const cel_map_vt cel_jobj_vt;
cel_value cel_json_to_value_any(const kg_json *j);
static inline cel_value cel_json_to_value(const kg_json *j)
{
    if (j && j->type == KG_JSON_OBJECT)
        return cel_value_make_(CEL_MAP, j->len, (uint64_t)(uintptr_t)j, &cel_jobj_vt);
    return cel_json_to_value_any(j);
}
/* Convert a CEL value to JSON in arena a. Returns NULL and fills errbuf for values with no JSON form (errors,
 * NaN/Inf doubles, opaque values without to_string). */
kg_json *cel_value_to_json(kg_arena *a, const cel_value *v, char *errbuf, size_t errcap);

#ifdef __cplusplus
}
#endif

#endif
