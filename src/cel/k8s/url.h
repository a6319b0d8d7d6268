/* url.h - Go net/url parsing as the Kubernetes URL CEL library uses it: url(s) = ParseRequestURI(s) as the
 * validity check, then Parse(s) for the value; getters Scheme/Host/Hostname()/Port()/EscapedPath()/Query(). */
#ifndef KG_CEL_K8S_URL_H
#define KG_CEL_K8S_URL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

typedef struct cel_k8s_url {
    const char *scheme; /* lower-cased */
    const char *opaque;
    const char *host; /* unescaped host[:port] */
    const char *path; /* unescaped */
    const char *raw_path;
    const char *raw_query;
    bool has_user;
} cel_k8s_url;

/* Go url.ParseRequestURI(s) (viaRequest=true) or url.Parse(s) (fragment cut first). On failure *err is Go's
 * *url.Error text: `parse "x": invalid URI for request`. Strings are NUL-terminated in the arena. */
bool cel_k8s_url_parse_request_uri(kg_arena *a, const char *s, size_t n, cel_k8s_url *out, const char **err);
bool cel_k8s_url_parse(kg_arena *a, const char *s, size_t n, cel_k8s_url *out, const char **err);
/* What url(s) does: both parses, error prefixed "URL parse error during conversion from string: ". */
bool cel_k8s_url_from_string(kg_arena *a, const char *s, size_t n, cel_k8s_url *out, const char **err);

const char *cel_k8s_url_hostname(kg_arena *a, const cel_k8s_url *u);
const char *cel_k8s_url_port(kg_arena *a, const cel_k8s_url *u);
const char *cel_k8s_url_escaped_path(kg_arena *a, const cel_k8s_url *u);

/* url.ParseQuery (errors ignored, as URL.Query() does): distinct keys in first-appearance order, each with its
 * values. */
typedef struct cel_k8s_query_entry {
    const char *key;
    size_t nvals;
    const char **vals;
} cel_k8s_query_entry;
size_t cel_k8s_url_query(kg_arena *a, const cel_k8s_url *u, cel_k8s_query_entry **out);

#endif
