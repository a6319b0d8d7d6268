/* OpenAPI type schemas of the served resources, from the compact text in schema_data_*.c (format: docs/openapi.md).
 *
 * The text is parsed once (pthread_once) into static, immutable tables: types (a hash index by full name) and
 * their fields (contiguous per type). Everything afterwards is read-only, so request threads share it without
 * locks. Strings of the index point into one NUL-split copy of the text and are handed to the JSON DOM without
 * copying. */
#include "api/schema.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema_data.h"
#include "api/schema_internal.h"
#include "base/log.h"
#include "base/hash.h"

#define MAX_TYPES 640
#define MAX_FIELDS 6144
#define HSIZE 2048
#define FHSIZE 16384 /* > 2 * MAX_FIELDS */

static stype types[MAX_TYPES];
static sfield fields[MAX_FIELDS];
static uint32_t ntypes, nfields;
static int16_t htab[HSIZE];                   /* type index + 1, 0 = empty */
static int16_t fhtab[FHSIZE];                 /* field index + 1, 0 = empty */
static const kg_resource *kind_of[MAX_TYPES]; /* the served resource whose kind a type is, or NULL */
static char *text;                            /* NUL-split copy of all data */
static char problem[256];
static char hash_hex[17];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const char *const *data_sets[] = {
    kg_schema_data_meta,        kg_schema_data_core,      kg_schema_data_core_pod,
    kg_schema_data_core_volume, kg_schema_data_core_misc, kg_schema_data_apps,
    kg_schema_data_batch,       kg_schema_data_groups,    kg_schema_data_admission,
    kg_schema_data_apiext,
    kg_schema_data_policy,      kg_schema_data_more,      kg_schema_data_autoscaling,
    kg_schema_data_flowcontrol, kg_schema_data_reviews,
};

static void note_problem(const char *fmt, const char *a1, const char *a2)
{
    if (problem[0])
        return;
    snprintf(problem, sizeof problem, fmt, a1, a2);
    KG_WARN("schema: %s", problem);
}

static uint32_t hash_str(const char *s, size_t n)
{
    return kg_fnv1a32(s, n);
}

static int find_type_n(const char *name, size_t n)
{
    for (uint32_t h = hash_str(name, n) & (HSIZE - 1);; h = (h + 1) & (HSIZE - 1)) {
        int i = htab[h] - 1;
        if (i < 0)
            return -1;
        if (!strncmp(types[i].name, name, n) && types[i].name[n] == 0)
            return i;
    }
}

static int find_type(const char *name)
{
    return find_type_n(name, strlen(name));
}

static void add_type_index(int idx)
{
    const char *name = types[idx].name;
    if (find_type(name) >= 0) {
        note_problem("duplicate type %s%s", name, "");
        return;
    }
    uint32_t h = hash_str(name, strlen(name)) & (HSIZE - 1);
    while (htab[h])
        h = (h + 1) & (HSIZE - 1);
    htab[h] = (int16_t)(idx + 1);
}

/* Resolve a type token: a full name, or a short name looked up in the type's own package, then in core/v1, meta/v1
 * and the apimachinery packages. */
static int resolve(const char *tok, const char *pkg)
{
    if (strchr(tok, '.'))
        return find_type(tok);
    static const char *const fallbacks[] = {
        NULL,
        "io.k8s.api.core.v1",
        "io.k8s.apimachinery.pkg.apis.meta.v1",
        "io.k8s.apimachinery.pkg.util.intstr",
        "io.k8s.apimachinery.pkg.api.resource",
        "io.k8s.apimachinery.pkg.runtime",
    };
    char buf[256];
    for (size_t i = 0; i < sizeof fallbacks / sizeof *fallbacks; i++) {
        const char *p = i ? fallbacks[i] : pkg;
        if (!p)
            continue;
        snprintf(buf, sizeof buf, "%s.%s", p, tok);
        int t = find_type(buf);
        if (t >= 0)
            return t;
    }
    return -1;
}

/* Split s at spaces into tokens (in place). Returns the count. */
static size_t split_tokens(char *s, char **tok, size_t max)
{
    size_t n = 0;
    while (*s && n < max) {
        while (*s == ' ')
            *s++ = 0;
        if (!*s)
            break;
        tok[n++] = s;
        while (*s && *s != ' ')
            s++;
    }
    return n;
}

static void parse_field_type(sfield *f, const char *tok)
{
    f->shape = SH_SCALAR;
    if (!strncmp(tok, "[]", 2)) {
        f->shape = SH_ARRAY;
        tok += 2;
    } else if (!strncmp(tok, "{}", 2)) {
        f->shape = SH_MAP;
        tok += 2;
        if (!strncmp(tok, "[]", 2)) {
            f->inner_array = true;
            tok += 2;
        }
    }
    static const struct {
        const char *tok;
        uint8_t kind;
    } prims[] = {{"s", K_STRING}, {"i32", K_INT32}, {"i64", K_INT64}, {"b", K_BOOL},
                 {"f", K_NUMBER}, {"byte", K_BYTE}, {"obj", K_OBJ}};
    for (size_t i = 0; i < sizeof prims / sizeof *prims; i++) {
        if (!strcmp(tok, prims[i].tok)) {
            f->kind = prims[i].kind;
            return;
        }
    }
    /* shorthands for the apimachinery types */
    static const struct {
        const char *tok, *full;
    } alias[] = {{"ios", "io.k8s.apimachinery.pkg.util.intstr.IntOrString"},
                 {"q", "io.k8s.apimachinery.pkg.api.resource.Quantity"},
                 {"t", "io.k8s.apimachinery.pkg.apis.meta.v1.Time"},
                 {"mt", "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"}};
    for (size_t i = 0; i < sizeof alias / sizeof *alias; i++) {
        if (!strcmp(tok, alias[i].tok)) {
            tok = alias[i].full;
            break;
        }
    }
    f->kind = K_REF;
    f->ref_token = tok;
    f->ref = -1;
}

static void parse_line(char *line, const char **pkg, int *cur)
{
    switch (line[0]) {
    case 0:
    case '#': return;
    case '=': *pkg = line + 1; return;
    case '@': {
        if (ntypes >= MAX_TYPES) {
            note_problem("too many types%s%s", "", "");
            return;
        }
        char *name = line + 1;
        char *sp = strchr(name, ' ');
        const char *desc = "";
        if (sp) {
            *sp = 0;
            desc = sp + 1;
        }
        stype *t = &types[ntypes];
        memset(t, 0, sizeof *t);
        t->include = -1;
        t->desc = desc;
        t->pkg = *pkg;
        char *colon = strchr(name, ':');
        if (colon) {
            *colon = 0;
            t->prim_type = colon + 1;
            char *c2 = strchr(colon + 1, ':');
            if (c2) {
                *c2 = 0;
                t->prim_format = c2 + 1;
            }
        }
        /* full name: package + "." + short name, kept in a static pool */
        static char names[MAX_TYPES * 96];
        static size_t names_len;
        int w = snprintf(names + names_len, sizeof names - names_len, "%s.%s", *pkg ? *pkg : "", name);
        if (w < 0 || (size_t)w >= sizeof names - names_len) {
            note_problem("type name pool full at %s%s", name, "");
            return;
        }
        t->name = names + names_len;
        names_len += (size_t)w + 1;
        t->first = nfields;
        add_type_index((int)ntypes);
        *cur = (int)ntypes++;
        return;
    }
    case '>':
        if (*cur >= 0)
            types[*cur].include_token = line + 1;
        return;
    case '.': {
        if (*cur < 0 || nfields >= MAX_FIELDS) {
            note_problem("field outside a type or too many fields: %s%s", line, "");
            return;
        }
        char *bar = strchr(line, '|');
        const char *desc = "";
        if (bar) {
            *bar = 0;
            desc = bar + 1;
        }
        char *tok[12];
        size_t nt = split_tokens(line + 1, tok, 12);
        if (nt < 2) {
            note_problem("malformed field line %s%s", line, "");
            return;
        }
        sfield *f = &fields[nfields];
        memset(f, 0, sizeof *f);
        f->name = tok[0];
        f->name_len = (uint32_t)strlen(tok[0]);
        f->desc = desc;
        parse_field_type(f, tok[1]);
        for (size_t i = 2; i < nt; i++) {
            char *t = tok[i];
            if (!strcmp(t, "!"))
                f->required = true;
            else if (!strncmp(t, "mk=", 3))
                f->mk = t + 3;
            else if (!strncmp(t, "ps=", 3))
                f->ps = t + 3;
            else if (!strncmp(t, "lt=", 3))
                f->lt = t + 3;
            else if (!strncmp(t, "lk=", 3))
                f->lk = t + 3;
            else if (!strncmp(t, "e=", 2))
                f->en = t + 2;
            else
                note_problem("unknown field flag %s on %s", t, f->name);
        }
        types[*cur].nfields++;
        nfields++;
        return;
    }
    default: note_problem("unparsable schema line: %s%s", line, "");
    }
}

static void index_fields(void);

/* io.k8s.api.<group short name>.<version>.<Kind> */
static void type_name_buf(const kg_resource *r, char *buf, size_t size)
{
    const char *g = r->group[0] ? r->group : "core";
    const char *dot = strchr(g, '.');
    snprintf(buf, size, "io.k8s.api.%.*s.%s.%s", dot ? (int)(dot - g) : (int)strlen(g), g, r->version, r->kind);
}

static void load(void)
{
    size_t total = 0;
    uint64_t h = KG_FNV1A64_INIT;
    for (size_t i = 0; i < sizeof data_sets / sizeof *data_sets; i++)
        for (const char *const *l = data_sets[i]; *l; l++)
            total += strlen(*l) + 1;
    text = malloc(total + 1);
    if (!text)
        abort();
    char *w = text;
    for (size_t i = 0; i < sizeof data_sets / sizeof *data_sets; i++) {
        for (const char *const *l = data_sets[i]; *l; l++) {
            size_t n = strlen(*l);
            memcpy(w, *l, n + 1);
            h = kg_fnv1a64_continue(h, w, n + 1);
            w += n + 1;
        }
    }
    snprintf(hash_hex, sizeof hash_hex, "%016llX", (unsigned long long)h);
    const char *pkg = "";
    int cur = -1;
    for (char *l = text; l < w;) {
        char *next = l + strlen(l) + 1; /* before parse_line splits the line in place */
        parse_line(l, &pkg, &cur);
        l = next;
    }
    /* resolve references */
    for (uint32_t i = 0; i < ntypes; i++) {
        stype *t = &types[i];
        if (t->include_token) {
            t->include = resolve(t->include_token, t->pkg);
            if (t->include < 0)
                note_problem("unresolved include %s in %s", t->include_token, t->name);
        }
        for (uint32_t k = t->first; k < t->first + t->nfields; k++) {
            sfield *f = &fields[k];
            for (uint32_t j = t->first; j < k; j++)
                if (!strcmp(fields[j].name, f->name))
                    note_problem("duplicate field %s in %s", f->name, t->name);
            if (f->kind != K_REF)
                continue;
            f->ref = resolve(f->ref_token, t->pkg);
            if (f->ref < 0) {
                note_problem("unresolved type %s in %s", f->ref_token, t->name);
                f->kind = K_OBJ;
            }
        }
    }
    index_fields();
    /* which types are served kinds: their definitions carry x-kubernetes-group-version-kind wherever they appear
     * (a PersistentVolumeClaim inside an apps/v1 document too, as upstream) */
    for (size_t i = 0; i < kg_resources_count(); i++) {
        const kg_resource *r = kg_resource_at(i);
        char name[256];
        type_name_buf(r, name, sizeof name);
        int t = find_type(name);
        if (t >= 0 && !kind_of[t])
            kind_of[t] = r;
    }
}

static void ensure_loaded(void)
{
    pthread_once(&once, load);
}

/* ---- queries ---- */

static uint32_t field_slot(int t, const char *name, size_t n)
{
    return (hash_str(name, n) ^ ((uint32_t)t * 0x9E3779B1u)) & (FHSIZE - 1);
}

/* (type, field name) -> field, own fields only; filled once after parsing. */
static void index_fields(void)
{
    for (uint32_t t = 0; t < ntypes; t++) {
        for (uint32_t k = types[t].first; k < types[t].first + types[t].nfields; k++) {
            uint32_t h = field_slot((int)t, fields[k].name, fields[k].name_len);
            while (fhtab[h])
                h = (h + 1) & (FHSIZE - 1);
            fhtab[h] = (int16_t)(k + 1);
        }
    }
}

static const sfield *find_own_field(int t, const char *name, size_t n)
{
    const stype *ty = &types[t];
    for (uint32_t h = field_slot(t, name, n);; h = (h + 1) & (FHSIZE - 1)) {
        int k = fhtab[h] - 1;
        if (k < 0)
            return NULL;
        const sfield *f = &fields[k];
        if ((uint32_t)k >= ty->first && (uint32_t)k < ty->first + ty->nfields && f->name_len == n &&
            !memcmp(f->name, name, n))
            return f;
    }
}

static const sfield *find_field(int t, const char *name, size_t n)
{
    for (int depth = 0; t >= 0 && depth < 4; depth++) {
        const sfield *f = find_own_field(t, name, n);
        if (f)
            return f;
        t = types[t].include;
    }
    return NULL;
}

static bool is_struct(int t)
{
    return t >= 0 && !types[t].prim_type;
}

/* ---- read-only access for the decode check (schema_internal.h) ---- */

int kg_schema_i_find_type(const char *name)
{
    ensure_loaded();
    return find_type(name);
}

const kg_schema_i_type *kg_schema_i_type_at(int t)
{
    return &types[t];
}

const kg_schema_i_field *kg_schema_i_find_field(int t, const char *name, size_t n)
{
    return find_field(t, name, n);
}

char *kg_schema_type_name(kg_arena *a, const kg_resource *r)
{
    char name[256];
    type_name_buf(r, name, sizeof name);
    return kg_arena_strdup(a, name);
}

kg_schema_list_type kg_schema_list_type_of(const char *group, const char *kind, const char *const *path, size_t n,
                                           const char **keys)
{
    *keys = NULL;
    const kg_resource *r = kind ? kg_resource_find_kind(group ? group : "", kind) : NULL;
    if (!r || !n)
        return KG_SCHEMA_LIST_ATOMIC;
    char name[256];
    type_name_buf(r, name, sizeof name);
    const char *type = name;
    for (size_t i = 0; i < n && type; i++) {
        kg_schema_field_info fi;
        if (!kg_schema_field(type, path[i], &fi))
            break;
        if (i + 1 < n) {
            type = fi.ref;
            continue;
        }
        /* untagged lists are atomic, as in structured-merge-diff */
        if (fi.is_array && fi.list_type && !strcmp(fi.list_type, "map")) {
            *keys = fi.list_map_keys;
            return KG_SCHEMA_LIST_MAP;
        }
        if (fi.is_array && fi.list_type && !strcmp(fi.list_type, "set"))
            return KG_SCHEMA_LIST_SET;
    }
    return KG_SCHEMA_LIST_ATOMIC;
}

const char *kg_schema_hash(void)
{
    ensure_loaded();
    return hash_hex;
}

size_t kg_schema_type_count(void)
{
    ensure_loaded();
    return ntypes;
}

size_t kg_schema_field_count(void)
{
    ensure_loaded();
    return nfields;
}

const char *kg_schema_problem(void)
{
    ensure_loaded();
    return problem[0] ? problem : NULL;
}

static const char *kind_type(uint8_t k)
{
    switch (k) {
    case K_STRING:
    case K_BYTE: return "string";
    case K_INT32:
    case K_INT64: return "integer";
    case K_BOOL: return "boolean";
    case K_NUMBER: return "number";
    default: return "object";
    }
}

static const char *kind_format(uint8_t k)
{
    switch (k) {
    case K_INT32: return "int32";
    case K_INT64: return "int64";
    case K_BYTE: return "byte";
    case K_NUMBER: return "double";
    default: return NULL;
    }
}

const char *kg_schema_type_interned(const char *type_name)
{
    ensure_loaded();
    int t = find_type(type_name);
    return t < 0 ? NULL : types[t].name;
}

static bool field_info(int t, const char *field, kg_schema_field_info *out);

bool kg_schema_field(const char *type_name, const char *field, kg_schema_field_info *out)
{
    ensure_loaded();
    int t = find_type(type_name);
    return t >= 0 && field_info(t, field, out);
}

/* A small per-thread cache from interned name pointers to type indexes (no hashing of the name). */
bool kg_schema_field_interned(const char *interned, const char *field, kg_schema_field_info *out)
{
    static _Thread_local const char *cache_p[32];
    static _Thread_local int cache_t[32];
    ensure_loaded();
    unsigned slot = (unsigned)(((uintptr_t)interned >> 4) & 31u);
    int t;
    if (cache_p[slot] == interned) {
        t = cache_t[slot];
    } else {
        t = find_type(interned);
        if (t < 0 || types[t].name != interned)
            return false;
        cache_p[slot] = interned;
        cache_t[slot] = t;
    }
    return field_info(t, field, out);
}

static bool field_info(int t, const char *field, kg_schema_field_info *out)
{
    const sfield *f = find_field(t, field, strlen(field));
    if (!f)
        return false;
    memset(out, 0, sizeof *out);
    out->description = f->desc;
    out->required = f->required;
    out->is_array = f->shape == SH_ARRAY;
    out->is_map = f->shape == SH_MAP;
    out->merge_key = f->mk;
    out->strategy = f->ps;
    out->list_type = f->lt;
    out->list_map_keys = f->lk;
    if (f->kind == K_REF)
        out->ref = types[f->ref].name;
    if (f->shape == SH_ARRAY)
        out->type = "array";
    else if (f->shape == SH_MAP)
        out->type = "object";
    else if (f->kind == K_REF && !types[f->ref].prim_type)
        out->type = types[f->ref].name;
    else if (f->kind == K_REF)
        out->type = strchr(types[f->ref].prim_type, '|') ? "string" : types[f->ref].prim_type;
    else
        out->type = kind_type(f->kind);
    if (f->shape == SH_SCALAR)
        out->format = f->kind == K_REF ? types[f->ref].prim_format : kind_format(f->kind);
    return true;
}

/* ---- OpenAPI emission ---- */

static kg_json *sref(kg_arena *a, const char *s)
{
    return kg_json_new_str_ref(a, s, strlen(s));
}

static kg_json *ref_obj(kg_arena *a, int t, bool v3)
{
    kg_json *o = kg_json_new_object(a);
    kg_json_set(
        a, o, "$ref",
        kg_json_new_str(a, kg_arena_sprintf(a, v3 ? "#/components/schemas/%s" : "#/definitions/%s", types[t].name)));
    return o;
}

static kg_json *elem_schema1(kg_arena *a, const sfield *f, bool v3);

/* Schema of a list item or map value. */
static kg_json *elem_schema(kg_arena *a, const sfield *f, bool v3)
{
    if (!f->inner_array)
        return elem_schema1(a, f, v3);
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "type", sref(a, "array"));
    kg_json_set(a, o, "items", elem_schema1(a, f, v3));
    return o;
}

static kg_json *elem_schema1(kg_arena *a, const sfield *f, bool v3)
{
    if (f->kind == K_REF) {
        if (!v3 || !is_struct(f->ref))
            return ref_obj(a, f->ref, v3);
        kg_json *o = kg_json_new_object(a);
        kg_json *all = kg_json_new_array(a);
        kg_json_array_append(a, all, ref_obj(a, f->ref, v3));
        kg_json_set(a, o, "allOf", all);
        kg_json_set(a, o, "default", kg_json_new_object(a));
        return o;
    }
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "type", sref(a, kind_type(f->kind)));
    const char *fmt = kind_format(f->kind);
    if (fmt)
        kg_json_set(a, o, "format", sref(a, fmt));
    if (f->kind == K_OBJ)
        kg_json_set(a, o, "x-kubernetes-preserve-unknown-fields", kg_json_new_bool(a, true));
    return o;
}

static kg_json *split_list(kg_arena *a, const char *csv)
{
    kg_json *arr = kg_json_new_array(a);
    for (const char *p = csv;;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        kg_json_array_append(a, arr, kg_json_new_strn(a, p, n));
        if (!c)
            break;
        p = c + 1;
    }
    return arr;
}

static kg_json *prop_schema(kg_arena *a, const sfield *f, bool v3)
{
    kg_json *o = kg_json_new_object(a);
    bool has_desc = f->desc[0] != 0;
    if (f->shape == SH_SCALAR && f->kind == K_REF) {
        if (v3 && has_desc) {
            kg_json *all = kg_json_new_array(a);
            kg_json_array_append(a, all, ref_obj(a, f->ref, v3));
            kg_json_set(a, o, "allOf", all);
        } else {
            kg_json_set(a, o, "$ref", kg_json_get(ref_obj(a, f->ref, v3), "$ref"));
        }
        if (has_desc)
            kg_json_set(a, o, "description", sref(a, f->desc));
    } else {
        if (has_desc)
            kg_json_set(a, o, "description", sref(a, f->desc));
        if (f->shape == SH_ARRAY) {
            kg_json_set(a, o, "type", sref(a, "array"));
            kg_json_set(a, o, "items", elem_schema(a, f, v3));
        } else if (f->shape == SH_MAP) {
            kg_json_set(a, o, "type", sref(a, "object"));
            kg_json_set(a, o, "additionalProperties", elem_schema(a, f, v3));
        } else {
            kg_json_set(a, o, "type", sref(a, kind_type(f->kind)));
            const char *fmt = kind_format(f->kind);
            if (fmt)
                kg_json_set(a, o, "format", sref(a, fmt));
            if (f->kind == K_OBJ)
                kg_json_set(a, o, "x-kubernetes-preserve-unknown-fields", kg_json_new_bool(a, true));
        }
    }
    if (f->en)
        kg_json_set(a, o, "enum", split_list(a, f->en));
    if (f->lt)
        kg_json_set(a, o, "x-kubernetes-list-type", sref(a, f->lt));
    if (f->lk)
        kg_json_set(a, o, "x-kubernetes-list-map-keys", split_list(a, f->lk));
    if (f->mk)
        kg_json_set(a, o, "x-kubernetes-patch-merge-key", sref(a, f->mk));
    if (f->ps)
        kg_json_set(a, o, "x-kubernetes-patch-strategy", sref(a, f->ps));
    return o;
}

static void add_fields(kg_arena *a, int t, kg_json *props, kg_json *req, bool v3, int depth)
{
    const stype *ty = &types[t];
    if (ty->include >= 0 && depth < 4)
        add_fields(a, ty->include, props, req, v3, depth + 1);
    for (uint32_t k = ty->first; k < ty->first + ty->nfields; k++) {
        const sfield *f = &fields[k];
        kg_json_set(a, props, f->name, prop_schema(a, f, v3));
        if (f->required)
            kg_json_array_append(a, req, sref(a, f->name));
    }
}

static kg_json *gvk_ext(kg_arena *a, const kg_resource *r)
{
    kg_json *g = kg_json_new_object(a);
    kg_json_set(a, g, "group", sref(a, r->group));
    kg_json_set(a, g, "kind", sref(a, r->kind));
    kg_json_set(a, g, "version", sref(a, r->version));
    kg_json *arr = kg_json_new_array(a);
    kg_json_array_append(a, arr, g);
    return arr;
}

static void add_refs(kg_arena *a, kg_json *schemas, int t, bool v3, int depth);

/* Add type t (and, recursively, what it references) unless present. Returns the added definition or NULL. */
static kg_json *add_type(kg_arena *a, kg_json *schemas, int t, bool v3)
{
    if (kg_json_get(schemas, types[t].name))
        return NULL;
    const stype *ty = &types[t];
    kg_json *d = kg_json_new_object(a);
    if (ty->desc[0])
        kg_json_set(a, d, "description", sref(a, ty->desc));
    if (ty->prim_type) {
        const char *bar = strchr(ty->prim_type, '|');
        if (!bar) {
            kg_json_set(a, d, "type", sref(a, ty->prim_type));
        } else if (!v3) {
            kg_json_set(a, d, "type", sref(a, "string")); /* v2 has no oneOf: serialized form */
        } else {
            /* v3: "integer|string" -> oneOf [{type: integer}, {type: string}] and no type (as kube-openapi does
             * for IntOrString and Quantity; kubectl explain then prints the type's name) */
            kg_json *one = kg_json_new_array(a);
            for (const char *p = ty->prim_type;;) {
                const char *e = strchr(p, '|');
                kg_json *t = kg_json_new_object(a);
                kg_json_set(a, t, "type", kg_json_new_strn(a, p, e ? (size_t)(e - p) : strlen(p)));
                kg_json_array_append(a, one, t);
                if (!e)
                    break;
                p = e + 1;
            }
            kg_json_set(a, d, "oneOf", one);
        }
        if (ty->prim_format)
            kg_json_set(a, d, "format", sref(a, ty->prim_format));
        kg_json_set(a, schemas, ty->name, d);
        return d;
    }
    kg_json *props = kg_json_new_object(a);
    kg_json *req = kg_json_new_array(a);
    add_fields(a, t, props, req, v3, 0);
    if (req->len)
        kg_json_set(a, d, "required", req);
    kg_json_set(a, d, "type", sref(a, "object"));
    kg_json_set(a, d, "properties", props);
    if (kind_of[t])
        kg_json_set(a, d, "x-kubernetes-group-version-kind", gvk_ext(a, kind_of[t]));
    kg_json_set(a, schemas, ty->name, d); /* before recursing: marks it present */
    add_refs(a, schemas, t, v3, 0);
    return kg_json_get(schemas, ty->name);
}

static void add_refs(kg_arena *a, kg_json *schemas, int t, bool v3, int depth)
{
    const stype *ty = &types[t];
    if (ty->include >= 0 && depth < 4)
        add_refs(a, schemas, ty->include, v3, depth + 1);
    for (uint32_t k = ty->first; k < ty->first + ty->nfields; k++)
        if (fields[k].kind == K_REF)
            add_type(a, schemas, fields[k].ref, v3);
}

void kg_schema_add_resource(kg_arena *a, kg_json *schemas, const kg_resource *r, bool v3)
{
    ensure_loaded();
    char *name = kg_schema_type_name(a, r);
    int t = find_type(name);
    if (t < 0) {
        /* Not described: an open object, so that nothing is rejected as unknown. */
        kg_json *d = kg_json_new_object(a);
        kg_json_set(a, d, "type", sref(a, "object"));
        kg_json_set(a, d, "x-kubernetes-preserve-unknown-fields", kg_json_new_bool(a, true));
        kg_json_set(a, d, "x-kubernetes-group-version-kind", gvk_ext(a, r));
        kg_json_set(a, schemas, name, d);
        return;
    }
    kg_json *d = add_type(a, schemas, t, v3);
    if (!d)
        d = kg_json_get(schemas, name);
    if (d && !kg_json_get(d, "x-kubernetes-group-version-kind"))
        kg_json_set(a, d, "x-kubernetes-group-version-kind", gvk_ext(a, r));
}

void kg_schema_add_common(kg_arena *a, kg_json *schemas, bool v3)
{
    ensure_loaded();
    static const char *const common[] = {
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Condition",  "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
        "io.k8s.apimachinery.pkg.api.resource.Quantity",   "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
        "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta",
    };
    for (size_t i = 0; i < sizeof common / sizeof *common; i++) {
        int t = find_type(common[i]);
        if (t >= 0)
            add_type(a, schemas, t, v3);
    }
}

/* ---- unknown fields ---- */

/* The path is kept as a stack of frames (a key, or a list index) and only rendered for a report, so a clean
 * object costs one field lookup per member and nothing else. */
#define MAX_FRAMES 160
#define MAX_WALK_DEPTH 64

typedef struct frame {
    const char *key; /* NULL for a list index */
    uint32_t len;    /* key length or index */
} frame;

typedef struct walk_ctx {
    kg_arena *a;
    frame st[MAX_FRAMES];
    size_t depth;
    const char **out;
    size_t n, cap;
} walk_ctx;

static void report(walk_ctx *c, const char *key, size_t klen)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 8;
        c->out = kg_arena_realloc(c->a, c->out, c->cap * sizeof *c->out, nc * sizeof *c->out);
        c->cap = nc;
    }
    size_t len = klen + 1;
    for (size_t i = 0; i < c->depth; i++)
        len += c->st[i].key ? c->st[i].len + 1 : 12;
    char *p = kg_arena_alloc(c->a, len), *w = p;
    for (size_t i = 0; i < c->depth; i++) {
        if (c->st[i].key) {
            if (i)
                *w++ = '.';
            memcpy(w, c->st[i].key, c->st[i].len);
            w += c->st[i].len;
        } else {
            w += snprintf(w, 12, "[%u]", c->st[i].len);
        }
    }
    if (c->depth)
        *w++ = '.';
    memcpy(w, key, klen);
    w[klen] = 0;
    c->out[c->n++] = p;
}

static void walk(walk_ctx *c, int t, const kg_json *v, int level);

static void push(walk_ctx *c, const char *key, uint32_t len)
{
    c->st[c->depth].key = key;
    c->st[c->depth].len = len;
    c->depth++;
}

static void descend(walk_ctx *c, const sfield *f, const kg_json *v, int level)
{
    if (f->kind != K_REF || !is_struct(f->ref) || !v || f->inner_array || c->depth + 2 > MAX_FRAMES)
        return;
    if (f->shape == SH_SCALAR) {
        walk(c, f->ref, v, level + 1);
    } else if (f->shape == SH_ARRAY && v->type == KG_JSON_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++) {
            push(c, NULL, i);
            walk(c, f->ref, v->u.items[i], level + 1);
            c->depth--;
        }
    } else if (f->shape == SH_MAP && v->type == KG_JSON_OBJECT) {
        for (uint32_t i = 0; i < v->len; i++) {
            const kg_json_member *m = &v->u.members[i];
            push(c, m->key, m->key_len);
            walk(c, f->ref, m->val, level + 1);
            c->depth--;
        }
    }
}

static void walk(walk_ctx *c, int t, const kg_json *v, int level)
{
    if (!v || v->type != KG_JSON_OBJECT || !is_struct(t) || level > MAX_WALK_DEPTH)
        return;
    for (uint32_t i = 0; i < v->len; i++) {
        const kg_json_member *m = &v->u.members[i];
        const sfield *f = find_field(t, m->key, m->key_len);
        if (!f) {
            report(c, m->key, m->key_len);
            continue;
        }
        if (f->kind != K_REF || !is_struct(f->ref))
            continue;
        push(c, m->key, m->key_len);
        descend(c, f, m->val, level);
        c->depth--;
    }
}

bool kg_schema_unknown_fields_type(kg_arena *a, const char *type_name, const kg_json *obj, const char ***paths,
                                   size_t *n)
{
    ensure_loaded();
    *paths = NULL;
    *n = 0;
    int t = find_type(type_name);
    if (t < 0 || !is_struct(t))
        return false;
    walk_ctx ctx, *c = &ctx; /* ~2.6 KB of stack: nothing to allocate on the clean path */
    c->a = a;
    c->depth = 0;
    c->out = NULL;
    c->n = c->cap = 0;
    walk(c, t, obj, 0);
    *paths = c->out;
    *n = c->n;
    return true;
}

bool kg_schema_unknown_fields(kg_arena *a, const kg_resource *r, const kg_json *obj, const char ***paths, size_t *n)
{
    return kg_schema_unknown_fields_type(a, kg_schema_type_name(a, r), obj, paths, n);
}
