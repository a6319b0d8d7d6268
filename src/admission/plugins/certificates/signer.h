/* Signer authorization shared by CertificateApproval, CertificateSigning and ClusterTrustBundleAttest
 * (plugin/pkg/admission/certificates/util.go IsAuthorizedForSignerName). */
#ifndef KG_ADMISSION_PLUGINS_CERT_SIGNER_H
#define KG_ADMISSION_PLUGINS_CERT_SIGNER_H

#include <stdbool.h>

#include "admission/plugin.h"

/* Whether the request's user may `verb` ("approve", "sign", "attest") the signer: the services' authorizer is asked
 * for {verb, certificates.k8s.io, apiVersion "*", resource "signers", name signer}, then, if not allowed, for the
 * signer's domain wildcard: the domain (the part before the first slash), a slash and "*". Only Allow counts. */
bool kg_admission_cert_signer_authorized(const kg_admission_attributes *a, const kg_admission_services *svc,
                                         const char *verb, const char *signer);

#endif
