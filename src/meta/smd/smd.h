/* Structured merge and diff: the engine behind server-side apply, managedFields and MutatingAdmissionPolicy's
 * ApplyConfiguration (upstream sigs.k8s.io/structured-merge-diff v4 and apimachinery's managedfields).
 *
 * Three layers, each usable alone:
 *
 *   field sets (fieldset.c)  kg_fs: a tree of path elements, encoded as FieldsV1 (`f:<field>`, `k:{<key json>}`,
 *                            `v:<json>`, `i:<n>`, `"."` for a node owned itself and with owned children); set
 *                            algebra (union, difference, intersection), paths printed as upstream prints them
 *                            (`.spec.containers[name="nginx"].image`, `.metadata.finalizers[="x"]`, `[0]`).
 *   typed values (typed.c)   walks a kg_json value with a schema: its field set, the comparison of two values
 *                            (added / modified / removed), the apply merge and the removal of fields.
 *   managers (managers.c)    managedFields entries, the Update and Apply algorithms of `merge/update.go`
 *                            (ownership transfer, pruning of fields a manager stopped applying, conflicts) and
 *                            upstream's 409 conflict message.
 *
 * Schemas are schema-agnostic: a kg_smd_schema is one callback ("the type of field F of type T"), so built-in
 * kinds (src/api/smd_schema.c over src/api/schema), custom resources (their OpenAPI schema) and admission's path
 * lookups plug in the same way. A NULL schema, or a field the schema does not declare, is "deduced" as upstream does
 * for schemaless values: maps granular, lists atomic.
 *
 * Everything is allocated in the caller's arena; inputs are never modified unless a function says so. */
#ifndef KG_META_SMD_SMD_H
#define KG_META_SMD_SMD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/buf.h"
#include "json/json.h"

/* ---- schemas ---------------------------------------------------------------------------------------------- */

typedef enum kg_smd_rel {
    KG_SMD_DEDUCED = 0, /* no schema: objects granular (children deduced), lists atomic */
    KG_SMD_GRANULAR,    /* a struct or map merged field by field */
    KG_SMD_ATOMIC,      /* replaced as a whole (atomic lists, maps, structs) */
    KG_SMD_SET,         /* a list whose items are identified by their value */
    KG_SMD_ASSOC,       /* a list whose items are identified by their key fields (listType map) */
} kg_smd_rel;

typedef struct kg_smd_type {
    kg_smd_rel rel;
    bool map;           /* GRANULAR: a map whose every value has type `handle` (not looked up by field name) */
    const char *keys;   /* ASSOC: comma-separated key fields ("containerPort,protocol") */
    const void *handle; /* GRANULAR: the type to ask for fields (map: the values' type); SET / ASSOC: the items'
                           type; NULL = deduced */
} kg_smd_type;

typedef struct kg_smd_schema kg_smd_schema;
struct kg_smd_schema {
    /* The type of field `name` of the struct `handle`; false when the schema does not declare it (deduced). */
    bool (*field)(const kg_smd_schema *s, const void *handle, const char *name, kg_smd_type *out);
    void *ctx;
};

/* ---- field sets ------------------------------------------------------------------------------------------- */

typedef struct kg_fs kg_fs;
struct kg_fs {
    const char *key; /* "f:name", "k:{\"name\":\"a\"}", "v:\"x\"", "i:0"; NULL for the root */
    bool member;     /* the path itself is in the set */
    unsigned n, cap; /* children, sorted as upstream orders path elements (fields, keys, values, indexes) */
    kg_fs **kids;
};

kg_fs *kg_fs_new(kg_arena *a);
/* The child with key (created when add is true and it is missing; NULL otherwise). */
kg_fs *kg_fs_child(kg_arena *a, kg_fs *s, const char *key, bool add);
bool kg_fs_empty(const kg_fs *s);
kg_fs *kg_fs_clone(kg_arena *a, const kg_fs *s);
kg_fs *kg_fs_union(kg_arena *a, const kg_fs *x, const kg_fs *y);
/* Paths of x that are not in y (members only: children of a path in y stay unless they are in y too). */
kg_fs *kg_fs_difference(kg_arena *a, const kg_fs *x, const kg_fs *y);
kg_fs *kg_fs_intersection(kg_arena *a, const kg_fs *x, const kg_fs *y);
bool kg_fs_equal(const kg_fs *x, const kg_fs *y);

/* FieldsV1 JSON (compact, keys sorted as upstream serializes them) and back. Decoding fails (false, *err set)
 * on anything that is not an object of objects with known key prefixes. */
void kg_fs_write(kg_buf *b, const kg_fs *s);
kg_json *kg_fs_to_json(kg_arena *a, const kg_fs *s);
bool kg_fs_from_json(kg_arena *a, const kg_json *v, kg_fs **out, const char **err);

/* Every member path, in upstream's iteration order (members of a node before its children's paths), printed as
 * upstream's fieldpath.Path.String(). Returns the count; *paths is arena-allocated. */
size_t kg_fs_paths(kg_arena *a, const kg_fs *s, const char ***paths);
/* "f:spec" -> ".spec", "k:{\"name\":\"a\"}" -> "[name=\"a\"]", "v:\"x\"" -> "[=\"x\"]", "i:3" -> "[3]". */
void kg_fs_write_element(kg_buf *b, const char *key);

/* ---- typed values ----------------------------------------------------------------------------------------- */

/* The root type of a value whose schema root is `handle` (NULL: deduced). */
static inline kg_smd_type kg_smd_root(const void *handle)
{
    kg_smd_type t = {handle ? KG_SMD_GRANULAR : KG_SMD_DEDUCED, false, NULL, handle};
    return t;
}

/* The field set of v (ToFieldSet): scalars, atomic values, list items and empty objects are members; a granular
 * object with fields is present only through its children. Fails (false, *err an upstream-style message such as
 * `.spec.containers: duplicate entries for key [name="a"]`) on duplicate or key-less items of keyed lists. */
bool kg_smd_fieldset(kg_arena *a, const kg_smd_schema *s, kg_smd_type t, const kg_json *v, kg_fs **out,
                     const char **err);

/* Compare (typed.Compare): paths added in neu (whole subtrees), removed from old (whole subtrees), and modified
 * (a scalar or atomic value present in both that differs). old may be NULL (everything added). */
typedef struct kg_smd_comparison {
    kg_fs *added, *modified, *removed;
} kg_smd_comparison;
bool kg_smd_compare(kg_arena *a, const kg_smd_schema *s, kg_smd_type t, const kg_json *old, const kg_json *neu,
                    kg_smd_comparison *out, const char **err);

/* The apply merge (typed.Merge): config merged into live, returning a new value (live is not modified; unchanged
 * subtrees are shared). Scalars and atomic values are replaced, granular objects merge field by field, keyed and
 * set lists merge item by item — live-only items keep their place, config items come in config order. A null in
 * the config removes the field. */
bool kg_smd_merge(kg_arena *a, const kg_smd_schema *s, kg_smd_type t, const kg_json *live, const kg_json *config,
                  kg_json **out, const char **err);

/* Remove the member paths of `remove` from v in place (RemoveItems): fields are deleted, list items dropped. */
void kg_smd_remove(kg_arena *a, const kg_smd_schema *s, kg_smd_type t, kg_json *v, const kg_fs *remove);

/* ---- managers --------------------------------------------------------------------------------------------- */

#define KG_SMD_MAX_UPDATE_MANAGERS 10 /* Update entries kept; older ones merge into "ancient-changes" */

typedef struct kg_smd_manager {
    const char *manager;
    bool apply;              /* operation Apply (else Update) */
    const char *api_version; /* "apps/v1" */
    const char *subresource; /* "" for the main resource */
    const char *time;        /* RFC 3339, may be NULL */
    kg_fs *set;
} kg_smd_manager;

typedef struct kg_smd_managers {
    kg_smd_manager *v;
    size_t n, cap;
} kg_smd_managers;

/* Decode metadata.managedFields (the array, may be NULL). False (with *err) when the list is invalid: an entry
 * that is not an object, an operation other than Apply / Update, an empty apiVersion, a fieldsType other than
 * FieldsV1 or undecodable fieldsV1. */
bool kg_smd_managers_decode(kg_arena *a, const kg_json *list, kg_smd_managers *out, const char **err);
/* The managedFields array: empty entries dropped, Apply entries first, then by time, manager, apiVersion,
 * subresource. */
kg_json *kg_smd_managers_encode(kg_arena *a, const kg_smd_managers *m);

/* One write's context. */
typedef struct kg_smd_op {
    const kg_smd_schema *schema;
    kg_smd_type root;
    const char *manager;     /* the field manager */
    const char *api_version; /* of the endpoint */
    const char *subresource; /* "" for the main resource */
    const char *now;         /* RFC 3339 time for entries whose set changed */
    /* Paths never recorded (apiVersion, kind, metadata's system fields; status for a main-resource write where
     * the status subresource owns it). NULL: the standard object-metadata list. */
    const kg_fs *ignored;
    /* Apply: other managers' paths the applier may take without a conflict (kubectl's last-applied migration:
     * paths whose live value still equals the last-applied configuration). NULL: none. */
    const kg_fs *forgiven;
} kg_smd_op;

/* The paths never recorded for an object: apiVersion, kind, metadata.{name, namespace, creationTimestamp,
 * selfLink, uid, clusterName, generation, managedFields, resourceVersion} and, if with_status, status. */
const kg_fs *kg_smd_ignored_fields(kg_arena *a, bool with_status);

/* A non-apply write (create, update, patch): neu's managers after changing old (NULL for a create) into neu. */
bool kg_smd_update(kg_arena *a, const kg_smd_op *op, const kg_json *old, const kg_json *neu, kg_smd_managers *m,
                   const char **err);

/* A conflict of an apply: the manager (as listed in managedFields) owning a path the apply changes. */
typedef struct kg_smd_conflict {
    const kg_smd_manager *owner;
    const char *path; /* ".spec.replicas" */
} kg_smd_conflict;

typedef struct kg_smd_apply_result {
    kg_json *object; /* the merged and pruned object */
    bool changed;    /* differs from live */
    kg_smd_conflict *conflicts;
    size_t nconflicts; /* > 0: the apply was refused (no force) */
} kg_smd_apply_result;

/* Apply `config` by op->manager to live (an empty object for a create-on-apply), updating m: merge, the manager's
 * Apply set becomes the config's field set, fields it applied before and no longer applies are removed unless
 * another manager owns them, other managers' fields the apply changes conflict (force: they move to the applier).
 * Returns false only on invalid input (*err); conflicts come back in out. */
bool kg_smd_apply(kg_arena *a, const kg_smd_op *op, const kg_json *live, const kg_json *config, bool force,
                  kg_smd_managers *m, kg_smd_apply_result *out, const char **err);

/* Upstream's 409 message for the conflicts: `Apply failed with 1 conflict: conflict with "kubectl": .data.a` or
 * `Apply failed with N conflicts: conflicts with "a" using v1:\n- .data.a\n- .data.b` (managers sorted), and
 * each cause's message `conflict with "a" using v1` (Update entries name their apiVersion, subresources add
 * ` with subresource "status"`). */
char *kg_smd_conflict_message(kg_arena *a, const kg_smd_conflict *c, size_t n);
char *kg_smd_manager_describe(kg_arena *a, const kg_smd_manager *m);

#endif
