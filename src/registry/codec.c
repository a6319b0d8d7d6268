/* Object encoding for storage and the resourceVersion splice. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "meta/object.h"
#include "registry/codec.h"

const char *kg_obj_encode(kg_arena *a, kg_json *obj, size_t *len)
{
    kg_json *md = kg_json_get(obj, "metadata");
    if (md && md->type == KG_JSON_OBJECT)
        kg_json_del(md, "resourceVersion");
    /* order: apiVersion, kind, metadata, then the rest as given */
    static const char *const first[] = {"apiVersion", "kind", "metadata"};
    uint32_t pos = 0;
    for (int f = 0; f < 3; f++) {
        for (uint32_t i = pos; i < obj->len; i++) {
            if (!strcmp(obj->u.members[i].key, first[f])) {
                kg_json_member m = obj->u.members[i];
                memmove(&obj->u.members[pos + 1], &obj->u.members[pos], (i - pos) * sizeof m);
                obj->u.members[pos++] = m;
                break;
            }
        }
    }
    return kg_json_to_string(a, obj, 0, len);
}

/* Position right after `"metadata":{` at the top level, or 0 if absent. Objects we store always have
 * apiVersion and kind (plain identifiers) before metadata, so the first occurrence is the top-level one. */
static size_t metadata_open(const char *b, size_t len)
{
    static const char pat[] = "\"metadata\":{";
    const size_t pl = sizeof pat - 1;
    const char *p = b, *end = b + len;
    while (p + pl <= end) {
        const char *q = memchr(p, '"', (size_t)(end - p));
        if (!q || q + pl > end)
            return 0;
        if (memcmp(q, pat, pl) == 0)
            return (size_t)(q - b) + pl;
        p = q + 1;
    }
    return 0;
}

void kg_obj_splice_rv(kg_buf *out, const char *bytes, size_t len, int64_t rev)
{
    size_t at = metadata_open(bytes, len);
    if (!at) {
        kg_buf_append(out, bytes, len);
        return;
    }
    kg_buf_append(out, bytes, at);
    char tmp[48];
    int n = snprintf(tmp, sizeof tmp, "\"resourceVersion\":\"%lld\"%s", (long long)rev,
                     (at < len && bytes[at] == '}') ? "" : ",");
    kg_buf_append(out, tmp, (size_t)n);
    kg_buf_append(out, bytes + at, len - at);
}

#define AV_LEAD "{\"apiVersion\":\""

/* The stored apiVersion value when it leads the bytes: [*start, *end). */
static bool leading_api_version(const char *bytes, size_t len, size_t *start, size_t *end)
{
    const size_t pl = sizeof AV_LEAD - 1;
    if (len < pl || memcmp(bytes, AV_LEAD, pl))
        return false;
    const char *q = memchr(bytes + pl, '"', len - pl);
    if (!q || memchr(bytes + pl, '\\', (size_t)(q - bytes) - pl))
        return false;
    *start = pl;
    *end = (size_t)(q - bytes);
    return true;
}

bool kg_obj_api_version_is(const char *bytes, size_t len, const char *api_version)
{
    size_t s, e;
    if (!api_version)
        return true;
    if (leading_api_version(bytes, len, &s, &e))
        return e - s == strlen(api_version) && !memcmp(bytes + s, api_version, e - s);
    return false;
}

void kg_obj_set_api_version(kg_arena *a, kg_json *obj, const char *api_version)
{
    if (!api_version || !obj || obj->type != KG_JSON_OBJECT)
        return;
    const char *cur = kg_json_get_str(obj, "apiVersion");
    if (!cur || strcmp(cur, api_version))
        kg_json_set(a, obj, "apiVersion", kg_json_new_str_ref(a, api_version, strlen(api_version)));
}

const char *kg_obj_with_api_version(kg_arena *a, const char *bytes, size_t len, const char *api_version,
                                    size_t *out_len)
{
    size_t s, e;
    *out_len = len;
    if (!api_version || kg_obj_api_version_is(bytes, len, api_version))
        return bytes;
    if (leading_api_version(bytes, len, &s, &e)) {
        size_t avl = strlen(api_version), n = len - (e - s) + avl;
        char *out = kg_arena_alloc(a, n + 1);
        memcpy(out, bytes, s);
        memcpy(out + s, api_version, avl);
        memcpy(out + s + avl, bytes + e, len - e);
        out[n] = 0;
        *out_len = n;
        return out;
    }
    /* apiVersion elsewhere (not written by kg_obj_encode): decode, set, re-encode */
    kg_error err;
    kg_json *obj = kg_json_parse(a, bytes, len, &err);
    if (!obj || obj->type != KG_JSON_OBJECT)
        return bytes;
    kg_obj_set_api_version(a, obj, api_version);
    return kg_obj_encode(a, obj, out_len);
}

void kg_obj_splice_rv_as(kg_arena *a, kg_buf *out, const char *bytes, size_t len, int64_t rev, const char *api_version)
{
    size_t n;
    const char *b = kg_obj_with_api_version(a, bytes, len, api_version, &n);
    kg_obj_splice_rv(out, b, n, rev);
}

kg_json *kg_obj_decode(kg_arena *a, const char *bytes, size_t len, int64_t rev, kg_error *err)
{
    kg_json *obj = kg_json_parse(a, bytes, len, err);
    if (!obj || obj->type != KG_JSON_OBJECT)
        return NULL;
    kg_json *md = kg_json_get_or_add_object(a, obj, "metadata");
    char *rv = kg_arena_sprintf(a, "%lld", (long long)rev);
    kg_json_set(a, md, "resourceVersion", kg_json_new_str_ref(a, rv, strlen(rv)));
    return obj;
}

char *kg_obj_now_rfc3339(kg_arena *a)
{
    char buf[32];
    return kg_arena_strdup(a, kg_time_format(time(NULL), buf));
}

char *kg_obj_new_uid(kg_arena *a)
{
    char u[37];
    kg_uuid_v4(u);
    return kg_arena_strdup(a, u);
}
