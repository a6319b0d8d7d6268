/* Warnings of one request (k8s.io/apiserver pkg/warning): the texts a client sees as `Warning: 299 - "<text>"`
 * headers (kubectl prints them as "Warning: <text>").
 *
 * One list per request, shared by every step that may warn: field validation (unknown / duplicate fields), the
 * admission plugins, policies (validationActions Warn) and webhooks. Order of first addition is kept; an exact
 * duplicate is dropped (upstream's recorder de-duplicates the same way). The list is bounded: at most
 * KG_WARNINGS_MAX entries and KG_WARNINGS_MAX_BYTES bytes of text in total; what does not fit is dropped and
 * counted in `dropped`, so a hostile webhook or policy cannot grow a response without bound.
 *
 * Not thread-safe: one thread adds at a time. Code that fans out work to other threads (validating webhooks run in
 * parallel) collects their warnings per thread and adds them here from the calling thread, in a fixed order. */
#ifndef KG_ADMISSION_WARNINGS_H
#define KG_ADMISSION_WARNINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

#define KG_WARNINGS_MAX 64
#define KG_WARNINGS_MAX_BYTES 4096

typedef struct kg_warnings {
    kg_arena *arena; /* texts are copied here */
    const char *items[KG_WARNINGS_MAX];
    size_t n;
    size_t bytes;   /* total text length of items */
    size_t dropped; /* warnings that did not fit */
} kg_warnings;

void kg_warnings_init(kg_warnings *w, kg_arena *a);
/* Add text (copied) unless empty, already present or over the bounds. Returns whether it was added. */
bool kg_warnings_add(kg_warnings *w, const char *text);
/* printf-style kg_warnings_add. */
bool kg_warnings_addf(kg_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
