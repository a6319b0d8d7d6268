/* ValidatingAdmissionWebhook's dispatch (validating/dispatcher.go): the matching hooks are found on the calling
 * thread, then called in parallel and merged in hook order; every hook must allow.
 *
 * Concurrency rule (attributes.h, docs/pipeline.md): only the calling thread touches attrs, its arena, its warnings,
 * annotations and context slot. Request bodies are built before the fan-out; each call runs with an arena of its own
 * (kg_webhook_call_run) and the results are merged here after every call has finished. At most
 * KG_WEBHOOK_MAX_PARALLEL threads run per request (one per hook up to that cap; they take the next hook when done);
 * the calling thread takes part, so a single matching hook costs no thread at all.
 *
 * Upstream returns the first error in completion order; kgate returns the first in hook order (the same verdict,
 * deterministic text). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "admission/webhook/call.h"
#include "admission/webhook/validating.h"
#include "base/log.h"

typedef struct job {
    kg_webhook_call call;
    kg_arena arena; /* the call's own */
} job;

typedef struct fanout {
    job *jobs;
    size_t n;
    atomic_size_t next;
} fanout;

static void *worker(void *p)
{
    fanout *f = p;
    for (size_t i; (i = atomic_fetch_add(&f->next, 1)) < f->n;)
        kg_webhook_call_run(&f->jobs[i].call, &f->jobs[i].arena);
    return NULL;
}

static void run_all(fanout *f)
{
    size_t nthreads = f->n - 1; /* the calling thread is one worker */
    if (nthreads > KG_WEBHOOK_MAX_PARALLEL - 1)
        nthreads = KG_WEBHOOK_MAX_PARALLEL - 1;
    pthread_t tids[KG_WEBHOOK_MAX_PARALLEL];
    size_t started = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&tids[started], NULL, worker, f) != 0) {
            KG_WARN("validating webhooks: cannot start a thread, calling the rest with fewer");
            break;
        }
    worker(f);
    for (size_t i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
}

kg_status *kg_webhook_validate(const kg_webhook_set *set, kg_admission_attributes *at, const kg_admission_services *svc,
                               const kg_webhook_metrics *metrics)
{
    if (!set->n || kg_webhook_exempt(at))
        return NULL;
    /* 1. which hooks; a matching error (namespace lookup, dry-run) ends the request before any call */
    fanout f = {.jobs = kg_arena_calloc(at->arena, set->n * sizeof(job)), .n = 0};
    atomic_init(&f.next, 0);
    for (size_t i = 0; i < set->n; i++) {
        kg_match_invocation inv;
        bool call = false;
        kg_status *st = kg_webhook_should_call(&set->hooks[i], at, svc, &inv, &call);
        if (st)
            return st;
        if (call)
            kg_webhook_call_prepare(&f.jobs[f.n++].call, &set->hooks[i], &inv, at, svc, false);
    }
    if (!f.n)
        return NULL;
    /* 2. the calls */
    for (size_t i = 0; i < f.n; i++)
        kg_arena_init(&f.jobs[i].arena, 0);
    run_all(&f);
    /* 3. merge in hook order (i: the index among matching hooks, as upstream's failed-open annotation) */
    kg_status *first = NULL;
    for (size_t i = 0; i < f.n; i++) {
        kg_status *st =
            kg_webhook_call_verdict(&f.jobs[i].call, at, "failed-open.validating.webhook.admission.k8s.io", 0, i);
        kg_webhook_metrics_observe(metrics, &f.jobs[i].call, at, st);
        if (st && !first)
            first = st;
        kg_arena_free(&f.jobs[i].arena);
    }
    return first;
}
