/* Label selector lexer/parser/matcher following k8s.io/apimachinery/pkg/labels/selector.go. */
#include "meta/labels.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "meta/names.h"

/* ---- lexer ---------------------------------------------------------------------------------------------------- */

typedef enum tok {
    T_ERROR = 0,
    T_EOS,
    T_CLOSE_PAR,
    T_COMMA,
    T_NOT,
    T_DOUBLE_EQ,
    T_EQ,
    T_GT,
    T_IDENT,
    T_IN,
    T_LT,
    T_NEQ,
    T_NOTIN,
    T_OPEN_PAR,
} tok;

typedef struct item {
    tok t;
    const char *lit;
} item;

static tok string2token(const char *s, size_t n)
{
    switch (n) {
    case 1:
        switch (s[0]) {
        case ')': return T_CLOSE_PAR;
        case ',': return T_COMMA;
        case '!': return T_NOT;
        case '=': return T_EQ;
        case '>': return T_GT;
        case '<': return T_LT;
        case '(': return T_OPEN_PAR;
        }
        return T_ERROR;
    case 2:
        if (s[0] == '=' && s[1] == '=')
            return T_DOUBLE_EQ;
        if (s[0] == '!' && s[1] == '=')
            return T_NEQ;
        if (s[0] == 'i' && s[1] == 'n')
            return T_IN;
        return T_ERROR;
    case 5: return memcmp(s, "notin", 5) == 0 ? T_NOTIN : T_ERROR;
    }
    return T_ERROR;
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
static bool is_special(char c)
{
    return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

typedef struct lexer {
    kg_arena *a;
    const char *s;
    size_t pos, len;
} lexer;

static char lread(lexer *l)
{
    /* Go's read() returns 0 at the end without advancing; a NUL byte ends the input too */
    if (l->pos < l->len)
        return l->s[l->pos++];
    return 0;
}

static item lex(lexer *l)
{
    char ch;
    while ((ch = lread(l)) != 0 && is_ws(ch)) {
    }
    if (ch == 0)
        return (item){T_EOS, ""};
    l->pos--;
    size_t start = l->pos;
    if (is_special(ch)) {
        tok last = T_ERROR;
        size_t last_len = 0;
        for (;;) {
            char c = lread(l);
            if (c == 0)
                break;
            if (is_special(c)) {
                tok t = string2token(l->s + start, l->pos - start);
                if (t != T_ERROR) {
                    last = t;
                    last_len = l->pos - start;
                } else if (last != T_ERROR) {
                    l->pos--;
                    break;
                }
            } else {
                l->pos--;
                break;
            }
        }
        if (last == T_ERROR)
            return (item){T_ERROR, kg_arena_sprintf(l->a, "error expected: keyword found '%.*s'", (int)(l->pos - start),
                                                    l->s + start)};
        return (item){last, kg_arena_strndup(l->a, l->s + start, last_len)};
    }
    for (;;) {
        char c = lread(l);
        if (c == 0)
            break;
        if (is_special(c) || is_ws(c)) {
            l->pos--;
            break;
        }
    }
    size_t n = l->pos - start;
    tok t = string2token(l->s + start, n);
    return (item){t != T_ERROR ? t : T_IDENT, kg_arena_strndup(l->a, l->s + start, n)};
}

/* ---- parser --------------------------------------------------------------------------------------------------- */

typedef struct parser {
    kg_arena *a;
    item *items;
    size_t n, pos;
    kg_error *err;
} parser;

enum { CTX_KEY_AND_OPERATOR, CTX_VALUES };

static item lookahead(parser *p, int ctx)
{
    item it = p->items[p->pos];
    if (ctx == CTX_VALUES && (it.t == T_IN || it.t == T_NOTIN))
        it.t = T_IDENT;
    return it;
}

static item consume(parser *p, int ctx)
{
    item it = lookahead(p, ctx);
    if (p->pos + 1 < p->n)
        p->pos++;
    return it;
}

/* sets.String: values are appended, then sorted and deduplicated once (List()), so large sets stay O(n log n). */
typedef struct strset {
    const char **v;
    size_t n, cap;
} strset;

static void set_insert(kg_arena *a, strset *s, const char *x)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 4;
        s->v = kg_arena_realloc(a, s->v, s->cap * sizeof(char *), nc * sizeof(char *));
        s->cap = nc;
    }
    s->v[s->n++] = x;
}

static int cmp_strp(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void set_finish(strset *s)
{
    if (s->n < 2)
        return;
    qsort(s->v, s->n, sizeof(char *), cmp_strp);
    size_t k = 1;
    for (size_t i = 1; i < s->n; i++)
        if (strcmp(s->v[i], s->v[k - 1]) != 0)
            s->v[k++] = s->v[i];
    s->n = k;
}

static bool perr(parser *p, const char *fmt, const char *lit)
{
    return kg_err_set(p->err, KG_EINVAL, fmt, lit);
}

static bool key_errors(kg_arena *a, const char *key, const char *path, kg_field_errors *errs)
{
    kg_name_errs ne;
    if (kg_is_qualified_name(key, &ne))
        return true;
    kg_field_invalid(a, errs, path, key, kg_name_errs_join(a, &ne, "; "));
    return false;
}

static bool parse_values(parser *p, strset *s)
{
    item it = consume(p, CTX_VALUES);
    if (it.t != T_OPEN_PAR)
        return perr(p, "found '%s' expected: '('", it.lit);
    item la = lookahead(p, CTX_VALUES);
    switch (la.t) {
    case T_IDENT:
    case T_COMMA:
        for (;;) {
            item c = consume(p, CTX_VALUES);
            if (c.t == T_IDENT) {
                set_insert(p->a, s, c.lit);
                item l2 = lookahead(p, CTX_VALUES);
                if (l2.t == T_COMMA)
                    continue;
                if (l2.t == T_CLOSE_PAR)
                    break;
                return perr(p, "found '%s', expected: ',' or ')'", l2.lit);
            } else if (c.t == T_COMMA) {
                if (s->n == 0)
                    set_insert(p->a, s, "");
                item l2 = lookahead(p, CTX_VALUES);
                if (l2.t == T_CLOSE_PAR) {
                    set_insert(p->a, s, "");
                    break;
                }
                if (l2.t == T_COMMA)
                    set_insert(p->a, s, ""); /* ",,": the next comma is consumed by the loop */
            } else {
                return perr(p, "found '%s', expected: ',', or identifier", c.lit);
            }
        }
        if (consume(p, CTX_VALUES).t != T_CLOSE_PAR)
            return perr(p, "found '%s', expected: ')'", la.lit);
        return true;
    case T_CLOSE_PAR:
        consume(p, CTX_VALUES);
        set_insert(p->a, s, "");
        return true;
    default: return perr(p, "found '%s', expected: ',', ')' or identifier", la.lit);
    }
}

static bool parse_requirement(parser *p, kg_label_req *out)
{
    kg_label_op op = KG_LOP_EQUALS;
    bool have_op = false;
    item it = consume(p, CTX_VALUES);
    if (it.t == T_NOT) {
        op = KG_LOP_DOES_NOT_EXIST;
        have_op = true;
        it = consume(p, CTX_VALUES);
    }
    if (it.t != T_IDENT)
        return perr(p, "found '%s', expected: identifier", it.lit);
    const char *key = it.lit;
    kg_field_errors ke = KG_FIELD_ERRORS_INIT;
    if (!key_errors(p->a, key, "<nil>", &ke))
        return kg_err_set(p->err, KG_EINVAL, "%s", kg_field_error_string(p->a, &ke.items[0]));
    item la = lookahead(p, CTX_VALUES);
    if ((la.t == T_EOS || la.t == T_COMMA) && !have_op) {
        op = KG_LOP_EXISTS;
        have_op = true;
    }
    if (have_op)
        return kg_label_req_new(p->a, key, op, NULL, 0, out, p->err);
    item o = consume(p, CTX_KEY_AND_OPERATOR);
    switch (o.t) {
    case T_IN: op = KG_LOP_IN; break;
    case T_EQ: op = KG_LOP_EQUALS; break;
    case T_DOUBLE_EQ: op = KG_LOP_DOUBLE_EQUALS; break;
    case T_GT: op = KG_LOP_GT; break;
    case T_LT: op = KG_LOP_LT; break;
    case T_NOTIN: op = KG_LOP_NOT_IN; break;
    case T_NEQ: op = KG_LOP_NOT_EQUALS; break;
    default: return perr(p, "found '%s', expected: in, notin, =, ==, !=, gt, lt", o.lit);
    }
    strset vals = {0};
    if (op == KG_LOP_IN || op == KG_LOP_NOT_IN) {
        if (!parse_values(p, &vals))
            return false;
    } else {
        item v = lookahead(p, CTX_VALUES);
        if (v.t == T_EOS || v.t == T_COMMA) {
            set_insert(p->a, &vals, "");
        } else {
            v = consume(p, CTX_VALUES);
            if (v.t != T_IDENT)
                return perr(p, "found '%s', expected: identifier", v.lit);
            set_insert(p->a, &vals, v.lit);
        }
    }
    set_finish(&vals);
    return kg_label_req_new(p->a, key, op, vals.v, vals.n, out, p->err);
}

static int cmp_req(const void *x, const void *y)
{
    const kg_label_req *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    /* equal keys keep their input order */
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

static void sort_reqs(kg_label_req *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        r[i].order = i;
    if (n > 1)
        qsort(r, n, sizeof *r, cmp_req);
}

static void push_req(kg_arena *a, kg_label_selector *sel, size_t *cap, const kg_label_req *r)
{
    if (sel->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        sel->reqs = kg_arena_realloc(a, sel->reqs, *cap * sizeof(kg_label_req), nc * sizeof(kg_label_req));
        *cap = nc;
    }
    sel->reqs[sel->n++] = *r;
}

bool kg_labels_parse(kg_arena *a, const char *s, kg_label_selector *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    lexer l = {a, s, 0, strlen(s)};
    parser p = {.a = a, .err = err};
    size_t cap = 0;
    for (;;) {
        item it = lex(&l);
        if (p.n == cap) {
            size_t nc = cap ? cap * 2 : 8;
            p.items = kg_arena_realloc(a, p.items, cap * sizeof(item), nc * sizeof(item));
            cap = nc;
        }
        p.items[p.n++] = it;
        if (it.t == T_EOS)
            break;
    }
    size_t rcap = 0;
    for (;;) {
        item la = lookahead(&p, CTX_VALUES);
        if (la.t == T_IDENT || la.t == T_NOT) {
            kg_label_req r;
            if (!parse_requirement(&p, &r))
                return kg_err_prefix(err, "unable to parse requirement");
            push_req(a, out, &rcap, &r);
            item t = consume(&p, CTX_VALUES);
            if (t.t == T_EOS)
                break;
            if (t.t == T_COMMA) {
                item t2 = lookahead(&p, CTX_VALUES);
                if (t2.t != T_IDENT && t2.t != T_NOT)
                    return kg_err_set(err, KG_EINVAL, "found '%s', expected: identifier after ','", t2.lit);
            } else {
                return kg_err_set(err, KG_EINVAL, "found '%s', expected: ',' or 'end of string'", t.lit);
            }
        } else if (la.t == T_EOS) {
            break;
        } else {
            return kg_err_set(err, KG_EINVAL, "found '%s', expected: !, identifier, or 'end of string'", la.lit);
        }
    }
    sort_reqs(out->reqs, out->n);
    return true;
}

static bool parse_int64(const char *s, long long *v)
{
    if (!*s)
        return false;
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (!*p)
        return false;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return false;
    errno = 0;
    char *end;
    *v = strtoll(s, &end, 10);
    return errno == 0 && *end == 0;
}

const char *kg_label_op_string(kg_label_op op)
{
    switch (op) {
    case KG_LOP_DOES_NOT_EXIST: return "!";
    case KG_LOP_EQUALS: return "=";
    case KG_LOP_DOUBLE_EQUALS: return "==";
    case KG_LOP_IN: return "in";
    case KG_LOP_NOT_EQUALS: return "!=";
    case KG_LOP_NOT_IN: return "notin";
    case KG_LOP_EXISTS: return "exists";
    case KG_LOP_GT: return "gt";
    case KG_LOP_LT: return "lt";
    }
    return "";
}

/* %#v of a []string */
static char *go_string_slice(kg_arena *a, const char *const *v, size_t n)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "[]string{");
    for (size_t i = 0; i < n; i++) {
        if (i)
            kg_buf_puts(&b, ", ");
        kg_meta_quote(&b, v[i], strlen(v[i]));
    }
    kg_buf_putc(&b, '}');
    char *r = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return r;
}

bool kg_label_req_new(kg_arena *a, const char *key, kg_label_op op, const char *const *values, size_t nvalues,
                      kg_label_req *out, kg_error *err)
{
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    key_errors(a, key, "key", &errs);
    switch (op) {
    case KG_LOP_IN:
    case KG_LOP_NOT_IN:
        if (nvalues == 0)
            kg_field_invalid_raw(a, &errs, "values", go_string_slice(a, values, nvalues),
                                 "for 'in', 'notin' operators, values set can't be empty");
        break;
    case KG_LOP_EQUALS:
    case KG_LOP_DOUBLE_EQUALS:
    case KG_LOP_NOT_EQUALS:
        if (nvalues != 1)
            kg_field_invalid_raw(a, &errs, "values", go_string_slice(a, values, nvalues),
                                 "exact-match compatibility requires one single value");
        break;
    case KG_LOP_EXISTS:
    case KG_LOP_DOES_NOT_EXIST:
        if (nvalues != 0)
            kg_field_invalid_raw(a, &errs, "values", go_string_slice(a, values, nvalues),
                                 "values set must be empty for exists and does not exist");
        break;
    case KG_LOP_GT:
    case KG_LOP_LT:
        if (nvalues != 1)
            kg_field_invalid_raw(a, &errs, "values", go_string_slice(a, values, nvalues),
                                 "for 'Gt', 'Lt' operators, exactly one value is required");
        for (size_t i = 0; i < nvalues; i++) {
            long long v;
            if (!parse_int64(values[i], &v))
                kg_field_invalid(a, &errs, kg_arena_sprintf(a, "values[%zu]", i), values[i],
                                 "for 'Gt', 'Lt' operators, the value must be an integer");
        }
        break;
    }
    for (size_t i = 0; i < nvalues; i++) {
        kg_name_errs ne;
        if (!kg_is_valid_label_value(values[i], &ne))
            kg_field_invalid(a, &errs, kg_arena_sprintf(a, "values[%zu][%s]", i, key), values[i],
                             kg_name_errs_join(a, &ne, "; "));
    }
    if (errs.len)
        return kg_err_set(err, KG_EINVAL, "%s", kg_field_errors_aggregate(a, &errs));
    out->key = kg_arena_strdup(a, key);
    out->op = op;
    out->nvalues = nvalues;
    out->values = kg_arena_alloc(a, (nvalues ? nvalues : 1) * sizeof(char *));
    for (size_t i = 0; i < nvalues; i++)
        out->values[i] = kg_arena_strdup(a, values[i]);
    return true;
}

static bool has_value(const kg_label_req *r, const char *v)
{
    for (size_t i = 0; i < r->nvalues; i++)
        if (strcmp(r->values[i], v) == 0)
            return true;
    return false;
}

bool kg_label_req_matches(const kg_label_req *r, const kg_json *labels)
{
    const kg_json *lv = kg_json_is(labels, KG_JSON_OBJECT) ? kg_json_get(labels, r->key) : NULL;
    bool has = lv != NULL;
    const char *v = kg_json_is(lv, KG_JSON_STRING) ? lv->u.s : "";
    switch (r->op) {
    case KG_LOP_IN:
    case KG_LOP_EQUALS:
    case KG_LOP_DOUBLE_EQUALS: return has && has_value(r, v);
    case KG_LOP_NOT_IN:
    case KG_LOP_NOT_EQUALS: return !has || !has_value(r, v);
    case KG_LOP_EXISTS: return has;
    case KG_LOP_DOES_NOT_EXIST: return !has;
    case KG_LOP_GT:
    case KG_LOP_LT: {
        long long lsv, rv;
        if (!has || !parse_int64(v, &lsv) || r->nvalues != 1 || !parse_int64(r->values[0], &rv))
            return false;
        return r->op == KG_LOP_GT ? lsv > rv : lsv < rv;
    }
    }
    return false;
}

bool kg_labels_matches(const kg_label_selector *sel, const kg_json *labels)
{
    if (sel->nothing)
        return false;
    for (size_t i = 0; i < sel->n; i++)
        if (!kg_label_req_matches(&sel->reqs[i], labels))
            return false;
    return true;
}

bool kg_labels_matches_object(const kg_label_selector *sel, const kg_json *obj)
{
    return kg_labels_matches(sel, kg_json_path(obj, "metadata.labels"));
}

char *kg_labels_string(kg_arena *a, const kg_label_selector *sel)
{
    kg_buf b = KG_BUF_INIT;
    for (size_t i = 0; !sel->nothing && i < sel->n; i++) {
        const kg_label_req *r = &sel->reqs[i];
        if (i)
            kg_buf_putc(&b, ',');
        if (r->op == KG_LOP_DOES_NOT_EXIST)
            kg_buf_putc(&b, '!');
        kg_buf_puts(&b, r->key);
        switch (r->op) {
        case KG_LOP_EQUALS: kg_buf_puts(&b, "="); break;
        case KG_LOP_DOUBLE_EQUALS: kg_buf_puts(&b, "=="); break;
        case KG_LOP_NOT_EQUALS: kg_buf_puts(&b, "!="); break;
        case KG_LOP_IN: kg_buf_puts(&b, " in "); break;
        case KG_LOP_NOT_IN: kg_buf_puts(&b, " notin "); break;
        case KG_LOP_GT: kg_buf_puts(&b, ">"); break;
        case KG_LOP_LT: kg_buf_puts(&b, "<"); break;
        case KG_LOP_EXISTS:
        case KG_LOP_DOES_NOT_EXIST: continue;
        }
        bool set = r->op == KG_LOP_IN || r->op == KG_LOP_NOT_IN;
        if (set)
            kg_buf_putc(&b, '(');
        if (r->nvalues == 1) {
            kg_buf_puts(&b, r->values[0]);
        } else if (r->nvalues > 1) {
            const char **sorted = kg_arena_alloc(a, r->nvalues * sizeof(char *));
            memcpy(sorted, r->values, r->nvalues * sizeof(char *));
            qsort(sorted, r->nvalues, sizeof(char *), cmp_strp);
            for (size_t j = 0; j < r->nvalues; j++) {
                if (j)
                    kg_buf_putc(&b, ',');
                kg_buf_puts(&b, sorted[j]);
            }
        }
        if (set)
            kg_buf_putc(&b, ')');
    }
    char *out = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return out;
}

/* ---- metav1.LabelSelector ------------------------------------------------------------------------------------ */

bool kg_label_selector_from_json(kg_arena *a, const kg_json *ls, kg_label_selector *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    if (!ls || ls->type == KG_JSON_NULL) {
        out->nothing = true;
        return true;
    }
    const kg_json *ml = kg_json_get(ls, "matchLabels");
    const kg_json *me = kg_json_get(ls, "matchExpressions");
    size_t nml = kg_json_is(ml, KG_JSON_OBJECT) ? ml->len : 0;
    size_t nme = kg_json_is(me, KG_JSON_ARRAY) ? me->len : 0;
    if (nml + nme == 0)
        return true;
    size_t cap = 0;
    for (size_t i = 0; i < nml; i++) {
        const kg_json_member *m = &ml->u.members[i];
        const char *v = kg_json_is(m->val, KG_JSON_STRING) ? m->val->u.s : "";
        kg_label_req r;
        if (!kg_label_req_new(a, m->key, KG_LOP_EQUALS, &v, 1, &r, err))
            return false;
        push_req(a, out, &cap, &r);
    }
    for (size_t i = 0; i < nme; i++) {
        const kg_json *e = me->u.items[i];
        const char *ops = kg_json_get_str(e, "operator");
        kg_label_op op;
        if (ops && strcmp(ops, "In") == 0)
            op = KG_LOP_IN;
        else if (ops && strcmp(ops, "NotIn") == 0)
            op = KG_LOP_NOT_IN;
        else if (ops && strcmp(ops, "Exists") == 0)
            op = KG_LOP_EXISTS;
        else if (ops && strcmp(ops, "DoesNotExist") == 0)
            op = KG_LOP_DOES_NOT_EXIST;
        else
            return kg_err_set(err, KG_EINVAL, "%s is not a valid label selector operator",
                              kg_meta_quote_a(a, ops ? ops : ""));
        const kg_json *vals = kg_json_get(e, "values");
        size_t nv = kg_json_is(vals, KG_JSON_ARRAY) ? vals->len : 0;
        const char **v = kg_arena_alloc(a, (nv ? nv : 1) * sizeof(char *));
        for (size_t j = 0; j < nv; j++)
            v[j] = kg_json_is(vals->u.items[j], KG_JSON_STRING) ? vals->u.items[j]->u.s : "";
        const char *key = kg_json_get_str(e, "key");
        kg_label_req r;
        if (!kg_label_req_new(a, key ? key : "", op, v, nv, &r, err))
            return false;
        push_req(a, out, &cap, &r);
    }
    sort_reqs(out->reqs, out->n);
    return true;
}

void kg_validate_label_selector(kg_arena *a, const kg_json *ls, bool allow_invalid_label_value_in_selector,
                                const char *fld_path, kg_field_errors *errs)
{
    if (!kg_json_is(ls, KG_JSON_OBJECT))
        return;
    const char *base = fld_path ? fld_path : "";
    const char *sep = base[0] ? "." : "";
    kg_validate_labels(a, kg_json_get(ls, "matchLabels"), kg_arena_sprintf(a, "%s%smatchLabels", base, sep), errs);
    const kg_json *me = kg_json_get(ls, "matchExpressions");
    for (size_t i = 0; kg_json_is(me, KG_JSON_ARRAY) && i < me->len; i++) {
        const kg_json *e = me->u.items[i];
        char *p = kg_arena_sprintf(a, "%s%smatchExpressions[%zu]", base, sep, i);
        const char *ops = kg_json_get_str(e, "operator");
        const kg_json *vals = kg_json_get(e, "values");
        size_t nv = kg_json_is(vals, KG_JSON_ARRAY) ? vals->len : 0;
        char *vp = kg_arena_sprintf(a, "%s.values", p);
        if (ops && (strcmp(ops, "In") == 0 || strcmp(ops, "NotIn") == 0)) {
            if (nv == 0)
                kg_field_required(a, errs, vp, "must be specified when `operator` is 'In' or 'NotIn'");
        } else if (ops && (strcmp(ops, "Exists") == 0 || strcmp(ops, "DoesNotExist") == 0)) {
            if (nv > 0)
                kg_field_forbidden(a, errs, vp, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
        } else {
            kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s.operator", p), ops ? ops : "",
                             "not a valid selector operator");
        }
        const char *key = kg_json_get_str(e, "key");
        kg_name_errs ne;
        if (!kg_is_qualified_name(key ? key : "", &ne))
            for (size_t k = 0; k < ne.n; k++)
                kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s.key", p), key ? key : "", ne.msg[k]);
        if (!allow_invalid_label_value_in_selector) {
            for (size_t j = 0; j < nv; j++) {
                const char *v = kg_json_is(vals->u.items[j], KG_JSON_STRING) ? vals->u.items[j]->u.s : "";
                if (!kg_is_valid_label_value(v, &ne))
                    for (size_t k = 0; k < ne.n; k++)
                        kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s[%zu]", vp, j), v, ne.msg[k]);
            }
        }
    }
}

const char *kg_labels_requires_exact_match(const kg_label_selector *sel, const char *key)
{
    for (size_t i = 0; !sel->nothing && i < sel->n; i++) {
        const kg_label_req *r = &sel->reqs[i];
        if (strcmp(r->key, key) != 0)
            continue;
        if ((r->op == KG_LOP_EQUALS || r->op == KG_LOP_DOUBLE_EQUALS || r->op == KG_LOP_IN) && r->nvalues == 1)
            return r->values[0];
        return NULL;
    }
    return NULL;
}

void kg_labels_from_set(kg_arena *a, const kg_json *set, kg_label_selector *out)
{
    memset(out, 0, sizeof *out);
    if (!kg_json_is(set, KG_JSON_OBJECT) || set->len == 0)
        return;
    out->reqs = kg_arena_alloc(a, set->len * sizeof(kg_label_req));
    for (uint32_t i = 0; i < set->len; i++) {
        const kg_json_member *m = &set->u.members[i];
        kg_label_req *r = &out->reqs[out->n++];
        r->key = m->key;
        r->op = KG_LOP_EQUALS;
        r->values = kg_arena_alloc(a, sizeof(char *));
        r->values[0] = kg_json_is(m->val, KG_JSON_STRING) ? m->val->u.s : "";
        r->nvalues = 1;
    }
    sort_reqs(out->reqs, out->n);
}
