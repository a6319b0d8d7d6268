#include "api/openapi.h"

#include <stdio.h>
#include <string.h>

#include "api/dynamic.h"
#include "api/resources.h"
#include "api/schema.h"

static kg_json *sref(kg_arena *a, const char *s) { return kg_json_new_str_ref(a, s, strlen(s)); }

static kg_json *gvk_ext(kg_arena *a, const kg_resource *r, bool as_array)
{
    kg_json *g = kg_json_new_object(a);
    kg_json_set(a, g, "group", sref(a, r->group));
    kg_json_set(a, g, "kind", sref(a, r->kind));
    kg_json_set(a, g, "version", sref(a, r->version));
    if (!as_array)
        return g;
    kg_json *arr = kg_json_new_array(a);
    kg_json_array_append(a, arr, g);
    return arr;
}

static kg_json *query_param(kg_arena *a, const char *name, const char *desc, bool v3)
{
    kg_json *p = kg_json_new_object(a);
    kg_json_set(a, p, "name", sref(a, name));
    kg_json_set(a, p, "in", sref(a, "query"));
    kg_json_set(a, p, "description", sref(a, desc));
    if (v3) {
        kg_json *sch = kg_json_new_object(a);
        kg_json_set(a, sch, "type", sref(a, "string"));
        kg_json_set(a, sch, "uniqueItems", kg_json_new_bool(a, true));
        kg_json_set(a, p, "schema", sch);
    } else {
        kg_json_set(a, p, "type", sref(a, "string"));
        kg_json_set(a, p, "uniqueItems", kg_json_new_bool(a, true));
    }
    return p;
}

static const char FV_DESC[] =
    "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing "
    "unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict";

static kg_json *operation(kg_arena *a, const kg_resource *r, const char *action, const char *verb, bool v3,
                          bool with_body, const char *const *content, size_t ncontent)
{
    kg_json *op = kg_json_new_object(a);
    kg_json *tags = kg_json_new_array(a);
    kg_json_array_append(a, tags, sref(a, r->group[0] ? r->group : "core"));
    kg_json_set(a, op, "tags", tags);
    kg_json_set(a, op, "description", kg_json_new_str(a, kg_arena_sprintf(a, "%s the specified %s", verb, r->kind)));
    kg_json_set(a, op, "operationId",
                kg_json_new_str(a, kg_arena_sprintf(a, "%s%s%s", verb, r->namespaced ? "Namespaced" : "", r->kind)));
    kg_json *params = kg_json_new_array(a);
    if (with_body) {
        kg_json_array_append(a, params,
                             query_param(a, "dryRun",
                                         "When present, indicates that modifications should not be persisted.", v3));
        kg_json_array_append(a, params, query_param(a, "fieldManager", "fieldManager is a name associated with the "
                                                                       "actor or entity that is making these changes.",
                                                    v3));
        kg_json_array_append(a, params, query_param(a, "fieldValidation", FV_DESC, v3));
    }
    kg_json_set(a, op, "parameters", params);
    if (with_body && v3) {
        kg_json *rb = kg_json_new_object(a);
        kg_json *ct = kg_json_new_object(a);
        for (size_t i = 0; i < ncontent; i++) {
            kg_json *m = kg_json_new_object(a);
            kg_json *sch = kg_json_new_object(a);
            kg_json_set(a, sch, "$ref", kg_json_new_str(a, kg_arena_sprintf(a, "#/components/schemas/%s",
                                                                           kg_schema_type_name(a, r))));
            kg_json_set(a, m, "schema", sch);
            kg_json_set(a, ct, content[i], m);
        }
        kg_json_set(a, rb, "content", ct);
        kg_json_set(a, rb, "required", kg_json_new_bool(a, true));
        kg_json_set(a, op, "requestBody", rb);
    }
    kg_json *resps = kg_json_new_object(a);
    kg_json *ok = kg_json_new_object(a);
    kg_json_set(a, ok, "description", sref(a, "OK"));
    kg_json_set(a, resps, "200", ok);
    kg_json_set(a, op, "responses", resps);
    kg_json_set(a, op, "x-kubernetes-action", sref(a, action));
    kg_json_set(a, op, "x-kubernetes-group-version-kind", gvk_ext(a, r, false));
    return op;
}

static char *collection_path(kg_arena *a, const kg_resource *r)
{
    const char *prefix = r->group[0] ? kg_arena_sprintf(a, "/apis/%s/%s", r->group, r->version)
                                     : kg_arena_sprintf(a, "/api/%s", r->version);
    if (r->namespaced)
        return kg_arena_sprintf(a, "%s/namespaces/{namespace}/%s", prefix, r->plural);
    return kg_arena_sprintf(a, "%s/%s", prefix, r->plural);
}

static void add_paths(kg_arena *a, kg_json *paths, const kg_resource *r, bool v3)
{
    /* kubectl apply must not be steered to OpenAPI-driven strategic merge (it uses its own type information for
     * built-in kinds); the PATCH body types therefore omit strategic-merge-patch in v3. */
    static const char *const json_ct[] = {"application/json", "application/yaml"};
    static const char *const patch_ct[] = {"application/json-patch+json", "application/merge-patch+json"};
    char *coll = collection_path(a, r);
    kg_json *cp = kg_json_new_object(a);
    kg_json_set(a, cp, "get", operation(a, r, "list", "list", v3, false, NULL, 0));
    kg_json_set(a, cp, "post", operation(a, r, "post", "create", v3, true, json_ct, 2));
    kg_json_set(a, paths, coll, cp);
    kg_json *ip = kg_json_new_object(a);
    kg_json_set(a, ip, "get", operation(a, r, "get", "read", v3, false, NULL, 0));
    kg_json_set(a, ip, "put", operation(a, r, "put", "replace", v3, true, json_ct, 2));
    kg_json_set(a, ip, "patch", operation(a, r, "patch", "patch", v3, true, patch_ct, 2));
    kg_json_set(a, ip, "delete", operation(a, r, "delete", "delete", v3, false, NULL, 0));
    kg_json_set(a, paths, kg_arena_sprintf(a, "%s/{name}", coll), ip);
}

static kg_json *info(kg_arena *a)
{
    kg_json *i = kg_json_new_object(a);
    kg_json_set(a, i, "title", sref(a, "Kubernetes"));
    kg_json_set(a, i, "version", sref(a, "v1.33.0"));
    return i;
}

static kg_json *v3_root(kg_arena *a)
{
    kg_json *paths = kg_json_new_object(a);
    for (size_t i = 0; i < kg_resources_count(); i++) {
        const kg_resource *r = kg_resource_at(i);
        char *key = r->group[0] ? kg_arena_sprintf(a, "apis/%s/%s", r->group, r->version)
                                : kg_arena_sprintf(a, "api/%s", r->version);
        if (kg_json_get(paths, key))
            continue;
        kg_json *e = kg_json_new_object(a);
        kg_json_set(a, e, "serverRelativeURL",
                    kg_json_new_str(a, kg_arena_sprintf(a, "/openapi/v3/%s?hash=%s", key, kg_schema_hash())));
        kg_json_set(a, paths, key, e);
    }
    /* custom resources: the hash follows the CRDs' schemas */
    const kg_dynamic_set *d = kg_dynamic_current();
    for (size_t i = 0; d && i < d->n; i++) {
        char *key = kg_arena_sprintf(a, "apis/%s/%s", d->res[i].group, d->res[i].version);
        if (kg_json_get(paths, key))
            continue;
        kg_json *e = kg_json_new_object(a);
        kg_json_set(a, e, "serverRelativeURL",
                    kg_json_new_str(a, kg_arena_sprintf(a, "/openapi/v3/%s?hash=%s", key, d->hash)));
        kg_json_set(a, paths, key, e);
    }
    kg_json *root = kg_json_new_object(a);
    kg_json_set(a, root, "paths", paths);
    return root;
}

static kg_json *v3_group_version(kg_arena *a, const char *group, const char *version)
{
    kg_json *paths = kg_json_new_object(a);
    kg_json *schemas = kg_json_new_object(a);
    bool any = false;
    for (size_t i = 0; i < kg_resources_count(); i++) {
        const kg_resource *r = kg_resource_at(i);
        if (strcmp(r->group, group) || strcmp(r->version, version))
            continue;
        any = true;
        add_paths(a, paths, r, true);
        kg_schema_add_resource(a, schemas, r, true);
    }
    const kg_dynamic_set *d = kg_dynamic_current();
    for (size_t i = 0; d && i < d->n; i++) {
        const kg_resource *r = &d->res[i];
        if (strcmp(r->group, group) || strcmp(r->version, version))
            continue;
        any = true;
        add_paths(a, paths, r, true);
        kg_dynamic_openapi_v3(a, schemas, d, i);
    }
    if (!any)
        return NULL;
    kg_schema_add_common(a, schemas, true);
    kg_json *doc = kg_json_new_object(a);
    kg_json_set(a, doc, "openapi", sref(a, "3.0.0"));
    kg_json_set(a, doc, "info", info(a));
    kg_json_set(a, doc, "paths", paths);
    kg_json *comp = kg_json_new_object(a);
    kg_json_set(a, comp, "schemas", schemas);
    kg_json_set(a, doc, "components", comp);
    return doc;
}

static kg_json *v2(kg_arena *a)
{
    kg_json *paths = kg_json_new_object(a);
    for (size_t i = 0; i < kg_resources_count(); i++)
        add_paths(a, paths, kg_resource_at(i), false);
    kg_json *doc = kg_json_new_object(a);
    kg_json_set(a, doc, "swagger", sref(a, "2.0"));
    kg_json_set(a, doc, "info", info(a));
    kg_json_set(a, doc, "paths", paths);
    /* Definitions without x-kubernetes-group-version-kind: kubectl then computes apply patches from its own
     * built-in type information rather than from this document. */
    kg_json_set(a, doc, "definitions", kg_json_new_object(a));
    return doc;
}

kg_json *kg_openapi_document(kg_arena *a, const char *path)
{
    if (!strcmp(path, "/openapi/v2"))
        return v2(a);
    if (!strcmp(path, "/openapi/v3") || !strcmp(path, "/openapi/v3/"))
        return v3_root(a);
    if (!strncmp(path, "/openapi/v3/api/", 16))
        return v3_group_version(a, "", path + 16);
    if (!strncmp(path, "/openapi/v3/apis/", 17)) {
        const char *g = path + 17;
        const char *slash = strchr(g, '/');
        if (!slash || strchr(slash + 1, '/'))
            return NULL;
        return v3_group_version(a, kg_arena_strndup(a, g, (size_t)(slash - g)), slash + 1);
    }
    return NULL;
}
