/* Compiling ValidatingAdmissionPolicies and their bindings, which is also their write-time validation (policy.h).
 * Field paths and messages follow pkg/apis/admissionregistration/validation/validation.go (v1.33), including its
 * misspelt `spec.matchResouces` path for a binding's matchResources. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "admission/policy/policy.h"
#include "admission/match/rules_validate.h"
#include "admission/policy/policy_internal.h"
#include "base/buf.h"
#include "meta/names.h"

/* ---- helpers ---- */

const char *kg_vap_trim_n(kg_arena *a, const char *s, size_t n)
{
    if (!s)
        return "";
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return kg_arena_strndup(a, s, n);
}

const char *kg_vap_trim(kg_arena *a, const char *s)
{
    return kg_vap_trim_n(a, s, s ? strlen(s) : 0);
}

static bool has_newline(const char *s)
{
    return strchr(s, '\n') || strchr(s, '\r');
}

static const char *str_or_empty(const kg_json *o, const char *k)
{
    const char *s = kg_json_get_str(o, k);
    return s ? s : "";
}

typedef kg_policy_cctx cctx;

static void config_error(cctx *c, const char *msg)
{
    if (!*c->config_error)
        *c->config_error = kg_arena_strdup(c->a, msg);
}

/* Field errors matter when validating; at run time the stored object was validated when written, and what still
 * cannot run surfaces as upstream does: an expression that does not compile errors when evaluated ("compilation
 * error: ..."), an unknown paramKind or undecodable match criteria are config errors. */
#define fe_required kg_policy_fe_required
#define fe_invalid kg_policy_fe_invalid
#define fe_not_supported kg_policy_fe_not_supported

static void fe_name_errs(cctx *c, const char *path, const char *value, const kg_name_errs *ne)
{
    for (size_t i = 0; i < ne->n; i++)
        fe_invalid(c, path, value, ne->msg[i]);
}

static char *path_of(cctx *c, const char *base, const char *child)
{
    return kg_arena_sprintf(c->a, "%s.%s", base, child);
}

/* ---- MatchResources (validateMatchResources) ---- */

static void validate_rules(cctx *c, const kg_json *rules, const char *path)
{
    if (!c->errs || !rules || rules->type != KG_JSON_ARRAY)
        return;
    for (size_t i = 0; i < rules->len; i++)
        kg_match_rule_validate(c->a, kg_json_at(rules, i), kg_arena_sprintf(c->a, "%s[%zu]", path, i), true, c->errs);
}

static void validate_selector(cctx *c, const kg_json *sel, const char *path)
{
    if (!sel || sel->type == KG_JSON_NULL) {
        fe_required(c, path, "");
        return;
    }
    if (c->errs)
        kg_validate_label_selector(c->a, sel, false, path, c->errs);
}

static void validate_match_resources(cctx *c, const kg_json *mr, const char *path)
{
    static const char *const policies[] = {"Equivalent", "Exact"};
    const kg_json *mp = kg_json_get(mr, "matchPolicy");
    if (!mp || mp->type == KG_JSON_NULL)
        fe_required(c, path_of(c, path, "matchPolicy"), "");
    else if (mp->type != KG_JSON_STRING || (strcmp(mp->u.s, "Equivalent") && strcmp(mp->u.s, "Exact")))
        fe_not_supported(c, path_of(c, path, "matchPolicy"), mp->type == KG_JSON_STRING ? mp->u.s : NULL, policies, 2);
    validate_selector(c, kg_json_get(mr, "namespaceSelector"), path_of(c, path, "namespaceSelector"));
    validate_selector(c, kg_json_get(mr, "objectSelector"), path_of(c, path, "objectSelector"));
    validate_rules(c, kg_json_get(mr, "resourceRules"), path_of(c, path, "resourceRules"));
    validate_rules(c, kg_json_get(mr, "excludeResourceRules"), path_of(c, path, "excludeResourceRules"));
}

static void decode_match(cctx *c, const kg_json *mr, const char *path, kg_match_criteria *out)
{
    KG_ERROR_DECL(e);
    if (!kg_match_criteria_from_resources(c->a, mr, out, &e)) {
        if (!*c->config_error)
            config_error(c, kg_arena_sprintf(c->a, "%s: %s", path, e.msg));
        memset(out, 0, sizeof *out);
    }
}

/* ---- paramKind (validateParamKind) ---- */

static void param_kind(cctx *c, kg_vap_policy *p, const kg_json *pk, const kg_admission_services *svc)
{
    const char *path = "spec.paramKind";
    const char *av = str_or_empty(pk, "apiVersion"), *kind = str_or_empty(pk, "kind");
    p->has_param_kind = true;
    p->param_api_version = kg_arena_strdup(c->a, av);
    p->param_kind = kg_arena_strdup(c->a, kind);
    const char *group = "", *version = av;
    const char *slash = strchr(av, '/');
    if (!*av) {
        fe_required(c, path_of(c, path, "apiVersion"), "");
    } else if (slash && strchr(slash + 1, '/')) {
        fe_invalid(c, path_of(c, path, "apiVersion"), av,
                   kg_arena_sprintf(c->a, "unexpected GroupVersion string: %s", av));
    } else {
        if (slash && strcmp(av, "/")) {
            group = kg_arena_strndup(c->a, av, (size_t)(slash - av));
            version = slash + 1;
        }
        kg_name_errs ne = {0};
        if (*group && !kg_is_dns1123_subdomain(group, &ne))
            fe_invalid(c, path_of(c, path, "apiVersion"), group, kg_vap_join(c->a, &ne));
        if (!*version) {
            fe_invalid(c, path_of(c, path, "apiVersion"), av, "version must be specified");
        } else {
            kg_name_errs ve = {0};
            if (!kg_is_dns1035_label(version, &ve))
                fe_invalid(c, path_of(c, path, "apiVersion"), version, kg_vap_join(c->a, &ve));
        }
    }
    if (!*kind) {
        fe_required(c, path_of(c, path, "kind"), "");
    } else {
        char *lower = kg_arena_strdup(c->a, kind);
        for (char *q = lower; *q; q++)
            *q = (char)tolower((unsigned char)*q);
        kg_name_errs ne = {0};
        if (!kg_is_dns1035_label(lower, &ne))
            fe_invalid(
                c, path_of(c, path, "kind"), kind,
                kg_arena_sprintf(c->a, "may have mixed case, but should otherwise match: %s", kg_vap_join(c->a, &ne)));
    }
    if (svc && *kind) {
        const char *plural;
        bool namespaced;
        if (kg_admission_resource_for_kind(svc, c->a, group, version, kind, &plural, &namespaced)) {
            p->param_resource = plural;
            p->param_namespaced = namespaced;
        } else {
            config_error(c, kg_arena_sprintf(c->a, "failed to find resource referenced by paramKind: '%s/%s, Kind=%s'",
                                             group, version, kind));
        }
    }
}

/* ---- variables, validations, auditAnnotations ---- */

bool kg_vap_is_cel_identifier(const char *s)
{
    static const char *const reserved[] = {"true",     "false",   "null",      "in",       "as",  "break",  "const",
                                           "continue", "else",    "for",       "function", "if",  "import", "let",
                                           "loop",     "package", "namespace", "return",   "var", "void",   "while"};
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (const char *q = s; *q; q++)
        if (!(isalnum((unsigned char)*q) || *q == '_'))
            return false;
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (!strcmp(s, reserved[i]))
            return false;
    return true;
}

static void compile_expr(cctx *c, const kg_acel_env *env, const char *src, kg_acel_return ret, const char *path,
                         kg_acel_expr *out)
{
    if (!kg_acel_compile(env, c->a, src, ret, out))
        fe_invalid(c, path, src, out->error);
}

bool kg_policy_compile_variables(cctx *c, kg_acel_vars *vars, const kg_json *list, unsigned decls)
{
    size_t n = list && list->type == KG_JSON_ARRAY ? list->len : 0;
    if (!n)
        return false;
    const char **names = kg_arena_calloc(c->a, n * sizeof *names);
    const char **exprs = kg_arena_calloc(c->a, n * sizeof *exprs);
    for (size_t i = 0; i < n; i++) {
        const kg_json *v = kg_json_at(list, i);
        char *vp = kg_arena_sprintf(c->a, "spec.variables[%zu]", i);
        names[i] = kg_arena_strdup(c->a, str_or_empty(v, "name"));
        exprs[i] = kg_arena_strdup(c->a, str_or_empty(v, "expression"));
        if (!*kg_vap_trim(c->a, names[i]))
            fe_required(c, path_of(c, vp, "name"), "name is not specified");
        else if (!kg_vap_is_cel_identifier(names[i]))
            fe_invalid(c, path_of(c, vp, "name"), names[i], "name is not a valid CEL identifier");
        if (!*kg_vap_trim(c->a, exprs[i]))
            fe_required(c, path_of(c, vp, "expression"), "expression is not specified");
    }
    /* validation checks types in an environment of the policy's own; running needs no environment of its own */
    if (!kg_acel_vars_new(vars, c->a, decls, names, exprs, n, c->errs != NULL)) {
        config_error(c, "unexpected error loading CEL environment");
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (*kg_vap_trim(c->a, exprs[i]) && vars->items[i].expr.error)
            fe_invalid(c, kg_arena_sprintf(c->a, "spec.variables[%zu].expression", i), exprs[i],
                       vars->items[i].expr.error);
    return true;
}

/* With untyped variables (a policy compiled to run) result types are not checked again: they were on write. */
static kg_acel_return checked(const kg_vap_policy *p, kg_acel_return ret)
{
    return p->has_vars && !p->vars.typed ? KG_ACEL_RETURN_ANY : ret;
}

static void validations(cctx *c, kg_vap_policy *p, const kg_json *list, const kg_acel_env *env,
                        const kg_acel_env *msg_env)
{
    static const char *const reasons[] = {"Forbidden", "Invalid", "RequestEntityTooLarge"};
    size_t n = list && list->type == KG_JSON_ARRAY ? list->len : 0;
    p->validations = n ? kg_arena_calloc(c->a, n * sizeof *p->validations) : NULL;
    p->nvalidations = n;
    for (size_t i = 0; i < n; i++) {
        const kg_json *v = kg_json_at(list, i);
        kg_vap_validation *out = &p->validations[i];
        char *vp = kg_arena_sprintf(c->a, "spec.validations[%zu]", i);
        const char *expr = kg_arena_strdup(c->a, str_or_empty(v, "expression"));
        const char *msg = str_or_empty(v, "message");
        const char *mexpr = kg_arena_strdup(c->a, str_or_empty(v, "messageExpression"));
        out->expr.source = expr;
        if (!*kg_vap_trim(c->a, expr)) {
            fe_required(c, path_of(c, vp, "expression"), "expression is not specified");
            out->expr.error = "expression is not specified";
        } else {
            compile_expr(c, env, expr, checked(p, KG_ACEL_RETURN_BOOL), path_of(c, vp, "expression"), &out->expr);
        }
        if (*mexpr && !*kg_vap_trim(c->a, mexpr))
            fe_invalid(c, path_of(c, vp, "messageExpression"), mexpr, "must be non-empty if specified");
        else if (*mexpr && p->has_vars) {
            if (!kg_acel_vars_compile(&p->vars, c->a, mexpr, KG_ACEL_RETURN_STRING, true, &out->message_expr))
                fe_invalid(c, path_of(c, vp, "messageExpression"), mexpr, out->message_expr.error);
        } else if (*mexpr)
            compile_expr(c, msg_env, mexpr, KG_ACEL_RETURN_STRING, path_of(c, vp, "messageExpression"),
                         &out->message_expr);
        const char *tmsg = kg_vap_trim(c->a, msg);
        if (*msg && !*tmsg)
            fe_invalid(c, path_of(c, vp, "message"), msg, "message must be non-empty if specified");
        else if (has_newline(tmsg))
            fe_invalid(c, path_of(c, vp, "message"), msg, "message must not contain line breaks");
        out->message = tmsg;
        const kg_json *reason = kg_json_get(v, "reason");
        out->reason = "Invalid";
        if (reason && reason->type != KG_JSON_NULL) {
            const char *r = reason->type == KG_JSON_STRING ? reason->u.s : "";
            bool ok = !strcmp(r, "Forbidden") || !strcmp(r, "Invalid") || !strcmp(r, "RequestEntityTooLarge");
            if (!ok && c->errs)
                fe_not_supported(c, path_of(c, vp, "reason"), r, reasons, 3);
            /* stored objects may say Unauthorized (the API documents it); the runtime maps it to 401 */
            out->reason = kg_arena_strdup(c->a, r);
        }
    }
}

static void audit_annotations(cctx *c, kg_vap_policy *p, const kg_json *list, const kg_acel_env *env)
{
    size_t n = list && list->type == KG_JSON_ARRAY ? list->len : 0;
    if (n > KG_VAP_MAX_AUDIT_ANNOTATIONS && c->errs) {
        /* field.Invalid with the list as Go's %#v prints it */
        kg_buf b = KG_BUF_INIT;
        kg_buf_puts(&b, "[]admissionregistration.AuditAnnotation{");
        for (size_t i = 0; i < n; i++) {
            const char *k = str_or_empty(kg_json_at(list, i), "key");
            const char *v = str_or_empty(kg_json_at(list, i), "valueExpression");
            kg_buf_puts(&b, i ? ", admissionregistration.AuditAnnotation{Key:"
                              : "admissionregistration.AuditAnnotation{Key:");
            kg_meta_quote(&b, k, strlen(k));
            kg_buf_puts(&b, ", ValueExpression:");
            kg_meta_quote(&b, v, strlen(v));
            kg_buf_puts(&b, "}");
        }
        kg_buf_puts(&b, "}");
        kg_field_invalid_raw(
            c->a, c->errs, "spec.auditAnnotations", b.data,
            kg_arena_sprintf(c->a, "must not have more than %d auditAnnotations", KG_VAP_MAX_AUDIT_ANNOTATIONS));
        kg_buf_free(&b);
    }
    p->audits = n ? kg_arena_calloc(c->a, n * sizeof *p->audits) : NULL;
    p->naudits = n;
    for (size_t i = 0; i < n; i++) {
        const kg_json *v = kg_json_at(list, i);
        kg_vap_audit_annotation *out = &p->audits[i];
        char *ap = kg_arena_sprintf(c->a, "spec.auditAnnotations[%zu]", i);
        out->key = kg_arena_strdup(c->a, str_or_empty(v, "key"));
        if (*p->name) {
            const char *full = kg_arena_sprintf(c->a, "%s/%s", p->name, out->key);
            kg_name_errs ne = {0};
            if (!kg_is_qualified_name(full, &ne))
                fe_name_errs(c, path_of(c, ap, "key"), full, &ne);
        } else {
            fe_invalid(c, path_of(c, ap, "key"), out->key, "requires metadata.name be non-empty");
        }
        const char *expr = kg_arena_strdup(c->a, str_or_empty(v, "valueExpression"));
        const char *t = kg_vap_trim(c->a, expr);
        out->expr.source = expr;
        if (!*t) {
            fe_required(c, path_of(c, ap, "valueExpression"), "valueExpression is not specified");
            out->expr.error = "valueExpression is not specified";
        } else if (strlen(t) > KG_VAP_MAX_AUDIT_VALUE_EXPRESSION) {
            if (c->errs)
                kg_field_too_long(c->a, c->errs, path_of(c, ap, "valueExpression"), KG_VAP_MAX_AUDIT_VALUE_EXPRESSION);
            out->expr.error = "valueExpression is too long";
        } else {
            compile_expr(c, env, expr, checked(p, KG_ACEL_RETURN_STRING_OR_NULL), path_of(c, ap, "valueExpression"),
                         &out->expr);
        }
        for (size_t j = 0; j < i; j++)
            if (!strcmp(p->audits[j].key, out->key)) {
                if (c->errs)
                    kg_field_duplicate(c->a, c->errs, path_of(c, ap, "key"), out->key);
                break;
            }
    }
}

/* Whether a string value equal to s appears anywhere in j. */
static bool json_has_string(const kg_json *j, const char *s)
{
    if (!j)
        return false;
    switch (j->type) {
    case KG_JSON_STRING: return !strcmp(j->u.s, s);
    case KG_JSON_ARRAY:
        for (size_t i = 0; i < j->len; i++)
            if (json_has_string(j->u.items[i], s))
                return true;
        return false;
    case KG_JSON_OBJECT:
        for (size_t i = 0; i < j->len; i++)
            if (json_has_string(j->u.members[i].val, s))
                return true;
        return false;
    default: return false;
    }
}

/* One compiled expression that is new in this write (a create, or not among the stored object's strings): it must
 * also compile with the previous minor version's libraries. */
static void check_new(cctx *c, const kg_json *old_spec, unsigned decls, const kg_acel_expr *e, const char *path)
{
    if (!e->prog || (old_spec && json_has_string(old_spec, e->source)))
        return;
    const char *err = kg_acel_check_new_expression(decls, c->a, e->source);
    if (err)
        fe_invalid(c, path, e->source, err);
}

static void check_new_expressions(cctx *c, const kg_vap_policy *p, const kg_json *old_spec)
{
    unsigned base = p->has_param_kind ? KG_ACEL_PARAMS : 0;
    unsigned vars = p->has_vars ? KG_ACEL_DYN_VARIABLES : 0;
    for (size_t i = 0; i < p->conditions.n; i++)
        check_new(c, old_spec, base | KG_ACEL_AUTHORIZER, &p->conditions.items[i].expr,
                  kg_arena_sprintf(c->a, "spec.matchConditions[%zu].expression", i));
    for (size_t i = 0; p->has_vars && i < p->vars.n; i++)
        check_new(c, old_spec, base | vars | KG_ACEL_AUTHORIZER, &p->vars.items[i].expr,
                  kg_arena_sprintf(c->a, "spec.variables[%zu].expression", i));
    for (size_t i = 0; i < p->nvalidations; i++) {
        check_new(c, old_spec, base | vars | KG_ACEL_AUTHORIZER, &p->validations[i].expr,
                  kg_arena_sprintf(c->a, "spec.validations[%zu].expression", i));
        check_new(c, old_spec, base | vars, &p->validations[i].message_expr,
                  kg_arena_sprintf(c->a, "spec.validations[%zu].messageExpression", i));
    }
    for (size_t i = 0; i < p->naudits; i++)
        check_new(c, old_spec, base | vars | KG_ACEL_AUTHORIZER, &p->audits[i].expr,
                  kg_arena_sprintf(c->a, "spec.auditAnnotations[%zu].valueExpression", i));
}

kg_vap_policy *kg_vap_policy_compile(const kg_json *obj, const kg_json *old, const kg_admission_services *svc,
                                     kg_arena *ea, kg_field_errors *errs)
{
    if (!obj || obj->type != KG_JSON_OBJECT)
        return NULL;
    kg_vap_policy *p = calloc(1, sizeof *p);
    atomic_init(&p->refs, 1);
    kg_arena_init(&p->arena, 0);
    cctx c = {errs ? ea : &p->arena, errs, &p->config_error};
    if (!errs) /* the plugin's copy outlives the object it was given */
        obj = kg_json_clone(c.a, obj);
    p->name =
        kg_arena_strdup(c.a, kg_json_path_str(obj, "metadata.name") ? kg_json_path_str(obj, "metadata.name") : "");
    const char *rv = kg_json_path_str(obj, "metadata.resourceVersion");
    p->resource_version = kg_arena_strdup(c.a, rv ? rv : "");
    const kg_json *spec = kg_json_get(obj, "spec");

    static const char *const fps[] = {"Fail", "Ignore"};
    const kg_json *fp = kg_json_get(spec, "failurePolicy");
    if (!fp || fp->type == KG_JSON_NULL)
        fe_required(&c, "spec.failurePolicy", "");
    else if (fp->type != KG_JSON_STRING || (strcmp(fp->u.s, "Fail") && strcmp(fp->u.s, "Ignore")))
        fe_not_supported(&c, "spec.failurePolicy", fp->type == KG_JSON_STRING ? fp->u.s : NULL, fps, 2);
    else
        p->fail_open = !strcmp(fp->u.s, "Ignore");

    const kg_json *pk = kg_json_get(spec, "paramKind");
    if (pk && pk->type == KG_JSON_OBJECT)
        param_kind(&c, p, pk, svc);

    const kg_json *mc = kg_json_get(spec, "matchConstraints");
    if (!mc || mc->type != KG_JSON_OBJECT) {
        fe_required(&c, "spec.matchConstraints", "");
    } else {
        validate_match_resources(&c, mc, "spec.matchConstraints");
        const kg_json *rr = kg_json_get(mc, "resourceRules");
        if (!rr || rr->type != KG_JSON_ARRAY || rr->len == 0)
            fe_required(&c, "spec.matchConstraints.resourceRules", "");
        decode_match(&c, mc, "spec.matchConstraints", &p->match);
    }

    unsigned decls = p->has_param_kind ? KG_ACEL_PARAMS : 0;
    kg_match_conditions_compile(&p->conditions, c.a, kg_json_get(spec, "matchConditions"), p->has_param_kind,
                                "spec.matchConditions", errs);

    p->has_vars = kg_policy_compile_variables(&c, &p->vars, kg_json_get(spec, "variables"), decls | KG_ACEL_AUTHORIZER);
    const kg_acel_env *env = p->has_vars ? &p->vars.full : kg_acel_env_base(decls | KG_ACEL_AUTHORIZER);
    const kg_acel_env *msg_env = kg_acel_env_base(decls);

    const kg_json *vals = kg_json_get(spec, "validations");
    const kg_json *auds = kg_json_get(spec, "auditAnnotations");
    size_t nv = vals && vals->type == KG_JSON_ARRAY ? vals->len : 0;
    size_t na = auds && auds->type == KG_JSON_ARRAY ? auds->len : 0;
    if (nv == 0 && na == 0) {
        fe_required(&c, "spec.validations", "validations or auditAnnotations must contain at least one item");
        fe_required(&c, "spec.auditAnnotations", "validations or auditAnnotations must contain at least one item");
    } else {
        validations(&c, p, vals, env, msg_env);
        audit_annotations(&c, p, auds, env);
    }
    if (errs)
        check_new_expressions(&c, p, old ? kg_json_get(old, "spec") : NULL);
    return p;
}

kg_vap_policy *kg_vap_policy_ref(kg_vap_policy *p)
{
    if (p)
        atomic_fetch_add(&p->refs, 1);
    return p;
}

void kg_vap_policy_unref(kg_vap_policy *p)
{
    if (!p || atomic_fetch_sub(&p->refs, 1) != 1)
        return;
    for (size_t i = 0; i < p->nvalidations; i++) {
        kg_acel_expr_free(&p->validations[i].expr);
        kg_acel_expr_free(&p->validations[i].message_expr);
    }
    for (size_t i = 0; i < p->naudits; i++)
        kg_acel_expr_free(&p->audits[i].expr);
    kg_match_conditions_free(&p->conditions);
    if (p->has_vars)
        kg_acel_vars_free(&p->vars);
    kg_arena_free(&p->arena);
    free(p);
}

/* ---- bindings ---- */

static void param_ref(cctx *c, kg_vap_binding *b, const kg_json *pr)
{
    const char *path = "spec.paramRef";
    b->has_param_ref = true;
    b->param_name = kg_arena_strdup(c->a, str_or_empty(pr, "name"));
    b->param_namespace = kg_arena_strdup(c->a, str_or_empty(pr, "namespace"));
    const kg_json *sel = kg_json_get(pr, "selector");
    bool has_sel = sel && sel->type != KG_JSON_NULL;
    if (*b->param_name) {
        const char *bad = NULL;
        if (!strcmp(b->param_name, "."))
            bad = "may not be '.'";
        else if (!strcmp(b->param_name, ".."))
            bad = "may not be '..'";
        else if (strchr(b->param_name, '/'))
            bad = "may not contain '/'";
        else if (strchr(b->param_name, '%'))
            bad = "may not contain '%'";
        if (bad)
            fe_invalid(c, path_of(c, path, "name"), b->param_name, bad);
        if (has_sel) {
            if (c->errs)
                kg_field_forbidden(c->a, c->errs, path_of(c, path, "name"), "name and selector are mutually exclusive");
            config_error(c, "paramRef.name and paramRef.selector are mutually exclusive");
        }
    }
    if (has_sel) {
        KG_ERROR_DECL(e);
        if (!kg_label_selector_from_json(c->a, sel, &b->param_selector, &e))
            fe_invalid(c, path_of(c, path, "selector"), kg_json_to_string(c->a, sel, 0, NULL), e.msg);
        else
            b->has_param_selector = true;
        if (*b->param_name && c->errs)
            kg_field_forbidden(c->a, c->errs, path_of(c, path, "selector"), "name and selector are mutually exclusive");
    }
    if (!*b->param_name && !has_sel)
        fe_required(c, path, "one of name or selector must be specified");
    static const char *const actions[] = {"Deny", "Allow"};
    const kg_json *pnf = kg_json_get(pr, "parameterNotFoundAction");
    const char *a = pnf && pnf->type == KG_JSON_STRING ? pnf->u.s : "";
    if (!*a)
        fe_required(c, path_of(c, path, "parameterNotFoundAction"), "");
    else if (strcmp(a, "Deny") && strcmp(a, "Allow"))
        fe_not_supported(c, path_of(c, path, "parameterNotFoundAction"), a, actions, 2);
    b->param_not_found_deny = !strcmp(a, "Deny");
}

static void validation_actions(cctx *c, kg_vap_binding *b, const kg_json *va)
{
    static const char *const supported[] = {"Audit", "Deny", "Warn"};
    const char *path = "spec.validationActions";
    size_t n = va && va->type == KG_JSON_ARRAY ? va->len : 0;
    kg_buf raw = KG_BUF_INIT, js = KG_BUF_INIT;
    kg_buf_puts(&raw, "[]admissionregistration.ValidationAction{");
    kg_buf_puts(&js, "[");
    for (size_t i = 0; i < n; i++) {
        const kg_json *x = kg_json_at(va, i);
        const char *s = x->type == KG_JSON_STRING ? x->u.s : "";
        kg_buf_printf(&raw, "%s\"%s\"", i ? ", " : "", s);
        kg_buf_printf(&js, "%s\"%s\"", i ? "," : "", s);
        unsigned bit = !strcmp(s, "Deny")    ? KG_VAP_DENY
                       : !strcmp(s, "Warn")  ? KG_VAP_WARN
                       : !strcmp(s, "Audit") ? KG_VAP_AUDIT
                                             : 0;
        char *ip = kg_arena_sprintf(c->a, "%s[%zu]", path, i);
        if (!bit)
            fe_not_supported(c, ip, s, supported, 3);
        if (bit && (b->actions & bit)) {
            if (c->errs)
                kg_field_duplicate(c->a, c->errs, ip, s);
        }
        b->actions |= bit;
    }
    kg_buf_puts(&raw, "}");
    kg_buf_puts(&js, "]");
    if ((b->actions & KG_VAP_DENY) && (b->actions & KG_VAP_WARN) && c->errs)
        kg_field_invalid_raw(c->a, c->errs, path, raw.data,
                             "must not contain both Deny and Warn (repeating the same validation failure information "
                             "in the API response and headers serves no purpose)");
    if (n == 0) /* upstream counts the distinct values given, supported or not */
        fe_required(c, path, "at least one validation action is required");
    b->actions_json = kg_arena_strdup(c->a, js.data);
    kg_buf_free(&raw);
    kg_buf_free(&js);
}

kg_vap_binding *kg_vap_binding_compile(const kg_json *obj, kg_arena *ea, kg_field_errors *errs)
{
    if (!obj || obj->type != KG_JSON_OBJECT)
        return NULL;
    kg_vap_binding *b = calloc(1, sizeof *b);
    atomic_init(&b->refs, 1);
    kg_arena_init(&b->arena, 0);
    cctx c = {errs ? ea : &b->arena, errs, &b->config_error};
    if (!errs)
        obj = kg_json_clone(c.a, obj);
    const char *name = kg_json_path_str(obj, "metadata.name");
    b->name = kg_arena_strdup(c.a, name ? name : "");
    const char *rv = kg_json_path_str(obj, "metadata.resourceVersion");
    b->resource_version = kg_arena_strdup(c.a, rv ? rv : "");
    const kg_json *spec = kg_json_get(obj, "spec");
    b->policy_name = kg_arena_strdup(c.a, str_or_empty(spec, "policyName"));
    if (!*b->policy_name) {
        fe_required(&c, "spec.policyName", "");
    } else {
        kg_name_errs ne = {0};
        if (!kg_is_dns1123_subdomain(b->policy_name, &ne))
            fe_name_errs(&c, "spec.policyName", b->policy_name, &ne);
    }
    const kg_json *pr = kg_json_get(spec, "paramRef");
    if (pr && pr->type == KG_JSON_OBJECT)
        param_ref(&c, b, pr);
    const kg_json *mr = kg_json_get(spec, "matchResources");
    if (mr && mr->type == KG_JSON_OBJECT) {
        validate_match_resources(&c, mr, "spec.matchResouces");
        decode_match(&c, mr, "spec.matchResources", &b->match);
        b->has_match = true;
    }
    validation_actions(&c, b, kg_json_get(spec, "validationActions"));
    return b;
}

kg_vap_binding *kg_vap_binding_ref(kg_vap_binding *b)
{
    if (b)
        atomic_fetch_add(&b->refs, 1);
    return b;
}

void kg_vap_binding_unref(kg_vap_binding *b)
{
    if (!b || atomic_fetch_sub(&b->refs, 1) != 1)
        return;
    kg_arena_free(&b->arena);
    free(b);
}
