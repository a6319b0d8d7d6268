/* The client the built-in controllers act through (upstream: the controller-manager's clientset plus informers).
 *
 * Controllers never see the server: kg_controllers_start receives a kg_controller_client, a table of operations
 * with a context pointer. kgate serve implements it in src/server/loopback.c (direct store access, no HTTP, no
 * admission: upstream's controllers go through the API, kgate's are trusted and in-process); tests can implement it
 * over anything.
 *
 * Objects are JSON with metadata.resourceVersion set; `resource` is a resource's plural ("namespaces",
 * "serviceaccounts"), resolved as kg_resource_find_plural does. Every returned object is copied into the caller's
 * arena. Errors use kg_error codes: KG_ENOTFOUND (absent), KG_EEXIST (create of an existing object), KG_ECONFLICT
 * (stale resourceVersion precondition), others for I/O failures. */
#ifndef KG_CONTROLLERS_CLIENT_H
#define KG_CONTROLLERS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "admission/services.h"
#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"

typedef enum kg_client_event_type {
    KG_CLIENT_ADDED,
    KG_CLIENT_MODIFIED,
    KG_CLIENT_DELETED,
} kg_client_event_type;

/* One change seen by a watch. The strings and the object live in the arena given to watch_next. */
typedef struct kg_client_event {
    kg_client_event_type type;
    const char *group, *resource; /* "" for the core group; resource is the plural */
    const char *ns;               /* "" for cluster-scoped objects */
    const char *name;
    kg_json *object; /* the new object (NULL for DELETED, and for watches opened without objects) */
} kg_client_event;

typedef enum kg_client_watch_status {
    KG_CLIENT_WATCH_ERROR = -2,  /* events were missed (err set): close, reopen and resync */
    KG_CLIENT_WATCH_CLOSED = -1, /* cancelled, or the server is stopping */
    KG_CLIENT_WATCH_TIMEOUT = 0, /* nothing within timeout_ms */
    KG_CLIENT_WATCH_EVENT = 1,   /* *ev set */
} kg_client_watch_status;

typedef struct kg_client_watch kg_client_watch;

typedef struct kg_controller_client {
    void *ctx; /* passed back to every operation */

    /* ---- reads (authoritative: never a cache that may lag) ---- */
    /* One object; absent → NULL with KG_ENOTFOUND. */
    kg_json *(*get)(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name, kg_error *err);
    /* All objects of resource in ns ("" = every namespace, or the cluster-scoped ones) as a JSON array, ordered by
     * namespace then name. NULL only on failure. */
    kg_json *(*list)(void *ctx, kg_arena *a, const char *resource, const char *ns, kg_error *err);

    /* ---- writes (no admission; system metadata and defaults applied on create) ---- */
    /* Create obj (metadata.name set); returns the stored object. */
    kg_json *(*create)(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj, kg_error *err);
    /* Replace obj; its metadata.resourceVersion is the precondition. Returns the stored object. */
    kg_json *(*update)(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj, kg_error *err);
    /* Delete one object; resource_version (NULL or "" = unconditional) is the precondition. */
    bool (*delete_object)(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name,
                          const char *resource_version, kg_error *err);
    /* The namespace controller's sweep (upstream: namespaced_resources_deleter): delete every namespaced object of
     * ns; objects with finalizers get a deletionTimestamp instead and are waited for. *remaining = objects still
     * present afterwards. */
    bool (*delete_namespace_contents)(void *ctx, const char *ns, size_t *remaining, kg_error *err);

    /* ---- watch (upstream: an informer's event stream, without the cache) ---- */
    /* Changes from now on to objects of resource (a plural), to every namespaced object when resource is NULL, or
     * to every object (namespaced and cluster-scoped) when resource is "*"; with_objects: decode each changed
     * object into the event (DELETED: the object as it was last), otherwise only what changed where. */
    kg_client_watch *(*watch_open)(void *ctx, const char *resource, bool with_objects, kg_error *err);
    kg_client_watch_status (*watch_next)(kg_client_watch *w, int timeout_ms, kg_arena *a, kg_client_event *ev,
                                         kg_error *err);
    /* Every stored object of every served resource as ADDED events (object set), page by page (strings and objects
     * in a, which the callee may reset between pages — fn copies what it keeps). Open a "*" watch first: no change
     * then falls between the two. NULL: not supported (the garbage collector does not start). */
    bool (*list_all)(void *ctx, kg_arena *a, void (*fn)(void *ud, const kg_client_event *ev), void *ud, kg_error *err);
    /* From any thread: a blocked watch_next returns KG_CLIENT_WATCH_CLOSED. */
    void (*watch_cancel)(kg_client_watch *w);
    void (*watch_close)(kg_client_watch *w);

    /* ---- shared with admission ---- */
    /* The admission services of the same cluster (feature gates, clock, cached reads and writes): the quota
     * controller computes usage through them exactly as the ResourceQuota plugin does. */
    const kg_admission_services *services;
} kg_controller_client;

#endif
