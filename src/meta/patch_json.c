/* RFC 6902 JSON Patch with the semantics and messages of gopkg.in/evanphx/json-patch.v4 (v4.12), which is what
 * kube-apiserver uses for application/json-patch+json requests and for mutating-webhook patches.
 *
 * Notable v4 behaviours kept on purpose (clients depend on them):
 *   - "replace" of a missing object member adds it (v4 only checks that the parent exists);
 *   - "replace" at "" swaps the whole document for an object/array value and silently ignores other values;
 *     "test" at "" compares the whole document; "add"/"remove"/"move"/"copy" never resolve "";
 *   - "copy" from a missing object member copies null;
 *   - "test" compares scalars by their JSON text (1 and 1.0 differ);
 *   - negative array indices count from the end;
 *   - a path whose first "/" is not at the start ignores what precedes it ("x/a" addresses "/a"). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "meta/patch.h"

/* Go's strconv.Atoi on a (decoded) pointer token; fills a Go-style error text on failure. */
static bool go_atoi(const char *s, int64_t *out, char *errbuf, size_t errlen)
{
    const char *p = s;
    bool neg = false;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p++;
    }
    if (!*p) {
        snprintf(errbuf, errlen, "strconv.Atoi: parsing \"%s\": invalid syntax", s);
        return false;
    }
    uint64_t v = 0;
    bool range = false;
    for (; *p; p++) {
        if (*p < '0' || *p > '9') {
            snprintf(errbuf, errlen, "strconv.Atoi: parsing \"%s\": invalid syntax", s);
            return false;
        }
        if (v > (UINT64_MAX - 9) / 10)
            range = true;
        else
            v = v * 10 + (uint64_t)(*p - '0');
    }
    if (range || (!neg && v > (uint64_t)INT64_MAX) || (neg && v > (uint64_t)INT64_MAX + 1)) {
        snprintf(errbuf, errlen, "strconv.Atoi: parsing \"%s\": value out of range", s);
        return false;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

/* Decode one reference token: "~1" -> "/", "~0" -> "~" (single left-to-right pass). */
static char *decode_token(kg_arena *a, const char *s, size_t n)
{
    char *out = kg_arena_alloc(a, n + 1);
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '~' && i + 1 < n && (s[i + 1] == '1' || s[i + 1] == '0')) {
            out[j++] = s[i + 1] == '1' ? '/' : '~';
            i++;
        } else {
            out[j++] = s[i];
        }
    }
    out[j] = 0;
    return out;
}

char *kg_patch_json_escape_key(kg_arena *a, const char *key)
{
    size_t n = strlen(key), extra = 0;
    for (size_t i = 0; i < n; i++)
        extra += key[i] == '~' || key[i] == '/';
    char *out = kg_arena_alloc(a, n + extra + 1), *o = out;
    for (size_t i = 0; i < n; i++) {
        if (key[i] == '~') {
            *o++ = '~';
            *o++ = '0';
        } else if (key[i] == '/') {
            *o++ = '~';
            *o++ = '1';
        } else {
            *o++ = key[i];
        }
    }
    *o = 0;
    return out;
}

/* container get: object member (NULL if missing or JSON null, like v4's nil lazyNode) or array element. */
typedef enum { GET_OK, GET_ERR } get_rc;

static get_rc arr_index(const kg_json *arr, const char *key, int64_t *idx, char *eb, size_t el)
{
    int64_t i;
    if (!go_atoi(key, &i, eb, el))
        return GET_ERR;
    int64_t len = arr->len;
    if (i < 0) {
        if (i < -len) {
            snprintf(eb, el, "Unable to access invalid index: %" PRId64 ": invalid index referenced", i);
            return GET_ERR;
        }
        i += len;
    }
    if (i >= len) {
        snprintf(eb, el, "Unable to access invalid index: %" PRId64 ": invalid index referenced", i);
        return GET_ERR;
    }
    *idx = i;
    return GET_OK;
}

static get_rc con_get(const kg_json *con, const char *key, kg_json **val, char *eb, size_t el)
{
    if (con->type == KG_JSON_OBJECT) {
        kg_json *v = kg_json_get(con, key);
        *val = (v && v->type != KG_JSON_NULL) ? v : NULL;
        return GET_OK;
    }
    int64_t i;
    if (arr_index(con, key, &i, eb, el) != GET_OK)
        return GET_ERR;
    kg_json *v = con->u.items[i];
    *val = (v && v->type != KG_JSON_NULL) ? v : NULL;
    return GET_OK;
}

static bool con_add(kg_arena *a, kg_json *con, const char *key, kg_json *val, char *eb, size_t el)
{
    if (!val)
        val = kg_json_new_null(a);
    if (con->type == KG_JSON_OBJECT) {
        kg_json_set(a, con, key, val);
        return true;
    }
    if (strcmp(key, "-") == 0) {
        kg_json_array_append(a, con, val);
        return true;
    }
    int64_t i;
    char tmp[256];
    if (!go_atoi(key, &i, tmp, sizeof tmp)) {
        snprintf(eb, el, "value was not a proper array index: '%s': %s", key, tmp);
        return false;
    }
    int64_t sz = (int64_t)con->len + 1;
    if (i >= sz || i < -sz) {
        snprintf(eb, el, "Unable to access invalid index: %" PRId64 ": invalid index referenced", i);
        return false;
    }
    if (i < 0)
        i += sz;
    kg_json_array_insert(a, con, (size_t)i, val);
    return true;
}

static bool con_remove(kg_json *con, const char *key, char *eb, size_t el)
{
    if (con->type == KG_JSON_OBJECT) {
        if (!kg_json_del(con, key)) {
            snprintf(eb, el, "Unable to remove nonexistent key: %s: missing value", key);
            return false;
        }
        return true;
    }
    int64_t i;
    if (!go_atoi(key, &i, eb, el))
        return false;
    int64_t len = con->len;
    if (i >= len || i < -len) {
        snprintf(eb, el, "Unable to access invalid index: %" PRId64 ": invalid index referenced", i);
        return false;
    }
    if (i < 0)
        i += len;
    kg_json_array_remove(con, (size_t)i);
    return true;
}

/* findObject: the container holding the last token, and the decoded last token. */
static kg_json *find_object(kg_arena *a, kg_json *doc, const char *path, const char **key)
{
    const char *slash = strchr(path, '/');
    if (!slash)
        return NULL;
    /* v4 splits on "/" and ignores everything before the first one */
    const char *p = slash + 1;
    kg_json *cur = doc;
    for (;;) {
        const char *next = strchr(p, '/');
        if (!next) {
            *key = decode_token(a, p, strlen(p));
            return cur;
        }
        char *tok = decode_token(a, p, (size_t)(next - p));
        kg_json *v = NULL;
        char eb[64];
        if (con_get(cur, tok, &v, eb, sizeof eb) != GET_OK || !v)
            return NULL;
        if (v->type != KG_JSON_OBJECT && v->type != KG_JSON_ARRAY)
            return NULL;
        cur = v;
        p = next + 1;
    }
}

/* lazyNode.equal: structural for objects and arrays, raw text for scalars (JSON null members are nil in v4). */
static bool v4_equal(const kg_json *n, const kg_json *o)
{
    if (!n || n->type == KG_JSON_NULL)
        return !o || o->type == KG_JSON_NULL;
    if (!o || o->type == KG_JSON_NULL)
        return false;
    switch (n->type) {
    case KG_JSON_OBJECT:
        if (o->type != KG_JSON_OBJECT || o->len != n->len)
            return false;
        for (uint32_t i = 0; i < n->len; i++) {
            const kg_json_member *m = &n->u.members[i];
            const kg_json *ov = kg_json_getn(o, m->key, m->key_len);
            if (!ov || !v4_equal(m->val, ov))
                return false;
        }
        return true;
    case KG_JSON_ARRAY:
        if (o->type != KG_JSON_ARRAY || o->len != n->len)
            return false;
        for (uint32_t i = 0; i < n->len; i++)
            if (!v4_equal(n->u.items[i], o->u.items[i]))
                return false;
        return true;
    case KG_JSON_NUMBER:
        if (o->type != KG_JSON_NUMBER)
            return false;
        if (n->u.num.raw && o->u.num.raw)
            return n->len == o->len && memcmp(n->u.num.raw, o->u.num.raw, n->len) == 0;
        return n->u.num.d == o->u.num.d;
    default:
        if (o->type != n->type)
            return false;
        return kg_json_equal(n, o);
    }
}

static const char *go_json_type(const kg_json *v)
{
    switch (v->type) {
    case KG_JSON_OBJECT: return "object";
    case KG_JSON_ARRAY: return "array";
    case KG_JSON_STRING: return "string";
    case KG_JSON_BOOL: return "bool";
    default: return "number";
    }
}

/* Operation.Path()/From(): 0 ok, else fills eb with the Go error. */
static bool op_str(const kg_json *op, const char *field, const char *missing_msg, const char **out, char *eb, size_t el)
{
    const kg_json *v = kg_json_get(op, field);
    if (!v || v->type == KG_JSON_NULL) {
        snprintf(eb, el, "%s: missing value", missing_msg);
        return false;
    }
    if (v->type != KG_JSON_STRING) {
        snprintf(eb, el, "json: cannot unmarshal %s into Go value of type string", go_json_type(v));
        return false;
    }
    *out = v->u.s;
    return true;
}

#define FAIL(...) return kg_err_set(err, KG_EINVAL, __VA_ARGS__)

static bool apply_op(kg_arena *a, kg_json **docp, const kg_json *op, int64_t *copied, kg_error *err)
{
    kg_json *doc = *docp;
    const char *kind = "unknown";
    const kg_json *k = kg_json_get(op, "op");
    if (k && k->type == KG_JSON_STRING)
        kind = k->u.s;
    const kg_json *value = kg_json_get(op, "value"); /* NULL: absent */
    const char *path = NULL, *from = NULL, *key = NULL;
    char eb[512];
    kg_json *con, *val = NULL;

    if (strcmp(kind, "add") == 0) {
        if (!op_str(op, "path", "operation missing path field", &path, eb, sizeof eb))
            FAIL("add operation failed to decode path: missing value");
        if (!(con = find_object(a, doc, path, &key)))
            FAIL("add operation does not apply: doc is missing path: \"%s\": missing value", path);
        if (!con_add(a, con, key, value ? kg_json_clone(a, value) : NULL, eb, sizeof eb))
            FAIL("error in add for path: '%s': %s", path, eb);
        return true;
    }
    if (strcmp(kind, "remove") == 0) {
        if (!op_str(op, "path", "operation missing path field", &path, eb, sizeof eb))
            FAIL("remove operation failed to decode path: missing value");
        if (!(con = find_object(a, doc, path, &key)))
            FAIL("remove operation does not apply: doc is missing path: \"%s\": missing value", path);
        if (!con_remove(con, key, eb, sizeof eb))
            FAIL("error in remove for path: '%s': %s", path, eb);
        return true;
    }
    if (strcmp(kind, "replace") == 0) {
        if (!op_str(op, "path", "operation missing path field", &path, eb, sizeof eb))
            FAIL("replace operation failed to decode path: %s", eb);
        if (!*path) {
            /* the whole document; v4 wraps a nil error for other values, so they are silently ignored */
            if (value && (value->type == KG_JSON_OBJECT || value->type == KG_JSON_ARRAY))
                *docp = kg_json_clone(a, value);
            return true;
        }
        if (!(con = find_object(a, doc, path, &key)))
            FAIL("replace operation does not apply: doc is missing path: %s: missing value", path);
        if (con_get(con, key, &val, eb, sizeof eb) != GET_OK)
            FAIL("replace operation does not apply: doc is missing key: %s: missing value", path);
        kg_json *nv = value ? kg_json_clone(a, value) : kg_json_new_null(a);
        if (con->type == KG_JSON_OBJECT) {
            kg_json_set(a, con, key, nv);
        } else {
            int64_t i = 0; /* con_get just succeeded: the index is valid */
            if (arr_index(con, key, &i, eb, sizeof eb) != GET_OK)
                FAIL("replace operation does not apply: doc is missing key: %s: missing value", path);
            con->u.items[i] = nv;
        }
        return true;
    }
    if (strcmp(kind, "move") == 0) {
        if (!op_str(op, "from", "operation, missing from field", &from, eb, sizeof eb))
            FAIL("move operation failed to decode from: %s", eb);
        if (!(con = find_object(a, doc, from, &key)))
            FAIL("move operation does not apply: doc is missing from path: %s: missing value", from);
        if (con_get(con, key, &val, eb, sizeof eb) != GET_OK)
            FAIL("error in move for path: '%s': %s", key, eb);
        if (!con_remove(con, key, eb, sizeof eb))
            FAIL("error in move for path: '%s': %s", key, eb);
        if (!op_str(op, "path", "operation missing path field", &path, eb, sizeof eb))
            FAIL("move operation failed to decode path: %s", eb);
        if (!(con = find_object(a, doc, path, &key)))
            FAIL("move operation does not apply: doc is missing destination path: %s: missing value", path);
        if (!con_add(a, con, key, val, eb, sizeof eb))
            FAIL("error in move for path: '%s': %s", path, eb);
        return true;
    }
    if (strcmp(kind, "test") == 0) {
        if (!op_str(op, "path", "operation missing path field", &path, eb, sizeof eb))
            FAIL("test operation failed to decode path: %s", eb);
        if (!*path) {
            if (!v4_equal(doc, value))
                FAIL("testing value  failed: test failed");
            return true;
        }
        if (!(con = find_object(a, doc, path, &key)))
            FAIL("test operation does not apply: is missing path: %s: missing value", path);
        if (con_get(con, key, &val, eb, sizeof eb) != GET_OK)
            FAIL("error in test for path: '%s': %s", path, eb);
        if (!val) {
            if (!value || value->type == KG_JSON_NULL)
                return true;
            FAIL("testing value %s failed: test failed", path);
        }
        if (!value || !v4_equal(val, value))
            FAIL("testing value %s failed: test failed", path);
        return true;
    }
    if (strcmp(kind, "copy") == 0) {
        if (!op_str(op, "from", "operation, missing from field", &from, eb, sizeof eb))
            FAIL("copy operation failed to decode from: %s", eb);
        if (!(con = find_object(a, doc, from, &key)))
            FAIL("copy operation does not apply: doc is missing from path: %s: missing value", from);
        if (con_get(con, key, &val, eb, sizeof eb) != GET_OK)
            FAIL("error in copy for from: '%s': %s", from, eb);
        if (!op_str(op, "path", "operation missing path field", &path, eb, sizeof eb))
            FAIL("copy operation failed to decode path: missing value");
        if (!(con = find_object(a, doc, path, &key)))
            FAIL("copy operation does not apply: doc is missing destination path: %s: missing value", path);
        kg_buf vb = KG_BUF_INIT; /* the size the copy adds, as upstream measures it: the value's JSON encoding */
        if (val)
            kg_json_write(&vb, val, 0);
        else
            kg_buf_puts(&vb, "null");
        *copied += (int64_t)vb.len;
        kg_buf_free(&vb);
        if (*copied > KG_PATCH_JSON_MAX_COPY_BYTES)
            FAIL("Unable to complete the copy, the accumulated size increase of copy is %lld, exceeding the limit %d",
                 (long long)*copied, KG_PATCH_JSON_MAX_COPY_BYTES);
        if (!con_add(a, con, key, val ? kg_json_clone(a, val) : NULL, eb, sizeof eb))
            FAIL("error while adding value during copy: %s", eb);
        return true;
    }
    FAIL("Unexpected kind: %s", kind);
}

bool kg_patch_json(kg_arena *a, const kg_json *doc, const kg_json *patch, kg_json **out, kg_error *err)
{
    if (!a || !doc || !patch || !out)
        return kg_err_set(err, KG_EINVAL, "invalid JSON document");
    if (doc->type != KG_JSON_OBJECT && doc->type != KG_JSON_ARRAY)
        FAIL("json: cannot unmarshal %s into Go value of type jsonpatch.partialDoc", go_json_type(doc));
    if (patch->type == KG_JSON_NULL) { /* decodes to an empty patch */
        *out = kg_json_clone(a, doc);
        return true;
    }
    if (patch->type != KG_JSON_ARRAY)
        FAIL("json: cannot unmarshal %s into Go value of type jsonpatch.Patch", go_json_type(patch));
    for (uint32_t i = 0; i < patch->len; i++) {
        const kg_json *op = patch->u.items[i];
        if (op->type != KG_JSON_OBJECT && op->type != KG_JSON_NULL)
            FAIL("json: cannot unmarshal %s into Go value of type jsonpatch.Operation", go_json_type(op));
    }
    kg_json *work = kg_json_clone(a, doc);
    int64_t copied = 0;
    for (uint32_t i = 0; i < patch->len; i++)
        if (!apply_op(a, &work, patch->u.items[i], &copied, err))
            return false;
    *out = work;
    return true;
}

/* ---- API server helpers ---- */

bool kg_patch_format_from_content_type(const char *ct, kg_patch_format *out)
{
    if (!ct)
        return false;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    size_t n = strcspn(ct, ";");
    while (n && (ct[n - 1] == ' ' || ct[n - 1] == '\t'))
        n--;
    static const struct {
        const char *name;
        kg_patch_format f;
    } types[] = {
        {"application/json-patch+json", KG_PATCH_FORMAT_JSON},
        {"application/merge-patch+json", KG_PATCH_FORMAT_MERGE},
        {"application/strategic-merge-patch+json", KG_PATCH_FORMAT_STRATEGIC},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strlen(types[i].name) == n && strncasecmp(types[i].name, ct, n) == 0) {
            if (out)
                *out = types[i].f;
            return true;
        }
    return false;
}

static bool starts_with(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

int kg_patch_http_status(kg_patch_format format, const kg_error *err)
{
    const char *m = err ? err->msg : "";
    switch (format) {
    case KG_PATCH_FORMAT_JSON:
        /* jsonpatch.DecodePatch failures are BadRequest; Apply failures 422 */
        return starts_with(m, "json: ") ? 400 : 422;
    case KG_PATCH_FORMAT_MERGE: return strcmp(m, "Invalid JSON Patch") == 0 ? 400 : 500;
    case KG_PATCH_FORMAT_STRATEGIC:
        /* interpretStrategicMergePatchError, plus the patch body decode (BadRequest) */
        if (starts_with(m, "json: ") || strcmp(m, "invalid JSON document") == 0 ||
            strcmp(m, "invalid patch format of primitive list") == 0 ||
            strcmp(m, "invalid patch format of retainKeys") == 0 ||
            strcmp(m, "invalid patch format of setElementOrder list") == 0)
            return 400;
        if (strcmp(m, "lists of lists are not supported") == 0 ||
            strcmp(m, "patch content doesn't match retainKeys list") == 0)
            return 422;
        return 500;
    }
    return 500;
}
