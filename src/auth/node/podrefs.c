/* Pod references (see podrefs.h). */
#include "auth/node/podrefs.h"

#include <stdio.h>
#include <string.h>

static const char *str_at(const kg_json *v, const char *path)
{
    const char *s = kg_json_path_str(v, path);
    return s && *s ? s : NULL;
}

#define EMIT(kind, name)                                                                                               \
    do {                                                                                                               \
        const char *n_ = (name);                                                                                       \
        if (n_ && !fn(ud, (kind), n_))                                                                                 \
            return false;                                                                                              \
    } while (0)

static bool containers(const kg_json *spec, const char *list, kg_podref_fn fn, void *ud)
{
    const kg_json *cs = kg_json_get(spec, list);
    for (size_t i = 0; kg_json_is(cs, KG_JSON_ARRAY) && i < cs->len; i++) {
        const kg_json *c = kg_json_at(cs, i);
        const kg_json *ef = kg_json_get(c, "envFrom");
        for (size_t j = 0; kg_json_is(ef, KG_JSON_ARRAY) && j < ef->len; j++) {
            EMIT(KG_PODREF_SECRET, str_at(kg_json_at(ef, j), "secretRef.name"));
            EMIT(KG_PODREF_CONFIGMAP, str_at(kg_json_at(ef, j), "configMapRef.name"));
        }
        const kg_json *env = kg_json_get(c, "env");
        for (size_t j = 0; kg_json_is(env, KG_JSON_ARRAY) && j < env->len; j++) {
            EMIT(KG_PODREF_SECRET, str_at(kg_json_at(env, j), "valueFrom.secretKeyRef.name"));
            EMIT(KG_PODREF_CONFIGMAP, str_at(kg_json_at(env, j), "valueFrom.configMapKeyRef.name"));
        }
    }
    return true;
}

bool kg_podrefs_visit(const kg_json *pod, kg_podref_fn fn, void *ud)
{
    const kg_json *spec = kg_json_get(pod, "spec");
    EMIT(KG_PODREF_SERVICEACCOUNT, str_at(spec, "serviceAccountName"));
    const kg_json *ips = kg_json_get(spec, "imagePullSecrets");
    for (size_t i = 0; kg_json_is(ips, KG_JSON_ARRAY) && i < ips->len; i++)
        EMIT(KG_PODREF_SECRET, str_at(kg_json_at(ips, i), "name"));
    if (!containers(spec, "initContainers", fn, ud) || !containers(spec, "containers", fn, ud) ||
        !containers(spec, "ephemeralContainers", fn, ud))
        return false;
    static const char *const secret_paths[] = {"azureFile.secretName",     "cephfs.secretRef.name",
                                               "cinder.secretRef.name",    "flexVolume.secretRef.name",
                                               "rbd.secretRef.name",       "secret.secretName",
                                               "scaleIO.secretRef.name",   "iscsi.secretRef.name",
                                               "storageos.secretRef.name", "csi.nodePublishSecretRef.name"};
    const char *pod_name = str_at(pod, "metadata.name");
    const kg_json *vols = kg_json_get(spec, "volumes");
    for (size_t i = 0; kg_json_is(vols, KG_JSON_ARRAY) && i < vols->len; i++) {
        const kg_json *v = kg_json_at(vols, i);
        for (size_t k = 0; k < sizeof secret_paths / sizeof secret_paths[0]; k++)
            EMIT(KG_PODREF_SECRET, str_at(v, secret_paths[k]));
        EMIT(KG_PODREF_CONFIGMAP, str_at(v, "configMap.name"));
        const kg_json *srcs = kg_json_path(v, "projected.sources");
        for (size_t j = 0; kg_json_is(srcs, KG_JSON_ARRAY) && j < srcs->len; j++) {
            EMIT(KG_PODREF_SECRET, str_at(kg_json_at(srcs, j), "secret.name"));
            EMIT(KG_PODREF_CONFIGMAP, str_at(kg_json_at(srcs, j), "configMap.name"));
        }
        EMIT(KG_PODREF_PVC, str_at(v, "persistentVolumeClaim.claimName"));
        if (kg_json_path(v, "ephemeral.volumeClaimTemplate") && pod_name) {
            char buf[512];
            snprintf(buf, sizeof buf, "%s-%s", pod_name, kg_json_get_str(v, "name") ? kg_json_get_str(v, "name") : "");
            EMIT(KG_PODREF_PVC, buf);
        }
    }
    /* resource claims: the generated names are recorded in status.resourceClaimStatuses */
    const kg_json *claims = kg_json_get(spec, "resourceClaims");
    for (size_t i = 0; kg_json_is(claims, KG_JSON_ARRAY) && i < claims->len; i++)
        EMIT(KG_PODREF_RESOURCECLAIM, str_at(kg_json_at(claims, i), "resourceClaimName"));
    const kg_json *st = kg_json_path(pod, "status.resourceClaimStatuses");
    for (size_t i = 0; kg_json_is(st, KG_JSON_ARRAY) && i < st->len; i++)
        EMIT(KG_PODREF_RESOURCECLAIM, str_at(kg_json_at(st, i), "resourceClaimName"));
    return true;
}
