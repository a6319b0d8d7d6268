/* ClusterTrustBundleAttest (plugin/pkg/admission/certificates/ctbattest), validating, CREATE/UPDATE of
 * clustertrustbundles.certificates.k8s.io: a bundle that names a signer (spec.signerName) needs `attest` on that
 * signer (signer.h), checked against the *new* object (validation rejects signer changes). Updates that only touch
 * the garbage collector's fields (ownerReferences, finalizers, managedFields; rbac IsOnlyMutatingGCFields) pass.
 * A no-op unless the ClusterTrustBundle feature gate is on (beta, off by default in v1.33). kgate does not serve
 * ClusterTrustBundle yet, so in `kgate serve` the plugin never sees a request; the webhook and check doors do. */
#include <string.h>

#include "admission/plugins/certificates/signer.h"
#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"

/* IsOnlyMutatingGCFields: the new object with the old GC fields put back equals the old object. */
static bool only_gc_fields(kg_arena *ar, const kg_json *obj, const kg_json *old)
{
    if (!kg_json_is(obj, KG_JSON_OBJECT) || !kg_json_is(old, KG_JSON_OBJECT))
        return false;
    kg_json *copy = kg_json_clone(ar, obj);
    kg_json *meta = kg_json_get(copy, "metadata");
    const kg_json *ometa = kg_json_get(old, "metadata");
    static const char *const gc[] = {"ownerReferences", "finalizers", "selfLink", "managedFields"};
    if (kg_json_is(meta, KG_JSON_OBJECT))
        for (size_t i = 0; i < sizeof gc / sizeof gc[0]; i++) {
            kg_json_del(meta, gc[i]);
            const kg_json *v = kg_json_get(ometa, gc[i]);
            if (v)
                kg_json_set(ar, meta, gc[i], kg_json_clone(ar, v));
        }
    return kg_json_equal(copy, old);
}

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    (void)state;
    if (!kg_admission_feature(svc, "ClusterTrustBundle"))
        return NULL;
    if (strcmp(a->resource.group, "certificates.k8s.io") || strcmp(a->resource.resource, "clustertrustbundles"))
        return NULL;
    if (!a->object || !kg_admission_pu_obj_kind(a->object, "ClusterTrustBundle"))
        return kg_admission_forbidden(a, "expected type ClusterTrustBundle, got: *certificates.%s",
                                      a->old_object ? kg_admission_pu_str(a->old_object, "kind") : "<nil>");
    const char *signer = kg_json_path_str(a->object, "spec.signerName");
    if (!signer || !*signer)
        return NULL;
    if (a->operation == KG_ADMISSION_UPDATE && only_gc_fields(a->arena, a->object, a->old_object))
        return NULL;
    if (!kg_admission_cert_signer_authorized(a, svc, "attest", signer))
        return kg_admission_forbidden(a, "user not permitted to attest for signerName %s",
                                      kg_admission_pu_quote(a->arena, signer));
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_cluster_trust_bundle_attest = {
    .name = "ClusterTrustBundleAttest",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE,
    .validate = validate,
};
