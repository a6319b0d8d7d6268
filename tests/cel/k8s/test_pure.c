/* The pure parts of the Kubernetes CEL libraries, against upstream behaviour (k8s.io/apiserver library tests,
 * apimachinery resource.Quantity, Go net/netip and net/url, blang/semver). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cel/k8s/formats.h"
#include "cel/k8s/ipnet.h"
#include "cel/k8s/quantity.h"
#include "cel/k8s/semver.h"
#include "cel/k8s/url.h"

static kg_arena A;
static int setup(void **s)
{
    (void)s;
    kg_arena_init(&A, 0);
    return 0;
}
static int teardown(void **s)
{
    (void)s;
    kg_arena_free(&A);
    return 0;
}

/* ---------------- quantity ---------------- */

static cel_k8s_quantity q(const char *s)
{
    cel_k8s_quantity r;
    const char *err = NULL;
    if (!cel_k8s_quantity_parse(&A, s, strlen(s), &r, &err))
        fail_msg("quantity(%s): %s", s, err);
    return r;
}

static void q_err(const char *s, const char *want)
{
    cel_k8s_quantity r;
    const char *err = NULL;
    assert_false(cel_k8s_quantity_parse(&A, s, strlen(s), &r, &err));
    assert_string_equal(err, want);
}

static int qcmp(const char *a, const char *b)
{
    cel_k8s_quantity x = q(a), y = q(b);
    return cel_k8s_quantity_cmp(&x, &y);
}

static void test_quantity_parse_errors(void **s)
{
    (void)s;
    q_err("", CEL_K8S_QUANTITY_ERR_FORMAT);
    q_err("200K", CEL_K8S_QUANTITY_ERR_SUFFIX); /* upper-case K is not a suffix */
    q_err("1.5.5", CEL_K8S_QUANTITY_ERR_FORMAT);
    q_err("abc", CEL_K8S_QUANTITY_ERR_FORMAT);
    q_err("1Gb", CEL_K8S_QUANTITY_ERR_FORMAT);
    q_err("1e", CEL_K8S_QUANTITY_ERR_SUFFIX);
    q_err("1Mii", CEL_K8S_QUANTITY_ERR_SUFFIX);
    /* no digits at all: the int64 fast path turns the empty number into 0 ("Ki", "m" parse as zero), but when the
     * precision check sends it to the inf.Dec path, Dec.SetString("") fails ("no digits read") */
    q_err("Pi", CEL_K8S_QUANTITY_ERR_NUMERIC);
    q_err(".E-2323", CEL_K8S_QUANTITY_ERR_NUMERIC);
    assert_int_equal(qcmp("Ki", "0"), 0);
    assert_int_equal(qcmp("m", "0"), 0);
    assert_string_equal(CEL_K8S_QUANTITY_ERR_FORMAT,
                        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    /* valid spellings */
    const char *ok[] = {"0", "1.5G", "200k", "20Mi", "1e3", "1E-3", "+5", "-5m", ".5", "1.", "5e+2", "100n", "1Ei"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        (void)q(ok[i]);
}

static void test_quantity_compare(void **s)
{
    (void)s;
    /* upstream library examples */
    assert_int_equal(qcmp("200M", "0.2G"), 0);
    assert_int_equal(qcmp("50M", "50Mi"), -1);
    assert_int_equal(qcmp("50Mi", "50M"), 1);
    assert_int_equal(qcmp("150Mi", "100Mi"), 1);
    assert_int_equal(qcmp("50M", "100M"), -1);
    assert_int_equal(qcmp("1", "1000m"), 0);
    assert_int_equal(qcmp("1Ki", "1024"), 0);
    assert_int_equal(qcmp("1e3", "1k"), 0);
    assert_int_equal(qcmp("-1", "1"), -1);
    assert_int_equal(qcmp("0.1n", "1n"), 0);                                    /* rounded up to the nano */
    assert_int_equal(qcmp("-0.1n", "-1n"), 0);                                  /* away from zero */
    assert_int_equal(qcmp("10Ei", "9223372036854775807"), 0);                   /* BinarySI is capped at int64 max */
    assert_int_equal(qcmp("12345678901234567890", "12345678901234567891"), -1); /* big decimal path */
    cel_k8s_quantity z = q("0"), m = q("-5m");
    assert_int_equal(cel_k8s_quantity_sign(&z), 0);
    assert_int_equal(cel_k8s_quantity_sign(&m), -1);
}

static void test_quantity_arith(void **s)
{
    (void)s;
    cel_k8s_quantity r, a = q("50k"), b = q("20k");
    assert_true(cel_k8s_quantity_add(&A, &a, &b, &r));
    cel_k8s_quantity want = q("70k");
    assert_int_equal(cel_k8s_quantity_cmp(&r, &want), 0);
    cel_k8s_quantity i20 = cel_k8s_quantity_from_int(20);
    assert_true(cel_k8s_quantity_add(&A, &a, &i20, &r));
    want = q("50020");
    assert_int_equal(cel_k8s_quantity_cmp(&r, &want), 0);
    assert_true(cel_k8s_quantity_sub(&A, &a, &b, &r));
    want = q("30k");
    assert_int_equal(cel_k8s_quantity_cmp(&r, &want), 0);
    /* quantity("50k").add(20).sub(quantity("100k")).sub(-50000) == quantity("20") */
    cel_k8s_quantity t, h = q("100k"), n = cel_k8s_quantity_from_int(-50000);
    assert_true(cel_k8s_quantity_add(&A, &a, &i20, &t));
    assert_true(cel_k8s_quantity_sub(&A, &t, &h, &t));
    assert_true(cel_k8s_quantity_sub(&A, &t, &n, &t));
    want = q("20");
    assert_int_equal(cel_k8s_quantity_cmp(&t, &want), 0);
    /* int64 overflow falls back to exact decimals */
    cel_k8s_quantity big = q("9223372036854775807"), one = q("1");
    assert_true(cel_k8s_quantity_add(&A, &big, &one, &r));
    want = q("9223372036854775808");
    assert_int_equal(cel_k8s_quantity_cmp(&r, &want), 0);
    int64_t v;
    assert_false(cel_k8s_quantity_as_int64(&r, &v));
    /* mixed scales: 1.5 + 250m = 1750m */
    cel_k8s_quantity x = q("1.5"), y = q("250m");
    assert_true(cel_k8s_quantity_add(&A, &x, &y, &r));
    want = q("1750m");
    assert_int_equal(cel_k8s_quantity_cmp(&r, &want), 0);
    /* negative results through the decimal path */
    cel_k8s_quantity d1 = q("1.5Gi"), d2 = q("2Gi");
    assert_true(cel_k8s_quantity_sub(&A, &d1, &d2, &r));
    want = q("-512Mi");
    assert_int_equal(cel_k8s_quantity_cmp(&r, &want), 0);
}

static void test_quantity_integer_float(void **s)
{
    (void)s;
    int64_t v = 0;
    cel_k8s_quantity a = q("50703");
    assert_true(cel_k8s_quantity_as_int64(&a, &v));
    assert_int_equal(v, 50703);
    a = q("50.703k"); /* int64Amount{50703, 0} */
    assert_true(cel_k8s_quantity_as_int64(&a, &v));
    assert_int_equal(v, 50703);
    a = q("1k"); /* int64Amount{1, 3} scales up */
    assert_true(cel_k8s_quantity_as_int64(&a, &v));
    assert_int_equal(v, 1000);
    a = q("1.5");
    assert_false(cel_k8s_quantity_as_int64(&a, &v));
    a = q("1000m"); /* int64Amount{1000, -3}: AsInt64 refuses negative scales, as upstream */
    assert_false(cel_k8s_quantity_as_int64(&a, &v));
    a = q("1Gi"); /* BinarySI fast path: int64Amount{2^30, 0} */
    assert_true(cel_k8s_quantity_as_int64(&a, &v));
    assert_int_equal(v, INT64_C(1073741824));
    a = q("1Ei"); /* too little "precision" for the fast path: inf.Dec form, so not an int64 upstream either */
    assert_false(cel_k8s_quantity_as_int64(&a, &v));
    a = q("1.5Gi"); /* inf.Dec form */
    assert_false(cel_k8s_quantity_as_int64(&a, &v));
    assert_true(cel_k8s_quantity_as_approximate_float(&a) == 1610612736.0);
    a = q("50k");
    assert_true(cel_k8s_quantity_as_approximate_float(&a) == 50000.0);
    a = q("500m");
    assert_true(cel_k8s_quantity_as_approximate_float(&a) == 0.5);
    a = q("-1.25");
    assert_true(cel_k8s_quantity_as_approximate_float(&a) == -1.25);
    assert_true(cel_k8s_go_pow10(-9) == 1e-9);
    assert_true(cel_k8s_go_pow10(22) == 1e22);
}

/* ---------------- ip / cidr ---------------- */

static void ip_err(const char *s, const char *want)
{
    cel_k8s_ip ip;
    const char *err = NULL;
    assert_false(cel_k8s_ip_parse(&A, s, strlen(s), &ip, &err));
    assert_string_equal(err, want);
}

static const char *ip_str(const char *s)
{
    cel_k8s_ip ip;
    const char *err = NULL;
    if (!cel_k8s_ip_parse(&A, s, strlen(s), &ip, &err))
        fail_msg("ip(%s): %s", s, err);
    static char buf[64];
    cel_k8s_ip_format(&ip, buf);
    return buf;
}

static cel_k8s_ip ip(const char *s)
{
    cel_k8s_ip r;
    assert_true(cel_k8s_ip_parse(&A, s, strlen(s), &r, NULL));
    return r;
}

static void test_ip(void **s)
{
    (void)s;
    ip_err("192.168.0.1.0", "IP Address \"192.168.0.1.0\" parse error during conversion from string: "
                            "ParseAddr(\"192.168.0.1.0\"): IPv4 address too long");
    ip_err("2001:db8:::68", "IP Address \"2001:db8:::68\" parse error during conversion from string: "
                            "ParseAddr(\"2001:db8:::68\"): each colon-separated field must have at least one digit "
                            "(at \":68\")");
    ip_err("1.2.3", "IP Address \"1.2.3\" parse error during conversion from string: ParseAddr(\"1.2.3\"): IPv4 "
                    "address too short");
    ip_err("192.168.01.1", "IP Address \"192.168.01.1\" parse error during conversion from string: "
                           "ParseAddr(\"192.168.01.1\"): IPv4 field has octet with leading zero");
    ip_err("256.0.0.1", "IP Address \"256.0.0.1\" parse error during conversion from string: "
                        "ParseAddr(\"256.0.0.1\"): IPv4 field has value >255");
    ip_err("1.2.3.x", "IP Address \"1.2.3.x\" parse error during conversion from string: ParseAddr(\"1.2.3.x\"): "
                      "unexpected character (at \"x\")");
    ip_err("foo", "IP Address \"foo\" parse error during conversion from string: ParseAddr(\"foo\"): unable to "
                  "parse IP");
    ip_err("", "IP Address \"\" parse error during conversion from string: ParseAddr(\"\"): unable to parse IP");
    ip_err("fe80::1%en0", "IP address \"fe80::1%en0\" with zone value is not allowed");
    ip_err("::ffff:1.2.3.4", "IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed");
    ip_err("1:2:3:4:5:6:7:8:9", "IP Address \"1:2:3:4:5:6:7:8:9\" parse error during conversion from string: "
                                "ParseAddr(\"1:2:3:4:5:6:7:8:9\"): trailing garbage after address (at \"9\")");
    ip_err("1::2::3", "IP Address \"1::2::3\" parse error during conversion from string: ParseAddr(\"1::2::3\"): "
                      "multiple :: in address (at \":3\")");
    ip_err("12345::", "IP Address \"12345::\" parse error during conversion from string: ParseAddr(\"12345::\"): "
                      "each colon-separated field must have at most 4 hex digits (at \"12345::\")");
    ip_err("1:2", "IP Address \"1:2\" parse error during conversion from string: ParseAddr(\"1:2\"): address "
                  "string too short");

    assert_string_equal(ip_str("192.168.0.1"), "192.168.0.1");
    assert_string_equal(ip_str("2001:DB8::68"), "2001:db8::68");
    assert_string_equal(ip_str("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
    assert_string_equal(ip_str("0:0:0:0:0:0:0:1"), "::1");
    assert_string_equal(ip_str("::"), "::");
    assert_string_equal(ip_str("1:0:0:0:0:0:0:0"), "1::");
    assert_string_equal(ip_str("1:2:3:4:5:6:7:0"), "1:2:3:4:5:6:7:0");
    assert_string_equal(ip_str("::1.2.3.4"), "::102:304");

    bool canon;
    assert_true(cel_k8s_ip_is_canonical(&A, "2001:db8::68", 12, &canon, NULL) && canon);
    assert_true(cel_k8s_ip_is_canonical(&A, "2001:DB8::68", 12, &canon, NULL) && !canon);
    assert_true(cel_k8s_ip_is_canonical(&A, "127.0.0.1", 9, &canon, NULL) && canon);

    cel_k8s_ip x;
    x = ip("0.0.0.0"), assert_true(cel_k8s_ip_is_unspecified(&x));
    x = ip("127.0.0.1"), assert_false(cel_k8s_ip_is_unspecified(&x)), assert_true(cel_k8s_ip_is_loopback(&x));
    x = ip("1.2.3.4"), assert_false(cel_k8s_ip_is_loopback(&x));
    x = ip("224.0.0.1"), assert_true(cel_k8s_ip_is_link_local_multicast(&x));
    x = ip("224.0.1.1"), assert_false(cel_k8s_ip_is_link_local_multicast(&x));
    x = ip("169.254.169.254"), assert_true(cel_k8s_ip_is_link_local_unicast(&x));
    x = ip("192.168.0.1"), assert_false(cel_k8s_ip_is_link_local_unicast(&x)),
    assert_true(cel_k8s_ip_is_global_unicast(&x));
    x = ip("255.255.255.255"), assert_false(cel_k8s_ip_is_global_unicast(&x));
    x = ip("::"), assert_true(cel_k8s_ip_is_unspecified(&x));
    x = ip("::1"), assert_true(cel_k8s_ip_is_loopback(&x)), assert_false(cel_k8s_ip_is_unspecified(&x));
    x = ip("2001:db8::abcd"), assert_false(cel_k8s_ip_is_loopback(&x)), assert_true(cel_k8s_ip_is_global_unicast(&x));
    x = ip("ff02::1"), assert_true(cel_k8s_ip_is_link_local_multicast(&x));
    x = ip("fd00::1"), assert_false(cel_k8s_ip_is_link_local_multicast(&x));
    x = ip("fe80::1"), assert_true(cel_k8s_ip_is_link_local_unicast(&x));
    x = ip("fd80::1"), assert_false(cel_k8s_ip_is_link_local_unicast(&x));
    x = ip("ff00::1"), assert_false(cel_k8s_ip_is_global_unicast(&x));
    assert_int_equal(ip("192.168.0.1").family, 4);
    assert_int_equal(ip("2001:db8::68").family, 6);
}

static cel_k8s_cidr cidr(const char *s)
{
    cel_k8s_cidr c;
    const char *err = NULL;
    if (!cel_k8s_cidr_parse(&A, s, strlen(s), &c, &err))
        fail_msg("cidr(%s): %s", s, err);
    return c;
}

static void cidr_err(const char *s, const char *want)
{
    cel_k8s_cidr c;
    const char *err = NULL;
    assert_false(cel_k8s_cidr_parse(&A, s, strlen(s), &c, &err));
    assert_string_equal(err, want);
}

static void test_cidr(void **s)
{
    (void)s;
#define PFX                                                                                                            \
    "network address parse error during conversion from string: network address parse error during conversion from "   \
    "string: "
    cidr_err("192.168.0.0/", PFX "netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\"");
    cidr_err("2001:db8::/", PFX "netip.ParsePrefix(\"2001:db8::/\"): bad bits after slash: \"\"");
    cidr_err("192.168.0.0", PFX "netip.ParsePrefix(\"192.168.0.0\"): no '/'");
    cidr_err("192.168.0.0/33", PFX "netip.ParsePrefix(\"192.168.0.0/33\"): prefix length out of range");
    cidr_err("10.0.0.0/08", PFX "netip.ParsePrefix(\"10.0.0.0/08\"): bad bits after slash: \"08\"");
    cidr_err("10.0.0/8", PFX "netip.ParsePrefix(\"10.0.0/8\"): ParseAddr(\"10.0.0\"): IPv4 address too short");
    cidr_err("fe80::%eth0/64", PFX "netip.ParsePrefix(\"fe80::%eth0/64\"): IPv6 zones cannot be present in a prefix");
    cidr_err("::ffff:1.2.3.0/120", "network address parse error during conversion from string: IPv4-mapped IPv6 "
                                   "address \"::ffff:1.2.3.0/120\" is not allowed");
#undef PFX
    cel_k8s_cidr c = cidr("192.168.0.0/24"), d;
    assert_int_equal(c.bits, 24);
    assert_true(cel_k8s_cidr_contains_ip(&c, &(cel_k8s_ip){0}) == false);
    cel_k8s_ip in = ip("192.168.0.1"), out = ip("192.168.1.1"), v6 = ip("::1");
    assert_true(cel_k8s_cidr_contains_ip(&c, &in));
    assert_false(cel_k8s_cidr_contains_ip(&c, &out));
    assert_false(cel_k8s_cidr_contains_ip(&c, &v6));
    d = cidr("192.168.0.0/25"), assert_true(cel_k8s_cidr_contains_cidr(&c, &d));
    d = cidr("192.168.0.0/23"), assert_false(cel_k8s_cidr_contains_cidr(&c, &d));
    c = cidr("2001:db8::/32");
    d = cidr("2001:db8::/33"), assert_true(cel_k8s_cidr_contains_cidr(&c, &d));
    d = cidr("2001:db8::/31"), assert_false(cel_k8s_cidr_contains_cidr(&c, &d));
    in = ip("2001:db8::1"), out = ip("2001:dc8::1");
    assert_true(cel_k8s_cidr_contains_ip(&c, &in));
    assert_false(cel_k8s_cidr_contains_ip(&c, &out));
    /* non-zero host bits are accepted; masked() clears them */
    c = cidr("192.168.0.1/24");
    cel_k8s_cidr m = cel_k8s_cidr_masked(&c);
    char buf[64];
    cel_k8s_cidr_format(&m, buf);
    assert_string_equal(buf, "192.168.0.0/24");
    cel_k8s_cidr_format(&c, buf);
    assert_string_equal(buf, "192.168.0.1/24");
    assert_false(cel_k8s_cidr_equal(&c, &m));
    c = cidr("2001:db8:1::/32"), m = cel_k8s_cidr_masked(&c);
    cel_k8s_cidr_format(&m, buf);
    assert_string_equal(buf, "2001:db8::/32");
    c = cidr("10.0.0.0/0"), m = cel_k8s_cidr_masked(&c);
    cel_k8s_cidr_format(&m, buf);
    assert_string_equal(buf, "0.0.0.0/0");
}

/* ---------------- url ---------------- */

static cel_k8s_url url(const char *s)
{
    cel_k8s_url u;
    const char *err = NULL;
    if (!cel_k8s_url_from_string(&A, s, strlen(s), &u, &err))
        fail_msg("url(%s): %s", s, err);
    return u;
}

static void url_err(const char *s, const char *want)
{
    cel_k8s_url u;
    const char *err = NULL;
    assert_false(cel_k8s_url_from_string(&A, s, strlen(s), &u, &err));
    assert_string_equal(err, want);
}

static void test_url(void **s)
{
    (void)s;
    cel_k8s_url u = url("https://user:pass@example.com:80/path?query=val#fragment");
    assert_string_equal(u.scheme, "https");
    assert_string_equal(u.host, "example.com:80");
    assert_string_equal(cel_k8s_url_hostname(&A, &u), "example.com");
    assert_string_equal(cel_k8s_url_port(&A, &u), "80");
    assert_string_equal(cel_k8s_url_escaped_path(&A, &u), "/path");
    u = url("https://[::1]:80/");
    assert_string_equal(u.host, "[::1]:80");
    assert_string_equal(cel_k8s_url_hostname(&A, &u), "::1");
    assert_string_equal(cel_k8s_url_port(&A, &u), "80");
    u = url("https://[::1]/");
    assert_string_equal(cel_k8s_url_hostname(&A, &u), "::1");
    assert_string_equal(cel_k8s_url_port(&A, &u), "");
    u = url("https://example.com/path with spaces/");
    assert_string_equal(cel_k8s_url_escaped_path(&A, &u), "/path%20with%20spaces/");
    u = url("https://example.com/a%2Fb");
    assert_string_equal(u.path, "/a/b");
    assert_string_equal(cel_k8s_url_escaped_path(&A, &u), "/a%2Fb");
    u = url("/absolute-path");
    assert_string_equal(u.scheme, "");
    assert_string_equal(u.host, "");
    assert_string_equal(cel_k8s_url_escaped_path(&A, &u), "/absolute-path");
    u = url("HTTPS://Example.com/");
    assert_string_equal(u.scheme, "https");
    assert_string_equal(u.host, "Example.com");

    url_err("../relative-path", "URL parse error during conversion from string: parse \"../relative-path\": invalid "
                                "URI for request");
    url_err("", "URL parse error during conversion from string: parse \"\": empty url");
    url_err("https://example.com:port/", "URL parse error during conversion from string: parse "
                                         "\"https://example.com:port/\": invalid port \":port\" after host");
    url_err(":foo", "URL parse error during conversion from string: parse \":foo\": missing protocol scheme");
    url_err("https://exa mple.com/", "URL parse error during conversion from string: parse \"https://exa "
                                     "mple.com/\": invalid character \" \" in host name");
    url_err("https://example.com/%zz", "URL parse error during conversion from string: parse "
                                       "\"https://example.com/%zz\": invalid URL escape \"%zz\"");
    url_err("https://[::1/", "URL parse error during conversion from string: parse \"https://[::1/\": missing "
                             "']' in host");
    url_err("http://a\x01", "URL parse error during conversion from string: parse \"http://a\\x01\": net/url: "
                            "invalid control character in URL");

    cel_k8s_query_entry *qe;
    u = url("https://example.com/path?query=val&query=val2&k=v+w&empty&e=");
    size_t n = cel_k8s_url_query(&A, &u, &qe);
    assert_int_equal(n, 4);
    assert_string_equal(qe[0].key, "query");
    assert_int_equal(qe[0].nvals, 2);
    assert_string_equal(qe[0].vals[1], "val2");
    assert_string_equal(qe[1].key, "k");
    assert_string_equal(qe[1].vals[0], "v w");
    assert_string_equal(qe[2].key, "empty");
    assert_string_equal(qe[2].vals[0], "");
    assert_string_equal(qe[3].key, "e");
    /* isURL is ParseRequestURI only */
    assert_true(cel_k8s_url_parse_request_uri(&A, "https://a/b#c", 13, &u, NULL));
    assert_false(cel_k8s_url_parse_request_uri(&A, "a/b", 3, &u, NULL));
}

/* ---------------- semver ---------------- */

static cel_k8s_semver sv(const char *s, bool norm)
{
    cel_k8s_semver v;
    const char *err = NULL;
    bool ok = norm ? cel_k8s_semver_parse_normalize(&A, s, strlen(s), &v, &err)
                   : cel_k8s_semver_parse(&A, s, strlen(s), &v, &err);
    if (!ok)
        fail_msg("semver(%s): %s", s, err);
    return v;
}

static void sv_err(const char *s, bool norm, const char *want)
{
    cel_k8s_semver v;
    const char *err = NULL;
    bool ok = norm ? cel_k8s_semver_parse_normalize(&A, s, strlen(s), &v, &err)
                   : cel_k8s_semver_parse(&A, s, strlen(s), &v, &err);
    assert_false(ok);
    assert_string_equal(err, want);
}

static void test_semver(void **s)
{
    (void)s;
    cel_k8s_semver v = sv("1.2.3-alpha.1+build.5", false);
    assert_int_equal(v.major, 1);
    assert_int_equal(v.minor, 2);
    assert_int_equal(v.patch, 3);
    assert_int_equal(v.npre, 2);
    assert_int_equal(v.nbuild, 2);
    sv_err("", false, "Version string empty");
    sv_err("1.2", false, "No Major.Minor.Patch elements found");
    sv_err("v1.0.0", false, "Invalid character(s) found in major number \"v1\"");
    sv_err("01.2.3", false, "Major number must not contain leading zeroes \"01\"");
    sv_err("1.02.3", false, "Minor number must not contain leading zeroes \"02\"");
    sv_err("1.2.03", false, "Patch number must not contain leading zeroes \"03\"");
    sv_err("1.2.x", false, "Invalid character(s) found in patch number \"x\"");
    sv_err("1.2.3-", false, "Prerelease is empty");
    sv_err("1.2.3-01", false, "Numeric PreRelease version must not contain leading zeroes \"01\"");
    sv_err("1.2.3-a_b", false, "Invalid character(s) found in prerelease \"a_b\"");
    sv_err("1.2.3+", false, "Build meta data is empty");
    sv_err("1.2.3+a_b", false, "Invalid character(s) found in build meta data \"a_b\"");
    sv_err("1..3", false, "strconv.ParseUint: parsing \"\": invalid syntax");
    sv_err("99999999999999999999.0.0", false,
           "strconv.ParseUint: parsing \"99999999999999999999\": value out of range");
    /* normalization (semver(s, true)) */
    v = sv("v1.2", true);
    assert_int_equal(v.major, 1);
    assert_int_equal(v.minor, 2);
    assert_int_equal(v.patch, 0);
    v = sv("v01.02.03", true);
    assert_int_equal(v.major, 1);
    assert_int_equal(v.minor, 2);
    assert_int_equal(v.patch, 3);
    v = sv("1", true);
    assert_int_equal(v.major, 1);
    assert_int_equal(v.minor, 0);
    sv_err("1.2-alpha", true, "short version cannot contain PreRelease/Build meta data");
    sv_err("v1.2", false, "No Major.Minor.Patch elements found");
    /* SemVer 2.0.0 precedence */
    const char *order[] = {"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta",
                           "1.0.0-beta",  "1.0.0-beta.2",  "1.0.0-beta.11",
                           "1.0.0-rc.1",  "1.0.0",         "1.0.1",
                           "1.1.0",       "2.0.0"};
    for (size_t i = 0; i + 1 < sizeof order / sizeof order[0]; i++) {
        cel_k8s_semver a = sv(order[i], false), b = sv(order[i + 1], false);
        assert_int_equal(cel_k8s_semver_compare(&a, &b), -1);
        assert_int_equal(cel_k8s_semver_compare(&b, &a), 1);
        assert_int_equal(cel_k8s_semver_compare(&a, &a), 0);
    }
    cel_k8s_semver b1 = sv("1.2.3+a", false), b2 = sv("1.2.3+b", false);
    assert_int_equal(cel_k8s_semver_compare(&b1, &b2), 0); /* build metadata is ignored */
}

/* ---------------- formats ---------------- */

static size_t validate(const char *fmt, const char *s, const char **errs)
{
    const cel_k8s_format *f = cel_k8s_format_lookup(fmt, strlen(fmt));
    assert_non_null(f);
    return f->validate(&A, s, strlen(s), errs);
}

static void test_formats(void **s)
{
    (void)s;
    const char *e[4];
    assert_int_equal(validate("dns1123Label", "my-name", e), 0);
    assert_int_equal(validate("dns1123Label", "Abc", e), 1);
    assert_string_equal(e[0], "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
                              "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
                              "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
    assert_int_equal(validate("dns1123Label", "a.b", e), 1);
    assert_string_equal(e[0], "must not contain dots");
    char long64[65];
    memset(long64, 'a', 64);
    long64[64] = 0;
    assert_int_equal(validate("dns1123Label", long64, e), 1);
    assert_string_equal(e[0], "must be no more than 63 characters");
    assert_int_equal(validate("dns1123LabelPrefix", "abc-", e), 0);
    assert_int_equal(validate("dns1123Label", "abc-", e), 1);
    assert_int_equal(validate("dns1123Subdomain", "example.com", e), 0);
    assert_int_equal(validate("dns1123Subdomain", "example..com", e), 1);
    assert_string_equal(e[0], "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                              "'-' or '.', and must start and end with an alphanumeric character (e.g. "
                              "'example.com', regex used for validation is "
                              "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    assert_int_equal(validate("dns1123SubdomainPrefix", "example.", e), 1);
    assert_int_equal(validate("dns1123SubdomainPrefix", "example-", e), 0);
    assert_int_equal(validate("dns1035Label", "1abc", e), 1);
    assert_string_equal(e[0], "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
                              "with an alphabetic character, and end with an alphanumeric character (e.g. "
                              "'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
    assert_int_equal(validate("dns1035LabelPrefix", "abc-", e), 0);
    assert_int_equal(validate("qualifiedName", "example.com/MyName", e), 0);
    assert_int_equal(validate("qualifiedName", "/MyName", e), 1);
    assert_string_equal(e[0], "prefix part must be non-empty");
    assert_int_equal(validate("qualifiedName", "a/b/c", e), 1);
    assert_string_equal(e[0], "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must "
                              "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
                              "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') "
                              "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    assert_int_equal(validate("qualifiedName", "Example.com/", e), 3);
    assert_string_equal(e[0], "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                              "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
                              "'example.com', regex used for validation is "
                              "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    assert_string_equal(e[1], "name part must be non-empty");
    assert_string_equal(e[2], "name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
                              "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
                              "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
    assert_int_equal(validate("labelValue", "", e), 0);
    assert_int_equal(validate("labelValue", "my_value", e), 0);
    assert_int_equal(validate("labelValue", "-bad", e), 1);
    assert_string_equal(e[0], "a valid label must be an empty string or consist of alphanumeric characters, '-', "
                              "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "
                              "or 'my_value',  or '12345', regex used for validation is "
                              "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
    assert_int_equal(validate("uri", "http://example.com", e), 0);
    assert_int_equal(validate("uri", "example", e), 1);
    assert_string_equal(e[0], "parse \"example\": invalid URI for request");
    assert_int_equal(validate("uuid", "123e4567-e89b-12d3-a456-426614174000", e), 0);
    assert_int_equal(validate("uuid", "123E4567E89B12D3A456426614174000", e), 0);
    assert_int_equal(validate("uuid", "123e4567-e89b-12d3-a456-42661417400", e), 1);
    assert_string_equal(e[0], "does not match the UUID format");
    assert_int_equal(validate("byte", "aGVsbG8=", e), 0);
    assert_int_equal(validate("byte", "", e), 0);
    assert_int_equal(validate("byte", "aGVsbG8", e), 1);
    assert_string_equal(e[0], "invalid base64");
    assert_int_equal(validate("date", "2021-01-01", e), 0);
    assert_int_equal(validate("date", "2020-02-29", e), 0);
    assert_int_equal(validate("date", "2021-02-29", e), 1);
    assert_string_equal(e[0], "invalid date");
    assert_int_equal(validate("date", "2021-1-01", e), 1);
    assert_int_equal(validate("datetime", "2021-01-01T00:00:00Z", e), 0);
    assert_int_equal(validate("datetime", "2021-01-01t00:00:00.123+01:00", e), 0);
    assert_int_equal(validate("datetime", "2021-01-01T24:00:00Z", e), 1);
    assert_string_equal(e[0], "invalid datetime");
    assert_int_equal(validate("datetime", "2021-01-01 00:00:00Z", e), 1);
    assert_null(cel_k8s_format_lookup("nope", 4));
    assert_int_equal(cel_k8s_nformats, 13);
}

/* ---------------- robustness: random inputs over each parser's alphabet (ASan/UBSan watch memory) ----------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)rng_state;
}
static size_t rand_str(char *buf, size_t cap, const char *alphabet)
{
    size_t n = rnd() % cap, k = strlen(alphabet);
    for (size_t i = 0; i < n; i++)
        buf[i] = alphabet[rnd() % k];
    buf[n] = 0;
    return n;
}

static void test_random_inputs(void **s)
{
    (void)s;
    char buf[48];
    int ip_ok = 0, q_ok = 0, sv_ok = 0;
    for (int i = 0; i < 20000; i++) {
        kg_arena_reset(&A);
        /* IP: a parsed address prints canonically and parses back to itself */
        size_t n = rand_str(buf, 24, i % 2 ? "0123456789.:" : "0123456789abcdefABCDEF:.%/");
        cel_k8s_ip a, b;
        const char *err = NULL;
        if (cel_k8s_ip_parse(&A, buf, n, &a, &err)) {
            char out[64];
            size_t l = cel_k8s_ip_format(&a, out);
            assert_true(cel_k8s_ip_parse(&A, out, l, &b, NULL));
            assert_true(cel_k8s_ip_equal(&a, &b));
            bool canon = false;
            assert_true(cel_k8s_ip_is_canonical(&A, out, l, &canon, NULL) && canon);
            ip_ok++;
        } else {
            assert_non_null(err);
        }
        cel_k8s_cidr c;
        (void)cel_k8s_cidr_parse(&A, buf, n, &c, &err);
        /* quantity: x == x, x + 0 == x, x - x == 0 */
        n = rand_str(buf, 16, "0123456789.+-eEinumkKMGTP");
        cel_k8s_quantity q, r, zero = cel_k8s_quantity_from_int(0);
        if (cel_k8s_quantity_parse(&A, buf, n, &q, &err)) {
            assert_int_equal(cel_k8s_quantity_cmp(&q, &q), 0);
            if (cel_k8s_quantity_add(&A, &q, &zero, &r))
                assert_int_equal(cel_k8s_quantity_cmp(&q, &r), 0);
            if (cel_k8s_quantity_sub(&A, &q, &q, &r))
                assert_int_equal(cel_k8s_quantity_sign(&r), 0);
            (void)cel_k8s_quantity_as_approximate_float(&q);
            q_ok++;
        }
        /* semver: a version equals itself */
        n = rand_str(buf, 16, "0123456789.-+av");
        cel_k8s_semver v;
        if (cel_k8s_semver_parse(&A, buf, n, &v, &err)) {
            assert_int_equal(cel_k8s_semver_compare(&v, &v), 0);
            sv_ok++;
        }
        (void)cel_k8s_semver_parse_normalize(&A, buf, n, &v, &err);
        /* url: never crashes; getters work on whatever parsed */
        n = rand_str(buf, 32, "ab:/?#@[]%25.=&+ ");
        cel_k8s_url u;
        if (cel_k8s_url_from_string(&A, buf, n, &u, &err)) {
            (void)cel_k8s_url_hostname(&A, &u);
            (void)cel_k8s_url_port(&A, &u);
            (void)cel_k8s_url_escaped_path(&A, &u);
            cel_k8s_query_entry *qe;
            (void)cel_k8s_url_query(&A, &u, &qe);
        }
        /* formats: every validator on arbitrary text */
        n = rand_str(buf, 40, "abcXYZ019-._/: T");
        const char *errs[4];
        for (size_t f = 0; f < cel_k8s_nformats; f++)
            assert_true(cel_k8s_formats[f].validate(&A, buf, n, errs) <= 4);
    }
    /* the generators do reach the success paths */
    assert_true(ip_ok > 50);
    assert_true(q_ok > 500);
    assert_true(sv_ok > 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_quantity_parse_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quantity_compare, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quantity_arith, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quantity_integer_float, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cidr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_url, setup, teardown),
        cmocka_unit_test_setup_teardown(test_semver, setup, teardown),
        cmocka_unit_test_setup_teardown(test_formats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_inputs, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
