/* The one file of the webhook plugins that does I/O: request uids from the kernel's random source, resolving a Service
 * reference to a ready endpoint (through the admission services' Service and Endpoints objects) and the HTTPS POST of
 * an AdmissionReview over the shared client (client/client.h: caBundle trust, connection reuse, per-call timeout,
 * response cap).
 *
 * Service references: the connection goes to a ready address of the Service's Endpoints (the port of the endpoint
 * subset whose name matches the service port's name) while the URL, the Host header and TLS verification stay
 * `https://<svc>.<ns>.svc:<port><path>` (libcurl CONNECT_TO), as kube-apiserver's endpoint routing does. */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "admission/webhook/call.h"
#include "base/metrics.h"

static const char *nz(const char *s)
{
    return s ? s : "";
}

const char *kg_webhook_new_uid(kg_arena *a)
{
    unsigned char b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t n = getrandom(b + got, sizeof b - got, 0);
        if (n <= 0) { /* no entropy source: time and address still make the uid unique per call */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)&ts;
            for (size_t i = got; i < sizeof b; i++, x = x * 6364136223846793005ull + 1442695040888963407ull)
                b[i] = (unsigned char)(x >> 56);
            break;
        }
        got += (size_t)n;
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    return kg_arena_sprintf(a, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
                            b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* The Service port entry for port; NULL when there is none. */
static const kg_json *service_port(const kg_json *svc, int port)
{
    const kg_json *ports = kg_json_path(svc, "spec.ports");
    for (uint32_t i = 0; kg_json_is(ports, KG_JSON_ARRAY) && i < ports->len; i++) {
        const kg_json *p = kg_json_get(kg_json_at(ports, i), "port");
        if (kg_json_is(p, KG_JSON_INT) && p->u.i == port)
            return kg_json_at(ports, i);
    }
    return NULL;
}

/* "<svc>.<ns>.svc:<port>:<ip>:<targetPort>", or NULL with *why set. */
static const char *resolve(const kg_webhook_hook *h, const kg_admission_services *svc, kg_arena *a, const char **why)
{
    KG_ERROR_DECL(err);
    const kg_json *s = kg_admission_view_obj(svc, a, "services", h->svc_ns, h->svc_name, &err);
    if (!s) {
        *why = err.code == KG_ENOTFOUND ? kg_arena_sprintf(a, "service \"%s\" not found", h->svc_name)
                                        : kg_arena_strdup(a, err.msg);
        return NULL;
    }
    const kg_json *sp = service_port(s, h->svc_port);
    if (!sp) {
        *why = kg_arena_sprintf(a, "no service port %d found for service \"%s\"", h->svc_port, h->svc_name);
        return NULL;
    }
    const char *port_name = nz(kg_json_get_str(sp, "name"));
    kg_err_clear(&err);
    const kg_json *ep = kg_admission_view_obj(svc, a, "endpoints", h->svc_ns, h->svc_name, &err);
    const kg_json *subsets = ep ? kg_json_get(ep, "subsets") : NULL;
    for (uint32_t i = 0; kg_json_is(subsets, KG_JSON_ARRAY) && i < subsets->len; i++) {
        const kg_json *ss = kg_json_at(subsets, i), *ports = kg_json_get(ss, "ports");
        const kg_json *addrs = kg_json_get(ss, "addresses"); /* ready addresses only */
        if (!kg_json_is(addrs, KG_JSON_ARRAY) || !addrs->len)
            continue;
        for (uint32_t k = 0; kg_json_is(ports, KG_JSON_ARRAY) && k < ports->len; k++) {
            const kg_json *p = kg_json_at(ports, k), *num = kg_json_get(p, "port");
            if (strcmp(nz(kg_json_get_str(p, "name")), port_name) || !kg_json_is(num, KG_JSON_INT))
                continue;
            const char *ip = nz(kg_json_get_str(kg_json_at(addrs, 0), "ip"));
            if (!ip[0])
                continue;
            bool v6 = strchr(ip, ':') != NULL;
            return kg_arena_sprintf(a, "%s.%s.svc:%d:%s%s%s:%lld", h->svc_name, h->svc_ns, h->svc_port, v6 ? "[" : "",
                                    ip, v6 ? "]" : "", (long long)num->u.i);
        }
    }
    *why = kg_arena_sprintf(a, "no endpoints available for service \"%s\"", h->svc_name);
    return NULL;
}

void kg_webhook_call_prepare(kg_webhook_call *c, const kg_webhook_hook *h, const kg_match_invocation *inv,
                             const kg_admission_attributes *at, const kg_admission_services *svc, bool mutating)
{
    kg_arena *a = at->arena;
    memset(c, 0, sizeof *c);
    c->hook = h;
    c->inv = *inv;
    c->mutating = mutating;
    c->uid = kg_webhook_new_uid(a);
    /* the call's timeout: timeoutSeconds bounded by what is left of the request's deadline; ?timeout= carries it
     * rounded up to whole seconds (upstream's r.Timeout); past the deadline there is no call, and upstream's
     * request error (without ?timeout=, as Go's client does with an expired context) */
    c->timeout_ms = (int64_t)h->timeout_s * 1000;
    if (at->deadline_ns > 0) {
        int64_t left_ms = (at->deadline_ns - kg_webhook_breaker_now()) / 1000000;
        if (left_ms <= 0) {
            c->expired = true;
            c->path = "";
            c->target_error = kg_arena_sprintf(a, "failed to call webhook: Post \"%s\": context deadline exceeded",
                                               h->client ? kg_client_server(h->client) : nz(h->url));
            return;
        }
        if (left_ms < c->timeout_ms)
            c->timeout_ms = left_ms;
    }
    c->path = kg_arena_sprintf(a, "?timeout=%llds", (long long)((c->timeout_ms + 999) / 1000));
    if (h->client_error) {
        c->target_error = kg_arena_sprintf(a, "failed to call webhook: %s", h->client_error);
        c->target_code = 500;
        return;
    }
    if (!h->review_version) {
        c->target_error = "could not create admission objects: webhook does not accept known AdmissionReview "
                          "versions (v1, v1beta1)";
        c->target_code = 400;
        return;
    }
    kg_json *review = kg_webhook_review_request(a, at, inv, h->review_version, c->uid);
    c->body = kg_json_to_string(a, review, 0, &c->body_len);
    if (h->svc_name) {
        const char *why = NULL;
        c->connect_to = resolve(h, svc, a, &why);
        if (!c->connect_to)
            c->target_error = kg_arena_sprintf(a, "failed to call webhook: %s", why);
    }
}

/* What happened, after the client's "<METHOD> <url>: " prefix. */
static const char *what(const kg_error *err, const char *url)
{
    size_t skip = strlen("POST ") + strlen(url) + 2;
    return strlen(err->msg) > skip ? err->msg + skip : err->msg;
}

/* The call proper (no breaker). */
static void call_run(kg_webhook_call *c, kg_arena *a)
{
    double t0 = kg_metrics_now();
    if (c->target_error) {
        c->outcome = KG_WEBHOOK_CALL_ERROR;
        c->error = c->target_error;
        return;
    }
    static const char *const headers[] = {"Content-Type: application/json", "Accept: application/json"};
    kg_client_request rq = {.method = "POST",
                            .path = c->path,
                            .headers = headers,
                            .nheaders = 2,
                            .body = c->body,
                            .body_len = c->body_len,
                            .timeout_ms = c->timeout_ms,
                            .connect_to = c->connect_to};
    kg_client_response resp;
    KG_ERROR_DECL(err);
    kg_client_result r = kg_client_do(c->hook->client, a, &rq, &resp, &err);
    const char *url = kg_arena_sprintf(a, "%s%s", kg_client_server(c->hook->client), c->path);
    c->seconds = kg_metrics_now() - t0;
    c->outcome = KG_WEBHOOK_CALL_ERROR;
    switch (r) {
    case KG_CLIENT_OK: kg_webhook_review_response(a, c, resp.body, resp.body_len); return;
    case KG_CLIENT_TIMEOUT:
        c->error = kg_arena_sprintf(a, "failed to call webhook: Post \"%s\": context deadline exceeded", url);
        return;
    case KG_CLIENT_HTTP_ERROR: {
        c->http_status = (int)resp.status;
        kg_json *st = kg_json_parse(a, resp.body, resp.body_len, NULL);
        const char *msg = kg_json_get_str(st, "message");
        if (msg && !strcmp(nz(kg_json_get_str(st, "kind")), "Status"))
            c->error = kg_arena_sprintf(a, "failed to call webhook: %s", msg);
        else
            c->error = kg_arena_sprintf(a, "failed to call webhook: the server responded with status %ld", resp.status);
        return;
    }
    case KG_CLIENT_CONNECT:
        c->error = kg_arena_sprintf(a, "failed to call webhook: Post \"%s\": dial tcp: %s", url, what(&err, url));
        return;
    case KG_CLIENT_TLS:
        c->error = kg_arena_sprintf(a, "failed to call webhook: Post \"%s\": tls: %s", url, what(&err, url));
        return;
    case KG_CLIENT_TOO_LARGE:
        c->error = kg_arena_sprintf(a, "failed to call webhook: Post \"%s\": the response is larger than %u bytes", url,
                                    KG_WEBHOOK_MAX_RESPONSE);
        return;
    default: c->error = kg_arena_sprintf(a, "failed to call webhook: Post \"%s\": %s", url, what(&err, url)); return;
    }
}

void kg_webhook_call_run(kg_webhook_call *c, kg_arena *a)
{
    kg_webhook_breaker *b = c->expired ? NULL : c->hook->breaker; /* failurePolicy Ignore only */
    bool probe = false;
    if (b && !kg_webhook_breaker_allow(b, kg_webhook_breaker_now(), &probe)) {
        c->skipped = true;
        c->outcome = KG_WEBHOOK_CALL_ERROR;
        c->error = kg_arena_sprintf(a, "failed to call webhook: circuit breaker open after %d consecutive failures",
                                    atomic_load(&b->failures));
        return;
    }
    call_run(c, a);
    if (b)
        kg_webhook_breaker_record(b, c->outcome != KG_WEBHOOK_CALL_ERROR, probe, kg_webhook_breaker_now(),
                                  c->hook->name);
}
