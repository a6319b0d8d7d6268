/* The authorizer interface's constructors: privileged groups and the union. */
#include "auth/authorizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kg_authorizer_free(kg_authorizer *z)
{
    if (z && z->destroy)
        z->destroy(z->ctx);
}

/* ---- privileged groups ---- */

typedef struct priv_groups {
    kg_authorizer base;
    size_t n;
    char **groups;
} priv_groups;

static kg_authz_decision priv_authorize(void *ctx, const kg_authz_attributes *attrs, kg_arena *a, const char **reason,
                                        kg_error *err)
{
    (void)a;
    (void)reason;
    (void)err;
    const priv_groups *p = ctx;
    for (size_t i = 0; i < p->n; i++)
        if (kg_user_in_group(attrs->user, p->groups[i]))
            return KG_AUTHZ_ALLOW;
    return KG_AUTHZ_NO_OPINION;
}

static void priv_destroy(void *ctx)
{
    priv_groups *p = ctx;
    for (size_t i = 0; i < p->n; i++)
        free(p->groups[i]);
    free(p->groups);
    free(p);
}

kg_authorizer *kg_authz_new_privileged_groups(const char *const *groups, size_t ngroups)
{
    priv_groups *p = calloc(1, sizeof(*p));
    if (!p)
        abort();
    p->base = (kg_authorizer){.ctx = p, .authorize = priv_authorize, .destroy = priv_destroy};
    p->groups = calloc(ngroups ? ngroups : 1, sizeof(char *));
    if (!p->groups)
        abort();
    for (size_t i = 0; i < ngroups; i++)
        if (!(p->groups[p->n++] = strdup(groups[i])))
            abort();
    return &p->base;
}

/* ---- AlwaysAllow / AlwaysDeny ---- */

static kg_authz_decision always_allow(void *ctx, const kg_authz_attributes *attrs, kg_arena *a, const char **reason,
                                      kg_error *err)
{
    (void)ctx, (void)attrs, (void)a, (void)reason, (void)err;
    return KG_AUTHZ_ALLOW;
}

static kg_authz_decision always_deny(void *ctx, const kg_authz_attributes *attrs, kg_arena *a, const char **reason,
                                     kg_error *err)
{
    (void)ctx, (void)attrs, (void)a, (void)err;
    *reason = "Everything is forbidden.";
    return KG_AUTHZ_NO_OPINION;
}

static kg_authorizer *new_simple(kg_authz_decision (*fn)(void *, const kg_authz_attributes *, kg_arena *, const char **,
                                                         kg_error *))
{
    kg_authorizer *z = calloc(1, sizeof *z);
    if (!z)
        abort();
    *z = (kg_authorizer){.ctx = z, .authorize = fn, .destroy = free};
    return z;
}

kg_authorizer *kg_authz_new_always_allow(void)
{
    return new_simple(always_allow);
}
kg_authorizer *kg_authz_new_always_deny(void)
{
    return new_simple(always_deny);
}

/* ---- union ---- */

typedef struct union_authz {
    kg_authorizer base;
    kg_authorizer **m;
    size_t n;
} union_authz;

static kg_authz_decision union_authorize(void *ctx, const kg_authz_attributes *attrs, kg_arena *a, const char **reason,
                                         kg_error *err)
{
    const union_authz *u = ctx;
    const char *joined = NULL;
    KG_ERROR_DECL(all);
    for (size_t i = 0; i < u->n; i++) {
        const char *r = NULL;
        KG_ERROR_DECL(e);
        kg_authz_decision d = kg_authz_authorize(u->m[i], attrs, a, &r, &e);
        if (d == KG_AUTHZ_ALLOW || d == KG_AUTHZ_DENY) {
            *reason = r;
            if (e.code && err)
                *err = e;
            return d;
        }
        if (r && *r)
            joined = joined ? kg_arena_sprintf(a, "%s\n%s", joined, r) : r;
        if (e.code) {
            if (!all.code)
                all = e;
            else {
                KG_ERROR_DECL(both); /* all.msg is an argument: format into another buffer */
                kg_err_set(&both, all.code, "%.500s, %.500s", all.msg, e.msg);
                all = both;
            }
        }
    }
    *reason = joined;
    if (all.code && err)
        *err = all;
    return KG_AUTHZ_NO_OPINION;
}

static void union_destroy(void *ctx)
{
    union_authz *u = ctx;
    for (size_t i = 0; i < u->n; i++)
        kg_authorizer_free(u->m[i]);
    free(u->m);
    free(u);
}

kg_authorizer *kg_authz_new_union(kg_authorizer **members, size_t n)
{
    union_authz *u = calloc(1, sizeof(*u));
    if (!u)
        abort();
    u->base = (kg_authorizer){.ctx = u, .authorize = union_authorize, .destroy = union_destroy};
    u->m = calloc(n ? n : 1, sizeof(*u->m));
    if (!u->m)
        abort();
    if (n)
        memcpy(u->m, members, n * sizeof(*u->m));
    u->n = n;
    return &u->base;
}
