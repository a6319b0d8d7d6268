/* Type checker: declared variables, dyn, type parameters, overload resolution, cel-go style messages. */
#include <stdio.h>
#include <stdlib.h>

#include "cel/cel_internal.h"

typedef struct checker {
    cel_env *env;
    kg_arena *a;
    const char *src;
    cel_error *err;
    bool failed;
    const cel_type *scope[64 * 3];
    const char *scope_names[64 * 3];
    int depth;
} checker;

#define MAXP 16
typedef struct bindings {
    const char *name[MAXP];
    const cel_type *type[MAXP];
    int n;
} bindings;

static const cel_type *chk(checker *C, cel_node *n);

static const cel_type *ck_mk(checker *C, cel_type_kind k, const char *name, const cel_type *p0, const cel_type *p1)
{
    cel_type *t = kg_arena_calloc(C->a, sizeof *t);
    const cel_type **ps = kg_arena_alloc(C->a, 2 * sizeof *ps);
    ps[0] = p0;
    ps[1] = p1;
    t->kind = k;
    t->name = name;
    t->nparams = p1 ? 2 : 1;
    t->params = ps;
    return t;
}
static const cel_type *fresh(checker *C)
{
    static int counter;
    cel_type *t = kg_arena_calloc(C->a, sizeof *t);
    t->kind = CEL_T_PARAM;
    t->name = kg_arena_sprintf(C->a, "_free%d", __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
    return t;
}
static const cel_type *ck_list(checker *C, const cel_type *e) { return ck_mk(C, CEL_T_LIST, "list", e, NULL); }
static const cel_type *ck_map(checker *C, const cel_type *k, const cel_type *v) { return ck_mk(C, CEL_T_MAP, "map", k, v); }
static const cel_type *ck_opt(checker *C, const cel_type *e) { return ck_mk(C, CEL_T_OPTIONAL, "optional_type", e, NULL); }
static const cel_type *ck_typeof(checker *C, const cel_type *e) { return ck_mk(C, CEL_T_TYPE, "type", e, NULL); }

static void cerr(checker *C, int pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cerr(checker *C, int pos, const char *fmt, ...)
{
    if (C->failed)
        return;
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cel_error_at(C->err, C->src, pos, "%s", msg);
    C->failed = true;
}

static const char *tname(checker *C, const cel_type *t)
{
    char buf[256];
    cel_type_format(t, buf, sizeof buf);
    return kg_arena_strdup(C->a, buf);
}

static bool is_dyn(const cel_type *t) { return t->kind == CEL_T_DYN || t->kind == CEL_T_ANY || t->kind == CEL_T_ERROR; }

static const cel_type *lookup_b(bindings *b, const char *name)
{
    for (int i = 0; i < b->n; i++)
        if (!strcmp(b->name[i], name))
            return b->type[i];
    return NULL;
}

static void bind(bindings *b, const char *name, const cel_type *t)
{
    for (int i = 0; i < b->n; i++)
        if (!strcmp(b->name[i], name)) {
            b->type[i] = t;
            return;
        }
    if (b->n < MAXP) {
        b->name[b->n] = name;
        b->type[b->n] = t;
        b->n++;
    }
}

static const cel_type *subst(checker *C, const cel_type *t, bindings *b, bool free_to_dyn);

/* can a value of type `arg` be passed where `param` is expected? binds type params */
static bool assignable(checker *C, const cel_type *param, const cel_type *arg, bindings *b)
{
    if (param->kind == CEL_T_PARAM) {
        const cel_type *bt = lookup_b(b, param->name);
        if (!bt) {
            bind(b, param->name, arg);
            return true;
        }
        if (assignable(C, bt, arg, b)) {
            /* widen a dyn binding to the more specific type when possible */
            if (is_dyn(bt) && !is_dyn(arg))
                return true;
            return true;
        }
        if (assignable(C, arg, bt, b)) {
            bind(b, param->name, arg);
            return true;
        }
        /* mixed types collapse to dyn (cel-go joins to dyn only for dyn inputs) */
        return false;
    }
    if (arg->kind == CEL_T_PARAM) {
        const cel_type *bt = lookup_b(b, arg->name);
        return bt ? assignable(C, param, bt, b) : true;
    }
    if (is_dyn(param) || is_dyn(arg))
        return true;
    if (param->kind != arg->kind) {
        if (arg->kind == CEL_T_NULL && (param->kind == CEL_T_OPAQUE || param->kind == CEL_T_OBJECT))
            return true;
        return false;
    }
    switch (param->kind) {
    case CEL_T_TYPE: return true;
    case CEL_T_LIST:
    case CEL_T_MAP:
    case CEL_T_OPTIONAL:
        if (param->nparams == 0 || arg->nparams == 0)
            return true;
        for (size_t i = 0; i < param->nparams && i < arg->nparams; i++)
            if (!assignable(C, param->params[i], arg->params[i], b))
                return false;
        return true;
    case CEL_T_OPAQUE:
    case CEL_T_OBJECT:
        if (strcmp(param->name, arg->name) != 0)
            return false;
        for (size_t i = 0; i < param->nparams && i < arg->nparams; i++)
            if (!assignable(C, param->params[i], arg->params[i], b))
                return false;
        return true;
    default: return true;
    }
}

static const cel_type *subst(checker *C, const cel_type *t, bindings *b, bool free_to_dyn)
{
    if (t->kind == CEL_T_PARAM) {
        const cel_type *bt = lookup_b(b, t->name);
        if (bt && bt != t)
            return subst(C, bt, b, free_to_dyn);
        return free_to_dyn ? cel_type_dyn() : t;
    }
    if (t->nparams == 0)
        return t;
    cel_type *nt = kg_arena_alloc(C->a, sizeof *nt);
    *nt = *t;
    const cel_type **ps = kg_arena_alloc(C->a, t->nparams * sizeof *ps);
    for (size_t i = 0; i < t->nparams; i++)
        ps[i] = subst(C, t->params[i], b, free_to_dyn);
    nt->params = ps;
    return nt;
}

static bool same_type(const cel_type *a, const cel_type *b) { return cel_type_equal(a, b); }

/* join for list/map literal elements */
static const cel_type *join(checker *C, const cel_type *a, const cel_type *b, bool *mixed)
{
    if (!a)
        return b;
    if (same_type(a, b))
        return a;
    bindings bb = {0};
    if (is_dyn(a))
        return a;
    if (is_dyn(b))
        return b;
    if (b->kind == CEL_T_NULL || a->kind == CEL_T_NULL) {
        *mixed = true;
        return cel_type_dyn();
    }
    if (a->kind == b->kind && assignable(C, a, b, &bb) && assignable(C, b, a, &bb))
        return a;
    *mixed = true;
    return cel_type_dyn();
}

static const cel_type *scope_type(checker *C, int k) { return C->scope[k]; }

static const cel_type *chk_select(checker *C, cel_node *n)
{
    const cel_type *t = chk(C, n->target);
    if (C->failed)
        return cel_type_error();
    bool test = (n->flags & NF_TEST_ONLY) != 0;
    bool opt = false;
    if (t->kind == CEL_T_OPTIONAL) {
        opt = true;
        t = t->nparams ? t->params[0] : cel_type_dyn();
    }
    const cel_type *r;
    switch (t->kind) {
    case CEL_T_DYN:
    case CEL_T_ANY:
    case CEL_T_ERROR:
    case CEL_T_PARAM: r = cel_type_dyn(); break;
    case CEL_T_MAP: r = t->nparams > 1 ? t->params[1] : cel_type_dyn(); break;
    case CEL_T_OBJECT: {
        r = t->nfields ? NULL : cel_type_dyn(); /* schemaless object types: any field, dyn */
        for (size_t i = 0; i < t->nfields; i++)
            if (!strcmp(t->field_names[i], n->name)) {
                r = t->field_types[i];
                break;
            }
        if (!r) {
            cerr(C, n->pos, "undefined field '%s'", n->name);
            return cel_type_error();
        }
        break;
    }
    case CEL_T_OPAQUE: r = cel_type_dyn(); break;
    default:
        cerr(C, n->pos, "type '%s' does not support field selection", tname(C, t));
        return cel_type_error();
    }
    if (test)
        return cel_type_bool();
    if (opt)
        return ck_opt(C, r);
    return r;
}

static const char *arg_list(checker *C, const cel_type **args, size_t n, bool member)
{
    kg_buf b = KG_BUF_INIT;
    size_t start = 0;
    if (member && n > 0) {
        char buf[256];
        kg_buf_puts(&b, cel_type_format(args[0], buf, sizeof buf));
        kg_buf_puts(&b, ".");
        start = 1;
    }
    kg_buf_putc(&b, '(');
    for (size_t i = start; i < n; i++) {
        char buf[256];
        if (i > start)
            kg_buf_puts(&b, ", ");
        kg_buf_puts(&b, cel_type_format(args[i], buf, sizeof buf));
    }
    kg_buf_putc(&b, ')');
    char *s = kg_arena_strdup(C->a, b.data);
    kg_buf_free(&b);
    return s;
}

static const cel_type *chk_call(checker *C, cel_node *n)
{
    const cel_type *targs[64];
    size_t na = n->nargs;
    if (na > 64) {
        cerr(C, n->pos, "too many arguments");
        return cel_type_error();
    }
    for (size_t i = 0; i < na; i++) {
        targs[i] = chk(C, n->args[i]);
        if (C->failed)
            return cel_type_error();
    }
    const cel_func *f = n->fn;
    bool member = (n->flags & NF_MEMBER) != 0;
    if (!f) {
        cerr(C, n->pos, "undeclared reference to '%s' (in container '%s')", n->name, C->env->container);
        return cel_type_error();
    }
    if (n->op == OP_OPT_SELECT) {
        const cel_type *t = targs[0];
        if (t->kind == CEL_T_OPTIONAL)
            t = t->nparams ? t->params[0] : cel_type_dyn();
        const cel_type *r = cel_type_dyn();
        if (t->kind == CEL_T_MAP && t->nparams > 1)
            r = t->params[1];
        else if (t->kind == CEL_T_OBJECT && n->args[1]->kind == N_CONST) {
            const char *fname = n->args[1]->cval.u.s;
            r = NULL;
            for (size_t i = 0; i < t->nfields; i++)
                if (!strcmp(t->field_names[i], fname))
                    r = t->field_types[i];
            if (!r) {
                cerr(C, n->pos, "undefined field '%s'", fname);
                return cel_type_error();
            }
        } else if (!is_dyn(t) && t->kind != CEL_T_MAP && t->kind != CEL_T_PARAM) {
            cerr(C, n->pos, "type '%s' does not support field selection", tname(C, t));
            return cel_type_error();
        }
        return ck_opt(C, r);
    }
    const cel_type *result = NULL;
    bool any = false, multi = false;
    uint16_t *cands = kg_arena_alloc(C->a, (f->novl ? f->novl : 1) * sizeof *cands);
    uint16_t ncands = 0;
    for (size_t k = 0; k < f->novl; k++) {
        const cel_overload *o = &f->ovls[k];
        if (o->nargs != na || ((o->flags & CEL_FN_MEMBER) != 0) != member)
            continue;
        bindings b = {0};
        bool ok = true;
        for (size_t i = 0; i < na && ok; i++)
            ok = assignable(C, o->args[i], targs[i], &b);
        if (!ok)
            continue;
        const cel_type *r = subst(C, o->result, &b, true);
        cands[ncands++] = (uint16_t)k;
        if (!any) {
            result = r;
            any = true;
        } else if (!same_type(result, r)) {
            multi = true;
        }
    }
    if (!any) {
        /* comparisons of dyn-typed or cross numeric values are allowed at runtime; anything else is an error */
        cerr(C, n->pos, "found no matching overload for '%s' applied to '%s'", n->name, arg_list(C, targs, na, member));
        return cel_type_error();
    }
    n->cands = cands;
    n->ncands = ncands;
    if (ncands == 1 && f->ovls[cands[0]].impl) {
        bool concrete = true;
        for (size_t i = 0; i < na; i++)
            if (is_dyn(targs[i]) || targs[i]->kind == CEL_T_PARAM || targs[i]->kind == CEL_T_NULL)
                concrete = false;
        if (concrete)
            n->flags |= NF_DIRECT;
    }
    if (multi)
        return cel_type_dyn();
    return result;
}

static const cel_type *chk_compr(checker *C, cel_node *n)
{
    const cel_type *rt = chk(C, n->range);
    if (C->failed)
        return cel_type_error();
    const cel_type *v1 = cel_type_dyn(), *v2 = cel_type_dyn();
    switch (rt->kind) {
    case CEL_T_LIST:
        if (n->iter_var2) {
            v1 = cel_type_int();
            v2 = rt->nparams ? rt->params[0] : cel_type_dyn();
        } else {
            v1 = rt->nparams ? rt->params[0] : cel_type_dyn();
        }
        break;
    case CEL_T_MAP:
        v1 = rt->nparams ? rt->params[0] : cel_type_dyn();
        v2 = rt->nparams > 1 ? rt->params[1] : cel_type_dyn();
        break;
    case CEL_T_DYN:
    case CEL_T_ANY:
    case CEL_T_ERROR:
    case CEL_T_PARAM: break;
    default:
        cerr(C, n->range->pos, "expression of type '%s' cannot be range of a comprehension (must be list, map, or "
                               "dynamic)",
             tname(C, rt));
        return cel_type_error();
    }
    const cel_type *at = chk(C, n->accu_init);
    if (C->failed)
        return cel_type_error();
    int b = C->depth * 3;
    if (C->depth >= 63) {
        cerr(C, n->pos, "comprehension nesting too deep");
        return cel_type_error();
    }
    C->scope[b] = v1;
    C->scope[b + 1] = v2;
    C->scope[b + 2] = at;
    C->depth++;
    chk(C, n->cond);
    const cel_type *st = chk(C, n->step);
    if (!C->failed && st && !is_dyn(st) && st->kind == at->kind)
        C->scope[b + 2] = st;
    const cel_type *r = chk(C, n->result);
    C->depth--;
    return r;
}

static const cel_type *chk(checker *C, cel_node *n)
{
    if (C->failed)
        return cel_type_error();
    const cel_type *t = cel_type_dyn();
    switch ((node_kind)n->kind) {
    case N_CONST:
        switch (n->cval.kind) {
        case CEL_NULL: t = cel_type_null(); break;
        case CEL_BOOL: t = cel_type_bool(); break;
        case CEL_INT: t = cel_type_int(); break;
        case CEL_UINT: t = cel_type_uint(); break;
        case CEL_DOUBLE: t = cel_type_double(); break;
        case CEL_STRING: t = cel_type_string(); break;
        case CEL_BYTES: t = cel_type_bytes(); break;
        case CEL_TYPE: t = ck_typeof(C, n->cval.u.type); break;
        default: t = cel_type_dyn(); break;
        }
        break;
    case N_IDENT:
        if (n->slot <= -2)
            t = scope_type(C, -2 - n->slot);
        else if (n->slot >= 0)
            t = C->env->vars[n->slot].type;
        else {
            cerr(C, n->pos, "undeclared reference to '%s' (in container '%s')", n->name, C->env->container);
            t = cel_type_error();
        }
        break;
    case N_SELECT: t = chk_select(C, n); break;
    case N_CALL: t = chk_call(C, n); break;
    case N_LIST: {
        const cel_type *e = NULL;
        bool mixed = false;
        for (size_t i = 0; i < n->nargs; i++) {
            const cel_type *et = chk(C, n->args[i]);
            if (n->opt && n->opt[i]) {
                if (et->kind == CEL_T_OPTIONAL)
                    et = et->nparams ? et->params[0] : cel_type_dyn();
                else if (!is_dyn(et)) {
                    cerr(C, n->args[i]->pos, "expected type 'optional_type' but found '%s'", tname(C, et));
                    return cel_type_error();
                }
            }
            bool was = mixed;
            const cel_type *prev = e;
            e = join(C, e, et, &mixed);
            if (mixed && !was && (C->env->opts & CEL_OPT_HOMOGENEOUS_LITERALS)) {
                cerr(C, n->args[i]->pos, "expected type '%s' but found '%s'", tname(C, prev), tname(C, et));
                return cel_type_error();
            }
        }
        t = ck_list(C, e ? e : fresh(C));
        break;
    }
    case N_MAP: {
        const cel_type *k = NULL, *v = NULL;
        bool mixed = false;
        for (size_t i = 0; i < n->nargs; i++) {
            const cel_type *kt = chk(C, n->args[i]);
            const cel_type *vt = chk(C, n->vals[i]);
            if (n->opt && n->opt[i]) {
                if (vt->kind == CEL_T_OPTIONAL)
                    vt = vt->nparams ? vt->params[0] : cel_type_dyn();
                else if (!is_dyn(vt)) {
                    cerr(C, n->vals[i]->pos, "expected type 'optional_type' but found '%s'", tname(C, vt));
                    return cel_type_error();
                }
            }
            const cel_type *pk = k, *pv = v;
            bool was = mixed;
            k = join(C, k, kt, &mixed);
            if (mixed && !was && (C->env->opts & CEL_OPT_HOMOGENEOUS_LITERALS)) {
                cerr(C, n->args[i]->pos, "expected type '%s' but found '%s'", tname(C, pk), tname(C, kt));
                return cel_type_error();
            }
            v = join(C, v, vt, &mixed);
            if (mixed && !was && (C->env->opts & CEL_OPT_HOMOGENEOUS_LITERALS)) {
                cerr(C, n->vals[i]->pos, "expected type '%s' but found '%s'", tname(C, pv), tname(C, vt));
                return cel_type_error();
            }
        }
        t = ck_map(C, k ? k : fresh(C), v ? v : fresh(C));
        break;
    }
    case N_STRUCT: {
        const cel_type *st = n->struct_type;
        for (size_t i = 0; i < n->nargs; i++) {
            const char *f = n->args[i]->cval.u.s;
            const cel_type *ft = NULL;
            for (size_t j = 0; j < st->nfields; j++)
                if (!strcmp(st->field_names[j], f))
                    ft = st->field_types[j];
            const cel_type *vt = chk(C, n->vals[i]);
            if (!ft && st->nfields) {
                cerr(C, n->args[i]->pos, "undefined field '%s'", f);
                return cel_type_error();
            }
            bindings b = {0};
            if (n->opt && n->opt[i] && vt->kind == CEL_T_OPTIONAL)
                vt = vt->nparams ? vt->params[0] : cel_type_dyn();
            if (ft && !assignable(C, ft, vt, &b)) {
                cerr(C, n->vals[i]->pos, "expected type of field '%s' is '%s' but provided type is '%s'", f,
                     tname(C, ft), tname(C, vt));
                return cel_type_error();
            }
        }
        t = st;
        break;
    }
    case N_COMPR: t = chk_compr(C, n); break;
    }
    n->type = t;
    return t;
}

bool cel_check(cel_env *env, kg_arena *a, const char *src, cel_node *root, const cel_type **out, cel_error *err)
{
    checker C;
    memset(&C, 0, sizeof C);
    C.env = env;
    C.a = a;
    C.src = src;
    C.err = err;
    const cel_type *t = chk(&C, root);
    if (C.failed)
        return false;
    bindings b = {0};
    *out = subst(&C, t, &b, true);
    return true;
}
