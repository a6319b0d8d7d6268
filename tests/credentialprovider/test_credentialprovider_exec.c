/* The exec protocol with small shell-script plugins: the request on stdin, args, env, success, several providers,
 * timeout, non-zero exit, signals, garbage output, wrong apiVersion, unknown fields, cacheKeyType handling and the
 * disk cache for each cacheKeyType (time is moved forward through kg_cred_options.now_ns, never slept). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/str.h"
#include "credentialprovider/credentialprovider.h"

#define V1 "credentialprovider.kubelet.k8s.io/v1"
#define T0 (INT64_C(1700000000) * KG_CRED_SECOND)

static char tmpdir[256];
static char bindir[300];
static kg_buf errors;
static int cache_seq;

static const char plugin_script[] =
    "#!/bin/sh\n"
    "if [ \"$MODE\" = noread ]; then printf '%s' \"$RESPONSE\"; exit 0; fi\n"
    "if [ -n \"$REQ_LOG\" ]; then cat >> \"$REQ_LOG\"; else cat > /dev/null; fi\n"
    "if [ -n \"$ARGS_LOG\" ]; then printf '%s\\n' \"$*\" >> \"$ARGS_LOG\"; fi\n"
    "if [ -n \"$ENV_LOG\" ]; then printf '%s %s\\n' \"$PLUGIN_VAR\" \"$PARENT_ONLY\" >> \"$ENV_LOG\"; fi\n"
    "if [ -n \"$LEAK_FD\" ] && [ -e /proc/$$/fd/$LEAK_FD ]; then echo \"fd $LEAK_FD leaked\" >&2; exit 9; fi\n"
    "case \"$MODE\" in\n"
    "  sleep) sleep 5 ;;\n"
    "  slowok) sleep 0.4 ;;\n"
    "  fail) echo 'boom on stderr' >&2; exit 3 ;;\n"
    "  kill) kill -9 $$ ;;\n"
    "esac\n"
    "printf '%s' \"$RESPONSE\"\n";

static void on_error(void *ctx, const char *provider, const char *msg)
{
    kg_buf_printf(&errors, "[%s] %s\n", provider, msg);
}

static void write_file(const char *path, const char *text, int mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    chmod(path, (mode_t)mode);
}

static int count_lines(const char *path)
{
    size_t len;
    char *d = kg_read_file(path, &len);
    if (!d)
        return 0;
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += d[i] == '\n';
    free(d);
    return n;
}

/* A provider running the test plugin under the given name, with env pairs (NULL-terminated name, value list). */
static kg_cred_provider *mkprov(kg_arena *a, const char *name, const char *match, const char *dflt, ...)
{
    char *path = kg_arena_sprintf(a, "%s/%s", bindir, name);
    if (access(path, X_OK) != 0)
        write_file(path, plugin_script, 0755);
    kg_cred_provider *p = kg_arena_calloc(a, sizeof *p);
    p->name = name;
    p->match_images = kg_arena_alloc(a, sizeof(char *));
    p->match_images[0] = match;
    p->n_match_images = 1;
    p->api_version = V1;
    p->has_default_cache_duration = true;
    kg_error e = {0};
    assert_true(kg_credentialprovider_parse_duration(dflt, &p->default_cache_duration, &e));
    p->env = kg_arena_calloc(a, sizeof(kg_cred_env) * 16);
    va_list ap;
    va_start(ap, dflt);
    const char *k;
    while ((k = va_arg(ap, const char *))) {
        p->env[p->n_env].name = k;
        p->env[p->n_env].value = va_arg(ap, const char *);
        p->n_env++;
    }
    va_end(ap);
    return p;
}

static const char *resp(kg_arena *a, const char *key_type, const char *dur, const char *auth)
{
    return kg_arena_sprintf(a,
                            "{\"kind\":\"CredentialProviderResponse\",\"apiVersion\":\"" V1
                            "\",\"cacheKeyType\":\"%s\"%s%s%s,\"auth\":%s}",
                            key_type, dur ? ",\"cacheDuration\":\"" : "", dur ? dur : "", dur ? "\"" : "", auth);
}

static kg_cred_options opts(kg_arena *a)
{
    kg_cred_options o = {0};
    o.bin_dir = bindir;
    o.cache_dir = kg_arena_sprintf(a, "%s/cache-%d", tmpdir, ++cache_seq);
    o.exec_timeout_ms = 2000;
    o.now_ns = T0;
    o.on_error = on_error;
    return o;
}

static size_t lookup(kg_arena *a, kg_cred_provider **ps, size_t np, const kg_cred_options *o, const char *image,
                     kg_cred_auth **out)
{
    kg_cred_config cfg = {0};
    cfg.providers = kg_arena_alloc(a, sizeof(kg_cred_provider) * np);
    for (size_t i = 0; i < np; i++)
        cfg.providers[i] = *ps[i];
    cfg.n_providers = np;
    size_t n = 0;
    kg_error e = {0};
    if (!kg_credentialprovider_lookup(a, &cfg, o, image, out, &n, &e))
        fail_msg("lookup %s: %s", image, e.msg);
    return n;
}

static void success_request_args_env(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    char *req = kg_arena_sprintf(&a, "%s/req-ok.log", tmpdir), *args = kg_arena_sprintf(&a, "%s/args.log", tmpdir),
         *env = kg_arena_sprintf(&a, "%s/env.log", tmpdir);
    setenv("PLUGIN_VAR", "from-parent", 1);
    setenv("PARENT_ONLY", "inherited", 1);
    kg_cred_provider *p =
        mkprov(&a, "ok", "registry.io", "0s", "REQ_LOG", req, "ARGS_LOG", args, "ENV_LOG", env, "PLUGIN_VAR", "first",
               "PLUGIN_VAR", "from-config", "RESPONSE",
               resp(&a, "Image", NULL, "{\"registry.io\":{\"username\":\"u\",\"password\":\"p\"}}"), NULL);
    const char *pargs[] = {"get-credentials", "--flag=x y"};
    p->args = pargs;
    p->n_args = 2;
    kg_cred_options o = opts(&a);
    kg_cred_auth *c;
    size_t n = lookup(&a, &p, 1, &o, "registry.io/team/app:v1", &c);
    assert_string_equal(kg_buf_cstr(&errors), "");
    assert_int_equal(n, 1);
    assert_string_equal(c[0].username, "u");
    assert_string_equal(c[0].password, "p");
    assert_string_equal(c[0].key, "registry.io");
    assert_string_equal(c[0].provider, "ok");
    size_t len;
    char *got = kg_read_file(req, &len);
    assert_non_null(got);
    assert_string_equal(got, "{\"kind\":\"CredentialProviderRequest\",\"apiVersion\":\"" V1
                             "\",\"image\":\"registry.io/team/app\"}\n");
    free(got);
    got = kg_read_file(args, &len);
    assert_string_equal(got, "get-credentials --flag=x y\n");
    free(got);
    got = kg_read_file(env, &len);
    assert_string_equal(got, "from-config inherited\n"); /* the provider's env wins; the last duplicate wins */
    free(got);
    /* descriptors of the caller are not inherited */
    int leak = open("/dev/null", O_RDONLY); /* no O_CLOEXEC */
    assert_true(leak > 2);
    kg_cred_provider *fdp =
        mkprov(&a, "fdcheck", "registry.io", "0s", "LEAK_FD", kg_arena_sprintf(&a, "%d", leak), "RESPONSE",
               resp(&a, "Image", NULL, "{\"registry.io\":{\"username\":\"fd\"}}"), NULL);
    assert_int_equal(lookup(&a, &fdp, 1, &o, "registry.io/x", &c), 1);
    assert_string_equal(kg_buf_cstr(&errors), "");
    close(leak);
    /* an image the provider does not match: the plugin is not run */
    n = lookup(&a, &p, 1, &o, "other.io/team/app", &c);
    assert_int_equal(n, 0);
    assert_int_equal(count_lines(req), 1);
    kg_arena_free(&a);
}

static void several_providers_combined_in_order(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_cred_provider *ps[3];
    ps[0] = mkprov(&a, "prov-a", "registry.io", "0s", "RESPONSE",
                   resp(&a, "Image", NULL,
                        "{\"registry.io\":{\"username\":\"a1\",\"password\":\"x\"},\"*.io\":{\"username\":\"a2\","
                        "\"password\":\"x\"}}"),
                   NULL);
    ps[1] = mkprov(&a, "prov-b", "registry.io", "0s", "RESPONSE",
                   resp(&a, "Image", NULL,
                        "{\"https://registry.io/foo\":{\"username\":\"b1\",\"password\":\"x\"},\"registry.io\":{"
                        "\"username\":\"b2\",\"password\":\"x\"},\"other.io\":{\"username\":\"b3\"}}"),
                   NULL);
    ps[2] = mkprov(&a, "prov-c", "nomatch.io", "0s", "RESPONSE", "garbage", NULL);
    kg_cred_options o = opts(&a);
    kg_cred_auth *c;
    size_t n = lookup(&a, ps, 3, &o, "registry.io/foo/bar", &c);
    assert_string_equal(kg_buf_cstr(&errors), "");
    assert_int_equal(n, 4);
    assert_string_equal(c[0].username, "b1");
    assert_string_equal(c[0].key, "registry.io/foo");
    assert_string_equal(c[1].username, "a1");
    assert_string_equal(c[2].username, "b2");
    assert_string_equal(c[3].username, "a2");
    assert_string_equal(c[3].provider, "prov-a");

    /* /v1/ and /v2/ key paths are stripped; Docker Hub images fall back to index.docker.io */
    kg_cred_provider *hub = mkprov(&a, "hub", "docker.io", "0s", "RESPONSE",
                                   resp(&a, "Registry", NULL,
                                        "{\"https://index.docker.io/v1/\":{\"username\":\"hub\",\"password\":\"h\"},"
                                        "\"https://*.docker.io/v2/\":{\"username\":\"star\",\"password\":\"s\"}}"),
                                   NULL);
    n = lookup(&a, &hub, 1, &o, "nginx:1.25", &c);
    assert_int_equal(n, 1);
    assert_string_equal(c[0].username, "hub");
    assert_string_equal(c[0].key, "index.docker.io");
    /* an invalid key is skipped with upstream's message */
    kg_cred_provider *inv = mkprov(
        &a, "inv", "registry.io", "0s", "RESPONSE",
        resp(&a, "Image", NULL, "{\"%zz\":{\"username\":\"bad\"},\"registry.io\":{\"username\":\"good\"}}"), NULL);
    n = lookup(&a, &inv, 1, &o, "registry.io/x", &c);
    assert_int_equal(n, 1);
    assert_string_equal(c[0].username, "good");
    assert_string_equal(c[0].password, "");
    assert_string_equal(kg_buf_cstr(&errors), "[inv] Entry \"%zz\" in dockercfg invalid (parse \"https://%zz\": "
                                              "invalid URL escape \"%zz\"), ignoring\n");
    kg_arena_free(&a);
}

/* Upstream's TestDockerKeyringForGlob and TestKeyringMiss, through a provider's auth keys. */
static void upstream_keyring_globs(void **state)
{
    static const struct {
        const char *key, *target;
        bool found;
    } c[] = {
        {"https://hello.kubernetes.io", "hello.kubernetes.io", true},
        {"https://*.docker.io", "prefix.docker.io", true},
        {"https://prefix.*.io/path", "prefix.docker.io/path/subpath", true},
        {"https://*.docker.io:8888", "prefix.docker.io:8888", true},
        {"https://*.docker.io/v1/", "prefix.docker.io/path:1111", true},
        {"prefix.docker.io:1111", "prefix.docker.io:1111/path", true},
        {"https://*.docker.com", "prefix.docker.io", false},
        {"https://suffix.*.io", "prefix.docker.io", false},
        {"https://prefix.docker.c*", "prefix.docker.io", false},
        {"https://prefix.*.io/path:1111", "prefix.docker.io/path/subpath:1111", false},
    };
    static const char *match[] = {"*.*.io", "*.*.io:8888", "*.*.io:1111"};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        kg_arena a;
        kg_arena_init(&a, 0);
        char *auth = kg_arena_sprintf(&a, "{\"%s\":{\"username\":\"user\",\"password\":\"pw\"}}", c[i].key);
        kg_cred_provider *p = mkprov(&a, "globs", "*.*.io", "0s", "RESPONSE", resp(&a, "Image", NULL, auth), NULL);
        p->match_images = match;
        p->n_match_images = 3;
        kg_cred_options o = opts(&a);
        kg_cred_config cfg = {.providers = p, .n_providers = 1};
        kg_cred_auth *got;
        size_t n;
        kg_credentialprovider_lookup_name(&a, &cfg, &o, kg_arena_sprintf(&a, "%s/foo/bar", c[i].target), &got, &n);
        if ((n == 1) != c[i].found)
            fail_msg("key %s, image %s/foo/bar: %zu credentials", c[i].key, c[i].target, n);
        if (n)
            assert_string_equal(got[0].username, "user");
        assert_string_equal(kg_buf_cstr(&errors), "");
        kg_arena_free(&a);
    }
}

static void expect_failure(const char *name, const char *mode, const char *response, const char *want, int64_t to)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_buf_reset(&errors);
    kg_cred_provider *p = mkprov(&a, name, "registry.io", "1h", "MODE", mode, "RESPONSE", response, NULL);
    kg_cred_options o = opts(&a);
    if (to)
        o.exec_timeout_ms = to;
    kg_cred_auth *c;
    size_t n = lookup(&a, &p, 1, &o, "registry.io/x", &c);
    assert_int_equal(n, 0);
    char *w = kg_arena_sprintf(&a, "[%s] Failed getting credential from external registry credential provider: %s\n",
                               name, want);
    if (strcmp(kg_buf_cstr(&errors), w))
        fail_msg("got:  %s\nwant: %s", kg_buf_cstr(&errors), w);
    /* a failure is never cached */
    DIR *d = opendir(o.cache_dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)))
            assert_false(kg_str_has_suffix(de->d_name, ".json") && de->d_name[0] != '.');
        closedir(d);
    }
    kg_buf_reset(&errors);
    kg_arena_free(&a);
}

static void plugin_failures(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *good = resp(&a, "Image", NULL, "{}");
    expect_failure("exits", "fail", good,
                   "error execing credential provider plugin exits for image registry.io/x: exit status 3: boom on "
                   "stderr\n",
                   0);
    expect_failure("killed", "kill", good,
                   "error execing credential provider plugin killed for image registry.io/x: signal: killed: ", 0);
    expect_failure("garbage", "", "garbage",
                   "error reading GVK from response: couldn't get version/kind; json parse error: invalid character "
                   "'g' looking for beginning of value",
                   0);
    expect_failure("empty", "", "",
                   "error reading GVK from response: couldn't get version/kind; json parse error: unexpected end of "
                   "JSON input",
                   0);
    expect_failure("wrongver", "",
                   "{\"kind\":\"CredentialProviderResponse\",\"apiVersion\":\"credentialprovider.kubelet.k8s.io/"
                   "v1beta1\",\"cacheKeyType\":\"Image\"}",
                   "apiVersion from credential plugin response did not match expected apiVersion:" V1
                   ", actual apiVersion:credentialprovider.kubelet.k8s.io/v1beta1",
                   0);
    expect_failure(
        "nover", "", "{\"kind\":\"CredentialProviderResponse\",\"cacheKeyType\":\"Image\"}",
        "apiVersion from credential plugin response did not match expected apiVersion:" V1 ", actual apiVersion:", 0);
    const char *decode_err = "error decoding credential provider plugin response from stdout";
    expect_failure("unknown-top", "",
                   "{\"kind\":\"CredentialProviderResponse\",\"apiVersion\":\"" V1
                   "\",\"cacheKeyType\":\"Image\",\"extra\":1}",
                   decode_err, 0);
    expect_failure("unknown-auth", "",
                   resp(&a, "Image", NULL, "{\"r.io\":{\"username\":\"u\",\"password\":\"p\",\"token\":\"t\"}}"),
                   decode_err, 0);
    expect_failure("wrongkind", "",
                   "{\"kind\":\"CredentialProviderRequest\",\"apiVersion\":\"" V1 "\",\"cacheKeyType\":\"Image\"}",
                   decode_err, 0);
    expect_failure("dupfield", "",
                   "{\"kind\":\"CredentialProviderResponse\",\"apiVersion\":\"" V1
                   "\",\"cacheKeyType\":\"Image\",\"cacheKeyType\":\"Global\"}",
                   decode_err, 0);
    expect_failure("baddur", "", resp(&a, "Image", "soon", "{}"), decode_err, 0);
    expect_failure("badtype", "", resp(&a, "Image", NULL, "{\"r.io\":{\"username\":7}}"), decode_err, 0);

    /* a plugin that exits without reading its stdin: no SIGPIPE, the answer is used */
    kg_buf_reset(&errors);
    for (int i = 0; i < 20; i++) {
        kg_cred_provider *nr = mkprov(&a, "noread", "registry.io", "0s", "MODE", "noread", "RESPONSE",
                                      resp(&a, "Image", NULL, "{\"registry.io\":{\"username\":\"nr\"}}"), NULL);
        kg_cred_options o2 = opts(&a);
        kg_cred_auth *c2;
        assert_int_equal(lookup(&a, &nr, 1, &o2, "registry.io/x", &c2), 1);
        assert_string_equal(c2[0].username, "nr");
    }
    assert_string_equal(kg_buf_cstr(&errors), "");

    /* an invalid cacheKeyType discards the response */
    kg_buf_reset(&errors);
    kg_cred_provider *p = mkprov(&a, "badkey", "registry.io", "1h", "RESPONSE",
                                 resp(&a, "Bogus", NULL, "{\"registry.io\":{\"username\":\"u\"}}"), NULL);
    kg_cred_options o = opts(&a);
    kg_cred_auth *c;
    assert_int_equal(lookup(&a, &p, 1, &o, "registry.io/x", &c), 0);
    assert_string_equal(kg_buf_cstr(&errors),
                        "[badkey] credential provider plugin did not return a valid cacheKeyType: \"Bogus\"\n");
    kg_buf_reset(&errors);

    /* a missing executable */
    kg_cred_provider missing = *p;
    missing.name = "does-not-exist";
    kg_cred_provider *mp = &missing;
    assert_int_equal(lookup(&a, &mp, 1, &o, "registry.io/x", &c), 0);
    char *w = kg_arena_sprintf(&a,
                               "[does-not-exist] Failed getting credential from external registry credential provider: "
                               "error execing credential provider plugin does-not-exist for image registry.io/x: "
                               "fork/exec %s/does-not-exist: no such file or directory: \n",
                               bindir);
    assert_string_equal(kg_buf_cstr(&errors), w);
    kg_buf_reset(&errors);
    kg_arena_free(&a);
}

static void timeout_kills_plugin(void **state)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    expect_failure(
        "slow", "sleep", "{}",
        "error execing credential provider plugin slow for image registry.io/x: context deadline exceeded: ", 400);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double el = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_true(el >= 0.35);
    assert_true(el < 3.0); /* the sleeping child was killed, not waited for */
}

/* Runs the provider for each image at the given time offsets; returns the number of plugin runs. */
typedef struct step {
    const char *image;
    int64_t at_s;
    int want_runs; /* cumulative */
} step;

static void run_steps(const char *name, const char *match, const char *dflt, const char *key_type, const char *dur,
                      const step *steps, size_t ns, bool no_cache)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    char *req = kg_arena_sprintf(&a, "%s/req-%s.log", tmpdir, name);
    unlink(req);
    kg_cred_provider *p = mkprov(&a, name, match, dflt, "REQ_LOG", req, "RESPONSE",
                                 resp(&a, key_type, dur,
                                      "{\"*.io\":{\"username\":\"u\",\"password\":\"p\"},\"*.com\":{\"username\":"
                                      "\"u\",\"password\":\"p\"}}"),
                                 NULL);
    kg_cred_options o = opts(&a);
    o.no_cache = no_cache;
    for (size_t i = 0; i < ns; i++) {
        o.now_ns = T0 + steps[i].at_s * KG_CRED_SECOND;
        kg_cred_auth *c;
        size_t n = lookup(&a, &p, 1, &o, steps[i].image, &c);
        assert_int_equal(n, 1);
        assert_string_equal(c[0].username, "u");
        if (count_lines(req) != steps[i].want_runs)
            fail_msg("%s step %zu (%s at +%llds): %d runs, want %d", name, i, steps[i].image, (long long)steps[i].at_s,
                     count_lines(req), steps[i].want_runs);
    }
    assert_string_equal(kg_buf_cstr(&errors), "");
    kg_arena_free(&a);
}

static void cache_by_image(void **state)
{
    const step s[] = {
        {"registry.io/team/app:v1", 0, 1}, {"registry.io/team/app:v2", 5, 1}, /* same repository, tag ignored */
        {"registry.io/team/other", 5, 2},                                     /* another image of the registry */
        {"registry.io/team/app", 10, 2},                                      /* now == expiresAt: still valid */
        {"registry.io/team/app", 11, 3},                                      /* expired */
        {"registry.io/team/app", 12, 3},
    };
    run_steps("cache-image", "*.io", "1h", "Image", "10s", s, sizeof s / sizeof s[0], false);
}

static void cache_by_registry(void **state)
{
    const step s[] = {
        {"registry.io/a", 0, 1},  {"registry.io/b/c", 1, 1}, {"other.io/a", 1, 2},
        {"registry.io/d", 30, 2}, {"registry.io/d", 61, 3},
    };
    /* no cacheDuration in the response: defaultCacheDuration (1m) applies */
    run_steps("cache-registry", "*.io", "1m", "Registry", NULL, s, sizeof s / sizeof s[0], false);
}

static void cache_global(void **state)
{
    const step s[] = {
        {"registry.io/a", 0, 1}, {"other.io/b", 1, 1}, {"x.com/c", 2, 1}, {"x.com/c", 3601, 2}, {"y.io/c", 3602, 2},
    };
    run_steps("cache-global", "*.*", "0s", "Global", "1h", s, sizeof s / sizeof s[0], false);
}

static void zero_durations_and_no_cache(void **state)
{
    const step twice[] = {{"registry.io/a", 0, 1}, {"registry.io/a", 1, 2}};
    run_steps("zero-resp", "*.io", "1h", "Image", "0s", twice, 2, false);    /* cacheDuration 0s: no cache */
    run_steps("zero-default", "*.io", "0s", "Image", NULL, twice, 2, false); /* default 0 and none given */
    run_steps("no-cache", "*.io", "1h", "Global", "1h", twice, 2, true);
    run_steps("negative", "*.io", "1h", "Image", "-5s", twice, 2, false);
    const step cached[] = {{"registry.io/a", 0, 1}, {"registry.io/a", 1, 1}};
    run_steps("huge", "*.io", "1h", "Image", "2562047h47m16.854775807s", cached, 2, false); /* no overflow */
}

static void cache_files_private_and_corruption_ignored(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    char *req = kg_arena_sprintf(&a, "%s/req-corrupt.log", tmpdir);
    kg_cred_provider *p =
        mkprov(&a, "corrupt", "registry.io", "1h", "REQ_LOG", req, "RESPONSE",
               resp(&a, "Registry", NULL, "{\"registry.io\":{\"username\":\"u\",\"password\":\"p\"}}"), NULL);
    kg_cred_options o = opts(&a);
    o.cache_dir = kg_arena_sprintf(&a, "%s/deep/er/cache", tmpdir);
    kg_cred_auth *c;
    assert_int_equal(lookup(&a, &p, 1, &o, "registry.io/a", &c), 1);
    struct stat st;
    assert_int_equal(stat(o.cache_dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    char *file = kg_arena_sprintf(&a, "%s/%s", o.cache_dir, kg_credentialprovider_cache_file(&a, p, "registry.io", ""));
    assert_int_equal(stat(file, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(lookup(&a, &p, 1, &o, "registry.io/b", &c), 1);
    assert_int_equal(count_lines(req), 1);
    /* the entry is bound to its provider identity: another args list does not share it */
    kg_cred_provider other = *p;
    const char *args[] = {"--other"};
    other.args = args;
    other.n_args = 1;
    kg_cred_provider *op = &other;
    assert_int_equal(lookup(&a, &op, 1, &o, "registry.io/b", &c), 1);
    assert_int_equal(count_lines(req), 2);
    /* corrupted contents are ignored, never trusted */
    const char *bad[] = {"",
                         "{not json",
                         "[]",
                         "{\"provider\":\"corrupt\"}",
                         "{\"provider\":\"corrupt\",\"baseKey\":\"registry.io\",\"saKey\":\"\",\"expiresAt\":\"x\","
                         "\"auth\":{}}",
                         "{\"provider\":\"evil\",\"baseKey\":\"registry.io\",\"saKey\":\"\",\"expiresAt\":"
                         "9000000000000000000,\"auth\":{\"registry.io\":{\"username\":\"evil\",\"password\":\"e\"}}}",
                         "{\"provider\":\"corrupt\",\"baseKey\":\"registry.io\",\"saKey\":\"\",\"expiresAt\":"
                         "9000000000000000000,\"auth\":{\"registry.io\":{\"username\":5,\"password\":\"e\"}}}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(file, bad[i], 0600);
        assert_int_equal(lookup(&a, &p, 1, &o, "registry.io/c", &c), 1);
        assert_string_equal(c[0].username, "u");
        assert_int_equal(count_lines(req), 3 + (int)i);
    }
    /* and after the last run the file is valid again and used */
    assert_int_equal(lookup(&a, &p, 1, &o, "registry.io/c", &c), 1);
    int runs = 3 + (int)(sizeof bad / sizeof bad[0]) - 1;
    assert_int_equal(count_lines(req), runs);
    /* a directory others can write is not trusted: a planted entry is ignored, the directory is tightened and
     * its entries dropped */
    write_file(file,
               "{\"provider\":\"corrupt\",\"baseKey\":\"registry.io\",\"saKey\":\"\",\"expiresAt\":"
               "9000000000000000000,\"auth\":{\"registry.io\":{\"username\":\"planted\",\"password\":\"e\"}}}",
               0600);
    char *planted2 = kg_arena_sprintf(&a, "%s/%s", o.cache_dir, kg_credentialprovider_cache_file(&a, p, "other", ""));
    write_file(planted2, "{}", 0600);
    chmod(o.cache_dir, 0777);
    assert_int_equal(lookup(&a, &p, 1, &o, "registry.io/c", &c), 1);
    assert_string_equal(c[0].username, "u");
    assert_int_equal(count_lines(req), ++runs);
    assert_int_equal(stat(o.cache_dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_not_equal(access(planted2, F_OK), 0);
    assert_int_equal(lookup(&a, &p, 1, &o, "registry.io/c", &c), 1);
    assert_int_equal(count_lines(req), runs); /* the fresh entry is used again */
    assert_string_equal(kg_buf_cstr(&errors), "");
    kg_arena_free(&a);
}

/* Two processes asking for the same image at once run the plugin once (upstream's singleflight, across processes
 * through a lock in the cache directory); with --no-cache each runs it. */
static void concurrent_runs_share_one_exec(void **state)
{
    for (int no_cache = 0; no_cache < 2; no_cache++) {
        kg_arena a;
        kg_arena_init(&a, 0);
        char *req = kg_arena_sprintf(&a, "%s/req-concurrent-%d.log", tmpdir, no_cache);
        kg_cred_provider *p =
            mkprov(&a, "concurrent", "registry.io", "1h", "MODE", "slowok", "REQ_LOG", req, "RESPONSE",
                   resp(&a, "Image", NULL, "{\"registry.io\":{\"username\":\"c\"}}"), NULL);
        kg_cred_options o = opts(&a);
        o.now_ns = 0; /* real clock: both processes must agree on expiry */
        o.no_cache = no_cache;
        fflush(NULL);
        pid_t kids[3];
        for (int k = 0; k < 3; k++) {
            kids[k] = fork();
            assert_true(kids[k] >= 0);
            if (kids[k] == 0) {
                kg_cred_auth *c;
                size_t n = lookup(&a, &p, 1, &o, "registry.io/team/app", &c);
                _exit(n == 1 && !strcmp(c[0].username, "c") ? 0 : 1);
            }
        }
        for (int k = 0; k < 3; k++) {
            int st = 0;
            assert_int_equal(waitpid(kids[k], &st, 0), kids[k]);
            assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        }
        assert_int_equal(count_lines(req), no_cache ? 3 : 1);
        kg_arena_free(&a);
    }
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kgate-cred-exec-XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    snprintf(bindir, sizeof bindir, "%s/bin", tmpdir);
    mkdir(bindir, 0755);
    kg_buf_init(&errors);
    return 0;
}

static int teardown(void **state)
{
    kg_buf_free(&errors);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static int reset_errors(void **state)
{
    kg_buf_reset(&errors);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(success_request_args_env, reset_errors),
        cmocka_unit_test_setup(several_providers_combined_in_order, reset_errors),
        cmocka_unit_test_setup(upstream_keyring_globs, reset_errors),
        cmocka_unit_test_setup(plugin_failures, reset_errors),
        cmocka_unit_test_setup(timeout_kills_plugin, reset_errors),
        cmocka_unit_test_setup(cache_by_image, reset_errors),
        cmocka_unit_test_setup(cache_by_registry, reset_errors),
        cmocka_unit_test_setup(cache_global, reset_errors),
        cmocka_unit_test_setup(zero_durations_and_no_cache, reset_errors),
        cmocka_unit_test_setup(cache_files_private_and_corruption_ignored, reset_errors),
        cmocka_unit_test_setup(concurrent_runs_share_one_exec, reset_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
