/* Kubeconfig files: the current context's cluster and user as a client configuration; every user by name with
 * upstream's per-host pick (the webhook admission kubeConfigFile). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "base/str.h"
#include "client/client.h"
#ifdef KG_CLIENT_HAVE_YAML
#include "yaml/yaml.h"
#endif

/* The *-data fields: either alphabet, '=' and whitespace ignored wherever they are (base/base64.h). */
static char *b64_decode(kg_arena *a, const char *s, size_t *out_len)
{
    return kg_base64_decode(a, s, strlen(s), KG_BASE64_BOTH_ALPHABETS | KG_BASE64_IGNORE_PAD | KG_BASE64_SKIP_SPACE,
                            out_len, NULL);
}

static kg_json *named(const kg_json *list, const char *name, const char *field)
{
    for (uint32_t i = 0; kg_json_is(list, KG_JSON_ARRAY) && i < list->len; i++) {
        const char *n = kg_json_get_str(list->u.items[i], "name");
        if (n && !strcmp(n, name))
            return kg_json_get(list->u.items[i], field);
    }
    return NULL;
}

static const char *rel(kg_arena *a, const char *base_dir, const char *p)
{
    if (!p || !*p || p[0] == '/')
        return p;
    return kg_arena_sprintf(a, "%s/%s", base_dir, p);
}

/* The credential fields of one user (AuthInfo) into kc. */
static bool read_user(kg_arena *a, const char *path, const char *dir, const kg_json *u, kg_client_config *kc,
                      kg_error *err)
{
    kc->token = kg_json_get_str(u, "token");
    const char *tf = rel(a, dir, kg_json_get_str(u, "tokenFile"));
    if (!kc->token && tf) {
        size_t tl;
        char *t = kg_read_file(tf, &tl);
        if (!t)
            return kg_err_set(err, KG_EIO, "kubeconfig %s: reading tokenFile %s: %s", path, tf, strerror(errno)), false;
        kg_str ts = kg_str_trim((kg_str){t, tl});
        kc->token = kg_arena_strndup(a, ts.p, ts.n);
        free(t);
    }
    kc->username = kg_json_get_str(u, "username");
    kc->password = kg_json_get_str(u, "password");
    const char *ccd = kg_json_get_str(u, "client-certificate-data"), *ckd = kg_json_get_str(u, "client-key-data");
    if (ccd && !(kc->cert_pem = b64_decode(a, ccd, &kc->cert_len)))
        return kg_err_set(err, KG_EINVAL, "kubeconfig %s: client-certificate-data is not base64", path), false;
    if (ckd && !(kc->key_pem = b64_decode(a, ckd, &kc->key_len)))
        return kg_err_set(err, KG_EINVAL, "kubeconfig %s: client-key-data is not base64", path), false;
    kc->cert_file = rel(a, dir, kg_json_get_str(u, "client-certificate"));
    kc->key_file = rel(a, dir, kg_json_get_str(u, "client-key"));
    return true;
}

/* The parsed document and its directory. */
static kg_json *read_doc(kg_arena *a, const char *path, const char **dir_out, kg_error *err)
{
    size_t len;
    char *data = kg_read_file(path, &len);
    if (!data)
        return kg_err_set(err, KG_EIO, "reading kubeconfig %s: %s", path, strerror(errno)), NULL;
#ifdef KG_CLIENT_HAVE_YAML
    kg_json *doc = kg_yaml_or_json_parse(a, data, len, err);
#else
    kg_json *doc = kg_json_parse(a, data, len, err);
#endif
    free(data);
    if (!doc)
        return kg_err_prefix(err, "parsing kubeconfig %s", path), NULL;
    char *dir = kg_arena_strdup(a, path);
    char *sl = strrchr(dir, '/');
    if (sl)
        *sl = 0;
    else
        dir = ".";
    *dir_out = dir;
    return doc;
}

bool kg_client_kubeconfig_load(kg_arena *a, const char *path, kg_client_kubeconfig *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    const char *dir = NULL;
    kg_json *doc = read_doc(a, path, &dir, err);
    if (!doc)
        return false;
    const kg_json *users = kg_json_get(doc, "users");
    size_t n = kg_json_is(users, KG_JSON_ARRAY) ? users->len : 0;
    out->users = kg_arena_calloc(a, (n + 1) * sizeof *out->users);
    for (size_t i = 0; i < n; i++) {
        const kg_json *e = kg_json_at(users, (uint32_t)i);
        const char *name = kg_json_get_str(e, "name");
        if (!name)
            continue;
        kg_client_auth *au = &out->users[out->n];
        au->name = name;
        if (!read_user(a, path, dir, kg_json_get(e, "user"), &au->cred, err))
            return false;
        out->n++;
    }
    const char *cur = kg_json_get_str(doc, "current-context");
    const kg_json *ctx = cur && *cur ? named(kg_json_get(doc, "contexts"), cur, "context") : NULL;
    const char *uname = ctx ? kg_json_get_str(ctx, "user") : NULL;
    for (size_t i = 0; uname && i < out->n; i++)
        if (!strcmp(out->users[i].name, uname))
            out->current = &out->users[i];
    return true;
}

static const kg_client_config *user_named(const kg_client_kubeconfig *kc, const char *name, size_t len)
{
    for (size_t i = 0; i < kc->n; i++)
        if (strlen(kc->users[i].name) == len && !strncmp(kc->users[i].name, name, len))
            return &kc->users[i].cred;
    return NULL;
}

/* Exact, then "*.<suffix>" for every dot suffix of target[0..len). */
static const kg_client_config *by_host(const kg_client_kubeconfig *kc, const char *target, size_t len)
{
    const kg_client_config *c = user_named(kc, target, len);
    for (size_t i = 0; !c && i < len; i++) {
        if (target[i] != '.' || i + 1 >= len)
            continue;
        char nick[512];
        int n = snprintf(nick, sizeof nick, "*.%.*s", (int)(len - i - 1), target + i + 1);
        if (n > 0 && (size_t)n < sizeof nick)
            c = user_named(kc, nick, (size_t)n);
    }
    return c;
}

const kg_client_config *kg_client_kubeconfig_auth_for(const kg_client_kubeconfig *kc, const char *host_port)
{
    if (!kc)
        return NULL;
    size_t len = strlen(host_port);
    const kg_client_config *c = by_host(kc, host_port, len);
    if (!c && len > 4 && !strcmp(host_port + len - 4, ":443"))
        c = by_host(kc, host_port, len - 4);
    if (!c)
        c = user_named(kc, "*", 1);
    if (!c && kc->current)
        c = &kc->current->cred;
    return c;
}

void kg_client_config_set_credentials(kg_client_config *cfg, const kg_client_config *cred)
{
    cfg->token = cred->token;
    cfg->username = cred->username;
    cfg->password = cred->password;
    cfg->cert_pem = cred->cert_pem;
    cfg->cert_len = cred->cert_len;
    cfg->key_pem = cred->key_pem;
    cfg->key_len = cred->key_len;
    cfg->cert_file = cred->cert_file;
    cfg->key_file = cred->key_file;
}

bool kg_client_config_from_kubeconfig(kg_arena *a, const char *path, kg_client_config *kc, kg_error *err)
{
    memset(kc, 0, sizeof *kc);
    const char *dir = NULL;
    kg_json *doc = read_doc(a, path, &dir, err);
    if (!doc)
        return false;
    const char *cur = kg_json_get_str(doc, "current-context");
    if (!cur || !*cur)
        return kg_err_set(err, KG_EINVAL, "kubeconfig %s: current-context is not set", path), false;
    kg_json *ctx = named(kg_json_get(doc, "contexts"), cur, "context");
    if (!ctx)
        return kg_err_set(err, KG_EINVAL, "kubeconfig %s: context \"%s\" not found", path, cur), false;
    const char *cname = kg_json_get_str(ctx, "cluster"), *uname = kg_json_get_str(ctx, "user");
    kg_json *cl = cname ? named(kg_json_get(doc, "clusters"), cname, "cluster") : NULL;
    if (!cl)
        return kg_err_set(err, KG_EINVAL, "kubeconfig %s: cluster \"%s\" not found", path, cname ? cname : ""), false;
    kc->server = kg_json_get_str(cl, "server");
    if (!kc->server || !*kc->server)
        return kg_err_set(err, KG_EINVAL, "kubeconfig %s: cluster \"%s\" has no server", path, cname), false;
    const char *cad = kg_json_get_str(cl, "certificate-authority-data");
    if (cad && !(kc->ca_pem = b64_decode(a, cad, &kc->ca_len)))
        return kg_err_set(err, KG_EINVAL, "kubeconfig %s: certificate-authority-data is not base64", path), false;
    kc->ca_file = rel(a, dir, kg_json_get_str(cl, "certificate-authority"));
    kg_json *ins = kg_json_get(cl, "insecure-skip-tls-verify");
    kc->insecure = kg_json_is(ins, KG_JSON_BOOL) && ins->b;
    kg_json *u = uname ? named(kg_json_get(doc, "users"), uname, "user") : NULL;
    return !u || read_user(a, path, dir, u, kc, err);
}
