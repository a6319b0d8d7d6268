/* Kubeconfig files: the current context's cluster and user as a client configuration. */
#include <errno.h>
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

bool kg_client_config_from_kubeconfig(kg_arena *a, const char *path, kg_client_config *kc, kg_error *err)
{
    memset(kc, 0, sizeof *kc);
    size_t len;
    char *data = kg_read_file(path, &len);
    if (!data)
        return kg_err_set(err, KG_EIO, "reading kubeconfig %s: %s", path, strerror(errno)), false;
#ifdef KG_CLIENT_HAVE_YAML
    kg_json *doc = kg_yaml_or_json_parse(a, data, len, err);
#else
    kg_json *doc = kg_json_parse(a, data, len, err);
#endif
    free(data);
    if (!doc)
        return kg_err_prefix(err, "parsing kubeconfig %s", path), false;
    char *dir = kg_arena_strdup(a, path);
    char *sl = strrchr(dir, '/');
    if (sl)
        *sl = 0;
    else
        dir = ".";
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
    if (u) {
        kc->token = kg_json_get_str(u, "token");
        const char *tf = rel(a, dir, kg_json_get_str(u, "tokenFile"));
        if (!kc->token && tf) {
            size_t tl;
            char *t = kg_read_file(tf, &tl);
            if (!t)
                return kg_err_set(err, KG_EIO, "kubeconfig %s: reading tokenFile %s: %s", path, tf, strerror(errno)),
                       false;
            kg_str ts = kg_str_trim((kg_str){t, tl});
            kc->token = kg_arena_strndup(a, ts.p, ts.n);
            free(t);
        }
        const char *ccd = kg_json_get_str(u, "client-certificate-data"), *ckd = kg_json_get_str(u, "client-key-data");
        if (ccd && !(kc->cert_pem = b64_decode(a, ccd, &kc->cert_len)))
            return kg_err_set(err, KG_EINVAL, "kubeconfig %s: client-certificate-data is not base64", path), false;
        if (ckd && !(kc->key_pem = b64_decode(a, ckd, &kc->key_len)))
            return kg_err_set(err, KG_EINVAL, "kubeconfig %s: client-key-data is not base64", path), false;
        kc->cert_file = rel(a, dir, kg_json_get_str(u, "client-certificate"));
        kc->key_file = rel(a, dir, kg_json_get_str(u, "client-key"));
    }
    return true;
}
