/* The controllers' client (controllers/client.h) directly over a kg_store, for a cluster whose controllers are
 * driven synchronously by the door rather than by watches: `kgate check` calls the serviceaccounts controller and
 * root-CA publisher (controllers/serviceaccount.h) after each Namespace it admits, and the quota controller's sync
 * after each ResourceQuota, so later objects see what serve's controllers would have made by then.
 *
 * Reads, writes and deletes are those of registry/storeservices.h (serve's loopback client uses the same functions);
 * the namespace sweep is kg_pipeline_delete_namespace_contents. No watches (watch_open is NULL): nothing here runs
 * a controller loop.
 *
 * src/registry includes controllers/client.h (a header-only interface) for this; it links nothing of
 * kgate_controllers. */
#ifndef KG_REGISTRY_STORECLIENT_H
#define KG_REGISTRY_STORECLIENT_H

#include "admission/services.h"
#include "controllers/client.h"
#include "storage/storage.h"

/* The client over store (ctx = store); services (may be NULL) is handed to controllers that share admission's
 * view of the cluster. Both must outlive the client. */
kg_controller_client kg_store_controller_client(kg_store *store, const kg_admission_services *services);

#endif
