/* Object encoding for storage and the resourceVersion splice. */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "server/apiserver.h"

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
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    char buf[32];
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return kg_arena_strdup(a, buf);
}

char *kg_obj_new_uid(kg_arena *a)
{
    unsigned char r[16];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        for (int i = 0; i < 16; i++)
            r[i] = (unsigned char)(ts.tv_nsec >> (i % 8)) ^ (unsigned char)i;
    }
    r[6] = (r[6] & 0x0f) | 0x40; /* version 4 */
    r[8] = (r[8] & 0x3f) | 0x80; /* variant */
    return kg_arena_sprintf(a, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", r[0], r[1],
                            r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
}
