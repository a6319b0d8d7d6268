/* CA + serving certificate generation and loading with OpenSSL 3 (see tls.h). */
#include "server/tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/str.h"

#define CA_DAYS (365 * 10)
#define SERVING_DAYS (365 * 10)

static bool ossl_err(kg_error *err, const char *what)
{
    unsigned long e = ERR_get_error();
    char buf[256] = "unknown error";
    if (e)
        ERR_error_string_n(e, buf, sizeof(buf));
    ERR_clear_error();
    return kg_err_set(err, KG_EINVAL, "%s: %s", what, buf);
}

static char *path_join(const char *dir, const char *name)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s", dir, name) < 0)
        abort();
    return p;
}

static bool write_file(const char *path, const char *data, size_t len, mode_t mode, kg_error *err)
{
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
        abort();
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0) {
        kg_err_set(err, KG_EIO, "open %s: %s", tmp, strerror(errno));
        free(tmp);
        return false;
    }
    size_t off = 0;
    bool ok = true;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            ok = false;
            break;
        }
        off += (size_t)w;
    }
    if (ok && fsync(fd) != 0)
        ok = false;
    int e = errno;
    close(fd);
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        unlink(tmp);
        kg_err_set(err, KG_EIO, "write %s: %s", path, strerror(e));
    }
    free(tmp);
    return ok;
}

static char *bio_to_str(BIO *b)
{
    char *p = NULL;
    long n = BIO_get_mem_data(b, &p);
    char *r = malloc((size_t)n + 1);
    if (!r)
        abort();
    memcpy(r, p, (size_t)n);
    r[n] = '\0';
    return r;
}

static char *cert_to_pem(X509 *x)
{
    BIO *b = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(b, x);
    char *r = bio_to_str(b);
    BIO_free(b);
    return r;
}

static char *key_to_pem(EVP_PKEY *k)
{
    BIO *b = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL);
    char *r = bio_to_str(b);
    BIO_free(b);
    return r;
}

static X509 *pem_to_cert(const char *pem)
{
    BIO *b = BIO_new_mem_buf(pem, -1);
    X509 *x = PEM_read_bio_X509(b, NULL, NULL, NULL);
    BIO_free(b);
    return x;
}

/* Encrypted keys are not supported: never let OpenSSL prompt on the terminal for a passphrase. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    (void)u;
    return -1;
}

static EVP_PKEY *pem_to_key(const char *pem)
{
    BIO *b = BIO_new_mem_buf(pem, -1);
    EVP_PKEY *k = PEM_read_bio_PrivateKey(b, NULL, no_passphrase, NULL);
    BIO_free(b);
    return k;
}

static bool add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *ex = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!ex)
        return false;
    int rc = X509_add_ext(cert, ex, -1);
    X509_EXTENSION_free(ex);
    return rc == 1;
}

static bool set_serial(X509 *x)
{
    unsigned char rnd[16];
    if (RAND_bytes(rnd, sizeof(rnd)) != 1)
        return false;
    rnd[0] &= 0x7f; /* positive */
    BIGNUM *bn = BN_bin2bn(rnd, sizeof(rnd), NULL);
    ASN1_INTEGER *ai = BN_to_ASN1_INTEGER(bn, NULL);
    bool ok = ai && X509_set_serialNumber(x, ai) == 1;
    ASN1_INTEGER_free(ai);
    BN_free(bn);
    return ok;
}

/* Build and sign a certificate. issuer == NULL: self-signed CA. */
static X509 *make_cert(EVP_PKEY *key, const char *cn, X509 *issuer, EVP_PKEY *issuer_key, const char *san, bool ca,
                       int days)
{
    X509 *x = X509_new();
    if (!x)
        return NULL;
    bool ok = X509_set_version(x, 2) == 1 && set_serial(x);
    /* backdate an hour for clock skew, like client-go's cert helpers */
    ok = ok && X509_gmtime_adj(X509_getm_notBefore(x), -3600) &&
         X509_gmtime_adj(X509_getm_notAfter(x), (long)days * 86400);
    X509_NAME *name = X509_get_subject_name(x);
    ok = ok && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)cn, -1, -1, 0) == 1;
    ok = ok && X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name) == 1;
    ok = ok && X509_set_pubkey(x, key) == 1;
    X509 *iss = issuer ? issuer : x;
    if (ca) {
        ok = ok && add_ext(x, iss, NID_basic_constraints, "critical,CA:TRUE");
        ok = ok && add_ext(x, iss, NID_key_usage, "critical,digitalSignature,keyEncipherment,keyCertSign");
        ok = ok && add_ext(x, iss, NID_subject_key_identifier, "hash");
    } else {
        ok = ok && add_ext(x, iss, NID_basic_constraints, "critical,CA:FALSE");
        ok = ok && add_ext(x, iss, NID_key_usage, "critical,digitalSignature,keyEncipherment");
        ok = ok && add_ext(x, iss, NID_ext_key_usage, "serverAuth");
        ok = ok && add_ext(x, iss, NID_authority_key_identifier, "keyid:always");
        if (san && *san)
            ok = ok && add_ext(x, iss, NID_subject_alt_name, san);
    }
    ok = ok && X509_sign(x, issuer_key ? issuer_key : key, EVP_sha256()) > 0;
    if (!ok) {
        X509_free(x);
        return NULL;
    }
    return x;
}

/* The SAN list the serving certificate must carry, as an OpenSSL config string "DNS:localhost,IP:127.0.0.1". */
static char *wanted_sans(const kg_tls_config *cfg)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "DNS:localhost,IP:127.0.0.1,IP:::1");
    const char *ba = cfg->bind_address;
    if (ba && *ba && strcmp(ba, "0.0.0.0") && strcmp(ba, "::") && strcmp(ba, "127.0.0.1") && strcmp(ba, "::1")) {
        unsigned char tmp[16];
        bool ip = inet_pton(AF_INET, ba, tmp) == 1 || inet_pton(AF_INET6, ba, tmp) == 1;
        kg_buf_printf(&b, ",%s:%s", ip ? "IP" : "DNS", ba);
    }
    for (size_t i = 0; i < cfg->nextra_sans; i++) {
        const char *s = cfg->extra_sans[i];
        if (!strncmp(s, "DNS:", 4) || !strncmp(s, "IP:", 3)) {
            kg_buf_printf(&b, ",%s", s);
        } else {
            unsigned char tmp[16];
            bool ip = inet_pton(AF_INET, s, tmp) == 1 || inet_pton(AF_INET6, s, tmp) == 1;
            kg_buf_printf(&b, ",%s:%s", ip ? "IP" : "DNS", s);
        }
    }
    char *r = kg_buf_steal(&b, NULL);
    return r;
}

/* Does cert carry every SAN of the wanted list? */
static bool has_all_sans(X509 *x, const char *wanted)
{
    GENERAL_NAMES *gens = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
    if (!gens)
        return false;
    bool all = true;
    char *w = strdup(wanted);
    for (char *save = NULL, *tok = strtok_r(w, ",", &save); tok && all; tok = strtok_r(NULL, ",", &save)) {
        bool found = false;
        if (!strncmp(tok, "DNS:", 4)) {
            for (int i = 0; i < sk_GENERAL_NAME_num(gens) && !found; i++) {
                GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);
                if (g->type == GEN_DNS) {
                    const char *d = (const char *)ASN1_STRING_get0_data(g->d.dNSName);
                    found = (size_t)ASN1_STRING_length(g->d.dNSName) == strlen(tok + 4) &&
                            !strncasecmp(d, tok + 4, strlen(tok + 4));
                }
            }
        } else if (!strncmp(tok, "IP:", 3)) {
            unsigned char ip[16];
            int len = inet_pton(AF_INET, tok + 3, ip) == 1 ? 4 : inet_pton(AF_INET6, tok + 3, ip) == 1 ? 16 : 0;
            for (int i = 0; i < sk_GENERAL_NAME_num(gens) && !found && len; i++) {
                GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);
                if (g->type == GEN_IPADD && ASN1_STRING_length(g->d.iPAddress) == len)
                    found = !memcmp(ASN1_STRING_get0_data(g->d.iPAddress), ip, (size_t)len);
            }
        }
        all = found;
    }
    free(w);
    GENERAL_NAMES_free(gens);
    return all;
}

char *kg_tls_cert_sans(const char *cert_pem, kg_error *err)
{
    X509 *x = pem_to_cert(cert_pem);
    if (!x) {
        ossl_err(err, "parsing certificate");
        return NULL;
    }
    kg_buf b = KG_BUF_INIT;
    GENERAL_NAMES *gens = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
    for (int i = 0; gens && i < sk_GENERAL_NAME_num(gens); i++) {
        GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);
        if (b.len)
            kg_buf_puts(&b, ", ");
        if (g->type == GEN_DNS) {
            kg_buf_puts(&b, "DNS:");
            kg_buf_append(&b, ASN1_STRING_get0_data(g->d.dNSName), (size_t)ASN1_STRING_length(g->d.dNSName));
        } else if (g->type == GEN_IPADD) {
            char txt[INET6_ADDRSTRLEN] = "?";
            int len = ASN1_STRING_length(g->d.iPAddress);
            inet_ntop(len == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(g->d.iPAddress), txt, sizeof(txt));
            kg_buf_printf(&b, "IP:%s", txt);
        } else {
            kg_buf_puts(&b, "other");
        }
    }
    GENERAL_NAMES_free(gens);
    X509_free(x);
    kg_buf_cstr(&b);
    return kg_buf_steal(&b, NULL);
}

bool kg_tls_cert_verify(const char *cert_pem, const char *ca_pem, kg_error *err)
{
    X509 *x = pem_to_cert(cert_pem);
    X509 *ca = pem_to_cert(ca_pem);
    bool ok = false;
    if (!x || !ca) {
        ossl_err(err, "parsing certificate");
        goto out;
    }
    X509_STORE *st = X509_STORE_new();
    X509_STORE_add_cert(st, ca);
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    X509_STORE_CTX_init(ctx, st, x, NULL);
    ok = X509_verify_cert(ctx) == 1;
    if (!ok)
        kg_err_set(err, KG_EINVAL, "certificate verify failed: %s",
                   X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(st);
out:
    X509_free(x);
    X509_free(ca);
    return ok;
}

static bool cert_usable(X509 *x)
{
    return X509_cmp_current_time(X509_get0_notAfter(x)) > 0 && X509_cmp_current_time(X509_get0_notBefore(x)) < 0;
}

static bool load_given(const kg_tls_config *cfg, kg_tls_material *out, kg_error *err)
{
    size_t n;
    out->cert_pem = kg_read_file(cfg->cert_file, &n);
    if (!out->cert_pem)
        return kg_err_set(err, KG_EIO, "open %s: %s", cfg->cert_file, strerror(errno));
    out->key_pem = kg_read_file(cfg->key_file, &n);
    if (!out->key_pem)
        return kg_err_set(err, KG_EIO, "open %s: %s", cfg->key_file, strerror(errno));
    /* all certificates of the chain */
    BIO *b = BIO_new_mem_buf(out->cert_pem, -1);
    X509 *first = NULL, *last = NULL, *x;
    while ((x = PEM_read_bio_X509(b, NULL, NULL, NULL)) != NULL) {
        if (!first)
            first = x;
        else {
            X509_free(last);
            last = x;
        }
    }
    ERR_clear_error();
    BIO_free(b);
    EVP_PKEY *k = pem_to_key(out->key_pem);
    bool ok = true;
    if (!first)
        ok = kg_err_set(err, KG_EINVAL, "%s: no certificate found", cfg->cert_file);
    else if (!k) {
        ok = ossl_err(err, cfg->key_file);
        kg_err_prefix(err, "tls: reading the private key (PEM, unencrypted)");
    } else if (X509_check_private_key(first, k) != 1)
        ok = kg_err_set(err, KG_EINVAL, "tls: private key in %s does not match public key in %s", cfg->key_file,
                        cfg->cert_file);
    if (ok) {
        if (cfg->ca_file) {
            out->ca_pem = kg_read_file(cfg->ca_file, &n);
            if (!out->ca_pem)
                ok = kg_err_set(err, KG_EIO, "open %s: %s", cfg->ca_file, strerror(errno));
        } else {
            X509 *top = last ? last : first;
            if (X509_check_issued(top, top) == X509_V_OK)
                out->ca_pem = cert_to_pem(top);
            /* else: issued by a CA we do not have; the kubeconfig then relies on the system trust store */
        }
    }
    ERR_clear_error();
    EVP_PKEY_free(k);
    X509_free(first);
    X509_free(last);
    return ok;
}

bool kg_tls_load_or_generate(const kg_tls_config *cfg, kg_tls_material *out, kg_error *err)
{
    memset(out, 0, sizeof(*out));
    if (cfg->cert_file || cfg->key_file) {
        if (!cfg->cert_file || !cfg->key_file)
            return kg_err_set(err, KG_EINVAL, "--tls-cert-file and --tls-private-key-file must be given together");
        if (!load_given(cfg, out, err)) {
            kg_tls_material_free(out);
            return false;
        }
        return true;
    }
    if (!cfg->data_dir)
        return kg_err_set(err, KG_EINVAL, "no data directory for generated certificates");
    char *ca_crt = path_join(cfg->data_dir, "ca.crt"), *ca_key = path_join(cfg->data_dir, "ca.key");
    char *srv_crt = path_join(cfg->data_dir, "apiserver.crt"), *srv_key = path_join(cfg->data_dir, "apiserver.key");
    char *sans = wanted_sans(cfg);
    X509 *ca = NULL, *srv = NULL;
    EVP_PKEY *cakey = NULL, *srvkey = NULL;
    bool ok = false;
    size_t n;

    /* the CA: reuse when both files load and match */
    char *ca_pem = kg_read_file(ca_crt, &n), *cakey_pem = kg_read_file(ca_key, &n);
    if (ca_pem && cakey_pem) {
        ca = pem_to_cert(ca_pem);
        cakey = pem_to_key(cakey_pem);
        if (!ca || !cakey || X509_check_private_key(ca, cakey) != 1) {
            kg_err_set(err, KG_EINVAL, "%s / %s: unreadable or mismatched CA certificate and key", ca_crt, ca_key);
            goto out;
        }
    } else if (ca_pem || cakey_pem) {
        kg_err_set(err, KG_EINVAL, "%s exists but %s does not", ca_pem ? ca_crt : ca_key, ca_pem ? ca_key : ca_crt);
        goto out;
    } else {
        cakey = EVP_EC_gen("P-256");
        if (!cakey || !(ca = make_cert(cakey, "kgate-ca", NULL, NULL, NULL, true, CA_DAYS))) {
            ossl_err(err, "generating the CA");
            goto out;
        }
        char *kp = key_to_pem(cakey), *cp = cert_to_pem(ca);
        bool w = write_file(ca_key, kp, strlen(kp), 0600, err) && write_file(ca_crt, cp, strlen(cp), 0644, err);
        OPENSSL_cleanse(kp, strlen(kp));
        free(kp);
        free(ca_pem);
        ca_pem = cp;
        if (!w)
            goto out;
        out->generated = true;
        KG_INFO("generated a CA certificate in %s", ca_crt);
    }

    /* the serving certificate: reuse when signed by the CA, current, and carrying every wanted SAN */
    char *srv_pem = kg_read_file(srv_crt, &n), *srvkey_pem = kg_read_file(srv_key, &n);
    if (srv_pem && srvkey_pem && !out->generated) {
        srv = pem_to_cert(srv_pem);
        srvkey = pem_to_key(srvkey_pem);
        EVP_PKEY *capub = X509_get0_pubkey(ca);
        if (srv && srvkey && X509_check_private_key(srv, srvkey) == 1 && X509_verify(srv, capub) == 1 &&
            cert_usable(srv) && has_all_sans(srv, sans)) {
            out->cert_pem = srv_pem;
            out->key_pem = srvkey_pem;
            srv_pem = srvkey_pem = NULL;
        } else {
            KG_INFO("regenerating the serving certificate %s (not issued by the CA, expired, or missing SANs)",
                    srv_crt);
        }
        X509_free(srv);
        srv = NULL;
        EVP_PKEY_free(srvkey);
        srvkey = NULL;
    }
    free(srv_pem);
    if (srvkey_pem) {
        OPENSSL_cleanse(srvkey_pem, strlen(srvkey_pem));
        free(srvkey_pem);
    }
    if (!out->cert_pem) {
        srvkey = EVP_EC_gen("P-256");
        if (!srvkey || !(srv = make_cert(srvkey, "kgate-apiserver", ca, cakey, sans, false, SERVING_DAYS))) {
            ossl_err(err, "generating the serving certificate");
            goto out;
        }
        out->key_pem = key_to_pem(srvkey);
        out->cert_pem = cert_to_pem(srv);
        if (!write_file(srv_key, out->key_pem, strlen(out->key_pem), 0600, err) ||
            !write_file(srv_crt, out->cert_pem, strlen(out->cert_pem), 0644, err))
            goto out;
        out->generated = true;
        KG_INFO("generated a serving certificate in %s for %s", srv_crt, sans);
    }
    out->ca_pem = ca_pem;
    ca_pem = NULL;
    ok = true;
out:
    if (!ok)
        kg_tls_material_free(out);
    free(ca_pem);
    if (cakey_pem) {
        OPENSSL_cleanse(cakey_pem, strlen(cakey_pem));
        free(cakey_pem);
    }
    X509_free(ca);
    X509_free(srv);
    EVP_PKEY_free(cakey);
    EVP_PKEY_free(srvkey);
    free(sans);
    free(ca_crt);
    free(ca_key);
    free(srv_crt);
    free(srv_key);
    return ok;
}

void kg_tls_material_free(kg_tls_material *m)
{
    free(m->cert_pem);
    if (m->key_pem) {
        OPENSSL_cleanse(m->key_pem, strlen(m->key_pem));
        free(m->key_pem);
    }
    free(m->ca_pem);
    memset(m, 0, sizeof(*m));
}
