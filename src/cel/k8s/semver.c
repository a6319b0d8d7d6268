#include "cel/k8s/semver.h"

#include <string.h>

#include "cel/k8s/k8s_util.h"

static bool only_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static bool only_alnum(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'))
            return false;
    }
    return true;
}

static bool leading_zero(const char *s, size_t n)
{
    return n > 1 && s[0] == '0';
}

/* strconv.ParseUint(s, 10, 64) for an all-digit s */
static bool parse_u64(kg_arena *a, const char *s, size_t n, uint64_t *out, const char **err)
{
    if (n == 0)
        return cel_k8s_fail(a, err, "strconv.ParseUint: parsing %s: invalid syntax", cel_k8s_goquote(a, s, n));
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return cel_k8s_fail(a, err, "strconv.ParseUint: parsing %s: value out of range", cel_k8s_goquote(a, s, n));
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

static bool parse_num(kg_arena *a, const char *what, const char *cap, const char *s, size_t n, uint64_t *out,
                      const char **err)
{
    if (!only_digits(s, n))
        return cel_k8s_fail(a, err, "Invalid character(s) found in %s number %s", what, cel_k8s_goquote(a, s, n));
    if (leading_zero(s, n))
        return cel_k8s_fail(a, err, "%s number must not contain leading zeroes %s", cap, cel_k8s_goquote(a, s, n));
    return parse_u64(a, s, n, out, err);
}

static size_t count_parts(const char *s, size_t n)
{
    size_t k = 1;
    for (size_t i = 0; i < n; i++)
        k += s[i] == '.';
    return k;
}

bool cel_k8s_semver_parse(kg_arena *a, const char *s, size_t n, cel_k8s_semver *out, const char **err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return cel_k8s_fail(a, err, "Version string empty");
    const char *d1 = memchr(s, '.', n);
    const char *d2 = d1 ? memchr(d1 + 1, '.', n - (size_t)(d1 + 1 - s)) : NULL;
    if (!d1 || !d2)
        return cel_k8s_fail(a, err, "No Major.Minor.Patch elements found");
    if (!parse_num(a, "major", "Major", s, (size_t)(d1 - s), &out->major, err))
        return false;
    if (!parse_num(a, "minor", "Minor", d1 + 1, (size_t)(d2 - d1 - 1), &out->minor, err))
        return false;
    const char *p = d2 + 1;
    size_t pn = n - (size_t)(p - s);
    const char *build = NULL, *pre = NULL;
    size_t buildn = 0, pren = 0;
    const char *plus = memchr(p, '+', pn);
    if (plus) {
        build = plus + 1;
        buildn = pn - (size_t)(plus + 1 - p);
        pn = (size_t)(plus - p);
    }
    const char *minus = memchr(p, '-', pn);
    if (minus) {
        pre = minus + 1;
        pren = pn - (size_t)(minus + 1 - p);
        pn = (size_t)(minus - p);
    }
    if (!parse_num(a, "patch", "Patch", p, pn, &out->patch, err))
        return false;
    if (pre) {
        size_t k = count_parts(pre, pren);
        cel_k8s_semver_pr *prs = kg_arena_calloc(a, k * sizeof *prs);
        const char *q = pre, *end = pre + pren;
        for (size_t i = 0; i < k; i++) {
            const char *e = memchr(q, '.', (size_t)(end - q));
            if (!e)
                e = end;
            size_t l = (size_t)(e - q);
            if (l == 0)
                return cel_k8s_fail(a, err, "Prerelease is empty");
            if (only_digits(q, l)) {
                if (leading_zero(q, l))
                    return cel_k8s_fail(a, err, "Numeric PreRelease version must not contain leading zeroes %s",
                                        cel_k8s_goquote(a, q, l));
                if (!parse_u64(a, q, l, &prs[i].num, err))
                    return false;
                prs[i].is_num = true;
            } else if (only_alnum(q, l)) {
                prs[i].str = q;
                prs[i].n = l;
            } else {
                return cel_k8s_fail(a, err, "Invalid character(s) found in prerelease %s", cel_k8s_goquote(a, q, l));
            }
            q = e + 1;
        }
        out->pre = prs;
        out->npre = k;
    }
    if (build) {
        size_t k = count_parts(build, buildn);
        const char **bs = kg_arena_calloc(a, k * sizeof *bs);
        const char *q = build, *end = build + buildn;
        for (size_t i = 0; i < k; i++) {
            const char *e = memchr(q, '.', (size_t)(end - q));
            if (!e)
                e = end;
            size_t l = (size_t)(e - q);
            if (l == 0)
                return cel_k8s_fail(a, err, "Build meta data is empty");
            if (!only_alnum(q, l))
                return cel_k8s_fail(a, err, "Invalid character(s) found in build meta data %s",
                                    cel_k8s_goquote(a, q, l));
            bs[i] = kg_arena_strndup(a, q, l);
            q = e + 1;
        }
        out->build = bs;
        out->nbuild = k;
    }
    return true;
}

bool cel_k8s_semver_parse_normalize(kg_arena *a, const char *s, size_t n, cel_k8s_semver *out, const char **err)
{
    if (n > 0 && s[0] == 'v')
        s++, n--;
    /* SplitN(s, ".", 3) */
    const char *parts[3];
    size_t lens[3], np = 0;
    const char *q = s, *end = s + n;
    while (np < 2) {
        const char *e = memchr(q, '.', (size_t)(end - q));
        if (!e)
            break;
        parts[np] = q;
        lens[np++] = (size_t)(e - q);
        q = e + 1;
    }
    parts[np] = q;
    lens[np++] = (size_t)(end - q);
    kg_buf b = KG_BUF_INIT;
    for (size_t i = 0; i < np; i++) {
        const char *p = parts[i];
        size_t l = lens[i];
        if (l > 1) {
            while (l > 0 && p[0] == '0')
                p++, l--;
            if (l == 0 || !(p[0] >= '0' && p[0] <= '9')) {
                if (i)
                    kg_buf_putc(&b, '.');
                kg_buf_putc(&b, '0');
                kg_buf_append(&b, p, l);
                continue;
            }
        }
        if (i)
            kg_buf_putc(&b, '.');
        kg_buf_append(&b, p, l);
    }
    if (np < 3) {
        const char *last = parts[np - 1];
        size_t ll = lens[np - 1];
        if (memchr(last, '+', ll) || memchr(last, '-', ll)) {
            kg_buf_free(&b);
            return cel_k8s_fail(a, err, "short version cannot contain PreRelease/Build meta data");
        }
        for (; np < 3; np++)
            kg_buf_puts(&b, ".0");
    }
    char *norm = kg_arena_strndup(a, kg_buf_cstr(&b), b.len);
    size_t nl = b.len;
    kg_buf_free(&b);
    return cel_k8s_semver_parse(a, norm, nl, out, err);
}

static int cmp_u64(uint64_t x, uint64_t y)
{
    return (x > y) - (x < y);
}

int cel_k8s_semver_compare(const cel_k8s_semver *x, const cel_k8s_semver *y)
{
    int c;
    if ((c = cmp_u64(x->major, y->major)))
        return c;
    if ((c = cmp_u64(x->minor, y->minor)))
        return c;
    if ((c = cmp_u64(x->patch, y->patch)))
        return c;
    if (x->npre == 0 && y->npre == 0)
        return 0;
    if (x->npre == 0)
        return 1;
    if (y->npre == 0)
        return -1;
    size_t i = 0;
    for (; i < x->npre && i < y->npre; i++) {
        const cel_k8s_semver_pr *p = &x->pre[i], *q = &y->pre[i];
        if (p->is_num && q->is_num) {
            c = cmp_u64(p->num, q->num);
        } else if (p->is_num) {
            c = -1;
        } else if (q->is_num) {
            c = 1;
        } else {
            size_t m = p->n < q->n ? p->n : q->n;
            c = memcmp(p->str, q->str, m);
            c = c ? (c > 0 ? 1 : -1) : cmp_u64(p->n, q->n);
        }
        if (c)
            return c;
    }
    if (i == x->npre && i == y->npre)
        return 0;
    return i == x->npre ? -1 : 1;
}
