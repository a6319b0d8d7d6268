/* kgate serve: start-up, the request dispatcher and non-resource endpoints (the admission services: clusterstate.c). */
#include "server/apiserver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/defaults.h"
#include "api/openapi.h"
#include "api/resources.h"
#include "api/runtimeconfig.h"
#include "base/log.h"
#include "controllers/controllers.h"
#include "controllers/endpointlease.h"
#include "controllers/leaderelection.h"
#include "server/loopback.h"
#include "admission/registry.h"
#include "server/audit.h"
#include "server/authn_bootstrap.h"
#include "server/cache.h"
#include "server/certreload.h"
#include "server/datadir.h"
#include "registry/bootstrap.h"
#include "registry/featuregates.h"
#include "server/authz.h"
#include "server/kubeconfig.h"
#include "auth/node/authorizer.h"
#include "server/nodefeed.h"
#include "server/rbacfeed.h"
#include "server/crdfeed.h"
#include "server/reviews.h"
#include "server/tls.h"
#include "server/tlsconfig.h"
#include "server/starttrace.h"

void kg_apiserver_options_defaults(kg_apiserver_options *o)
{
    memset(o, 0, sizeof *o);
    o->data_dir = "./kgate-data";
    o->bind_address = "127.0.0.1";
    o->secure_port = 6443;
    o->anonymous_auth = true;
    o->storage_backend = "sqlite";
    o->worker_threads = 64; /* handlers mostly wait on durable commits: more of them make bigger group commits */
    o->watch_bookmark_ms = 60000;
    o->default_not_ready_toleration_seconds = 300;
    o->default_unreachable_toleration_seconds = 300;
    o->event_ttl_ms = 3600000;
}

/* ---- non-resource endpoints ---- */

static void respond_text(kg_http_response *resp, int code, const char *text)
{
    kg_http_respond_bytes(resp, code, "text/plain; charset=utf-8", text, strlen(text));
}

static void version_endpoint(kg_http_request *req, kg_http_response *resp)
{
    static const char body[] = "{\n  \"major\": \"1\",\n  \"minor\": \"33\",\n  \"gitVersion\": \"v1.33.0-kgate\",\n"
                               "  \"gitCommit\": \"kgate\",\n  \"gitTreeState\": \"clean\",\n"
                               "  \"buildDate\": \"2026-11-21T00:00:00Z\",\n  \"goVersion\": \"kgate (C17)\",\n"
                               "  \"compiler\": \"gcc\",\n  \"platform\": \"linux/amd64\"\n}";
    kg_http_respond_bytes(resp, 200, "application/json", body, sizeof body - 1);
}

static void health_endpoint(kg_apiserver *s, kg_http_request *req, kg_http_response *resp, const char *which)
{
    bool sync = strcmp(which, "readyz") || __atomic_load_n(&s->ready, __ATOMIC_ACQUIRE);
    /* the "etcd" check, as upstream part of healthz and readyz, not livez: the store fails while its writes fail
     * (disk full, I/O errors) and, on etcd3, when a linearizable read does not answer within 2 s */
    KG_ERROR_DECL(serr);
    bool store =
        !strcmp(which, "livez") || !s->store || (kg_store_healthy(s->store) && kg_store_check(s->store, &serr));
    if (!store && serr.code)
        KG_V(1, "%s: storage check failed: %s", which, serr.msg);
    bool ok = sync && store;
    const char *verbose = kg_http_query(req, "verbose");
    if (verbose || !store) {
        char *body =
            kg_arena_sprintf(req->arena, "[+]ping ok\n[+]log ok\n[%c]etcd %s\n[%c]informer-sync %s\n%s check %s\n",
                             store ? '+' : '-', store ? "ok" : "failed: reason withheld", sync ? '+' : '-',
                             sync ? "ok" : "failed", which, ok ? "passed" : "failed");
        respond_text(resp, ok ? 200 : 500, body);
        return;
    }
    respond_text(resp, ok ? 200 : 500, ok ? "ok" : "[-]informer-sync failed: not ready yet\n");
}

static void not_found(kg_http_request *req, kg_http_response *resp)
{
    kg_respond_status(
        req, resp,
        kg_status_new(req->arena, 404, KG_REASON_NOT_FOUND, "the server could not find the requested resource"));
}

static void discovery(kg_http_request *req, kg_http_response *resp, const kg_request_info *ri)
{
    kg_arena *a = req->arena;
    const char *p = req->path;
    kg_json *doc = NULL;
    const char *accept = kg_http_header_get(req, "Accept");
    bool is_root = !strcmp(p, "/api") || !strcmp(p, "/api/") || !strcmp(p, "/apis") || !strcmp(p, "/apis/");
    if (is_root && accept && strstr(accept, "as=APIGroupDiscoveryList") && strstr(accept, "v=v2")) {
        /* aggregated discovery (apidiscovery.k8s.io/v2), what kubectl asks for first */
        kg_json *agg = kg_discovery_aggregated(a, p[4] != 's');
        size_t len;
        char *body = kg_json_to_string(a, agg, 0, &len);
        kg_http_respond_bytes(resp, 200, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", body,
                              len);
        return;
    }
    if (!strcmp(p, "/api") || !strcmp(p, "/api/"))
        doc = kg_discovery_api_versions(a);
    else if (!strcmp(p, "/apis") || !strcmp(p, "/apis/"))
        doc = kg_discovery_api_groups(a);
    else if (!strncmp(p, "/api/", 5))
        doc = kg_discovery_resource_list(a, "", p + 5);
    else if (!strncmp(p, "/apis/", 6)) {
        const char *g = p + 6;
        const char *slash = strchr(g, '/');
        if (!slash)
            doc = kg_discovery_api_group(a, g);
        else if (!strchr(slash + 1, '/'))
            doc = kg_discovery_resource_list(a, kg_arena_strndup(a, g, (size_t)(slash - g)), slash + 1);
    }
    if (!doc) {
        not_found(req, resp);
        return;
    }
    kg_http_respond_json(req, resp, 200, doc);
}

/* An Accept header naming protobuf and neither JSON nor a wildcard. */
static bool openapi_protobuf_only(const kg_http_request *req)
{
    const char *acc = kg_http_header_get(req, "Accept");
    return acc && strstr(acc, "protobuf") && !strstr(acc, "json") && !strstr(acc, "*/*");
}

static void handle(void *ud, kg_http_request *req, kg_http_response *resp)
{
    kg_apiserver *s = ud;
    const kg_request_info *ri = req->info;
    double t0 = kg_metrics_now();
    const kg_resource *r = NULL;
    if (s->satoken && kg_satoken_handle(s->satoken, req, resp)) {
        /* answered: TokenRequest, TokenReview or an OIDC discovery document */
    } else if (ri->is_resource_request && kg_reviews_handle(s, req, resp)) {
        /* answered: an access review */
    } else if (ri->is_resource_request) {
        r = kg_resource_find(ri->api_group, ri->api_version, ri->resource);
        if (!r)
            not_found(req, resp);
        else if (!__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE))
            kg_respond_status(req, resp, kg_status_service_unavailable(req->arena, "the server is starting up"));
        else
            kg_rest_handle(s, req, resp, r);
    } else {
        const char *p = req->path;
        if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD")) {
            kg_respond_status(req, resp,
                              kg_status_new(req->arena, 405, KG_REASON_METHOD_NOT_ALLOWED,
                                            "the server does not allow this method on the requested "
                                            "resource"));
        } else if (!strcmp(p, "/version") || !strcmp(p, "/version/")) {
            version_endpoint(req, resp);
        } else if (!strcmp(p, "/healthz") || !strcmp(p, "/livez") || !strcmp(p, "/readyz")) {
            health_endpoint(s, req, resp, p + 1);
        } else if (!strcmp(p, "/metrics")) {
            kg_buf b = KG_BUF_INIT;
            kg_metrics_write(s->metrics_reg, &b);
            char *body = kg_arena_strndup(req->arena, kg_buf_cstr(&b), b.len);
            kg_http_respond_bytes(resp, 200, "text/plain; version=0.0.4; charset=utf-8", body, b.len);
            kg_buf_free(&b);
        } else if (!strncmp(p, "/openapi/", 9) && openapi_protobuf_only(req)) {
            /* kgate serves OpenAPI as JSON only: a client asking for protobuf alone (kubectl's first request for
             * /openapi/v2) gets the 406 that makes it fall back to JSON */
            static const char *const types[] = {"application/json"};
            kg_respond_status(req, resp, kg_status_not_acceptable(req->arena, types, 1));
        } else if (!strncmp(p, "/openapi/", 9)) {
            kg_json *doc = kg_openapi_document(req->arena, p);
            if (doc)
                kg_http_respond_json(req, resp, 200, doc);
            else
                not_found(req, resp);
        } else if (!strcmp(p, "/api") || !strncmp(p, "/api/", 5) || !strcmp(p, "/apis") || !strncmp(p, "/apis/", 6)) {
            discovery(req, resp, ri);
        } else if (!strcmp(p, "/")) {
            static const char root[] = "{\"paths\":[\"/api\",\"/api/v1\",\"/apis\",\"/healthz\",\"/livez\","
                                       "\"/metrics\",\"/openapi/v2\",\"/openapi/v3\",\"/readyz\",\"/version\"]}";
            kg_http_respond_bytes(resp, 200, "application/json", root, sizeof root - 1);
        } else {
            not_found(req, resp);
        }
    }
    /* request metrics (watch streams are counted when they start) */
    if (s->metrics.request_total && ri->is_resource_request) {
        const char *verb = ri->verb;
        static const char *const upper[][2] = {
            {"get", "GET"},    {"list", "LIST"},   {"watch", "WATCH"},   {"create", "POST"},
            {"update", "PUT"}, {"patch", "PATCH"}, {"delete", "DELETE"}, {"deletecollection", "DELETE"}};
        const char *v = verb;
        for (size_t i = 0; i < 8; i++)
            if (!strcmp(verb, upper[i][0]))
                v = upper[i][1];
        const char *scope = ri->name[0] ? "resource" : ri->namespace_[0] ? "namespace" : "cluster";
        const char *dry = kg_http_query(req, "dryRun") ? "All" : "";
        char code[8];
        snprintf(code, sizeof code, "%d", resp->status ? resp->status : 200);
        const char *labels[] = {v,     dry,         ri->api_group, ri->api_version, ri->resource, ri->subresource,
                                scope, "apiserver", code};
        kg_metric_inc(s->metrics.request_total, labels);
        kg_metric_observe(s->metrics.request_duration, labels, kg_metrics_now() - t0);
    }
}

/* leader election callbacks (elector thread) */
static void controllers_on(void *ud)
{
    kg_apiserver *s = ud;
    kg_controller_client cc = kg_apiserver_loopback_client(s);
    kg_controllers_config ccfg = {.root_ca_pem = s->ca_pem};
    KG_ERROR_DECL(err);
    s->controllers = kg_controllers_start(&cc, &ccfg, &err);
    if (!s->controllers)
        KG_ERROR("controllers: %s", err.msg);
}

static void controllers_off(void *ud)
{
    kg_apiserver *s = ud;
    kg_controllers_stop(s->controllers);
    s->controllers = NULL;
}

kg_apiserver *kg_apiserver_start(const kg_apiserver_options *o, kg_error *err)
{
    kg_apiserver *s = calloc(1, sizeof *s);
    s->opts = *o;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    s->started_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    kg_start_trace("enter kg_apiserver_start");
    s->lock_fd = kg_datadir_acquire(o->data_dir, err); /* before any file is written: one owner per data dir */
    if (s->lock_fd < 0) {
        free(s);
        return NULL;
    }
    s->metrics_reg = kg_metrics_registry_new();
    kg_metrics_apiserver_register(s->metrics_reg, &s->metrics);

    if (strcmp(o->storage_backend, "sqlite") && strcmp(o->storage_backend, "etcd3")) {
        kg_err_set(err, KG_EINVAL, "--storage-backend: unsupported backend \"%s\" (supported: sqlite, etcd3)",
                   o->storage_backend);
        goto fail;
    }
    /* --event-ttl: Events (core and events.k8s.io share one store, api/versions.h) expire through an etcd lease */
    const kg_resource *ev1 = kg_resource_find("", "v1", "events");
    const char *ttl_prefixes[3] = {ev1 ? ev1->storage_prefix : NULL, NULL, NULL};
    if (o->encryption_provider_config && o->encryption_provider_config[0] &&
        !(s->transformer = kg_transformer_load(o->encryption_provider_config, err)))
        goto fail;
    kg_store_options so = {.transformer = s->transformer,
                           .history_revisions = o->history_revisions,
                           .compact_interval_ms = o->compaction_interval_ms,
                           .max_value_bytes = o->max_object_bytes,
                           .etcd = {.servers = o->etcd_servers,
                                    .prefix = o->etcd_prefix,
                                    .ca_file = o->etcd_cafile,
                                    .cert_file = o->etcd_certfile,
                                    .key_file = o->etcd_keyfile,
                                    .compaction_interval_ms = o->etcd_compaction_interval_ms,
                                    .ttl_prefixes = ttl_prefixes,
                                    .ttl_seconds = (o->event_ttl_ms + 999) / 1000}};
    s->store = kg_store_open(o->storage_backend, o->data_dir, &so, err);
    if (!s->store)
        goto fail;
    kg_start_trace("store open");

    s->gates = kg_feature_gates_parse(o->feature_gates, err);
    if (!s->gates) {
        kg_err_prefix(err, "invalid argument \"%s\" for \"--feature-gates\" flag", o->feature_gates);
        goto fail;
    }
    if (kg_feature_gates_unused(s->gates)[0])
        KG_WARN("feature gates not consulted by kgate (accepted, no effect): %s", kg_feature_gates_unused(s->gates));
    /* optional APIs: MutatingAdmissionPolicy needs its gate and its group/version (before the caches, which are
     * made per served resource) */
    kg_runtime_config rc;
    if (!kg_runtime_config_parse(o->runtime_config, &rc, err))
        goto fail;
    const char *map_version = NULL;
    if (kg_feature_enabled(s->gates, "MutatingAdmissionPolicy")) {
        map_version = rc.admissionregistration_v1beta1    ? "v1beta1"
                      : rc.admissionregistration_v1alpha1 ? "v1alpha1"
                                                          : NULL;
        if (rc.admissionregistration_v1beta1 && rc.admissionregistration_v1alpha1)
            KG_WARN("--runtime-config: MutatingAdmissionPolicy is served in admissionregistration.k8s.io/v1beta1 "
                    "only (one version per resource)");
    }
    kg_resources_serve_mutating_policies(map_version);
    s->caches = kg_cache_set_new(s->store);
    /* namespaces are read by NamespaceLifecycle on every write: cache them from the start, serve once synced */
    kg_cache_require(s->caches, kg_resource_find("", "v1", "namespaces"));
    kg_apiserver_services_init(s);
    kg_start_trace("caches, services");
    s->plugin_opts = (kg_admission_plugin_options){
        .default_not_ready_toleration_seconds = o->default_not_ready_toleration_seconds,
        .default_unreachable_toleration_seconds = o->default_unreachable_toleration_seconds};
    s->svc.options = &s->plugin_opts;
    /* one authorizer for the HTTP filter and for admission (plugins, CEL policies): system:masters first, then the
     * --authorization-mode members in order (upstream's union) */
    kg_authz_mode modes[KG_AUTHZ_MAX_MODES];
    size_t nmodes = 0;
    if (!kg_authz_parse_modes(o->authorization_mode ? o->authorization_mode : KG_AUTHZ_DEFAULT_MODES, modes, &nmodes,
                              err))
        goto fail;
    static const char *const masters[] = {KG_GROUP_MASTERS};
    kg_authorizer *members[1 + KG_AUTHZ_MAX_MODES];
    size_t nm = 0;
    members[nm++] = kg_authz_new_privileged_groups(masters, 1);
    for (size_t i = 0; i < nmodes; i++) {
        if (modes[i] == KG_AUTHZ_MODE_ALWAYS_ALLOW) {
            members[nm++] = kg_authz_new_always_allow();
            s->authz_always_allow = true;
            if (s->opts.anonymous_auth) {
                KG_WARN("AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to "
                        "false. You should use a different authorizer");
                s->opts.anonymous_auth = false;
            }
        } else if (modes[i] == KG_AUTHZ_MODE_ALWAYS_DENY) {
            members[nm++] = kg_authz_new_always_deny();
        } else if (modes[i] == KG_AUTHZ_MODE_NODE) {
            /* the graph is fed from the pod/PV caches once they run (kg_node_feed_start below) */
            s->node_graph = kg_node_graph_new();
            kg_node_authorizer_options no = {.authorize_with_selectors =
                                                 kg_feature_enabled(s->gates, "AuthorizeNodeWithSelectors")};
            members[nm++] = kg_node_authorizer_new(s->node_graph, &no);
        } else {
            s->rbac = kg_rbac_new();
            members[nm++] = kg_rbac_authorizer(s->rbac);
        }
    }
    s->authz = kg_authz_new_union(members, nm);
    s->svc.authorizer = s->authz;
    s->chain = kg_admission_chain_new(&o->admission, &s->svc, &s->metrics, err);
    if (!s->chain)
        goto fail;
    kg_start_trace("admission chain");
    s->pipeline.store = s->store;
    s->pipeline.chain = s->chain;
    s->pipeline.services = &s->svc;
    s->pipeline.authz = (kg_write_authz){s->authz, s->rbac};
    s->pipeline.garbage_collection = true; /* the controllers include the garbage collector */

    if (!kg_registry_bootstrap(s->store, err) || !kg_registry_rbac_bootstrap(s->store, err))
        goto fail;
    kg_start_trace("bootstrap objects");
    /* The feeds register the caches they need (after the bootstrap writes, so a first start lists the bootstrap
     * policy): every required cache lists from here on, side by side, while the rest starts up; one wait for all of
     * them below. The Node authorizer and RBAC decide from these caches, CRDs are served from theirs. */
    if (s->node_graph)
        s->node_feed = kg_node_feed_start(s->caches, s->node_graph);
    s->crd_feed = kg_crd_feed_start(s->caches, s->store);
    if (s->rbac)
        s->rbac_feed = kg_rbac_feed_start(s->caches, s->rbac);

    kg_authn_config ac = {
        .token_auth_file = o->token_auth_file, .data_dir = o->data_dir, .anonymous_auth = s->opts.anonymous_auth};
    ac.client_ca_file = o->client_ca_file;
    if (o->enable_bootstrap_token_auth) { /* token authenticator 0: bootstrap tokens from the Secret cache */
        kg_cache_require(s->caches, kg_resource_find("", "v1", "secrets"));
        s->bootstrap_authn = calloc(1, sizeof(*s->bootstrap_authn));
        *s->bootstrap_authn = (kg_bootstrap_authn){.lookup = kg_bootstrap_cache_lookup, .ud = s->caches};
        ac.token_authenticators[0] = (kg_token_authenticator){kg_bootstrap_token_authenticate, s->bootstrap_authn};
        if (ac.ntoken_authenticators < 1)
            ac.ntoken_authenticators = 1;
    }
    s->satoken = kg_satoken_start(s, &o->satoken, err);
    if (!s->satoken)
        goto fail;
    kg_start_trace("service-account tokens");
    ac.token_authenticators[1] = kg_satoken_authenticator(s->satoken); /* after the bootstrap tokens (index 0) */
    if (ac.ntoken_authenticators < 2)
        ac.ntoken_authenticators = 2;
    s->authn = kg_authn_new(&ac, err);
    if (!s->authn)
        goto fail;
    kg_start_trace("authn");
    if (o->audit_policy_file && o->audit_log_path) { /* both, as upstream: no log backend, no audit */
        kg_audit_log_config lc = {.path = o->audit_log_path,
                                  .max_size_mb = o->audit_log_maxsize_mb,
                                  .max_backups = o->audit_log_maxbackup,
                                  .max_age_days = o->audit_log_maxage_days};
        s->audit = kg_audit_new(o->audit_policy_file, &lc, err);
        if (!s->audit)
            goto fail;
    }

    kg_tls_material tls = {0};
    if (!o->insecure) {
        kg_tls_config tc = {.data_dir = o->data_dir,
                            .cert_file = o->tls_cert_file,
                            .key_file = o->tls_key_file,
                            .bind_address = o->bind_address};
        if (!kg_tls_load_or_generate(&tc, &tls, err))
            goto fail;
    }
    kg_start_trace("tls material");
    s->ca_pem = strdup(tls.ca_pem ? tls.ca_pem : "");
    s->satoken->tokens = kg_satokens_controller_start(s->satoken, s->ca_pem); /* legacy token Secrets */
    s->pump = kg_watch_pump_start(2, o->watch_bookmark_ms);
    kg_start_trace("satokens controller, pump");
    kg_controller_client cc = kg_apiserver_loopback_client(s);
    if (!strcmp(o->storage_backend, "etcd3")) {
        /* several replicas may share the store: the controllers run on the one holding the Lease
         * kube-system/kgate-controller-manager (kube-controller-manager's election and durations) */
        char host[128] = "kgate";
        gethostname(host, sizeof host - 1);
        unsigned char rnd[8];
        FILE *ur = fopen("/dev/urandom", "rb");
        if (!ur || fread(rnd, 1, sizeof rnd, ur) != sizeof rnd)
            memset(rnd, 0, sizeof rnd);
        if (ur)
            fclose(ur);
        char id[200];
        snprintf(id, sizeof id, "%s_%02x%02x%02x%02x-%02x%02x-%02x%02x", host, rnd[0], rnd[1], rnd[2], rnd[3], rnd[4],
                 rnd[5], rnd[6], rnd[7]);
        kg_leader_config lc = {.ns = "kube-system",
                               .name = "kgate-controller-manager",
                               .identity = id,
                               .lease_duration_ms = o->leader_elect_lease_ms,
                               .renew_deadline_ms = o->leader_elect_renew_ms,
                               .retry_period_ms = o->leader_elect_retry_ms,
                               .on_start = controllers_on,
                               .on_stop = controllers_off,
                               .ud = s};
        s->elector = kg_leader_elector_start(&cc, &lc, err);
        if (!s->elector) {
            kg_tls_material_free(&tls);
            goto fail;
        }
    } else {
        kg_controllers_config ccfg = {.root_ca_pem = s->ca_pem};
        s->controllers = kg_controllers_start(&cc, &ccfg, err);
        if (!s->controllers) {
            kg_tls_material_free(&tls);
            goto fail;
        }
    }

    kg_start_trace("controllers");
    /* serve only once every required cache is synced (one wait, no polling) and the feeds have passed their contents
     * on: the Node authorizer's graph, the served custom resources, the RBAC policy (bootstrap and aggregation) */
    const kg_resource *late = NULL;
    if (!kg_cache_wait_required(s->caches, 30000, &late)) {
        kg_err_set(err, KG_ETIMEOUT, "the %s cache did not sync", late ? late->plural : "");
        kg_tls_material_free(&tls);
        goto fail;
    }
    kg_start_trace("caches synced");
    if ((s->node_feed && !kg_node_feed_wait(s->node_feed, 30000, err)) || !kg_crd_feed_wait(s->crd_feed, 30000, err) ||
        (s->rbac_feed && !kg_rbac_feed_wait(s->rbac_feed, 30000, err))) {
        kg_tls_material_free(&tls);
        goto fail;
    }
    kg_start_trace("feeds");
    kg_http_config hc;
    kg_http_config_defaults(&hc);
    char *prio = kg_tls_priorities(o->tls_min_version, o->tls_cipher_suites, err);
    if (!prio) {
        kg_tls_material_free(&tls);
        goto fail;
    }
    hc.tls_priorities = prio;
    hc.bind_address = o->bind_address;
    hc.port = o->secure_port;
    if (!o->insecure && !(s->tls_creds = kg_tls_creds_new(tls.cert_pem, tls.key_pem, NULL, err))) {
        free(prio);
        kg_tls_material_free(&tls);
        goto fail;
    }
    hc.tls_creds = s->tls_creds; /* reloadable: see below */
    if (o->worker_threads)
        hc.worker_threads = o->worker_threads;
    hc.authn = s->authn;
    hc.audit = s->audit;
    hc.client_ca_pem = o->insecure ? NULL : kg_authn_client_ca_pem(s->authn);
    hc.authz = s->authz;
    hc.handler = handle;
    hc.handler_ud = s;
    s->http = kg_http_server_start(&hc, err);
    free(prio);
    if (!s->http) {
        kg_tls_material_free(&tls);
        goto fail;
    }
    kg_start_trace("http server");
    if (!o->insecure) {
        /* new connections get the pair on disk: --tls-cert-file/--tls-private-key-file or the generated one */
        char crt[4096], key[4096];
        snprintf(crt, sizeof crt, "%s/apiserver.crt", o->data_dir);
        snprintf(key, sizeof key, "%s/apiserver.key", o->data_dir);
        bool given = o->tls_cert_file && o->tls_cert_file[0];
        s->cert_reloader =
            kg_cert_reloader_start(s->tls_creds, given ? o->tls_cert_file : crt, given ? o->tls_key_file : key, 0);
    }
    kg_start_trace("cert reloader");
    /* admin.kubeconfig for kubectl */
    char *url = kg_kubeconfig_server_url(o->bind_address, kg_http_server_port(s->http), !o->insecure);
    kg_kubeconfig kc = {
        .server = url, .ca_pem = o->insecure ? NULL : tls.ca_pem, .token = kg_authn_admin_token(s->authn)};
    char path[4096];
    snprintf(path, sizeof path, "%s/admin.kubeconfig", o->data_dir);
    bool wrote = kg_kubeconfig_write(path, &kc, err);
    free(url);
    kg_tls_material_free(&tls);
    if (!wrote && access(path, F_OK) == 0) {
        /* e.g. a full disk: serve anyway, the old kubeconfig stays valid but for a changed port or CA */
        KG_WARN("could not update %s (it may name an old address): %s", path, err->msg);
        wrote = true;
    }
    if (!wrote)
        goto fail;
    kg_start_trace("admin.kubeconfig");
    if (!strcmp(o->storage_backend, "etcd3") &&
        (!o->endpoint_reconciler_type || strcmp(o->endpoint_reconciler_type, "none"))) {
        const char *adv = o->advertise_address;
        if (!adv || !adv[0])
            adv = strcmp(o->bind_address, "0.0.0.0") && strcmp(o->bind_address, "::") ? o->bind_address : "127.0.0.1";
        kg_endpoint_lease_config ec = {
            .advertise_address = adv, .port = kg_http_server_port(s->http), .lease_duration_ms = o->endpoint_lease_ms};
        s->endpoint_lease = kg_endpoint_lease_start(&cc, &ec, err);
        if (!s->endpoint_lease)
            goto fail;
    }
    kg_start_trace("ready");
    __atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
    return s;
fail:
    kg_apiserver_stop(s);
    return NULL;
}

int kg_apiserver_port(const kg_apiserver *s)
{
    return kg_http_server_port(s->http);
}

const char *kg_apiserver_admin_token(const kg_apiserver *s)
{
    return kg_authn_admin_token(s->authn);
}

void kg_apiserver_stop(kg_apiserver *s)
{
    if (!s)
        return;
    __atomic_store_n(&s->ready, 0, __ATOMIC_RELEASE);
    /* drop this replica's Lease and its address from the `kubernetes` Endpoints */
    kg_endpoint_lease_stop(s->endpoint_lease);
    kg_leader_elector_stop(s->elector); /* stops the controllers if this replica led, releases the Lease */
    if (s->controllers)
        kg_controllers_stop(s->controllers);
    if (s->pump)
        kg_watch_pump_stop(s->pump);
    kg_cert_reloader_stop(s->cert_reloader);
    if (s->http)
        kg_http_server_stop(s->http);
    kg_tls_creds_free(s->tls_creds);
    kg_satoken_stop(s->satoken); /* before the caches it subscribes to */
    s->satoken = NULL;
    if (s->chain)
        kg_admission_chain_free(s->chain);
    kg_rbac_feed_stop(s->rbac_feed);
    kg_node_feed_stop(s->node_feed);
    kg_crd_feed_stop(s->crd_feed);
    if (s->caches)
        kg_cache_set_free(s->caches);
    if (s->authz)
        kg_authorizer_free(s->authz);
    kg_rbac_free(s->rbac);
    kg_node_graph_free(s->node_graph); /* after the union that borrowed it */
    if (s->authn)
        kg_authn_free(s->authn);
    free(s->bootstrap_authn);
    kg_audit_free(s->audit);
    if (s->store)
        kg_store_close(s->store);
    kg_transformer_free(s->transformer);
    if (s->metrics_reg)
        kg_metrics_registry_free(s->metrics_reg);
    kg_datadir_release(s->lock_fd);
    free(s->ca_pem);
    kg_feature_gates_free(s->gates);
    free(s);
}
