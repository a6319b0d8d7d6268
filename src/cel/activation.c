/* Activations (variable bindings for one evaluation) and the call context accessors; cel_eval is in eval.c. */
#include <stdio.h>
#include <stdlib.h>

#include "cel/cel_internal.h"

/* ---------------------------------------------------------------- activation */

cel_activation *cel_activation_new(const cel_env *env, kg_arena *arena)
{
    /* one zeroed block: the activation, its slots, then the slot states */
    size_t ns = env->nvars;
    size_t sz = sizeof(cel_activation) + ns * (sizeof(cel_value) + 1);
    cel_activation *a = kg_arena_alloc(arena, sz);
    *a = (cel_activation){.env = env, .arena = arena, .nslots = ns};
    if (ns) {
        /* slot values are read only once their state says bound: only the states need zeroing */
        a->slots = (cel_value *)(a + 1);
        a->slot_state = (uint8_t *)(a->slots + ns);
        for (size_t i = 0; i < ns; i++) /* a few bytes: no memset call */
            a->slot_state[i] = 0;
    }
    return a;
}

/* the whole search: declared variables, then the extra bindings (appended when new) */
__attribute__((noinline)) static void activation_set_slow(cel_activation *act, const char *name, const cel_value *pv)
{
    cel_value v = *pv;
    const cel_env *env = act->env;
    for (size_t i = 0; i < env->nvars; i++) {
        const var_decl *d = &env->vars[i];
        if (d->name[0] == name[0] && strcmp(d->name, name) == 0) {
            if ((size_t)d->slot < act->nslots) {
                act->slots[d->slot] = v;
                act->slot_state[d->slot] = 1;
                return;
            }
            break;
        }
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
        act->slot_state[d->slot] = 1;
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
