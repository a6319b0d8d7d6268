/* One audit.k8s.io/v1 Event, encoded as the JSON line kube-apiserver's log backend writes (field order as upstream's
 * encoder: kind, apiVersion, level, auditID, stage, requestURI, verb, user, impersonatedUser, sourceIPs, userAgent,
 * objectRef, responseStatus, requestObject, responseObject, requestReceivedTimestamp, stageTimestamp, annotations).
 * Timestamps are RFC 3339 with microseconds in UTC ("2006-01-02T15:04:05.000000Z"). */
#ifndef KG_SERVER_AUDIT_EVENT_H
#define KG_SERVER_AUDIT_EVENT_H

#include <stdint.h>

#include "auth/user.h"
#include "base/buf.h"
#include "json/json.h"
#include "server/audit_policy.h"

typedef struct kg_audit_object_ref {
    const char *resource, *ns, *name, *api_group, *api_version, *subresource; /* "" or NULL: omitted */
} kg_audit_object_ref;

typedef struct kg_audit_event {
    kg_audit_level level;
    const char *audit_id;
    unsigned stage; /* one KG_AUDIT_STAGE_* bit */
    const char *request_uri;
    const char *verb;
    const kg_user_info *user;
    const kg_user_info *impersonated_user; /* NULL: none */
    const char *source_ip;                 /* NULL/"": none */
    const char *user_agent;                /* NULL/"": omitted */
    const kg_audit_object_ref *object_ref; /* NULL for non-resource requests */
    /* responseStatus (code 0: none yet). On failures status/reason/message come from the Status the client got. */
    int code;
    const char *status, *reason, *message;
    const kg_json *request_object;  /* NULL: omitted (Request level and above) */
    const kg_json *response_object; /* NULL: omitted (RequestResponse only) */
    int64_t received_us, stage_us;  /* microseconds since the epoch */
    const kg_json *annotations;     /* object of strings; NULL or empty: omitted */
} kg_audit_event;

/* Append the event's JSON and a newline to b. */
void kg_audit_event_encode(kg_buf *b, const kg_audit_event *e);
/* "2006-01-02T15:04:05.000000Z" into buf (>= 28 bytes). */
char *kg_audit_time_format(int64_t us, char *buf);

#endif
