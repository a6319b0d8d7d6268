/* Auditing of API requests (see audit.h). */
#include "server/audit.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>

#include "base/buf.h"
#include "api/protobuf.h"
#include "meta/object.h"
#include "server/audit_event.h"
#include "yaml/yaml.h"

struct kg_audit {
    kg_audit_policy *policy;
    kg_audit_log *log;
};

struct kg_audit_ctx {
    kg_audit *au;
    kg_arena *a;
    kg_audit_decision d;
    kg_audit_event ev;
    kg_audit_object_ref ref;
    kg_json *annotations;
};

kg_audit *kg_audit_new(const char *policy_file, const kg_audit_log_config *log, kg_error *err)
{
    kg_audit_policy *p = kg_audit_policy_load(policy_file, err);
    if (!p)
        return NULL;
    kg_audit_log *l = kg_audit_log_open(log, err);
    if (!l) {
        kg_audit_policy_free(p);
        return NULL;
    }
    kg_audit *au = calloc(1, sizeof(*au));
    if (!au)
        abort();
    au->policy = p;
    au->log = l;
    return au;
}

void kg_audit_free(kg_audit *au)
{
    if (!au)
        return;
    kg_audit_policy_free(au->policy);
    kg_audit_log_close(au->log);
    free(au);
}

static int64_t now_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

/* Encode into a private buffer (the request arena may be in use by a timed-out handler) and append. */
static void emit(kg_audit_ctx *c, unsigned stage)
{
    if (c->d.omit_stages & stage)
        return;
    c->ev.stage = stage;
    c->ev.stage_us = now_us();
    c->ev.annotations = c->annotations;
    kg_buf b = KG_BUF_INIT;
    kg_audit_event_encode(&b, &c->ev);
    kg_audit_log_write(c->au->log, b.data, b.len);
    kg_buf_free(&b);
}

static kg_audit_ctx *begin(kg_audit *au, kg_arena *a, const kg_audit_begin_args *args, bool emit_received)
{
    const kg_request_info *ri = args->info;
    /* WithAudit runs before impersonation: the policy sees the authenticated user */
    kg_audit_request q = {.user = args->user,
                          .verb = ri->verb,
                          .is_resource = ri->is_resource_request,
                          .api_group = ri->api_group,
                          .resource = ri->resource,
                          .subresource = ri->subresource,
                          .ns = ri->namespace_,
                          .name = ri->name,
                          .path = ri->path};
    kg_audit_decision d = kg_audit_policy_evaluate(au->policy, &q);
    if (d.level == KG_AUDIT_NONE)
        return NULL;
    kg_audit_ctx *c = kg_arena_calloc(a, sizeof(*c));
    c->au = au;
    c->a = a;
    c->d = d;
    c->annotations = kg_json_new_object(a);
    const char *id = args->audit_id;
    if (!id || !*id) {
        char *u = kg_arena_alloc(a, 37);
        kg_uuid_v4(u);
        id = u;
    }
    kg_audit_event *e = &c->ev;
    e->level = d.level;
    e->audit_id = id;
    e->request_uri = args->request_uri;
    e->verb = ri->verb;
    /* upstream records the authenticated user, and the impersonated one beside it */
    e->user = args->user;
    e->impersonated_user = args->impersonated_user;
    e->source_ip = args->source_ip;
    e->user_agent = args->user_agent;
    if (ri->is_resource_request) {
        c->ref = (kg_audit_object_ref){ri->resource,  ri->namespace_,  ri->name,
                                       ri->api_group, ri->api_version, ri->subresource};
        e->object_ref = &c->ref;
    }
    e->received_us = now_us();
    if (emit_received)
        emit(c, KG_AUDIT_STAGE_REQUEST_RECEIVED);
    return c;
}

kg_audit_ctx *kg_audit_begin(kg_audit *au, kg_arena *a, const kg_audit_begin_args *args)
{
    return begin(au, a, args, true);
}

const char *kg_audit_failed_authentication(kg_audit *au, kg_arena *a, const kg_audit_begin_args *args,
                                           const char *authorization, bool client_cert)
{
    static const kg_user_info nobody = {.name = ""};
    kg_audit_begin_args na = *args;
    na.user = &nobody;
    na.impersonated_user = NULL;
    kg_audit_ctx *c = begin(au, a, &na, false);
    if (!c)
        return NULL;
    /* getAuthMethods */
    const char *m[2];
    size_t n = 0;
    if (authorization) {
        while (*authorization == ' ' || *authorization == '\t')
            authorization++;
        const char *sp = strchr(authorization, ' ');
        if (sp && sp - authorization == 6 && !strncasecmp(authorization, "bearer", 6))
            m[n++] = "bearer";
    }
    if (client_cert)
        m[n++] = "x509";
    c->ev.code = 401;
    c->ev.message = n == 0   ? "Authentication failed, no credentials provided"
                    : n == 1 ? kg_arena_sprintf(a, "Authentication failed, attempted: %s", m[0])
                             : kg_arena_sprintf(a, "Authentication failed, attempted: %s, %s", m[0], m[1]);
    c->annotations = NULL;
    emit(c, KG_AUDIT_STAGE_RESPONSE_STARTED);
    return c->ev.audit_id;
}

const char *kg_audit_id(const kg_audit_ctx *c)
{
    return c->ev.audit_id;
}

void kg_audit_set_impersonated_user(kg_audit_ctx *c, const kg_user_info *u)
{
    c->ev.impersonated_user = u;
}

kg_json *kg_audit_annotations(kg_audit_ctx *c)
{
    return c->annotations;
}

void kg_audit_annotate(kg_audit_ctx *c, const char *key, const char *value)
{
    kg_json_set(c->a, c->annotations, kg_arena_strdup(c->a, key), kg_json_new_str(c->a, value ? value : ""));
}

static bool is_json(const char *ct)
{
    return ct && (!strncasecmp(ct, "application/json", 16) || strstr(ct, "+json"));
}

/* A JSON object body parsed into a, managedFields dropped when the policy says so; NULL for anything else. */
static kg_json *body_object(kg_audit_ctx *c, const char *body, size_t len)
{
    if (!body || !len)
        return NULL;
    size_t i = 0;
    while (i < len && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r' || body[i] == '\t'))
        i++;
    if (i == len || (body[i] != '{' && body[i] != '['))
        return NULL;
    KG_ERROR_DECL(err);
    kg_json *v = kg_json_parse(c->a, body, len, &err);
    if (v && c->d.omit_managed_fields)
        kg_json_del(kg_json_get(v, "metadata"), "managedFields");
    return v;
}

void kg_audit_request_body(kg_audit_ctx *c, const char *content_type, const char *body, size_t len)
{
    if (c->d.level < KG_AUDIT_REQUEST || !len)
        return;
    KG_ERROR_DECL(err);
    kg_json *v = NULL;
    if (content_type && !strncasecmp(content_type, "application/vnd.kubernetes.protobuf", 35))
        v = kg_protobuf_decode(c->a, body, len, &err);
    else if (content_type && strstr(content_type, "yaml"))
        v = kg_yaml_parse(c->a, body, len, &err);
    else
        v = body_object(c, body, len);
    if (v && c->d.omit_managed_fields)
        kg_json_del(kg_json_get(v, "metadata"), "managedFields");
    c->ev.request_object = v;
}

void kg_audit_response(kg_audit_ctx *c, int status, const char *content_type, const char *body, size_t body_len,
                       bool stream)
{
    kg_audit_event *e = &c->ev;
    e->code = status;
    /* a failure Status: copy its bounded fields (LogResponseObject) */
    const kg_json *obj = is_json(content_type) ? body_object(c, body, body_len) : NULL;
    const char *kind = kg_json_get_str(obj, "kind");
    if (kind && !strcmp(kind, "Status")) {
        e->status = kg_json_get_str(obj, "status");
        e->reason = kg_json_get_str(obj, "reason");
        e->message = kg_json_get_str(obj, "message");
    }
    if (c->d.level >= KG_AUDIT_REQUEST_RESPONSE && obj)
        e->response_object = obj;
    if (stream)
        emit(c, KG_AUDIT_STAGE_RESPONSE_STARTED);
}

void kg_audit_complete(kg_audit_ctx *c, bool timed_out)
{
    if (timed_out) {
        c->annotations = NULL;
        c->ev.code = 504;
        c->ev.status = "Failure";
        c->ev.reason = "Timeout";
        c->ev.message = NULL;
        c->ev.response_object = NULL;
    }
    emit(c, KG_AUDIT_STAGE_RESPONSE_COMPLETE);
}
