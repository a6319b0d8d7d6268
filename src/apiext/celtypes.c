/* CEL types of structural schemas and the typed view of values (celtypes.h). */
#include "apiext/celtypes.h"

#include <string.h>

#include "base/base64.h"
#include "cel/cel_json.h"
#include "cel/k8s/escaping.h"

/* apiserver pkg/cel limits.go: minimum and maximum serialized sizes of JSON values */
#define MIN_STRING_SIZE 2
#define MIN_BOOL_SIZE 4
#define MIN_NUMBER_SIZE 1
#define MIN_DURATION_SIZE 3
#define MAX_DURATION_SIZE 32
#define DATE_SIZE 12
#define MIN_DATETIME_SIZE 21
#define MAX_DATETIME_SIZE 32
#define MAX_DEPTH 64

typedef struct bctx {
    cel_env *env;
    kg_arena *a;
} bctx;

static kg_xs_decl *new_decl(bctx *c, kg_xs_decl_kind k, const cel_type *t, int64_t min, int64_t max, bool plain)
{
    kg_xs_decl *d = kg_arena_alloc(c->a, sizeof *d);
    memset(d, 0, sizeof *d);
    d->kind = k;
    d->type = t;
    d->min_size = min;
    d->max_elements = max;
    d->plain = plain;
    return d;
}

static int64_t nonneg(int64_t v)
{
    return v < 0 ? 0 : v;
}

/* One field of an object under construction. */
typedef struct field {
    const char *name, *json;
    const kg_xs_decl *d;
} field;

static const kg_xs_decl *build(bctx *c, const kg_xs *s, bool root, const char *name, int depth);

static const kg_xs_decl *string_decl(bctx *c)
{
    return new_decl(c, KG_XD_STRING, cel_type_string(), MIN_STRING_SIZE, KG_XS_MAX_REQUEST_BYTES - 2, true);
}

/* metadata as rules see it at a resource root: name and generateName */
static const kg_xs_decl *meta_decl(bctx *c, const char *name)
{
    cel_type *t = cel_type_object(c->env, kg_arena_sprintf(c->a, "%s.metadata", name));
    kg_xs_decl *d = new_decl(c, KG_XD_OBJECT, t, 2, 0, false);
    d->nfields = 2;
    d->names = kg_arena_alloc(c->a, 2 * sizeof *d->names);
    d->json_names = d->names;
    d->fields = kg_arena_alloc(c->a, 2 * sizeof *d->fields);
    d->names[0] = "name";
    d->names[1] = "generateName";
    if (!t->nfields) {
        cel_type_object_add_field(c->env, t, "", cel_type_dyn()); /* keeps the type closed (see object_decl) */
        for (size_t i = 0; i < 2; i++)
            cel_type_object_add_field(c->env, t, d->names[i], cel_type_string());
    }
    for (size_t i = 0; i < 2; i++)
        d->fields[i] = string_decl(c);
    return d;
}

static const kg_xs_decl *object_decl(bctx *c, const kg_xs *s, bool root, const char *name, int depth)
{
    size_t cap = s->nprops + 3, n = 0;
    field *fs = kg_arena_alloc(c->a, cap * sizeof *fs);
    int64_t min = 2; /* {} */
    bool plain = !s->preserve_unknown && !root;
    for (size_t i = 0; i < s->nprops; i++) {
        const char *pn = s->prop_names[i];
        if (root && (!strcmp(pn, "apiVersion") || !strcmp(pn, "kind") || !strcmp(pn, "metadata")))
            continue; /* replaced by the resource's own (below) */
        const kg_xs *ps = s->props[i];
        const kg_xs_decl *fd = build(c, ps, ps->embedded, kg_arena_sprintf(c->a, "%s.%s", name, pn), depth + 1);
        if (!fd) {
            plain = false;
            continue;
        }
        const char *esc = cel_k8s_escape_name(c->a, pn);
        if (esc) {
            fs[n++] = (field){esc, pn, fd};
            plain = plain && fd->plain && esc == pn;
        } else {
            plain = false;
        }
        bool required = false;
        for (size_t k = 0; k < s->nrequired && !required; k++)
            required = !strcmp(s->required[k], pn);
        if (required && !ps->def)
            min += (int64_t)strlen(pn) + fd->min_size + 4;
    }
    if (root) {
        fs[n++] = (field){"apiVersion", "apiVersion", string_decl(c)};
        fs[n++] = (field){"kind", "kind", string_decl(c)};
        fs[n++] = (field){"metadata", "metadata", meta_decl(c, name)};
    }
    cel_type *t = cel_type_object(c->env, name);
    kg_xs_decl *d = new_decl(c, KG_XD_OBJECT, t, min, 0, plain);
    d->nfields = n;
    d->names = kg_arena_alloc(c->a, (n + 1) * sizeof *d->names);
    d->json_names = kg_arena_alloc(c->a, (n + 1) * sizeof *d->json_names);
    d->fields = kg_arena_alloc(c->a, (n + 1) * sizeof *d->fields);
    for (size_t i = 0; i < n; i++) {
        d->names[i] = fs[i].name;
        d->json_names[i] = fs[i].json;
        d->fields[i] = fs[i].d;
    }
    if (!t->nfields) {
        /* first a field no expression can select: an object type without fields would accept any field, and
         * upstream's object types are closed (selecting an undeclared field is "undefined field") */
        cel_type_object_add_field(c->env, t, "", cel_type_dyn());
        for (size_t i = 0; i < n; i++)
            cel_type_object_add_field(c->env, t, fs[i].name, fs[i].d->type);
    }
    return d;
}

static const kg_xs_decl *build(bctx *c, const kg_xs *s, bool root, const char *name, int depth)
{
    if (!s || depth > MAX_DEPTH)
        return NULL;
    if (s->int_or_string)
        return new_decl(c, KG_XD_DYN, cel_type_dyn(), 1, KG_XS_MAX_REQUEST_BYTES - 2, true);
    const char *type = s->type;
    if (!type)
        return NULL;
    if (!strcmp(type, "array")) {
        if (!s->items)
            return NULL;
        const kg_xs_decl *it =
            build(c, s->items, s->items->embedded, kg_arena_sprintf(c->a, "%s.@idx", name), depth + 1);
        if (!it)
            return NULL;
        int64_t max = s->has_max_items ? nonneg(s->max_items) : (KG_XS_MAX_REQUEST_BYTES - 2) / (it->min_size + 1);
        kg_xs_decl *d = new_decl(c, KG_XD_LIST, cel_type_list(c->env, it->type), 2, max, it->plain);
        d->elem = it;
        return d;
    }
    if (!strcmp(type, "object")) {
        if (s->additional && s->additional->raw) {
            const kg_xs_decl *vt =
                build(c, s->additional, s->additional->embedded, kg_arena_sprintf(c->a, "%s.@elem", name), depth + 1);
            if (!vt)
                return NULL;
            int64_t max = s->has_max_props ? nonneg(s->max_props) : (KG_XS_MAX_REQUEST_BYTES - 2) / (vt->min_size + 6);
            kg_xs_decl *d =
                new_decl(c, KG_XD_MAP, cel_type_map(c->env, cel_type_string(), vt->type), 2, max, vt->plain);
            d->elem = vt;
            return d;
        }
        return object_decl(c, s, root, name, depth);
    }
    if (!strcmp(type, "string")) {
        const char *f = s->format ? s->format : "";
        if (!strcmp(f, "byte"))
            return new_decl(c, KG_XD_BYTES, cel_type_bytes(), MIN_STRING_SIZE,
                            s->has_max_length ? nonneg(s->max_length) : KG_XS_MAX_REQUEST_BYTES - 2, false);
        if (!strcmp(f, "duration"))
            return new_decl(c, KG_XD_DURATION, cel_type_duration(), MIN_DURATION_SIZE, MAX_DURATION_SIZE, false);
        if (!strcmp(f, "date"))
            return new_decl(c, KG_XD_DATE, cel_type_timestamp(), DATE_SIZE, DATE_SIZE, false);
        if (!strcmp(f, "date-time"))
            return new_decl(c, KG_XD_TIMESTAMP, cel_type_timestamp(), MIN_DATETIME_SIZE, MAX_DATETIME_SIZE, false);
        /* maxLength counts code points; sizes are bytes (up to 4 per code point) */
        return new_decl(c, KG_XD_STRING, cel_type_string(), MIN_STRING_SIZE,
                        s->has_max_length ? nonneg(s->max_length) * 4 : KG_XS_MAX_REQUEST_BYTES - 2, true);
    }
    if (!strcmp(type, "boolean"))
        return new_decl(c, KG_XD_BOOL, cel_type_bool(), MIN_BOOL_SIZE, 0, true);
    if (!strcmp(type, "number")) /* JSON integers are doubles here */
        return new_decl(c, KG_XD_DOUBLE, cel_type_double(), MIN_NUMBER_SIZE, 0, false);
    if (!strcmp(type, "integer"))
        return new_decl(c, KG_XD_INT, cel_type_int(), MIN_NUMBER_SIZE, 0, true);
    return NULL;
}

const kg_xs_decl *kg_xs_decl_build(cel_env *env, kg_arena *a, const kg_xs *s, bool resource_root, const char *name)
{
    bctx c = {env, a};
    return build(&c, s, resource_root, name, 0);
}

const kg_xs_decl *kg_xs_decl_field(const kg_xs_decl *d, const char *name)
{
    for (size_t i = 0; d && d->kind == KG_XD_OBJECT && i < d->nfields; i++)
        if (!strcmp(d->names[i], name))
            return d->fields[i];
    return NULL;
}

uint64_t kg_xs_decl_unbounded_cardinality(int64_t min_size)
{
    return (uint64_t)KG_XS_MAX_REQUEST_BYTES / (uint64_t)(min_size + 1); /* at least a comma between elements */
}

/* ---- cost estimation ---- */

static const void *host_var(void *ud, const char *name)
{
    return !strcmp(name, "self") || !strcmp(name, "oldSelf") ? ud : NULL;
}

static const void *host_field(void *ud, const void *node, const char *name)
{
    (void)ud;
    return kg_xs_decl_field(node, name);
}

static const void *host_elem(void *ud, const void *node, bool keys)
{
    (void)ud;
    const kg_xs_decl *d = node;
    if (keys)
        return NULL; /* map keys: strings of unknown length */
    return d->kind == KG_XD_LIST || d->kind == KG_XD_MAP ? d->elem : NULL;
}

static bool host_max(void *ud, const void *node, uint64_t *max)
{
    (void)ud;
    const kg_xs_decl *d = node;
    switch (d->kind) {
    case KG_XD_DYN:
    case KG_XD_STRING:
    case KG_XD_BYTES:
    case KG_XD_DURATION:
    case KG_XD_TIMESTAMP:
    case KG_XD_DATE:
    case KG_XD_LIST:
    case KG_XD_MAP:
    default: *max = (uint64_t)d->max_elements; return true; /* 0 for scalars and objects, as upstream */
    }
}

void kg_xs_decl_size_host(cel_size_host *h, const kg_xs_decl *d)
{
    *h = (cel_size_host){(void *)d, host_var, host_field, host_elem, host_max};
}

/* ---- the typed view of values ---- */

typedef struct wrap {
    const kg_xs_decl *d;
    const kg_json *j;
    kg_arena *a;
} wrap;

static kg_arena *arena_of(cel_call_ctx *ctx, const wrap *w)
{
    return ctx ? cel_call_arena(ctx) : w->a;
}

static size_t list_size(const cel_value *l)
{
    return ((const wrap *)l->u.ptr)->j->len;
}

static cel_value list_get(cel_call_ctx *ctx, const cel_value *l, size_t i)
{
    const wrap *w = l->u.ptr;
    return kg_xs_decl_value(arena_of(ctx, w), w->d->elem, w->j->u.items[i]);
}

static const cel_list_vt list_vt = {list_size, list_get};

/* maps (additionalProperties): JSON keys, typed values */

static const kg_json *member(const kg_json *o, const char *k, size_t n)
{
    for (uint32_t i = 0; i < o->len; i++)
        if (!strncmp(o->u.members[i].key, k, n) && !o->u.members[i].key[n])
            return o->u.members[i].val;
    return NULL;
}

static size_t map_size(const cel_value *m)
{
    return ((const wrap *)m->u.ptr)->j->len;
}

static bool map_get_str(cel_call_ctx *ctx, const cel_value *m, const char *k, size_t n, cel_value *out)
{
    const wrap *w = m->u.ptr;
    const kg_json *v = member(w->j, k, n);
    if (!v)
        return false;
    *out = kg_xs_decl_value(arena_of(ctx, w), w->d->elem, v);
    return true;
}

static bool map_get(cel_call_ctx *ctx, const cel_value *m, const cel_value *key, cel_value *out)
{
    return key->kind == CEL_STRING && map_get_str(ctx, m, key->u.s, key->n, out);
}

static void map_entry(cel_call_ctx *ctx, const cel_value *m, size_t i, cel_value *key, cel_value *val)
{
    const wrap *w = m->u.ptr;
    const char *k = w->j->u.members[i].key;
    *key = cel_string(k, strlen(k));
    if (val)
        *val = kg_xs_decl_value(arena_of(ctx, w), w->d->elem, w->j->u.members[i].val);
}

static const cel_map_vt map_vt = {map_size, map_get, map_entry, map_get_str, NULL};

/* objects: the declared fields present in the JSON object, by CEL name */

static const kg_json *field_value(const wrap *w, size_t f)
{
    return kg_json_get(w->j, w->d->json_names[f]);
}

static size_t obj_size(const cel_value *m)
{
    const wrap *w = m->u.ptr;
    size_t n = 0;
    for (size_t f = 0; f < w->d->nfields; f++)
        n += field_value(w, f) != NULL;
    return n;
}

static bool obj_get_str(cel_call_ctx *ctx, const cel_value *m, const char *k, size_t n, cel_value *out)
{
    const wrap *w = m->u.ptr;
    for (size_t f = 0; f < w->d->nfields; f++) {
        const char *name = w->d->names[f];
        if (strncmp(name, k, n) || name[n])
            continue;
        const kg_json *v = field_value(w, f);
        if (!v)
            return false;
        *out = kg_xs_decl_value(arena_of(ctx, w), w->d->fields[f], v);
        return true;
    }
    return false;
}

static bool obj_get(cel_call_ctx *ctx, const cel_value *m, const cel_value *key, cel_value *out)
{
    return key->kind == CEL_STRING && obj_get_str(ctx, m, key->u.s, key->n, out);
}

static void obj_entry(cel_call_ctx *ctx, const cel_value *m, size_t i, cel_value *key, cel_value *val)
{
    const wrap *w = m->u.ptr;
    for (size_t f = 0; f < w->d->nfields; f++) {
        const kg_json *v = field_value(w, f);
        if (!v || i--)
            continue;
        *key = cel_string(w->d->names[f], strlen(w->d->names[f]));
        if (val)
            *val = kg_xs_decl_value(arena_of(ctx, w), w->d->fields[f], v);
        return;
    }
    *key = cel_null();
    if (val)
        *val = cel_null();
}

static const cel_type *obj_type(const cel_value *m)
{
    return ((const wrap *)m->u.ptr)->d->type;
}

static const cel_map_vt obj_vt = {obj_size, obj_get, obj_entry, obj_get_str, obj_type};

static wrap *new_wrap(kg_arena *a, const kg_xs_decl *d, const kg_json *j)
{
    wrap *w = kg_arena_alloc(a, sizeof *w);
    *w = (wrap){d, j, a};
    return w;
}

static cel_value timestamp_of(kg_arena *a, const char *s, size_t n, bool date)
{
    int64_t secs;
    int32_t nanos;
    if (date) {
        char buf[32];
        if (n != 10)
            return cel_error_new(a, "invalid date: %.*s", (int)n, s);
        memcpy(buf, s, 10);
        memcpy(buf + 10, "T00:00:00Z", 11);
        if (!cel_parse_timestamp(buf, 20, &secs, &nanos))
            return cel_error_new(a, "invalid date: %.*s", (int)n, s);
    } else if (!cel_parse_timestamp(s, n, &secs, &nanos)) {
        return cel_error_new(a, "invalid date-time: %.*s", (int)(n > 64 ? 64 : n), s);
    }
    return cel_timestamp(secs, nanos);
}

cel_value kg_xs_decl_value(kg_arena *a, const kg_xs_decl *d, const kg_json *v)
{
    if (!d || d->plain || !v)
        return cel_json_to_value(v);
    switch (d->kind) {
    case KG_XD_DOUBLE:
        if (v->type == KG_JSON_INT)
            return cel_double((double)v->u.i);
        break;
    case KG_XD_BYTES:
        if (v->type == KG_JSON_STRING) {
            size_t n = 0, pos = 0;
            char *b = kg_base64_decode(a, v->u.s, v->len, 0, &n, &pos);
            return b ? cel_bytes(b, n) : cel_error_new(a, "illegal base64 data at input byte %zu", pos);
        }
        break;
    case KG_XD_DURATION:
        if (v->type == KG_JSON_STRING) {
            int64_t ns;
            if (cel_parse_duration(v->u.s, v->len, &ns))
                return cel_duration(ns);
            return cel_error_new(a, "invalid duration: %.*s", (int)(v->len > 64 ? 64 : v->len), v->u.s);
        }
        break;
    case KG_XD_TIMESTAMP:
    case KG_XD_DATE:
        if (v->type == KG_JSON_STRING)
            return timestamp_of(a, v->u.s, v->len, d->kind == KG_XD_DATE);
        break;
    case KG_XD_LIST:
        if (v->type == KG_JSON_ARRAY)
            return cel_list_custom(&list_vt, new_wrap(a, d, v), v->len);
        break;
    case KG_XD_MAP:
        if (v->type == KG_JSON_OBJECT)
            return cel_map_custom(&map_vt, new_wrap(a, d, v), v->len);
        break;
    case KG_XD_OBJECT:
        if (v->type == KG_JSON_OBJECT)
            return cel_map_custom(&obj_vt, new_wrap(a, d, v), (uint32_t)d->nfields);
        break;
    default: break;
    }
    return cel_json_to_value(v);
}
