/* Registration and recording of the admission webhook metrics (metrics.h). */
#include "admission/webhook/metrics.h"

#include <stdio.h>

#include "admission/webhook/call.h"

/* upstream's {0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 25} with sub-millisecond buckets in front */
static const double k_buckets[] = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25};

static kg_metric *counter(kg_metrics_registry *r, const char *name, const char *help, const char *const *labels)
{
    kg_metric *m = kg_metrics_find(r, name);
    return m ? m : kg_metrics_counter(r, name, help, labels);
}

bool kg_webhook_metrics_register(kg_metrics_registry *r, kg_webhook_metrics *out)
{
    static const char *const duration_labels[] = {"name", "type", "operation", "rejected", NULL};
    static const char *const request_labels[] = {"name", "type", "operation", "code", "rejected", NULL};
    static const char *const rejection_labels[] = {"name", "type", "operation", "error_type", "rejection_code", NULL};
    static const char *const fail_open_labels[] = {"name", "type", NULL};
    out->duration = kg_metrics_find(r, "apiserver_admission_webhook_admission_duration_seconds");
    if (!out->duration)
        out->duration = kg_metrics_histogram(
            r, "apiserver_admission_webhook_admission_duration_seconds",
            "Admission webhook latency histogram in seconds, identified by name and broken out for each operation and "
            "API resource and type (validate or admit).",
            duration_labels, k_buckets, sizeof k_buckets / sizeof k_buckets[0]);
    out->request_total = counter(
        r, "apiserver_admission_webhook_request_total",
        "Admission webhook request total, identified by name and broken out for each admission type (validating or "
        "mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP "
        "status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
        request_labels);
    out->rejection_count = counter(
        r, "apiserver_admission_webhook_rejection_count",
        "Admission webhook rejection count, identified by name and broken out for each admission type (validating or "
        "admit) and operation. Additional labels specify an error type (calling_webhook_error or "
        "apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code "
        "if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is "
        "greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality "
        "bounded.",
        rejection_labels);
    out->fail_open_count = counter(r, "apiserver_admission_webhook_fail_open_count",
                                   "Admission webhook fail open count, identified by name and broken out for each "
                                   "admission type (validating or mutating).",
                                   fail_open_labels);
    out->breaker_skips = counter(r, "kgate_admission_webhook_circuit_breaker_skips_total",
                                 "Calls of failurePolicy Ignore admission webhooks skipped (failing open) because the "
                                 "webhook's circuit breaker was open, by name and admission type.",
                                 fail_open_labels);
    return out->duration && out->request_total && out->rejection_count && out->fail_open_count && out->breaker_skips;
}

/* The code upstream's ErrCallingWebhook carries for c (metrics.h). */
static int call_error_code(const kg_webhook_call *c)
{
    if (c->target_error)
        return c->target_code ? c->target_code : 503;
    return c->http_status ? c->http_status : 503;
}

void kg_webhook_metrics_observe(const kg_webhook_metrics *m, const kg_webhook_call *c,
                                const kg_admission_attributes *at, const kg_status *verdict)
{
    if (!m)
        return;
    const char *type = c->mutating ? "admit" : "validating";
    const char *op = kg_admission_op_name(at->operation);
    if (c->skipped) { /* circuit breaker open: failed open without a call (no request, no duration) */
        kg_metric_inc(m->fail_open_count, (const char *const[]){c->hook->name, type});
        kg_metric_inc(m->breaker_skips, (const char *const[]){c->hook->name, type});
        return;
    }
    int code = 200;
    bool rejected = false;
    const char *error_type = NULL; /* a rejection_count sample when set */
    switch (c->outcome) {
    case KG_WEBHOOK_ALLOWED:
        if (verdict) { /* the patch could not be applied: upstream's apiserver-internal rejection */
            rejected = true, code = 0, error_type = "apiserver_internal_error";
        }
        break;
    case KG_WEBHOOK_DENIED:
        rejected = true, error_type = "no_error";
        code = verdict ? verdict->code : 403;
        break;
    case KG_WEBHOOK_INTERNAL: rejected = true, code = 0, error_type = "apiserver_internal_error"; break;
    case KG_WEBHOOK_CALL_ERROR:
        code = call_error_code(c);
        rejected = !c->hook->fail_open;
        if (rejected)
            error_type = "calling_webhook_error";
        else
            kg_metric_inc(m->fail_open_count, (const char *const[]){c->hook->name, type});
        break;
    }
    if (code > 600)
        code = 600;
    char codes[16];
    snprintf(codes, sizeof codes, "%d", code);
    const char *rej = rejected ? "true" : "false";
    if (error_type)
        kg_metric_inc(m->rejection_count, (const char *const[]){c->hook->name, type, op, error_type, codes});
    kg_metric_inc(m->request_total, (const char *const[]){c->hook->name, type, op, codes, rej});
    kg_metric_observe(m->duration, (const char *const[]){c->hook->name, type, op, rej}, c->seconds);
}
