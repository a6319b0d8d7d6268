#include "api/defaults.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>

static kg_json *sref(kg_arena *a, const char *s) { return kg_json_new_str_ref(a, s, strlen(s)); }

static kg_json *obj_at(kg_arena *a, kg_json *o, const char *k) { return kg_json_get_or_add_object(a, o, k); }

static void def_str(kg_arena *a, kg_json *o, const char *k, const char *v)
{
    kg_json *x = kg_json_get(o, k);
    if (!x || x->type == KG_JSON_NULL || (x->type == KG_JSON_STRING && x->len == 0))
        kg_json_set(a, o, k, sref(a, v));
}

static void def_int(kg_arena *a, kg_json *o, const char *k, int64_t v)
{
    kg_json *x = kg_json_get(o, k);
    if (!x || x->type == KG_JSON_NULL)
        kg_json_set(a, o, k, kg_json_new_int(a, v));
}

static void def_bool(kg_arena *a, kg_json *o, const char *k, bool v)
{
    kg_json *x = kg_json_get(o, k);
    if (!x || x->type == KG_JSON_NULL)
        kg_json_set(a, o, k, kg_json_new_bool(a, v));
}

static void def_obj(kg_arena *a, kg_json *o, const char *k)
{
    kg_json *x = kg_json_get(o, k);
    if (!x || x->type == KG_JSON_NULL)
        kg_json_set(a, o, k, kg_json_new_object(a));
}

/* imagePullPolicy: Always for ":latest" or untagged images (digests count as tagged), else IfNotPresent. */
static const char *pull_policy(const char *image)
{
    if (!image)
        return "IfNotPresent";
    if (strchr(image, '@'))
        return "IfNotPresent";
    const char *slash = strrchr(image, '/');
    const char *last = slash ? slash + 1 : image;
    const char *colon = strchr(last, ':');
    if (!colon || !strcmp(colon + 1, "latest"))
        return "Always";
    return "IfNotPresent";
}

/* SetDefaults_Volume: a volume with no source (every VolumeSource member absent or null) becomes emptyDir: {}.
 * Admission sees the defaulted pod, as upstream (PodSecurity's restrictedVolumes allows emptyDir). */
static void default_volume_source(kg_arena *a, kg_json *v)
{
    static const char *const sources[] = {"hostPath",
                                          "emptyDir",
                                          "gcePersistentDisk",
                                          "awsElasticBlockStore",
                                          "gitRepo",
                                          "secret",
                                          "nfs",
                                          "iscsi",
                                          "glusterfs",
                                          "persistentVolumeClaim",
                                          "rbd",
                                          "flexVolume",
                                          "cinder",
                                          "cephfs",
                                          "flocker",
                                          "downwardAPI",
                                          "fc",
                                          "azureFile",
                                          "configMap",
                                          "vsphereVolume",
                                          "quobyte",
                                          "azureDisk",
                                          "photonPersistentDisk",
                                          "projected",
                                          "portworxVolume",
                                          "scaleIO",
                                          "storageos",
                                          "csi",
                                          "ephemeral",
                                          "image"};
    if (!v || v->type != KG_JSON_OBJECT)
        return;
    for (size_t k = 0; k < sizeof sources / sizeof sources[0]; k++) {
        kg_json *src = kg_json_getn(v, sources[k], strlen(sources[k]));
        if (src && src->type != KG_JSON_NULL)
            return;
    }
    kg_json_set(a, v, "emptyDir", kg_json_new_object(a));
}

static void default_container(kg_arena *a, kg_json *c)
{
    if (!c || c->type != KG_JSON_OBJECT)
        return;
    def_str(a, c, "terminationMessagePath", "/dev/termination-log");
    def_str(a, c, "terminationMessagePolicy", "File");
    def_str(a, c, "imagePullPolicy", pull_policy(kg_json_get_str(c, "image")));
    def_obj(a, c, "resources");
    kg_json *ports = kg_json_get(c, "ports");
    if (ports && ports->type == KG_JSON_ARRAY)
        for (uint32_t i = 0; i < ports->len; i++)
            if (ports->u.items[i]->type == KG_JSON_OBJECT)
                def_str(a, ports->u.items[i], "protocol", "TCP");
    kg_json *env = kg_json_get(c, "env");
    if (env && env->type == KG_JSON_ARRAY)
        for (uint32_t i = 0; i < env->len; i++) {
            kg_json *fr = kg_json_path(env->u.items[i], "valueFrom.fieldRef");
            if (fr && fr->type == KG_JSON_OBJECT)
                def_str(a, fr, "apiVersion", "v1");
        }
    /* requests default to limits when unset (SetDefaults_ResourceRequirements via pod defaulting) */
    kg_json *res = kg_json_get(c, "resources");
    kg_json *lim = kg_json_get(res, "limits");
    if (lim && lim->type == KG_JSON_OBJECT && lim->len) {
        kg_json *req = obj_at(a, res, "requests");
        for (uint32_t i = 0; i < lim->len; i++)
            if (!kg_json_get(req, lim->u.members[i].key))
                kg_json_set(a, req, lim->u.members[i].key, lim->u.members[i].val);
    }
    static const char *const probes[] = {"livenessProbe", "readinessProbe", "startupProbe"};
    for (int p = 0; p < 3; p++) {
        kg_json *pr = kg_json_get(c, probes[p]);
        if (!pr || pr->type != KG_JSON_OBJECT)
            continue;
        def_int(a, pr, "timeoutSeconds", 1);
        def_int(a, pr, "periodSeconds", 10);
        def_int(a, pr, "successThreshold", 1);
        def_int(a, pr, "failureThreshold", 3);
        kg_json *hg = kg_json_get(pr, "httpGet");
        if (hg && hg->type == KG_JSON_OBJECT) {
            def_str(a, hg, "path", "/");
            def_str(a, hg, "scheme", "HTTP");
        }
    }
}

static void default_pod_spec(kg_arena *a, kg_json *spec)
{
    if (!spec || spec->type != KG_JSON_OBJECT)
        return;
    def_str(a, spec, "restartPolicy", "Always");
    def_str(a, spec, "dnsPolicy", "ClusterFirst");
    def_int(a, spec, "terminationGracePeriodSeconds", 30);
    def_obj(a, spec, "securityContext");
    def_str(a, spec, "schedulerName", "default-scheduler");
    def_bool(a, spec, "enableServiceLinks", true);
    static const char *const lists[] = {"containers", "initContainers", "ephemeralContainers"};
    for (int l = 0; l < 3; l++) {
        kg_json *cs = kg_json_get(spec, lists[l]);
        if (cs && cs->type == KG_JSON_ARRAY)
            for (uint32_t i = 0; i < cs->len; i++)
                default_container(a, cs->u.items[i]);
    }
    kg_json *vols = kg_json_get(spec, "volumes");
    if (vols && vols->type == KG_JSON_ARRAY)
        for (uint32_t i = 0; i < vols->len; i++) {
            kg_json *v = vols->u.items[i];
            static const char *const moded[] = {"configMap", "secret", "projected", "downwardAPI"};
            for (int k = 0; k < 4; k++) {
                kg_json *src = kg_json_get(v, moded[k]);
                if (src && src->type == KG_JSON_OBJECT)
                    def_int(a, src, "defaultMode", 420);
            }
            kg_json *hp = kg_json_get(v, "hostPath");
            if (hp && hp->type == KG_JSON_OBJECT)
                def_str(a, hp, "type", "");
            default_volume_source(a, v);
        }
    /* serviceAccount mirrors serviceAccountName (deprecated field kept in sync) */
    const char *san = kg_json_get_str(spec, "serviceAccountName");
    const char *sa = kg_json_get_str(spec, "serviceAccount");
    if (san && san[0] && !sa)
        kg_json_set(a, spec, "serviceAccount", sref(a, san));
    else if (sa && sa[0] && !san)
        kg_json_set(a, spec, "serviceAccountName", sref(a, sa));
}

static void default_template(kg_arena *a, kg_json *tmpl)
{
    if (tmpl && tmpl->type == KG_JSON_OBJECT)
        default_pod_spec(a, kg_json_get(tmpl, "spec"));
}

static bool is(const kg_resource *r, const char *group, const char *plural)
{
    return !strcmp(r->group, group) && !strcmp(r->plural, plural);
}

/* HorizontalPodAutoscaler (autoscaling/v2 and v1 SetDefaults_HorizontalPodAutoscaler): minReplicas 1; in v2 an empty
 * metrics list becomes the CPU 80% utilization target and a given behavior has its unset scaling rules filled
 * (scale up: no stabilization, max of 4 pods or 100% per 15 s; scale down: 100% per 15 s). */
static kg_json *hpa_policy(kg_arena *a, const char *type, int64_t value)
{
    kg_json *p = kg_json_new_object(a);
    kg_json_set(a, p, "type", sref(a, type));
    kg_json_set(a, p, "value", kg_json_new_int(a, value));
    kg_json_set(a, p, "periodSeconds", kg_json_new_int(a, 15));
    return p;
}

static void default_hpa_rules(kg_arena *a, kg_json *behavior, const char *key, bool up)
{
    kg_json *rules = kg_json_get(behavior, key);
    if (!rules || rules->type != KG_JSON_OBJECT) {
        rules = kg_json_new_object(a);
        kg_json_set(a, behavior, key, rules);
    }
    if (up)
        def_int(a, rules, "stabilizationWindowSeconds", 0);
    def_str(a, rules, "selectPolicy", "Max");
    kg_json *pol = kg_json_get(rules, "policies");
    if (!pol || pol->type == KG_JSON_NULL) {
        pol = kg_json_new_array(a);
        if (up)
            kg_json_array_append(a, pol, hpa_policy(a, "Pods", 4));
        kg_json_array_append(a, pol, hpa_policy(a, "Percent", 100));
        kg_json_set(a, rules, "policies", pol);
    }
}

static void default_hpa(kg_arena *a, const kg_resource *r, kg_json *spec)
{
    def_int(a, spec, "minReplicas", 1);
    if (strcmp(r->version, "v2"))
        return;
    kg_json *metrics = kg_json_get(spec, "metrics");
    if (!metrics || metrics->type != KG_JSON_ARRAY || !metrics->len) {
        kg_json *m = kg_json_new_object(a), *res = kg_json_new_object(a), *t = kg_json_new_object(a);
        kg_json_set(a, m, "type", sref(a, "Resource"));
        kg_json_set(a, res, "name", sref(a, "cpu"));
        kg_json_set(a, t, "type", sref(a, "Utilization"));
        kg_json_set(a, t, "averageUtilization", kg_json_new_int(a, 80));
        kg_json_set(a, res, "target", t);
        kg_json_set(a, m, "resource", res);
        metrics = kg_json_new_array(a);
        kg_json_array_append(a, metrics, m);
        kg_json_set(a, spec, "metrics", metrics);
    }
    kg_json *behavior = kg_json_get(spec, "behavior");
    if (behavior && behavior->type == KG_JSON_OBJECT) {
        default_hpa_rules(a, behavior, "scaleUp", true);
        default_hpa_rules(a, behavior, "scaleDown", false);
    }
}

void kg_api_default(kg_arena *a, const kg_resource *r, kg_json *obj)
{
    if (!obj || obj->type != KG_JSON_OBJECT)
        return;
    kg_json *spec = kg_json_get(obj, "spec");
    bool has_spec = spec && spec->type == KG_JSON_OBJECT;
    if (is(r, "", "pods")) {
        if (!has_spec)
            spec = obj_at(a, obj, "spec");
        default_pod_spec(a, spec);
    } else if (is(r, "", "namespaces")) {
        kg_json *md = kg_json_get(obj, "metadata");
        const char *name = kg_json_get_str(md, "name");
        if (name && name[0])
            kg_json_set(a, obj_at(a, md, "labels"), "kubernetes.io/metadata.name", kg_json_new_str(a, name));
    } else if (is(r, "", "secrets")) {
        def_str(a, obj, "type", "Opaque");
    } else if (is(r, "autoscaling", "horizontalpodautoscalers") && has_spec) {
        default_hpa(a, r, spec);
    } else if (is(r, "", "services") && has_spec) {
        const char *type = kg_json_get_str(spec, "type");
        def_str(a, spec, "type", "ClusterIP");
        def_str(a, spec, "sessionAffinity", "None");
        kg_json *ports = kg_json_get(spec, "ports");
        if (ports && ports->type == KG_JSON_ARRAY)
            for (uint32_t i = 0; i < ports->len; i++) {
                kg_json *p = ports->u.items[i];
                if (p->type != KG_JSON_OBJECT)
                    continue;
                def_str(a, p, "protocol", "TCP");
                kg_json *port = kg_json_get(p, "port");
                if (!kg_json_get(p, "targetPort") && port)
                    kg_json_set(a, p, "targetPort", port);
            }
        if (!type || strcmp(type, "ExternalName")) {
            def_str(a, spec, "internalTrafficPolicy", "Cluster");
        }
    } else if (is(r, "", "replicationcontrollers") && has_spec) {
        def_int(a, spec, "replicas", 1);
        kg_json *tmpl = kg_json_get(spec, "template");
        default_template(a, tmpl);
        kg_json *tl = kg_json_path(tmpl, "metadata.labels");
        if (tl && !kg_json_get(spec, "selector"))
            kg_json_set(a, spec, "selector", kg_json_clone(a, tl));
        kg_json *md = obj_at(a, obj, "metadata");
        if (tl && !kg_json_get(md, "labels"))
            kg_json_set(a, md, "labels", kg_json_clone(a, tl));
    } else if (is(r, "", "persistentvolumeclaims") && has_spec) {
        def_str(a, spec, "volumeMode", "Filesystem");
    } else if (is(r, "", "persistentvolumes") && has_spec) {
        def_str(a, spec, "persistentVolumeReclaimPolicy", "Retain");
        def_str(a, spec, "volumeMode", "Filesystem");
    } else if (is(r, "apps", "deployments") && has_spec) {
        def_int(a, spec, "replicas", 1);
        kg_json *strat = obj_at(a, spec, "strategy");
        def_str(a, strat, "type", "RollingUpdate");
        if (!strcmp(kg_json_get_str(strat, "type"), "RollingUpdate")) {
            kg_json *ru = obj_at(a, strat, "rollingUpdate");
            if (!kg_json_get(ru, "maxUnavailable"))
                kg_json_set(a, ru, "maxUnavailable", sref(a, "25%"));
            if (!kg_json_get(ru, "maxSurge"))
                kg_json_set(a, ru, "maxSurge", sref(a, "25%"));
        }
        def_int(a, spec, "revisionHistoryLimit", 10);
        def_int(a, spec, "progressDeadlineSeconds", 600);
        default_template(a, kg_json_get(spec, "template"));
    } else if (is(r, "apps", "replicasets") && has_spec) {
        def_int(a, spec, "replicas", 1);
        default_template(a, kg_json_get(spec, "template"));
    } else if (is(r, "apps", "statefulsets") && has_spec) {
        def_int(a, spec, "replicas", 1);
        def_str(a, spec, "podManagementPolicy", "OrderedReady");
        kg_json *us = obj_at(a, spec, "updateStrategy");
        def_str(a, us, "type", "RollingUpdate");
        if (!strcmp(kg_json_get_str(us, "type"), "RollingUpdate"))
            def_int(a, obj_at(a, us, "rollingUpdate"), "partition", 0);
        def_int(a, spec, "revisionHistoryLimit", 10);
        kg_json *pr = obj_at(a, spec, "persistentVolumeClaimRetentionPolicy");
        def_str(a, pr, "whenDeleted", "Retain");
        def_str(a, pr, "whenScaled", "Retain");
        default_template(a, kg_json_get(spec, "template"));
    } else if (is(r, "apps", "daemonsets") && has_spec) {
        kg_json *us = obj_at(a, spec, "updateStrategy");
        def_str(a, us, "type", "RollingUpdate");
        if (!strcmp(kg_json_get_str(us, "type"), "RollingUpdate")) {
            kg_json *ru = obj_at(a, us, "rollingUpdate");
            def_int(a, ru, "maxUnavailable", 1);
            def_int(a, ru, "maxSurge", 0);
        }
        def_int(a, spec, "revisionHistoryLimit", 10);
        default_template(a, kg_json_get(spec, "template"));
    } else if (is(r, "batch", "jobs") && has_spec) {
        def_int(a, spec, "parallelism", 1);
        def_int(a, spec, "completions", 1);
        def_int(a, spec, "backoffLimit", 6);
        def_str(a, spec, "completionMode", "NonIndexed");
        def_bool(a, spec, "suspend", false);
        def_str(a, spec, "podReplacementPolicy", "TerminatingOrFailed");
        default_template(a, kg_json_get(spec, "template"));
    } else if (is(r, "batch", "cronjobs") && has_spec) {
        def_str(a, spec, "concurrencyPolicy", "Allow");
        def_bool(a, spec, "suspend", false);
        def_int(a, spec, "successfulJobsHistoryLimit", 3);
        def_int(a, spec, "failedJobsHistoryLimit", 1);
        default_template(a, kg_json_path(spec, "jobTemplate.spec.template"));
    } else if (is(r, "scheduling.k8s.io", "priorityclasses")) {
        def_str(a, obj, "preemptionPolicy", "PreemptLowerPriority");
    } else if (is(r, "storage.k8s.io", "storageclasses")) {
        def_str(a, obj, "reclaimPolicy", "Delete");
        def_str(a, obj, "volumeBindingMode", "Immediate");
    } else if (is(r, "admissionregistration.k8s.io", "mutatingwebhookconfigurations") ||
               is(r, "admissionregistration.k8s.io", "validatingwebhookconfigurations")) {
        bool mutating = r->plural[0] == 'm';
        kg_json *hooks = kg_json_get(obj, "webhooks");
        if (hooks && hooks->type == KG_JSON_ARRAY)
            for (uint32_t i = 0; i < hooks->len; i++) {
                kg_json *h = hooks->u.items[i];
                if (h->type != KG_JSON_OBJECT)
                    continue;
                def_str(a, h, "failurePolicy", "Fail");
                def_str(a, h, "matchPolicy", "Equivalent");
                def_obj(a, h, "namespaceSelector");
                def_obj(a, h, "objectSelector");
                def_int(a, h, "timeoutSeconds", 10);
                if (mutating)
                    def_str(a, h, "reinvocationPolicy", "Never");
                kg_json *rules = kg_json_get(h, "rules");
                if (rules && rules->type == KG_JSON_ARRAY)
                    for (uint32_t k = 0; k < rules->len; k++)
                        if (rules->u.items[k]->type == KG_JSON_OBJECT)
                            def_str(a, rules->u.items[k], "scope", "*");
                kg_json *svc = kg_json_path(h, "clientConfig.service");
                if (svc && svc->type == KG_JSON_OBJECT)
                    def_int(a, svc, "port", 443);
            }
    } else if (is(r, "admissionregistration.k8s.io", "validatingadmissionpolicies") && has_spec) {
        def_str(a, spec, "failurePolicy", "Fail");
        kg_json *mc = kg_json_get(spec, "matchConstraints");
        if (mc && mc->type == KG_JSON_OBJECT) {
            def_str(a, mc, "matchPolicy", "Equivalent");
            def_obj(a, mc, "namespaceSelector");
            def_obj(a, mc, "objectSelector");
        }
    } else if ((is(r, "rbac.authorization.k8s.io", "rolebindings") ||
                is(r, "rbac.authorization.k8s.io", "clusterrolebindings"))) {
        kg_json *subs = kg_json_get(obj, "subjects");
        if (subs && subs->type == KG_JSON_ARRAY)
            for (uint32_t i = 0; i < subs->len; i++) {
                kg_json *s = subs->u.items[i];
                const char *k = kg_json_get_str(s, "kind");
                if (k && (!strcmp(k, "User") || !strcmp(k, "Group")))
                    def_str(a, s, "apiGroup", "rbac.authorization.k8s.io");
            }
    }
}

/* ---- QoS (pkg/apis/core/v1/helper/qos) ---- */

static bool has_keys(const kg_json *o) { return o && o->type == KG_JSON_OBJECT && o->len > 0; }

const char *kg_api_pod_qos(const kg_json *spec)
{
    bool any = false, guaranteed = true;
    static const char *const lists[] = {"containers", "initContainers"};
    for (int l = 0; l < 2; l++) {
        kg_json *cs = kg_json_get(spec, lists[l]);
        if (!cs || cs->type != KG_JSON_ARRAY)
            continue;
        for (uint32_t i = 0; i < cs->len; i++) {
            kg_json *req = kg_json_path(cs->u.items[i], "resources.requests");
            kg_json *lim = kg_json_path(cs->u.items[i], "resources.limits");
            static const char *const res[] = {"cpu", "memory"};
            for (int k = 0; k < 2; k++) {
                kg_json *rq = kg_json_get(req, res[k]), *lm = kg_json_get(lim, res[k]);
                if (rq || lm)
                    any = true;
                if (!lm || !rq || !kg_json_equal(rq, lm))
                    guaranteed = false;
            }
            if (!has_keys(lim))
                guaranteed = false;
        }
    }
    if (!any)
        return "BestEffort";
    return guaranteed ? "Guaranteed" : "Burstable";
}

/* needsClusterIP: every type but ExternalName. */
static bool svc_needs_cluster_ip(const kg_json *svc)
{
    const char *t = kg_json_path_str(svc, "spec.type");
    return !t || strcmp(t, "ExternalName");
}

/* needsNodePort: NodePort, and LoadBalancer unless allocateLoadBalancerNodePorts is false. */
static bool svc_needs_node_port(const kg_json *svc)
{
    const char *t = kg_json_path_str(svc, "spec.type");
    const kg_json *alloc = kg_json_path(svc, "spec.allocateLoadBalancerNodePorts");
    return t && (!strcmp(t, "NodePort") ||
                 (!strcmp(t, "LoadBalancer") && !(alloc && alloc->type == KG_JSON_BOOL && !alloc->b)));
}

static bool same_field(const kg_json *x, const kg_json *y, const char *path)
{
    const kg_json *a = kg_json_path(x, path), *b = kg_json_path(y, path);
    return (!a && !b) || (a && b && kg_json_equal(a, b));
}

static bool same_node_ports(const kg_json *x, const kg_json *y)
{
    const kg_json *px = kg_json_path(x, "spec.ports"), *py = kg_json_path(y, "spec.ports");
    uint32_t nx = px && px->type == KG_JSON_ARRAY ? px->len : 0, ny = py && py->type == KG_JSON_ARRAY ? py->len : 0;
    if (nx != ny)
        return false;
    for (uint32_t i = 0; i < nx; i++)
        if (!same_field(px->u.items[i], py->u.items[i], "nodePort"))
            return false;
    return true;
}

void kg_api_prepare_for_update(kg_arena *a, const kg_resource *r, kg_json *obj, const kg_json *old)
{
    if (!is(r, "", "services") || !old)
        return;
    kg_json *spec = kg_json_get(obj, "spec");
    if (!spec || spec->type != KG_JSON_OBJECT)
        return;
    bool old_needs = svc_needs_cluster_ip(old), new_needs = svc_needs_cluster_ip(obj);
    if (old_needs && new_needs) { /* patchAllocatedValues */
        const char *cip = kg_json_get_str(spec, "clusterIP");
        const kg_json *ocip = kg_json_path(old, "spec.clusterIP"), *oips = kg_json_path(old, "spec.clusterIPs");
        const kg_json *ips = kg_json_get(spec, "clusterIPs");
        if ((!cip || !cip[0]) && ocip)
            kg_json_set(a, spec, "clusterIP", kg_json_clone(a, ocip));
        if ((!ips || ips->type != KG_JSON_ARRAY || !ips->len) && oips && oips->type == KG_JSON_ARRAY && oips->len)
            kg_json_set(a, spec, "clusterIPs", kg_json_clone(a, oips));
    } else if (old_needs && !new_needs) { /* dropTypeDependentFields */
        if (same_field(obj, old, "spec.clusterIP") && same_field(obj, old, "spec.clusterIPs")) {
            kg_json_del(spec, "clusterIP");
            kg_json_del(spec, "clusterIPs");
        }
        if (same_field(obj, old, "spec.ipFamilies"))
            kg_json_del(spec, "ipFamilies");
        if (same_field(obj, old, "spec.ipFamilyPolicy"))
            kg_json_del(spec, "ipFamilyPolicy");
    }
    if (svc_needs_node_port(old) && !svc_needs_node_port(obj) && same_node_ports(obj, old)) {
        kg_json *ports = kg_json_get(spec, "ports");
        for (uint32_t i = 0; ports && ports->type == KG_JSON_ARRAY && i < ports->len; i++)
            kg_json_del(ports->u.items[i], "nodePort");
    }
}

/* The Job strategy's generateSelector (unless spec.manualSelector): the template gets the job-name and
 * controller-uid labels (legacy and batch.kubernetes.io/ forms) the user did not set, and the selector matches
 * batch.kubernetes.io/controller-uid=<uid>. */
static void job_generate_selector(kg_arena *a, kg_json *obj)
{
    const kg_json *manual = kg_json_path(obj, "spec.manualSelector");
    const char *name = kg_json_path_str(obj, "metadata.name"), *uid = kg_json_path_str(obj, "metadata.uid");
    kg_json *spec = kg_json_get(obj, "spec");
    if ((manual && manual->type == KG_JSON_BOOL && manual->b) || !spec || spec->type != KG_JSON_OBJECT || !uid)
        return;
    kg_json *labels = obj_at(a, obj_at(a, obj_at(a, spec, "template"), "metadata"), "labels");
    static const char *const name_keys[] = {"job-name", "batch.kubernetes.io/job-name"};
    static const char *const uid_keys[] = {"controller-uid", "batch.kubernetes.io/controller-uid"};
    for (int i = 0; i < 2; i++) {
        if (!kg_json_get(labels, name_keys[i]))
            kg_json_set(a, labels, name_keys[i], kg_json_new_str(a, name ? name : ""));
        if (!kg_json_get(labels, uid_keys[i]))
            kg_json_set(a, labels, uid_keys[i], kg_json_new_str(a, uid));
    }
    kg_json *ml = obj_at(a, obj_at(a, spec, "selector"), "matchLabels");
    if (!kg_json_get(ml, "batch.kubernetes.io/controller-uid"))
        kg_json_set(a, ml, "batch.kubernetes.io/controller-uid", kg_json_new_str(a, uid));
}

void kg_api_prepare_for_create(kg_arena *a, const kg_resource *r, kg_json *obj)
{
    /* custom resources with a status subresource and CRDs: status is not written by a create */
    if ((r->ext && r->has_status) || is(r, "apiextensions.k8s.io", "customresourcedefinitions"))
        kg_json_del(obj, "status");
    /* a CRD carries the cleanup finalizer from the start: its deletion first deletes its custom resources */
    if (is(r, "apiextensions.k8s.io", "customresourcedefinitions")) {
        kg_json *md = obj_at(a, obj, "metadata");
        kg_json *fins = kg_json_get(md, "finalizers");
        if (!fins || fins->type != KG_JSON_ARRAY) {
            fins = kg_json_new_array(a);
            kg_json_set(a, md, "finalizers", fins);
        }
        bool have = false;
        for (uint32_t i = 0; i < fins->len; i++)
            have = have || (fins->u.items[i]->type == KG_JSON_STRING &&
                            !strcmp(fins->u.items[i]->u.s, "customresourcecleanup.apiextensions.k8s.io"));
        if (!have)
            kg_json_array_append(a, fins, sref(a, "customresourcecleanup.apiextensions.k8s.io"));
    }
    if (is(r, "batch", "jobs"))
        job_generate_selector(a, obj);
    if (is(r, "", "pods")) {
        kg_json *st = kg_json_new_object(a);
        kg_json_set(a, st, "phase", sref(a, "Pending"));
        kg_json_set(a, st, "qosClass", sref(a, kg_api_pod_qos(kg_json_get(obj, "spec"))));
        kg_json_set(a, obj, "status", st);
    } else if (is(r, "", "namespaces")) {
        kg_json *spec = obj_at(a, obj, "spec");
        kg_json *fins = kg_json_new_array(a);
        kg_json_array_append(a, fins, sref(a, "kubernetes"));
        kg_json_set(a, spec, "finalizers", fins);
        kg_json *st = kg_json_new_object(a);
        kg_json_set(a, st, "phase", sref(a, "Active"));
        kg_json_set(a, obj, "status", st);
    } else if (is(r, "", "services")) {
        kg_json *spec = kg_json_get(obj, "spec");
        const char *type = kg_json_get_str(spec, "type");
        const char *cip = kg_json_get_str(spec, "clusterIP");
        if (spec && type && strcmp(type, "ExternalName") && (!cip || !cip[0])) {
            /* allocate from the default service CIDR 10.96.0.0/12 (excluding .0.0 and .0.1, the API service) */
            unsigned char rnd[3] = {0};
            if (getrandom(rnd, sizeof rnd, 0) != 3)
                rnd[0] = 1;
            unsigned off = (((unsigned)rnd[0] << 16) | ((unsigned)rnd[1] << 8) | rnd[2]) % ((1u << 20) - 3) + 2;
            char ip[32];
            snprintf(ip, sizeof ip, "10.%u.%u.%u", 96 + (off >> 16), (off >> 8) & 0xff, off & 0xff);
            kg_json_set(a, spec, "clusterIP", kg_json_new_str(a, ip));
            kg_json *ips = kg_json_new_array(a);
            kg_json_array_append(a, ips, kg_json_new_str(a, ip));
            kg_json_set(a, spec, "clusterIPs", ips);
        }
        if (spec && type && strcmp(type, "ExternalName")) {
            if (!kg_json_get(spec, "ipFamilies")) {
                kg_json *f = kg_json_new_array(a);
                kg_json_array_append(a, f, sref(a, "IPv4"));
                kg_json_set(a, spec, "ipFamilies", f);
            }
            def_str(a, spec, "ipFamilyPolicy", "SingleStack");
        }
        kg_json *st = kg_json_new_object(a);
        kg_json_set(a, st, "loadBalancer", kg_json_new_object(a));
        kg_json_set(a, obj, "status", st);
    } else if (is(r, "", "persistentvolumeclaims") || is(r, "", "persistentvolumes")) {
        kg_json *st = kg_json_new_object(a);
        kg_json_set(a, st, "phase", sref(a, "Pending"));
        kg_json_set(a, obj, "status", st);
    } else if (r->has_status && !is(r, "", "nodes") && !is(r, "", "resourcequotas") &&
               !is(r, "certificates.k8s.io", "certificatesigningrequests")) {
        kg_json_del(obj, "status");
    }
}
