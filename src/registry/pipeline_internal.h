/* Shared by the pipeline's files (pipeline.c: create/update/patch; delete.c; subresource.c). Not a public API. */
#ifndef KG_REGISTRY_PIPELINE_INTERNAL_H
#define KG_REGISTRY_PIPELINE_INTERNAL_H

#include "meta/gvk.h"
#include "registry/pipeline.h"
#include "registry/strategy.h"

/* One write in progress. */
typedef struct wctx {
    const kg_pipeline *p;
    const kg_write_request *rq;
    kg_arena *a;
    const kg_resource *r;
    const kg_subresource *sub; /* NULL for the main resource; cleared while a Scale write updates its parent */
    const kg_strategy *strat;
    const char *ns;
    const char *name;
    kg_gr gr;
    const char *uid;        /* request UID */
    const kg_json *options; /* Create/Update/DeleteOptions */
    kg_write_result *out;
    int64_t deadline_ns; /* the request's (kg_write_request.deadline_ns, defaulted) */
    bool patched;        /* field validation is checking the result of a patch */
    bool managed_done;   /* managedFields already computed (server-side apply) */
} wctx;

/* managedFields (registry/apply.c): record this write's field ownership in neu (old NULL for a create) as an Update
 * by the request's field manager; returns the managedFields value to restore after admission (may be NULL). */
kg_json *w_managed_fields(wctx *c, const kg_json *old, kg_json *neu);
void w_restore_managed_fields(wctx *c, kg_json *neu, kg_json *mf);
/* The create steps after wctx_init (kg_pipeline_create's body). */
bool w_create(wctx *c, kg_json *obj);

void wctx_init(wctx *c, const kg_pipeline *p, const kg_write_request *rq, kg_write_result *out);

/* Record a failure in c->out; always returns false. */
bool wfail(wctx *c, kg_status *st);
/* A store error as upstream reports it (404 / 409 AlreadyExists / 409 Conflict / 500). */
bool wfail_err(wctx *c, const kg_error *err);
/* Success with the stored bytes / with an object. Return true. */
bool wdone_stored(wctx *c, int code, const char *bytes, size_t len, int64_t rev);
bool wdone_obj(wctx *c, int code, kg_json *obj);

kg_json *w_metadata(kg_arena *a, kg_json *obj);
kg_json *w_sref(kg_arena *a, const char *s);

/* Admission attributes for this write (uid, kinds, resources, options, user, warnings, dry-run). */
void w_attrs(wctx *c, kg_admission_attributes *at, kg_admission_op op, const char *kind_group, const char *kind_version,
             const char *kind, kg_json *obj, kg_json *old);
kg_status *w_admit(wctx *c, kg_admission_attributes *at);
kg_status *w_validate(wctx *c, kg_admission_attributes *at);

/* The stored object at c's key, decoded. False (failure recorded) when absent or corrupt. */
bool w_load(wctx *c, kg_store_kv *kv, kg_json **old);

/* The typed decode of obj (wrong JSON types: 400, or 422 for a patch result) and field validation (unknown fields
 * from the schema, dropped from obj unless Strict; duplicate fields from the decoder). schema_type: the type to
 * check against when it is not the resource's kind (Scale). */
bool w_field_validation(wctx *c, kg_json *obj, const char *schema_type);
kg_status *w_patch_decode_failure(wctx *c, const kg_json *obj, const char *err);

/* The shared tail of update and patch (see pipeline.c). */
typedef enum { UPD_DONE, UPD_RETRY } upd_result;
upd_result w_finish_update(wctx *c, const kg_store_kv *cur, kg_json *old, kg_json *neu, const char *rv_precond,
                           int code_on_success);
/* Apply a patch document of the given type to doc (kindkey: "<group>/<Kind>" for strategic merge). */
bool w_apply_patch(wctx *c, kg_patch_format type, const kg_json *doc, const kg_json *patch, const char *kindkey,
                   kg_json **out);

/* subresource.c */
kg_json *w_merge_for_subresource(wctx *c, kg_json *old, kg_json *neu);
bool w_scale_write(wctx *c, kg_json *scale_in, kg_patch_format patch_type, const kg_json *patch);
/* scaleapply.c: server-side apply of an autoscaling/v1 Scale to the scale subresource (managedFields mapped to the
 * parent's replicas field). */
bool w_scale_apply(wctx *c, const kg_json *config, bool force);
bool w_bind(wctx *c, kg_json *binding);
/* eviction.c: CREATE pods/eviction (the body is the Eviction). */
bool w_evict(wctx *c, kg_json *eviction);

#endif
