/* The ValidatingAdmissionPolicy plugin: keeps the compiled policies and bindings of the cluster and evaluates every
 * request against them in the validating phase (kg_vap_dispatch).
 *
 * Compile on change, never per request: the plugin subscribes to both resources; each change recompiles the one
 * object that changed (unchanged resourceVersions are skipped) and publishes a new snapshot, an immutable array of
 * (policy, its bindings) sorted by name. The first request loads the initial state synchronously (list, compile,
 * publish).
 *
 * Requests never lock: a request takes a reference on the current snapshot and drops it when done. The gap between
 * loading the pointer and taking the reference is covered by `active` (readers inside that gap): a writer that
 * swapped the pointer waits for `active` to drain before it drops the old snapshot's reference, so a reader can never
 * reference a freed snapshot. Writers (change callbacks, the first load) serialize on a mutex. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "admission/policy/policy.h"
#include "base/log.h"

#define RES_POLICIES "validatingadmissionpolicies"
#define RES_BINDINGS "validatingadmissionpolicybindings"

typedef struct snapshot {
    atomic_uint refs;
    kg_vap_entry *entries;
    size_t n;
    kg_vap_binding **bindings; /* one block: the entries' binding lists point into it */
    size_t nbindings;
} snapshot;

typedef struct vap_state {
    const kg_admission_services *svc;
    uint64_t sub_policies, sub_bindings;
    _Atomic(snapshot *) current;
    atomic_uint active;
    atomic_bool loaded;
    pthread_mutex_t mu; /* writers: the sets below, loading, publishing */
    kg_vap_policy **policies;
    size_t npolicies;
    kg_vap_binding **bindings;
    size_t nbindings;
    bool has_metrics;
    kg_vap_metrics metrics;
} vap_state;

static void snapshot_unref(snapshot *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    for (size_t i = 0; i < s->n; i++)
        kg_vap_policy_unref(s->entries[i].policy);
    for (size_t i = 0; i < s->nbindings; i++)
        kg_vap_binding_unref(s->bindings[i]);
    free(s->bindings);
    free(s->entries);
    free(s);
}

static int cmp_policy(const void *x, const void *y)
{
    return strcmp((*(kg_vap_policy *const *)x)->name, (*(kg_vap_policy *const *)y)->name);
}

/* bindings by the policy they name, then by name */
static int cmp_binding(const void *x, const void *y)
{
    const kg_vap_binding *a = *(kg_vap_binding *const *)x, *b = *(kg_vap_binding *const *)y;
    int c = strcmp(a->policy_name, b->policy_name);
    return c ? c : strcmp(a->name, b->name);
}

/* Sort v unless it is sorted already (the common case: a change replaced one object in place). */
static void keep_sorted(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    char *p = v;
    for (size_t i = 1; i < n; i++)
        if (cmp(p + (i - 1) * size, p + i * size) > 0) {
            qsort(v, n, size, cmp);
            return;
        }
}

/* Build and publish a snapshot of the current sets (under mu): policies in name order, each with its bindings in
 * name order; linear in the number of objects when the sets are sorted already. */
static void publish(vap_state *st)
{
    snapshot *s = calloc(1, sizeof *s);
    atomic_init(&s->refs, 1);
    keep_sorted(st->policies, st->npolicies, sizeof *st->policies, cmp_policy);
    keep_sorted(st->bindings, st->nbindings, sizeof *st->bindings, cmp_binding);
    s->entries = st->npolicies ? calloc(st->npolicies, sizeof *s->entries) : NULL;
    s->n = st->npolicies;
    s->bindings = st->nbindings ? malloc(st->nbindings * sizeof *s->bindings) : NULL;
    size_t j = 0;
    for (size_t i = 0; i < st->npolicies; i++) {
        kg_vap_entry *e = &s->entries[i];
        e->policy = kg_vap_policy_ref(st->policies[i]);
        while (j < st->nbindings && strcmp(st->bindings[j]->policy_name, e->policy->name) < 0)
            j++;
        size_t k = j;
        while (k < st->nbindings && !strcmp(st->bindings[k]->policy_name, e->policy->name))
            k++;
        if (k > j && s->bindings) {
            e->bindings = s->bindings + s->nbindings;
            for (size_t b = j; b < k; b++)
                e->bindings[e->nbindings++] = s->bindings[s->nbindings++] = kg_vap_binding_ref(st->bindings[b]);
        }
        j = k;
    }
    snapshot *old = atomic_exchange(&st->current, s);
    /* readers that loaded `old` have taken their reference once `active` drains */
    while (atomic_load(&st->active) != 0)
        sched_yield();
    snapshot_unref(old);
}

static const char *obj_name(const kg_json *o)
{
    const char *n = kg_json_path_str(o, "metadata.name");
    return n ? n : "";
}

/* Apply one change; false when it changed nothing (the same resourceVersion, or an unknown object deleted). */
static bool set_policy(vap_state *st, const char *name, const kg_json *obj)
{
    size_t i = 0;
    while (i < st->npolicies && strcmp(st->policies[i]->name, name))
        i++;
    if (obj && i < st->npolicies) {
        const char *rv = kg_json_path_str(obj, "metadata.resourceVersion");
        if (rv && *rv && !strcmp(rv, st->policies[i]->resource_version))
            return false;
    }
    kg_vap_policy *p = obj ? kg_vap_policy_compile(obj, NULL, st->svc, NULL, NULL) : NULL;
    if (i < st->npolicies) {
        kg_vap_policy_unref(st->policies[i]);
        if (p) {
            st->policies[i] = p;
        } else {
            st->policies[i] = st->policies[--st->npolicies];
        }
    } else if (p) {
        kg_vap_policy **np = realloc(st->policies, (st->npolicies + 1) * sizeof *np);
        if (!np) {
            kg_vap_policy_unref(p);
            return false;
        }
        st->policies = np;
        st->policies[st->npolicies++] = p;
    } else {
        return false;
    }
    return true;
}

static bool set_binding(vap_state *st, const char *name, const kg_json *obj)
{
    size_t i = 0;
    while (i < st->nbindings && strcmp(st->bindings[i]->name, name))
        i++;
    if (obj && i < st->nbindings) {
        const char *rv = kg_json_path_str(obj, "metadata.resourceVersion");
        if (rv && *rv && !strcmp(rv, st->bindings[i]->resource_version))
            return false;
    }
    kg_vap_binding *b = obj ? kg_vap_binding_compile(obj, NULL, NULL) : NULL;
    if (i < st->nbindings) {
        kg_vap_binding_unref(st->bindings[i]);
        if (b)
            st->bindings[i] = b;
        else
            st->bindings[i] = st->bindings[--st->nbindings];
    } else if (b) {
        kg_vap_binding **nb = realloc(st->bindings, (st->nbindings + 1) * sizeof *nb);
        if (!nb) {
            kg_vap_binding_unref(b);
            return false;
        }
        st->bindings = nb;
        st->bindings[st->nbindings++] = b;
    } else {
        return false;
    }
    return true;
}

/* Re-read one resource wholesale (first load, RESYNC): objects no longer listed are dropped. False when the list
 * failed (nothing changed). */
static bool reload(vap_state *st, bool policies)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    KG_ERROR_DECL(err);
    kg_json *arr = kg_admission_list(st->svc, &a, policies ? RES_POLICIES : RES_BINDINGS, "", 0, &err);
    if (arr) {
        /* drop what is gone, then add or update what is there */
        for (size_t i = policies ? st->npolicies : st->nbindings; i-- > 0;) {
            const char *name = policies ? st->policies[i]->name : st->bindings[i]->name;
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

/* The first load (upstream's WaitForReady: the policy and binding caches synced, up to 10 s, then listed). False
 * when that is not possible yet: the request is refused and the next one tries again. */
static bool ensure_loaded(vap_state *st)
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
            KG_WARN("ValidatingAdmissionPolicy: cannot list policies or bindings yet");
    }
    pthread_mutex_unlock(&st->mu);
    return atomic_load(&st->loaded);
}

static void on_change(vap_state *st, const kg_admission_event *ev, bool policies)
{
    pthread_mutex_lock(&st->mu);
    bool changed = true;
    if (atomic_load(&st->loaded)) { /* before the first load, the load will list everything */
        if (ev->type == KG_ADMISSION_EVENT_RESYNC) {
            reload(st, policies);
        } else {
            const kg_json *obj = ev->type == KG_ADMISSION_EVENT_DELETED ? NULL : ev->object;
            const char *name = ev->name && *ev->name ? ev->name : obj_name(ev->object);
            changed = policies ? set_policy(st, name, obj) : set_binding(st, name, obj);
        }
        if (changed)
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

static void vap_destroy(void *state)
{
    vap_state *st = state;
    if (!st)
        return;
    kg_admission_unsubscribe(st->svc, st->sub_policies);
    kg_admission_unsubscribe(st->svc, st->sub_bindings);
    snapshot_unref(atomic_load(&st->current));
    for (size_t i = 0; i < st->npolicies; i++)
        kg_vap_policy_unref(st->policies[i]);
    for (size_t i = 0; i < st->nbindings; i++)
        kg_vap_binding_unref(st->bindings[i]);
    free(st->policies);
    free(st->bindings);
    pthread_mutex_destroy(&st->mu);
    free(st);
}

static bool vap_init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    vap_state *st = calloc(1, sizeof *st);
    if (!st)
        return kg_err_set(err, KG_EINTERNAL, "out of memory");
    st->svc = svc;
    atomic_init(&st->current, NULL);
    atomic_init(&st->active, 0);
    atomic_init(&st->loaded, false);
    pthread_mutex_init(&st->mu, NULL);
    if (svc && svc->metrics && svc->metrics->registry)
        st->has_metrics = kg_vap_metrics_register(svc->metrics->registry, &st->metrics);
    /* subscribe first, list on the first request: no change falls between the two */
    KG_ERROR_DECL(e1);
    st->sub_policies = kg_admission_subscribe(svc, RES_POLICIES, on_policy, st, &e1);
    KG_ERROR_DECL(e2);
    st->sub_bindings = kg_admission_subscribe(svc, RES_BINDINGS, on_binding, st, &e2);
    *state = st;
    return true;
}

static kg_status *vap_validate(void *state, const kg_admission_attributes *attrs, const kg_admission_services *svc)
{
    vap_state *st = state;
    if (kg_vap_request_excluded(attrs))
        return NULL;
    if (!ensure_loaded(st))
        return kg_admission_forbidden(attrs, "not yet ready to handle request");
    atomic_fetch_add(&st->active, 1);
    snapshot *s = atomic_load(&st->current);
    if (s)
        atomic_fetch_add(&s->refs, 1);
    atomic_fetch_sub(&st->active, 1);
    if (!s)
        return NULL;
    kg_status *res = NULL;
    if (s->n) {
        /* validating plugins may add warnings and audit annotations (attributes.h): they live in the request */
        res = kg_vap_dispatch(s->entries, s->n, (kg_admission_attributes *)(uintptr_t)attrs, svc,
                              st->has_metrics ? &st->metrics : NULL);
    }
    snapshot_unref(s);
    return res;
}

const kg_admission_plugin kg_admission_plugin_validating_admission_policy = {
    .name = "ValidatingAdmissionPolicy",
    .handles = KG_ADMISSION_ALL_OPS,
    .init = vap_init,
    .validate = vap_validate,
    .destroy = vap_destroy,
};
