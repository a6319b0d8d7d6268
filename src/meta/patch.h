/* Patches as kube-apiserver applies them on PATCH requests and to mutating-webhook responses:
 *
 *   - kg_patch_json:      RFC 6902 JSON Patch (evanphx/json-patch v4 semantics and messages)
 *   - kg_patch_merge:     RFC 7386 JSON Merge Patch
 *   - kg_patch_strategic: Kubernetes strategic merge patch (k8s.io/apimachinery/pkg/util/strategicpatch)
 *
 * All functions work on the kg_json DOM. Results are allocated in the arena; the inputs are never modified
 * (the result may share unmodified subtrees with doc or patch, so keep both alive as long as *out).
 * On failure they return false with err->code KG_EINVAL (the API server maps it to 422 for PATCH requests and to
 * 500 for webhook patches; see docs/patch.md for the exact upstream status of each message) and *out is left
 * untouched. KG_EINTERNAL marks the one strategic-merge input on which upstream panics (answers 500). */
#ifndef KG_META_PATCH_H
#define KG_META_PATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"

/* ---- RFC 6902 JSON Patch ---------------------------------------------------------------------------------
 * patch must be an array of operation objects {op, path, from?, value?}. Ops: add, remove, replace, move,
 * copy, test. JSON pointers use ~0 (~) and ~1 (/); "-" appends in add/move/copy. Like evanphx/json-patch v4.12
 * (what the API server and webhook admission use): "add" to an array index > len fails, "remove" of a missing key
 * fails, "replace" of a missing object member adds it, negative indices count from the end, "" addresses the whole
 * document for replace/test only, and a failing "test" fails the whole patch (its message starts with
 * "testing value ", which MutatingAdmissionPolicy callers turn into a silent no-op). Messages follow v4, e.g.
 *   doc is missing path: "/spec/foo": missing value
 *   testing value /metadata/name failed: test failed
 *   Unexpected kind: bogus
 * err->code is KG_EINVAL for every failure (the API server turns it into 422/500 depending on the door). */
bool kg_patch_json(kg_arena *a, const kg_json *doc, const kg_json *patch, kg_json **out, kg_error *err);

/* Escape a map key for use in a JSON pointer (~ -> ~0, / -> ~1), like CEL's jsonpatch.escapeKey(). */
char *kg_patch_json_escape_key(kg_arena *a, const char *key);

/* The RFC 6902 patch that turns from into to (an array, empty when they are equal), as a mutating webhook's answer
 * or `kgate check`'s "patch" shows what admission changed. Objects are compared member by member ("remove" for
 * members only in from, "add" for members only in to, recursion for members in both); arrays of equal length
 * element by element; an array whose length changed, or values of different types, get one "replace". Applying
 * the result with kg_patch_json to from gives a document equal to to. */
kg_json *kg_patch_json_diff(kg_arena *a, const kg_json *from, const kg_json *to);

/* ---- RFC 7386 JSON Merge Patch ---------------------------------------------------------------------------
 * Objects merge recursively, null deletes a key, anything else (arrays included) replaces. A non-object
 * patch replaces the whole document. Never fails except on NULL arguments. */
bool kg_patch_merge(kg_arena *a, const kg_json *doc, const kg_json *patch, kg_json **out, kg_error *err);

/* ---- Strategic merge patch schema ------------------------------------------------------------------------ */

/* Patch strategy of a field (bit set, from the Go struct tag `patchStrategy:"merge,retainKeys"`). */
enum {
    KG_PATCH_STRATEGY_NONE = 0,             /* no tag: lists are atomic (replaced), maps merge */
    KG_PATCH_STRATEGY_MERGE = 1u << 0,      /* lists merge: by merge key (lists of objects) or as a set */
    KG_PATCH_STRATEGY_REPLACE = 1u << 1,    /* the whole value is replaced */
    KG_PATCH_STRATEGY_RETAIN_KEYS = 1u << 2 /* a map honours $retainKeys (union types like volume sources) */
};

/* Kind of value a field holds, as far as the patch algorithm cares. */
typedef enum kg_patch_value_kind {
    KG_PATCH_VALUE_UNKNOWN = 0, /* not in the schema: merged like RFC 7386 (lists replaced) */
    KG_PATCH_VALUE_PRIMITIVE,
    KG_PATCH_VALUE_STRUCT, /* object with known fields (e.g. PodSpec) */
    KG_PATCH_VALUE_MAP,    /* map[string]T (labels, resources.limits, ...) */
    KG_PATCH_VALUE_LIST,   /* list; elem_kind tells what the items are */
} kg_patch_value_kind;

/* Opaque handle of a schema type (e.g. PodSpec). NULL means "unknown type". */
typedef const void *kg_patch_type;

typedef struct kg_patch_field {
    kg_patch_value_kind kind;
    kg_patch_value_kind elem_kind; /* KG_PATCH_VALUE_LIST / MAP: kind of the items / values */
    unsigned strategy;             /* KG_PATCH_STRATEGY_* bits */
    const char *merge_key;         /* patchMergeKey, NULL if none */
    kg_patch_type type;            /* type of the value (struct) or of the items / map values; NULL if none */
} kg_patch_field;

/* A schema is a pair of callbacks. The strategic merge walks the document and asks for one field at a time, so a
 * lookup costs O(1) per field, not O(depth). */
typedef struct kg_patch_schema kg_patch_schema;
struct kg_patch_schema {
    /* Root type for a kind: "Kind", "group/Kind", "group/version/Kind" or "apps/v1, Kind=Deployment" (core group:
     * "Pod", "/Pod", "v1/Pod"). The built-in table keys on the kind name only. NULL = unknown:
     * strategic merge patch then degrades to JSON merge patch semantics (directives still honoured). */
    kg_patch_type (*root)(const kg_patch_schema *s, const char *kind);
    /* Field `name` of struct type `type`: fill *out and return true, or return false if the type has no such field. */
    bool (*field)(const kg_patch_schema *s, kg_patch_type type, const char *name, kg_patch_field *out);
    void *ctx;
};

/* The built-in table: core/v1, apps/v1, batch/v1, networking.k8s.io/v1, rbac.authorization.k8s.io/v1,
 * policy/v1, autoscaling, coordination, discovery, storage, admissionregistration, scheduling types, merge keys
 * and strategies taken from the upstream Go struct tags. Immutable; safe to use from any thread. */
const kg_patch_schema *kg_patch_schema_builtin(void);

/* Convenience: look up the field at a path of field names from the root type of kind (list items elided, e.g.
 * {"spec","template","spec","containers","ports"} for Deployment). Returns false if any step is unknown. */
bool kg_patch_schema_lookup(const kg_patch_schema *s, const char *kind, const char *const *path, size_t n,
                            kg_patch_field *out);

/* ---- Strategic merge patch -------------------------------------------------------------------------------
 * Applies patch (an object) to doc (an object) like kube-apiserver's strategicPatchObject:
 *   - null deletes a key; maps merge recursively; primitives and lists without a merge strategy are replaced;
 *   - lists with patchStrategy merge: lists of objects merge by patchMergeKey, lists of primitives merge as a set;
 *   - directives: "$patch": "replace" | "merge" | "delete" (maps and list items), "$retainKeys",
 *     "$deleteFromPrimitiveList/<field>", "$setElementOrder/<field>".
 * schema may be NULL (then everything merges like JSON merge patch, directives still honoured); kind selects the
 * root type (see kg_patch_schema.root). Error messages follow strategicpatch, e.g.
 *   Unknown patch type: foo
 *   map: map[a:1] does not contain declared merge key: name */
bool kg_patch_strategic(kg_arena *a, const kg_json *doc, const kg_json *patch, const kg_patch_schema *schema,
                        const char *kind, kg_json **out, kg_error *err);

/* ---- helpers for the API server ------------------------------------------------------------------------- */

typedef enum kg_patch_format {
    KG_PATCH_FORMAT_JSON,      /* application/json-patch+json */
    KG_PATCH_FORMAT_MERGE,     /* application/merge-patch+json */
    KG_PATCH_FORMAT_STRATEGIC, /* application/strategic-merge-patch+json */
} kg_patch_format;

/* Content-Type (parameters such as "; charset=utf-8" ignored) -> format. False for anything else, including
 * application/apply-patch+yaml (server-side apply, not handled here); upstream answers 415 for unknown types. */
bool kg_patch_format_from_content_type(const char *content_type, kg_patch_format *out);

/* kube-apiserver rejects JSON patches with more operations than this (413, "Request entity too large: The allowed
 * maximum operations in a JSON patch is 10000, got N"); kg_patch_json itself does not enforce it (webhook patches
 * have no such limit). */
#define KG_PATCH_JSON_MAX_OPS 10000

/* kube-apiserver's JSONPatchMaxCopyBytes (jsonpatch.AccumulatedCopySizeLimit, process-wide upstream, so also for
 * webhook patches): the encoded sizes of the values all "copy" operations of one patch duplicate may add up to at
 * most this; past it kg_patch_json fails with "Unable to complete the copy, the accumulated size increase of copy
 * is N, exceeding the limit 3145728" (a 422 on PATCH). Without it 18 copy operations grow an object to 100+ MB. */
#define KG_PATCH_JSON_MAX_COPY_BYTES (3 * 1024 * 1024)

/* HTTP status kube-apiserver answers when applying a PATCH request body failed with err (from the kg_patch_*
 * function of that format): 400 (BadRequest: undecodable or malformed patch), 422 (the apply failed: JSON patch
 * operations, lists of lists) or 500 (other strategic merge errors, surfaced verbatim). For 422 upstream's Status
 * message is "the server rejected our request due to an error in our request" with err->msg as the cause. */
int kg_patch_http_status(kg_patch_format format, const kg_error *err);

#endif
