/* Bootstrap token authentication (see authn_bootstrap.h). */
#include "server/authn_bootstrap.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>

#include "base/base64.h"
#include "json/json.h"
#include "meta/object.h"
#include "server/cache.h"

#define ID_LEN 6
#define SECRET_LEN 16
#define MAX_GROUPS 64

static bool lower_alnum(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
            return false;
    return true;
}

/* data[key] base64-decoded into a (NULL when absent or undecodable). */
static const char *secret_data(const kg_json *secret, const char *key, kg_arena *a, size_t *n)
{
    const char *v = kg_json_get_str(kg_json_get(secret, "data"), key);
    *n = 0;
    return v ? kg_base64_decode(a, v, strlen(v), 0, n, NULL) : NULL;
}

/* ValidateBootstrapGroupName: ^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$ */
#define GROUP_PREFIX "system:bootstrappers:"
static bool valid_group(const char *g, size_t n)
{
    size_t p = sizeof(GROUP_PREFIX) - 1;
    if (n <= p || n > p + 256 || memcmp(g, GROUP_PREFIX, p) != 0)
        return false;
    for (size_t i = p; i < n; i++) {
        char c = g[i];
        bool last = i + 1 == n;
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (!last && (c == ':' || c == '-'))))
            return false;
    }
    return true;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

kg_token_verdict kg_bootstrap_token_authenticate(void *ud, const char *token, size_t len, kg_arena *a,
                                                 kg_user_info *out, const char **reason)
{
    const kg_bootstrap_authn *b = ud;
    if (len != ID_LEN + 1 + SECRET_LEN || token[ID_LEN] != '.' || !lower_alnum(token, ID_LEN) ||
        !lower_alnum(token + ID_LEN + 1, SECRET_LEN))
        return KG_TOKEN_NOT_MINE;
    char name[sizeof("bootstrap-token-") + ID_LEN];
    memcpy(name, "bootstrap-token-", 16);
    memcpy(name + 16, token, ID_LEN);
    name[16 + ID_LEN] = '\0';
    const kg_json *s = b->lookup(b->ud, name, a);
    if (!s)
        return KG_TOKEN_NOT_MINE;
    const kg_json *meta = kg_json_get(s, "metadata");
    if (kg_json_get(meta, "deletionTimestamp") && kg_json_get(meta, "deletionTimestamp")->type != KG_JSON_NULL)
        return KG_TOKEN_NOT_MINE;
    const char *type = kg_json_get_str(s, "type");
    if (!type || strcmp(type, "bootstrap.kubernetes.io/token") != 0 || !kg_json_get(s, "data"))
        return KG_TOKEN_NOT_MINE;
    size_t n = 0;
    const char *ts = secret_data(s, "token-secret", a, &n);
    /* constant time over the presented secret's length (a length mismatch only reveals the stored length) */
    if (!ts || n != SECRET_LEN || CRYPTO_memcmp(ts, token + ID_LEN + 1, SECRET_LEN) != 0)
        return KG_TOKEN_NOT_MINE;
    const char *id = secret_data(s, "token-id", a, &n);
    if (!id || n != ID_LEN || memcmp(id, token, ID_LEN) != 0)
        return KG_TOKEN_NOT_MINE;
    const char *exp = secret_data(s, "expiration", a, &n);
    if (exp && n) {
        time_t t = 0;
        int64_t now = b->now_unix ? b->now_unix : (int64_t)time(NULL);
        if (!kg_time_parse(exp, &t) || now > (int64_t)t) /* HasExpired: unparsable counts as expired */
            return KG_TOKEN_NOT_MINE;
    }
    const char *usage = secret_data(s, "usage-bootstrap-authentication", a, &n);
    if (!usage || strcmp(usage, "true") != 0)
        return KG_TOKEN_NOT_MINE;
    /* GetGroups: system:bootstrappers + the validated extra groups, deduplicated and sorted */
    const char *groups[MAX_GROUPS];
    size_t ng = 0;
    groups[ng++] = "system:bootstrappers";
    const char *extra = secret_data(s, "auth-extra-groups", a, &n);
    if (extra && n) {
        for (const char *g = extra;;) {
            const char *c = strchr(g, ',');
            size_t gl = c ? (size_t)(c - g) : strlen(g);
            if (!valid_group(g, gl)) {
                *reason = kg_arena_sprintf(a, "bootstrap group \"%.*s\" is invalid (must match %s)", (int)gl, g,
                                           "^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$");
                return KG_TOKEN_INVALID;
            }
            if (ng < MAX_GROUPS)
                groups[ng++] = kg_arena_strndup(a, g, gl);
            if (!c)
                break;
            g = c + 1;
        }
    }
    qsort(groups, ng, sizeof(groups[0]), cmp_str);
    const char **gs = kg_arena_alloc(a, ng * sizeof(*gs));
    size_t k = 0;
    for (size_t i = 0; i < ng; i++)
        if (!k || strcmp(gs[k - 1], groups[i]) != 0)
            gs[k++] = groups[i];
    memset(out, 0, sizeof(*out));
    out->name = kg_arena_sprintf(a, "system:bootstrap:%.*s", ID_LEN, token);
    out->uid = "";
    out->groups = gs;
    out->ngroups = k;
    return KG_TOKEN_OK;
}

const kg_json *kg_bootstrap_cache_lookup(void *ud, const char *name, kg_arena *a)
{
    const kg_resource *r = kg_resource_find("", "v1", "secrets");
    KG_ERROR_DECL(err);
    kg_json_shared *doc = r ? kg_cache_view(ud, r, "kube-system", name, a, &err) : NULL;
    return doc ? kg_json_shared_root(doc) : NULL;
}
