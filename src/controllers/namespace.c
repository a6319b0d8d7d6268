/* Namespace controller: when a namespace has a deletionTimestamp, delete every namespaced object in it; once none
 * remain, drop the "kubernetes" spec finalizer and delete the namespace (if no metadata finalizers remain).
 * Driven by a watch on namespaces plus a periodic resync (objects with finalizers are waited for). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admission/plugins/batch2.h"
#include "base/log.h"
#include "controllers/controllers.h"
#include "server/apiserver.h"

void *kg_quota_controller_start(kg_apiserver *s, kg_error *err);
void kg_quota_controller_stop(void *q);

struct kg_controllers {
    kg_apiserver *s;
    void *quota;
    pthread_t thread;
    kg_store_watch *w;
    int stop; /* atomic */
    bool initial_sync_done; /* namespace objects ensured for every namespace once; then per watch event */
};

static void finalize_namespace(kg_apiserver *s, kg_arena *a, const kg_store_kv *kv)
{
    kg_error err;
    kg_json *ns = kg_json_parse(a, kv->value, kv->value_len, &err);
    if (!ns || !kg_json_path(ns, "metadata.deletionTimestamp"))
        return;
    const char *name = kg_json_path_str(ns, "metadata.name");
    if (!name)
        return;
    size_t remaining = 0;
    if (!kg_apiserver_delete_namespace_contents(s, name, &remaining, &err)) {
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
    const kg_resource *r = kg_resource_find("", "v1", "namespaces");
    const char *key = kg_resource_key(a, r, "", name);
    if (mfins && mfins->type == KG_JSON_ARRAY && mfins->len) {
        size_t len;
        const char *bytes = kg_obj_encode(a, ns, &len);
        kg_store_update(s->store, key, bytes, len, kv->mod_revision, NULL, &err);
        return;
    }
    if (!kg_store_delete(s->store, key, kv->mod_revision, a, NULL, NULL, &err) && err.code != KG_ENOTFOUND)
        KG_V(2, "namespace controller: deleting %s: %s", name, err.msg);
    else
        KG_V(1, "namespace controller: namespace %s deleted", name);
}

/* The serviceaccounts controller and the root-CA publisher: every active namespace has a "default"
 * ServiceAccount and a "kube-root-ca.crt" ConfigMap holding the CA clients trust. */
static void ensure_namespace_objects(kg_apiserver *s, kg_arena *a, const kg_json *ns)
{
    const char *name = kg_json_path_str(ns, "metadata.name");
    if (!name || !kg_sa_namespace_active(ns))
        return;
    kg_error err;
    const kg_resource *sa = kg_resource_find("", "v1", "serviceaccounts");
    kg_store_kv kv;
    if (!kg_store_get(s->store, kg_resource_key(a, sa, name, "default"), a, &kv, &err) && err.code == KG_ENOTFOUND &&
        !kg_apiserver_create_object(s, a, "serviceaccounts", name, kg_sa_default_serviceaccount(a, name), &err) &&
        err.code != KG_EEXIST)
        KG_WARN("serviceaccounts controller: %s/default: %s", name, err.msg);
    const kg_resource *cm = kg_resource_find("", "v1", "configmaps");
    const char *key = kg_resource_key(a, cm, name, "kube-root-ca.crt");
    if (!kg_store_get(s->store, key, a, &kv, &err)) {
        if (err.code == KG_ENOTFOUND &&
            !kg_apiserver_create_object(s, a, "configmaps", name, kg_sa_root_ca_configmap(a, name, s->ca_pem), &err) &&
            err.code != KG_EEXIST)
            KG_WARN("root-ca-cert-publisher: %s/kube-root-ca.crt: %s", name, err.msg);
        return;
    }
    kg_json *existing = kg_obj_decode(a, kv.value, kv.value_len, kv.mod_revision, &err);
    kg_json *fixed = existing ? kg_sa_root_ca_configmap_fix(a, existing, s->ca_pem) : NULL;
    if (fixed) {
        size_t len;
        const char *bytes = kg_obj_encode(a, fixed, &len);
        kg_store_update(s->store, key, bytes, len, kv.mod_revision, NULL, &err);
    }
}

static void resync(kg_controllers *c, kg_arena *a)
{
    const kg_resource *r = kg_resource_find("", "v1", "namespaces");
    kg_store_list_opts lo = {0};
    kg_store_list_result res;
    kg_error err;
    if (!kg_store_list(c->s->store, r->storage_prefix, &lo, a, &res, &err))
        return;
    for (size_t i = 0; i < res.n; i++) {
        if (res.items[i].value && strstr(res.items[i].value, "\"deletionTimestamp\"")) {
            finalize_namespace(c->s, a, &res.items[i]);
        } else if (!c->initial_sync_done) {
            kg_error err;
            kg_json *ns = kg_json_parse(a, res.items[i].value, res.items[i].value_len, &err);
            if (ns)
                ensure_namespace_objects(c->s, a, ns);
        }
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
        const kg_store_event *ev;
        kg_error err;
        kg_store_watch_status st = kg_store_watch_next(c->w, 1000, &ev, &err);
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t now = ts.tv_sec;
        if (st == KG_WATCH_EVENT) {
            if (ev->type != KG_STORE_DELETED && ev->value && strstr(ev->value, "\"deletionTimestamp\"")) {
                kg_store_kv kv = {.key = ev->key, .value = ev->value, .value_len = ev->value_len,
                                  .mod_revision = ev->revision};
                finalize_namespace(c->s, &a, &kv);
            } else if (ev->type != KG_STORE_DELETED && ev->value) {
                kg_error perr;
                kg_json *ns = kg_json_parse(&a, ev->value, ev->value_len, &perr);
                if (ns)
                    ensure_namespace_objects(c->s, &a, ns);
            }
            kg_store_event_release(ev);
        } else if (st == KG_WATCH_ERROR || st == KG_WATCH_CLOSED) {
            if (__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE))
                break;
            /* re-establish from now and resync everything */
            kg_store_watch_close(c->w);
            c->w = kg_store_watch_open(c->s->store, kg_resource_find("", "v1", "namespaces")->storage_prefix, 0,
                                       &err);
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

kg_controllers *kg_controllers_start(struct kg_apiserver *s, kg_error *err)
{
    kg_controllers *c = calloc(1, sizeof *c);
    c->s = s;
    c->w = kg_store_watch_open(s->store, kg_resource_find("", "v1", "namespaces")->storage_prefix, 0, err);
    if (!c->w) {
        free(c);
        return NULL;
    }
    c->quota = kg_quota_controller_start(s, err);
    if (!c->quota) {
        kg_store_watch_close(c->w);
        free(c);
        return NULL;
    }
    pthread_create(&c->thread, NULL, run, c);
    return c;
}

void kg_controllers_stop(kg_controllers *c)
{
    if (!c)
        return;
    __atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
    kg_quota_controller_stop(c->quota);
    if (c->w)
        kg_store_watch_cancel(c->w);
    pthread_join(c->thread, NULL);
    if (c->w)
        kg_store_watch_close(c->w);
    free(c);
}
