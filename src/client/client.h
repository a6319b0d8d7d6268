/* An HTTP(S) client for talking to API servers and webhooks: built from a kubeconfig (current context: server,
 * CA, bearer token or client certificate) or from explicit settings, it sends requests and returns status and body
 * in the caller's arena, with a per-call timeout and typed failures.
 *
 * libcurl does the work, loaded with dlopen on the first request: commands that never make a request (kgate serve
 * with no webhook configured, kgate check, ...) do not map libcurl and its dependency tree (krb5, ldap, ssh2, ...:
 * about 2 MB of resident memory and a measurable part of a cold start). Connections are reused: each client keeps a
 * few idle libcurl handles (with their connection and TLS session caches) and hands one to each request, so
 * concurrent requests from many threads share a client safely. HTTPS speaks HTTP/2 when the server offers it (ALPN)
 * and the installed libcurl has nghttp2, else HTTP/1.1 with keep-alive. Every libcurl call lives in transport.c, the
 * seam for fault injection in tests. */
#ifndef KG_CLIENT_CLIENT_H
#define KG_CLIENT_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"

typedef struct kg_client_config {
    const char *server; /* base URL, e.g. "https://127.0.0.1:6443" (a path prefix is kept; trailing '/' dropped) */
    /* Trust: a PEM CA bundle (data wins over file); neither = the system's CAs. insecure skips verification. */
    const char *ca_pem;
    size_t ca_len; /* 0 = strlen(ca_pem) */
    const char *ca_file;
    bool insecure;
    /* Client certificate and key, PEM data (wins) or files. */
    const char *cert_pem, *key_pem;
    size_t cert_len, key_len; /* 0 = strlen */
    const char *cert_file, *key_file;
    const char *token;    /* sent as "Authorization: Bearer <token>" when non-empty */
    const char *username; /* HTTP basic authentication when username is non-empty (and no token) */
    const char *password;
    int64_t timeout_ms;     /* default per-request timeout (0: 30 s) */
    size_t max_body;        /* largest response body accepted (0: 8 MiB) */
    const char *user_agent; /* NULL: "kgate" */
} kg_client_config;

typedef struct kg_client kg_client;

/* A client with a copy of cfg (strings and PEM data are copied). Fails only on a bad config (no server). */
kg_client *kg_client_new(const kg_client_config *cfg, kg_error *err);
/* Closes idle connections. No request may be in flight. NULL is fine. */
void kg_client_free(kg_client *c);
const char *kg_client_server(const kg_client *c);

/* Read a kubeconfig (JSON, or YAML when the YAML module is built): the current context's cluster (server,
 * certificate-authority[-data], insecure-skip-tls-verify) and user (token, tokenFile, client-certificate[-data],
 * client-key[-data]); relative file paths are relative to the kubeconfig's directory. Strings live in a. Errors
 * name the file: "kubeconfig <path>: context \"x\" not found", "...: certificate-authority-data is not base64". */
bool kg_client_config_from_kubeconfig(kg_arena *a, const char *path, kg_client_config *out, kg_error *err);
/* A kubeconfig's users (AuthInfos) by name, for callers that pick credentials per host rather than by context:
 * kube-apiserver's webhook kubeConfigFile (k8s.io/apiserver pkg/util/webhook AuthenticationInfoResolver). Each user's
 * credential fields (token, tokenFile, username, password, client-certificate[-data], client-key[-data]; file paths
 * relative to the kubeconfig's directory) are read into a kg_client_config whose other fields are zero. */
typedef struct kg_client_auth {
    const char *name;
    kg_client_config cred;
} kg_client_auth;

typedef struct kg_client_kubeconfig {
    kg_client_auth *users;
    size_t n;
    const kg_client_auth *current; /* the current context's user, or NULL */
} kg_client_kubeconfig;

bool kg_client_kubeconfig_load(kg_arena *a, const char *path, kg_client_kubeconfig *out, kg_error *err);
/* The credentials for "host:port" as upstream's resolver picks them: the user named exactly host:port, else
 * "*.<suffix>" for ever shorter dot suffixes, then (port 443 only) the same without the port, then "*", then the
 * current context's user; NULL: none (anonymous). */
const kg_client_config *kg_client_kubeconfig_auth_for(const kg_client_kubeconfig *kc, const char *host_port);
/* Copy the credential fields of cred (token, username/password, client certificate and key) into cfg. */
void kg_client_config_set_credentials(kg_client_config *cfg, const kg_client_config *cred);

/* kg_client_config_from_kubeconfig + kg_client_new. */
kg_client *kg_client_from_kubeconfig(const char *path, kg_error *err);

/* Outcome of a request. */
typedef enum kg_client_result {
    KG_CLIENT_OK = 0,     /* a 2xx answer */
    KG_CLIENT_HTTP_ERROR, /* an answer with another status: status and body are filled */
    KG_CLIENT_CONNECT,    /* no connection: refused, host unknown or unreachable */
    KG_CLIENT_TIMEOUT,    /* the request's timeout passed (connecting or waiting for the answer) */
    KG_CLIENT_TLS,        /* handshake or verification failed, bad CA bundle or client certificate */
    KG_CLIENT_TOO_LARGE,  /* the answer is larger than max_body */
    KG_CLIENT_TRANSPORT,  /* any other transport failure (connection reset, malformed answer, ...) */
    KG_CLIENT_UNAVAILABLE /* libcurl cannot be loaded */
} kg_client_result;

/* Name for messages and metrics: "ok", "http_error", "connect", "timeout", "tls", "too_large", "transport",
 * "unavailable". */
const char *kg_client_result_name(kg_client_result r);

typedef struct kg_client_request {
    const char *method;         /* "GET", "POST", "PUT", "PATCH", "DELETE", ... */
    const char *path;           /* appended to the server URL, e.g. "/api/v1/namespaces" (may carry a query) */
    const char *const *headers; /* "Name: value" lines, added to User-Agent and Authorization */
    size_t nheaders;
    const char *body;   /* NULL = none */
    size_t body_len;    /* 0 with a body = strlen(body) */
    int64_t timeout_ms; /* 0 = the client's */
    /* Dial another address than the URL's while TLS verification and Host stay the URL's (libcurl CONNECT_TO):
     * "HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT", e.g. "svc.ns.svc:443:10.0.0.7:8443" (webhook services resolved
     * to an endpoint). NULL = dial the URL's host. */
    const char *connect_to;
    /* Streaming (watches): when set, the answer's body is handed to on_data chunk by chunk as it arrives instead of
     * being collected (resp->body stays ""), and on_data is also called with (NULL, 0) about once a second while the
     * answer is idle. Returning false ends the transfer (KG_CLIENT_TRANSPORT, "aborted"). timeout_ms still bounds the
     * whole request. */
    bool (*on_data)(void *ud, const char *p, size_t n);
    void *on_data_ud;
    /* A cancel token (NULL = none): kg_client_cancel_fire from another thread aborts the request at once, even
     * while it waits for data; the request's connection is not reused. */
    struct kg_client_cancel *cancel;
} kg_client_request;

typedef struct kg_client_response {
    long status;      /* HTTP status (0 when no answer arrived) */
    const char *body; /* NUL-terminated copy in the caller's arena ("" when empty or no answer) */
    size_t body_len;
    int http_version; /* 11 (HTTP/1.1), 20 (HTTP/2) or 10, when an answer arrived */
} kg_client_response;

/* Cancelling a request in flight from another thread (kg_client_request.cancel). One token serves one request at a
 * time; kg_client_cancel_reset rearms a fired token for the next request. */
typedef struct kg_client_cancel kg_client_cancel;
kg_client_cancel *kg_client_cancel_new(void);
void kg_client_cancel_free(kg_client_cancel *c);
void kg_client_cancel_fire(kg_client_cancel *c);
void kg_client_cancel_reset(kg_client_cancel *c);
bool kg_client_cancel_fired(kg_client_cancel *c);

/* Send req and wait for the answer. Anything but KG_CLIENT_OK also sets err: KG_ETIMEOUT for timeouts,
 * KG_ENOTFOUND for 404, KG_ETOOLARGE, KG_EUNSUPPORTED when libcurl is missing, KG_EIO otherwise; the message is
 * "<METHOD> <url>: <what happened>". Thread-safe. */
kg_client_result kg_client_do(kg_client *c, kg_arena *a, const kg_client_request *req, kg_client_response *resp,
                              kg_error *err);

/* JSON convenience: method + path with an optional JSON body (Accept and Content-Type application/json); returns
 * the parsed 2xx answer in a, or NULL with err (for a non-2xx answer the message carries the status and the Status
 * object's message: "...: the server responded with status 404: serviceaccounts \"x\" not found"). *result (may
 * be NULL) gets the outcome. */
kg_json *kg_client_json(kg_client *c, kg_arena *a, const char *method, const char *path, const char *body,
                        kg_client_result *result, kg_error *err);

#endif
