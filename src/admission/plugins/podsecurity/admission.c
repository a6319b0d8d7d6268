/* The PodSecurity admission plugin (plugin/pkg/admission/security/podsecurity and pod-security-admission
 * admission/admission.go), validating, CREATE and UPDATE, default-on in v1.33.
 *
 * Dispatch on the request resource:
 *   namespaces             label validation, and warnings for existing pods on a stricter enforce level (namespace.c)
 *   pods                   enforce (403), audit (annotation pod-security.kubernetes.io/audit-violations) and warn
 *   pod controllers        deployments, replicasets, statefulsets, daemonsets (apps), jobs, cronjobs (batch),
 *                          replicationcontrollers, podtemplates (core): their pod template, audit and warn only
 * Exemptions (usernames, runtimeClasses, namespaces) come from the PodSecurityConfiguration (config.c); exempt
 * requests are allowed with the audit annotation pod-security.kubernetes.io/exempt.
 *
 * Messages: `pods "x" is forbidden: violates PodSecurity "restricted:latest": <detail>` and the warning / audit
 * text `would violate PodSecurity "<level:version>": <detail>`. Evaluation allocates only in the request arena;
 * the check lists are built once in init. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/podsecurity/podsecurity.h"
#include "admission/registry.h"

void ps_annotate(const kg_admission_attributes *a, const char *key, const char *value)
{
    /* Keys are fixed and valid and values are written once per key, so this cannot fail. */
    KG_ERROR_DECL(e);
    kg_admission_add_annotation(a, key, value, &e);
}

static void destroy(void *state)
{
    ps_state *st = state;
    if (st) {
        kg_arena_free(&st->arena);
        free(st);
    }
}

static bool init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    ps_state *st = calloc(1, sizeof *st);
    if (!st)
        return kg_err_set(err, KG_EINTERNAL, "out of memory");
    kg_arena_init(&st->arena, 0);
    size_t n;
    const ps_check *checks = ps_default_checks(&n);
    if (!ps_evaluator_init(&st->ev, checks, n, err)) {
        kg_err_prefix(err, "could not create PodSecurityRegistry");
        destroy(st);
        return false;
    }
    if (!ps_config_parse(&st->arena, config, &st->config, err)) {
        destroy(st);
        return false;
    }
    ps_metrics_init(&st->metrics, svc);
    st->ns_pod_check_timeout_ns = 1000000000LL;
    st->ns_max_pods_to_check = 3000;
    *state = st;
    return true;
}

/* The namespace object: cache, then a live read when the cache does not have it. NULL on failure with err set. */
static const kg_json *get_namespace(const kg_admission_services *svc, kg_arena *ar, const char *ns, kg_error *err)
{
    const kg_json *n = kg_admission_view_obj(svc, ar, "namespaces", "", ns, err);
    if (n || err->code != KG_ENOTFOUND)
        return n;
    kg_err_clear(err);
    return kg_admission_get(svc, ar, "namespaces", "", ns, KG_ADMISSION_GET_LIVE, err);
}

/* The policy of the request's namespace. Returns false when the lookup failed (*lookup_err = its message). */
static bool namespace_policy(const ps_state *st, const kg_admission_attributes *a, const kg_admission_services *svc,
                             ps_policy *p, kg_field_errors *errs, const char **lookup_err)
{
    KG_ERROR_DECL(e);
    const kg_json *ns = get_namespace(svc, a->arena, a->ns, &e);
    if (!ns) {
        *lookup_err = kg_arena_strdup(a->arena, e.msg[0] ? e.msg : "not found");
        return false;
    }
    *p = ps_policy_from_labels(a->arena, kg_json_path(ns, "metadata.labels"), &st->config.defaults, errs);
    return true;
}

/* One cached evaluation per distinct level/version within a request. */
typedef struct eval_cache {
    ps_lv lv[3];
    ps_agg res[3];
    size_t n;
} eval_cache;

static const ps_agg *evaluate(const ps_state *st, kg_arena *ar, eval_cache *c, ps_lv lv, const ps_pod *pod)
{
    int minor = ps_effective_minor(lv.version);
    for (size_t i = 0; i < c->n; i++)
        if (c->lv[i].level == lv.level && ps_effective_minor(c->lv[i].version) == minor)
            return &c->res[i];
    c->lv[c->n] = lv;
    ps_evaluate(&st->ev, ar, lv, pod, &c->res[c->n]);
    return &c->res[c->n++];
}

/* The failing checks of r, one trace event each (admission/trace.h; only with a tracer). */
static void trace_checks(const kg_admission_attributes *a, const ps_agg *r, const char *lv, const char *mode,
                         kg_trace_verdict verdict)
{
    if (!a->tracer)
        return;
    for (size_t i = 0; i < r->n; i++) {
        kg_trace_event ev = {.depth = 1,
                             .phase = "validating",
                             .kind = "check",
                             .name = kg_arena_sprintf(a->arena, "%s %s", mode, lv),
                             .verdict = verdict,
                             .message = r->details[i][0]
                                            ? kg_arena_sprintf(a->arena, "%s (%s)", r->reasons[i], r->details[i])
                                            : r->reasons[i]};
        kg_admission_trace(a, &ev);
    }
}

/* EvaluatePod: enforce (pods only), audit and warn over one pod or template. */
static kg_status *evaluate_pod(const ps_state *st, const kg_admission_attributes *a, const ps_policy *p,
                               const kg_field_errors *errs, const kg_json *metadata, const kg_json *spec, bool enforce)
{
    kg_arena *ar = a->arena;
    const char *rc = ps_str(spec, "runtimeClassName");
    if (ps_exempt_runtime_class(&st->config, rc)) {
        ps_record_exemption(&st->metrics, a);
        ps_annotate(a, PS_ANN_PREFIX "exempt", "runtimeClass");
        return NULL;
    }
    if (errs->len) {
        ps_record_error(&st->metrics, false, a);
        ps_annotate(a, PS_ANN_PREFIX "error",
                    kg_arena_sprintf(ar, "Failed to parse policy: %s", kg_field_errors_aggregate(ar, errs)));
    }
    ps_pod pod;
    ps_pod_view(ar, metadata, spec, &pod);
    eval_cache cache = {0};
    kg_status *deny = NULL;
    char lvbuf[PS_LV_MAX];
    if (enforce) {
        ps_annotate(a, PS_ANN_PREFIX "enforce-policy", ps_lv_format(lvbuf, p->enforce));
        const ps_agg *r = evaluate(st, ar, &cache, p->enforce, &pod);
        ps_record_evaluation(&st->metrics, r->allowed, p->enforce, "enforce", a);
        if (!r->allowed) {
            deny = kg_status_forbidden(ar, KG_GR(a->resource.group, a->resource.resource), a->name,
                                       kg_arena_sprintf(ar, "violates PodSecurity \"%s\": %s",
                                                        ps_lv_format(lvbuf, p->enforce), ps_forbidden_detail(ar, r)));
            trace_checks(a, r, lvbuf, "enforce", KG_TRACE_DENIED);
        }
    }
    const ps_agg *r = evaluate(st, ar, &cache, p->audit, &pod);
    if (!r->allowed) {
        ps_record_evaluation(&st->metrics, false, p->audit, "audit", a);
        ps_annotate(a, PS_ANN_PREFIX "audit-violations",
                    kg_arena_sprintf(ar, "would violate PodSecurity \"%s\": %s", ps_lv_format(lvbuf, p->audit),
                                     ps_forbidden_detail(ar, r)));
    }
    if (!deny) {
        r = evaluate(st, ar, &cache, p->warn, &pod);
        if (!r->allowed) {
            ps_record_evaluation(&st->metrics, false, p->warn, "warn", a);
            kg_admission_warn(a, kg_arena_sprintf(ar, "would violate PodSecurity \"%s\": %s",
                                                  ps_lv_format(lvbuf, p->warn), ps_forbidden_detail(ar, r)));
            trace_checks(a, r, lvbuf, "warn", KG_TRACE_WARNED);
        }
    }
    return deny;
}

/* Subresources of pods that are never evaluated. */
static bool ignored_pod_subresource(const char *s)
{
    static const char *const ignored[] = {"exec", "attach",      "binding", "eviction",
                                          "log",  "portforward", "proxy",   "status"};
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        if (strcmp(s, ignored[i]) == 0)
            return true;
    return false;
}

static size_t arr_len(const kg_json *spec, const char *key)
{
    const kg_json *l = ps_arr(spec, key);
    return l ? l->len : 0;
}

/* a container's image, and its seccomp container annotation */
static bool container_changed(const kg_json *c, const kg_json *oc, const kg_json *anns, const kg_json *oanns)
{
    const char *i = ps_str(c, "image"), *oi = ps_str(oc, "image");
    if (strcmp(i ? i : "", oi ? oi : "") != 0)
        return true;
    const char *name = ps_str(c, "name");
    char key[320];
    if (strlen(name ? name : "") > 250)
        return true; /* not a valid container name: evaluate */
    snprintf(key, sizeof key, "container.seccomp.security.alpha.kubernetes.io/%s", name ? name : "");
    const char *v = ps_str(anns, key), *ov = ps_str(oanns, key);
    return strcmp(v ? v : "", ov ? ov : "") != 0;
}

/* isSignificantPodUpdate: only image changes (and seccomp container annotations), container count changes and new
 * ephemeral containers are re-evaluated. */
static bool significant_update(const kg_json *pod, const kg_json *old)
{
    const kg_json *spec = ps_obj(pod, "spec"), *ospec = ps_obj(old, "spec");
    const kg_json *anns = ps_obj(ps_obj(pod, "metadata"), "annotations");
    const kg_json *oanns = ps_obj(ps_obj(old, "metadata"), "annotations");
    static const char *const lists[] = {"containers", "initContainers"};
    for (int l = 0; l < 2; l++)
        if (arr_len(spec, lists[l]) != arr_len(ospec, lists[l]))
            return true;
    for (int l = 0; l < 2; l++) {
        const kg_json *cs = ps_arr(spec, lists[l]), *ocs = ps_arr(ospec, lists[l]);
        for (size_t i = 0; cs && i < cs->len; i++)
            if (container_changed(kg_json_at(cs, i), kg_json_at(ocs, i), anns, oanns))
                return true;
    }
    const kg_json *ecs = ps_arr(spec, "ephemeralContainers"), *oecs = ps_arr(ospec, "ephemeralContainers");
    for (size_t i = 0; ecs && i < ecs->len; i++) {
        const char *name = ps_str(kg_json_at(ecs, i), "name");
        const kg_json *oc = NULL;
        for (size_t j = 0; oecs && j < oecs->len && !oc; j++) {
            const char *on = ps_str(kg_json_at(oecs, j), "name");
            if (strcmp(on ? on : "", name ? name : "") == 0)
                oc = kg_json_at(oecs, j);
        }
        if (!oc || container_changed(kg_json_at(ecs, i), oc, anns, oanns))
            return true;
    }
    return false;
}

/* ValidatePod */
static kg_status *validate_pod(const ps_state *st, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    kg_arena *ar = a->arena;
    if (ignored_pod_subresource(a->subresource))
        return NULL;
    if (ps_exempt_namespace(&st->config, a->ns)) {
        ps_record_exemption(&st->metrics, a);
        ps_annotate(a, PS_ANN_PREFIX "exempt", "namespace");
        return NULL;
    }
    if (ps_exempt_user(&st->config, a->user.name)) {
        ps_record_exemption(&st->metrics, a);
        ps_annotate(a, PS_ANN_PREFIX "exempt", "user");
        return NULL;
    }
    ps_policy p;
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    const char *lookup_err = NULL;
    if (!namespace_policy(st, a, svc, &p, &errs, &lookup_err)) {
        ps_record_error(&st->metrics, true, a);
        kg_status *s =
            kg_status_internal(ar, kg_arena_sprintf(ar, "failed to lookup namespace %s", kg_meta_quote_a(ar, a->ns)));
        ps_annotate(a, PS_ANN_PREFIX "error", kg_arena_sprintf(ar, "%s: %s", s->message, lookup_err));
        return s;
    }
    if (!errs.len && ps_policy_fully_privileged(&p)) {
        ps_record_evaluation(&st->metrics, true, p.enforce, "enforce", a);
        ps_annotate(a, PS_ANN_PREFIX "enforce-policy", "privileged:latest");
        return NULL;
    }
    if (!kg_json_is(a->object, KG_JSON_OBJECT)) {
        ps_record_error(&st->metrics, true, a);
        ps_annotate(a, PS_ANN_PREFIX "error", "failed to decode object");
        return kg_status_bad_request(ar, "failed to decode object");
    }
    if (a->operation == KG_ADMISSION_UPDATE) {
        if (!kg_json_is(a->old_object, KG_JSON_OBJECT)) {
            ps_record_error(&st->metrics, true, a);
            ps_annotate(a, PS_ANN_PREFIX "error", "failed to decode old object");
            return kg_status_bad_request(ar, "failed to decode old object");
        }
        if (!significant_update(a->object, a->old_object))
            return NULL;
    }
    return evaluate_pod(st, a, &p, &errs, ps_obj(a->object, "metadata"), ps_obj(a->object, "spec"), true);
}

/* DefaultPodSpecExtractor: the resources with a pod template, and where the template is. */
static bool pod_template(const kg_admission_attributes *a, const kg_json **tmpl)
{
    const char *g = a->resource.group ? a->resource.group : "", *r = a->resource.resource ? a->resource.resource : "";
    const kg_json *spec = ps_obj(a->object, "spec");
    if (g[0] == 0 && strcmp(r, "replicationcontrollers") == 0) {
        *tmpl = ps_obj(spec, "template");
        return true;
    }
    if (g[0] == 0 && strcmp(r, "podtemplates") == 0) {
        *tmpl = ps_obj(a->object, "template");
        return true;
    }
    if ((strcmp(g, "apps") == 0 && (strcmp(r, "replicasets") == 0 || strcmp(r, "deployments") == 0 ||
                                    strcmp(r, "statefulsets") == 0 || strcmp(r, "daemonsets") == 0)) ||
        (strcmp(g, "batch") == 0 && strcmp(r, "jobs") == 0)) {
        *tmpl = ps_obj(spec, "template");
        return true;
    }
    if (strcmp(g, "batch") == 0 && strcmp(r, "cronjobs") == 0) {
        *tmpl = ps_obj(ps_obj(ps_obj(spec, "jobTemplate"), "spec"), "template");
        return true;
    }
    return false;
}

/* ValidatePodController: audit and warn only, never denies. */
static kg_status *validate_controller(const ps_state *st, const kg_admission_attributes *a,
                                      const kg_admission_services *svc, const kg_json *tmpl)
{
    kg_arena *ar = a->arena;
    if (a->subresource[0])
        return NULL;
    if (ps_exempt_namespace(&st->config, a->ns)) {
        ps_record_exemption(&st->metrics, a);
        ps_annotate(a, PS_ANN_PREFIX "exempt", "namespace");
        return NULL;
    }
    if (ps_exempt_user(&st->config, a->user.name)) {
        ps_record_exemption(&st->metrics, a);
        ps_annotate(a, PS_ANN_PREFIX "exempt", "user");
        return NULL;
    }
    ps_policy p;
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    const char *lookup_err = NULL;
    if (!namespace_policy(st, a, svc, &p, &errs, &lookup_err)) {
        ps_record_error(&st->metrics, true, a);
        ps_annotate(a, PS_ANN_PREFIX "error",
                    kg_arena_sprintf(ar, "failed to lookup namespace %s: %s", kg_meta_quote_a(ar, a->ns), lookup_err));
        return NULL;
    }
    if (!errs.len && p.warn.level == PS_PRIVILEGED && p.audit.level == PS_PRIVILEGED)
        return NULL;
    if (!kg_json_is(a->object, KG_JSON_OBJECT)) {
        ps_record_error(&st->metrics, true, a);
        ps_annotate(a, PS_ANN_PREFIX "error", "failed to decode object: not an object");
        return NULL;
    }
    if (!tmpl)
        return NULL;
    evaluate_pod(st, a, &p, &errs, ps_obj(tmpl, "metadata"), ps_obj(tmpl, "spec"), false);
    return NULL;
}

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    const ps_state *st = state;
    const char *g = a->resource.group ? a->resource.group : "", *r = a->resource.resource ? a->resource.resource : "";
    if (g[0] == 0 && strcmp(r, "namespaces") == 0)
        return ps_validate_namespace(st, a, svc);
    if (g[0] == 0 && strcmp(r, "pods") == 0)
        return validate_pod(st, a, svc);
    const kg_json *tmpl = NULL;
    if (pod_template(a, &tmpl))
        return validate_controller(st, a, svc, tmpl);
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_pod_security = {
    .name = "PodSecurity",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE,
    .init = init,
    .validate = validate,
    .destroy = destroy,
};
