/* AdmissionReview request bodies and response checks without a network (admission/webhook/review.c, status.c):
 * upstream's VerifyAdmissionResponse texts for v1 and v1beta1, mutating and validating; ToStatusErr. */
#include "../admission_testutil.h"
#include "admission/webhook/call.h"

#define UID "11111111-2222-4333-8444-555555555555"

typedef struct rcase {
    const char *version;
    bool mutating;
    const char *body;
    kg_webhook_outcome want;
    const char *error; /* expected error text (exact), or NULL */
} rcase;

static void response_checks(void **state)
{
    /* patches below: base64 of [{"op":"add","path":"/metadata/labels/x","value":"y"}], of [] (W10=), of {} (e30=) */
    static const rcase cases[] = {
        {"v1", false, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}", KG_WEBHOOK_CALL_ERROR,
         "received invalid webhook response: webhook response was absent"},
        {"v1", false,
         "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"x\"}}",
         KG_WEBHOOK_CALL_ERROR, "received invalid webhook response: expected response.uid=\"" UID "\", got \"x\""},
        {"v1", false,
         "{\"apiVersion\":\"admission.k8s.io/v1beta1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"" UID
         "\",\"allowed\":true}}",
         KG_WEBHOOK_CALL_ERROR,
         "received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, "
         "got admission.k8s.io/v1beta1, Kind=AdmissionReview"},
        {"v1", false, "{\"response\":{\"uid\":\"" UID "\",\"allowed\":true}}", KG_WEBHOOK_CALL_ERROR,
         "received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, "
         "got /, Kind="},
        {"v1", false,
         "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"" UID
         "\",\"allowed\":true,\"patchType\":\"JSONPatch\"}}",
         KG_WEBHOOK_CALL_ERROR,
         "received invalid webhook response: validating webhook may not return response.patchType"},
        {"v1", true,
         "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"" UID
         "\",\"allowed\":true,\"patchType\":\"JSONPatch\"}}",
         KG_WEBHOOK_CALL_ERROR,
         "received invalid webhook response: webhook returned response.patchType but not response.patch"},
        {"v1", true,
         "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"" UID
         "\",\"allowed\":true,\"patch\":\"W10=\"}}",
         KG_WEBHOOK_CALL_ERROR,
         "received invalid webhook response: webhook returned response.patch but not response.patchType"},
        {"v1", true,
         "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"" UID
         "\",\"allowed\":true,\"patchType\":\"Merge\",\"patch\":\""
         "W3sib3AiOiJhZGQiLCJwYXRoIjoiL21ldGFkYXRhL2xhYmVscy94IiwidmFsdWUiOiJ5In1d\"}}",
         KG_WEBHOOK_CALL_ERROR, "unsupported patch type \"Merge\""},
        {"v1", true,
         "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"" UID
         "\",\"allowed\":true,\"patchType\":\"JSONPatch\",\"patch\":\"e30=\"}}",
         KG_WEBHOOK_INTERNAL, NULL},
        /* v1beta1: no uid or kind check; a patch implies JSONPatch */
        {"v1beta1", true,
         "{\"response\":{\"uid\":\"whatever\",\"allowed\":true,\"patch\":"
         "\"W3sib3AiOiJhZGQiLCJwYXRoIjoiL21ldGFkYXRhL2xhYmVscy94IiwidmFsdWUiOiJ5In1d\"}}",
         KG_WEBHOOK_ALLOWED, NULL},
        /* allowed absent: a denial, as Go decodes it */
        {"v1", false,
         "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"" UID "\"}}",
         KG_WEBHOOK_DENIED, NULL},
        {"v1", false, "[1,2", KG_WEBHOOK_CALL_ERROR, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kg_arena a;
        kg_arena_init(&a, 0);
        kg_webhook_hook h = {.name = "h.example.com", .review_version = cases[i].version};
        kg_webhook_call c = {.hook = &h, .uid = UID, .mutating = cases[i].mutating};
        kg_webhook_review_response(&a, &c, cases[i].body, strlen(cases[i].body));
        if (c.outcome != cases[i].want)
            fail_msg("case %zu: outcome %d, want %d (%s)", i, c.outcome, cases[i].want, c.error ? c.error : "");
        if (cases[i].error && strcmp(c.error, cases[i].error))
            fail_msg("case %zu: %s", i, c.error);
        if (cases[i].want == KG_WEBHOOK_ALLOWED && cases[i].mutating)
            assert_non_null(c.patch);
        kg_arena_free(&a);
    }
}

static void denial_texts(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_status(kg_webhook_status_denied(&a, "h", tj(&a, "{\"code\":200,\"message\":\"m\"}")), 400, "",
                  "admission webhook \"h\" denied the request: m");
    assert_status(kg_webhook_status_denied(&a, "h", tj(&a, "{\"code\":422,\"reason\":\"Invalid\"}")), 422, "Invalid",
                  "admission webhook \"h\" denied the request: Invalid");
    assert_status(kg_webhook_status_denied(&a, "h", NULL), 400, "",
                  "admission webhook \"h\" denied the request without explanation");
    kg_status *st = kg_webhook_status_denied(
        &a, "h",
        tj(&a,
           "{\"code\":403,\"message\":\"no\",\"details\":{\"causes\":[{\"field\":\"spec\",\"message\":\"bad\"}]}}"));
    assert_int_equal(st->details.ncauses, 1);
    assert_string_equal(st->details.causes[0].field, "spec");
    assert_status(kg_webhook_status_dry_run(&a, "h"), 400, "BadRequest",
                  "admission webhook \"h\" does not support dry run");
    assert_status(kg_webhook_status_call_failed(&a, "h", "why"), 500, "InternalError",
                  "Internal error occurred: failed calling webhook \"h\": why");
    kg_arena_free(&a);
}

static void request_body(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_DELETE, "Pod", "pods", "ns", "p", NULL, tj(&a, "{\"metadata\":{\"name\":\"p\"}}"));
    at.subresource = "";
    at.request_kind = at.kind;
    at.request_resource = at.resource;
    static const char *const groups[] = {"system:authenticated"};
    at.user = (kg_admission_user){.name = "bob", .uid = "u1", .groups = groups, .ngroups = 1};
    kg_match_invocation inv = {at.resource, "", at.kind};
    kg_json *rv = kg_webhook_review_request(&a, &at, &inv, "v1beta1", "the-uid");
    assert_string_equal(
        kg_json_to_string(&a, rv, 0, NULL),
        "{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1beta1\",\"request\":{\"uid\":"
        "\"the-uid\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},\"resource\":{\"group\":"
        "\"\",\"version\":\"v1\",\"resource\":\"pods\"},\"requestKind\":{\"group\":\"\",\"version\":\"v1\","
        "\"kind\":\"Pod\"},\"requestResource\":{\"group\":\"\",\"version\":\"v1\",\"resource\":\"pods\"},"
        "\"name\":\"p\",\"namespace\":\"ns\",\"operation\":\"DELETE\",\"userInfo\":{\"username\":\"bob\","
        "\"uid\":\"u1\",\"groups\":[\"system:authenticated\"]},\"object\":null,\"oldObject\":{\"metadata\":"
        "{\"name\":\"p\"}},\"dryRun\":false,\"options\":null}}");
    assert_int_equal(strlen(kg_webhook_new_uid(&a)), 36);
    assert_string_not_equal(kg_webhook_new_uid(&a), kg_webhook_new_uid(&a));
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(response_checks),
        cmocka_unit_test(denial_texts),
        cmocka_unit_test(request_body),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
