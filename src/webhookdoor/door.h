/* `kgate webhook`: an HTTPS AdmissionReview server in front of kgate's admission chain — the very chain `kgate serve`
 * runs (admission/chain.h), built by the same function from the same flags, over an in-memory cluster (the one of
 * `kgate check`, check/cluster.h) that holds what the plugins read: namespaces (labels for PodSecurity),
 * ValidatingAdmissionPolicies, bindings and params loaded from --policy-dir at start, and/or listed and watched from a
 * live cluster with --kubeconfig (webhookdoor/live.h).
 *
 * TLS: the serving pair is re-read when its files change (server/certreload.h) and served per handshake
 * (server/tlscreds.h); --client-ca-file requires client certificates signed by that CA.
 *
 * Endpoints (one HTTPS port, server/http.h with authentication and authorization off; --health-port adds a plain-HTTP
 * port with the probes and /metrics only):
 *   POST /validate   validating phase (kg_admission_chain_validate)
 *   POST /mutate     mutating phase (kg_admission_chain_admit), answered with a JSONPatch from the object sent to
 *                    the object as mutated
 *   GET  /healthz, /livez, /readyz ("ok" once started: certificates loaded, policies loaded, --kubeconfig's first
 *        lists in), /metrics (the apiserver_admission_* metrics the chain records, the registry serve uses)
 * Protocol errors get non-2xx codes so the caller's failurePolicy decides: 400 undecodable review, 404 unknown path,
 * 405 method, 413 body over 3 MiB (read no further), 415 content type not application/json, 429 over
 * --max-requests-inflight (Retry-After: 1). A denial is 200 with
 * allowed:false and the plugin's Status.
 *
 * Plugins: the door's default set is PodSecurity, MutatingAdmissionPolicy (acting with its feature gate) and
 * ValidatingAdmissionPolicy; --enable-admission-plugins adds any plugin, --disable-admission-plugins removes, and the deprecated
 * --admission-control names the exact list, with kube-apiserver's validation and messages. */
#ifndef KG_WEBHOOKDOOR_DOOR_H
#define KG_WEBHOOKDOOR_DOOR_H

#include <stdbool.h>

#include "admission/options.h"
#include "base/error.h"

typedef struct kg_door kg_door;

typedef struct kg_door_config {
    kg_admission_options admission; /* as given on the command line (the door's defaults applied by kg_door_start) */
    const char *feature_gates;      /* --feature-gates */
    const char *policy_dir;         /* --policy-dir: file or directory of YAML/JSON objects, or NULL */
    const char *bind_address;       /* NULL = 0.0.0.0 */
    int port;                       /* 0 = any free port (tests) */
    const char *tls_cert_file;      /* both NULL: a CA and serving certificate generated in cert_dir */
    const char *tls_key_file;
    const char *cert_dir;          /* NULL = ./kgate-webhook-certs */
    const char *const *extra_sans; /* more SANs for a generated certificate ("DNS:x", "IP:y") */
    size_t nextra_sans;
    const char *client_ca_file;  /* --client-ca-file: require client certificates signed by this CA (mTLS) */
    int max_inflight;            /* --max-requests-inflight: 0 = KG_DOOR_DEFAULT_MAX_INFLIGHT, < 0 = no limit */
    int health_port;             /* --health-port: plain HTTP /healthz, /livez, /readyz, /metrics (0 = none) */
    const char *kubeconfig;      /* --kubeconfig: namespaces and policies from a live cluster (webhookdoor/live.h) */
    int cert_reload_interval_ms; /* how often the serving pair's files are looked at (0 = 1000) */
} kg_door_config;

#define KG_DOOR_DEFAULT_MAX_INFLIGHT 400 /* kube-apiserver's --max-requests-inflight default */

/* The plugin flags with the door's default set applied: unless --admission-control is given, every default-on plugin
 * of kube-apiserver other than the door's defaults is added to the disable list (minus what the user enables).
 * buf receives the disable list (cap bytes); *out borrows it. */
void kg_door_admission_options(const kg_admission_options *in, kg_admission_options *out, char *buf, size_t cap);

/* Build the chain, load the policy dir, load or generate TLS material and start serving. NULL with err (naming the
 * file and document for a bad policy file, the address for a bind failure). */
kg_door *kg_door_start(const kg_door_config *cfg, kg_error *err);
int kg_door_port(const kg_door *d);
/* The bound health port, or 0 without one. */
int kg_door_health_port(const kg_door *d);
/* The CA a caller should trust (PEM; the generated CA, or the self-signed end of --tls-cert-file's chain), or NULL. */
const char *kg_door_ca_pem(const kg_door *d);
void kg_door_stop(kg_door *d);

#endif
