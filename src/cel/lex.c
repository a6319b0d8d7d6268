/* The CEL lexer: source text to tokens, one at a time (cel_lex_next fills parser.tok), cel-go's token set and
 * error messages. Also the error reporting with line, column and a caret line (cel_error_at, cel_parse_err), which
 * the parser, the checker and the resolver share.
 *
 * Two scanners: lex_nul for sources that end in a NUL (the usual case: the length came from strlen, so scans stop on
 * the NUL and need no bounds checks) and lex for counted sources; both take identifiers, keywords and single-byte
 * punctuation on a fast path and leave strings, numbers, comments and operators to lex_slow. The parser (parse.c)
 * reads only the current token, and the selection runs it scans itself (select_run) use cel_lex_cls. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cel/parse_internal.h"

/* reserved words, bucketed by length so an identifier costs at most a few memcmp of its own length */
bool cel_is_reserved_word(const char *s, size_t n)
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

void cel_parse_err(parser *P, int pos, const char *fmt, ...)
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
                cel_parse_err(P, start, "Syntax error: invalid UTF-8 in string literal");
            return;
        }
    }
    kg_buf b = KG_BUF_INIT;
    for (;;) {
        if (p >= P->len) {
            kg_buf_free(&b);
            cel_parse_err(P, start, "Syntax error: token recognition error at: '%.*s'",
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
                cel_parse_err(P, start, "Syntax error: token recognition error at: '%.*s'", (int)(p - (size_t)start),
                              s + start);
            }
        }
        if (c == '\\' && !raw) {
            int epos = (int)p;
            p++;
            if (p >= P->len) {
                kg_buf_free(&b);
                cel_parse_err(P, epos, "Syntax error: token recognition error at: '\\'");
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
                    cel_parse_err(P, epos, "Syntax error: token recognition error at: '\\%c'", e);
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
                    cel_parse_err(P, epos, "Syntax error: token recognition error at: '\\%c'", e);
                }
                for (int i = 0; i < nd; i++) {
                    int h = p < P->len ? hexval(s[p]) : -1;
                    if (h < 0) {
                        kg_buf_free(&b);
                        cel_parse_err(P, epos, "Syntax error: token recognition error at: '\\%c'", e);
                    }
                    cp = cp * 16 + (uint32_t)h;
                    p++;
                }
                if ((cp >= 0xD800 && cp < 0xE000) || cp > 0x10FFFF) {
                    kg_buf_free(&b);
                    cel_parse_err(P, epos, "Syntax error: invalid unicode code point");
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
                cel_parse_err(P, epos, "Syntax error: token recognition error at: '\\%c'", e);
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
        cel_parse_err(P, start, "Syntax error: invalid UTF-8 in string literal");
}

/* character classes for the lexer's fast path: 1 identifier start, 2 identifier part, 4 white space */
/* clang-format off */
const uint8_t cel_lex_cls[256] = {
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

/* copy of an identifier (n bytes at s, avail bytes readable from s): one 16-byte arena block filled by two word
 * copies for the short ones, kg_arena_strndup otherwise */
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
    if (p < len && (cel_lex_cls[c] & 4)) {
        while (p < len && (cel_lex_cls[(unsigned char)s[p]] & 4))
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
        if (cel_lex_cls[c] & 1) {
            size_t q = p + 1;
            if (P->nul_end) {
                /* the NUL at len is no identifier part: no bound check per byte */
                while (cel_lex_cls[(unsigned char)s[q]] & 2)
                    q++;
            } else {
                while (q < len && (cel_lex_cls[(unsigned char)s[q]] & 2))
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
            if (!(cel_lex_cls[(unsigned char)s[q]] & 2))
                break;
            if (!(cel_lex_cls[(unsigned char)s[q + 1]] & 2)) {
                q += 1;
                break;
            }
            if (!(cel_lex_cls[(unsigned char)s[q + 2]] & 2)) {
                q += 2;
                break;
            }
            if (!(cel_lex_cls[(unsigned char)s[q + 3]] & 2)) {
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
            cel_parse_err(P, (int)p, "Syntax error: token recognition error at: '='");
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
            cel_parse_err(P, (int)p, "Syntax error: token recognition error at: '&'");
        break;
    case '|':
        if (c1 == '|') {
            t->kind = T_OR;
            P->p += 2;
        } else
            cel_parse_err(P, (int)p, "Syntax error: token recognition error at: '|'");
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
                cel_parse_err(P, (int)p, "Syntax error: token recognition error at: '`%c'", ch);
            q++;
        }
        if (q >= P->len || q == p + 1)
            cel_parse_err(P, (int)p, "Syntax error: token recognition error at: '`'");
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
                    cel_parse_err(P, (int)p, "Syntax error: token recognition error at: '0x'");
                if (q < P->len && (s[q] == 'u' || s[q] == 'U')) {
                    q++;
                    if (ovf)
                        cel_parse_err(P, (int)p, "invalid uint literal");
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
                cel_parse_err(P, (int)p, "Syntax error: number literal too long");
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
                        cel_parse_err(P, (int)p, "invalid uint literal");
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
            cel_parse_err(P, (int)p, "Syntax error: token recognition error at: '%.*s'", k > 0 ? k : 1, s + p);
        }
    }
    if (t->kind == T_EOF)
        goto again;
}

void cel_lex_next(parser *P)
{
    if (P->nul_end)
        lex_nul(P, &P->tok);
    else
        lex(P, &P->tok);
}
