/* The outputs of `kgate check`: what each input object got, in input order.
 *   text: one line per object, "<file>:<line> (doc N): <Kind>/<name> (<namespace>) admitted" or
 *         "... denied: <message>" (the Status message serve answers with) or "... error: <message>", each warning
 *         on a line of its own ("  warning: <text>"), then a summary line;
 *   json: {"results":[{file, document, item, line, kind, namespace, name, allowed, code, reason, message, warnings,
 *         patch}], "summary":{total, admitted, denied, errors}}; patch is the RFC 6902 patch from the object as
 *         submitted to the object as admitted, with the server-set fields removed (kg_check_strip_server_fields),
 *         or null when the object was not admitted;
 *   yaml: the admitted objects as mutated, server-set fields removed, as a multi-document stream ready for
 *         `kubectl apply -f -`;
 *   junit: one <testsuite> per input file, one <testcase> per object named "<Kind> <namespace>/<name>" ("<Kind>
 *         <name>" when cluster-scoped); a denial is a <failure> (type "<code> <reason>", message the Status
 *         message, the text naming the rule that denied), an input error an <error>, warnings in <system-out>;
 *   sarif: SARIF 2.1.0, one run of the tool "kgate" whose rules are what denied (a plugin, or
 *         "ValidatingAdmissionPolicy/<policy>", or "apiserver/<reason>" for the API server's own checks) plus
 *         "warning" and "input-error" when used; one result per denial (level error), warning (level warning) and
 *         input error (level error), located at the file (a relative URI as given) and the document's first line.
 * With --explain (steps kept), text prints each object's decision trace indented under its line, json adds an
 * "explain" array per result (check/explain.h). */
#ifndef KG_CHECK_REPORT_H
#define KG_CHECK_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "base/arena.h"
#include "check/cluster.h"
#include "check/inputs.h"

typedef struct kg_check_result {
    const kg_check_doc *doc;
    const kg_json *submitted;          /* the object as read (NULL for input errors) */
    kg_check_verdict v;                /* v.admitted: the admitted object, server-set fields removed (when kept) */
    kg_json *patch;                    /* submitted → admitted (when kept), NULL when not admitted */
    const char *rule;                  /* what denied (kg_check_trace_rule), NULL when not the admission chain */
    const struct kg_check_step *steps; /* --explain: the decision trace */
    size_t nsteps;
    bool explained; /* --explain was given (json: "explain" present even when empty) */
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
void kg_check_report_junit(FILE *f, kg_arena *a, const kg_check_result *r, size_t n);
void kg_check_report_sarif(FILE *f, kg_arena *a, const kg_check_result *r, size_t n);

/* The rule a denied result names in junit and sarif: r->rule, else "apiserver/<reason>". */
const char *kg_check_result_rule(kg_arena *a, const kg_check_result *r);

/* Streaming json (-o json): the opening, one result at a time (first: whether it is the first), then the closing
 * with the summary; the bytes are those of kg_check_report_json. */
void kg_check_json_begin(FILE *f);
void kg_check_json_result(FILE *f, kg_arena *a, const kg_check_result *r, bool first);
void kg_check_json_end(FILE *f, kg_arena *a, const kg_check_summary *s, bool any);

#endif
