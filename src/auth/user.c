/* user.Info helpers. */
#include "auth/user.h"

#include <string.h>

bool kg_user_in_group(const kg_user_info *u, const char *group)
{
    if (!u)
        return false;
    for (size_t i = 0; i < u->ngroups; i++)
        if (u->groups[i] && strcmp(u->groups[i], group) == 0)
            return true;
    return false;
}
