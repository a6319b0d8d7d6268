/* The built-in kinds' schemas for structured merge (smd_schema.h). */
#include <stdio.h>
#include <string.h>

#include "api/schema.h"
#include "api/smd_schema.h"

static bool builtin_field(const kg_smd_schema *s, const void *handle, const char *name, kg_smd_type *out)
{
    (void)s;
    kg_schema_field_info fi;
    if (!kg_schema_field_interned(handle, name, &fi))
        return false;
    memset(out, 0, sizeof *out);
    out->handle = fi.ref;
    if (fi.is_array) {
        const char *lt = fi.list_type;
        if (lt && !strcmp(lt, "map")) {
            out->rel = KG_SMD_ASSOC;
            out->keys = fi.list_map_keys;
        } else if (lt && !strcmp(lt, "set")) {
            out->rel = KG_SMD_SET;
        } else if (lt) {
            out->rel = KG_SMD_ATOMIC;
        } else if (fi.strategy && strstr(fi.strategy, "merge")) {
            out->rel = fi.merge_key ? KG_SMD_ASSOC : KG_SMD_SET;
            out->keys = fi.merge_key;
        } else {
            out->rel = KG_SMD_ATOMIC;
        }
    } else if (fi.is_map) {
        /* x-kubernetes-map-type: atomic (the schema data does not carry it; the built-in cases are listed) */
        bool atomic = !strcmp(handle, "io.k8s.api.core.v1.ServiceSpec") && !strcmp(name, "selector");
        out->rel = atomic ? KG_SMD_ATOMIC : KG_SMD_GRANULAR;
        out->map = !atomic;
    } else {
        out->rel = fi.ref ? KG_SMD_GRANULAR : KG_SMD_DEDUCED;
    }
    return true;
}

static const kg_smd_schema builtin = {builtin_field, NULL};

const kg_smd_schema *kg_api_smd_schema(void)
{
    return &builtin;
}

kg_smd_type kg_api_smd_root(const kg_resource *r)
{
    /* the type names are interned by the schema index: find ours through the kind's own "metadata" field */
    char name[256];
    const char *g = r->group[0] ? r->group : "core";
    const char *dot = strchr(g, '.');
    snprintf(name, sizeof name, "io.k8s.api.%.*s.%s.%s", dot ? (int)(dot - g) : (int)strlen(g), g, r->version, r->kind);
    kg_schema_field_info fi;
    if (!kg_schema_field(name, "metadata", &fi))
        return kg_smd_root(NULL);
    return kg_smd_root(kg_schema_type_interned(name));
}
