/* base/hostport: Go's validOptionalPort, url parseHost's port check, URL Hostname()/Port(), net.SplitHostPort. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/hostport.h"

static void optional_port(void **state)
{
    (void)state;
    assert_true(kg_valid_optional_port("", 0));
    assert_true(kg_valid_optional_port(":", 1));
    assert_true(kg_valid_optional_port(":8080", 5));
    assert_true(kg_valid_optional_port(":99999", 6)); /* no range check, as Go */
    assert_false(kg_valid_optional_port("8080", 4));
    assert_false(kg_valid_optional_port(":80a", 4));
}

static kg_hostport_err check(const char *h, size_t *bad)
{
    return kg_url_check_host_port(h, strlen(h), bad);
}

static void url_check(void **state)
{
    (void)state;
    size_t bad = 0;
    assert_int_equal(check("example.com", &bad), KG_HOSTPORT_OK);
    assert_int_equal(check("example.com:443", &bad), KG_HOSTPORT_OK);
    assert_int_equal(check("[::1]:443", &bad), KG_HOSTPORT_OK);
    assert_int_equal(check("[::1]", &bad), KG_HOSTPORT_OK);
    assert_int_equal(check("[::1", &bad), KG_HOSTPORT_MISSING_BRACKET);
    assert_int_equal(check("example.com:http", &bad), KG_HOSTPORT_INVALID_PORT);
    assert_int_equal(bad, 11);
    assert_int_equal(check("[::1]x", &bad), KG_HOSTPORT_INVALID_PORT);
    assert_int_equal(bad, 5);
}

static void url_split(void **state)
{
    (void)state;
    const char *h, *p;
    size_t hn, pn;
    kg_url_split_host_port("[::1]:8443", 10, &h, &hn, &p, &pn);
    assert_int_equal(hn, 3);
    assert_memory_equal(h, "::1", 3);
    assert_int_equal(pn, 4);
    assert_memory_equal(p, "8443", 4);
    kg_url_split_host_port("host", 4, &h, &hn, &p, &pn);
    assert_int_equal(hn, 4);
    assert_int_equal(pn, 0);
    kg_url_split_host_port("host:x", 6, &h, &hn, &p, &pn); /* not a port: all host */
    assert_int_equal(hn, 6);
    assert_int_equal(pn, 0);
}

static bool net_split(const char *s, const char *wh, const char *wp)
{
    const char *h, *p;
    size_t hn, pn;
    if (!kg_net_split_host_port(s, strlen(s), &h, &hn, &p, &pn))
        return false;
    assert_int_equal(hn, strlen(wh));
    assert_memory_equal(h, wh, hn);
    assert_int_equal(pn, strlen(wp));
    assert_memory_equal(p, wp, pn);
    return true;
}

static void net_split_host_port(void **state)
{
    (void)state;
    assert_true(net_split("host:80", "host", "80"));
    assert_true(net_split("[::1]:80", "::1", "80"));
    assert_true(net_split("host:", "host", ""));
    assert_false(net_split("host", NULL, NULL));    /* missing port */
    assert_false(net_split("::1:80", NULL, NULL));  /* too many colons */
    assert_false(net_split("[::1]", NULL, NULL));   /* missing port */
    assert_false(net_split("[a]b:80", NULL, NULL)); /* junk after ']' */
    assert_false(net_split("a]:80", NULL, NULL));   /* unexpected ']' */
    assert_false(net_split("", NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(optional_port),
        cmocka_unit_test(url_check),
        cmocka_unit_test(url_split),
        cmocka_unit_test(net_split_host_port),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
