/* The decision trace of one admission request: what every plugin (and every policy binding, webhook and check inside
 * a plugin) decided, in chain order, and how long it took.
 *
 * A door that wants the trace (`kgate check --explain`, serve's -v=4 log of policy denials) puts a tracer in the
 * attributes (kg_admission_attributes.tracer, set through kg_write_request.tracer); serve's request path leaves it
 * NULL and pays one pointer test per plugin. With a tracer the chain reports each plugin after it ran (depth 0), and
 * the plugins that consult several things report each of them while they run (depth 1), so the events of one plugin
 * arrive before the plugin's own event:
 *
 *   ValidatingAdmissionPolicy: one event per (policy, binding) consulted — skipped (not matching), admitted, denied
 *     or warned — and for a failed validation the expression and the values of its sub-expressions
 *     (cel_eval_trace); MutatingAdmissionPolicy likewise once it exists;
 *   PodSecurity: one event per failing check (its reason and detail) at the enforce and warn levels;
 *   the admission webhooks: one event per webhook, skipped (not matching) or its verdict.
 *
 * Events are delivered synchronously on the request's thread; their strings live in the request arena and are only
 * valid during the callback (a collector copies what it keeps). */
#ifndef KG_ADMISSION_TRACE_H
#define KG_ADMISSION_TRACE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum kg_trace_verdict {
    KG_TRACE_ADMITTED = 0, /* consulted, nothing to say */
    KG_TRACE_MUTATED,      /* a mutating plugin changed the object */
    KG_TRACE_DENIED,       /* this denied the request */
    KG_TRACE_WARNED,       /* admitted with a warning (or an audit-only failure) */
    KG_TRACE_SKIPPED,      /* not consulted: it does not match the request */
} kg_trace_verdict;

/* "admitted", "mutated", "denied", "warned", "skipped" */
const char *kg_trace_verdict_name(kg_trace_verdict v);

/* A sub-expression's text and value (both rendered; the value bounded in length). */
typedef struct kg_trace_value {
    const char *expr;
    const char *value;
} kg_trace_value;

typedef struct kg_trace_event {
    int depth;           /* 0: a plugin of the chain; 1: something a plugin consulted */
    const char *phase;   /* "mutating" or "validating" */
    const char *kind;    /* depth 0: "plugin"; depth 1: "ValidatingAdmissionPolicy", "webhook", "check", ... */
    const char *name;    /* plugin, policy, webhook or check name */
    const char *binding; /* a policy's binding, or NULL */
    kg_trace_verdict verdict;
    double seconds;         /* time spent (0 when not measured) */
    const char *message;    /* the denial, warning or check detail, or NULL */
    const char *expression; /* a failed CEL expression, or NULL */
    const kg_trace_value *values;
    size_t nvalues;
} kg_trace_event;

typedef struct kg_admission_tracer {
    void (*event)(void *ud, const kg_trace_event *ev);
    void *ud;
    /* Only the verdicts are wanted (who denied): no timings, no mutation detection (a copy of the object per
     * mutating plugin), no sub-expression values. */
    bool verdicts_only;
} kg_admission_tracer;

#endif
