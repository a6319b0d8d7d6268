/* List and watch over the one HTTP client (client.h): what client-go's reflector does for an informer.
 *
 *   kg_client_list     one paginated LIST (limit 500 + continue), read-only — `kgate check --kubeconfig`;
 *   kg_informer_start  a thread that LISTs a collection, hands the items to the caller, then WATCHes from the list's
 *                      resourceVersion (allowWatchBookmarks, timeoutSeconds 300, the answer streamed line by line)
 *                      and hands each event over. A watch that ends is resumed from the last resourceVersion seen;
 *                      410 Gone ("too old resource version", as an ERROR event or a status) makes it LIST again;
 *                      failures (connection refused, 5xx, a broken stream) are retried with backoff (200 ms doubling
 *                      to 30 s, reset by a successful list or event). A collection the server does not serve (404)
 *                      counts as synced and empty when the informer is optional, and is tried again every 60 s.
 *
 * Callbacks run on the informer's thread, one at a time, with objects in an arena reset after the call. */
#ifndef KG_CLIENT_WATCH_H
#define KG_CLIENT_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "client/client.h"

/* Every item of a collection (path like "/api/v1/namespaces"), as a JSON array in a; *rv (may be NULL) gets the
 * list's resourceVersion (in a). NULL with err (404: KG_ENOTFOUND). */
kg_json *kg_client_list(kg_client *c, kg_arena *a, const char *path, const char **rv, kg_error *err);

typedef struct kg_informer_handlers {
    /* A full list (the first one, and every relist): the collection's items, replacing whatever came before. */
    void (*replace)(void *ud, kg_arena *a, const kg_json *items);
    /* One watch event: type "ADDED", "MODIFIED" or "DELETED" and the object. */
    void (*event)(void *ud, kg_arena *a, const char *type, const kg_json *obj);
} kg_informer_handlers;

typedef struct kg_informer kg_informer;

/* Start listing and watching path. optional: a 404 is "not served" (synced, empty) instead of a failure. c, h and
 * ud are borrowed and must outlive the informer. */
kg_informer *kg_informer_start(kg_client *c, const char *path, bool optional, const kg_informer_handlers *h, void *ud);
/* True once the first list has been handed over (or the optional collection was found not served). */
bool kg_informer_synced(const kg_informer *inf);
typedef struct kg_informer_stats {
    uint64_t lists, watches, events, errors;
} kg_informer_stats;
void kg_informer_get_stats(const kg_informer *inf, kg_informer_stats *out);
/* Stop the thread (within about a second) and free. NULL is fine. */
void kg_informer_stop(kg_informer *inf);

#endif
