/* Upstream's webhook error texts (webhook/errors and generic/webhook.go): a denial keeps the webhook's Status with its
 * message prefixed (ToStatusErr), a call error becomes a 500 InternalError, a dry-run request to a webhook with side
 * effects a 400. Everything is copied into the given arena (the inputs may live in a call thread's arena). */
#include <string.h>

#include "admission/webhook/call.h"

static const char *copy(kg_arena *a, const char *s)
{
    return s ? kg_arena_strdup(a, s) : "";
}

kg_status *kg_webhook_status_denied(kg_arena *a, const char *hook, const kg_json *st)
{
    const char *msg = st ? kg_json_get_str(st, "message") : NULL, *reason = st ? kg_json_get_str(st, "reason") : NULL;
    const kg_json *code = st ? kg_json_get(st, "code") : NULL;
    int64_t c = kg_json_is(code, KG_JSON_INT) ? code->u.i : 0;
    const char *text;
    if (msg && msg[0])
        text = kg_arena_sprintf(a, "admission webhook \"%s\" denied the request: %s", hook, msg);
    else if (reason && reason[0])
        text = kg_arena_sprintf(a, "admission webhook \"%s\" denied the request: %s", hook, reason);
    else
        text = kg_arena_sprintf(a, "admission webhook \"%s\" denied the request without explanation", hook);
    /* never a rejection with a code below 400 */
    kg_status *out = kg_status_new(a, c < 400 || c > 599 ? 400 : (int32_t)c, copy(a, reason), text);
    const kg_json *d = st ? kg_json_get(st, "details") : NULL;
    if (kg_json_is(d, KG_JSON_OBJECT)) {
        out->has_details = true;
        out->details.name = copy(a, kg_json_get_str(d, "name"));
        out->details.group = copy(a, kg_json_get_str(d, "group"));
        out->details.kind = copy(a, kg_json_get_str(d, "kind"));
        out->details.uid = copy(a, kg_json_get_str(d, "uid"));
        const kg_json *causes = kg_json_get(d, "causes");
        for (uint32_t i = 0; kg_json_is(causes, KG_JSON_ARRAY) && i < causes->len && i < 64; i++) {
            const kg_json *cs = kg_json_at(causes, i);
            kg_status_add_cause(a, out, copy(a, kg_json_get_str(cs, "reason")), copy(a, kg_json_get_str(cs, "message")),
                                copy(a, kg_json_get_str(cs, "field")));
        }
    }
    return out;
}

kg_status *kg_webhook_status_call_failed(kg_arena *a, const char *hook, const char *reason)
{
    return kg_status_internal(a, kg_arena_sprintf(a, "failed calling webhook \"%s\": %s", hook, reason));
}

kg_status *kg_webhook_status_dry_run(kg_arena *a, const char *hook)
{
    return kg_status_bad_request(a, kg_arena_sprintf(a, "admission webhook \"%s\" does not support dry run", hook));
}
