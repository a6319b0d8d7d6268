/* ResourceList arithmetic (corev1.ResourceList, k8s.io/apiserver pkg/quota/v1 resources.go): small maps from resource
 * names to quantities, with upstream's Add, Subtract, Max, Mask, LessThanOrEqual, Equals, IsNegative, RemoveZeros
 * and the "name=value,..." pretty form. The one implementation used by LimitRanger and ResourceQuota.
 *
 * A list keeps its entries in insertion order (lookups are linear: lists have a handful of entries) and the names by
 * reference (string literals, keys of a parsed object, or arena strings that outlive the list). Entries live in the
 * arena given to the functions that grow a list; a zeroed kg_rlist is the empty list. Functions that take a source
 * list never modify it, and a destination may not be one of its sources unless said otherwise. */
#ifndef KG_META_RESOURCELIST_H
#define KG_META_RESOURCELIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "json/json.h"
#include "meta/quantity.h"

typedef struct kg_rlist_entry {
    const char *name;
    kg_quantity q;
} kg_rlist_entry;

typedef struct kg_rlist {
    kg_rlist_entry *e;
    size_t n, cap;
} kg_rlist;

/* The entry of name, or NULL. */
kg_rlist_entry *kg_rlist_find(const kg_rlist *l, const char *name);
/* The quantity of name, or NULL. */
static inline const kg_quantity *kg_rlist_get(const kg_rlist *l, const char *name)
{
    const kg_rlist_entry *e = kg_rlist_find(l, name);
    return e ? &e->q : NULL;
}
/* l[name] = q (replaces an existing entry in place, else appends). */
void kg_rlist_set(kg_arena *a, kg_rlist *l, const char *name, const kg_quantity *q);
/* l[name] = v as a DecimalSI quantity. */
void kg_rlist_set_int(kg_arena *a, kg_rlist *l, const char *name, int64_t v);

/* A ResourceList JSON object (values: quantity strings or numbers) into *out, in member order; values that do not
 * parse are skipped (API validation rejects them before admission sees them). A non-object gives the empty list. */
void kg_rlist_from_json(kg_arena *a, const kg_json *obj, kg_rlist *out);
/* The list as a JSON object of canonical quantity strings, keys sorted (sorts l). */
kg_json *kg_rlist_to_json(kg_arena *a, kg_rlist *l);
/* upstream prettyPrint: "k=v" by name, comma-joined ("" when empty) (sorts l). */
char *kg_rlist_pretty(kg_arena *a, kg_rlist *l);
/* Sort the entries by name. */
void kg_rlist_sort(kg_rlist *l);

/* quota.Add in place: dst[k] += src[k] for every k of src (missing entries start at zero). */
void kg_rlist_add(kg_arena *a, kg_rlist *dst, const kg_rlist *src);
/* quota.Subtract in place: dst[k] -= src[k] for every k of src (missing entries start at zero, so they go
 * negative). */
void kg_rlist_sub(kg_arena *a, kg_rlist *dst, const kg_rlist *src);
/* quota.SubtractWithNonNegativeResult: *out = the entries of x minus y's that stay positive (x's order). */
void kg_rlist_sub_positive(kg_arena *a, const kg_rlist *x, const kg_rlist *y, kg_rlist *out);
/* quota.Max in place: dst[k] = max(dst[k], src[k]) for every k of src (missing entries take src's). */
void kg_rlist_max(kg_arena *a, kg_rlist *dst, const kg_rlist *src);
/* quota.Mask: *out = the entries of l whose names are among names[0..n) (l's order). */
void kg_rlist_mask(kg_arena *a, const kg_rlist *l, const char *const *names, size_t n, kg_rlist *out);
/* quota.Mask with the names of another list: *out = the entries of l whose names are in keys. */
void kg_rlist_mask_keys(kg_arena *a, const kg_rlist *l, const kg_rlist *keys, kg_rlist *out);
/* quota.RemoveZeros: *out = the non-zero entries of l. When l has no zero entry, *out = *l (shares its entries). */
void kg_rlist_remove_zeros(kg_arena *a, const kg_rlist *l, kg_rlist *out);

/* quota.LessThanOrEqual: whether x[k] <= y[k] for every k present in both. The names that exceed are appended to
 * *exceeded (arena array, y's order; may be NULL when only the answer is wanted; *nexceeded counts them). */
bool kg_rlist_less_or_equal(kg_arena *a, const kg_rlist *x, const kg_rlist *y, const char ***exceeded,
                            size_t *nexceeded);
/* quota.Equals: the same names with equal quantities (by value, whatever the order). */
bool kg_rlist_equal(const kg_rlist *x, const kg_rlist *y);
/* The names of the entries whose sign compares as sign_cmp (-1: negative, 1: positive) into an arena array
 * (quota.IsNegative when sign_cmp is -1); returns how many. */
size_t kg_rlist_names_with_sign(kg_arena *a, const kg_rlist *l, int sign_cmp, const char ***out);
/* quota.IsZero: every entry is zero (true for the empty list). */
bool kg_rlist_is_zero(const kg_rlist *l);

#endif
