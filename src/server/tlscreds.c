/* Reloadable serving credentials and client-certificate verification (see tlscreds.h). */
#include "server/tlscreds.h"

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "server/gnutls_lazy.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define MAX_CHAIN 16
#define MAX_BOUND 32 /* servers with reloadable credentials in one process */

typedef struct pair {
    gnutls_pcert_st pcert[MAX_CHAIN];
    unsigned npcert;
    gnutls_privkey_t key;
    int64_t retired_ms; /* when it stopped being current */
    struct pair *next;  /* retired list */
} pair;

struct kg_tls_creds {
    _Atomic(pair *) cur;
    pthread_mutex_t mu; /* writers: set, retired list */
    pair *retired;
    atomic_uint_fast64_t generation;
    char *client_ca;
    int port;
};

/* Which creds serve which port: handshakes find theirs by the local port of the accepted socket (libmicrohttpd
 * passes no user data to GnuTLS's retrieve callback). Written at bind/unbind, read lock-free by handshakes. */
static struct {
    atomic_int port;
    _Atomic(kg_tls_creds *) creds;
} bound[MAX_BOUND];
static pthread_mutex_t bound_mu = PTHREAD_MUTEX_INITIALIZER;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void pair_free(pair *p)
{
    if (!p)
        return;
    for (unsigned i = 0; i < p->npcert; i++)
        gnutls_pcert_deinit(&p->pcert[i]);
    if (p->key)
        gnutls_privkey_deinit(p->key);
    free(p);
}

static bool same_public_key(gnutls_pubkey_t a, gnutls_privkey_t key)
{
    gnutls_pubkey_t b;
    if (gnutls_pubkey_init(&b) < 0)
        return false;
    gnutls_datum_t da = {0}, db = {0};
    bool same = gnutls_pubkey_import_privkey(b, key, 0, 0) >= 0 &&
                gnutls_pubkey_export2(a, GNUTLS_X509_FMT_DER, &da) >= 0 &&
                gnutls_pubkey_export2(b, GNUTLS_X509_FMT_DER, &db) >= 0 && da.size == db.size &&
                !memcmp(da.data, db.data, da.size);
    gnutls_free(da.data);
    gnutls_free(db.data);
    gnutls_pubkey_deinit(b);
    return same;
}

static pair *pair_load(const char *cert_pem, const char *key_pem, kg_error *err)
{
    pair *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    gnutls_datum_t c = {(unsigned char *)cert_pem, cert_pem ? (unsigned)strlen(cert_pem) : 0};
    gnutls_datum_t k = {(unsigned char *)key_pem, key_pem ? (unsigned)strlen(key_pem) : 0};
    p->npcert = MAX_CHAIN;
    int rc = c.size ? gnutls_pcert_list_import_x509_raw(p->pcert, &p->npcert, &c, GNUTLS_X509_FMT_PEM, 0)
                    : GNUTLS_E_NO_CERTIFICATE_FOUND;
    if (rc < 0 || !p->npcert) {
        p->npcert = 0;
        kg_err_set(err, KG_EINVAL, "tls certificate: %s", gnutls_strerror(rc < 0 ? rc : GNUTLS_E_NO_CERTIFICATE_FOUND));
        goto fail;
    }
    if ((rc = gnutls_privkey_init(&p->key)) < 0 ||
        (rc = k.size ? gnutls_privkey_import_x509_raw(p->key, &k, GNUTLS_X509_FMT_PEM, NULL, 0)
                     : GNUTLS_E_BASE64_DECODING_ERROR) < 0) {
        kg_err_set(err, KG_EINVAL, "tls key: %s", gnutls_strerror(rc));
        goto fail;
    }
    if (!same_public_key(p->pcert[0].pubkey, p->key)) {
        kg_err_set(err, KG_EINVAL, "tls key does not match the certificate");
        goto fail;
    }
    return p;
fail:
    pair_free(p);
    return NULL;
}

kg_tls_creds *kg_tls_creds_new(const char *cert_pem, const char *key_pem, const char *client_ca_pem, kg_error *err)
{
    pair *p = pair_load(cert_pem, key_pem, err);
    if (!p)
        return NULL;
    if (client_ca_pem) {
        /* check the bundle now: libmicrohttpd would only say "failed to start" */
        gnutls_x509_crt_t *list = NULL;
        unsigned n = 0;
        gnutls_datum_t d = {(unsigned char *)client_ca_pem, (unsigned)strlen(client_ca_pem)};
        int rc = gnutls_x509_crt_list_import2(&list, &n, &d, GNUTLS_X509_FMT_PEM, 0);
        for (unsigned i = 0; rc >= 0 && i < n; i++)
            gnutls_x509_crt_deinit(list[i]);
        gnutls_free(list);
        if (rc < 0 || !n) {
            kg_err_set(err, KG_EINVAL, "client CA bundle: %s",
                       gnutls_strerror(rc < 0 ? rc : GNUTLS_E_NO_CERTIFICATE_FOUND));
            pair_free(p);
            return NULL;
        }
    }
    kg_tls_creds *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    atomic_init(&c->cur, p);
    pthread_mutex_init(&c->mu, NULL);
    c->client_ca = client_ca_pem ? strdup(client_ca_pem) : NULL;
    return c;
}

bool kg_tls_creds_set(kg_tls_creds *c, const char *cert_pem, const char *key_pem, kg_error *err)
{
    pair *p = pair_load(cert_pem, key_pem, err);
    if (!p)
        return false;
    int64_t now = now_ms();
    pthread_mutex_lock(&c->mu);
    pair *old = atomic_exchange(&c->cur, p);
    old->retired_ms = now;
    old->next = c->retired;
    c->retired = old;
    /* free pairs no handshake can still be using */
    for (pair **pp = &c->retired; *pp;) {
        if (now - (*pp)->retired_ms > KG_TLS_CREDS_GRACE_MS) {
            pair *dead = *pp;
            *pp = dead->next;
            pair_free(dead);
        } else {
            pp = &(*pp)->next;
        }
    }
    atomic_fetch_add(&c->generation, 1);
    pthread_mutex_unlock(&c->mu);
    return true;
}

uint64_t kg_tls_creds_generation(const kg_tls_creds *c)
{
    return atomic_load(&((kg_tls_creds *)c)->generation);
}

const char *kg_tls_creds_client_ca(const kg_tls_creds *c)
{
    return c->client_ca;
}

void kg_tls_creds_free(kg_tls_creds *c)
{
    if (!c)
        return;
    kg_tls_creds_unbind(c);
    pair_free(atomic_load(&c->cur));
    while (c->retired) {
        pair *p = c->retired;
        c->retired = p->next;
        pair_free(p);
    }
    pthread_mutex_destroy(&c->mu);
    free(c->client_ca);
    free(c);
}

bool kg_tls_creds_bind(kg_tls_creds *c, int port, kg_error *err)
{
    pthread_mutex_lock(&bound_mu);
    for (int i = 0; i < MAX_BOUND; i++)
        if (!atomic_load(&bound[i].creds)) {
            atomic_store(&bound[i].port, port);
            atomic_store(&bound[i].creds, c);
            c->port = port;
            pthread_mutex_unlock(&bound_mu);
            return true;
        }
    pthread_mutex_unlock(&bound_mu);
    return kg_err_set(err, KG_EINVAL, "more than %d HTTPS servers with reloadable certificates", MAX_BOUND);
}

void kg_tls_creds_unbind(kg_tls_creds *c)
{
    pthread_mutex_lock(&bound_mu);
    for (int i = 0; i < MAX_BOUND; i++)
        if (atomic_load(&bound[i].creds) == c) {
            atomic_store(&bound[i].creds, NULL);
            atomic_store(&bound[i].port, 0);
        }
    pthread_mutex_unlock(&bound_mu);
}

static kg_tls_creds *creds_of(gnutls_session_t session)
{
    int fd = gnutls_transport_get_int(session);
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (fd < 0 || getsockname(fd, (struct sockaddr *)&ss, &len))
        return NULL;
    int port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                        : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    for (int i = 0; i < MAX_BOUND; i++)
        if (atomic_load(&bound[i].port) == port)
            return atomic_load(&bound[i].creds);
    return NULL;
}

static int retrieve(gnutls_session_t session, const gnutls_datum_t *req_ca_dn, int nreqs,
                    const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length, gnutls_pcert_st **pcert,
                    unsigned int *pcert_length, gnutls_privkey_t *pkey)
{
    (void)req_ca_dn;
    (void)nreqs;
    (void)pk_algos;
    (void)pk_algos_length;
    kg_tls_creds *c = creds_of(session);
    if (!c)
        return -1; /* fails the handshake */
    pair *p = atomic_load(&c->cur);
    *pcert = p->pcert;
    *pcert_length = p->npcert;
    *pkey = p->key;
    if (c->client_ca) {
        /* the certificate request follows the server's certificate selection: require one, and verify it against
         * the trust list (the client CA, given to libmicrohttpd as MHD_OPTION_HTTPS_MEM_TRUST) in the handshake */
        gnutls_certificate_server_set_request(session, GNUTLS_CERT_REQUIRE);
        gnutls_session_set_verify_cert(session, NULL, 0);
    }
    return 0;
}

void *kg_tls_creds_callback(void)
{
    gnutls_certificate_retrieve_function2 *fn = retrieve;
    void *p;
    memcpy(&p, &fn, sizeof p);
    return p;
}

size_t kg_tls_peer_certs(void *session, const unsigned char **der, size_t *len, size_t max)
{
    if (!session)
        return 0;
    unsigned n = 0;
    const gnutls_datum_t *d = gnutls_certificate_get_peers((gnutls_session_t)session, &n);
    size_t k = 0;
    for (; d && k < n && k < max; k++) {
        der[k] = d[k].data;
        len[k] = d[k].size;
    }
    return k;
}
