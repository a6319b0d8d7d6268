/* CEL environments, types, function registry and the compile entry point. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cel/cel_internal.h"
#include "cel/compile_internal.h"

/* ---------------------------------------------------------------- types */

/* the singletons are file-scope objects so compile-side code can use their addresses directly
 * (compile_internal.h); the public functions return the same objects */
const cel_type cel_prim_types[CEL_PRIM_COUNT] = {
    [CEL_PRIM_DYN] = {CEL_T_DYN, "dyn", 0, NULL, 0, NULL, NULL},
    [CEL_PRIM_NULL] = {CEL_T_NULL, "null_type", 0, NULL, 0, NULL, NULL},
    [CEL_PRIM_BOOL] = {CEL_T_BOOL, "bool", 0, NULL, 0, NULL, NULL},
    [CEL_PRIM_INT] = {CEL_T_INT, "int", 0, NULL, 0, NULL, NULL},
    [CEL_PRIM_UINT] = {CEL_T_UINT, "uint", 0, NULL, 0, NULL, NULL},
    [CEL_PRIM_DOUBLE] = {CEL_T_DOUBLE, "double", 0, NULL, 0, NULL, NULL},
    [CEL_PRIM_STRING] = {CEL_T_STRING, "string", 0, NULL, 0, NULL, NULL},
    [CEL_PRIM_BYTES] = {CEL_T_BYTES, "bytes", 0, NULL, 0, NULL, NULL},
    [CEL_PRIM_TIMESTAMP] = {CEL_T_TIMESTAMP, "google.protobuf.Timestamp", 0, NULL, 0, NULL, NULL},
    [CEL_PRIM_DURATION] = {CEL_T_DURATION, "google.protobuf.Duration", 0, NULL, 0, NULL, NULL},
    [CEL_PRIM_TYPE] = {CEL_T_TYPE, "type", 0, NULL, 0, NULL, NULL},
    [CEL_PRIM_ERROR] = {CEL_T_ERROR, "*error*", 0, NULL, 0, NULL, NULL},
};
/* (parenthesised names: compile_internal.h defines function-like macros of the same names) */
#define PRIM(fn, I)                                                                                                    \
    const cel_type *(fn)(void)                                                                                         \
    {                                                                                                                  \
        return &cel_prim_types[I];                                                                                     \
    }
PRIM(cel_type_dyn, CEL_PRIM_DYN)
PRIM(cel_type_null, CEL_PRIM_NULL)
PRIM(cel_type_bool, CEL_PRIM_BOOL)
PRIM(cel_type_int, CEL_PRIM_INT)
PRIM(cel_type_uint, CEL_PRIM_UINT)
PRIM(cel_type_double, CEL_PRIM_DOUBLE)
PRIM(cel_type_string, CEL_PRIM_STRING)
PRIM(cel_type_bytes, CEL_PRIM_BYTES)
PRIM(cel_type_timestamp, CEL_PRIM_TIMESTAMP)
PRIM(cel_type_duration, CEL_PRIM_DURATION)
PRIM(cel_type_type, CEL_PRIM_TYPE)
PRIM(cel_type_error, CEL_PRIM_ERROR)

static const cel_type *const dyn1[] = {NULL};
const cel_type *cel_type_list_dyn(void)
{
    static const cel_type *p[1];
    static cel_type t = {CEL_T_LIST, "list", 1, p, 0, NULL, NULL};
    p[0] = cel_type_dyn();
    (void)dyn1;
    return &t;
}
const cel_type *cel_type_map_dyn(void)
{
    static const cel_type *p[2];
    static cel_type t = {CEL_T_MAP, "map", 2, p, 0, NULL, NULL};
    p[0] = cel_type_dyn();
    p[1] = cel_type_dyn();
    return &t;
}
const cel_type *cel_type_optional_dyn(void)
{
    static const cel_type *p[1];
    static cel_type t = {CEL_T_OPTIONAL, "optional_type", 1, p, 0, NULL, NULL};
    p[0] = cel_type_dyn();
    return &t;
}

static cel_type *new_type(cel_env *env, cel_type_kind k, const char *name, size_t np)
{
    cel_type *t = kg_arena_calloc(&env->arena, sizeof *t);
    t->kind = k;
    t->name = name;
    t->nparams = np;
    if (np)
        t->params = kg_arena_calloc(&env->arena, np * sizeof(cel_type *));
    return t;
}

const cel_type *cel_type_list(cel_env *env, const cel_type *elem)
{
    cel_type *t = new_type(env, CEL_T_LIST, "list", 1);
    ((const cel_type **)t->params)[0] = elem;
    return t;
}
const cel_type *cel_type_map(cel_env *env, const cel_type *k, const cel_type *v)
{
    cel_type *t = new_type(env, CEL_T_MAP, "map", 2);
    ((const cel_type **)t->params)[0] = k;
    ((const cel_type **)t->params)[1] = v;
    return t;
}
const cel_type *cel_type_type_of(cel_env *env, const cel_type *x)
{
    cel_type *t = new_type(env, CEL_T_TYPE, "type", 1);
    ((const cel_type **)t->params)[0] = x;
    return t;
}
const cel_type *cel_type_optional(cel_env *env, const cel_type *x)
{
    cel_type *t = new_type(env, CEL_T_OPTIONAL, "optional_type", 1);
    ((const cel_type **)t->params)[0] = x;
    return t;
}
const cel_type *cel_type_param(cel_env *env, const char *name)
{
    return new_type(env, CEL_T_PARAM, kg_arena_strdup(&env->arena, name), 0);
}

static cel_type *find_named(const cel_env *env, const char *name)
{
    for (size_t i = 0; i < env->ntypes; i++)
        if (!strcmp(env->types[i]->name, name))
            return env->types[i];
    return NULL;
}

const cel_type *cel_type_opaque_lookup(const cel_env *env, const char *name)
{
    return find_named(env, name);
}

/* a name array's trailer of 4 words (compile_internal.h): which first bytes start a dotted name */
static void mark_dotted(uint64_t *bits, const char *name)
{
    if (name && name[0] && strchr(name, '.')) {
        unsigned char c = (unsigned char)name[0];
        bits[c >> 6] |= (uint64_t)1 << (c & 63);
    }
}

static void add_named(cel_env *env, cel_type *t)
{
    if (env->ntypes == env->captypes) {
        size_t nc = env->captypes ? env->captypes * 2 : 8;
        cel_type **n = kg_arena_alloc(&env->arena, nc * sizeof *n + 4 * sizeof(uint64_t));
        uint64_t *bits = (uint64_t *)(n + nc);
        if (env->captypes) {
            memcpy(n, env->types, env->ntypes * sizeof *n);
            memcpy(bits, env->types + env->captypes, 4 * sizeof(uint64_t));
        } else {
            memset(bits, 0, 4 * sizeof(uint64_t));
        }
        env->types = n;
        env->captypes = nc;
    }
    env->types[env->ntypes++] = t;
    mark_dotted((uint64_t *)(env->types + env->captypes), t->name);
}

const cel_type *cel_type_opaque(cel_env *env, const char *name, const cel_type *const *params, size_t np)
{
    if (np == 0) {
        cel_type *t = find_named(env, name);
        if (t)
            return t;
    }
    cel_type *t = new_type(env, CEL_T_OPAQUE, kg_arena_strdup(&env->arena, name), np);
    for (size_t i = 0; i < np; i++)
        ((const cel_type **)t->params)[i] = params[i];
    if (np == 0 || !find_named(env, name)) {
        cel_type *base = np ? new_type(env, CEL_T_OPAQUE, t->name, 0) : t;
        add_named(env, base);
    }
    return t;
}

cel_type *cel_type_object(cel_env *env, const char *name)
{
    cel_type *t = find_named(env, name);
    if (t)
        return t;
    t = new_type(env, CEL_T_OBJECT, kg_arena_strdup(&env->arena, name), 0);
    add_named(env, t);
    return t;
}

void cel_type_object_add_field(cel_env *env, cel_type *o, const char *field, const cel_type *type)
{
    const char **names = kg_arena_alloc(&env->arena, (o->nfields + 1) * sizeof(char *));
    const cel_type **types = kg_arena_alloc(&env->arena, (o->nfields + 1) * sizeof(cel_type *));
    if (o->nfields) {
        memcpy(names, o->field_names, o->nfields * sizeof(char *));
        memcpy(types, o->field_types, o->nfields * sizeof(cel_type *));
    }
    names[o->nfields] = kg_arena_strdup(&env->arena, field);
    types[o->nfields] = type;
    o->field_names = names;
    o->field_types = types;
    o->nfields++;
}

static void fmt_type(kg_buf *b, const cel_type *t)
{
    switch (t->kind) {
    case CEL_T_LIST:
    case CEL_T_MAP:
    case CEL_T_TYPE:
    case CEL_T_OPTIONAL:
    case CEL_T_OPAQUE:
        kg_buf_puts(b, t->name);
        if (t->nparams) {
            kg_buf_putc(b, '(');
            for (size_t i = 0; i < t->nparams; i++) {
                if (i)
                    kg_buf_puts(b, ", ");
                fmt_type(b, t->params[i]);
            }
            kg_buf_putc(b, ')');
        }
        break;
    default: kg_buf_puts(b, t->name); break;
    }
}

const char *cel_type_format(const cel_type *t, char *buf, size_t cap)
{
    kg_buf b = KG_BUF_INIT;
    fmt_type(&b, t);
    snprintf(buf, cap, "%s", b.data ? b.data : "");
    kg_buf_free(&b);
    return buf;
}

bool cel_type_equal(const cel_type *a, const cel_type *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->kind != b->kind || strcmp(a->name, b->name) != 0 || a->nparams != b->nparams)
        return false;
    for (size_t i = 0; i < a->nparams; i++)
        if (!cel_type_equal(a->params[i], b->params[i]))
            return false;
    return true;
}

/* signature type parser */
static const cel_type *ptype(cel_env *env, const char **sp)
{
    const char *s = *sp;
    while (*s == ' ')
        s++;
    const char *st = s;
    while (*s && *s != '(' && *s != ')' && *s != ',' && *s != ' ' && *s != '-')
        s++;
    size_t n = (size_t)(s - st);
    char name[96];
    snprintf(name, sizeof name, "%.*s", (int)n, st);
    const cel_type *params[4];
    size_t np = 0;
    if (*s == '(') {
        s++;
        while (*s && *s != ')') {
            params[np++] = ptype(env, &s);
            while (*s == ' ' || *s == ',')
                s++;
        }
        if (*s == ')')
            s++;
    }
    *sp = s;
    if (!strcmp(name, "dyn"))
        return cel_type_dyn();
    if (!strcmp(name, "null_type"))
        return cel_type_null();
    if (!strcmp(name, "bool"))
        return cel_type_bool();
    if (!strcmp(name, "int"))
        return cel_type_int();
    if (!strcmp(name, "uint"))
        return cel_type_uint();
    if (!strcmp(name, "double"))
        return cel_type_double();
    if (!strcmp(name, "string"))
        return cel_type_string();
    if (!strcmp(name, "bytes"))
        return cel_type_bytes();
    if (!strcmp(name, "timestamp"))
        return cel_type_timestamp();
    if (!strcmp(name, "duration"))
        return cel_type_duration();
    if (!strcmp(name, "type"))
        return np ? cel_type_type_of(env, params[0]) : cel_type_type();
    if (!strcmp(name, "list"))
        return cel_type_list(env, np ? params[0] : cel_type_dyn());
    if (!strcmp(name, "map"))
        return cel_type_map(env, np ? params[0] : cel_type_dyn(), np > 1 ? params[1] : cel_type_dyn());
    if (!strcmp(name, "optional"))
        return cel_type_optional(env, np ? params[0] : cel_type_dyn());
    if (n <= 2 && name[0] >= 'A' && name[0] <= 'Z')
        return cel_type_param(env, name);
    return cel_type_opaque(env, name, params, np);
}

const cel_type *cel_type_parse(cel_env *env, const char *s)
{
    return ptype(env, &s);
}

bool cel_value_matches_type(const cel_value *v, const cel_type *t)
{
    switch (t->kind) {
    case CEL_T_DYN:
    case CEL_T_PARAM:
    case CEL_T_ANY:
    case CEL_T_ERROR: return true;
    case CEL_T_NULL: return v->kind == CEL_NULL;
    case CEL_T_BOOL: return v->kind == CEL_BOOL;
    case CEL_T_INT: return v->kind == CEL_INT;
    case CEL_T_UINT: return v->kind == CEL_UINT;
    case CEL_T_DOUBLE: return v->kind == CEL_DOUBLE;
    case CEL_T_STRING: return v->kind == CEL_STRING;
    case CEL_T_BYTES: return v->kind == CEL_BYTES;
    case CEL_T_LIST: return v->kind == CEL_LIST;
    case CEL_T_MAP: return v->kind == CEL_MAP;
    case CEL_T_TYPE: return v->kind == CEL_TYPE;
    case CEL_T_TIMESTAMP: return v->kind == CEL_TIMESTAMP;
    case CEL_T_DURATION: return v->kind == CEL_DURATION;
    case CEL_T_OPTIONAL: return v->kind == CEL_OPTIONAL;
    case CEL_T_OPAQUE: return v->kind == CEL_OPAQUE && !strcmp(((const cel_opaque_vt *)v->aux)->type_name, t->name);
    case CEL_T_OBJECT: return v->kind == CEL_MAP;
    }
    return false;
}

static const cel_type *runtime_type_named(const char *name)
{
    static cel_type list_t = {CEL_T_LIST, "list", 0, NULL, 0, NULL, NULL};
    static cel_type map_t = {CEL_T_MAP, "map", 0, NULL, 0, NULL, NULL};
    static cel_type opt_t = {CEL_T_OPTIONAL, "optional_type", 0, NULL, 0, NULL, NULL};
    if (!strcmp(name, "list"))
        return &list_t;
    if (!strcmp(name, "map"))
        return &map_t;
    if (!strcmp(name, "optional_type"))
        return &opt_t;
    return NULL;
}

/* Runtime type values of opaque vtables: an append-only registry in static storage, read without locks (entries
 * are published with a release store of the count), so type(x) is stable and thread-safe. */
#define OPAQUE_TYPES_MAX 256
static struct {
    const void *vt;
    cel_type t;
} opaque_types[OPAQUE_TYPES_MAX];
static size_t n_opaque_types;
static pthread_mutex_t opaque_mu = PTHREAD_MUTEX_INITIALIZER;

static const cel_type *opaque_runtime_type(const void *vt)
{
    size_t n = __atomic_load_n(&n_opaque_types, __ATOMIC_ACQUIRE);
    for (size_t i = 0; i < n; i++)
        if (opaque_types[i].vt == vt)
            return &opaque_types[i].t;
    pthread_mutex_lock(&opaque_mu);
    n = n_opaque_types;
    const cel_type *r = NULL;
    for (size_t i = 0; i < n && !r; i++)
        if (opaque_types[i].vt == vt)
            r = &opaque_types[i].t;
    if (!r && n < OPAQUE_TYPES_MAX) {
        opaque_types[n].vt = vt;
        opaque_types[n].t.kind = CEL_T_OPAQUE;
        opaque_types[n].t.name = ((const cel_opaque_vt *)vt)->type_name;
        r = &opaque_types[n].t;
        __atomic_store_n(&n_opaque_types, n + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&opaque_mu);
    return r ? r : cel_type_dyn();
}

const cel_type *cel_value_type(const cel_value *v)
{
    switch (v->kind) {
    case CEL_NULL: return cel_type_null();
    case CEL_BOOL: return cel_type_bool();
    case CEL_INT: return cel_type_int();
    case CEL_UINT: return cel_type_uint();
    case CEL_DOUBLE: return cel_type_double();
    case CEL_STRING: return cel_type_string();
    case CEL_BYTES: return cel_type_bytes();
    case CEL_LIST: return runtime_type_named("list");
    case CEL_MAP: {
        const cel_map_vt *vt = v->aux;
        const cel_type *t = vt->type ? vt->type(v) : NULL;
        return t ? t : runtime_type_named("map");
    }
    case CEL_TYPE: return cel_type_type();
    case CEL_TIMESTAMP: return cel_type_timestamp();
    case CEL_DURATION: return cel_type_duration();
    case CEL_OPTIONAL: return runtime_type_named("optional_type");
    case CEL_OPAQUE: return opaque_runtime_type(v->aux);
    default: return cel_type_error();
    }
}

/* ---------------------------------------------------------------- env */

/* function-name hash from the length and the first and last (up to) eight bytes: two loads for most names, and
 * lookups happen for every call compiled. Collisions only cost a probe (names are compared in full). */
static uint64_t hstr(const char *s, size_t n)
{
    uint64_t a = 0, b = 0;
    if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        a = x;
        b = y;
    } else if (n) {
        /* 1-3 bytes: the first, middle and last are all of them */
        a = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << 8 |
            (uint64_t)(unsigned char)s[n - 1] << 16;
    }
    uint64_t h = (a ^ (n * 0x9E3779B97F4A7C15ull)) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
    h = (h ^ b) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    return h;
}

/* The function table (allocated only by get_func) has a trailer of ftab_cap tags: the high half of the slot's
 * name hash and the name's length. A probe compares the tag first, so a name is compared only against a function
 * of the same length (and almost surely the same name), word-wise instead of byte by byte against the NUL. After
 * the tags, the 256-bit filter of the first segments of dotted function names (compile_internal.h). */
static inline uint64_t ftab_tag(uint64_t h, size_t n)
{
    return (h & ~(uint64_t)0xffffffffu) | (uint32_t)n;
}

bool cel_mem_eq_long(const char *a, const char *b, size_t n)
{
    return memcmp(a, b, n) == 0;
}

cel_func *cel_env_func_n(const cel_env *env, const char *name, size_t n)
{
    if (!env->ftab_cap)
        return NULL;
    size_t mask = env->ftab_cap - 1;
    const uint64_t *tags = (const uint64_t *)(env->ftab + env->ftab_cap);
    uint64_t hv = hstr(name, n), tag = ftab_tag(hv, n);
    for (size_t h = hv & mask;; h = (h + 1) & mask) {
        cel_func *f = env->ftab[h];
        if (!f)
            return NULL;
        /* equal tags: f's name has n bytes before its NUL (names longer than 4 GiB never match a tag alone) */
        if (tags[h] == tag && n <= UINT32_MAX && cel_mem_eq(f->name, name, n))
            return f;
    }
}

cel_func *cel_env_func(const cel_env *env, const char *name)
{
    return cel_env_func_n(env, name, strlen(name));
}

const char *const cel_wk_names[CEL_WK_COUNT] = {
    [CEL_WK_AND] = "_&&_",
    [CEL_WK_OR] = "_||_",
    [CEL_WK_NOT] = "!_",
    [CEL_WK_NEG] = "-_",
    [CEL_WK_NOT_STRICTLY_FALSE] = "@not_strictly_false",
    [CEL_WK_EQ] = "_==_",
    [CEL_WK_NE] = "_!=_",
    [CEL_WK_LT] = "_<_",
    [CEL_WK_LE] = "_<=_",
    [CEL_WK_GT] = "_>_",
    [CEL_WK_GE] = "_>=_",
    [CEL_WK_IN] = "@in",
    [CEL_WK_ADD] = "_+_",
    [CEL_WK_SUB] = "_-_",
    [CEL_WK_MUL] = "_*_",
    [CEL_WK_DIV] = "_/_",
    [CEL_WK_MOD] = "_%_",
    [CEL_WK_INDEX] = "_[_]",
    [CEL_WK_COND] = "_?_:_",
};
const uint8_t cel_wk_lens[CEL_WK_COUNT] = {4, 4, 2, 2, 19, 4, 4, 3, 4, 3, 4, 3, 3, 3, 3, 3, 3, 4, 5};

static cel_func *get_func(cel_env *env, const char *name)
{
    cel_func *f = cel_env_func(env, name);
    if (f)
        return f;
    if ((env->nfuncs + 1) * 2 > env->ftab_cap) {
        size_t nc = env->ftab_cap ? env->ftab_cap * 2 : 256;
        const size_t trailer = 4 * sizeof(uint64_t) + CEL_WK_COUNT * sizeof(cel_func *);
        cel_func **nt = kg_arena_calloc(&env->arena, nc * (sizeof *nt + sizeof(uint64_t)) + trailer);
        uint64_t *ntags = (uint64_t *)(nt + nc);
        if (env->ftab_cap)
            memcpy(ntags + nc, (const uint64_t *)(env->ftab + env->ftab_cap) + env->ftab_cap, trailer);
        for (size_t i = 0; i < env->ftab_cap; i++) {
            cel_func *g = env->ftab[i];
            if (!g)
                continue;
            size_t gl = strlen(g->name);
            uint64_t hv = hstr(g->name, gl);
            size_t h = hv & (nc - 1);
            while (nt[h])
                h = (h + 1) & (nc - 1);
            nt[h] = g;
            ntags[h] = ftab_tag(hv, gl);
        }
        env->ftab = nt;
        env->ftab_cap = nc;
    }
    f = kg_arena_calloc(&env->arena, sizeof *f);
    f->name = kg_arena_strdup(&env->arena, name);
    size_t mask = env->ftab_cap - 1, nl = strlen(name);
    uint64_t hv = hstr(name, nl);
    size_t h = hv & mask;
    while (env->ftab[h])
        h = (h + 1) & mask;
    env->ftab[h] = f;
    ((uint64_t *)(env->ftab + env->ftab_cap))[h] = ftab_tag(hv, nl);
    for (unsigned k = 0; k < CEL_WK_COUNT; k++)
        if (!strcmp(name, cel_wk_names[k]))
            ((cel_func **)((uint64_t *)(env->ftab + env->ftab_cap) + env->ftab_cap + 4))[k] = f;
    const char *dot = memchr(name, '.', nl);
    if (dot && dot > name) {
        unsigned b = cel_func_root_bit(name, (size_t)(dot - name));
        ((uint64_t *)(env->ftab + env->ftab_cap) + env->ftab_cap)[b >> 6] |= (uint64_t)1 << (b & 63);
    }
    env->nfuncs++;
    return f;
}

static void collect_params(const cel_type *t, const char **names, unsigned *n, int depth)
{
    if (depth > 64)
        return;
    if (t->kind == CEL_T_PARAM) {
        for (unsigned i = 0; i < *n; i++)
            if (!strcmp(names[i], t->name))
                return;
        if (*n < 64)
            names[(*n)++] = t->name;
        return;
    }
    for (size_t i = 0; i < t->nparams && i < 8; i++)
        collect_params(t->params[i], names, n, depth + 1);
}

unsigned cel_ovl_count_params(const cel_overload *o)
{
    const char *names[64];
    unsigned n = 0;
    for (size_t i = 0; i < o->nargs && i < 8; i++)
        if (o->args[i])
            collect_params(o->args[i], names, &n, 0);
    if (o->result)
        collect_params(o->result, names, &n, 0);
    return n;
}

/* f->ovls holds f->cap overloads, then f->cap per-overload words and the overload index (compile_internal.h) */
static void add_ovl(cel_env *env, cel_func *f, const cel_overload *o)
{
    if (f->novl == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 4;
        cel_overload *n = kg_arena_alloc(&env->arena, nc * sizeof *n + nc * sizeof(uint32_t) + sizeof(cel_ovl_index));
        cel_ovl_index *nix = (cel_ovl_index *)((uint32_t *)(n + nc) + nc);
        if (f->cap) {
            memcpy(n, f->ovls, f->cap * sizeof *n);
            memcpy((uint32_t *)(n + nc), cel_func_ovl_meta(f), f->cap * sizeof(uint32_t));
            memcpy(nix, cel_func_ovl_index(f), sizeof *nix);
        } else {
            memset(nix, 0, sizeof *nix);
        }
        f->ovls = n;
        f->cap = nc;
    }
    f->ovls[f->novl] = *o;
    for (size_t i = 0; i < sizeof f->rcache / sizeof *f->rcache; i++)
        __atomic_store_n(&f->rcache[i], 0, __ATOMIC_RELAXED); /* resolutions may now find this overload */
    unsigned np = cel_ovl_count_params(o);
    uint32_t m = (np ? CEL_OVL_GENERIC : 0) | ((o->flags & CEL_FN_MEMBER) ? CEL_OVL_MEMBER : 0);
    m |= (uint32_t)(o->nargs < CEL_OVL_MAX4 ? o->nargs : CEL_OVL_MAX4) << 2;
    m |= (uint32_t)(np < CEL_OVL_MAX4 ? np : CEL_OVL_MAX4) << 6;
    for (unsigned i = 0; i < 2; i++) {
        unsigned k = i < o->nargs && o->args[i] ? (unsigned)o->args[i]->kind : CEL_OVL_NOKIND;
        m |= (uint32_t)(k < CEL_OVL_NOKIND ? k : CEL_OVL_NOKIND) << (10 + 5 * i);
    }
    if (o->nargs == 2 && o->args[0] && o->args[1] && o->args[0]->kind == CEL_T_PARAM &&
        o->args[1]->kind == CEL_T_PARAM && !strcmp(o->args[0]->name, o->args[1]->name) && o->result &&
        o->result->kind != CEL_T_PARAM && o->result->nparams == 0)
        m |= CEL_OVL_EQSHAPE;
    ((uint32_t *)cel_func_ovl_meta(f))[f->novl] = m;
    if (f->novl < CEL_OVL_INDEXED) {
        cel_ovl_index *ix = (cel_ovl_index *)cel_func_ovl_index(f);
        uint64_t bit = (uint64_t)1 << f->novl;
        ix->shape[cel_ovl_shape((o->flags & CEL_FN_MEMBER) != 0, o->nargs)] |= bit;
        if (np)
            ix->generic |= bit;
        for (unsigned t = 0; t < CEL_OVL_NKINDS; t++) {
            if (!(o->nargs > 0 && o->args[0] && cel_quick_mismatch((cel_type_kind)t, o->args[0]->kind)))
                ix->kind0[t] |= bit;
            if (!(o->nargs > 1 && o->args[1] && cel_quick_mismatch((cel_type_kind)t, o->args[1]->kind)))
                ix->kind1[t] |= bit;
        }
    }
    f->novl++;
}

void cel_env_builtin(cel_env *env, const char *name, opcode op, unsigned flags, const char *sig, cel_fn impl,
                     cel_cost_fn cost)
{
    cel_func *f = get_func(env, name);
    if (op)
        f->op = op;
    cel_overload o;
    memset(&o, 0, sizeof o);
    o.flags = flags;
    o.impl = impl;
    o.cost = cost;
    const char *s = sig;
    while (*s == ' ')
        s++;
    if (*s != '-') {
        for (;;) {
            o.args[o.nargs++] = ptype(env, &s);
            while (*s == ' ')
                s++;
            if (*s == ',') {
                s++;
                continue;
            }
            break;
        }
    }
    while (*s == ' ' || *s == '-' || *s == '>')
        s++;
    o.result = ptype(env, &s);
    o.id = kg_arena_sprintf(&env->arena, "%s#%zu", name, f->novl);
    add_ovl(env, f, &o);
}

bool cel_env_add_function(cel_env *env, const char *name, const cel_overload *ovls, size_t n, cel_error *err)
{
    cel_func *f = get_func(env, name);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < f->novl; j++) {
            const cel_overload *e = &f->ovls[j];
            if (e->nargs != ovls[i].nargs || (e->flags & CEL_FN_MEMBER) != (ovls[i].flags & CEL_FN_MEMBER))
                continue;
            bool same = true;
            for (size_t k = 0; k < e->nargs && same; k++)
                same = cel_type_equal(e->args[k], ovls[i].args[k]);
            if (same && ovls[i].id && e->id && !strcmp(ovls[i].id, e->id)) {
                if (err) {
                    memset(err, 0, sizeof *err);
                    snprintf(err->message, sizeof err->message, "overload signature collision: %s: %s", name,
                             ovls[i].id);
                }
                return false;
            }
        }
        cel_overload o = ovls[i];
        if (!o.result)
            o.result = cel_type_dyn();
        if (o.id)
            o.id = kg_arena_strdup(&env->arena, o.id);
        add_ovl(env, f, &o);
    }
    return true;
}

cel_env *cel_env_new(unsigned libs)
{
    cel_env *env = calloc(1, sizeof *env);
    kg_arena_init(&env->arena, 64 * 1024);
    env->libs = libs;
    env->container = "";
    cel_stdlib_register(env);
    cel_time_register(env);
    cel_ext_register(env);
    return env;
}

void cel_env_free(cel_env *env)
{
    if (!env)
        return;
    kg_arena_free(&env->arena);
    free(env);
}

void cel_time_enable_validation(cel_env *env);
void cel_env_set_options(cel_env *env, unsigned opts)
{
    env->opts = opts;
    if (opts & CEL_OPT_VALIDATE_LITERALS)
        cel_time_enable_validation(env);
}
void cel_env_set_container(cel_env *env, const char *c)
{
    env->container = kg_arena_strdup(&env->arena, c ? c : "");
}
kg_arena *cel_env_arena(cel_env *env)
{
    return &env->arena;
}

void cel_env_add_dynamic_struct_prefix(cel_env *env, const char *prefix)
{
    if (env->ndyn_structs < sizeof env->dyn_structs / sizeof *env->dyn_structs)
        env->dyn_structs[env->ndyn_structs++] = kg_arena_strdup(&env->arena, prefix);
}

/* The variable array (allocated only by cel_env_declare_var) holds capvars declarations, the dotted-first-byte
 * bitmap (compile_internal.h) and then capvars name lengths: a name is compared only against declarations of its
 * length, word-wise. */
static inline uint32_t *var_lens(const cel_env *env)
{
    return (uint32_t *)((uint64_t *)(env->vars + env->capvars) + 4);
}

const var_decl *cel_env_var(const cel_env *env, const char *name, size_t n)
{
    if (!env->nvars)
        return NULL;
    const uint32_t *lens = var_lens(env);
    for (size_t i = 0; i < env->nvars; i++)
        if (lens[i] == n && cel_mem_eq(env->vars[i].name, name, n))
            return &env->vars[i];
    return NULL;
}

bool cel_env_declare_var(cel_env *env, const char *name, const cel_type *type)
{
    const var_decl *d = cel_env_var(env, name, strlen(name));
    if (d)
        return cel_type_equal(d->type, type);
    if (env->nvars == env->capvars) {
        size_t nc = env->capvars ? env->capvars * 2 : 8;
        var_decl *n = kg_arena_alloc(&env->arena, nc * sizeof *n + 4 * sizeof(uint64_t) + nc * sizeof(uint32_t));
        uint64_t *bits = (uint64_t *)(n + nc);
        if (env->capvars) {
            memcpy(n, env->vars, env->nvars * sizeof *n);
            memcpy(bits, env->vars + env->capvars, 4 * sizeof(uint64_t));
            memcpy(bits + 4, var_lens(env), env->nvars * sizeof(uint32_t));
        } else {
            memset(bits, 0, 4 * sizeof(uint64_t));
        }
        env->vars = n;
        env->capvars = nc;
    }
    var_decl *v = &env->vars[env->nvars];
    v->name = kg_arena_strdup(&env->arena, name);
    v->type = type;
    v->slot = (int)env->nvars;
    size_t nl = strlen(name);
    var_lens(env)[env->nvars] = nl <= UINT32_MAX ? (uint32_t)nl : UINT32_MAX; /* longer names never match */
    env->nvars++;
    mark_dotted((uint64_t *)(env->vars + env->capvars), v->name);
    return true;
}

bool cel_env_redeclare_var(cel_env *env, const char *name, const cel_type *type)
{
    const var_decl *d = cel_env_var(env, name, strlen(name));
    if (!d)
        return false;
    env->vars[d->slot].type = type;
    return true;
}

/* ---------------------------------------------------------------- prepare ctx */

kg_arena *cel_prepare_arena(cel_prepare_ctx *pc)
{
    return pc->arena;
}
void cel_prepare_on_free(cel_prepare_ctx *pc, void (*fn)(void *), void *p)
{
    cleanup *c = kg_arena_alloc(pc->arena, sizeof *c);
    c->fn = fn;
    c->p = p;
    c->next = pc->cleanups;
    pc->cleanups = c;
}

/* ---------------------------------------------------------------- compile */

bool cel_compile(cel_env *env, const char *src, const cel_compile_opts *opts, cel_program **out, cel_error *err)
{
    *out = NULL;
    cel_error dummy;
    if (!err)
        err = &dummy;
    err->line = err->column = 0;
    err->message[0] = 0;
    unsigned flags = opts ? opts->flags : 0;
    /* the program lives in its own arena: one malloc/free pair less per compile */
    kg_arena a;
    kg_arena_init(&a, 16 * 1024);
    cel_program *p = kg_arena_alloc(&a, sizeof *p);
    *p = (cel_program){.arena = a, .env = env, .nslots = env->nvars}; /* stores, no memset call */
    parse_result pr;
    if (!cel_parse(&p->arena, env, src, opts ? opts->src_len : 0, flags, &pr, err))
        goto fail;
    p->root = pr.root;
    if (!pr.resolved && !cel_resolve(env, &p->arena, src, p->root, err))
        goto fail;
    cel_check_extra cx;
    bool checked = !(flags & CEL_COMPILE_NO_CHECK);
    if (checked) {
        if (!cel_check_ex(env, &p->arena, src, p->root, &p->type, err, &cx))
            goto fail;
        if (opts && opts->expect_type && opts->expect_type->kind != CEL_T_DYN && p->type->kind != CEL_T_DYN &&
            !cel_type_equal(opts->expect_type, p->type)) {
            char a[128], b[128];
            cel_error_at(err, src, 0, "expected type '%s' but found '%s'",
                         cel_type_format(opts->expect_type, a, sizeof a), cel_type_format(p->type, b, sizeof b));
            goto fail;
        }
    } else {
        p->type = cel_type_dyn();
    }
    /* prepare hooks */
    {
        cel_prepare_ctx pc = {&p->arena, NULL};
        int md = 0;
        bool ok = true;
        if (checked) {
            /* the checker listed the calls the prepare walk would act on, in its order */
            for (size_t i = 0; i < cx.ncalls && ok; i++) {
                /* most functions have no prepare hook at all: no call for them */
                const cel_func *f = cx.calls[i]->fn;
                bool hook = false;
                for (size_t k = 0; f && k < f->novl && !hook; k++)
                    hook = f->ovls[k].prepare != NULL;
                if (hook)
                    ok = cel_prepare_call(&pc, src, cx.calls[i], err);
            }
            md = cx.max_depth;
        } else {
            ok = cel_prepare_calls(&pc, src, p->root, err, &md, 0);
        }
        p->cleanups = pc.cleanups;
        p->max_depth = md;
        if (!ok)
            goto fail;
    }
    p->has_presence_cost = !(env->opts & CEL_OPT_PRESENCE_COST_ZERO);
    p->nframes = (size_t)(p->max_depth + 1) * 3;
#if KGATE_CEL_PLANNER
    if (!cel_plan(p, src, err))
        goto fail;
#endif
    *out = p;
    return true;
fail:
    cel_program_free(p);
    return false;
}

void cel_program_free(cel_program *p)
{
    if (!p)
        return;
    for (cleanup *c = p->cleanups; c; c = c->next)
        c->fn(c->p);
    kg_arena a = p->arena; /* p itself is in the arena */
    kg_arena_free(&a);
}

const cel_type *cel_program_type(const cel_program *p)
{
    return p->type;
}
