#include "cel/k8s/formats.h"

#include <pthread.h>
#include <string.h>

#include "cel/regex/cel_regex.h"

#include "cel/k8s/url.h"
#include "base/base64.h"
#include "meta/names.h"

/* The apimachinery validators are meta/names' (one implementation); their messages are static strings. */
static size_t copy_errs(const kg_name_errs *ne, const char **errs)
{
    for (size_t i = 0; i < ne->n; i++)
        errs[i] = ne->msg[i];
    return ne->n;
}

size_t cel_k8s_is_dns1123_label(kg_arena *a, const char *s, size_t n, const char **errs)
{
    kg_name_errs ne;
    kg_is_dns1123_label_n(s, n, &ne);
    return copy_errs(&ne, errs);
}

size_t cel_k8s_is_dns1123_subdomain(kg_arena *a, const char *s, size_t n, const char **errs)
{
    kg_name_errs ne;
    kg_is_dns1123_subdomain_n(s, n, &ne);
    return copy_errs(&ne, errs);
}

size_t cel_k8s_is_dns1035_label(kg_arena *a, const char *s, size_t n, const char **errs)
{
    kg_name_errs ne;
    kg_is_dns1035_label_n(s, n, &ne);
    return copy_errs(&ne, errs);
}

size_t cel_k8s_is_qualified_name(kg_arena *a, const char *s, size_t n, const char **errs)
{
    kg_name_errs ne;
    kg_is_qualified_name_n(s, n, &ne);
    return copy_errs(&ne, errs);
}

size_t cel_k8s_is_valid_label_value(kg_arena *a, const char *s, size_t n, const char **errs)
{
    kg_name_errs ne;
    kg_is_valid_label_value_n(s, n, &ne);
    return copy_errs(&ne, errs);
}

/* apiserver NameIsDNSLabel(name, prefix) etc.: with prefix, a trailing '-' is masked ("abc-" -> "aba"). */
static size_t with_prefix(kg_arena *a, const char *s, size_t n, const char **errs,
                          size_t (*fn)(kg_arena *, const char *, size_t, const char **))
{
    if (n > 1 && s[n - 1] == '-') {
        char *m = kg_arena_strndup(a, s, n);
        m[n - 2] = 'a';
        return fn(a, m, n - 1, errs);
    }
    return fn(a, s, n, errs);
}

static size_t v_label(kg_arena *a, const char *s, size_t n, const char **e)
{
    return cel_k8s_is_dns1123_label(a, s, n, e);
}
static size_t v_sub(kg_arena *a, const char *s, size_t n, const char **e)
{
    return cel_k8s_is_dns1123_subdomain(a, s, n, e);
}
static size_t v_1035(kg_arena *a, const char *s, size_t n, const char **e)
{
    return cel_k8s_is_dns1035_label(a, s, n, e);
}
static size_t v_label_p(kg_arena *a, const char *s, size_t n, const char **e)
{
    return with_prefix(a, s, n, e, cel_k8s_is_dns1123_label);
}
static size_t v_sub_p(kg_arena *a, const char *s, size_t n, const char **e)
{
    return with_prefix(a, s, n, e, cel_k8s_is_dns1123_subdomain);
}
static size_t v_1035_p(kg_arena *a, const char *s, size_t n, const char **e)
{
    return with_prefix(a, s, n, e, cel_k8s_is_dns1035_label);
}

static size_t v_uri(kg_arena *a, const char *s, size_t n, const char **e)
{
    cel_k8s_url u;
    const char *err = NULL;
    if (cel_k8s_url_parse_request_uri(a, s, n, &u, &err))
        return 0;
    e[0] = err;
    return 1;
}

static bool hexc(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* kube-openapi strfmt UUIDPattern: (?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$ */
static size_t v_uuid(kg_arena *a, const char *s, size_t n, const char **e)
{
    static const int groups[5] = {8, 4, 4, 4, 12};
    size_t i = 0;
    bool ok = true;
    for (int g = 0; g < 5 && ok; g++) {
        if (g > 0 && i < n && s[i] == '-')
            i++;
        for (int j = 0; j < groups[g]; j++, i++)
            if (i >= n || !hexc(s[i])) {
                ok = false;
                break;
            }
    }
    if (ok && i == n)
        return 0;
    e[0] = "does not match the UUID format";
    return 1;
}

static size_t v_byte(kg_arena *a, const char *s, size_t n, const char **e)
{
    /* base64.StdEncoding.DecodeString succeeds (CR/LF ignored, padding required) */
    if (kg_base64_valid(s, n, KG_BASE64_SKIP_CRLF))
        return 0;
    e[0] = "invalid base64";
    return 1;
}

static bool digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static int num(const char *s, size_t n)
{
    int v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

/* time.Parse("2006-01-02", s) */
static bool is_date(const char *s, size_t n)
{
    if (n != 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4) || !digits(s + 5, 2) || !digits(s + 8, 2))
        return false;
    int y = num(s, 4), m = num(s + 5, 2), d = num(s + 8, 2);
    if (m < 1 || m > 12 || d < 1)
        return false;
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int md = mdays[m - 1];
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
        md = 29;
    return d <= md;
}

static size_t v_date(kg_arena *a, const char *s, size_t n, const char **e)
{
    if (is_date(s, n))
        return 0;
    e[0] = "invalid date";
    return 1;
}

/* strfmt IsDateTime: split lower(s) on 't'; date part; the time part must match DateTimePattern
 * ^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$ with hh<=23, mm<=59, ss<=59. */
#define DATETIME_PATTERN "^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$"
static cel_regex *g_datetime_re;
static pthread_once_t g_datetime_once = PTHREAD_ONCE_INIT;
static void datetime_re_init(void)
{
    g_datetime_re = cel_regex_compile(DATETIME_PATTERN, strlen(DATETIME_PATTERN), 0, 0, NULL, 0);
}

static bool is_datetime(kg_arena *a, const char *s, size_t n)
{
    if (n < 4)
        return false;
    size_t t1 = n, t2 = n;
    for (size_t i = 0; i < n; i++)
        if (s[i] == 't' || s[i] == 'T') {
            if (t1 == n) {
                t1 = i;
            } else {
                t2 = i;
                break;
            }
        }
    if (t1 == n || !is_date(s, t1))
        return false;
    size_t tn = t2 - t1 - 1;
    char *t = kg_arena_strndup(a, s + t1 + 1, tn);
    for (size_t i = 0; i < tn; i++)
        if (t[i] >= 'A' && t[i] <= 'Z')
            t[i] = (char)(t[i] - 'A' + 'a');
    pthread_once(&g_datetime_once, datetime_re_init);
    if (!g_datetime_re || !cel_regex_partial_match(g_datetime_re, t, tn))
        return false;
    return memcmp(t, "23", 2) <= 0 && memcmp(t + 3, "59", 2) <= 0 && memcmp(t + 6, "59", 2) <= 0;
}

static size_t v_datetime(kg_arena *a, const char *s, size_t n, const char **e)
{
    if (is_datetime(a, s, n))
        return 0;
    e[0] = "invalid datetime";
    return 1;
}

static size_t v_qname(kg_arena *a, const char *s, size_t n, const char **e)
{
    return cel_k8s_is_qualified_name(a, s, n, e);
}
static size_t v_lvalue(kg_arena *a, const char *s, size_t n, const char **e)
{
    return cel_k8s_is_valid_label_value(a, s, n, e);
}

const cel_k8s_format cel_k8s_formats[] = {
    {"dns1123Label", "DNS1123Label", 30, v_label},
    {"dns1123Subdomain", "DNS1123Subdomain", 60, v_sub},
    {"dns1035Label", "DNS1035Label", 30, v_1035},
    {"qualifiedName", "QualifiedName", 60, v_qname},
    {"dns1123LabelPrefix", "DNS1123LabelPrefix", 30, v_label_p},
    {"dns1123SubdomainPrefix", "DNS1123SubdomainPrefix", 60, v_sub_p},
    {"dns1035LabelPrefix", "DNS1035LabelPrefix", 30, v_1035_p},
    {"labelValue", "LabelValue", 40, v_lvalue},
    /* MaxRegexSize of uri is len(govalidator.URL); the pattern is ~1,100 characters (approximation). */
    {"uri", "URI", 1100, v_uri},
    {"uuid", "uuid", 70, v_uuid},
    {"byte", "byte", 84, v_byte},
    {"date", "date", 71, v_date},
    {"datetime", "datetime", 71, v_datetime},
};
const size_t cel_k8s_nformats = sizeof cel_k8s_formats / sizeof cel_k8s_formats[0];

const cel_k8s_format *cel_k8s_format_lookup(const char *key, size_t n)
{
    for (size_t i = 0; i < cel_k8s_nformats; i++)
        if (strlen(cel_k8s_formats[i].key) == n && memcmp(cel_k8s_formats[i].key, key, n) == 0)
            return &cel_k8s_formats[i];
    return NULL;
}
