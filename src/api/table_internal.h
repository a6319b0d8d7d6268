/* Shared by the server-side printers (table.c and table_more.c): column definitions, the per-kind printer
 * description, and the cell formatters upstream's pkg/printers/internalversion uses for several kinds. */
#ifndef KG_API_TABLE_INTERNAL_H
#define KG_API_TABLE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "api/resources.h"
#include "base/arena.h"
#include "json/json.h"

/* One metav1.TableColumnDefinition. */
typedef struct kg_table_col {
    const char *name, *type, *format, *desc;
    int priority;
} kg_table_col;

#define KG_TABLE_MAX_COLS 12

/* The columns of one resource (group, plural); cols ends at the first NULL. */
typedef struct kg_table_printer {
    const char *group, *plural;
    const kg_table_col *cols[KG_TABLE_MAX_COLS];
} kg_table_printer;

/* The printers of table_more.c: the printer for r, or NULL when table_more.c does not print r. */
const kg_table_printer *kg_table_more_printer(const kg_resource *r);
/* Appends every cell of o's row (the name included) when table_more.c prints r; false otherwise. */
bool kg_table_more_cells(kg_arena *a, const kg_resource *r, const kg_json *o, kg_json *cells, int64_t now);

/* labels.FormatLabels: "k=v,..." sorted by key, "<none>" when empty. */
char *kg_table_format_labels(kg_arena *a, const kg_json *labels);
/* metav1.LabelSelectorAsSelector(sel).String(): "" for an empty or absent selector, "<error>" when invalid. */
char *kg_table_selector(kg_arena *a, const kg_json *sel);
/* metav1.FormatLabelSelector: kg_table_selector with "<none>" for "". */
char *kg_table_format_selector(kg_arena *a, const kg_json *sel);
/* translateTimestampSince of an RFC 3339 (or MicroTime) string: "<unknown>" when absent or unparsable. */
char *kg_table_since(kg_arena *a, const char *ts, int64_t now);
/* Seconds since the epoch of an RFC 3339 time, -1 when absent or unparsable. */
int64_t kg_table_time(const char *ts);

#endif
