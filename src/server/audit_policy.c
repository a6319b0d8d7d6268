/* The audit policy: parsing and rule matching (see audit_policy.h). */
#include "server/audit_policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/str.h"
#include "json/json.h"
#include "yaml/yaml.h"

typedef struct strs {
    const char **v;
    size_t n;
} strs;

typedef struct group_resources {
    const char *group;
    strs resources, names;
} group_resources;

typedef struct rule {
    kg_audit_level level;
    strs users, groups, verbs, namespaces, urls;
    group_resources *res;
    size_t nres;
    unsigned omit_stages;
    int omit_managed_fields; /* -1: unset */
} rule;

struct kg_audit_policy {
    kg_arena arena;
    rule *rules;
    size_t nrules;
    unsigned omit_stages;
    bool omit_managed_fields;
};

static const char *const level_names[] = {"None", "Metadata", "Request", "RequestResponse"};

const char *kg_audit_level_name(kg_audit_level l)
{
    return (unsigned)l < 4 ? level_names[l] : "None";
}

static const char *const stage_names[] = {"RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"};

const char *kg_audit_stage_name(unsigned stage)
{
    for (unsigned i = 0; i < 4; i++)
        if (stage == 1u << i)
            return stage_names[i];
    return "";
}

static bool get_strs(kg_audit_policy *p, const kg_json *obj, const char *key, strs *out, const char *where,
                     kg_error *err)
{
    const kg_json *v = kg_json_get(obj, key);
    out->v = NULL;
    out->n = 0;
    if (!v || v->type == KG_JSON_NULL)
        return true;
    if (v->type != KG_JSON_ARRAY)
        return kg_err_set(err, KG_EINVAL, "%s.%s: expected a list of strings", where, key);
    out->v = kg_arena_alloc(&p->arena, (v->len ? v->len : 1) * sizeof(char *));
    for (size_t i = 0; i < v->len; i++) {
        const kg_json *s = kg_json_at(v, i);
        if (!s || s->type != KG_JSON_STRING)
            return kg_err_set(err, KG_EINVAL, "%s.%s[%zu]: expected a string", where, key, i);
        out->v[out->n++] = kg_arena_strdup(&p->arena, s->u.s);
    }
    return true;
}

static bool get_stages(const kg_json *obj, const char *where, unsigned *out, kg_error *err)
{
    const kg_json *v = kg_json_get(obj, "omitStages");
    *out = 0;
    if (!v || v->type == KG_JSON_NULL)
        return true;
    if (v->type != KG_JSON_ARRAY)
        return kg_err_set(err, KG_EINVAL, "%s.omitStages: expected a list of stages", where);
    for (size_t i = 0; i < v->len; i++) {
        const kg_json *e = kg_json_at(v, i);
        const char *s = e && e->type == KG_JSON_STRING ? e->u.s : "";
        unsigned k = 0;
        while (k < 4 && strcmp(s, stage_names[k]) != 0)
            k++;
        if (k == 4)
            return kg_err_set(err, KG_EINVAL,
                              "%s.omitStages[%zu]: Unsupported value: \"%s\": supported values: \"RequestReceived\", "
                              "\"ResponseStarted\", \"ResponseComplete\", \"Panic\"",
                              where, i, s);
        *out |= 1u << k;
    }
    return true;
}

kg_audit_policy *kg_audit_policy_parse(const char *text, size_t len, kg_error *err)
{
    kg_audit_policy *p = calloc(1, sizeof(*p));
    if (!p)
        abort();
    kg_arena_init(&p->arena, 0);
    kg_arena tmp;
    kg_arena_init(&tmp, 0);
    const kg_json *doc = kg_yaml_or_json_parse(&tmp, text, len, err);
    if (!doc)
        goto fail;
    if (doc->type != KG_JSON_OBJECT) {
        kg_err_set(err, KG_EINVAL, "policy: expected an object");
        goto fail;
    }
    const char *av = kg_json_get_str(doc, "apiVersion"), *kind = kg_json_get_str(doc, "kind");
    if (!av || strcmp(av, "audit.k8s.io/v1") != 0 || !kind || strcmp(kind, "Policy") != 0) {
        kg_err_set(err, KG_EINVAL, "failed decoding: no kind \"%s\" is registered for version \"%s\"", kind ? kind : "",
                   av ? av : "");
        goto fail;
    }
    if (!get_stages(doc, "policy", &p->omit_stages, err))
        goto fail;
    const kg_json *omf = kg_json_get(doc, "omitManagedFields");
    p->omit_managed_fields = omf && omf->type == KG_JSON_BOOL && omf->b;
    const kg_json *rules = kg_json_get(doc, "rules");
    size_t n = rules && rules->type == KG_JSON_ARRAY ? rules->len : 0;
    p->rules = kg_arena_calloc(&p->arena, (n ? n : 1) * sizeof(rule));
    for (size_t i = 0; i < n; i++) {
        const kg_json *r = kg_json_at(rules, i);
        rule *ru = &p->rules[p->nrules++];
        char where[32];
        snprintf(where, sizeof where, "rules[%zu]", i);
        if (!r || r->type != KG_JSON_OBJECT) {
            kg_err_set(err, KG_EINVAL, "%s: expected an object", where);
            goto fail;
        }
        const char *lv = kg_json_get_str(r, "level");
        unsigned k = 0;
        while (lv && k < 4 && strcmp(lv, level_names[k]) != 0)
            k++;
        if (!lv || k == 4) {
            kg_err_set(err, KG_EINVAL,
                       lv ? "%s.level: Unsupported value: \"%s\": supported values: \"None\", \"Metadata\", "
                            "\"Request\", \"RequestResponse\""
                          : "%s.level: Required value%s",
                       where, lv ? lv : "");
            goto fail;
        }
        ru->level = (kg_audit_level)k;
        if (!get_strs(p, r, "users", &ru->users, where, err) ||
            !get_strs(p, r, "userGroups", &ru->groups, where, err) ||
            !get_strs(p, r, "verbs", &ru->verbs, where, err) ||
            !get_strs(p, r, "namespaces", &ru->namespaces, where, err) ||
            !get_strs(p, r, "nonResourceURLs", &ru->urls, where, err) || !get_stages(r, where, &ru->omit_stages, err))
            goto fail;
        const kg_json *m = kg_json_get(r, "omitManagedFields");
        ru->omit_managed_fields = m && m->type == KG_JSON_BOOL ? m->b : -1;
        const kg_json *res = kg_json_get(r, "resources");
        if (res && res->type == KG_JSON_ARRAY) {
            ru->res = kg_arena_calloc(&p->arena, (res->len ? res->len : 1) * sizeof(group_resources));
            for (size_t j = 0; j < res->len; j++) {
                const kg_json *g = kg_json_at(res, j);
                char w2[64];
                snprintf(w2, sizeof w2, "%s.resources[%zu]", where, j);
                group_resources *gr = &ru->res[ru->nres++];
                const char *grp = kg_json_get_str(g, "group");
                gr->group = kg_arena_strdup(&p->arena, grp ? grp : "");
                if (!get_strs(p, g, "resources", &gr->resources, w2, err) ||
                    !get_strs(p, g, "resourceNames", &gr->names, w2, err))
                    goto fail;
            }
        }
        /* ValidatePolicy: nonResourceURLs cannot be combined with resources or namespaces */
        if (ru->urls.n && (ru->nres || ru->namespaces.n)) {
            kg_err_set(err, KG_EINVAL,
                       "%s.nonResourceURLs: Invalid value: %s: rules cannot apply to both regular resources and "
                       "non-resource URLs",
                       where, "[]string");
            goto fail;
        }
    }
    kg_arena_free(&tmp);
    return p;
fail:
    kg_arena_free(&tmp);
    kg_audit_policy_free(p);
    return NULL;
}

kg_audit_policy *kg_audit_policy_load(const char *path, kg_error *err)
{
    size_t len = 0;
    char *data = kg_read_file(path, &len);
    if (!data) {
        char eb[128];
        snprintf(eb, sizeof eb, "%s", strerror(errno));
        if (eb[0] >= 'A' && eb[0] <= 'Z') /* Go prints OS errors in lower case */
            eb[0] = (char)(eb[0] - 'A' + 'a');
        kg_err_set(err, KG_EIO, "loading audit policy file: failed to read file path \"%s\": open %s: %s", path, path,
                   eb);
        return NULL;
    }
    kg_audit_policy *p = kg_audit_policy_parse(data, len, err);
    free(data);
    if (!p)
        kg_err_prefix(err, "loading audit policy file: %s", path);
    return p;
}

void kg_audit_policy_free(kg_audit_policy *p)
{
    if (!p)
        return;
    kg_arena_free(&p->arena);
    free(p);
}

size_t kg_audit_policy_nrules(const kg_audit_policy *p)
{
    return p->nrules;
}

static bool has(const strs *s, const char *v)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], v ? v : ""))
            return true;
    return false;
}

static bool path_matches(const char *path, const char *spec)
{
    if (!strcmp(spec, "*") || !strcmp(spec, path))
        return true;
    size_t n = strlen(spec);
    if (n && spec[n - 1] == '*') {
        while (n && spec[n - 1] == '*') /* TrimRight(spec, "*") */
            n--;
        return !strncmp(path, spec, n);
    }
    return false;
}

static bool matches_resource(const rule *r, const kg_audit_request *q)
{
    if (!q->is_resource)
        return false;
    if (r->namespaces.n && !has(&r->namespaces, q->ns))
        return false;
    if (!r->nres)
        return true;
    const char *res = q->resource ? q->resource : "", *sub = q->subresource ? q->subresource : "";
    size_t rl = strlen(res);
    for (size_t i = 0; i < r->nres; i++) {
        const group_resources *g = &r->res[i];
        if (strcmp(g->group, q->api_group ? q->api_group : ""))
            continue;
        if (!g->resources.n)
            return true;
        for (size_t j = 0; j < g->resources.n; j++) {
            if (g->names.n && !has(&g->names, q->name))
                continue;
            const char *spec = g->resources.v[j];
            size_t sl = strlen(spec);
            if (!strcmp(spec, "*"))
                return true;
            /* "resource" or "resource/subresource" */
            if (*sub ? (sl == rl + 1 + strlen(sub) && !strncmp(spec, res, rl) && spec[rl] == '/' &&
                        !strcmp(spec + rl + 1, sub))
                     : !strcmp(spec, res))
                return true;
            /* "*\/subresource": TrimLeft(res, "*\/") */
            if (*sub && !strncmp(spec, "*/", 2)) {
                const char *t = spec;
                while (*t == '*' || *t == '/')
                    t++;
                if (!strcmp(t, sub))
                    return true;
            }
            /* "resource/\*": TrimRight(res, "/\*") */
            if (sl >= 2 && !strcmp(spec + sl - 2, "/*")) {
                size_t k = sl;
                while (k && (spec[k - 1] == '*' || spec[k - 1] == '/'))
                    k--;
                if (k == rl && !strncmp(spec, res, rl))
                    return true;
            }
        }
    }
    return false;
}

static bool rule_matches(const rule *r, const kg_audit_request *q)
{
    if (r->users.n && (!q->user || !has(&r->users, q->user->name)))
        return false;
    if (r->groups.n) {
        bool m = false;
        for (size_t i = 0; q->user && i < q->user->ngroups && !m; i++)
            m = has(&r->groups, q->user->groups[i]);
        if (!m)
            return false;
    }
    if (r->verbs.n && !has(&r->verbs, q->verb))
        return false;
    if (r->namespaces.n || r->nres)
        return matches_resource(r, q);
    if (r->urls.n) {
        if (q->is_resource)
            return false;
        for (size_t i = 0; i < r->urls.n; i++)
            if (path_matches(q->path ? q->path : "", r->urls.v[i]))
                return true;
        return false;
    }
    return true;
}

kg_audit_decision kg_audit_policy_evaluate(const kg_audit_policy *p, const kg_audit_request *q)
{
    kg_audit_decision d = {KG_AUDIT_NONE, p ? p->omit_stages : 0, p ? p->omit_managed_fields : false};
    for (size_t i = 0; p && i < p->nrules; i++) {
        const rule *r = &p->rules[i];
        if (rule_matches(r, q)) {
            d.level = r->level;
            d.omit_stages |= r->omit_stages;
            if (r->omit_managed_fields >= 0)
                d.omit_managed_fields = r->omit_managed_fields;
            return d;
        }
    }
    return d;
}
