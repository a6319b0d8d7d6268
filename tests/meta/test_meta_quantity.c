/* resource.Quantity tests, ported from apimachinery pkg/api/resource/quantity_test.go tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/quantity.h"

static kg_quantity P(const char *s)
{
    kg_quantity q;
    kg_error err;
    if (!kg_quantity_parse_cstr(s, &q, &err))
        fail_msg("parse %s: %s", s, err.msg);
    return q;
}

/* decQuantity(i, exp, fmt) / intQuantity(i, exp, fmt) */
static kg_quantity IQ(int64_t v, int32_t exp, kg_qformat f)
{
    kg_quantity q = kg_quantity_new(v, f);
    q.i_scale = exp;
    return q;
}
static kg_quantity DQ(int64_t v, int32_t exp, kg_qformat f)
{
    kg_quantity q = IQ(v, exp, f);
    kg_quantity_to_dec(&q);
    return q;
}

static const char *S(const kg_quantity *q)
{
    static char buf[8][512];
    static int k;
    char *b = buf[k++ % 8];
    kg_quantity_format(q, b, 512);
    return b;
}

#define DSI KG_QFMT_DECIMAL_SI
#define BSI KG_QFMT_BINARY_SI
#define DEX KG_QFMT_DECIMAL_EXPONENT

static void test_parse_table(void **st)
{
    (void)st;
    static const struct {
        const char *in;
        int64_t v;
        int32_t exp;
        kg_qformat f;
    } T[] = {
        {"0", 0, 0, DSI},
        {"0n", 0, 0, DSI},
        {"0u", 0, 0, DSI},
        {"0m", 0, 0, DSI},
        {"0Ki", 0, 0, BSI},
        {"0k", 0, 0, DSI},
        {"0Mi", 0, 0, BSI},
        {"0M", 0, 0, DSI},
        {"0Gi", 0, 0, BSI},
        {"0G", 0, 0, DSI},
        {"0Ti", 0, 0, BSI},
        {"0T", 0, 0, DSI},
        {"1", 1, 0, DSI},
        {"1Ki", 1024, 0, BSI},
        {"8Ki", 8 * 1024, 0, BSI},
        {"7Mi", 7 * 1024 * 1024, 0, BSI},
        {"6Gi", 6LL << 30, 0, BSI},
        {"5Ti", 5LL << 40, 0, BSI},
        {"4Pi", 4LL << 50, 0, BSI},
        {"3Ei", 3LL << 60, 0, BSI},
        {"10Ti", 10LL << 40, 0, BSI},
        {"100Ti", 100LL << 40, 0, BSI},
        {"5n", 5, -9, DSI},
        {"4u", 4, -6, DSI},
        {"3m", 3, -3, DSI},
        {"9", 9, 0, DSI},
        {"8k", 8, 3, DSI},
        {"50k", 5, 4, DSI},
        {"7M", 7, 6, DSI},
        {"6G", 6, 9, DSI},
        {"5T", 5, 12, DSI},
        {"40T", 4, 13, DSI},
        {"300T", 3, 14, DSI},
        {"2P", 2, 15, DSI},
        {"1E", 1, 18, DSI},
        {"1E-3", 1, -3, DEX},
        {"1e3", 1, 3, DEX},
        {"1E6", 1, 6, DEX},
        {"1e9", 1, 9, DEX},
        {"1E12", 1, 12, DEX},
        {"1e15", 1, 15, DEX},
        {"1E18", 1, 18, DEX},
        {"1e14", 1, 14, DEX},
        {"1e13", 1, 13, DEX},
        {"100.035k", 100035, 0, DSI},
        {"0.001", 1, -3, DSI},
        {"0.0005k", 5, -1, DSI},
        {"0.005", 5, -3, DSI},
        {"0.05", 5, -2, DSI},
        {"0.5", 5, -1, DSI},
        {"0.00050k", 5, -1, DSI},
        {"0.00500", 5, -3, DSI},
        {"0.05000", 5, -2, DSI},
        {"0.50000", 5, -1, DSI},
        {"0.5e0", 5, -1, DEX},
        {"0.5e-1", 5, -2, DEX},
        {"0.5e-2", 5, -3, DEX},
        {"10.035M", 10035, 3, DSI},
        {"1.2e3", 12, 2, DEX},
        {"1.3E+6", 13, 5, DEX},
        {"1.40e9", 14, 8, DEX},
        {"1.53E12", 153, 10, DEX},
        {"1.6e15", 16, 14, DEX},
        {"1.7E18", 17, 17, DEX},
        {"9.01", 901, -2, DSI},
        {"8.1k", 81, 2, DSI},
        {"7.123456M", 7123456, 0, DSI},
        {"6.987654321G", 6987654321LL, 0, DSI},
        {"5.444T", 5444, 9, DSI},
        {"40.1T", 401, 11, DSI},
        {"300.2T", 3002, 11, DSI},
        {"2.5P", 25, 14, DSI},
        {"1.01E", 101, 16, DSI},
        {"3.001n", 4, -9, DSI},
        {"1.1E-9", 2, -9, DEX},
        {"0.0000000001", 1, -9, DSI},
        {"0.0000000005", 1, -9, DSI},
        {"0.00000000050", 1, -9, DSI},
        {"0.5e-9", 1, -9, DEX},
        {"0.9n", 1, -9, DSI},
        {"0.00000012345", 124, -9, DSI},
        {"0.00000012354", 124, -9, DSI},
        {"9Ei", INT64_MAX, 0, BSI},
        {"9223372036854775807Ki", INT64_MAX, 0, BSI},
        {"12E", 12, 18, DSI},
        {"100.035Ki", 10243584, -2, BSI},
        {"0.5Mi", 512 * 1024, 0, BSI},
        {"0.05Gi", 536870912, -1, BSI},
        {"0.025Ti", 274877906944LL, -1, BSI},
        {"0.000000000001Ki", 2, -9, DSI},
        {".001", 1, -3, DSI},
        {".0001k", 100, -3, DSI},
        {"1.", 1, 0, DSI},
        {"1.G", 1, 9, DSI},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        for (int variant = 0; variant < 4; variant++) {
            char in[64];
            const char *prefix = variant == 1 ? "-" : variant == 2 ? "+" : "";
            snprintf(in, sizeof in, "%s%s", prefix, T[i].in);
            kg_quantity got = P(in);
            if (variant == 3)
                kg_quantity_to_dec(&got);
            kg_quantity want = IQ(variant == 1 ? -T[i].v : T[i].v, T[i].exp, T[i].f);
            if (kg_quantity_cmp(&want, &got) != 0)
                fail_msg("%s: expected %s, got %s", in, S(&want), S(&got));
            if (got.format != T[i].f)
                fail_msg("%s: expected format %s, got %s", in, kg_qformat_name(T[i].f), kg_qformat_name(got.format));
            int64_t iv;
            if (variant == 3)
                assert_false(kg_quantity_as_int64(&got, &iv));
        }
    }
}

static void test_parse_invalid(void **st)
{
    (void)st;
    static const struct {
        const char *in, *msg;
    } T[] = {
        {"", KG_QUANTITY_ERR_FORMAT},
        {"1.1.M", KG_QUANTITY_ERR_FORMAT},
        {"1+1.0M", KG_QUANTITY_ERR_FORMAT},
        {"0.1mi", KG_QUANTITY_ERR_SUFFIX},
        {"0.1am", KG_QUANTITY_ERR_FORMAT},
        {"aoeu", KG_QUANTITY_ERR_FORMAT},
        {".5i", KG_QUANTITY_ERR_SUFFIX},
        {"1i", KG_QUANTITY_ERR_SUFFIX},
        {"-3.01i", KG_QUANTITY_ERR_SUFFIX},
        {"-3.01e-", KG_QUANTITY_ERR_SUFFIX},
        {" 1", KG_QUANTITY_ERR_FORMAT},
        {"1 ", KG_QUANTITY_ERR_FORMAT},
        {"1e4294967297", KG_QUANTITY_ERR_SUFFIX},
        {"1E2147483648", KG_QUANTITY_ERR_SUFFIX},
        {"Non-Numeric", KG_QUANTITY_ERR_FORMAT},
        {"1ki", KG_QUANTITY_ERR_SUFFIX},
        {"1e3e", KG_QUANTITY_ERR_FORMAT},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        kg_quantity q;
        kg_error err = {0};
        if (kg_quantity_parse_cstr(T[i].in, &q, &err))
            fail_msg("%s parsed unexpectedly as %s", T[i].in, S(&q));
        assert_string_equal(err.msg, T[i].msg);
    }
    assert_string_equal(KG_QUANTITY_ERR_FORMAT,
                        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    kg_quantity q;
    /* digit-less text: the int64 fast path yields 0, the inf.Dec path (Pi, Ei) fails as Go's SetString does */
    assert_true(kg_quantity_parse_cstr("Ki", &q, NULL));
    assert_true(kg_quantity_is_zero(&q));
    assert_true(kg_quantity_parse_cstr("-.Ti", &q, NULL));
    assert_true(kg_quantity_is_zero(&q));
    kg_error e2 = {0};
    assert_false(kg_quantity_parse_cstr("Ei", &q, &e2));
    assert_string_equal(e2.msg, KG_QUANTITY_ERR_NUMERIC);
    assert_false(kg_quantity_parse_cstr("-.Pi", &q, &e2));
    assert_string_equal(e2.msg, KG_QUANTITY_ERR_NUMERIC);
    assert_true(kg_quantity_parse_cstr("0Ei", &q, NULL));
    assert_true(kg_quantity_is_zero(&q));
    assert_true(kg_quantity_parse_cstr("5.Ei", &q, NULL));
    /* a bare suffix has an implicit "0" numerator, as upstream's scanner */
    assert_true(kg_quantity_parse_cstr("E2147483647", &q, NULL));
    assert_true(kg_quantity_is_zero(&q));
    assert_true(kg_quantity_parse_cstr("1E2147483647", &q, NULL));
    assert_true(kg_quantity_parse_cstr("1E-2147483647", &q, NULL));
}

static void test_string_table(void **st)
{
    (void)st;
    static const struct {
        int64_t v;
        int32_t exp;
        kg_qformat f;
        const char *expect, *alternate;
    } T[] = {
        {1024 * 1024 * 1024, 0, BSI, "1Gi", "1024Mi"},
        {300 * 1024 * 1024, 0, BSI, "300Mi", "307200Ki"},
        {6 * 1024, 0, BSI, "6Ki", ""},
        {1001LL * 1024 * 1024 * 1024, 0, BSI, "1001Gi", "1025024Mi"},
        {1024LL * 1024 * 1024 * 1024, 0, BSI, "1Ti", "1024Gi"},
        {5, 0, BSI, "5", "5000m"},
        {500, -3, BSI, "500m", "0.5"},
        {1, 9, DSI, "1G", "1000M"},
        {1000, 6, DSI, "1G", "0.001T"},
        {1000000, 3, DSI, "1G", ""},
        {1000000000, 0, DSI, "1G", ""},
        {1, -3, DSI, "1m", "1000u"},
        {80, -3, DSI, "80m", ""},
        {1080, -3, DSI, "1080m", "1.08"},
        {108, -2, DSI, "1080m", "1080000000n"},
        {10800, -4, DSI, "1080m", ""},
        {300, 6, DSI, "300M", ""},
        {1, 12, DSI, "1T", ""},
        {1, 18, DSI, "1E", ""},
        {1, 21, DSI, "1e21", "1000E"},
        {5, 21, DSI, "5e21", "5000E"},
        {1, 24, DSI, "1e24", "1000000E"},
        {1, 70, BSI, "10e69", ""},
        {2, 70, BSI, "20e69", ""},
        {1, 72, BSI, "1e72", ""},
        {1234567, 6, DSI, "1234567M", ""},
        {1234567, -3, BSI, "1234567m", ""},
        {3, 3, DSI, "3k", ""},
        {1025, 0, BSI, "1025", ""},
        {0, 0, DSI, "0", ""},
        {0, 0, BSI, "0", ""},
        {1, 9, DEX, "1e9", ".001e12"},
        {1, -3, DEX, "1e-3", "0.001e0"},
        {1, -9, DEX, "1e-9", "1000e-12"},
        {80, -3, DEX, "80e-3", ""},
        {300, 6, DEX, "300e6", ""},
        {1, 12, DEX, "1e12", ""},
        {1, 3, DEX, "1e3", ""},
        {3, 3, DEX, "3e3", ""},
        {3, 3, DSI, "3k", ""},
        {0, 0, DEX, "0", "00"},
        {1, -9, DSI, "1n", ""},
        {80, -9, DSI, "80n", ""},
        {1080, -9, DSI, "1080n", ""},
        {108, -8, DSI, "1080n", ""},
        {10800, -10, DSI, "1080n", ""},
        {1, -6, DSI, "1u", ""},
        {80, -6, DSI, "80u", ""},
        {1080, -6, DSI, "1080u", ""},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        for (int asdec = 0; asdec < 2; asdec++) {
            kg_quantity q = asdec ? DQ(T[i].v, T[i].exp, T[i].f) : IQ(T[i].v, T[i].exp, T[i].f);
            if (strcmp(S(&q), T[i].expect) != 0)
                fail_msg("%lld e%d %s: expected %s, got %s", (long long)T[i].v, T[i].exp, kg_qformat_name(T[i].f),
                         T[i].expect, S(&q));
            if (T[i].v != 0) {
                kg_quantity n = q;
                kg_quantity_neg(&n);
                char want[64];
                snprintf(want, sizeof want, "-%s", T[i].expect);
                assert_string_equal(S(&n), want);
            }
        }
        /* the canonical text parses back to itself and is kept verbatim */
        kg_quantity p = P(T[i].expect);
        assert_string_equal(p.s, T[i].expect);
        kg_quantity orig = IQ(T[i].v, T[i].exp, T[i].f);
        assert_int_equal(kg_quantity_cmp(&p, &orig), 0);
        if (T[i].alternate[0]) {
            kg_quantity alt = P(T[i].alternate);
            assert_string_equal(alt.s, "");
            assert_string_equal(S(&alt), T[i].expect);
        }
    }
    kg_quantity tiny = IQ(1, -12, DSI);
    assert_string_equal(S(&tiny), "1e-12");
    tiny = IQ(1, -10, DSI);
    assert_string_equal(S(&tiny), "100e-12");
    kg_quantity b = IQ(2000, 0, BSI);
    assert_string_equal(S(&b), "2000");
    b = DQ(-2000, 0, BSI);
    assert_string_equal(S(&b), "-2000");
}

static void test_parse_emit(void **st)
{
    (void)st;
    static const struct {
        const char *in, *out;
    } T[] = {
        {"1Ki", "1Ki"},
        {"1Mi", "1Mi"},
        {"1Gi", "1Gi"},
        {"1024Mi", "1Gi"},
        {"1000M", "1G"},
        {".001Ki", "1024m"},
        {".000001Ki", "1024u"},
        {".000000001Ki", "1024n"},
        {".000000000001Ki", "2n"},
        /* the brief's examples and upstream doc comment */
        {"1.5Gi", "1536Mi"},
        {"0.1", "100m"},
        {"1.5", "1500m"},
        {"1e3", "1e3"},
        {"1000", "1k"},
        {"0.1m", "100u"},
        {"1.1Ki", "1126400m"},
        {"2048", "2048"},
        {"2Ki", "2Ki"},
        {"1E3", "1E3"},
        {"10e2", "1e3"},
        {"100m", "100m"},
        {"1000m", "1"},
        {"500Mi", "500Mi"},
        {"0.5Gi", "512Mi"},
        {"1.5k", "1500"},
        {"250000000n", "250m"},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        kg_quantity q = P(T[i].in);
        if (strcmp(S(&q), T[i].out) != 0)
            fail_msg("%s: expected %s, got %s", T[i].in, T[i].out, S(&q));
        char neg[64], want[64];
        snprintf(neg, sizeof neg, "-%s", T[i].in);
        snprintf(want, sizeof want, "-%s", T[i].out);
        q = P(neg);
        if (strcmp(S(&q), want) != 0)
            fail_msg("%s: expected %s, got %s", neg, want, S(&q));
    }
}

static void test_long_digit_strings(void **st)
{
    (void)st;
    char buf[2100];
    /* 0.<1000 zeros>1 rounds up to 1n; 1<1000 zeros> is 10^1000 */
    strcpy(buf, "0.");
    memset(buf + 2, '0', 1000);
    strcpy(buf + 1002, "1");
    kg_quantity q = P(buf);
    assert_string_equal(S(&q), "1n");
    buf[0] = '1';
    memset(buf + 1, '0', 1000);
    buf[1001] = 0;
    q = P(buf);
    assert_string_equal(S(&q), "10e999"); /* exponent kept a multiple of 3 */
    strcpy(buf + 1001, "Ki");
    q = P(buf);
    assert_string_equal(S(&q), "9223372036854775807"); /* BinarySI is capped at 2^63-1 */
    assert_int_equal(kg_quantity_value(&q), INT64_MAX);
    /* too many significant digits for the big form */
    memset(buf, '7', 2000);
    buf[2000] = 0;
    kg_error err;
    assert_false(kg_quantity_parse_cstr(buf, &q, &err));
    assert_string_equal(err.msg, KG_QUANTITY_ERR_NUMERIC);
}

static void test_parse_int64_or_dec(void **st)
{
    (void)st;
    /* TestParseQuantity: which inputs stay on the int64 fast path and how they re-serialize */
    static const struct {
        const char *in;
        bool as_int;
        int64_t v;
        const char *canonical;
    } T[] = {
        {"-999999999999999999", true, -999999999999999999LL, NULL},
        {"999999999999999999", true, 999999999999999999LL, NULL},
        {"-999999999999999999.0", false, 0, "-999999999999999999"},
        {"999999999999999999.1", false, 0, "999999999999999999100m"},
        {"-9999999999999999999", false, 0, NULL},
        {"9999999999999999999", false, 0, NULL},
        {"-1E", true, -1000000000000000000LL, NULL},
        {"1E", true, 1000000000000000000LL, NULL},
        {"1000000000000000000", false, 0, "1E"},
        {"-1000000000000000000", false, 0, "-1E"},
        {"9999999999999999999.0", false, 0, "9999999999999999999"},
        {"1.0E", true, 1000000000000000000LL, "1E"},
        {"-1.0E", true, -1000000000000000000LL, "-1E"},
        {"1000000000000000000.0", false, 0, "1E"},
        {"9999999999999999999000m", false, 0, "9999999999999999999"},
        {"-9999999999999999999.1", false, 0, "-9999999999999999999100m"},
        {"1.0000000000000000001E", false, 0, "1000000000000000000100m"},
        {"-1000000000000000000.1", false, 0, "-1000000000000000000100m"},
        {"1.000000000000000001E", false, 0, "1000000000000000001"},
        {"1000000000000000001", false, 0, NULL},
        {"10E", false, 0, NULL},
        {"-10E", false, 0, NULL},
        {"10000000000000000000", false, 0, "10E"},
        {"10.0E", false, 0, "10E"},
        {"10000000000000000000000m", false, 0, "10E"},
        {"10.0000000000000000001E", false, 0, "10000000000000000000100m"},
        {"10.000000000000000001E", false, 0, "10000000000000000001"},
        {"-10000000000000000001", false, 0, NULL},
        {"-9223372036854775809", false, 0, NULL},
        {"9223372036854775806.1", false, 0, "9223372036854775806100m"},
        {"9223372036854775807", false, 0, NULL},
        {"-9223372036854775808", false, 0, NULL},
        {"9223372036854775808", false, 0, NULL},
        {"9223372036854775808000m", false, 0, "9223372036854775808"},
        {"-9223372036854775807.1", false, 0, "-9223372036854775807100m"},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        kg_quantity q = P(T[i].in);
        int64_t v;
        bool ok = kg_quantity_as_int64(&q, &v);
        if (ok != T[i].as_int)
            fail_msg("%s: AsInt64 ok=%d", T[i].in, ok);
        if (ok)
            assert_int_equal(v, T[i].v);
        const char *want = T[i].canonical ? T[i].canonical : T[i].in;
        if (strcmp(S(&q), want) != 0)
            fail_msg("%s: expected %s, got %s", T[i].in, want, S(&q));
    }
}

static void test_round_up(void **st)
{
    (void)st;
    static const struct {
        const char *in;
        int32_t scale;
        int64_t v;
        int32_t exp;
        bool ok;
    } T[] = {
        {"9.01", -3, 901, -2, true},   {"9.01", -2, 901, -2, true},   {"9.01", -1, 91, -1, false},
        {"9.01", 0, 10, 0, false},     {"9.01", 1, 10, 0, false},     {"9.01", 2, 100, 0, false},
        {"-9.01", -3, -901, -2, true}, {"-9.01", -2, -901, -2, true}, {"-9.01", -1, -91, -1, false},
        {"-9.01", 0, -10, 0, false},   {"-9.01", 1, -10, 0, false},   {"-9.01", 2, -100, 0, false},
    };
    for (int asdec = 0; asdec < 2; asdec++) {
        for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
            kg_quantity q = P(T[i].in);
            if (asdec)
                kg_quantity_to_dec(&q);
            bool ok = kg_quantity_round_up(&q, T[i].scale);
            kg_quantity want = IQ(T[i].v, T[i].exp, DSI);
            if (ok != T[i].ok || kg_quantity_cmp(&q, &want) != 0)
                fail_msg("%s(%d,%d): ok=%d %s", T[i].in, T[i].scale, asdec, ok, S(&q));
        }
    }
}

static void test_cmp_int64_and_dec(void **st)
{
    (void)st;
    const int64_t E18 = 1000000LL * 1000000 * 1000000;
    const struct {
        kg_quantity a, b;
        int cmp;
    } T[] = {
        {IQ(901, -2, DSI), IQ(901, -2, DSI), 0},
        {IQ(90, -1, DSI), IQ(901, -2, DSI), -1},
        {IQ(901, -2, DSI), IQ(900, -2, DSI), 1},
        {IQ(0, 0, DSI), IQ(0, 0, DSI), 0},
        {IQ(0, 1, DSI), IQ(0, -1, DSI), 0},
        {IQ(0, -1, DSI), IQ(0, 1, DSI), 0},
        {IQ(800, -3, DSI), IQ(1, 0, DSI), -1},
        {IQ(800, -3, DSI), IQ(79, -2, DSI), 1},
        {IQ(INT64_MAX, 0, DSI), IQ(1, -1, DSI), 1},
        {IQ(INT64_MAX, 1, DSI), IQ(1, 0, DSI), 1},
        {IQ(INT64_MAX, 1, DSI), IQ(1, 1, DSI), 1},
        {IQ(INT64_MAX, 1, DSI), IQ(0, 1, DSI), 1},
        {IQ(INT64_MAX, -16, DSI), IQ(1, 3, DSI), -1},
        {IQ(INT64_MIN, 0, DSI), IQ(0, 0, DSI), -1},
        {IQ(INT64_MIN, -18, DSI), IQ(-1, 0, DSI), -1},
        {IQ(INT64_MIN, -19, DSI), IQ(-1, 0, DSI), 1},
        {IQ(E18, -17, DSI), IQ(1, 1, DSI), 0},
        {IQ(E18, -17, DSI), IQ(-10, 0, DSI), 1},
        {IQ(-E18, -17, DSI), IQ(-10, 0, DSI), 0},
        {IQ(E18, -17, DSI), IQ(1, 0, DSI), 1},
        {IQ(E18 + 1, -17, DSI), IQ(1, 1, DSI), 1},
        {IQ(E18 - 1, -17, DSI), IQ(1, 1, DSI), -1},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        for (int mode = 0; mode < 4; mode++) {
            kg_quantity a = T[i].a, b = T[i].b;
            if (mode & 1)
                kg_quantity_to_dec(&a);
            if (mode & 2)
                kg_quantity_to_dec(&b);
            if (kg_quantity_cmp(&a, &b) != T[i].cmp || kg_quantity_cmp(&b, &a) != -T[i].cmp)
                fail_msg("row %zu mode %d", i, mode);
        }
    }
    kg_quantity x = P("10000T"), y = P("100Gi");
    assert_int_equal(kg_quantity_cmp(&x, &y), 1);
    x = P("100m");
    y = P("50m");
    assert_int_equal(kg_quantity_cmp(&x, &y), 1);
    assert_int_equal(kg_quantity_cmp(&y, &x), -1);
    assert_int_equal(kg_quantity_cmp_int64(&x, 0), 1);
    x = P("1e400");
    y = P("9.99e399");
    assert_int_equal(kg_quantity_cmp(&x, &y), 1);
    y = P("1e-400");
    assert_int_equal(kg_quantity_cmp(&x, &y), 1);
}

static void test_new_set_and_scaled(void **st)
{
    (void)st;
    const struct {
        int64_t v;
        kg_qformat f;
        const char *milli, *plain;
    } T[] = {
        {1, DSI, "1m", "1"},         {1000, DSI, "1", "1k"},       {1234000, DSI, "1234", "1234k"},
        {1024, BSI, "1024m", "1Ki"}, {1000000, DEX, "1e3", "1e6"}, {1024 * 1024, BSI, "1048576m", "1Mi"},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        kg_quantity q = kg_quantity_new_milli(T[i].v, T[i].f);
        assert_string_equal(S(&q), T[i].milli);
        q = kg_quantity_new(T[i].v, T[i].f);
        assert_string_equal(S(&q), T[i].plain);
        kg_quantity r = P(S(&q));
        assert_int_equal(kg_quantity_value(&r), T[i].v);
        kg_quantity_to_dec(&q);
        assert_string_equal(S(&q), T[i].plain);
    }
    const struct {
        int64_t v;
        int32_t scale;
        const char *expect;
    } N[] = {
        {1, -9, "1n"}, {1000, -9, "1u"}, {1, -6, "1u"}, {1000, -6, "1m"}, {1, -3, "1m"}, {1000, -3, "1"},
        {1, 0, "1"},   {0, -9, "0"},     {0, -6, "0"},  {0, -3, "0"},     {0, 0, "0"},
    };
    for (size_t i = 0; i < sizeof N / sizeof N[0]; i++) {
        kg_quantity q = kg_quantity_new_scaled(N[i].v, N[i].scale);
        assert_string_equal(S(&q), N[i].expect);
        kg_quantity r = P(S(&q));
        assert_int_equal(kg_quantity_scaled_value(&r, N[i].scale), N[i].v);
    }
    const struct {
        int32_t from, to;
        int64_t want;
    } SV[] = {
        {-9, -9, 1},         {-9, -6, 1},      {-9, -3, 1},       {-9, 0, 1},     {-6, -9, 1000}, {-6, -6, 1},
        {-6, -3, 1},         {-6, 0, 1},       {-3, -9, 1000000}, {-3, -6, 1000}, {-3, -3, 1},    {-3, 0, 1},
        {0, -9, 1000000000}, {0, -6, 1000000}, {0, -3, 1000},     {0, 0, 1},      {2, -2, 10000},
    };
    for (size_t i = 0; i < sizeof SV / sizeof SV[0]; i++) {
        kg_quantity q = kg_quantity_new_scaled(1, SV[i].from);
        assert_int_equal(kg_quantity_scaled_value(&q, SV[i].to), SV[i].want);
        kg_quantity_to_dec(&q);
        assert_int_equal(kg_quantity_scaled_value(&q, SV[i].to), SV[i].want);
    }
}

static void test_value_rounds_away_from_zero(void **st)
{
    (void)st;
    const struct {
        const char *in;
        int64_t value, milli;
    } T[] = {
        {"-.484785E-7466", -1, -1},
        {".484785E-7466", 1, 1},
        {"-.484785E-1", -1, -49},
        {".484785E-1", 1, 49},
        {"-0.0005", -1, -1},
        {"0.0005", 1, 1},
        {"-1500m", -2, -1500},
        {"1500m", 2, 1500},
        {"-9.5000000001Gi", -10200547329LL, -10200547328108LL},
        {"9.5000000001Gi", 10200547329LL, 10200547328108LL},
        {"-1", -1, -1000},
        {"1", 1, 1000},
        {"0", 0, 0},
        {"1Mi", 1048576, 1048576000},
        {"100m", 1, 100},
        {"1e20", INT64_MAX, INT64_MAX},
        {"-1e20", INT64_MIN, INT64_MIN},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        kg_quantity q = P(T[i].in);
        if (kg_quantity_value(&q) != T[i].value || kg_quantity_milli_value(&q) != T[i].milli)
            fail_msg("%s: value %lld milli %lld", T[i].in, (long long)kg_quantity_value(&q),
                     (long long)kg_quantity_milli_value(&q));
    }
}

static void test_add_sub_mul_neg(void **st)
{
    (void)st;
    kg_quantity zero = P("0");
    const char *vals[] = {"100m", "1Gi"};
    for (int i = 0; i < 2; i++) {
        kg_quantity v = P(vals[i]), a = v, b = zero;
        kg_quantity_add(&a, &zero);
        kg_quantity_add(&b, &v);
        assert_string_equal(S(&a), vals[i]);
        assert_string_equal(S(&b), vals[i]);
        a = v;
        kg_quantity_sub(&a, &zero);
        assert_string_equal(S(&a), vals[i]);
        b = zero;
        kg_quantity_sub(&b, &v);
        kg_quantity n = v;
        kg_quantity_neg(&n);
        assert_string_equal(S(&b), S(&n));
    }
    /* TestAdd / TestSub */
    struct {
        kg_quantity a, b, add, sub;
    } T[] = {
        {DQ(10, 0, DSI), DQ(1, 1, DSI), DQ(20, 0, DSI), DQ(0, 0, DSI)},
        {DQ(10, 0, DSI), DQ(1, 0, BSI), DQ(11, 0, DSI), DQ(9, 0, DSI)},
        {DQ(10, 0, BSI), DQ(1, 0, DSI), DQ(11, 0, BSI), DQ(9, 0, BSI)},
        {IQ(0, 0, DSI), DQ(50, 0, DSI), DQ(50, 0, DSI), DQ(-50, 0, DSI)},
        {DQ(50, 0, DSI), IQ(0, 0, DSI), DQ(50, 0, DSI), DQ(50, 0, DSI)},
        {IQ(0, 0, DSI), IQ(0, 0, DSI), DQ(0, 0, DSI), DQ(0, 0, DSI)},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        kg_quantity a = T[i].a;
        assert_true(kg_quantity_add(&a, &T[i].b));
        assert_int_equal(kg_quantity_cmp(&a, &T[i].add), 0);
        assert_int_equal(a.format, T[i].add.format);
        a = T[i].a;
        assert_true(kg_quantity_sub(&a, &T[i].b));
        assert_int_equal(kg_quantity_cmp(&a, &T[i].sub), 0);
    }
    /* most negative: Neg and Sub move to the big form instead of wrapping */
    kg_quantity m = IQ(INT64_MIN, 0, DSI);
    kg_quantity_neg(&m);
    int64_t v;
    assert_false(kg_quantity_as_int64(&m, &v));
    assert_string_equal(S(&m), "9223372036854775808");
    kg_quantity one = IQ(1, 0, DSI), mn = IQ(INT64_MIN, 0, DSI);
    kg_quantity_sub(&one, &mn);
    assert_string_equal(S(&one), "9223372036854775809");
    kg_quantity ten = IQ(1, 1, DSI);
    kg_quantity_sub(&ten, &mn);
    assert_string_equal(S(&ten), "9223372036854775818");
    kg_quantity z = IQ(0, 0, DSI), mnb = IQ(INT64_MIN, 0, BSI);
    kg_quantity_sub(&z, &mnb);
    assert_int_equal(z.format, BSI);
    assert_string_equal(S(&z), "8Ei");
    kg_quantity sm = IQ(INT64_MIN, -3, DSI);
    kg_quantity_neg(&sm);
    assert_string_equal(S(&sm), "9223372036854775808m");
    kg_quantity nb = IQ(INT64_MIN + 1, 0, DSI);
    kg_quantity_neg(&nb);
    assert_true(kg_quantity_as_int64(&nb, &v));
    assert_int_equal(v, INT64_MAX);
    kg_quantity n1 = IQ(901, -2, DSI), n2 = DQ(901, -2, DSI);
    kg_quantity_neg(&n1);
    kg_quantity_neg(&n2);
    assert_string_equal(S(&n1), "-9010m");
    assert_string_equal(S(&n2), "-9010m");

    /* TestMul */
    const int64_t MP = INT64_MAX, MN = INT64_MIN;
    struct {
        kg_quantity a;
        int64_t b;
        const char *expect;
        bool ok;
    } M[] = {
        {DQ(10, 0, DSI), 10, "100", true},
        {DQ(10, 0, DSI), 1, "10", true},
        {IQ(0, 0, DSI), 50, "0", true},
        {DQ(50, 0, DSI), 0, "0", true},
        {DQ(10, 0, DSI), -10, "-100", true},
        {DQ(-50, 0, DSI), -50, "2500", true},
        {DQ(MP, 0, DSI), 0, "0", true},
        {DQ(MP, 0, DSI), 1, "9223372036854775807", true},
        {DQ(MP, 0, DSI), -1, "-9223372036854775807", true},
        {DQ(MP / 2, 0, DSI), 2, "9223372036854775806", true},
        {DQ(MP, 0, DSI), 2, "18446744073709551614", false},
        {DQ(MP, 0, DSI), 10, "92233720368547758070", false},
        {DQ(MP, 0, DSI), -10, "-92233720368547758070", false},
        {DQ(MN, 0, DSI), 1, "-9223372036854775808", true},
        {DQ(MN, 0, DSI), -1, "9223372036854775808", false},
        {DQ(MN / 2, 0, DSI), 2, "-9223372036854775808", true},
        {DQ(MN, 0, DSI), 2, "-18446744073709551616", false},
        {DQ(MN, 0, DSI), -10, "92233720368547758080", false},
        {IQ(MP, 0, DSI), 2, "18446744073709551614", false},
        {IQ(3, 0, DSI), 7, "21", true},
        {IQ(MN, 0, DSI), -1, "9223372036854775808", false},
    };
    for (size_t i = 0; i < sizeof M / sizeof M[0]; i++) {
        kg_quantity a = M[i].a;
        bool ok = kg_quantity_mul(&a, M[i].b);
        if (ok != M[i].ok || strcmp(S(&a), M[i].expect) != 0)
            fail_msg("mul row %zu: ok=%d %s", i, ok, S(&a));
    }
    kg_quantity ei = P("1Ei");
    kg_quantity_mul(&ei, 1024);
    assert_string_equal(S(&ei), "1180591620717411303424");
    kg_quantity back = P(S(&ei));
    assert_int_equal(kg_quantity_cmp(&ei, &back), 0);
}

static void test_add_sub_round_trip(void **st)
{
    (void)st;
    srand(42);
    for (int k = -10; k <= 10; k++) {
        kg_quantity q = kg_quantity_zero();
        int64_t order[100];
        for (int i = 0; i < 100; i++) {
            order[i] = ((int64_t)rand() << 32 | (uint32_t)rand()) & INT64_MAX;
            kg_quantity t = kg_quantity_new_scaled(order[i], k);
            assert_true(kg_quantity_add(&q, &t));
        }
        for (int i = 0; i < 100; i++) {
            kg_quantity t = kg_quantity_new_scaled(order[i], k);
            assert_true(kg_quantity_sub(&q, &t));
        }
        assert_true(kg_quantity_is_zero(&q));
    }
    kg_quantity q = kg_quantity_zero();
    int64_t order[100];
    for (int i = 0; i < 100; i++) {
        order[i] = ((int64_t)rand() << 32 | (uint32_t)rand()) & INT64_MAX;
        kg_quantity t = kg_quantity_new_scaled(order[i], (int32_t)(order[i] % 20 - 10));
        assert_true(kg_quantity_add(&q, &t));
    }
    for (int i = 0; i < 100; i++) {
        kg_quantity t = kg_quantity_new_scaled(order[i], (int32_t)(order[i] % 20 - 10));
        assert_true(kg_quantity_sub(&q, &t));
    }
    assert_true(kg_quantity_is_zero(&q));
    /* double negation */
    for (int k = -10; k <= 10; k++) {
        for (int i = 0; i < 50; i++) {
            kg_quantity a = kg_quantity_new_scaled(((int64_t)rand() << 32 | (uint32_t)rand()) & INT64_MAX, k);
            if (i & 1)
                kg_quantity_to_dec(&a);
            kg_quantity b = a;
            kg_quantity_neg(&b);
            kg_quantity_neg(&b);
            assert_int_equal(kg_quantity_cmp(&a, &b), 0);
        }
    }
}

static int64_t rnd64(void)
{
    return (int64_t)(((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 11) ^ (uint64_t)rand()) & INT64_MAX;
}

/* Properties over random quantities: String() parses back to an equal value, comparisons are antisymmetric and
 * agree with subtraction, and (a + b) - b == a, on both representations. */
static void test_random_properties(void **st)
{
    (void)st;
    srand(7);
    const char *suffixes[] = {"",  "m",  "u",  "n",  "k",  "M",  "G",   "T",  "P",
                              "E", "Ki", "Mi", "Gi", "Ti", "e3", "e-7", "E12"};
    for (int i = 0; i < 3000; i++) {
        kg_quantity q[2];
        for (int k = 0; k < 2; k++) {
            char text[80];
            int64_t v = rnd64() % 1000000007;
            int frac = rand() % 4;
            const char *suf = suffixes[rand() % (sizeof suffixes / sizeof suffixes[0])];
            if (frac)
                snprintf(text, sizeof text, "%s%lld.%0*d%s", rand() % 3 == 0 ? "-" : "", (long long)v, frac,
                         rand() % 1000, suf);
            else
                snprintf(text, sizeof text, "%s%lld%s", rand() % 3 == 0 ? "-" : "", (long long)v, suf);
            q[k] = P(text);
            if (rand() % 2)
                kg_quantity_to_dec(&q[k]);
            kg_quantity back = P(S(&q[k]));
            if (kg_quantity_cmp(&back, &q[k]) != 0)
                fail_msg("%s -> %s does not round-trip", text, S(&q[k]));
            if (strcmp(S(&back), S(&q[k])) != 0 && back.format == q[k].format)
                fail_msg("%s: canonical %s re-prints as %s", text, S(&q[k]), S(&back));
        }
        int c = kg_quantity_cmp(&q[0], &q[1]);
        assert_int_equal(kg_quantity_cmp(&q[1], &q[0]), -c);
        kg_quantity d = q[0];
        assert_true(kg_quantity_sub(&d, &q[1]));
        assert_int_equal(kg_quantity_sign(&d), c);
        kg_quantity s = q[0];
        assert_true(kg_quantity_add(&s, &q[1]));
        assert_true(kg_quantity_sub(&s, &q[1]));
        if (kg_quantity_cmp(&s, &q[0]) != 0)
            fail_msg("(%s + %s) - %s = %s", S(&q[0]), S(&q[1]), S(&q[1]), S(&s));
        /* Value() is the ceiling of the magnitude (away from zero) */
        int64_t v = kg_quantity_value(&q[0]);
        kg_quantity vq = kg_quantity_new(v, KG_QFMT_DECIMAL_SI);
        int sign = kg_quantity_sign(&q[0]);
        bool in_range = kg_quantity_cmp_int64(&q[0], INT64_MIN) >= 0 && kg_quantity_cmp_int64(&q[0], INT64_MAX) <= 0;
        if (!in_range) {
            assert_int_equal(v, sign > 0 ? INT64_MAX : INT64_MIN); /* saturated */
        } else {
            /* the ceiling of the magnitude: within one unit, never closer to zero */
            kg_quantity diff = vq;
            kg_quantity_sub(&diff, &q[0]);
            if (sign * kg_quantity_sign(&diff) < 0 || kg_quantity_cmp_int64(&diff, 1) >= 0 ||
                kg_quantity_cmp_int64(&diff, -1) <= 0)
                fail_msg("Value(%s) = %lld", S(&q[0]), (long long)v);
        }
    }
}

static void test_float_and_json(void **st)
{
    (void)st;
    kg_quantity q = P("2Ki");
    assert_true(kg_quantity_as_float64(&q) == 2048.0);
    q = P("1.1Ki");
    assert_true(kg_quantity_as_float64(&q) == 1126.4);
    q = P("2Gi");
    assert_true(kg_quantity_as_float64(&q) == 2.147483648e+09);
    q = IQ(12, 18, DSI);
    assert_true(kg_quantity_as_float64(&q) == 1.2e19);
    q = DQ(7 * 1024 * 1024, 4, DSI);
    assert_true(kg_quantity_as_float64(&q) == 7.0 * 1024 * 1024 * 10000);

    kg_arena a;
    kg_arena_init(&a, 0);
    const char *cases[][2] = {{"\" 1\"", "1"}, {"\"1 \"", "1"},  {"1", "1"},         {" 1", "1"},  {"10", "10"},
                              {"-1", "-1"},    {"1.5", "1500m"}, {"\"1Mi\"", "1Mi"}, {"null", "0"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kg_error err;
        kg_json *j = kg_json_parse(&a, cases[i][0], strlen(cases[i][0]), &err);
        assert_non_null(j);
        assert_true(kg_quantity_from_json(j, &q, &err));
        assert_string_equal(kg_quantity_string(&a, &q), cases[i][1]);
    }
    kg_error err;
    kg_json *j = kg_json_parse(&a, "true", 4, &err);
    assert_false(kg_quantity_from_json(j, &q, &err));
    q = P("1.5Gi");
    assert_string_equal(kg_json_to_string(&a, kg_quantity_to_json(&a, &q), 0, NULL), "\"1536Mi\"");
    assert_int_equal(KG_QUANTITY_MAX_MILLI_VALUE, 9223372036854775LL);
    kg_buf b = KG_BUF_INIT;
    q = P("1536Mi");
    kg_quantity_write(&b, &q);
    assert_string_equal(kg_buf_cstr(&b), "1536Mi");
    kg_buf_free(&b);
    kg_arena_free(&a);
}

/* The parser's fast path (plain digits with an SI or binary suffix) against the general parser on every shape
 * around its edges: digit counts 1-17, trailing zeros, leading zeros, signs, every suffix and near-suffixes. */
static void fast_path_matches_general(void **state)
{
    (void)state;
    static const char *const sufs[] = {"",   "n",  "u",  "m",  "k",  "M",  "G",  "T",  "P",  "E",  "Ki", "Mi",
                                       "Gi", "Ti", "Pi", "Ei", "K",  "mi", "ki", "i",  "e3", "E3", "Zi", "x",
                                       "Kii", "MM", ".5", "e",  "-1", " "};
    static const char *const bodies[] = {"1", "7", "8", "12", "100", "1000", "1024", "999", "5000", "123456789",
                                         "100000000000000", "999999999999999", "1000000000000000",
                                         "9999999999999999", "12345678901234567", "0", "00", "01", "0100", "-5",
                                         "+5", "250", "128", "64", "3"};
    size_t checked = 0;
    for (size_t b = 0; b < sizeof bodies / sizeof *bodies; b++)
        for (size_t k = 0; k < sizeof sufs / sizeof *sufs; k++) {
            char text[64];
            snprintf(text, sizeof text, "%s%s", bodies[b], sufs[k]);
            size_t n = strlen(text);
            kg_quantity f, g;
            KG_ERROR_DECL(ef);
            KG_ERROR_DECL(eg);
            bool okf = kg_quantity_parse(text, n, &f, &ef), okg = kg_quantity_parse_general(text, n, &g, &eg);
            if (okf != okg)
                fail_msg("%s: parse %d, general %d", text, okf, okg);
            if (!okf) {
                assert_string_equal(ef.msg, eg.msg);
                continue;
            }
            checked++;
            if (f.format != g.format || f.is_dec != g.is_dec || f.d_neg != g.d_neg || strcmp(f.s, g.s) != 0 ||
                (!f.is_dec && (f.i_value != g.i_value || f.i_scale != g.i_scale)) ||
                (f.is_dec && (f.d_exp != g.d_exp || f.d_mag.n != g.d_mag.n ||
                              memcmp(f.d_mag.d, g.d_mag.d, f.d_mag.n * sizeof *f.d_mag.d) != 0)))
                fail_msg("%s: fast and general parses differ", text);
            char bf[80], bg[80];
            kg_quantity_format(&f, bf, sizeof bf);
            kg_quantity_format(&g, bg, sizeof bg);
            assert_string_equal(bf, bg);
        }
    assert_true(checked > 300);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fast_path_matches_general),
        cmocka_unit_test(test_parse_table),
        cmocka_unit_test(test_parse_invalid),
        cmocka_unit_test(test_string_table),
        cmocka_unit_test(test_parse_emit),
        cmocka_unit_test(test_parse_int64_or_dec),
        cmocka_unit_test(test_round_up),
        cmocka_unit_test(test_cmp_int64_and_dec),
        cmocka_unit_test(test_new_set_and_scaled),
        cmocka_unit_test(test_value_rounds_away_from_zero),
        cmocka_unit_test(test_add_sub_mul_neg),
        cmocka_unit_test(test_add_sub_round_trip),
        cmocka_unit_test(test_float_and_json),
        cmocka_unit_test(test_random_properties),
        cmocka_unit_test(test_long_digit_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
