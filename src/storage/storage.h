/* Storage: a key/value store with one global revision, optimistic concurrency, consistent paged lists and
 * watches that replay history. One interface; backends: "sqlite" (WAL, group commit) and "memory" (not durable:
 * kgate check and tests) and "etcd3" (an etcd v3 cluster, shared by several kgate replicas: storage/etcd.c).
 *
 * Keys follow Kubernetes' etcd layout: "/registry/<group-resource>/<namespace>/<name>" (cluster-scoped objects
 * have no namespace segment). Values are opaque bytes (the serialized JSON object).
 *
 * Revisions. Every successful write (create, update, delete) gets the next value of one global, strictly
 * increasing revision (int64, > 0), assigned by the store at commit. The stored bytes are kept exactly as given:
 * the store does NOT rewrite metadata.resourceVersion. get/list/watch return (value, mod_revision,
 * create_revision) and the caller sets metadata.resourceVersion = mod_revision when it serves the object. So a
 * caller writing an object need not know its revision in advance; create/update return the revision assigned.
 *
 * Durability. A write call returns only after its transaction is durable (fsync'ed); concurrent writes are group
 * committed by one writer thread. A restart keeps every acknowledged write, the revision counter and the history.
 *
 * History and compaction. The store keeps every change with revision > compacted_revision (see options). List at
 * an older revision R, a continue token encoding R, or a watch from R works while R >= compacted_revision; older
 * gives KG_EGONE. A revision newer than the current one gives KG_ETIMEOUT ("Too large resource version: ...").
 *
 * Thread safety. Every function may be called concurrently from any thread, except kg_store_close (call it once,
 * after every other store call has returned; watchers may still be closed afterwards) and the per-watcher
 * functions noted below.
 *
 * Memory. Results are allocated in the caller's arena (values are NUL-terminated for convenience; value_len is
 * authoritative). Watch events are refcounted objects shared by every watcher (never copied per watcher).
 *
 * Errors (kg_error codes): KG_ENOTFOUND (key absent), KG_EEXIST (create of an existing key), KG_ECONFLICT
 * (expected mod revision does not match), KG_EGONE (revision compacted, watcher fell too far behind),
 * KG_ETIMEOUT (revision in the future), KG_EINVAL (bad key, bad continue token), KG_EIO (disk/SQLite failure),
 * KG_EUNSUPPORTED (unknown backend). */
#ifndef KG_STORAGE_STORAGE_H
#define KG_STORAGE_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"

typedef struct kg_store kg_store;
typedef struct kg_store_watch kg_store_watch;
typedef struct kg_transformer kg_transformer; /* storage/transformer.h */

typedef struct kg_store_options {
    /* History kept for list-at-revision, continue tokens and watch replay: the last N revisions.
     * 0 selects the default (10000). Background compaction runs every compact_interval_ms (0 = default 60000;
     * < 0 disables background compaction; kg_store_compact still works). */
    int64_t history_revisions;
    int compact_interval_ms;
    /* If > 0, background compaction also keeps every revision made in the last history_seconds (Kubernetes keeps
     * 5 minutes): the window is the larger of the two. 0 = by count only. */
    int history_seconds;
    /* Read connections in the pool (0 = default 4). */
    int readers;
    /* Recent events kept in memory and shared by all watchers; also the most a live watcher may lag behind
     * before it is closed with KG_EGONE (Kubernetes closes slow watchers the same way; the client re-lists).
     * Rounded up to a power of two; 0 = default 4096. The window also shrinks to keep the bytes it holds (keys,
     * values, previous values) under watch_window_bytes (0 = default 256 MiB). */
    int watch_window;
    size_t watch_window_bytes;
    /* Most writes in one group-commit transaction (0 = default 1024). */
    int max_batch;
    /* sqlite: bytes kept preallocated in <dir>/kgate.reserve and given back when the disk is full so that deletes
     * still succeed (storage/reserve.h; 0 = default 4 MiB, < 0 = none). While it is gone only deletes are accepted;
     * it is allocated again as soon as the filesystem has room for it plus 1 MiB. */
    int64_t reserve_bytes;
    /* Largest value a create/update may store (etcd's --max-request-bytes; 0 = default 1.5 MiB). Larger writes
     * fail with KG_EINTERNAL "etcdserver: request is too large", the error kube-apiserver passes through as a 500
     * (the request body limit of 3 MiB applies before; this bounds what patches and mutation grow objects to). */
    size_t max_value_bytes;
    /* Encryption at rest (--encryption-provider-config; storage/transformer.h). NULL = values stored as given.
     * Values are encrypted on write and decrypted on every read (get, list, watch, the deleted object), so callers
     * only ever see plaintext. The caller keeps it alive until kg_store_close has returned. */
    const kg_transformer *transformer;
    /* The etcd3 backend (storage/etcd.c; see docs/storage.md). Keys "/registry/<rest>" are stored in etcd under
     * "<prefix>/<rest>"; other keys are refused. history_revisions/history_seconds do not apply: etcd keeps the
     * history and is compacted as kube-apiserver does (compaction_interval). */
    struct {
        const char *servers; /* comma-separated client URLs ("http://127.0.0.1:2379,..."); failover in order */
        const char *prefix;  /* NULL/"" = "/registry" */
        const char *ca_file, *cert_file, *key_file; /* TLS to etcd (NULL = none / system CAs) */
        int64_t compaction_interval_ms;             /* 0 = 5 minutes; < 0 = never (kg_store_compact still works) */
        int64_t request_timeout_ms;                 /* per etcd request (0 = 10 s) */
        /* Keys under these prefixes (NULL-terminated; e.g. the Events' prefixes for --event-ttl) are written with an
         * etcd lease of ttl_seconds (> 0), so etcd deletes them that long after their last write. */
        const char *const *ttl_prefixes;
        int64_t ttl_seconds;
    } etcd;
} kg_store_options;

/* A key with its value and revisions. value is NULL (value_len 0) only where documented. */
typedef struct kg_store_kv {
    const char *key;
    const char *value;
    size_t value_len;
    int64_t mod_revision;    /* revision of the last change: serve as metadata.resourceVersion */
    int64_t create_revision; /* revision that created this incarnation of the key */
    /* Read with an encryption provider or key other than the current first one (storage/transformer.h): a write
     * of the same bytes must still happen, so that rewriting every object re-encrypts it (upstream's stale). */
    bool stale;
} kg_store_kv;

/* Open (creating if needed) a store. backend: "sqlite" (dir holds kgate.db; created if missing), "memory"
 * (dir ignored, may be NULL; nothing survives kg_store_close; durability statements below do not apply) or
 * "etcd3" (dir ignored; opts->etcd says where; several stores, in one or many processes, may share one etcd).
 * opts may be NULL for defaults. Returns NULL with err set on failure. */
kg_store *kg_store_open(const char *backend, const char *dir, const kg_store_options *opts, kg_error *err);
/* Stop background threads and close. NULL is ignored. Watchers still open are cancelled (their next call returns
 * KG_WATCH_CLOSED) and must still be closed with kg_store_watch_close, which stays valid after the store is gone;
 * no other store call may run concurrently with or after kg_store_close. */
void kg_store_close(kg_store *s);

/* The latest committed revision (what a BOOKMARK event carries when nothing else happened). */
int64_t kg_store_current_revision(kg_store *s);
/* False while writes fail: the last write ended in an I/O error (disk full, EIO) and none has succeeded since
 * (kube-apiserver's readyz "etcd" check). */
bool kg_store_healthy(kg_store *s);
/* Revisions <= this are compacted: list/watch at a revision < this give KG_EGONE. */
int64_t kg_store_compacted_revision(kg_store *s);
/* Health of the storage for /healthz and /readyz: etcd3 reads one key linearizably (timeout 2 s, like
 * kube-apiserver's etcd check); local backends are always healthy. */
bool kg_store_check(kg_store *s, kg_error *err);

/* --- reads ------------------------------------------------------------------------------------------------ */

/* Latest value of key. KG_ENOTFOUND if absent. */
bool kg_store_get(kg_store *s, const char *key, kg_arena *a, kg_store_kv *out, kg_error *err);

typedef struct kg_store_list_opts {
    int64_t revision;           /* 0 = latest; else a consistent snapshot at this revision */
    int64_t limit;              /* 0 = no limit */
    const char *continue_token; /* NULL/"" = start; else a token from a previous result (revision ignored) */
    bool keys_only;             /* values left NULL */
    /* Optional predicate (label/field selectors). With it, like Kubernetes' GetList, the store keeps reading the
     * same snapshot until `limit` items pass or the range ends; the continue token resumes after the last key
     * examined and `remaining` is -1. Called on the caller's thread; must not call the store. */
    bool (*filter)(void *ud, const kg_store_kv *kv);
    void *filter_ud;
} kg_store_list_opts;

typedef struct kg_store_list_result {
    kg_store_kv *items; /* in key order */
    size_t n;
    int64_t revision;           /* the snapshot revision the list reflects (serve as the list's resourceVersion) */
    const char *continue_token; /* NULL when complete; else pass back to get the next page (same snapshot) */
    int64_t remaining;          /* items after this page when continue_token is set (-1 if unknown), else 0 */
} kg_store_list_result;

/* Keys starting with prefix (normally ending in '/'), in byte order. The continue token is Kubernetes' format:
 * base64(JSON {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key without prefix>"}), so the server can
 * pass it through unchanged. An expired token gives KG_EGONE. */
bool kg_store_list(kg_store *s, const char *prefix, const kg_store_list_opts *opts, kg_arena *a,
                   kg_store_list_result *out, kg_error *err);

/* --- writes (each returns after the change is durable) ----------------------------------------------------- */

/* KG_EEXIST if key is present. *out_rev (may be NULL) = the new revision (= mod and create revision). */
bool kg_store_create(kg_store *s, const char *key, const void *value, size_t value_len, int64_t *out_rev,
                     kg_error *err);
/* Replace the value. expected_mod_revision 0 = unconditional; else KG_ECONFLICT unless it equals the current
 * mod revision. KG_ENOTFOUND if absent. */
bool kg_store_update(kg_store *s, const char *key, const void *value, size_t value_len, int64_t expected_mod_revision,
                     int64_t *out_rev, kg_error *err);
/* Delete. expected_mod_revision as for update; KG_ENOTFOUND if absent. deleted (may be NULL) receives the value
 * as it was before the delete (in arena a) with its mod/create revisions; *out_rev (may be NULL) gets the
 * revision of the delete itself (serve the deleted object with that resourceVersion, as Kubernetes does). */
bool kg_store_delete(kg_store *s, const char *key, int64_t expected_mod_revision, kg_arena *a, kg_store_kv *deleted,
                     int64_t *out_rev, kg_error *err);

/* Read-modify-write retried on conflict (Kubernetes' GuaranteedUpdate).
 * fn is called with the current state (cur->value NULL when the key is absent, which only happens when
 * allow_create is true; otherwise absence is KG_ENOTFOUND) and must produce the new bytes in *new_value /
 * *new_len (allocated in a, or any memory that outlives the call). Returning false aborts with fn's error.
 * If the new bytes equal the current ones nothing is written (like Kubernetes) and out gets the current state.
 * On a conflict fn is called again with fresh state (randomized backoff; up to 1000 attempts).
 * out (may be NULL) gets the state written (value, mod_revision = the new revision). */
typedef bool (*kg_store_update_fn)(void *ud, const kg_store_kv *cur, kg_arena *a, const void **new_value,
                                   size_t *new_len, kg_error *err);
bool kg_store_guaranteed_update(kg_store *s, const char *key, bool allow_create, kg_store_update_fn fn, void *ud,
                                kg_arena *a, kg_store_kv *out, kg_error *err);

/* Compact history up to and including revision rev (clamped to the current revision). Normally the background
 * compactor does this (history_revisions); exposed for tests and administration. */
bool kg_store_compact(kg_store *s, int64_t rev, kg_error *err);

/* --- watch ------------------------------------------------------------------------------------------------- */

typedef enum kg_store_event_type {
    KG_STORE_ADDED = 1,
    KG_STORE_MODIFIED = 2,
    KG_STORE_DELETED = 3,
} kg_store_event_type;

/* One committed change, immutable and shared by all watchers. For ADDED/MODIFIED value is the new value and
 * revision its mod revision. For DELETED value is NULL and prev_value is the object as deleted (Kubernetes
 * serves that object with resourceVersion = revision). prev_value is NULL for ADDED. */
typedef struct kg_store_event {
    kg_store_event_type type;
    int64_t revision;        /* revision of this change */
    int64_t create_revision; /* create revision of the object (ADDED: = revision) */
    int64_t prev_revision;   /* mod revision of prev_value (0 for ADDED) */
    const char *key;
    size_t key_len;
    const char *value;
    size_t value_len;
    const char *prev_value;
    size_t prev_value_len;
} kg_store_event;

void kg_store_event_retain(const kg_store_event *ev);
void kg_store_event_release(const kg_store_event *ev);

/* Watch keys with this prefix, delivering every change with revision > from_revision in commit order.
 * from_revision 0 = from now (the current revision). from_revision < compacted revision: KG_EGONE with
 * "too old resource version: <from> (<compacted>)". from_revision > current: KG_ETIMEOUT. */
kg_store_watch *kg_store_watch_open(kg_store *s, const char *prefix, int64_t from_revision, kg_error *err);

typedef enum kg_store_watch_status {
    KG_WATCH_ERROR = -2,  /* err set: KG_EGONE (compacted during replay, or fell behind watch_window), KG_EIO */
    KG_WATCH_CLOSED = -1, /* cancelled (kg_store_watch_cancel) or store closing */
    KG_WATCH_TIMEOUT = 0, /* nothing within timeout_ms; see kg_store_watch_progress for a bookmark */
    KG_WATCH_EVENT = 1,   /* *ev set; the caller owns one reference: kg_store_event_release it */
} kg_store_watch_status;

/* Next event. timeout_ms: 0 = poll, < 0 = wait forever. Call from one thread at a time per watcher.
 * After ERROR/CLOSED the watcher stays closed. */
kg_store_watch_status kg_store_watch_next(kg_store_watch *w, int timeout_ms, const kg_store_event **ev, kg_error *err);
/* Every change with revision <= this has been delivered by kg_store_watch_next or did not match the prefix:
 * the resourceVersion for a BOOKMARK event. Same thread as kg_store_watch_next. */
int64_t kg_store_watch_progress(kg_store_watch *w);
/* fn(ud) is called from the writer thread after each commit that has events for this watcher's prefix, e.g. to
 * wake the thread that pumps the HTTP stream. It runs under the store's watcher-list lock: it must be quick, must
 * not block, and must not call kg_store_watch_open/close/set_notify (kg_store_watch_cancel is fine). Conversely,
 * do not call kg_store_watch_close or set_notify while holding a lock that fn takes. Once kg_store_watch_close
 * returns, fn is not running and will not be called again. fn NULL turns it off. */
void kg_store_watch_set_notify(kg_store_watch *w, void (*fn)(void *ud), void *ud);
/* Stop the watcher from any thread: a blocked kg_store_watch_next returns KG_WATCH_CLOSED. Idempotent. */
void kg_store_watch_cancel(kg_store_watch *w);
/* Free the watcher (cancels it first). No other call on w may be running or follow. */
void kg_store_watch_close(kg_store_watch *w);

#endif
