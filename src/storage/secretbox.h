/* NaCl's crypto_secretbox (XSalsa20-Poly1305), as golang.org/x/crypto/nacl/secretbox which kube-apiserver's
 * secretbox encryption provider uses: a 32-byte key, a 24-byte nonce, and a box that is the 16-byte Poly1305 tag
 * followed by the XSalsa20 ciphertext. The Poly1305 one-time key is the first 32 bytes of the key stream; the
 * message is XORed with the stream from byte 32 on.
 *
 * XSalsa20 is salsa20.c (OpenSSL has none); Poly1305 is OpenSSL's (EVP_MAC "POLY1305", fetched once). Opening
 * checks the tag in constant time before anything is decrypted. */
#ifndef KG_STORAGE_SECRETBOX_H
#define KG_STORAGE_SECRETBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KG_SECRETBOX_KEY_BYTES 32
#define KG_SECRETBOX_NONCE_BYTES 24
#define KG_SECRETBOX_OVERHEAD 16

/* Poly1305 of m under a one-time 32-byte key. False only when OpenSSL fails. */
bool kg_poly1305(uint8_t tag[16], const uint8_t *m, size_t len, const uint8_t key[32]);

/* Seal len bytes of msg into box (room for len + KG_SECRETBOX_OVERHEAD bytes; box must not overlap msg). False
 * only when OpenSSL fails. */
bool kg_secretbox_seal(uint8_t *box, const uint8_t *msg, size_t len, const uint8_t nonce[24], const uint8_t key[32]);

/* Open a box of box_len bytes into msg (room for box_len - KG_SECRETBOX_OVERHEAD bytes). False when the box is
 * shorter than the tag, the tag does not verify (wrong key, tampered data) or OpenSSL fails; msg is then not
 * written. */
bool kg_secretbox_open(uint8_t *msg, const uint8_t *box, size_t box_len, const uint8_t nonce[24],
                       const uint8_t key[32]);

#endif
