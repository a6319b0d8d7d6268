#include "cel/k8s/formats.h"

#include <pthread.h>
#include <string.h>

#include "cel/regex/cel_regex.h"

#include "cel/k8s/url.h"
#include "base/base64.h"

#define DNS1123_LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define DNS1123_SUBDOMAIN_FMT DNS1123_LABEL_FMT "(\\." DNS1123_LABEL_FMT ")*"
#define DNS1035_LABEL_FMT "[a-z]([-a-z0-9]*[a-z0-9])?"
#define QUALIFIED_NAME_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define LABEL_VALUE_FMT "(" QUALIFIED_NAME_FMT ")?"

#define DNS1123_LABEL_MSG                                                                                              \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "    \
    "with an alphanumeric character"
#define DNS1123_SUBDOMAIN_MSG                                                                                          \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "         \
    "start and end with an alphanumeric character"
#define DNS1035_LABEL_MSG                                                                                              \
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "            \
    "character, and end with an alphanumeric character"
#define QUALIFIED_NAME_MSG                                                                                             \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "           \
    "character"
#define LABEL_VALUE_MSG                                                                                                \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "          \
    "start and end with an alphanumeric character"

/* validation.RegexError(msg, fmt, examples...) - note upstream's double space before " or ". */
#define REGEX_ERROR2(msg, fmt, e1, e2) msg " (e.g. '" e1 "',  or '" e2 "', regex used for validation is '" fmt "')"
#define REGEX_ERROR1(msg, fmt, e1) msg " (e.g. '" e1 "', regex used for validation is '" fmt "')"
#define REGEX_ERROR3(msg, fmt, e1, e2, e3)                                                                             \
    msg " (e.g. '" e1 "',  or '" e2 "',  or '" e3 "', regex used for validation is '" fmt "')"

static bool lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
static bool alnum(char c)
{
    return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

static bool match_dns1123_label(const char *s, size_t n)
{
    if (n == 0 || !lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

static bool match_dns1123_subdomain(const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            if (!match_dns1123_label(s + start, i - start))
                return false;
            start = i + 1;
        }
    }
    return true;
}

static bool match_dns1035_label(const char *s, size_t n)
{
    if (n == 0 || !(s[0] >= 'a' && s[0] <= 'z'))
        return false;
    return match_dns1123_label(s, n);
}

static bool match_qualified_name(const char *s, size_t n)
{
    if (n == 0 || !alnum(s[0]) || !alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

static const char *max_len_error(kg_arena *a, int n)
{
    return kg_arena_sprintf(a, "must be no more than %d characters", n);
}

size_t cel_k8s_is_dns1123_label(kg_arena *a, const char *s, size_t n, const char **errs)
{
    size_t k = 0;
    if (n > 63)
        errs[k++] = max_len_error(a, 63);
    if (!match_dns1123_label(s, n)) {
        if (match_dns1123_subdomain(s, n))
            errs[k++] = "must not contain dots";
        else
            errs[k++] = REGEX_ERROR2(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc");
    }
    return k;
}

size_t cel_k8s_is_dns1123_subdomain(kg_arena *a, const char *s, size_t n, const char **errs)
{
    size_t k = 0;
    if (n > 253)
        errs[k++] = max_len_error(a, 253);
    if (!match_dns1123_subdomain(s, n))
        errs[k++] = REGEX_ERROR1(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com");
    return k;
}

size_t cel_k8s_is_dns1035_label(kg_arena *a, const char *s, size_t n, const char **errs)
{
    size_t k = 0;
    if (n > 63)
        errs[k++] = max_len_error(a, 63);
    if (!match_dns1035_label(s, n))
        errs[k++] = REGEX_ERROR2(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123");
    return k;
}

size_t cel_k8s_is_qualified_name(kg_arena *a, const char *s, size_t n, const char **errs)
{
    size_t k = 0;
    size_t slashes = 0;
    const char *slash = NULL;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '/') {
            if (!slash)
                slash = s + i;
            slashes++;
        }
    const char *name = s;
    size_t nn = n;
    if (slashes > 1) {
        errs[k++] = "a qualified name " REGEX_ERROR3(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name",
                                                     "123-abc") " with an optional DNS subdomain prefix and '/' "
                                                                "(e.g. 'example.com/MyName')";
        return k;
    }
    if (slashes == 1) {
        size_t pn = (size_t)(slash - s);
        name = slash + 1;
        nn = n - pn - 1;
        if (pn == 0) {
            errs[k++] = "prefix part must be non-empty";
        } else {
            const char *sub[4];
            size_t m = cel_k8s_is_dns1123_subdomain(a, s, pn, sub);
            for (size_t i = 0; i < m; i++)
                errs[k++] = kg_arena_sprintf(a, "prefix part %s", sub[i]);
        }
    }
    if (nn == 0)
        errs[k++] = "name part must be non-empty";
    else if (nn > 63)
        errs[k++] = kg_arena_sprintf(a, "name part %s", max_len_error(a, 63));
    if (!match_qualified_name(name, nn))
        errs[k++] = "name part " REGEX_ERROR3(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc");
    return k;
}

size_t cel_k8s_is_valid_label_value(kg_arena *a, const char *s, size_t n, const char **errs)
{
    size_t k = 0;
    if (n > 63)
        errs[k++] = max_len_error(a, 63);
    if (n != 0 && !match_qualified_name(s, n))
        errs[k++] = REGEX_ERROR3(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345");
    return k;
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
