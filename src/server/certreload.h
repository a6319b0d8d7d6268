/* Serving certificate reload for `kgate serve` and `kgate webhook` (upstream's DynamicServingCertificateController):
 * a thread looks at --tls-cert-file and --tls-private-key-file (or serve's generated pair) once per interval (stat:
 * inode, size, mtime — so both an in-place rewrite and the symlink swap of a Kubernetes Secret volume are seen) and,
 * when either changed, reads both and hands the pair to the server's credentials (server/tlscreds.h): new connections
 * get the new certificate, established ones keep theirs. A broken pair (a file missing or unparsable, key and
 * certificate not matching — e.g. caught between the two writes) is logged and the current pair kept; it is tried again
 * at the next change of either file. */
#ifndef KG_SERVER_CERTRELOAD_H
#define KG_SERVER_CERTRELOAD_H

#include <stdint.h>

#include "server/tlscreds.h"

typedef struct kg_cert_reloader kg_cert_reloader;

/* Start watching (interval_ms 0 = 1000). creds is borrowed and must outlive the reloader. NULL if the thread could
 * not start. */
kg_cert_reloader *kg_cert_reloader_start(kg_tls_creds *creds, const char *cert_file, const char *key_file,
                                         int interval_ms);
/* Reloads done and refused so far (tests, metrics). */
void kg_cert_reloader_counts(kg_cert_reloader *r, uint64_t *reloaded, uint64_t *failed);
void kg_cert_reloader_stop(kg_cert_reloader *r);

#endif
