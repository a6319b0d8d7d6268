/* Kubernetes RequestInfo: what a request URL means, as k8s.io/apiserver/pkg/endpoints/request/requestinfo.go
 * computes it (API prefixes "api" and "apis", groupless prefix "api").
 *
 *   GET /api/v1/namespaces/default/pods          -> resource request, verb list, ns default, resource pods
 *   GET /api/v1/namespaces/default/pods?watch=1  -> verb watch
 *   GET /api/v1/watch/namespaces/default/pods    -> verb watch
 *   GET /apis/apps/v1/namespaces/ns/deployments/d/scale -> group apps, name d, subresource scale
 *   GET /api/v1/namespaces/foo                   -> resource namespaces, name foo, namespace foo
 *   GET /healthz                                  -> non-resource request, verb get
 *
 * All strings point into the arena given to the parser. */
#ifndef KG_SERVER_REQUESTINFO_H
#define KG_SERVER_REQUESTINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"

typedef struct kg_request_info {
    bool is_resource_request;
    const char *path;        /* the URL path as given (decoded) */
    const char *verb;        /* get list watch create update patch delete deletecollection proxy, or the
                                lower-cased HTTP method for non-resource requests ("get", "post", ...) */
    const char *api_prefix;  /* "api" or "apis" ("" for non-resource requests) */
    const char *api_group;   /* "" for the core group */
    const char *api_version; /* "v1" ... */
    const char *namespace_;  /* "" when cluster scoped / not namespaced */
    const char *resource;    /* "pods" */
    const char *subresource; /* "status", "scale", "log" ... or "" */
    const char *name;        /* "" for collections (or the metadata.name= field selector value on list/watch) */
    const char **parts;      /* resource/name/subresource/... (after namespace handling) */
    size_t nparts;
} kg_request_info;

/* Looks up a query parameter's first value: the parser calls it for "watch" and "fieldSelector".
 * Returns NULL when absent (an empty value is "" and counts as present). */
typedef const char *(*kg_requestinfo_query_fn)(void *ud, const char *name);

/* Parse method + decoded path (no query string). query_get may be NULL (no query). Never fails for
 * non-resource paths; fails like upstream for "/api/v1/watch" with nothing after the special verb
 * ("unable to determine kind and namespace from url, <url>"), in which case *out is still filled as far as
 * upstream fills it (is_resource_request true, verb from the method). */
bool kg_requestinfo_parse(kg_arena *a, const char *method, const char *path, kg_requestinfo_query_fn query_get,
                          void *query_ud, kg_request_info *out, kg_error *err);

/* Convenience: parse a raw query string ("a=b&watch=true", percent-encoded, no leading '?'). */
bool kg_requestinfo_parse_url(kg_arena *a, const char *method, const char *path, const char *raw_query,
                              kg_request_info *out, kg_error *err);

/* Whether the request is long-running (watch and proxy verbs, or the subresources attach, exec, proxy, log,
 * portforward) as kube-apiserver's BasicLongRunningRequestCheck with its defaults: no request timeout applies. */
bool kg_requestinfo_is_long_running(const kg_request_info *ri);

#endif
