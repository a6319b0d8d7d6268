/* Quota controller (pkg/controller/resourcequota): keeps every ResourceQuota's status.used true. Usage is computed
 * by the ResourceQuota plugin's evaluation (kg_quota_recalculate in admission/plugins/resourcequota/resourcequota.h)
 * so that admission and the controller agree. */
#ifndef KG_CONTROLLERS_QUOTA_H
#define KG_CONTROLLERS_QUOTA_H

#include <stdbool.h>
#include <stddef.h>

#include "admission/services.h"
#include "base/arena.h"
#include "base/error.h"
#include "controllers/client.h"

typedef struct kg_quota_controller kg_quota_controller;

/* Watch every namespaced object through c; a write to a quota-tracked resource marks its namespace dirty; dirty
 * namespaces are synced at most every 200 ms, every namespace with a quota every 5 minutes (as upstream). */
kg_quota_controller *kg_quota_controller_start(const kg_controller_client *c, kg_error *err);
void kg_quota_controller_stop(kg_quota_controller *q);

/* syncResourceQuota for one namespace: recalculate every ResourceQuota of ns (live list through svc) and write the
 * changed ones with svc->update (a conflict re-reads the quota live and recomputes, up to 3 retries). *updated (may
 * be NULL) receives the number of quotas written. Called when an object of a quota-tracked resource in ns is
 * deleted or changed, when a quota is created or its spec changes, and periodically. */
bool kg_quota_sync_namespace(kg_arena *a, const kg_admission_services *svc, const char *ns, size_t *updated,
                             kg_error *err);

/* Settling of decreases. Admission charges status.used before it writes the object, so a recount taken between the
 * two misses the object; written back, it would return the charge and admit one create too many. A settle table
 * remembers, per quota ("ns/name"), since when it has been at its current resourceVersion (its last charge or
 * write); a used value may be lowered only after window_ms at one resourceVersion, when every charge in it has
 * reached storage (or failed). Increases are never held back. Bounded (a few thousand quotas; when full it starts
 * afresh, which only delays decreases). Not thread-safe: one per controller. */
typedef struct kg_quota_settle kg_quota_settle;
kg_quota_settle *kg_quota_settle_new(int64_t window_ms);
void kg_quota_settle_free(kg_quota_settle *s);

/* kg_quota_sync_namespace with decreases held back through settle (NULL: none held back) at time now_ms (any
 * monotonic clock in ms). *retry_at_ms (may be NULL) receives 0, or when to sync ns again because a decrease was
 * held back. */
bool kg_quota_sync_namespace_settled(kg_arena *a, const kg_admission_services *svc, const char *ns,
                                     kg_quota_settle *settle, int64_t now_ms, int64_t *retry_at_ms, size_t *updated,
                                     kg_error *err);

#endif
