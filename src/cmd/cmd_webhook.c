/* kgate webhook: kgate's admission chain behind an HTTPS AdmissionReview server, for existing clusters
 * (docs/webhook-door.md). Flags here; the server is webhookdoor/door.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/str.h"
#include "cmd/flags.h"
#include "webhookdoor/door.h"
#include "webhookdoor/manifest.h"

const char kg_cmd_webhook_help[] = "Serve kgate's admission chain to an existing cluster as an AdmissionReview webhook";

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig)
{
    stop_requested = sig;
}

static void usage(FILE *f)
{
    fprintf(f, "Usage: kgate webhook [serve] [flags]\n       kgate webhook manifest [flags]   (see --help there)\n\n"
               "Serves POST /validate (validating phase) and POST /mutate (mutating phase, JSONPatch answers) for\n"
               "AdmissionReview v1 and v1beta1 over HTTPS, with the admission chain of kgate serve. The default\n"
               "plugins are PodSecurity, MutatingAdmissionPolicy (with its feature gate) and ValidatingAdmissionPolicy;\n"
               "--enable-admission-plugins adds any other.\n"
               "Also /healthz, /livez, /readyz and /metrics.\n\n"
               "Flags:\n"
               "      --secure-port int              port to serve HTTPS on (default 8443; 0 picks a free port)\n"
               "      --bind-address ip              address to listen on (default 0.0.0.0)\n"
               "      --tls-cert-file string         serving certificate (PEM, chain allowed)\n"
               "      --tls-private-key-file string  its key; without both, a CA and a serving certificate are\n"
               "                                     generated in --cert-dir (reused on later starts). The pair is\n"
               "                                     re-read when the files change (checked every second)\n"
               "      --cert-dir string              where generated certificates live (default "
               "./kgate-webhook-certs)\n"
               "      --client-ca-file string        require client certificates signed by this CA (mTLS: the API\n"
               "                                     server's webhook client certificate); others fail the handshake\n"
               "      --health-port int              also serve /healthz, /livez, /readyz and /metrics over plain\n"
               "                                     HTTP on this port (for kubelet probes with --client-ca-file)\n"
               "      --max-requests-inflight int    requests served at once; more get 429 with Retry-After: 1\n"
               "                                     (default 400; 0 = no limit)\n"
               "      --tls-san string               extra SAN of a generated certificate (DNS:name or IP:addr;\n"
               "                                     repeatable), e.g. the webhook Service's DNS name\n"
               "      --policy-dir PATH              YAML/JSON objects loaded into the in-memory cluster at start:\n"
               "                                     Namespaces (with the labels PodSecurity reads), policies,\n"
               "                                     bindings, params (file or directory, recursive)\n"
               "      --kubeconfig string            read namespaces, policies and bindings (and LimitRanges,\n"
               "                                     ResourceQuotas when their plugins are on) from this cluster\n"
               "                                     through list+watch; /readyz waits for the first lists\n"
               "  -h, --help                         this help\n\n");
    kg_flags_engine_usage(f);
}

static void manifest_usage(FILE *f)
{
    fprintf(f, "Usage: kgate webhook manifest [flags]\n\n"
               "Prints the ValidatingWebhookConfiguration (and the MutatingWebhookConfiguration when an enabled\n"
               "plugin mutates) that sends a cluster's admission requests to this kgate webhook, for kubectl apply.\n"
               "Defaults: failurePolicy Fail, timeoutSeconds 5, sideEffects None, matchPolicy Equivalent,\n"
               "admissionReviewVersions [v1, v1beta1], reinvocationPolicy IfNeeded, namespaceSelector excluding\n"
               "kube-system, kube-node-lease and the webhook's own namespace; rules for what the enabled plugins\n"
               "need.\n\n"
               "Flags:\n"
               "      --url string                   https://host:port of the server (paths /validate, /mutate)\n"
               "      --service-namespace string     or: the Service in front of it (with --service-name)\n"
               "      --service-name string\n"
               "      --service-port int             the Service's port (default 443)\n"
               "      --ca-file string               CA bundle the API server trusts for the server (default:\n"
               "                                     ca.crt in --cert-dir, the CA kgate webhook generated)\n"
               "      --cert-dir string              default ./kgate-webhook-certs\n"
               "      --failure-policy string        Fail (default) or Ignore\n"
               "      --timeout-seconds int          default 5\n"
               "      --name string                  configuration name (default kgate)\n"
               "      --namespace string             the webhook's own namespace, excluded (default\n"
               "                                     --service-namespace, else kgate-system)\n"
               "  -h, --help                         this help\n\n"
               "The engine flags (below) select the plugins, as for kgate webhook itself.\n\n");
    kg_flags_engine_usage(f);
}

static bool parse_int(const char *flag, const char *v, int lo, int hi, int *out)
{
    char *end;
    long p = strtol(v, &end, 10);
    if (!*v || *end || p < lo || p > hi) {
        fprintf(stderr, "Error: invalid argument \"%s\" for \"%s\" flag\n", v, flag);
        return false;
    }
    *out = (int)p;
    return true;
}

static int cmd_manifest(int argc, char **argv)
{
    kg_door_manifest_config mc = {0};
    const char *ca_file = NULL, *cert_dir = "./kgate-webhook-certs", *port = NULL, *timeout = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            manifest_usage(stdout);
            return 0;
        }
        kg_flag_result fr = kg_flags_engine(argc, argv, &i, &mc.admission, &(const char *){NULL});
        if (fr == KG_FLAG_ERROR)
            return 2;
        if (fr == KG_FLAG_MATCHED)
            continue;
        struct {
            const char *name;
            const char **dst;
        } flags[] = {
            {"--url", &mc.url},
            {"--service-namespace", &mc.service_namespace},
            {"--service-name", &mc.service_name},
            {"--service-port", &port},
            {"--ca-file", &ca_file},
            {"--cert-dir", &cert_dir},
            {"--failure-policy", &mc.failure_policy},
            {"--timeout-seconds", &timeout},
            {"--name", &mc.name},
            {"--namespace", &mc.self_namespace},
        };
        bool done = false;
        for (size_t k = 0; k < sizeof flags / sizeof flags[0] && !done; k++) {
            bool m;
            const char *v = kg_flag_value(argc, argv, &i, flags[k].name, &m);
            if (!m)
                continue;
            if (!v) {
                fprintf(stderr, "Error: flag needs an argument: %s\n", flags[k].name);
                return 2;
            }
            *flags[k].dst = v;
            done = true;
        }
        if (!done) {
            fprintf(stderr, "Error: unknown flag: %s\nRun 'kgate webhook manifest --help' for usage.\n", argv[i]);
            return 2;
        }
    }
    if ((port && !parse_int("--service-port", port, 1, 65535, &mc.service_port)) ||
        (timeout && !parse_int("--timeout-seconds", timeout, 1, 30, &mc.timeout_seconds)))
        return 2;
    char path[4096];
    if (!ca_file) {
        snprintf(path, sizeof path, "%s/ca.crt", cert_dir);
        ca_file = path;
    }
    size_t len;
    char *ca = kg_read_file(ca_file, &len);
    if (!ca) {
        fprintf(stderr, "Error: reading the CA bundle %s: %s\n", ca_file, strerror(errno));
        return 2;
    }
    mc.ca_pem = ca;
    kg_buf out = KG_BUF_INIT;
    KG_ERROR_DECL(err);
    int rc = 0;
    if (kg_door_manifest(&mc, &out, &err)) {
        fwrite(out.data, 1, out.len, stdout);
    } else {
        fprintf(stderr, "Error: %s\n", err.msg);
        rc = 2;
    }
    kg_buf_free(&out);
    free(ca);
    return rc;
}

int kg_cmd_webhook(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "manifest"))
        return cmd_manifest(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "serve")) {
        argc--;
        argv++;
    }
    kg_door_config cfg = {.port = 8443};
    const char **sans = calloc((size_t)argc + 1, sizeof *sans);
    size_t nsans = 0;
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool m;
        const char *v;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            rc = 0;
            goto out;
        }
        kg_flag_result fr = kg_flags_engine(argc, argv, &i, &cfg.admission, &cfg.feature_gates);
        if (fr == KG_FLAG_ERROR)
            goto out;
        if (fr == KG_FLAG_MATCHED)
            continue;
        struct {
            const char *name;
            const char **dst;
        } flags[] = {
            {"--bind-address", &cfg.bind_address},
            {"--tls-cert-file", &cfg.tls_cert_file},
            {"--tls-private-key-file", &cfg.tls_key_file},
            {"--cert-dir", &cfg.cert_dir},
            {"--policy-dir", &cfg.policy_dir},
            {"--client-ca-file", &cfg.client_ca_file},
            {"--kubeconfig", &cfg.kubeconfig},
            {"--tls-san", NULL},
            {"--secure-port", NULL},
            {"--max-requests-inflight", NULL},
            {"--health-port", NULL},
        };
        bool done = false;
        for (size_t k = 0; k < sizeof flags / sizeof flags[0] && !done; k++) {
            v = kg_flag_value(argc, argv, &i, flags[k].name, &m);
            if (!m)
                continue;
            if (!v) {
                fprintf(stderr, "Error: flag needs an argument: %s\n", flags[k].name);
                goto out;
            }
            done = true;
            if (flags[k].dst) {
                *flags[k].dst = v;
            } else if (!strcmp(flags[k].name, "--tls-san")) {
                sans[nsans++] = v;
            } else if (!strcmp(flags[k].name, "--health-port")) {
                if (!parse_int("--health-port", v, 0, 65535, &cfg.health_port))
                    goto out;
            } else if (!strcmp(flags[k].name, "--max-requests-inflight")) {
                if (!parse_int("--max-requests-inflight", v, 0, 1000000, &cfg.max_inflight))
                    goto out;
                if (!cfg.max_inflight)
                    cfg.max_inflight = -1; /* kube-apiserver: 0 means no limit */
            } else {
                char *end;
                long p = strtol(v, &end, 10);
                if (!*v || *end || p < 0 || p > 65535) {
                    fprintf(stderr, "Error: invalid argument \"%s\" for \"--secure-port\" flag\n", v);
                    goto out;
                }
                cfg.port = (int)p;
            }
        }
        if (done)
            continue;
        if (!strncmp(arg, "-v=", 3) || !strncmp(arg, "--v=", 4)) {
            kg_log_verbosity = atoi(strchr(arg, '=') + 1);
            continue;
        }
        fprintf(stderr, "Error: unknown flag: %s\nRun 'kgate webhook --help' for usage.\n", arg);
        goto out;
    }
    cfg.extra_sans = sans;
    cfg.nextra_sans = nsans;
    KG_ERROR_DECL(err);
    kg_door *d = kg_door_start(&cfg, &err);
    if (!d) {
        fprintf(stderr, "Error: %s\n", err.msg);
        rc = 1;
        goto out;
    }
    printf("kgate webhook is serving AdmissionReviews on https://%s:%d (/validate, /mutate)\n",
           cfg.bind_address ? cfg.bind_address : "0.0.0.0", kg_door_port(d));
    if (!cfg.tls_cert_file)
        printf("  caBundle: %s/ca.crt\n", cfg.cert_dir ? cfg.cert_dir : "./kgate-webhook-certs");
    if (kg_door_health_port(d))
        printf("  probes and metrics: http://%s:%d (/healthz, /livez, /readyz, /metrics)\n",
               cfg.bind_address ? cfg.bind_address : "0.0.0.0", kg_door_health_port(d));
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
    kg_door_stop(d);
    rc = 0;
out:
    free(sans);
    return rc;
}
