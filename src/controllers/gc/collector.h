/* The garbage collector (upstream pkg/controller/garbagecollector; docs/serve.md, Garbage collection).
 *
 * Follows every stored object (the client's watch on "*" after an initial list_all) in a graph of owners and
 * dependents (graph.h) and acts through the controller client:
 *   - a dependent whose owners are all gone (absent, or present with another uid, or in another namespace) is
 *     deleted — Background, or with the orphan / foregroundDeletion finalizer it already carries;
 *   - a dependent with a live owner loses the references to the gone ones (and to owners being deleted in the
 *     foreground, when a live owner remains);
 *   - an owner deleted in the foreground (finalizer foregroundDeletion) has its dependents deleted, dependents that
 *     have dependents of their own in the foreground too; the finalizer is removed once no dependent with
 *     blockOwnerDeletion=true is left;
 *   - an owner deleted with propagationPolicy=Orphan (finalizer orphan) has its uid removed from every dependent's
 *     ownerReferences, then the finalizer removed.
 * Removing the last finalizer of an object being deleted deletes it. kgate runs no kubelet: a pod being deleted
 * with a grace period is deleted when the period ends if its node does not exist (upstream's PodGC removes pods
 * bound to missing nodes); on a Node that exists it waits, as upstream, for a DELETE with gracePeriodSeconds=0. Events
 * (core and events.k8s.io) are not followed, as upstream. Owners the graph has not seen are looked up live (the kind's
 * resource through the admission services' resource_for_kind); an owner whose kind is not served keeps its dependents
 * (upstream retries such items; kgate logs once at -v=2).
 *
 * One thread; the work queue holds each graph entry at most once, so it is bounded by the graph. */
#ifndef KG_CONTROLLERS_GC_COLLECTOR_H
#define KG_CONTROLLERS_GC_COLLECTOR_H

#include "base/error.h"
#include "controllers/client.h"
#include "controllers/gc/graph.h"

typedef struct kg_gc_controller kg_gc_controller;

/* Start the collector (NULL with err set when the client lacks list_all or the watch cannot be opened). */
kg_gc_controller *kg_gc_controller_start(const kg_controller_client *c, kg_error *err);
void kg_gc_controller_stop(kg_gc_controller *gc);

/* ---- the collector's steps, exposed for tests (driven without the thread) ---- */

typedef struct kg_gc_state kg_gc_state;
kg_gc_state *kg_gc_state_new(const kg_controller_client *c);
void kg_gc_state_free(kg_gc_state *s);
/* Apply one watch event (or an initial-list item as ADDED) to the graph and queue what it makes due. */
void kg_gc_state_observe(kg_gc_state *s, const kg_client_event *ev);
/* Process queued items until the queue is empty or max items were processed; returns how many were. */
size_t kg_gc_state_work(kg_gc_state *s, size_t max);
const kg_gc_graph *kg_gc_state_graph(const kg_gc_state *s);
/* Delete the terminating pods whose grace period ended by `now` (epoch seconds) and whose node does not exist;
 * returns how many were deleted. */
size_t kg_gc_state_reap(kg_gc_state *s, long long now);

#endif
