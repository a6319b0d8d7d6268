/* The dynamic resource set: an atomically swapped immutable snapshot (dynamic.h). */
#include "api/dynamic.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static kg_dynamic_set *current;
static kg_dynamic_set *retired;
static pthread_mutex_t publish_mu = PTHREAD_MUTEX_INITIALIZER; /* publishers only; readers never take it */
static uint64_t generation;

kg_dynamic_set *kg_dynamic_new(void)
{
    kg_dynamic_set *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    kg_arena_init(&s->arena, 0);
    return s;
}

void kg_dynamic_publish(kg_dynamic_set *s)
{
    pthread_mutex_lock(&publish_mu);
    s->generation = ++generation;
    kg_dynamic_set *old = __atomic_exchange_n(&current, s, __ATOMIC_ACQ_REL);
    if (old) {
        old->retired_next = retired;
        retired = old;
    }
    pthread_mutex_unlock(&publish_mu);
}

const kg_dynamic_set *kg_dynamic_current(void)
{
    return __atomic_load_n(&current, __ATOMIC_ACQUIRE);
}

static void free_set(kg_dynamic_set *s)
{
    kg_arena_free(&s->arena);
    free(s);
}

void kg_dynamic_reset(void)
{
    pthread_mutex_lock(&publish_mu);
    kg_dynamic_set *s = __atomic_exchange_n(&current, NULL, __ATOMIC_ACQ_REL);
    if (s)
        free_set(s);
    while (retired) {
        kg_dynamic_set *n = retired->retired_next;
        free_set(retired);
        retired = n;
    }
    pthread_mutex_unlock(&publish_mu);
}

const kg_resource *kg_dynamic_find(const char *group, const char *version, const char *plural)
{
    const kg_dynamic_set *s = kg_dynamic_current();
    for (size_t i = 0; s && i < s->n; i++)
        if (!strcmp(s->res[i].group, group) && !strcmp(s->res[i].version, version) && !strcmp(s->res[i].plural, plural))
            return &s->res[i];
    return NULL;
}

/* The first entry of a CRD is its storage version (apiext/registry.c orders them so). */
const kg_resource *kg_dynamic_find_kind(const char *group, const char *kind)
{
    const kg_dynamic_set *s = kg_dynamic_current();
    for (size_t i = 0; s && i < s->n; i++)
        if (!strcmp(s->res[i].group, group) && !strcmp(s->res[i].kind, kind))
            return &s->res[i];
    return NULL;
}

const kg_resource *kg_dynamic_find_plural(const char *plural)
{
    const kg_dynamic_set *s = kg_dynamic_current();
    for (size_t i = 0; s && i < s->n; i++)
        if (!strcmp(s->res[i].plural, plural))
            return &s->res[i];
    return NULL;
}
