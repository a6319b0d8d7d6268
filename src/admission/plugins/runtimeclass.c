/* RuntimeClass (plugin/pkg/admission/runtimeclass), mutating + validating, CREATE of pods: a pod naming a
 * RuntimeClass gets the class' pod overhead (spec.overhead = overhead.podFixed) and scheduling constraints
 * (nodeSelector merged, conflicting keys rejected; tolerations merged); validation rejects a pod overhead that
 * does not come from its RuntimeClass. */
#include <string.h>

#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"
#include "meta/quantity.h"

#define BAD_POD "Resource was marked with kind Pod but was unable to be converted"
#define MISMATCH "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"

/* prepareObjects: the pod's RuntimeClass (cache, then live), *rc NULL when the pod names none */
static kg_status *get_class(const kg_admission_attributes *a, const kg_admission_services *svc, const kg_json **rc)
{
    *rc = NULL;
    if (!kg_admission_pu_obj_kind(a->object, "Pod"))
        return kg_status_bad_request(a->arena, BAD_POD);
    const char *name = kg_json_get_str(kg_json_get(a->object, "spec"), "runtimeClassName");
    if (!name)
        return NULL;
    KG_ERROR_DECL(e);
    *rc = kg_admission_view_obj(svc, a->arena, "runtimeclasses", "", name, &e);
    if (!*rc && e.code == KG_ENOTFOUND) {
        kg_err_clear(&e);
        *rc = kg_admission_get(svc, a->arena, "runtimeclasses", "", name, KG_ADMISSION_GET_LIVE, &e);
        if (!*rc && e.code == KG_ENOTFOUND)
            return kg_admission_forbidden(a, "pod rejected: RuntimeClass %s not found",
                                          kg_admission_pu_quote(a->arena, name));
    }
    if (!*rc)
        return kg_status_new(a->arena, 500, KG_REASON_UNKNOWN, e.msg);
    return NULL;
}

/* apiequality.Semantic.DeepEqual of two ResourceLists (quantities compared by value) */
static bool resources_equal(const kg_json *x, const kg_json *y)
{
    size_t nx = kg_json_is(x, KG_JSON_OBJECT) ? x->len : 0, ny = kg_json_is(y, KG_JSON_OBJECT) ? y->len : 0;
    if (nx != ny)
        return false;
    for (size_t i = 0; i < nx; i++) {
        const kg_json *yv = kg_json_get(y, x->u.members[i].key);
        kg_quantity qx, qy;
        if (!yv || !kg_quantity_from_json(x->u.members[i].val, &qx, NULL) || !kg_quantity_from_json(yv, &qy, NULL) ||
            kg_quantity_cmp(&qx, &qy) != 0)
            return false;
    }
    return true;
}

static bool has_overhead(const kg_json *pod)
{
    const kg_json *o = kg_json_get(kg_json_get(pod, "spec"), "overhead");
    return kg_json_is(o, KG_JSON_OBJECT) && o->len > 0;
}

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (!kg_admission_pu_is(a, "", "pods"))
        return NULL;
    const kg_json *rc;
    kg_status *st = get_class(a, svc, &rc);
    if (st || !rc)
        return st;
    kg_arena *ar = a->arena;
    kg_json *spec = kg_json_get_or_add_object(ar, a->object, "spec");
    /* setOverhead */
    const kg_json *overhead = kg_json_get(rc, "overhead");
    if (kg_json_is(overhead, KG_JSON_OBJECT)) {
        const kg_json *fixed = kg_json_get(overhead, "podFixed");
        if (has_overhead(a->object) && !resources_equal(fixed, kg_json_get(spec, "overhead")))
            return kg_admission_forbidden(a, MISMATCH);
        if (kg_json_is(fixed, KG_JSON_OBJECT))
            kg_json_set(ar, spec, "overhead", kg_json_clone(ar, fixed));
        else
            kg_json_del(spec, "overhead");
    }
    /* setScheduling */
    const kg_json *sched = kg_json_get(rc, "scheduling");
    if (kg_json_is(sched, KG_JSON_OBJECT)) {
        const kg_json *rsel = kg_json_get(sched, "nodeSelector");
        kg_json *psel = kg_json_get(spec, "nodeSelector");
        if (!kg_json_is(psel, KG_JSON_OBJECT)) {
            if (kg_json_is(rsel, KG_JSON_OBJECT))
                kg_json_set(ar, spec, "nodeSelector", kg_json_clone(ar, rsel));
        } else {
            for (size_t i = 0; kg_json_is(rsel, KG_JSON_OBJECT) && i < rsel->len; i++) {
                const char *k = rsel->u.members[i].key;
                const char *rv = kg_json_is(rsel->u.members[i].val, KG_JSON_STRING) ? rsel->u.members[i].val->u.s : "";
                const char *pv = kg_json_get_str(psel, k);
                if (pv && strcmp(pv, rv) != 0)
                    return kg_admission_forbidden(
                        a, "conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", k,
                        rv, k, pv);
            }
            for (size_t i = 0; kg_json_is(rsel, KG_JSON_OBJECT) && i < rsel->len; i++)
                kg_json_set(ar, psel, rsel->u.members[i].key, kg_json_clone(ar, rsel->u.members[i].val));
        }
        kg_json *merged =
            kg_admission_pu_merge_tolerations(ar, kg_json_get(spec, "tolerations"), kg_json_get(sched, "tolerations"));
        if (merged->len)
            kg_json_set(ar, spec, "tolerations", merged);
    }
    return NULL;
}

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (!kg_admission_pu_is(a, "", "pods"))
        return NULL;
    const kg_json *rc;
    kg_status *st = get_class(a, svc, &rc);
    if (st)
        return st;
    if (!has_overhead(a->object))
        return NULL;
    const kg_json *overhead = rc ? kg_json_get(rc, "overhead") : NULL;
    if (!kg_json_is(overhead, KG_JSON_OBJECT))
        return kg_admission_forbidden(a, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined "
                                         "Overhead");
    if (!resources_equal(kg_json_get(overhead, "podFixed"), kg_json_get(kg_json_get(a->object, "spec"), "overhead")))
        return kg_admission_forbidden(a, MISMATCH);
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_runtime_class = {
    .name = "RuntimeClass",
    .handles = KG_ADMISSION_CREATE,
    .admit = admit,
    .validate = validate,
};
