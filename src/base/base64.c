/* Base64 encoder and decoder; the strictness modes are described in base64.h. */
#include "base/base64.h"

#include <stdint.h>

static const char std_tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char url_tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

size_t kg_base64_encoded_len(size_t n, unsigned flags)
{
    if (flags & KG_BASE64_RAW)
        return n / 3 * 4 + (n % 3 ? n % 3 + 1 : 0);
    return (n + 2) / 3 * 4;
}

size_t kg_base64_encode_to(char *out, const void *p, size_t n, unsigned flags)
{
    const unsigned char *s = p;
    const char *tab = flags & KG_BASE64_URL ? url_tab : std_tab;
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
        out[o++] = tab[v >> 18];
        out[o++] = tab[v >> 12 & 63];
        out[o++] = tab[v >> 6 & 63];
        out[o++] = tab[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)s[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)s[i + 1] << 8;
        out[o++] = tab[v >> 18];
        out[o++] = tab[v >> 12 & 63];
        if (i + 1 < n)
            out[o++] = tab[v >> 6 & 63];
        if (!(flags & KG_BASE64_RAW)) {
            if (i + 1 >= n)
                out[o++] = '=';
            out[o++] = '=';
        }
    }
    out[o] = 0;
    return o;
}

void kg_base64_encode_buf(kg_buf *b, const void *p, size_t n, unsigned flags)
{
    size_t len = kg_base64_encoded_len(n, flags);
    kg_buf_reserve(b, len + 1);
    b->len += kg_base64_encode_to(b->data + b->len, p, n, flags);
}

char *kg_base64_encode(kg_arena *a, const void *p, size_t n, unsigned flags, size_t *len)
{
    char *out = kg_arena_alloc(a, kg_base64_encoded_len(n, flags) + 1);
    size_t l = kg_base64_encode_to(out, p, n, flags);
    if (len)
        *len = l;
    return out;
}

static int digit(unsigned char c, unsigned flags)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    bool url = flags & (KG_BASE64_URL | KG_BASE64_BOTH_ALPHABETS);
    bool std = !(flags & KG_BASE64_URL) || (flags & KG_BASE64_BOTH_ALPHABETS);
    if ((c == '+' && std) || (c == '-' && url))
        return 62;
    if ((c == '/' && std) || (c == '_' && url))
        return 63;
    return -1;
}

static bool skipped(unsigned char c, unsigned flags)
{
    if (c == '\r' || c == '\n')
        return flags & (KG_BASE64_SKIP_CRLF | KG_BASE64_SKIP_SPACE);
    if (c == ' ' || c == '\t')
        return flags & KG_BASE64_SKIP_SPACE;
    return false;
}

/* The one decoding loop; out may be NULL (validation only). */
static bool decode(const char *s, size_t n, unsigned flags, unsigned char *out, size_t *out_len, size_t *err_pos)
{
    uint32_t acc = 0;
    int bits = 0;
    size_t o = 0, ndata = 0, npad = 0, bad = n;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (skipped(c, flags))
            continue;
        if (c == '=') {
            if (flags & KG_BASE64_IGNORE_PAD)
                continue;
            if (flags & KG_BASE64_RAW) {
                bad = i;
                goto fail;
            }
            npad++;
            continue;
        }
        int v = digit(c, flags);
        if (v < 0 || npad) { /* not in the alphabet, or data after padding */
            bad = i;
            goto fail;
        }
        ndata++;
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (out)
                out[o] = (unsigned char)(acc >> bits & 0xff);
            o++;
        }
    }
    if (flags & KG_BASE64_RAW) {
        if (ndata % 4 == 1)
            goto fail;
    } else if (!(flags & (KG_BASE64_PAD_OPTIONAL | KG_BASE64_IGNORE_PAD))) {
        /* padding required: groups of 4, the last one "xx==" or "xxx=" */
        size_t rem = ndata % 4;
        if (rem == 1 || (rem == 0 && npad) || (rem && rem + npad != 4))
            goto fail;
    }
    if (out)
        out[o] = 0;
    if (out_len)
        *out_len = o;
    return true;
fail:
    if (err_pos)
        *err_pos = bad;
    return false;
}

bool kg_base64_decode_to(const char *s, size_t n, unsigned flags, void *out, size_t *out_len, size_t *err_pos)
{
    return decode(s, n, flags, out, out_len, err_pos);
}

char *kg_base64_decode(kg_arena *a, const char *s, size_t n, unsigned flags, size_t *out_len, size_t *err_pos)
{
    unsigned char *out = kg_arena_alloc(a, kg_base64_decoded_cap(n));
    return decode(s, n, flags, out, out_len, err_pos) ? (char *)out : NULL;
}

bool kg_base64_valid(const char *s, size_t n, unsigned flags)
{
    return decode(s, n, flags, NULL, NULL, NULL);
}
