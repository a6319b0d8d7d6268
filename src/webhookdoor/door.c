/* The `kgate webhook` server (see door.h). */
#include "webhookdoor/door.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "admission/chain.h"
#include "admission/registry.h"
#include "base/buf.h"
#include "base/log.h"
#include "base/metrics.h"
#include "base/str.h"
#include "check/cluster.h"
#include "check/inputs.h"
#include "meta/patch.h"
#include "server/http.h"
#include "server/tls.h"
#include "server/tlscreds.h"
#include "server/certreload.h"
#include "webhookdoor/live.h"
#include "webhookdoor/review.h"

#define DEFAULT_CERT_DIR "./kgate-webhook-certs"

/* The plugins on by default in this door (kube-apiserver's other defaults need the rest of a pipeline, or a store of
 * the real cluster, to mean the same thing). */
/* MutatingAdmissionPolicy acts only with its feature gate (--feature-gates=MutatingAdmissionPolicy=true). */
static const char *const door_defaults[] = {"PodSecurity", "MutatingAdmissionPolicy", "ValidatingAdmissionPolicy"};

struct kg_door {
    kg_check_cluster *cluster;
    const kg_admission_chain *chain;
    kg_metrics_registry *metrics;
    kg_tls_material tls;
    kg_tls_creds *creds;
    kg_cert_reloader *reloader;
    kg_door_live *live;
    kg_http_server *http;
    kg_http_server *health; /* --health-port, or NULL */
    atomic_bool ready;
};

static bool in_csv(const char *csv, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = csv; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return true;
        p = e ? e + 1 : NULL;
    }
    return false;
}

void kg_door_admission_options(const kg_admission_options *in, kg_admission_options *out, char *buf, size_t cap)
{
    *out = *in;
    if (in->admission_control || !cap)
        return;
    kg_buf b = KG_BUF_INIT;
    if (in->disable_plugins)
        kg_buf_puts(&b, in->disable_plugins);
    for (size_t i = 0; i < kg_admission_registry_count(); i++) {
        const kg_admission_plugin_info *p = kg_admission_registry_at(i);
        bool keep = false;
        for (size_t k = 0; k < sizeof door_defaults / sizeof door_defaults[0]; k++)
            keep |= !strcmp(p->name, door_defaults[k]);
        if (!p->default_on || keep || in_csv(in->enable_plugins, p->name) || in_csv(in->disable_plugins, p->name))
            continue;
        if (b.len)
            kg_buf_putc(&b, ',');
        kg_buf_puts(&b, p->name);
    }
    snprintf(buf, cap, "%s", kg_buf_cstr(&b));
    kg_buf_free(&b);
    out->disable_plugins = buf[0] ? buf : NULL;
}

/* ---- requests ---- */

static bool is_json(const char *ct)
{
    if (!ct)
        return false;
    while (*ct == ' ')
        ct++;
    size_t n = strlen("application/json");
    return !strncasecmp(ct, "application/json", n) && (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

static void review(kg_door *d, kg_http_request *req, kg_http_response *resp, bool mutate)
{
    if (strcmp(req->method, "POST")) {
        kg_http_add_header(req, resp, "Allow", "POST");
        kg_http_respond_status(req, resp, 405, "MethodNotAllowed", "only POST is allowed on this path");
        return;
    }
    if (!is_json(kg_http_header_get(req, "Content-Type"))) {
        const char *ct = kg_http_header_get(req, "Content-Type");
        kg_http_respond_status(req, resp, 415, "UnsupportedMediaType",
                               kg_arena_sprintf(req->arena, "contentType=%s, expected application/json", ct ? ct : ""));
        return;
    }
    kg_door_review rv;
    KG_ERROR_DECL(err);
    if (!kg_door_review_decode(req->arena, req->body, req->body_len, &rv, &err)) {
        kg_http_respond_status(req, resp, 400, "BadRequest",
                               kg_arena_sprintf(req->arena, "undecodable AdmissionReview: %s", err.msg));
        return;
    }
    kg_admission_attributes *at = &rv.attrs;
    kg_status *st;
    const kg_json *patch = NULL;
    if (mutate) {
        kg_json *orig = at->object ? kg_json_clone(req->arena, at->object) : NULL;
        st = kg_admission_chain_admit(d->chain, at);
        if (!st && orig && at->object)
            patch = kg_patch_json_diff(req->arena, orig, at->object);
    } else {
        st = kg_admission_chain_validate(d->chain, at);
    }
    kg_http_respond_json(req, resp, 200, kg_door_review_response(req->arena, &rv, st, patch));
}

static void handle(void *ud, kg_http_request *req, kg_http_response *resp)
{
    kg_door *d = ud;
    const char *p = req->path;
    if (!strcmp(p, "/validate") || !strcmp(p, "/mutate")) {
        review(d, req, resp, p[1] == 'm');
        return;
    }
    bool health = !strcmp(p, "/healthz") || !strcmp(p, "/livez") || !strcmp(p, "/readyz");
    if (!health && strcmp(p, "/metrics")) {
        kg_http_respond_status(req, resp, 404, "NotFound", "the server could not find the requested resource");
        return;
    }
    if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD")) {
        kg_http_add_header(req, resp, "Allow", "GET, HEAD");
        kg_http_respond_status(req, resp, 405, "MethodNotAllowed", "only GET is allowed on this path");
        return;
    }
    if (health) {
        if (atomic_load(&d->ready) && (!d->live || kg_door_live_synced(d->live)))
            kg_http_respond_bytes(resp, 200, "text/plain; charset=utf-8", "ok", 2);
        else
            kg_http_respond_bytes(resp, 503, "text/plain; charset=utf-8", "not ready", 9);
        return;
    }
    kg_buf b = KG_BUF_INIT;
    kg_metrics_write(d->metrics, &b);
    char *body = kg_arena_strndup(req->arena, kg_buf_cstr(&b), b.len);
    kg_http_respond_bytes(resp, 200, "text/plain; version=0.0.4; charset=utf-8", body, b.len);
    kg_buf_free(&b);
}

/* The plain-HTTP health port: probes and metrics only (kubelet probes present no client certificate, so with
 * --client-ca-file they cannot use the HTTPS port). */
static void handle_health(void *ud, kg_http_request *req, kg_http_response *resp)
{
    const char *p = req->path;
    if (!strcmp(p, "/validate") || !strcmp(p, "/mutate")) {
        kg_http_respond_status(req, resp, 404, "NotFound", "the server could not find the requested resource");
        return;
    }
    handle(ud, req, resp);
}

/* ---- start-up ---- */

/* --policy-dir: namespaces first (policies and PodSecurity read their labels), then everything else in order. */
static bool load_policies(kg_door *d, const char *dir, kg_error *err)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_check_inputs in;
    kg_check_inputs_init(&in, &a);
    bool ok = kg_check_read_path(&in, dir, err);
    for (int pass = 0; ok && pass < 2; pass++)
        for (size_t i = 0; ok && i < in.n; i++) {
            const kg_check_doc *doc = &in.docs[i];
            const char *kind = doc->obj ? kg_json_get_str(doc->obj, "kind") : NULL;
            bool ns = kind && !strcmp(kind, "Namespace");
            if (doc->obj && ns != (pass == 0))
                continue;
            if (!doc->obj) {
                if (pass == 0)
                    ok = kg_err_set(err, KG_EINVAL, "--policy-dir %s: %s", kg_check_doc_where(&a, doc), doc->error);
                continue;
            }
            KG_ERROR_DECL(e);
            if (!kg_check_load(d->cluster, &a, doc->obj, &e))
                ok = kg_err_set(err, KG_EINVAL, "--policy-dir %s: %s", kg_check_doc_where(&a, doc), e.msg);
        }
    if (ok)
        KG_INFO("loaded %zu object(s) from --policy-dir %s", in.n, dir);
    kg_arena_free(&a);
    return ok;
}

static bool mkdir_p(const char *dir)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0700) && errno != EEXIST)
                return false;
            *p = '/';
        }
    return !mkdir(tmp, 0700) || errno == EEXIST;
}

kg_door *kg_door_start(const kg_door_config *cfg, kg_error *err)
{
    kg_door *d = calloc(1, sizeof *d);
    if (!d)
        abort();
    char disable[4096];
    kg_check_config cc = {.feature_gates = cfg->feature_gates};
    kg_door_admission_options(&cfg->admission, &cc.admission, disable, sizeof disable);
    d->cluster = kg_check_cluster_new(&cc, err);
    if (!d->cluster)
        goto fail;
    d->chain = kg_check_cluster_chain(d->cluster);
    d->metrics = kg_check_cluster_metrics(d->cluster);
    if (cfg->policy_dir && !load_policies(d, cfg->policy_dir, err))
        goto fail;
    if (cfg->kubeconfig && !(d->live = kg_door_live_start(d->cluster, cfg->kubeconfig, &cc.admission, err)))
        goto fail;

    const char *cert_dir = cfg->cert_dir ? cfg->cert_dir : DEFAULT_CERT_DIR;
    if ((cfg->tls_cert_file != NULL) != (cfg->tls_key_file != NULL)) {
        kg_err_set(err, KG_EINVAL, "--tls-cert-file and --tls-private-key-file must be given together");
        goto fail;
    }
    if (!cfg->tls_cert_file && !mkdir_p(cert_dir)) {
        kg_err_set(err, KG_EIO, "--cert-dir %s: %s", cert_dir, strerror(errno));
        goto fail;
    }
    kg_tls_config tc = {.data_dir = cert_dir,
                        .cert_file = cfg->tls_cert_file,
                        .key_file = cfg->tls_key_file,
                        .bind_address = cfg->bind_address,
                        .extra_sans = cfg->extra_sans,
                        .nextra_sans = cfg->nextra_sans};
    if (!kg_tls_load_or_generate(&tc, &d->tls, err))
        goto fail;

    char *client_ca = NULL;
    if (cfg->client_ca_file && !(client_ca = kg_read_file(cfg->client_ca_file, &(size_t){0}))) {
        kg_err_set(err, KG_EIO, "--client-ca-file %s: %s", cfg->client_ca_file, strerror(errno));
        goto fail;
    }
    d->creds = kg_tls_creds_new(d->tls.cert_pem, d->tls.key_pem, client_ca, err);
    free(client_ca);
    if (!d->creds) {
        kg_err_prefix(err, "%s", cfg->client_ca_file ? cfg->client_ca_file : "serving certificate");
        goto fail;
    }

    kg_http_config hc;
    kg_http_config_defaults(&hc);
    hc.bind_address = cfg->bind_address ? cfg->bind_address : "0.0.0.0";
    hc.port = cfg->port;
    hc.tls_creds = d->creds;
    hc.max_inflight = cfg->max_inflight < 0 ? 0
                      : cfg->max_inflight   ? (unsigned)cfg->max_inflight
                                            : KG_DOOR_DEFAULT_MAX_INFLIGHT;
    /* Reviews are evaluated on the network threads: the door's plugins read memory only and take microseconds, less
     * than a hand-off to a worker thread costs (bench/webhook: 21,900 vs 12,200 reviews per CPU-second). */
    hc.worker_threads = 0;
    hc.handler = handle;
    hc.handler_ud = d;
    d->http = kg_http_server_start(&hc, err);
    if (!d->http)
        goto fail;
    if (cfg->health_port > 0) {
        kg_http_config h;
        kg_http_config_defaults(&h);
        h.bind_address = hc.bind_address;
        h.port = cfg->health_port;
        h.network_threads = 1;
        h.worker_threads = 0;
        h.handler = handle_health;
        h.handler_ud = d;
        if (!(d->health = kg_http_server_start(&h, err)))
            goto fail;
    }
    /* the files the pair came from: given, or generated in the cert dir */
    char cert_path[4096], key_path[4096];
    snprintf(cert_path, sizeof cert_path, "%s", cfg->tls_cert_file ? cfg->tls_cert_file : "");
    snprintf(key_path, sizeof key_path, "%s", cfg->tls_key_file ? cfg->tls_key_file : "");
    if (!cfg->tls_cert_file) {
        snprintf(cert_path, sizeof cert_path, "%s/apiserver.crt", cert_dir);
        snprintf(key_path, sizeof key_path, "%s/apiserver.key", cert_dir);
    }
    d->reloader = kg_cert_reloader_start(d->creds, cert_path, key_path, cfg->cert_reload_interval_ms);
    atomic_store(&d->ready, true);
    return d;
fail:
    kg_door_stop(d);
    return NULL;
}

int kg_door_port(const kg_door *d)
{
    return kg_http_server_port(d->http);
}

int kg_door_health_port(const kg_door *d)
{
    return d->health ? kg_http_server_port(d->health) : 0;
}

const char *kg_door_ca_pem(const kg_door *d)
{
    return d->tls.ca_pem;
}

void kg_door_stop(kg_door *d)
{
    if (!d)
        return;
    kg_cert_reloader_stop(d->reloader);
    if (d->http)
        kg_http_server_stop(d->http);
    if (d->health)
        kg_http_server_stop(d->health);
    kg_door_live_stop(d->live);
    kg_tls_creds_free(d->creds);
    kg_tls_material_free(&d->tls);
    kg_check_cluster_free(d->cluster);
    free(d);
}
