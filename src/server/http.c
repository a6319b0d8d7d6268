/* HTTP layer over libmicrohttpd (see http.h).
 *
 * Request life cycle (one struct rq per request, created in the URI log callback):
 *   1st access-handler call (headers only): RequestInfo, ?timeout=, authentication, authorization, body-size
 *      precheck. A rejection is answered at once when a body is pending (the connection then closes, the body is
 *      never read) and otherwise on the final call (keeps keep-alive: MHD closes connections whose response is
 *      queued on the first call).
 *   upload calls: body appended (bounded by max_body; past it the rest is discarded and 413 answered).
 *   final call: the handler runs (on a worker thread: the connection is suspended and resumed when done), then
 *      the response is queued.
 * Streams: a callback response; the reader suspends the connection when nothing is queued and writers resume
 * it. A monitor thread watches the sockets of streaming connections for EPOLLRDHUP (MHD does not notice a client
 * going away while a connection is suspended) and enforces stream deadlines. */
#include "server/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "server/tlscreds.h"
#include "server/impersonation.h"
#include "server/conntrack.h"
#include "server/tlsconfig.h"
#include "server/audit.h"

#define STREAM_BLOCK (32 * 1024)
#ifndef KG_HTTP_CONN_MEMORY
#define KG_HTTP_CONN_MEMORY (32 * 1024) /* MHD zeroes the pool between requests: keep it at its default size */
#endif
#define DISCARD_LIMIT (64u * 1024u * 1024u) /* past this much discarded body, drop the connection */

int64_t kg_http_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* streams                                                                                                    */

struct kg_http_stream {
    atomic_int refs;
    pthread_mutex_t mu;
    pthread_cond_t cb_cv;
    kg_http_server *srv;
    struct MHD_Connection *conn;
    int fd;
    kg_buf q;    /* queued bytes */
    size_t qoff; /* bytes of q already handed to MHD */
    bool suspended;
    bool conn_alive;  /* the response is attached to a live connection */
    bool queued;      /* the response was queued on the connection */
    atomic_bool done; /* client gone / deadline / stop */
    bool peer_gone;
    bool closed;    /* producer closed */
    int cb_running; /* callbacks (on_done, on_drain) running now */
    void (*on_done)(void *);
    void *on_done_ud;
    void (*on_drain)(void *); /* back-pressure: queue fell below drain_low */
    void *on_drain_ud;
    size_t drain_low;
    int64_t deadline_ms;
    /* monitor bookkeeping (under srv->mon_mu) */
    bool mon_registered;
    kg_http_stream *mon_prev, *mon_next;
    kg_http_stream *rel_next;
};

enum { W_IDLE = 0, W_RUNNING, W_DONE, W_TIMED_OUT };

typedef struct rq {
    kg_http_server *srv;
    struct MHD_Connection *conn;
    char *raw_uri;
    bool started;
    bool has_body;
    bool rejected; /* a filter answered: body discarded, response ready */
    bool too_large;
    bool close_after; /* add Connection: close */
    bool queued;
    bool in_worker;
    bool counted; /* counted in srv->inflight */
    atomic_bool response_ready;
    atomic_int wstate; /* W_* : hand-off state between network thread, worker and monitor */
    atomic_int refs;   /* connection + running worker */
    bool tracked;      /* in the monitor's deadline list (under mon_mu) */
    struct rq *tprev, *tnext;
    size_t discarded;
    unsigned long long declared_len;
    kg_buf body;
    kg_arena arena;
    kg_http_request req;
    kg_http_response resp;
    kg_request_info info;
    kg_user user;
    kg_user authn_user;         /* before impersonation (the audit event's user) */
    struct kg_audit_ctx *audit; /* NULL: not audited */
    struct rq *next;            /* worker queue */
} rq;

struct kg_http_server {
    kg_http_config cfg;
    struct MHD_Daemon *d;
    int listen_fd;
    int port;
    bool tls;
    bool creds_bound; /* cfg.tls_creds bound to this port */
    char *cert, *key;
    char *priorities;
    /* workers */
    pthread_mutex_t wmu;
    pthread_cond_t wcv;
    rq *whead, *wtail;
    bool wstop;
    size_t nworkers;
    pthread_t *workers;
    atomic_int wbusy;
    /* monitor */
    pthread_mutex_t mon_mu;
    int mon_ep;
    int mon_ev; /* eventfd to wake the monitor */
    pthread_t mon_thread;
    bool mon_stop;
    bool stopping;
    kg_http_stream *mon_head;
    kg_http_stream *rel_head;
    struct rq *rq_head; /* offloaded requests with a deadline */
    int64_t next_deadline;
    kg_conntrack *ct; /* connection deadlines and limits (conntrack.h); swept by the monitor */
    int64_t last_sweep;
    /* stats */
    atomic_uint_fast64_t n_requests, n_streams_open, n_streams_total, n_conns;
    atomic_uint inflight; /* requests counted against cfg.max_inflight */
};

static void stream_unref(kg_http_stream *s)
{
    if (atomic_fetch_sub(&s->refs, 1) == 1) {
        kg_buf_free(&s->q);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cb_cv);
        free(s);
    }
}

static void mon_wake(kg_http_server *srv)
{
    uint64_t one = 1;
    ssize_t w = write(srv->mon_ev, &one, sizeof(one));
    (void)w;
}

/* Mark a stream done (not by the producer). Resumes the connection so MHD ends the response, then tells the
 * producer. Must not be called with srv->mon_mu held. */
static void stream_mark_done(kg_http_stream *s, bool peer_gone)
{
    pthread_mutex_lock(&s->mu);
    if (atomic_load(&s->done)) {
        pthread_mutex_unlock(&s->mu);
        return;
    }
    atomic_store(&s->done, true);
    s->peer_gone = peer_gone;
    bool resume = s->suspended && s->conn_alive;
    if (resume)
        s->suspended = false;
    void (*cb)(void *) = s->closed ? NULL : s->on_done;
    void *ud = s->on_done_ud;
    if (cb)
        s->cb_running++;
    struct MHD_Connection *conn = s->conn;
    pthread_mutex_unlock(&s->mu);
    if (resume)
        MHD_resume_connection(conn);
    if (cb) {
        cb(ud);
        pthread_mutex_lock(&s->mu);
        s->cb_running--;
        pthread_cond_broadcast(&s->cb_cv);
        pthread_mutex_unlock(&s->mu);
    }
}

static void mon_register(kg_http_server *srv, kg_http_stream *s)
{
    pthread_mutex_lock(&srv->mon_mu);
    bool stopping = srv->stopping;
    if (!stopping) {
        struct epoll_event ev = {.events = EPOLLRDHUP, .data.ptr = s};
        if (s->fd >= 0 && epoll_ctl(srv->mon_ep, EPOLL_CTL_ADD, s->fd, &ev) != 0)
            KG_WARN("stream monitor: epoll_ctl(ADD, %d): %s", s->fd, strerror(errno));
        atomic_fetch_add(&s->refs, 1);
        s->mon_registered = true;
        s->mon_next = srv->mon_head;
        s->mon_prev = NULL;
        if (srv->mon_head)
            srv->mon_head->mon_prev = s;
        srv->mon_head = s;
        if (s->deadline_ms && (!srv->next_deadline || s->deadline_ms < srv->next_deadline)) {
            srv->next_deadline = s->deadline_ms;
            mon_wake(srv);
        }
    }
    pthread_mutex_unlock(&srv->mon_mu);
    if (stopping)
        stream_mark_done(s, false);
}

/* Caller holds mon_mu. */
static void mon_unregister_locked(kg_http_server *srv, kg_http_stream *s)
{
    if (!s->mon_registered)
        return;
    s->mon_registered = false;
    if (s->fd >= 0)
        epoll_ctl(srv->mon_ep, EPOLL_CTL_DEL, s->fd, NULL);
    if (s->mon_prev)
        s->mon_prev->mon_next = s->mon_next;
    else
        srv->mon_head = s->mon_next;
    if (s->mon_next)
        s->mon_next->mon_prev = s->mon_prev;
    s->mon_prev = s->mon_next = NULL;
    /* released by the monitor thread after it has processed any event batch that may still name s */
    s->rel_next = srv->rel_head;
    srv->rel_head = s;
}

static void rq_untrack_locked(kg_http_server *srv, rq *r);

static void *mon_main(void *arg)
{
    kg_http_server *srv = arg;
    struct epoll_event evs[64];
    size_t cap = 0, rcap = 0;
    kg_http_stream **todo = NULL;
    struct MHD_Connection **timed = NULL;
    for (;;) {
        int timeout = 1000;
        pthread_mutex_lock(&srv->mon_mu);
        if (srv->mon_stop) {
            pthread_mutex_unlock(&srv->mon_mu);
            break;
        }
        if (srv->next_deadline) {
            int64_t left = srv->next_deadline - kg_http_now_ms();
            timeout = left <= 0 ? 0 : left < 1000 ? (int)left : 1000;
        }
        pthread_mutex_unlock(&srv->mon_mu);
        int n = epoll_wait(srv->mon_ep, evs, 64, timeout);
        if (n < 0 && errno != EINTR)
            KG_WARN("stream monitor: epoll_wait: %s", strerror(errno));
        size_t ntodo = 0;
        pthread_mutex_lock(&srv->mon_mu);
        for (int i = 0; i < n; i++) {
            if (evs[i].data.ptr == NULL) { /* eventfd */
                uint64_t v;
                ssize_t r = read(srv->mon_ev, &v, sizeof(v));
                (void)r;
                continue;
            }
            kg_http_stream *s = evs[i].data.ptr;
            if (!s->mon_registered)
                continue; /* stale: unregistered after epoll_wait returned */
            /* An event may be stale: queued for a connection that has since closed, and a new stream (possibly at the
             * same address, on the same fd number) registered in between. Only a socket that really reads EOF or an
             * error has lost its peer. */
            if (s->fd >= 0) {
                /* ask the socket itself, now: unlike reading, this is not fooled by pending bytes (a TLS
                 * close_notify arrives before the FIN) */
                struct pollfd pfd = {.fd = s->fd, .events = POLLRDHUP};
                if (poll(&pfd, 1, 0) == 1 && !(pfd.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)))
                    continue;
            }
            /* the peer hung up: stop watching the fd (level-triggered) and end the stream */
            epoll_ctl(srv->mon_ep, EPOLL_CTL_DEL, s->fd, NULL);
            s->fd = -1;
            if (ntodo == cap) {
                cap = cap ? cap * 2 : 64;
                todo = realloc(todo, cap * sizeof(*todo));
                if (!todo)
                    abort();
            }
            atomic_fetch_add(&s->refs, 1);
            todo[ntodo++] = s;
        }
        size_t npeer = ntodo;
        int64_t now = kg_http_now_ms();
        if (now - srv->last_sweep >= 1000) { /* connections past a header/body/idle deadline */
            srv->last_sweep = now;
            size_t closed = kg_conntrack_sweep(srv->ct, now);
            if (closed)
                KG_V(2, "closed %zu connections past their header, body or idle deadline", closed);
        }
        size_t ntimed = 0;
        if (srv->next_deadline && now >= srv->next_deadline) {
            int64_t next = 0;
            for (rq *q = srv->rq_head, *qn; q; q = qn) {
                qn = q->tnext;
                if (q->req.deadline_ms <= now) {
                    int expect = W_RUNNING;
                    if (atomic_compare_exchange_strong(&q->wstate, &expect, W_TIMED_OUT)) {
                        rq_untrack_locked(srv, q);
                        if (ntimed == rcap) {
                            rcap = rcap ? rcap * 2 : 16;
                            timed = realloc(timed, rcap * sizeof(*timed));
                            if (!timed)
                                abort();
                        }
                        timed[ntimed++] = q->conn;
                    }
                } else if (!next || q->req.deadline_ms < next) {
                    next = q->req.deadline_ms;
                }
            }
            for (kg_http_stream *s = srv->mon_head; s; s = s->mon_next) {
                if (!s->deadline_ms || atomic_load(&s->done))
                    continue;
                if (s->deadline_ms <= now) {
                    if (ntodo == cap) {
                        cap = cap ? cap * 2 : 64;
                        todo = realloc(todo, cap * sizeof(*todo));
                        if (!todo)
                            abort();
                    }
                    atomic_fetch_add(&s->refs, 1);
                    todo[ntodo++] = s;
                } else if (!next || s->deadline_ms < next) {
                    next = s->deadline_ms;
                }
            }
            srv->next_deadline = next;
        }
        kg_http_stream *rel = srv->rel_head;
        srv->rel_head = NULL;
        pthread_mutex_unlock(&srv->mon_mu);
        /* still suspended: the worker has not finished (it lost the race to W_DONE) */
        for (size_t i = 0; i < ntimed; i++)
            MHD_resume_connection(timed[i]);
        for (size_t i = 0; i < ntodo; i++) {
            stream_mark_done(todo[i], i < npeer);
            stream_unref(todo[i]);
        }
        while (rel) {
            kg_http_stream *nx = rel->rel_next;
            stream_unref(rel);
            rel = nx;
        }
    }
    free(todo);
    free(timed);
    return NULL;
}

bool kg_http_stream_write(kg_http_stream *s, const void *data, size_t len)
{
    pthread_mutex_lock(&s->mu);
    if (atomic_load(&s->done) || s->closed) {
        pthread_mutex_unlock(&s->mu);
        return false;
    }
    if (s->qoff > 0 && s->qoff == s->q.len) {
        kg_buf_reset(&s->q);
        s->qoff = 0;
    }
    kg_buf_append(&s->q, data, len);
    bool resume = s->suspended && s->conn_alive;
    if (resume)
        s->suspended = false;
    struct MHD_Connection *conn = s->conn;
    pthread_mutex_unlock(&s->mu);
    if (resume)
        MHD_resume_connection(conn);
    return true;
}

bool kg_http_stream_done(const kg_http_stream *s)
{
    return atomic_load(&((kg_http_stream *)s)->done);
}

size_t kg_http_stream_pending(kg_http_stream *s)
{
    pthread_mutex_lock(&s->mu);
    size_t n = s->q.len - s->qoff;
    pthread_mutex_unlock(&s->mu);
    return n;
}

void kg_http_stream_on_done(kg_http_stream *s, void (*fn)(void *ud), void *ud)
{
    pthread_mutex_lock(&s->mu);
    bool now = atomic_load(&s->done) && !s->closed;
    if (!now) {
        s->on_done = fn;
        s->on_done_ud = ud;
    }
    pthread_mutex_unlock(&s->mu);
    if (now && fn)
        fn(ud);
}

void kg_http_stream_on_drain(kg_http_stream *s, size_t low_water, void (*fn)(void *ud), void *ud)
{
    pthread_mutex_lock(&s->mu);
    s->drain_low = low_water;
    s->on_drain = fn;
    s->on_drain_ud = ud;
    pthread_mutex_unlock(&s->mu);
}

void kg_http_stream_close(kg_http_stream *s)
{
    pthread_mutex_lock(&s->mu);
    s->closed = true;
    s->on_done = NULL;
    s->on_drain = NULL;
    while (s->cb_running)
        pthread_cond_wait(&s->cb_cv, &s->mu);
    bool resume = s->suspended && s->conn_alive;
    if (resume)
        s->suspended = false;
    struct MHD_Connection *conn = s->conn;
    pthread_mutex_unlock(&s->mu);
    if (resume)
        MHD_resume_connection(conn);
    stream_unref(s);
}

static ssize_t stream_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    kg_http_stream *s = cls;
    pthread_mutex_lock(&s->mu);
    size_t avail = s->q.len - s->qoff;
    if (avail) {
        size_t n = avail < max ? avail : max;
        memcpy(buf, s->q.data + s->qoff, n);
        s->qoff += n;
        if (s->qoff == s->q.len) {
            kg_buf_reset(&s->q);
            s->qoff = 0;
        }
        void (*drain)(void *) = NULL;
        void *dud = s->on_drain_ud;
        if (s->on_drain && !s->closed && avail >= s->drain_low && avail - n < s->drain_low) {
            drain = s->on_drain;
            s->cb_running++;
        }
        pthread_mutex_unlock(&s->mu);
        if (drain) {
            drain(dud);
            pthread_mutex_lock(&s->mu);
            s->cb_running--;
            pthread_cond_broadcast(&s->cb_cv);
            pthread_mutex_unlock(&s->mu);
        }
        return (ssize_t)n;
    }
    if (s->peer_gone) {
        pthread_mutex_unlock(&s->mu);
        return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    if (s->closed || atomic_load(&s->done)) {
        pthread_mutex_unlock(&s->mu);
        return MHD_CONTENT_READER_END_OF_STREAM;
    }
    s->suspended = true;
    MHD_suspend_connection(s->conn);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

kg_http_stream *kg_http_respond_stream(kg_http_request *req, kg_http_response *resp, int status,
                                       const char *content_type, int64_t deadline_ms)
{
    kg_http_stream *s = calloc(1, sizeof(*s));
    if (!s)
        abort();
    atomic_init(&s->refs, 2); /* producer + connection */
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cb_cv, NULL);
    kg_buf_init(&s->q);
    s->fd = -1;
    s->deadline_ms = deadline_ms;
    rq *r = (rq *)req->conn_;
    s->srv = r->srv;
    s->conn = r->conn;
    resp->status = status;
    resp->content_type = content_type;
    resp->body = NULL;
    resp->body_len = 0;
    if (resp->stream_) { /* a second call replaces the first stream: end it */
        kg_http_stream *old = resp->stream_;
        atomic_store(&old->done, true);
        stream_unref(old);
    }
    resp->stream_ = s;
    return s;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* request helpers                                                                                            */

const char *kg_http_query(const kg_http_request *req, const char *name)
{
    for (size_t i = 0; i < req->nparams; i++)
        if (!strcmp(req->params[i].name, name))
            return req->params[i].value;
    return NULL;
}

const char **kg_http_query_all(const kg_http_request *req, const char *name, size_t *n)
{
    size_t cnt = 0;
    for (size_t i = 0; i < req->nparams; i++)
        if (!strcmp(req->params[i].name, name))
            cnt++;
    *n = cnt;
    if (!cnt)
        return NULL;
    const char **v = kg_arena_alloc(req->arena, cnt * sizeof(*v));
    size_t j = 0;
    for (size_t i = 0; i < req->nparams; i++)
        if (!strcmp(req->params[i].name, name))
            v[j++] = req->params[i].value;
    return v;
}

const char *kg_http_header_get(const kg_http_request *req, const char *name)
{
    for (size_t i = 0; i < req->nheaders; i++)
        if (!strcasecmp(req->headers[i].name, name))
            return req->headers[i].value;
    return NULL;
}

void kg_http_respond_bytes(kg_http_response *resp, int status, const char *content_type, const void *body, size_t len)
{
    resp->status = status;
    resp->content_type = content_type;
    resp->body = body;
    resp->body_len = len;
}

void kg_http_respond_json(kg_http_request *req, kg_http_response *resp, int status, const kg_json *v)
{
    size_t len = 0;
    char *s = kg_json_to_string(req->arena, v, 0, &len);
    kg_http_respond_bytes(resp, status, "application/json", s, len);
}

static char *status_json(kg_arena *a, int status, const char *reason, const char *msg, size_t *len)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":");
    kg_json_write_string(&b, msg ? msg : "", msg ? strlen(msg) : 0, 0);
    if (reason && *reason) {
        kg_buf_puts(&b, ",\"reason\":");
        kg_json_write_string(&b, reason, strlen(reason), 0);
    }
    kg_buf_printf(&b, ",\"code\":%d}", status);
    char *r = kg_arena_strndup(a, b.data, b.len);
    *len = b.len;
    kg_buf_free(&b);
    return r;
}

void kg_http_respond_status(kg_http_request *req, kg_http_response *resp, int status, const char *reason,
                            const char *msg)
{
    size_t len;
    char *s = status_json(req->arena, status, reason, msg, &len);
    kg_http_respond_bytes(resp, status, "application/json", s, len);
}

void kg_http_add_header(kg_http_request *req, kg_http_response *resp, const char *name, const char *value)
{
    if (resp->nheaders == resp->headers_cap) {
        size_t ncap = resp->headers_cap ? resp->headers_cap * 2 : 8;
        resp->headers = kg_arena_realloc(req->arena, resp->headers, resp->headers_cap * sizeof(kg_http_header),
                                         ncap * sizeof(kg_http_header));
        resp->headers_cap = ncap;
    }
    resp->headers[resp->nheaders].name = kg_arena_strdup(req->arena, name);
    resp->headers[resp->nheaders].value = kg_arena_strdup(req->arena, value);
    resp->nheaders++;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* URL parsing                                                                                                */

static int hexv(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Percent-decode s[0..n); plus_space for query components. NULL on a malformed escape. */
static char *unescape(kg_arena *a, const char *s, size_t n, bool plus_space)
{
    char *r = kg_arena_alloc(a, n + 1), *w = r;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            if (i + 2 >= n || hexv((unsigned char)s[i + 1]) < 0 || hexv((unsigned char)s[i + 2]) < 0)
                return NULL;
            *w++ = (char)(hexv((unsigned char)s[i + 1]) * 16 + hexv((unsigned char)s[i + 2]));
            i += 2;
        } else if (plus_space && s[i] == '+') {
            *w++ = ' ';
        } else {
            *w++ = s[i];
        }
    }
    *w = '\0';
    return r;
}

/* Go url.ParseQuery: '&'-separated, pairs containing ';' or bad escapes skipped. */
static void parse_query(kg_arena *a, const char *q, kg_http_param **out, size_t *nout)
{
    size_t cnt = 0;
    for (const char *p = q; *p; p++)
        if (*p == '&')
            cnt++;
    kg_http_param *v = kg_arena_alloc(a, (cnt + 1) * sizeof(*v));
    size_t n = 0;
    const char *p = q;
    while (*p) {
        const char *end = strchr(p, '&');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len && !memchr(p, ';', len)) {
            const char *eq = memchr(p, '=', len);
            size_t klen = eq ? (size_t)(eq - p) : len;
            char *k = unescape(a, p, klen, true);
            char *val = eq ? unescape(a, eq + 1, len - klen - 1, true) : kg_arena_strdup(a, "");
            if (k && val) {
                v[n].name = k;
                v[n].value = val;
                n++;
            }
        }
        if (!end)
            break;
        p = end + 1;
    }
    *out = v;
    *nout = n;
}

/* ---- Go time.ParseDuration (for ?timeout=) ---- */

static bool parse_go_duration(const char *s, int64_t *out_ns, kg_arena *a, const char **errmsg)
{
    const char *orig = s;
    bool neg = false;
    if (*s == '-' || *s == '+') {
        neg = *s == '-';
        s++;
    }
    if (!strcmp(s, "0")) {
        *out_ns = 0;
        return true;
    }
    if (!*s)
        goto invalid;
    double total = 0;
    while (*s) {
        if (!(*s == '.' || (*s >= '0' && *s <= '9')))
            goto invalid;
        const char *numstart = s;
        bool digits = false;
        double v = 0;
        while (*s >= '0' && *s <= '9') {
            v = v * 10 + (*s - '0');
            s++;
            digits = true;
        }
        if (*s == '.') {
            s++;
            double scale = 0.1;
            while (*s >= '0' && *s <= '9') {
                v += (*s - '0') * scale;
                scale /= 10;
                s++;
                digits = true;
            }
        }
        (void)numstart;
        if (!digits)
            goto invalid;
        const char *us = s;
        while (*s && *s != '.' && !(*s >= '0' && *s <= '9'))
            s++;
        size_t ulen = (size_t)(s - us);
        if (ulen == 0) {
            *errmsg = kg_arena_sprintf(a, "time: missing unit in duration \"%s\"", orig);
            return false;
        }
        double unit;
        if (ulen == 2 && !strncmp(us, "ns", 2))
            unit = 1;
        else if ((ulen == 2 && !strncmp(us, "us", 2)) ||
                 (ulen == 3 && (!strncmp(us, "\xc2\xb5s", 3) || !strncmp(us, "\xce\xbcs", 3))))
            unit = 1e3;
        else if (ulen == 2 && !strncmp(us, "ms", 2))
            unit = 1e6;
        else if (ulen == 1 && *us == 's')
            unit = 1e9;
        else if (ulen == 1 && *us == 'm')
            unit = 60e9;
        else if (ulen == 1 && *us == 'h')
            unit = 3600e9;
        else {
            *errmsg = kg_arena_sprintf(a, "time: unknown unit \"%.*s\" in duration \"%s\"", (int)ulen, us, orig);
            return false;
        }
        total += v * unit;
        if (total > 9.2e18)
            goto invalid;
    }
    *out_ns = (int64_t)(neg ? -total : total);
    return true;
invalid:
    *errmsg = kg_arena_sprintf(a, "time: invalid duration \"%s\"", orig);
    return false;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* MHD glue                                                                                                   */

static void *uri_log_cb(void *cls, const char *uri, struct MHD_Connection *conn)
{
    kg_http_server *srv = cls;
    rq *r = calloc(1, sizeof(*r));
    if (!r)
        abort();
    r->srv = srv;
    r->conn = conn;
    kg_arena_init(&r->arena, 0);
    r->raw_uri = kg_arena_strdup(&r->arena, uri ? uri : "/");
    kg_buf_init(&r->body);
    atomic_init(&r->response_ready, false);
    atomic_init(&r->wstate, W_IDLE);
    atomic_init(&r->refs, 1);
    return r;
}

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    rq *r = cls;
    kg_http_request *q = &r->req;
    kg_http_header *h = (kg_http_header *)q->headers;
    /* copied: a handler that outlives its deadline keeps running after MHD has reused the connection's memory */
    h[q->nheaders].name = kg_arena_strdup(&r->arena, key);
    h[q->nheaders].value = kg_arena_strdup(&r->arena, value ? value : "");
    q->nheaders++;
    return MHD_YES;
}

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    (void)key;
    (void)value;
    (*(size_t *)cls)++;
    return MHD_YES;
}

static const char *query_lookup(void *ud, const char *name)
{
    return kg_http_query((kg_http_request *)ud, name);
}

static void reject(rq *r, int status, const char *reason, const char *msg)
{
    r->rejected = true;
    kg_http_respond_status(&r->req, &r->resp, status, reason, msg);
}

static bool probe_path(const char *p)
{
    static const char *const probes[] = {"/healthz", "/livez", "/readyz", "/metrics"};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        size_t n = strlen(probes[i]);
        if (!strncmp(p, probes[i], n) && (p[n] == '\0' || p[n] == '/'))
            return true;
    }
    return false;
}

/* Headers-only stage: fills the request and runs the filters. */
static void first_call(rq *r, const char *method)
{
    kg_http_server *srv = r->srv;
    kg_arena *a = &r->arena;
    kg_http_request *q = &r->req;
    q->arena = a;
    q->conn_ = (struct kg_http_conn *)r;
    q->method = kg_arena_strdup(a, method);
    q->tls = srv->tls;
    /* path and query from the raw request target */
    const char *uri = r->raw_uri;
    const char *qm = strchr(uri, '?');
    size_t plen = qm ? (size_t)(qm - uri) : strlen(uri);
    q->raw_path = kg_arena_strndup(a, uri, plen);
    q->raw_query = qm ? qm + 1 : "";
    char *path = unescape(a, uri, plen, false);
    q->path = path ? path : q->raw_path;
    kg_http_param *params;
    parse_query(a, q->raw_query, &params, &q->nparams);
    q->params = params;
    /* headers */
    size_t nh = 0;
    MHD_get_connection_values(r->conn, MHD_HEADER_KIND, count_header, &nh);
    q->headers = kg_arena_alloc(a, (nh + 1) * sizeof(kg_http_header));
    MHD_get_connection_values(r->conn, MHD_HEADER_KIND, collect_header, r);
    q->body = "";
    /* remote address */
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    char addr[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (ci && ci->client_addr) {
        const struct sockaddr *sa = ci->client_addr;
        if (sa->sa_family == AF_INET) {
            const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
            inet_ntop(AF_INET, &in->sin_addr, addr, sizeof(addr));
            port = ntohs(in->sin_port);
            q->remote_addr = kg_arena_sprintf(a, "%s:%d", addr, port);
        } else if (sa->sa_family == AF_INET6) {
            const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
            inet_ntop(AF_INET6, &in6->sin6_addr, addr, sizeof(addr));
            port = ntohs(in6->sin6_port);
            q->remote_addr = kg_arena_sprintf(a, "[%s]:%d", addr, port);
        }
    }
    if (!q->remote_addr)
        q->remote_addr = "";
    q->info = &r->info;
    q->user = &r->user;

    const char *cl = kg_http_header_get(q, "Content-Length");
    const char *te = kg_http_header_get(q, "Transfer-Encoding");
    unsigned long long clen = cl ? strtoull(cl, NULL, 10) : 0;
    r->declared_len = clen;
    r->has_body = clen > 0 || (te && strcasecmp(te, "identity") != 0);

    /* RequestInfo */
    KG_ERROR_DECL(err);
    if (!kg_requestinfo_parse(a, method, q->path, query_lookup, q, &r->info, &err)) {
        r->rejected = true;
        const char *m =
            kg_arena_sprintf(a, "Internal Server Error: \"%s\": failed to create RequestInfo: %s", r->raw_uri, err.msg);
        kg_http_respond_bytes(&r->resp, 500, "text/plain; charset=utf-8", m, strlen(m));
        return;
    }
    /* request deadline (WithRequestDeadline) */
    q->long_running = kg_requestinfo_is_long_running(&r->info);
    if (!q->long_running) {
        int64_t timeout_ms = srv->cfg.request_timeout_ms;
        const char *tv = kg_http_query(q, "timeout");
        if (tv && *tv) {
            int64_t ns = 0;
            const char *em = NULL;
            if (!parse_go_duration(tv, &ns, a, &em)) {
                reject(r, 400, "BadRequest",
                       kg_arena_sprintf(a, "invalid timeout specified in the request URL - %s", em));
                return;
            }
            if (ns > 0 && ns / 1000000 < srv->cfg.request_timeout_ms)
                timeout_ms = ns / 1000000 > 0 ? ns / 1000000 : 1;
        }
        q->deadline_ms = kg_http_now_ms() + timeout_ms;
    }
    /* authentication */
    if (srv->cfg.authn) {
        /* the client certificate chain, when the server asked for one */
        const unsigned char *der[8];
        size_t dlen[8];
        kg_x509_chain chain = {der, dlen, 0};
        if (srv->tls && srv->cfg.client_ca_pem) {
            const union MHD_ConnectionInfo *gi = MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
            chain.n = gi ? kg_tls_peer_certs(gi->tls_session, der, dlen, 8) : 0;
        }
        kg_authn_result ar =
            kg_authn_authenticate_request(srv->cfg.authn, &chain, kg_http_header_get(q, "Authorization"), a, &r->user);
        if (ar == KG_AUTHN_UNAUTHORIZED) {
            reject(r, 401, "Unauthorized", "Unauthorized");
            if (srv->cfg.audit) { /* WithFailedAuthenticationAudit */
                kg_audit_begin_args aa = {.audit_id = kg_http_header_get(q, "Audit-ID"),
                                          .request_uri = r->raw_uri,
                                          .info = &r->info,
                                          .source_ip = addr[0] != '?' ? kg_arena_strdup(a, addr) : NULL,
                                          .user_agent = kg_http_header_get(q, "User-Agent")};
                const char *id = kg_audit_failed_authentication(srv->cfg.audit, a, &aa,
                                                                kg_http_header_get(q, "Authorization"), chain.n > 0);
                if (id)
                    kg_http_add_header(q, &r->resp, "Audit-Id", id);
            }
            return;
        }
    } else {
        static const char *const anon_groups[] = {KG_GROUP_UNAUTHENTICATED};
        r->user.name = KG_USER_ANONYMOUS;
        r->user.uid = "";
        r->user.groups = anon_groups;
        r->user.ngroups = 1;
    }
    /* audit (WithAudit: after authentication, before impersonation; the policy sees the authenticated user) */
    r->authn_user = r->user;
    if (srv->cfg.audit) {
        kg_audit_begin_args aa = {.audit_id = kg_http_header_get(q, "Audit-ID"),
                                  .request_uri = r->raw_uri,
                                  .info = &r->info,
                                  .user = &r->authn_user,
                                  .source_ip = addr[0] != '?' ? kg_arena_strdup(a, addr) : NULL,
                                  .user_agent = kg_http_header_get(q, "User-Agent")};
        r->audit = kg_audit_begin(srv->cfg.audit, a, &aa);
        if (r->audit)
            q->audit_annotations = kg_audit_annotations(r->audit);
    }
    /* impersonation: authorized as the real user, then the request runs as the impersonated one */
    bool impersonated = false;
    if (srv->cfg.authz) {
        const char *ibody = NULL;
        switch (kg_impersonate(srv->cfg.authz, q->headers, q->nheaders, r->raw_uri, a, &r->user, &ibody)) {
        case KG_IMPERSONATION_NONE: break;
        case KG_IMPERSONATION_OK: impersonated = true; break;
        case KG_IMPERSONATION_FORBIDDEN:
            r->rejected = true;
            kg_http_respond_bytes(&r->resp, 403, "application/json", ibody, strlen(ibody));
            return;
        case KG_IMPERSONATION_ERROR:
            r->rejected = true;
            kg_http_respond_bytes(&r->resp, 500, "text/plain; charset=utf-8", ibody, strlen(ibody));
            return;
        }
    }
    if (r->audit && impersonated)
        kg_audit_set_impersonated_user(r->audit, &r->user);
    /* max in flight (WithMaxInFlightLimit: after authentication, before authorization); long-running requests and
     * probes are not counted */
    if (srv->cfg.max_inflight && !q->long_running && !probe_path(q->path)) {
        if (atomic_fetch_add(&srv->inflight, 1) >= srv->cfg.max_inflight) {
            atomic_fetch_sub(&srv->inflight, 1);
            reject(r, 429, "TooManyRequests", "Too many requests, please try again later.");
            kg_http_add_header(q, &r->resp, "Retry-After", "1");
            return;
        }
        r->counted = true;
    }
    /* authorization */
    if (srv->cfg.authz) {
        kg_authz_attributes at;
        kg_authz_attributes_from_request(&at, &r->user, &r->info);
        /* AuthorizeWithSelectors: the Node authorizer lets kubelets list/watch pods with spec.nodeName=<self> */
        at.field_selector = kg_http_query(q, "fieldSelector");
        at.label_selector = kg_http_query(q, "labelSelector");
        const char *reason = NULL;
        KG_ERROR_DECL(zerr);
        kg_authz_decision d = kg_authz_authorize(srv->cfg.authz, &at, a, &reason, &zerr);
        if (r->audit) {
            kg_audit_annotate(r->audit, "authorization.k8s.io/decision", d == KG_AUTHZ_ALLOW ? "allow" : "forbid");
            kg_audit_annotate(r->audit, "authorization.k8s.io/reason", reason ? reason : "");
        }
        if (d != KG_AUTHZ_ALLOW && zerr.code) { /* upstream WithAuthorization: an error is a 500, not a 403 */
            reject(r, 500, "InternalError", kg_arena_sprintf(a, "Internal error occurred: %s", zerr.msg));
            return;
        }
        if (d != KG_AUTHZ_ALLOW) {
            kg_buf b = KG_BUF_INIT;
            kg_authz_forbidden_status(&b, a, &at, reason);
            char *body = kg_arena_strndup(a, b.data, b.len);
            r->rejected = true;
            kg_http_respond_bytes(&r->resp, 403, "application/json", body, b.len);
            kg_buf_free(&b);
            return;
        }
    }
    /* body size precheck */
    if (cl && clen > srv->cfg.max_body) {
        r->too_large = true;
        r->close_after = true;
        reject(r, 413, "RequestEntityTooLarge",
               kg_arena_sprintf(a, "Request entity too large: limit is %zu", srv->cfg.max_body));
        return;
    }
    if (clen)
        kg_buf_reserve(&r->body, (size_t)clen);
}

static void add_std_headers(struct MHD_Response *mr, const kg_http_response *resp, bool close_after)
{
    if (resp->content_type)
        MHD_add_response_header(mr, "Content-Type", resp->content_type);
    bool has_cc = false;
    for (size_t i = 0; i < resp->nheaders; i++) {
        MHD_add_response_header(mr, resp->headers[i].name, resp->headers[i].value);
        if (!strcasecmp(resp->headers[i].name, "Cache-Control"))
            has_cc = true;
    }
    if (!has_cc)
        MHD_add_response_header(mr, "Cache-Control", "no-cache, private");
    if (close_after)
        MHD_add_response_header(mr, "Connection", "close");
}

static enum MHD_Result queue(rq *r)
{
    kg_http_server *srv = r->srv;
    kg_http_response *resp = &r->resp;
    r->queued = true;
    atomic_fetch_add(&srv->n_requests, 1);
    if (r->audit) {
        kg_http_add_header(&r->req, resp, "Audit-Id", kg_audit_id(r->audit));
        kg_audit_response(r->audit, resp->status ? resp->status : 500, resp->content_type,
                          resp->stream_ ? NULL : resp->body, resp->stream_ ? 0 : resp->body_len, resp->stream_ != NULL);
    }
    if (resp->stream_) {
        kg_http_stream *s = resp->stream_;
        struct MHD_Response *mr =
            MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, STREAM_BLOCK, stream_reader, s, NULL);
        add_std_headers(mr, resp, false);
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        pthread_mutex_lock(&s->mu);
        s->conn_alive = true;
        s->queued = true;
        s->fd = ci ? ci->connect_fd : -1;
        pthread_mutex_unlock(&s->mu);
        enum MHD_Result rc = MHD_queue_response(r->conn, (unsigned)resp->status, mr);
        MHD_destroy_response(mr);
        if (rc != MHD_YES) {
            pthread_mutex_lock(&s->mu);
            s->conn_alive = false;
            pthread_mutex_unlock(&s->mu);
            stream_mark_done(s, true);
            return rc;
        }
        atomic_fetch_add(&srv->n_streams_open, 1);
        atomic_fetch_add(&srv->n_streams_total, 1);
        mon_register(srv, s);
        return rc;
    }
    if (resp->status == 0)
        kg_http_respond_status(&r->req, resp, 500, "InternalError", "Internal error occurred: no response");
    struct MHD_Response *mr =
        MHD_create_response_from_buffer(resp->body_len, (void *)(resp->body ? resp->body : ""), MHD_RESPMEM_PERSISTENT);
    add_std_headers(mr, resp, r->close_after);
    enum MHD_Result rc = MHD_queue_response(r->conn, (unsigned)resp->status, mr);
    MHD_destroy_response(mr);
    return rc;
}

static void run_handler(rq *r)
{
    kg_http_request *q = &r->req;
    q->body = r->body.len ? kg_buf_cstr(&r->body) : "";
    q->body_len = r->body.len;
    if (r->audit)
        kg_audit_request_body(r->audit, kg_http_header_get(q, "Content-Type"), q->body, q->body_len);
    r->srv->cfg.handler(r->srv->cfg.handler_ud, q, &r->resp);
}

static void rq_unref(rq *r)
{
    if (atomic_fetch_sub(&r->refs, 1) == 1) {
        kg_buf_free(&r->body);
        kg_arena_free(&r->arena);
        free(r);
    }
}

/* Caller holds mon_mu. */
static void rq_untrack_locked(kg_http_server *srv, rq *r)
{
    if (!r->tracked)
        return;
    r->tracked = false;
    if (r->tprev)
        r->tprev->tnext = r->tnext;
    else
        srv->rq_head = r->tnext;
    if (r->tnext)
        r->tnext->tprev = r->tprev;
    r->tprev = r->tnext = NULL;
}

static void rq_track(kg_http_server *srv, rq *r)
{
    if (!r->req.deadline_ms)
        return;
    pthread_mutex_lock(&srv->mon_mu);
    r->tracked = true;
    r->tprev = NULL;
    r->tnext = srv->rq_head;
    if (srv->rq_head)
        srv->rq_head->tprev = r;
    srv->rq_head = r;
    if (!srv->next_deadline || r->req.deadline_ms < srv->next_deadline) {
        srv->next_deadline = r->req.deadline_ms;
        mon_wake(srv);
    }
    pthread_mutex_unlock(&srv->mon_mu);
}

/* WithTimeoutForNonLongRunningRequests: apierrors.NewTimeoutError(..., 0) */
static const char timeout_body[] =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Timeout: request "
    "did not complete within requested timeout - context deadline exceeded\",\"reason\":\"Timeout\",\"details\":{},"
    "\"code\":504}";

static void *worker_main(void *arg)
{
    kg_http_server *srv = arg;
    for (;;) {
        pthread_mutex_lock(&srv->wmu);
        while (!srv->whead && !srv->wstop)
            pthread_cond_wait(&srv->wcv, &srv->wmu);
        rq *r = srv->whead;
        if (!r) {
            pthread_mutex_unlock(&srv->wmu);
            break;
        }
        srv->whead = r->next;
        if (!srv->whead)
            srv->wtail = NULL;
        pthread_mutex_unlock(&srv->wmu);
        run_handler(r);
        pthread_mutex_lock(&srv->mon_mu);
        rq_untrack_locked(srv, r);
        pthread_mutex_unlock(&srv->mon_mu);
        int expect = W_RUNNING;
        if (atomic_compare_exchange_strong(&r->wstate, &expect, W_DONE)) {
            atomic_store(&r->response_ready, true);
            MHD_resume_connection(r->conn);
        } else if (r->resp.stream_) {
            /* timed out (504 already sent): a stream made too late is never attached to the connection */
            kg_http_stream *st = r->resp.stream_;
            r->resp.stream_ = NULL;
            stream_mark_done(st, true);
            stream_unref(st);
        }
        rq_unref(r); /* the worker's reference */
    }
    return NULL;
}

bool kg_http_offload_default(void *ud, const kg_http_request *req)
{
    (void)ud;
    const char *v = req->info->verb;
    if (req->info->is_resource_request)
        return strcmp(v, "get") && strcmp(v, "list") && strcmp(v, "watch");
    return strcmp(req->method, "GET") && strcmp(req->method, "HEAD");
}

static kg_conn_rec *conn_rec(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

static enum MHD_Result access_cb(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                 const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
    (void)url;
    (void)version;
    kg_http_server *srv = cls;
    rq *r = *con_cls;
    if (!r) /* no URI log callback ran (should not happen) */
        return MHD_NO;
    if (!r->started) {
        r->started = true;
        first_call(r, method);
        kg_conntrack_headers(srv->ct, conn_rec(conn), r->has_body, kg_http_now_ms());
        /* A rejection with a body pending is answered after the body has been read and dropped (never stored):
         * answering first makes MHD close the socket with unread data, and clients still sending then see a
         * reset instead of the response. Bodies declared larger than DISCARD_LIMIT are answered at once. */
        const char *expect = kg_http_header_get(&r->req, "Expect");
        bool wants_continue = expect && !strcasecmp(expect, "100-continue");
        /* with "Expect: 100-continue" the client has not sent the body yet: answer instead of inviting it */
        if (r->rejected && r->has_body && (wants_continue || r->declared_len > DISCARD_LIMIT)) {
            r->close_after = true;
            return queue(r);
        }
        return MHD_YES;
    }
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (r->rejected) {
            r->discarded += n;
            return r->discarded > DISCARD_LIMIT ? MHD_NO : MHD_YES;
        }
        if (r->body.len + n > srv->cfg.max_body) {
            /* chunked body past the limit: stop keeping it, answer 413 at the end, then close */
            r->too_large = true;
            r->close_after = true;
            kg_buf_free(&r->body);
            r->discarded = n;
            reject(r, 413, "RequestEntityTooLarge",
                   kg_arena_sprintf(&r->arena, "Request entity too large: limit is %zu", srv->cfg.max_body));
            return MHD_YES;
        }
        kg_buf_append(&r->body, upload_data, n);
        return MHD_YES;
    }
    /* the whole request has been received */
    if (r->queued)
        return MHD_YES;
    kg_conntrack_body_done(conn_rec(conn));
    if (r->rejected)
        return queue(r);
    if (r->in_worker) {
        if (atomic_load(&r->wstate) == W_TIMED_OUT) {
            /* the handler still owns req/resp/arena: answer from static memory only */
            r->queued = true;
            atomic_fetch_add(&srv->n_requests, 1);
            struct MHD_Response *mr =
                MHD_create_response_from_buffer(sizeof(timeout_body) - 1, (void *)timeout_body, MHD_RESPMEM_PERSISTENT);
            MHD_add_response_header(mr, "Content-Type", "application/json");
            MHD_add_response_header(mr, "Cache-Control", "no-cache, private");
            enum MHD_Result rc = MHD_queue_response(conn, 504, mr);
            MHD_destroy_response(mr);
            return rc;
        }
        if (!atomic_load(&r->response_ready))
            return MHD_YES; /* spurious call */
        return queue(r);
    }
    kg_http_offload_fn off = srv->cfg.offload ? srv->cfg.offload : kg_http_offload_default;
    if (srv->nworkers && off(srv->cfg.handler_ud, &r->req)) {
        pthread_mutex_lock(&srv->wmu);
        if (srv->wstop) { /* stopping: no workers left to resume the connection */
            pthread_mutex_unlock(&srv->wmu);
            run_handler(r);
            return queue(r);
        }
        r->in_worker = true;
        atomic_store(&r->wstate, W_RUNNING);
        atomic_fetch_add(&r->refs, 1);
        MHD_suspend_connection(conn);
        rq_track(srv, r);
        r->next = NULL;
        if (srv->wtail)
            srv->wtail->next = r;
        else
            srv->whead = r;
        srv->wtail = r;
        pthread_cond_signal(&srv->wcv);
        pthread_mutex_unlock(&srv->wmu);
        return MHD_YES;
    }
    run_handler(r);
    return queue(r);
}

static void completed_cb(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    kg_http_server *srv = cls;
    kg_conntrack_idle(conn_rec(conn), kg_http_now_ms()); /* (the connection may be closing: then it is gone next) */
    rq *r = *con_cls;
    if (!r)
        return;
    *con_cls = NULL;
    if (r->audit) /* a timed-out handler may still be adding annotations: then the 504 is recorded without them */
        kg_audit_complete(r->audit, atomic_load(&r->wstate) == W_TIMED_OUT);
    if (r->counted)
        atomic_fetch_sub(&srv->inflight, 1);
    /* after a timeout the (maybe still running) worker owns resp */
    kg_http_stream *s = atomic_load(&r->wstate) == W_TIMED_OUT ? NULL : r->resp.stream_;
    if (s) {
        pthread_mutex_lock(&s->mu);
        s->conn_alive = false;
        bool was_done = atomic_load(&s->done);
        pthread_mutex_unlock(&s->mu);
        if (s->queued)
            atomic_fetch_sub(&srv->n_streams_open, 1);
        pthread_mutex_lock(&srv->mon_mu);
        mon_unregister_locked(srv, s);
        pthread_mutex_unlock(&srv->mon_mu);
        if (!was_done)
            stream_mark_done(s, toe != MHD_REQUEST_TERMINATED_COMPLETED_OK);
        stream_unref(s); /* the connection's reference */
        r->resp.stream_ = NULL;
    }
    rq_unref(r); /* the connection's reference */
}

static void conn_notify_cb(void *cls, struct MHD_Connection *conn, void **socket_context,
                           enum MHD_ConnectionNotificationCode toe)
{
    kg_http_server *srv = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        atomic_fetch_add(&srv->n_conns, 1);
        const union MHD_ConnectionInfo *fi = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *ai = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        *socket_context =
            kg_conntrack_open(srv->ct, fi ? fi->connect_fd : -1, ai ? ai->client_addr : NULL, kg_http_now_ms());
    } else {
        atomic_fetch_sub(&srv->n_conns, 1);
        kg_conntrack_close(srv->ct, *socket_context); /* before libmicrohttpd closes the socket */
        *socket_context = NULL;
    }
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char buf[512];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    KG_V(2, "libmicrohttpd: %s", buf);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* server                                                                                                     */

void kg_http_config_defaults(kg_http_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->bind_address = "127.0.0.1";
    cfg->port = 6443;
    cfg->worker_threads = 8;
    cfg->connection_limit = 10000;
    cfg->connection_timeout_s = 90;
    cfg->header_timeout_ms = 10000;
    cfg->body_timeout_ms = 60000;
    cfg->per_ip_fresh_limit = 256;
    cfg->max_body = KG_HTTP_MAX_BODY;
    cfg->request_timeout_ms = KG_HTTP_DEFAULT_REQUEST_TIMEOUT_MS;
}

static int open_listener(const char *addr, int port, int *bound_port, kg_error *err)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    socklen_t sl;
    const char *host = addr && *addr ? addr : "127.0.0.1";
    char hbuf[64];
    if (host[0] == '[') {
        snprintf(hbuf, sizeof(hbuf), "%s", host + 1);
        char *e = strchr(hbuf, ']');
        if (e)
            *e = '\0';
        host = hbuf;
    }
    struct sockaddr_in *in = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    bool v6 = strchr(host, ':') != NULL;
    if (!v6 && inet_pton(AF_INET, host, &in->sin_addr) == 1) {
        in->sin_family = AF_INET;
        in->sin_port = htons((uint16_t)port);
        sl = sizeof(*in);
    } else if (v6 && inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        sl = sizeof(*in6);
    } else {
        kg_err_set(err, KG_EINVAL, "invalid bind address \"%s\"", host);
        return -1;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        kg_err_set(err, KG_EIO, "socket: %s", strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (v6) {
        int off = 0; /* "::" serves IPv4 too, like Go's listener */
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
    }
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, 4096) != 0) {
        kg_err_set(err, KG_EIO, "listen tcp %s%s%s:%d: bind: %s", v6 ? "[" : "", host, v6 ? "]" : "", port,
                   strerror(errno));
        close(fd);
        return -1;
    }
    struct sockaddr_storage bs;
    socklen_t bl = sizeof(bs);
    getsockname(fd, (struct sockaddr *)&bs, &bl);
    *bound_port = bs.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&bs)->sin_port)
                                          : ntohs(((struct sockaddr_in6 *)&bs)->sin6_port);
    return fd;
}

kg_http_server *kg_http_server_start(const kg_http_config *cfg, kg_error *err)
{
    if (!cfg->handler) {
        kg_err_set(err, KG_EINVAL, "no handler");
        return NULL;
    }
    if ((cfg->tls_cert_pem == NULL) != (cfg->tls_key_pem == NULL)) {
        kg_err_set(err, KG_EINVAL, "TLS needs both a certificate and a key");
        return NULL;
    }
    kg_http_server *srv = calloc(1, sizeof(*srv));
    if (!srv)
        abort();
    srv->cfg = *cfg;
    kg_http_config defs;
    kg_http_config_defaults(&defs);
    if (!srv->cfg.max_body)
        srv->cfg.max_body = defs.max_body;
    if (!srv->cfg.request_timeout_ms)
        srv->cfg.request_timeout_ms = defs.request_timeout_ms;
    if (!srv->cfg.connection_limit)
        srv->cfg.connection_limit = defs.connection_limit;
    if (!srv->cfg.connection_timeout_s)
        srv->cfg.connection_timeout_s = defs.connection_timeout_s;
    unsigned nthreads = cfg->network_threads;
    if (!nthreads) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = n > 0 ? (unsigned)n : 1;
    }
    srv->listen_fd = -1;
    srv->mon_ep = srv->mon_ev = -1;
    pthread_mutex_init(&srv->wmu, NULL);
    pthread_cond_init(&srv->wcv, NULL);
    pthread_mutex_init(&srv->mon_mu, NULL);
    kg_conntrack_limits cl = {.header_timeout_ms = srv->cfg.header_timeout_ms,
                              .body_timeout_ms = srv->cfg.body_timeout_ms,
                              .idle_timeout_ms = (int64_t)srv->cfg.connection_timeout_s * 1000,
                              .per_ip_fresh = srv->cfg.per_ip_fresh_limit,
                              .max_conns = srv->cfg.connection_limit};
    srv->ct = kg_conntrack_new(&cl);

    srv->listen_fd = open_listener(cfg->bind_address, cfg->port, &srv->port, err);
    if (srv->listen_fd < 0)
        goto fail;

    /* monitor */
    srv->mon_ep = epoll_create1(EPOLL_CLOEXEC);
    srv->mon_ev = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (srv->mon_ep < 0 || srv->mon_ev < 0) {
        kg_err_set(err, KG_EIO, "epoll/eventfd: %s", strerror(errno));
        goto fail;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(srv->mon_ep, EPOLL_CTL_ADD, srv->mon_ev, &ev);
    if (pthread_create(&srv->mon_thread, NULL, mon_main, srv) != 0) {
        kg_err_set(err, KG_EIO, "pthread_create failed");
        goto fail;
    }
    /* workers */
    srv->nworkers = cfg->worker_threads;
    if (srv->nworkers) {
        srv->workers = calloc(srv->nworkers, sizeof(pthread_t));
        for (size_t i = 0; i < srv->nworkers; i++)
            pthread_create(&srv->workers[i], NULL, worker_main, srv);
    }

    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    srv->tls = cfg->tls_cert_pem != NULL || cfg->tls_creds != NULL;
    if (cfg->tls_creds) {
        flags |= MHD_USE_TLS;
        if (!kg_tls_creds_bind(cfg->tls_creds, srv->port, err))
            goto fail;
        srv->creds_bound = true;
    } else if (srv->tls) {
        flags |= MHD_USE_TLS;
        srv->cert = strdup(cfg->tls_cert_pem);
        srv->key = strdup(cfg->tls_key_pem);
    }
    if (srv->tls) {
        srv->priorities = cfg->tls_priorities ? strdup(cfg->tls_priorities) : kg_tls_priorities(NULL, NULL, err);
        if (!srv->priorities)
            goto fail;
    }
    struct MHD_OptionItem opts[20];
    int k = 0;
    opts[k++] = (struct MHD_OptionItem){MHD_OPTION_LISTEN_SOCKET, srv->listen_fd, NULL};
    opts[k++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)nthreads, NULL};
    /* the tracker sheds connections above connection_limit; libmicrohttpd refuses only past this slack */
    opts[k++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, (intptr_t)srv->cfg.connection_limit + 512, NULL};
    opts[k++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)srv->cfg.connection_timeout_s, NULL};
    opts[k++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, KG_HTTP_CONN_MEMORY, NULL};
    opts[k++] = (struct MHD_OptionItem){MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)uri_log_cb, srv};
    opts[k++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed_cb, srv};
    opts[k++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)conn_notify_cb, srv};
    opts[k++] = (struct MHD_OptionItem){MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)mhd_log, srv};
    if (cfg->tls_creds) {
        opts[k++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_CERT_CALLBACK, 0, kg_tls_creds_callback()};
        /* the credentials' client CA: required and verified in the handshake (the webhook door's mTLS); else serve's
         * --client-ca-file: requested, never required, verified per request by authentication */
        const char *trust = kg_tls_creds_client_ca(cfg->tls_creds) ? kg_tls_creds_client_ca(cfg->tls_creds)
                                                                   : cfg->client_ca_pem;
        if (trust)
            opts[k++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_TRUST, 0, (void *)trust};
    } else if (srv->tls) {
        opts[k++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, srv->cert};
        opts[k++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, srv->key};
        if (cfg->client_ca_pem) /* libmicrohttpd then requests (GNUTLS_CERT_REQUEST), never requires, a certificate */
            opts[k++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_TRUST, 0, (void *)cfg->client_ca_pem};
    }
    if (srv->tls)
        opts[k++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0, srv->priorities};
    opts[k++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    srv->d = MHD_start_daemon(flags, 0, NULL, NULL, access_cb, srv, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
    if (!srv->d) {
        kg_err_set(err, KG_EINVAL, "starting the HTTP%s server on port %d failed%s", srv->tls ? "S" : "", srv->port,
                   srv->tls ? " (check the TLS certificate and key)" : "");
        goto fail;
    }
    return srv;
fail:
    kg_http_server_stop(srv);
    return NULL;
}

int kg_http_server_port(const kg_http_server *s)
{
    return s->port;
}

void kg_http_server_stats(kg_http_server *s, kg_http_stats *out)
{
    out->requests = atomic_load(&s->n_requests);
    out->streams_open = atomic_load(&s->n_streams_open);
    out->streams_total = atomic_load(&s->n_streams_total);
    out->connections = atomic_load(&s->n_conns);
}

void kg_http_server_stop(kg_http_server *srv)
{
    if (!srv)
        return;
    if (srv->d && MHD_quiesce_daemon(srv->d) == MHD_INVALID_SOCKET)
        srv->listen_fd = -1; /* not handed back: MHD_stop_daemon closes it */
    /* finish queued handler work (their connections are suspended until then) */
    if (srv->workers) {
        pthread_mutex_lock(&srv->wmu);
        srv->wstop = true;
        pthread_cond_broadcast(&srv->wcv);
        pthread_mutex_unlock(&srv->wmu);
        for (size_t i = 0; i < srv->nworkers; i++)
            pthread_join(srv->workers[i], NULL);
        free(srv->workers);
        srv->workers = NULL;
    }
    /* end every stream so no connection stays suspended */
    if (srv->mon_ep >= 0) {
        pthread_mutex_lock(&srv->mon_mu);
        srv->stopping = true;
        size_t n = 0;
        for (kg_http_stream *s = srv->mon_head; s; s = s->mon_next)
            n++;
        kg_http_stream **all = calloc(n ? n : 1, sizeof(*all));
        n = 0;
        for (kg_http_stream *s = srv->mon_head; s; s = s->mon_next) {
            atomic_fetch_add(&s->refs, 1);
            all[n++] = s;
        }
        pthread_mutex_unlock(&srv->mon_mu);
        for (size_t i = 0; i < n; i++) {
            stream_mark_done(all[i], false);
            stream_unref(all[i]);
        }
        free(all);
    }
    if (srv->d) {
        MHD_stop_daemon(srv->d);
        srv->d = NULL;
    }
    if (srv->mon_thread) {
        pthread_mutex_lock(&srv->mon_mu);
        srv->mon_stop = true;
        pthread_mutex_unlock(&srv->mon_mu);
        mon_wake(srv);
        pthread_join(srv->mon_thread, NULL);
    }
    /* release what the monitor still holds */
    while (srv->mon_head) {
        kg_http_stream *s = srv->mon_head;
        mon_unregister_locked(srv, s);
    }
    while (srv->rel_head) {
        kg_http_stream *s = srv->rel_head;
        srv->rel_head = s->rel_next;
        stream_unref(s);
    }
    if (srv->creds_bound)
        kg_tls_creds_unbind(srv->cfg.tls_creds);
    kg_conntrack_free(srv->ct);
    if (srv->mon_ep >= 0)
        close(srv->mon_ep);
    if (srv->mon_ev >= 0)
        close(srv->mon_ev);
    if (srv->listen_fd >= 0)
        close(srv->listen_fd);
    if (srv->key) {
        memset(srv->key, 0, strlen(srv->key));
        free(srv->key);
    }
    free(srv->cert);
    free(srv->priorities);
    pthread_mutex_destroy(&srv->wmu);
    pthread_cond_destroy(&srv->wcv);
    pthread_mutex_destroy(&srv->mon_mu);
    free(srv);
}
