/* One storage, several served versions: the table of conversions and the helpers the doors call. */
#include "api/versions.h"

#include <string.h>

#include "api/defaults.h"

static const kg_version_conv convs[] = {
    {"autoscaling", "v1", "horizontalpodautoscalers", "autoscaling", "v2", "horizontalpodautoscalers",
     kg_convert_hpa_v1_to_v2, kg_convert_hpa_v2_to_v1},
    {"events.k8s.io", "v1", "events", "", "v1", "events", kg_convert_event_events_to_core,
     kg_convert_event_core_to_events},
};

const kg_version_conv *kg_version_conv_find(const char *group, const char *version, const char *plural)
{
    for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++)
        if (!strcmp(convs[i].group, group) && !strcmp(convs[i].version, version) && !strcmp(convs[i].plural, plural))
            return &convs[i];
    return NULL;
}

const kg_resource *kg_version_storage_resource(const kg_resource *r)
{
    if (!r || !r->conv)
        return r;
    const kg_resource *s = kg_resource_find(r->conv->storage_group, r->conv->storage_version, r->conv->storage_plural);
    return s ? s : r;
}

kg_json *kg_version_to_storage(kg_arena *a, const kg_resource *r, kg_json *obj)
{
    if (!r || !r->conv || !obj || obj->type != KG_JSON_OBJECT)
        return obj;
    kg_json *out = r->conv->to_storage(a, obj);
    kg_api_default(a, kg_version_storage_resource(r), out); /* as the storage version's decoder would */
    return out;
}

kg_json *kg_version_from_storage(kg_arena *a, const kg_resource *r, kg_json *obj)
{
    if (!r || !r->conv || !obj || obj->type != KG_JSON_OBJECT)
        return obj;
    return r->conv->from_storage(a, obj);
}

const char *kg_version_stored_bytes(kg_arena *a, const kg_resource *r, const char *bytes, size_t len, size_t *out_len)
{
    *out_len = len;
    if (!r || !r->conv)
        return bytes;
    kg_error err;
    kg_json *obj = kg_json_parse(a, bytes, len, &err);
    if (!obj || obj->type != KG_JSON_OBJECT)
        return bytes;
    return kg_json_to_string(a, r->conv->from_storage(a, obj), 0, out_len);
}

void kg_version_table_objects(kg_arena *a, const kg_resource *r, kg_json *table)
{
    if (!r || !r->conv)
        return;
    kg_json *rows = kg_json_get(table, "rows");
    for (uint32_t i = 0; rows && rows->type == KG_JSON_ARRAY && i < rows->len; i++) {
        kg_json *obj = kg_json_get(rows->u.items[i], "object");
        const char *kind = obj ? kg_json_get_str(obj, "kind") : NULL;
        if (obj && obj->type == KG_JSON_OBJECT && !(kind && !strcmp(kind, "PartialObjectMetadata")))
            kg_json_set(a, rows->u.items[i], "object", r->conv->from_storage(a, obj));
    }
}
