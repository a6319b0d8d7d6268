/* CertificateSigningRequests' create strategy (k/k pkg/registry/certificates/certificates/strategy.go
 * PrepareForCreate): whatever the client sent in spec.username/uid/groups/extra is replaced by the requesting user,
 * and status is reset to empty conditions (no pre-approved requests). Runs after mutating admission, before
 * validation, as upstream's BeforeCreate. */
#ifndef KG_REGISTRY_CSRSTRATEGY_H
#define KG_REGISTRY_CSRSTRATEGY_H

#include "auth/user.h"
#include "base/arena.h"
#include "json/json.h"

void kg_csr_prepare_for_create(kg_arena *a, const kg_user_info *user, kg_json *obj);

#endif
