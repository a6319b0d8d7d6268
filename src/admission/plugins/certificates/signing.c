/* CertificateSigning (plugin/pkg/admission/certificates/signing), validating, UPDATE of
 * certificatesigningrequests/status: setting or changing status.certificate needs `sign` on the CSR's signer
 * (signer.h), read from the *old* object. Status updates that leave the certificate alone (conditions) pass without
 * an authorization check. */
#include <string.h>

#include "admission/plugins/certificates/signer.h"
#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"

static const kg_json *certificate(const kg_json *csr)
{
    const kg_json *c = kg_json_path(csr, "status.certificate");
    /* []byte: absent, null and "" are all the empty slice for DeepEqual's purposes here */
    return kg_json_is(c, KG_JSON_STRING) && c->len ? c : NULL;
}

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    (void)state;
    if (strcmp(a->resource.group, "certificates.k8s.io") ||
        strcmp(a->resource.resource, "certificatesigningrequests") || strcmp(a->subresource, "status"))
        return NULL;
    if (!a->old_object || !kg_admission_pu_obj_kind(a->old_object, "CertificateSigningRequest"))
        return kg_admission_forbidden(a, "expected type CertificateSigningRequest, got: *certificates.%s",
                                      a->old_object ? kg_admission_pu_str(a->old_object, "kind") : "<nil>");
    if (!a->object || !kg_admission_pu_obj_kind(a->object, "CertificateSigningRequest"))
        return kg_admission_forbidden(a, "expected type CertificateSigningRequest, got: *certificates.%s",
                                      a->object ? kg_admission_pu_str(a->object, "kind") : "<nil>");
    const kg_json *oldc = certificate(a->old_object), *newc = certificate(a->object);
    if ((!oldc && !newc) || (oldc && newc && kg_json_equal(oldc, newc)))
        return NULL;
    const char *signer = kg_json_path_str(a->old_object, "spec.signerName");
    if (!signer)
        signer = "";
    if (!kg_admission_cert_signer_authorized(a, svc, "sign", signer))
        return kg_admission_forbidden(a, "user not permitted to sign requests with signerName %s",
                                      kg_admission_pu_quote(a->arena, signer));
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_certificate_signing = {
    .name = "CertificateSigning",
    .handles = KG_ADMISSION_UPDATE,
    .validate = validate,
};
