/* Type checking of a ValidatingAdmissionPolicy (upstream k8s.io/apiserver pkg/admission/plugin/policy/validating
 * typechecking.go, TypeChecker): the policy's expressions compiled once per kind its matchConstraints can match, with
 * `object` / `oldObject` typed from that kind's OpenAPI schema and `params` from paramKind's, so that a misspelt
 * field or a comparison of the wrong types is found before a request meets it. The result is what the status
 * controller (controllers/vapstatus.c) writes to status.typeChecking.expressionWarnings.
 *
 * This file does not see the API registry: kinds and schemas come through the admission services
 * (kind_for_resource, kind_schema: upstream's RESTMapper and SchemaResolver), which the server implements over
 * api/resources.h and api/schema.h.
 *
 * As upstream:
 *   - the kinds: every group x version x resource of the resourceRules, sorted, wildcards ("*" in a group or version
 *     drops the rule; resources with "*" or "/" are skipped), resolved to served kinds, at most 10 (counting every
 *     resolution), sorted by group, version, kind; kinds without a schema are skipped;
 *   - the types (SchemaDeclType): objects with properties are object types whose field names are escaped (a CEL
 *     reserved word `w` becomes `__w__`, so `object.metadata.namespace` is an undefined field, as upstream), maps
 *     (additionalProperties) map(string, V), arrays list(E), integer int, number double, boolean bool, string string
 *     (date-time timestamp, duration duration, byte bytes); free-form objects, int-or-string and the other
 *     multi-type values (Quantity) are dyn;
 *   - `params` is declared only when paramKind's schema is known (an unknown paramKind makes `params` an undeclared
 *     reference);
 *   - the environment is the stored-expressions one with the authorizer; the result type is not checked;
 *   - a warning per expression with problems: for each kind, "<group>/<version>, Kind=<kind>: <CEL issues>\n",
 *     joined with "\n".
 * upstream reports spec.validations[i].expression and .messageExpression; kgate also reports, in the same form,
 * spec.variables[i].expression, spec.auditAnnotations[i].valueExpression and spec.matchConditions[i].expression
 * (after the validations, in that order). */
#include <stdlib.h>
#include <string.h>

#include "admission/policy/policy.h"
#include "base/buf.h"
#include "cel/k8s/escaping.h"

#define MAX_TYPES_TO_CHECK 10
#define MAX_TYPE_DEPTH 32

typedef struct gvk3 {
    const char *group, *version, *kind;
} gvk3;

/* ---- the kinds to check (typesToCheck) ---- */

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int cmp_gvk(const void *x, const void *y)
{
    const gvk3 *a = x, *b = y;
    int c = strcmp(a->group, b->group);
    if (!c)
        c = strcmp(a->version, b->version);
    return c ? c : strcmp(a->kind, b->kind);
}

/* The strings of a rule's list; NULL (and *n 0) when one contains a forbidden character and the whole list is to
 * be given up (groups, versions: drop); skip_bad: leave those out instead (resources). */
static const char **rule_list(kg_arena *a, const kg_json *l, const char *bad, bool skip_bad, size_t *n)
{
    *n = 0;
    if (!l || l->type != KG_JSON_ARRAY || !l->len)
        return NULL;
    const char **out = kg_arena_alloc(a, l->len * sizeof *out);
    for (size_t i = 0; i < l->len; i++) {
        const kg_json *s = kg_json_at(l, i);
        if (s->type != KG_JSON_STRING)
            continue;
        if (strpbrk(s->u.s, bad)) {
            if (skip_bad)
                continue;
            *n = 0;
            return NULL;
        }
        out[(*n)++] = s->u.s;
    }
    qsort(out, *n, sizeof *out, cmp_str);
    return out;
}

static size_t types_to_check(const kg_json *policy, const kg_admission_services *svc, kg_arena *a, gvk3 *out)
{
    const kg_json *rules = kg_json_path(policy, "spec.matchConstraints.resourceRules");
    if (!svc || !svc->kind_for_resource || !rules || rules->type != KG_JSON_ARRAY)
        return 0;
    size_t n = 0, count = 0;
    for (size_t r = 0; r < rules->len; r++) {
        const kg_json *rule = kg_json_at(rules, r);
        size_t ng, nv, nr;
        const char **g = rule_list(a, kg_json_get(rule, "apiGroups"), "*", false, &ng);
        const char **v = rule_list(a, kg_json_get(rule, "apiVersions"), "*", false, &nv);
        const char **res = rule_list(a, kg_json_get(rule, "resources"), "*/", true, &nr);
        for (size_t i = 0; i < ng; i++)
            for (size_t j = 0; j < nv; j++)
                for (size_t k = 0; k < nr; k++) {
                    const char *kind;
                    if (!svc->kind_for_resource(svc->ctx, g[i], v[j], res[k], &kind) || !kind || !kind[0])
                        continue;
                    gvk3 x = {g[i], v[j], kind};
                    bool dup = false;
                    for (size_t m = 0; m < n && !dup; m++)
                        dup = !cmp_gvk(&out[m], &x);
                    if (!dup)
                        out[n++] = x;
                    if (++count == MAX_TYPES_TO_CHECK)
                        goto done;
                }
    }
done:
    qsort(out, n, sizeof *out, cmp_gvk);
    return n;
}

/* ---- OpenAPI schema -> CEL types (SchemaDeclType) ---- */

typedef struct conv {
    cel_env *env;
    kg_arena *a;
    const kg_json *schemas;
    const char *prefix; /* object type names: "<prefix>.<schema name>" */
} conv;

/* The named schema a $ref (or an allOf of one $ref) points at; *name its name. NULL when not a reference. */
static const kg_json *deref(const conv *c, const kg_json *s, const char **name)
{
    const char *ref = kg_json_get_str(s, "$ref");
    if (!ref) {
        const kg_json *all = kg_json_get(s, "allOf");
        if (all && all->type == KG_JSON_ARRAY && all->len == 1)
            ref = kg_json_get_str(kg_json_at(all, 0), "$ref");
    }
    if (!ref)
        return NULL;
    const char *slash = strrchr(ref, '/');
    *name = slash ? slash + 1 : ref;
    return kg_json_get(c->schemas, *name);
}

static const cel_type *decl_type(const conv *c, const kg_json *s, const char *path, int depth);

static const cel_type *object_of(const conv *c, const kg_json *s, const kg_json *props, const char *tname, int depth)
{
    const char *full = kg_arena_sprintf(c->a, "%s.%s", c->prefix, tname);
    cel_type *t = cel_type_object(c->env, full);
    if (t->nfields)
        return t; /* built already, or being built (a recursive reference) */
    (void)s;
    /* first a field that cannot be selected: marks the type as being built, and keeps it closed (an object type
     * without fields would accept any field) */
    cel_type_object_add_field(c->env, t, "", cel_type_dyn());
    for (size_t i = 0; i < props->len; i++) {
        const char *fname = props->u.members[i].key;
        const char *esc = cel_k8s_escape_name(c->a, fname);
        if (!esc)
            continue;
        const cel_type *ft =
            decl_type(c, props->u.members[i].val, kg_arena_sprintf(c->a, "%s.%s", tname, fname), depth + 1);
        if (!ft)
            continue;
        cel_type_object_add_field(c->env, t, esc, ft);
    }
    return t;
}

static const cel_type *decl_type(const conv *c, const kg_json *s, const char *path, int depth)
{
    if (!s || s->type != KG_JSON_OBJECT || depth > MAX_TYPE_DEPTH)
        return cel_type_dyn();
    const char *name = NULL;
    const kg_json *target = deref(c, s, &name);
    if (target)
        return target == s ? cel_type_dyn() : decl_type(c, target, name, depth + 1);
    const kg_json *iors = kg_json_get(s, "x-kubernetes-int-or-string");
    if (iors && iors->type == KG_JSON_BOOL && iors->b)
        return cel_type_dyn();
    const char *type = kg_json_get_str(s, "type");
    const char *format = kg_json_get_str(s, "format");
    if (!type)
        return cel_type_dyn(); /* oneOf (IntOrString, Quantity) or untyped */
    if (!strcmp(type, "object")) {
        const kg_json *props = kg_json_get(s, "properties");
        const kg_json *addl = kg_json_get(s, "additionalProperties");
        if (props && props->type == KG_JSON_OBJECT && props->len)
            return object_of(c, s, props, path, depth);
        if (addl && addl->type == KG_JSON_OBJECT)
            return cel_type_map(c->env, cel_type_string(), decl_type(c, addl, path, depth + 1));
        return cel_type_dyn(); /* free-form (x-kubernetes-preserve-unknown-fields) */
    }
    if (!strcmp(type, "array"))
        return cel_type_list(c->env, decl_type(c, kg_json_get(s, "items"), path, depth + 1));
    if (!strcmp(type, "integer"))
        return cel_type_int();
    if (!strcmp(type, "number"))
        return cel_type_double();
    if (!strcmp(type, "boolean"))
        return cel_type_bool();
    if (!strcmp(type, "string")) {
        if (format && !strcmp(format, "date-time"))
            return cel_type_timestamp();
        if (format && !strcmp(format, "duration"))
            return cel_type_duration();
        if (format && !strcmp(format, "byte"))
            return cel_type_bytes();
        return cel_type_string();
    }
    return cel_type_dyn();
}

/* ---- checking ---- */

typedef struct schema_ref {
    const kg_json *schemas;
    const char *root;
} schema_ref;

typedef struct build_ud {
    kg_arena *a;
    schema_ref object, params; /* params.schemas NULL: dyn */
    int serial;
} build_ud;

static const cel_type *root_type(cel_env *env, kg_arena *a, const schema_ref *r, const char *prefix)
{
    conv c = {env, a, r->schemas, prefix};
    return decl_type(&c, kg_json_get(r->schemas, r->root), r->root, 0);
}

static void build_types(void *ud, cel_env *env, const cel_type **object, const cel_type **params)
{
    build_ud *b = ud;
    *object = root_type(env, b->a, &b->object, "kgate.object");
    if (b->params.schemas)
        *params = root_type(env, b->a, &b->params, "kgate.params");
}

/* The schema of a kind through the services; false when unknown. */
static bool resolve_schema(const kg_admission_services *svc, kg_arena *a, const gvk3 *k, schema_ref *out)
{
    if (!svc || !svc->kind_schema)
        return false;
    out->root = NULL;
    out->schemas = svc->kind_schema(svc->ctx, a, k->group, k->version, k->kind, &out->root);
    return out->schemas && out->root && kg_json_get(out->schemas, out->root);
}

/* "apps/v1" -> apps, v1; "v1" -> "", v1 (schema.ParseGroupVersion); false when malformed. */
static bool parse_group_version(kg_arena *a, const char *gv, const char **group, const char **version)
{
    if (!gv || !gv[0])
        return false;
    const char *slash = strchr(gv, '/');
    if (!slash) {
        *group = "";
        *version = gv;
        return true;
    }
    if (strchr(slash + 1, '/'))
        return false;
    *group = kg_arena_strndup(a, gv, (size_t)(slash - gv));
    *version = slash + 1;
    return true;
}

/* One expression to check, its field path, and the accumulated warning text. */
typedef struct item {
    const char *field;
    const char *src;
    kg_buf warning;
} item;

static void add_item(kg_arena *a, item *items, size_t *n, const char *field, const char *src)
{
    if (!src || !src[0])
        return;
    items[*n] = (item){kg_arena_strdup(a, field), src, KG_BUF_INIT};
    (*n)++;
}

static const char *str_at(const kg_json *arr, size_t i, const char *key)
{
    return kg_json_get_str(kg_json_at(arr, i), key);
}

static size_t arr_len(const kg_json *v)
{
    return v && v->type == KG_JSON_ARRAY ? v->len : 0;
}

/* Record "<gvk>: <issues>\n" for the item (results joined with "\n"). */
static void add_result(item *it, const gvk3 *k, const char *issues)
{
    if (it->warning.len)
        kg_buf_putc(&it->warning, '\n');
    kg_buf_printf(&it->warning, "%s/%s, Kind=%s: %s\n", k->group, k->version, k->kind, issues);
}

/* The compiler's issues without kgate's "compilation failed: " prefix (upstream reports the issues alone). */
static const char *issues_of(const char *error)
{
    static const char prefix[] = "compilation failed: ";
    return strncmp(error, prefix, sizeof prefix - 1) ? error : error + sizeof prefix - 1;
}

kg_json *kg_vap_typecheck(const kg_json *policy, const kg_admission_services *svc, kg_arena *a)
{
    kg_json *out = kg_json_new_array(a);
    const kg_json *spec = kg_json_get(policy, "spec");
    if (!spec || spec->type != KG_JSON_OBJECT)
        return out;
    gvk3 kinds[MAX_TYPES_TO_CHECK];
    size_t nk = types_to_check(policy, svc, a, kinds);

    /* the expressions, in reporting order */
    const kg_json *vals = kg_json_get(spec, "validations"), *vars = kg_json_get(spec, "variables");
    const kg_json *audits = kg_json_get(spec, "auditAnnotations"), *conds = kg_json_get(spec, "matchConditions");
    size_t cap = 2 * arr_len(vals) + arr_len(vars) + arr_len(audits) + arr_len(conds) + 1;
    item *items = kg_arena_calloc(a, cap * sizeof *items);
    size_t n = 0;
    for (size_t i = 0; i < arr_len(vals); i++) {
        add_item(a, items, &n, kg_arena_sprintf(a, "spec.validations[%zu].expression", i),
                 str_at(vals, i, "expression"));
        add_item(a, items, &n, kg_arena_sprintf(a, "spec.validations[%zu].messageExpression", i),
                 str_at(vals, i, "messageExpression"));
    }
    size_t first_var = n;
    for (size_t i = 0; i < arr_len(vars); i++)
        add_item(a, items, &n, kg_arena_sprintf(a, "spec.variables[%zu].expression", i), str_at(vars, i, "expression"));
    size_t end_var = n;
    for (size_t i = 0; i < arr_len(audits); i++)
        add_item(a, items, &n, kg_arena_sprintf(a, "spec.auditAnnotations[%zu].valueExpression", i),
                 str_at(audits, i, "valueExpression"));
    for (size_t i = 0; i < arr_len(conds); i++)
        add_item(a, items, &n, kg_arena_sprintf(a, "spec.matchConditions[%zu].expression", i),
                 str_at(conds, i, "expression"));

    /* variables: names and expressions as the environment takes them (missing expressions compile as "") */
    size_t nvars = arr_len(vars);
    const char **vnames = kg_arena_calloc(a, (nvars + 1) * sizeof *vnames);
    const char **vexprs = kg_arena_calloc(a, (nvars + 1) * sizeof *vexprs);
    for (size_t i = 0; i < nvars; i++) {
        const char *nm = str_at(vars, i, "name"), *ex = str_at(vars, i, "expression");
        vnames[i] = nm ? nm : "";
        vexprs[i] = ex ? ex : "";
    }

    /* params: typed when paramKind's schema is known, else not declared (as upstream) */
    build_ud ud = {.a = a};
    const kg_json *pk = kg_json_get(spec, "paramKind");
    gvk3 pgvk;
    if (pk && pk->type == KG_JSON_OBJECT &&
        parse_group_version(a, kg_json_get_str(pk, "apiVersion"), &pgvk.group, &pgvk.version) &&
        (pgvk.kind = kg_json_get_str(pk, "kind")) && pgvk.kind[0] && !resolve_schema(svc, a, &pgvk, &ud.params))
        ud.params.schemas = NULL;
    unsigned decls = KG_ACEL_AUTHORIZER | (ud.params.schemas ? KG_ACEL_PARAMS : 0);

    for (size_t k = 0; k < nk; k++) {
        if (!resolve_schema(svc, a, &kinds[k], &ud.object))
            continue; /* no schema: skipped, as upstream's ErrSchemaNotFound */
        kg_acel_vars v;
        kg_acel_types types = {build_types, &ud};
        if (!kg_acel_vars_new_typed(&v, a, decls, vnames, vexprs, nvars, true, &types))
            continue;
        for (size_t i = 0; i < n; i++) {
            const char *err = NULL;
            kg_acel_expr e;
            if (i >= first_var && i < end_var) {
                /* the variable's own compilation, done while building the environment */
                err = v.items[i - first_var].expr.error;
            } else if (!kg_acel_vars_compile(&v, a, items[i].src, KG_ACEL_RETURN_ANY, false, &e)) {
                err = e.error;
            } else {
                kg_acel_expr_free(&e);
            }
            if (err)
                add_result(&items[i], &kinds[k], issues_of(err));
        }
        kg_acel_vars_free(&v);
    }
    for (size_t i = 0; i < n; i++) {
        if (items[i].warning.len) {
            kg_json *w = kg_json_new_object(a);
            kg_json_set(a, w, "fieldRef", kg_json_new_str(a, items[i].field));
            kg_json_set(a, w, "warning", kg_json_new_strn(a, items[i].warning.data, items[i].warning.len));
            kg_json_array_append(a, out, w);
        }
        kg_buf_free(&items[i].warning);
    }
    return out;
}
