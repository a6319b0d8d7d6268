/* CRDs from the cache into the dynamic resource set, and the CRD finalizer (see crdfeed.h). */
#include "server/crdfeed.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/dynamic.h"
#include "apiext/crd.h"
#include "registry/codec.h"
#include "registry/pipeline.h"

/* How often terminating CRDs are looked at again while their custom resources still exist (upstream polls every
 * 5 s; kgate's deletes are local, so it looks sooner). */
#define FINALIZE_POLL_MS 200

struct kg_crd_feed {
    kg_cache_set *cs;
    kg_store *store;
    pthread_mutex_t mu; /* one rebuild at a time; guards the fields below */
    pthread_cond_t cond;
    bool stop, terminating; /* some CRD is being deleted: the finalizer thread has work */
    pthread_t thread;
    uint64_t sub;
};

static const kg_resource *crd_resource(void)
{
    return kg_resource_find(KG_CRD_GROUP, "v1", "customresourcedefinitions");
}

static bool has_finalizer(const kg_json *crd)
{
    kg_json *f = kg_json_path(crd, "metadata.finalizers");
    for (uint32_t i = 0; f && f->type == KG_JSON_ARRAY && i < f->len; i++)
        if (f->u.items[i]->type == KG_JSON_STRING && !strcmp(f->u.items[i]->u.s, KG_CRD_FINALIZER))
            return true;
    return false;
}

/* Rebuild the served set from the cache (f->mu held). */
static void reload(kg_crd_feed *f)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json_shared **docs = NULL;
    KG_ERROR_DECL(err);
    size_t n = kg_cache_view_list(f->cs, crd_resource(), "", &a, &docs, &err);
    if (n != (size_t)-1) {
        const kg_json **objs = kg_arena_alloc(&a, (n ? n : 1) * sizeof *objs);
        for (size_t i = 0; i < n; i++) {
            objs[i] = kg_json_shared_root(docs[i]);
            if (kg_json_path(objs[i], "metadata.deletionTimestamp") && has_finalizer(objs[i]))
                f->terminating = true;
        }
        kg_crd_publish(objs, n);
    }
    kg_arena_free(&a);
    if (f->terminating)
        pthread_cond_signal(&f->cond);
}

static void on_event(void *ud, const kg_admission_event *ev)
{
    kg_crd_feed *f = ud;
    (void)ev;
    pthread_mutex_lock(&f->mu);
    reload(f);
    pthread_mutex_unlock(&f->mu);
}

/* Delete every custom resource of a terminating CRD (no admission, as upstream's finalizer deletes through the
 * storage); true once none is left. Objects with finalizers are marked and waited for. */
static bool delete_instances(kg_crd_feed *f, kg_arena *a, const kg_json *crd)
{
    const char *group = kg_json_path_str(crd, "spec.group"), *plural = kg_json_path_str(crd, "spec.names.plural");
    if (!group || !plural)
        return true;
    const char *prefix = kg_arena_sprintf(a, "/registry/%s/%s/", group, plural);
    const kg_resource *r = NULL;
    const kg_dynamic_set *d = kg_dynamic_current();
    for (size_t i = 0; d && i < d->n && !r; i++)
        if (!strcmp(d->res[i].group, group) && !strcmp(d->res[i].plural, plural))
            r = &d->res[i];
    if (r) {
        kg_pipeline p = {.store = f->store};
        kg_write_request rq;
        kg_write_request_init(&rq, a, r);
        kg_write_result res;
        kg_pipeline_delete_collection(&p, &rq, NULL, NULL, NULL, &res);
    }
    kg_store_list_opts lo = {.limit = 1};
    kg_store_list_result res;
    KG_ERROR_DECL(err);
    if (!kg_store_list(f->store, prefix, &lo, a, &res, &err))
        return false;
    return res.n == 0;
}

/* Remove the cleanup finalizer; the CRD goes away with its last finalizer. */
static void finish(kg_crd_feed *f, kg_arena *a, const char *name)
{
    const char *key = kg_resource_key(a, crd_resource(), "", name);
    for (int attempt = 0; attempt < 10; attempt++) {
        kg_store_kv kv;
        KG_ERROR_DECL(err);
        if (!kg_store_get(f->store, key, a, &kv, &err))
            return;
        kg_json *crd = kg_obj_decode(a, kv.value, kv.value_len, kv.mod_revision, &err);
        if (!crd)
            return;
        kg_json *md = kg_json_get(crd, "metadata");
        kg_json *fins = kg_json_get(md, "finalizers");
        kg_json *rest = kg_json_new_array(a);
        for (uint32_t i = 0; fins && fins->type == KG_JSON_ARRAY && i < fins->len; i++)
            if (!(fins->u.items[i]->type == KG_JSON_STRING && !strcmp(fins->u.items[i]->u.s, KG_CRD_FINALIZER)))
                kg_json_array_append(a, rest, fins->u.items[i]);
        int64_t rev;
        bool ok;
        if (!rest->len) {
            kg_store_kv deleted;
            ok = kg_store_delete(f->store, key, kv.mod_revision, a, &deleted, &rev, &err);
        } else {
            kg_json_set(a, md, "finalizers", rest);
            kg_json_del(md, "resourceVersion");
            size_t len;
            const char *bytes = kg_obj_encode(a, crd, &len);
            ok = kg_store_update(f->store, key, bytes, len, kv.mod_revision, &rev, &err);
        }
        if (ok || err.code != KG_ECONFLICT)
            return;
    }
}

/* One pass over the terminating CRDs; true when some still have instances. */
static bool finalize_pass(kg_crd_feed *f)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json_shared **docs = NULL;
    KG_ERROR_DECL(err);
    bool pending = false;
    size_t n = kg_cache_view_list(f->cs, crd_resource(), "", &a, &docs, &err);
    for (size_t i = 0; n != (size_t)-1 && i < n; i++) {
        const kg_json *crd = kg_json_shared_root(docs[i]);
        if (!kg_json_path(crd, "metadata.deletionTimestamp") || !has_finalizer(crd))
            continue;
        if (delete_instances(f, &a, crd))
            finish(f, &a, kg_json_path_str(crd, "metadata.name"));
        else
            pending = true;
    }
    kg_arena_free(&a);
    return pending;
}

static void *finalizer_main(void *ud)
{
    kg_crd_feed *f = ud;
    pthread_mutex_lock(&f->mu);
    while (!f->stop) {
        if (!f->terminating) {
            pthread_cond_wait(&f->cond, &f->mu);
            continue;
        }
        f->terminating = false;
        pthread_mutex_unlock(&f->mu);
        bool pending = finalize_pass(f);
        pthread_mutex_lock(&f->mu);
        if (pending && !f->stop) {
            f->terminating = true;
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += FINALIZE_POLL_MS * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&f->cond, &f->mu, &ts);
        }
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

kg_crd_feed *kg_crd_feed_start(kg_cache_set *cs, kg_store *store)
{
    kg_crd_feed *f = calloc(1, sizeof *f);
    if (!f)
        abort();
    f->cs = cs;
    f->store = store;
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cond, NULL);
    pthread_create(&f->thread, NULL, finalizer_main, f);
    f->sub = kg_cache_subscribe(cs, crd_resource(), on_event, f);
    kg_cache_require(cs, crd_resource());
    return f;
}

bool kg_crd_feed_wait(kg_crd_feed *f, int timeout_ms, kg_error *err)
{
    if (!kg_cache_wait_synced(f->cs, crd_resource(), timeout_ms))
        return kg_err_set(err, KG_ETIMEOUT, "the customresourcedefinitions cache did not sync");
    pthread_mutex_lock(&f->mu);
    reload(f);
    pthread_mutex_unlock(&f->mu);
    return true;
}

void kg_crd_feed_stop(kg_crd_feed *f)
{
    if (!f)
        return;
    if (f->sub)
        kg_cache_unsubscribe(f->cs, f->sub);
    pthread_mutex_lock(&f->mu);
    f->stop = true;
    pthread_cond_signal(&f->cond);
    pthread_mutex_unlock(&f->mu);
    pthread_join(f->thread, NULL);
    pthread_cond_destroy(&f->cond);
    pthread_mutex_destroy(&f->mu);
    free(f);
    kg_dynamic_reset();
}
