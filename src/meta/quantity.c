/* resource.Quantity: parsing, canonical formatting and exact arithmetic (see quantity.h). */
#include "meta/quantity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"

/* ---------------------------------------------------------------------------------------------------------------
 * Fixed-capacity unsigned magnitudes
 * ------------------------------------------------------------------------------------------------------------- */

static const uint32_t POW10[10] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};

static void big_norm(kg_qbig *b)
{
    while (b->n && b->d[b->n - 1] == 0)
        b->n--;
}

static void big_set_u64(kg_qbig *b, uint64_t v)
{
    b->n = 0;
    if (v) {
        b->d[0] = (uint32_t)v;
        b->d[1] = (uint32_t)(v >> 32);
        b->n = b->d[1] ? 2 : 1;
    }
}

static bool big_is_zero(const kg_qbig *b)
{
    return b->n == 0;
}

/* b = b * m + add; false (b unspecified) on capacity overflow. */
static bool big_mul_small(kg_qbig *b, uint32_t m, uint32_t add)
{
    uint64_t carry = add;
    for (uint32_t i = 0; i < b->n; i++) {
        uint64_t t = (uint64_t)b->d[i] * m + carry;
        b->d[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry) {
        if (b->n == KG_QBIG_LIMBS)
            return false;
        b->d[b->n++] = (uint32_t)carry;
    }
    if (m == 0)
        b->n = 0;
    big_norm(b);
    return true;
}

static bool big_mul_pow10(kg_qbig *b, uint64_t k)
{
    if (big_is_zero(b))
        return true;
    if (k > (uint64_t)KG_QBIG_LIMBS * 10)
        return false;
    while (k >= 9) {
        if (!big_mul_small(b, POW10[9], 0))
            return false;
        k -= 9;
    }
    return k ? big_mul_small(b, POW10[k], 0) : true;
}

/* b /= d, returns the remainder. */
static uint32_t big_divmod_small(kg_qbig *b, uint32_t d)
{
    uint64_t r = 0;
    for (uint32_t i = b->n; i-- > 0;) {
        uint64_t cur = (r << 32) | b->d[i];
        b->d[i] = (uint32_t)(cur / d);
        r = cur % d;
    }
    big_norm(b);
    return (uint32_t)r;
}

static int big_cmp(const kg_qbig *a, const kg_qbig *b)
{
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (uint32_t i = a->n; i-- > 0;)
        if (a->d[i] != b->d[i])
            return a->d[i] < b->d[i] ? -1 : 1;
    return 0;
}

static bool big_add(kg_qbig *r, const kg_qbig *a, const kg_qbig *b)
{
    uint32_t n = a->n > b->n ? a->n : b->n;
    uint64_t carry = 0;
    kg_qbig t;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t s = carry + (i < a->n ? a->d[i] : 0) + (i < b->n ? b->d[i] : 0);
        t.d[i] = (uint32_t)s;
        carry = s >> 32;
    }
    t.n = n;
    if (carry) {
        if (n == KG_QBIG_LIMBS)
            return false;
        t.d[t.n++] = (uint32_t)carry;
    }
    *r = t;
    return true;
}

/* r = a - b, requires a >= b. */
static void big_sub(kg_qbig *r, const kg_qbig *a, const kg_qbig *b)
{
    int64_t borrow = 0;
    kg_qbig t;
    for (uint32_t i = 0; i < a->n; i++) {
        int64_t s = (int64_t)a->d[i] - (i < b->n ? b->d[i] : 0) - borrow;
        borrow = s < 0;
        t.d[i] = (uint32_t)(s + (borrow ? ((int64_t)1 << 32) : 0));
    }
    t.n = a->n;
    big_norm(&t);
    *r = t;
}

static bool big_shl(kg_qbig *b, uint32_t bits)
{
    if (big_is_zero(b))
        return true;
    uint32_t words = bits / 32, sh = bits % 32;
    if (b->n + words + 1 > KG_QBIG_LIMBS)
        return false;
    kg_qbig t = {0};
    for (uint32_t i = 0; i < b->n; i++) {
        uint64_t v = (uint64_t)b->d[i] << sh;
        t.d[i + words] |= (uint32_t)v;
        t.d[i + words + 1] |= (uint32_t)(v >> 32);
    }
    t.n = b->n + words + 1;
    big_norm(&t);
    *b = t;
    return true;
}

static bool big_to_u64(const kg_qbig *b, uint64_t *v)
{
    if (b->n > 2)
        return false;
    *v = b->n == 0 ? 0 : b->n == 1 ? b->d[0] : ((uint64_t)b->d[1] << 32 | b->d[0]);
    return true;
}

#define BIG_STR_MAX (KG_QBIG_LIMBS * 10 + 2)

/* Decimal digits of b into out (NUL-terminated); returns the length. */
static size_t big_to_str(const kg_qbig *b, char *out)
{
    if (b->n <= 2) {
        uint64_t v = b->n == 0 ? 0 : b->n == 1 ? b->d[0] : ((uint64_t)b->d[1] << 32 | b->d[0]);
        char tmp[24];
        size_t n = 0;
        do {
            tmp[n++] = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        for (size_t i = 0; i < n; i++)
            out[i] = tmp[n - 1 - i];
        out[n] = 0;
        return n;
    }
    kg_qbig t = *b;
    char tmp[BIG_STR_MAX];
    size_t n = 0;
    while (!big_is_zero(&t)) {
        uint32_t r = big_divmod_small(&t, POW10[9]);
        for (int k = 0; k < 9; k++) {
            tmp[n++] = (char)('0' + r % 10);
            r /= 10;
        }
    }
    while (n > 1 && tmp[n - 1] == '0')
        n--;
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    out[n] = 0;
    return n;
}

static bool big_from_digits(kg_qbig *b, const char *s, size_t n)
{
    b->n = 0;
    size_t i = 0;
    while (i < n) {
        size_t k = n - i < 9 ? n - i : 9;
        uint32_t chunk = 0;
        for (size_t j = 0; j < k; j++)
            chunk = chunk * 10 + (uint32_t)(s[i + j] - '0');
        if (!big_mul_small(b, POW10[k], chunk))
            return false;
        i += k;
    }
    return true;
}

/* ---------------------------------------------------------------------------------------------------------------
 * Signed decimals: (neg ? -1 : 1) * mag * 10^exp
 * ------------------------------------------------------------------------------------------------------------- */

typedef struct qdec {
    bool neg;
    int64_t exp;
    kg_qbig mag;
} qdec;

static void qdec_from_int(qdec *d, int64_t v, int64_t exp)
{
    d->neg = v < 0;
    big_set_u64(&d->mag, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
    d->exp = exp;
}

static void get_dec(const kg_quantity *q, qdec *d)
{
    if (q->is_dec) {
        d->neg = q->d_neg;
        d->exp = q->d_exp;
        d->mag.n = q->d_mag.n;
        memcpy(d->mag.d, q->d_mag.d, q->d_mag.n * sizeof(uint32_t));
    } else {
        qdec_from_int(d, q->i_value, q->i_scale);
    }
}

static bool put_dec(kg_quantity *q, const qdec *d)
{
    if (d->exp < -INT32_MAX || d->exp > INT32_MAX)
        return false;
    q->is_dec = true;
    q->d_neg = d->neg && !big_is_zero(&d->mag);
    q->d_exp = (int32_t)d->exp;
    q->d_mag.n = d->mag.n;
    memcpy(q->d_mag.d, d->mag.d, d->mag.n * sizeof(uint32_t));
    q->i_value = 0;
    q->i_scale = 0;
    return true;
}

/* Exact decimal digit count bounds are not needed: compare magnitudes of a*10^ea and b*10^eb. */
static int mag_cmp_scaled(const kg_qbig *a, int64_t ea, const kg_qbig *b, int64_t eb)
{
    bool az = big_is_zero(a), bz = big_is_zero(b);
    if (az || bz)
        return az && bz ? 0 : az ? -1 : 1;
    if (ea == eb)
        return big_cmp(a, b);
    if (ea > eb) {
        kg_qbig t = *a;
        if ((uint64_t)(ea - eb) > (uint64_t)KG_QBIG_LIMBS * 10 || !big_mul_pow10(&t, (uint64_t)(ea - eb)))
            return 1; /* a*10^k exceeds anything b can hold */
        return big_cmp(&t, b);
    }
    return -mag_cmp_scaled(b, eb, a, ea);
}

typedef unsigned __int128 u128;

static const uint64_t POW10_64[19] = {1ULL,
                                      10ULL,
                                      100ULL,
                                      1000ULL,
                                      10000ULL,
                                      100000ULL,
                                      1000000ULL,
                                      10000000ULL,
                                      100000000ULL,
                                      1000000000ULL,
                                      10000000000ULL,
                                      100000000000ULL,
                                      1000000000000ULL,
                                      10000000000000ULL,
                                      100000000000000ULL,
                                      1000000000000000ULL,
                                      10000000000000000ULL,
                                      100000000000000000ULL,
                                      1000000000000000000ULL};

/* Both magnitudes fit 64 bits and the exponents differ by at most 18: align them exactly in 128 bits. */
static bool align128(const qdec *x, const qdec *y, u128 *a, u128 *b, int64_t *exp)
{
    uint64_t mx, my;
    if (!big_to_u64(&x->mag, &mx) || !big_to_u64(&y->mag, &my))
        return false;
    int64_t diff = x->exp - y->exp;
    if (diff > 18 || diff < -18)
        return false;
    if (diff >= 0) {
        *a = (u128)mx * POW10_64[diff];
        *b = my;
        *exp = y->exp;
    } else {
        *a = mx;
        *b = (u128)my * POW10_64[-diff];
        *exp = x->exp;
    }
    return true;
}

static void big_set_u128(kg_qbig *b, u128 v)
{
    b->n = 0;
    while (v) {
        b->d[b->n++] = (uint32_t)v;
        v >>= 32;
    }
}

static int qdec_cmp(const qdec *x, const qdec *y)
{
    int sx = big_is_zero(&x->mag) ? 0 : x->neg ? -1 : 1;
    int sy = big_is_zero(&y->mag) ? 0 : y->neg ? -1 : 1;
    if (sx != sy)
        return sx < sy ? -1 : 1;
    if (sx == 0)
        return 0;
    u128 a, b;
    int64_t e;
    int c;
    if (align128(x, y, &a, &b, &e))
        c = a < b ? -1 : a > b;
    else
        c = mag_cmp_scaled(&x->mag, x->exp, &y->mag, y->exp);
    return sx < 0 ? -c : c;
}

static bool qdec_add(qdec *r, const qdec *x, const qdec *y)
{
    u128 ma, mb;
    int64_t e;
    if (align128(x, y, &ma, &mb, &e) && ma < ((u128)1 << 126) && mb < ((u128)1 << 126)) {
        r->exp = e;
        if (x->neg == y->neg) {
            big_set_u128(&r->mag, ma + mb);
            r->neg = x->neg;
        } else if (ma >= mb) {
            big_set_u128(&r->mag, ma - mb);
            r->neg = x->neg;
        } else {
            big_set_u128(&r->mag, mb - ma);
            r->neg = y->neg;
        }
        if (big_is_zero(&r->mag))
            r->neg = false;
        return true;
    }
    qdec a = *x, b = *y;
    int64_t exp = a.exp < b.exp ? a.exp : b.exp;
    if (!big_is_zero(&a.mag) && !big_mul_pow10(&a.mag, (uint64_t)(a.exp - exp)))
        return false;
    if (!big_is_zero(&b.mag) && !big_mul_pow10(&b.mag, (uint64_t)(b.exp - exp)))
        return false;
    qdec out = {.exp = exp};
    if (a.neg == b.neg) {
        if (!big_add(&out.mag, &a.mag, &b.mag))
            return false;
        out.neg = a.neg;
    } else if (big_cmp(&a.mag, &b.mag) >= 0) {
        big_sub(&out.mag, &a.mag, &b.mag);
        out.neg = a.neg;
    } else {
        big_sub(&out.mag, &b.mag, &a.mag);
        out.neg = b.neg;
    }
    if (big_is_zero(&out.mag))
        out.neg = false;
    *r = out;
    return true;
}

/* inf.Dec Round(x, -exp, RoundUp): set the exponent to new_exp, rounding away from zero. Returns false when growing
 * the magnitude overflows (d unchanged); *exact reports whether the value is unchanged. */
static bool qdec_rescale(qdec *d, int64_t new_exp, bool *exact)
{
    if (exact)
        *exact = true;
    if (big_is_zero(&d->mag)) {
        d->exp = new_exp;
        return true;
    }
    if (new_exp <= d->exp) {
        kg_qbig t = d->mag;
        if (!big_mul_pow10(&t, (uint64_t)(d->exp - new_exp)))
            return false;
        d->mag = t;
        d->exp = new_exp;
        return true;
    }
    uint64_t k = (uint64_t)(new_exp - d->exp);
    bool rem = false;
    while (k > 0 && !big_is_zero(&d->mag)) {
        uint32_t step = k >= 9 ? 9 : (uint32_t)k;
        if (big_divmod_small(&d->mag, POW10[step]))
            rem = true;
        k -= step;
    }
    if (rem)
        big_mul_small(&d->mag, 1, 1); /* +1 away from zero; cannot overflow after a division */
    d->exp = new_exp;
    if (exact)
        *exact = !rem;
    return true;
}

/* ---------------------------------------------------------------------------------------------------------------
 * int64 helpers (math.go)
 * ------------------------------------------------------------------------------------------------------------- */

static bool mul_ovf(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_mul_overflow(a, b, r);
}

/* positiveScaleInt64: base * 10^scale, false on overflow. */
static bool pos_scale(int64_t base, int64_t scale, int64_t *r)
{
    if (base == 0) {
        *r = 0;
        return true;
    }
    int64_t v = base;
    for (int64_t i = 0; i < scale; i++)
        if (!mul_ovf(v, 10, &v))
            return false;
    *r = v;
    return true;
}

/* negativeScaleInt64: base / 10^scale rounded away from zero; *exact as upstream. */
static int64_t neg_scale(int64_t base, int64_t scale, bool *exact)
{
    int64_t value = base;
    bool fraction = false;
    for (int64_t i = 0; i < scale; i++) {
        if (!fraction && value % 10 != 0)
            fraction = true;
        value /= 10;
        if (value == 0) {
            *exact = !fraction;
            return fraction ? (base > 0 ? 1 : -1) : 0;
        }
    }
    if (fraction)
        value += base > 0 ? 1 : -1;
    *exact = !fraction;
    return value;
}

/* int64Amount.Add. */
static bool int_add(int64_t *av, int32_t *as, int64_t bv, int32_t bs)
{
    if (bv == 0)
        return true;
    if (*av == 0) {
        *av = bv;
        *as = bs;
        return true;
    }
    int64_t c;
    if (*as == bs) {
        if (__builtin_add_overflow(*av, bv, &c))
            return false;
    } else if (*as > bs) {
        if (!pos_scale(*av, (int64_t)*as - bs, &c) || __builtin_add_overflow(c, bv, &c))
            return false;
        *as = bs;
    } else {
        if (!pos_scale(bv, (int64_t)bs - *as, &c) || __builtin_add_overflow(*av, c, &c))
            return false;
    }
    *av = c;
    return true;
}

/* ---------------------------------------------------------------------------------------------------------------
 * Parsing
 * ------------------------------------------------------------------------------------------------------------- */

static bool perr(kg_error *err, const char *msg)
{
    return kg_err_set(err, KG_EINVAL, "%s", msg);
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool suffix_char(char c)
{
    switch (c) {
    case 'e':
    case 'E':
    case 'i':
    case 'n':
    case 'u':
    case 'm':
    case 'k':
    case 'K':
    case 'M':
    case 'G':
    case 'T':
    case 'P': return true;
    default: return false;
    }
}

/* suffixHandler.interpret */
static bool interpret_suffix(const char *s, size_t n, int *base, int32_t *exponent, kg_qformat *fmt)
{
    *base = 10;
    *fmt = KG_QFMT_DECIMAL_SI;
    if (n == 0) {
        *exponent = 0;
        return true;
    }
    if (n == 1) {
        switch (s[0]) {
        case 'n': *exponent = -9; return true;
        case 'u': *exponent = -6; return true;
        case 'm': *exponent = -3; return true;
        case 'k': *exponent = 3; return true;
        case 'M': *exponent = 6; return true;
        case 'G': *exponent = 9; return true;
        case 'T': *exponent = 12; return true;
        case 'P': *exponent = 15; return true;
        case 'E': *exponent = 18; return true;
        }
        return false;
    }
    if (n == 2 && s[1] == 'i') {
        static const char bin[] = "KMGTPE";
        const char *p = strchr(bin, s[0]);
        if (p && s[0]) {
            *base = 2;
            *exponent = (int32_t)(10 * (p - bin + 1));
            *fmt = KG_QFMT_BINARY_SI;
            return true;
        }
    }
    if (s[0] == 'e' || s[0] == 'E') {
        /* strconv.ParseInt(s[1:], 10, 64), then limited to what an int32 scale can negate */
        size_t i = 1;
        bool neg = false;
        if (s[i] == '+' || s[i] == '-')
            neg = s[i++] == '-';
        if (i >= n)
            return false;
        int64_t v = 0;
        for (; i < n; i++) {
            if (!is_digit(s[i]))
                return false;
            v = v * 10 + (s[i] - '0');
            if (v > INT32_MAX)
                return false;
        }
        *exponent = (int32_t)(neg ? -v : v);
        *fmt = KG_QFMT_DECIMAL_EXPONENT;
        return true;
    }
    return false;
}

static void q_clear(kg_quantity *q)
{
    /* everything but the unused limbs */
    q->format = KG_QFMT_DECIMAL_SI;
    q->is_dec = false;
    q->d_neg = false;
    q->i_scale = 0;
    q->i_value = 0;
    q->d_exp = 0;
    q->d_mag.n = 0;
    q->s[0] = 0;
}

/* The common shapes — up to 15 digits without a leading zero, then nothing, one decimal SI suffix or a binary SI
 * suffix — decided in one pass. Gives exactly what the general parser gives (tests compare the two on every such
 * shape); false (nothing written) for anything else. */
static bool parse_fast(const char *str, size_t end, kg_quantity *out)
{
    if (end == 0 || end > 17 || str[0] < '1' || str[0] > '9')
        return false;
    int64_t value = str[0] - '0';
    size_t i = 1;
    while (i < end && is_digit(str[i])) {
        if (i == 15)
            return false;
        value = value * 10 + (str[i] - '0');
        i++;
    }
    size_t num_n = i, suf_n = end - i;
    int32_t exponent = 0;
    kg_qformat format = KG_QFMT_DECIMAL_SI;
    int64_t result = value;
    bool canonical;
    if (suf_n <= 1) {
        if (suf_n == 1) {
            switch (str[i]) {
            case 'n': exponent = -9; break;
            case 'u': exponent = -6; break;
            case 'm': exponent = -3; break;
            case 'k': exponent = 3; break;
            case 'M': exponent = 6; break;
            case 'G': exponent = 9; break;
            case 'T': exponent = 12; break;
            case 'P': exponent = 15; break;
            case 'E': exponent = 18; break;
            default: return false;
            }
        }
        canonical = !(num_n >= 3 && str[num_n - 3] == '0' && str[num_n - 2] == '0' && str[num_n - 1] == '0');
    } else if (suf_n == 2 && str[i + 1] == 'i') {
        switch (str[i]) {
        case 'K': exponent = 10; break;
        case 'M': exponent = 20; break;
        case 'G': exponent = 30; break;
        case 'T': exponent = 40; break;
        case 'P': exponent = 50; break;
        case 'E': exponent = 60; break;
        default: return false;
        }
        format = KG_QFMT_BINARY_SI;
        if (15 - (int64_t)num_n - (int64_t)((float)exponent * 3 / 10) - 1 < 0 ||
            !mul_ovf(value, (int64_t)1 << exponent, &result))
            return false;
        exponent = 0; /* the binary multiplier is in result; the decimal scale stays 0 */
        canonical = (value & 0x07) != 0;
    } else {
        return false;
    }
    q_clear(out);
    out->format = format;
    out->i_value = result;
    out->i_scale = exponent;
    if (canonical) {
        memcpy(out->s, str, end);
        out->s[end] = 0;
    }
    return true;
}

bool kg_quantity_parse(const char *str, size_t end, kg_quantity *out, kg_error *err)
{
    if (parse_fast(str, end, out))
        return true;
    return kg_quantity_parse_general(str, end, out, err);
}

bool kg_quantity_parse_general(const char *str, size_t end, kg_quantity *out, kg_error *err)
{
    q_clear(out);
    if (end == 0)
        return perr(err, KG_QUANTITY_ERR_FORMAT);
    if (end == 1 && str[0] == '0') {
        out->s[0] = '0';
        out->s[1] = 0;
        return true;
    }

    /* parseQuantityString */
    bool positive = true;
    size_t pos = 0;
    const char *num = "0", *denom = "", *suf = "";
    size_t num_n = 1, denom_n = 0, suf_n = 0;
    if (str[0] == '-') {
        positive = false;
        pos++;
    } else if (str[0] == '+') {
        pos++;
    }
    while (pos < end && str[pos] == '0')
        pos++;
    if (pos >= end)
        goto scanned;
    {
        size_t i = pos;
        while (i < end && is_digit(str[i]))
            i++;
        if (i > pos) {
            num = str + pos;
            num_n = i - pos;
        }
        pos = i;
        if (pos >= end)
            goto scanned;
        if (str[pos] == '.') {
            pos++;
            i = pos;
            while (i < end && is_digit(str[i]))
                i++;
            denom = str + pos;
            denom_n = i - pos;
            pos = i;
            if (pos >= end)
                goto scanned;
        }
        size_t suffix_start = pos;
        i = pos;
        while (i < end && suffix_char(str[i]))
            i++;
        if (i < end) {
            pos = i;
            if (str[pos] == '-' || str[pos] == '+')
                pos++;
            i = pos;
            while (i < end && is_digit(str[i]))
                i++;
            if (i < end)
                return perr(err, KG_QUANTITY_ERR_FORMAT);
        }
        suf = str + suffix_start;
        suf_n = end - suffix_start;
    }
scanned:;
    int base;
    int32_t exponent;
    kg_qformat format;
    if (!interpret_suffix(suf, suf_n, &base, &exponent, &format))
        return perr(err, KG_QUANTITY_ERR_SUFFIX);

    int64_t precision = 0, scale = 0, mantissa = 1;
    if (format == KG_QFMT_BINARY_SI) {
        if (exponent >= 0 && denom_n == 0) {
            mantissa = (int64_t)1 << exponent;
            precision = 15 - (int64_t)num_n - (int64_t)((float)exponent * 3 / 10) - 1;
        } else {
            precision = -1;
        }
    } else {
        scale = exponent;
        precision = 18 - (int64_t)(num_n + denom_n);
    }

    if (precision >= 0) {
        scale -= (int64_t)denom_n;
        if (scale >= KG_SCALE_NANO) {
            /* the digits of num then denom ("shifted" upstream), read in place */
            size_t sn = num_n + denom_n;
#define SHIFTED(i) ((i) < num_n ? num[(i)] : denom[(i)-num_n])
            int64_t value = 0;
            for (size_t i = 0; i < num_n; i++)
                value = value * 10 + (num[i] - '0');
            for (size_t i = 0; i < denom_n; i++)
                value = value * 10 + (denom[i] - '0');
            int64_t result;
            if (mul_ovf(value, mantissa, &result)) {
                if (!positive)
                    result = -result;
                out->format = format;
                out->i_value = result;
                out->i_scale = (int32_t)scale;
                bool canonical;
                if (format == KG_QFMT_BINARY_SI)
                    canonical = exponent % 10 == 0 && (value & 0x07) != 0;
                else
                    canonical =
                        scale % 3 == 0 &&
                        !(sn >= 3 && SHIFTED(sn - 3) == '0' && SHIFTED(sn - 2) == '0' && SHIFTED(sn - 1) == '0') &&
                        SHIFTED(0) != '0';
#undef SHIFTED
                if (canonical && end < sizeof out->s) {
                    memcpy(out->s, str, end);
                    out->s[end] = 0;
                }
                return true;
            }
        }
    }

    /* inf.Dec path: upstream hands the numeric text to inf.Dec.SetString, which rejects text without a digit
     * ("Ei", "-.Pi"), while the int64 fast path above turned the same digit-less text into 0 ("Ki"). */
    {
        const char *vend = suf_n ? suf : str + end;
        bool any_digit = false;
        for (const char *p = str; p < vend && !any_digit; p++)
            any_digit = is_digit(*p);
        if (!any_digit)
            return perr(err, KG_QUANTITY_ERR_NUMERIC);
    }
    qdec d = {.neg = false};
    /* Only the significant digits of num+denom go into the magnitude; leading zeros are dropped and trailing zeros
     * move into the exponent, so "0.000…01" with hundreds of zeros still parses. */
    size_t total = num_n + denom_n, first = 0, last = total;
#define DIGIT_AT(i) ((i) < num_n ? num[(i)] : denom[(i)-num_n])
    while (first < total && DIGIT_AT(first) == '0')
        first++;
    while (last > first && DIGIT_AT(last - 1) == '0')
        last--;
    char digits[BIG_STR_MAX + 1];
    if (last - first > BIG_STR_MAX - 2)
        return perr(err, KG_QUANTITY_ERR_NUMERIC);
    for (size_t i = first; i < last; i++)
        digits[i - first] = DIGIT_AT(i);
#undef DIGIT_AT
    if (!big_from_digits(&d.mag, digits, last - first))
        return perr(err, KG_QUANTITY_ERR_NUMERIC);
    d.exp = -(int64_t)denom_n + (int64_t)(first < last ? total - last : 0);
    if (base == 10)
        d.exp += exponent;
    else if (!big_shl(&d.mag, (uint32_t)exponent))
        return perr(err, KG_QUANTITY_ERR_NUMERIC);
    if (!big_is_zero(&d.mag)) {
        /* round up to nano (rescaling as inf.Dec does when the magnitude allows it) */
        qdec t = d;
        if (qdec_rescale(&t, KG_SCALE_NANO, NULL))
            d = t;
    }
    if (format == KG_QFMT_BINARY_SI) {
        qdec maxd;
        qdec_from_int(&maxd, INT64_MAX, 0);
        if (qdec_cmp(&d, &maxd) > 0)
            d = maxd;
        qdec one;
        qdec_from_int(&one, 1, 0);
        if (qdec_cmp(&d, &one) < 0 && !big_is_zero(&d.mag))
            format = KG_QFMT_DECIMAL_SI;
    }
    d.neg = !positive && !big_is_zero(&d.mag);
    out->format = format;
    if (!put_dec(out, &d))
        return perr(err, KG_QUANTITY_ERR_NUMERIC);
    return true;
}

bool kg_quantity_from_json(const kg_json *v, kg_quantity *out, kg_error *err)
{
    char buf[32];
    const char *s;
    size_t n;
    if (!v || v->type == KG_JSON_NULL) {
        *out = kg_quantity_zero();
        return true;
    }
    if (v->type == KG_JSON_STRING) {
        s = v->u.s;
        n = v->len;
    } else if (v->type == KG_JSON_INT) {
        n = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)v->u.i);
        s = buf;
    } else if (v->type == KG_JSON_NUMBER && v->u.num.raw) {
        s = v->u.num.raw;
        n = v->len;
    } else {
        return perr(err, KG_QUANTITY_ERR_FORMAT);
    }
    while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\v' || *s == '\f'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == '\v' ||
                 s[n - 1] == '\f'))
        n--;
    return kg_quantity_parse(s, n, out, err);
}

/* ---------------------------------------------------------------------------------------------------------------
 * Construction
 * ------------------------------------------------------------------------------------------------------------- */

kg_quantity kg_quantity_new(int64_t value, kg_qformat format)
{
    kg_quantity q;
    q_clear(&q);
    q.format = format;
    q.i_value = value;
    return q;
}

kg_quantity kg_quantity_new_milli(int64_t value, kg_qformat format)
{
    kg_quantity q = kg_quantity_new(value, format);
    q.i_scale = -3;
    return q;
}

kg_quantity kg_quantity_new_scaled(int64_t value, int32_t scale)
{
    kg_quantity q = kg_quantity_new(value, KG_QFMT_DECIMAL_SI);
    q.i_scale = scale;
    return q;
}

void kg_quantity_set_scaled(kg_quantity *q, int64_t value, int32_t scale)
{
    q->s[0] = 0;
    q->is_dec = false;
    q->d_neg = false;
    q->d_exp = 0;
    q->d_mag.n = 0;
    q->i_value = value;
    q->i_scale = scale;
}

const char *kg_qformat_name(kg_qformat f)
{
    switch (f) {
    case KG_QFMT_DECIMAL_SI: return "DecimalSI";
    case KG_QFMT_BINARY_SI: return "BinarySI";
    case KG_QFMT_DECIMAL_EXPONENT: return "DecimalExponent";
    }
    return "DecimalExponent";
}

/* ---------------------------------------------------------------------------------------------------------------
 * Queries and arithmetic
 * ------------------------------------------------------------------------------------------------------------- */

bool kg_quantity_is_zero(const kg_quantity *q)
{
    return q->is_dec ? big_is_zero(&q->d_mag) : q->i_value == 0;
}

int kg_quantity_sign(const kg_quantity *q)
{
    if (q->is_dec)
        return big_is_zero(&q->d_mag) ? 0 : q->d_neg ? -1 : 1;
    return q->i_value == 0 ? 0 : q->i_value < 0 ? -1 : 1;
}

int kg_quantity_cmp(const kg_quantity *x, const kg_quantity *y)
{
    if (!x->is_dec && !y->is_dec && x->i_scale == y->i_scale)
        return x->i_value < y->i_value ? -1 : x->i_value > y->i_value;
    qdec a, b;
    get_dec(x, &a);
    get_dec(y, &b);
    return qdec_cmp(&a, &b);
}

int kg_quantity_cmp_int64(const kg_quantity *x, int64_t y)
{
    kg_quantity t = kg_quantity_new(y, KG_QFMT_DECIMAL_SI);
    return kg_quantity_cmp(x, &t);
}

bool kg_quantity_as_int64(const kg_quantity *q, int64_t *out)
{
    if (q->is_dec)
        return false;
    if (q->i_scale == 0) {
        *out = q->i_value;
        return true;
    }
    if (q->i_scale < 0)
        return false;
    return pos_scale(q->i_value, q->i_scale, out);
}

int64_t kg_quantity_scaled_value(const kg_quantity *q, int32_t scale)
{
    if (!q->is_dec) {
        int64_t v = q->i_value, r;
        if (v == 0)
            return 0;
        int64_t delta = (int64_t)q->i_scale - scale;
        if (delta < 0) {
            bool exact;
            if (-delta >= 19)
                return v < 0 ? -1 : 1;
            return neg_scale(v, -delta, &exact);
        }
        if (delta >= 19 || !pos_scale(v, delta, &r))
            return v < 0 ? INT64_MIN : INT64_MAX;
        return r;
    }
    qdec d;
    get_dec(q, &d);
    if (big_is_zero(&d.mag))
        return 0;
    int64_t delta = d.exp - scale;
    if (delta < 0) {
        qdec_rescale(&d, scale, NULL);
    } else if (delta > 19 || !big_mul_pow10(&d.mag, (uint64_t)delta)) {
        return d.neg ? INT64_MIN : INT64_MAX;
    }
    uint64_t m;
    if (!big_to_u64(&d.mag, &m))
        return d.neg ? INT64_MIN : INT64_MAX;
    if (d.neg)
        return m >= (uint64_t)1 << 63 ? INT64_MIN : -(int64_t)m;
    return m > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)m;
}

double kg_quantity_go_pow10(int n)
{
    static const double tab[32] = {1e00, 1e01, 1e02, 1e03, 1e04, 1e05, 1e06, 1e07, 1e08, 1e09, 1e10,
                                   1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
                                   1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31};
    static const double pos32[10] = {1e00, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288};
    static const double neg32[11] = {1e-00,  1e-32,  1e-64,  1e-96,  1e-128, 1e-160,
                                     1e-192, 1e-224, 1e-256, 1e-288, 1e-320};
    if (0 <= n && n <= 308)
        return pos32[(unsigned)n / 32] * tab[(unsigned)n % 32];
    if (-323 <= n && n <= 0)
        return neg32[(unsigned)-n / 32] / tab[(unsigned)-n % 32];
    if (n > 0)
        return INFINITY;
    return 0;
}

double kg_quantity_as_float64(const kg_quantity *q)
{
    double base;
    int64_t exp;
    if (q->is_dec) {
        /* big.Float.SetInt(unscaled).Float64(): correctly rounded, as strtod of the decimal digits is */
        char digits[BIG_STR_MAX + 1];
        big_to_str(&q->d_mag, digits);
        base = strtod(digits, NULL);
        if (q->d_neg)
            base = -base;
        exp = q->d_exp;
    } else {
        base = (double)q->i_value;
        exp = q->i_scale;
    }
    if (exp == 0)
        return base;
    if (exp > 400)
        exp = 400;
    if (exp < -400)
        exp = -400;
    return base * kg_quantity_go_pow10((int)exp);
}

bool kg_quantity_add(kg_quantity *q, const kg_quantity *y)
{
    if (!q->is_dec && !y->is_dec) {
        kg_qformat f = q->format;
        if (q->i_value == 0)
            f = y->format;
        int64_t v = q->i_value;
        int32_t s = q->i_scale;
        if (int_add(&v, &s, y->i_value, y->i_scale)) {
            q->format = f;
            q->i_value = v;
            q->i_scale = s;
            q->s[0] = 0;
            return true;
        }
    }
    qdec a, b, r;
    get_dec(q, &a);
    get_dec(y, &b);
    if (!qdec_add(&r, &a, &b))
        return false;
    kg_qformat f = kg_quantity_is_zero(q) ? y->format : q->format;
    kg_quantity t = *q;
    if (!put_dec(&t, &r))
        return false;
    t.format = f;
    t.s[0] = 0;
    *q = t;
    return true;
}

bool kg_quantity_sub(kg_quantity *q, const kg_quantity *y)
{
    kg_quantity ny = *y;
    kg_quantity_neg(&ny);
    kg_qformat f = kg_quantity_is_zero(q) ? y->format : q->format;
    if (!kg_quantity_add(q, &ny))
        return false;
    q->format = f;
    return true;
}

void kg_quantity_neg(kg_quantity *q)
{
    q->s[0] = 0;
    if (!q->is_dec) {
        if (q->i_value != INT64_MIN) {
            q->i_value = -q->i_value;
            return;
        }
        qdec d;
        get_dec(q, &d);
        put_dec(q, &d);
    }
    if (!big_is_zero(&q->d_mag))
        q->d_neg = !q->d_neg;
}

bool kg_quantity_mul(kg_quantity *q, int64_t y)
{
    q->s[0] = 0;
    if (!q->is_dec) {
        int64_t a = q->i_value, c;
        if (a == 0)
            return true;
        if (y == 0) {
            q->i_value = 0;
            q->i_scale = 0;
            return true;
        }
        if (mul_ovf(a, y, &c)) {
            bool ok = true;
            if (q->i_scale > 0) {
                int64_t tmp;
                ok = pos_scale(c, q->i_scale, &tmp);
            } else if (q->i_scale < 0) {
                bool exact;
                (void)neg_scale(c, -(int64_t)q->i_scale, &exact);
                ok = true; /* negativeScaleInt64 cannot overflow */
            }
            if (ok) {
                q->i_value = c;
                return true;
            }
        }
    }
    qdec d;
    get_dec(q, &d);
    uint64_t m = y < 0 ? (uint64_t)0 - (uint64_t)y : (uint64_t)y;
    kg_qbig hi = d.mag;
    /* mag * m = mag * lo + (mag * hi) << 32 */
    kg_qbig lo = d.mag;
    if (!big_mul_small(&lo, (uint32_t)m, 0) || !big_mul_small(&hi, (uint32_t)(m >> 32), 0) || !big_shl(&hi, 32) ||
        !big_add(&d.mag, &lo, &hi)) {
        return false;
    }
    d.neg = (d.neg != (y < 0)) && !big_is_zero(&d.mag);
    put_dec(q, &d);
    uint64_t u;
    if (!big_to_u64(&d.mag, &u))
        return false;
    return d.neg ? u <= (uint64_t)1 << 63 : u <= (uint64_t)INT64_MAX;
}

void kg_quantity_to_dec(kg_quantity *q)
{
    if (q->is_dec)
        return;
    qdec d;
    get_dec(q, &d);
    put_dec(q, &d);
}

bool kg_quantity_round_up(kg_quantity *q, int32_t scale)
{
    if (q->is_dec) {
        qdec d;
        get_dec(q, &d);
        bool exact;
        if (!qdec_rescale(&d, scale, &exact))
            return true; /* growing the magnitude loses nothing; keep the current representation */
        q->s[0] = 0;
        put_dec(q, &d);
        return exact;
    }
    if (q->i_scale >= scale)
        return true;
    q->s[0] = 0;
    bool exact;
    q->i_value = neg_scale(q->i_value, (int64_t)scale - q->i_scale, &exact);
    q->i_scale = scale;
    return exact;
}

/* ---------------------------------------------------------------------------------------------------------------
 * Canonical form
 * ------------------------------------------------------------------------------------------------------------- */

#define CANON_MAX (BIG_STR_MAX + 48)

static const char *dec_suffix(int64_t exp)
{
    switch (exp) {
    case -9: return "n";
    case -6: return "u";
    case -3: return "m";
    case 0: return "";
    case 3: return "k";
    case 6: return "M";
    case 9: return "G";
    case 12: return "T";
    case 15: return "P";
    case 18: return "E";
    }
    return NULL;
}

/* AsCanonicalBytes + suffix for base 10. */
static size_t canon_decimal(const qdec *d, bool exponent_form, char *out)
{
    char digits[BIG_STR_MAX];
    size_t n = big_to_str(&d->mag, digits);
    int64_t exp = d->exp;
    while (n > 1 && digits[n - 1] == '0') {
        n--;
        exp++;
    }
    size_t o = 0;
    if (d->neg)
        out[o++] = '-';
    memcpy(out + o, digits, n);
    o += n;
    while (exp % 3 != 0) {
        out[o++] = '0';
        exp--;
    }
    const char *suf = exponent_form ? NULL : dec_suffix(exp);
    if (suf) {
        size_t sl = strlen(suf);
        memcpy(out + o, suf, sl);
        o += sl;
    } else if (exp != 0) {
        o += (size_t)snprintf(out + o, 24, "e%lld", (long long)exp);
    }
    out[o] = 0;
    return o;
}

static size_t q_canon(const kg_quantity *q, char *out)
{
    if (q->s[0]) {
        size_t n = strlen(q->s);
        memcpy(out, q->s, n + 1);
        return n;
    }
    if (kg_quantity_is_zero(q)) {
        memcpy(out, "0", 2);
        return 1;
    }
    qdec d;
    get_dec(q, &d);
    kg_qformat f = q->format;
    if (f == KG_QFMT_BINARY_SI) {
        if (kg_quantity_cmp_int64(q, -1024) > 0 && kg_quantity_cmp_int64(q, 1024) < 0) {
            f = KG_QFMT_DECIMAL_SI;
        } else {
            qdec r = d;
            bool exact;
            if (!qdec_rescale(&r, 0, &exact) || !exact) {
                f = KG_QFMT_DECIMAL_SI;
            } else {
                int times = 0;
                while (r.mag.n && (r.mag.d[0] & 1023) == 0 && times <= 6) {
                    big_divmod_small(&r.mag, 1024);
                    times++;
                }
                if (times <= 6) {
                    static const char *const bsuf[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
                    size_t o = 0;
                    if (r.neg)
                        out[o++] = '-';
                    o += big_to_str(&r.mag, out + o);
                    size_t sl = strlen(bsuf[times]);
                    memcpy(out + o, bsuf[times], sl + 1);
                    return o + sl;
                }
                /* beyond Ei there is no binary suffix: exact decimal exponent notation */
                return canon_decimal(&d, true, out);
            }
        }
    }
    return canon_decimal(&d, f == KG_QFMT_DECIMAL_EXPONENT, out);
}

void kg_quantity_write(kg_buf *out, const kg_quantity *q)
{
    char tmp[CANON_MAX];
    size_t n = q_canon(q, tmp);
    kg_buf_append(out, tmp, n);
}

char *kg_quantity_string(kg_arena *a, const kg_quantity *q)
{
    char tmp[CANON_MAX];
    size_t n = q_canon(q, tmp);
    return kg_arena_strndup(a, tmp, n);
}

size_t kg_quantity_format(const kg_quantity *q, char *buf, size_t cap)
{
    char tmp[CANON_MAX];
    size_t n = q_canon(q, tmp);
    if (cap) {
        size_t c = n < cap - 1 ? n : cap - 1;
        memcpy(buf, tmp, c);
        buf[c] = 0;
    }
    return n;
}

kg_json *kg_quantity_to_json(kg_arena *a, const kg_quantity *q)
{
    char tmp[CANON_MAX];
    size_t n = q_canon(q, tmp);
    return kg_json_new_strn(a, tmp, n);
}
