/* quantity.h - the CEL quantity library's view of resource.Quantity.
 *
 * There is one implementation of Kubernetes quantities, meta/quantity (k8s.io/apimachinery pkg/api/resource):
 * parsing, exact comparison and arithmetic, AsInt64, AsApproximateFloat64. A policy's quantity('1Gi') and the
 * LimitRanger/ResourceQuota plugins therefore compare with the same code. This header only adapts that API to the
 * calling conventions of the CEL bindings in k8s_lib.c (arena argument, static error text, result out-parameter).
 *
 * Limits inherited from meta/quantity: magnitudes of about 380 significant digits (a sum or difference needing
 * more fails, reported as "quantity arithmetic result too large"); exponent suffixes beyond +-(2^31-1) are
 * rejected with "unable to parse quantity's suffix". */
#ifndef KG_CEL_K8S_QUANTITY_H
#define KG_CEL_K8S_QUANTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "meta/quantity.h"

typedef kg_quantity cel_k8s_quantity;

#define CEL_K8S_QUANTITY_ERR_FORMAT KG_QUANTITY_ERR_FORMAT
#define CEL_K8S_QUANTITY_ERR_NUMERIC KG_QUANTITY_ERR_NUMERIC
#define CEL_K8S_QUANTITY_ERR_SUFFIX KG_QUANTITY_ERR_SUFFIX

/* resource.ParseQuantity. *err (optional) receives one of the three texts above (static strings). */
static inline bool cel_k8s_quantity_parse(kg_arena *a, const char *s, size_t n, cel_k8s_quantity *out, const char **err)
{
    (void)a;
    kg_error e = {0};
    if (kg_quantity_parse(s, n, out, &e))
        return true;
    if (err)
        *err = !strcmp(e.msg, KG_QUANTITY_ERR_SUFFIX)    ? KG_QUANTITY_ERR_SUFFIX
               : !strcmp(e.msg, KG_QUANTITY_ERR_NUMERIC) ? KG_QUANTITY_ERR_NUMERIC
                                                         : KG_QUANTITY_ERR_FORMAT;
    return false;
}

/* resource.NewQuantity(v, DecimalExponent). */
static inline cel_k8s_quantity cel_k8s_quantity_from_int(int64_t v)
{
    return kg_quantity_new(v, KG_QFMT_DECIMAL_EXPONENT);
}

/* Cmp: -1, 0, 1 (exact). */
static inline int cel_k8s_quantity_cmp(const cel_k8s_quantity *x, const cel_k8s_quantity *y)
{
    return kg_quantity_cmp(x, y);
}

static inline int cel_k8s_quantity_sign(const cel_k8s_quantity *q)
{
    return kg_quantity_sign(q);
}

/* x.Add(y) / x.Sub(y) into *out (exact; out may alias x or y). False when the result exceeds meta/quantity's
 * capacity. */
static inline bool cel_k8s_quantity_add(kg_arena *a, const cel_k8s_quantity *x, const cel_k8s_quantity *y,
                                        cel_k8s_quantity *out)
{
    (void)a;
    cel_k8s_quantity r, ycopy;
    kg_quantity_copy(&r, x);
    kg_quantity_copy(&ycopy, y);
    if (!kg_quantity_add(&r, &ycopy))
        return false;
    kg_quantity_copy(out, &r);
    return true;
}

static inline bool cel_k8s_quantity_sub(kg_arena *a, const cel_k8s_quantity *x, const cel_k8s_quantity *y,
                                        cel_k8s_quantity *out)
{
    (void)a;
    cel_k8s_quantity r, ycopy;
    kg_quantity_copy(&r, x);
    kg_quantity_copy(&ycopy, y);
    if (!kg_quantity_sub(&r, &ycopy))
        return false;
    kg_quantity_copy(out, &r);
    return true;
}

/* AsInt64: false for the big-decimal form and for int64 amounts with a negative scale or overflow. */
static inline bool cel_k8s_quantity_as_int64(const cel_k8s_quantity *q, int64_t *out)
{
    return kg_quantity_as_int64(q, out);
}

/* AsApproximateFloat64. */
static inline double cel_k8s_quantity_as_approximate_float(const cel_k8s_quantity *q)
{
    return kg_quantity_as_float64(q);
}

/* Go's math.Pow10. */
static inline double cel_k8s_go_pow10(int n)
{
    return kg_quantity_go_pow10(n);
}

#endif
