/* Leader election on a coordination.k8s.io/v1 Lease, as client-go's tools/leaderelection with the Lease lock: the
 * controllers of several kgate replicas (on one etcd) run on one replica at a time.
 *
 * Every retry period (jittered by up to 1.2x) a candidate reads the Lease. Absent: it creates it holding it. Held by
 * another and renewed (the record changed) within the lease duration as seen on the candidate's own clock: it
 * waits. Otherwise (its own, or expired) it updates it, carrying the Lease's resourceVersion, so of racing
 * candidates one wins and the others get a conflict. The holder renews every retry period and steps down (on_stop)
 * when it could not renew for renew_deadline. Stopping the elector releases a held Lease (holderIdentity emptied,
 * leaseDurationSeconds 1, as ReleaseOnCancel) so another replica takes over at once. Like client-go, this does not
 * fence: for a moment two replicas may both act, and every controller write is a compare-and-swap anyway. */
#ifndef KG_CONTROLLERS_LEADERELECTION_H
#define KG_CONTROLLERS_LEADERELECTION_H

#include <stdbool.h>

#include "base/error.h"
#include "controllers/client.h"

typedef struct kg_leader_config {
    const char *ns, *name; /* the Lease, e.g. kube-system/kgate-controller-manager */
    const char *identity;  /* this candidate, unique: "<hostname>_<random>" */
    int lease_duration_ms; /* 0 = 15 s (kube-controller-manager's --leader-elect-lease-duration) */
    int renew_deadline_ms; /* 0 = 10 s */
    int retry_period_ms;   /* 0 = 2 s */
    /* Called on the elector's thread when this candidate becomes leader / stops being leader (also at stop). */
    void (*on_start)(void *ud);
    void (*on_stop)(void *ud);
    void *ud;
} kg_leader_config;

typedef struct kg_leader_elector kg_leader_elector;

/* The client and cfg are copied (strings too); the client's ctx must outlive kg_leader_elector_stop. */
kg_leader_elector *kg_leader_elector_start(const kg_controller_client *client, const kg_leader_config *cfg,
                                           kg_error *err);
bool kg_leader_elector_is_leader(kg_leader_elector *e);
/* Stop: on_stop if leading, release the Lease, join the thread. NULL is fine. */
void kg_leader_elector_stop(kg_leader_elector *e);

#endif
