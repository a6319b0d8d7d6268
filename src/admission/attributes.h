/* Admission attributes: what one admission request is about (k8s.io/apiserver pkg/admission Attributes).
 *
 * Everything is borrowed from / allocated in the request arena (`arena`): objects are kg_json DOMs that mutating
 * plugins edit in place, so a later plugin sees an earlier plugin's mutation. Strings are never NULL once
 * kg_admission_attrs_init has run ("" for absent). */
#ifndef KG_ADMISSION_ATTRIBUTES_H
#define KG_ADMISSION_ATTRIBUTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth/user.h"
#include "base/arena.h"
#include "base/error.h"
#include "admission/trace.h"
#include "admission/warnings.h"
#include "json/json.h"
#include "meta/gvk.h"

/* Operations, usable as a bit mask (kg_admission_plugin.handles). */
typedef enum kg_admission_op {
    KG_ADMISSION_CREATE = 1u << 0,
    KG_ADMISSION_UPDATE = 1u << 1,
    KG_ADMISSION_DELETE = 1u << 2,
    KG_ADMISSION_CONNECT = 1u << 3,
} kg_admission_op;

#define KG_ADMISSION_ALL_OPS (KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE | KG_ADMISSION_DELETE | KG_ADMISSION_CONNECT)

/* "CREATE", "UPDATE", "DELETE", "CONNECT" (exact upstream strings); "" for anything else. */
const char *kg_admission_op_name(kg_admission_op op);
/* Inverse of kg_admission_op_name; false for unknown strings. */
bool kg_admission_op_parse(const char *s, kg_admission_op *out);

/* The request deadline when the door sets none: kube-apiserver's default request timeout (--request-timeout 60 s,
 * which also caps a client's ?timeout=). */
#define KG_ADMISSION_DEFAULT_DEADLINE_S 60

/* user.Info: the one user type shared with authentication and authorization (auth/user.h). */
typedef kg_user_info kg_admission_user;

typedef struct kg_admission_attributes {
    kg_arena *arena; /* the request arena: plugins allocate here and nowhere else */
    const char *uid; /* request UID (AdmissionReview request.uid); unique per request */
    kg_admission_op operation;
    kg_gvk kind;             /* object kind (for subresources the subresource's kind, e.g. autoscaling/v1 Scale) */
    kg_gvr resource;         /* request resource, e.g. {"apps","v1","deployments"} */
    const char *subresource; /* "" for the main resource */
    /* What the client asked for, before conversion (AdmissionReview requestKind / requestResource /
     * requestSubResource). matchPolicy Equivalent matches rules against these or their equivalents. kgate serves one
     * version per resource, so serve fills them equal to kind/resource/subresource; the webhook door passes on what
     * the calling apiserver sent. */
    kg_gvk request_kind;
    kg_gvr request_resource;
    const char *request_subresource;
    const char *name;        /* "" when only generateName is set, and for DeleteCollection items */
    const char *ns;          /* request namespace; for the namespaces resource: the namespace's own name */
    kg_json *object;         /* CREATE/UPDATE: the new object (mutable); CONNECT: the options object; else NULL */
    kg_json *old_object;     /* UPDATE/DELETE: the stored object; else NULL */
    bool dry_run;            /* dryRun=All */
    /* The request's deadline: CLOCK_MONOTONIC nanoseconds after which the request has failed (webhook calls are
     * bounded by it). 0: none. The write pipeline sets it for every write (the door's, else now +
     * KG_ADMISSION_DEFAULT_DEADLINE_S). */
    int64_t deadline_ns;
    /* CreateOptions / UpdateOptions / DeleteOptions (meta.k8s.io/v1, with kind and apiVersion), or NULL */
    const kg_json *options;
    kg_admission_user user;
    /* Warnings for the client (Warning headers in serve, AdmissionReview warnings in the webhook door). NULL when the
     * caller does not collect them; add through kg_admission_warn. */
    kg_warnings *warnings;
    /* The decision trace (admission/trace.h): NULL unless a door asked for one (check --explain); plugins that
     * consult several things report each through kg_admission_trace when it is set. */
    const kg_admission_tracer *tracer;
    /* reinvocation (webhooks may ask the in-tree mutators to run again) */
    bool is_reinvoke;
    bool reinvoke_requested;
    /* audit annotations: object key → string (an empty object from kg_admission_attrs_init; part of the request
     * record, not of the object, so validating plugins add to it too) */
    kg_json *annotations;
    /* Per-request plugin context (nginx's r->ctx[]): one pointer per chain position, zeroed, allocated in the arena on
     * the chain's first run over these attributes. The chain sets slot before calling each plugin. Survives the
     * reinvocation pass, so a plugin can keep what it did on the first pass (the mutating webhook's reinvocation
     * record lives here). */
    void **ctx_slots;
    size_t nslots;
    size_t slot;
} kg_admission_attributes;

/* Zero the struct, set every string to "" and the arena. */
void kg_admission_attrs_init(kg_admission_attributes *a, kg_arena *arena);

/* True when the object kind is core/Namespace (group "" and kind "Namespace"). */
bool kg_admission_is_namespace_kind(const kg_admission_attributes *a);

/* admission.NewForbidden naming rule: attrs name, else object metadata.name, else metadata.generateName, else
 * "Unknown" ("Unknown/errorGettingName" when the object has no metadata). */
const char *kg_admission_forbidden_name(const kg_admission_attributes *a);

/* Add a warning for the client (no-op when the caller collects none). */
void kg_admission_warn(const kg_admission_attributes *a, const char *text);

/* Report ev to the request's tracer (no-op without one). */
void kg_admission_trace(const kg_admission_attributes *a, const kg_trace_event *ev);

/* The calling plugin's per-request slot (a zeroed pointer the plugin may set to data allocated in a->arena), or NULL
 * outside a chain run. Validating plugins may use it too (attrs are const to them, the slot is not). Concurrency rule: a plugin that fans out work to threads (validating webhooks are called in
 * parallel) uses its slot, the arena, the warnings and the annotations only from the calling thread; the other threads
 * allocate in arenas of their own and hand results back, which the plugin merges in a fixed order. */
void **kg_admission_request_ctx(const kg_admission_attributes *a);

/* Audit annotation (AddAnnotation): key must be "<dns-prefix>/<name>"; re-adding the same key with another value is
 * an error (first write wins), the same value is fine. Not thread-safe: the caller serializes adds. */
bool kg_admission_add_annotation(const kg_admission_attributes *a, const char *key, const char *value,
                                 kg_error *err);

#endif
