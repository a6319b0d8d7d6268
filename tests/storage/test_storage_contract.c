/* The storage contract, written against storage.h only, so every backend runs the same suite
 * (KGATE_STORE_BACKEND selects it; default "sqlite"). For "etcd3" the suite starts its own single-member etcd
 * (/usr/bin/etcd, loopback, random ports, a temp data dir; killed at the end) unless KGATE_ETCD_SERVERS names
 * one; each fixture gets its own --etcd-prefix, so fixtures never see each other's keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "json/json.h"
#include "storage/storage.h"

static const char *backend(void)
{
    const char *b = getenv("KGATE_STORE_BACKEND");
    return b && *b ? b : "sqlite";
}

/* Backends that keep their data across kg_store_close and a reopen of the same directory. The memory backend
 * (kgate check, unit tests) forgets everything on close by design: the tests of persistence across a restart are
 * skipped for it, saying so. */
static bool durable_backend(void)
{
    return strcmp(backend(), "memory") != 0;
}

static void skip_because(const char *test, const char *why)
{
    print_message("[  SKIPPED ] %s for backend %s: %s\n", test, backend(), why);
    skip();
}

typedef struct fixture {
    char dir[64];
    kg_store *s;
    kg_arena a;
} fixture;

static bool etcd_backend(void)
{
    return strcmp(backend(), "etcd3") == 0;
}

static char etcd_servers[128];

static kg_store *open_store(const char *dir, const kg_store_options *o)
{
    kg_error err = {0};
    kg_store_options eo = *o;
    char prefix[96];
    if (etcd_backend()) {
        /* the fixture's own keyspace: "/kgt-<temp dir name>" */
        const char *base = strrchr(dir, '/');
        snprintf(prefix, sizeof prefix, "/kgt-%s", base ? base + 1 : dir);
        eo.etcd.servers = etcd_servers;
        eo.etcd.prefix = prefix;
        if (eo.etcd.compaction_interval_ms == 0)
            eo.etcd.compaction_interval_ms = -1; /* tests compact explicitly unless they say otherwise */
    }
    kg_store *s = kg_store_open(backend(), dir, &eo, &err);
    if (!s)
        fail_msg("open: %s", err.msg);
    return s;
}

static fixture *fx_new(const kg_store_options *o)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/kgstore-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    f->s = open_store(f->dir, o);
    kg_arena_init(&f->a, 0);
    return f;
}

static void fx_free(fixture *f)
{
    kg_store_close(f->s);
    kg_arena_free(&f->a);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    assert_int_equal(system(cmd), 0);
    free(f);
}

static int setup(void **state)
{
    kg_store_options o = {.compact_interval_ms = -1};
    *state = fx_new(&o);
    return 0;
}

static int teardown(void **state)
{
    fx_free(*state);
    return 0;
}

static int64_t create(kg_store *s, const char *key, const char *val)
{
    kg_error err = {0};
    int64_t rev = 0;
    if (!kg_store_create(s, key, val, strlen(val), &rev, &err))
        fail_msg("create %s: %s", key, err.msg);
    return rev;
}

static int64_t update(kg_store *s, const char *key, const char *val, int64_t expected)
{
    kg_error err = {0};
    int64_t rev = 0;
    if (!kg_store_update(s, key, val, strlen(val), expected, &rev, &err))
        fail_msg("update %s: %s", key, err.msg);
    return rev;
}

static int64_t del(kg_store *s, const char *key)
{
    kg_error err = {0};
    int64_t rev = 0;
    if (!kg_store_delete(s, key, 0, NULL, NULL, &rev, &err))
        fail_msg("delete %s: %s", key, err.msg);
    return rev;
}

/* ---- CRUD, typed errors, conflicts ---- */

/* etcd's --max-request-bytes: a value over max_value_bytes is refused on every write path, nothing stored */
static bool update_big(void *ud, const kg_store_kv *cur, kg_arena *a, const void **nv, size_t *nlen, kg_error *err)
{
    (void)cur;
    (void)a;
    (void)err;
    *nv = ud;
    *nlen = 5000;
    return true;
}

static void test_value_size_limit(void **state)
{
    (void)state;
    kg_store_options o = {.compact_interval_ms = -1, .max_value_bytes = 4096};
    fixture *f = fx_new(&o);
    char *big = calloc(1, 5001);
    memset(big, 'x', 5000);
    kg_error err = {0};
    assert_false(kg_store_create(f->s, "/registry/configmaps/default/big", big, 5000, NULL, &err));
    assert_int_equal(err.code, KG_EINTERNAL);
    assert_string_equal(err.msg, "etcdserver: request is too large");
    assert_true(kg_store_create(f->s, "/registry/configmaps/default/ok", big, 4096, NULL, &err));
    assert_false(kg_store_update(f->s, "/registry/configmaps/default/ok", big, 4097, 0, NULL, &err));
    assert_string_equal(err.msg, "etcdserver: request is too large");
    assert_false(
        kg_store_guaranteed_update(f->s, "/registry/configmaps/default/ok", false, update_big, big, &f->a, NULL, &err));
    assert_string_equal(err.msg, "etcdserver: request is too large");
    kg_store_kv kv;
    assert_true(kg_store_get(f->s, "/registry/configmaps/default/ok", &f->a, &kv, &err));
    assert_int_equal(kv.value_len, 4096);
    assert_false(kg_store_get(f->s, "/registry/configmaps/default/big", &f->a, &kv, &err));
    free(big);
    fx_free(f);
}

static void test_crud(void **state)
{
    fixture *f = *state;
    kg_store *s = f->s;
    kg_error err = {0};
    kg_store_kv kv;
    int64_t r0 = kg_store_current_revision(s);
    assert_true(r0 >= 1);

    int64_t r1 = create(s, "/registry/pods/default/a", "{\"v\":1}");
    assert_int_equal(r1, r0 + 1);
    assert_int_equal(kg_store_current_revision(s), r1);
    assert_true(kg_store_get(s, "/registry/pods/default/a", &f->a, &kv, &err));
    assert_string_equal(kv.value, "{\"v\":1}");
    assert_int_equal(kv.value_len, 7);
    assert_int_equal(kv.mod_revision, r1);
    assert_int_equal(kv.create_revision, r1);

    /* create of an existing key: KG_EEXIST, no revision consumed */
    assert_false(kg_store_create(s, "/registry/pods/default/a", "x", 1, NULL, &err));
    assert_int_equal(err.code, KG_EEXIST);
    assert_int_equal(kg_store_current_revision(s), r1);

    /* conditional update */
    int64_t r2 = update(s, "/registry/pods/default/a", "{\"v\":2}", r1);
    assert_int_equal(r2, r1 + 1);
    assert_false(kg_store_update(s, "/registry/pods/default/a", "{\"v\":3}", 7, r1, NULL, &err));
    assert_int_equal(err.code, KG_ECONFLICT);
    assert_string_equal(err.msg,
                        "the object has been modified; please apply your changes to the latest version and try again");
    assert_true(kg_store_get(s, "/registry/pods/default/a", &f->a, &kv, &err));
    assert_string_equal(kv.value, "{\"v\":2}");
    assert_int_equal(kv.mod_revision, r2);
    assert_int_equal(kv.create_revision, r1);

    /* unconditional update */
    int64_t r3 = update(s, "/registry/pods/default/a", "{\"v\":3}", 0);
    assert_int_equal(r3, r2 + 1);

    /* update / delete of a missing key */
    assert_false(kg_store_update(s, "/registry/pods/default/zz", "x", 1, 0, NULL, &err));
    assert_int_equal(err.code, KG_ENOTFOUND);
    assert_false(kg_store_delete(s, "/registry/pods/default/zz", 0, &f->a, NULL, NULL, &err));
    assert_int_equal(err.code, KG_ENOTFOUND);
    assert_false(kg_store_get(s, "/registry/pods/default/zz", &f->a, &kv, &err));
    assert_int_equal(err.code, KG_ENOTFOUND);

    /* delete with a stale precondition, then for real: returns the deleted value */
    assert_false(kg_store_delete(s, "/registry/pods/default/a", r2, &f->a, NULL, NULL, &err));
    assert_int_equal(err.code, KG_ECONFLICT);
    kg_store_kv gone;
    int64_t r4 = 0;
    assert_true(kg_store_delete(s, "/registry/pods/default/a", r3, &f->a, &gone, &r4, &err));
    assert_int_equal(r4, r3 + 1);
    assert_string_equal(gone.value, "{\"v\":3}");
    assert_int_equal(gone.mod_revision, r3);
    assert_int_equal(gone.create_revision, r1);
    assert_false(kg_store_get(s, "/registry/pods/default/a", &f->a, &kv, &err));
    assert_int_equal(err.code, KG_ENOTFOUND);

    /* re-create: a new incarnation */
    int64_t r5 = create(s, "/registry/pods/default/a", "{}");
    assert_true(kg_store_get(s, "/registry/pods/default/a", &f->a, &kv, &err));
    assert_int_equal(kv.create_revision, r5);
    assert_int_equal(kg_store_current_revision(s), r5);

    /* empty values and binary values are kept exactly */
    create(s, "/registry/configmaps/default/empty", "");
    assert_true(kg_store_get(s, "/registry/configmaps/default/empty", &f->a, &kv, &err));
    assert_int_equal(kv.value_len, 0);
    const char bin[] = {'a', 0, 'b', (char)0xff};
    assert_true(kg_store_create(s, "/registry/secrets/default/bin", bin, sizeof bin, NULL, &err));
    assert_true(kg_store_get(s, "/registry/secrets/default/bin", &f->a, &kv, &err));
    assert_int_equal(kv.value_len, sizeof bin);
    assert_memory_equal(kv.value, bin, sizeof bin);

    /* bad keys */
    assert_false(kg_store_create(s, "registry/x", "x", 1, NULL, &err));
    assert_int_equal(err.code, KG_EINVAL);
    assert_false(kg_store_get(s, "", &f->a, &kv, &err));
    assert_int_equal(err.code, KG_EINVAL);
}

static void test_unknown_backend(void **state)
{
    (void)state;
    kg_error err = {0};
    assert_null(kg_store_open("leveldb", "/tmp", NULL, &err));
    assert_int_equal(err.code, KG_EUNSUPPORTED);
}

/* ---- lists ---- */

static void test_list_prefix_and_order(void **state)
{
    fixture *f = *state;
    kg_store *s = f->s;
    kg_error err = {0};
    create(s, "/registry/pods/b/x", "bx");
    create(s, "/registry/pods/a/y", "ay");
    create(s, "/registry/pods/a/x", "ax");
    create(s, "/registry/podsecuritypolicies/p", "psp"); /* shares the string prefix "/registry/pods" */
    create(s, "/registry/configmaps/a/x", "cm");
    kg_store_list_result res;
    assert_true(kg_store_list(s, "/registry/pods/", NULL, &f->a, &res, &err));
    assert_int_equal(res.n, 3);
    assert_string_equal(res.items[0].key, "/registry/pods/a/x");
    assert_string_equal(res.items[1].key, "/registry/pods/a/y");
    assert_string_equal(res.items[2].key, "/registry/pods/b/x");
    assert_string_equal(res.items[0].value, "ax");
    assert_null(res.continue_token);
    assert_int_equal(res.revision, kg_store_current_revision(s));

    assert_true(kg_store_list(s, "/registry/pods/a/", NULL, &f->a, &res, &err));
    assert_int_equal(res.n, 2);

    kg_store_list_opts ko = {.keys_only = true};
    assert_true(kg_store_list(s, "/registry/pods/", &ko, &f->a, &res, &err));
    assert_int_equal(res.n, 3);
    assert_null(res.items[0].value);
    assert_true(res.items[0].mod_revision > 0);

    assert_true(kg_store_list(s, "/registry/nothing/", NULL, &f->a, &res, &err));
    assert_int_equal(res.n, 0);

    kg_store_list_opts neg = {.limit = -1};
    assert_false(kg_store_list(s, "/registry/pods/", &neg, &f->a, &res, &err));
    assert_int_equal(err.code, KG_EINVAL);
}

static void test_list_paging_consistent_snapshot(void **state)
{
    fixture *f = *state;
    kg_store *s = f->s;
    kg_error err = {0};
    char key[96], val[64];
    const int N = 1500;
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "/registry/pods/ns%d/p%05d", i % 3, i);
        snprintf(val, sizeof val, "{\"i\":%d}", i);
        create(s, key, val);
        if (i % 7 == 0) {
            snprintf(key, sizeof key, "/registry/configmaps/ns/c%05d", i);
            create(s, key, "{}");
        }
    }
    kg_store_list_opts o = {.limit = 100};
    kg_store_list_result res;
    int seen = 0;
    int64_t snap = 0;
    char last[96] = "";
    int pages = 0;
    for (;;) {
        assert_true(kg_store_list(s, "/registry/pods/", &o, &f->a, &res, &err));
        if (pages == 0) {
            snap = res.revision;
            /* writes after the first page must not show up in later pages */
            create(s, "/registry/pods/ns0/aaaa-new", "{}");
            create(s, "/registry/pods/ns2/zzzz-new", "{}");
            update(s, "/registry/pods/ns2/p01499", "{\"changed\":true}", 0);
            del(s, "/registry/pods/ns1/p01498");
        }
        assert_int_equal(res.revision, snap);
        for (size_t i = 0; i < res.n; i++) {
            assert_true(strcmp(res.items[i].key, last) > 0);
            snprintf(last, sizeof last, "%s", res.items[i].key);
            assert_null(strstr(res.items[i].key, "-new"));
            seen++;
        }
        pages++;
        if (!res.continue_token)
            break;
        assert_int_equal(res.n, 100);
        assert_int_equal(res.remaining, N - seen);
        o.continue_token = res.continue_token;
    }
    assert_int_equal(seen, N);
    assert_int_equal(pages, 15);
    /* the snapshot still had the old values */
    kg_store_list_opts at = {.revision = snap};
    assert_true(kg_store_list(s, "/registry/pods/ns2/", &at, &f->a, &res, &err));
    assert_int_equal(res.n, N / 3);
    assert_string_equal(res.items[res.n - 1].key, "/registry/pods/ns2/p01499");
    assert_string_equal(res.items[res.n - 1].value, "{\"i\":1499}");
    /* and the latest list has the changes */
    assert_true(kg_store_list(s, "/registry/pods/", NULL, &f->a, &res, &err));
    assert_int_equal(res.n, N + 2 - 1);
}

static void test_continue_token_format(void **state)
{
    fixture *f = *state;
    kg_store *s = f->s;
    kg_error err = {0};
    create(s, "/registry/pods/default/a", "1");
    create(s, "/registry/pods/default/b", "2");
    kg_store_list_opts o = {.limit = 1};
    kg_store_list_result res;
    assert_true(kg_store_list(s, "/registry/pods/", &o, &f->a, &res, &err));
    assert_non_null(res.continue_token);
    assert_int_equal(res.remaining, 1);
    /* Kubernetes' format: base64url(no padding) of {"v":"meta.k8s.io/v1","rv":N,"start":"<rel key>\u0000"} */
    char expect[200];
    snprintf(expect, sizeof expect, "{\"v\":\"meta.k8s.io/v1\",\"rv\":%lld,\"start\":\"default/a\\u0000\"}",
             (long long)res.revision);
    FILE *p = NULL;
    char cmd[512], out[256] = "";
    snprintf(cmd, sizeof cmd, "printf '%%s' '%s' | basenc --base64url -w0 | tr -d =", expect);
    p = popen(cmd, "r");
    assert_non_null(p);
    assert_non_null(fgets(out, sizeof out, p));
    pclose(p);
    assert_string_equal(res.continue_token, out);

    o.continue_token = res.continue_token;
    assert_true(kg_store_list(s, "/registry/pods/", &o, &f->a, &res, &err));
    assert_int_equal(res.n, 1);
    assert_string_equal(res.items[0].key, "/registry/pods/default/b");
    assert_null(res.continue_token);
    assert_int_equal(res.remaining, 0);
}

static char *b64(kg_arena *a, const char *json)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t n = strlen(json), o = 0;
    char *r = kg_arena_alloc(a, n * 2 + 4);
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)json[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)(unsigned char)json[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)json[i + 2];
        r[o++] = t[v >> 18 & 63];
        r[o++] = t[v >> 12 & 63];
        if (i + 1 < n)
            r[o++] = t[v >> 6 & 63];
        if (i + 2 < n)
            r[o++] = t[v & 63];
    }
    r[o] = 0;
    return r;
}

static void expect_bad_continue(fixture *f, const char *tok, const char *msg)
{
    kg_error err = {0};
    kg_store_list_opts o = {.limit = 10, .continue_token = tok};
    kg_store_list_result res;
    assert_false(kg_store_list(f->s, "/registry/pods/", &o, &f->a, &res, &err));
    assert_int_equal(err.code, KG_EINVAL);
    if (strncmp(err.msg, msg, strlen(msg)) != 0)
        fail_msg("token %s: got \"%s\", want prefix \"%s\"", tok, err.msg, msg);
}

static void test_continue_token_invalid(void **state)
{
    fixture *f = *state;
    create(f->s, "/registry/pods/default/a", "1");
    expect_bad_continue(f, "!!!", "continue key is not valid");
    expect_bad_continue(f, b64(&f->a, "[1]"), "continue key is not valid");
    expect_bad_continue(f, b64(&f->a, "{\"v\":\"meta.k8s.io/v1\",\"rv\":0,\"start\":\"a\"}"),
                        "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
    expect_bad_continue(f, b64(&f->a, "{\"v\":\"meta.k8s.io/v1\",\"rv\":2,\"start\":\"\"}"),
                        "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)");
    expect_bad_continue(f, b64(&f->a, "{\"v\":\"v2\",\"rv\":2,\"start\":\"a\"}"),
                        "continue key is not valid: server does not recognize this encoded version");
    expect_bad_continue(f, b64(&f->a, "{\"v\":\"meta.k8s.io/v1\",\"rv\":2,\"start\":\"../secrets/x\"}"),
                        "continue key is not valid");
    expect_bad_continue(f, b64(&f->a, "{\"v\":\"meta.k8s.io/v1\",\"rv\":2,\"start\":\"a//b\"}"),
                        "continue key is not valid");
    /* a hand-made valid token (start includes the key itself, no \u0000) */
    kg_error err = {0};
    kg_store_list_opts o = {.continue_token =
                                b64(&f->a, "{\"v\":\"meta.k8s.io/v1\",\"rv\":-1,\"start\":\"default/a\"}")};
    kg_store_list_result res;
    assert_true(kg_store_list(f->s, "/registry/pods/", &o, &f->a, &res, &err));
    assert_int_equal(res.n, 1);
}

static bool even_only(void *ud, const kg_store_kv *kv)
{
    int *calls = ud;
    (*calls)++;
    int i;
    return sscanf(kv->key, "/registry/pods/ns/p%d", &i) == 1 && i % 2 == 0;
}

static bool only_p099(void *ud, const kg_store_kv *kv)
{
    (void)ud;
    return strcmp(kv->key, "/registry/pods/ns/p099") == 0;
}

static void test_list_with_filter_fills_pages(void **state)
{
    fixture *f = *state;
    kg_error err = {0};
    char key[64];
    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof key, "/registry/pods/ns/p%03d", i);
        create(f->s, key, "{}");
    }
    int calls = 0;
    kg_store_list_opts o = {.limit = 10, .filter = even_only, .filter_ud = &calls};
    kg_store_list_result res;
    int seen = 0, pages = 0;
    int64_t snap = 0;
    for (;;) {
        assert_true(kg_store_list(f->s, "/registry/pods/", &o, &f->a, &res, &err));
        if (!snap) {
            snap = res.revision;
            create(f->s, "/registry/pods/ns/p050x", "{}"); /* later pages stay on the snapshot */
        }
        assert_int_equal(res.revision, snap);
        for (size_t i = 0; i < res.n; i++) {
            snprintf(key, sizeof key, "/registry/pods/ns/p%03d", seen * 2);
            assert_string_equal(res.items[i].key, key);
            seen++;
        }
        pages++;
        if (!res.continue_token)
            break;
        assert_int_equal(res.n, 10); /* pages are filled up to the limit */
        assert_int_equal(res.remaining, -1);
        o.continue_token = res.continue_token;
    }
    assert_int_equal(seen, 50);
    /* Kubernetes' rule: the fifth page is full while p099 is still unread, so it gets a token and a sixth, empty
     * page follows; every key was examined exactly once */
    assert_int_equal(pages, 6);
    assert_int_equal(res.n, 0);
    assert_int_equal(calls, 100);

    /* a selective filter reads across several batches to fill one page */
    kg_store_list_opts o2 = {.limit = 5, .filter = only_p099};
    assert_true(kg_store_list(f->s, "/registry/pods/", &o2, &f->a, &res, &err));
    assert_int_equal(res.n, 1);
    assert_string_equal(res.items[0].key, "/registry/pods/ns/p099");
    assert_null(res.continue_token);
    assert_int_equal(res.remaining, 0);
    /* without a limit */
    kg_store_list_opts o3 = {.filter = only_p099};
    assert_true(kg_store_list(f->s, "/registry/pods/", &o3, &f->a, &res, &err));
    assert_int_equal(res.n, 1);
    assert_null(res.continue_token);
}

static void test_list_at_old_revision(void **state)
{
    fixture *f = *state;
    kg_store *s = f->s;
    kg_error err = {0};
    int64_t ra = create(s, "/registry/pods/ns/a", "a1");
    int64_t rb = create(s, "/registry/pods/ns/b", "b1");
    create(s, "/registry/pods/ns/c", "c1");
    int64_t r1 = kg_store_current_revision(s);
    update(s, "/registry/pods/ns/a", "a2", 0);
    update(s, "/registry/pods/ns/a", "a3", 0);
    del(s, "/registry/pods/ns/b");
    create(s, "/registry/pods/ns/d", "d1");
    create(s, "/registry/pods/ns/b", "b2");

    kg_store_list_opts o = {.revision = r1};
    kg_store_list_result res;
    assert_true(kg_store_list(s, "/registry/pods/", &o, &f->a, &res, &err));
    assert_int_equal(res.revision, r1);
    assert_int_equal(res.n, 3);
    assert_string_equal(res.items[0].key, "/registry/pods/ns/a");
    assert_string_equal(res.items[0].value, "a1");
    assert_int_equal(res.items[0].mod_revision, ra);
    assert_string_equal(res.items[1].value, "b1");
    assert_int_equal(res.items[1].mod_revision, rb);
    assert_int_equal(res.items[1].create_revision, rb);
    assert_string_equal(res.items[2].value, "c1");

    /* the same snapshot, paged one by one */
    o.limit = 1;
    const char *want[] = {"a1", "b1", "c1"};
    for (int i = 0; i < 3; i++) {
        assert_true(kg_store_list(s, "/registry/pods/", &o, &f->a, &res, &err));
        assert_int_equal(res.n, 1);
        assert_string_equal(res.items[0].value, want[i]);
        assert_int_equal(res.revision, r1);
        if (i < 2) {
            assert_non_null(res.continue_token);
            assert_int_equal(res.remaining, 2 - i);
        } else {
            assert_null(res.continue_token);
        }
        o.continue_token = res.continue_token;
    }

    /* revision before any of them: empty */
    kg_store_list_opts o0 = {.revision = ra - 1};
    assert_true(kg_store_list(s, "/registry/pods/", &o0, &f->a, &res, &err));
    assert_int_equal(res.n, 0);

    /* latest */
    assert_true(kg_store_list(s, "/registry/pods/", NULL, &f->a, &res, &err));
    assert_int_equal(res.n, 4);
    assert_string_equal(res.items[0].value, "a3");
    assert_string_equal(res.items[1].value, "b2");

    /* the future */
    int64_t cur = kg_store_current_revision(s);
    kg_store_list_opts fut = {.revision = cur + 5};
    assert_false(kg_store_list(s, "/registry/pods/", &fut, &f->a, &res, &err));
    assert_int_equal(err.code, KG_ETIMEOUT);
    char msg[128];
    snprintf(msg, sizeof msg, "Too large resource version: %lld, current: %lld", (long long)(cur + 5), (long long)cur);
    assert_string_equal(err.msg, msg);
}

static void test_compaction_gone(void **state)
{
    fixture *f = *state;
    kg_store *s = f->s;
    kg_error err = {0};
    char key[64];
    for (int i = 0; i < 20; i++) {
        snprintf(key, sizeof key, "/registry/pods/ns/p%02d", i);
        create(s, key, "v1");
    }
    kg_store_list_opts o = {.limit = 5};
    kg_store_list_result first;
    assert_true(kg_store_list(s, "/registry/pods/", &o, &f->a, &first, &err));
    int64_t old = first.revision;
    for (int i = 0; i < 20; i++) {
        snprintf(key, sizeof key, "/registry/pods/ns/p%02d", i);
        update(s, key, "v2", 0);
    }
    int64_t cur = kg_store_current_revision(s);
    assert_true(kg_store_compact(s, cur - 5, &err));
    assert_int_equal(kg_store_compacted_revision(s), cur - 5);

    kg_store_list_result res;
    kg_store_list_opts at = {.revision = old};
    assert_false(kg_store_list(s, "/registry/pods/", &at, &f->a, &res, &err));
    assert_int_equal(err.code, KG_EGONE);
    assert_string_equal(err.msg, "The resourceVersion for the provided list is too old.");

    /* an expired continue token: 410 plus a token that continues inconsistently from the same place */
    o.continue_token = first.continue_token;
    assert_false(kg_store_list(s, "/registry/pods/", &o, &f->a, &res, &err));
    assert_int_equal(err.code, KG_EGONE);
    assert_non_null(strstr(err.msg, "The provided continue parameter is too old to display a consistent list "
                                    "result. You can start a new list without the continue parameter, or use the "
                                    "continue token in this response"));
    assert_non_null(res.continue_token);
    o.continue_token = res.continue_token;
    o.limit = 100;
    assert_true(kg_store_list(s, "/registry/pods/", &o, &f->a, &res, &err));
    assert_int_equal(res.n, 15);
    assert_string_equal(res.items[0].key, "/registry/pods/ns/p05");
    assert_string_equal(res.items[0].value, "v2");
    assert_int_equal(res.revision, cur);

    /* watch from before the window: 410 with Kubernetes' message */
    assert_null(kg_store_watch_open(s, "/registry/pods/", cur - 6, &err));
    assert_int_equal(err.code, KG_EGONE);
    char msg[128];
    snprintf(msg, sizeof msg, "too old resource version: %lld (%lld)", (long long)(cur - 6), (long long)(cur - 5));
    assert_string_equal(err.msg, msg);
    /* at the edge of the window it replays */
    kg_store_watch *w = kg_store_watch_open(s, "/registry/pods/", cur - 5, &err);
    assert_non_null(w);
    const kg_store_event *ev;
    for (int i = 0; i < 5; i++) {
        assert_int_equal(kg_store_watch_next(w, 1000, &ev, &err), KG_WATCH_EVENT);
        assert_int_equal(ev->revision, cur - 4 + i);
        kg_store_event_release(ev);
    }
    assert_int_equal(kg_store_watch_next(w, 0, &ev, &err), KG_WATCH_TIMEOUT);
    assert_int_equal(kg_store_watch_progress(w), cur);
    kg_store_watch_close(w);

    /* compacting backwards is a no-op; beyond the head clamps */
    assert_true(kg_store_compact(s, 3, &err));
    assert_int_equal(kg_store_compacted_revision(s), cur - 5);
    assert_true(kg_store_compact(s, cur + 100, &err));
    assert_int_equal(kg_store_compacted_revision(s), cur);
}

static void test_background_compaction(void **state)
{
    (void)state;
    if (etcd_backend())
        skip_because("test_background_compaction", "etcd compacts by interval through compact_rev_key, not by a "
                                                   "count of revisions (test_etcd_compaction_between_replicas)");
    kg_store_options o = {.history_revisions = 10, .compact_interval_ms = 20};
    fixture *f = fx_new(&o);
    char key[64];
    for (int i = 0; i < 50; i++) {
        snprintf(key, sizeof key, "/registry/pods/ns/p%02d", i);
        create(f->s, key, "v");
    }
    int64_t cur = kg_store_current_revision(f->s);
    for (int i = 0; i < 200 && kg_store_compacted_revision(f->s) != cur - 10; i++)
        usleep(10000);
    assert_int_equal(kg_store_compacted_revision(f->s), cur - 10);
    kg_error err = {0};
    assert_null(kg_store_watch_open(f->s, "/registry/pods/", cur - 11, &err));
    assert_int_equal(err.code, KG_EGONE);
    fx_free(f);
}

static void test_background_compaction_by_time(void **state)
{
    (void)state;
    if (etcd_backend())
        skip_because("test_background_compaction_by_time", "etcd compacts by interval through compact_rev_key "
                                                           "(test_etcd_compaction_between_replicas)");
    /* a count window of 1 revision, but everything from the last 2 seconds must stay */
    kg_store_options o = {.history_revisions = 1, .history_seconds = 2, .compact_interval_ms = 50};
    fixture *f = fx_new(&o);
    char key[64];
    for (int i = 0; i < 10; i++) {
        snprintf(key, sizeof key, "/registry/pods/ns/a%02d", i);
        create(f->s, key, "v");
    }
    int64_t first = kg_store_current_revision(f->s);
    usleep(500000);
    /* well inside the time window: nothing compacted yet */
    assert_true(kg_store_compacted_revision(f->s) <= 1);
    /* once the first batch is older than the window it goes (up to the count window: the newest revision) */
    for (int i = 0; i < 300 && kg_store_compacted_revision(f->s) < first - 1; i++)
        usleep(20000);
    assert_int_equal(kg_store_compacted_revision(f->s), first - 1);
    for (int i = 0; i < 10; i++) {
        snprintf(key, sizeof key, "/registry/pods/ns/b%02d", i);
        create(f->s, key, "v");
    }
    usleep(300000);
    /* the second batch is younger than the window: kept although the count window is 1 */
    assert_true(kg_store_compacted_revision(f->s) <= first);
    kg_error err = {0};
    kg_store_watch *w = kg_store_watch_open(f->s, "/registry/pods/", first, &err);
    assert_non_null(w);
    kg_store_watch_close(w);
    fx_free(f);
}

/* ---- watch ---- */

static void test_watch_basic_events(void **state)
{
    fixture *f = *state;
    kg_store *s = f->s;
    kg_error err = {0};
    kg_store_watch *w = kg_store_watch_open(s, "/registry/pods/", 0, &err);
    assert_non_null(w);
    kg_store_watch *w2 = kg_store_watch_open(s, "/registry/pods/", 0, &err);
    kg_store_watch *other = kg_store_watch_open(s, "/registry/configmaps/", 0, &err);
    const kg_store_event *ev, *ev2;
    assert_int_equal(kg_store_watch_next(w, 0, &ev, &err), KG_WATCH_TIMEOUT);

    int64_t r1 = create(s, "/registry/pods/ns/a", "v1");
    int64_t r2 = update(s, "/registry/pods/ns/a", "v2", r1);
    create(s, "/registry/podsx/ns/a", "not a pod");
    int64_t r3 = del(s, "/registry/pods/ns/a");

    assert_int_equal(kg_store_watch_next(w, 1000, &ev, &err), KG_WATCH_EVENT);
    assert_int_equal(ev->type, KG_STORE_ADDED);
    assert_int_equal(ev->revision, r1);
    assert_int_equal(ev->create_revision, r1);
    assert_string_equal(ev->key, "/registry/pods/ns/a");
    assert_string_equal(ev->value, "v1");
    assert_null(ev->prev_value);
    /* the second watcher gets the very same event object: no per-watcher copy */
    assert_int_equal(kg_store_watch_next(w2, 1000, &ev2, &err), KG_WATCH_EVENT);
    assert_ptr_equal(ev, ev2);
    kg_store_event_release(ev2);
    kg_store_event_release(ev);

    assert_int_equal(kg_store_watch_next(w, 1000, &ev, &err), KG_WATCH_EVENT);
    assert_int_equal(ev->type, KG_STORE_MODIFIED);
    assert_int_equal(ev->revision, r2);
    assert_string_equal(ev->value, "v2");
    assert_string_equal(ev->prev_value, "v1");
    assert_int_equal(ev->prev_revision, r1);
    kg_store_event_release(ev);

    assert_int_equal(kg_store_watch_next(w, 1000, &ev, &err), KG_WATCH_EVENT);
    assert_int_equal(ev->type, KG_STORE_DELETED);
    assert_int_equal(ev->revision, r3);
    assert_null(ev->value);
    assert_string_equal(ev->prev_value, "v2");
    assert_int_equal(ev->prev_revision, r2);
    assert_int_equal(ev->create_revision, r1);
    kg_store_event_release(ev);

    assert_int_equal(kg_store_watch_next(w, 10, &ev, &err), KG_WATCH_TIMEOUT);
    /* progress covers the non-matching write too: a bookmark at the current revision */
    assert_int_equal(kg_store_watch_progress(w), r3);
    assert_int_equal(kg_store_watch_next(other, 0, &ev, &err), KG_WATCH_TIMEOUT);
    assert_int_equal(kg_store_watch_progress(other), r3);

    /* watch from the future */
    assert_null(kg_store_watch_open(s, "/registry/pods/", r3 + 10, &err));
    assert_int_equal(err.code, KG_ETIMEOUT);
    kg_store_watch_close(w);
    kg_store_watch_close(w2);
    kg_store_watch_close(other);
}

#define WRITERS 8
#define PER_WRITER 150

typedef struct wargs {
    kg_store *s;
    int id;
} wargs;

static void *writer_thread(void *p)
{
    wargs *a = p;
    char key[64], val[64];
    for (int i = 0; i < PER_WRITER; i++) {
        snprintf(key, sizeof key, "/registry/pods/w%d/p%04d", a->id, i);
        snprintf(val, sizeof val, "{\"w\":%d,\"i\":%d,\"gen\":1}", a->id, i);
        kg_error err = {0};
        int64_t rev;
        if (!kg_store_create(a->s, key, val, strlen(val), &rev, &err))
            return (void *)1;
        snprintf(val, sizeof val, "{\"w\":%d,\"i\":%d,\"gen\":2}", a->id, i);
        if (!kg_store_update(a->s, key, val, strlen(val), rev, NULL, &err))
            return (void *)1;
    }
    return NULL;
}

static void check_stream(kg_store_watch *w, int64_t from, int total)
{
    kg_error err = {0};
    const kg_store_event *ev;
    int64_t last = from;
    static int gen[WRITERS][PER_WRITER];
    memset(gen, 0, sizeof gen);
    for (int n = 0; n < total; n++) {
        kg_store_watch_status st = kg_store_watch_next(w, 5000, &ev, &err);
        if (st != KG_WATCH_EVENT)
            fail_msg("event %d: status %d %s", n, st, err.msg);
        /* strictly increasing and gapless: every write in this test goes to the watched prefix */
        assert_int_equal(ev->revision, last + 1);
        last = ev->revision;
        int wi, ii;
        assert_int_equal(sscanf(ev->key, "/registry/pods/w%d/p%d", &wi, &ii), 2);
        char want[64];
        if (ev->type == KG_STORE_ADDED) {
            assert_int_equal(gen[wi][ii], 0);
            gen[wi][ii] = 1;
            snprintf(want, sizeof want, "{\"w\":%d,\"i\":%d,\"gen\":1}", wi, ii);
        } else {
            assert_int_equal(ev->type, KG_STORE_MODIFIED);
            assert_int_equal(gen[wi][ii], 1);
            gen[wi][ii] = 2;
            snprintf(want, sizeof want, "{\"w\":%d,\"i\":%d,\"gen\":2}", wi, ii);
            assert_non_null(strstr(ev->prev_value, "\"gen\":1"));
        }
        assert_string_equal(ev->value, want);
        kg_store_event_release(ev);
    }
    assert_int_equal(kg_store_watch_next(w, 0, &ev, &err), KG_WATCH_TIMEOUT);
}

static void test_watch_order_concurrent_writers(void **state)
{
    fixture *f = *state;
    kg_error err = {0};
    int64_t from = kg_store_current_revision(f->s);
    kg_store_watch *w = kg_store_watch_open(f->s, "/registry/pods/", from, &err);
    assert_non_null(w);
    pthread_t th[WRITERS];
    wargs args[WRITERS];
    for (int i = 0; i < WRITERS; i++) {
        args[i] = (wargs){f->s, i};
        pthread_create(&th[i], NULL, writer_thread, &args[i]);
    }
    /* consume while the writers run */
    check_stream(w, from, WRITERS * PER_WRITER * 2);
    for (int i = 0; i < WRITERS; i++) {
        void *rv;
        pthread_join(th[i], &rv);
        assert_null(rv);
    }
    kg_store_watch_close(w);
    assert_int_equal(kg_store_current_revision(f->s), from + WRITERS * PER_WRITER * 2);

    /* replay of the whole run from history, from a watcher opened afterwards */
    w = kg_store_watch_open(f->s, "/registry/pods/", from, &err);
    check_stream(w, from, WRITERS * PER_WRITER * 2);
    kg_store_watch_close(w);
}

static void test_watch_replay_from_old_revision(void **state)
{
    (void)state;
    /* a small window forces replay from the stored history instead of the in-memory ring */
    kg_store_options o = {.compact_interval_ms = -1, .watch_window = 16};
    fixture *f = fx_new(&o);
    kg_error err = {0};
    char key[64], val[32];
    int64_t start = kg_store_current_revision(f->s);
    for (int i = 0; i < 300; i++) {
        snprintf(key, sizeof key, "/registry/%s/ns/o%03d", i % 2 ? "pods" : "secrets", i);
        snprintf(val, sizeof val, "%d", i);
        create(f->s, key, val);
    }
    kg_store_watch *w = kg_store_watch_open(f->s, "/registry/pods/", start + 100, &err);
    assert_non_null(w);
    const kg_store_event *ev;
    /* events for revisions start+101.. that are pods: i = 100.. odd */
    int i = 101;
    int got = 0;
    while (kg_store_watch_next(w, 0, &ev, &err) == KG_WATCH_EVENT) {
        snprintf(val, sizeof val, "%d", i);
        assert_string_equal(ev->value, val);
        assert_int_equal(ev->revision, start + 1 + i);
        kg_store_event_release(ev);
        i += 2;
        got++;
    }
    assert_int_equal(got, 100);
    /* now live: new writes keep coming after the replay */
    int64_t r = create(f->s, "/registry/pods/ns/live", "live");
    assert_int_equal(kg_store_watch_next(w, 1000, &ev, &err), KG_WATCH_EVENT);
    assert_int_equal(ev->revision, r);
    assert_string_equal(ev->value, "live");
    kg_store_event_release(ev);
    kg_store_watch_close(w);
    fx_free(f);
}

typedef struct blocked {
    kg_store_watch *w;
    kg_store_watch_status st;
} blocked;

static void *block_next(void *p)
{
    blocked *b = p;
    const kg_store_event *ev;
    kg_error err = {0};
    b->st = kg_store_watch_next(b->w, -1, &ev, &err);
    return NULL;
}

static void test_watch_cancel(void **state)
{
    fixture *f = *state;
    kg_error err = {0};
    blocked b = {kg_store_watch_open(f->s, "/registry/pods/", 0, &err), KG_WATCH_EVENT};
    assert_non_null(b.w);
    pthread_t th;
    pthread_create(&th, NULL, block_next, &b);
    usleep(50000);
    create(f->s, "/registry/configmaps/ns/x", "not for this watcher");
    usleep(20000);
    kg_store_watch_cancel(b.w);
    pthread_join(th, NULL);
    assert_int_equal(b.st, KG_WATCH_CLOSED);
    const kg_store_event *ev;
    create(f->s, "/registry/pods/ns/after", "x");
    assert_int_equal(kg_store_watch_next(b.w, 0, &ev, &err), KG_WATCH_CLOSED);
    kg_store_watch_cancel(b.w); /* idempotent */
    kg_store_watch_close(b.w);
}

static int notified;
static void on_notify(void *ud)
{
    __atomic_add_fetch((int *)ud, 1, __ATOMIC_SEQ_CST);
}

static void test_watch_notify(void **state)
{
    fixture *f = *state;
    kg_error err = {0};
    kg_store_watch *w = kg_store_watch_open(f->s, "/registry/pods/", 0, &err);
    notified = 0;
    kg_store_watch_set_notify(w, on_notify, &notified);
    create(f->s, "/registry/configmaps/ns/x", "x");
    assert_int_equal(__atomic_load_n(&notified, __ATOMIC_SEQ_CST), 0);
    create(f->s, "/registry/pods/ns/x", "x");
    assert_int_equal(__atomic_load_n(&notified, __ATOMIC_SEQ_CST), 1);
    const kg_store_event *ev;
    assert_int_equal(kg_store_watch_next(w, 0, &ev, &err), KG_WATCH_EVENT);
    kg_store_event_release(ev);
    kg_store_watch_close(w);
}

static void test_slow_watcher_does_not_block_writers(void **state)
{
    (void)state;
    kg_store_options o = {.compact_interval_ms = -1, .watch_window = 64};
    fixture *f = fx_new(&o);
    kg_error err = {0};
    kg_store_watch *slow = kg_store_watch_open(f->s, "/registry/pods/", 0, &err);
    kg_store_watch *fast = kg_store_watch_open(f->s, "/registry/pods/", 0, &err);
    const kg_store_event *ev;
    /* the slow watcher reads one event and then stops reading */
    create(f->s, "/registry/pods/ns/first", "x");
    assert_int_equal(kg_store_watch_next(slow, 1000, &ev, &err), KG_WATCH_EVENT);
    kg_store_event_release(ev);
    char key[64];
    int fast_got = 1;
    assert_int_equal(kg_store_watch_next(fast, 1000, &ev, &err), KG_WATCH_EVENT);
    kg_store_event_release(ev);
    for (int i = 0; i < 1000; i++) { /* writers never wait for the slow watcher */
        snprintf(key, sizeof key, "/registry/pods/ns/p%04d", i);
        create(f->s, key, "x");
        if (i % 16 == 0) { /* the fast one keeps up */
            while (kg_store_watch_next(fast, 0, &ev, &err) == KG_WATCH_EVENT) {
                kg_store_event_release(ev);
                fast_got++;
            }
        }
    }
    while (kg_store_watch_next(fast, 0, &ev, &err) == KG_WATCH_EVENT) {
        kg_store_event_release(ev);
        fast_got++;
    }
    assert_int_equal(fast_got, 1001);
    /* the slow one fell more than the window behind: closed with 410 so its client re-lists */
    kg_store_watch_status st;
    int more = 0;
    while ((st = kg_store_watch_next(slow, 0, &ev, &err)) == KG_WATCH_EVENT) {
        kg_store_event_release(ev);
        more++;
    }
    assert_int_equal(st, KG_WATCH_ERROR);
    assert_int_equal(err.code, KG_EGONE);
    assert_true(more < 64);
    assert_int_equal(kg_store_watch_next(slow, 0, &ev, &err), KG_WATCH_ERROR);
    kg_store_watch_close(slow);
    kg_store_watch_close(fast);
    fx_free(f);
}

static void test_watch_window_byte_budget(void **state)
{
    (void)state;
    /* plenty of slots but only ~16 KB: big values shrink the window, and a lagging watcher is closed */
    kg_store_options o = {.compact_interval_ms = -1, .watch_window = 4096, .watch_window_bytes = 16384};
    fixture *f = fx_new(&o);
    kg_error err = {0};
    kg_store_watch *w = kg_store_watch_open(f->s, "/registry/configmaps/", 0, &err);
    static char big[2048];
    memset(big, 'x', sizeof big - 1);
    create(f->s, "/registry/configmaps/ns/c000", big);
    const kg_store_event *ev;
    assert_int_equal(kg_store_watch_next(w, 1000, &ev, &err), KG_WATCH_EVENT);
    kg_store_event_release(ev);
    char key[64];
    for (int i = 1; i < 40; i++) { /* 40 x 2 KB = 80 KB > 16 KB */
        snprintf(key, sizeof key, "/registry/configmaps/ns/c%03d", i);
        create(f->s, key, big);
    }
    kg_store_watch_status st;
    int got = 0;
    while ((st = kg_store_watch_next(w, 0, &ev, &err)) == KG_WATCH_EVENT) {
        kg_store_event_release(ev);
        got++;
    }
    assert_int_equal(st, KG_WATCH_ERROR);
    assert_int_equal(err.code, KG_EGONE);
    assert_int_equal(got, 0);
    kg_store_watch_close(w);
    /* a watcher from a revision outside the window still replays everything from history */
    int64_t cur = kg_store_current_revision(f->s);
    w = kg_store_watch_open(f->s, "/registry/configmaps/", cur - 40, &err);
    for (int i = 0; i < 40; i++) {
        assert_int_equal(kg_store_watch_next(w, 1000, &ev, &err), KG_WATCH_EVENT);
        assert_int_equal(ev->revision, cur - 39 + i);
        assert_int_equal(ev->value_len, sizeof big - 1);
        kg_store_event_release(ev);
    }
    kg_store_watch_close(w);
    fx_free(f);
}

/* Model check of history and compaction: random creates/updates/deletes over a few keys, the expected state
 * recorded after every revision; after compactions to several points, a list at every revision still in the
 * window must equal the model, and a watch from the compaction point must replay every later change with the
 * right previous value. */
#define MK 8
typedef struct mstate {
    char val[MK][24];
    int64_t rev[MK];
    bool present[MK];
} mstate;

typedef struct mevent {
    int key;
    kg_store_event_type type;
    char val[24], prev[24];
    int64_t prev_rev;
} mevent;

static void check_model_list(fixture *f, const mstate *m, int64_t R)
{
    kg_error err = {0};
    kg_store_list_opts o = {.revision = R, .limit = 3};
    int seen = 0;
    int next_key = 0;
    for (;;) {
        kg_store_list_result res;
        if (!kg_store_list(f->s, "/registry/model/", &o, &f->a, &res, &err))
            fail_msg("list at %lld: %s", (long long)R, err.msg);
        assert_int_equal(res.revision, R ? R : kg_store_current_revision(f->s));
        for (size_t i = 0; i < res.n; i++) {
            int k;
            assert_int_equal(sscanf(res.items[i].key, "/registry/model/k%d", &k), 1);
            for (; next_key < k; next_key++)
                if (m->present[next_key])
                    fail_msg("rev %lld: k%d missing", (long long)R, next_key);
            next_key = k + 1;
            if (!m->present[k])
                fail_msg("rev %lld: k%d should be absent", (long long)R, k);
            assert_string_equal(res.items[i].value, m->val[k]);
            assert_int_equal(res.items[i].mod_revision, m->rev[k]);
            seen++;
        }
        if (!res.continue_token)
            break;
        o.continue_token = res.continue_token;
    }
    for (; next_key < MK; next_key++)
        if (m->present[next_key])
            fail_msg("rev %lld: k%d missing at the end", (long long)R, next_key);
    (void)seen;
}

static void test_compaction_model(void **state)
{
    fixture *f = *state;
    kg_error err = {0};
    enum { OPS = 400 };
    int64_t base = kg_store_current_revision(f->s);
    static mstate states[OPS + 1];
    static mevent evs[OPS + 1];
    memset(&states[0], 0, sizeof states[0]);
    unsigned seed = 12345;
    char key[64];
    for (int i = 1; i <= OPS; i++) {
        states[i] = states[i - 1];
        mstate *m = &states[i];
        seed = seed * 1103515245u + 12345u;
        int k = (int)((seed >> 16) % MK);
        snprintf(key, sizeof key, "/registry/model/k%d", k);
        mevent *e = &evs[i];
        e->key = k;
        e->prev_rev = m->present[k] ? m->rev[k] : 0;
        snprintf(e->prev, sizeof e->prev, "%s", m->val[k]);
        int64_t rev;
        if (!m->present[k]) {
            snprintf(m->val[k], sizeof m->val[k], "v%d", i);
            assert_true(kg_store_create(f->s, key, m->val[k], strlen(m->val[k]), &rev, &err));
            e->type = KG_STORE_ADDED;
            m->present[k] = true;
        } else if ((seed >> 8) % 4 == 0) {
            assert_true(kg_store_delete(f->s, key, m->rev[k], NULL, NULL, &rev, &err));
            e->type = KG_STORE_DELETED;
            m->present[k] = false;
        } else {
            snprintf(m->val[k], sizeof m->val[k], "v%d", i);
            assert_true(kg_store_update(f->s, key, m->val[k], strlen(m->val[k]), m->rev[k], &rev, &err));
            e->type = KG_STORE_MODIFIED;
        }
        assert_int_equal(rev, base + i);
        m->rev[k] = rev;
        snprintf(e->val, sizeof e->val, "%s", m->val[k]);
    }
    const int points[] = {50, 51, 180, 300, 399, 400};
    for (size_t p = 0; p < sizeof points / sizeof points[0]; p++) {
        int c = points[p];
        assert_true(kg_store_compact(f->s, base + c, &err));
        assert_int_equal(kg_store_compacted_revision(f->s), base + c);
        for (int r = c; r <= OPS; r += (r < c + 20 ? 1 : 7)) {
            check_model_list(f, &states[r], base + r);
            kg_arena_reset(&f->a);
        }
        check_model_list(f, &states[OPS], 0);
        kg_store_watch *w = kg_store_watch_open(f->s, "/registry/model/", base + c, &err);
        assert_non_null(w);
        const kg_store_event *ev;
        for (int i = c + 1; i <= OPS; i++) {
            assert_int_equal(kg_store_watch_next(w, 1000, &ev, &err), KG_WATCH_EVENT);
            assert_int_equal(ev->revision, base + i);
            assert_int_equal(ev->type, evs[i].type);
            if (evs[i].type != KG_STORE_DELETED)
                assert_string_equal(ev->value, evs[i].val);
            if (evs[i].type != KG_STORE_ADDED) {
                assert_non_null(ev->prev_value);
                assert_string_equal(ev->prev_value, evs[i].prev);
                assert_int_equal(ev->prev_revision, evs[i].prev_rev);
            }
            kg_store_event_release(ev);
        }
        assert_int_equal(kg_store_watch_next(w, 0, &ev, &err), KG_WATCH_TIMEOUT);
        kg_store_watch_close(w);
        if (c > 0) {
            kg_store_list_result res;
            kg_store_list_opts o = {.revision = base + c - 1};
            assert_false(kg_store_list(f->s, "/registry/model/", &o, &f->a, &res, &err));
            assert_int_equal(err.code, KG_EGONE);
        }
    }
    /* and after a restart */
    if (!durable_backend()) {
        print_message("[  PARTIAL ] test_compaction_model for backend %s: the restart part does not apply (the "
                      "store is not persistent)\n",
                      backend());
        return;
    }
    kg_store_close(f->s);
    f->s = open_store(f->dir, &(kg_store_options){.compact_interval_ms = -1});
    check_model_list(f, &states[OPS], 0);
    check_model_list(f, &states[OPS], base + OPS);
}

/* The informer pattern: list at R while writers run, watch from R, apply the events to the listed state: the
 * result equals a fresh list once the writers stop. Catches any event lost or duplicated between list and watch. */
typedef struct churn_args {
    kg_store *s;
    int id;
} churn_args;

static void *churn_thread(void *p)
{
    churn_args *a = p;
    char key[64], val[64];
    for (int i = 0; i < 600; i++) {
        snprintf(key, sizeof key, "/registry/pods/c%d/p%02d", a->id, i % 20);
        snprintf(val, sizeof val, "{\"i\":%d}", i);
        kg_error err = {0};
        if (i % 3 == 2)
            kg_store_delete(a->s, key, 0, NULL, NULL, NULL, &err);
        else if (!kg_store_create(a->s, key, val, strlen(val), NULL, &err))
            kg_store_update(a->s, key, val, strlen(val), 0, NULL, &err);
    }
    return NULL;
}

typedef struct entry {
    char key[64];
    char val[64];
    int64_t rev;
    bool present;
} entry;

static entry *find_entry(entry *tab, int *n, const char *key)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(tab[i].key, key) == 0)
            return &tab[i];
    snprintf(tab[*n].key, sizeof tab[*n].key, "%s", key);
    tab[*n].present = false;
    return &tab[(*n)++];
}

static void test_list_then_watch_is_consistent(void **state)
{
    fixture *f = *state;
    kg_error err = {0};
    pthread_t th[4];
    churn_args args[4];
    /* taken before the writers start: a fast backend may finish all their writes before this thread runs again */
    int64_t start = kg_store_current_revision(f->s);
    for (int i = 0; i < 4; i++) {
        args[i] = (churn_args){f->s, i};
        pthread_create(&th[i], NULL, churn_thread, &args[i]);
    }
    while (kg_store_current_revision(f->s) < start + 200)
        usleep(1000);
    kg_store_list_result res;
    kg_store_list_opts lo = {.limit = 3};
    static entry tab[256];
    int n = 0;
    int64_t R = 0;
    for (;;) { /* a paged list: every page from the same snapshot */
        assert_true(kg_store_list(f->s, "/registry/pods/", &lo, &f->a, &res, &err));
        if (R == 0)
            R = res.revision;
        assert_int_equal(res.revision, R);
        for (size_t i = 0; i < res.n; i++) {
            entry *e = find_entry(tab, &n, res.items[i].key);
            snprintf(e->val, sizeof e->val, "%s", res.items[i].value);
            e->rev = res.items[i].mod_revision;
            e->present = true;
        }
        if (!res.continue_token)
            break;
        lo.continue_token = res.continue_token;
        if (R == res.revision && lo.limit == 3 && n <= 3) {
            /* after the first page: replace every object of namespace c3 (listed later in this snapshot) */
            for (int i = 0; i < 20; i++) {
                char key[64];
                snprintf(key, sizeof key, "/registry/pods/c3/p%02d", i);
                kg_error e2 = {0};
                kg_store_delete(f->s, key, 0, NULL, NULL, NULL, &e2);
                kg_store_create(f->s, key, "{\"replaced\":true}", 17, NULL, &e2);
            }
        }
        usleep(500); /* let writes land between pages */
    }
    /* the pages really were served from an older snapshot */
    assert_true(kg_store_current_revision(f->s) > R);
    kg_store_watch *w = kg_store_watch_open(f->s, "/registry/pods/", R, &err);
    assert_non_null(w);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    const kg_store_event *ev;
    int64_t last = R;
    while (kg_store_watch_next(w, 0, &ev, &err) == KG_WATCH_EVENT) {
        assert_true(ev->revision > last);
        last = ev->revision;
        entry *e = find_entry(tab, &n, ev->key);
        if (ev->type == KG_STORE_DELETED) {
            assert_true(e->present);
            assert_int_equal(ev->prev_revision, e->rev);
            e->present = false;
        } else {
            if (ev->type == KG_STORE_ADDED)
                assert_false(e->present);
            else
                assert_int_equal(ev->prev_revision, e->rev);
            snprintf(e->val, sizeof e->val, "%s", ev->value);
            e->rev = ev->revision;
            e->present = true;
        }
        kg_store_event_release(ev);
    }
    assert_int_equal(last, kg_store_current_revision(f->s));
    assert_true(kg_store_list(f->s, "/registry/pods/", NULL, &f->a, &res, &err));
    int present = 0;
    for (int i = 0; i < n; i++)
        present += tab[i].present;
    assert_int_equal(present, (int)res.n);
    for (size_t i = 0; i < res.n; i++) {
        entry *e = find_entry(tab, &n, res.items[i].key);
        assert_true(e->present);
        assert_string_equal(e->val, res.items[i].value);
        assert_int_equal(e->rev, res.items[i].mod_revision);
    }
    kg_store_watch_close(w);
}

static void test_watch_outlives_store(void **state)
{
    (void)state;
    kg_store_options o = {.compact_interval_ms = -1};
    fixture *f = fx_new(&o);
    kg_error err = {0};
    kg_store_watch *w = kg_store_watch_open(f->s, "/registry/pods/", 0, &err);
    create(f->s, "/registry/pods/ns/a", "x");
    kg_store_close(f->s); /* shutdown order of a server: the store first, the streams after */
    f->s = NULL;
    const kg_store_event *ev;
    assert_int_equal(kg_store_watch_next(w, 1000, &ev, &err), KG_WATCH_CLOSED);
    kg_store_watch_cancel(w);
    kg_store_watch_close(w);
    f->s = open_store(f->dir, &o);
    fx_free(f);
}

/* ---- guaranteed update ---- */

static bool incr(void *ud, const kg_store_kv *cur, kg_arena *a, const void **nv, size_t *nlen, kg_error *err)
{
    (void)ud;
    (void)err;
    long v = cur->value ? strtol(cur->value, NULL, 10) : 0;
    char *s = kg_arena_sprintf(a, "%ld", v + 1);
    *nv = s;
    *nlen = strlen(s);
    return true;
}

static void *incr_thread(void *p)
{
    kg_store *s = p;
    kg_arena a;
    kg_arena_init(&a, 0);
    for (int i = 0; i < 50; i++) {
        kg_error err = {0};
        if (!kg_store_guaranteed_update(s, "/registry/counters/c", true, incr, NULL, &a, NULL, &err)) {
            fprintf(stderr, "guaranteed update: %s\n", err.msg);
            kg_arena_free(&a);
            return (void *)1;
        }
        kg_arena_reset(&a);
    }
    kg_arena_free(&a);
    return NULL;
}

static bool same(void *ud, const kg_store_kv *cur, kg_arena *a, const void **nv, size_t *nlen, kg_error *err)
{
    *nv = cur->value;
    *nlen = cur->value_len;
    return true;
}

static bool refuse(void *ud, const kg_store_kv *cur, kg_arena *a, const void **nv, size_t *nlen, kg_error *err)
{
    return kg_err_set(err, KG_EFORBIDDEN, "denied by callback");
}

static void test_guaranteed_update(void **state)
{
    fixture *f = *state;
    kg_error err = {0};
    pthread_t th[8];
    for (int i = 0; i < 8; i++)
        pthread_create(&th[i], NULL, incr_thread, f->s);
    for (int i = 0; i < 8; i++) {
        void *rv;
        pthread_join(th[i], &rv);
        assert_null(rv);
    }
    kg_store_kv kv;
    assert_true(kg_store_get(f->s, "/registry/counters/c", &f->a, &kv, &err));
    assert_string_equal(kv.value, "400");

    /* identical bytes: no write, current state returned */
    int64_t before = kg_store_current_revision(f->s);
    kg_store_kv out;
    assert_true(kg_store_guaranteed_update(f->s, "/registry/counters/c", false, same, NULL, &f->a, &out, &err));
    assert_int_equal(kg_store_current_revision(f->s), before);
    assert_int_equal(out.mod_revision, kv.mod_revision);

    assert_true(kg_store_guaranteed_update(f->s, "/registry/counters/c", false, incr, NULL, &f->a, &out, &err));
    assert_string_equal(out.value, "401");
    assert_int_equal(out.mod_revision, before + 1);

    /* absent without allow_create: not found; the callback's error is returned as is */
    assert_false(kg_store_guaranteed_update(f->s, "/registry/counters/none", false, incr, NULL, &f->a, &out, &err));
    assert_int_equal(err.code, KG_ENOTFOUND);
    assert_false(kg_store_guaranteed_update(f->s, "/registry/counters/c", false, refuse, NULL, &f->a, &out, &err));
    assert_int_equal(err.code, KG_EFORBIDDEN);
    assert_string_equal(err.msg, "denied by callback");
}

/* ---- scale ---- */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KG_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define KG_TEST_SANITIZED 1
#endif
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 20000 creates in scrambled key order, and lists stay in key order, at the latest and at an older revision. The
 * time is printed, not asserted (speed is bench/storage's business: a timed assertion fails on a loaded machine). */
static void test_many_creates(void **state)
{
    fixture *f = *state;
    if (durable_backend())
        skip_because("test_many_creates",
                     "20000 sequential creates would measure fsync latency, not the data structure; the timing "
                     "bound is for the memory backend");
    kg_error err = {0};
    enum { N = 20000 };
    char key[64], val[64];
    int64_t base = kg_store_current_revision(f->s);
    double t0 = now_s();
    for (int i = 0; i < N; i++) {
        int k = (int)(((int64_t)i * 7919) % N); /* 7919 is prime: a permutation of 0..N-1 */
        snprintf(key, sizeof key, "/registry/pods/ns/p%05d", k);
        snprintf(val, sizeof val, "{\"k\":%d}", k);
        if (!kg_store_create(f->s, key, val, strlen(val), NULL, &err))
            fail_msg("create %s: %s", key, err.msg);
    }
    double dt = now_s() - t0;
    print_message("[   INFO   ] %d creates (scrambled key order) with backend %s: %.3f s (%.0f/s)\n", N, backend(), dt,
                  (double)N / dt);
    assert_int_equal(kg_store_current_revision(f->s), base + N);

    kg_store_list_result res;
    t0 = now_s();
    assert_true(kg_store_list(f->s, "/registry/pods/", NULL, &f->a, &res, &err));
    print_message("[   INFO   ] list of %zu objects: %.3f s\n", res.n, now_s() - t0);
    assert_int_equal(res.n, N);
    for (size_t i = 0; i < res.n; i++) {
        snprintf(key, sizeof key, "/registry/pods/ns/p%05zu", i);
        assert_string_equal(res.items[i].key, key);
    }
    kg_arena_reset(&f->a);

    /* a page with the remaining count, and a snapshot half way through the creates */
    kg_store_list_opts o = {.limit = 100};
    assert_true(kg_store_list(f->s, "/registry/pods/", &o, &f->a, &res, &err));
    assert_int_equal(res.n, 100);
    assert_int_equal(res.remaining, N - 100);
    kg_store_list_opts half = {.revision = base + N / 2, .keys_only = true};
    assert_true(kg_store_list(f->s, "/registry/pods/", &half, &f->a, &res, &err));
    assert_int_equal(res.n, N / 2);
    for (size_t i = 1; i < res.n; i++)
        assert_true(strcmp(res.items[i - 1].key, res.items[i].key) < 0);
    kg_arena_reset(&f->a);

    kg_store_kv kv;
    assert_true(kg_store_get(f->s, "/registry/pods/ns/p12345", &f->a, &kv, &err));
    assert_string_equal(kv.value, "{\"k\":12345}");
}

/* The memory backend bounds its history between compactor ticks: with background compaction on (count only), a
 * write that finds 2 x history_revisions of history compacts back to history_revisions. */
static void test_memory_history_bound(void **state)
{
    (void)state;
    if (durable_backend())
        skip_because("test_memory_history_bound",
                     "the inline history bound is a memory-backend property; sqlite compacts on the compactor's tick");
    kg_store_options o = {.history_revisions = 10, .compact_interval_ms = 3600000};
    fixture *f = fx_new(&o);
    char key[64];
    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof key, "/registry/pods/ns/p%02d", i % 7);
        kg_error e = {0};
        if (!kg_store_create(f->s, key, "v", 1, NULL, &e))
            kg_store_delete(f->s, key, 0, NULL, NULL, NULL, &e);
    }
    int64_t cur = kg_store_current_revision(f->s), comp = kg_store_compacted_revision(f->s);
    assert_true(comp >= cur - 20);
    assert_true(comp <= cur - 10);
    kg_error err = {0};
    kg_store_watch *w = kg_store_watch_open(f->s, "/registry/pods/", cur - 10, &err);
    assert_non_null(w);
    const kg_store_event *ev;
    for (int i = 0; i < 10; i++) {
        assert_int_equal(kg_store_watch_next(w, 1000, &ev, &err), KG_WATCH_EVENT);
        assert_int_equal(ev->revision, cur - 9 + i);
        kg_store_event_release(ev);
    }
    kg_store_watch_close(w);
    kg_store_list_opts lo = {.revision = comp};
    kg_store_list_result res;
    assert_true(kg_store_list(f->s, "/registry/pods/", &lo, &f->a, &res, &err));
    lo.revision = comp - 1;
    assert_false(kg_store_list(f->s, "/registry/pods/", &lo, &f->a, &res, &err));
    assert_int_equal(err.code, KG_EGONE);
    fx_free(f);
}

/* ---- restart ---- */

static void test_restart_persistence(void **state)
{
    fixture *f = *state;
    kg_error err = {0};
    if (!durable_backend())
        skip_because("test_restart_persistence", "data does not survive kg_store_close (not persistent by design)");
    int64_t start = kg_store_current_revision(f->s);
    create(f->s, "/registry/pods/ns/a", "a1");
    create(f->s, "/registry/pods/ns/b", "b1");
    update(f->s, "/registry/pods/ns/a", "a2", 0);
    int64_t del_rev = del(f->s, "/registry/pods/ns/b");
    kg_store_close(f->s);

    f->s = open_store(f->dir, &(kg_store_options){.compact_interval_ms = -1});
    assert_int_equal(kg_store_current_revision(f->s), del_rev);
    kg_store_kv kv;
    assert_true(kg_store_get(f->s, "/registry/pods/ns/a", &f->a, &kv, &err));
    assert_string_equal(kv.value, "a2");
    assert_int_equal(kv.create_revision, start + 1);
    assert_false(kg_store_get(f->s, "/registry/pods/ns/b", &f->a, &kv, &err));
    assert_int_equal(err.code, KG_ENOTFOUND);
    /* the counter continues */
    assert_int_equal(create(f->s, "/registry/pods/ns/c", "c1"), del_rev + 1);
    /* history survives: replay everything since start */
    kg_store_watch *w = kg_store_watch_open(f->s, "/registry/pods/", start, &err);
    assert_non_null(w);
    const kg_store_event *ev;
    kg_store_event_type want[] = {KG_STORE_ADDED, KG_STORE_ADDED, KG_STORE_MODIFIED, KG_STORE_DELETED, KG_STORE_ADDED};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(kg_store_watch_next(w, 1000, &ev, &err), KG_WATCH_EVENT);
        assert_int_equal(ev->type, want[i]);
        assert_int_equal(ev->revision, start + 1 + i);
        kg_store_event_release(ev);
    }
    kg_store_watch_close(w);
    /* and a list at a revision before the restart */
    kg_store_list_opts o = {.revision = start + 2};
    kg_store_list_result res;
    assert_true(kg_store_list(f->s, "/registry/pods/", &o, &f->a, &res, &err));
    assert_int_equal(res.n, 2);
    assert_string_equal(res.items[0].value, "a1");
    assert_string_equal(res.items[1].value, "b1");
}

/* ---- etcd3 only: several stores (kgate replicas) on one etcd ---- */

static void test_etcd_two_replicas(void **state)
{
    (void)state;
    if (!etcd_backend())
        skip_because("test_etcd_two_replicas", "replicas sharing one store are an etcd3 property");
    kg_store_options o = {.compact_interval_ms = -1};
    fixture *f = fx_new(&o);
    kg_store *b = open_store(f->dir, &o); /* a second replica on the same etcd and prefix */
    kg_error err = {0};
    kg_store_watch *w = kg_store_watch_open(b, "/registry/pods/", 0, &err);
    assert_non_null(w);
    int64_t r1 = create(f->s, "/registry/pods/ns/x", "one");
    /* the write through A reaches B's watchers, B's reads, and B's notion of the current revision */
    const kg_store_event *ev;
    assert_int_equal(kg_store_watch_next(w, 5000, &ev, &err), KG_WATCH_EVENT);
    assert_int_equal(ev->type, KG_STORE_ADDED);
    assert_int_equal(ev->revision, r1);
    assert_string_equal(ev->value, "one");
    kg_store_event_release(ev);
    assert_int_equal(kg_store_current_revision(b), r1);
    kg_store_kv kv;
    assert_true(kg_store_get(b, "/registry/pods/ns/x", &f->a, &kv, &err));
    assert_int_equal(kv.mod_revision, r1);
    /* B updates, A's stale update conflicts */
    int64_t r2 = update(b, "/registry/pods/ns/x", "two", r1);
    assert_false(kg_store_update(f->s, "/registry/pods/ns/x", "three", 5, r1, NULL, &err));
    assert_int_equal(err.code, KG_ECONFLICT);
    assert_false(kg_store_create(f->s, "/registry/pods/ns/x", "again", 5, NULL, &err));
    assert_int_equal(err.code, KG_EEXIST);
    assert_int_equal(kg_store_watch_next(w, 5000, &ev, &err), KG_WATCH_EVENT);
    assert_int_equal(ev->type, KG_STORE_MODIFIED);
    assert_int_equal(ev->revision, r2);
    assert_int_equal(ev->prev_revision, r1);
    assert_string_equal(ev->prev_value, "one");
    kg_store_event_release(ev);
    /* A deletes: B's watcher gets the object as it was, at the delete revision */
    int64_t r3 = del(f->s, "/registry/pods/ns/x");
    assert_int_equal(kg_store_watch_next(w, 5000, &ev, &err), KG_WATCH_EVENT);
    assert_int_equal(ev->type, KG_STORE_DELETED);
    assert_int_equal(ev->revision, r3);
    assert_string_equal(ev->prev_value, "two");
    kg_store_event_release(ev);
    kg_store_watch_close(w);
    kg_store_close(b);
    fx_free(f);
}

static void test_etcd_compaction_between_replicas(void **state)
{
    (void)state;
    if (!etcd_backend())
        skip_because("test_etcd_compaction_between_replicas", "the compact_rev_key protocol is etcd3's");
    kg_store_options o = {.compact_interval_ms = -1, .etcd.compaction_interval_ms = 250};
    fixture *f = fx_new(&o);
    kg_store *b = open_store(f->dir, &o);
    kg_error err = {0};
    int64_t start = create(f->s, "/registry/pods/ns/a", "a");
    /* each tick bumps compact_rev_key once for both replicas together (the loser of the txn only learns the
     * version), and the tick after compacts to what the previous one saw */
    double t0 = now_s();
    kg_store_list_result res;
    kg_store_list_opts lo = {.revision = start};
    bool gone = false;
    while (now_s() - t0 < 10 && !gone) {
        usleep(100000);
        gone = !kg_store_list(b, "/registry/pods/", &lo, &f->a, &res, &err) && err.code == KG_EGONE;
    }
    assert_true(gone);
    assert_string_equal(err.msg, "The resourceVersion for the provided list is too old.");
    int64_t r0 = create(f->s, "/registry/pods/ns/b", "b");
    usleep(1500000);
    int64_t r1 = create(f->s, "/registry/pods/ns/c", "c");
    /* 1.5 s at 250 ms: about 6 bumps when the replicas agree, about 12 if each compacted on its own */
    print_message("[   INFO   ] compact_rev_key bumps in 1.5 s with 2 replicas at 250 ms: %lld\n",
                  (long long)(r1 - r0 - 1));
    assert_true(r1 - r0 - 1 <= 9);
    assert_true(r1 - r0 - 1 >= 2);
    /* both replicas know history before the compaction is gone: watches get 410 */
    for (int i = 0; i < 50 && kg_store_compacted_revision(b) < start; i++)
        usleep(100000);
    assert_null(kg_store_watch_open(b, "/registry/pods/", start - 1, &err));
    assert_int_equal(err.code, KG_EGONE);
    kg_store_close(b);
    fx_free(f);
}

static void test_etcd_limits_and_failover(void **state)
{
    (void)state;
    if (!etcd_backend())
        skip_because("test_etcd_limits_and_failover", "etcd3 request limits and member failover");
    /* the store's own value bound (max_value_bytes, 500 as upstream) raised above etcd's so that etcd's limit is
     * what answers here */
    kg_store_options o = {.compact_interval_ms = -1, .max_value_bytes = (size_t)16 << 20};
    fixture *f = fx_new(&o);
    kg_error err = {0};
    /* etcd's --max-request-bytes (1.5 MiB): a clean KG_ETOOLARGE (413), nothing written */
    size_t sizes[] = {(size_t)1600 << 10, (size_t)3 << 20}; /* etcd's limit; the gateway's gRPC limit */
    int64_t before = kg_store_current_revision(f->s);
    for (int i = 0; i < 2; i++) {
        char *v = malloc(sizes[i]);
        memset(v, 'x', sizes[i]);
        assert_false(kg_store_create(f->s, "/registry/configmaps/ns/big", v, sizes[i], NULL, &err));
        if (err.code != KG_ETOOLARGE)
            fail_msg("create of %zu bytes: %d %s", sizes[i], err.code, err.msg);
        assert_string_equal(err.msg, "etcdserver: request is too large");
        free(v);
    }
    assert_int_equal(kg_store_current_revision(f->s), before);
    /* keys outside /registry have no place in etcd's keyspace */
    assert_false(kg_store_create(f->s, "/other/x", "x", 1, NULL, &err));
    assert_int_equal(err.code, KG_EINVAL);
    /* nobody listening: open fails at once with an error naming the servers */
    kg_store_options bad = o;
    bad.etcd.servers = "http://127.0.0.1:1";
    bad.etcd.prefix = "/kgt-unreachable";
    double t0 = now_s();
    assert_null(kg_store_open("etcd3", f->dir, &bad, &err));
    assert_int_equal(err.code, KG_EIO);
    assert_non_null(strstr(err.msg, "127.0.0.1:1"));
    assert_true(now_s() - t0 < 5);
    /* a dead member first in --etcd-servers: requests fail over to the next one */
    char servers[256];
    snprintf(servers, sizeof servers, "http://127.0.0.1:1,%s", etcd_servers);
    bad.etcd.servers = servers;
    kg_store *s2 = kg_store_open("etcd3", f->dir, &bad, &err);
    assert_non_null(s2);
    int64_t r = 0;
    assert_true(kg_store_create(s2, "/registry/pods/ns/failover", "x", 1, &r, &err));
    assert_int_equal(kg_store_current_revision(s2), r);
    kg_store_close(s2);
    fx_free(f);
}

static void test_etcd_event_ttl(void **state)
{
    (void)state;
    if (!etcd_backend())
        skip_because("test_etcd_event_ttl", "--event-ttl (keys written with an etcd lease) is etcd3's");
    static const char *const ttl_prefixes[] = {"/registry/events/", NULL};
    kg_store_options o = {.compact_interval_ms = -1, .etcd = {.ttl_prefixes = ttl_prefixes, .ttl_seconds = 2}};
    fixture *f = fx_new(&o);
    kg_error err = {0};
    kg_store_watch *w = kg_store_watch_open(f->s, "/registry/", 0, &err);
    assert_non_null(w);
    double t0 = now_s();
    int64_t re = create(f->s, "/registry/events/ns/e1", "{\"reason\":\"x\"}");
    create(f->s, "/registry/events/ns/e2", "{\"reason\":\"y\"}"); /* a lease of its own */
    create(f->s, "/registry/configmaps/ns/keep", "{}");
    /* etcd deletes the Events when the lease runs out; the watch sees the deletes with the objects */
    int deleted = 0;
    const kg_store_event *ev;
    while (deleted < 2 && now_s() - t0 < 15) {
        if (kg_store_watch_next(w, 500, &ev, &err) != KG_WATCH_EVENT)
            continue;
        if (ev->type == KG_STORE_DELETED) {
            assert_non_null(strstr(ev->key, "/registry/events/ns/e"));
            assert_true(ev->revision > re);
            deleted++;
        }
        kg_store_event_release(ev);
    }
    assert_int_equal(deleted, 2);
    assert_true(now_s() - t0 >= 1.5); /* not before the TTL */
    kg_store_kv kv;
    assert_false(kg_store_get(f->s, "/registry/events/ns/e1", &f->a, &kv, &err));
    assert_int_equal(err.code, KG_ENOTFOUND);
    assert_true(kg_store_get(f->s, "/registry/configmaps/ns/keep", &f->a, &kv, &err));
    kg_store_watch_close(w);
    fx_free(f);
}

/* ---- a private etcd for the etcd3 run ---- */

static pid_t etcd_pid;
static char etcd_dir[64];

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || getsockname(fd, (struct sockaddr *)&sa, &len))
        return -1;
    close(fd);
    return ntohs(sa.sin_port);
}

static void stop_etcd(void)
{
    if (etcd_pid > 0) {
        kill(etcd_pid, SIGKILL);
        waitpid(etcd_pid, NULL, 0);
        etcd_pid = 0;
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", etcd_dir);
        if (system(cmd) != 0)
            fprintf(stderr, "cannot remove %s\n", etcd_dir);
    }
}

/* 0 = running (etcd_servers set), 77 = no etcd binary (skip), 1 = failed */
static int start_etcd(void)
{
    const char *env = getenv("KGATE_ETCD_SERVERS");
    if (env && *env) {
        snprintf(etcd_servers, sizeof etcd_servers, "%s", env);
        return 0;
    }
    const char *bin = "/usr/bin/etcd";
    if (access(bin, X_OK) != 0) {
        printf("[  SKIPPED ] the etcd3 contract run: %s is not installed (scripts/install-deps installs "
               "etcd-server)\n",
               bin);
        return 77;
    }
    snprintf(etcd_dir, sizeof etcd_dir, "/tmp/kgetcd-XXXXXX");
    if (!mkdtemp(etcd_dir))
        return 1;
    for (int attempt = 0; attempt < 5; attempt++) {
        int cp = free_port(), pp = free_port();
        if (cp < 0 || pp < 0 || cp == pp)
            continue;
        char curl[64], purl[64], cluster[96], data[96], log[96];
        snprintf(curl, sizeof curl, "http://127.0.0.1:%d", cp);
        snprintf(purl, sizeof purl, "http://127.0.0.1:%d", pp);
        snprintf(cluster, sizeof cluster, "t=%s", purl);
        snprintf(data, sizeof data, "%s/data", etcd_dir);
        snprintf(log, sizeof log, "%s/etcd.log", etcd_dir);
        pid_t pid = fork();
        if (pid == 0) {
            FILE *lf = freopen(log, "a", stderr);
            (void)lf;
            dup2(2, 1);
            /* no fsync: the suite checks semantics, not disk durability (etcd's own business) */
            execl(bin, bin, "--name", "t", "--data-dir", data, "--listen-client-urls", curl, "--advertise-client-urls",
                  curl, "--listen-peer-urls", purl, "--initial-advertise-peer-urls", purl, "--initial-cluster", cluster,
                  "--unsafe-no-fsync", "--log-level", "warn", "--logger", "zap", (char *)NULL);
            _exit(127);
        }
        etcd_pid = pid;
        snprintf(etcd_servers, sizeof etcd_servers, "%s", curl);
        for (int i = 0; i < 100; i++) { /* up to 10 s for the member to elect itself */
            kg_error err = {0};
            kg_store_options o = {.compact_interval_ms = -1,
                                  .etcd = {.servers = etcd_servers,
                                           .prefix = "/kgt-ready",
                                           .compaction_interval_ms = -1,
                                           .request_timeout_ms = 1000}};
            kg_store *s = kg_store_open("etcd3", NULL, &o, &err);
            if (s) {
                kg_store_close(s);
                atexit(stop_etcd);
                return 0;
            }
            if (waitpid(pid, NULL, WNOHANG) == pid) { /* died: a port was taken meanwhile; try others */
                etcd_pid = 0;
                break;
            }
            usleep(100000);
        }
        if (etcd_pid) {
            kill(etcd_pid, SIGKILL);
            waitpid(etcd_pid, NULL, 0);
            etcd_pid = 0;
        }
    }
    fprintf(stderr, "could not start etcd (log in %s/etcd.log)\n", etcd_dir);
    return 1;
}

int main(void)
{
    if (etcd_backend()) {
        int rc = start_etcd();
        if (rc != 0)
            return rc;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_crud, setup, teardown),
        cmocka_unit_test(test_unknown_backend),
        cmocka_unit_test_setup_teardown(test_list_prefix_and_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_paging_consistent_snapshot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_continue_token_format, setup, teardown),
        cmocka_unit_test_setup_teardown(test_continue_token_invalid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_with_filter_fills_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_at_old_revision, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compaction_gone, setup, teardown),
        cmocka_unit_test(test_background_compaction),
        cmocka_unit_test(test_background_compaction_by_time),
        cmocka_unit_test_setup_teardown(test_compaction_model, setup, teardown),
        cmocka_unit_test_setup_teardown(test_watch_basic_events, setup, teardown),
        cmocka_unit_test_setup_teardown(test_watch_order_concurrent_writers, setup, teardown),
        cmocka_unit_test(test_watch_replay_from_old_revision),
        cmocka_unit_test_setup_teardown(test_list_then_watch_is_consistent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_watch_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_watch_notify, setup, teardown),
        cmocka_unit_test(test_watch_outlives_store),
        cmocka_unit_test(test_slow_watcher_does_not_block_writers),
        cmocka_unit_test(test_watch_window_byte_budget),
        cmocka_unit_test_setup_teardown(test_guaranteed_update, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_creates, setup, teardown),
        cmocka_unit_test(test_memory_history_bound),
        cmocka_unit_test(test_value_size_limit),
        cmocka_unit_test_setup_teardown(test_restart_persistence, setup, teardown),
        cmocka_unit_test(test_etcd_two_replicas),
        cmocka_unit_test(test_etcd_compaction_between_replicas),
        cmocka_unit_test(test_etcd_limits_and_failover),
        cmocka_unit_test(test_etcd_event_ttl),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    stop_etcd();
    return rc;
}
