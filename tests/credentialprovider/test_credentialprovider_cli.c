/* kgate credentials: validate, get (Docker config JSON) and the docker-credential-helper protocol, run in-process
 * with stdout/stdin redirected to files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/str.h"
#include "credentialprovider/credentialprovider.h"
#include "json/json.h"

int kg_cmd_credentials(int argc, char **argv);

#define V1 "credentialprovider.kubelet.k8s.io/v1"

static char tmpdir[256], bindir[300], cfgpath[300], cachedir[300];

static void write_file(const char *path, const char *text, int mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    chmod(path, (mode_t)mode);
}

/* Runs the command with stdin from `input`; returns the exit code and stdout (malloc'd) in *out. */
static int run(const char *input, char **out, ...)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = "credentials";
    va_list ap;
    va_start(ap, out);
    char *s;
    while ((s = va_arg(ap, char *)) && argc < 31)
        argv[argc++] = s;
    va_end(ap);
    argv[argc] = NULL;
    char inpath[320], outpath[320];
    snprintf(inpath, sizeof inpath, "%s/stdin", tmpdir);
    snprintf(outpath, sizeof outpath, "%s/stdout", tmpdir);
    write_file(inpath, input ? input : "", 0600);
    fflush(stdout);
    int saved_out = dup(1), saved_in = dup(0);
    int fo = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0600), fi = open(inpath, O_RDONLY);
    dup2(fo, 1);
    dup2(fi, 0);
    close(fo);
    close(fi);
    clearerr(stdin);
    int rc = kg_cmd_credentials(argc, argv);
    fflush(stdout);
    dup2(saved_out, 1);
    dup2(saved_in, 0);
    close(saved_out);
    close(saved_in);
    clearerr(stdin);
    size_t len;
    *out = kg_read_file(outpath, &len);
    return rc;
}

/* ---- token mode through the command's flags, against a tiny API server ---- */
static char token_body[4096];

static enum MHD_Result api(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                           const char *version, const char *data, size_t *size, void **con_cls)
{
    static int marker;
    if (!*con_cls) {
        *con_cls = &marker;
        return MHD_YES;
    }
    if (*size) {
        size_t have = strlen(token_body);
        if (have + *size < sizeof token_body) {
            memcpy(token_body + have, data, *size);
            token_body[have + *size] = 0;
        }
        *size = 0;
        return MHD_YES;
    }
    const char *body = "{\"kind\":\"Status\",\"message\":\"not found\"}";
    unsigned status = 404;
    if (!strcmp(method, "GET") && !strcmp(url, "/api/v1/namespaces/team-a/serviceaccounts/builder")) {
        body = "{\"metadata\":{\"uid\":\"uid-1\",\"annotations\":{\"acme.io/id\":\"42\"}}}";
        status = 200;
    } else if (!strcmp(method, "POST") && !strcmp(url, "/api/v1/namespaces/team-a/serviceaccounts/builder/token")) {
        body = "{\"status\":{\"token\":\"minted\"}}";
        status = 201;
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static void token_mode_flags(void **state)
{
    struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, api, NULL, MHD_OPTION_END);
    assert_non_null(d);
    int port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
    char p[400], kc[400], cfg[400], reqlog[400];
    snprintf(reqlog, sizeof reqlog, "%s/sa-req.log", tmpdir);
    snprintf(p, sizeof p, "%s/sa", bindir);
    char script[1200];
    snprintf(script, sizeof script,
             "#!/bin/sh\ncat >> '%s'\nprintf '%%s' '{\"kind\":\"CredentialProviderResponse\",\"apiVersion\":\"" V1
             "\",\"cacheKeyType\":\"Image\",\"auth\":{\"sa.io\":{\"username\":\"robot\",\"password\":\"pw\"}}}'\n",
             reqlog);
    write_file(p, script, 0755);
    snprintf(kc, sizeof kc, "%s/kubeconfig", tmpdir);
    char kctext[600];
    snprintf(
        kctext, sizeof kctext,
        "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n"
        "clusters:\n- name: k\n  cluster: {server: \"http://127.0.0.1:%d\"}\nusers:\n- name: u\n  user: {token: t}\n",
        port);
    write_file(kc, kctext, 0600);
    snprintf(cfg, sizeof cfg, "%s/sa.yaml", tmpdir);
    write_file(
        cfg,
        "apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n- name: sa\n"
        "  matchImages: [sa.io]\n  defaultCacheDuration: 1m\n  apiVersion: " V1 "\n  tokenAttributes:\n"
        "    serviceAccountTokenAudience: sa.io\n    cacheType: ServiceAccount\n    requireServiceAccount: true\n"
        "    requiredServiceAccountAnnotationKeys: [acme.io/id]\n",
        0644);
    char cfgflag[450], binflag[400], kcflag[450];
    snprintf(cfgflag, sizeof cfgflag, "--image-credential-provider-config=%s", cfg);
    snprintf(binflag, sizeof binflag, "--image-credential-provider-bin-dir=%s", bindir);
    snprintf(kcflag, sizeof kcflag, "--kubeconfig=%s", kc);
    char *out;
    /* no service account given: the provider requires one, so no credentials */
    assert_int_equal(run(NULL, &out, cfgflag, binflag, "--no-cache", "get", "sa.io/app", NULL), 0);
    assert_null(strstr(out, "robot"));
    free(out);
    assert_int_equal(run(NULL, &out, cfgflag, binflag, kcflag, "--no-cache", "--namespace=team-a",
                         "--service-account=builder", "--pod-name=build-1", "--pod-uid=pod-uid-9", "get", "sa.io/app",
                         NULL),
                     0);
    assert_non_null(strstr(out, "\"robot\""));
    free(out);
    size_t len;
    char *req = kg_read_file(reqlog, &len);
    assert_non_null(req);
    assert_string_equal(req, "{\"kind\":\"CredentialProviderRequest\",\"apiVersion\":\"" V1
                             "\",\"image\":\"sa.io/app\",\"serviceAccountToken\":\"minted\","
                             "\"serviceAccountAnnotations\":{\"acme.io/id\":\"42\"}}\n");
    free(req);
    assert_non_null(strstr(token_body, "\"audiences\":[\"sa.io\"]"));
    assert_non_null(strstr(token_body, "\"name\":\"build-1\""));
    assert_non_null(strstr(token_body, "\"uid\":\"pod-uid-9\""));
    MHD_stop_daemon(d);
}

static void exec_timeout_flag_and_env(void **state)
{
    char p[400], cfg[400];
    snprintf(p, sizeof p, "%s/slow", bindir);
    write_file(p, "#!/bin/sh\ncat > /dev/null\nsleep 5\n", 0755);
    snprintf(cfg, sizeof cfg, "%s/slow.yaml", tmpdir);
    write_file(cfg,
               "apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n- name: slow\n"
               "  matchImages: [slow.io]\n  defaultCacheDuration: 1m\n  apiVersion: " V1 "\n",
               0644);
    char cfgflag[450], binflag[400];
    snprintf(cfgflag, sizeof cfgflag, "--image-credential-provider-config=%s", cfg);
    snprintf(binflag, sizeof binflag, "--image-credential-provider-bin-dir=%s", bindir);
    for (int use_env = 0; use_env < 2; use_env++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        char *out;
        if (use_env) {
            setenv("KGATE_CREDENTIALS_EXEC_TIMEOUT", "300ms", 1);
            assert_int_equal(run(NULL, &out, cfgflag, binflag, "--no-cache", "get", "slow.io/x", NULL), 0);
            unsetenv("KGATE_CREDENTIALS_EXEC_TIMEOUT");
        } else {
            assert_int_equal(
                run(NULL, &out, cfgflag, binflag, "--no-cache", "--exec-timeout=300ms", "get", "slow.io/x", NULL), 0);
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double el = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        assert_true(el < 3.0);
        assert_null(strstr(out, "slow.io\":"));
        free(out);
    }
    char *out;
    assert_int_equal(run(NULL, &out, cfgflag, binflag, "--exec-timeout=soon", "get", "slow.io/x", NULL), 1);
    free(out);
}

static void validate_prints_every_error(void **state)
{
    char *bad = malloc(400);
    snprintf(bad, 400, "%s/bad.yaml", tmpdir);
    write_file(bad,
               "apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n"
               "- name: a b\n  matchImages: []\n  defaultCacheDuration: -1m\n  apiVersion: " V1 "\n",
               0644);
    char *flag = malloc(420);
    snprintf(flag, 420, "--image-credential-provider-config=%s", bad);
    char *out;
    assert_int_equal(run(NULL, &out, flag, "validate", NULL), 1);
    assert_string_equal(out, "providers.name: Invalid value: \"a b\": provider name cannot contain spaces\n"
                             "providers.matchImages: Required value: at least 1 item in matchImages is required\n"
                             "providers.defaultCacheDuration: Invalid value: \"-1m0s\": must be greater than or equal "
                             "to 0\n");
    free(out);
    /* the feature gate flag */
    write_file(bad,
               "apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n"
               "- name: p\n  matchImages: [a.io]\n  defaultCacheDuration: 1m\n  apiVersion: " V1 "\n"
               "  tokenAttributes: {serviceAccountTokenAudience: a, requireServiceAccount: true, cacheType: Token}\n",
               0644);
    assert_int_equal(run(NULL, &out, flag, "--feature-gates=KubeletServiceAccountTokenForCredentialProviders=false",
                         "validate", NULL),
                     1);
    assert_string_equal(out, "providers.tokenAttributes: Forbidden: tokenAttributes is not supported when "
                             "KubeletServiceAccountTokenForCredentialProviders feature gate is disabled\n");
    free(out);
    char *bin = malloc(400);
    snprintf(bin, 400, "--image-credential-provider-bin-dir=%s", bindir);
    assert_int_equal(run(NULL, &out, flag, bin, "validate", NULL), 1); /* no plugin "p" in the bin dir */
    char want[700];
    snprintf(want, sizeof want, "plugin binary executable %s/p did not exist\n", bindir);
    assert_string_equal(out, want);
    free(out);
    free(bad);
    free(flag);
    free(bin);
}

static void get_prints_docker_config(void **state)
{
    char cfgflag[400], binflag[400], cacheflag[400];
    snprintf(cfgflag, sizeof cfgflag, "--image-credential-provider-config=%s", cfgpath);
    snprintf(binflag, sizeof binflag, "--image-credential-provider-bin-dir=%s", bindir);
    snprintf(cacheflag, sizeof cacheflag, "--cache-dir=%s", cachedir);
    char *out;
    assert_int_equal(run(NULL, &out, cfgflag, binflag, cacheflag, "validate", NULL), 0);
    assert_true(kg_str_has_prefix(out, "credential provider config is valid: 2 provider(s), sha256:"));
    free(out);
    assert_int_equal(run(NULL, &out, cfgflag, binflag, cacheflag, "get", "registry.io/team/app:v1", "nginx",
                         "unmatched.example.com/x", NULL),
                     0);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *doc = kg_json_parse(&a, out, strlen(out), NULL);
    assert_non_null(doc);
    kg_json *auths = kg_json_get(doc, "auths");
    assert_int_equal(auths->len, 2);
    kg_json *r = kg_json_get(auths, "registry.io");
    assert_string_equal(kg_json_get_str(r, "username"), "user");
    assert_string_equal(kg_json_get_str(r, "password"), "pass:word");
    assert_string_equal(kg_json_get_str(r, "auth"), "dXNlcjpwYXNzOndvcmQ="); /* base64("user:pass:word") */
    kg_json *hub = kg_json_get(auths, "https://index.docker.io/v1/");
    assert_string_equal(kg_json_get_str(hub, "username"), "hubuser");
    free(out);
    /* the cache is on disk: a second run with the plugin gone still answers; --no-cache does not */
    char plugin[400];
    snprintf(plugin, sizeof plugin, "%s/reg", bindir);
    chmod(plugin, 0644);
    snprintf(plugin, sizeof plugin, "%s/reg", bindir);
    rename(plugin, kg_arena_sprintf(&a, "%s.off", plugin));
    write_file(plugin, "#!/bin/sh\nexit 1\n", 0755);
    assert_int_equal(run(NULL, &out, cfgflag, binflag, cacheflag, "get", "registry.io/team/app", NULL), 0);
    assert_non_null(strstr(out, "\"pass:word\""));
    free(out);
    assert_int_equal(run(NULL, &out, cfgflag, binflag, cacheflag, "--no-cache", "get", "registry.io/team/app", NULL),
                     0);
    assert_null(strstr(out, "\"pass:word\""));
    free(out);
    rename(kg_arena_sprintf(&a, "%s.off", plugin), plugin);
    chmod(plugin, 0755);
    /* a bad image name */
    assert_int_equal(run(NULL, &out, cfgflag, binflag, cacheflag, "get", "Bad/Image", NULL), 1);
    free(out);
    kg_arena_free(&a);
}

static void docker_credential_helper(void **state)
{
    char cfgflag[400], binflag[400], cacheflag[400];
    snprintf(cfgflag, sizeof cfgflag, "--image-credential-provider-config=%s", cfgpath);
    snprintf(binflag, sizeof binflag, "--image-credential-provider-bin-dir=%s", bindir);
    snprintf(cacheflag, sizeof cacheflag, "--cache-dir=%s", cachedir);
    char *out;
    assert_int_equal(
        run("https://registry.io\n", &out, cfgflag, binflag, cacheflag, "--no-cache", "helper", "get", NULL), 0);
    assert_string_equal(out,
                        "{\"ServerURL\":\"https://registry.io\",\"Username\":\"user\",\"Secret\":\"pass:word\"}\n");
    free(out);
    assert_int_equal(
        run("https://index.docker.io/v1/", &out, cfgflag, binflag, cacheflag, "--no-cache", "helper", "get", NULL), 0);
    assert_string_equal(out, "{\"ServerURL\":\"https://index.docker.io/v1/\",\"Username\":\"hubuser\",\"Secret\":"
                             "\"hubpass\"}\n");
    free(out);
    assert_int_equal(run("quay.io", &out, cfgflag, binflag, cacheflag, "--no-cache", "helper", "get", NULL), 1);
    assert_string_equal(out, "credentials not found in native keychain\n");
    free(out);
    /* Docker Hub credentials are not handed to another registry that a Hub-matching provider also matches */
    assert_int_equal(run("registry.io:5000", &out, cfgflag, binflag, cacheflag, "--no-cache", "helper", "get", NULL),
                     1);
    assert_string_equal(out, "credentials not found in native keychain\n");
    free(out);
    assert_int_equal(run("", &out, cfgflag, binflag, cacheflag, "helper", "list", NULL), 0);
    assert_string_equal(out, "{}\n");
    free(out);
    /* configuration from the environment, as a docker-credential-kgate wrapper may set it */
    setenv("KGATE_CREDENTIALS_CONFIG", cfgpath, 1);
    setenv("KGATE_CREDENTIALS_BIN_DIR", bindir, 1);
    assert_int_equal(run("registry.io", &out, "--no-cache", "helper", "get", NULL), 0);
    assert_string_equal(out, "{\"ServerURL\":\"registry.io\",\"Username\":\"user\",\"Secret\":\"pass:word\"}\n");
    free(out);
    unsetenv("KGATE_CREDENTIALS_CONFIG");
    unsetenv("KGATE_CREDENTIALS_BIN_DIR");
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kgate-cred-cli-XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    snprintf(bindir, sizeof bindir, "%s/bin", tmpdir);
    snprintf(cachedir, sizeof cachedir, "%s/cache", tmpdir);
    snprintf(cfgpath, sizeof cfgpath, "%s/providers.yaml", tmpdir);
    mkdir(bindir, 0755);
    char p[400];
    snprintf(p, sizeof p, "%s/reg", bindir);
    write_file(p,
               "#!/bin/sh\ncat > /dev/null\nprintf '%s' '{\"kind\":\"CredentialProviderResponse\",\"apiVersion\":\"" V1
               "\",\"cacheKeyType\":\"Registry\",\"cacheDuration\":\"1h\",\"auth\":{\"registry.io\":{\"username\":"
               "\"user\",\"password\":\"pass:word\"}}}'\n",
               0755);
    snprintf(p, sizeof p, "%s/hub", bindir);
    write_file(p,
               "#!/bin/sh\ncat > /dev/null\nprintf '%s' '{\"kind\":\"CredentialProviderResponse\",\"apiVersion\":\"" V1
               "\",\"cacheKeyType\":\"Global\",\"auth\":{\"https://index.docker.io/v1/\":{\"username\":\"hubuser\","
               "\"password\":\"hubpass\"}}}'\n",
               0755);
    write_file(cfgpath,
               "apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n"
               "- name: reg\n  matchImages: [registry.io]\n  defaultCacheDuration: 10m\n  apiVersion: " V1 "\n"
               "- name: hub\n  matchImages: [docker.io, \"*.*:5000\"]\n  defaultCacheDuration: 0s\n  apiVersion: " V1
               "\n",
               0644);
    return 0;
}

static int teardown(void **state)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(validate_prints_every_error), cmocka_unit_test(get_prints_docker_config),
        cmocka_unit_test(docker_credential_helper),    cmocka_unit_test(token_mode_flags),
        cmocka_unit_test(exec_timeout_flag_and_env),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
