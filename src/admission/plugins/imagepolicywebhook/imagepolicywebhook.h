/* ImagePolicyWebhook (plugin/pkg/admission/imagepolicy): a validating plugin for CREATE and UPDATE of pods (and of
 * their ephemeralcontainers subresource) that asks a backend, over HTTPS, whether the pod's images may run. Off by
 * default, as upstream.
 *
 *   config.c  the AdmissionConfiguration entry `imagePolicy` (kubeConfigFile, allowTTL, denyTTL, retryBackoff,
 *             defaultAllow): upstream's defaults, range checks and texts
 *   review.c  the ImageReview v1alpha1 request (images; annotations whose key contains ".image-policy.k8s.io/";
 *             namespace), the cache key, and the response decoded into a verdict
 *   cache.c   the bounded, expiring cache of verdicts (allowTTL / denyTTL), as upstream's 1024-entry LRU
 *   plugin.c  the plugin: cache, call with retry and backoff, defaultAllow, audit annotations, messages
 *
 * See docs/admission.md (ImagePolicyWebhook). */
#ifndef KG_ADMISSION_PLUGINS_IMAGEPOLICYWEBHOOK_H
#define KG_ADMISSION_PLUGINS_IMAGEPOLICYWEBHOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "admission/attributes.h"
#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"

#define KG_IPW_NS_PER_MS INT64_C(1000000)
#define KG_IPW_NS_PER_S INT64_C(1000000000)
#define KG_IPW_CACHE_SIZE 1024         /* upstream's LRUExpireCache size */
#define KG_IPW_MAX_KEY (64u << 10)     /* larger review specs are reviewed every time, never cached */
#define KG_IPW_MAX_RESPONSE (1u << 20) /* response body cap */
#define KG_IPW_TIMEOUT_MS 30000        /* upstream's backend request timeout */
#define KG_IPW_ATTEMPTS 5              /* upstream's backoff Steps */

/* ---- config.c ---- */

typedef struct kg_ipw_config {
    const char *kubeconfig; /* kubeConfigFile */
    int64_t allow_ttl_ns;   /* 0: allows are not cached */
    int64_t deny_ttl_ns;    /* 0: denials are not cached */
    int64_t backoff_ns;     /* first retry delay; 0: retry at once */
    bool default_allow;
} kg_ipw_config;

/* Decode and normalise the configuration object ({"imagePolicy": {...}}; strings copied into a). NULL config:
 * "no config specified". */
bool kg_ipw_config_parse(kg_arena *a, const kg_json *config, kg_ipw_config *out, kg_error *err);
/* Go's time.Duration.String() of ns into buf ("30m0s", "5m0.001s", "-2s", "1ns"). Returns buf. */
const char *kg_ipw_format_duration(char *buf, size_t cap, int64_t ns);

/* ---- review.c ---- */

/* The backend's answer (ImageReview status). */
typedef struct kg_ipw_verdict {
    bool allowed;
    const char *reason;   /* "" when none */
    const kg_json *audit; /* status.auditAnnotations (object) or NULL */
} kg_ipw_verdict;

/* Whether at is reviewed at all: core pods, subresource "" or "ephemeralcontainers". */
bool kg_ipw_applies(const kg_admission_attributes *at);
/* The ImageReview spec for at's pod (containers then init containers, or the ephemeral containers; the filtered
 * annotations in key order; the namespace). */
kg_json *kg_ipw_review_spec(kg_arena *a, const kg_admission_attributes *at);
/* The whole ImageReview request around spec. */
kg_json *kg_ipw_review_request(kg_arena *a, kg_json *spec);
/* Decode a response body; false with err (a Go-like decode error text) when it is not an ImageReview. */
bool kg_ipw_review_response(kg_arena *a, const char *body, size_t len, kg_ipw_verdict *out, kg_error *err);

/* ---- cache.c ---- */

typedef struct kg_ipw_cache kg_ipw_cache;

kg_ipw_cache *kg_ipw_cache_new(size_t cap);
void kg_ipw_cache_free(kg_ipw_cache *c);
/* The verdict cached for key and not expired at now (copied into a). Thread-safe. */
bool kg_ipw_cache_get(kg_ipw_cache *c, const char *key, int64_t now, kg_arena *a, kg_ipw_verdict *out);
/* Cache v under key until expires (the least recently used entry makes room when full). Thread-safe. */
void kg_ipw_cache_put(kg_ipw_cache *c, const char *key, const kg_ipw_verdict *v, int64_t expires);
size_t kg_ipw_cache_len(kg_ipw_cache *c);

#endif
