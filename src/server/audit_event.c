/* Audit event encoding (see audit_event.h). */
#include "server/audit_event.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

char *kg_audit_time_format(int64_t us, char *buf)
{
    time_t s = (time_t)(us / 1000000);
    struct tm tm;
    gmtime_r(&s, &tm);
    size_t n = strftime(buf, 28, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, 28 - n, ".%06dZ", (int)(us % 1000000));
    return buf;
}

static void str(kg_buf *b, const char *s)
{
    kg_json_write_string(b, s ? s : "", s ? strlen(s) : 0, 0);
}

static void field(kg_buf *b, const char *key, const char *v)
{
    kg_buf_printf(b, ",\"%s\":", key);
    str(b, v);
}

static void opt_field(kg_buf *b, const char *key, const char *v)
{
    if (v && *v)
        field(b, key, v);
}

static void user_info(kg_buf *b, const kg_user_info *u)
{
    /* UserInfo: every field omitempty */
    kg_buf_putc(b, '{');
    size_t mark = b->len;
    if (u->name && *u->name) {
        kg_buf_puts(b, "\"username\":");
        str(b, u->name);
    }
    if (u->uid && *u->uid) {
        kg_buf_puts(b, b->len != mark ? ",\"uid\":" : "\"uid\":");
        str(b, u->uid);
    }
    if (u->ngroups) {
        kg_buf_puts(b, b->len != mark ? ",\"groups\":[" : "\"groups\":[");
        for (size_t i = 0; i < u->ngroups; i++) {
            if (i)
                kg_buf_putc(b, ',');
            str(b, u->groups[i]);
        }
        kg_buf_putc(b, ']');
    }
    if (u->nextra) {
        kg_buf_puts(b, b->len != mark ? ",\"extra\":{" : "\"extra\":{");
        for (size_t i = 0; i < u->nextra; i++) {
            if (i)
                kg_buf_putc(b, ',');
            str(b, u->extra[i].key);
            kg_buf_puts(b, ":[");
            for (size_t j = 0; j < u->extra[i].nvalues; j++) {
                if (j)
                    kg_buf_putc(b, ',');
                str(b, u->extra[i].values[j]);
            }
            kg_buf_putc(b, ']');
        }
        kg_buf_putc(b, '}');
    }
    kg_buf_putc(b, '}');
}

void kg_audit_event_encode(kg_buf *b, const kg_audit_event *e)
{
    char ts[32];
    kg_buf_puts(b, "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\"");
    field(b, "level", kg_audit_level_name(e->level));
    field(b, "auditID", e->audit_id);
    field(b, "stage", kg_audit_stage_name(e->stage));
    field(b, "requestURI", e->request_uri);
    field(b, "verb", e->verb);
    kg_buf_puts(b, ",\"user\":");
    static const kg_user_info nobody = {.name = ""};
    user_info(b, e->user ? e->user : &nobody);
    if (e->impersonated_user) {
        kg_buf_puts(b, ",\"impersonatedUser\":");
        user_info(b, e->impersonated_user);
    }
    if (e->source_ip && *e->source_ip) {
        kg_buf_puts(b, ",\"sourceIPs\":[");
        str(b, e->source_ip);
        kg_buf_putc(b, ']');
    }
    opt_field(b, "userAgent", e->user_agent);
    if (e->object_ref) {
        const kg_audit_object_ref *o = e->object_ref;
        kg_buf_puts(b, ",\"objectRef\":{");
        size_t mark = b->len;
        const char *k[] = {"resource", "namespace", "name", "apiGroup", "apiVersion", "subresource"};
        const char *v[] = {o->resource, o->ns, o->name, o->api_group, o->api_version, o->subresource};
        for (int i = 0; i < 6; i++)
            if (v[i] && *v[i]) {
                if (b->len != mark)
                    kg_buf_putc(b, ',');
                str(b, k[i]);
                kg_buf_putc(b, ':');
                str(b, v[i]);
            }
        kg_buf_putc(b, '}');
    }
    if (e->code) {
        kg_buf_puts(b, ",\"responseStatus\":{\"metadata\":{}");
        opt_field(b, "status", e->status);
        opt_field(b, "message", e->message);
        opt_field(b, "reason", e->reason);
        kg_buf_printf(b, ",\"code\":%d}", e->code);
    }
    if (e->request_object) {
        kg_buf_puts(b, ",\"requestObject\":");
        kg_json_write(b, e->request_object, 0);
    }
    if (e->response_object) {
        kg_buf_puts(b, ",\"responseObject\":");
        kg_json_write(b, e->response_object, 0);
    }
    field(b, "requestReceivedTimestamp", kg_audit_time_format(e->received_us, ts));
    field(b, "stageTimestamp", kg_audit_time_format(e->stage_us, ts));
    if (e->annotations && e->annotations->type == KG_JSON_OBJECT && e->annotations->len) {
        kg_buf_puts(b, ",\"annotations\":");
        kg_json_write(b, e->annotations, 0);
    }
    kg_buf_puts(b, "}\n");
}
