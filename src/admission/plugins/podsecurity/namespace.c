/* PodSecurity for namespaces (pod-security-admission admission/admission.go ValidateNamespace,
 * EvaluatePodsInNamespace).
 *
 * CREATE: invalid pod-security.kubernetes.io label values are rejected with 422
 *   `Namespace "x" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "bogus": must be
 *   one of privileged, baseline, restricted`.
 * UPDATE: the same, unless the old labels had exactly the same errors. When the enforce level becomes stricter (or its
 *   version changes to a non-privileged level), the namespace's existing pods are evaluated against it and the
 *   violations come back as warnings, grouped by reason:
 *     new PodSecurity enforce level only checked against the first <n> of <total> existing pods   (when cut short)
 *     existing pods in namespace "x" violate the new PodSecurity enforce level "restricted:latest"
 *     <pod> (and <n> other pods): <reasons>                                                       (sorted)
 *   The scan checks at most 3000 pods within 1 s, one pod per controller first. It never denies.
 * Exempt namespaces skip the scan; setting a non-default policy on one warns that it is ignored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/podsecurity/podsecurity.h"

/* exemptNamespaceWarning: "" when the policy is fully privileged or equivalent to the defaults. */
static const char *exempt_warning(const ps_state *st, kg_arena *ar, const char *ns, const ps_policy *p,
                                  const kg_json *labels)
{
    if (ps_policy_fully_privileged(p) || ps_policy_equivalent(p, &st->config.defaults))
        return NULL;
    static const char *const modes[] = {"enforce", "audit", "warn"};
    const ps_lv *lvs[] = {&p->enforce, &p->audit, &p->warn};
    ps_strs parts = {0};
    char key[64], buf[PS_LV_MAX];
    for (int i = 0; i < 3; i++) {
        snprintf(key, sizeof key, PS_LABEL_PREFIX "%s", modes[i]);
        bool has = labels && kg_json_getn(labels, key, strlen(key)) != NULL;
        snprintf(key, sizeof key, PS_LABEL_PREFIX "%s-version", modes[i]);
        has = has || (labels && kg_json_getn(labels, key, strlen(key)) != NULL);
        if (lvs[i]->level != PS_PRIVILEGED && has)
            ps_strs_add(ar, &parts, kg_arena_sprintf(ar, "%s=%s", modes[i], ps_lv_format(buf, *lvs[i])));
    }
    return kg_arena_sprintf(ar, "namespace %s is exempt from Pod Security, and the policy (%s) will be ignored",
                            kg_meta_quote_a(ar, ns), ps_join(ar, &parts, ", "));
}

/* reflect.DeepEqual of two label error lists, compared by their texts */
static bool field_errors_equal(kg_arena *ar, const kg_field_errors *x, const kg_field_errors *y)
{
    if (x->len != y->len)
        return false;
    for (size_t i = 0; i < x->len; i++)
        if (strcmp(kg_field_error_string(ar, &x->items[i]), kg_field_error_string(ar, &y->items[i])) != 0)
            return false;
    return true;
}

/* The controller UID of a pod (ownerReference with controller: true), or NULL. */
static const char *controller_uid(const kg_json *pod)
{
    const kg_json *refs = ps_arr(ps_obj(pod, "metadata"), "ownerReferences");
    for (size_t i = 0; refs && i < refs->len; i++) {
        bool c;
        if (ps_bool(kg_json_at(refs, i), "controller", &c) && c) {
            const char *uid = ps_str(kg_json_at(refs, i), "uid");
            return uid ? uid : "";
        }
    }
    return NULL;
}

/* A string set for controller UIDs: open addressing in the arena. */
typedef struct uid_set {
    const char **slots;
    size_t cap;
} uid_set;

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* Insert s; returns false when it was already there. */
static bool uid_set_add(uid_set *set, const char *s)
{
    for (size_t i = hash(s) & (set->cap - 1);; i = (i + 1) & (set->cap - 1)) {
        if (!set->slots[i]) {
            set->slots[i] = s;
            return true;
        }
        if (strcmp(set->slots[i], s) == 0)
            return false;
    }
}

/* prioritizePods: drop exempt runtime classes; the first pod of each controller and uncontrolled pods in list order,
 * then the other replicas. */
static size_t prioritize(const ps_state *st, kg_arena *ar, const kg_json *pods, const kg_json ***out)
{
    size_t n = pods->len, k = 0, nrep = 0;
    const kg_json **first = kg_arena_alloc(ar, (n ? n : 1) * sizeof *first);
    const kg_json **rep = kg_arena_alloc(ar, (n ? n : 1) * sizeof *rep);
    uid_set set = {NULL, 16};
    while (set.cap < 2 * n)
        set.cap *= 2;
    set.slots = kg_arena_calloc(ar, set.cap * sizeof *set.slots);
    for (size_t i = 0; i < n; i++) {
        const kg_json *pod = kg_json_at(pods, i);
        if (ps_exempt_runtime_class(&st->config, ps_str(ps_obj(pod, "spec"), "runtimeClassName")))
            continue;
        const char *uid = controller_uid(pod);
        if (!uid || uid_set_add(&set, uid))
            first[k++] = pod;
        else
            rep[nrep++] = pod;
    }
    for (size_t i = 0; i < nrep; i++)
        first[k++] = rep[i];
    *out = first;
    return k;
}

typedef struct reason_group {
    const char *reason;
    const char *pod; /* lexically smallest pod name */
    size_t count;
} reason_group;

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* EvaluatePodsInNamespace: warnings for the pods of ns that violate enforce. */
static void evaluate_pods(const ps_state *st, const kg_admission_attributes *a, const kg_admission_services *svc,
                          const char *ns, ps_lv enforce)
{
    kg_arena *ar = a->arena;
    int64_t deadline = kg_admission_now_ns(svc) + st->ns_pod_check_timeout_ns;
    KG_ERROR_DECL(e);
    const kg_json *pods = kg_admission_view_array(svc, ar, "pods", ns, &e);
    if (!pods) {
        kg_admission_warn(a, "failed to list pods while checking new PodSecurity enforce level");
        return;
    }
    const kg_json **list;
    size_t total = prioritize(st, ar, pods, &list), checked = total;
    if (checked > st->ns_max_pods_to_check)
        checked = st->ns_max_pods_to_check;
    reason_group *groups = kg_arena_alloc(ar, (checked ? checked : 1) * sizeof *groups);
    size_t ngroups = 0;
    for (size_t i = 0; i < checked; i++) {
        const kg_json *pod = list[i];
        ps_pod view;
        ps_pod_view(ar, ps_obj(pod, "metadata"), ps_obj(pod, "spec"), &view);
        ps_agg r;
        ps_evaluate(&st->ev, ar, enforce, &view, &r);
        if (!r.allowed) {
            const char *reason = ps_forbidden_reason(ar, &r);
            const char *name = ps_str(ps_obj(pod, "metadata"), "name");
            name = name ? name : "";
            size_t g = 0;
            while (g < ngroups && strcmp(groups[g].reason, reason) != 0)
                g++;
            if (g == ngroups)
                groups[ngroups++] = (reason_group){reason, name, 0};
            else if (strcmp(name, groups[g].pod) < 0)
                groups[g].pod = name;
            groups[g].count++;
        }
        if (kg_admission_now_ns(svc) > deadline) {
            checked = i + 1;
            break;
        }
    }
    if (checked < total)
        kg_admission_warn(a, kg_arena_sprintf(ar,
                                              "new PodSecurity enforce level only checked against the first %zu of "
                                              "%zu existing pods",
                                              checked, total));
    if (!ngroups)
        return;
    char buf[PS_LV_MAX];
    kg_admission_warn(a,
                      kg_arena_sprintf(ar, "existing pods in namespace %s violate the new PodSecurity enforce level %s",
                                       kg_meta_quote_a(ar, ns), kg_meta_quote_a(ar, ps_lv_format(buf, enforce))));
    const char **lines = kg_arena_alloc(ar, ngroups * sizeof *lines);
    for (size_t g = 0; g < ngroups; g++) {
        const reason_group *rg = &groups[g];
        if (rg->count == 1)
            lines[g] = kg_arena_sprintf(ar, "%s: %s", rg->pod, rg->reason);
        else if (rg->count == 2)
            lines[g] = kg_arena_sprintf(ar, "%s (and 1 other pod): %s", rg->pod, rg->reason);
        else
            lines[g] = kg_arena_sprintf(ar, "%s (and %zu other pods): %s", rg->pod, rg->count - 1, rg->reason);
    }
    qsort((void *)lines, ngroups, sizeof *lines, cmp_str);
    for (size_t g = 0; g < ngroups; g++)
        kg_admission_warn(a, lines[g]);
}

kg_status *ps_validate_namespace(const ps_state *st, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    kg_arena *ar = a->arena;
    if (a->subresource[0])
        return NULL;
    if (!kg_json_is(a->object, KG_JSON_OBJECT))
        return kg_status_bad_request(ar, "failed to decode namespace");
    const char *name = ps_str(ps_obj(a->object, "metadata"), "name");
    name = name && name[0] ? name : a->name;
    const kg_json *labels = ps_obj(ps_obj(a->object, "metadata"), "labels");
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    ps_policy p = ps_policy_from_labels(ar, labels, &st->config.defaults, &errs);
    const char *warning;
    if (a->operation == KG_ADMISSION_CREATE) {
        if (errs.len)
            return kg_status_invalid(ar, KG_GK("", "Namespace"), a->name, &errs);
        if (ps_exempt_namespace(&st->config, a->ns) && (warning = exempt_warning(st, ar, name, &p, labels)))
            kg_admission_warn(a, warning);
        return NULL;
    }
    if (a->operation != KG_ADMISSION_UPDATE)
        return NULL;
    if (!kg_json_is(a->old_object, KG_JSON_OBJECT))
        return kg_status_bad_request(ar, "failed to decode  old namespace");
    kg_field_errors old_errs = KG_FIELD_ERRORS_INIT;
    ps_policy old =
        ps_policy_from_labels(ar, ps_obj(ps_obj(a->old_object, "metadata"), "labels"), &st->config.defaults, &old_errs);
    if (errs.len && (!old_errs.len || !field_errors_equal(ar, &errs, &old_errs)))
        return kg_status_invalid(ar, KG_GK("", "Namespace"), a->name, &errs);
    if (ps_lv_equal(p.enforce, old.enforce) || p.enforce.level == PS_PRIVILEGED)
        return NULL;
    bool same_version = p.enforce.version.latest == old.enforce.version.latest &&
                        (p.enforce.version.latest || p.enforce.version.minor == old.enforce.version.minor);
    if (same_version && p.enforce.level <= old.enforce.level)
        return NULL;
    if (ps_exempt_namespace(&st->config, a->ns)) {
        if ((warning = exempt_warning(st, ar, name, &p, labels)))
            kg_admission_warn(a, warning);
        return NULL;
    }
    evaluate_pods(st, a, svc, name, p.enforce);
    return NULL;
}
