/* A table-driven authorizer for plugin tests: allows a request when one of its rules matches
 * "<user> <verb> <group> <resource>[/<subresource>] <namespace|-> <name|->", where any field may be "*". Every
 * question is recorded (the last one, and a count), so tests can check what a plugin asked. No opinion otherwise,
 * with reason "no rule". */
#ifndef KG_TEST_FAKE_AUTHORIZER_H
#define KG_TEST_FAKE_AUTHORIZER_H

#include <stdio.h>
#include <string.h>

#include "admission/services.h"

typedef struct fake_authz {
    const char *const *rules; /* NULL-terminated */
    int asked;
    char last[512];
    kg_authorizer z;
} fake_authz;

static bool fake_field(const char *pat, const char *v)
{
    return !strcmp(pat, "*") || !strcmp(pat, v);
}

static kg_authz_decision fake_authorize(void *ctx, const kg_authz_attributes *at, kg_arena *a, const char **reason,
                                        kg_error *err)
{
    (void)a, (void)err;
    fake_authz *f = ctx;
    char res[256];
    snprintf(res, sizeof res, "%s%s%s", at->resource ? at->resource : "",
             at->subresource && *at->subresource ? "/" : "", at->subresource ? at->subresource : "");
    const char *ns = at->namespace_ && *at->namespace_ ? at->namespace_ : "-";
    const char *name = at->name && *at->name ? at->name : "-";
    const char *user = at->user && at->user->name ? at->user->name : "";
    const char *group = at->api_group && *at->api_group ? at->api_group : "core";
    snprintf(f->last, sizeof f->last, "%s %s %s %s %s %s", user, at->verb, group, res, ns, name);
    f->asked++;
    for (const char *const *r = f->rules; r && *r; r++) {
        char p[6][128];
        if (sscanf(*r, "%127s %127s %127s %127s %127s %127s", p[0], p[1], p[2], p[3], p[4], p[5]) != 6)
            continue;
        if (fake_field(p[0], user) && fake_field(p[1], at->verb) && fake_field(p[2], group) && fake_field(p[3], res) &&
            fake_field(p[4], ns) && fake_field(p[5], name))
            return KG_AUTHZ_ALLOW;
    }
    *reason = "no rule";
    return KG_AUTHZ_NO_OPINION;
}

static inline void fake_authz_init(fake_authz *f, const char *const *rules)
{
    memset(f, 0, sizeof *f);
    f->rules = rules;
    f->z = (kg_authorizer){.ctx = f, .authorize = fake_authorize};
}

#endif
