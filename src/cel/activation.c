/* Activations (variable bindings for one evaluation) and the call context accessors; cel_eval is in eval.c. */
#include <stdio.h>
#include <stdlib.h>

#include "cel/cel_internal.h"

/* ---------------------------------------------------------------- activation */

__attribute__((always_inline)) static inline cel_activation *activation_init(cel_activation *a, const cel_env *env,
                                                                             kg_arena *arena, size_t ns)
{
    a->env = env;
    a->arena = arena;
    a->slots = (cel_value *)(a + 1);
    a->nslots = ns;
    a->extra = NULL;
    a->resolver = NULL;
    a->resolver_ud = NULL;
    a->host = NULL;
    for (size_t i = 0; i < ns; i++) /* an unbound slot only needs its kind written */
        a->slots[i].kind = CEL_SLOT_UNSET;
    return a;
}

__attribute__((noinline)) static cel_activation *activation_new_slow(const cel_env *env, kg_arena *arena, size_t ns)
{
    return activation_init(kg_arena_alloc_slow(arena, sizeof(cel_activation) + ns * sizeof(cel_value)), env, arena, ns);
}

/* one block: the activation, then its slots; the bump allocation inline, a new chunk out of line (so that the usual
 * path saves no registers) */
cel_activation *cel_activation_new(const cel_env *env, kg_arena *arena)
{
    size_t ns = env->nvars;
    size_t sz = (sizeof(cel_activation) + ns * sizeof(cel_value) + 15u) & ~(size_t)15u;
    if (__builtin_expect((size_t)(arena->end - arena->ptr) < sz, 0))
        return activation_new_slow(env, arena, ns);
    cel_activation *a = (cel_activation *)(void *)arena->ptr;
    arena->ptr += sz;
    return activation_init(a, env, arena, ns);
}

/* Variables declared after the activation was made (before the env's first compile) get their slots here, when
 * a program that may read them is evaluated (cel_eval). */
__attribute__((noinline)) void cel_activation_grow(cel_activation *act, size_t ns)
{
    cel_value *s = kg_arena_alloc(act->arena, ns * sizeof(cel_value));
    if (act->nslots)
        memcpy(s, act->slots, act->nslots * sizeof(cel_value));
    for (size_t i = act->nslots; i < ns; i++)
        s[i].kind = CEL_SLOT_UNSET;
    act->slots = s;
    act->nslots = ns;
}

int cel_env_var_slot(const cel_env *env, const char *name)
{
    const var_decl *d = cel_env_var(env, name, strlen(name));
    return d ? d->slot : -1;
}

__attribute__((noinline)) static bool activation_bind_slow(cel_activation *act, int slot, const cel_value *v)
{
    if (slot < 0 || (size_t)slot >= act->env->nvars)
        return false;
    cel_activation_grow(act, act->env->nvars);
    act->slots[slot] = *v;
    return true;
}

bool cel_activation_bind(cel_activation *act, int slot, cel_value v)
{
    if ((size_t)slot < act->nslots) { /* (a negative slot is huge) */
        act->slots[slot] = v;
        return true;
    }
    return activation_bind_slow(act, slot, &v);
}

/* the whole search: declared variables, then the extra bindings (appended when new) */
__attribute__((noinline)) static void activation_set_slow(cel_activation *act, const char *name, const cel_value *pv)
{
    cel_value v = *pv;
    const var_decl *d = cel_env_var(act->env, name, strlen(name));
    if (d) {
        cel_activation_bind(act, d->slot, v);
        return;
    }
    for (bound_var *b = act->extra; b; b = b->next)
        if (!strcmp(b->name, name)) {
            b->v = v;
            return;
        }
    bound_var *b = kg_arena_alloc(act->arena, sizeof *b);
    b->name = kg_arena_strdup(act->arena, name);
    b->v = v;
    b->next = act->extra;
    act->extra = b;
}

/* The usual case first: the first declared variable whose name starts with name's first byte is name, and has a
 * slot (one strcmp, few registers kept across it); anything else searches again out of line. */
void cel_activation_set(cel_activation *act, const char *name, cel_value v)
{
    const cel_env *env = act->env;
    const var_decl *d = env->vars, *e = d + env->nvars;
    char c = name[0];
    while (d < e && d->name[0] != c)
        d++;
    if (d < e && strcmp(d->name, name) == 0 && (size_t)d->slot < act->nslots) {
        act->slots[d->slot] = v;
        return;
    }
    activation_set_slow(act, name, &v);
}

void cel_activation_set_resolver(cel_activation *act, cel_resolve_fn fn, void *ud)
{
    act->resolver = fn;
    act->resolver_ud = ud;
}
void cel_activation_set_host(cel_activation *act, void *host)
{
    act->host = host;
}
kg_arena *cel_activation_arena(cel_activation *act)
{
    return act->arena;
}

/* ---------------------------------------------------------------- call ctx */

kg_arena *cel_call_arena(cel_call_ctx *ctx)
{
    return ctx->arena;
}
void *cel_call_userdata(cel_call_ctx *ctx)
{
    return ctx->cur_ovl ? ctx->cur_ovl->ud : NULL;
}
void *cel_call_state(cel_call_ctx *ctx)
{
    return ctx->cur_state;
}
void cel_call_add_cost(cel_call_ctx *ctx, uint64_t cost)
{
    ctx->cost += cost;
}
void *cel_call_host(cel_call_ctx *ctx)
{
    return ctx->act ? ctx->act->host : NULL;
}
