/* Priority (plugin/pkg/admission/priority), mutating + validating, CREATE/UPDATE/DELETE:
 *   - pods (admit): on CREATE resolve spec.priorityClassName (or the globalDefault class with the lowest value;
 *     none → priority 0, PreemptLowerPriority) into spec.priority and spec.preemptionPolicy, rejecting preset values
 *     that differ; on UPDATE carry over priority/preemptionPolicy the client left out;
 *   - priorityclasses (validate): at most one globalDefault class.
 * Also provides the two built-in system PriorityClasses the server creates at first start. */
#include <inttypes.h>
#include <string.h>

#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"

#define BAD_POD "resource was marked with kind Pod but was unable to be converted"
#define PREEMPT_LOWER "PreemptLowerPriority"

/* The globalDefault class with the lowest value; NULL when none (or on failure, with err set). */
static const kg_json *default_class(const kg_admission_services *svc, kg_arena *ar, kg_error *err)
{
    kg_json_shared **docs;
    size_t n = kg_admission_view_list(svc, ar, "priorityclasses", "", &docs, err);
    if (n == (size_t)-1)
        return NULL;
    const kg_json *best = NULL;
    int64_t bv = 0;
    for (size_t i = 0; i < n; i++) {
        const kg_json *pc = kg_json_shared_root(docs[i]);
        const kg_json *gd = kg_json_get(pc, "globalDefault"), *v = kg_json_get(pc, "value");
        if (!kg_json_is(gd, KG_JSON_BOOL) || !gd->b)
            continue;
        int64_t val = kg_json_is(v, KG_JSON_INT) ? v->u.i : 0;
        if (!best || val < bv) {
            best = pc;
            bv = val;
        }
    }
    return best;
}

static kg_status *admit_pod(kg_admission_attributes *a, const kg_admission_services *svc)
{
    kg_arena *ar = a->arena;
    if (!kg_admission_pu_obj_kind(a->object, "Pod"))
        return kg_status_bad_request(ar, BAD_POD);
    kg_json *spec = kg_json_get_or_add_object(ar, a->object, "spec");
    if (a->operation == KG_ADMISSION_UPDATE) {
        if (!kg_admission_pu_obj_kind(a->old_object, "Pod"))
            return kg_status_bad_request(ar, BAD_POD);
        const kg_json *old = kg_json_get(a->old_object, "spec");
        static const char *const keep[] = {"priority", "preemptionPolicy"};
        for (int i = 0; i < 2; i++) {
            const kg_json *ov = kg_json_get(old, keep[i]), *nv = kg_json_get(spec, keep[i]);
            if ((!nv || kg_json_is(nv, KG_JSON_NULL)) && ov && !kg_json_is(ov, KG_JSON_NULL))
                kg_json_set(ar, spec, keep[i], kg_json_clone(ar, ov));
        }
        return NULL;
    }
    if (a->operation != KG_ADMISSION_CREATE)
        return NULL;
    int64_t priority = 0;
    const char *policy = NULL;
    const char *pcname = kg_json_get_str(spec, "priorityClassName");
    KG_ERROR_DECL(e);
    if (!pcname || !pcname[0]) {
        const kg_json *dpc = default_class(svc, ar, &e);
        if (e.code)
            return kg_admission_pu_plain(ar, "failed to get default priority class: %s", e.msg);
        const char *dname = "";
        policy = PREEMPT_LOWER;
        if (dpc) {
            const kg_json *v = kg_json_get(dpc, "value");
            priority = kg_json_is(v, KG_JSON_INT) ? v->u.i : 0;
            dname = kg_admission_pu_str(kg_json_get(dpc, "metadata"), "name");
            policy = kg_json_get_str(dpc, "preemptionPolicy");
        }
        if (dname[0]) /* the Go field is omitempty: no default class leaves it absent, not "" */
            kg_json_set(ar, spec, "priorityClassName", kg_json_new_str(ar, dname));
    } else {
        const kg_json *pc = kg_admission_view_obj(svc, ar, "priorityclasses", "", pcname, &e);
        if (!pc) {
            if (e.code == KG_ENOTFOUND)
                return kg_admission_forbidden(a, "no PriorityClass with name %s was found", pcname);
            return kg_admission_pu_plain(ar, "failed to get PriorityClass with name %s: %s", pcname, e.msg);
        }
        const kg_json *v = kg_json_get(pc, "value");
        priority = kg_json_is(v, KG_JSON_INT) ? v->u.i : 0;
        policy = kg_json_get_str(pc, "preemptionPolicy");
    }
    const kg_json *preset = kg_json_get(spec, "priority");
    if (kg_json_is(preset, KG_JSON_INT) && preset->u.i != priority)
        return kg_admission_forbidden(a,
                                      "the integer value of priority (%" PRId64 ") must not be provided in pod spec; "
                                      "priority admission controller computed %" PRId64
                                      " from the given PriorityClass name",
                                      preset->u.i, priority);
    kg_json_set(ar, spec, "priority", kg_json_new_int(ar, priority));
    if (policy) {
        const char *pp = kg_json_get_str(spec, "preemptionPolicy");
        if (pp && strcmp(pp, policy) != 0)
            return kg_admission_forbidden(a,
                                          "the string value of PreemptionPolicy (%s) must not be provided in pod "
                                          "spec; priority admission controller computed %s from the given "
                                          "PriorityClass name",
                                          pp, policy);
        kg_json_set(ar, spec, "preemptionPolicy", kg_json_new_str(ar, policy));
    }
    return NULL;
}

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (!kg_admission_pu_is(a, "", "pods"))
        return NULL;
    if (a->operation != KG_ADMISSION_CREATE && a->operation != KG_ADMISSION_UPDATE)
        return NULL;
    return admit_pod(a, svc);
}

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (!kg_admission_pu_is(a, "scheduling.k8s.io", "priorityclasses"))
        return NULL;
    if (a->operation != KG_ADMISSION_CREATE && a->operation != KG_ADMISSION_UPDATE)
        return NULL;
    kg_arena *ar = a->arena;
    if (!kg_admission_pu_obj_kind(a->object, "PriorityClass"))
        return kg_status_bad_request(ar, "resource was marked with kind PriorityClass but was unable to be converted");
    const kg_json *gd = kg_json_get(a->object, "globalDefault");
    if (!kg_json_is(gd, KG_JSON_BOOL) || !gd->b)
        return NULL;
    KG_ERROR_DECL(e);
    const kg_json *dpc = default_class(svc, ar, &e);
    if (e.code)
        return kg_admission_pu_plain(ar, "failed to get default priority class: %s", e.msg);
    if (!dpc)
        return NULL;
    const char *dname = kg_admission_pu_str(kg_json_get(dpc, "metadata"), "name");
    const char *name = kg_admission_pu_str(kg_json_get(a->object, "metadata"), "name");
    if (a->operation == KG_ADMISSION_CREATE || strcmp(dname, name) != 0)
        return kg_admission_forbidden(a, "PriorityClass %s is already marked as default. Only one default can exist",
                                      dname);
    return NULL;
}

static kg_json *system_class(kg_arena *ar, const char *name, int64_t value, const char *desc)
{
    kg_json *pc = kg_json_new_object(ar);
    kg_json_set(ar, pc, "apiVersion", kg_json_new_str(ar, "scheduling.k8s.io/v1"));
    kg_json_set(ar, pc, "kind", kg_json_new_str(ar, "PriorityClass"));
    kg_json *md = kg_json_new_object(ar);
    kg_json_set(ar, md, "name", kg_json_new_str(ar, name));
    kg_json_set(ar, pc, "metadata", md);
    kg_json_set(ar, pc, "value", kg_json_new_int(ar, value));
    kg_json_set(ar, pc, "globalDefault", kg_json_new_bool(ar, false));
    kg_json_set(ar, pc, "description", kg_json_new_str(ar, desc));
    kg_json_set(ar, pc, "preemptionPolicy", kg_json_new_str(ar, PREEMPT_LOWER));
    return pc;
}

kg_json *kg_admission_priority_builtin_classes(kg_arena *ar)
{
    kg_json *arr = kg_json_new_array(ar);
    kg_json_array_append(ar, arr,
                         system_class(ar, "system-node-critical", KG_ADMISSION_SYSTEM_CRITICAL_PRIORITY + 1000,
                                      "Used for system critical pods that must not be moved from their current node."));
    kg_json_array_append(ar, arr,
                         system_class(ar, "system-cluster-critical", KG_ADMISSION_SYSTEM_CRITICAL_PRIORITY,
                                      "Used for system critical pods that must run in the cluster, but can be moved "
                                      "to another node if necessary."));
    return arr;
}

const kg_admission_plugin kg_admission_plugin_priority = {
    .name = "Priority",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE | KG_ADMISSION_DELETE,
    .admit = admit,
    .validate = validate,
};
