/* NodeRestriction internals (plugin/pkg/admission/noderestriction): the per-resource checks, each returning NULL
 * (allowed) or a Status in the request arena. node is the requesting node's name (never ""). */
#ifndef KG_ADMISSION_NODERESTRICTION_H
#define KG_ADMISSION_NODERESTRICTION_H

#include "admission/plugins/plugin_util.h"

/* pods, pods/status, pods/eviction (pods.c) */
kg_status *kg_nr_admit_pod(const char *node, const kg_admission_attributes *a, const kg_admission_services *svc);
kg_status *kg_nr_admit_pod_status(const char *node, const kg_admission_attributes *a);
kg_status *kg_nr_admit_pod_eviction(const char *node, const kg_admission_attributes *a,
                                    const kg_admission_services *svc);
/* serviceaccounts/token (token.c) */
kg_status *kg_nr_admit_service_account(const char *node, const kg_admission_attributes *a,
                                       const kg_admission_services *svc);
/* The pod from the cache: NULL with *st = 404 `pod "x" not found` (the lister's error) or a 403 wrap. */
const kg_json *kg_nr_get_pod(const kg_admission_attributes *a, const kg_admission_services *svc, const char *name,
                             kg_status **st);

#endif
