/* x-kubernetes-validations rules: compile, check at CRD write, evaluate per request (rules.h). */
#include "apiext/rules.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "apiext/celtypes.h"
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

/* ---- environments ----
 * One environment per CRD version (per compiled schema tree), owned by the schema's arena: its object types are
 * that schema's. Every rule is compiled in it with `self` and `oldSelf` redeclared at the rule's node type. */

enum { SLOT_SELF = 0, SLOT_OLD = 1, NSLOTS = 2 };

static void free_env(void *e)
{
    cel_env_free(e);
}

/* The rules environment (Kubernetes libraries, self and oldSelf declared in slots 0 and 1), or NULL. */
static cel_env *new_env(void)
{
    cel_env *e = cel_env_new(CEL_LIB_K8S);
    if (!e)
        return NULL;
    cel_env_set_options(e, CEL_OPT_K8S);
#if KGATE_HAVE_CEL_K8S
    cel_k8s_options ko = {33, 0, false};
    cel_error err;
    if (!cel_k8s_register(e, &ko, &err)) {
        fprintf(stderr, "kgate: CRD validation rules CEL environment: %s\n", err.message);
        cel_env_free(e);
        return NULL;
    }
#endif
    cel_env_declare_var(e, "self", cel_type_dyn());
    cel_env_declare_var(e, "oldSelf", cel_type_dyn());
    if (cel_env_var_slot(e, "self") != SLOT_SELF || cel_env_var_slot(e, "oldSelf") != SLOT_OLD) {
        cel_env_free(e);
        return NULL;
    }
    return e;
}

/* Compile src with self (and oldSelf: an optional of it with optionalOldSelf) typed as d says. */
static bool compile_at(cel_env *e, const kg_xs_decl *d, bool optional_old, const char *src, cel_program **p,
                       cel_error *err)
{
    const cel_type *t = d ? d->type : cel_type_dyn();
    cel_env_redeclare_var(e, "self", t);
    cel_env_redeclare_var(e, "oldSelf", optional_old ? cel_type_optional(e, t) : t);
    return cel_compile(e, src, NULL, p, err);
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

static bool optional_old_self(const kg_json *v)
{
    kg_json *oos = kg_json_get(v, "optionalOldSelf");
    return oos && oos->type == KG_JSON_BOOL && oos->b;
}

/* The declaration of an object's property (by its JSON name), of list items or map values. */
static const kg_xs_decl *decl_prop(const kg_xs_decl *d, const char *json_name)
{
    for (size_t i = 0; d && d->kind == KG_XD_OBJECT && i < d->nfields; i++)
        if (!strcmp(d->json_names[i], json_name))
            return d->fields[i];
    return NULL;
}

static const kg_xs_decl *decl_elem(const kg_xs_decl *d, kg_xs_decl_kind k)
{
    return d && d->kind == k ? d->elem : NULL;
}

static void compile_node(kg_arena *a, cel_env *e, kg_xs *s, const kg_xs_decl *d)
{
    if (!s || !s->any_rules)
        return;
    s->cel = d;
    const kg_json *validations = s->raw ? kg_json_get(s->raw, "x-kubernetes-validations") : NULL;
    if (validations && validations->type == KG_JSON_ARRAY && validations->len) {
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
            r->optional_old_self = optional_old_self(v);
            r->uses_old_self = uses_old_self(rule);
            cel_error err;
            if (!compile_at(e, d, r->optional_old_self, rule, &r->prog, &err))
                continue;
            kg_arena_on_reset(a, free_program, r->prog);
            if (r->message_expression &&
                compile_at(e, d, r->optional_old_self, r->message_expression, &r->msg_prog, &err))
                kg_arena_on_reset(a, free_program, r->msg_prog);
            rules[n++] = r;
        }
        s->rules = rules;
        s->nrules = n;
    }
    for (size_t i = 0; i < s->nprops; i++)
        compile_node(a, e, s->props[i], decl_prop(d, s->prop_names[i]));
    compile_node(a, e, s->items, decl_elem(d, KG_XD_LIST));
    compile_node(a, e, s->additional, decl_elem(d, KG_XD_MAP));
}

void kg_xs_rules_compile_tree(kg_arena *a, kg_xs *root)
{
    if (!root || !root->any_rules)
        return;
    cel_env *e = new_env();
    if (!e)
        return;
    kg_arena_on_reset(a, free_env, e);
    compile_node(a, e, root, kg_xs_decl_build(e, a, root, true, "selfType"));
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
    }
}

/* ---- CRD write: typed compilation and cost ---- */

#define SCHEMA_COST_LIMIT 100000000ull
#define MOST_EXPENSIVE 4

typedef struct rule_cost {
    const char *path;
    uint64_t cost;
} rule_cost;

typedef struct tctx {
    kg_arena *a;
    cel_env *env;
    kg_field_errors *errs; /* compile errors: reported always (upstream's SchemaErrors) */
    kg_field_errors cel;   /* costs, messageExpression, oldSelf: only for an otherwise valid schema (CELErrors) */
    uint64_t total;
    rule_cost top[MOST_EXPENSIVE];
    size_t ntop;
} tctx;

static uint64_t mul_sat(uint64_t x, uint64_t y)
{
    return y && x > UINT64_MAX / y ? UINT64_MAX : x * y;
}

/* upstream's TotalCost.ObserveExpressionCost: the total, and the costliest rules of at least 1% of the limit */
static void observe(tctx *c, const char *path, uint64_t cost)
{
    c->total = cost > UINT64_MAX - c->total ? UINT64_MAX : c->total + cost;
    if (cost < SCHEMA_COST_LIMIT / 100)
        return;
    size_t at = c->ntop;
    while (at > 0 && c->top[at - 1].cost < cost)
        at--;
    if (at >= MOST_EXPENSIVE)
        return;
    size_t last = c->ntop < MOST_EXPENSIVE ? c->ntop : MOST_EXPENSIVE - 1;
    memmove(&c->top[at + 1], &c->top[at], (last - at) * sizeof c->top[0]);
    c->top[at] = (rule_cost){path, cost};
    if (c->ntop < MOST_EXPENSIVE)
        c->ntop++;
}

static const char *cost_message(kg_arena *a, const char *what, uint64_t cost, uint64_t limit)
{
    return kg_arena_sprintf(a,
                            "%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, "
                            "maxProperties, and maxLength where arrays, maps, and strings are declared)",
                            what, factor(a, (double)cost / (double)limit));
}

/* The estimated cost of program p at node d, times how often the node can occur (cardinality: the product of the
 * maxItems / maxProperties above it; 0 when some list or map above is unbounded: then upstream's estimate of how
 * many values of the node's minimum size fit in a request). */
static uint64_t expression_cost(const cel_program *p, const kg_xs_decl *d, uint64_t cardinality)
{
    cel_size_host h;
    kg_xs_decl_size_host(&h, d);
    uint64_t cost = cel_program_estimate_cost_host(p, KG_XS_MAX_REQUEST_BYTES, d ? &h : NULL).max;
    if (!cardinality)
        cardinality = kg_xs_decl_unbounded_cardinality(d ? d->min_size : 1);
    return mul_sat(cost, cardinality);
}

static void check_node_rules(tctx *c, const kg_json *validations, const kg_xs_decl *d, const char *path,
                             uint64_t cardinality, const char *uncorrelatable)
{
    kg_arena *a = c->a;
    for (uint32_t i = 0; i < validations->len; i++) {
        const kg_json *v = validations->u.items[i];
        const char *rule = kg_json_get_str(v, "rule");
        const char *msg_expr = kg_json_get_str(v, "messageExpression");
        if (!rule || !rule[0])
            continue;
        bool opt = optional_old_self(v);
        const char *rp = kg_arena_sprintf(a, "%s.x-kubernetes-validations[%u].rule", path, i);
        const char *mp = kg_arena_sprintf(a, "%s.x-kubernetes-validations[%u].messageExpression", path, i);
        cel_program *p = NULL;
        cel_error err;
        if (!compile_at(c->env, d, opt, rule, &p, &err)) {
            kg_field_invalid_raw(a, c->errs, rp, rule_repr(a, v),
                                 kg_arena_sprintf(a, "compilation failed: %s", err.message));
        } else {
            uint64_t cost = expression_cost(p, d, cardinality);
            if (cost > RULE_COST_LIMIT)
                kg_field_forbidden(a, &c->cel, rp, cost_message(a, "estimated rule cost", cost, RULE_COST_LIMIT));
            observe(c, rp, cost);
            if (cel_program_type(p)->kind != CEL_T_BOOL)
                kg_field_invalid_raw(a, c->errs, rp, rule_repr(a, v), "cel expression must evaluate to a bool");
            cel_program_free(p);
        }
        if (msg_expr && msg_expr[0]) {
            if (!compile_at(c->env, d, opt, msg_expr, &p, &err)) {
                kg_field_invalid_raw(a, &c->cel, mp, rule_repr(a, v),
                                     kg_arena_sprintf(a, "messageExpression compilation failed: %s", err.message));
            } else {
                if (cel_program_type(p)->kind != CEL_T_STRING) {
                    kg_field_invalid_raw(a, &c->cel, mp, rule_repr(a, v),
                                         "messageExpression must evaluate to a string");
                } else {
                    cel_size_host h;
                    kg_xs_decl_size_host(&h, d);
                    uint64_t cost = cel_program_estimate_cost_host(p, KG_XS_MAX_REQUEST_BYTES, d ? &h : NULL).max;
                    if (cost > RULE_COST_LIMIT)
                        kg_field_forbidden(a, &c->cel, mp,
                                           cost_message(a, "estimated messageExpression cost", cost, RULE_COST_LIMIT));
                    observe(c, mp, cost);
                }
                cel_program_free(p);
            }
        }
        if (uncorrelatable && uses_old_self(rule))
            kg_field_invalid(a, &c->cel, rp, rule,
                             kg_arena_sprintf(a,
                                              "oldSelf cannot be used on the uncorrelatable portion of the schema "
                                              "within %s",
                                              uncorrelatable));
    }
}

/* Post-order over the schema, as upstream reports: a node's children, then its own rules. cardinality 0:
 * unbounded. uncorrelatable: the path of the first array above whose items old values cannot be matched with
 * (not list-type=map), or NULL. */
static void check_node(tctx *c, const kg_xs *s, const kg_xs_decl *d, const char *path, uint64_t cardinality,
                       const char *uncorrelatable)
{
    if (!s || !s->any_rules)
        return;
    /* what the node multiplies its children's occurrences by (upstream's extractMaxElements) */
    uint64_t child_card = cardinality;
    bool is_array = s->type && !strcmp(s->type, "array");
    if (is_array)
        child_card = s->has_max_items ? mul_sat(cardinality, (uint64_t)(s->max_items < 0 ? 0 : s->max_items)) : 0;
    else if (s->type && !strcmp(s->type, "object") && s->additional)
        child_card = s->has_max_props ? mul_sat(cardinality, (uint64_t)(s->max_props < 0 ? 0 : s->max_props)) : 0;
    if (!cardinality)
        child_card = 0;
    for (size_t i = 0; i < s->nprops; i++)
        check_node(c, s->props[i], decl_prop(d, s->prop_names[i]),
                   kg_arena_sprintf(c->a, "%s.properties[%s]", path, s->prop_names[i]), child_card, uncorrelatable);
    if (s->items) {
        const char *unc = uncorrelatable;
        if (!unc && (!s->list_type || strcmp(s->list_type, "map")))
            unc = path;
        check_node(c, s->items, decl_elem(d, KG_XD_LIST), kg_arena_sprintf(c->a, "%s.items", path), child_card, unc);
    }
    if (s->additional)
        check_node(c, s->additional, decl_elem(d, KG_XD_MAP), kg_arena_sprintf(c->a, "%s.additionalProperties", path),
                   child_card, uncorrelatable);
    const kg_json *validations = s->raw ? kg_json_get(s->raw, "x-kubernetes-validations") : NULL;
    if (validations && validations->type == KG_JSON_ARRAY && validations->len)
        check_node_rules(c, validations, d, path, cardinality, uncorrelatable);
}

void kg_xs_rules_check_tree(kg_arena *a, const kg_json *schema, const char *path, bool schema_errors,
                            kg_field_errors *errs)
{
    kg_xs *root = kg_xs_compile_nodes(a, schema);
    if (!root->any_rules)
        return;
    cel_env *e = new_env();
    if (!e)
        return;
    tctx c = {.a = a, .env = e, .errs = errs, .cel = KG_FIELD_ERRORS_INIT};
    size_t before = errs->len;
    check_node(&c, root, kg_xs_decl_build(e, a, root, true, "selfType"), path, 1, NULL);
    if (c.total > SCHEMA_COST_LIMIT) {
        for (size_t i = 0; i < c.ntop; i++)
            kg_field_forbidden(a, &c.cel, c.top[i].path,
                               "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 "
                               "schema");
        kg_field_forbidden(a, &c.cel, path,
                           cost_message(a,
                                        "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 "
                                        "schema",
                                        c.total, SCHEMA_COST_LIMIT));
    }
    if (!schema_errors && errs->len == before)
        for (size_t i = 0; i < c.cel.len; i++)
            kg_field_errors_add(a, errs, &c.cel.items[i]);
    cel_env_free(e);
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
    cel_value vals[NSLOTS];
    const size_t nslots = NSLOTS;
    for (size_t i = 0; i < s->nrules && !c->stop; i++) {
        const kg_xs_rule *r = s->rules[i];
        if (r->uses_old_self && !has_old && !r->optional_old_self)
            continue; /* a transition rule without a correlated old value */
        vals[SLOT_SELF] = kg_xs_decl_value(c->a, s->cel, v);
        cel_value ov = has_old ? kg_xs_decl_value(c->a, s->cel, old) : cel_null();
        if (r->optional_old_self)
            vals[SLOT_OLD] = has_old ? cel_optional_of(c->a, ov) : cel_optional_none();
        else
            vals[SLOT_OLD] = ov;
        cel_value out;
        uint64_t cost = 0;
        uint64_t limit = c->budget < CEL_PER_CALL_LIMIT ? c->budget : CEL_PER_CALL_LIMIT;
        cel_eval_status st = cel_eval_slots(r->prog, c->a, vals, nslots, limit, &out, &cost);
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
            if (cel_eval_slots(r->msg_prog, c->a, vals, nslots, CEL_PER_CALL_LIMIT, &m, &mcost) == CEL_EVAL_OK &&
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
