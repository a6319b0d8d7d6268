/* ApplyConfiguration: merging an apply configuration (an `Object{...}` value turned into JSON) into the object as
 * server-side apply merges (upstream patch/smd.go over structured-merge-diff) — with the same engine as
 * server-side apply itself (meta/smd/smd.h kg_smd_merge):
 *
 *   - objects merge field by field, recursively; a field set to null is removed;
 *   - lists follow the field's x-kubernetes-list-type from the kind's OpenAPI schema, which the admission services
 *     look up (kg_admission_list_type_of; src/admission reads no schema itself):
 *       map     items are matched by their list-map-keys and merged (recursively, by the same rules); items only
 *               in the configuration come in its order, live-only items keep their place;
 *       set     values not yet present are added;
 *       atomic  the list is replaced (upstream allows atomic lists in apply configurations, for command/args);
 *   - scalars replace.
 *
 * Merging the same configuration twice gives the same object, which keeps mutations idempotent under reinvocation. */
#include <string.h>

#include "admission/policy/mutating/mutating.h"
#include "meta/smd/smd.h"

#define MAX_DEPTH 64

/* The schema handles are the field paths (list items left out), asked of the admission services. */
typedef struct pnode {
    const struct pnode *parent;
    const char *name;
    size_t depth;
} pnode;

typedef struct actx {
    kg_arena *a;
    const kg_gvk *kind;
    const kg_admission_services *svc;
} actx;

static bool path_field(const kg_smd_schema *s, const void *handle, const char *name, kg_smd_type *out)
{
    const actx *x = s->ctx;
    const pnode *parent = handle;
    if (parent->depth >= MAX_DEPTH)
        return false;
    pnode *n = kg_arena_alloc(x->a, sizeof *n);
    *n = (pnode){parent, kg_arena_strdup(x->a, name), parent->depth + 1};
    const char *path[MAX_DEPTH];
    for (const pnode *p = n; p && p->name; p = p->parent)
        path[p->depth - 1] = p->name;
    const char *keys = NULL;
    kg_admission_list_type lt = kg_admission_list_type_of(x->svc, x->kind, path, n->depth, &keys);
    memset(out, 0, sizeof *out);
    out->handle = n;
    /* a field that is no keyed or set list is merged field by field when it holds an object (lists: atomic) */
    out->rel = lt == KG_ADMISSION_LIST_MAP ? KG_SMD_ASSOC : lt == KG_ADMISSION_LIST_SET ? KG_SMD_SET : KG_SMD_GRANULAR;
    out->keys = keys ? keys : "";
    return true;
}

bool kg_map_apply(kg_arena *a, kg_json *obj, const kg_json *config, const kg_gvk *kind,
                  const kg_admission_services *svc, const char **err)
{
    if (!obj || obj->type != KG_JSON_OBJECT || !config || config->type != KG_JSON_OBJECT) {
        *err = "error applying patch: the object and the apply configuration must be objects";
        return false;
    }
    actx x = {a, kind, svc};
    kg_smd_schema schema = {path_field, &x};
    static const pnode root = {NULL, NULL, 0};
    kg_json *merged;
    const char *e = NULL;
    if (!kg_smd_merge(a, &schema, kg_smd_root(&root), obj, config, &merged, &e)) {
        *err = kg_arena_sprintf(a, "error applying patch: failed to merge patch: %s", e);
        return false;
    }
    *obj = *merged;
    return true;
}
