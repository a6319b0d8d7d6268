/* Admission services (admission/services.h) read and written directly over a kg_store: no caches, every read is
 * an authoritative store read decoded with registry/codec.h, every plugin side-effect write goes to the store.
 *
 * Users:
 *   - `kgate check` (over the in-memory store): the whole cluster lives in one process, so there is nothing to
 *     cache and nothing to wait for;
 *   - `kgate serve` (src/server/clusterstate.c): its services read through watch-fed caches and fall back to the
 *     kg_store_object_* functions below for live reads, and write through them, so both doors share one
 *     implementation of "an object in the store".
 *
 * Writes made by the services (create/update) carry the system metadata serve gives objects it creates on its own
 * behalf: a fresh uid, creationTimestamp, the resource's defaults and create-time preparation.
 *
 * No change notification: subscribe is NULL (no plugin in this tree subscribes yet; the pipeline writes to the
 * store without passing through the services, so notification would need a store watch). */
#ifndef KG_REGISTRY_STORESERVICES_H
#define KG_REGISTRY_STORESERVICES_H

#include "admission/services.h"
#include "auth/authorizer.h"
#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"
#include "registry/featuregates.h"
#include "storage/storage.h"

/* What the services are built over. Borrowed: everything must outlive the services. */
typedef struct kg_store_services_config {
    kg_store *store;
    const kg_feature_gates *gates;              /* NULL = v1.33 defaults */
    const kg_admission_plugin_options *options; /* NULL = kube-apiserver's flag defaults */
    const kg_authorizer *authorizer;            /* NULL = no opinion (denied) */
    const kg_apiserver_metrics *metrics;        /* may be NULL */
} kg_store_services_config;

/* Fill *svc with services over cfg (svc->ctx = cfg, so cfg must stay at its address while svc is used). */
void kg_store_services_init(kg_admission_services *svc, const kg_store_services_config *cfg);
/* The services' list_type callback (MutatingAdmissionPolicy's ApplyConfiguration): the served kinds' OpenAPI list
 * types (api/schema.h kg_schema_list_type_of); ctx unused. Also what kgate serve's services use. */
kg_admission_list_type kg_store_services_list_type(void *ctx, const kg_gvk *kind, const char *const *path, size_t n,
                                                   const char **keys);
/* The services' unknown_field callback: the first field the kind's schema does not declare (api/schema.h). */
bool kg_store_services_unknown_field(void *ctx, kg_arena *a, const kg_gvk *kind, const kg_json *obj, const char **path);

/* ---- "an object in the store", by resource plural (resolved with kg_resource_find_plural) ---- */
/* One object (resourceVersion set); absent → NULL with KG_ENOTFOUND (also for an unknown resource). */
kg_json *kg_store_object_get(kg_store *st, kg_arena *a, const char *resource, const char *ns, const char *name,
                             kg_error *err);
/* Every object of resource in ns ("" = all namespaces or the cluster-scoped ones), ordered by namespace then name,
 * as an array. An unknown resource lists empty; NULL on a store failure. Undecodable objects are skipped. */
kg_json *kg_store_object_list(kg_store *st, kg_arena *a, const char *resource, const char *ns, kg_error *err);
/* Create a copy of obj with system metadata (uid, creationTimestamp), defaults and create-time preparation;
 * returns the stored object. Exists → NULL with KG_EEXIST; no metadata.name → KG_EINVAL. */
kg_json *kg_store_object_create(kg_store *st, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                                kg_error *err);
/* Replace obj as it is, its metadata.resourceVersion the precondition (absent = unconditional); returns the stored
 * object. Stale → KG_ECONFLICT. */
kg_json *kg_store_object_update(kg_store *st, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                                kg_error *err);
/* Delete one object; resource_version (NULL or "" = unconditional) is the precondition. */
bool kg_store_object_delete(kg_store *st, kg_arena *a, const char *resource, const char *ns, const char *name,
                            const char *resource_version, kg_error *err);

#endif
