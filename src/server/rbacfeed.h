/* Feeding the RBAC authorizer (auth/rbac/rbac.h) from the server's watch-fed caches: the four RBAC resources are
 * cached, every change a cache applies is passed on (upsert / remove), and every (re)list replaces the kind
 * wholesale. The authorizer never reads the store. */
#ifndef KG_SERVER_RBACFEED_H
#define KG_SERVER_RBACFEED_H

#include <stdbool.h>

#include "auth/rbac/rbac.h"
#include "base/error.h"
#include "server/cache.h"

typedef struct kg_rbac_feed kg_rbac_feed;

/* Subscribe to the caches of roles, clusterroles, rolebindings and clusterrolebindings and require them for
 * readiness (kg_cache_require); does not wait: the server waits once for every required cache. */
kg_rbac_feed *kg_rbac_feed_start(kg_cache_set *cs, kg_rbac *r);
/* Wait (up to timeout_ms) until the four caches are synced and r has seen their contents. False with err on
 * timeout. */
bool kg_rbac_feed_wait(kg_rbac_feed *f, int timeout_ms, kg_error *err);
/* Unsubscribe (before freeing r or the caches). */
void kg_rbac_feed_stop(kg_rbac_feed *f);

#endif
