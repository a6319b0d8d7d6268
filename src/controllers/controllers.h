/* Built-in controllers of kgate serve, on their own threads, acting through a kg_controller_client (client.h):
 *   - namespace controller (namespace.c): deletes a terminating namespace's contents, then the namespace;
 *   - serviceaccounts controller + root-CA publisher (serviceaccount.c): "default" ServiceAccount and
 *     kube-root-ca.crt ConfigMap in every active namespace, driven by the namespace controller's watch;
 *   - quota controller (quota.c): keeps every ResourceQuota's status.used true;
 *   - ValidatingAdmissionPolicy status controller (vapstatus.c): type-checks policies and writes their status.
 *   - clusterrole aggregation controller (clusterroleaggregation.c): fills aggregated ClusterRoles' rules;
 *   - garbage collector (gc/collector.c): ownerReferences with Background, Foreground and Orphan propagation;
 *   - EndpointSlice mirroring controller (endpointslicemirroring.c): slices for selector-less Services' Endpoints. */
#ifndef KG_CONTROLLERS_H
#define KG_CONTROLLERS_H

#include "base/error.h"
#include "controllers/client.h"

typedef struct kg_controllers kg_controllers;

typedef struct kg_controllers_config {
    const char *root_ca_pem; /* CA bundle published as kube-root-ca.crt (NULL or "" when serving plain HTTP) */
} kg_controllers_config;

/* Start every controller. The client is copied (its ctx must outlive kg_controllers_stop); cfg is copied. */
kg_controllers *kg_controllers_start(const kg_controller_client *client, const kg_controllers_config *cfg,
                                     kg_error *err);
void kg_controllers_stop(kg_controllers *c);

#endif
