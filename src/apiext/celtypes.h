/* CEL types of a CRD's structural schema (apiextensions-apiserver / k8s.io/apiserver pkg/cel/common SchemaDeclType),
 * for x-kubernetes-validations rules: `self` is typed at each rule's schema node, so a misspelt field or a comparison
 * of the wrong types is a compile error at CRD write, as upstream.
 *
 * The mapping (built once per CRD version, with the compiled rules, in the env that compiles them):
 *   - objects with properties: an object type named by its path (selfType, selfType.spec, selfType.spec.@idx, ...)
 *     whose fields are the properties with CEL names (cel/k8s/escaping.h; properties without one, or without a
 *     type, are not visible); objects without properties or additionalProperties are object types without fields
 *     (x-kubernetes-preserve-unknown-fields does not make unknown fields visible);
 *   - at the root and at x-kubernetes-embedded-resource nodes: apiVersion, kind, metadata.name and
 *     metadata.generateName are fields too (no other metadata);
 *   - additionalProperties: map(string, V); arrays: list(E);
 *   - integer int, number double, boolean bool, string string, format byte bytes, duration duration, date and
 *     date-time timestamp; x-kubernetes-int-or-string dyn.
 * Each node also carries upstream's size bounds: MaxElements (string length in bytes: maxLength x 4, list items:
 * maxItems, map entries: maxProperties; without a bound, what fits in a 3 MiB request given the element's minimum
 * serialized size) and MinSerializedSize, for cost estimation (kg_xs_decl_size_host).
 *
 * At run time kg_xs_decl_value presents a JSON value as the type says: escaped field names, formats converted
 * (timestamps, durations, bytes), numbers as doubles, fields the type does not declare hidden. Subtrees where the
 * plain JSON view already is that (the common case) are handed over as plain JSON values: no wrapping cost. */
#ifndef KG_APIEXT_CELTYPES_H
#define KG_APIEXT_CELTYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "apiext/schema.h"
#include "base/arena.h"
#include "cel/cel.h"
#include "json/json.h"

/* The request size limit the size bounds derive from (apiserver DefaultMaxRequestSizeBytes). */
#define KG_XS_MAX_REQUEST_BYTES (3 * 1024 * 1024)

typedef enum kg_xs_decl_kind {
    KG_XD_DYN,
    KG_XD_BOOL,
    KG_XD_INT,
    KG_XD_DOUBLE,
    KG_XD_STRING,
    KG_XD_BYTES,
    KG_XD_DURATION,
    KG_XD_TIMESTAMP, /* date-time */
    KG_XD_DATE,      /* date: a timestamp at midnight UTC */
    KG_XD_LIST,
    KG_XD_MAP,
    KG_XD_OBJECT,
} kg_xs_decl_kind;

typedef struct kg_xs_decl kg_xs_decl;
struct kg_xs_decl {
    kg_xs_decl_kind kind;
    const cel_type *type;
    int64_t max_elements; /* upstream's DeclType.MaxElements (0 for scalars and objects) */
    int64_t min_size;     /* upstream's DeclType.MinSerializedSize */
    /* objects: fields by CEL name, with the JSON property each reads */
    size_t nfields;
    const char **names, **json_names;
    const kg_xs_decl **fields;
    /* lists: the items; maps: the values */
    const kg_xs_decl *elem;
    /* the JSON view of values of this type is the typed view (no wrapping needed) */
    bool plain;
};

/* The declaration of schema s (NULL when s is not visible to CEL: no type, an array without items, ...).
 * resource_root: s is the root of a resource (the CRD's schema root). Types are created in env, named after
 * name ("selfType"); everything else lives in a. */
const kg_xs_decl *kg_xs_decl_build(cel_env *env, kg_arena *a, const kg_xs *s, bool resource_root, const char *name);

/* The field `name` (a CEL name) of an object declaration, or NULL. */
const kg_xs_decl *kg_xs_decl_field(const kg_xs_decl *d, const char *name);

/* Upstream's maxCardinality: how often a value of minimum serialized size min_size fits in a request. */
uint64_t kg_xs_decl_unbounded_cardinality(int64_t min_size);

/* A cost estimation host over declarations: the variables "self" and "oldSelf" are d (oldSelf unwrapped when it
 * is an optional). */
void kg_xs_decl_size_host(cel_size_host *h, const kg_xs_decl *d);

/* The CEL value of JSON v under declaration d (NULL d: the plain JSON view). The value may reference v and memory
 * in a; both must outlive its use. */
cel_value kg_xs_decl_value(kg_arena *a, const kg_xs_decl *d, const kg_json *v);

#endif
