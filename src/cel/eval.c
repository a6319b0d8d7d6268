/* The tree-walking evaluator with cel-go runtime cost accounting. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cel/cel_internal.h"
#include "cel/regex/cel_regex.h"

/* ================================================================ evaluation */

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
__attribute__((always_inline)) static inline bool path_fast_obj(cel_call_ctx *ctx, const path_plan *pp,
                                                                const kg_json *o, const kg_json **end);
__attribute__((always_inline)) static inline bool lean_range(cel_call_ctx *ctx, const path_plan *pp,
                                                             const kg_json **rj);
__attribute__((always_inline)) static inline bool path_fast(cel_call_ctx *ctx, const path_plan *pp,
                                                            const kg_json **end);
static inline int str_pred(cel_call_ctx *ctx, const cel_node *n, const char *s, uint32_t len, bool ascii);
NOINLINE static cel_value call1_const2(cel_call_ctx *ctx, const cel_node *n, const cel_value *a0);

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

/* One element of a fused all()/exists() over a JSON array: the element object and the comprehension's frame; the
 * variable (fr[0]) is set only when some node has to be evaluated the general way. */
typedef struct fused_elem {
    const kg_json *item;
    compr_frame *fr;
    bool set;
    const kg_json *memo; /* the value of the member a has() on the left of && / || found (F_REUSE) */
} fused_elem;

static inline void fe_set_var(fused_elem *fe)
{
    if (!fe->set) {
        fe->fr[0].v = cel_value_make_(CEL_MAP, fe->item->len, (uint64_t)(uintptr_t)fe->item, &cel_jobj_vt);
        fe->set = true;
    }
}

NOINLINE static int fpred_general(cel_call_ctx *ctx, const cel_node *n, fused_elem *fe, cel_value *v)
{
    fe_set_var(fe);
    return evb(ctx, n, v);
}

static int evb_in_const_val(cel_call_ctx *ctx, const cel_node *n, cel_value m, cel_value *v);
static int evb_and_or_rest(cel_call_ctx *ctx, const cel_node *n, cel_value *v, int l, cel_value lv);

/* a predicate node tagged by the plan (cel_node.xf) for the element fe: its path is walked from the element object
 * (path_fast_obj: the variable's read and the steps, charged as the general walk does) and the node's work done on
 * the JSON node at its end, exactly as its general form does after the same walk; a path that does not hit all the
 * way (or a variable that is not this frame's) sends the node the general way, nothing done yet */
__attribute__((always_inline)) static inline int fpred_leaf(cel_call_ctx *ctx, const cel_node *n, fused_elem *fe,
                                                            cel_value *v)
{
    const cel_node *a;
    switch (n->xf & F_KIND) {
    case F_HAS: a = n->target; break;
    case F_IN: a = n->args[1]; break;
    case F_STR: a = n->args[0]; break;
    case F_EQ: a = n->args[1 - n->xn]; break;
    default: return fpred_general(ctx, n, fe, v);
    }
    const path_plan *pp = a->xp;
    const kg_json *end;
    if (&ctx->vars[-2 - pp->base->slot] != &fe->fr[0])
        return fpred_general(ctx, n, fe, v);
    uint64_t nc;
    if ((n->xf & F_REUSE) && fe->memo && !__builtin_add_overflow(ctx->cost, pp->k + 1, &nc) && nc <= ctx->limit) {
        /* the has() on the left found the member this path ends on: the walk's charges (the variable and k
         * steps, all under the limit) without the walk */
        ctx->cost = nc;
        end = fe->memo;
    } else if (!path_fast_obj(ctx, pp, fe->item, &end)) {
        return fpred_general(ctx, n, fe, v);
    }
    switch (n->xf & F_KIND) {
    case F_HAS: {
        /* evb_has */
        if (ctx->presence_cost)
            cel_charge(ctx, 1);
        if (end->type == KG_JSON_OBJECT) {
            const kg_json_member *m = cel_jobj_find_hint(end, n->name, (uint32_t)n->name_len, (uint32_t *)&n->hint);
            fe->memo = m ? m->val : NULL;
            return m != NULL;
        }
        cel_value t = cel_json_wrap(end);
        *v = select_field(ctx, &t, n->name, n->name_len, true, false);
        return classify(v);
    }
    case F_IN:
        /* evb_in_const */
        if (end->type == KG_JSON_OBJECT) {
            const cel_value *k = &n->args[0]->cval;
            cel_charge(ctx, 1);
            return cel_jobj_find_hint(end, k->u.s, k->n, (uint32_t *)&n->hint) != NULL;
        }
        return evb_in_const_val(ctx, n, cel_json_wrap(end), v);
    case F_STR: {
        /* affix_core / matches_core */
        if (end->type == KG_JSON_STRING)
            return str_pred(ctx, n, end->u.s, end->len, end->ascii);
        cel_value e0 = cel_json_wrap(end);
        *v = call1_const2(ctx, n, &e0);
        return classify(v);
    }
    default: {
        /* F_EQ: evb_eq_const */
        size_t ci = n->xn;
        const cel_value *c = &n->args[ci]->cval;
        if (end->type == KG_JSON_STRING && !(end->len > 10 && c->n > 10)) {
            cel_charge(ctx, 1);
            bool e = end->len == c->n && kg_bytes_eq(end->u.s, c->u.s, c->n);
            return n->op == OP_EQ ? e : !e;
        }
        cel_value args[2];
        args[ci] = *c;
        args[1 - ci] = cel_json_wrap(end);
        *v = apply_strict(ctx, n, args);
        return classify(v);
    }
    }
}

/* && / || (evb_and_or with the operands evaluated by fpred), or a leaf */
NOINLINE static int fpred(cel_call_ctx *ctx, const cel_node *n, fused_elem *fe, cel_value *v)
{
    if (n->xf != F_ANDOR)
        return fpred_leaf(ctx, n, fe, v);
    int is_and = n->op == OP_AND;
    cel_value lv;
    fe->memo = NULL; /* set by a has() on the left that finds its member, for the right side (F_REUSE) */
    const cel_node *ln = n->args[0], *rn = n->args[1];
    int l = ln->xf == F_ANDOR ? fpred(ctx, ln, fe, &lv) : fpred_leaf(ctx, ln, fe, &lv);
    if (l >= 2) {
        fe_set_var(fe); /* the right side goes the general way */
        return evb_and_or_rest(ctx, n, v, l, lv);
    }
    if (l != is_and)
        return l;
    int r = rn->xf == F_ANDOR ? fpred(ctx, rn, fe, v) : fpred_leaf(ctx, rn, fe, v);
    if (r < 2 || v->kind == CEL_ERROR)
        return r;
    cel_value a2[2] = {cel_bool(l), *v};
    *v = cel_no_overload(ctx, n->name, a2, 2);
    return classify(v);
}

/* The loop of all()/exists() over the JSON array/object rj when the plan found a predicate that runs in place
 * (checked by the caller: the predicate's variable is this comprehension's frame fr[0]); same charges in the same
 * order as the general loop, elements the fused form does not cover take the general way.
 *   plan xn 2: `v == "c"` / `v != "c"` on the variable: each key / string element is compared without the variable
 *   being set or the predicate dispatched: step 1, reading the variable 1, == 1 (long strings through the general ==).
 *   plan xn 3 (arrays): x.a.b.startsWith/endsWith/matches("c") on a path from the variable: the path is walked from
 *   each element object (path_fast_obj: the variable's read and the steps) and the string tested in place.
 *   plan xn 4 (arrays): any other predicate tree tagged by the plan (has / in / == / startsWith / endsWith / matches
 *   on paths from the variable, && / || of them) runs through fpred for each element object. */
__attribute__((always_inline)) static inline void pred_loop_fused(cel_call_ctx *ctx, const cel_node *n,
                                                                  const kg_json *rj, compr_frame *fr, int *abp,
                                                                  cel_value *avp, int xn)
{
    const cel_node *pred = n->target;
    int is_all = (n->flags & NF_ALL) != 0;
    bool is_list = rj->type == KG_JSON_ARRAY;
    const cel_value *cst = xn == 2 ? &pred->args[pred->xn]->cval : NULL;
    const path_plan *sp = NULL;
    if (xn == 3) {
        sp = pred->args[0]->xp;
        if (&ctx->vars[-2 - sp->base->slot] != &fr[0])
            sp = NULL; /* not this frame's variable: the general way */
    }
    int ab = *abp;
    cel_value av = *avp, rv;
    for (size_t i = 0, count = rj->len; i < count; i++) {
        cel_charge(ctx, is_all ? 2 : 3);
        if (ab < 2 && ab != is_all)
            break;
        int rb;
        const kg_json *item = is_list ? rj->u.items[i] : NULL;
        if (cst && (!is_list || (item && item->type == KG_JSON_STRING))) {
            const char *ks = is_list ? item->u.s : rj->u.members[i].key;
            uint32_t kl = is_list ? item->len : rj->u.members[i].key_len;
            cel_charge(ctx, 1); /* step */
            cel_charge(ctx, 1); /* the variable */
            if (!(kl > 10 && cst->n > 10)) {
                cel_charge(ctx, 1);
                bool e = kl == cst->n && kg_bytes_eq(ks, cst->u.s, kl);
                rb = pred->op == OP_EQ ? e : !e;
            } else {
                cel_value args[2];
                args[pred->xn] = *cst;
                args[1 - pred->xn] = cel_string(ks, kl);
                rv = apply_strict(ctx, pred, args);
                rb = classify(&rv);
            }
        } else if (xn == 3 && item && item->type == KG_JSON_OBJECT) {
            /* one startsWith/endsWith/matches leaf: its path plan and frame check hoisted out of the loop */
            const kg_json *end;
            cel_charge(ctx, 1); /* step */
            if (sp && path_fast_obj(ctx, sp, item, &end)) {
                if (end->type == KG_JSON_STRING) {
                    rb = str_pred(ctx, pred, end->u.s, end->len, end->ascii);
                } else {
                    cel_value e0 = cel_json_wrap(end);
                    rv = call1_const2(ctx, pred, &e0);
                    rb = classify(&rv);
                }
            } else {
                fr[0].v = cel_value_make_(CEL_MAP, item->len, (uint64_t)(uintptr_t)item, &cel_jobj_vt);
                fr[2].v = ab < 2 ? cel_bool(ab) : av;
                rb = evb(ctx, pred, &rv);
            }
        } else if (xn == 4 && item && item->type == KG_JSON_OBJECT) {
            cel_charge(ctx, 1); /* step */
            fused_elem fe = {item, fr, false, NULL};
            rb = pred->xf == F_ANDOR ? fpred(ctx, pred, &fe, &rv) : fpred_leaf(ctx, pred, &fe, &rv);
        } else {
            /* the general way for this element */
            cel_value range = is_list ? cel_value_make_(CEL_LIST, rj->len, (uint64_t)(uintptr_t)rj, &cel_jarr_vt)
                                      : cel_value_make_(CEL_MAP, rj->len, (uint64_t)(uintptr_t)rj, &cel_jobj_vt);
            compr_vars(ctx, n, &range, is_list, i, fr);
            cel_charge(ctx, 1);
            fr[2].v = ab < 2 ? cel_bool(ab) : av;
            rb = evb(ctx, pred, &rv);
        }
        pred_accumulate(ctx, is_all, &ab, &av, rb, &rv);
    }
    *abp = ab;
    *avp = av;
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
        ab = ai->xk == X_CONST && ai->cval.kind == CEL_BOOL ? ai->cval.u.b : evb(ctx, ai, &av);
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
        /* fuse (a constant: one instantiation each): the plan's fused predicate forms (pred_loop_fused) */
        if (fuse == 2 && (range.aux == &cel_jobj_vt || range.aux == &cel_jarr_vt) &&
            &ctx->vars[-2 - pred->args[1 - pred->xn]->slot] == &fr[0]) {
            pred_loop_fused(ctx, n, range.u.ptr, fr, &ab, &av, 2);
        } else if (fuse == 3 && range.aux == &cel_jarr_vt) {
            pred_loop_fused(ctx, n, range.u.ptr, fr, &ab, &av, 3);
        } else if (fuse == 4 && range.aux == &cel_jarr_vt) {
            pred_loop_fused(ctx, n, range.u.ptr, fr, &ab, &av, 4);
        } else {
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
    const kg_json *rjn;
    if (n->range->xk == X_PATH && path_fast(ctx, n->range->xp, &rjn)) {
        /* a path that hits all the way: JSON arrays and objects are the usual ranges */
        if (rjn->type == KG_JSON_ARRAY)
            range = cel_value_make_(CEL_LIST, rjn->len, (uint64_t)(uintptr_t)rjn, &cel_jarr_vt);
        else if (rjn->type == KG_JSON_OBJECT)
            range = cel_value_make_(CEL_MAP, rjn->len, (uint64_t)(uintptr_t)rjn, &cel_jobj_vt);
        else
            range = cel_json_wrap(rjn);
    } else {
        range = ev(ctx, n->range);
    }
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

/* The general instantiations of the fused forms (from the start, or with the range's value made) */
#define COMPR_FUSED_GENERAL(name, xn)                                                                                  \
    NOINLINE static int name##_general(cel_call_ctx *ctx, const cel_node *n, cel_value *v)                             \
    {                                                                                                                  \
        int b = compr_core(ctx, n, v, true, xn);                                                                       \
        return b < 2 ? b : classify(v);                                                                                \
    }                                                                                                                  \
    NOINLINE static int name##_range(cel_call_ctx *ctx, const cel_node *n, cel_value *v, cel_value range)              \
    {                                                                                                                  \
        int b = compr_core_r(ctx, n, v, true, xn, range);                                                              \
        return b < 2 ? b : classify(v);                                                                                \
    }
COMPR_FUSED_GENERAL(evb_compr_eq, 2)
COMPR_FUSED_GENERAL(evb_compr_str, 3)
COMPR_FUSED_GENERAL(evb_compr_tree, 4)

/* plan xn 3 / 4 in a bool context, the usual case lean: the range is a path from a declared variable that hits all
 * the way to a JSON array, the initial accumulator a constant bool (xn 3: the string test's variable is this
 * comprehension's frame; xn 4 checks per node); the loop is pred_loop_fused's (same charges), then the result read
 * (1). Anything else: the general instantiation, from the start (nothing is done before the range's walk, which
 * charges only when it hits) or with the range's value. evb_compr_eq is the same for xn 2 (objects too). */
__attribute__((always_inline)) static inline int
compr_lean(cel_call_ctx *ctx, const cel_node *n, cel_value *v, int xn,
           int (*general)(cel_call_ctx *, const cel_node *, cel_value *),
           int (*with_range)(cel_call_ctx *, const cel_node *, cel_value *, cel_value))
{
    const cel_node *r = n->range, *ai = n->accu_init;
    compr_frame *fr = &ctx->vars[ctx->nvars];
    /* (xn 3: the string test's variable is this comprehension's frame; xn 4 checks per node) */
    if (!(n->flags & NF_LEAN) || (xn == 3 && n->xv != ctx->nvars + 1))
        return general(ctx, n, v);
    const path_plan *pp = r->xp;
    const kg_json *rj;
    if (!lean_range(ctx, pp, &rj))
        return general(ctx, n, v);
    if (rj->type != KG_JSON_ARRAY)
        return with_range(ctx, n, v, cel_json_wrap(rj)); /* (the walk is charged already) */
    size_t saved = ctx->nvars;
    ctx->nvars += 3;
    int ab = ai->cval.u.b;
    cel_value av;
    pred_loop_fused(ctx, n, rj, fr, &ab, &av, xn);
    cel_charge(ctx, 1); /* the result: the accumulator variable */
    ctx->nvars = saved;
    if (ab < 2)
        return ab;
    *v = av;
    return classify(v);
}

/* plan xn 2 over the keys of a JSON object (or an array of strings) with a constant of at most 10 bytes (each
 * compare then costs 1) and the neutral initial accumulator: pred_loop_fused's loop reduced to finding the deciding
 * element (the first key that equals / differs from the constant for exists / all). Its charges are arithmetic:
 * per element visited 2 (all) or 3 (exists) for the loop, 1 for the step, 1 for the variable and 1 for the compare;
 * 2 or 3 more when the loop stops before the end; 1 for the result. Returns the result (0/1) with the cost added
 * when all of it fits under the limit; -1 having done nothing (an array element that is not a string, a longer
 * constant, too close to the limit), for the general loop. */
__attribute__((always_inline)) static inline int compr_eq_keys(cel_call_ctx *ctx, const cel_node *n, const kg_json *rj)
{
    const cel_node *pred = n->target;
    const cel_value *cst = &pred->args[pred->xn]->cval;
    uint32_t cn = cst->n;
    if (cn > 10)
        return -1;
    const char *cs = cst->u.s;
    int is_all = (n->flags & NF_ALL) != 0;
    bool ne = pred->op != OP_EQ;
    size_t count = rj->len, i = 0;
    if (rj->type == KG_JSON_OBJECT) {
        const kg_json_member *m = rj->u.members;
        for (; i < count; i++) {
            bool e = m[i].key_len == cn && kg_bytes_eq(m[i].key, cs, cn);
            if ((int)(e != ne) != is_all)
                break;
        }
    } else {
        kg_json *const *items = rj->u.items;
        for (; i < count; i++) {
            const kg_json *it = items[i];
            if (!it || it->type != KG_JSON_STRING)
                return -1;
            bool e = it->len == cn && kg_bytes_eq(it->u.s, cs, cn);
            if ((int)(e != ne) != is_all)
                break;
        }
    }
    uint64_t loop = is_all ? 2 : 3, per = loop + 3;
    uint64_t c = i < count ? (uint64_t)(i + 1) * per + (i + 1 < count ? loop : 0) : (uint64_t)count * per;
    c += 1; /* the result */
    uint64_t nc;
    if (__builtin_add_overflow(ctx->cost, c, &nc) || nc > ctx->limit)
        return -1;
    ctx->cost = nc;
    return i < count ? !is_all : is_all;
}

/* evb_compr_eq's loop over the JSON array/object rj the range's walk reached (charged already), out of line so that
 * the walk and the key loop before it run without its frame */
NOINLINE static int evb_compr_eq_loop(cel_call_ctx *ctx, const cel_node *n, cel_value *v, const kg_json *rj)
{
    compr_frame *fr = &ctx->vars[ctx->nvars];
    int ab = n->accu_init->cval.u.b;
    size_t saved = ctx->nvars;
    ctx->nvars += 3;
    cel_value av;
    pred_loop_fused(ctx, n, rj, fr, &ab, &av, 2);
    cel_charge(ctx, 1); /* the result: the accumulator variable */
    ctx->nvars = saved;
    if (ab < 2)
        return ab;
    *v = av;
    return classify(v);
}

NOINLINE static int evb_compr_eq(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    const cel_node *r = n->range, *ai = n->accu_init;
    /* the compared variable is this comprehension's (its frame, plan.c xv) */
    if (!(n->flags & NF_LEAN) || n->xv != ctx->nvars + 1)
        return evb_compr_eq_general(ctx, n, v);
    const path_plan *pp = r->xp;
    const kg_json *rj;
    if (!lean_range(ctx, pp, &rj))
        return evb_compr_eq_general(ctx, n, v);
    if (rj->type != KG_JSON_OBJECT && rj->type != KG_JSON_ARRAY)
        return evb_compr_eq_range(ctx, n, v, cel_json_wrap(rj)); /* (the walk is charged already) */
    if (ai->cval.u.b == ((n->flags & NF_ALL) != 0)) {
        int r = compr_eq_keys(ctx, n, rj);
        if (r >= 0)
            return r;
    }
    return evb_compr_eq_loop(ctx, n, v, rj);
}

NOINLINE static int evb_compr_str(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    return compr_lean(ctx, n, v, 3, evb_compr_str_general, evb_compr_str_range);
}

NOINLINE static int evb_compr_tree(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    return compr_lean(ctx, n, v, 4, evb_compr_tree_general, evb_compr_tree_range);
}

/* a planned comprehension: plan xn 2 / 3 / 4 are all()/exists() with a fused predicate form (pred_loop_fused) */
static inline int evb_compr_any(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    switch (n->xn) {
    case 2: return evb_compr_eq(ctx, n, v);
    case 3: return evb_compr_str(ctx, n, v);
    case 4: return evb_compr_tree(ctx, n, v);
    default: return evb_compr(ctx, n, v);
    }
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

/* X_PATH: a chain of plain selections over an operand; on JSON objects the chain is walked on the DOM and only
 * the last value is wrapped. Same charges in the same order as one select at a time.
 * path_walk returns true with the JSON node at the end of the path (JSON all the way), or false with the path's
 * value (an error, or the result of the general selections after a value that is not a JSON object) in *v. */
/* The common case first, inline and without side effects until it is sure: the base is a variable bound to a JSON
 * object and every step's key is where its hint says; then the base read and the k steps (1 unit each) are charged
 * at once when they fit under the limit. Anything else (a miss, an error, not JSON, near the limit) returns false
 * having done nothing, and the general walk below runs from the start. */
/* One step of a hinted walk: the member of object o that step st names, where its hint says (the guess is
 * verified: index in range, same length, same bytes); NULL on a miss. */
__attribute__((always_inline)) static inline const kg_json_member *hinted_member(const kg_json *o, const path_step *st)
{
    uint32_t h = __atomic_load_n(&st->hint, __ATOMIC_RELAXED);
    if (h >= o->len)
        return NULL;
    const kg_json_member *m = &o->u.members[h];
    if (m->key_len != st->len || !kg_bytes_eq(m->key, st->name, st->len))
        return NULL;
    return m;
}

/* The hinted walk of pp's steps from step i over object o (save_out: when not NULL, receives the object reached
 * before step `save`). */
__attribute__((always_inline)) static inline bool path_walk_hinted(cel_call_ctx *ctx, const path_plan *pp,
                                                                   const kg_json *o, size_t i, const kg_json **end,
                                                                   const kg_json **save_out, size_t save)
{
    size_t k = pp->k;
    for (;; i++) {
        if (save_out && i == save)
            *save_out = o;
        const kg_json_member *m = hinted_member(o, &pp->steps[i]);
        if (!m)
            return false;
        const kg_json *c = m->val;
        if (i + 1 == k) {
            uint64_t nc; /* cost + k + 1 <= limit, one compare */
            if (__builtin_add_overflow(ctx->cost, k + 1, &nc) || nc > ctx->limit)
                return false;
            ctx->cost = nc;
            *end = c;
            return true;
        }
        if (!c || c->type != KG_JSON_OBJECT)
            return false;
        o = c;
    }
}

__attribute__((always_inline)) static inline bool path_fast_obj(cel_call_ctx *ctx, const path_plan *pp,
                                                                const kg_json *o, const kg_json **end)
{
    return path_walk_hinted(ctx, pp, o, 0, end, NULL, 0);
}

/* An NF_LEAN comprehension's range: the declared variable it starts from holds a JSON object and the hinted walk
 * reaches the end (charged); false leaves everything to the general path. */
__attribute__((always_inline)) static inline bool lean_range(cel_call_ctx *ctx, const path_plan *pp, const kg_json **rj)
{
    const cel_value *bv = &ctx->slots[pp->base->slot]; /* a declared variable (NF_LEAN) */
    if (bv->kind != CEL_MAP || bv->aux != &cel_jobj_vt)
        return false;
    const kg_json *b = bv->u.ptr;
    return b && path_fast_obj(ctx, pp, b, rj);
}

__attribute__((always_inline)) static inline bool path_fast(cel_call_ctx *ctx, const path_plan *pp, const kg_json **end)
{
    const cel_node *b = pp->base;
    const cel_value *bv;
    if (b->xk == X_ITER) {
        bv = &ctx->vars[-2 - b->slot].v;
    } else if (b->xk == X_VAR) {
        bv = &ctx->slots[b->slot];
    } else {
        return false;
    }
    if (bv->kind != CEL_MAP || bv->aux != &cel_jobj_vt)
        return false;
    return path_fast_obj(ctx, pp, bv->u.ptr, end);
}

NOINLINE static bool path_walk_slow(cel_call_ctx *ctx, const cel_node *n, const kg_json **end, cel_value *v);

__attribute__((always_inline)) static inline bool path_walk(cel_call_ctx *ctx, const cel_node *n, const kg_json **end,
                                                            cel_value *v)
{
    if (path_fast(ctx, n->xp, end))
        return true;
    return path_walk_slow(ctx, n, end, v);
}

static bool path_walk_slow(cel_call_ctx *ctx, const cel_node *n, const kg_json **end, cel_value *v)
{
    const path_plan *pp = n->xp;
    const cel_node *s = pp->base;
    size_t k = pp->k, i = 0;
    cel_value t;
    if (s->xk == X_ITER) {
        cel_charge(ctx, 1);
        t = ctx->vars[-2 - s->slot].v;
    } else if (s->xk == X_VAR) {
        cel_charge(ctx, 1);
        t = lookup_var(ctx, s);
    } else {
        t = ev(ctx, s);
    }
    if (t.kind == CEL_MAP && t.aux == &cel_jobj_vt) {
        /* on the DOM every step costs 1 unit, found or not: when all k fit under the limit they are charged at
         * once (no limit can be crossed in between); a step that leaves the DOM gives back those not yet taken,
         * which the general selections charge one at a time */
        bool bulk = ctx->cost <= ctx->limit && k <= ctx->limit - ctx->cost;
        if (bulk)
            ctx->cost += k;
        const kg_json *o = t.u.ptr;
        for (;;) {
            path_step *st = (path_step *)&pp->steps[i++];
            if (!bulk)
                cel_charge(ctx, 1);
            const kg_json_member *m = cel_jobj_find_hint(o, st->name, st->len, &st->hint);
            if (!m) {
                /* selecting from the error: 1 unit per remaining step, the error stays */
                if (!bulk)
                    for (; i < k; i++)
                        cel_charge(ctx, 1);
                *v = cel_err(ctx, "no such key: %.*s", (int)st->len, st->name);
                return false;
            }
            const kg_json *c = m->val;
            if (i == k) {
                *end = c;
                return true;
            }
            if (!c || c->type != KG_JSON_OBJECT) {
                if (bulk)
                    ctx->cost -= k - i;
                t = cel_json_wrap(c);
                break;
            }
            o = c;
        }
    }
    for (; i < k; i++)
        t = select_step(ctx, pp->steps[i].node, t);
    *v = t;
    return false;
}

NOINLINE static cel_value eval_path(cel_call_ctx *ctx, const cel_node *n)
{
    const kg_json *end;
    cel_value v;
    if (path_walk(ctx, n, &end, &v))
        return cel_json_wrap(end); /* built in place, not through a variable */
    return v;
}

/* ev out of line: the general way of an operand, kept out of the fast paths' code */
NOINLINE static cel_value ev_call(cel_call_ctx *ctx, const cel_node *n)
{
    return ev(ctx, n);
}

/* a strict two-argument call with a constant second argument through its plan-time candidates (the general way of
 * X_AFFIX / X_MATCHES when the receiver is not a string) */
static inline cel_value call1_apply(cel_call_ctx *ctx, const cel_node *n, cel_value *args, size_t na);
NOINLINE static cel_value call1_const2(cel_call_ctx *ctx, const cel_node *n, const cel_value *a0)
{
    cel_value args[2] = {*a0, n->args[1]->cval};
    return call1_apply(ctx, n, args, 2);
}

/* X_AFFIX / X_MATCHES once the receiver is the string s[0..len): the result (0/1) and its cost, as the standard
 * overloads compute them (startsWith/endsWith: ceil(size(s) / 10), at least 1; matches: ceil((1 + size(s)) / 10)
 * times the pattern's factor, kept in hint) */
__attribute__((always_inline)) static inline int str_pred(cel_call_ctx *ctx, const cel_node *n, const char *s,
                                                          uint32_t len, bool ascii)
{
    /* ascii: s is known to be all ASCII (a JSON string the parser saw plain): its size in code points is len, and
     * the regex need not check its bytes */
    if (n->xk == X_MATCHES) {
        const call1_plan *cp = n->xp;
        bool m = ascii ? cel_regex_partial_match_ascii(cp->c[0].state, s, len)
                       : cel_regex_partial_match(cp->c[0].state, s, len);
        uint64_t c = ceil01(1 + (ascii ? len : cel_utf8_len_i(s, len))) * n->hint;
        cel_charge(ctx, c ? c : 1);
        return m;
    }
    const cel_value *c = &n->args[1]->cval;
    bool r = c->n <= len && kg_bytes_eq(n->xn ? s + len - c->n : s, c->u.s, c->n);
    uint64_t cost = ceil01(ascii ? len : cel_utf8_len_i(s, len));
    cel_charge(ctx, cost ? cost : 1);
    return r;
}

/* a string operand: a path ending on a JSON string gives its bytes without a value being made; otherwise the
 * operand's value is left in *v and false returned when it is not a string */
__attribute__((always_inline)) static inline bool str_operand(cel_call_ctx *ctx, const cel_node *a, cel_value *v,
                                                              const char **s, uint32_t *len)
{
    if (a->xk == X_PATH) {
        const kg_json *end;
        if (path_walk(ctx, a, &end, v)) {
            if (end && end->type == KG_JSON_STRING) {
                *s = end->u.s;
                *len = end->len;
                return true;
            }
            *v = cel_json_wrap(end);
        }
    } else {
        *v = ev_call(ctx, a);
    }
    if (v->kind != CEL_STRING)
        return false;
    *s = v->u.s;
    *len = v->n;
    return true;
}

/* X_IN_CONST: "k" in m; the constant key is evaluated first (no cost), as in the general call */
NOINLINE static cel_value eval_in_const(cel_call_ctx *ctx, const cel_node *n)
{
    cel_value args[2] = {n->args[0]->cval, ev_arg(ctx, n->args[1])};
    if (args[1].kind == CEL_MAP && args[1].aux == &cel_jobj_vt) {
        cel_charge(ctx, 1);
        return cel_bool(cel_jobj_find_hint(args[1].u.ptr, args[0].u.s, args[0].n, (uint32_t *)&n->hint) != NULL);
    }
    return apply_strict(ctx, n, args);
}

/* X_EQ_CONST: x == "s" / x != "s" (the constant on either side) */
NOINLINE static cel_value eval_eq_const(cel_call_ctx *ctx, const cel_node *n)
{
    cel_value args[2];
    size_t ci = n->xn;
    args[ci] = n->args[ci]->cval;
    args[1 - ci] = ev_arg(ctx, n->args[1 - ci]);
    const cel_value *x = &args[1 - ci];
    if (x->kind != CEL_STRING || (x->n > 10 && args[ci].n > 10))
        return apply_strict(ctx, n, args);
    cel_charge(ctx, 1);
    bool e = x->n == args[ci].n && kg_bytes_eq(x->u.s, args[ci].u.s, x->n);
    return cel_bool(n->op == OP_EQ ? e : !e);
}

/* code points of a string: short ones inline */
static inline uint64_t ulen_of(const char *s, size_t n)
{
    return cel_utf8_len_i(s, n);
}

/* n bytes from s to d: short pieces with a few loads and stores inside the n bytes, no call */
static inline void copy_piece(char *d, const char *s, size_t n)
{
    if (n > 16 && n <= 32) {
        uint64_t a, b, c, e;
        memcpy(&a, s, 8);
        memcpy(&b, s + 8, 8);
        memcpy(&c, s + n - 16, 8);
        memcpy(&e, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + 8, &b, 8);
        memcpy(d + n - 16, &c, 8);
        memcpy(d + n - 8, &e, 8);
    } else if (n >= 8 && n <= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n < 4) {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    } else {
        memcpy(d, s, n);
    }
}

/* a + operand: its value in *v (a path that hits all the way to a JSON string gives the string's bytes without the
 * generic wrap), and true with its bytes when it is a string */
/* a concatenation operand's path (plan.c plan_concat_share): like path_fast, but a path that shares its first steps
 * with an earlier operand starts at the node that one reached (mid[from], when its walk got that far: the same
 * node, the base variable and the document being fixed during an evaluation), and a path that an operand after it
 * shares with keeps the node after `save` steps in mid[q] (NULL when its walk does not get there). The charges
 * are path_fast_obj's: the base read and every step, at once, when they fit. */
__attribute__((always_inline)) static inline bool path_fast_cat_memo(cel_call_ctx *ctx, const path_plan *pp,
                                                                     const kg_json **end, const kg_json **mid, size_t q)
{
    const kg_json *o;
    size_t i = 0;
    if (pp->save)
        mid[q] = NULL;
    if (pp->from >= 0 && (o = mid[pp->from]) != NULL) {
        i = pp->from_m;
    } else {
        const cel_value *bv = &ctx->slots[pp->base->slot]; /* a declared variable (plan) */
        if (bv->kind != CEL_MAP || bv->aux != &cel_jobj_vt)
            return false;
        o = bv->u.ptr;
    }
    /* (i > 0 when save is set: with save 0 the write into mid[q] is never read) */
    return path_walk_hinted(ctx, pp, o, i, end, &mid[q], pp->save);
}

__attribute__((always_inline)) static inline bool path_fast_cat(cel_call_ctx *ctx, const path_plan *pp,
                                                                const kg_json **end, const kg_json **mid, size_t q)
{
    if (pp->save || pp->from >= 0)
        return path_fast_cat_memo(ctx, pp, end, mid, q);
    return path_fast(ctx, pp, end);
}

__attribute__((always_inline)) static inline bool str_arg(cel_call_ctx *ctx, const cel_node *a, cel_value *v,
                                                          const char **s, uint32_t *n, const kg_json **mid, size_t q,
                                                          bool want_v)
{
    /* want_v: *v also when the operand is a string (else only when it is not) */
    if (a->xk == X_CONST) {
        if (!want_v && a->cval.kind == CEL_STRING) {
            *s = a->cval.u.s;
            *n = a->cval.n;
            return true;
        }
        *v = a->cval;
    } else {
        const kg_json *end;
        if (a->xk == X_PATH && path_fast_cat(ctx, a->xp, &end, mid, q)) {
            if (end->type == KG_JSON_STRING) {
                *s = end->u.s;
                *n = end->len;
                if (want_v)
                    *v = cel_value_make_(CEL_STRING, end->len, (uint64_t)(uintptr_t)end->u.s, NULL);
                return true;
            }
            *v = cel_json_wrap(end);
        } else {
            *v = ev_call(ctx, a);
        }
    }
    if (v->kind != CEL_STRING)
        return false;
    *s = v->u.s;
    *n = v->n;
    return true;
}

/* X_CONCAT: ((a + b) + c) + ... over xn + 1 operands. While every operand is a string the pieces are only
 * recorded (the charges are those of each +, in the same order) and copied once at the end; at the first operand
 * that is not a string the string so far is built and the remaining + run as general calls. */
__attribute__((always_inline)) static inline cel_value concat_build(cel_call_ctx *ctx, const cel_value *first,
                                                                    const char *const *ps, const uint32_t *pl,
                                                                    size_t np, size_t len)
{
    char *out = kg_arena_alloc(ctx->arena, len + 1), *w = out;
    for (size_t q = 0; q < np; q++) {
        copy_piece(w, ps[q], pl[q]);
        w += pl[q];
    }
    *w = 0;
    return cel_value_with(first, (uint32_t)len, out); /* the header of the leftmost operand, as + keeps it */
}

NOINLINE static cel_value concat_build_call(cel_call_ctx *ctx, const cel_value *first, const char *const *ps,
                                            const uint32_t *pl, size_t np, size_t len)
{
    return concat_build(ctx, first, ps, pl, np, len);
}

/* X_CONCAT's fast form (plan.c cat_fast): every operand a constant string or a path from a variable. The walks
 * (hinted, later paths starting where an earlier one sharing their first steps got: plan_concat_share) and the
 * copies into the arena's free space come first, without side effects; every walk must end on a JSON string. Then
 * the whole cost, the same as the general form's (each path's base read and steps, each + with its size-based
 * part), is charged at once when it fits, and the bytes written are allocated where they are. Anything else (a
 * miss, not a string, not enough room, near the limit) returns false having done nothing, and the general form
 * runs. */
__attribute__((always_inline)) static inline bool concat_fast(cel_call_ctx *ctx, const cat_fast *cf, cel_value *out,
                                                              bool iter)
{
    size_t room, len = 0;
    char *buf = kg_arena_room(ctx->arena, &room);
    uint64_t cost = cf->cost, lu = 0; /* lu: code points so far */
    const kg_json *mid[X_PATH_MAX + 1];
    for (size_t q = 0, np = cf->np; q < np; q++) {
        const cat_piece *c = &cf->p[q];
        const path_plan *pp = c->pp;
        const char *s;
        size_t n;
        if (!pp) {
            s = c->s; /* (16 readable bytes at least: plan.c pads constants) */
            n = c->n;
            if (n <= 16 && room - len > 16) { /* one 16-byte copy; the bytes past n are overwritten or unused */
                memcpy(buf + len, s, 16);
                lu += c->ulen;
                len += n;
                goto charged;
            }
        } else {
            const kg_json *o;
            size_t i = 0, k = pp->k, save = pp->save;
            if (pp->from >= 0) { /* the earlier path's walk got there (or this one would not run) */
                o = mid[pp->from];
                i = pp->from_m;
            } else {
                const cel_node *b = pp->base;
                const cel_value *bv = !iter || b->xk == X_VAR ? &ctx->slots[b->slot] : &ctx->vars[-2 - b->slot].v;
                if (bv->kind != CEL_MAP || bv->aux != &cel_jobj_vt)
                    return false;
                o = bv->u.ptr;
            }
            for (;; i++) {
                if (i == save)
                    mid[q] = o; /* (save 0: written, never read) */
                const kg_json_member *m = hinted_member(o, &pp->steps[i]);
                if (!m)
                    return false;
                o = m->val;
                if (i + 1 == k)
                    break;
                if (!o || o->type != KG_JSON_OBJECT)
                    return false;
            }
            if (!o || o->type != KG_JSON_STRING)
                return false;
            s = o->u.s;
            n = o->len;
            /* code points: the bytes of a string the parser saw as plain ASCII; counted otherwise */
            lu += o->ascii ? n : ulen_of(s, n);
        }
        if (n >= room - len) /* the bytes and the NUL must fit */
            return false;
        copy_piece(buf + len, s, n);
        if (!pp)
            lu += c->ulen;
        len += n;
    charged:
        if (len > 10 && q > 0) {
            uint64_t u = ceil01(lu); /* the + joining this operand: ceil(code points / 10) in all, at least 1 */
            if (u > 1)
                cost += u - 1;
        }
    }
    uint64_t nc;
    if (__builtin_add_overflow(ctx->cost, cost, &nc) || nc > ctx->limit)
        return false;
    buf[len] = 0;
    if (!kg_arena_commit(ctx->arena, len + 1))
        return false;
    ctx->cost = nc;
    *out = cel_value_make_(CEL_STRING, (uint32_t)len, (uint64_t)(uintptr_t)buf, NULL);
    return true;
}

NOINLINE static cel_value eval_concat(cel_call_ctx *ctx, const cel_node *n)
{
    /* adds[j] combines the result so far with ops[j + 1] (adds[j]->args[1]); ops[0] is the leftmost operand. The
     * plan lists both for the top of a chain (plan.c); a + inside a chain reached on its own walks down here. */
    size_t k = n->xn;
    const cel_node *const *adds, *const *ops;
    const cel_node *abuf[X_PATH_MAX], *obuf[X_PATH_MAX + 1];
    if (n->xp) {
        const cat_chain *ch = n->xp;
        cel_value r;
        if (ch->fast && concat_fast(ctx, ch->fast, &r, true))
            return r;
        adds = ch->nodes;
        ops = adds + k;
    } else {
        const cel_node *s = n;
        for (size_t i = k; i > 0; i--) {
            abuf[i - 1] = s;
            obuf[i] = s->args[1];
            s = s->args[0];
        }
        obuf[0] = s;
        adds = abuf;
        ops = obuf;
    }
    cel_value first, acc;
    const kg_json *mid[X_PATH_MAX + 1]; /* nodes kept by paths for later ones (path_fast_cat) */
    const char *ps[X_PATH_MAX + 1];
    uint32_t pl[X_PATH_MAX + 1];
    size_t j = 0;
    if (!str_arg(ctx, ops[0], &first, &ps[0], &pl[0], mid, 0, true)) {
        acc = first;
        goto general;
    }
    size_t np = 1, len = pl[0];
    uint64_t ulen = 0; /* code points so far, known once a cost needed them (then len > 10 for good) */
    bool ulen_ok = false;
    for (; j < k; j++) {
        cel_value b;
        const char *bs;
        uint32_t bn;
        bool is_str = str_arg(ctx, ops[j + 1], &b, &bs, &bn, mid, j + 1, false);
        cel_charge(ctx, 1);
        if (!is_str) {
            /* build the string so far, continue generally with b */
            acc = np > 1 ? concat_build_call(ctx, &first, ps, pl, np, len) : first;
            acc = arith(ctx, adds[j], &acc, &b);
            j++;
            goto general;
        }
        if (len + bn > 10) {
            if (!ulen_ok) {
                for (size_t q = 0; q < np; q++)
                    ulen += ulen_of(ps[q], pl[q]);
                ulen_ok = true;
            }
            uint64_t ub = ulen_of(bs, bn);
            uint64_t c = ceil01(ulen + ub);
            if (c > 1)
                cel_charge(ctx, c - 1);
            ulen += ub;
        }
        ps[np] = bs;
        pl[np] = bn;
        np++;
        len += bn;
    }
    return concat_build(ctx, &first, ps, pl, np, len);
general:
    for (; j < k; j++) {
        cel_value b = ev_arg(ctx, ops[j + 1]);
        cel_charge(ctx, 1);
        acc = arith(ctx, adds[j], &acc, &b);
    }
    return acc;
}

/* X_CALL1: the candidates are tried in the overload search's order with the same argument checks; when none
 * accepts the values the search itself runs (and reports exactly as before) */
static inline bool cand_accepts(const call_cand *cc, const cel_value *args, size_t na)
{
    for (size_t i = 0; i < na; i++) {
        uint8_t k = cc->kind[i];
        if (k == CALL1_ANY || args[i].kind == k)
            continue;
        if (args[i].kind == CEL_ERROR && (cc->o->flags & CEL_FN_NONSTRICT))
            continue;
        if (k == CALL1_CHECK && cel_value_matches_type(&args[i], cc->o->args[i]))
            continue;
        return false;
    }
    return true;
}

NOINLINE static cel_value eval_call1(cel_call_ctx *ctx, const cel_node *n)
{
    size_t na = n->nargs;
    cel_value args[8];
    for (size_t i = 0; i < na; i++)
        args[i] = ev_arg(ctx, n->args[i]);
    return call1_apply(ctx, n, args, na);
}

/* X_AFFIX: x.startsWith("c") / x.endsWith("c") resolved to the standard overload: the same result and cost
 * (ceil(size(x) / 10), at least 1) without the call machinery; anything but a string receiver goes the X_CALL1 way */
__attribute__((always_inline)) static inline int affix_core(cel_call_ctx *ctx, const cel_node *n, cel_value *out)
{
    cel_value args[2];
    const char *s;
    uint32_t len;
    if (!str_operand(ctx, n->args[0], &args[0], &s, &len)) {
        *out = call1_const2(ctx, n, &args[0]);
        return 2;
    }
    return str_pred(ctx, n, s, len, false);
}

/* X_SIZE: when a candidate accepts the argument's kind, the standard size (the implementation every candidate has)
 * with cost 1; anything else goes the X_CALL1 way */
/* X_SIZE once the argument's value a0 is known */
NOINLINE static cel_value eval_size_val(cel_call_ctx *ctx, const cel_node *n, cel_value a0)
{
    cel_value args[1] = {a0};
    const call1_plan *cp = n->xp;
    uint8_t k = args[0].kind;
    for (size_t c = 0; c < cp->nc; c++)
        if (cp->c[c].kind[0] == k || cp->c[c].kind[0] == CALL1_ANY) {
            int64_t r;
            switch (k) {
            case CEL_STRING: r = (int64_t)cel_utf8_len_i(args[0].u.s, args[0].n); break;
            case CEL_BYTES: r = (int64_t)args[0].n; break;
            case CEL_LIST:
            case CEL_MAP:
                /* JSON arrays and objects: the node's length */
                if (args[0].aux == &cel_jarr_vt || args[0].aux == &cel_jobj_vt)
                    r = (int64_t)((const kg_json *)args[0].u.ptr)->len;
                else
                    r = (int64_t)(k == CEL_LIST ? cel_list_size(&args[0]) : cel_map_size(&args[0]));
                break;
            default: return call1_apply(ctx, n, args, 1);
            }
            cel_charge(ctx, 1);
            return cel_int(r);
        }
    return call1_apply(ctx, n, args, 1);
}

NOINLINE static cel_value eval_size(cel_call_ctx *ctx, const cel_node *n)
{
    return eval_size_val(ctx, n, ev_arg(ctx, n->args[0]));
}

/* does a candidate of X_SIZE n accept an argument of kind k? */
static inline bool size_accepts(const cel_node *n, uint8_t k)
{
    const call1_plan *cp = n->xp;
    for (size_t c = 0; c < cp->nc; c++)
        if (cp->c[c].kind[0] == k || cp->c[c].kind[0] == CALL1_ANY)
            return true;
    return false;
}

/* an operand of a comparison: size(path) of a path that hits all the way to a JSON array or object is its length
 * (cost 1), computed here; the rest as ev_arg */
__attribute__((always_inline)) static inline cel_value cmp_operand(cel_call_ctx *ctx, const cel_node *a)
{
    if (a->xk == X_SIZE && a->args[0]->xk == X_PATH) {
        const kg_json *end;
        if (path_fast(ctx, a->args[0]->xp, &end)) {
            uint8_t k = end->type == KG_JSON_ARRAY ? CEL_LIST : end->type == KG_JSON_OBJECT ? CEL_MAP : 0;
            if (k && size_accepts(a, k)) {
                cel_charge(ctx, 1);
                return cel_int((int64_t)end->len);
            }
            return eval_size_val(ctx, a, cel_json_wrap(end));
        }
    }
    return ev_arg(ctx, a);
}

/* X_MATCHES: the standard matches with its precompiled regex; cost ceil((1 + size(s)) / 10) * the pattern's factor
 * (hint), as cost_matches computes it; anything but a string goes the X_CALL1 way */
__attribute__((always_inline)) static inline int matches_core(cel_call_ctx *ctx, const cel_node *n, cel_value *out)
{
    cel_value args[2];
    const char *s;
    uint32_t len;
    if (!str_operand(ctx, n->args[0], &args[0], &s, &len)) {
        *out = call1_const2(ctx, n, &args[0]);
        return 2;
    }
    return str_pred(ctx, n, s, len, false);
}

NOINLINE static cel_value eval_matches(cel_call_ctx *ctx, const cel_node *n)
{
    cel_value v;
    int b = matches_core(ctx, n, &v);
    return b < 2 ? cel_bool(b) : v;
}

NOINLINE static int evb_matches(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    int b = matches_core(ctx, n, v);
    return b < 2 ? b : classify(v);
}

NOINLINE static cel_value eval_affix(cel_call_ctx *ctx, const cel_node *n)
{
    cel_value v;
    int b = affix_core(ctx, n, &v);
    return b < 2 ? cel_bool(b) : v;
}

NOINLINE static int evb_affix(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    int b = affix_core(ctx, n, v);
    return b < 2 ? b : classify(v);
}

__attribute__((always_inline)) static inline cel_value call1_apply(cel_call_ctx *ctx, const cel_node *n,
                                                                   cel_value *args, size_t na)
{
    const call1_plan *cp = n->xp;
    for (size_t c = 0; c < cp->nc; c++) {
        const call_cand *cc = &cp->c[c];
        if (!cand_accepts(cc, args, na))
            continue;
        const cel_overload *o = cc->o;
        const cel_overload *saved = ctx->cur_ovl;
        void *saved_st = ctx->cur_state;
        ctx->cur_ovl = o;
        ctx->cur_state = cc->state;
        cel_value r = o->impl(ctx, args, na);
        ctx->cur_ovl = saved;
        ctx->cur_state = saved_st;
        cel_charge(ctx, o->cost ? o->cost(ctx, args, na, &r) : 1);
        return r;
    }
    return generic_call(ctx, n, args, na);
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
    if (n->xk == X_CONST)
        return n->cval;
    if (n->xk == X_PATH) {
        /* a path that hits all the way: walked here, the value made in the caller's registers */
        const kg_json *end;
        if (path_fast(ctx, n->xp, &end))
            return cel_json_wrap(end);
    }
    return ev(ctx, n);
}

/* ---- bool context: results in a register instead of a 24-byte value through memory ----
 * evb evaluates n exactly as ev does and returns 0/1 when the result is a bool, else 2 with the value in *v. Used
 * where the consumer branches on bools: the whole program, all()/exists() predicates, &&, ||, !, ?: conditions. */
static inline int classify(const cel_value *v)
{
    return v->kind == CEL_BOOL ? (int)v->u.b : 2;
}

NOINLINE static int evb_eq_const(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    /* (the operand is evaluated straight into the argument array: copied whole as it was stored, never split) */
    size_t ci = n->xn;
    cel_value args[2];
    args[1 - ci] = ev_arg(ctx, n->args[1 - ci]);
    const cel_value *c = &n->args[ci]->cval, *x = &args[1 - ci];
    if (x->kind == CEL_STRING && !(x->n > 10 && c->n > 10)) {
        cel_charge(ctx, 1);
        bool e = x->n == c->n && kg_bytes_eq(x->u.s, c->u.s, x->n);
        return n->op == OP_EQ ? e : !e;
    }
    args[ci] = *c;
    *v = apply_strict(ctx, n, args);
    return classify(v);
}

/* "k" in m once m's value is known (not a JSON object reached by a path) */
NOINLINE static int evb_in_const_val(cel_call_ctx *ctx, const cel_node *n, cel_value m, cel_value *v)
{
    const cel_value *k = &n->args[0]->cval;
    if (m.kind == CEL_MAP && m.aux == &cel_jobj_vt) {
        cel_charge(ctx, 1);
        return cel_jobj_find_hint(m.u.ptr, k->u.s, k->n, (uint32_t *)&n->hint) != NULL;
    }
    cel_value args[2] = {*k, m};
    *v = apply_strict(ctx, n, args);
    return classify(v);
}

NOINLINE static int evb_in_const_slow(cel_call_ctx *ctx, const cel_node *n, cel_value *v);

/* X_IN_CONST in a bool context: a path operand that hits all the way (path_fast) to a JSON object is looked up
 * here; anything else goes out of line (from the start when nothing was done yet) */
NOINLINE static int evb_in_const(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    const cel_node *a = n->args[1];
    const kg_json *end;
    if (a->xk == X_PATH && path_fast(ctx, a->xp, &end)) {
        if (end->type == KG_JSON_OBJECT) {
            const cel_value *k = &n->args[0]->cval;
            cel_charge(ctx, 1);
            return cel_jobj_find_hint(end, k->u.s, k->n, (uint32_t *)&n->hint) != NULL;
        }
        return evb_in_const_val(ctx, n, cel_json_wrap(end), v);
    }
    return evb_in_const_slow(ctx, n, v);
}

static int evb_in_const_slow(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    cel_value args[2];
    const cel_value *k = &n->args[0]->cval;
    if (n->args[1]->xk == X_PATH) {
        /* a path operand on JSON: the key is looked up in the object at its end, no value made for it */
        const kg_json *end;
        if (path_walk_slow(ctx, n->args[1], &end, &args[1])) {
            if (end && end->type == KG_JSON_OBJECT) {
                cel_charge(ctx, 1);
                return cel_jobj_find_hint(end, k->u.s, k->n, (uint32_t *)&n->hint) != NULL;
            }
            args[1] = cel_json_wrap(end);
        }
    } else {
        args[1] = ev(ctx, n->args[1]);
    }
    if (args[1].kind == CEL_MAP && args[1].aux == &cel_jobj_vt) {
        cel_charge(ctx, 1);
        return cel_jobj_find_hint(args[1].u.ptr, k->u.s, k->n, (uint32_t *)&n->hint) != NULL;
    }
    args[0] = *k;
    *v = apply_strict(ctx, n, args);
    return classify(v);
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
    return evb_has_slow(ctx, n, v);
}

static int evb_has_slow(cel_call_ctx *ctx, const cel_node *n, cel_value *v)
{
    cel_value t;
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
    } else {
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
    if (__builtin_expect(p->root->xk == X_CONCAT, 0)) {
        /* a value at the root (a string built by +): straight to it, not through the bool dispatch */
        *result = eval_concat(&ctx, p->root);
        b = 2;
    } else {
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

/* The bool fast forms of a root made only of them (plan.c fast_bool: && / || of comparisons of ints from paths,
 * size(path) and constants, string equality with a constant, startsWith/endsWith/matches, "k" in path, has(path.f),
 * all()/exists() of k == "c" over a path, every path from a declared variable): the same answers and charges as the
 * general evaluation when every path hits all the way on the JSON document and its end has the expected type. Charges
 * add up in the local context (no jump target: jb is NULL); -1 when some node is not in its fast shape at run time (a
 * miss, another type, a path that would cross the limit), and the general evaluation then runs from the start (nothing
 * was done but those charges and member hints). */
__attribute__((always_inline)) static inline bool fast_int(cel_call_ctx *ctx, const cel_node *a, int64_t *out)
{
    const kg_json *end;
    switch (a->xk) {
    case X_CONST: *out = a->cval.u.i; return true; /* (an int: plan.c) */
    case X_PATH:
        if (!path_fast(ctx, a->xp, &end) || end->type != KG_JSON_INT)
            return false;
        *out = end->u.i;
        return true;
    case X_SIZE: { /* as cmp_operand */
        if (!path_fast(ctx, a->args[0]->xp, &end))
            return false;
        uint8_t k = end->type == KG_JSON_ARRAY ? CEL_LIST : end->type == KG_JSON_OBJECT ? CEL_MAP : 0;
        if (!k || !size_accepts(a, k))
            return false;
        cel_charge(ctx, 1);
        *out = (int64_t)end->len;
        return true;
    }
    }
    return false;
}

/* a path from a declared variable ending on a JSON value of type t (charged), else NULL */
__attribute__((always_inline)) static inline const kg_json *fast_end(cel_call_ctx *ctx, const cel_node *a, uint8_t t)
{
    const kg_json *end;
    return path_fast(ctx, a->xp, &end) && end->type == t ? end : NULL;
}

NOINLINE static int fast_bool(cel_call_ctx *ctx, const cel_node *n);

/* one node (inline at the root; the operands of && / || through fast_bool) */
__attribute__((always_inline)) static inline int fast_bool_at(cel_call_ctx *ctx, const cel_node *n)
{
    const kg_json *end;
    switch (n->xk) {
    case X_CONST: return n->cval.u.b; /* (a bool: plan.c) */
    case X_ANDOR: {                   /* as evb_and_or: the right side only when the left one does not decide */
        int l = fast_bool(ctx, n->args[0]);
        if (l < 0 || l != (n->op == OP_AND))
            return l;
        return fast_bool(ctx, n->args[1]);
    }
    case X_COMPARE: { /* as evb_compare on two ints */
        int64_t a, b;
        if (!fast_int(ctx, n->args[0], &a) || !fast_int(ctx, n->args[1], &b))
            return -1;
        cel_charge(ctx, 1);
        switch ((opcode)n->op) {
        case OP_LT: return a < b;
        case OP_LE: return a <= b;
        case OP_GT: return a > b;
        default: return a >= b;
        }
    }
    case X_EQ_CONST: { /* as evb_eq_const on a string */
        const cel_value *c = &n->args[n->xn]->cval;
        if (!(end = fast_end(ctx, n->args[1 - n->xn], KG_JSON_STRING)) || (end->len > 10 && c->n > 10))
            return -1;
        cel_charge(ctx, 1);
        bool e = end->len == c->n && kg_bytes_eq(end->u.s, c->u.s, c->n);
        return n->op == OP_EQ ? e : !e;
    }
    case X_AFFIX:
    case X_MATCHES:
        if (!(end = fast_end(ctx, n->args[0], KG_JSON_STRING)))
            return -1;
        return str_pred(ctx, n, end->u.s, end->len, end->ascii);
    case X_IN_CONST: { /* as evb_in_const on a JSON object */
        if (!(end = fast_end(ctx, n->args[1], KG_JSON_OBJECT)))
            return -1;
        const cel_value *k = &n->args[0]->cval;
        cel_charge(ctx, 1);
        return cel_jobj_find_hint(end, k->u.s, k->n, (uint32_t *)&n->hint) != NULL;
    }
    case X_COMPR: { /* as evb_compr_eq's key loop: all()/exists() of k == "c" over a JSON object's keys or array */
        const kg_json *rj;
        if (!lean_range(ctx, n->range->xp, &rj) || (rj->type != KG_JSON_OBJECT && rj->type != KG_JSON_ARRAY))
            return -1;
        return compr_eq_keys(ctx, n, rj);
    }
    case X_HAS: /* as evb_has on a JSON object */
        if (!(end = fast_end(ctx, n->target, KG_JSON_OBJECT)))
            return -1;
        if (ctx->presence_cost)
            cel_charge(ctx, 1);
        return cel_jobj_find_hint(end, n->name, (uint32_t)n->name_len, (uint32_t *)&n->hint) != NULL;
    }
    return -1;
}

static int fast_bool(cel_call_ctx *ctx, const cel_node *n)
{
    return fast_bool_at(ctx, n);
}

/* Roots whose fast forms need no jump target for the cost limit (plan.c sets root_fast): a concatenation of
 * constants and paths from declared variables (concat_fast), and the bool fast forms above (fast_bool). Their work is
 * bounded by the paths and strings involved, so running on past the limit is harmless: a result over the limit, like
 * any other miss, goes to the general evaluation, which stops at the exact charge and reports it (a tail call, so
 * cel_eval itself keeps no registers). */
/* the general evaluation after a fast form missed: over the activation, or one made here over the slots */
__attribute__((noinline)) static cel_eval_status eval_root_missed(const cel_program *p, cel_activation *act,
                                                                  cel_value *slots, kg_arena *arena,
                                                                  uint64_t cost_limit, cel_value *result,
                                                                  uint64_t *cost)
{
    if (act)
        return eval_general(p, act, cost_limit, result, cost);
    cel_activation a = {.env = p->env, .arena = arena, .slots = slots, .nslots = p->nslots};
    return eval_general(p, &a, cost_limit, result, cost);
}

__attribute__((always_inline)) static inline cel_eval_status eval_root_concat_in(const cel_program *p,
                                                                                 cel_activation *act, cel_value *slots,
                                                                                 kg_arena *arena, uint64_t cost_limit,
                                                                                 cel_value *result, uint64_t *cost)
{
    cel_call_ctx ctx = {.arena = arena, .act = act, .slots = slots, .limit = cost_limit}; /* no jump target */
    if (!concat_fast(&ctx, ((const cat_chain *)p->root->xp)->fast, result, false))
        return eval_root_missed(p, act, slots, arena, cost_limit, result, cost);
    if (cost)
        *cost = ctx.cost;
    return CEL_EVAL_OK;
}
NOINLINE static cel_eval_status eval_root_concat(const cel_program *p, cel_activation *act, cel_value *slots,
                                                 kg_arena *arena, uint64_t cost_limit, cel_value *result,
                                                 uint64_t *cost)
{
    return eval_root_concat_in(p, act, slots, arena, cost_limit, result, cost);
}
/* the same without an activation, with cel_eval_slots' own arguments (it jumps here) */
NOIPA static cel_eval_status eval_root_concat_slots(const cel_program *p, kg_arena *arena, cel_value *slots, size_t n,
                                                    uint64_t cost_limit, cel_value *result, uint64_t *cost)
{
    (void)n;
    return eval_root_concat_in(p, NULL, slots, arena, cost_limit, result, cost);
}

__attribute__((always_inline)) static inline cel_eval_status eval_root_bool_in(const cel_program *p,
                                                                               cel_activation *act, cel_value *slots,
                                                                               kg_arena *arena, uint64_t cost_limit,
                                                                               cel_value *result, uint64_t *cost)
{
    cel_call_ctx ctx = {
        .arena = arena, .act = act, .slots = slots, .limit = cost_limit, .presence_cost = p->has_presence_cost};
    int b = fast_bool_at(&ctx, p->root);
    if (b < 0 || ctx.cost > ctx.limit)
        return eval_root_missed(p, act, slots, arena, cost_limit, result, cost);
    *result = cel_bool(b);
    if (cost)
        *cost = ctx.cost;
    return CEL_EVAL_OK;
}
NOINLINE static cel_eval_status eval_root_bool(const cel_program *p, cel_activation *act, cel_value *slots,
                                               kg_arena *arena, uint64_t cost_limit, cel_value *result, uint64_t *cost)
{
    return eval_root_bool_in(p, act, slots, arena, cost_limit, result, cost);
}
/* the same without an activation, with cel_eval_slots' own arguments (it jumps here) */
NOIPA static cel_eval_status eval_root_bool_slots(const cel_program *p, kg_arena *arena, cel_value *slots, size_t n,
                                                  uint64_t cost_limit, cel_value *result, uint64_t *cost)
{
    (void)n;
    return eval_root_bool_in(p, NULL, slots, arena, cost_limit, result, cost);
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
    if (n >= p->nslots) {
        if (p->root_fast == ROOT_FAST_BOOL)
            return eval_root_bool_slots(p, arena, slots, n, cost_limit, result, cost);
        if (p->root_fast == ROOT_FAST_CONCAT)
            return eval_root_concat_slots(p, arena, slots, n, cost_limit, result, cost);
    }
    return eval_slots_general(p, arena, slots, n, cost_limit, result, cost);
}

cel_eval_status cel_eval(const cel_program *p, cel_activation *act, uint64_t cost_limit, cel_value *result,
                         uint64_t *cost)
{
    if (__builtin_expect(act->env != p->env || act->nslots < p->nslots, 0))
        return eval_unusual_activation(p, act, cost_limit, result, cost);
    if (p->root_fast == ROOT_FAST_BOOL)
        return eval_root_bool(p, act, act->slots, act->arena, cost_limit, result, cost);
    if (p->root_fast == ROOT_FAST_CONCAT)
        return eval_root_concat(p, act, act->slots, act->arena, cost_limit, result, cost);
    return eval_general(p, act, cost_limit, result, cost);
}
