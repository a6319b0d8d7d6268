/* Impersonation headers (see impersonation.h). */
#include "server/impersonation.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "server/authz.h"

#define EXTRA_PREFIX "Impersonate-Extra-"
#define SA_PREFIX "system:serviceaccount:"

typedef struct imp_req {
    const char *kind; /* ServiceAccount, User, Group, UserExtra, UID (v1.ObjectReference Kind) */
    const char *ns, *name, *field_path;
} imp_req;

/* serviceaccount.SplitUsername: "system:serviceaccount:<ns>:<name>" with valid names. */
static bool dns_label_ok(const char *s, size_t n, size_t max)
{
    if (!n || n > max || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-' || (max > 63 && s[i] == '.')))
            return false;
    return true;
}

static bool split_sa(kg_arena *a, const char *user, const char **ns, const char **name)
{
    if (strncmp(user, SA_PREFIX, strlen(SA_PREFIX)))
        return false;
    const char *rest = user + strlen(SA_PREFIX);
    const char *colon = strchr(rest, ':');
    if (!colon || strchr(colon + 1, ':'))
        return false;
    size_t nl = (size_t)(colon - rest);
    if (!dns_label_ok(rest, nl, 63) || !dns_label_ok(colon + 1, strlen(colon + 1), 253))
        return false;
    *ns = kg_arena_strndup(a, rest, nl);
    *name = colon + 1;
    return true;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* unescapeExtraKey(strings.ToLower(suffix)): a bad escape keeps the key as it is */
static const char *extra_key(kg_arena *a, const char *suffix)
{
    size_t n = strlen(suffix);
    char *low = kg_arena_strndup(a, suffix, n);
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)low[i]);
    char *out = kg_arena_alloc(a, n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (low[i] == '%') {
            if (i + 2 >= n) /* fewer than two characters left: url.PathUnescape fails */
                return low;
            int hi = hexval(low[i + 1]), lo = hexval(low[i + 2]);
            if (hi < 0 || lo < 0)
                return low;
            out[o++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            out[o++] = low[i];
        }
    }
    out[o] = 0;
    return out;
}

/* Go's %v of a v1.ObjectReference: {Kind Namespace Name UID APIVersion ResourceVersion FieldPath} */
static void print_ref(kg_buf *b, const imp_req *r)
{
    kg_buf_printf(b, "{%s %s %s    %s}", r->kind, r->ns ? r->ns : "", r->name ? r->name : "",
                  r->field_path ? r->field_path : "");
}

kg_impersonation_result kg_impersonate(const kg_authorizer *z, const kg_http_header *headers, size_t nheaders,
                                       const char *raw_uri, kg_arena *a, kg_user *user, const char **body)
{
    const char *req_user = NULL, *req_uid = NULL;
    size_t ngroups = 0, nextra = 0;
    for (size_t i = 0; i < nheaders; i++) {
        const char *h = headers[i].name;
        if (!strcasecmp(h, "Impersonate-User") && !req_user)
            req_user = headers[i].value;
        else if (!strcasecmp(h, "Impersonate-Uid") && !req_uid)
            req_uid = headers[i].value;
        else if (!strcasecmp(h, "Impersonate-Group"))
            ngroups++;
        else if (!strncasecmp(h, EXTRA_PREFIX, strlen(EXTRA_PREFIX)))
            nextra++;
    }
    bool has_user = req_user && *req_user, has_uid = req_uid && *req_uid;
    if (!has_user && !ngroups && !nextra && !has_uid)
        return KG_IMPERSONATION_NONE;

    /* buildImpersonationRequests: user, groups, extras, uid */
    imp_req *reqs = kg_arena_calloc(a, (2 + ngroups + nextra) * sizeof *reqs);
    size_t n = 0;
    if (has_user) {
        const char *ns, *name;
        if (split_sa(a, req_user, &ns, &name))
            reqs[n++] = (imp_req){"ServiceAccount", ns, name, NULL};
        else
            reqs[n++] = (imp_req){"User", NULL, req_user, NULL};
    }
    for (size_t i = 0; i < nheaders; i++)
        if (!strcasecmp(headers[i].name, "Impersonate-Group"))
            reqs[n++] = (imp_req){"Group", NULL, headers[i].value, NULL};
    for (size_t i = 0; i < nheaders; i++)
        if (!strncasecmp(headers[i].name, EXTRA_PREFIX, strlen(EXTRA_PREFIX)))
            reqs[n++] =
                (imp_req){"UserExtra", NULL, headers[i].value, extra_key(a, headers[i].name + strlen(EXTRA_PREFIX))};
    if (has_uid)
        reqs[n++] = (imp_req){"UID", NULL, req_uid, NULL};
    if (!has_user) {
        kg_buf b = KG_BUF_INIT;
        kg_buf_printf(&b, "Internal Server Error: \"%s\": requested [", raw_uri);
        for (size_t i = 0; i < n; i++) {
            if (i)
                kg_buf_putc(&b, ' ');
            print_ref(&b, &reqs[i]);
        }
        kg_buf_puts(&b, "] without impersonating a user");
        *body = kg_arena_strndup(a, b.data, b.len);
        kg_buf_free(&b);
        return KG_IMPERSONATION_ERROR;
    }

    const char *username = NULL, *uid = "";
    const char **groups = kg_arena_calloc(a, (ngroups + 3) * sizeof *groups);
    size_t ng = 0;
    kg_user_extra *extra = nextra ? kg_arena_calloc(a, nextra * sizeof *extra) : NULL;
    size_t ne = 0;
    const char *sa_ns = NULL;
    for (size_t i = 0; i < n; i++) {
        const imp_req *r = &reqs[i];
        kg_authz_attributes at = {.user = user,
                                  .verb = "impersonate",
                                  .resource_request = true,
                                  .namespace_ = r->ns ? r->ns : "",
                                  .name = r->name,
                                  .api_group = "",
                                  .api_version = "v1",
                                  .subresource = ""};
        if (!strcmp(r->kind, "ServiceAccount")) {
            at.resource = "serviceaccounts";
            username = kg_arena_sprintf(a, SA_PREFIX "%s:%s", r->ns, r->name);
            sa_ns = r->ns;
        } else if (!strcmp(r->kind, "User")) {
            at.resource = "users";
            username = r->name;
        } else if (!strcmp(r->kind, "Group")) {
            at.resource = "groups";
            groups[ng++] = r->name;
        } else if (!strcmp(r->kind, "UserExtra")) {
            at.api_group = "authentication.k8s.io";
            at.resource = "userextras";
            at.subresource = r->field_path;
            size_t k = 0;
            while (k < ne && strcmp(extra[k].key, r->field_path))
                k++;
            if (k == ne)
                extra[ne++] =
                    (kg_user_extra){.key = r->field_path, .values = kg_arena_calloc(a, nextra * sizeof(char *))};
            ((const char **)extra[k].values)[extra[k].nvalues++] = r->name;
        } else {
            at.api_group = "authentication.k8s.io";
            at.resource = "uids";
            uid = r->name;
        }
        const char *reason = NULL;
        KG_ERROR_DECL(err);
        if (kg_authz_authorize(z, &at, a, &reason, &err) != KG_AUTHZ_ALLOW) {
            kg_buf b = KG_BUF_INIT;
            kg_authz_forbidden_status(&b, a, &at, reason);
            *body = kg_arena_strndup(a, b.data, b.len);
            kg_buf_free(&b);
            return KG_IMPERSONATION_FORBIDDEN;
        }
    }
    if (sa_ns && !ngroups) {
        groups[ng++] = KG_GROUP_SERVICEACCOUNTS;
        groups[ng++] = kg_arena_sprintf(a, KG_GROUP_SERVICEACCOUNTS ":%s", sa_ns);
    }
    bool anonymous = !strcmp(username, KG_USER_ANONYMOUS), found = false;
    for (size_t i = 0; i < ng; i++)
        if (anonymous ? !strcmp(groups[i], KG_GROUP_UNAUTHENTICATED)
                      : !strcmp(groups[i], KG_GROUP_AUTHENTICATED) || !strcmp(groups[i], KG_GROUP_UNAUTHENTICATED))
            found = true;
    if (!found)
        groups[ng++] = anonymous ? KG_GROUP_UNAUTHENTICATED : KG_GROUP_AUTHENTICATED;
    *user = (kg_user){.name = username, .uid = uid, .groups = groups, .ngroups = ng, .extra = extra, .nextra = ne};
    return KG_IMPERSONATION_OK;
}
