/* CEL lexer and recursive-descent parser with macro expansion (cel-go compatible AST shapes and positions). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

/* reserved words, bucketed by length so an identifier costs at most a few memcmp of its own length */
static bool is_reserved_word(const char *s, size_t n) __attribute__((noinline));
static bool is_reserved_word(const char *s, size_t n)
{
    static const char *const by_len[9][5] = {
        [2] = {"as", "if"},
        [3] = {"for", "let", "var"},
        [4] = {"else", "loop", "void"},
        [5] = {"break", "const", "while"},
        [6] = {"import", "return"},
        [7] = {"package"},
        [8] = {"continue", "function"},
    };
    if (n == 9)
        return !memcmp(s, "namespace", 9);
    for (const char *const *w = by_len[n]; *w; w++)
        if ((*w)[0] == s[0] && !memcmp(*w, s, n))
            return true;
    return false;
}

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
    return is_reserved_word(s, n);
}

/* column in code points (1-based) and line of a byte offset */
static void pos_to_linecol(const char *src, int pos, int *line, int *col, int *line_start)
{
    int l = 1, c = 1, ls = 0;
    for (int i = 0; i < pos && src[i]; i++) {
        if (src[i] == '\n') {
            l++;
            c = 1;
            ls = i + 1;
        } else if (((unsigned char)src[i] & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
    if (line_start)
        *line_start = ls;
}

void cel_error_at(cel_error *err, const char *src, int pos, const char *fmt, ...)
{
    if (!err)
        return;
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = 0, col = 0, ls = 0;
    if (pos < 0)
        pos = 0;
    pos_to_linecol(src, pos, &line, &col, &ls);
    err->line = line;
    err->column = col;
    /* the source line and a caret, cel-go style */
    int le = ls;
    while (src[le] && src[le] != '\n')
        le++;
    char caret[256];
    int ci = 0;
    for (int i = 1; i < col && ci < 250; i++)
        caret[ci++] = '.';
    caret[ci++] = '^';
    caret[ci] = 0;
    int linelen = le - ls;
    if (linelen > 300)
        linelen = 300;
    snprintf(err->message, sizeof err->message, "ERROR: <input>:%d:%d: %s\n | %.*s\n | %s", line, col, msg, linelen,
             src + ls, caret);
}

__attribute__((noreturn, format(printf, 3, 4))) static void perr(parser *P, int pos, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cel_error_at(P->err, P->src, pos, "%s", msg);
    P->failed = true;
    CEL_LONGJMP(P->jb);
}

/* ---------------------------------------------------------------- lexer */

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static void lex_string(parser *P, token *t, bool raw, bool bytes, int start)
{
    const char *s = P->src;
    size_t p = P->p;
    char q = s[p];
    bool triple = p + 2 < P->len && s[p + 1] == q && s[p + 2] == q;
    p += triple ? 3 : 1;
    if (!triple) {
        /* fast path: no escapes, no line breaks — copy the body directly */
        /* per byte: 1 = ends the fast path (the quote, a backslash, a line break, a NUL), 2 = non-ASCII (needs
         * UTF-8 validation), 0 = plain */
#define STR_STOP_COMMON [0] = 1, ['\\'] = 1, ['\n'] = 1, ['\r'] = 1, [0x80 ... 0xff] = 2
        static const unsigned char stop_dq[256] = {STR_STOP_COMMON, ['"'] = 1};
        static const unsigned char stop_sq[256] = {STR_STOP_COMMON, ['\''] = 1};
#undef STR_STOP_COMMON
        const unsigned char *stop = q == '"' ? stop_dq : stop_sq;
        size_t e = p;
        unsigned char hi = 0; /* any byte >= 0x80? pure ASCII needs no UTF-8 validation */
        if (P->nul_end) {
            /* the NUL at len stops the scan (there is no other NUL before it) */
            for (;;) {
                unsigned char k = stop[(unsigned char)s[e]];
                if (k == 1)
                    break;
                hi |= k;
                e++;
            }
        } else {
            while (e < P->len) {
                unsigned char k = stop[(unsigned char)s[e]];
                if (k == 1)
                    break;
                hi |= k;
                e++;
            }
        }
        if (e < P->len && s[e] == q) {
            t->kind = bytes ? T_BYTES : T_STRING;
            t->n = e - p;
            t->s = kg_arena_strndup(P->a, s + p, e - p);
            P->p = e + 1;
            if (!bytes && (hi & 2) && !cel_utf8_valid(t->s, t->n))
                perr(P, start, "Syntax error: invalid UTF-8 in string literal");
            return;
        }
    }
    kg_buf b = KG_BUF_INIT;
    for (;;) {
        if (p >= P->len) {
            kg_buf_free(&b);
            perr(P, start, "Syntax error: token recognition error at: '%.*s'",
                 (int)(P->len - (size_t)start > 20 ? 20 : P->len - (size_t)start), s + start);
        }
        char c = s[p];
        if (triple) {
            if (c == q && p + 2 < P->len + 0 && s[p + 1] == q && s[p + 2] == q) {
                p += 3;
                break;
            }
        } else {
            if (c == q) {
                p++;
                break;
            }
            if (c == '\n' || c == '\r') {
                kg_buf_free(&b);
                perr(P, start, "Syntax error: token recognition error at: '%.*s'", (int)(p - (size_t)start), s + start);
            }
        }
        if (c == '\\' && !raw) {
            int epos = (int)p;
            p++;
            if (p >= P->len) {
                kg_buf_free(&b);
                perr(P, epos, "Syntax error: token recognition error at: '\\'");
            }
            char e = s[p++];
            uint32_t cp = 0;
            bool is_octet = false;
            switch (e) {
            case 'a': cp = 7; break;
            case 'b': cp = 8; break;
            case 'f': cp = 12; break;
            case 'n': cp = 10; break;
            case 'r': cp = 13; break;
            case 't': cp = 9; break;
            case 'v': cp = 11; break;
            case '\\': cp = '\\'; break;
            case '?': cp = '?'; break;
            case '"': cp = '"'; break;
            case '\'': cp = '\''; break;
            case '`': cp = '`'; break;
            case 'x':
            case 'X': {
                int h1 = p < P->len ? hexval(s[p]) : -1, h2 = p + 1 < P->len ? hexval(s[p + 1]) : -1;
                if (h1 < 0 || h2 < 0) {
                    kg_buf_free(&b);
                    perr(P, epos, "Syntax error: token recognition error at: '\\%c'", e);
                }
                cp = (uint32_t)(h1 * 16 + h2);
                p += 2;
                is_octet = true;
                break;
            }
            case 'u':
            case 'U': {
                int nd = e == 'u' ? 4 : 8;
                if (bytes) {
                    kg_buf_free(&b);
                    perr(P, epos, "Syntax error: token recognition error at: '\\%c'", e);
                }
                for (int i = 0; i < nd; i++) {
                    int h = p < P->len ? hexval(s[p]) : -1;
                    if (h < 0) {
                        kg_buf_free(&b);
                        perr(P, epos, "Syntax error: token recognition error at: '\\%c'", e);
                    }
                    cp = cp * 16 + (uint32_t)h;
                    p++;
                }
                if ((cp >= 0xD800 && cp < 0xE000) || cp > 0x10FFFF) {
                    kg_buf_free(&b);
                    perr(P, epos, "Syntax error: invalid unicode code point");
                }
                break;
            }
            default:
                if (e >= '0' && e <= '3' && p + 1 < P->len && s[p] >= '0' && s[p] <= '7' && s[p + 1] >= '0' &&
                    s[p + 1] <= '7') {
                    cp = (uint32_t)((e - '0') * 64 + (s[p] - '0') * 8 + (s[p + 1] - '0'));
                    p += 2;
                    is_octet = true;
                    break;
                }
                kg_buf_free(&b);
                perr(P, epos, "Syntax error: token recognition error at: '\\%c'", e);
            }
            if (bytes && is_octet) {
                kg_buf_putc(&b, (char)cp);
            } else if (bytes && cp < 0x80) {
                kg_buf_putc(&b, (char)cp);
            } else {
                char u[4];
                int k = cel_utf8_encode(cp, u);
                kg_buf_append(&b, u, (size_t)k);
            }
            continue;
        }
        if (triple && c == '\r') {
            /* normalise CRLF / CR to LF like the spec */
            kg_buf_putc(&b, '\n');
            p++;
            if (p < P->len && s[p] == '\n')
                p++;
            continue;
        }
        kg_buf_putc(&b, c);
        p++;
    }
    P->p = p;
    t->kind = bytes ? T_BYTES : T_STRING;
    t->n = b.len;
    t->s = kg_arena_strndup(P->a, b.data ? b.data : "", b.len);
    kg_buf_free(&b);
    if (!bytes && !cel_utf8_valid(t->s, t->n))
        perr(P, start, "Syntax error: invalid UTF-8 in string literal");
}

/* character classes for the lexer's fast path: 1 identifier start, 2 identifier part, 4 white space */
/* clang-format off */
static const uint8_t lex_cls[256] = {
    [' '] = 4, ['\t'] = 4, ['\n'] = 4, ['\r'] = 4, ['\f'] = 4, ['_'] = 3,
    ['0'] = 2, ['1'] = 2, ['2'] = 2, ['3'] = 2, ['4'] = 2, ['5'] = 2, ['6'] = 2, ['7'] = 2, ['8'] = 2, ['9'] = 2,
#define LC(c) [c] = 3, [c - 'a' + 'A'] = 3
    LC('a'), LC('b'), LC('c'), LC('d'), LC('e'), LC('f'), LC('g'), LC('h'), LC('i'), LC('j'), LC('k'), LC('l'),
    LC('m'), LC('n'), LC('o'), LC('p'), LC('q'), LC('r'), LC('s'), LC('t'), LC('u'), LC('v'), LC('w'), LC('x'),
    LC('y'), LC('z'),
#undef LC
};
/* clang-format on */

/* single-character tokens that never start a longer token */
static const uint8_t lex_punct[256] = {
    ['('] = T_LPAREN, [')'] = T_RPAREN, ['['] = T_LBRACKET, [']'] = T_RBRACKET, ['{'] = T_LBRACE,
    ['}'] = T_RBRACE, [','] = T_COMMA,  [':'] = T_COLON,    ['?'] = T_QUESTION, ['+'] = T_PLUS,
    ['-'] = T_MINUS,  ['*'] = T_STAR,   ['%'] = T_PERCENT,
};

/* copy of an identifier (n bytes at s, avail bytes readable from s): one 16-byte arena block filled by two word
 * copies for the short ones, kg_arena_strndup otherwise */
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

/* The operator starting with c (c1 the next byte, 0 at the end) among == != <= >= && || ! < >: its kind and width
 * in *w, or T_EOF. */
static inline tok_kind op_token(char c, char c1, int *w)
{
    *w = 2;
    if (c1 == '=') {
        if (c == '=')
            return T_EQ;
        if (c == '!')
            return T_NE;
        if (c == '<')
            return T_LE;
        if (c == '>')
            return T_GE;
    } else if (c == '&' && c1 == '&') {
        return T_AND;
    } else if (c == '|' && c1 == '|') {
        return T_OR;
    }
    *w = 1;
    return c == '!' ? T_NOT : c == '<' ? T_LT : c == '>' ? T_GT : T_EOF;
}

static inline char *ident_dup(parser *P, const char *s, size_t n, size_t avail)
{
    if (n < 16 && avail >= 16) {
        char *d = kg_arena_alloc(P->a, 16);
        uint64_t w0, w1;
        memcpy(&w0, s, 8);
        memcpy(&w1, s + 8, 8);
        memcpy(d, &w0, 8);
        memcpy(d + 8, &w1, 8);
        d[n] = 0;
        return d;
    }
    return kg_arena_strndup(P->a, s, n);
}

static void lex_slow(parser *P, token *t) __attribute__((noinline));
static const token tok_zero; /* copied, not memset: the compiler emits plain stores instead of rep stos */

/* Fast path for the most frequent tokens (identifiers, keywords, single-character punctuation) with the scan
 * position in a local; everything else (strings, numbers, comments, operators) goes to lex_slow. */
static void lex(parser *P, token *t)
{
    const char *s = P->src;
    size_t len = P->len, p = P->p;
    /* tokens are mostly preceded by no or one space: the two candidate first bytes are loaded together and the
     * space taken without a data-dependent branch; more white space (rare) is looped over */
    unsigned char c = 0;
    if (p + 1 < len) {
        unsigned char c0 = (unsigned char)s[p], c1 = (unsigned char)s[p + 1];
        bool sp = c0 == ' ';
        p += sp;
        c = sp ? c1 : c0;
    } else if (p < len) {
        c = (unsigned char)s[p];
    }
    if (p < len && (lex_cls[c] & 4)) {
        while (p < len && (lex_cls[(unsigned char)s[p]] & 4))
            p++;
        c = p < len ? (unsigned char)s[p] : 0;
    }
    if (p >= len) {
        /* end of input (a comment would have stopped the white space loop) */
        *t = tok_zero;
        t->kind = T_EOF;
        t->pos = (int)p;
        P->p = p;
        return;
    }
    {
        if (lex_cls[c] & 1) {
            size_t q = p + 1;
            if (P->nul_end) {
                /* the NUL at len is no identifier part: no bound check per byte */
                while (lex_cls[(unsigned char)s[q]] & 2)
                    q++;
            } else {
                while (q < len && (lex_cls[(unsigned char)s[q]] & 2))
                    q++;
            }
            size_t n = q - p;
            /* r"..", b'..' and friends are string prefixes */
            if (!(n <= 2 && q < len && (s[q] == '"' || s[q] == '\''))) {
                *t = tok_zero;
                t->pos = (int)p;
                t->s = s + p;
                t->n = n;
                t->kind = word_token(s + p, n);
                if (t->kind == T_IDENT) {
                    t->s = ident_dup(P, s + p, n, len - p);
                }
                P->p = q;
                return;
            }
        }
        unsigned k = lex_punct[c];
        if (k) {
            *t = tok_zero;
            t->kind = (tok_kind)k;
            t->pos = (int)p;
            P->p = p + 1;
            return;
        }
        if (c == '"' || c == '\'') {
            /* string literals (all forms) straight to the string lexer */
            *t = tok_zero;
            t->pos = (int)p;
            P->p = p;
            lex_string(P, t, false, false, (int)p);
            return;
        }
        if (c >= '0' && c <= '9') {
            /* short decimal int literals (no fraction, exponent, hex or uint suffix) */
            size_t q = p;
            uint64_t v = 0;
            while (q < len && q - p < 19 && s[q] >= '0' && s[q] <= '9')
                v = v * 10 + (uint64_t)(s[q++] - '0');
            char nc = q < len ? s[q] : 0;
            if (q - p < 19 && nc != '.' && nc != 'e' && nc != 'E' && nc != 'u' && nc != 'U' &&
                !(c == '0' && q == p + 1 && (nc == 'x' || nc == 'X'))) {
                *t = tok_zero;
                t->kind = T_INT;
                t->u = v;
                t->pos = (int)p;
                P->p = q;
                return;
            }
        }
        if (c == '.' && !(p + 1 < len && s[p + 1] >= '0' && s[p + 1] <= '9')) {
            *t = tok_zero;
            t->kind = T_DOT;
            t->pos = (int)p;
            P->p = p + 1;
            return;
        }
        {
            /* two-character operators, and the one-character ones that could start them */
            int w;
            tok_kind k2 = op_token(c, p + 1 < len ? s[p + 1] : 0, &w);
            if (k2 != T_EOF) {
                *t = tok_zero;
                t->kind = k2;
                t->pos = (int)p;
                P->p = p + (size_t)w;
                return;
            }
        }
    }
    P->p = p;
    lex_slow(P, t);
}

/* first-byte dispatch of lex_nul */
enum { LD_SLOW, LD_SPACE, LD_IDENT, LD_PUNCT, LD_DOT, LD_QUOTE, LD_DIGIT, LD_OP, LD_END };
/* clang-format off */
static const uint8_t lex_disp[256] = {
    [0] = LD_END, [' '] = LD_SPACE, ['\t'] = LD_SPACE, ['\n'] = LD_SPACE, ['\r'] = LD_SPACE, ['\f'] = LD_SPACE,
    ['_'] = LD_IDENT, ['.'] = LD_DOT, ['"'] = LD_QUOTE, ['\''] = LD_QUOTE,
    ['0' ... '9'] = LD_DIGIT, ['a' ... 'z'] = LD_IDENT, ['A' ... 'Z'] = LD_IDENT,
    ['('] = LD_PUNCT, [')'] = LD_PUNCT, ['['] = LD_PUNCT, [']'] = LD_PUNCT, ['{'] = LD_PUNCT, ['}'] = LD_PUNCT,
    [','] = LD_PUNCT, [':'] = LD_PUNCT, ['?'] = LD_PUNCT, ['+'] = LD_PUNCT, ['-'] = LD_PUNCT, ['*'] = LD_PUNCT,
    ['%'] = LD_PUNCT, ['='] = LD_OP, ['!'] = LD_OP, ['<'] = LD_OP, ['>'] = LD_OP, ['&'] = LD_OP, ['|'] = LD_OP,
};
/* clang-format on */

/* lex_nul's out-of-line parts (tail calls, so lex_nul itself saves no registers) */
static void lex_quoted(parser *P, token *t, size_t p) __attribute__((noinline));
static void lex_quoted(parser *P, token *t, size_t p)
{
    /* the common literal: one quote, plain ASCII up to the closing quote, copied into the arena inline when the
     * room is there; anything else (triple quotes, escapes, line breaks, non-ASCII, the end) takes lex_string */
    const char *s = P->src;
    char q = s[p];
    if (s[p + 1] != q) {
        static const unsigned char plain_dq[256] = {[' '] = 1, ['!'] = 1, ['#' ... '['] = 1, [']' ... '~'] = 1};
        static const unsigned char plain_sq[256] = {[' ' ... '&'] = 1, ['(' ... '['] = 1, [']' ... '~'] = 1};
        const unsigned char *plain = q == '"' ? plain_dq : plain_sq;
        size_t b = p + 1, e = b;
        /* four bytes per round; no byte past the first non-plain one (the NUL at the latest) is read */
        for (;;) {
            if (!plain[(unsigned char)s[e]])
                break;
            if (!plain[(unsigned char)s[e + 1]]) {
                e += 1;
                break;
            }
            if (!plain[(unsigned char)s[e + 2]]) {
                e += 2;
                break;
            }
            if (!plain[(unsigned char)s[e + 3]]) {
                e += 3;
                break;
            }
            e += 4;
        }
        size_t n = e - b;
        kg_arena *a = P->a;
        if (s[e] == q && n < 32 && (size_t)(a->end - a->ptr) >= 32) {
            char *d = kg_arena_alloc(a, n + 1); /* the room is there: no slow path */
            if (n >= 16) {
                memcpy(d, s + b, 16);
                memcpy(d + n - 16, s + e - 16, 16);
            } else if (n >= 8) {
                memcpy(d, s + b, 8);
                memcpy(d + n - 8, s + e - 8, 8);
            } else {
                for (size_t i = 0; i < n; i++)
                    d[i] = s[b + i];
            }
            d[n] = 0;
            t->kind = T_STRING;
            t->s = d;
            t->n = n;
            t->pos = (int)p;
            P->p = e + 1;
            return;
        }
    }
    *t = tok_zero;
    t->pos = (int)p;
    P->p = p;
    lex_string(P, t, false, false, (int)p);
}

/* The lexer's fast path when the source ends on a NUL at len and has none before it (length from strlen): white
 * space skipped and the token's first byte dispatched through one table, scans stop on the NUL instead of checking
 * the length. Tokens set only the fields the parser reads for their kind. Anything else (comments, operators, string
 * prefixes, other number forms) goes to lex_slow, as in lex. */
static void lex_nul(parser *P, token *t)
{
    const char *s = P->src;
    size_t p = P->p;
    unsigned char c = (unsigned char)s[p];
    unsigned d = lex_disp[c];
    while (d == LD_SPACE) {
        c = (unsigned char)s[++p];
        d = lex_disp[c];
    }
    switch (d) {
    case LD_IDENT: {
        /* four bytes per round; every byte read is at most the first that is no identifier part (the NUL at the
         * latest) */
        size_t q = p + 1;
        for (;;) {
            if (!(lex_cls[(unsigned char)s[q]] & 2))
                break;
            if (!(lex_cls[(unsigned char)s[q + 1]] & 2)) {
                q += 1;
                break;
            }
            if (!(lex_cls[(unsigned char)s[q + 2]] & 2)) {
                q += 2;
                break;
            }
            if (!(lex_cls[(unsigned char)s[q + 3]] & 2)) {
                q += 3;
                break;
            }
            q += 4;
        }
        size_t n = q - p;
        if (n <= 2 && (s[q] == '"' || s[q] == '\''))
            break; /* r"..", b'..' and friends are string prefixes */
        t->pos = (int)p;
        t->n = n;
        t->s = s + p;
        P->p = q;
        t->kind = word_token(s + p, n);
        if (t->kind == T_IDENT) {
            char *d = P->names + p;
            d[n] = 0;
            t->s = d;
        }
        return;
    }
    case LD_PUNCT:
        t->kind = (tok_kind)lex_punct[c];
        t->pos = (int)p;
        P->p = p + 1;
        return;
    case LD_DOT:
        if (s[p + 1] >= '0' && s[p + 1] <= '9')
            break;
        t->kind = T_DOT;
        t->pos = (int)p;
        P->p = p + 1;
        return;
    case LD_QUOTE: lex_quoted(P, t, p); return;
    case LD_DIGIT: {
        /* short decimal int literals (no fraction, exponent, hex or uint suffix) */
        size_t q = p;
        uint64_t v = 0;
        while (q - p < 19 && s[q] >= '0' && s[q] <= '9')
            v = v * 10 + (uint64_t)(s[q++] - '0');
        char nc = s[q];
        if (q - p < 19 && nc != '.' && nc != 'e' && nc != 'E' && nc != 'u' && nc != 'U' &&
            !(c == '0' && q == p + 1 && (nc == 'x' || nc == 'X'))) {
            t->kind = T_INT;
            t->u = v;
            t->pos = (int)p;
            P->p = q;
            return;
        }
        break;
    }
    case LD_OP: {
        /* two-character operators, and the one-character ones that could start them */
        int w;
        tok_kind k2 = op_token(c, s[p + 1], &w);
        if (k2 == T_EOF)
            break;
        t->kind = k2;
        t->pos = (int)p;
        P->p = p + (size_t)w;
        return;
    }
    case LD_END:
        if (p < P->len)
            break; /* not the terminating NUL (cannot happen with a strlen length; the general path decides) */
        t->kind = T_EOF;
        t->pos = (int)p;
        P->p = p;
        return;
    default: break;
    }
    P->p = p;
    lex_slow(P, t);
}

static void lex_slow(parser *P, token *t)
{
    const char *s = P->src;
again:
    while (P->p < P->len) {
        char c = s[P->p];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
            P->p++;
        } else if (c == '/' && P->p + 1 < P->len && s[P->p + 1] == '/') {
            while (P->p < P->len && s[P->p] != '\n')
                P->p++;
        } else {
            break;
        }
    }
    *t = tok_zero;
    t->pos = (int)P->p;
    if (P->p >= P->len) {
        t->kind = T_EOF;
        return;
    }
    size_t p = P->p;
    char c = s[p];
    char c1 = p + 1 < P->len ? s[p + 1] : 0;
    switch (c) {
    case '(':
        t->kind = T_LPAREN;
        P->p++;
        break;
    case ')':
        t->kind = T_RPAREN;
        P->p++;
        break;
    case '[':
        t->kind = T_LBRACKET;
        P->p++;
        break;
    case ']':
        t->kind = T_RBRACKET;
        P->p++;
        break;
    case '{':
        t->kind = T_LBRACE;
        P->p++;
        break;
    case '}':
        t->kind = T_RBRACE;
        P->p++;
        break;
    case ',':
        t->kind = T_COMMA;
        P->p++;
        break;
    case ':':
        t->kind = T_COLON;
        P->p++;
        break;
    case '?':
        t->kind = T_QUESTION;
        P->p++;
        break;
    case '+':
        t->kind = T_PLUS;
        P->p++;
        break;
    case '-':
        t->kind = T_MINUS;
        P->p++;
        break;
    case '*':
        t->kind = T_STAR;
        P->p++;
        break;
    case '/':
        t->kind = T_SLASH;
        P->p++;
        break;
    case '%':
        t->kind = T_PERCENT;
        P->p++;
        break;
    case '!':
        if (c1 == '=') {
            t->kind = T_NE;
            P->p += 2;
        } else {
            t->kind = T_NOT;
            P->p++;
        }
        break;
    case '=':
        if (c1 == '=') {
            t->kind = T_EQ;
            P->p += 2;
        } else
            perr(P, (int)p, "Syntax error: token recognition error at: '='");
        break;
    case '<':
        if (c1 == '=') {
            t->kind = T_LE;
            P->p += 2;
        } else {
            t->kind = T_LT;
            P->p++;
        }
        break;
    case '>':
        if (c1 == '=') {
            t->kind = T_GE;
            P->p += 2;
        } else {
            t->kind = T_GT;
            P->p++;
        }
        break;
    case '&':
        if (c1 == '&') {
            t->kind = T_AND;
            P->p += 2;
        } else
            perr(P, (int)p, "Syntax error: token recognition error at: '&'");
        break;
    case '|':
        if (c1 == '|') {
            t->kind = T_OR;
            P->p += 2;
        } else
            perr(P, (int)p, "Syntax error: token recognition error at: '|'");
        break;
    case '.':
        if (c1 >= '0' && c1 <= '9')
            goto number;
        t->kind = T_DOT;
        P->p++;
        break;
    case '`': {
        size_t q = p + 1;
        while (q < P->len && s[q] != '`') {
            char ch = s[q];
            if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                  ch == '.' || ch == '-' || ch == '/' || ch == ' '))
                perr(P, (int)p, "Syntax error: token recognition error at: '`%c'", ch);
            q++;
        }
        if (q >= P->len || q == p + 1)
            perr(P, (int)p, "Syntax error: token recognition error at: '`'");
        t->kind = T_BACKTICK;
        t->s = kg_arena_strndup(P->a, s + p + 1, q - p - 1);
        t->n = q - p - 1;
        P->p = q + 1;
        break;
    }
    case '"':
    case '\'': lex_string(P, t, false, false, (int)p); break;
    default:
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
            size_t q = p;
            while (q < P->len && ((s[q] >= 'a' && s[q] <= 'z') || (s[q] >= 'A' && s[q] <= 'Z') ||
                                  (s[q] >= '0' && s[q] <= '9') || s[q] == '_'))
                q++;
            size_t n = q - p;
            /* string prefixes */
            if (q < P->len && (s[q] == '"' || s[q] == '\'') && n <= 2) {
                bool raw = false, bytes = false, ok = true;
                for (size_t i = p; i < q; i++) {
                    char ch = s[i];
                    if ((ch == 'r' || ch == 'R') && !raw)
                        raw = true;
                    else if ((ch == 'b' || ch == 'B') && !bytes)
                        bytes = true;
                    else
                        ok = false;
                }
                if (ok) {
                    P->p = q;
                    lex_string(P, t, raw, bytes, (int)p);
                    break;
                }
            }
            P->p = q;
            t->s = s + p;
            t->n = n;
            if (n == 4 && !memcmp(s + p, "true", 4))
                t->kind = T_TRUE;
            else if (n == 5 && !memcmp(s + p, "false", 5))
                t->kind = T_FALSE;
            else if (n == 4 && !memcmp(s + p, "null", 4))
                t->kind = T_NULL;
            else if (n == 2 && !memcmp(s + p, "in", 2))
                t->kind = T_IN;
            else {
                t->kind = T_IDENT;
                t->s = kg_arena_strndup(P->a, s + p, n);
            }
            break;
        }
        if (c >= '0' && c <= '9') {
        number:;
            size_t q = p;
            if (c == '0' && (c1 == 'x' || c1 == 'X')) {
                q += 2;
                size_t h0 = q;
                uint64_t v = 0;
                bool ovf = false;
                while (q < P->len && hexval(s[q]) >= 0) {
                    if (v >> 60)
                        ovf = true;
                    v = v * 16 + (uint64_t)hexval(s[q]);
                    q++;
                }
                if (q == h0)
                    perr(P, (int)p, "Syntax error: token recognition error at: '0x'");
                if (q < P->len && (s[q] == 'u' || s[q] == 'U')) {
                    q++;
                    if (ovf)
                        perr(P, (int)p, "invalid uint literal");
                    t->kind = T_UINT;
                    t->u = v;
                } else {
                    t->kind = T_INT;
                    t->u = v;
                    if (ovf)
                        t->u = UINT64_MAX;
                }
                P->p = q;
                break;
            }
            while (q < P->len && s[q] >= '0' && s[q] <= '9')
                q++;
            bool isf = false;
            if (q + 1 < P->len && s[q] == '.' && s[q + 1] >= '0' && s[q + 1] <= '9') {
                isf = true;
                q++;
                while (q < P->len && s[q] >= '0' && s[q] <= '9')
                    q++;
            }
            if (q < P->len && (s[q] == 'e' || s[q] == 'E')) {
                size_t r = q + 1;
                if (r < P->len && (s[r] == '+' || s[r] == '-'))
                    r++;
                if (r < P->len && s[r] >= '0' && s[r] <= '9') {
                    while (r < P->len && s[r] >= '0' && s[r] <= '9')
                        r++;
                    q = r;
                    isf = true;
                }
            }
            char tmp[128];
            size_t n = q - p;
            if (n >= sizeof tmp)
                perr(P, (int)p, "Syntax error: number literal too long");
            memcpy(tmp, s + p, n);
            tmp[n] = 0;
            if (isf) {
                t->kind = T_DOUBLE;
                t->d = strtod(tmp, NULL);
            } else {
                unsigned long long v = 0;
                bool ovf = false;
                if (n <= 18) {
                    /* cannot overflow: no strtoull */
                    for (size_t i = 0; i < n; i++)
                        v = v * 10 + (unsigned)(tmp[i] - '0');
                } else {
                    errno = 0;
                    v = strtoull(tmp, NULL, 10);
                    ovf = errno == ERANGE;
                }
                if (q < P->len && (s[q] == 'u' || s[q] == 'U')) {
                    q++;
                    if (ovf)
                        perr(P, (int)p, "invalid uint literal");
                    t->kind = T_UINT;
                    t->u = v;
                } else {
                    t->kind = T_INT;
                    t->u = ovf ? UINT64_MAX : v;
                }
            }
            P->p = q;
            break;
        }
        {
            uint32_t cp;
            int k = cel_utf8_decode(s + p, P->len - p, &cp);
            perr(P, (int)p, "Syntax error: token recognition error at: '%.*s'", k > 0 ? k : 1, s + p);
        }
    }
    if (t->kind == T_EOF)
        goto again;
}

static token *cur(parser *P)
{
    return &P->tok;
}
static void next(parser *P)
{
    if (P->nul_end)
        lex_nul(P, &P->tok);
    else
        lex(P, &P->tok);
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
        perr(P, cur(P)->pos, "Syntax error: mismatched input '%s' expecting %s", tok_text(P, cur(P), b, sizeof b),
             what);
    }
    next(P);
}

/* ---------------------------------------------------------------- nodes */

static cel_node *mk(parser *P, node_kind k, int pos)
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

static cel_node *mk_const(parser *P, int pos, cel_value v)
{
    cel_node *n = mk(P, N_CONST, pos);
    n->cval = v;
    return n;
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
static void ires_off(parser *P) __attribute__((noinline, cold));
static void ires_off(parser *P)
{
    P->ires = false;
}

static void ires_ident(parser *P, cel_node *n)
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
        ires_off(P);
        return;
    }
    const var_decl *v = cel_env_var(P->env, name, len);
    if (!v) {
        ires_off(P); /* a type name, an undeclared name: resolve.c decides */
        return;
    }
    n->name = v->name;
    n->slot = v->slot;
    n->type = v->type;
}

/* a call's function: resolve.c res_call without a container */
static void ires_call(parser *P, cel_node *n, const cel_func *f)
{
    n->fn = f;
    n->op = (uint8_t)(f ? (f->op ? f->op : OP_FUNC) : OP_FUNC);
}

/* the _n constructors take the name's length; the macros give it for literals at compile time */
static cel_node *mk_ident_raw(parser *P, int pos, const char *name, size_t len)
{
    cel_node *n = mk(P, N_IDENT, pos);
    n->name = name;
    n->name_len = len;
    return n;
}
static cel_node *mk_ident_n(parser *P, int pos, const char *name, size_t len)
{
    cel_node *n = mk_ident_raw(P, pos, name, len);
    if (P->ires)
        ires_ident(P, n);
    return n;
}
#define mk_ident(P, pos, name) mk_ident_n(P, pos, name, strlen(name))

/* node arrays: callers fill every slot they count (nargs), so only the placeholder of an empty array is zeroed */
static cel_node **nodes(parser *P, size_t n)
{
    cel_node **v = kg_arena_alloc(P->a, (n ? n : 1) * sizeof(cel_node *));
    v[0] = NULL;
    return v;
}

static cel_node *mk_call_n(parser *P, int pos, const char *fn, size_t fnlen, cel_node *target, cel_node **args,
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

static cel_node *call1_n(parser *P, int pos, const char *fn, size_t fnlen, cel_node *a)
{
    cel_node **v = nodes(P, 1);
    v[0] = a;
    return mk_call_n(P, pos, fn, fnlen, NULL, v, 1);
}
#define call1(P, pos, fn, a) call1_n(P, pos, fn, strlen(fn), a)
static cel_node *call2_n(parser *P, int pos, const char *fn, size_t fnlen, cel_node *a, cel_node *b)
{
    cel_node **v = nodes(P, 2);
    v[0] = a;
    v[1] = b;
    return mk_call_n(P, pos, fn, fnlen, NULL, v, 2);
}
#define call2(P, pos, fn, a, b) call2_n(P, pos, fn, strlen(fn), a, b)
static cel_node *call3_n(parser *P, int pos, const char *fn, size_t fnlen, cel_node *a, cel_node *b, cel_node *c)
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

static cel_node *parse_expr(parser *P);

/* ---------------------------------------------------------------- macros */

static const char accu_name[] = "@result"; /* one object: pointers to it compare equal */
#define ACCU accu_name

static cel_node *mk_compr(parser *P, int pos, cel_node *range, const char *iv, const char *iv2, cel_node *init,
                          cel_node *cond, cel_node *step, cel_node *result)
{
    cel_node *n = mk(P, N_COMPR, pos);
    n->range = range;
    n->iter_var = iv;
    n->iter_var2 = iv2;
    n->accu_var = ACCU;
    n->accu_init = init;
    n->cond = cond;
    n->step = step;
    n->result = result;
    return n;
}

static cel_node *empty_list(parser *P, int pos)
{
    cel_node *n = mk(P, N_LIST, pos);
    n->args = nodes(P, 0);
    return n;
}

static const char *var_name(parser *P, cel_node *n)
{
    if (n->kind != N_IDENT || (n->flags & NF_ROOT))
        perr(P, n->pos, "argument must be a simple name");
    return n->name;
}

static cel_node *list1(parser *P, int pos, cel_node *e)
{
    cel_node *l = mk(P, N_LIST, pos);
    l->args = nodes(P, 1);
    l->args[0] = e;
    l->nargs = 1;
    return l;
}

static cel_node *append_step(parser *P, int pos, cel_node *elem)
{
    cel_node *c = call2w(P, pos, CEL_WK_ADD, mk_ident(P, pos, ACCU), list1(P, pos, elem));
    c->flags |= NF_APPEND_ACCU;
    return c;
}

/* Expand a macro call if (name, argc, target) is one; returns NULL otherwise. */
__attribute__((always_inline)) static inline cel_node *
expand_macro(parser *P, int pos, const char *name, size_t name_len, cel_node *target, cel_node **args, size_t n)
{
    unsigned libs = P->env->libs;
    if (!target) {
        if (name[0] == 'h' && n == 1 && !strcmp(name, "has")) {
            cel_node *a = args[0];
            if (a->kind != N_SELECT || (a->flags & NF_OPTIONAL))
                perr(P, a->pos, "invalid argument to has() macro");
            cel_node *s = mk(P, N_SELECT, pos);
            *s = *a;
            s->id = ++P->next_id;
            s->pos = pos;
            s->flags |= NF_TEST_ONLY;
            return s;
        }
        return NULL;
    }
    /* namespaced macros: cel.bind, cel.block */
    if (target->kind == N_IDENT && target->name[0] == 'c' && !strcmp(target->name, "cel") &&
        !(target->flags & NF_ROOT)) {
        if (!strcmp(name, "bind") && n == 3 && (libs & CEL_LIB_BINDINGS)) {
            const char *v = var_name(P, args[0]);
            cel_node *c = mk_compr(P, pos, empty_list(P, pos), "#unused", NULL, args[1],
                                   mk_const(P, pos, cel_bool(false)), mk_ident(P, pos, v), args[2]);
            c->accu_var = v;
            return c;
        }
        if (libs & CEL_LIB_BLOCK) {
            if (!strcmp(name, "index") && n == 1 && args[0]->kind == N_CONST && args[0]->cval.kind == CEL_INT)
                return mk_ident(P, pos, kg_arena_sprintf(P->a, "@index%lld", (long long)args[0]->cval.u.i));
            if ((!strcmp(name, "iterVar") || !strcmp(name, "accuVar")) && n == 2 && args[0]->kind == N_CONST &&
                args[1]->kind == N_CONST && args[0]->cval.kind == CEL_INT && args[1]->cval.kind == CEL_INT)
                return mk_ident(P, pos,
                                kg_arena_sprintf(P->a, "@%s:%lld:%lld", name[0] == 'i' ? "it" : "ac",
                                                 (long long)args[0]->cval.u.i, (long long)args[1]->cval.u.i));
            if (!strcmp(name, "block") && n == 2) {
                if (args[0]->kind != N_LIST)
                    perr(P, args[0]->pos, "cel.block requires the first arg to be a list literal");
                /* nested lazy-enough bindings: @index0 = e0 in (@index1 = e1 in (... result)) */
                cel_node *body = args[1];
                for (size_t i = args[0]->nargs; i-- > 0;) {
                    const char *v = kg_arena_sprintf(P->a, "@index%zu", i);
                    cel_node *c = mk_compr(P, pos, empty_list(P, pos), "#unused", NULL, args[0]->args[i],
                                           mk_const(P, pos, cel_bool(false)), mk_ident(P, pos, v), body);
                    c->accu_var = v;
                    body = c;
                }
                return body;
            }
        }
        return NULL;
    }
    /* which member macro (if any) the name is: one switch and at most one compare */
    enum {
        MM_NONE,
        MM_ALL,
        MM_EXISTS,
        MM_EXISTS_ONE,
        MM_EXISTSONE,
        MM_MAP,
        MM_FILTER,
        MM_TLIST,
        MM_TMAP,
        MM_TMAPENTRY,
        MM_OPTMAP,
        MM_OPTFLATMAP,
        MM_SORTBY
    };
    static const struct {
        const char *s;
        size_t len;
        int id;
    } mm[] = {{"all", 3, MM_ALL},
              {"exists", 6, MM_EXISTS},
              {"exists_one", 10, MM_EXISTS_ONE},
              {"existsOne", 9, MM_EXISTSONE},
              {"map", 3, MM_MAP},
              {"filter", 6, MM_FILTER},
              {"transformList", 13, MM_TLIST},
              {"transformMap", 12, MM_TMAP},
              {"transformMapEntry", 17, MM_TMAPENTRY},
              {"optMap", 6, MM_OPTMAP},
              {"optFlatMap", 10, MM_OPTFLATMAP},
              {"sortBy", 6, MM_SORTBY}};
    int mid = MM_NONE;
    switch (name[0]) {
    case 'a':
    case 'e':
    case 'f':
    case 'm':
    case 'o':
    case 's':
    case 't':
        for (size_t i = 0; i < sizeof mm / sizeof *mm; i++)
            if (mm[i].s[0] == name[0] && mm[i].len == name_len && !memcmp(mm[i].s, name, name_len)) {
                mid = mm[i].id;
                break;
            }
        break;
    default: break;
    }
    if (mid == MM_NONE)
        return NULL;
    bool two = (libs & CEL_LIB_TWOVAR) != 0;
    int pos2 = pos;
    if (mid == MM_ALL || mid == MM_EXISTS || mid == MM_EXISTS_ONE || mid == MM_EXISTSONE) {
        const char *v1 = NULL, *v2 = NULL;
        cel_node *pred;
        bool one = mid == MM_EXISTS_ONE || mid == MM_EXISTSONE;
        if (n == 2 && mid != MM_EXISTSONE) {
            v1 = var_name(P, args[0]);
            pred = args[1];
        } else if (n == 3 && two) {
            v1 = var_name(P, args[0]);
            v2 = var_name(P, args[1]);
            if (!strcmp(v1, v2))
                perr(P, args[1]->pos, "duplicate variable name: %s", v1);
            pred = args[2];
        } else {
            return NULL;
        }
        if ((v1 && v1[0] == '@' && !strcmp(v1, ACCU)) || (v2 && v2[0] == '@' && !strcmp(v2, ACCU)))
            perr(P, args[0]->pos, "iteration variable overwrites accumulator variable");
        if (mid == MM_ALL) {
            cel_node *c = mk_compr(P, pos2, target, v1, v2, mk_const(P, pos, cel_bool(true)),
                                   call1w(P, pos, CEL_WK_NOT_STRICTLY_FALSE, mk_ident(P, pos, ACCU)),
                                   call2w(P, pos, CEL_WK_AND, mk_ident(P, pos, ACCU), pred), mk_ident(P, pos, ACCU));
            c->flags |= NF_ALL;
            c->target = pred;
            return c;
        }
        if (mid == MM_EXISTS) {
            cel_node *c =
                mk_compr(P, pos2, target, v1, v2, mk_const(P, pos, cel_bool(false)),
                         call1w(P, pos, CEL_WK_NOT_STRICTLY_FALSE, call1w(P, pos, CEL_WK_NOT, mk_ident(P, pos, ACCU))),
                         call2w(P, pos, CEL_WK_OR, mk_ident(P, pos, ACCU), pred), mk_ident(P, pos, ACCU));
            c->flags |= NF_EXISTS;
            c->target = pred;
            return c;
        }
        (void)one;
        return mk_compr(P, pos2, target, v1, v2, mk_const(P, pos, cel_int(0)), mk_const(P, pos, cel_bool(true)),
                        call3w(P, pos, CEL_WK_COND, pred,
                               call2w(P, pos, CEL_WK_ADD, mk_ident(P, pos, ACCU), mk_const(P, pos, cel_int(1))),
                               mk_ident(P, pos, ACCU)),
                        call2w(P, pos, CEL_WK_EQ, mk_ident(P, pos, ACCU), mk_const(P, pos, cel_int(1))));
    }
    if (mid == MM_MAP && (n == 2 || n == 3)) {
        const char *v = var_name(P, args[0]);
        cel_node *step = append_step(P, pos, args[n - 1]);
        if (n == 3)
            step = call3w(P, pos, CEL_WK_COND, args[1], step, mk_ident(P, pos, ACCU));
        return mk_compr(P, pos, target, v, NULL, empty_list(P, pos), mk_const(P, pos, cel_bool(true)), step,
                        mk_ident(P, pos, ACCU));
    }
    if (mid == MM_FILTER && n == 2) {
        const char *v = var_name(P, args[0]);
        cel_node *step =
            call3w(P, pos, CEL_WK_COND, args[1], append_step(P, pos, mk_ident(P, pos, v)), mk_ident(P, pos, ACCU));
        return mk_compr(P, pos, target, v, NULL, empty_list(P, pos), mk_const(P, pos, cel_bool(true)), step,
                        mk_ident(P, pos, ACCU));
    }
    if (two && (mid == MM_TLIST || mid == MM_TMAP || mid == MM_TMAPENTRY) && (n == 3 || n == 4)) {
        const char *v1 = var_name(P, args[0]);
        const char *v2 = var_name(P, args[1]);
        if (!strcmp(v1, v2))
            perr(P, args[1]->pos, "duplicate variable name: %s", v1);
        cel_node *init, *step;
        if (mid == MM_TLIST) {
            init = empty_list(P, pos);
            step = append_step(P, pos, args[n - 1]);
        } else {
            init = mk(P, N_MAP, pos);
            init->args = nodes(P, 0);
            init->vals = nodes(P, 0);
            if (mid == MM_TMAP)
                step = call3(P, pos, "cel.@mapInsert", mk_ident(P, pos, ACCU), mk_ident(P, pos, v1), args[n - 1]);
            else
                step = call2(P, pos, "cel.@mapInsert", mk_ident(P, pos, ACCU), args[n - 1]);
        }
        if (n == 4)
            step = call3w(P, pos, CEL_WK_COND, args[2], step, mk_ident(P, pos, ACCU));
        return mk_compr(P, pos, target, v1, v2, init, mk_const(P, pos, cel_bool(true)), step, mk_ident(P, pos, ACCU));
    }
    if ((libs & CEL_LIB_OPTIONALS) && (mid == MM_OPTMAP || mid == MM_OPTFLATMAP) && n == 2) {
        const char *v = var_name(P, args[0]);
        cel_node *val = mk_call(P, pos, "value", target, NULL, 0);
        cel_node *bind = mk_compr(P, pos, empty_list(P, pos), "#unused", NULL, val, mk_const(P, pos, cel_bool(false)),
                                  mk_ident(P, pos, v), args[1]);
        bind->accu_var = v;
        cel_node *yes = bind;
        if (mid == MM_OPTMAP) {
            cel_node *optof = mk_call(P, pos, "optional.of", NULL, nodes(P, 1), 1);
            optof->args[0] = bind;
            yes = optof;
        }
        cel_node *none = mk_call(P, pos, "optional.none", NULL, nodes(P, 0), 0);
        return call3w(P, pos, CEL_WK_COND, mk_call(P, pos, "hasValue", target, NULL, 0), yes, none);
    }
    if ((libs & CEL_LIB_LISTS) && mid == MM_SORTBY && n == 2) {
        const char *v = var_name(P, args[0]);
        cel_node *keys = mk_compr(P, pos, target, v, NULL, empty_list(P, pos), mk_const(P, pos, cel_bool(true)),
                                  append_step(P, pos, args[1]), mk_ident(P, pos, ACCU));
        cel_node **a1 = nodes(P, 1);
        a1[0] = keys;
        return mk_call(P, pos, "@sortByAssociatedKeys", target, a1, 1);
    }
    return NULL;
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
    return parse_expr(P);
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
                        ires_off(P); /* resolve.c reports the nesting */
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
            perr(P, cur(P)->pos, "Syntax error: mismatched input '%s' expecting {')', ','}",
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
        ires_ident(P, as.d[1]); /* no variable: an operand, in the scope of argument 0's */
    cel_node *m = NULL;
    if (!(P->flags & CEL_COMPILE_NO_MACROS))
        m = expand_macro(P, pos, name, name_len, target, args, n);
    if (P->ires) {
        if (m) {
            /* the expansion must be the comprehension over the variables pushed (has(): nothing to follow) */
            const char *const *sc = as.pushed ? &P->iscope[(P->idepth - 1) * 3] : NULL;
            bool ok = as.pushed ? m->kind == N_COMPR && m->iter_var == sc[0] &&
                                      m->iter_var2 == (as.pushed == 2 ? sc[1] : NULL) && m->accu_var == sc[2]
                                : !target && m->kind == N_SELECT;
            if (!ok)
                ires_off(P);
        } else if (as.pushed) {
            ires_off(P); /* no macro: its later arguments saw a variable that is not there */
        } else if (as.d[0]) {
            ires_ident(P, as.d[0]);
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
            ires_off(P); /* a namespaced function, maybe */
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
    ires_off(P); /* the type name: resolve.c */
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
                perr(P, cur(P)->pos, "unsupported syntax '?'");
            o = true;
            next(P);
        }
        int fpos = cur(P)->pos;
        const char *f;
        if (cur(P)->kind == T_IDENT || cur(P)->kind == T_BACKTICK) {
            f = cur(P)->s;
        } else {
            char b[64];
            perr(P, cur(P)->pos, "Syntax error: mismatched input '%s' expecting IDENTIFIER",
                 tok_text(P, cur(P), b, sizeof b));
        }
        next(P);
        expect(P, T_COLON, "':'");
        keys[n] = mk_const(P, fpos, cel_string(f, strlen(f)));
        vals[n] = parse_expr(P);
        opt[n] = o;
        n++;
        if (cur(P)->kind == T_COMMA)
            next(P);
        else if (cur(P)->kind != T_RBRACE) {
            char b[64];
            perr(P, cur(P)->pos, "Syntax error: mismatched input '%s' expecting {'}', ','}",
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
            perr(P, pos, "invalid int literal");
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
        cel_node *e = parse_expr(P);
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
                    perr(P, cur(P)->pos, "unsupported syntax '?'");
                next(P);
                if (!opt)
                    opt = kg_arena_calloc(P->a, cap);
                opt[n] = 1;
            }
            v[n++] = parse_expr(P);
            if (cur(P)->kind == T_COMMA)
                next(P);
            else if (cur(P)->kind != T_RBRACKET) {
                char b[64];
                perr(P, cur(P)->pos, "Syntax error: mismatched input '%s' expecting {']', ','}",
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
                    perr(P, cur(P)->pos, "unsupported syntax '?'");
                next(P);
                if (!opt)
                    opt = kg_arena_calloc(P->a, cap);
                opt[n] = 1;
            }
            k[n] = parse_expr(P);
            expect(P, T_COLON, "':'");
            v[n] = parse_expr(P);
            n++;
            if (cur(P)->kind == T_COMMA)
                next(P);
            else if (cur(P)->kind != T_RBRACE) {
                char b[64];
                perr(P, cur(P)->pos, "Syntax error: mismatched input '%s' expecting {'}', ','}",
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
                perr(P, cur(P)->pos, "Syntax error: mismatched input '%s' expecting IDENTIFIER",
                     tok_text(P, cur(P), b, sizeof b));
            }
        }
        token *it = cur(P);
        const char *name = it->s;
        size_t nlen = it->n;
        int ipos = it->pos;
        if (is_reserved(name, nlen))
            perr(P, ipos, "reserved identifier: %s", name);
        next(P);
        if (cur(P)->kind == T_LPAREN) {
            const char *fname = root ? kg_arena_sprintf(P->a, ".%s", name) : name;
            return finish_call(P, ipos, fname, root ? nlen + 1 : nlen, NULL);
        }
        cel_node *id = mk_ident_n(P, root ? pos : ipos, name, nlen);
        if (root) {
            id->flags |= NF_ROOT;
            ires_off(P);
        }
        return id;
    }
    default: {
        char b[64];
        if (t->kind == T_EOF)
            perr(P, pos,
                 "Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', "
                 "'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}");
        perr(P, pos,
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
        if (!(lex_cls[(unsigned char)s[q]] & 1))
            break;
        q++;
        while (lex_cls[(unsigned char)s[q]] & 2)
            q++;
        size_t n = q - b;
        char c = s[q];
        if (c == '"' || c == '\'' || word_token(s + b, n) != T_IDENT)
            break;
        if (c != '.') {
            /* the token after the segment (white space may come first, a comment could hide it) must not make
             * it a method name or a struct type */
            size_t w = q;
            while (lex_cls[(unsigned char)s[w]] & 4)
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
    if (dot == end && (lex_cls[(unsigned char)s[dot + 1]] & 1)) {
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
                    perr(P, cur(P)->pos, "unsupported syntax '.?'");
                opt = true;
                next(P);
            }
            token *f = cur(P);
            if (f->kind != T_IDENT && f->kind != T_BACKTICK) {
                char b[64];
                perr(P, f->pos, "Syntax error: no viable alternative at input '.%s'", tok_text(P, f, b, sizeof b));
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
                ires_off(P);
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
                    perr(P, cur(P)->pos, "unsupported syntax '[?'");
                opt = true;
                next(P);
            }
            cel_node *idx = parse_expr(P);
            expect(P, T_RBRACKET, "']'");
            if (opt)
                ires_off(P);
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
                    perr(P, nt->pos, "invalid int literal");
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

static cel_node *parse_expr(parser *P)
{
    if (++P->depth > 250)
        perr(P, cur(P)->pos, "expression recursion limit exceeded: 250");
    cel_node *c = parse_or(P);
    if (cur(P)->kind == T_QUESTION) {
        int pos = cur(P)->pos;
        next(P);
        cel_node *a = parse_or(P);
        expect(P, T_COLON, "':'");
        cel_node *b = parse_expr(P);
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
    cel_node *root = parse_expr(P);
    if (cur(P)->kind != T_EOF) {
        char b[64];
        perr(P, cur(P)->pos, "Syntax error: extraneous input '%s' expecting <EOF>", tok_text(P, cur(P), b, sizeof b));
    }
    /* a path of more than CEL_MAX_AST_DEPTH edges needs more distinct nodes than that: small trees skip the walk */
    if (P->next_id > CEL_MAX_AST_DEPTH && !depth_ok(root, 0))
        perr(P, 0, "expression recursion limit exceeded: %d", CEL_MAX_AST_DEPTH);
    out->root = root;
    out->next_id = P->next_id;
    out->resolved = P->ires;
    return true;
}
