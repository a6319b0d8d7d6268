#include "api/resources.h"

#include "api/dynamic.h"
#include "api/versions.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SN(...) {__VA_ARGS__, NULL}
#define ALL {"all", NULL}
#define NOCAT {NULL}
#define STATUS {"status", KG_SUB_STATUS, KG_VERBS_GET_PATCH_UPDATE, NULL, NULL, NULL}
#define SCALE {"scale", KG_SUB_SCALE, KG_VERBS_GET_PATCH_UPDATE, "autoscaling", "v1", "Scale"}

/* The table. Order: core first, then groups as kube-apiserver lists them in /apis. */
static kg_resource table[] = {
    /* core/v1 */
    {"", "v1", "Namespace", "namespaces", "namespace", SN("ns"), NOCAT, false,
     KG_VERB_CREATE | KG_VERB_DELETE | KG_VERB_GET | KG_VERB_LIST | KG_VERB_PATCH | KG_VERB_UPDATE | KG_VERB_WATCH,
     {STATUS, {"finalize", KG_SUB_STATUS, KG_VERB_UPDATE, NULL, NULL, NULL}}, true, false},
    {"", "v1", "Pod", "pods", "pod", SN("po"), ALL, true, KG_VERBS_ALL,
     {STATUS, {"binding", KG_SUB_BINDING, KG_VERB_CREATE, "", "v1", "Binding"},
      {"ephemeralcontainers", KG_SUB_EPHEMERAL, KG_VERBS_GET_PATCH_UPDATE, NULL, NULL, NULL},
      {"eviction", KG_SUB_EVICTION, KG_VERB_CREATE, "policy", "v1", "Eviction"}},
     true, false},
    {"", "v1", "Service", "services", "service", SN("svc"), ALL, true, KG_VERBS_ALL, {STATUS}, true, false},
    {"", "v1", "ConfigMap", "configmaps", "configmap", SN("cm"), NOCAT, true, KG_VERBS_ALL, {{0}}, false, false},
    {"", "v1", "Secret", "secrets", "secret", {NULL}, NOCAT, true, KG_VERBS_ALL, {{0}}, false, false},
    {"", "v1", "ServiceAccount", "serviceaccounts", "serviceaccount", SN("sa"), NOCAT, true, KG_VERBS_ALL,
     {{"token", KG_SUB_TOKEN, KG_VERB_CREATE, "authentication.k8s.io", "v1", "TokenRequest"}}, false, false},
    {"", "v1", "Event", "events", "event", SN("ev"), NOCAT, true, KG_VERBS_ALL, {{0}}, false, false},
    {"", "v1", "LimitRange", "limitranges", "limitrange", SN("limits"), NOCAT, true, KG_VERBS_ALL, {{0}}, false,
     false},
    {"", "v1", "ResourceQuota", "resourcequotas", "resourcequota", SN("quota"), NOCAT, true, KG_VERBS_ALL, {STATUS},
     true, false},
    {"", "v1", "Node", "nodes", "node", SN("no"), NOCAT, false, KG_VERBS_ALL, {STATUS}, true, false},
    {"", "v1", "PersistentVolume", "persistentvolumes", "persistentvolume", SN("pv"), NOCAT, false, KG_VERBS_ALL,
     {STATUS}, true, false},
    {"", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", "persistentvolumeclaim", SN("pvc"), NOCAT, true,
     KG_VERBS_ALL, {STATUS}, true, false},
    {"", "v1", "ReplicationController", "replicationcontrollers", "replicationcontroller", SN("rc"), ALL, true,
     KG_VERBS_ALL, {STATUS, SCALE}, true, true},
    {"", "v1", "Endpoints", "endpoints", "endpoints", SN("ep"), NOCAT, true, KG_VERBS_ALL, {{0}}, false, false},
    /* apps/v1 */
    {"apps", "v1", "Deployment", "deployments", "deployment", SN("deploy"), ALL, true, KG_VERBS_ALL, {STATUS, SCALE},
     true, true},
    {"apps", "v1", "ReplicaSet", "replicasets", "replicaset", SN("rs"), ALL, true, KG_VERBS_ALL, {STATUS, SCALE}, true,
     true},
    {"apps", "v1", "StatefulSet", "statefulsets", "statefulset", SN("sts"), ALL, true, KG_VERBS_ALL, {STATUS, SCALE},
     true, true},
    {"apps", "v1", "DaemonSet", "daemonsets", "daemonset", SN("ds"), ALL, true, KG_VERBS_ALL, {STATUS}, true, true},
    /* batch/v1 */
    {"batch", "v1", "Job", "jobs", "job", {NULL}, ALL, true, KG_VERBS_ALL, {STATUS}, true, true},
    {"batch", "v1", "CronJob", "cronjobs", "cronjob", SN("cj"), ALL, true, KG_VERBS_ALL, {STATUS}, true, true},
    /* networking.k8s.io/v1 */
    {"networking.k8s.io", "v1", "Ingress", "ingresses", "ingress", SN("ing"), NOCAT, true, KG_VERBS_ALL, {STATUS}, true,
     true},
    {"networking.k8s.io", "v1", "IngressClass", "ingressclasses", "ingressclass", {NULL}, NOCAT, false, KG_VERBS_ALL,
     {{0}}, false, false},
    /* storage.k8s.io/v1 */
    {"storage.k8s.io", "v1", "StorageClass", "storageclasses", "storageclass", SN("sc"), NOCAT, false, KG_VERBS_ALL,
     {{0}}, false, false},
    /* scheduling.k8s.io/v1 */
    {"scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", "priorityclass", SN("pc"), NOCAT, false,
     KG_VERBS_ALL, {{0}}, false, false},
    /* node.k8s.io/v1 */
    {"node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", "runtimeclass", {NULL}, NOCAT, false, KG_VERBS_ALL, {{0}},
     false, false},
    /* certificates.k8s.io/v1 */
    {"certificates.k8s.io", "v1", "CertificateSigningRequest", "certificatesigningrequests",
     "certificatesigningrequest", SN("csr"), NOCAT, false, KG_VERBS_ALL,
     {{"approval", KG_SUB_APPROVAL, KG_VERBS_GET_PATCH_UPDATE, NULL, NULL, NULL}, STATUS}, true, false},
    /* admissionregistration.k8s.io/v1 */
    {"admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations",
     "mutatingwebhookconfiguration", {NULL}, {"api-extensions", NULL}, false, KG_VERBS_ALL, {{0}}, false, true},
    {"admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations",
     "validatingwebhookconfiguration", {NULL}, {"api-extensions", NULL}, false, KG_VERBS_ALL, {{0}}, false, true},
    {"admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies",
     "validatingadmissionpolicy", {NULL}, {"api-extensions", NULL}, false, KG_VERBS_ALL, {STATUS}, true, true},
    {"admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings",
     "validatingadmissionpolicybinding", {NULL}, {"api-extensions", NULL}, false, KG_VERBS_ALL, {{0}}, false, true},
    /* rbac.authorization.k8s.io/v1 */
    {"rbac.authorization.k8s.io", "v1", "Role", "roles", "role", {NULL}, NOCAT, true, KG_VERBS_ALL, {{0}}, false,
     false},
    {"rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", "clusterrole", {NULL}, NOCAT, false,
     KG_VERBS_ALL, {{0}}, false, false},
    {"rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", "rolebinding", {NULL}, NOCAT, true,
     KG_VERBS_ALL, {{0}}, false, false},
    {"rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", "clusterrolebinding", {NULL},
     NOCAT, false, KG_VERBS_ALL, {{0}}, false, false},
    /* coordination.k8s.io/v1 */
    {"coordination.k8s.io", "v1", "Lease", "leases", "lease", {NULL}, NOCAT, true, KG_VERBS_ALL, {{0}}, false, false},
    /* events.k8s.io/v1 */
    {"events.k8s.io", "v1", "Event", "events", "event", SN("ev"), NOCAT, true, KG_VERBS_ALL, {{0}}, false, false},
    /* authentication.k8s.io/v1 and authorization.k8s.io/v1 reviews: create-only, never stored; listed here for
     * discovery (kubectl create -f needs it), answered by server/reviews.c and server/satoken.c */
    {"authentication.k8s.io", "v1", "TokenReview", "tokenreviews", "", {NULL}, NOCAT, false, KG_VERB_CREATE, {{0}},
     false, false},
    {"authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", "", {NULL}, NOCAT, false,
     KG_VERB_CREATE, {{0}}, false, false},
    {"authorization.k8s.io", "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews", "", {NULL}, NOCAT, true,
     KG_VERB_CREATE, {{0}}, false, false},
    {"authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", "", {NULL}, NOCAT, false,
     KG_VERB_CREATE, {{0}}, false, false},
    {"authorization.k8s.io", "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews", "", {NULL}, NOCAT, false,
     KG_VERB_CREATE, {{0}}, false, false},
    {"authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews", "", {NULL}, NOCAT, false,
     KG_VERB_CREATE, {{0}}, false, false},
    /* apiextensions.k8s.io/v1 (the custom resources themselves are the dynamic set, api/dynamic.h) */
    {"apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", "customresourcedefinition",
     SN("crd", "crds"), {"api-extensions", NULL}, false, KG_VERBS_ALL, {STATUS}, true, true},
    /* policy/v1 */
    {"policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", "poddisruptionbudget", SN("pdb"), NOCAT, true,
     KG_VERBS_ALL, {STATUS}, true, true},
    /* appended: core/v1 podtemplates, apps/v1 controllerrevisions, networking.k8s.io/v1 networkpolicies,
     * discovery.k8s.io/v1 endpointslices */
    {"", "v1", "PodTemplate", "podtemplates", "podtemplate", {NULL}, NOCAT, true, KG_VERBS_ALL, {{0}}, false, false},
    {"apps", "v1", "ControllerRevision", "controllerrevisions", "controllerrevision", {NULL}, NOCAT, true,
     KG_VERBS_ALL, {{0}}, false, false},
    {"networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", "networkpolicy", SN("netpol"), NOCAT, true,
     KG_VERBS_ALL, {{0}}, false, true},
    {"discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", "endpointslice", {NULL}, NOCAT, true, KG_VERBS_ALL,
     {{0}}, false, false},
    /* appended: autoscaling/v2, then v1 (stored as v2: api/versions.h) */
    {"autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", "horizontalpodautoscaler",
     SN("hpa"), ALL, true, KG_VERBS_ALL, {STATUS}, true, true},
    {"autoscaling", "v1", "HorizontalPodAutoscaler", "horizontalpodautoscalers", "horizontalpodautoscaler",
     SN("hpa"), ALL, true, KG_VERBS_ALL, {STATUS}, true, true},
    /* appended: flowcontrol.apiserver.k8s.io/v1 (stored and served; no priority and fairness is done) */
    {"flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", "flowschemas", "flowschema", {NULL}, NOCAT, false,
     KG_VERBS_ALL, {STATUS}, true, true},
    {"flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration", "prioritylevelconfigurations",
     "prioritylevelconfiguration", {NULL}, NOCAT, false, KG_VERBS_ALL, {STATUS}, true, true},
    /* appended: storage.k8s.io/v1 CSI kinds */
    {"storage.k8s.io", "v1", "CSIDriver", "csidrivers", "csidriver", {NULL}, NOCAT, false, KG_VERBS_ALL, {{0}}, false,
     false},
    {"storage.k8s.io", "v1", "CSINode", "csinodes", "csinode", {NULL}, NOCAT, false, KG_VERBS_ALL, {{0}}, false,
     false},
    {"storage.k8s.io", "v1", "VolumeAttachment", "volumeattachments", "volumeattachment", {NULL}, NOCAT, false,
     KG_VERBS_ALL, {STATUS}, true, false},
    /* Optional resources, last: served only once enabled (kg_resources_serve_mutating_policies). The version is the
     * enabled one (admissionregistration.k8s.io v1beta1 or v1alpha1). */
    {"admissionregistration.k8s.io", "v1beta1", "MutatingAdmissionPolicy", "mutatingadmissionpolicies",
     "mutatingadmissionpolicy", {NULL}, {"api-extensions", NULL}, false, KG_VERBS_ALL, {{0}}, false, true},
    {"admissionregistration.k8s.io", "v1beta1", "MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings",
     "mutatingadmissionpolicybinding", {NULL}, {"api-extensions", NULL}, false, KG_VERBS_ALL, {{0}}, false, true},
};

#define NTABLE (sizeof table / sizeof table[0])
#define NOPTIONAL 2
static int optional_served; /* the optional resources are in the served set */
/* the served resources: the table without the optional ones unless they were enabled */
#define NRES (NTABLE - (__atomic_load_n(&optional_served, __ATOMIC_ACQUIRE) ? 0 : NOPTIONAL))

static char derived_strings[NTABLE][3][160];
static int initialised;

static void init_table(void)
{
    if (__atomic_load_n(&initialised, __ATOMIC_ACQUIRE))
        return;
    static int lock;
    while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
        ;
    if (!initialised) {
        for (size_t i = 0; i < NTABLE; i++) {
            kg_resource *r = &table[i];
            snprintf(derived_strings[i][0], 160, "%sList", r->kind);
            if (r->group[0])
                snprintf(derived_strings[i][1], 160, "%s/%s", r->group, r->version);
            else
                snprintf(derived_strings[i][1], 160, "%s", r->version);
            /* a resource stored as another one (api/versions.h) shares that one's keys */
            r->conv = kg_version_conv_find(r->group, r->version, r->plural);
            const char *sg = r->conv ? r->conv->storage_group : r->group;
            const char *sp = r->conv ? r->conv->storage_plural : r->plural;
            if (sg[0])
                snprintf(derived_strings[i][2], 160, "/registry/%s/%s/", sg, sp);
            else
                snprintf(derived_strings[i][2], 160, "/registry/%s/", sp);
            r->list_kind = derived_strings[i][0];
            r->api_version = derived_strings[i][1];
            r->storage_prefix = derived_strings[i][2];
            r->index = (int)i;
        }
        __atomic_store_n(&initialised, 1, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

size_t kg_resources_count(void) { return NRES; }

bool kg_resources_serve_mutating_policies(const char *version)
{
    init_table();
    if (version && strcmp(version, "v1beta1") && strcmp(version, "v1alpha1"))
        return false;
    for (size_t i = NTABLE - NOPTIONAL; i < NTABLE; i++) {
        table[i].version = version ? version : "v1beta1";
        snprintf(derived_strings[i][1], 160, "%s/%s", table[i].group, table[i].version);
    }
    __atomic_store_n(&optional_served, version != NULL, __ATOMIC_RELEASE);
    return true;
}

const kg_resource *kg_resource_at(size_t i)
{
    init_table();
    return i < NRES ? &table[i] : NULL;
}

const kg_resource *kg_resource_find(const char *group, const char *version, const char *plural)
{
    init_table();
    if (!group)
        group = "";
    for (size_t i = 0; i < NRES; i++)
        if (!strcmp(table[i].group, group) && !strcmp(table[i].version, version) && !strcmp(table[i].plural, plural))
            return &table[i];
    return kg_dynamic_find(group, version, plural);
}

const kg_resource *kg_resource_find_kind(const char *group, const char *kind)
{
    init_table();
    if (!group)
        group = "";
    for (size_t i = 0; i < NRES; i++)
        if (!strcmp(table[i].group, group) && !strcmp(table[i].kind, kind))
            return &table[i];
    return kg_dynamic_find_kind(group, kind);
}

const kg_resource *kg_resource_find_plural(const char *plural)
{
    init_table();
    for (size_t i = 0; i < NRES; i++)
        if (!strcmp(table[i].plural, plural))
            return &table[i];
    return kg_dynamic_find_plural(plural);
}

/* ---- storage prefix index: table indices sorted by (storage_prefix, index), built once ---- */

static uint16_t by_prefix[NTABLE];
static pthread_once_t by_prefix_once = PTHREAD_ONCE_INIT;

static int by_prefix_cmp(const void *x, const void *y)
{
    uint16_t i = *(const uint16_t *)x, j = *(const uint16_t *)y;
    int c = strcmp(table[i].storage_prefix, table[j].storage_prefix);
    return c ? c : (int)i - (int)j;
}

static void by_prefix_build(void)
{
    for (size_t i = 0; i < NTABLE; i++)
        by_prefix[i] = (uint16_t)i;
    qsort(by_prefix, NTABLE, sizeof by_prefix[0], by_prefix_cmp);
}

/* strcmp of prefix[0..len) against s */
static int prefix_cmp(const char *prefix, size_t len, const char *s)
{
    size_t sl = strlen(s);
    int c = memcmp(prefix, s, len < sl ? len : sl);
    return c ? c : (len > sl) - (len < sl);
}

size_t kg_resource_by_storage_prefix(const char *prefix, size_t len, const kg_resource **out, size_t max)
{
    init_table();
    pthread_once(&by_prefix_once, by_prefix_build);
    size_t lo = 0, hi = NTABLE, n = 0, nres = NRES;
    while (lo < hi) { /* the first entry >= prefix */
        size_t mid = (lo + hi) / 2;
        if (prefix_cmp(prefix, len, table[by_prefix[mid]].storage_prefix) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < NTABLE && n < max && !prefix_cmp(prefix, len, table[by_prefix[lo]].storage_prefix); lo++)
        if (by_prefix[lo] < nres)
            out[n++] = &table[by_prefix[lo]];
    return n;
}

const kg_subresource *kg_resource_subresource(const kg_resource *r, const char *name)
{
    for (int i = 0; i < KG_MAX_SUBRESOURCES && r->subresources[i].name; i++)
        if (!strcmp(r->subresources[i].name, name))
            return &r->subresources[i];
    return NULL;
}

char *kg_resource_key(kg_arena *a, const kg_resource *r, const char *ns, const char *name)
{
    if (r->namespaced)
        return kg_arena_sprintf(a, "%s%s/%s", r->storage_prefix, ns, name);
    return kg_arena_sprintf(a, "%s%s", r->storage_prefix, name);
}

char *kg_resource_list_prefix(kg_arena *a, const kg_resource *r, const char *ns)
{
    if (r->namespaced && ns && ns[0])
        return kg_arena_sprintf(a, "%s%s/", r->storage_prefix, ns);
    return (char *)r->storage_prefix;
}

/* ---- discovery ---- */

static kg_json *str_array(kg_arena *a, const char *const *v)
{
    kg_json *arr = kg_json_new_array(a);
    for (; v && *v; v++)
        kg_json_array_append(a, arr, kg_json_new_str_ref(a, *v, strlen(*v)));
    return arr;
}

static kg_json *verbs_array(kg_arena *a, unsigned verbs)
{
    static const char *names[] = {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
    kg_json *arr = kg_json_new_array(a);
    for (int i = 0; i < 8; i++)
        if (verbs & (1u << i))
            kg_json_array_append(a, arr, kg_json_new_str_ref(a, names[i], strlen(names[i])));
    return arr;
}

static kg_json *sref(kg_arena *a, const char *s) { return kg_json_new_str_ref(a, s, strlen(s)); }

kg_json *kg_discovery_api_versions(kg_arena *a)
{
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "kind", sref(a, "APIVersions"));
    kg_json *v = kg_json_new_array(a);
    kg_json_array_append(a, v, sref(a, "v1"));
    kg_json_set(a, o, "versions", v);
    kg_json *addrs = kg_json_new_array(a);
    kg_json *addr = kg_json_new_object(a);
    kg_json_set(a, addr, "clientCIDR", sref(a, "0.0.0.0/0"));
    kg_json_set(a, addr, "serverAddress", sref(a, ""));
    kg_json_array_append(a, addrs, addr);
    kg_json_set(a, o, "serverAddressByClientCIDRs", addrs);
    return o;
}

/* Built-in resources then custom ones (the current dynamic set d, may be NULL), for discovery. */
static size_t nall(const kg_dynamic_set *d) { return NRES + (d ? d->n : 0); }
static const kg_resource *res_at(const kg_dynamic_set *d, size_t i)
{
    return i < NRES ? &table[i] : &d->res[i - NRES];
}

static kg_json *group_object(kg_arena *a, const char *group)
{
    kg_json *g = kg_json_new_object(a);
    kg_json_set(a, g, "name", sref(a, group));
    kg_json *versions = kg_json_new_array(a);
    const char *version = NULL;
    const kg_dynamic_set *d = kg_dynamic_current();
    for (size_t i = 0; i < nall(d); i++) {
        const kg_resource *t = res_at(d, i);
        if (strcmp(t->group, group))
            continue;
        bool seen = false;
        for (uint32_t k = 0; k < versions->len; k++)
            if (!strcmp(kg_json_get_str(versions->u.items[k], "version"), t->version))
                seen = true;
        if (seen)
            continue;
        kg_json *gv = kg_json_new_object(a);
        kg_json_set(a, gv, "groupVersion", sref(a, t->api_version));
        kg_json_set(a, gv, "version", sref(a, t->version));
        kg_json_array_append(a, versions, gv);
        if (!version)
            version = t->version;
    }
    if (!version)
        return NULL;
    kg_json_set(a, g, "versions", versions);
    kg_json_set(a, g, "preferredVersion", kg_json_clone(a, versions->u.items[0]));
    return g;
}

kg_json *kg_discovery_api_groups(kg_arena *a)
{
    init_table();
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "kind", sref(a, "APIGroupList"));
    kg_json_set(a, o, "apiVersion", sref(a, "v1"));
    kg_json *groups = kg_json_new_array(a);
    const kg_dynamic_set *d = kg_dynamic_current();
    for (size_t i = 0; i < nall(d); i++) {
        const kg_resource *t = res_at(d, i);
        if (!t->group[0])
            continue;
        bool seen = false;
        for (size_t k = 0; k < i; k++)
            if (!strcmp(res_at(d, k)->group, t->group))
                seen = true;
        if (!seen)
            kg_json_array_append(a, groups, group_object(a, t->group));
    }
    kg_json_set(a, o, "groups", groups);
    return o;
}

kg_json *kg_discovery_api_group(kg_arena *a, const char *group)
{
    init_table();
    if (!group[0])
        return NULL;
    kg_json *g = group_object(a, group);
    if (!g)
        return NULL;
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "kind", sref(a, "APIGroup"));
    kg_json_set(a, o, "apiVersion", sref(a, "v1"));
    for (uint32_t i = 0; i < g->len; i++)
        kg_json_set(a, o, g->u.members[i].key, g->u.members[i].val);
    return o;
}

static kg_json *resource_entry(kg_arena *a, const kg_resource *r, const kg_subresource *sub)
{
    kg_json *e = kg_json_new_object(a);
    if (sub) {
        kg_json_set(a, e, "name", kg_json_new_str(a, kg_arena_sprintf(a, "%s/%s", r->plural, sub->name)));
        kg_json_set(a, e, "singularName", sref(a, ""));
        kg_json_set(a, e, "namespaced", kg_json_new_bool(a, r->namespaced));
        if (sub->group) {
            kg_json_set(a, e, "group", sref(a, sub->group));
            kg_json_set(a, e, "version", sref(a, sub->version));
        }
        kg_json_set(a, e, "kind", sref(a, sub->obj_kind ? sub->obj_kind : r->kind));
        kg_json_set(a, e, "verbs", verbs_array(a, sub->verbs));
        return e;
    }
    kg_json_set(a, e, "name", sref(a, r->plural));
    kg_json_set(a, e, "singularName", sref(a, r->singular));
    kg_json_set(a, e, "namespaced", kg_json_new_bool(a, r->namespaced));
    kg_json_set(a, e, "kind", sref(a, r->kind));
    kg_json_set(a, e, "verbs", verbs_array(a, r->verbs));
    if (r->short_names[0])
        kg_json_set(a, e, "shortNames", str_array(a, r->short_names));
    if (r->categories[0])
        kg_json_set(a, e, "categories", str_array(a, r->categories));
    return e;
}

kg_json *kg_discovery_resource_list(kg_arena *a, const char *group, const char *version)
{
    init_table();
    kg_json *res = kg_json_new_array(a);
    const char *gv = NULL;
    const kg_dynamic_set *d = kg_dynamic_current();
    for (size_t i = 0; i < nall(d); i++) {
        const kg_resource *r = res_at(d, i);
        if (strcmp(r->group, group) || strcmp(r->version, version))
            continue;
        gv = r->api_version;
        kg_json_array_append(a, res, resource_entry(a, r, NULL));
        for (int k = 0; k < KG_MAX_SUBRESOURCES && r->subresources[k].name; k++)
            kg_json_array_append(a, res, resource_entry(a, r, &r->subresources[k]));
    }
    if (!gv)
        return NULL;
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "kind", sref(a, "APIResourceList"));
    kg_json_set(a, o, "apiVersion", sref(a, "v1"));
    kg_json_set(a, o, "groupVersion", sref(a, gv));
    kg_json_set(a, o, "resources", res);
    return o;
}

/* apidiscovery.k8s.io/v2: one APIGroupDiscovery per group with versions → resources (+ subresources). */
kg_json *kg_discovery_aggregated(kg_arena *a, bool core)
{
    init_table();
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "kind", sref(a, "APIGroupDiscoveryList"));
    kg_json_set(a, o, "apiVersion", sref(a, "apidiscovery.k8s.io/v2"));
    kg_json_set(a, o, "metadata", kg_json_new_object(a));
    kg_json *items = kg_json_new_array(a);
    const kg_dynamic_set *d = kg_dynamic_current();
    for (size_t i = 0; i < nall(d); i++) {
        const kg_resource *r = res_at(d, i);
        if (core != (r->group[0] == 0))
            continue;
        /* find or create the group item */
        kg_json *gitem = NULL;
        for (uint32_t k = 0; k < items->len; k++)
            if (!strcmp(kg_json_path_str(items->u.items[k], "metadata.name"), r->group))
                gitem = items->u.items[k];
        if (!gitem) {
            gitem = kg_json_new_object(a);
            kg_json *md = kg_json_new_object(a);
            kg_json_set(a, md, "name", sref(a, r->group));
            kg_json_set(a, gitem, "metadata", md);
            kg_json_set(a, gitem, "versions", kg_json_new_array(a));
            kg_json_array_append(a, items, gitem);
        }
        kg_json *versions = kg_json_get(gitem, "versions");
        kg_json *ver = NULL;
        for (uint32_t k = 0; k < versions->len; k++)
            if (!strcmp(kg_json_get_str(versions->u.items[k], "version"), r->version))
                ver = versions->u.items[k];
        if (!ver) {
            ver = kg_json_new_object(a);
            kg_json_set(a, ver, "version", sref(a, r->version));
            kg_json_set(a, ver, "resources", kg_json_new_array(a));
            kg_json_set(a, ver, "freshness", sref(a, "Current"));
            kg_json_array_append(a, versions, ver);
        }
        kg_json *e = kg_json_new_object(a);
        kg_json_set(a, e, "resource", sref(a, r->plural));
        kg_json *rk = kg_json_new_object(a);
        kg_json_set(a, rk, "group", sref(a, r->group));
        kg_json_set(a, rk, "version", sref(a, r->version));
        kg_json_set(a, rk, "kind", sref(a, r->kind));
        kg_json_set(a, e, "responseKind", rk);
        kg_json_set(a, e, "scope", sref(a, r->namespaced ? "Namespaced" : "Cluster"));
        kg_json_set(a, e, "singularResource", sref(a, r->singular));
        kg_json_set(a, e, "verbs", verbs_array(a, r->verbs));
        if (r->short_names[0])
            kg_json_set(a, e, "shortNames", str_array(a, r->short_names));
        if (r->categories[0])
            kg_json_set(a, e, "categories", str_array(a, r->categories));
        if (r->subresources[0].name) {
            kg_json *subs = kg_json_new_array(a);
            for (int k = 0; k < KG_MAX_SUBRESOURCES && r->subresources[k].name; k++) {
                const kg_subresource *sr = &r->subresources[k];
                kg_json *s = kg_json_new_object(a);
                kg_json_set(a, s, "subresource", sref(a, sr->name));
                kg_json *sk = kg_json_new_object(a);
                kg_json_set(a, sk, "group", sref(a, sr->group ? sr->group : r->group));
                kg_json_set(a, sk, "version", sref(a, sr->version ? sr->version : r->version));
                kg_json_set(a, sk, "kind", sref(a, sr->obj_kind ? sr->obj_kind : r->kind));
                kg_json_set(a, s, "responseKind", sk);
                kg_json_set(a, s, "verbs", verbs_array(a, sr->verbs));
                kg_json_array_append(a, subs, s);
            }
            kg_json_set(a, e, "subresources", subs);
        }
        kg_json_array_append(a, kg_json_get(ver, "resources"), e);
    }
    kg_json_set(a, o, "items", items);
    return o;
}
