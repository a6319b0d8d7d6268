/* Service-account token claims and the token authenticator (see token.h). */
#include "auth/serviceaccount/token.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/serviceaccount/jwt.h"
#include "base/base64.h"
#include "base/buf.h"
#include "meta/object.h"

#define LEGACY_NS "kubernetes.io/serviceaccount/namespace"
#define LEGACY_SECRET "kubernetes.io/serviceaccount/secret.name"
#define LEGACY_SA "kubernetes.io/serviceaccount/service-account.name"
#define LEGACY_SA_UID "kubernetes.io/serviceaccount/service-account.uid"
#define EXTRA_PREFIX "authentication.kubernetes.io/"

struct kg_sa_authenticator {
    kg_arena mem; /* the copied configuration */
    kg_sa_authenticator_config cfg;
};

static kg_json *ref(kg_arena *a, const char *name, const char *uid)
{
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "name", kg_json_new_str(a, name));
    kg_json_set(a, o, "uid", kg_json_new_str(a, uid ? uid : ""));
    return o;
}

kg_json *kg_sa_bound_claims(kg_arena *a, const kg_sa_token_spec *s)
{
    kg_json *c = kg_json_new_object(a);
    kg_json *aud = kg_json_new_array(a);
    for (size_t i = 0; i < s->naudiences; i++)
        kg_json_array_append(a, aud, kg_json_new_str(a, s->audiences[i]));
    kg_json_set(a, c, "aud", aud);
    kg_json_set(a, c, "exp", kg_json_new_int(a, s->exp));
    kg_json_set(a, c, "iat", kg_json_new_int(a, s->iat));
    kg_json_set(a, c, "iss", kg_json_new_str(a, s->issuer));
    if (s->jti)
        kg_json_set(a, c, "jti", kg_json_new_str(a, s->jti));
    kg_json *k = kg_json_new_object(a);
    kg_json_set(a, k, "namespace", kg_json_new_str(a, s->ns));
    if (s->node_name)
        kg_json_set(a, k, "node", ref(a, s->node_name, s->node_uid));
    if (s->pod_name)
        kg_json_set(a, k, "pod", ref(a, s->pod_name, s->pod_uid));
    if (s->secret_name)
        kg_json_set(a, k, "secret", ref(a, s->secret_name, s->secret_uid));
    kg_json_set(a, k, "serviceaccount", ref(a, s->sa_name, s->sa_uid));
    if (s->warnafter)
        kg_json_set(a, k, "warnafter", kg_json_new_int(a, s->warnafter));
    kg_json_set(a, c, "kubernetes.io", k);
    kg_json_set(a, c, "nbf", kg_json_new_int(a, s->iat));
    kg_json_set(a, c, "sub", kg_json_new_str(a, kg_arena_sprintf(a, KG_SA_USER_PREFIX "%s:%s", s->ns, s->sa_name)));
    return c;
}

kg_json *kg_sa_legacy_claims(kg_arena *a, const char *ns, const char *secret_name, const char *sa_name,
                             const char *sa_uid)
{
    kg_json *c = kg_json_new_object(a);
    kg_json_set(a, c, "iss", kg_json_new_str(a, KG_SA_LEGACY_ISSUER));
    kg_json_set(a, c, LEGACY_NS, kg_json_new_str(a, ns));
    kg_json_set(a, c, LEGACY_SECRET, kg_json_new_str(a, secret_name));
    kg_json_set(a, c, LEGACY_SA, kg_json_new_str(a, sa_name));
    kg_json_set(a, c, LEGACY_SA_UID, kg_json_new_str(a, sa_uid));
    kg_json_set(a, c, "sub", kg_json_new_str(a, kg_arena_sprintf(a, KG_SA_USER_PREFIX "%s:%s", ns, sa_name)));
    return c;
}

bool kg_sa_split_username(kg_arena *a, const char *user, const char **ns, const char **name)
{
    size_t pl = strlen(KG_SA_USER_PREFIX);
    if (!user || strncmp(user, KG_SA_USER_PREFIX, pl))
        return false;
    const char *rest = user + pl;
    const char *colon = strchr(rest, ':');
    if (!colon || colon == rest || !colon[1] || strchr(colon + 1, ':'))
        return false;
    *ns = kg_arena_strndup(a, rest, (size_t)(colon - rest));
    *name = kg_arena_strdup(a, colon + 1);
    return true;
}

static const char **dup_strs(kg_arena *a, const char *const *v, size_t n)
{
    const char **r = kg_arena_alloc(a, (n ? n : 1) * sizeof *r);
    for (size_t i = 0; i < n; i++)
        r[i] = kg_arena_strdup(a, v[i]);
    return r;
}

kg_sa_authenticator *kg_sa_authenticator_new(const kg_sa_authenticator_config *cfg)
{
    kg_sa_authenticator *sa = calloc(1, sizeof *sa);
    if (!sa)
        abort();
    kg_arena_init(&sa->mem, 0);
    sa->cfg = *cfg;
    sa->cfg.issuers = dup_strs(&sa->mem, cfg->issuers, cfg->nissuers);
    sa->cfg.api_audiences = dup_strs(&sa->mem, cfg->api_audiences, cfg->napi_audiences);
    return sa;
}

void kg_sa_authenticator_free(kg_sa_authenticator *sa)
{
    if (!sa)
        return;
    kg_arena_free(&sa->mem);
    free(sa);
}

/* Go's %q of a []string: ["a" "b"]. */
static const char *go_quote_list(kg_arena *a, const char *const *v, size_t n)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_putc(&b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            kg_buf_putc(&b, ' ');
        kg_buf_putc(&b, '"');
        for (const char *p = v[i]; *p; p++) {
            if (*p == '"' || *p == '\\')
                kg_buf_putc(&b, '\\');
            kg_buf_putc(&b, *p);
        }
        kg_buf_putc(&b, '"');
    }
    kg_buf_putc(&b, ']');
    char *r = kg_arena_strndup(a, b.data, b.len);
    kg_buf_free(&b);
    return r;
}

static bool deleted_before(const kg_json *obj, int64_t cutoff)
{
    const char *dt = kg_meta_deletion_timestamp(obj);
    time_t t;
    return dt && *dt && kg_time_parse(dt, &t) && (int64_t)t < cutoff;
}

static const char *uid_of(const kg_json *obj)
{
    const char *u = kg_meta_uid(obj);
    return u ? u : "";
}

static kg_sa_verdict invalid(kg_sa_result *out, const char *reason)
{
    out->reason = reason;
    return KG_SA_INVALID;
}

static bool get_int(const kg_json *c, const char *key, int64_t *v)
{
    const kg_json *j = kg_json_get(c, key);
    if (!j || !kg_json_is_number(j))
        return false;
    *v = (int64_t)kg_json_number(j);
    return true;
}

/* A {name, uid} reference of the kubernetes.io claim; false when absent. */
static bool claim_ref(const kg_json *k, const char *key, const char **name, const char **uid)
{
    const kg_json *r = kg_json_get(k, key);
    if (!kg_json_is(r, KG_JSON_OBJECT))
        return false;
    *name = kg_json_get_str(r, "name");
    *uid = kg_json_get_str(r, "uid");
    if (!*name)
        *name = "";
    if (!*uid)
        *uid = "";
    return true;
}

static void add_extra(kg_arena *a, kg_user_extra *ex, size_t *n, const char *key, const char *val)
{
    const char **v = kg_arena_alloc(a, sizeof *v);
    v[0] = kg_arena_strdup(a, val);
    ex[*n] = (kg_user_extra){kg_arena_sprintf(a, EXTRA_PREFIX "%s", key), v, 1};
    (*n)++;
}

static void fill_user(kg_arena *a, kg_sa_result *out, const char *ns, const char *name, const char *uid)
{
    out->user.name = kg_arena_sprintf(a, KG_SA_USER_PREFIX "%s:%s", ns, name);
    out->user.uid = kg_arena_strdup(a, uid);
    const char **g = kg_arena_alloc(a, 2 * sizeof *g);
    g[0] = KG_GROUP_SERVICEACCOUNTS;
    g[1] = kg_arena_sprintf(a, KG_GROUP_SERVICEACCOUNTS ":%s", ns);
    out->user.groups = g;
    out->user.ngroups = 2;
}

static kg_sa_verdict validate_bound(const kg_sa_authenticator *sa, const kg_json *c, kg_arena *a, kg_sa_result *out)
{
    int64_t now = sa->cfg.now ? sa->cfg.now() : (int64_t)time(NULL);
    int64_t exp, nbf, iat;
    if (get_int(c, "exp", &exp) && now - KG_SA_LEEWAY_SECONDS > exp)
        return invalid(out, "service account token has expired");
    if (get_int(c, "nbf", &nbf) && now + KG_SA_LEEWAY_SECONDS < nbf)
        return invalid(out, "service account token is not valid yet");
    if (get_int(c, "iat", &iat) && now + KG_SA_LEEWAY_SECONDS < iat)
        return invalid(out, "service account token is issued in the future");
    const kg_json *k = kg_json_get(c, "kubernetes.io");
    const char *ns = kg_json_get_str(k, "namespace");
    const char *sa_name = "", *sa_uid = "";
    claim_ref(k, "serviceaccount", &sa_name, &sa_uid);
    if (!ns)
        ns = "";
    int64_t cutoff = now - KG_SA_LEEWAY_SECONDS;
    const kg_json *acct = sa->cfg.get(sa->cfg.get_ud, "serviceaccounts", ns, sa_name, a);
    if (!acct)
        return invalid(out, kg_arena_sprintf(a, "serviceaccounts \"%s\" not found", sa_name));
    if (deleted_before(acct, cutoff))
        return invalid(out, kg_arena_sprintf(a, "service account %s/%s has been deleted", ns, sa_name));
    if (strcmp(uid_of(acct), sa_uid))
        return invalid(out,
                       kg_arena_sprintf(a, "service account UID (%s) does not match claim (%s)", uid_of(acct), sa_uid));
    static const char *const kinds[3][2] = {{"secret", "secrets"}, {"pod", "pods"}, {"node", "nodes"}};
    const char *names[3] = {NULL, NULL, NULL};
    const char *uids[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        const char *n, *u;
        if (!claim_ref(k, kinds[i][0], &n, &u))
            continue;
        names[i] = n;
        uids[i] = u;
        const kg_json *o = sa->cfg.get(sa->cfg.get_ud, kinds[i][1], i == 2 ? "" : ns, n, a);
        if (!o || deleted_before(o, cutoff))
            return invalid(out, "service account token has been invalidated");
        if (strcmp(uid_of(o), u))
            return invalid(out, kg_arena_sprintf(a, "%s UID (%s) does not match service account %s ref claim (%s)",
                                                 kinds[i][0], uid_of(o), kinds[i][0], u));
    }
    fill_user(a, out, ns, sa_name, uid_of(acct));
    kg_user_extra *ex = kg_arena_calloc(a, 5 * sizeof *ex);
    size_t nex = 0;
    if (names[1]) {
        add_extra(a, ex, &nex, "pod-name", names[1]);
        add_extra(a, ex, &nex, "pod-uid", uids[1]);
    }
    if (names[2]) {
        add_extra(a, ex, &nex, "node-name", names[2]);
        add_extra(a, ex, &nex, "node-uid", uids[2]);
    }
    const char *jti = kg_json_get_str(c, "jti");
    if (jti && *jti)
        add_extra(a, ex, &nex, "credential-id", kg_arena_sprintf(a, "JTI=%s", jti));
    out->user.extra = nex ? ex : NULL;
    out->user.nextra = nex;
    return KG_SA_OK;
}

static kg_sa_verdict validate_legacy(const kg_sa_authenticator *sa, const kg_json *c, const char *token, size_t len,
                                     kg_arena *a, kg_sa_result *out)
{
    const char *sub = kg_json_get_str(c, "sub");
    const char *ns = kg_json_get_str(c, LEGACY_NS), *secret = kg_json_get_str(c, LEGACY_SECRET);
    const char *name = kg_json_get_str(c, LEGACY_SA), *uid = kg_json_get_str(c, LEGACY_SA_UID);
    if (!sub || !*sub)
        return invalid(out, "sub claim is missing");
    if (!ns || !*ns)
        return invalid(out, "namespace claim is missing");
    if (!secret || !*secret)
        return invalid(out, "secretName claim is missing");
    if (!name || !*name)
        return invalid(out, "serviceAccountName claim is missing");
    if (!uid || !*uid)
        return invalid(out, "serviceAccountUID claim is missing");
    const char *sns, *sname;
    if (!kg_sa_split_username(a, sub, &sns, &sname) || strcmp(sns, ns) || strcmp(sname, name))
        return invalid(out, "sub claim is invalid");
    if (sa->cfg.lookup) {
        const kg_json *s = sa->cfg.get(sa->cfg.get_ud, "secrets", ns, secret, a);
        const char *dt = s ? kg_meta_deletion_timestamp(s) : NULL;
        if (!s || (dt && *dt))
            return invalid(out, "Token has been invalidated");
        const char *stored = kg_json_path_str(s, "data.token"); /* base64 of the token as stored */
        char *tok_b64 = kg_base64_encode(a, token, len, 0, NULL);
        if (!stored || strcmp(stored, tok_b64))
            return invalid(out, "Token does not match server's copy");
        const kg_json *acct = sa->cfg.get(sa->cfg.get_ud, "serviceaccounts", ns, name, a);
        if (!acct)
            return invalid(out, kg_arena_sprintf(a, "serviceaccounts \"%s\" not found", name));
        dt = kg_meta_deletion_timestamp(acct);
        if (dt && *dt)
            return invalid(out, kg_arena_sprintf(a, "ServiceAccount %s/%s has been deleted", ns, name));
        if (strcmp(uid_of(acct), uid))
            return invalid(out,
                           kg_arena_sprintf(a, "ServiceAccount UID (%s) does not match claim (%s)", uid_of(acct), uid));
        const char *since = kg_meta_label(s, "kubernetes.io/legacy-token-invalid-since");
        if (since)
            return invalid(out, kg_arena_sprintf(a,
                                                 "the token in secret %s/%s for service account %s/%s has been marked "
                                                 "invalid. Use tokens from the TokenRequest API or manually created "
                                                 "secret-based tokens, or remove the '%s' label from the secret to "
                                                 "temporarily allow use of this token",
                                                 ns, secret, ns, name, "kubernetes.io/legacy-token-invalid-since"));
    }
    fill_user(a, out, ns, name, uid);
    return KG_SA_OK;
}

kg_sa_verdict kg_sa_authenticate(const kg_sa_authenticator *sa, const char *token, size_t len,
                                 const char *const *audiences, size_t naudiences, kg_arena *a, kg_sa_result *out)
{
    memset(out, 0, sizeof *out);
    const char *iss = kg_jwt_peek_issuer(a, token, len);
    bool legacy = !strcmp(iss, KG_SA_LEGACY_ISSUER), mine = legacy;
    for (size_t i = 0; !mine && i < sa->cfg.nissuers; i++)
        mine = !strcmp(iss, sa->cfg.issuers[i]);
    if (!mine)
        return KG_SA_NOT_MINE;
    kg_jwt t;
    KG_ERROR_DECL(err);
    if (!kg_jwt_parse(a, token, len, &t, &err))
        return invalid(out, kg_arena_strdup(a, err.msg));
    if (!kg_jwt_verify(&t, sa->cfg.keys->verify, sa->cfg.keys->nverify, &err))
        return invalid(out, kg_arena_strdup(a, err.msg));
    /* audiences: the token's (none: the API audiences) ∩ the requested (none: the API audiences) */
    const kg_json *aud = kg_json_get(t.claims, "aud");
    const char **taud = NULL;
    size_t ntaud = 0;
    if (kg_json_is(aud, KG_JSON_STRING)) {
        taud = kg_arena_alloc(a, sizeof *taud);
        taud[ntaud++] = aud->u.s;
    } else if (kg_json_is(aud, KG_JSON_ARRAY) && aud->len) {
        taud = kg_arena_alloc(a, aud->len * sizeof *taud);
        for (uint32_t i = 0; i < aud->len; i++)
            if (kg_json_is(aud->u.items[i], KG_JSON_STRING))
                taud[ntaud++] = aud->u.items[i]->u.s;
    }
    if (!ntaud) {
        taud = (const char **)sa->cfg.api_audiences;
        ntaud = sa->cfg.napi_audiences;
    }
    if (!naudiences) {
        audiences = sa->cfg.api_audiences;
        naudiences = sa->cfg.napi_audiences;
    }
    const char **both = kg_arena_alloc(a, (ntaud ? ntaud : 1) * sizeof *both);
    size_t nboth = 0;
    for (size_t i = 0; i < ntaud; i++)
        for (size_t j = 0; j < naudiences; j++)
            if (!strcmp(taud[i], audiences[j])) {
                both[nboth++] = taud[i];
                break;
            }
    if (!nboth && sa->cfg.napi_audiences)
        return invalid(out, kg_arena_sprintf(a, "token audiences %s is invalid for the target audiences %s",
                                             go_quote_list(a, taud, ntaud), go_quote_list(a, audiences, naudiences)));
    kg_sa_verdict v = legacy ? validate_legacy(sa, t.claims, token, len, a, out) : validate_bound(sa, t.claims, a, out);
    out->audiences = both;
    out->naudiences = nboth;
    return v;
}
