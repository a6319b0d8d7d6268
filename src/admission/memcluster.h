/* An in-memory cluster: the objects, feature gates and clock of a cluster held in memory, implementing
 * kg_admission_services. `kgate check` admits against one fed from its input manifests; the tests use it as their
 * cluster (with tests/admission/faulty_services.h around it to inject read/write failures). Reads take a shared
 * lock (readers never block each other); writes take it exclusively.
 *
 * Each object is either in the cache and the store (normal), or only in the store (KG_MEMCLUSTER_STORE_ONLY:
 * simulates a cache that has not caught up, visible only to KG_ADMISSION_GET_LIVE lookups). Objects created through
 * the services writer go to both.
 *
 * Change notification (services.subscribe): put, remove and the services writer notify the resource's
 * subscribers after the write, in write order, on the writing thread (ADDED, MODIFIED, DELETED; store-only objects
 * are not in the cache and do not notify until a normal put makes them visible, as ADDED). */
#ifndef KG_ADMISSION_MEMCLUSTER_H
#define KG_ADMISSION_MEMCLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "admission/services.h"
#include "base/error.h"
#include "json/json.h"

typedef struct kg_admission_memcluster kg_admission_memcluster;

enum {
    KG_MEMCLUSTER_STORE_ONLY = 1u << 0,
};

kg_admission_memcluster *kg_admission_memcluster_new(void);
void kg_admission_memcluster_free(kg_admission_memcluster *m);

/* Insert or replace (deep copy); name from obj.metadata.name, namespace from obj.metadata.namespace. */
bool kg_admission_memcluster_put(kg_admission_memcluster *m, const char *resource, const kg_json *obj, unsigned flags,
                                 kg_error *err);
bool kg_admission_memcluster_remove(kg_admission_memcluster *m, const char *resource, const char *ns, const char *name);
/* Feature gates (unset gates read false). */
void kg_admission_memcluster_set_feature(kg_admission_memcluster *m, const char *gate, bool on);
/* Fake clock: now starts at 0 when set; sleep advances it. Without a fake clock the real one is used. */
void kg_admission_memcluster_set_clock(kg_admission_memcluster *m, int64_t now_ns);
/* Mark a resource's cache as not synced (ready() false). */
void kg_admission_memcluster_set_ready(kg_admission_memcluster *m, const char *resource, bool ready);

typedef struct kg_admission_memcluster_stats {
    uint64_t gets, live_gets, lists, creates, updates;
} kg_admission_memcluster_stats;
kg_admission_memcluster_stats kg_admission_memcluster_get_stats(kg_admission_memcluster *m);

/* The services view of m (ctx = m); metrics may be NULL. */
kg_admission_services kg_admission_memcluster_services(kg_admission_memcluster *m, const kg_apiserver_metrics *metrics);

#endif
