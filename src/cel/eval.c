/* The CEL evaluator: a tree-walking interpreter over the checked AST, with cel-go's runtime cost accounting.
 *
 * ev(ctx, n) evaluates node n to a value; evb(ctx, n, v) evaluates it where a bool is consumed (&&, ||, !, ?:
 * conditions, all()/exists() predicates, the root) and returns 0/1 for a bool, else 2 with the value in *v. Both
 * dispatch on the node kind (cel_node.kind: constant, identifier, selection, call, list, map, struct,
 * comprehension); calls go through apply_strict (operators with fixed semantics) and generic_call (overload
 * selection on the runtime values). Every step charges ctx->cost as cel-go does; crossing the limit unwinds to the
 * jump target set in eval_general (cel_cost_exceeded). Comprehension variables live in frames of three (iteration
 * variable(s), accumulator) indexed statically by nesting depth (cel_node.slot <= -2).
 *
 * This file alone is the plain interpreter: built with -DKGATE_CEL_PLANNER=OFF it is all there is. With the planner
 * (the default), plan.c marks nodes with faster forms (cel_node.xk etc.) and the blocks under
 * `#if KGATE_CEL_PLANNER` below hand such nodes to eval_fast.c, which is included at the end of this file (one
 * translation unit, so the forms inline into the interpreter as they always did). The planned forms give the same
 * values, errors and charges as the code here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cel/cel_internal.h"

/* cel_jobj_find_hint when the hint missed: scan, and remember where the key was */
const kg_json_member *cel_jobj_find_miss(const kg_json *o, const char *k, uint32_t kl, uint32_t *hint)
{
    const kg_json_member *f = cel_jobj_find(o, k, kl);
    if (f)
        __atomic_store_n(hint, (uint32_t)(f - o->u.members), __ATOMIC_RELAXED);
    return f;
}

static inline cel_value ev(cel_call_ctx *ctx, const cel_node *n);
static inline cel_value ev_arg(cel_call_ctx *ctx, const cel_node *n);

/* ev and evb are small dispatchers (inlined into their callers); the work is in out-of-line functions, so a node
 * costs a switch and one call, not the prologue of one big function */
#define NOINLINE __attribute__((noinline))
/* not inlined, and called with exactly the arguments declared (GCC would otherwise drop an unused one and make its
 * callers shuffle registers); clang has no noipa and does not do that */
#if defined(__clang__)
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noipa))
#endif

static uint64_t vsize(const cel_value *v)
{
    switch (v->kind) {
    case CEL_STRING: return cel_utf8_len_i(v->u.s, v->n);
    case CEL_BYTES: return v->n;
    case CEL_LIST: return cel_list_size(v);
    case CEL_MAP: return cel_map_size(v);
    default: return 1;
    }
}

static inline uint64_t ceil01(uint64_t x)
{
    return (x + 9) / 10;
}

NOINLINE static cel_value lookup_var_slow(cel_call_ctx *ctx, const cel_node *n);

/* a bound declared variable is read inline (cel_eval made sure the activation has the program's slots); the rest
 * (resolver, undeclared names) out of line */
static inline cel_value lookup_var(cel_call_ctx *ctx, const cel_node *n)
{
    if (n->slot >= 0) {
        const cel_value *v = &ctx->slots[n->slot];
        if (v->kind < CEL_SLOT_UNSET)
            return *v;
    }
    return lookup_var_slow(ctx, n);
}

static cel_value lookup_var_slow(cel_call_ctx *ctx, const cel_node *n)
{
    cel_activation *act = ctx->act;
    if (n->slot >= 0) {
        cel_value *sv = &act->slots[n->slot];
        if (sv->kind < CEL_SLOT_UNSET)
            return *sv;
        if (sv->kind == CEL_SLOT_UNSET && act->resolver) {
            cel_value v;
            if (act->resolver(act->resolver_ud, ctx, n->name, &v)) {
                *sv = v;
                return v;
            }
            sv->kind = CEL_SLOT_REFUSED;
        }
    } else {
        for (bound_var *b = act->extra; b; b = b->next)
            if (!strcmp(b->name, n->name))
                return b->v;
        if (act->resolver) {
            cel_value v;
            if (act->resolver(act->resolver_ud, ctx, n->name, &v)) {
                cel_activation_set(act, n->name, v);
                return v;
            }
        }
    }
    return cel_err(ctx, "no such attribute(s): %s", n->name);
}

static cel_value key_display_err(cel_call_ctx *ctx, const cel_value *k)
{
    if (k->kind == CEL_STRING)
        return cel_err(ctx, "no such key: %.*s", (int)k->n, k->u.s);
    return cel_err(ctx, "no such key: %s", cel_value_debug(ctx->arena, k));
}

static cel_value select_field(cel_call_ctx *ctx, cel_value *v, const char *f, size_t fl, bool test, bool opt)
{
    switch (v->kind) {
    case CEL_MAP: {
        cel_value out;
        bool found = cel_map_get_str(ctx, v, f, fl, &out);
        if (test)
            return cel_bool(found);
        if (opt)
            return found ? cel_optional_of(ctx->arena, out) : cel_optional_none();
        if (!found)
            return cel_err(ctx, "no such key: %.*s", (int)fl, f);
        return out;
    }
    case CEL_OPTIONAL: {
        if (!cel_optional_has(v))
            return test ? cel_bool(false) : cel_optional_none();
        cel_value inner = cel_optional_value(v);
        return select_field(ctx, &inner, f, fl, test, true);
    }
    case CEL_OPAQUE: {
        const cel_opaque_vt *vt = v->aux;
        if (vt->select) {
            cel_value out;
            bool found = vt->select(ctx, v, f, fl, &out);
            if (test)
                return cel_bool(found);
            if (opt)
                return found ? cel_optional_of(ctx->arena, out) : cel_optional_none();
            if (!found)
                return cel_err(ctx, "no such field: %.*s", (int)fl, f);
            return out;
        }
        break;
    }
    case CEL_ERROR: return *v;
    default: break;
    }
    return cel_err(ctx, "type '%s' does not support field selection", cel_type_name_of(v));
}

static bool index_of(cel_call_ctx *ctx, const cel_value *idx, int64_t *out, cel_value *err)
{
    switch (idx->kind) {
    case CEL_INT: *out = idx->u.i; return true;
    case CEL_UINT:
        if (idx->u.u > (uint64_t)INT64_MAX) {
            *err = cel_err(ctx, "index out of range");
            return false;
        }
        *out = (int64_t)idx->u.u;
        return true;
    case CEL_DOUBLE:
        if (idx->u.d != trunc(idx->u.d) || !(idx->u.d > -9.2e18 && idx->u.d < 9.2e18)) {
            *err = cel_err(ctx, "unsupported index value %s in list", cel_value_debug(ctx->arena, idx));
            return false;
        }
        *out = (int64_t)idx->u.d;
        return true;
    default: *err = cel_err(ctx, "unsupported index type '%s' in list", cel_type_name_of(idx)); return false;
    }
}

static cel_value do_index(cel_call_ctx *ctx, cel_value *c, cel_value *k, bool opt)
{
    if (c->kind == CEL_ERROR)
        return *c;
    if (k->kind == CEL_ERROR)
        return *k;
    switch (c->kind) {
    case CEL_LIST: {
        int64_t i;
        cel_value e;
        if (!index_of(ctx, k, &i, &e))
            return e;
        size_t n = cel_list_size(c);
        if (i < 0 || (uint64_t)i >= n) {
            if (opt)
                return cel_optional_none();
            return cel_err(ctx, "index '%lld' out of range in list size '%zu'", (long long)i, n);
        }
        cel_value r = cel_list_get(ctx, c, (size_t)i);
        return opt ? cel_optional_of(ctx->arena, r) : r;
    }
    case CEL_MAP: {
        cel_value out;
        if (k->kind != CEL_STRING && !cel_valid_key(k) && k->kind != CEL_DOUBLE)
            return cel_err(ctx, "unsupported key type");
        bool found = k->kind == CEL_STRING ? cel_map_get_str(ctx, c, k->u.s, k->n, &out) : cel_map_get(ctx, c, k, &out);
        if (opt)
            return found ? cel_optional_of(ctx->arena, out) : cel_optional_none();
        if (!found)
            return key_display_err(ctx, k);
        return out;
    }
    case CEL_OPTIONAL: {
        if (!cel_optional_has(c))
            return cel_optional_none();
        cel_value inner = cel_optional_value(c);
        return do_index(ctx, &inner, k, true);
    }
    default: return cel_err(ctx, "no such overload: _[_](%s, %s)", cel_type_name_of(c), cel_type_name_of(k));
    }
}

static cel_value ovf(cel_call_ctx *ctx)
{
    return cel_err(ctx, "integer overflow");
}
static cel_value uovf(cel_call_ctx *ctx)
{
    return cel_err(ctx, "unsigned integer overflow");
}

static cel_value generic_call(cel_call_ctx *ctx, const cel_node *n, cel_value *args, size_t na);

static cel_value arith(cel_call_ctx *ctx, const cel_node *n, cel_value *a, cel_value *b)
{
    opcode op = (opcode)n->op;
    if (a->kind == CEL_ERROR)
        return *a;
    if (b->kind == CEL_ERROR)
        return *b;
    if (a->kind == CEL_INT && b->kind == CEL_INT) {
        int64_t x = a->u.i, y = b->u.i, r;
        switch (op) {
        case OP_ADD: return __builtin_add_overflow(x, y, &r) ? ovf(ctx) : cel_int(r);
        case OP_SUB: return __builtin_sub_overflow(x, y, &r) ? ovf(ctx) : cel_int(r);
        case OP_MUL: return __builtin_mul_overflow(x, y, &r) ? ovf(ctx) : cel_int(r);
        case OP_DIV:
            if (y == 0)
                return cel_err(ctx, "division by zero");
            if (x == INT64_MIN && y == -1)
                return ovf(ctx);
            return cel_int(x / y);
        case OP_MOD:
            if (y == 0)
                return cel_err(ctx, "modulus by zero");
            if (x == INT64_MIN && y == -1)
                return ovf(ctx);
            return cel_int(x % y);
        default: break;
        }
    } else if (a->kind == CEL_UINT && b->kind == CEL_UINT) {
        uint64_t x = a->u.u, y = b->u.u, r;
        switch (op) {
        case OP_ADD: return __builtin_add_overflow(x, y, &r) ? uovf(ctx) : cel_uint(r);
        case OP_SUB: return __builtin_sub_overflow(x, y, &r) ? uovf(ctx) : cel_uint(r);
        case OP_MUL: return __builtin_mul_overflow(x, y, &r) ? uovf(ctx) : cel_uint(r);
        case OP_DIV: return y == 0 ? cel_err(ctx, "division by zero") : cel_uint(x / y);
        case OP_MOD: return y == 0 ? cel_err(ctx, "modulus by zero") : cel_uint(x % y);
        default: break;
        }
    } else if (a->kind == CEL_DOUBLE && b->kind == CEL_DOUBLE) {
        double x = a->u.d, y = b->u.d;
        switch (op) {
        case OP_ADD: return cel_double(x + y);
        case OP_SUB: return cel_double(x - y);
        case OP_MUL: return cel_double(x * y);
        case OP_DIV: return cel_double(x / y);
        default: break;
        }
    } else if (op == OP_ADD && a->kind == b->kind && (a->kind == CEL_STRING || a->kind == CEL_BYTES)) {
        if ((size_t)a->n + b->n > 10) {
            uint64_t c = ceil01(vsize(a) + vsize(b));
            if (c > 1)
                cel_charge(ctx, c - 1);
        }
        size_t len = (size_t)a->n + b->n;
        char *s = kg_arena_alloc(ctx->arena, len + 1);
        memcpy(s, a->u.s, a->n);
        memcpy(s + a->n, b->u.s, b->n);
        s[len] = 0;
        return cel_value_with(a, (uint32_t)len, s);
    } else if (op == OP_ADD && a->kind == CEL_LIST && b->kind == CEL_LIST) {
        size_t na = cel_list_size(a), nb = cel_list_size(b);
        if ((n->flags & NF_APPEND_ACCU) && a->aux == &cel_nlist_vt) {
            nlist *l = (nlist *)a->u.ptr;
            for (size_t i = 0; i < nb; i++)
                nlist_push(ctx->arena, l, cel_list_get(ctx, b, i));
            cel_value r = *a;
            r.n = (uint32_t)l->n;
            return r;
        }
        if (nb == 0)
            return *a;
        if (na == 0)
            return *b;
        nlist *l = nlist_new(ctx->arena, na + nb);
        for (size_t i = 0; i < na; i++)
            l->items[l->n++] = cel_list_get(ctx, a, i);
        for (size_t i = 0; i < nb; i++)
            l->items[l->n++] = cel_list_get(ctx, b, i);
        return nlist_value(l);
    } else if (a->kind == CEL_DURATION && b->kind == CEL_DURATION && (op == OP_ADD || op == OP_SUB)) {
        int64_t r;
        bool o = op == OP_ADD ? __builtin_add_overflow(a->u.i, b->u.i, &r) : __builtin_sub_overflow(a->u.i, b->u.i, &r);
        return o ? ovf(ctx) : cel_duration(r);
    } else if ((a->kind == CEL_TIMESTAMP && b->kind == CEL_DURATION && (op == OP_ADD || op == OP_SUB)) ||
               (a->kind == CEL_DURATION && b->kind == CEL_TIMESTAMP && op == OP_ADD)) {
        const cel_value *ts = a->kind == CEL_TIMESTAMP ? a : b, *du = a->kind == CEL_DURATION ? a : b;
        int64_t d = du->u.i;
        if (op == OP_SUB) {
            if (d == INT64_MIN)
                return ovf(ctx);
            d = -d;
        }
        int64_t secs = ts->u.i + d / 1000000000;
        int64_t nanos = (int64_t)ts->n + d % 1000000000;
        if (nanos < 0) {
            nanos += 1000000000;
            secs--;
        } else if (nanos >= 1000000000) {
            nanos -= 1000000000;
            secs++;
        }
        if (secs < CEL_TS_MIN || secs > CEL_TS_MAX)
            return cel_err(ctx, "timestamp overflow");
        return cel_timestamp(secs, (int32_t)nanos);
    } else if (a->kind == CEL_TIMESTAMP && b->kind == CEL_TIMESTAMP && op == OP_SUB) {
        int64_t ds = a->u.i - b->u.i;
        int64_t dn = (int64_t)a->n - (int64_t)b->n, r;
        if (__builtin_mul_overflow(ds, (int64_t)1000000000, &r) || __builtin_add_overflow(r, dn, &r))
            return cel_err(ctx, "duration overflow");
        return cel_duration(r);
    }
    cel_value args[2] = {*a, *b};
    return generic_call(ctx, n, args, 2);
}

static cel_value compare_op(cel_call_ctx *ctx, const cel_node *n, cel_value *a, cel_value *b)
{
    if (a->kind == CEL_ERROR)
        return *a;
    if (b->kind == CEL_ERROR)
        return *b;
    int c = cel_compare(a, b);
    if (c == 2) {
        bool nums = (a->kind == CEL_INT || a->kind == CEL_UINT || a->kind == CEL_DOUBLE) &&
                    (b->kind == CEL_INT || b->kind == CEL_UINT || b->kind == CEL_DOUBLE);
        if (nums)
            return cel_bool(false); /* NaN */
        cel_value args[2] = {*a, *b};
        return generic_call(ctx, n, args, 2);
    }
    if ((a->kind == CEL_STRING || a->kind == CEL_BYTES) && a->n > 10 && b->n > 10) {
        uint64_t sa = vsize(a), sb = vsize(b);
        uint64_t c2 = ceil01(sa < sb ? sa : sb);
        if (c2 > 1)
            cel_charge(ctx, c2 - 1);
    }
    switch ((opcode)n->op) {
    case OP_LT: return cel_bool(c < 0);
    case OP_LE: return cel_bool(c <= 0);
    case OP_GT: return cel_bool(c > 0);
    default: return cel_bool(c >= 0);
    }
}

/* the i-th iteration variables of a comprehension over range (JSON arrays/objects read in place) */
static inline void compr_vars(cel_call_ctx *ctx, const cel_node *n, const cel_value *range, bool is_list, size_t i,
                              compr_frame *fr)
{
    if (is_list) {
        if (range->aux == &cel_jarr_vt) {
            const kg_json *item = ((const kg_json *)range->u.ptr)->u.items[i];
            if (n->iter_var2) {
                fr[0].v = cel_int((int64_t)i);
                fr[1].v = cel_json_wrap(item);
            } else {
                fr[0].v = cel_json_wrap(item);
            }
            return;
        }
        if (n->iter_var2) {
            fr[0].v = cel_int((int64_t)i);
            fr[1].v = cel_list_get(ctx, range, i);
        } else {
            fr[0].v = cel_list_get(ctx, range, i);
        }
    } else {
        if (range->aux == &cel_jobj_vt) {
            const kg_json_member *m = &((const kg_json *)range->u.ptr)->u.members[i];
            fr[0].v = cel_string(m->key, m->key_len);
            if (n->iter_var2)
                fr[1].v = cel_json_wrap(m->val);
            return;
        }
        cel_map_entry(ctx, range, i, &fr[0].v, n->iter_var2 ? &fr[1].v : NULL);
    }
}

static int evb(cel_call_ctx *ctx, const cel_node *n, cel_value *v);
static inline int classify(const cel_value *v);
static cel_value apply_strict(cel_call_ctx *ctx, const cel_node *n, cel_value *args);

#if KGATE_CEL_PLANNER
/* The planned forms (eval_fast.c, included at the end of this file) that the interpreter hands nodes to. Each one
 * gives the same value, errors and charges as the plain evaluation of the node below. */
__attribute__((always_inline)) static inline bool path_fast(cel_call_ctx *ctx, const path_plan *pp,
                                                            const kg_json **end);
static bool path_walk_slow(cel_call_ctx *ctx, const cel_node *n, const kg_json **end, cel_value *v);
__attribute__((always_inline)) static inline bool planned_range(cel_call_ctx *ctx, const cel_node *r, cel_value *range);
__attribute__((always_inline)) static inline bool fused_loop(cel_call_ctx *ctx, const cel_node *n, cel_value range,
                                                             compr_frame *fr, int *ab, cel_value *av, int fuse);
__attribute__((always_inline)) static inline cel_value cmp_operand(cel_call_ctx *ctx, const cel_node *a);
NOINLINE static cel_value eval_path(cel_call_ctx *ctx, const cel_node *n);
NOINLINE static cel_value eval_in_const(cel_call_ctx *ctx, const cel_node *n);
NOINLINE static cel_value eval_eq_const(cel_call_ctx *ctx, const cel_node *n);
NOINLINE static cel_value eval_concat(cel_call_ctx *ctx, const cel_node *n);
NOINLINE static cel_value eval_call1(cel_call_ctx *ctx, const cel_node *n);
NOINLINE static cel_value eval_affix(cel_call_ctx *ctx, const cel_node *n);
NOINLINE static cel_value eval_size(cel_call_ctx *ctx, const cel_node *n);
NOINLINE static cel_value eval_matches(cel_call_ctx *ctx, const cel_node *n);
NOINLINE static int evb_eq_const(cel_call_ctx *ctx, const cel_node *n, cel_value *v);
NOINLINE static int evb_in_const(cel_call_ctx *ctx, const cel_node *n, cel_value *v);
NOINLINE static int evb_affix(cel_call_ctx *ctx, const cel_node *n, cel_value *v);
NOINLINE static int evb_matches(cel_call_ctx *ctx, const cel_node *n, cel_value *v);
static inline int evb_compr_any(cel_call_ctx *ctx, const cel_node *n, cel_value *v);
NOINLINE static cel_eval_status eval_root_concat(const cel_program *p, cel_activation *act, cel_value *slots,
                                                 kg_arena *arena, uint64_t cost_limit, cel_value *result,
                                                 uint64_t *cost);
NOINLINE static cel_eval_status eval_root_bool(const cel_program *p, cel_activation *act, cel_value *slots,
                                               kg_arena *arena, uint64_t cost_limit, cel_value *result, uint64_t *cost);
NOIPA static cel_eval_status eval_root_concat_slots(const cel_program *p, kg_arena *arena, cel_value *slots, size_t n,
                                                    uint64_t cost_limit, cel_value *result, uint64_t *cost);
NOIPA static cel_eval_status eval_root_bool_slots(const cel_program *p, kg_arena *arena, cel_value *slots, size_t n,
                                                  uint64_t cost_limit, cel_value *result, uint64_t *cost);
#else
#define cmp_operand ev_arg /* no planned size(path) operands */
#endif

/* all()/exists(): the predicate's result rb (0/1, or 2 with the value in *rv) folded into the accumulator (ab 0/1, or
 * 2 with the value in *av) as accu && pred / accu || pred do (errors absorbed by the deciding bool) */
__attribute__((always_inline)) static inline void pred_accumulate(cel_call_ctx *ctx, int is_all, int *ab, cel_value *av,
                                                                  int rb, const cel_value *rv)
{
    if (rb < 2 && (rb != is_all || *ab < 2)) {
        *ab = rb;
    } else if (*ab == 2 && av->kind == CEL_ERROR) {
        /* accu stays */
    } else if (rb == 2 && rv->kind == CEL_ERROR) {
        *ab = 2;
        *av = *rv;
    } else {
        cel_value a2[2] = {*ab < 2 ? cel_bool(*ab) : *av, rb < 2 ? cel_bool(rb) : *rv};
        *av = cel_no_overload(ctx, is_all ? "_&&_" : "_||_", a2, 2);
        *ab = 2;
    }
}

/* want_bool: for a bool context, the result of all()/exists() whose result is the accumulator (plan: xn = 1) is
 * returned as 0/1 without making a value; otherwise the result value goes to *out and 2 is returned */
__attribute__((always_inline)) static inline int compr_core_r(cel_call_ctx *ctx, const cel_node *n, cel_value *out,
                                                              bool want_bool, int fuse, cel_value range)
{
    if (range.kind == CEL_ERROR) {
        *out = range;
        return 2;
    }
    size_t count;
    bool is_list;
    if (range.aux == &cel_jarr_vt || range.aux == &cel_jobj_vt) {
        /* JSON: the size is the node's */
        is_list = range.aux == &cel_jarr_vt;
        count = ((const kg_json *)range.u.ptr)->len;
    } else if (range.kind == CEL_LIST) {
        is_list = true;
        count = cel_list_size(&range);
    } else if (range.kind == CEL_MAP) {
        is_list = false;
        count = cel_map_size(&range);
    } else {
        *out = cel_err(ctx, "expression of type '%s' cannot be range of a comprehension", cel_type_name_of(&range));
        return 2;
    }
    /* the initial accumulator is evaluated before this comprehension's frame is pushed (frames are resolved
     * statically by nesting depth, and the initializer is outside the comprehension's scope) */
    bool pred_form = (n->flags & (NF_ALL | NF_EXISTS)) != 0;
    cel_value av;
    int ab = 2;
    if (pred_form) {
        const cel_node *ai = n->accu_init;
        ab = ai->kind == N_CONST && ai->cval.kind == CEL_BOOL ? ai->cval.u.b : evb(ctx, ai, &av);
    } else {
        av = ev(ctx, n->accu_init);
    }
    /* this comprehension's frame: the variable(s), then the accumulator */
    compr_frame *fr = &ctx->vars[ctx->nvars];
    size_t saved = ctx->nvars;
    ctx->nvars += 3;
    if (pred_form) {
        /* all()/exists(): the accumulator is kept as a bool (ab 0/1) or a value (ab 2, in av) */
        const cel_node *pred = n->target;
        int is_all = (n->flags & NF_ALL) != 0;
        /* fuse (a constant: one instantiation each): the plan's fused predicate loop (eval_fast.c), when it applies */
        bool fused = false;
#if KGATE_CEL_PLANNER
        if (fuse)
            fused = fused_loop(ctx, n, range, fr, &ab, &av, fuse);
#else
        (void)fuse;
#endif
        if (!fused) {
            for (size_t i = 0; i < count; i++) {
                /* cond: @not_strictly_false(accu) [all] or @not_strictly_false(!accu) [exists]: 2 or 3 units */
                cel_charge(ctx, is_all ? 2 : 3);
                if (ab < 2 && ab != is_all)
                    break;
                compr_vars(ctx, n, &range, is_list, i, fr);
                /* step: accu && pred / accu || pred (accu is not the deciding value here): 1 unit for reading accu */
                cel_charge(ctx, 1);
                fr[2].v = ab < 2 ? cel_bool(ab) : av; /* kept current for anything reading the variable */
                cel_value rv;
                int rb = evb(ctx, pred, &rv);
                pred_accumulate(ctx, is_all, &ab, &av, rb, &rv);
            }
        }
        if (want_bool && n->xn) {
            /* the result is the accumulator variable: 1 unit for reading it */
            cel_charge(ctx, 1);
            ctx->nvars = saved;
            if (ab < 2)
                return ab;
            *out = av;
            return 2;
        }
        fr[2].v = ab < 2 ? cel_bool(ab) : av;
    } else {
        fr[2].v = av;
        for (size_t i = 0; i < count; i++) {
            compr_vars(ctx, n, &range, is_list, i, fr);
            cel_value c = ev(ctx, n->cond);
            if (c.kind == CEL_BOOL && !c.u.b)
                break;
            fr[2].v = ev(ctx, n->step);
        }
    }
    *out = ev(ctx, n->result);
    ctx->nvars = saved;
    return 2;
}

__attribute__((always_inline)) static inline int compr_core(cel_call_ctx *ctx, const cel_node *n, cel_value *out,
                                                            bool want_bool, int fuse)
{
    cel_value range;
    bool planned = false;
#if KGATE_CEL_PLANNER
    planned = planned_range(ctx, n->range, &range);
#endif
    if (!planned)
        range = ev(ctx, n->range);
    return compr_core_r(ctx, n, out, want_bool, fuse, range);
}

NOINLINE static cel_value eval_compr(cel_call_ctx *ctx, const cel_node *n)
{
    cel_value r;
    compr_core(ctx, n, &r, false, 0);
    return r;
}

NOINLINE static int evb_compr(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    int b = compr_core(ctx, n, v, true, 0);
    return b < 2 ? b : classify(v);
}

NOINLINE static cel_value eval_list(cel_call_ctx *ctx, const cel_node *n)
{
    cel_charge(ctx, 10);
    nlist *l = nlist_new(ctx->arena, n->nargs);
    for (size_t i = 0; i < n->nargs; i++) {
        cel_value v = ev(ctx, n->args[i]);
        if (v.kind == CEL_ERROR)
            return v;
        if (n->opt && n->opt[i]) {
            if (v.kind != CEL_OPTIONAL)
                return cel_err(ctx, "cannot initialize optional list element from non-optional value %s",
                               cel_value_debug(ctx->arena, &v));
            if (!cel_optional_has(&v))
                continue;
            v = cel_optional_value(&v);
        }
        l->items[l->n++] = v;
    }
    return nlist_value(l);
}

NOINLINE static cel_value eval_map(cel_call_ctx *ctx, const cel_node *n, bool is_struct)
{
    cel_charge(ctx, is_struct ? 40 : 30);
    nmap *m = nmap_new(ctx->arena, n->nargs);
    m->type = n->struct_type;
    for (size_t i = 0; i < n->nargs; i++) {
        cel_value k = ev(ctx, n->args[i]);
        if (k.kind == CEL_ERROR)
            return k;
        cel_value v = ev(ctx, n->vals[i]);
        if (v.kind == CEL_ERROR)
            return v;
        if (!cel_valid_key(&k))
            return cel_err(ctx, "unsupported key type");
        if (n->opt && n->opt[i]) {
            if (v.kind != CEL_OPTIONAL)
                return cel_err(ctx, "cannot initialize optional entry '%s' from non-optional value %s",
                               cel_value_debug(ctx->arena, &k), cel_value_debug(ctx->arena, &v));
            if (!cel_optional_has(&v))
                continue;
            v = cel_optional_value(&v);
        }
        if (!nmap_put(ctx->arena, m, k, v))
            return cel_err(ctx, "Failed with repeated key");
    }
    return nmap_value(m);
}

static cel_value generic_call(cel_call_ctx *ctx, const cel_node *n, cel_value *args, size_t na)
{
    const cel_func *f = n->fn;
    if (!f)
        return cel_err(ctx, "no such overload: %s", n->name);
    bool member = (n->flags & NF_MEMBER) != 0;
    size_t nc = n->cands ? n->ncands : f->novl;
    for (size_t c = 0; c < nc; c++) {
        size_t k = n->cands ? n->cands[c] : c;
        const cel_overload *o = &f->ovls[k];
        if (!o->impl || o->nargs != na || ((o->flags & CEL_FN_MEMBER) != 0) != member)
            continue;
        /* runtime values are always checked against the signature: a host may bind a value of another type
         * than declared (e.g. null for a typed field), which must be an error, never a misread */
        bool ok = true;
        for (size_t i = 0; i < na && ok; i++)
            ok = cel_value_matches_type(&args[i], o->args[i]) ||
                 (args[i].kind == CEL_ERROR && (o->flags & CEL_FN_NONSTRICT));
        if (!ok)
            continue;
        const cel_overload *saved = ctx->cur_ovl;
        void *saved_st = ctx->cur_state;
        ctx->cur_ovl = o;
        ctx->cur_state = n->states ? n->states[k] : NULL;
        cel_value r = o->impl(ctx, args, na);
        ctx->cur_ovl = saved;
        ctx->cur_state = saved_st;
        uint64_t c = o->cost ? o->cost(ctx, args, na, &r) : 1;
        cel_charge(ctx, c);
        return r;
    }
    for (size_t i = 0; i < na; i++)
        if (args[i].kind == CEL_ERROR)
            return args[i];
    cel_charge(ctx, 1);
    return cel_no_overload(ctx, n->name, args, na);
}

NOINLINE static cel_value eval_call(cel_call_ctx *ctx, const cel_node *n)
{
    switch ((opcode)n->op) {
    case OP_AND:
    case OP_OR: {
        bool is_and = n->op == OP_AND;
        cel_value l = ev(ctx, n->args[0]);
        if (l.kind == CEL_BOOL && l.u.b != is_and)
            return l;
        cel_value r = ev(ctx, n->args[1]);
        if (r.kind == CEL_BOOL && r.u.b != is_and)
            return r;
        if (l.kind == CEL_BOOL && r.kind == CEL_BOOL)
            return r;
        if (l.kind == CEL_ERROR)
            return l;
        if (r.kind == CEL_ERROR)
            return r;
        cel_value a2[2] = {l, r};
        return cel_no_overload(ctx, n->name, a2, 2);
    }
    case OP_COND: {
        cel_value c = ev(ctx, n->args[0]);
        if (c.kind == CEL_BOOL)
            return ev(ctx, n->args[c.u.b ? 1 : 2]);
        if (c.kind == CEL_ERROR)
            return c;
        return cel_no_overload(ctx, "_?_:_", &c, 1);
    }
    case OP_NOT_STRICTLY_FALSE: {
        cel_value c = ev(ctx, n->args[0]);
        cel_charge(ctx, 1);
        return c.kind == CEL_BOOL ? c : cel_bool(true);
    }
    default: break;
    }
    cel_value buf[8];
    cel_value *args = n->nargs <= 8 ? buf : kg_arena_alloc(ctx->arena, n->nargs * sizeof(cel_value));
    for (size_t i = 0; i < n->nargs; i++)
        args[i] = ev_arg(ctx, n->args[i]);
    return apply_strict(ctx, n, args);
}

/* a strict call (every argument evaluated, in order) */
static cel_value apply_strict(cel_call_ctx *ctx, const cel_node *n, cel_value *args)
{
    switch ((opcode)n->op) {
    case OP_NOT:
        cel_charge(ctx, 1);
        if (args[0].kind == CEL_BOOL)
            return cel_bool(!args[0].u.b);
        if (args[0].kind == CEL_ERROR)
            return args[0];
        return generic_call(ctx, n, args, 1);
    case OP_NEG:
        cel_charge(ctx, 1);
        if (args[0].kind == CEL_INT)
            return args[0].u.i == INT64_MIN ? ovf(ctx) : cel_int(-args[0].u.i);
        if (args[0].kind == CEL_DOUBLE)
            return cel_double(-args[0].u.d);
        if (args[0].kind == CEL_ERROR)
            return args[0];
        return generic_call(ctx, n, args, 1);
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
    case OP_MOD: cel_charge(ctx, 1); return arith(ctx, n, &args[0], &args[1]);
    case OP_EQ:
    case OP_NE: {
        cel_charge(ctx, 1);
        if (args[0].kind == CEL_ERROR)
            return args[0];
        if (args[1].kind == CEL_ERROR)
            return args[1];
        if ((args[0].kind == CEL_STRING || args[0].kind == CEL_BYTES) && args[0].kind == args[1].kind &&
            args[0].n > 10 && args[1].n > 10) {
            uint64_t sa = vsize(&args[0]), sb = vsize(&args[1]);
            uint64_t c2 = ceil01(sa < sb ? sa : sb);
            if (c2 > 1)
                cel_charge(ctx, c2 - 1);
        }
        bool e = cel_eq(ctx, &args[0], &args[1]);
        return cel_bool(n->op == OP_EQ ? e : !e);
    }
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE: cel_charge(ctx, 1); return compare_op(ctx, n, &args[0], &args[1]);
    case OP_IN: {
        if (args[0].kind == CEL_ERROR)
            return args[0];
        if (args[1].kind == CEL_ERROR)
            return args[1];
        if (args[1].kind == CEL_LIST) {
            size_t cnt = cel_list_size(&args[1]);
            cel_charge(ctx, cnt ? cnt : 1);
            for (size_t i = 0; i < cnt; i++) {
                cel_value e = cel_list_get(ctx, &args[1], i);
                if (cel_eq(ctx, &args[0], &e))
                    return cel_bool(true);
            }
            return cel_bool(false);
        }
        if (args[1].kind == CEL_MAP) {
            cel_charge(ctx, 1);
            cel_value out;
            if (args[0].kind == CEL_STRING)
                return cel_bool(cel_map_get_str(ctx, &args[1], args[0].u.s, args[0].n, &out));
            if (!cel_valid_key(&args[0]) && args[0].kind != CEL_DOUBLE)
                return cel_bool(false);
            return cel_bool(cel_map_get(ctx, &args[1], &args[0], &out));
        }
        cel_charge(ctx, 1);
        return generic_call(ctx, n, args, 2);
    }
    case OP_INDEX: cel_charge(ctx, 1); return do_index(ctx, &args[0], &args[1], false);
    case OP_OPT_INDEX: cel_charge(ctx, 1); return do_index(ctx, &args[0], &args[1], true);
    case OP_OPT_SELECT:
        cel_charge(ctx, 1);
        if (args[0].kind == CEL_ERROR)
            return args[0];
        if (args[1].kind != CEL_STRING)
            return cel_no_overload(ctx, "_?._", args, 2);
        if (args[0].kind != CEL_MAP && args[0].kind != CEL_OPTIONAL && args[0].kind != CEL_OPAQUE)
            return cel_err(ctx, "type '%s' does not support field selection", cel_type_name_of(&args[0]));
        return select_field(ctx, &args[0], args[1].u.s, args[1].n, false, true);
    case OP_MAP_INSERT: {
        cel_charge(ctx, 1);
        for (size_t i = 0; i < n->nargs; i++)
            if (args[i].kind == CEL_ERROR)
                return args[i];
        if (args[0].kind != CEL_MAP || args[0].aux != &cel_nmap_vt)
            return cel_no_overload(ctx, n->name, args, n->nargs);
        nmap *m = (nmap *)args[0].u.ptr;
        if (n->nargs == 3) {
            if (!cel_valid_key(&args[1]))
                return cel_err(ctx, "unsupported key type");
            if (!nmap_put(ctx->arena, m, args[1], args[2]))
                return cel_err(ctx, "insert failed: key %s already exists", cel_value_debug(ctx->arena, &args[1]));
        } else {
            if (args[1].kind != CEL_MAP)
                return cel_no_overload(ctx, n->name, args, 2);
            size_t cnt = cel_map_size(&args[1]);
            if (cnt != 1)
                return cel_err(ctx, "insert failed: transformMapEntry must return a single-entry map");
            for (size_t i = 0; i < cnt; i++) {
                cel_value k, v;
                cel_map_entry(ctx, &args[1], i, &k, &v);
                if (!nmap_put(ctx->arena, m, k, v))
                    return cel_err(ctx, "insert failed: key %s already exists", cel_value_debug(ctx->arena, &k));
            }
        }
        cel_value r = args[0];
        r.n = (uint32_t)m->n;
        return r;
    }
    default: break;
    }
    /* generic: strict unless an overload is non-strict */
    return generic_call(ctx, n, args, n->nargs);
}

/* n.f (not has()) once the operand t is known: 1 unit, then the field or "no such key" */
static inline cel_value select_step(cel_call_ctx *ctx, const cel_node *n, cel_value t)
{
    cel_charge(ctx, 1);
    if (t.kind == CEL_MAP) {
        const cel_map_vt *vt = t.aux;
        if (vt == &cel_jobj_vt) {
            const kg_json_member *m = cel_jobj_find_hint(t.u.ptr, n->name, (uint32_t)n->name_len, (uint32_t *)&n->hint);
            return m ? cel_json_wrap(m->val) : cel_err(ctx, "no such key: %.*s", (int)n->name_len, n->name);
        }
        /* plain field selection on a map */
        cel_value out;
        bool found;
        if (vt->get_str) {
            found = vt->get_str(ctx, &t, n->name, n->name_len, &out);
        } else {
            cel_value k = cel_string(n->name, n->name_len);
            found = vt->get(ctx, &t, &k, &out);
        }
        return found ? out : cel_err(ctx, "no such key: %.*s", (int)n->name_len, n->name);
    }
    return select_field(ctx, &t, n->name, n->name_len, false, false);
}

NOINLINE static cel_value eval_select(cel_call_ctx *ctx, const cel_node *n)
{
    cel_value t = ev(ctx, n->target);
    if (!(n->flags & NF_TEST_ONLY))
        return select_step(ctx, n, t);
    if (ctx->presence_cost)
        cel_charge(ctx, 1);
    if (t.kind == CEL_MAP && t.aux == &cel_jobj_vt)
        return cel_bool(cel_jobj_find_hint(t.u.ptr, n->name, (uint32_t)n->name_len, (uint32_t *)&n->hint) != NULL);
    return select_field(ctx, &t, n->name, n->name_len, true, false);
}

NOINLINE static cel_value bad_node(cel_call_ctx *ctx)
{
    return cel_err(ctx, "bad node");
}

static inline cel_value ev(cel_call_ctx *ctx, const cel_node *n)
{
#if KGATE_CEL_PLANNER
    switch (n->xk) {
    case X_NONE: break;
    case X_PATH: return eval_path(ctx, n);
    case X_IN_CONST: return eval_in_const(ctx, n);
    case X_EQ_CONST: return eval_eq_const(ctx, n);
    case X_CONCAT: return eval_concat(ctx, n);
    case X_CALL1: return eval_call1(ctx, n);
    case X_AFFIX: return eval_affix(ctx, n);
    case X_SIZE: return eval_size(ctx, n);
    case X_MATCHES: return eval_matches(ctx, n);
    case X_CONST: return n->cval;
    case X_VAR: cel_charge(ctx, 1); return lookup_var(ctx, n);
    case X_ITER: cel_charge(ctx, 1); return ctx->vars[-2 - n->slot].v;
    case X_ANDOR:
    case X_COMPARE: return eval_call(ctx, n);
    case X_HAS: return eval_select(ctx, n);
    case X_COMPR: return eval_compr(ctx, n);
    }
#endif
    switch ((node_kind)n->kind) {
    case N_CONST: return n->cval;
    case N_IDENT:
        cel_charge(ctx, 1);
        if (n->slot <= -2)
            return ctx->vars[-2 - n->slot].v;
        return lookup_var(ctx, n);
    case N_SELECT: return eval_select(ctx, n);
    case N_CALL: return eval_call(ctx, n);
    case N_LIST: return eval_list(ctx, n);
    case N_MAP: return eval_map(ctx, n, false);
    case N_STRUCT: return eval_map(ctx, n, true);
    case N_COMPR: return eval_compr(ctx, n);
    }
    return bad_node(ctx);
}

/* an argument or operand: constants are tested first with a plain branch, so the jump on the node kind at a call
 * site that alternates between constants and other nodes (f(x, "c"), a + "/" + b) stays predictable */
__attribute__((always_inline)) static inline cel_value ev_arg(cel_call_ctx *ctx, const cel_node *n)
{
#if KGATE_CEL_PLANNER
    if (n->xk == X_CONST)
        return n->cval;
    if (n->xk == X_PATH) {
        /* a path that hits all the way: walked here, the value made in the caller's registers */
        const kg_json *end;
        if (path_fast(ctx, n->xp, &end))
            return cel_json_wrap(end);
    }
#endif
    return ev(ctx, n);
}

/* ---- bool context: results in a register instead of a 24-byte value through memory ----
 * evb evaluates n exactly as ev does and returns 0/1 when the result is a bool, else 2 with the value in *v. Used
 * where the consumer branches on bools: the whole program, all()/exists() predicates, &&, ||, !, ?: conditions. */
static inline int classify(const cel_value *v)
{
    return v->kind == CEL_BOOL ? (int)v->u.b : 2;
}

NOINLINE static int evb_and_or_rest(cel_call_ctx *ctx, const cel_node *n, cel_value *v, int l, cel_value lv);

/* && / || in a bool context: the common case (a bool on the left) here, the right side evaluated straight into *v;
 * a left side that is not a bool out of line */
NOINLINE static int evb_and_or(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    int is_and = n->op == OP_AND;
    cel_value lv;
    int l = evb(ctx, n->args[0], &lv);
    if (l >= 2)
        return evb_and_or_rest(ctx, n, v, l, lv);
    if (l != is_and)
        return l;
    /* the left side is the neutral bool: the right side decides, unless it is neither a bool nor an error */
    int r = evb(ctx, n->args[1], v);
    if (r < 2 || v->kind == CEL_ERROR)
        return r;
    cel_value a2[2] = {cel_bool(l), *v};
    *v = cel_no_overload(ctx, n->name, a2, 2);
    return classify(v);
}

static int evb_and_or_rest(cel_call_ctx *ctx, const cel_node *n, cel_value *v, int l, cel_value lv)
{
    int is_and = n->op == OP_AND;
    cel_value rv;
    int r = evb(ctx, n->args[1], &rv);
    if (r < 2 && r != is_and)
        return r;
    if (l < 2 && r < 2)
        return r;
    if (l == 2 && lv.kind == CEL_ERROR) {
        *v = lv;
        return 2;
    }
    if (r == 2 && rv.kind == CEL_ERROR) {
        *v = rv;
        return 2;
    }
    cel_value a2[2] = {l < 2 ? cel_bool(l) : lv, r < 2 ? cel_bool(r) : rv};
    *v = cel_no_overload(ctx, n->name, a2, 2);
    return classify(v);
}

NOINLINE static int evb_not(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    cel_value av;
    int a = evb(ctx, n->args[0], &av);
    cel_charge(ctx, 1);
    if (a < 2)
        return !a;
    if (av.kind == CEL_ERROR) {
        *v = av;
        return 2;
    }
    *v = generic_call(ctx, n, &av, 1);
    return classify(v);
}

NOINLINE static int evb_not_strictly_false(cel_call_ctx *ctx, const cel_node *n)
{
    cel_value av;
    int a = evb(ctx, n->args[0], &av);
    cel_charge(ctx, 1);
    return a < 2 ? a : 1;
}

NOINLINE static int evb_cond(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    cel_value cv;
    int c = evb(ctx, n->args[0], &cv);
    if (c < 2)
        return evb(ctx, n->args[c ? 1 : 2], v);
    if (cv.kind == CEL_ERROR) {
        *v = cv;
        return 2;
    }
    *v = cel_no_overload(ctx, "_?_:_", &cv, 1);
    return classify(v);
}

NOINLINE static int evb_compare(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    cel_value args[2];
    args[0] = cmp_operand(ctx, n->args[0]);
    args[1] = cmp_operand(ctx, n->args[1]);
    cel_charge(ctx, 1);
    if (args[0].kind == CEL_INT && args[1].kind == CEL_INT) {
        int64_t a = args[0].u.i, b = args[1].u.i;
        switch ((opcode)n->op) {
        case OP_LT: return a < b;
        case OP_LE: return a <= b;
        case OP_GT: return a > b;
        default: return a >= b;
        }
    }
    *v = compare_op(ctx, n, &args[0], &args[1]);
    return classify(v);
}

NOINLINE static int evb_has_slow(cel_call_ctx *ctx, const cel_node *n, cel_value *v);

/* has(path.f) in a bool context: a path that hits all the way (path_fast) to a JSON object is looked up here;
 * anything else goes out of line (from the start when nothing was done yet) */
NOINLINE static int evb_has(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
#if KGATE_CEL_PLANNER
    const cel_node *a = n->target;
    const kg_json *end;
    if (a->xk == X_PATH && path_fast(ctx, a->xp, &end)) {
        if (ctx->presence_cost)
            cel_charge(ctx, 1);
        if (end->type == KG_JSON_OBJECT)
            return cel_jobj_find_hint(end, n->name, (uint32_t)n->name_len, (uint32_t *)&n->hint) != NULL;
        cel_value t = cel_json_wrap(end);
        *v = select_field(ctx, &t, n->name, n->name_len, true, false);
        return classify(v);
    }
#endif
    return evb_has_slow(ctx, n, v);
}

static int evb_has_slow(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    cel_value t;
#if KGATE_CEL_PLANNER
    if (n->target->xk == X_PATH) {
        /* has(path.f) on JSON: the field is looked up in the object at the path's end, no value made for it */
        const kg_json *end;
        if (path_walk_slow(ctx, n->target, &end, &t)) {
            if (ctx->presence_cost)
                cel_charge(ctx, 1);
            if (end && end->type == KG_JSON_OBJECT)
                return cel_jobj_find_hint(end, n->name, (uint32_t)n->name_len, (uint32_t *)&n->hint) != NULL;
            t = cel_json_wrap(end);
            *v = select_field(ctx, &t, n->name, n->name_len, true, false);
            return classify(v);
        }
    } else
#endif
    {
        t = ev(ctx, n->target);
    }
    if (ctx->presence_cost)
        cel_charge(ctx, 1);
    if (t.kind == CEL_MAP && t.aux == &cel_jobj_vt)
        return cel_jobj_find_hint(t.u.ptr, n->name, (uint32_t)n->name_len, (uint32_t *)&n->hint) != NULL;
    *v = select_field(ctx, &t, n->name, n->name_len, true, false);
    return classify(v);
}

NOINLINE static int evb_value(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    *v = ev(ctx, n);
    return classify(v);
}

static int evb(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
#if KGATE_CEL_PLANNER
    switch (n->xk) {
    case X_EQ_CONST: return evb_eq_const(ctx, n, v);
    case X_IN_CONST: return evb_in_const(ctx, n, v);
    case X_AFFIX: return evb_affix(ctx, n, v);
    case X_MATCHES: return evb_matches(ctx, n, v);
    case X_ANDOR: return evb_and_or(ctx, n, v);
    case X_COMPARE: return evb_compare(ctx, n, v);
    case X_HAS: return evb_has(ctx, n, v);
    case X_COMPR: return evb_compr_any(ctx, n, v);
    case X_NONE: break;
    case X_CONST:
        if (n->cval.kind == CEL_BOOL)
            return n->cval.u.b;
        return evb_value(ctx, n, v);
    default: return evb_value(ctx, n, v);
    }
#endif
    switch ((node_kind)n->kind) {
    case N_CONST:
        if (n->cval.kind == CEL_BOOL)
            return n->cval.u.b;
        break;
    case N_CALL:
        switch ((opcode)n->op) {
        case OP_AND:
        case OP_OR: return evb_and_or(ctx, n, v);
        case OP_NOT:
            if (n->nargs == 1)
                return evb_not(ctx, n, v);
            break;
        case OP_NOT_STRICTLY_FALSE: return evb_not_strictly_false(ctx, n);
        case OP_COND: return evb_cond(ctx, n, v);
        case OP_LT:
        case OP_LE:
        case OP_GT:
        case OP_GE:
            if (n->nargs == 2)
                return evb_compare(ctx, n, v);
            break;
        default: break;
        }
        break;
    case N_SELECT:
        if (n->flags & NF_TEST_ONLY)
            return evb_has(ctx, n, v);
        break;
    case N_COMPR: return evb_compr(ctx, n, v);
    default: break;
    }
    return evb_value(ctx, n, v);
}

cel_value cel_eval_node(cel_call_ctx *ctx, const cel_node *n)
{
    return ev(ctx, n);
}

void cel_eval_root(cel_call_ctx *ctx, const cel_node *n, cel_value *out)
{
    int b = evb(ctx, n, out);
    if (b < 2)
        *out = cel_bool(b);
}

/* ---------------------------------------------------------------- entry point (the root is evaluated inline) */

void cel_cost_exceeded(cel_call_ctx *ctx)
{
    CEL_LONGJMP(*ctx->jb);
}

/* the ways out of cel_eval other than a result (out of line, cold) */
__attribute__((noinline, cold)) static cel_eval_status eval_failed(cel_call_ctx *ctx, cel_value *result, uint64_t *cost,
                                                                   bool other_env)
{
    if (other_env) {
        /* slots are per environment: an activation of another env would bind the wrong variables */
        *result = cel_err(ctx, "activation belongs to a different environment than the program");
        if (cost)
            *cost = 0;
        return CEL_EVAL_ERROR;
    }
    *result = cel_err(ctx, "operation cancelled: actual cost limit exceeded");
    if (cost)
        *cost = ctx->cost;
    return CEL_EVAL_COST_EXCEEDED;
}

/* the evaluation proper, with the cost limit's jump target */
NOINLINE static cel_eval_status eval_general(const cel_program *p, cel_activation *act, uint64_t cost_limit,
                                             cel_value *result, uint64_t *cost)
{
    size_t nv = p->nframes;
    compr_frame stackv[24];
    cel_call_ctx ctx = {
        .arena = act->arena,
        .act = act,
        .slots = act->slots,
        .limit = cost_limit,
        .vars = nv <= 24 ? stackv : kg_arena_calloc(act->arena, nv * sizeof(compr_frame)),
        .presence_cost = p->has_presence_cost,
    };
    cel_jmp_buf jb;
    ctx.jb = &jb;
    if (CEL_SETJMP(jb))
        return eval_failed(&ctx, result, cost, false);
    /* the result is produced in place (evaluation never reads *result) */
    int b;
#if KGATE_CEL_PLANNER
    if (__builtin_expect(p->root->xk == X_CONCAT, 0)) {
        /* a value at the root (a string built by +): straight to it, not through the bool dispatch */
        *result = eval_concat(&ctx, p->root);
        b = 2;
    } else
#endif
    {
        b = evb(&ctx, p->root, result);
    }
    cel_eval_status st = CEL_EVAL_OK;
    if (b < 2)
        *result = cel_bool(b);
    else if (result->kind == CEL_ERROR)
        st = CEL_EVAL_ERROR;
    if (ctx.cost > ctx.limit)
        return eval_failed(&ctx, result, cost, false);
    if (cost)
        *cost = ctx.cost;
    return st;
}

/* an activation of another env, or one made before the program's variables were declared */
__attribute__((noinline, cold)) static cel_eval_status eval_unusual_activation(const cel_program *p,
                                                                               cel_activation *act, uint64_t cost_limit,
                                                                               cel_value *result, uint64_t *cost)
{
    if (act->env != p->env) {
        cel_call_ctx ctx = {.arena = act->arena, .act = act};
        return eval_failed(&ctx, result, cost, true);
    }
    cel_activation_grow(act, p->nslots);
    return cel_eval(p, act, cost_limit, result, cost);
}

/* cel_eval_slots without a fast root form: through an activation on the stack (its own frame, so that
 * cel_eval_slots needs none and jumps to the fast forms) */
NOIPA static cel_eval_status eval_slots_general(const cel_program *p, kg_arena *arena, cel_value *slots, size_t n,
                                                uint64_t cost_limit, cel_value *result, uint64_t *cost)
{
    cel_activation a = {.env = p->env, .arena = arena, .slots = slots, .nslots = n};
    return cel_eval(p, &a, cost_limit, result, cost);
}

cel_eval_status cel_eval_slots(const cel_program *p, kg_arena *arena, const cel_value *values, size_t n,
                               uint64_t cost_limit, cel_value *result, uint64_t *cost)
{
    /* the caller's values are read in place, never written (there is no resolver; an activation short of the
     * program's slots gets a copy from cel_eval); the fast root forms need no activation */
    cel_value *slots = (cel_value *)(uintptr_t)values;
#if KGATE_CEL_PLANNER
    if (n >= p->nslots) {
        if (p->root_fast == ROOT_FAST_BOOL)
            return eval_root_bool_slots(p, arena, slots, n, cost_limit, result, cost);
        if (p->root_fast == ROOT_FAST_CONCAT)
            return eval_root_concat_slots(p, arena, slots, n, cost_limit, result, cost);
    }
#endif
    return eval_slots_general(p, arena, slots, n, cost_limit, result, cost);
}

cel_eval_status cel_eval(const cel_program *p, cel_activation *act, uint64_t cost_limit, cel_value *result,
                         uint64_t *cost)
{
    if (__builtin_expect(act->env != p->env || act->nslots < p->nslots, 0))
        return eval_unusual_activation(p, act, cost_limit, result, cost);
#if KGATE_CEL_PLANNER
    if (p->root_fast == ROOT_FAST_BOOL)
        return eval_root_bool(p, act, act->slots, act->arena, cost_limit, result, cost);
    if (p->root_fast == ROOT_FAST_CONCAT)
        return eval_root_concat(p, act, act->slots, act->arena, cost_limit, result, cost);
#endif
    return eval_general(p, act, cost_limit, result, cost);
}

#if KGATE_CEL_PLANNER
#define KG_CEL_EVAL_FAST_INCLUDED_BY_EVAL_C
#include "cel/eval_fast.c"
#endif
