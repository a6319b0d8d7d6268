/* Namespace controller: when a namespace has a deletionTimestamp, delete every namespaced object in it; once none
 * remain, drop the "kubernetes" spec finalizer and delete the namespace (if no metadata finalizers remain).
 * Driven by a watch on namespaces plus a periodic resync (objects with finalizers are waited for). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "controllers/clusterroleaggregation.h"
#include "controllers/controllers.h"
#include "controllers/endpointslicemirroring.h"
#include "controllers/gc/collector.h"
#include "controllers/quota.h"
#include "controllers/vapstatus.h"
#include "controllers/serviceaccount.h"

struct kg_controllers {
    kg_controller_client c;
    char *ca_pem;
    kg_quota_controller *quota;
    kg_vapstatus_controller *vapstatus;
    kg_aggregation_controller *aggregation;
    kg_gc_controller *gc; /* NULL when the client cannot list every object */
    kg_epsm_controller *epsm;
    pthread_t thread;
    kg_client_watch *w;
    int stop;               /* atomic */
    bool initial_sync_done; /* namespace objects ensured for every namespace once; then per watch event */
};

static void finalize_namespace(const kg_controller_client *c, kg_arena *a, kg_json *ns)
{
    if (!kg_json_path(ns, "metadata.deletionTimestamp"))
        return;
    const char *name = kg_json_path_str(ns, "metadata.name");
    if (!name)
        return;
    kg_error err;
    size_t remaining = 0;
    if (!c->delete_namespace_contents(c->ctx, name, &remaining, &err)) {
        KG_WARN("namespace controller: deleting contents of %s: %s", name, err.msg);
        return;
    }
    if (remaining) {
        KG_V(2, "namespace controller: %s still has %zu objects", name, remaining);
        return;
    }
    kg_json *spec = kg_json_get(ns, "spec");
    kg_json_del(spec, "finalizers");
    kg_json *mfins = kg_json_path(ns, "metadata.finalizers");
    if (mfins && mfins->type == KG_JSON_ARRAY && mfins->len) {
        c->update(c->ctx, a, "namespaces", "", ns, &err);
        return;
    }
    const char *rv = kg_json_path_str(ns, "metadata.resourceVersion");
    if (!c->delete_object(c->ctx, a, "namespaces", "", name, rv, &err) && err.code != KG_ENOTFOUND)
        KG_V(2, "namespace controller: deleting %s: %s", name, err.msg);
    else
        KG_V(1, "namespace controller: namespace %s deleted", name);
}

static void namespace_changed(kg_controllers *c, kg_arena *a, kg_json *ns)
{
    if (kg_json_path(ns, "metadata.deletionTimestamp"))
        finalize_namespace(&c->c, a, ns);
    else
        kg_sa_controllers_sync(&c->c, a, ns, c->ca_pem);
}

static void resync(kg_controllers *c, kg_arena *a)
{
    kg_error err;
    kg_json *all = c->c.list(c->c.ctx, a, "namespaces", "", &err);
    if (!all)
        return;
    for (size_t i = 0; i < all->len; i++) {
        kg_json *ns = kg_json_at(all, i);
        if (kg_json_path(ns, "metadata.deletionTimestamp") || !c->initial_sync_done)
            namespace_changed(c, a, ns);
    }
    c->initial_sync_done = true;
}

static void *run(void *arg)
{
    kg_controllers *c = arg;
    kg_arena a;
    kg_arena_init(&a, 0);
    int64_t last_resync = 0;
    while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
        kg_client_event ev;
        kg_error err;
        kg_client_watch_status st = c->c.watch_next(c->w, 1000, &a, &ev, &err);
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t now = ts.tv_sec;
        if (st == KG_CLIENT_WATCH_EVENT) {
            if (ev.type != KG_CLIENT_DELETED && ev.object)
                namespace_changed(c, &a, ev.object);
        } else if (st == KG_CLIENT_WATCH_ERROR || st == KG_CLIENT_WATCH_CLOSED) {
            if (__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE))
                break;
            /* re-establish from now and resync everything */
            c->c.watch_close(c->w);
            c->w = c->c.watch_open(c->c.ctx, "namespaces", true, &err);
            if (!c->w)
                break;
            last_resync = 0;
        }
        if (now - last_resync >= 2) { /* waits on finalizers are re-checked every 2 s */
            resync(c, &a);
            last_resync = now;
        }
        kg_arena_reset(&a);
    }
    kg_arena_free(&a);
    return NULL;
}

kg_controllers *kg_controllers_start(const kg_controller_client *client, const kg_controllers_config *cfg,
                                     kg_error *err)
{
    kg_controllers *c = calloc(1, sizeof *c);
    c->c = *client;
    c->ca_pem = strdup(cfg && cfg->root_ca_pem ? cfg->root_ca_pem : "");
    c->w = c->c.watch_open(c->c.ctx, "namespaces", true, err);
    if (!c->w)
        goto fail;
    c->quota = kg_quota_controller_start(&c->c, err);
    if (!c->quota)
        goto fail;
    c->vapstatus = kg_vapstatus_controller_start(&c->c, err);
    if (!c->vapstatus)
        goto fail;
    c->aggregation = kg_aggregation_controller_start(&c->c, err);
    if (!c->aggregation)
        goto fail;
    c->epsm = kg_epsm_controller_start(&c->c, err);
    if (!c->epsm)
        goto fail;
    if (c->c.list_all) {
        KG_ERROR_DECL(gerr);
        c->gc = kg_gc_controller_start(&c->c, &gerr);
        if (!c->gc)
            KG_WARN("garbage collector: %s", gerr.msg);
    }
    pthread_create(&c->thread, NULL, run, c);
    return c;
fail:
    kg_quota_controller_stop(c->quota);
    kg_vapstatus_controller_stop(c->vapstatus);
    kg_aggregation_controller_stop(c->aggregation);
    if (c->w)
        c->c.watch_close(c->w);
    free(c->ca_pem);
    free(c);
    return NULL;
}

void kg_controllers_stop(kg_controllers *c)
{
    if (!c)
        return;
    __atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
    kg_quota_controller_stop(c->quota);
    kg_vapstatus_controller_stop(c->vapstatus);
    kg_aggregation_controller_stop(c->aggregation);
    kg_epsm_controller_stop(c->epsm);
    kg_gc_controller_stop(c->gc);
    if (c->w)
        c->c.watch_cancel(c->w);
    pthread_join(c->thread, NULL);
    if (c->w)
        c->c.watch_close(c->w);
    free(c->ca_pem);
    free(c);
}
