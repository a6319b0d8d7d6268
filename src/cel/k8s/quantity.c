#include "cel/k8s/quantity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- int64 helpers (apimachinery amount.go / math.go) ---- */

static bool i64_mul(int64_t a, int64_t b, int64_t *c)
{
    if (a == 0 || b == 0 || a == 1 || b == 1) {
        *c = (int64_t)((uint64_t)a * (uint64_t)b);
        return true;
    }
    if (a == INT64_MIN || b == INT64_MIN)
        return false;
    return !__builtin_mul_overflow(a, b, c);
}

static bool i64_add(int64_t a, int64_t b, int64_t *c)
{
    return !__builtin_add_overflow(a, b, c);
}

static bool pos_scale_i64(int64_t base, int64_t scale, int64_t *out)
{
    int64_t v = base;
    for (int64_t i = 0; i < scale; i++)
        if (!i64_mul(v, 10, &v))
            return false;
    *out = v;
    return true;
}

/* int64Amount.Add: false (and a unchanged) on overflow */
static bool amount_add(int64_t *av, int32_t *as, int64_t bv, int32_t bs)
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
        if (!i64_add(*av, bv, &c))
            return false;
        *av = c;
    } else if (*as > bs) {
        if (!pos_scale_i64(*av, (int64_t)*as - bs, &c))
            return false;
        if (!i64_add(c, bv, &c))
            return false;
        *as = bs;
        *av = c;
    } else {
        if (!pos_scale_i64(bv, (int64_t)bs - *as, &c))
            return false;
        if (!i64_add(*av, c, &c))
            return false;
        *av = c;
    }
    return true;
}

/* ---- inf.Dec in decimal digits ---- */

typedef struct qdec {
    bool neg;
    uint32_t nd;
    const uint8_t *d;
    int64_t scale; /* value = d * 10^-scale */
} qdec;

static qdec dec_of(kg_arena *a, const cel_k8s_quantity *q)
{
    qdec r = {0};
    if (q->is_dec) {
        r.neg = q->neg;
        r.nd = q->nd;
        r.d = q->d;
        r.scale = q->dscale;
        return r;
    }
    uint64_t m = q->value < 0 ? (uint64_t)0 - (uint64_t)q->value : (uint64_t)q->value;
    r.neg = q->value < 0;
    r.scale = -(int64_t)q->scale;
    if (m == 0)
        return r;
    uint8_t tmp[20];
    int k = 0;
    while (m) {
        tmp[k++] = (uint8_t)(m % 10);
        m /= 10;
    }
    uint8_t *d = kg_arena_alloc(a, (size_t)k);
    for (int i = 0; i < k; i++)
        d[i] = tmp[k - 1 - i];
    r.d = d;
    r.nd = (uint32_t)k;
    return r;
}

/* compare magnitudes */
static int mag_cmp(const qdec *x, const qdec *y)
{
    if (x->nd == 0 || y->nd == 0)
        return (x->nd != 0) - (y->nd != 0);
    int64_t ex = (int64_t)x->nd - x->scale, ey = (int64_t)y->nd - y->scale; /* position of leading digit */
    if (ex != ey)
        return ex > ey ? 1 : -1;
    uint32_t n = x->nd > y->nd ? x->nd : y->nd;
    for (uint32_t i = 0; i < n; i++) {
        int dx = i < x->nd ? x->d[i] : 0, dy = i < y->nd ? y->d[i] : 0;
        if (dx != dy)
            return dx > dy ? 1 : -1;
    }
    return 0;
}

static int dec_cmp(const qdec *x, const qdec *y)
{
    int sx = x->nd ? (x->neg ? -1 : 1) : 0, sy = y->nd ? (y->neg ? -1 : 1) : 0;
    if (sx != sy)
        return sx > sy ? 1 : -1;
    if (sx == 0)
        return 0;
    int m = mag_cmp(x, y);
    return sx > 0 ? m : -m;
}

/* digit i (from the least significant end, at common scale S) of x */
static inline int dig_at(const qdec *x, int64_t S, int64_t i)
{
    int64_t shift = S - x->scale; /* trailing zeros appended */
    if (i < shift)
        return 0;
    int64_t j = i - shift;
    if (j >= x->nd)
        return 0;
    return x->d[x->nd - 1 - j];
}

static bool dec_add(kg_arena *a, const qdec *x, const qdec *y, bool negate_y, qdec *out)
{
    bool yneg = y->nd ? (y->neg != negate_y) : false;
    int64_t S = x->scale > y->scale ? x->scale : y->scale;
    int64_t lx = (int64_t)x->nd + (S - x->scale), ly = (int64_t)y->nd + (S - y->scale);
    int64_t L = (lx > ly ? lx : ly) + 1;
    if (L > (int64_t)CEL_K8S_QUANTITY_MAX_DIGITS)
        return false;
    uint8_t *r = kg_arena_alloc(a, (size_t)L);
    bool rneg;
    if (x->neg == yneg || x->nd == 0 || y->nd == 0) {
        int carry = 0;
        for (int64_t i = 0; i < L; i++) {
            int v = dig_at(x, S, i) + dig_at(y, S, i) + carry;
            carry = v >= 10;
            r[L - 1 - i] = (uint8_t)(v % 10);
        }
        rneg = x->nd ? x->neg : yneg;
    } else {
        qdec yy = *y;
        yy.neg = yneg;
        int m = mag_cmp(x, &yy);
        const qdec *big = m >= 0 ? x : &yy, *small = m >= 0 ? &yy : x;
        int borrow = 0;
        for (int64_t i = 0; i < L; i++) {
            int v = dig_at(big, S, i) - dig_at(small, S, i) - borrow;
            borrow = v < 0;
            if (v < 0)
                v += 10;
            r[L - 1 - i] = (uint8_t)v;
        }
        rneg = big->neg;
    }
    int64_t lead = 0;
    while (lead < L && r[lead] == 0)
        lead++;
    out->d = r + lead;
    out->nd = (uint32_t)(L - lead);
    out->scale = S;
    out->neg = out->nd ? rneg : false;
    return true;
}

static void set_dec(cel_k8s_quantity *q, const qdec *d)
{
    memset(q, 0, sizeof *q);
    q->is_dec = true;
    q->neg = d->neg;
    q->nd = d->nd;
    q->d = d->d;
    q->dscale = (int32_t)d->scale;
}

/* ---- parsing ---- */

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool suffix_interpret(const char *s, size_t n, int *base, int32_t *exp, int *fmt)
{
    /* fmt: 0 DecimalExponent, 1 BinarySI, 2 DecimalSI */
    static const struct {
        const char *s;
        int base, exp, fmt;
    } tab[] = {{"n", 10, -9, 2}, {"u", 10, -6, 2}, {"m", 10, -3, 2}, {"", 10, 0, 2},
               {"k", 10, 3, 2},  {"M", 10, 6, 2},  {"G", 10, 9, 2},  {"T", 10, 12, 2},
               {"P", 10, 15, 2}, {"E", 10, 18, 2}, {"Ki", 2, 10, 1}, {"Mi", 2, 20, 1},
               {"Gi", 2, 30, 1}, {"Ti", 2, 40, 1}, {"Pi", 2, 50, 1}, {"Ei", 2, 60, 1}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strlen(tab[i].s) == n && memcmp(tab[i].s, s, n) == 0) {
            *base = tab[i].base;
            *exp = tab[i].exp;
            *fmt = tab[i].fmt;
            return true;
        }
    if (n > 1 && (s[0] == 'e' || s[0] == 'E')) {
        /* strconv.ParseInt(s[1:], 10, 64), then int32() truncation */
        size_t i = 1;
        bool neg = false;
        if (s[i] == '+' || s[i] == '-')
            neg = s[i++] == '-';
        if (i == n)
            return false;
        uint64_t v = 0;
        for (; i < n; i++) {
            if (!is_digit(s[i]))
                return false;
            if (v > (UINT64_C(9223372036854775808) - (uint64_t)(s[i] - '0')) / 10)
                return false;
            v = v * 10 + (uint64_t)(s[i] - '0');
        }
        if (!neg && v > INT64_MAX)
            return false;
        uint64_t two = neg ? (uint64_t)0 - v : v;
        *base = 10;
        *exp = (int32_t)(uint32_t)two;
        *fmt = 0;
        return true;
    }
    return false;
}

bool cel_k8s_quantity_parse(kg_arena *a, const char *str, size_t end, cel_k8s_quantity *out, const char **err)
{
    memset(out, 0, sizeof *out);
    if (end == 0) {
        if (err)
            *err = CEL_K8S_QUANTITY_ERR_FORMAT;
        return false;
    }
    if (end == 1 && str[0] == '0')
        return true;

    /* parseQuantityString */
    bool positive = true;
    size_t pos = 0;
    const char *num = NULL, *denom = "", *value = str, *suf = "";
    size_t numn = 0, denomn = 0, valuen = 0, sufn = 0;
    if (str[0] == '-') {
        positive = false;
        pos++;
    } else if (str[0] == '+') {
        pos++;
    }
    while (pos < end && str[pos] == '0')
        pos++;
    if (pos >= end) {
        num = "0";
        numn = 1;
        value = "0";
        valuen = 1;
        goto parsed;
    }
    {
        size_t i = pos;
        while (i < end && is_digit(str[i]))
            i++;
        num = str + pos;
        numn = i - pos;
        if (i >= end) {
            value = str;
            valuen = end;
            if (numn == 0)
                num = "0", numn = 1;
            goto parsed;
        }
        pos = i;
    }
    if (numn == 0)
        num = "0", numn = 1;
    if (pos < end && str[pos] == '.') {
        pos++;
        size_t i = pos;
        while (i < end && is_digit(str[i]))
            i++;
        denom = str + pos;
        denomn = i - pos;
        if (i >= end) {
            value = str;
            valuen = end;
            goto parsed;
        }
        pos = i;
    }
    value = str;
    valuen = pos;
    {
        size_t sstart = pos, i = pos;
        while (i < end && strchr("eEinumkKMGTP", str[i]) && str[i])
            i++;
        if (i >= end) {
            suf = str + sstart;
            sufn = end - sstart;
            goto parsed;
        }
        pos = i;
        if (str[pos] == '-' || str[pos] == '+')
            pos++;
        for (i = pos; i < end; i++)
            if (!is_digit(str[i])) {
                if (err)
                    *err = CEL_K8S_QUANTITY_ERR_FORMAT;
                return false;
            }
        suf = str + sstart;
        sufn = end - sstart;
    }
parsed:;
    int base, fmt;
    int32_t exponent;
    if (!suffix_interpret(suf, sufn, &base, &exponent, &fmt)) {
        if (err)
            *err = CEL_K8S_QUANTITY_ERR_SUFFIX;
        return false;
    }
    int32_t precision = 0, scale = 0;
    int64_t mantissa = 1;
    if (fmt != 1) {
        scale = exponent;
        precision = 18 - (int32_t)(numn + denomn);
    } else if (exponent >= 0 && denomn == 0) {
        mantissa = (int64_t)((uint64_t)mantissa << (uint64_t)exponent);
        precision = 15 - (int32_t)numn - (int32_t)((float)exponent * 3 / 10) - 1;
    } else {
        precision = -1;
    }
    if (precision >= 0) {
        scale -= (int32_t)denomn;
        if (scale >= -9) {
            /* strconv.ParseInt(num + denom) */
            uint64_t v = 0;
            bool ok = true;
            for (size_t i = 0; i < numn + denomn; i++) {
                char c = i < numn ? num[i] : denom[i - numn];
                if (v > (UINT64_C(9223372036854775807) - (uint64_t)(c - '0')) / 10) {
                    ok = false;
                    break;
                }
                v = v * 10 + (uint64_t)(c - '0');
            }
            if (!ok) {
                if (err)
                    *err = CEL_K8S_QUANTITY_ERR_NUMERIC;
                return false;
            }
            int64_t result;
            if (i64_mul((int64_t)v, mantissa, &result)) {
                out->value = positive ? result : -result;
                out->scale = scale;
                return true;
            }
        }
    }

    /* inf.Dec slow path: amount.SetString(value) */
    size_t i = 0;
    bool dneg = false;
    if (i < valuen && (value[i] == '+' || value[i] == '-'))
        dneg = value[i++] == '-';
    size_t ndig = 0, frac = 0;
    bool seen_dot = false;
    for (size_t j = i; j < valuen; j++) {
        if (is_digit(value[j])) {
            ndig++;
            if (seen_dot)
                frac++;
        } else if (value[j] == '.' && !seen_dot) {
            seen_dot = true;
        } else {
            ndig = 0;
            break;
        }
    }
    if (ndig == 0) {
        if (err)
            *err = CEL_K8S_QUANTITY_ERR_NUMERIC;
        return false;
    }
    /* digits of the unscaled value; room for the binary multiplication (2^60 < 10^19) */
    size_t cap = ndig + 20;
    uint8_t *d = kg_arena_alloc(a, cap);
    size_t k = cap - ndig;
    for (size_t j = i; j < valuen; j++)
        if (is_digit(value[j]))
            d[k++] = (uint8_t)(value[j] - '0');
    memset(d, 0, cap - ndig);
    int64_t dscale = (int64_t)frac;
    if (base == 10) {
        dscale -= exponent;
    } else {
        for (int32_t e = 0; e < exponent; e++) { /* multiply by 2 */
            int carry = 0;
            for (size_t j = cap; j-- > 0;) {
                int v = d[j] * 2 + carry;
                d[j] = (uint8_t)(v % 10);
                carry = v / 10;
            }
        }
    }
    size_t lead = 0;
    while (lead < cap && d[lead] == 0)
        lead++;
    qdec q = {dneg, (uint32_t)(cap - lead), d + lead, dscale};
    if (q.nd == 0)
        q.neg = false;
    bool sign_neg = q.neg;
    q.neg = false;
    if (q.nd != 0) {
        /* Round(amount, 9, RoundUp): rescale to scale 9, away from zero */
        if (q.scale < 9) {
            int64_t add = 9 - q.scale;
            if ((int64_t)q.nd + add > (int64_t)CEL_K8S_QUANTITY_MAX_DIGITS) {
                if (err)
                    *err = CEL_K8S_QUANTITY_ERR_NUMERIC;
                return false;
            }
            uint8_t *nd = kg_arena_alloc(a, (size_t)((int64_t)q.nd + add));
            memcpy(nd, q.d, q.nd);
            memset(nd + q.nd, 0, (size_t)add);
            q.d = nd;
            q.nd += (uint32_t)add;
        } else if (q.scale > 9) {
            int64_t drop = q.scale - 9;
            bool inexact = false;
            uint32_t keep = drop >= (int64_t)q.nd ? 0 : (uint32_t)((int64_t)q.nd - drop);
            for (uint32_t j = keep; j < q.nd; j++)
                if (q.d[j])
                    inexact = true;
            uint8_t *nd = kg_arena_alloc(a, (size_t)keep + 1);
            nd[0] = 0;
            memcpy(nd + 1, q.d, keep);
            if (inexact) {
                for (uint32_t j = keep + 1; j-- > 0;) {
                    if (nd[j] == 9) {
                        nd[j] = 0;
                    } else {
                        nd[j]++;
                        break;
                    }
                }
            }
            uint32_t l = 0;
            while (l < keep + 1 && nd[l] == 0)
                l++;
            q.d = nd + l;
            q.nd = keep + 1 - l;
        }
        q.scale = 9;
    }
    if (fmt == 1) {
        static const uint8_t maxd[19] = {9, 2, 2, 3, 3, 7, 2, 0, 3, 6, 8, 5, 4, 7, 7, 5, 8, 0, 7};
        qdec mx = {false, 19, maxd, 0};
        if (dec_cmp(&q, &mx) > 0)
            q = mx;
    }
    q.neg = q.nd ? sign_neg : false;
    set_dec(out, &q);
    return true;
}

cel_k8s_quantity cel_k8s_quantity_from_int(int64_t v)
{
    cel_k8s_quantity q;
    memset(&q, 0, sizeof q);
    q.value = v;
    return q;
}

int cel_k8s_quantity_sign(const cel_k8s_quantity *q)
{
    if (q->is_dec)
        return q->nd ? (q->neg ? -1 : 1) : 0;
    return (q->value > 0) - (q->value < 0);
}

int cel_k8s_quantity_cmp(const cel_k8s_quantity *x, const cel_k8s_quantity *y)
{
    if (!x->is_dec && !y->is_dec && x->scale == y->scale)
        return (x->value > y->value) - (x->value < y->value);
    /* exact comparison; conversion needs at most 20 digits each */
    uint8_t bx[24], by[24];
    qdec dx, dy;
    if (x->is_dec) {
        dx = (qdec){x->neg, x->nd, x->d, x->dscale};
    } else {
        uint64_t m = x->value < 0 ? (uint64_t)0 - (uint64_t)x->value : (uint64_t)x->value;
        int k = 24;
        while (m) {
            bx[--k] = (uint8_t)(m % 10);
            m /= 10;
        }
        dx = (qdec){x->value < 0, (uint32_t)(24 - k), bx + k, -(int64_t)x->scale};
    }
    if (y->is_dec) {
        dy = (qdec){y->neg, y->nd, y->d, y->dscale};
    } else {
        uint64_t m = y->value < 0 ? (uint64_t)0 - (uint64_t)y->value : (uint64_t)y->value;
        int k = 24;
        while (m) {
            by[--k] = (uint8_t)(m % 10);
            m /= 10;
        }
        dy = (qdec){y->value < 0, (uint32_t)(24 - k), by + k, -(int64_t)y->scale};
    }
    return dec_cmp(&dx, &dy);
}

static bool addsub(kg_arena *a, const cel_k8s_quantity *x, const cel_k8s_quantity *y, bool sub, cel_k8s_quantity *out)
{
    if (!x->is_dec && !y->is_dec) {
        int64_t v = x->value;
        int32_t s = x->scale;
        /* int64Amount.Sub(b) == Add({-b.value, b.scale}) with Go's wrapping negation */
        int64_t bv = sub ? (int64_t)((uint64_t)0 - (uint64_t)y->value) : y->value;
        if (amount_add(&v, &s, bv, y->scale)) {
            *out = cel_k8s_quantity_from_int(v);
            out->scale = s;
            return true;
        }
    }
    qdec dx = dec_of(a, x), dy = dec_of(a, y), r;
    if (!dec_add(a, &dx, &dy, sub, &r))
        return false;
    set_dec(out, &r);
    return true;
}

bool cel_k8s_quantity_add(kg_arena *a, const cel_k8s_quantity *x, const cel_k8s_quantity *y, cel_k8s_quantity *out)
{
    return addsub(a, x, y, false, out);
}

bool cel_k8s_quantity_sub(kg_arena *a, const cel_k8s_quantity *x, const cel_k8s_quantity *y, cel_k8s_quantity *out)
{
    return addsub(a, x, y, true, out);
}

bool cel_k8s_quantity_as_int64(const cel_k8s_quantity *q, int64_t *out)
{
    if (q->is_dec)
        return false;
    if (q->scale == 0) {
        *out = q->value;
        return true;
    }
    if (q->scale < 0)
        return false;
    return pos_scale_i64(q->value, q->scale, out);
}

double cel_k8s_go_pow10(int n)
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

double cel_k8s_quantity_as_approximate_float(const cel_k8s_quantity *q)
{
    double base;
    int64_t exponent;
    if (q->is_dec) {
        if (q->nd == 0) {
            base = 0;
        } else {
            char small[64];
            char *buf = q->nd < sizeof small ? small : malloc((size_t)q->nd + 1);
            if (!buf)
                return NAN;
            for (uint32_t i = 0; i < q->nd; i++)
                buf[i] = (char)('0' + q->d[i]);
            buf[q->nd] = '\0';
            base = strtod(buf, NULL); /* correctly rounded, like big.Float.Float64 */
            if (buf != small)
                free(buf);
            if (q->neg)
                base = -base;
        }
        exponent = -(int64_t)q->dscale;
    } else {
        base = (double)q->value;
        exponent = q->scale;
    }
    if (exponent == 0)
        return base;
    if (exponent > 400)
        exponent = 400;
    if (exponent < -400)
        exponent = -400;
    return base * cel_k8s_go_pow10((int)exponent);
}
