/* Helpers shared by the built-in plugins (internal to src/admission/plugins/): request matching, tolerations
 * (k8s.io/kubernetes pkg/util/tolerations), default-class selection, namespace lookups. */
#ifndef KG_ADMISSION_PLUGIN_UTIL_H
#define KG_ADMISSION_PLUGIN_UTIL_H

#include <stdbool.h>

#include "admission/plugin.h"

/* resource == group/resource and no subresource */
bool kg_admission_pu_is(const kg_admission_attributes *a, const char *group, const char *resource);
/* obj is a JSON object whose `kind` (when present) is kind */
bool kg_admission_pu_obj_kind(const kg_json *obj, const char *kind);
/* Plain Go error (500, reason ""). */
kg_status *kg_admission_pu_plain(kg_arena *ar, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Array member key of obj, created when absent (or not an array). */
kg_json *kg_admission_pu_array(kg_arena *ar, kg_json *obj, const char *key);
/* String field or "" */
const char *kg_admission_pu_str(const kg_json *obj, const char *key);

/* Tolerations: field-wise equality (Go struct semantics: absent == ""), isSuperset, MergeTolerations. */
bool kg_admission_pu_tol_equal(const kg_json *x, const kg_json *y);
bool kg_admission_pu_tol_superset(const kg_json *ss, const kg_json *t);
/* MergeTolerations(first, second) → new array (items shared, not cloned); either may be NULL. */
kg_json *kg_admission_pu_merge_tolerations(kg_arena *ar, const kg_json *first, const kg_json *second);
/* A toleration {key, operator, effect} (+ tolerationSeconds when secs >= 0). */
kg_json *kg_admission_pu_toleration(kg_arena *ar, const char *key, const char *op, const char *effect, int64_t secs);

/* Among items of list whose annotation ann1 or ann2 (may be NULL) is "true": newest creationTimestamp, ties by
 * name ascending. NULL when none. */
const kg_json *kg_admission_pu_default_class(const kg_json *list, const char *ann1, const char *ann2);

/* Namespace lookup: cache, then live GET on NotFound. Returns NULL with *st set on failure: 404 NotFound passes
 * through, other failures → 500 InternalError. */
const kg_json *kg_admission_pu_get_namespace(const kg_admission_services *svc, kg_arena *ar, const char *ns, kg_status **st);

/* Go's %q for a string (ASCII printable kept, others escaped). */
char *kg_admission_pu_quote(kg_arena *ar, const char *s);

/* labels.ConvertSelectorToLabelsMap: "k1=v1,k2=v2" → JSON object (keys trimmed, validated); "" → {}. NULL with
 * *errmsg set on failure (upstream texts: `invalid selector: [a b c]`, key/value validation errors). */
kg_json *kg_admission_pu_selector_map(kg_arena *ar, const char *s, const char **errmsg);
/* labels.Conflicts: some key present in both with different values. */
bool kg_admission_pu_labels_conflict(const kg_json *x, const kg_json *y);
/* A set of strings for membership tests: add, then seal (sorts), then has (binary search). */
typedef struct kg_admission_pu_strset {
    const char **v;
    size_t n, cap;
} kg_admission_pu_strset;
void kg_admission_pu_strset_add(kg_arena *ar, kg_admission_pu_strset *s, const char *str);
void kg_admission_pu_strset_seal(kg_admission_pu_strset *s);
bool kg_admission_pu_strset_has(const kg_admission_pu_strset *s, const char *str);
#endif
