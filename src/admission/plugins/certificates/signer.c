/* IsAuthorizedForSignerName (see signer.h). */
#include "admission/plugins/certificates/signer.h"

#include <string.h>

static bool allowed(const kg_admission_attributes *a, const kg_admission_services *svc, const char *verb,
                    const char *name)
{
    kg_authz_attributes z = {.user = &a->user,
                             .verb = verb,
                             .resource_request = true,
                             .api_group = "certificates.k8s.io",
                             .api_version = "*",
                             .resource = "signers",
                             .name = name};
    const char *reason = NULL;
    return kg_admission_authorize(svc, &z, a->arena, &reason, NULL) == KG_AUTHZ_ALLOW;
}

bool kg_admission_cert_signer_authorized(const kg_admission_attributes *a, const kg_admission_services *svc,
                                         const char *verb, const char *signer)
{
    if (allowed(a, svc, verb, signer))
        return true;
    const char *slash = strchr(signer, '/');
    size_t dlen = slash ? (size_t)(slash - signer) : strlen(signer);
    return allowed(a, svc, verb, kg_arena_sprintf(a->arena, "%.*s/*", (int)dlen, signer));
}
