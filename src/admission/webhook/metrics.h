/* The admission webhook metrics (k8s.io/apiserver pkg/admission/metrics, ObserveWebhook and friends), with upstream's
 * names, help texts and label names:
 *
 *   apiserver_admission_webhook_admission_duration_seconds{name,type,operation,rejected}        histogram
 *   apiserver_admission_webhook_request_total{name,type,operation,code,rejected}               counter
 *   apiserver_admission_webhook_rejection_count{name,type,operation,error_type,rejection_code} counter
 *   apiserver_admission_webhook_fail_open_count{name,type}                                      counter
 *   kgate_admission_webhook_circuit_breaker_skips_total{name,type}                             counter (kgate's)
 *
 * type is "admit" for MutatingAdmissionWebhook and "validating" for ValidatingAdmissionWebhook (upstream's values).
 * The duration buckets are upstream's (5 ms … 25 s) with sub-millisecond ones in front: a webhook on the same host
 * answers in well under a millisecond, which upstream's buckets cannot tell apart.
 *
 * What a finished call records (as the upstream dispatchers do):
 *   allowed                      request_total code 200, rejected false
 *   denied (response.allowed no) request_total and rejection_count (error_type no_error) with the denial's code
 *   call error, failurePolicy Fail   rejected true, rejection_count error_type calling_webhook_error
 *   call error, failurePolicy Ignore rejected false, fail_open_count
 *   internal error (patch)       rejection_count error_type apiserver_internal_error, code 0
 * A call skipped by an open circuit breaker (breaker.c) records fail_open_count and the skips counter only.
 * A call error's code is the webhook's HTTP status when it answered with one, 400 when the request could not be
 * built, 500 when its client could not be, else 503 (upstream's ServiceUnavailable "error calling webhook"). Codes
 * above 600 are recorded as 600. */
#ifndef KG_ADMISSION_WEBHOOK_METRICS_H
#define KG_ADMISSION_WEBHOOK_METRICS_H

#include <stdbool.h>

#include "admission/attributes.h"
#include "base/metrics.h"
#include "meta/status.h"

typedef struct kg_webhook_call kg_webhook_call;

typedef struct kg_webhook_metrics {
    kg_metric *duration;
    kg_metric *request_total;
    kg_metric *rejection_count;
    kg_metric *fail_open_count;
    kg_metric *breaker_skips; /* kgate_admission_webhook_circuit_breaker_skips_total{name,type} (kgate's own) */
} kg_webhook_metrics;

/* Register (or find, when the other webhook plugin registered them first) the four metrics in r. */
bool kg_webhook_metrics_register(kg_metrics_registry *r, kg_webhook_metrics *out);

/* Record a finished call; verdict is what kg_webhook_call_verdict returned for it. m may be NULL (not recorded). */
void kg_webhook_metrics_observe(const kg_webhook_metrics *m, const kg_webhook_call *call,
                                const kg_admission_attributes *at, const kg_status *verdict);

#endif
