/* cel.h - kgate's Common Expression Language engine: an independent C library (depends only on src/base).
 *
 * Life cycle:
 *   cel_env *env = cel_env_new(CEL_LIB_K8S);                 // libraries + options
 *   cel_env_declare_var(env, "object", cel_type_dyn());       // declared variables get a slot
 *   cel_program *p; cel_error e;
 *   if (!cel_compile(env, "object.spec.replicas < 10", NULL, &p, &e)) -> e.line, e.column, e.message
 *   kg_arena a; kg_arena_init(&a, 0);
 *   cel_activation *act = cel_activation_new(env, &a);
 *   cel_activation_set(act, "object", v);                      // or by slot, or a lazy resolver
 *   cel_value out; uint64_t cost;
 *   cel_eval_status st = cel_eval(p, act, CEL_PER_CALL_LIMIT, &out, &cost);
 *   kg_arena_free(&a); cel_program_free(p); cel_env_free(env);
 *
 * Threading: an env is mutable only until its first cel_compile; after that env and programs may be shared by any
 * number of threads. They are immutable except for lookup hints and caches, written with relaxed atomics (or built
 * once, under std::call_once) while compiles and evaluations run; results never depend on them: the checker's memo
 * of overload resolutions (env), a regex's lazily built matcher, and per selection the index of the JSON member found
 * last time (program; a guess that is verified before use). Each evaluation uses its own activation and arena.
 *
 * Memory: values produced during evaluation live in the activation's arena (no malloc per value). Values handed
 * in by the caller are never copied; they must outlive the evaluation. A result may also point at constants of the
 * program (string literals): use or copy results before cel_program_free.
 */
#ifndef KG_CEL_H
#define KG_CEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------------------ */
/* Limits (Kubernetes k8s.io/apiserver/pkg/apis/cel/config.go)                                                   */
/* ------------------------------------------------------------------------------------------------------------ */
#define CEL_PER_CALL_LIMIT 1000000ull
#define CEL_RUNTIME_BUDGET 10000000ull
#define CEL_RUNTIME_BUDGET_MATCH_CONDITIONS 2500000ull
#define CEL_NO_COST_LIMIT UINT64_MAX

typedef struct cel_env cel_env;
typedef struct cel_program cel_program;
typedef struct cel_activation cel_activation;
typedef struct cel_call_ctx cel_call_ctx;
typedef struct cel_type cel_type;

/* ------------------------------------------------------------------------------------------------------------ */
/* Errors                                                                                                        */
/* ------------------------------------------------------------------------------------------------------------ */
#define CEL_ERROR_MAX 1024
typedef struct cel_error {
    int line;   /* 1-based; 0 when not tied to a position */
    int column; /* 1-based, in code points, as cel-go reports */
    /* Full cel-go style text, possibly several lines, e.g.
     * "ERROR: <input>:1:5: Syntax error: mismatched input ..." or "ERROR: <input>:1:1: undeclared reference to 'x'
     * (in container '')". The position above is that of the first error. */
    char message[CEL_ERROR_MAX];
} cel_error;

/* ------------------------------------------------------------------------------------------------------------ */
/* Types (checker types and runtime type values)                                                                 */
/* ------------------------------------------------------------------------------------------------------------ */
typedef enum cel_type_kind {
    CEL_T_DYN = 0,
    CEL_T_NULL,
    CEL_T_BOOL,
    CEL_T_INT,
    CEL_T_UINT,
    CEL_T_DOUBLE,
    CEL_T_STRING,
    CEL_T_BYTES,
    CEL_T_LIST,      /* params[0] = element */
    CEL_T_MAP,       /* params[0] = key, params[1] = value */
    CEL_T_TYPE,      /* type(T): params[0] = T, or no param for the bare `type` */
    CEL_T_TIMESTAMP, /* google.protobuf.Timestamp */
    CEL_T_DURATION,  /* google.protobuf.Duration */
    CEL_T_OPTIONAL,  /* optional_type(T): params[0] */
    CEL_T_OPAQUE,    /* named abstract type with parameters (kubernetes.Quantity, net.IP, ...) */
    CEL_T_OBJECT,    /* named object type with declared fields (kubernetes.AdmissionRequest, Object.spec, ...) */
    CEL_T_PARAM,     /* type parameter (A, K, V) in overload signatures */
    CEL_T_ERROR,     /* checker-internal */
    CEL_T_ANY,       /* checker-internal "any" (google.protobuf.Any); accepted like dyn */
} cel_type_kind;

struct cel_type {
    cel_type_kind kind;
    const char *name; /* "int", "list", "kubernetes.Quantity", "A", ... */
    size_t nparams;
    const cel_type *const *params;
    /* CEL_T_OBJECT only: declared fields (name -> type), filled by cel_type_object_add_field */
    size_t nfields;
    const char *const *field_names;
    const cel_type *const *field_types;
};

/* Built-in singletons (static storage, never freed). */
const cel_type *cel_type_dyn(void);
const cel_type *cel_type_null(void);
const cel_type *cel_type_bool(void);
const cel_type *cel_type_int(void);
const cel_type *cel_type_uint(void);
const cel_type *cel_type_double(void);
const cel_type *cel_type_string(void);
const cel_type *cel_type_bytes(void);
const cel_type *cel_type_timestamp(void);
const cel_type *cel_type_duration(void);
const cel_type *cel_type_type(void); /* the bare `type` */
/* Composite types are owned by the env (freed with it). */
const cel_type *cel_type_list(cel_env *env, const cel_type *elem);
const cel_type *cel_type_map(cel_env *env, const cel_type *key, const cel_type *val);
const cel_type *cel_type_type_of(cel_env *env, const cel_type *t); /* type(T) */
const cel_type *cel_type_optional(cel_env *env, const cel_type *t);
const cel_type *cel_type_param(cel_env *env, const char *name);
/* An opaque (abstract) type; the same name returns the same type. */
const cel_type *cel_type_opaque(cel_env *env, const char *name, const cel_type *const *params, size_t nparams);
/* An object type whose fields are known to the checker (selecting an undeclared field is a compile error
 * "undefined field 'x'"). At runtime its values are maps (string keys). The same name returns the same type;
 * the type is also resolvable by name in expressions (type literals, struct literals `Name{f: v}`). */
cel_type *cel_type_object(cel_env *env, const char *name);
void cel_type_object_add_field(cel_env *env, cel_type *object, const char *field, const cel_type *type);
/* "list(int)", "map(string, dyn)", ... (cel-go FormatCELType); written to buf, returns buf. */
const char *cel_type_format(const cel_type *t, char *buf, size_t cap);
bool cel_type_equal(const cel_type *a, const cel_type *b);

/* ------------------------------------------------------------------------------------------------------------ */
/* Values                                                                                                        */
/* ------------------------------------------------------------------------------------------------------------ */
typedef enum cel_kind {
    CEL_NULL = 0,
    CEL_BOOL,
    CEL_INT,
    CEL_UINT,
    CEL_DOUBLE,
    CEL_STRING,
    CEL_BYTES,
    CEL_LIST,
    CEL_MAP,
    CEL_TYPE,
    CEL_TIMESTAMP,
    CEL_DURATION,
    CEL_OPTIONAL,
    CEL_OPAQUE, /* extension values: aux = const cel_opaque_vt* */
    CEL_ERROR,
    CEL_UNKNOWN, /* reserved: partial evaluation (unknowns) is not implemented, no value of this kind is produced */
} cel_kind;

typedef struct cel_value cel_value;
typedef struct cel_list_vt cel_list_vt;
typedef struct cel_map_vt cel_map_vt;
typedef struct cel_opaque_vt cel_opaque_vt;

/* A value is 24 bytes and passed by value. Strings/bytes point into caller or arena memory (not necessarily
 * NUL-terminated: use n). Timestamps: u.i = seconds since the Unix epoch, n = nanoseconds (0..999999999).
 * Durations: u.i = nanoseconds. Lists/maps: u.ptr = data, aux = vtable (lazy or native). */
struct cel_value {
    uint8_t kind;  /* cel_kind */
    uint8_t flags; /* internal */
    uint16_t pad;
    uint32_t n; /* string/bytes byte length; timestamp nanos */
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double d;
        const char *s;
        const void *ptr;
        const cel_type *type;
    } u;
    const void *aux;
};

/* Lists: any implementation (native arena array, lazy JSON array, ...) through a vtable. */
struct cel_list_vt {
    size_t (*size)(const cel_value *list);
    /* idx < size; the element may be produced on the fly into the evaluation arena */
    cel_value (*get)(cel_call_ctx *ctx, const cel_value *list, size_t idx);
};

/* Maps: lookup by key plus positional iteration (iteration order = insertion order). */
struct cel_map_vt {
    size_t (*size)(const cel_value *map);
    /* Key lookup with CEL's numeric-heterogeneous key equality; false when absent. */
    bool (*get)(cel_call_ctx *ctx, const cel_value *map, const cel_value *key, cel_value *out);
    /* i-th entry (i < size); val may be NULL. */
    void (*entry)(cel_call_ctx *ctx, const cel_value *map, size_t i, cel_value *key, cel_value *val);
    /* Optional fast path for string keys (field selection); NULL to fall back to get. */
    bool (*get_str)(cel_call_ctx *ctx, const cel_value *map, const char *key, size_t klen, cel_value *out);
    /* Optional: the object type of this map (struct literals, typed objects), or NULL for plain maps. */
    const cel_type *(*type)(const cel_value *map);
};

/* Opaque extension values (Quantity, URL, IP, CIDR, Semver, Authorizer, ...). */
struct cel_opaque_vt {
    const char *type_name; /* runtime type name, e.g. "kubernetes.Quantity"; type(x) yields it */
    /* Equality for == / != / in (NULL: identity of u.ptr). Only called with two values of the same vt. */
    bool (*equal)(const cel_value *a, const cel_value *b);
    /* Optional: string(x) conversion (NULL: no string() overload). Result in the evaluation arena. */
    cel_value (*to_string)(cel_call_ctx *ctx, const cel_value *v);
    /* Optional: field selection x.f (NULL: "type 'X' does not support field selection"). */
    bool (*select)(cel_call_ctx *ctx, const cel_value *v, const char *field, size_t flen, cel_value *out);
};

/* Constructors. String/bytes constructors do not copy; *_copy variants copy into the arena.
 * With GCC/Clang on little-endian targets a value is built as one 16-byte store (kind, n, payload) plus aux: values
 * are mostly copied whole right after they are made (returned, stored in argument arrays), and a 16-byte copy is
 * forwarded from one 16-byte store but must wait for several narrower ones to retire. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
typedef uint64_t cel_value_lo_ __attribute__((vector_size(16)));
static inline cel_value cel_value_make_(uint8_t kind, uint32_t n, uint64_t payload, const void *aux)
{
    cel_value v;
    cel_value_lo_ lo = {(uint64_t)kind | ((uint64_t)n << 32), payload};
    __builtin_memcpy(&v, &lo, 16);
    v.aux = aux;
    return v;
}
#else
static inline cel_value cel_value_make_(uint8_t kind, uint32_t n, uint64_t payload, const void *aux)
{
    cel_value v = {0};
    v.kind = kind;
    v.n = n;
    v.u.u = payload;
    v.aux = aux;
    return v;
}
#endif
static inline cel_value cel_null(void)
{
    return cel_value_make_(CEL_NULL, 0, 0, NULL);
}
static inline cel_value cel_bool(bool b)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* the whole payload word is set: u.b reads b and the other bytes are 0, as in a zero-initialised value */
    return cel_value_make_(CEL_BOOL, 0, (uint64_t)(b != 0), NULL);
#else
    cel_value v = {0};
    v.kind = CEL_BOOL;
    v.u.b = b;
    return v;
#endif
}
static inline cel_value cel_int(int64_t i)
{
    return cel_value_make_(CEL_INT, 0, (uint64_t)i, NULL);
}
static inline cel_value cel_uint(uint64_t u)
{
    return cel_value_make_(CEL_UINT, 0, u, NULL);
}
static inline cel_value cel_double(double d)
{
    uint64_t bits;
    __builtin_memcpy(&bits, &d, sizeof bits);
    return cel_value_make_(CEL_DOUBLE, 0, bits, NULL);
}
static inline cel_value cel_string(const char *s, size_t n)
{
    return cel_value_make_(CEL_STRING, (uint32_t)n, (uint64_t)(uintptr_t)s, NULL);
}
static inline cel_value cel_bytes(const char *s, size_t n)
{
    return cel_value_make_(CEL_BYTES, (uint32_t)n, (uint64_t)(uintptr_t)s, NULL);
}
static inline cel_value cel_duration(int64_t nanos)
{
    return cel_value_make_(CEL_DURATION, 0, (uint64_t)nanos, NULL);
}
static inline cel_value cel_timestamp(int64_t secs, int32_t nanos)
{
    return cel_value_make_(CEL_TIMESTAMP, (uint32_t)nanos, (uint64_t)secs, NULL);
}
static inline cel_value cel_type_value(const cel_type *t)
{
    return cel_value_make_(CEL_TYPE, 0, (uint64_t)(uintptr_t)t, NULL);
}
static inline cel_value cel_opaque(const cel_opaque_vt *vt, const void *data)
{
    return cel_value_make_(CEL_OPAQUE, 0, (uint64_t)(uintptr_t)data, vt);
}
static inline cel_value cel_list_custom(const cel_list_vt *vt, const void *data, uint32_t n_hint)
{
    return cel_value_make_(CEL_LIST, n_hint, (uint64_t)(uintptr_t)data, vt);
}
static inline cel_value cel_map_custom(const cel_map_vt *vt, const void *data, uint32_t n_hint)
{
    return cel_value_make_(CEL_MAP, n_hint, (uint64_t)(uintptr_t)data, vt);
}

cel_value cel_string_copy(kg_arena *a, const char *s, size_t n);
cel_value cel_bytes_copy(kg_arena *a, const char *s, size_t n);
/* Native list/map (elements copied into the arena). Map keys must be unique (checked: returns an error value
 * "Failed with repeated key" otherwise). */
cel_value cel_list_new(kg_arena *a, const cel_value *items, size_t n);
cel_value cel_map_new(kg_arena *a, const cel_value *keys, const cel_value *vals, size_t n);
/* Optional values: cel_optional_none() / cel_optional_of(arena, v). */
cel_value cel_optional_none(void);
cel_value cel_optional_of(kg_arena *a, cel_value v);
/* Error value with a printf-formatted message (in the arena). */
cel_value cel_error_new(kg_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Accessors (generic over native and custom lists/maps). ctx may be NULL outside an evaluation. */
size_t cel_list_size(const cel_value *list);
cel_value cel_list_get(cel_call_ctx *ctx, const cel_value *list, size_t idx);
size_t cel_map_size(const cel_value *map);
bool cel_map_get(cel_call_ctx *ctx, const cel_value *map, const cel_value *key, cel_value *out);
bool cel_map_get_str(cel_call_ctx *ctx, const cel_value *map, const char *key, size_t klen, cel_value *out);
void cel_map_entry(cel_call_ctx *ctx, const cel_value *map, size_t i, cel_value *key, cel_value *val);
bool cel_optional_has(const cel_value *opt);
cel_value cel_optional_value(const cel_value *opt); /* none -> error-free null; check cel_optional_has first */
const char *cel_error_message(const cel_value *err);

static inline bool cel_is_error(const cel_value *v)
{
    return v->kind == CEL_ERROR;
}
const char *cel_kind_name(cel_kind k);
/* The runtime type of a value (type(x)). */
const cel_type *cel_value_type(const cel_value *v);
/* CEL runtime equality (heterogeneous numbers, deep lists/maps); errors compare unequal. */
bool cel_value_equal(cel_call_ctx *ctx, const cel_value *a, const cel_value *b);
/* Parsing as the duration() and timestamp() conversions do (Go durations "1h2m", RFC 3339 timestamps); false when
 * s[0..n) is not one. */
bool cel_parse_duration(const char *s, size_t n, int64_t *out);
bool cel_parse_timestamp(const char *s, size_t n, int64_t *secs, int32_t *nanos);
/* Debug / display form, e.g. `[1, "a", {1u: 2.5}]` (in the arena). */
const char *cel_value_debug(kg_arena *a, const cel_value *v);

/* ------------------------------------------------------------------------------------------------------------ */
/* Environments                                                                                                  */
/* ------------------------------------------------------------------------------------------------------------ */
enum {
    CEL_LIB_STRINGS = 1u << 0, /* ext.Strings (latest: charAt, indexOf, ..., format, quote, reverse) */
    CEL_LIB_SETS = 1u << 1,    /* ext.Sets */
    CEL_LIB_LISTS = 1u << 2,   /* ext.Lists v3 (slice, flatten, distinct, range, reverse, sort, sortBy, first, last) */
    CEL_LIB_OPTIONALS = 1u << 3, /* optional types and syntax */
    CEL_LIB_TWOVAR = 1u << 4,    /* two-variable comprehensions */
    CEL_LIB_MATH = 1u << 5,      /* ext.Math (math.greatest, ...) */
    CEL_LIB_ENCODERS = 1u << 6,  /* base64.encode/decode */
    CEL_LIB_BINDINGS = 1u << 7,  /* cel.bind */
    CEL_LIB_BLOCK = 1u << 8,     /* cel.block / cel.index / cel.iterVar */
    /* The set Kubernetes enables (v1.33 base environment). */
    CEL_LIB_K8S = CEL_LIB_STRINGS | CEL_LIB_SETS | CEL_LIB_LISTS | CEL_LIB_OPTIONALS | CEL_LIB_TWOVAR,
    CEL_LIB_ALL = 0x1ffu,
};

enum {
    CEL_OPT_HOMOGENEOUS_LITERALS = 1u << 0,  /* [1, 'a'] is a check error unless dyn() */
    CEL_OPT_PRESENCE_COST_ZERO = 1u << 1,    /* has() costs 0 (Kubernetes) */
    CEL_OPT_VALIDATE_LITERALS = 1u << 2,     /* bad duration/timestamp/regex literals are compile errors */
    CEL_OPT_ERROR_ON_BAD_PRESENCE = 1u << 3, /* has() on a non-map/object is an error: always the behaviour here */
    CEL_OPT_K8S = CEL_OPT_HOMOGENEOUS_LITERALS | CEL_OPT_PRESENCE_COST_ZERO | CEL_OPT_VALIDATE_LITERALS,
};

cel_env *cel_env_new(unsigned libs);
void cel_env_free(cel_env *env);
void cel_env_set_options(cel_env *env, unsigned opts);
/* Container for name resolution ("a.b": names are tried as a.b.x, a.x, x). */
void cel_env_set_container(cel_env *env, const char *container);
/* Declare a variable; its name may contain dots ("authorizer.requestResource"). Returns false on redeclaration
 * with a different type. */
bool cel_env_declare_var(cel_env *env, const char *name, const cel_type *type);
/* Change the type of a declared variable (its slot stays). For hosts that compile many expressions over one
 * variable of varying type (CRD rules: `self` typed at each schema node): only between compiles, while no other
 * thread compiles with the env; programs compiled before keep the types they were checked with. False when the
 * variable is not declared. */
bool cel_env_redeclare_var(cel_env *env, const char *name, const cel_type *type);
/* Schemaless object types (Kubernetes MutatingAdmissionPolicy `Object{spec: Object.spec{replicas: 3}}`): struct
 * literals named `prefix` or `prefix.<anything>` are accepted without declaring each type; they evaluate to maps
 * whose cel_map_vt.type names the literal's type, and their fields are typed dyn. */
void cel_env_add_dynamic_struct_prefix(cel_env *env, const char *prefix);
/* The env's arena (lives as long as the env), for hosts that build types or data owned by the env. */
kg_arena *cel_env_arena(cel_env *env);

/* ---- extension functions ---- */
typedef cel_value (*cel_fn)(cel_call_ctx *ctx, const cel_value *args, size_t n);

typedef struct cel_size_range {
    uint64_t min, max;
} cel_size_range;

/* Runtime cost of one call (called after the call with its args and result); NULL = cost 1. */
typedef uint64_t (*cel_cost_fn)(cel_call_ctx *ctx, const cel_value *args, size_t n, const cel_value *result);
/* Static cost estimate given argument size ranges; NULL = {1,1}. */
typedef cel_size_range (*cel_estimate_fn)(const cel_size_range *arg_sizes, size_t n);

/* Compile-time preparation: called once per call site whose arguments are (partly) constants. consts[i] is valid
 * when is_const[i]. Return state (stored with the program; fetch it with cel_call_state) or NULL. Set *error to a
 * message (static or program-arena string) to make it a compile error (e.g. an invalid regex literal). */
typedef struct cel_prepare_ctx cel_prepare_ctx;
typedef void *(*cel_prepare_fn)(cel_prepare_ctx *pc, const cel_value *consts, const bool *is_const, size_t n,
                                const char **error);
kg_arena *cel_prepare_arena(cel_prepare_ctx *pc);
/* Run fn(p) when the program is freed (e.g. cel_regex_free). */
void cel_prepare_on_free(cel_prepare_ctx *pc, void (*fn)(void *), void *p);

enum {
    CEL_FN_MEMBER = 1u << 0,    /* receiver style: args[0] is the receiver (x.f(a, b)) */
    CEL_FN_NONSTRICT = 1u << 1, /* implementation receives error/unknown arguments instead of propagating them */
};

typedef struct cel_overload {
    const char *id; /* unique overload id, e.g. "quantity_add_int" */
    unsigned flags; /* CEL_FN_* */
    const cel_type *result;
    size_t nargs; /* including the receiver for member functions */
    const cel_type *args[8];
    cel_fn impl;
    void *ud; /* cel_call_userdata(ctx) */
    cel_cost_fn cost;
    cel_estimate_fn estimate;
    cel_prepare_fn prepare;
} cel_overload;

/* Register overloads for function `name` (may be qualified: "format.named", "sets.contains"). Overloads are
 * appended to existing ones of the same name (built-ins included) and tried in registration order; registering an
 * overload id again with the same signature is an error ("overload signature collision"). */
bool cel_env_add_function(cel_env *env, const char *name, const cel_overload *ovls, size_t n, cel_error *err);

/* Inside an implementation: */
kg_arena *cel_call_arena(cel_call_ctx *ctx);
void *cel_call_userdata(cel_call_ctx *ctx);
void *cel_call_state(cel_call_ctx *ctx); /* from the prepare hook, NULL if none */
void cel_call_add_cost(cel_call_ctx *ctx, uint64_t cost);
/* The activation's host data (cel_activation_set_host). */
void *cel_call_host(cel_call_ctx *ctx);

/* ------------------------------------------------------------------------------------------------------------ */
/* Compile                                                                                                       */
/* ------------------------------------------------------------------------------------------------------------ */
enum {
    CEL_COMPILE_NO_CHECK = 1u << 0,  /* parse only (undeclared names are looked up at runtime) */
    CEL_COMPILE_NO_MACROS = 1u << 1, /* has/all/exists/... are plain calls */
    CEL_COMPILE_NO_FOLD = 1u << 2,   /* accepted for compatibility: the planner does no constant folding */
};

typedef struct cel_compile_opts {
    unsigned flags;              /* CEL_COMPILE_* */
    const cel_type *expect_type; /* if set, the checked result type must be assignable ("must evaluate to bool") */
    size_t src_len;              /* source length in bytes; 0 means strlen(src) */
} cel_compile_opts;

/* Parse (+ macro expansion) + check + plan. On failure *out is NULL and err holds line:column and a cel-go style
 * message. The program is independent of the source text. */
bool cel_compile(cel_env *env, const char *src, const cel_compile_opts *opts, cel_program **out, cel_error *err);
void cel_program_free(cel_program *p);
/* The checked result type (dyn when checking was disabled). */
const cel_type *cel_program_type(const cel_program *p);
/* Static cost estimate of the whole program (variables of unknown size use max_size). */
cel_size_range cel_program_estimate_cost(const cel_program *p, uint64_t max_size);

/* Sizes from the host (cel-go's checker.CostEstimator EstimateSize): the host names a node (an opaque pointer) for
 * each declared variable, field, element and key, and bounds the size of the values found there (string length,
 * list items, map entries). Paths the host does not know (NULL nodes) use max_size. Loop variables of a
 * comprehension over a path get the range's element node (lists), key node (maps) and value node (two-variable
 * forms over maps). */
typedef struct cel_size_host {
    void *ud;
    const void *(*var)(void *ud, const char *name);
    const void *(*field)(void *ud, const void *node, const char *field);
    /* keys: the key node of a map; otherwise the element of a list or the value of a map */
    const void *(*elem)(void *ud, const void *node, bool keys);
    /* false: unknown size */
    bool (*max_size)(void *ud, const void *node, uint64_t *max);
} cel_size_host;
cel_size_range cel_program_estimate_cost_host(const cel_program *p, uint64_t max_size, const cel_size_host *host);

/* ------------------------------------------------------------------------------------------------------------ */
/* Activation and evaluation                                                                                     */
/* ------------------------------------------------------------------------------------------------------------ */
/* Lazy variable resolution: called at most once per variable per evaluation; the result is cached. Return false
 * when the name is unknown (then: "no such attribute"). The callback may charge cost with cel_call_add_cost. */
typedef bool (*cel_resolve_fn)(void *ud, cel_call_ctx *ctx, const char *name, cel_value *out);

/* An activation lives in the given arena; evaluation results are allocated there too. It can only be used with
 * programs compiled in the same env (cel_eval reports an error otherwise). */
cel_activation *cel_activation_new(const cel_env *env, kg_arena *arena);
/* Bind a variable (declared or not). */
void cel_activation_set(cel_activation *act, const char *name, cel_value v);
/* The slot of a declared variable, -1 when the env does not declare it. Slots are fixed for the env's life: resolve
 * a name once, then bind by slot in each evaluation (no name search). */
int cel_env_var_slot(const cel_env *env, const char *name);
/* Bind a declared variable by its slot; false (nothing bound) for a slot the env does not have. */
bool cel_activation_bind(cel_activation *act, int slot, cel_value v);
void cel_activation_set_resolver(cel_activation *act, cel_resolve_fn fn, void *ud);
void cel_activation_set_host(cel_activation *act, void *host);
kg_arena *cel_activation_arena(cel_activation *act);

typedef enum cel_eval_status {
    CEL_EVAL_OK = 0,
    CEL_EVAL_ERROR = 1,         /* *result is a CEL_ERROR value; cel_error_message() has the text */
    CEL_EVAL_COST_EXCEEDED = 2, /* "operation cancelled: actual cost limit exceeded" */
} cel_eval_status;

/* Evaluate. cost_limit CEL_NO_COST_LIMIT disables the limit; *cost (may be NULL) receives the actual cost.
 * Several programs may be evaluated with one activation (lazy variables are resolved once). */
cel_eval_status cel_eval(const cel_program *p, cel_activation *act, uint64_t cost_limit, cel_value *result,
                         uint64_t *cost);

/* Evaluate with the declared variables bound by slot and no activation: values[i] is slot i's value for i < n
 * (cel_env_var_slot), slots from n on are unbound (no resolver, no host data, no other names). For the common "this
 * program over these inputs" evaluation; the values are read in place and must outlive the call. Results live in
 * arena, as with an activation. */
cel_eval_status cel_eval_slots(const cel_program *p, kg_arena *arena, const cel_value *values, size_t n,
                               uint64_t cost_limit, cel_value *result, uint64_t *cost);

/* Explaining an evaluation (trace.c; never used on the request path): evaluate as cel_eval_slots does, then record
 * the value of each sub-expression outside comprehension bodies, children before parents (constants and the
 * operands of field selections left out), at most CEL_TRACE_MAX of them, each with the byte range [start, end) of
 * its text in src (the source the program was compiled from; NULL: ranges are empty). Entries live in arena. */
#define CEL_TRACE_MAX 64
typedef struct cel_trace_entry {
    uint32_t start, end;
    cel_value value;
} cel_trace_entry;
cel_eval_status cel_eval_trace(const cel_program *p, const char *src, kg_arena *arena, const cel_value *values,
                               size_t n, uint64_t cost_limit, cel_value *result, cel_trace_entry **entries,
                               size_t *nentries);

#ifdef __cplusplus
}
#endif

#endif
