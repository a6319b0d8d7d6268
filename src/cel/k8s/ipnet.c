#include "cel/k8s/ipnet.h"

#include <stdio.h>
#include <string.h>

#include "cel/k8s/k8s_util.h"

/* parseAddrError.Error(): ParseAddr(%q): msg [(at %q)] */
static bool addr_err(kg_arena *a, const char **err, const char *in, size_t n, const char *msg, const char *at,
                     size_t atn)
{
    if (!err)
        return false;
    char *qin = cel_k8s_goquote(a, in, n);
    if (at)
        return cel_k8s_fail(a, err, "ParseAddr(%s): %s (at %s)", qin, msg, cel_k8s_goquote(a, at, atn));
    return cel_k8s_fail(a, err, "ParseAddr(%s): %s", qin, msg);
}

static bool parse_v4_fields(kg_arena *a, const char *in, size_t inlen, size_t off, size_t end, uint8_t *fields,
                            const char **err)
{
    const char *s = in + off;
    size_t n = end - off;
    int val = 0, pos = 0, diglen = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            if (diglen == 1 && val == 0)
                return addr_err(a, err, in, inlen, "IPv4 field has octet with leading zero", NULL, 0);
            val = val * 10 + (c - '0');
            diglen++;
            if (val > 255)
                return addr_err(a, err, in, inlen, "IPv4 field has value >255", NULL, 0);
        } else if (c == '.') {
            if (i == 0 || i == n - 1 || s[i - 1] == '.')
                return addr_err(a, err, in, inlen, "IPv4 field must have at least one digit", s + i, n - i);
            if (pos == 3)
                return addr_err(a, err, in, inlen, "IPv4 address too long", NULL, 0);
            fields[pos++] = (uint8_t)val;
            val = 0;
            diglen = 0;
        } else {
            return addr_err(a, err, in, inlen, "unexpected character", s + i, n - i);
        }
    }
    if (pos < 3)
        return addr_err(a, err, in, inlen, "IPv4 address too short", NULL, 0);
    fields[3] = (uint8_t)val;
    return true;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool parse_v6(kg_arena *a, const char *in, size_t inlen, cel_k8s_ip *out, bool *zone, const char **err)
{
    const char *s = in;
    size_t n = inlen;
    size_t zonelen = 0;
    bool has_zone = false;
    const char *pct = memchr(in, '%', inlen);
    if (pct) {
        n = (size_t)(pct - in);
        zonelen = inlen - n - 1;
        if (zonelen == 0)
            return addr_err(a, err, in, inlen, "zone must be a non-empty string", NULL, 0);
        has_zone = true;
    }
    uint8_t ip[16] = {0};
    int ellipsis = -1;
    if (n >= 2 && s[0] == ':' && s[1] == ':') {
        ellipsis = 0;
        s += 2;
        n -= 2;
        if (n == 0) {
            out->family = 6;
            memset(out->b, 0, 16);
            if (zone)
                *zone = has_zone;
            return true;
        }
    }
    int i = 0;
    while (i < 16) {
        size_t off = 0;
        uint32_t acc = 0;
        for (; off < n; off++) {
            int h = hexval(s[off]);
            if (h < 0)
                break;
            acc = (acc << 4) + (uint32_t)h;
            if (off > 3)
                return addr_err(a, err, in, inlen, "each colon-separated field must have at most 4 hex digits", s, n);
            if (acc > 0xFFFF)
                return addr_err(a, err, in, inlen, "IPv6 field has value >=2^16", s, n);
        }
        if (off == 0)
            return addr_err(a, err, in, inlen, "each colon-separated field must have at least one digit", s, n);
        if (off < n && s[off] == '.') {
            if (ellipsis < 0 && i != 12)
                return addr_err(a, err, in, inlen,
                                "embedded IPv4 address must replace the final 2 fields of the address", s, n);
            if (i + 4 > 16)
                return addr_err(a, err, in, inlen,
                                "too many hex fields to fit an embedded IPv4 at the end of the address", s, n);
            size_t end = inlen;
            if (has_zone)
                end -= zonelen + 1;
            if (!parse_v4_fields(a, in, inlen, end - n, end, ip + i, err))
                return false;
            n = 0;
            i += 4;
            break;
        }
        ip[i] = (uint8_t)(acc >> 8);
        ip[i + 1] = (uint8_t)acc;
        i += 2;
        s += off;
        n -= off;
        if (n == 0)
            break;
        if (s[0] != ':')
            return addr_err(a, err, in, inlen, "unexpected character, want colon", s, n);
        if (n == 1)
            return addr_err(a, err, in, inlen, "colon must be followed by more characters", s, n);
        s++;
        n--;
        if (s[0] == ':') {
            if (ellipsis >= 0)
                return addr_err(a, err, in, inlen, "multiple :: in address", s, n);
            ellipsis = i;
            s++;
            n--;
            if (n == 0)
                break;
        }
    }
    if (n != 0)
        return addr_err(a, err, in, inlen, "trailing garbage after address", s, n);
    if (i < 16) {
        if (ellipsis < 0)
            return addr_err(a, err, in, inlen, "address string too short", NULL, 0);
        int k = 16 - i;
        for (int j = i - 1; j >= ellipsis; j--)
            ip[j + k] = ip[j];
        memset(ip + ellipsis, 0, (size_t)k);
    } else if (ellipsis >= 0) {
        return addr_err(a, err, in, inlen, "the :: must expand to at least one field of zeros", s, n);
    }
    out->family = 6;
    memcpy(out->b, ip, 16);
    if (zone)
        *zone = has_zone;
    return true;
}

static bool is_4in6(const cel_k8s_ip *ip)
{
    static const uint8_t pfx[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return ip->family == 6 && memcmp(ip->b, pfx, 12) == 0;
}

bool cel_k8s_netip_parse_addr(kg_arena *a, const char *s, size_t n, cel_k8s_ip *out, bool *zone, bool *is4in6,
                              const char **err)
{
    if (zone)
        *zone = false;
    if (is4in6)
        *is4in6 = false;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '.':
            if (!parse_v4_fields(a, s, n, 0, n, out->b, err))
                return false;
            out->family = 4;
            return true;
        case ':':
            if (!parse_v6(a, s, n, out, zone, err))
                return false;
            if (is4in6)
                *is4in6 = is_4in6(out);
            return true;
        case '%': return addr_err(a, err, s, n, "missing IPv6 address", NULL, 0);
        default: break;
        }
    }
    return addr_err(a, err, s, n, "unable to parse IP", NULL, 0);
}

static bool prefix_err(kg_arena *a, const char **err, const char *in, size_t n, const char *msg)
{
    if (!err)
        return false;
    return cel_k8s_fail(a, err, "netip.ParsePrefix(%s): %s", cel_k8s_goquote(a, in, n), msg);
}

bool cel_k8s_netip_parse_prefix(kg_arena *a, const char *s, size_t n, cel_k8s_cidr *out, bool *is4in6, const char **err)
{
    if (is4in6)
        *is4in6 = false;
    size_t slash = n;
    for (size_t i = n; i-- > 0;)
        if (s[i] == '/') {
            slash = i;
            break;
        }
    if (slash == n)
        return prefix_err(a, err, s, n, "no '/'");
    bool zone = false;
    const char *aerr = NULL;
    if (!cel_k8s_netip_parse_addr(a, s, slash, &out->ip, &zone, is4in6, err ? &aerr : NULL))
        return prefix_err(a, err, s, n, aerr ? aerr : "");
    if (zone)
        return prefix_err(a, err, s, n, "IPv6 zones cannot be present in a prefix");
    const char *b = s + slash + 1;
    size_t bn = n - slash - 1;
    bool bad = bn == 0 || (bn > 1 && (b[0] < '1' || b[0] > '9'));
    uint64_t bits = 0;
    if (!bad) {
        size_t i = 0;
        if (b[0] == '+' || b[0] == '-')
            bad = true; /* only reachable for bn == 1 */
        for (; !bad && i < bn; i++) {
            if (b[i] < '0' || b[i] > '9') {
                bad = true;
                break;
            }
            if (bits > (UINT64_C(9223372036854775807) - (uint64_t)(b[i] - '0')) / 10) {
                bad = true; /* strconv.Atoi range error */
                break;
            }
            bits = bits * 10 + (uint64_t)(b[i] - '0');
        }
    }
    if (bad) {
        if (!err)
            return false;
        char *q = cel_k8s_goquote(a, b, bn);
        return cel_k8s_fail(a, err, "netip.ParsePrefix(%s): bad bits after slash: %s", cel_k8s_goquote(a, s, n), q);
    }
    int maxbits = out->ip.family == 6 ? 128 : 32;
    if (bits > (uint64_t)maxbits)
        return prefix_err(a, err, s, n, "prefix length out of range");
    out->bits = (int)bits;
    return true;
}

bool cel_k8s_ip_parse(kg_arena *a, const char *s, size_t n, cel_k8s_ip *out, const char **err)
{
    bool zone, m;
    const char *e = NULL;
    if (!cel_k8s_netip_parse_addr(a, s, n, out, &zone, &m, err ? &e : NULL)) {
        if (!err)
            return false;
        return cel_k8s_fail(a, err, "IP Address %s parse error during conversion from string: %s",
                            cel_k8s_goquote(a, s, n), e);
    }
    if (zone) {
        if (!err)
            return false;
        return cel_k8s_fail(a, err, "IP address %s with zone value is not allowed", cel_k8s_goquote(a, s, n));
    }
    if (m) {
        if (!err)
            return false;
        return cel_k8s_fail(a, err, "IPv4-mapped IPv6 address %s is not allowed", cel_k8s_goquote(a, s, n));
    }
    return true;
}

bool cel_k8s_cidr_parse(kg_arena *a, const char *s, size_t n, cel_k8s_cidr *out, const char **err)
{
    bool m;
    const char *e = NULL;
    if (!cel_k8s_netip_parse_prefix(a, s, n, out, &m, err ? &e : NULL)) {
        if (!err)
            return false;
        return cel_k8s_fail(a, err,
                            "network address parse error during conversion from string: network address parse "
                            "error during conversion from string: %s",
                            e);
    }
    if (m) {
        if (!err)
            return false;
        return cel_k8s_fail(a, err,
                            "network address parse error during conversion from string: IPv4-mapped IPv6 address %s "
                            "is not allowed",
                            cel_k8s_goquote(a, s, n));
    }
    return true;
}

size_t cel_k8s_ip_format(const cel_k8s_ip *ip, char *buf)
{
    if (ip->family == 4)
        return (size_t)sprintf(buf, "%u.%u.%u.%u", ip->b[0], ip->b[1], ip->b[2], ip->b[3]);
    uint16_t g[8];
    for (int i = 0; i < 8; i++)
        g[i] = (uint16_t)(ip->b[2 * i] << 8 | ip->b[2 * i + 1]);
    if (is_4in6(ip))
        return (size_t)sprintf(buf, "::ffff:%u.%u.%u.%u", ip->b[12], ip->b[13], ip->b[14], ip->b[15]);
    int zs = -1, zl = 0;
    for (int i = 0; i < 8;) {
        if (g[i] != 0) {
            i++;
            continue;
        }
        int j = i;
        while (j < 8 && g[j] == 0)
            j++;
        if (j - i > zl && j - i >= 2) {
            zs = i;
            zl = j - i;
        }
        i = j;
    }
    char *p = buf;
    for (int i = 0; i < 8; i++) {
        if (i == zs) {
            *p++ = ':';
            *p++ = ':';
            i += zl - 1;
            continue;
        }
        if (i > 0 && i != zs + zl)
            *p++ = ':';
        p += sprintf(p, "%x", g[i]);
    }
    *p = '\0';
    return (size_t)(p - buf);
}

size_t cel_k8s_cidr_format(const cel_k8s_cidr *c, char *buf)
{
    size_t n = cel_k8s_ip_format(&c->ip, buf);
    return n + (size_t)sprintf(buf + n, "/%d", c->bits);
}

bool cel_k8s_ip_equal(const cel_k8s_ip *x, const cel_k8s_ip *y)
{
    return x->family == y->family && memcmp(x->b, y->b, x->family == 4 ? 4 : 16) == 0;
}

bool cel_k8s_cidr_equal(const cel_k8s_cidr *x, const cel_k8s_cidr *y)
{
    return x->bits == y->bits && cel_k8s_ip_equal(&x->ip, &y->ip);
}

bool cel_k8s_ip_is_unspecified(const cel_k8s_ip *ip)
{
    static const uint8_t z[16];
    return memcmp(ip->b, z, ip->family == 4 ? 4 : 16) == 0;
}

bool cel_k8s_ip_is_loopback(const cel_k8s_ip *ip)
{
    if (ip->family == 4)
        return ip->b[0] == 127;
    static const uint8_t one[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return memcmp(ip->b, one, 16) == 0;
}

bool cel_k8s_ip_is_multicast(const cel_k8s_ip *ip)
{
    if (ip->family == 4)
        return (ip->b[0] & 0xF0) == 0xE0;
    return ip->b[0] == 0xFF;
}

bool cel_k8s_ip_is_link_local_multicast(const cel_k8s_ip *ip)
{
    if (ip->family == 4)
        return ip->b[0] == 224 && ip->b[1] == 0 && ip->b[2] == 0;
    return ip->b[0] == 0xFF && ip->b[1] == 0x02;
}

bool cel_k8s_ip_is_link_local_unicast(const cel_k8s_ip *ip)
{
    if (ip->family == 4)
        return ip->b[0] == 169 && ip->b[1] == 254;
    return ip->b[0] == 0xFE && (ip->b[1] & 0xC0) == 0x80;
}

bool cel_k8s_ip_is_global_unicast(const cel_k8s_ip *ip)
{
    if (ip->family == 4) {
        if (cel_k8s_ip_is_unspecified(ip))
            return false;
        if (ip->b[0] == 255 && ip->b[1] == 255 && ip->b[2] == 255 && ip->b[3] == 255)
            return false;
    } else if (cel_k8s_ip_is_unspecified(ip)) {
        return false;
    }
    return !cel_k8s_ip_is_loopback(ip) && !cel_k8s_ip_is_multicast(ip) && !cel_k8s_ip_is_link_local_unicast(ip);
}

bool cel_k8s_ip_is_canonical(kg_arena *a, const char *s, size_t n, bool *out, const char **err)
{
    cel_k8s_ip ip;
    if (!cel_k8s_ip_parse(a, s, n, &ip, err))
        return false;
    char buf[64];
    size_t l = cel_k8s_ip_format(&ip, buf);
    *out = l == n && memcmp(buf, s, n) == 0;
    return true;
}

cel_k8s_cidr cel_k8s_cidr_masked(const cel_k8s_cidr *c)
{
    cel_k8s_cidr m = *c;
    int total = c->ip.family == 4 ? 4 : 16;
    for (int i = 0; i < total; i++) {
        int keep = c->bits - 8 * i;
        if (keep >= 8)
            continue;
        if (keep <= 0)
            m.ip.b[i] = 0;
        else
            m.ip.b[i] &= (uint8_t)(0xFF << (8 - keep));
    }
    return m;
}

bool cel_k8s_cidr_contains_ip(const cel_k8s_cidr *c, const cel_k8s_ip *ip)
{
    if (c->ip.family != ip->family)
        return false;
    cel_k8s_cidr x = {*ip, c->bits};
    cel_k8s_cidr mx = cel_k8s_cidr_masked(&x), mc = cel_k8s_cidr_masked(c);
    return cel_k8s_ip_equal(&mx.ip, &mc.ip);
}

bool cel_k8s_cidr_contains_cidr(const cel_k8s_cidr *c, const cel_k8s_cidr *other)
{
    cel_k8s_cidr m = cel_k8s_cidr_masked(c);
    cel_k8s_cidr f = {other->ip, c->bits};
    /* PrefixFrom on a bit count larger than the family's maximum is invalid (never equal). */
    if (c->bits > (other->ip.family == 4 ? 32 : 128))
        return false;
    return cel_k8s_cidr_equal(&m, &f) && c->bits <= other->bits;
}
