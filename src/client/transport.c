/* Every libcurl call of kgate: loading the library on first use, the per-client pool of easy handles, and one
 * request. Tests that need transport faults replace this file's behaviour, nothing else. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <curl/curl.h>

#include "base/buf.h"
#include "client/client_internal.h"

/* The library's entry points, resolved once per process (read-only afterwards). */
static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_reset)(CURL *);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    curl_version_info_data *(*version_info)(CURLversion);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} lc;
static char lc_error[256];
static long lc_http_version; /* CURL_HTTP_VERSION_2TLS when the library has HTTP/2 (nghttp2), else 1.1 */
static pthread_once_t lc_once = PTHREAD_ONCE_INIT;

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

static void lc_load(void)
{
    void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(lc_error, sizeof lc_error, "cannot load libcurl.so.4: %s", dlerror());
        return;
    }
    if (!lc_sym(h, &lc.global_init, "curl_global_init") || !lc_sym(h, &lc.easy_init, "curl_easy_init") ||
        !lc_sym(h, &lc.easy_setopt, "curl_easy_setopt") || !lc_sym(h, &lc.easy_perform, "curl_easy_perform") ||
        !lc_sym(h, &lc.easy_getinfo, "curl_easy_getinfo") || !lc_sym(h, &lc.easy_reset, "curl_easy_reset") ||
        !lc_sym(h, &lc.easy_cleanup, "curl_easy_cleanup") || !lc_sym(h, &lc.easy_strerror, "curl_easy_strerror") ||
        !lc_sym(h, &lc.slist_append, "curl_slist_append") || !lc_sym(h, &lc.slist_free_all, "curl_slist_free_all") ||
        !lc_sym(h, &lc.version_info, "curl_version_info"))
        return;
    lc.global_init(CURL_GLOBAL_DEFAULT);
    const curl_version_info_data *vi = lc.version_info(CURLVERSION_NOW);
    lc_http_version = vi && (vi->features & CURL_VERSION_HTTP2) ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1;
}

/* ---- handle pool: a handle keeps its connections and TLS sessions, so reusing it reuses them ---- */

static CURL *handle_get(kg_client *c)
{
    CURL *h = NULL;
    pthread_mutex_lock(&c->mu);
    if (c->nidle)
        h = c->idle[--c->nidle];
    pthread_mutex_unlock(&c->mu);
    if (h) {
        lc.easy_reset(h); /* options only: live connections and caches stay */
        return h;
    }
    return lc.easy_init();
}

static void handle_put(kg_client *c, CURL *h)
{
    pthread_mutex_lock(&c->mu);
    if (c->nidle < KG_CLIENT_IDLE_HANDLES) {
        c->idle[c->nidle++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&c->mu);
    if (h)
        lc.easy_cleanup(h);
}

void kg_client_transport_close(kg_client *c)
{
    for (size_t i = 0; i < c->nidle; i++)
        lc.easy_cleanup(c->idle[i]);
    c->nidle = 0;
}

/* ---- cancel tokens: the request's socket is tracked so that firing can shut it down under the transfer ---- */

struct kg_client_cancel {
    pthread_mutex_t mu;
    int fd; /* the request's socket while open, else -1 */
    bool fired;
};

kg_client_cancel *kg_client_cancel_new(void)
{
    kg_client_cancel *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    pthread_mutex_init(&c->mu, NULL);
    c->fd = -1;
    return c;
}

void kg_client_cancel_free(kg_client_cancel *c)
{
    if (!c)
        return;
    pthread_mutex_destroy(&c->mu);
    free(c);
}

void kg_client_cancel_fire(kg_client_cancel *c)
{
    pthread_mutex_lock(&c->mu);
    c->fired = true;
    if (c->fd >= 0)
        shutdown(c->fd, SHUT_RDWR); /* the transfer's next read fails at once; libcurl still closes the fd */
    pthread_mutex_unlock(&c->mu);
}

void kg_client_cancel_reset(kg_client_cancel *c)
{
    pthread_mutex_lock(&c->mu);
    c->fired = false;
    pthread_mutex_unlock(&c->mu);
}

bool kg_client_cancel_fired(kg_client_cancel *c)
{
    pthread_mutex_lock(&c->mu);
    bool f = c->fired;
    pthread_mutex_unlock(&c->mu);
    return f;
}

static curl_socket_t cancel_open(void *ud, curlsocktype purpose, struct curl_sockaddr *addr)
{
    (void)purpose;
    kg_client_cancel *c = ud;
    pthread_mutex_lock(&c->mu);
    curl_socket_t s = CURL_SOCKET_BAD;
    if (!c->fired) {
        s = socket(addr->family, addr->socktype | SOCK_CLOEXEC, addr->protocol);
        if (s >= 0)
            c->fd = s;
    }
    pthread_mutex_unlock(&c->mu);
    return s;
}

static int cancel_close(void *ud, curl_socket_t s)
{
    kg_client_cancel *c = ud;
    pthread_mutex_lock(&c->mu);
    if (c->fd == s)
        c->fd = -1;
    int rc = close(s);
    pthread_mutex_unlock(&c->mu);
    return rc;
}

/* ---- one request ---- */

typedef struct sink {
    kg_buf b;
    size_t max;
    bool too_large;
    const kg_client_request *req; /* req->on_data: streaming */
} sink;

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    sink *s = ud;
    if (s->req->on_data)
        return s->req->on_data(s->req->on_data_ud, p, size * n) ? size * n : 0;
    if (s->b.len + size * n > s->max) {
        s->too_large = true;
        return 0; /* aborts the transfer with CURLE_WRITE_ERROR */
    }
    kg_buf_append(&s->b, p, size * n);
    return size * n;
}

/* Streaming requests: lets on_data end an idle transfer. */
static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    const kg_client_request *req = ud;
    return req->on_data(req->on_data_ud, NULL, 0) ? 0 : 1;
}

static void set_blob(CURL *h, CURLoption opt, const char *data, size_t len)
{
    struct curl_blob blob = {(void *)data, len, CURL_BLOB_COPY};
    lc.easy_setopt(h, opt, &blob);
}

static void set_tls(CURL *h, const kg_client_config *cfg)
{
    if (cfg->ca_pem)
        set_blob(h, CURLOPT_CAINFO_BLOB, cfg->ca_pem, cfg->ca_len);
    else if (cfg->ca_file)
        lc.easy_setopt(h, CURLOPT_CAINFO, cfg->ca_file);
    if (cfg->insecure) {
        lc.easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        lc.easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (cfg->cert_pem) {
        set_blob(h, CURLOPT_SSLCERT_BLOB, cfg->cert_pem, cfg->cert_len);
        lc.easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
    } else if (cfg->cert_file) {
        lc.easy_setopt(h, CURLOPT_SSLCERT, cfg->cert_file);
    }
    if (cfg->username && cfg->username[0] && !(cfg->token && cfg->token[0])) {
        lc.easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        lc.easy_setopt(h, CURLOPT_USERNAME, cfg->username);
        lc.easy_setopt(h, CURLOPT_PASSWORD, cfg->password ? cfg->password : "");
    }
    if (cfg->key_pem) {
        set_blob(h, CURLOPT_SSLKEY_BLOB, cfg->key_pem, cfg->key_len);
        lc.easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
    } else if (cfg->key_file) {
        lc.easy_setopt(h, CURLOPT_SSLKEY, cfg->key_file);
    }
}

static kg_client_result classify(CURLcode rc, bool too_large)
{
    switch (rc) {
    case CURLE_OK: return KG_CLIENT_OK;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return KG_CLIENT_CONNECT;
    case CURLE_OPERATION_TIMEDOUT: return KG_CLIENT_TIMEOUT;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_USE_SSL_FAILED: return KG_CLIENT_TLS;
    case CURLE_WRITE_ERROR: return too_large ? KG_CLIENT_TOO_LARGE : KG_CLIENT_TRANSPORT;
    default: return KG_CLIENT_TRANSPORT;
    }
}

kg_client_result kg_client_do(kg_client *c, kg_arena *a, const kg_client_request *req, kg_client_response *resp,
                              kg_error *err)
{
    *resp = (kg_client_response){0, "", 0};
    const char *method = req->method ? req->method : "GET";
    const char *url = kg_arena_sprintf(a, "%s%s", c->cfg.server, req->path ? req->path : "");
    pthread_once(&lc_once, lc_load);
    if (lc_error[0]) {
        kg_err_set(err, KG_EUNSUPPORTED, "%s %s: %s", method, url, lc_error);
        return KG_CLIENT_UNAVAILABLE;
    }
    CURL *h = handle_get(c);
    if (!h) {
        kg_err_set(err, KG_EINTERNAL, "%s %s: curl_easy_init failed", method, url);
        return KG_CLIENT_TRANSPORT;
    }
    struct curl_slist *hdrs = NULL;
    hdrs = lc.slist_append(hdrs, kg_arena_sprintf(a, "User-Agent: %s", c->cfg.user_agent));
    if (c->cfg.token && c->cfg.token[0])
        hdrs = lc.slist_append(hdrs, kg_arena_sprintf(a, "Authorization: Bearer %s", c->cfg.token));
    for (size_t i = 0; i < req->nheaders; i++)
        hdrs = lc.slist_append(hdrs, req->headers[i]);
    sink body = {KG_BUF_INIT, c->cfg.max_body, false, req};
    int64_t timeout = req->timeout_ms > 0 ? req->timeout_ms : c->cfg.timeout_ms;
    lc.easy_setopt(h, CURLOPT_URL, url);
    lc.easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    lc.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    lc.easy_setopt(h, CURLOPT_WRITEDATA, &body);
    if (req->on_data) {
        lc.easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
        lc.easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
        lc.easy_setopt(h, CURLOPT_XFERINFODATA, (void *)req);
    }
    lc.easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)timeout);
    lc.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    lc.easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    /* HTTP/2 over TLS when the server offers it in ALPN, else HTTP/1.1 with keep-alive; plain http stays 1.1 */
    lc.easy_setopt(h, CURLOPT_HTTP_VERSION, lc_http_version);
    struct curl_slist *connect_to = NULL;
    if (req->connect_to && req->connect_to[0]) {
        connect_to = lc.slist_append(NULL, req->connect_to);
        lc.easy_setopt(h, CURLOPT_CONNECT_TO, connect_to);
    }
    if (req->body) {
        lc.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(req->body_len ? req->body_len : strlen(req->body)));
        lc.easy_setopt(h, CURLOPT_POSTFIELDS, req->body);
    }
    if (strcmp(method, "GET") != 0 && !(req->body && strcmp(method, "POST") == 0))
        lc.easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    set_tls(h, &c->cfg);
    if (req->cancel) {
        lc.easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, cancel_open);
        lc.easy_setopt(h, CURLOPT_OPENSOCKETDATA, req->cancel);
        lc.easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, cancel_close);
        lc.easy_setopt(h, CURLOPT_CLOSESOCKETDATA, req->cancel);
        lc.easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L); /* a socket of our own, tracked from its opening */
        lc.easy_setopt(h, CURLOPT_FORBID_REUSE, 1L);  /* and closed (untracked) before perform returns */
    }
    CURLcode rc = lc.easy_perform(h);
    long status = 0, version = 0;
    lc.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    lc.easy_getinfo(h, CURLINFO_HTTP_VERSION, &version);
    lc.slist_free_all(hdrs);
    if (connect_to)
        lc.slist_free_all(connect_to);
    handle_put(c, h);

    kg_client_result r = classify(rc, body.too_large);
    if (r == KG_CLIENT_OK) {
        resp->status = status;
        resp->http_version = version == CURL_HTTP_VERSION_2_0 ? 20 : version == CURL_HTTP_VERSION_1_0 ? 10 : 11;
        resp->body = kg_arena_strndup(a, body.b.data ? body.b.data : "", body.b.len);
        resp->body_len = body.b.len;
        if (status < 200 || status > 299) {
            r = KG_CLIENT_HTTP_ERROR;
            kg_err_set(err, status == 404 ? KG_ENOTFOUND : KG_EIO, "%s %s: the server responded with status %ld",
                       method, url, status);
        }
    } else if (r == KG_CLIENT_TOO_LARGE) {
        kg_err_set(err, KG_ETOOLARGE, "%s %s: the answer is larger than %zu bytes", method, url, c->cfg.max_body);
    } else {
        kg_err_set(err, r == KG_CLIENT_TIMEOUT ? KG_ETIMEOUT : KG_EIO, "%s %s: %s", method, url, lc.easy_strerror(rc));
    }
    kg_buf_free(&body.b);
    return r;
}
