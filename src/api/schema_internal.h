/* Internals of the schema index shared by schema.c (which parses and owns it) and schema_decode.c (which walks it
 * for the typed decode check). Everything here is immutable after the index is loaded. */
#ifndef KG_API_SCHEMA_INTERNAL_H
#define KG_API_SCHEMA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { K_STRING, K_INT32, K_INT64, K_BOOL, K_NUMBER, K_BYTE, K_OBJ, K_REF };
enum { SH_SCALAR, SH_ARRAY, SH_MAP };

typedef struct kg_schema_i_field {
    const char *name;
    uint32_t name_len;
    uint8_t kind, shape;
    bool required;
    bool inner_array; /* {}[]X: map of lists */
    int ref;          /* type index for K_REF */
    const char *ref_token;
    const char *desc;
    const char *mk, *ps, *lt, *lk, *en;
} kg_schema_i_field;

typedef struct kg_schema_i_type {
    const char *name;
    const char *desc;
    const char *prim_type, *prim_format; /* set for non-struct definitions (Time, Quantity, IntOrString, ...) */
    const char *pkg;
    const char *include_token;
    int include; /* type whose fields come first (EphemeralContainer = Container + ...), -1 if none */
    uint32_t first, nfields;
} kg_schema_i_type;

typedef kg_schema_i_field sfield;
typedef kg_schema_i_type stype;

/* Index of a type by full name ("io.k8s.api.core.v1.Pod"), -1 if unknown; loads the index on first use. */
int kg_schema_i_find_type(const char *name);
const kg_schema_i_type *kg_schema_i_type_at(int t);
/* A field of type t (own fields, then included types), NULL if none. */
const kg_schema_i_field *kg_schema_i_find_field(int t, const char *name, size_t n);

#endif
