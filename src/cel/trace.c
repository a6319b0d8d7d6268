/* cel_eval_trace (cel.h): a program's value and the values of its sub-expressions, for explaining a decision.
 *
 * Separate from the evaluator, so evaluation proper pays nothing for it: after evaluating the whole program as
 * cel_eval_slots does, every node outside comprehension bodies (whose iteration variables are only bound inside the
 * loop) is evaluated on its own, children before parents, with the same slots. Constants and the operands of
 * field selections (`object` and `object.spec` in `object.spec.replicas`) are not recorded: their values say
 * nothing the enclosing node does not. Each recorded node gets the byte range of its text in the source: the
 * smallest and largest positions in its subtree, the largest extended over the token there, then over the
 * closing brackets the range leaves open, and a function name before an opening parenthesis. */
#include <string.h>

#include "cel/cel_internal.h"

typedef struct tracer {
    cel_call_ctx *ctx;
    const char *src;
    size_t len;
    cel_trace_entry *items;
    size_t n, cap;
    kg_arena *arena;
} tracer;

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The end of the token starting at p (string literals with their quotes, identifiers and numbers, else one
 * character). */
static size_t token_end(const tracer *t, size_t p)
{
    const char *s = t->src;
    size_t n = t->len;
    if (p >= n)
        return n;
    size_t q = p;
    if ((s[q] == 'r' || s[q] == 'R' || s[q] == 'b' || s[q] == 'B') && q + 1 < n &&
        (s[q + 1] == '"' || s[q + 1] == '\''))
        q++;
    if (s[q] == '"' || s[q] == '\'') {
        char quote = s[q];
        bool triple = q + 2 < n && s[q + 1] == quote && s[q + 2] == quote;
        q += triple ? 3 : 1;
        while (q < n) {
            if (s[q] == '\\') {
                q += 2;
                continue;
            }
            if (s[q] == quote && (!triple || (q + 2 < n && s[q + 1] == quote && s[q + 2] == quote)))
                return q + (triple ? 3 : 1);
            q++;
        }
        return n;
    }
    if (ident_char(s[q]) || s[q] == '.') {
        while (q < n && (ident_char(s[q]) || (s[q] == '.' && q + 1 < n && s[q + 1] >= '0' && s[q + 1] <= '9')))
            q++;
        return q > p ? q : p + 1;
    }
    return p + 1;
}

static void span(const tracer *t, const cel_node *n, size_t *lo, size_t *hi, int depth)
{
    if (!n || depth > 64)
        return;
    if (n->pos >= 0 && (size_t)n->pos < t->len) {
        size_t p = (size_t)n->pos;
        size_t e = token_end(t, p);
        if (n->kind == N_SELECT && t->src[p] == '.') { /* the field name after the dot */
            size_t q = p + 1;
            while (q < t->len && (t->src[q] == ' ' || t->src[q] == '\n' || t->src[q] == '\t'))
                q++;
            e = token_end(t, q);
        }
        if (p < *lo)
            *lo = p;
        if (e > *hi)
            *hi = e;
    }
    for (size_t i = 0; i < n->nargs; i++) {
        span(t, n->args[i], lo, hi, depth + 1);
        if (n->vals)
            span(t, n->vals[i], lo, hi, depth + 1);
    }
    span(t, n->target, lo, hi, depth + 1);
    if (n->kind == N_COMPR) {
        span(t, n->range, lo, hi, depth + 1);
        span(t, n->cond, lo, hi, depth + 1);
        span(t, n->step, lo, hi, depth + 1);
    }
}

/* Close the brackets [lo, hi) leaves open (skipping string literals) and take in a call's function name. */
static void balance(const tracer *t, size_t *lo, size_t *hi)
{
    const char *s = t->src;
    int open = 0;
    for (size_t p = *lo; p < *hi;) {
        if (s[p] == '"' || s[p] == '\'') {
            p = token_end(t, p);
            continue;
        }
        if (s[p] == '(' || s[p] == '[' || s[p] == '{')
            open++;
        else if (s[p] == ')' || s[p] == ']' || s[p] == '}')
            open--;
        p++;
    }
    size_t p = *hi;
    while (open > 0 && p < t->len) {
        if (s[p] == '"' || s[p] == '\'') {
            p = token_end(t, p);
            continue;
        }
        if (s[p] == '(' || s[p] == '[' || s[p] == '{')
            open++;
        else if (s[p] == ')' || s[p] == ']' || s[p] == '}')
            open--;
        p++;
    }
    *hi = p;
    size_t l = *lo;
    if (l < t->len && s[l] == '(') {
        size_t q = l;
        while (q > 0 && (s[q - 1] == ' ' || s[q - 1] == '\t'))
            q--;
        size_t r = q;
        while (r > 0 && ident_char(s[r - 1]))
            r--;
        if (r < q)
            *lo = r;
    }
}

__attribute__((noinline)) static cel_value eval_one(cel_call_ctx *ctx, const cel_node *n)
{
    cel_jmp_buf jb;
    ctx->jb = &jb;
    ctx->cost = 0;
    if (CEL_SETJMP(jb))
        return cel_err(ctx, "operation cancelled: actual cost limit exceeded");
    return cel_eval_node(ctx, n);
}

static void record(tracer *t, const cel_node *n)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        cel_trace_entry *items = kg_arena_alloc(t->arena, cap * sizeof *items);
        if (t->n)
            memcpy(items, t->items, t->n * sizeof *items);
        t->items = items;
        t->cap = cap;
    }
    size_t lo = (size_t)-1, hi = 0;
    if (t->src) {
        span(t, n, &lo, &hi, 0);
        if (lo <= hi && hi <= t->len)
            balance(t, &lo, &hi);
    }
    if (lo > hi) {
        lo = n->pos > 0 ? (size_t)n->pos : 0;
        hi = lo;
    }
    t->items[t->n++] = (cel_trace_entry){.start = (uint32_t)lo, .end = (uint32_t)hi, .value = eval_one(t->ctx, n)};
}

/* Children first; comprehension bodies are not entered (their variables are bound only inside the loop). */
static void walk(tracer *t, const cel_node *n, bool operand_of_select, int depth)
{
    if (!n || depth > 64 || t->n >= CEL_TRACE_MAX)
        return;
    switch (n->kind) {
    case N_CONST: return;
    case N_SELECT: walk(t, n->target, true, depth + 1); break;
    case N_COMPR: walk(t, n->range, false, depth + 1); break;
    default:
        for (size_t i = 0; i < n->nargs; i++) {
            walk(t, n->args[i], false, depth + 1);
            if (n->vals)
                walk(t, n->vals[i], false, depth + 1);
        }
        if (n->target && !(n->nargs && n->args[0] == n->target))
            walk(t, n->target, false, depth + 1);
        break;
    }
    if (!operand_of_select && t->n < CEL_TRACE_MAX)
        record(t, n);
}

cel_eval_status cel_eval_trace(const cel_program *p, const char *src, kg_arena *arena, const cel_value *values,
                               size_t n, uint64_t cost_limit, cel_value *result, cel_trace_entry **entries,
                               size_t *nentries)
{
    *entries = NULL;
    *nentries = 0;
    cel_eval_status st = cel_eval_slots(p, arena, values, n, cost_limit, result, NULL);
    cel_value *slots = kg_arena_alloc(arena, (n > p->nslots ? n : p->nslots) * sizeof *slots + 1);
    for (size_t i = 0; i < p->nslots || i < n; i++)
        slots[i] = i < n ? values[i] : cel_null();
    cel_activation act = {.env = p->env, .arena = arena, .slots = slots, .nslots = n > p->nslots ? n : p->nslots};
    cel_call_ctx ctx = {
        .arena = arena,
        .act = &act,
        .slots = slots,
        .limit = cost_limit,
        .vars = kg_arena_calloc(arena, (p->nframes ? p->nframes : 3) * sizeof(compr_frame)),
        .presence_cost = p->has_presence_cost,
    };
    tracer t = {.ctx = &ctx, .src = src, .len = src ? strlen(src) : 0, .arena = arena};
    walk(&t, p->root, false, 0);
    *entries = t.items;
    *nentries = t.n;
    return st;
}
