/* ValidatingAdmissionPolicy status controller (upstream pkg/controller/validatingadmissionpolicystatus, run by
 * kube-controller-manager): when a policy is created or its spec changes (metadata.generation above
 * status.observedGeneration), type-check it (admission/policy/policy.h kg_vap_typecheck, over the schemas the
 * client's admission services provide) and write status.observedGeneration and status.typeChecking
 * ({expressionWarnings: [{fieldRef, warning}]}, the list omitted when empty), as upstream's apply of the status.
 *
 * Beyond upstream (which writes no conditions): a policy whose paramKind names a kind that is not served gets the
 * condition {type: ParamKindResolved, status: "False", reason: ParamKindNotFound, message: "failed to find resource
 * referenced by paramKind: '<group>/<version>, Kind=<kind>'"} (the configuration error its requests then get), so
 * the mistake shows in `kubectl get validatingadmissionpolicy -o yaml` before a request meets it; the condition is
 * removed once the kind resolves. Other conditions are kept.
 *
 * Existing policies are reconciled when the controller starts; changes arrive through a watch. Writes replace the
 * object with its resourceVersion as precondition and touch only .status (a conflict re-reads and retries). */
#ifndef KG_CONTROLLERS_VAPSTATUS_H
#define KG_CONTROLLERS_VAPSTATUS_H

#include <time.h>

#include "base/arena.h"
#include "base/error.h"
#include "controllers/client.h"
#include "json/json.h"

typedef struct kg_vapstatus_controller kg_vapstatus_controller;

kg_vapstatus_controller *kg_vapstatus_controller_start(const kg_controller_client *c, kg_error *err);
void kg_vapstatus_controller_stop(kg_vapstatus_controller *v);

/* The status the controller writes for policy (upstream's reconcile), in a; NULL when the policy's status is
 * already current (generation <= status.observedGeneration). now: the time for a new condition's
 * lastTransitionTime. */
kg_json *kg_vapstatus_compute(kg_arena *a, const kg_admission_services *svc, const kg_json *policy, time_t now);

/* Reconcile one policy by name through the client: read it, and write its status when not current. */
bool kg_vapstatus_reconcile(const kg_controller_client *c, kg_arena *a, const char *name, kg_error *err);

#endif
