/* Warnings of one request (k8s.io/apiserver pkg/warning and endpoints/filters/warning.go): the texts a client sees
 * as `Warning: 299 - "<text>"` headers (kubectl prints them as "Warning: <text>").
 *
 * One list per request, shared by every step that may warn: field validation (unknown / duplicate fields), the
 * admission plugins, policies (validationActions Warn) and webhooks. Order of first addition is kept; an exact
 * duplicate is dropped. Bounded as upstream's recorder bounds it, so no plugin, policy or webhook can grow a response
 * without bound: at most KG_WARNINGS_MAX_RUNES characters (UTF-8 code points) in total; when a warning would go past
 * that, every warning kept so far and every later one is cut to KG_WARNINGS_ITEM_RUNES characters, and what still
 * does not fit is dropped (counted in `dropped`).
 *
 * Not thread-safe: one thread adds at a time. Code that fans out work to other threads (validating webhooks run in
 * parallel) collects their warnings per thread and adds them here from the calling thread, in a fixed order. */
#ifndef KG_ADMISSION_WARNINGS_H
#define KG_ADMISSION_WARNINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

#define KG_WARNINGS_MAX_RUNES 4096 /* upstream truncateAtTotalRunes */
#define KG_WARNINGS_ITEM_RUNES 256 /* upstream truncateItemRunes */

typedef struct kg_warnings {
    kg_arena *arena; /* texts are copied here */
    const char **items;
    size_t n, cap;
    const char **seen; /* every text offered (before truncation), for de-duplication */
    size_t nseen, seen_cap;
    size_t runes;    /* total characters of items */
    bool truncating; /* the total limit was reached once: items are cut to KG_WARNINGS_ITEM_RUNES */
    size_t dropped;  /* warnings that did not fit */
} kg_warnings;

void kg_warnings_init(kg_warnings *w, kg_arena *a);
/* Add text (copied) unless empty or already offered; cut or dropped as above. Returns whether it was kept. */
bool kg_warnings_add(kg_warnings *w, const char *text);
/* printf-style kg_warnings_add (texts longer than 16 KiB are cut before counting). */
bool kg_warnings_addf(kg_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
