/* MutatingAdmissionWebhook's dispatch over one hook set (mutating.c). */
#ifndef KG_ADMISSION_WEBHOOK_MUTATING_H
#define KG_ADMISSION_WEBHOOK_MUTATING_H

#include "admission/attributes.h"
#include "admission/services.h"
#include "admission/webhook/metrics.h"
#include "admission/webhook/webhook.h"
#include "meta/status.h"

/* Call the matching hooks of set in order (round attrs->is_reinvoke), applying their patches to attrs->object.
 * Each call is recorded in metrics (NULL: not recorded). */
kg_status *kg_webhook_mutate(const kg_webhook_set *set, kg_admission_attributes *attrs,
                             const kg_admission_services *svc, const kg_webhook_metrics *metrics);

#endif
