/* CertificateSubjectRestriction: real openssl-generated CSRs, system:masters with the kube-apiserver-client signer
 * denied, parse errors. */
#include "plugin_testutil.h"


#define P kg_admission_plugin_certificate_subject_restriction
/* openssl req -new -subj "/CN=alice/O=dev/O=system:masters" (EC P-256), PEM then base64 as in spec.request */
#define CSR_MASTERS                                                                                                    \
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIeE1JR1pBZ0VBTURjeERqQU1CZ05WQkFNTUJXRnNhV05sTVF3d0NnWURWUVFL" \
    "REFOa1pYWXhGekFWQmdOVgpCQW9NRG5ONWMzUmxiVHB0WVhOMFpYSnpNRmt3RXdZSEtvWkl6ajBDQVFZSUtvWkl6ajBEQVFjRFFnQUUzYlVlClQ3" \
    "TTVTOG5Ld1NkdXlxVGJGNlBjUndwbCtlSk5hMTFzcE5HR1djV0M1STh5NnZYSEM1bzNhWWhZTUlESlBYRFAKcnQ5cWRoSUpWQlo0VG82MHphQUFN" \
    "QW9HQ0NxR1NNNDlCQU1DQTBjQU1FUUNJR1FKeTd5SGNUdHJlazNNaTVYdApveElST0RXcHcrQlo2OHdSZTQzQ2hXOXZBaUJuUHZFZmpmZ1dLUVVQ" \
    "Y2lpYytEL2dHdkFhSmdiZ29pYVFPNGdrClRTR3VIZz09Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo="
/* openssl req -new -subj "/CN=bob/O=dev" */
#define CSR_OTHER                                                                                                      \
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIV01INENBUUF3SERFTU1Bb0dBMVVFQXd3RFltOWlNUXd3Q2dZRFZRUUtEQU5r" \
    "WlhZd1dUQVRCZ2NxaGtqTwpQUUlCQmdncWhrak9QUU1CQndOQ0FBUlFQN1JMNkxOVGVBRHY4K1p6OVpudm42MTAyellzZlRzQWp4V21kcklxCjg4" \
    "V2F0VUdyWWpoNHF4SWVnT2NxeWc3Y2paT1pGbURvU2pxcUlYUkJxWmRtb0FBd0NnWUlLb1pJemowRUF3SUQKU0FBd1JRSWdYeUN5L3V6REtOZzZn" \
    "V01RVGJFVXF0b1M3NnZiQ05EN3lOOXd0ZFRtekdVQ0lRQ2hXdzBCd2pkbAovVTBMdVNSNWowRk5OMUkydnMzZnFNV3RObUpOVEtOV3l3PT0KLS0t" \
    "LS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg=="
/* a PEM block of the wrong type, and a CERTIFICATE REQUEST block with garbage DER */
#define PEM_CERT "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo="
#define PEM_GARBAGE                                                                                                    \
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlJQkFBQUEKLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg=="

static kg_status *check(kg_arena *a, kg_admission_op op, const char *signer, const char *req, const char *sub)
{
    kg_admission_attributes at;
    kg_admission_attrs_init(&at, a);
    at.operation = op;
    at.kind = (kg_gvk){"certificates.k8s.io", "v1", "CertificateSigningRequest"};
    at.resource = (kg_gvr){"certificates.k8s.io", "v1", "certificatesigningrequests"};
    at.subresource = sub;
    at.name = "csr1";
    at.object =
        tj(a, kg_arena_sprintf(a,
                               "{\"apiVersion\":\"certificates.k8s.io/v1\",\"kind\":\"CertificateSigningRequest\","
                               "\"metadata\":{\"name\":\"csr1\"},\"spec\":{\"signerName\":\"%s\",\"request\":\"%s\","
                               "\"usages\":[\"client auth\"]}}",
                               signer, req));
    return validate1(&P, NULL, NULL, &at);
}

#define CLIENT "kubernetes.io/kube-apiserver-client"

static void handles(void **state)
{
    assert_int_equal(P.handles, KG_ADMISSION_CREATE);
    assert_null(P.admit);
    assert_true(kg_admission_registry_find("CertificateSubjectRestriction")->default_on);
    assert_ptr_equal(kg_admission_registry_find("CertificateSubjectRestriction")->impl, &P);
}

static void masters_with_client_signer_denied(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_status(check(&a, KG_ADMISSION_CREATE, CLIENT, CSR_MASTERS, ""), 403, "Forbidden",
                  "certificatesigningrequests.certificates.k8s.io \"csr1\" is forbidden: use of "
                  "kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed");
    kg_arena_free(&a);
}

static void allowed(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    assert_null(check(&a, KG_ADMISSION_CREATE, CLIENT, CSR_OTHER, ""));
    assert_null(check(&a, KG_ADMISSION_CREATE, "kubernetes.io/kubelet-serving", CSR_MASTERS, ""));
    assert_null(check(&a, KG_ADMISSION_CREATE, "example.com/custom", CSR_MASTERS, ""));
    /* subresources and UPDATE are not checked */
    assert_null(check(&a, KG_ADMISSION_CREATE, CLIENT, CSR_MASTERS, "status"));
    assert_null(check(&a, KG_ADMISSION_UPDATE, CLIENT, CSR_MASTERS, ""));
    kg_arena_free(&a);
}

static void unparsable(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *pfx = "certificatesigningrequests.certificates.k8s.io \"csr1\" is forbidden: failed to parse CSR: ";
    assert_status(check(&a, KG_ADMISSION_CREATE, CLIENT, PEM_CERT, ""), 403, "Forbidden",
                  kg_arena_sprintf(&a, "%sPEM block type must be CERTIFICATE REQUEST", pfx));
    assert_status(check(&a, KG_ADMISSION_CREATE, CLIENT, "", ""), 403, "Forbidden",
                  kg_arena_sprintf(&a, "%sPEM block type must be CERTIFICATE REQUEST", pfx));
    assert_status(check(&a, KG_ADMISSION_CREATE, CLIENT, PEM_GARBAGE, ""), 403, "Forbidden",
                  kg_arena_sprintf(&a, "%sx509: malformed certificate request", pfx));
    kg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles),
        cmocka_unit_test(masters_with_client_signer_denied),
        cmocka_unit_test(allowed),
        cmocka_unit_test(unparsable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
