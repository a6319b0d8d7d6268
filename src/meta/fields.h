/* Field selectors (k8s.io/apimachinery/pkg/fields): "metadata.name=x,metadata.namespace!=y,spec.nodeName==n".
 * Values may escape '\\', ',' and '=' with a backslash. Errors follow upstream:
 *   invalid selector: '<selector>'; can't understand '<term>'
 *   invalid field selector: invalid escape sequence: \x
 *   invalid field selector: unescaped character in value: 61      (Go prints the rune's number) */
#ifndef KG_META_FIELDS_H
#define KG_META_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"

typedef struct kg_field_req {
    const char *field;
    const char *value; /* unescaped */
    bool not_equal;    /* "!=" (otherwise "=" / "==") */
} kg_field_req;

typedef struct kg_field_selector {
    kg_field_req *reqs; /* in the order of the sorted raw terms, as upstream */
    size_t n;
} kg_field_selector;

/* fields.ParseSelector. "" selects everything. */
bool kg_fields_parse(kg_arena *a, const char *s, kg_field_selector *out, kg_error *err);
/* String(): "field=value" / "field!=value" (value re-escaped) joined by ','. */
char *kg_fields_string(kg_arena *a, const kg_field_selector *sel);
static inline bool kg_fields_empty(const kg_field_selector *sel)
{
    return sel->n == 0;
}
/* Requirements on one field: RequiresExactMatch(field) -> the value of an "=" term, or NULL. */
const char *kg_fields_requires_exact_match(const kg_field_selector *sel, const char *field);

/* Field values come from a lookup callback (the per-resource field set of the API server)... */
typedef const char *(*kg_field_getter)(void *ctx, const char *field);
bool kg_fields_matches_fn(const kg_field_selector *sel, kg_field_getter get, void *ctx);
/* ...or from an object by dotted path (metadata.name, spec.nodeName, status.phase; booleans and integers as
 * their text, missing as ""). Out-of-object fields such as "metadata.namespace" for cluster objects read as "". */
bool kg_fields_matches_object(kg_arena *a, const kg_field_selector *sel, const kg_json *obj);

/* fields.EscapeValue / UnescapeValue. */
char *kg_fields_escape_value(kg_arena *a, const char *s);
bool kg_fields_unescape_value(kg_arena *a, const char *s, char **out, kg_error *err);

#endif
