/* Feeding the Node authorizer's graph (auth/node/graph.h) from the server's watch-fed caches, as upstream's
 * graph_populator does from informers: pods and persistentvolumes (and volumeattachments when served) are cached,
 * every change a cache applies updates the graph, every (re)list replaces that kind. The authorizer never reads the
 * store or the caches. */
#ifndef KG_SERVER_NODEFEED_H
#define KG_SERVER_NODEFEED_H

#include "auth/node/graph.h"
#include "base/error.h"
#include "server/cache.h"

typedef struct kg_node_feed kg_node_feed;

/* Subscribe to the caches and require them for readiness (kg_cache_require); does not wait. */
kg_node_feed *kg_node_feed_start(kg_cache_set *cs, kg_node_graph *g);
/* Wait (up to timeout_ms) until the caches are synced and g holds their contents; false with err on timeout. */
bool kg_node_feed_wait(kg_node_feed *f, int timeout_ms, kg_error *err);
void kg_node_feed_stop(kg_node_feed *f); /* NULL is fine */

#endif
