/* ipnet.h - IP addresses and CIDR prefixes with Go net/netip semantics, as the Kubernetes CEL ip/cidr
 * libraries (k8s.io/apiserver pkg/cel/library/ip.go, cidr.go) use them: no zones, no IPv4-mapped IPv6, no
 * leading zeros in IPv4 octets; error texts are Go's. */
#ifndef KG_CEL_K8S_IPNET_H
#define KG_CEL_K8S_IPNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"

typedef struct cel_k8s_ip {
    uint8_t family; /* 4 or 6 */
    uint8_t b[16];  /* IPv4 in b[0..3] */
} cel_k8s_ip;

typedef struct cel_k8s_cidr {
    cel_k8s_ip ip; /* as written (not masked) */
    int bits;
} cel_k8s_cidr;

/* netip.ParseAddr. On failure *err = Go's text, e.g. `ParseAddr("1.2.3"): IPv4 address too short`.
 * *zone and *is4in6 report what Kubernetes then rejects (may be NULL). */
bool cel_k8s_netip_parse_addr(kg_arena *a, const char *s, size_t n, cel_k8s_ip *out, bool *zone, bool *is4in6,
                              const char **err);
/* netip.ParsePrefix (`netip.ParsePrefix("x"): no '/'`). */
bool cel_k8s_netip_parse_prefix(kg_arena *a, const char *s, size_t n, cel_k8s_cidr *out, bool *is4in6,
                                const char **err);

/* The CEL library's parseIPAddr / parseCIDR: adds Kubernetes' checks and wording.
 * ip():   `IP Address "x" parse error during conversion from string: <netip error>`,
 *         `IP address "fe80::1%eth0" with zone value is not allowed`, `IPv4-mapped IPv6 address "x" is not allowed`
 * cidr(): `network address parse error during conversion from string: network address parse error during
 *         conversion from string: <netip error>` (the doubled prefix is upstream's). */
bool cel_k8s_ip_parse(kg_arena *a, const char *s, size_t n, cel_k8s_ip *out, const char **err);
bool cel_k8s_cidr_parse(kg_arena *a, const char *s, size_t n, cel_k8s_cidr *out, const char **err);

/* Addr.String(): dotted quad or RFC 5952 IPv6. buf needs 46 bytes; returns the length. */
size_t cel_k8s_ip_format(const cel_k8s_ip *ip, char *buf);
/* Prefix.String(); buf needs 50 bytes. */
size_t cel_k8s_cidr_format(const cel_k8s_cidr *c, char *buf);

bool cel_k8s_ip_equal(const cel_k8s_ip *x, const cel_k8s_ip *y);
bool cel_k8s_cidr_equal(const cel_k8s_cidr *x, const cel_k8s_cidr *y);

bool cel_k8s_ip_is_unspecified(const cel_k8s_ip *ip);
bool cel_k8s_ip_is_loopback(const cel_k8s_ip *ip);
bool cel_k8s_ip_is_multicast(const cel_k8s_ip *ip);
bool cel_k8s_ip_is_link_local_multicast(const cel_k8s_ip *ip);
bool cel_k8s_ip_is_link_local_unicast(const cel_k8s_ip *ip);
bool cel_k8s_ip_is_global_unicast(const cel_k8s_ip *ip);

/* ip.isCanonical(s): parse (errors as cel_k8s_ip_parse) and compare with the canonical form. */
bool cel_k8s_ip_is_canonical(kg_arena *a, const char *s, size_t n, bool *out, const char **err);

cel_k8s_cidr cel_k8s_cidr_masked(const cel_k8s_cidr *c);
bool cel_k8s_cidr_contains_ip(const cel_k8s_cidr *c, const cel_k8s_ip *ip);
/* Exactly upstream's containsCIDR: c.Masked() == PrefixFrom(other.Addr(), c.Bits()) && c.Bits() <= other.Bits(). */
bool cel_k8s_cidr_contains_cidr(const cel_k8s_cidr *c, const cel_k8s_cidr *other);

#endif
