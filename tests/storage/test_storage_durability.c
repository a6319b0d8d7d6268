/* kill -9 durability: a child process creates objects from 64 threads and reports every acknowledged create on a
 * pipe; the parent SIGKILLs it mid-load, reopens the store and checks that every acknowledged key is there with
 * its exact value. Repeated over several rounds on the same store (each round also survives the previous kill). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "storage/storage.h"

#define THREADS 64
#define VALUE_SIZE 4096
#define KEY_MAX 64

static const char *backend(void)
{
    const char *b = getenv("KGATE_STORE_BACKEND");
    return b && *b ? b : "sqlite";
}

typedef struct child_args {
    kg_store *s;
    int round, id, fd;
} child_args;

static void make_value(char *v, const char *key)
{
    /* deterministic 4 KB JSON-ish value derived from the key */
    int n = snprintf(v, VALUE_SIZE, "{\"key\":\"%s\",\"pad\":\"", key);
    unsigned h = 2166136261u;
    for (const char *p = key; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    for (; n < VALUE_SIZE - 3; n++) {
        h = h * 1103515245u + 12345u;
        v[n] = (char)('a' + (h >> 16) % 26);
    }
    v[n++] = '"';
    v[n++] = '}';
    v[n] = 0;
}

static void *child_thread(void *p)
{
    child_args *a = p;
    char key[KEY_MAX], val[VALUE_SIZE + 1];
    for (int i = 0;; i++) {
        memset(key, 0, sizeof key);
        snprintf(key, sizeof key, "/registry/pods/r%d/t%02d-%06d", a->round, a->id, i);
        make_value(val, key);
        kg_error err = {0};
        if (!kg_store_create(a->s, key, val, strlen(val), NULL, &err)) {
            fprintf(stderr, "child create %s: %s\n", key, err.msg);
            _exit(3);
        }
        /* KEY_MAX < PIPE_BUF: each record is written atomically */
        if (write(a->fd, key, KEY_MAX) != KEY_MAX)
            _exit(4);
    }
    return NULL;
}

static void run_child(const char *dir, int round, int fd)
{
    kg_error err = {0};
    kg_store *s = kg_store_open(backend(), dir, NULL, &err);
    if (!s) {
        fprintf(stderr, "child open: %s\n", err.msg);
        _exit(2);
    }
    static child_args args[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (child_args){s, round, i, fd};
        pthread_create(&th[i], NULL, child_thread, &args[i]);
    }
    for (;;)
        pause();
}

static void test_kill9_loses_no_acknowledged_create(void **state)
{
    (void)state;
    char dir[] = "/tmp/kgstore-durable-XXXXXX";
    assert_non_null(mkdtemp(dir));
    size_t cap = 1 << 16, total_acked = 0;
    char (*acked)[KEY_MAX] = malloc(cap * KEY_MAX);
    for (int round = 0; round < 3; round++) {
        int pfd[2];
        assert_int_equal(pipe(pfd), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(pfd[0]);
            run_child(dir, round, pfd[1]);
        }
        close(pfd[1]);
        /* let it run until a few hundred creates are acknowledged (at a pseudo-random point), then kill -9 */
        size_t want = 300 + (size_t)(round * 211), got = 0;
        char rec[KEY_MAX];
        size_t off = 0;
        while (got < want) {
            ssize_t r = read(pfd[0], rec + off, KEY_MAX - off);
            if (r <= 0) {
                int st;
                waitpid(pid, &st, 0);
                fail_msg("child died early (status %d)", st);
            }
            off += (size_t)r;
            if (off == KEY_MAX) {
                if (total_acked == cap) {
                    cap *= 2;
                    acked = realloc(acked, cap * KEY_MAX);
                }
                memcpy(acked[total_acked++], rec, KEY_MAX);
                got++;
                off = 0;
            }
        }
        assert_int_equal(kill(pid, SIGKILL), 0);
        /* acknowledgements written before the kill are still in the pipe: they count too */
        for (;;) {
            ssize_t r = read(pfd[0], rec + off, KEY_MAX - off);
            if (r <= 0)
                break;
            off += (size_t)r;
            if (off == KEY_MAX) {
                if (total_acked == cap) {
                    cap *= 2;
                    acked = realloc(acked, cap * KEY_MAX);
                }
                memcpy(acked[total_acked++], rec, KEY_MAX);
                off = 0;
            }
        }
        close(pfd[0]);
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);

        /* reopen: every acknowledged key of every round is present with its exact value */
        kg_error err = {0};
        kg_store *s = kg_store_open(backend(), dir, NULL, &err);
        if (!s)
            fail_msg("reopen: %s", err.msg);
        kg_arena a;
        kg_arena_init(&a, 0);
        char val[VALUE_SIZE + 1];
        for (size_t i = 0; i < total_acked; i++) {
            kg_store_kv kv;
            if (!kg_store_get(s, acked[i], &a, &kv, &err))
                fail_msg("round %d: acknowledged key %s lost: %s", round, acked[i], err.msg);
            make_value(val, acked[i]);
            assert_int_equal(kv.value_len, strlen(val));
            assert_memory_equal(kv.value, val, kv.value_len);
            kg_arena_reset(&a);
        }
        /* the revision counter covers at least every acknowledged write, and the store is writable */
        assert_true(kg_store_current_revision(s) >= (int64_t)total_acked + 1);
        kg_store_list_result res;
        kg_store_list_opts ko = {.keys_only = true};
        assert_true(kg_store_list(s, "/registry/pods/", &ko, &a, &res, &err));
        assert_true(res.n >= total_acked);
        int64_t rev;
        assert_true(kg_store_create(s, "/registry/probe/after-kill", "x", 1, &rev, &err) ||
                    err.code == KG_EEXIST);
        if (err.code != KG_EEXIST)
            assert_int_equal(rev, res.revision + 1);
        fprintf(stderr, "round %d: %zu acknowledged so far, %zu keys present, all acknowledged keys intact\n", round,
                total_acked, res.n);
        kg_arena_free(&a);
        kg_store_close(s);
    }
    free(acked);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kill9_loses_no_acknowledged_create),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
