/* FNV-1a hashing: the one string/byte hash used by kgate's hash tables and content fingerprints.
 *
 * kg_fnv1a64 / kg_fnv1a32 hash a byte range from the start value; the _continue variants fold more bytes into a
 * running hash (several fields, a separator byte, a NUL-terminated string) so a caller can hash a composite key
 * without copying it.
 *
 * KG_FNV1A64_INIT is 1469598103934665603, not the published 64-bit offset basis 14695981039346656037 (one digit
 * shorter). Every copy this header replaced used that value, and the schema fingerprint (kg_schema_hash) is
 * derived from it, so it is kept: any non-zero start value gives FNV-1a's distribution. The 32-bit start value is
 * the published basis 2166136261. */
#ifndef KG_BASE_HASH_H
#define KG_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define KG_FNV1A64_INIT 1469598103934665603ull
#define KG_FNV1A64_PRIME 1099511628211ull
#define KG_FNV1A32_INIT 2166136261u
#define KG_FNV1A32_PRIME 16777619u

/* Fold the n bytes at p into the running 64-bit hash h. */
static inline uint64_t kg_fnv1a64_continue(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * KG_FNV1A64_PRIME;
    return h;
}

/* Fold one byte (a separator or a type tag) into the running 64-bit hash h. */
static inline uint64_t kg_fnv1a64_byte(uint64_t h, uint64_t byte)
{
    return (h ^ byte) * KG_FNV1A64_PRIME;
}

/* Fold the NUL-terminated string s (without its NUL) into the running 64-bit hash h. */
static inline uint64_t kg_fnv1a64_continue_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * KG_FNV1A64_PRIME;
    return h;
}

/* 64-bit FNV-1a of n bytes / of a NUL-terminated string. */
static inline uint64_t kg_fnv1a64(const void *p, size_t n)
{
    return kg_fnv1a64_continue(KG_FNV1A64_INIT, p, n);
}

static inline uint64_t kg_fnv1a64_str(const char *s)
{
    return kg_fnv1a64_continue_str(KG_FNV1A64_INIT, s);
}

/* Fold the n bytes at p into the running 32-bit hash h. */
static inline uint32_t kg_fnv1a32_continue(uint32_t h, const void *p, size_t n)
{
    const unsigned char *s = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * KG_FNV1A32_PRIME;
    return h;
}

/* 32-bit FNV-1a of n bytes / of a NUL-terminated string. */
static inline uint32_t kg_fnv1a32(const void *p, size_t n)
{
    return kg_fnv1a32_continue(KG_FNV1A32_INIT, p, n);
}

static inline uint32_t kg_fnv1a32_str(const char *s)
{
    uint32_t h = KG_FNV1A32_INIT;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * KG_FNV1A32_PRIME;
    return h;
}

#endif
