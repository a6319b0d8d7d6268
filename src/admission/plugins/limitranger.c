/* LimitRanger (plugin/pkg/admission/limitranger), mutating + validating, CREATE/UPDATE:
 *   - admit: pods get the defaults of every `Container` item of the namespace's LimitRanges (requests from
 *     defaultRequest, limits from default; a key already present is never touched) in containers and init
 *     containers, recorded in the annotation kubernetes.io/limit-ranger;
 *   - validate: min / max / maxLimitRequestRatio per Container and per Pod (aggregated like upstream's podRequests /
 *     podLimits, sidecars included), min / max requests per PersistentVolumeClaim.
 * Pod UPDATEs and subresources are skipped, except pods/resize UPDATEs when InPlacePodVerticalScaling is on; an old
 * object that is being deleted is skipped.
 *
 * LimitRanges come from the cache; when it has none for the namespace, a live list is made and its result kept for
 * 30 s in a bounded cache (upstream's 10000-entry LRU; here a direct-mapped table of 16384 slots with striped
 * locks, keyed by namespace), so a LimitRange created just before a pod is not missed while the cache lags;
 * concurrent lookups of one namespace share a single live list. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/limitranger.h"
#include "admission/plugins/plugin_util.h"
#include "base/str.h"
#include "base/buf.h"
#include "meta/quantity.h"
#include "meta/resourcelist.h"
#include "base/hash.h"

#define LR_ANNOTATION "kubernetes.io/limit-ranger"
#define LIVE_TTL_NS (30LL * 1000000000LL)
#define LIVE_SLOTS 16384u
#define LIVE_STRIPES 64u
#define TOUCHED_MAX 64u

/* ---- live lookup cache ---- */

typedef struct live_slot {
    char *ns;      /* malloc'd; NULL = empty */
    char *items;   /* the live list as JSON text (malloc'd) */
    char *loading; /* namespace whose live list is being fetched for this slot (singleflight), or NULL */
    int64_t expiry;
} live_slot;

typedef struct lr_state {
    pthread_mutex_t locks[LIVE_STRIPES];
    pthread_cond_t loaded[LIVE_STRIPES];
    live_slot slots[LIVE_SLOTS];
    /* The slots that ever held memory, when few (destroy frees those instead of walking the 512 KiB of slots: a
     * CLI's exit stays cheap); ntouched past TOUCHED_MAX means walk them all. */
    uint32_t touched[TOUCHED_MAX];
    size_t ntouched;
} lr_state;

static uint32_t ns_hash(const char *s)
{
    return kg_fnv1a32_str(s);
}

static bool init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    lr_state *st = calloc(1, sizeof *st);
    if (!st)
        return kg_err_set(err, KG_EINTERNAL, "out of memory");
    for (unsigned i = 0; i < LIVE_STRIPES; i++) {
        pthread_mutex_init(&st->locks[i], NULL);
        pthread_cond_init(&st->loaded[i], NULL);
    }
    *state = st;
    return true;
}

static void destroy(void *state)
{
    lr_state *st = state;
    if (!st)
        return;
    size_t n = st->ntouched > TOUCHED_MAX ? LIVE_SLOTS : st->ntouched;
    for (size_t k = 0; k < n; k++) {
        live_slot *s = &st->slots[st->ntouched > TOUCHED_MAX ? k : st->touched[k]];
        free(s->ns);
        free(s->items);
        free(s->loading);
        s->ns = s->items = s->loading = NULL; /* a slot may be listed twice */
    }
    for (unsigned i = 0; i < LIVE_STRIPES; i++) {
        pthread_mutex_destroy(&st->locks[i]);
        pthread_cond_destroy(&st->loaded[i]);
    }
    free(st);
}

/* The live list of ns: the remembered one while it is fresh, else a live LIST (one at a time per namespace:
 * concurrent callers wait for the one in flight, like upstream's singleflight). NULL with *e set on failure. */
static kg_json *live_lookup(lr_state *st, const kg_admission_services *svc, kg_arena *ar, const char *ns, int64_t now,
                            kg_error *e)
{
    uint32_t slot = ns_hash(ns) % LIVE_SLOTS;
    pthread_mutex_t *lk = &st->locks[slot % LIVE_STRIPES];
    pthread_cond_t *cv = &st->loaded[slot % LIVE_STRIPES];
    live_slot *s = &st->slots[slot];
    char *text = NULL;
    pthread_mutex_lock(lk);
    for (;;) {
        if (s->ns && strcmp(s->ns, ns) == 0 && s->expiry > now) {
            text = kg_arena_strdup(ar, s->items);
            break;
        }
        if (!s->loading || strcmp(s->loading, ns) != 0)
            break;
        pthread_cond_wait(cv, lk);
    }
    bool leader = !text && !s->loading && (s->loading = strdup(ns)) != NULL;
    if (leader && !s->ns) {
        size_t k = __atomic_fetch_add(&st->ntouched, 1, __ATOMIC_RELAXED);
        if (k < TOUCHED_MAX)
            st->touched[k] = slot;
    }
    pthread_mutex_unlock(lk);
    if (text)
        return kg_json_parse(ar, text, strlen(text), e);

    kg_json *items = kg_admission_list(svc, ar, "limitranges", ns, KG_ADMISSION_GET_LIVE, e);
    char *n = NULL, *t = NULL;
    if (items) {
        n = strdup(ns);
        t = strdup(kg_json_to_string(ar, items, 0, NULL));
    }
    pthread_mutex_lock(lk);
    if (n && t) {
        char *old_ns = s->ns, *old_items = s->items;
        s->ns = n;
        s->items = t;
        s->expiry = now + LIVE_TTL_NS;
        n = old_ns;
        t = old_items;
    }
    if (leader) {
        free(s->loading);
        s->loading = NULL;
        pthread_cond_broadcast(cv);
    }
    pthread_mutex_unlock(lk);
    free(n);
    free(t);
    return items;
}

/* ---- error collection (utilerrors.NewAggregate: duplicates removed, "[a, b]" when several) ---- */

typedef struct errs {
    const char **m;
    size_t n, cap;
} errs;

static void errs_add(kg_arena *ar, errs *e, const char *msg)
{
    for (size_t i = 0; i < e->n; i++)
        if (strcmp(e->m[i], msg) == 0)
            return;
    if (e->n == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 4;
        const char **m = kg_arena_alloc(ar, cap * sizeof *m);
        if (e->n)
            memcpy(m, e->m, e->n * sizeof *m);
        e->m = m;
        e->cap = cap;
    }
    e->m[e->n++] = msg;
}

static char *errs_join(kg_arena *ar, const errs *e)
{
    if (e->n == 1)
        return (char *)e->m[0];
    kg_buf b;
    kg_buf_init(&b);
    kg_buf_puts(&b, "[");
    for (size_t i = 0; i < e->n; i++) {
        if (i)
            kg_buf_puts(&b, ", ");
        kg_buf_puts(&b, e->m[i]);
    }
    kg_buf_puts(&b, "]");
    char *s = kg_arena_strdup(ar, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return s;
}

/* ---- constraints ---- */

/* requestLimitEnforcedValues: milli-units when every value fits, else whole units. */
static void rle_values(const kg_quantity *req, const kg_quantity *lim, const kg_quantity *enf, int64_t *r, int64_t *l,
                       int64_t *e)
{
    *r = kg_quantity_value(req);
    *l = kg_quantity_value(lim);
    *e = kg_quantity_value(enf);
    if (*r <= KG_QUANTITY_MAX_MILLI_VALUE && *l <= KG_QUANTITY_MAX_MILLI_VALUE && *e <= KG_QUANTITY_MAX_MILLI_VALUE) {
        *r = kg_quantity_milli_value(req);
        *l = kg_quantity_milli_value(lim);
        *e = kg_quantity_milli_value(enf);
    }
}

/* kg_quantity_zero(): the all-zero state */
static const kg_quantity zero_quantity;

static const kg_quantity *lookup_or_zero(const kg_rlist *l, const char *k)
{
    const kg_quantity *q = kg_rlist_get(l, k);
    return q ? q : &zero_quantity;
}

static void min_constraint(kg_arena *ar, errs *out, const char *type, const char *k, const kg_quantity *enf,
                           const kg_rlist *reqs, const kg_rlist *lims)
{
    bool req_ok = kg_rlist_find(reqs, k) != NULL, lim_ok = kg_rlist_find(lims, k) != NULL;
    const kg_quantity *req = lookup_or_zero(reqs, k), *lim = lookup_or_zero(lims, k);
    int64_t r, l, e;
    rle_values(req, lim, enf, &r, &l, &e);
    if (!req_ok)
        errs_add(ar, out,
                 kg_arena_sprintf(ar, "minimum %s usage per %s is %s.  No request is specified", k, type,
                                  kg_quantity_string(ar, enf)));
    else if (r < e)
        errs_add(ar, out,
                 kg_arena_sprintf(ar, "minimum %s usage per %s is %s, but request is %s", k, type,
                                  kg_quantity_string(ar, enf), kg_quantity_string(ar, req)));
    else if (lim_ok && l < e)
        errs_add(ar, out,
                 kg_arena_sprintf(ar, "minimum %s usage per %s is %s, but limit is %s", k, type,
                                  kg_quantity_string(ar, enf), kg_quantity_string(ar, lim)));
}

static void max_constraint(kg_arena *ar, errs *out, const char *type, const char *k, const kg_quantity *enf,
                           const kg_rlist *reqs, const kg_rlist *lims)
{
    bool req_ok = kg_rlist_find(reqs, k) != NULL, lim_ok = kg_rlist_find(lims, k) != NULL;
    const kg_quantity *req = lookup_or_zero(reqs, k), *lim = lookup_or_zero(lims, k);
    int64_t r, l, e;
    rle_values(req, lim, enf, &r, &l, &e);
    if (!lim_ok)
        errs_add(ar, out,
                 kg_arena_sprintf(ar, "maximum %s usage per %s is %s.  No limit is specified", k, type,
                                  kg_quantity_string(ar, enf)));
    else if (l > e)
        errs_add(ar, out,
                 kg_arena_sprintf(ar, "maximum %s usage per %s is %s, but limit is %s", k, type,
                                  kg_quantity_string(ar, enf), kg_quantity_string(ar, lim)));
    else if (req_ok && r > e)
        errs_add(ar, out,
                 kg_arena_sprintf(ar, "maximum %s usage per %s is %s, but request is %s", k, type,
                                  kg_quantity_string(ar, enf), kg_quantity_string(ar, req)));
}

static void max_request_constraint(kg_arena *ar, errs *out, const char *type, const char *k, const kg_quantity *enf,
                                   const kg_rlist *reqs)
{
    bool req_ok = kg_rlist_find(reqs, k) != NULL;
    const kg_quantity *req = lookup_or_zero(reqs, k);
    int64_t r, l, e;
    rle_values(req, &zero_quantity, enf, &r, &l, &e);
    if (!req_ok)
        errs_add(ar, out,
                 kg_arena_sprintf(ar, "maximum %s usage per %s is %s.  No request is specified", k, type,
                                  kg_quantity_string(ar, enf)));
    else if (r > e)
        errs_add(ar, out,
                 kg_arena_sprintf(ar, "maximum %s usage per %s is %s, but request is %s", k, type,
                                  kg_quantity_string(ar, enf), kg_quantity_string(ar, req)));
}

static void ratio_constraint(kg_arena *ar, errs *out, const char *type, const char *k, const kg_quantity *enf,
                             const kg_rlist *reqs, const kg_rlist *lims)
{
    bool req_ok = kg_rlist_find(reqs, k) != NULL, lim_ok = kg_rlist_find(lims, k) != NULL;
    const kg_quantity *req = lookup_or_zero(reqs, k), *lim = lookup_or_zero(lims, k);
    int64_t r, l, e;
    rle_values(req, lim, enf, &r, &l, &e);
    if (!req_ok || r == 0) {
        errs_add(ar, out,
                 kg_arena_sprintf(ar,
                                  "%s max limit to request ratio per %s is %s, but no request is specified or "
                                  "request is 0",
                                  k, type, kg_quantity_string(ar, enf)));
        return;
    }
    if (!lim_ok || l == 0) {
        errs_add(ar, out,
                 kg_arena_sprintf(ar,
                                  "%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0",
                                  k, type, kg_quantity_string(ar, enf)));
        return;
    }
    double observed = (double)l / (double)r, display = observed;
    double max_ratio = (double)kg_quantity_value(enf);
    if (kg_quantity_value(enf) <= KG_QUANTITY_MAX_MILLI_VALUE) {
        observed *= 1000;
        max_ratio = (double)kg_quantity_milli_value(enf);
    }
    if (observed > max_ratio)
        errs_add(ar, out,
                 kg_arena_sprintf(ar, "%s max limit to request ratio per %s is %s, but provided ratio is %f", k, type,
                                  kg_quantity_string(ar, enf), display));
}

/* min, max and ratio of one LimitRange item against requests/limits */
/* An item's min / max / maxLimitRequestRatio, parsed once per item. */
typedef struct item_limits {
    kg_rlist min, max, ratio;
} item_limits;

static void item_parse(kg_arena *ar, const kg_json *item, item_limits *il)
{
    kg_rlist_from_json(ar, kg_json_get(item, "min"), &il->min);
    kg_rlist_from_json(ar, kg_json_get(item, "max"), &il->max);
    kg_rlist_from_json(ar, kg_json_get(item, "maxLimitRequestRatio"), &il->ratio);
}

static bool constrained(const item_limits *il, const char *k)
{
    return kg_rlist_find(&il->min, k) || kg_rlist_find(&il->max, k) || kg_rlist_find(&il->ratio, k);
}

/* kg_rlist_from_json of only the resources the item constrains (the checks look nothing else up) */
static void lr_from_json_for(kg_arena *ar, const kg_json *obj, const item_limits *il, kg_rlist *out)
{
    *out = (kg_rlist){0};
    if (!kg_json_is(obj, KG_JSON_OBJECT))
        return;
    for (size_t i = 0; i < obj->len; i++) {
        if (!constrained(il, obj->u.members[i].key))
            continue;
        kg_quantity q;
        if (kg_quantity_from_json(obj->u.members[i].val, &q, NULL))
            kg_rlist_set(ar, out, obj->u.members[i].key, &q);
    }
}

static void check_item(kg_arena *ar, errs *out, const item_limits *il, const char *type, const kg_rlist *reqs,
                       const kg_rlist *lims)
{
    for (size_t i = 0; i < il->min.n; i++)
        min_constraint(ar, out, type, il->min.e[i].name, &il->min.e[i].q, reqs, lims);
    for (size_t i = 0; i < il->max.n; i++)
        max_constraint(ar, out, type, il->max.e[i].name, &il->max.e[i].q, reqs, lims);
    for (size_t i = 0; i < il->ratio.n; i++)
        ratio_constraint(ar, out, type, il->ratio.e[i].name, &il->ratio.e[i].q, reqs, lims);
}

static const kg_json *items_of(const kg_json *lr)
{
    const kg_json *l = kg_json_get(kg_json_get(lr, "spec"), "limits");
    return kg_json_is(l, KG_JSON_ARRAY) ? l : NULL;
}

static bool is_sidecar(const kg_json *c)
{
    const char *rp = kg_json_get_str(c, "restartPolicy");
    return rp && strcmp(rp, "Always") == 0;
}

typedef struct pod_opts {
    bool pod_level; /* PodLevelResources */
    bool ippvs;     /* InPlacePodVerticalScaling */
} pod_opts;

/* The status of container name (status.containerStatuses), or NULL. */
static const kg_json *container_status(const kg_json *pod, const char *name)
{
    const kg_json *sts = kg_json_get(kg_json_get(pod, "status"), "containerStatuses");
    for (size_t i = 0; kg_json_is(sts, KG_JSON_ARRAY) && i < sts->len; i++)
        if (strcmp(kg_admission_pu_str(kg_json_at(sts, i), "name"), name) == 0)
            return kg_json_at(sts, i);
    return NULL;
}

/* podRequests / podLimits: sum of containers (requests: with InPlacePodVerticalScaling, the larger of the spec and
 * the allocated resources, or only the allocated ones while the resize is Infeasible), max with the init-container
 * peak (sidecars accumulate), then the pod-level cpu/memory when PodLevelResources is on and spec.resources sets
 * them. */
static void pod_totals(kg_arena *ar, const kg_json *pod, const char *which, const pod_opts *o, kg_rlist *out)
{
    *out = (kg_rlist){0};
    const kg_json *spec = kg_json_get(pod, "spec");
    bool requests = strcmp(which, "resources.requests") == 0;
    const char *resize = kg_json_get_str(kg_json_get(pod, "status"), "resize");
    bool infeasible = resize && strcmp(resize, "Infeasible") == 0;
    const kg_json *cs = kg_json_get(spec, "containers");
    for (size_t i = 0; kg_json_is(cs, KG_JSON_ARRAY) && i < cs->len; i++) {
        const kg_json *c = kg_json_at(cs, i);
        kg_rlist r;
        kg_rlist_from_json(ar, kg_json_path(c, which), &r);
        const kg_json *cst = requests && o->ippvs ? container_status(pod, kg_admission_pu_str(c, "name")) : NULL;
        if (cst) {
            kg_rlist alloc;
            kg_rlist_from_json(ar, kg_json_get(cst, "allocatedResources"), &alloc);
            if (infeasible)
                r = alloc;
            else
                kg_rlist_max(ar, &r, &alloc);
        }
        kg_rlist_add(ar, out, &r);
    }
    kg_rlist sidecars = {0}, init_max = {0};
    const kg_json *ics = kg_json_get(spec, "initContainers");
    for (size_t i = 0; kg_json_is(ics, KG_JSON_ARRAY) && i < ics->len; i++) {
        const kg_json *c = kg_json_at(ics, i);
        kg_rlist r;
        kg_rlist_from_json(ar, kg_json_path(c, which), &r);
        if (is_sidecar(c)) {
            kg_rlist_add(ar, out, &r);
            kg_rlist_add(ar, &sidecars, &r);
            kg_rlist_max(ar, &init_max, &sidecars);
        } else {
            kg_rlist tmp = {0};
            kg_rlist_add(ar, &tmp, &r);
            kg_rlist_add(ar, &tmp, &sidecars);
            kg_rlist_max(ar, &init_max, &tmp);
        }
    }
    kg_rlist_max(ar, out, &init_max);
    if (o->pod_level) {
        kg_rlist pl;
        kg_rlist_from_json(ar, kg_json_path(spec, which), &pl);
        for (size_t i = 0; i < pl.n; i++)
            if (strcmp(pl.e[i].name, "cpu") == 0 || strcmp(pl.e[i].name, "memory") == 0)
                kg_rlist_set(ar, out, pl.e[i].name, &pl.e[i].q);
    }
}

/* ---- the parsed form of a LimitRange (memoised per shared document) ---- */

typedef struct lr_item {
    const char *type;
    item_limits il;
} lr_item;

typedef struct lr_parsed {
    kg_json *def_req, *def_lim; /* Container defaults (canonical quantities), read-only */
    lr_item *items;
    size_t nitems;
} lr_parsed;

static void container_defaults(kg_arena *ar, const kg_json *lr, kg_json *reqs, kg_json *lims);

static void *parse_limit_range(kg_arena *ar, const kg_json *lr, void *ud)
{
    (void)ud;
    lr_parsed *p = kg_arena_alloc(ar, sizeof *p);
    p->def_req = kg_json_new_object(ar);
    p->def_lim = kg_json_new_object(ar);
    container_defaults(ar, lr, p->def_req, p->def_lim);
    const kg_json *items = items_of(lr);
    p->nitems = items ? items->len : 0;
    p->items = kg_arena_alloc(ar, (p->nitems + 1) * sizeof *p->items);
    for (size_t i = 0; i < p->nitems; i++) {
        const kg_json *item = kg_json_at(items, i);
        p->items[i].type = kg_admission_pu_str(item, "type");
        item_parse(ar, item, &p->items[i].il);
    }
    return p;
}

/* one LimitRange of the request: the document (shared or private) and its parsed form */
typedef struct lr_ref {
    const kg_json *obj;
    const lr_parsed *p;
} lr_ref;

static void validate_pod(kg_arena *ar, errs *out, const lr_parsed *lr, const kg_json *pod, const pod_opts *o)
{
    const kg_json *spec = kg_json_get(pod, "spec");
    for (size_t i = 0; i < lr->nitems; i++) {
        const char *type = lr->items[i].type;
        const item_limits *il = &lr->items[i].il;
        if (!il->min.n && !il->max.n && !il->ratio.n)
            continue;
        if (strcmp(type, "Container") == 0) {
            static const char *const lists[] = {"containers", "initContainers"};
            for (int li = 0; li < 2; li++) {
                const kg_json *cs = kg_json_get(spec, lists[li]);
                for (size_t j = 0; kg_json_is(cs, KG_JSON_ARRAY) && j < cs->len; j++) {
                    const kg_json *c = kg_json_at(cs, j);
                    const kg_json *res = kg_json_get(c, "resources");
                    kg_rlist reqs, lims;
                    lr_from_json_for(ar, kg_json_get(res, "requests"), il, &reqs);
                    lr_from_json_for(ar, kg_json_get(res, "limits"), il, &lims);
                    check_item(ar, out, il, type, &reqs, &lims);
                }
            }
        } else if (strcmp(type, "Pod") == 0) {
            kg_rlist reqs, lims;
            pod_totals(ar, pod, "resources.requests", o, &reqs);
            pod_totals(ar, pod, "resources.limits", o, &lims);
            check_item(ar, out, il, type, &reqs, &lims);
        }
    }
}

static void validate_pvc(kg_arena *ar, errs *out, const kg_json *lr, const kg_json *pvc)
{
    const kg_json *items = items_of(lr);
    kg_rlist reqs, none = {0};
    kg_rlist_from_json(ar, kg_json_get(kg_json_get(kg_json_get(pvc, "spec"), "resources"), "requests"), &reqs);
    for (size_t i = 0; items && i < items->len; i++) {
        const kg_json *item = kg_json_at(items, i);
        const char *type = kg_admission_pu_str(item, "type");
        if (strcmp(type, "PersistentVolumeClaim") != 0)
            continue;
        kg_rlist l;
        kg_rlist_from_json(ar, kg_json_get(item, "min"), &l);
        for (size_t k = 0; k < l.n; k++)
            min_constraint(ar, out, type, l.e[k].name, &l.e[k].q, &reqs, &none);
        kg_rlist_from_json(ar, kg_json_get(item, "max"), &l);
        for (size_t k = 0; k < l.n; k++)
            max_request_constraint(ar, out, type, l.e[k].name, &l.e[k].q, &reqs);
    }
}

/* ---- defaulting ---- */

/* Container-type defaults of one LimitRange: later items override earlier ones per key. Values are JSON nodes. */
static void container_defaults(kg_arena *ar, const kg_json *lr, kg_json *reqs, kg_json *lims)
{
    const kg_json *items = items_of(lr);
    for (size_t i = 0; items && i < items->len; i++) {
        const kg_json *item = kg_json_at(items, i);
        if (strcmp(kg_admission_pu_str(item, "type"), "Container") != 0)
            continue;
        static const char *const keys[] = {"defaultRequest", "default"};
        for (int w = 0; w < 2; w++) {
            const kg_json *src = kg_json_get(item, keys[w]);
            for (size_t k = 0; kg_json_is(src, KG_JSON_OBJECT) && k < src->len; k++) {
                kg_quantity q;
                if (kg_quantity_from_json(src->u.members[k].val, &q, NULL))
                    kg_json_set(ar, w == 0 ? reqs : lims, src->u.members[k].key, kg_quantity_to_json(ar, &q));
            }
        }
    }
}

/* Missing keys of defaults into res[which]; the set keys sorted into a "k1, k2" string, or NULL. */
static const char *merge_keys(kg_arena *ar, kg_json *res, const char *which, const kg_json *defaults)
{
    if (!defaults->len)
        return NULL;
    const char *stackset[16];
    const char **set = defaults->len <= 16 ? stackset : kg_arena_alloc(ar, defaults->len * sizeof *set);
    size_t n = 0, total = 0;
    kg_json *dst = kg_json_get(res, which);
    for (size_t i = 0; i < defaults->len; i++) {
        const kg_json_member *m = &defaults->u.members[i];
        if (kg_json_get(dst, m->key))
            continue;
        if (!kg_json_is(dst, KG_JSON_OBJECT)) {
            dst = kg_json_new_object(ar);
            kg_json_set(ar, res, which, dst);
        }
        /* a node copy: the strings stay those of the LimitRange memo, pinned for the request like the pod itself */
        kg_json_setn(ar, dst, m->key, m->key_len, kg_json_clone_nodes(ar, m->val));
        set[n++] = m->key;
        total += m->key_len + 2;
    }
    if (!n)
        return NULL;
    for (size_t i = 1; i < n; i++) /* a handful of keys: insertion sort */
        for (size_t j = i; j > 0 && strcmp(set[j - 1], set[j]) > 0; j--) {
            const char *t = set[j];
            set[j] = set[j - 1];
            set[j - 1] = t;
        }
    char *s = kg_arena_alloc(ar, total + 1), *p = s;
    for (size_t i = 0; i < n; i++) {
        if (i) {
            memcpy(p, ", ", 2);
            p += 2;
        }
        size_t l = strlen(set[i]);
        memcpy(p, set[i], l);
        p += l;
    }
    *p = 0;
    return s;
}

static void mutate_pod(kg_arena *ar, kg_json *pod, const lr_parsed *lr)
{
    const kg_json *reqs = lr->def_req, *lims = lr->def_lim;
    if (!reqs->len && !lims->len)
        return;
    kg_json *spec = kg_json_get(pod, "spec");
    kg_buf b;
    kg_buf_init(&b);
    static const char *const lists[] = {"containers", "initContainers"};
    static const char *const prefix[] = {"container", "init container"};
    for (int li = 0; li < 2; li++) {
        kg_json *cs = kg_json_get(spec, lists[li]);
        for (size_t j = 0; kg_json_is(cs, KG_JSON_ARRAY) && j < cs->len; j++) {
            kg_json *c = kg_json_at(cs, j);
            if (!kg_json_is(c, KG_JSON_OBJECT))
                continue;
            kg_json *res = kg_json_get_or_add_object(ar, c, "resources");
            const char *name = kg_admission_pu_str(c, "name");
            const char *sr = merge_keys(ar, res, "requests", reqs);
            const char *sl = merge_keys(ar, res, "limits", lims);
            const char *what[2] = {sr, sl}, *kind[2] = {" request for ", " limit for "};
            for (int w = 0; w < 2; w++) {
                if (!what[w])
                    continue;
                kg_buf_puts(&b, b.len ? "; " : "LimitRanger plugin set: ");
                kg_buf_puts(&b, what[w]);
                kg_buf_puts(&b, kind[w]);
                kg_buf_puts(&b, prefix[li]);
                kg_buf_putc(&b, ' ');
                kg_buf_puts(&b, name);
            }
        }
    }
    if (b.len) {
        kg_json *meta = kg_json_get_or_add_object(ar, pod, "metadata");
        kg_json *ann = kg_json_get_or_add_object(ar, meta, "annotations");
        kg_json_set(ar, ann, LR_ANNOTATION, kg_json_new_strn(ar, b.data, b.len));
    }
    kg_buf_free(&b);
}

void kg_admission_limitrange_defaults(kg_arena *a, kg_json *limitrange)
{
    kg_json *items = kg_json_get(kg_json_get(limitrange, "spec"), "limits");
    for (size_t i = 0; kg_json_is(items, KG_JSON_ARRAY) && i < items->len; i++) {
        kg_json *item = kg_json_at(items, i);
        if (!kg_json_is(item, KG_JSON_OBJECT) || strcmp(kg_admission_pu_str(item, "type"), "Container") != 0)
            continue;
        const kg_json *max = kg_json_get(item, "max"), *min = kg_json_get(item, "min");
        /* default ← max; defaultRequest ← default; defaultRequest ← min (each only for missing keys) */
        struct {
            const char *dst;
            const kg_json *src;
        } steps[3] = {{"default", max}, {"defaultRequest", NULL}, {"defaultRequest", min}};
        for (int s = 0; s < 3; s++) {
            const kg_json *src = s == 1 ? kg_json_get(item, "default") : steps[s].src;
            if (!kg_json_is(src, KG_JSON_OBJECT) || !src->len)
                continue;
            kg_json *dst = kg_json_get(item, steps[s].dst);
            for (size_t k = 0; k < src->len; k++) {
                if (kg_json_get(dst, src->u.members[k].key))
                    continue;
                if (!kg_json_is(dst, KG_JSON_OBJECT)) {
                    dst = kg_json_new_object(a);
                    kg_json_set(a, item, steps[s].dst, dst);
                }
                kg_json_set(a, dst, src->u.members[k].key, kg_json_clone(a, src->u.members[k].val));
            }
        }
    }
}

/* ---- request handling ---- */

typedef enum { LR_NONE, LR_POD, LR_PVC } lr_target;

/* SupportsAttributes (by kind), then the dispatch of MutateLimit/ValidateLimit (by resource). */
static lr_target target_of(const kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (a->kind.group[0])
        return LR_NONE;
    bool pod = strcmp(a->kind.kind, "Pod") == 0, pvc = strcmp(a->kind.kind, "PersistentVolumeClaim") == 0;
    bool pods = strcmp(a->resource.resource, "pods") == 0;
    if (pod && pods && a->operation == KG_ADMISSION_UPDATE && strcmp(a->subresource, "resize") == 0 &&
        kg_admission_feature(svc, "InPlacePodVerticalScaling"))
        return LR_POD; /* in-place resize is re-checked */
    if (a->subresource[0])
        return LR_NONE;
    if (pod)
        return a->operation == KG_ADMISSION_UPDATE || !pods ? LR_NONE : LR_POD;
    if (pvc && strcmp(a->resource.resource, "persistentvolumeclaims") == 0)
        return LR_PVC;
    return LR_NONE;
}

static bool being_deleted(const kg_json *old)
{
    const kg_json *dt = kg_json_get(kg_json_get(old, "metadata"), "deletionTimestamp");
    return dt && !kg_json_is(dt, KG_JSON_NULL);
}

static kg_status *lookup_error(const kg_admission_attributes *a)
{
    return kg_admission_forbidden(
        a, "unable to %s %s/%s, Resource=%s at this time because there was an error enforcing limit ranges",
        kg_admission_op_name(a->operation), a->resource.group, a->resource.version, a->resource.resource);
}

/* The namespace's LimitRanges with their parsed form: the cached documents (parsed once per version), else the
 * (cached) live list (parsed per request). Returns the count, or (size_t)-1 with *err_st set. */
static size_t get_limit_ranges(lr_state *st, const kg_admission_attributes *a, const kg_admission_services *svc,
                               lr_ref **out, kg_status **err_st)
{
    kg_arena *ar = a->arena;
    KG_ERROR_DECL(e);
    kg_json_shared **docs;
    size_t n = kg_admission_view_list(svc, ar, "limitranges", a->ns, &docs, &e);
    if (n == (size_t)-1) {
        *err_st = lookup_error(a);
        return n;
    }
    const kg_json *items = NULL;
    if (!n) {
        kg_err_clear(&e);
        items = live_lookup(st, svc, ar, a->ns, kg_admission_now_ns(svc), &e);
        if (!items) {
            *err_st = kg_admission_forbidden(a, "%s", e.msg);
            return (size_t)-1;
        }
        n = items->len;
    }
    lr_ref *v = kg_arena_alloc(ar, (n + 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        if (items) {
            v[i].obj = kg_json_at(items, i);
            v[i].p = parse_limit_range(ar, v[i].obj, NULL);
        } else {
            v[i].obj = kg_json_shared_root(docs[i]);
            v[i].p = kg_json_shared_memo(docs[i], KG_ADMISSION_MEMO_LIMITRANGE, parse_limit_range, NULL);
        }
    }
    *out = v;
    return n;
}

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (target_of(a, svc) != LR_POD || !kg_json_is(a->object, KG_JSON_OBJECT) || being_deleted(a->old_object))
        return NULL;
    kg_status *st = NULL;
    lr_ref *lrs;
    size_t n = get_limit_ranges(state, a, svc, &lrs, &st);
    if (n == (size_t)-1)
        return st;
    for (size_t i = 0; i < n; i++)
        mutate_pod(a->arena, a->object, lrs[i].p);
    return NULL;
}

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    lr_target t = target_of(a, svc);
    if (t == LR_NONE || !kg_json_is(a->object, KG_JSON_OBJECT) || being_deleted(a->old_object))
        return NULL;
    kg_status *st = NULL;
    lr_ref *lrs;
    size_t n = get_limit_ranges(state, a, svc, &lrs, &st);
    if (n == (size_t)-1)
        return st;
    pod_opts o = {kg_admission_feature(svc, "PodLevelResources"),
                  kg_admission_feature(svc, "InPlacePodVerticalScaling")};
    for (size_t i = 0; i < n; i++) {
        errs e = {0};
        if (t == LR_POD)
            validate_pod(a->arena, &e, lrs[i].p, a->object, &o);
        else
            validate_pvc(a->arena, &e, lrs[i].obj, a->object);
        if (e.n)
            return kg_admission_forbidden(a, "%s", errs_join(a->arena, &e));
    }
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_limit_ranger = {
    .name = "LimitRanger",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE,
    .init = init,
    .admit = admit,
    .validate = validate,
    .destroy = destroy,
};
