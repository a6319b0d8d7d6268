/* RequestInfo (server/requestinfo.h) never crashes and keeps its invariants on any method, path and query.
 * Input: the first byte picks the HTTP method, the rest is the URL: the path up to the first '?', the raw query after
 * it (cut at the first NUL byte, as a C string is). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/requestinfo.h"

static void check_str(const char *s)
{
    if (!s)
        abort(); /* every field is a string, "" when not applicable */
}

/* path segments never hold a '/' (the path is split on it) */
static void check_segment(const char *s)
{
    check_str(s);
    if (strchr(s, '/'))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "get"};
    if (size < 1)
        return 0;
    const char *method = methods[data[0] % (sizeof(methods) / sizeof(methods[0]))];
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *url = kg_arena_strndup(&a, (const char *)data + 1, size - 1);
    const char *q = strchr(url, '?');
    const char *path = q ? kg_arena_strndup(&a, url, (size_t)(q - url)) : url;
    const char *query = q ? q + 1 : NULL;
    kg_request_info ri;
    kg_error err;
    bool ok = kg_requestinfo_parse_url(&a, method, path, query, &ri, &err);
    if (!ok && !ri.is_resource_request)
        abort(); /* only resource paths ("/api/v1/watch") fail */
    if (ri.path != path)
        abort();
    check_str(ri.verb);
    check_str(ri.api_prefix);
    check_segment(ri.api_group);
    check_segment(ri.api_version);
    check_segment(ri.namespace_);
    check_segment(ri.resource);
    check_segment(ri.subresource);
    check_segment(ri.name); /* a field-selector name is taken only when it is a valid path segment */
    if (!ri.is_resource_request) {
        /* non-resource: the lower-cased method and no resource fields (api_prefix may be set, as upstream leaves
         * it for "/apis/g/v") */
        if (strcasecmp(ri.verb, method) || *ri.api_group || *ri.api_version || *ri.namespace_ || *ri.resource ||
            *ri.subresource || *ri.name)
            abort();
    } else {
        if (strcmp(ri.api_prefix, "api") && strcmp(ri.api_prefix, "apis"))
            abort();
        if (!strcmp(ri.api_prefix, "api") && *ri.api_group)
            abort(); /* the legacy prefix is groupless */
        if (ok) {
            /* after the prefix, version and namespace handling at least the resource segment is left */
            if (ri.nparts < 1 || ri.resource != ri.parts[0])
                abort();
            for (size_t i = 0; i < ri.nparts; i++)
                check_segment(ri.parts[i]);
            static const char *const verbs[] = {"get",   "list",   "watch", "create",           "update",
                                                "patch", "delete", "proxy", "deletecollection", ""};
            bool known = false;
            for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
                known |= !strcmp(ri.verb, verbs[i]);
            if (!known)
                abort();
            if (!strcmp(ri.verb, "deletecollection") && *ri.name)
                abort();
        }
        kg_requestinfo_is_long_running(&ri);
    }
    kg_arena_free(&a);
    return 0;
}
