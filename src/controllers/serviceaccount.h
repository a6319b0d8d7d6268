/* The objects two kube-controller-manager controllers keep in every namespace, which the ServiceAccount plugin and
 * its projected token volume rely on:
 *   - serviceaccounts-controller (pkg/controller/serviceaccount): a ServiceAccount named "default";
 *   - root-ca-cert-publisher (pkg/controller/certificates/rootcacertpublisher): a ConfigMap kube-root-ca.crt with
 *     the cluster CA bundle under ca.crt and a description annotation.
 * The namespace controller calls kg_sa_controllers_sync for every namespace it sees; the builders do no I/O. */
#ifndef KG_CONTROLLERS_SERVICEACCOUNT_H
#define KG_CONTROLLERS_SERVICEACCOUNT_H

#include <stdbool.h>

#include "admission/plugins/serviceaccount.h"
#include "base/arena.h"
#include "controllers/client.h"
#include "json/json.h"

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

/* Ensure namespace ns (a Namespace object) has both objects, creating or fixing them through c; inactive
 * namespaces are skipped. Failures are logged (the next resync retries). */
void kg_sa_controllers_sync(const kg_controller_client *c, kg_arena *a, const kg_json *ns, const char *ca_pem);

#endif
