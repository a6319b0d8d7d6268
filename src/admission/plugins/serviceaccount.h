/* ServiceAccount (plugin/pkg/admission/serviceaccount): mutating + validating, CREATE/UPDATE of pods; no
 * configuration. The names below are shared with the controllers that keep the objects the plugin relies on in
 * every namespace (src/controllers/serviceaccount.h). */
#ifndef KG_ADMISSION_PLUGINS_SERVICEACCOUNT_H
#define KG_ADMISSION_PLUGINS_SERVICEACCOUNT_H

#include "admission/plugin.h"

extern const kg_admission_plugin kg_admission_plugin_service_account;

/* The ServiceAccount every namespace has, and the ConfigMap holding the cluster CA (key ca.crt) that the projected
 * kube-api-access-* volume mounts. */
#define KG_SA_DEFAULT_NAME "default"
#define KG_SA_ROOT_CA_CONFIGMAP "kube-root-ca.crt"
#define KG_SA_ROOT_CA_KEY "ca.crt"

#endif
