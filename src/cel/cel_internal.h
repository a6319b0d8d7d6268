/* Internal structures of the CEL engine (not part of the public API). */
#ifndef KG_CEL_INTERNAL_H
#define KG_CEL_INTERNAL_H

/* KGATE_CEL_PLANNER (CMake option, default ON): 0 builds the plain interpreter alone, without plan.c and the
 * evaluator's planned forms (eval_fast.c); cel_node.xk and the other planned fields then stay 0 */
#ifndef KGATE_CEL_PLANNER
#define KGATE_CEL_PLANNER 1
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/buf.h"
#include "base/str.h"
#include "cel/cel.h"
#include "json/json.h" /* layout of kg_json only: JSON values are wrapped lazily (eval_json.c), no link dependency */

/* ---- AST / executable tree ---- */
typedef enum node_kind {
    N_CONST,
    N_IDENT,
    N_SELECT,
    N_CALL,
    N_LIST,
    N_MAP,
    N_STRUCT,
    N_COMPR,
} node_kind;

/* opcodes for built-in calls evaluated inline */
typedef enum opcode {
    OP_NONE = 0,
    OP_AND,
    OP_OR,
    OP_COND,
    OP_NOT,
    OP_NEG,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_MOD,
    OP_EQ,
    OP_NE,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_IN,
    OP_INDEX,
    OP_OPT_INDEX,
    OP_OPT_SELECT,
    OP_NOT_STRICTLY_FALSE,
    OP_MAP_INSERT,
    OP_BIND_BLOCK,
    OP_BLOCK_INDEX,
    OP_FUNC, /* generic function dispatch */
} opcode;

typedef struct cel_func cel_func;
typedef struct cel_node cel_node;

enum {
    NF_TEST_ONLY = 1u << 0,   /* has() select */
    NF_MEMBER = 1u << 1,      /* receiver call */
    NF_APPEND_ACCU = 1u << 2, /* accu + [x] inside a comprehension: append in place */
    NF_OPTIONAL = 1u << 3,    /* select .? */
    NF_ROOT = 1u << 4,        /* leading-dot identifier */
    NF_DIRECT = 1u << 5,      /* exactly one overload matches with concrete argument types: call it directly */
    NF_ALL = 1u << 6,         /* comprehension expanded from all(): fast path with identical results and cost */
    NF_EXISTS = 1u << 7,      /* comprehension expanded from exists() */
    NF_LEAN = 1u << 8,        /* (plan) comprehension whose range is a path from a declared variable and whose initial
                                 accumulator is a constant bool: the lean fused forms may run (eval_fast.c) */
};

struct cel_node {
    /* first cache line: what the evaluator reads for every node (kind, planned form, arguments, constant) */
    uint8_t kind;
    uint8_t op;
    uint16_t flags;
    /* planned fast form (plan.c), read by the evaluator; 0 = evaluate the node as it is */
    uint8_t xk;     /* xkind */
    uint8_t xn;     /* X_CONCAT: number of + in the chain ending here; X_EQ_CONST: index of the constant */
    uint8_t xf;     /* F_*: how the node runs inside a fused all()/exists() predicate (plan.c, eval_fast.c fpred) */
    uint8_t xv;     /* X_COMPR xn 2 / 3: 1 + the frame index (-2 - slot) of the predicate's variable; 0: unknown */
    uint32_t hint;  /* JSON member index found last time (has(), fallback selects): a verified guess, relaxed atomics */
    int slot;       /* ident: variable slot (>=0), comprehension var (-2 - depth index), -1 runtime lookup */
    const void *xp; /* planned data (X_PATH: path_plan, X_CALL1: call1_plan) */
    cel_node **args; /* call args (receiver first for member calls), list elements, map keys */
    size_t nargs;
    cel_value cval; /* N_CONST */
    /* the rest */
    int32_t id;
    int32_t pos;      /* byte offset in source */
    const char *name; /* ident / select field / function / struct type name */
    size_t name_len;
    cel_node *target; /* select operand, call receiver (also stored as args[0] for member calls) */
    cel_node **vals;  /* map values, struct field values */
    uint8_t *opt;     /* list/map: optional element/entry flags (NULL if none) */
    /* comprehension */
    const char *iter_var, *iter_var2, *accu_var;
    cel_node *range, *accu_init, *cond, *step, *result;
    /* resolution */
    const cel_func *fn; /* call */
    uint16_t *cands;    /* checked calls: indexes of the overloads that match statically */
    uint16_t ncands;
    void **states;               /* per-overload prepared state (parallel to fn->ovls), or NULL */
    const cel_type *type;        /* checked type */
    const cel_type *struct_type; /* N_STRUCT */
};

/* X_PATH: the selections of a chain, from its operand outwards */
typedef struct path_step {
    const char *name;
    uint32_t len;
    uint32_t hint; /* JSON member index found last time: a verified guess, relaxed atomics */
    const cel_node *node;
} path_step;
typedef struct path_plan {
    const cel_node *base; /* the operand of the first selection */
    size_t k;
    /* operands of one concatenation chain (X_CONCAT) that are paths from the same declared variable sharing their
     * first steps: the earlier path keeps the node after `save` steps (0: none), the later one starts there (`from`:
     * the earlier operand's index in the chain, -1: none; `from_m`: the steps shared) */
    uint8_t save, from_m;
    int8_t from;
    path_step steps[];
} path_plan;

/* X_CONCAT at the top of a chain: its + nodes and operands (adds[j] joins the result so far with ops[j + 1]; ops
 * follow the k adds), and the fast form when every operand is a constant string or a path from a variable
 * (eval_fast.c concat_fast), else NULL */
typedef struct cat_piece {
    const path_plan *pp; /* NULL: a constant string */
    const char *s;       /* the constant's bytes */
    uint32_t n, ulen;    /* its length in bytes and in code points */
} cat_piece;
typedef struct cat_fast {
    size_t np;     /* pieces: the chain's operands, k + 1 */
    bool iter;     /* some path starts at a comprehension variable */
    uint64_t cost; /* what does not depend on the strings: each path's base read and steps, 1 per + */
    cat_piece p[];
} cat_fast;
typedef struct cat_chain {
    const cat_fast *fast;
    const cel_node *nodes[]; /* 2k + 1: the k adds, then the k + 1 operands */
} cat_chain;

/* X_CALL1: a function call whose candidate overloads (those the overload search can accept at all, in its order)
 * are resolved at plan time, with the argument kind each one requires */
typedef struct call_cand {
    const cel_overload *o;
    void *state;     /* its prepared state (n->states[k]) or NULL */
    uint8_t kind[8]; /* per argument: the cel_kind the signature requires, CALL1_ANY, or CALL1_CHECK (full check) */
} call_cand;
typedef struct call1_plan {
    size_t nc;
    call_cand c[];
} call1_plan;
#define CALL1_ANY 0xff
#define CALL1_CHECK 0xfe

/* planned node kinds (cel_node.xk) */
enum {
    X_NONE = 0,
    X_PATH,     /* a.b.c...: plain field selections walked on the JSON DOM without a value per step */
    X_IN_CONST, /* "k" in m with a constant string key */
    X_EQ_CONST, /* x == "s" / x != "s" with a constant string on one side */
    X_CONCAT,   /* a + b + c ... string concatenation chain (left-assoc), one allocation */
    X_CALL1,    /* f(...) / x.f(...) with candidates resolved at plan time: no overload search */
    X_AFFIX,    /* s.startsWith("c") / s.endsWith("c"): the stdlib overload inline (xn: 0 starts, 1 ends) */
    X_SIZE,     /* size(x) / x.size() whose candidates are all the standard size overload (cost 1) */
    X_MATCHES,  /* s.matches("re") / matches(s, "re") with the regex compiled at compile time (hint: pattern cost) */
    X_CONST,    /* constant (the node kind folded into xk: one dispatch per node) */
    X_VAR,      /* declared variable (slot >= 0) */
    X_ITER,     /* comprehension variable (slot <= -2) */
    X_ANDOR,    /* && / || (the node kind and operator folded into xk: one dispatch) */
    X_COMPARE,  /* < <= > >= with two arguments */
    X_HAS,      /* has(x.f) */
    X_COMPR,    /* comprehension */
};
#define X_PATH_MAX 16

/* nodes of an all()/exists() predicate evaluated in place for each element of a JSON array (cel_node.xf); the
 * paths involved start at the comprehension's variable */
enum {
    F_NONE = 0, /* the general way */
    F_ANDOR,    /* && / || over predicate nodes */
    F_HAS,      /* has(path.f) */
    F_IN,       /* "k" in path (X_IN_CONST) */
    F_STR,      /* path.startsWith/endsWith/matches("c") (X_AFFIX / X_MATCHES) */
    F_EQ,       /* path == "s" / path != "s" (X_EQ_CONST) */
};
/* (flag) the right side of has(P.f) && / || this node, whose path is P.f: when the has() found f, this node's path
 * ends on the member it found (the walk is charged, not done) */
#define F_REUSE 0x80
#define F_KIND 0x7f

/* ---- functions ---- */
typedef struct ovl {
    cel_overload o;
} ovl;

#define CEL_RCACHE_BITS 3
struct cel_func {
    const char *name;
    opcode op;
    size_t novl, cap;
    cel_overload *ovls;
    struct cel_func *next;
    /* the checker's memo of overload resolutions over primitive argument types (check.c rcache_*): words read and
     * written with relaxed atomics, so concurrent compiles in one environment share it; cleared when an overload
     * is added */
    uint64_t rcache[1u << CEL_RCACHE_BITS];
};

typedef struct var_decl {
    const char *name;
    const cel_type *type;
    int slot;
} var_decl;

struct cel_env {
    kg_arena arena;
    unsigned libs, opts;
    const char *container;
    var_decl *vars;
    size_t nvars, capvars;
    cel_func **ftab; /* hash table of functions */
    size_t ftab_cap, nfuncs;
    cel_type **types; /* named types (opaque/object) */
    size_t ntypes, captypes;
    const char *dyn_structs[8]; /* cel_env_add_dynamic_struct_prefix */
    size_t ndyn_structs;
};

struct cel_prepare_ctx {
    kg_arena *arena;
    struct cleanup *cleanups;
};

typedef struct cleanup {
    void (*fn)(void *);
    void *p;
    struct cleanup *next;
} cleanup;

enum { ROOT_FAST_NONE = 0, ROOT_FAST_CONCAT, ROOT_FAST_BOOL };
struct cel_program {
    kg_arena arena;
    const cel_env *env;
    cel_node *root;
    const cel_type *type;
    cleanup *cleanups;
    size_t nslots;  /* the env's declared variables when compiled: every slot the program reads is below */
    int max_depth;  /* comprehension nesting */
    size_t nframes; /* comprehension frames an evaluation needs: 3 per nesting level (max_depth + 1), set by cel_plan */
    bool has_presence_cost;
    uint8_t root_fast; /* (plan) ROOT_FAST_*: the root has a form that needs no jump target (eval_fast.c eval_root_*) */
    void *plan;        /* the evaluator's planned form of root (plan.c), or NULL */
};

typedef struct bound_var {
    const char *name;
    cel_value v;
    struct bound_var *next;
} bound_var;

/* A slot's state is its kind: a value's kind once bound, else one of these two (never seen outside activations).
 * A slot holding a JSON object is recognised by kind CEL_MAP and the JSON vtable alone. */
#define CEL_SLOT_UNSET 0xF0   /* not bound, the resolver not asked yet */
#define CEL_SLOT_REFUSED 0xF1 /* the resolver said no */
void cel_activation_grow(cel_activation *act, size_t nslots);

struct cel_activation {
    const cel_env *env;
    kg_arena *arena;
    cel_value *slots; /* nslots (cel_eval grows them for a program compiled after more declarations) */
    size_t nslots;
    bound_var *extra;
    cel_resolve_fn resolver;
    void *resolver_ud;
    void *host;
};

/* a comprehension variable's value (frames are found by index: resolve.c numbers them by nesting depth) */
typedef struct compr_frame {
    cel_value v;
} compr_frame;

/* The cost limit unwinds the evaluation with a jump. GCC/Clang's __builtin_setjmp saves three words (frame, stack,
 * resume address) where the libc setjmp saves eight registers and the signal mask flag through two calls; under the
 * sanitizers that intercept longjmp (address, thread, memory) the libc pair is kept, since the interceptor fixes up
 * their view of the stack frames it skips. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CEL_LIBC_SETJMP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer) ||          \
    __has_feature(hwaddress_sanitizer)
#define CEL_LIBC_SETJMP 1
#endif
#endif
#ifdef CEL_LIBC_SETJMP
typedef jmp_buf cel_jmp_buf;
#define CEL_SETJMP(b) setjmp(b)
#define CEL_LONGJMP(b) longjmp(b, 1)
#else
typedef void *cel_jmp_buf[5];
#define CEL_SETJMP(b) __builtin_setjmp(b)
#define CEL_LONGJMP(b) __builtin_longjmp(b, 1)
#endif

struct cel_call_ctx {
    kg_arena *arena;
    cel_activation *act; /* NULL in the fast root forms run for cel_eval_slots */
    cel_value *slots;    /* the declared variables' slots (act->slots when there is an activation) */
    uint64_t cost, limit;
    cel_jmp_buf *jb;
    compr_frame *vars; /* comprehension frames: 3 per nesting level (the program's max_depth + 1) */
    size_t nvars;
    const cel_overload *cur_ovl;
    void *cur_state;
    bool presence_cost;
};

/* ---- native list/map ---- */
typedef struct nlist {
    size_t n, cap;
    cel_value *items;
} nlist;

typedef struct nmap {
    size_t n, cap;
    cel_value *keys, *vals;
    uint32_t *index; /* open addressing over hash of keys (cap 2^k), 0 = empty, else i+1; NULL for small maps */
    size_t index_cap;
    const cel_type *type;
} nmap;

typedef struct nopt {
    cel_value v;
} nopt;

extern const cel_list_vt cel_nlist_vt;
extern const cel_map_vt cel_nmap_vt;

/* ---- lazily wrapped JSON (eval_json.c): the core knows these vtables so the evaluator can walk the DOM directly */
extern const cel_list_vt cel_jarr_vt;
extern const cel_map_vt cel_jobj_vt;

/* v with another n and payload (same kind, flags and aux), built in place like the constructors */
static inline cel_value cel_value_with(const cel_value *v, uint32_t n, const void *payload)
{
    cel_value r = cel_value_make_(v->kind, n, (uint64_t)(uintptr_t)payload, v->aux);
    r.flags = v->flags;
    r.pad = v->pad;
    return r;
}

__attribute__((always_inline)) static inline cel_value cel_json_wrap(const kg_json *j)
{
    if (!j)
        return cel_null();
    switch ((kg_json_type)j->type) {
    case KG_JSON_NULL: return cel_null();
    case KG_JSON_BOOL: return cel_bool(j->b);
    case KG_JSON_INT: return cel_value_make_(CEL_INT, 0, (uint64_t)j->u.i, NULL);
    case KG_JSON_NUMBER: return cel_double(j->u.num.d); /* integral values beyond int64 stay double (Kubernetes) */
    case KG_JSON_STRING: return cel_value_make_(CEL_STRING, j->len, (uint64_t)(uintptr_t)j->u.s, NULL);
    case KG_JSON_ARRAY: return cel_value_make_(CEL_LIST, j->len, (uint64_t)(uintptr_t)j, &cel_jarr_vt);
    case KG_JSON_OBJECT: return cel_value_make_(CEL_MAP, j->len, (uint64_t)(uintptr_t)j, &cel_jobj_vt);
    }
    return cel_null();
}

/* code points of s[0..n) (cel_utf8_len): strings up to 64 bytes are tested for ASCII inline with a few word loads
 * that stay inside the n bytes (then the count is n); the rest goes to the out-of-line count */
size_t cel_utf8_len(const char *s, size_t n);
static inline size_t cel_utf8_len_i(const char *s, size_t n)
{
    uint64_t any, w;
#if defined(__SSE2__)
    if (n >= 16) {
        /* 16 bytes a load: the bytes' top bits gathered by one movemask */
        if (n > 64)
            return cel_utf8_len(s, n);
        __m128i acc = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
        for (size_t i = 0; i + 16 < n; i += 16)
            acc = _mm_or_si128(acc, _mm_loadu_si128((const __m128i *)(const void *)(s + i)));
        return _mm_movemask_epi8(acc) ? cel_utf8_len(s, n) : n;
    }
#endif
    if (n >= 8) {
        if (n > 64)
            return cel_utf8_len(s, n);
        memcpy(&any, s + n - 8, 8);
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&w, s + i, 8);
            any |= w;
        }
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        any = x | y;
    } else {
        any = 0;
        for (size_t i = 0; i < n; i++)
            any |= (unsigned char)s[i];
    }
    if (!(any & 0x8080808080808080ull))
        return n;
    return cel_utf8_len(s, n);
}

/* Member lookup in a JSON object: key length first, then the bytes. Objects have unique keys (the parser and
 * kg_json_setn keep the last of duplicates in place), so the member found is the only one with that key. */
static inline const kg_json_member *cel_jobj_find(const kg_json *o, const char *k, uint32_t kl)
{
    const kg_json_member *m = o->u.members;
    for (uint32_t i = 0, n = o->len; i < n; i++)
        if (m[i].key_len == kl && (kl == 0 || (m[i].key[0] == k[0] && kg_bytes_eq(m[i].key, k, kl))))
            return &m[i];
    return NULL;
}

/* The same with a hint: the index where the key was found last time (objects of the same shape hit at once). The
 * hint is only a guess that is verified, shared by threads through relaxed atomics; results never depend on it. */
const kg_json_member *cel_jobj_find_miss(const kg_json *o, const char *k, uint32_t kl, uint32_t *hint);
__attribute__((always_inline)) static inline const kg_json_member *cel_jobj_find_hint(const kg_json *o, const char *k,
                                                                                      uint32_t kl, uint32_t *hint)
{
    uint32_t h = __atomic_load_n(hint, __ATOMIC_RELAXED);
    const kg_json_member *m = o->u.members;
    if (h < o->len && m[h].key_len == kl && kg_bytes_eq(m[h].key, k, kl))
        return &m[h];
    return cel_jobj_find_miss(o, k, kl, hint); /* the scan out of line */
}

/* value helpers */
cel_value cel_err(cel_call_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
cel_value cel_err_a(kg_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
cel_value cel_no_overload(cel_call_ctx *ctx, const char *fn, const cel_value *args, size_t n);
nlist *nlist_new(kg_arena *a, size_t cap);
void nlist_push(kg_arena *a, nlist *l, cel_value v);
static inline cel_value nlist_value(nlist *l)
{
    return cel_list_custom(&cel_nlist_vt, l, (uint32_t)l->n);
}
nmap *nmap_new(kg_arena *a, size_t cap);
/* returns false if the key already exists */
bool nmap_put(kg_arena *a, nmap *m, cel_value k, cel_value v);
static inline cel_value nmap_value(nmap *m)
{
    return cel_map_custom(&cel_nmap_vt, m, (uint32_t)m->n);
}
bool cel_valid_key(const cel_value *k);
/* -1, 0, 1, or 2 when incomparable (e.g. NaN or different kinds) */
int cel_compare(const cel_value *a, const cel_value *b);
bool cel_eq(cel_call_ctx *ctx, const cel_value *a, const cel_value *b);
const char *cel_type_name_of(const cel_value *v);
void cel_format_double(kg_buf *b, double d);
bool cel_utf8_valid(const char *s, size_t n);
/* decode one code point at s (n bytes left); returns bytes consumed */
int cel_utf8_decode(const char *s, size_t n, uint32_t *cp);
int cel_utf8_encode(uint32_t cp, char *out);
/* unwinds to cel_eval (out of line: the jump stays out of the functions that charge) */
__attribute__((noreturn, cold)) void cel_cost_exceeded(cel_call_ctx *ctx);
__attribute__((always_inline)) static inline void cel_charge(cel_call_ctx *ctx, uint64_t c)
{
    ctx->cost += c;
    if (__builtin_expect(ctx->cost > ctx->limit, 0) && ctx->jb)
        cel_cost_exceeded(ctx);
}

/* types */
const cel_type *cel_type_list_dyn(void);
const cel_type *cel_type_map_dyn(void);
const cel_type *cel_type_error(void);
const cel_type *cel_type_optional_dyn(void);
const cel_type *cel_type_opaque_lookup(const cel_env *env, const char *name);
/* parse a signature type like "list(A)" / "map(K, V)" / "int" */
const cel_type *cel_type_parse(cel_env *env, const char *s);
bool cel_value_matches_type(const cel_value *v, const cel_type *t);

/* env helpers */
cel_func *cel_env_func(const cel_env *env, const char *name);
cel_func *cel_env_func_n(const cel_env *env, const char *name, size_t n);
const var_decl *cel_env_var(const cel_env *env, const char *name, size_t n);
/* add a built-in overload from a signature string: "[member ]name: T1, T2 -> R" */
void cel_env_builtin(cel_env *env, const char *name, opcode op, unsigned flags, const char *sig, cel_fn impl,
                     cel_cost_fn cost);
void cel_stdlib_register(cel_env *env);
/* stdlib overloads the planner recognises (X_AFFIX) */
extern const cel_fn cel_std_starts_with, cel_std_ends_with, cel_std_size, cel_std_matches;
extern const cel_cost_fn cel_std_cost_arg0_01, cel_std_cost_matches;
void cel_ext_register(cel_env *env);
void cel_time_register(cel_env *env);

/* parser */
typedef struct parse_result {
    cel_node *root;
    int next_id;
    bool resolved; /* the parser resolved every name and function as cel_resolve would (parse.c ires_*) */
} parse_result;
bool cel_parse(kg_arena *a, const cel_env *env, const char *src, size_t len, unsigned flags, parse_result *out,
               cel_error *err);
void cel_error_at(cel_error *err, const char *src, int pos, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* checker */
bool cel_check(cel_env *env, kg_arena *a, const char *src, cel_node *root, const cel_type **out, cel_error *err);
/* resolution for unchecked programs (slots, functions) */
bool cel_resolve(const cel_env *env, kg_arena *a, const char *src, cel_node *root, cel_error *err);
/* compile-time preparation of calls (resolve.c) */
bool cel_prepare_calls(cel_prepare_ctx *pc, const char *src, cel_node *n, cel_error *err, int *max_depth, int depth);
#if KGATE_CEL_PLANNER
/* the last compile step, after check and prepare (plan.c): may build p->plan for the evaluator */
bool cel_plan(cel_program *p, const char *src, cel_error *err);
/* tests: number of planned nodes; undo the plan (not thread-safe: only before any evaluation) */
size_t cel_plan_count(const cel_program *p);
void cel_plan_clear(cel_program *p);
#endif

/* evaluator */
cel_value cel_eval_node(cel_call_ctx *ctx, const cel_node *n);
/* the whole program: like cel_eval_node, bool results are produced in place */
void cel_eval_root(cel_call_ctx *ctx, const cel_node *n, cel_value *out);
cel_value cel_call_overloads(cel_call_ctx *ctx, const cel_node *n, const cel_value *args, size_t nargs);

/* time */
bool cel_parse_duration(const char *s, size_t n, int64_t *out);
bool cel_parse_timestamp(const char *s, size_t n, int64_t *secs, int32_t *nanos);
void cel_format_timestamp(kg_buf *b, int64_t secs, int32_t nanos);
void cel_format_duration_go(kg_buf *b, int64_t nanos);
void cel_format_duration_secs(kg_buf *b, int64_t nanos);
#define CEL_TS_MIN (-62135596800LL)
#define CEL_TS_MAX (253402300799LL)

#endif
