/* etcd3 backend: the storage contract over an etcd v3 cluster, spoken through etcd's JSON gateway (POST /v3/kv/...,
 * /v3/watch; keys and values base64, int64 as strings) with kgate's one HTTP client (src/client, libcurl). Several
 * kgate processes may open the same etcd: etcd assigns the revisions and decides every conflict, no state that
 * matters is held here.
 *
 * Mapping (as kube-apiserver's pkg/storage/etcd3):
 *   key          "/registry/<rest>" is stored as "<--etcd-prefix>/<rest>" (default prefix "/registry": identical)
 *   create       txn  mod_revision(key) == 0           -> put;                       else: KG_EEXIST
 *   update       txn  mod_revision(key) == expected    -> put (prev_kv);             else range(key): absent ->
 *                     (expected 0: create_revision > 0)                              KG_ENOTFOUND, else KG_ECONFLICT
 *   delete       the same compare                      -> delete_range (prev_kv)
 *   get / list   range (linearizable), lists at a pinned revision with limit; count gives remainingItemCount
 *   revision     etcd's revision: resourceVersion = mod_revision, list resourceVersion = the pinned revision
 *   watch        one etcd watch per store on the whole prefix (prev_kv, progress_notify, hasleader) feeds the
 *                watch hub, so every replica's watchers (and the caches built on them) follow etcd, whoever wrote.
 *                A write returns once its own event came back through that watch (read-your-writes for watchers).
 *                Watchers older than the hub's ring replay through a one-shot etcd watch (history).
 *   compaction   kube-apiserver's protocol on the key "compact_rev_key" (every compaction_interval, one replica
 *                compacts to the revision the previous tick saw); compacted revisions give KG_EGONE.
 *   errors       connection refused: next member (--etcd-servers order); etcd's "request is too large" ->
 *                KG_ETOOLARGE; compacted -> KG_EGONE; future revision -> KG_ETIMEOUT; anything else KG_EIO
 *                (a 5xx Status) quickly, never a hang past request_timeout_ms. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base64.h"
#include "base/buf.h"
#include "base/log.h"
#include "client/client.h"
#include "json/json.h"
#include "storage/storage_internal.h"

#define EK_LANES 16 /* HTTP clients per member, each keeping up to 4 idle connections: 64 callers keep theirs */
#define EK_MAX_BODY (256u << 20)   /* largest answer accepted (a list of big objects) */
#define EK_WATCH_TIMEOUT_MS 300000 /* a watch stream is re-opened (from its last revision) this often */
#define EK_COMPACT_KEY "compact_rev_key"

typedef struct ek {
    kg_store *s;
    char *prefix; /* normalised: "/registry" (no trailing slash) */
    size_t plen;
    char **urls;
    int nmembers;
    kg_client **clients; /* nmembers * EK_LANES */
    atomic_int member;   /* the member requests go to first */
    atomic_uint lane;
    int64_t timeout_ms;
    int64_t compact_interval_ms;

    atomic_llong seen;      /* highest revision etcd reported in any header */
    atomic_llong compacted; /* highest revision known to be compacted */
    atomic_bool reachable;  /* the last request reached etcd */

    /* the watch feeding the hub */
    pthread_t watcher;
    bool watcher_running;
    kg_client_cancel *wcancel;
    pthread_mutex_t mu; /* stop, head waits */
    pthread_cond_t cond;
    bool stop;

    /* keys written with a lease of ttl_s (--event-ttl) */
    char **ttl_prefixes;
    int64_t ttl_s;

    /* the compactor (compact_rev_key protocol) */
    pthread_t compactor;
    bool compactor_running;
    kg_client_cancel *ccancel;
} ek;

/* ---- small helpers ---- */

static int64_t jint(const kg_json *o, const char *k)
{
    kg_json *v = kg_json_get(o, k);
    if (!v)
        return 0;
    if (v->type == KG_JSON_INT)
        return v->u.i;
    if (v->type == KG_JSON_STRING)
        return strtoll(v->u.s, NULL, 10);
    return 0;
}

static bool jbool(const kg_json *o, const char *k)
{
    kg_json *v = kg_json_get(o, k);
    return v && v->type == KG_JSON_BOOL && v->b;
}

static void seen_rev(ek *b, int64_t rev)
{
    int64_t cur = atomic_load(&b->seen);
    while (rev > cur && !atomic_compare_exchange_weak(&b->seen, &cur, rev))
        ;
}

static void note_compacted(ek *b, int64_t rev)
{
    int64_t cur = atomic_load(&b->compacted);
    while (rev > cur && !atomic_compare_exchange_weak(&b->compacted, &cur, rev))
        ;
}

/* "/registry<rest>" -> "<prefix><rest>" in b64 (standard alphabet, padded, as the gateway wants) */
static bool b64key(ek *b, kg_buf *out, const char *key, size_t klen, kg_error *err)
{
    if (klen < 9 || memcmp(key, "/registry", 9) != 0)
        return kg_err_set(err, KG_EINVAL, "etcd3 storage: key %.*s is not under /registry", (int)klen, key);
    char stack[512];
    size_t n = b->plen + klen - 9;
    char *raw = n <= sizeof stack ? stack : malloc(n);
    if (!raw)
        abort();
    memcpy(raw, b->prefix, b->plen);
    memcpy(raw + b->plen, key + 9, klen - 9);
    kg_buf_putc(out, '"');
    kg_base64_encode_buf(out, raw, n, 0);
    kg_buf_putc(out, '"');
    if (raw != stack)
        free(raw);
    return true;
}

/* decode a base64 field into a; NULL if absent (empty string when present but empty) */
static const char *b64field(kg_arena *a, const kg_json *o, const char *k, size_t *len)
{
    *len = 0;
    kg_json *v = kg_json_get(o, k);
    if (!v || v->type != KG_JSON_STRING)
        return NULL;
    size_t n = 0;
    char *d = kg_base64_decode(a, v->u.s, v->len, 0, &n, NULL);
    if (!d)
        return NULL;
    *len = n;
    return d;
}

/* the store key of an etcd key: "<prefix><rest>" -> "/registry<rest>"; NULL when outside the prefix */
static char *store_key(ek *b, kg_arena *a, const kg_json *kv, size_t *klen)
{
    size_t n;
    const char *k = b64field(a, kv, "key", &n);
    if (!k || n < b->plen || memcmp(k, b->prefix, b->plen) != 0)
        return NULL;
    *klen = 9 + n - b->plen;
    char *out = kg_arena_alloc(a, *klen + 1);
    memcpy(out, "/registry", 9);
    memcpy(out + 9, k + b->plen, n - b->plen);
    out[*klen] = 0;
    return out;
}

static bool kv_from_json(ek *b, kg_arena *a, const kg_json *kv, bool keys_only, kg_store_kv *out)
{
    size_t klen;
    out->key = store_key(b, a, kv, &klen);
    if (!out->key)
        return false;
    out->value = NULL;
    out->value_len = 0;
    if (!keys_only) {
        out->value = b64field(a, kv, "value", &out->value_len);
        if (!out->value)
            out->value = kg_arena_strdup(a, "");
    }
    out->mod_revision = jint(kv, "mod_revision");
    out->create_revision = jint(kv, "create_revision");
    return true;
}

/* ---- one request, with failover ---- */

typedef enum ek_fail { EK_OK, EK_REFUSED, EK_ANSWERED, EK_OTHER } ek_fail;

/* Map an etcd error answer ({"error","message","code"}) to a kg_error. */
static void map_etcd_error(ek *b, const char *msg, int64_t code, kg_error *err)
{
    if (strstr(msg, "required revision has been compacted")) {
        kg_err_set(err, KG_EGONE, "%s", msg);
    } else if (strstr(msg, "required revision is a future revision")) {
        kg_err_set(err, KG_ETIMEOUT, "%s", msg);
    } else if (strstr(msg, "request is too large") || strstr(msg, "received message larger than max")) {
        /* etcd's --max-request-bytes (1.5 MiB by default) bounds an encoded object; past it plus gRPC's 512 KiB
         * allowance the gateway's own gRPC client refuses first (ResourceExhausted): the same condition */
        kg_err_set(err, KG_ETOOLARGE, "etcdserver: request is too large");
    } else {
        (void)b;
        kg_err_set(err, KG_EIO, "etcd: %s (code %lld)", msg, (long long)code);
    }
}

/* POST path with body to etcd; the parsed 200 answer, or NULL with err. Connection failures move on to the next
 * member (nothing was sent, so even a write is safe to send again). */
static kg_json *ek_call_t(ek *b, kg_arena *a, const char *path, const char *body, size_t body_len, int64_t timeout_ms,
                          kg_error *err)
{
    static const char *const hdrs[] = {"Content-Type: application/json", "Accept: application/json"};
    int first = atomic_load(&b->member);
    unsigned lane = atomic_fetch_add_explicit(&b->lane, 1, memory_order_relaxed) % EK_LANES;
    KG_ERROR_DECL(last);
    for (int i = 0; i < b->nmembers; i++) {
        int m = (first + i) % b->nmembers;
        kg_client *c = b->clients[m * EK_LANES + (int)lane];
        kg_client_request req = {.method = "POST",
                                 .path = path,
                                 .headers = hdrs,
                                 .nheaders = 2,
                                 .body = body,
                                 .body_len = body_len,
                                 .timeout_ms = timeout_ms};
        kg_client_response resp;
        kg_client_result r = kg_client_do(c, a, &req, &resp, &last);
        if (r == KG_CLIENT_CONNECT || r == KG_CLIENT_TLS || r == KG_CLIENT_UNAVAILABLE) {
            KG_V(3, "etcd: %s: %s; trying the next member", b->urls[m], last.msg);
            continue;
        }
        atomic_store(&b->reachable, true);
        if (m != first)
            atomic_store(&b->member, m);
        if (r == KG_CLIENT_OK || r == KG_CLIENT_HTTP_ERROR) {
            KG_ERROR_DECL(jerr);
            kg_json *j = kg_json_parse(a, resp.body, resp.body_len, &jerr);
            if (r == KG_CLIENT_OK && j) {
                kg_json *h = kg_json_get(j, "header");
                if (h)
                    seen_rev(b, jint(h, "revision"));
                return j;
            }
            const char *msg = j ? kg_json_get_str(j, "message") : NULL;
            if (!msg && j)
                msg = kg_json_get_str(j, "error");
            map_etcd_error(b, msg ? msg : resp.body, j ? jint(j, "code") : 0, err);
            return NULL;
        }
        /* timeout or a broken connection: the outcome of a write is unknown; say so, do not resend */
        if (r == KG_CLIENT_TIMEOUT)
            kg_err_set(err, KG_ETIMEOUT, "etcd: %s", last.msg);
        else
            kg_err_set(err, KG_EIO, "etcd: %s", last.msg);
        return NULL;
    }
    atomic_store(&b->reachable, false);
    kg_err_set(err, KG_EIO, "etcd: no member reachable (%s)", last.msg);
    return NULL;
}

static kg_json *ek_call(ek *b, kg_arena *a, const char *path, kg_buf *body, kg_error *err)
{
    return ek_call_t(b, a, path, body->data, body->len, b->timeout_ms, err);
}

/* ---- reads ---- */

static bool ek_get(void *bp, const char *key, kg_arena *a, kg_store_kv *out, kg_error *err)
{
    ek *b = bp;
    kg_buf q = KG_BUF_INIT;
    kg_buf_puts(&q, "{\"key\":");
    bool ok = b64key(b, &q, key, strlen(key), err);
    kg_buf_puts(&q, "}");
    kg_json *j = ok ? ek_call(b, a, "/v3/kv/range", &q, err) : NULL;
    kg_buf_free(&q);
    if (!j)
        return false;
    kg_json *kv = kg_json_at(kg_json_get(j, "kvs"), 0);
    if (!kv || !kv_from_json(b, a, kv, false, out))
        return kg_err_set(err, KG_ENOTFOUND, "key not found: %s", key);
    return true;
}

static bool ek_list(void *bp, const char *start, bool after, const char *end, int64_t rev, int64_t limit,
                    bool keys_only, kg_arena *a, kg_store_kv **items, size_t *n, bool *more, int64_t *remaining,
                    int64_t *list_rev, kg_error *err)
{
    ek *b = bp;
    *items = NULL;
    *n = 0;
    *more = false;
    *remaining = -1;
    size_t sl = strlen(start);
    char *st = kg_arena_alloc(a, sl + 2);
    memcpy(st, start, sl + 1);
    if (after)
        st[sl++] = 0; /* the first key after start: start + "\x00" */
    kg_buf q = KG_BUF_INIT;
    kg_buf_puts(&q, "{\"key\":");
    bool ok = b64key(b, &q, st, sl, err);
    if (ok && end[0]) {
        kg_buf_puts(&q, ",\"range_end\":");
        ok = b64key(b, &q, end, strlen(end), err);
    }
    if (limit > 0)
        kg_buf_printf(&q, ",\"limit\":\"%lld\"", (long long)limit);
    if (rev > 0)
        kg_buf_printf(&q, ",\"revision\":\"%lld\"", (long long)rev);
    if (keys_only)
        kg_buf_puts(&q, ",\"keys_only\":true");
    kg_buf_puts(&q, "}");
    KG_ERROR_DECL(e);
    kg_json *j = ok ? ek_call(b, a, "/v3/kv/range", &q, &e) : NULL;
    kg_buf_free(&q);
    if (!j) {
        if (!ok) {
            if (err)
                *err = e;
        } else if (e.code == KG_EGONE) {
            kg_err_set(err, KG_EGONE, "The resourceVersion for the provided list is too old.");
        } else if (e.code == KG_ETIMEOUT && strstr(e.msg, "future revision")) {
            kg_err_set(err, KG_ETIMEOUT, "Too large resource version: %lld, current: %lld", (long long)rev,
                       (long long)atomic_load(&b->seen));
        } else if (err) {
            *err = e;
        }
        return false;
    }
    /* a range at a past revision reports the current revision in its header: the snapshot is the one asked for */
    *list_rev = rev > 0 ? rev : jint(kg_json_get(j, "header"), "revision");
    kg_json *kvs = kg_json_get(j, "kvs");
    size_t cnt = kg_json_is(kvs, KG_JSON_ARRAY) ? kvs->len : 0;
    kg_store_kv *v = kg_arena_alloc(a, (cnt ? cnt : 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < cnt; i++)
        if (kv_from_json(b, a, kvs->u.items[i], keys_only, &v[k]))
            k++;
    *items = v;
    *n = k;
    *more = jbool(j, "more");
    int64_t count = jint(j, "count");
    *remaining = *more ? count - (int64_t)cnt : 0;
    return true;
}

/* ---- writes ---- */

static bool ttl_key(ek *b, const char *key)
{
    for (char **p = b->ttl_prefixes; p && *p; p++)
        if (strncmp(key, *p, strlen(*p)) == 0)
            return true;
    return false;
}

/* A lease of ttl seconds for one write. kube-apiserver's lease manager shares one lease between the writes of a short
 * window; kgate grants one per write because etcd deletes all keys of an expiring lease in one revision, and the
 * watch hub carries one event per revision: with one key per lease every expiry is its own revision. 0 on failure. */
static int64_t lease_for_write(ek *b, kg_error *err)
{
    kg_arena a;
    kg_arena_init(&a, 1024);
    kg_buf q = KG_BUF_INIT;
    kg_buf_printf(&q, "{\"TTL\":\"%lld\"}", (long long)b->ttl_s);
    kg_json *j = ek_call(b, &a, "/v3/lease/grant", &q, err);
    kg_buf_free(&q);
    int64_t id = j ? jint(j, "ID") : 0;
    if (j && !id)
        kg_err_set(err, KG_EIO, "etcd: lease grant answered no ID");
    kg_arena_free(&a);
    return id;
}

/* Wait (bounded) until the hub has published revision rev: a write returns after its event went out to watchers,
 * like the SQLite backend, so a client that writes and then watches from the answer's resourceVersion (or reads
 * a watch-fed cache) sees its own write. */
static void wait_published(ek *b, int64_t rev)
{
    if (kg_watch_hub_head(b->s->hub) >= rev)
        return;
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    int64_t ms = b->timeout_ms;
    dl.tv_sec += ms / 1000;
    dl.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&b->mu);
    while (kg_watch_hub_head(b->s->hub) < rev && !b->stop)
        if (pthread_cond_timedwait(&b->cond, &b->mu, &dl) == ETIMEDOUT)
            break;
    bool late = kg_watch_hub_head(b->s->hub) < rev && !b->stop;
    pthread_mutex_unlock(&b->mu);
    if (late)
        KG_WARN("etcd: revision %lld written but not yet seen on the watch after %lld ms", (long long)rev,
                (long long)ms);
}

static bool ek_write_once(ek *b, kg_write_op op, const char *key, const void *value, size_t value_len, int64_t expected,
                          int64_t lease, kg_store_event **evp, kg_error *err);

static bool ek_write(void *bp, kg_write_op op, const char *key, const void *value, size_t value_len, int64_t expected,
                     kg_store_event **evp, kg_error *err)
{
    ek *b = bp;
    if (op == KG_WRITE_DELETE || b->ttl_s <= 0 || !ttl_key(b, key))
        return ek_write_once(b, op, key, value, value_len, expected, 0, evp, err);
    int64_t lease = lease_for_write(b, err);
    return lease && ek_write_once(b, op, key, value, value_len, expected, lease, evp, err);
}

static bool ek_write_once(ek *b, kg_write_op op, const char *key, const void *value, size_t value_len, int64_t expected,
                          int64_t lease, kg_store_event **evp, kg_error *err)
{
    size_t klen = strlen(key);
    kg_buf q = KG_BUF_INIT;
    kg_buf k = KG_BUF_INIT;
    if (!b64key(b, &k, key, klen, err)) {
        kg_buf_free(&k);
        return false;
    }
    kg_buf_puts(&q, "{\"compare\":[{\"key\":");
    kg_buf_append(&q, k.data, k.len);
    if (op == KG_WRITE_CREATE || expected != 0)
        kg_buf_printf(&q, ",\"target\":\"MOD\",\"result\":\"EQUAL\",\"mod_revision\":\"%lld\"}]",
                      (long long)(op == KG_WRITE_CREATE ? 0 : expected));
    else /* unconditional: the key must exist */
        kg_buf_puts(&q, ",\"target\":\"CREATE\",\"result\":\"GREATER\",\"create_revision\":\"0\"}]");
    kg_buf_puts(&q, ",\"success\":[{");
    if (op == KG_WRITE_DELETE) {
        kg_buf_puts(&q, "\"request_delete_range\":{\"key\":");
        kg_buf_append(&q, k.data, k.len);
        kg_buf_puts(&q, ",\"prev_kv\":true}}]");
    } else {
        kg_buf_puts(&q, "\"request_put\":{\"key\":");
        kg_buf_append(&q, k.data, k.len);
        kg_buf_puts(&q, ",\"value\":\"");
        kg_base64_encode_buf(&q, value, value_len, 0);
        kg_buf_putc(&q, '"');
        if (lease)
            kg_buf_printf(&q, ",\"lease\":\"%lld\"", (long long)lease);
        kg_buf_printf(&q, "%s}}]", op == KG_WRITE_UPDATE ? ",\"prev_kv\":true" : "");
    }
    if (op != KG_WRITE_CREATE) {
        kg_buf_puts(&q, ",\"failure\":[{\"request_range\":{\"key\":");
        kg_buf_append(&q, k.data, k.len);
        kg_buf_puts(&q, ",\"keys_only\":true}}]");
    }
    kg_buf_puts(&q, "}");
    kg_buf_free(&k);
    kg_arena a;
    kg_arena_init(&a, 4096);
    kg_json *j = ek_call(b, &a, "/v3/kv/txn", &q, err);
    kg_buf_free(&q);
    bool ok = false;
    if (!j)
        goto out;
    int64_t rev = jint(kg_json_get(j, "header"), "revision");
    kg_json *r0 = kg_json_at(kg_json_get(j, "responses"), 0);
    if (!jbool(j, "succeeded")) {
        if (op == KG_WRITE_CREATE)
            kg_err_set(err, KG_EEXIST, "key exists: %s", key);
        else if (!kg_json_at(kg_json_get(kg_json_get(r0, "response_range"), "kvs"), 0))
            kg_err_set(err, KG_ENOTFOUND, "key not found: %s", key);
        else
            kg_err_set(err, KG_ECONFLICT,
                       "the object has been modified; please apply your changes to the latest version and try again");
        goto out;
    }
    kg_json *prev = NULL;
    if (op == KG_WRITE_UPDATE)
        prev = kg_json_get(kg_json_get(r0, "response_put"), "prev_kv");
    else if (op == KG_WRITE_DELETE)
        prev = kg_json_at(kg_json_get(kg_json_get(r0, "response_delete_range"), "prev_kvs"), 0);
    size_t plen = 0;
    const char *pv = prev ? b64field(&a, prev, "value", &plen) : NULL;
    if (prev && !pv)
        pv = "";
    int64_t crev = op == KG_WRITE_CREATE ? rev : jint(prev, "create_revision");
    int64_t prev_rev = jint(prev, "mod_revision");
    if (op == KG_WRITE_CREATE)
        *evp = kg_event_new(KG_STORE_ADDED, rev, rev, 0, key, klen, value, value_len, NULL, 0);
    else if (op == KG_WRITE_UPDATE)
        *evp = kg_event_new(KG_STORE_MODIFIED, rev, crev, prev_rev, key, klen, value, value_len, pv, plen);
    else
        *evp = kg_event_new(KG_STORE_DELETED, rev, crev, prev_rev, key, klen, NULL, 0, pv ? pv : "", plen);
    ok = true;
    wait_published(b, rev);
out:
    kg_arena_free(&a);
    return ok;
}

/* ---- compaction ---- */

static bool ek_compact(void *bp, int64_t rev, kg_error *err)
{
    ek *b = bp;
    kg_arena a;
    kg_arena_init(&a, 1024);
    kg_buf q = KG_BUF_INIT;
    kg_buf_printf(&q, "{\"revision\":\"%lld\"}", (long long)rev);
    KG_ERROR_DECL(e);
    kg_json *j = ek_call(b, &a, "/v3/kv/compaction", &q, &e);
    kg_buf_free(&q);
    kg_arena_free(&a);
    if (!j && e.code != KG_EGONE) { /* already compacted further: fine */
        if (err)
            *err = e;
        return false;
    }
    note_compacted(b, rev);
    return true;
}

/* kube-apiserver's compactor (pkg/storage/etcd3/compact.go): the version of compact_rev_key is a logical clock
 * shared by every replica; whoever bumps it compacts to the revision its previous tick saw, the others learn the
 * version and skip. Keeps between one and two intervals of history, whatever the number of replicas. */
static bool compact_tick(ek *b, int64_t *local_version, int64_t *prev_rev)
{
    kg_arena a;
    kg_arena_init(&a, 1024);
    kg_buf q = KG_BUF_INIT;
    kg_buf key = KG_BUF_INIT;
    kg_base64_encode_buf(&key, EK_COMPACT_KEY, strlen(EK_COMPACT_KEY), 0);
    char val[32];
    int vn = snprintf(val, sizeof val, "%lld", (long long)*prev_rev);
    kg_buf_printf(&q,
                  "{\"compare\":[{\"key\":\"%s\",\"target\":\"VERSION\",\"result\":\"EQUAL\",\"version\":\"%lld\"}],"
                  "\"success\":[{\"request_put\":{\"key\":\"%s\",\"value\":\"",
                  key.data, (long long)*local_version, key.data);
    kg_base64_encode_buf(&q, val, (size_t)vn, 0);
    kg_buf_printf(&q, "\"}}],\"failure\":[{\"request_range\":{\"key\":\"%s\"}}]}", key.data);
    KG_ERROR_DECL(e);
    kg_json *j = ek_call(b, &a, "/v3/kv/txn", &q, &e);
    kg_buf_free(&q);
    kg_buf_free(&key);
    bool ok = j != NULL;
    if (!j) {
        KG_WARN("etcd: compaction: %s", e.msg);
    } else if (jbool(j, "succeeded")) {
        int64_t target = *prev_rev;
        *local_version += 1;
        *prev_rev = jint(kg_json_get(j, "header"), "revision");
        if (target > 0) {
            if (ek_compact(b, target, &e))
                KG_V(2, "etcd: compacted to revision %lld", (long long)target);
            else
                KG_WARN("etcd: compaction to %lld failed: %s", (long long)target, e.msg);
        }
    } else {
        kg_json *kv = kg_json_at(
            kg_json_get(kg_json_get(kg_json_at(kg_json_get(j, "responses"), 0), "response_range"), "kvs"), 0);
        *local_version = jint(kv, "version");
        size_t n;
        const char *v = kv ? b64field(&a, kv, "value", &n) : NULL;
        if (v) /* another replica compacted to this revision */
            note_compacted(b, strtoll(v, NULL, 10));
        *prev_rev = jint(kg_json_get(j, "header"), "revision");
    }
    kg_arena_free(&a);
    return ok;
}

static void *compactor_main(void *arg)
{
    ek *b = arg;
    pthread_setname_np(pthread_self(), "kg-etcd-compact");
    int64_t local_version = 0, prev_rev = 0;
    pthread_mutex_lock(&b->mu);
    while (!b->stop) {
        struct timespec dl;
        clock_gettime(CLOCK_MONOTONIC, &dl);
        dl.tv_sec += b->compact_interval_ms / 1000;
        dl.tv_nsec += (long)(b->compact_interval_ms % 1000) * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
        while (!b->stop && pthread_cond_timedwait(&b->cond, &b->mu, &dl) != ETIMEDOUT)
            ;
        if (b->stop)
            break;
        pthread_mutex_unlock(&b->mu);
        compact_tick(b, &local_version, &prev_rev);
        pthread_mutex_lock(&b->mu);
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

/* ---- watch stream parsing ---- */

/* One etcd event -> a store event (NULL when outside the prefix). */
static kg_store_event *event_from_json(ek *b, kg_arena *a, const kg_json *e)
{
    kg_json *kv = kg_json_get(e, "kv");
    kg_json *pkv = kg_json_get(e, "prev_kv");
    const char *type = kg_json_get_str(e, "type");
    size_t klen;
    char *key = kv ? store_key(b, a, kv, &klen) : NULL;
    if (!key)
        return NULL;
    int64_t mod = jint(kv, "mod_revision");
    size_t vlen = 0, plen = 0;
    const char *pv = pkv ? b64field(a, pkv, "value", &plen) : NULL;
    if (pkv && !pv)
        pv = "";
    if (type && strcmp(type, "DELETE") == 0)
        return kg_event_new(KG_STORE_DELETED, mod, jint(pkv, "create_revision"), jint(pkv, "mod_revision"), key, klen,
                            NULL, 0, pv ? pv : "", plen);
    const char *v = b64field(a, kv, "value", &vlen);
    int64_t crev = jint(kv, "create_revision");
    if (crev == mod)
        return kg_event_new(KG_STORE_ADDED, mod, crev, 0, key, klen, v ? v : "", vlen, NULL, 0);
    return kg_event_new(KG_STORE_MODIFIED, mod, crev, jint(pkv, "mod_revision"), key, klen, v ? v : "", vlen, pv, plen);
}

/* Line-splitting state of one watch stream: the gateway sends one JSON object per line. */
typedef struct wstream {
    ek *b;
    kg_buf line;
    bool (*on_msg)(struct wstream *w, const kg_json *result, const kg_json *error);
    /* feed (the hub) */
    int64_t next_rev; /* revision to resume from */
    bool created;
    bool canceled;
    int64_t compact_revision;
    kg_error err;
    /* history */
    const char *start, *end;
    int64_t target;
    kg_store_event **out;
    int max, n;
    int64_t last;
    bool done;
} wstream;

static bool ws_data(void *ud, const char *p, size_t n)
{
    wstream *w = ud;
    if (!n) /* the client's idle tick (NULL, 0): nothing to read */
        return true;
    for (;;) {
        const char *nl = memchr(p, '\n', n);
        if (!nl) {
            kg_buf_append(&w->line, p, n);
            return true;
        }
        kg_buf_append(&w->line, p, (size_t)(nl - p));
        n -= (size_t)(nl - p) + 1;
        p = nl + 1;
        if (w->line.len == 0)
            continue;
        kg_arena a;
        kg_arena_init(&a, w->line.len * 2 + 1024);
        KG_ERROR_DECL(jerr);
        kg_json *j = kg_json_parse(&a, w->line.data, w->line.len, &jerr);
        bool go = true;
        if (!j) {
            kg_err_set(&w->err, KG_EIO, "etcd watch: bad message: %s", jerr.msg);
            go = false;
        } else {
            go = w->on_msg(w, kg_json_get(j, "result"), kg_json_get(j, "error"));
        }
        kg_buf_reset(&w->line);
        kg_arena_free(&a);
        if (!go)
            return false;
    }
}

static bool ws_error(wstream *w, const kg_json *error)
{
    const char *m = kg_json_get_str(error, "message");
    kg_err_set(&w->err, KG_EIO, "etcd watch: %s", m ? m : "error");
    return false;
}

static bool stopping(ek *b)
{
    pthread_mutex_lock(&b->mu);
    bool s = b->stop;
    pthread_mutex_unlock(&b->mu);
    return s;
}

/* the feed: events to the hub, in revision order */
static bool feed_msg(wstream *w, const kg_json *res, const kg_json *error)
{
    if (error)
        return ws_error(w, error);
    if (!res)
        return true;
    ek *b = w->b;
    if (jbool(res, "created"))
        w->created = true;
    if (jbool(res, "canceled")) {
        w->canceled = true;
        w->compact_revision = jint(res, "compact_revision");
        const char *reason = kg_json_get_str(res, "cancel_reason");
        kg_err_set(&w->err, w->compact_revision ? KG_EGONE : KG_EIO, "etcd watch canceled: %s",
                   reason ? reason : "compacted");
        return false;
    }
    kg_json *evs = kg_json_get(res, "events");
    if (kg_json_is(evs, KG_JSON_ARRAY) && evs->len > 0) {
        kg_arena a;
        kg_arena_init(&a, 4096);
        kg_store_event *batch[64];
        size_t nb = 0;
        for (size_t i = 0; i < evs->len; i++) {
            kg_store_event *ev = event_from_json(b, &a, evs->u.items[i]);
            if (!ev)
                continue;
            if (ev->revision < w->next_rev) { /* already published (a duplicate after a reconnect) */
                kg_store_event_release(ev);
                continue;
            }
            w->next_rev = ev->revision + 1;
            seen_rev(b, ev->revision);
            batch[nb++] = ev;
            if (nb == 64) {
                kg_watch_hub_publish(b->s->hub, batch, nb);
                nb = 0;
            }
        }
        kg_watch_hub_publish(b->s->hub, batch, nb);
        kg_arena_free(&a);
        pthread_mutex_lock(&b->mu);
        pthread_cond_broadcast(&b->cond);
        pthread_mutex_unlock(&b->mu);
    }
    return !stopping(b);
}

/* Open a watch on [key, end) from rev; runs until the stream ends, on_msg returns false, or cancel fires. */
static kg_client_result run_watch(ek *b, wstream *w, const char *key, const char *end, int64_t rev,
                                  kg_client_cancel *cancel, int64_t timeout_ms, kg_error *err)
{
    static const char *const hdrs[] = {"Content-Type: application/json", "Grpc-Metadata-hasleader: true"};
    kg_arena a;
    kg_arena_init(&a, 1024);
    kg_buf q = KG_BUF_INIT;
    kg_buf_puts(&q, "{\"create_request\":{\"key\":");
    b64key(b, &q, key, strlen(key), err);
    kg_buf_puts(&q, ",\"range_end\":");
    b64key(b, &q, end, strlen(end), err);
    kg_buf_printf(&q, ",\"start_revision\":\"%lld\",\"prev_kv\":true,\"progress_notify\":true}}", (long long)rev);
    int m = atomic_load(&b->member);
    kg_client *c = b->clients[m * EK_LANES];
    kg_client_request req = {.method = "POST",
                             .path = "/v3/watch",
                             .headers = hdrs,
                             .nheaders = 2,
                             .body = q.data,
                             .body_len = q.len,
                             .timeout_ms = timeout_ms,
                             .on_data = ws_data,
                             .on_data_ud = w,
                             .cancel = cancel};
    kg_client_response resp;
    kg_client_result r = kg_client_do(c, &a, &req, &resp, err);
    if (r == KG_CLIENT_CONNECT || r == KG_CLIENT_TLS) {
        atomic_store(&b->reachable, false);
        if (b->nmembers > 1) { /* fail over: the next member for the next attempt */
            int next = (m + 1) % b->nmembers;
            atomic_compare_exchange_strong(&b->member, &m, next);
        }
    }
    kg_buf_free(&q);
    kg_arena_free(&a);
    return r;
}

/* The current revision (a linearizable range of one absent key). */
static bool current_revision(ek *b, int64_t *rev, kg_error *err)
{
    kg_arena a;
    kg_arena_init(&a, 1024);
    kg_buf q = KG_BUF_INIT;
    kg_buf_puts(&q, "{\"key\":");
    b64key(b, &q, "/registry/health", 16, err);
    kg_buf_puts(&q, ",\"keys_only\":true}");
    kg_json *j = ek_call(b, &a, "/v3/kv/range", &q, err);
    kg_buf_free(&q);
    if (j)
        *rev = jint(kg_json_get(j, "header"), "revision");
    kg_arena_free(&a);
    return j != NULL;
}

static void *watcher_main(void *arg)
{
    ek *b = arg;
    pthread_setname_np(pthread_self(), "kg-etcd-watch");
    wstream w = {.b = b, .line = KG_BUF_INIT, .on_msg = feed_msg};
    w.next_rev = kg_watch_hub_head(b->s->hub) + 1;
    int backoff_ms = 50;
    while (!stopping(b)) {
        w.created = w.canceled = false;
        w.compact_revision = 0;
        kg_buf_reset(&w.line);
        KG_ERROR_DECL(e);
        run_watch(b, &w, "/registry/", "/registry0", w.next_rev, b->wcancel, EK_WATCH_TIMEOUT_MS, &e);
        if (stopping(b))
            break;
        if (w.canceled && w.compact_revision > 0) {
            /* the history this replica had not yet seen is gone: its watchers must re-list (410), as a cacher
             * whose watch fell behind the compaction does */
            note_compacted(b, w.compact_revision - 1);
            int64_t cur = 0;
            KG_ERROR_DECL(ce);
            if (current_revision(b, &cur, &ce)) {
                KG_WARN("etcd: watch from revision %lld was compacted (at %lld); resuming from %lld",
                        (long long)w.next_rev, (long long)w.compact_revision, (long long)cur);
                kg_watch_hub_skip_to(b->s->hub, cur);
                w.next_rev = cur + 1;
            }
        } else if (w.created) {
            backoff_ms = 50; /* a working stream ended (timeout, member gone): reconnect at once */
            continue;
        } else {
            KG_V(2, "etcd: watch: %s", w.err.msg[0] ? w.err.msg : e.msg);
        }
        pthread_mutex_lock(&b->mu);
        struct timespec dl;
        clock_gettime(CLOCK_MONOTONIC, &dl);
        dl.tv_nsec += (long)backoff_ms * 1000000L;
        while (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
        while (!b->stop && pthread_cond_timedwait(&b->cond, &b->mu, &dl) != ETIMEDOUT)
            ;
        pthread_mutex_unlock(&b->mu);
        backoff_ms = backoff_ms * 2 > 1000 ? 1000 : backoff_ms * 2;
    }
    kg_buf_free(&w.line);
    return NULL;
}

/* ---- history for watchers older than the hub's ring: a one-shot etcd watch over every key of the store (so it
 * reaches the hub's head even when nothing under the watcher's prefix changed), filtered here ---- */

static bool hist_msg(wstream *w, const kg_json *res, const kg_json *error)
{
    if (error)
        return ws_error(w, error);
    if (!res)
        return true;
    if (jbool(res, "canceled")) {
        w->canceled = true;
        w->compact_revision = jint(res, "compact_revision");
        return false;
    }
    kg_json *evs = kg_json_get(res, "events");
    size_t ne = kg_json_is(evs, KG_JSON_ARRAY) ? evs->len : 0;
    kg_arena a;
    kg_arena_init(&a, 4096);
    for (size_t i = 0; i < ne && !w->done; i++) {
        kg_json *kv = kg_json_get(evs->u.items[i], "kv");
        int64_t rev = jint(kv, "mod_revision");
        size_t klen;
        char *key = kv ? store_key(w->b, &a, kv, &klen) : NULL;
        if (key && strcmp(key, w->start) >= 0 && (!w->end[0] || strcmp(key, w->end) < 0)) {
            w->out[w->n++] = event_from_json(w->b, &a, evs->u.items[i]);
            if (w->n == w->max) {
                w->last = rev;
                w->done = true;
            }
        }
        if (!w->done && rev >= w->target) {
            w->last = rev;
            w->done = true;
        }
    }
    kg_arena_free(&a);
    return !w->done;
}

static bool ek_history(void *bp, int64_t after_rev, const char *start, const char *end, int max, kg_store_event **out,
                       int *n, int64_t *last_rev, kg_error *err)
{
    ek *b = bp;
    *n = 0;
    wstream w = {.b = b, .line = KG_BUF_INIT, .on_msg = hist_msg, .start = start, .end = end, .out = out, .max = max};
    w.target = kg_watch_hub_head(b->s->hub);
    KG_ERROR_DECL(e);
    /* history arrives at once; silence after it means every revision up to the target is outside the store */
    run_watch(b, &w, "/registry/", "/registry0", after_rev + 1, NULL, 2000, &e);
    kg_buf_free(&w.line);
    if (w.canceled) {
        for (int i = 0; i < w.n; i++)
            kg_store_event_release(out[i]);
        note_compacted(b, w.compact_revision - 1);
        return kg_err_set(err, KG_EGONE, "too old resource version: %lld (%lld)", (long long)after_rev,
                          (long long)(w.compact_revision - 1));
    }
    if (!w.done && e.code != KG_ETIMEOUT) {
        for (int i = 0; i < w.n; i++)
            kg_store_event_release(out[i]);
        if (err)
            *err = w.err.msg[0] ? w.err : e;
        return false;
    }
    *n = w.n;
    *last_rev = w.done ? w.last : w.target;
    return true;
}

/* kube-apiserver's etcd health check: a linearizable read of "<prefix>/health" within 2 s; any answer is healthy */
static bool ek_check(void *bp, kg_error *err)
{
    ek *b = bp;
    kg_arena a;
    kg_arena_init(&a, 1024);
    kg_buf q = KG_BUF_INIT;
    kg_buf_puts(&q, "{\"key\":");
    b64key(b, &q, "/registry/health", 16, err);
    kg_buf_puts(&q, ",\"keys_only\":true}");
    bool ok = ek_call_t(b, &a, "/v3/kv/range", q.data, q.len, 2000, err) != NULL;
    kg_buf_free(&q);
    kg_arena_free(&a);
    return ok;
}

/* ---- open / close ---- */

static int64_t ek_committed(void *bp)
{
    ek *b = bp;
    int64_t head = kg_watch_hub_head(b->s->hub), seen = atomic_load(&b->seen);
    return head > seen ? head : seen;
}

static int64_t ek_compacted(void *bp)
{
    return atomic_load(&((ek *)bp)->compacted);
}

static void ek_free(ek *b)
{
    if (b->clients)
        for (int i = 0; i < b->nmembers * EK_LANES; i++)
            kg_client_free(b->clients[i]);
    free(b->clients);
    for (int i = 0; i < b->nmembers; i++)
        free(b->urls[i]);
    free(b->urls);
    kg_client_cancel_free(b->wcancel);
    kg_client_cancel_free(b->ccancel);
    for (char **p = b->ttl_prefixes; p && *p; p++)
        free(*p);
    free(b->ttl_prefixes);
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->cond);
    free(b->prefix);
    free(b);
}

static void ek_close(void *bp)
{
    ek *b = bp;
    if (!b)
        return;
    pthread_mutex_lock(&b->mu);
    b->stop = true;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->mu);
    kg_client_cancel_fire(b->wcancel);
    kg_client_cancel_fire(b->ccancel);
    if (b->watcher_running)
        pthread_join(b->watcher, NULL);
    if (b->compactor_running)
        pthread_join(b->compactor, NULL);
    ek_free(b);
}

/* "/registry", "registry/", "/a//b/" -> "/registry", "/registry", "/a/b" (path.Join("/", p) without the slash
 * kube-apiserver then appends: kgate keys carry it) */
static char *normalise_prefix(const char *p)
{
    if (!p || !*p)
        p = "/registry";
    size_t n = strlen(p);
    char *out = malloc(n + 2);
    if (!out)
        abort();
    size_t k = 0;
    out[k++] = '/';
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '/' && out[k - 1] == '/')
            continue;
        out[k++] = p[i];
    }
    while (k > 1 && out[k - 1] == '/')
        k--;
    if (k == 1)
        k = 0; /* "/" alone: keys go to the root */
    out[k] = 0;
    return out;
}

static void *ek_open(kg_store *s, const char *dir, const kg_store_options *opts, kg_error *err)
{
    (void)dir;
    const char *servers = opts->etcd.servers;
    if (!servers || !*servers) {
        kg_err_set(err, KG_EINVAL, "etcd3 storage needs --etcd-servers");
        return NULL;
    }
    ek *b = calloc(1, sizeof *b);
    if (!b)
        abort();
    b->s = s;
    pthread_mutex_init(&b->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&b->cond, &ca);
    pthread_condattr_destroy(&ca);
    b->prefix = normalise_prefix(opts->etcd.prefix);
    b->plen = strlen(b->prefix);
    b->timeout_ms = opts->etcd.request_timeout_ms > 0 ? opts->etcd.request_timeout_ms : 10000;
    b->compact_interval_ms = opts->etcd.compaction_interval_ms == 0 ? 300000 : opts->etcd.compaction_interval_ms;
    b->ttl_s = opts->etcd.ttl_seconds;
    if (b->ttl_s > 0 && opts->etcd.ttl_prefixes) {
        size_t n = 0;
        while (opts->etcd.ttl_prefixes[n])
            n++;
        b->ttl_prefixes = calloc(n + 1, sizeof *b->ttl_prefixes);
        if (!b->ttl_prefixes)
            abort();
        for (size_t i = 0; i < n; i++)
            if (!(b->ttl_prefixes[i] = strdup(opts->etcd.ttl_prefixes[i])))
                abort();
    }
    b->wcancel = kg_client_cancel_new();
    b->ccancel = kg_client_cancel_new();
    atomic_init(&b->seen, 0);
    atomic_init(&b->compacted, 0);
    atomic_init(&b->reachable, true);
    atomic_init(&b->member, 0);
    atomic_init(&b->lane, 0);
    /* members */
    for (const char *p = servers; *p;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        while (n && (*p == ' ')) {
            p++;
            n--;
        }
        if (n) {
            b->urls = realloc(b->urls, (size_t)(b->nmembers + 1) * sizeof *b->urls);
            if (!b->urls)
                abort();
            char *u = strndup(p, n);
            if (!u)
                abort();
            if (!strstr(u, "://")) { /* "host:port" as etcdctl takes it */
                char *full = malloc(n + 8);
                if (!full)
                    abort();
                snprintf(full, n + 8, "http://%s", u);
                free(u);
                u = full;
            }
            b->urls[b->nmembers++] = u;
        }
        p += n + (c ? 1 : 0);
        if (!c)
            break;
    }
    if (b->nmembers == 0) {
        kg_err_set(err, KG_EINVAL, "--etcd-servers: no server in \"%s\"", servers);
        ek_free(b);
        return NULL;
    }
    b->clients = calloc((size_t)b->nmembers * EK_LANES, sizeof *b->clients);
    if (!b->clients)
        abort();
    for (int m = 0; m < b->nmembers; m++) {
        for (int l = 0; l < EK_LANES; l++) {
            kg_client_config cfg = {.server = b->urls[m],
                                    .ca_file = opts->etcd.ca_file,
                                    .cert_file = opts->etcd.cert_file,
                                    .key_file = opts->etcd.key_file,
                                    .timeout_ms = b->timeout_ms,
                                    .max_body = EK_MAX_BODY,
                                    .user_agent = "kgate-etcd3"};
            b->clients[m * EK_LANES + l] = kg_client_new(&cfg, err);
            if (!b->clients[m * EK_LANES + l]) {
                ek_free(b);
                return NULL;
            }
        }
    }
    /* where the hub starts: the current revision; watchers from older revisions replay through etcd */
    int64_t rev = 0;
    if (!current_revision(b, &rev, err)) {
        kg_err_prefix(err, "etcd3 storage: cannot reach %s", servers);
        ek_free(b);
        return NULL;
    }
    s->hub = kg_watch_hub_new(opts->watch_window, opts->watch_window_bytes, rev, ek_history, b);
    kg_watch_hub_set_transformer(s->hub, opts->transformer);
    if (pthread_create(&b->watcher, NULL, watcher_main, b) != 0) {
        kg_err_set(err, KG_EINTERNAL, "cannot start the etcd watch thread");
        kg_watch_hub_free(s->hub);
        s->hub = NULL;
        ek_free(b);
        return NULL;
    }
    b->watcher_running = true;
    if (b->compact_interval_ms > 0 && pthread_create(&b->compactor, NULL, compactor_main, b) == 0)
        b->compactor_running = true;
    KG_V(2, "storage: etcd3 at %s, prefix %s, revision %lld", servers, b->prefix[0] ? b->prefix : "/", (long long)rev);
    return b;
}

const kg_store_backend_ops kg_store_etcd_ops = {
    .name = "etcd3",
    .open = ek_open,
    .close = ek_close,
    .committed_revision = ek_committed,
    .compacted_revision = ek_compacted,
    .get = ek_get,
    .list = ek_list,
    .write = ek_write,
    .compact = ek_compact,
    .own_compactor = true,
    .check = ek_check,
};
