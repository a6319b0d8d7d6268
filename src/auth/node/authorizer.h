/* The Node authorizer (plugin/pkg/auth/authorizer/node/node_authorizer.go) for kubelets (auth/nodeidentity.h):
 * secrets, configmaps, PVCs, PVs, resource claims, volume attachments and service-account tokens only when the
 * graph (graph.h) links them to the node; node Leases and CSINodes by name; with AuthorizeNodeWithSelectors (on in
 * v1.33) its own Node object and the pods bound to it; everything else by the static node rules (the system:node
 * ClusterRole's rules of the bootstrap policy, upstream's NodeRules). Non-node users get no opinion, with no reason.
 * A decision is a few hash lookups under the graph's read lock; no store or cache read. */
#ifndef KG_AUTH_NODE_AUTHORIZER_H
#define KG_AUTH_NODE_AUTHORIZER_H

#include <stdbool.h>

#include "auth/authorizer.h"
#include "auth/node/graph.h"

typedef struct kg_node_authorizer_options {
    bool authorize_with_selectors; /* feature gate AuthorizeNodeWithSelectors (v1.33 default: true) */
} kg_node_authorizer_options;

/* g is borrowed and must outlive the authorizer. */
kg_authorizer *kg_node_authorizer_new(kg_node_graph *g, const kg_node_authorizer_options *opts);

#endif
