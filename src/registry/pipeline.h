/* The write pipeline: every create, update, patch, delete, deletecollection and subresource write of every door
 * goes through here, once (k8s.io/apiserver's endpoints/handlers + registry/generic/registry.Store).
 *
 *   decode checks (apiVersion/kind, namespace, field validation)
 *     → defaults → MUTATING PHASE (the chain; reinvocation inside it) → defaults again
 *     → strategy prepare (system metadata, generateName, status reset, generation, per-resource hooks)
 *     → object validation (422 Invalid) → VALIDATING PHASE → persist through the store (or not, on dry-run)
 *
 * Doors: `kgate serve` (src/server/rest.c) decodes the HTTP body and renders the result; `kgate check`
 * (src/check/cluster.c) runs the very same functions over an in-memory store (persisting there, so later objects see
 * earlier ones). Nothing here knows about HTTP: results are a code (the HTTP status a REST API answers with), a
 * Status on failure, and the object or its stored bytes on success.
 *
 * Resource-specific behaviour is data, not code here: the resource registry entry (api/resources.h: scope,
 * subresources, status, generation) and its strategy (registry/strategy.h: write-time defaulting, graceful
 * deletion, what a delete returns).
 *
 * Conflicts: update, patch and delete re-read and retry on a write conflict when the caller gave no resourceVersion
 * precondition (upstream's GuaranteedUpdate), at most KG_PIPELINE_MAX_RETRIES times, then answer 409.
 *
 * Every allocation goes to the request arena; the pipeline is re-entrant and holds no lock of its own. */
#ifndef KG_REGISTRY_PIPELINE_H
#define KG_REGISTRY_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "admission/attributes.h"
#include "admission/chain.h"
#include "admission/warnings.h"
#include "api/resources.h"
#include "base/arena.h"
#include "json/json.h"
#include "meta/patch.h"
#include "meta/status.h"
#include "registry/strategy.h"
#include "storage/storage.h"

#define KG_PIPELINE_MAX_RETRIES 100

/* What a door wires together once. */
typedef struct kg_pipeline {
    kg_store *store;                 /* persistence (SQLite or etcd in serve; in-memory in check) */
    const kg_admission_chain *chain; /* NULL: no admission */
    /* What strategies' write checks consult (the authorizer, the served resources); NULL: those checks are
     * skipped */
    const kg_admission_services *services;
    kg_write_authz authz; /* RBAC escalation checks (authorizer NULL: none) */
    /* A garbage collector runs (kgate serve): DELETE turns its propagation policy into the `orphan` /
     * `foregroundDeletion` finalizers the collector acts on. False: no finalizer is added (kgate check). */
    bool garbage_collection;
} kg_pipeline;

typedef enum kg_field_validation {
    KG_FIELD_VALIDATION_WARN = 0, /* default: unknown and duplicate fields become warnings */
    KG_FIELD_VALIDATION_STRICT,   /* they are a 400 */
    KG_FIELD_VALIDATION_IGNORE,   /* they are dropped silently */
} kg_field_validation;

/* Parse the fieldValidation parameter ("" / NULL = Warn). False for other values, with upstream's 400 in *st. */
bool kg_field_validation_parse(kg_arena *a, const char *s, kg_field_validation *out, kg_status **st);

/* One write request, as the door understood it. */
typedef struct kg_write_request {
    kg_arena *arena;
    const kg_resource *resource;
    const kg_subresource *sub; /* NULL for the main resource */
    const char *ns;            /* request namespace ("" for cluster-scoped resources and namespaces) */
    const char *name;          /* from the URL; ignored by create (the object names itself) */
    const char *uid;           /* request UID; NULL = a fresh one */
    kg_admission_user user;
    bool dry_run;
    kg_field_validation field_validation;
    const char *field_manager;     /* or NULL */
    const char *user_agent;        /* names the field manager when field_manager is empty; may be NULL */
    const char *const *dup_fields; /* duplicate fields the decoder saw in the body (field validation) */
    size_t ndup_fields;
    const char *body; /* the raw body, quoted by some errors as upstream does; may be NULL */
    size_t body_len;
    kg_warnings *warnings; /* where warnings go (may be NULL: dropped) */
    /* CLOCK_MONOTONIC nanoseconds after which the request has failed (serve: its request deadline, ?timeout=
     * included); 0: now + KG_ADMISSION_DEFAULT_DEADLINE_S when the pipeline starts. Admission sees it. */
    int64_t deadline_ns;
    const kg_admission_tracer *tracer; /* admission's decision trace (admission/trace.h), or NULL */
    kg_json *audit_annotations;        /* an object admission's audit annotations go to (serve's audit log), or NULL */
} kg_write_request;

/* Initialise with the arena and resource; everything else zero/"" (field validation Warn). */
void kg_write_request_init(kg_write_request *rq, kg_arena *a, const kg_resource *r);

/* The outcome. On success `status` is NULL and either `bytes` (the object as stored, at revision `rev`: serve splices
 * the resourceVersion in without a parse) or `object` (dry-run results, deletes, bindings, Scale) is set. */
typedef struct kg_write_result {
    int code;          /* 200 / 201 on success; the Status' code on failure */
    kg_status *status; /* failure */
    kg_json *object;
    const char *bytes;
    size_t len;
    int64_t rev;
    bool object_is_status; /* object is a success Status (delete of most resources, binding) */
} kg_write_result;

/* POST: obj is the decoded body. For pods/binding (a KG_SUB_BINDING subresource) obj is the Binding. */
bool kg_pipeline_create(const kg_pipeline *p, const kg_write_request *rq, kg_json *obj, kg_write_result *out);
/* PUT: obj is the decoded body (a Scale for /scale). */
bool kg_pipeline_update(const kg_pipeline *p, const kg_write_request *rq, kg_json *obj, kg_write_result *out);
/* PATCH with application/apply-patch+yaml (server-side apply, registry/apply.c): config is the decoded apply
 * configuration; force takes over fields other managers own. A missing object is created (201). */
bool kg_pipeline_apply(const kg_pipeline *p, const kg_write_request *rq, const kg_json *config, bool force,
                       kg_write_result *out);
/* PATCH: patch is the decoded patch document (an array for JSON patch, an object otherwise). */
bool kg_pipeline_patch(const kg_pipeline *p, const kg_write_request *rq, kg_patch_format type, const kg_json *patch,
                       kg_write_result *out);
/* DELETE: options is the DeleteOptions object (body merged with the query parameters), or NULL. */
bool kg_pipeline_delete(const kg_pipeline *p, const kg_write_request *rq, const kg_json *options, kg_write_result *out);
/* DELETE on a collection: every object of rq's namespace for which match (NULL = all) says yes is deleted as by
 * kg_pipeline_delete; the result object is the list of the deleted objects. */
bool kg_pipeline_delete_collection(const kg_pipeline *p, const kg_write_request *rq, const kg_json *options,
                                   bool (*match)(void *ud, const kg_json *obj), void *match_ud, kg_write_result *out);

/* The namespace controller's step (no admission, as upstream's deleter uses the storage directly): delete every
 * namespaced object of ns; objects with finalizers get a deletionTimestamp and are counted in *remaining. */
bool kg_pipeline_delete_namespace_contents(kg_store *store, const char *ns, size_t *remaining, kg_error *err);

/* The DeleteOptions object for a delete request: the body (NULL/empty = none) with the query parameters
 * gracePeriodSeconds / propagationPolicy / dryRun applied over it; kind and apiVersion set. False with upstream's
 * 400 / 422 in *st on a malformed body or an unknown propagation policy. */
bool kg_delete_options_build(kg_arena *a, const char *body, size_t body_len, const char *grace_q,
                             const char *propagation_q, bool dry_run_q, kg_json **out, kg_status **st);

#endif
