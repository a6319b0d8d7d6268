/* RBAC objects from the caches into the RBAC authorizer (see rbacfeed.h). */
#include "server/rbacfeed.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char *const plurals[4] = {"roles", "clusterroles", "rolebindings", "clusterrolebindings"};

struct kg_rbac_feed {
    kg_cache_set *cs;
    kg_rbac *r;
    pthread_mutex_t mu; /* orders a wholesale reload against the events around it */
    uint64_t subs[4];
    struct kind_ctx {
        kg_rbac_feed *f;
        int kind;
    } ctx[4];
};

static const kg_resource *res(int kind)
{
    return kg_resource_find(KG_RBAC_GROUP, "v1", plurals[kind]);
}

/* Replace kind with the cache's contents (f->mu held). */
static void reload(kg_rbac_feed *f, int kind)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json_shared **docs = NULL;
    KG_ERROR_DECL(err);
    size_t n = kg_cache_view_list(f->cs, res(kind), "", &a, &docs, &err);
    if (n != (size_t)-1) {
        const kg_json **objs = kg_arena_alloc(&a, (n ? n : 1) * sizeof *objs);
        for (size_t i = 0; i < n; i++)
            objs[i] = kg_json_shared_root(docs[i]);
        kg_rbac_replace(f->r, (kg_rbac_kind)kind, objs, n);
    }
    kg_arena_free(&a);
}

static void on_event(void *ud, const kg_admission_event *ev)
{
    struct kind_ctx *c = ud;
    kg_rbac_feed *f = c->f;
    pthread_mutex_lock(&f->mu);
    switch (ev->type) {
    case KG_ADMISSION_EVENT_ADDED:
    case KG_ADMISSION_EVENT_MODIFIED:
        if (ev->object)
            kg_rbac_upsert(f->r, (kg_rbac_kind)c->kind, ev->object);
        break;
    case KG_ADMISSION_EVENT_DELETED: kg_rbac_remove(f->r, (kg_rbac_kind)c->kind, ev->ns, ev->name); break;
    case KG_ADMISSION_EVENT_RESYNC: reload(f, c->kind); break;
    }
    pthread_mutex_unlock(&f->mu);
}

kg_rbac_feed *kg_rbac_feed_start(kg_cache_set *cs, kg_rbac *r)
{
    kg_rbac_feed *f = calloc(1, sizeof *f);
    if (!f)
        abort();
    f->cs = cs;
    f->r = r;
    pthread_mutex_init(&f->mu, NULL);
    for (int k = 0; k < 4; k++) {
        f->ctx[k] = (struct kind_ctx){f, k};
        f->subs[k] = kg_cache_subscribe(cs, res(k), on_event, &f->ctx[k]);
        kg_cache_require(cs, res(k));
    }
    return f;
}

bool kg_rbac_feed_wait(kg_rbac_feed *f, int timeout_ms, kg_error *err)
{
    const kg_resource *rs[4], *late = NULL;
    for (int k = 0; k < 4; k++)
        rs[k] = res(k);
    if (!kg_cache_wait_all_synced(f->cs, rs, 4, timeout_ms, &late))
        return kg_err_set(err, KG_ETIMEOUT, "RBAC: the %s cache did not sync", late ? late->plural : "");
    for (int k = 0; k < 4; k++) {
        /* in case the cache had synced before we subscribed (its RESYNC then went to others only) */
        pthread_mutex_lock(&f->mu);
        reload(f, k);
        pthread_mutex_unlock(&f->mu);
    }
    if (!kg_rbac_sync(f->r, timeout_ms))
        return kg_err_set(err, KG_ETIMEOUT, "RBAC: the policy was not built in time");
    return true;
}

void kg_rbac_feed_stop(kg_rbac_feed *f)
{
    if (!f)
        return;
    for (int k = 0; k < 4; k++)
        if (f->subs[k])
            kg_cache_unsubscribe(f->cs, f->subs[k]);
    pthread_mutex_destroy(&f->mu);
    free(f);
}
