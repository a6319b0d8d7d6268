/* Structural OpenAPI v3 schemas of CustomResourceDefinitions (apiextensions-apiserver pkg/apiserver/schema and
 * kube-openapi pkg/validation): a CRD version's openAPIV3Schema compiled once, when the CRD changes, into an
 * immutable tree shared by every request thread; and the per-request steps run over a custom resource with it:
 *
 *   kg_xs_prune     drop fields the schema does not declare (x-kubernetes-preserve-unknown-fields stops it; apiVersion,
 *                   kind and metadata at the root and in embedded resources are kept), drop non-nullable nulls that
 *                   have no default; the dropped paths are reported as `unknown field "<path>"` by the caller
 *   kg_xs_default   fill in schema defaults (missing properties, non-nullable nulls), recursing into items and
 *                   additionalProperties
 *   kg_xs_validate  OpenAPI v3 value validation with upstream's field errors (type, enum, required, bounds,
 *                   lengths, pattern, formats, item and property counts, junctors, list-type set/map uniqueness,
 *                   embedded resources)
 *
 * Memory: a compiled schema lives in the arena handed to kg_xs_compile (the dynamic resource snapshot's); results of
 * the request steps go to the request arena. */
#ifndef KG_APIEXT_SCHEMA_H
#define KG_APIEXT_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "json/json.h"
#include "meta/status.h"

struct kg_xs_decl;

typedef struct kg_xs kg_xs;

/* One x-kubernetes-validations rule, compiled (apiext/rules.h); opaque here. */
typedef struct kg_xs_rule kg_xs_rule;

struct kg_xs {
    const char *type;   /* object, array, string, integer, number, boolean; NULL when unset */
    const char *format; /* NULL when unset */
    const char *description;
    bool nullable, preserve_unknown, int_or_string, embedded;
    const char *list_type; /* x-kubernetes-list-type or NULL */
    const char *map_type;  /* x-kubernetes-map-type or NULL (granular) */
    const char **list_map_keys;
    size_t nlist_map_keys;
    const char *list_map_keys_csv; /* the keys comma-separated, as structured merge takes them (NULL: none) */
    /* object */
    size_t nprops;
    const char **prop_names;
    kg_xs **props;
    kg_xs *additional; /* additionalProperties as a schema (NULL: none) */
    const char **required;
    size_t nrequired;
    /* array */
    kg_xs *items;
    /* value validations */
    const kg_json *def;   /* default, or NULL */
    const kg_json *enum_; /* array, or NULL */
    bool has_min_length, has_max_length, has_min_items, has_max_items, has_min_props, has_max_props;
    int64_t min_length, max_length, min_items, max_items, min_props, max_props;
    bool has_minimum, has_maximum, excl_minimum, excl_maximum, has_multiple_of;
    double minimum, maximum, multiple_of;
    const char *minimum_text, *maximum_text, *multiple_of_text; /* as upstream prints them (%v) */
    const char *pattern;
    struct cel_regex *re;
    /* junctors (value validation only) */
    kg_xs **all_of, **any_of, **one_of, *not_;
    size_t nall_of, nany_of, none_of;
    /* x-kubernetes-validations (compiled by apiext/rules.c; NULL when none) */
    const kg_xs_rule *const *rules;
    size_t nrules;
    const struct kg_xs_decl *cel; /* the node's CEL type (apiext/celtypes.h), set with the rules; NULL: dyn */
    bool any_rules;               /* this node or one below it has rules */
    const kg_json *raw;           /* the source schema (copied into the compile arena) */
};

/* Compile a schema (a JSON object) into a (the compile arena; regexes are freed by kg_arena_free/reset of a).
 * Never fails: invalid parts are what CRD validation rejects (apiext/crd.h); here they are ignored. The schema is
 * the root of a resource: its x-kubernetes-validations rules are compiled with `self` typed from it
 * (apiext/celtypes.h, apiext/rules.h). */
kg_xs *kg_xs_compile(kg_arena *a, const kg_json *schema);
/* The same without the rules (a sub-schema compiled for its value validations, e.g. to check a default). */
kg_xs *kg_xs_compile_nodes(kg_arena *a, const kg_json *schema);
/* The property `name` of an object schema, or NULL. */
const kg_xs *kg_xs_prop(const kg_xs *s, const char *name);

/* Prune obj in place against s (the root schema of a kind: apiVersion, kind and metadata are kept). The dropped
 * fields' paths are appended to *paths (arena strings, document order; may be NULL to discard). */
void kg_xs_prune(kg_arena *a, const kg_xs *s, kg_json *obj, const char ***paths, size_t *npaths);
/* Apply the schema's defaults to obj in place (the root schema of a kind). */
void kg_xs_default(kg_arena *a, const kg_xs *s, kg_json *obj);
/* Validate v against s; path is v's field path ("" for the root). Errors are appended. */
void kg_xs_validate(kg_arena *a, const kg_xs *s, const kg_json *v, const char *path, kg_field_errors *errs);

/* Field paths of the request steps: "path.key" (key alone at the root "") and "path[i]", in a. */
const char *kg_xs_child_path(kg_arena *a, const char *path, const char *key);
const char *kg_xs_index_path(kg_arena *a, const char *path, uint32_t i);

/* Go's %#v of a decoded JSON value, as upstream prints bad values it has no better form for
 * (`map[string]interface {}{"name":"a"}`, `[]interface {}{"a", "b"}`). */
char *kg_xs_go_repr(kg_arena *a, const kg_json *v);
/* Go's %v of a float64 (shortest representation, 1e+21 style exponents). */
char *kg_xs_go_float(kg_arena *a, double d);
/* The JSON type name upstream reports for a value: string, integer, number, boolean, array, object, null. */
const char *kg_xs_json_type(const kg_json *v);

#endif
