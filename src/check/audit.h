/* `kgate check --audit`: what policies would say about objects already in a cluster, without enforcing them — the
 * background audit ValidatingAdmissionPolicy lacks.
 *
 * The caller builds a check cluster whose chain holds only the policy plugins (ValidatingAdmissionPolicy; the
 * MutatingAdmissionPolicy plugin when it exists), loads the policies, bindings and params and the objects as
 * context (no admission), then runs the validating phase over each object (kg_check_validate_only) with this
 * collector as the tracer: every (policy, binding) evaluation that failed — whatever its validationActions (Deny,
 * Warn or Audit), and configuration errors — is a violation. The report is bounded: counts per policy, binding and
 * namespace, and the first max_items violations with object and message. */
#ifndef KG_CHECK_AUDIT_H
#define KG_CHECK_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "admission/trace.h"
#include "base/arena.h"
#include "check/inputs.h"

typedef struct kg_audit_count {
    const char *policy, *binding, *ns; /* binding "" for a policy-level configuration error; ns "" cluster-scoped */
    size_t violations;
} kg_audit_count;

typedef struct kg_audit_item {
    const kg_check_doc *doc;
    const char *kind, *ns, *name;
    const char *policy, *binding, *message;
    bool deny; /* the binding's actions include Deny (it would be refused at admission) */
} kg_audit_item;

typedef struct kg_audit {
    kg_admission_tracer tracer; /* for kg_check_validate_only */
    kg_arena *arena;            /* long-lived: counts and kept items */
    size_t max_items;
    /* totals */
    size_t objects, matched, violating_objects, violations, errors;
    kg_audit_count *counts;
    size_t ncounts, cap_counts;
    kg_audit_item *items;
    size_t nitems;
    /* the object being evaluated */
    const kg_check_doc *doc;
    const char *kind, *ns, *name;
    bool cur_matched, cur_violated;
} kg_audit;

void kg_audit_init(kg_audit *au, kg_arena *a, size_t max_items);
/* Before evaluating one object (its strings must live until kg_audit_end_object). */
void kg_audit_begin_object(kg_audit *au, const kg_check_doc *doc, const char *kind, const char *ns, const char *name);
void kg_audit_end_object(kg_audit *au);
/* An object that could not be evaluated (unknown kind, a failed load). */
void kg_audit_error(kg_audit *au, const kg_check_doc *doc, const char *msg);

/* text: a table of counts, then the first violations, then a summary line; json: {"audit": {...}}. */
void kg_audit_report_text(FILE *f, kg_arena *a, const kg_audit *au, size_t npolicies, size_t nbindings);
void kg_audit_report_json(FILE *f, kg_arena *a, const kg_audit *au, size_t npolicies, size_t nbindings);

#endif
