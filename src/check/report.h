/* The outputs of `kgate check`: what each input object got, in input order.
 *   text: one line per object, "<file>:<line> (doc N): <Kind>/<name> (<namespace>) admitted" or
 *         "... denied: <message>" (the Status message serve answers with) or "... error: <message>", each warning
 *         on a line of its own ("  warning: <text>"), then a summary line;
 *   json: {"results":[{file, document, item, line, kind, namespace, name, allowed, code, reason, message, warnings,
 *         patch}], "summary":{total, admitted, denied, errors}}; patch is the RFC 6902 patch from the object as
 *         submitted to the object as admitted, with the server-set fields removed (kg_check_strip_server_fields),
 *         or null when the object was not admitted;
 *   yaml: the admitted objects as mutated, server-set fields removed, as a multi-document stream ready for
 *         `kubectl apply -f -`. */
#ifndef KG_CHECK_REPORT_H
#define KG_CHECK_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "base/arena.h"
#include "check/cluster.h"
#include "check/inputs.h"

typedef struct kg_check_result {
    const kg_check_doc *doc;
    const kg_json *submitted; /* the object as read (NULL for input errors) */
    kg_check_verdict v;       /* v.admitted: the admitted object, server-set fields removed (when kept) */
    kg_json *patch;           /* submitted → admitted (when kept), NULL when not admitted */
} kg_check_result;

/* What kg_check_result_keep copies besides the verdict. */
enum {
    KG_CHECK_KEEP_PATCH = 1u << 0,  /* -o json */
    KG_CHECK_KEEP_OBJECT = 1u << 1, /* -o yaml */
};

/* Copy verdict v (whose memory belongs to a per-object scratch arena, reset after each object) into r, in the
 * long-lived arena a, with the patch and/or the stripped admitted object as asked: memory stays proportional to
 * what the report prints, not to what admission allocated. */
void kg_check_result_keep(kg_arena *a, kg_check_result *r, const kg_check_verdict *v, unsigned keep);

typedef struct kg_check_summary {
    size_t total, admitted, denied, errors;
} kg_check_summary;

kg_check_summary kg_check_summarize(const kg_check_result *r, size_t n);

/* A copy of obj without what the server sets: metadata uid, resourceVersion, creationTimestamp, generation and
 * managedFields, and status when the resource has a status subresource. */
kg_json *kg_check_strip_server_fields(kg_arena *a, const kg_json *obj);

void kg_check_report_text(FILE *f, kg_arena *a, const kg_check_result *r, size_t n);
void kg_check_report_json(FILE *f, kg_arena *a, const kg_check_result *r, size_t n);
void kg_check_report_yaml(FILE *f, kg_arena *a, const kg_check_result *r, size_t n);

#endif
