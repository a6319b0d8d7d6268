/* Base64 (RFC 4648): the one encoder and decoder in kgate.
 *
 * Alphabets: standard ("+/", Go's base64.StdEncoding) or URL-safe ("-_", base64.URLEncoding); KG_BASE64_RAW
 * drops the '=' padding (RawStdEncoding / RawURLEncoding).
 *
 * Decoding strictness is chosen per caller with flags, because the formats kgate reads accept different inputs:
 *
 *   flags                                   accepts                                        used for
 *   0 / KG_BASE64_SKIP_CRLF                 Go's StdEncoding.DecodeString: data in groups   OpenAPI "byte" format
 *                                           of 4, '=' padding required and only at the end  (CEL isFormat)
 *                                           (with SKIP_CRLF: CR and LF ignored, as Go)
 *   KG_BASE64_RAW [| KG_BASE64_URL]         Go's RawStdEncoding / RawURLEncoding: no '=',   continue tokens, CEL
 *                                           a final group of 1 character is an error        base64.decode
 *   KG_BASE64_PAD_OPTIONAL | SKIP_SPACE     '=' may end the data or be absent; whitespace   CSR PEM bodies
 *                                           skipped; no group-length check
 *   KG_BASE64_IGNORE_PAD | BOTH_ALPHABETS   '=' ignored wherever it is; either alphabet     kubeconfig *-data
 *
 * None of the modes checks that the unused low bits of the last character are zero (Go's non-Strict() default).
 * On failure the decoder reports the input offset Go's CorruptInputError would name for the shapes its callers
 * see: the first character that is not valid there, or the input length when the input ends mid-group. */
#ifndef KG_BASE_BASE64_H
#define KG_BASE_BASE64_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/buf.h"

enum {
    KG_BASE64_URL = 1u << 0,            /* URL alphabet ('-', '_') instead of '+', '/' */
    KG_BASE64_RAW = 1u << 1,            /* encode without padding; decode: '=' invalid, a 1-char final group invalid */
    KG_BASE64_BOTH_ALPHABETS = 1u << 2, /* decode: accept '+', '/', '-' and '_' */
    KG_BASE64_SKIP_CRLF = 1u << 3,      /* decode: ignore '\r' and '\n' */
    KG_BASE64_SKIP_SPACE = 1u << 4,     /* decode: ignore ' ', '\t', '\r' and '\n' */
    KG_BASE64_PAD_OPTIONAL = 1u << 5,   /* decode: trailing '=' optional, data after '=' invalid, no length check */
    KG_BASE64_IGNORE_PAD = 1u << 6,     /* decode: '=' ignored anywhere, no length check */
};

/* Length of the encoding of n bytes (without NUL). Only KG_BASE64_RAW matters. */
size_t kg_base64_encoded_len(size_t n, unsigned flags);
/* Encode n bytes at p into out (room for kg_base64_encoded_len + 1); NUL-terminates, returns the length. */
size_t kg_base64_encode_to(char *out, const void *p, size_t n, unsigned flags);
/* Append the encoding to b. */
void kg_base64_encode_buf(kg_buf *b, const void *p, size_t n, unsigned flags);
/* The encoding as a NUL-terminated arena string; *len (optional) receives its length. */
char *kg_base64_encode(kg_arena *a, const void *p, size_t n, unsigned flags, size_t *len);

/* Room kg_base64_decode_to may write for n input characters (including a NUL terminator). */
static inline size_t kg_base64_decoded_cap(size_t n)
{
    return n / 4 * 3 + 4;
}
/* Decode s[0..n) into out (room for kg_base64_decoded_cap(n)); NUL-terminates. On success *out_len is the
 * decoded length; on failure returns false and *err_pos (optional) is the offending input offset. */
bool kg_base64_decode_to(const char *s, size_t n, unsigned flags, void *out, size_t *out_len, size_t *err_pos);
/* Decode into a NUL-terminated arena buffer; NULL on failure (*err_pos as above). */
char *kg_base64_decode(kg_arena *a, const char *s, size_t n, unsigned flags, size_t *out_len, size_t *err_pos);
/* Whether s[0..n) decodes under flags. */
bool kg_base64_valid(const char *s, size_t n, unsigned flags);

#endif
