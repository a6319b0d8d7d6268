/* TLS protocol settings named as kube-apiserver's flags, turned into a GnuTLS priority string for the HTTP layer.
 *
 *   --tls-min-version   VersionTLS10 | VersionTLS11 | VersionTLS12 (default) | VersionTLS13
 *   --tls-cipher-suites comma-separated IANA/Go names (TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, ...)
 *
 * The default suites are the AEAD ones with ECDHE (AES-GCM, ChaCha20-Poly1305): no CBC, no SHA-1 MAC, no RSA key
 * exchange. TLS 1.3 suites are all on, as in Go, unless the list names some of them (TLS_AES_128_GCM_SHA256,
 * TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256): then only those. GnuTLS selects suites as key exchange ×
 * cipher × MAC sets shared by TLS 1.2 and 1.3, so a list enables the cross product of what its members name
 * (listing ECDHE-RSA-AES-128-GCM and ECDHE-ECDSA-CHACHA20 also enables ECDHE-RSA-CHACHA20, and the TLS 1.3
 * ciphers also serve TLS 1.2 with the listed key exchanges); each listed suite is always among those offered. */
#ifndef KG_SERVER_TLSCONFIG_H
#define KG_SERVER_TLSCONFIG_H

#include "base/error.h"

/* min_version and cipher_suites may be NULL or "" (defaults). Returns a malloc'd priority string, or NULL with
 * err set to upstream's flag error ("unknown tls version \"X\"", "Cipher suite X not supported or doesn't
 * exist"). */
char *kg_tls_priorities(const char *min_version, const char *cipher_suites, kg_error *err);

#endif
