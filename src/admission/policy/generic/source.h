/* The policy source shared by ValidatingAdmissionPolicy and MutatingAdmissionPolicy (upstream's
 * admission/plugin/policy/generic: one "source" of compiled policies and bindings, two plugins over it).
 *
 * Compile on change, never per request: the source subscribes to the policy and binding resources through the
 * admission services; each change recompiles the one object that changed (unchanged resourceVersions are skipped)
 * and publishes a new snapshot, an immutable array of (policy, its bindings) sorted by policy name, each policy's
 * bindings sorted by name. The first request loads the initial state synchronously (upstream's WaitForReady: the
 * caches synced, then listed); a RESYNC event re-lists one resource.
 *
 * Requests never lock: kg_policy_source_acquire takes a reference on the current snapshot, _release drops it. The
 * gap between loading the pointer and taking the reference is covered by `active` (readers inside that gap): a
 * writer that swapped the pointer waits for `active` to drain before dropping the old snapshot's reference, so a
 * reader never references a freed snapshot. Writers (change callbacks, the first load) serialize on a mutex.
 *
 * The compiled objects are opaque here: the ops name, version, reference-count and compile them. */
#ifndef KG_ADMISSION_POLICY_GENERIC_SOURCE_H
#define KG_ADMISSION_POLICY_GENERIC_SOURCE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "admission/services.h"
#include "json/json.h"

typedef struct kg_policy_source_ops {
    const char *kind;              /* "ValidatingAdmissionPolicy": for log lines */
    const char *policies_resource; /* "validatingadmissionpolicies" */
    const char *bindings_resource; /* "validatingadmissionpolicybindings" */
    /* NULL when obj does not compile into anything usable (it is then absent from the snapshot) */
    void *(*compile_policy)(const kg_json *obj, const kg_admission_services *svc);
    void *(*compile_binding)(const kg_json *obj);
    void *(*ref_policy)(void *p);
    void (*unref_policy)(void *p);
    void *(*ref_binding)(void *b);
    void (*unref_binding)(void *b);
    const char *(*policy_name)(const void *p);
    const char *(*policy_resource_version)(const void *p);
    const char *(*binding_name)(const void *b);
    const char *(*binding_resource_version)(const void *b);
    const char *(*binding_policy)(const void *b); /* the policy the binding names */
} kg_policy_source_ops;

/* A policy with the bindings that name it. */
typedef struct kg_policy_entry {
    void *policy;
    void **bindings;
    size_t nbindings;
} kg_policy_entry;

typedef struct kg_policy_snapshot {
    atomic_uint refs;
    kg_policy_entry *entries; /* by policy name */
    size_t n;
    void **bindings; /* one block: the entries' binding lists point into it */
    size_t nbindings;
} kg_policy_snapshot;

typedef struct kg_policy_source kg_policy_source;

/* Subscribe to both resources (ops and svc must outlive the source). *not_served is set when the services do not
 * serve one of them (the API is off): such a source never has policies. */
kg_policy_source *kg_policy_source_new(const kg_policy_source_ops *ops, const kg_admission_services *svc,
                                       bool *not_served);
void kg_policy_source_free(kg_policy_source *src);

/* The current snapshot with a reference taken (NULL: none yet), after the first load. *not_ready is set when the
 * first load is not possible yet (the caller refuses the request: "not yet ready to handle request"). */
kg_policy_snapshot *kg_policy_source_acquire(kg_policy_source *src, bool *not_ready);
void kg_policy_source_release(kg_policy_source *src, kg_policy_snapshot *s);

#endif
