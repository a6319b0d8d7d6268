/* --tls-min-version / --tls-cipher-suites → GnuTLS priority string (see tlsconfig.h). */
#include "server/tlsconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

typedef struct suite {
    const char *name; /* Go's crypto/tls name */
    const char *kx, *cipher, *mac;
} suite;

/* the suites GnuTLS can serve; kx NULL: a TLS 1.3 suite */
static const suite suites[] = {
    {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA", "AES-128-GCM", "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA", "AES-256-GCM", "AEAD"},
    {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA", "AES-128-GCM", "AEAD"},
    {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA", "AES-256-GCM", "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "ECDHE-ECDSA", "CHACHA20-POLY1305", "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA", "CHACHA20-POLY1305", "AEAD"},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "ECDHE-RSA", "CHACHA20-POLY1305", "AEAD"},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA", "CHACHA20-POLY1305", "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA", "AES-128-CBC", "SHA1"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA", "AES-256-CBC", "SHA1"},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA", "AES-128-CBC", "SHA1"},
    {"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA", "AES-256-CBC", "SHA1"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "ECDHE-ECDSA", "AES-128-CBC", "SHA256"},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "ECDHE-RSA", "AES-128-CBC", "SHA256"},
    {"TLS_RSA_WITH_AES_128_GCM_SHA256", "RSA", "AES-128-GCM", "AEAD"},
    {"TLS_RSA_WITH_AES_256_GCM_SHA384", "RSA", "AES-256-GCM", "AEAD"},
    {"TLS_RSA_WITH_AES_128_CBC_SHA", "RSA", "AES-128-CBC", "SHA1"},
    {"TLS_RSA_WITH_AES_256_CBC_SHA", "RSA", "AES-256-CBC", "SHA1"},
    {"TLS_RSA_WITH_AES_128_CBC_SHA256", "RSA", "AES-128-CBC", "SHA256"},
    {"TLS_AES_128_GCM_SHA256", NULL, "AES-128-GCM", "AEAD"},
    {"TLS_AES_256_GCM_SHA384", NULL, "AES-256-GCM", "AEAD"},
    {"TLS_CHACHA20_POLY1305_SHA256", NULL, "CHACHA20-POLY1305", "AEAD"},
};

/* append ":+item" unless present */
static void add_once(kg_buf *b, const char *item)
{
    char tok[64];
    int n = snprintf(tok, sizeof tok, ":+%s", item);
    const char *all = kg_buf_cstr(b);
    for (const char *p = strstr(all, tok); p; p = strstr(p + 1, tok))
        if (p[n] == ':' || p[n] == '\0')
            return;
    kg_buf_puts(b, tok);
}

char *kg_tls_priorities(const char *min_version, const char *cipher_suites, kg_error *err)
{
    static const char *const names[] = {"VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13"};
    static const char *const vers[] = {"TLS1.0", "TLS1.1", "TLS1.2", "TLS1.3"};
    int min = 2;
    if (min_version && *min_version) {
        min = -1;
        for (int i = 0; i < 4; i++)
            if (!strcmp(min_version, names[i]))
                min = i;
        if (min < 0) {
            kg_err_set(err, KG_EINVAL, "unknown tls version \"%s\"", min_version);
            return NULL;
        }
    }
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "NORMAL:-VERS-ALL");
    for (int i = 3; i >= min; i--)
        kg_buf_printf(&b, ":+VERS-%s", vers[i]);
    kg_buf_puts(&b, ":-KX-ALL:-CIPHER-ALL:-MAC-ALL");
    bool listed13 = false; /* TLS 1.3 suites named in the list: then only those */
    if (!cipher_suites || !*cipher_suites) {
        add_once(&b, "ECDHE-ECDSA");
        add_once(&b, "ECDHE-RSA");
    } else {
        const char *p = cipher_suites;
        while (*p) {
            size_t n = strcspn(p, ",");
            char name[96];
            snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name - 1 ? n : sizeof name - 1), p);
            const suite *s = NULL;
            for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
                if (n == strlen(suites[i].name) && !strncmp(p, suites[i].name, n))
                    s = &suites[i];
            if (!s) {
                kg_err_set(err, KG_EINVAL, "Cipher suite %s not supported or doesn't exist", name);
                kg_buf_free(&b);
                return NULL;
            }
            if (s->kx)
                add_once(&b, s->kx);
            else
                listed13 = true;
            add_once(&b, s->cipher);
            add_once(&b, s->mac);
            p += n;
            if (*p == ',')
                p++;
        }
    }
    if (!listed13) { /* TLS 1.3 suites: all of them, as Go (their key exchange is not a KX-* item) */
        add_once(&b, "AES-256-GCM");
        add_once(&b, "AES-128-GCM");
        add_once(&b, "CHACHA20-POLY1305");
        add_once(&b, "AEAD");
    }
    char *r = strdup(kg_buf_cstr(&b));
    kg_buf_free(&b);
    return r;
}
