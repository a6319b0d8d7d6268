/* Client lifecycle (a private copy of the configuration) and the JSON helper. */
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"

static const char *copy(kg_arena *a, const char *s, size_t *len)
{
    if (!s)
        return NULL;
    size_t n = len && *len ? *len : strlen(s);
    if (len)
        *len = n;
    return kg_arena_strndup(a, s, n);
}

kg_client *kg_client_new(const kg_client_config *cfg, kg_error *err)
{
    if (!cfg || !cfg->server || !cfg->server[0])
        return kg_err_set(err, KG_EINVAL, "client: no server URL"), NULL;
    kg_client *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    kg_arena_init(&c->arena, 1024);
    pthread_mutex_init(&c->mu, NULL);
    kg_arena *a = &c->arena;
    kg_client_config *o = &c->cfg;
    *o = *cfg;
    size_t sn = strlen(cfg->server);
    while (sn > 1 && cfg->server[sn - 1] == '/')
        sn--;
    o->server = kg_arena_strndup(a, cfg->server, sn);
    o->ca_pem = copy(a, cfg->ca_pem, &o->ca_len);
    o->cert_pem = copy(a, cfg->cert_pem, &o->cert_len);
    o->key_pem = copy(a, cfg->key_pem, &o->key_len);
    o->ca_file = copy(a, cfg->ca_file, NULL);
    o->cert_file = copy(a, cfg->cert_file, NULL);
    o->key_file = copy(a, cfg->key_file, NULL);
    o->token = copy(a, cfg->token, NULL);
    o->username = copy(a, cfg->username, NULL);
    o->password = copy(a, cfg->password, NULL);
    o->user_agent = copy(a, cfg->user_agent ? cfg->user_agent : "kgate", NULL);
    if (o->timeout_ms <= 0)
        o->timeout_ms = 30000;
    if (!o->max_body)
        o->max_body = 8u << 20;
    return c;
}

void kg_client_free(kg_client *c)
{
    if (!c)
        return;
    kg_client_transport_close(c);
    pthread_mutex_destroy(&c->mu);
    kg_arena_free(&c->arena);
    free(c);
}

const char *kg_client_server(const kg_client *c)
{
    return c->cfg.server;
}

kg_client *kg_client_from_kubeconfig(const char *path, kg_error *err)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_client_config cfg;
    kg_client *c = kg_client_config_from_kubeconfig(&a, path, &cfg, err) ? kg_client_new(&cfg, err) : NULL;
    kg_arena_free(&a);
    return c;
}

const char *kg_client_result_name(kg_client_result r)
{
    switch (r) {
    case KG_CLIENT_OK: return "ok";
    case KG_CLIENT_HTTP_ERROR: return "http_error";
    case KG_CLIENT_CONNECT: return "connect";
    case KG_CLIENT_TIMEOUT: return "timeout";
    case KG_CLIENT_TLS: return "tls";
    case KG_CLIENT_TOO_LARGE: return "too_large";
    case KG_CLIENT_TRANSPORT: return "transport";
    case KG_CLIENT_UNAVAILABLE: return "unavailable";
    }
    return "unknown";
}

kg_json *kg_client_json(kg_client *c, kg_arena *a, const char *method, const char *path, const char *body,
                        kg_client_result *result, kg_error *err)
{
    static const char *const with_body[] = {"Accept: application/json", "Content-Type: application/json"};
    kg_client_request req = {
        .method = method, .path = path, .headers = with_body, .nheaders = body ? 2 : 1, .body = body};
    kg_client_response resp;
    kg_client_result r = kg_client_do(c, a, &req, &resp, err);
    kg_json *doc = NULL;
    if (r == KG_CLIENT_OK) {
        doc = kg_json_parse(a, resp.body, resp.body_len, NULL);
        if (!doc) {
            kg_err_set(err, KG_EIO, "%s %s%s: the server's answer is not JSON", method, c->cfg.server, path);
            r = KG_CLIENT_TRANSPORT;
        }
    } else if (r == KG_CLIENT_HTTP_ERROR) {
        kg_json *st = kg_json_parse(a, resp.body, resp.body_len, NULL);
        const char *msg = st ? kg_json_get_str(st, "message") : NULL;
        if (msg && err) {
            KG_ERROR_DECL(full); /* err->msg is an argument: format into another buffer */
            kg_err_set(&full, err->code, "%.800s: %.200s", err->msg, msg);
            *err = full;
        }
    }
    if (result)
        *result = r;
    return doc;
}
