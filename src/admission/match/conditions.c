/* matchConditions: compile and evaluate (see conditions.h). */
#include "admission/match/conditions.h"

#include <ctype.h>
#include <string.h>

#include "meta/names.h"

static const char *trim(kg_arena *a, const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return kg_arena_strndup(a, s, n);
}

bool kg_match_conditions_compile(kg_match_conditions *out, kg_arena *a, const kg_json *list, bool params,
                                 const char *path, kg_field_errors *errs)
{
    memset(out, 0, sizeof *out);
    if (!list || list->type != KG_JSON_ARRAY || list->len == 0)
        return true;
    bool ok = true;
    if (list->len > KG_MATCH_CONDITIONS_MAX) {
        if (errs)
            kg_field_too_many(a, errs, path, list->len, KG_MATCH_CONDITIONS_MAX);
        ok = false;
    }
    const kg_acel_env *env = kg_acel_env_base(KG_ACEL_AUTHORIZER | (params ? KG_ACEL_PARAMS : 0));
    out->items = kg_arena_calloc(a, list->len * sizeof *out->items);
    out->n = list->len;
    for (size_t i = 0; i < list->len; i++) {
        const kg_json *c = kg_json_at(list, i);
        kg_match_condition *mc = &out->items[i];
        const char *name = kg_json_get_str(c, "name");
        const char *expr = kg_json_get_str(c, "expression");
        mc->name = name ? name : "";
        const char *trimmed = trim(a, expr ? expr : "");
        char *ipath = kg_arena_sprintf(a, "%s[%zu]", path, i);
        if (!*trimmed) {
            if (errs)
                kg_field_required(a, errs, kg_arena_sprintf(a, "%s.expression", ipath), "");
            mc->expr.source = "";
            mc->expr.error = "expression is required";
            ok = false;
        } else if (!kg_acel_compile(env, a, trimmed, KG_ACEL_RETURN_BOOL, &mc->expr)) {
            if (errs)
                kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s.expression", ipath), trimmed, mc->expr.error);
            ok = false;
        }
        if (!*mc->name) {
            if (errs)
                kg_field_required(a, errs, kg_arena_sprintf(a, "%s.name", ipath), "");
            ok = false;
        } else {
            kg_name_errs ne = {0};
            if (!kg_is_qualified_name(mc->name, &ne)) {
                for (size_t k = 0; errs && k < ne.n; k++)
                    kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s.name", ipath), mc->name, ne.msg[k]);
                ok = false;
            }
            for (size_t j = 0; j < i; j++)
                if (!strcmp(out->items[j].name, mc->name)) {
                    if (errs)
                        kg_field_duplicate(a, errs, kg_arena_sprintf(a, "%s.name", ipath), mc->name);
                    ok = false;
                    break;
                }
        }
    }
    return ok;
}

void kg_match_conditions_free(kg_match_conditions *mc)
{
    if (!mc)
        return;
    for (size_t i = 0; i < mc->n; i++)
        kg_acel_expr_free(&mc->items[i].expr);
    memset(mc, 0, sizeof *mc);
}

kg_mc_result kg_match_conditions_eval(const kg_match_conditions *mc, const kg_acel_input *in, kg_arena *a,
                                      const char **error, const char **failed)
{
    if (error)
        *error = NULL;
    if (failed)
        *failed = NULL;
    if (!mc || mc->n == 0)
        return KG_MC_MATCH;
    const char **errs = kg_arena_alloc(a, mc->n * sizeof *errs);
    size_t nerrs = 0;
    uint64_t remaining = CEL_RUNTIME_BUDGET_MATCH_CONDITIONS;
    kg_mc_result res = KG_MC_MATCH;
    for (size_t i = 0; i < mc->n; i++) {
        const kg_match_condition *c = &mc->items[i];
        if (!c->expr.prog) {
            /* filter.go: a condition that did not compile reads as its compile error */
            errs[nerrs++] = kg_arena_sprintf(a, "compilation error: %s", c->expr.error ? c->expr.error : "");
            continue;
        }
        cel_value v;
        uint64_t cost = 0;
        cel_eval_status s = kg_acel_eval(&c->expr, in, a, CEL_PER_CALL_LIMIT, &v, &cost);
        if (cost > remaining) {
            if (error)
                *error = "validation failed due to running out of cost budget, no further validation rules will be "
                         "run";
            return KG_MC_ERROR;
        }
        remaining -= cost;
        if (s != CEL_EVAL_OK) {
            const char *msg =
                s == CEL_EVAL_COST_EXCEEDED ? "operation cancelled: actual cost limit exceeded" : cel_error_message(&v);
            errs[nerrs++] = kg_arena_sprintf(a, "expression '%s' resulted in error: %s", c->expr.source, msg);
            continue;
        }
        if (v.kind == CEL_BOOL && !v.u.b && res == KG_MC_MATCH) {
            res = KG_MC_NO_MATCH;
            if (failed)
                *failed = c->name;
        }
    }
    if (res == KG_MC_NO_MATCH)
        return res;
    if (nerrs) {
        if (error)
            *error = kg_errors_aggregate(a, errs, nerrs);
        return KG_MC_ERROR;
    }
    return KG_MC_MATCH;
}
