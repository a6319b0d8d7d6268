/* A token source backed by a kubeconfig: GET the ServiceAccount (uid, annotations) and POST a TokenRequest for the
 * provider's audience to the server of the current context, over http or https (libcurl), with the CA, bearer
 * token or client certificate the kubeconfig names. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <dlfcn.h>

#include "base/buf.h"
#include "base/str.h"
#include "credentialprovider/credentialprovider.h"
#ifdef KG_CRED_HAVE_YAML
#include "yaml/yaml.h"
#include "base/base64.h"
#endif

struct kg_cred_kubeconfig {
    const char *server;
    const char *ca_data; /* PEM */
    size_t ca_len;
    const char *ca_file;
    bool insecure;
    const char *token;
    const char *cert_data, *key_data;
    size_t cert_len, key_len;
    const char *cert_file, *key_file;
};

/* The *-data fields: either alphabet, '=' and whitespace ignored wherever they are. */
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

kg_cred_kubeconfig *kg_credentialprovider_kubeconfig_load(kg_arena *a, const char *path, kg_error *err)
{
    size_t len;
    char *data = kg_read_file(path, &len);
    if (!data)
        return kg_err_set(err, KG_EIO, "reading kubeconfig %s: %s", path, strerror(errno)), NULL;
#ifdef KG_CRED_HAVE_YAML
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
    const char *cur = kg_json_get_str(doc, "current-context");
    if (!cur || !*cur)
        return kg_err_set(err, KG_EINVAL, "kubeconfig %s: current-context is not set", path), NULL;
    kg_json *ctx = named(kg_json_get(doc, "contexts"), cur, "context");
    if (!ctx)
        return kg_err_set(err, KG_EINVAL, "kubeconfig %s: context \"%s\" not found", path, cur), NULL;
    const char *cname = kg_json_get_str(ctx, "cluster"), *uname = kg_json_get_str(ctx, "user");
    kg_json *cl = cname ? named(kg_json_get(doc, "clusters"), cname, "cluster") : NULL;
    if (!cl)
        return kg_err_set(err, KG_EINVAL, "kubeconfig %s: cluster \"%s\" not found", path, cname ? cname : ""), NULL;
    kg_cred_kubeconfig *kc = kg_arena_calloc(a, sizeof *kc);
    kc->server = kg_json_get_str(cl, "server");
    if (!kc->server || !*kc->server)
        return kg_err_set(err, KG_EINVAL, "kubeconfig %s: cluster \"%s\" has no server", path, cname), NULL;
    const char *cad = kg_json_get_str(cl, "certificate-authority-data");
    if (cad && !(kc->ca_data = b64_decode(a, cad, &kc->ca_len)))
        return kg_err_set(err, KG_EINVAL, "kubeconfig %s: certificate-authority-data is not base64", path), NULL;
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
                       NULL;
            kg_str ts = kg_str_trim((kg_str){t, tl});
            kc->token = kg_arena_strndup(a, ts.p, ts.n);
            free(t);
        }
        const char *ccd = kg_json_get_str(u, "client-certificate-data"), *ckd = kg_json_get_str(u, "client-key-data");
        if (ccd && !(kc->cert_data = b64_decode(a, ccd, &kc->cert_len)))
            return kg_err_set(err, KG_EINVAL, "kubeconfig %s: client-certificate-data is not base64", path), NULL;
        if (ckd && !(kc->key_data = b64_decode(a, ckd, &kc->key_len)))
            return kg_err_set(err, KG_EINVAL, "kubeconfig %s: client-key-data is not base64", path), NULL;
        kc->cert_file = rel(a, dir, kg_json_get_str(u, "client-certificate"));
        kc->key_file = rel(a, dir, kg_json_get_str(u, "client-key"));
    }
    return kc;
}

/* libcurl is loaded on first use: only token mode talks HTTP, so the other doors (kgate serve in particular) do
 * not map libcurl and its dependency tree (krb5, ldap, ssh2, ...: about 2 MB of resident memory). */
static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} lc;
static char lc_error[256];

static bool lc_sym(void *h, void *fnp, const char *name)
{
    void *sym = dlsym(h, name);
    if (!sym) {
        snprintf(lc_error, sizeof lc_error, "libcurl.so.4 has no %s", name);
        return false;
    }
    memcpy(fnp, &sym, sizeof sym); /* object pointer to function pointer, as POSIX dlsym requires */
    return true;
}

static void curl_init_once(void)
{
    void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(lc_error, sizeof lc_error, "cannot load libcurl.so.4: %s", dlerror());
        return;
    }
    if (!lc_sym(h, &lc.global_init, "curl_global_init") || !lc_sym(h, &lc.easy_init, "curl_easy_init") ||
        !lc_sym(h, &lc.easy_setopt, "curl_easy_setopt") || !lc_sym(h, &lc.easy_perform, "curl_easy_perform") ||
        !lc_sym(h, &lc.easy_getinfo, "curl_easy_getinfo") || !lc_sym(h, &lc.easy_cleanup, "curl_easy_cleanup") ||
        !lc_sym(h, &lc.easy_strerror, "curl_easy_strerror") || !lc_sym(h, &lc.slist_append, "curl_slist_append") ||
        !lc_sym(h, &lc.slist_free_all, "curl_slist_free_all"))
        return;
    lc.global_init(CURL_GLOBAL_DEFAULT);
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    kg_buf *b = ud;
    if (b->len + size * n > (8u << 20))
        return 0;
    kg_buf_append(b, p, size * n);
    return size * n;
}

/* One request; returns the parsed JSON body of a 2xx answer. */
static kg_json *call(kg_cred_kubeconfig *kc, kg_arena *a, const char *method, const char *path, const char *body,
                     kg_error *err)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, curl_init_once);
    if (lc_error[0])
        return kg_err_set(err, KG_EIO, "%s", lc_error), NULL;
    CURL *c = lc.easy_init();
    if (!c)
        return kg_err_set(err, KG_EINTERNAL, "curl_easy_init failed"), NULL;
    size_t sn = strlen(kc->server);
    while (sn > 0 && kc->server[sn - 1] == '/')
        sn--;
    char *url = kg_arena_sprintf(a, "%.*s%s", (int)sn, kc->server, path);
    kg_buf resp = KG_BUF_INIT;
    struct curl_slist *h = NULL;
    h = lc.slist_append(h, "Accept: application/json");
    if (body)
        h = lc.slist_append(h, "Content-Type: application/json");
    if (kc->token && *kc->token)
        h = lc.slist_append(h, kg_arena_sprintf(a, "Authorization: Bearer %s", kc->token));
    h = lc.slist_append(h, "User-Agent: kgate-credentials");
    lc.easy_setopt(c, CURLOPT_URL, url);
    lc.easy_setopt(c, CURLOPT_HTTPHEADER, h);
    lc.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    lc.easy_setopt(c, CURLOPT_WRITEDATA, &resp);
    lc.easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    lc.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (body) {
        lc.easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
        lc.easy_setopt(c, CURLOPT_POSTFIELDS, body);
    }
    if (kc->ca_data) {
        struct curl_blob blob = {(void *)kc->ca_data, kc->ca_len, CURL_BLOB_COPY};
        lc.easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob);
    } else if (kc->ca_file) {
        lc.easy_setopt(c, CURLOPT_CAINFO, kc->ca_file);
    }
    if (kc->insecure) {
        lc.easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        lc.easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (kc->cert_data) {
        struct curl_blob blob = {(void *)kc->cert_data, kc->cert_len, CURL_BLOB_COPY};
        lc.easy_setopt(c, CURLOPT_SSLCERT_BLOB, &blob);
        lc.easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
    } else if (kc->cert_file) {
        lc.easy_setopt(c, CURLOPT_SSLCERT, kc->cert_file);
    }
    if (kc->key_data) {
        struct curl_blob blob = {(void *)kc->key_data, kc->key_len, CURL_BLOB_COPY};
        lc.easy_setopt(c, CURLOPT_SSLKEY_BLOB, &blob);
        lc.easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
    } else if (kc->key_file) {
        lc.easy_setopt(c, CURLOPT_SSLKEY, kc->key_file);
    }
    CURLcode rc = lc.easy_perform(c);
    long status = 0;
    lc.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    lc.slist_free_all(h);
    lc.easy_cleanup(c);
    kg_json *doc = NULL;
    if (rc != CURLE_OK) {
        kg_err_set(err, KG_EIO, "%s %s: %s", method, url, lc.easy_strerror(rc));
    } else {
        doc = kg_json_parse(a, resp.data ? resp.data : "", resp.len, NULL);
        if (status < 200 || status > 299) {
            const char *msg = doc ? kg_json_get_str(doc, "message") : NULL;
            kg_err_set(err, status == 404 ? KG_ENOTFOUND : KG_EIO, "%s %s: the server responded with status %ld%s%s",
                       method, url, status, msg ? ": " : "", msg ? msg : "");
            doc = NULL;
        } else if (!doc) {
            kg_err_set(err, KG_EIO, "%s %s: the server's answer is not JSON", method, url);
        }
    }
    kg_buf_free(&resp);
    return doc;
}

static bool get_sa(void *ctx, kg_arena *a, const char *ns, const char *name, kg_cred_sa_info *out, kg_error *err)
{
    kg_json *doc =
        call(ctx, a, "GET", kg_arena_sprintf(a, "/api/v1/namespaces/%s/serviceaccounts/%s", ns, name), NULL, err);
    if (!doc)
        return false;
    out->uid = kg_json_path_str(doc, "metadata.uid");
    out->annotations = kg_json_path(doc, "metadata.annotations");
    if (out->annotations && out->annotations->type != KG_JSON_OBJECT)
        out->annotations = NULL;
    return true;
}

static char *request_token(void *ctx, kg_arena *a, const char *ns, const char *sa, const char *sa_uid,
                           const char *audience, const char *pod_name, const char *pod_uid, kg_error *err)
{
    kg_json *tr = kg_json_new_object(a);
    kg_json_set(a, tr, "kind", kg_json_new_str(a, "TokenRequest"));
    kg_json_set(a, tr, "apiVersion", kg_json_new_str(a, "authentication.k8s.io/v1"));
    kg_json *md = kg_json_get_or_add_object(a, tr, "metadata");
    kg_json_set(a, md, "name", kg_json_new_str(a, sa));
    kg_json_set(a, md, "namespace", kg_json_new_str(a, ns));
    if (sa_uid && *sa_uid)
        kg_json_set(a, md, "uid", kg_json_new_str(a, sa_uid));
    kg_json *spec = kg_json_get_or_add_object(a, tr, "spec");
    kg_json *aud = kg_json_new_array(a);
    kg_json_array_append(a, aud, kg_json_new_str(a, audience));
    kg_json_set(a, spec, "audiences", aud);
    if (pod_name && *pod_name) {
        kg_json *ref = kg_json_get_or_add_object(a, spec, "boundObjectRef");
        kg_json_set(a, ref, "kind", kg_json_new_str(a, "Pod"));
        kg_json_set(a, ref, "apiVersion", kg_json_new_str(a, "v1"));
        kg_json_set(a, ref, "name", kg_json_new_str(a, pod_name));
        if (pod_uid && *pod_uid)
            kg_json_set(a, ref, "uid", kg_json_new_str(a, pod_uid));
    }
    char *body = kg_json_to_string(a, tr, 0, NULL);
    kg_json *doc =
        call(ctx, a, "POST", kg_arena_sprintf(a, "/api/v1/namespaces/%s/serviceaccounts/%s/token", ns, sa), body, err);
    if (!doc)
        return NULL;
    const char *tok = kg_json_path_str(doc, "status.token");
    if (!tok || !*tok)
        return kg_err_set(err, KG_EIO, "the TokenRequest answer has no status.token"), NULL;
    return kg_arena_strdup(a, tok);
}

void kg_credentialprovider_kubeconfig_source(kg_cred_kubeconfig *kc, kg_cred_token_source *out)
{
    out->ctx = kc;
    out->get_service_account = get_sa;
    out->request_token = request_token;
}
