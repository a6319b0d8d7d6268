/* The controllers' client over the server's store (see loopback.h). Reads are live store reads, writes are store
 * writes with resourceVersion preconditions (both through registry/storeservices.h, as kgate check's client),
 * creates go through kg_apiserver_create_object (system metadata and defaults) and the namespace sweep through
 * kg_apiserver_delete_namespace_contents. */
#include <stdlib.h>
#include <string.h>

#include "api/dynamic.h"
#include "server/apiserver.h"
#include "registry/storeservices.h"
#include "server/loopback.h"

struct kg_client_watch {
    kg_store_watch *w;
    const kg_resource *r; /* NULL: every namespaced resource (or every resource: all) */
    bool all;
    bool with_objects;
};

static const kg_resource *resource_or_err(const char *resource, kg_error *err)
{
    const kg_resource *r = kg_resource_find_plural(resource);
    if (!r)
        kg_err_set(err, KG_ENOTFOUND, "the server could not find the requested resource (%s)", resource);
    return r;
}

static kg_json *lb_get(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name, kg_error *err)
{
    kg_apiserver *s = ctx;
    return resource_or_err(resource, err) ? kg_store_object_get(s->store, a, resource, ns, name, err) : NULL;
}

static kg_json *lb_list(void *ctx, kg_arena *a, const char *resource, const char *ns, kg_error *err)
{
    kg_apiserver *s = ctx;
    return resource_or_err(resource, err) ? kg_store_object_list(s->store, a, resource, ns, err) : NULL;
}

static kg_json *lb_create(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                          kg_error *err)
{
    return kg_apiserver_create_object(ctx, a, resource, ns, obj, err);
}

static kg_json *lb_update(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                          kg_error *err)
{
    kg_apiserver *s = ctx;
    return resource_or_err(resource, err) ? kg_store_object_update(s->store, a, resource, ns, obj, err) : NULL;
}

static bool lb_delete(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name,
                      const char *resource_version, kg_error *err)
{
    kg_apiserver *s = ctx;
    return resource_or_err(resource, err) &&
           kg_store_object_delete(s->store, a, resource, ns, name, resource_version, err);
}

static bool lb_delete_namespace_contents(void *ctx, const char *ns, size_t *remaining, kg_error *err)
{
    return kg_apiserver_delete_namespace_contents(ctx, ns, remaining, err);
}

static kg_client_watch *lb_watch_open(void *ctx, const char *resource, bool with_objects, kg_error *err)
{
    kg_apiserver *s = ctx;
    const kg_resource *r = NULL;
    bool all = resource && !strcmp(resource, "*");
    if (resource && !all && !(r = resource_or_err(resource, err)))
        return NULL;
    kg_store_watch *sw = kg_store_watch_open(s->store, r ? r->storage_prefix : "/registry/", 0, err);
    if (!sw)
        return NULL;
    kg_client_watch *w = calloc(1, sizeof *w);
    *w = (kg_client_watch){sw, r, all, with_objects};
    return w;
}

/* Resource, namespace and name of a storage key ("/registry/[group/]plural/[ns/]name"): the watch's own resource
 * (only), else the namespaced (or, all, any) resource whose prefix the key starts with. */
/* Whether key (n bytes) is an object key of r; its namespace and name then. */
static bool key_of(const kg_resource *r, kg_arena *a, const char *key, size_t n, const char **ns, const char **name)
{
    size_t pl = strlen(r->storage_prefix);
    if (n <= pl || strncmp(key, r->storage_prefix, pl))
        return false;
    const char *rest = key + pl;
    const char *slash = r->namespaced ? memchr(rest, '/', n - pl) : NULL;
    if (r->namespaced && !slash)
        return false;
    *ns = slash ? kg_arena_strndup(a, rest, (size_t)(slash - rest)) : "";
    const char *nm = slash ? slash + 1 : rest;
    *name = kg_arena_strndup(a, nm, (size_t)(key + n - nm));
    return true;
}

/* Resource, namespace and name of a storage key ("/registry/[group/]plural/[ns/]name"): the watch's own resource
 * (only), else the namespaced (or, all, any) built-in or custom resource whose prefix the key starts with. */
static const kg_resource *split_key(const kg_resource *only, bool all, kg_arena *a, const char *key, size_t n,
                                    const char **ns, const char **name)
{
    if (only)
        return key_of(only, a, key, n, ns, name) ? only : NULL;
    /* built-in prefixes are "/registry/<plural>/" or "/registry/<group>/<plural>/": look both up in the prefix index
     * (table order within each) instead of trying every resource */
    static const char root[] = "/registry/";
    size_t rl = sizeof root - 1;
    if (n > rl && !strncmp(key, root, rl)) {
        const kg_resource *cand[8];
        size_t nc = 0;
        const char *s1 = memchr(key + rl, '/', n - rl);
        const char *s2 = s1 ? memchr(s1 + 1, '/', (size_t)(key + n - s1 - 1)) : NULL;
        if (s1)
            nc += kg_resource_by_storage_prefix(key, (size_t)(s1 - key) + 1, cand, 4);
        if (s2)
            nc += kg_resource_by_storage_prefix(key, (size_t)(s2 - key) + 1, cand + nc, 4);
        const kg_resource *best = NULL;
        for (size_t i = 0; i < nc; i++)
            if ((!best || cand[i]->index < best->index) && (all || cand[i]->namespaced) &&
                key_of(cand[i], a, key, n, ns, name))
                best = cand[i];
        if (best && nc > 1)
            key_of(best, a, key, n, ns, name); /* ns and name of the first match */
        if (best)
            return best;
    }
    const kg_dynamic_set *d = kg_dynamic_current(); /* custom resources: the storage version comes first */
    for (size_t i = 0; d && i < d->n; i++)
        if ((all || d->res[i].namespaced) && key_of(&d->res[i], a, key, n, ns, name))
            return &d->res[i];
    return NULL;
}

static kg_client_watch_status lb_watch_next(kg_client_watch *w, int timeout_ms, kg_arena *a, kg_client_event *ev,
                                            kg_error *err)
{
    for (;;) {
        const kg_store_event *se;
        kg_store_watch_status st = kg_store_watch_next(w->w, timeout_ms, &se, err);
        if (st == KG_WATCH_ERROR)
            return KG_CLIENT_WATCH_ERROR;
        if (st == KG_WATCH_CLOSED)
            return KG_CLIENT_WATCH_CLOSED;
        if (st == KG_WATCH_TIMEOUT)
            return KG_CLIENT_WATCH_TIMEOUT;
        *ev = (kg_client_event){0};
        const kg_resource *r = split_key(w->r, w->all, a, se->key, se->key_len, &ev->ns, &ev->name);
        if (!r) { /* a key of no namespaced resource: not reported */
            kg_store_event_release(se);
            continue;
        }
        ev->group = r->group;
        ev->resource = r->plural;
        ev->type = se->type == KG_STORE_DELETED ? KG_CLIENT_DELETED
                   : se->type == KG_STORE_ADDED ? KG_CLIENT_ADDED
                                                : KG_CLIENT_MODIFIED;
        if (w->with_objects && se->type != KG_STORE_DELETED && se->value) {
            kg_error derr;
            ev->object = kg_obj_decode(a, se->value, se->value_len, se->revision, &derr);
        } else if (w->with_objects && se->type == KG_STORE_DELETED && se->prev_value) {
            kg_error derr;
            ev->object = kg_obj_decode(a, se->prev_value, se->prev_value_len, se->prev_revision, &derr);
        }
        kg_store_event_release(se);
        return KG_CLIENT_WATCH_EVENT;
    }
}

static bool lb_list_all(void *ctx, kg_arena *a, void (*fn)(void *ud, const kg_client_event *ev), void *ud,
                        kg_error *err)
{
    (void)a; /* pages live in an arena of their own, reset between pages */
    kg_apiserver *s = ctx;
    kg_store_list_opts lo = {.limit = 500};
    kg_arena pa;
    kg_arena_init(&pa, 0);
    char *token = NULL;
    bool ok = true;
    for (;;) {
        kg_arena_reset(&pa);
        lo.continue_token = token;
        kg_store_list_result res;
        if (!kg_store_list(s->store, "/registry/", &lo, &pa, &res, err)) {
            ok = false;
            break;
        }
        for (size_t i = 0; i < res.n; i++) {
            kg_client_event ev = {.type = KG_CLIENT_ADDED};
            const kg_resource *r =
                split_key(NULL, true, &pa, res.items[i].key, strlen(res.items[i].key), &ev.ns, &ev.name);
            if (!r)
                continue;
            kg_error derr;
            ev.group = r->group;
            ev.resource = r->plural;
            ev.object =
                kg_obj_decode(&pa, res.items[i].value, res.items[i].value_len, res.items[i].mod_revision, &derr);
            if (ev.object)
                fn(ud, &ev);
        }
        free(token);
        token = res.continue_token ? strdup(res.continue_token) : NULL;
        if (!token)
            break;
    }
    free(token);
    kg_arena_free(&pa);
    return ok;
}

static void lb_watch_cancel(kg_client_watch *w)
{
    kg_store_watch_cancel(w->w);
}

static void lb_watch_close(kg_client_watch *w)
{
    if (!w)
        return;
    kg_store_watch_close(w->w);
    free(w);
}

kg_controller_client kg_apiserver_loopback_client(kg_apiserver *s)
{
    return (kg_controller_client){
        .ctx = s,
        .get = lb_get,
        .list = lb_list,
        .create = lb_create,
        .update = lb_update,
        .delete_object = lb_delete,
        .delete_namespace_contents = lb_delete_namespace_contents,
        .watch_open = lb_watch_open,
        .watch_next = lb_watch_next,
        .list_all = lb_list_all,
        .watch_cancel = lb_watch_cancel,
        .watch_close = lb_watch_close,
        .services = &s->svc,
    };
}
