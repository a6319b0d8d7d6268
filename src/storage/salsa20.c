/* Salsa20/20, HSalsa20 and XSalsa20 (see salsa20.h). */
#include "storage/salsa20.h"

#include <string.h>

#include <openssl/crypto.h>

static uint32_t load32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void store32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

#define ROTL(v, n) (((v) << (n)) | ((v) >> (32 - (n))))
#define QR(a, b, c, d)                                                                                                 \
    do {                                                                                                               \
        b ^= ROTL(a + d, 7);                                                                                           \
        c ^= ROTL(b + a, 9);                                                                                           \
        d ^= ROTL(c + b, 13);                                                                                          \
        a ^= ROTL(d + c, 18);                                                                                          \
    } while (0)

/* The initial state: "expand 32-byte k" on the diagonal, the key around it, the 16 input bytes in the middle. */
static void setup(uint32_t x[16], const uint8_t key[32], const uint8_t in[16])
{
    x[0] = 0x61707865;  /* "expa" */
    x[5] = 0x3320646e;  /* "nd 3" */
    x[10] = 0x79622d32; /* "2-by" */
    x[15] = 0x6b206574; /* "te k" */
    for (int i = 0; i < 4; i++) {
        x[1 + i] = load32(key + 4 * i);
        x[11 + i] = load32(key + 16 + 4 * i);
        x[6 + i] = load32(in + 4 * i);
    }
}

/* 20 rounds: 10 double rounds of a column round then a row round */
static void rounds(uint32_t x[16])
{
    for (int i = 0; i < 10; i++) {
        QR(x[0], x[4], x[8], x[12]);
        QR(x[5], x[9], x[13], x[1]);
        QR(x[10], x[14], x[2], x[6]);
        QR(x[15], x[3], x[7], x[11]);
        QR(x[0], x[1], x[2], x[3]);
        QR(x[5], x[6], x[7], x[4]);
        QR(x[10], x[11], x[8], x[9]);
        QR(x[15], x[12], x[13], x[14]);
    }
}

void kg_salsa20_core(uint8_t out[64], const uint8_t key[32], const uint8_t in[16])
{
    uint32_t j[16], x[16];
    setup(j, key, in);
    memcpy(x, j, sizeof x);
    rounds(x);
    for (int i = 0; i < 16; i++)
        store32(out + 4 * i, x[i] + j[i]);
    OPENSSL_cleanse(x, sizeof x);
    OPENSSL_cleanse(j, sizeof j);
}

void kg_hsalsa20(uint8_t out[32], const uint8_t key[32], const uint8_t in[16])
{
    static const int words[8] = {0, 5, 10, 15, 6, 7, 8, 9};
    uint32_t x[16];
    setup(x, key, in);
    rounds(x);
    for (int i = 0; i < 8; i++)
        store32(out + 4 * i, x[words[i]]);
    OPENSSL_cleanse(x, sizeof x);
}

void kg_salsa20_xor(uint8_t *out, const uint8_t *in, size_t len, const uint8_t nonce[8], uint64_t counter,
                    const uint8_t key[32])
{
    uint8_t block_in[16], ks[64];
    memcpy(block_in, nonce, 8);
    while (len > 0) {
        for (int i = 0; i < 8; i++)
            block_in[8 + i] = (uint8_t)(counter >> (8 * i));
        kg_salsa20_core(ks, key, block_in);
        size_t n = len < 64 ? len : 64;
        for (size_t i = 0; i < n; i++)
            out[i] = in[i] ^ ks[i];
        out += n;
        in += n;
        len -= n;
        counter++;
    }
    OPENSSL_cleanse(ks, sizeof ks);
}

void kg_xsalsa20_xor(uint8_t *out, const uint8_t *in, size_t len, const uint8_t nonce[24], uint64_t counter,
                     const uint8_t key[32])
{
    uint8_t subkey[32];
    kg_hsalsa20(subkey, key, nonce);
    kg_salsa20_xor(out, in, len, nonce + 16, counter, subkey);
    OPENSSL_cleanse(subkey, sizeof subkey);
}
