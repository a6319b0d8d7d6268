/* CertificateSubjectRestriction (plugin/pkg/admission/certificates/subjectrestriction), validating, CREATE of
 * certificatesigningrequests: a CSR for the kubernetes.io/kube-apiserver-client signer may not ask for the
 * system:masters group (organization), which would bypass authorization entirely.
 * The CSR is read by certificates/csr.h. */
#include <string.h>

#include "admission/plugins/certificates/csr.h"
#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"

#define SIGNER "kubernetes.io/kube-apiserver-client"
#define MASTERS "system:masters"

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (!kg_admission_pu_is(a, "certificates.k8s.io", "certificatesigningrequests"))
        return NULL;
    if (!kg_admission_pu_obj_kind(a->object, "CertificateSigningRequest"))
        return kg_admission_forbidden(a, "expected type CertificateSigningRequest, got: *certificates.%s",
                                      kg_admission_pu_str(a->object, "kind"));
    const char *signer = kg_json_path_str(a->object, "spec.signerName");
    if (!signer || strcmp(signer, SIGNER) != 0)
        return NULL;
    const kg_json *req = kg_json_path(a->object, "spec.request");
    const char *txt = kg_json_is(req, KG_JSON_STRING) ? req->u.s : "";
    size_t len = kg_json_is(req, KG_JSON_STRING) ? req->len : 0;
    kg_admission_csr_subject subj;
    const char *perr = kg_admission_csr_parse(a->arena, txt, len, &subj);
    if (perr)
        return kg_admission_forbidden(a, "failed to parse CSR: %s", perr);
    if (subj.masters)
        return kg_admission_forbidden(a, "use of %s signer with %s group is not allowed", SIGNER, MASTERS);
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_certificate_subject_restriction = {
    .name = "CertificateSubjectRestriction",
    .handles = KG_ADMISSION_CREATE,
    .validate = validate,
};
