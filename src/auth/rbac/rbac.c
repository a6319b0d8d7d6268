/* The RBAC authorizer: compiled objects, the subject-indexed snapshot and its lock-free publication (see rbac.h). */
#include "auth/rbac/rbac.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/hash.h"

/* ---- compiled objects ---- */

typedef struct subject {
    char kind; /* 'U' user (ServiceAccounts become their user name), 'G' group */
    const char *name;
    const char *desc; /* describeSubject: `User "bob"`, `ServiceAccount "sa/ns"` */
} subject;

typedef struct robj {
    kg_arena a;
    int refs; /* guarded by kg_rbac.mu */
    kg_rbac_kind kind;
    const char *ns, *name;
    kg_rbac_rule *rules; /* roles */
    size_t nrules;
    bool ref_cluster; /* bindings: roleRef.kind ClusterRole (else Role) */
    const char *ref_name;
    subject *subs;
    size_t nsubs;
} robj;

static const char *str_or(const kg_json *o, const char *key)
{
    const char *s = kg_json_get_str(o, key);
    return s ? s : "";
}

static robj *compile(kg_rbac_kind kind, const kg_json *obj)
{
    robj *o = calloc(1, sizeof *o);
    if (!o)
        abort();
    kg_arena_init(&o->a, 1024);
    o->refs = 1;
    o->kind = kind;
    kg_arena *a = &o->a;
    const kg_json *md = kg_json_get(obj, "metadata");
    o->ns = kg_arena_strdup(a, kind == KG_RBAC_ROLE || kind == KG_RBAC_ROLEBINDING ? str_or(md, "namespace") : "");
    o->name = kg_arena_strdup(a, str_or(md, "name"));
    if (kind == KG_RBAC_ROLE || kind == KG_RBAC_CLUSTERROLE) {
        o->rules = kg_rbac_rules_compile(a, kg_json_get(obj, "rules"), &o->nrules);
        return o;
    }
    const kg_json *ref = kg_json_get(obj, "roleRef");
    o->ref_cluster = !strcmp(str_or(ref, "kind"), "ClusterRole");
    o->ref_name = kg_arena_strdup(a, str_or(ref, "name"));
    const kg_json *subs = kg_json_get(obj, "subjects");
    if (!kg_json_is(subs, KG_JSON_ARRAY) || !subs->len)
        return o;
    o->subs = kg_arena_calloc(a, subs->len * sizeof *o->subs);
    for (uint32_t i = 0; i < subs->len; i++) {
        const kg_json *s = subs->u.items[i];
        const char *k = str_or(s, "kind"), *n = str_or(s, "name"), *sns = str_or(s, "namespace");
        subject *d = &o->subs[o->nsubs];
        if (!strcmp(k, "User") || !strcmp(k, "Group")) {
            d->kind = k[0];
            d->name = kg_arena_strdup(a, n);
            d->desc = kg_arena_sprintf(a, "%s \"%s\"", k, n);
        } else if (!strcmp(k, "ServiceAccount")) {
            /* appliesToUser: the namespace defaults to the RoleBinding's; a ClusterRoleBinding subject without one
             * never matches */
            if (!*sns)
                sns = o->ns;
            if (!*sns)
                continue;
            d->kind = 'U';
            d->name = kg_arena_sprintf(a, "system:serviceaccount:%s:%s", sns, n);
            d->desc = kg_arena_sprintf(a, "ServiceAccount \"%s/%s\"", n, sns);
        } else {
            continue;
        }
        o->nsubs++;
    }
    return o;
}

static void obj_free(robj *o)
{
    kg_arena_free(&o->a);
    free(o);
}

/* ---- the writer's source: ns/name -> object, one map per kind ---- */

typedef struct snode {
    struct snode *next;
    uint64_t h;
    robj *o;
} snode;

typedef struct smap {
    snode **b;
    size_t nb, n;
} smap;

static uint64_t key_hash(const char *ns, const char *name)
{
    return kg_fnv1a64_continue_str(kg_fnv1a64_byte(kg_fnv1a64_str(ns), 0), name);
}

static snode **smap_find(smap *m, const char *ns, const char *name, uint64_t h)
{
    if (!m->nb)
        return NULL;
    snode **p = &m->b[h % m->nb];
    for (; *p; p = &(*p)->next)
        if ((*p)->h == h && !strcmp((*p)->o->ns, ns) && !strcmp((*p)->o->name, name))
            return p;
    return p;
}

static void smap_grow(smap *m)
{
    size_t nb = m->nb ? m->nb * 2 : 64;
    snode **b = calloc(nb, sizeof *b);
    if (!b)
        abort();
    for (size_t i = 0; i < m->nb; i++)
        for (snode *n = m->b[i], *next; n; n = next) {
            next = n->next;
            n->next = b[n->h % nb];
            b[n->h % nb] = n;
        }
    free(m->b);
    m->b = b;
    m->nb = nb;
}

/* ---- snapshot ---- */

enum {
    IX_ROLE = 'r',
    IX_CLUSTERROLE = 'c',
    IX_CRB_USER = 'u',
    IX_CRB_GROUP = 'g',
    IX_RB_USER = 'U',
    IX_RB_GROUP = 'G'
};

typedef struct ref {
    const robj *binding;
    const robj *role; /* NULL: the role does not exist */
    const subject *s;
    const char *allowed; /* "RBAC: allowed by <binding description>", built with the snapshot */
} ref;

typedef struct entry {
    uint64_t h; /* 0: empty slot */
    const char *ns, *name;
    uint8_t kind;
    uint32_t n, cap;
    union {
        const robj *obj; /* roles */
        ref *refs;       /* bindings */
    } u;
} entry;

typedef struct snapshot {
    kg_arena a;
    entry *tab;
    size_t mask;
    robj **held; /* one reference each */
    size_t nheld;
} snapshot;

static uint64_t ix_hash(uint8_t kind, const char *ns, const char *name)
{
    uint64_t h = kg_fnv1a64_byte(KG_FNV1A64_INIT, kind);
    h = kg_fnv1a64_byte(kg_fnv1a64_continue_str(h, ns), 0);
    h = kg_fnv1a64_continue_str(h, name);
    return h ? h : 1;
}

static const entry *ix_find(const snapshot *s, uint8_t kind, const char *ns, const char *name)
{
    uint64_t h = ix_hash(kind, ns, name);
    for (size_t i = h & s->mask;; i = (i + 1) & s->mask) {
        const entry *e = &s->tab[i];
        if (!e->h)
            return NULL;
        if (e->h == h && e->kind == kind && !strcmp(e->name, name) && !strcmp(e->ns, ns))
            return e;
    }
}

static entry *ix_slot(snapshot *s, uint8_t kind, const char *ns, const char *name)
{
    uint64_t h = ix_hash(kind, ns, name);
    for (size_t i = h & s->mask;; i = (i + 1) & s->mask) {
        entry *e = &s->tab[i];
        if (!e->h) {
            *e = (entry){.h = h, .ns = ns, .name = name, .kind = kind};
            return e;
        }
        if (e->h == h && e->kind == kind && !strcmp(e->name, name) && !strcmp(e->ns, ns))
            return e;
    }
}

static void ix_add_ref(snapshot *s, entry *e, ref r)
{
    if (e->n == e->cap) {
        uint32_t cap = e->cap ? e->cap * 2 : 4;
        e->u.refs = kg_arena_realloc(&s->a, e->u.refs, e->cap * sizeof(ref), cap * sizeof(ref));
        e->cap = cap;
    }
    e->u.refs[e->n++] = r;
}

/* ---- the policy ---- */

struct kg_rbac {
    pthread_mutex_t mu; /* the source maps, object refcounts, generations */
    pthread_cond_t cv;  /* builder wake-up and sync waiters */
    smap src[4];
    uint64_t changed;   /* generation of the last change */
    uint64_t published; /* generation the current snapshot was built from */
    bool stop;
    pthread_t builder;
    /* lock-free readers */
    snapshot *_Atomic cur;
    _Atomic uint64_t epoch;
    _Atomic uint64_t readers[2];
};

static void obj_unref_locked(robj *o)
{
    if (--o->refs == 0)
        obj_free(o);
}

static const char *describe(kg_arena *a, const ref *rf, bool crb);

static snapshot *build(kg_rbac *r)
{
    /* under r->mu */
    snapshot *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    kg_arena_init(&s->a, 64 * 1024);
    size_t total = 0, keys = 0;
    for (int k = 0; k < 4; k++)
        total += r->src[k].n;
    s->held = malloc((total ? total : 1) * sizeof *s->held);
    if (!s->held)
        abort();
    for (int k = 0; k < 4; k++)
        for (size_t i = 0; i < r->src[k].nb; i++)
            for (snode *n = r->src[k].b[i]; n; n = n->next) {
                n->o->refs++;
                s->held[s->nheld++] = n->o;
                keys += k < 2 ? 1 : n->o->nsubs;
            }
    size_t cap = 16;
    while (cap < keys * 2)
        cap *= 2;
    s->tab = kg_arena_calloc(&s->a, cap * sizeof *s->tab);
    s->mask = cap - 1;
    for (size_t i = 0; i < s->nheld; i++) {
        const robj *o = s->held[i];
        if (o->kind == KG_RBAC_ROLE || o->kind == KG_RBAC_CLUSTERROLE)
            ix_slot(s, o->kind == KG_RBAC_ROLE ? IX_ROLE : IX_CLUSTERROLE, o->ns, o->name)->u.obj = o;
    }
    for (size_t i = 0; i < s->nheld; i++) {
        const robj *o = s->held[i];
        if (o->kind != KG_RBAC_ROLEBINDING && o->kind != KG_RBAC_CLUSTERROLEBINDING)
            continue;
        bool crb = o->kind == KG_RBAC_CLUSTERROLEBINDING;
        const entry *re = o->ref_cluster ? ix_find(s, IX_CLUSTERROLE, "", o->ref_name)
                          : crb          ? NULL /* a ClusterRoleBinding can only refer to a ClusterRole */
                                         : ix_find(s, IX_ROLE, o->ns, o->ref_name);
        for (size_t j = 0; j < o->nsubs; j++) {
            const subject *sj = &o->subs[j];
            uint8_t kind =
                crb ? (sj->kind == 'U' ? IX_CRB_USER : IX_CRB_GROUP) : (sj->kind == 'U' ? IX_RB_USER : IX_RB_GROUP);
            ref rf = {o, re ? re->u.obj : NULL, sj, NULL};
            rf.allowed = kg_arena_sprintf(&s->a, "RBAC: allowed by %s", describe(&s->a, &rf, crb));
            ix_add_ref(s, ix_slot(s, kind, o->ns, sj->name), rf);
        }
    }
    return s;
}

static void snapshot_free(kg_rbac *r, snapshot *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&r->mu);
    for (size_t i = 0; i < s->nheld; i++)
        obj_unref_locked(s->held[i]);
    pthread_mutex_unlock(&r->mu);
    free(s->held);
    kg_arena_free(&s->a);
    free(s);
}

/* Grace period: flip the epoch twice, each time waiting until the readers of the previous parity are gone. */
static void synchronize(kg_rbac *r)
{
    for (int round = 0; round < 2; round++) {
        uint64_t e = atomic_fetch_add(&r->epoch, 1);
        while (atomic_load(&r->readers[e & 1]))
            sched_yield();
    }
}

static const snapshot *read_begin(kg_rbac *r, uint64_t *e)
{
    *e = atomic_load(&r->epoch) & 1;
    atomic_fetch_add(&r->readers[*e], 1);
    return atomic_load(&r->cur);
}

static void read_end(kg_rbac *r, uint64_t e)
{
    atomic_fetch_sub(&r->readers[e], 1);
}

static void *builder(void *arg)
{
    kg_rbac *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->stop && r->published == r->changed)
            pthread_cond_wait(&r->cv, &r->mu);
        if (r->stop)
            break;
        uint64_t gen = r->changed;
        snapshot *s = build(r);
        pthread_mutex_unlock(&r->mu);
        snapshot *old = atomic_exchange(&r->cur, s);
        synchronize(r);
        snapshot_free(r, old);
        pthread_mutex_lock(&r->mu);
        r->published = gen;
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

kg_rbac *kg_rbac_new(void)
{
    kg_rbac *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    pthread_mutex_lock(&r->mu);
    atomic_store(&r->cur, build(r));
    pthread_mutex_unlock(&r->mu);
    pthread_create(&r->builder, NULL, builder, r);
    return r;
}

void kg_rbac_free(kg_rbac *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->mu);
    r->stop = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->builder, NULL);
    snapshot_free(r, atomic_exchange(&r->cur, NULL));
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < r->src[k].nb; i++)
            for (snode *n = r->src[k].b[i], *next; n; n = next) {
                next = n->next;
                obj_unref_locked(n->o);
                free(n);
            }
        free(r->src[k].b);
    }
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

int kg_rbac_kind_of(const char *resource)
{
    static const char *const names[] = {"roles", "clusterroles", "rolebindings", "clusterrolebindings"};
    for (int i = 0; i < 4; i++)
        if (resource && !strcmp(resource, names[i]))
            return i;
    return -1;
}

static void changed_locked(kg_rbac *r)
{
    r->changed++;
    pthread_cond_broadcast(&r->cv);
}

static void put_locked(kg_rbac *r, kg_rbac_kind kind, robj *o)
{
    smap *m = &r->src[kind];
    if (m->n >= m->nb)
        smap_grow(m);
    uint64_t h = key_hash(o->ns, o->name);
    snode **p = smap_find(m, o->ns, o->name, h);
    if (*p) {
        obj_unref_locked((*p)->o);
        (*p)->o = o;
        return;
    }
    snode *n = calloc(1, sizeof *n);
    if (!n)
        abort();
    *n = (snode){NULL, h, o};
    *p = n;
    m->n++;
}

void kg_rbac_upsert(kg_rbac *r, kg_rbac_kind kind, const kg_json *obj)
{
    robj *o = compile(kind, obj);
    pthread_mutex_lock(&r->mu);
    put_locked(r, kind, o);
    changed_locked(r);
    pthread_mutex_unlock(&r->mu);
}

void kg_rbac_remove(kg_rbac *r, kg_rbac_kind kind, const char *ns, const char *name)
{
    if (kind == KG_RBAC_CLUSTERROLE || kind == KG_RBAC_CLUSTERROLEBINDING)
        ns = "";
    pthread_mutex_lock(&r->mu);
    snode **p = smap_find(&r->src[kind], ns ? ns : "", name ? name : "", key_hash(ns ? ns : "", name ? name : ""));
    if (p && *p) {
        snode *n = *p;
        *p = n->next;
        obj_unref_locked(n->o);
        free(n);
        r->src[kind].n--;
        changed_locked(r);
    }
    pthread_mutex_unlock(&r->mu);
}

void kg_rbac_replace(kg_rbac *r, kg_rbac_kind kind, const kg_json *const *objs, size_t n)
{
    robj **compiled = malloc((n ? n : 1) * sizeof *compiled);
    if (!compiled)
        abort();
    for (size_t i = 0; i < n; i++)
        compiled[i] = compile(kind, objs[i]);
    pthread_mutex_lock(&r->mu);
    smap *m = &r->src[kind];
    for (size_t i = 0; i < m->nb; i++) {
        for (snode *x = m->b[i], *next; x; x = next) {
            next = x->next;
            obj_unref_locked(x->o);
            free(x);
        }
        m->b[i] = NULL;
    }
    m->n = 0;
    for (size_t i = 0; i < n; i++)
        put_locked(r, kind, compiled[i]);
    changed_locked(r);
    pthread_mutex_unlock(&r->mu);
    free(compiled);
}

bool kg_rbac_sync(kg_rbac *r, int timeout_ms)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += timeout_ms / 1000;
    dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&r->mu);
    uint64_t want = r->changed;
    int rc = 0;
    while (r->published < want && rc == 0)
        rc = pthread_cond_timedwait(&r->cv, &r->mu, &dl);
    bool ok = r->published >= want;
    pthread_mutex_unlock(&r->mu);
    return ok;
}

/* ---- walking the rules of a user ---- */

typedef struct walk {
    const kg_user_info *user;
    const char *ns;
    /* per binding: return false to stop */
    bool (*fn)(void *ud, const ref *rf, bool crb);
    void *ud;
} walk;

static bool walk_entry(const entry *e, const walk *w, bool crb)
{
    if (!e)
        return true;
    for (uint32_t i = 0; i < e->n; i++)
        if (!w->fn(w->ud, &e->u.refs[i], crb))
            return false;
    return true;
}

static bool walk_all(const snapshot *s, const walk *w)
{
    const kg_user_info *u = w->user;
    if (!u)
        return true;
    const char *name = u->name ? u->name : "";
    if (!walk_entry(ix_find(s, IX_CRB_USER, "", name), w, true))
        return false;
    for (size_t i = 0; i < u->ngroups; i++)
        if (u->groups[i] && !walk_entry(ix_find(s, IX_CRB_GROUP, "", u->groups[i]), w, true))
            return false;
    if (!w->ns || !*w->ns)
        return true;
    if (!walk_entry(ix_find(s, IX_RB_USER, w->ns, name), w, false))
        return false;
    for (size_t i = 0; i < u->ngroups; i++)
        if (u->groups[i] && !walk_entry(ix_find(s, IX_RB_GROUP, w->ns, u->groups[i]), w, false))
            return false;
    return true;
}

static const char *describe(kg_arena *a, const ref *rf, bool crb)
{
    const robj *b = rf->binding;
    const char *rk = b->ref_cluster ? "ClusterRole" : "Role";
    if (crb)
        return kg_arena_sprintf(a, "ClusterRoleBinding \"%s\" of %s \"%s\" to %s", b->name, rk, b->ref_name,
                                rf->s->desc);
    return kg_arena_sprintf(a, "RoleBinding \"%s/%s\" of %s \"%s\" to %s", b->name, b->ns, rk, b->ref_name,
                            rf->s->desc);
}

static const char *not_found(kg_arena *a, const ref *rf)
{
    return kg_arena_sprintf(a, "%s.%s \"%s\" not found", rf->binding->ref_cluster ? "clusterrole" : "role",
                            KG_RBAC_GROUP, rf->binding->ref_name);
}

/* ---- the authorizer ---- */

typedef struct decide {
    kg_rbac_req q;
    kg_arena *a;
    const ref *allowed_by;
    bool allowed_crb;
    const ref *missing[8]; /* bindings naming missing roles (first few, for the reason) */
    size_t nmissing;
} decide;

static bool decide_fn(void *ud, const ref *rf, bool crb)
{
    decide *d = ud;
    if (!rf->role) {
        if (d->nmissing < 8)
            d->missing[d->nmissing++] = rf;
        return true;
    }
    for (size_t i = 0; i < rf->role->nrules; i++)
        if (kg_rbac_rule_allows_req(&rf->role->rules[i], &d->q)) {
            d->allowed_by = rf;
            d->allowed_crb = crb;
            return false;
        }
    return true;
}

typedef struct rbac_authz {
    kg_authorizer base;
    kg_rbac *r;
} rbac_authz;

static kg_authz_decision rbac_authorize(void *ctx, const kg_authz_attributes *at, kg_arena *a, const char **reason,
                                        kg_error *err)
{
    (void)err;
    kg_rbac *r = ((rbac_authz *)ctx)->r;
    decide d = {.a = a};
    kg_rbac_req_init(&d.q, at);
    walk w = {.user = at->user, .ns = at->namespace_, .fn = decide_fn, .ud = &d};
    uint64_t e;
    const snapshot *s = read_begin(r, &e);
    walk_all(s, &w);
    kg_authz_decision res = KG_AUTHZ_NO_OPINION;
    if (d.allowed_by) {
        res = KG_AUTHZ_ALLOW;
        /* copied: the snapshot may be freed once this read section ends */
        *reason = a ? kg_arena_strdup(a, d.allowed_by->allowed) : NULL;
    } else if (d.nmissing && a) {
        /* utilerrors.NewAggregate: one message as is, several deduplicated in brackets */
        const char *msgs[8];
        size_t n = 0;
        for (size_t i = 0; i < d.nmissing; i++) {
            const char *m = not_found(a, d.missing[i]);
            bool dup = false;
            for (size_t j = 0; j < n && !dup; j++)
                dup = !strcmp(msgs[j], m);
            if (!dup)
                msgs[n++] = m;
        }
        const char *agg = msgs[0];
        for (size_t i = 1; i < n; i++)
            agg = kg_arena_sprintf(a, "%s, %s", agg, msgs[i]);
        *reason = n > 1 ? kg_arena_sprintf(a, "RBAC: [%s]", agg) : kg_arena_sprintf(a, "RBAC: %s", agg);
    }
    read_end(r, e);
    return res;
}

static void rbac_authz_destroy(void *ctx)
{
    free(ctx);
}

kg_authorizer *kg_rbac_authorizer(kg_rbac *r)
{
    rbac_authz *z = calloc(1, sizeof *z);
    if (!z)
        abort();
    z->base = (kg_authorizer){.ctx = z, .authorize = rbac_authorize, .destroy = rbac_authz_destroy};
    z->r = r;
    return &z->base;
}

/* ---- visiting ---- */

typedef struct visit {
    kg_arena *a;
    kg_rbac_rule_fn fn;
    kg_rbac_err_fn err_fn;
    void *ud;
} visit;

static bool visit_fn(void *ud, const ref *rf, bool crb)
{
    visit *v = ud;
    if (!rf->role) {
        if (v->err_fn)
            v->err_fn(v->ud, not_found(v->a, rf));
        return true;
    }
    const char *src = describe(v->a, rf, crb);
    for (size_t i = 0; i < rf->role->nrules; i++)
        if (!v->fn(v->ud, &rf->role->rules[i], src))
            return false;
    return true;
}

bool kg_rbac_visit(kg_rbac *r, const kg_user_info *user, const char *ns, kg_arena *a, kg_rbac_rule_fn fn,
                   kg_rbac_err_fn err_fn, void *ud)
{
    visit v = {a, fn, err_fn, ud};
    walk w = {.user = user, .ns = ns, .fn = visit_fn, .ud = &v};
    uint64_t e;
    const snapshot *s = read_begin(r, &e);
    bool done = walk_all(s, &w);
    read_end(r, e);
    return done;
}

bool kg_rbac_role_rules(kg_rbac *r, kg_rbac_kind kind, const char *ns, const char *name, kg_arena *a,
                        kg_rbac_rule **rules, size_t *n)
{
    uint64_t e;
    const snapshot *s = read_begin(r, &e);
    const entry *en = kind == KG_RBAC_ROLE ? ix_find(s, IX_ROLE, ns ? ns : "", name ? name : "")
                                           : ix_find(s, IX_CLUSTERROLE, "", name ? name : "");
    bool found = en != NULL;
    *rules = NULL;
    *n = 0;
    if (en && en->u.obj->nrules) {
        const robj *o = en->u.obj;
        *rules = kg_arena_calloc(a, o->nrules * sizeof **rules);
        for (size_t i = 0; i < o->nrules; i++)
            kg_rbac_rule_copy(a, &o->rules[i], &(*rules)[i]);
        *n = o->nrules;
    }
    read_end(r, e);
    return found;
}
