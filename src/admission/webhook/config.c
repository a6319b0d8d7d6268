/* Compiling webhook configurations into a kg_webhook_set (webhook.h): upstream's hook source order (configurations
 * by name, byte-wise; hooks in their list order) and hook UIDs ("<configuration>/<webhook>/<n>"), the match criteria
 * through the shared matcher, and one HTTPS client per hook (caBundle, response cap) so connections are reused
 * across requests for as long as the set lives. */
#include <stdlib.h>
#include <string.h>

#include "admission/webhook/webhook.h"
#include "base/base64.h"
#include "base/hash.h"
#include "base/log.h"

static int by_name(const void *x, const void *y)
{
    const kg_json *a = *(const kg_json *const *)x, *b = *(const kg_json *const *)y;
    const char *na = kg_json_path_str(a, "metadata.name"), *nb = kg_json_path_str(b, "metadata.name");
    return strcmp(na ? na : "", nb ? nb : "");
}

static const char *review_version(const kg_json *vs)
{
    for (uint32_t i = 0; kg_json_is(vs, KG_JSON_ARRAY) && i < vs->len; i++) {
        const kg_json *v = kg_json_at(vs, i);
        if (kg_json_is(v, KG_JSON_STRING) && (!strcmp(v->u.s, "v1") || !strcmp(v->u.s, "v1beta1")))
            return v->u.s;
    }
    return NULL;
}

/* "host:port" of an https URL, port 443 when the URL has none (the key of the kubeConfigFile's users). */
static const char *url_host_port(kg_arena *a, const char *url)
{
    const char *h = strstr(url, "://");
    h = h ? h + 3 : url;
    size_t n = strcspn(h, "/?#");
    const char *close = memchr(h, ']', n), *colon = NULL;
    for (const char *p = close ? close : h; p < h + n; p++)
        if (*p == ':')
            colon = p;
    return colon ? kg_arena_strndup(a, h, n) : kg_arena_sprintf(a, "%.*s:443", (int)n, h);
}

/* clientConfig → url or service, caBundle, credentials (auth), and the client. */
static bool client_config(kg_arena *a, const kg_json *cc, kg_webhook_hook *h, const kg_client_kubeconfig *auth,
                          kg_error *err)
{
    const char *url = kg_json_get_str(cc, "url");
    const kg_json *svc = kg_json_get(cc, "service");
    const char *server;
    if (url) {
        h->url = kg_arena_strdup(a, url);
        server = h->url;
    } else if (kg_json_is(svc, KG_JSON_OBJECT)) {
        h->svc_name = kg_json_get_str(svc, "name");
        h->svc_ns = kg_json_get_str(svc, "namespace");
        h->svc_path = kg_json_get_str(svc, "path");
        const kg_json *port = kg_json_get(svc, "port");
        h->svc_port = kg_json_is(port, KG_JSON_INT) ? (int)port->u.i : 443;
        if (!h->svc_name || !h->svc_ns)
            return kg_err_set(err, KG_EINVAL, "clientConfig.service: name and namespace are required");
        if (!h->svc_path)
            h->svc_path = "";
        server = kg_arena_sprintf(a, "https://%s.%s.svc:%d%s", h->svc_name, h->svc_ns, h->svc_port, h->svc_path);
    } else {
        return kg_err_set(err, KG_EINVAL, "clientConfig: exactly one of url or service is required");
    }
    kg_client_config cfg = {.server = server,
                            .timeout_ms = (int64_t)h->timeout_s * 1000,
                            .max_body = KG_WEBHOOK_MAX_RESPONSE,
                            .user_agent = "kgate-admission"};
    const char *ca = kg_json_get_str(cc, "caBundle");
    if (ca && ca[0]) {
        size_t n = 0;
        char *pem = kg_base64_decode(a, ca, strlen(ca), 0, &n, NULL);
        if (!pem)
            return kg_err_set(err, KG_EINVAL, "clientConfig.caBundle: not base64");
        cfg.ca_pem = pem;
        cfg.ca_len = n;
    }
    if (auth) {
        const char *hp = h->url ? url_host_port(a, h->url)
                                : kg_arena_sprintf(a, "%s.%s.svc:%d", h->svc_name, h->svc_ns, h->svc_port);
        const kg_client_config *cred = kg_client_kubeconfig_auth_for(auth, hp);
        if (cred)
            kg_client_config_set_credentials(&cfg, cred);
    }
    h->client = kg_client_new(&cfg, err);
    return h->client != NULL;
}

static bool compile_hook(kg_arena *a, const char *config, const kg_json *j, bool mutating,
                         const kg_client_kubeconfig *auth, kg_webhook_hook *h, kg_error *err)
{
    memset(h, 0, sizeof *h);
    h->config_name = config;
    h->name = kg_json_get_str(j, "name");
    if (!h->name)
        return kg_err_set(err, KG_EINVAL, "webhook without a name");
    if (!kg_match_criteria_from_webhook(a, j, &h->match, err))
        return false;
    const char *fp = kg_json_get_str(j, "failurePolicy");
    h->fail_open = fp && !strcmp(fp, "Ignore");
    h->side_effects = kg_json_get_str(j, "sideEffects");
    const char *rp = kg_json_get_str(j, "reinvocationPolicy");
    h->reinvoke_if_needed = mutating && rp && !strcmp(rp, "IfNeeded");
    const kg_json *to = kg_json_get(j, "timeoutSeconds");
    h->timeout_s = kg_json_is(to, KG_JSON_INT) && to->u.i >= 1 && to->u.i <= 30 ? (int)to->u.i : 10;
    h->review_version = review_version(kg_json_get(j, "admissionReviewVersions"));
    /* validated at write; a condition that does not compile evaluates to its compile error (failurePolicy) */
    kg_match_conditions_compile(&h->conditions, a, kg_json_get(j, "matchConditions"), false, "matchConditions", NULL);
    /* a hook whose client cannot be built (a caBundle that is not base64) is kept: its calls fail, and its
     * failurePolicy decides, instead of the hook silently disappearing */
    KG_ERROR_DECL(ce);
    if (!client_config(a, kg_json_get(j, "clientConfig"), h, auth, &ce)) {
        h->client_error = kg_arena_strdup(a, ce.msg);
        if (!h->url && !h->svc_name)
            return kg_err_set(err, ce.code, "%s", ce.msg); /* no target at all: nothing to call */
    }
    return true;
}

/* The breaker for an Ignore hook: the previous set's when the same configuration holds the same webhook JSON. */
static kg_webhook_breaker *breaker_for(kg_arena *a, const char *config, const kg_json *j, const kg_webhook_set *prev)
{
    size_t len = 0;
    const char *text = kg_json_to_string(a, j, 0, &len);
    uint64_t key = kg_fnv1a64_byte(kg_fnv1a64_str(config), 0);
    key = kg_fnv1a64_continue(key, text, len);
    for (size_t i = 0; prev && i < prev->n; i++)
        if (prev->hooks[i].breaker && prev->hooks[i].breaker->key == key) {
            kg_webhook_breaker_retain(prev->hooks[i].breaker);
            return prev->hooks[i].breaker;
        }
    return kg_webhook_breaker_new(key);
}

kg_webhook_set *kg_webhook_set_compile(const kg_json *configs, bool mutating, const kg_webhook_set *prev)
{
    return kg_webhook_set_compile_auth(configs, mutating, prev, NULL);
}

kg_webhook_set *kg_webhook_set_compile_auth(const kg_json *configs, bool mutating, const kg_webhook_set *prev,
                                            const kg_client_kubeconfig *auth)
{
    kg_webhook_set *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    atomic_init(&s->refs, 1);
    kg_arena_init(&s->arena, 4096);
    kg_arena *a = &s->arena;
    size_t nconf = kg_json_is(configs, KG_JSON_ARRAY) ? configs->len : 0, total = 0;
    const kg_json **sorted = kg_arena_alloc(a, (nconf + 1) * sizeof *sorted);
    for (size_t i = 0; i < nconf; i++) {
        sorted[i] = kg_json_clone(a, kg_json_at(configs, i)); /* the set owns what its hooks point into */
        const kg_json *hooks = kg_json_get(sorted[i], "webhooks");
        total += kg_json_is(hooks, KG_JSON_ARRAY) ? hooks->len : 0;
    }
    qsort(sorted, nconf, sizeof *sorted, by_name);
    s->hooks = kg_arena_alloc(a, (total + 1) * sizeof *s->hooks);
    for (size_t i = 0; i < nconf; i++) {
        const char *cname = kg_json_path_str(sorted[i], "metadata.name");
        const kg_json *hooks = kg_json_get(sorted[i], "webhooks");
        for (uint32_t k = 0; kg_json_is(hooks, KG_JSON_ARRAY) && k < hooks->len; k++) {
            kg_webhook_hook *h = &s->hooks[s->n];
            KG_ERROR_DECL(e);
            if (!compile_hook(a, cname ? cname : "", kg_json_at(hooks, k), mutating, auth, h, &e)) {
                KG_WARN("%s webhook configuration %s: webhooks[%u] left out: %s", mutating ? "mutating" : "validating",
                        cname ? cname : "", k, e.msg);
                kg_client_free(h->client);
                kg_match_conditions_free(&h->conditions);
                continue;
            }
            size_t same = 0; /* upstream's UID counter: earlier hooks of this name in this configuration */
            for (size_t p = 0; p < s->n; p++)
                same += !strcmp(s->hooks[p].config_name, h->config_name) && !strcmp(s->hooks[p].name, h->name);
            h->uid = kg_arena_sprintf(a, "%s/%s/%zu", h->config_name, h->name, same);
            if (h->fail_open)
                h->breaker = breaker_for(a, h->config_name, kg_json_at(hooks, k), prev);
            h->index = s->n++;
        }
    }
    return s;
}

void kg_webhook_set_retain(kg_webhook_set *s)
{
    atomic_fetch_add(&s->refs, 1);
}

void kg_webhook_set_release(kg_webhook_set *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    for (size_t i = 0; i < s->n; i++) {
        kg_client_free(s->hooks[i].client);
        kg_match_conditions_free(&s->hooks[i].conditions);
        kg_webhook_breaker_release(s->hooks[i].breaker);
    }
    kg_arena_free(&s->arena);
    free(s);
}
