/* Name resolution (variables, comprehension scopes, qualified names, functions) and compile-time preparation of
 * calls (direct overloads, prepared per-overload state such as precompiled regexes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cel/cel_internal.h"
#include "cel/compile_internal.h"

/* ================================================================ resolution */

typedef struct resolver {
    const cel_env *env;
    kg_arena *a;
    const char *src;
    cel_error *err;
    const char *scope[64 * 3];
    int depth; /* comprehension nesting */
    bool failed;
    /* root_may_qualify's last answer (expressions keep selecting from the same root, e.g. object) */
    const char *mq_root;
    size_t mq_len;
    bool mq_ans;
} resolver;

static int scope_find(resolver *R, const char *name, size_t n)
{
    return cel_scope_find(R->scope, R->depth, name, n);
}

/* pure ident/select chain → qualified name; *root receives the root ident node */
static char *chain_name(kg_arena *a, const cel_node *n, const cel_node **root)
{
    if (n->kind == N_IDENT) {
        *root = n;
        return (char *)n->name;
    }
    if (n->kind == N_SELECT && !(n->flags & (NF_TEST_ONLY | NF_OPTIONAL))) {
        char *t = chain_name(a, n->target, root);
        return t ? kg_arena_sprintf(a, "%s.%s", t, n->name) : NULL;
    }
    return NULL;
}

static const cel_type *builtin_type_named(const char *name)
{
    static cel_type list_t = {CEL_T_LIST, "list", 0, NULL, 0, NULL, NULL};
    static cel_type map_t = {CEL_T_MAP, "map", 0, NULL, 0, NULL, NULL};
    static cel_type opt_t = {CEL_T_OPTIONAL, "optional_type", 0, NULL, 0, NULL, NULL};
    static cel_type dyn_t = {CEL_T_DYN, "dyn", 0, NULL, 0, NULL, NULL};
    if (!strcmp(name, "int"))
        return cel_type_int();
    if (!strcmp(name, "uint"))
        return cel_type_uint();
    if (!strcmp(name, "double"))
        return cel_type_double();
    if (!strcmp(name, "bool"))
        return cel_type_bool();
    if (!strcmp(name, "string"))
        return cel_type_string();
    if (!strcmp(name, "bytes"))
        return cel_type_bytes();
    if (!strcmp(name, "null_type"))
        return cel_type_null();
    if (!strcmp(name, "type"))
        return cel_type_type();
    if (!strcmp(name, "list"))
        return &list_t;
    if (!strcmp(name, "map"))
        return &map_t;
    if (!strcmp(name, "optional_type"))
        return &opt_t;
    (void)dyn_t;
    if (!strcmp(name, "google.protobuf.Timestamp"))
        return cel_type_timestamp();
    if (!strcmp(name, "google.protobuf.Duration"))
        return cel_type_duration();
    return NULL;
}

/* Try container candidates for name; returns var decl or sets *type. */
static bool lookup_name_n(resolver *R, const char *name, size_t len, const var_decl **var, const cel_type **type)
{
    *var = NULL;
    *type = NULL;
    bool rooted = name[0] == '.';
    if (rooted)
        name++, len--;
    const char *c = R->env->container;
    size_t cl = rooted || !c[0] ? 0 : strlen(c);
    for (;;) {
        char *cand = cl ? kg_arena_sprintf(R->a, "%.*s.%s", (int)cl, c, name) : (char *)name;
        const var_decl *v = cel_env_var(R->env, cand, cl ? strlen(cand) : len);
        if (v) {
            *var = v;
            return true;
        }
        const cel_type *t = builtin_type_named(cand);
        if (!t)
            t = cel_type_opaque_lookup(R->env, cand);
        if (t) {
            *type = t;
            return true;
        }
        if (cl == 0)
            break;
        while (cl > 0 && c[cl - 1] != '.')
            cl--;
        if (cl > 0)
            cl--;
    }
    return false;
}

static bool lookup_name(resolver *R, const char *name, const var_decl **var, const cel_type **type)
{
    return lookup_name_n(R, name, strlen(name), var, type);
}

/* lookup_func for a name of known length, building container candidates on the stack */
static const cel_func *lookup_func_n(resolver *R, const char *name, size_t n)
{
    if (name[0] == '.')
        return cel_env_func_n(R->env, name + 1, n - 1);
    const char *c = R->env->container;
    if (!c[0])
        return cel_env_func_n(R->env, name, n);
    size_t cl = strlen(c);
    char buf[512];
    for (;;) {
        const cel_func *f;
        if (cl == 0)
            return cel_env_func_n(R->env, name, n);
        if (cl + 1 + n <= sizeof buf) {
            memcpy(buf, c, cl);
            buf[cl] = '.';
            memcpy(buf + cl + 1, name, n);
            f = cel_env_func_n(R->env, buf, cl + 1 + n);
        } else {
            char *cand = kg_arena_sprintf(R->a, "%.*s.%.*s", (int)cl, c, (int)n, name);
            f = cel_env_func(R->env, cand);
        }
        if (f)
            return f;
        while (cl > 0 && c[cl - 1] != '.')
            cl--;
        if (cl > 0)
            cl--;
    }
}

/* dotted name of a plain ident/select chain written into buf (not NUL-terminated): its length, -1 when n is not
 * such a chain, -2 when it does not fit */
static long chain_name_buf(const cel_node *n, char *buf, size_t cap, const cel_node **root)
{
    if (n->kind == N_IDENT) {
        if (n->name_len > cap)
            return -2;
        memcpy(buf, n->name, n->name_len);
        *root = n;
        return (long)n->name_len;
    }
    if (n->kind == N_SELECT && !(n->flags & (NF_TEST_ONLY | NF_OPTIONAL))) {
        long t = chain_name_buf(n->target, buf, cap, root);
        if (t < 0)
            return t;
        if ((size_t)t + 1 + n->name_len > cap)
            return -2;
        buf[t] = '.';
        memcpy(buf + t + 1, n->name, n->name_len);
        return t + 1 + (long)n->name_len;
    }
    return -1;
}

static const cel_func *lookup_func(resolver *R, const char *name)
{
    bool rooted = name[0] == '.';
    if (rooted)
        name++;
    const char *c = R->env->container;
    size_t cl = rooted ? 0 : strlen(c);
    for (;;) {
        char *cand = cl ? kg_arena_sprintf(R->a, "%.*s.%s", (int)cl, c, name) : (char *)name;
        const cel_func *f = cel_env_func(R->env, cand);
        if (f)
            return f;
        if (cl == 0)
            return NULL;
        while (cl > 0 && c[cl - 1] != '.')
            cl--;
        if (cl > 0)
            cl--;
    }
}

static void res(resolver *R, cel_node *n);
static int scope_find(resolver *R, const char *name, size_t n);

/* Can a dotted name starting with identifier `root` name a variable or type? Only when some declared name (or
 * the container) makes it possible; this keeps field selections like object.spec.x free of name building. */
static bool root_may_qualify_scan(const resolver *R, const char *root, size_t rl);
static bool root_may_qualify(resolver *R, const char *root, size_t rl)
{
    /* the usual answer without a call: no container, no dotted variable, type or dynamic-struct name to start,
     * not google.* */
    if (!R->env->container[0] && !R->env->ndyn_structs && rl && root[0] != 'g' &&
        !cel_env_dotted_first(R->env, (unsigned char)root[0]))
        return false;
    if (R->mq_root && R->mq_len == rl && !memcmp(R->mq_root, root, rl))
        return R->mq_ans;
    R->mq_ans = root_may_qualify_scan(R, root, rl);
    R->mq_root = root;
    R->mq_len = rl;
    return R->mq_ans;
}

static bool root_may_qualify_scan(const resolver *R, const char *root, size_t rl)
{
    if (R->env->container[0])
        return true;
    if (rl == 6 && !memcmp(root, "google", 6))
        return true;
    if (rl && !cel_env_dotted_first(R->env, (unsigned char)root[0]))
        goto dyn_structs; /* no dotted variable or type name starts like root */
    for (size_t i = 0; i < R->env->nvars; i++) {
        const char *v = R->env->vars[i].name;
        if (cel_prefix_is(v, root, rl) && v[rl] == '.')
            return true;
    }
    for (size_t i = 0; i < R->env->ntypes; i++) {
        const char *v = R->env->types[i]->name;
        if (cel_prefix_is(v, root, rl) && v[rl] == '.')
            return true;
    }
dyn_structs:
    for (size_t i = 0; i < R->env->ndyn_structs; i++) {
        const char *v = R->env->dyn_structs[i];
        if (!strncmp(v, root, rl) && (v[rl] == '.' || v[rl] == 0))
            return true;
    }
    return false;
}

static bool resolve_qualified(resolver *R, cel_node *n)
{
    const cel_node *root = NULL;
    if (n->kind == N_SELECT) {
        const cel_node *r = cel_select_root(n);
        if (r->kind != N_IDENT || !root_may_qualify(R, r->name, r->name_len))
            return false;
    }
    char *q = chain_name(R->a, n, &root);
    if (!q || !root || (!(root->flags & NF_ROOT) && scope_find(R, root->name, root->name_len) >= 0))
        return false;
    const var_decl *v;
    const cel_type *t;
    const char *name = (root->flags & NF_ROOT) ? kg_arena_sprintf(R->a, ".%s", q) : q;
    if (!(n == root ? lookup_name_n(R, name, n->name_len + ((root->flags & NF_ROOT) ? 1 : 0), &v, &t)
                    : lookup_name(R, name, &v, &t)))
        return false;
    if (v) {
        n->kind = N_IDENT;
        n->name = v->name;
        n->name_len = strlen(v->name);
        n->slot = v->slot;
        n->target = NULL;
        n->type = v->type;
        return true;
    }
    n->kind = N_CONST;
    n->cval = cel_type_value(t);
    n->target = NULL;
    n->flags |= 0x8000; /* type literal: cost 0 but treated as ident for checker */
    return true;
}

/* Can the receiver chain of a member call, with the call's name, spell a namespaced function? Not when the
 * chain is a plain select chain from a root identifier that no dotted function name starts with (and there is no
 * container to prefix it): then res goes straight to the ordinary member call. Anything else takes the full way. */
static bool member_may_be_qualified(const resolver *R, const cel_node *t)
{
    if (R->env->container[0])
        return true;
    t = cel_select_root(t);
    if (t->kind != N_IDENT || (t->flags & NF_ROOT))
        return true;
    return cel_env_func_root_may(R->env, t->name, t->name_len);
}

static void res_node(resolver *R, cel_node *n) __attribute__((noinline));
static void res_select(resolver *R, cel_node *n) __attribute__((noinline));
static void res_call(resolver *R, cel_node *n) __attribute__((noinline));

/* constants and comprehension variables here (no register saves), everything else in res_node (a tail call) */
static void res(resolver *R, cel_node *n)
{
    if (R->failed || n->kind == N_CONST)
        return;
    if (n->kind == N_IDENT && !(n->flags & NF_ROOT)) {
        int k = scope_find(R, n->name, n->name_len);
        if (k >= 0) {
            n->slot = -2 - k;
            return;
        }
    }
    /* selects and calls in their own functions (each saves only the registers it needs) */
    if (n->kind == N_SELECT)
        res_select(R, n);
    else if (n->kind == N_CALL)
        res_call(R, n);
    else
        res_node(R, n);
}

/* a member call a.b.f(...) whose receiver chain and name spell a namespaced function (and no declared variable is
 * a prefix): made a global call of it, its arguments resolved (true); anything else untouched (false). Its own
 * function: the name buffer stays out of res_call's frame. */
static bool res_member_qualified(resolver *R, cel_node *n) __attribute__((noinline));
static bool res_member_qualified(resolver *R, cel_node *n)
{
    const cel_node *root = NULL;
    char qb[256];
    long ql = chain_name_buf(n->target, qb, sizeof qb, &root);
    const cel_func *f = NULL;
    const char *q = NULL;
    if (ql >= 0 && (size_t)ql + 1 + n->name_len <= sizeof qb) {
        /* the qualified function name is built on the stack; names only when a function matches */
        if ((root->flags & NF_ROOT) || scope_find(R, root->name, root->name_len) < 0) {
            qb[ql] = '.';
            memcpy(qb + ql + 1, n->name, n->name_len);
            f = lookup_func_n(R, qb, (size_t)ql + 1 + n->name_len);
            if (f)
                q = kg_arena_strndup(R->a, qb, (size_t)ql);
        }
    } else if (ql != -1) {
        q = chain_name(R->a, n->target, &root);
        if (q && root && ((root->flags & NF_ROOT) || scope_find(R, root->name, root->name_len) < 0))
            f = lookup_func(R, kg_arena_sprintf(R->a, "%s.%s", q, n->name));
    }
    if (f) {
        const var_decl *v = NULL;
        const cel_type *t = NULL;
        /* a declared variable prefix wins over a namespaced function */
        bool isvar = lookup_name(R, q, &v, &t) && v;
        if (!isvar) {
            n->flags &= (uint16_t)~NF_MEMBER;
            n->target = NULL;
            n->args++;
            n->nargs--;
            n->name = f->name;
            n->name_len = strlen(f->name);
            n->fn = f;
            n->op = (uint8_t)(f->op ? f->op : OP_FUNC);
            for (size_t i = 0; i < n->nargs; i++)
                res(R, n->args[i]);
            return true;
        }
    }
    return false;
}

static void res_call(resolver *R, cel_node *n)
{
    if ((n->flags & NF_MEMBER) && n->target && (n->target->kind == N_IDENT || n->target->kind == N_SELECT) &&
        member_may_be_qualified(R, n->target) && res_member_qualified(R, n))
        return;
    for (size_t i = 0; i < n->nargs; i++)
        res(R, n->args[i]);
    if (n->flags & NF_MEMBER)
        n->target = n->args[0];
    /* the parser's calls of fixed-name functions carry the function: without a container it is what the
     * lookup finds */
    const cel_func *f = (n->flags & NF_MEMBER)           ? cel_env_func_n(R->env, n->name, n->name_len)
                        : n->fn && !R->env->container[0] ? n->fn
                                                         : lookup_func_n(R, n->name, n->name_len);
    n->fn = f;
    n->op = (uint8_t)(f ? (f->op ? f->op : OP_FUNC) : OP_FUNC);
}

static void res_select(resolver *R, cel_node *n)
{
    if (n->flags & NF_TEST_ONLY) {
        res(R, n->target);
        return;
    }
    /* every plain select of a chain a.b.c has the same root: when it cannot start a qualified name, no
     * suffix of the chain can either, so go straight to the root instead of retrying at each level */
    cel_node *r = cel_select_root(n);
    if (r->kind != N_IDENT) {
        res(R, r);
        return;
    }
    if (!(r->flags & NF_ROOT)) {
        int k = scope_find(R, r->name, r->name_len);
        if (k >= 0) { /* a comprehension variable */
            r->slot = -2 - k;
            return;
        }
    }
    if (!root_may_qualify(R, r->name, r->name_len)) {
        res_node(R, r); /* what res does for it after finding no comprehension variable */
        return;
    }
    if (resolve_qualified(R, n))
        return;
    res(R, n->target);
}

static void res_node(resolver *R, cel_node *n)
{
    switch ((node_kind)n->kind) {
    case N_CONST: return;
    case N_IDENT: {
        /* res found no comprehension variable of this name */
        if (!(n->flags & NF_ROOT)) {
            if (!R->env->container[0]) {
                /* a declared variable of exactly this name: what resolve_qualified finds first without a
                 * container (its name has the ident's length) */
                const var_decl *v = cel_env_var(R->env, n->name, n->name_len);
                if (v) {
                    n->name = v->name;
                    n->slot = v->slot;
                    n->target = NULL;
                    n->type = v->type;
                    return;
                }
            }
        }
        if (!resolve_qualified(R, n))
            n->slot = -1;
        return;
    }
    case N_SELECT: res_select(R, n); return;
    case N_CALL: res_call(R, n); return;
    case N_LIST:
        for (size_t i = 0; i < n->nargs; i++)
            res(R, n->args[i]);
        return;
    case N_MAP:
        for (size_t i = 0; i < n->nargs; i++) {
            res(R, n->args[i]);
            res(R, n->vals[i]);
        }
        return;
    case N_STRUCT: {
        const var_decl *v;
        const cel_type *t;
        if (!lookup_name(R, n->name, &v, &t) || !t || t->kind != CEL_T_OBJECT) {
            const char *nm = n->name[0] == '.' ? n->name + 1 : n->name;
            for (size_t i = 0; i < R->env->ndyn_structs; i++) {
                const char *pre = R->env->dyn_structs[i];
                size_t pl = strlen(pre);
                if (!strncmp(nm, pre, pl) && (nm[pl] == 0 || nm[pl] == '.')) {
                    cel_type *dt = kg_arena_calloc(R->a, sizeof *dt);
                    dt->kind = CEL_T_OBJECT;
                    dt->name = nm;
                    t = dt;
                    break;
                }
            }
        }
        if (!t || t->kind != CEL_T_OBJECT) {
            cel_error_at(R->err, R->src, n->pos, "undeclared reference to '%s' (in container '%s')", n->name,
                         R->env->container);
            R->failed = true;
            return;
        }
        n->struct_type = t;
        for (size_t i = 0; i < n->nargs; i++)
            res(R, n->vals[i]);
        return;
    }
    case N_COMPR: {
        res(R, n->range);
        res(R, n->accu_init);
        if (R->depth >= 63) {
            cel_error_at(R->err, R->src, n->pos, "comprehension nesting exceeds limit");
            R->failed = true;
            return;
        }
        int b = R->depth * 3;
        R->scope[b] = n->iter_var;
        R->scope[b + 1] = n->iter_var2;
        R->scope[b + 2] = n->accu_var;
        R->depth++;
        res(R, n->cond);
        res(R, n->step);
        res(R, n->result);
        R->depth--;
        return;
    }
    }
}

bool cel_resolve(const cel_env *env, kg_arena *a, const char *src, cel_node *root, cel_error *err)
{
    /* the scope array is written before it is read (scope_find looks below depth only) */
    resolver R;
    R.depth = 0;
    R.failed = false;
    R.mq_root = NULL;
    R.mq_len = 0;
    R.mq_ans = false;
    R.env = env;
    R.a = a;
    R.src = src;
    R.err = err;
    res(&R, root);
    return !R.failed;
}

/* ================================================================ prepare */

/* the prepare hooks of one call node (its arguments are prepared already) */
bool cel_prepare_call(cel_prepare_ctx *pc, const char *src, cel_node *n, cel_error *err)
{
    const cel_func *f = n->fn;
    if (!f)
        return true;
    /* prepare hooks only ever see calls with a constant argument */
    bool hasc = false;
    for (size_t i = 0; i < n->nargs && i < 8 && !hasc; i++)
        hasc = n->args[i]->kind == N_CONST;
    if (!hasc)
        return true;
    /* only overloads the call can dispatch to (same arity and receiver style) are prepared: a member call never
     * runs a global overload's state (matches() has both, which used to compile the same pattern twice) */
    bool member = (n->flags & NF_MEMBER) != 0;
    for (size_t k = 0; k < f->novl; k++) {
        const cel_overload *o = &f->ovls[k];
        if (!o->prepare || o->nargs != n->nargs || ((o->flags & CEL_FN_MEMBER) != 0) != member)
            continue;
        cel_value consts[8];
        bool isc[8];
        bool anyc = false;
        for (size_t i = 0; i < n->nargs && i < 8; i++) {
            isc[i] = n->args[i]->kind == N_CONST;
            consts[i] = isc[i] ? n->args[i]->cval : cel_null();
            anyc |= isc[i];
        }
        if (!anyc)
            continue;
        bool match = true;
        for (size_t i = 0; i < n->nargs && i < 8; i++)
            if (isc[i] && !cel_value_matches_type(&consts[i], o->args[i]))
                match = false;
        if (!match)
            continue;
        const char *e = NULL;
        void *st = o->prepare(pc, consts, isc, n->nargs, &e);
        if (e) {
            cel_error_at(err, src, n->pos, "%s", e);
            return false;
        }
        if (st) {
            if (!n->states)
                n->states = kg_arena_calloc(pc->arena, f->novl * sizeof(void *));
            n->states[k] = st;
        }
    }
    return true;
}

bool cel_prepare_calls(cel_prepare_ctx *pc, const char *src, cel_node *n, cel_error *err, int *max_depth, int depth)
{
    if (!n)
        return true;
    if (depth > *max_depth)
        *max_depth = depth;
    switch ((node_kind)n->kind) {
    case N_CALL: {
        for (size_t i = 0; i < n->nargs; i++)
            if (!cel_prepare_calls(pc, src, n->args[i], err, max_depth, depth))
                return false;
        return cel_prepare_call(pc, src, n, err);
    }
    case N_SELECT: return cel_prepare_calls(pc, src, n->target, err, max_depth, depth);
    case N_LIST:
        for (size_t i = 0; i < n->nargs; i++)
            if (!cel_prepare_calls(pc, src, n->args[i], err, max_depth, depth))
                return false;
        return true;
    case N_MAP:
    case N_STRUCT:
        for (size_t i = 0; i < n->nargs; i++)
            if (!cel_prepare_calls(pc, src, n->args[i], err, max_depth, depth) ||
                !cel_prepare_calls(pc, src, n->vals[i], err, max_depth, depth))
                return false;
        return true;
    case N_COMPR:
        return cel_prepare_calls(pc, src, n->range, err, max_depth, depth) &&
               cel_prepare_calls(pc, src, n->accu_init, err, max_depth, depth) &&
               cel_prepare_calls(pc, src, n->cond, err, max_depth, depth + 1) &&
               cel_prepare_calls(pc, src, n->step, err, max_depth, depth + 1) &&
               cel_prepare_calls(pc, src, n->result, err, max_depth, depth + 1);
    default: return true;
    }
}
