/* The API objects a pod references (k8s.io/kubernetes pkg/api/v1/pod VisitPodSecretNames / VisitPodConfigmapNames,
 * plus its service account, PVCs, generic ephemeral volumes' PVCs and resource claims): the edges the Node
 * authorizer's graph draws from a pod. */
#ifndef KG_AUTH_NODE_PODREFS_H
#define KG_AUTH_NODE_PODREFS_H

#include <stdbool.h>

#include "json/json.h"

typedef enum kg_podref_kind {
    KG_PODREF_SECRET = 1,
    KG_PODREF_CONFIGMAP,
    KG_PODREF_PVC,
    KG_PODREF_SERVICEACCOUNT,
    KG_PODREF_RESOURCECLAIM,
} kg_podref_kind;

/* Return false to stop the visit. name is borrowed from the pod (or, for ephemeral PVCs, a temporary). */
typedef bool (*kg_podref_fn)(void *ud, kg_podref_kind kind, const char *name);

/* Visit pod's references (every container kind, volumes incl. projected sources and the secret refs of
 * azureFile/cephfs/cinder/flexVolume/rbd/scaleIO/iscsi/storageos/csi, imagePullSecrets, env and envFrom). Returns
 * false when fn stopped it. */
bool kg_podrefs_visit(const kg_json *pod, kg_podref_fn fn, void *ud);

#endif
