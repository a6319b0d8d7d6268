/* TLS material: CA + serving certificate generation, reuse, SANs, given files; admin.kubeconfig rendering. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "base/str.h"
#include "server/kubeconfig.h"
#include "server/tls.h"

static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/kg-tls-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *sub(const char *name)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", tmpdir, name) > 0);
    return p;
}

static int file_mode(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    struct stat st;
    if (stat(p, &st) != 0)
        return -1;
    return (int)(st.st_mode & 0777);
}

static void generate_then_reuse(void **state)
{
    (void)state;
    char *dir = sub("gen");
    assert_int_equal(mkdir(dir, 0700), 0);
    kg_tls_config cfg = {.data_dir = dir, .bind_address = "127.0.0.1"};
    kg_tls_material m1, m2;
    kg_error err = {0};
    assert_true(kg_tls_load_or_generate(&cfg, &m1, &err));
    assert_true(m1.generated);
    assert_non_null(m1.cert_pem);
    assert_non_null(m1.key_pem);
    assert_non_null(m1.ca_pem);
    assert_int_equal(file_mode(dir, "ca.key"), 0600);
    assert_int_equal(file_mode(dir, "apiserver.key"), 0600);
    assert_int_equal(file_mode(dir, "ca.crt"), 0644);
    assert_int_equal(file_mode(dir, "apiserver.crt"), 0644);

    char *sans = kg_tls_cert_sans(m1.cert_pem, &err);
    assert_non_null(sans);
    assert_string_equal(sans, "DNS:localhost, IP:127.0.0.1, IP:::1");
    free(sans);
    assert_true(kg_tls_cert_verify(m1.cert_pem, m1.ca_pem, &err));
    /* the serving certificate does not verify against itself as a CA */
    assert_false(kg_tls_cert_verify(m1.cert_pem, m1.cert_pem, &err));

    /* second start: identical material, nothing generated */
    assert_true(kg_tls_load_or_generate(&cfg, &m2, &err));
    assert_false(m2.generated);
    assert_string_equal(m1.cert_pem, m2.cert_pem);
    assert_string_equal(m1.key_pem, m2.key_pem);
    assert_string_equal(m1.ca_pem, m2.ca_pem);
    kg_tls_material_free(&m2);

    /* a new SAN: the serving certificate is reissued by the same CA */
    const char *extra[] = {"kgate.example.com", "IP:10.0.0.7"};
    kg_tls_config cfg2 = {.data_dir = dir, .bind_address = "192.168.1.5", .extra_sans = extra, .nextra_sans = 2};
    assert_true(kg_tls_load_or_generate(&cfg2, &m2, &err));
    assert_true(m2.generated);
    assert_string_equal(m1.ca_pem, m2.ca_pem);
    assert_string_not_equal(m1.cert_pem, m2.cert_pem);
    sans = kg_tls_cert_sans(m2.cert_pem, &err);
    assert_string_equal(sans,
                        "DNS:localhost, IP:127.0.0.1, IP:::1, IP:192.168.1.5, DNS:kgate.example.com, IP:10.0.0.7");
    free(sans);
    assert_true(kg_tls_cert_verify(m2.cert_pem, m1.ca_pem, &err));
    kg_tls_material_free(&m2);
    /* and the original config is still satisfied by the larger certificate: reused */
    assert_true(kg_tls_load_or_generate(&cfg, &m2, &err));
    assert_false(m2.generated);
    kg_tls_material_free(&m2);

    /* a CA certificate without its key is an error, not a silent new CA */
    char keyp[600];
    snprintf(keyp, sizeof(keyp), "%s/ca.key", dir);
    assert_int_equal(unlink(keyp), 0);
    assert_false(kg_tls_load_or_generate(&cfg, &m2, &err));
    assert_non_null(strstr(err.msg, "ca.key does not"));
    kg_tls_material_free(&m1);
    free(dir);
}

static void given_files(void **state)
{
    (void)state;
    /* use generated material as "given" files */
    char *dir = sub("given");
    assert_int_equal(mkdir(dir, 0700), 0);
    kg_tls_config gen = {.data_dir = dir};
    kg_tls_material m, g;
    kg_error err = {0};
    assert_true(kg_tls_load_or_generate(&gen, &m, &err));
    char crt[600], key[600], ca[600], chain[600];
    snprintf(crt, sizeof(crt), "%s/apiserver.crt", dir);
    snprintf(key, sizeof(key), "%s/apiserver.key", dir);
    snprintf(ca, sizeof(ca), "%s/ca.crt", dir);
    snprintf(chain, sizeof(chain), "%s/chain.crt", dir);

    /* leaf only, issuer unknown: no CA for the kubeconfig (system trust store) */
    kg_tls_config c1 = {.cert_file = crt, .key_file = key};
    assert_true(kg_tls_load_or_generate(&c1, &g, &err));
    assert_false(g.generated);
    assert_string_equal(g.cert_pem, m.cert_pem);
    assert_null(g.ca_pem);
    kg_tls_material_free(&g);

    /* leaf + CA in the file: the self-signed top of the chain is the CA */
    FILE *f = fopen(chain, "w");
    fputs(m.cert_pem, f);
    fputs(m.ca_pem, f);
    fclose(f);
    kg_tls_config c2 = {.cert_file = chain, .key_file = key};
    assert_true(kg_tls_load_or_generate(&c2, &g, &err));
    assert_string_equal(g.ca_pem, m.ca_pem);
    kg_tls_material_free(&g);

    /* explicit CA file */
    kg_tls_config c3 = {.cert_file = crt, .key_file = key, .ca_file = ca};
    assert_true(kg_tls_load_or_generate(&c3, &g, &err));
    assert_string_equal(g.ca_pem, m.ca_pem);
    kg_tls_material_free(&g);

    /* mismatched key */
    char cakey[600];
    snprintf(cakey, sizeof(cakey), "%s/ca.key", dir);
    kg_tls_config c4 = {.cert_file = crt, .key_file = cakey};
    assert_false(kg_tls_load_or_generate(&c4, &g, &err));
    char want[1400];
    snprintf(want, sizeof(want), "tls: private key in %s does not match public key in %s", cakey, crt);
    assert_string_equal(err.msg, want);

    /* an encrypted key is refused (no passphrase prompt) */
    char enckey[600];
    snprintf(enckey, sizeof(enckey), "%s/enc.key", dir);
    BIO *kb = BIO_new_mem_buf(m.key_pem, -1);
    EVP_PKEY *pk = PEM_read_bio_PrivateKey(kb, NULL, NULL, NULL);
    BIO_free(kb);
    assert_non_null(pk);
    FILE *ef = fopen(enckey, "w");
    assert_int_equal(PEM_write_PrivateKey(ef, pk, EVP_aes_256_cbc(), (unsigned char *)"secret", 6, NULL, NULL), 1);
    fclose(ef);
    EVP_PKEY_free(pk);
    kg_tls_config c6 = {.cert_file = crt, .key_file = enckey};
    assert_false(kg_tls_load_or_generate(&c6, &g, &err));
    assert_true(strncmp(err.msg, "tls: reading the private key (PEM, unencrypted): ", 49) == 0);

    /* only one of the two flags */
    kg_tls_config c5 = {.cert_file = crt};
    assert_false(kg_tls_load_or_generate(&c5, &g, &err));
    assert_string_equal(err.msg, "--tls-cert-file and --tls-private-key-file must be given together");
    kg_tls_material_free(&m);
    free(dir);
}

static void kubeconfig_file(void **state)
{
    (void)state;
    char *url = kg_kubeconfig_server_url("0.0.0.0", 6443, true);
    assert_string_equal(url, "https://127.0.0.1:6443");
    free(url);
    url = kg_kubeconfig_server_url("::", 7443, true);
    assert_string_equal(url, "https://[::1]:7443");
    free(url);
    url = kg_kubeconfig_server_url("10.1.2.3", 8080, false);
    assert_string_equal(url, "http://10.1.2.3:8080");
    free(url);

    kg_kubeconfig kc = {
        .server = "https://127.0.0.1:6443", .ca_pem = "-----BEGIN CERTIFICATE-----\nAB\n", .token = "abc123"};
    kg_buf b = KG_BUF_INIT;
    kg_kubeconfig_render(&b, &kc);
    /* base64("-----BEGIN CERTIFICATE-----\nAB\n") */
    assert_string_equal(kg_buf_cstr(&b),
                        "apiVersion: v1\n"
                        "clusters:\n"
                        "- cluster:\n"
                        "    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkFCCg==\n"
                        "    server: https://127.0.0.1:6443\n"
                        "  name: kgate\n"
                        "contexts:\n"
                        "- context:\n"
                        "    cluster: kgate\n"
                        "    user: kgate-admin\n"
                        "  name: kgate\n"
                        "current-context: kgate\n"
                        "kind: Config\n"
                        "preferences: {}\n"
                        "users:\n"
                        "- name: kgate-admin\n"
                        "  user:\n"
                        "    token: abc123\n");
    kg_buf_free(&b);
    /* a token that YAML would read as a number is quoted */
    kg_kubeconfig kc2 = {.server = "http://127.0.0.1:8080", .token = "12345"};
    kg_buf_init(&b);
    kg_kubeconfig_render(&b, &kc2);
    assert_non_null(strstr(kg_buf_cstr(&b), "    token: \"12345\"\n"));
    assert_null(strstr(kg_buf_cstr(&b), "certificate-authority-data"));
    kg_buf_free(&b);

    char *path = sub("admin.kubeconfig");
    kg_error err = {0};
    assert_true(kg_kubeconfig_write(path, &kc, &err));
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    size_t n;
    char *text = kg_read_file(path, &n);
    assert_non_null(strstr(text, "token: abc123\n"));
    free(text);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generate_then_reuse),
        cmocka_unit_test(given_files),
        cmocka_unit_test(kubeconfig_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
