/* The policy source (see source.h). */
#include "admission/policy/generic/source.h"

#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

/* One compiled object of a set, with the strings it is ordered by (owned by the object). */
typedef struct item {
    void *obj;
    const char *name;
    const char *policy; /* bindings: the policy they name; policies: "" */
} item;

typedef struct set {
    item *v;
    size_t n, cap;
} set;

struct kg_policy_source {
    const kg_policy_source_ops *ops;
    const kg_admission_services *svc;
    uint64_t sub_policies, sub_bindings;
    _Atomic(kg_policy_snapshot *) current;
    atomic_uint active; /* readers between loading `current` and taking their reference */
    atomic_bool loaded;
    pthread_mutex_t mu; /* writers: the sets below, loading, publishing */
    set policies, bindings;
};

static void snapshot_unref(const kg_policy_source_ops *ops, kg_policy_snapshot *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    for (size_t i = 0; i < s->n; i++)
        ops->unref_policy(s->entries[i].policy);
    for (size_t i = 0; i < s->nbindings; i++)
        ops->unref_binding(s->bindings[i]);
    free(s->bindings);
    free(s->entries);
    free(s);
}

/* by the policy named (bindings), then by name */
static int cmp_item(const void *x, const void *y)
{
    const item *a = x, *b = y;
    int c = strcmp(a->policy, b->policy);
    return c ? c : strcmp(a->name, b->name);
}

/* Sort unless sorted already (the common case: a change replaced one object in place). */
static void keep_sorted(set *s)
{
    for (size_t i = 1; i < s->n; i++)
        if (cmp_item(&s->v[i - 1], &s->v[i]) > 0) {
            qsort(s->v, s->n, sizeof *s->v, cmp_item);
            return;
        }
}

/* Build and publish a snapshot of the current sets (under mu); linear when the sets are sorted already. */
static void publish(kg_policy_source *src)
{
    const kg_policy_source_ops *ops = src->ops;
    kg_policy_snapshot *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    atomic_init(&s->refs, 1);
    keep_sorted(&src->policies);
    keep_sorted(&src->bindings);
    s->entries = src->policies.n ? calloc(src->policies.n, sizeof *s->entries) : NULL;
    s->bindings = src->bindings.n ? malloc(src->bindings.n * sizeof *s->bindings) : NULL;
    if ((src->policies.n && !s->entries) || (src->bindings.n && !s->bindings))
        abort();
    s->n = src->policies.n;
    size_t j = 0;
    for (size_t i = 0; i < src->policies.n; i++) {
        kg_policy_entry *e = &s->entries[i];
        const char *pname = src->policies.v[i].name;
        e->policy = ops->ref_policy(src->policies.v[i].obj);
        while (j < src->bindings.n && strcmp(src->bindings.v[j].policy, pname) < 0)
            j++;
        size_t k = j;
        while (k < src->bindings.n && !strcmp(src->bindings.v[k].policy, pname))
            k++;
        if (k > j) {
            e->bindings = s->bindings + s->nbindings;
            for (size_t b = j; b < k; b++)
                e->bindings[e->nbindings++] = s->bindings[s->nbindings++] = ops->ref_binding(src->bindings.v[b].obj);
        }
        j = k;
    }
    kg_policy_snapshot *old = atomic_exchange(&src->current, s);
    /* readers that loaded `old` have taken their reference once `active` drains */
    while (atomic_load(&src->active) != 0)
        sched_yield();
    snapshot_unref(ops, old);
}

static const char *obj_name(const kg_json *o)
{
    const char *n = o ? kg_json_path_str(o, "metadata.name") : NULL;
    return n ? n : "";
}

static void item_unref(const kg_policy_source_ops *ops, bool policies, void *obj)
{
    if (policies)
        ops->unref_policy(obj);
    else
        ops->unref_binding(obj);
}

/* Replace, add or (obj NULL) drop one object of a set; false when nothing changed (the same resourceVersion, or an
 * unknown object deleted). */
static bool set_object(kg_policy_source *src, bool policies, const char *name, const kg_json *obj)
{
    const kg_policy_source_ops *ops = src->ops;
    set *st = policies ? &src->policies : &src->bindings;
    size_t i = 0;
    while (i < st->n && strcmp(st->v[i].name, name))
        i++;
    if (obj && i < st->n) {
        const char *rv = kg_json_path_str(obj, "metadata.resourceVersion");
        const char *had =
            policies ? ops->policy_resource_version(st->v[i].obj) : ops->binding_resource_version(st->v[i].obj);
        if (rv && *rv && had && !strcmp(rv, had))
            return false;
    }
    void *o = !obj ? NULL : policies ? ops->compile_policy(obj, src->svc) : ops->compile_binding(obj);
    item it = {0};
    if (o)
        it = (item){o, policies ? ops->policy_name(o) : ops->binding_name(o), policies ? "" : ops->binding_policy(o)};
    if (i < st->n) {
        item_unref(ops, policies, st->v[i].obj);
        st->v[i] = o ? it : st->v[--st->n];
        return true;
    }
    if (!o)
        return false;
    if (st->n == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 8;
        item *nv = realloc(st->v, cap * sizeof *nv);
        if (!nv) {
            item_unref(ops, policies, o);
            return false;
        }
        st->v = nv;
        st->cap = cap;
    }
    st->v[st->n++] = it;
    return true;
}

/* Re-read one resource wholesale (first load, RESYNC): objects no longer listed are dropped. False when the list
 * failed (nothing changed). */
static bool reload(kg_policy_source *src, bool policies)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    KG_ERROR_DECL(err);
    const char *res = policies ? src->ops->policies_resource : src->ops->bindings_resource;
    kg_json *arr = kg_admission_list(src->svc, &a, res, "", 0, &err);
    if (arr) {
        set *st = policies ? &src->policies : &src->bindings;
        for (size_t i = st->n; i-- > 0;) {
            bool present = false;
            for (size_t j = 0; j < arr->len && !present; j++)
                present = !strcmp(obj_name(kg_json_at(arr, j)), st->v[i].name);
            if (!present)
                set_object(src, policies, st->v[i].name, NULL);
        }
        for (size_t j = 0; j < arr->len; j++)
            set_object(src, policies, obj_name(kg_json_at(arr, j)), kg_json_at(arr, j));
    }
    kg_arena_free(&a);
    return arr != NULL;
}

static bool ensure_loaded(kg_policy_source *src)
{
    if (atomic_load(&src->loaded))
        return true;
    if (!kg_admission_wait_ready(src->svc, src->ops->policies_resource) ||
        !kg_admission_wait_ready(src->svc, src->ops->bindings_resource))
        return false;
    pthread_mutex_lock(&src->mu);
    if (!atomic_load(&src->loaded)) {
        bool ok = reload(src, true);
        ok = reload(src, false) && ok;
        publish(src);
        if (ok)
            atomic_store(&src->loaded, true);
        else
            KG_WARN("%s: cannot list policies or bindings yet", src->ops->kind);
    }
    pthread_mutex_unlock(&src->mu);
    return atomic_load(&src->loaded);
}

static void on_change(kg_policy_source *src, const kg_admission_event *ev, bool policies)
{
    pthread_mutex_lock(&src->mu);
    if (atomic_load(&src->loaded)) { /* before the first load, the load lists everything */
        bool changed = true;
        if (ev->type == KG_ADMISSION_EVENT_RESYNC) {
            reload(src, policies);
        } else {
            const kg_json *obj = ev->type == KG_ADMISSION_EVENT_DELETED ? NULL : ev->object;
            const char *name = ev->name && *ev->name ? ev->name : obj_name(ev->object);
            changed = set_object(src, policies, name, obj);
        }
        if (changed)
            publish(src);
    }
    pthread_mutex_unlock(&src->mu);
}

static void on_policy(void *ud, const kg_admission_event *ev)
{
    on_change(ud, ev, true);
}

static void on_binding(void *ud, const kg_admission_event *ev)
{
    on_change(ud, ev, false);
}

kg_policy_source *kg_policy_source_new(const kg_policy_source_ops *ops, const kg_admission_services *svc,
                                       bool *not_served)
{
    kg_policy_source *src = calloc(1, sizeof *src);
    if (!src)
        abort();
    src->ops = ops;
    src->svc = svc;
    atomic_init(&src->current, NULL);
    atomic_init(&src->active, 0);
    atomic_init(&src->loaded, false);
    pthread_mutex_init(&src->mu, NULL);
    /* subscribe first, list on the first request: no change falls between the two */
    KG_ERROR_DECL(e1);
    src->sub_policies = kg_admission_subscribe(svc, ops->policies_resource, on_policy, src, &e1);
    KG_ERROR_DECL(e2);
    src->sub_bindings = kg_admission_subscribe(svc, ops->bindings_resource, on_binding, src, &e2);
    if (not_served)
        *not_served = e1.code == KG_ENOTFOUND || e2.code == KG_ENOTFOUND;
    return src;
}

void kg_policy_source_free(kg_policy_source *src)
{
    if (!src)
        return;
    kg_admission_unsubscribe(src->svc, src->sub_policies);
    kg_admission_unsubscribe(src->svc, src->sub_bindings);
    snapshot_unref(src->ops, atomic_load(&src->current));
    for (size_t i = 0; i < src->policies.n; i++)
        src->ops->unref_policy(src->policies.v[i].obj);
    for (size_t i = 0; i < src->bindings.n; i++)
        src->ops->unref_binding(src->bindings.v[i].obj);
    free(src->policies.v);
    free(src->bindings.v);
    pthread_mutex_destroy(&src->mu);
    free(src);
}

kg_policy_snapshot *kg_policy_source_acquire(kg_policy_source *src, bool *not_ready)
{
    *not_ready = false;
    if (!ensure_loaded(src)) {
        *not_ready = true;
        return NULL;
    }
    atomic_fetch_add(&src->active, 1);
    kg_policy_snapshot *s = atomic_load(&src->current);
    if (s)
        atomic_fetch_add(&s->refs, 1);
    atomic_fetch_sub(&src->active, 1);
    return s;
}

void kg_policy_source_release(kg_policy_source *src, kg_policy_snapshot *s)
{
    snapshot_unref(src->ops, s);
}
