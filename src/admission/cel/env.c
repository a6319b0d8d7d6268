/* Admission CEL environments and compilation (see admission_cel.h). */
#include "admission/cel/admission_cel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "cel/k8s/cel_k8s.h"

static const char *const var_names[KG_ACEL_NVARS] = {
    "object",    "oldObject", "request", "namespaceObject", "params", "authorizer", "authorizer.requestResource",
    "variables",
};

static cel_type *object_type(cel_env *env, const char *name, const char *const *fields, const cel_type *const *types,
                             size_t n)
{
    cel_type *t = cel_type_object(env, name);
    for (size_t i = 0; i < n; i++)
        cel_type_object_add_field(env, t, fields[i], types[i]);
    return t;
}

/* kubernetes.AdmissionRequest (upstream BuildRequestType; no uid, object or oldObject). */
static const cel_type *request_type(cel_env *env)
{
    const cel_type *str = cel_type_string();
    const cel_type *strlist = cel_type_list(env, str);
    const char *gvk_f[] = {"group", "version", "kind"};
    const cel_type *gvk_t[] = {str, str, str};
    const cel_type *gvk = object_type(env, "kubernetes.GroupVersionKind", gvk_f, gvk_t, 3);
    const char *gvr_f[] = {"group", "version", "resource"};
    const cel_type *gvr = object_type(env, "kubernetes.GroupVersionResource", gvr_f, gvk_t, 3);
    const char *ui_f[] = {"username", "uid", "groups", "extra"};
    const cel_type *ui_t[] = {str, str, strlist, cel_type_map(env, str, strlist)};
    const cel_type *ui = object_type(env, "kubernetes.UserInfo", ui_f, ui_t, 4);
    const char *f[] = {"kind", "resource",  "subResource", "requestKind", "requestResource", "requestSubResource",
                       "name", "namespace", "operation",   "userInfo",    "dryRun",          "options"};
    const cel_type *t[] = {gvk, gvr, str, gvk, gvr, str, str, str, str, ui, cel_type_bool(), cel_type_dyn()};
    return object_type(env, "kubernetes.AdmissionRequest", f, t, 12);
}

/* kubernetes.Namespace (upstream BuildNamespaceType). */
static const cel_type *namespace_type(cel_env *env)
{
    const cel_type *str = cel_type_string(), *ts = cel_type_timestamp(), *i64 = cel_type_int();
    const cel_type *strlist = cel_type_list(env, str);
    const cel_type *strmap = cel_type_map(env, str, str);
    const char *spec_f[] = {"finalizers"};
    const cel_type *spec = object_type(env, "kubernetes.NamespaceSpec", spec_f, &strlist, 1);
    const char *cond_f[] = {"status", "type", "lastTransitionTime", "message", "reason"};
    const cel_type *cond_t[] = {str, str, ts, str, str};
    const cel_type *cond = object_type(env, "kubernetes.NamespaceCondition", cond_f, cond_t, 5);
    const char *status_f[] = {"conditions", "phase"};
    const cel_type *status_t[] = {cel_type_list(env, cond), str};
    const cel_type *status = object_type(env, "kubernetes.NamespaceStatus", status_f, status_t, 2);
    const char *md_f[] = {"name",
                          "generateName",
                          "namespace",
                          "labels",
                          "annotations",
                          "UID",
                          "creationTimestamp",
                          "deletionGracePeriodSeconds",
                          "deletionTimestamp",
                          "generation",
                          "resourceVersion",
                          "finalizers"};
    const cel_type *md_t[] = {str, str, str, strmap, strmap, str, ts, i64, ts, i64, str, strlist};
    const cel_type *md = object_type(env, "kubernetes.NamespaceMetadata", md_f, md_t, 12);
    const char *f[] = {"metadata", "spec", "status"};
    const cel_type *t[] = {md, spec, status};
    return object_type(env, "kubernetes.Namespace", f, t, 3);
}

/* The name of the `variables` object type, and the field that keeps it from being schemaless before the first
 * variable is added (an object type without fields accepts any field; `variables.x` must be `undefined field`). The
 * empty name cannot be selected. */
#define VARIABLES_TYPE "kubernetes.variables"
#define VARIABLES_PLACEHOLDER ""

static bool env_build(kg_acel_env *e, unsigned decls, cel_type **variables, const kg_acel_types *typed)
{
    memset(e, 0, sizeof *e);
    e->decls = decls;
    e->env = cel_env_new(CEL_LIB_K8S);
    if (!e->env)
        return false;
    cel_env_set_options(e->env, CEL_OPT_K8S);
    /* new expressions may only use what the previous minor version had (upstream's NewExpressions environment at
     * the default compatibility version) */
    cel_k8s_options ko = {(decls & KG_ACEL_NEW_EXPRESSIONS) ? KG_ACEL_K8S_VERSION - 1 : KG_ACEL_K8S_VERSION, 0,
                          (decls & KG_ACEL_MUTATION) != 0};
    cel_error err;
    if (!cel_k8s_register(e->env, &ko, &err)) {
        fprintf(stderr, "kgate: admission CEL environment: %s\n", err.message);
        cel_env_free(e->env);
        e->env = NULL;
        return false;
    }
    if (decls & KG_ACEL_MUTATION) {
        cel_env_add_dynamic_struct_prefix(e->env, "Object");
        cel_env_add_dynamic_struct_prefix(e->env, "JSONPatch");
    }
    const cel_type *types[KG_ACEL_NVARS] = {cel_type_dyn(), cel_type_dyn(), request_type(e->env),
                                            namespace_type(e->env)};
    types[KG_ACEL_VAR_PARAMS] = cel_type_dyn();
    if (typed && typed->build) {
        const cel_type *obj = NULL, *params = NULL;
        typed->build(typed->ud, e->env, &obj, &params);
        if (obj)
            types[KG_ACEL_VAR_OBJECT] = types[KG_ACEL_VAR_OLD_OBJECT] = obj;
        if (params)
            types[KG_ACEL_VAR_PARAMS] = params;
    }
    for (int i = 0; i < KG_ACEL_NVARS; i++)
        e->slot[i] = -1;
    for (int i = 0; i < KG_ACEL_NVARS; i++) {
        if (i == KG_ACEL_VAR_PARAMS && !(decls & KG_ACEL_PARAMS))
            continue;
        if ((i == KG_ACEL_VAR_AUTHORIZER || i == KG_ACEL_VAR_REQUEST_RESOURCE) && !(decls & KG_ACEL_AUTHORIZER))
            continue;
        if (i == KG_ACEL_VAR_AUTHORIZER)
            types[i] = cel_k8s_type_authorizer(e->env);
        if (i == KG_ACEL_VAR_REQUEST_RESOURCE)
            types[i] = cel_k8s_type_resource_check(e->env);
        if (i == KG_ACEL_VAR_VARIABLES && (decls & KG_ACEL_DYN_VARIABLES)) {
            types[i] = cel_type_dyn();
            e->has_variables = true;
        } else if (i == KG_ACEL_VAR_VARIABLES) {
            if (!variables)
                continue;
            *variables = cel_type_object(e->env, VARIABLES_TYPE);
            cel_type_object_add_field(e->env, *variables, VARIABLES_PLACEHOLDER, cel_type_dyn());
            types[i] = *variables;
            e->has_variables = true;
        }
        cel_env_declare_var(e->env, var_names[i], types[i]);
    }
    for (int i = 0; i < KG_ACEL_NVARS; i++) {
        if (i == KG_ACEL_VAR_VARIABLES && !e->has_variables)
            continue;
        e->slot[i] = cel_env_var_slot(e->env, var_names[i]);
        if (e->slot[i] + 1 > e->nslots)
            e->nslots = e->slot[i] + 1;
    }
    return true;
}

/* every combination of KG_ACEL_PARAMS, KG_ACEL_AUTHORIZER, KG_ACEL_DYN_VARIABLES, KG_ACEL_NEW_EXPRESSIONS,
 * KG_ACEL_MUTATION */
#define NBASE 32
static kg_acel_env base_envs[NBASE];
static atomic_int base_state[NBASE]; /* 0 not built yet, 1 built, 2 failed */
static pthread_mutex_t base_mu = PTHREAD_MUTEX_INITIALIZER;

const kg_acel_env *kg_acel_env_base(unsigned decls)
{
    decls &= NBASE - 1;
    int state = atomic_load_explicit(&base_state[decls], memory_order_acquire);
    if (!state) { /* each built on first use, once */
        pthread_mutex_lock(&base_mu);
        state = atomic_load_explicit(&base_state[decls], memory_order_relaxed);
        if (!state) {
            state = env_build(&base_envs[decls], decls, NULL, NULL) ? 1 : 2;
            atomic_store_explicit(&base_state[decls], state, memory_order_release);
        }
        pthread_mutex_unlock(&base_mu);
    }
    return state == 1 ? &base_envs[decls] : NULL;
}

/* cel-go's Type.String() of the types an expression may be asked for. */
static const char *return_types_string(kg_acel_return ret)
{
    switch (ret) {
    case KG_ACEL_RETURN_BOOL: return "bool";
    case KG_ACEL_RETURN_STRING: return "string";
    case KG_ACEL_RETURN_STRING_OR_NULL: return "[string null_type]";
    default: return "dyn";
    }
}

static bool return_type_ok(const cel_type *t, kg_acel_return ret)
{
    switch (ret) {
    case KG_ACEL_RETURN_BOOL: return t->kind == CEL_T_BOOL;
    case KG_ACEL_RETURN_STRING: return t->kind == CEL_T_STRING;
    case KG_ACEL_RETURN_STRING_OR_NULL: return t->kind == CEL_T_STRING || t->kind == CEL_T_NULL;
    default: return true;
    }
}

bool kg_acel_compile(const kg_acel_env *env, kg_arena *a, const char *src, kg_acel_return ret, kg_acel_expr *out)
{
    memset(out, 0, sizeof *out);
    out->source = src;
    out->env = env;
    if (!env || !env->env) {
        out->error = "unexpected error loading CEL environment";
        return false;
    }
    cel_error err;
    cel_program *p = NULL;
    if (!cel_compile(env->env, src, NULL, &p, &err)) {
        out->error = kg_arena_sprintf(a, "compilation failed: %s", err.message);
        return false;
    }
    const cel_type *t = cel_program_type(p);
    if (!return_type_ok(t, ret)) {
        char tb[256];
        cel_type_format(t, tb, sizeof tb);
        out->error =
            kg_arena_sprintf(a, "must evaluate to %s%s but got %s",
                             ret == KG_ACEL_RETURN_STRING_OR_NULL ? "one of " : "", return_types_string(ret), tb);
        cel_program_free(p);
        return false;
    }
    out->prog = p;
    out->type = t;
    return true;
}

void kg_acel_expr_free(kg_acel_expr *e)
{
    if (e && e->prog) {
        cel_program_free(e->prog);
        e->prog = NULL;
    }
}

bool kg_acel_vars_new(kg_acel_vars *v, kg_arena *a, unsigned decls, const char *const *names, const char *const *exprs,
                      size_t n, bool typed)
{
    return kg_acel_vars_new_typed(v, a, decls, names, exprs, n, typed, NULL);
}

bool kg_acel_vars_new_typed(kg_acel_vars *v, kg_arena *a, unsigned decls, const char *const *names,
                            const char *const *exprs, size_t n, bool typed, const kg_acel_types *types)
{
    memset(v, 0, sizeof *v);
    v->decls = decls;
    v->typed = typed;
    cel_type *full_t = NULL;
    if (typed) {
        if (!env_build(&v->full, decls & (KG_ACEL_PARAMS | KG_ACEL_AUTHORIZER | KG_ACEL_MUTATION), &full_t, types))
            return false;
    } else {
        const kg_acel_env *shared = kg_acel_env_base(
            (decls & (KG_ACEL_PARAMS | KG_ACEL_AUTHORIZER | KG_ACEL_MUTATION)) | KG_ACEL_DYN_VARIABLES);
        if (!shared)
            return false;
        v->full = *shared; /* borrowed: never freed here */
    }
    v->items = n ? kg_arena_calloc(a, n * sizeof *v->items) : NULL;
    v->n = n;
    for (size_t i = 0; i < n; i++) {
        v->items[i].name = names[i];
        /* variable i is compiled seeing the variables before it, then becomes a field of `variables` */
        kg_acel_compile(&v->full, a, exprs[i], KG_ACEL_RETURN_ANY, &v->items[i].expr);
        if (typed) {
            const cel_type *t = v->items[i].expr.type ? v->items[i].expr.type : cel_type_dyn();
            cel_type_object_add_field(v->full.env, full_t, names[i], t);
        }
    }
    return true;
}

void kg_acel_vars_free(kg_acel_vars *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++)
        kg_acel_expr_free(&v->items[i].expr);
    if (v->typed && v->full.env)
        cel_env_free(v->full.env);
    memset(v, 0, sizeof *v);
}

bool kg_acel_vars_compile(const kg_acel_vars *v, kg_arena *a, const char *src, kg_acel_return ret, bool no_authorizer,
                          kg_acel_expr *out)
{
    /* untyped variables are dyn: the result type was checked when the policy was written */
    if (!kg_acel_compile(&v->full, a, src, v->typed ? ret : KG_ACEL_RETURN_ANY, out))
        return false;
    if (!no_authorizer)
        return true;
    kg_acel_expr check;
    unsigned d = (v->decls & (KG_ACEL_PARAMS | KG_ACEL_MUTATION)) | KG_ACEL_DYN_VARIABLES;
    if (kg_acel_compile(kg_acel_env_base(d), a, src, KG_ACEL_RETURN_ANY, &check)) {
        kg_acel_expr_free(&check);
        return true;
    }
    kg_acel_expr_free(out);
    out->error = check.error;
    out->type = NULL;
    return false;
}

const char *kg_acel_check_new_expression(unsigned decls, kg_arena *a, const char *src)
{
    kg_acel_expr check;
    unsigned d = (decls & (KG_ACEL_PARAMS | KG_ACEL_AUTHORIZER | KG_ACEL_DYN_VARIABLES | KG_ACEL_MUTATION)) |
                 KG_ACEL_NEW_EXPRESSIONS;
    if (kg_acel_compile(kg_acel_env_base(d), a, src, KG_ACEL_RETURN_ANY, &check)) {
        kg_acel_expr_free(&check);
        return NULL;
    }
    return check.error;
}
