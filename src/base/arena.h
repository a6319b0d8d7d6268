/* Arena allocator: a chain of chunks with bump allocation, freed all at once.
 * One arena per request keeps the request path free of malloc/free storms. */
#ifndef KG_BASE_ARENA_H
#define KG_BASE_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kg_arena_chunk kg_arena_chunk;
typedef struct kg_arena_cleanup kg_arena_cleanup;

typedef struct kg_arena {
    kg_arena_chunk *head;       /* current chunk (newest) */
    char *ptr;                  /* next free byte in head */
    char *end;                  /* end of head */
    size_t chunk_size;          /* default size of new chunks */
    size_t total;               /* bytes obtained from malloc, for accounting */
    kg_arena_cleanup *cleanups; /* run (newest first) by reset and free */
    char *rewind;               /* the data of the only chunk while there is exactly one, else NULL */
} kg_arena;

/* Initialise an arena; chunk_size 0 selects the default (8 KiB). No memory is taken until the first allocation. */
void kg_arena_init(kg_arena *a, size_t chunk_size);
/* Release every chunk. The arena may be reused after kg_arena_init. */
void kg_arena_free(kg_arena *a);
/* Drop every allocation but keep the first chunk for reuse. The usual case (one chunk, no cleanups) only rewinds
 * the bump pointer, inline. */
void kg_arena_reset_slow(kg_arena *a);
static inline void kg_arena_reset(kg_arena *a)
{
    if (a->rewind && !a->cleanups) {
        a->ptr = a->rewind;
        return;
    }
    kg_arena_reset_slow(a);
}

/* Run fn(p) when the arena is next reset or freed (newest registration first), before its memory goes: how a
 * request arena releases what it borrowed, e.g. references to shared immutable objects (json/shared.h). */
void kg_arena_on_reset(kg_arena *a, void (*fn)(void *), void *p);

/* Allocate n bytes aligned to 16. Aborts on out-of-memory (like xmalloc). Inline bump; a new chunk out of line. */
void *kg_arena_alloc_slow(kg_arena *a, size_t n);
static inline void *kg_arena_alloc(kg_arena *a, size_t n)
{
    n = n ? (n + 15u) & ~(size_t)15u : 16u;
    if ((size_t)(a->end - a->ptr) >= n) {
        void *p = a->ptr;
        a->ptr += n;
        return p;
    }
    return kg_arena_alloc_slow(a, n);
}
/* Writing before allocating, for a result whose size is known only once written: the free bytes of the current
 * chunk start at kg_arena_room (*room of them, 0 before the first chunk); kg_arena_commit(a, n) then allocates the
 * first n of them (n <= *room, with nothing allocated in between), at the same address. */
static inline char *kg_arena_room(kg_arena *a, size_t *room)
{
    *room = (size_t)(a->end - a->ptr);
    return a->ptr;
}
static inline bool kg_arena_commit(kg_arena *a, size_t n)
{
    n = n ? (n + 15u) & ~(size_t)15u : 16u;
    if ((size_t)(a->end - a->ptr) < n)
        return false;
    a->ptr += n;
    return true;
}
/* Allocate n zeroed bytes. */
void *kg_arena_calloc(kg_arena *a, size_t n);
/* Grow an allocation: returns a new block of new_n bytes holding the first old_n bytes of p.
 * If p is the most recent allocation and room remains, it is extended in place. */
void *kg_arena_realloc(kg_arena *a, void *p, size_t old_n, size_t new_n);
/* Copy n bytes and append a NUL. */
static inline char *kg_arena_strndup(kg_arena *a, const char *s, size_t n)
{
    char *p = (char *)kg_arena_alloc(a, n + 1);
    if (n)
        __builtin_memcpy(p, s, n);
    p[n] = 0;
    return p;
}
char *kg_arena_strdup(kg_arena *a, const char *s);
/* printf into the arena. */
char *kg_arena_sprintf(kg_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
