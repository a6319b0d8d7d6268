/* The resource registry: every resource kgate serves, declared in one table (group, version, kind, plural,
 * singular, short names, scope, subresources, verbs). Discovery documents are derived from it. */
#ifndef KG_API_RESOURCES_H
#define KG_API_RESOURCES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "json/json.h"

/* verbs, as a bit mask */
enum {
    KG_VERB_CREATE = 1u << 0,
    KG_VERB_DELETE = 1u << 1,
    KG_VERB_DELETECOLLECTION = 1u << 2,
    KG_VERB_GET = 1u << 3,
    KG_VERB_LIST = 1u << 4,
    KG_VERB_PATCH = 1u << 5,
    KG_VERB_UPDATE = 1u << 6,
    KG_VERB_WATCH = 1u << 7,
};
#define KG_VERBS_ALL 0xffu
#define KG_VERBS_GET_PATCH_UPDATE (KG_VERB_GET | KG_VERB_PATCH | KG_VERB_UPDATE)

typedef enum kg_subresource_kind {
    KG_SUB_STATUS = 1,        /* object/status: same kind, only .status changes */
    KG_SUB_SCALE,             /* autoscaling/v1 Scale view of spec.replicas */
    KG_SUB_BINDING,           /* pods/binding: create a Binding → sets spec.nodeName */
    KG_SUB_EPHEMERAL,         /* pods/ephemeralcontainers: only spec.ephemeralContainers changes */
    KG_SUB_APPROVAL,          /* certificatesigningrequests/approval: only status.conditions change */
    KG_SUB_TOKEN,             /* serviceaccounts/token: a TokenRequest, answered by server/satoken.h */
    KG_SUB_EVICTION,          /* pods/eviction: create a policy/v1 Eviction → the pod is deleted if PDBs allow */
} kg_subresource_kind;

typedef struct kg_subresource {
    const char *name;
    kg_subresource_kind kind;
    unsigned verbs;
    const char *group, *version, *obj_kind; /* kind served by the subresource (Scale, Binding, ...) */
} kg_subresource;

#define KG_MAX_SUBRESOURCES 4

typedef struct kg_resource {
    const char *group;
    const char *version;
    const char *kind;
    const char *plural;
    const char *singular;
    const char *short_names[4]; /* NULL-terminated */
    const char *categories[2];  /* NULL-terminated ("all") */
    bool namespaced;
    unsigned verbs;
    kg_subresource subresources[KG_MAX_SUBRESOURCES];
    bool has_status;     /* the main resource ignores .status changes on update (it has a status subresource) */
    bool tracks_generation; /* metadata.generation bumps on spec changes */
    /* derived */
    const char *list_kind;    /* "<Kind>List" */
    const char *api_version;  /* "v1" / "apps/v1" */
    const char *storage_prefix; /* "/registry/<plural>/" (core) or "/registry/<group>/<plural>/" */
    int index;
    /* Custom resources (api/dynamic.h) only: index is -1, ext is apiext's compiled CRD version (apiext/registry.h)
     * and storage_version marks the CRD's storage version (listed first). NULL/false for built-in resources. */
    const void *ext;
    bool storage_version;
    /* A built-in resource stored as another one (api/versions.h; storage_prefix is then that resource's), else
     * NULL. Set from the conversion table when the table is initialised. */
    const struct kg_version_conv *conv;
} kg_resource;

/* All served built-in resources, in table order (custom resources are found by the lookups below and listed by
 * discovery, but are not part of this index). */
size_t kg_resources_count(void);
/* Serve MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding (admissionregistration.k8s.io) in version
 * "v1beta1" or "v1alpha1" (NULL: not served, the default). Process-wide; call at start-up, before the resources
 * are used (kgate serve with the MutatingAdmissionPolicy gate and --runtime-config). False for another version. */
bool kg_resources_serve_mutating_policies(const char *version);
const kg_resource *kg_resource_at(size_t i);
/* By group ("" for core), version and plural. NULL if not served. */
const kg_resource *kg_resource_find(const char *group, const char *version, const char *plural);
/* By group and kind (any served version). */
const kg_resource *kg_resource_find_kind(const char *group, const char *kind);
/* By plural in any group (first match; core first). */
const kg_resource *kg_resource_find_plural(const char *plural);
/* The served built-in resources whose storage prefix is exactly prefix[0..len) ("/registry/pods/"), in table order,
 * into out (at most max); returns how many. A binary search over an index built once: for mapping storage keys
 * back to resources without scanning the table. */
size_t kg_resource_by_storage_prefix(const char *prefix, size_t len, const kg_resource **out, size_t max);
const kg_subresource *kg_resource_subresource(const kg_resource *r, const char *name);

/* Storage key of an object: prefix + (namespace "/")? name. */
char *kg_resource_key(kg_arena *a, const kg_resource *r, const char *ns, const char *name);
/* Storage prefix for a list: the resource's prefix, narrowed to one namespace when ns is non-empty. */
char *kg_resource_list_prefix(kg_arena *a, const kg_resource *r, const char *ns);

/* ---- discovery (legacy, as served by kube-apiserver) ---- */
kg_json *kg_discovery_api_versions(kg_arena *a);                          /* /api */
kg_json *kg_discovery_api_groups(kg_arena *a);                            /* /apis */
kg_json *kg_discovery_api_group(kg_arena *a, const char *group);          /* /apis/<g> (NULL if unknown) */
kg_json *kg_discovery_resource_list(kg_arena *a, const char *group, const char *version); /* NULL if unknown */
/* Aggregated discovery (apidiscovery.k8s.io/v2 APIGroupDiscoveryList) for /api (core=true) or /apis. */
kg_json *kg_discovery_aggregated(kg_arena *a, bool core);

#endif
