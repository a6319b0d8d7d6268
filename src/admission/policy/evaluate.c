/* Evaluating a request against compiled ValidatingAdmissionPolicies (upstream validating/dispatcher.go,
 * validator.go, generic/policy_dispatcher.go CollectParams):
 *
 *   for each policy (by name) whose matchConstraints match:
 *     a policy that cannot run                → config error (failed to configure policy: ...)
 *     for each of its bindings whose matchResources match:
 *       params (none, by name, by selector)   → config errors (failed to configure binding: ...)
 *       for each param: matchConditions, then validations (one 10,000,000 budget, variables lazily charged to it),
 *                       messageExpressions (the rest of it), auditAnnotations (a fresh 10,000,000)
 *       each failed validation is applied through the binding's validationActions: Deny (collected), Warn (a
 *       warning), Audit (the validation_failure audit annotation)
 *     auditAnnotations of the policy are published as <policy>/<key> (distinct values joined with ", ")
 *   the first collected denial is the answer: `<gr> "<name>" is forbidden: ValidatingAdmissionPolicy '<p>' with
 *   binding '<b>' denied request: <message>`, code from its reason (Invalid 422 by default).
 *
 * Config errors and evaluation errors obey the policy's failurePolicy (Ignore drops them); config errors deny
 * regardless of validationActions, evaluation errors go through them. */
#include <string.h>

#include "admission/policy/policy.h"
#include "admission/policy/policy_internal.h"
#include "base/buf.h"
#include "base/log.h"
#include "cel/cel_json.h"

#define OUT_OF_BUDGET "validation failed due to running out of cost budget, no further validation rules will be run"

typedef struct denial {
    const char *policy, *binding; /* binding NULL: a policy-level config error */
    const char *message;
    const char *reason; /* "" → Invalid */
} denial;

/* One policy's auditAnnotations collected over its bindings and params. */
typedef struct audit_values {
    const char *key;
    const char **values;
    size_t n, cap;
} audit_values;

/* What one (policy, binding, param) evaluation decided, kept only when explaining (a tracer, or -v=4). */
typedef struct btrace {
    bool on, no_match, denied, warned;
    const char *message;
    const kg_acel_expr *expr; /* the first failed validation's expression */
} btrace;

typedef struct dctx {
    kg_admission_attributes *at;
    const kg_admission_services *svc;
    kg_arena *a;
    bool denied;
    denial first;
    bool ns_loaded;
    const kg_json *ns_obj;
    kg_status *fatal; /* the namespace could not be read */
    bool own_ready;
    kg_acel_input own; /* the input for the request's own resource (most policies) */
    audit_values *audits;
    size_t naudits;
    const kg_vap_metrics *metrics; /* NULL: not recorded */
    double eval_start;             /* when the current (policy, binding, param) evaluation began */
    btrace tr;
} dctx;

bool kg_vap_metrics_register(kg_metrics_registry *r, kg_vap_metrics *out)
{
    static const char *const labels[] = {"policy", "policy_binding", "error_type", "enforcement_action", NULL};
    static const double buckets[] = {0.0000005, 0.001, 0.01, 0.1, 1.0};
    out->check_total = kg_metrics_find(r, "apiserver_validating_admission_policy_check_total");
    if (!out->check_total)
        out->check_total = kg_metrics_counter(r, "apiserver_validating_admission_policy_check_total",
                                              "Validation admission policy check total, labeled by policy and further "
                                              "identified by binding and enforcement action taken.",
                                              labels);
    out->check_duration = kg_metrics_find(r, "apiserver_validating_admission_policy_check_duration_seconds");
    if (!out->check_duration)
        out->check_duration = kg_metrics_histogram(
            r, "apiserver_validating_admission_policy_check_duration_seconds",
            "Validation admission latency for individual validation expressions in seconds, labeled by policy and "
            "further including binding and enforcement action taken.",
            labels, buckets, sizeof buckets / sizeof buckets[0]);
    return out->check_total && out->check_duration;
}

/* upstream ErrorType(decision) for a decision that is not an admit */
static const char *error_type(const char *msg)
{
    if (!strncmp(msg, "compilation", 11))
        return "compile_error";
    if (!strncmp(msg, "validation failed due to running out of cost budget", 51))
        return "out_of_budget";
    return "invalid_error";
}

static void observe(dctx *d, const kg_vap_policy *p, const kg_vap_binding *b, const char *msg, const char *action)
{
    if (!d->metrics || !d->metrics->check_total)
        return;
    const char *labels[] = {p->name, b->name, error_type(msg), action};
    kg_metric_inc(d->metrics->check_total, labels);
    if (d->metrics->check_duration)
        kg_metric_observe(d->metrics->check_duration, labels, kg_metrics_now() - d->eval_start);
}

bool kg_vap_request_excluded(const kg_admission_attributes *at)
{
    static const char *const policy_res[] = {"validatingadmissionpolicies", "validatingadmissionpolicybindings",
                                             "mutatingadmissionpolicies", "mutatingadmissionpolicybindings"};
    const char *g = at->resource.group ? at->resource.group : "";
    const char *r = at->resource.resource ? at->resource.resource : "";
    if (!strcmp(g, "admissionregistration.k8s.io")) {
        for (size_t i = 0; i < 4; i++)
            if (!strcmp(r, policy_res[i]))
                return true;
    }
    if (!strcmp(g, "authentication.k8s.io"))
        return !strcmp(r, "tokenreviews") || !strcmp(r, "selfsubjectreviews");
    if (!strcmp(g, "authorization.k8s.io"))
        return !strcmp(r, "subjectaccessreviews") || !strcmp(r, "selfsubjectaccessreviews") ||
               !strcmp(r, "localsubjectaccessreviews") || !strcmp(r, "selfsubjectrulesreviews");
    return false;
}

static void deny(dctx *d, const char *policy, const char *binding, const char *message, const char *reason)
{
    if (d->tr.on && !d->tr.denied) {
        d->tr.denied = true;
        d->tr.message = message;
    }
    if (d->denied)
        return;
    d->denied = true;
    d->first = (denial){policy, binding, message, reason ? reason : ""};
}

static void config_error(dctx *d, const kg_vap_policy *p, const kg_vap_binding *b, const char *err)
{
    if (p->fail_open)
        return;
    const char *msg = kg_arena_sprintf(d->a, "failed to configure %s: %s", b ? "binding" : "policy", err);
    deny(d, p->name, b ? b->name : NULL, msg, "");
    kg_trace_event ev = {.depth = 1,
                         .phase = "validating",
                         .kind = "ValidatingAdmissionPolicy",
                         .name = p->name,
                         .binding = b ? b->name : NULL,
                         .verdict = KG_TRACE_DENIED,
                         .message = msg};
    kg_admission_trace(d->at, &ev);
}

/* A policy or binding that does not match the request, for the trace. */
static void trace_skip(dctx *d, const kg_vap_policy *p, const kg_vap_binding *b)
{
    if (!d->at->tracer)
        return;
    kg_trace_event ev = {.depth = 1,
                         .phase = "validating",
                         .kind = "ValidatingAdmissionPolicy",
                         .name = p->name,
                         .binding = b ? b->name : NULL,
                         .verdict = KG_TRACE_SKIPPED};
    kg_admission_trace(d->at, &ev);
}

/* namespaceObject: the request namespace, except for Namespace objects themselves (upstream special case). */
static const kg_json *namespace_object(dctx *d)
{
    if (d->ns_loaded)
        return d->ns_obj;
    d->ns_loaded = true;
    const char *ns = d->at->ns;
    if (!ns || !*ns || kg_admission_is_namespace_kind(d->at))
        return NULL;
    KG_ERROR_DECL(err);
    d->ns_obj = kg_admission_view_obj(d->svc, d->a, "namespaces", "", ns, &err);
    if (!d->ns_obj)
        d->fatal = err.code == KG_ENOTFOUND ? kg_status_not_found(d->a, (kg_gr){"", "namespaces"}, ns)
                                            : kg_status_internal(d->a, err.msg);
    return d->ns_obj;
}

static void input_for(dctx *d, const kg_match_invocation *inv, kg_acel_input *out)
{
    bool own = !inv->resource.resource || (!strcmp(inv->resource.resource, d->at->resource.resource) &&
                                           !strcmp(inv->resource.group, d->at->resource.group) &&
                                           !strcmp(inv->resource.version, d->at->resource.version));
    if (own && d->own_ready) {
        *out = d->own;
        return;
    }
    const kg_json *ns = namespace_object(d);
    kg_acel_input_init(out, d->at, own ? NULL : &inv->resource, own ? NULL : &inv->kind, ns, d->svc->authorizer);
    if (own) {
        d->own = *out;
        d->own_ready = true;
    }
}

static const char *eval_error_text(kg_arena *a, const kg_acel_expr *e, cel_eval_status s, const cel_value *v)
{
    if (!e->prog)
        return kg_arena_sprintf(a, "compilation error: %s", e->error ? e->error : "");
    const char *msg =
        s == CEL_EVAL_COST_EXCEEDED ? "operation cancelled: actual cost limit exceeded" : cel_error_message(v);
    return kg_arena_sprintf(a, "expression '%s' resulted in error: %s", e->source, msg);
}

static void add_audit_value(dctx *d, const char *key, const char *value)
{
    audit_values *av = NULL;
    for (size_t i = 0; i < d->naudits; i++)
        if (!strcmp(d->audits[i].key, key))
            av = &d->audits[i];
    if (!av) {
        audit_values *n = kg_arena_alloc(d->a, (d->naudits + 1) * sizeof *n);
        if (d->naudits)
            memcpy(n, d->audits, d->naudits * sizeof *n);
        d->audits = n;
        av = &d->audits[d->naudits++];
        memset(av, 0, sizeof *av);
        av->key = key;
    }
    for (size_t i = 0; i < av->n; i++)
        if (!strcmp(av->values[i], value))
            return;
    if (av->n == av->cap) {
        size_t cap = av->cap ? av->cap * 2 : 2;
        const char **v = kg_arena_alloc(d->a, cap * sizeof *v);
        if (av->n)
            memcpy(v, av->values, av->n * sizeof *v);
        av->values = v;
        av->cap = cap;
    }
    av->values[av->n++] = value;
}

static void publish_audits(dctx *d, const kg_vap_policy *p)
{
    for (size_t i = 0; i < d->naudits; i++) {
        const audit_values *av = &d->audits[i];
        size_t len = 0;
        for (size_t j = 0; j < av->n; j++)
            len += strlen(av->values[j]) + 2;
        char *v = kg_arena_alloc(d->a, len + 1), *q = v;
        for (size_t j = 0; j < av->n; j++) {
            if (j) {
                memcpy(q, ", ", 2);
                q += 2;
            }
            size_t n = strlen(av->values[j]);
            memcpy(q, av->values[j], n);
            q += n;
        }
        *q = 0;
        KG_ERROR_DECL(err);
        kg_admission_add_annotation(d->at, kg_arena_sprintf(d->a, "%s/%s", p->name, av->key), v, &err);
    }
    d->audits = NULL;
    d->naudits = 0;
}

/* publishValidationFailureAnnotation: the first failure wins the key (AddAnnotation keeps the first value). */
static void audit_failure(dctx *d, const kg_vap_policy *p, const kg_vap_binding *b, size_t index, const char *msg)
{
    kg_arena *a = d->a;
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "message", kg_json_new_str(a, msg));
    kg_json_set(a, o, "policy", kg_json_new_str(a, b->policy_name));
    kg_json_set(a, o, "binding", kg_json_new_str(a, b->name));
    kg_json_set(a, o, "expressionIndex", kg_json_new_int(a, (int64_t)index));
    KG_ERROR_DECL(err);
    kg_json *acts = kg_json_parse(a, b->actions_json, strlen(b->actions_json), &err);
    kg_json_set(a, o, "validationActions", acts ? acts : kg_json_new_array(a));
    kg_json *arr = kg_json_new_array(a);
    kg_json_array_append(a, arr, o);
    kg_admission_add_annotation(d->at, KG_VAP_VALIDATION_FAILURE_KEY, kg_json_to_string(a, arr, 0, NULL), &err);
}

/* A deny decision (a failed validation, or an evaluation error under Fail) through the binding's actions. */
static void decide(dctx *d, const kg_vap_policy *p, const kg_vap_binding *b, size_t index, const char *msg,
                   const char *reason)
{
    if (b->actions & KG_VAP_DENY) {
        deny(d, p->name, b->name, msg, reason);
        observe(d, p, b, msg, "deny");
    }
    if (d->tr.on && (b->actions & (KG_VAP_AUDIT | KG_VAP_WARN))) {
        d->tr.warned = true;
        d->tr.message = d->tr.message ? d->tr.message : msg;
    }
    if (b->actions & KG_VAP_AUDIT) {
        audit_failure(d, p, b, index, msg);
        observe(d, p, b, msg, "audit");
    }
    if (b->actions & KG_VAP_WARN) {
        observe(d, p, b, msg, "warn");
        kg_admission_warn(d->at, kg_arena_sprintf(d->a,
                                                  "Validation failed for ValidatingAdmissionPolicy '%s' with binding "
                                                  "'%s': %s",
                                                  p->name, b->name, msg));
    }
}

/* An evaluation error: a deny decision under Fail, an admit (recorded) under Ignore. */
static void decide_error(dctx *d, const kg_vap_policy *p, const kg_vap_binding *b, size_t index, const char *msg)
{
    if (p->fail_open)
        observe(d, p, b, msg, "allow");
    else
        decide(d, p, b, index, msg, "");
}

/* The message of a failed validation: its messageExpression's trimmed result when that is a string of at most
 * 5 KiB without a line break, else the message, else `failed expression: <expression>` (validator.go). */
static const char *failure_message(dctx *d, const kg_vap_validation *v, const cel_value *msg)
{
    if (msg && msg->kind == CEL_STRING) {
        const char *t = kg_vap_trim_n(d->a, msg->u.s, msg->n);
        size_t n = strlen(t);
        if (n && n <= KG_ACEL_MAX_MESSAGE_BYTES && !memchr(t, '\n', n))
            return t;
    }
    if (*v->message)
        return v->message;
    return kg_arena_sprintf(d->a, "failed expression: %s", kg_vap_trim(d->a, v->expr.source));
}

static void evaluate_binding(dctx *d, const kg_vap_policy *p, const kg_vap_binding *b, const kg_acel_input *base,
                             const kg_json *param)
{
    if (d->metrics)
        d->eval_start = kg_metrics_now();
    kg_acel_input in = *base;
    in.values[KG_ACEL_VAR_PARAMS] = cel_json_to_value(param);
    kg_acel_eval_state vs;
    kg_acel_eval_state_init(&vs, p->has_vars ? &p->vars : NULL, &in, d->a);

    const char *err = NULL;
    kg_mc_result mr = KG_MC_MATCH;
    if (p->conditions.n) { /* matchConditions see no namespaceObject (upstream passes nil) */
        kg_acel_input cin = in;
        cin.values[KG_ACEL_VAR_NAMESPACE] = cel_null();
        mr = kg_match_conditions_eval(&p->conditions, &cin, d->a, &err, NULL);
    }
    if (mr == KG_MC_NO_MATCH) {
        d->tr.no_match = true;
        return;
    }
    if (mr == KG_MC_ERROR) {
        decide_error(d, p, b, 0, err);
        return;
    }

    /* validations share one budget; variables are charged to it when first used */
    uint64_t remaining = CEL_RUNTIME_BUDGET;
    size_t nv = p->nvalidations;
    cel_value *res = nv ? kg_arena_alloc(d->a, nv * sizeof *res) : NULL;
    cel_eval_status *st = nv ? kg_arena_alloc(d->a, nv * sizeof *st) : NULL;
    for (size_t i = 0; i < nv; i++) {
        uint64_t cost = 0;
        st[i] = kg_acel_eval(&p->validations[i].expr, &in, d->a, CEL_PER_CALL_LIMIT, &res[i], &cost);
        cost += kg_acel_take_cost(&vs);
        if (kg_log_verbosity >= 4 && !(st[i] == CEL_EVAL_OK && res[i].kind == CEL_BOOL && res[i].u.b))
            KG_V(4, "ValidatingAdmissionPolicy '%s' binding '%s' %s %s/%s: validations[%zu] `%s` = %s (cost %llu)",
                 p->name, b->name, kg_admission_op_name(d->at->operation), d->at->resource.resource, d->at->name, i,
                 p->validations[i].expr.source,
                 st[i] == CEL_EVAL_OK ? cel_value_debug(d->a, &res[i])
                                      : eval_error_text(d->a, &p->validations[i].expr, st[i], &res[i]),
                 (unsigned long long)cost);
        if (cost > remaining) {
            decide_error(d, p, b, 0, OUT_OF_BUDGET);
            return;
        }
        remaining -= cost;
    }
    /* every messageExpression runs with what is left; running out makes every decided validation an error */
    cel_value *msgs = nv ? kg_arena_alloc(d->a, nv * sizeof *msgs) : NULL;
    bool msg_out_of_budget = false;
    for (size_t i = 0; i < nv; i++) {
        const kg_acel_expr *me = &p->validations[i].message_expr;
        msgs[i] = cel_null();
        if (!me->prog || msg_out_of_budget)
            continue;
        uint64_t cost = 0;
        cel_value m;
        cel_eval_status s = kg_acel_eval(me, &in, d->a, CEL_PER_CALL_LIMIT, &m, &cost);
        cost += kg_acel_take_cost(&vs);
        if (cost > remaining) {
            msg_out_of_budget = true;
            continue;
        }
        remaining -= cost;
        if (s == CEL_EVAL_OK)
            msgs[i] = m;
    }
    for (size_t i = 0; i < nv; i++) {
        const kg_vap_validation *v = &p->validations[i];
        if (d->tr.on && !d->tr.expr && !(st[i] == CEL_EVAL_OK && res[i].kind == CEL_BOOL && res[i].u.b))
            d->tr.expr = &v->expr;
        if (st[i] != CEL_EVAL_OK)
            decide_error(d, p, b, i, eval_error_text(d->a, &v->expr, st[i], &res[i]));
        else if (msg_out_of_budget)
            decide_error(d, p, b, i, "failed messageExpression: " OUT_OF_BUDGET);
        else if (!(res[i].kind == CEL_BOOL && res[i].u.b))
            decide(d, p, b, i, failure_message(d, v, &msgs[i]), v->reason);
    }

    /* auditAnnotations: a fresh budget */
    remaining = CEL_RUNTIME_BUDGET;
    for (size_t i = 0; i < p->naudits; i++) {
        const kg_vap_audit_annotation *aa = &p->audits[i];
        cel_value v;
        uint64_t cost = 0;
        cel_eval_status s = kg_acel_eval(&aa->expr, &in, d->a, CEL_PER_CALL_LIMIT, &v, &cost);
        cost += kg_acel_take_cost(&vs);
        if (cost > remaining) {
            decide_error(d, p, b, 0, OUT_OF_BUDGET);
            return;
        }
        remaining -= cost;
        if (s != CEL_EVAL_OK) {
            const char *msg = eval_error_text(d->a, &aa->expr, s, &v);
            if (!p->fail_open) {
                deny(d, p->name, b->name, msg, "");
                observe(d, p, b, msg, "deny");
            }
        } else if (v.kind == CEL_STRING) {
            const char *t = kg_vap_trim_n(d->a, v.u.s, v.n);
            size_t n = strlen(t);
            if (n > KG_VAP_MAX_AUDIT_VALUE_LENGTH)
                t = kg_arena_strndup(d->a, t, KG_VAP_MAX_AUDIT_VALUE_LENGTH);
            if (n)
                add_audit_value(d, aa->key, t);
        } else if (v.kind != CEL_NULL) {
            char tb[128];
            cel_type_format(cel_value_type(&v), tb, sizeof tb);
            const char *msg = kg_arena_sprintf(d->a,
                                               "valueExpression '%s' resulted in unsupported return type: %s. Return "
                                               "type must be either string or null.",
                                               aa->expr.source, tb);
            deny(d, p->name, b->name, msg, "");
            observe(d, p, b, msg, "deny");
        }
    }
}

/* One (policy, binding, param) evaluation; explained (a trace event, and the -v=4 log of a denial with the values
 * of the failed expression's sub-expressions) when the request carries a tracer or the log is at -v=4. */
static void evaluate(dctx *d, const kg_vap_policy *p, const kg_vap_binding *b, const kg_acel_input *base,
                     const kg_json *param)
{
    if (!d->at->tracer && kg_log_verbosity < 4) {
        evaluate_binding(d, p, b, base, param);
        return;
    }
    d->tr = (btrace){.on = true};
    double t = kg_metrics_now();
    evaluate_binding(d, p, b, base, param);
    btrace tr = d->tr;
    d->tr.on = false;
    kg_trace_event ev = {.depth = 1,
                         .phase = "validating",
                         .kind = "ValidatingAdmissionPolicy",
                         .name = p->name,
                         .binding = b->name,
                         .seconds = kg_metrics_now() - t,
                         .verdict = tr.no_match ? KG_TRACE_SKIPPED
                                    : tr.denied ? KG_TRACE_DENIED
                                    : tr.warned ? KG_TRACE_WARNED
                                                : KG_TRACE_ADMITTED,
                         .message = tr.message};
    bool values = kg_log_verbosity >= 4 || (d->at->tracer && !d->at->tracer->verdicts_only);
    if (values && tr.expr && (tr.denied || tr.warned)) {
        kg_acel_input in = *base;
        in.values[KG_ACEL_VAR_PARAMS] = cel_json_to_value(param);
        kg_acel_eval_state vs;
        kg_acel_eval_state_init(&vs, p->has_vars ? &p->vars : NULL, &in, d->a);
        ev.expression = tr.expr->source;
        ev.values = kg_acel_explain(tr.expr, &in, d->a, &ev.nvalues);
    }
    kg_admission_trace(d->at, &ev);
    if (kg_log_verbosity >= 4 && tr.denied) {
        kg_buf vb = KG_BUF_INIT;
        for (size_t i = 0; i < ev.nvalues; i++)
            kg_buf_printf(&vb, "%s`%s` = %s", i ? ", " : "", ev.values[i].expr, ev.values[i].value);
        KG_V(4, "ValidatingAdmissionPolicy '%s' with binding '%s' denied %s %s/%s: %s%s%s%s%s", p->name, b->name,
             kg_admission_op_name(d->at->operation), d->at->resource.resource, d->at->name, tr.message,
             ev.expression ? "; expression `" : "", ev.expression ? ev.expression : "", ev.expression ? "`: " : "",
             kg_buf_cstr(&vb));
        kg_buf_free(&vb);
    }
}

/* WaitForCacheSync with upstream's 1 s timeout: the param kind's cache may start with the first request that needs
 * it (asking starts it). */
static bool param_kind_synced(const kg_admission_services *svc, const char *resource)
{
    for (int i = 0; i < 100; i++) {
        if (kg_admission_ready(svc, resource))
            return true;
        kg_admission_sleep_ns(svc, 10 * 1000000LL);
    }
    return kg_admission_ready(svc, resource);
}

/* CollectParams: the param objects one binding evaluates with (a single NULL when the policy or the binding has
 * none). Returns false with *err on a config error. */
static bool collect_params(dctx *d, const kg_vap_policy *p, const kg_vap_binding *b, const kg_json ***out, size_t *n,
                           const char **err)
{
    *n = 0;
    if (!p->has_param_kind || !b->has_param_ref) {
        const kg_json **one = kg_arena_alloc(d->a, sizeof *one);
        one[0] = NULL;
        *out = one;
        *n = 1;
        return true;
    }
    const char *pns = "";
    if (p->param_namespaced) {
        pns = *b->param_namespace ? b->param_namespace : d->at->ns;
        if (!*pns) {
            *err = "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources";
            return false;
        }
    }
    if (!param_kind_synced(d->svc, p->param_resource)) {
        *err = kg_arena_sprintf(d->a,
                                "paramKind kind `&ParamKind{APIVersion:%s,Kind:%s,}` not yet synced to use for "
                                "admission",
                                p->param_api_version, p->param_kind);
        return false;
    }
    if (!p->param_namespaced && *b->param_namespace) {
        *err = "paramRef.namespace must not be provided for a cluster-scoped `paramKind`";
        return false;
    }
    if (*b->param_name) {
        KG_ERROR_DECL(e);
        const kg_json *o = kg_admission_view_obj(d->svc, d->a, p->param_resource, pns, b->param_name, &e);
        if (!o && e.code == KG_ENOTFOUND) {
            KG_ERROR_DECL(e2);
            o = kg_admission_get(d->svc, d->a, p->param_resource, pns, b->param_name, KG_ADMISSION_GET_LIVE, &e2);
            if (!o && e2.code != KG_ENOTFOUND) {
                *err = kg_arena_strdup(d->a, e2.msg);
                return false;
            }
        } else if (!o) {
            *err = kg_arena_strdup(d->a, e.msg);
            return false;
        }
        if (o) {
            const kg_json **one = kg_arena_alloc(d->a, sizeof *one);
            one[0] = o;
            *out = one;
            *n = 1;
        }
    } else if (b->has_param_selector) {
        KG_ERROR_DECL(e);
        const kg_json *arr = kg_admission_view_array(d->svc, d->a, p->param_resource, pns, &e);
        if (!arr) {
            *err = kg_arena_strdup(d->a, e.msg);
            return false;
        }
        const kg_json **list = kg_arena_alloc(d->a, (arr->len + 1) * sizeof *list);
        for (size_t i = 0; i < arr->len; i++)
            if (kg_labels_matches_object(&b->param_selector, kg_json_at(arr, i)))
                list[(*n)++] = kg_json_at(arr, i);
        *out = list;
    } else {
        *err = "one of name or selector must be provided";
        return false;
    }
    if (*n == 0 && b->param_not_found_deny) {
        *err = "no params found for policy binding with `Deny` parameterNotFoundAction";
        return false;
    }
    return true;
}

static int32_t reason_code(const char *reason)
{
    if (!strcmp(reason, KG_REASON_FORBIDDEN))
        return 403;
    if (!strcmp(reason, KG_REASON_UNAUTHORIZED))
        return 401;
    if (!strcmp(reason, KG_REASON_REQUEST_ENTITY_TOO_LARGE))
        return 413;
    return 422;
}

kg_status *kg_vap_dispatch(const kg_vap_entry *entries, size_t n, kg_admission_attributes *at,
                           const kg_admission_services *svc, const kg_vap_metrics *metrics)
{
    dctx d = {.at = at, .svc = svc, .a = at->arena, .metrics = metrics};
    for (size_t i = 0; i < n; i++) {
        const kg_vap_policy *p = entries[i].policy;
        if (!entries[i].nbindings)
            continue;
        kg_match_invocation inv = {{0}};
        kg_status *mst = NULL;
        kg_match_result mr = kg_match(&p->match, at, svc, &inv, &mst);
        if (mr == KG_MATCH_ERROR) {
            config_error(&d, p, NULL, mst && mst->message ? mst->message : "matching failed");
            continue;
        }
        if (mr == KG_MATCH_NO) {
            trace_skip(&d, p, NULL);
            continue;
        }
        if (p->config_error) {
            config_error(&d, p, NULL, p->config_error);
            continue;
        }
        kg_acel_input in;
        bool have_input = false;
        for (size_t j = 0; j < entries[i].nbindings; j++) {
            const kg_vap_binding *b = entries[i].bindings[j];
            if (b->has_match) {
                kg_match_invocation binv;
                kg_status *bst = NULL;
                kg_match_result br = kg_match(&b->match, at, svc, &binv, &bst);
                if (br == KG_MATCH_ERROR) {
                    config_error(&d, p, b, bst && bst->message ? bst->message : "matching failed");
                    continue;
                }
                if (br == KG_MATCH_NO) {
                    trace_skip(&d, p, b);
                    continue;
                }
            }
            if (b->config_error) {
                config_error(&d, p, b, b->config_error);
                continue;
            }
            const kg_json **params;
            size_t np;
            const char *err = NULL;
            if (!collect_params(&d, p, b, &params, &np, &err)) {
                config_error(&d, p, b, err);
                continue;
            }
            if (!np)
                continue;
            if (!have_input) {
                input_for(&d, &inv, &in);
                have_input = true;
                if (d.fatal)
                    return d.fatal;
            }
            for (size_t k = 0; k < np; k++)
                evaluate(&d, p, b, &in, params[k]);
        }
        publish_audits(&d, p);
    }
    if (!d.denied)
        return NULL;
    const char *msg = d.first.binding
                          ? kg_arena_sprintf(d.a, "ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s",
                                             d.first.policy, d.first.binding, d.first.message)
                          : kg_arena_sprintf(d.a, "ValidatingAdmissionPolicy '%s' denied request: %s", d.first.policy,
                                             d.first.message);
    kg_status *st = kg_admission_forbidden(at, "%s", msg);
    const char *reason = *d.first.reason ? d.first.reason : KG_REASON_INVALID;
    st->reason = kg_arena_strdup(d.a, reason);
    st->code = reason_code(reason);
    kg_status_add_cause(d.a, st, "", msg, "");
    return st;
}

bool kg_vap_collect_params(kg_admission_attributes *at, const kg_admission_services *svc, const kg_vap_policy *p,
                           const kg_vap_binding *b, const kg_json ***out, size_t *n, const char **err)
{
    dctx d = {.at = at, .svc = svc, .a = at->arena};
    return collect_params(&d, p, b, out, n, err);
}
