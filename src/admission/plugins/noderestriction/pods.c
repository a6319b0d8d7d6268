/* NodeRestriction for pods: nodes create only mirror pods bound to themselves that reference no other API objects,
 * delete and evict only their own pods, and update only the status of their own pods without relabelling them. */
#include <string.h>

#include "admission/plugins/noderestriction/noderestriction.h"
#include "auth/node/podrefs.h"

#define MIRROR "kubernetes.io/config.mirror"

const kg_json *kg_nr_get_pod(const kg_admission_attributes *a, const kg_admission_services *svc, const char *name,
                             kg_status **st)
{
    KG_ERROR_DECL(err);
    const kg_json *pod = kg_admission_view_obj(svc, a->arena, "pods", a->ns, name, &err);
    if (pod)
        return pod;
    if (err.code == KG_ENOTFOUND || !err.code)
        *st = kg_status_not_found(a->arena, (kg_gr){"", "pod"}, name);
    else
        *st = kg_admission_forbidden(a, "%s", err.msg);
    return NULL;
}

static const char *node_name_of(const kg_json *pod)
{
    const char *n = kg_json_path_str(pod, "spec.nodeName");
    return n ? n : "";
}

/* whether the pod references an object of kind (auth/node/podrefs.h: the visitor the Node graph uses) */
static bool stop_at(void *ud, kg_podref_kind kind, const char *name)
{
    (void)name;
    return kind != *(const kg_podref_kind *)ud;
}

static bool references(const kg_json *pod, kg_podref_kind kind)
{
    return !kg_podrefs_visit(pod, stop_at, &kind);
}

static bool volumes_have(const kg_json *spec, const char *projected_source, const char *volume_field)
{
    const kg_json *vols = kg_json_get(spec, "volumes");
    for (size_t i = 0; kg_json_is(vols, KG_JSON_ARRAY) && i < vols->len; i++) {
        const kg_json *v = kg_json_at(vols, i);
        if (volume_field && kg_json_get(v, volume_field))
            return true;
        const kg_json *srcs = kg_json_path(v, "projected.sources");
        for (size_t j = 0; projected_source && kg_json_is(srcs, KG_JSON_ARRAY) && j < srcs->len; j++)
            if (kg_json_get(kg_json_at(srcs, j), projected_source))
                return true;
    }
    return false;
}

static bool is_true(const kg_json *v)
{
    return kg_json_is(v, KG_JSON_BOOL) && v->b;
}

static kg_status *admit_create(const char *node, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    const kg_json *pod = a->object;
    if (!kg_admission_pu_obj_kind(pod, "Pod"))
        return kg_admission_forbidden(a, "unexpected type *core.%s", kg_admission_pu_str(pod, "kind"));
    const char *qn = kg_admission_pu_quote(a->arena, node);
    const kg_json *ann = kg_json_path(pod, "metadata.annotations");
    if (!kg_json_get(ann, MIRROR))
        return kg_admission_forbidden(a, "pod does not have \"%s\" annotation, node %s can only create mirror pods",
                                      MIRROR, qn);
    if (strcmp(node_name_of(pod), node))
        return kg_admission_forbidden(a, "node %s can only create pods with spec.nodeName set to itself", qn);
    const kg_json *refs = kg_json_path(pod, "metadata.ownerReferences");
    size_t nrefs = kg_json_is(refs, KG_JSON_ARRAY) ? refs->len : 0;
    if (nrefs > 1)
        return kg_admission_forbidden(a, "node %s can only create pods with a single owner reference set to itself",
                                      qn);
    if (nrefs == 0)
        return kg_admission_forbidden(a, "node %s can only create pods with an owner reference set to itself", qn);
    const kg_json *owner = kg_json_at(refs, 0);
    if (strcmp(kg_admission_pu_str(owner, "apiVersion"), "v1") || strcmp(kg_admission_pu_str(owner, "kind"), "Node") ||
        strcmp(kg_admission_pu_str(owner, "name"), node))
        return kg_admission_forbidden(a, "node %s can only create pods with an owner reference set to itself", qn);
    if (!is_true(kg_json_get(owner, "controller")))
        return kg_admission_forbidden(a, "node %s can only create pods with a controller owner reference set to itself",
                                      qn);
    if (is_true(kg_json_get(owner, "blockOwnerDeletion")))
        return kg_admission_forbidden(a, "node %s must not set blockOwnerDeletion on an owner reference", qn);
    KG_ERROR_DECL(err);
    const kg_json *n = kg_admission_view_obj(svc, a->arena, "nodes", "", node, &err);
    if (!n) {
        if (err.code == KG_ENOTFOUND || !err.code)
            return kg_status_not_found(a->arena, (kg_gr){"", "node"}, node);
        return kg_admission_forbidden(a, "error looking up node %s to verify uid: %s", node, err.msg);
    }
    const char *uid = kg_admission_pu_str(owner, "uid"), *nuid = kg_json_path_str(n, "metadata.uid");
    if (strcmp(uid, nuid ? nuid : ""))
        return kg_admission_forbidden(a, "node %s UID mismatch: expected %s got %s", node, uid, nuid ? nuid : "");
    const kg_json *spec = kg_json_get(pod, "spec");
    const char *sa = kg_json_get_str(spec, "serviceAccountName");
    if (sa && *sa)
        return kg_admission_forbidden(a, "node %s can not create pods that reference a service account", qn);
    if (references(pod, KG_PODREF_SECRET))
        return kg_admission_forbidden(a, "node %s can not create pods that reference secrets", qn);
    if (references(pod, KG_PODREF_CONFIGMAP))
        return kg_admission_forbidden(a, "node %s can not create pods that reference configmaps", qn);
    if (volumes_have(spec, "clusterTrustBundle", NULL))
        return kg_admission_forbidden(a, "node %s can not create pods that reference clustertrustbundles", qn);
    if (volumes_have(spec, NULL, "persistentVolumeClaim"))
        return kg_admission_forbidden(a, "node %s can not create pods that reference persistentvolumeclaims", qn);
    const kg_json *claims = kg_json_get(spec, "resourceClaims");
    if (kg_json_is(claims, KG_JSON_ARRAY) && claims->len)
        return kg_admission_forbidden(a, "node %s can not create pods that reference resourceclaims", qn);
    return NULL;
}

kg_status *kg_nr_admit_pod(const char *node, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    switch (a->operation) {
    case KG_ADMISSION_CREATE: return admit_create(node, a, svc);
    case KG_ADMISSION_DELETE: {
        kg_status *st = NULL;
        const kg_json *pod = kg_nr_get_pod(a, svc, a->name, &st);
        if (!pod)
            return st;
        if (strcmp(node_name_of(pod), node))
            return kg_admission_forbidden(a, "node %s can only delete pods with spec.nodeName set to itself",
                                          kg_admission_pu_quote(a->arena, node));
        return NULL;
    }
    default:
        return kg_admission_forbidden(a, "unexpected operation \"%s\", node %s can only create and delete mirror pods",
                                      kg_admission_op_name(a->operation), kg_admission_pu_quote(a->arena, node));
    }
}

/* labels.Equals: absent and empty are the same */
static bool labels_equal(const kg_json *x, const kg_json *y)
{
    size_t nx = kg_json_is(x, KG_JSON_OBJECT) ? x->len : 0, ny = kg_json_is(y, KG_JSON_OBJECT) ? y->len : 0;
    if (!nx && !ny)
        return true;
    return nx == ny && kg_json_equal(x, y);
}

/* resourceClaimStatusesEqual: same length, pairwise equal name and resourceClaimName */
static bool claim_statuses_equal(const kg_json *x, const kg_json *y)
{
    size_t nx = kg_json_is(x, KG_JSON_ARRAY) ? x->len : 0, ny = kg_json_is(y, KG_JSON_ARRAY) ? y->len : 0;
    if (nx != ny)
        return false;
    for (size_t i = 0; i < nx; i++) {
        const kg_json *a = kg_json_at(x, i), *b = kg_json_at(y, i);
        if (strcmp(kg_admission_pu_str(a, "name"), kg_admission_pu_str(b, "name")))
            return false;
        const kg_json *ca = kg_json_get(a, "resourceClaimName"), *cb = kg_json_get(b, "resourceClaimName");
        if ((ca == NULL) != (cb == NULL) || (ca && !kg_json_equal(ca, cb)))
            return false;
    }
    return true;
}

kg_status *kg_nr_admit_pod_status(const char *node, const kg_admission_attributes *a)
{
    if (a->operation != KG_ADMISSION_UPDATE)
        return kg_admission_forbidden(a, "unexpected operation \"%s\"", kg_admission_op_name(a->operation));
    if (!kg_admission_pu_obj_kind(a->old_object, "Pod") || !a->old_object)
        return kg_admission_forbidden(a, "unexpected type *core.%s", kg_admission_pu_str(a->old_object, "kind"));
    const char *qn = kg_admission_pu_quote(a->arena, node);
    if (strcmp(node_name_of(a->old_object), node))
        return kg_admission_forbidden(a, "node %s can only update pod status for pods with spec.nodeName set to itself",
                                      qn);
    if (!kg_admission_pu_obj_kind(a->object, "Pod") || !a->object)
        return kg_admission_forbidden(a, "unexpected type *core.%s", kg_admission_pu_str(a->object, "kind"));
    if (!labels_equal(kg_json_path(a->old_object, "metadata.labels"), kg_json_path(a->object, "metadata.labels")))
        return kg_admission_forbidden(a, "node %s cannot update labels through pod status", qn);
    if (!claim_statuses_equal(kg_json_path(a->old_object, "status.resourceClaimStatuses"),
                              kg_json_path(a->object, "status.resourceClaimStatuses")))
        return kg_admission_forbidden(a, "node %s cannot update resource claim statues", qn);
    return NULL;
}

kg_status *kg_nr_admit_pod_eviction(const char *node, const kg_admission_attributes *a,
                                    const kg_admission_services *svc)
{
    if (a->operation != KG_ADMISSION_CREATE)
        return kg_admission_forbidden(a, "unexpected operation %s", kg_admission_op_name(a->operation));
    if (!a->object || !kg_admission_pu_obj_kind(a->object, "Eviction"))
        return kg_admission_forbidden(a, "unexpected type *policy.%s", kg_admission_pu_str(a->object, "kind"));
    const char *pod_name = a->name;
    if (!*pod_name) {
        const char *n = kg_json_path_str(a->object, "metadata.name");
        if (!n || !*n)
            return kg_admission_forbidden(a, "could not determine pod from request data");
        pod_name = n;
    }
    kg_status *st = NULL;
    const kg_json *pod = kg_nr_get_pod(a, svc, pod_name, &st);
    if (!pod)
        return st;
    if (strcmp(node_name_of(pod), node))
        return kg_admission_forbidden(a, "node %s can only evict pods with spec.nodeName set to itself", node);
    return NULL;
}
