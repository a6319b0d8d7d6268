/* NodeRestriction (plugin/pkg/admission/noderestriction), mutating phase (upstream implements Admit only),
 * CREATE/UPDATE/DELETE: limits what a kubelet (user system:node:<name> in group system:nodes, auth/nodeidentity.h)
 * may write. Other users pass untouched. Pods: pods.c; TokenRequests: token.c; here the dispatch, Node objects
 * (own object only, no taint or configSource changes, labels outside the kubelet set), PVC status, node Leases,
 * CSINodes, ResourceSlices and node CSRs. */
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/certificates/csr.h"
#include "admission/plugins/noderestriction/noderestriction.h"
#include "admission/registry.h"
#include "auth/nodeidentity.h"
#include "base/buf.h"

/* ---- node labels (kubeletapis.IsKubeletLabel and the plugin's getForbiddenLabels) ---- */

static size_t label_ns(const char *key, const char **ns)
{
    const char *slash = strchr(key, '/');
    *ns = key;
    return slash ? (size_t)(slash - key) : 0;
}

/* namespace == d or ends with "." + d */
static bool ns_is(const char *ns, size_t n, const char *d)
{
    size_t dn = strlen(d);
    if (n == dn && !strncmp(ns, d, n))
        return true;
    return n > dn && ns[n - dn - 1] == '.' && !strncmp(ns + n - dn, d, dn);
}

static bool kubelet_label(const char *key)
{
    static const char *const labels[] = {"kubernetes.io/hostname",
                                         "failure-domain.beta.kubernetes.io/zone",
                                         "failure-domain.beta.kubernetes.io/region",
                                         "topology.kubernetes.io/zone",
                                         "topology.kubernetes.io/region",
                                         "beta.kubernetes.io/instance-type",
                                         "node.kubernetes.io/instance-type",
                                         "kubernetes.io/os",
                                         "kubernetes.io/arch",
                                         "beta.kubernetes.io/os",
                                         "beta.kubernetes.io/arch"};
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        if (!strcmp(key, labels[i]))
            return true;
    const char *ns;
    size_t n = label_ns(key, &ns);
    return ns_is(ns, n, "kubelet.kubernetes.io") || ns_is(ns, n, "node.kubernetes.io");
}

static bool forbidden_label(const char *key)
{
    const char *ns;
    size_t n = label_ns(key, &ns);
    if (ns_is(ns, n, "node-restriction.kubernetes.io"))
        return true;
    bool k8s = ns_is(ns, n, "kubernetes.io") || ns_is(ns, n, "k8s.io");
    return k8s && !kubelet_label(key);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The sorted ", "-joined forbidden keys among those added, removed or changed between old (may be NULL) and new;
 * NULL when none. */
static const char *forbidden_modified(kg_arena *ar, const kg_json *nl, const kg_json *ol)
{
    size_t nn = kg_json_is(nl, KG_JSON_OBJECT) ? nl->len : 0, on = kg_json_is(ol, KG_JSON_OBJECT) ? ol->len : 0;
    const char **keys = kg_arena_alloc(ar, (nn + on + 1) * sizeof *keys);
    size_t k = 0;
    for (size_t i = 0; i < nn; i++) {
        const kg_json_member *m = &nl->u.members[i];
        const kg_json *old = ol ? kg_json_get(ol, m->key) : NULL;
        if ((!old || !kg_json_equal(old, m->val)) && forbidden_label(m->key))
            keys[k++] = m->key;
    }
    for (size_t i = 0; i < on; i++) {
        const kg_json_member *m = &ol->u.members[i];
        if (!kg_json_get(nl, m->key) && forbidden_label(m->key))
            keys[k++] = m->key;
    }
    if (!k)
        return NULL;
    qsort(keys, k, sizeof *keys, cmp_str);
    kg_buf b = KG_BUF_INIT;
    for (size_t i = 0; i < k; i++)
        if (!i || strcmp(keys[i], keys[i - 1]))
            kg_buf_printf(&b, "%s%s", b.len ? ", " : "", keys[i]);
    const char *r = kg_arena_strndup(ar, b.data, b.len);
    kg_buf_free(&b);
    return r;
}

static bool nonnull(const kg_json *v)
{
    return v && !kg_json_is(v, KG_JSON_NULL);
}

/* Semantic DeepEqual of two optional lists: absent, null and [] alike */
static bool list_equal(const kg_json *x, const kg_json *y)
{
    size_t nx = kg_json_is(x, KG_JSON_ARRAY) ? x->len : 0, ny = kg_json_is(y, KG_JSON_ARRAY) ? y->len : 0;
    return nx == ny && (!nx || kg_json_equal(x, y));
}

static kg_status *admit_node(const char *node, const kg_admission_attributes *a)
{
    const char *qn = kg_admission_pu_quote(a->arena, node);
    const char *requested = a->name;
    if (a->operation == KG_ADMISSION_CREATE && !*requested && a->object) {
        const char *n = kg_json_path_str(a->object, "metadata.name");
        requested = n ? n : "";
    }
    if (strcmp(requested, node))
        return kg_admission_forbidden(a, "node %s is not allowed to modify node %s", qn,
                                      kg_admission_pu_quote(a->arena, requested));
    if (a->operation == KG_ADMISSION_CREATE) {
        if (!kg_admission_pu_obj_kind(a->object, "Node") || !a->object)
            return kg_admission_forbidden(a, "unexpected type *core.%s", kg_admission_pu_str(a->object, "kind"));
        if (nonnull(kg_json_path(a->object, "spec.configSource")))
            return kg_admission_forbidden(a, "node %s is not allowed to create pods with a non-nil configSource", qn);
        const char *bad = forbidden_modified(a->arena, kg_json_path(a->object, "metadata.labels"), NULL);
        if (bad)
            return kg_admission_forbidden(a, "node %s is not allowed to set the following labels: %s", qn, bad);
    }
    if (a->operation == KG_ADMISSION_UPDATE) {
        if (!kg_admission_pu_obj_kind(a->object, "Node") || !a->object)
            return kg_admission_forbidden(a, "unexpected type *core.%s", kg_admission_pu_str(a->object, "kind"));
        if (!kg_admission_pu_obj_kind(a->old_object, "Node") || !a->old_object)
            return kg_admission_forbidden(a, "unexpected type *core.%s", kg_admission_pu_str(a->old_object, "kind"));
        const kg_json *cs = kg_json_path(a->object, "spec.configSource"),
                      *ocs = kg_json_path(a->old_object, "spec.configSource");
        if (nonnull(cs) && !(nonnull(ocs) && kg_json_equal(cs, ocs)))
            return kg_admission_forbidden(
                a, "node %s is not allowed to update configSource to a new non-nil configSource", qn);
        if (!list_equal(kg_json_path(a->object, "spec.taints"), kg_json_path(a->old_object, "spec.taints")))
            return kg_admission_forbidden(a, "node %s is not allowed to modify taints", qn);
        const char *bad = forbidden_modified(a->arena, kg_json_path(a->object, "metadata.labels"),
                                             kg_json_path(a->old_object, "metadata.labels"));
        if (bad)
            return kg_admission_forbidden(a, "is not allowed to modify labels: %s", bad);
    }
    return NULL;
}

/* ---- PVC status ---- */

static kg_json *pvc_for_compare(kg_arena *ar, const kg_json *pvc, bool recover)
{
    kg_json *c = kg_json_clone(ar, pvc);
    kg_json *meta = kg_json_get(c, "metadata"), *status = kg_json_get(c, "status");
    kg_json_del(meta, "resourceVersion");
    kg_json_del(meta, "managedFields");
    kg_json_del(status, "capacity");
    kg_json_del(status, "conditions");
    if (recover) {
        kg_json_del(status, "allocatedResourceStatuses");
        kg_json_del(status, "allocatedResources");
    }
    if (kg_json_is(status, KG_JSON_OBJECT) && !status->len)
        kg_json_del(c, "status");
    return c;
}

static kg_status *admit_pvc_status(const char *node, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (a->operation != KG_ADMISSION_UPDATE)
        return kg_admission_forbidden(a, "unexpected operation \"%s\"", kg_admission_op_name(a->operation));
    if (!a->old_object || !kg_admission_pu_obj_kind(a->old_object, "PersistentVolumeClaim"))
        return kg_admission_forbidden(a, "unexpected type *core.%s", kg_admission_pu_str(a->old_object, "kind"));
    if (!a->object || !kg_admission_pu_obj_kind(a->object, "PersistentVolumeClaim"))
        return kg_admission_forbidden(a, "unexpected type *core.%s", kg_admission_pu_str(a->object, "kind"));
    bool recover = kg_admission_feature(svc, "RecoverVolumeExpansionFailure");
    kg_json *o = pvc_for_compare(a->arena, a->old_object, recover), *n = pvc_for_compare(a->arena, a->object, recover);
    if (!kg_json_equal(o, n))
        /* upstream appends cmp.Diff of the two objects; kgate names them */
        return kg_admission_forbidden(a,
                                      "node %s is not allowed to update fields other than status.quantity and "
                                      "status.conditions: %s -> %s",
                                      kg_admission_pu_quote(a->arena, node), kg_json_to_string(a->arena, o, 0, NULL),
                                      kg_json_to_string(a->arena, n, 0, NULL));
    return NULL;
}

/* ---- leases, CSINodes, ResourceSlices, CSRs ---- */

/* the object's name on CREATE (attrs carry none upstream), the request's otherwise */
static const char *target_name(const kg_admission_attributes *a)
{
    if (a->operation == KG_ADMISSION_CREATE && a->object) {
        const char *n = kg_json_path_str(a->object, "metadata.name");
        return n ? n : "";
    }
    return a->name;
}

static kg_status *admit_lease(const char *node, const kg_admission_attributes *a)
{
    if (strcmp(a->ns, "kube-node-lease"))
        return kg_admission_forbidden(a, "can only access leases in the \"kube-node-lease\" system namespace");
    if (strcmp(target_name(a), node))
        return kg_admission_forbidden(a, "can only access node lease with the same name as the requesting node");
    return NULL;
}

static kg_status *admit_csinode(const char *node, const kg_admission_attributes *a)
{
    if (strcmp(target_name(a), node))
        return kg_admission_forbidden(a, "can only access CSINode with the same name as the requesting node");
    return NULL;
}

static kg_status *admit_resource_slice(const char *node, const kg_admission_attributes *a)
{
    const kg_json *obj = a->operation == KG_ADMISSION_CREATE   ? a->object
                         : a->operation == KG_ADMISSION_DELETE ? a->old_object
                                                               : NULL;
    if (!obj)
        return NULL;
    const char *n = kg_json_path_str(obj, "spec.nodeName");
    if (!n || strcmp(n, node))
        return kg_admission_forbidden(a, "can only %s ResourceSlice with the same NodeName as the requesting node",
                                      a->operation == KG_ADMISSION_CREATE ? "create" : "delete");
    return NULL;
}

static kg_status *admit_csr(const char *node, const kg_admission_attributes *a)
{
    if (a->operation != KG_ADMISSION_CREATE)
        return NULL;
    if (!a->object || !kg_admission_pu_obj_kind(a->object, "CertificateSigningRequest"))
        return kg_admission_forbidden(a, "unexpected type *certificates.%s", kg_admission_pu_str(a->object, "kind"));
    const char *signer = kg_json_path_str(a->object, "spec.signerName");
    if (!signer || (strcmp(signer, "kubernetes.io/kubelet-serving") &&
                    strcmp(signer, "kubernetes.io/kube-apiserver-client-kubelet")))
        return NULL;
    const kg_json *req = kg_json_path(a->object, "spec.request");
    kg_admission_csr_subject subj;
    const char *perr = kg_admission_csr_parse(a->arena, kg_json_is(req, KG_JSON_STRING) ? req->u.s : "",
                                              kg_json_is(req, KG_JSON_STRING) ? req->len : 0, &subj);
    if (perr)
        return kg_admission_forbidden(a, "unable to parse csr: %s", perr);
    if (strncmp(subj.common_name, KG_NODE_USER_PREFIX, strlen(KG_NODE_USER_PREFIX)) ||
        strcmp(subj.common_name + strlen(KG_NODE_USER_PREFIX), node))
        return kg_admission_forbidden(a, "can only create a node CSR with CN=system:node:%s", node);
    return NULL;
}

static bool is(const kg_admission_attributes *a, const char *group, const char *resource)
{
    return !strcmp(a->resource.group, group) && !strcmp(a->resource.resource, resource);
}

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    (void)state;
    const char *node;
    if (!kg_node_identity(&a->user, &node))
        return NULL;
    if (!*node)
        return kg_admission_forbidden(a, "could not determine node from user %s",
                                      kg_admission_pu_quote(a->arena, a->user.name ? a->user.name : ""));
    if (is(a, "", "pods")) {
        if (!*a->subresource)
            return kg_nr_admit_pod(node, a, svc);
        if (!strcmp(a->subresource, "status"))
            return kg_nr_admit_pod_status(node, a);
        if (!strcmp(a->subresource, "eviction"))
            return kg_nr_admit_pod_eviction(node, a, svc);
        return kg_admission_forbidden(a, "unexpected pod subresource %s, only 'status' and 'eviction' are allowed",
                                      kg_admission_pu_quote(a->arena, a->subresource));
    }
    if (is(a, "", "nodes"))
        return admit_node(node, a);
    if (is(a, "", "persistentvolumeclaims")) {
        if (!strcmp(a->subresource, "status"))
            return admit_pvc_status(node, a, svc);
        return kg_admission_forbidden(a, "may only update PVC status");
    }
    if (is(a, "", "serviceaccounts"))
        return kg_nr_admit_service_account(node, a, svc);
    if (is(a, "coordination.k8s.io", "leases"))
        return admit_lease(node, a);
    if (is(a, "storage.k8s.io", "csinodes"))
        return admit_csinode(node, a);
    if (is(a, "resource.k8s.io", "resourceslices"))
        return admit_resource_slice(node, a);
    if (is(a, "certificates.k8s.io", "certificatesigningrequests")) {
        if (kg_admission_feature(svc, "AllowInsecureKubeletCertificateSigningRequests"))
            return NULL;
        return admit_csr(node, a);
    }
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_node_restriction = {
    .name = "NodeRestriction",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE | KG_ADMISSION_DELETE,
    .admit = admit,
};
