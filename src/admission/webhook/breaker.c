/* The circuit breaker of failurePolicy Ignore webhooks (webhook.h; beyond upstream, docs/webhooks.md "Circuit
 * breaker"). A webhook that keeps failing costs every request its timeout for nothing, since an Ignore webhook's
 * failure admits the request anyway. After KG_WEBHOOK_BREAKER_FAILURES consecutive call failures the breaker opens:
 * calls are skipped (the verdict is the one of a failed call: allowed, failed-open annotation and metric) for a
 * window of KG_WEBHOOK_BREAKER_FIRST_NS, then one probe call is let through (half-open); its success closes the
 * breaker, its failure opens it again for twice the window (up to KG_WEBHOOK_BREAKER_MAX_NS). Any successful call
 * closes it and resets the window.
 *
 * Lock-free: a few atomics per webhook, touched by the threads calling that webhook only. A breaker outlives the set
 * that made it when the next compilation finds the same webhook unchanged (same configuration name, same webhook
 * JSON): it is shared, reference-counted, between the old and the new set. */
#include <stdlib.h>
#include <time.h>

#include "admission/webhook/webhook.h"
#include "base/log.h"

int64_t kg_webhook_breaker_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

kg_webhook_breaker *kg_webhook_breaker_new(uint64_t key)
{
    kg_webhook_breaker *b = calloc(1, sizeof *b);
    if (!b)
        abort();
    atomic_init(&b->refs, 1);
    b->key = key;
    atomic_init(&b->failures, 0);
    atomic_init(&b->open_until_ns, 0);
    atomic_init(&b->window_ns, KG_WEBHOOK_BREAKER_FIRST_NS);
    atomic_init(&b->probing, false);
    return b;
}

void kg_webhook_breaker_retain(kg_webhook_breaker *b)
{
    atomic_fetch_add(&b->refs, 1);
}

void kg_webhook_breaker_release(kg_webhook_breaker *b)
{
    if (b && atomic_fetch_sub(&b->refs, 1) == 1)
        free(b);
}

bool kg_webhook_breaker_allow(kg_webhook_breaker *b, int64_t now, bool *probe)
{
    *probe = false;
    int64_t until = atomic_load(&b->open_until_ns);
    if (until == 0)
        return true; /* closed */
    if (now < until)
        return false; /* open */
    bool expected = false;
    if (!atomic_compare_exchange_strong(&b->probing, &expected, true))
        return false; /* half-open: another call is the probe */
    *probe = true;
    return true;
}

void kg_webhook_breaker_record(kg_webhook_breaker *b, bool ok, bool probe, int64_t now, const char *name)
{
    if (ok) {
        atomic_store(&b->failures, 0);
        if (atomic_load(&b->open_until_ns) != 0) {
            atomic_store(&b->window_ns, KG_WEBHOOK_BREAKER_FIRST_NS);
            atomic_store(&b->open_until_ns, 0);
            KG_INFO("webhook %s: answering again, circuit breaker closed", name);
        }
        if (probe)
            atomic_store(&b->probing, false);
        return;
    }
    int failures = atomic_fetch_add(&b->failures, 1) + 1;
    if (probe) { /* the probe failed: open again, for twice as long */
        int64_t w = atomic_load(&b->window_ns) * 2;
        if (w > KG_WEBHOOK_BREAKER_MAX_NS)
            w = KG_WEBHOOK_BREAKER_MAX_NS;
        atomic_store(&b->window_ns, w);
        atomic_store(&b->open_until_ns, now + w);
        atomic_store(&b->probing, false);
        return;
    }
    int64_t closed = 0;
    if (failures >= KG_WEBHOOK_BREAKER_FAILURES &&
        atomic_compare_exchange_strong(&b->open_until_ns, &closed, now + atomic_load(&b->window_ns)))
        KG_WARN("webhook %s: %d consecutive failures, circuit breaker open: calls skipped (failing open) for %lld ms",
                name, failures, (long long)(atomic_load(&b->window_ns) / 1000000));
}
