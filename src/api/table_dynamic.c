/* Server-side printing of custom resources (api/dynamic.h): Name, then the CRD version's
 * additionalPrinterColumns evaluated as simple JSONPaths (dates printed as ages), or Age when it declares none —
 * what apiextensions-apiserver's table convertor prints. */
#include <stdlib.h>
#include <string.h>

#include "api/dynamic.h"
#include "api/table.h"
#include "api/table_dynamic.h"

static kg_json *sref(kg_arena *a, const char *s)
{
    return kg_json_new_str_ref(a, s, strlen(s));
}

const kg_json *kg_dynamic_json_path(const kg_json *obj, const char *path)
{
    if (!path || path[0] != '.')
        return NULL;
    const kg_json *cur = obj;
    const char *p = path + 1;
    while (cur && *p) {
        const char *end = p;
        while (*end && *end != '.' && *end != '[')
            end++;
        if (end > p)
            cur = kg_json_getn(cur, p, (size_t)(end - p));
        p = end;
        while (cur && *p == '[') {
            char *close;
            long idx = strtol(p + 1, &close, 10);
            if (*close != ']' || idx < 0)
                return NULL;
            cur = kg_json_at(cur, (size_t)idx);
            p = close + 1;
        }
        if (*p == '.')
            p++;
        else if (*p)
            return NULL;
    }
    return cur;
}

void kg_dynamic_set_path(kg_arena *a, kg_json *obj, const char *path, kg_json *v)
{
    if (!path || path[0] != '.' || !obj || obj->type != KG_JSON_OBJECT)
        return;
    const char *p = path + 1;
    for (;;) {
        const char *dot = strchr(p, '.');
        if (!dot) {
            kg_json_setn(a, obj, p, strlen(p), v);
            return;
        }
        char *key = kg_arena_strndup(a, p, (size_t)(dot - p));
        obj = kg_json_get_or_add_object(a, obj, key);
        p = dot + 1;
    }
}

static const char NAME_DESC[] =
    "Name must be unique within a namespace. Is required when creating resources, although some resources may allow "
    "a client to request the generation of an appropriate name automatically. Name is primarily intended for "
    "creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
static const char AGE_DESC[] =
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is "
    "represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

static kg_json *column(kg_arena *a, const char *name, const char *type, const char *format, const char *desc,
                       int priority)
{
    kg_json *c = kg_json_new_object(a);
    kg_json_set(a, c, "name", sref(a, name));
    kg_json_set(a, c, "type", sref(a, type));
    kg_json_set(a, c, "format", sref(a, format ? format : ""));
    kg_json_set(a, c, "description", sref(a, desc ? desc : ""));
    kg_json_set(a, c, "priority", kg_json_new_int(a, priority));
    return c;
}

kg_json *kg_dynamic_table_columns(kg_arena *a, const kg_resource *r)
{
    const kg_dynamic_info *info = kg_dynamic_info_of(r);
    kg_json *cols = kg_json_new_array(a);
    kg_json_array_append(a, cols, column(a, "Name", "string", "name", NAME_DESC, 0));
    if (!info->ncolumns) {
        kg_json_array_append(a, cols, column(a, "Age", "date", "", AGE_DESC, 0));
        return cols;
    }
    for (size_t i = 0; i < info->ncolumns; i++) {
        const kg_dynamic_column *c = &info->columns[i];
        kg_json_array_append(a, cols, column(a, c->name, c->type, c->format, c->description, c->priority));
    }
    return cols;
}

void kg_dynamic_table_cells(kg_arena *a, const kg_resource *r, const kg_json *obj, kg_json *cells, int64_t now)
{
    const kg_dynamic_info *info = kg_dynamic_info_of(r);
    const char *name = kg_json_path_str(obj, "metadata.name");
    kg_json_array_append(a, cells, kg_json_new_str(a, name ? name : ""));
    if (!info->ncolumns) {
        kg_json_array_append(a, cells, kg_json_new_str(a, kg_api_age(a, obj, now)));
        return;
    }
    for (size_t i = 0; i < info->ncolumns; i++) {
        const kg_dynamic_column *c = &info->columns[i];
        const kg_json *v = kg_dynamic_json_path(obj, c->json_path);
        if (!v || v->type == KG_JSON_NULL) {
            kg_json_array_append(a, cells, kg_json_new_null(a));
        } else if (!strcmp(c->type, "date") && v->type == KG_JSON_STRING) {
            /* a date prints as the time since it, like Age */
            kg_json *tmp = kg_json_new_object(a), *md = kg_json_new_object(a);
            kg_json_set(a, md, "creationTimestamp", (kg_json *)v);
            kg_json_set(a, tmp, "metadata", md);
            kg_json_array_append(a, cells, kg_json_new_str(a, kg_api_age(a, tmp, now)));
        } else if (v->type == KG_JSON_OBJECT || v->type == KG_JSON_ARRAY) {
            kg_json_array_append(a, cells, kg_json_new_str(a, kg_json_to_string(a, v, 0, NULL)));
        } else {
            kg_json_array_append(a, cells, (kg_json *)v);
        }
    }
}
