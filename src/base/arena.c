#include "base/arena.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kg_arena_chunk {
    kg_arena_chunk *next;
    size_t size;
    /* data follows, 16-aligned */
    _Alignas(16) char data[];
};

struct kg_arena_cleanup {
    kg_arena_cleanup *next;
    void (*fn)(void *);
    void *p;
};

/* A one-chunk cache per thread: an arena freed and another one created right after (a request, a compile) reuse
 * the chunk instead of a malloc/free pair. Chunks up to KG_ARENA_CACHE_MAX bytes; off under the sanitizers so that
 * they keep seeing every arena's memory as freed. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KG_ARENA_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define KG_ARENA_CACHE 0
#endif
#endif
#ifndef KG_ARENA_CACHE
#define KG_ARENA_CACHE 1
#endif
#define KG_ARENA_CACHE_MAX (16u * 1024u)

#if KG_ARENA_CACHE
static _Thread_local kg_arena_chunk *tl_chunk;
static _Thread_local bool tl_registered;
static pthread_key_t tl_key;
static pthread_once_t tl_once = PTHREAD_ONCE_INIT;

static void tl_release(void *slot)
{
    kg_arena_chunk **p = slot;
    free(*p);
    *p = NULL;
}

static void tl_key_init(void)
{
    if (pthread_key_create(&tl_key, tl_release) != 0)
        abort();
}

/* keep c for this thread's next arena; false when the slot is taken or c is too big */
static bool cache_put(kg_arena_chunk *c)
{
    if (tl_chunk || c->size > KG_ARENA_CACHE_MAX)
        return false;
    if (!tl_registered) {
        /* the key's destructor frees the cached chunk when the thread exits */
        pthread_once(&tl_once, tl_key_init);
        if (pthread_setspecific(tl_key, &tl_chunk) != 0)
            return false;
        tl_registered = true;
    }
    tl_chunk = c;
    return true;
}

static kg_arena_chunk *cache_get(size_t size)
{
    kg_arena_chunk *c = tl_chunk;
    if (!c || c->size != size)
        return NULL;
    tl_chunk = NULL;
    return c;
}
#else
static bool cache_put(kg_arena_chunk *c)
{
    (void)c;
    return false;
}
static kg_arena_chunk *cache_get(size_t size)
{
    (void)size;
    return NULL;
}
#endif

static void chunk_free(kg_arena_chunk *c)
{
    if (!cache_put(c))
        free(c);
}

#define KG_ALIGN 16u
#define KG_DEFAULT_CHUNK 8192u

static size_t align_up(size_t n)
{
    return (n + (KG_ALIGN - 1)) & ~(size_t)(KG_ALIGN - 1);
}

void kg_arena_init(kg_arena *a, size_t chunk_size)
{
    memset(a, 0, sizeof *a);
    a->chunk_size = chunk_size ? chunk_size : KG_DEFAULT_CHUNK;
}

static void run_cleanups(kg_arena *a)
{
    /* a cleanup may register another one (it then lives in memory that is still allocated): loop until none */
    while (a->cleanups) {
        kg_arena_cleanup *c = a->cleanups;
        a->cleanups = NULL;
        for (; c; c = c->next)
            c->fn(c->p);
    }
}

void kg_arena_on_reset(kg_arena *a, void (*fn)(void *), void *p)
{
    kg_arena_cleanup *c = kg_arena_alloc(a, sizeof *c);
    c->fn = fn;
    c->p = p;
    c->next = a->cleanups;
    a->cleanups = c;
}

void kg_arena_free(kg_arena *a)
{
    if (a->cleanups)
        run_cleanups(a);
    kg_arena_chunk *c = a->head;
    while (c) {
        kg_arena_chunk *n = c->next;
        chunk_free(c);
        c = n;
    }
    a->head = NULL;
    a->ptr = a->end = NULL;
    a->total = 0;
    a->rewind = NULL;
}

void kg_arena_reset_slow(kg_arena *a)
{
    if (a->cleanups)
        run_cleanups(a);
    if (!a->head)
        return;
    if (!a->head->next) { /* it fit in the one chunk (with cleanups, or reached without the inline test) */
        a->ptr = a->rewind = a->head->data;
        return;
    }
    /* keep the oldest chunk (the last in the list), free the rest */
    kg_arena_chunk *c = a->head, *keep = NULL;
    while (c) {
        kg_arena_chunk *n = c->next;
        if (!n)
            keep = c;
        else
            chunk_free(c);
        c = n;
    }
    keep->next = NULL;
    a->head = keep;
    a->ptr = a->rewind = keep->data;
    a->end = keep->data + keep->size;
    a->total = keep->size + sizeof(kg_arena_chunk);
}

static void *new_chunk(kg_arena *a, size_t n)
{
    size_t size = a->chunk_size;
    if (n > size / 2) {
        /* big allocation: own chunk, inserted behind the head so the head keeps its free space */
        kg_arena_chunk *c = malloc(sizeof(kg_arena_chunk) + n);
        if (!c)
            abort();
        c->size = n;
        a->total += sizeof(kg_arena_chunk) + n;
        if (a->head) {
            c->next = a->head->next;
            a->head->next = c;
            a->rewind = NULL;
        } else {
            c->next = NULL;
            a->head = c;
            a->ptr = a->end = c->data + n;
            a->rewind = c->data;
        }
        return c->data;
    }
    kg_arena_chunk *c = cache_get(size);
    if (!c) {
        c = malloc(sizeof(kg_arena_chunk) + size);
        if (!c)
            abort();
        c->size = size;
    }
    a->rewind = a->head ? NULL : c->data;
    c->next = a->head;
    a->head = c;
    a->total += sizeof(kg_arena_chunk) + size;
    a->ptr = c->data + n;
    a->end = c->data + size;
    /* grow chunk size geometrically up to 1 MiB to keep chunk count logarithmic */
    if (a->chunk_size < (1u << 20))
        a->chunk_size *= 2;
    return c->data;
}

void *kg_arena_alloc_slow(kg_arena *a, size_t n)
{
    n = align_up(n ? n : 1);
    if ((size_t)(a->end - a->ptr) >= n && a->ptr) {
        void *p = a->ptr;
        a->ptr += n;
        return p;
    }
    return new_chunk(a, n);
}

void *kg_arena_calloc(kg_arena *a, size_t n)
{
    void *p = kg_arena_alloc(a, n);
    memset(p, 0, n);
    return p;
}

void *kg_arena_realloc(kg_arena *a, void *p, size_t old_n, size_t new_n)
{
    if (!p)
        return kg_arena_alloc(a, new_n);
    if (new_n <= old_n)
        return p;
    size_t oa = align_up(old_n ? old_n : 1);
    if ((char *)p + oa == a->ptr) {
        size_t extra = align_up(new_n) - oa;
        if ((size_t)(a->end - a->ptr) >= extra) {
            a->ptr += extra;
            return p;
        }
    }
    void *q = kg_arena_alloc(a, new_n);
    memcpy(q, p, old_n);
    return q;
}

char *kg_arena_strdup(kg_arena *a, const char *s)
{
    return kg_arena_strndup(a, s, strlen(s));
}

char *kg_arena_sprintf(kg_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return kg_arena_strdup(a, "");
    if ((size_t)n < sizeof tmp)
        return kg_arena_strndup(a, tmp, (size_t)n);
    char *p = kg_arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}
