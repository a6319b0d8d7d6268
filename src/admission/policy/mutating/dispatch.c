/* Applying MutatingAdmissionPolicies to a request (upstream mutating/dispatcher.go, reinvocationcontext.go,
 * patch/json_patch.go, patch/smd.go):
 *
 *   for each policy (by name) whose matchConstraints match (a policy that cannot run: a policy error)
 *     for each of its bindings (by name) whose matchResources match, for each param (kg_vap_collect_params):
 *       round 1 (reinvocation): only the (policy, binding, param) keys marked for it run
 *       matchConditions (namespaceObject null): false skips, an error is a policy error
 *       each mutation in order, on the object as the previous one left it, with its own 10,000,000 budget:
 *         JSONPatch           the list of JSONPatch{op, path, from, value} applied (kg_patch_json); a failing
 *                             `test` op makes the whole patch a no-op
 *         ApplyConfiguration  the Object{...} merged with server-side apply's rules (kg_map_apply)
 *       if the object changed: every earlier-invoked IfNeeded key is marked and the chain is asked to reinvoke;
 *       an IfNeeded key joins the invoked set
 *   policy errors under failurePolicy Ignore are dropped; the first under Fail is the answer: 403, reason Invalid,
 *   `policy '<p>' with binding '<b>' denied request: <error>` (no resource prefix, as upstream).
 *
 * A mutation that fails leaves the object as it was before that mutation. */
#include <string.h>

#include "admission/policy/mutating/mutating.h"
#include "base/log.h"
#include "cel/cel_json.h"
#include "meta/patch.h"

#define OUT_OF_BUDGET "validation failed due to running out of cost budget, no further validation rules will be run"

/* The per-request reinvocation record (the plugin's request slot, kept across the chain's two rounds). */
typedef struct reinvocation {
    const char **invoked; /* keys of IfNeeded (policy, binding, param) evaluations so far */
    size_t ninvoked, cap_invoked;
    const char **marked; /* keys to run again in round 1 */
    size_t nmarked, cap_marked;
    kg_json *last_output; /* the object after the last policy of round 0 */
} reinvocation;

static bool has(const char *const *set, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(set[i], key))
            return true;
    return false;
}

static void push(kg_arena *a, const char ***set, size_t *n, size_t *cap, const char *key)
{
    if (has(*set, *n, key))
        return;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        const char **ns = kg_arena_alloc(a, nc * sizeof *ns);
        if (*n)
            memcpy(ns, *set, *n * sizeof *ns);
        *set = ns;
        *cap = nc;
    }
    (*set)[(*n)++] = key;
}

static void mark_invoked(kg_arena *a, reinvocation *r)
{
    for (size_t i = 0; i < r->ninvoked; i++)
        push(a, &r->marked, &r->nmarked, &r->cap_marked, r->invoked[i]);
}

bool kg_map_metrics_register(kg_metrics_registry *r, kg_map_metrics *out)
{
    static const char *const labels[] = {"policy", "policy_binding", "error_type", NULL};
    static const double buckets[] = {0.0000005, 0.001, 0.01, 0.1, 1.0};
    out->check_total = kg_metrics_find(r, "apiserver_mutating_admission_policy_check_total");
    if (!out->check_total)
        out->check_total = kg_metrics_counter(r, "apiserver_mutating_admission_policy_check_total",
                                              "Mutation admission policy check total, labeled by policy and further "
                                              "identified by binding.",
                                              labels);
    out->check_duration = kg_metrics_find(r, "apiserver_mutating_admission_policy_check_duration_seconds");
    if (!out->check_duration)
        out->check_duration = kg_metrics_histogram(r, "apiserver_mutating_admission_policy_check_duration_seconds",
                                                   "Mutation admission latency for individual mutation expressions in "
                                                   "seconds, labeled by policy and binding.",
                                                   labels, buckets, sizeof buckets / sizeof buckets[0]);
    return out->check_total && out->check_duration;
}

typedef struct dctx {
    kg_admission_attributes *at;
    const kg_admission_services *svc;
    kg_arena *a;
    const kg_map_metrics *metrics;
    reinvocation *r;
    int round;
    const char *err_policy, *err_binding, *err_msg; /* the first policy error under Fail */
    bool ns_loaded;
    const kg_json *ns_obj;
} dctx;

static const char *error_type(const char *msg)
{
    if (!msg)
        return "no_error";
    if (!strncmp(msg, "compilation", 11))
        return "compile_error";
    if (strstr(msg, "running out of cost budget") || strstr(msg, "cost limit exceeded"))
        return "out_of_budget";
    return "invalid_error";
}

static void observe(dctx *d, const char *policy, const char *binding, const char *msg, double start)
{
    if (!d->metrics || !d->metrics->check_total)
        return;
    const char *labels[] = {policy, binding, error_type(msg)};
    kg_metric_inc(d->metrics->check_total, labels);
    if (d->metrics->check_duration)
        kg_metric_observe(d->metrics->check_duration, labels, kg_metrics_now() - start);
}

static void policy_error(dctx *d, const kg_map_policy *p, const char *binding, const char *msg)
{
    KG_V(4, "MutatingAdmissionPolicy '%s' binding '%s' %s %s/%s: %s", p->common->name, binding ? binding : "",
         kg_admission_op_name(d->at->operation), d->at->resource.resource, d->at->name, msg);
    if (p->common->fail_open || d->err_msg)
        return;
    d->err_policy = p->common->name;
    d->err_binding = binding;
    d->err_msg = msg;
}

static const kg_json *namespace_object(dctx *d)
{
    if (d->ns_loaded)
        return d->ns_obj;
    d->ns_loaded = true;
    if (!d->at->ns || !*d->at->ns || kg_admission_is_namespace_kind(d->at))
        return NULL;
    KG_ERROR_DECL(err);
    d->ns_obj = kg_admission_view_obj(d->svc, d->a, "namespaces", "", d->at->ns, &err);
    return d->ns_obj;
}

static const char *eval_error_text(kg_arena *a, const kg_acel_expr *e, cel_eval_status s, const cel_value *v)
{
    if (!e->prog)
        return kg_arena_sprintf(a, "compilation error: %s", e->error ? e->error : "");
    const char *msg =
        s == CEL_EVAL_COST_EXCEEDED ? "operation cancelled: actual cost limit exceeded" : cel_error_message(v);
    return kg_arena_sprintf(a, "expression '%s' resulted in error: %s", e->source, msg);
}

/* upstream's ApplyConfiguration type check: every `Object...` struct literal is named after the field path from the
 * root Object type (list items after their list's field), e.g. Object.spec.containers. */
static const char *check_type_names(kg_arena *a, const cel_value *v, const char *expected, int depth)
{
    if (depth > 64)
        return NULL;
    if (v->kind == CEL_LIST) {
        size_t n = cel_list_size(v);
        for (size_t i = 0; i < n; i++) {
            cel_value item = cel_list_get(NULL, v, i);
            const char *err = check_type_names(a, &item, expected, depth + 1);
            if (err)
                return err;
        }
        return NULL;
    }
    if (v->kind != CEL_MAP)
        return NULL;
    const cel_type *t = cel_value_type(v);
    const char *name = t && t->kind == CEL_T_OBJECT && t->name && !strncmp(t->name, "Object", 6) ? t->name : NULL;
    if (!name)
        return NULL; /* a plain map (labels, requests): no struct type to check */
    if (strcmp(name, expected))
        return kg_arena_sprintf(a,
                                "type mismatch: unexpected type name \"%s\", expected \"%s\", which matches field name "
                                "path from root Object type",
                                name, expected);
    size_t n = cel_map_size(v);
    for (size_t i = 0; i < n; i++) {
        cel_value k, val;
        cel_map_entry(NULL, v, i, &k, &val);
        if (k.kind != CEL_STRING)
            continue;
        const char *child = kg_arena_sprintf(a, "%s.%.*s", expected, (int)k.n, k.u.s);
        const char *err = check_type_names(a, &val, child, depth + 1);
        if (err)
            return err;
    }
    return NULL;
}

/* Apply one mutation's result to the object (a copy of it: the request's object changes only on success). */
static const char *apply_result(dctx *d, const kg_map_mutation *m, const cel_value *v, kg_json **out)
{
    char eb[256];
    if (m->type == KG_MAP_JSON_PATCH) {
        if (v->kind != CEL_LIST) {
            char tb[128];
            cel_type_format(cel_value_type(v), tb, sizeof tb);
            return kg_arena_sprintf(d->a, "unsupported return type from JSONPatch expression: %s", tb);
        }
        kg_json *patch = cel_value_to_json(d->a, v, eb, sizeof eb);
        if (!patch)
            return kg_arena_sprintf(d->a, "JSON Patch: %s", eb);
        KG_ERROR_DECL(e);
        kg_json *res = NULL;
        if (!kg_patch_json(d->a, d->at->object, patch, &res, &e)) {
            if (!strncmp(e.msg, "testing value ", 14)) { /* a failed test: the patch is a no-op */
                *out = NULL;
                return NULL;
            }
            return kg_arena_sprintf(d->a, "JSON Patch: %s", e.msg);
        }
        *out = res;
        return NULL;
    }
    if (v->kind != CEL_MAP || strcmp(cel_value_type(v)->name ? cel_value_type(v)->name : "", "Object")) {
        char tb[128];
        cel_type_format(cel_value_type(v), tb, sizeof tb);
        return kg_arena_sprintf(d->a, "unsupported return type from ApplyConfiguration expression: %s", tb);
    }
    const char *terr = check_type_names(d->a, v, "Object", 0);
    if (terr)
        return terr;
    kg_json *cfg = cel_value_to_json(d->a, v, eb, sizeof eb);
    if (!cfg)
        return kg_arena_sprintf(d->a, "error applying patch: %s", eb);
    const char *unknown = NULL;
    if (d->svc->unknown_field && d->svc->unknown_field(d->svc->ctx, d->a, &d->at->kind, cfg, &unknown))
        return kg_arena_sprintf(d->a,
                                "error applying patch: failed to convert patch object to typed object: .%s: field not "
                                "declared in schema",
                                unknown);
    kg_json *copy = kg_json_clone(d->a, d->at->object);
    const char *err = NULL;
    if (!kg_map_apply(d->a, copy, cfg, &d->at->kind, d->svc, &err))
        return err;
    *out = copy;
    return NULL;
}

/* One (policy, binding, param) evaluation; true when the object changed. */
static bool evaluate(dctx *d, const kg_map_policy *p, const kg_map_binding *b, const kg_match_invocation *inv,
                     const kg_json *param)
{
    const kg_vap_policy *c = p->common;
    double start = d->metrics ? kg_metrics_now() : 0;
    const kg_gvr *res = inv->resource.resource ? &inv->resource : NULL;
    const kg_gvk *kind = inv->resource.resource ? &inv->kind : NULL;
    kg_acel_input in;
    kg_acel_input_init(&in, d->at, res, kind, namespace_object(d), d->svc->authorizer);
    in.values[KG_ACEL_VAR_PARAMS] = cel_json_to_value(param);
    const char *err = NULL;
    if (c->conditions.n) {
        kg_acel_input cin = in;
        cin.values[KG_ACEL_VAR_NAMESPACE] = cel_null();
        kg_mc_result mr = kg_match_conditions_eval(&c->conditions, &cin, d->a, &err, NULL);
        if (mr == KG_MC_NO_MATCH)
            return false;
        if (mr == KG_MC_ERROR) {
            policy_error(d, p, b->common->name, err);
            observe(d, c->name, b->common->name, err, start);
            return false;
        }
    }
    bool changed = false;
    for (size_t i = 0; i < p->nmutations && !err; i++) {
        const kg_map_mutation *m = &p->mutations[i];
        if (i) { /* the next mutation sees the object as the previous one left it */
            kg_acel_input_init(&in, d->at, res, kind, namespace_object(d), d->svc->authorizer);
            in.values[KG_ACEL_VAR_PARAMS] = cel_json_to_value(param);
        }
        kg_acel_eval_state vs;
        kg_acel_eval_state_init(&vs, p->has_vars ? &p->vars : NULL, &in, d->a);
        cel_value v;
        uint64_t cost = 0;
        cel_eval_status s = kg_acel_eval(&m->expr, &in, d->a, CEL_PER_CALL_LIMIT, &v, &cost);
        cost += kg_acel_take_cost(&vs);
        if (cost > CEL_RUNTIME_BUDGET) {
            err = OUT_OF_BUDGET;
            break;
        }
        if (s != CEL_EVAL_OK || !m->expr.prog) {
            err = eval_error_text(d->a, &m->expr, s, &v);
            break;
        }
        kg_json *out = NULL;
        err = apply_result(d, m, &v, &out);
        if (!err && out && !kg_json_equal(out, d->at->object)) {
            *d->at->object = *out; /* the root node in place: the request's owner keeps its pointer */
            changed = true;
        }
    }
    if (err)
        policy_error(d, p, b->common->name, err);
    observe(d, c->name, b->common->name, err, start);
    return changed;
}

static const char *meta_str(const kg_json *o, const char *path)
{
    const char *s = o ? kg_json_path_str(o, path) : NULL;
    return s ? s : "";
}

static reinvocation *record(kg_admission_attributes *at)
{
    void **slot = kg_admission_request_ctx(at);
    reinvocation *r = slot ? *slot : NULL;
    if (!r) {
        r = kg_arena_calloc(at->arena, sizeof *r);
        if (slot)
            *slot = r;
    }
    return r;
}

kg_status *kg_map_dispatch(const kg_map_entry *entries, size_t n, kg_admission_attributes *at,
                           const kg_admission_services *svc, const kg_map_metrics *metrics)
{
    if (!at->object)
        return NULL;
    dctx d = {.at = at, .svc = svc, .a = at->arena, .metrics = metrics, .r = record(at)};
    d.round = at->is_reinvoke ? 1 : 0;
    if (d.round == 1) {
        if (!d.r->ninvoked)
            return NULL;
        /* a later plugin changed the object since the policies last ran: every IfNeeded key runs again */
        if (d.r->last_output && !kg_json_equal(at->object, d.r->last_output))
            mark_invoked(d.a, d.r);
    }
    for (size_t i = 0; i < n; i++) {
        const kg_map_policy *p = entries[i].policy;
        const kg_vap_policy *c = p->common;
        if (!entries[i].nbindings)
            continue;
        kg_match_invocation inv = {{0}};
        kg_status *mst = NULL;
        kg_match_result mr = kg_match(&c->match, at, svc, &inv, &mst);
        if (mr == KG_MATCH_ERROR) {
            policy_error(&d, p, NULL, mst && mst->message ? mst->message : "matching failed");
            continue;
        }
        if (mr == KG_MATCH_NO)
            continue;
        const char *cfg = c->config_error ? c->config_error : p->config_error;
        if (cfg) {
            policy_error(&d, p, NULL, kg_arena_sprintf(d.a, "failed to configure policy: %s", cfg));
            continue;
        }
        for (size_t j = 0; j < entries[i].nbindings; j++) {
            const kg_map_binding *b = entries[i].bindings[j];
            const kg_vap_binding *cb = b->common;
            if (cb->has_match) {
                kg_match_invocation binv;
                kg_status *bst = NULL;
                kg_match_result br = kg_match(&cb->match, at, svc, &binv, &bst);
                if (br == KG_MATCH_ERROR) {
                    policy_error(&d, p, cb->name, bst && bst->message ? bst->message : "matching failed");
                    continue;
                }
                if (br == KG_MATCH_NO)
                    continue;
            }
            if (cb->config_error) {
                policy_error(&d, p, cb->name,
                             kg_arena_sprintf(d.a, "failed to configure binding: %s", cb->config_error));
                continue;
            }
            const kg_json **params;
            size_t np = 0;
            const char *err = NULL;
            if (!kg_vap_collect_params(at, svc, c, cb, &params, &np, &err)) {
                policy_error(&d, p, cb->name, kg_arena_sprintf(d.a, "failed to configure binding: %s", err));
                continue;
            }
            for (size_t k = 0; k < np; k++) {
                const kg_json *pm = params[k];
                const char *key = kg_arena_sprintf(d.a, "%s/%s/%s/%s", c->name, cb->name,
                                                   meta_str(pm, "metadata.namespace"), meta_str(pm, "metadata.name"));
                if (d.round == 1 && !has(d.r->marked, d.r->nmarked, key))
                    continue;
                if (evaluate(&d, p, b, &inv, pm)) {
                    mark_invoked(d.a, d.r);
                    at->reinvoke_requested = true;
                }
                if (p->reinvoke_if_needed)
                    push(d.a, &d.r->invoked, &d.r->ninvoked, &d.r->cap_invoked, key);
            }
        }
    }
    if (d.round == 0 && d.r->ninvoked) /* only IfNeeded evaluations look at it in round 1 */
        d.r->last_output = kg_json_clone(d.a, at->object);
    if (!d.err_msg)
        return NULL;
    const char *msg = d.err_binding
                          ? kg_arena_sprintf(d.a, "policy '%s' with binding '%s' denied request: %s", d.err_policy,
                                             d.err_binding, d.err_msg)
                          : kg_arena_sprintf(d.a, "policy \"%s\" denied request: %s", d.err_policy, d.err_msg);
    kg_status *st = kg_status_new(d.a, 403, KG_REASON_INVALID, msg);
    kg_status_add_cause(d.a, st, "", msg, "");
    return st;
}
