/* The API server's HTTP layer: libmicrohttpd (epoll + thread pool, TLS via GnuTLS, HTTP/1.1 keep-alive) with
 * kube-apiserver's front filters already applied when a handler runs:
 *
 *   read request (body limit 3 MiB -> 413) -> RequestInfo -> request deadline (?timeout=, default 60 s)
 *   -> authentication (401) -> authorization (403) -> handler
 *
 * The handler gets a fully read request and fills a response: bytes (status, content type, extra headers) or a
 * stream (watch). Requests that may be slow (by default: every verb except get/list/watch, i.e. writes that
 * run admission webhooks and store commits) run on worker threads (cfg.worker_threads) so they never stall the
 * network threads; cheap reads run inline on the network threads (a hand-off costs more than a read: measured
 * 22k vs 53k GET/s over TLS on 2 cores). cfg.offload overrides the choice; worker_threads == 0 runs
 * everything inline.
 *
 * Memory: every request has its own kg_arena (req->arena), freed when the response has been sent. Everything
 * a handler hands to the response (body, header strings) may live in that arena or be static.
 *
 * Streams (watch): kg_http_respond_stream() turns the response into a chunked stream. The handler returns
 * immediately and gives the stream to a producer; producer threads push chunks with kg_http_stream_write()
 * and end it with kg_http_stream_close(). No thread is held per stream (MHD suspend/resume). The producer
 * learns that the client went away (or the stream deadline passed, or the server is stopping) from the
 * return value of kg_http_stream_write(), from kg_http_stream_done(), or from the on_done callback.
 *
 * Typical use:
 *     static void handle(void *ud, kg_http_request *req, kg_http_response *resp) {
 *         if (!strcmp(req->path, "/healthz")) { kg_http_respond_bytes(resp, 200, "text/plain", "ok", 2); return; }
 *         kg_json *obj = ...;  // built in req->arena
 *         kg_http_respond_json(req, resp, 200, obj);
 *     }
 *     kg_http_config cfg; kg_http_config_defaults(&cfg);
 *     cfg.port = 6443; cfg.tls_cert_pem = m.cert_pem; cfg.tls_key_pem = m.key_pem;
 *     cfg.authn = authn; cfg.authz = authz; cfg.handler = handle;
 *     kg_http_server *s = kg_http_server_start(&cfg, &err);  ...  kg_http_server_stop(s);
 */
#ifndef KG_SERVER_HTTP_H
#define KG_SERVER_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"
#include "server/authn.h"
#include "server/authz.h"
#include "server/requestinfo.h"

#define KG_HTTP_MAX_BODY (3u * 1024u * 1024u) /* kube-apiserver's MaxRequestBodyBytes: 3 MiB */
#define KG_HTTP_DEFAULT_REQUEST_TIMEOUT_MS 60000

typedef struct kg_http_server kg_http_server;
typedef struct kg_http_stream kg_http_stream;

typedef struct kg_http_header {
    const char *name;
    const char *value;
} kg_http_header;

typedef struct kg_http_param {
    const char *name;  /* percent-decoded ('+' is a space) */
    const char *value; /* percent-decoded; "" for "?a" or "?a=" */
} kg_http_param;

typedef struct kg_http_request {
    kg_arena *arena;             /* per request, freed after the response is sent */
    const char *method;          /* "GET", "POST", ... */
    const char *path;            /* percent-decoded path, without the query */
    const char *raw_path;        /* path as received (still percent-encoded) */
    const char *raw_query;       /* after '?', "" when absent */
    const kg_http_param *params; /* query parameters in order */
    size_t nparams;
    const kg_http_header *headers; /* request headers in order, names as received */
    size_t nheaders;
    const char *body; /* NUL-terminated for convenience; body_len excludes the NUL; "" when empty */
    size_t body_len;
    const char *remote_addr; /* "127.0.0.1:53412" / "[::1]:53412" */
    bool tls;

    const kg_request_info *info; /* parsed RequestInfo (never NULL in a handler) */
    const kg_user *user;         /* authenticated (or anonymous) user (never NULL in a handler) */
    bool long_running;           /* watch / proxy / exec ...: no request deadline */
    int64_t deadline_ms;         /* CLOCK_MONOTONIC ms (kg_http_now_ms()); 0 when long-running. An offloaded
                                    handler still running then: the client gets a 504 Timeout Status and
                                    whatever the handler answers is dropped */
    struct kg_json *audit_annotations; /* audited requests (cfg.audit): an object handlers add string members to
                                          (admission's audit annotations); NULL when the request is not audited */
    struct kg_http_conn *conn_;  /* private */
} kg_http_request;

/* First value of a query parameter, NULL when absent. */
const char *kg_http_query(const kg_http_request *req, const char *name);
/* All values of a repeated parameter (arena array), count in *n. NULL/0 when absent. */
const char **kg_http_query_all(const kg_http_request *req, const char *name, size_t *n);
/* Header value by case-insensitive name (first occurrence), NULL when absent. */
const char *kg_http_header_get(const kg_http_request *req, const char *name);
/* Milliseconds on CLOCK_MONOTONIC (the clock of deadline_ms and stream deadlines). */
int64_t kg_http_now_ms(void);

typedef struct kg_http_response {
    int status;               /* 0 until set: the server answers 500 when a handler leaves it unset */
    const char *content_type; /* NULL: none */
    kg_http_header *headers;  /* extra headers (kg_http_add_header) */
    size_t nheaders;
    size_t headers_cap;
    const char *body; /* arena or static memory, valid until the request finishes */
    size_t body_len;
    kg_http_stream *stream_; /* private: set by kg_http_respond_stream */
} kg_http_response;

/* Serialize v (compact JSON) into the request arena; content type application/json. */
void kg_http_respond_json(kg_http_request *req, kg_http_response *resp, int status, const kg_json *v);
/* body is referenced, not copied: it must stay valid until the request finishes (arena or static). */
void kg_http_respond_bytes(kg_http_response *resp, int status, const char *content_type, const void *body, size_t len);
/* A Kubernetes Status failure body: {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
 * "message":msg,"reason":reason,"code":status}. reason may be NULL or "" (omitted). */
void kg_http_respond_status(kg_http_request *req, kg_http_response *resp, int status, const char *reason,
                            const char *msg);
/* Add a response header (name/value copied into the request arena). */
void kg_http_add_header(kg_http_request *req, kg_http_response *resp, const char *name, const char *value);

/* ---- streaming (watch) ---- */

/* Make the response a chunked stream with the given status and content type and return its writer. The
 * handler must return soon after; the returned stream belongs to the producer, which must eventually call
 * kg_http_stream_close() exactly once (also when the client is already gone). deadline_ms (CLOCK_MONOTONIC
 * ms, 0 = none) ends the stream like a watch timeoutSeconds: already queued data is flushed, then the response
 * ends cleanly and the producer is told it is done. */
kg_http_stream *kg_http_respond_stream(kg_http_request *req, kg_http_response *resp, int status,
                                       const char *content_type, int64_t deadline_ms);

/* Queue bytes (copied) to be sent as one or more chunks. Thread-safe. Returns false when the stream is done
 * (client disconnected, deadline passed, server stopping): the data is dropped and the producer should stop
 * and call kg_http_stream_close(). Never blocks on the network. */
bool kg_http_stream_write(kg_http_stream *s, const void *data, size_t len);
/* True once the stream is done (client gone / deadline / server stop). Thread-safe; cheap to poll. */
bool kg_http_stream_done(const kg_http_stream *s);
/* Bytes queued but not yet handed to the connection (for back-pressure decisions). */
size_t kg_http_stream_pending(kg_http_stream *s);
/* Register a callback invoked once when the stream becomes done for any reason other than the producer's
 * own close (called immediately, on the calling thread, if it already is). Runs on a server thread: it must
 * not block and must not call kg_http_stream_close() itself (signal the producer instead). Set it at most
 * once. kg_http_stream_close() waits for a running callback to return, so after close the callback's ud may
 * be freed; hence the producer must not hold a lock the callback takes while it calls close. */
void kg_http_stream_on_done(kg_http_stream *s, void (*fn)(void *ud), void *ud);
/* Back-pressure: fn(ud) is called (on a network thread, without the stream's lock) each time the connection
 * takes bytes from the queue and leaves fewer than low_water pending, after it had low_water or more. Same
 * rules as on_done (quick, no close from inside; close waits for a running call). Set it at most once, before
 * writing. */
void kg_http_stream_on_drain(kg_http_stream *s, size_t low_water, void (*fn)(void *ud), void *ud);
/* End of stream from the producer: flush what is queued, send the final chunk, release the producer's hold on
 * s (do not use s afterwards). */
void kg_http_stream_close(kg_http_stream *s);

/* ---- server ---- */

/* The handler runs after authentication and authorization passed. ud is cfg.handler_ud. */
typedef void (*kg_http_handler_fn)(void *ud, kg_http_request *req, kg_http_response *resp);
/* Whether a request's handler should run on a worker thread (called on the network thread with the request
 * filled, before the handler). ud is cfg.handler_ud. */
typedef bool (*kg_http_offload_fn)(void *ud, const kg_http_request *req);
/* The default policy: offload unless the RequestInfo verb is get, list or watch (non-resource GET/HEAD too). */
bool kg_http_offload_default(void *ud, const kg_http_request *req);

typedef struct kg_http_config {
    const char *bind_address; /* "127.0.0.1" (default), "0.0.0.0", "::" ... */
    int port;                 /* 0: pick a free port (see kg_http_server_port) */
    const char *tls_cert_pem; /* both NULL: plain HTTP (tests, benchmarks, --insecure-port style) */
    const char *tls_key_pem;
    struct kg_tls_creds *tls_creds; /* instead of the PEMs: reloadable pair and optional client-certificate
                                       verification (server/tlscreds.h); borrowed, must outlive the server */
    const char *client_ca_pem;      /* with the PEMs: ask clients for a certificate (CertificateRequest naming these
                                       CAs) without requiring or verifying it in the handshake; authn verifies it */
    const char *tls_priorities;     /* GnuTLS priority string (tlsconfig.h); NULL: kg_tls_priorities' default */
    unsigned network_threads;       /* MHD thread pool size; 0: number of CPUs */
    unsigned worker_threads;        /* handler threads; 0: run handlers on the network threads. Default 8. */
    unsigned connection_limit;      /* default 10000; past it the oldest connections waiting for a request are
                                       closed to admit new ones (conntrack.h) */
    unsigned connection_timeout_s;  /* idle keep-alive connection timeout; default 90 (Go http.Server's in
                                       kube-apiserver), absolute from the previous response; streams exempt */
    int64_t header_timeout_ms;      /* request headers (and TLS handshake) of a new connection complete within
                                       this, however slowly bytes trickle (Go's ReadHeaderTimeout); default 10000 */
    int64_t body_timeout_ms;        /* a request body completes within this after its headers; default 60000 */
    unsigned per_ip_fresh_limit;    /* connections per client IP that have not completed request headers yet;
                                       default 256 (the oldest is closed to admit a new one) */
    size_t max_body;                /* default KG_HTTP_MAX_BODY */
    unsigned max_inflight;          /* --max-requests-inflight: requests between their headers and the end of their
                                       response beyond this many get 429 TooManyRequests with Retry-After: 1
                                       (long-running requests and /healthz, /livez, /readyz, /metrics not counted);
                                       0 = no limit (default) */
    int64_t request_timeout_ms;     /* default and maximum ?timeout= (default 60000) */
    struct kg_audit *audit;         /* NULL: no audit log (server/audit.h) */
    const kg_authn *authn;          /* NULL: every request is system:anonymous (no 401) */
    const kg_authorizer *authz;     /* NULL: everything allowed */
    kg_http_handler_fn handler;
    void *handler_ud;
    kg_http_offload_fn offload; /* NULL: kg_http_offload_default */
} kg_http_config;

void kg_http_config_defaults(kg_http_config *cfg);

/* Bind and start serving. Errors: bind failures name the address ("listen tcp 127.0.0.1:6443: address already
 * in use"-like), bad TLS material. */
kg_http_server *kg_http_server_start(const kg_http_config *cfg, kg_error *err);
/* The bound port (useful with port 0). */
int kg_http_server_port(const kg_http_server *s);
/* Stop accepting, end all streams (producers see done), close connections, join threads, free. Producers may
 * still hold streams: their kg_http_stream_write() returns false and kg_http_stream_close() stays valid. */
void kg_http_server_stop(kg_http_server *s);

typedef struct kg_http_stats {
    uint64_t requests;     /* handled requests (including 401/403/413) */
    uint64_t streams_open; /* currently open streams */
    uint64_t streams_total;
    uint64_t connections; /* currently open connections */
} kg_http_stats;
void kg_http_server_stats(kg_http_server *s, kg_http_stats *out);

#endif
