/* Request attributes for the authorizer interface, and upstream's 403 texts. */
#include "server/authz.h"

#include <string.h>

#include "base/error.h"

#include "json/json.h"

void kg_authz_attributes_from_request(kg_authz_attributes *at, const kg_user *user, const kg_request_info *ri)
{
    memset(at, 0, sizeof(*at));
    at->user = user;
    at->verb = ri->verb;
    at->resource_request = ri->is_resource_request;
    at->path = ri->path;
    at->api_group = ri->api_group;
    at->api_version = ri->api_version;
    at->resource = ri->resource;
    at->subresource = ri->subresource;
    at->namespace_ = ri->namespace_;
    at->name = ri->name;
}

bool kg_authz_parse_modes(const char *s, kg_authz_mode *modes, size_t *n, kg_error *err)
{
    static const struct {
        const char *name;
        kg_authz_mode mode;
    } known[] = {{"AlwaysAllow", KG_AUTHZ_MODE_ALWAYS_ALLOW},
                 {"AlwaysDeny", KG_AUTHZ_MODE_ALWAYS_DENY},
                 {"RBAC", KG_AUTHZ_MODE_RBAC},
                 {"ABAC", 0},
                 {"Webhook", 0},
                 {"Node", KG_AUTHZ_MODE_NODE}};
    *n = 0;
    const char *p = s ? s : "";
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int found = -1;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            if (strlen(known[i].name) == len && !strncmp(known[i].name, p, len))
                found = (int)i;
        if (found < 0) {
            kg_err_set(err, KG_EINVAL, "authorization-mode \"%.*s\" is not a valid mode", (int)len, p);
            return false;
        }
        if (!known[found].mode) {
            kg_err_set(err, KG_EINVAL, "authorization-mode \"%s\" is not supported by kgate", known[found].name);
            return false;
        }
        for (size_t i = 0; i < *n; i++)
            if (modes[i] == known[found].mode) {
                kg_err_set(err, KG_EINVAL, "authorization-mode \"%s\" has mode specified more than once",
                           known[found].name);
                return false;
            }
        modes[(*n)++] = known[found].mode;
        p += len;
        if (*p == ',')
            p++;
    }
    if (!*n) {
        kg_err_set(err, KG_EINVAL, "at least one authorization-mode must be passed");
        return false;
    }
    return true;
}

/* ---- messages ---- */

static const char *s_or_empty(const char *s)
{
    return s ? s : "";
}

/* Go's %q for the strings we print: escape backslash, quote and control bytes. */
static const char *goquote(kg_arena *a, const char *s)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_putc(&b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': kg_buf_puts(&b, "\\\""); break;
        case '\\': kg_buf_puts(&b, "\\\\"); break;
        case '\n': kg_buf_puts(&b, "\\n"); break;
        case '\t': kg_buf_puts(&b, "\\t"); break;
        case '\r': kg_buf_puts(&b, "\\r"); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                kg_buf_printf(&b, "\\x%02x", *p);
            else
                kg_buf_putc(&b, (char)*p);
        }
    }
    kg_buf_putc(&b, '"');
    const char *r = kg_arena_strndup(a, b.data, b.len);
    kg_buf_free(&b);
    return r;
}

static const char *inner_message(kg_arena *a, const kg_authz_attributes *at)
{
    const char *user = at->user && at->user->name ? at->user->name : "";
    const char *verb = s_or_empty(at->verb);
    if (!at->resource_request)
        return kg_arena_sprintf(a, "User %s cannot %s path %s", goquote(a, user), verb,
                                goquote(a, s_or_empty(at->path)));
    const char *res = s_or_empty(at->resource);
    if (at->subresource && *at->subresource)
        res = kg_arena_sprintf(a, "%s/%s", res, at->subresource);
    const char *ns = s_or_empty(at->namespace_);
    if (*ns)
        return kg_arena_sprintf(a, "User %s cannot %s resource %s in API group %s in the namespace %s",
                                goquote(a, user), verb, goquote(a, res), goquote(a, s_or_empty(at->api_group)),
                                goquote(a, ns));
    return kg_arena_sprintf(a, "User %s cannot %s resource %s in API group %s at the cluster scope", goquote(a, user),
                            verb, goquote(a, res), goquote(a, s_or_empty(at->api_group)));
}

const char *kg_authz_forbidden_message(kg_arena *a, const kg_authz_attributes *at, const char *reason)
{
    const char *msg = inner_message(a, at);
    if (reason && *reason)
        msg = kg_arena_sprintf(a, "%s: %s", msg, reason);
    /* apierrors.NewForbidden(GroupResource{group, resource}, name, err) */
    const char *group = s_or_empty(at->api_group), *resource = s_or_empty(at->resource);
    const char *name = s_or_empty(at->name);
    if (!*group && !*resource)
        return kg_arena_sprintf(a, "forbidden: %s", msg);
    const char *gr = *group ? kg_arena_sprintf(a, "%s.%s", resource, group) : resource;
    if (!*name)
        return kg_arena_sprintf(a, "%s is forbidden: %s", gr, msg);
    return kg_arena_sprintf(a, "%s %s is forbidden: %s", gr, goquote(a, name), msg);
}

void kg_authz_forbidden_status(kg_buf *out, kg_arena *a, const kg_authz_attributes *at, const char *reason)
{
    const char *msg = kg_authz_forbidden_message(a, at, reason);
    kg_buf_puts(out, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":");
    kg_json_write_string(out, msg, strlen(msg), 0);
    kg_buf_puts(out, ",\"reason\":\"Forbidden\",\"details\":{");
    bool first = true;
    const char *name = s_or_empty(at->name), *group = s_or_empty(at->api_group), *kind = s_or_empty(at->resource);
    if (*name) {
        kg_buf_puts(out, "\"name\":");
        kg_json_write_string(out, name, strlen(name), 0);
        first = false;
    }
    if (*group) {
        kg_buf_puts(out, first ? "\"group\":" : ",\"group\":");
        kg_json_write_string(out, group, strlen(group), 0);
        first = false;
    }
    if (*kind) {
        kg_buf_puts(out, first ? "\"kind\":" : ",\"kind\":");
        kg_json_write_string(out, kind, strlen(kind), 0);
    }
    kg_buf_puts(out, "},\"code\":403}");
}
