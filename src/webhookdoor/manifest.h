/* `kgate webhook manifest`: the ValidatingWebhookConfiguration (and, when an enabled plugin mutates, the
 * MutatingWebhookConfiguration) that points a cluster's API server at a `kgate webhook` server, as YAML.
 *
 * Safe defaults (docs/webhook-door.md, "Registering the door"):
 *   - clientConfig: url (<url>/validate, <url>/mutate) or service {namespace, name, port, path}; caBundle = the CA
 *     the caller gives (the door's generated ca.crt, or --ca-file);
 *   - failurePolicy Fail for both (--failure-policy overrides), timeoutSeconds 5, sideEffects None,
 *     matchPolicy Equivalent, admissionReviewVersions [v1, v1beta1], reinvocationPolicy IfNeeded on the mutating one;
 *   - namespaceSelector: kubernetes.io/metadata.name NotIn [kube-system, kube-node-lease, <the webhook's own
 *     namespace>], so the control plane, node heartbeats and the webhook itself can never be locked out by it;
 *   - rules: what the enabled plugins need. PodSecurity alone needs pods, pods/ephemeralcontainers and namespaces
 *     (CREATE, UPDATE); any other plugin (ValidatingAdmissionPolicy: any resource a policy may match) needs every
 *     resource and subresource ("*" and all subresources) and every operation. The validating webhook lists the plugins
 * with a validating phase, the mutating one those with a mutating phase; none mutating → no
 * MutatingWebhookConfiguration (a YAML comment says so). */
#ifndef KG_WEBHOOKDOOR_MANIFEST_H
#define KG_WEBHOOKDOOR_MANIFEST_H

#include <stdbool.h>

#include "admission/options.h"
#include "base/buf.h"
#include "base/error.h"

typedef struct kg_door_manifest_config {
    kg_admission_options admission; /* the door's plugin flags as given (the door's defaults are applied here) */
    const char *name;               /* configuration and webhook name prefix; NULL = "kgate" */
    const char *url;                /* https://host:port (no trailing path); or the service fields */
    const char *service_namespace, *service_name;
    int service_port;           /* 0 = 443 */
    const char *ca_pem;         /* the CA bundle (PEM) the API server trusts for the door */
    const char *failure_policy; /* "Fail" (NULL) or "Ignore" */
    const char *self_namespace; /* excluded from namespaceSelector; NULL = service_namespace, else "kgate-system" */
    int timeout_seconds;        /* 0 = 5 */
} kg_door_manifest_config;

/* Append the YAML (one or two documents) to out. False with err for a bad configuration (neither or both of url and
 * service, a failure policy other than Fail/Ignore, an unknown plugin, no CA, a timeout outside 1..30). */
bool kg_door_manifest(const kg_door_manifest_config *cfg, kg_buf *out, kg_error *err);

#endif
