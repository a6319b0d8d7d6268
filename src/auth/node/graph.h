/* The Node authorizer's graph (plugin/pkg/auth/authorizer/node graph.go): which objects the pods bound to a node
 * reference, kept incrementally from watch events of pods, persistent volumes and volume attachments.
 *
 * Edges as upstream: pod -> node (spec.nodeName; unscheduled pods are not in the graph); secret, configmap, PVC,
 * service account and resource claim -> pod (podrefs.h); PV -> PVC (the PV's spec.claimRef); secret -> PV (the
 * PV's secret references); volume attachment -> node. An object is reachable from a node when a path of these
 * edges leads to it.
 *
 * Representation: per node, a counted set of the (kind, namespace, name) vertices its pods reach directly, so a
 * check is a hash lookup (plus the PV and PV-secret hops). Writers (the feeding watch threads) take the write side of
 * a read-mostly lock; request threads only read. Memory is bounded by the objects held. */
#ifndef KG_AUTH_NODE_GRAPH_H
#define KG_AUTH_NODE_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "json/json.h"

typedef enum kg_node_vertex {
    KG_NODE_V_POD = 1,
    KG_NODE_V_SECRET,
    KG_NODE_V_CONFIGMAP,
    KG_NODE_V_PVC,
    KG_NODE_V_PV,
    KG_NODE_V_SERVICEACCOUNT,
    KG_NODE_V_RESOURCECLAIM,
    KG_NODE_V_VOLUMEATTACHMENT,
} kg_node_vertex;

typedef struct kg_node_graph kg_node_graph;

kg_node_graph *kg_node_graph_new(void);
void kg_node_graph_free(kg_node_graph *g);

/* Add or replace a pod (a Pod object with metadata.namespace/name); a pod without spec.nodeName is removed. */
void kg_node_graph_set_pod(kg_node_graph *g, const kg_json *pod);
void kg_node_graph_delete_pod(kg_node_graph *g, const char *ns, const char *name);
/* PersistentVolumes (cluster-scoped). */
void kg_node_graph_set_pv(kg_node_graph *g, const kg_json *pv);
void kg_node_graph_delete_pv(kg_node_graph *g, const char *name);
/* VolumeAttachments (storage.k8s.io, cluster-scoped): spec.nodeName. */
void kg_node_graph_set_attachment(kg_node_graph *g, const kg_json *va);
void kg_node_graph_delete_attachment(kg_node_graph *g, const char *name);
/* Replace every pod / PV / attachment with objs (a relist). kind: KG_NODE_V_POD, _PV or _VOLUMEATTACHMENT. */
void kg_node_graph_replace(kg_node_graph *g, kg_node_vertex kind, const kg_json *const *objs, size_t n);

/* Whether (kind, ns, name) is reachable from node (ns "" for cluster-scoped kinds). */
bool kg_node_graph_reachable(kg_node_graph *g, const char *node, kg_node_vertex kind, const char *ns, const char *name);

/* Counts for tests and benchmarks. */
typedef struct kg_node_graph_stats {
    size_t pods, nodes, pvs, attachments;
} kg_node_graph_stats;
kg_node_graph_stats kg_node_graph_get_stats(kg_node_graph *g);

#endif
