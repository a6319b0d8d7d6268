/* Leader election on a Lease (controllers/leaderelection.h) against a fake client holding one Lease with a
 * resourceVersion precondition (the compare-and-swap etcd gives): one leader among candidates, hand-over on stop
 * (released Lease), step-down of a leader that cannot renew and take-over once its Lease expired. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "controllers/leaderelection.h"

/* ---- one Lease, stored as JSON text with a resourceVersion ---- */

typedef struct fake {
    pthread_mutex_t mu;
    char *lease; /* NULL = absent */
    long rv;
    int writes;
} fake;

typedef struct cand {
    fake *f;
    bool broken; /* every call fails, as with a partitioned replica */
    int leading; /* on_start - on_stop */
    int starts;
} cand;

static kg_json *f_get(void *ctx, kg_arena *a, const char *res, const char *ns, const char *name, kg_error *err)
{
    cand *c = ctx;
    (void)res;
    (void)ns;
    (void)name;
    if (__atomic_load_n(&c->broken, __ATOMIC_ACQUIRE)) {
        kg_err_set(err, KG_EIO, "partitioned");
        return NULL;
    }
    pthread_mutex_lock(&c->f->mu);
    kg_json *j = NULL;
    if (c->f->lease) {
        j = kg_json_parse(a, c->f->lease, strlen(c->f->lease), err);
        kg_json *md = kg_json_get(j, "metadata");
        kg_json_set(a, md, "resourceVersion", kg_json_new_str(a, kg_arena_sprintf(a, "%ld", c->f->rv)));
    } else {
        kg_err_set(err, KG_ENOTFOUND, "not found");
    }
    pthread_mutex_unlock(&c->f->mu);
    return j;
}

static kg_json *f_write(cand *c, kg_arena *a, const kg_json *obj, bool create, kg_error *err)
{
    if (__atomic_load_n(&c->broken, __ATOMIC_ACQUIRE)) {
        kg_err_set(err, KG_EIO, "partitioned");
        return NULL;
    }
    pthread_mutex_lock(&c->f->mu);
    kg_json *out = NULL;
    const char *rv = kg_json_get_str(kg_json_get(obj, "metadata"), "resourceVersion");
    if (create && c->f->lease) {
        kg_err_set(err, KG_EEXIST, "exists");
    } else if (!create && (!rv || atol(rv) != c->f->rv)) {
        kg_err_set(err, KG_ECONFLICT, "the object has been modified");
    } else {
        free(c->f->lease);
        c->f->lease = kg_json_to_string(a, obj, 0, NULL);
        c->f->lease = strdup(c->f->lease);
        c->f->rv++;
        c->f->writes++;
        out = (kg_json *)obj;
    }
    pthread_mutex_unlock(&c->f->mu);
    return out;
}

static kg_json *f_create(void *ctx, kg_arena *a, const char *res, const char *ns, const kg_json *obj, kg_error *err)
{
    (void)res;
    (void)ns;
    return f_write(ctx, a, obj, true, err);
}

static kg_json *f_update(void *ctx, kg_arena *a, const char *res, const char *ns, const kg_json *obj, kg_error *err)
{
    (void)res;
    (void)ns;
    return f_write(ctx, a, obj, false, err);
}

static void on_start(void *ud)
{
    __atomic_add_fetch(&((cand *)ud)->leading, 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&((cand *)ud)->starts, 1, __ATOMIC_SEQ_CST);
}
static void on_stop(void *ud)
{
    __atomic_sub_fetch(&((cand *)ud)->leading, 1, __ATOMIC_SEQ_CST);
}

static kg_leader_elector *start(cand *c, const char *id)
{
    kg_controller_client cl = {.ctx = c, .get = f_get, .create = f_create, .update = f_update};
    kg_leader_config cfg = {.ns = "kube-system",
                            .name = "kgate-controller-manager",
                            .identity = id,
                            .lease_duration_ms = 600,
                            .renew_deadline_ms = 400,
                            .retry_period_ms = 50,
                            .on_start = on_start,
                            .on_stop = on_stop,
                            .ud = c};
    kg_error err = {0};
    kg_leader_elector *e = kg_leader_elector_start(&cl, &cfg, &err);
    if (!e)
        fail_msg("start: %s", err.msg);
    return e;
}

static int leaders(cand *c, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += __atomic_load_n(&c[i].leading, __ATOMIC_SEQ_CST);
    return k;
}

static bool wait_for(bool (*cond)(void *), void *ud, int ms)
{
    for (int i = 0; i < ms / 10; i++) {
        if (cond(ud))
            return true;
        usleep(10000);
    }
    return cond(ud);
}

static bool leads(void *ud)
{
    return __atomic_load_n(&((cand *)ud)->leading, __ATOMIC_SEQ_CST) == 1;
}
static bool not_leads(void *ud)
{
    return __atomic_load_n(&((cand *)ud)->leading, __ATOMIC_SEQ_CST) == 0;
}

static const char *holder(fake *f, kg_arena *a)
{
    pthread_mutex_lock(&f->mu);
    kg_error err = {0};
    kg_json *j = f->lease ? kg_json_parse(a, f->lease, strlen(f->lease), &err) : NULL;
    pthread_mutex_unlock(&f->mu);
    const char *h = kg_json_get_str(kg_json_get(j, "spec"), "holderIdentity");
    return h ? h : "";
}

static void test_one_leader_and_handover(void **state)
{
    (void)state;
    fake f = {.mu = PTHREAD_MUTEX_INITIALIZER};
    cand c[3] = {{.f = &f}, {.f = &f}, {.f = &f}};
    kg_leader_elector *e[3] = {start(&c[0], "a"), start(&c[1], "b"), start(&c[2], "c")};
    kg_arena a;
    kg_arena_init(&a, 0);
    int who = -1;
    for (int i = 0; i < 100 && who < 0; i++) {
        usleep(10000);
        for (int k = 0; k < 3; k++)
            if (c[k].leading)
                who = k;
    }
    assert_true(who >= 0);
    /* over many renewals exactly one candidate leads, and the Lease names it */
    for (int i = 0; i < 30; i++) {
        usleep(20000);
        assert_int_equal(leaders(c, 3), 1);
    }
    assert_true(c[who].leading == 1);
    char idn[2] = {(char)('a' + who), 0};
    assert_string_equal(holder(&f, &a), idn);
    assert_true(f.writes > 5); /* renewals happen */
    /* the leader stops: it releases the Lease and another takes over well before the lease duration */
    kg_leader_elector_stop(e[who]);
    e[who] = NULL;
    assert_int_equal(c[who].leading, 0);
    int next = -1;
    for (int i = 0; i < 40 && next < 0; i++) {
        usleep(10000);
        for (int k = 0; k < 3; k++)
            if (k != who && c[k].leading)
                next = k;
    }
    assert_true(next >= 0);
    assert_int_equal(leaders(c, 3), 1);
    assert_true(kg_leader_elector_is_leader(e[next]));
    for (int k = 0; k < 3; k++)
        kg_leader_elector_stop(e[k]);
    assert_int_equal(leaders(c, 3), 0);
    free(f.lease);
    kg_arena_free(&a);
}

static void test_partitioned_leader_steps_down(void **state)
{
    (void)state;
    fake f = {.mu = PTHREAD_MUTEX_INITIALIZER};
    cand c[2] = {{.f = &f}, {.f = &f}};
    kg_leader_elector *e0 = start(&c[0], "a");
    assert_true(wait_for(leads, &c[0], 1000));
    kg_leader_elector *e1 = start(&c[1], "b");
    usleep(300000);
    assert_int_equal(c[1].leading, 0); /* renewed in time: the candidate waits */
    /* the leader loses the store: it steps down after the renew deadline (400 ms); the other candidate takes the
     * Lease once it has not changed for the lease duration (600 ms) on its own clock */
    __atomic_store_n(&c[0].broken, true, __ATOMIC_RELEASE);
    assert_true(wait_for(not_leads, &c[0], 1500));
    assert_true(wait_for(leads, &c[1], 2000));
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_string_equal(holder(&f, &a), "b");
    /* back: the old leader sees b renewing and stays a candidate */
    __atomic_store_n(&c[0].broken, false, __ATOMIC_RELEASE);
    usleep(300000);
    assert_int_equal(c[0].leading, 0);
    assert_int_equal(c[1].leading, 1);
    kg_leader_elector_stop(e0);
    kg_leader_elector_stop(e1);
    free(f.lease);
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_leader_and_handover),
        cmocka_unit_test(test_partitioned_leader_steps_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
