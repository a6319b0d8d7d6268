/* ResourceQuota admission plugin (k8s.io/apiserver pkg/admission/plugin/resourcequota): configuration, the
 * per-request check (CheckRequest), charging status.used with conflict retries, and the quota controller's usage
 * recalculation. See resourcequota.h. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/plugin_util.h"
#include "base/str.h"
#define KG_RESOURCEQUOTA_INTERNAL
#include "admission/plugins/resourcequota/resourcequota.h"
#include "meta/status.h"
#include "base/hash.h"

#define LIVE_TTL_NS (30LL * 1000000000LL)
#define LIVE_SLOTS 4096u
#define STRIPES 64u
#define TOUCHED_MAX 64u
#define TOUCHED_RECENT 0x80000000u
#define MAX_RETRIES 3

/* ---- configuration ---- */

typedef struct rq_limited {
    const char *group, *resource;
    const char **contains;
    size_t ncontains;
    rq_scope *scopes;
    size_t nscopes;
} rq_limited;

typedef struct live_slot {
    char *ns;
    char *items;
    int64_t expiry;
} live_slot;

typedef struct rq_state {
    kg_arena arena; /* configuration */
    rq_limited *lim;
    size_t nlim;
    pthread_mutex_t ns_locks[STRIPES];
    pthread_mutex_t cache_locks[STRIPES];
    live_slot slots[LIVE_SLOTS];
    live_slot recent[LIVE_SLOTS]; /* quotas this plugin wrote, by "ns/name" (upstream's updatedQuotas look-aside) */
    /* The slots that ever held memory (bit 31: of recent[]), when few: destroy frees those instead of walking every
     * slot, so a CLI's exit stays cheap; ntouched past TOUCHED_MAX means walk them all. */
    uint32_t touched[TOUCHED_MAX];
    size_t ntouched;
    _Atomic int64_t recent_until; /* no entry of recent[] is valid at or after this time */
} rq_state;

static const char *json_type_go(const kg_json *v)
{
    switch (v->type) {
    case KG_JSON_STRING: return "string";
    case KG_JSON_INT:
    case KG_JSON_NUMBER: return "number";
    case KG_JSON_BOOL: return "bool";
    case KG_JSON_ARRAY: return "array";
    case KG_JSON_OBJECT: return "object";
    default: return "null";
    }
}

/* encoding/json's UnmarshalTypeError text. */
static bool type_error(kg_error *err, const kg_json *v, const char *field, const char *gotype)
{
    return kg_err_set(err, KG_EINVAL, "json: cannot unmarshal %s into Go struct field %s of type %s", json_type_go(v),
                      field, gotype);
}

static bool opt_string(const kg_json *obj, const char *key, const char *field, const char **out, kg_error *err)
{
    const kg_json *v = kg_json_get(obj, key);
    *out = "";
    if (!v || kg_json_is(v, KG_JSON_NULL))
        return true;
    if (!kg_json_is(v, KG_JSON_STRING))
        return type_error(err, v, field, "string");
    *out = v->u.s;
    return true;
}

static bool string_array(kg_arena *ar, const kg_json *v, const char *field, const char ***out, size_t *n, kg_error *err)
{
    *out = NULL;
    *n = 0;
    if (!v || kg_json_is(v, KG_JSON_NULL))
        return true;
    if (!kg_json_is(v, KG_JSON_ARRAY))
        return type_error(err, v, field, "[]string");
    *out = kg_arena_alloc(ar, (v->len + 1) * sizeof **out);
    for (size_t i = 0; i < v->len; i++) {
        const kg_json *s = kg_json_at(v, i);
        if (!kg_json_is(s, KG_JSON_STRING))
            return type_error(err, s, field, "string");
        (*out)[i] = s->u.s;
    }
    *n = v->len;
    return true;
}

/* A ScopedResourceSelectorRequirement JSON object. */
static bool scope_from_json(kg_arena *ar, const kg_json *v, const char *field, rq_scope *out, kg_error *err)
{
    *out = (rq_scope){0};
    if (!kg_json_is(v, KG_JSON_OBJECT))
        return type_error(err, v, field, "v1.ScopedResourceSelectorRequirement");
    char f[256];
    snprintf(f, sizeof f, "%s.scopeName", field);
    if (!opt_string(v, "scopeName", f, &out->name, err))
        return false;
    snprintf(f, sizeof f, "%s.operator", field);
    if (!opt_string(v, "operator", f, &out->op, err))
        return false;
    snprintf(f, sizeof f, "%s.values", field);
    return string_array(ar, kg_json_get(v, "values"), f, &out->values, &out->nvalues, err);
}

static bool parse_config(rq_state *st, const kg_json *cfg, kg_error *err)
{
    kg_arena *ar = &st->arena;
    if (!kg_json_is(cfg, KG_JSON_OBJECT))
        return kg_err_set(err, KG_EINVAL, "invalid resource quota configuration: expected an object");
    const char *av = kg_json_get_str(cfg, "apiVersion"), *kind = kg_json_get_str(cfg, "kind");
    if (!kind || !kind[0])
        return kg_err_set(err, KG_EINVAL, "Object 'Kind' is missing in '%s'", kg_json_to_string(ar, cfg, 0, NULL));
    if (!av)
        av = "";
    /* the v1 type lives in apiserver.config.k8s.io; the older ones in resourcequota.admission.k8s.io */
    bool v1 = kg_streq(av, "apiserver.config.k8s.io/v1");
    bool legacy = kg_streq(av, "resourcequota.admission.k8s.io/v1beta1") ||
                  kg_streq(av, "resourcequota.admission.k8s.io/v1alpha1");
    if (!(v1 && kg_streq(kind, "ResourceQuotaConfiguration")) && !(legacy && kg_streq(kind, "Configuration")))
        return kg_err_set(err, KG_EINVAL, "no kind \"%s\" is registered for version \"%s\"", kind, av);
    const char *sname = v1 ? "ResourceQuotaConfiguration" : "Configuration";
    const kg_json *lr = kg_json_get(cfg, "limitedResources");
    if (!lr || kg_json_is(lr, KG_JSON_NULL))
        return true;
    if (!kg_json_is(lr, KG_JSON_ARRAY)) {
        char f[128];
        snprintf(f, sizeof f, "%s.limitedResources", sname);
        return type_error(err, lr, f, "[]v1.LimitedResource");
    }
    st->lim = kg_arena_alloc(ar, (lr->len + 1) * sizeof *st->lim);
    st->nlim = lr->len;
    const char *missing[64];
    size_t nmissing = 0;
    for (size_t i = 0; i < lr->len; i++) {
        const kg_json *item = kg_json_at(lr, i);
        rq_limited *l = &st->lim[i];
        *l = (rq_limited){0};
        char f[256];
        if (!kg_json_is(item, KG_JSON_OBJECT)) {
            snprintf(f, sizeof f, "%s.limitedResources", sname);
            return type_error(err, item, f, "v1.LimitedResource");
        }
        snprintf(f, sizeof f, "LimitedResource.limitedResources.apiGroup");
        if (!opt_string(item, "apiGroup", f, &l->group, err))
            return false;
        snprintf(f, sizeof f, "LimitedResource.limitedResources.resource");
        if (!opt_string(item, "resource", f, &l->resource, err))
            return false;
        snprintf(f, sizeof f, "LimitedResource.limitedResources.matchContains");
        if (!string_array(ar, kg_json_get(item, "matchContains"), f, &l->contains, &l->ncontains, err))
            return false;
        const kg_json *ms = kg_json_get(item, "matchScopes");
        if (ms && !kg_json_is(ms, KG_JSON_NULL)) {
            if (!kg_json_is(ms, KG_JSON_ARRAY))
                return type_error(err, ms, "LimitedResource.limitedResources.matchScopes",
                                  "[]v1.ScopedResourceSelectorRequirement");
            l->scopes = kg_arena_alloc(ar, (ms->len + 1) * sizeof *l->scopes);
            l->nscopes = ms->len;
            for (size_t j = 0; j < ms->len; j++)
                if (!scope_from_json(ar, kg_json_at(ms, j), "LimitedResource.limitedResources.matchScopes",
                                     &l->scopes[j], err))
                    return false;
        }
        if (!l->resource[0] && nmissing < 64)
            missing[nmissing++] = kg_arena_sprintf(ar, "limitedResources[%zu].resource: Required value", i);
    }
    if (nmissing) {
        char *agg = kg_errors_aggregate(ar, missing, nmissing);
        return kg_err_set(err, KG_EINVAL, "%s", agg);
    }
    return true;
}

static void destroy(void *state);

static void touch(rq_state *st, uint32_t t)
{
    size_t k = __atomic_fetch_add(&st->ntouched, 1, __ATOMIC_RELAXED);
    if (k < TOUCHED_MAX)
        st->touched[k] = t;
}

static bool init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    (void)svc;
    rq_state *st = calloc(1, sizeof *st);
    if (!st)
        return kg_err_set(err, KG_EINTERNAL, "out of memory");
    kg_arena_init(&st->arena, 0);
    for (unsigned i = 0; i < STRIPES; i++) {
        pthread_mutex_init(&st->ns_locks[i], NULL);
        pthread_mutex_init(&st->cache_locks[i], NULL);
    }
    if (config && !kg_json_is(config, KG_JSON_NULL) && !parse_config(st, config, err)) {
        destroy(st); /* the chain drops the state of a failed init */
        return false;
    }
    *state = st;
    return true;
}

static void destroy(void *state)
{
    rq_state *st = state;
    if (!st)
        return;
    if (st->ntouched > TOUCHED_MAX) {
        for (unsigned i = 0; i < LIVE_SLOTS; i++) {
            free(st->slots[i].ns);
            free(st->slots[i].items);
            free(st->recent[i].ns);
            free(st->recent[i].items);
        }
    } else {
        for (size_t k = 0; k < st->ntouched; k++) {
            uint32_t t = st->touched[k];
            live_slot *s = t & TOUCHED_RECENT ? &st->recent[t & ~TOUCHED_RECENT] : &st->slots[t];
            free(s->ns);
            free(s->items);
        }
    }
    for (unsigned i = 0; i < STRIPES; i++) {
        pthread_mutex_destroy(&st->ns_locks[i]);
        pthread_mutex_destroy(&st->cache_locks[i]);
    }
    kg_arena_free(&st->arena);
    free(st);
}

/* ---- quota lookup (cache, else a live list remembered for 30 s) ---- */

static uint32_t ns_hash(const char *s)
{
    return kg_fnv1a32_str(s);
}

static kg_json *live_cache_get(rq_state *st, kg_arena *ar, const char *ns, int64_t now)
{
    uint32_t slot = ns_hash(ns) % LIVE_SLOTS;
    pthread_mutex_t *lk = &st->cache_locks[slot % STRIPES];
    char *text = NULL;
    pthread_mutex_lock(lk);
    live_slot *s = &st->slots[slot];
    if (s->ns && kg_streq(s->ns, ns) && now < s->expiry)
        text = kg_arena_strdup(ar, s->items);
    pthread_mutex_unlock(lk);
    if (!text)
        return NULL;
    KG_ERROR_DECL(e);
    return kg_json_parse(ar, text, strlen(text), &e);
}

static void live_cache_put(rq_state *st, const char *ns, const char *text, int64_t expiry)
{
    char *n = strdup(ns), *t = strdup(text);
    if (!n || !t) {
        free(n);
        free(t);
        return;
    }
    uint32_t slot = ns_hash(ns) % LIVE_SLOTS;
    pthread_mutex_t *lk = &st->cache_locks[slot % STRIPES];
    pthread_mutex_lock(lk);
    live_slot *s = &st->slots[slot];
    char *old_ns = s->ns, *old_items = s->items;
    if (!old_ns)
        touch(st, slot);
    s->ns = n;
    s->items = t;
    s->expiry = expiry;
    pthread_mutex_unlock(lk);
    free(old_ns);
    free(old_items);
}

static void live_cache_drop(rq_state *st, const char *ns)
{
    uint32_t slot = ns_hash(ns) % LIVE_SLOTS;
    pthread_mutex_t *lk = &st->cache_locks[slot % STRIPES];
    pthread_mutex_lock(lk);
    live_slot *s = &st->slots[slot];
    if (s->ns && kg_streq(s->ns, ns))
        s->expiry = 0;
    pthread_mutex_unlock(lk);
}

/* ---- look-aside cache of the quotas written here: the informer may lag behind our own writes ---- */

static bool parse_rv(const char *s, uint64_t *out)
{
    if (!s || !*s)
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return true;
}

static void recent_put(rq_state *st, kg_arena *ar, const char *ns, const kg_json *stored, int64_t expiry)
{
    const char *name = kg_json_get_str(kg_json_get(stored, "metadata"), "name");
    if (!name)
        return;
    char *key = kg_arena_sprintf(ar, "%s/%s", ns, name);
    char *k = strdup(key), *t = strdup(kg_json_to_string(ar, stored, 0, NULL));
    if (!k || !t) {
        free(k);
        free(t);
        return;
    }
    uint32_t slot = ns_hash(key) % LIVE_SLOTS;
    pthread_mutex_t *lk = &st->cache_locks[slot % STRIPES];
    pthread_mutex_lock(lk);
    live_slot *s = &st->recent[slot];
    char *old_k = s->ns, *old_t = s->items;
    if (!old_k)
        touch(st, slot | TOUCHED_RECENT);
    s->ns = k;
    s->items = t;
    s->expiry = expiry;
    pthread_mutex_unlock(lk);
    int64_t until = atomic_load(&st->recent_until);
    while (until < expiry && !atomic_compare_exchange_weak(&st->recent_until, &until, expiry)) {
    }
    free(old_k);
    free(old_t);
}

/* The quota to use: the listed one, or the copy this plugin wrote when it is newer. */
static const kg_json *recent_or(rq_state *st, kg_arena *ar, const char *ns, const kg_json *listed, int64_t now)
{
    if (now >= atomic_load_explicit(&st->recent_until, memory_order_relaxed))
        return listed; /* nothing written lately */
    const char *name = kg_json_get_str(kg_json_get(listed, "metadata"), "name");
    uint64_t have;
    if (!name || !parse_rv(kg_json_get_str(kg_json_get(listed, "metadata"), "resourceVersion"), &have))
        return listed;
    char *key = kg_arena_sprintf(ar, "%s/%s", ns, name);
    uint32_t slot = ns_hash(key) % LIVE_SLOTS;
    pthread_mutex_t *lk = &st->cache_locks[slot % STRIPES];
    char *text = NULL;
    pthread_mutex_lock(lk);
    live_slot *s = &st->recent[slot];
    if (s->ns && kg_streq(s->ns, key) && now < s->expiry)
        text = kg_arena_strdup(ar, s->items);
    pthread_mutex_unlock(lk);
    if (!text)
        return listed;
    KG_ERROR_DECL(e);
    kg_json *mine = kg_json_parse(ar, text, strlen(text), &e);
    uint64_t rv;
    if (mine && parse_rv(kg_json_get_str(kg_json_get(mine, "metadata"), "resourceVersion"), &rv) && rv > have)
        return mine;
    return listed;
}

/* The namespace's quotas: the cached documents (shared, with their parsed form memoised), or when the cache holds
 * none, the (cached) live list as private copies. */
typedef struct quota_src {
    const kg_json *obj;
    kg_json_shared *doc; /* NULL for a private copy */
} quota_src;

static size_t get_quotas(rq_state *st, const kg_admission_services *svc, kg_arena *ar, const char *ns, quota_src **out,
                         kg_error *err)
{
    kg_json_shared **docs;
    size_t n = kg_admission_view_list(svc, ar, "resourcequotas", ns, &docs, err);
    if (n == (size_t)-1)
        return n;
    const kg_json *items = NULL;
    if (!n) {
        int64_t now = kg_admission_now_ns(svc);
        kg_json *cached = live_cache_get(st, ar, ns, now);
        if (cached) {
            items = cached;
        } else {
            kg_err_clear(err);
            kg_json *live = kg_admission_list(svc, ar, "resourcequotas", ns, KG_ADMISSION_GET_LIVE, err);
            if (!live)
                return (size_t)-1;
            live_cache_put(st, ns, kg_json_to_string(ar, live, 0, NULL), now + LIVE_TTL_NS);
            items = live;
        }
        n = items->len;
    }
    quota_src *v = kg_arena_alloc(ar, (n + 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = items ? (quota_src){kg_json_at(items, i), NULL} : (quota_src){kg_json_shared_root(docs[i]), docs[i]};
    *out = v;
    return n;
}

/* ---- the check ---- */

/* upstream's ignored group-resources */
static bool ignored(const char *group, const char *resource)
{
    if (!group[0])
        return kg_streq(resource, "bindings") || kg_streq(resource, "componentstatuses") ||
               kg_streq(resource, "events");
    if (kg_streq(group, "authentication.k8s.io"))
        return kg_streq(resource, "tokenreviews") || kg_streq(resource, "selfsubjectreviews");
    if (kg_streq(group, "authorization.k8s.io"))
        return kg_streq(resource, "subjectaccessreviews") || kg_streq(resource, "selfsubjectaccessreviews") ||
               kg_streq(resource, "localsubjectaccessreviews") || kg_streq(resource, "selfsubjectrulesreviews");
    if (kg_streq(group, "events.k8s.io"))
        return kg_streq(resource, "events");
    return false;
}

bool kg_quota_resource_tracked(const char *group, const char *resource)
{
    return !ignored(group ? group : "", resource);
}

static rq_env env_of(const kg_admission_services *svc)
{
    return (rq_env){kg_admission_feature(svc, "InPlacePodVerticalScaling"),
                    kg_admission_feature(svc, "PodLevelResources"),
                    kg_admission_feature(svc, "RecoverVolumeExpansionFailure"), kg_admission_now_ns(svc), NULL};
}

/* getScopeSelectorsFromQuota: spec.scopes as Exists, then spec.scopeSelector.matchExpressions. */
static size_t quota_scopes(kg_arena *ar, const kg_json *q, rq_scope **out)
{
    const kg_json *sc = kg_json_get(kg_json_get(q, "spec"), "scopes");
    const kg_json *me = kg_json_get(kg_json_get(kg_json_get(q, "spec"), "scopeSelector"), "matchExpressions");
    size_t n = (kg_json_is(sc, KG_JSON_ARRAY) ? sc->len : 0) + (kg_json_is(me, KG_JSON_ARRAY) ? me->len : 0);
    rq_scope *s = kg_arena_alloc(ar, (n + 1) * sizeof *s);
    size_t k = 0;
    for (size_t i = 0; kg_json_is(sc, KG_JSON_ARRAY) && i < sc->len; i++)
        if (kg_json_is(kg_json_at(sc, i), KG_JSON_STRING))
            s[k++] = (rq_scope){kg_json_at(sc, i)->u.s, "Exists", NULL, 0};
    for (size_t i = 0; kg_json_is(me, KG_JSON_ARRAY) && i < me->len; i++) {
        KG_ERROR_DECL(e);
        if (scope_from_json(ar, kg_json_at(me, i), "matchExpressions", &s[k], &e))
            k++;
    }
    *out = s;
    return k;
}

/* hard resource names the evaluator tracks */
static size_t matching_hard(kg_arena *ar, const rq_evaluator *ev, const kg_rlist *hard, const char ***out)
{
    const char **r = kg_arena_alloc(ar, (hard->n + 1) * sizeof *r);
    size_t n = 0;
    for (size_t i = 0; i < hard->n; i++)
        if (kg_admission_rq_matching_resource(ev, hard->e[i].name))
            r[n++] = hard->e[i].name;
    *out = r;
    return n;
}

/* generic.Matches: at least one tracked hard resource and every scope matching. -1 on a scope error. */
static int quota_matches(kg_arena *ar, const rq_evaluator *ev, const rq_scope *sc, size_t nsc, size_t nmatching,
                         const kg_json *obj, const rq_env *env, const char **errmsg)
{
    bool all = true;
    for (size_t i = 0; i < nsc; i++) {
        int m = kg_admission_rq_match_scope(ar, ev, &sc[i], obj, env, errmsg);
        if (m < 0)
            return -1;
        all = all && m;
    }
    return nmatching > 0 && all;
}

/* what a quota object parses to (memoised per shared document) */
typedef struct quota_parsed {
    const char *name;
    kg_rlist hard, used;
    rq_scope *sc;
    size_t nsc;
    /* hard resource names tracked by the pod, service and PVC evaluators (rq_ev_kind order) */
    const char **mh[3];
    size_t nmh[3];
} quota_parsed;

typedef struct rq_quota {
    const kg_json *obj; /* the quota object (shared or a request copy: never modified) */
    const char *name;
    kg_rlist hard, used; /* entries shared with the memo: replaced, never edited in place */
    rq_scope *sc;
    size_t nsc;
    bool changed;
    const quota_parsed *parsed;
} rq_quota;

/* hard names the evaluator tracks: from the parsed quota for the fixed evaluators, else computed */
static size_t quota_matching_hard(kg_arena *ar, const rq_evaluator *ev, const rq_quota *q, const char ***out);

static void *parse_quota(kg_arena *ar, const kg_json *obj, void *ud)
{
    (void)ud;
    quota_parsed *p = kg_arena_alloc(ar, sizeof *p);
    p->name = kg_json_get_str(kg_json_get(obj, "metadata"), "name");
    if (!p->name)
        p->name = "";
    kg_rlist_from_json(ar, kg_json_get(kg_json_get(obj, "status"), "hard"), &p->hard);
    kg_rlist_from_json(ar, kg_json_get(kg_json_get(obj, "status"), "used"), &p->used);
    p->nsc = quota_scopes(ar, obj, &p->sc);
    static const rq_ev_kind kinds[3] = {RQ_EV_POD, RQ_EV_SERVICE, RQ_EV_PVC};
    for (int k = 0; k < 3; k++) {
        rq_evaluator ev = {.kind = kinds[k], .group = "", .resource = ""};
        p->nmh[k] = matching_hard(ar, &ev, &p->hard, &p->mh[k]);
    }
    return p;
}

static void load_quota(kg_arena *ar, const kg_json *obj, kg_json_shared *doc, rq_quota *q)
{
    const quota_parsed *p =
        doc ? kg_json_shared_memo(doc, KG_ADMISSION_MEMO_QUOTA, parse_quota, NULL) : parse_quota(ar, obj, NULL);
    *q = (rq_quota){obj, p->name, p->hard, p->used, p->sc, p->nsc, false, p};
}

static size_t quota_matching_hard(kg_arena *ar, const rq_evaluator *ev, const rq_quota *q, const char ***out)
{
    int k = ev->kind == RQ_EV_POD ? 0 : ev->kind == RQ_EV_SERVICE ? 1 : ev->kind == RQ_EV_PVC ? 2 : -1;
    if (k < 0 || !q->parsed)
        return matching_hard(ar, ev, &q->hard, out);
    *out = q->parsed->mh[k];
    return q->parsed->nmh[k];
}

/* CheckRequest over quotas[0..n): on success the quotas whose usage must grow are marked changed with their new
 * used. Returns a rejection or NULL. */
static kg_status *check_request(rq_state *st, const kg_admission_attributes *a, const rq_evaluator *ev,
                                rq_quota *quotas, size_t n, const rq_env *env)
{
    kg_arena *ar = a->arena;
    const kg_json *obj = a->object;

    /* limited scopes (getMatchedLimitedScopes: every configured entry, whatever its resource) */
    rq_scope *lscopes = NULL;
    size_t nlscopes = 0, caplscopes = 0;
    for (size_t i = 0; i < st->nlim; i++)
        for (size_t j = 0; j < st->lim[i].nscopes; j++) {
            const char *em = NULL;
            int m = kg_admission_rq_match_scope(ar, ev, &st->lim[i].scopes[j], obj, env, &em);
            if (m < 0)
                return NULL; /* upstream: a matching error here lets the request through */
            if (!m)
                continue;
            if (nlscopes == caplscopes) {
                caplscopes = caplscopes ? caplscopes * 2 : 4;
                rq_scope *ns = kg_arena_alloc(ar, caplscopes * sizeof *ns);
                if (nlscopes)
                    memcpy(ns, lscopes, nlscopes * sizeof *ns);
                lscopes = ns;
            }
            lscopes[nlscopes++] = st->lim[i].scopes[j];
        }

    /* resource names that must be covered by some quota */
    const char **limited_names = NULL;
    size_t nlimited = 0;
    bool have_limited_res = false;
    for (size_t i = 0; i < st->nlim; i++)
        if (kg_streq(st->lim[i].group, ev->group) && kg_streq(st->lim[i].resource, ev->resource))
            have_limited_res = true;
    if (have_limited_res) {
        kg_rlist u;
        kg_admission_rq_usage(ar, ev, obj, env, &u);
        limited_names = kg_arena_alloc(ar, (u.n + 1) * sizeof *limited_names);
        for (size_t k = 0; k < u.n; k++) {
            if (kg_quantity_sign(&u.e[k].q) <= 0)
                continue;
            bool hit = false;
            for (size_t i = 0; i < st->nlim && !hit; i++) {
                const rq_limited *l = &st->lim[i];
                if (!kg_streq(l->group, ev->group) || !kg_streq(l->resource, ev->resource))
                    continue;
                for (size_t c = 0; c < l->ncontains && !hit; c++)
                    hit = strstr(u.e[k].name, l->contains[c]) != NULL;
            }
            if (hit)
                limited_names[nlimited++] = u.e[k].name;
        }
    }

    /* the quotas that matter */
    bool *interesting = kg_arena_alloc(ar, (n + 1) * sizeof *interesting);
    size_t ninteresting = 0;
    const char **restricted = NULL;
    size_t nrestricted = 0, caprestricted = 0;
    rq_scope *qscopes_matched = NULL;
    size_t nqsm = 0, capqsm = 0;
    for (size_t i = 0; i < n; i++) {
        rq_quota *q = &quotas[i];
        interesting[i] = false;
        rq_scope *sc = q->sc;
        size_t nsc = q->nsc;
        for (size_t j = 0; j < nsc; j++) {
            const char *em = NULL;
            int m = kg_admission_rq_match_scope(ar, ev, &sc[j], obj, env, &em);
            if (m < 0)
                return kg_admission_pu_plain(ar,
                                             "error matching scopes of quota %s, err: error on matching scope %s: %s",
                                             q->name, kg_admission_rq_scope_string(ar, &sc[j]), em);
            if (!m)
                continue;
            if (nqsm == capqsm) {
                capqsm = capqsm ? capqsm * 2 : 4;
                rq_scope *nn = kg_arena_alloc(ar, capqsm * sizeof *nn);
                if (nqsm)
                    memcpy(nn, qscopes_matched, nqsm * sizeof *nn);
                qscopes_matched = nn;
            }
            qscopes_matched[nqsm++] = sc[j];
        }
        const char **mh;
        size_t nmh = quota_matching_hard(ar, ev, q, &mh);
        const char *em = NULL;
        int m = quota_matches(ar, ev, sc, nsc, nmh, obj, env, &em);
        if (m < 0)
            return kg_admission_pu_plain(ar, "%s", em);
        if (!m)
            continue;
        const char *cerr = kg_admission_rq_constraints(ar, ev, mh, nmh, obj, env);
        if (cerr)
            return kg_admission_forbidden(a, "failed quota: %s: %s", q->name, cerr);
        for (size_t k = 0; k < nmh; k++)
            if (!kg_rlist_find(&q->used, mh[k])) {
                /* pretty_names sorts in place: mh may be the parsed quota's shared array */
                const char **names = kg_arena_alloc(ar, (nmh + 1) * sizeof *names);
                memcpy(names, mh, nmh * sizeof *names);
                return kg_admission_forbidden(a, "status unknown for quota: %s, resources: %s", q->name,
                                              kg_admission_rq_pretty_names(ar, names, nmh));
            }
        interesting[i] = true;
        ninteresting++;
        if (nrestricted + nmh > caprestricted) {
            caprestricted = (nrestricted + nmh) * 2;
            const char **nr = kg_arena_alloc(ar, caprestricted * sizeof *nr);
            if (nrestricted)
                memcpy(nr, restricted, nrestricted * sizeof *nr);
            restricted = nr;
        }
        memcpy(restricted + nrestricted, mh, nmh * sizeof *mh);
        nrestricted += nmh;
    }

    if (!ninteresting && !nlimited && !nlscopes)
        return NULL;

    kg_rlist input;
    kg_admission_rq_usage(ar, ev, obj, env, &input);
    {
        const char **neg;
        size_t nneg = kg_rlist_names_with_sign(ar, &input, -1, &neg); /* quota.IsNegative */
        if (nneg)
            return kg_admission_forbidden(a, "quota usage is negative for resource(s): %s",
                                          kg_admission_rq_pretty_names(ar, neg, nneg));
    }
    /* per-quota delta: the full usage, or on an UPDATE of a stored object max(0, new - old) for the quotas that
     * also matched the old object */
    kg_rlist **deltas = kg_arena_alloc(ar, (n + 1) * sizeof *deltas);
    for (size_t i = 0; i < n; i++)
        deltas[i] = interesting[i] ? &input : NULL;
    kg_rlist *none_delta = a->operation == KG_ADMISSION_CREATE && !ninteresting ? &input : NULL;
    if (a->operation == KG_ADMISSION_UPDATE) {
        if (!a->old_object)
            return kg_admission_forbidden(a, "unable to get previous usage since prior version of object was not "
                                             "found");
        const char *rv = kg_json_get_str(kg_json_get(a->old_object, "metadata"), "resourceVersion");
        if (rv && rv[0]) {
            kg_rlist prev;
            kg_admission_rq_usage(ar, ev, a->old_object, env, &prev);
            kg_rlist *delta = kg_arena_alloc(ar, sizeof *delta);
            kg_rlist_sub_positive(ar, &input, &prev, delta);
            if (!ninteresting)
                none_delta = delta;
            for (size_t i = 0; i < n; i++) {
                if (!interesting[i])
                    continue;
                rq_scope *sc = quotas[i].sc;
                size_t nsc = quotas[i].nsc;
                const char **mh;
                size_t nmh = quota_matching_hard(ar, ev, &quotas[i], &mh);
                const char *em = NULL;
                int m = quota_matches(ar, ev, sc, nsc, nmh, a->old_object, env, &em);
                if (m < 0)
                    return kg_admission_pu_plain(ar, "%s", em);
                if (m)
                    deltas[i] = delta;
            }
        } else if (!ninteresting) {
            none_delta = &input;
        }
    }
    /* RemoveZeros; nothing left → nothing to charge */
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (!deltas[i])
            continue;
        kg_rlist *d = kg_arena_alloc(ar, sizeof *d); /* read-only from here: shares the entries when none is zero */
        kg_rlist_remove_zeros(ar, deltas[i], d);
        deltas[i] = d->n ? d : NULL;
        any = any || d->n;
    }
    if (!ninteresting) {
        any = none_delta && !kg_rlist_is_zero(none_delta);
    }
    if (!any)
        return NULL;

    /* limitedResources coverage */
    {
        const char **unc = kg_arena_alloc(ar, (nlimited + 1) * sizeof *unc);
        size_t nunc = 0;
        for (size_t k = 0; k < nlimited; k++) {
            bool cov = false;
            for (size_t r = 0; r < nrestricted && !cov; r++)
                cov = kg_streq(restricted[r], limited_names[k]);
            if (!cov)
                unc[nunc++] = limited_names[k];
        }
        if (nunc)
            return kg_admission_forbidden(a, "insufficient quota to consume: %s",
                                          kg_admission_rq_pretty_names(ar, unc, nunc));
    }
    {
        kg_buf b = KG_BUF_INIT;
        size_t nunc = 0;
        for (size_t k = 0; k < nlscopes; k++) {
            bool cov = false;
            for (size_t j = 0; j < nqsm && !cov; j++)
                cov = kg_streq(qscopes_matched[j].name, lscopes[k].name);
            if (cov)
                continue;
            kg_buf_puts(&b, nunc++ ? " " : "[");
            kg_buf_puts(&b, kg_admission_rq_scope_string(ar, &lscopes[k]));
        }
        if (nunc) {
            kg_buf_putc(&b, ']');
            kg_status *s = kg_admission_pu_plain(ar, "insufficient quota to match these scopes: %s", kg_buf_cstr(&b));
            kg_buf_free(&b);
            return s;
        }
        kg_buf_free(&b);
    }

    bool status_sub = kg_streq(a->subresource, "status");
    for (size_t i = 0; i < n; i++) {
        if (!interesting[i])
            continue;
        rq_quota *q = &quotas[i];
        const kg_rlist *delta = deltas[i];
        if (!delta)
            continue;
        kg_rlist requested;
        kg_rlist_mask_keys(ar, delta, &q->hard, &requested);
        if (!requested.n)
            continue;
        kg_rlist nused = {0};
        kg_rlist_add(ar, &nused, &q->used);
        kg_rlist_add(ar, &nused, &requested);
        if (!status_sub) {
            /* quota.LessThanOrEqual(Mask(newUsage, ResourceNames(requested)), hard) */
            kg_rlist masked, freq, fused, fhard;
            kg_rlist_mask_keys(ar, &nused, &requested, &masked);
            const char **exceeded;
            size_t nexceeded;
            if (!kg_rlist_less_or_equal(ar, &masked, &q->hard, &exceeded, &nexceeded)) {
                kg_rlist_mask(ar, &requested, exceeded, nexceeded, &freq);
                kg_rlist_mask(ar, &q->used, exceeded, nexceeded, &fused);
                kg_rlist_mask(ar, &q->hard, exceeded, nexceeded, &fhard);
                return kg_admission_forbidden(a, "exceeded quota: %s, requested: %s, used: %s, limited: %s", q->name,
                                              kg_rlist_pretty(ar, &freq), kg_rlist_pretty(ar, &fused),
                                              kg_rlist_pretty(ar, &fhard));
            }
        }
        bool same = kg_rlist_equal(&nused, &q->used); /* quota.Equals(old used, new used) */
        if (!same) {
            q->used = nused;
            q->changed = true;
        }
    }
    return NULL;
}

static kg_status *update_error(kg_arena *ar, const char *name, const kg_error *e)
{
    if (e->code == KG_ECONFLICT)
        return kg_status_conflict(ar, KG_GR("", "resourcequotas"), name, NULL);
    return kg_status_from_error(ar, e);
}

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    rq_state *st = state;
    if (!a->ns[0])
        return NULL;
    if (a->operation == KG_ADMISSION_CREATE && kg_admission_is_namespace_kind(a))
        return NULL;
    if (ignored(a->resource.group, a->resource.resource))
        return NULL;
    kg_arena *ar = a->arena;
    rq_evaluator ev;
    kg_admission_rq_evaluator_for(ar, a->resource.group, a->resource.resource, &ev);
    if (!kg_admission_rq_evaluator_handles(&ev, a->operation, a->subresource) || !kg_json_is(a->object, KG_JSON_OBJECT))
        return NULL;

    KG_ERROR_DECL(e);
    quota_src *items;
    size_t n = get_quotas(st, svc, ar, a->ns, &items, &e);
    if (n == (size_t)-1)
        return kg_admission_pu_plain(ar, "error resolving quota: %s", e.msg); /* a plain error: 500 */
    if (!n && !st->nlim)
        return NULL;
    /* one namespace at a time (upstream: one worker per namespace) so that this server does not conflict with
     * itself: the quotas are read again under the lock */
    pthread_mutex_t *lk = NULL;
    if (!a->dry_run) {
        lk = &st->ns_locks[ns_hash(a->ns) % STRIPES];
        pthread_mutex_lock(lk);
        kg_err_clear(&e);
        n = get_quotas(st, svc, ar, a->ns, &items, &e);
        if (n == (size_t)-1) {
            pthread_mutex_unlock(lk);
            return kg_admission_pu_plain(ar, "error resolving quota: %s", e.msg);
        }
    }

    rq_env env = env_of(svc);
    env.cres = kg_arena_alloc(ar, sizeof *env.cres);
    env.cres->n = 0;
    rq_quota *quotas = kg_arena_alloc(ar, (n + 1) * sizeof *quotas);
    for (size_t i = 0; i < n; i++) {
        const kg_json *mine = recent_or(st, ar, a->ns, items[i].obj, env.now_ns);
        load_quota(ar, mine, mine == items[i].obj ? items[i].doc : NULL, &quotas[i]);
    }

    kg_status *result = NULL;
    for (int attempt = 0;; attempt++) {
        result = check_request(st, a, &ev, quotas, n, &env);
        if (result || a->dry_run)
            break;
        /* persist the changed quotas; collect the failed ones */
        size_t nfailed = 0;
        KG_ERROR_DECL(last);
        const char *last_name = "";
        for (size_t i = 0; i < n; i++) {
            if (!quotas[i].changed)
                continue;
            kg_json *upd = kg_json_clone(ar, quotas[i].obj);
            kg_json *status = kg_json_get_or_add_object(ar, upd, "status");
            kg_json_set(ar, status, "used", kg_rlist_to_json(ar, &quotas[i].used));
            KG_ERROR_DECL(ue);
            kg_json *stored = svc->update ? svc->update(svc->ctx, ar, "resourcequotas", a->ns, upd, &ue) : NULL;
            if (stored) {
                live_cache_drop(st, a->ns);
                recent_put(st, ar, a->ns, stored, env.now_ns + LIVE_TTL_NS);
                continue;
            }
            if (!svc->update)
                kg_err_set(&ue, KG_EUNSUPPORTED, "quota status cannot be written");
            last = ue;
            last_name = quotas[i].name;
            quotas[nfailed++] = quotas[i]; /* keep the failed ones in front */
        }
        if (!nfailed)
            break;
        if (attempt >= MAX_RETRIES || last.code != KG_ECONFLICT) {
            result = update_error(ar, last_name, &last);
            break;
        }
        /* re-read the failed quotas and check the request again against them only */
        size_t m = 0;
        for (size_t i = 0; i < nfailed; i++) {
            KG_ERROR_DECL(ge);
            kg_json *fresh =
                kg_admission_get(svc, ar, "resourcequotas", a->ns, quotas[i].name, KG_ADMISSION_GET_LIVE, &ge);
            if (fresh)
                load_quota(ar, fresh, NULL, &quotas[m++]);
        }
        n = m;
        if (!n)
            break;
    }
    if (lk)
        pthread_mutex_unlock(lk);
    return result;
}

const kg_admission_plugin kg_admission_plugin_resource_quota = {
    .name = "ResourceQuota",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE,
    .init = init,
    .validate = validate,
    .destroy = destroy,
};

/* ---- usage recalculation (quota.CalculateUsage), shared with the quota controller ---- */

/* Split "count/<resource>[.<group>]" (the resource is everything before the first dot). */
static bool count_target(kg_arena *ar, const char *name, const char **group, const char **resource)
{
    if (strncmp(name, "count/", 6) != 0 || !name[6])
        return false;
    const char *r = name + 6;
    const char *dot = strchr(r, '.');
    if (dot) {
        *resource = kg_arena_strdup(ar, r);
        ((char *)*resource)[dot - r] = 0;
        *group = dot + 1;
    } else {
        *resource = r;
        *group = "";
    }
    return true;
}

/* generic.CalculateUsageStats for one evaluator over the namespace's objects. */
static bool usage_stats(kg_arena *ar, const kg_admission_services *svc, const rq_evaluator *ev, const char *ns,
                        const rq_scope *sc, size_t nsc, const char **resources, size_t nres, unsigned flags,
                        const rq_env *env, kg_rlist *out, kg_error *err)
{
    *out = (kg_rlist){0};
    for (size_t i = 0; i < nres; i++) {
        kg_quantity z = kg_quantity_zero();
        kg_rlist_set(ar, out, resources[i], &z);
    }
    kg_json *items = kg_admission_list(svc, ar, ev->resource, ns, flags, err);
    if (!items)
        return false;
    for (size_t i = 0; i < items->len; i++) {
        const kg_json *obj = kg_json_at(items, i);
        bool match = true;
        for (size_t j = 0; j < nsc && match; j++) {
            const char *em = NULL;
            match = kg_admission_rq_match_scope(ar, ev, &sc[j], obj, env, &em) == 1;
        }
        if (!match)
            continue;
        kg_rlist u;
        kg_admission_rq_usage(ar, ev, obj, env, &u);
        kg_rlist_add(ar, out, &u);
    }
    return true;
}

bool kg_quota_recalculate(kg_arena *a, const kg_admission_services *svc, const kg_json *quota, unsigned list_flags,
                          kg_json **new_status, bool *changed, kg_error *err)
{
    const char *ns = kg_json_get_str(kg_json_get(quota, "metadata"), "namespace");
    if (!ns)
        ns = "";
    rq_env env = env_of(svc);
    kg_rlist hard, used = {0}, prev_used;
    kg_rlist_from_json(a, kg_json_get(kg_json_get(quota, "spec"), "hard"), &hard);
    kg_rlist_from_json(a, kg_json_get(kg_json_get(quota, "status"), "used"), &prev_used);
    rq_scope *sc;
    size_t nsc = quota_scopes(a, quota, &sc);

    /* the evaluators the hard resources need: pods, services, PVCs, and one count evaluator per other resource */
    rq_evaluator evs[64];
    size_t nevs = 0;
    static const char *const builtin[] = {"pods", "services", "persistentvolumeclaims"};
    for (size_t i = 0; i < 3; i++)
        kg_admission_rq_evaluator_for(a, "", builtin[i], &evs[nevs++]);
    for (size_t i = 0; i < hard.n && nevs < 64; i++) {
        const char *g, *r;
        bool legacy = kg_streq(hard.e[i].name, "configmaps") || kg_streq(hard.e[i].name, "secrets") ||
                      kg_streq(hard.e[i].name, "resourcequotas") || kg_streq(hard.e[i].name, "replicationcontrollers");
        if (legacy) {
            g = "";
            r = hard.e[i].name;
        } else if (!count_target(a, hard.e[i].name, &g, &r)) {
            continue;
        }
        bool dup = false;
        for (size_t j = 0; j < nevs && !dup; j++)
            dup = kg_streq(evs[j].group, g) && kg_streq(evs[j].resource, r);
        if (!dup && !ignored(g, r))
            kg_admission_rq_evaluator_for(a, g, r, &evs[nevs++]);
    }

    kg_rlist computed = {0};
    for (size_t i = 0; i < nevs; i++) {
        const char **mh;
        size_t nmh = matching_hard(a, &evs[i], &hard, &mh);
        if (!nmh)
            continue;
        kg_rlist stats;
        if (!usage_stats(a, svc, &evs[i], ns, sc, nsc, mh, nmh, list_flags, &env, &stats, err))
            return false;
        /* mask to this evaluator's hard resources */
        kg_rlist masked;
        kg_rlist_mask(a, &stats, mh, nmh, &masked);
        kg_rlist_add(a, &computed, &masked);
    }
    /* used = previous used masked to hard, overwritten by the computed usage */
    for (size_t i = 0; i < hard.n; i++) {
        kg_rlist_entry *c = kg_rlist_find(&computed, hard.e[i].name), *p = kg_rlist_find(&prev_used, hard.e[i].name);
        if (c)
            kg_rlist_set(a, &used, hard.e[i].name, &c->q);
        else if (p)
            kg_rlist_set(a, &used, hard.e[i].name, &p->q);
    }
    kg_json *status = kg_json_new_object(a);
    kg_json_set(a, status, "hard", kg_rlist_to_json(a, &hard));
    kg_json_set(a, status, "used", kg_rlist_to_json(a, &used));
    *new_status = status;
    if (changed) {
        kg_rlist oh;
        kg_rlist_from_json(a, kg_json_get(kg_json_get(quota, "status"), "hard"), &oh);
        *changed = !kg_rlist_equal(&oh, &hard) || !kg_rlist_equal(&prev_used, &used);
    }
    return true;
}
