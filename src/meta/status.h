/* Kubernetes API errors: metav1.Status objects and field.ErrorList (k8s.io/apimachinery/pkg/api/errors,
 * pkg/util/validation/field). Message texts follow upstream exactly.
 *
 * All strings and structs live in the caller's arena. Constructors copy their string arguments.
 * Group/resource arguments use GroupResource.String() ("pods", "deployments.apps") in messages and
 * details.kind = resource (upstream sets Kind to the resource for NotFound/AlreadyExists/Conflict/Forbidden). */
#ifndef KG_META_STATUS_H
#define KG_META_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "json/json.h"
#include "meta/gvk.h"

/* ---------------------------------------------------------------------------------------------------------------
 * Field errors (field.Error / field.ErrorList)
 * ------------------------------------------------------------------------------------------------------------- */

typedef enum kg_field_error_type {
    KG_FIELD_NOT_FOUND,     /* "Not found"          cause "FieldValueNotFound" */
    KG_FIELD_REQUIRED,      /* "Required value"     cause "FieldValueRequired" */
    KG_FIELD_DUPLICATE,     /* "Duplicate value"    cause "FieldValueDuplicate" */
    KG_FIELD_INVALID,       /* "Invalid value"      cause "FieldValueInvalid" */
    KG_FIELD_NOT_SUPPORTED, /* "Unsupported value"  cause "FieldValueNotSupported" */
    KG_FIELD_FORBIDDEN,     /* "Forbidden"          cause "FieldValueForbidden" */
    KG_FIELD_TOO_LONG,      /* "Too long"           cause "FieldValueTooLong" */
    KG_FIELD_TOO_MANY,      /* "Too many"           cause "FieldValueTooMany" */
    KG_FIELD_INTERNAL,      /* "Internal error"     cause "InternalError" */
    KG_FIELD_TYPE_INVALID,  /* "Invalid value"      cause "FieldValueTypeInvalid" */
} kg_field_error_type;

/* How the bad value is printed in the error body (Go's %v / %q / omitted). */
typedef enum kg_bad_value_kind {
    KG_BV_OMIT = 0, /* no value printed ("Required value", "Forbidden", ...) */
    KG_BV_NULL,     /* `Invalid value: "null"` (upstream prints nil as the string "null") */
    KG_BV_STRING,   /* Go %q: `Invalid value: "X"` */
    KG_BV_INT,      /* %v: `Invalid value: 5` */
    KG_BV_BOOL,     /* %v: `Invalid value: true` */
    KG_BV_RAW,      /* printed verbatim (pre-formatted, e.g. a Stringer's output or a float) */
} kg_bad_value_kind;

typedef struct kg_field_error {
    kg_field_error_type type;
    const char *field; /* path, e.g. "spec.containers[0].name" */
    kg_bad_value_kind bv_kind;
    const char *bv_str; /* KG_BV_STRING / KG_BV_RAW */
    int64_t bv_int;     /* KG_BV_INT */
    bool bv_bool;       /* KG_BV_BOOL */
    const char *detail; /* may be NULL/"" */
} kg_field_error;

typedef struct kg_field_errors {
    kg_field_error *items;
    size_t len;
    size_t cap;
} kg_field_errors;

#define KG_FIELD_ERRORS_INIT                                                                                           \
    {                                                                                                                  \
        NULL, 0, 0                                                                                                     \
    }

/* Upstream type string ("Required value") and StatusCause type ("FieldValueRequired"). */
const char *kg_field_error_type_string(kg_field_error_type t);
const char *kg_field_error_cause_type(kg_field_error_type t);

/* Append a field error (all strings copied into a). Returns the new entry. */
kg_field_error *kg_field_errors_add(kg_arena *a, kg_field_errors *l, const kg_field_error *e);
/* Append every error of src to dst. */
void kg_field_errors_extend(kg_arena *a, kg_field_errors *dst, const kg_field_errors *src);

/* Constructors mirroring field.Required / Invalid / ... ; detail may be NULL. */
kg_field_error *kg_field_required(kg_arena *a, kg_field_errors *l, const char *field, const char *detail);
kg_field_error *kg_field_forbidden(kg_arena *a, kg_field_errors *l, const char *field, const char *detail);
kg_field_error *kg_field_invalid(kg_arena *a, kg_field_errors *l, const char *field, const char *value,
                                 const char *detail); /* string value (printed %q); value NULL → "null" */
kg_field_error *kg_field_invalid_int(kg_arena *a, kg_field_errors *l, const char *field, int64_t value,
                                     const char *detail);
kg_field_error *kg_field_invalid_bool(kg_arena *a, kg_field_errors *l, const char *field, bool value,
                                      const char *detail);
kg_field_error *kg_field_invalid_raw(kg_arena *a, kg_field_errors *l, const char *field, const char *raw,
                                     const char *detail); /* value printed verbatim */
kg_field_error *kg_field_type_invalid(kg_arena *a, kg_field_errors *l, const char *field, const char *value,
                                      const char *detail);
/* field.NotSupported: detail "supported values: "a", "b"" (omitted when nvalid == 0). value NULL → "null". */
kg_field_error *kg_field_not_supported(kg_arena *a, kg_field_errors *l, const char *field, const char *value,
                                       const char *const *valid, size_t nvalid);
kg_field_error *kg_field_duplicate(kg_arena *a, kg_field_errors *l, const char *field, const char *value);
kg_field_error *kg_field_not_found(kg_arena *a, kg_field_errors *l, const char *field, const char *value);
/* field.TooLong: "Too long: may not be more than N bytes" (N < 0 → "value is too long"). */
kg_field_error *kg_field_too_long(kg_arena *a, kg_field_errors *l, const char *field, int64_t max_len);
/* field.TooMany: "Too many: <actual>: must have at most N items" (actual < 0 omitted; max < 0 → "has too many items").
 */
kg_field_error *kg_field_too_many(kg_arena *a, kg_field_errors *l, const char *field, int64_t actual, int64_t max);
kg_field_error *kg_field_internal(kg_arena *a, kg_field_errors *l, const char *field, const char *detail);

/* Error.ErrorBody(): "Invalid value: \"X\": detail". */
char *kg_field_error_body(kg_arena *a, const kg_field_error *e);
/* Error.Error(): "<field>: <body>" (just the body if field is empty). */
char *kg_field_error_string(kg_arena *a, const kg_field_error *e);
/* ErrorList.ToAggregate().Error(): NULL if empty; the single message; or "[m1, m2]" (duplicate messages dropped). */
char *kg_field_errors_aggregate(kg_arena *a, const kg_field_errors *l);

/* utilerrors.NewAggregate(msgs).Error(): NULL for none, the message for one, "[m1, m2]" for several, duplicate
 * messages dropped (first kept; a list that collapses to one message prints without brackets). */
char *kg_errors_aggregate(kg_arena *a, const char *const *msgs, size_t n);

/* Client input echoed in error messages is bounded: a field error's value (Invalid, NotSupported, Duplicate,
 * NotFound, TypeInvalid, raw values), its field path (it holds map keys) and the object name in Status messages and
 * details print at most KG_ECHO_MAX_BYTES bytes of the text (cut on a UTF-8 boundary), then
 * `... (truncated from N bytes)`. Upstream prints such values whole (only field.TooLong omits its value), so a 1 MiB
 * invalid label value made a 2 MiB response (message and cause); kgate's texts are byte-identical to upstream's
 * for anything up to the bound, which is far above every length a valid value of those fields may have (names 253,
 * label values 63, label keys 317 bytes) and leaves room for Go %#v renderings of small lists (20 VAP
 * auditAnnotations print ~2 KiB). */
#define KG_ECHO_MAX_BYTES 4096
/* kg_meta_quote of s bounded as above: `"<first bytes>"... (truncated from N bytes)`. */
void kg_meta_quote_echo(kg_buf *out, const char *s, size_t n);
/* s verbatim bounded as above. */
void kg_meta_echo(kg_buf *out, const char *s, size_t n);
/* kg_meta_echo of a NUL-terminated s (NULL → "") as an arena string. */
char *kg_meta_echo_a(kg_arena *a, const char *s);

/* Go strconv.Quote (what %q prints) appended to out. */
void kg_meta_quote(kg_buf *out, const char *s, size_t n);
char *kg_meta_quote_a(kg_arena *a, const char *s);

/* ---------------------------------------------------------------------------------------------------------------
 * Status
 * ------------------------------------------------------------------------------------------------------------- */

/* metav1.StatusReason values. */
#define KG_REASON_UNKNOWN ""
#define KG_REASON_UNAUTHORIZED "Unauthorized"
#define KG_REASON_FORBIDDEN "Forbidden"
#define KG_REASON_NOT_FOUND "NotFound"
#define KG_REASON_ALREADY_EXISTS "AlreadyExists"
#define KG_REASON_CONFLICT "Conflict"
#define KG_REASON_GONE "Gone"
#define KG_REASON_INVALID "Invalid"
#define KG_REASON_SERVER_TIMEOUT "ServerTimeout"
#define KG_REASON_STORE_READ_ERROR "StorageReadError"
#define KG_REASON_TIMEOUT "Timeout"
#define KG_REASON_TOO_MANY_REQUESTS "TooManyRequests"
#define KG_REASON_BAD_REQUEST "BadRequest"
#define KG_REASON_METHOD_NOT_ALLOWED "MethodNotAllowed"
#define KG_REASON_NOT_ACCEPTABLE "NotAcceptable"
#define KG_REASON_REQUEST_ENTITY_TOO_LARGE "RequestEntityTooLarge"
#define KG_REASON_UNSUPPORTED_MEDIA_TYPE "UnsupportedMediaType"
#define KG_REASON_INTERNAL_ERROR "InternalError"
#define KG_REASON_EXPIRED "Expired"
#define KG_REASON_SERVICE_UNAVAILABLE "ServiceUnavailable"

/* registry.OptimisticLockErrorMsg, the usual Conflict cause. */
#define KG_OPTIMISTIC_LOCK_MSG                                                                                         \
    "the object has been modified; please apply your changes to the latest version and try again"

typedef struct kg_status_cause {
    const char *reason; /* json "reason" (CauseType) */
    const char *message;
    const char *field;
} kg_status_cause;

typedef struct kg_status_details {
    const char *name;
    const char *group;
    const char *kind;
    const char *uid;
    kg_status_cause *causes;
    size_t ncauses;
    int32_t retry_after_seconds;
} kg_status_details;

typedef struct kg_status {
    const char *status; /* "Failure" or "Success" */
    int32_t code;       /* HTTP code; 0 is omitted from JSON (rendered as 500 for Failure by kg_status_http_code) */
    const char *reason; /* KG_REASON_*; "" omitted */
    const char *message;
    bool has_details;
    kg_status_details details;
} kg_status;

/* Generic constructor: Failure with code, reason, message (copied). */
kg_status *kg_status_new(kg_arena *a, int32_t code, const char *reason, const char *message);
kg_status *kg_status_newf(kg_arena *a, int32_t code, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Append a cause to details (creates details). */
void kg_status_add_cause(kg_arena *a, kg_status *st, const char *reason, const char *message, const char *field);

/* 404 NotFound: `pods "x" not found`; details {name, group, kind: resource}. */
kg_status *kg_status_not_found(kg_arena *a, kg_gr gr, const char *name);
/* 409 AlreadyExists: `pods "x" already exists`. */
kg_status *kg_status_already_exists(kg_arena *a, kg_gr gr, const char *name);
/* 409 AlreadyExists for generateName collisions: `... already exists, the server was not able to generate a unique
 * name for the object`, retryAfterSeconds 1. */
kg_status *kg_status_generate_name_conflict(kg_arena *a, kg_gr gr, const char *name, int32_t retry_after);
/* 409 Conflict: `Operation cannot be fulfilled on pods "x": <msg>` (msg NULL → KG_OPTIMISTIC_LOCK_MSG). */
kg_status *kg_status_conflict(kg_arena *a, kg_gr gr, const char *name, const char *msg);
/* 422 Invalid: `Pod "x" is invalid: <aggregate>`; kind printed as GroupKind ("Deployment.apps"); causes from errs. */
kg_status *kg_status_invalid(kg_arena *a, kg_gk gk, const char *name, const kg_field_errors *errs);
/* 403 Forbidden: `pods "x" is forbidden: <msg>`, `pods is forbidden: <msg>` (name ""), `forbidden: <msg>` (gr empty).
 */
kg_status *kg_status_forbidden(kg_arena *a, kg_gr gr, const char *name, const char *msg);
/* 400 BadRequest, message verbatim. */
kg_status *kg_status_bad_request(kg_arena *a, const char *msg);
/* 405 MethodNotAllowed: `<action> is not supported on resources of kind "<gr>"`. */
kg_status *kg_status_method_not_supported(kg_arena *a, kg_gr gr, const char *action);
/* 415 UnsupportedMediaType: `the body of the request was in an unknown format - accepted media types include: a, b`. */
kg_status *kg_status_unsupported_media_type(kg_arena *a, const char *const *accepted, size_t n);
/* 406 NotAcceptable: `only the following media types are accepted: a, b`. */
kg_status *kg_status_not_acceptable(kg_arena *a, const char *const *accepted, size_t n);
/* 413 RequestEntityTooLarge: `Request entity too large: <msg>`. */
kg_status *kg_status_request_entity_too_large(kg_arena *a, const char *msg);
/* 410 Gone, message verbatim (NewGone). */
kg_status *kg_status_gone(kg_arena *a, const char *msg);
/* 410 Expired, message verbatim (NewResourceExpired). */
kg_status *kg_status_resource_expired(kg_arena *a, const char *msg);
/* 410 Expired `too old resource version: <requested> (<oldest>)` as the watch cache returns it. */
kg_status *kg_status_too_old_resource_version(kg_arena *a, uint64_t requested, uint64_t oldest);
/* 429 TooManyRequests, message verbatim, details {retryAfterSeconds} (always present, as NewTooManyRequests). */
kg_status *kg_status_too_many_requests(kg_arena *a, const char *msg, int32_t retry_after);
/* 429 TooManyRequests: `Too many requests: <msg>`, no details (NewTooManyRequestsError, EventRateLimit). */
kg_status *kg_status_too_many_requests_error(kg_arena *a, const char *msg);
/* admission.NewForbidden(attrs, err): 403 on gr with the name taken from attr_name, else the object's
 * metadata.name, else metadata.generateName, else "Unknown" (obj NULL included); "Unknown/errorGettingName" when
 * obj has no metadata object. Callers keep an already-Forbidden status instead of wrapping it again. */
kg_status *kg_status_admission_forbidden(kg_arena *a, kg_gr gr, const char *attr_name, const kg_json *obj,
                                         const char *msg);
/* 500 InternalError: `Internal error occurred: <msg>`, details.causes[0].message = msg. */
kg_status *kg_status_internal(kg_arena *a, const char *msg);
/* 504 Timeout: `Timeout: <msg>`, details {retryAfterSeconds} (always present, as NewTimeoutError). */
kg_status *kg_status_timeout(kg_arena *a, const char *msg, int32_t retry_after);
/* 500 ServerTimeout: `The <op> operation against <gr> could not be completed at this time, please try again.` */
kg_status *kg_status_server_timeout(kg_arena *a, kg_gr gr, const char *operation, int32_t retry_after);
/* 401 Unauthorized: message verbatim, "not authorized" when empty. */
kg_status *kg_status_unauthorized(kg_arena *a, const char *msg);
/* 503 ServiceUnavailable: message verbatim. */
kg_status *kg_status_service_unavailable(kg_arena *a, const char *msg);
/* Success status returned by DELETE (registry finalizeDelete): status "Success", details {name, group, kind:
 * resource, uid}, no code. */
kg_status *kg_status_success_delete(kg_arena *a, kg_gr gr, const char *name, const char *uid);
/* Map a kg_error to a Status: EINVAL 400 BadRequest, ENOTFOUND 404 NotFound, EEXIST 409 AlreadyExists, ECONFLICT 409
 * Conflict, EGONE 410 Expired, ETOOLARGE 413, ETIMEOUT 504 Timeout, EFORBIDDEN 403, EUNSUPPORTED 415; anything
 * else is a non-Status error: 500, reason "", message = err->msg (as responsewriters.ErrorToAPIStatus). The
 * message is used verbatim: callers needing upstream texts should build the Status with the constructors. */
kg_status *kg_status_from_error(kg_arena *a, const kg_error *err);

/* HTTP code to send: st->code, or 500 when code is 0 on a Failure (ErrorToAPIStatus), 200 for Success. */
int kg_status_http_code(const kg_status *st);
/* responsewriters.ErrorToAPIStatus for a Status used as an error: empty status becomes "Failure", a zero code
 * becomes 500 (200 for "Success"), so the rendered JSON carries the code. Modifies st in place and returns it. */
kg_status *kg_status_as_error(kg_status *st);
/* True if st->reason equals reason. */
bool kg_status_is(const kg_status *st, const char *reason);

/* Render as a metav1.Status object: kind, apiVersion, metadata {}, status, message, reason, details, code
 * (upstream field order, empty fields omitted). */
kg_json *kg_status_to_json(kg_arena *a, const kg_status *st);
/* Serialize directly (compact JSON, like the apiserver's response body). */
void kg_status_write(kg_buf *out, const kg_status *st);
/* Read a Status object (e.g. from a webhook response). Unknown fields ignored; strings borrowed from j. */
kg_status *kg_status_from_json(kg_arena *a, const kg_json *j);

#endif
