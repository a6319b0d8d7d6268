/* Internal declarations shared by the compile-side files (env.c, resolve.c, check.c): facts about overloads fixed
 * when an overload is registered (so overload resolution does not recompute them for every call it checks), inline
 * name comparisons, and the checker/prepare hand-over. */
#ifndef KG_CEL_COMPILE_INTERNAL_H
#define KG_CEL_COMPILE_INTERNAL_H

#include "cel/cel_internal.h"

/* internal compile flag (tests): the parser resolves nothing itself, cel_resolve walks the whole tree */
#define CEL_COMPILE_FULL_RESOLVE (1u << 30)

/* One 32-bit word per overload, kept in a trailer of the f->ovls allocation (f->cap overloads, then f->cap words;
 * only env.c's add_ovl allocates that array; later code only ever sets an overload's prepare hook), so overload
 * resolution scans a compact array and reads an overload only when it can match:
 *   bit 0      the signature has type parameters
 *   bit 1      member (receiver-style) overload
 *   bits 2-5   number of arguments (15: 15 or more, read the overload)
 *   bits 6-9   distinct type parameters, what instantiating it takes in fresh variables (15: 15 or more, count)
 *   bits 10-14 kind of argument 0, bits 15-19 kind of argument 1 (CEL_OVL_NOKIND when absent)
 *   bit 20     CEL_OVL_EQSHAPE */
#define CEL_OVL_GENERIC 1u
#define CEL_OVL_MEMBER 2u
#define CEL_OVL_NARGS(m) (((m) >> 2) & 15u)
#define CEL_OVL_NPARAMS(m) (((m) >> 6) & 15u)
#define CEL_OVL_KIND(m, i) (((m) >> (10 + 5 * (i))) & 31u)
#define CEL_OVL_NOKIND 31u /* also for a kind that does not fit: the checker then reads the overload */
/* bit 20: (A, A) -> R with the same bare type parameter for both arguments and a parameter-free result (_==_) */
#define CEL_OVL_EQSHAPE (1u << 20)
_Static_assert(CEL_T_ANY < 31, "cel_type_kind values must fit the per-overload word");
#define CEL_OVL_MAX4 15u

static inline const uint32_t *cel_func_ovl_meta(const cel_func *f)
{
    return (const uint32_t *)(f->ovls + f->cap);
}

/* Per-function index of its first 64 overloads, behind the words: bit k of shape[s] is set when overload k has
 * shape s (receiver style and arity, see cel_ovl_shape), bit k of kind0[t] / kind1[t] when an argument of kind t
 * in position 0 / 1 does not rule overload k out by kind alone (quick mismatch), generic marks the generic ones.
 * Overload resolution intersects these masks and visits only the overloads left (and the generic ones that the
 * kinds ruled out, to number fresh variables as before). Functions with more than 64 overloads are scanned. */
#define CEL_OVL_INDEXED 64u
#define CEL_OVL_NKINDS 20u
typedef struct cel_ovl_index {
    uint64_t shape[16];
    uint64_t kind0[CEL_OVL_NKINDS], kind1[CEL_OVL_NKINDS];
    uint64_t generic;
} cel_ovl_index;
_Static_assert(CEL_T_ANY < CEL_OVL_NKINDS, "cel_type_kind values must fit the overload index");

static inline unsigned cel_ovl_shape(bool member, size_t nargs)
{
    return (member ? 8u : 0u) | (unsigned)(nargs < 7 ? nargs : 7);
}

static inline const cel_ovl_index *cel_func_ovl_index(const cel_func *f)
{
    return (const cel_ovl_index *)(cel_func_ovl_meta(f) + f->cap);
}

static inline bool cel_concrete_scalar(cel_type_kind k)
{
    switch (k) {
    case CEL_T_BOOL:
    case CEL_T_INT:
    case CEL_T_UINT:
    case CEL_T_DOUBLE:
    case CEL_T_STRING:
    case CEL_T_BYTES:
    case CEL_T_TIMESTAMP:
    case CEL_T_DURATION: return true;
    default: return false;
    }
}

/* assignability of an argument of kind k1 to a signature type of kind k2 fails for sure, without touching any
 * mapping: k1 is a scalar and k2 a different concrete kind (no type parameter, dyn, any, error or null) */
static inline bool cel_quick_mismatch(cel_type_kind k1, cel_type_kind k2)
{
    if (k1 == k2 || !cel_concrete_scalar(k1))
        return false;
    switch (k2) {
    case CEL_T_PARAM:
    case CEL_T_DYN:
    case CEL_T_ANY:
    case CEL_T_ERROR:
    case CEL_T_NULL: return false;
    default: return true;
    }
}

/* The env's variable and named-type arrays (allocated only by env.c) carry a 256-bit trailer: bit c is set when a
 * name starting with byte c contains a '.'. A select chain whose root starts with another byte cannot be the start
 * of a qualified variable or type name, so the resolver skips scanning the names. */
static inline bool cel_env_dotted_first(const cel_env *e, unsigned char c)
{
    const uint64_t *v = e->capvars ? (const uint64_t *)(e->vars + e->capvars) : NULL;
    const uint64_t *t = e->captypes ? (const uint64_t *)(e->types + e->captypes) : NULL;
    return ((v && ((v[c >> 6] >> (c & 63)) & 1)) || (t && ((t[c >> 6] >> (c & 63)) & 1)));
}

/* The env's function table (allocated only by env.c) carries, after its ftab_cap slots and ftab_cap tags, a
 * 256-bit filter of the first segments of dotted function names ("strings" of strings.quote): bit
 * cel_func_root_bit(segment) is set. A member call whose receiver chain starts with a root that has no bit set
 * cannot name a namespaced function (without a container), so the resolver skips building and looking up the
 * qualified name. */
static inline unsigned cel_func_root_bit(const char *seg, size_t n)
{
    return ((unsigned char)seg[0] * 7u + (unsigned char)seg[n - 1] * 3u + (unsigned)n * 31u) & 255u;
}
static inline bool cel_env_func_root_may(const cel_env *e, const char *seg, size_t n)
{
    if (!e->ftab_cap || !n)
        return true;
    const uint64_t *bits = (const uint64_t *)(e->ftab + e->ftab_cap) + e->ftab_cap;
    unsigned b = cel_func_root_bit(seg, n);
    return (bits[b >> 6] >> (b & 63)) & 1;
}

/* Functions the parser calls by fixed names (operators, the comprehension macros' helpers): the env's function
 * table keeps their pointers after the dotted-root filter (set when the function is created), so the parser puts
 * the function on the call node it makes and the resolver, when nothing can qualify the name (no container), takes
 * it instead of looking the name up: the same function the lookup would find. */
enum {
    CEL_WK_AND,
    CEL_WK_OR,
    CEL_WK_NOT,
    CEL_WK_NEG,
    CEL_WK_NOT_STRICTLY_FALSE,
    CEL_WK_EQ,
    CEL_WK_NE,
    CEL_WK_LT,
    CEL_WK_LE,
    CEL_WK_GT,
    CEL_WK_GE,
    CEL_WK_IN,
    CEL_WK_ADD,
    CEL_WK_SUB,
    CEL_WK_MUL,
    CEL_WK_DIV,
    CEL_WK_MOD,
    CEL_WK_INDEX,
    CEL_WK_COND,
    CEL_WK_COUNT
};
extern const char *const cel_wk_names[CEL_WK_COUNT];
extern const uint8_t cel_wk_lens[CEL_WK_COUNT];
static inline const cel_func *cel_env_wk(const cel_env *e, unsigned k)
{
    if (!e->ftab_cap)
        return NULL;
    cel_func *const *wk = (cel_func *const *)((const uint64_t *)(e->ftab + e->ftab_cap) + e->ftab_cap + 4);
    return wk[k];
}

/* The built-in type singletons (env.c) by address: the same objects cel_type_dyn() & co. return, without a call. */
enum {
    CEL_PRIM_DYN,
    CEL_PRIM_NULL,
    CEL_PRIM_BOOL,
    CEL_PRIM_INT,
    CEL_PRIM_UINT,
    CEL_PRIM_DOUBLE,
    CEL_PRIM_STRING,
    CEL_PRIM_BYTES,
    CEL_PRIM_TIMESTAMP,
    CEL_PRIM_DURATION,
    CEL_PRIM_TYPE,
    CEL_PRIM_ERROR,
    CEL_PRIM_COUNT
};
extern const cel_type cel_prim_types[CEL_PRIM_COUNT];
#define cel_type_dyn() (&cel_prim_types[CEL_PRIM_DYN])
#define cel_type_null() (&cel_prim_types[CEL_PRIM_NULL])
#define cel_type_bool() (&cel_prim_types[CEL_PRIM_BOOL])
#define cel_type_int() (&cel_prim_types[CEL_PRIM_INT])
#define cel_type_uint() (&cel_prim_types[CEL_PRIM_UINT])
#define cel_type_double() (&cel_prim_types[CEL_PRIM_DOUBLE])
#define cel_type_string() (&cel_prim_types[CEL_PRIM_STRING])
#define cel_type_bytes() (&cel_prim_types[CEL_PRIM_BYTES])
#define cel_type_timestamp() (&cel_prim_types[CEL_PRIM_TIMESTAMP])
#define cel_type_duration() (&cel_prim_types[CEL_PRIM_DURATION])
#define cel_type_type() (&cel_prim_types[CEL_PRIM_TYPE])
#define cel_type_error() (&cel_prim_types[CEL_PRIM_ERROR])

/* z (NUL-terminated) starts with s[0..n), compared inline (short names; no library call); never reads past z's NUL */
static inline bool cel_prefix_is(const char *z, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (z[i] != s[i] || !z[i])
            return false;
    return true;
}
/* z (NUL-terminated) equals s[0..n) */
static inline bool cel_name_is(const char *z, const char *s, size_t n)
{
    return cel_prefix_is(z, s, n) && z[n] == 0;
}

/* The comprehension scopes as the resolver and the parser's inline resolution keep them: per nesting level its
 * iteration variable, second iteration variable and accumulator (NULL when absent). The index of name among the
 * `depth` levels, innermost first (an identifier's frame slot is -2 - index), or -1. The accumulator's name is the
 * parser's own string on both sides: one pointer compare. */
static inline int cel_scope_find(const char *const *scope, int depth, const char *name, size_t n)
{
    for (int i = depth * 3 - 1; i >= 0; i--) {
        const char *z = scope[i];
        if (z && (z == name ? z[n] == 0 : cel_name_is(z, name, n)))
            return i;
    }
    return -1;
}

/* the operand a chain of plain selections (no has(), no optional selection) starts from: t itself if t is none */
static inline cel_node *cel_select_root(const cel_node *t)
{
    while (t->kind == N_SELECT && !(t->flags & (NF_TEST_ONLY | NF_OPTIONAL)))
        t = t->target;
    return (cel_node *)(uintptr_t)t;
}

/* a[0..n) == b[0..n), both at least n bytes long: overlapping word loads up to 32 bytes (function and variable
 * names), memcmp beyond */
bool cel_mem_eq_long(const char *a, const char *b, size_t n) __attribute__((noinline));
static inline bool cel_mem_eq(const char *a, const char *b, size_t n)
{
    if (n >= 8) {
        if (n > 32)
            return cel_mem_eq_long(a, b, n); /* out of line: callers stay leaves */
        uint64_t x0, x1, y0, y1, d = 0;
        if (n > 16) {
            memcpy(&x0, a + 8, 8);
            memcpy(&y0, b + 8, 8);
            memcpy(&x1, a + n - 16, 8);
            memcpy(&y1, b + n - 16, 8);
            d = (x0 ^ y0) | (x1 ^ y1);
        }
        memcpy(&x0, a, 8);
        memcpy(&y0, b, 8);
        memcpy(&x1, a + n - 8, 8);
        memcpy(&y1, b + n - 8, 8);
        return (d | (x0 ^ y0) | (x1 ^ y1)) == 0;
    }
    if (n >= 4) {
        uint32_t x0, x1, y0, y1;
        memcpy(&x0, a, 4);
        memcpy(&y0, b, 4);
        memcpy(&x1, a + n - 4, 4);
        memcpy(&y1, b + n - 4, 4);
        return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    }
    if (n == 0)
        return true;
    /* 1-3 bytes: the first, middle and last cover them all */
    return ((a[0] ^ b[0]) | (a[n / 2] ^ b[n / 2]) | (a[n - 1] ^ b[n - 1])) == 0;
}

/* distinct type parameters of an overload's signature (its nargs argument types and its result) */
unsigned cel_ovl_count_params(const cel_overload *o);

/* Type check that also lists, in the order cel_prepare_calls would visit them, the call nodes with a constant
 * argument (the only ones prepare hooks act on), and the deepest comprehension nesting: compiling a checked
 * program then prepares those nodes instead of walking the tree once more. */
typedef struct cel_check_extra {
    cel_node **calls; /* inl, or an arena array beyond its size */
    size_t ncalls;
    int max_depth;
    cel_node *inl[8];
} cel_check_extra;
bool cel_check_ex(cel_env *env, kg_arena *a, const char *src, cel_node *root, const cel_type **out, cel_error *err,
                  cel_check_extra *extra);
/* prepare hooks of one call node (resolve.c); cel_prepare_calls is this over the whole tree */
bool cel_prepare_call(cel_prepare_ctx *pc, const char *src, cel_node *n, cel_error *err);

#endif
