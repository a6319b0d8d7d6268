/* TLS material for `kgate serve` (OpenSSL).
 *
 * Without --tls-cert-file/--tls-private-key-file: on first start generate in the data dir
 *   ca.crt / ca.key           self-signed CA "kgate-ca", 10 years, EC P-256
 *   apiserver.crt / .key      serving certificate signed by the CA, 10 years, EC P-256, serverAuth,
 *                             SANs DNS:localhost, IP:127.0.0.1, IP:::1, + the bind address and extra SANs
 * and reuse them on later starts (the serving certificate is regenerated from the existing CA when it is missing,
 * expired, or lacks a requested SAN). Keys are written 0600.
 * With --tls-cert-file/--tls-private-key-file: load them (the key must match the certificate). The CA used for
 * the kubeconfig is then: ca_file when given, else the last certificate of the chain in cert-file when it is
 * self-signed, else none (ca_pem NULL: the kubeconfig omits certificate-authority-data and kubectl falls back
 * to the system trust store; documented in docs/server-security.md). */
#ifndef KG_SERVER_TLS_H
#define KG_SERVER_TLS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

typedef struct kg_tls_config {
    const char *data_dir;          /* where generated files live (required unless cert_file/key_file given) */
    const char *cert_file;         /* --tls-cert-file */
    const char *key_file;          /* --tls-private-key-file */
    const char *ca_file;           /* optional CA bundle for the kubeconfig when cert_file is given */
    const char *bind_address;      /* added as an IP SAN when it is a specific address (not 0.0.0.0/::) */
    const char *const *extra_sans; /* "DNS:name", "IP:addr", or a bare name/IP */
    size_t nextra_sans;
} kg_tls_config;

/* PEM material, malloc'd, NUL-terminated. */
typedef struct kg_tls_material {
    char *cert_pem; /* serving certificate (chain) */
    char *key_pem;  /* serving key */
    char *ca_pem;   /* CA certificate(s) clients should trust; NULL when unknown (see above) */
    bool generated; /* true when this call created new files */
} kg_tls_material;

bool kg_tls_load_or_generate(const kg_tls_config *cfg, kg_tls_material *out, kg_error *err);
void kg_tls_material_free(kg_tls_material *m);

/* Inspection helpers (tests, logs): the subject alternative names of the first certificate in a PEM as
 * "DNS:x"/"IP:y" strings joined by ", " (malloc'd); whether cert is signed by ca. */
char *kg_tls_cert_sans(const char *cert_pem, kg_error *err);
bool kg_tls_cert_verify(const char *cert_pem, const char *ca_pem, kg_error *err);

#endif
