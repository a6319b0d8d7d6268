/* kgate credentials: the kubelet's image credential providers on the command line.
 *   kgate credentials [flags] get IMAGE...      Docker config JSON {"auths": {...}} for the images
 *   kgate credentials [flags] validate          load + validate the config, print every error
 *   kgate credentials [flags] helper get        docker-credential-helper protocol (install as docker-credential-kgate)
 * See docs/credentials.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/str.h"
#include "credentialprovider/credentialprovider.h"
#include "json/json.h"
#include "base/base64.h"

const char kg_cmd_credentials_help[] =
    "Image credentials from kubelet credential-provider plugins (get, validate, helper)";

static const char usage_text[] =
    "Usage:\n"
    "  kgate credentials [flags] get IMAGE...   print a Docker config JSON with the credentials for IMAGE\n"
    "  kgate credentials [flags] validate       load and validate the config, print every error\n"
    "  kgate credentials [flags] helper get     docker-credential-helper protocol (server URL on stdin)\n"
    "\nFlags:\n"
    "  --image-credential-provider-config=PATH  CredentialProviderConfig file or directory (env "
    "KGATE_CREDENTIALS_CONFIG)\n"
    "  --image-credential-provider-bin-dir=DIR  directory of the plugin executables (env KGATE_CREDENTIALS_BIN_DIR)\n"
    "  --cache-dir=DIR                          credential cache (default $XDG_CACHE_HOME/kgate/credentials)\n"
    "  --no-cache                               neither read nor write the cache\n"
    "  --kubeconfig=PATH                        API server for service-account-token providers (default $KUBECONFIG)\n"
    "  --namespace=NS --service-account=NAME    the pod's namespace and service account (token mode)\n"
    "  --pod-name=NAME --pod-uid=UID            the pod the token is bound to (token mode, optional)\n"
    "  --feature-gates=KubeletServiceAccountTokenForCredentialProviders=true|false   (default true)\n"
    "  --exec-timeout=DURATION                  plugin timeout, default 1m (for tests; env "
    "KGATE_CREDENTIALS_EXEC_TIMEOUT)\n"
    "  -v=N                                     log verbosity\n";

typedef struct cli {
    const char *config, *bin_dir, *cache_dir, *kubeconfig, *ns, *sa, *pod_name, *pod_uid, *timeout;
    bool no_cache, gate, gate_set;
    const char *pos[64];
    int npos;
} cli;

static bool flag_value(int argc, char **argv, int *i, const char *name, const char **out)
{
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return false;
    if (arg[n] == '=') {
        *out = arg + n + 1;
        return true;
    }
    if (arg[n] == 0 && *i + 1 < argc) {
        *out = argv[++*i];
        return true;
    }
    return false;
}

static int parse_args(int argc, char **argv, cli *c)
{
    c->config = getenv("KGATE_CREDENTIALS_CONFIG");
    c->bin_dir = getenv("KGATE_CREDENTIALS_BIN_DIR");
    c->timeout = getenv("KGATE_CREDENTIALS_EXEC_TIMEOUT");
    c->gate = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (flag_value(argc, argv, &i, "--image-credential-provider-config", &c->config) ||
            flag_value(argc, argv, &i, "--image-credential-provider-bin-dir", &c->bin_dir) ||
            flag_value(argc, argv, &i, "--cache-dir", &c->cache_dir) ||
            flag_value(argc, argv, &i, "--kubeconfig", &c->kubeconfig) ||
            flag_value(argc, argv, &i, "--namespace", &c->ns) || flag_value(argc, argv, &i, "-n", &c->ns) ||
            flag_value(argc, argv, &i, "--service-account", &c->sa) ||
            flag_value(argc, argv, &i, "--pod-name", &c->pod_name) ||
            flag_value(argc, argv, &i, "--pod-uid", &c->pod_uid) ||
            flag_value(argc, argv, &i, "--exec-timeout", &c->timeout))
            continue;
        if (!strcmp(a, "--no-cache")) {
            c->no_cache = true;
            continue;
        }
        if (flag_value(argc, argv, &i, "--feature-gates", &v)) {
            const char *g = "KubeletServiceAccountTokenForCredentialProviders=";
            const char *p = strstr(v, g);
            if (p) {
                p += strlen(g);
                c->gate = !strncmp(p, "true", 4);
            }
            continue;
        }
        if (flag_value(argc, argv, &i, "-v", &v) || flag_value(argc, argv, &i, "--v", &v)) {
            kg_log_verbosity = atoi(v);
            continue;
        }
        if (a[0] == '-' && a[1]) {
            fprintf(stderr, "kgate credentials: unknown flag %s\n\n%s", a, usage_text);
            return 2;
        }
        if (c->npos < 64)
            c->pos[c->npos++] = a;
    }
    return -1;
}

static void on_error(void *ctx, const char *provider, const char *msg)
{
    fprintf(stderr, "kgate credentials: provider %s: %s\n", provider, msg);
}

static char *base64(kg_arena *a, const char *s)
{
    return kg_base64_encode(a, s, strlen(s), 0, NULL);
}

/* Load, validate and check the bin dir, as the kubelet does at start. */
static bool load_config(kg_arena *a, const cli *c, kg_cred_config *cfg)
{
    KG_ERROR_DECL(err);
    if (!c->config || !*c->config) {
        fprintf(stderr, "kgate credentials: credential provider config path is empty (give "
                        "--image-credential-provider-config or set KGATE_CREDENTIALS_CONFIG)\n");
        return false;
    }
    if (!c->bin_dir || !*c->bin_dir) {
        fprintf(stderr, "kgate credentials: the plugin binary directory is not set (give "
                        "--image-credential-provider-bin-dir or set KGATE_CREDENTIALS_BIN_DIR)\n");
        return false;
    }
    /* the kubelet's order: the bin dir, the config, validation, then each plugin executable */
    kg_cred_config none = {0};
    if (!kg_credentialprovider_check_bin_dir(a, &none, c->bin_dir, &err) ||
        !kg_credentialprovider_config_load(a, c->config, cfg, &err)) {
        fprintf(stderr, "kgate credentials: %s\n", err.msg);
        return false;
    }
    const char **errs;
    size_t n = kg_credentialprovider_config_validate(a, cfg, c->gate, &errs);
    if (n) {
        fprintf(stderr, "kgate credentials: failed to validate credential provider config: %s\n",
                kg_credentialprovider_aggregate(a, errs, n));
        return false;
    }
    if (!kg_credentialprovider_check_bin_dir(a, cfg, c->bin_dir, &err)) {
        fprintf(stderr, "kgate credentials: %s\n", err.msg);
        return false;
    }
    return true;
}

typedef struct runtime {
    kg_cred_options o;
    kg_cred_pod pod;
    kg_cred_token_source ts;
} runtime;

static bool setup(kg_arena *a, const cli *c, runtime *rt)
{
    memset(rt, 0, sizeof *rt);
    kg_cred_options *o = &rt->o;
    o->bin_dir = c->bin_dir;
    o->no_cache = c->no_cache;
    o->cache_dir = c->cache_dir ? c->cache_dir : kg_credentialprovider_default_cache_dir(a);
    o->sa_token_gate = c->gate;
    o->on_error = on_error;
    if (c->timeout) {
        int64_t ns;
        KG_ERROR_DECL(err);
        if (!kg_credentialprovider_parse_duration(c->timeout, &ns, &err) || ns <= 0) {
            fprintf(stderr, "kgate credentials: --exec-timeout: %s\n", err.msg[0] ? err.msg : "must be positive");
            return false;
        }
        o->exec_timeout_ms = ns / 1000000 > 0 ? ns / 1000000 : 1;
    }
    if (c->ns || c->sa) {
        rt->pod = (kg_cred_pod){c->ns ? c->ns : "default", c->pod_name, c->pod_uid, c->sa ? c->sa : ""};
        o->pod = &rt->pod;
    }
    const char *kubeconfig = c->kubeconfig;
    if (!kubeconfig && c->sa && getenv("KUBECONFIG") && *getenv("KUBECONFIG")) /* first entry, as kubectl */
        kubeconfig = kg_arena_strndup(a, getenv("KUBECONFIG"), strcspn(getenv("KUBECONFIG"), ":"));
    if (kubeconfig) {
        KG_ERROR_DECL(err);
        kg_cred_kubeconfig *kc = kg_credentialprovider_kubeconfig_load(a, kubeconfig, &err);
        if (!kc) {
            fprintf(stderr, "kgate credentials: %s\n", err.msg);
            return false;
        }
        kg_credentialprovider_kubeconfig_source(kc, &rt->ts);
        o->tokens = &rt->ts;
    }
    return true;
}

static int cmd_validate(kg_arena *a, const cli *c)
{
    kg_cred_config cfg;
    KG_ERROR_DECL(err);
    if (!kg_credentialprovider_config_load(a, c->config, &cfg, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    const char **errs;
    size_t n = kg_credentialprovider_config_validate(a, &cfg, c->gate, &errs);
    for (size_t i = 0; i < n; i++)
        printf("%s\n", errs[i]);
    int rc = n ? 1 : 0;
    if (c->bin_dir && !kg_credentialprovider_check_bin_dir(a, &cfg, c->bin_dir, &err)) {
        printf("%s\n", err.msg);
        rc = 1;
    }
    if (!rc)
        printf("credential provider config is valid: %zu provider(s), %s\n", cfg.n_providers, cfg.hash);
    return rc;
}

static const char *auths_key(kg_arena *a, const char *image)
{
    const char *n = kg_credentialprovider_normalize_image(a, image, NULL);
    const char *reg = kg_arena_strndup(a, n, strcspn(n, "/"));
    return !strcmp(reg, "docker.io") ? "https://index.docker.io/v1/" : reg;
}

static int cmd_get(kg_arena *a, const cli *c)
{
    if (c->npos < 2) {
        fprintf(stderr, "kgate credentials get: an image is required\n");
        return 2;
    }
    kg_cred_config cfg;
    runtime rt;
    if (!load_config(a, c, &cfg) || !setup(a, c, &rt))
        return 1;
    kg_json *root = kg_json_new_object(a);
    kg_json *auths = kg_json_get_or_add_object(a, root, "auths");
    int rc = 0;
    for (int i = 1; i < c->npos; i++) {
        kg_cred_auth *creds;
        size_t n;
        KG_ERROR_DECL(err);
        if (!kg_credentialprovider_lookup(a, &cfg, &rt.o, c->pos[i], &creds, &n, &err)) {
            fprintf(stderr, "kgate credentials: %s\n", err.msg);
            rc = 1;
            continue;
        }
        if (n == 0)
            continue;
        const char *key = auths_key(a, c->pos[i]);
        if (kg_json_get(auths, key))
            continue;
        kg_json *e = kg_json_new_object(a);
        kg_json_set(a, e, "username", kg_json_new_str(a, creds[0].username));
        kg_json_set(a, e, "password", kg_json_new_str(a, creds[0].password));
        kg_json_set(a, e, "auth",
                    kg_json_new_str(a, base64(a, kg_arena_sprintf(a, "%s:%s", creds[0].username, creds[0].password))));
        kg_json_set(a, auths, key, e);
    }
    kg_buf out = KG_BUF_INIT;
    kg_json_write(&out, root, KG_JSON_WRITE_PRETTY);
    kg_buf_putc(&out, '\n');
    fwrite(out.data, 1, out.len, stdout);
    kg_buf_free(&out);
    return rc;
}

/* A docker server URL ("https://index.docker.io/v1/", "registry.io:5000", "https://r.io/v2/team") as a name to
 * look up: scheme dropped, /v1/ and /v2/ prefixes dropped like keyring keys, Docker Hub as "docker.io". */
static char *server_to_name(kg_arena *a, const char *url)
{
    const char *s = url;
    if (!strncmp(s, "https://", 8))
        s += 8;
    else if (!strncmp(s, "http://", 7))
        s += 7;
    size_t hn = strcspn(s, "/");
    char *host = kg_arena_strndup(a, s, hn);
    const char *path = s + hn;
    if (!strncmp(path, "/v1", 3) && (path[3] == 0 || path[3] == '/'))
        path += 3;
    else if (!strncmp(path, "/v2", 3) && (path[3] == 0 || path[3] == '/'))
        path += 3;
    size_t pn = strlen(path);
    while (pn > 0 && path[pn - 1] == '/')
        pn--;
    if (!strcmp(host, "index.docker.io") || !strcmp(host, "registry-1.docker.io"))
        host = "docker.io";
    return kg_arena_sprintf(a, "%s%.*s", host, (int)pn, path);
}

static int cmd_helper(kg_arena *a, const cli *c)
{
    const char *action = c->npos >= 2 ? c->pos[1] : "";
    if (!strcmp(action, "list")) {
        printf("{}\n");
        return 0;
    }
    if (!strcmp(action, "store") || !strcmp(action, "erase")) {
        fprintf(stdout,
                "kgate credentials helper: %s is not supported: credentials come from the configured "
                "providers\n",
                action);
        return 1;
    }
    if (strcmp(action, "get") != 0) {
        fprintf(stderr, "kgate credentials helper: unknown action \"%s\" (want get, store, erase or list)\n", action);
        return 2;
    }
    kg_buf in = KG_BUF_INIT;
    char chunk[4096];
    size_t r;
    while ((r = fread(chunk, 1, sizeof chunk, stdin)) > 0 && in.len < 65536)
        kg_buf_append(&in, chunk, r);
    kg_str url = kg_str_trim((kg_str){in.data ? in.data : "", in.len});
    char *server = kg_arena_strndup(a, url.p, url.n);
    kg_buf_free(&in);
    if (!*server) {
        printf("no credentials server URL\n");
        return 1;
    }
    kg_cred_config cfg;
    runtime rt;
    if (!load_config(a, c, &cfg) || !setup(a, c, &rt))
        return 1;
    kg_cred_auth *creds;
    size_t n;
    kg_credentialprovider_lookup_name(a, &cfg, &rt.o, server_to_name(a, server), &creds, &n);
    if (n == 0) {
        printf("credentials not found in native keychain\n");
        return 1;
    }
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "ServerURL", kg_json_new_str(a, server));
    kg_json_set(a, o, "Username", kg_json_new_str(a, creds[0].username));
    kg_json_set(a, o, "Secret", kg_json_new_str(a, creds[0].password));
    kg_buf out = KG_BUF_INIT;
    kg_json_write(&out, o, 0);
    kg_buf_putc(&out, '\n');
    fwrite(out.data, 1, out.len, stdout);
    kg_buf_free(&out);
    return 0;
}

int kg_cmd_credentials(int argc, char **argv)
{
    cli c = {0};
    int rc = parse_args(argc, argv, &c);
    if (rc >= 0)
        return rc;
    if (c.npos == 0) {
        fputs(usage_text, stderr);
        return 2;
    }
    kg_arena a;
    kg_arena_init(&a, 0);
    if (!strcmp(c.pos[0], "get"))
        rc = cmd_get(&a, &c);
    else if (!strcmp(c.pos[0], "validate"))
        rc = cmd_validate(&a, &c);
    else if (!strcmp(c.pos[0], "helper"))
        rc = cmd_helper(&a, &c);
    else {
        fprintf(stderr, "kgate credentials: unknown subcommand \"%s\"\n\n%s", c.pos[0], usage_text);
        rc = 2;
    }
    kg_arena_free(&a);
    return rc;
}
