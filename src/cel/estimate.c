/* Static cost estimate (cel-go checker/cost.go style): {min, max} runtime cost of a program given an upper bound on
 * the size of values whose size is unknown (strings, lists, maps from variables). Comprehensions cost
 * range size x per-iteration cost; short-circuit operators give a lower minimum. */
#include "cel/cel_internal.h"

typedef struct est {
    cel_size_range cost;
    cel_size_range size; /* size of the value (code points / elements); {0, max} when unknown */
    const void *path;    /* the host's node for values that are a path from a variable (cel_size_host), or NULL */
} est;

/* A comprehension variable bound to a host node while its loop's body is estimated. */
typedef struct bound {
    const char *name;
    const void *path;
} bound;

#define MAX_BOUND 32
typedef struct ectx {
    uint64_t maxsz;
    const cel_size_host *h; /* NULL: every variable is of unknown size */
    bool presence_cost;     /* has() costs 1 (not CEL_OPT_PRESENCE_COST_ZERO) */
    bound vars[MAX_BOUND];
    size_t nvars;
} ectx;

/* The size of a value at host node p ({0, maxsz} when unknown). */
static cel_size_range path_size(const ectx *x, const void *p)
{
    uint64_t m;
    if (p && x->h->max_size && x->h->max_size(x->h->ud, p, &m))
        return (cel_size_range){0, m};
    return (cel_size_range){0, x->maxsz};
}

static uint64_t sadd(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
static uint64_t smul(uint64_t a, uint64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    return a > UINT64_MAX / b ? UINT64_MAX : a * b;
}
static uint64_t c01(uint64_t x)
{
    return x == UINT64_MAX ? x : (x + 9) / 10;
}
static cel_size_range radd(cel_size_range a, cel_size_range b)
{
    cel_size_range r = {sadd(a.min, b.min), sadd(a.max, b.max)};
    return r;
}

static est estimate(const cel_node *n, ectx *x);

/* operands whose size matters for ==, <, + (strings, bytes); unknown (unchecked) types count as sized */
static bool sized_operand(const cel_node *n)
{
    const cel_type *t = n->type;
    return !t || t->kind == CEL_T_STRING || t->kind == CEL_T_BYTES || t->kind == CEL_T_DYN;
}

static bool scalar_type(const cel_type *t)
{
    if (!t)
        return false;
    switch (t->kind) {
    case CEL_T_BOOL:
    case CEL_T_INT:
    case CEL_T_UINT:
    case CEL_T_DOUBLE:
    case CEL_T_DURATION:
    case CEL_T_TIMESTAMP: return true;
    default: return false;
    }
}

/* The size cel-go's equality estimate uses for an operand: the host's bound for a path, 1 for other scalars. */
static uint64_t eq_size(const cel_node *n, const est *e)
{
    if (!e->path && scalar_type(n->type))
        return 1;
    return e->size.max;
}

static est unknown_size(uint64_t maxsz, cel_size_range cost)
{
    est e = {cost, {0, maxsz}, NULL};
    return e;
}

static est est_call(const cel_node *n, ectx *x)
{
    est a[16];
    memset(a, 0, sizeof a);
    size_t na = n->nargs < 16 ? n->nargs : 16;
    for (size_t i = 0; i < na; i++)
        a[i] = estimate(n->args[i], x);
    cel_size_range sum = {0, 0};
    for (size_t i = 0; i < na; i++)
        sum = radd(sum, a[i].cost);
    est r = unknown_size(x->maxsz, sum);
    switch ((opcode)n->op) {
    case OP_AND:
    case OP_OR:
        r.cost.min = a[0].cost.min;
        r.size = (cel_size_range){1, 1};
        return r;
    case OP_COND: {
        cel_size_range c = a[0].cost;
        r.cost.min = sadd(c.min, a[1].cost.min < a[2].cost.min ? a[1].cost.min : a[2].cost.min);
        r.cost.max = sadd(c.max, a[1].cost.max > a[2].cost.max ? a[1].cost.max : a[2].cost.max);
        r.size.min = a[1].size.min < a[2].size.min ? a[1].size.min : a[2].size.min;
        r.size.max = a[1].size.max > a[2].size.max ? a[1].size.max : a[2].size.max;
        return r;
    }
    case OP_IN:
        r.cost = radd(r.cost, (cel_size_range){1, a[1].size.max ? a[1].size.max : 1});
        r.size = (cel_size_range){1, 1};
        return r;
    case OP_EQ:
    case OP_NE:
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE: {
        if (x->h && (n->op == OP_EQ || n->op == OP_NE)) {
            /* cel-go: equality of any types traverses the smaller operand; sizes from the host (0 for its scalars
             * and objects), other scalars 1 */
            uint64_t s0 = eq_size(n->args[0], &a[0]), s1 = eq_size(n->args[1], &a[1]);
            uint64_t mx = s0 < s1 ? s0 : s1;
            r.cost = radd(r.cost, (cel_size_range){mx ? 1 : 0, c01(mx)});
            r.size = (cel_size_range){1, 1};
            return r;
        }
        if (sized_operand(n->args[0]) && sized_operand(n->args[1])) {
            uint64_t mn = a[0].size.min < a[1].size.min ? a[0].size.min : a[1].size.min;
            uint64_t mx = a[0].size.max < a[1].size.max ? a[0].size.max : a[1].size.max;
            uint64_t cmin = c01(mn), cmax = c01(mx);
            r.cost = radd(r.cost, (cel_size_range){cmin ? cmin : 1, cmax ? cmax : 1});
        } else {
            r.cost = radd(r.cost, (cel_size_range){1, 1});
        }
        r.size = (cel_size_range){1, 1};
        return r;
    }
    case OP_ADD:
        if (sized_operand(n->args[0]) && sized_operand(n->args[1])) {
            uint64_t cmin = c01(sadd(a[0].size.min, a[1].size.min)), cmax = c01(sadd(a[0].size.max, a[1].size.max));
            r.cost = radd(r.cost, (cel_size_range){cmin ? cmin : 1, cmax ? cmax : 1});
        } else {
            r.cost = radd(r.cost, (cel_size_range){1, 1});
        }
        r.size = (cel_size_range){sadd(a[0].size.min, a[1].size.min), sadd(a[0].size.max, a[1].size.max)};
        return r;
    case OP_NOT_STRICTLY_FALSE:
    case OP_NOT:
    case OP_NEG:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
    case OP_INDEX:
        r.cost = radd(r.cost, (cel_size_range){1, 1});
        if (x->h && x->h->elem && a[0].path) {
            r.path = x->h->elem(x->h->ud, a[0].path, false);
            r.size = path_size(x, r.path);
        }
        return r;
    case OP_MOD:
    case OP_OPT_INDEX:
    case OP_OPT_SELECT:
    case OP_MAP_INSERT: r.cost = radd(r.cost, (cel_size_range){1, 1}); return r;
    default: break;
    }
    /* function: the widest estimate hook among the candidate overloads, else cel-go's defaults */
    cel_size_range call = {1, 1};
    const cel_func *f = n->fn;
    cel_size_range sizes[16];
    for (size_t i = 0; i < na; i++)
        sizes[i] = a[i].size;
    bool hooked = false;
    if (f) {
        size_t nc = n->cands ? n->ncands : f->novl;
        for (size_t c = 0; c < nc; c++) {
            const cel_overload *o = &f->ovls[n->cands ? n->cands[c] : c];
            if (o->nargs != n->nargs || !o->estimate)
                continue;
            cel_size_range e = o->estimate(sizes, na);
            if (!hooked || e.max > call.max)
                call = e;
            hooked = true;
        }
    }
    if (!hooked && f) {
        const char *nm = f->name;
        if ((!strcmp(nm, "startsWith") || !strcmp(nm, "endsWith")) && na == 2) {
            /* cel-go: the prefix / suffix is traversed, not the receiver */
            call.min = c01(sizes[1].min);
            call.max = c01(sizes[1].max);
            if (!call.max)
                call.max = 1;
        } else if (!strcmp(nm, "startsWith") || !strcmp(nm, "endsWith") || !strcmp(nm, "lowerAscii") ||
                   !strcmp(nm, "upperAscii") || !strcmp(nm, "trim") || !strcmp(nm, "substring") ||
                   !strcmp(nm, "string") || !strcmp(nm, "bytes") || !strcmp(nm, "strings.quote") ||
                   !strcmp(nm, "format") || !strcmp(nm, "indexOf") || !strcmp(nm, "lastIndexOf")) {
            call.min = c01(sizes[0].min);
            call.max = c01(sizes[0].max);
            if (!call.min)
                call.min = 1;
            if (!call.max)
                call.max = 1;
            if (!strcmp(nm, "lowerAscii") || !strcmp(nm, "upperAscii") || !strcmp(nm, "trim") ||
                !strcmp(nm, "strings.quote"))
                r.size = (cel_size_range){!strcmp(nm, "trim") ? 0 : sizes[0].min,
                                          sadd(sizes[0].max, !strcmp(nm, "strings.quote") ? sizes[0].max + 2 : 0)};
        } else if (!strcmp(nm, "replace") || !strcmp(nm, "split")) {
            call.min = c01(smul(sizes[0].min, 2));
            call.max = c01(smul(sizes[0].max, 2));
            if (!call.min)
                call.min = 1;
            if (!call.max)
                call.max = 1;
        } else if (!strcmp(nm, "join"))
            call.max = c01(smul(sizes[0].max, 2)) | 1;
        else if (!strcmp(nm, "contains") && na == 2)
            call.max = smul(c01(sizes[0].max), c01(sizes[1].max));
        else if (!strcmp(nm, "matches") && na == 2)
            call.max = smul(c01(sadd(sizes[0].max, 1)), (sizes[1].max + 3) / 4 ? (sizes[1].max + 3) / 4 : 1);
        else if (!strcmp(nm, "sets.contains") || !strcmp(nm, "sets.equivalent") || !strcmp(nm, "sets.intersects")) {
            uint64_t f2 = !strcmp(nm, "sets.equivalent") ? 2 : 1;
            call.min = sadd(1, smul(f2, smul(sizes[0].min, sizes[1].min)));
            call.max = sadd(1, smul(f2, smul(sizes[0].max, sizes[1].max)));
        } else if (!strcmp(nm, "size"))
            r.size = (cel_size_range){1, 1};
    }
    r.cost = radd(r.cost, call);
    return r;
}

static est estimate(const cel_node *n, ectx *x)
{
    est r = {{0, 0}, {0, x->maxsz}, NULL};
    switch ((node_kind)n->kind) {
    case N_CONST:
        if (n->cval.kind == CEL_STRING)
            r.size.min = r.size.max = cel_utf8_len(n->cval.u.s, n->cval.n);
        else if (n->cval.kind == CEL_BYTES)
            r.size.min = r.size.max = n->cval.n;
        else
            r.size.min = r.size.max = 1;
        return r;
    case N_IDENT:
        r.cost = (cel_size_range){1, 1};
        if (!x->h)
            return r;
        if (n->slot >= 0 && x->h->var) {
            r.path = x->h->var(x->h->ud, n->name);
        } else if (n->slot <= -2) {
            for (size_t i = x->nvars; i-- > 0;)
                if (x->vars[i].name && !strcmp(x->vars[i].name, n->name)) {
                    r.path = x->vars[i].path;
                    break;
                }
        }
        r.size = path_size(x, r.path);
        return r;
    case N_SELECT: {
        est t = estimate(n->target, x);
        r.cost = radd(t.cost, (cel_size_range){1, 1});
        if (n->flags & NF_TEST_ONLY) {
            if (!x->presence_cost) /* CEL_OPT_PRESENCE_COST_ZERO: has() adds nothing to its operand's cost */
                r.cost = t.cost;
            r.size = (cel_size_range){1, 1};
        } else if (t.path && x->h->field) {
            r.path = x->h->field(x->h->ud, t.path, n->name);
            r.size = path_size(x, r.path);
        }
        return r;
    }
    case N_CALL: return est_call(n, x);
    case N_LIST:
    case N_MAP:
    case N_STRUCT: {
        r.cost.min = r.cost.max = n->kind == N_LIST ? 10 : n->kind == N_MAP ? 30 : 40;
        for (size_t i = 0; i < n->nargs; i++) {
            r.cost = radd(r.cost, estimate(n->args[i], x).cost);
            if (n->vals)
                r.cost = radd(r.cost, estimate(n->vals[i], x).cost);
        }
        r.size.min = n->opt ? 0 : n->nargs;
        r.size.max = n->nargs;
        return r;
    }
    case N_COMPR: {
        est range = estimate(n->range, x);
        est init = estimate(n->accu_init, x);
        /* the loop variables: elements (lists) or keys (maps), and the values of two-variable forms */
        size_t saved = x->nvars;
        if (x->h && range.path && x->h->elem && x->nvars + 2 <= MAX_BOUND) {
            bool is_map = n->range->type && n->range->type->kind == CEL_T_MAP;
            const void *elem = x->h->elem(x->h->ud, range.path, is_map);
            const void *val = is_map ? x->h->elem(x->h->ud, range.path, false) : elem;
            if (n->iter_var2) {
                x->vars[x->nvars++] = (bound){n->iter_var, is_map ? elem : NULL};
                x->vars[x->nvars++] = (bound){n->iter_var2, val};
            } else {
                x->vars[x->nvars++] = (bound){n->iter_var, elem};
            }
        } else if (x->h && x->nvars + 2 <= MAX_BOUND) {
            /* shadowing: a loop variable over an unknown range hides outer bindings of its name */
            x->vars[x->nvars++] = (bound){n->iter_var, NULL};
            if (n->iter_var2)
                x->vars[x->nvars++] = (bound){n->iter_var2, NULL};
        }
        est cond = estimate(n->cond, x), step = estimate(n->step, x), res = estimate(n->result, x);
        x->nvars = saved;
        cel_size_range per = radd(cond.cost, step.cost);
        /* as cel-go: the range size times the loop cost; short-circuiting shows in the && / || minimum */
        r.cost = radd(range.cost, init.cost);
        r.cost = radd(r.cost, res.cost);
        r.cost.min = sadd(r.cost.min, smul(range.size.min, per.min));
        r.cost.max = sadd(r.cost.max, smul(range.size.max, per.max));
        r.size = (n->flags & (NF_ALL | NF_EXISTS)) ? (cel_size_range){1, 1} : (cel_size_range){0, range.size.max};
        return r;
    }
    }
    return r;
}

cel_size_range cel_program_estimate_cost(const cel_program *p, uint64_t max_size)
{
    ectx x = {.maxsz = max_size, .presence_cost = p->has_presence_cost};
    return estimate(p->root, &x).cost;
}

cel_size_range cel_program_estimate_cost_host(const cel_program *p, uint64_t max_size, const cel_size_host *host)
{
    ectx x = {.maxsz = max_size, .h = host, .presence_cost = p->has_presence_cost};
    return estimate(p->root, &x).cost;
}
