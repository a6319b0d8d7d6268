/* The dynamic part of the resource registry: the resources served for CustomResourceDefinitions.
 *
 * The set is an immutable snapshot, built off the request path whenever a CRD changes (apiext/registry.c, fed by a
 * watch in kgate serve) and published with one atomic pointer swap; lookups (api/resources.h's kg_resource_find,
 * kg_resource_find_kind, kg_resource_find_plural, discovery) read the current snapshot without a lock. A replaced
 * snapshot is retired, not freed, because requests (watches in particular) may still hold its kg_resource pointers;
 * retired snapshots are freed by kg_dynamic_reset (process exit, tests). Each one is a few KiB per CRD change. */
#ifndef KG_API_DYNAMIC_H
#define KG_API_DYNAMIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/resources.h"
#include "base/arena.h"
#include "json/json.h"

/* What the built-in parts of the API (tables, field selectors, scale) need of a custom resource: r->ext points to
 * this (apiext's compiled CRD version embeds it first). */
typedef struct kg_dynamic_column {
    const char *name, *type, *format, *description, *json_path;
    int priority;
} kg_dynamic_column;
typedef struct kg_dynamic_info {
    const kg_dynamic_column *columns; /* additionalPrinterColumns */
    size_t ncolumns;
    const char *const *selectable; /* selectableFields' jsonPaths without the leading dot */
    size_t nselectable;
    const char *spec_replicas_path, *status_replicas_path, *label_selector_path; /* scale subresource or NULL */
    /* The apiVersion objects are stored in: the CRD's storage version, served or not. Conversion None (the only
     * strategy served) rewrites nothing but apiVersion, so every served version reads and writes the same objects:
     * writes store this apiVersion, reads answer with the requested one (kg_dynamic_read_as). */
    const char *storage_api_version;
} kg_dynamic_info;

static inline const kg_dynamic_info *kg_dynamic_info_of(const kg_resource *r)
{
    return r ? (const kg_dynamic_info *)r->ext : NULL;
}

/* The apiVersion a stored object of r is served with: the requested version of a custom resource (its stored
 * apiVersion may name any version of the CRD), NULL for built-in resources (served as stored). */
static inline const char *kg_dynamic_read_as(const kg_resource *r)
{
    return r && r->ext ? r->api_version : NULL;
}

/* A simple JSONPath (".spec.replicas", ".status.conditions[0].type") into obj; NULL when absent. */
const kg_json *kg_dynamic_json_path(const kg_json *obj, const char *path);
/* Set the field at a dotted path (".spec.replicas"; no indexes), creating objects on the way. */
void kg_dynamic_set_path(kg_arena *a, kg_json *obj, const char *path, kg_json *v);

typedef struct kg_dynamic_set {
    kg_arena arena;          /* everything below (resources, strings, compiled schemas) lives here */
    kg_resource *res;        /* served versions of established CRDs, each CRD's storage version first */
    const kg_json **schemas; /* res[i]'s openAPIV3Schema as written in the CRD (NULL: none), for OpenAPI */
    size_t n;
    uint64_t generation; /* bumps with every published snapshot */
    char hash[17];       /* of the published schemas: the OpenAPI v3 serverRelativeURL changes with it */
    struct kg_dynamic_set *retired_next;
} kg_dynamic_set;

/* A new empty set (its arena initialised); fill res/n, then publish. */
kg_dynamic_set *kg_dynamic_new(void);
/* Publish s as the current set (the previous one is retired). */
void kg_dynamic_publish(kg_dynamic_set *s);
/* The current set, or NULL when no CRD is served. Valid until kg_dynamic_reset. */
const kg_dynamic_set *kg_dynamic_current(void);
/* Free the current and every retired set (no request may be running). */
void kg_dynamic_reset(void);

/* Lookups in the current set (NULL when not found). */
const kg_resource *kg_dynamic_find(const char *group, const char *version, const char *plural);
const kg_resource *kg_dynamic_find_kind(const char *group, const char *kind);
const kg_resource *kg_dynamic_find_plural(const char *plural);

/* OpenAPI (api/openapi_dynamic.c): add the definition of d->res[i] (name: the reversed group, version and kind,
 * "com.example.stable.v1.CronTab") with apiVersion, kind and metadata filled in and x-kubernetes-group-version-kind,
 * and the list kind, to a v3 components.schemas object. */
void kg_dynamic_openapi_v3(kg_arena *a, kg_json *schemas, const kg_dynamic_set *d, size_t i);
/* The definition name of a custom resource kind. */
char *kg_dynamic_definition_name(kg_arena *a, const kg_resource *r);

#endif
