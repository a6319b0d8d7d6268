/* apiextensions.k8s.io/v1 CustomResourceDefinitions (apiextensions-apiserver v1.33) and the custom resources they
 * define.
 *
 *   CRD writes (the registry strategy of customresourcedefinitions):
 *     kg_crd_default   spec defaults (§1.1 of the fidelity reference), then the status a controller would write at
 *                      once: acceptedNames, NamesAccepted / Established (or the name conflict), storedVersions,
 *                      Terminating once deleted
 *     kg_crd_validate  CRD validation (§1.2), structural schema rules (§1.3), vendor extensions (§1.4), defaults
 *                      (§1.5) and x-kubernetes-validations compile checks (§1.6), with upstream's messages
 *   The served set (api/dynamic.h):
 *     kg_crd_publish   compile the served versions of the established CRDs into a new dynamic snapshot
 *   Custom resource writes (the registry pipeline, for resources whose ext is a kg_crd_version):
 *     kg_cr_decode     prune and default the decoded object, returning the pruned paths (unknown fields)
 *     kg_cr_default / kg_cr_validate   the strategy's defaulting and validation (schema, list types, CEL rules) */
#ifndef KG_APIEXT_CRD_H
#define KG_APIEXT_CRD_H

#include <stdbool.h>
#include <stddef.h>

#include "api/dynamic.h"
#include "api/resources.h"
#include "apiext/schema.h"
#include "base/arena.h"
#include "json/json.h"
#include "meta/smd/smd.h"
#include "meta/status.h"

#define KG_CRD_GROUP "apiextensions.k8s.io"
#define KG_CRD_FINALIZER "customresourcecleanup.apiextensions.k8s.io"

/* One served version of a CRD, compiled (the ext of its kg_resource). Immutable once published. */
typedef struct kg_crd_version {
    kg_dynamic_info pub; /* first: what api/ reads through kg_dynamic_info_of */
    const char *crd_name;
    const char *list_kind;
    const kg_xs *schema;            /* the version's openAPIV3Schema, compiled */
    const kg_json *schema_json;     /* ... as written (for OpenAPI) */
    const char *const *short_names; /* all of them (kg_resource keeps at most 3), NULL-terminated */
    const char *const *categories;
    bool deprecated;
    const char *deprecation_warning;
    bool terminating; /* the CRD is being deleted: creates are refused */
    /* server-side apply: the schema as structured merge reads it (apiext/smd.c), compiled with the version */
    kg_smd_schema smd;
    const kg_xs *meta_schema; /* ObjectMeta's merge semantics (shared by the snapshot's versions) */
} kg_crd_version;

static inline const kg_crd_version *kg_crd_version_of(const kg_resource *r)
{
    return r ? (const kg_crd_version *)r->ext : NULL;
}

/* ---- CRD strategy ---- */
/* now: the current time as RFC 3339 (condition transition times). old_status: the stored object's status on update
 * (NULL on create; a create's own status is discarded). */
void kg_crd_default(kg_arena *a, kg_json *crd, const char *now);
void kg_crd_validate(kg_arena *a, const kg_json *crd, const kg_json *old, kg_field_errors *errs);
/* The structural-schema and vendor-extension checks of one openAPIV3Schema; path is its field path
 * ("spec.validation.openAPIV3Schema"); status_subresource: the root restriction applies. */
void kg_crd_validate_schema(kg_arena *a, const kg_json *schema, const char *path, bool status_subresource,
                            kg_field_errors *errs);
/* Whether condition `type` of the CRD is True. */
bool kg_crd_condition_true(const kg_json *crd, const char *type);

/* ---- served set ---- */
/* Build the dynamic snapshot from every stored CRD (the served versions of those whose names are accepted) and
 * publish it. crds may be NULL when n is 0. */
void kg_crd_publish(const kg_json *const *crds, size_t n);

/* ---- custom resource pipeline steps ---- */
/* Prune (reporting the dropped paths in *paths / *n, arena strings) and default obj for r (a custom resource). */
void kg_cr_decode(kg_arena *a, const kg_resource *r, kg_json *obj, const char ***paths, size_t *n);
/* The strategy hooks for custom resources: the resource is resolved from obj's apiVersion and kind. */
void kg_cr_default(kg_arena *a, kg_json *obj);
void kg_cr_validate(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs);
/* ---- server-side apply (apiext/smd.c) ---- */
/* The structured-merge schema of custom resource r and its root type; NULL when r is not a custom resource. */
const kg_smd_schema *kg_cr_smd_schema(const kg_resource *r, kg_smd_type *root);
/* The merge type of a value with schema s (list types, map types, deduced when s is NULL). */
kg_smd_type kg_cr_smd_type_of(const kg_xs *s);
/* Publishing: the ObjectMeta schema (compiled into a) and a version's smd hook (v->schema and v->meta_schema set). */
const kg_xs *kg_cr_object_meta_schema(kg_arena *a);
void kg_cr_smd_init(kg_crd_version *v);

/* The custom resource version served for apiVersion/kind, or NULL. */
const kg_resource *kg_cr_resolve(const char *api_version, const char *kind);

#endif
