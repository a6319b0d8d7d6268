/* ValidatingAdmissionPolicy status controller (see vapstatus.h). */
#include "controllers/vapstatus.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admission/policy/policy.h"
#include "base/log.h"
#include "meta/object.h"

#define RESOURCE "validatingadmissionpolicies"
#define PARAM_CONDITION "ParamKindResolved"
#define MAX_RETRIES 5

struct kg_vapstatus_controller {
    kg_controller_client c;
    pthread_t thread;
    kg_client_watch *w;
    int stop; /* atomic */
};

static int64_t int_of(const kg_json *v)
{
    return v && v->type == KG_JSON_INT ? v->u.i : 0;
}

/* The paramKind error the policy's requests get, or NULL (no paramKind, or it resolves). */
static const char *param_kind_error(kg_arena *a, const kg_admission_services *svc, const kg_json *spec)
{
    const kg_json *pk = kg_json_get(spec, "paramKind");
    if (!pk || pk->type != KG_JSON_OBJECT)
        return NULL;
    const char *api_version = kg_json_get_str(pk, "apiVersion"), *kind = kg_json_get_str(pk, "kind");
    if (!api_version || !kind)
        return NULL; /* rejected on write */
    const char *slash = strchr(api_version, '/');
    const char *group = slash ? kg_arena_strndup(a, api_version, (size_t)(slash - api_version)) : "";
    const char *version = slash ? slash + 1 : api_version;
    const char *plural;
    bool namespaced;
    if (kg_admission_resource_for_kind(svc, a, group, version, kind, &plural, &namespaced))
        return NULL;
    return kg_arena_sprintf(a, "failed to find resource referenced by paramKind: '%s/%s, Kind=%s'", group, version,
                            kind);
}

/* status.conditions: the old ones but ours, and ours when the paramKind does not resolve (its lastTransitionTime
 * kept while it stays False). */
static kg_json *conditions(kg_arena *a, const kg_json *old_status, const char *param_err, int64_t gen, time_t now)
{
    kg_json *out = kg_json_new_array(a);
    const kg_json *old = kg_json_get(old_status, "conditions");
    const kg_json *prev = NULL;
    for (size_t i = 0; old && old->type == KG_JSON_ARRAY && i < old->len; i++) {
        const kg_json *c = kg_json_at(old, i);
        const char *type = kg_json_get_str(c, "type");
        if (type && !strcmp(type, PARAM_CONDITION))
            prev = c;
        else
            kg_json_array_append(a, out, kg_json_clone(a, c));
    }
    if (param_err) {
        kg_json *c = kg_json_new_object(a);
        kg_json_set(a, c, "type", kg_json_new_str(a, PARAM_CONDITION));
        kg_json_set(a, c, "status", kg_json_new_str(a, "False"));
        kg_json_set(a, c, "observedGeneration", kg_json_new_int(a, gen));
        const char *since = prev ? kg_json_get_str(prev, "lastTransitionTime") : NULL;
        const char *ps = prev ? kg_json_get_str(prev, "status") : NULL;
        char tb[64];
        kg_json_set(a, c, "lastTransitionTime",
                    kg_json_new_str(a, since && ps && !strcmp(ps, "False") ? since : kg_time_format(now, tb)));
        kg_json_set(a, c, "reason", kg_json_new_str(a, "ParamKindNotFound"));
        kg_json_set(a, c, "message", kg_json_new_str(a, param_err));
        kg_json_array_append(a, out, c);
    }
    return out;
}

/* The status is current: generation <= status.observedGeneration (upstream's reconcile test). */
static bool current(const kg_json *policy)
{
    return int_of(kg_json_path(policy, "metadata.generation")) <=
           int_of(kg_json_path(policy, "status.observedGeneration"));
}

kg_json *kg_vapstatus_compute(kg_arena *a, const kg_admission_services *svc, const kg_json *policy, time_t now)
{
    const kg_json *old_status = kg_json_get(policy, "status");
    int64_t gen = int_of(kg_json_path(policy, "metadata.generation"));
    if (current(policy))
        return NULL;
    kg_json *st =
        old_status && old_status->type == KG_JSON_OBJECT ? kg_json_clone(a, old_status) : kg_json_new_object(a);
    kg_json_set(a, st, "observedGeneration", kg_json_new_int(a, gen));
    kg_json *tc = kg_json_new_object(a);
    kg_json *warnings = kg_vap_typecheck(policy, svc, a);
    if (warnings->len)
        kg_json_set(a, tc, "expressionWarnings", warnings);
    kg_json_set(a, st, "typeChecking", tc);
    kg_json *conds = conditions(a, old_status, param_kind_error(a, svc, kg_json_get(policy, "spec")), gen, now);
    if (conds->len)
        kg_json_set(a, st, "conditions", conds);
    else
        kg_json_del(st, "conditions");
    return st;
}

bool kg_vapstatus_reconcile(const kg_controller_client *c, kg_arena *a, const char *name, kg_error *err)
{
    for (int attempt = 0;; attempt++) {
        KG_ERROR_DECL(ge);
        kg_json *p = c->get(c->ctx, a, RESOURCE, "", name, &ge);
        if (!p)
            return ge.code == KG_ENOTFOUND ? true : (*err = ge, false); /* deleted meanwhile: nothing to do */
        kg_json *st = kg_vapstatus_compute(a, c->services, p, time(NULL));
        if (!st)
            return true;
        kg_json_set(a, p, "status", st);
        KG_ERROR_DECL(ue);
        if (c->update(c->ctx, a, RESOURCE, "", p, &ue))
            return true;
        if (ue.code != KG_ECONFLICT || attempt >= MAX_RETRIES) {
            *err = ue;
            return false;
        }
    }
}

static void reconcile_logged(kg_vapstatus_controller *v, kg_arena *a, const char *name)
{
    KG_ERROR_DECL(err);
    if (!kg_vapstatus_reconcile(&v->c, a, name, &err))
        KG_V(1, "validatingadmissionpolicy status controller: %s: %s", name, err.msg);
}

/* Every existing policy (at start, and after the watch missed events). */
static void resync(kg_vapstatus_controller *v, kg_arena *a)
{
    KG_ERROR_DECL(err);
    kg_json *items = v->c.list(v->c.ctx, a, RESOURCE, "", &err);
    for (size_t i = 0; items && i < items->len; i++) {
        const char *name = kg_json_path_str(kg_json_at(items, i), "metadata.name");
        if (name)
            reconcile_logged(v, a, name);
    }
}

static void *run(void *arg)
{
    kg_vapstatus_controller *v = arg;
    pthread_setname_np(pthread_self(), "kg-vapstatus");
    kg_arena a;
    kg_arena_init(&a, 0);
    resync(v, &a);
    kg_arena_reset(&a);
    while (!__atomic_load_n(&v->stop, __ATOMIC_ACQUIRE)) {
        kg_client_event ev;
        KG_ERROR_DECL(err);
        kg_client_watch_status st = v->c.watch_next(v->w, 500, &a, &ev, &err);
        if (st == KG_CLIENT_WATCH_EVENT) {
            if (ev.type != KG_CLIENT_DELETED && ev.object && !current(ev.object))
                reconcile_logged(v, &a, ev.name);
        } else if (st == KG_CLIENT_WATCH_ERROR || st == KG_CLIENT_WATCH_CLOSED) {
            if (__atomic_load_n(&v->stop, __ATOMIC_ACQUIRE))
                break;
            v->c.watch_close(v->w);
            v->w = v->c.watch_open(v->c.ctx, RESOURCE, true, &err);
            if (!v->w)
                break;
            resync(v, &a);
        }
        kg_arena_reset(&a);
    }
    kg_arena_free(&a);
    return NULL;
}

kg_vapstatus_controller *kg_vapstatus_controller_start(const kg_controller_client *c, kg_error *err)
{
    kg_vapstatus_controller *v = calloc(1, sizeof *v);
    v->c = *c;
    v->w = v->c.watch_open(v->c.ctx, RESOURCE, true, err);
    if (!v->w) {
        free(v);
        return NULL;
    }
    pthread_create(&v->thread, NULL, run, v);
    return v;
}

void kg_vapstatus_controller_stop(kg_vapstatus_controller *v)
{
    if (!v)
        return;
    __atomic_store_n(&v->stop, 1, __ATOMIC_RELEASE);
    if (v->w)
        v->c.watch_cancel(v->w);
    pthread_join(v->thread, NULL);
    if (v->w)
        v->c.watch_close(v->w);
    free(v);
}
