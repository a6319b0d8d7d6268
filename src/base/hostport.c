/* host[:port] splitting and optional-port validation (Go net/url and net rules; see hostport.h). */
#include "base/hostport.h"

#include <string.h>

static const char *last_index(const char *s, size_t n, char c)
{
    for (size_t i = n; i-- > 0;)
        if (s[i] == c)
            return s + i;
    return NULL;
}

bool kg_valid_optional_port(const char *p, size_t n)
{
    if (n == 0)
        return true;
    if (p[0] != ':')
        return false;
    for (size_t i = 1; i < n; i++)
        if (p[i] < '0' || p[i] > '9')
            return false;
    return true;
}

kg_hostport_err kg_url_check_host_port(const char *h, size_t n, size_t *bad_off)
{
    const char *from;
    if (n > 0 && h[0] == '[') {
        const char *rb = last_index(h, n, ']');
        if (!rb)
            return KG_HOSTPORT_MISSING_BRACKET;
        from = rb + 1;
    } else {
        from = last_index(h, n, ':');
        if (!from)
            return KG_HOSTPORT_OK;
    }
    size_t off = (size_t)(from - h);
    if (kg_valid_optional_port(from, n - off))
        return KG_HOSTPORT_OK;
    *bad_off = off;
    return KG_HOSTPORT_INVALID_PORT;
}

void kg_url_split_host_port(const char *hp, size_t n, const char **host, size_t *hn, const char **port, size_t *pn)
{
    *host = hp;
    *hn = n;
    *port = "";
    *pn = 0;
    const char *c = last_index(hp, n, ':');
    if (c && kg_valid_optional_port(c, n - (size_t)(c - hp))) {
        *hn = (size_t)(c - hp);
        *port = c + 1;
        *pn = n - *hn - 1;
    }
    if (*hn >= 2 && (*host)[0] == '[' && (*host)[*hn - 1] == ']') {
        (*host)++;
        *hn -= 2;
    }
}

bool kg_net_split_host_port(const char *hp, size_t n, const char **host, size_t *hn, const char **port, size_t *pn)
{
    const char *col = last_index(hp, n, ':');
    if (!col)
        return false;
    size_t i = (size_t)(col - hp);
    if (hp[0] == '[') {
        const char *rb = memchr(hp, ']', n);
        if (!rb)
            return false;
        size_t end = (size_t)(rb - hp);
        if (end + 1 == n)
            return false; /* missing port */
        if (end + 1 != i)
            return false; /* too many colons / missing port */
        *host = hp + 1;
        *hn = end - 1;
        if (memchr(hp + 1, '[', i - 1))
            return false;
        if (memchr(hp + end + 1, ']', n - end - 1))
            return false;
    } else {
        *host = hp;
        *hn = i;
        if (memchr(hp, ':', i))
            return false;
        if (memchr(hp, '[', i) || memchr(hp, ']', i))
            return false;
    }
    if (memchr(hp + i + 1, '[', n - i - 1) || memchr(hp + i + 1, ']', n - i - 1))
        return false;
    *port = hp + i + 1;
    *pn = n - i - 1;
    return true;
}
