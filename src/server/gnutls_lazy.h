/* GnuTLS, reached through the library libmicrohttpd loaded (mhd_lazy.c), never linked.
 *
 * kgate links neither libmicrohttpd nor GnuTLS so that the commands serving no HTTP (check, cel, credentials) do not
 * map and relocate them at every start (docs/check.md, Performance). The few GnuTLS calls the server makes itself
 * (tlscreds.c: the reloadable serving pair and client-certificate verification) go through these macros: each call
 * names the function as GnuTLS declares it — so the compiler checks arguments against GnuTLS's own prototype — and
 * resolves it with dlsym in the already loaded library (the same instance libmicrohttpd's sessions belong to).
 * Include after the GnuTLS headers, in .c files only. */
#ifndef KG_SERVER_GNUTLS_LAZY_H
#define KG_SERVER_GNUTLS_LAZY_H

/* The address of a GnuTLS symbol; aborts with a message when the library or the symbol is missing (only reachable
 * from a started TLS daemon, so the library is there). */
void *kg_gnutls_sym(const char *name);

#define KG_GNUTLS(name) ((__typeof__(&name))kg_gnutls_sym(#name))

#define gnutls_pcert_deinit KG_GNUTLS(gnutls_pcert_deinit)
#define gnutls_privkey_deinit KG_GNUTLS(gnutls_privkey_deinit)
#define gnutls_privkey_init KG_GNUTLS(gnutls_privkey_init)
#define gnutls_privkey_import_x509_raw KG_GNUTLS(gnutls_privkey_import_x509_raw)
#define gnutls_pubkey_init KG_GNUTLS(gnutls_pubkey_init)
#define gnutls_pubkey_import_privkey KG_GNUTLS(gnutls_pubkey_import_privkey)
#define gnutls_pubkey_export2 KG_GNUTLS(gnutls_pubkey_export2)
#define gnutls_pubkey_deinit KG_GNUTLS(gnutls_pubkey_deinit)
#define gnutls_pcert_list_import_x509_raw KG_GNUTLS(gnutls_pcert_list_import_x509_raw)
#define gnutls_strerror KG_GNUTLS(gnutls_strerror)
#define gnutls_x509_crt_list_import2 KG_GNUTLS(gnutls_x509_crt_list_import2)
#define gnutls_x509_crt_deinit KG_GNUTLS(gnutls_x509_crt_deinit)
#define gnutls_transport_get_int KG_GNUTLS(gnutls_transport_get_int)
#define gnutls_certificate_server_set_request KG_GNUTLS(gnutls_certificate_server_set_request)
#define gnutls_session_set_verify_cert KG_GNUTLS(gnutls_session_set_verify_cert)
#define gnutls_certificate_get_peers KG_GNUTLS(gnutls_certificate_get_peers)
/* gnutls_free is a variable holding a function pointer (and a macro over it) */
#undef gnutls_free
#define gnutls_free(p) ((*(gnutls_free_function *)kg_gnutls_sym("gnutls_free"))((void *)(p)))

#endif
