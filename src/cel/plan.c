/* Planning: the last compile step, after checking and call preparation. It marks nodes the evaluator runs in a
 * fused form (cel_node.xk, see cel_internal.h): chains of field selections walked on the JSON DOM, `"k" in m` and
 * `x == "s"` with a constant string, string concatenation chains, calls with a single candidate overload, and gives
 * the other node kinds the evaluator dispatches on a code of their own (&&/||, comparisons, has(), comprehensions).
 * all()/exists() whose predicate works on the iteration variable get a fused loop (cel_node.xn 2..4, predicate nodes
 * tagged in cel_node.xf; NF_LEAN when the range is a path from a declared variable and the initial accumulator a
 * constant bool; cel_node.xv the frame the fused test reads). The top of a concatenation chain lists its + nodes and
 * operands, and marks operand paths from the same declared variable that share their first steps (the later walk
 * starts where the earlier one got). Every planned form gives the same values, errors and costs (charged in the same
 * order) as evaluating the nodes one at a time; tests/cel/test_cel_plan.c checks this against unplanned programs under
 * every cost limit. One walk over the tree; one small allocation per planned call or path. The evaluator's side of
 * each form is in eval_fast.c. Built only with KGATE_CEL_PLANNER (the default): without it no node is planned and
 * eval.c's plain interpreter runs every node. */
#include "cel/cel_internal.h"

static bool is_plain_select(const cel_node *n)
{
    return n->kind == N_SELECT && !(n->flags & NF_TEST_ONLY);
}

static bool is_const_string(const cel_node *n)
{
    return n->kind == N_CONST && n->cval.kind == CEL_STRING;
}

/* a reference to the comprehension variable in frame slot `slot` (resolve.c) */
static bool is_var_slot(const cel_node *v, int slot)
{
    return v->kind == N_IDENT && v->slot == slot;
}

/* a planned path (X_PATH) that starts at the comprehension variable in frame slot `var` */
static bool path_from(const cel_node *a, int var)
{
    return a && a->xk == X_PATH && is_var_slot(((const path_plan *)a->xp)->base, var);
}

/* the path operand of a tagged leaf */
static const cel_node *leaf_path(const cel_node *p)
{
    switch (p->xf & F_KIND) {
    case F_HAS: return p->target;
    case F_IN: return p->args[1];
    case F_STR: return p->args[0];
    default: return p->args[1 - p->xn]; /* F_EQ */
    }
}

/* Tag the nodes of an all()/exists() predicate that can run in place per element (cel_node.xf); returns whether p
 * got a tag. Nested comprehensions are not entered (their variables shadow by name). */
static bool fuse_tag(cel_node *p, int var)
{
    if (p->xk == X_ANDOR) {
        bool l = fuse_tag(p->args[0], var), r = fuse_tag(p->args[1], var);
        if (l || r)
            p->xf = F_ANDOR;
        /* has(P.f) && g(P.f ...): g's path is P.f itself: it may end where the has() found f */
        cel_node *h = p->args[0], *g = p->args[1];
        if (h->xf == F_HAS && g->xf != F_NONE && g->xf != F_ANDOR) {
            const path_plan *hp = h->target->xp, *gp = leaf_path(g)->xp;
            bool same = gp->k == hp->k + 1 && gp->steps[hp->k].len == h->name_len &&
                        !memcmp(gp->steps[hp->k].name, h->name, h->name_len);
            for (size_t i = 0; same && i < hp->k; i++)
                same = gp->steps[i].len == hp->steps[i].len &&
                       !memcmp(gp->steps[i].name, hp->steps[i].name, hp->steps[i].len);
            if (same)
                g->xf |= F_REUSE;
        }
        return l || r;
    }
    if (p->xk == X_HAS && path_from(p->target, var))
        p->xf = F_HAS;
    else if (p->xk == X_IN_CONST && path_from(p->args[1], var))
        p->xf = F_IN;
    else if ((p->xk == X_AFFIX || p->xk == X_MATCHES) && path_from(p->args[0], var))
        p->xf = F_STR;
    else if (p->xk == X_EQ_CONST && path_from(p->args[1 - p->xn], var))
        p->xf = F_EQ;
    return p->xf != F_NONE;
}

static bool is_add(const cel_node *n)
{
    return n->kind == N_CALL && n->op == OP_ADD && n->nargs == 2 && !(n->flags & NF_APPEND_ACCU);
}

/* the value kind a signature type admits, when that is the whole check (cel_value_matches_type) */
static uint8_t kind_for(const cel_type *t)
{
    switch (t->kind) {
    case CEL_T_DYN:
    case CEL_T_PARAM:
    case CEL_T_ANY:
    case CEL_T_ERROR: return CALL1_ANY;
    case CEL_T_NULL: return CEL_NULL;
    case CEL_T_BOOL: return CEL_BOOL;
    case CEL_T_INT: return CEL_INT;
    case CEL_T_UINT: return CEL_UINT;
    case CEL_T_DOUBLE: return CEL_DOUBLE;
    case CEL_T_STRING: return CEL_STRING;
    case CEL_T_BYTES: return CEL_BYTES;
    case CEL_T_LIST: return CEL_LIST;
    case CEL_T_MAP:
    case CEL_T_OBJECT: return CEL_MAP;
    case CEL_T_TYPE: return CEL_TYPE;
    case CEL_T_TIMESTAMP: return CEL_TIMESTAMP;
    case CEL_T_DURATION: return CEL_DURATION;
    case CEL_T_OPTIONAL: return CEL_OPTIONAL;
    default: return CALL1_CHECK;
    }
}

/* a call the general evaluator sends straight to the overload search: its candidates (at most 8) are listed in the
 * search's order, without those it skips whatever the argument values (no implementation, other arity or style) */
static void plan_call1(kg_arena *a, cel_node *n)
{
    if ((n->op != OP_FUNC && n->op != OP_NONE) || !n->fn || n->nargs > 8)
        return;
    const cel_func *f = n->fn;
    size_t nc = n->cands ? n->ncands : f->novl;
    if (nc == 0 || nc > 8)
        return;
    bool member = (n->flags & NF_MEMBER) != 0;
    call1_plan *cp = kg_arena_alloc(a, sizeof *cp + nc * sizeof(call_cand));
    cp->nc = 0;
    for (size_t c = 0; c < nc; c++) {
        size_t k = n->cands ? n->cands[c] : c;
        const cel_overload *o = &f->ovls[k];
        if (!o->impl || o->nargs != n->nargs || ((o->flags & CEL_FN_MEMBER) != 0) != member)
            continue;
        call_cand *cc = &cp->c[cp->nc++];
        memset(cc, 0, sizeof *cc);
        cc->o = o;
        cc->state = n->states ? n->states[k] : NULL;
        for (size_t i = 0; i < n->nargs; i++)
            cc->kind[i] = kind_for(o->args[i]);
    }
    if (cp->nc == 0)
        return;
    n->xp = cp;
    n->xk = X_CALL1;
    /* size(x) / x.size(): every candidate is the standard overload (one implementation for strings, bytes, lists
     * and maps, cost 1) and checks only the argument's kind */
    bool all_size = n->nargs == 1;
    for (size_t c = 0; c < cp->nc && all_size; c++)
        all_size = cp->c[c].o->impl == cel_std_size && !cp->c[c].o->cost && cp->c[c].kind[0] != CALL1_CHECK &&
                   !(cp->c[c].o->flags & CEL_FN_NONSTRICT);
    if (all_size) {
        n->xk = X_SIZE;
        return;
    }
    /* matches with a constant pattern compiled by the prepare hook: the pattern's cost factor is computed here */
    const cel_overload *o0 = cp->c[0].o;
    if (cp->nc == 1 && n->nargs == 2 && is_const_string(n->args[1]) && o0->impl == cel_std_matches &&
        o0->cost == cel_std_cost_matches && cp->c[0].state && cp->c[0].kind[0] == CEL_STRING &&
        cp->c[0].kind[1] == CEL_STRING) {
        const cel_value *pat = &n->args[1]->cval;
        uint64_t b = (cel_utf8_len(pat->u.s, pat->n) + 3) / 4;
        if (b <= UINT32_MAX) {
            n->xk = X_MATCHES;
            n->hint = (uint32_t)(b ? b : 1);
            return;
        }
    }
    /* x.startsWith("c") / x.endsWith("c") with the standard overload only */
    const cel_overload *o = cp->c[0].o;
    if (cp->nc == 1 && n->nargs == 2 && member && is_const_string(n->args[1]) && o->cost == cel_std_cost_arg0_01 &&
        (o->impl == cel_std_starts_with || o->impl == cel_std_ends_with) && cp->c[0].kind[0] == CEL_STRING &&
        cp->c[0].kind[1] == CEL_STRING) {
        n->xk = X_AFFIX;
        n->xn = o->impl == cel_std_ends_with;
    }
}

/* The operands of the concatenation chain ending at n (planned) that are paths from the same declared variable
 * and share their first m steps (m less than either path's length): the later path starts its walk at the node the
 * earlier one reached after m steps (eval_fast.c path_fast_cat). An operand that starts from another keeps no node for
 * later ones; an earlier path keeps one node (the first later path sharing with it decides m). */
static void plan_concat_share(kg_arena *a, cel_node *n)
{
    size_t k = n->xn;
    if (k == 0 || k > X_PATH_MAX)
        return;
    /* the chain's + nodes (adds[j] joins the result so far with operand j + 1) and its operands, for eval_concat */
    cat_chain *ch = kg_arena_alloc(a, sizeof *ch + (2 * k + 1) * sizeof(const cel_node *));
    const cel_node **adds = ch->nodes, **ops = adds + k, *s = n;
    for (size_t i = k; i > 0; i--) {
        adds[i - 1] = s;
        ops[i] = s->args[1];
        s = s->args[0];
    }
    ops[0] = s;
    ch->fast = NULL;
    n->xp = ch;
    for (size_t q = 1; q <= k; q++) {
        if (ops[q]->xk != X_PATH)
            continue;
        path_plan *pq = (path_plan *)ops[q]->xp;
        if (pq->base->xk != X_VAR || pq->save)
            continue;
        for (size_t p = 0; p < q; p++) {
            if (ops[p]->xk != X_PATH)
                continue;
            path_plan *pp = (path_plan *)ops[p]->xp;
            if (pp->base->xk != X_VAR || pp->base->slot != pq->base->slot || pp->from >= 0)
                continue;
            size_t m = 0, lim = (pp->k < pq->k ? pp->k : pq->k) - 1;
            while (m < lim && m < 255 && pp->steps[m].len == pq->steps[m].len &&
                   !memcmp(pp->steps[m].name, pq->steps[m].name, pp->steps[m].len))
                m++;
            if (m >= 1 && (pp->save == 0 || pp->save == m)) {
                pp->save = (uint8_t)m;
                pq->from = (int8_t)p;
                pq->from_m = (uint8_t)m;
                break;
            }
        }
    }
    /* the fast form: constant strings and paths from a declared or comprehension variable only */
    uint64_t cost = k;
    for (size_t q = 0; q <= k; q++) {
        const cel_node *o = ops[q];
        if (o->xk == X_PATH) {
            const path_plan *pp = o->xp;
            if (pp->base->xk != X_VAR && pp->base->xk != X_ITER)
                return;
            cost += pp->k + 1;
        } else if (o->xk != X_CONST || o->cval.kind != CEL_STRING) {
            return;
        }
    }
    cat_fast *f = kg_arena_alloc(a, sizeof *f + (k + 1) * sizeof(cat_piece));
    f->np = k + 1;
    f->cost = cost;
    f->iter = false;
    for (size_t q = 0; q <= k; q++) {
        const cel_node *o = ops[q];
        if (o->xk == X_PATH) {
            f->p[q] = (cat_piece){o->xp, NULL, 0, 0};
            f->iter |= ((const path_plan *)o->xp)->base->xk == X_ITER;
        } else {
            /* a copy padded to 16 readable bytes at least, for the evaluator's one-load copy of short constants */
            char *pad = kg_arena_alloc(a, o->cval.n + 16);
            memcpy(pad, o->cval.u.s, o->cval.n);
            memset(pad + o->cval.n, 0, 16);
            f->p[q] = (cat_piece){NULL, pad, o->cval.n, (uint32_t)cel_utf8_len(o->cval.u.s, o->cval.n)};
        }
    }
    ch->fast = f;
}

static void plan_node(kg_arena *a, cel_node *n)
{
    bool cat_top;
    if (!n)
        return;
    switch ((node_kind)n->kind) {
    case N_CONST: n->xk = X_CONST; return;
    case N_IDENT:
        if (n->slot >= 0)
            n->xk = X_VAR;
        else if (n->slot <= -2)
            n->xk = X_ITER;
        return;
    case N_SELECT: {
        if (is_plain_select(n)) {
            /* the whole chain is run from here: its inner selections are never evaluated on their own */
            size_t k = 0;
            cel_node *s = n;
            while (is_plain_select(s)) {
                k++;
                s = s->target;
            }
            path_plan *pp = kg_arena_alloc(a, sizeof *pp + k * sizeof(path_step));
            pp->base = s;
            pp->k = k;
            pp->save = pp->from_m = 0;
            pp->from = -1;
            s = n;
            for (size_t i = k; i-- > 0; s = s->target)
                pp->steps[i] = (path_step){s->name, (uint32_t)s->name_len, 0, s};
            n->xk = X_PATH;
            n->xp = pp;
            plan_node(a, (cel_node *)pp->base);
            return;
        }
        n->xk = X_HAS; /* (is_plain_select: the other selections are has()) */
        plan_node(a, n->target);
        return;
    }
    case N_CALL:
        cat_top = false;
        if (n->op == OP_IN && n->nargs == 2 && is_const_string(n->args[0])) {
            n->xk = X_IN_CONST;
        } else if ((n->op == OP_EQ || n->op == OP_NE) && n->nargs == 2 &&
                   (is_const_string(n->args[0]) || is_const_string(n->args[1]))) {
            n->xk = X_EQ_CONST;
            n->xn = is_const_string(n->args[0]) ? 0 : 1;
        } else if ((n->op == OP_AND || n->op == OP_OR) && n->nargs == 2) {
            n->xk = X_ANDOR;
        } else if ((n->op == OP_LT || n->op == OP_LE || n->op == OP_GT || n->op == OP_GE) && n->nargs == 2) {
            n->xk = X_COMPARE;
        } else if (n->op == OP_FUNC || n->op == OP_NONE) {
            plan_call1(a, n);
        } else if (is_add(n) && !n->xk) {
            cat_top = true;
            /* mark the outermost + of a left-assoc chain (the inner ones are walked from it) */
            size_t k = 0;
            cel_node *s = n;
            while (k < X_PATH_MAX && is_add(s)) {
                k++;
                s->xk = X_CONCAT; /* inner + reached on their own (never, inside a chain) are chains too */
                s->xn = 0;
                s = s->args[0];
            }
            /* set chain lengths from the outermost down: each + is the top of a chain of its own depth */
            s = n;
            for (size_t d = k; d > 0; d--) {
                s->xn = (uint8_t)d;
                s = s->args[0];
            }
        }
        for (size_t i = 0; i < n->nargs; i++)
            plan_node(a, n->args[i]);
        if (cat_top)
            plan_concat_share(a, n);
        return;
    case N_LIST:
        for (size_t i = 0; i < n->nargs; i++)
            plan_node(a, n->args[i]);
        return;
    case N_MAP:
    case N_STRUCT:
        for (size_t i = 0; i < n->nargs; i++) {
            plan_node(a, n->args[i]);
            plan_node(a, n->vals[i]);
        }
        return;
    case N_COMPR:
        n->xk = X_COMPR;
        plan_node(a, n->range);
        plan_node(a, n->accu_init);
        if (n->range && n->range->xk == X_PATH && ((const path_plan *)n->range->xp)->base->xk == X_VAR &&
            n->accu_init && n->accu_init->xk == X_CONST && n->accu_init->cval.kind == CEL_BOOL)
            n->flags |= NF_LEAN;
        if (n->flags & (NF_ALL | NF_EXISTS)) {
            /* the evaluator runs the predicate (target) itself, never the loop condition and step around it */
            plan_node(a, n->target);
            /* result = the accumulator variable: a bool context takes the accumulator as it is */
            const cel_node *r = n->result;
            if (r && r->kind == N_IDENT && n->accu_var && r->name &&
                (r->name == n->accu_var || !strcmp(r->name, n->accu_var)) && r->slot <= -4) {
                n->xn = 1;
                /* resolve.c numbers a comprehension's frame slots iteration variable, second variable,
                 * accumulator: the iteration variable's slot is the accumulator's + 2 */
                const int iv = r->slot + 2;
                /* v == "c" / v != "c" on the (only) iteration variable: compared in place over JSON (eval_fast.c) */
                const cel_node *p = n->target;
                if (p && p->xk == X_EQ_CONST && !n->iter_var2 && n->iter_var) {
                    const cel_node *v = p->args[1 - p->xn];
                    if (is_var_slot(v, iv))
                        n->xn = 2;
                }
                /* predicates over paths from the iteration variable (has, in, ==, startsWith/endsWith/matches, and
                 * && / || of them): evaluated in place for each element of a JSON array (eval_fast.c fpred) */
                if (p && n->xn == 1 && !n->iter_var2 && n->iter_var && fuse_tag((cel_node *)p, iv))
                    n->xn = p->xf == F_STR ? 3 : 4; /* 3: one string test, its path hoisted out of the loop */
                /* the frame the fused test's variable is read from (the lean forms check it is this one's) */
                const cel_node *fv = n->xn == 2   ? p->args[1 - p->xn]
                                     : n->xn == 3 ? ((const path_plan *)p->args[0]->xp)->base
                                                  : NULL;
                n->xv = fv && fv->slot <= -2 && -2 - fv->slot < 0xff ? (uint8_t)(-1 - fv->slot) : 0;
            }
        } else {
            plan_node(a, n->cond);
            plan_node(a, n->step);
        }
        plan_node(a, n->result);
        return;
    }
}

/* the shapes eval_fast.c fast_bool evaluates: every path from a declared variable */
static bool var_path(const cel_node *a)
{
    return a->xk == X_PATH && ((const path_plan *)a->xp)->base->xk == X_VAR;
}
static bool fast_int_shape(const cel_node *a)
{
    return (a->xk == X_CONST && a->cval.kind == CEL_INT) || var_path(a) ||
           (a->xk == X_SIZE && a->nargs >= 1 && var_path(a->args[0]));
}
static bool fast_bool_tree(const cel_node *n)
{
    switch (n->xk) {
    case X_CONST: return n->cval.kind == CEL_BOOL;
    case X_ANDOR: return n->nargs == 2 && fast_bool_tree(n->args[0]) && fast_bool_tree(n->args[1]);
    case X_COMPARE: return n->nargs == 2 && fast_int_shape(n->args[0]) && fast_int_shape(n->args[1]);
    case X_EQ_CONST: return n->args[n->xn]->cval.kind == CEL_STRING && var_path(n->args[1 - n->xn]);
    case X_AFFIX:
    case X_MATCHES: return var_path(n->args[0]);
    case X_IN_CONST: return n->args[0]->cval.kind == CEL_STRING && var_path(n->args[1]);
    case X_HAS: return n->target && var_path(n->target);
    case X_COMPR:
        /* all()/exists() of k == "c" over a path from a declared variable, on the first frame (eval_fast.c
         * evb_compr_eq's key loop) */
        return n->xn == 2 && (n->flags & NF_LEAN) && n->xv == 1 && n->accu_init->cval.u.b == ((n->flags & NF_ALL) != 0);
    }
    return false;
}

bool cel_plan(cel_program *p, const char *src, cel_error *err)
{
    (void)src;
    (void)err;
    plan_node(&p->arena, p->root);
    /* roots evaluated without the cost limit's jump target (eval_fast.c eval_root_concat / eval_root_bool): a
     * concatenation with its fast form over declared variables; a tree of the bool fast forms */
    const cel_node *r = p->root;
    if (r->xk == X_CONCAT) {
        const cat_chain *ch = r->xp;
        if (ch && ch->fast && !ch->fast->iter)
            p->root_fast = ROOT_FAST_CONCAT;
    } else if (fast_bool_tree(r)) {
        p->root_fast = ROOT_FAST_BOOL;
    }
    p->plan = NULL;
    return true;
}

/* ---- for tests: undo the plan (every node evaluated one at a time) and count planned nodes ---- */
static size_t walk_nodes(cel_node *n, bool clear)
{
    if (!n)
        return 0;
    size_t c = n->xk != X_NONE;
    if (clear) {
        n->xk = X_NONE;
        n->xn = 0;
        n->xf = F_NONE;
        n->xp = NULL;
    }
    switch ((node_kind)n->kind) {
    case N_CONST:
    case N_IDENT: break;
    case N_SELECT: c += walk_nodes(n->target, clear); break;
    case N_CALL:
    case N_LIST:
        for (size_t i = 0; i < n->nargs; i++)
            c += walk_nodes(n->args[i], clear);
        break;
    case N_MAP:
    case N_STRUCT:
        for (size_t i = 0; i < n->nargs; i++)
            c += walk_nodes(n->args[i], clear) + walk_nodes(n->vals[i], clear);
        break;
    case N_COMPR:
        c += walk_nodes(n->range, clear) + walk_nodes(n->accu_init, clear) + walk_nodes(n->cond, clear) +
             walk_nodes(n->step, clear) + walk_nodes(n->result, clear) + walk_nodes(n->target, clear);
        break;
    }
    return c;
}

size_t cel_plan_count(const cel_program *p)
{
    return walk_nodes(p->root, false);
}

void cel_plan_clear(cel_program *p)
{
    p->root_fast = ROOT_FAST_NONE;
    walk_nodes(p->root, true);
}
