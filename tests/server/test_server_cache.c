/* Watch-fed caches: an initial list, then every store change reflected; lists per namespace in order; change
 * notification to subscribers; waiting for several caches at once (all synced, or the timeout). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server/apiserver.h"
#include "server/cache.h"
#include "storage/transformer.h"

static void put_cm(kg_store *st, kg_arena *a, const char *ns, const char *name, const char *val)
{
    const kg_resource *r = kg_resource_find("", "v1", "configmaps");
    char *json = kg_arena_sprintf(a,
                                  "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\","
                                  "\"namespace\":\"%s\"},\"data\":{\"v\":\"%s\"}}",
                                  name, ns, val);
    kg_error err;
    const char *key = kg_resource_key(a, r, ns, name);
    if (!kg_store_create(st, key, json, strlen(json), NULL, &err))
        assert_true(kg_store_update(st, key, json, strlen(json), 0, NULL, &err));
}

static const char *cache_val(kg_cache_set *cs, kg_arena *a, const char *ns, const char *name)
{
    kg_error err;
    kg_json *o = kg_cache_get(cs, kg_resource_find("", "v1", "configmaps"), ns, name, a, &err);
    return o ? kg_json_path_str(o, "data.v") : NULL;
}

/* the cache is eventually consistent: poll up to 5 s */
static bool eventually(kg_cache_set *cs, kg_arena *a, const char *ns, const char *name, const char *want)
{
    for (int i = 0; i < 500; i++) {
        const char *v = cache_val(cs, a, ns, name);
        if ((!want && !v) || (want && v && !strcmp(v, want)))
            return true;
        usleep(10000);
    }
    return false;
}

static void cache_follows_the_store(void **state)
{
    char dir[] = "/tmp/kgate-cache-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    kg_error err;
    kg_store *st = kg_store_open("sqlite", dir, NULL, &err);
    assert_non_null(st);
    kg_arena a;
    kg_arena_init(&a, 0);
    put_cm(st, &a, "b", "x", "1");
    put_cm(st, &a, "a", "y", "2");
    put_cm(st, &a, "a", "x", "3");
    kg_cache_set *cs = kg_cache_set_new(st);
    const kg_resource *r = kg_resource_find("", "v1", "configmaps");
    assert_true(kg_cache_wait_synced(cs, r, 5000));
    assert_string_equal(cache_val(cs, &a, "a", "y"), "2");
    kg_json *all = kg_cache_list(cs, r, "", &a, &err);
    assert_int_equal(all->len, 3);
    assert_string_equal(kg_json_path_str(all->u.items[0], "metadata.namespace"), "a");
    assert_string_equal(kg_json_path_str(all->u.items[0], "metadata.name"), "x");
    assert_string_equal(kg_json_path_str(all->u.items[2], "metadata.namespace"), "b");
    kg_json *only_a = kg_cache_list(cs, r, "a", &a, &err);
    assert_int_equal(only_a->len, 2);
    /* changes after the initial list arrive through the watch */
    put_cm(st, &a, "a", "y", "20");
    put_cm(st, &a, "c", "z", "9");
    assert_true(eventually(cs, &a, "a", "y", "20"));
    assert_true(eventually(cs, &a, "c", "z", "9"));
    assert_non_null(kg_json_path_str(kg_cache_get(cs, r, "c", "z", &a, &err), "metadata.resourceVersion"));
    assert_true(kg_store_delete(st, kg_resource_key(&a, r, "b", "x"), 0, &a, NULL, NULL, &err));
    assert_true(eventually(cs, &a, "b", "x", NULL));
    assert_null(kg_cache_get(cs, r, "b", "x", &a, &err));
    assert_int_equal(err.code, KG_ENOTFOUND);
    kg_cache_set_free(cs);
    kg_store_close(st);
    kg_arena_free(&a);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

typedef struct reader_arg {
    kg_cache_set *cs;
    int stop; /* atomic */
    int reads;
} reader_arg;

static void *view_reader(void *p)
{
    reader_arg *ra = p;
    const kg_resource *r = kg_resource_find("", "v1", "configmaps");
    kg_arena a;
    kg_arena_init(&a, 0);
    while (!__atomic_load_n(&ra->stop, __ATOMIC_ACQUIRE)) {
        kg_error err;
        kg_json_shared **docs;
        size_t n = kg_cache_view_list(ra->cs, r, "v", &a, &docs, &err);
        for (size_t i = 0; i < n; i++) {
            const char *v = kg_json_path_str(kg_json_shared_root(docs[i]), "data.v");
            assert_non_null(v);
            assert_true(v[0] >= '0' && v[0] <= '9');
        }
        __atomic_fetch_add(&ra->reads, 1, __ATOMIC_RELAXED);
        kg_arena_reset(&a); /* releases the pinned documents */
    }
    kg_arena_free(&a);
    return NULL;
}

/* Views are the cached documents themselves: a pinned one stays readable after the cache replaced it, and readers
 * running while the watch thread replaces documents never see a freed or half-built one (ASan/TSan). */
static void views_survive_updates(void **state)
{
    (void)state;
    char dir[] = "/tmp/kgate-cache-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    kg_error err;
    kg_store *st = kg_store_open("sqlite", dir, NULL, &err);
    assert_non_null(st);
    kg_arena a, pin;
    kg_arena_init(&a, 0);
    kg_arena_init(&pin, 0);
    put_cm(st, &a, "v", "x", "1");
    kg_cache_set *cs = kg_cache_set_new(st);
    const kg_resource *r = kg_resource_find("", "v1", "configmaps");
    assert_true(kg_cache_wait_synced(cs, r, 5000));
    kg_json_shared *old = kg_cache_view(cs, r, "v", "x", &pin, &err);
    assert_non_null(old);
    put_cm(st, &a, "v", "x", "2");
    assert_true(eventually(cs, &a, "v", "x", "2"));
    assert_string_equal(kg_json_path_str(kg_json_shared_root(old), "data.v"), "1"); /* still the old version */
    kg_arena_reset(&pin);
    assert_null(kg_cache_view(cs, r, "v", "nope", &pin, &err));
    assert_int_equal(err.code, KG_ENOTFOUND);

    reader_arg ra = {cs, 0, 0};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, view_reader, &ra);
    for (int i = 0; i < 200; i++) {
        char name[16], val[8];
        snprintf(name, sizeof name, "n%d", i % 7);
        snprintf(val, sizeof val, "%d", i % 10);
        put_cm(st, &a, "v", name, val);
        kg_arena_reset(&a);
    }
    put_cm(st, &a, "v", "last", "7");
    assert_true(eventually(cs, &a, "v", "last", "7"));
    assert_true(eventually(cs, &a, "v", "n4", "3")); /* i = 193 wrote n4 last */
    __atomic_store_n(&ra.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert_true(__atomic_load_n(&ra.reads, __ATOMIC_RELAXED) > 0);
    kg_cache_set_free(cs);
    kg_store_close(st);
    kg_arena_free(&a);
    kg_arena_free(&pin);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A subscriber recording "<TYPE> ns/name=data.v" (and whether the cache already shows the change). */
typedef struct events {
    pthread_mutex_t mu;
    kg_cache_set *cs;
    char log[4096];
    int n;
} events;

static void on_event(void *ud, const kg_admission_event *ev)
{
    events *e = ud;
    static const char *const names[] = {"", "ADDED", "MODIFIED", "DELETED", "RESYNC"};
    const char *v = ev->object ? kg_json_path_str(ev->object, "data.v") : NULL;
    kg_arena a;
    kg_arena_init(&a, 0);
    /* an object event: the value the cache shows; RESYNC: whether the cache already reads as synced */
    const char *seen = NULL;
    if (ev->name[0])
        seen = cache_val(e->cs, &a, ev->ns, ev->name);
    else if (kg_cache_synced(e->cs, kg_resource_find("", "v1", "configmaps")))
        seen = "synced";
    pthread_mutex_lock(&e->mu);
    size_t l = strlen(e->log);
    snprintf(e->log + l, sizeof e->log - l, "%s%s %s %s/%s=%s cache=%s", l ? "," : "", names[ev->type], ev->resource,
             ev->ns, ev->name, v ? v : "-", seen ? seen : "-");
    e->n++;
    pthread_mutex_unlock(&e->mu);
    kg_arena_free(&a);
}

static bool wait_events(events *e, int n)
{
    for (int i = 0; i < 500; i++) {
        pthread_mutex_lock(&e->mu);
        int have = e->n;
        pthread_mutex_unlock(&e->mu);
        if (have >= n)
            return true;
        usleep(10000);
    }
    return false;
}

static void subscribers_see_changes_in_order(void **state)
{
    char dir[] = "/tmp/kgate-cache-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    kg_error err;
    kg_store *st = kg_store_open("sqlite", dir, NULL, &err);
    assert_non_null(st);
    kg_arena a;
    kg_arena_init(&a, 0);
    put_cm(st, &a, "a", "old", "0");
    kg_cache_set *cs = kg_cache_set_new(st);
    const kg_resource *r = kg_resource_find("", "v1", "configmaps");
    events e = {.mu = PTHREAD_MUTEX_INITIALIZER, .cs = cs};
    events gone = {.mu = PTHREAD_MUTEX_INITIALIZER, .cs = cs};
    /* subscribing starts the cache: the initial list is a RESYNC (existing objects are not replayed) */
    uint64_t id = kg_cache_subscribe(cs, r, on_event, &e);
    uint64_t id2 = kg_cache_subscribe(cs, r, on_event, &gone);
    assert_true(id > 0 && id2 != id);
    assert_true(wait_events(&e, 1));
    put_cm(st, &a, "a", "x", "1");
    put_cm(st, &a, "a", "x", "2");
    assert_true(kg_store_delete(st, kg_resource_key(&a, r, "a", "x"), 0, &a, NULL, NULL, &err));
    put_cm(st, &a, "b", "y", "3");
    assert_true(wait_events(&e, 5));
    assert_string_equal(e.log, "RESYNC configmaps /=- cache=synced,"
                               "ADDED configmaps a/x=1 cache=1,MODIFIED configmaps a/x=2 cache=2,"
                               "DELETED configmaps a/x=2 cache=-,ADDED configmaps b/y=3 cache=3");
    /* after unsubscribe: no more calls */
    kg_cache_unsubscribe(cs, id2);
    int before = gone.n;
    put_cm(st, &a, "b", "y", "4");
    assert_true(wait_events(&e, 6));
    assert_int_equal(gone.n, before);
    kg_cache_unsubscribe(cs, 987654); /* unknown: no-op */
    kg_cache_unsubscribe(cs, id);
    kg_cache_set_free(cs);
    kg_store_close(st);
    kg_arena_free(&a);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* Several caches, one slower (it has many objects to list and decode): the single wait returns once every one of
 * them is synced, and by then the slow one holds its whole list. Required caches are waited for together. */
static void wait_all_returns_when_every_cache_is_synced(void **state)
{
    (void)state;
    char dir[] = "/tmp/kgate-cache-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    kg_error err;
    kg_store *st = kg_store_open("sqlite", dir, NULL, &err);
    assert_non_null(st);
    kg_arena a;
    kg_arena_init(&a, 0);
    enum { NSLOW = 100 };
    for (int i = 0; i < NSLOW; i++)
        put_cm(st, &a, "slow", kg_arena_sprintf(&a, "cm%03d", i), "v");
    const kg_resource *rs[] = {kg_resource_find("", "v1", "namespaces"), kg_resource_find("", "v1", "configmaps"),
                               kg_resource_find("", "v1", "secrets")};
    kg_cache_set *cs = kg_cache_set_new(st);
    for (size_t i = 0; i < 3; i++)
        assert_false(kg_cache_synced(cs, rs[i])); /* nothing started yet */
    const kg_resource *late = rs[0];
    assert_true(kg_cache_wait_all_synced(cs, rs, 3, 10000, &late));
    assert_null(late);
    for (size_t i = 0; i < 3; i++)
        assert_true(kg_cache_synced(cs, rs[i]));
    assert_int_equal(kg_cache_list(cs, rs[1], "slow", &a, &err)->len, NSLOW);
    /* an empty set is synced; a synced cache answers at once, also with no time left */
    assert_true(kg_cache_wait_all_synced(cs, rs, 0, 0, NULL));
    assert_true(kg_cache_wait_synced(cs, rs[1], 0));
    kg_cache_set_free(cs);

    /* the same through readiness registration: nothing is waited for until required */
    cs = kg_cache_set_new(st);
    assert_true(kg_cache_wait_required(cs, 0, NULL));
    kg_cache_require(cs, rs[1]);
    kg_cache_require(cs, rs[0]);
    assert_true(kg_cache_wait_required(cs, 10000, &late));
    assert_null(late);
    assert_true(kg_cache_synced(cs, rs[0]) && kg_cache_synced(cs, rs[1]));
    assert_int_equal(kg_cache_list(cs, rs[1], "", &a, &err)->len, NSLOW);
    assert_false(kg_cache_synced(cs, rs[2])); /* not required, never started */
    kg_cache_set_free(cs);
    kg_store_close(st);
    kg_arena_free(&a);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A cache that cannot list (a Secret encrypted with a key the store no longer has: every list of secrets fails, the
 * cache retries) never syncs: the wait gives up after its timeout and names it; the other caches sync regardless. */
static void wait_all_times_out_naming_the_cache_that_does_not_sync(void **state)
{
    (void)state;
    char dir[] = "/tmp/kgate-cache-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    kg_error err;
    kg_store *st = kg_store_open("sqlite", dir, NULL, &err);
    assert_non_null(st);
    static const char gone[] = "k8s:enc:aescbc:v1:gone:0123456789abcdef0123456789abcdef";
    assert_true(kg_store_create(st, "/registry/secrets/default/s", gone, sizeof gone - 1, NULL, &err));
    kg_store_close(st);
    static const char cfg[] = "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
                              "- resources: [secrets]\n  providers:\n  - aescbc: {keys: [{name: k, secret: "
                              "\"K34VFiiu0qar9xWICc9PPA==\"}]}\n";
    kg_transformer *xf = kg_transformer_parse(cfg, sizeof cfg - 1, &err);
    assert_non_null(xf);
    kg_store_options o = {.transformer = xf};
    st = kg_store_open("sqlite", dir, &o, &err);
    assert_non_null(st);
    const kg_resource *ns = kg_resource_find("", "v1", "namespaces"), *sec = kg_resource_find("", "v1", "secrets");
    kg_cache_set *cs = kg_cache_set_new(st);
    kg_cache_require(cs, sec);
    kg_cache_require(cs, ns);
    const kg_resource *late = NULL;
    assert_false(kg_cache_wait_required(cs, 300, &late));
    assert_ptr_equal(late, sec);
    const kg_resource *both[] = {ns, sec};
    late = NULL;
    assert_false(kg_cache_wait_all_synced(cs, both, 2, 100, &late));
    assert_ptr_equal(late, sec);
    assert_false(kg_cache_wait_synced(cs, sec, 0));
    assert_true(kg_cache_wait_synced(cs, ns, 10000)); /* the other cache is not held up */
    kg_cache_set_free(cs);
    kg_store_close(st);
    kg_transformer_free(xf);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(cache_follows_the_store),
                                       cmocka_unit_test(views_survive_updates),
                                       cmocka_unit_test(subscribers_see_changes_in_order),
                                       cmocka_unit_test(wait_all_returns_when_every_cache_is_synced),
                                       cmocka_unit_test(wait_all_times_out_naming_the_cache_that_does_not_sync)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
