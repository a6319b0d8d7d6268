/* XSalsa20-Poly1305 secretbox (see secretbox.h). */
#include "storage/secretbox.h"

#include <pthread.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "storage/salsa20.h"

static EVP_MAC *g_poly1305;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void fetch(void)
{
    g_poly1305 = EVP_MAC_fetch(NULL, "POLY1305", NULL);
}

bool kg_poly1305(uint8_t tag[16], const uint8_t *m, size_t len, const uint8_t key[32])
{
    pthread_once(&g_once, fetch);
    if (!g_poly1305)
        return false;
    EVP_MAC_CTX *c = EVP_MAC_CTX_new(g_poly1305);
    size_t n = 0;
    bool ok = c && EVP_MAC_init(c, key, 32, NULL) == 1 && EVP_MAC_update(c, m, len) == 1 &&
              EVP_MAC_final(c, tag, &n, 16) == 1 && n == 16;
    EVP_MAC_CTX_free(c);
    return ok;
}

/* The first key-stream block: its first 32 bytes are the Poly1305 key, the other 32 encrypt the message start. */
static void first_block(uint8_t block[64], const uint8_t nonce[24], const uint8_t key[32], uint8_t subkey[32])
{
    uint8_t in[16] = {0};
    kg_hsalsa20(subkey, key, nonce);
    memcpy(in, nonce + 16, 8);
    kg_salsa20_core(block, subkey, in);
}

/* out = in XOR the key stream from byte 32 on */
static void stream_xor(uint8_t *out, const uint8_t *in, size_t len, const uint8_t block[64], const uint8_t nonce[24],
                       const uint8_t subkey[32])
{
    size_t head = len < 32 ? len : 32;
    for (size_t i = 0; i < head; i++)
        out[i] = in[i] ^ block[32 + i];
    if (len > head)
        kg_salsa20_xor(out + head, in + head, len - head, nonce + 16, 1, subkey);
}

bool kg_secretbox_seal(uint8_t *box, const uint8_t *msg, size_t len, const uint8_t nonce[24], const uint8_t key[32])
{
    uint8_t block[64], subkey[32];
    first_block(block, nonce, key, subkey);
    stream_xor(box + KG_SECRETBOX_OVERHEAD, msg, len, block, nonce, subkey);
    bool ok = kg_poly1305(box, box + KG_SECRETBOX_OVERHEAD, len, block);
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(subkey, sizeof subkey);
    return ok;
}

bool kg_secretbox_open(uint8_t *msg, const uint8_t *box, size_t box_len, const uint8_t nonce[24], const uint8_t key[32])
{
    if (box_len < KG_SECRETBOX_OVERHEAD)
        return false;
    uint8_t block[64], subkey[32], tag[16];
    first_block(block, nonce, key, subkey);
    size_t len = box_len - KG_SECRETBOX_OVERHEAD;
    bool ok = kg_poly1305(tag, box + KG_SECRETBOX_OVERHEAD, len, block) && CRYPTO_memcmp(tag, box, 16) == 0;
    if (ok)
        stream_xor(msg, box + KG_SECRETBOX_OVERHEAD, len, block, nonce, subkey);
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(subkey, sizeof subkey);
    return ok;
}
