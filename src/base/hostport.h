/* host[:port]: the one implementation of Go's optional-port rules, shared by the CEL url library (cel/k8s/url.c)
 * and the kubelet credential provider's image matching (credentialprovider/match.c).
 *
 *   kg_valid_optional_port   net/url validOptionalPort: "" or ':' followed by decimal digits only (any number of
 *                            them, including none; no range check, as Go)
 *   kg_url_check_host_port   the port part of net/url parseHost: "[v6]:port" needs its ']' and a valid optional
 *                            port after it; otherwise whatever follows the last ':' must be a valid optional port
 *   kg_url_split_host_port   url.URL Hostname()/Port(): the port is what follows the last ':' when that is a valid
 *                            optional port; square brackets around the host are removed
 *   kg_net_split_host_port   net.SplitHostPort: "host:port" or "[host]:port" (port may be empty); false on
 *                            "missing port", "too many colons" and misplaced brackets
 *
 * Port numbers are range-checked where an API field holds one: meta/names kg_is_valid_port_num (1..65535). */
#ifndef KG_BASE_HOSTPORT_H
#define KG_BASE_HOSTPORT_H

#include <stdbool.h>
#include <stddef.h>

bool kg_valid_optional_port(const char *p, size_t n);

typedef enum kg_hostport_err {
    KG_HOSTPORT_OK = 0,
    KG_HOSTPORT_MISSING_BRACKET, /* Go: "missing ']' in host" */
    KG_HOSTPORT_INVALID_PORT,    /* Go: "invalid port %q after host", the text being h[*bad_off..n) */
} kg_hostport_err;

/* Check h[0..n) (an URL's host part, before unescaping); on KG_HOSTPORT_INVALID_PORT *bad_off is where the bad
 * ":port" text starts. */
kg_hostport_err kg_url_check_host_port(const char *h, size_t n, size_t *bad_off);

/* Split an URL host (already parsed) into hostname (brackets removed) and port ("" when absent). */
void kg_url_split_host_port(const char *hp, size_t n, const char **host, size_t *hn, const char **port, size_t *pn);

/* net.SplitHostPort; false on error (host/port then unspecified). */
bool kg_net_split_host_port(const char *hp, size_t n, const char **host, size_t *hn, const char **port, size_t *pn);

#endif
