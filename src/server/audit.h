/* Auditing of API requests (kube-apiserver's WithAuditInit + WithAudit filters with the log backend): ties the policy
 * (audit_policy.h), the event encoding (audit_event.h) and the log (audit_log.h) to the HTTP layer.
 *
 * For every request that passed authentication (and impersonation) the policy decides a level; level None is not
 * audited. An audited request emits, unless the stage is omitted by the policy:
 *   RequestReceived   when its headers have been read and it was authenticated;
 *   ResponseStarted   when a long-running response (watch) starts streaming;
 *   ResponseComplete  when the response has been sent (with responseStatus);
 * requestObject (Request and RequestResponse levels) is the JSON request body, responseObject (RequestResponse) the
 * JSON response body; managedFields are dropped from both when the policy omits them. Annotations collect the
 * authorizer's decision (authorization.k8s.io/decision, authorization.k8s.io/reason) and whatever handlers add to
 * kg_http_request.audit_annotations (admission's audit annotations: PodSecurity, webhooks, ValidatingAdmissionPolicy).
 * The audit ID is the request's Audit-ID header, or a fresh UUID, and is returned in the Audit-Id response header.
 * Everything per request lives in the request arena except the event line, built in a private buffer. */
#ifndef KG_SERVER_AUDIT_H
#define KG_SERVER_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth/user.h"
#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"
#include "server/audit_log.h"
#include "server/audit_policy.h"
#include "server/requestinfo.h"

typedef struct kg_audit kg_audit;
typedef struct kg_audit_ctx kg_audit_ctx;

/* Load the policy file and open the log. Errors name the file. */
kg_audit *kg_audit_new(const char *policy_file, const kg_audit_log_config *log, kg_error *err);
void kg_audit_free(kg_audit *au);

typedef struct kg_audit_begin_args {
    const char *audit_id; /* the Audit-ID request header, NULL: a new UUID */
    const char *request_uri;
    const kg_request_info *info;
    const kg_user_info *user;              /* the authenticated user (the policy matches on it, as upstream) */
    const kg_user_info *impersonated_user; /* NULL without impersonation (or set later) */
    const char *source_ip, *user_agent;
} kg_audit_begin_args;

/* A request that failed authentication (upstream's WithFailedAuthenticationAudit): the policy is evaluated without a
 * user; when audited, one ResponseStarted event with code 401 and the message "Authentication failed, attempted:
 * bearer, x509" (or "..., no credentials provided"). args->user is ignored. Returns the audit ID (for the Audit-Id
 * header), NULL when not audited. */
const char *kg_audit_failed_authentication(kg_audit *au, kg_arena *a, const kg_audit_begin_args *args,
                                           const char *authorization, bool client_cert);
/* Decide the level and emit RequestReceived. NULL when the request is not audited (level None). */
kg_audit_ctx *kg_audit_begin(kg_audit *au, kg_arena *a, const kg_audit_begin_args *args);
const char *kg_audit_id(const kg_audit_ctx *c);
/* After impersonation: the user the request runs as (recorded as impersonatedUser; u must outlive the request). */
void kg_audit_set_impersonated_user(kg_audit_ctx *c, const kg_user_info *u);
/* The annotations object (in the request arena) handlers add string members to. */
kg_json *kg_audit_annotations(kg_audit_ctx *c);
void kg_audit_annotate(kg_audit_ctx *c, const char *key, const char *value);
/* The request body and its Content-Type, before the handler runs (handlers may decode it in place): decoded (JSON,
 * YAML or Kubernetes protobuf) and kept as requestObject at the Request and RequestResponse levels. */
void kg_audit_request_body(kg_audit_ctx *c, const char *content_type, const char *body, size_t len);
/* The response is about to be sent: status and its body (bytes; NULL for a stream). stream: emit ResponseStarted. */
void kg_audit_response(kg_audit_ctx *c, int status, const char *content_type, const char *body, size_t body_len,
                       bool stream);
/* The response has been sent: ResponseComplete. timed_out: the handler is still running after the request deadline
 * (the client got a 504): nothing it may still be writing (annotations) is read, the code is 504. */
void kg_audit_complete(kg_audit_ctx *c, bool timed_out);

#endif
