/* Group/version/kind/resource identifiers (k8s.io/apimachinery/pkg/runtime/schema).
 * Plain structs of borrowed strings; "" (or NULL) is the core group. */
#ifndef KG_META_GVK_H
#define KG_META_GVK_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/error.h"

typedef struct kg_gvk {
    const char *group;
    const char *version;
    const char *kind;
} kg_gvk;

typedef struct kg_gvr {
    const char *group;
    const char *version;
    const char *resource;
} kg_gvr;

typedef struct kg_gr {
    const char *group;
    const char *resource;
} kg_gr;

typedef struct kg_gk {
    const char *group;
    const char *kind;
} kg_gk;

typedef struct kg_gv {
    const char *group;
    const char *version;
} kg_gv;

#define KG_GR(g, r) ((kg_gr){(g), (r)})
#define KG_GK(g, k) ((kg_gk){(g), (k)})

/* schema.ParseGroupVersion: "" and "/" → {"",""}; "v1" → {"","v1"}; "apps/v1" → {"apps","v1"};
 * more than one '/' → false with "unexpected GroupVersion string: <s>". Strings are arena copies. */
bool kg_gv_parse(kg_arena *a, const char *api_version, kg_gv *out, kg_error *err);
/* GroupVersion.String(): "apps/v1", or "v1" for the core group. */
char *kg_gv_string(kg_arena *a, const char *group, const char *version);
/* GroupResource.String(): "pods" for core, "deployments.apps" otherwise. Same rule for GroupKind. */
char *kg_gr_string(kg_arena *a, kg_gr gr);
char *kg_gk_string(kg_arena *a, kg_gk gk);
/* GroupVersionKind.String(): "apps/v1, Kind=Deployment" ("/v1, Kind=Pod" for core). */
char *kg_gvk_string(kg_arena *a, kg_gvk gvk);
/* GroupVersionResource.String(): "apps/v1, Resource=deployments". */
char *kg_gvr_string(kg_arena *a, kg_gvr gvr);
/* apiVersion field value for a GVK ("apps/v1", "v1"). */
static inline char *kg_gvk_api_version(kg_arena *a, kg_gvk gvk)
{
    return kg_gv_string(a, gvk.group, gvk.version);
}
bool kg_gvk_equal(kg_gvk x, kg_gvk y);
bool kg_gvr_equal(kg_gvr x, kg_gvr y);

#endif
