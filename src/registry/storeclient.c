/* The controllers' client over a kg_store (see storeclient.h). */
#include "registry/storeclient.h"

#include "registry/pipeline.h"
#include "registry/storeservices.h"

static kg_json *sc_get(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name, kg_error *err)
{
    return kg_store_object_get(ctx, a, resource, ns, name, err);
}

static kg_json *sc_list(void *ctx, kg_arena *a, const char *resource, const char *ns, kg_error *err)
{
    return kg_store_object_list(ctx, a, resource, ns, err);
}

static kg_json *sc_create(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                          kg_error *err)
{
    return kg_store_object_create(ctx, a, resource, ns, obj, err);
}

static kg_json *sc_update(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                          kg_error *err)
{
    return kg_store_object_update(ctx, a, resource, ns, obj, err);
}

static bool sc_delete(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name,
                      const char *resource_version, kg_error *err)
{
    return kg_store_object_delete(ctx, a, resource, ns, name, resource_version, err);
}

static bool sc_delete_namespace_contents(void *ctx, const char *ns, size_t *remaining, kg_error *err)
{
    return kg_pipeline_delete_namespace_contents(ctx, ns, remaining, err);
}

kg_controller_client kg_store_controller_client(kg_store *store, const kg_admission_services *services)
{
    return (kg_controller_client){
        .ctx = store,
        .get = sc_get,
        .list = sc_list,
        .create = sc_create,
        .update = sc_update,
        .delete_object = sc_delete,
        .delete_namespace_contents = sc_delete_namespace_contents,
        .services = services,
    };
}
