/* Admission rule validation (rules_validate.h). */
#include "admission/match/rules_validate.h"

#include <string.h>

#include "base/buf.h"

static size_t list_len(const kg_json *l)
{
    return l && l->type == KG_JSON_ARRAY ? l->len : 0;
}

static const char *item(const kg_json *l, size_t i)
{
    const kg_json *x = kg_json_at(l, i);
    return x && x->type == KG_JSON_STRING ? x->u.s : "";
}

static bool has_wildcard(const kg_json *l)
{
    for (size_t i = 0; i < list_len(l); i++)
        if (!strcmp(item(l, i), "*"))
            return true;
    return false;
}

/* Go's %#v of a string slice of the given type. */
static const char *go_slice(kg_arena *a, const char *type, const kg_json *l)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_printf(&b, "[]%s{", type);
    for (size_t i = 0; i < list_len(l); i++) {
        if (i)
            kg_buf_puts(&b, ", ");
        kg_meta_quote(&b, item(l, i), strlen(item(l, i)));
    }
    kg_buf_puts(&b, "}");
    const char *s = kg_arena_strdup(a, b.data);
    kg_buf_free(&b);
    return s;
}

static const char *child(kg_arena *a, const char *path, const char *c)
{
    return kg_arena_sprintf(a, "%s.%s", path, c);
}

static const char *index_of(kg_arena *a, const char *path, size_t i)
{
    return kg_arena_sprintf(a, "%s[%zu]", path, i);
}

/* validateResources (subresources allowed) */
static void resources(kg_arena *a, const kg_json *res, const char *path, kg_field_errors *errs)
{
    size_t n = list_len(res);
    if (n == 0)
        kg_field_required(a, errs, path, "");
    bool dbl = false, single = false, plain = false;
    for (size_t i = 0; i < n; i++) {
        const char *rs = item(res, i);
        if (!*rs) {
            kg_field_required(a, errs, index_of(a, path, i), "");
            continue;
        }
        if (!strcmp(rs, "*/*"))
            dbl = true;
        if (!strcmp(rs, "*"))
            single = true;
        const char *slash = strchr(rs, '/');
        if (!slash) {
            plain = strcmp(rs, "*") != 0;
            continue;
        }
        size_t rl = (size_t)(slash - rs);
        const char *sub = slash + 1;
        /* conflicts with earlier entries: a wildcard subresource of this resource, or this subresource of any */
        for (size_t j = 0; j < i; j++) {
            const char *o = item(res, j), *os = strchr(o, '/');
            if (!os)
                continue;
            if (!strcmp(os + 1, "*") && (size_t)(os - o) == rl && !strncmp(o, rs, rl)) {
                kg_field_invalid(a, errs, index_of(a, path, i), rs,
                                 kg_arena_sprintf(a, "if '%.*s/*' is present, must not specify %s", (int)rl, rs, rs));
                break;
            }
        }
        for (size_t j = 0; j < i; j++) {
            const char *o = item(res, j), *os = strchr(o, '/');
            if (!os)
                continue;
            if (os - o == 1 && o[0] == '*' && !strcmp(os + 1, sub)) {
                kg_field_invalid(a, errs, index_of(a, path, i), rs,
                                 kg_arena_sprintf(a, "if '*/%s' is present, must not specify %s", sub, rs));
                break;
            }
        }
    }
    if (n > 1 && dbl)
        kg_field_invalid_raw(a, errs, path, go_slice(a, "string", res),
                             "if '*/*' is present, must not specify other resources");
    if (single && plain)
        kg_field_invalid_raw(a, errs, path, go_slice(a, "string", res),
                             "if '*' is present, must not specify other resources without subresources");
}

void kg_match_rule_validate(kg_arena *a, const kg_json *rule, const char *path, bool named, kg_field_errors *errs)
{
    if (named) {
        const kg_json *names = kg_json_get(rule, "resourceNames");
        const char *np = child(a, path, "resourceNames");
        for (size_t i = 0; i < list_len(names); i++) {
            const char *nm = item(names, i), *bad = NULL;
            if (!strcmp(nm, "."))
                bad = "may not be '.'";
            else if (!strcmp(nm, ".."))
                bad = "may not be '..'";
            else if (strchr(nm, '/'))
                bad = "may not contain '/'";
            else if (strchr(nm, '%'))
                bad = "may not contain '%'";
            if (bad)
                kg_field_invalid(a, errs, index_of(a, np, i), nm, bad);
            for (size_t j = 0; j < i; j++)
                if (!strcmp(item(names, j), nm)) {
                    kg_field_duplicate(a, errs, index_of(a, np, i), nm);
                    break;
                }
        }
    }
    static const char *const ops[] = {"*", "CONNECT", "CREATE", "DELETE", "UPDATE"};
    const kg_json *o = kg_json_get(rule, "operations");
    const char *op_path = child(a, path, "operations");
    if (list_len(o) == 0)
        kg_field_required(a, errs, op_path, "");
    if (list_len(o) > 1 && has_wildcard(o))
        kg_field_invalid_raw(a, errs, op_path, go_slice(a, "admissionregistration.OperationType", o),
                             "if '*' is present, must not specify other operations");
    for (size_t i = 0; i < list_len(o); i++) {
        bool ok = false;
        for (size_t k = 0; k < 5; k++)
            ok = ok || !strcmp(item(o, i), ops[k]);
        if (!ok)
            kg_field_not_supported(a, errs, index_of(a, op_path, i), item(o, i), ops, 5);
    }
    const kg_json *g = kg_json_get(rule, "apiGroups");
    const char *gp = child(a, path, "apiGroups");
    if (list_len(g) == 0)
        kg_field_required(a, errs, gp, "");
    if (list_len(g) > 1 && has_wildcard(g))
        kg_field_invalid_raw(a, errs, gp, go_slice(a, "string", g),
                             "if '*' is present, must not specify other API groups");
    const kg_json *v = kg_json_get(rule, "apiVersions");
    const char *vp = child(a, path, "apiVersions");
    if (list_len(v) == 0)
        kg_field_required(a, errs, vp, "");
    if (list_len(v) > 1 && has_wildcard(v))
        kg_field_invalid_raw(a, errs, vp, go_slice(a, "string", v),
                             "if '*' is present, must not specify other API versions");
    for (size_t i = 0; i < list_len(v); i++)
        if (!*item(v, i))
            kg_field_required(a, errs, index_of(a, vp, i), "");
    resources(a, kg_json_get(rule, "resources"), child(a, path, "resources"), errs);
    const kg_json *scope = kg_json_get(rule, "scope");
    if (scope && scope->type != KG_JSON_NULL) {
        static const char *const scopes[] = {"*", "Cluster", "Namespaced"};
        const char *s = scope->type == KG_JSON_STRING ? scope->u.s : "";
        if (strcmp(s, "*") && strcmp(s, "Cluster") && strcmp(s, "Namespaced"))
            kg_field_not_supported(a, errs, child(a, path, "scope"), s, scopes, 3);
    }
}
