#include "json/json_index.h"
#include "base/hash.h"

#include <string.h>

static uint64_t key_hash(const char *k, size_t n)
{
    return kg_fnv1a64(k, n);
}

void kg_json_index_insert(kg_json_index *x, const kg_json *obj, uint32_t idx)
{
    const kg_json_member *m = &obj->u.members[idx];
    uint32_t i = (uint32_t)key_hash(m->key, m->key_len) & x->mask;
    while (x->slot[i])
        i = (i + 1) & x->mask;
    x->slot[i] = idx + 1;
    x->n++;
}

void kg_json_index_build(kg_arena *a, kg_json_index *x, const kg_json *obj, uint32_t extra)
{
    uint32_t cap = 16;
    while (cap < (obj->len + extra) * 2 + 2)
        cap <<= 1;
    x->slot = kg_arena_calloc(a, cap * sizeof *x->slot);
    x->mask = cap - 1;
    x->n = 0;
    for (uint32_t i = 0; i < obj->len; i++)
        kg_json_index_insert(x, obj, i);
}

int64_t kg_json_index_find(const kg_json_index *x, const kg_json *obj, const char *k, size_t n)
{
    for (uint32_t i = (uint32_t)key_hash(k, n) & x->mask; x->slot[i]; i = (i + 1) & x->mask) {
        const kg_json_member *m = &obj->u.members[x->slot[i] - 1];
        if (m->key_len == n && memcmp(m->key, k, n) == 0)
            return x->slot[i] - 1;
    }
    return -1;
}
