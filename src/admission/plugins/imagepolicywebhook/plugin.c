/* The ImagePolicyWebhook plugin (imagepolicy/admission.go Validate): for a reviewed pod request
 *
 *   1. the verdict cached for the same review spec, if any (allowTTL / denyTTL; errors are never cached);
 *   2. else POST the ImageReview to the kubeconfig's server, retrying as k8s.io/apiserver's generic webhook does:
 *      at most 5 attempts, sleeping retryBackoff × 1.5^n (+ up to 20 % jitter) between them, and only after a
 *      connection reset, a 500/501/502/504/505+ or 429 answer (never after connection refused, TLS failures,
 *      timeouts, other 4xx or 503);
 *   3. a backend that cannot be asked (the last attempt's error, a non-2xx answer, an undecodable body): with
 *      defaultAllow the pod is allowed, the audit annotation imagepolicywebhook.image-policy.k8s.io/failed-open=true
 *      is added and, as upstream still does, the pod gets the annotation alpha.image-policy.k8s.io/failed-open=true;
 *      without it 403 `pods "<name>" is forbidden: <error>`;
 *   4. a verdict: its status.auditAnnotations become imagepolicywebhook.image-policy.k8s.io/<key> audit annotations
 *      (also for cached verdicts and denials), then allow, or 403 `pods "<name>" is forbidden: image policy webhook
 *      backend denied one or more images: <reason>` (`... one or more images rejected by webhook backend` without
 *      a reason).
 *
 * The backend client comes from the kubeconfig (current context) with upstream's 30 s request timeout and a 1 MiB
 * response cap. Sleeps use the services' clock, so tests can fake them. */
#include <stdlib.h>
#include <string.h>

#include "admission/plugin.h"
#include "admission/plugins/imagepolicywebhook/imagepolicywebhook.h"
#include "admission/registry.h"
#include "base/log.h"
#include "client/client.h"

#define AUDIT_PREFIX "imagepolicywebhook.image-policy.k8s.io/"
#define POD_FAILED_OPEN "alpha.image-policy.k8s.io/failed-open"

typedef struct ipw_state {
    kg_arena arena; /* the configuration's strings */
    kg_ipw_config cfg;
    kg_client *client;
    kg_ipw_cache *cache;
} ipw_state;

static void destroy(void *state)
{
    ipw_state *st = state;
    if (!st)
        return;
    kg_client_free(st->client);
    kg_ipw_cache_free(st->cache);
    kg_arena_free(&st->arena);
    free(st);
}

static bool init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    ipw_state *st = calloc(1, sizeof *st);
    if (!st)
        return kg_err_set(err, KG_EINTERNAL, "out of memory");
    kg_arena_init(&st->arena, 0);
    kg_client_config cc;
    bool ok = kg_ipw_config_parse(&st->arena, config, &st->cfg, err);
    if (ok && !st->cfg.kubeconfig[0])
        ok = kg_err_set(err, KG_EINVAL, "invalid configuration: no configuration has been provided");
    if (ok)
        ok = kg_client_config_from_kubeconfig(&st->arena, st->cfg.kubeconfig, &cc, err);
    if (ok) {
        cc.timeout_ms = KG_IPW_TIMEOUT_MS;
        cc.max_body = KG_IPW_MAX_RESPONSE;
        ok = (st->client = kg_client_new(&cc, err)) != NULL;
    }
    if (ok && !(st->cache = kg_ipw_cache_new(KG_IPW_CACHE_SIZE)))
        ok = kg_err_set(err, KG_EINTERNAL, "out of memory");
    if (!ok) {
        destroy(st);
        return false;
    }
    *state = st;
    return true;
}

/* client-go's text for a non-2xx answer (apierrors.NewGenericServerResponse), or the Status body's message. */
static const char *http_error(kg_arena *a, const kg_client_response *r)
{
    kg_json *s = kg_json_parse(a, r->body, r->body_len, NULL);
    const char *msg = kg_json_get_str(s, "message");
    if (msg && !strcmp(kg_json_get_str(s, "kind") ? kg_json_get_str(s, "kind") : "", "Status"))
        return msg;
    switch (r->status) {
    case 400: return "the server rejected our request for an unknown reason";
    case 401: return "Unauthorized";
    case 403: return "the server does not allow access to the requested resource";
    case 404: return "the server could not find the requested resource";
    case 409: return "the server reported a conflict";
    case 429: return "the server has received too many requests and has asked us to try again later";
    case 503: return "the server is currently unable to handle the request";
    case 504:
        return "the server was unable to return a response in the time allotted, but may still be processing the "
               "request";
    default: break;
    }
    if (r->status >= 500)
        return kg_arena_sprintf(a, "an error on the server (\"%.*s\") has prevented the request from succeeding",
                                r->body_len ? (int)(r->body_len > 1024 ? 1024 : r->body_len) : 7,
                                r->body_len ? r->body : "unknown");
    return kg_arena_sprintf(a, "Error contacting webhook: %ld", r->status);
}

/* upstream DefaultShouldRetry for one attempt's outcome */
static bool should_retry(kg_client_result res, long status)
{
    if (res == KG_CLIENT_TRANSPORT)
        return true; /* connection reset and other broken exchanges */
    if (res != KG_CLIENT_HTTP_ERROR)
        return false;
    return status == 429 || status == 504 || (status >= 500 && status != 503);
}

static int64_t jittered(int64_t d)
{
    static _Thread_local unsigned seed;
    if (!seed)
        seed = (unsigned)(uintptr_t)&seed ^ (unsigned)d;
    return d + (int64_t)((double)d * 0.2 * ((double)rand_r(&seed) / RAND_MAX));
}

/* Ask the backend; the verdict, or NULL with *error (the last attempt's). */
static bool ask(ipw_state *st, const kg_admission_services *svc, kg_arena *a, const char *body, size_t len,
                kg_ipw_verdict *v, const char **error)
{
    static const char *const headers[] = {"Content-Type: application/json", "Accept: application/json"};
    const char *url = kg_client_server(st->client);
    int64_t delay = st->cfg.backoff_ns;
    for (int attempt = 1;; attempt++) {
        kg_client_request rq = {
            .method = "POST", .path = "", .headers = headers, .nheaders = 2, .body = body, .body_len = len};
        kg_client_response resp;
        KG_ERROR_DECL(err);
        kg_client_result r = kg_client_do(st->client, a, &rq, &resp, &err);
        if (r == KG_CLIENT_OK) {
            KG_ERROR_DECL(de);
            if (kg_ipw_review_response(a, resp.body, resp.body_len, v, &de))
                return true;
            *error = kg_arena_strdup(a, de.msg);
            return false;
        }
        const char *what = strstr(err.msg, ": ") ? strstr(err.msg, ": ") + 2 : err.msg;
        switch (r) {
        case KG_CLIENT_HTTP_ERROR: *error = http_error(a, &resp); break;
        case KG_CLIENT_CONNECT: *error = kg_arena_sprintf(a, "Post \"%s\": dial tcp: %s", url, what); break;
        case KG_CLIENT_TLS: *error = kg_arena_sprintf(a, "Post \"%s\": tls: %s", url, what); break;
        case KG_CLIENT_TIMEOUT:
            *error = kg_arena_sprintf(a,
                                      "Post \"%s\": context deadline exceeded (Client.Timeout exceeded while "
                                      "awaiting headers)",
                                      url);
            break;
        default: *error = kg_arena_sprintf(a, "Post \"%s\": %s", url, what); break;
        }
        if (attempt >= KG_IPW_ATTEMPTS || !should_retry(r, resp.status))
            return false;
        if (delay > 0)
            kg_admission_sleep_ns(svc, jittered(delay));
        delay = delay + delay / 2;
    }
}

static void add_annotation(const kg_admission_attributes *at, const char *key, const char *value)
{
    KG_ERROR_DECL(e);
    if (!kg_admission_add_annotation(at, key, value, &e))
        KG_WARN("ImagePolicyWebhook: audit annotation %s dropped: %s", key, e.msg);
}

static kg_status *validate(void *state, const kg_admission_attributes *at, const kg_admission_services *svc)
{
    ipw_state *st = state;
    if (!kg_ipw_applies(at))
        return NULL;
    if (!kg_json_is(at->object, KG_JSON_OBJECT))
        return kg_status_bad_request(at->arena, "Resource was marked with kind Pod but was unable to be converted");
    kg_arena *a = at->arena;
    size_t klen = 0;
    kg_json *spec = kg_ipw_review_spec(a, at);
    const char *key = kg_json_to_string(a, spec, 0, &klen);
    bool cacheable = klen <= KG_IPW_MAX_KEY;
    kg_ipw_verdict v;
    if (!cacheable || !kg_ipw_cache_get(st->cache, key, kg_admission_now_ns(svc), a, &v)) {
        size_t len = 0;
        const char *body = kg_json_to_string(a, kg_ipw_review_request(a, spec), 0, &len);
        const char *error = NULL;
        if (!ask(st, svc, a, body, len, &v, &error)) {
            if (!st->cfg.default_allow)
                return kg_admission_forbidden(at, "%s", error);
            KG_WARN("ImagePolicyWebhook: failing open for pod %s/%s: %s", at->ns, kg_admission_forbidden_name(at),
                    error);
            add_annotation(at, AUDIT_PREFIX "failed-open", "true");
            /* the legacy pod annotation upstream still writes, though this is the validating phase */
            kg_json *md = kg_json_get_or_add_object(a, at->object, "metadata");
            kg_json_set(a, kg_json_get_or_add_object(a, md, "annotations"), POD_FAILED_OPEN,
                        kg_json_new_str(a, "true"));
            return NULL;
        }
        int64_t ttl = v.allowed ? st->cfg.allow_ttl_ns : st->cfg.deny_ttl_ns;
        if (cacheable && ttl > 0)
            kg_ipw_cache_put(st->cache, key, &v, kg_admission_now_ns(svc) + ttl);
    }
    for (uint32_t i = 0; v.audit && i < v.audit->len; i++) {
        const kg_json_member *m = &v.audit->u.members[i];
        if (kg_json_is(m->val, KG_JSON_STRING))
            add_annotation(at, kg_arena_sprintf(a, AUDIT_PREFIX "%s", m->key), m->val->u.s);
    }
    if (v.allowed)
        return NULL;
    if (v.reason[0])
        return kg_admission_forbidden(at, "image policy webhook backend denied one or more images: %s", v.reason);
    return kg_admission_forbidden(at, "one or more images rejected by webhook backend");
}

const kg_admission_plugin kg_admission_plugin_image_policy_webhook = {
    .name = "ImagePolicyWebhook",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE,
    .init = init,
    .validate = validate,
    .destroy = destroy,
};
