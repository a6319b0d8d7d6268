#include "json/shared.h"

#include <stdatomic.h>
#include <stdlib.h>

typedef struct memo {
    kg_arena arena;
    void *data;
} memo;

struct kg_json_shared {
    atomic_int refs;
    kg_arena arena;
    const kg_json *root;
    _Atomic(memo *) memo[KG_JSON_SHARED_MEMO_SLOTS];
};

static kg_json_shared *alloc_shared(void)
{
    kg_json_shared *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    atomic_init(&s->refs, 1);
    for (unsigned i = 0; i < KG_JSON_SHARED_MEMO_SLOTS; i++)
        atomic_init(&s->memo[i], NULL);
    return s;
}

kg_json_shared *kg_json_shared_new(const kg_json *v)
{
    kg_json_shared *s = alloc_shared();
    kg_arena_init(&s->arena, 1024);
    s->root = kg_json_clone(&s->arena, v);
    return s;
}

kg_json_shared *kg_json_shared_adopt(kg_arena *a, const kg_json *v)
{
    kg_json_shared *s = alloc_shared();
    s->arena = *a;
    kg_arena_init(a, a->chunk_size);
    s->root = v;
    return s;
}

const kg_json *kg_json_shared_root(const kg_json_shared *s)
{
    return s->root;
}

kg_json_shared *kg_json_shared_ref(kg_json_shared *s)
{
    atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
    return s;
}

void kg_json_shared_unref(kg_json_shared *s)
{
    if (!s || atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (unsigned i = 0; i < KG_JSON_SHARED_MEMO_SLOTS; i++) {
        memo *m = atomic_load_explicit(&s->memo[i], memory_order_acquire);
        if (m) {
            kg_arena_free(&m->arena);
            free(m);
        }
    }
    kg_arena_free(&s->arena);
    free(s);
}

static void unpin(void *p)
{
    kg_json_shared_unref(p);
}

kg_json_shared *kg_json_shared_pin(kg_json_shared *s, kg_arena *a)
{
    kg_json_shared_ref(s);
    kg_arena_on_reset(a, unpin, s);
    return s;
}

kg_json_shared *kg_json_shared_new_pinned(kg_arena *a, const kg_json *v)
{
    kg_json_shared *s = kg_json_shared_new(v);
    kg_arena_on_reset(a, unpin, s); /* the arena owns the only reference */
    return s;
}

const void *kg_json_shared_memo(kg_json_shared *s, unsigned slot, kg_json_memo_build build, void *ud)
{
    if (slot >= KG_JSON_SHARED_MEMO_SLOTS)
        abort();
    memo *m = atomic_load_explicit(&s->memo[slot], memory_order_acquire);
    if (m)
        return m->data;
    memo *mine = malloc(sizeof *mine);
    if (!mine)
        abort();
    kg_arena_init(&mine->arena, 512);
    mine->data = build(&mine->arena, s->root, ud);
    memo *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&s->memo[slot], &expected, mine, memory_order_acq_rel,
                                                memory_order_acquire))
        return mine->data;
    kg_arena_free(&mine->arena); /* another reader built it first */
    free(mine);
    return expected->data;
}
