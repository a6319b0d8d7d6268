/* Node identities (k8s.io/kubernetes pkg/auth/nodeidentifier): a kubelet authenticates as user
 * "system:node:<nodeName>" in group "system:nodes". Shared by the Node authorizer (auth/node/) and the
 * NodeRestriction admission plugin. */
#ifndef KG_AUTH_NODEIDENTITY_H
#define KG_AUTH_NODEIDENTITY_H

#include <stdbool.h>

#include "auth/user.h"

#define KG_NODE_USER_PREFIX "system:node:"
#define KG_GROUP_NODES "system:nodes"

/* NodeIdentity: true when u is a node (the name prefix AND the group); *name is then the part after the prefix
 * (borrowed from u, may be "" — callers reject such users with their own texts). */
bool kg_node_identity(const kg_user_info *u, const char **name);

#endif
