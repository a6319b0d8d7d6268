/* provide(image) per provider (pluginProvider.provide) and the combined keyring
 * (externalCredentialProviderKeyring.Lookup over a BasicDockerKeyring). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "base/buf.h"
#include "base/log.h"
#include "credentialprovider/credentialprovider.h"

#define GLOBAL_CACHE_KEY "<global>"

static int64_t now_ns(const kg_cred_options *o)
{
    if (o->now_ns)
        return o->now_ns;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * KG_CRED_SECOND + ts.tv_nsec;
}

__attribute__((format(printf, 3, 4))) static void report(const kg_cred_options *o, const kg_cred_provider *p,
                                                         const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (o->on_error)
        o->on_error(o->on_error_ctx, p->name, msg);
    else
        KG_V(2, "credential provider %s: %s", p->name, msg);
}

static void lp(kg_buf *b, const char *s)
{
    kg_buf_printf(b, "%zu:%s", strlen(s), s);
}

static char *sha256_hex(kg_arena *a, const char *s)
{
    unsigned char md[32];
    unsigned int n = 0;
    EVP_Digest(s, strlen(s), md, &n, EVP_sha256(), NULL);
    char *hex = kg_arena_alloc(a, 2 * n + 8);
    strcpy(hex, "sha256:");
    for (unsigned i = 0; i < n; i++)
        sprintf(hex + 7 + 2 * i, "%02x", md[i]);
    return hex;
}

static int cmp_member(const void *x, const void *y)
{
    return strcmp(((const kg_json_member *)x)->key, ((const kg_json_member *)y)->key);
}

/* An unambiguous text encoding of upstream's cryptobyte service-account cache key. */
static char *sa_cache_key(kg_arena *a, const kg_cred_pod *pod, const char *sa_uid, kg_json *ann, const char *token,
                          const char *cache_type)
{
    kg_buf b = KG_BUF_INIT;
    lp(&b, pod->namespace_ ? pod->namespace_ : "");
    lp(&b, pod->sa_name);
    lp(&b, sa_uid ? sa_uid : "");
    kg_buf_printf(&b, "%u#", ann ? ann->len : 0u);
    for (uint32_t i = 0; ann && i < ann->len; i++) {
        lp(&b, ann->u.members[i].key);
        lp(&b, ann->u.members[i].val->u.s);
    }
    if (!strcmp(cache_type, "Token")) {
        lp(&b, "token");
        lp(&b, sha256_hex(a, token));
    }
    char *r = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return r;
}

static bool image_allowed(kg_arena *a, const kg_cred_provider *p, const char *image)
{
    for (size_t i = 0; i < p->n_match_images; i++)
        if (kg_credentialprovider_urls_match_a(a, p->match_images[i], image))
            return true;
    return false;
}

static char *registry_of(kg_arena *a, const char *image)
{
    return kg_arena_strndup(a, image, strcspn(image, "/"));
}

static void provide_exec(kg_arena *a, const kg_cred_provider *p, const kg_cred_options *o, const char *image,
                         const char *token, const kg_json *ann, bool sa_mode, const char *sa_key, bool use_cache,
                         int64_t now, kg_json **auth)
{
    const kg_cred_token_attributes *t = p->token;
    kg_cred_response resp;
    KG_ERROR_DECL(e);
    if (!kg_credentialprovider_exec(a, p, o, image, token, ann, &resp, &e)) {
        report(o, p, "Failed getting credential from external registry credential provider: %s", e.msg);
        return;
    }
    if (sa_mode && token && *token && strcmp(t->cache_type, "Token") != 0) {
        for (uint32_t i = 0; i < resp.auth->len; i++)
            if (!strcmp(kg_json_get_str(resp.auth->u.members[i].val, "password"), token)) {
                report(o, p,
                       "Credential provider plugin returned the service account token as the password for image "
                       "\"%s\", which is not allowed when service account cache type is not set to 'Token'",
                       image);
                return;
            }
    }
    const char *base_key;
    if (!strcmp(resp.cache_key_type, "Image"))
        base_key = image;
    else if (!strcmp(resp.cache_key_type, "Registry"))
        base_key = registry_of(a, image);
    else if (!strcmp(resp.cache_key_type, "Global"))
        base_key = GLOBAL_CACHE_KEY;
    else {
        report(o, p, "credential provider plugin did not return a valid cacheKeyType: \"%s\"", resp.cache_key_type);
        return;
    }
    *auth = resp.auth;
    int64_t dur = resp.has_cache_duration ? resp.cache_duration : p->default_cache_duration;
    if (dur <= 0 || !use_cache)
        return;
    int64_t expires = dur > INT64_MAX - now ? INT64_MAX : now + dur; /* Go's Time.Add saturates too */
    if (!kg_credentialprovider_cache_put(a, o->cache_dir, p, base_key, sa_key, expires, resp.auth, &e))
        report(o, p, "could not cache credentials: %s", e.msg);
}

void kg_credentialprovider_provide(kg_arena *a, const kg_cred_provider *p, const kg_cred_options *o, const char *image,
                                   kg_json **auth)
{
    *auth = NULL;
    if (!image_allowed(a, p, image))
        return;
    bool sa_mode = o->sa_token_gate && p->token && p->token->audience && *p->token->audience;
    const char *sa_key = "", *token = NULL;
    kg_json *ann = NULL;
    const kg_cred_token_attributes *t = p->token;
    if (sa_mode) {
        const kg_cred_pod *pod = o->pod;
        const char *sa_name = pod && pod->sa_name ? pod->sa_name : "";
        if (!*sa_name && t->require_sa) {
            report(o, p,
                   "skipped: the provider requires a service account and the pod has none (give "
                   "--namespace and --service-account)");
            return;
        }
        if (*sa_name) {
            if (!o->tokens || !o->tokens->get_service_account || !o->tokens->request_token) {
                report(o, p, "service account token mode needs access to the API server (--kubeconfig)");
                return;
            }
            kg_cred_sa_info sa = {0};
            KG_ERROR_DECL(e);
            if (!o->tokens->get_service_account(o->tokens->ctx, a, pod->namespace_, sa_name, &sa, &e)) {
                report(o, p, "Failed to get service account %s/%s: %s", pod->namespace_, sa_name, e.msg);
                return;
            }
            ann = kg_json_new_object(a);
            for (size_t i = 0; i < t->n_required; i++) {
                const char *v = kg_json_get_str(sa.annotations, t->required_keys[i]);
                if (!v) {
                    report(o, p, "Failed to get service account data %s/%s: required annotation %s not found",
                           pod->namespace_, sa_name, t->required_keys[i]);
                    return;
                }
                kg_json_set(a, ann, t->required_keys[i], kg_json_new_str(a, v));
            }
            for (size_t i = 0; i < t->n_optional; i++) {
                const char *v = kg_json_get_str(sa.annotations, t->optional_keys[i]);
                if (v)
                    kg_json_set(a, ann, t->optional_keys[i], kg_json_new_str(a, v));
            }
            qsort(ann->u.members, ann->len, sizeof(kg_json_member), cmp_member);
            token = o->tokens->request_token(o->tokens->ctx, a, pod->namespace_, sa_name, sa.uid, t->audience,
                                             pod->name, pod->uid, &e);
            if (!token) {
                report(o, p, "Error getting service account token %s/%s: %s", pod->namespace_, sa_name, e.msg);
                return;
            }
            sa_key = sa_cache_key(a, pod, sa.uid, ann, token, t->cache_type);
        }
    }
    bool use_cache = !o->no_cache && o->cache_dir;
    int64_t now = now_ns(o);
    const char *keys[3] = {image, registry_of(a, image), GLOBAL_CACHE_KEY};
    int lock = -1;
    if (use_cache) {
        for (int i = 0; i < 3; i++)
            if (kg_credentialprovider_cache_get(a, o->cache_dir, p, keys[i], sa_key, now, auth))
                return;
        /* singleflight across processes; whoever waited finds the winner's entry */
        lock = kg_credentialprovider_cache_lock(a, o->cache_dir, p, image, sa_key,
                                                o->exec_timeout_ms > 0 ? o->exec_timeout_ms : 60000);
        if (lock >= 0) {
            now = now_ns(o);
            for (int i = 0; i < 3; i++)
                if (kg_credentialprovider_cache_get(a, o->cache_dir, p, keys[i], sa_key, now, auth)) {
                    kg_credentialprovider_cache_unlock(lock);
                    return;
                }
        }
    }
    provide_exec(a, p, o, image, token, ann, sa_mode, sa_key, use_cache, now, auth);
    kg_credentialprovider_cache_unlock(lock);
}

/* ---------------------------------------------------------------- BasicDockerKeyring */

typedef struct kr_entry {
    const char *key;
    const char *user, *pass, *provider;
    size_t seq;
} kr_entry;

static int cmp_entry(const void *x, const void *y)
{
    const kr_entry *a = x, *b = y;
    int c = strcmp(b->key, a->key); /* reverse bytewise */
    if (c)
        return c;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool is_default_registry_match(const char *image)
{
    const char *sl = strchr(image, '/');
    if (image[0] == 0 || image[0] == '/')
        return false;
    if (!sl) /* a bare registry host (the docker helper protocol); normalised images always have a '/' */
        return !strcmp(image, "docker.io") || !strcmp(image, "index.docker.io");
    size_t n = (size_t)(sl - image);
    if ((n == 9 && !memcmp(image, "docker.io", 9)) || (n == 15 && !memcmp(image, "index.docker.io", 15)))
        return true;
    return !memchr(image, '.', n) && !memchr(image, ':', n);
}

bool kg_credentialprovider_lookup(kg_arena *a, const kg_cred_config *cfg, const kg_cred_options *o,
                                  const char *raw_image, kg_cred_auth **out, size_t *n, kg_error *err)
{
    *out = NULL;
    *n = 0;
    const char *image = kg_credentialprovider_normalize_image(a, raw_image, err);
    if (!image)
        return kg_err_prefix(err, "couldn't parse image name \"%s\"", raw_image);
    kg_credentialprovider_lookup_name(a, cfg, o, image, out, n);
    return true;
}

void kg_credentialprovider_lookup_name(kg_arena *a, const kg_cred_config *cfg, const kg_cred_options *o,
                                       const char *image, kg_cred_auth **out, size_t *n)
{
    size_t cap = 16, ne = 0;
    kr_entry *ents = kg_arena_alloc(a, sizeof(kr_entry) * cap);
    for (size_t i = 0; i < cfg->n_providers; i++) {
        const kg_cred_provider *p = &cfg->providers[i];
        kg_json *auth = NULL;
        kg_credentialprovider_provide(a, p, o, image, &auth);
        for (uint32_t j = 0; auth && j < auth->len; j++) {
            const char *loc = auth->u.members[j].key;
            const char *value = loc;
            if (strncmp(value, "https://", 8) && strncmp(value, "http://", 7))
                value = kg_arena_sprintf(a, "https://%s", loc);
            kg_cred_url u;
            KG_ERROR_DECL(e);
            if (!kg_credentialprovider_parse_url(a, value, &u, &e)) {
                report(o, p, "Entry \"%s\" in dockercfg invalid (%s), ignoring", loc, e.msg);
                continue;
            }
            const char *path = u.path;
            if (!strncmp(path, "/v2/", 4) || !strncmp(path, "/v1/", 4))
                path += 3;
            const char *key = (*path && strcmp(path, "/")) ? kg_arena_sprintf(a, "%s%s", u.host, path) : u.host;
            if (ne == cap) {
                ents = kg_arena_realloc(a, ents, sizeof(kr_entry) * cap, sizeof(kr_entry) * cap * 2);
                cap *= 2;
            }
            kg_json *v = auth->u.members[j].val;
            ents[ne] = (kr_entry){key, kg_json_get_str(v, "username"), kg_json_get_str(v, "password"), p->name, ne};
            ne++;
        }
    }
    qsort(ents, ne, sizeof(kr_entry), cmp_entry);
    kg_cred_auth *res = kg_arena_alloc(a, sizeof(kg_cred_auth) * (ne + 1));
    size_t nr = 0;
    for (size_t i = 0; i < ne;) {
        size_t j = i;
        while (j < ne && !strcmp(ents[j].key, ents[i].key))
            j++;
        if (kg_credentialprovider_urls_match_a(a, ents[i].key, image))
            for (size_t k = i; k < j; k++)
                res[nr++] = (kg_cred_auth){ents[k].key, ents[k].user, ents[k].pass, ents[k].provider};
        i = j;
    }
    if (nr == 0 && is_default_registry_match(image)) {
        for (size_t k = 0; k < ne; k++)
            if (!strcmp(ents[k].key, "index.docker.io"))
                res[nr++] = (kg_cred_auth){ents[k].key, ents[k].user, ents[k].pass, ents[k].provider};
    }
    *out = res;
    *n = nr;
}
