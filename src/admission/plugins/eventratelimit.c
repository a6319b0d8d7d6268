/* EventRateLimit (plugin/pkg/admission/eventratelimit), validating, CREATE/UPDATE of core Events (kind group ""):
 * one token bucket store per configured limit (Server: one bucket; Namespace / User / SourceAndObject: buckets keyed
 * by the request namespace / user name / event source+involved object, kept in an LRU of cacheSize entries, 4096 by
 * default; an evicted key comes back with a full bucket). Every limit consumes a token (no short circuit); any
 * rejection → 429 `Too many requests: limit reached on type <T> for key <k>` (several: Go aggregate "[a, b]").
 * Dry-run requests are neither limited nor counted. Buckets hold `burst` tokens, start full and refill at `qps`
 * tokens per second (golang.org/x/time/rate semantics) on the services' clock.
 *
 * Configuration (required):
 *   apiVersion: eventratelimit.admission.k8s.io/v1alpha1
 *   kind: Configuration
 *   limits: [{type: Server|Namespace|User|SourceAndObject, qps: >0, burst: >0, cacheSize: >=0}]
 * Validation errors use upstream's field paths and texts (limits[i].qps: Invalid value: 0: must be positive). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/eventratelimit.h"
#include "admission/plugins/plugin_util.h"
#include "base/buf.h"
#include "base/hash.h"

#define ERL_API_VERSION "eventratelimit.admission.k8s.io/v1alpha1"
#define ERL_KIND "Configuration"
#define DEFAULT_CACHE_SIZE 4096

typedef enum { LT_SERVER, LT_NAMESPACE, LT_USER, LT_SOURCE_AND_OBJECT } limit_type;
static const char *const k_type_names[] = {"Server", "Namespace", "User", "SourceAndObject"};

typedef struct bucket {
    double tokens;
    int64_t last; /* ns; 0 = never used (full) */
} bucket;

typedef struct lru_node {
    char *key;
    uint64_t hash;
    bucket b;
    int32_t hnext;      /* hash chain */
    int32_t prev, next; /* recency list: head = most recent */
} lru_node;

typedef struct enforcer {
    limit_type type;
    double qps;
    double burst;
    pthread_mutex_t lock;
    bucket server; /* LT_SERVER */
    /* LRU (other types) */
    int32_t cap, n;
    lru_node *nodes; /* grows up to cap */
    int32_t nalloc;
    int32_t *heads; /* hash buckets */
    uint32_t nheads;
    int32_t head, tail;
} enforcer;

typedef struct erl_state {
    size_t n;
    enforcer *e;
} erl_state;

/* ---- token bucket (rate.Limiter.AllowN(now, 1)) ---- */

static bool bucket_take(const enforcer *en, bucket *b, int64_t now)
{
    double tokens = en->burst;
    if (b->last != 0) {
        int64_t last = b->last < now ? b->last : now;
        tokens = b->tokens + (double)(now - last) / 1e9 * en->qps;
        if (tokens > en->burst)
            tokens = en->burst;
    }
    if (tokens < 1.0)
        return false; /* state unchanged, as upstream */
    b->tokens = tokens - 1.0;
    b->last = now;
    return true;
}

/* ---- LRU of buckets ---- */

static uint64_t key_hash(const char *s)
{
    return kg_fnv1a64_str(s);
}

static void lru_unlink(enforcer *en, int32_t i)
{
    lru_node *x = &en->nodes[i];
    if (x->prev >= 0)
        en->nodes[x->prev].next = x->next;
    else
        en->head = x->next;
    if (x->next >= 0)
        en->nodes[x->next].prev = x->prev;
    else
        en->tail = x->prev;
    x->prev = x->next = -1;
}

static void lru_push_front(enforcer *en, int32_t i)
{
    lru_node *x = &en->nodes[i];
    x->prev = -1;
    x->next = en->head;
    if (en->head >= 0)
        en->nodes[en->head].prev = i;
    en->head = i;
    if (en->tail < 0)
        en->tail = i;
}

static void hash_remove(enforcer *en, int32_t i)
{
    int32_t *p = &en->heads[en->nodes[i].hash & (en->nheads - 1)];
    while (*p >= 0 && *p != i)
        p = &en->nodes[*p].hnext;
    if (*p == i)
        *p = en->nodes[i].hnext;
}

/* The bucket of key (created full, evicting the least recently used when full); NULL only when out of memory. */
static bucket *lru_get(enforcer *en, const char *key)
{
    uint64_t h = key_hash(key);
    uint32_t slot = (uint32_t)(h & (en->nheads - 1));
    for (int32_t i = en->heads[slot]; i >= 0; i = en->nodes[i].hnext) {
        if (en->nodes[i].hash == h && strcmp(en->nodes[i].key, key) == 0) {
            lru_unlink(en, i);
            lru_push_front(en, i);
            return &en->nodes[i].b;
        }
    }
    char *k = strdup(key);
    if (!k)
        return NULL;
    int32_t i;
    if (en->n < en->cap) {
        if (en->n == en->nalloc) {
            int32_t na = en->nalloc ? en->nalloc * 2 : 16;
            if (na > en->cap)
                na = en->cap;
            lru_node *nn = realloc(en->nodes, (size_t)na * sizeof *nn);
            if (!nn) {
                free(k);
                return NULL;
            }
            en->nodes = nn;
            en->nalloc = na;
        }
        i = en->n++;
    } else { /* evict the least recently used */
        i = en->tail;
        lru_unlink(en, i);
        hash_remove(en, i);
        free(en->nodes[i].key);
    }
    lru_node *x = &en->nodes[i];
    x->key = k;
    x->hash = h;
    x->b = (bucket){0};
    x->hnext = en->heads[slot];
    en->heads[slot] = i;
    lru_push_front(en, i);
    return &x->b;
}

/* ---- keys ---- */

static const char *event_key(kg_arena *ar, const kg_json *ev)
{
    static const char *const paths[] = {"source.component",         "source.host",         "involvedObject.kind",
                                        "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
                                        "involvedObject.apiVersion"};
    kg_buf b;
    kg_buf_init(&b);
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        const char *s = kg_json_path_str(ev, paths[i]);
        if (s)
            kg_buf_puts(&b, s);
    }
    char *k = kg_arena_strdup(ar, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return k;
}

static const char *key_of(const enforcer *en, const kg_admission_attributes *a)
{
    switch (en->type) {
    case LT_SERVER: return "";
    case LT_NAMESPACE: return a->ns;
    case LT_USER: return a->user.name ? a->user.name : "";
    case LT_SOURCE_AND_OBJECT:
        return kg_admission_pu_obj_kind(a->object, "Event") && kg_json_is(a->object, KG_JSON_OBJECT)
                   ? event_key(a->arena, a->object)
                   : "";
    }
    return "";
}

/* ---- configuration ---- */

static void destroy(void *state)
{
    erl_state *st = state;
    if (!st)
        return;
    for (size_t i = 0; i < st->n; i++) {
        enforcer *en = &st->e[i];
        for (int32_t j = 0; j < en->n; j++)
            free(en->nodes[j].key);
        free(en->nodes);
        free(en->heads);
        pthread_mutex_destroy(&en->lock);
    }
    free(st->e);
    free(st);
}

/* An int32 field of limits[i]: absent → 0; not an integer → decode error. */
/* Go's encoding/json name of a JSON value's kind in UnmarshalTypeError ("number 1.5", "string", "bool", ...). */
static void go_json_kind(const kg_json *v, char *buf, size_t cap)
{
    if (kg_json_is(v, KG_JSON_INT))
        snprintf(buf, cap, "number %lld", (long long)v->u.i);
    else if (kg_json_is(v, KG_JSON_NUMBER))
        snprintf(buf, cap, "number %.*s", v->u.num.raw ? (int)v->len : 0, v->u.num.raw ? v->u.num.raw : "");
    else
        snprintf(buf, cap, "%s", kg_json_is(v, KG_JSON_BOOL) ? "bool" : kg_json_type_name(v->type));
}

/* An int32 field of limits[i]: absent → 0; not an int32 → decode error. */
static bool int32_field(const kg_json *limit, const char *key, int64_t *out, kg_error *err)
{
    const kg_json *v = kg_json_get(limit, key);
    *out = 0;
    if (!v || kg_json_is(v, KG_JSON_NULL))
        return true;
    if (!kg_json_is(v, KG_JSON_INT) || v->u.i < INT32_MIN || v->u.i > INT32_MAX) {
        char kind[96];
        go_json_kind(v, kind, sizeof kind);
        return kg_err_set(err, KG_EINVAL,
                          "json: cannot unmarshal %s into Go struct field Limit.limits.%s of type int32", kind, key);
    }
    *out = v->u.i;
    return true;
}

static void add_err(kg_buf *errs, size_t *n, const char *msg)
{
    if (*n)
        kg_buf_puts(errs, ", ");
    kg_buf_puts(errs, msg);
    (*n)++;
}

static bool init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    const kg_json *limits = NULL;
    if (config) {
        if (!kg_json_is(config, KG_JSON_OBJECT))
            return kg_err_set(err, KG_EINVAL, "couldn't decode EventRateLimit configuration: expected an object");
        const char *kind = kg_json_get_str(config, "kind"), *av = kg_json_get_str(config, "apiVersion");
        if (!kind || !kind[0])
            return kg_err_set(err, KG_EINVAL, "Object 'Kind' is missing in EventRateLimit configuration");
        if (!av || strcmp(av, ERL_API_VERSION) != 0 || strcmp(kind, ERL_KIND) != 0)
            return kg_err_set(err, KG_EINVAL,
                              "no kind \"%s\" is registered for version \"%s\" (expected apiVersion %s, kind %s)", kind,
                              av ? av : "", ERL_API_VERSION, ERL_KIND);
        limits = kg_json_get(config, "limits");
        if (limits && !kg_json_is(limits, KG_JSON_NULL) && !kg_json_is(limits, KG_JSON_ARRAY))
            return kg_err_set(err, KG_EINVAL,
                              "json: cannot unmarshal %s into Go struct field Configuration.limits of type "
                              "[]v1alpha1.Limit",
                              kg_json_type_name(limits->type));
        if (kg_json_is(limits, KG_JSON_NULL))
            limits = NULL;
    }
    kg_buf errs;
    kg_buf_init(&errs);
    size_t nerr = 0;
    if (!limits || !limits->len)
        add_err(&errs, &nerr,
                limits ? "limits: Invalid value: []eventratelimit.Limit{}: must not be empty"
                       : "limits: Invalid value: []eventratelimit.Limit(nil): must not be empty");
    size_t n = limits ? limits->len : 0;
    limit_type *types = calloc(n ? n : 1, sizeof *types);
    int64_t(*vals)[3] = calloc(n ? n : 1, sizeof *vals); /* qps, burst, cacheSize */
    bool ok = types && vals;
    char msg[256];
    for (size_t i = 0; ok && i < n; i++) {
        const kg_json *l = kg_json_at(limits, i);
        if (!kg_json_is(l, KG_JSON_OBJECT)) {
            kg_err_set(err, KG_EINVAL,
                       "json: cannot unmarshal %s into Go struct field Configuration.limits of type "
                       "v1alpha1.Limit",
                       kg_json_type_name(l->type));
            ok = false;
            break;
        }
        if (!int32_field(l, "qps", &vals[i][0], err) || !int32_field(l, "burst", &vals[i][1], err) ||
            !int32_field(l, "cacheSize", &vals[i][2], err)) {
            ok = false;
            break;
        }
        const kg_json *tv = kg_json_get(l, "type");
        if (tv && !kg_json_is(tv, KG_JSON_STRING) && !kg_json_is(tv, KG_JSON_NULL)) {
            kg_err_set(err, KG_EINVAL,
                       "json: cannot unmarshal %s into Go struct field Limit.limits.type of type "
                       "v1alpha1.LimitType",
                       kg_json_type_name(tv->type));
            ok = false;
            break;
        }
        const char *t = kg_json_is(tv, KG_JSON_STRING) ? tv->u.s : "";
        int found = -1;
        for (int k = 0; k < 4; k++)
            if (strcmp(t, k_type_names[k]) == 0)
                found = k;
        if (found < 0) {
            /* upstream lists the values from a Go map (random order); sorted here */
            kg_arena qa;
            kg_arena_init(&qa, 0);
            char *m = kg_arena_sprintf(&qa,
                                       "limits[%zu].type: Unsupported value: %s: supported values: \"Namespace\", "
                                       "\"Server\", \"SourceAndObject\", \"User\"",
                                       i, kg_admission_pu_quote(&qa, t));
            add_err(&errs, &nerr, m);
            kg_arena_free(&qa);
        }
        types[i] = found < 0 ? LT_SERVER : (limit_type)found;
        if (vals[i][1] <= 0) {
            snprintf(msg, sizeof msg, "limits[%zu].burst: Invalid value: %lld: must be positive", i,
                     (long long)vals[i][1]);
            add_err(&errs, &nerr, msg);
        }
        if (vals[i][0] <= 0) {
            snprintf(msg, sizeof msg, "limits[%zu].qps: Invalid value: %lld: must be positive", i,
                     (long long)vals[i][0]);
            add_err(&errs, &nerr, msg);
        }
        if (found != LT_SERVER && vals[i][2] < 0) {
            snprintf(msg, sizeof msg, "limits[%zu].cacheSize: Invalid value: %lld: must not be negative", i,
                     (long long)vals[i][2]);
            add_err(&errs, &nerr, msg);
        }
    }
    if (ok && nerr) {
        kg_err_set(err, KG_EINVAL, nerr > 1 ? "[%s]" : "%s", kg_buf_cstr(&errs));
        ok = false;
    }
    kg_buf_free(&errs);
    erl_state *st = NULL;
    if (ok) {
        st = calloc(1, sizeof *st);
        st->e = calloc(n, sizeof *st->e);
        ok = st && st->e;
        if (!ok)
            kg_err_set(err, KG_EINTERNAL, "out of memory");
    }
    for (size_t i = 0; ok && i < n; i++) {
        enforcer *en = &st->e[i];
        en->type = types[i];
        en->qps = (double)vals[i][0];
        en->burst = (double)vals[i][1];
        pthread_mutex_init(&en->lock, NULL);
        st->n = i + 1;
        en->head = en->tail = -1;
        if (en->type == LT_SERVER)
            continue;
        en->cap = vals[i][2] > 0 ? (int32_t)vals[i][2] : DEFAULT_CACHE_SIZE;
        uint32_t nh = 16;
        while (nh < (uint32_t)en->cap && nh < (1u << 16))
            nh <<= 1;
        en->nheads = nh;
        en->heads = malloc(nh * sizeof *en->heads);
        if (!en->heads) {
            ok = false;
            kg_err_set(err, KG_EINTERNAL, "out of memory");
            break;
        }
        memset(en->heads, 0xff, nh * sizeof *en->heads); /* -1 */
    }
    free(types);
    free(vals);
    if (!ok) {
        destroy(st);
        return false;
    }
    *state = st;
    return true;
}

/* ---- request ---- */

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    erl_state *st = state;
    if (a->kind.group[0] || strcmp(a->kind.kind, "Event") != 0 || a->dry_run)
        return NULL;
    kg_arena *ar = a->arena;
    int64_t now = kg_admission_now_ns(svc);
    const char **msgs = NULL;
    size_t nmsg = 0;
    for (size_t i = 0; i < st->n; i++) {
        enforcer *en = &st->e[i];
        const char *key = key_of(en, a);
        pthread_mutex_lock(&en->lock);
        bucket *b = en->type == LT_SERVER ? &en->server : lru_get(en, key);
        bool allowed = b ? bucket_take(en, b, now) : false;
        pthread_mutex_unlock(&en->lock);
        if (allowed)
            continue;
        const char *m = kg_arena_sprintf(ar, "limit reached on type %s for key %s", k_type_names[en->type], key);
        bool dup = false;
        for (size_t j = 0; j < nmsg; j++)
            dup = dup || strcmp(msgs[j], m) == 0;
        if (dup)
            continue;
        if (!msgs)
            msgs = kg_arena_alloc(ar, st->n * sizeof *msgs);
        msgs[nmsg++] = m;
    }
    if (!nmsg)
        return NULL;
    if (nmsg == 1)
        return kg_status_too_many_requests_error(ar, msgs[0]);
    kg_buf b;
    kg_buf_init(&b);
    kg_buf_putc(&b, '[');
    for (size_t j = 0; j < nmsg; j++) {
        if (j)
            kg_buf_puts(&b, ", ");
        kg_buf_puts(&b, msgs[j]);
    }
    kg_buf_putc(&b, ']');
    kg_status *s = kg_status_too_many_requests_error(ar, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return s;
}

const kg_admission_plugin kg_admission_plugin_event_rate_limit = {
    .name = "EventRateLimit",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE,
    .init = init,
    .validate = validate,
    .destroy = destroy,
};
