/* Minimal schemas: every resource is an object with apiVersion, kind, metadata, spec and status. The full field
 * schemas (descriptions, types, merge keys) replace this. */
#include "api/schema.h"

#include <string.h>

static kg_json *sref(kg_arena *a, const char *s) { return kg_json_new_str_ref(a, s, strlen(s)); }

char *kg_schema_type_name(kg_arena *a, const kg_resource *r)
{
    const char *g = r->group[0] ? r->group : "core";
    const char *dot = strchr(g, '.');
    /* io.k8s.api.<group short name>.<version>.<Kind> */
    return kg_arena_sprintf(a, "io.k8s.api.%.*s.%s.%s", dot ? (int)(dot - g) : (int)strlen(g), g, r->version,
                            r->kind);
}

static kg_json *typed(kg_arena *a, const char *type, const char *desc)
{
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "description", sref(a, desc));
    kg_json_set(a, o, "type", sref(a, type));
    return o;
}

void kg_schema_add_resource(kg_arena *a, kg_json *schemas, const kg_resource *r, bool v3)
{
    kg_json *s = typed(a, "object", "");
    kg_json *props = kg_json_new_object(a);
    kg_json_set(a, props, "apiVersion", typed(a, "string", "APIVersion defines the versioned schema of this "
                                                           "representation of an object."));
    kg_json_set(a, props, "kind", typed(a, "string", "Kind is a string value representing the REST resource this "
                                                     "object represents."));
    kg_json *md = kg_json_new_object(a);
    kg_json_set(a, md, "$ref", sref(a, v3 ? "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
                                          : "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
    kg_json_set(a, props, "metadata", md);
    kg_json_set(a, props, "spec", typed(a, "object", "Specification of the desired behavior."));
    kg_json_set(a, props, "status", typed(a, "object", "Most recently observed status."));
    kg_json_set(a, s, "properties", props);
    kg_json *gvk = kg_json_new_object(a);
    kg_json_set(a, gvk, "group", sref(a, r->group));
    kg_json_set(a, gvk, "kind", sref(a, r->kind));
    kg_json_set(a, gvk, "version", sref(a, r->version));
    kg_json *arr = kg_json_new_array(a);
    kg_json_array_append(a, arr, gvk);
    kg_json_set(a, s, "x-kubernetes-group-version-kind", arr);
    kg_json_set(a, schemas, kg_schema_type_name(a, r), s);
}

void kg_schema_add_common(kg_arena *a, kg_json *schemas, bool v3)
{
    kg_json *om = typed(a, "object", "ObjectMeta is metadata that all persisted resources must have, which "
                                     "includes all objects users must create.");
    kg_json *props = kg_json_new_object(a);
    kg_json_set(a, props, "name", typed(a, "string", "Name must be unique within a namespace."));
    kg_json_set(a, props, "namespace", typed(a, "string", "Namespace defines the space within which each name "
                                                          "must be unique."));
    kg_json_set(a, om, "properties", props);
    kg_json_set(a, schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", om);
}

const char *kg_schema_hash(void) { return "kgate0001"; }
