/* The planned forms of the CEL evaluator: what eval.c runs for the nodes plan.c marked (cel_node.xk, xn, xf, xv,
 * xp; see plan.c and cel_internal.h), and the fast root forms cel_eval / cel_eval_slots jump to (program.root_fast).
 *
 * This file is not compiled on its own: eval.c includes it at its end (when KGATE_CEL_PLANNER is on), so these
 * forms call the interpreter's static functions (ev, evb, apply_strict, generic_call, select_field, ...) and are
 * inlined into it as they were before the split; eval.c declares the entry points it hands nodes to. Built with
 * -DKGATE_CEL_PLANNER=OFF, neither this file nor plan.c is part of the build and eval.c's plain interpreter runs
 * every node.
 *
 * The contract of every form here: the same value, the same errors and the same charges, in the same order, as the
 * plain evaluation of the same nodes (tests/cel/test_cel_plan.c compares planned and unplanned programs under every
 * cost limit). Contents, in order:
 *   - fused all()/exists() loops over JSON arrays and objects (fpred*, pred_loop_fused, compr_lean, evb_compr_*)
 *   - X_PATH: chains of selections walked on the JSON DOM with member-index hints (path_fast, path_walk*)
 *   - string forms: "k" in m, x == "s", concatenation chains, startsWith/endsWith/matches, size(), X_CALL1 calls
 *   - `x == "s"` and `"k" in m` in a bool context (evb_eq_const, evb_in_const)
 *   - root forms without a jump target for the cost limit (fast_bool, eval_root_concat / eval_root_bool) */
#ifndef KG_CEL_EVAL_FAST_INCLUDED_BY_EVAL_C
#error "eval_fast.c is part of eval.c (included at its end), not a translation unit of its own"
#endif

#include "cel/regex/cel_regex.h"

__attribute__((always_inline)) static inline bool path_fast_obj(cel_call_ctx *ctx, const path_plan *pp,
                                                                const kg_json *o, const kg_json **end);
__attribute__((always_inline)) static inline bool lean_range(cel_call_ctx *ctx, const path_plan *pp,
                                                             const kg_json **rj);
__attribute__((always_inline)) static inline bool path_fast(cel_call_ctx *ctx, const path_plan *pp,
                                                            const kg_json **end);
static inline int str_pred(cel_call_ctx *ctx, const cel_node *n, const char *s, uint32_t len, bool ascii);
NOINLINE static cel_value call1_const2(cel_call_ctx *ctx, const cel_node *n, const cel_value *a0);

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

/* compr_core's hooks (eval.c) */

/* the range of a comprehension when it is a planned path that hits all the way: JSON arrays and objects are the
 * usual ranges; false having done nothing otherwise */
__attribute__((always_inline)) static inline bool planned_range(cel_call_ctx *ctx, const cel_node *r, cel_value *range)
{
    const kg_json *rjn;
    if (r->xk != X_PATH || !path_fast(ctx, r->xp, &rjn))
        return false;
    if (rjn->type == KG_JSON_ARRAY)
        *range = cel_value_make_(CEL_LIST, rjn->len, (uint64_t)(uintptr_t)rjn, &cel_jarr_vt);
    else if (rjn->type == KG_JSON_OBJECT)
        *range = cel_value_make_(CEL_MAP, rjn->len, (uint64_t)(uintptr_t)rjn, &cel_jobj_vt);
    else
        *range = cel_json_wrap(rjn);
    return true;
}

/* all()/exists() with the plan's fused predicate form fuse (2 / 3 / 4, a constant in each instantiation): the loop
 * over a JSON range when it applies (true, the accumulator in *ab / *av), else false having done nothing */
__attribute__((always_inline)) static inline bool fused_loop(cel_call_ctx *ctx, const cel_node *n, cel_value range,
                                                             compr_frame *fr, int *ab, cel_value *av, int fuse)
{
    const cel_node *pred = n->target;
    if (fuse == 2 && (range.aux == &cel_jobj_vt || range.aux == &cel_jarr_vt) &&
        &ctx->vars[-2 - pred->args[1 - pred->xn]->slot] == &fr[0]) {
        pred_loop_fused(ctx, n, range.u.ptr, fr, ab, av, 2);
        return true;
    }
    if (fuse == 3 && range.aux == &cel_jarr_vt) {
        pred_loop_fused(ctx, n, range.u.ptr, fr, ab, av, 3);
        return true;
    }
    if (fuse == 4 && range.aux == &cel_jarr_vt) {
        pred_loop_fused(ctx, n, range.u.ptr, fr, ab, av, 4);
        return true;
    }
    return false;
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
