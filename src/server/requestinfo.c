/* RequestInfo parsing, following k8s.io/apiserver/pkg/endpoints/request/requestinfo.go (v1.33). */
#include "server/requestinfo.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool is_special_verb(const char *s)
{
    return !strcmp(s, "proxy") || !strcmp(s, "watch");
}
static bool is_namespace_subresource(const char *s)
{
    return !strcmp(s, "status") || !strcmp(s, "finalize");
}

/* strings.Split(strings.Trim(path, "/"), "/") */
static const char **split_path(kg_arena *a, const char *path, size_t *n)
{
    size_t len = strlen(path);
    size_t b = 0, e = len;
    while (b < e && path[b] == '/')
        b++;
    while (e > b && path[e - 1] == '/')
        e--;
    *n = 0;
    if (b == e)
        return NULL;
    size_t cnt = 1;
    for (size_t i = b; i < e; i++)
        if (path[i] == '/')
            cnt++;
    const char **parts = kg_arena_alloc(a, cnt * sizeof(*parts));
    size_t start = b;
    for (size_t i = b; i <= e; i++) {
        if (i == e || path[i] == '/') {
            parts[(*n)++] = kg_arena_strndup(a, path + start, i - start);
            start = i + 1;
        }
    }
    return parts;
}

/* ---- field selector (k8s.io/apimachinery/pkg/fields/selector.go), enough for RequiresExactMatch ---- */

/* Splits at unescaped sep; returns the number of pieces written to out (arena copies, escapes kept). */
static size_t split_unescaped(kg_arena *a, const char *s, char sep, const char ***out)
{
    size_t cnt = 1;
    for (const char *p = s; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (*p == sep)
            cnt++;
    }
    const char **v = kg_arena_alloc(a, cnt * sizeof(*v));
    size_t n = 0;
    const char *start = s;
    for (const char *p = s;; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (*p == sep || *p == '\0') {
            v[n++] = kg_arena_strndup(a, start, (size_t)(p - start));
            if (*p == '\0')
                break;
            start = p + 1;
        }
    }
    *out = v;
    return n;
}

/* UnescapeValue: only \\ \, \= are valid escapes. */
static bool unescape_value(kg_arena *a, const char *s, const char **out)
{
    size_t len = strlen(s);
    char *r = kg_arena_alloc(a, len + 1), *w = r;
    for (const char *p = s; *p; p++) {
        if (*p == '\\') {
            p++;
            if (*p != '\\' && *p != ',' && *p != '=')
                return false;
        } else if (*p == ',' || *p == '=') {
            return false; /* unescaped separators inside a value */
        }
        *w++ = *p;
    }
    *w = '\0';
    *out = r;
    return true;
}

/* Returns false on a parse error (upstream: "invalid selector"), else whether metadata.name exact match found. */
static bool field_selector_exact_name(kg_arena *a, const char *sel, const char **name, bool *found)
{
    *found = false;
    const char **terms;
    size_t n = split_unescaped(a, sel, ',', &terms);
    const char *match = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *t = terms[i];
        if (!*t)
            continue;
        /* splitTerm: the first position holding "!=", "==" or "=" (unescaped) */
        const char *op = NULL;
        size_t oplen = 0;
        for (const char *p = t; *p; p++) {
            if (*p == '\\' && p[1]) {
                p++;
                continue;
            }
            if (p[0] == '!' && p[1] == '=') {
                op = p, oplen = 2;
                break;
            }
            if (p[0] == '=' && p[1] == '=') {
                op = p, oplen = 2;
                break;
            }
            if (p[0] == '=') {
                op = p, oplen = 1;
                break;
            }
        }
        if (!op)
            return false;
        const char *field = kg_arena_strndup(a, t, (size_t)(op - t));
        const char *value;
        if (!unescape_value(a, op + oplen, &value))
            return false;
        if (!match && op[0] != '!' && !strcmp(field, "metadata.name"))
            match = value;
    }
    if (match) {
        *found = true;
        *name = match;
    }
    return true;
}

static bool valid_path_segment_name(const char *s)
{
    if (!strcmp(s, ".") || !strcmp(s, ".."))
        return false;
    return !strchr(s, '/') && !strchr(s, '%');
}

bool kg_requestinfo_parse(kg_arena *a, const char *method, const char *path, kg_requestinfo_query_fn query_get,
                          void *query_ud, kg_request_info *ri, kg_error *err)
{
    memset(ri, 0, sizeof(*ri));
    ri->path = path;
    size_t mlen = strlen(method);
    char *verb = kg_arena_alloc(a, mlen + 1);
    for (size_t i = 0; i <= mlen; i++)
        verb[i] = (char)tolower((unsigned char)method[i]);
    ri->verb = verb;
    ri->api_prefix = ri->api_group = ri->api_version = ri->namespace_ = "";
    ri->resource = ri->subresource = ri->name = "";

    size_t n;
    const char **parts = split_path(a, path, &n);
    if (n < 3)
        return true;
    if (strcmp(parts[0], "api") && strcmp(parts[0], "apis"))
        return true;
    ri->api_prefix = parts[0];
    parts++, n--;
    if (strcmp(ri->api_prefix, "api") != 0) {
        if (n < 3)
            return true;
        ri->api_group = parts[0];
        parts++, n--;
    }
    ri->is_resource_request = true;
    ri->api_version = parts[0];
    parts++, n--;

    if (is_special_verb(parts[0])) {
        if (n < 2)
            return kg_err_set(err, KG_EINVAL, "unable to determine kind and namespace from url, %s", path);
        ri->verb = parts[0];
        parts++, n--;
    } else if (!strcmp(method, "POST")) {
        ri->verb = "create";
    } else if (!strcmp(method, "GET") || !strcmp(method, "HEAD")) {
        ri->verb = "get";
    } else if (!strcmp(method, "PUT")) {
        ri->verb = "update";
    } else if (!strcmp(method, "PATCH")) {
        ri->verb = "patch";
    } else if (!strcmp(method, "DELETE")) {
        ri->verb = "delete";
    } else {
        ri->verb = "";
    }

    if (!strcmp(parts[0], "namespaces")) {
        if (n > 1) {
            ri->namespace_ = parts[1];
            if (n > 2 && !is_namespace_subresource(parts[2]))
                parts += 2, n -= 2;
        }
    }
    ri->parts = parts;
    ri->nparts = n;
    if (n >= 3 && strcmp(ri->verb, "proxy") != 0)
        ri->subresource = parts[2];
    if (n >= 2)
        ri->name = parts[1];
    if (n >= 1)
        ri->resource = parts[0];

    if (!*ri->name && !strcmp(ri->verb, "get")) {
        const char *w = query_get ? query_get(query_ud, "watch") : NULL;
        bool watch = w && strcmp(w, "0") != 0 && strcasecmp(w, "false") != 0;
        ri->verb = watch ? "watch" : "list";
        const char *fs = query_get ? query_get(query_ud, "fieldSelector") : NULL;
        if (fs) {
            const char *nm = NULL;
            bool found = false;
            /* a selector that does not parse resets the decoded options: no name (the watch flag stays) */
            if (field_selector_exact_name(a, fs, &nm, &found) && found && valid_path_segment_name(nm))
                ri->name = nm;
        }
    }
    if (!*ri->name && !strcmp(ri->verb, "delete"))
        ri->verb = "deletecollection";
    return true;
}

/* ---- raw query lookup (Go url.ParseQuery semantics for one key: first value wins, bad escapes skipped) ---- */

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static char *query_unescape(kg_arena *a, const char *s, size_t n)
{
    char *r = kg_arena_alloc(a, n + 1), *w = r;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            if (i + 2 >= n)
                return NULL;
            int h = hexval((unsigned char)s[i + 1]), l = hexval((unsigned char)s[i + 2]);
            if (h < 0 || l < 0)
                return NULL;
            *w++ = (char)(h * 16 + l);
            i += 2;
        } else if (s[i] == '+') {
            *w++ = ' ';
        } else {
            *w++ = s[i];
        }
    }
    *w = '\0';
    return r;
}

typedef struct raw_query {
    kg_arena *a;
    const char *q;
} raw_query;

static const char *raw_query_get(void *ud, const char *name)
{
    raw_query *rq = ud;
    const char *p = rq->q;
    while (p && *p) {
        const char *end = strchr(p, '&');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len && !memchr(p, ';', len)) {
            const char *eq = memchr(p, '=', len);
            size_t klen = eq ? (size_t)(eq - p) : len;
            char *k = query_unescape(rq->a, p, klen);
            if (k && !strcmp(k, name)) {
                char *v = eq ? query_unescape(rq->a, eq + 1, len - klen - 1) : kg_arena_strdup(rq->a, "");
                if (v)
                    return v;
            }
        }
        p = end ? end + 1 : NULL;
    }
    return NULL;
}

bool kg_requestinfo_parse_url(kg_arena *a, const char *method, const char *path, const char *raw_query_str,
                              kg_request_info *out, kg_error *err)
{
    raw_query rq = {a, raw_query_str ? raw_query_str : ""};
    return kg_requestinfo_parse(a, method, path, raw_query_get, &rq, out, err);
}

bool kg_requestinfo_is_long_running(const kg_request_info *ri)
{
    if (!ri->is_resource_request)
        return false;
    if (!strcmp(ri->verb, "watch") || !strcmp(ri->verb, "proxy"))
        return true;
    static const char *const subs[] = {"attach", "exec", "proxy", "log", "portforward"};
    for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
        if (!strcmp(ri->subresource, subs[i]))
            return true;
    return false;
}
