/* CRDs from the cache into the dynamic resource set (see crdfeed.h). */
#include "server/crdfeed.h"

#include <pthread.h>
#include <stdlib.h>

#include "api/dynamic.h"
#include "apiext/crd.h"

struct kg_crd_feed {
    kg_cache_set *cs;
    kg_store *store;
    pthread_mutex_t mu; /* one rebuild at a time */
    uint64_t sub;
};

static const kg_resource *crd_resource(void)
{
    return kg_resource_find(KG_CRD_GROUP, "v1", "customresourcedefinitions");
}

static void reload(kg_crd_feed *f)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json_shared **docs = NULL;
    KG_ERROR_DECL(err);
    size_t n = kg_cache_view_list(f->cs, crd_resource(), "", &a, &docs, &err);
    if (n != (size_t)-1) {
        const kg_json **objs = kg_arena_alloc(&a, (n ? n : 1) * sizeof *objs);
        for (size_t i = 0; i < n; i++)
            objs[i] = kg_json_shared_root(docs[i]);
        kg_crd_publish(objs, n);
    }
    kg_arena_free(&a);
}

static void on_event(void *ud, const kg_admission_event *ev)
{
    kg_crd_feed *f = ud;
    (void)ev;
    pthread_mutex_lock(&f->mu);
    reload(f);
    pthread_mutex_unlock(&f->mu);
}

kg_crd_feed *kg_crd_feed_start(kg_cache_set *cs, kg_store *store, int timeout_ms, kg_error *err)
{
    kg_crd_feed *f = calloc(1, sizeof *f);
    if (!f)
        abort();
    f->cs = cs;
    f->store = store;
    pthread_mutex_init(&f->mu, NULL);
    f->sub = kg_cache_subscribe(cs, crd_resource(), on_event, f);
    if (!kg_cache_wait_synced(cs, crd_resource(), timeout_ms)) {
        kg_err_set(err, KG_ETIMEOUT, "the customresourcedefinitions cache did not sync");
        kg_crd_feed_stop(f);
        return NULL;
    }
    pthread_mutex_lock(&f->mu);
    reload(f);
    pthread_mutex_unlock(&f->mu);
    return f;
}

void kg_crd_feed_stop(kg_crd_feed *f)
{
    if (!f)
        return;
    if (f->sub)
        kg_cache_unsubscribe(f->cs, f->sub);
    pthread_mutex_destroy(&f->mu);
    free(f);
    kg_dynamic_reset();
}
