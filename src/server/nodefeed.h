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

/* Subscribe and wait (up to timeout_ms) for the caches to sync; NULL with err set on timeout. */
kg_node_feed *kg_node_feed_start(kg_cache_set *cs, kg_node_graph *g, int timeout_ms, kg_error *err);
void kg_node_feed_stop(kg_node_feed *f); /* NULL is fine */

#endif
