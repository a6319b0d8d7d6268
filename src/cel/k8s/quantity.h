/* quantity.h - Kubernetes resource.Quantity as the CEL quantity library needs it (k8s.io/apimachinery
 * pkg/api/resource): ParseQuantity with its fast int64 path and inf.Dec slow path (nano round-up, BinarySI cap),
 * exact Cmp/Add/Sub, AsInt64 (representation-dependent, as upstream), AsApproximateFloat64.
 * src/meta/quantity.h had not landed when this was written, so the arithmetic CEL needs lives here. */
#ifndef KG_CEL_K8S_QUANTITY_H
#define KG_CEL_K8S_QUANTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"

typedef struct cel_k8s_quantity {
    bool is_dec;   /* false: int64Amount {value, scale}; true: inf.Dec {neg, digits, dscale} */
    int64_t value; /* int64Amount: value * 10^scale */
    int32_t scale;
    bool neg; /* inf.Dec: sign, |unscaled| digits (MSB first, no leading zeros; nd == 0 is zero) */
    uint32_t nd;
    const uint8_t *d;
    int32_t dscale; /* inf.Dec value = unscaled * 10^-dscale */
} cel_k8s_quantity;

#define CEL_K8S_QUANTITY_ERR_FORMAT                                                                                    \
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define CEL_K8S_QUANTITY_ERR_NUMERIC "unable to parse numeric part of quantity"
#define CEL_K8S_QUANTITY_ERR_SUFFIX "unable to parse quantity's suffix"

/* resource.ParseQuantity. *err receives one of the three texts above (static strings). */
bool cel_k8s_quantity_parse(kg_arena *a, const char *s, size_t n, cel_k8s_quantity *out, const char **err);
/* resource.NewQuantity(v, DecimalExponent). */
cel_k8s_quantity cel_k8s_quantity_from_int(int64_t v);
/* Cmp: -1, 0, 1 (exact). */
int cel_k8s_quantity_cmp(const cel_k8s_quantity *x, const cel_k8s_quantity *y);
int cel_k8s_quantity_sign(const cel_k8s_quantity *q);
/* q.Add(y) / q.Sub(y) into *out (exact). Returns false only when the exact result would need more than
 * CEL_K8S_QUANTITY_MAX_DIGITS digits (absurd exponents; Go would allocate gigabytes). */
#define CEL_K8S_QUANTITY_MAX_DIGITS (1u << 20)
bool cel_k8s_quantity_add(kg_arena *a, const cel_k8s_quantity *x, const cel_k8s_quantity *y, cel_k8s_quantity *out);
bool cel_k8s_quantity_sub(kg_arena *a, const cel_k8s_quantity *x, const cel_k8s_quantity *y, cel_k8s_quantity *out);
/* AsInt64: false for the inf.Dec form and for int64Amounts with negative scale or overflow. */
bool cel_k8s_quantity_as_int64(const cel_k8s_quantity *q, int64_t *out);
double cel_k8s_quantity_as_approximate_float(const cel_k8s_quantity *q);
/* Go's math.Pow10 (same tables, so results match bit for bit). */
double cel_k8s_go_pow10(int n);

#endif
