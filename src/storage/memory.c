/* Memory backend ("memory"): the storage contract of storage.h held entirely in process memory.
 *
 * What it is for. `kgate check` evaluates manifests offline through the same write pipeline as the server and
 * needs a store with dry-run persistence (a later object sees the earlier ones: namespaces, quotas, name
 * conflicts), and unit tests of the write pipeline need a store that costs nothing to open and never fsyncs.
 * Open it with kg_store_open("memory", dir, opts, &err); dir is ignored (NULL or "" are fine) and nothing ever
 * touches the disk.
 *
 * Guarantees (the same as the sqlite backend, checked by tests/storage/test_storage_contract.c run against both):
 *   - one global revision, dense: a fresh store is at revision 1, every successful create/update/delete takes the
 *     next one, a failed write takes none; KG_EEXIST / KG_ENOTFOUND / KG_ECONFLICT as documented in storage.h;
 *   - get and list in key (byte) order; list at an older revision (a consistent snapshot, also for continue
 *     tokens), limit with more/remaining, keys_only; KG_EGONE below the compacted revision, KG_ETIMEOUT above the
 *     current one;
 *   - watch replay from any revision >= the compacted one (the history callback of the watch hub), events
 *     published to the hub in commit order before the write returns;
 *   - compaction to C keeps exactly what states at revisions >= C and events after C need. Besides the
 *     front end's background compactor (history_revisions, history_seconds, compact_interval_ms, as for sqlite),
 *     when background compaction is on and purely count-based (history_seconds 0) a write that finds the history
 *     twice as long as history_revisions compacts it back to history_revisions at once, so the event log stays
 *     bounded even between compactor ticks. With compact_interval_ms < 0 nothing is compacted unless asked.
 *
 * What it does not do: durability. Everything is lost on kg_store_close or when the process exits; "the write
 * returns after it is durable" only means "after it is visible to every later read and watch". There is no
 * group commit, no reader pool (readers/max_batch are ignored) and no size limit other than memory.
 *
 * Data structures.
 *   - keys: a skip list (expected O(log n) lookup, insert and delete; ordered iteration from a lower bound),
 *     one node per key that is live or still has history (a deleted key stays as a tombstone until compaction
 *     passes its delete);
 *   - each node keeps its versions: the committed events that wrote it (ADDED/MODIFIED, DELETED as tombstone), in
 *     revision order; the state at revision R is the newest version with revision <= R. Versions are the same
 *     refcounted kg_store_event objects the watch hub and the event log hold, so a value is not copied per holder;
 *   - the event log: one event per revision in (compacted, committed], a deque indexed by revision, for watch
 *     replay (O(1) to locate the start, a scan of the revisions after it).
 *   Costs: get O(log n); write O(log n) amortized; list O(log n + keys examined) (remaining counts the rest of the
 *   range, as sqlite's count(*) does); compaction O(k log n) for k compacted revisions.
 *
 * Thread safety: one pthread rwlock for the whole store (readers share it, each write holds it exclusively,
 * including the publish to the watch hub so events reach the hub in revision order); the committed and compacted
 * revisions are also kept in atomics for the lock-free accessors. The watch hub calls the history callback
 * without holding its own locks, so the lock order is always store lock, then hub locks. */
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "storage/storage_internal.h"

#define MEM_MAX_LEVEL 16 /* p = 1/4: ample for 4^16 keys */

typedef struct mnode {
    char *key;
    const kg_store_event **ver; /* versions in revision order; each holds one reference */
    size_t nver, cap;
    int level;
    struct mnode *next[]; /* level pointers */
} mnode;

typedef struct mem {
    kg_store *s;
    pthread_rwlock_t lock;
    mnode *head; /* sentinel with MEM_MAX_LEVEL levels */
    int level;   /* levels in use */
    uint64_t rng;
    size_t nkeys; /* nodes (live keys and tombstones) */

    /* event log: the event of revision r (compacted < r <= committed) is log[log_off + (r - compacted - 1)] */
    const kg_store_event **log;
    size_t log_off, log_n, log_cap;

    int64_t history_revisions;
    bool bound_inline; /* compact on write when the log reaches twice history_revisions */

    atomic_llong committed;
    atomic_llong compacted;
} mem;

/* ---- skip list ---- */

static int random_level(mem *m)
{
    /* xorshift64*, under the write lock */
    uint64_t x = m->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    m->rng = x;
    uint64_t r = x * 2685821657736338717ULL;
    int lvl = 1;
    while (lvl < MEM_MAX_LEVEL && (r & 3) == 0) {
        lvl++;
        r >>= 2;
    }
    return lvl;
}

static mnode *node_new(int level, const char *key)
{
    mnode *n = calloc(1, sizeof *n + (size_t)level * sizeof n->next[0]);
    if (!n)
        abort();
    n->level = level;
    if (key) {
        n->key = strdup(key);
        if (!n->key)
            abort();
    }
    return n;
}

static void node_free(mnode *n)
{
    for (size_t i = 0; i < n->nver; i++)
        kg_store_event_release(n->ver[i]);
    free(n->ver);
    free(n->key);
    free(n);
}

/* The first node with key >= key (> key when after); NULL at the end. If update is given, it receives the last
 * node before that position on each level. */
static mnode *seek(const mem *m, const char *key, bool after, mnode **update)
{
    mnode *x = m->head;
    for (int i = m->level - 1; i >= 0; i--) {
        for (;;) {
            mnode *nx = x->next[i];
            if (!nx)
                break;
            int c = strcmp(nx->key, key);
            if (c < 0 || (after && c == 0))
                x = nx;
            else
                break;
        }
        if (update)
            update[i] = x;
    }
    return x->next[0];
}

static mnode *find(const mem *m, const char *key, mnode **update)
{
    mnode *n = seek(m, key, false, update);
    return n && strcmp(n->key, key) == 0 ? n : NULL;
}

static mnode *insert(mem *m, const char *key, mnode **update)
{
    int lvl = random_level(m);
    if (lvl > m->level) {
        for (int i = m->level; i < lvl; i++)
            update[i] = m->head;
        m->level = lvl;
    }
    mnode *n = node_new(lvl, key);
    for (int i = 0; i < lvl; i++) {
        n->next[i] = update[i]->next[i];
        update[i]->next[i] = n;
    }
    m->nkeys++;
    return n;
}

static void unlink_node(mem *m, mnode *n)
{
    mnode *update[MEM_MAX_LEVEL];
    mnode *f = find(m, n->key, update);
    if (f != n)
        return;
    for (int i = 0; i < m->level; i++) {
        if (update[i]->next[i] != n)
            break;
        update[i]->next[i] = n->next[i];
    }
    while (m->level > 1 && !m->head->next[m->level - 1])
        m->level--;
    m->nkeys--;
    node_free(n);
}

/* ---- versions ---- */

/* The version visible at revision at (live: not a delete), or NULL. */
static const kg_store_event *version_at(const mnode *n, int64_t at)
{
    for (size_t i = n->nver; i-- > 0;) {
        const kg_store_event *ev = n->ver[i];
        if (ev->revision <= at)
            return ev->type == KG_STORE_DELETED ? NULL : ev;
    }
    return NULL;
}

static void push_version(mnode *n, const kg_store_event *ev)
{
    if (n->nver == n->cap) {
        size_t cap = n->cap ? 2 * n->cap : 2;
        const kg_store_event **v = realloc(n->ver, cap * sizeof *v);
        if (!v)
            abort();
        n->ver = v;
        n->cap = cap;
    }
    kg_store_event_retain(ev);
    n->ver[n->nver++] = ev;
}

/* Drop what no state at a revision >= c needs: versions older than the one visible at c, and that one too when
 * it is a delete. Returns true when the node has nothing left. */
static bool prune_versions(mnode *n, int64_t c)
{
    size_t keep_from = 0;
    for (size_t i = n->nver; i-- > 0;) {
        if (n->ver[i]->revision <= c) {
            keep_from = n->ver[i]->type == KG_STORE_DELETED ? i + 1 : i;
            break;
        }
    }
    if (keep_from > 0) {
        for (size_t i = 0; i < keep_from; i++)
            kg_store_event_release(n->ver[i]);
        memmove(n->ver, n->ver + keep_from, (n->nver - keep_from) * sizeof *n->ver);
        n->nver -= keep_from;
    }
    return n->nver == 0;
}

/* ---- event log ---- */

static void log_push(mem *m, const kg_store_event *ev)
{
    if (m->log_off + m->log_n == m->log_cap) {
        if (m->log_off > 0 && m->log_off >= m->log_cap / 2) {
            memmove(m->log, m->log + m->log_off, m->log_n * sizeof *m->log);
            m->log_off = 0;
        } else {
            size_t cap = m->log_cap ? 2 * m->log_cap : 1024;
            const kg_store_event **l = realloc(m->log, cap * sizeof *l);
            if (!l)
                abort();
            m->log = l;
            m->log_cap = cap;
        }
    }
    kg_store_event_retain(ev);
    m->log[m->log_off + m->log_n++] = ev;
}

static const kg_store_event *log_at(const mem *m, int64_t rev)
{
    return m->log[m->log_off + (size_t)(rev - atomic_load(&m->compacted) - 1)];
}

/* ---- compaction (write lock held) ---- */

static void compact_locked(mem *m, int64_t c)
{
    int64_t from = atomic_load(&m->compacted);
    int64_t cur = atomic_load(&m->committed);
    if (c > cur)
        c = cur;
    if (c <= from)
        return;
    for (int64_t r = from + 1; r <= c; r++) {
        const kg_store_event *ev = log_at(m, r);
        mnode *n = find(m, ev->key, NULL);
        if (n && prune_versions(n, c))
            unlink_node(m, n);
    }
    size_t k = (size_t)(c - from);
    for (size_t i = 0; i < k; i++)
        kg_store_event_release(m->log[m->log_off + i]);
    m->log_off += k;
    m->log_n -= k;
    if (m->log_n == 0)
        m->log_off = 0;
    atomic_store(&m->compacted, c);
}

/* ---- reads ---- */

static void kv_from_event(const kg_store_event *ev, bool keys_only, kg_arena *a, kg_store_kv *out)
{
    out->key = kg_arena_strndup(a, ev->key, ev->key_len);
    if (keys_only) {
        out->value = NULL;
        out->value_len = 0;
    } else {
        out->value = kg_arena_strndup(a, ev->value ? ev->value : "", ev->value_len);
        out->value_len = ev->value_len;
    }
    out->mod_revision = ev->revision;
    out->create_revision = ev->create_revision;
}

static bool mem_get(void *bp, const char *key, kg_arena *a, kg_store_kv *out, kg_error *err)
{
    mem *m = bp;
    pthread_rwlock_rdlock(&m->lock);
    mnode *n = find(m, key, NULL);
    const kg_store_event *ev = n ? version_at(n, INT64_MAX) : NULL;
    if (ev)
        kv_from_event(ev, false, a, out);
    pthread_rwlock_unlock(&m->lock);
    if (!ev)
        return kg_err_set(err, KG_ENOTFOUND, "key not found: %s", key);
    return true;
}

static bool in_range(const char *key, const char *end)
{
    return !end || !*end || strcmp(key, end) < 0;
}

static bool mem_list(void *bp, const char *start, bool after, const char *end, int64_t rev, int64_t limit,
                     bool keys_only, kg_arena *a, kg_store_kv **items, size_t *n, bool *more, int64_t *remaining,
                     int64_t *list_rev, kg_error *err)
{
    mem *m = bp;
    *items = NULL;
    *n = 0;
    *more = false;
    *remaining = -1;
    pthread_rwlock_rdlock(&m->lock);
    int64_t cur = atomic_load(&m->committed), compact = atomic_load(&m->compacted);
    if (rev > cur) {
        pthread_rwlock_unlock(&m->lock);
        return kg_err_set(err, KG_ETIMEOUT, "Too large resource version: %lld, current: %lld", (long long)rev,
                          (long long)cur);
    }
    if (rev != 0 && rev < compact) {
        pthread_rwlock_unlock(&m->lock);
        return kg_err_set(err, KG_EGONE, "The resourceVersion for the provided list is too old.");
    }
    int64_t at = rev == 0 ? cur : rev;
    size_t cap = limit > 0 && limit < 4096 ? (size_t)limit : 256, k = 0;
    kg_store_kv *v = kg_arena_alloc(a, cap * sizeof *v);
    mnode *x = seek(m, start, after, NULL);
    for (; x && in_range(x->key, end); x = x->next[0]) {
        const kg_store_event *ev = version_at(x, at);
        if (!ev)
            continue;
        if (limit > 0 && k == (size_t)limit) {
            *more = true;
            break;
        }
        if (k == cap) {
            v = kg_arena_realloc(a, v, cap * sizeof *v, 2 * cap * sizeof *v);
            cap *= 2;
        }
        kv_from_event(ev, keys_only, a, &v[k++]);
    }
    if (*more) {
        int64_t rem = 0; /* x is the first key after the page present at the snapshot */
        for (; x && in_range(x->key, end); x = x->next[0])
            if (version_at(x, at))
                rem++;
        *remaining = rem;
    }
    pthread_rwlock_unlock(&m->lock);
    *items = v;
    *n = k;
    *list_rev = at;
    return true;
}

/* watch replay: events after after_rev with key in [start, end), in revision order (kg_history_fn) */
static bool mem_history(void *bp, int64_t after_rev, const char *start, const char *end, int max, kg_store_event **out,
                        int *n, int64_t *last_rev, kg_error *err)
{
    mem *m = bp;
    *n = 0;
    pthread_rwlock_rdlock(&m->lock);
    int64_t cur = atomic_load(&m->committed), compact = atomic_load(&m->compacted);
    if (after_rev < compact) {
        pthread_rwlock_unlock(&m->lock);
        return kg_err_set(err, KG_EGONE, "too old resource version: %lld (%lld)", (long long)after_rev,
                          (long long)compact);
    }
    int k = 0;
    int64_t last = cur;
    for (int64_t r = after_rev + 1; r <= cur && k < max; r++) {
        const kg_store_event *ev = log_at(m, r);
        if (strcmp(ev->key, start) >= 0 && in_range(ev->key, end)) {
            kg_store_event_retain(ev);
            out[k++] = (kg_store_event *)ev;
            if (k == max)
                last = r;
        }
    }
    pthread_rwlock_unlock(&m->lock);
    *n = k;
    *last_rev = last;
    return true;
}

/* ---- writes ---- */

static bool mem_write(void *bp, kg_write_op op, const char *key, const void *value, size_t value_len, int64_t expected,
                      kg_store_event **out, kg_error *err)
{
    mem *m = bp;
    if (value_len > INT_MAX) /* the same limit as sqlite, so both backends accept the same writes */
        return kg_err_set(err, KG_ETOOLARGE, "value of %zu bytes is too large", value_len);
    pthread_rwlock_wrlock(&m->lock);
    mnode *update[MEM_MAX_LEVEL];
    mnode *n = find(m, key, update);
    const kg_store_event *cur = n ? version_at(n, INT64_MAX) : NULL;
    bool ok = false;
    if (op == KG_WRITE_CREATE && cur) {
        kg_err_set(err, KG_EEXIST, "key exists: %s", key);
    } else if (op != KG_WRITE_CREATE && !cur) {
        kg_err_set(err, KG_ENOTFOUND, "key not found: %s", key);
    } else if (op != KG_WRITE_CREATE && expected != 0 && expected != cur->revision) {
        kg_err_set(err, KG_ECONFLICT,
                   "the object has been modified; please apply your changes to the latest version and try again");
    } else {
        ok = true;
    }
    if (!ok) {
        pthread_rwlock_unlock(&m->lock);
        return false;
    }
    int64_t r = atomic_load(&m->committed) + 1;
    size_t klen = strlen(key);
    kg_store_event *ev;
    if (op == KG_WRITE_CREATE)
        ev = kg_event_new(KG_STORE_ADDED, r, r, 0, key, klen, value, value_len, NULL, 0);
    else
        ev = kg_event_new(op == KG_WRITE_UPDATE ? KG_STORE_MODIFIED : KG_STORE_DELETED, r, cur->create_revision,
                          cur->revision, key, klen, op == KG_WRITE_UPDATE ? value : NULL, value_len,
                          cur->value ? cur->value : "", cur->value_len);
    if (!n)
        n = insert(m, key, update);
    push_version(n, ev);
    log_push(m, ev);
    atomic_store(&m->committed, r);
    /* publish before the caller is released (a watcher sees a write before its reply), in revision order */
    kg_store_event_retain(ev);
    kg_store_event *pub = ev; /* the hub may swap it for a decrypted copy */
    kg_watch_hub_publish(m->s->hub, &pub, 1);
    if (m->bound_inline && r - atomic_load(&m->compacted) >= 2 * m->history_revisions)
        compact_locked(m, r - m->history_revisions);
    pthread_rwlock_unlock(&m->lock);
    *out = ev;
    return true;
}

static bool mem_compact(void *bp, int64_t rev, kg_error *err)
{
    (void)err;
    mem *m = bp;
    pthread_rwlock_wrlock(&m->lock);
    compact_locked(m, rev);
    pthread_rwlock_unlock(&m->lock);
    return true;
}

static int64_t mem_committed(void *bp)
{
    return atomic_load(&((mem *)bp)->committed);
}
static int64_t mem_compacted(void *bp)
{
    return atomic_load(&((mem *)bp)->compacted);
}

/* ---- open / close ---- */

static void mem_close(void *bp)
{
    mem *m = bp;
    if (!m)
        return;
    for (mnode *x = m->head, *nx; x; x = nx) {
        nx = x->next[0];
        node_free(x);
    }
    for (size_t i = 0; i < m->log_n; i++)
        kg_store_event_release(m->log[m->log_off + i]);
    free(m->log);
    pthread_rwlock_destroy(&m->lock);
    free(m);
}

static void *mem_open(kg_store *s, const char *dir, const kg_store_options *opts, kg_error *err)
{
    (void)dir;
    (void)err;
    mem *m = calloc(1, sizeof *m);
    if (!m)
        abort();
    m->s = s;
    pthread_rwlock_init(&m->lock, NULL);
    m->head = node_new(MEM_MAX_LEVEL, NULL);
    m->level = 1;
    m->rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)m;
    if (!m->rng)
        m->rng = 1;
    m->history_revisions = opts->history_revisions > 0 ? opts->history_revisions : 10000;
    m->bound_inline = opts->compact_interval_ms > 0 && opts->history_seconds <= 0;
    /* a fresh store is at revision 1 with nothing compacted before it, like sqlite (and etcd) */
    atomic_init(&m->committed, 1);
    atomic_init(&m->compacted, 1);
    s->hub = kg_watch_hub_new(opts->watch_window, opts->watch_window_bytes, 1, mem_history, m);
    kg_watch_hub_set_transformer(s->hub, opts->transformer);
    KG_V(2, "storage: opened an in-memory store (nothing is written to disk)");
    return m;
}

const kg_store_backend_ops kg_store_memory_ops = {
    .name = "memory",
    .open = mem_open,
    .close = mem_close,
    .committed_revision = mem_committed,
    .compacted_revision = mem_compacted,
    .get = mem_get,
    .list = mem_list,
    .write = mem_write,
    .compact = mem_compact,
};
