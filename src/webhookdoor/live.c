/* The live cluster behind `kgate webhook --kubeconfig` (see live.h). */
#include "webhookdoor/live.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "check/mirror.h"
#include "client/watch.h"

#define MAX_RES 8

typedef struct source {
    kg_door_live *live;
    const char *resource;
    kg_informer *inf;
    kg_arena arena;      /* pinned keys */
    const char **pinned; /* what was there before (bootstrap, --policy-dir): a relist never removes it */
    size_t npinned;
} source;

struct kg_door_live {
    kg_check_cluster *cluster;
    kg_client *client;
    source src[MAX_RES];
    size_t n;
};

static void on_replace(void *ud, kg_arena *a, const kg_json *items)
{
    (void)a;
    source *s = ud;
    KG_ERROR_DECL(err);
    if (!kg_check_mirror_replace(s->live->cluster, s->resource, items, s->pinned, s->npinned, &err))
        KG_WARN("%s from the cluster: %s", s->resource, err.msg);
    KG_INFO("%s: %u object(s) from the cluster", s->resource, items ? items->len : 0);
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
}

static const kg_informer_handlers handlers = {on_replace, on_event};

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
    for (size_t i = 0; i < n; i++) {
        kg_arena a;
        kg_arena_init(&a, 0);
        source *s = &l->src[l->n++];
        s->live = l;
        s->resource = res[i];
        kg_arena_init(&s->arena, 0);
        s->pinned = kg_check_mirror_keys(c, &s->arena, res[i], &s->npinned);
        /* everything but namespaces may be absent from an older or trimmed API server */
        s->inf = kg_informer_start(client, kg_check_mirror_path(&a, res[i]), strcmp(res[i], "namespaces") != 0,
                                   &handlers, s);
        kg_arena_free(&a);
        if (!s->inf) {
            kg_err_set(err, KG_EIO, "starting the informer of %s failed", res[i]);
            kg_door_live_stop(l);
            return NULL;
        }
    }
    KG_INFO("reading %zu resource(s) from the cluster at %s", n, kg_client_server(client));
    return l;
}

bool kg_door_live_synced(const kg_door_live *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (!kg_informer_synced(l->src[i].inf))
            return false;
    return true;
}

void kg_door_live_stop(kg_door_live *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++) {
        kg_informer_stop(l->src[i].inf);
        kg_arena_free(&l->src[i].arena);
    }
    kg_client_free(l->client);
    free(l);
}
