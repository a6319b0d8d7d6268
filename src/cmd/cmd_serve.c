/* kgate serve: the Kubernetes-compatible API server. Flags are named as kube-apiserver's. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admission/registry.h"
#include "base/log.h"
#include "cmd/flags.h"
#include "server/apiserver.h"

const char kg_cmd_serve_help[] = "Run the Kubernetes-compatible API server (SQLite store, admission chain)";

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig)
{
    stop_requested = sig;
}

static void usage(FILE *f)
{
    fprintf(
        f,
        "Usage: kgate serve [flags]\n\n"
        "Runs a Kubernetes-compatible API server: kubectl works against it; every write runs the admission "
        "chain.\n\n"
        "Secure serving flags:\n"
        "      --bind-address ip                 The IP address on which to listen for the --secure-port port "
        "(default 127.0.0.1)\n"
        "      --secure-port int                 The port on which to serve HTTPS with authentication and "
        "authorization (default 6443; 0 picks a free port)\n"
        "      --tls-cert-file string            File containing the default x509 certificate for HTTPS. If "
        "absent, a CA and a\n"
        "                                        serving certificate for localhost/127.0.0.1 are generated in "
        "--data-dir on first start\n"
        "      --tls-private-key-file string     File containing the default x509 private key matching "
        "--tls-cert-file\n"
        "      --tls-min-version string          Minimum TLS version supported. Possible values: VersionTLS10, "
        "VersionTLS11, VersionTLS12, VersionTLS13\n"
        "                                        (default VersionTLS12)\n"
        "      --tls-cipher-suites strings       Comma-separated list of cipher suites for the server (Go/IANA "
        "names, e.g.\n"
        "                                        TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256). If omitted, the ECDHE "
        "AEAD suites\n"
        "                                        (AES-GCM, ChaCha20-Poly1305) are used; TLS 1.3 suites are not "
        "configurable\n"
        "      --insecure-serving                Serve plain HTTP instead of HTTPS (tests and benchmarks only)\n\n"
        "Authentication flags:\n"
        "      --anonymous-auth                  Enables anonymous requests to the secure port (default true)\n"
        "      --token-auth-file string          If set, the file that will be used to secure the secure port "
        "of the API server\n"
        "                                        via token authentication (CSV: token,user,uid,\"group1,group2\")\n"
        "      --client-ca-file string           If set, any request presenting a client certificate signed by one of "
        "the authorities\n"
        "                                        in the client-ca-file is authenticated with an identity corresponding "
        "to the CommonName\n"
        "      --enable-bootstrap-token-auth     Enable to allow secrets of type 'bootstrap.kubernetes.io/token' in the "
        "'kube-system'\n"
        "                                        namespace to be used for TLS bootstrapping authentication.\n\n"
        "Auditing flags:\n"
        "      --audit-policy-file string        Path to the file that defines the audit policy configuration.\n"
        "      --audit-log-path string           If set, all requests coming to the apiserver will be logged to this "
        "file.\n"
        "                                        '-' means standard out.\n"
        "      --audit-log-maxsize int           The maximum size in megabytes of the audit log file before it gets "
        "rotated.\n"
        "      --audit-log-maxbackup int         The maximum number of old audit log files to retain. Setting a value "
        "of 0 will\n"
        "                                        mean there's no restriction on the number of files.\n"
        "      --audit-log-maxage int            The maximum number of days to retain old audit log files based on the "
        "timestamp\n"
        "                                        encoded in their filename.\n\n"
        "      --api-audiences strings           Identifiers of the API; service account tokens must carry one "
        "(default: the issuers)\n"
        "      --service-account-issuer stringArray   Identifier of the service account token issuer; repeatable, "
        "the first signs\n"
        "                                        (default https://kubernetes.default.svc.cluster.local)\n"
        "      --service-account-signing-key-file string   PEM private key (RSA or ECDSA) that signs service "
        "account tokens;\n"
        "                                        without it a key is generated in --data-dir on first start\n"
        "      --service-account-key-file stringArray   PEM public/private keys that verify service account "
        "tokens (default: the signing key)\n"
        "      --service-account-max-token-expiration duration   Maximum validity of a requested token (0: no "
        "cap; else 1h..2^32s)\n"
        "      --service-account-extend-token-expiration   Extend pod-bound projected tokens to 1 year, warning "
        "after 3607s (default true)\n"
        "      --service-account-lookup          Check that legacy Secret-based tokens still exist (default true)\n"
        "      --service-account-jwks-uri string  Overrides jwks_uri of /.well-known/openid-configuration (https)\n\n"
        "Authorization flags:\n"
        "      --authorization-mode strings      Ordered list of plug-ins to do authorization on secure port. "
        "Comma-delimited list of:\n"
        "                                        AlwaysAllow,AlwaysDeny,Node,RBAC (default Node,RBAC; system:masters "
        "is "
        "always allowed)\n\n"
        "Admission flags:\n"
        "      --admission-control-config-file string   File with admission control configuration.\n"
        "      --default-not-ready-toleration-seconds int      Indicates the tolerationSeconds of the toleration "
        "for notReady:NoExecute\n"
        "                                               that is added by default to every pod that does not already "
        "have such a toleration. (default 300)\n"
        "      --default-unreachable-toleration-seconds int    Indicates the tolerationSeconds of the toleration "
        "for unreachable:NoExecute\n"
        "                                               that is added by default to every pod that does not already "
        "have such a toleration. (default 300)\n"
        "      --disable-admission-plugins strings      admission plugins that should be disabled although "
        "they are in the default enabled plugins list.\n"
        "      --enable-admission-plugins strings       admission plugins that should be enabled in addition "
        "to default enabled ones.\n"
        "                                               The order of plugins in this flag does not matter.\n\n");
    kg_flags_admission_plugins_usage(f);
    fprintf(f,
            "\nStorage flags:\n"
            "      --data-dir string                 Directory for the SQLite store, certificates, the admin "
            "token and admin.kubeconfig (default ./kgate-data)\n"
            "      --storage-backend string          The storage backend for persistence: sqlite, etcd3 (default "
            "sqlite)\n"
            "      --etcd-servers strings            List of etcd servers to connect with (scheme://ip:port), "
            "comma separated;\n"
            "                                        requests fail over to the next on connection failure\n"
            "      --etcd-prefix string              The prefix to prepend to all resource paths in etcd "
            "(default \"/registry\")\n"
            "      --etcd-cafile string              SSL Certificate Authority file used to secure etcd "
            "communication\n"
            "      --etcd-certfile string            SSL certification file used to secure etcd communication\n"
            "      --etcd-keyfile string             SSL key file used to secure etcd communication\n"
            "      --etcd-compaction-interval duration  The interval of compaction requests. If 0, the compaction "
            "request from apiserver is disabled. (default 5m0s)\n"
            "      --event-ttl duration              etcd3: amount of time to retain events. (default 1h0m0s)\n"
            "      --leader-elect-lease-duration duration  etcd3: how long the controllers' Lease lasts without "
            "renewal (default 15s)\n"
            "      --leader-elect-renew-deadline duration  etcd3: how long the leader tries to renew before "
            "stepping down (default 10s)\n"
            "      --leader-elect-retry-period duration    etcd3: how often candidates try (default 2s)\n"
            "      --advertise-address ip            etcd3: the address this replica is listed at in the "
            "`kubernetes` Service endpoints\n"
            "                                        (default --bind-address, or 127.0.0.1 when that is 0.0.0.0)\n"
            "      --endpoint-reconciler-type string etcd3: lease (each replica keeps a Lease and the endpoints list "
            "the live ones) or none (default lease)\n"
            "      --endpoint-lease-duration duration  etcd3: how long a replica stays listed without renewing its "
            "Lease (default 15s)\n"
            "      --storage-history-revisions int   Revisions of history kept for watches and consistent lists "
            "(default 10000);\n"
            "                                        older resourceVersions get 410 Gone\n"
            "      --storage-compaction-interval duration  How often history beyond that is compacted (default "
            "1m)\n"
            "      --max-object-bytes int            Largest object the store accepts after patches and mutation "
            "(default 1572864,\n"
            "                                        etcd's --max-request-bytes); larger writes fail with 500 "
            "\"etcdserver: request is too large\"\n"
            "      --encryption-provider-config string  EncryptionConfiguration (apiserver.config.k8s.io/v1) for "
            "encrypting\n"
            "                                        resources at rest (aescbc, aesgcm, identity)\n\n"
            "Feature gates:\n"
            "      --feature-gates mapStringBool     A set of key=value pairs that describe feature gates, e.g.\n"
            "                                        PodTopologyLabelsAdmission=true (v1.33 defaults otherwise)\n"
            "      --runtime-config mapStringString  A set of key=value pairs that enable or disable built-in APIs:\n"
            "                                        api/all, api/ga, api/beta, api/alpha or <group>/<version>,\n"
            "                                        =true|false, comma-separated. MutatingAdmissionPolicy is served\n"
            "                                        with admissionregistration.k8s.io/v1beta1=true (or /v1alpha1)\n"
            "                                        and --feature-gates=MutatingAdmissionPolicy=true\n\n"
            "Logging flags:\n"
            "  -v, --v int                           number for the log level verbosity\n");
}

/* A Go-style duration made of number+unit parts ("500ms", "30s", "5m", "5m0s", "1h30m"); a bare "0" is zero. */
static bool parse_duration_ms(const char *v, int64_t *out)
{
    if (!v || !*v)
        return false;
    if (!strcmp(v, "0")) {
        *out = 0;
        return true;
    }
    double total = 0;
    while (*v) {
        char *end;
        double n = strtod(v, &end);
        if (end == v || n < 0)
            return false;
        double mult;
        if (!strncmp(end, "ms", 2)) {
            mult = 1;
            end += 2;
        } else if (*end == 's') {
            mult = 1000;
            end++;
        } else if (*end == 'm') {
            mult = 60000;
            end++;
        } else if (*end == 'h') {
            mult = 3600000;
            end++;
        } else {
            return false;
        }
        total += n * mult;
        v = end;
    }
    *out = (int64_t)total;
    return true;
}

/* The service-account token flags (server/satoken.h): 1 consumed, 0 not one of them, -1 error (printed). */
static int satoken_flag(int argc, char **argv, int *i, kg_satoken_options *o)
{
    const char *arg = argv[*i];
    static const char *const bools[] = {"--service-account-extend-token-expiration", "--service-account-lookup"};
    bool *bf[] = {&o->no_extend_token_expiration, &o->no_lookup};
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(bools[k]);
        if (!strncmp(arg, bools[k], n) && (arg[n] == 0 || arg[n] == '=')) {
            bool on;
            if (!kg_flag_parse_bool(arg[n] ? arg + n + 1 : NULL, &on)) {
                fprintf(stderr, "Error: invalid argument \"%s\" for \"%s\" flag\n", arg + n + 1, bools[k]);
                return -1;
            }
            *bf[k] = !on;
            return 1;
        }
    }
    static const char *const lists[] = {"--service-account-key-file", "--service-account-issuer", "--api-audiences"};
    const char **lv[] = {o->key_files, o->issuers, o->api_audiences};
    size_t *ln[] = {&o->nkey_files, &o->nissuers, &o->napi_audiences};
    bool m;
    const char *v;
    for (int k = 0; k < 3; k++) {
        v = kg_flag_value(argc, argv, i, lists[k], &m);
        if (!m)
            continue;
        if (!v || *ln[k] == KG_SATOKEN_MAX_VALUES) {
            fprintf(stderr, v ? "Error: too many %s flags\n" : "Error: flag needs an argument: %s\n", lists[k]);
            return -1;
        }
        lv[k][(*ln[k])++] = v;
        return 1;
    }
    static const char *const strs[] = {"--service-account-signing-key-file", "--service-account-jwks-uri"};
    const char **sv[] = {&o->signing_key_file, &o->jwks_uri};
    for (int k = 0; k < 2; k++) {
        v = kg_flag_value(argc, argv, i, strs[k], &m);
        if (!m)
            continue;
        if (!v) {
            fprintf(stderr, "Error: flag needs an argument: %s\n", strs[k]);
            return -1;
        }
        *sv[k] = v;
        return 1;
    }
    v = kg_flag_value(argc, argv, i, "--service-account-max-token-expiration", &m);
    if (!m)
        return 0;
    int64_t ms = -1;
    if (!parse_duration_ms(v, &ms) || ms < 0) {
        fprintf(stderr, "Error: invalid argument \"%s\" for \"--service-account-max-token-expiration\" flag\n",
                v ? v : "");
        return -1;
    }
    o->max_token_expiration_s = ms / 1000;
    return 1;
}

int kg_cmd_serve(int argc, char **argv)
{
    kg_apiserver_options o;
    kg_apiserver_options_defaults(&o);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool m;
        const char *v;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            return 0;
        }
        /* boolean flags: --flag, --flag=true|false */
        if (!strncmp(arg, "--anonymous-auth", 16) && (arg[16] == 0 || arg[16] == '=')) {
            if (!kg_flag_parse_bool(arg[16] ? arg + 17 : NULL, &o.anonymous_auth)) {
                fprintf(stderr,
                        "Error: invalid argument \"%s\" for \"--anonymous-auth\" flag: strconv.ParseBool: "
                        "parsing \"%s\": invalid syntax\n",
                        arg + 17, arg + 17);
                return 1;
            }
            continue;
        }
        if (!strncmp(arg, "--enable-bootstrap-token-auth", 29) && (arg[29] == 0 || arg[29] == '=')) {
            if (!kg_flag_parse_bool(arg[29] ? arg + 30 : NULL, &o.enable_bootstrap_token_auth)) {
                fprintf(stderr, "Error: invalid argument for \"--enable-bootstrap-token-auth\" flag\n");
                return 1;
            }
            continue;
        }
        if (!strncmp(arg, "--insecure-serving", 18) && (arg[18] == 0 || arg[18] == '=')) {
            if (!kg_flag_parse_bool(arg[18] ? arg + 19 : NULL, &o.insecure)) {
                fprintf(stderr, "Error: invalid argument for \"--insecure-serving\" flag\n");
                return 1;
            }
            continue;
        }
#define STRFLAG(name, field)                                                                                           \
    v = kg_flag_value(argc, argv, &i, name, &m);                                                                       \
    if (m) {                                                                                                           \
        if (!v) {                                                                                                      \
            fprintf(stderr, "Error: flag needs an argument: %s\n", name);                                              \
            return 1;                                                                                                  \
        }                                                                                                              \
        field = v;                                                                                                     \
        continue;                                                                                                      \
    }
        STRFLAG("--data-dir", o.data_dir)
        STRFLAG("--bind-address", o.bind_address)
        STRFLAG("--advertise-address", o.advertise_address)
        STRFLAG("--endpoint-reconciler-type", o.endpoint_reconciler_type)
        STRFLAG("--tls-cert-file", o.tls_cert_file)
        STRFLAG("--tls-private-key-file", o.tls_key_file)
        STRFLAG("--tls-min-version", o.tls_min_version)
        STRFLAG("--tls-cipher-suites", o.tls_cipher_suites)
        STRFLAG("--token-auth-file", o.token_auth_file)
        STRFLAG("--authorization-mode", o.authorization_mode)
        STRFLAG("--client-ca-file", o.client_ca_file)
        STRFLAG("--audit-policy-file", o.audit_policy_file)
        STRFLAG("--audit-log-path", o.audit_log_path)
        STRFLAG("--storage-backend", o.storage_backend)
        STRFLAG("--runtime-config", o.runtime_config)
        STRFLAG("--etcd-servers", o.etcd_servers)
        STRFLAG("--etcd-prefix", o.etcd_prefix)
        STRFLAG("--etcd-cafile", o.etcd_cafile)
        STRFLAG("--etcd-certfile", o.etcd_certfile)
        STRFLAG("--etcd-keyfile", o.etcd_keyfile)
        STRFLAG("--encryption-provider-config", o.encryption_provider_config)
#undef STRFLAG
        int sf = satoken_flag(argc, argv, &i, &o.satoken);
        if (sf < 0)
            return 1;
        if (sf > 0)
            continue;
        kg_flag_result fr = kg_flags_engine(argc, argv, &i, &o.admission, &o.feature_gates);
        if (fr == KG_FLAG_ERROR)
            return 1;
        if (fr == KG_FLAG_MATCHED)
            continue;
        v = kg_flag_value(argc, argv, &i, "--default-not-ready-toleration-seconds", &m);
        if (!m)
            v = kg_flag_value(argc, argv, &i, "--default-unreachable-toleration-seconds", &m);
        if (m) {
            char *end;
            long long n = v ? strtoll(v, &end, 10) : 0;
            if (!v || *end) {
                fprintf(stderr, "Error: invalid argument \"%s\" for \"%s\" flag\n", v ? v : "", arg);
                return 1;
            }
            if (strstr(arg, "not-ready"))
                o.default_not_ready_toleration_seconds = n;
            else
                o.default_unreachable_toleration_seconds = n;
            continue;
        }
        { /* --audit-log-maxsize (MB), --audit-log-maxbackup, --audit-log-maxage (days) */
            static const char *const al[] = {"--audit-log-maxsize", "--audit-log-maxbackup", "--audit-log-maxage"};
            int *alf[] = {&o.audit_log_maxsize_mb, &o.audit_log_maxbackup, &o.audit_log_maxage_days};
            int k = 0;
            for (; k < 3 && !(v = kg_flag_value(argc, argv, &i, al[k], &m), m); k++)
                ;
            if (k < 3) {
                char *end;
                long n = v ? strtol(v, &end, 10) : -1;
                if (!v || *end || n < 0 || n > 1000000) {
                    fprintf(stderr, "Error: invalid argument \"%s\" for \"%s\" flag\n", v ? v : "", al[k]);
                    return 1;
                }
                *alf[k] = (int)n;
                continue;
            }
        }
        v = kg_flag_value(argc, argv, &i, "--secure-port", &m);
        if (m) {
            char *end;
            long p = v ? strtol(v, &end, 10) : -1;
            if (!v || *end || p < 0 || p > 65535) {
                fprintf(stderr, "Error: invalid argument \"%s\" for \"--secure-port\" flag\n", v ? v : "");
                return 1;
            }
            o.secure_port = (int)p;
            continue;
        }
        v = kg_flag_value(argc, argv, &i, "--storage-history-revisions", &m);
        if (m) {
            char *end;
            long long n = v ? strtoll(v, &end, 10) : -1;
            if (!v || *end || n < 1) {
                fprintf(stderr, "Error: invalid argument \"%s\" for \"--storage-history-revisions\" flag\n",
                        v ? v : "");
                return 1;
            }
            o.history_revisions = n;
            continue;
        }
        v = kg_flag_value(argc, argv, &i, "--max-object-bytes", &m);
        if (m) {
            char *end;
            long long n = v ? strtoll(v, &end, 10) : -1;
            if (!v || *end || n < 1024) {
                fprintf(stderr, "Error: invalid argument \"%s\" for \"--max-object-bytes\" flag: want bytes >= 1024\n",
                        v ? v : "");
                return 1;
            }
            o.max_object_bytes = (size_t)n;
            continue;
        }
        v = kg_flag_value(argc, argv, &i, "--event-ttl", &m);
        if (m) {
            int64_t ms = -1;
            if (!parse_duration_ms(v, &ms) || ms <= 0) {
                fprintf(stderr, "Error: invalid argument \"%s\" for \"--event-ttl\" flag\n", v ? v : "");
                return 1;
            }
            o.event_ttl_ms = ms;
            continue;
        }
        v = kg_flag_value(argc, argv, &i, "--etcd-compaction-interval", &m);
        if (m) {
            int64_t ms = -1;
            if (!parse_duration_ms(v, &ms) || ms < 0) {
                fprintf(stderr,
                        "Error: invalid argument \"%s\" for \"--etcd-compaction-interval\" flag: "
                        "want a duration such as 30s, 5m0s (0 disables)\n",
                        v ? v : "");
                return 1;
            }
            o.etcd_compaction_interval_ms = ms == 0 ? -1 : ms;
            continue;
        }
        {
            static const char *const le[] = {"--leader-elect-lease-duration", "--leader-elect-renew-deadline",
                                             "--leader-elect-retry-period"};
            int *lef[] = {&o.leader_elect_lease_ms, &o.leader_elect_renew_ms, &o.leader_elect_retry_ms};
            int k = 0;
            for (; k < 3; k++) {
                v = kg_flag_value(argc, argv, &i, le[k], &m);
                if (m)
                    break;
            }
            if (k < 3) {
                int64_t ms = -1;
                if (!parse_duration_ms(v, &ms) || ms <= 0 || ms > INT32_MAX) {
                    fprintf(stderr, "Error: invalid argument \"%s\" for \"%s\" flag\n", v ? v : "", le[k]);
                    return 1;
                }
                *lef[k] = (int)ms;
                continue;
            }
        }
        v = kg_flag_value(argc, argv, &i, "--endpoint-lease-duration", &m);
        if (m) {
            int64_t ms = -1;
            if (!parse_duration_ms(v, &ms) || ms < 1500 || ms > INT32_MAX) {
                fprintf(stderr,
                        "Error: invalid argument \"%s\" for \"--endpoint-lease-duration\" flag: want a duration of "
                        "at least 1.5s\n",
                        v ? v : "");
                return 1;
            }
            o.endpoint_lease_ms = (int)ms;
            continue;
        }
        v = kg_flag_value(argc, argv, &i, "--storage-compaction-interval", &m);
        if (m) {
            int64_t n = -1;
            if (!parse_duration_ms(v, &n) || n <= 0 || n > INT32_MAX) {
                fprintf(stderr,
                        "Error: invalid argument \"%s\" for \"--storage-compaction-interval\" flag: "
                        "want a duration such as 500ms, 30s, 5m\n",
                        v ? v : "");
                return 1;
            }
            o.compaction_interval_ms = (int)n;
            continue;
        }
        if (!strncmp(arg, "-v=", 3) || !strncmp(arg, "--v=", 4) || !strcmp(arg, "-v") || !strcmp(arg, "--v")) {
            const char *val = strchr(arg, '=');
            if (val)
                val++;
            else if (i + 1 < argc)
                val = argv[++i];
            kg_log_verbosity = val ? atoi(val) : 0;
            continue;
        }
        fprintf(stderr, "Error: unknown flag: %s\nRun 'kgate serve --help' for usage.\n", arg);
        return 1;
    }
    if (!strcmp(o.storage_backend, "etcd3") && (!o.etcd_servers || !o.etcd_servers[0])) {
        fprintf(stderr, "Error: --etcd-servers must be specified\n");
        return 1;
    }
    if (o.endpoint_reconciler_type && strcmp(o.endpoint_reconciler_type, "lease") &&
        strcmp(o.endpoint_reconciler_type, "none")) {
        fprintf(stderr, "Error: invalid --endpoint-reconciler-type \"%s\": lease or none\n",
                o.endpoint_reconciler_type);
        return 1;
    }
    KG_ERROR_DECL(err);
    kg_apiserver *s = kg_apiserver_start(&o, &err);
    if (!s) {
        fprintf(stderr, "Error: %s\n", err.msg);
        return 1;
    }
    KG_INFO("Serving %s on %s:%d", o.insecure ? "insecurely" : "securely", o.bind_address, kg_apiserver_port(s));
    printf("kgate serve is running on %s://%s:%d\n  kubectl --kubeconfig %s/admin.kubeconfig get ns\n",
           o.insecure ? "http" : "https", o.bind_address, kg_apiserver_port(s), o.data_dir);
    fflush(stdout);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    while (!stop_requested)
        pause();
    KG_INFO("received signal %d, shutting down", (int)stop_requested);
    kg_apiserver_stop(s);
    return 0;
}
