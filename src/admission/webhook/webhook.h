/* Admission webhooks (k8s.io/apiserver pkg/admission/plugin/webhook): the compiled form of the
 * Mutating/ValidatingWebhookConfiguration objects and the pieces the two plugins share.
 *
 *   validation.c  write-time validation of the configuration objects (validation.h)
 *   config.c      one configuration set → compiled hooks (kg_webhook_set), sorted by configuration name, then position
 *   source.c      the set kept current from change notifications, handed to requests without a lock
 *   review.c      AdmissionReview v1/v1beta1 request bodies and response checks
 *   client.c      the only file doing I/O: endpoint resolution and the HTTPS call over the shared client
 *   status.c      upstream's error texts (denials, call errors, dry-run)
 *   dispatch.c    one hook: match, dry-run check, call, failurePolicy
 *   mutating.c    MutatingAdmissionWebhook: sequential calls, patches, reinvocation
 *   validating.c  ValidatingAdmissionWebhook: parallel calls, merged in hook order
 *   metrics.c     the apiserver_admission_webhook_* metrics recorded for every call (metrics.h)
 *   breaker.c     the circuit breaker of failurePolicy Ignore webhooks
 *   safety.c      webhook-safety warnings on writing a configuration (deadline sum, self-blocking webhooks)
 *   plugin.c      the two plugin descriptors
 *
 * See docs/webhooks.md. */
#ifndef KG_ADMISSION_WEBHOOK_WEBHOOK_H
#define KG_ADMISSION_WEBHOOK_WEBHOOK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "admission/attributes.h"
#include "admission/match/conditions.h"
#include "admission/match/match.h"
#include "admission/services.h"
#include "base/arena.h"
#include "client/client.h"
#include "json/json.h"

#define KG_WEBHOOK_MAX_RESPONSE (3u << 20) /* response body cap: upstream's request size limit, 3 MiB */
#define KG_WEBHOOK_MAX_PARALLEL 16         /* validating calls in flight per request; more hooks wait their turn */
#define KG_WEBHOOK_MAX_WARNINGS 64         /* warnings taken from one response */

#define KG_WEBHOOK_BREAKER_FAILURES 5                 /* consecutive call failures that open the breaker */
#define KG_WEBHOOK_BREAKER_FIRST_NS 1000000000LL      /* first open window: 1 s */
#define KG_WEBHOOK_BREAKER_MAX_NS (30 * 1000000000LL) /* the window doubles after a failed probe, up to 30 s */

/* The circuit breaker of one failurePolicy Ignore webhook (breaker.c): lock-free, shared between consecutive sets
 * while the webhook is unchanged. */
typedef struct kg_webhook_breaker {
    atomic_int refs;
    uint64_t key;                  /* hash of the configuration name and the webhook's JSON */
    atomic_int failures;           /* consecutive call failures */
    _Atomic int64_t open_until_ns; /* monotonic time the open window ends; 0: closed */
    _Atomic int64_t window_ns;     /* the next open window */
    atomic_bool probing;           /* a half-open probe call is in flight */
} kg_webhook_breaker;

/* One compiled webhook. Immutable once its set is published. */
typedef struct kg_webhook_hook {
    const char *uid;         /* "<configuration>/<webhook>/<n>", n = earlier hooks of that name in the configuration */
    const char *name;        /* webhook name */
    const char *config_name; /* configuration name */
    size_t index;            /* position in the set (audit annotation index) */
    kg_match_criteria match;
    bool fail_open;             /* failurePolicy Ignore */
    const char *side_effects;   /* NULL when unset */
    bool reinvoke_if_needed;    /* reinvocationPolicy IfNeeded (mutating) */
    int timeout_s;              /* timeoutSeconds */
    const char *review_version; /* first of admissionReviewVersions kgate speaks ("v1", "v1beta1"), NULL: none */
    /* where to call: a URL, or a Service (resolved through its Endpoints per call) */
    const char *url;
    const char *svc_name, *svc_ns, *svc_path;
    int svc_port;
    kg_client *client;              /* server = url, or https://<svc>.<ns>.svc:<port><path>; NULL when client_error */
    const char *client_error;       /* why the client could not be built: every call is a call error */
    kg_match_conditions conditions; /* matchConditions, compiled (n == 0: none) */
    kg_webhook_breaker *breaker;    /* failurePolicy Ignore only, else NULL */
} kg_webhook_hook;

/* An immutable, reference-counted snapshot of every hook of one kind. */
typedef struct kg_webhook_set {
    atomic_int refs;
    kg_arena arena;
    kg_webhook_hook *hooks;
    size_t n;
} kg_webhook_set;

/* Compile the configurations (an array of MutatingWebhookConfiguration or ValidatingWebhookConfiguration objects, any
 * order) into a set with one reference. Hooks that cannot be compiled are logged and left out. prev (may be NULL):
 * the set being replaced; its unchanged Ignore webhooks hand their circuit breakers over. */
kg_webhook_set *kg_webhook_set_compile(const kg_json *configs, bool mutating, const kg_webhook_set *prev);
/* Same, with client credentials per webhook host from the kubeConfigFile's users (NULL: none). */
kg_webhook_set *kg_webhook_set_compile_auth(const kg_json *configs, bool mutating, const kg_webhook_set *prev,
                                            const kg_client_kubeconfig *auth);
void kg_webhook_set_retain(kg_webhook_set *s);
/* Drop a reference; the last one frees the set and its clients (no call may be in flight). NULL is fine. */
void kg_webhook_set_release(kg_webhook_set *s);

/* ---- source.c ---- */

typedef struct kg_webhook_source kg_webhook_source;

/* Subscribe to the configuration resource ("mutatingwebhookconfigurations" or "validatingwebhookconfigurations") and
 * compile its objects; recompiled on every change. Services without notifications: compiled once (logged). */
kg_webhook_source *kg_webhook_source_new(const kg_admission_services *svc, bool mutating, kg_error *err);
/* Same, with the kubeConfigFile's users for client credentials (auth must outlive the source; NULL: none). */
kg_webhook_source *kg_webhook_source_new_auth(const kg_admission_services *svc, bool mutating,
                                              const kg_client_kubeconfig *auth, kg_error *err);
void kg_webhook_source_free(kg_webhook_source *src);
/* The current set with a reference for the caller (kg_webhook_set_release when done). Lock-free. */
kg_webhook_set *kg_webhook_source_acquire(kg_webhook_source *src);
/* Recompile now (after subscribe; tests). */
void kg_webhook_source_refresh(kg_webhook_source *src);
/* The resource the source watches. */
const char *kg_webhook_source_resource(const kg_webhook_source *src);

/* ---- breaker.c ---- */

kg_webhook_breaker *kg_webhook_breaker_new(uint64_t key);
void kg_webhook_breaker_retain(kg_webhook_breaker *b);
void kg_webhook_breaker_release(kg_webhook_breaker *b); /* NULL is fine */
/* CLOCK_MONOTONIC in ns. */
int64_t kg_webhook_breaker_now(void);
/* Before a call: true to call (closed, or *probe set: this call is the half-open probe), false to skip it (open). */
bool kg_webhook_breaker_allow(kg_webhook_breaker *b, int64_t now, bool *probe);
/* After a call that was allowed: ok = the webhook answered (allowed or denied). name: for the log. */
void kg_webhook_breaker_record(kg_webhook_breaker *b, bool ok, bool probe, int64_t now, const char *name);

/* ---- safety.c ---- */

/* On a CREATE/UPDATE of a Mutating/ValidatingWebhookConfiguration, add the safety warnings (docs/webhooks.md): the
 * webhooks that can match one request may take longer than the request deadline; a failurePolicy Fail webhook
 * matches the creation of its own pods. Anything else: nothing. Reads the stored configurations through svc. */
void kg_webhook_safety_warn(const kg_admission_attributes *at, const kg_admission_services *svc);

#endif
