/* The objects two kube-controller-manager controllers keep in every namespace, which the ServiceAccount plugin and
 * its projected token volume rely on:
 *   - serviceaccounts-controller (pkg/controller/serviceaccount): a ServiceAccount named "default";
 *   - root-ca-cert-publisher (pkg/controller/certificates/rootcacertpublisher): a ConfigMap kube-root-ca.crt with
 *     the cluster CA bundle under ca.crt and a description annotation.
 * See serviceaccount.h. */
#include <string.h>

#include "base/log.h"
#include "controllers/serviceaccount.h"

#define DESCRIPTION_ANNOTATION "kubernetes.io/description"
#define ROOT_CA_DESCRIPTION                                                                                            \
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the "    \
    "internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of "             \
    "Kubernetes clusters."

static kg_json *meta(kg_arena *a, const char *name, const char *ns)
{
    kg_json *m = kg_json_new_object(a);
    kg_json_set(a, m, "name", kg_json_new_str(a, name));
    kg_json_set(a, m, "namespace", kg_json_new_str(a, ns));
    return m;
}

kg_json *kg_sa_default_serviceaccount(kg_arena *a, const char *ns)
{
    kg_json *sa = kg_json_new_object(a);
    kg_json_set(a, sa, "apiVersion", kg_json_new_str(a, "v1"));
    kg_json_set(a, sa, "kind", kg_json_new_str(a, "ServiceAccount"));
    kg_json_set(a, sa, "metadata", meta(a, KG_SA_DEFAULT_NAME, ns));
    return sa;
}

kg_json *kg_sa_root_ca_configmap(kg_arena *a, const char *ns, const char *ca_pem)
{
    kg_json *cm = kg_json_new_object(a);
    kg_json_set(a, cm, "apiVersion", kg_json_new_str(a, "v1"));
    kg_json_set(a, cm, "kind", kg_json_new_str(a, "ConfigMap"));
    kg_json *m = meta(a, KG_SA_ROOT_CA_CONFIGMAP, ns);
    kg_json *ann = kg_json_new_object(a);
    kg_json_set(a, ann, DESCRIPTION_ANNOTATION, kg_json_new_str(a, ROOT_CA_DESCRIPTION));
    kg_json_set(a, m, "annotations", ann);
    kg_json_set(a, cm, "metadata", m);
    kg_json *data = kg_json_new_object(a);
    kg_json_set(a, data, KG_SA_ROOT_CA_KEY, kg_json_new_str(a, ca_pem ? ca_pem : ""));
    kg_json_set(a, cm, "data", data);
    return cm;
}

kg_json *kg_sa_root_ca_configmap_fix(kg_arena *a, const kg_json *existing, const char *ca_pem)
{
    ca_pem = ca_pem ? ca_pem : "";
    const kg_json *data = kg_json_get(existing, "data");
    const char *have = kg_json_get_str(data, KG_SA_ROOT_CA_KEY);
    const char *desc = kg_json_get_str(kg_json_path(existing, "metadata.annotations"), DESCRIPTION_ANNOTATION);
    /* upstream: data must be exactly {ca.crt: bundle} and the description non-empty */
    bool data_ok = kg_json_is(data, KG_JSON_OBJECT) && data->len == 1 && have && strcmp(have, ca_pem) == 0;
    if (data_ok && desc && desc[0])
        return NULL;
    kg_json *cm = kg_json_clone(a, existing);
    kg_json *nd = kg_json_new_object(a);
    kg_json_set(a, nd, KG_SA_ROOT_CA_KEY, kg_json_new_str(a, ca_pem));
    kg_json_set(a, cm, "data", nd);
    kg_json *m = kg_json_get_or_add_object(a, cm, "metadata");
    kg_json *ann = kg_json_get(m, "annotations");
    if (!kg_json_is(ann, KG_JSON_OBJECT)) {
        ann = kg_json_new_object(a);
        kg_json_set(a, m, "annotations", ann);
    }
    kg_json_set(a, ann, DESCRIPTION_ANNOTATION, kg_json_new_str(a, ROOT_CA_DESCRIPTION));
    return cm;
}

bool kg_sa_namespace_active(const kg_json *ns)
{
    const kg_json *dt = kg_json_path(ns, "metadata.deletionTimestamp");
    if (dt && !kg_json_is(dt, KG_JSON_NULL))
        return false;
    const char *phase = kg_json_path_str(ns, "status.phase");
    return !phase || strcmp(phase, "Terminating") != 0;
}

void kg_sa_controllers_sync(const kg_controller_client *c, kg_arena *a, const kg_json *ns, const char *ca_pem)
{
    const char *name = kg_json_path_str(ns, "metadata.name");
    if (!name || !kg_sa_namespace_active(ns))
        return;
    kg_error err;
    if (!c->get(c->ctx, a, "serviceaccounts", name, KG_SA_DEFAULT_NAME, &err) && err.code == KG_ENOTFOUND &&
        !c->create(c->ctx, a, "serviceaccounts", name, kg_sa_default_serviceaccount(a, name), &err) &&
        err.code != KG_EEXIST)
        KG_WARN("serviceaccounts controller: %s/default: %s", name, err.msg);
    kg_json *existing = c->get(c->ctx, a, "configmaps", name, KG_SA_ROOT_CA_CONFIGMAP, &err);
    if (!existing) {
        if (err.code == KG_ENOTFOUND &&
            !c->create(c->ctx, a, "configmaps", name, kg_sa_root_ca_configmap(a, name, ca_pem), &err) &&
            err.code != KG_EEXIST)
            KG_WARN("root-ca-cert-publisher: %s/kube-root-ca.crt: %s", name, err.msg);
        return;
    }
    kg_json *fixed = kg_sa_root_ca_configmap_fix(a, existing, ca_pem);
    if (fixed && !c->update(c->ctx, a, "configmaps", name, fixed, &err))
        KG_V(2, "root-ca-cert-publisher: %s/kube-root-ca.crt: %s", name, err.msg);
}
