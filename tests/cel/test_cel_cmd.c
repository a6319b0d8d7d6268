/* `kgate cel`: runs the binary and checks stdout, stderr and the exit status (0 ok, 1 compile error, 2 eval error). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

typedef struct out {
    char stdout_text[4096];
    char stderr_text[4096];
    int status;
} out;

static void slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
}

/* args is a shell-quoted argument string */
static out run_kgate(const char *args)
{
    out o;
    memset(&o, 0, sizeof o);
    const char *bin = getenv("KGATE_BINARY_DIR");
    char cmd[8192];
    char so[] = "/tmp/kgate_cel_cmd_out_XXXXXX", se[] = "/tmp/kgate_cel_cmd_err_XXXXXX";
    int fo = mkstemp(so), fe = mkstemp(se);
    assert_true(fo >= 0 && fe >= 0);
    snprintf(cmd, sizeof cmd, "%s/kgate cel %s >%s 2>%s", bin ? bin : ".", args, so, se);
    int st = system(cmd);
    o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    slurp(so, o.stdout_text, sizeof o.stdout_text);
    slurp(se, o.stderr_text, sizeof o.stderr_text);
    unlink(so);
    unlink(se);
    return o;
}

static void test_values(void **state)
{
    (void)state;
    out o = run_kgate("'1 + 2 * 3'");
    assert_int_equal(o.status, 0);
    assert_string_equal(o.stdout_text, "7\n");
    /* Kubernetes environment: mixed literals need dyn() */
    o = run_kgate("\"{'b': b'hi', 'u': 2u}\"");
    assert_int_equal(o.status, 1);
    assert_non_null(strstr(o.stderr_text, "expected type 'bytes' but found 'uint'"));
    o = run_kgate("\"{'b': dyn(b'hi'), 'd': dyn(duration('3723s')), 't': dyn(timestamp('2009-02-13T23:31:30Z')), "
                  "'u': dyn(2u)}\"");
    assert_int_equal(o.status, 0);
    assert_string_equal(o.stdout_text, "{\"b\":\"aGk=\",\"d\":\"1h2m3s\",\"t\":\"2009-02-13T23:31:30Z\",\"u\":2}\n");
    o = run_kgate("'type(1.5)'");
    assert_string_equal(o.stdout_text, "\"double\"\n");
}

static void test_vars_and_cost(void **state)
{
    (void)state;
    char path[] = "/tmp/kgate_cel_cmd_var_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *pod =
        "{\"spec\":{\"containers\":[{\"image\":\"registry.example.com/a\"},{\"image\":\"docker.io/b\"}]}}";
    assert_int_equal(write(fd, pod, strlen(pod)), (ssize_t)strlen(pod));
    close(fd);
    char args[512];
    snprintf(args, sizeof args,
             "--var object=@%s --var 'limit={\"n\":1}' --cost "
             "'object.spec.containers.filter(c, c.image.startsWith(\"registry.example.com/\")).size() == limit.n'",
             path);
    out o = run_kgate(args);
    unlink(path);
    assert_int_equal(o.status, 0);
    assert_string_equal(o.stdout_text, "true\n");
    assert_non_null(strstr(o.stderr_text, "cost: "));
}

static void test_kubernetes_libraries(void **state)
{
    (void)state;
#ifdef KGATE_HAVE_CEL_K8S
    out o =
        run_kgate("--var 'object={\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"memory\":\"2Gi\"}}}]}}' "
                  "\"object.spec.containers.all(c, quantity(c.resources.limits.memory).compareTo(quantity('4Gi')) < "
                  "0)\"");
    assert_int_equal(o.status, 0);
    assert_string_equal(o.stdout_text, "true\n");
    o = run_kgate("\"quantity('200K')\"");
    assert_int_equal(o.status, 2);
#else
    skip();
#endif
}

static void test_errors(void **state)
{
    (void)state;
    out o = run_kgate("'1 +'");
    assert_int_equal(o.status, 1);
    assert_string_equal(o.stdout_text, "");
    assert_non_null(strstr(o.stderr_text, "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>'"));
    o = run_kgate("--var 'o={}' 'o.missing'");
    assert_int_equal(o.status, 2);
    assert_string_equal(o.stderr_text, "no such key: missing\n");
    o = run_kgate("'1 / 0'");
    assert_int_equal(o.status, 2);
    assert_string_equal(o.stderr_text, "division by zero\n");
    o = run_kgate("'lists.range(2000).all(i, lists.range(2000).all(j, true))'");
    assert_int_equal(o.status, 2);
    assert_string_equal(o.stderr_text, "operation cancelled: actual cost limit exceeded\n");
    o = run_kgate("--var 'o={bad' 'o'");
    assert_int_equal(o.status, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_vars_and_cost),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_kubernetes_libraries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
