/* <data-dir>/admin.kubeconfig for kubectl: cluster "kgate" (server URL + certificate-authority-data), user
 * "kgate-admin" (bearer token), context "kgate", current-context kgate. Written 0600, atomically (tmp+rename). */
#ifndef KG_SERVER_KUBECONFIG_H
#define KG_SERVER_KUBECONFIG_H

#include <stdbool.h>

#include "base/buf.h"
#include "base/error.h"

typedef struct kg_kubeconfig {
    const char *server;  /* "https://127.0.0.1:6443" */
    const char *ca_pem;  /* NULL: no certificate-authority-data (plain HTTP) */
    const char *token;   /* admin bearer token */
    const char *cluster; /* NULL: "kgate" */
    const char *user;    /* NULL: "kgate-admin" */
    const char *context; /* NULL: "kgate" */
} kg_kubeconfig;

/* The YAML text. */
void kg_kubeconfig_render(kg_buf *out, const kg_kubeconfig *kc);
/* Write to path (0600). */
bool kg_kubeconfig_write(const char *path, const kg_kubeconfig *kc, kg_error *err);

/* "https://127.0.0.1:6443" from a bind address and port (0.0.0.0 -> 127.0.0.1, :: -> [::1], IPv6 bracketed). */
char *kg_kubeconfig_server_url(const char *bind_address, int port, bool tls); /* malloc'd */

#endif
