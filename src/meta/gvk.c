/* Group/version/kind/resource helpers (schema.ParseGroupVersion and the String() forms). */
#include "meta/gvk.h"

#include <string.h>

static const char *nz(const char *s)
{
    return s ? s : "";
}

bool kg_gv_parse(kg_arena *a, const char *api_version, kg_gv *out, kg_error *err)
{
    const char *s = nz(api_version);
    out->group = "";
    out->version = "";
    if (s[0] == '\0' || strcmp(s, "/") == 0)
        return true;
    const char *slash = strchr(s, '/');
    if (!slash) {
        out->version = kg_arena_strdup(a, s);
        return true;
    }
    if (strchr(slash + 1, '/'))
        return kg_err_set(err, KG_EINVAL, "unexpected GroupVersion string: %s", s);
    out->group = kg_arena_strndup(a, s, (size_t)(slash - s));
    out->version = kg_arena_strdup(a, slash + 1);
    return true;
}

char *kg_gv_string(kg_arena *a, const char *group, const char *version)
{
    if (nz(group)[0])
        return kg_arena_sprintf(a, "%s/%s", group, nz(version));
    return kg_arena_strdup(a, nz(version));
}

char *kg_gr_string(kg_arena *a, kg_gr gr)
{
    if (nz(gr.group)[0])
        return kg_arena_sprintf(a, "%s.%s", nz(gr.resource), gr.group);
    return kg_arena_strdup(a, nz(gr.resource));
}

char *kg_gk_string(kg_arena *a, kg_gk gk)
{
    if (nz(gk.group)[0])
        return kg_arena_sprintf(a, "%s.%s", nz(gk.kind), gk.group);
    return kg_arena_strdup(a, nz(gk.kind));
}

char *kg_gvk_string(kg_arena *a, kg_gvk gvk)
{
    return kg_arena_sprintf(a, "%s/%s, Kind=%s", nz(gvk.group), nz(gvk.version), nz(gvk.kind));
}

char *kg_gvr_string(kg_arena *a, kg_gvr gvr)
{
    return kg_arena_sprintf(a, "%s/%s, Resource=%s", nz(gvr.group), nz(gvr.version), nz(gvr.resource));
}

bool kg_gvk_equal(kg_gvk x, kg_gvk y)
{
    return strcmp(nz(x.group), nz(y.group)) == 0 && strcmp(nz(x.version), nz(y.version)) == 0 &&
           strcmp(nz(x.kind), nz(y.kind)) == 0;
}

bool kg_gvr_equal(kg_gvr x, kg_gvr y)
{
    return strcmp(nz(x.group), nz(y.group)) == 0 && strcmp(nz(x.version), nz(y.version)) == 0 &&
           strcmp(nz(x.resource), nz(y.resource)) == 0;
}
