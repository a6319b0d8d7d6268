/* The `kubernetes` Service's endpoints, kept by every API server replica (upstream: the controlplane's
 * "kubernetes" service controller with --endpoint-reconciler-type=lease, pkg/controlplane/reconcilers/lease.go).
 *
 * Each replica holds its own coordination.k8s.io/v1 Lease kube-system/apiserver-<id> (labels
 * apiserver.kubernetes.io/identity=kube-apiserver and kubernetes.io/hostname, as upstream's API server identity
 * leases; spec.holderIdentity = the Lease's name) and renews it every 2/3 of its duration (upstream: every 10 s
 * with a 15 s TTL). The address it serves on is in the annotation kgate.io/advertise-address ("<ip>:<port>";
 * upstream keeps it in an etcd key under /masterleases/ instead). <id> is a hash of the host name, address and
 * port, so a restarted replica renews its own Lease again.
 *
 * After each renewal the replica rewrites the Endpoints default/kubernetes (label
 * endpointslice.kubernetes.io/skip-mirror=true) to list the addresses of the Leases renewed within their duration
 * (renewTime + leaseDurationSeconds not in the past, on this host's clock, as upstream's identity lease GC), one
 * subset per port with a port named "https", addresses sorted; only when it changed (a compare-and-swap on its
 * resourceVersion, so replicas do not overwrite each other with stale lists). Then, as upstream's
 * EndpointsAdapter, the EndpointSlice default/kubernetes (label kubernetes.io/service-name=kubernetes only; the
 * Endpoints skips mirroring): the first subset's addresses of one address family (IPv4 unless its first address is
 * IPv6), each {addresses: [ip], conditions: {ready: true}}, and its port; rewritten only when endpoints, ports or
 * labels differ; other slices labelled for the Service are deleted. Replicas on different ports (one host) have
 * several subsets; the slice lists the lowest port's. It also creates the Service
 * default/kubernetes when it is missing (port https 443 → the secure port, labels component=apiserver,
 * provider=kubernetes). A replica that stops deletes its Lease and drops itself from the Endpoints at once; one
 * that dies drops out when its Lease expires. */
#ifndef KG_CONTROLLERS_ENDPOINTLEASE_H
#define KG_CONTROLLERS_ENDPOINTLEASE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "controllers/client.h"

typedef struct kg_endpoint_lease_config {
    const char *advertise_address; /* an IP literal */
    int port;                      /* the secure port */
    const char *hostname;          /* NULL: gethostname */
    int lease_duration_ms;         /* 0: 15 s (upstream's DefaultEndpointReconcilerTTL) */
} kg_endpoint_lease_config;

typedef struct kg_endpoint_lease kg_endpoint_lease;

/* Renew once and reconcile (failures are logged, not fatal: etcd may be down) and start the renewal thread. The
 * client is copied; its ctx must outlive kg_endpoint_lease_stop. NULL only on bad configuration. */
kg_endpoint_lease *kg_endpoint_lease_start(const kg_controller_client *client, const kg_endpoint_lease_config *cfg,
                                           kg_error *err);
/* One renewal and reconciliation now (tests); false with err when a write failed. */
bool kg_endpoint_lease_sync(kg_endpoint_lease *l, kg_error *err);
/* The Lease's name ("apiserver-<id>"). */
const char *kg_endpoint_lease_name(const kg_endpoint_lease *l);
/* Stop the thread, delete this replica's Lease and reconcile the Endpoints without it. NULL is fine. */
void kg_endpoint_lease_stop(kg_endpoint_lease *l);

#endif
