/* The receiving side of the AdmissionReview protocol (admission.k8s.io/v1 and v1beta1): what `kgate webhook` decodes
 * from a calling API server and what it answers. The sending side (kgate serve calling webhooks) is
 * admission/webhook/review.c; both use the same field names (upstream k8s.io/api/admission/v1 types).
 *
 * Decoding fills kg_admission_attributes as serve's pipeline would for the same request:
 *   request.uid → uid; kind / resource / subResource; requestKind / requestResource / requestSubResource (each
 *   defaulting to its converted counterpart when absent); name; namespace; operation (CREATE, UPDATE, DELETE,
 *   CONNECT); userInfo {username, uid, groups, extra}; object / oldObject (null → NULL); dryRun; options.
 * Everything lives in the request arena.
 *
 * Encoding answers in the request's version with its uid echoed: allowed, status (the plugin's metav1.Status, code,
 * reason and message exactly as serve would return them), patch (base64 JSONPatch) with patchType "JSONPatch" when
 * mutation changed the object, warnings and auditAnnotations (both omitted when empty). */
#ifndef KG_WEBHOOKDOOR_REVIEW_H
#define KG_WEBHOOKDOOR_REVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "admission/attributes.h"
#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"
#include "meta/status.h"

/* A decoded review: the version it came in ("v1" or "v1beta1") and the attributes. */
typedef struct kg_door_review {
    const char *version;
    kg_admission_attributes attrs;
} kg_door_review;

/* Decode body into *out (attributes initialised with kg_admission_attrs_init over a, warnings collected). False
 * with err (a message for the 400 answer) when the body is not JSON, not an AdmissionReview of a known version, has
 * no request object, or an unknown operation. */
bool kg_door_review_decode(kg_arena *a, const char *body, size_t len, kg_door_review *out, kg_error *err);

/* The answer: an AdmissionReview of rv->version with response {uid, allowed, status?, patch?, patchType?,
 * warnings?, auditAnnotations?}. st NULL = allowed. patch NULL or empty = no patch. */
kg_json *kg_door_review_response(kg_arena *a, const kg_door_review *rv, const kg_status *st, const kg_json *patch);

#endif
