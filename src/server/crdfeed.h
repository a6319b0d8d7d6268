/* CustomResourceDefinitions from the watch-fed cache into the served resource set: every change to a CRD rebuilds
 * and publishes the dynamic snapshot (apiext/crd.h kg_crd_publish, api/dynamic.h), so a CRD's resource is served,
 * discovered and described by OpenAPI as soon as its write is seen by the cache (milliseconds). A CRD being deleted
 * has its custom resources deleted here too, then its finalizer removed (upstream's finalizer controller). */
#ifndef KG_SERVER_CRDFEED_H
#define KG_SERVER_CRDFEED_H

#include "base/error.h"
#include "server/cache.h"
#include "storage/storage.h"

typedef struct kg_crd_feed kg_crd_feed;

/* Subscribe to the CRD cache and require it for readiness (kg_cache_require); does not wait. */
kg_crd_feed *kg_crd_feed_start(kg_cache_set *cs, kg_store *store);
/* Wait (up to timeout_ms) for the CRD cache and publish its contents; false with err on timeout. */
bool kg_crd_feed_wait(kg_crd_feed *f, int timeout_ms, kg_error *err);
/* Unsubscribe and forget the served custom resources. */
void kg_crd_feed_stop(kg_crd_feed *f);

#endif
