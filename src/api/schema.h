/* Type schemas of the served resources (OpenAPI definitions): used for /openapi/v2|v3, `kubectl explain` and
 * server-side unknown-field detection.
 *
 * The types are described in a compact text format compiled into the binary (src/api/schema_data_*.c, format in
 * docs/openapi.md) and parsed once, on first use, into an immutable index shared by all threads. */
#ifndef KG_API_SCHEMA_H
#define KG_API_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "api/resources.h"
#include "base/arena.h"
#include "json/json.h"

/* "io.k8s.api.core.v1.Pod", "io.k8s.api.apps.v1.Deployment", ... */
char *kg_schema_type_name(kg_arena *a, const kg_resource *r);
/* Add the resource's schema (with x-kubernetes-group-version-kind) and every type it references to an OpenAPI
 * schemas (v3: refs "#/components/schemas/<name>", allOf wrappers) or definitions (v2: "#/definitions/<name>")
 * object. Types already present in `schemas` are not added again. */
void kg_schema_add_resource(kg_arena *a, kg_json *schemas, const kg_resource *r, bool v3);
/* Shared types (ObjectMeta and what it references, Time, Quantity, IntOrString, LabelSelector, Condition). */
void kg_schema_add_common(kg_arena *a, kg_json *schemas, bool v3);
/* A stable hash of the schema set (for the v3 serverRelativeURL): 16 hex digits. */
const char *kg_schema_hash(void);

/* Unknown-field detection for fieldValidation=Strict|Warn. Walks obj against the resource's schema and returns
 * (arena-allocated) the paths of fields the schema does not know, in document order, as upstream's strict decoder
 * names them: "spec.containers[0].imagePullPolicyy" (struct fields and map keys joined by '.', list items as
 * "[i]"); the caller formats `unknown field "<path>"`. Maps (labels, data, resources.limits, ...), IntOrString,
 * Quantity and free-form objects are not descended into. Returns false (and *n = 0) when the resource has no
 * schema; true otherwise, with *n possibly 0. */
bool kg_schema_unknown_fields(kg_arena *a, const kg_resource *r, const kg_json *obj, const char ***paths, size_t *n);

/* Same for any named type ("io.k8s.api.core.v1.PodSpec"); false if the type is unknown. */
bool kg_schema_unknown_fields_type(kg_arena *a, const char *type_name, const kg_json *obj, const char ***paths,
                                   size_t *n);

/* The typed decode check (schema_decode.c): decodes obj against the named type ("io.k8s.api.apps.v1.Deployment")
 * as upstream's JSON decoder would. error: Go's text for the first value whose JSON type (or integer range, base64,
 * quantity) does not fit, e.g. `json: cannot unmarshal number into Go struct field ConfigMap.data of type string`,
 * NULL when it decodes; unknown: the unknown fields' paths (as kg_schema_unknown_fields), removed from obj when
 * drop_unknown. Returns false when the type is not a struct of the index (nothing checked). */
typedef struct kg_schema_decode {
    const char *error;
    const char **unknown;
    size_t nunknown;
} kg_schema_decode;
bool kg_schema_decode_check(kg_arena *a, const char *type_name, kg_json *obj, bool drop_unknown, kg_schema_decode *out);

/* Field lookup, mainly for tests and tools: the schema of `type_name`'s field `field`. */
typedef struct kg_schema_field_info {
    const char *type;   /* "string", "integer", "boolean", "number", "object", "array" or the ref'd type name */
    const char *format; /* "int32", "int64", "byte", "date-time", "double" or NULL */
    const char *ref;    /* full type name of the field, its items or its map values, or NULL */
    const char *description;
    bool required;
    bool is_array, is_map;
    const char *merge_key;     /* x-kubernetes-patch-merge-key or NULL */
    const char *strategy;      /* x-kubernetes-patch-strategy or NULL */
    const char *list_type;     /* x-kubernetes-list-type or NULL */
    const char *list_map_keys; /* comma-separated x-kubernetes-list-map-keys or NULL */
} kg_schema_field_info;
bool kg_schema_field(const char *type_name, const char *field, kg_schema_field_info *out);
/* The schema index's own copy of a type name (static, usable as a handle), or NULL for an unknown type. */
const char *kg_schema_type_interned(const char *type_name);
/* kg_schema_field for an interned type name (from kg_schema_type_interned or a field's ref), without hashing it. */
bool kg_schema_field_interned(const char *interned, const char *field, kg_schema_field_info *out);
/* x-kubernetes-list-type of a field of a served kind (group "" for core): path holds the field names from the
 * kind's root, list items left out ("spec", "containers", "ports"). For map lists *keys is the comma-separated
 * x-kubernetes-list-map-keys (static). Unknown kinds and fields, and lists without a list type, are atomic. Used by
 * MutatingAdmissionPolicy's ApplyConfiguration merge through the admission services. */
typedef enum kg_schema_list_type {
    KG_SCHEMA_LIST_ATOMIC = 0,
    KG_SCHEMA_LIST_SET,
    KG_SCHEMA_LIST_MAP,
} kg_schema_list_type;
kg_schema_list_type kg_schema_list_type_of(const char *group, const char *kind, const char *const *path, size_t n,
                                           const char **keys);
/* Number of types and fields loaded; and the first consistency problem (unresolved type reference, duplicate
 * type or field), NULL when the data is consistent. */
size_t kg_schema_type_count(void);
size_t kg_schema_field_count(void);
const char *kg_schema_problem(void);

#endif
