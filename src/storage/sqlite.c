/* SQLite backend: WAL mode, synchronous=FULL, one writer thread doing group commit, a pool of reader
 * connections (WAL readers never wait for the writer).
 *
 * Schema (PRAGMA user_version 2); every value is stored once, like etcd's MVCC store:
 *   history(rev PK, key, type, value, create_rev,  one row per change: the version it wrote (value NULL for a
 *           prev_rev)                              delete) and the version it replaced (prev_rev, 0 for a create)
 *   kv(key PK, mod_rev, create_rev)                the current version of each live key (a history row)
 *   meta(rev, compact_rev)                         the revision counter, changed in the same transactions
 * The state at an older revision R: a key unchanged since R is its kv version (mod_rev <= R); a key changed since R
 * was at the version its first change after R replaced (absent when that change created it).
 * Compaction to C removes the versions replaced at or before C and the delete tombstones at or before C: what is
 * left is exactly what states at revisions >= C and events after C need (current versions, and the versions that
 * changes after C replaced). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "storage/reserve.h"
#include "storage/storage_internal.h"

enum {
    R_GET,
    R_META,
    R_BEGIN,
    R_COMMIT,
    R_LIST_GE,
    R_LIST_GT,
    R_COUNT_GT,
    R_CHANGED_GE,
    R_CHANGED_GT,
    R_CHANGED_COUNT_GT,
    R_HISTORY,
    R_NSTMT
};

static const char *const reader_sql[R_NSTMT] = {
    [R_GET] = "SELECT h.value, k.mod_rev, k.create_rev FROM kv k JOIN history h ON h.rev = k.mod_rev WHERE k.key = ?1",
    [R_META] = "SELECT rev, compact_rev FROM meta WHERE id = 1",
    [R_BEGIN] = "BEGIN",
    [R_COMMIT] = "COMMIT",
    [R_LIST_GE] = ("SELECT k.key, CASE WHEN ?5 THEN NULL ELSE (SELECT value FROM history WHERE rev = k.mod_rev) END, "
                  "k.mod_rev, k.create_rev FROM kv k WHERE k.key >= ?1 AND k.key < ?2 AND k.mod_rev <= ?3 "
                  "ORDER BY k.key LIMIT ?4"),
    [R_LIST_GT] = ("SELECT k.key, CASE WHEN ?5 THEN NULL ELSE (SELECT value FROM history WHERE rev = k.mod_rev) END, "
                  "k.mod_rev, k.create_rev FROM kv k WHERE k.key > ?1 AND k.key < ?2 AND k.mod_rev <= ?3 "
                  "ORDER BY k.key LIMIT ?4"),
    [R_COUNT_GT] = "SELECT count(*) FROM kv WHERE key > ?1 AND key < ?2 AND mod_rev <= ?3",
    /* the first change of each key after revision ?3 (SQLite's bare columns follow the MIN() row), keeping the
     * keys that existed at ?3 (that first change was not their creation, type 1 = ADDED); their value at ?3 is
     * the version the change replaced (prev_rev), which compaction keeps while the change is not compacted */
    [R_CHANGED_GE] = ("SELECT c.key, c.type, CASE WHEN ?5 THEN NULL ELSE (SELECT value FROM history WHERE rev = "
                     "c.prev_rev) END, c.prev_rev, c.create_rev FROM (SELECT key, type, prev_rev, create_rev, "
                     "MIN(rev) FROM history WHERE rev > ?3 AND key >= ?1 AND key < ?2 GROUP BY key) c "
                     "WHERE c.type != 1 ORDER BY c.key LIMIT ?4"),
    [R_CHANGED_GT] = ("SELECT c.key, c.type, CASE WHEN ?5 THEN NULL ELSE (SELECT value FROM history WHERE rev = "
                     "c.prev_rev) END, c.prev_rev, c.create_rev FROM (SELECT key, type, prev_rev, create_rev, "
                     "MIN(rev) FROM history WHERE rev > ?3 AND key > ?1 AND key < ?2 GROUP BY key) c "
                     "WHERE c.type != 1 ORDER BY c.key LIMIT ?4"),
    [R_CHANGED_COUNT_GT] = ("SELECT count(*) FROM (SELECT type, MIN(rev) FROM history "
                           "WHERE rev > ?3 AND key > ?1 AND key < ?2 GROUP BY key) WHERE type != 1"),
    [R_HISTORY] = ("SELECT h.rev, h.key, h.type, h.value, h.create_rev, (SELECT value FROM history p WHERE p.rev = "
                  "h.prev_rev), h.prev_rev FROM history h WHERE h.rev > ?1 AND h.key >= ?2 AND h.key < ?3 "
                  "ORDER BY h.rev LIMIT ?4"),

};

enum {
    W_BEGIN,
    W_COMMIT,
    W_ROLLBACK,
    W_GET,
    W_INSERT,
    W_UPDATE,
    W_DELETE,
    W_HISTORY,
    W_META,
    W_COMPACT_PREV,
    W_COMPACT_TOMBSTONES,
    W_META_COMPACT,
    W_NSTMT
};

/* Each value is stored once, in its history row; kv points at the current version (mod_rev). */
static const char *const writer_sql[W_NSTMT] = {
    [W_BEGIN] = "BEGIN IMMEDIATE",
    [W_COMMIT] = "COMMIT",
    [W_ROLLBACK] = "ROLLBACK",
    [W_GET] = "SELECT h.value, k.mod_rev, k.create_rev FROM kv k JOIN history h ON h.rev = k.mod_rev WHERE k.key = ?1",
    [W_INSERT] = "INSERT INTO kv(key, mod_rev, create_rev) VALUES (?1, ?2, ?2)",
    [W_UPDATE] = "UPDATE kv SET mod_rev = ?2 WHERE key = ?1",
    [W_DELETE] = "DELETE FROM kv WHERE key = ?1",
    [W_HISTORY] = "INSERT INTO history(rev, key, type, value, create_rev, prev_rev) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [W_META] = "UPDATE meta SET rev = ?1 WHERE id = 1",
    /* compacting (?1, ?2]: a version replaced by a change in that range is no longer anybody's state at a
     * revision >= ?2, and neither is a delete tombstone in it; versions still current are kept */
    [W_COMPACT_PREV] = ("DELETE FROM history WHERE rev IN (SELECT prev_rev FROM history WHERE rev > ?1 AND rev <= ?2 "
                       "AND prev_rev > 0)"),
    [W_COMPACT_TOMBSTONES] = "DELETE FROM history WHERE rev > ?1 AND rev <= ?2 AND type = 3",
    [W_META_COMPACT] = "UPDATE meta SET compact_rev = ?1 WHERE id = 1",
};

#define COMPACT_CHUNK 20000 /* most revisions removed per compaction transaction */

typedef struct reader {
    pthread_mutex_t mu;
    sqlite3 *db;
    sqlite3_stmt *st[R_NSTMT];
} reader;

typedef struct wreq {
    kg_write_op op;
    const char *key;
    const void *value;
    size_t value_len;
    int64_t expected;
    bool ok, done;
    kg_error err;
    kg_store_event *ev;
    pthread_cond_t cond; /* the caller waits on its own condition: no thundering herd of 64 waiters */
    struct wreq *next;
} wreq;

typedef struct sq {
    kg_store *s;
    char *path;
    sqlite3 *wdb;
    sqlite3_stmt *w[W_NSTMT];
    reader *readers;
    int nreaders;
    atomic_uint rr;

    pthread_t writer;
    bool writer_running;
    pthread_mutex_t qmu;
    pthread_cond_t qcond; /* writer waits for work */
    pthread_cond_t dcond; /* callers wait for completion */
    wreq *qhead, *qtail;
    bool stop;
    int64_t compact_target; /* under qmu */
    kg_error compact_err;   /* under qmu */
    uint64_t compact_fail_seq, compact_done_seq;
    int max_batch;
    kg_reserve reserve; /* writer thread only after open (reserve.h) */
    bool batch_full;    /* the last batch failed with SQLITE_FULL */

    atomic_llong committed;
    atomic_llong compacted;

} sq;

static bool sql_err(kg_error *err, sqlite3 *db, const char *what)
{
    return kg_err_set(err, KG_EIO, "sqlite: %s: %s", what, sqlite3_errmsg(db));
}

static bool exec_sql(sqlite3 *db, const char *sql, kg_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        kg_err_set(err, KG_EIO, "sqlite: %s: %s", sql, msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return false;
    }
    return true;
}

/* step a statement that returns no rows (or whose rows we ignore), then reset */
static bool step_done(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW;
}

static bool mkdirs(const char *dir, kg_error *err)
{
    char *p = strdup(dir);
    if (!p)
        abort();
    for (char *c = p + 1;; c++) {
        if (*c == '/' || *c == 0) {
            char save = *c;
            *c = 0;
            if (mkdir(p, 0700) != 0 && errno != EEXIST) {
                kg_err_set(err, KG_EIO, "create %s: %s", p, strerror(errno));
                free(p);
                return false;
            }
            *c = save;
            if (save == 0)
                break;
        }
    }
    free(p);
    return true;
}

static bool open_conn(const char *path, sqlite3 **db, kg_error *err)
{
    int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        kg_err_set(err, KG_EIO, "sqlite: open %s: %s", path, *db ? sqlite3_errmsg(*db) : sqlite3_errstr(rc));
        return false;
    }
    sqlite3_busy_timeout(*db, 10000);
    sqlite3_extended_result_codes(*db, 1);
    return true;
}

static bool prepare_all(sqlite3 *db, const char *const *sql, sqlite3_stmt **st, int n, kg_error *err)
{
    for (int i = 0; i < n; i++) {
        if (sqlite3_prepare_v3(db, sql[i], -1, SQLITE_PREPARE_PERSISTENT, &st[i], NULL) != SQLITE_OK)
            return sql_err(err, db, sql[i]);
    }
    return true;
}

/* ---- readers ---- */

static reader *reader_acquire(sq *b)
{
    unsigned start = atomic_fetch_add_explicit(&b->rr, 1, memory_order_relaxed);
    for (int i = 0; i < b->nreaders; i++) {
        reader *r = &b->readers[(start + (unsigned)i) % (unsigned)b->nreaders];
        if (pthread_mutex_trylock(&r->mu) == 0)
            return r;
    }
    reader *r = &b->readers[start % (unsigned)b->nreaders];
    pthread_mutex_lock(&r->mu);
    return r;
}

static void reader_release(reader *r)
{
    if (!sqlite3_get_autocommit(r->db)) /* an error path left a transaction open */
        sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
    pthread_mutex_unlock(&r->mu);
}

static bool read_meta(reader *r, int64_t *rev, int64_t *compact, kg_error *err)
{
    sqlite3_stmt *st = r->st[R_META];
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_reset(st);
        return sql_err(err, r->db, "read meta");
    }
    *rev = sqlite3_column_int64(st, 0);
    *compact = sqlite3_column_int64(st, 1);
    sqlite3_reset(st);
    return true;
}

static const char *col_dup(kg_arena *a, sqlite3_stmt *st, int col, size_t *len)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL) {
        *len = 0;
        return NULL;
    }
    const void *p = sqlite3_column_blob(st, col);
    int n = sqlite3_column_bytes(st, col);
    *len = (size_t)n;
    return kg_arena_strndup(a, p ? p : "", (size_t)n);
}

static bool sq_get(void *bp, const char *key, kg_arena *a, kg_store_kv *out, kg_error *err)
{
    sq *b = bp;
    reader *r = reader_acquire(b);
    sqlite3_stmt *st = r->st[R_GET];
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    bool ok = false;
    if (rc == SQLITE_ROW) {
        out->key = kg_arena_strdup(a, key);
        out->value = col_dup(a, st, 0, &out->value_len);
        if (!out->value)
            out->value = kg_arena_strdup(a, "");
        out->mod_revision = sqlite3_column_int64(st, 1);
        out->create_revision = sqlite3_column_int64(st, 2);
        ok = true;
    } else if (rc == SQLITE_DONE) {
        kg_err_set(err, KG_ENOTFOUND, "key not found: %s", key);
    } else {
        sql_err(err, r->db, "get");
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    reader_release(r);
    return ok;
}

typedef struct changed {
    const char *key;
    const char *value; /* state at the snapshot revision; NULL = absent then */
    size_t value_len;
    int64_t mod_rev, create_rev;
} changed;

/* keys changed after rev in [start, end): their state at rev, present ones only, in key order */
static bool load_changed(reader *r, const char *start, bool after, const char *end, int64_t rev, int64_t limit,
                         bool keys_only, kg_arena *a, changed **out, size_t *n, kg_error *err)
{
    sqlite3_stmt *st = r->st[after ? R_CHANGED_GT : R_CHANGED_GE];
    sqlite3_bind_text(st, 1, start, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, end, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, rev);
    sqlite3_bind_int64(st, 4, limit);
    sqlite3_bind_int(st, 5, keys_only);
    size_t cap = 16, k = 0;
    changed *v = kg_arena_alloc(a, cap * sizeof *v);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (k == cap) {
            v = kg_arena_realloc(a, v, cap * sizeof *v, 2 * cap * sizeof *v);
            cap *= 2;
        }
        changed *c = &v[k++];
        c->key = kg_arena_strndup(a, (const char *)sqlite3_column_text(st, 0), (size_t)sqlite3_column_bytes(st, 0));
        if (keys_only) {
            c->value = NULL;
            c->value_len = 0;
        } else {
            c->value = col_dup(a, st, 2, &c->value_len);
        }
        c->mod_rev = sqlite3_column_int64(st, 3);
        c->create_rev = sqlite3_column_int64(st, 4);
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE)
        return sql_err(err, r->db, "list history");
    *out = v;
    *n = k;
    return true;
}

static bool sq_list(void *bp, const char *start, bool after, const char *end, int64_t rev, int64_t limit,
                    bool keys_only, kg_arena *a, kg_store_kv **items, size_t *n, bool *more, int64_t *remaining,
                    int64_t *list_rev, kg_error *err)
{
    sq *b = bp;
    reader *r = reader_acquire(b);
    bool ok = false;
    *items = NULL;
    *n = 0;
    *more = false;
    *remaining = -1;
    int64_t cur = 0, compact = 0;
    if (!step_done(r->st[R_BEGIN])) {
        sql_err(err, r->db, "begin");
        goto out;
    }
    if (!read_meta(r, &cur, &compact, err))
        goto out;
    if (rev > cur) {
        kg_err_set(err, KG_ETIMEOUT, "Too large resource version: %lld, current: %lld", (long long)rev,
                   (long long)cur);
        goto out;
    }
    if (rev != 0 && rev < compact) {
        kg_err_set(err, KG_EGONE, "The resourceVersion for the provided list is too old.");
        goto out;
    }
    int64_t at = rev == 0 ? cur : rev;
    changed *ch = NULL;
    size_t nch = 0;
    /* at most limit+1 of them can be in this page */
    if (at < cur && !load_changed(r, start, after, end, at, limit > 0 ? limit + 1 : -1, keys_only, a, &ch, &nch, err))
        goto out;

    size_t want = limit > 0 ? (size_t)limit + 1 : SIZE_MAX; /* one more tells whether more exist */
    size_t cap = limit > 0 && limit < 4096 ? (size_t)limit + 1 : 256, k = 0;
    kg_store_kv *v = kg_arena_alloc(a, cap * sizeof *v);
    sqlite3_stmt *st = r->st[after ? R_LIST_GT : R_LIST_GE];
    sqlite3_bind_text(st, 1, start, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, end, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, at);
    sqlite3_bind_int64(st, 4, limit > 0 ? limit + 1 : -1);
    sqlite3_bind_int(st, 5, keys_only);
    size_t ci = 0;
    int rc = SQLITE_ROW;
    bool have_row = false;
    for (;;) {
        if (!have_row && rc == SQLITE_ROW) {
            rc = sqlite3_step(st);
            have_row = rc == SQLITE_ROW;
        }
        if (!have_row && ci >= nch)
            break;
        if (k == want)
            break;
        if (k == cap) {
            v = kg_arena_realloc(a, v, cap * sizeof *v, 2 * cap * sizeof *v);
            cap *= 2;
        }
        kg_store_kv *kv = &v[k];
        const char *rowkey = have_row ? (const char *)sqlite3_column_text(st, 0) : NULL;
        if (ci < nch && (!rowkey || strcmp(ch[ci].key, rowkey) < 0)) {
            kv->key = ch[ci].key;
            kv->value = ch[ci].value;
            kv->value_len = ch[ci].value_len;
            kv->mod_revision = ch[ci].mod_rev;
            kv->create_revision = ch[ci].create_rev;
            ci++;
        } else {
            kv->key = kg_arena_strndup(a, rowkey, (size_t)sqlite3_column_bytes(st, 0));
            kv->value = keys_only ? NULL : col_dup(a, st, 1, &kv->value_len);
            if (keys_only)
                kv->value_len = 0;
            else if (!kv->value)
                kv->value = kg_arena_strdup(a, "");
            kv->mod_revision = sqlite3_column_int64(st, 2);
            kv->create_revision = sqlite3_column_int64(st, 3);
            have_row = false;
        }
        k++;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        sql_err(err, r->db, "list");
        goto out;
    }
    if (limit > 0 && k > (size_t)limit) {
        k = (size_t)limit;
        *more = true;
        /* remaining after the last returned key: unchanged rows + changed keys present at the snapshot */
        const char *last = v[k - 1].key;
        sqlite3_stmt *cs = r->st[R_COUNT_GT];
        sqlite3_bind_text(cs, 1, last, -1, SQLITE_STATIC);
        sqlite3_bind_text(cs, 2, end, -1, SQLITE_STATIC);
        sqlite3_bind_int64(cs, 3, at);
        if (sqlite3_step(cs) == SQLITE_ROW)
            *remaining = sqlite3_column_int64(cs, 0);
        sqlite3_reset(cs);
        sqlite3_clear_bindings(cs);
        if (at < cur && *remaining >= 0) {
            sqlite3_stmt *hc = r->st[R_CHANGED_COUNT_GT];
            sqlite3_bind_text(hc, 1, last, -1, SQLITE_STATIC);
            sqlite3_bind_text(hc, 2, end, -1, SQLITE_STATIC);
            sqlite3_bind_int64(hc, 3, at);
            if (sqlite3_step(hc) == SQLITE_ROW)
                *remaining += sqlite3_column_int64(hc, 0);
            else
                *remaining = -1;
            sqlite3_reset(hc);
            sqlite3_clear_bindings(hc);
        }
    }
    step_done(r->st[R_COMMIT]);
    *items = v;
    *n = k;
    *list_rev = at;
    ok = true;
out:
    reader_release(r);
    return ok;
}

/* watch replay */
static bool sq_history(void *bp, int64_t after_rev, const char *start, const char *end, int max,
                       kg_store_event **out, int *n, int64_t *last_rev, kg_error *err)
{
    sq *b = bp;
    reader *r = reader_acquire(b);
    bool ok = false;
    *n = 0;
    int64_t cur = 0, compact = 0;
    if (!step_done(r->st[R_BEGIN])) {
        sql_err(err, r->db, "begin");
        goto out;
    }
    if (!read_meta(r, &cur, &compact, err))
        goto out;
    if (after_rev < compact) {
        kg_err_set(err, KG_EGONE, "too old resource version: %lld (%lld)", (long long)after_rev, (long long)compact);
        goto out;
    }
    sqlite3_stmt *st = r->st[R_HISTORY];
    sqlite3_bind_int64(st, 1, after_rev);
    sqlite3_bind_text(st, 2, start, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, end, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, max);
    int rc, k = 0;
    int64_t last = cur;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t rev = sqlite3_column_int64(st, 0);
        int type = sqlite3_column_int(st, 2);
        bool hv = sqlite3_column_type(st, 3) != SQLITE_NULL, hp = sqlite3_column_type(st, 5) != SQLITE_NULL;
        const void *val = hv ? sqlite3_column_blob(st, 3) : NULL;
        size_t vlen = hv ? (size_t)sqlite3_column_bytes(st, 3) : 0;
        const void *prev = hp ? sqlite3_column_blob(st, 5) : NULL;
        size_t plen = hp ? (size_t)sqlite3_column_bytes(st, 5) : 0;
        const char *key = (const char *)sqlite3_column_text(st, 1);
        out[k++] = kg_event_new((kg_store_event_type)type, rev, sqlite3_column_int64(st, 4),
                                sqlite3_column_int64(st, 6), key, (size_t)sqlite3_column_bytes(st, 1),
                                hv ? (val ? val : "") : NULL, vlen, hp ? (prev ? prev : "") : NULL, plen);
        if (k == max)
            last = rev;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        for (int i = 0; i < k; i++)
            kg_store_event_release(out[i]);
        sql_err(err, r->db, "history");
        goto out;
    }
    step_done(r->st[R_COMMIT]);
    *n = k;
    *last_rev = last;
    ok = true;
out:
    reader_release(r);
    return ok;
}

/* ---- writer ---- */

static bool apply_one(sq *b, wreq *q, int64_t *rev, kg_error *fatal)
{
    sqlite3_stmt *g = b->w[W_GET];
    sqlite3_bind_text(g, 1, q->key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(g);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        sqlite3_reset(g);
        return sql_err(fatal, b->wdb, "read for write");
    }
    bool exists = rc == SQLITE_ROW;
    int64_t mod = exists ? sqlite3_column_int64(g, 1) : 0;
    int64_t crev = exists ? sqlite3_column_int64(g, 2) : 0;
    q->ok = false;
    if (q->op == KG_WRITE_CREATE && exists) {
        sqlite3_reset(g);
        kg_err_set(&q->err, KG_EEXIST, "key exists: %s", q->key);
        return true;
    }
    if (q->op != KG_WRITE_CREATE && !exists) {
        sqlite3_reset(g);
        kg_err_set(&q->err, KG_ENOTFOUND, "key not found: %s", q->key);
        return true;
    }
    if (q->op != KG_WRITE_CREATE && q->expected != 0 && q->expected != mod) {
        sqlite3_reset(g);
        kg_err_set(&q->err, KG_ECONFLICT,
                   "the object has been modified; please apply your changes to the latest version and try again");
        return true;
    }
    int64_t r = *rev + 1;
    kg_store_event *ev;
    if (q->op == KG_WRITE_CREATE) {
        ev = kg_event_new(KG_STORE_ADDED, r, r, 0, q->key, strlen(q->key), q->value, q->value_len, NULL, 0);
    } else {
        const void *old = sqlite3_column_blob(g, 0);
        size_t olen = (size_t)sqlite3_column_bytes(g, 0);
        ev = kg_event_new(q->op == KG_WRITE_UPDATE ? KG_STORE_MODIFIED : KG_STORE_DELETED, r, crev, mod, q->key,
                          strlen(q->key), q->op == KG_WRITE_UPDATE ? q->value : NULL, q->value_len,
                          old ? old : "", olen);
    }
    sqlite3_reset(g);
    sqlite3_clear_bindings(g);

    sqlite3_stmt *st = b->w[q->op == KG_WRITE_CREATE ? W_INSERT : q->op == KG_WRITE_UPDATE ? W_UPDATE : W_DELETE];
    sqlite3_bind_text(st, 1, q->key, -1, SQLITE_STATIC);
    if (q->op != KG_WRITE_DELETE)
        sqlite3_bind_int64(st, 2, r);
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        kg_store_event_release(ev);
        return sql_err(fatal, b->wdb, "write");
    }
    sqlite3_stmt *h = b->w[W_HISTORY];
    sqlite3_bind_int64(h, 1, r);
    sqlite3_bind_text(h, 2, ev->key, (int)ev->key_len, SQLITE_STATIC);
    sqlite3_bind_int(h, 3, (int)ev->type);
    if (ev->value)
        sqlite3_bind_blob(h, 4, ev->value, (int)ev->value_len, SQLITE_STATIC);
    else
        sqlite3_bind_null(h, 4);
    sqlite3_bind_int64(h, 5, ev->create_revision);
    sqlite3_bind_int64(h, 6, ev->prev_revision);
    rc = sqlite3_step(h);
    sqlite3_reset(h);
    sqlite3_clear_bindings(h);
    if (rc != SQLITE_DONE) {
        kg_store_event_release(ev);
        return sql_err(fatal, b->wdb, "history");
    }
    *rev = r;
    q->ok = true;
    q->ev = ev;
    return true;
}

static void run_batch(sq *b, wreq *batch)
{
    KG_ERROR_DECL(fatal);
    int64_t rev = atomic_load(&b->committed);
    bool ok = step_done(b->w[W_BEGIN]) || sql_err(&fatal, b->wdb, "begin");
    for (wreq *q = batch; ok && q; q = q->next)
        ok = apply_one(b, q, &rev, &fatal);
    if (ok && rev != atomic_load(&b->committed)) {
        sqlite3_bind_int64(b->w[W_META], 1, rev);
        ok = step_done(b->w[W_META]) || sql_err(&fatal, b->wdb, "meta");
    }
    if (ok) {
        int rc = sqlite3_step(b->w[W_COMMIT]);
        sqlite3_reset(b->w[W_COMMIT]);
        if (rc != SQLITE_DONE)
            ok = sql_err(&fatal, b->wdb, "commit");
    }
    b->batch_full = !ok && sqlite3_errcode(b->wdb) == SQLITE_FULL;
    if (!ok) {
        if (!sqlite3_get_autocommit(b->wdb))
            step_done(b->w[W_ROLLBACK]);
        KG_ERROR("storage: write batch failed: %s", fatal.msg);
        for (wreq *q = batch; q; q = q->next) {
            if (q->ev)
                kg_store_event_release(q->ev);
            q->ev = NULL;
            q->ok = false;
            q->err = fatal;
        }
        return;
    }
    atomic_store(&b->committed, rev);
    /* publish in commit order before any caller is released, so a watcher sees a write before its reply */
    kg_store_event *evs[256];
    size_t ne = 0;
    for (wreq *q = batch; q; q = q->next) {
        if (!q->ok)
            continue;
        kg_store_event_retain(q->ev);
        evs[ne++] = q->ev;
        if (ne == 256) {
            kg_watch_hub_publish(b->s->hub, evs, ne);
            ne = 0;
        }
    }
    kg_watch_hub_publish(b->s->hub, evs, ne);
}

#define DISK_FULL_REFUSED "sqlite: database or disk is full: only deletes are accepted until space is freed"

/* The deletes of batch alone (the others fail: with refuse_others, with DISK_FULL_REFUSED; else they keep the error
 * of the failed batch). The list is relinked for run_batch and restored for the caller. */
static void run_deletes_only(sq *b, wreq *batch, bool refuse_others)
{
    size_t n = 0;
    for (wreq *q = batch; q; q = q->next)
        n++;
    wreq **all = malloc(n * sizeof *all), *dels = NULL, **tail = &dels;
    if (!all)
        abort();
    n = 0;
    for (wreq *q = batch; q; q = q->next)
        all[n++] = q;
    for (size_t i = 0; i < n; i++) {
        if (all[i]->op == KG_WRITE_DELETE) {
            *tail = all[i];
            tail = &all[i]->next;
        } else if (refuse_others) {
            all[i]->ok = false;
            kg_err_set(&all[i]->err, KG_EIO, DISK_FULL_REFUSED);
        }
    }
    *tail = NULL;
    if (dels)
        run_batch(b, dels);
    for (size_t i = 0; i + 1 < n; i++)
        all[i]->next = all[i + 1];
    all[n - 1]->next = NULL;
    free(all);
}

/* A batch, with the disk reserve (reserve.h): when a batch holding deletes fails for lack of space, the reserve is
 * given back and its deletes run again alone, so space can be freed through the API; until the reserve can be
 * allocated again only deletes run (etcd's NOSPACE alarm likewise accepts deletes and compaction only). */
static void write_batch(sq *b, wreq *batch)
{
    /* a reserve that could not be allocated at start (the disk was already full) does not refuse anything */
    if (kg_reserve_refill(&b->reserve) || !b->reserve.released) {
        run_batch(b, batch);
        if (!b->batch_full || !b->reserve.present)
            return;
        bool deletes = false;
        for (wreq *q = batch; q && !deletes; q = q->next)
            deletes = q->op == KG_WRITE_DELETE;
        if (!deletes)
            return;
        KG_WARN("storage: the disk is full: releasing the %lld-byte reserve %s so that deletes can free space; other "
                "writes are refused until there is room for it again",
                (long long)b->reserve.size, b->reserve.path);
        kg_reserve_release(&b->reserve);
        run_deletes_only(b, batch, false);
        return;
    }
    run_deletes_only(b, batch, true);
}

static bool run_compact(sq *b, int64_t target, kg_error *err)
{
    int64_t from = atomic_load(&b->compacted);
    int64_t to = target - from > COMPACT_CHUNK ? from + COMPACT_CHUNK : target;
    if (!step_done(b->w[W_BEGIN]))
        return sql_err(err, b->wdb, "begin");
    sqlite3_bind_int64(b->w[W_COMPACT_PREV], 1, from);
    sqlite3_bind_int64(b->w[W_COMPACT_PREV], 2, to);
    sqlite3_bind_int64(b->w[W_COMPACT_TOMBSTONES], 1, from);
    sqlite3_bind_int64(b->w[W_COMPACT_TOMBSTONES], 2, to);
    sqlite3_bind_int64(b->w[W_META_COMPACT], 1, to);
    bool ok = (step_done(b->w[W_COMPACT_PREV]) || sql_err(err, b->wdb, "compact")) &&
              (step_done(b->w[W_COMPACT_TOMBSTONES]) || sql_err(err, b->wdb, "compact tombstones")) &&
              (step_done(b->w[W_META_COMPACT]) || sql_err(err, b->wdb, "compact meta"));
    if (ok) {
        int rc = sqlite3_step(b->w[W_COMMIT]);
        sqlite3_reset(b->w[W_COMMIT]);
        if (rc != SQLITE_DONE)
            ok = sql_err(err, b->wdb, "commit");
    }
    if (!ok) {
        if (!sqlite3_get_autocommit(b->wdb))
            step_done(b->w[W_ROLLBACK]);
        return false;
    }
    atomic_store(&b->compacted, to);
    return true;
}

static void *writer_main(void *arg)
{
    sq *b = arg;
    pthread_setname_np(pthread_self(), "kg-store-writer");
    pthread_mutex_lock(&b->qmu);
    for (;;) {
        while (!b->qhead && b->compact_target <= atomic_load(&b->compacted) && !b->stop)
            pthread_cond_wait(&b->qcond, &b->qmu);
        if (b->stop && !b->qhead)
            break;
        wreq *batch = b->qhead, *tail = batch;
        int cnt = batch ? 1 : 0;
        while (tail && tail->next && cnt < b->max_batch) {
            tail = tail->next;
            cnt++;
        }
        if (batch) {
            b->qhead = tail->next;
            if (!b->qhead)
                b->qtail = NULL;
            tail->next = NULL;
        }
        int64_t ctarget = b->compact_target;
        pthread_mutex_unlock(&b->qmu);

        if (batch)
            write_batch(b, batch);
        KG_ERROR_DECL(cerr);
        bool cfail = false;
        if (ctarget > atomic_load(&b->compacted))
            cfail = !run_compact(b, ctarget, &cerr);

        pthread_mutex_lock(&b->qmu);
        for (wreq *q = batch, *nx; q; q = nx) {
            nx = q->next; /* q lives on its caller's stack: read next before releasing it */
            q->done = true;
            pthread_cond_signal(&q->cond);
        }
        if (cfail) {
            b->compact_err = cerr;
            b->compact_fail_seq++;
            b->compact_target = atomic_load(&b->compacted); /* give up this target; the caller sees the error */
        }
        b->compact_done_seq++;
        pthread_cond_broadcast(&b->dcond);
    }
    pthread_mutex_unlock(&b->qmu);
    return NULL;
}

static bool sq_write(void *bp, kg_write_op op, const char *key, const void *value, size_t value_len,
                     int64_t expected, kg_store_event **ev, kg_error *err)
{
    sq *b = bp;
    if (value_len > INT_MAX)
        return kg_err_set(err, KG_ETOOLARGE, "value of %zu bytes is too large", value_len);
    wreq q = {.op = op, .key = key, .value = value, .value_len = value_len, .expected = expected};
    pthread_cond_init(&q.cond, NULL);
    pthread_mutex_lock(&b->qmu);
    if (b->stop) {
        pthread_mutex_unlock(&b->qmu);
        pthread_cond_destroy(&q.cond);
        return kg_err_set(err, KG_EIO, "storage is closing");
    }
    if (b->qtail)
        b->qtail->next = &q;
    else
        b->qhead = &q;
    b->qtail = &q;
    pthread_cond_signal(&b->qcond);
    while (!q.done)
        pthread_cond_wait(&q.cond, &b->qmu);
    pthread_mutex_unlock(&b->qmu);
    pthread_cond_destroy(&q.cond);
    if (!q.ok) {
        if (err)
            *err = q.err;
        return false;
    }
    *ev = q.ev;
    return true;
}

static bool sq_compact(void *bp, int64_t rev, kg_error *err)
{
    sq *b = bp;
    pthread_mutex_lock(&b->qmu);
    uint64_t fails = b->compact_fail_seq;
    if (rev > b->compact_target)
        b->compact_target = rev;
    pthread_cond_signal(&b->qcond);
    while (atomic_load(&b->compacted) < rev && b->compact_fail_seq == fails && !b->stop)
        pthread_cond_wait(&b->dcond, &b->qmu);
    bool ok = atomic_load(&b->compacted) >= rev;
    if (!ok && err)
        *err = b->compact_fail_seq != fails ? b->compact_err : (kg_error){KG_EIO, "storage is closing"};
    pthread_mutex_unlock(&b->qmu);
    return ok;
}

static int64_t sq_committed(void *bp) { return atomic_load(&((sq *)bp)->committed); }
static int64_t sq_compacted(void *bp) { return atomic_load(&((sq *)bp)->compacted); }

/* ---- open / close ---- */

static void sq_free(sq *b)
{
    kg_reserve_free(&b->reserve);
    for (int i = 0; i < W_NSTMT; i++)
        sqlite3_finalize(b->w[i]);
    if (b->readers) {
        for (int i = 0; i < b->nreaders; i++) {
            for (int j = 0; j < R_NSTMT; j++)
                sqlite3_finalize(b->readers[i].st[j]);
            sqlite3_close(b->readers[i].db);
            pthread_mutex_destroy(&b->readers[i].mu);
        }
        free(b->readers);
    }
    sqlite3_close(b->wdb);
    pthread_mutex_destroy(&b->qmu);
    pthread_cond_destroy(&b->qcond);
    pthread_cond_destroy(&b->dcond);
    free(b->path);
    free(b);
}

static void sq_close(void *bp)
{
    sq *b = bp;
    if (!b)
        return;
    if (b->writer_running) {
        pthread_mutex_lock(&b->qmu);
        b->stop = true;
        pthread_cond_broadcast(&b->qcond);
        pthread_cond_broadcast(&b->dcond);
        pthread_mutex_unlock(&b->qmu);
        pthread_join(b->writer, NULL);
    }
    sq_free(b);
}

#define SCHEMA_VERSION 2

static const char schema_sql[] =
    "CREATE TABLE kv(key TEXT PRIMARY KEY, mod_rev INTEGER NOT NULL, create_rev INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE history(rev INTEGER PRIMARY KEY, key TEXT NOT NULL, type INTEGER NOT NULL, value BLOB, "
    "create_rev INTEGER NOT NULL, prev_rev INTEGER NOT NULL);"
    "CREATE TABLE meta(id INTEGER PRIMARY KEY CHECK (id = 1), rev INTEGER NOT NULL, compact_rev INTEGER NOT NULL);"
    "INSERT INTO meta(id, rev, compact_rev) VALUES (1, 1, 1);"
    "PRAGMA user_version = 2;";

static bool query_int(sqlite3 *db, const char *sql, int64_t *out, kg_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_err(err, db, sql);
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return sql_err(err, db, sql);
    return true;
}

/* create the schema in a fresh database, or check an existing one is ours and current */
static bool init_schema(sq *b, kg_error *err)
{
    if (!exec_sql(b->wdb, "BEGIN IMMEDIATE", err))
        return false;
    int64_t tables = 0, version = 0;
    bool ok = query_int(b->wdb, "SELECT count(*) FROM sqlite_master WHERE type = 'table'", &tables, err) &&
              query_int(b->wdb, "PRAGMA user_version", &version, err);
    if (ok && tables == 0)
        ok = exec_sql(b->wdb, schema_sql, err);
    else if (ok && version != SCHEMA_VERSION)
        ok = kg_err_set(err, KG_EIO, "%s: unsupported storage format (user_version %lld, want %d)", b->path,
                        (long long)version, SCHEMA_VERSION);
    if (!ok) {
        sqlite3_exec(b->wdb, "ROLLBACK", NULL, NULL, NULL);
        return false;
    }
    return exec_sql(b->wdb, "COMMIT", err);
}

static void *sq_open(kg_store *s, const char *dir, const kg_store_options *opts, kg_error *err)
{
    if (!dir || !*dir) {
        kg_err_set(err, KG_EINVAL, "sqlite storage needs a directory");
        return NULL;
    }
    if (!mkdirs(dir, err))
        return NULL;
    sq *b = calloc(1, sizeof *b);
    if (!b)
        abort();
    b->s = s;
    b->max_batch = opts->max_batch;
    pthread_mutex_init(&b->qmu, NULL);
    pthread_cond_init(&b->qcond, NULL);
    pthread_cond_init(&b->dcond, NULL);
    size_t pl = strlen(dir) + 16;
    b->path = malloc(pl);
    if (!b->path)
        abort();
    snprintf(b->path, pl, "%s/kgate.db", dir);

    /* the database holds Secrets: owner-only, also when an older version created it 0644 (SQLite gives the -wal
     * and -shm files the database file's mode) */
    {
        int fd = open(b->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0 || fchmod(fd, 0600) != 0) {
            kg_err_set(err, KG_EIO, "sqlite: open %s: %s", b->path, strerror(errno));
            if (fd >= 0)
                close(fd);
            goto fail;
        }
        close(fd);
        char side[4200];
        snprintf(side, sizeof side, "%s-wal", b->path);
        chmod(side, 0600);
        snprintf(side, sizeof side, "%s-shm", b->path);
        chmod(side, 0600);
    }
    if (!open_conn(b->path, &b->wdb, err))
        goto fail;
    {
        /* keep the -wal file at close: reopening then needs no new file, so a restart works on a full disk */
        int persist = 1;
        sqlite3_file_control(b->wdb, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
    }
    if (!exec_sql(b->wdb, "PRAGMA journal_mode=WAL", err) || !exec_sql(b->wdb, "PRAGMA synchronous=FULL", err) ||
        !exec_sql(b->wdb, "PRAGMA cache_size=-32000", err) || !init_schema(b, err))
        goto fail;
    /* an acknowledged write must survive power loss: insist on synchronous=FULL (2) */
    {
        int64_t sync = 0;
        if (!query_int(b->wdb, "PRAGMA synchronous", &sync, err))
            goto fail;
        if (sync != 2) {
            kg_err_set(err, KG_EIO, "sqlite: %s: synchronous=FULL is not in effect (%lld)", b->path, (long long)sync);
            goto fail;
        }
    }
    /* journal_mode=WAL silently stays "memory"/"delete" on some filesystems: insist */
    {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(b->wdb, "PRAGMA journal_mode", -1, &st, NULL) != SQLITE_OK) {
            sql_err(err, b->wdb, "journal_mode");
            goto fail;
        }
        bool wal = sqlite3_step(st) == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(st, 0), "wal") == 0;
        sqlite3_finalize(st);
        if (!wal) {
            kg_err_set(err, KG_EIO, "sqlite: %s: WAL journal mode is not available", b->path);
            goto fail;
        }
    }
    if (!prepare_all(b->wdb, writer_sql, b->w, W_NSTMT, err))
        goto fail;
    kg_reserve_init(&b->reserve, dir, opts->reserve_bytes);
    /* checkpoints run on their own connection and thread, not inside the writer's commits */
    /* Checkpoints stay in the writer (SQLite's automatic one every 1000 pages): a checkpoint on another thread
     * lags behind a busy writer, the WAL then never resets and every read pays for searching a huge WAL index
     * (measured: list of 10k objects 211 ms instead of 19 ms, get 38k/s instead of 188k/s). */
    if (!exec_sql(b->wdb, "PRAGMA journal_size_limit=67108864", err))
        goto fail;
    b->nreaders = opts->readers;
    b->readers = calloc((size_t)b->nreaders, sizeof *b->readers);
    if (!b->readers)
        abort();
    for (int i = 0; i < b->nreaders; i++) {
        reader *r = &b->readers[i];
        pthread_mutex_init(&r->mu, NULL);
        if (!open_conn(b->path, &r->db, err) || !exec_sql(r->db, "PRAGMA query_only=1", err) ||
            !exec_sql(r->db, "PRAGMA cache_size=-16000", err) || !exec_sql(r->db, "PRAGMA mmap_size=268435456", err) ||
            !prepare_all(r->db, reader_sql, r->st, R_NSTMT, err))
            goto fail;
    }
    {
        int64_t rev = 0, compact = 0;
        if (!read_meta(&b->readers[0], &rev, &compact, err))
            goto fail;
        atomic_init(&b->committed, rev);
        atomic_init(&b->compacted, compact);
        b->compact_target = compact;
        s->hub = kg_watch_hub_new(opts->watch_window, opts->watch_window_bytes, rev, sq_history, b);
        kg_watch_hub_set_transformer(s->hub, opts->transformer);
    }
    if (pthread_create(&b->writer, NULL, writer_main, b) != 0) {
        kg_err_set(err, KG_EINTERNAL, "cannot start the storage writer thread");
        kg_watch_hub_free(s->hub);
        s->hub = NULL;
        goto fail;
    }
    b->writer_running = true;
    KG_V(2, "storage: opened %s at revision %lld (compacted %lld)", b->path, (long long)atomic_load(&b->committed),
         (long long)atomic_load(&b->compacted));
    return b;
fail:
    sq_free(b);
    return NULL;
}

const kg_store_backend_ops kg_store_sqlite_ops = {
    .name = "sqlite",
    .open = sq_open,
    .close = sq_close,
    .committed_revision = sq_committed,
    .compacted_revision = sq_compacted,
    .get = sq_get,
    .list = sq_list,
    .write = sq_write,
    .compact = sq_compact,
};
