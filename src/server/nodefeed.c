/* Pods, PVs and volume attachments from the caches into the Node authorizer's graph (see nodefeed.h). */
#include "server/nodefeed.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/resources.h"

#define NKINDS 3

static const struct {
    const char *group, *version, *plural;
    kg_node_vertex kind;
} kinds[NKINDS] = {
    {"", "v1", "pods", KG_NODE_V_POD},
    {"", "v1", "persistentvolumes", KG_NODE_V_PV},
    {"storage.k8s.io", "v1", "volumeattachments", KG_NODE_V_VOLUMEATTACHMENT},
};

struct kg_node_feed {
    kg_cache_set *cs;
    kg_node_graph *g;
    pthread_mutex_t mu; /* orders a wholesale reload against the events around it */
    uint64_t subs[NKINDS];
    struct kind_ctx {
        kg_node_feed *f;
        int k;
    } ctx[NKINDS];
};

static const kg_resource *res(int k)
{
    return kg_resource_find(kinds[k].group, kinds[k].version, kinds[k].plural);
}

static void reload(kg_node_feed *f, int k)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json_shared **docs = NULL;
    KG_ERROR_DECL(err);
    size_t n = kg_cache_view_list(f->cs, res(k), "", &a, &docs, &err);
    if (n != (size_t)-1) {
        const kg_json **objs = kg_arena_alloc(&a, (n ? n : 1) * sizeof *objs);
        for (size_t i = 0; i < n; i++)
            objs[i] = kg_json_shared_root(docs[i]);
        kg_node_graph_replace(f->g, kinds[k].kind, objs, n);
    }
    kg_arena_free(&a);
}

static void on_event(void *ud, const kg_admission_event *ev)
{
    struct kind_ctx *c = ud;
    kg_node_feed *f = c->f;
    kg_node_vertex kind = kinds[c->k].kind;
    pthread_mutex_lock(&f->mu);
    switch (ev->type) {
    case KG_ADMISSION_EVENT_ADDED:
    case KG_ADMISSION_EVENT_MODIFIED:
        if (!ev->object)
            break;
        if (kind == KG_NODE_V_POD)
            kg_node_graph_set_pod(f->g, ev->object);
        else if (kind == KG_NODE_V_PV)
            kg_node_graph_set_pv(f->g, ev->object);
        else
            kg_node_graph_set_attachment(f->g, ev->object);
        break;
    case KG_ADMISSION_EVENT_DELETED:
        if (kind == KG_NODE_V_POD)
            kg_node_graph_delete_pod(f->g, ev->ns, ev->name);
        else if (kind == KG_NODE_V_PV)
            kg_node_graph_delete_pv(f->g, ev->name);
        else
            kg_node_graph_delete_attachment(f->g, ev->name);
        break;
    case KG_ADMISSION_EVENT_RESYNC: reload(f, c->k); break;
    }
    pthread_mutex_unlock(&f->mu);
}

kg_node_feed *kg_node_feed_start(kg_cache_set *cs, kg_node_graph *g)
{
    kg_node_feed *f = calloc(1, sizeof *f);
    if (!f)
        abort();
    f->cs = cs;
    f->g = g;
    pthread_mutex_init(&f->mu, NULL);
    for (int k = 0; k < NKINDS; k++) {
        f->ctx[k] = (struct kind_ctx){f, k};
        if (res(k)) { /* volumeattachments only when served */
            f->subs[k] = kg_cache_subscribe(cs, res(k), on_event, &f->ctx[k]);
            kg_cache_require(cs, res(k));
        }
    }
    return f;
}

bool kg_node_feed_wait(kg_node_feed *f, int timeout_ms, kg_error *err)
{
    const kg_resource *rs[NKINDS], *late = NULL;
    size_t n = 0;
    for (int k = 0; k < NKINDS; k++)
        if (res(k))
            rs[n++] = res(k);
    if (!kg_cache_wait_all_synced(f->cs, rs, n, timeout_ms, &late))
        return kg_err_set(err, KG_ETIMEOUT, "Node authorizer: the %s cache did not sync", late ? late->plural : "");
    for (int k = 0; k < NKINDS; k++) {
        if (!res(k))
            continue;
        /* in case the cache had synced before we subscribed */
        pthread_mutex_lock(&f->mu);
        reload(f, k);
        pthread_mutex_unlock(&f->mu);
    }
    return true;
}

void kg_node_feed_stop(kg_node_feed *f)
{
    if (!f)
        return;
    for (int k = 0; k < NKINDS; k++)
        if (f->subs[k])
            kg_cache_unsubscribe(f->cs, f->subs[k]);
    pthread_mutex_destroy(&f->mu);
    free(f);
}
