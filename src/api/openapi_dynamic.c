/* OpenAPI v3 definitions of custom resources (api/dynamic.h): the CRD version's schema as published by
 * apiextensions-apiserver's builder — named after the reversed group, with apiVersion, kind and metadata (a reference
 * to ObjectMeta) added, x-kubernetes-group-version-kind set, int-or-string unfolded into anyOf — plus the list kind. */
#include <string.h>

#include "api/dynamic.h"
#include "api/schema.h"

static kg_json *sref(kg_arena *a, const char *s)
{
    return kg_json_new_str_ref(a, s, strlen(s));
}

char *kg_dynamic_definition_name(kg_arena *a, const kg_resource *r)
{
    /* "stable.example.com" → "com.example.stable" */
    kg_buf b = KG_BUF_INIT;
    const char *g = r->group;
    size_t n = strlen(g);
    while (n > 0) {
        size_t start = n;
        while (start > 0 && g[start - 1] != '.')
            start--;
        if (b.len)
            kg_buf_putc(&b, '.');
        kg_buf_append(&b, g + start, n - start);
        n = start ? start - 1 : 0;
    }
    kg_buf_printf(&b, ".%s.%s", r->version, r->kind);
    char *out = kg_arena_strndup(a, b.data, b.len);
    kg_buf_free(&b);
    return out;
}

static kg_json *gvk(kg_arena *a, const kg_resource *r, const char *kind)
{
    kg_json *arr = kg_json_new_array(a);
    kg_json *g = kg_json_new_object(a);
    kg_json_set(a, g, "group", sref(a, r->group));
    kg_json_set(a, g, "kind", sref(a, kind));
    kg_json_set(a, g, "version", sref(a, r->version));
    kg_json_array_append(a, arr, g);
    return arr;
}

/* int-or-string nodes: anyOf integer|string, as the v3 builder publishes them */
static void unfold(kg_arena *a, kg_json *s)
{
    if (!s || s->type != KG_JSON_OBJECT)
        return;
    kg_json *ios = kg_json_get(s, "x-kubernetes-int-or-string");
    if (ios && ios->type == KG_JSON_BOOL && ios->b && !kg_json_get(s, "anyOf")) {
        kg_json *any = kg_json_new_array(a);
        kg_json *i = kg_json_new_object(a), *st = kg_json_new_object(a);
        kg_json_set(a, i, "type", sref(a, "integer"));
        kg_json_set(a, st, "type", sref(a, "string"));
        kg_json_array_append(a, any, i);
        kg_json_array_append(a, any, st);
        kg_json_set(a, s, "anyOf", any);
    }
    kg_json *props = kg_json_get(s, "properties");
    for (uint32_t k = 0; props && props->type == KG_JSON_OBJECT && k < props->len; k++)
        unfold(a, props->u.members[k].val);
    unfold(a, kg_json_get(s, "items"));
    unfold(a, kg_json_get(s, "additionalProperties"));
}

static kg_json *str_prop(kg_arena *a, const char *desc)
{
    kg_json *p = kg_json_new_object(a);
    kg_json_set(a, p, "description", sref(a, desc));
    kg_json_set(a, p, "type", sref(a, "string"));
    return p;
}

static const char API_VERSION_DESC[] =
    "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized "
    "schemas to the latest internal value, and may reject unrecognized values. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
static const char KIND_DESC[] =
    "Kind is a string value representing the REST resource this object represents. Servers may infer this from the "
    "endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
static const char METADATA_DESC[] =
    "Standard object's metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
#define OBJECT_META_REF "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

static kg_json *meta_ref(kg_arena *a, const char *ref, const char *desc)
{
    kg_json *m = kg_json_new_object(a);
    kg_json *all = kg_json_new_array(a);
    kg_json *r = kg_json_new_object(a);
    kg_json_set(a, r, "$ref", sref(a, ref));
    kg_json_array_append(a, all, r);
    kg_json_set(a, m, "allOf", all);
    kg_json_set(a, m, "description", sref(a, desc));
    return m;
}

void kg_dynamic_openapi_v3(kg_arena *a, kg_json *schemas, const kg_dynamic_set *d, size_t i)
{
    const kg_resource *r = &d->res[i];
    char *name = kg_dynamic_definition_name(a, r);
    kg_json *s = d->schemas[i] ? kg_json_clone(a, d->schemas[i]) : kg_json_new_object(a);
    if (s->type != KG_JSON_OBJECT)
        s = kg_json_new_object(a);
    if (!kg_json_get(s, "type"))
        kg_json_set(a, s, "type", sref(a, "object"));
    unfold(a, s);
    kg_json *props = kg_json_get_or_add_object(a, s, "properties");
    kg_json_set(a, props, "apiVersion", str_prop(a, API_VERSION_DESC));
    kg_json_set(a, props, "kind", str_prop(a, KIND_DESC));
    kg_json_set(a, props, "metadata", meta_ref(a, OBJECT_META_REF, METADATA_DESC));
    kg_json_set(a, s, "x-kubernetes-group-version-kind", gvk(a, r, r->kind));
    kg_json_set(a, schemas, name, s);

    kg_json *list = kg_json_new_object(a);
    kg_json_set(a, list, "description",
                kg_json_new_str(a, kg_arena_sprintf(a, "%s is a list of %s", r->list_kind, r->kind)));
    kg_json_set(a, list, "type", sref(a, "object"));
    kg_json *req = kg_json_new_array(a);
    kg_json_array_append(a, req, sref(a, "items"));
    kg_json_set(a, list, "required", req);
    kg_json *lp = kg_json_new_object(a);
    kg_json_set(a, lp, "apiVersion", str_prop(a, API_VERSION_DESC));
    kg_json *items = kg_json_new_object(a);
    kg_json_set(a, items, "description",
                kg_json_new_str(a, kg_arena_sprintf(a,
                                                    "List of %s. More info: "
                                                    "https://git.k8s.io/community/contributors/devel/"
                                                    "sig-architecture/api-conventions.md",
                                                    r->plural)));
    kg_json_set(a, items, "type", sref(a, "array"));
    kg_json *iref = kg_json_new_object(a);
    kg_json_set(a, iref, "$ref", kg_json_new_str(a, kg_arena_sprintf(a, "#/components/schemas/%s", name)));
    kg_json_set(a, items, "items", iref);
    kg_json_set(a, lp, "items", items);
    kg_json_set(a, lp, "kind", str_prop(a, KIND_DESC));
    kg_json_set(
        a, lp, "metadata",
        meta_ref(a, "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta",
                 "Standard list metadata. More info: "
                 "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"));
    kg_json_set(a, list, "properties", lp);
    kg_json_set(a, list, "x-kubernetes-group-version-kind", gvk(a, r, r->list_kind));
    kg_json_set(a, schemas, kg_arena_sprintf(a, "%sList", name), list);
}
