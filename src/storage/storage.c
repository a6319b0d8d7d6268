/* Storage front end: backend selection, argument checks, Kubernetes continue tokens, GuaranteedUpdate and the
 * background compactor. Backends implement kg_store_backend_ops (storage_internal.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/log.h"
#include "json/json.h"
#include "storage/storage_internal.h"
#include "storage/transformer.h"
#include "base/base64.h"

/* ---- base64url without padding ---- */

char *kg_store_b64url_encode(kg_arena *a, const void *p, size_t n)
{
    return kg_base64_encode(a, p, n, KG_BASE64_URL | KG_BASE64_RAW, NULL);
}

bool kg_store_b64url_decode(kg_arena *a, const char *s, char **out, size_t *out_n)
{
    /* Go's RawURLEncoding (strict=false): non-zero trailing bits are accepted */
    *out = kg_base64_decode(a, s, strlen(s), KG_BASE64_URL | KG_BASE64_RAW, out_n, NULL);
    return *out != NULL;
}

/* ---- continue tokens (k8s.io/apiserver/pkg/storage continue.go format) ---- */

#define CONTINUE_INVALID "continue key is not valid"

/* token for start key rel (relative to the prefix; n bytes, may end in \x00 meaning "after") */
static char *encode_token(kg_arena *a, const char *rel, size_t n, int64_t rv)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_printf(&b, "{\"v\":\"meta.k8s.io/v1\",\"rv\":%lld,\"start\":", (long long)rv);
    kg_json_write_string(&b, rel, n, KG_JSON_WRITE_NO_ESCAPE_HTML);
    kg_buf_putc(&b, '}');
    char *tok = kg_store_b64url_encode(a, b.data, b.len);
    kg_buf_free(&b);
    return tok;
}

/* the token continuing after key (key + "\x00", as Kubernetes encodes it) */
static char *encode_continue(kg_arena *a, const char *prefix, const char *key, bool after, int64_t rv)
{
    size_t plen = strlen(prefix), klen = strlen(key);
    char *rel = kg_arena_alloc(a, klen - plen + 2);
    memcpy(rel, key + plen, klen - plen);
    rel[klen - plen] = 0;
    return encode_token(a, rel, klen - plen + (after ? 1 : 0), rv);
}

/* path.Clean("/" + s) == "/" + s */
static bool clean_path(const char *s, size_t n)
{
    size_t i = 0;
    if (n > 0 && s[0] == '/')
        i = 1; /* Go prepends "/" only when missing */
    if (i == n)
        return i == 0 ? false : true; /* "/" alone cleans to "/" */
    size_t seg = i;
    for (size_t j = i; j <= n; j++) {
        if (j == n || s[j] == '/') {
            size_t len = j - seg;
            if (len == 0)
                return false; /* "//" or trailing "/" */
            if ((len == 1 && s[seg] == '.') || (len == 2 && s[seg] == '.' && s[seg + 1] == '.'))
                return false;
            seg = j + 1;
        }
    }
    return true;
}

/* Decode a token into (full start key, exclusive?, rv). */
static bool decode_continue(kg_arena *a, const char *tok, const char *prefix, char **start, bool *after,
                            int64_t *rv, kg_error *err)
{
    char *raw;
    size_t rawn;
    if (!kg_store_b64url_decode(a, tok, &raw, &rawn))
        return kg_err_set(err, KG_EINVAL, "%s: illegal base64 data", CONTINUE_INVALID);
    KG_ERROR_DECL(jerr);
    kg_json *j = kg_json_parse(a, raw, rawn, &jerr);
    if (!j)
        return kg_err_set(err, KG_EINVAL, "%s: %s", CONTINUE_INVALID, jerr.msg);
    if (!kg_json_is(j, KG_JSON_OBJECT))
        return kg_err_set(err, KG_EINVAL, "%s: json: cannot unmarshal %s into Go value of type storage.continueToken",
                          CONTINUE_INVALID, kg_json_type_name(j->type));
    const char *v = kg_json_get_str(j, "v");
    if (!v || strcmp(v, "meta.k8s.io/v1") != 0)
        return kg_err_set(err, KG_EINVAL, "%s: server does not recognize this encoded version %s", CONTINUE_INVALID,
                          v ? v : "");
    kg_json *r = kg_json_get(j, "rv");
    int64_t rvv = kg_json_is(r, KG_JSON_INT) ? r->u.i : 0;
    if (rvv == 0)
        return kg_err_set(err, KG_EINVAL,
                          "%s: incorrect encoded start resourceVersion (version meta.k8s.io/v1)", CONTINUE_INVALID);
    kg_json *sj = kg_json_get(j, "start");
    if (!kg_json_is(sj, KG_JSON_STRING) || sj->len == 0)
        return kg_err_set(err, KG_EINVAL, "%s: encoded start key empty (version meta.k8s.io/v1)", CONTINUE_INVALID);
    const char *s = sj->u.s;
    size_t n = sj->len;
    if (!clean_path(s, n))
        return kg_err_set(err, KG_EINVAL, "%s: %.*s", CONTINUE_INVALID, (int)n, s);
    if (s[0] == '/') {
        s++;
        n--;
    }
    *after = false;
    if (n > 0 && s[n - 1] == 0) { /* "key\x00": everything after key */
        *after = true;
        n--;
    }
    if (memchr(s, 0, n))
        return kg_err_set(err, KG_EINVAL, "%s: %.*s", CONTINUE_INVALID, (int)n, s);
    *start = kg_arena_sprintf(a, "%s%.*s", prefix, (int)n, s);
    *rv = rvv;
    return true;
}

static char *range_end(kg_arena *a, const char *p)
{
    size_t n = strlen(p);
    char *e = kg_arena_strdup(a, p);
    while (n > 0) {
        unsigned char c = (unsigned char)e[n - 1];
        if (c < 0xff) {
            e[n - 1] = (char)(c + 1);
            e[n] = 0;
            return e;
        }
        n--;
    }
    e[0] = 0;
    return e;
}

static bool check_key(const char *key, kg_error *err)
{
    if (!key || key[0] != '/')
        return kg_err_set(err, KG_EINVAL, "invalid key %s: must start with '/'", key ? key : "(null)");
    return true;
}

/* ---- open / close / compactor ---- */

typedef struct compactor {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    bool stop;
    bool running;
    bool inited;
} compactor;

#define KG_COMPACT_SAMPLES 64

typedef struct store_priv {
    struct kg_store pub;
    compactor comp;
    /* (time, committed revision) samples for history_seconds, oldest first; compactor thread only */
    double sample_t[KG_COMPACT_SAMPLES];
    int64_t sample_rev[KG_COMPACT_SAMPLES];
    int nsamples;
} store_priv;

static void *compactor_main(void *arg)
{
    store_priv *p = arg;
    kg_store *s = &p->pub;
    pthread_mutex_lock(&p->comp.mu);
    while (!p->comp.stop) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += s->opts.compact_interval_ms / 1000;
        ts.tv_nsec += (long)(s->opts.compact_interval_ms % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        int rc = pthread_cond_timedwait(&p->comp.cond, &p->comp.mu, &ts);
        if (p->comp.stop)
            break;
        if (rc != ETIMEDOUT)
            continue;
        pthread_mutex_unlock(&p->comp.mu);
        int64_t committed = s->ops->committed_revision(s->b);
        int64_t target = committed - s->opts.history_revisions;
        if (s->opts.history_seconds > 0) {
            /* also keep every revision made in the last history_seconds: compact only up to the newest revision
             * sampled at least that long ago (one sample per interval, oldest first) */
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            double t = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
            int old = 0; /* samples old enough form a prefix */
            while (old < p->nsamples && t - p->sample_t[old] >= (double)s->opts.history_seconds)
                old++;
            int64_t by_time = old > 0 ? p->sample_rev[old - 1] : 0;
            int drop = old > 0 ? old - 1 : 0; /* keep the newest old-enough sample for the next round */
            memmove(p->sample_t, p->sample_t + drop, (size_t)(p->nsamples - drop) * sizeof *p->sample_t);
            memmove(p->sample_rev, p->sample_rev + drop, (size_t)(p->nsamples - drop) * sizeof *p->sample_rev);
            p->nsamples -= drop;
            if (p->nsamples == KG_COMPACT_SAMPLES) { /* interval much shorter than the window: thin out */
                int k = 0;
                for (int i = 0; i < p->nsamples; i += 2, k++) {
                    p->sample_t[k] = p->sample_t[i];
                    p->sample_rev[k] = p->sample_rev[i];
                }
                p->nsamples = k;
            }
            p->sample_t[p->nsamples] = t;
            p->sample_rev[p->nsamples++] = committed;
            if (by_time < target)
                target = by_time;
        }
        if (target > s->ops->compacted_revision(s->b)) {
            KG_ERROR_DECL(e);
            if (!s->ops->compact(s->b, target, &e))
                KG_WARN("storage: compaction to %lld failed: %s", (long long)target, e.msg);
            else
                KG_V(2, "storage: compacted history up to revision %lld", (long long)target);
        }
        pthread_mutex_lock(&p->comp.mu);
    }
    pthread_mutex_unlock(&p->comp.mu);
    return NULL;
}

kg_store *kg_store_open(const char *backend, const char *dir, const kg_store_options *opts, kg_error *err)
{
    const kg_store_backend_ops *ops = NULL;
    if (backend && strcmp(backend, "sqlite") == 0)
        ops = &kg_store_sqlite_ops;
    else if (backend && strcmp(backend, "memory") == 0)
        ops = &kg_store_memory_ops;
    else if (backend && strcmp(backend, "etcd3") == 0)
        ops = &kg_store_etcd_ops;
    if (!ops) {
        kg_err_set(err, KG_EUNSUPPORTED, "unknown storage backend %s (supported: sqlite, memory, etcd3)",
                   backend ? backend : "");
        return NULL;
    }
    store_priv *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    kg_store *s = &p->pub;
    if (opts)
        s->opts = *opts;
    if (s->opts.history_revisions <= 0)
        s->opts.history_revisions = 10000;
    if (s->opts.compact_interval_ms == 0)
        s->opts.compact_interval_ms = 60000;
    if (s->opts.readers <= 0)
        s->opts.readers = 4;
    if (s->opts.watch_window <= 0)
        s->opts.watch_window = 4096;
    if (s->opts.watch_window_bytes == 0)
        s->opts.watch_window_bytes = (size_t)256 << 20;
    if (s->opts.max_batch <= 0)
        s->opts.max_batch = 1024;
    s->ops = ops;
    s->b = ops->open(s, dir, &s->opts, err);
    if (!s->b) {
        free(p);
        return NULL;
    }
    /* the backend creates s->hub once it knows the head revision */
    if (s->opts.compact_interval_ms > 0 && !ops->own_compactor) {
        p->comp.inited = true;
        pthread_mutex_init(&p->comp.mu, NULL);
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&p->comp.cond, &ca);
        pthread_condattr_destroy(&ca);
        if (pthread_create(&p->comp.th, NULL, compactor_main, p) == 0)
            p->comp.running = true;
    }
    return s;
}

void kg_store_close(kg_store *s)
{
    if (!s)
        return;
    store_priv *p = (store_priv *)s;
    if (p->comp.running) {
        pthread_mutex_lock(&p->comp.mu);
        p->comp.stop = true;
        pthread_cond_signal(&p->comp.cond);
        pthread_mutex_unlock(&p->comp.mu);
        pthread_join(p->comp.th, NULL);
    }
    if (p->comp.inited) {
        pthread_mutex_destroy(&p->comp.mu);
        pthread_cond_destroy(&p->comp.cond);
    }
    kg_watch_hub_shutdown(s->hub);
    s->ops->close(s->b);
    kg_watch_hub_free(s->hub);
    free(p);
}

int64_t kg_store_current_revision(kg_store *s) { return kg_watch_hub_head(s->hub); }
int64_t kg_store_compacted_revision(kg_store *s) { return s->ops->compacted_revision(s->b); }

bool kg_store_check(kg_store *s, kg_error *err) { return !s->ops->check || s->ops->check(s->b, err); }

bool kg_store_compact(kg_store *s, int64_t rev, kg_error *err)
{
    int64_t cur = s->ops->committed_revision(s->b);
    if (rev > cur)
        rev = cur;
    if (rev <= s->ops->compacted_revision(s->b))
        return true;
    return s->ops->compact(s->b, rev, err);
}

/* ---- encryption at rest (storage/transformer.h): values only, in the front end so every backend gets it ---- */

static bool xf_read(const kg_store *s, kg_store_kv *kv, kg_arena *a, kg_error *err)
{
    kv->stale = false;
    if (!s->opts.transformer || !kv->value)
        return true;
    const char *v;
    size_t n;
    if (!kg_transformer_from_storage(s->opts.transformer, kv->key, strlen(kv->key), kv->value, kv->value_len, a, &v, &n,
                                     &kv->stale, err))
        return kg_err_prefix(err, "decrypting %s", kv->key);
    kv->value = v;
    kv->value_len = n;
    return true;
}

/* also sets every item's stale flag (false without a transformer) */
static bool xf_read_all(const kg_store *s, kg_store_kv *items, size_t n, kg_arena *a, kg_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (!xf_read(s, &items[i], a, err))
            return false;
    return true;
}

/* the bytes to store for value; *scratch (freed by the caller) holds them when they were encrypted */
static bool xf_write(const kg_store *s, const char *key, const void **value, size_t *len, kg_arena **scratch,
                     kg_error *err)
{
    *scratch = NULL;
    if (!s->opts.transformer || !kg_transformer_applies(s->opts.transformer, key, strlen(key)))
        return true;
    kg_arena *a = malloc(sizeof *a);
    if (!a)
        abort();
    kg_arena_init(a, *len + 256);
    *scratch = a;
    const char *out;
    if (!kg_transformer_to_storage(s->opts.transformer, key, strlen(key), *value, *len, a, &out, len, err))
        return false;
    *value = out;
    return true;
}

static void scratch_free(kg_arena *a)
{
    if (a) {
        kg_arena_free(a);
        free(a);
    }
}

/* ---- reads ---- */

bool kg_store_get(kg_store *s, const char *key, kg_arena *a, kg_store_kv *out, kg_error *err)
{
    if (!check_key(key, err))
        return false;
    return s->ops->get(s->b, key, a, out, err) && xf_read(s, out, a, err);
}

#define INCONSISTENT_CONTINUE                                                                                          \
    "The provided continue parameter is too old to display a consistent list result. You can start a new list "     \
    "without the continue parameter, or use the continue token in this response to retrieve the remainder of the "    \
    "results. Continuing with the provided token results in an inconsistent list - objects that were created, "      \
    "modified, or deleted between the time the first chunk was returned and now may show up in the list."

/* Kubernetes' GetList with a predicate: keep reading the same snapshot until limit items match or the range
 * ends; the continue token resumes after the last key examined; remainingItemCount is unknown. out holds the first
 * batch on entry. */
static bool filter_pages(kg_store *s, const char *prefix, const kg_store_list_opts *opts, const char *end,
                         bool more, kg_arena *a, kg_store_list_result *out, kg_error *err)
{
    size_t limit = (size_t)opts->limit;
    size_t cap = limit ? limit : (out->n ? out->n : 1), k = 0;
    kg_store_kv *res = kg_arena_alloc(a, cap * sizeof *res);
    kg_store_kv *items = out->items;
    size_t n = out->n;
    const char *last = NULL;
    bool has_more = false;
    int64_t batch = opts->limit;
    for (;;) {
        for (size_t i = 0; i < n; i++) {
            if (limit && k == limit) {
                has_more = true;
                break;
            }
            last = items[i].key;
            if (opts->filter(opts->filter_ud, &items[i])) {
                if (k == cap) {
                    res = kg_arena_realloc(a, res, cap * sizeof *res, 2 * cap * sizeof *res);
                    cap *= 2;
                }
                res[k++] = items[i];
            }
        }
        if (has_more || !more)
            break;
        if (limit && k >= limit) {
            has_more = true;
            break;
        }
        /* read further, with growing batches when the filter is selective (as Kubernetes does, up to 10000) */
        batch = batch * 2 > 10000 ? 10000 : batch * 2;
        int64_t remaining;
        int64_t rev;
        if (!s->ops->list(s->b, last, true, end, out->revision, batch, opts->keys_only, a, &items, &n, &more,
                          &remaining, &rev, err) ||
            !xf_read_all(s, items, n, a, err))
            return false;
    }
    out->items = res;
    out->n = k;
    out->remaining = has_more ? -1 : 0;
    out->continue_token = has_more && last ? encode_continue(a, prefix, last, true, out->revision) : NULL;
    return true;
}

bool kg_store_list(kg_store *s, const char *prefix, const kg_store_list_opts *opts, kg_arena *a,
                   kg_store_list_result *out, kg_error *err)
{
    static const kg_store_list_opts none = {0};
    if (!opts)
        opts = &none;
    memset(out, 0, sizeof *out);
    if (!check_key(prefix, err))
        return false;
    if (opts->limit < 0)
        return kg_err_set(err, KG_EINVAL, "limit must not be negative");
    if (opts->revision < 0)
        return kg_err_set(err, KG_EINVAL, "invalid resource version: %lld", (long long)opts->revision);
    const char *start = prefix;
    bool after = false;
    int64_t rev = opts->revision;
    bool paging = opts->continue_token && opts->continue_token[0];
    if (paging) {
        char *st;
        int64_t crv;
        if (!decode_continue(a, opts->continue_token, prefix, &st, &after, &crv, err))
            return false;
        start = st;
        rev = crv > 0 ? crv : 0; /* a negative rv (inconsistent continuation) reads the latest state */
    }
    char *end = range_end(a, prefix);
    bool more = false;
    int64_t remaining = -1;
    if (!s->ops->list(s->b, start, after, end, rev, opts->limit, opts->keys_only, a, &out->items, &out->n, &more,
                      &remaining, &out->revision, err)) {
        if (err && err->code == KG_EGONE && paging) {
            /* like Kubernetes: 410 with a token that continues (inconsistently, rv -1) from the same key */
            out->continue_token = encode_continue(a, prefix, start, after, -1);
            kg_err_set(err, KG_EGONE, "%s", INCONSISTENT_CONTINUE);
        }
        return false;
    }
    if (!xf_read_all(s, out->items, out->n, a, err))
        return false;
    if (opts->filter)
        return filter_pages(s, prefix, opts, end, more, a, out, err);
    if (more && out->n > 0) {
        out->continue_token = encode_continue(a, prefix, out->items[out->n - 1].key, true, out->revision);
        out->remaining = remaining;
    } else {
        out->remaining = 0;
    }
    return true;
}

/* ---- writes ---- */

static void copy_kv_from_prev(const kg_store_event *ev, kg_arena *a, kg_store_kv *out)
{
    out->key = kg_arena_strndup(a, ev->key, ev->key_len);
    out->value = ev->prev_value ? kg_arena_strndup(a, ev->prev_value, ev->prev_value_len) : NULL;
    out->value_len = ev->prev_value_len;
    out->mod_revision = ev->prev_revision;
    out->create_revision = ev->create_revision;
}

/* A backend write that also tracks the store's health: an I/O failure (disk full, EIO) marks the store failing
 * until a write succeeds again. */
static bool store_write(kg_store *s, kg_write_op op, const char *key, const void *value, size_t value_len,
                        int64_t expected, kg_store_event **ev, kg_error *err)
{
    bool ok = s->ops->write(s->b, op, key, value, value_len, expected, ev, err);
    if (ok && op != KG_WRITE_DELETE) /* deletes may still succeed on a full disk (sqlite's reserve) */
        __atomic_store_n(&s->write_failing, 0, __ATOMIC_RELAXED);
    else if (err && err->code == KG_EIO)
        __atomic_store_n(&s->write_failing, 1, __ATOMIC_RELAXED);
    return ok;
}

bool kg_store_healthy(kg_store *s)
{
    return !__atomic_load_n(&s->write_failing, __ATOMIC_RELAXED);
}

#define KG_STORE_DEFAULT_MAX_VALUE (1536u * 1024u) /* etcd's default --max-request-bytes */

static bool check_size(const kg_store *s, size_t len, kg_error *err)
{
    size_t max = s->opts.max_value_bytes ? s->opts.max_value_bytes : KG_STORE_DEFAULT_MAX_VALUE;
    if (len <= max)
        return true;
    return kg_err_set(err, KG_EINTERNAL, "etcdserver: request is too large");
}

bool kg_store_create(kg_store *s, const char *key, const void *value, size_t value_len, int64_t *out_rev,
                     kg_error *err)
{
    if (!check_key(key, err) || !check_size(s, value_len, err))
        return false;
    kg_store_event *ev = NULL;
    kg_arena *scratch;
    if (!value)
        value = "";
    if (!xf_write(s, key, &value, &value_len, &scratch, err)) {
        scratch_free(scratch);
        return false;
    }
    bool ok = store_write(s, KG_WRITE_CREATE, key, value, value_len, 0, &ev, err);
    scratch_free(scratch);
    if (!ok)
        return false;
    if (out_rev)
        *out_rev = ev->revision;
    kg_store_event_release(ev);
    return true;
}

bool kg_store_update(kg_store *s, const char *key, const void *value, size_t value_len,
                     int64_t expected_mod_revision, int64_t *out_rev, kg_error *err)
{
    if (!check_key(key, err) || !check_size(s, value_len, err))
        return false;
    kg_store_event *ev = NULL;
    kg_arena *scratch;
    if (!value)
        value = "";
    if (!xf_write(s, key, &value, &value_len, &scratch, err)) {
        scratch_free(scratch);
        return false;
    }
    bool ok = store_write(s, KG_WRITE_UPDATE, key, value, value_len, expected_mod_revision, &ev, err);
    scratch_free(scratch);
    if (!ok)
        return false;
    if (out_rev)
        *out_rev = ev->revision;
    kg_store_event_release(ev);
    return true;
}

bool kg_store_delete(kg_store *s, const char *key, int64_t expected_mod_revision, kg_arena *a,
                     kg_store_kv *deleted, int64_t *out_rev, kg_error *err)
{
    if (!check_key(key, err))
        return false;
    kg_store_event *ev = NULL;
    if (!store_write(s, KG_WRITE_DELETE, key, NULL, 0, expected_mod_revision, &ev, err))
        return false;
    if (out_rev)
        *out_rev = ev->revision;
    bool ok = true;
    if (deleted && a) {
        copy_kv_from_prev(ev, a, deleted);
        ok = xf_read(s, deleted, a, err);
    }
    kg_store_event_release(ev);
    return ok;
}

bool kg_store_guaranteed_update(kg_store *s, const char *key, bool allow_create, kg_store_update_fn fn, void *ud,
                                kg_arena *a, kg_store_kv *out, kg_error *err)
{
    if (!check_key(key, err))
        return false;
    unsigned seed = (unsigned)(uintptr_t)&seed ^ (unsigned)time(NULL);
    for (int attempt = 0; attempt < 1000; attempt++) {
        if (attempt >= 2) {
            /* Writers racing on one key all read the same revision and only one of each group commit wins;
             * a short randomized backoff keeps the losers from starving */
            int64_t cap_us = attempt >= 9 ? 10000 : (int64_t)50 << attempt;
            seed = seed * 1103515245u + 12345u;
            struct timespec ts = {0, (long)((seed >> 8) % (unsigned)cap_us) * 1000L};
            nanosleep(&ts, NULL);
        }
        kg_store_kv cur = {0};
        KG_ERROR_DECL(gerr);
        bool exists = s->ops->get(s->b, key, a, &cur, &gerr) && xf_read(s, &cur, a, &gerr);
        if (!exists) {
            if (gerr.code != KG_ENOTFOUND || !allow_create) {
                if (err)
                    *err = gerr;
                return false;
            }
            cur.key = key;
            cur.value = NULL;
            cur.value_len = 0;
        }
        const void *nv = NULL;
        size_t nlen = 0;
        if (!fn(ud, &cur, a, &nv, &nlen, err))
            return false;
        if (!nv)
            nv = "";
        if (!check_size(s, nlen, err))
            return false;
        if (exists && !cur.stale && nlen == cur.value_len && memcmp(nv, cur.value, nlen) == 0) {
            if (out)
                *out = cur;
            return true;
        }
        kg_store_event *ev = NULL;
        KG_ERROR_DECL(werr);
        const void *sv = nv;
        size_t slen = nlen;
        kg_arena *scratch;
        if (!xf_write(s, key, &sv, &slen, &scratch, &werr)) {
            scratch_free(scratch);
            if (err)
                *err = werr;
            return false;
        }
        bool ok = exists ? store_write(s, KG_WRITE_UPDATE, key, sv, slen, cur.mod_revision, &ev, &werr)
                         : store_write(s, KG_WRITE_CREATE, key, sv, slen, 0, &ev, &werr);
        scratch_free(scratch);
        if (ok) {
            if (out) {
                out->key = kg_arena_strdup(a, key);
                out->value = kg_arena_strndup(a, nv, nlen);
                out->value_len = nlen;
                out->stale = false;
                out->mod_revision = ev->revision;
                out->create_revision = ev->create_revision;
            }
            kg_store_event_release(ev);
            return true;
        }
        if (werr.code != KG_ECONFLICT && werr.code != KG_EEXIST && werr.code != KG_ENOTFOUND) {
            if (err)
                *err = werr;
            return false;
        }
        KG_V(4, "storage: guaranteed update of %s retried after %s", key, werr.msg);
    }
    return kg_err_set(err, KG_ECONFLICT, "guaranteed update of %s: still conflicting after 1000 attempts", key);
}
