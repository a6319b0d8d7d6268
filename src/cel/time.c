/* Timestamps and durations: RFC 3339 / Go duration parsing and formatting, IANA time zones from the system
 * zoneinfo (TZif), timestamp and duration accessors. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cel/cel_internal.h"

/* ---------------------------------------------------------------- civil dates (Howard Hinnant's algorithms) */

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t yy = (int64_t)yoe + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yy + (*m <= 2);
}

static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

/* ---------------------------------------------------------------- formatting */

void cel_format_timestamp(kg_buf *b, int64_t secs, int32_t nanos)
{
    int64_t days = floordiv(secs, 86400);
    int64_t rem = secs - days * 86400;
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    kg_buf_printf(b, "%04lld-%02u-%02uT%02d:%02d:%02d", (long long)y, m, d, (int)(rem / 3600), (int)(rem / 60 % 60),
                  (int)(rem % 60));
    if (nanos) {
        char f[16];
        snprintf(f, sizeof f, "%09d", nanos);
        int l = 9;
        while (l > 0 && f[l - 1] == '0')
            l--;
        kg_buf_printf(b, ".%.*s", l, f);
    }
    kg_buf_putc(b, 'Z');
}

void cel_format_duration_secs(kg_buf *b, int64_t nanos)
{
    uint64_t a = nanos < 0 ? (uint64_t)0 - (uint64_t)nanos : (uint64_t)nanos;
    if (nanos < 0)
        kg_buf_putc(b, '-');
    kg_buf_printf(b, "%llu", (unsigned long long)(a / 1000000000u));
    uint64_t frac = a % 1000000000u;
    if (frac) {
        char f[16];
        snprintf(f, sizeof f, "%09llu", (unsigned long long)frac);
        int l = 9;
        while (l > 0 && f[l - 1] == '0')
            l--;
        kg_buf_printf(b, ".%.*s", l, f);
    }
    kg_buf_putc(b, 's');
}

/* Go's time.Duration.String() */
void cel_format_duration_go(kg_buf *b, int64_t nanos)
{
    if (nanos == 0) {
        kg_buf_puts(b, "0s");
        return;
    }
    uint64_t u = nanos < 0 ? (uint64_t)0 - (uint64_t)nanos : (uint64_t)nanos;
    if (nanos < 0)
        kg_buf_putc(b, '-');
    if (u < 1000000000u) {
        /* sub-second: ns, µs, ms with fraction */
        const char *unit;
        uint64_t div;
        if (u < 1000) {
            kg_buf_printf(b, "%lluns", (unsigned long long)u);
            return;
        } else if (u < 1000000) {
            unit = "µs";
            div = 1000;
        } else {
            unit = "ms";
            div = 1000000;
        }
        kg_buf_printf(b, "%llu", (unsigned long long)(u / div));
        uint64_t fr = u % div;
        if (fr) {
            char f[16];
            int w = div == 1000 ? 3 : 6;
            snprintf(f, sizeof f, "%0*llu", w, (unsigned long long)fr);
            int l = w;
            while (l > 0 && f[l - 1] == '0')
                l--;
            kg_buf_printf(b, ".%.*s", l, f);
        }
        kg_buf_puts(b, unit);
        return;
    }
    uint64_t secs = u / 1000000000u, frac = u % 1000000000u;
    uint64_t h = secs / 3600, mi = secs / 60 % 60, s = secs % 60;
    if (h)
        kg_buf_printf(b, "%lluh", (unsigned long long)h);
    if (h || mi)
        kg_buf_printf(b, "%llum", (unsigned long long)mi);
    kg_buf_printf(b, "%llu", (unsigned long long)s);
    if (frac) {
        char f[16];
        snprintf(f, sizeof f, "%09llu", (unsigned long long)frac);
        int l = 9;
        while (l > 0 && f[l - 1] == '0')
            l--;
        kg_buf_printf(b, ".%.*s", l, f);
    }
    kg_buf_putc(b, 's');
}

/* ---------------------------------------------------------------- parsing */

bool cel_parse_duration(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) {
        neg = s[i] == '-';
        i++;
    }
    if (i == n)
        return false;
    if (n - i == 1 && s[i] == '0') {
        *out = 0;
        return true;
    }
    uint64_t total = 0;
    while (i < n) {
        uint64_t whole = 0;
        double frac = 0, scale = 1;
        bool digits = false;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (whole > (UINT64_MAX - 9) / 10)
                return false;
            whole = whole * 10 + (uint64_t)(s[i] - '0');
            i++;
            digits = true;
        }
        uint64_t fnum = 0, fden = 1;
        if (i < n && s[i] == '.') {
            i++;
            while (i < n && s[i] >= '0' && s[i] <= '9') {
                if (fden < 1000000000000000000ull) {
                    fnum = fnum * 10 + (uint64_t)(s[i] - '0');
                    fden *= 10;
                }
                i++;
                digits = true;
            }
        }
        (void)frac;
        (void)scale;
        if (!digits)
            return false;
        size_t us = i;
        while (i < n && !(s[i] == '.' || (s[i] >= '0' && s[i] <= '9')))
            i++;
        size_t ul = i - us;
        const char *u = s + us;
        uint64_t mult;
        if (ul == 2 && !memcmp(u, "ns", 2))
            mult = 1;
        else if (ul == 2 && !memcmp(u, "us", 2))
            mult = 1000;
        else if (ul == 3 && !memcmp(u, "\xc2\xb5s", 3))
            mult = 1000;
        else if (ul == 3 && !memcmp(u, "\xce\xbcs", 3))
            mult = 1000;
        else if (ul == 2 && !memcmp(u, "ms", 2))
            mult = 1000000;
        else if (ul == 1 && u[0] == 's')
            mult = 1000000000ull;
        else if (ul == 1 && u[0] == 'm')
            mult = 60000000000ull;
        else if (ul == 1 && u[0] == 'h')
            mult = 3600000000000ull;
        else
            return false;
        uint64_t v;
        if (__builtin_mul_overflow(whole, mult, &v))
            return false;
        if (fnum) {
            double f = (double)fnum * ((double)mult / (double)fden);
            v += (uint64_t)f;
        }
        if (__builtin_add_overflow(total, v, &total))
            return false;
        if (total > (uint64_t)INT64_MAX + (neg ? 1 : 0))
            return false;
    }
    *out = neg ? (int64_t)(0 - total) : (int64_t)total;
    return true;
}

static int dig(const char *s, size_t k)
{
    return (s[k] >= '0' && s[k] <= '9') ? s[k] - '0' : -1;
}
static int num2(const char *s, size_t k)
{
    int a = dig(s, k), b = dig(s, k + 1);
    return a < 0 || b < 0 ? -1 : a * 10 + b;
}

bool cel_parse_timestamp(const char *s, size_t n, int64_t *secs, int32_t *nanos)
{
    if (n < 20)
        return false;
    int y0 = num2(s, 0), y1 = num2(s, 2);
    if (y0 < 0 || y1 < 0 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' ||
        s[16] != ':')
        return false;
    int mo = num2(s, 5), d = num2(s, 8), h = num2(s, 11), mi = num2(s, 14), se = num2(s, 17);
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59)
        return false;
    int y = y0 * 100 + y1;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int md = mdays[mo - 1] + (mo == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
    if (d > md)
        return false;
    size_t i = 19;
    int32_t ns = 0;
    if (i < n && s[i] == '.') {
        i++;
        int cnt = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (cnt < 9) {
                ns = ns * 10 + (s[i] - '0');
                cnt++;
            }
            i++;
        }
        if (cnt == 0)
            return false;
        while (cnt < 9) {
            ns *= 10;
            cnt++;
        }
    }
    int64_t off = 0;
    if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
        i++;
    } else if (i + 6 == n && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':') {
        int oh = num2(s, i + 1), om = num2(s, i + 4);
        if (oh < 0 || om < 0 || oh > 23 || om > 59)
            return false;
        off = (oh * 3600 + om * 60) * (s[i] == '-' ? -1 : 1);
        i += 6;
    } else {
        return false;
    }
    if (i != n)
        return false;
    int64_t t = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se - off;
    if (t < CEL_TS_MIN || t > CEL_TS_MAX)
        return false;
    *secs = t;
    *nanos = ns;
    return true;
}

/* ---------------------------------------------------------------- time zones */

typedef struct tzinfo {
    char name[64];
    size_t ntrans;
    int64_t *trans;
    uint8_t *idx;
    size_t ntypes;
    int32_t *offs;
    int32_t first_off;
} tzinfo;

static pthread_mutex_t tz_mu = PTHREAD_MUTEX_INITIALIZER;
static tzinfo *tz_cache[64];
static size_t tz_n;
/* names that failed to load (ring of 16), so a bad zone name costs no file system access per call */
static char tz_bad[16][64];
static size_t tz_bad_next;

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static int64_t be64(const unsigned char *p)
{
    return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

static tzinfo *tz_load(const char *name)
{
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '/' ||
              *p == '_' || *p == '-' || *p == '+'))
            return NULL;
    if (strstr(name, "..") || name[0] == '/' || strlen(name) >= 60)
        return NULL;
    char path[128];
    snprintf(path, sizeof path, "/usr/share/zoneinfo/%s", name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = malloc(1 << 17);
    size_t len = fread(buf, 1, 1 << 17, f);
    fclose(f);
    tzinfo *tz = NULL;
    if (len < 44 || memcmp(buf, "TZif", 4) != 0)
        goto out;
    const unsigned char *h = buf;
    uint32_t isutc = be32(h + 20), isstd = be32(h + 24), leap = be32(h + 28), timecnt = be32(h + 32),
             typecnt = be32(h + 36), charcnt = be32(h + 40);
    size_t tsz = 4;
    const unsigned char *p = h + 44;
    if (h[4] >= '2') {
        size_t skip = timecnt * 5 + typecnt * 6 + charcnt + leap * 8 + isstd + isutc;
        if (44 + skip + 44 > len)
            goto out;
        h = buf + 44 + skip;
        if (memcmp(h, "TZif", 4) != 0)
            goto out;
        isutc = be32(h + 20);
        isstd = be32(h + 24);
        leap = be32(h + 28);
        timecnt = be32(h + 32);
        typecnt = be32(h + 36);
        charcnt = be32(h + 40);
        tsz = 8;
        p = h + 44;
    }
    if ((size_t)(p - buf) + timecnt * (tsz + 1) + typecnt * 6 > len || typecnt == 0)
        goto out;
    tz = calloc(1, sizeof *tz);
    snprintf(tz->name, sizeof tz->name, "%s", name);
    tz->ntrans = timecnt;
    tz->trans = calloc(timecnt + 1, sizeof(int64_t));
    tz->idx = calloc(timecnt + 1, 1);
    tz->ntypes = typecnt;
    tz->offs = calloc(typecnt, sizeof(int32_t));
    for (size_t i = 0; i < timecnt; i++)
        tz->trans[i] = tsz == 8 ? be64(p + i * 8) : (int64_t)(int32_t)be32(p + i * 4);
    p += timecnt * tsz;
    for (size_t i = 0; i < timecnt; i++)
        tz->idx[i] = p[i] < typecnt ? p[i] : 0;
    p += timecnt;
    tz->first_off = (int32_t)be32(p);
    for (size_t i = 0; i < typecnt; i++) {
        tz->offs[i] = (int32_t)be32(p + i * 6);
        if (i == 0 || !p[i * 6 + 4]) {
            /* first non-DST type is used before the first transition */
        }
    }
    for (size_t i = 0; i < typecnt; i++)
        if (!p[i * 6 + 4]) {
            tz->first_off = tz->offs[i];
            break;
        }
out:
    free(buf);
    return tz;
}

static bool tz_offset(const char *name, size_t n, int64_t t, int32_t *off)
{
    char nm[64];
    if (n == 0 || n >= sizeof nm)
        return false;
    memcpy(nm, name, n);
    nm[n] = 0;
    /* fixed offsets: [+-]HH:MM or HH:MM */
    {
        const char *p = nm;
        int sign = 1;
        if (*p == '+' || *p == '-') {
            sign = *p == '-' ? -1 : 1;
            p++;
        }
        if (strlen(p) == 5 && p[2] == ':' && num2(p, 0) >= 0 && num2(p, 3) >= 0) {
            *off = sign * (num2(p, 0) * 3600 + num2(p, 3) * 60);
            return true;
        }
    }
    if (!strcmp(nm, "UTC") || !strcmp(nm, "Z") || !strcmp(nm, "GMT")) {
        *off = 0;
        return true;
    }
    /* cache hits are lock-free: entries are published with a release store of the count and never change */
    tzinfo *tz = NULL;
    size_t cached = __atomic_load_n(&tz_n, __ATOMIC_ACQUIRE);
    for (size_t i = 0; i < cached; i++)
        if (!strcmp(tz_cache[i]->name, nm)) {
            tz = tz_cache[i];
            break;
        }
    if (tz)
        goto found;
    pthread_mutex_lock(&tz_mu);
    for (size_t i = 0; i < tz_n; i++)
        if (!strcmp(tz_cache[i]->name, nm)) {
            tz = tz_cache[i];
            break;
        }
    if (!tz) {
        for (size_t i = 0; i < 16; i++)
            if (!strcmp(tz_bad[i], nm)) {
                pthread_mutex_unlock(&tz_mu);
                return false;
            }
        tz = tz_load(nm);
        if (!tz) {
            snprintf(tz_bad[tz_bad_next++ % 16], sizeof tz_bad[0], "%s", nm);
            pthread_mutex_unlock(&tz_mu);
            return false;
        }
        if (tz && tz_n < 64) {
            tz_cache[tz_n] = tz;
            __atomic_store_n(&tz_n, tz_n + 1, __ATOMIC_RELEASE);
        } else if (tz) {
            /* cache full: keep using but leak-free */
            int32_t o = tz->first_off;
            size_t lo = 0, hi = tz->ntrans;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (tz->trans[mid] <= t)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo > 0)
                o = tz->offs[tz->idx[lo - 1]];
            free(tz->trans);
            free(tz->idx);
            free(tz->offs);
            free(tz);
            pthread_mutex_unlock(&tz_mu);
            *off = o;
            return true;
        }
    }
    pthread_mutex_unlock(&tz_mu);
found:
    if (!tz)
        return false;
    size_t lo = 0, hi = tz->ntrans;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tz->trans[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    *off = lo > 0 ? tz->offs[tz->idx[lo - 1]] : tz->first_off;
    return true;
}

__attribute__((destructor)) static void tz_cleanup(void)
{
    for (size_t i = 0; i < tz_n; i++) {
        free(tz_cache[i]->trans);
        free(tz_cache[i]->idx);
        free(tz_cache[i]->offs);
        free(tz_cache[i]);
    }
    tz_n = 0;
}

/* ---------------------------------------------------------------- functions */

enum { G_YEAR, G_MONTH, G_DATE, G_DOM, G_DOW, G_DOY, G_HOURS, G_MINUTES, G_SECONDS, G_MILLIS };

static cel_value ts_get(cel_call_ctx *ctx, const cel_value *args, size_t n, int which)
{
    int64_t t = args[0].u.i;
    if (n == 2) {
        int32_t off;
        if (!tz_offset(args[1].u.s, args[1].n, t, &off))
            return cel_err(ctx, "unknown time zone %.*s", (int)args[1].n, args[1].u.s);
        t += off;
    }
    int64_t days = floordiv(t, 86400);
    int64_t rem = t - days * 86400;
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    switch (which) {
    case G_YEAR: return cel_int(y);
    case G_MONTH: return cel_int((int64_t)m - 1);
    case G_DATE: return cel_int(d);
    case G_DOM: return cel_int((int64_t)d - 1);
    case G_DOW: return cel_int(((days % 7) + 7 + 4) % 7);
    case G_DOY: return cel_int(days - days_from_civil(y, 1, 1));
    case G_HOURS: return cel_int(rem / 3600);
    case G_MINUTES: return cel_int(rem / 60 % 60);
    case G_SECONDS: return cel_int(rem % 60);
    default: return cel_int(args[0].n / 1000000);
    }
}

#define TSG(fn, W)                                                                                                     \
    static cel_value fn(cel_call_ctx *ctx, const cel_value *args, size_t n)                                            \
    {                                                                                                                  \
        return ts_get(ctx, args, n, W);                                                                                \
    }
TSG(f_year, G_YEAR)
TSG(f_month, G_MONTH)
TSG(f_date, G_DATE)
TSG(f_dom, G_DOM)
TSG(f_dow, G_DOW)
TSG(f_doy, G_DOY)
TSG(f_hours, G_HOURS)
TSG(f_minutes, G_MINUTES)
TSG(f_seconds, G_SECONDS)
TSG(f_millis, G_MILLIS)

static cel_value d_hours(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)ctx;
    (void)n;
    return cel_int(a[0].u.i / 3600000000000LL);
}
static cel_value d_minutes(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)ctx;
    (void)n;
    return cel_int(a[0].u.i / 60000000000LL);
}
static cel_value d_seconds(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)ctx;
    (void)n;
    return cel_int(a[0].u.i / 1000000000LL);
}
static cel_value d_millis(cel_call_ctx *ctx, const cel_value *a, size_t n)
{
    (void)ctx;
    (void)n;
    return cel_int((a[0].u.i / 1000000LL) % 1000);
}

static cel_value f_timestamp(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    const cel_value *v = &args[0];
    if (v->kind == CEL_TIMESTAMP)
        return *v;
    if (v->kind == CEL_STRING) {
        int64_t s;
        int32_t ns;
        if (!cel_parse_timestamp(v->u.s, v->n, &s, &ns))
            return cel_err(ctx, "type conversion error from 'string' to 'google.protobuf.Timestamp'");
        return cel_timestamp(s, ns);
    }
    if (v->kind == CEL_INT) {
        if (v->u.i < CEL_TS_MIN || v->u.i > CEL_TS_MAX)
            return cel_err(ctx, "timestamp overflow");
        return cel_timestamp(v->u.i, 0);
    }
    return cel_no_overload(ctx, "timestamp", args, n);
}

static cel_value f_duration(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    const cel_value *v = &args[0];
    if (v->kind == CEL_DURATION)
        return *v;
    if (v->kind == CEL_STRING) {
        int64_t d;
        if (!cel_parse_duration(v->u.s, v->n, &d))
            return cel_err(ctx, "type conversion error from 'string' to 'google.protobuf.Duration'");
        return cel_duration(d);
    }
    return cel_no_overload(ctx, "duration", args, n);
}

/* validate constant literals at compile time (Kubernetes ValidateDurationLiterals / ValidateTimestampLiterals) */
static void *prep_ts(cel_prepare_ctx *pc, const cel_value *c, const bool *isc, size_t n, const char **error)
{
    (void)pc;
    if (n == 1 && isc[0] && c[0].kind == CEL_STRING) {
        int64_t s;
        int32_t ns;
        if (!cel_parse_timestamp(c[0].u.s, c[0].n, &s, &ns))
            *error = "timestamp validation failed";
    }
    return NULL;
}
static void *prep_dur(cel_prepare_ctx *pc, const cel_value *c, const bool *isc, size_t n, const char **error)
{
    (void)pc;
    if (n == 1 && isc[0] && c[0].kind == CEL_STRING) {
        int64_t d;
        if (!cel_parse_duration(c[0].u.s, c[0].n, &d))
            *error = "duration validation failed";
    }
    return NULL;
}

void cel_time_register(cel_env *env)
{
    struct {
        const char *name;
        cel_fn fn;
    } g[] = {{"getFullYear", f_year},   {"getMonth", f_month},        {"getDate", f_date},   {"getDayOfMonth", f_dom},
             {"getDayOfWeek", f_dow},   {"getDayOfYear", f_doy},      {"getHours", f_hours}, {"getMinutes", f_minutes},
             {"getSeconds", f_seconds}, {"getMilliseconds", f_millis}};
    for (size_t i = 0; i < sizeof g / sizeof *g; i++) {
        cel_env_builtin(env, g[i].name, 0, CEL_FN_MEMBER, "timestamp -> int", g[i].fn, NULL);
        cel_env_builtin(env, g[i].name, 0, CEL_FN_MEMBER, "timestamp, string -> int", g[i].fn, NULL);
    }
    cel_env_builtin(env, "getHours", 0, CEL_FN_MEMBER, "duration -> int", d_hours, NULL);
    cel_env_builtin(env, "getMinutes", 0, CEL_FN_MEMBER, "duration -> int", d_minutes, NULL);
    cel_env_builtin(env, "getSeconds", 0, CEL_FN_MEMBER, "duration -> int", d_seconds, NULL);
    cel_env_builtin(env, "getMilliseconds", 0, CEL_FN_MEMBER, "duration -> int", d_millis, NULL);
    cel_env_builtin(env, "timestamp", 0, 0, "timestamp -> timestamp", f_timestamp, NULL);
    cel_env_builtin(env, "timestamp", 0, 0, "string -> timestamp", f_timestamp, NULL);
    cel_env_builtin(env, "timestamp", 0, 0, "int -> timestamp", f_timestamp, NULL);
    cel_env_builtin(env, "duration", 0, 0, "duration -> duration", f_duration, NULL);
    cel_env_builtin(env, "duration", 0, 0, "string -> duration", f_duration, NULL);
    cel_func *f = cel_env_func(env, "timestamp");
    cel_func *d = cel_env_func(env, "duration");
    (void)f;
    (void)d;
    (void)prep_ts;
    (void)prep_dur;
}

/* called by cel_env_set_options when literal validation is on */
void cel_time_enable_validation(cel_env *env);
void cel_time_enable_validation(cel_env *env)
{
    cel_func *f = cel_env_func(env, "timestamp");
    for (size_t i = 0; f && i < f->novl; i++)
        if (f->ovls[i].args[0]->kind == CEL_T_STRING)
            f->ovls[i].prepare = prep_ts;
    f = cel_env_func(env, "duration");
    for (size_t i = 0; f && i < f->novl; i++)
        if (f->ovls[i].args[0]->kind == CEL_T_STRING)
            f->ovls[i].prepare = prep_dur;
}
