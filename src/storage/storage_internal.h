/* Internals shared by the storage front end (storage.c), the watch hub (watch.c) and the backends.
 * A backend implements kg_store_backend_ops; the front end does argument checks, continue tokens, guaranteed
 * update and watch; the hub fans committed events out to watchers without copying them. */
#ifndef KG_STORAGE_INTERNAL_H
#define KG_STORAGE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "storage/storage.h"

/* ---- events ---- */

/* One malloc block: this header, then key, value and prev value bytes (each NUL-terminated). */
typedef struct kg_event_obj {
    kg_store_event ev; /* first member: a kg_store_event* is a kg_event_obj* */
    atomic_int refs;
} kg_event_obj;

/* A new event with one reference. value/prev may be NULL. */
kg_store_event *kg_event_new(kg_store_event_type type, int64_t rev, int64_t create_rev, int64_t prev_rev,
                             const char *key, size_t key_len, const void *value, size_t value_len, const void *prev,
                             size_t prev_len);

/* ---- watch hub ---- */

typedef struct kg_watch_hub kg_watch_hub;

/* Reads committed history: events with after_rev < revision, key in [start, end), in revision order, at most
 * max. Sets *n; *last_rev = the last revision examined (the newest committed revision when fewer than max rows
 * matched), so the caller can continue from it. KG_EGONE if after_rev is compacted. */
typedef bool (*kg_history_fn)(void *backend, int64_t after_rev, const char *start, const char *end, int max,
                              kg_store_event **out, int *n, int64_t *last_rev, kg_error *err);

kg_watch_hub *kg_watch_hub_new(int window, size_t max_bytes, int64_t head, kg_history_fn history, void *backend);
/* Values of published and replayed events are decrypted with xf (NULL: none) before any watcher sees them, once
 * per event. Call right after kg_watch_hub_new, before the first publish. */
void kg_watch_hub_set_transformer(kg_watch_hub *h, const kg_transformer *xf);
/* Wakes every watcher: from now on they return KG_WATCH_CLOSED and never call the backend again. */
void kg_watch_hub_shutdown(kg_watch_hub *h);
/* Drops the store's reference; the hub is freed when the last watcher is closed too. */
void kg_watch_hub_free(kg_watch_hub *h);
/* Publish committed events (increasing revisions, in order; a gap is a revision with no change under the store's
 * keys); takes over one reference of each. */
void kg_watch_hub_publish(kg_watch_hub *h, kg_store_event **evs, size_t n);
int64_t kg_watch_hub_head(kg_watch_hub *h);
/* Changes up to rev are lost (the backend's feed fell behind a compaction): drop the ring and move the head to rev.
 * Live watchers that had not reached rev end with KG_EGONE (their clients re-list); new ones start after rev. */
void kg_watch_hub_skip_to(kg_watch_hub *h, int64_t rev);
/* committed: the newest durable revision (>= head); compacted: the compacted revision. */
kg_store_watch *kg_watch_hub_open(kg_watch_hub *h, const char *prefix, int64_t from_rev, int64_t committed,
                                  int64_t compacted, kg_error *err);

/* ---- backends ---- */

typedef enum kg_write_op { KG_WRITE_CREATE = 1, KG_WRITE_UPDATE, KG_WRITE_DELETE } kg_write_op;

typedef struct kg_store_backend_ops {
    const char *name;
    void *(*open)(kg_store *s, const char *dir, const kg_store_options *opts, kg_error *err);
    void (*close)(void *b);
    int64_t (*committed_revision)(void *b);
    int64_t (*compacted_revision)(void *b);
    bool (*get)(void *b, const char *key, kg_arena *a, kg_store_kv *out, kg_error *err);
    /* Keys in [start, end) (start excluded when start_after) in order, at revision rev (0 = latest), at most
     * limit (0 = all). *more set when further keys exist; *remaining = how many (or -1). *list_rev = snapshot
     * revision. KG_EGONE if rev is compacted, KG_ETIMEOUT if rev is in the future. */
    bool (*list)(void *b, const char *start, bool start_after, const char *end, int64_t rev, int64_t limit,
                 bool keys_only, kg_arena *a, kg_store_kv **items, size_t *n, bool *more, int64_t *remaining,
                 int64_t *list_rev, kg_error *err);
    /* A durable write. On success *ev holds a reference to the committed event (caller releases). */
    bool (*write)(void *b, kg_write_op op, const char *key, const void *value, size_t value_len, int64_t expected,
                  kg_store_event **ev, kg_error *err);
    bool (*compact)(void *b, int64_t rev, kg_error *err);
    /* The backend schedules its own compaction (etcd: kube-apiserver's compact_rev_key protocol, shared by all
     * replicas): the front end's history_revisions/history_seconds compactor is not started. */
    bool own_compactor;
    /* Optional health probe (NULL = always healthy). */
    bool (*check)(void *b, kg_error *err);
} kg_store_backend_ops;

struct kg_store {
    const kg_store_backend_ops *ops;
    void *b;
    kg_watch_hub *hub;
    kg_store_options opts;
    int write_failing; /* atomic: the last write failed with KG_EIO (disk full, I/O error); see kg_store_healthy */
};

extern const kg_store_backend_ops kg_store_sqlite_ops;
extern const kg_store_backend_ops kg_store_memory_ops;
extern const kg_store_backend_ops kg_store_etcd_ops;

/* base64 (RFC 4648 URL alphabet, no padding, as Go's base64.RawURLEncoding) */
char *kg_store_b64url_encode(kg_arena *a, const void *p, size_t n);
bool kg_store_b64url_decode(kg_arena *a, const char *s, char **out, size_t *out_n);

#endif
