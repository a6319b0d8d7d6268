/* Connection tracker: deadlines that trickling cannot extend, a per-client-IP limit on connections that have
 * not completed a request, and a total cap that sheds the oldest waiting connections first (issue 20).
 *
 * libmicrohttpd's only connection timer is an idle timer reset by every byte received, so a client sending one
 * header byte per second keeps a connection forever. The HTTP layer (http.c) reports each connection's life
 * cycle here, and a sweep (the stream monitor's thread, once a second) closes connections past an absolute
 * deadline by shutting their socket down; libmicrohttpd then sees EOF and cleans up as for any client that
 * left. The phases and their deadlines:
 *
 *   FRESH  accepted, no request headers complete yet (TLS handshake included): header_timeout_ms from accept
 *          (Go's ReadHeaderTimeout)
 *   BODY   headers in, body still arriving: body_timeout_ms from the end of the headers
 *   BUSY   request complete: handler running, response or watch stream being sent: no deadline
 *   IDLE   response sent, keep-alive: the next request's headers must be complete idle_timeout_ms after the
 *          previous response (an absolute IdleTimeout: trickled bytes do not extend it)
 *
 * Limits. A client IP may hold at most per_ip_fresh FRESH connections; at most max_conns connections exist.
 * Either limit is enforced when a connection arrives by closing the oldest FRESH connection of that IP (per-IP)
 * or the oldest FRESH, else the longest IDLE connection (total): a new client is never the one refused, so a
 * flood cannot lock out a client that completes its request promptly.
 *
 * Thread safety: open/close/headers and the sweep take one mutex (connection events, not per byte); the
 * per-request transitions body_done/idle are lock-free stores. */
#ifndef KG_SERVER_CONNTRACK_H
#define KG_SERVER_CONNTRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

typedef struct kg_conntrack kg_conntrack;
typedef struct kg_conn_rec kg_conn_rec;

typedef struct kg_conntrack_limits {
    int64_t header_timeout_ms; /* FRESH deadline (default 10000) */
    int64_t body_timeout_ms;   /* BODY deadline (default 60000) */
    int64_t idle_timeout_ms;   /* IDLE deadline (default 90000) */
    unsigned per_ip_fresh;     /* FRESH connections per client IP (default 256) */
    unsigned max_conns;        /* total connections before shedding (default 10000) */
} kg_conntrack_limits;

typedef struct kg_conntrack_stats {
    uint64_t open;          /* tracked connections now */
    uint64_t fresh;         /* of which FRESH */
    uint64_t timed_out;     /* closed by a deadline (total) */
    uint64_t shed_per_ip;   /* closed to admit a connection from the same IP */
    uint64_t shed_capacity; /* closed to stay under max_conns */
} kg_conntrack_stats;

/* limits may be NULL or have zero fields: defaults. */
kg_conntrack *kg_conntrack_new(const kg_conntrack_limits *limits);
/* Call after every connection has been closed. */
void kg_conntrack_free(kg_conntrack *ct);

/* A new connection on socket fd from addr (may be NULL: no per-IP limit); now_ms on CLOCK_MONOTONIC. May shut
 * down older connections to stay within the limits. Returns the record to pass to the other calls. */
kg_conn_rec *kg_conntrack_open(kg_conntrack *ct, int fd, const struct sockaddr *addr, int64_t now_ms);
/* The connection is gone (before its socket is closed: the tracker never touches the fd afterwards). */
void kg_conntrack_close(kg_conntrack *ct, kg_conn_rec *c);
/* A request's headers are complete; has_body: a body follows (BODY), else BUSY. */
void kg_conntrack_headers(kg_conntrack *ct, kg_conn_rec *c, bool has_body, int64_t now_ms);
/* The request body is complete (BUSY). */
void kg_conntrack_body_done(kg_conn_rec *c);
/* The response has been sent and the connection is kept alive (IDLE). */
void kg_conntrack_idle(kg_conn_rec *c, int64_t now_ms);
/* Shut down every connection past its deadline. Returns how many. */
size_t kg_conntrack_sweep(kg_conntrack *ct, int64_t now_ms);
void kg_conntrack_get_stats(kg_conntrack *ct, kg_conntrack_stats *out);

#endif
