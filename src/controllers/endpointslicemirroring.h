/* EndpointSlice mirroring controller (upstream: kube-controller-manager's endpointslicemirroring controller,
 * pkg/controller/endpointslicemirroring): keeps discovery.k8s.io/v1 EndpointSlices in step with the Endpoints of
 * Services that have no selector (Endpoints written by hand or by another controller), so consumers of
 * EndpointSlices (kube-proxy, service meshes, DNS) see them too.
 *
 * An Endpoints ns/name is mirrored when it has no label endpointslice.kubernetes.io/skip-mirror=true, no
 * leader-election annotation (control-plane.alpha.kubernetes.io/leader), and the Service ns/name exists with no
 * selector. Otherwise (and when the Endpoints is gone) its mirrored slices (labels kubernetes.io/service-name=name
 * and endpointslice.kubernetes.io/managed-by=endpointslicemirroring-controller.k8s.io) are deleted.
 *
 * Mirroring, as upstream's reconciler:
 *   - the subsets are first repacked (subsets with the same set of ports merged, an address listed twice kept once
 *     and ready when either copy is, addresses sorted by IP);
 *   - every address becomes one endpoint {addresses: [ip], conditions: {ready}, hostname, nodeName, targetRef}
 *     (ready for `addresses`, not ready for `notReadyAddresses`); the IP is re-formatted canonically, IPv4-mapped
 *     IPv6 counts as IPv4; an address that is no IP is skipped;
 *   - at most max_endpoints_per_subset (1000, upstream's --mirroring-max-endpoints-per-subset) addresses of one
 *     subset are mirrored, ready ones first; the rest are skipped, and a sync that wrote a slice records upstream's
 *     Warning Events on the Endpoints (source endpoint-slice-mirroring-controller): InvalidIPAddress "Skipped <n>
 *     invalid IP addresses when mirroring to EndpointSlices", TooManyAddressesToMirror "A max of <max> addresses can
 *     be mirrored to EndpointSlices per Endpoints subset. <n> addresses were skipped" (upstream records them on
 *     every sync, its recorder folding repeats into a count; kgate once per change of the Endpoints);
 *   - one slice per (address type, set of ports): addressType IPv4 or IPv6, ports {name, port, protocol (TCP when
 *     unset), appProtocol};
 *   - metadata: generateName "<endpoints-name>-" (the name is generated here: "<name>-" + 5 random characters),
 *     every label of the Endpoints plus the two above, every annotation but
 *     endpoints.kubernetes.io/last-change-trigger-time and kubectl.kubernetes.io/last-applied-configuration, and a
 *     controller ownerReference (blockOwnerDeletion) to the Endpoints;
 *   - an existing slice for the same (address type, ports) whose endpoints, labels and annotations already match is
 *     left alone (a resync with nothing changed writes nothing); otherwise it is rewritten, extra slices for the
 *     same key are deleted, slices for keys no longer wanted are deleted (or recycled, by update, for a new key of
 *     the same address type); no slice is created for an Endpoints being deleted.
 *
 * The controller follows Endpoints, Services and mirrored EndpointSlices through three watches (a watcher thread
 * each) that put "ns/name" keys on a bounded, de-duplicating work queue; one worker syncs keys (a failed sync is
 * retried with backoff a few times). When the queue is full or a watch missed events, every Endpoints and every
 * mirrored slice is resynced instead. At start, everything is resynced once. */
#ifndef KG_CONTROLLERS_ENDPOINTSLICEMIRRORING_H
#define KG_CONTROLLERS_ENDPOINTSLICEMIRRORING_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "controllers/client.h"

#define KG_EPSM_CONTROLLER_NAME "endpointslicemirroring-controller.k8s.io"
#define KG_EPSM_MAX_ENDPOINTS_PER_SUBSET 1000

/* What one sync did (tests, logs). */
typedef struct kg_epsm_result {
    size_t created, updated, deleted;
    size_t skipped_invalid, skipped_over_capacity; /* addresses not mirrored */
} kg_epsm_result;

/* Sync the mirrored slices of the Endpoints ns/name (upstream's syncEndpoints) through c, reading everything live.
 * max_per_subset 0 = KG_EPSM_MAX_ENDPOINTS_PER_SUBSET. res may be NULL. false with err when a read or write failed
 * (the caller retries). */
bool kg_epsm_sync(const kg_controller_client *c, kg_arena *a, const char *ns, const char *name, int max_per_subset,
                  kg_epsm_result *res, kg_error *err);

typedef struct kg_epsm_controller kg_epsm_controller;

/* Open the watches and start the threads (the client is copied; its ctx must outlive stop). */
kg_epsm_controller *kg_epsm_controller_start(const kg_controller_client *c, kg_error *err);
void kg_epsm_controller_stop(kg_epsm_controller *m); /* NULL is fine */

#endif
