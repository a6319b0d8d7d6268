/* Admission CEL activation: the values of one request and the lazy `variables` (see admission_cel.h). */
#include "admission/cel/admission_cel.h"

#include <string.h>

#include "admission/trace.h"
#include "cel/cel_json.h"

static kg_json *gv_object(kg_arena *a, const char *group, const char *version, const char *last_key, const char *last)
{
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "group", kg_json_new_str_ref(a, group ? group : "", group ? strlen(group) : 0));
    kg_json_set(a, o, "version", kg_json_new_str_ref(a, version ? version : "", version ? strlen(version) : 0));
    kg_json_set(a, o, last_key, kg_json_new_str_ref(a, last ? last : "", last ? strlen(last) : 0));
    return o;
}

static void set_str_omitempty(kg_arena *a, kg_json *o, const char *key, const char *v)
{
    if (v && *v)
        kg_json_set(a, o, key, kg_json_new_str_ref(a, v, strlen(v)));
}

/* The AdmissionRequest as upstream hands it to CEL: the admissionv1 struct converted to unstructured, so fields
 * marked omitempty are absent when empty (request.namespace of a cluster-scoped request is "no such key"). */
static kg_json *request_json(const kg_admission_attributes *at, const kg_gvr *res, const kg_gvk *kind)
{
    kg_arena *a = at->arena;
    kg_json *r = kg_json_new_object(a);
    kg_json_set(a, r, "uid", kg_json_new_str_ref(a, at->uid, strlen(at->uid)));
    kg_json_set(a, r, "kind", gv_object(a, kind->group, kind->version, "kind", kind->kind));
    kg_json_set(a, r, "resource", gv_object(a, res->group, res->version, "resource", res->resource));
    set_str_omitempty(a, r, "subResource", at->subresource);
    kg_json_set(a, r, "requestKind",
                gv_object(a, at->request_kind.group, at->request_kind.version, "kind", at->request_kind.kind));
    kg_json_set(a, r, "requestResource",
                gv_object(a, at->request_resource.group, at->request_resource.version, "resource",
                          at->request_resource.resource));
    set_str_omitempty(a, r, "requestSubResource", at->request_subresource);
    set_str_omitempty(a, r, "name", at->name);
    set_str_omitempty(a, r, "namespace", at->ns);
    const char *op = kg_admission_op_name(at->operation);
    kg_json_set(a, r, "operation", kg_json_new_str_ref(a, op, strlen(op)));
    kg_json *ui = kg_json_new_object(a);
    set_str_omitempty(a, ui, "username", at->user.name);
    set_str_omitempty(a, ui, "uid", at->user.uid);
    if (at->user.ngroups) {
        kg_json *g = kg_json_new_array(a);
        for (size_t i = 0; i < at->user.ngroups; i++)
            kg_json_array_append(a, g, kg_json_new_str_ref(a, at->user.groups[i], strlen(at->user.groups[i])));
        kg_json_set(a, ui, "groups", g);
    }
    if (at->user.nextra) {
        kg_json *ex = kg_json_new_object(a);
        for (size_t i = 0; i < at->user.nextra; i++) {
            const kg_user_extra *e = &at->user.extra[i];
            kg_json *vals = kg_json_new_array(a);
            for (size_t j = 0; j < e->nvalues; j++)
                kg_json_array_append(a, vals, kg_json_new_str_ref(a, e->values[j], strlen(e->values[j])));
            kg_json_set(a, ex, e->key, vals);
        }
        kg_json_set(a, ui, "extra", ex);
    }
    kg_json_set(a, r, "userInfo", ui);
    kg_json_set(a, r, "dryRun", kg_json_new_bool(a, at->dry_run));
    /* options is a RawExtension: null when the request carries none; read-only here, so no copy is needed */
    kg_json_set(a, r, "options", at->options ? (kg_json *)(uintptr_t)at->options : kg_json_new_null(a));
    return r;
}

/* `request` is built on first use: most expressions never look at it. The wrapper delegates to the JSON bridge. */
typedef struct lazy_request {
    const kg_admission_attributes *at;
    kg_gvr res;
    kg_gvk kind;
    bool built;
    cel_value v;
} lazy_request;

static const cel_value *lazy_request_value(const cel_value *m)
{
    lazy_request *lr = (lazy_request *)(uintptr_t)m->u.ptr;
    if (!lr->built) {
        lr->v = cel_json_to_value(request_json(lr->at, &lr->res, &lr->kind));
        lr->built = true;
    }
    return &lr->v;
}

static size_t lr_size(const cel_value *m)
{
    return cel_map_size(lazy_request_value(m));
}

static bool lr_get(cel_call_ctx *ctx, const cel_value *m, const cel_value *key, cel_value *out)
{
    return cel_map_get(ctx, lazy_request_value(m), key, out);
}

static bool lr_get_str(cel_call_ctx *ctx, const cel_value *m, const char *key, size_t klen, cel_value *out)
{
    return cel_map_get_str(ctx, lazy_request_value(m), key, klen, out);
}

static void lr_entry(cel_call_ctx *ctx, const cel_value *m, size_t i, cel_value *key, cel_value *val)
{
    cel_map_entry(ctx, lazy_request_value(m), i, key, val);
}

static const cel_map_vt lazy_request_vt = {
    .size = lr_size,
    .get = lr_get,
    .entry = lr_entry,
    .get_str = lr_get_str,
};

void kg_acel_input_init(kg_acel_input *in, const kg_admission_attributes *attrs, const kg_gvr *resource,
                        const kg_gvk *kind, const kg_json *ns_object, const kg_authorizer *authz)
{
    memset(in, 0, sizeof *in);
    kg_arena *a = attrs->arena;
    in->values[KG_ACEL_VAR_OBJECT] = cel_json_to_value(attrs->object);
    in->values[KG_ACEL_VAR_OLD_OBJECT] = cel_json_to_value(attrs->old_object);
    lazy_request *lr = kg_arena_alloc(a, sizeof *lr);
    *lr = (lazy_request){attrs, resource ? *resource : attrs->resource, kind ? *kind : attrs->kind, false, {0}};
    in->values[KG_ACEL_VAR_REQUEST] = cel_map_custom(&lazy_request_vt, lr, 0);
    in->values[KG_ACEL_VAR_NAMESPACE] = cel_json_to_value(ns_object);
    in->values[KG_ACEL_VAR_PARAMS] = cel_null();
    in->authz.authz = authz;
    in->authz.user = &attrs->user;
    in->values[KG_ACEL_VAR_AUTHORIZER] = cel_k8s_authorizer_value(a, &in->authz);
    const kg_gvr *r = resource ? resource : &attrs->resource;
    in->values[KG_ACEL_VAR_REQUEST_RESOURCE] = cel_k8s_request_resource_value(
        a, &in->authz, r->group, r->resource, attrs->subresource, attrs->ns, attrs->name);
    in->values[KG_ACEL_VAR_VARIABLES] = cel_null();
}

cel_eval_status kg_acel_eval(const kg_acel_expr *e, const kg_acel_input *in, kg_arena *a, uint64_t limit,
                             cel_value *out, uint64_t *cost)
{
    if (cost)
        *cost = 0;
    if (!e->prog) {
        *out = cel_error_new(a, "%s", e->error ? e->error : "expression was not compiled");
        return CEL_EVAL_ERROR;
    }
    const kg_acel_env *env = e->env;
    cel_value vals[KG_ACEL_NVARS];
    for (int i = 0; i < env->nslots; i++)
        vals[i] = cel_null();
    for (int i = 0; i < KG_ACEL_NVARS; i++)
        if (env->slot[i] >= 0)
            vals[env->slot[i]] = in->values[i];
    return cel_eval_slots(e->prog, a, vals, (size_t)env->nslots, limit, out, cost);
}

const kg_trace_value *kg_acel_explain(const kg_acel_expr *e, const kg_acel_input *in, kg_arena *a, size_t *n)
{
    *n = 0;
    if (!e->prog)
        return NULL;
    const kg_acel_env *env = e->env;
    cel_value vals[KG_ACEL_NVARS];
    for (int i = 0; i < env->nslots; i++)
        vals[i] = cel_null();
    for (int i = 0; i < KG_ACEL_NVARS; i++)
        if (env->slot[i] >= 0)
            vals[env->slot[i]] = in->values[i];
    cel_value result;
    cel_trace_entry *te;
    size_t nte;
    cel_eval_trace(e->prog, e->source, a, vals, (size_t)env->nslots, CEL_PER_CALL_LIMIT, &result, &te, &nte);
    kg_trace_value *out = kg_arena_alloc(a, (nte ? nte : 1) * sizeof *out);
    for (size_t i = 0; i < nte; i++) {
        const char *v = cel_is_error(&te[i].value) ? kg_arena_sprintf(a, "error: %s", cel_error_message(&te[i].value))
                                                   : cel_value_debug(a, &te[i].value);
        if (strlen(v) > 200)
            v = kg_arena_sprintf(a, "%.200s…", v);
        out[i] = (kg_trace_value){kg_arena_strndup(a, e->source + te[i].start, te[i].end - te[i].start), v};
    }
    *n = nte;
    return out;
}

/* ---- lazy variables ---- */

static cel_value variable_value(kg_acel_eval_state *st, size_t i)
{
    if (st->cache[i].kind != CEL_UNKNOWN)
        return st->cache[i];
    const kg_acel_variable *var = &st->vars->items[i];
    cel_value v;
    uint64_t cost = 0;
    cel_eval_status s = kg_acel_eval(&var->expr, st->in, st->arena, CEL_PER_CALL_LIMIT, &v, &cost);
    st->cost += cost;
    if (s != CEL_EVAL_OK) {
        const char *msg =
            s == CEL_EVAL_COST_EXCEEDED ? "operation cancelled: actual cost limit exceeded" : cel_error_message(&v);
        v = cel_error_new(st->arena, "composited variable \"%s\" fails to evaluate: %s", var->name, msg);
    }
    st->cache[i] = v;
    return v;
}

static size_t vars_size(const cel_value *m)
{
    const kg_acel_eval_state *st = m->u.ptr;
    return st->vars->n;
}

static bool vars_get_str(cel_call_ctx *ctx, const cel_value *m, const char *key, size_t klen, cel_value *out)
{
    kg_acel_eval_state *st = (kg_acel_eval_state *)(uintptr_t)m->u.ptr;
    for (size_t i = 0; i < st->vars->n; i++) {
        const char *n = st->vars->items[i].name;
        if (strlen(n) == klen && !memcmp(n, key, klen)) {
            *out = variable_value(st, i);
            return true;
        }
    }
    return false;
}

static bool vars_get(cel_call_ctx *ctx, const cel_value *m, const cel_value *key, cel_value *out)
{
    if (key->kind != CEL_STRING)
        return false;
    return vars_get_str(ctx, m, key->u.s, key->n, out);
}

static void vars_entry(cel_call_ctx *ctx, const cel_value *m, size_t i, cel_value *key, cel_value *val)
{
    kg_acel_eval_state *st = (kg_acel_eval_state *)(uintptr_t)m->u.ptr;
    const char *n = st->vars->items[i].name;
    *key = cel_string(n, strlen(n));
    if (val)
        *val = variable_value(st, i);
}

static const cel_map_vt vars_vt = {
    .size = vars_size,
    .get = vars_get,
    .entry = vars_entry,
    .get_str = vars_get_str,
};

void kg_acel_eval_state_init(kg_acel_eval_state *st, const kg_acel_vars *vars, kg_acel_input *in, kg_arena *a)
{
    memset(st, 0, sizeof *st);
    st->vars = vars;
    st->in = in;
    st->arena = a;
    if (!vars) {
        in->values[KG_ACEL_VAR_VARIABLES] = cel_null();
        return;
    }
    st->cache = vars->n ? kg_arena_alloc(a, vars->n * sizeof *st->cache) : NULL;
    for (size_t i = 0; i < vars->n; i++) {
        memset(&st->cache[i], 0, sizeof st->cache[i]);
        st->cache[i].kind = CEL_UNKNOWN;
    }
    in->values[KG_ACEL_VAR_VARIABLES] = cel_map_custom(&vars_vt, st, (uint32_t)vars->n);
}

uint64_t kg_acel_take_cost(kg_acel_eval_state *st)
{
    uint64_t c = st->cost;
    st->cost = 0;
    return c;
}
