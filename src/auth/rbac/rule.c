/* Compiled PolicyRules and upstream's matching (see rule.h). */
#include "auth/rbac/rule.h"

#include <string.h>

#include "base/hash.h"

static const char *nz(const char *s)
{
    return s ? s : "";
}

static void compile_strs(kg_arena *a, const kg_json *arr, kg_rbac_strs *out)
{
    memset(out, 0, sizeof *out);
    if (!kg_json_is(arr, KG_JSON_ARRAY) || !arr->len)
        return;
    out->v = kg_arena_alloc(a, arr->len * sizeof(char *));
    for (uint32_t i = 0; i < arr->len; i++) {
        const kg_json *s = arr->u.items[i];
        if (!kg_json_is(s, KG_JSON_STRING))
            continue;
        out->v[out->n++] = kg_arena_strndup(a, s->u.s, s->len);
        if (!strcmp(s->u.s, "*"))
            out->star = true;
    }
}

static const char *const known_verbs[] = {
    "get",         "list", "watch",    "create",  "update", "patch",  "delete", "deletecollection",
    "impersonate", "bind", "escalate", "approve", "sign",   "attest", "use",    "proxy"};

static uint32_t verb_bit(const char *v)
{
    for (size_t i = 0; i < sizeof known_verbs / sizeof known_verbs[0]; i++)
        if (!strcmp(v, known_verbs[i]))
            return 1u << i;
    return KG_RBAC_VERB_OTHER;
}

static uint64_t bloom_bit(const char *s, size_t n)
{
    return 1ull << (kg_fnv1a64(s, n) & 63);
}

static void compute_filters(kg_rbac_rule *r)
{
    r->verb_mask = r->verbs.star ? ~0u : 0;
    for (uint32_t i = 0; i < r->verbs.n; i++)
        r->verb_mask |= verb_bit(r->verbs.v[i]);
    r->group_mask = r->api_groups.star ? ~0ull : 0;
    for (uint32_t i = 0; i < r->api_groups.n; i++)
        r->group_mask |= bloom_bit(r->api_groups.v[i], strlen(r->api_groups.v[i]));
    r->resource_mask = r->resources.star ? ~0ull : 0;
    r->any_sub_wildcard = false;
    for (uint32_t i = 0; i < r->resources.n; i++) {
        const char *e = r->resources.v[i];
        if (e[0] == '*' && e[1] == '/')
            r->any_sub_wildcard = true;
        const char *slash = strchr(e, '/');
        r->resource_mask |= bloom_bit(e, slash ? (size_t)(slash - e) : strlen(e));
    }
}

void kg_rbac_req_init(kg_rbac_req *q, const kg_authz_attributes *at)
{
    q->at = at;
    q->verb_bit = verb_bit(nz(at->verb));
    const char *g = nz(at->api_group), *res = nz(at->resource);
    q->group_bit = bloom_bit(g, strlen(g));
    q->resource_bit = bloom_bit(res, strlen(res));
}

bool kg_rbac_rule_allows_req(const kg_rbac_rule *r, const kg_rbac_req *q)
{
    if (!(r->verb_mask & q->verb_bit))
        return false;
    const kg_authz_attributes *at = q->at;
    if (at->resource_request) {
        if (!(r->group_mask & q->group_bit))
            return false;
        if (!(r->resource_mask & q->resource_bit) && !(r->any_sub_wildcard && at->subresource && *at->subresource))
            return false;
    }
    return kg_rbac_rule_allows(r, at);
}

void kg_rbac_rule_compile(kg_arena *a, const kg_json *rule, kg_rbac_rule *out)
{
    compile_strs(a, kg_json_get(rule, "verbs"), &out->verbs);
    compile_strs(a, kg_json_get(rule, "apiGroups"), &out->api_groups);
    compile_strs(a, kg_json_get(rule, "resources"), &out->resources);
    compile_strs(a, kg_json_get(rule, "resourceNames"), &out->resource_names);
    compile_strs(a, kg_json_get(rule, "nonResourceURLs"), &out->urls);
    compute_filters(out);
}

kg_rbac_rule *kg_rbac_rules_compile(kg_arena *a, const kg_json *rules, size_t *n)
{
    *n = 0;
    if (!kg_json_is(rules, KG_JSON_ARRAY) || !rules->len)
        return NULL;
    kg_rbac_rule *out = kg_arena_calloc(a, rules->len * sizeof *out);
    for (uint32_t i = 0; i < rules->len; i++)
        if (kg_json_is(rules->u.items[i], KG_JSON_OBJECT))
            kg_rbac_rule_compile(a, rules->u.items[i], &out[(*n)++]);
    return out;
}

static bool has(const kg_rbac_strs *s, const char *v)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], v))
            return true;
    return false;
}

bool kg_rbac_verb_matches(const kg_rbac_rule *r, const char *verb)
{
    return r->verbs.star || has(&r->verbs, nz(verb));
}

bool kg_rbac_api_group_matches(const kg_rbac_rule *r, const char *group)
{
    return r->api_groups.star || has(&r->api_groups, nz(group));
}

bool kg_rbac_resource_matches(const kg_rbac_rule *r, const char *resource, const char *subresource)
{
    if (r->resources.star)
        return true;
    resource = nz(resource);
    subresource = nz(subresource);
    size_t rl = strlen(resource);
    for (uint32_t i = 0; i < r->resources.n; i++) {
        const char *e = r->resources.v[i];
        if (!*subresource) {
            if (!strcmp(e, resource))
                return true;
            continue;
        }
        /* "resource/subresource" exactly, or "*\/subresource" */
        if (!strncmp(e, resource, rl) && e[rl] == '/' && !strcmp(e + rl + 1, subresource))
            return true;
        if (e[0] == '*' && e[1] == '/' && !strcmp(e + 2, subresource))
            return true;
    }
    return false;
}

bool kg_rbac_resource_name_matches(const kg_rbac_rule *r, const char *name)
{
    return r->resource_names.n == 0 || has(&r->resource_names, nz(name));
}

bool kg_rbac_url_matches(const kg_rbac_rule *r, const char *path)
{
    path = nz(path);
    for (uint32_t i = 0; i < r->urls.n; i++) {
        const char *u = r->urls.v[i];
        if (!strcmp(u, "*") || !strcmp(u, path))
            return true;
        size_t n = strlen(u);
        if (n && u[n - 1] == '*') { /* strings.TrimRight(ruleURL, "*") as a prefix */
            while (n && u[n - 1] == '*')
                n--;
            if (!strncmp(u, path, n))
                return true;
        }
    }
    return false;
}

bool kg_rbac_rule_allows(const kg_rbac_rule *r, const kg_authz_attributes *at)
{
    if (at->resource_request)
        return kg_rbac_verb_matches(r, at->verb) && kg_rbac_api_group_matches(r, at->api_group) &&
               kg_rbac_resource_matches(r, at->resource, at->subresource) && kg_rbac_resource_name_matches(r, at->name);
    return kg_rbac_verb_matches(r, at->verb) && kg_rbac_url_matches(r, at->path);
}

static void put_strs(kg_arena *a, kg_json *obj, const char *key, const kg_rbac_strs *s)
{
    if (!s->n)
        return;
    kg_json *arr = kg_json_new_array(a);
    for (uint32_t i = 0; i < s->n; i++)
        kg_json_array_append(a, arr, kg_json_new_str(a, s->v[i]));
    kg_json_set(a, obj, key, arr);
}

kg_json *kg_rbac_rule_to_json(kg_arena *a, const kg_rbac_rule *r)
{
    kg_json *o = kg_json_new_object(a);
    put_strs(a, o, "verbs", &r->verbs);
    put_strs(a, o, "apiGroups", &r->api_groups);
    put_strs(a, o, "resources", &r->resources);
    put_strs(a, o, "resourceNames", &r->resource_names);
    put_strs(a, o, "nonResourceURLs", &r->urls);
    return o;
}

static void copy_strs(kg_arena *a, const kg_rbac_strs *from, kg_rbac_strs *to)
{
    *to = *from;
    if (!from->n)
        return;
    to->v = kg_arena_alloc(a, from->n * sizeof(char *));
    for (uint32_t i = 0; i < from->n; i++)
        to->v[i] = kg_arena_strdup(a, from->v[i]);
}

void kg_rbac_rule_copy(kg_arena *a, const kg_rbac_rule *from, kg_rbac_rule *to)
{
    copy_strs(a, &from->verbs, &to->verbs);
    copy_strs(a, &from->api_groups, &to->api_groups);
    copy_strs(a, &from->resources, &to->resources);
    copy_strs(a, &from->resource_names, &to->resource_names);
    copy_strs(a, &from->urls, &to->urls);
    to->verb_mask = from->verb_mask;
    to->group_mask = from->group_mask;
    to->resource_mask = from->resource_mask;
    to->any_sub_wildcard = from->any_sub_wildcard;
}
