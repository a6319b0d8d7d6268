/* The schema checks of CRD validation (crd.h kg_crd_validate_schema): OpenAPI keywords CRDs do not support
 * (apiextensions validation.go), structural schema rules (pkg/apiserver/schema/validation.go) and vendor
 * extensions, with upstream's paths (`properties[spec].items.type`) and messages. */
#include <stdlib.h>
#include <string.h>

#include "apiext/crd.h"
#include "apiext/rules.h"
#include "cel/regex/cel_regex.h"

typedef struct sctx {
    kg_arena *a;
    kg_field_errors *errs;
} sctx;

static const char *sub(sctx *c, const char *path, const char *what)
{
    return kg_arena_sprintf(c->a, "%s.%s", path, what);
}

static bool flag(const kg_json *s, const char *key)
{
    kg_json *v = kg_json_get(s, key);
    return v && v->type == KG_JSON_BOOL && v->b;
}

/* Keyword checks, every node (junctors included). */
static void keywords(sctx *c, const kg_json *s, const char *path, bool in_junctor)
{
    static const char *const unsupported[] = {
        "id", "$ref", "definitions", "dependencies", "additionalItems", "patternProperties"};
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        if (kg_json_get(s, unsupported[i]))
            kg_field_forbidden(c->a, c->errs, sub(c, path, unsupported[i]),
                               kg_arena_sprintf(c->a, "%s is not supported", unsupported[i]));
    const char *type = kg_json_get_str(s, "type");
    if (type) {
        static const char *const types[] = {"array", "boolean", "integer", "number", "object", "string"};
        bool ok = false;
        for (size_t i = 0; i < 6; i++)
            ok = ok || !strcmp(type, types[i]);
        if (!strcmp(type, "null"))
            kg_field_invalid(c->a, c->errs, sub(c, path, "type"), type,
                             "type cannot be set to null, use nullable as an alternative");
        else if (!ok)
            kg_field_not_supported(c->a, c->errs, sub(c, path, "type"), type, types, 6);
    }
    if (flag(s, "uniqueItems"))
        kg_field_forbidden(c->a, c->errs, sub(c, path, "uniqueItems"),
                           "uniqueItems cannot be set to true since the runtime complexity becomes quadratic");
    kg_json *ap = kg_json_get(s, "additionalProperties");
    kg_json *props = kg_json_get(s, "properties");
    if (ap && props && props->type == KG_JSON_OBJECT && props->len && !(ap->type == KG_JSON_BOOL && ap->b))
        kg_field_forbidden(c->a, c->errs, sub(c, path, "additionalProperties"),
                           "additionalProperties and properties are mutual exclusive");
    kg_json *items = kg_json_get(s, "items");
    if (items && items->type == KG_JSON_ARRAY)
        kg_field_forbidden(c->a, c->errs, sub(c, path, "items"), "items must be a schema object and not an array");
    const char *pattern = kg_json_get_str(s, "pattern");
    if (pattern) {
        char err[256] = "";
        cel_regex *re = cel_regex_compile(pattern, strlen(pattern), 0, CEL_REGEX_GO_ERRORS, err, sizeof err);
        if (re)
            cel_regex_free(re);
        else
            kg_field_invalid(c->a, c->errs, sub(c, path, "pattern"), pattern,
                             kg_arena_sprintf(c->a, "must be a valid regular expression, but isn't: %s", err));
    }
    kg_json *pu = kg_json_get(s, "x-kubernetes-preserve-unknown-fields");
    if (pu && !(pu->type == KG_JSON_BOOL && pu->b))
        kg_field_invalid_raw(c->a, c->errs, sub(c, path, "x-kubernetes-preserve-unknown-fields"),
                             pu->type == KG_JSON_BOOL ? "false" : "null", "must be true or undefined");
    if (flag(s, "x-kubernetes-int-or-string")) {
        if (flag(s, "x-kubernetes-preserve-unknown-fields"))
            kg_field_invalid_bool(c->a, c->errs, sub(c, path, "x-kubernetes-preserve-unknown-fields"), true,
                                  "must be false if x-kubernetes-int-or-string is true");
        if (flag(s, "x-kubernetes-embedded-resource"))
            kg_field_invalid_bool(c->a, c->errs, sub(c, path, "x-kubernetes-embedded-resource"), true,
                                  "must be false if x-kubernetes-int-or-string is true");
    }
    if (flag(s, "x-kubernetes-embedded-resource")) {
        if (!type || strcmp(type, "object"))
            kg_field_required(c->a, c->errs, sub(c, path, "type"),
                              "must be object if x-kubernetes-embedded-resource is true");
        if ((!props || props->type != KG_JSON_OBJECT || !props->len) &&
            !flag(s, "x-kubernetes-preserve-unknown-fields"))
            kg_field_required(c->a, c->errs, sub(c, path, "properties"),
                              "must not be empty if x-kubernetes-embedded-resource is true without "
                              "x-kubernetes-preserve-unknown-fields");
    }
    const char *lt = kg_json_get_str(s, "x-kubernetes-list-type");
    if (lt) {
        if (strcmp(lt, "atomic") && strcmp(lt, "set") && strcmp(lt, "map")) {
            static const char *const lts[] = {"atomic", "set", "map"};
            kg_field_not_supported(c->a, c->errs, sub(c, path, "x-kubernetes-list-type"), lt, lts, 3);
        } else if (!type || strcmp(type, "array")) {
            kg_field_invalid(c->a, c->errs, sub(c, path, "type"), type ? type : "",
                             "must be array if x-kubernetes-list-type is specified");
        }
    }
    kg_json *keys = kg_json_get(s, "x-kubernetes-list-map-keys");
    if (keys && keys->type == KG_JSON_ARRAY && keys->len) {
        if (!lt || strcmp(lt, "map"))
            kg_field_invalid(c->a, c->errs, sub(c, path, "x-kubernetes-list-type"), lt ? lt : "",
                             "must be map if x-kubernetes-list-map-keys is non-empty");
        kg_json *iprops = items && items->type == KG_JSON_OBJECT ? kg_json_get(items, "properties") : NULL;
        for (uint32_t i = 0; i < keys->len; i++) {
            const char *k = keys->u.items[i]->type == KG_JSON_STRING ? keys->u.items[i]->u.s : "";
            if (!iprops || !kg_json_get(iprops, k)) {
                kg_field_invalid_raw(c->a, c->errs, sub(c, path, "x-kubernetes-list-map-keys"),
                                     kg_xs_go_repr(c->a, keys), "entries must all be names of item properties");
                break;
            }
        }
    }
    const char *mt = kg_json_get_str(s, "x-kubernetes-map-type");
    if (mt && (!type || strcmp(type, "object")))
        kg_field_invalid(c->a, c->errs, sub(c, path, "type"), type ? type : "",
                         "must be object if x-kubernetes-map-type is specified");
    if (in_junctor) {
        if (type)
            kg_field_forbidden(c->a, c->errs, sub(c, path, "type"), "must be empty to be structural");
        if (kg_json_get(s, "description"))
            kg_field_forbidden(c->a, c->errs, sub(c, path, "description"), "must be empty to be structural");
        if (kg_json_get(s, "title"))
            kg_field_forbidden(c->a, c->errs, sub(c, path, "title"), "must be empty to be structural");
        if (kg_json_get(s, "default"))
            kg_field_forbidden(c->a, c->errs, sub(c, path, "default"), "must be undefined to be structural");
        if (ap)
            kg_field_forbidden(c->a, c->errs, sub(c, path, "additionalProperties"),
                               "must be undefined to be structural");
        if (flag(s, "nullable"))
            kg_field_forbidden(c->a, c->errs, sub(c, path, "nullable"), "must be false to be structural");
        for (uint32_t i = 0; i < s->len; i++)
            if (!strncmp(s->u.members[i].key, "x-kubernetes-", 13))
                kg_field_forbidden(c->a, c->errs, sub(c, path, s->u.members[i].key),
                                   "must be undefined to be structural");
    }
}

static void walk(sctx *c, const kg_json *s, const char *path, bool root, bool in_junctor, bool is_item);

static void junctors(sctx *c, const kg_json *s, const char *path)
{
    static const char *const js[] = {"allOf", "anyOf", "oneOf"};
    bool ios = flag(s, "x-kubernetes-int-or-string");
    for (size_t k = 0; k < 3; k++) {
        kg_json *l = kg_json_get(s, js[k]);
        for (uint32_t i = 0; l && l->type == KG_JSON_ARRAY && i < l->len; i++) {
            const kg_json *j = l->u.items[i];
            /* int-or-string's own shape anyOf: [{type: integer}, {type: string}] is allowed */
            if (ios && j->type == KG_JSON_OBJECT && j->len == 1 && kg_json_get_str(j, "type"))
                continue;
            walk(c, j, kg_arena_sprintf(c->a, "%s.%s[%u]", path, js[k], i), false, true, false);
        }
    }
    kg_json *n = kg_json_get(s, "not");
    if (n && n->type == KG_JSON_OBJECT)
        walk(c, n, sub(c, path, "not"), false, true, false);
}

static void walk(sctx *c, const kg_json *s, const char *path, bool root, bool in_junctor, bool is_item)
{
    if (!s || s->type != KG_JSON_OBJECT)
        return;
    keywords(c, s, path, in_junctor);
    const char *type = kg_json_get_str(s, "type");
    bool ios = flag(s, "x-kubernetes-int-or-string"), pu = flag(s, "x-kubernetes-preserve-unknown-fields");
    if (!in_junctor) {
        if (root) {
            if (!type)
                kg_field_required(c->a, c->errs, sub(c, path, "type"), "must not be empty at the root");
            else if (strcmp(type, "object"))
                kg_field_invalid(c->a, c->errs, sub(c, path, "type"), type, "must be object at the root");
            if (kg_json_get(s, "additionalProperties"))
                kg_field_forbidden(c->a, c->errs, sub(c, path, "additionalProperties"), "must not be used at the root");
        } else if (!type && !ios && !pu) {
            kg_field_required(c->a, c->errs, sub(c, path, "type"),
                              is_item ? "must not be empty for specified array items"
                                      : "must not be empty for specified object fields");
        }
        if (type && !strcmp(type, "array") && !kg_json_get(s, "items"))
            kg_field_required(c->a, c->errs, sub(c, path, "items"), "must be specified");
    }
    kg_json *props = kg_json_get(s, "properties");
    for (uint32_t i = 0; props && props->type == KG_JSON_OBJECT && i < props->len; i++) {
        const char *k = props->u.members[i].key;
        const kg_json *ps = props->u.members[i].val;
        const char *pp = kg_arena_sprintf(c->a, "%s.properties[%s]", path, k);
        if (root && !strcmp(k, "metadata") && ps->type == KG_JSON_OBJECT) {
            /* metadata is implicit: only name and generateName may be constrained */
            bool only_names = true;
            for (uint32_t m = 0; m < ps->len; m++) {
                const char *mk = ps->u.members[m].key;
                if (!strcmp(mk, "type") || !strcmp(mk, "description"))
                    continue;
                if (!strcmp(mk, "properties")) {
                    const kg_json *mp = ps->u.members[m].val;
                    for (uint32_t q = 0; mp->type == KG_JSON_OBJECT && q < mp->len; q++)
                        if (strcmp(mp->u.members[q].key, "name") && strcmp(mp->u.members[q].key, "generateName"))
                            only_names = false;
                    continue;
                }
                only_names = false;
            }
            if (!only_names)
                kg_field_forbidden(c->a, c->errs, pp,
                                   "must not specify anything other than name and generateName, but metadata is "
                                   "implicitly specified");
        }
        if (in_junctor && !strcmp(k, "metadata") && root)
            kg_field_forbidden(c->a, c->errs, pp, "must not be specified in a nested context");
        walk(c, ps, pp, false, in_junctor, false);
    }
    kg_json *items = kg_json_get(s, "items");
    if (items && items->type == KG_JSON_OBJECT)
        walk(c, items, sub(c, path, "items"), false, in_junctor, true);
    kg_json *ap = kg_json_get(s, "additionalProperties");
    if (ap && ap->type == KG_JSON_OBJECT)
        walk(c, ap, sub(c, path, "additionalProperties"), false, in_junctor, false);
    junctors(c, s, path);
    if (!in_junctor)
        kg_xs_rules_check(c->a, kg_json_get(s, "x-kubernetes-validations"), path, c->errs);
    /* a default must validate against its own schema */
    kg_json *def = kg_json_get(s, "default");
    if (def && !in_junctor) {
        kg_xs *xs = kg_xs_compile_nodes(c->a, s);
        kg_field_errors derrs = KG_FIELD_ERRORS_INIT;
        kg_xs_validate(c->a, xs, def, "", &derrs);
        for (size_t i = 0; i < derrs.len; i++) {
            kg_field_error e = derrs.items[i];
            const char *f = e.field && e.field[0] ? kg_arena_sprintf(c->a, "%s.default.%s", path, e.field)
                                                  : sub(c, path, "default");
            e.field = f;
            kg_field_errors_add(c->a, c->errs, &e);
        }
    }
}

static int cmp_errors(const void *x, const void *y)
{
    const char *const *p = x, *const *q = y;
    return strcmp(*p, *q);
}

void kg_crd_validate_schema(kg_arena *a, const kg_json *schema, const char *path, bool status_subresource,
                            kg_field_errors *errs)
{
    sctx c = {a, NULL};
    kg_field_errors local = KG_FIELD_ERRORS_INIT;
    c.errs = &local;
    if (!schema || schema->type != KG_JSON_OBJECT) {
        kg_field_required(a, errs, path, "schemas are required");
        return;
    }
    if (flag(schema, "nullable"))
        kg_field_forbidden(a, &local, sub(&c, path, "nullable"), "nullable cannot be true at the root");
    if (status_subresource) {
        static const char *const allowed[] = {"description",
                                              "type",
                                              "format",
                                              "title",
                                              "maximum",
                                              "exclusiveMaximum",
                                              "minimum",
                                              "exclusiveMinimum",
                                              "maxLength",
                                              "minLength",
                                              "pattern",
                                              "maxItems",
                                              "minItems",
                                              "uniqueItems",
                                              "multipleOf",
                                              "required",
                                              "items",
                                              "properties",
                                              "externalDocs",
                                              "example",
                                              "x-kubernetes-preserve-unknown-fields",
                                              "x-kubernetes-validations"};
        for (uint32_t i = 0; i < schema->len; i++) {
            bool ok = false;
            for (size_t k = 0; k < sizeof allowed / sizeof allowed[0]; k++)
                ok = ok || !strcmp(schema->u.members[i].key, allowed[k]);
            if (!ok) {
                kg_field_invalid(a, &local, path, "",
                                 "only [Description Type Format Title Maximum ExclusiveMaximum Minimum "
                                 "ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems "
                                 "MultipleOf Required Items Properties ExternalDocs Example "
                                 "XPreserveUnknownFields XValidations] fields are allowed at the root of the schema "
                                 "if the status subresource is enabled");
                break;
            }
        }
    }
    walk(&c, schema, path, true, false, false);
    /* structural errors are reported sorted by their text, as upstream */
    const char **texts = kg_arena_alloc(a, (local.len + 1) * sizeof *texts);
    size_t *order = kg_arena_alloc(a, (local.len + 1) * sizeof *order);
    for (size_t i = 0; i < local.len; i++)
        texts[i] = kg_field_error_string(a, &local.items[i]);
    for (size_t i = 0; i < local.len; i++)
        order[i] = i;
    for (size_t i = 1; i < local.len; i++) /* insertion sort: few errors */
        for (size_t k = i; k > 0 && cmp_errors(&texts[order[k - 1]], &texts[order[k]]) > 0; k--) {
            size_t t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    for (size_t i = 0; i < local.len; i++)
        kg_field_errors_add(a, errs, &local.items[order[i]]);
    /* the rules, typed by the schema: compile errors always, cost and other CEL errors for an otherwise valid one */
    kg_xs_rules_check_tree(a, schema, path, local.len > 0, errs);
}
