/* Connection tracker (see conntrack.h). */
#include "server/conntrack.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

enum { PH_FRESH = 0, PH_BODY, PH_BUSY, PH_IDLE, PH_SHED };

#define IP_BUCKETS 4096

typedef struct ipb {
    struct ipb *next; /* hash chain */
    uint8_t key[17];  /* family byte + address */
    unsigned fresh;   /* FRESH connections of this IP */
    kg_conn_rec *head, *tail;
} ipb;

struct kg_conn_rec {
    int fd;
    atomic_int phase;
    _Atomic int64_t since_ms;     /* start of the current phase */
    bool shed;                    /* shut down by the tracker (under mu) */
    ipb *ip;                      /* while FRESH */
    kg_conn_rec *a_prev, *a_next; /* all connections */
    kg_conn_rec *f_prev, *f_next; /* FRESH connections, oldest first */
    kg_conn_rec *i_prev, *i_next; /* FRESH connections of the same IP, oldest first */
};

struct kg_conntrack {
    kg_conntrack_limits lim;
    pthread_mutex_t mu;
    kg_conn_rec *a_head, *a_tail;
    kg_conn_rec *f_head, *f_tail;
    size_t live; /* tracked and not shed */
    size_t fresh;
    uint64_t seed;
    uint64_t timed_out, shed_per_ip, shed_capacity;
    ipb *ips[IP_BUCKETS];
};

kg_conntrack *kg_conntrack_new(const kg_conntrack_limits *limits)
{
    kg_conntrack *ct = calloc(1, sizeof *ct);
    if (!ct)
        abort();
    if (limits)
        ct->lim = *limits;
    if (ct->lim.header_timeout_ms <= 0)
        ct->lim.header_timeout_ms = 10000;
    if (ct->lim.body_timeout_ms <= 0)
        ct->lim.body_timeout_ms = 60000;
    if (ct->lim.idle_timeout_ms <= 0)
        ct->lim.idle_timeout_ms = 90000;
    if (!ct->lim.per_ip_fresh)
        ct->lim.per_ip_fresh = 256;
    if (!ct->lim.max_conns)
        ct->lim.max_conns = 10000;
    if (getrandom(&ct->seed, sizeof ct->seed, 0) != sizeof ct->seed)
        ct->seed = (uint64_t)(uintptr_t)ct ^ 0x9e3779b97f4a7c15ull;
    pthread_mutex_init(&ct->mu, NULL);
    return ct;
}

void kg_conntrack_free(kg_conntrack *ct)
{
    if (!ct)
        return;
    while (ct->a_head)
        kg_conntrack_close(ct, ct->a_head);
    for (size_t i = 0; i < IP_BUCKETS; i++)
        while (ct->ips[i]) {
            ipb *b = ct->ips[i];
            ct->ips[i] = b->next;
            free(b);
        }
    pthread_mutex_destroy(&ct->mu);
    free(ct);
}

/* ---- per-IP buckets (under mu) ---- */

static size_t ip_key(const struct sockaddr *sa, uint8_t key[17])
{
    memset(key, 0, 17);
    if (!sa)
        return 0;
    if (sa->sa_family == AF_INET) {
        key[0] = 4;
        memcpy(key + 1, &((const struct sockaddr_in *)sa)->sin_addr, 4);
        return 5;
    }
    if (sa->sa_family == AF_INET6) {
        const uint8_t *a = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
        static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (!memcmp(a, v4mapped, 12)) { /* the same client as over IPv4 */
            key[0] = 4;
            memcpy(key + 1, a + 12, 4);
            return 5;
        }
        key[0] = 6;
        memcpy(key + 1, a, 16);
        return 17;
    }
    return 0;
}

static size_t ip_hash(const kg_conntrack *ct, const uint8_t key[17])
{
    uint64_t h = 1469598103934665603ull ^ ct->seed; /* FNV-1a, seeded: clients cannot aim at one chain */
    for (size_t i = 0; i < 17; i++) {
        h ^= key[i];
        h *= 1099511628211ull;
    }
    return (size_t)(h ^ (h >> 29)) % IP_BUCKETS;
}

static ipb *ip_get(kg_conntrack *ct, const uint8_t key[17])
{
    size_t h = ip_hash(ct, key);
    for (ipb *b = ct->ips[h]; b; b = b->next)
        if (!memcmp(b->key, key, 17))
            return b;
    ipb *b = calloc(1, sizeof *b);
    if (!b)
        abort();
    memcpy(b->key, key, 17);
    b->next = ct->ips[h];
    ct->ips[h] = b;
    return b;
}

static void ip_put(kg_conntrack *ct, ipb *b)
{
    if (b->fresh)
        return;
    ipb **pp = &ct->ips[ip_hash(ct, b->key)];
    while (*pp != b)
        pp = &(*pp)->next;
    *pp = b->next;
    free(b);
}

/* Take c off the FRESH lists (under mu). */
static void leave_fresh(kg_conntrack *ct, kg_conn_rec *c)
{
    if (c->f_prev)
        c->f_prev->f_next = c->f_next;
    else
        ct->f_head = c->f_next;
    if (c->f_next)
        c->f_next->f_prev = c->f_prev;
    else
        ct->f_tail = c->f_prev;
    c->f_prev = c->f_next = NULL;
    ct->fresh--;
    ipb *b = c->ip;
    if (b) {
        if (c->i_prev)
            c->i_prev->i_next = c->i_next;
        else
            b->head = c->i_next;
        if (c->i_next)
            c->i_next->i_prev = c->i_prev;
        else
            b->tail = c->i_prev;
        c->i_prev = c->i_next = NULL;
        b->fresh--;
        c->ip = NULL;
        ip_put(ct, b);
    }
}

/* Close c from our side (under mu): the socket is shut down, libmicrohttpd sees EOF and reports the close. */
static void shed(kg_conntrack *ct, kg_conn_rec *c)
{
    if (c->shed)
        return;
    if (atomic_load(&c->phase) == PH_FRESH)
        leave_fresh(ct, c);
    c->shed = true;
    atomic_store(&c->phase, PH_SHED);
    ct->live--;
    if (c->fd >= 0)
        shutdown(c->fd, SHUT_RDWR);
}

kg_conn_rec *kg_conntrack_open(kg_conntrack *ct, int fd, const struct sockaddr *addr, int64_t now_ms)
{
    kg_conn_rec *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    c->fd = fd;
    atomic_init(&c->phase, PH_FRESH);
    atomic_init(&c->since_ms, now_ms);
    uint8_t key[17];
    bool has_ip = ip_key(addr, key) > 0;
    pthread_mutex_lock(&ct->mu);
    c->a_prev = ct->a_tail;
    if (ct->a_tail)
        ct->a_tail->a_next = c;
    else
        ct->a_head = c;
    ct->a_tail = c;
    c->f_prev = ct->f_tail;
    if (ct->f_tail)
        ct->f_tail->f_next = c;
    else
        ct->f_head = c;
    ct->f_tail = c;
    ct->fresh++;
    ct->live++;
    if (has_ip) {
        ipb *b = ip_get(ct, key);
        c->ip = b;
        c->i_prev = b->tail;
        if (b->tail)
            b->tail->i_next = c;
        else
            b->head = c;
        b->tail = c;
        b->fresh++;
        if (b->fresh > ct->lim.per_ip_fresh && b->head != c) {
            shed(ct, b->head);
            ct->shed_per_ip++;
        }
    }
    while (ct->live > ct->lim.max_conns) {
        kg_conn_rec *victim = ct->f_head != c ? ct->f_head : NULL;
        if (!victim) { /* no other FRESH connection: the longest idle one */
            int64_t oldest = 0;
            for (kg_conn_rec *o = ct->a_head; o; o = o->a_next) {
                if (o->shed || atomic_load(&o->phase) != PH_IDLE)
                    continue;
                int64_t since = atomic_load(&o->since_ms);
                if (!victim || since < oldest) {
                    victim = o;
                    oldest = since;
                }
            }
        }
        if (!victim)
            break; /* everything is busy: libmicrohttpd's hard limit applies */
        shed(ct, victim);
        ct->shed_capacity++;
    }
    pthread_mutex_unlock(&ct->mu);
    return c;
}

void kg_conntrack_close(kg_conntrack *ct, kg_conn_rec *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&ct->mu);
    if (!c->shed) {
        if (atomic_load(&c->phase) == PH_FRESH)
            leave_fresh(ct, c);
        ct->live--;
    }
    if (c->a_prev)
        c->a_prev->a_next = c->a_next;
    else
        ct->a_head = c->a_next;
    if (c->a_next)
        c->a_next->a_prev = c->a_prev;
    else
        ct->a_tail = c->a_prev;
    pthread_mutex_unlock(&ct->mu);
    free(c);
}

void kg_conntrack_headers(kg_conntrack *ct, kg_conn_rec *c, bool has_body, int64_t now_ms)
{
    if (!c)
        return;
    int ph = has_body ? PH_BODY : PH_BUSY;
    atomic_store(&c->since_ms, now_ms);
    if (atomic_load(&c->phase) == PH_FRESH) {
        pthread_mutex_lock(&ct->mu);
        if (!c->shed) {
            leave_fresh(ct, c);
            atomic_store(&c->phase, ph);
        }
        pthread_mutex_unlock(&ct->mu);
        return;
    }
    atomic_store(&c->phase, ph); /* may overwrite SHED: harmless, c->shed decides */
}

void kg_conntrack_body_done(kg_conn_rec *c)
{
    int expect = PH_BODY;
    if (c)
        atomic_compare_exchange_strong(&c->phase, &expect, PH_BUSY);
}

void kg_conntrack_idle(kg_conn_rec *c, int64_t now_ms)
{
    if (!c)
        return;
    atomic_store(&c->since_ms, now_ms);
    int expect = PH_BUSY;
    if (!atomic_compare_exchange_strong(&c->phase, &expect, PH_IDLE)) {
        expect = PH_BODY; /* a request ended without its body complete (rejected early) */
        atomic_compare_exchange_strong(&c->phase, &expect, PH_IDLE);
    }
}

size_t kg_conntrack_sweep(kg_conntrack *ct, int64_t now_ms)
{
    size_t n = 0;
    pthread_mutex_lock(&ct->mu);
    for (kg_conn_rec *c = ct->a_head; c; c = c->a_next) {
        if (c->shed)
            continue;
        int ph = atomic_load(&c->phase);
        int64_t limit = ph == PH_FRESH  ? ct->lim.header_timeout_ms
                        : ph == PH_BODY ? ct->lim.body_timeout_ms
                        : ph == PH_IDLE ? ct->lim.idle_timeout_ms
                                        : 0;
        if (limit && now_ms - atomic_load(&c->since_ms) >= limit) {
            shed(ct, c);
            ct->timed_out++;
            n++;
        }
    }
    pthread_mutex_unlock(&ct->mu);
    return n;
}

void kg_conntrack_get_stats(kg_conntrack *ct, kg_conntrack_stats *out)
{
    pthread_mutex_lock(&ct->mu);
    out->open = ct->live;
    out->fresh = ct->fresh;
    out->timed_out = ct->timed_out;
    out->shed_per_ip = ct->shed_per_ip;
    out->shed_capacity = ct->shed_capacity;
    pthread_mutex_unlock(&ct->mu);
}
