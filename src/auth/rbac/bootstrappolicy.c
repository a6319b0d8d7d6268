/* The default RBAC policy as a data table (see bootstrappolicy.h). A rule is written "V=verbs G=groups R=resources
 * N=names U=urls" with comma-separated values; "G=" alone is the core group and a leading comma adds it to others. */
#include "auth/rbac/bootstrappolicy.h"

#include <string.h>

#define RO "V=get,list,watch"
#define RW "V=create,delete,deletecollection,patch,update"

typedef struct role_def {
    const char *name;
    const char *aggregate_to;   /* label rbac.authorization.k8s.io/aggregate-to-<x>=true, or NULL */
    const char *aggregate_from; /* aggregationRule selecting aggregate-to-<x>, or NULL */
    const char *rules[24];
} role_def;

static const role_def roles[] = {
    {"cluster-admin", NULL, NULL, {"V=* G=* R=*", "V=* U=*"}},
    {"admin", NULL, "admin", {NULL}},
    {"edit", "admin", "edit", {NULL}},
    {"view", "edit", "view", {NULL}},
    {"system:aggregate-to-admin",
     "admin",
     NULL,
     {"V=create G=authorization.k8s.io R=localsubjectaccessreviews",
      "V=create,delete,deletecollection,get,list,patch,update,watch G=rbac.authorization.k8s.io R=rolebindings,roles"}},
    {"system:aggregate-to-edit",
     "edit",
     NULL,
     {RO " G= R=pods/attach,pods/exec,pods/portforward,pods/proxy,secrets,services/proxy",
      "V=impersonate G= R=serviceaccounts", RW " G= R=pods,pods/attach,pods/exec,pods/portforward,pods/proxy",
      "V=create G= R=pods/eviction",
      RW " G= R=configmaps,events,persistentvolumeclaims,replicationcontrollers,replicationcontrollers/scale,"
         "secrets,serviceaccounts,services,services/proxy",
      "V=create G= R=serviceaccounts/token",
      RW " G=apps R=daemonsets,deployments,deployments/rollback,deployments/scale,replicasets,replicasets/scale,"
         "statefulsets,statefulsets/scale",
      RW " G=autoscaling R=horizontalpodautoscalers", RW " G=batch R=cronjobs,jobs",
      RW " G=policy R=poddisruptionbudgets", RW " G=networking.k8s.io R=ingresses,networkpolicies",
      "V=create,delete,deletecollection,get,list,patch,update,watch G=coordination.k8s.io R=leases"}},
    {"system:aggregate-to-view",
     "view",
     NULL,
     {RO " G= R=configmaps,endpoints,persistentvolumeclaims,persistentvolumeclaims/status,pods,"
         "replicationcontrollers,replicationcontrollers/scale,serviceaccounts,services,services/status",
      RO " G= R=bindings,events,limitranges,namespaces/status,pods/log,pods/status,replicationcontrollers/status,"
         "resourcequotas,resourcequotas/status",
      RO " G= R=namespaces", RO " G=discovery.k8s.io R=endpointslices",
      RO " G=apps R=controllerrevisions,daemonsets,daemonsets/status,deployments,deployments/scale,"
         "deployments/status,replicasets,replicasets/scale,replicasets/status,statefulsets,statefulsets/scale,"
         "statefulsets/status",
      RO " G=autoscaling R=horizontalpodautoscalers,horizontalpodautoscalers/status",
      RO " G=batch R=cronjobs,cronjobs/status,jobs,jobs/status",
      RO " G=policy R=poddisruptionbudgets,poddisruptionbudgets/status",
      RO " G=networking.k8s.io R=ingresses,ingresses/status,networkpolicies"}},
    {"system:discovery",
     NULL,
     NULL,
     {"V=get U=/api,/api/*,/apis,/apis/*,/healthz,/livez,/openapi,/openapi/*,/readyz,/version,/version/"}},
    {"system:public-info-viewer", NULL, NULL, {"V=get U=/healthz,/livez,/readyz,/version,/version/"}},
    {"system:basic-user",
     NULL,
     NULL,
     {"V=create G=authorization.k8s.io R=selfsubjectaccessreviews,selfsubjectrulesreviews",
      "V=create G=authentication.k8s.io R=selfsubjectreviews"}},
    {"system:monitoring",
     NULL,
     NULL,
     {"V=get U=/healthz,/healthz/*,/livez,/livez/*,/metrics,/metrics/slis,/readyz,/readyz/*"}},
    {"system:service-account-issuer-discovery",
     NULL,
     NULL,
     {"V=get U=/.well-known/openid-configuration,/.well-known/openid-configuration/,/openid/v1/jwks,/openid/v1/jwks/"}},
    {"system:auth-delegator",
     NULL,
     NULL,
     {"V=create G=authentication.k8s.io R=tokenreviews", "V=create G=authorization.k8s.io R=subjectaccessreviews"}},
    {"system:node",
     NULL,
     NULL,
     {"V=create G=authentication.k8s.io R=tokenreviews",
      "V=create G=authorization.k8s.io R=localsubjectaccessreviews,subjectaccessreviews",
      RO " G= R=services",
      "V=create,get,list,watch G= R=nodes",
      "V=patch,update G= R=nodes/status",
      "V=patch,update G= R=nodes",
      "V=create,patch,update G=,events.k8s.io R=events",
      RO " G= R=pods",
      "V=create,delete G= R=pods",
      "V=patch,update G= R=pods/status",
      "V=create G= R=pods/eviction",
      "V=get,list,watch G= R=configmaps,secrets",
      "V=get G= R=persistentvolumeclaims,persistentvolumes",
      RO " G= R=endpoints",
      "V=get,update,patch G= R=persistentvolumeclaims/status",
      "V=get,list,watch G=storage.k8s.io R=volumeattachments",
      "V=create G= R=serviceaccounts/token",
      "V=create,get,list,watch G=certificates.k8s.io R=certificatesigningrequests",
      "V=create,delete,get,patch,update G=coordination.k8s.io R=leases",
      "V=create,delete,get,patch,update G=storage.k8s.io R=csinodes",
      RO " G=storage.k8s.io R=csidrivers",
      RO " G=node.k8s.io R=runtimeclasses"}},
    {"system:kube-controller-manager",
     NULL,
     NULL,
     {"V=create,patch,update G=,events.k8s.io R=events", "V=create G=coordination.k8s.io R=leases",
      "V=get,update G=coordination.k8s.io R=leases N=kube-controller-manager", "V=create G= R=secrets,serviceaccounts",
      "V=delete G= R=secrets", "V=get G= R=configmaps,namespaces,secrets,serviceaccounts",
      "V=update G= R=secrets,serviceaccounts", "V=create G=authentication.k8s.io R=tokenreviews",
      "V=create G=authorization.k8s.io R=subjectaccessreviews", "V=list,watch G=* R=*",
      "V=create G= R=serviceaccounts/token"}},
    {"system:kube-scheduler",
     NULL,
     NULL,
     {"V=create,patch,update G=,events.k8s.io R=events", "V=create G=coordination.k8s.io R=leases",
      "V=get,update G=coordination.k8s.io R=leases N=kube-scheduler", RO " G= R=nodes",
      "V=delete,get,list,watch G= R=pods", "V=create G= R=bindings,pods/binding", "V=patch,update G= R=pods/status",
      RO " G= R=replicationcontrollers,services", RO " G=apps R=replicasets,statefulsets",
      RO " G=policy R=poddisruptionbudgets", RO " G= R=persistentvolumeclaims,persistentvolumes",
      "V=create G=authentication.k8s.io R=tokenreviews", "V=create G=authorization.k8s.io R=subjectaccessreviews",
      RO " G=storage.k8s.io R=csidrivers,csinodes,csistoragecapacities,storageclasses", RO " G= R=namespaces"}},
};

typedef struct binding_def {
    const char *name;        /* = the ClusterRole's name */
    const char *subjects[3]; /* "G:name" group, "U:name" user */
} binding_def;

static const binding_def bindings[] = {
    {"cluster-admin", {"G:system:masters"}},
    {"system:discovery", {"G:system:authenticated"}},
    {"system:basic-user", {"G:system:authenticated"}},
    {"system:public-info-viewer", {"G:system:authenticated", "G:system:unauthenticated"}},
    {"system:monitoring", {"G:system:monitoring"}},
    {"system:service-account-issuer-discovery", {"G:system:serviceaccounts"}},
    {"system:node", {NULL}},
    {"system:kube-controller-manager", {"U:system:kube-controller-manager"}},
    {"system:kube-scheduler", {"U:system:kube-scheduler"}},
};

static kg_json *split(kg_arena *a, const char *v, size_t n)
{
    kg_json *arr = kg_json_new_array(a);
    size_t start = 0;
    for (size_t i = 0; i <= n; i++)
        if (i == n || v[i] == ',') {
            kg_json_array_append(a, arr, kg_json_new_strn(a, v + start, i - start));
            start = i + 1;
        }
    return arr;
}

static kg_json *rule(kg_arena *a, const char *spec)
{
    static const struct {
        char tag;
        const char *key;
    } keys[] = {
        {'V', "verbs"}, {'G', "apiGroups"}, {'R', "resources"}, {'N', "resourceNames"}, {'U', "nonResourceURLs"}};
    kg_json *r = kg_json_new_object(a);
    /* upstream's field order: apiGroups, nonResourceURLs, resourceNames, resources, verbs (sorted) */
    kg_json *fields[5] = {0};
    for (const char *p = spec; *p;) {
        const char *end = strchr(p, ' ');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        for (size_t k = 0; k < 5; k++)
            if (p[0] == keys[k].tag && p[1] == '=')
                fields[k] = split(a, p + 2, n - 2);
        p += n;
        while (*p == ' ')
            p++;
    }
    static const int order[] = {1, 4, 3, 2, 0};
    for (size_t i = 0; i < 5; i++)
        if (fields[order[i]])
            kg_json_set(a, r, keys[order[i]].key, fields[order[i]]);
    return r;
}

static kg_json *metadata(kg_arena *a, const char *name, const char *aggregate_to)
{
    kg_json *m = kg_json_new_object(a);
    kg_json_set(a, m, "name", kg_json_new_str(a, name));
    kg_json *labels = kg_json_new_object(a);
    kg_json_set(a, labels, "kubernetes.io/bootstrapping", kg_json_new_str(a, "rbac-defaults"));
    if (aggregate_to)
        kg_json_set(a, labels, kg_arena_sprintf(a, "rbac.authorization.k8s.io/aggregate-to-%s", aggregate_to),
                    kg_json_new_str(a, "true"));
    kg_json_set(a, m, "labels", labels);
    kg_json *ann = kg_json_new_object(a);
    kg_json_set(a, ann, KG_RBAC_AUTOUPDATE_ANNOTATION, kg_json_new_str(a, "true"));
    kg_json_set(a, m, "annotations", ann);
    return m;
}

static kg_json *header(kg_arena *a, const char *kind)
{
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "apiVersion", kg_json_new_str(a, "rbac.authorization.k8s.io/v1"));
    kg_json_set(a, o, "kind", kg_json_new_str(a, kind));
    return o;
}

kg_json *kg_rbac_bootstrap_policy(kg_arena *a)
{
    kg_json *out = kg_json_new_array(a);
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++) {
        const role_def *d = &roles[i];
        kg_json *o = header(a, "ClusterRole");
        kg_json_set(a, o, "metadata", metadata(a, d->name, d->aggregate_to));
        if (d->aggregate_from) {
            kg_json *sel = kg_json_new_object(a), *ml = kg_json_new_object(a);
            kg_json_set(a, ml, kg_arena_sprintf(a, "rbac.authorization.k8s.io/aggregate-to-%s", d->aggregate_from),
                        kg_json_new_str(a, "true"));
            kg_json_set(a, sel, "matchLabels", ml);
            kg_json *sels = kg_json_new_array(a);
            kg_json_array_append(a, sels, sel);
            kg_json *ar = kg_json_new_object(a);
            kg_json_set(a, ar, "clusterRoleSelectors", sels);
            kg_json_set(a, o, "aggregationRule", ar);
        }
        kg_json *rules = kg_json_new_array(a);
        for (size_t j = 0; j < sizeof d->rules / sizeof d->rules[0] && d->rules[j]; j++)
            kg_json_array_append(a, rules, rule(a, d->rules[j]));
        kg_json_set(a, o, "rules", rules);
        kg_json_array_append(a, out, o);
    }
    for (size_t i = 0; i < sizeof bindings / sizeof bindings[0]; i++) {
        const binding_def *d = &bindings[i];
        kg_json *o = header(a, "ClusterRoleBinding");
        kg_json_set(a, o, "metadata", metadata(a, d->name, NULL));
        kg_json *ref = kg_json_new_object(a);
        kg_json_set(a, ref, "apiGroup", kg_json_new_str(a, "rbac.authorization.k8s.io"));
        kg_json_set(a, ref, "kind", kg_json_new_str(a, "ClusterRole"));
        kg_json_set(a, ref, "name", kg_json_new_str(a, d->name));
        kg_json_set(a, o, "roleRef", ref);
        kg_json *subs = kg_json_new_array(a);
        for (size_t j = 0; j < 3 && d->subjects[j]; j++) {
            kg_json *s = kg_json_new_object(a);
            kg_json_set(a, s, "apiGroup", kg_json_new_str(a, "rbac.authorization.k8s.io"));
            kg_json_set(a, s, "kind", kg_json_new_str(a, d->subjects[j][0] == 'G' ? "Group" : "User"));
            kg_json_set(a, s, "name", kg_json_new_str(a, d->subjects[j] + 2));
            kg_json_array_append(a, subs, s);
        }
        if (subs->len)
            kg_json_set(a, o, "subjects", subs);
        kg_json_array_append(a, out, o);
    }
    return out;
}
