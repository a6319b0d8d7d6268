/* Rule coverage and the escalation message (see escalation.h). */
#include "auth/rbac/escalation.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

/* One atom of a requested rule. */
typedef struct atom {
    const char *group, *resource, *verb, *name, *url; /* resource atoms: url NULL; URL atoms: group/resource NULL */
} atom;

static bool has(const kg_rbac_strs *s, const char *v)
{
    if (s->star)
        return true;
    for (uint32_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], v))
            return true;
    return false;
}

static bool has_exact(const kg_rbac_strs *s, const char *v)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], v))
            return true;
    return false;
}

static bool covers(const kg_rbac_rule *o, const atom *t)
{
    if (!has(&o->verbs, t->verb))
        return false;
    if (t->url) {
        for (uint32_t i = 0; i < o->urls.n; i++) {
            const char *u = o->urls.v[i];
            size_t n = strlen(u);
            if (!strcmp(u, "*") || !strcmp(u, t->url))
                return true;
            if (n && u[n - 1] == '*') {
                while (n && u[n - 1] == '*')
                    n--;
                if (!strncmp(u, t->url, n))
                    return true;
            }
        }
        return false;
    }
    if (!has(&o->api_groups, t->group))
        return false;
    if (!o->resources.star && !has_exact(&o->resources, t->resource)) {
        const char *slash = strchr(t->resource, '/');
        if (!slash)
            return false;
        bool sub = false;
        for (uint32_t i = 0; i < o->resources.n && !sub; i++)
            sub =
                o->resources.v[i][0] == '*' && o->resources.v[i][1] == '/' && !strcmp(o->resources.v[i] + 2, slash + 1);
        if (!sub)
            return false;
    }
    if (o->resource_names.n)
        return t->name && has_exact(&o->resource_names, t->name);
    return true;
}

/* Go's %q of a []string: ["a" "b"] */
static void put_q(kg_buf *b, const char *const *v, size_t n)
{
    kg_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            kg_buf_putc(b, ' ');
        kg_buf_putc(b, '"');
        for (const char *p = v[i]; *p; p++) {
            if (*p == '"' || *p == '\\')
                kg_buf_putc(b, '\\');
            kg_buf_putc(b, *p);
        }
        kg_buf_putc(b, '"');
    }
    kg_buf_putc(b, ']');
}

typedef struct compact {
    atom key; /* verb unused */
    const char **verbs;
    size_t nverbs;
} compact;

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

const char *kg_rbac_missing_rules(kg_arena *a, const kg_rbac_rule *owner, size_t nowner, const kg_rbac_rule *want,
                                  size_t nwant)
{
    /* break down, keep the uncovered atoms, compacted per group/resource/name (URL atoms stay one each) */
    size_t cap = 16, n = 0;
    compact *out = kg_arena_alloc(a, cap * sizeof *out);
    for (size_t r = 0; r < nwant; r++) {
        const kg_rbac_rule *w = &want[r];
        size_t nn = w->resource_names.n ? w->resource_names.n : 1;
        size_t total = (size_t)w->api_groups.n * w->resources.n * w->verbs.n * nn + (size_t)w->urls.n * w->verbs.n;
        for (size_t k = 0; k < total; k++) {
            atom t = {0};
            size_t res_atoms = (size_t)w->api_groups.n * w->resources.n * w->verbs.n * nn;
            if (k < res_atoms) {
                size_t x = k;
                t.name = w->resource_names.n ? w->resource_names.v[x % nn] : NULL;
                x /= nn;
                t.verb = w->verbs.v[x % w->verbs.n];
                x /= w->verbs.n;
                t.resource = w->resources.v[x % w->resources.n];
                x /= w->resources.n;
                t.group = w->api_groups.v[x];
            } else {
                size_t x = k - res_atoms;
                t.verb = w->verbs.v[x % w->verbs.n];
                t.url = w->urls.v[x / w->verbs.n];
            }
            bool ok = false;
            for (size_t o = 0; o < nowner && !ok; o++)
                ok = covers(&owner[o], &t);
            if (ok)
                continue;
            size_t j = 0;
            for (; j < n && !t.url; j++) {
                const atom *q = &out[j].key;
                if (!q->url && !strcmp(q->group, t.group) && !strcmp(q->resource, t.resource) &&
                    ((!q->name && !t.name) || (q->name && t.name && !strcmp(q->name, t.name))))
                    break;
            }
            if (t.url || j == n) {
                if (n == cap) {
                    out = kg_arena_realloc(a, out, cap * sizeof *out, 2 * cap * sizeof *out);
                    cap *= 2;
                }
                j = n++;
                out[j] = (compact){.key = t, .verbs = kg_arena_alloc(a, 64 * sizeof(char *))};
            }
            if (out[j].nverbs < 64)
                out[j].verbs[out[j].nverbs++] = t.verb;
        }
    }
    if (!n)
        return NULL;
    const char **lines = kg_arena_alloc(a, n * sizeof *lines);
    for (size_t i = 0; i < n; i++) {
        kg_buf b = KG_BUF_INIT;
        const atom *t = &out[i].key;
        kg_buf_putc(&b, '{');
        if (t->url) {
            kg_buf_puts(&b, "NonResourceURLs:");
            put_q(&b, &t->url, 1);
        } else {
            kg_buf_puts(&b, "APIGroups:");
            put_q(&b, &t->group, 1);
            kg_buf_puts(&b, ", Resources:");
            put_q(&b, &t->resource, 1);
            if (t->name) {
                kg_buf_puts(&b, ", ResourceNames:");
                put_q(&b, &t->name, 1);
            }
        }
        kg_buf_puts(&b, ", Verbs:");
        put_q(&b, out[i].verbs, out[i].nverbs);
        kg_buf_putc(&b, '}');
        lines[i] = kg_arena_strndup(a, b.data, b.len);
        kg_buf_free(&b);
    }
    qsort(lines, n, sizeof *lines, cmp_str);
    kg_buf b = KG_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (i && !strcmp(lines[i], lines[i - 1]))
            continue;
        if (b.len)
            kg_buf_putc(&b, '\n');
        kg_buf_puts(&b, lines[i]);
    }
    const char *r = kg_arena_strndup(a, b.data, b.len);
    kg_buf_free(&b);
    return r;
}

const char *kg_rbac_escalation_message(kg_arena *a, const kg_user_info *user, const char *missing, const char *errors)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_printf(&b, "user \"%s\" (groups=", user && user->name ? user->name : "");
    put_q(&b, user ? user->groups : NULL, user ? user->ngroups : 0);
    kg_buf_printf(&b, ") is attempting to grant RBAC permissions not currently held:\n%s", missing ? missing : "");
    if (errors && *errors)
        kg_buf_printf(&b, "; resolution errors: [%s]", errors);
    const char *r = kg_arena_strndup(a, b.data, b.len);
    kg_buf_free(&b);
    return r;
}
