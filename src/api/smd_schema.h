/* The built-in kinds' schemas (api/schema.h) as a structured-merge-diff schema (meta/smd/smd.h), the list and map
 * semantics server-side apply and managedFields use (kube-openapi schemaconv): x-kubernetes-list-type map / set /
 * atomic, else patchStrategy merge with a patchMergeKey (keyed) or without (a set), else atomic; maps granular;
 * struct fields by their types; fields the schema does not declare are deduced. */
#ifndef KG_API_SMD_SCHEMA_H
#define KG_API_SMD_SCHEMA_H

#include "api/resources.h"
#include "meta/smd/smd.h"

/* Immutable; safe from any thread. */
const kg_smd_schema *kg_api_smd_schema(void);
/* The root type of a served resource's objects (deduced when kgate has no schema for the kind). */
kg_smd_type kg_api_smd_root(const kg_resource *r);

#endif
