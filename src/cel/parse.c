/* The CEL parser: cel_parse, a recursive-descent parser of cel-go's grammar producing cel-go's AST shapes, node
 * ids and positions (cel_node, cel_internal.h).
 *
 * Tokens come from the lexer (lex.c) one at a time; calls that are macros are expanded by macros.c as soon as their
 * arguments are parsed; the shared state and node constructors are in parse_internal.h. Operator precedence is
 * climbed in parse_bin; selection chains of plain identifiers are scanned straight off the source (select_run).
 * With no container and no dynamic struct prefixes, the parser also resolves names and functions as it builds the
 * tree (inline resolution, below), so cel_compile can skip the resolver's walk; parse_result.resolved says whether
 * it did. The AST depth is bounded here, since every later pass recurses over the tree. */
#include <stdio.h>
#include <stdlib.h>

#include "cel/parse_internal.h"

static token *cur(parser *P)
{
    return &P->tok;
}
static void next(parser *P)
{
    cel_lex_next(P);
}

static const char *tok_text(parser *P, token *t, char *buf, size_t cap)
{
    if (t->kind == T_EOF)
        return "<EOF>";
    int n = (int)P->p - t->pos;
    if (n > 40)
        n = 40;
    snprintf(buf, cap, "%.*s", n, P->src + t->pos);
    return buf;
}

static void expect(parser *P, tok_kind k, const char *what)
{
    if (cur(P)->kind != k) {
        char b[64];
        cel_parse_err(P, cur(P)->pos, "Syntax error: mismatched input '%s' expecting %s",
                      tok_text(P, cur(P), b, sizeof b), what);
    }
    next(P);
}

/* ---------------------------------------------------------------- inline resolution
 *
 * In an environment without container or dynamic struct prefixes, with macros on, the parser does resolve.c's
 * work as it builds the tree: identifiers are looked up in the comprehension scopes around them (the parser knows
 * them: the variables of all/exists/exists_one/existsOne/map/filter are pushed while the macro's later arguments
 * are parsed, then checked against the expansion) and else among the declared variables; functions are looked up
 * by name. Whatever that cannot settle exactly as cel_resolve would (a name that is no declared variable, one
 * that might start a qualified name, a namespaced member call, other macros, optional syntax, struct literals, a
 * speculation the expansion does not confirm) clears P->ires, and cel_compile runs cel_resolve over the whole tree,
 * which redoes every node. */
void cel_ires_off(parser *P)
{
    P->ires = false;
}

void cel_ires_ident(parser *P, cel_node *n)
{
    const char *name = n->name;
    size_t len = n->name_len;
    int k = cel_scope_find(P->iscope, P->idepth, name, len);
    if (k >= 0) {
        n->slot = -2 - k;
        return;
    }
    /* resolve.c root_may_qualify: a dotted variable or type name, or google.*, could make it a qualified name */
    if (!len || cel_env_dotted_first(P->env, (unsigned char)name[0]) || (len == 6 && !memcmp(name, "google", 6))) {
        cel_ires_off(P);
        return;
    }
    const var_decl *v = cel_env_var(P->env, name, len);
    if (!v) {
        cel_ires_off(P); /* a type name, an undeclared name: resolve.c decides */
        return;
    }
    n->name = v->name;
    n->slot = v->slot;
    n->type = v->type;
}

/* ---------------------------------------------------------------- grammar */

/* arguments into *out[skip..]; the first skip slots stay free (the receiver of a member call goes in slot 0) */
/* A call argument. One that is a lone identifier or string literal directly followed by ',' or ')' (after spaces)
 * is made here, as parse_expr would make it (same node, position and error), without the descent through the
 * operator levels; anything else (and anything at the nesting limit) goes to parse_expr. */
static cel_node *parse_arg(parser *P, tok_kind close, bool defer, bool *deferred)
{
    token *t = cur(P);
    if (P->nul_end && close == T_RPAREN && P->depth < 250 && (t->kind == T_IDENT || t->kind == T_STRING)) {
        const char *s = P->src;
        size_t q = P->p;
        while (s[q] == ' ')
            q++;
        if ((s[q] == ',' || s[q] == ')') && !(t->kind == T_IDENT && is_reserved(t->s, t->n))) {
            cel_node *e;
            if (t->kind == T_IDENT) {
                /* a macro's variable name, maybe: resolved (or not) once the call is known */
                e = defer ? mk_ident_raw(P, t->pos, t->s, t->n) : mk_ident_n(P, t->pos, t->s, t->n);
                *deferred = defer;
            } else {
                e = mk_const(P, t->pos, cel_string(t->s, t->n));
            }
            next(P);
            return e;
        }
    }
    return cel_parse_expr(P);
}

/* inline resolution of a call's arguments (finish_call): whether the call may be a comprehension macro, its
 * lone-identifier arguments 0 and 1 left unresolved, and the variables pushed for the arguments after them */
typedef struct arg_scope {
    int mc;         /* 0: no macro; 1: all/exists/exists_one/existsOne/map/filter; 2: one with two variables */
    cel_node *d[2]; /* arguments 0 and 1 when left unresolved */
    int pushed;     /* 0; 1: argument 0 is the iteration variable of a new level; 2: argument 1 the second one */
} arg_scope;

static size_t parse_args(parser *P, tok_kind close, cel_node ***out, size_t skip, arg_scope *as)
{
    size_t n = 0, cap = 4;
    cel_node **v = nodes(P, cap + skip);
    while (cur(P)->kind != close) {
        if (n == cap) {
            v = kg_arena_realloc(P->a, v, (cap + skip) * sizeof *v, (cap * 2 + skip) * sizeof *v);
            cap *= 2;
        }
        size_t i = n;
        bool defer = as->mc && P->ires && (i == 0 || (i == 1 && as->mc == 2 && as->pushed == 1)), dd = false;
        cel_node *e = parse_arg(P, close, defer, &dd);
        v[skip + n++] = e;
        if (dd)
            as->d[i] = e;
        if (cur(P)->kind == T_COMMA) {
            next(P);
            if (dd && P->ires) {
                /* more arguments follow a lone identifier: the macro's variable, in scope for them */
                if (i == 0) {
                    if (P->idepth >= 63) {
                        cel_ires_off(P); /* resolve.c reports the nesting */
                    } else {
                        int b = P->idepth * 3;
                        P->iscope[b] = e->name;
                        P->iscope[b + 1] = NULL;
                        P->iscope[b + 2] = ACCU;
                        P->idepth++;
                        as->pushed = 1;
                    }
                } else {
                    P->iscope[(P->idepth - 1) * 3 + 1] = e->name;
                    as->pushed = 2;
                }
            }
        } else if (cur(P)->kind != close) {
            char b[64];
            cel_parse_err(P, cur(P)->pos, "Syntax error: mismatched input '%s' expecting {')', ','}",
                          tok_text(P, cur(P), b, sizeof b));
        }
    }
    *out = v;
    return n;
}

/* the comprehension macros whose variables the inline resolution follows (arg_scope.mc) */
static int macro_candidate(const parser *P, const char *name, size_t len)
{
    int two = (P->env->libs & CEL_LIB_TWOVAR) ? 2 : 1;
    switch (len) {
    case 3: return !memcmp(name, "all", 3) ? two : !memcmp(name, "map", 3) ? 1 : 0;
    case 6: return !memcmp(name, "exists", 6) ? two : !memcmp(name, "filter", 6) ? 1 : 0;
    case 9: return !memcmp(name, "existsOne", 9) ? two : 0;
    case 10: return !memcmp(name, "exists_one", 10) ? two : 0;
    default: return 0;
    }
}

/* resolve.c member_may_be_qualified without a container */
static bool ires_member_may_qualify(const parser *P, const cel_node *t)
{
    t = cel_select_root(t);
    if (t->kind != N_IDENT || (t->flags & NF_ROOT))
        return true;
    return cel_env_func_root_may(P->env, t->name, t->name_len);
}

static cel_node *finish_call(parser *P, int pos, const char *name, size_t name_len, cel_node *target)
{
    /* current token is '(': cel-go positions calls (and macros) at the open parenthesis */
    pos = cur(P)->pos;
    next(P);
    cel_node **all;
    size_t skip = target ? 1 : 0;
    arg_scope as = {target && P->ires ? macro_candidate(P, name, name_len) : 0, {NULL, NULL}, 0};
    size_t n = parse_args(P, T_RPAREN, &all, skip, &as);
    cel_node **args = all + skip;
    expect(P, T_RPAREN, "')'");
    if (P->ires && as.d[1] && as.pushed < 2)
        cel_ires_ident(P, as.d[1]); /* no variable: an operand, in the scope of argument 0's */
    cel_node *m = NULL;
    if (!(P->flags & CEL_COMPILE_NO_MACROS))
        m = cel_expand_macro(P, pos, name, name_len, target, args, n);
    if (P->ires) {
        if (m) {
            /* the expansion must be the comprehension over the variables pushed (has(): nothing to follow) */
            const char *const *sc = as.pushed ? &P->iscope[(P->idepth - 1) * 3] : NULL;
            bool ok = as.pushed ? m->kind == N_COMPR && m->iter_var == sc[0] &&
                                      m->iter_var2 == (as.pushed == 2 ? sc[1] : NULL) && m->accu_var == sc[2]
                                : !target && m->kind == N_SELECT;
            if (!ok)
                cel_ires_off(P);
        } else if (as.pushed) {
            cel_ires_off(P); /* no macro: its later arguments saw a variable that is not there */
        } else if (as.d[0]) {
            cel_ires_ident(P, as.d[0]);
        }
    }
    if (as.pushed)
        P->idepth--;
    if (m)
        return m;
    if (!target) {
        cel_node *c = mk_call_n(P, pos, name, name_len, NULL, args, n);
        if (P->ires)
            ires_call(P, c,
                      name[0] == '.' ? cel_env_func_n(P->env, name + 1, name_len - 1)
                                     : cel_env_func_n(P->env, name, name_len));
        return c;
    }
    /* member call: the receiver takes the slot kept free in front of the arguments */
    cel_node *c = mk(P, N_CALL, pos);
    c->name = name;
    c->name_len = name_len;
    c->flags |= NF_MEMBER;
    c->target = target;
    all[0] = target;
    c->args = all;
    c->nargs = n + 1;
    if (P->ires) {
        if ((target->kind == N_IDENT || target->kind == N_SELECT) && ires_member_may_qualify(P, target))
            cel_ires_off(P); /* a namespaced function, maybe */
        else
            ires_call(P, c, cel_env_func_n(P->env, name, name_len));
    }
    return c;
}

static const char *qualified_name_d(parser *P, cel_node *n, int depth)
{
    /* ident or select chain → "a.b.c", NULL otherwise */
    if (depth > 64)
        return NULL;
    if (n->kind == N_IDENT)
        return (n->flags & NF_ROOT) ? kg_arena_sprintf(P->a, ".%s", n->name) : n->name;
    if (n->kind == N_SELECT && !(n->flags & (NF_OPTIONAL | NF_TEST_ONLY))) {
        const char *t = qualified_name_d(P, n->target, depth + 1);
        return t ? kg_arena_sprintf(P->a, "%s.%s", t, n->name) : NULL;
    }
    return NULL;
}
static const char *qualified_name(parser *P, cel_node *n)
{
    return qualified_name_d(P, n, 0);
}

/* AST depth bound: every later pass (resolver, checker, evaluator) recurses over the tree, so long left-recursive
 * chains (a.b.c..., 1+1+1...) must be rejected here rather than overflow the stack later. */
#define CEL_MAX_AST_DEPTH 300
static bool depth_ok(const cel_node *n, int d)
{
    if (!n)
        return true;
    if (d > CEL_MAX_AST_DEPTH)
        return false;
    switch ((node_kind)n->kind) {
    case N_CONST:
    case N_IDENT: return true;
    case N_SELECT: return depth_ok(n->target, d + 1);
    case N_CALL:
    case N_LIST:
        for (size_t i = 0; i < n->nargs; i++)
            if (!depth_ok(n->args[i], d + 1))
                return false;
        return true;
    case N_MAP:
    case N_STRUCT:
        for (size_t i = 0; i < n->nargs; i++)
            if (!depth_ok(n->args[i], d + 1) || !depth_ok(n->vals[i], d + 1))
                return false;
        return true;
    case N_COMPR:
        return depth_ok(n->range, d + 1) && depth_ok(n->accu_init, d + 1) && depth_ok(n->cond, d + 1) &&
               depth_ok(n->step, d + 1) && depth_ok(n->result, d + 1);
    }
    return true;
}

static cel_node *parse_struct(parser *P, int pos, const char *tname)
{
    /* current token is '{' */
    cel_ires_off(P); /* the type name: resolve.c */
    next(P);
    cel_node *s = mk(P, N_STRUCT, pos);
    s->name = tname;
    s->name_len = strlen(tname);
    size_t n = 0, cap = 4;
    cel_node **keys = nodes(P, cap), **vals = nodes(P, cap);
    uint8_t *opt = kg_arena_calloc(P->a, cap);
    while (cur(P)->kind != T_RBRACE) {
        if (n == cap) {
            keys = kg_arena_realloc(P->a, keys, cap * sizeof *keys, cap * 2 * sizeof *keys);
            vals = kg_arena_realloc(P->a, vals, cap * sizeof *vals, cap * 2 * sizeof *vals);
            opt = kg_arena_realloc(P->a, opt, cap, cap * 2);
            cap *= 2;
        }
        bool o = false;
        if (cur(P)->kind == T_QUESTION) {
            if (!(P->env->libs & CEL_LIB_OPTIONALS))
                cel_parse_err(P, cur(P)->pos, "unsupported syntax '?'");
            o = true;
            next(P);
        }
        int fpos = cur(P)->pos;
        const char *f;
        if (cur(P)->kind == T_IDENT || cur(P)->kind == T_BACKTICK) {
            f = cur(P)->s;
        } else {
            char b[64];
            cel_parse_err(P, cur(P)->pos, "Syntax error: mismatched input '%s' expecting IDENTIFIER",
                          tok_text(P, cur(P), b, sizeof b));
        }
        next(P);
        expect(P, T_COLON, "':'");
        keys[n] = mk_const(P, fpos, cel_string(f, strlen(f)));
        vals[n] = cel_parse_expr(P);
        opt[n] = o;
        n++;
        if (cur(P)->kind == T_COMMA)
            next(P);
        else if (cur(P)->kind != T_RBRACE) {
            char b[64];
            cel_parse_err(P, cur(P)->pos, "Syntax error: mismatched input '%s' expecting {'}', ','}",
                          tok_text(P, cur(P), b, sizeof b));
        }
    }
    next(P);
    s->args = keys;
    s->vals = vals;
    s->opt = opt;
    s->nargs = n;
    return s;
}

static cel_node *parse_primary(parser *P)
{
    token *t = cur(P);
    int pos = t->pos;
    switch (t->kind) {
    case T_INT: {
        if (t->u > (uint64_t)INT64_MAX)
            cel_parse_err(P, pos, "invalid int literal");
        cel_node *n = mk_const(P, pos, cel_int((int64_t)t->u));
        next(P);
        return n;
    }
    case T_UINT: {
        cel_node *n = mk_const(P, pos, cel_uint(t->u));
        next(P);
        return n;
    }
    case T_DOUBLE: {
        cel_node *n = mk_const(P, pos, cel_double(t->d));
        next(P);
        return n;
    }
    case T_STRING: {
        cel_node *n = mk_const(P, pos, cel_string(t->s, t->n));
        next(P);
        return n;
    }
    case T_BYTES: {
        cel_node *n = mk_const(P, pos, cel_bytes(t->s, t->n));
        next(P);
        return n;
    }
    case T_TRUE:
    case T_FALSE: {
        cel_node *n = mk_const(P, pos, cel_bool(t->kind == T_TRUE));
        next(P);
        return n;
    }
    case T_NULL: {
        cel_node *n = mk_const(P, pos, cel_null());
        next(P);
        return n;
    }
    case T_LPAREN: {
        next(P);
        cel_node *e = cel_parse_expr(P);
        expect(P, T_RPAREN, "')'");
        return e;
    }
    case T_LBRACKET: {
        next(P);
        cel_node *l = mk(P, N_LIST, pos);
        size_t n = 0, cap = 4;
        cel_node **v = nodes(P, cap);
        uint8_t *opt = NULL;
        while (cur(P)->kind != T_RBRACKET) {
            if (n == cap) {
                v = kg_arena_realloc(P->a, v, cap * sizeof *v, cap * 2 * sizeof *v);
                if (opt)
                    opt = kg_arena_realloc(P->a, opt, cap, cap * 2);
                cap *= 2;
            }
            if (cur(P)->kind == T_QUESTION) {
                if (!(P->env->libs & CEL_LIB_OPTIONALS))
                    cel_parse_err(P, cur(P)->pos, "unsupported syntax '?'");
                next(P);
                if (!opt)
                    opt = kg_arena_calloc(P->a, cap);
                opt[n] = 1;
            }
            v[n++] = cel_parse_expr(P);
            if (cur(P)->kind == T_COMMA)
                next(P);
            else if (cur(P)->kind != T_RBRACKET) {
                char b[64];
                cel_parse_err(P, cur(P)->pos, "Syntax error: mismatched input '%s' expecting {']', ','}",
                              tok_text(P, cur(P), b, sizeof b));
            }
        }
        next(P);
        l->args = v;
        l->nargs = n;
        l->opt = opt;
        return l;
    }
    case T_LBRACE: {
        next(P);
        cel_node *m = mk(P, N_MAP, pos);
        size_t n = 0, cap = 4;
        cel_node **k = nodes(P, cap), **v = nodes(P, cap);
        uint8_t *opt = NULL;
        while (cur(P)->kind != T_RBRACE) {
            if (n == cap) {
                k = kg_arena_realloc(P->a, k, cap * sizeof *k, cap * 2 * sizeof *k);
                v = kg_arena_realloc(P->a, v, cap * sizeof *v, cap * 2 * sizeof *v);
                if (opt)
                    opt = kg_arena_realloc(P->a, opt, cap, cap * 2);
                cap *= 2;
            }
            if (cur(P)->kind == T_QUESTION) {
                if (!(P->env->libs & CEL_LIB_OPTIONALS))
                    cel_parse_err(P, cur(P)->pos, "unsupported syntax '?'");
                next(P);
                if (!opt)
                    opt = kg_arena_calloc(P->a, cap);
                opt[n] = 1;
            }
            k[n] = cel_parse_expr(P);
            expect(P, T_COLON, "':'");
            v[n] = cel_parse_expr(P);
            n++;
            if (cur(P)->kind == T_COMMA)
                next(P);
            else if (cur(P)->kind != T_RBRACE) {
                char b[64];
                cel_parse_err(P, cur(P)->pos, "Syntax error: mismatched input '%s' expecting {'}', ','}",
                              tok_text(P, cur(P), b, sizeof b));
            }
        }
        next(P);
        m->args = k;
        m->vals = v;
        m->nargs = n;
        m->opt = opt;
        return m;
    }
    case T_DOT:
    case T_IDENT: {
        bool root = false;
        if (t->kind == T_DOT) {
            root = true;
            next(P);
            if (cur(P)->kind != T_IDENT) {
                char b[64];
                cel_parse_err(P, cur(P)->pos, "Syntax error: mismatched input '%s' expecting IDENTIFIER",
                              tok_text(P, cur(P), b, sizeof b));
            }
        }
        token *it = cur(P);
        const char *name = it->s;
        size_t nlen = it->n;
        int ipos = it->pos;
        if (is_reserved(name, nlen))
            cel_parse_err(P, ipos, "reserved identifier: %s", name);
        next(P);
        if (cur(P)->kind == T_LPAREN) {
            const char *fname = root ? kg_arena_sprintf(P->a, ".%s", name) : name;
            return finish_call(P, ipos, fname, root ? nlen + 1 : nlen, NULL);
        }
        cel_node *id = mk_ident_n(P, root ? pos : ipos, name, nlen);
        if (root) {
            id->flags |= NF_ROOT;
            cel_ires_off(P);
        }
        return id;
    }
    default: {
        char b[64];
        if (t->kind == T_EOF)
            cel_parse_err(P, pos,
                          "Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', "
                          "'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}");
        cel_parse_err(P, pos,
                      "Syntax error: extraneous input '%s' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', "
                      "'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
                      tok_text(P, t, b, sizeof b));
    }
    }
}

/* The selections .a.b.c written without spaces, read straight from the source (the current token is the first '.',
 * P->p just after it): for each segment a select node as parse_member_rest makes it, the segment's name in the
 * source copy. A segment that is a method name (followed by '(', after white space maybe), a keyword, a string
 * prefix, followed by '{' (a struct literal, maybe) or a comment, or anything but a plain identifier is left to the
 * token path. Returns the selection so
 * far (NULL when no segment was taken); the current token is then the one after its last segment, or, when a '.'
 * stopped the run (*at_dot), that '.' with P->p just after it, for the token path to go on with. */
static cel_node *select_run(parser *P, cel_node *e, bool *at_dot)
{
    const char *s = P->src;
    size_t q = P->p, dot = q - 1, end = 0;
    *at_dot = false;
    for (;;) {
        size_t b = q;
        if (!(cel_lex_cls[(unsigned char)s[q]] & 1))
            break;
        q++;
        while (cel_lex_cls[(unsigned char)s[q]] & 2)
            q++;
        size_t n = q - b;
        char c = s[q];
        if (c == '"' || c == '\'' || word_token(s + b, n) != T_IDENT)
            break;
        if (c != '.') {
            /* the token after the segment (white space may come first, a comment could hide it) must not make
             * it a method name or a struct type */
            size_t w = q;
            while (cel_lex_cls[(unsigned char)s[w]] & 4)
                w++;
            if (s[w] == '(' || s[w] == '{' || s[w] == '/')
                break;
        }
        cel_node *sel = mk(P, N_SELECT, (int)dot);
        sel->target = e;
        sel->name = P->names + b;
        P->names[q] = 0;
        sel->name_len = n;
        e = sel;
        end = q;
        if (c != '.')
            break;
        dot = q++;
    }
    if (!end)
        return NULL;
    if (dot == end && (cel_lex_cls[(unsigned char)s[dot + 1]] & 1)) {
        /* stopped after a '.' before an identifier (the lexer's '.' token; before a digit it would start a number):
         * it is the current token */
        P->tok.kind = T_DOT;
        P->tok.pos = (int)dot;
        P->p = dot + 1;
        *at_dot = true;
        return e;
    }
    P->p = end; /* (a '.' that stopped the run is lexed again from here) */
    next(P);
    return e;
}

static cel_node *parse_member_rest(parser *P, cel_node *e)
{
    for (;;) {
        token *t = cur(P);
        if (t->kind == T_DOT) {
            int dpos = t->pos;
            if (P->nul_end) {
                bool at_dot;
                cel_node *r = select_run(P, e, &at_dot);
                if (r) {
                    e = r;
                    if (!at_dot)
                        continue;
                    dpos = cur(P)->pos; /* the '.' before a segment the run left */
                }
            }
            next(P);
            bool opt = false;
            if (cur(P)->kind == T_QUESTION) {
                if (!(P->env->libs & CEL_LIB_OPTIONALS))
                    cel_parse_err(P, cur(P)->pos, "unsupported syntax '.?'");
                opt = true;
                next(P);
            }
            token *f = cur(P);
            if (f->kind != T_IDENT && f->kind != T_BACKTICK) {
                char b[64];
                cel_parse_err(P, f->pos, "Syntax error: no viable alternative at input '.%s'",
                              tok_text(P, f, b, sizeof b));
            }
            const char *fname = f->s;
            size_t flen = f->n;
            bool quoted = f->kind == T_BACKTICK;
            next(P);
            if (!opt && !quoted && cur(P)->kind == T_LPAREN) {
                /* qualified function name? (a.b.f(...) where a.b is not data) — resolved later */
                e = finish_call(P, dpos, fname, flen, e);
                continue;
            }
            if (opt) {
                cel_ires_off(P);
                e = call2(P, dpos, "_?._", e, mk_const(P, dpos, cel_string(fname, strlen(fname))));
                continue;
            }
            cel_node *s = mk(P, N_SELECT, dpos);
            s->target = e;
            s->name = fname;
            s->name_len = flen;
            e = s;
            if (cur(P)->kind == T_LBRACE) {
                const char *qn = qualified_name(P, e);
                if (qn && !(P->flags & 0x100))
                    e = parse_struct(P, cur(P)->pos, qn);
            }
            continue;
        }
        if (t->kind == T_LBRACKET) {
            int bpos = t->pos;
            next(P);
            bool opt = false;
            if (cur(P)->kind == T_QUESTION) {
                if (!(P->env->libs & CEL_LIB_OPTIONALS))
                    cel_parse_err(P, cur(P)->pos, "unsupported syntax '[?'");
                opt = true;
                next(P);
            }
            cel_node *idx = cel_parse_expr(P);
            expect(P, T_RBRACKET, "']'");
            if (opt)
                cel_ires_off(P);
            e = opt ? call2(P, bpos, "_[?_]", e, idx) : call2w(P, bpos, CEL_WK_INDEX, e, idx);
            continue;
        }
        if (t->kind == T_LBRACE && e->kind == N_IDENT) {
            const char *qn = qualified_name(P, e);
            e = parse_struct(P, t->pos, qn);
            continue;
        }
        return e;
    }
}

static cel_node *parse_unary(parser *P)
{
    token *t = cur(P);
    if (t->kind == T_NOT) {
        int pos = t->pos, k = 0;
        while (cur(P)->kind == T_NOT) {
            k++;
            next(P);
        }
        cel_node *m = parse_member_rest(P, parse_primary(P));
        return (k % 2) ? call1w(P, pos, CEL_WK_NOT, m) : m;
    }
    if (t->kind == T_MINUS) {
        int pos = t->pos, k = 0;
        while (cur(P)->kind == T_MINUS) {
            k++;
            next(P);
        }
        token *nt = cur(P);
        if ((k % 2) == 1 && (nt->kind == T_INT || nt->kind == T_DOUBLE)) {
            /* sign folds into the literal */
            cel_node *lit;
            if (nt->kind == T_INT) {
                if (nt->u > (uint64_t)INT64_MAX + 1)
                    cel_parse_err(P, nt->pos, "invalid int literal");
                lit = mk_const(P, pos, cel_int((int64_t)(0 - nt->u)));
            } else {
                lit = mk_const(P, pos, cel_double(-nt->d));
            }
            next(P);
            return parse_member_rest(P, lit);
        }
        cel_node *m = parse_member_rest(P, parse_primary(P));
        return (k % 2) ? call1w(P, pos, CEL_WK_NEG, m) : m;
    }
    return parse_member_rest(P, parse_primary(P));
}

/* Binary operators by precedence climbing: one loop instead of a function per precedence level (||, &&,
 * relations, additive, multiplicative), all left-associative, giving the same trees, positions and node order as
 * one recursive-descent function per level. cel-go builds balanced &&/|| trees; any shape evaluates the same. */
static const struct binop {
    uint8_t prec;
    uint8_t wk; /* the function (compile_internal.h) */
} binops[T_ERROR + 1] = {
    [T_OR] = {1, CEL_WK_OR},     [T_AND] = {2, CEL_WK_AND},     [T_EQ] = {3, CEL_WK_EQ},     [T_NE] = {3, CEL_WK_NE},
    [T_LT] = {3, CEL_WK_LT},     [T_LE] = {3, CEL_WK_LE},       [T_GT] = {3, CEL_WK_GT},     [T_GE] = {3, CEL_WK_GE},
    [T_IN] = {3, CEL_WK_IN},     [T_PLUS] = {4, CEL_WK_ADD},    [T_MINUS] = {4, CEL_WK_SUB}, [T_STAR] = {5, CEL_WK_MUL},
    [T_SLASH] = {5, CEL_WK_DIV}, [T_PERCENT] = {5, CEL_WK_MOD},
};

static cel_node *parse_bin(parser *P, int min_prec)
{
    cel_node *l = parse_unary(P);
    for (;;) {
        const struct binop *op = &binops[cur(P)->kind];
        if (!op->prec || op->prec < min_prec)
            return l;
        int pos = cur(P)->pos;
        next(P);
        cel_node *r = parse_bin(P, op->prec + 1);
        l = call2w(P, pos, op->wk, l, r);
    }
}

static cel_node *parse_or(parser *P)
{
    return parse_bin(P, 1);
}

cel_node *cel_parse_expr(parser *P)
{
    if (++P->depth > 250)
        cel_parse_err(P, cur(P)->pos, "expression recursion limit exceeded: 250");
    cel_node *c = parse_or(P);
    if (cur(P)->kind == T_QUESTION) {
        int pos = cur(P)->pos;
        next(P);
        cel_node *a = parse_or(P);
        expect(P, T_COLON, "':'");
        cel_node *b = cel_parse_expr(P);
        c = call3w(P, pos, CEL_WK_COND, c, a, b);
    }
    P->depth--;
    return c;
}

bool cel_parse(kg_arena *a, const cel_env *env, const char *src, size_t len, unsigned flags, parse_result *out,
               cel_error *err)
{
    /* parser state on the stack, only the fields read before being written are initialised (the jump buffer and
     * tokens are written first); after a longjmp nothing in it is read */
    parser ps;
    parser *P = &ps;
    P->p = 0;
    P->failed = false;
    P->next_id = 0;
    P->depth = 0;
    P->a = a;
    P->env = env;
    P->src = src;
    P->len = len ? len : strlen(src);
    P->nul_end = !len;
    P->ires = !(flags & (CEL_COMPILE_NO_MACROS | CEL_COMPILE_FULL_RESOLVE)) && !env->container[0] && !env->ndyn_structs;
    P->idepth = 0;
    if (P->nul_end) {
        P->names = kg_arena_alloc(a, P->len + 1);
        memcpy(P->names, src, P->len + 1);
    }
    P->err = err;
    P->flags = flags;
    if (P->len > 100000) {
        cel_error_at(err, src, 0, "expression code point size exceeds limit: size: %zu, limit 100000", P->len);
        return false;
    }
    if (CEL_SETJMP(P->jb))
        return false;
    next(P);
    cel_node *root = cel_parse_expr(P);
    if (cur(P)->kind != T_EOF) {
        char b[64];
        cel_parse_err(P, cur(P)->pos, "Syntax error: extraneous input '%s' expecting <EOF>",
                      tok_text(P, cur(P), b, sizeof b));
    }
    /* a path of more than CEL_MAX_AST_DEPTH edges needs more distinct nodes than that: small trees skip the walk */
    if (P->next_id > CEL_MAX_AST_DEPTH && !depth_ok(root, 0))
        cel_parse_err(P, 0, "expression recursion limit exceeded: %d", CEL_MAX_AST_DEPTH);
    out->root = root;
    out->next_id = P->next_id;
    out->resolved = P->ires;
    return true;
}
