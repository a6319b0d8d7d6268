/* CertificateApproval, CertificateSigning and ClusterTrustBundleAttest against a table-driven authorizer: the exact
 * signer and its domain wildcard, the old object's signer for CSRs, status updates that leave the certificate
 * alone, GC-only bundle updates, the ClusterTrustBundle gate, and upstream's messages. */
#include "fake_authorizer.h"
#include "plugin_testutil.h"

#define CSR_R "certificatesigningrequests"

static bool gate_ctb(void *ctx, const char *gate)
{
    (void)ctx;
    return !strcmp(gate, "ClusterTrustBundle");
}

static const char *const rules[] = {
    "alice approve certificates.k8s.io signers - example.com/foo",
    "alice sign certificates.k8s.io signers - example.com/foo",
    "alice attest certificates.k8s.io signers - example.com/foo",
    "wild approve certificates.k8s.io signers - example.com/*",
    "wild sign certificates.k8s.io signers - example.com/*",
    "wild attest certificates.k8s.io signers - example.com/*",
    NULL,
};

typedef struct fixture {
    kg_arena a;
    fake_authz fz;
    kg_admission_services svc;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    kg_arena_init(&f->a, 0);
    fake_authz_init(&f->fz, rules);
    f->svc.authorizer = &f->fz.z;
    f->svc.feature_enabled = gate_ctb;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    kg_arena_free(&f->a);
    free(f);
    return 0;
}

static kg_json *csr(kg_arena *a, const char *signer, const char *cert)
{
    return tj(a, kg_arena_sprintf(a,
                                  "{\"apiVersion\":\"certificates.k8s.io/v1\",\"kind\":\"CertificateSigningRequest\","
                                  "\"metadata\":{\"name\":\"csr1\"},\"spec\":{\"signerName\":\"%s\"},\"status\":{%s}}",
                                  signer, cert ? kg_arena_sprintf(a, "\"certificate\":\"%s\"", cert) : ""));
}

static kg_status *run(fixture *f, const kg_admission_plugin *p, const char *user, kg_admission_op op,
                      const char *resource, const char *sub, kg_json *obj, kg_json *old)
{
    kg_admission_attributes at;
    kg_admission_attrs_init(&at, &f->a);
    at.operation = op;
    at.resource = (kg_gvr){"certificates.k8s.io", "v1", resource};
    at.kind = (kg_gvk){"certificates.k8s.io", "v1",
                       !strcmp(resource, CSR_R) ? "CertificateSigningRequest" : "ClusterTrustBundle"};
    at.subresource = sub;
    at.name = !strcmp(resource, CSR_R) ? "csr1" : "ctb1";
    at.object = obj;
    at.old_object = old;
    at.user.name = user;
    return validate1(p, NULL, &f->svc, &at);
}

static void registered(void **state)
{
    (void)state;
    static const char *const names[] = {"CertificateApproval", "CertificateSigning", "ClusterTrustBundleAttest"};
    for (size_t i = 0; i < 3; i++) {
        const kg_admission_plugin_info *e = kg_admission_registry_find(names[i]);
        assert_non_null(e);
        assert_non_null(e->impl);
        assert_true(e->default_on);
    }
    assert_int_equal(kg_admission_plugin_certificate_approval.handles, KG_ADMISSION_UPDATE);
    assert_int_equal(kg_admission_plugin_certificate_signing.handles, KG_ADMISSION_UPDATE);
    assert_int_equal(kg_admission_plugin_cluster_trust_bundle_attest.handles,
                     KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE);
}

static void approval(void **state)
{
    fixture *f = *state;
    const kg_admission_plugin *p = &kg_admission_plugin_certificate_approval;
    kg_json *old = csr(&f->a, "example.com/foo", NULL);
    assert_null(run(f, p, "alice", KG_ADMISSION_UPDATE, CSR_R, "approval", old, old));
    assert_string_equal(f->fz.last, "alice approve certificates.k8s.io signers - example.com/foo");
    /* the domain wildcard is asked second */
    f->fz.asked = 0;
    assert_null(run(f, p, "wild", KG_ADMISSION_UPDATE, CSR_R, "approval", old, old));
    assert_int_equal(f->fz.asked, 2);
    assert_string_equal(f->fz.last, "wild approve certificates.k8s.io signers - example.com/*");
    assert_status(run(f, p, "bob", KG_ADMISSION_UPDATE, CSR_R, "approval", old, old), 403, "Forbidden",
                  "certificatesigningrequests.certificates.k8s.io \"csr1\" is forbidden: user not permitted to "
                  "approve requests with signerName \"example.com/foo\"");
    /* the OLD signer counts: alice may not approve a bar CSR by renaming it to foo */
    kg_json *bar = csr(&f->a, "example.com/bar", NULL);
    assert_status(run(f, p, "alice", KG_ADMISSION_UPDATE, CSR_R, "approval", old, bar), 403, "Forbidden",
                  "certificatesigningrequests.certificates.k8s.io \"csr1\" is forbidden: user not permitted to "
                  "approve requests with signerName \"example.com/bar\"");
    /* other subresources and the main resource are not this plugin's business */
    f->fz.asked = 0;
    assert_null(run(f, p, "bob", KG_ADMISSION_UPDATE, CSR_R, "", old, old));
    assert_null(run(f, p, "bob", KG_ADMISSION_UPDATE, CSR_R, "status", old, old));
    assert_int_equal(f->fz.asked, 0);
}

static void signing(void **state)
{
    fixture *f = *state;
    const kg_admission_plugin *p = &kg_admission_plugin_certificate_signing;
    kg_json *old = csr(&f->a, "example.com/foo", NULL), *signed_ = csr(&f->a, "example.com/foo", "Q0VSVA==");
    assert_null(run(f, p, "alice", KG_ADMISSION_UPDATE, CSR_R, "status", signed_, old));
    assert_null(run(f, p, "wild", KG_ADMISSION_UPDATE, CSR_R, "status", signed_, old));
    assert_status(run(f, p, "bob", KG_ADMISSION_UPDATE, CSR_R, "status", signed_, old), 403, "Forbidden",
                  "certificatesigningrequests.certificates.k8s.io \"csr1\" is forbidden: user not permitted to "
                  "sign requests with signerName \"example.com/foo\"");
    /* changing an issued certificate is signing too */
    assert_status(
        run(f, p, "bob", KG_ADMISSION_UPDATE, CSR_R, "status", csr(&f->a, "example.com/foo", "T1RIRVI="), signed_), 403,
        "Forbidden",
        "certificatesigningrequests.certificates.k8s.io \"csr1\" is forbidden: user not permitted to "
        "sign requests with signerName \"example.com/foo\"");
    /* a status update that leaves the certificate alone needs no permission */
    f->fz.asked = 0;
    assert_null(run(f, p, "bob", KG_ADMISSION_UPDATE, CSR_R, "status", old, old));
    assert_null(run(f, p, "bob", KG_ADMISSION_UPDATE, CSR_R, "status", signed_, signed_));
    assert_null(run(f, p, "bob", KG_ADMISSION_UPDATE, CSR_R, "approval", signed_, old));
    assert_int_equal(f->fz.asked, 0);
}

static kg_json *ctb(kg_arena *a, const char *signer, const char *finalizers)
{
    return tj(a, kg_arena_sprintf(a,
                                  "{\"apiVersion\":\"certificates.k8s.io/v1beta1\",\"kind\":\"ClusterTrustBundle\","
                                  "\"metadata\":{\"name\":\"ctb1\"%s},\"spec\":{%s\"trustBundle\":\"x\"}}",
                                  finalizers ? kg_arena_sprintf(a, ",\"finalizers\":[\"%s\"]", finalizers) : "",
                                  signer ? kg_arena_sprintf(a, "\"signerName\":\"%s\",", signer) : ""));
}

static void attest(void **state)
{
    fixture *f = *state;
    const kg_admission_plugin *p = &kg_admission_plugin_cluster_trust_bundle_attest;
    const char *R = "clustertrustbundles";
    kg_json *b = ctb(&f->a, "example.com/foo", NULL);
    assert_null(run(f, p, "alice", KG_ADMISSION_CREATE, R, "", b, NULL));
    assert_null(run(f, p, "wild", KG_ADMISSION_CREATE, R, "", b, NULL));
    assert_status(run(f, p, "bob", KG_ADMISSION_CREATE, R, "", b, NULL), 403, "Forbidden",
                  "clustertrustbundles.certificates.k8s.io \"ctb1\" is forbidden: user not permitted to attest for "
                  "signerName \"example.com/foo\"");
    /* no signer: nothing to attest */
    assert_null(run(f, p, "bob", KG_ADMISSION_CREATE, R, "", ctb(&f->a, NULL, NULL), NULL));
    /* an update of the GC fields only (a finalizer) passes; any other change is checked */
    assert_null(run(f, p, "bob", KG_ADMISSION_UPDATE, R, "", ctb(&f->a, "example.com/foo", "f1"), b));
    kg_json *changed = ctb(&f->a, "example.com/foo", NULL);
    kg_json_set(&f->a, kg_json_get(changed, "spec"), "trustBundle", kg_json_new_str(&f->a, "y"));
    assert_status(run(f, p, "bob", KG_ADMISSION_UPDATE, R, "", changed, b), 403, "Forbidden",
                  "clustertrustbundles.certificates.k8s.io \"ctb1\" is forbidden: user not permitted to attest for "
                  "signerName \"example.com/foo\"");
    /* gate off: a no-op */
    f->svc.feature_enabled = NULL;
    assert_null(run(f, p, "bob", KG_ADMISSION_CREATE, R, "", b, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registered),
        cmocka_unit_test_setup_teardown(approval, setup, teardown),
        cmocka_unit_test_setup_teardown(signing, setup, teardown),
        cmocka_unit_test_setup_teardown(attest, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
