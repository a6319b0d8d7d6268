/* CertificateApproval (plugin/pkg/admission/certificates/approval), validating, UPDATE of
 * certificatesigningrequests/approval: the user must be allowed to `approve` the CSR's signer (signer.h). The
 * signer is read from the *old* object, so a request cannot change the signer name to one it may approve. */
#include <string.h>

#include "admission/plugins/certificates/signer.h"
#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    (void)state;
    if (strcmp(a->resource.group, "certificates.k8s.io") ||
        strcmp(a->resource.resource, "certificatesigningrequests") || strcmp(a->subresource, "approval"))
        return NULL;
    if (!a->old_object || !kg_admission_pu_obj_kind(a->old_object, "CertificateSigningRequest"))
        return kg_admission_forbidden(a, "expected type CertificateSigningRequest, got: *certificates.%s",
                                      a->old_object ? kg_admission_pu_str(a->old_object, "kind") : "<nil>");
    const char *signer = kg_json_path_str(a->old_object, "spec.signerName");
    if (!signer)
        signer = "";
    if (!kg_admission_cert_signer_authorized(a, svc, "approve", signer))
        return kg_admission_forbidden(a, "user not permitted to approve requests with signerName %s",
                                      kg_admission_pu_quote(a->arena, signer));
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_certificate_approval = {
    .name = "CertificateApproval",
    .handles = KG_ADMISSION_UPDATE,
    .validate = validate,
};
