/* Serving credentials that can change while the server runs, and client-certificate verification (mTLS), for the
 * HTTPS servers of server/http.h (libmicrohttpd + GnuTLS).
 *
 * libmicrohttpd takes its certificate once at start; with a kg_tls_creds the server instead asks for the current
 * pair in every handshake (GnuTLS's certificate retrieve callback), so kg_tls_creds_set() swaps the pair for new
 * connections without a restart while established connections keep theirs. A pair that does not parse, or whose key
 * does not match its certificate, is refused and the current one kept. Replaced pairs are freed once no handshake
 * can still use them (after KG_TLS_CREDS_GRACE_MS), so memory stays bounded by the reload rate.
 *
 * With a client CA, every handshake requires a client certificate that verifies against that CA (GnuTLS's
 * verification with the CA as trust list): a client without one, or with one from another CA, fails the
 * handshake and never reaches HTTP. */
#ifndef KG_SERVER_TLSCREDS_H
#define KG_SERVER_TLSCREDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define KG_TLS_CREDS_GRACE_MS 120000

typedef struct kg_tls_creds kg_tls_creds;

/* The first pair (PEM: the certificate chain, leaf first; the key), and the client CA bundle (PEM, or NULL: no
 * client certificates asked for). Errors name what failed ("tls certificate: ...", "tls key does not match the
 * certificate"). */
kg_tls_creds *kg_tls_creds_new(const char *cert_pem, const char *key_pem, const char *client_ca_pem, kg_error *err);
/* Replace the pair for new handshakes. False (current pair kept) with err for a broken pair. Thread-safe. */
bool kg_tls_creds_set(kg_tls_creds *c, const char *cert_pem, const char *key_pem, kg_error *err);
/* How many times the pair was replaced (tests, logs). */
uint64_t kg_tls_creds_generation(const kg_tls_creds *c);
/* The client CA bundle given to kg_tls_creds_new, or NULL. */
const char *kg_tls_creds_client_ca(const kg_tls_creds *c);
/* Only after the server using it stopped. NULL is fine. */
void kg_tls_creds_free(kg_tls_creds *c);

/* For server/http.c: bind c to the server listening on port (handshakes on that port use it; unbind before the
 * creds are freed), and the GnuTLS retrieve callback to give libmicrohttpd (MHD_OPTION_HTTPS_CERT_CALLBACK). */
bool kg_tls_creds_bind(kg_tls_creds *c, int port, kg_error *err);
void kg_tls_creds_unbind(kg_tls_creds *c);
void *kg_tls_creds_callback(void);

/* The certificate chain a TLS client presented (leaf first), from a connection's GnuTLS session (libmicrohttpd's
 * MHD_CONNECTION_INFO_GNUTLS_SESSION): up to max DER certificates, pointing into the session (valid while the
 * connection lives). 0 when the client sent none. */
size_t kg_tls_peer_certs(void *session, const unsigned char **der, size_t *len, size_t max);

#endif
