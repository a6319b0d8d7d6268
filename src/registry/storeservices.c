/* Admission services over a kg_store (see storeservices.h). */
#include "registry/storeservices.h"

#include <stdlib.h>
#include <string.h>

#include "api/defaults.h"
#include "api/resources.h"
#include "api/schema.h"
#include "registry/codec.h"

static const kg_resource *resource_or_err(const char *resource, const char *name, kg_error *err)
{
    const kg_resource *r = kg_resource_find_plural(resource);
    if (!r)
        kg_err_set(err, KG_ENOTFOUND, "%s \"%s\" not found", resource, name ? name : "");
    return r;
}

static int64_t rv_of(const char *rv)
{
    return rv && rv[0] ? strtoll(rv, NULL, 10) : 0;
}

kg_json *kg_store_object_get(kg_store *st, kg_arena *a, const char *resource, const char *ns, const char *name,
                             kg_error *err)
{
    const kg_resource *r = resource_or_err(resource, name, err);
    kg_store_kv kv;
    if (!r || !kg_store_get(st, kg_resource_key(a, r, ns ? ns : "", name), a, &kv, err))
        return NULL;
    return kg_obj_decode(a, kv.value, kv.value_len, kv.mod_revision, err);
}

kg_json *kg_store_object_list(kg_store *st, kg_arena *a, const char *resource, const char *ns, kg_error *err)
{
    const kg_resource *r = kg_resource_find_plural(resource);
    kg_json *arr = kg_json_new_array(a);
    if (!r)
        return arr;
    kg_store_list_opts lo = {0};
    kg_store_list_result res;
    if (!kg_store_list(st, kg_resource_list_prefix(a, r, ns ? ns : ""), &lo, a, &res, err))
        return NULL;
    for (size_t i = 0; i < res.n; i++) {
        kg_error derr;
        kg_json *o = kg_obj_decode(a, res.items[i].value, res.items[i].value_len, res.items[i].mod_revision, &derr);
        if (o)
            kg_json_array_append(a, arr, o);
    }
    return arr;
}

kg_json *kg_store_object_create(kg_store *st, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                                kg_error *err)
{
    const kg_resource *r = kg_resource_find_plural(resource);
    if (!r) {
        kg_err_set(err, KG_ENOTFOUND, "the server could not find the requested resource");
        return NULL;
    }
    kg_json *o = kg_json_clone(a, obj);
    kg_json *md = kg_json_get_or_add_object(a, o, "metadata");
    const char *name = kg_json_get_str(md, "name");
    if (!name) {
        kg_err_set(err, KG_EINVAL, "metadata.name: Required value");
        return NULL;
    }
    kg_json_set(a, md, "uid", kg_json_new_str(a, kg_obj_new_uid(a)));
    kg_json_set(a, md, "creationTimestamp", kg_json_new_str(a, kg_obj_now_rfc3339(a)));
    kg_api_default(a, r, o);
    kg_api_prepare_for_create(a, r, o);
    size_t len;
    const char *bytes = kg_obj_encode(a, o, &len);
    int64_t rev;
    if (!kg_store_create(st, kg_resource_key(a, r, ns ? ns : "", name), bytes, len, &rev, err))
        return NULL;
    return kg_obj_decode(a, bytes, len, rev, err);
}

kg_json *kg_store_object_update(kg_store *st, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                                kg_error *err)
{
    const kg_resource *r = kg_resource_find_plural(resource);
    if (!r) {
        kg_err_set(err, KG_ENOTFOUND, "the server could not find the requested resource");
        return NULL;
    }
    kg_json *o = kg_json_clone(a, obj);
    const char *name = kg_json_path_str(o, "metadata.name");
    int64_t expect = rv_of(kg_json_path_str(o, "metadata.resourceVersion"));
    size_t len;
    const char *bytes = kg_obj_encode(a, o, &len);
    int64_t rev;
    if (!kg_store_update(st, kg_resource_key(a, r, ns ? ns : "", name ? name : ""), bytes, len, expect, &rev, err))
        return NULL;
    return kg_obj_decode(a, bytes, len, rev, err);
}

bool kg_store_object_delete(kg_store *st, kg_arena *a, const char *resource, const char *ns, const char *name,
                            const char *resource_version, kg_error *err)
{
    const kg_resource *r = resource_or_err(resource, name, err);
    return r &&
           kg_store_delete(st, kg_resource_key(a, r, ns ? ns : "", name), rv_of(resource_version), a, NULL, NULL, err);
}

/* ---- the services table ---- */

static kg_json *svc_get(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name, unsigned flags,
                        kg_error *err)
{
    (void)flags; /* every read is live */
    const kg_store_services_config *c = ctx;
    return kg_store_object_get(c->store, a, resource, ns, name, err);
}

static kg_json *svc_list(void *ctx, kg_arena *a, const char *resource, const char *ns, unsigned flags, kg_error *err)
{
    (void)flags;
    const kg_store_services_config *c = ctx;
    return kg_store_object_list(c->store, a, resource, ns, err);
}

static kg_json_shared *svc_view(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name,
                                kg_error *err)
{
    kg_json *o = svc_get(ctx, a, resource, ns, name, 0, err);
    return o ? kg_json_shared_new_pinned(a, o) : NULL;
}

static size_t svc_view_list(void *ctx, kg_arena *a, const char *resource, const char *ns, kg_json_shared ***out,
                            kg_error *err)
{
    kg_json *arr = svc_list(ctx, a, resource, ns, 0, err);
    if (!arr)
        return (size_t)-1;
    kg_json_shared **v = kg_arena_alloc(a, (arr->len + 1) * sizeof *v);
    for (uint32_t i = 0; i < arr->len; i++)
        v[i] = kg_json_shared_new_pinned(a, kg_json_at(arr, i));
    *out = v;
    return arr->len;
}

static kg_json *svc_create(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                           kg_error *err)
{
    const kg_store_services_config *c = ctx;
    return kg_store_object_create(c->store, a, resource, ns, obj, err);
}

static kg_json *svc_update(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                           kg_error *err)
{
    const kg_store_services_config *c = ctx;
    return kg_store_object_update(c->store, a, resource, ns, obj, err);
}

static bool svc_feature(void *ctx, const char *gate)
{
    const kg_store_services_config *c = ctx;
    return kg_feature_enabled(c->gates, gate);
}

/* MutatingAdmissionPolicy's ApplyConfiguration: list types from the served kinds' OpenAPI schemas */
kg_admission_list_type kg_store_services_list_type(void *ctx, const kg_gvk *kind, const char *const *path, size_t n,
                                                   const char **keys)
{
    (void)ctx;
    switch (kg_schema_list_type_of(kind->group, kind->kind, path, n, keys)) {
    case KG_SCHEMA_LIST_MAP: return KG_ADMISSION_LIST_MAP;
    case KG_SCHEMA_LIST_SET: return KG_ADMISSION_LIST_SET;
    default: return KG_ADMISSION_LIST_ATOMIC;
    }
}

bool kg_store_services_unknown_field(void *ctx, kg_arena *a, const kg_gvk *kind, const kg_json *obj, const char **path)
{
    (void)ctx;
    const kg_resource *r = kind->kind ? kg_resource_find_kind(kind->group ? kind->group : "", kind->kind) : NULL;
    const char **paths = NULL;
    size_t n = 0;
    if (!r || !kg_schema_unknown_fields(a, r, obj, &paths, &n) || !n)
        return false;
    *path = paths[0];
    return true;
}

void kg_store_services_init(kg_admission_services *svc, const kg_store_services_config *cfg)
{
    memset(svc, 0, sizeof *svc);
    svc->ctx = (void *)cfg;
    svc->get = svc_get;
    svc->list = svc_list;
    svc->view = svc_view;
    svc->view_list = svc_view_list;
    svc->create = svc_create;
    svc->update = svc_update;
    svc->feature_enabled = svc_feature;
    svc->list_type = kg_store_services_list_type;
    svc->unknown_field = kg_store_services_unknown_field;
    svc->authorizer = cfg->authorizer;
    svc->options = cfg->options;
    svc->metrics = cfg->metrics;
}
