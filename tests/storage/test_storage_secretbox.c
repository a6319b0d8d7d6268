/* NaCl secretbox (storage/secretbox.h) and its XSalsa20 (storage/salsa20.h) against published known answers:
 * NaCl's tests (core1/core2/core4/core5 for the Salsa20 and HSalsa20 cores, stream2 for 4 MiB of Salsa20 key
 * stream by its SHA-256, stream3 for XSalsa20, secretbox.c for the box itself, and the Poly1305 vector that
 * authenticates it), RFC 8439 section 2.5.2 for Poly1305, and Go x/crypto's TestSecretBox; then tampering with
 * any byte, a wrong key and a short box are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "storage/salsa20.h"
#include "storage/secretbox.h"

static size_t hex(const char *s, uint8_t *out)
{
    size_t n = strlen(s) / 2;
    for (size_t i = 0; i < n; i++)
        sscanf(s + 2 * i, "%2hhx", &out[i]);
    return n;
}

#define FIRSTKEY "1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389"
#define SECONDKEY "dc908dda0b9344a953629b733820778880f3ceb421bb61b91cbd4c3e66256ce4"
#define NONCE "69696ee955b62b73cd62bda875fc73d68219e0036b7a0b37"
#define POLYKEY "eea6a7251c1e72916d11c2cb214d3c252539121d8e234e652d651fa4c8cff880"
#define MSG                                                                                                            \
    "be075fc53c81f2d5cf141316ebeb0c7b5228c52a4c62cbd44b66849b64244ffce5ecbaaf33bd751a1ac728d45e6c6129"                 \
    "6cdc3c01233561f41db66cce314adb310e3be8250c46f06dceea3a7fa1348057e2f6556ad6b1318a024a838f21af1fde"                 \
    "048977eb48f59ffd4924ca1c60902e52f0a089bc76897040e082f937763848645e0705"
#define TAG "f3ffc7703f9400e52a7dfb4b3d3305d9"
#define CT                                                                                                             \
    "8e993b9f48681273c29650ba32fc76ce48332ea7164d96a4476fb8c531a1186ac0dfc17c98dce87b4da7f011ec48c972"                 \
    "71d2c20f9b928fe2270d6fb863d51738b48eeee314a7cc8ab932164548e526ae90224368517acfeabd6bb3732bc0e9da"                 \
    "99832b61ca01b6de56244a9e88d5f9b37973f622a43d14a6599b1f654cb45a74e355a5"

static void expect_hex(const uint8_t *got, const char *want)
{
    uint8_t w[512];
    size_t n = hex(want, w);
    assert_memory_equal(got, w, n);
}

static void test_salsa20_core(void **state)
{
    (void)state;
    /* core4: the Salsa20 specification's expansion example */
    uint8_t k[32], in[16], out[64];
    for (int i = 0; i < 16; i++) {
        k[i] = (uint8_t)(1 + i);
        k[16 + i] = (uint8_t)(201 + i);
        in[i] = (uint8_t)(101 + i);
    }
    kg_salsa20_core(out, k, in);
    static const uint8_t want[64] = {69,  37,  68,  39,  41,  15,  107, 193, 255, 139, 122, 6,   170, 233, 217, 98,
                                     89,  144, 182, 106, 21,  51,  200, 65,  239, 49,  222, 34,  215, 114, 40,  126,
                                     104, 197, 7,   225, 197, 153, 31,  2,   102, 78,  76,  176, 84,  245, 246, 184,
                                     177, 160, 133, 130, 6,   72,  149, 119, 192, 195, 132, 236, 234, 103, 246, 74};
    assert_memory_equal(out, want, 64);
}

static void test_hsalsa20(void **state)
{
    (void)state;
    uint8_t key[32], in[24] = {0}, out[32]; /* in: room for the whole nonce, HSalsa20 reads 16 bytes */
    /* core1: the shared secret of NaCl's box test to the first key */
    hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742", key);
    kg_hsalsa20(out, key, in);
    expect_hex(out, FIRSTKEY);
    /* core2: first key and the nonce prefix to the second key */
    hex(FIRSTKEY, key);
    hex(NONCE, in); /* the first 16 bytes */
    kg_hsalsa20(out, key, in);
    expect_hex(out, SECONDKEY);
    /* core5 */
    hex("ee304fca27008d8c126f90027901d80f7f1d8b8dc936cf3b9f819692827e5777", key);
    hex("81918ef2a5e0da9b3e9060521e4bb352", in);
    kg_hsalsa20(out, key, in);
    expect_hex(out, "bc1b30fc072cc14075e4baa731b5a845ea9b11e9a5191f94e18cba8fd821a7cd");
}

static void test_stream(void **state)
{
    (void)state;
    /* stream2: 4 MiB of Salsa20 key stream (second key, nonce suffix) by its SHA-256 */
    size_t n = 4194304;
    uint8_t *buf = calloc(1, n), key[32], nonce[24], digest[32];
    assert_non_null(buf);
    hex(SECONDKEY, key);
    hex(NONCE, nonce);
    kg_salsa20_xor(buf, buf, n, nonce + 16, 0, key);
    unsigned dn = 0;
    assert_int_equal(EVP_Digest(buf, n, digest, &dn, EVP_sha256(), NULL), 1);
    expect_hex(digest, "662b9d0e3463029156069b12f918691a98f7dfb2ca0393c96bbfc6b1fbd630a2");
    /* the same stream through XSalsa20 from the first key and the whole nonce; stream3: its first 32 bytes */
    uint8_t *x = calloc(1, n);
    assert_non_null(x);
    hex(FIRSTKEY, key);
    kg_xsalsa20_xor(x, x, n, nonce, 0, key);
    assert_memory_equal(x, buf, n);
    expect_hex(x, POLYKEY);
    /* starting at a later block gives the same bytes as the full stream there, also across odd lengths */
    uint8_t part[200] = {0};
    kg_xsalsa20_xor(part, part, 131, nonce, 5, key);
    assert_memory_equal(part, x + 5 * 64, 131);
    free(buf);
    free(x);
}

static void test_poly1305(void **state)
{
    (void)state;
    uint8_t key[32], msg[256], tag[16];
    /* NaCl: the secretbox ciphertext under the key stream's first 32 bytes */
    hex(POLYKEY, key);
    size_t n = hex(CT, msg);
    assert_true(kg_poly1305(tag, msg, n, key));
    expect_hex(tag, TAG);
    /* RFC 8439 2.5.2 */
    hex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b", key);
    const char *m = "Cryptographic Forum Research Group";
    assert_true(kg_poly1305(tag, (const uint8_t *)m, strlen(m), key));
    expect_hex(tag, "a8061dc1305136c6c22b8baf0c0127a9");
    /* poly1305-donna's wrap test: the accumulator reaches 2^130 - 2, the tag is 3 */
    memset(key, 0, sizeof key);
    key[0] = 2;
    memset(msg, 0xff, 16);
    assert_true(kg_poly1305(tag, msg, 16, key));
    expect_hex(tag, "03000000000000000000000000000000");
}

static void test_secretbox_known_answers(void **state)
{
    (void)state;
    uint8_t key[32], nonce[24], msg[200], box[216], opened[200];
    hex(FIRSTKEY, key);
    hex(NONCE, nonce);
    size_t n = hex(MSG, msg);
    assert_int_equal(n, 131);
    assert_true(kg_secretbox_seal(box, msg, n, nonce, key));
    expect_hex(box, TAG CT);
    memset(opened, 0, sizeof opened);
    assert_true(kg_secretbox_open(opened, box, n + 16, nonce, key));
    assert_memory_equal(opened, msg, n);

    /* Go x/crypto TestSecretBox (generated with NaCl's C implementation) */
    memset(key, 1, 32);
    memset(nonce, 2, 24);
    memset(msg, 3, 64);
    assert_true(kg_secretbox_seal(box, msg, 64, nonce, key));
    expect_hex(box, "8442bc313f4626f1359e3b50122b6ce6fe66ddfe7d39d14e637eb4fd5b45beadab55198df6ab5368439792a23c87db"
                    "70acb6156dc5ef957ac04f6276cf6093b84be77ff0849cc33e34b7254d5a8f65ad");
}

static void test_secretbox_refuses(void **state)
{
    (void)state;
    uint8_t key[32], nonce[24], msg[100], box[116], opened[100];
    for (int i = 0; i < 32; i++)
        key[i] = (uint8_t)(7 * i);
    for (int i = 0; i < 24; i++)
        nonce[i] = (uint8_t)(3 * i + 1);
    /* every length around the 32-byte first block and block boundaries round-trips */
    for (size_t len = 0; len <= sizeof msg; len += (len < 40 ? 1 : 13)) {
        for (size_t i = 0; i < len; i++)
            msg[i] = (uint8_t)(i * 31 + len);
        assert_true(kg_secretbox_seal(box, msg, len, nonce, key));
        assert_true(kg_secretbox_open(opened, box, len + 16, nonce, key));
        assert_memory_equal(opened, msg, len);
    }
    size_t len = 100;
    assert_true(kg_secretbox_seal(box, msg, len, nonce, key));
    /* one flipped bit anywhere (tag or ciphertext) is refused and nothing is written */
    for (size_t i = 0; i < len + 16; i++) {
        box[i] ^= 0x20;
        memset(opened, 0xaa, sizeof opened);
        assert_false(kg_secretbox_open(opened, box, len + 16, nonce, key));
        assert_int_equal(opened[0], 0xaa);
        box[i] ^= 0x20;
    }
    /* a wrong key or nonce, a truncated box, a box shorter than its tag */
    key[31] ^= 1;
    assert_false(kg_secretbox_open(opened, box, len + 16, nonce, key));
    key[31] ^= 1;
    nonce[23] ^= 1;
    assert_false(kg_secretbox_open(opened, box, len + 16, nonce, key));
    nonce[23] ^= 1;
    assert_false(kg_secretbox_open(opened, box, len + 15, nonce, key));
    assert_false(kg_secretbox_open(opened, box, 15, nonce, key));
    assert_true(kg_secretbox_open(opened, box, len + 16, nonce, key));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_salsa20_core),
        cmocka_unit_test(test_hsalsa20),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_poly1305),
        cmocka_unit_test(test_secretbox_known_answers),
        cmocka_unit_test(test_secretbox_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
