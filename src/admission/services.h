/* What admission plugins may read and do, as one interface with several implementations:
 *   - the server (kgate serve) over its watch-fed caches and the store,
 *   - kg_admission_memcluster (memcluster.h): objects held in memory (tests, kgate check).
 *
 * Lookups are by resource plural ("namespaces", "limitranges", "resourcequotas", "priorityclasses",
 * "serviceaccounts", "storageclasses", ...), namespace ("" for cluster-scoped) and name. Results are deep copies in
 * the caller's arena, so plugins may keep or edit them freely. Every callback must be safe to call concurrently
 * from many request threads. */
#ifndef KG_ADMISSION_SERVICES_H
#define KG_ADMISSION_SERVICES_H

#include <stdbool.h>
#include <stdint.h>

#include "auth/authorizer.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/metrics.h"
#include "json/json.h"
#include "json/shared.h"
#include "meta/gvk.h"

/* kg_admission_services.get flags */
enum {
    /* Bypass the cache and read the authoritative store (upstream's "live GET" through the loopback client). */
    KG_ADMISSION_GET_LIVE = 1u << 0,
};

/* Server flags that configure plugins (upstream hands them to the plugin factories through admission
 * initializers). Plugins read them when initialised; NULL options = kube-apiserver's flag defaults. */
typedef struct kg_admission_plugin_options {
    int64_t default_not_ready_toleration_seconds;   /* --default-not-ready-toleration-seconds (300) */
    int64_t default_unreachable_toleration_seconds; /* --default-unreachable-toleration-seconds (300) */
} kg_admission_plugin_options;

#define KG_ADMISSION_DEFAULT_TOLERATION_SECONDS 300
/* kube-apiserver's defaults of the options above. */
#define KG_ADMISSION_PLUGIN_OPTIONS_DEFAULTS                                                                           \
    ((kg_admission_plugin_options){.default_not_ready_toleration_seconds = KG_ADMISSION_DEFAULT_TOLERATION_SECONDS,    \
                                   .default_unreachable_toleration_seconds = KG_ADMISSION_DEFAULT_TOLERATION_SECONDS})

/* A change of the objects the services hold, as subscribers see it (an informer's event handler). */
typedef enum kg_admission_event_type {
    KG_ADMISSION_EVENT_ADDED = 1,
    KG_ADMISSION_EVENT_MODIFIED,
    KG_ADMISSION_EVENT_DELETED,
    /* The resource's objects were (re)loaded wholesale (the server's initial list, or a relist after its watch fell
     * behind): individual changes may have been missed, re-read the resource. ns, name "" and object NULL. */
    KG_ADMISSION_EVENT_RESYNC,
} kg_admission_event_type;

typedef struct kg_admission_event {
    kg_admission_event_type type;
    const char *resource; /* plural, as subscribed */
    const char *ns;       /* "" for cluster-scoped objects */
    const char *name;
    /* ADDED / MODIFIED: the new object; DELETED: the last one known. Read-only, valid during the call only. */
    const kg_json *object;
} kg_admission_event;

typedef void (*kg_admission_event_fn)(void *ud, const kg_admission_event *ev);

/* x-kubernetes-list-type of a list field, as a served kind's OpenAPI schema declares it. */
typedef enum kg_admission_list_type {
    KG_ADMISSION_LIST_ATOMIC = 0, /* replaced as a whole (also: unknown) */
    KG_ADMISSION_LIST_SET,        /* scalar items merged by value */
    KG_ADMISSION_LIST_MAP,        /* object items merged by their list-map-keys */
} kg_admission_list_type;

typedef struct kg_admission_services {
    void *ctx; /* passed back to every callback */

    /* One object, copied into a. Absent → NULL with err->code KG_ENOTFOUND; other failures → NULL with another
     * code (KG_EIO, KG_ETIMEOUT...). flags: KG_ADMISSION_GET_*. */
    kg_json *(*get)(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name, unsigned flags,
                    kg_error *err);
    /* All objects of a resource in namespace ns ("" = all namespaces, or the cluster-scoped ones), as a JSON array
     * copied into a, ordered by namespace then name. NULL only on failure. */
    kg_json *(*list)(void *ctx, kg_arena *a, const char *resource, const char *ns, unsigned flags, kg_error *err);
    /* Read-only views of the cached objects, without copying (optional: NULL falls back to get/list copies).
     * view: the object, pinned to arena a (valid until a is reset or freed); absent → NULL with KG_ENOTFOUND.
     * view_list: *out = an array in a of the objects of namespace ns ("" = all), each pinned to a, ordered by
     * namespace then name; returns the count, or (size_t)-1 on failure. The objects are shared with other
     * requests: never modify them (kg_json_clone to edit). Never live: plugins that need a live read use get. */
    kg_json_shared *(*view)(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name,
                            kg_error *err);
    size_t (*view_list)(void *ctx, kg_arena *a, const char *resource, const char *ns, kg_json_shared ***out,
                        kg_error *err);
    /* Whether the cache for resource has synced (WaitForReady). NULL callback = always ready. */
    bool (*ready)(void *ctx, const char *resource);

    /* ---- writer, for plugin side effects (never called on dry-run) ---- */
    /* Create obj (a complete object with metadata.name). Exists → NULL with err->code KG_EEXIST. Returns the stored
     * object copied into a. */
    kg_json *(*create)(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj, kg_error *err);
    /* Replace obj (status updates such as quota usage); conflict on a stale metadata.resourceVersion → KG_ECONFLICT. */
    kg_json *(*update)(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj, kg_error *err);

    /* ---- change notification (policies and webhook configurations recompile when their objects change) ---- */
    /* Call fn(ud, event) for every change of resource's objects, in the order the services apply them, one call at
     * a time per resource. Existing objects are not replayed: subscribe, then list. Returns a subscription id
     * (> 0), or 0 with err set. Callbacks run on a services thread (the server: the resource's cache watcher;
     * memcluster: the writer's thread, after the write), should be quick, may read (and, in memcluster, write) through
     * the services, but must not subscribe or unsubscribe. NULL callback = no notifications. */
    uint64_t (*subscribe)(void *ctx, const char *resource, kg_admission_event_fn fn, void *ud, kg_error *err);
    /* End a subscription; once it returns, fn is not running and will not be called again. Unknown ids: no-op. */
    void (*unsubscribe)(void *ctx, uint64_t id);

    /* ---- environment ---- */
    /* The served resource of a kind (group "" for core): its plural (as the lookups above take it) and scope. False
     * when no served resource has that kind. NULL callback: kg_admission_resource_for_kind guesses. */
    bool (*resource_for_kind)(void *ctx, const char *group, const char *version, const char *kind, const char **plural,
                              bool *namespaced);
    /* The kind served at a resource (group "" for core, version, plural): false when no such resource is served.
     * NULL callback: every resource is unknown (the policy type checker then checks nothing). */
    bool (*kind_for_resource)(void *ctx, const char *group, const char *version, const char *resource,
                              const char **kind);
    /* Whether some served resource (or subresource) matches a rule's group, version and resource as the admission
     * matcher reads them: "*" for any group, version or resource; a subresource as "<resource>/<sub>", where
     * either part may be "*". NULL callback: unknown (callers assume it may match). */
    bool (*resource_served)(void *ctx, const char *group, const char *version, const char *resource);
    /* The OpenAPI v3 schema of a served kind, for the policy type checker (upstream's SchemaResolver): an object of
     * named schemas (as in components.schemas; references "#/components/schemas/<name>", possibly wrapped in
     * allOf) holding the kind's type and every type it references, copied into a; *root is the kind's type name.
     * NULL when the kind is not served or has no schema. NULL callback: no schemas. */
    kg_json *(*kind_schema)(void *ctx, kg_arena *a, const char *group, const char *version, const char *kind,
                            const char **root);
    /* The list type of a field of a served kind (MutatingAdmissionPolicy's ApplyConfiguration merges lists by it):
     * path holds the field names from the object's root, list items left out ("spec", "template", "spec",
     * "containers"); for map lists *keys is the comma-separated list-map-keys ("containerPort,protocol"), static.
     * NULL callback: every list is atomic. */
    kg_admission_list_type (*list_type)(void *ctx, const kg_gvk *kind, const char *const *path, size_t n,
                                        const char **keys);
    /* The first field of obj (part of an object of a served kind, e.g. an apply configuration) that the kind's schema
     * does not declare, as a path ("spec.replicasx", in a); false when there is none or the kind has no schema.
     * NULL callback: never. */
    bool (*unknown_field)(void *ctx, kg_arena *a, const kg_gvk *kind, const kg_json *obj, const char **path);
    /* Feature gate value (v1.33 defaults when the gate was not set). NULL callback = every gate off. */
    bool (*feature_enabled)(void *ctx, const char *gate);
    /* Wall clock in nanoseconds since the epoch, and a sleep that tests may fake. NULL = real clock / nanosleep. */
    int64_t (*now_ns)(void *ctx);
    void (*sleep_ns)(void *ctx, int64_t ns);
    /* The server's authorizer (auth/authorizer.h), for SubjectAccessReview-style checks (kg_admission_authorize).
     * Borrowed; outlives the services. NULL = no opinion on anything, which callers treat as denied. */
    const kg_authorizer *authorizer;

    /* Plugin configuration from server flags (borrowed, outlives the services); NULL = defaults. */
    const kg_admission_plugin_options *options;

    /* Metrics sink for plugins that record their own (may be NULL). */
    const kg_apiserver_metrics *metrics;
} kg_admission_services;

/* Convenience wrappers that handle NULL callbacks. */
static inline kg_json *kg_admission_get(const kg_admission_services *s, kg_arena *a, const char *resource,
                                        const char *ns, const char *name, unsigned flags, kg_error *err)
{
    if (!s || !s->get) {
        kg_err_set(err, KG_ENOTFOUND, "%s \"%s\" not found", resource, name);
        return NULL;
    }
    return s->get(s->ctx, a, resource, ns, name, flags, err);
}
static inline kg_json *kg_admission_list(const kg_admission_services *s, kg_arena *a, const char *resource,
                                         const char *ns, unsigned flags, kg_error *err)
{
    if (!s || !s->list)
        return kg_json_new_array(a);
    return s->list(s->ctx, a, resource, ns, flags, err);
}
static inline bool kg_admission_ready(const kg_admission_services *s, const char *resource)
{
    return !s || !s->ready || s->ready(s->ctx, resource);
}
static inline bool kg_admission_feature(const kg_admission_services *s, const char *gate)
{
    return s && s->feature_enabled && s->feature_enabled(s->ctx, gate);
}
/* Ask the services' authorizer (no authorizer: no opinion). Only KG_AUTHZ_ALLOW means allowed. */
static inline kg_authz_decision kg_admission_authorize(const kg_admission_services *s, const kg_authz_attributes *attrs,
                                                       kg_arena *a, const char **reason, kg_error *err)
{
    return kg_authz_authorize(s ? s->authorizer : NULL, attrs, a, reason, err);
}
/* resource_for_kind (see above); services without it: upstream's UnsafeGuessKindToResource (lower-cased kind plus
 * "s", "es" after an s, "ies" for a final y), assumed namespaced. The plural is allocated in a. */
bool kg_admission_resource_for_kind(const kg_admission_services *s, kg_arena *a, const char *group, const char *version,
                                    const char *kind, const char **plural, bool *namespaced);
static inline kg_admission_list_type kg_admission_list_type_of(const kg_admission_services *s, const kg_gvk *kind,
                                                               const char *const *path, size_t n, const char **keys)
{
    *keys = NULL;
    return s && s->list_type ? s->list_type(s->ctx, kind, path, n, keys) : KG_ADMISSION_LIST_ATOMIC;
}
/* subscribe / unsubscribe (see above); services without notifications: 0 with KG_EUNSUPPORTED. */
static inline uint64_t kg_admission_subscribe(const kg_admission_services *s, const char *resource,
                                              kg_admission_event_fn fn, void *ud, kg_error *err)
{
    if (!s || !s->subscribe) {
        kg_err_set(err, KG_EUNSUPPORTED, "these admission services do not notify changes");
        return 0;
    }
    return s->subscribe(s->ctx, resource, fn, ud, err);
}
static inline void kg_admission_unsubscribe(const kg_admission_services *s, uint64_t id)
{
    if (s && s->unsubscribe && id)
        s->unsubscribe(s->ctx, id);
}
/* Read-only views (see view/view_list above); with services that have no views, copies wrapped as documents. */
kg_json_shared *kg_admission_view(const kg_admission_services *s, kg_arena *a, const char *resource, const char *ns,
                                  const char *name, kg_error *err);
size_t kg_admission_view_list(const kg_admission_services *s, kg_arena *a, const char *resource, const char *ns,
                              kg_json_shared ***out, kg_error *err);
/* The same as plain JSON: the object (NULL when absent or on failure), or an array of the objects (NULL on failure)
 * allocated in a whose items are the shared objects themselves. Read-only. */
const kg_json *kg_admission_view_obj(const kg_admission_services *s, kg_arena *a, const char *resource, const char *ns,
                                     const char *name, kg_error *err);
const kg_json *kg_admission_view_array(const kg_admission_services *s, kg_arena *a, const char *resource,
                                       const char *ns, kg_error *err);
/* Memo slots of shared objects (kg_json_shared_memo), per resource. */
enum {
    KG_ADMISSION_MEMO_LIMITRANGE = 0, /* limitranges: LimitRanger's parsed limits */
    KG_ADMISSION_MEMO_QUOTA = 0,      /* resourcequotas: ResourceQuota's parsed hard/used/scopes */
};

/* The services' plugin options, or the defaults when there are none. */
static inline kg_admission_plugin_options kg_admission_plugin_opts(const kg_admission_services *s)
{
    return s && s->options ? *s->options : KG_ADMISSION_PLUGIN_OPTIONS_DEFAULTS;
}

int64_t kg_admission_now_ns(const kg_admission_services *s);
void kg_admission_sleep_ns(const kg_admission_services *s, int64_t ns);
/* upstream WaitForReady: poll ready() every 100 ms for up to 10 s (using the services' clock). */
bool kg_admission_wait_ready(const kg_admission_services *s, const char *resource);

#endif
