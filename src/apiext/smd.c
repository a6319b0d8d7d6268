/* A custom resource version's structural schema as the structured-merge schema of server-side apply (crd.h
 * kg_cr_smd_schema), as upstream derives it (kube-openapi pkg/schemaconv, apiextensions-apiserver's use of it):
 *
 *   arrays    x-kubernetes-list-type map: items keyed by x-kubernetes-list-map-keys; set: items by value;
 *             atomic or unset: atomic (CRDs have no patch strategies)
 *   objects   granular, field by field (properties and additionalProperties alike) unless
 *             x-kubernetes-map-type: atomic
 *   unknown   fields the schema does not declare (x-kubernetes-preserve-unknown-fields) are deduced: maps granular,
 *             lists atomic
 *   metadata  of the root and of embedded resources is ObjectMeta whatever the schema says: labels and annotations
 *             granular maps, finalizers a set, ownerReferences keyed by uid, managedFields atomic
 *
 * The handles are the compiled schema nodes (kg_xs) of the dynamic snapshot: nothing is built per request. */
#include <string.h>

#include "apiext/crd.h"

/* The parts of ObjectMeta whose merge semantics differ from the deduced ones. */
static const char object_meta_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"labels\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
    "\"annotations\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
    "\"finalizers\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"set\",\"items\":{\"type\":\"string\"}},"
    "\"managedFields\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"atomic\",\"items\":{\"type\":\"object\"}},"
    "\"ownerReferences\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":"
    "[\"uid\"],\"items\":{\"type\":\"object\",\"properties\":{\"apiVersion\":{\"type\":\"string\"},"
    "\"kind\":{\"type\":\"string\"},\"name\":{\"type\":\"string\"},\"uid\":{\"type\":\"string\"},"
    "\"controller\":{\"type\":\"boolean\"},\"blockOwnerDeletion\":{\"type\":\"boolean\"}}}}}}";

const kg_xs *kg_cr_object_meta_schema(kg_arena *a)
{
    kg_error err;
    kg_json *j = kg_json_parse(a, object_meta_schema, sizeof object_meta_schema - 1, &err);
    return kg_xs_compile(a, j);
}

/* The merge type of a value whose schema is s. */
kg_smd_type kg_cr_smd_type_of(const kg_xs *s)
{
    kg_smd_type t = {KG_SMD_DEDUCED, false, NULL, NULL};
    if (!s)
        return t;
    bool array = s->type ? !strcmp(s->type, "array") : s->items != NULL;
    bool object = s->type ? !strcmp(s->type, "object") : (s->nprops || s->additional);
    if (array) {
        const char *lt = s->list_type;
        if (lt && !strcmp(lt, "map")) {
            t.rel = KG_SMD_ASSOC;
            t.keys = s->list_map_keys_csv ? s->list_map_keys_csv : "";
            t.handle = s->items;
        } else if (lt && !strcmp(lt, "set")) {
            t.rel = KG_SMD_SET;
            t.handle = s->items;
        } else {
            t.rel = KG_SMD_ATOMIC;
        }
    } else if (object) {
        if (s->map_type && !strcmp(s->map_type, "atomic")) {
            t.rel = KG_SMD_ATOMIC;
        } else {
            t.rel = KG_SMD_GRANULAR;
            t.handle = s;
        }
    }
    return t;
}

static bool cr_field(const kg_smd_schema *sch, const void *handle, const char *name, kg_smd_type *out)
{
    const kg_crd_version *v = sch->ctx;
    const kg_xs *s = handle;
    if (!s)
        return false;
    if (!strcmp(name, "metadata") && (s == v->schema || s->embedded)) {
        *out = kg_cr_smd_type_of(v->meta_schema);
        return true;
    }
    const kg_xs *f = kg_xs_prop(s, name);
    if (!f)
        f = s->additional;
    if (!f)
        return false; /* undeclared (preserved unknown fields): deduced */
    *out = kg_cr_smd_type_of(f);
    return true;
}

void kg_cr_smd_init(kg_crd_version *v)
{
    v->smd.field = cr_field;
    v->smd.ctx = v;
}

const kg_smd_schema *kg_cr_smd_schema(const kg_resource *r, kg_smd_type *root)
{
    const kg_crd_version *v = kg_crd_version_of(r);
    if (!v)
        return NULL;
    *root = kg_smd_root(v->schema);
    return &v->smd;
}
