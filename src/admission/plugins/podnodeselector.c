/* PodNodeSelector (plugin/pkg/admission/podnodeselector), mutating + validating, CREATE of pods: the namespace's
 * node selector (annotation scheduler.alpha.kubernetes.io/node-selector, even when empty; else the configured
 * clusterDefaultNodeSelector) is merged into the pod's spec.nodeSelector (a conflicting value is rejected), and a
 * namespace whitelist from the configuration limits which node labels pods of that namespace may select.
 *
 * Configuration (legacy, unversioned; in the AdmissionConfiguration entry or the legacy top-level file):
 *   podNodeSelectorPluginConfig:
 *     clusterDefaultNodeSelector: "env=prod"
 *     <namespace>: "k=v,k2=v2"        # whitelist
 * kgate checks it at start-up (every value a string and a valid selector). */
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"

#define NS_ANNOTATION "scheduler.alpha.kubernetes.io/node-selector"
#define CFG_KEY "podNodeSelectorPluginConfig"

typedef struct pns_state {
    kg_arena arena;
    const kg_json *cfg; /* object: name → selector string, or NULL */
} pns_state;

static void destroy(void *state)
{
    pns_state *st = state;
    if (st) {
        kg_arena_free(&st->arena);
        free(st);
    }
}

static bool parse_config(pns_state *st, const kg_json *config, kg_error *err);

static bool init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    pns_state *st = calloc(1, sizeof *st);
    if (!st)
        return kg_err_set(err, KG_EINTERNAL, "out of memory");
    kg_arena_init(&st->arena, 0);
    if (!parse_config(st, config, err)) {
        destroy(st);
        return false;
    }
    *state = st;
    return true;
}

static bool parse_config(pns_state *st, const kg_json *config, kg_error *err)
{
    if (!config)
        return true;
    if (!kg_json_is(config, KG_JSON_OBJECT))
        return kg_err_set(err, KG_EINVAL, "expected an object with field %s, got %s", CFG_KEY,
                          kg_json_type_name((kg_json_type)config->type));
    const kg_json *m = kg_json_get(config, CFG_KEY);
    if (!m || kg_json_is(m, KG_JSON_NULL))
        return true;
    if (!kg_json_is(m, KG_JSON_OBJECT))
        return kg_err_set(err, KG_EINVAL, "%s: expected an object, got %s", CFG_KEY,
                          kg_json_type_name((kg_json_type)m->type));
    for (size_t i = 0; i < m->len; i++) {
        const kg_json *v = m->u.members[i].val;
        if (!kg_json_is(v, KG_JSON_STRING))
            return kg_err_set(err, KG_EINVAL, "%s.%s: expected a string, got %s", CFG_KEY, m->u.members[i].key,
                              kg_json_type_name((kg_json_type)v->type));
        const char *msg = NULL;
        if (!kg_admission_pu_selector_map(&st->arena, v->u.s, &msg))
            return kg_err_set(err, KG_EINVAL, "%s.%s: %s", CFG_KEY, m->u.members[i].key, msg);
    }
    st->cfg = kg_json_clone(&st->arena, m);
    return true;
}

static bool ignore(const kg_admission_attributes *a)
{
    return !kg_admission_pu_is(a, "", "pods") || !kg_admission_pu_obj_kind(a->object, "Pod");
}

/* getNamespaceNodeSelectorMap */
static kg_json *ns_selector(const pns_state *st, const kg_admission_attributes *a, const kg_admission_services *svc,
                            kg_status **out)
{
    kg_arena *ar = a->arena;
    KG_ERROR_DECL(e);
    const kg_json *ns = kg_admission_view_obj(svc, ar, "namespaces", "", a->ns, &e);
    if (!ns && e.code == KG_ENOTFOUND) {
        kg_err_clear(&e);
        ns = kg_admission_get(svc, ar, "namespaces", "", a->ns, KG_ADMISSION_GET_LIVE, &e);
        if (!ns) {
            *out = kg_status_internal(ar, kg_arena_sprintf(ar, "namespace %s does not exist", a->ns));
            return NULL;
        }
    } else if (!ns) {
        *out = kg_status_internal(ar, e.msg);
        return NULL;
    }
    const kg_json *anns = kg_json_path(ns, "metadata.annotations");
    const char *sel = kg_json_is(anns, KG_JSON_OBJECT) ? kg_json_get_str(anns, NS_ANNOTATION) : NULL;
    if (!sel)
        sel = st->cfg ? kg_json_get_str(st->cfg, "clusterDefaultNodeSelector") : NULL;
    const char *msg = NULL;
    kg_json *m = kg_admission_pu_selector_map(ar, sel, &msg);
    if (!m)
        *out = kg_status_new(ar, 500, KG_REASON_UNKNOWN, msg);
    return m;
}

/* Validate's checks, with the namespace selector already computed (admit passes its own: same lookup) */
static kg_status *check(const pns_state *st, const kg_admission_attributes *a, const kg_json *nssel)
{
    const kg_json *podsel = kg_json_path(a->object, "spec.nodeSelector");
    const char *name = kg_json_path_str(a->object, "metadata.name");
    kg_gr gr = KG_GR(a->resource.group, a->resource.resource);
    if (kg_admission_pu_labels_conflict(nssel, podsel))
        return kg_status_forbidden(a->arena, gr, name ? name : "",
                                   "pod node label selector conflicts with its namespace node label selector");
    const char *msg = NULL;
    kg_json *wl = kg_admission_pu_selector_map(a->arena, st->cfg ? kg_json_get_str(st->cfg, a->ns) : NULL, &msg);
    if (!wl)
        return kg_status_new(a->arena, 500, KG_REASON_UNKNOWN, msg);
    if (wl->len == 0)
        return NULL;
    for (size_t i = 0; kg_json_is(podsel, KG_JSON_OBJECT) && i < podsel->len; i++) {
        const char *wv = kg_json_get_str(wl, podsel->u.members[i].key);
        const kg_json *pv = podsel->u.members[i].val;
        if (!wv || !kg_json_is(pv, KG_JSON_STRING) || strcmp(wv, pv->u.s) != 0)
            return kg_status_forbidden(a->arena, gr, name ? name : "",
                                       "pod node label selector labels conflict with its namespace whitelist");
    }
    return NULL;
}

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    const pns_state *st = state;
    if (ignore(a))
        return NULL;
    if (!kg_admission_wait_ready(svc, "namespaces"))
        return kg_admission_forbidden(a, "not yet ready to handle request");
    kg_status *err = NULL;
    kg_json *nssel = ns_selector(st, a, svc, &err);
    if (!nssel)
        return err;
    kg_arena *ar = a->arena;
    kg_json *spec = kg_json_get_or_add_object(ar, a->object, "spec");
    kg_json *podsel = kg_json_get(spec, "nodeSelector");
    if (kg_admission_pu_labels_conflict(nssel, podsel)) {
        const char *name = kg_json_path_str(a->object, "metadata.name");
        return kg_status_forbidden(ar, KG_GR(a->resource.group, a->resource.resource), name ? name : "",
                                   "pod node label selector conflicts with its namespace node label selector");
    }
    if (nssel->len) {
        if (!kg_json_is(podsel, KG_JSON_OBJECT)) {
            podsel = kg_json_new_object(ar);
            kg_json_set(ar, spec, "nodeSelector", podsel);
        }
        for (size_t i = 0; i < nssel->len; i++)
            if (!kg_json_get(podsel, nssel->u.members[i].key))
                kg_json_set(ar, podsel, nssel->u.members[i].key, nssel->u.members[i].val);
    }
    return check(st, a, nssel);
}

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (ignore(a))
        return NULL;
    if (!kg_admission_wait_ready(svc, "namespaces"))
        return kg_admission_forbidden(a, "not yet ready to handle request");
    kg_status *err = NULL;
    kg_json *nssel = ns_selector(state, a, svc, &err);
    return nssel ? check(state, a, nssel) : err;
}

const kg_admission_plugin kg_admission_plugin_pod_node_selector = {
    .name = "PodNodeSelector",
    .handles = KG_ADMISSION_CREATE,
    .init = init,
    .admit = admit,
    .validate = validate,
    .destroy = destroy,
};
