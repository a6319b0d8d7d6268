/* ValidatingAdmissionWebhook's dispatch over one hook set (validating.c). */
#ifndef KG_ADMISSION_WEBHOOK_VALIDATING_H
#define KG_ADMISSION_WEBHOOK_VALIDATING_H

#include "admission/attributes.h"
#include "admission/services.h"
#include "admission/webhook/metrics.h"
#include "admission/webhook/webhook.h"
#include "meta/status.h"

/* Call the matching hooks of set in parallel; every one must allow. attrs is only written on the calling thread
 * (warnings, audit annotations), after the calls; the calls are recorded in metrics there too (NULL: not recorded). */
kg_status *kg_webhook_validate(const kg_webhook_set *set, kg_admission_attributes *attrs,
                               const kg_admission_services *svc, const kg_webhook_metrics *metrics);

#endif
