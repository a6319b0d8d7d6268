/* The hook source (webhook.h): the current kg_webhook_set of one configuration resource, recompiled on every change
 * notification and handed to requests without a lock.
 *
 * Readers: announce themselves in `acquiring`, load the current set, take a reference, leave. Writers (the
 * notification thread, serialized by `mu`) publish the new set, wait until no reader is between its load and its
 * reference, then drop the source's reference to the old set; readers still using it keep it alive until they release
 * it. A request never compiles anything. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "admission/webhook/webhook.h"
#include "base/log.h"

struct kg_webhook_source {
    const kg_admission_services *svc;
    const char *resource;
    bool mutating;
    const kg_client_kubeconfig *auth; /* kubeConfigFile users, or NULL */
    uint64_t sub;
    pthread_mutex_t mu; /* writers only */
    _Atomic(kg_webhook_set *) current;
    atomic_int acquiring;
};

const char *kg_webhook_source_resource(const kg_webhook_source *src)
{
    return src->resource;
}

static void publish(kg_webhook_source *src, kg_webhook_set *s)
{
    kg_webhook_set *old = atomic_exchange(&src->current, s);
    while (atomic_load(&src->acquiring) != 0)
        sched_yield();
    kg_webhook_set_release(old);
}

void kg_webhook_source_refresh(kg_webhook_source *src)
{
    pthread_mutex_lock(&src->mu);
    kg_arena a;
    kg_arena_init(&a, 0);
    KG_ERROR_DECL(err);
    kg_json *list = kg_admission_list(src->svc, &a, src->resource, "", 0, &err);
    if (list) {
        /* writers are serialized by mu: current is not released under us */
        kg_webhook_set *s = kg_webhook_set_compile_auth(list, src->mutating, atomic_load(&src->current), src->auth);
        publish(src, s);
    } else {
        KG_WARN("%s: cannot list the webhook configurations, keeping the previous ones: %s", src->resource, err.msg);
    }
    kg_arena_free(&a);
    pthread_mutex_unlock(&src->mu);
}

static void on_change(void *ud, const kg_admission_event *ev)
{
    (void)ev; /* any change (or a resync) recompiles the whole resource: configurations are few and small */
    kg_webhook_source_refresh(ud);
}

kg_webhook_source *kg_webhook_source_new(const kg_admission_services *svc, bool mutating, kg_error *err)
{
    return kg_webhook_source_new_auth(svc, mutating, NULL, err);
}

kg_webhook_source *kg_webhook_source_new_auth(const kg_admission_services *svc, bool mutating,
                                              const kg_client_kubeconfig *auth, kg_error *err)
{
    kg_webhook_source *src = calloc(1, sizeof *src);
    if (!src)
        abort();
    src->svc = svc;
    src->auth = auth;
    src->mutating = mutating;
    src->resource = mutating ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations";
    pthread_mutex_init(&src->mu, NULL);
    atomic_init(&src->current, kg_webhook_set_compile(NULL, mutating, NULL));
    atomic_init(&src->acquiring, 0);
    KG_ERROR_DECL(e);
    src->sub = kg_admission_subscribe(svc, src->resource, on_change, src, &e);
    if (!src->sub)
        KG_WARN("%s: no change notifications (%s); the configurations are read once", src->resource, e.msg);
    kg_webhook_source_refresh(src); /* subscribe, then list: nothing is missed */
    (void)err;
    return src;
}

void kg_webhook_source_free(kg_webhook_source *src)
{
    if (!src)
        return;
    kg_admission_unsubscribe(src->svc, src->sub);
    kg_webhook_set_release(atomic_load(&src->current));
    pthread_mutex_destroy(&src->mu);
    free(src);
}

kg_webhook_set *kg_webhook_source_acquire(kg_webhook_source *src)
{
    atomic_fetch_add(&src->acquiring, 1);
    kg_webhook_set *s = atomic_load(&src->current);
    kg_webhook_set_retain(s);
    atomic_fetch_sub(&src->acquiring, 1);
    return s;
}
