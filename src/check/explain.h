/* The decision trace of `kgate check` (--explain, and the rule names of -o junit / -o sarif): a collector for the
 * admission tracer (admission/trace.h) that keeps one object's steps in chain order — each plugin, then what it
 * consulted (policy bindings, webhooks, PodSecurity checks) indented under it — and names what denied the object.
 *
 * The light mode (explain false) only notes the denier: a plugin, or the policy or webhook inside it. */
#ifndef KG_CHECK_EXPLAIN_H
#define KG_CHECK_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "admission/trace.h"
#include "base/arena.h"
#include "json/json.h"

typedef struct kg_check_step {
    int depth;
    const char *phase, *kind, *name, *binding; /* binding NULL when none */
    kg_trace_verdict verdict;
    double seconds;
    const char *message, *expression; /* or NULL */
    kg_trace_value *values;
    size_t nvalues;
} kg_check_step;

typedef struct kg_check_trace {
    kg_admission_tracer tracer; /* give &tracer to the cluster (kg_check_cluster_set_tracer) */
    bool explain;               /* keep every step */
    kg_arena *arena;            /* where steps are copied: the object's scratch arena */
    kg_check_step *steps;
    size_t n, cap;
    size_t group; /* first step after the last plugin's: where the next plugin's step goes */
    /* what denied: the plugin, and the policy / webhook inside it (NULL when not the chain) */
    const char *denied_plugin, *denied_kind, *denied_name, *denied_binding;
} kg_check_trace;

void kg_check_trace_init(kg_check_trace *t, bool explain);
/* Forget the last object's steps; a is the arena of the next. */
void kg_check_trace_reset(kg_check_trace *t, kg_arena *a);

/* A copy of t's steps in a (for the report). */
kg_check_step *kg_check_steps_copy(kg_arena *a, const kg_check_trace *t, size_t *n);

/* The rule that denied: "<plugin>", "ValidatingAdmissionPolicy/<policy>" (or the webhook's name under its plugin)
 * — NULL when the chain did not deny (the caller names the Status reason instead). In a. */
const char *kg_check_trace_rule(kg_arena *a, const kg_check_trace *t);

/* Text form: one line per step, indented by indent (+2 for depth 1), values under a failed expression. */
void kg_check_steps_text(FILE *f, const kg_check_step *s, size_t n, int indent);
/* JSON form: [{stage, kind, name, binding?, result, durationNs, message?, expression?, trace?: [{expr, value}]}] */
kg_json *kg_check_steps_json(kg_arena *a, const kg_check_step *s, size_t n);

#endif
