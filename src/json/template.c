#include "json/template.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* one internal pointer of the block: the field at offset `at` points to offset `to` */
typedef struct reloc {
    uint32_t at, to;
} reloc;

struct kg_json_template {
    char *block;
    size_t size;
    reloc *relocs;
    size_t nrelocs;
};

static size_t measure(const kg_json *v, size_t *npointers)
{
    size_t n = sizeof(kg_json);
    if (v->type == KG_JSON_ARRAY) {
        n += (size_t)v->len * sizeof(kg_json *);
        *npointers += 1 + v->len;
        for (uint32_t i = 0; i < v->len; i++)
            if (v->u.items[i])
                n += measure(v->u.items[i], npointers);
    } else if (v->type == KG_JSON_OBJECT) {
        n += (size_t)v->len * sizeof(kg_json_member);
        *npointers += 1 + v->len;
        for (uint32_t i = 0; i < v->len; i++)
            if (v->u.members[i].val)
                n += measure(v->u.members[i].val, npointers);
    }
    return n;
}

typedef struct builder {
    char *block;
    size_t used;
    reloc *relocs;
    size_t nrelocs;
} builder;

static void note(builder *b, const void *field, size_t to)
{
    b->relocs[b->nrelocs++] = (reloc){(uint32_t)((const char *)field - b->block), (uint32_t)to};
}

/* writes v at b->used (nodes before their arrays, arrays before the children); returns its offset */
static size_t lay_out(builder *b, const kg_json *v)
{
    size_t at = b->used;
    kg_json *d = (kg_json *)(void *)(b->block + at);
    b->used += sizeof(kg_json);
    *d = *v;
    d->cap = 0;
    if (v->type != KG_JSON_ARRAY && v->type != KG_JSON_OBJECT)
        return at;
    d->cap = v->len;
    if (!v->len) {
        d->u.items = NULL;
        return at;
    }
    size_t arr = b->used;
    note(b, &d->u.items, arr); /* u.items and u.members share the field */
    if (v->type == KG_JSON_ARRAY) {
        b->used += (size_t)v->len * sizeof(kg_json *);
        for (uint32_t i = 0; i < v->len; i++) {
            kg_json **slot = (kg_json **)(void *)(b->block + arr) + i;
            *slot = NULL;
            if (v->u.items[i])
                note(b, slot, lay_out(b, v->u.items[i]));
        }
    } else {
        b->used += (size_t)v->len * sizeof(kg_json_member);
        for (uint32_t i = 0; i < v->len; i++) {
            kg_json_member *m = (kg_json_member *)(void *)(b->block + arr) + i;
            m->key = v->u.members[i].key;
            m->key_len = v->u.members[i].key_len;
            m->val = NULL;
            if (v->u.members[i].val)
                note(b, &m->val, lay_out(b, v->u.members[i].val));
        }
    }
    return at;
}

_Static_assert(sizeof(kg_json) % 8 == 0 && sizeof(kg_json_member) % 8 == 0, "template layout keeps 8-byte alignment");

kg_json_template *kg_json_template_new(const kg_json *v)
{
    if (!v)
        return NULL;
    size_t npointers = 0, size = measure(v, &npointers);
    if (size > UINT32_MAX)
        return NULL;
    kg_json_template *t = calloc(1, sizeof *t);
    builder b = {malloc(size), 0, malloc((npointers + 1) * sizeof(reloc)), 0};
    if (!t || !b.block || !b.relocs) {
        free(t);
        free(b.block);
        free(b.relocs);
        return NULL;
    }
    lay_out(&b, v);
    *t = (kg_json_template){b.block, size, b.relocs, b.nrelocs};
    return t;
}

void kg_json_template_free(kg_json_template *t)
{
    if (!t)
        return;
    free(t->block);
    free(t->relocs);
    free(t);
}

kg_json *kg_json_template_instance(kg_arena *a, const kg_json_template *t)
{
    char *blk = kg_arena_alloc(a, t->size);
    memcpy(blk, t->block, t->size);
    for (size_t i = 0; i < t->nrelocs; i++) {
        void *target = blk + t->relocs[i].to;
        memcpy(blk + t->relocs[i].at, &target, sizeof target);
    }
    return (kg_json *)(void *)blk; /* the root is laid out first */
}
