/* base/base64 (RFC 4648 vectors, Go encoding/base64 decoding rules per mode) and base/hash (FNV-1a). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/arena.h"
#include "base/base64.h"
#include "base/buf.h"
#include "base/hash.h"

static void encode_rfc4648_vectors(void **state)
{
    (void)state;
    static const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *std[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    static const char *raw[] = {"", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy"};
    kg_arena a;
    kg_arena_init(&a, 0);
    for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
        size_t n = strlen(in[i]), len = 0;
        assert_string_equal(kg_base64_encode(&a, in[i], n, 0, &len), std[i]);
        assert_int_equal(len, strlen(std[i]));
        assert_int_equal(kg_base64_encoded_len(n, 0), strlen(std[i]));
        assert_string_equal(kg_base64_encode(&a, in[i], n, KG_BASE64_RAW, NULL), raw[i]);
        assert_int_equal(kg_base64_encoded_len(n, KG_BASE64_RAW), strlen(raw[i]));
    }
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "x:");
    kg_base64_encode_buf(&b, "\xfb\xff", 2, 0);
    assert_string_equal(kg_buf_cstr(&b), "x:+/8=");
    kg_buf_free(&b);
    assert_string_equal(kg_base64_encode(&a, "\xfb\xff", 2, KG_BASE64_URL | KG_BASE64_RAW, NULL), "-_8");
    kg_arena_free(&a);
}

static bool dec(const char *s, unsigned flags, const char *want, size_t *err_pos)
{
    char out[64];
    size_t len = 0;
    if (!kg_base64_decode_to(s, strlen(s), flags, out, &len, err_pos))
        return false;
    assert_non_null(want);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(out, want, len);
    return true;
}

static void decode_go_std(void **state)
{
    (void)state;
    size_t pos = 0;
    assert_true(dec("", 0, "", NULL));
    assert_true(dec("Zm9vYmFy", 0, "foobar", NULL));
    assert_true(dec("Zm9vYg==", 0, "foob", NULL));
    assert_true(dec("Zm9vYmE=", 0, "fooba", NULL));
    assert_true(dec("Zm9v\r\nYg==\n", KG_BASE64_SKIP_CRLF, "foob", NULL));
    assert_false(dec("Zm9v\nYg==", 0, NULL, &pos)); /* CR/LF only skipped when asked */
    assert_false(dec("Zm9vYg", 0, NULL, NULL));     /* padding required */
    assert_false(dec("Zm9vYg=", 0, NULL, NULL));
    assert_false(dec("Zm9vY===", 0, NULL, NULL));
    assert_false(dec("Zm9v=", 0, NULL, NULL));
    assert_false(dec("Zg==Zg==", 0, NULL, &pos)); /* data after padding */
    assert_int_equal(pos, 4);
    assert_false(dec("Zm-v", 0, NULL, &pos)); /* URL alphabet */
    assert_int_equal(pos, 2);
    assert_true(kg_base64_valid("Zm9vYg==", 8, 0));
    assert_false(kg_base64_valid("Zm9vY", 5, 0));
}

static void decode_go_raw(void **state)
{
    (void)state;
    size_t pos = 0;
    assert_true(dec("Zm9vYg", KG_BASE64_RAW, "foob", NULL));
    assert_true(dec("-_8", KG_BASE64_RAW | KG_BASE64_URL, "\xfb\xff", NULL));
    assert_false(dec("+/8", KG_BASE64_RAW | KG_BASE64_URL, NULL, &pos));
    assert_int_equal(pos, 0);
    assert_false(dec("Zm9vYg==", KG_BASE64_RAW, NULL, &pos)); /* '=' is not in the alphabet */
    assert_int_equal(pos, 6);
    assert_false(dec("Zm9vY", KG_BASE64_RAW, NULL, &pos)); /* a 1-character final group */
    assert_int_equal(pos, 5);
}

static void decode_lenient_modes(void **state)
{
    (void)state;
    /* PEM-style bodies: whitespace anywhere, padding optional, nothing after padding */
    unsigned pem = KG_BASE64_SKIP_SPACE | KG_BASE64_PAD_OPTIONAL;
    assert_true(dec(" Zm9v\tYg==\r\n", pem, "foob", NULL));
    assert_true(dec("Zm9vYg", pem, "foob", NULL));
    assert_false(dec("Zg==Zg", pem, NULL, NULL));
    /* kubeconfig data: either alphabet, '=' ignored anywhere */
    unsigned kc = KG_BASE64_BOTH_ALPHABETS | KG_BASE64_IGNORE_PAD | KG_BASE64_SKIP_SPACE;
    assert_true(dec("-_8=", kc, "\xfb\xff", NULL));
    assert_true(dec("+/8", kc, "\xfb\xff", NULL));
    assert_true(dec("Zm9v=Yg==", kc, "foob", NULL));
    assert_false(dec("Zm9v*", kc, NULL, NULL));
    /* arena form is NUL-terminated */
    kg_arena a;
    kg_arena_init(&a, 0);
    size_t len = 0;
    char *s = kg_base64_decode(&a, "Zm9vYmFy", 8, 0, &len, NULL);
    assert_string_equal(s, "foobar");
    assert_null(kg_base64_decode(&a, "Zm9", 3, 0, &len, NULL));
    kg_arena_free(&a);
}

static void round_trip_all_lengths(void **state)
{
    (void)state;
    unsigned char in[40];
    char enc[64], out[64];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (unsigned char)(i * 37 + 11);
    static const unsigned modes[] = {0, KG_BASE64_RAW, KG_BASE64_URL, KG_BASE64_URL | KG_BASE64_RAW};
    for (size_t m = 0; m < 4; m++)
        for (size_t n = 0; n <= sizeof in; n++) {
            size_t el = kg_base64_encode_to(enc, in, n, modes[m]), dl = 0;
            assert_int_equal(el, kg_base64_encoded_len(n, modes[m]));
            assert_true(kg_base64_decode_to(enc, el, modes[m], out, &dl, NULL));
            assert_int_equal(dl, n);
            assert_memory_equal(out, in, n);
        }
}

static void fnv1a_vectors(void **state)
{
    (void)state;
    /* published FNV-1a 32-bit vectors */
    assert_int_equal(kg_fnv1a32("", 0), 0x811c9dc5u);
    assert_int_equal(kg_fnv1a32("a", 1), 0xe40c292cu);
    assert_int_equal(kg_fnv1a32_str("foobar"), 0xbf9cf968u);
    /* the 64-bit start value kgate has always used (see base/hash.h) */
    assert_true(kg_fnv1a64("", 0) == KG_FNV1A64_INIT);
    assert_true(kg_fnv1a64("a", 1) == (KG_FNV1A64_INIT ^ 'a') * KG_FNV1A64_PRIME);
    assert_true(kg_fnv1a64_str("foobar") == kg_fnv1a64("foobar", 6));
    assert_true(kg_fnv1a64_continue(kg_fnv1a64("foo", 3), "bar", 3) == kg_fnv1a64("foobar", 6));
    assert_true(kg_fnv1a64_byte(KG_FNV1A64_INIT, 'x') == kg_fnv1a64("x", 1));
    assert_true(kg_fnv1a32_continue(kg_fnv1a32("foo", 3), "bar", 3) == kg_fnv1a32("foobar", 6));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(encode_rfc4648_vectors), cmocka_unit_test(decode_go_std),
        cmocka_unit_test(decode_go_raw),          cmocka_unit_test(decode_lenient_modes),
        cmocka_unit_test(round_trip_all_lengths), cmocka_unit_test(fnv1a_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
