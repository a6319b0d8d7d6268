/* One webhook call, split so the parallel validating dispatch can run the network part on other threads:
 *
 *   prepare (calling thread, request arena): match already done; a fresh request uid, the AdmissionReview body
 *            (review.c) and the target (client.c: the URL, or the Service resolved to a ready endpoint)
 *   call    (any thread, its own arena):    POST, response cap, timeout, response checks (review.c)
 *   merge   (calling thread):               verdict → Status (status.c), warnings, audit annotations, patch
 *
 * Nothing in a kg_webhook_call points into another thread's arena except the prepared inputs, which are read-only
 * while calls run. */
#ifndef KG_ADMISSION_WEBHOOK_CALL_H
#define KG_ADMISSION_WEBHOOK_CALL_H

#include <stdbool.h>

#include "admission/attributes.h"
#include "admission/match/match.h"
#include "admission/webhook/webhook.h"
#include "meta/status.h"

typedef enum kg_webhook_outcome {
    KG_WEBHOOK_ALLOWED = 0,
    KG_WEBHOOK_DENIED,     /* response.allowed false: status holds response.status (may be NULL) */
    KG_WEBHOOK_CALL_ERROR, /* ErrCallingWebhook: error holds the reason; failurePolicy decides */
    KG_WEBHOOK_INTERNAL,   /* 500 not subject to failurePolicy (undecodable patch): error holds the message */
} kg_webhook_outcome;

typedef struct kg_webhook_call {
    /* inputs (prepare) */
    const kg_webhook_hook *hook;
    kg_match_invocation inv;
    const char *uid;
    const char *body;
    size_t body_len;
    const char *path;         /* appended to the client's server: "?timeout=10s" */
    const char *connect_to;   /* service endpoint (kg_client_request.connect_to) or NULL */
    const char *target_error; /* resolution failed: a call error without a call */
    int target_code;          /* the metrics' code for target_error (400 request not built, 500 no client, else 503) */
    bool mutating;
    int64_t timeout_ms; /* min(timeoutSeconds, the request's remaining deadline) */
    bool expired;       /* the request's deadline had passed: not called (target_error), not counted by the breaker */
    /* outputs (call), in the arena given to kg_webhook_call_run */
    kg_webhook_outcome outcome;
    const char *error;
    const kg_json *status;   /* response.status of a denial */
    const kg_json *patch;    /* decoded JSON Patch (mutating), NULL when none or empty */
    const kg_json *warnings; /* response.warnings (array of strings) or NULL */
    const kg_json *audit;    /* response.auditAnnotations (object) or NULL */
    double seconds;          /* call duration */
    int http_status;         /* the webhook's HTTP status when it answered with an error status, else 0 */
    bool skipped;            /* not called: the webhook's circuit breaker is open (a call error, failing open) */
} kg_webhook_call;

/* ---- review.c ---- */

/* The AdmissionReview request (apiVersion admission.k8s.io/<version>) for a call with uid. */
kg_json *kg_webhook_review_request(kg_arena *a, const kg_admission_attributes *at, const kg_match_invocation *inv,
                                   const char *version, const char *uid);
/* Check a response body against the call (VerifyAdmissionResponse) and fill call's outputs in a. */
void kg_webhook_review_response(kg_arena *a, kg_webhook_call *call, const char *body, size_t len);

/* ---- client.c ---- */

/* A fresh random (version 4) UUID string in a (the kernel's random source). */
const char *kg_webhook_new_uid(kg_arena *a);

/* Fill call's inputs: uid, body, path, target. Runs on the calling thread (reads Services/Endpoints). */
void kg_webhook_call_prepare(kg_webhook_call *call, const kg_webhook_hook *h, const kg_match_invocation *inv,
                             const kg_admission_attributes *at, const kg_admission_services *svc, bool mutating);
/* Do the call and fill call's outputs in a (thread-safe; uses nothing but call, its hook's client and a). */
void kg_webhook_call_run(kg_webhook_call *call, kg_arena *a);

/* ---- status.c ---- */

/* `admission webhook "<name>" denied the request: <message>` (ToStatusErr), copied into a. */
kg_status *kg_webhook_status_denied(kg_arena *a, const char *hook, const kg_json *status);
/* 500 `Internal error occurred: failed calling webhook "<name>": <reason>`. */
kg_status *kg_webhook_status_call_failed(kg_arena *a, const char *hook, const char *reason);
/* 400 `admission webhook "<name>" does not support dry run`. */
kg_status *kg_webhook_status_dry_run(kg_arena *a, const char *hook);

/* ---- dispatch.c ---- */

/* Whether h is to be called for at (ShouldCallHook plus the dry-run rule). Returns NULL and sets *call, or the
 * Status that ends the request (namespace lookup error, dry-run unsupported, SideEffects nil on dry-run with
 * failurePolicy Fail). */
kg_status *kg_webhook_should_call(const kg_webhook_hook *h, const kg_admission_attributes *at,
                                  const kg_admission_services *svc, kg_match_invocation *inv, bool *call);
/* Merge a finished call on the calling thread: warnings and audit annotations into at; the verdict as a Status
 * (NULL: allowed, or failed open — then the failed-open annotation `<prefix>/round_<r>_index_<i>` is added). */
kg_status *kg_webhook_call_verdict(kg_webhook_call *call, kg_admission_attributes *at, const char *failed_open_prefix,
                                   int round, size_t index);
/* The request is exempt from API-defined webhooks (the admission configuration kinds). */
bool kg_webhook_exempt(const kg_admission_attributes *at);
/* Wait for the configuration cache (upstream's readiness); NULL or the 403 `not yet ready to handle request`. */
kg_status *kg_webhook_wait_ready(const kg_admission_attributes *at, const kg_admission_services *svc,
                                 const kg_webhook_source *src);

#endif
