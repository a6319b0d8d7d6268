/* PodSecurity metrics (pod-security-admission metrics/metrics.go), registered in the services' metrics registry when
 * there is one:
 *   pod_security_evaluations_total{decision, policy_level, policy_version, mode, request_operation, resource,
 *                                  subresource}
 *   pod_security_exemptions_total{request_operation, resource, subresource}
 *   pod_security_errors_total{fatal, request_operation, resource, subresource}
 * decision is allow / deny, mode enforce / audit / warn, request_operation create / update, resource pod /
 * namespace / controller; policy_version is "latest" for latest and privileged policies, "future" for versions newer
 * than v1.33, else v1.<minor>. */
#include <stdio.h>
#include <string.h>

#include "admission/plugins/podsecurity/podsecurity.h"

void ps_metrics_init(ps_metrics *m, const kg_admission_services *svc)
{
    static const char *const eval_labels[] = {"decision",          "policy_level", "policy_version", "mode",
                                              "request_operation", "resource",     "subresource",    NULL};
    static const char *const exempt_labels[] = {"request_operation", "resource", "subresource", NULL};
    static const char *const error_labels[] = {"fatal", "request_operation", "resource", "subresource", NULL};
    memset(m, 0, sizeof *m);
    kg_metrics_registry *r = svc && svc->metrics ? svc->metrics->registry : NULL;
    if (!r)
        return;
    m->evaluations = kg_metrics_counter(
        r, "pod_security_evaluations_total",
        "Number of policy evaluations that occurred, not counting ignored or exempt requests.", eval_labels);
    m->exemptions =
        kg_metrics_counter(r, "pod_security_exemptions_total",
                           "Number of exempt requests, not counting ignored or out of scope requests.", exempt_labels);
    m->errors = kg_metrics_counter(
        r, "pod_security_errors_total",
        "Number of errors preventing normal evaluation. Non-fatal errors may result in the latest restricted profile "
        "being used for evaluation.",
        error_labels);
}

static const char *operation(const kg_admission_attributes *a)
{
    return a->operation == KG_ADMISSION_CREATE ? "create" : a->operation == KG_ADMISSION_UPDATE ? "update" : "";
}

static const char *resource(const kg_admission_attributes *a)
{
    const char *g = a->resource.group ? a->resource.group : "", *r = a->resource.resource ? a->resource.resource : "";
    if (!g[0] && strcmp(r, "pods") == 0)
        return "pod";
    if (!g[0] && strcmp(r, "namespaces") == 0)
        return "namespace";
    return "controller";
}

void ps_record_evaluation(const ps_metrics *m, bool allow, ps_lv lv, const char *mode, const kg_admission_attributes *a)
{
    if (!m->evaluations)
        return;
    char version[32];
    if (lv.version.latest || lv.level == PS_PRIVILEGED)
        snprintf(version, sizeof version, "latest");
    else if (lv.version.minor > PS_MAX_MINOR)
        snprintf(version, sizeof version, "future");
    else
        snprintf(version, sizeof version, "v1.%lld", (long long)lv.version.minor);
    const char *labels[] = {
        allow ? "allow" : "deny", ps_level_name(lv.level), version, mode, operation(a), resource(a), a->subresource};
    kg_metric_inc(m->evaluations, labels);
}

void ps_record_exemption(const ps_metrics *m, const kg_admission_attributes *a)
{
    const char *labels[] = {operation(a), resource(a), a->subresource};
    kg_metric_inc(m->exemptions, labels);
}

void ps_record_error(const ps_metrics *m, bool fatal, const kg_admission_attributes *a)
{
    const char *labels[] = {fatal ? "true" : "false", operation(a), resource(a), a->subresource};
    kg_metric_inc(m->errors, labels);
}
