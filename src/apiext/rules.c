/* x-kubernetes-validations rules: compile, check at CRD write, evaluate per request (rules.h). */
#include "apiext/rules.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cel/cel.h"
#include "cel/cel_json.h"
#if KGATE_HAVE_CEL_K8S
#include "cel/k8s/cel_k8s.h"
#endif

struct kg_xs_rule {
    const char *rule, *message, *message_expression, *reason, *field_path;
    bool optional_old_self, uses_old_self;
    cel_program *prog, *msg_prog;
};

/* Per-expression and per-schema estimated cost limits (apiextensions-apiserver). */
#define RULE_COST_LIMIT 10000000ull
#define MAX_MESSAGE_EXPRESSION_BYTES 5120

/* ---- the shared environment ---- */

static cel_env *env;
static int slot_self = -1, slot_old = -1;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void env_build(void)
{
    cel_env *e = cel_env_new(CEL_LIB_K8S);
    if (!e)
        return;
    cel_env_set_options(e, CEL_OPT_K8S);
#if KGATE_HAVE_CEL_K8S
    cel_k8s_options ko = {33, 0, false};
    cel_error err;
    if (!cel_k8s_register(e, &ko, &err)) {
        fprintf(stderr, "kgate: CRD validation rules CEL environment: %s\n", err.message);
        cel_env_free(e);
        return;
    }
#endif
    cel_env_declare_var(e, "self", cel_type_dyn());
    cel_env_declare_var(e, "oldSelf", cel_type_dyn());
    slot_self = cel_env_var_slot(e, "self");
    slot_old = cel_env_var_slot(e, "oldSelf");
    env = e;
}

static cel_env *rules_env(void)
{
    pthread_once(&env_once, env_build);
    return env;
}

static void free_program(void *p)
{
    cel_program_free(p);
}

static const char *str_of(const kg_json *o, const char *key)
{
    const char *s = kg_json_get_str(o, key);
    return s && s[0] ? s : NULL;
}

static bool uses_old_self(const char *rule)
{
    for (const char *p = strstr(rule, "oldSelf"); p; p = strstr(p + 1, "oldSelf")) {
        char before = p == rule ? ' ' : p[-1], after = p[7];
        bool ident = (before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z') ||
                     (before >= '0' && before <= '9') || before == '_' || before == '.';
        bool ident_after = (after >= 'a' && after <= 'z') || (after >= 'A' && after <= 'Z') ||
                           (after >= '0' && after <= '9') || after == '_';
        if (!ident && !ident_after)
            return true;
    }
    return false;
}

void kg_xs_rules_compile(kg_arena *a, kg_xs *s, const kg_json *validations)
{
    if (!validations || validations->type != KG_JSON_ARRAY || !validations->len || !rules_env())
        return;
    const kg_xs_rule **rules = kg_arena_alloc(a, validations->len * sizeof *rules);
    size_t n = 0;
    for (uint32_t i = 0; i < validations->len; i++) {
        const kg_json *v = validations->u.items[i];
        const char *rule = str_of(v, "rule");
        if (!rule)
            continue;
        kg_xs_rule *r = kg_arena_alloc(a, sizeof *r);
        memset(r, 0, sizeof *r);
        r->rule = rule;
        r->message = str_of(v, "message");
        r->message_expression = str_of(v, "messageExpression");
        r->reason = str_of(v, "reason");
        r->field_path = str_of(v, "fieldPath");
        kg_json *oos = kg_json_get(v, "optionalOldSelf");
        r->optional_old_self = oos && oos->type == KG_JSON_BOOL && oos->b;
        r->uses_old_self = uses_old_self(rule);
        cel_error err;
        if (!cel_compile(env, rule, NULL, &r->prog, &err))
            continue;
        kg_arena_on_reset(a, free_program, r->prog);
        if (r->message_expression && cel_compile(env, r->message_expression, NULL, &r->msg_prog, &err))
            kg_arena_on_reset(a, free_program, r->msg_prog);
        rules[n++] = r;
    }
    s->rules = rules;
    s->nrules = n;
}

/* ---- CRD write checks ---- */

/* Go's %#v of the internal ValidationRule, as upstream's compile errors print it. */
static char *rule_repr(kg_arena *a, const kg_json *v)
{
    kg_buf b = KG_BUF_INIT;
    const char *fields[][2] = {{"Rule", "rule"}, {"Message", "message"}, {"MessageExpression", "messageExpression"}};
    kg_buf_puts(&b, "apiextensions.ValidationRule{");
    for (size_t i = 0; i < 3; i++) {
        const char *s = kg_json_get_str(v, fields[i][1]);
        kg_buf_printf(&b, "%s%s:", i ? ", " : "", fields[i][0]);
        kg_json_write_string(&b, s ? s : "", s ? strlen(s) : 0, KG_JSON_WRITE_NO_ESCAPE_HTML);
    }
    const char *reason = kg_json_get_str(v, "reason");
    if (reason)
        kg_buf_printf(&b, ", Reason:(*apiextensions.FieldValueErrorReason)(\"%s\")", reason);
    else
        kg_buf_puts(&b, ", Reason:(*apiextensions.FieldValueErrorReason)(nil)");
    const char *fp = kg_json_get_str(v, "fieldPath");
    kg_buf_puts(&b, ", FieldPath:");
    kg_json_write_string(&b, fp ? fp : "", fp ? strlen(fp) : 0, KG_JSON_WRITE_NO_ESCAPE_HTML);
    kg_json *oos = kg_json_get(v, "optionalOldSelf");
    if (oos && oos->type == KG_JSON_BOOL)
        kg_buf_printf(&b, ", OptionalOldSelf:(*bool)(%s)}", oos->b ? "true" : "false");
    else
        kg_buf_puts(&b, ", OptionalOldSelf:(*bool)(nil)}");
    char *out = kg_arena_strndup(a, b.data, b.len);
    kg_buf_free(&b);
    return out;
}

/* "factor of 1.500000x" / "of 2.5x" / "of more than 100x" */
static char *factor(kg_arena *a, double f)
{
    if (f > 100)
        return "more than 100x";
    if (f < 1.5)
        return kg_arena_sprintf(a, "%fx", f);
    return kg_arena_sprintf(a, "%.1fx", f);
}

static bool valid_field_path(const char *p)
{
    /* ".a.b", "['k']" segments */
    if (!p[0])
        return false;
    while (*p) {
        if (*p == '.') {
            p++;
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_'))
                return false;
            while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
                   *p == '-')
                p++;
        } else if (p[0] == '[' && p[1] == '\'') {
            const char *end = strstr(p + 2, "']");
            if (!end)
                return false;
            p = end + 2;
        } else {
            return false;
        }
    }
    return true;
}

void kg_xs_rules_check(kg_arena *a, const kg_json *validations, const char *path, kg_field_errors *errs)
{
    if (!validations || validations->type != KG_JSON_ARRAY)
        return;
    cel_env *e = rules_env();
    for (uint32_t i = 0; i < validations->len; i++) {
        const kg_json *v = validations->u.items[i];
        const char *vp = kg_arena_sprintf(a, "%s.x-kubernetes-validations[%u]", path, i);
        const char *rule = kg_json_get_str(v, "rule");
        const char *msg = kg_json_get_str(v, "message");
        const char *msg_expr = kg_json_get_str(v, "messageExpression");
        const char *reason = kg_json_get_str(v, "reason");
        const char *fp = kg_json_get_str(v, "fieldPath");
        if (!rule || !rule[0]) {
            kg_field_required(a, errs, kg_arena_sprintf(a, "%s.rule", vp), "rule is not specified");
            continue;
        }
        if (msg && !msg[0])
            kg_field_required(a, errs, kg_arena_sprintf(a, "%s.message", vp), "message must be non-empty if specified");
        else if (msg && strchr(msg, '\n'))
            kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s.message", vp), msg,
                             "message must not contain line breaks");
        if (strchr(rule, '\n') && !msg)
            kg_field_required(a, errs, kg_arena_sprintf(a, "%s.message", vp),
                              "message must be specified if rule contains line breaks");
        if (msg_expr && !msg_expr[0])
            kg_field_required(a, errs, kg_arena_sprintf(a, "%s.messageExpression", vp),
                              "messageExpression must be non-empty if specified");
        if (reason) {
            static const char *const reasons[] = {"FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired",
                                                  "FieldValueDuplicate"};
            bool ok = false;
            for (size_t k = 0; k < 4; k++)
                ok = ok || !strcmp(reason, reasons[k]);
            if (!ok)
                kg_field_not_supported(a, errs, kg_arena_sprintf(a, "%s.reason", vp), reason, reasons, 4);
        }
        if (fp && !valid_field_path(fp))
            kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s.fieldPath", vp), fp, "fieldPath must be a valid path");
        kg_json *oos = kg_json_get(v, "optionalOldSelf");
        if (oos && oos->type == KG_JSON_BOOL && oos->b && !uses_old_self(rule))
            kg_field_invalid_bool(a, errs, kg_arena_sprintf(a, "%s.optionalOldSelf", vp), true,
                                  "may not be set if oldSelf is not used in rule");
        if (!e)
            continue;
        cel_program *p = NULL;
        cel_error err;
        if (!cel_compile(e, rule, NULL, &p, &err)) {
            kg_field_invalid_raw(a, errs, kg_arena_sprintf(a, "%s.rule", vp), rule_repr(a, v),
                                 kg_arena_sprintf(a, "compilation failed: %s", err.message));
            continue;
        }
        const cel_type *t = cel_program_type(p);
        if (t && t->kind != CEL_T_BOOL && t->kind != CEL_T_DYN)
            kg_field_invalid_raw(a, errs, kg_arena_sprintf(a, "%s.rule", vp), rule_repr(a, v),
                                 "cel expression must evaluate to a bool");
        /* the estimated cost (the node's cardinality is taken as 1: kgate does not multiply by the maximum number
         * of list items / map entries above the node) */
        cel_size_range est = cel_program_estimate_cost(p, 3 * 1024 * 1024);
        if (est.max > RULE_COST_LIMIT)
            kg_field_forbidden(a, errs, kg_arena_sprintf(a, "%s.rule", vp),
                               kg_arena_sprintf(a,
                                                "estimated rule cost exceeds budget by factor of %s (try simplifying "
                                                "the rule, or adding maxItems, maxProperties, and maxLength where "
                                                "arrays, maps, and strings are declared)",
                                                factor(a, (double)est.max / (double)RULE_COST_LIMIT)));
        cel_program_free(p);
        if (msg_expr && msg_expr[0]) {
            if (!cel_compile(e, msg_expr, NULL, &p, &err)) {
                kg_field_invalid_raw(a, errs, kg_arena_sprintf(a, "%s.messageExpression", vp), rule_repr(a, v),
                                     kg_arena_sprintf(a, "messageExpression compilation failed: %s", err.message));
                continue;
            }
            t = cel_program_type(p);
            if (t && t->kind != CEL_T_STRING && t->kind != CEL_T_DYN)
                kg_field_invalid_raw(a, errs, kg_arena_sprintf(a, "%s.messageExpression", vp), rule_repr(a, v),
                                     "messageExpression must evaluate to a string");
            cel_program_free(p);
        }
    }
}

/* ---- evaluation ---- */

typedef struct ectx {
    kg_arena *a;
    kg_field_errors *errs;
    uint64_t budget; /* what is left of the per-object budget */
    bool stop;
} ectx;

static const char *schema_type_word(const kg_xs *s)
{
    if (s->type)
        return s->type;
    return s->int_or_string ? "" : "";
}

static const char *join_path(kg_arena *a, const char *path, const char *field_path)
{
    if (!field_path)
        return path[0] ? path : "<nil>";
    /* ".a.b" → "a.b"; "['k']" → "[k]" */
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, path);
    for (const char *p = field_path; *p;) {
        if (*p == '.') {
            if (b.len)
                kg_buf_putc(&b, '.');
            p++;
            while (*p && *p != '.' && *p != '[')
                kg_buf_putc(&b, *p++);
        } else if (p[0] == '[' && p[1] == '\'') {
            const char *end = strstr(p + 2, "']");
            if (!end)
                break;
            kg_buf_putc(&b, '[');
            kg_buf_append(&b, p + 2, (size_t)(end - p - 2));
            kg_buf_putc(&b, ']');
            p = end + 2;
        } else {
            kg_buf_putc(&b, *p++);
        }
    }
    char *out = kg_arena_strndup(a, b.data, b.len);
    kg_buf_free(&b);
    return out;
}

static void report(ectx *c, const kg_xs *s, const kg_xs_rule *r, const char *path, const char *message)
{
    const char *field = join_path(c->a, path, r->field_path);
    const char *reason = r->reason ? r->reason : "FieldValueInvalid";
    if (!strcmp(reason, "FieldValueForbidden"))
        kg_field_forbidden(c->a, c->errs, field, message);
    else if (!strcmp(reason, "FieldValueRequired"))
        kg_field_required(c->a, c->errs, field, message);
    else if (!strcmp(reason, "FieldValueDuplicate"))
        kg_field_duplicate(c->a, c->errs, field, schema_type_word(s));
    else
        kg_field_invalid(c->a, c->errs, field, schema_type_word(s), message);
}

static void run_rules(ectx *c, const kg_xs *s, const kg_json *v, const kg_json *old, bool has_old, const char *path)
{
    if (!s->nrules || !v || v->type == KG_JSON_NULL)
        return;
    cel_value vals[2];
    int nslots = (slot_self > slot_old ? slot_self : slot_old) + 1;
    if (nslots > 2 || slot_self < 0 || slot_old < 0)
        return;
    for (size_t i = 0; i < s->nrules && !c->stop; i++) {
        const kg_xs_rule *r = s->rules[i];
        if (r->uses_old_self && !has_old && !r->optional_old_self)
            continue; /* a transition rule without a correlated old value */
        vals[slot_self] = cel_json_to_value(v);
        if (r->optional_old_self)
            vals[slot_old] = has_old ? cel_optional_of(c->a, cel_json_to_value(old)) : cel_optional_none();
        else
            vals[slot_old] = has_old ? cel_json_to_value(old) : cel_null();
        cel_value out;
        uint64_t cost = 0;
        uint64_t limit = c->budget < CEL_PER_CALL_LIMIT ? c->budget : CEL_PER_CALL_LIMIT;
        cel_eval_status st = cel_eval_slots(r->prog, c->a, vals, (size_t)nslots, limit, &out, &cost);
        c->budget = cost > c->budget ? 0 : c->budget - cost;
        const char *field = path[0] ? path : "<nil>";
        if (st == CEL_EVAL_COST_EXCEEDED) {
            if (limit < CEL_PER_CALL_LIMIT)
                kg_field_invalid(c->a, c->errs, field, schema_type_word(s),
                                 "validation failed due to running out of cost budget, no further validation rules "
                                 "will be run");
            else
                kg_field_invalid(c->a, c->errs, field, schema_type_word(s),
                                 kg_arena_sprintf(c->a,
                                                  "'operation cancelled: actual cost limit exceeded': no further "
                                                  "validation rules will be run due to call cost exceeds limit for "
                                                  "rule: %s",
                                                  r->rule));
            c->stop = true;
            return;
        }
        if (st == CEL_EVAL_ERROR) {
            kg_field_invalid(c->a, c->errs, field, schema_type_word(s),
                             kg_arena_sprintf(c->a, "%s evaluating rule: %s", cel_error_message(&out), r->rule));
            continue;
        }
        if (out.kind == CEL_BOOL && out.u.b)
            continue;
        const char *msg = NULL;
        if (r->msg_prog) {
            cel_value m;
            uint64_t mcost = 0;
            if (cel_eval_slots(r->msg_prog, c->a, vals, (size_t)nslots, CEL_PER_CALL_LIMIT, &m, &mcost) ==
                    CEL_EVAL_OK &&
                m.kind == CEL_STRING && m.n > 0 && m.n <= MAX_MESSAGE_EXPRESSION_BYTES && !memchr(m.u.s, '\n', m.n))
                msg = kg_arena_strndup(c->a, m.u.s, m.n);
            c->budget = mcost > c->budget ? 0 : c->budget - mcost;
        }
        if (!msg)
            msg = r->message ? r->message : kg_arena_sprintf(c->a, "failed rule: %s", r->rule);
        report(c, s, r, path, msg);
    }
}

/* The old list item with the same list-map keys as item, or NULL. */
static const kg_json *correlate_item(const kg_xs *s, const kg_json *item, const kg_json *old_list)
{
    if (!s->list_type || strcmp(s->list_type, "map") || !old_list || old_list->type != KG_JSON_ARRAY ||
        item->type != KG_JSON_OBJECT)
        return NULL;
    for (uint32_t i = 0; i < old_list->len; i++) {
        const kg_json *o = old_list->u.items[i];
        if (o->type != KG_JSON_OBJECT)
            continue;
        bool same = true;
        for (size_t k = 0; k < s->nlist_map_keys && same; k++) {
            const kg_json *x = kg_json_get(item, s->list_map_keys[k]), *y = kg_json_get(o, s->list_map_keys[k]);
            same = (!x && !y) || (x && y && kg_json_equal(x, y));
        }
        if (same)
            return o;
    }
    return NULL;
}

static void walk(ectx *c, const kg_xs *s, const kg_json *v, const kg_json *old, bool has_old, const char *path)
{
    if (!s || !v || c->stop || !s->any_rules) /* nothing to run in this subtree */
        return;
    run_rules(c, s, v, old, has_old, path);
    if (v->type == KG_JSON_OBJECT) {
        for (uint32_t i = 0; i < v->len && !c->stop; i++) {
            const char *k = v->u.members[i].key;
            const kg_xs *ps = kg_xs_prop(s, k);
            if (!ps)
                ps = s->additional;
            if (!ps)
                continue;
            const kg_json *ov = has_old && old && old->type == KG_JSON_OBJECT ? kg_json_get(old, k) : NULL;
            walk(c, ps, v->u.members[i].val, ov, ov != NULL, kg_xs_child_path(c->a, path, k));
        }
    } else if (v->type == KG_JSON_ARRAY && s->items) {
        for (uint32_t i = 0; i < v->len && !c->stop; i++) {
            const kg_json *ov = has_old ? correlate_item(s, v->u.items[i], old) : NULL;
            walk(c, s->items, v->u.items[i], ov, ov != NULL, kg_xs_index_path(c->a, path, i));
        }
    }
}

void kg_xs_validate_rules(kg_arena *a, const kg_xs *s, const kg_json *v, const kg_json *old, kg_field_errors *errs)
{
    ectx c = {a, errs, CEL_RUNTIME_BUDGET, false};
    walk(&c, s, v, old, old != NULL, "");
}
