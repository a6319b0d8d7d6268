/* The CEL parser's shared state (lex.c, parse.c, macros.c; included by nothing else).
 *
 * cel_parse (parse.c) turns source text into the AST (cel_node, cel_internal.h) in one pass: the lexer (lex.c)
 * produces one token at a time into parser.tok, the recursive-descent grammar (parse.c) builds nodes with the
 * constructors below, and calls whose name and shape are a macro (has, all, exists, exists_one, map, filter,
 * cel.bind, cel.block, the optional and two-variable macros, sortBy) are expanded into comprehensions or selections by
 * macros.c as the call is parsed. Syntax errors unwind to parser.jb (cel_parse_err). While parser.ires is set, the
 * parser also resolves names and functions as it goes (parse.c, "inline resolution"). */
#ifndef KG_CEL_PARSE_INTERNAL_H
#define KG_CEL_PARSE_INTERNAL_H

#include "cel/cel_internal.h"
#include "cel/compile_internal.h"

typedef enum tok_kind {
    T_EOF,
    T_IDENT,
    T_INT,
    T_UINT,
    T_DOUBLE,
    T_STRING,
    T_BYTES,
    T_TRUE,
    T_FALSE,
    T_NULL,
    T_IN,
    T_LPAREN,
    T_RPAREN,
    T_LBRACKET,
    T_RBRACKET,
    T_LBRACE,
    T_RBRACE,
    T_DOT,
    T_COMMA,
    T_COLON,
    T_QUESTION,
    T_PLUS,
    T_MINUS,
    T_STAR,
    T_SLASH,
    T_PERCENT,
    T_NOT,
    T_EQ,
    T_NE,
    T_LT,
    T_LE,
    T_GT,
    T_GE,
    T_AND,
    T_OR,
    T_BACKTICK, /* quoted identifier */
    T_ERROR,
} tok_kind;

typedef struct token {
    tok_kind kind;
    int pos;       /* its first byte; it ends where the lexer stopped (parser.p): only the current token is ever read */
    const char *s; /* decoded string/bytes/ident */
    size_t n;
    int64_t i;
    uint64_t u;
    double d;
} token;

typedef struct parser {
    kg_arena *a;
    const cel_env *env;
    const char *src;
    size_t len;
    size_t p;
    token tok;
    bool nul_end; /* src[len] is a NUL (the length came from strlen): scans may stop on it instead of checking len */
    char *names;  /* with nul_end: a copy of the source in the arena; an identifier's name is its place there, ended
                   * by a NUL written over the byte after it (never part of another identifier) */
    cel_error *err;
    bool failed;
    int next_id;
    unsigned flags;
    int depth;
    /* inline resolution (ires_*): while set, every name and function so far is resolved as cel_resolve would */
    bool ires;
    int idepth;                 /* comprehensions around the current point (as cel_resolve counts them) */
    const char *iscope[64 * 3]; /* their variables: iteration, second iteration, accumulator per level */
    cel_jmp_buf jb;             /* syntax errors unwind here (cel_internal.h: __builtin_setjmp but under ASan) */
} parser;

/* ---------------------------------------------------------------- lexer (lex.c) */

/* the next token into P->tok */
void cel_lex_next(parser *P);
/* character classes: 1 identifier start, 2 identifier part, 4 white space (parse.c select_run scans with them) */
extern const uint8_t cel_lex_cls[256];
bool cel_is_reserved_word(const char *s, size_t n) __attribute__((noinline));

/* inline filter: the first letters of the reserved words of each length (bit c - 'a'); the words compared out of
 * line */
static inline bool is_reserved(const char *s, size_t n)
{
#define RB(c) (1u << ((c) - 'a'))
    static const uint32_t first[10] = {
        [2] = RB('a') | RB('i'),           [3] = RB('f') | RB('l') | RB('v'),
        [4] = RB('e') | RB('l') | RB('v'), [5] = RB('b') | RB('c') | RB('w'),
        [6] = RB('i') | RB('r'),           [7] = RB('p'),
        [8] = RB('c') | RB('f'),           [9] = RB('n'),
    };
#undef RB
    if (n < 2 || n > 9 || s[0] < 'a' || s[0] > 'z' || !(first[n] & (1u << (s[0] - 'a'))))
        return false;
    return cel_is_reserved_word(s, n);
}

/* A word's token: the literals true / false / null, the keyword in, else an identifier. */
static inline tok_kind word_token(const char *w, size_t n)
{
    if (n == 4 && !memcmp(w, "true", 4))
        return T_TRUE;
    if (n == 5 && !memcmp(w, "false", 5))
        return T_FALSE;
    if (n == 4 && !memcmp(w, "null", 4))
        return T_NULL;
    if (n == 2 && w[0] == 'i' && w[1] == 'n')
        return T_IN;
    return T_IDENT;
}

/* a syntax error at byte pos: reported in *P->err (cel_error_at), then the parse unwinds to P->jb */
__attribute__((noreturn, format(printf, 3, 4))) void cel_parse_err(parser *P, int pos, const char *fmt, ...);

/* ---------------------------------------------------------------- grammar (parse.c) */

cel_node *cel_parse_expr(parser *P);
/* inline resolution (parse.c): resolve an identifier as cel_resolve would, or give up on resolving in the parser */
void cel_ires_ident(parser *P, cel_node *n);
void cel_ires_off(parser *P) __attribute__((noinline, cold));

/* a call's function: resolve.c res_call without a container */
static inline void ires_call(parser *P, cel_node *n, const cel_func *f)
{
    n->fn = f;
    n->op = (uint8_t)(f ? (f->op ? f->op : OP_FUNC) : OP_FUNC);
}

/* ---------------------------------------------------------------- nodes (every constructor sets id and position) */

static inline cel_node *mk(parser *P, node_kind k, int pos)
{
    /* copied from a template: compilers expand this into vector stores (a compound literal became rep stos) */
    static const cel_node tmpl = {.slot = -1};
    cel_node *n = kg_arena_alloc(P->a, sizeof *n);
    memcpy(n, &tmpl, sizeof *n);
    n->kind = (uint8_t)k;
    n->id = ++P->next_id;
    n->pos = pos;
    return n;
}

static inline cel_node *mk_const(parser *P, int pos, cel_value v)
{
    cel_node *n = mk(P, N_CONST, pos);
    n->cval = v;
    return n;
}

/* the _n constructors take the name's length; the macros give it for literals at compile time */
static inline cel_node *mk_ident_raw(parser *P, int pos, const char *name, size_t len)
{
    cel_node *n = mk(P, N_IDENT, pos);
    n->name = name;
    n->name_len = len;
    return n;
}
static inline cel_node *mk_ident_n(parser *P, int pos, const char *name, size_t len)
{
    cel_node *n = mk_ident_raw(P, pos, name, len);
    if (P->ires)
        cel_ires_ident(P, n);
    return n;
}
#define mk_ident(P, pos, name) mk_ident_n(P, pos, name, strlen(name))

/* node arrays: callers fill every slot they count (nargs), so only the placeholder of an empty array is zeroed */
static inline cel_node **nodes(parser *P, size_t n)
{
    cel_node **v = kg_arena_alloc(P->a, (n ? n : 1) * sizeof(cel_node *));
    v[0] = NULL;
    return v;
}

static inline cel_node *mk_call_n(parser *P, int pos, const char *fn, size_t fnlen, cel_node *target, cel_node **args,
                                  size_t nargs)
{
    cel_node *n = mk(P, N_CALL, pos);
    n->name = fn;
    n->name_len = fnlen;
    if (target) {
        n->flags |= NF_MEMBER;
        n->target = target;
        cel_node **all = nodes(P, nargs + 1);
        all[0] = target;
        for (size_t i = 0; i < nargs; i++)
            all[i + 1] = args[i];
        n->args = all;
        n->nargs = nargs + 1;
    } else {
        n->args = args;
        n->nargs = nargs;
    }
    return n;
}

#define mk_call(P, pos, fn, target, args, nargs) mk_call_n(P, pos, fn, strlen(fn), target, args, nargs)

static inline cel_node *call1_n(parser *P, int pos, const char *fn, size_t fnlen, cel_node *a)
{
    cel_node **v = nodes(P, 1);
    v[0] = a;
    return mk_call_n(P, pos, fn, fnlen, NULL, v, 1);
}
#define call1(P, pos, fn, a) call1_n(P, pos, fn, strlen(fn), a)
static inline cel_node *call2_n(parser *P, int pos, const char *fn, size_t fnlen, cel_node *a, cel_node *b)
{
    cel_node **v = nodes(P, 2);
    v[0] = a;
    v[1] = b;
    return mk_call_n(P, pos, fn, fnlen, NULL, v, 2);
}
#define call2(P, pos, fn, a, b) call2_n(P, pos, fn, strlen(fn), a, b)
static inline cel_node *call3_n(parser *P, int pos, const char *fn, size_t fnlen, cel_node *a, cel_node *b, cel_node *c)
{
    cel_node **v = nodes(P, 3);
    v[0] = a;
    v[1] = b;
    v[2] = c;
    return mk_call_n(P, pos, fn, fnlen, NULL, v, 3);
}
#define call3(P, pos, fn, a, b, c) call3_n(P, pos, fn, strlen(fn), a, b, c)

/* calls of the functions with fixed names (compile_internal.h): the node carries the env's function for it */
static inline cel_node *with_wk(parser *P, cel_node *n, unsigned k)
{
    n->fn = cel_env_wk(P->env, k);
    if (P->ires)
        ires_call(P, n, n->fn);
    return n;
}
#define call1w(P, pos, k, a) with_wk(P, call1_n(P, pos, cel_wk_names[k], cel_wk_lens[k], a), k)
#define call2w(P, pos, k, a, b) with_wk(P, call2_n(P, pos, cel_wk_names[k], cel_wk_lens[k], a, b), k)
#define call3w(P, pos, k, a, b, c) with_wk(P, call3_n(P, pos, cel_wk_names[k], cel_wk_lens[k], a, b, c), k)

/* ---------------------------------------------------------------- macros (macros.c) */

/* the accumulator variable of the comprehension macros: one object, so pointers to it compare equal */
extern const char cel_accu_name[];
#define ACCU cel_accu_name
/* the expansion of a call if (name, argument count, target) is a macro enabled in the environment, else NULL */
cel_node *cel_expand_macro(parser *P, int pos, const char *name, size_t name_len, cel_node *target, cel_node **args,
                           size_t n);

#endif
