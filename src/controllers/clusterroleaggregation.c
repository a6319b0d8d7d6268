/* ClusterRole aggregation (see clusterroleaggregation.h). */
#include "controllers/clusterroleaggregation.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "meta/labels.h"

typedef struct named {
    const char *name;
    const kg_json *obj;
} named;

static int by_name(const void *x, const void *y)
{
    return strcmp(((const named *)x)->name, ((const named *)y)->name);
}

kg_json *kg_clusterrole_aggregate(kg_arena *a, const kg_json *role, const kg_json *all, kg_error *err)
{
    const kg_json *sels = kg_json_path(role, "aggregationRule.clusterRoleSelectors");
    if (!kg_json_get(role, "aggregationRule") || kg_json_is(kg_json_get(role, "aggregationRule"), KG_JSON_NULL))
        return NULL;
    const char *self = kg_json_path_str(role, "metadata.name");
    size_t n = kg_json_is(all, KG_JSON_ARRAY) ? all->len : 0;
    named *sorted = kg_arena_alloc(a, (n ? n : 1) * sizeof *sorted);
    for (size_t i = 0; i < n; i++) {
        const char *nm = kg_json_path_str(all->u.items[i], "metadata.name");
        sorted[i] = (named){nm ? nm : "", all->u.items[i]};
    }
    qsort(sorted, n, sizeof *sorted, by_name);
    kg_json *rules = kg_json_new_array(a);
    for (uint32_t s = 0; kg_json_is(sels, KG_JSON_ARRAY) && s < sels->len; s++) {
        kg_label_selector sel;
        if (!kg_label_selector_from_json(a, sels->u.items[s], &sel, err))
            return NULL;
        for (size_t i = 0; i < n; i++) {
            if (self && !strcmp(sorted[i].name, self))
                continue;
            if (!kg_labels_matches_object(&sel, sorted[i].obj))
                continue;
            const kg_json *rr = kg_json_get(sorted[i].obj, "rules");
            for (uint32_t j = 0; kg_json_is(rr, KG_JSON_ARRAY) && j < rr->len; j++) {
                bool have = false;
                for (uint32_t k = 0; k < rules->len && !have; k++)
                    have = kg_json_equal(rules->u.items[k], rr->u.items[j]);
                if (!have)
                    kg_json_array_append(a, rules, kg_json_clone(a, rr->u.items[j]));
            }
        }
    }
    return rules;
}

size_t kg_clusterrole_aggregation_sync(const kg_controller_client *c, kg_arena *a)
{
    KG_ERROR_DECL(err);
    kg_json *all = c->list(c->ctx, a, "clusterroles", "", &err);
    if (!all) {
        KG_WARN("clusterrole-aggregation-controller: list: %s", err.msg);
        return 0;
    }
    size_t written = 0;
    for (uint32_t i = 0; i < all->len; i++) {
        kg_json *role = all->u.items[i];
        kg_json *rules = kg_clusterrole_aggregate(a, role, all, &err);
        if (!rules) {
            if (err.code)
                KG_WARN("clusterrole-aggregation-controller: %s: %s", kg_json_path_str(role, "metadata.name"), err.msg);
            kg_err_clear(&err);
            continue;
        }
        const kg_json *have = kg_json_get(role, "rules");
        if (kg_json_equal(have ? have : rules, rules) && (have || !rules->len))
            continue;
        kg_json *upd = kg_json_clone(a, role);
        kg_json_set(a, upd, "rules", rules);
        if (c->update(c->ctx, a, "clusterroles", "", upd, &err))
            written++;
        else /* a conflict: the watch brings the newer version and another pass */
            KG_V(2, "clusterrole-aggregation-controller: %s: %s", kg_json_path_str(role, "metadata.name"), err.msg);
        kg_err_clear(&err);
    }
    return written;
}

struct kg_aggregation_controller {
    kg_controller_client c;
    kg_client_watch *w;
    pthread_t thread;
};

static void *run(void *arg)
{
    kg_aggregation_controller *ac = arg;
    kg_arena a;
    kg_arena_init(&a, 0);
    for (;;) {
        kg_client_event ev;
        KG_ERROR_DECL(err);
        kg_client_watch_status st = ac->c.watch_next(ac->w, 1000, &a, &ev, &err);
        if (st == KG_CLIENT_WATCH_CLOSED)
            break;
        if (st == KG_CLIENT_WATCH_EVENT || st == KG_CLIENT_WATCH_ERROR) {
            /* drain what arrived together, then one pass */
            while (st == KG_CLIENT_WATCH_EVENT)
                st = ac->c.watch_next(ac->w, 0, &a, &ev, &err);
            if (st == KG_CLIENT_WATCH_CLOSED)
                break;
            kg_clusterrole_aggregation_sync(&ac->c, &a);
        }
        kg_arena_reset(&a);
    }
    kg_arena_free(&a);
    return NULL;
}

kg_aggregation_controller *kg_aggregation_controller_start(const kg_controller_client *c, kg_error *err)
{
    kg_aggregation_controller *ac = calloc(1, sizeof *ac);
    if (!ac)
        abort();
    ac->c = *c;
    ac->w = c->watch_open(c->ctx, "clusterroles", false, err);
    if (!ac->w) {
        free(ac);
        return NULL;
    }
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_clusterrole_aggregation_sync(c, &a);
    kg_arena_free(&a);
    pthread_create(&ac->thread, NULL, run, ac);
    return ac;
}

void kg_aggregation_controller_stop(kg_aggregation_controller *ac)
{
    if (!ac)
        return;
    ac->c.watch_cancel(ac->w);
    pthread_join(ac->thread, NULL);
    ac->c.watch_close(ac->w);
    free(ac);
}
