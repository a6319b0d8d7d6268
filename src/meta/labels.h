/* Label selectors (k8s.io/apimachinery/pkg/labels and metav1.LabelSelector); field selectors are in fields.h.
 * Parsing follows the upstream lexer/parser exactly, including
 * its error texts ("unable to parse requirement: ...", "found 'x', expected: ...").
 * Everything is arena-allocated. */
#ifndef KG_META_LABELS_H
#define KG_META_LABELS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"
#include "meta/status.h"

typedef enum kg_label_op {
    KG_LOP_DOES_NOT_EXIST, /* "!" */
    KG_LOP_EQUALS,         /* "=" */
    KG_LOP_DOUBLE_EQUALS,  /* "==" */
    KG_LOP_IN,             /* "in" */
    KG_LOP_NOT_EQUALS,     /* "!=" */
    KG_LOP_NOT_IN,         /* "notin" */
    KG_LOP_EXISTS,         /* "exists" */
    KG_LOP_GT,             /* "gt" */
    KG_LOP_LT,             /* "lt" */
} kg_label_op;

typedef struct kg_label_req {
    const char *key;
    kg_label_op op;
    const char **values; /* parser: sorted, unique; LabelSelector: as given */
    size_t nvalues;
    size_t order; /* position before sorting by key (ties keep input order) */
} kg_label_req;

typedef struct kg_label_selector {
    kg_label_req *reqs; /* sorted by key */
    size_t n;
    bool nothing; /* labels.Nothing(): matches no object (nil LabelSelector) */
} kg_label_selector;

/* labels.Parse: "a=b,c!=d,e in (x,y),!f,g,h>1". "" is the empty selector (matches everything). */
bool kg_labels_parse(kg_arena *a, const char *s, kg_label_selector *out, kg_error *err);
/* labels.NewRequirement validation: returns false with the aggregated field errors text in err. */
bool kg_label_req_new(kg_arena *a, const char *key, kg_label_op op, const char *const *values, size_t nvalues,
                      kg_label_req *out, kg_error *err);

/* Selector.Matches against a labels JSON object (NULL/non-object = no labels). */
bool kg_labels_matches(const kg_label_selector *sel, const kg_json *labels);
bool kg_label_req_matches(const kg_label_req *r, const kg_json *labels);
/* Matches obj.metadata.labels. */
bool kg_labels_matches_object(const kg_label_selector *sel, const kg_json *obj);
/* Selector.Empty(): no requirements (and not Nothing). */
static inline bool kg_labels_empty(const kg_label_selector *sel)
{
    return !sel->nothing && sel->n == 0;
}
/* Selector.String(): requirements joined by ','; multi-value sets printed sorted ("" for Nothing/Everything). */
char *kg_labels_string(kg_arena *a, const kg_label_selector *sel);
const char *kg_label_op_string(kg_label_op op);
/* RequiresExactMatch: the single value required by the first requirement on key (=, ==, or in with one value). */
const char *kg_labels_requires_exact_match(const kg_label_selector *sel, const char *key);

/* labels.SelectorFromSet: "k=v" requirements for every entry of a labels JSON object, sorted by key, not validated
 * (an empty or missing set selects everything). */
void kg_labels_from_set(kg_arena *a, const kg_json *set, kg_label_selector *out);

/* metav1.LabelSelectorAsSelector over a LabelSelector JSON object ({matchLabels, matchExpressions}):
 * NULL / JSON null -> Nothing; {} -> Everything; unknown operator -> "\"Foo\" is not a valid label selector
 * operator"; invalid keys/values -> NewRequirement's error text. */
bool kg_label_selector_from_json(kg_arena *a, const kg_json *ls, kg_label_selector *out, kg_error *err);
/* metav1validation.ValidateLabelSelector: field errors under fld_path ("spec.selector"). */
void kg_validate_label_selector(kg_arena *a, const kg_json *ls, bool allow_invalid_label_value_in_selector,
                                const char *fld_path, kg_field_errors *errs);

#endif
