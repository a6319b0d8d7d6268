#include "cel/k8s/url.h"

#include <string.h>

#include "base/buf.h"
#include "cel/k8s/k8s_util.h"
#include "base/hostport.h"

enum { ENC_PATH, ENC_HOST, ENC_ZONE, ENC_USERPASS, ENC_QUERY, ENC_FRAGMENT };

static bool ishex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static int unhex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 0;
}

static bool should_escape(unsigned char c, int mode)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return false;
    if (mode == ENC_HOST || mode == ENC_ZONE) {
        switch (c) {
        case '!':
        case '$':
        case '&':
        case '\'':
        case '(':
        case ')':
        case '*':
        case '+':
        case ',':
        case ';':
        case '=':
        case ':':
        case '[':
        case ']':
        case '<':
        case '>':
        case '"': return false;
        default: break;
        }
    }
    switch (c) {
    case '-':
    case '_':
    case '.':
    case '~': return false;
    case '$':
    case '&':
    case '+':
    case ',':
    case '/':
    case ':':
    case ';':
    case '=':
    case '?':
    case '@':
        switch (mode) {
        case ENC_PATH: return c == '?';
        case ENC_USERPASS: return c == '@' || c == '/' || c == '?' || c == ':';
        case ENC_QUERY: return true;
        case ENC_FRAGMENT: return false;
        default: break;
        }
        break;
    default: break;
    }
    if (mode == ENC_FRAGMENT && (c == '!' || c == '(' || c == ')' || c == '*'))
        return false;
    return true;
}

/* Go url.unescape; *err gets the error text (without the "parse ..." wrapper). */
static bool unescape(kg_arena *a, const char *s, size_t n, int mode, const char **out, const char **err)
{
    if (mode != ENC_HOST && mode != ENC_ZONE && !memchr(s, '%', n) && !(mode == ENC_QUERY && memchr(s, '+', n))) {
        *out = kg_arena_strndup(a, s, n); /* nothing to decode or validate */
        return true;
    }
    for (size_t i = 0; i < n;) {
        if (s[i] == '%') {
            if (i + 2 >= n || !ishex(s[i + 1]) || !ishex(s[i + 2])) {
                size_t l = n - i > 3 ? 3 : n - i;
                return cel_k8s_fail(a, err, "invalid URL escape %s", cel_k8s_goquote(a, s + i, l));
            }
            if (mode == ENC_HOST && unhex(s[i + 1]) < 8 && memcmp(s + i, "%25", 3) != 0)
                return cel_k8s_fail(a, err, "invalid URL escape %s", cel_k8s_goquote(a, s + i, 3));
            if (mode == ENC_ZONE) {
                unsigned char v = (unsigned char)(unhex(s[i + 1]) << 4 | unhex(s[i + 2]));
                if (memcmp(s + i, "%25", 3) != 0 && v != ' ' && should_escape(v, ENC_HOST))
                    return cel_k8s_fail(a, err, "invalid URL escape %s", cel_k8s_goquote(a, s + i, 3));
            }
            i += 3;
        } else {
            unsigned char c = (unsigned char)s[i];
            if ((mode == ENC_HOST || mode == ENC_ZONE) && c < 0x80 && should_escape(c, mode))
                return cel_k8s_fail(a, err, "invalid character %s in host name", cel_k8s_goquote(a, s + i, 1));
            i++;
        }
    }
    char *r = kg_arena_alloc(a, n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] == '%') {
            r[k++] = (char)(unhex(s[i + 1]) << 4 | unhex(s[i + 2]));
            i += 3;
        } else if (s[i] == '+' && mode == ENC_QUERY) {
            r[k++] = ' ';
            i++;
        } else {
            r[k++] = s[i++];
        }
    }
    r[k] = '\0';
    *out = r;
    return true;
}

static const char HEX[] = "0123456789ABCDEF";

/* Go url.escape into the arena (two passes, no temporary buffer) */
static char *escape(kg_arena *a, const char *s, size_t n, int mode)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        len += (should_escape(c, mode) && !(c == ' ' && mode == ENC_QUERY)) ? 3 : 1;
    }
    char *r = kg_arena_alloc(a, len + 1), *o = r;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!should_escape(c, mode)) {
            *o++ = (char)c;
        } else if (c == ' ' && mode == ENC_QUERY) {
            *o++ = '+';
        } else {
            *o++ = '%';
            *o++ = HEX[c >> 4];
            *o++ = HEX[c & 15];
        }
    }
    *o = '\0';
    return r;
}

/* escape(s, mode) == t, without building the escaped string */
static bool escapes_to(const char *s, size_t n, int mode, const char *t, size_t tn)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!should_escape(c, mode)) {
            if (k >= tn || t[k] != (char)c)
                return false;
            k++;
        } else {
            if (k + 3 > tn || t[k] != '%' || t[k + 1] != HEX[c >> 4] || t[k + 2] != HEX[c & 15])
                return false;
            k += 3;
        }
    }
    return k == tn;
}

static const char *last_index(const char *s, size_t n, char c)
{
    for (size_t i = n; i-- > 0;)
        if (s[i] == c)
            return s + i;
    return NULL;
}

static bool parse_host(kg_arena *a, const char *h, size_t n, const char **out, const char **err)
{
    size_t bad = 0;
    switch (kg_url_check_host_port(h, n, &bad)) {
    case KG_HOSTPORT_MISSING_BRACKET: return cel_k8s_fail(a, err, "missing ']' in host");
    case KG_HOSTPORT_INVALID_PORT:
        return cel_k8s_fail(a, err, "invalid port %s after host", cel_k8s_goquote(a, h + bad, n - bad));
    case KG_HOSTPORT_OK: break;
    }
    if (n > 0 && h[0] == '[') {
        const char *rb = last_index(h, n, ']');
        size_t i = (size_t)(rb - h);
        const char *z = NULL;
        for (size_t j = 0; j + 3 <= i; j++)
            if (memcmp(h + j, "%25", 3) == 0) {
                z = h + j;
                break;
            }
        if (z) {
            const char *h1, *h2, *h3;
            size_t zi = (size_t)(z - h);
            if (!unescape(a, h, zi, ENC_HOST, &h1, err))
                return false;
            if (!unescape(a, z, i - zi, ENC_ZONE, &h2, err))
                return false;
            if (!unescape(a, rb, n - i, ENC_HOST, &h3, err))
                return false;
            *out = kg_arena_sprintf(a, "%s%s%s", h1, h2, h3);
            return true;
        }
    }
    return unescape(a, h, n, ENC_HOST, out, err);
}

static bool valid_userinfo(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char r = s[i];
        if ((r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'))
            continue;
        switch (r) {
        case '-':
        case '.':
        case '_':
        case ':':
        case '~':
        case '!':
        case '$':
        case '&':
        case '\'':
        case '(':
        case ')':
        case '*':
        case '+':
        case ',':
        case ';':
        case '=':
        case '%':
        case '@': continue;
        default: return false;
        }
    }
    return true;
}

static bool parse_inner(kg_arena *a, const char *raw, size_t n, bool via_request, cel_k8s_url *u, const char **err)
{
    memset(u, 0, sizeof *u);
    u->scheme = u->opaque = u->host = u->path = u->raw_path = u->raw_query = "";
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)raw[i] < 0x20 || raw[i] == 0x7f)
            return cel_k8s_fail(a, err, "net/url: invalid control character in URL");
    if (n == 0 && via_request)
        return cel_k8s_fail(a, err, "empty url");
    if (n == 1 && raw[0] == '*') {
        u->path = "*";
        return true;
    }
    /* getScheme */
    const char *rest = raw;
    size_t rn = n;
    for (size_t i = 0; i < n; i++) {
        char c = raw[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
            continue;
        if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
            if (i == 0)
                break;
            continue;
        }
        if (c == ':') {
            if (i == 0)
                return cel_k8s_fail(a, err, "missing protocol scheme");
            char *sch = kg_arena_strndup(a, raw, i);
            for (char *p = sch; *p; p++)
                if (*p >= 'A' && *p <= 'Z')
                    *p = (char)(*p - 'A' + 'a');
            u->scheme = sch;
            rest = raw + i + 1;
            rn = n - i - 1;
        }
        break;
    }
    size_t qcount = 0;
    for (size_t i = 0; i < rn; i++)
        qcount += rest[i] == '?';
    if (rn > 0 && rest[rn - 1] == '?' && qcount == 1) {
        rn--;
    } else {
        const char *q = memchr(rest, '?', rn);
        if (q) {
            u->raw_query = kg_arena_strndup(a, q + 1, rn - (size_t)(q + 1 - rest));
            rn = (size_t)(q - rest);
        }
    }
    bool slash = rn > 0 && rest[0] == '/';
    if (!slash) {
        if (u->scheme[0]) {
            u->opaque = kg_arena_strndup(a, rest, rn);
            return true;
        }
        if (via_request)
            return cel_k8s_fail(a, err, "invalid URI for request");
        const char *sl = memchr(rest, '/', rn);
        size_t seg = sl ? (size_t)(sl - rest) : rn;
        if (memchr(rest, ':', seg))
            return cel_k8s_fail(a, err, "first path segment in URL cannot contain colon");
    }
    bool triple = rn >= 3 && memcmp(rest, "///", 3) == 0;
    if ((u->scheme[0] || (!via_request && !triple)) && rn >= 2 && rest[0] == '/' && rest[1] == '/') {
        const char *auth = rest + 2;
        size_t an = rn - 2;
        const char *sl = memchr(auth, '/', an);
        if (sl) {
            rest = sl;
            rn = an - (size_t)(sl - auth);
            an = (size_t)(sl - auth);
        } else {
            rest = "";
            rn = 0;
        }
        const char *at = last_index(auth, an, '@');
        const char *hs = at ? at + 1 : auth;
        if (!parse_host(a, hs, an - (size_t)(hs - auth), &u->host, err))
            return false;
        if (at) {
            size_t ul = (size_t)(at - auth);
            if (!valid_userinfo(auth, ul))
                return cel_k8s_fail(a, err, "net/url: invalid userinfo");
            const char *tmp;
            const char *colon = memchr(auth, ':', ul);
            if (!colon) {
                if (!unescape(a, auth, ul, ENC_USERPASS, &tmp, err))
                    return false;
            } else {
                if (!unescape(a, auth, (size_t)(colon - auth), ENC_USERPASS, &tmp, err))
                    return false;
                if (!unescape(a, colon + 1, ul - (size_t)(colon + 1 - auth), ENC_USERPASS, &tmp, err))
                    return false;
            }
            u->has_user = true;
        }
    }
    /* setPath */
    const char *path;
    if (!unescape(a, rest, rn, ENC_PATH, &path, err))
        return false;
    u->path = path;
    if (escapes_to(path, strlen(path), ENC_PATH, rest, rn))
        u->raw_path = "";
    else
        u->raw_path = kg_arena_strndup(a, rest, rn);
    return true;
}

static bool wrap(kg_arena *a, const char *s, size_t n, const char *inner, const char **err)
{
    return cel_k8s_fail(a, err, "parse %s: %s", cel_k8s_goquote(a, s, n), inner);
}

bool cel_k8s_url_parse_request_uri(kg_arena *a, const char *s, size_t n, cel_k8s_url *out, const char **err)
{
    const char *e = NULL;
    if (!parse_inner(a, s, n, true, out, &e))
        return err ? wrap(a, s, n, e, err) : false;
    return true;
}

bool cel_k8s_url_parse(kg_arena *a, const char *s, size_t n, cel_k8s_url *out, const char **err)
{
    const char *hash = memchr(s, '#', n);
    size_t un = hash ? (size_t)(hash - s) : n;
    const char *e = NULL;
    if (!parse_inner(a, s, un, false, out, &e))
        return err ? wrap(a, s, un, e, err) : false;
    if (hash && hash + 1 < s + n) {
        const char *frag;
        if (!unescape(a, hash + 1, n - un - 1, ENC_FRAGMENT, &frag, &e))
            return err ? wrap(a, s, n, e, err) : false;
    }
    return true;
}

bool cel_k8s_url_from_string(kg_arena *a, const char *s, size_t n, cel_k8s_url *out, const char **err)
{
    const char *e = NULL;
    if (!cel_k8s_url_parse_request_uri(a, s, n, out, err ? &e : NULL) ||
        !cel_k8s_url_parse(a, s, n, out, err ? &e : NULL)) {
        if (!err)
            return false;
        return cel_k8s_fail(a, err, "URL parse error during conversion from string: %s", e);
    }
    return true;
}

const char *cel_k8s_url_hostname(kg_arena *a, const cel_k8s_url *u)
{
    const char *h, *p;
    size_t hn, pn;
    kg_url_split_host_port(u->host, strlen(u->host), &h, &hn, &p, &pn);
    return kg_arena_strndup(a, h, hn);
}

const char *cel_k8s_url_port(kg_arena *a, const cel_k8s_url *u)
{
    const char *h, *p;
    size_t hn, pn;
    kg_url_split_host_port(u->host, strlen(u->host), &h, &hn, &p, &pn);
    return kg_arena_strndup(a, p, pn);
}

static bool valid_encoded(const char *s, int mode)
{
    for (; *s; s++) {
        switch (*s) {
        case '!':
        case '$':
        case '&':
        case '\'':
        case '(':
        case ')':
        case '*':
        case '+':
        case ',':
        case ';':
        case '=':
        case ':':
        case '@':
        case '[':
        case ']':
        case '%': break;
        default:
            if (should_escape((unsigned char)*s, mode))
                return false;
        }
    }
    return true;
}

const char *cel_k8s_url_escaped_path(kg_arena *a, const cel_k8s_url *u)
{
    if (u->raw_path[0] && valid_encoded(u->raw_path, ENC_PATH)) {
        const char *p, *e;
        if (unescape(a, u->raw_path, strlen(u->raw_path), ENC_PATH, &p, &e) && strcmp(p, u->path) == 0)
            return u->raw_path;
    }
    if (strcmp(u->path, "*") == 0)
        return "*";
    return escape(a, u->path, strlen(u->path), ENC_PATH);
}

size_t cel_k8s_url_query(kg_arena *a, const cel_k8s_url *u, cel_k8s_query_entry **out)
{
    const char *q = u->raw_query;
    size_t qn = strlen(q), cap = 1;
    for (size_t i = 0; i < qn; i++)
        cap += q[i] == '&';
    cel_k8s_query_entry *ents = kg_arena_calloc(a, cap * sizeof *ents);
    size_t ne = 0;
    const char *end = q + qn;
    while (q < end) {
        const char *amp = memchr(q, '&', (size_t)(end - q));
        const char *ke = amp ? amp : end;
        const char *key = q;
        size_t kn = (size_t)(ke - q);
        q = amp ? amp + 1 : end;
        if (memchr(key, ';', kn) || kn == 0)
            continue;
        const char *eq = memchr(key, '=', kn);
        const char *val = eq ? eq + 1 : "";
        size_t vn = eq ? kn - (size_t)(eq + 1 - key) : 0;
        if (eq)
            kn = (size_t)(eq - key);
        const char *k2, *v2, *e;
        if (!unescape(a, key, kn, ENC_QUERY, &k2, &e))
            continue;
        if (!unescape(a, val, vn, ENC_QUERY, &v2, &e))
            continue;
        size_t j = 0;
        for (; j < ne; j++)
            if (strcmp(ents[j].key, k2) == 0)
                break;
        if (j == ne) {
            ents[ne].key = k2;
            ents[ne].vals = kg_arena_alloc(a, cap * sizeof(char *));
            ne++;
        }
        ents[j].vals[ents[j].nvals++] = v2;
    }
    *out = ents;
    return ne;
}
