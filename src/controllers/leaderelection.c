/* Leader election on a Lease (leaderelection.h). */
#include "controllers/leaderelection.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "meta/object.h"

struct kg_leader_elector {
    kg_controller_client client;
    char *ns, *name, *identity;
    int lease_ms, renew_ms, retry_ms;
    void (*on_start)(void *ud);
    void (*on_stop)(void *ud);
    void *ud;

    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    bool stop;
    int leader; /* atomic */

    /* candidate state (elector thread only) */
    char *observed;     /* the last Lease spec seen (holder + renewTime + transitions), to detect renewals */
    double observed_at; /* local monotonic time it was first seen */
    double last_renew;  /* when this candidate last renewed successfully */
    unsigned seed;
};

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int64_t jint(const kg_json *o, const char *k)
{
    kg_json *v = kg_json_get(o, k);
    return kg_json_is(v, KG_JSON_INT) ? v->u.i : 0;
}

/* spec for holding the lease now; acquire keeps the previous acquireTime/transitions when renewing */
static kg_json *spec_for(kg_leader_elector *e, kg_arena *a, const kg_json *old, bool renewing)
{
    kg_json *spec = kg_json_new_object(a);
    char *now = kg_micro_time_now(a);
    kg_json_set(a, spec, "holderIdentity", kg_json_new_str(a, e->identity));
    kg_json_set(a, spec, "leaseDurationSeconds", kg_json_new_int(a, (e->lease_ms + 999) / 1000));
    const char *acq = renewing ? kg_json_get_str(old, "acquireTime") : NULL;
    kg_json_set(a, spec, "acquireTime", kg_json_new_str(a, acq ? acq : now));
    kg_json_set(a, spec, "renewTime", kg_json_new_str(a, now));
    int64_t transitions = jint(old, "leaseTransitions");
    kg_json_set(a, spec, "leaseTransitions", kg_json_new_int(a, renewing || !old ? transitions : transitions + 1));
    return spec;
}

/* client-go's tryAcquireOrRenew: true when this candidate holds the Lease after the call */
static bool try_acquire_or_renew(kg_leader_elector *e)
{
    kg_arena a;
    kg_arena_init(&a, 4096);
    KG_ERROR_DECL(err);
    bool held = false;
    kg_json *lease = e->client.get(e->client.ctx, &a, "leases", e->ns, e->name, &err);
    if (!lease) {
        if (err.code != KG_ENOTFOUND) {
            KG_V(2, "leader election %s/%s: %s", e->ns, e->name, err.msg);
            goto out;
        }
        kg_json *obj = kg_json_new_object(&a);
        kg_json_set(&a, obj, "apiVersion", kg_json_new_str(&a, "coordination.k8s.io/v1"));
        kg_json_set(&a, obj, "kind", kg_json_new_str(&a, "Lease"));
        kg_json *md = kg_json_new_object(&a);
        kg_json_set(&a, md, "name", kg_json_new_str(&a, e->name));
        kg_json_set(&a, md, "namespace", kg_json_new_str(&a, e->ns));
        kg_json_set(&a, obj, "metadata", md);
        kg_json_set(&a, obj, "spec", spec_for(e, &a, NULL, false));
        held = e->client.create(e->client.ctx, &a, "leases", e->ns, obj, &err) != NULL;
        if (!held)
            KG_V(2, "leader election %s/%s: create: %s", e->ns, e->name, err.msg);
        goto out;
    }
    kg_json *spec = kg_json_get(lease, "spec");
    const char *holder = kg_json_get_str(spec, "holderIdentity");
    bool mine = holder && strcmp(holder, e->identity) == 0;
    /* has the record changed since last seen? (renewals by the holder move renewTime) */
    const char *renew = kg_json_get_str(spec, "renewTime");
    char *rec = kg_arena_sprintf(&a, "%s|%s|%lld", holder ? holder : "", renew ? renew : "",
                                 (long long)jint(spec, "leaseTransitions"));
    double now = mono();
    if (!e->observed || strcmp(e->observed, rec) != 0) {
        free(e->observed);
        e->observed = strdup(rec);
        e->observed_at = now;
    }
    int64_t dur_s = jint(spec, "leaseDurationSeconds");
    double dur = dur_s > 0 ? (double)dur_s : (double)e->lease_ms / 1000.0;
    bool expired = !holder || !holder[0] || e->observed_at + dur <= now;
    if (!mine && !expired)
        goto out; /* someone else leads */
    kg_json_set(&a, lease, "spec", spec_for(e, &a, spec, mine));
    held = e->client.update(e->client.ctx, &a, "leases", e->ns, lease, &err) != NULL;
    if (!held)
        KG_V(2, "leader election %s/%s: update: %s", e->ns, e->name, err.msg);
out:
    if (held)
        e->last_renew = mono();
    kg_arena_free(&a);
    return held;
}

/* ReleaseOnCancel: empty holder, 1 s duration, so a candidate takes over at its next try */
static void release(kg_leader_elector *e)
{
    kg_arena a;
    kg_arena_init(&a, 4096);
    KG_ERROR_DECL(err);
    kg_json *lease = e->client.get(e->client.ctx, &a, "leases", e->ns, e->name, &err);
    kg_json *spec = lease ? kg_json_get(lease, "spec") : NULL;
    const char *holder = kg_json_get_str(spec, "holderIdentity");
    if (holder && strcmp(holder, e->identity) == 0) {
        kg_json *ns = kg_json_new_object(&a);
        kg_json_set(&a, ns, "leaseDurationSeconds", kg_json_new_int(&a, 1));
        kg_json_set(&a, ns, "renewTime", kg_json_new_str(&a, kg_micro_time_now(&a)));
        const char *acq = kg_json_get_str(spec, "acquireTime");
        if (acq)
            kg_json_set(&a, ns, "acquireTime", kg_json_new_str(&a, acq));
        kg_json_set(&a, ns, "leaseTransitions", kg_json_new_int(&a, jint(spec, "leaseTransitions")));
        kg_json_set(&a, lease, "spec", ns);
        if (!e->client.update(e->client.ctx, &a, "leases", e->ns, lease, &err))
            KG_V(2, "leader election %s/%s: release: %s", e->ns, e->name, err.msg);
    }
    kg_arena_free(&a);
}

static void set_leader(kg_leader_elector *e, bool lead)
{
    if (lead == (bool)__atomic_load_n(&e->leader, __ATOMIC_ACQUIRE))
        return;
    __atomic_store_n(&e->leader, lead ? 1 : 0, __ATOMIC_RELEASE);
    KG_INFO("leader election %s/%s: %s %s", e->ns, e->name, e->identity, lead ? "became leader" : "stopped leading");
    if (lead && e->on_start)
        e->on_start(e->ud);
    else if (!lead && e->on_stop)
        e->on_stop(e->ud);
}

/* wait ms (or until stopped); false when stopping */
static bool sleep_ms(kg_leader_elector *e, int ms)
{
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    dl.tv_sec += ms / 1000;
    dl.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&e->mu);
    while (!e->stop && pthread_cond_timedwait(&e->cond, &e->mu, &dl) != ETIMEDOUT)
        ;
    bool go = !e->stop;
    pthread_mutex_unlock(&e->mu);
    return go;
}

static void *elector_main(void *arg)
{
    kg_leader_elector *e = arg;
    pthread_setname_np(pthread_self(), "kg-leader-elect");
    for (;;) {
        bool held = try_acquire_or_renew(e);
        if (held)
            set_leader(e, true);
        else if (__atomic_load_n(&e->leader, __ATOMIC_ACQUIRE) && mono() - e->last_renew > e->renew_ms / 1000.0)
            set_leader(e, false); /* could not renew within the renew deadline */
        else if (!held && __atomic_load_n(&e->leader, __ATOMIC_ACQUIRE) && e->observed &&
                 strncmp(e->observed, e->identity, strlen(e->identity)) != 0)
            set_leader(e, false); /* someone else holds it now */
        int wait = e->retry_ms;
        if (!__atomic_load_n(&e->leader, __ATOMIC_ACQUIRE)) { /* candidates: JitterUntil(retry, 1.2) */
            e->seed = e->seed * 1103515245u + 12345u;
            wait += (int)((double)e->retry_ms * 1.2 * (double)((e->seed >> 8) % 1000) / 1000.0);
        }
        if (!sleep_ms(e, wait))
            break;
    }
    bool was = __atomic_load_n(&e->leader, __ATOMIC_ACQUIRE);
    set_leader(e, false);
    if (was)
        release(e);
    return NULL;
}

kg_leader_elector *kg_leader_elector_start(const kg_controller_client *client, const kg_leader_config *cfg,
                                           kg_error *err)
{
    if (!cfg->ns || !cfg->name || !cfg->identity || !cfg->identity[0]) {
        kg_err_set(err, KG_EINVAL, "leader election needs a lease namespace, name and identity");
        return NULL;
    }
    kg_leader_elector *e = calloc(1, sizeof *e);
    if (!e)
        abort();
    e->client = *client;
    e->ns = strdup(cfg->ns);
    e->name = strdup(cfg->name);
    e->identity = strdup(cfg->identity);
    if (!e->ns || !e->name || !e->identity)
        abort();
    e->lease_ms = cfg->lease_duration_ms > 0 ? cfg->lease_duration_ms : 15000;
    e->renew_ms = cfg->renew_deadline_ms > 0 ? cfg->renew_deadline_ms : 10000;
    e->retry_ms = cfg->retry_period_ms > 0 ? cfg->retry_period_ms : 2000;
    e->on_start = cfg->on_start;
    e->on_stop = cfg->on_stop;
    e->ud = cfg->ud;
    e->seed = (unsigned)(uintptr_t)e ^ (unsigned)time(NULL);
    pthread_mutex_init(&e->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&e->cond, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&e->th, NULL, elector_main, e) != 0) {
        kg_err_set(err, KG_EINTERNAL, "cannot start the leader election thread");
        pthread_mutex_destroy(&e->mu);
        pthread_cond_destroy(&e->cond);
        free(e->ns);
        free(e->name);
        free(e->identity);
        free(e);
        return NULL;
    }
    return e;
}

bool kg_leader_elector_is_leader(kg_leader_elector *e)
{
    return e && __atomic_load_n(&e->leader, __ATOMIC_ACQUIRE);
}

void kg_leader_elector_stop(kg_leader_elector *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->mu);
    e->stop = true;
    pthread_cond_broadcast(&e->cond);
    pthread_mutex_unlock(&e->mu);
    pthread_join(e->th, NULL);
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cond);
    free(e->observed);
    free(e->ns);
    free(e->name);
    free(e->identity);
    free(e);
}
