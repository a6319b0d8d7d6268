/* NodeIdentity (see nodeidentity.h). */
#include "auth/nodeidentity.h"

#include <string.h>

bool kg_node_identity(const kg_user_info *u, const char **name)
{
    *name = "";
    if (!u || !u->name || strncmp(u->name, KG_NODE_USER_PREFIX, strlen(KG_NODE_USER_PREFIX)))
        return false;
    if (!kg_user_in_group(u, KG_GROUP_NODES))
        return false;
    *name = u->name + strlen(KG_NODE_USER_PREFIX);
    return true;
}
