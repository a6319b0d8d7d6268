/* The MutatingAdmissionPolicy plugin: keeps the compiled policies and bindings of the cluster and applies them to
 * every CREATE, UPDATE and CONNECT in the mutating phase (kg_map_dispatch), just before MutatingAdmissionWebhook.
 *
 * Active only with the feature gate MutatingAdmissionPolicy and when the resources are served (`kgate serve` serves
 * them with --runtime-config=admissionregistration.k8s.io/v1beta1=true or /v1alpha1=true): otherwise the plugin
 * admits everything untouched, as upstream's plugin does with the gate off.
 *
 * Compile on change, never per request, exactly as the ValidatingAdmissionPolicy plugin (policy/plugin.c): the
 * plugin subscribes to both resources, recompiles the one object that changed and publishes an immutable snapshot
 * of (policy, its bindings) sorted by name; requests take a reference on the current snapshot without locking;
 * the first request loads the initial state (upstream's WaitForReady). */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "admission/policy/mutating/mutating.h"
#include "base/log.h"

#define RES_POLICIES "mutatingadmissionpolicies"
#define RES_BINDINGS "mutatingadmissionpolicybindings"

typedef struct snapshot {
    atomic_uint refs;
    kg_map_entry *entries;
    size_t n;
} snapshot;

typedef struct map_state {
    const kg_admission_services *svc;
    bool active;
    uint64_t sub_policies, sub_bindings;
    _Atomic(snapshot *) current;
    atomic_uint readers;
    atomic_bool loaded;
    pthread_mutex_t mu;
    kg_map_policy **policies;
    size_t npolicies;
    kg_map_binding **bindings;
    size_t nbindings;
    bool has_metrics;
    kg_map_metrics metrics;
} map_state;

static void snapshot_unref(snapshot *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    for (size_t i = 0; i < s->n; i++) {
        kg_map_policy_unref(s->entries[i].policy);
        for (size_t j = 0; j < s->entries[i].nbindings; j++)
            kg_map_binding_unref(s->entries[i].bindings[j]);
        free(s->entries[i].bindings);
    }
    free(s->entries);
    free(s);
}

static int cmp_policy(const void *x, const void *y)
{
    return strcmp((*(kg_map_policy *const *)x)->common->name, (*(kg_map_policy *const *)y)->common->name);
}

static int cmp_binding(const void *x, const void *y)
{
    return strcmp((*(kg_map_binding *const *)x)->common->name, (*(kg_map_binding *const *)y)->common->name);
}

static void publish(map_state *st)
{
    snapshot *s = calloc(1, sizeof *s);
    if (!s)
        return;
    atomic_init(&s->refs, 1);
    if (st->npolicies > 1)
        qsort(st->policies, st->npolicies, sizeof *st->policies, cmp_policy);
    if (st->nbindings > 1)
        qsort(st->bindings, st->nbindings, sizeof *st->bindings, cmp_binding);
    s->entries = st->npolicies ? calloc(st->npolicies, sizeof *s->entries) : NULL;
    s->n = s->entries ? st->npolicies : 0;
    for (size_t i = 0; i < s->n; i++) {
        kg_map_entry *e = &s->entries[i];
        e->policy = kg_map_policy_ref(st->policies[i]);
        for (size_t j = 0; j < st->nbindings; j++)
            if (!strcmp(st->bindings[j]->common->policy_name, e->policy->common->name)) {
                kg_map_binding **nb = realloc(e->bindings, (e->nbindings + 1) * sizeof *nb);
                if (!nb)
                    break;
                e->bindings = nb;
                e->bindings[e->nbindings++] = kg_map_binding_ref(st->bindings[j]);
            }
    }
    snapshot *old = atomic_exchange(&st->current, s);
    while (atomic_load(&st->readers) != 0)
        sched_yield();
    snapshot_unref(old);
}

static const char *obj_name(const kg_json *o)
{
    const char *n = o ? kg_json_path_str(o, "metadata.name") : NULL;
    return n ? n : "";
}

/* Replace, add or (obj NULL) drop one compiled object of a set; unchanged resourceVersions are skipped. */
static void set_policy(map_state *st, const char *name, const kg_json *obj)
{
    size_t i = 0;
    while (i < st->npolicies && strcmp(st->policies[i]->common->name, name))
        i++;
    const char *rv = obj ? kg_json_path_str(obj, "metadata.resourceVersion") : NULL;
    if (obj && i < st->npolicies && rv && *rv && !strcmp(rv, st->policies[i]->common->resource_version))
        return;
    kg_map_policy *p = obj ? kg_map_policy_compile(obj, NULL, st->svc, NULL, NULL) : NULL;
    if (i < st->npolicies) {
        kg_map_policy_unref(st->policies[i]);
        st->policies[i] = p ? p : st->policies[--st->npolicies];
    } else if (p) {
        kg_map_policy **np = realloc(st->policies, (st->npolicies + 1) * sizeof *np);
        if (!np) {
            kg_map_policy_unref(p);
            return;
        }
        st->policies = np;
        st->policies[st->npolicies++] = p;
    }
}

static void set_binding(map_state *st, const char *name, const kg_json *obj)
{
    size_t i = 0;
    while (i < st->nbindings && strcmp(st->bindings[i]->common->name, name))
        i++;
    const char *rv = obj ? kg_json_path_str(obj, "metadata.resourceVersion") : NULL;
    if (obj && i < st->nbindings && rv && *rv && !strcmp(rv, st->bindings[i]->common->resource_version))
        return;
    kg_map_binding *b = obj ? kg_map_binding_compile(obj, NULL, NULL) : NULL;
    if (i < st->nbindings) {
        kg_map_binding_unref(st->bindings[i]);
        st->bindings[i] = b ? b : st->bindings[--st->nbindings];
    } else if (b) {
        kg_map_binding **nb = realloc(st->bindings, (st->nbindings + 1) * sizeof *nb);
        if (!nb) {
            kg_map_binding_unref(b);
            return;
        }
        st->bindings = nb;
        st->bindings[st->nbindings++] = b;
    }
}

static bool reload(map_state *st, bool policies)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    KG_ERROR_DECL(err);
    kg_json *arr = kg_admission_list(st->svc, &a, policies ? RES_POLICIES : RES_BINDINGS, "", 0, &err);
    if (arr) {
        for (size_t i = policies ? st->npolicies : st->nbindings; i-- > 0;) {
            const char *name = policies ? st->policies[i]->common->name : st->bindings[i]->common->name;
            bool present = false;
            for (size_t j = 0; j < arr->len && !present; j++)
                present = !strcmp(obj_name(kg_json_at(arr, j)), name);
            if (!present) {
                if (policies)
                    set_policy(st, name, NULL);
                else
                    set_binding(st, name, NULL);
            }
        }
        for (size_t j = 0; j < arr->len; j++) {
            const kg_json *o = kg_json_at(arr, j);
            if (policies)
                set_policy(st, obj_name(o), o);
            else
                set_binding(st, obj_name(o), o);
        }
    }
    kg_arena_free(&a);
    return arr != NULL;
}

static bool ensure_loaded(map_state *st)
{
    if (atomic_load(&st->loaded))
        return true;
    if (!kg_admission_wait_ready(st->svc, RES_POLICIES) || !kg_admission_wait_ready(st->svc, RES_BINDINGS))
        return false;
    pthread_mutex_lock(&st->mu);
    if (!atomic_load(&st->loaded)) {
        bool ok = reload(st, true);
        ok = reload(st, false) && ok;
        publish(st);
        if (ok)
            atomic_store(&st->loaded, true);
        else
            KG_WARN("MutatingAdmissionPolicy: cannot list policies or bindings yet");
    }
    pthread_mutex_unlock(&st->mu);
    return atomic_load(&st->loaded);
}

static void on_change(map_state *st, const kg_admission_event *ev, bool policies)
{
    pthread_mutex_lock(&st->mu);
    if (atomic_load(&st->loaded)) {
        if (ev->type == KG_ADMISSION_EVENT_RESYNC) {
            reload(st, policies);
        } else {
            const kg_json *obj = ev->type == KG_ADMISSION_EVENT_DELETED ? NULL : ev->object;
            const char *name = ev->name && *ev->name ? ev->name : obj_name(ev->object);
            if (policies)
                set_policy(st, name, obj);
            else
                set_binding(st, name, obj);
        }
        publish(st);
    }
    pthread_mutex_unlock(&st->mu);
}

static void on_policy(void *ud, const kg_admission_event *ev)
{
    on_change(ud, ev, true);
}

static void on_binding(void *ud, const kg_admission_event *ev)
{
    on_change(ud, ev, false);
}

static void map_destroy(void *state)
{
    map_state *st = state;
    if (!st)
        return;
    kg_admission_unsubscribe(st->svc, st->sub_policies);
    kg_admission_unsubscribe(st->svc, st->sub_bindings);
    snapshot_unref(atomic_load(&st->current));
    for (size_t i = 0; i < st->npolicies; i++)
        kg_map_policy_unref(st->policies[i]);
    for (size_t i = 0; i < st->nbindings; i++)
        kg_map_binding_unref(st->bindings[i]);
    free(st->policies);
    free(st->bindings);
    pthread_mutex_destroy(&st->mu);
    free(st);
}

static bool map_init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    (void)config;
    map_state *st = calloc(1, sizeof *st);
    if (!st)
        return kg_err_set(err, KG_EINTERNAL, "out of memory");
    st->svc = svc;
    atomic_init(&st->current, NULL);
    atomic_init(&st->readers, 0);
    atomic_init(&st->loaded, false);
    pthread_mutex_init(&st->mu, NULL);
    *state = st;
    if (!kg_admission_feature(svc, "MutatingAdmissionPolicy"))
        return true; /* gate off: the plugin does nothing */
    KG_ERROR_DECL(e1);
    st->sub_policies = kg_admission_subscribe(svc, RES_POLICIES, on_policy, st, &e1);
    KG_ERROR_DECL(e2);
    st->sub_bindings = kg_admission_subscribe(svc, RES_BINDINGS, on_binding, st, &e2);
    /* services that do not serve the resources (the API is not enabled): nothing to apply */
    st->active = !(e1.code == KG_ENOTFOUND || e2.code == KG_ENOTFOUND);
    if (st->active && svc->metrics && svc->metrics->registry)
        st->has_metrics = kg_map_metrics_register(svc->metrics->registry, &st->metrics);
    return true;
}

static kg_status *map_admit(void *state, kg_admission_attributes *attrs, const kg_admission_services *svc)
{
    map_state *st = state;
    if (!st->active || !attrs->object || kg_vap_request_excluded(attrs))
        return NULL;
    if (!ensure_loaded(st))
        return kg_admission_forbidden(attrs, "not yet ready to handle request");
    atomic_fetch_add(&st->readers, 1);
    snapshot *s = atomic_load(&st->current);
    if (s)
        atomic_fetch_add(&s->refs, 1);
    atomic_fetch_sub(&st->readers, 1);
    if (!s)
        return NULL;
    kg_status *res = s->n ? kg_map_dispatch(s->entries, s->n, attrs, svc, st->has_metrics ? &st->metrics : NULL) : NULL;
    snapshot_unref(s);
    return res;
}

const kg_admission_plugin kg_admission_plugin_mutating_admission_policy = {
    .name = "MutatingAdmissionPolicy",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE | KG_ADMISSION_CONNECT,
    .init = map_init,
    .admit = map_admit,
    .destroy = map_destroy,
};
