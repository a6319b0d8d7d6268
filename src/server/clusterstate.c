/* The admission services of kgate serve (admission/services.h): cluster state reads over the watch-fed caches
 * (server/cache.h) or, for live reads, the store (registry/storeservices.h, shared with kgate check); side-effect
 * writes to the store through the same functions; change notification from the
 * caches; feature gates. */
#include <stdlib.h>
#include <string.h>

#include "api/defaults.h"
#include "api/schema.h"
#include "server/apiserver.h"
#include "server/cache.h"
#include "registry/featuregates.h"
#include "registry/storeservices.h"

static bool svc_feature(void *ctx, const char *gate)
{
    kg_apiserver *s = ctx;
    return kg_feature_enabled(s->gates, gate);
}

/* ---- admission services over the store (cluster state reads, side-effect writes) ---- */

static const kg_resource *res_by_plural(const char *plural)
{
    return kg_resource_find_plural(plural);
}

/* Reads go to the watch-fed cache (started on first use, as an informer would be) unless the plugin asks for a
 * live read; a cache that cannot sync within 10 s falls back to the store. */
static bool use_cache(kg_apiserver *s, const kg_resource *r, unsigned flags)
{
    if (flags & KG_ADMISSION_GET_LIVE)
        return false;
    if (r->index < 0) /* custom resources have no cache: read from the store */
        return false;
    return kg_cache_wait_synced(s->caches, r, 10000);
}

static kg_json *svc_get(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name, unsigned flags,
                        kg_error *err)
{
    kg_apiserver *s = ctx;
    const kg_resource *r = res_by_plural(resource);
    if (!r) {
        kg_err_set(err, KG_ENOTFOUND, "%s \"%s\" not found", resource, name);
        return NULL;
    }
    if (use_cache(s, r, flags))
        return kg_cache_get(s->caches, r, ns ? ns : "", name, a, err);
    return kg_store_object_get(s->store, a, resource, ns, name, err);
}

static kg_json *svc_list(void *ctx, kg_arena *a, const char *resource, const char *ns, unsigned flags, kg_error *err)
{
    kg_apiserver *s = ctx;
    const kg_resource *r = res_by_plural(resource);
    if (r && use_cache(s, r, flags))
        return kg_cache_list(s->caches, r, ns ? ns : "", a, err);
    return kg_store_object_list(s->store, a, resource, ns, err);
}

static kg_json_shared *svc_view(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name,
                                kg_error *err)
{
    kg_apiserver *s = ctx;
    const kg_resource *r = res_by_plural(resource);
    if (r && use_cache(s, r, 0))
        return kg_cache_view(s->caches, r, ns, name, a, err);
    kg_json *o = svc_get(ctx, a, resource, ns, name, KG_ADMISSION_GET_LIVE, err);
    return o ? kg_json_shared_new_pinned(a, o) : NULL;
}

static size_t svc_view_list(void *ctx, kg_arena *a, const char *resource, const char *ns, kg_json_shared ***out,
                            kg_error *err)
{
    kg_apiserver *s = ctx;
    const kg_resource *r = res_by_plural(resource);
    if (r && use_cache(s, r, 0))
        return kg_cache_view_list(s->caches, r, ns, a, out, err);
    kg_json *arr = svc_list(ctx, a, resource, ns, KG_ADMISSION_GET_LIVE, err);
    if (!arr)
        return (size_t)-1;
    kg_json_shared **v = kg_arena_alloc(a, (arr->len + 1) * sizeof *v);
    for (uint32_t i = 0; i < arr->len; i++)
        v[i] = kg_json_shared_new_pinned(a, kg_json_at(arr, i));
    *out = v;
    return arr->len;
}

static bool svc_ready(void *ctx, const char *resource)
{
    kg_apiserver *s = ctx;
    const kg_resource *r = res_by_plural(resource);
    if (!r || r->index < 0)
        return true;
    kg_cache_start(s->caches, r);
    return kg_cache_synced(s->caches, r);
}

static kg_json *svc_create(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                           kg_error *err)
{
    kg_apiserver *s = ctx;
    return kg_store_object_create(s->store, a, resource, ns, obj, err);
}

kg_json *kg_apiserver_create_object(kg_apiserver *s, kg_arena *a, const char *plural, const char *ns,
                                    const kg_json *obj, kg_error *err)
{
    return svc_create(s, a, plural, ns, obj, err);
}

static kg_json *svc_update(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                           kg_error *err)
{
    kg_apiserver *s = ctx;
    return kg_store_object_update(s->store, a, resource, ns, obj, err);
}

/* Change notification over the watch-fed caches (subscribing starts the resource's cache). */
static uint64_t svc_subscribe(void *ctx, const char *resource, kg_admission_event_fn fn, void *ud, kg_error *err)
{
    kg_apiserver *s = ctx;
    const kg_resource *r = res_by_plural(resource);
    if (!r || !fn) {
        kg_err_set(err, r ? KG_EINVAL : KG_ENOTFOUND, "subscribe: %s", r ? "no callback" : "unknown resource");
        return 0;
    }
    if (r->index < 0) {
        kg_err_set(err, KG_EINVAL, "subscribe: %s: custom resources are not cached", resource);
        return 0;
    }
    return kg_cache_subscribe(s->caches, r, fn, ud);
}

static void svc_unsubscribe(void *ctx, uint64_t id)
{
    kg_apiserver *s = ctx;
    kg_cache_unsubscribe(s->caches, id);
}

/* paramKind of admission policies: any served kind */
static bool svc_resource_for_kind(void *ctx, const char *group, const char *version, const char *kind,
                                  const char **plural, bool *namespaced)
{
    const kg_resource *r = kg_resource_find_kind(group ? group : "", kind);
    if (!r || (version && *version && strcmp(version, r->version)))
        return false;
    *plural = r->plural;
    *namespaced = r->namespaced;
    return true;
}

/* the policy type checker: kinds of the resources a policy matches, and their schemas */
static bool svc_kind_for_resource(void *ctx, const char *group, const char *version, const char *resource,
                                  const char **kind)
{
    (void)ctx;
    const kg_resource *r = kg_resource_find(group ? group : "", version ? version : "", resource ? resource : "");
    if (!r)
        return false;
    *kind = r->kind;
    return true;
}

static kg_json *svc_kind_schema(void *ctx, kg_arena *a, const char *group, const char *version, const char *kind,
                                const char **root)
{
    (void)ctx;
    const kg_resource *r = kg_resource_find_kind(group ? group : "", kind ? kind : "");
    if (!r || (version && *version && strcmp(version, r->version)))
        return NULL;
    kg_json *schemas = kg_json_new_object(a);
    kg_schema_add_resource(a, schemas, r, true);
    *root = kg_schema_type_name(a, r);
    return schemas;
}

static bool pattern_ok(const char *pattern, const char *v)
{
    return !strcmp(pattern, "*") || !strcmp(pattern, v);
}

/* rules naming nothing served (kg_vap's warning on write) */
static bool svc_resource_served(void *ctx, const char *group, const char *version, const char *resource)
{
    (void)ctx;
    const char *slash = strchr(resource, '/');
    size_t rn = slash ? (size_t)(slash - resource) : strlen(resource);
    const char *sub = slash ? slash + 1 : NULL;
    for (size_t i = 0; i < kg_resources_count(); i++) {
        const kg_resource *r = kg_resource_at(i);
        if (!pattern_ok(group, r->group) || !pattern_ok(version, r->version))
            continue;
        if (!(rn == 1 && resource[0] == '*') && (strlen(r->plural) != rn || strncmp(r->plural, resource, rn)))
            continue;
        if (!sub)
            return true;
        for (size_t k = 0; k < KG_MAX_SUBRESOURCES && r->subresources[k].name; k++)
            if (pattern_ok(sub, r->subresources[k].name))
                return true;
    }
    return false;
}

void kg_apiserver_services_init(kg_apiserver *s)
{
    s->svc.ctx = s;
    s->svc.get = svc_get;
    s->svc.list = svc_list;
    s->svc.view = svc_view;
    s->svc.view_list = svc_view_list;
    s->svc.ready = svc_ready;
    s->svc.feature_enabled = svc_feature;
    s->svc.create = svc_create;
    s->svc.update = svc_update;
    s->svc.subscribe = svc_subscribe;
    s->svc.unsubscribe = svc_unsubscribe;
    s->svc.resource_for_kind = svc_resource_for_kind;
    s->svc.kind_for_resource = svc_kind_for_resource;
    s->svc.kind_schema = svc_kind_schema;
    s->svc.resource_served = svc_resource_served;
    s->svc.list_type = kg_store_services_list_type;
    s->svc.unknown_field = kg_store_services_unknown_field;
    s->svc.metrics = &s->metrics;
}
