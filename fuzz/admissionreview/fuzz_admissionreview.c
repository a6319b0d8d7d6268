/* AdmissionReview responses from a webhook (admission/webhook/review.c, dispatch.c, status.c) never crash, leak or
 * grow without bound: the body is checked as a v1 and a v1beta1 answer of a mutating and a validating call, merged
 * into request attributes (warnings, audit annotations, the denial Status), and an allowed patch is applied to a pod.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "admission/webhook/call.h"
#include "meta/patch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char pod[] = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"labels\":{\"a\":"
                              "\"b\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}";
    for (int v = 0; v < 2; v++) {
        for (int mutating = 0; mutating < 2; mutating++) {
            kg_arena a;
            kg_arena_init(&a, 0);
            kg_webhook_hook h = {.name = "fuzz.example.com", .review_version = v ? "v1beta1" : "v1"};
            kg_webhook_call c = {.hook = &h, .uid = "0c0ffee0-0000-4000-8000-000000000000", .mutating = mutating};
            kg_webhook_review_response(&a, &c, (const char *)data, size);
            kg_admission_attributes at;
            kg_admission_attrs_init(&at, &a);
            kg_warnings w;
            kg_warnings_init(&w, &a);
            at.warnings = &w;
            at.object = kg_json_parse(&a, pod, sizeof pod - 1, NULL);
            kg_status *st = kg_webhook_call_verdict(&c, &at, "failed-open.fuzz", 0, 0);
            if (st && (!st->message || st->code < 400))
                abort(); /* a rejection always has a message and an error code */
            if (w.runes > KG_WARNINGS_MAX_RUNES) /* the warnings stay bounded */
                abort();
            if (!st && c.outcome == KG_WEBHOOK_ALLOWED && c.patch) {
                kg_json *out;
                KG_ERROR_DECL(err);
                kg_patch_json(&a, at.object, c.patch, &out, &err);
            }
            kg_arena_free(&a);
        }
    }
    return 0;
}
