/* The RE2 shim: Go regexp semantics that CEL and the Kubernetes regex library rely on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cel/regex/cel_regex.h"

static cel_regex *compile(const char *p)
{
    char err[256] = "";
    cel_regex *re = cel_regex_compile(p, strlen(p), 0, CEL_REGEX_GO_ERRORS, err, sizeof err);
    if (!re)
        fail_msg("compile %s: %s", p, err);
    return re;
}

static void expect_error(const char *p, unsigned flags, const char *want)
{
    char err[256] = "";
    cel_regex *re = cel_regex_compile(p, strlen(p), 0, flags, err, sizeof err);
    assert_null(re);
    assert_string_equal(err, want);
}

static void test_compile_errors(void **state)
{
    (void)state;
    /* Go's regexp error texts (what cel-go reports) */
    expect_error("(a", CEL_REGEX_GO_ERRORS, "error parsing regexp: missing closing ): `(a`");
    expect_error("a)", CEL_REGEX_GO_ERRORS, "error parsing regexp: unexpected ): `a)`");
    expect_error("[a", CEL_REGEX_GO_ERRORS, "error parsing regexp: missing closing ]: `[a`");
    expect_error("a**", CEL_REGEX_GO_ERRORS, "error parsing regexp: invalid nested repetition operator: `**`");
    expect_error("*", CEL_REGEX_GO_ERRORS, "error parsing regexp: missing argument to repetition operator: `*`");
    expect_error("\\8", CEL_REGEX_GO_ERRORS, "error parsing regexp: invalid escape sequence: `\\8`");
    expect_error("a\\", CEL_REGEX_GO_ERRORS, "error parsing regexp: trailing backslash at end of expression: ``");
    expect_error("[z-a]", CEL_REGEX_GO_ERRORS, "error parsing regexp: invalid character class range: `z-a`");
    expect_error("(?P<n", CEL_REGEX_GO_ERRORS, "error parsing regexp: invalid named capture: `(?P<n`");
    expect_error("\\C", CEL_REGEX_GO_ERRORS, "error parsing regexp: invalid escape sequence: `\\C`"); /* Go has no \C */
    expect_error("x{1001}", CEL_REGEX_GO_ERRORS, "error parsing regexp: invalid repeat count: `{1001}`");
    /* RE2's own wording without the flag */
    expect_error("(a", 0, "missing ): (a");
    /* Go 1.22+ named groups (?<name>re) are accepted */
    cel_regex *ng = cel_regex_compile("(?<n>a)[(?<]", 12, 0, CEL_REGEX_GO_ERRORS, NULL, 0);
    assert_non_null(ng);
    assert_int_equal(cel_regex_num_groups(ng), 1);
    assert_true(cel_regex_full_match(ng, "a<", 2));
    cel_regex_free(ng);
    /* no backreferences in RE2 syntax */
    char err[256];
    assert_null(cel_regex_compile("(a)\\1", 5, 0, 0, err, sizeof err));
}

static void test_match(void **state)
{
    (void)state;
    cel_regex *re = compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
    assert_true(cel_regex_partial_match(re, "web-7d4b9c6f5-x2x9k", 19));
    assert_false(cel_regex_partial_match(re, "Web", 3));
    assert_false(cel_regex_partial_match(re, "a-", 2));
    cel_regex_free(re);
    re = compile("b+");
    assert_true(cel_regex_partial_match(re, "abbbc", 5)); /* CEL matches(): substring match */
    assert_false(cel_regex_full_match(re, "abbbc", 5));
    assert_true(cel_regex_full_match(re, "bbb", 3));
    assert_int_equal(cel_regex_num_groups(re), 0);
    size_t n;
    assert_string_equal(cel_regex_pattern(re, &n), "b+");
    assert_int_equal(n, 2);
    cel_regex_free(re);
    /* UTF-8: . is one code point */
    re = compile("^.$");
    assert_true(cel_regex_partial_match(re, "\xc3\xa9", 2));
    cel_regex_free(re);
    /* linear time: a pattern that is exponential for backtracking engines */
    re = compile("(a+)+$");
    char buf[4096];
    memset(buf, 'a', sizeof buf - 1);
    buf[sizeof buf - 2] = 'b';
    assert_false(cel_regex_partial_match(re, buf, sizeof buf - 1));
    cel_regex_free(re);
}

typedef struct spans {
    size_t n;
    size_t s[16], e[16];
} spans;

static bool collect(void *ud, size_t s, size_t e)
{
    spans *sp = ud;
    sp->s[sp->n] = s;
    sp->e[sp->n++] = e;
    return sp->n < 16;
}

static void test_find(void **state)
{
    (void)state;
    cel_regex *re = compile("[0-9]+");
    size_t s, e;
    assert_true(cel_regex_find(re, "abc 123 456", 11, 0, &s, &e));
    assert_int_equal(s, 4);
    assert_int_equal(e, 7);
    assert_true(cel_regex_find(re, "abc 123 456", 11, 7, &s, &e));
    assert_int_equal(s, 8);
    assert_false(cel_regex_find(re, "abc", 3, 0, &s, &e));
    cel_regex_free(re);
    /* ^ anchors at the text start even when searching from an offset */
    re = compile("^a");
    assert_false(cel_regex_find(re, "aa", 2, 1, &s, &e));
    cel_regex_free(re);
}

static void test_find_all(void **state)
{
    (void)state;
    /* Go: regexp.MustCompile("a*").FindAllString("baaab", -1) == ["" "aaa" ""] */
    cel_regex *re = compile("a*");
    spans sp = {0};
    assert_int_equal(cel_regex_find_all(re, "baaab", 5, -1, collect, &sp), 3);
    assert_int_equal(sp.s[0], 0);
    assert_int_equal(sp.e[0], 0);
    assert_int_equal(sp.s[1], 1);
    assert_int_equal(sp.e[1], 4);
    assert_int_equal(sp.s[2], 5);
    assert_int_equal(sp.e[2], 5);
    cel_regex_free(re);
    /* limit */
    re = compile("[a-c]");
    sp.n = 0;
    assert_int_equal(cel_regex_find_all(re, "abcd", 4, 2, collect, &sp), 2);
    assert_int_equal(cel_regex_find_all(re, "abcd", 4, 0, NULL, NULL), 0);
    cel_regex_free(re);
    /* empty matches advance by a whole UTF-8 character: "" before and after "é" */
    re = compile("x*");
    sp.n = 0;
    assert_int_equal(cel_regex_find_all(re, "\xc3\xa9", 2, -1, collect, &sp), 2);
    assert_int_equal(sp.s[1], 2);
    cel_regex_free(re);
}

/* The small DFA must answer exactly like RE2: random texts against patterns that take the DFA path, and a few that
 * must not. */
static uint64_t rs = 88172645463325252ull;
static uint32_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (uint32_t)rs;
}

static void test_dfa_vs_re2(void **state)
{
    (void)state;
    static const char *dfa_patterns[] = {
        "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
        "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]",
        "^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$",
        "ab|cd",
        "a{2,3}b",
        "^a{2}$",
        "x*?y+?z??",
        "\\d{3}-\\d{4}",
        "^\\w+@\\w+\\.com$",
        "(?:ab)+$",
        "^$",
        "",
        "b$",
        "[]a]c",
        "[a-]z",
        "^registry\\.example\\.com/",
        "(a|b)*abb",
        "^(a|ab)(c|bcd)(d*)$",
        "\\s",
        "[\\d_]+x",
        ".*",
        "[^a]",
        "a.c",
        "^registry\\.example\\.com/.*$",
        "^[^/]+/[^:]+:[0-9]+$",
    };
    static const char *big_patterns[] = {
        /* more states x classes than the stride table's budget: one lookup per byte */
        "^[a-c][d-f][g-i][j-l][m-o][p-r][s-u][v-x]$",
        "(a|b|c|d|e|f|g|h)(a|b|c|d|e|f|g|h)(a|b|c|d|e|f|g|h)z",
    };
    static const char *re2_patterns[] = {"(?i)abc", "\\bword",     "^a|b$", "(?P<n>a)", "é",
                                         "a{,2}",   "[[:alpha:]]", "\\pL",  "[a-b-c]"};
    char text[48];
    const char *alpha = "abcdz0129-._@/ xAZ\xc3\xa9\n";
    int strided = 0;
    size_t na = strlen(alpha);
    for (size_t p = 0; p < sizeof dfa_patterns / sizeof dfa_patterns[0]; p++) {
        const char *pat = dfa_patterns[p];
        cel_regex *d = cel_regex_compile(pat, strlen(pat), 0, CEL_REGEX_GO_ERRORS, NULL, 0);
        cel_regex *r = cel_regex_compile(pat, strlen(pat), 0, CEL_REGEX_GO_ERRORS | CEL_REGEX_NO_DFA, NULL, 0);
        assert_non_null(d);
        assert_non_null(r);
        if (!cel_regex_uses_dfa(d))
            fail_msg("pattern %s should use the DFA", pat);
        assert_false(cel_regex_uses_dfa(r));
        strided += cel_regex_dfa_uses_stride(d);
        for (int i = 0; i < 3000; i++) {
            size_t n = rnd() % (i % 2 ? 20 : 45); /* several strides of four bytes, and every tail length */
            for (size_t k = 0; k < n; k++)
                text[k] = alpha[rnd() % na];
            if (cel_regex_partial_match(d, text, n) != cel_regex_partial_match(r, text, n))
                fail_msg("pattern %s text %.*s: dfa %d re2 %d", pat, (int)n, text, cel_regex_partial_match(d, text, n),
                         cel_regex_partial_match(r, text, n));
            /* the caller's "known ASCII" entry gives the same answers on ASCII texts */
            bool ascii = true;
            for (size_t k = 0; k < n; k++)
                ascii &= (unsigned char)text[k] < 0x80;
            if (ascii && cel_regex_partial_match_ascii(d, text, n) != cel_regex_partial_match(r, text, n))
                fail_msg("pattern %s text %.*s: ascii entry differs", pat, (int)n, text);
        }
        /* positions still come from RE2 (built on demand) */
        size_t s1, e1, s2, e2;
        bool f1 = cel_regex_find(d, "xx aab ab abb", 13, 0, &s1, &e1),
             f2 = cel_regex_find(r, "xx aab ab abb", 13, 0, &s2, &e2);
        assert_int_equal(f1, f2);
        if (f1)
            assert_true(s1 == s2 && e1 == e2);
        assert_int_equal(cel_regex_num_groups(d), cel_regex_num_groups(r));
        cel_regex_free(d);
        cel_regex_free(r);
    }
    /* the name pattern of the benchmark reads four bytes a lookup; most of the list does too */
    cel_regex *name = cel_regex_compile(dfa_patterns[0], strlen(dfa_patterns[0]), 0, CEL_REGEX_GO_ERRORS, NULL, 0);
    assert_true(cel_regex_dfa_uses_stride(name));
    cel_regex_free(name);
    assert_true(strided > 10);
    for (size_t p = 0; p < sizeof big_patterns / sizeof big_patterns[0]; p++) {
        const char *pat = big_patterns[p];
        cel_regex *d = cel_regex_compile(pat, strlen(pat), 0, CEL_REGEX_GO_ERRORS, NULL, 0);
        cel_regex *r = cel_regex_compile(pat, strlen(pat), 0, CEL_REGEX_GO_ERRORS | CEL_REGEX_NO_DFA, NULL, 0);
        assert_true(cel_regex_uses_dfa(d));
        if (cel_regex_dfa_uses_stride(d))
            fail_msg("pattern %s should be over the stride budget", pat);
        const char *ok = pat[0] == '^' ? "adgjmpsv" : "xabcz";
        assert_true(cel_regex_partial_match(d, ok, strlen(ok)));
        for (int i = 0; i < 2000; i++) {
            size_t n = rnd() % 12;
            for (size_t k = 0; k < n; k++)
                text[k] = "abcdefghijklmnopqrstuvwxz"[rnd() % 25];
            if (cel_regex_partial_match(d, text, n) != cel_regex_partial_match(r, text, n))
                fail_msg("pattern %s text %.*s: dfa %d re2 %d", pat, (int)n, text, cel_regex_partial_match(d, text, n),
                         cel_regex_partial_match(r, text, n));
        }
        cel_regex_free(d);
        cel_regex_free(r);
    }
    for (size_t p = 0; p < sizeof re2_patterns / sizeof re2_patterns[0]; p++) {
        const char *pat = re2_patterns[p];
        cel_regex *d = cel_regex_compile(pat, strlen(pat), 0, CEL_REGEX_GO_ERRORS, NULL, 0);
        if (!d)
            continue; /* invalid in RE2 too (e.g. [a-b-c]) */
        if (cel_regex_uses_dfa(d))
            fail_msg("pattern %s must stay on RE2", pat);
        cel_regex_free(d);
    }
    /* an invalid pattern is still reported (RE2 decides), even if it looks simple */
    char err[256];
    assert_null(cel_regex_compile("a{1001}", 7, 0, CEL_REGEX_GO_ERRORS, err, sizeof err));
    assert_null(cel_regex_compile("a**", 3, 0, CEL_REGEX_GO_ERRORS, err, sizeof err));
    assert_null(cel_regex_compile("a{3,2}", 6, 0, CEL_REGEX_GO_ERRORS, err, sizeof err));
}

/* Random patterns from the DFA's grammar (and a little outside it): whenever the DFA takes a pattern, RE2 must accept
 * it too and both must answer alike on random texts. */
static void gen_atom(char *b, size_t *n, int depth);
static void gen_seq(char *b, size_t *n, int depth)
{
    int parts = 1 + (int)(rnd() % 3);
    for (int i = 0; i < parts && *n < 40; i++) {
        gen_atom(b, n, depth);
        static const char *quant[] = {"", "", "", "*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "+?", "{,2}", "**"};
        const char *q = quant[rnd() % (sizeof quant / sizeof quant[0])];
        size_t l = strlen(q);
        memcpy(b + *n, q, l);
        *n += l;
    }
}
static void gen_atom(char *b, size_t *n, int depth)
{
    static const char *atoms[] = {"a",   "b", "0",    "-",   "[a-c]", "[0-9a]", "[-a]", "[]b]", "\\d", "\\w",
                                  "\\.", "x", "[a-]", "\\s", "_",     "[b-b]",  ".",    "[^a]", "é",   "\\b"};
    if (depth < 3 && rnd() % 4 == 0) {
        const char *open = rnd() % 2 ? "(" : "(?:";
        size_t l = strlen(open);
        memcpy(b + *n, open, l);
        *n += l;
        gen_seq(b, n, depth + 1);
        if (rnd() % 3 == 0) {
            b[(*n)++] = '|';
            gen_seq(b, n, depth + 1);
        }
        b[(*n)++] = ')';
        return;
    }
    const char *a = atoms[rnd() % (sizeof atoms / sizeof atoms[0])];
    size_t l = strlen(a);
    memcpy(b + *n, a, l);
    *n += l;
}

static void test_dfa_random_patterns(void **state)
{
    (void)state;
    char pat[128], text[40];
    int strided = 0;
    const char *alpha = "ab0-x_. \xc3\xa9"
                        "c9";
    size_t na = strlen(alpha);
    int used = 0;
    for (int it = 0; it < 4000; it++) {
        size_t n = 0;
        if (rnd() % 3 == 0)
            pat[n++] = '^';
        gen_seq(pat, &n, 0);
        if (rnd() % 3 == 0)
            pat[n++] = '$';
        pat[n] = 0;
        cel_regex *d = cel_regex_compile(pat, n, 0, CEL_REGEX_GO_ERRORS, NULL, 0);
        cel_regex *r = cel_regex_compile(pat, n, 0, CEL_REGEX_GO_ERRORS | CEL_REGEX_NO_DFA, NULL, 0);
        if (d && cel_regex_uses_dfa(d)) {
            if (!r)
                fail_msg("DFA took %s but RE2 rejects it", pat);
            used++;
            strided += cel_regex_dfa_uses_stride(d);
            for (int i = 0; i < 200; i++) {
                size_t tn = rnd() % (i % 2 ? 16 : 37);
                for (size_t k = 0; k < tn; k++)
                    text[k] = alpha[rnd() % na];
                if (cel_regex_partial_match(d, text, tn) != cel_regex_partial_match(r, text, tn))
                    fail_msg("pattern %s text %.*s: dfa %d re2 %d", pat, (int)tn, text,
                             cel_regex_partial_match(d, text, tn), cel_regex_partial_match(r, text, tn));
            }
        } else {
            assert_true((d == NULL) == (r == NULL)); /* same validity either way */
        }
        cel_regex_free(d);
        cel_regex_free(r);
    }
    assert_true(used > 1000);
    assert_true(strided > 100 && strided < used); /* both ways of reading are exercised */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compile_errors), cmocka_unit_test(test_match),
        cmocka_unit_test(test_find),           cmocka_unit_test(test_find_all),
        cmocka_unit_test(test_dfa_vs_re2),     cmocka_unit_test(test_dfa_random_patterns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
