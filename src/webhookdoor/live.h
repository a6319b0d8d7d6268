/* `kgate webhook --kubeconfig`: the live cluster's namespaces and policies kept in the door's in-memory cluster by
 * informers (client/watch.h → check/mirror.h), one per resource the enabled plugins read. The door is ready
 * (/readyz) once every informer has handed over its first list; afterwards a change in the cluster (a namespace
 * label, a policy, a binding) reaches the plugins as soon as its watch event arrives. A policy with a paramKind makes
 * the door watch that kind too (once per kind), so its params come from the cluster as well; /readyz then waits for
 * that list too. */
#ifndef KG_WEBHOOKDOOR_LIVE_H
#define KG_WEBHOOKDOOR_LIVE_H

#include <stdbool.h>

#include "admission/options.h"
#include "base/error.h"
#include "check/cluster.h"

typedef struct kg_door_live kg_door_live;

/* Read the kubeconfig and start the informers (the lists happen in the background). NULL with err for a bad
 * kubeconfig or bad plugin flags. */
kg_door_live *kg_door_live_start(kg_check_cluster *c, const char *kubeconfig, const kg_admission_options *opts,
                                 kg_error *err);
bool kg_door_live_synced(const kg_door_live *l);
void kg_door_live_stop(kg_door_live *l);

#endif
