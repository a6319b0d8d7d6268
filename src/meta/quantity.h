/* resource.Quantity (k8s.io/apimachinery/pkg/api/resource): exact fixed-point quantities.
 *
 * A quantity is held either as an int64 mantissa with a base-10 exponent (the upstream int64Amount fast path) or,
 * when that does not fit, as an arbitrary-size decimal (upstream inf.Dec; here a fixed-capacity magnitude of
 * KG_QBIG_LIMBS 32-bit limbs, about 380 decimal digits, plus an int32 exponent). Parsing, canonical String(),
 * comparisons and arithmetic follow upstream, including its rounding rules: parsing rounds values below 1n up
 * (away from zero) to 1n; BinarySI values are capped at 2^63-1; String() picks the largest suffix that loses no
 * precision (1.5Gi -> 1536Mi, 0.1 -> 100m, 1e3 stays 1e3, 1000 -> 1k); a string that was already canonical when
 * parsed is returned verbatim. Value()/MilliValue()/ScaledValue() round away from zero.
 *
 * Where upstream v1.33 silently corrupts values (a DecimalSI value beyond "E" or below "n" printed without its
 * magnitude, a BinarySI value beyond "Ei"), the canonical form falls back to exponent notation as newer upstream
 * does ("1e21", "10e69"); exponents outside +-(2^31-1) are rejected ("unable to parse quantity's suffix").
 *
 * kg_quantity is a plain value (no heap memory): copy it with '='. */
#ifndef KG_META_QUANTITY_H
#define KG_META_QUANTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "json/json.h"

#define KG_QBIG_LIMBS 40

typedef enum kg_qformat {
    KG_QFMT_DECIMAL_SI = 0,   /* "DecimalSI": 12M, 100m */
    KG_QFMT_BINARY_SI,        /* "BinarySI": 12Mi */
    KG_QFMT_DECIMAL_EXPONENT, /* "DecimalExponent": 12e6 */
} kg_qformat;

/* Scales (powers of ten) for kg_quantity_scaled_value / new_scaled. */
enum {
    KG_SCALE_NANO = -9,
    KG_SCALE_MICRO = -6,
    KG_SCALE_MILLI = -3,
    KG_SCALE_KILO = 3,
    KG_SCALE_MEGA = 6,
    KG_SCALE_GIGA = 9,
    KG_SCALE_TERA = 12,
    KG_SCALE_PETA = 15,
    KG_SCALE_EXA = 18
};

typedef struct kg_qbig {
    uint32_t n;                /* limbs in use; 0 means zero */
    uint32_t d[KG_QBIG_LIMBS]; /* little-endian magnitude */
} kg_qbig;

typedef struct kg_quantity {
    kg_qformat format;
    bool is_dec; /* false: i_value * 10^i_scale; true: (d_neg ? -1 : 1) * d_mag * 10^d_exp */
    bool d_neg;
    int32_t i_scale;
    int64_t i_value;
    int32_t d_exp;
    kg_qbig d_mag;
    char s[40]; /* the parsed text when it was already canonical (upstream's cached string), else "" */
} kg_quantity;

/* *dst = *src without the unused limbs: an int64 quantity (the common case) copies its header and cached text
 * (~90 bytes) instead of the whole struct (~230 bytes). */
static inline void kg_quantity_copy(kg_quantity *dst, const kg_quantity *src)
{
    if (src->is_dec) {
        *dst = *src;
        return;
    }
    __builtin_memcpy(dst, src, offsetof(kg_quantity, d_mag));
    dst->d_mag.n = 0;
    __builtin_memcpy(dst->s, src->s, sizeof dst->s);
}

/* Upstream error texts. */
#define KG_QUANTITY_ERR_FORMAT                                                                                         \
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define KG_QUANTITY_ERR_NUMERIC "unable to parse numeric part of quantity"
#define KG_QUANTITY_ERR_SUFFIX "unable to parse quantity's suffix"

/* ParseQuantity. On failure err->msg is one of the three texts above (KG_EINVAL). */
bool kg_quantity_parse(const char *s, size_t n, kg_quantity *out, kg_error *err);
static inline bool kg_quantity_parse_cstr(const char *s, kg_quantity *out, kg_error *err);
/* The parser without its fast path for the common shapes (tests compare the two). */
bool kg_quantity_parse_general(const char *s, size_t n, kg_quantity *out, kg_error *err);
/* Parse a JSON value as UnmarshalJSON does: a string (trimmed of ASCII whitespace) or a number's text. */
bool kg_quantity_from_json(const kg_json *v, kg_quantity *out, kg_error *err);

/* NewQuantity / NewMilliQuantity / NewScaledQuantity (DecimalSI) and the Set* variants. */
kg_quantity kg_quantity_new(int64_t value, kg_qformat format);
kg_quantity kg_quantity_new_milli(int64_t value, kg_qformat format);
kg_quantity kg_quantity_new_scaled(int64_t value, int32_t scale);
static inline kg_quantity kg_quantity_zero(void)
{
    return kg_quantity_new(0, KG_QFMT_DECIMAL_SI);
}
void kg_quantity_set_scaled(kg_quantity *q, int64_t value, int32_t scale);

/* String(): canonical form. The buffer form appends; the arena form allocates. */
void kg_quantity_write(kg_buf *out, const kg_quantity *q);
char *kg_quantity_string(kg_arena *a, const kg_quantity *q);
/* MarshalJSON: the canonical form as a JSON string node. */
kg_json *kg_quantity_to_json(kg_arena *a, const kg_quantity *q);
/* Canonical form into a caller buffer; returns the length needed (like snprintf). 64 bytes suffice for any value
 * below ~10^50; use kg_quantity_write for arbitrary sizes. */
size_t kg_quantity_format(const kg_quantity *q, char *buf, size_t cap);

/* Value() = ScaledValue(0), MilliValue() = ScaledValue(-3): ceil(|q| / 10^scale) with q's sign (rounded away from
 * zero), saturating at INT64_MIN/INT64_MAX. */
int64_t kg_quantity_scaled_value(const kg_quantity *q, int32_t scale);
static inline int64_t kg_quantity_value(const kg_quantity *q)
{
    return kg_quantity_scaled_value(q, 0);
}
static inline int64_t kg_quantity_milli_value(const kg_quantity *q)
{
    return kg_quantity_scaled_value(q, -3);
}
/* resource.MaxMilliValue: the largest whole number whose milli-value fits an int64 (LimitRanger switches from
 * milli-units to whole units above it). */
#define KG_QUANTITY_MAX_MILLI_VALUE (INT64_MAX / 1000)

/* AsInt64(): the value when held as an int64 amount with scale >= 0 that fits; false otherwise (always false for
 * the big-decimal form, as upstream). */
bool kg_quantity_as_int64(const kg_quantity *q, int64_t *out);
/* AsApproximateFloat64(): the unscaled value as the nearest double times math.Pow10(exponent), bit for bit as
 * upstream (also what the CEL quantity library's asApproximateFloat() returns). */
double kg_quantity_as_float64(const kg_quantity *q);
/* Go's math.Pow10 (same tables and products, so results match Go's bit for bit): +Inf above 308, 0 below -323. */
double kg_quantity_go_pow10(int n);

bool kg_quantity_is_zero(const kg_quantity *q);
int kg_quantity_sign(const kg_quantity *q);
/* Cmp: -1, 0, 1 (exact, across formats and representations). */
int kg_quantity_cmp(const kg_quantity *x, const kg_quantity *y);
int kg_quantity_cmp_int64(const kg_quantity *x, int64_t y);
static inline bool kg_quantity_equal(const kg_quantity *x, const kg_quantity *y)
{
    return kg_quantity_cmp(x, y) == 0;
}

/* Add/Sub: in place; a zero receiver takes y's format. Returns false only if the result exceeds the big-decimal
 * capacity (q is then unchanged). */
bool kg_quantity_add(kg_quantity *q, const kg_quantity *y);
bool kg_quantity_sub(kg_quantity *q, const kg_quantity *y);
void kg_quantity_neg(kg_quantity *q);
/* Mul by an integer; returns upstream's "exact" flag (false when the result no longer fits an int64 mantissa). */
bool kg_quantity_mul(kg_quantity *q, int64_t y);
/* RoundUp(scale): round away from zero to a multiple of 10^scale; returns false if precision was lost. */
bool kg_quantity_round_up(kg_quantity *q, int32_t scale);

/* ToDec(): switch to the big-decimal representation (AsInt64 then reports false, as upstream). */
void kg_quantity_to_dec(kg_quantity *q);

const char *kg_qformat_name(kg_qformat f); /* "DecimalSI", "BinarySI", "DecimalExponent" */

static inline bool kg_quantity_parse_cstr(const char *s, kg_quantity *out, kg_error *err)
{
    size_t n = 0;
    while (s[n])
        n++;
    return kg_quantity_parse(s, n, out, err);
}

#endif
