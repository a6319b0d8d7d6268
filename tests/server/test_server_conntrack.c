/* Connection tracker: absolute header/body/idle deadlines, the per-IP limit on connections without a complete
 * request, and the total cap shedding the oldest waiting connection. Sockets are socketpairs: a connection the
 * tracker closes reads EOF on the peer end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/conntrack.h"

typedef struct pair {
    int srv, cli;
} pair;

static pair mkpair(void)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    fcntl(sv[1], F_SETFL, O_NONBLOCK);
    return (pair){sv[0], sv[1]};
}

/* true when the tracker shut the server end down (the client reads EOF) */
static bool closed(pair p)
{
    char c;
    ssize_t n = recv(p.cli, &c, 1, 0);
    return n == 0;
}

static void done(pair p)
{
    close(p.srv);
    close(p.cli);
}

static struct sockaddr_in ip4(const char *a)
{
    struct sockaddr_in in = {.sin_family = AF_INET};
    inet_pton(AF_INET, a, &in.sin_addr);
    return in;
}

static void header_deadline_is_absolute(void **state)
{
    (void)state;
    kg_conntrack_limits l = {.header_timeout_ms = 10000, .idle_timeout_ms = 90000, .body_timeout_ms = 60000};
    kg_conntrack *ct = kg_conntrack_new(&l);
    pair slow = mkpair(), quick = mkpair();
    struct sockaddr_in a = ip4("10.0.0.1");
    kg_conn_rec *s = kg_conntrack_open(ct, slow.srv, (struct sockaddr *)&a, 1000);
    kg_conn_rec *q = kg_conntrack_open(ct, quick.srv, (struct sockaddr *)&a, 1000);
    kg_conntrack_headers(ct, q, false, 1500); /* headers complete: BUSY, no deadline */
    assert_int_equal(kg_conntrack_sweep(ct, 10999), 0);
    assert_false(closed(slow));
    assert_int_equal(kg_conntrack_sweep(ct, 11000), 1); /* bytes trickling in change nothing: 10 s from accept */
    assert_true(closed(slow));
    assert_false(closed(quick));
    /* a busy connection (handler, watch stream) has no deadline */
    assert_int_equal(kg_conntrack_sweep(ct, 1000000), 0);
    /* idle keep-alive: 90 s after the response, absolute */
    kg_conntrack_idle(q, 1000000);
    assert_int_equal(kg_conntrack_sweep(ct, 1089999), 0);
    assert_int_equal(kg_conntrack_sweep(ct, 1090000), 1);
    assert_true(closed(quick));
    kg_conntrack_stats st;
    kg_conntrack_get_stats(ct, &st);
    assert_int_equal(st.timed_out, 2);
    assert_int_equal(st.open, 0);
    kg_conntrack_close(ct, s);
    kg_conntrack_close(ct, q);
    kg_conntrack_free(ct);
    done(slow);
    done(quick);
}

static void body_deadline(void **state)
{
    (void)state;
    kg_conntrack *ct = kg_conntrack_new(NULL);
    pair p = mkpair(), p2 = mkpair();
    kg_conn_rec *c = kg_conntrack_open(ct, p.srv, NULL, 0);
    kg_conn_rec *c2 = kg_conntrack_open(ct, p2.srv, NULL, 0);
    kg_conntrack_headers(ct, c, true, 100);
    kg_conntrack_headers(ct, c2, true, 100);
    kg_conntrack_body_done(c2); /* the body arrived: no deadline */
    assert_int_equal(kg_conntrack_sweep(ct, 60099), 0);
    assert_int_equal(kg_conntrack_sweep(ct, 60100), 1);
    assert_true(closed(p));
    assert_false(closed(p2));
    kg_conntrack_close(ct, c);
    kg_conntrack_close(ct, c2);
    kg_conntrack_free(ct);
    done(p);
    done(p2);
}

static void per_ip_limit_sheds_the_oldest(void **state)
{
    (void)state;
    kg_conntrack_limits l = {.per_ip_fresh = 3};
    kg_conntrack *ct = kg_conntrack_new(&l);
    pair p[6];
    kg_conn_rec *c[6];
    struct sockaddr_in bad = ip4("10.0.0.66"), good = ip4("10.0.0.7");
    for (int i = 0; i < 3; i++) {
        p[i] = mkpair();
        c[i] = kg_conntrack_open(ct, p[i].srv, (struct sockaddr *)&bad, i);
    }
    /* another IP is not affected */
    p[3] = mkpair();
    c[3] = kg_conntrack_open(ct, p[3].srv, (struct sockaddr *)&good, 3);
    for (int i = 0; i < 4; i++)
        assert_false(closed(p[i]));
    /* a 4th fresh connection from the same IP: its oldest goes, the new one is admitted */
    p[4] = mkpair();
    c[4] = kg_conntrack_open(ct, p[4].srv, (struct sockaddr *)&bad, 4);
    assert_true(closed(p[0]));
    assert_false(closed(p[1]));
    assert_false(closed(p[4]));
    /* a connection that completed a request no longer counts */
    kg_conntrack_headers(ct, c[1], false, 5);
    p[5] = mkpair();
    c[5] = kg_conntrack_open(ct, p[5].srv, (struct sockaddr *)&bad, 6);
    assert_false(closed(p[2]));
    assert_false(closed(p[1]));
    kg_conntrack_stats st;
    kg_conntrack_get_stats(ct, &st);
    assert_int_equal(st.shed_per_ip, 1);
    assert_int_equal(st.fresh, 4); /* c2, c3, c4, c5 */
    for (int i = 0; i < 6; i++) {
        kg_conntrack_close(ct, c[i]);
        done(p[i]);
    }
    kg_conntrack_get_stats(ct, &st);
    assert_int_equal(st.open, 0);
    assert_int_equal(st.fresh, 0);
    kg_conntrack_free(ct);
}

static void total_cap_sheds_waiting_connections_first(void **state)
{
    (void)state;
    kg_conntrack_limits l = {.max_conns = 3};
    kg_conntrack *ct = kg_conntrack_new(&l);
    pair p[5];
    kg_conn_rec *c[5];
    for (int i = 0; i < 3; i++) {
        p[i] = mkpair();
        c[i] = kg_conntrack_open(ct, p[i].srv, NULL, i);
        kg_conntrack_headers(ct, c[i], false, i);
    }
    kg_conntrack_idle(c[1], 10); /* c0, c2 busy; c1 idle */
    p[3] = mkpair();
    c[3] = kg_conntrack_open(ct, p[3].srv, NULL, 20);
    assert_true(closed(p[1])); /* the idle one, never a busy one */
    assert_false(closed(p[0]));
    assert_false(closed(p[2]));
    /* at the cap again: a FRESH connection (c3) goes before anything else */
    p[4] = mkpair();
    c[4] = kg_conntrack_open(ct, p[4].srv, NULL, 30);
    assert_true(closed(p[3]));
    assert_false(closed(p[4]));
    kg_conntrack_stats st;
    kg_conntrack_get_stats(ct, &st);
    assert_int_equal(st.shed_capacity, 2);
    assert_int_equal(st.open, 3);
    for (int i = 0; i < 5; i++) {
        kg_conntrack_close(ct, c[i]);
        done(p[i]);
    }
    kg_conntrack_free(ct);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_deadline_is_absolute),
        cmocka_unit_test(body_deadline),
        cmocka_unit_test(per_ip_limit_sheds_the_oldest),
        cmocka_unit_test(total_cap_sheds_waiting_connections_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
