/* kgate serve: the API server proper. Wires the HTTP layer (http.h: TLS, authn, authz already applied when a
 * handler runs), the resource registry (api/resources.h), the store (storage/storage.h) and the admission chain
 * (admission/chain.h) into Kubernetes' REST semantics. */
#ifndef KG_SERVER_APISERVER_H
#define KG_SERVER_APISERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "admission/chain.h"
#include "api/resources.h"
#include "base/metrics.h"
#include "meta/status.h"
#include "registry/codec.h"
#include "registry/pipeline.h"
#include "server/http.h"
#include "server/satoken.h"
#include "server/watch.h"
#include "storage/storage.h"
#include "storage/transformer.h"

typedef struct kg_apiserver_options {
    const char *data_dir;
    const char *bind_address;
    int secure_port;
    bool insecure;              /* plain HTTP (tests, benchmarks) */
    const char *tls_cert_file;
    const char *tls_key_file;
    const char *tls_min_version;   /* --tls-min-version (VersionTLS12 when NULL) */
    const char *tls_cipher_suites; /* --tls-cipher-suites (AEAD ECDHE suites when NULL) */
    const char *token_auth_file;
    bool anonymous_auth;
    const char *authorization_mode; /* --authorization-mode (NULL: KG_AUTHZ_DEFAULT_MODES) */
    /* authentication and audit (docs/security.md) */
    const char *client_ca_file;       /* --client-ca-file: x509 client certificates */
    bool enable_bootstrap_token_auth; /* --enable-bootstrap-token-auth */
    const char *audit_policy_file;    /* --audit-policy-file (no audit log without it) */
    const char *audit_log_path;       /* --audit-log-path ("-": stdout) */
    int audit_log_maxsize_mb, audit_log_maxbackup, audit_log_maxage_days; /* --audit-log-max{size,backup,age} */
    kg_admission_options admission;
    const char *storage_backend; /* "sqlite" or "etcd3" */
    /* etcd3 (as kube-apiserver names the flags): --etcd-servers, --etcd-prefix (default /registry),
     * --etcd-cafile/--etcd-certfile/--etcd-keyfile, --etcd-compaction-interval (0: 5m, < 0: never) */
    const char *etcd_servers, *etcd_prefix, *etcd_cafile, *etcd_certfile, *etcd_keyfile;
    int64_t etcd_compaction_interval_ms;
    /* etcd3: the controllers' Lease election (0 = kube-controller-manager's 15 s / 10 s / 2 s) */
    int leader_elect_lease_ms, leader_elect_renew_ms, leader_elect_retry_ms;
    int64_t event_ttl_ms; /* etcd3: Events are written with a lease of this TTL (--event-ttl; default 1 h) */
    /* etcd3: the `kubernetes` Service endpoints lease reconciler (controllers/endpointlease.h):
     * --advertise-address (NULL: --bind-address, or 127.0.0.1 when that is a wildcard), --endpoint-reconciler-type
     * ("lease" default, "none"), --endpoint-lease-duration (kgate's; 0: 15 s) */
    const char *advertise_address, *endpoint_reconciler_type;
    int endpoint_lease_ms;
    unsigned worker_threads;
    int64_t watch_bookmark_ms;   /* bookmark interval for allowWatchBookmarks (default 60 s) */
    int64_t history_revisions;   /* watch/list history kept by the store (0: store default, 10000) */
    int compaction_interval_ms;  /* background compaction period (0: store default, 60 s) */
    size_t max_object_bytes;     /* largest stored object (--max-object-bytes; 0: 1.5 MiB as etcd) */
    const char *encryption_provider_config; /* --encryption-provider-config (storage/transformer.h); NULL: none */
    const char *feature_gates;   /* --feature-gates */
    const char *runtime_config;  /* --runtime-config (api/runtimeconfig.h) */
    int64_t default_not_ready_toleration_seconds;   /* --default-not-ready-toleration-seconds (300) */
    int64_t default_unreachable_toleration_seconds; /* --default-unreachable-toleration-seconds (300) */
    kg_satoken_options satoken; /* --service-account-*, --api-audiences (satoken.h) */
} kg_apiserver_options;

typedef struct kg_apiserver kg_apiserver;

void kg_apiserver_options_defaults(kg_apiserver_options *o);
/* Open the store, bootstrap built-in objects, build the admission chain, start controllers and HTTP. */
kg_apiserver *kg_apiserver_start(const kg_apiserver_options *o, kg_error *err);
int kg_apiserver_port(const kg_apiserver *s);
const char *kg_apiserver_admin_token(const kg_apiserver *s);
void kg_apiserver_stop(kg_apiserver *s);

/* ---- internals shared by the handler files ---- */
struct kg_apiserver {
    kg_apiserver_options opts;
    kg_store *store;
    kg_transformer *transformer; /* encryption at rest; outlives the store */
    kg_admission_chain *chain;
    kg_pipeline pipeline; /* the write path: store + chain (registry/pipeline.h) */
    kg_admission_services svc;
    kg_admission_plugin_options plugin_opts; /* from the flags; svc.options points here */
    kg_metrics_registry *metrics_reg;
    kg_apiserver_metrics metrics;
    kg_http_server *http;
    struct kg_tls_creds *tls_creds;         /* the serving pair, swapped by cert_reloader when its files change */
    struct kg_cert_reloader *cert_reloader; /* server/certreload.h; NULL with --insecure-serving */
    kg_authn *authn;
    struct kg_bootstrap_authn *bootstrap_authn; /* --enable-bootstrap-token-auth (authn_bootstrap.h) */
    struct kg_audit *audit; /* --audit-policy-file + --audit-log-path (audit.h) */
    kg_satoken *satoken; /* service-account tokens: keys, authenticator, TokenRequest/TokenReview, OIDC */
    kg_authorizer *authz;         /* the union: system:masters, then the --authorization-mode authorizers */
    struct kg_rbac *rbac;         /* NULL unless RBAC is a mode */
    struct kg_rbac_feed *rbac_feed;
    struct kg_node_graph *node_graph; /* NULL unless Node is a mode */
    struct kg_node_feed *node_feed;
    struct kg_crd_feed *crd_feed; /* CRDs → the served custom resources */
    bool authz_always_allow;      /* AlwaysAllow is a mode (its rules show in SelfSubjectRulesReviews) */
    struct kg_controllers *controllers;
    struct kg_leader_elector *elector; /* etcd3: controllers run while this replica holds the Lease */
    /* etcd3: this replica's Lease and its place in the `kubernetes` Service endpoints */
    struct kg_endpoint_lease *endpoint_lease;
    kg_watch_pump *pump;
    struct kg_cache_set *caches; /* watch-fed caches behind the admission services */
    struct kg_feature_gates *gates;
    int64_t started_ms;
    int lock_fd; /* the data dir's flock (datadir.h) */
    int ready;   /* atomic */
    char *admin_token;
    char *ca_pem; /* CA clients trust (kube-root-ca.crt); "" when serving plain HTTP */
};

/* The REST handlers (request info already parsed, user authenticated and authorized). */
void kg_rest_handle(kg_apiserver *s, kg_http_request *req, kg_http_response *resp, const kg_resource *r);
void kg_rest_watch(kg_apiserver *s, kg_http_request *req, kg_http_response *resp, const kg_resource *r);
/* Send a Status (failure or success) with its HTTP code. */
void kg_respond_status(kg_http_request *req, kg_http_response *resp, const kg_status *st);

/* Point s->svc at the server's admission services (clusterstate.c): ctx = s, reads through s->caches, writes to
 * s->store, metrics. Call once the caches and feature gates exist. */
void kg_apiserver_services_init(kg_apiserver *s);

/* Create an object directly in the store (system metadata and defaults applied, no admission): used by the
 * built-in controllers. Exists → NULL with err->code KG_EEXIST. */
kg_json *kg_apiserver_create_object(kg_apiserver *s, kg_arena *a, const char *plural, const char *ns,
                                    const kg_json *obj, kg_error *err);

/* Server-side operations reused by controllers (no HTTP, admission skipped): delete every object of a
 * namespace; remove a namespace once empty. */
bool kg_apiserver_delete_namespace_contents(kg_apiserver *s, const char *ns, size_t *remaining, kg_error *err);

#endif
