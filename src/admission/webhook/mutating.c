/* MutatingAdmissionWebhook's dispatch (mutating/dispatcher.go, reinvocation.go): the matching hooks one after the
 * other in hook order, each seeing the object as the previous ones left it; JSON patches applied in place; the first
 * denial or (failurePolicy Fail) call error ends the request.
 *
 * Reinvocation (per request, in the plugin's context slot, so it survives the chain's second round):
 *   round 0  after each call: if the hook changed the object, every earlier-called IfNeeded hook is marked for
 *            reinvocation and the chain is asked to run the mutating phase again (built-in mutators included); then an
 *            IfNeeded hook joins the "called" set (a hook is never reinvoked because of its own change)
 *   round 1  if the object differs from what the webhooks left in round 0 (a built-in or later plugin changed it),
 * every called IfNeeded hook is marked; only marked hooks are called, never one that was not called in round 0. */
#include <string.h>

#include "admission/webhook/call.h"
#include "meta/patch.h"
#include "admission/webhook/mutating.h"

/* The per-request record (kg_admission_request_ctx). */
typedef struct reinvocation {
    const char **called; /* uids of IfNeeded hooks called so far */
    size_t ncalled;
    const char **marked; /* uids to call again in round 1 */
    size_t nmarked;
    size_t cap;
    kg_json *last_output; /* the object after the last webhook of round 0 */
} reinvocation;

static bool has(const char *const *set, size_t n, const char *uid)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(set[i], uid))
            return true;
    return false;
}

static void mark_called(reinvocation *r)
{
    for (size_t i = 0; i < r->ncalled; i++)
        if (!has(r->marked, r->nmarked, r->called[i]))
            r->marked[r->nmarked++] = r->called[i];
}

static reinvocation *record(kg_admission_attributes *at, size_t nhooks)
{
    void **slot = kg_admission_request_ctx(at);
    reinvocation *r = slot ? *slot : NULL;
    if (r && r->cap >= nhooks)
        return r;
    reinvocation *n = kg_arena_calloc(at->arena, sizeof *n);
    n->cap = nhooks + (r ? r->cap : 0);
    n->called = kg_arena_calloc(at->arena, (n->cap + 1) * sizeof(char *));
    n->marked = kg_arena_calloc(at->arena, (n->cap + 1) * sizeof(char *));
    if (r) { /* the set grew between the rounds: keep what round 0 recorded */
        memcpy(n->called, r->called, r->ncalled * sizeof(char *));
        memcpy(n->marked, r->marked, r->nmarked * sizeof(char *));
        n->ncalled = r->ncalled;
        n->nmarked = r->nmarked;
        n->last_output = r->last_output;
    }
    if (slot)
        *slot = n;
    return n;
}

/* Apply call's patch to the object in place (the caller holds at->object); *changed when it differs. */
static kg_status *apply_patch(kg_webhook_call *c, kg_admission_attributes *at, bool *changed)
{
    *changed = false;
    if (!c->patch)
        return NULL;
    if (!at->object)
        return kg_status_internal(at->arena,
                                  kg_arena_sprintf(at->arena,
                                                   "admission webhook \"%s\" attempted to modify the object, which is "
                                                   "not supported for this operation",
                                                   c->hook->name));
    kg_json *out = NULL;
    KG_ERROR_DECL(e);
    if (!kg_patch_json(at->arena, at->object, c->patch, &out, &e))
        return kg_status_internal(at->arena, e.msg);
    *changed = !kg_json_equal(at->object, out);
    if (*changed)
        *at->object = *out; /* the root node in place: the request's owner keeps its pointer */
    return NULL;
}

static void annotate_mutation(kg_admission_attributes *at, const kg_webhook_call *c, int round, bool mutated)
{
    kg_arena *a = at->arena;
    kg_json *v = kg_json_new_object(a);
    kg_json_set(a, v, "configuration", kg_json_new_str(a, c->hook->config_name));
    kg_json_set(a, v, "webhook", kg_json_new_str(a, c->hook->name));
    kg_json_set(a, v, "mutated", kg_json_new_bool(a, mutated));
    KG_ERROR_DECL(e);
    kg_admission_add_annotation(
        at, kg_arena_sprintf(a, "mutation.webhook.admission.k8s.io/round_%d_index_%zu", round, c->hook->index),
        kg_json_to_string(a, v, 0, NULL), &e);
    if (!mutated)
        return;
    kg_json *p = kg_json_new_object(a);
    kg_json_set(a, p, "configuration", kg_json_new_str(a, c->hook->config_name));
    kg_json_set(a, p, "webhook", kg_json_new_str(a, c->hook->name));
    kg_json_set(a, p, "patch", (kg_json *)c->patch);
    kg_json_set(a, p, "patchType", kg_json_new_str(a, "JSONPatch"));
    kg_admission_add_annotation(
        at, kg_arena_sprintf(a, "patch.webhook.admission.k8s.io/round_%d_index_%zu", round, c->hook->index),
        kg_json_to_string(a, p, 0, NULL), &e);
}

kg_status *kg_webhook_mutate(const kg_webhook_set *set, kg_admission_attributes *at, const kg_admission_services *svc,
                             const kg_webhook_metrics *metrics)
{
    if (!set->n || kg_webhook_exempt(at))
        return NULL;
    reinvocation *r = record(at, set->n);
    int round = at->is_reinvoke ? 1 : 0;
    if (round == 1) {
        if (!r->ncalled)
            return NULL;
        if (at->object && r->last_output && !kg_json_equal(at->object, r->last_output))
            mark_called(r);
    }
    kg_status *st = NULL;
    for (size_t i = 0; i < set->n && !st; i++) {
        const kg_webhook_hook *h = &set->hooks[i];
        if (round == 1 && !has(r->marked, r->nmarked, h->uid))
            continue;
        kg_match_invocation inv;
        bool call = false;
        if ((st = kg_webhook_should_call(h, at, svc, &inv, &call)) || !call)
            continue;
        kg_webhook_call c;
        kg_webhook_call_prepare(&c, h, &inv, at, svc, true);
        kg_webhook_call_run(&c, at->arena); /* sequential: the request arena is this thread's */
        /* the mutation annotation is written for every call, whatever its outcome (upstream defers it) */
        st = kg_webhook_call_verdict(&c, at, "failed-open.mutation.webhook.admission.k8s.io", round, h->index);
        bool changed = false;
        if (!st && c.outcome == KG_WEBHOOK_ALLOWED)
            st = apply_patch(&c, at, &changed);
        kg_webhook_metrics_observe(metrics, &c, at, st);
        if (st || c.outcome != KG_WEBHOOK_ALLOWED) {
            annotate_mutation(at, &c, round, false);
            if (st)
                break;
            continue; /* failed open */
        }
        annotate_mutation(at, &c, round, changed);
        if (changed) {
            mark_called(r);
            at->reinvoke_requested = true;
        }
        if (h->reinvoke_if_needed && !has(r->called, r->ncalled, h->uid))
            r->called[r->ncalled++] = h->uid;
    }
    if (!st && round == 0 && at->object)
        r->last_output = kg_json_clone(at->arena, at->object);
    return st;
}
