/* Watch-fed object caches (kube-apiserver's informers) for the admission services: per resource, every object
 * kept decoded (a shared immutable document) in (namespace, name) order and updated from a store watch. Admission
 * lookups read the cache, never the store, except when a plugin asks for a live read. */
#ifndef KG_SERVER_CACHE_H
#define KG_SERVER_CACHE_H

#include <stdbool.h>

#include "admission/services.h"
#include "api/resources.h"
#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"
#include "json/shared.h"
#include "storage/storage.h"

typedef struct kg_cache_set kg_cache_set;

kg_cache_set *kg_cache_set_new(kg_store *store);
/* Stops every watcher; call before closing the store. */
void kg_cache_set_free(kg_cache_set *cs);

/* Start caching r (idempotent; thread-safe). The first call lists and starts a watch; until that list completes
 * kg_cache_synced is false. */
void kg_cache_start(kg_cache_set *cs, const kg_resource *r);
bool kg_cache_synced(kg_cache_set *cs, const kg_resource *r);
/* Wait until r is synced (or timeout_ms passes); starts r's cache. Synced already: one atomic load. */
bool kg_cache_wait_synced(kg_cache_set *cs, const kg_resource *r, int timeout_ms);
/* Start the caches of rs[0..n) at once (their lists run side by side) and wait for all of them together: the waiter
 * sleeps on a condition variable the watcher threads signal, it never polls. True when all are synced; false when
 * timeout_ms passes first (or the set is being freed), with *unsynced (when not NULL) the first not synced. */
bool kg_cache_wait_all_synced(kg_cache_set *cs, const kg_resource *const *rs, size_t n, int timeout_ms,
                              const kg_resource **unsynced);
/* Readiness: the server serves only once r is synced (starts r's cache). Feeds register what they need this way,
 * then kg_cache_wait_required waits once for all of it. */
void kg_cache_require(kg_cache_set *cs, const kg_resource *r);
/* kg_cache_wait_all_synced over every required cache. */
bool kg_cache_wait_required(kg_cache_set *cs, int timeout_ms, const kg_resource **unsynced);

/* One object decoded into a (with metadata.resourceVersion), or NULL with err->code KG_ENOTFOUND. */
kg_json *kg_cache_get(kg_cache_set *cs, const kg_resource *r, const char *ns, const char *name, kg_arena *a,
                      kg_error *err);
/* Objects of namespace ns ("" = all) as a JSON array ordered by namespace then name. */
kg_json *kg_cache_list(kg_cache_set *cs, const kg_resource *r, const char *ns, kg_arena *a, kg_error *err);

/* The same without copying: the cached documents themselves, pinned to a (valid until a is reset or freed). */
kg_json_shared *kg_cache_view(kg_cache_set *cs, const kg_resource *r, const char *ns, const char *name, kg_arena *a,
                              kg_error *err);
size_t kg_cache_view_list(kg_cache_set *cs, const kg_resource *r, const char *ns, kg_arena *a, kg_json_shared ***out,
                          kg_error *err);

/* Change notification (the admission services' subscribe): fn(ud, event) for every change applied to r's cache —
 * ADDED / MODIFIED / DELETED (also when a stored object stops decoding) — and RESYNC after every (re)list, the
 * initial one included (the cache already reads as synced then). Calls run on r's watcher thread, in order, after the
 * cache has applied the change (a read in the callback sees it); they must not subscribe or unsubscribe. Starts caching
 * r. Returns an id > 0. */
uint64_t kg_cache_subscribe(kg_cache_set *cs, const kg_resource *r, kg_admission_event_fn fn, void *ud);
/* Once it returns, fn is not running and will not be called again. Unknown ids: no-op. */
void kg_cache_unsubscribe(kg_cache_set *cs, uint64_t id);

#endif
