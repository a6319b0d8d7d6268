/* Compiling MutatingAdmissionPolicies and their bindings, which is also their write-time validation (mutating.h).
 *
 * The parts a MAP shares with a ValidatingAdmissionPolicy are compiled by kg_vap_policy_compile over a VAP-shaped
 * view of the object (failurePolicy, paramKind, matchConstraints, matchConditions, and one constant validation so
 * the VAP's own "validations or auditAnnotations" rule holds): same field paths, messages and run-time form. A
 * binding is compiled by kg_vap_binding_compile over a view with validationActions [Deny] (MAP bindings have
 * none). The rest follows upstream's validateMutatingAdmissionPolicySpec (v1.34): operations of the
 * matchConstraints limited to CREATE, UPDATE, CONNECT and "*"; variables and mutations compiled in the mutation
 * environment (`Object`, `JSONPatch`, `jsonpatch.escapeKey`); `mutations must contain at least one item`; the
 * patchType union; reinvocationPolicy Never or IfNeeded. */
#include <stdlib.h>
#include <string.h>

#include "admission/policy/mutating/mutating.h"
#include "admission/policy/policy_internal.h"

#define CONSTANT_VALIDATION "true"

static const char *str_or_empty(const kg_json *o, const char *k)
{
    const char *s = kg_json_get_str(o, k);
    return s ? s : "";
}

typedef kg_policy_cctx cctx;
#define fe_required kg_policy_fe_required
#define fe_invalid kg_policy_fe_invalid
#define fe_not_supported kg_policy_fe_not_supported

/* The VAP-shaped view of a MAP: what kg_vap_policy_compile validates and compiles for both kinds. */
static kg_json *vap_view(kg_arena *a, const kg_json *obj)
{
    kg_json *v = kg_json_new_object(a);
    const kg_json *md = kg_json_get(obj, "metadata");
    if (md)
        kg_json_set(a, v, "metadata", (kg_json *)md);
    const kg_json *spec = kg_json_get(obj, "spec");
    kg_json *vs = kg_json_new_object(a);
    static const char *const shared[] = {"failurePolicy", "paramKind", "matchConstraints", "matchConditions"};
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++) {
        const kg_json *x = kg_json_get(spec, shared[i]);
        if (x)
            kg_json_set(a, vs, shared[i], (kg_json *)x);
    }
    kg_json *val = kg_json_new_object(a);
    kg_json_set(a, val, "expression", kg_json_new_str(a, CONSTANT_VALIDATION));
    kg_json *vals = kg_json_new_array(a);
    kg_json_array_append(a, vals, val);
    kg_json_set(a, vs, "validations", vals);
    kg_json_set(a, v, "spec", vs);
    return v;
}

/* matchConstraints may only name operations a mutation can act on (no DELETE). */
static void mutating_operations(cctx *c, const kg_json *mc)
{
    static const char *const ops[] = {"*", "CONNECT", "CREATE", "UPDATE"};
    const kg_json *rules = kg_json_get(mc, "resourceRules");
    for (size_t i = 0; rules && rules->type == KG_JSON_ARRAY && i < rules->len; i++) {
        const kg_json *o = kg_json_get(kg_json_at(rules, i), "operations");
        for (size_t j = 0; o && o->type == KG_JSON_ARRAY && j < o->len; j++) {
            const kg_json *op = kg_json_at(o, j);
            const char *s = op->type == KG_JSON_STRING ? op->u.s : "";
            bool ok = false;
            for (size_t k = 0; k < 4; k++)
                ok = ok || !strcmp(s, ops[k]);
            if (!ok)
                fe_not_supported(c, "spec.matchConstraints.resourceRules.operations", s, ops, 4);
        }
    }
}

/* The result type upstream asks for (Object / list(JSONPatch)); dyn results are left to the run time. */
static const char *result_type_error(kg_arena *a, const kg_acel_expr *e, kg_map_patch_type t)
{
    if (!e->type)
        return NULL;
    char tb[256];
    cel_type_format(e->type, tb, sizeof tb);
    const char *want = t == KG_MAP_APPLY_CONFIGURATION ? "Object" : "list(JSONPatch)";
    if (!strcmp(tb, want) || !strcmp(tb, "dyn") || (t == KG_MAP_JSON_PATCH && !strcmp(tb, "list(dyn)")))
        return NULL;
    return kg_arena_sprintf(a, "must evaluate to %s but got %s", want, tb);
}

static void mutations(cctx *c, kg_map_policy *p, const kg_json *list, const kg_acel_env *env)
{
    static const char *const types[] = {"ApplyConfiguration", "JSONPatch"};
    size_t n = list && list->type == KG_JSON_ARRAY ? list->len : 0;
    if (!n)
        fe_required(c, "spec.mutations", "mutations must contain at least one item");
    p->mutations = n ? kg_arena_calloc(c->a, n * sizeof *p->mutations) : NULL;
    p->nmutations = n;
    for (size_t i = 0; i < n; i++) {
        const kg_json *m = kg_json_at(list, i);
        kg_map_mutation *out = &p->mutations[i];
        char *mp = kg_arena_sprintf(c->a, "spec.mutations[%zu]", i);
        const char *pt = str_or_empty(m, "patchType");
        const kg_json *ac = kg_json_get(m, "applyConfiguration");
        const kg_json *jp = kg_json_get(m, "jsonPatch");
        bool has_ac = ac && ac->type != KG_JSON_NULL, has_jp = jp && jp->type != KG_JSON_NULL;
        out->expr.error = "mutation is not valid";
        if (!*pt) {
            fe_required(c, kg_arena_sprintf(c->a, "%s.patchType", mp), "");
            continue;
        }
        const kg_json *holder = NULL;
        const char *field = NULL;
        if (!strcmp(pt, "JSONPatch")) {
            out->type = KG_MAP_JSON_PATCH;
            field = "jsonPatch";
            holder = has_jp ? jp : NULL;
            if (!has_jp)
                fe_required(c, kg_arena_sprintf(c->a, "%s.jsonPatch", mp),
                            "must be specified when patchType is JSONPatch");
            if (has_ac)
                fe_invalid(c, kg_arena_sprintf(c->a, "%s.applyConfiguration", mp), "{applyConfiguration}",
                           "must not be specified when patchType is JSONPatch");
        } else if (!strcmp(pt, "ApplyConfiguration")) {
            out->type = KG_MAP_APPLY_CONFIGURATION;
            field = "applyConfiguration";
            holder = has_ac ? ac : NULL;
            if (!has_ac)
                fe_required(c, kg_arena_sprintf(c->a, "%s.applyConfiguration", mp),
                            "must be specified when patchType is ApplyConfiguration");
            if (has_jp)
                fe_invalid(c, kg_arena_sprintf(c->a, "%s.jsonPatch", mp), "{jsonPatch}",
                           "must not be specified when patchType is ApplyConfiguration");
        } else {
            fe_not_supported(c, kg_arena_sprintf(c->a, "%s.patchType", mp), pt, types, 2);
            continue;
        }
        if (!holder)
            continue;
        const char *path = kg_arena_sprintf(c->a, "%s.%s.expression", mp, field);
        const char *src = kg_arena_strdup(c->a, str_or_empty(holder, "expression"));
        const char *t = kg_vap_trim(c->a, src);
        out->expr.source = src;
        if (!*t) {
            fe_required(c, path, "");
            out->expr.error = "expression is not specified";
            continue;
        }
        /* upstream compiles the trimmed expression */
        bool ok = p->has_vars ? kg_acel_vars_compile(&p->vars, c->a, t, KG_ACEL_RETURN_ANY, false, &out->expr)
                              : kg_acel_compile(env, c->a, t, KG_ACEL_RETURN_ANY, &out->expr);
        if (!ok) {
            fe_invalid(c, path, src, out->expr.error);
            continue;
        }
        const char *terr = result_type_error(c->a, &out->expr, out->type);
        if (terr && c->errs) {
            fe_invalid(c, path, src, terr);
            kg_acel_expr_free(&out->expr);
            out->expr.error = terr;
        }
    }
}

static bool json_has_string(const kg_json *j, const char *s)
{
    if (!j)
        return false;
    if (j->type == KG_JSON_STRING)
        return !strcmp(j->u.s, s);
    for (size_t i = 0; (j->type == KG_JSON_ARRAY || j->type == KG_JSON_OBJECT) && i < j->len; i++)
        if (json_has_string(j->type == KG_JSON_ARRAY ? j->u.items[i] : j->u.members[i].val, s))
            return true;
    return false;
}

/* Expressions new in this write must also compile with the previous minor version's libraries (as VAP). */
static void check_new(cctx *c, const kg_map_policy *p, const kg_json *old_spec)
{
    unsigned base = (p->common && p->common->has_param_kind ? KG_ACEL_PARAMS : 0) | KG_ACEL_MUTATION |
                    KG_ACEL_AUTHORIZER | (p->has_vars ? KG_ACEL_DYN_VARIABLES : 0);
    for (size_t i = 0; p->has_vars && i < p->vars.n; i++) {
        const kg_acel_expr *e = &p->vars.items[i].expr;
        if (!e->prog || (old_spec && json_has_string(old_spec, e->source)))
            continue;
        const char *err = kg_acel_check_new_expression(base, c->a, e->source);
        if (err)
            fe_invalid(c, kg_arena_sprintf(c->a, "spec.variables[%zu].expression", i), e->source, err);
    }
    for (size_t i = 0; i < p->nmutations; i++) {
        const kg_map_mutation *m = &p->mutations[i];
        if (!m->expr.prog || (old_spec && json_has_string(old_spec, m->expr.source)))
            continue;
        const char *err = kg_acel_check_new_expression(base, c->a, m->expr.source);
        if (err)
            fe_invalid(c,
                       kg_arena_sprintf(c->a, "spec.mutations[%zu].%s.expression", i,
                                        m->type == KG_MAP_JSON_PATCH ? "jsonPatch" : "applyConfiguration"),
                       m->expr.source, err);
    }
}

kg_map_policy *kg_map_policy_compile(const kg_json *obj, const kg_json *old, const kg_admission_services *svc,
                                     kg_arena *ea, kg_field_errors *errs)
{
    if (!obj || obj->type != KG_JSON_OBJECT)
        return NULL;
    kg_map_policy *p = calloc(1, sizeof *p);
    atomic_init(&p->refs, 1);
    kg_arena_init(&p->arena, 0);
    cctx c = {errs ? ea : &p->arena, errs, &p->config_error};
    if (!errs)
        obj = kg_json_clone(c.a, obj);
    p->common = kg_vap_policy_compile(vap_view(c.a, obj), old ? vap_view(c.a, old) : NULL, svc, ea, errs);
    const kg_json *spec = kg_json_get(obj, "spec");
    const kg_json *mc = kg_json_get(spec, "matchConstraints");
    if (mc && mc->type == KG_JSON_OBJECT)
        mutating_operations(&c, mc);
    unsigned decls = (p->common->has_param_kind ? KG_ACEL_PARAMS : 0) | KG_ACEL_AUTHORIZER | KG_ACEL_MUTATION;
    p->has_vars = kg_policy_compile_variables(&c, &p->vars, kg_json_get(spec, "variables"), decls);
    mutations(&c, p, kg_json_get(spec, "mutations"), kg_acel_env_base(decls));

    static const char *const policies[] = {"IfNeeded", "Never"};
    const char *rp = str_or_empty(spec, "reinvocationPolicy");
    if (!*rp)
        fe_required(&c, "spec.reinvocationPolicy", "");
    else if (strcmp(rp, "Never") && strcmp(rp, "IfNeeded"))
        fe_not_supported(&c, "spec.reinvocationPolicy", rp, policies, 2);
    p->reinvoke_if_needed = !strcmp(rp, "IfNeeded");
    if (errs)
        check_new(&c, p, old ? kg_json_get(old, "spec") : NULL);
    return p;
}

kg_map_policy *kg_map_policy_ref(kg_map_policy *p)
{
    if (p)
        atomic_fetch_add(&p->refs, 1);
    return p;
}

void kg_map_policy_unref(kg_map_policy *p)
{
    if (!p || atomic_fetch_sub(&p->refs, 1) != 1)
        return;
    for (size_t i = 0; i < p->nmutations; i++)
        kg_acel_expr_free(&p->mutations[i].expr);
    if (p->has_vars)
        kg_acel_vars_free(&p->vars);
    kg_vap_policy_unref(p->common);
    kg_arena_free(&p->arena);
    free(p);
}

kg_map_binding *kg_map_binding_compile(const kg_json *obj, kg_arena *ea, kg_field_errors *errs)
{
    if (!obj || obj->type != KG_JSON_OBJECT)
        return NULL;
    kg_arena tmp;
    kg_arena_init(&tmp, 0);
    kg_arena *a = errs ? ea : &tmp;
    /* the VAP binding view: a MAP binding has no validationActions */
    kg_json *v = kg_json_clone(a, obj);
    kg_json *spec = kg_json_get(v, "spec");
    if (!spec || spec->type != KG_JSON_OBJECT) {
        spec = kg_json_new_object(a);
        kg_json_set(a, v, "spec", spec);
    }
    kg_json *acts = kg_json_new_array(a);
    kg_json_array_append(a, acts, kg_json_new_str(a, "Deny"));
    kg_json_set(a, spec, "validationActions", acts);
    kg_map_binding *b = calloc(1, sizeof *b);
    atomic_init(&b->refs, 1);
    b->common = kg_vap_binding_compile(v, ea, errs);
    const kg_json *rules = kg_json_path(v, "spec.matchResources.resourceRules");
    static const char *const ops[] = {"*", "CONNECT", "CREATE", "UPDATE"};
    for (size_t i = 0; errs && rules && rules->type == KG_JSON_ARRAY && i < rules->len; i++) {
        const kg_json *o = kg_json_get(kg_json_at(rules, i), "operations");
        for (size_t j = 0; o && o->type == KG_JSON_ARRAY && j < o->len; j++) {
            const char *s = kg_json_at(o, j)->type == KG_JSON_STRING ? kg_json_at(o, j)->u.s : "";
            if (strcmp(s, "*") && strcmp(s, "CONNECT") && strcmp(s, "CREATE") && strcmp(s, "UPDATE"))
                kg_field_not_supported(ea, errs, "spec.matchResources.resourceRules.operations", s, ops, 4);
        }
    }
    kg_arena_free(&tmp);
    return b;
}

kg_map_binding *kg_map_binding_ref(kg_map_binding *b)
{
    if (b)
        atomic_fetch_add(&b->refs, 1);
    return b;
}

void kg_map_binding_unref(kg_map_binding *b)
{
    if (!b || atomic_fetch_sub(&b->refs, 1) != 1)
        return;
    kg_vap_binding_unref(b->common);
    free(b);
}

/* ---- registry hooks ---- */

void kg_map_policy_defaults(kg_arena *a, kg_json *obj)
{
    kg_vap_policy_defaults(a, obj); /* failurePolicy Fail, matchConstraints */
    kg_json *spec = kg_json_get(obj, "spec");
    if (!spec || spec->type != KG_JSON_OBJECT)
        return;
    const kg_json *rp = kg_json_get(spec, "reinvocationPolicy");
    if (!rp || rp->type == KG_JSON_NULL)
        kg_json_set(a, spec, "reinvocationPolicy", kg_json_new_str(a, "Never"));
}

void kg_map_binding_defaults(kg_arena *a, kg_json *obj)
{
    kg_vap_binding_defaults(a, obj);
    /* SetDefaults_ParamRef of the v1alpha1 / v1beta1 API: parameterNotFoundAction Deny */
    kg_json *pr = kg_json_path(obj, "spec.paramRef");
    if (pr && pr->type == KG_JSON_OBJECT) {
        const kg_json *x = kg_json_get(pr, "parameterNotFoundAction");
        if (!x || x->type == KG_JSON_NULL)
            kg_json_set(a, pr, "parameterNotFoundAction", kg_json_new_str(a, "Deny"));
    }
}

void kg_map_policy_validate(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    kg_map_policy_unref(kg_map_policy_compile(obj, old, NULL, a, errs));
}

void kg_map_binding_validate(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    (void)old;
    kg_map_binding_unref(kg_map_binding_compile(obj, a, errs));
}
