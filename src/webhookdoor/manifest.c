/* `kgate webhook manifest` (see manifest.h). */
#include "webhookdoor/manifest.h"

#include <stdlib.h>
#include <string.h>

#include "admission/registry.h"
#include "base/base64.h"
#include "webhookdoor/door.h"

/* A YAML double-quoted scalar (JSON string escapes are valid YAML). */
static void put_quoted(kg_buf *b, const char *s)
{
    kg_buf_putc(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            kg_buf_printf(b, "\\%c", c);
        else if (c < 0x20)
            kg_buf_printf(b, "\\x%02x", c);
        else
            kg_buf_putc(b, (char)c);
    }
    kg_buf_putc(b, '"');
}

typedef struct needs {
    bool any;      /* some plugin has this phase */
    bool wildcard; /* some plugin of this phase needs every resource */
} needs;

static void put_rules(kg_buf *b, const needs *n)
{
    kg_buf_puts(b, "  rules:\n");
    if (n->wildcard) {
        kg_buf_puts(b, "  - apiGroups: [\"*\"]\n    apiVersions: [\"*\"]\n    operations: [\"*\"]\n"
                       "    resources: [\"*/*\"]\n    scope: \"*\"\n");
        return;
    }
    kg_buf_puts(b, "  - apiGroups: [\"\"]\n    apiVersions: [v1]\n    operations: [CREATE, UPDATE]\n"
                   "    resources: [pods, pods/ephemeralcontainers, namespaces]\n    scope: \"*\"\n");
}

static void put_webhook(kg_buf *b, const kg_door_manifest_config *cfg, const char *name, const char *path,
                        const char *ca_b64, const char *self_ns, const needs *n, bool mutating)
{
    /* a fully qualified name of at least three segments: validate.kgate.dev, validate.<name>.kgate.dev */
    kg_buf_printf(b, "- name: %s.%s%skgate.dev\n", mutating ? "mutate" : "validate", strcmp(name, "kgate") ? name : "",
                  strcmp(name, "kgate") ? "." : "");
    kg_buf_puts(b, "  clientConfig:\n");
    if (cfg->url) {
        kg_buf_puts(b, "    url: ");
        size_t l = strlen(cfg->url);
        while (l && cfg->url[l - 1] == '/')
            l--;
        char *u = malloc(l + strlen(path) + 1);
        memcpy(u, cfg->url, l);
        strcpy(u + l, path);
        put_quoted(b, u);
        free(u);
        kg_buf_putc(b, '\n');
    } else {
        kg_buf_puts(b, "    service:\n      namespace: ");
        put_quoted(b, cfg->service_namespace);
        kg_buf_puts(b, "\n      name: ");
        put_quoted(b, cfg->service_name);
        kg_buf_printf(b, "\n      port: %d\n      path: %s\n", cfg->service_port ? cfg->service_port : 443, path);
    }
    kg_buf_printf(b, "    caBundle: %s\n", ca_b64);
    put_rules(b, n);
    kg_buf_puts(b, "  namespaceSelector:\n    matchExpressions:\n    - key: kubernetes.io/metadata.name\n"
                   "      operator: NotIn\n      values: [kube-system, kube-node-lease");
    if (strcmp(self_ns, "kube-system") && strcmp(self_ns, "kube-node-lease")) {
        kg_buf_puts(b, ", ");
        put_quoted(b, self_ns);
    }
    kg_buf_puts(b, "]\n");
    kg_buf_printf(b, "  failurePolicy: %s\n", cfg->failure_policy ? cfg->failure_policy : "Fail");
    kg_buf_puts(b, "  matchPolicy: Equivalent\n  sideEffects: None\n");
    kg_buf_printf(b, "  timeoutSeconds: %d\n", cfg->timeout_seconds ? cfg->timeout_seconds : 5);
    kg_buf_puts(b, "  admissionReviewVersions: [v1, v1beta1]\n");
    if (mutating)
        kg_buf_puts(b, "  reinvocationPolicy: IfNeeded\n");
}

bool kg_door_manifest(const kg_door_manifest_config *cfg, kg_buf *out, kg_error *err)
{
    bool svc = cfg->service_name || cfg->service_namespace;
    if (!!cfg->url == svc)
        return kg_err_set(err, KG_EINVAL, "exactly one of --url or --service-namespace/--service-name is required");
    if (svc && (!cfg->service_name || !cfg->service_namespace))
        return kg_err_set(err, KG_EINVAL, "--service-namespace and --service-name must be given together");
    if (cfg->url && strncmp(cfg->url, "https://", 8))
        return kg_err_set(err, KG_EINVAL, "--url %s: the API server calls webhooks over https://", cfg->url);
    if (cfg->service_port < 0 || cfg->service_port > 65535)
        return kg_err_set(err, KG_EINVAL, "--service-port %d: must be between 1 and 65535", cfg->service_port);
    if (cfg->failure_policy && strcmp(cfg->failure_policy, "Fail") && strcmp(cfg->failure_policy, "Ignore"))
        return kg_err_set(err, KG_EINVAL, "--failure-policy \"%s\": supported values: \"Fail\", \"Ignore\"",
                          cfg->failure_policy);
    if (cfg->timeout_seconds < 0 || cfg->timeout_seconds > 30)
        return kg_err_set(err, KG_EINVAL, "--timeout-seconds %d: must be between 1 and 30 seconds",
                          cfg->timeout_seconds);
    if (!cfg->ca_pem || !cfg->ca_pem[0])
        return kg_err_set(err, KG_EINVAL, "no CA bundle: give --ca-file, or --cert-dir holding the door's ca.crt");

    char disable[4096];
    kg_admission_options opts;
    kg_door_admission_options(&cfg->admission, &opts, disable, sizeof disable);
    size_t cap = kg_admission_registry_count(), n = 0;
    int *idx = calloc(cap, sizeof *idx);
    if (!kg_admission_enabled_plugins(&opts, idx, &n, NULL, NULL, err)) {
        free(idx);
        return false;
    }
    needs val = {0}, mut = {0};
    kg_buf names = KG_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        const kg_admission_plugin_info *p = kg_admission_registry_at((size_t)idx[i]);
        if (!p->impl)
            continue;
        bool wild = strcmp(p->name, "PodSecurity") != 0;
        if (p->impl->validate) {
            val.any = true;
            val.wildcard |= wild;
        }
        if (p->impl->admit) {
            mut.any = true;
            mut.wildcard |= wild;
        }
        kg_buf_printf(&names, "%s%s", names.len ? ", " : "", p->name);
    }
    free(idx);

    const char *name = cfg->name ? cfg->name : "kgate";
    const char *self_ns =
        cfg->self_namespace ? cfg->self_namespace : (cfg->service_namespace ? cfg->service_namespace : "kgate-system");
    kg_buf ca = KG_BUF_INIT;
    kg_base64_encode_buf(&ca, cfg->ca_pem, strlen(cfg->ca_pem), 0);
    kg_buf_printf(out, "# kgate webhook: plugins %s\n", names.len ? kg_buf_cstr(&names) : "(none)");
    if (val.any) {
        kg_buf_printf(out,
                      "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n"
                      "metadata:\n  name: %s\nwebhooks:\n",
                      name);
        put_webhook(out, cfg, name, "/validate", kg_buf_cstr(&ca), self_ns, &val, false);
    } else {
        kg_buf_puts(out, "# no enabled plugin has a validating phase: no ValidatingWebhookConfiguration\n");
    }
    if (mut.any) {
        if (val.any)
            kg_buf_puts(out, "---\n");
        kg_buf_printf(out,
                      "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\n"
                      "metadata:\n  name: %s\nwebhooks:\n",
                      name);
        put_webhook(out, cfg, name, "/mutate", kg_buf_cstr(&ca), self_ns, &mut, true);
    } else {
        kg_buf_puts(out, "# no enabled plugin mutates: no MutatingWebhookConfiguration\n");
    }
    kg_buf_free(&ca);
    kg_buf_free(&names);
    return true;
}
