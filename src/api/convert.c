/* Request-body conversion effects (convert.h); upstream: kubernetes/kubernetes pkg/apis/core/v1/conversion.go. */
#include "api/convert.h"

#include <string.h>

#include "base/base64.h"

static void secret_string_data(kg_arena *a, kg_json *obj)
{
    kg_json *sd = kg_json_get(obj, "stringData");
    if (!sd)
        return;
    if (sd->type == KG_JSON_OBJECT && sd->len) {
        kg_json *data = kg_json_get_or_add_object(a, obj, "data");
        for (uint32_t i = 0; i < sd->len; i++) {
            const kg_json *v = sd->u.members[i].val;
            const char *s = v && v->type == KG_JSON_STRING ? v->u.s : "";
            size_t n = v && v->type == KG_JSON_STRING ? v->len : 0;
            size_t len;
            char *enc = kg_base64_encode(a, s, n, 0, &len);
            kg_json_set(a, data, sd->u.members[i].key, kg_json_new_str_ref(a, enc, len));
        }
    }
    kg_json_del(obj, "stringData");
}

void kg_api_convert_in(kg_arena *a, const kg_resource *r, kg_json *obj)
{
    if (!obj || obj->type != KG_JSON_OBJECT)
        return;
    if (!r->group[0] && !strcmp(r->plural, "secrets"))
        secret_string_data(a, obj);
}
