// re2_shim.cc - extern "C" implementation of cel_regex.h over RE2. No exceptions cross the C boundary: RE2 does
// not throw on bad patterns, and allocation failure inside new(std::nothrow) yields NULL.
#include "cel/regex/cel_regex.h"

#include <re2/re2.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <utility>

#include "cel/regex/small_dfa.h"

// A compiled pattern. Simple ASCII patterns (the small DFA's subset) are only validated when compiled: their DFA is
// built on the first boolean match and their RE2 object only when positions or groups are needed (find/findAll).
// Both are built at most once per use, published with C11-style atomics / std::call_once, so a compiled pattern can
// be shared by concurrent evaluations: a thread that loses the race to publish the DFA frees its own copy. All other
// patterns use RE2 from the start.
struct cel_regex {
    re2::RE2 *re = nullptr;
    bool re_lazy = false;      // RE2 object built on demand (re guarded by once)
    const char *pat = nullptr; // as given, NUL-terminated: stored right behind the object (one allocation)
    size_t plen = 0;
    std::string syntax; // as handed to RE2 (Go syntax rewritten); for lazy patterns computed with the RE2 object
    re2::RE2::Options opt;
    // nullptr: not built yet (lazy); no_dfa(): none (outside the subset or over the state limit); else the DFA
    std::atomic<celre::SmallDFA *> dfa{nullptr};
    std::once_flag once;
};

static cel_regex *regex_new(const char *p, size_t n)
{
    void *mem = ::operator new(sizeof(cel_regex) + n + 1, std::nothrow);
    if (!mem)
        return nullptr;
    cel_regex *r = new (mem) cel_regex;
    char *buf = reinterpret_cast<char *>(r + 1);
    if (n)
        std::memcpy(buf, p, n);
    buf[n] = '\0';
    r->pat = buf;
    r->plen = n;
    return r;
}

static void regex_delete(cel_regex *r)
{
    r->~cel_regex();
    ::operator delete(r);
}

static char no_dfa_marker; // its address marks "no DFA"
static inline celre::SmallDFA *no_dfa()
{
    return reinterpret_cast<celre::SmallDFA *>(&no_dfa_marker);
}

namespace
{
bool go_syntax(const std::string &in, std::string *out, std::string *bad);
}

static re2::RE2 *get_re2(const cel_regex *cre)
{
    cel_regex *r = const_cast<cel_regex *>(cre);
    if (r->re_lazy) {
        std::call_once(r->once, [r] {
            try {
                std::string bad;
                if (r->syntax.empty() && r->plen && !go_syntax(std::string(r->pat, r->plen), &r->syntax, &bad))
                    return; // cannot happen for a validated pattern
                r->re = new (std::nothrow) re2::RE2(re2::StringPiece(r->syntax.data(), r->syntax.size()), r->opt);
            } catch (...) {
                r->re = nullptr; // out of memory: no exception crosses the C interface
            }
        });
    }
    return r->re;
}

// The DFA of a pattern, built and published on first use; nullptr when the pattern has none.
// the first use: build the DFA (or mark that there is none) and publish it
__attribute__((noinline)) static celre::SmallDFA *build_dfa(const cel_regex *cre)
{
    cel_regex *r = const_cast<cel_regex *>(cre);
    celre::SmallDFA *d = r->dfa.load(std::memory_order_acquire);
    if (!d) {
        celre::SmallDFA *nd = new (std::nothrow) celre::SmallDFA;
        bool built = false;
        try {
            built = nd && nd->build(r->pat, r->plen);
        } catch (...) {
            built = false; // out of memory in the builder: RE2 answers instead
        }
        if (!built) {
            delete nd;
            nd = no_dfa();
        }
        celre::SmallDFA *expected = nullptr;
        if (r->dfa.compare_exchange_strong(expected, nd, std::memory_order_acq_rel, std::memory_order_acquire)) {
            d = nd;
        } else {
            if (nd != no_dfa())
                delete nd; // another thread published first: use its DFA
            d = expected;
        }
    }
    return d;
}

// the DFA, or nullptr when the pattern has none (the published pointer read inline; built on first use)
static inline const celre::SmallDFA *get_dfa(const cel_regex *cre)
{
    celre::SmallDFA *d = cre->dfa.load(std::memory_order_acquire);
    if (__builtin_expect(d == nullptr, 0))
        d = build_dfa(cre);
    return d == no_dfa() ? nullptr : d;
}

namespace
{

void put_err(char *err, size_t errcap, const std::string &msg)
{
    if (!err || errcap == 0)
        return;
    size_t n = msg.size() < errcap - 1 ? msg.size() : errcap - 1;
    std::memcpy(err, msg.data(), n);
    err[n] = '\0';
}

// Go's regexp/syntax ErrorCode texts for RE2's error codes.
const char *go_code_text(re2::RE2::ErrorCode c)
{
    switch (c) {
    case re2::RE2::ErrorBadEscape: return "invalid escape sequence";
    case re2::RE2::ErrorBadCharClass: return "invalid character class";
    case re2::RE2::ErrorBadCharRange: return "invalid character class range";
    case re2::RE2::ErrorMissingBracket: return "missing closing ]";
    case re2::RE2::ErrorMissingParen: return "missing closing )";
    case re2::RE2::ErrorUnexpectedParen: return "unexpected )";
    case re2::RE2::ErrorTrailingBackslash: return "trailing backslash at end of expression";
    case re2::RE2::ErrorRepeatArgument: return "missing argument to repetition operator";
    case re2::RE2::ErrorRepeatSize: return "invalid repeat count";
    case re2::RE2::ErrorRepeatOp: return "invalid nested repetition operator";
    case re2::RE2::ErrorBadPerlOp: return "invalid or unsupported Perl syntax";
    case re2::RE2::ErrorBadUTF8: return "invalid UTF-8";
    case re2::RE2::ErrorBadNamedCapture: return "invalid named capture";
    case re2::RE2::ErrorPatternTooLarge: return "expression too large";
    default: return "regexp/syntax: internal error";
    }
}

// Byte width of the UTF-8 sequence at s[0..n) as Go's utf8.DecodeRuneInString counts it (1 for invalid bytes).
size_t utf8_width(const unsigned char *s, size_t n)
{
    if (n == 0)
        return 1;
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t w;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        w = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        w = 3;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        w = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else {
        return 1;
    }
    if (n < w)
        return 1;
    if (s[1] < lo || s[1] > hi)
        return 1;
    for (size_t i = 2; i < w; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 1;
    return w;
}

// Go's regexp syntax (as cel-go uses) differs from this RE2's in two places that matter: Go 1.22+ accepts
// (?<name>re) besides (?P<name>re), and Go rejects \C (RE2's "any byte"). Rewrites the first and reports the
// second; returns false with *bad set to the offending escape.
bool go_syntax(const std::string &in, std::string *out, std::string *bad)
{
    out->clear();
    out->reserve(in.size() + 4);
    bool in_class = false;
    for (size_t i = 0; i < in.size(); i++) {
        char c = in[i];
        if (c == '\\' && i + 1 < in.size()) {
            if (!in_class && in[i + 1] == 'C') {
                *bad = "\\C";
                return false;
            }
            out->push_back(c);
            out->push_back(in[++i]);
            continue;
        }
        if (in_class) {
            if (c == ']')
                in_class = false;
            out->push_back(c);
            continue;
        }
        if (c == '[') {
            in_class = true;
            out->push_back(c);
            // a leading ']' (or '^]') is a literal
            if (i + 1 < in.size() && in[i + 1] == '^')
                out->push_back(in[++i]);
            if (i + 1 < in.size() && in[i + 1] == ']')
                out->push_back(in[++i]);
            continue;
        }
        if (c == '(' && i + 2 < in.size() && in[i + 1] == '?' && in[i + 2] == '<' &&
            (i + 3 >= in.size() || (in[i + 3] != '=' && in[i + 3] != '!'))) {
            out->append("(?P<");
            i += 2;
            continue;
        }
        out->push_back(c);
    }
    return true;
}

} // namespace

extern "C" {

cel_regex *cel_regex_compile(const char *pattern, size_t len, int64_t max_mem, unsigned flags, char *err, size_t errcap)
{
    re2::RE2::Options opt;
    opt.set_log_errors(false);
    opt.set_max_mem(max_mem > 0 ? max_mem : CEL_REGEX_DEFAULT_MAX_MEM);
    opt.set_encoding((flags & CEL_REGEX_LATIN1) ? re2::RE2::Options::EncodingLatin1 : re2::RE2::Options::EncodingUTF8);
    cel_regex *r = regex_new(pattern, pattern ? len : 0);
    if (!r) {
        put_err(err, errcap, "out of memory");
        return nullptr;
    }
    try {
        r->opt = opt;
        if (!(flags & CEL_REGEX_LATIN1) && !(flags & CEL_REGEX_NO_DFA)) {
            // inside the small DFA's subset the pattern is valid: defer both the DFA and RE2 to first use
            if (celre::SubsetCheck::ok(r->pat, r->plen)) {
                r->re_lazy = true;
                return r;
            }
        }
        r->dfa.store(no_dfa(), std::memory_order_relaxed);
        std::string syntax, bad;
        if (!go_syntax(std::string(r->pat, r->plen), &syntax, &bad)) {
            regex_delete(r);
            put_err(err, errcap,
                    (flags & CEL_REGEX_GO_ERRORS) ? "error parsing regexp: invalid escape sequence: `" + bad + "`"
                                                  : "invalid escape sequence: " + bad);
            return nullptr;
        }
        r->syntax = std::move(syntax);
        r->re = new (std::nothrow) re2::RE2(re2::StringPiece(r->syntax.data(), r->syntax.size()), opt);
    } catch (...) {
        r->re = nullptr;
    }
    if (!r->re) {
        regex_delete(r);
        put_err(err, errcap, "out of memory");
        return nullptr;
    }
    if (!r->re->ok()) {
        if (flags & CEL_REGEX_GO_ERRORS) {
            std::string m = "error parsing regexp: ";
            m += go_code_text(r->re->error_code());
            m += ": `";
            m += r->re->error_code() == re2::RE2::ErrorTrailingBackslash ? std::string() : r->re->error_arg();
            m += "`";
            put_err(err, errcap, m);
        } else {
            put_err(err, errcap, r->re->error());
        }
        delete r->re;
        r->re = nullptr;
        regex_delete(r);
        return nullptr;
    }
    return r;
}

int cel_regex_subset_selftest(const char *pattern, size_t len)
{
    celre::SmallDFA full;
    return (celre::SubsetCheck::ok(pattern, len) ? 2 : 0) | (full.validate(pattern, len) ? 1 : 0);
}

void cel_regex_free(cel_regex *re)
{
    if (!re)
        return;
    delete re->re;
    celre::SmallDFA *d = re->dfa.load(std::memory_order_acquire);
    if (d != no_dfa())
        delete d;
    regex_delete(re);
}

const char *cel_regex_pattern(const cel_regex *re, size_t *len)
{
    if (len)
        *len = re->plen;
    return re->pat;
}

int cel_regex_num_groups(const cel_regex *re)
{
    re2::RE2 *r = get_re2(re);
    return r ? r->NumberOfCapturingGroups() : -1;
}

bool cel_regex_uses_dfa(const cel_regex *re)
{
    return get_dfa(re) != nullptr;
}

bool cel_regex_dfa_uses_stride(const cel_regex *re)
{
    const celre::SmallDFA *d = get_dfa(re);
    return d && d->uses_stride();
}

bool cel_regex_full_match(const cel_regex *re, const char *text, size_t len)
{
    re2::RE2 *r = get_re2(re);
    return r && re2::RE2::FullMatch(re2::StringPiece(text, len), *r);
}

static bool is_ascii(const char *text, size_t len)
{
    const unsigned char *t = reinterpret_cast<const unsigned char *>(text);
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        std::memcpy(&w, t + i, 8);
        if (w & UINT64_C(0x8080808080808080))
            return false;
    }
    for (; i < len; i++)
        if (t[i] & 0x80)
            return false;
    return true;
}

__attribute__((noinline)) static bool partial_match_re2(const cel_regex *re, const char *text, size_t len)
{
    re2::RE2 *r = get_re2(re);
    return r && re2::RE2::PartialMatch(re2::StringPiece(text, len), *r);
}

bool cel_regex_partial_match(const cel_regex *re, const char *text, size_t len)
{
    const celre::SmallDFA *d = get_dfa(re);
    if (d && (!d->needs_ascii() || is_ascii(text, len)))
        return d->partial_match(text, len);
    return partial_match_re2(re, text, len);
}

bool cel_regex_partial_match_ascii(const cel_regex *re, const char *text, size_t len)
{
    const celre::SmallDFA *d = get_dfa(re);
    if (d)
        return d->partial_match(text, len);
    return partial_match_re2(re, text, len);
}

bool cel_regex_find(const cel_regex *re, const char *text, size_t len, size_t from, size_t *start, size_t *end)
{
    if (from > len)
        return false;
    re2::RE2 *r = get_re2(re);
    if (!r)
        return false;
    re2::StringPiece t(text, len), m;
    if (!r->Match(t, from, len, re2::RE2::UNANCHORED, &m, 1))
        return false;
    *start = (size_t)(m.data() - text);
    *end = *start + m.size();
    return true;
}

size_t cel_regex_find_all(const cel_regex *re, const char *text, size_t len, int64_t limit, cel_regex_match_fn fn,
                          void *ud)
{
    size_t count = 0;
    size_t pos = 0;
    bool have_prev = false;
    size_t prev_end = 0;
    const unsigned char *u = reinterpret_cast<const unsigned char *>(text);
    while ((limit < 0 || (int64_t)count < limit) && pos <= len) {
        size_t s, e;
        if (!cel_regex_find(re, text, len, pos, &s, &e))
            break;
        bool accept = true;
        if (e == pos) {
            // empty match: not allowed right after the previous match; step over one character
            if (have_prev && s == prev_end)
                accept = false;
            pos += pos < len ? utf8_width(u + pos, len - pos) : 1;
        } else {
            pos = e;
        }
        have_prev = true;
        prev_end = e;
        if (accept) {
            count++;
            if (fn && !fn(ud, s, e))
                break;
        }
    }
    return count;
}

} // extern "C"
