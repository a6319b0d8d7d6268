/* EventRateLimit (plugin/pkg/admission/eventratelimit): validating, CREATE/UPDATE of core Events; configuration
 * required (eventratelimit.admission.k8s.io/v1alpha1 Configuration). */
#ifndef KG_ADMISSION_PLUGINS_EVENTRATELIMIT_H
#define KG_ADMISSION_PLUGINS_EVENTRATELIMIT_H

#include "admission/plugin.h"

extern const kg_admission_plugin kg_admission_plugin_event_rate_limit;

#endif
