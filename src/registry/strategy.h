/* Per-resource REST strategies (upstream pkg/registry/<group>/<resource>/strategy.go): the few steps of the write
 * pipeline that differ between resources, as data looked up by resource. Resources without an entry use the
 * generic strategy (all fields false/NULL).
 *
 * What is NOT here because the resource registry entry already says it (api/resources.h): scope, subresources and
 * their kinds, whether .status is owned by the status subresource (has_status), generation tracking. Create-time
 * status resets and defaults live in api/defaults.h (kg_api_prepare_for_create, kg_api_default). */
#ifndef KG_REGISTRY_STRATEGY_H
#define KG_REGISTRY_STRATEGY_H

#include <stdbool.h>

#include "admission/attributes.h"
#include "admission/services.h"
#include "admission/warnings.h"
#include "api/resources.h"
#include "auth/authorizer.h"
#include "base/arena.h"
#include "json/json.h"
#include "meta/status.h"

/* What a write-time check beyond validation may consult (upstream: the request context a strategy receives). */
typedef struct kg_strategy_ctx {
    kg_arena *a;
    const kg_admission_user *user;
    const kg_admission_services *services; /* NULL when the door has none: the checks are skipped */
    kg_warnings *warnings;                 /* NULL: dropped */
} kg_strategy_ctx;
/* What write-time authorization (RBAC escalation prevention) consults: the door's authorizer and the RBAC rule
 * source. A NULL authorizer (kgate check) skips those checks; a NULL rbac holds no rules. */
typedef struct kg_write_authz {
    const kg_authorizer *authorizer;
    struct kg_rbac *rbac;
} kg_write_authz;

typedef struct kg_strategy {
    /* Authorization beyond the request's own, on create and update of the object as sent (after defaults, before
     * admission; old NULL on create): RBAC's escalation checks. Returns a 403/404 Status, or NULL to go on. */
    kg_status *(*authorize_write)(kg_arena *a, const kg_write_authz *az, const kg_user_info *user, const char *ns,
                                  const char *url_name, const kg_json *obj, const kg_json *old);
    /* Create only, after mutating admission and before validation (upstream PrepareForCreate with the request's
     * user): e.g. a CSR's spec.username/uid/groups/extra. */
    void (*prepare_for_create)(kg_arena *a, const kg_user_info *user, kg_json *obj);
    /* Defaulting applied to the object written, after admission and before validation (idempotent). */
    void (*default_on_write)(kg_arena *a, kg_json *obj);
    /* Validation beyond api/validation.h's (e.g. admissionregistration objects, whose CEL expressions are compiled
     * by the admission engine that will run them). old is NULL on create. Errors are field errors (422). */
    void (*validate)(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs);
    /* Once validation passed: checks that depend on who writes and on the cluster (upstream's authorization of an
     * admission policy's paramKind, which is a field error; warnings). old is NULL on create. */
    void (*check_write)(const kg_strategy_ctx *sc, const kg_json *obj, const kg_json *old, kg_field_errors *errs);
    /* The object is a Namespace: admission sees its own name as the namespace, and a delete only marks it
     * (deletionTimestamp, status.phase Terminating); the namespace controller finishes the job. */
    bool is_namespace;
    /* A successful delete answers with the deleted object (pods) instead of a success Status. */
    bool delete_returns_object;
} kg_strategy;

/* The strategy of r (never NULL). */
const kg_strategy *kg_strategy_for(const kg_resource *r);

#endif
