/* CSR PrepareForCreate (see csrstrategy.h). */
#include "registry/csrstrategy.h"

void kg_csr_prepare_for_create(kg_arena *a, const kg_user_info *user, kg_json *obj)
{
    kg_json *spec = kg_json_get_or_add_object(a, obj, "spec");
    static const char *const cleared[] = {"username", "uid", "groups", "extra"};
    for (size_t i = 0; i < sizeof cleared / sizeof cleared[0]; i++)
        kg_json_del(spec, cleared[i]);
    if (user) {
        if (user->name && *user->name)
            kg_json_set(a, spec, "username", kg_json_new_str(a, user->name));
        if (user->uid && *user->uid)
            kg_json_set(a, spec, "uid", kg_json_new_str(a, user->uid));
        if (user->ngroups) {
            kg_json *g = kg_json_new_array(a);
            for (size_t i = 0; i < user->ngroups; i++)
                kg_json_array_append(a, g, kg_json_new_str(a, user->groups[i]));
            kg_json_set(a, spec, "groups", g);
        }
        if (user->nextra) {
            kg_json *ex = kg_json_new_object(a);
            for (size_t i = 0; i < user->nextra; i++) {
                kg_json *vals = kg_json_new_array(a);
                for (size_t j = 0; j < user->extra[i].nvalues; j++)
                    kg_json_array_append(a, vals, kg_json_new_str(a, user->extra[i].values[j]));
                kg_json_set(a, ex, user->extra[i].key, vals);
            }
            kg_json_set(a, spec, "extra", ex);
        }
    }
    kg_json *status = kg_json_new_object(a);
    kg_json_set(a, status, "conditions", kg_json_new_array(a));
    kg_json_set(a, obj, "status", status);
}
