/* Built-in admission plugins, second batch: LimitRanger, ServiceAccount, EventRateLimit, plus the helpers for the
 * controllers ServiceAccount relies on (a `default` ServiceAccount and a `kube-root-ca.crt` ConfigMap in every
 * namespace) and the LimitRange defaulting the server applies when a LimitRange is written. */
#ifndef KG_ADMISSION_PLUGINS_BATCH2_H
#define KG_ADMISSION_PLUGINS_BATCH2_H

#include "admission/plugin.h"
#include "base/arena.h"
#include "json/json.h"

/* LimitRanger (plugin/pkg/admission/limitranger): M+V, CREATE/UPDATE of pods and PVCs; no configuration. */
extern const kg_admission_plugin kg_admission_plugin_limit_ranger;
/* ServiceAccount (plugin/pkg/admission/serviceaccount): M+V, CREATE/UPDATE of pods; no configuration. */
extern const kg_admission_plugin kg_admission_plugin_service_account;
/* EventRateLimit (plugin/pkg/admission/eventratelimit): V, CREATE/UPDATE of core Events; configuration required
 * (eventratelimit.admission.k8s.io/v1alpha1 Configuration). */
extern const kg_admission_plugin kg_admission_plugin_event_rate_limit;

/* LimitRange defaulting (pkg/apis/core/v1 SetDefaults_LimitRangeItem), in place on a LimitRange object: for items
 * of type Container, a missing default[k] takes max[k]; a missing defaultRequest[k] takes default[k], then min[k].
 * Idempotent. The server calls it on LimitRange create/update before validation. */
void kg_admission_limitrange_defaults(kg_arena *a, kg_json *limitrange);

/* ---- ServiceAccount controllers (the server calls these from its namespace watch) ---- */
#define KG_SA_DEFAULT_NAME "default"
#define KG_SA_ROOT_CA_CONFIGMAP "kube-root-ca.crt"
#define KG_SA_ROOT_CA_KEY "ca.crt"

/* The ServiceAccount the serviceaccounts-controller creates in every active namespace:
 * {"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default","namespace":ns}}. */
kg_json *kg_sa_default_serviceaccount(kg_arena *a, const char *ns);
/* The ConfigMap the root-ca-cert-publisher creates in every active namespace: name kube-root-ca.crt, annotation
 * kubernetes.io/description (upstream's text), data {"ca.crt": ca_pem}. */
kg_json *kg_sa_root_ca_configmap(kg_arena *a, const char *ns, const char *ca_pem);
/* Whether an existing kube-root-ca.crt ConfigMap must be updated (upstream's publisher compares data and the
 * description annotation); the updated object (a copy of existing with data/annotation fixed) is returned, or NULL
 * when it is already right. */
kg_json *kg_sa_root_ca_configmap_fix(kg_arena *a, const kg_json *existing, const char *ca_pem);
/* The controllers only act on namespaces that are not being terminated (status.phase != Terminating and no
 * deletionTimestamp). */
bool kg_sa_namespace_active(const kg_json *ns);

#endif
