/* CREATE pods/eviction (pipeline.h): a policy/v1 Eviction deletes the pod unless a PodDisruptionBudget forbids it,
 * as kubernetes/kubernetes pkg/registry/core/pod/storage/eviction.go does.
 *
 *  - The Eviction is admitted like any create (kind policy/v1 Eviction, subresource "eviction").
 *  - Pods that are Pending, Succeeded or Failed, or already being deleted, are deleted without a budget check.
 *  - The PDBs of the pod's namespace whose selector matches the pod (an empty selector matches nothing) are
 *    looked up: none → the pod is deleted; more than one → 500 "This pod has more than one PodDisruptionBudget,
 *    which the eviction subresource does not support." (sent with HTTP 201, as upstream's create handler does).
 *  - kgate has no disruption controller: the budget's status is computed here, from the live pods the selector
 *    matches (expectedPods = their count; currentHealthy = those Ready and not being deleted; desiredHealthy =
 *    minAvailable, a percentage rounded up, or expectedPods - maxUnavailable; disruptionsAllowed =
 *    currentHealthy - desiredHealthy, at least 0), and written to the PDB's status together with disruptedPods.
 *  - disruptionsAllowed 0 → 429 "Cannot evict pod as it would violate the pod's disruption budget." with the cause
 *    "The disruption budget <pdb> needs <desired> healthy pods and has <current> currently". A pod that is not
 *    Ready is evicted without using budget when currentHealthy >= desiredHealthy > 0 (IfHealthyBudget), or always
 *    with unhealthyPodEvictionPolicy AlwaysAllow.
 *  - Success: the pod is deleted at the resourceVersion examined (a conflict is retried) and the answer is
 *    201 {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "meta/labels.h"
#include "registry/codec.h"
#include "registry/pipeline_internal.h"

#define EVICTION_VIOLATION "Cannot evict pod as it would violate the pod's disruption budget."

static bool pod_ready(const kg_json *pod)
{
    const kg_json *conds = kg_json_path(pod, "status.conditions");
    if (!conds || conds->type != KG_JSON_ARRAY)
        return false;
    for (uint32_t i = 0; i < conds->len; i++) {
        const char *t = kg_json_get_str(conds->u.items[i], "type");
        const char *s = kg_json_get_str(conds->u.items[i], "status");
        if (t && s && !strcmp(t, "Ready"))
            return !strcmp(s, "True");
    }
    return false;
}

static bool selector_matches(kg_arena *a, const kg_json *sel, const kg_json *pod)
{
    if (!sel || sel->type != KG_JSON_OBJECT)
        return false;
    kg_label_selector ls;
    kg_error err;
    if (!kg_label_selector_from_json(a, sel, &ls, &err) || kg_labels_empty(&ls))
        return false;
    return kg_labels_matches_object(&ls, pod);
}

/* An IntOrString count: an int, or "<n>%" of total rounded up. */
static int64_t scaled(const kg_json *v, int64_t total)
{
    if (v->type == KG_JSON_INT)
        return v->u.i;
    if (v->type == KG_JSON_STRING) {
        double pct = strtod(v->u.s, NULL);
        return (int64_t)ceil(pct * (double)total / 100.0);
    }
    return 0;
}

typedef struct budget {
    int64_t expected, healthy, desired, allowed;
} budget;

static bool compute_budget(wctx *c, const kg_json *pdb, budget *b)
{
    kg_arena *a = c->a;
    memset(b, 0, sizeof *b);
    kg_store_list_opts lo = {0};
    kg_store_list_result res;
    kg_error err;
    if (!kg_store_list(c->p->store, kg_resource_list_prefix(a, c->r, c->ns), &lo, a, &res, &err))
        return wfail_err(c, &err);
    const kg_json *sel = kg_json_path(pdb, "spec.selector");
    for (size_t i = 0; i < res.n; i++) {
        kg_json *p = kg_obj_decode(a, res.items[i].value, res.items[i].value_len, res.items[i].mod_revision, &err);
        if (!p || !selector_matches(a, sel, p))
            continue;
        b->expected++;
        if (!kg_json_path(p, "metadata.deletionTimestamp") && pod_ready(p))
            b->healthy++;
    }
    const kg_json *minav = kg_json_path(pdb, "spec.minAvailable");
    const kg_json *maxun = kg_json_path(pdb, "spec.maxUnavailable");
    if (maxun && maxun->type != KG_JSON_NULL)
        b->desired = b->expected - scaled(maxun, b->expected);
    else if (minav && minav->type != KG_JSON_NULL)
        b->desired = scaled(minav, b->expected);
    if (b->desired < 0)
        b->desired = 0;
    b->allowed = b->healthy - b->desired;
    if (b->allowed < 0)
        b->allowed = 0;
    return true;
}

/* The PDB's status as this eviction leaves it (the evicted pod in disruptedPods when it used budget). */
static bool write_pdb_status(wctx *c, const kg_resource *pr, const kg_store_kv *kv, kg_json *pdb, const budget *b,
                             bool used)
{
    kg_arena *a = c->a;
    kg_json *st = kg_json_new_object(a);
    kg_json *prev = kg_json_get(pdb, "status");
    kg_json *conds = prev ? kg_json_get(prev, "conditions") : NULL;
    kg_json *disrupted = kg_json_new_object(a);
    if (used)
        kg_json_set(a, disrupted, c->name, kg_json_new_str(a, kg_obj_now_rfc3339(a)));
    kg_json *gen = kg_json_path(pdb, "metadata.generation");
    if (gen)
        kg_json_set(a, st, "observedGeneration", gen);
    if (disrupted->len)
        kg_json_set(a, st, "disruptedPods", disrupted);
    kg_json_set(a, st, "disruptionsAllowed", kg_json_new_int(a, used ? b->allowed - 1 : b->allowed));
    kg_json_set(a, st, "currentHealthy", kg_json_new_int(a, b->healthy));
    kg_json_set(a, st, "desiredHealthy", kg_json_new_int(a, b->desired));
    kg_json_set(a, st, "expectedPods", kg_json_new_int(a, b->expected));
    if (conds)
        kg_json_set(a, st, "conditions", conds);
    kg_json_set(a, pdb, "status", st);
    kg_json_del(w_metadata(a, pdb), "resourceVersion");
    if (c->rq->dry_run)
        return true;
    size_t len;
    const char *bytes = kg_obj_encode(a, pdb, &len);
    int64_t rev;
    kg_error err;
    const char *name = kg_json_path_str(pdb, "metadata.name");
    if (!kg_store_update(c->p->store, kg_resource_key(a, pr, c->ns, name ? name : ""), bytes, len, kv->mod_revision,
                         &rev, &err)) {
        if (err.code == KG_ECONFLICT)
            return wfail(c, kg_status_new(a, 504, KG_REASON_TIMEOUT,
                                          kg_arena_sprintf(a,
                                                           "couldn't update PodDisruptionBudget \"%s\" due to "
                                                           "conflicts",
                                                           name ? name : "")));
        return wfail_err(c, &err);
    }
    return true;
}

static kg_json *success(wctx *c)
{
    kg_arena *a = c->a;
    kg_json *ok = kg_json_new_object(a);
    kg_json_set(a, ok, "kind", w_sref(a, "Status"));
    kg_json_set(a, ok, "apiVersion", w_sref(a, "v1"));
    kg_json_set(a, ok, "metadata", kg_json_new_object(a));
    kg_json_set(a, ok, "status", w_sref(a, "Success"));
    kg_json_set(a, ok, "code", kg_json_new_int(a, 201));
    return ok;
}

/* Delete the pod at the revision examined; false with *retry on a conflict. */
static bool delete_pod(wctx *c, const kg_store_kv *cur, bool *retry)
{
    *retry = false;
    if (c->rq->dry_run)
        return true;
    kg_store_kv deleted;
    int64_t rev;
    kg_error err;
    if (!kg_store_delete(c->p->store, kg_resource_key(c->a, c->r, c->ns, c->name), cur->mod_revision, c->a, &deleted,
                         &rev, &err)) {
        if (err.code == KG_ECONFLICT) {
            *retry = true;
            return false;
        }
        return wfail_err(c, &err);
    }
    return true;
}

bool w_evict(wctx *c, kg_json *ev)
{
    kg_arena *a = c->a;
    const char *ename = kg_json_path_str(ev, "metadata.name");
    if (!ename || strcmp(ename, c->name))
        return wfail(c, kg_status_bad_request(a, "name in URL does not match name in Eviction object"));
    kg_admission_attributes at;
    w_attrs(c, &at, KG_ADMISSION_CREATE, "policy", "v1", "Eviction", ev, NULL);
    kg_status *st = w_admit(c, &at);
    if (!st)
        st = w_validate(c, &at);
    if (st)
        return wfail(c, st);
    const kg_resource *pr = kg_resource_find("policy", "v1", "poddisruptionbudgets");
    bool done = false;
    for (int attempt = 0; !done && attempt < KG_PIPELINE_MAX_RETRIES; attempt++) {
        kg_store_kv cur;
        kg_json *pod;
        if (!w_load(c, &cur, &pod))
            return false;
        const char *phase = kg_json_path_str(pod, "status.phase");
        bool retry;
        if ((phase && (!strcmp(phase, "Pending") || !strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"))) ||
            kg_json_path(pod, "metadata.deletionTimestamp") || !pr) {
            if (delete_pod(c, &cur, &retry)) {
                done = true;
                break;
            }
            if (retry)
                continue;
            return false;
        }
        /* the budgets that select the pod */
        kg_store_list_opts lo = {0};
        kg_store_list_result res;
        kg_error err;
        if (!kg_store_list(c->p->store, kg_resource_list_prefix(a, pr, c->ns), &lo, a, &res, &err))
            return wfail_err(c, &err);
        kg_json *pdb = NULL;
        kg_store_kv pdb_kv = {0};
        size_t matches = 0;
        for (size_t i = 0; i < res.n; i++) {
            kg_json *p = kg_obj_decode(a, res.items[i].value, res.items[i].value_len, res.items[i].mod_revision, &err);
            if (!p || !selector_matches(a, kg_json_path(p, "spec.selector"), pod))
                continue;
            if (!matches++) {
                pdb = p;
                pdb_kv = res.items[i];
            }
        }
        if (matches > 1) {
            kg_status *m = kg_status_new(a, 500, KG_REASON_UNKNOWN,
                                         "This pod has more than one PodDisruptionBudget, which the eviction "
                                         "subresource does not support.");
            c->out->object_is_status = true;
            return wdone_obj(c, 201, kg_status_to_json(a, m));
        }
        if (pdb) {
            budget b;
            if (!compute_budget(c, pdb, &b))
                return false;
            const char *policy = kg_json_path_str(pdb, "spec.unhealthyPodEvictionPolicy");
            bool ready = pod_ready(pod);
            bool free_unready =
                !ready && ((policy && !strcmp(policy, "AlwaysAllow")) || (b.healthy >= b.desired && b.desired > 0));
            if (!free_unready && b.allowed <= 0) {
                if (!write_pdb_status(c, pr, &pdb_kv, pdb, &b, false))
                    return false;
                kg_status *deny = kg_status_new(a, 429, KG_REASON_TOO_MANY_REQUESTS, EVICTION_VIOLATION);
                kg_status_add_cause(
                    a, deny, "DisruptionBudget",
                    kg_arena_sprintf(a, "The disruption budget %s needs %lld healthy pods and has %lld currently",
                                     kg_json_path_str(pdb, "metadata.name"), (long long)b.desired,
                                     (long long)b.healthy),
                    NULL);
                return wfail(c, deny);
            }
            if (!write_pdb_status(c, pr, &pdb_kv, pdb, &b, !free_unready))
                return false;
        }
        if (delete_pod(c, &cur, &retry)) {
            done = true;
            break;
        }
        if (retry)
            continue;
        return false;
    }
    if (!done)
        return wfail(c, kg_status_conflict(a, c->gr, c->name, KG_OPTIMISTIC_LOCK_MSG));
    c->out->object_is_status = true;
    return wdone_obj(c, 201, success(c));
}
