/* Go-compatible pieces the credential provider depends on: time.ParseDuration / Duration.String, the subset of
 * net/url.Parse used for matching (with Go's error texts), path/filepath.Match, and docker reference
 * normalisation (ParseNormalizedNamed(...).Name()). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "credentialprovider/credentialprovider.h"
#include "base/hostport.h"

/* ---------------------------------------------------------------- Go strconv.Quote (ASCII subset) */

static void go_quote(kg_buf *b, const char *s, size_t n)
{
    kg_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': kg_buf_puts(b, "\\\""); break;
        case '\\': kg_buf_puts(b, "\\\\"); break;
        case '\a': kg_buf_puts(b, "\\a"); break;
        case '\b': kg_buf_puts(b, "\\b"); break;
        case '\f': kg_buf_puts(b, "\\f"); break;
        case '\n': kg_buf_puts(b, "\\n"); break;
        case '\r': kg_buf_puts(b, "\\r"); break;
        case '\t': kg_buf_puts(b, "\\t"); break;
        case '\v': kg_buf_puts(b, "\\v"); break;
        default:
            if (c < 0x20 || c == 0x7f)
                kg_buf_printf(b, "\\x%02x", c);
            else
                kg_buf_putc(b, (char)c);
        }
    }
    kg_buf_putc(b, '"');
}

static char *quote_tmp(char *out, size_t outsz, const char *s, size_t n)
{
    kg_buf b = KG_BUF_INIT;
    go_quote(&b, s, n);
    snprintf(out, outsz, "%s", kg_buf_cstr(&b));
    kg_buf_free(&b);
    return out;
}

bool kg_credentialprovider_go_json_error(char *msg)
{
    char *p = strstr(msg, " (at offset ");
    if (p && p[strlen(p) - 1] == ')')
        *p = 0;
    return true;
}

/* ---------------------------------------------------------------- durations */

static bool dur_err(kg_error *err, const char *fmt_pre, const char *unit, size_t unit_n, const char *orig)
{
    char q[512], u[128];
    quote_tmp(q, sizeof q, orig, strlen(orig));
    if (unit)
        return kg_err_set(err, KG_EINVAL, "time: unknown unit %s in duration %s", quote_tmp(u, sizeof u, unit, unit_n),
                          q);
    return kg_err_set(err, KG_EINVAL, "time: %s duration %s", fmt_pre, q);
}

bool kg_credentialprovider_parse_duration(const char *orig, int64_t *out, kg_error *err)
{
    const char *s = orig;
    uint64_t d = 0;
    bool neg = false;
    if (*s == '-' || *s == '+') {
        neg = *s == '-';
        s++;
    }
    if (!strcmp(s, "0")) {
        *out = 0;
        return true;
    }
    if (!*s)
        return dur_err(err, "invalid", NULL, 0, orig);
    const uint64_t limit = UINT64_C(1) << 63;
    while (*s) {
        uint64_t v = 0, f = 0;
        double scale = 1;
        if (!(*s == '.' || (*s >= '0' && *s <= '9')))
            return dur_err(err, "invalid", NULL, 0, orig);
        const char *st = s;
        for (; *s >= '0' && *s <= '9'; s++) {
            if (v > limit / 10)
                return dur_err(err, "invalid", NULL, 0, orig);
            v = v * 10 + (uint64_t)(*s - '0');
            if (v > limit)
                return dur_err(err, "invalid", NULL, 0, orig);
        }
        bool pre = s != st, post = false;
        if (*s == '.') {
            s++;
            const char *fs = s;
            bool overflow = false;
            for (; *s >= '0' && *s <= '9'; s++) {
                if (overflow)
                    continue;
                if (f > (limit - 1) / 10) {
                    overflow = true;
                    continue;
                }
                uint64_t y = f * 10 + (uint64_t)(*s - '0');
                if (y > limit) {
                    overflow = true;
                    continue;
                }
                f = y;
                scale *= 10;
            }
            post = s != fs;
        }
        if (!pre && !post)
            return dur_err(err, "invalid", NULL, 0, orig);
        const char *us = s;
        while (*s && *s != '.' && !(*s >= '0' && *s <= '9'))
            s++;
        size_t un = (size_t)(s - us);
        if (un == 0)
            return dur_err(err, "missing unit in", NULL, 0, orig);
        uint64_t unit;
        if (un == 2 && !memcmp(us, "ns", 2))
            unit = 1;
        else if ((un == 2 && !memcmp(us, "us", 2)) || (un == 3 && !memcmp(us, "\xc2\xb5s", 3)) ||
                 (un == 3 && !memcmp(us, "\xce\xbcs", 3)))
            unit = 1000;
        else if (un == 2 && !memcmp(us, "ms", 2))
            unit = 1000000;
        else if (un == 1 && *us == 's')
            unit = 1000000000;
        else if (un == 1 && *us == 'm')
            unit = UINT64_C(60) * 1000000000;
        else if (un == 1 && *us == 'h')
            unit = UINT64_C(3600) * 1000000000;
        else
            return dur_err(err, NULL, us, un, orig);
        if (v > limit / unit)
            return dur_err(err, "invalid", NULL, 0, orig);
        v *= unit;
        if (f > 0) {
            v += (uint64_t)((double)f * ((double)unit / scale));
            if (v > limit)
                return dur_err(err, "invalid", NULL, 0, orig);
        }
        d += v;
        if (d > limit)
            return dur_err(err, "invalid", NULL, 0, orig);
    }
    if (neg) {
        *out = d == limit ? INT64_MIN : -(int64_t)d;
        return true;
    }
    if (d > limit - 1)
        return dur_err(err, "invalid", NULL, 0, orig);
    *out = (int64_t)d;
    return true;
}

/* Writes v's fraction of prec digits (trailing zeros dropped) into buf ending at w; returns the new w. */
static int fmt_frac(char *buf, int w, uint64_t *v, int prec)
{
    bool print = false;
    for (int i = 0; i < prec; i++) {
        int digit = (int)(*v % 10);
        print = print || digit != 0;
        if (print)
            buf[--w] = (char)('0' + digit);
        *v /= 10;
    }
    if (print)
        buf[--w] = '.';
    return w;
}

static int fmt_int(char *buf, int w, uint64_t v)
{
    if (v == 0)
        buf[--w] = '0';
    while (v > 0) {
        buf[--w] = (char)('0' + v % 10);
        v /= 10;
    }
    return w;
}

char *kg_credentialprovider_format_duration(kg_arena *a, int64_t d)
{
    char buf[40];
    int w = (int)sizeof buf;
    uint64_t u = (uint64_t)d;
    bool neg = d < 0;
    if (neg)
        u = -u;
    if (u < 1000000000) {
        int prec;
        buf[--w] = 's';
        w--;
        if (u == 0) {
            buf[w] = '0';
            return kg_arena_strndup(a, buf + w, sizeof buf - (size_t)w);
        } else if (u < 1000) {
            prec = 0;
            buf[w] = 'n';
        } else if (u < 1000000) {
            prec = 3;
            w--;
            memcpy(buf + w, "\xc2\xb5", 2);
        } else {
            prec = 6;
            buf[w] = 'm';
        }
        w = fmt_frac(buf, w, &u, prec);
        w = fmt_int(buf, w, u);
    } else {
        buf[--w] = 's';
        w = fmt_frac(buf, w, &u, 9);
        w = fmt_int(buf, w, u % 60);
        u /= 60;
        if (u > 0) {
            buf[--w] = 'm';
            w = fmt_int(buf, w, u % 60);
            u /= 60;
            if (u > 0) {
                buf[--w] = 'h';
                w = fmt_int(buf, w, u);
            }
        }
    }
    if (neg)
        buf[--w] = '-';
    return kg_arena_strndup(a, buf + w, sizeof buf - (size_t)w);
}

/* ---------------------------------------------------------------- net/url subset */

enum { ENC_PATH, ENC_HOST, ENC_USER, ENC_FRAGMENT };

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
    return c - 'A' + 10;
}
static bool isalnum_ascii(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Go's shouldEscape(c, encodeHost) as bitmaps of the allowed ASCII characters (alphanumerics and
 * !$&'()*+,;=:[]<>\"-_.~) (bytes >= 0x80 are allowed). */
static inline bool host_char_bad(unsigned char c)
{
    static const uint64_t ok_lo = UINT64_C(9223231118977794048), ok_hi = UINT64_C(5188146765093666814);
    if (c >= 0x80)
        return false;
    return c < 64 ? !((ok_lo >> c) & 1) : !((ok_hi >> (c - 64)) & 1);
}

/* url.unescape: on success returns the decoded string (arena); on failure sets msg (Go's error text). */
static char *url_unescape(kg_arena *a, const char *s, size_t n, int mode, char *msg, size_t msgsz)
{
    bool any_escape = false;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '%') {
            if (i + 2 >= n || !ishex(s[i + 1]) || !ishex(s[i + 2])) {
                size_t k = n - i > 3 ? 3 : n - i;
                char q[32];
                snprintf(msg, msgsz, "invalid URL escape %s", quote_tmp(q, sizeof q, s + i, k));
                return NULL;
            }
            if (mode == ENC_HOST && unhex(s[i + 1]) < 8 && memcmp(s + i, "%25", 3) != 0) {
                char q[32];
                snprintf(msg, msgsz, "invalid URL escape %s", quote_tmp(q, sizeof q, s + i, 3));
                return NULL;
            }
            i += 3;
            any_escape = true;
        } else {
            if (mode == ENC_HOST && host_char_bad(c)) {
                char q[32];
                snprintf(msg, msgsz, "invalid character %s in host name", quote_tmp(q, sizeof q, s + i, 1));
                return NULL;
            }
            i++;
        }
    }
    if (!any_escape)
        return kg_arena_strndup(a, s, n);
    char *out = kg_arena_alloc(a, n + 1);
    size_t j = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] == '%') {
            out[j++] = (char)(unhex(s[i + 1]) << 4 | unhex(s[i + 2]));
            i += 3;
        } else {
            out[j++] = s[i++];
        }
    }
    out[j] = 0;
    return out;
}

static const char *mem_rchr(const char *s, size_t n, char c)
{
    for (size_t i = n; i > 0; i--)
        if (s[i - 1] == c)
            return s + i - 1;
    return NULL;
}

static char *parse_host(kg_arena *a, const char *h, size_t n, char *msg, size_t msgsz)
{
    size_t bad = 0;
    switch (kg_url_check_host_port(h, n, &bad)) {
    case KG_HOSTPORT_MISSING_BRACKET: snprintf(msg, msgsz, "missing ']' in host"); return NULL;
    case KG_HOSTPORT_INVALID_PORT: {
        char q[300];
        snprintf(msg, msgsz, "invalid port %s after host", quote_tmp(q, sizeof q, h + bad, n - bad));
        return NULL;
    }
    case KG_HOSTPORT_OK: break;
    }
    return url_unescape(a, h, n, ENC_HOST, msg, msgsz);
}

static bool valid_userinfo(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (isalnum_ascii(c))
            continue;
        if (!strchr("-._:~!$&'()*+,;=%@", c) || c == 0)
            return false;
    }
    return true;
}

/* Go url.Parse for an absolute URL with an authority. msg gets the inner error; the caller wraps it. */
static bool url_fail(kg_error *err, const char *pfx, const char *s, size_t n, const char *msg)
{
    if (!err)
        return false;
    kg_buf b = KG_BUF_INIT, raw = KG_BUF_INIT;
    kg_buf_puts(&raw, pfx);
    kg_buf_append(&raw, s, n);
    go_quote(&b, raw.data, raw.len);
    kg_err_set(err, KG_EINVAL, "parse %s: %s", kg_buf_cstr(&b), msg);
    kg_buf_free(&b);
    kg_buf_free(&raw);
    return false;
}

/* Go url.Parse(pfx + s) for a URL with an authority; pfx is "https://" (ParseSchemelessURL) or "" (s has its own
 * scheme). Errors read like Go's: `parse "<url>": <reason>`. */
static bool go_url_parse(kg_arena *a, const char *pfx, const char *s, kg_cred_url *out, kg_error *err)
{
    char msg[600];
    size_t sn = strlen(s);
    const char *hash = memchr(s, '#', sn);
    size_t un = hash ? (size_t)(hash - s) : sn;
    for (size_t i = 0; i < un; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            return url_fail(err, pfx, s, un, "net/url: invalid control character in URL");
    }
    const char *rest = s;
    size_t rn = un;
    bool authority = true;
    if (!*pfx) {
        const char *colon = memchr(s, ':', un);
        if (!colon)
            return url_fail(err, pfx, s, un, "missing protocol scheme");
        rest = colon + 1;
        rn = un - (size_t)(rest - s);
        authority = rn >= 2 && rest[0] == '/' && rest[1] == '/';
        if (authority) {
            rest += 2;
            rn -= 2;
        }
    }
    const char *q = memchr(rest, '?', rn);
    if (q)
        rn = (size_t)(q - rest);
    const char *path = rest, *host = "";
    size_t pn = rn;
    if (authority) {
        size_t an = rn;
        const char *sl = memchr(rest, '/', an);
        path = rest + rn;
        pn = 0;
        if (sl) {
            path = sl;
            pn = an - (size_t)(sl - rest);
            an = (size_t)(sl - rest);
        }
        const char *at = mem_rchr(rest, an, '@');
        if (at) {
            size_t ui = (size_t)(at - rest);
            host = parse_host(a, at + 1, an - ui - 1, msg, sizeof msg);
            if (!host)
                return url_fail(err, pfx, s, un, msg);
            if (!valid_userinfo(rest, ui))
                return url_fail(err, pfx, s, un, "net/url: invalid userinfo");
            if (!url_unescape(a, rest, ui, ENC_USER, msg, sizeof msg))
                return url_fail(err, pfx, s, un, msg);
        } else {
            host = parse_host(a, rest, an, msg, sizeof msg);
            if (!host)
                return url_fail(err, pfx, s, un, msg);
        }
    }
    const char *p = url_unescape(a, path, pn, ENC_PATH, msg, sizeof msg);
    if (!p)
        return url_fail(err, pfx, s, un, msg);
    if (hash && !url_unescape(a, hash + 1, sn - un - 1, ENC_FRAGMENT, msg, sizeof msg))
        return url_fail(err, pfx, s, sn, msg);
    out->host = host;
    out->path = p;
    return true;
}

bool kg_credentialprovider_parse_schemeless_url(kg_arena *a, const char *s, kg_cred_url *out, kg_error *err)
{
    return go_url_parse(a, "https://", s, out, err);
}

bool kg_credentialprovider_parse_url(kg_arena *a, const char *s, kg_cred_url *out, kg_error *err)
{
    return go_url_parse(a, "", s, out, err);
}

/* ---------------------------------------------------------------- path/filepath.Match */

static int utf8_decode(const char *s, size_t n, int *len)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n == 0) {
        *len = 0;
        return -1;
    }
    if (u[0] < 0x80) {
        *len = 1;
        return u[0];
    }
    int need, cp;
    if ((u[0] & 0xe0) == 0xc0) {
        need = 1;
        cp = u[0] & 0x1f;
    } else if ((u[0] & 0xf0) == 0xe0) {
        need = 2;
        cp = u[0] & 0x0f;
    } else if ((u[0] & 0xf8) == 0xf0) {
        need = 3;
        cp = u[0] & 0x07;
    } else {
        *len = 1;
        return 0xfffd;
    }
    if ((size_t)need >= n) {
        *len = 1;
        return 0xfffd;
    }
    for (int i = 1; i <= need; i++) {
        if ((u[i] & 0xc0) != 0x80) {
            *len = 1;
            return 0xfffd;
        }
        cp = cp << 6 | (u[i] & 0x3f);
    }
    *len = need + 1;
    return cp;
}

typedef struct gstr {
    const char *p;
    size_t n;
} gstr;

static void scan_chunk(gstr *pattern, bool *star, gstr *chunk)
{
    *star = false;
    while (pattern->n > 0 && pattern->p[0] == '*') {
        pattern->p++;
        pattern->n--;
        *star = true;
    }
    bool inrange = false;
    size_t i;
    for (i = 0; i < pattern->n; i++) {
        char c = pattern->p[i];
        if (c == '\\') {
            if (i + 1 < pattern->n)
                i++;
        } else if (c == '[') {
            inrange = true;
        } else if (c == ']') {
            inrange = false;
        } else if (c == '*' && !inrange) {
            break;
        }
    }
    chunk->p = pattern->p;
    chunk->n = i;
    pattern->p += i;
    pattern->n -= i;
}

/* getEsc: returns false on ErrBadPattern. */
static bool get_esc(gstr *chunk, int *r)
{
    if (chunk->n == 0 || chunk->p[0] == '-' || chunk->p[0] == ']')
        return false;
    if (chunk->p[0] == '\\') {
        chunk->p++;
        chunk->n--;
        if (chunk->n == 0)
            return false;
    }
    int len;
    *r = utf8_decode(chunk->p, chunk->n, &len);
    bool bad = *r == 0xfffd && len == 1;
    chunk->p += len;
    chunk->n -= (size_t)len;
    if (chunk->n == 0)
        bad = true;
    return !bad;
}

/* matchChunk: returns 1 ok (rest in *s), 0 no match, -1 bad pattern. */
static int match_chunk(gstr chunk, gstr *s)
{
    bool failed = false;
    while (chunk.n > 0) {
        if (!failed && s->n == 0)
            failed = true;
        char c = chunk.p[0];
        if (c == '[') {
            int r = 0;
            if (!failed) {
                int len;
                r = utf8_decode(s->p, s->n, &len);
                s->p += len;
                s->n -= (size_t)len;
            }
            chunk.p++;
            chunk.n--;
            bool negated = false;
            if (chunk.n > 0 && chunk.p[0] == '^') {
                negated = true;
                chunk.p++;
                chunk.n--;
            }
            bool match = false;
            int nrange = 0;
            for (;;) {
                if (chunk.n > 0 && chunk.p[0] == ']' && nrange > 0) {
                    chunk.p++;
                    chunk.n--;
                    break;
                }
                int lo, hi;
                if (!get_esc(&chunk, &lo))
                    return -1;
                hi = lo;
                if (chunk.p[0] == '-') {
                    chunk.p++;
                    chunk.n--;
                    if (!get_esc(&chunk, &hi))
                        return -1;
                }
                if (lo <= r && r <= hi)
                    match = true;
                nrange++;
            }
            if (match == negated)
                failed = true;
        } else if (c == '?') {
            if (!failed) {
                if (s->p[0] == '/')
                    failed = true;
                int len;
                utf8_decode(s->p, s->n, &len);
                s->p += len;
                s->n -= (size_t)len;
            }
            chunk.p++;
            chunk.n--;
        } else {
            if (c == '\\') {
                chunk.p++;
                chunk.n--;
                if (chunk.n == 0)
                    return -1;
            }
            if (!failed) {
                if (chunk.p[0] != s->p[0])
                    failed = true;
                s->p++;
                s->n--;
            }
            chunk.p++;
            chunk.n--;
        }
    }
    return failed ? 0 : 1;
}

static bool glob_match_n(gstr pattern, gstr name, bool *bad)
{
    if (bad)
        *bad = false;
    while (pattern.n > 0) {
        bool star;
        gstr chunk;
        scan_chunk(&pattern, &star, &chunk);
        if (star && chunk.n == 0)
            return memchr(name.p, '/', name.n) == NULL;
        gstr t = name;
        int r = match_chunk(chunk, &t);
        if (r == 1 && (t.n == 0 || pattern.n > 0)) {
            name = t;
            continue;
        }
        if (r < 0) {
            if (bad)
                *bad = true;
            return false;
        }
        if (star) {
            bool cont = false;
            for (size_t i = 0; i < name.n && name.p[i] != '/'; i++) {
                gstr t2 = {name.p + i + 1, name.n - i - 1};
                int r2 = match_chunk(chunk, &t2);
                if (r2 == 1) {
                    if (pattern.n == 0 && t2.n > 0)
                        continue;
                    name = t2;
                    cont = true;
                    break;
                }
                if (r2 < 0) {
                    if (bad)
                        *bad = true;
                    return false;
                }
            }
            if (cont)
                continue;
        }
        while (pattern.n > 0) {
            scan_chunk(&pattern, &star, &chunk);
            gstr empty = {"", 0};
            if (match_chunk(chunk, &empty) < 0) {
                if (bad)
                    *bad = true;
                return false;
            }
        }
        return false;
    }
    return name.n == 0;
}

bool kg_credentialprovider_glob_match(const char *pat, const char *nm, bool *bad)
{
    return glob_match_n((gstr){pat, strlen(pat)}, (gstr){nm, strlen(nm)}, bad);
}

/* ---------------------------------------------------------------- URLsMatchStr */

/* net.SplitHostPort; false on error. */
static bool split_host_port(const char *hp, gstr *host, gstr *port)
{
    return kg_net_split_host_port(hp, strlen(hp), &host->p, &host->n, &port->p, &port->n);
}

static size_t count_labels(gstr h)
{
    size_t c = 1;
    for (size_t i = 0; i < h.n; i++)
        c += h.p[i] == '.';
    return c;
}

static bool urls_match(const kg_cred_url *g, const kg_cred_url *t)
{
    gstr gh, gp, th, tp;
    if (!split_host_port(g->host, &gh, &gp)) {
        gh = (gstr){g->host, strlen(g->host)};
        gp = (gstr){"", 0};
    }
    if (!split_host_port(t->host, &th, &tp)) {
        th = (gstr){t->host, strlen(t->host)};
        tp = (gstr){"", 0};
    }
    if (gp.n != tp.n || memcmp(gp.p, tp.p, gp.n) != 0)
        return false;
    if (count_labels(gh) != count_labels(th))
        return false;
    if (strncmp(t->path, g->path, strlen(g->path)) != 0)
        return false;
    const char *gs = gh.p, *ge = gh.p + gh.n, *ts = th.p, *te = th.p + th.n;
    while (true) {
        const char *gd = memchr(gs, '.', (size_t)(ge - gs));
        const char *td = memchr(ts, '.', (size_t)(te - ts));
        const char *gl_end = gd ? gd : ge, *tl_end = td ? td : te;
        if (!glob_match_n((gstr){gs, (size_t)(gl_end - gs)}, (gstr){ts, (size_t)(tl_end - ts)}, NULL))
            return false;
        if (!gd)
            break;
        gs = gd + 1;
        ts = td + 1;
    }
    return true;
}

bool kg_credentialprovider_urls_match_a(kg_arena *a, const char *glob, const char *target)
{
    kg_cred_url g, t;
    return kg_credentialprovider_parse_schemeless_url(a, glob, &g, NULL) &&
           kg_credentialprovider_parse_schemeless_url(a, target, &t, NULL) && urls_match(&g, &t);
}

bool kg_credentialprovider_urls_match(const char *glob, const char *target)
{
    kg_arena a;
    kg_arena_init(&a, 1024);
    bool ok = kg_credentialprovider_urls_match_a(&a, glob, target);
    kg_arena_free(&a);
    return ok;
}

/* ---------------------------------------------------------------- docker reference normalisation */

static bool is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* pathComponent = [a-z0-9]+ (([._]|__|[-]+)[a-z0-9]+)* */
static bool valid_path_component(const char *s, size_t n)
{
    size_t i = 0;
    if (n == 0 || !is_lower_alnum(s[0]))
        return false;
    while (i < n) {
        while (i < n && is_lower_alnum(s[i]))
            i++;
        if (i == n)
            return true;
        size_t sep = i;
        if (s[i] == '.')
            i++;
        else if (s[i] == '_') {
            i++;
            if (i < n && s[i] == '_')
                i++;
        } else if (s[i] == '-') {
            while (i < n && s[i] == '-')
                i++;
        } else
            return false;
        if (i == sep || i == n || !is_lower_alnum(s[i]))
            return false;
    }
    return true;
}

static bool is_alnum_mixed(char c)
{
    return isalnum_ascii((unsigned char)c);
}

/* domainAndPort = (domainName | \[[a-fA-F0-9:]+\]) (:[0-9]+)? */
static bool valid_domain(const char *s, size_t n)
{
    size_t i = 0;
    if (n == 0)
        return false;
    if (s[0] == '[') {
        i = 1;
        while (i < n && (ishex(s[i]) || s[i] == ':'))
            i++;
        if (i == 1 || i >= n || s[i] != ']')
            return false;
        i++;
    } else {
        for (;;) {
            size_t st = i;
            while (i < n && (is_alnum_mixed(s[i]) || s[i] == '-'))
                i++;
            if (i == st || !is_alnum_mixed(s[st]) || !is_alnum_mixed(s[i - 1]))
                return false;
            if (i < n && s[i] == '.') {
                i++;
                continue;
            }
            break;
        }
    }
    if (i == n)
        return true;
    if (s[i] != ':' || i + 1 == n)
        return false;
    for (i++; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static bool valid_tag(const char *s, size_t n)
{
    if (n == 0 || n > 128)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool w = is_alnum_mixed(c) || c == '_';
        if (!(w || (i > 0 && (c == '.' || c == '-'))))
            return false;
    }
    return true;
}

static bool valid_digest(const char *s, size_t n)
{
    const char *col = memchr(s, ':', n);
    if (!col)
        return false;
    size_t an = (size_t)(col - s);
    if (an == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return false;
    for (size_t i = 0; i < an; i++) {
        char c = s[i];
        if (is_alnum_mixed(c))
            continue;
        if ((c == '-' || c == '_' || c == '+' || c == '.') && i + 1 < an &&
            ((s[i + 1] >= 'a' && s[i + 1] <= 'z') || (s[i + 1] >= 'A' && s[i + 1] <= 'Z')))
            continue;
        return false;
    }
    size_t hn = n - an - 1;
    if (hn < 32)
        return false;
    for (size_t i = an + 1; i < n; i++)
        if (!ishex(s[i]))
            return false;
    return true;
}

char *kg_credentialprovider_normalize_image(kg_arena *a, const char *s, kg_error *err)
{
    size_t n = strlen(s);
    if (n == 64) {
        bool allhex = true;
        for (size_t i = 0; i < n; i++)
            allhex = allhex && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'));
        if (allhex)
            return kg_err_set(err, KG_EINVAL,
                              "invalid repository name (%s), cannot specify 64-byte hexadecimal strings", s),
                   NULL;
    }
    if (n == 0)
        return kg_err_set(err, KG_EINVAL, "repository name must have at least one component"), NULL;
    /* splitDockerDomain */
    const char *domain, *remainder;
    size_t dn;
    const char *sl = strchr(s, '/');
    bool hub;
    if (!sl) {
        hub = true;
    } else {
        size_t fn = (size_t)(sl - s);
        bool has_dot_colon = memchr(s, '.', fn) || memchr(s, ':', fn);
        bool is_localhost = fn == 9 && !memcmp(s, "localhost", 9);
        bool lower = true;
        for (size_t i = 0; i < fn; i++)
            lower = lower && !(s[i] >= 'A' && s[i] <= 'Z');
        hub = !has_dot_colon && !is_localhost && lower;
    }
    if (hub) {
        domain = "docker.io";
        dn = 9;
        remainder = s;
    } else {
        domain = s;
        dn = (size_t)(sl - s);
        remainder = sl + 1;
        if (dn == 15 && !memcmp(s, "index.docker.io", 15)) {
            domain = "docker.io";
            dn = 9;
        }
    }
    const char *rem = remainder;
    if (dn == 9 && !memcmp(domain, "docker.io", 9) && !strchr(remainder, '/'))
        rem = kg_arena_sprintf(a, "library/%s", remainder);
    /* remoteName = remainder up to the first ':' must be lowercase */
    size_t rn = strcspn(rem, ":");
    for (size_t i = 0; i < rn; i++)
        if (rem[i] >= 'A' && rem[i] <= 'Z')
            return kg_err_set(err, KG_EINVAL, "invalid reference format: repository name (%.*s) must be lowercase",
                              (int)rn, rem),
                   NULL;
    /* split name[:tag][@digest] */
    size_t remn = strlen(rem);
    const char *at = memchr(rem, '@', remn);
    size_t namen = at ? (size_t)(at - rem) : remn;
    if (at && !valid_digest(at + 1, remn - namen - 1))
        return kg_err_set(err, KG_EINVAL, "invalid reference format"), NULL;
    const char *lastsl = mem_rchr(rem, namen, '/');
    const char *tagc = mem_rchr(rem, namen, ':');
    if (tagc && (!lastsl || tagc > lastsl)) {
        if (!valid_tag(tagc + 1, namen - (size_t)(tagc + 1 - rem)))
            return kg_err_set(err, KG_EINVAL, "invalid reference format"), NULL;
        namen = (size_t)(tagc - rem);
    }
    if (!valid_domain(domain, dn))
        return kg_err_set(err, KG_EINVAL, "invalid reference format"), NULL;
    for (size_t i = 0; i <= namen;) {
        const char *e = memchr(rem + i, '/', namen - i);
        size_t cn = e ? (size_t)(e - rem) - i : namen - i;
        if (!valid_path_component(rem + i, cn))
            return kg_err_set(err, KG_EINVAL, "invalid reference format"), NULL;
        i += cn + 1;
        if (!e)
            break;
    }
    if (dn + 1 + namen > 255)
        return kg_err_set(err, KG_EINVAL, "repository name must not be more than 255 characters"), NULL;
    return kg_arena_sprintf(a, "%.*s/%.*s", (int)dn, domain, (int)namen, rem);
}
