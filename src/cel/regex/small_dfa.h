// small_dfa.h - a tiny DFA for the common, simple regular expressions of admission policies
// (e.g. ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$), used by re2_shim.cc for boolean matching. RE2 stays the engine for
// everything else and for match positions.
//
// Only a strict ASCII subset is accepted, where byte-wise matching is exactly RE2/Go matching: literals, non-negated
// classes of ASCII characters and ranges, \d \w \s, escaped punctuation, groups ((...), (?:...), named), | and the
// quantifiers * + ? {n} {n,} {n,m} (greedy or lazy: for a yes/no answer they are the same), with ^ only as the first
// and $ only as the last character of the pattern. '.' and negated classes are accepted but make the DFA valid for
// ASCII texts only (RE2 matches them per code point). No flags, no non-ASCII in the pattern: such patterns return
// false from build() and are left to RE2. The automaton is the position (Glushkov) automaton made
// deterministic eagerly, limited to 63 positions and 64 states, so matching is one table lookup per byte.
#ifndef KG_CEL_SMALL_DFA_H
#define KG_CEL_SMALL_DFA_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace celre
{

class SmallDFA
{
  public:
    // Builds the DFA for pattern; false when the pattern is outside the subset (or too large).
    bool build(const char *pat, size_t len)
    {
        int root;
        if (!parse_pattern(pat, len, &root))
            return false;
        int endpos = new_leaf(Bits256());
        if (endpos < 0)
            return false;
        root = new_node(CAT, root, endpos);
        if (root < 0)
            return false;
        end_pos_ = nodes_[endpos].pos;
        compute(root);
        return determinize(nodes_[root].first);
    }

    // Only the syntax pass of build(): true when the pattern is inside the subset (and so valid Go/RE2 syntax, with
    // at most kMaxPos - 1 positions, far below RE2's repetition limits); build() may still fail on the state limit.
    bool validate(const char *pat, size_t len)
    {
        int root;
        return parse_pattern(pat, len, &root) && int(classes_.size()) < kMaxPos;
    }

    // Whether partial_match is only valid for texts without bytes >= 0x80 (the caller checks and uses RE2 otherwise).
    bool needs_ascii() const { return ascii_only_; }

  private:
    bool parse_pattern(const char *pat, size_t len, int *rootp)
    {
        p_ = pat;
        n_ = len;
        i_ = 0;
        anchor_start_ = anchor_end_ = false;
        ascii_only_ = false;
        if (n_ > 0 && p_[0] == '^') {
            anchor_start_ = true;
            i_ = 1;
        }
        size_t end = n_;
        if (end > i_ && p_[end - 1] == '$' && !escaped(end - 1)) {
            anchor_end_ = true;
            end--;
        }
        n_ = end;
        nodes_.clear();
        classes_.clear();
        nodes_.reserve(32);
        classes_.reserve(16);
        int root;
        if (!parse_alt(&root) || i_ != n_)
            return false;
        // with anchors, a top-level alternation would bind them to the first/last branch only: leave it to RE2
        if ((anchor_start_ || anchor_end_) && top_level_alt_)
            return false;
        *rootp = root;
        return true;
    }

  public:
    // Whether partial_match reads four bytes per table lookup (the stride table fits its budget).
    bool uses_stride() const { return !j4_.empty(); }

    // RE2::PartialMatch semantics (search anywhere unless anchored).
    // With the stride table, four bytes per lookup in j4_ (state x four byte classes -> state after them): the
    // chain of dependent loads that bounds the speed is a quarter as long; the four class reads hang off it.
    // Otherwise one lookup per byte in jump_ (state x byte -> next state's row offset, byte classes folded in).
    bool partial_match(const char *text, size_t len) const
    {
        const unsigned char *t = reinterpret_cast<const unsigned char *>(text);
        if (!j4_.empty()) {
            const uint16_t *j = j4_.data(), *c0 = cls4_[0], *c1 = cls4_[1], *c2 = cls4_[2], *c3 = cls4_[3];
            const uint8_t *f = row4_.data();
            unsigned o = start4_;
            size_t i = 0;
            for (; i + 4 <= len; i += 4) {
                // the classes' sum first (off the chain), then the one add and load that depend on o
                const uint16_t *col = j + (c0[t[i]] + c1[t[i + 1]] + c2[t[i + 2]] + c3[t[i + 3]]);
                o = col[o];
                if (f[o] & kRowStop)
                    return f[o] & kRowAccept;
            }
            if (i < len) { // one to three bytes left: the pad class (no byte) fills the stride
                size_t r = len - i;
                unsigned x =
                    c0[t[i]] + (r > 1 ? c1[t[i + 1]] : pad4_[1]) + (r > 2 ? c2[t[i + 2]] : pad4_[2]) + pad4_[3];
                o = j[o + x];
            }
            return f[o] & kRowAccept;
        }
        const uint16_t *j = jump_.data();
        unsigned o = unsigned(start_) << 8;
        if (anchor_end_) {
            // the answer is the state after the last byte; a dead state stays dead, so no test per byte
            size_t i = 0;
            for (; i + 4 <= len; i += 4) {
                o = j[o + t[i]];
                o = j[o + t[i + 1]];
                o = j[o + t[i + 2]];
                o = j[o + t[i + 3]];
            }
            for (; i < len; i++)
                o = j[o + t[i]];
            return acc_[o >> 8];
        }
        if (acc_[o >> 8])
            return true;
        const unsigned dead = dead_ < 0 ? ~0u : unsigned(dead_) << 8;
        for (size_t i = 0; i < len; i++) {
            o = j[o + t[i]];
            if (o == dead)
                return false;
            if (acc_[o >> 8])
                return true;
        }
        return false;
    }

  private:
    struct Bits256 {
        uint64_t w[4] = {0, 0, 0, 0};
        void set(unsigned c) { w[c >> 6] |= uint64_t(1) << (c & 63); }
        bool has(unsigned c) const { return (w[c >> 6] >> (c & 63)) & 1; }
        void set_range(unsigned a, unsigned b)
        {
            // word-wise: bits a..b of each 64-bit word
            for (unsigned k = a >> 6; k <= (b >> 6); k++) {
                unsigned lo = k == (a >> 6) ? (a & 63) : 0, hi = k == (b >> 6) ? (b & 63) : 63;
                uint64_t m = (hi == 63 ? ~uint64_t(0) : ((uint64_t(1) << (hi + 1)) - 1)) & (~uint64_t(0) << lo);
                w[k] |= m;
            }
        }
        // (only ASCII is ever set)
        void merge(const Bits256 &o)
        {
            for (int k = 0; k < 4; k++)
                w[k] |= o.w[k];
        }
    };
    enum Kind { LEAF, CAT, ALT, STAR, EMPTY };
    struct Node {
        Kind kind;
        int a, b; // children
        int pos;  // LEAF: position index
        bool nullable;
        uint64_t first, last;
    };

    static constexpr int kMaxPos = 63;
    static constexpr int kMaxStates = 64;

    const char *p_ = nullptr;
    size_t n_ = 0, i_ = 0;
    bool anchor_start_ = false, anchor_end_ = false, top_level_alt_ = false;
    bool ascii_only_ = false; // '.' or a negated class: exact only on ASCII texts (RE2 sees code points)
    int depth_ = 0;
    std::vector<Node> nodes_;
    std::vector<Bits256> classes_; // per position
    uint64_t follow_[kMaxPos + 1] = {};
    int end_pos_ = 0;
    // DFA
    uint8_t classmap_[256] = {};
    int nclass_ = 0;
    std::vector<uint8_t> trans_;
    std::vector<bool> accept_;
    std::vector<uint16_t> jump_; // [state * 256 + byte] = next state * 256
    std::vector<uint8_t> acc_;   // per state: accepting
    int start_ = 0, dead_ = -1;
    // The stride table (build_stride): rows of (C + 1)^4 entries for C byte classes and the pad class, indexed by
    // the sum of cls4_[k][byte k]; an entry is the next state's row offset. row4_ flags a row's first entry.
    static constexpr size_t kStrideBudget = 4096; // entries (8 KiB)
    static constexpr uint8_t kRowAccept = 1, kRowStop = 2;
    std::vector<uint16_t> j4_;
    std::vector<uint8_t> row4_;
    uint16_t cls4_[4][256] = {};
    uint16_t pad4_[4] = {};
    unsigned start4_ = 0;

    bool escaped(size_t k) const
    {
        size_t bs = 0;
        while (k > bs && p_[k - bs - 1] == '\\')
            bs++;
        return bs & 1;
    }

    int new_node(Kind k, int a = -1, int b = -1)
    {
        Node nd{k, a, b, -1, false, 0, 0};
        nodes_.push_back(nd);
        return int(nodes_.size() - 1);
    }
    int new_leaf(const Bits256 &cls)
    {
        if (int(classes_.size()) >= kMaxPos)
            return -1;
        int id = new_node(LEAF);
        nodes_[id].pos = int(classes_.size());
        classes_.push_back(cls);
        return id;
    }
    // deep copy with fresh positions (for + and {n,m})
    int copy(int id)
    {
        if (id < 0)
            return id;
        Node nd = nodes_[id];
        if (nd.kind == LEAF) {
            Bits256 c = classes_[nd.pos];
            return new_leaf(c);
        }
        int a = copy(nd.a);
        if (nd.a >= 0 && a < 0)
            return -1;
        int b = copy(nd.b);
        if (nd.b >= 0 && b < 0)
            return -1;
        int r = new_node(nd.kind, a, b);
        return r;
    }

    bool parse_alt(int *out)
    {
        if (++depth_ > 64)
            return false;
        int left;
        if (!parse_cat(&left))
            return false;
        while (i_ < n_ && p_[i_] == '|') {
            if (depth_ == 1)
                top_level_alt_ = true;
            i_++;
            int right;
            if (!parse_cat(&right))
                return false;
            left = new_node(ALT, left, right);
            if (left < 0)
                return false;
        }
        depth_--;
        *out = left;
        return true;
    }

    bool parse_cat(int *out)
    {
        int acc = new_node(EMPTY);
        while (i_ < n_ && p_[i_] != '|' && p_[i_] != ')') {
            int atom;
            if (!parse_repeat(&atom))
                return false;
            acc = new_node(CAT, acc, atom);
            if (acc < 0)
                return false;
        }
        *out = acc;
        return true;
    }

    static bool is_digit(char c) { return c >= '0' && c <= '9'; }

    bool parse_count(int *v)
    {
        if (i_ >= n_ || !is_digit(p_[i_]))
            return false;
        int x = 0;
        while (i_ < n_ && is_digit(p_[i_])) {
            x = x * 10 + (p_[i_++] - '0');
            if (x > 1000)
                return false;
        }
        *v = x;
        return true;
    }

    bool parse_repeat(int *out)
    {
        int atom;
        if (!parse_atom(&atom))
            return false;
        bool quantified = false;
        while (i_ < n_) {
            char c = p_[i_];
            int lo, hi; // hi -1 = unbounded
            if (c == '*')
                lo = 0, hi = -1, i_++;
            else if (c == '+')
                lo = 1, hi = -1, i_++;
            else if (c == '?')
                lo = 0, hi = 1, i_++;
            else if (c == '{') {
                i_++;
                if (!parse_count(&lo))
                    return false; // "a{" / "a{,2}" are literals in Go: leave to RE2
                hi = lo;
                if (i_ < n_ && p_[i_] == ',') {
                    i_++;
                    if (i_ < n_ && p_[i_] == '}')
                        hi = -1;
                    else if (!parse_count(&hi))
                        return false;
                }
                if (i_ >= n_ || p_[i_] != '}')
                    return false;
                i_++;
                if (hi >= 0 && hi < lo)
                    return false;
            } else {
                break;
            }
            if (quantified)
                return false; // a** / a{2}{3}: RE2 rejects nested repetition
            quantified = true;
            if (i_ < n_ && p_[i_] == '?')
                i_++; // lazy: same answer for a boolean match
            atom = repeat(atom, lo, hi);
            if (atom < 0)
                return false;
        }
        *out = atom;
        return true;
    }

    int repeat(int atom, int lo, int hi)
    {
        int acc = new_node(EMPTY);
        for (int k = 0; k < lo; k++) {
            int c = k == 0 ? atom : copy(atom);
            if (c < 0)
                return -1;
            acc = new_node(CAT, acc, c);
            if (acc < 0)
                return -1;
        }
        if (hi < 0) {
            int c = lo == 0 ? atom : copy(atom);
            if (c < 0)
                return -1;
            return new_node(CAT, acc, new_node(STAR, c));
        }
        // hi - lo optional copies: (x(x(x)?)?)?
        int opt = -1;
        for (int k = lo; k < hi; k++) {
            int c = (k == 0 && lo == 0 && opt < 0) ? atom : copy(atom);
            if (c < 0)
                return -1;
            int inner = opt < 0 ? c : new_node(CAT, c, opt);
            if (inner < 0)
                return -1;
            opt = new_node(ALT, inner, new_node(EMPTY));
            if (opt < 0)
                return -1;
        }
        return opt < 0 ? acc : new_node(CAT, acc, opt);
    }

    static bool perl_class(char c, Bits256 *b)
    {
        switch (c) {
        case 'd': b->set_range('0', '9'); return true;
        case 'w': b->set_range('0', '9'), b->set_range('A', 'Z'), b->set_range('a', 'z'), b->set('_'); return true;
        case 's': b->set('\t'), b->set('\n'), b->set('\f'), b->set('\r'), b->set(' '); return true;
        default: return false;
        }
    }

    static bool punct(char c)
    {
        return (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) ||
               (c >= 0x7b && c <= 0x7e);
    }

    bool parse_atom(int *out)
    {
        if (i_ >= n_)
            return false;
        char c = p_[i_];
        Bits256 b;
        if (c == '(') {
            i_++;
            if (i_ < n_ && p_[i_] == '?') {
                // only (?:...); named groups and flags are left to RE2 (names need validation)
                if (i_ + 1 < n_ && p_[i_ + 1] == ':')
                    i_ += 2;
                else
                    return false;
            }
            int inner;
            if (!parse_alt(&inner))
                return false;
            if (i_ >= n_ || p_[i_] != ')')
                return false;
            i_++;
            *out = inner;
            return true;
        }
        if (c == '[') {
            i_++;
            bool negate = false;
            if (i_ < n_ && p_[i_] == '^') {
                negate = true;
                i_++;
            }
            bool firstc = true, first_item = true;
            while (i_ < n_ && (p_[i_] != ']' || firstc)) {
                firstc = false;
                unsigned lo;
                if (p_[i_] == '\\') {
                    if (i_ + 1 >= n_)
                        return false;
                    char e = p_[i_ + 1];
                    if (perl_class(e, &b)) {
                        i_ += 2;
                        first_item = false;
                        if (i_ < n_ && p_[i_] == '-' && !(i_ + 1 < n_ && p_[i_ + 1] == ']'))
                            return false;
                        continue;
                    }
                    if (!punct(e))
                        return false;
                    lo = (unsigned char)e;
                    i_ += 2;
                } else if (p_[i_] == '[') {
                    return false; // [[:alpha:]] and friends
                } else {
                    lo = (unsigned char)p_[i_++];
                    // a '-' that is neither first nor last in the class ([a-b-c]) is left to RE2
                    if (lo == '-' && !first_item && !(i_ < n_ && p_[i_] == ']'))
                        return false;
                }
                first_item = false;
                if (lo >= 0x80 || lo < 0x20)
                    return false;
                unsigned hi = lo;
                if (i_ + 1 < n_ && p_[i_] == '-' && p_[i_ + 1] != ']') {
                    i_++;
                    if (p_[i_] == '\\') {
                        if (i_ + 1 >= n_ || !punct(p_[i_ + 1]))
                            return false;
                        hi = (unsigned char)p_[i_ + 1];
                        i_ += 2;
                    } else {
                        if (p_[i_] == '[')
                            return false;
                        hi = (unsigned char)p_[i_++];
                    }
                    if (hi >= 0x80 || hi < lo)
                        return false;
                }
                b.set_range(lo, hi);
            }
            if (i_ >= n_)
                return false;
            i_++; // ]
            if (negate) {
                Bits256 nb;
                for (unsigned k = 0; k < 128; k++)
                    if (!b.has(k))
                        nb.set(k);
                b = nb;
                ascii_only_ = true;
            }
        } else if (c == '.') {
            b.set_range(0, 127);
            b.w[0] &= ~(uint64_t(1) << '\n');
            ascii_only_ = true;
            i_++;
        } else if (c == '\\') {
            if (i_ + 1 >= n_)
                return false;
            char e = p_[i_ + 1];
            if (!perl_class(e, &b)) {
                if (!punct(e))
                    return false;
                b.set((unsigned char)e);
            }
            i_ += 2;
        } else if (c == '^' || c == '$' || c == '*' || c == '+' || c == '?' || c == '{' || c == '}' || c == ']' ||
                   c == ')' || c == '|') {
            return false;
        } else {
            unsigned char u = (unsigned char)c;
            if (u >= 0x80 || u < 0x20)
                return false;
            b.set(u);
            i_++;
        }
        int id = new_leaf(b);
        if (id < 0)
            return false;
        *out = id;
        return true;
    }

    void compute(int id)
    {
        Node &nd = nodes_[id];
        switch (nd.kind) {
        case EMPTY: nd.nullable = true, nd.first = nd.last = 0; break;
        case LEAF: nd.nullable = false, nd.first = nd.last = uint64_t(1) << nd.pos; break;
        case ALT: {
            compute(nd.a), compute(nd.b);
            Node &x = nodes_[nd.a], &y = nodes_[nd.b], &z = nodes_[id];
            z.nullable = x.nullable || y.nullable;
            z.first = x.first | y.first;
            z.last = x.last | y.last;
            break;
        }
        case CAT: {
            compute(nd.a), compute(nd.b);
            Node &x = nodes_[nd.a], &y = nodes_[nd.b], &z = nodes_[id];
            z.nullable = x.nullable && y.nullable;
            z.first = x.nullable ? (x.first | y.first) : x.first;
            z.last = y.nullable ? (x.last | y.last) : y.last;
            for (uint64_t l = x.last; l; l &= l - 1)
                follow_[__builtin_ctzll(l)] |= y.first;
            break;
        }
        case STAR: {
            compute(nd.a);
            Node &x = nodes_[nd.a], &z = nodes_[id];
            z.nullable = true;
            z.first = x.first;
            z.last = x.last;
            for (uint64_t l = x.last; l; l &= l - 1)
                follow_[__builtin_ctzll(l)] |= x.first;
            break;
        }
        }
    }

    bool determinize(uint64_t start_set)
    {
        int npos = int(classes_.size());
        // byte equivalence classes: bytes with the same membership in every position class. Only ASCII bytes
        // can be in a class, so all bytes >= 0x80 share the class of "in no position".
        uint64_t bytesig[128] = {0};
        for (int p = 0; p < npos; p++) {
            if (p == end_pos_)
                continue;
            for (int w = 0; w < 2; w++)
                for (uint64_t bits = classes_[p].w[w]; bits; bits &= bits - 1)
                    bytesig[w * 64 + __builtin_ctzll(bits)] |= uint64_t(1) << p;
        }
        uint64_t sigs[129];
        nclass_ = 0;
        for (int c = 0; c < 129; c++) {
            uint64_t sig = c < 128 ? bytesig[c] : 0;
            int k = 0;
            for (; k < nclass_; k++)
                if (sigs[k] == sig)
                    break;
            if (k == nclass_)
                sigs[nclass_++] = sig;
            if (c < 128)
                classmap_[c] = uint8_t(k);
            else
                memset(classmap_ + 128, k, 128);
        }
        uint64_t restart = anchor_start_ ? 0 : start_set;
        uint64_t states_buf[kMaxStates];
        size_t nstates = 1;
        states_buf[0] = start_set;
        uint64_t *states = states_buf;
        trans_.clear();
        trans_.reserve(size_t(nclass_) * 8);
        for (size_t s = 0; s < nstates; s++) {
            for (int k = 0; k < nclass_; k++) {
                uint64_t next = restart;
                for (uint64_t cur = states[s] & sigs[k]; cur; cur &= cur - 1)
                    next |= follow_[__builtin_ctzll(cur)];
                size_t t = 0;
                for (; t < nstates; t++)
                    if (states[t] == next)
                        break;
                if (t == nstates) {
                    if (int(nstates) >= kMaxStates)
                        return false;
                    states[nstates++] = next;
                }
                trans_.push_back(uint8_t(t));
            }
        }
        accept_.assign(nstates, false);
        dead_ = -1;
        for (size_t s = 0; s < nstates; s++) {
            accept_[s] = (states[s] >> end_pos_) & 1;
            if (states[s] == 0)
                dead_ = int(s);
        }
        start_ = 0;
        jump_.resize(nstates * 256);
        acc_.resize(nstates);
        for (size_t s = 0; s < nstates; s++) {
            acc_[s] = accept_[s];
            for (int c = 0; c < 256; c++)
                jump_[s * 256 + size_t(c)] = uint16_t(size_t(trans_[s * size_t(nclass_) + classmap_[c]]) << 8);
        }
        build_stride(nstates);
        return true;
    }

    // Four bytes a lookup, when states x (classes + 1)^4 fits the budget. The extra class is the pad (no byte, the
    // state stays) that completes the last stride. For a search without $, an accepting state keeps accepting (the
    // answer is yes from the first match on), so the state after the last byte decides in both cases; the dead
    // state and, without $, accepting states end the scan early (kRowStop).
    void build_stride(size_t nstates)
    {
        j4_.clear();
        row4_.clear();
        size_t c = size_t(nclass_) + 1, w = c * c * c * c;
        if (nstates * w > kStrideBudget)
            return;
        auto step = [&](size_t s, size_t k) -> size_t {
            if (k == size_t(nclass_) || (!anchor_end_ && accept_[s]))
                return s;
            return trans_[s * size_t(nclass_) + k];
        };
        j4_.resize(nstates * w);
        row4_.assign(nstates * w, 0);
        for (size_t s = 0; s < nstates; s++) {
            for (size_t x = 0; x < w; x++) {
                size_t t = step(step(step(step(s, x / (c * c * c)), x / (c * c) % c), x / c % c), x % c);
                j4_[s * w + x] = uint16_t(t * w);
            }
            bool stop = int(s) == dead_ || (!anchor_end_ && accept_[s]);
            row4_[s * w] = uint8_t((accept_[s] ? kRowAccept : 0) | (stop ? kRowStop : 0));
        }
        size_t m[4] = {c * c * c, c * c, c, 1};
        for (int k = 0; k < 4; k++) {
            for (int b = 0; b < 256; b++)
                cls4_[k][b] = uint16_t(classmap_[b] * m[k]);
            pad4_[k] = uint16_t(size_t(nclass_) * m[k]);
        }
        start4_ = unsigned(size_t(start_) * w);
    }
};

// SubsetCheck's class members: kSubsetOrdLo for an ordinary member or range start (printable ASCII but \\ [ ] -),
// kSubsetOrdHi for an ordinary range end (printable ASCII but \\ [ ]), as the class loop's general code takes them
inline constexpr unsigned char kSubsetOrdLo = 1, kSubsetOrdHi = 2;
struct SubsetClassTab {
    unsigned char v[256];
    constexpr SubsetClassTab() : v()
    {
        for (int c = 0x20; c < 0x80; c++) {
            if (c == '\\' || c == '[' || c == ']')
                continue;
            v[c] = (unsigned char)(kSubsetOrdHi | (c == '-' ? 0 : kSubsetOrdLo));
        }
    }
    constexpr unsigned char operator[](unsigned char c) const { return v[c]; }
};
inline constexpr SubsetClassTab kSubsetClassTab{};

// Syntax-only twin of SmallDFA's parser, for validating a pattern at compile time without building anything:
// accepts exactly the patterns SmallDFA::validate accepts (same grammar, same limits; positions are counted the way
// SmallDFA creates them, copies for repetitions included). Tests compare the two on many patterns.
class SubsetCheck
{
  public:
    static bool ok(const char *pat, size_t len)
    {
        if (fast_accepts(pat, len))
            return true;
        SubsetCheck c(pat, len);
        return c.run();
    }

  private:
    static constexpr int kMaxPos = 63;
    const char *p_;
    size_t n_, i_ = 0;
    int depth_ = 0, total_ = 0;
    bool top_level_alt_ = false;

    SubsetCheck(const char *p, size_t n) : p_(p), n_(n) {}

    bool escaped(size_t k) const
    {
        size_t bs = 0;
        while (k > bs && p_[k - bs - 1] == '\\')
            bs++;
        return bs & 1;
    }
    static bool is_digit(char c) { return c >= '0' && c <= '9'; }
    static bool perl_class(char c) { return c == 'd' || c == 'w' || c == 's'; }
    static bool punct(char c)
    {
        return (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) ||
               (c >= 0x7b && c <= 0x7e);
    }
    static constexpr unsigned char kOrdLo = kSubsetOrdLo, kOrdHi = kSubsetOrdHi;

    // One loop with the position in a register and an explicit stack for groups, for the common patterns:
    // literals, '.', \d \w \s and escaped punctuation, classes of ordinary members and ranges, (...) and (?:...),
    // each with at most one of * + ? (lazy or not). True only when run() accepts the pattern: it counts positions
    // the same way (a leaf per atom but groups, + adding a copy of its atom's positions); anything else (an
    // alternative, counted repetition, an unusual class, an escaped final $, a malformed pattern) answers false
    // and run() decides.
    static bool fast_accepts(const char *p, size_t n)
    {
        size_t i = 0, end = n;
        if (end > 0 && p[0] == '^')
            i = 1;
        if (end > i && p[end - 1] == '$') {
            if (end >= 2 && p[end - 2] == '\\')
                return false;
            end--;
        }
        int total = 0, cur = 0, stack[16], sp = 0;
        while (i < end) {
            unsigned char c = (unsigned char)p[i];
            int a;
            if (c == '(') {
                if (i + 1 < end && p[i + 1] == '?') {
                    if (!(i + 2 < end && p[i + 2] == ':'))
                        return false;
                    i += 3;
                } else {
                    i++;
                }
                if (sp == 16)
                    return false;
                stack[sp++] = cur;
                cur = 0;
                continue;
            }
            if (c == ')') {
                if (sp == 0)
                    return false;
                a = cur; // a group's positions (no leaf of its own)
                cur = stack[--sp];
                i++;
            } else {
                if (c == '[') {
                    size_t j = i + 1;
                    if (j < end && p[j] == '^')
                        j++;
                    if (j + 1 < end && p[j] == '-' && p[j + 1] != '-')
                        j++; // a leading '-' is a member
                    else if (j >= end || !(kClassTab[(unsigned char)p[j]] & kOrdLo))
                        return false;
                    while (j < end && (kClassTab[(unsigned char)p[j]] & kOrdLo)) {
                        if (j + 1 < end && p[j + 1] == '-') {
                            unsigned char hc = j + 2 < end ? (unsigned char)p[j + 2] : 0;
                            if (!((kClassTab[hc] & kOrdHi) && hc >= (unsigned char)p[j]))
                                return false;
                            j += 3;
                        } else {
                            j++;
                        }
                    }
                    if (j + 1 < end && p[j] == '-' && p[j + 1] == ']')
                        j++; // so is a final one
                    if (j >= end || p[j] != ']')
                        return false;
                    i = j + 1;
                } else if (c == '\\') {
                    if (i + 1 >= end || !(perl_class(p[i + 1]) || punct(p[i + 1])))
                        return false;
                    i += 2;
                } else if (c == '.' || plain(c)) {
                    i++;
                } else {
                    return false;
                }
                if (total >= kMaxPos)
                    return false;
                total++;
                a = 1;
            }
            if (i < end) {
                char q = p[i];
                if (q == '*' || q == '+' || q == '?') {
                    i++;
                    if (i < end && p[i] == '?')
                        i++;
                    if (i < end && (quantifier(p[i]) || p[i] == '?'))
                        return false;
                    if (q == '+') { // one more copy of the atom's positions
                        if (total + a > kMaxPos)
                            return false;
                        total += a;
                        a *= 2;
                    }
                } else if (q == '{') {
                    return false;
                }
            }
            cur += a;
        }
        return sp == 0 && total < kMaxPos;
    }
    static constexpr const SubsetClassTab &kClassTab = kSubsetClassTab;

    bool leaf()
    {
        if (total_ >= kMaxPos)
            return false;
        total_++;
        return true;
    }

    bool run()
    {
        bool anchor_start = false, anchor_end = false;
        if (n_ > 0 && p_[0] == '^') {
            anchor_start = true;
            i_ = 1;
        }
        size_t end = n_;
        if (end > i_ && p_[end - 1] == '$' && !escaped(end - 1)) {
            anchor_end = true;
            end--;
        }
        n_ = end;
        int leaves;
        if (!alt(&leaves) || i_ != n_)
            return false;
        if ((anchor_start || anchor_end) && top_level_alt_)
            return false;
        return total_ < kMaxPos; // room for the end marker
    }

    bool alt(int *leaves)
    {
        if (++depth_ > 64)
            return false;
        int l;
        if (!cat(&l))
            return false;
        while (i_ < n_ && p_[i_] == '|') {
            if (depth_ == 1)
                top_level_alt_ = true;
            i_++;
            int r;
            if (!cat(&r))
                return false;
            l += r;
        }
        depth_--;
        *leaves = l;
        return true;
    }

    // a literal atom: printable ASCII other than the metacharacters
    static bool plain(unsigned char c)
    {
        if (c < 0x20 || c >= 0x80)
            return false;
        switch (c) {
        case '(':
        case ')':
        case '[':
        case ']':
        case '{':
        case '}':
        case '.':
        case '\\':
        case '^':
        case '$':
        case '*':
        case '+':
        case '?':
        case '|': return false;
        default: return true;
        }
    }
    static bool quantifier(char c) { return c == '*' || c == '+' || c == '?' || c == '{'; }

    bool cat(int *leaves)
    {
        int l = 0;
        while (i_ < n_ && p_[i_] != '|' && p_[i_] != ')') {
            // fast path: an unquantified literal is one position
            if (plain((unsigned char)p_[i_]) && !(i_ + 1 < n_ && quantifier(p_[i_ + 1]))) {
                if (!leaf())
                    return false;
                i_++;
                l++;
                continue;
            }
            int a;
            if (!repeat(&a))
                return false;
            l += a;
        }
        *leaves = l;
        return true;
    }

    bool count(int *v)
    {
        if (i_ >= n_ || !is_digit(p_[i_]))
            return false;
        int x = 0;
        while (i_ < n_ && is_digit(p_[i_])) {
            x = x * 10 + (p_[i_++] - '0');
            if (x > 1000)
                return false;
        }
        *v = x;
        return true;
    }

    bool repeat(int *leaves)
    {
        int a;
        if (!atom(&a))
            return false;
        bool quantified = false;
        while (i_ < n_) {
            char c = p_[i_];
            int lo, hi;
            if (c == '*')
                lo = 0, hi = -1, i_++;
            else if (c == '+')
                lo = 1, hi = -1, i_++;
            else if (c == '?')
                lo = 0, hi = 1, i_++;
            else if (c == '{') {
                i_++;
                if (!count(&lo))
                    return false;
                hi = lo;
                if (i_ < n_ && p_[i_] == ',') {
                    i_++;
                    if (i_ < n_ && p_[i_] == '}')
                        hi = -1;
                    else if (!count(&hi))
                        return false;
                }
                if (i_ >= n_ || p_[i_] != '}')
                    return false;
                i_++;
                if (hi >= 0 && hi < lo)
                    return false;
            } else {
                break;
            }
            if (quantified)
                return false;
            quantified = true;
            if (i_ < n_ && p_[i_] == '?')
                i_++;
            // SmallDFA::repeat copies the atom (with fresh positions) this many times
            long copies = hi < 0 ? lo : (hi > 0 ? hi - 1 : 0);
            long add = (long)a * copies;
            if (total_ + add > kMaxPos)
                return false;
            total_ += (int)add;
            a = (lo == 0 && hi == 0) ? 0 : (int)(a * (copies + 1));
        }
        *leaves = a;
        return true;
    }

    bool atom(int *leaves)
    {
        if (i_ >= n_)
            return false;
        char c = p_[i_];
        if (c == '(') {
            i_++;
            if (i_ < n_ && p_[i_] == '?') {
                if (i_ + 1 < n_ && p_[i_ + 1] == ':')
                    i_ += 2;
                else
                    return false;
            }
            int inner;
            if (!alt(&inner))
                return false;
            if (i_ >= n_ || p_[i_] != ')')
                return false;
            i_++;
            *leaves = inner;
            return true;
        }
        if (c == '[') {
            i_++;
            if (i_ < n_ && p_[i_] == '^')
                i_++;
            bool firstc = true, first_item = true;
            while (i_ < n_ && (p_[i_] != ']' || firstc)) {
                // fast path: ordinary members and ranges lo-hi, scanned with the position in a register
                {
                    const char *p = p_;
                    size_t i = i_, n = n_;
                    while (i < n && kClassTab[(unsigned char)p[i]] & kOrdLo) {
                        unsigned char pc = (unsigned char)p[i];
                        if (!(i + 1 < n && p[i + 1] == '-')) {
                            i++; // a single ordinary class member
                            continue;
                        }
                        unsigned char hc = i + 2 < n ? (unsigned char)p[i + 2] : 0;
                        if (!((kClassTab[hc] & kOrdHi) && hc >= pc))
                            break;
                        i += 3; // an ordinary range lo-hi
                    }
                    if (i != i_) {
                        i_ = i;
                        firstc = first_item = false;
                        continue;
                    }
                }
                firstc = false;
                unsigned lo;
                if (p_[i_] == '\\') {
                    if (i_ + 1 >= n_)
                        return false;
                    char e = p_[i_ + 1];
                    if (perl_class(e)) {
                        i_ += 2;
                        first_item = false;
                        if (i_ < n_ && p_[i_] == '-' && !(i_ + 1 < n_ && p_[i_ + 1] == ']'))
                            return false;
                        continue;
                    }
                    if (!punct(e))
                        return false;
                    lo = (unsigned char)e;
                    i_ += 2;
                } else if (p_[i_] == '[') {
                    return false;
                } else {
                    lo = (unsigned char)p_[i_++];
                    if (lo == '-' && !first_item && !(i_ < n_ && p_[i_] == ']'))
                        return false;
                }
                first_item = false;
                if (lo >= 0x80 || lo < 0x20)
                    return false;
                unsigned hi = lo;
                if (i_ + 1 < n_ && p_[i_] == '-' && p_[i_ + 1] != ']') {
                    i_++;
                    if (p_[i_] == '\\') {
                        if (i_ + 1 >= n_ || !punct(p_[i_ + 1]))
                            return false;
                        hi = (unsigned char)p_[i_ + 1];
                        i_ += 2;
                    } else {
                        if (p_[i_] == '[')
                            return false;
                        hi = (unsigned char)p_[i_++];
                    }
                    if (hi >= 0x80 || hi < lo)
                        return false;
                }
            }
            if (i_ >= n_)
                return false;
            i_++;
        } else if (c == '.') {
            i_++;
        } else if (c == '\\') {
            if (i_ + 1 >= n_)
                return false;
            char e = p_[i_ + 1];
            if (!perl_class(e) && !punct(e))
                return false;
            i_ += 2;
        } else if (c == '^' || c == '$' || c == '*' || c == '+' || c == '?' || c == '{' || c == '}' || c == ']' ||
                   c == ')' || c == '|') {
            return false;
        } else {
            unsigned char u = (unsigned char)c;
            if (u >= 0x80 || u < 0x20)
                return false;
            i_++;
        }
        if (!leaf())
            return false;
        *leaves = 1;
        return true;
    }
};

} // namespace celre

#endif
