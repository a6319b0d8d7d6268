/* Structural schemas of CRDs: compile, prune, default, validate (schema.h). */
#include "apiext/schema.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiext/rules.h"
#include "cel/regex/cel_regex.h"

/* ---- compile ---- */

static void free_regex(void *p)
{
    cel_regex_free(p);
}

static bool num_of(const kg_json *v, double *d, const char **text, kg_arena *a)
{
    if (!v)
        return false;
    if (v->type == KG_JSON_INT) {
        *d = (double)v->u.i;
        *text = kg_arena_sprintf(a, "%lld", (long long)v->u.i);
        return true;
    }
    if (v->type == KG_JSON_NUMBER) {
        *d = v->u.num.d;
        *text = kg_xs_go_float(a, v->u.num.d);
        return true;
    }
    return false;
}

static bool int_of(const kg_json *v, int64_t *out)
{
    if (!v || v->type != KG_JSON_INT)
        return false;
    *out = v->u.i;
    return true;
}

static kg_xs **compile_list(kg_arena *a, const kg_json *arr, size_t *n)
{
    *n = 0;
    if (!arr || arr->type != KG_JSON_ARRAY || !arr->len)
        return NULL;
    kg_xs **out = kg_arena_alloc(a, arr->len * sizeof *out);
    for (uint32_t i = 0; i < arr->len; i++)
        if (arr->u.items[i]->type == KG_JSON_OBJECT)
            out[(*n)++] = kg_xs_compile_nodes(a, arr->u.items[i]);
    return out;
}

static bool flag(const kg_json *s, const char *key)
{
    kg_json *v = kg_json_get(s, key);
    return v && v->type == KG_JSON_BOOL && v->b;
}

kg_xs *kg_xs_compile_nodes(kg_arena *a, const kg_json *schema)
{
    kg_xs *s = kg_arena_alloc(a, sizeof *s);
    memset(s, 0, sizeof *s);
    if (!schema || schema->type != KG_JSON_OBJECT)
        return s;
    s->raw = schema;
    s->type = kg_json_get_str(schema, "type");
    s->format = kg_json_get_str(schema, "format");
    s->description = kg_json_get_str(schema, "description");
    s->nullable = flag(schema, "nullable");
    s->preserve_unknown = flag(schema, "x-kubernetes-preserve-unknown-fields");
    s->int_or_string = flag(schema, "x-kubernetes-int-or-string");
    s->embedded = flag(schema, "x-kubernetes-embedded-resource");
    s->list_type = kg_json_get_str(schema, "x-kubernetes-list-type");
    s->map_type = kg_json_get_str(schema, "x-kubernetes-map-type");
    kg_json *keys = kg_json_get(schema, "x-kubernetes-list-map-keys");
    if (keys && keys->type == KG_JSON_ARRAY && keys->len) {
        s->list_map_keys = kg_arena_alloc(a, keys->len * sizeof(char *));
        for (uint32_t i = 0; i < keys->len; i++)
            if (keys->u.items[i]->type == KG_JSON_STRING)
                s->list_map_keys[s->nlist_map_keys++] = keys->u.items[i]->u.s;
        size_t n = 0;
        for (size_t i = 0; i < s->nlist_map_keys; i++)
            n += strlen(s->list_map_keys[i]) + 1;
        char *csv = kg_arena_alloc(a, n + 1), *p = csv;
        for (size_t i = 0; i < s->nlist_map_keys; i++)
            p += sprintf(p, "%s%s", i ? "," : "", s->list_map_keys[i]);
        *p = 0;
        s->list_map_keys_csv = csv;
    }
    kg_json *props = kg_json_get(schema, "properties");
    if (props && props->type == KG_JSON_OBJECT && props->len) {
        s->prop_names = kg_arena_alloc(a, props->len * sizeof(char *));
        s->props = kg_arena_alloc(a, props->len * sizeof(kg_xs *));
        for (uint32_t i = 0; i < props->len; i++) {
            s->prop_names[s->nprops] = props->u.members[i].key;
            s->props[s->nprops++] = kg_xs_compile_nodes(a, props->u.members[i].val);
        }
    }
    kg_json *ap = kg_json_get(schema, "additionalProperties");
    if (ap && ap->type == KG_JSON_OBJECT)
        s->additional = kg_xs_compile_nodes(a, ap);
    else if (ap && ap->type == KG_JSON_BOOL && ap->b)
        s->additional = kg_xs_compile_nodes(a, NULL); /* any value */
    kg_json *req = kg_json_get(schema, "required");
    if (req && req->type == KG_JSON_ARRAY && req->len) {
        s->required = kg_arena_alloc(a, req->len * sizeof(char *));
        for (uint32_t i = 0; i < req->len; i++)
            if (req->u.items[i]->type == KG_JSON_STRING)
                s->required[s->nrequired++] = req->u.items[i]->u.s;
    }
    kg_json *items = kg_json_get(schema, "items");
    if (items && items->type == KG_JSON_OBJECT)
        s->items = kg_xs_compile_nodes(a, items);
    s->def = kg_json_get(schema, "default");
    kg_json *en = kg_json_get(schema, "enum");
    if (en && en->type == KG_JSON_ARRAY)
        s->enum_ = en;
    s->has_min_length = int_of(kg_json_get(schema, "minLength"), &s->min_length);
    s->has_max_length = int_of(kg_json_get(schema, "maxLength"), &s->max_length);
    s->has_min_items = int_of(kg_json_get(schema, "minItems"), &s->min_items);
    s->has_max_items = int_of(kg_json_get(schema, "maxItems"), &s->max_items);
    s->has_min_props = int_of(kg_json_get(schema, "minProperties"), &s->min_props);
    s->has_max_props = int_of(kg_json_get(schema, "maxProperties"), &s->max_props);
    s->has_minimum = num_of(kg_json_get(schema, "minimum"), &s->minimum, &s->minimum_text, a);
    s->has_maximum = num_of(kg_json_get(schema, "maximum"), &s->maximum, &s->maximum_text, a);
    s->has_multiple_of = num_of(kg_json_get(schema, "multipleOf"), &s->multiple_of, &s->multiple_of_text, a);
    s->excl_minimum = flag(schema, "exclusiveMinimum");
    s->excl_maximum = flag(schema, "exclusiveMaximum");
    s->pattern = kg_json_get_str(schema, "pattern");
    if (s->pattern) {
        s->re = cel_regex_compile(s->pattern, strlen(s->pattern), 0, CEL_REGEX_GO_ERRORS, NULL, 0);
        if (s->re)
            kg_arena_on_reset(a, free_regex, s->re);
    }
    s->all_of = compile_list(a, kg_json_get(schema, "allOf"), &s->nall_of);
    s->any_of = compile_list(a, kg_json_get(schema, "anyOf"), &s->nany_of);
    s->one_of = compile_list(a, kg_json_get(schema, "oneOf"), &s->none_of);
    kg_json *no = kg_json_get(schema, "not");
    if (no && no->type == KG_JSON_OBJECT)
        s->not_ = kg_xs_compile_nodes(a, no);
    const kg_json *rules = kg_json_get(schema, "x-kubernetes-validations");
    s->any_rules = (rules && rules->type == KG_JSON_ARRAY && rules->len) || (s->items && s->items->any_rules) ||
                   (s->additional && s->additional->any_rules);
    for (size_t i = 0; i < s->nprops; i++)
        s->any_rules = s->any_rules || s->props[i]->any_rules;
    return s;
}

kg_xs *kg_xs_compile(kg_arena *a, const kg_json *schema)
{
    kg_xs *s = kg_xs_compile_nodes(a, schema);
    if (s->any_rules)
        kg_xs_rules_compile_tree(a, s);
    return s;
}

const kg_xs *kg_xs_prop(const kg_xs *s, const char *name)
{
    for (size_t i = 0; s && i < s->nprops; i++)
        if (!strcmp(s->prop_names[i], name))
            return s->props[i];
    return NULL;
}

/* ---- paths ---- */

/* Field paths are built for every node the request steps visit, so without printf: one allocation and two copies. */
const char *kg_xs_child_path(kg_arena *a, const char *path, const char *key)
{
    if (!path[0])
        return key;
    size_t pl = strlen(path), kl = strlen(key);
    char *p = kg_arena_alloc(a, pl + kl + 2);
    memcpy(p, path, pl);
    p[pl] = '.';
    memcpy(p + pl + 1, key, kl + 1);
    return p;
}

const char *kg_xs_index_path(kg_arena *a, const char *path, uint32_t i)
{
    char digits[10];
    size_t nd = 0;
    do
        digits[nd++] = (char)('0' + i % 10);
    while ((i /= 10) && nd < sizeof digits);
    size_t pl = strlen(path);
    char *p = kg_arena_alloc(a, pl + nd + 3);
    memcpy(p, path, pl);
    p[pl] = '[';
    for (size_t k = 0; k < nd; k++)
        p[pl + 1 + k] = digits[nd - 1 - k];
    p[pl + 1 + nd] = ']';
    p[pl + 2 + nd] = 0;
    return p;
}

/* ---- prune ---- */

typedef struct prune_ctx {
    kg_arena *a;
    const char ***paths;
    size_t *n;
    size_t cap;
} prune_ctx;

static void pruned(prune_ctx *c, const char *path)
{
    if (!c->paths)
        return;
    if (*c->n == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 8;
        const char **np = kg_arena_alloc(c->a, ncap * sizeof *np);
        if (*c->n)
            memcpy(np, *c->paths, *c->n * sizeof *np);
        *c->paths = np;
        c->cap = ncap;
    }
    (*c->paths)[(*c->n)++] = path;
}

static void prune_node(prune_ctx *c, const kg_xs *s, kg_json *v, const char *path, bool is_resource);

static bool is_meta_key(const char *k)
{
    return !strcmp(k, "apiVersion") || !strcmp(k, "kind") || !strcmp(k, "metadata");
}

static void prune_object(prune_ctx *c, const kg_xs *s, kg_json *v, const char *path, bool is_resource)
{
    for (uint32_t i = 0; i < v->len;) {
        const char *k = v->u.members[i].key;
        kg_json *val = v->u.members[i].val;
        const kg_xs *ps = kg_xs_prop(s, k);
        if (is_resource && is_meta_key(k) && !ps) {
            i++;
            continue;
        }
        const char *p = kg_xs_child_path(c->a, path, k);
        if (!ps && s->additional)
            ps = s->additional;
        if (!ps) {
            if (s->preserve_unknown) {
                i++;
                continue;
            }
            pruned(c, p);
            kg_json_del(v, k);
            continue;
        }
        if (val->type == KG_JSON_NULL && !ps->nullable && !ps->def) {
            kg_json_del(v, k); /* a non-nullable null without a default is dropped (not reported) */
            continue;
        }
        if (is_resource && !strcmp(k, "metadata"))
            ; /* metadata's own schema (at most name/generateName) does not prune ObjectMeta */
        else
            prune_node(c, ps, val, p, false);
        i++;
    }
}

static void prune_node(prune_ctx *c, const kg_xs *s, kg_json *v, const char *path, bool is_resource)
{
    if (!s || !v)
        return;
    if (v->type == KG_JSON_OBJECT) {
        if (s->nprops || s->additional || !s->preserve_unknown || is_resource || s->embedded)
            prune_object(c, s, v, path, is_resource || s->embedded);
    } else if (v->type == KG_JSON_ARRAY && s->items) {
        for (uint32_t i = 0; i < v->len; i++) {
            kg_json *it = v->u.items[i];
            if (it->type == KG_JSON_NULL && !s->items->nullable && !s->items->def)
                continue; /* list items stay (their null is a validation error) */
            prune_node(c, s->items, it, kg_xs_index_path(c->a, path, i), false);
        }
    }
}

void kg_xs_prune(kg_arena *a, const kg_xs *s, kg_json *obj, const char ***paths, size_t *npaths)
{
    prune_ctx c = {a, paths, npaths, 0};
    if (paths) {
        size_t have = *npaths;
        c.cap = have; /* reallocated on the first append */
    }
    prune_node(&c, s, obj, "", true);
}

/* ---- default ---- */

static void default_node(kg_arena *a, const kg_xs *s, kg_json *v)
{
    if (!s || !v)
        return;
    if (v->type == KG_JSON_OBJECT) {
        for (size_t i = 0; i < s->nprops; i++) {
            const kg_xs *ps = s->props[i];
            kg_json *cur = kg_json_get(v, s->prop_names[i]);
            if (ps->def && (!cur || (cur->type == KG_JSON_NULL && !ps->nullable))) {
                cur = kg_json_clone(a, ps->def);
                kg_json_set(a, v, s->prop_names[i], cur);
            }
            if (cur)
                default_node(a, ps, cur);
        }
        if (s->additional)
            for (uint32_t i = 0; i < v->len; i++)
                if (!kg_xs_prop(s, v->u.members[i].key))
                    default_node(a, s->additional, v->u.members[i].val);
    } else if (v->type == KG_JSON_ARRAY && s->items) {
        for (uint32_t i = 0; i < v->len; i++) {
            if (v->u.items[i]->type == KG_JSON_NULL && s->items->def && !s->items->nullable)
                v->u.items[i] = kg_json_clone(a, s->items->def);
            default_node(a, s->items, v->u.items[i]);
        }
    }
}

void kg_xs_default(kg_arena *a, const kg_xs *s, kg_json *obj)
{
    default_node(a, s, obj);
}

/* ---- Go value printing ---- */

char *kg_xs_go_float(kg_arena *a, double d)
{
    if (isnan(d))
        return "NaN";
    if (isinf(d))
        return d > 0 ? "+Inf" : "-Inf";
    char buf[64];
    int prec = 1;
    for (; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    /* buf: d.ddde±XX with the shortest digits; Go's %v uses %e when exp < -4 || exp >= 21 */
    char *e = strchr(buf, 'e');
    int exp = atoi(e + 1);
    if (exp < -4 || exp >= 21) {
        /* Go prints at least two exponent digits: 1e+21, 1.5e-07 */
        char mant[40];
        size_t ml = (size_t)(e - buf);
        memcpy(mant, buf, ml);
        mant[ml] = 0;
        return kg_arena_sprintf(a, "%se%c%02d", mant, exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    }
    int decimals = prec - 1 - exp;
    if (decimals < 0)
        decimals = 0;
    return kg_arena_sprintf(a, "%.*f", decimals, d);
}

static void go_quote(kg_buf *b, const char *s, size_t n)
{
    kg_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') {
            kg_buf_putc(b, '\\');
            kg_buf_putc(b, (char)ch);
        } else if (ch == '\n') {
            kg_buf_puts(b, "\\n");
        } else if (ch == '\t') {
            kg_buf_puts(b, "\\t");
        } else if (ch < 0x20) {
            kg_buf_printf(b, "\\x%02x", ch);
        } else {
            kg_buf_putc(b, (char)ch);
        }
    }
    kg_buf_putc(b, '"');
}

static int cmp_members(const void *x, const void *y)
{
    const kg_json_member *p = *(const kg_json_member *const *)x, *q = *(const kg_json_member *const *)y;
    return strcmp(p->key, q->key);
}

static void go_repr(kg_arena *a, kg_buf *b, const kg_json *v, bool top)
{
    switch (v->type) {
    case KG_JSON_NULL: kg_buf_puts(b, top ? "<nil>" : "interface {}(nil)"); break;
    case KG_JSON_BOOL: kg_buf_puts(b, v->b ? "true" : "false"); break;
    case KG_JSON_INT: kg_buf_printf(b, "%lld", (long long)v->u.i); break;
    case KG_JSON_NUMBER: kg_buf_puts(b, kg_xs_go_float(a, v->u.num.d)); break;
    case KG_JSON_STRING: go_quote(b, v->u.s, v->len); break;
    case KG_JSON_ARRAY:
        kg_buf_puts(b, "[]interface {}{");
        for (uint32_t i = 0; i < v->len; i++) {
            if (i)
                kg_buf_puts(b, ", ");
            go_repr(a, b, v->u.items[i], false);
        }
        kg_buf_putc(b, '}');
        break;
    case KG_JSON_OBJECT: {
        kg_buf_puts(b, "map[string]interface {}{");
        const kg_json_member **m = kg_arena_alloc(a, (v->len + 1) * sizeof *m);
        for (uint32_t i = 0; i < v->len; i++)
            m[i] = &v->u.members[i];
        qsort(m, v->len, sizeof *m, cmp_members);
        for (uint32_t i = 0; i < v->len; i++) {
            if (i)
                kg_buf_puts(b, ", ");
            go_quote(b, m[i]->key, m[i]->key_len);
            kg_buf_putc(b, ':');
            go_repr(a, b, m[i]->val, false);
        }
        kg_buf_putc(b, '}');
        break;
    }
    }
}

char *kg_xs_go_repr(kg_arena *a, const kg_json *v)
{
    kg_buf b = KG_BUF_INIT;
    go_repr(a, &b, v, false);
    char *s = kg_arena_strndup(a, b.data, b.len);
    kg_buf_free(&b);
    return s;
}

const char *kg_xs_json_type(const kg_json *v)
{
    switch (v->type) {
    case KG_JSON_NULL: return "null";
    case KG_JSON_BOOL: return "boolean";
    case KG_JSON_INT: return "integer";
    case KG_JSON_NUMBER: return "number";
    case KG_JSON_STRING: return "string";
    case KG_JSON_ARRAY: return "array";
    default: return "object";
    }
}

/* ---- validate ---- */

/* Add an "Invalid value" error whose value prints as upstream prints the Go value. */
static void invalid_value(kg_arena *a, kg_field_errors *errs, const char *path, const kg_json *v, const char *detail)
{
    if (v->type == KG_JSON_STRING)
        kg_field_invalid(a, errs, path, v->u.s, detail);
    else if (v->type == KG_JSON_INT)
        kg_field_invalid_int(a, errs, path, v->u.i, detail);
    else if (v->type == KG_JSON_BOOL)
        kg_field_invalid_bool(a, errs, path, v->b, detail);
    else if (v->type == KG_JSON_NULL)
        kg_field_invalid(a, errs, path, NULL, detail);
    else
        kg_field_invalid_raw(a, errs, path, kg_xs_go_repr(a, v), detail);
}

/* kube-openapi names the field by its path from the validated root; the root itself is "body". */
static const char *oa_name(const char *path)
{
    return path[0] ? path : "body";
}

static bool type_ok(const kg_xs *s, const kg_json *v)
{
    if (s->int_or_string)
        return v->type == KG_JSON_INT || v->type == KG_JSON_STRING;
    if (!s->type)
        return true;
    const char *t = s->type;
    switch (v->type) {
    case KG_JSON_NULL: return s->nullable;
    case KG_JSON_BOOL: return !strcmp(t, "boolean");
    case KG_JSON_INT: return !strcmp(t, "integer") || !strcmp(t, "number");
    case KG_JSON_NUMBER: return !strcmp(t, "number");
    case KG_JSON_STRING: return !strcmp(t, "string");
    case KG_JSON_ARRAY: return !strcmp(t, "array");
    default: return !strcmp(t, "object");
    }
}

static bool is_digit_run(const char *s, int n)
{
    for (int i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static bool valid_date(const char *s)
{
    return strlen(s) >= 10 && is_digit_run(s, 4) && s[4] == '-' && is_digit_run(s + 5, 2) && s[7] == '-' &&
           is_digit_run(s + 8, 2) && (s[5] - '0') * 10 + (s[6] - '0') >= 1 && (s[5] - '0') * 10 + (s[6] - '0') <= 12 &&
           (s[8] - '0') * 10 + (s[9] - '0') >= 1 && (s[8] - '0') * 10 + (s[9] - '0') <= 31;
}

static bool valid_format(const char *format, const char *s)
{
    if (!strcmp(format, "date"))
        return strlen(s) == 10 && valid_date(s);
    if (!strcmp(format, "date-time")) {
        if (!valid_date(s) || (s[10] != 'T' && s[10] != 't' && s[10] != ' '))
            return false;
        const char *p = s + 11;
        if (!(is_digit_run(p, 2) && p[2] == ':' && is_digit_run(p + 3, 2) && p[5] == ':' && is_digit_run(p + 6, 2)))
            return false;
        p += 8;
        if (*p == '.') {
            p++;
            if (*p < '0' || *p > '9')
                return false;
            while (*p >= '0' && *p <= '9')
                p++;
        }
        if (*p == 'Z' || *p == 'z')
            return p[1] == 0;
        return (*p == '+' || *p == '-') && is_digit_run(p + 1, 2) && p[3] == ':' && is_digit_run(p + 4, 2) && !p[6];
    }
    if (!strcmp(format, "uuid")) {
        static const int groups[] = {8, 4, 4, 4, 12};
        const char *p = s;
        for (int g = 0; g < 5; g++) {
            for (int i = 0; i < groups[g]; i++, p++)
                if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F')))
                    return false;
            if (g < 4 && *p++ != '-')
                return false;
        }
        return !*p;
    }
    if (!strcmp(format, "ipv4")) {
        int parts = 0;
        const char *p = s;
        while (*p) {
            int n = 0, digits = 0;
            while (*p >= '0' && *p <= '9' && digits < 4) {
                n = n * 10 + (*p++ - '0');
                digits++;
            }
            if (!digits || n > 255)
                return false;
            parts++;
            if (*p == '.' && parts < 4)
                p++;
            else
                break;
        }
        return parts == 4 && !*p;
    }
    if (!strcmp(format, "byte")) {
        size_t n = strlen(s);
        if (n % 4)
            return false;
        for (size_t i = 0; i < n; i++) {
            char ch = s[i];
            bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '+' ||
                      ch == '/' || (ch == '=' && i >= n - 2);
            if (!ok)
                return false;
        }
        return true;
    }
    return true; /* formats kgate does not check are accepted, as unknown formats are upstream */
}

static double num_value(const kg_json *v)
{
    return v->type == KG_JSON_INT ? (double)v->u.i : v->u.num.d;
}

/* Validation errors of v against s into a scratch list (for junctors). */
static size_t count_errors(kg_arena *a, const kg_xs *s, const kg_json *v, const char *path)
{
    kg_field_errors tmp = KG_FIELD_ERRORS_INIT;
    kg_xs_validate(a, s, v, path, &tmp);
    return tmp.len;
}

static void validate_list_type(kg_arena *a, const kg_xs *s, const kg_json *v, const char *path, kg_field_errors *errs)
{
    if (!s->list_type || v->type != KG_JSON_ARRAY)
        return;
    if (!strcmp(s->list_type, "set")) {
        for (uint32_t i = 1; i < v->len; i++)
            for (uint32_t j = 0; j < i; j++)
                if (kg_json_equal(v->u.items[i], v->u.items[j])) {
                    const kg_json *x = v->u.items[i];
                    const char *p = kg_xs_index_path(a, path, i);
                    if (x->type == KG_JSON_STRING)
                        kg_field_duplicate(a, errs, p, x->u.s);
                    else {
                        kg_field_error e = {.type = KG_FIELD_DUPLICATE,
                                            .field = p,
                                            .bv_kind = KG_BV_RAW,
                                            .bv_str = kg_xs_go_repr(a, x)};
                        kg_field_errors_add(a, errs, &e);
                    }
                    break;
                }
    } else if (!strcmp(s->list_type, "map")) {
        for (uint32_t i = 0; i < v->len; i++) {
            const kg_json *x = v->u.items[i];
            if (x->type != KG_JSON_OBJECT) {
                invalid_value(a, errs, kg_xs_index_path(a, path, i), x,
                              "must be an object for an array of list-type map");
                continue;
            }
            for (uint32_t j = 0; j < i; j++) {
                const kg_json *y = v->u.items[j];
                if (y->type != KG_JSON_OBJECT)
                    continue;
                bool same = true;
                for (size_t k = 0; k < s->nlist_map_keys && same; k++) {
                    const kg_json *kx = kg_json_get(x, s->list_map_keys[k]), *ky = kg_json_get(y, s->list_map_keys[k]);
                    same = (!kx && !ky) || (kx && ky && kg_json_equal(kx, ky));
                }
                if (!same)
                    continue;
                kg_json *keys = kg_json_new_object(a);
                for (size_t k = 0; k < s->nlist_map_keys; k++) {
                    kg_json *kx = kg_json_get(x, s->list_map_keys[k]);
                    if (kx)
                        kg_json_set(a, keys, s->list_map_keys[k], kx);
                }
                kg_field_error e = {.type = KG_FIELD_DUPLICATE,
                                    .field = kg_xs_index_path(a, path, i),
                                    .bv_kind = KG_BV_RAW,
                                    .bv_str = kg_xs_go_repr(a, keys)};
                kg_field_errors_add(a, errs, &e);
                break;
            }
        }
    }
}

void kg_xs_validate(kg_arena *a, const kg_xs *s, const kg_json *v, const char *path, kg_field_errors *errs)
{
    if (!s || !v)
        return;
    const char *name = oa_name(path);
    if (v->type == KG_JSON_NULL && s->nullable)
        return;
    if (!type_ok(s, v)) {
        const char *want = s->int_or_string ? "integer,string" : s->type;
        const char *got = kg_xs_json_type(v);
        kg_field_type_invalid(a, errs, path, got,
                              kg_arena_sprintf(a, "%s in body must be of type %s: \"%s\"", name, want, got));
        return;
    }
    /* enum */
    if (s->enum_) {
        bool found = false;
        for (uint32_t i = 0; i < s->enum_->len && !found; i++)
            found = kg_json_equal(s->enum_->u.items[i], v);
        if (!found) {
            const char **valid = kg_arena_alloc(a, (s->enum_->len + 1) * sizeof(char *));
            size_t nvalid = 0;
            bool all_strings = true;
            for (uint32_t i = 0; i < s->enum_->len; i++) {
                const kg_json *e = s->enum_->u.items[i];
                if (e->type == KG_JSON_STRING)
                    valid[nvalid++] = e->u.s;
                else
                    all_strings = false;
            }
            if (all_strings && v->type == KG_JSON_STRING) {
                kg_field_not_supported(a, errs, path, v->u.s, valid, nvalid);
            } else {
                kg_buf b = KG_BUF_INIT;
                kg_buf_puts(&b, "supported values: ");
                for (uint32_t i = 0; i < s->enum_->len; i++) {
                    if (i)
                        kg_buf_puts(&b, ", ");
                    kg_buf_puts(&b, kg_xs_go_repr(a, s->enum_->u.items[i]));
                }
                kg_field_error e = {.type = KG_FIELD_NOT_SUPPORTED,
                                    .field = path,
                                    .bv_kind = v->type == KG_JSON_STRING ? KG_BV_STRING : KG_BV_RAW,
                                    .bv_str = v->type == KG_JSON_STRING ? v->u.s : kg_xs_go_repr(a, v),
                                    .detail = kg_arena_strndup(a, b.data, b.len)};
                kg_buf_free(&b);
                kg_field_errors_add(a, errs, &e);
            }
        }
    }
    switch (v->type) {
    case KG_JSON_STRING: {
        int64_t runes = 0;
        for (uint32_t i = 0; i < v->len; i++)
            runes += ((unsigned char)v->u.s[i] & 0xc0) != 0x80;
        if (s->has_max_length && runes > s->max_length)
            kg_field_too_long(a, errs, path, s->max_length);
        if (s->has_min_length && runes < s->min_length)
            kg_field_invalid(
                a, errs, path, v->u.s,
                kg_arena_sprintf(a, "%s in body should be at least %lld chars long", name, (long long)s->min_length));
        if (s->re && !cel_regex_partial_match(s->re, v->u.s, v->len))
            kg_field_invalid(a, errs, path, v->u.s,
                             kg_arena_sprintf(a, "%s in body should match '%s'", name, s->pattern));
        if (s->format && !s->int_or_string && !valid_format(s->format, v->u.s))
            kg_field_type_invalid(
                a, errs, path, v->u.s,
                kg_arena_sprintf(a, "%s in body must be of type %s: \"%s\"", name, s->format, v->u.s));
        break;
    }
    case KG_JSON_INT:
    case KG_JSON_NUMBER: {
        if (s->int_or_string)
            break;
        double d = num_value(v);
        if (s->has_maximum && (s->excl_maximum ? d >= s->maximum : d > s->maximum))
            invalid_value(a, errs, path, v,
                          kg_arena_sprintf(a, "%s in body should be less than %s%s", name,
                                           s->excl_maximum ? "" : "or equal to ", s->maximum_text));
        if (s->has_minimum && (s->excl_minimum ? d <= s->minimum : d < s->minimum))
            invalid_value(a, errs, path, v,
                          kg_arena_sprintf(a, "%s in body should be greater than %s%s", name,
                                           s->excl_minimum ? "" : "or equal to ", s->minimum_text));
        if (s->has_multiple_of && s->multiple_of > 0) {
            double q = d / s->multiple_of;
            if (fabs(q - nearbyint(q)) > 1e-9)
                invalid_value(a, errs, path, v,
                              kg_arena_sprintf(a, "%s in body should be a multiple of %s", name, s->multiple_of_text));
        }
        break;
    }
    case KG_JSON_ARRAY: {
        if (s->has_max_items && v->len > s->max_items)
            kg_field_too_many(a, errs, path, v->len, s->max_items);
        if (s->has_min_items && v->len < s->min_items)
            invalid_value(
                a, errs, path, v,
                kg_arena_sprintf(a, "%s in body should have at least %lld items", name, (long long)s->min_items));
        validate_list_type(a, s, v, path, errs);
        if (s->items)
            for (uint32_t i = 0; i < v->len; i++)
                kg_xs_validate(a, s->items, v->u.items[i], kg_xs_index_path(a, path, i), errs);
        break;
    }
    case KG_JSON_OBJECT: {
        if (s->has_max_props && v->len > s->max_props)
            kg_field_too_many(a, errs, path, v->len, s->max_props);
        if (s->has_min_props && v->len < s->min_props)
            invalid_value(
                a, errs, path, v,
                kg_arena_sprintf(a, "%s in body should have at least %lld properties", name, (long long)s->min_props));
        for (size_t i = 0; i < s->nrequired; i++)
            if (!kg_json_get(v, s->required[i]))
                kg_field_required(a, errs, kg_xs_child_path(a, path, s->required[i]), NULL);
        if (s->embedded) {
            const char *av = kg_json_get_str(v, "apiVersion"), *k = kg_json_get_str(v, "kind");
            if (!av || !av[0])
                kg_field_required(a, errs, kg_xs_child_path(a, path, "apiVersion"), "must not be empty");
            if (!k || !k[0])
                kg_field_required(a, errs, kg_xs_child_path(a, path, "kind"), "must not be empty");
        }
        for (uint32_t i = 0; i < v->len; i++) {
            const char *k = v->u.members[i].key;
            const kg_xs *ps = kg_xs_prop(s, k);
            if (!ps)
                ps = s->additional;
            if (ps)
                kg_xs_validate(a, ps, v->u.members[i].val, kg_xs_child_path(a, path, k), errs);
        }
        break;
    }
    default: break;
    }
    /* junctors */
    for (size_t i = 0; i < s->nall_of; i++)
        kg_xs_validate(a, s->all_of[i], v, path, errs);
    if (s->nany_of && !s->int_or_string) {
        bool any = false;
        for (size_t i = 0; i < s->nany_of && !any; i++)
            any = count_errors(a, s->any_of[i], v, path) == 0;
        if (!any)
            invalid_value(a, errs, path, v,
                          kg_arena_sprintf(a, "%s in body must validate at least one schema (anyOf)", name));
    }
    if (s->none_of) {
        size_t ok = 0;
        for (size_t i = 0; i < s->none_of; i++)
            ok += count_errors(a, s->one_of[i], v, path) == 0;
        if (ok != 1)
            invalid_value(a, errs, path, v,
                          kg_arena_sprintf(a, "%s in body must validate one and only one schema (oneOf)", name));
    }
    if (s->not_ && count_errors(a, s->not_, v, path) == 0)
        invalid_value(a, errs, path, v, kg_arena_sprintf(a, "%s in body must not validate the schema (not)", name));
}
