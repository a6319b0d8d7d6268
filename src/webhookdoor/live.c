/* The live cluster behind `kgate webhook --kubeconfig` (see live.h). */
#include "webhookdoor/live.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/resources.h"
#include "base/log.h"
#include "check/mirror.h"
#include "client/watch.h"

#define MAX_RES 16 /* the plugins' resources plus the param kinds policies name */

typedef struct source {
    kg_door_live *live;
    const char *resource; /* static (registry) string */
    kg_informer *inf;
    kg_arena arena;      /* pinned keys */
    const char **pinned; /* what was there before (bootstrap, --policy-dir): a relist never removes it */
    size_t npinned;
} source;

struct kg_door_live {
    kg_check_cluster *cluster;
    kg_client *client;
    pthread_mutex_t mu; /* adding sources */
    source src[MAX_RES];
    atomic_size_t n;
};

static bool add_source(kg_door_live *l, const char *resource, bool optional);

/* A policy with a paramKind: watch that kind too (ConfigMaps, or any served kind), once. */
static void watch_params(kg_door_live *l, const kg_json *policy)
{
    const char *av = kg_json_path_str(policy, "spec.paramKind.apiVersion");
    const char *kind = kg_json_path_str(policy, "spec.paramKind.kind");
    if (!av || !kind)
        return;
    const char *slash = strchr(av, '/');
    char group[256];
    snprintf(group, sizeof group, "%.*s", slash ? (int)(slash - av) : 0, av);
    const kg_resource *r = kg_resource_find_kind(group, kind);
    if (!r) {
        KG_WARN("policy %s: paramKind %s %s is not served by kgate: its params are not read from the cluster",
                kg_json_path_str(policy, "metadata.name"), av, kind);
        return;
    }
    pthread_mutex_lock(&l->mu);
    bool have = false;
    for (size_t i = 0; i < atomic_load(&l->n); i++)
        have |= !strcmp(l->src[i].resource, r->plural);
    if (!have && !add_source(l, r->plural, true))
        KG_WARN("too many resources to watch: %s (params of %s) not read", r->plural,
                kg_json_path_str(policy, "metadata.name"));
    pthread_mutex_unlock(&l->mu);
}

static void on_replace(void *ud, kg_arena *a, const kg_json *items)
{
    (void)a;
    source *s = ud;
    KG_ERROR_DECL(err);
    if (!kg_check_mirror_replace(s->live->cluster, s->resource, items, s->pinned, s->npinned, &err))
        KG_WARN("%s from the cluster: %s", s->resource, err.msg);
    KG_INFO("%s: %u object(s) from the cluster", s->resource, items ? items->len : 0);
    if (!strcmp(s->resource, "validatingadmissionpolicies"))
        for (uint32_t i = 0; items && i < items->len; i++)
            watch_params(s->live, kg_json_at(items, i));
}

static void on_event(void *ud, kg_arena *a, const char *type, const kg_json *obj)
{
    (void)a;
    source *s = ud;
    KG_ERROR_DECL(err);
    if (!strcmp(type, "DELETED"))
        kg_check_mirror_delete(s->live->cluster, s->resource, obj);
    else if (!kg_check_mirror_put(s->live->cluster, s->resource, obj, &err))
        KG_WARN("%s %s from the cluster: %s", type, s->resource, err.msg);
    else if (!strcmp(s->resource, "validatingadmissionpolicies"))
        watch_params(s->live, obj);
}

static const kg_informer_handlers handlers = {on_replace, on_event};

/* Under l->mu (or before any informer runs). */
static bool add_source(kg_door_live *l, const char *resource, bool optional)
{
    size_t n = atomic_load(&l->n);
    if (n == MAX_RES)
        return false;
    source *s = &l->src[n];
    s->live = l;
    s->resource = resource;
    kg_arena_init(&s->arena, 0);
    s->pinned = kg_check_mirror_keys(l->cluster, &s->arena, resource, &s->npinned);
    kg_arena a;
    kg_arena_init(&a, 0);
    s->inf = kg_informer_start(l->client, kg_check_mirror_path(&a, resource), optional, &handlers, s);
    kg_arena_free(&a);
    if (!s->inf) {
        kg_arena_free(&s->arena);
        return false;
    }
    atomic_store(&l->n, n + 1);
    return true;
}

kg_door_live *kg_door_live_start(kg_check_cluster *c, const char *kubeconfig, const kg_admission_options *opts,
                                 kg_error *err)
{
    const char *res[MAX_RES];
    size_t n;
    if (!kg_check_mirror_resources(opts, res, MAX_RES, &n, err))
        return NULL;
    kg_client *client = kg_client_from_kubeconfig(kubeconfig, err);
    if (!client)
        return NULL;
    kg_door_live *l = calloc(1, sizeof *l);
    if (!l)
        abort();
    l->cluster = c;
    l->client = client;
    pthread_mutex_init(&l->mu, NULL);
    pthread_mutex_lock(&l->mu);
    for (size_t i = 0; i < n; i++)
        /* everything but namespaces may be absent from an older or trimmed API server */
        if (!add_source(l, res[i], strcmp(res[i], "namespaces") != 0)) {
            pthread_mutex_unlock(&l->mu);
            kg_err_set(err, KG_EIO, "starting the informer of %s failed", res[i]);
            kg_door_live_stop(l);
            return NULL;
        }
    pthread_mutex_unlock(&l->mu);
    KG_INFO("reading %zu resource(s) from the cluster at %s", n, kg_client_server(client));
    return l;
}

bool kg_door_live_synced(const kg_door_live *l)
{
    size_t n = atomic_load(&((kg_door_live *)l)->n);
    for (size_t i = 0; i < n; i++)
        if (!kg_informer_synced(l->src[i].inf))
            return false;
    return true;
}

void kg_door_live_stop(kg_door_live *l)
{
    if (!l)
        return;
    /* no source is added once the informers are stopped: stop under the lock, in order */
    pthread_mutex_lock(&l->mu);
    size_t n = atomic_load(&l->n);
    pthread_mutex_unlock(&l->mu);
    for (size_t i = 0; i < n; i++)
        kg_informer_stop(l->src[i].inf);
    /* a policy informer may have added one while the others stopped */
    for (size_t i = n; i < atomic_load(&l->n); i++)
        kg_informer_stop(l->src[i].inf);
    for (size_t i = 0; i < atomic_load(&l->n); i++)
        kg_arena_free(&l->src[i].arena);
    pthread_mutex_destroy(&l->mu);
    kg_client_free(l->client);
    free(l);
}
