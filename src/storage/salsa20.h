/* Salsa20/20, HSalsa20 and XSalsa20 (D. J. Bernstein: "Salsa20 specification", "Extending the Salsa20 nonce"),
 * the stream cipher of NaCl's secretbox (secretbox.h). Portable C, little-endian byte order as specified.
 *
 *   kg_salsa20_core   one 64-byte block: the Salsa20/20 hash of the state built from a 32-byte key and a 16-byte
 *                     input (8-byte nonce then the 64-bit little-endian block counter), "expand 32-byte k" constants
 *   kg_hsalsa20       the 32-byte subkey XSalsa20 derives from a key and the first 16 nonce bytes (the same
 *                     rounds without the final addition, words 0,5,10,15,6,7,8,9 of the result)
 *   kg_salsa20_xor    in XOR the Salsa20 key stream for (key, 8-byte nonce) starting at block `counter`
 *   kg_xsalsa20_xor   the same for a 24-byte nonce: Salsa20 under HSalsa20(key, nonce[0..16)) with nonce[16..24)
 *
 * out may equal in. Known-answer tests (NaCl's core/stream vectors) are in tests/storage/test_storage_secretbox.c. */
#ifndef KG_STORAGE_SALSA20_H
#define KG_STORAGE_SALSA20_H

#include <stddef.h>
#include <stdint.h>

void kg_salsa20_core(uint8_t out[64], const uint8_t key[32], const uint8_t in[16]);
void kg_hsalsa20(uint8_t out[32], const uint8_t key[32], const uint8_t in[16]);
void kg_salsa20_xor(uint8_t *out, const uint8_t *in, size_t len, const uint8_t nonce[8], uint64_t counter,
                    const uint8_t key[32]);
void kg_xsalsa20_xor(uint8_t *out, const uint8_t *in, size_t len, const uint8_t nonce[24], uint64_t counter,
                     const uint8_t key[32]);

#endif
