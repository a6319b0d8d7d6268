/* One hook (generic/webhook.go ShouldCallHook and the dispatchers' shared steps): whether to call it, and what a
 * finished call means for the request (failurePolicy, warnings, audit annotations). */
#include <string.h>

#include "admission/plugin.h"
#include "admission/webhook/call.h"
#include "base/log.h"

bool kg_webhook_exempt(const kg_admission_attributes *at)
{
    return kg_match_is_admission_config_kind(at);
}

kg_status *kg_webhook_wait_ready(const kg_admission_attributes *at, const kg_admission_services *svc,
                                 const kg_webhook_source *src)
{
    if (kg_admission_ready(svc, kg_webhook_source_resource(src)) ||
        kg_admission_wait_ready(svc, kg_webhook_source_resource(src)))
        return NULL;
    return kg_admission_forbidden(at, "not yet ready to handle request");
}

kg_status *kg_webhook_should_call(const kg_webhook_hook *h, const kg_admission_attributes *at,
                                  const kg_admission_services *svc, kg_match_invocation *inv, bool *call)
{
    *call = false;
    kg_status *st = NULL;
    switch (kg_match(&h->match, at, svc, inv, &st)) {
    case KG_MATCH_NO:
        if (at->tracer) {
            kg_trace_event ev = {.depth = 1, .kind = "webhook", .name = h->name, .verdict = KG_TRACE_SKIPPED};
            kg_admission_trace(at, &ev);
        }
        return NULL;
    case KG_MATCH_ERROR: return st;
    case KG_MATCH_YES: break;
    }
    /* matchConditions, after a rule match: any false skips the hook; errors go through failurePolicy as a 403 */
    if (h->conditions.n) {
        kg_acel_input in;
        kg_acel_input_init(&in, at, &inv->resource, &inv->kind, NULL, svc ? svc->authorizer : NULL);
        const char *error = NULL;
        switch (kg_match_conditions_eval(&h->conditions, &in, at->arena, &error, NULL)) {
        case KG_MC_NO_MATCH: return NULL;
        case KG_MC_ERROR: return h->fail_open ? NULL : kg_admission_forbidden(at, "%s", error ? error : "");
        case KG_MC_MATCH: break;
        }
    }
    if (at->dry_run) {
        if (!h->side_effects) { /* a call error: failurePolicy decides */
            if (h->fail_open)
                return NULL;
            return kg_webhook_status_call_failed(at->arena, h->name, "Webhook SideEffects is nil");
        }
        if (strcmp(h->side_effects, "None") && strcmp(h->side_effects, "NoneOnDryRun"))
            return kg_webhook_status_dry_run(at->arena, h->name);
    }
    *call = true;
    return NULL;
}

/* response.auditAnnotations → "<webhook name>/<key>"; invalid keys and conflicting values are logged, never fatal. */
static void audit(kg_webhook_call *c, kg_admission_attributes *at)
{
    for (uint32_t i = 0; c->audit && i < c->audit->len; i++) {
        const kg_json_member *m = &c->audit->u.members[i];
        if (!kg_json_is(m->val, KG_JSON_STRING))
            continue;
        const char *key = kg_arena_sprintf(at->arena, "%s/%.*s", c->hook->name, (int)m->key_len, m->key);
        KG_ERROR_DECL(e);
        if (!kg_admission_add_annotation(at, key, kg_arena_strdup(at->arena, m->val->u.s), &e))
            KG_WARN("webhook %s: audit annotation %s dropped: %s", c->hook->name, key, e.msg);
    }
}

static kg_status *verdict(kg_webhook_call *c, kg_admission_attributes *at, const char *failed_open_prefix, int round,
                          size_t index);

kg_status *kg_webhook_call_verdict(kg_webhook_call *c, kg_admission_attributes *at, const char *failed_open_prefix,
                                   int round, size_t index)
{
    size_t nw = at->warnings ? at->warnings->n : 0;
    kg_status *st = verdict(c, at, failed_open_prefix, round, index);
    if (at->tracer) {
        bool mutating = strstr(failed_open_prefix, "mutation") != NULL;
        kg_trace_event ev = {.depth = 1,
                             .phase = mutating ? "mutating" : "validating",
                             .kind = "webhook",
                             .name = c->hook->name,
                             .verdict = st                                     ? KG_TRACE_DENIED
                                        : c->outcome == KG_WEBHOOK_CALL_ERROR  ? KG_TRACE_WARNED
                                        : at->warnings && at->warnings->n > nw ? KG_TRACE_WARNED
                                                                               : KG_TRACE_ADMITTED,
                             .message = st                                    ? st->message
                                        : c->outcome == KG_WEBHOOK_CALL_ERROR ? c->error
                                                                              : NULL};
        kg_admission_trace(at, &ev);
    }
    return st;
}

static kg_status *verdict(kg_webhook_call *c, kg_admission_attributes *at, const char *failed_open_prefix, int round,
                          size_t index)
{
    for (uint32_t i = 0; c->warnings && i < c->warnings->len && i < KG_WEBHOOK_MAX_WARNINGS; i++) {
        const kg_json *w = kg_json_at(c->warnings, i);
        if (kg_json_is(w, KG_JSON_STRING))
            kg_admission_warn(at, w->u.s); /* copied, bounded by the request's warning list */
    }
    audit(c, at);
    switch (c->outcome) {
    case KG_WEBHOOK_ALLOWED: return NULL;
    case KG_WEBHOOK_DENIED: return kg_webhook_status_denied(at->arena, c->hook->name, c->status);
    case KG_WEBHOOK_INTERNAL: return kg_status_internal(at->arena, c->error);
    case KG_WEBHOOK_CALL_ERROR: break;
    }
    if (!c->hook->fail_open)
        return kg_webhook_status_call_failed(at->arena, c->hook->name, c->error);
    if (!c->skipped) /* an open breaker logged once when it opened */
        KG_WARN("Failed calling webhook, failing open %s: failed calling webhook \"%s\": %s", c->hook->name,
                c->hook->name, c->error);
    KG_ERROR_DECL(e);
    kg_admission_add_annotation(
        at, kg_arena_sprintf(at->arena, "%s/round_%d_index_%zu", failed_open_prefix, round, index), c->hook->name, &e);
    return NULL;
}
