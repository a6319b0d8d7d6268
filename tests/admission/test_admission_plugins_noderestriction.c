/* NodeRestriction: mirror pods only (each reference kind refused with its own text), pods bound to the node for
 * delete/status/eviction, the node's own Node object with the label rules, taints, PVC status, leases, CSRs with
 * the node's CN, TokenRequests bound to the node's pods and the audience rule with the authorizer fallback; other
 * users untouched. Messages as upstream's admission_test.go. */
#include "fake_authorizer.h"
#include "plugin_testutil.h"

#define P kg_admission_plugin_node_restriction

static const char *const node_groups[] = {"system:nodes", "system:authenticated"};
static const char *const rules[] = {
    "system:node:n1 request-serviceaccounts-token-audience core allowed-aud ns1 sa1",
    NULL,
};

typedef struct fixture {
    kg_arena a;
    kg_admission_memcluster *m;
    kg_admission_services svc;
    fake_authz fz;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    kg_arena_init(&f->a, 0);
    f->m = kg_admission_memcluster_new();
    kg_admission_memcluster_set_feature(f->m, "ServiceAccountNodeAudienceRestriction", true);
    f->svc = kg_admission_memcluster_services(f->m, NULL);
    fake_authz_init(&f->fz, rules);
    f->svc.authorizer = &f->fz.z;
    tput(f->m, "nodes", "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\",\"uid\":\"nuid1\"}}",
         0);
    tput(f->m, "pods",
         "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\",\"namespace\":\"ns1\",\"uid\":\"pu1\"},"
         "\"spec\":{\"nodeName\":\"n1\",\"serviceAccountName\":\"sa1\",\"volumes\":[{\"name\":\"t\",\"projected\":"
         "{\"sources\":[{\"serviceAccountToken\":{\"audience\":\"vault\",\"path\":\"t\"}}]}}]}}",
         0);
    tput(f->m, "pods",
         "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p2\",\"namespace\":\"ns1\",\"uid\":\"pu2\"},"
         "\"spec\":{\"nodeName\":\"n2\"}}",
         0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    kg_admission_memcluster_free(f->m);
    kg_arena_free(&f->a);
    free(f);
    return 0;
}

static kg_status *run(fixture *f, const char *user, kg_admission_op op, const char *group, const char *resource,
                      const char *sub, const char *ns, const char *name, const char *obj, const char *old)
{
    kg_admission_attributes at;
    kg_admission_attrs_init(&at, &f->a);
    at.operation = op;
    at.resource = (kg_gvr){group, "v1", resource};
    at.subresource = sub;
    at.ns = ns;
    at.name = name;
    at.object = obj ? tj(&f->a, obj) : NULL;
    at.old_object = old ? tj(&f->a, old) : NULL;
    at.user.name = user;
    at.user.groups = node_groups;
    at.user.ngroups = 2;
    return admit1(&P, NULL, &f->svc, &at);
}

#define N1 "system:node:n1"

/* a mirror pod for n1 with extra spec members */
static const char *mirror(kg_arena *a, const char *node, const char *owner, const char *spec)
{
    return kg_arena_sprintf(
        a,
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"m\",\"namespace\":\"ns1\","
        "\"annotations\":{\"kubernetes.io/config.mirror\":\"x\"},\"ownerReferences\":[%s]},"
        "\"spec\":{\"nodeName\":\"%s\",\"containers\":[{\"name\":\"c\",\"image\":\"i\"%s}]%s}}",
        owner, node, "", spec);
}
#define OWNER "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"n1\",\"uid\":\"nuid1\",\"controller\":true}"

static void registered(void **state)
{
    (void)state;
    const kg_admission_plugin_info *e = kg_admission_registry_find("NodeRestriction");
    assert_ptr_equal(e->impl, &P);
    assert_false(e->default_on);
    assert_non_null(P.admit);
    assert_null(P.validate);
}

static void non_nodes_untouched(void **state)
{
    fixture *f = *state;
    kg_admission_attributes at;
    kg_admission_attrs_init(&at, &f->a);
    at.operation = KG_ADMISSION_CREATE;
    at.resource = (kg_gvr){"", "v1", "pods"};
    at.object = tj(&f->a, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"}}");
    at.user.name = N1; /* the name without the group is not a node */
    assert_null(admit1(&P, NULL, &f->svc, &at));
    assert_status(run(f, "system:node:", KG_ADMISSION_CREATE, "", "pods", "", "ns1", "x", "{\"kind\":\"Pod\"}", NULL),
                  403, "Forbidden", "pods \"x\" is forbidden: could not determine node from user \"system:node:\"");
}

static void mirror_pods(void **state)
{
    fixture *f = *state;
    kg_arena *a = &f->a;
    assert_null(run(f, N1, KG_ADMISSION_CREATE, "", "pods", "", "ns1", "", mirror(a, "n1", OWNER, ""), NULL));
    assert_status(run(f, N1, KG_ADMISSION_CREATE, "", "pods", "", "ns1", "",
                      "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"nodeName\":\"n1\"}}", NULL),
                  403, "Forbidden",
                  "pods \"p\" is forbidden: pod does not have \"kubernetes.io/config.mirror\" annotation, node \"n1\" "
                  "can only create mirror pods");
    assert_status(run(f, N1, KG_ADMISSION_CREATE, "", "pods", "", "ns1", "", mirror(a, "n2", OWNER, ""), NULL), 403,
                  "Forbidden",
                  "pods \"m\" is forbidden: node \"n1\" can only create pods with spec.nodeName set to itself");
    assert_status(run(f, N1, KG_ADMISSION_CREATE, "", "pods", "", "ns1", "", mirror(a, "n1", "", ""), NULL), 403,
                  "Forbidden",
                  "pods \"m\" is forbidden: node \"n1\" can only create pods with an owner reference set to itself");
    assert_status(
        run(f, N1, KG_ADMISSION_CREATE, "", "pods", "", "ns1", "",
            mirror(a, "n1", "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"n1\",\"uid\":\"nuid1\"}", ""), NULL),
        403, "Forbidden",
        "pods \"m\" is forbidden: node \"n1\" can only create pods with a controller owner reference set to "
        "itself");
    assert_status(run(f, N1, KG_ADMISSION_CREATE, "", "pods", "", "ns1", "",
                      mirror(a, "n1",
                             "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"n1\",\"uid\":\"other\","
                             "\"controller\":true}",
                             ""),
                      NULL),
                  403, "Forbidden", "pods \"m\" is forbidden: node n1 UID mismatch: expected other got nuid1");
    static const struct {
        const char *spec, *what;
    } refs[] = {
        {",\"serviceAccountName\":\"sa\"", "a service account"},
        {",\"volumes\":[{\"name\":\"v\",\"secret\":{\"secretName\":\"s\"}}]", "secrets"},
        {",\"imagePullSecrets\":[{\"name\":\"s\"}]", "secrets"},
        {",\"volumes\":[{\"name\":\"v\",\"configMap\":{\"name\":\"c\"}}]", "configmaps"},
        {",\"volumes\":[{\"name\":\"v\",\"projected\":{\"sources\":[{\"clusterTrustBundle\":{\"name\":\"b\"}}]}}]",
         "clustertrustbundles"},
        {",\"volumes\":[{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"c\"}}]", "persistentvolumeclaims"},
        {",\"resourceClaims\":[{\"name\":\"r\"}]", "resourceclaims"},
    };
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
        assert_status(
            run(f, N1, KG_ADMISSION_CREATE, "", "pods", "", "ns1", "", mirror(a, "n1", OWNER, refs[i].spec), NULL), 403,
            "Forbidden",
            kg_arena_sprintf(a, "pods \"m\" is forbidden: node \"n1\" can not create pods that reference %s",
                             refs[i].what));
    /* env from a configmap in a container */
    const char *env = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"m\",\"annotations\":{"
                      "\"kubernetes.io/config.mirror\":\"x\"},\"ownerReferences\":[" OWNER "]},\"spec\":{\"nodeName\":"
                      "\"n1\",\"containers\":[{\"name\":\"c\",\"envFrom\":[{\"configMapRef\":{\"name\":\"x\"}}]}]}}";
    assert_status(run(f, N1, KG_ADMISSION_CREATE, "", "pods", "", "ns1", "", env, NULL), 403, "Forbidden",
                  "pods \"m\" is forbidden: node \"n1\" can not create pods that reference configmaps");
}

static void own_pods(void **state)
{
    fixture *f = *state;
    assert_null(run(f, N1, KG_ADMISSION_DELETE, "", "pods", "", "ns1", "p1", NULL, NULL));
    assert_status(run(f, N1, KG_ADMISSION_DELETE, "", "pods", "", "ns1", "p2", NULL, NULL), 403, "Forbidden",
                  "pods \"p2\" is forbidden: node \"n1\" can only delete pods with spec.nodeName set to itself");
    assert_status(run(f, N1, KG_ADMISSION_DELETE, "", "pods", "", "ns1", "gone", NULL, NULL), 404, "NotFound",
                  "pod \"gone\" not found");
    assert_status(
        run(f, N1, KG_ADMISSION_UPDATE, "", "pods", "", "ns1", "p1", "{\"kind\":\"Pod\"}", "{\"kind\":\"Pod\"}"), 403,
        "Forbidden",
        "pods \"p1\" is forbidden: unexpected operation \"UPDATE\", node \"n1\" can only create and delete "
        "mirror pods");
    const char *mine =
        "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\",\"labels\":{\"a\":\"1\"}},\"spec\":{\"nodeName\":\"n1\"}}";
    const char *relabelled =
        "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\",\"labels\":{\"a\":\"2\"}},\"spec\":{\"nodeName\":\"n1\"}}";
    const char *theirs = "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p2\"},\"spec\":{\"nodeName\":\"n2\"}}";
    assert_null(run(f, N1, KG_ADMISSION_UPDATE, "", "pods", "status", "ns1", "p1", mine, mine));
    assert_status(run(f, N1, KG_ADMISSION_UPDATE, "", "pods", "status", "ns1", "p1", relabelled, mine), 403,
                  "Forbidden", "pods \"p1\" is forbidden: node \"n1\" cannot update labels through pod status");
    assert_status(run(f, N1, KG_ADMISSION_UPDATE, "", "pods", "status", "ns1", "p2", theirs, theirs), 403, "Forbidden",
                  "pods \"p2\" is forbidden: node \"n1\" can only update pod status for pods with spec.nodeName set to "
                  "itself");
    const char *ev = "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"p2\"}}";
    assert_status(run(f, N1, KG_ADMISSION_CREATE, "", "pods", "eviction", "ns1", "p2", ev, NULL), 403, "Forbidden",
                  "pods \"p2\" is forbidden: node n1 can only evict pods with spec.nodeName set to itself");
    assert_null(run(f, N1, KG_ADMISSION_CREATE, "", "pods", "eviction", "ns1", "p1", ev, NULL));
    assert_status(run(f, N1, KG_ADMISSION_UPDATE, "", "pods", "binding", "ns1", "p1", "{}", NULL), 403, "Forbidden",
                  "pods \"p1\" is forbidden: unexpected pod subresource \"binding\", only 'status' and 'eviction' are "
                  "allowed");
}

static void nodes(void **state)
{
    fixture *f = *state;
    const char *n1 = "{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\",\"labels\":{\"kubernetes.io/hostname\":\"n1\","
                     "\"node.kubernetes.io/exclude-from-external-load-balancers\":\"\",\"team\":\"a\"}}}";
    assert_null(run(f, N1, KG_ADMISSION_CREATE, "", "nodes", "", "", "n1", n1, NULL));
    assert_status(run(f, N1, KG_ADMISSION_UPDATE, "", "nodes", "", "", "n2", n1, n1), 403, "Forbidden",
                  "nodes \"n2\" is forbidden: node \"n1\" is not allowed to modify node \"n2\"");
    assert_status(run(f, N1, KG_ADMISSION_UPDATE, "", "nodes", "status", "", "n2", n1, n1), 403, "Forbidden",
                  "nodes \"n2\" is forbidden: node \"n1\" is not allowed to modify node \"n2\"");
    assert_status(run(f, N1, KG_ADMISSION_CREATE, "", "nodes", "", "", "n1",
                      "{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\",\"labels\":{\"node-restriction.kubernetes.io/"
                      "a\":\"x\",\"foo.k8s.io/b\":\"y\",\"kubernetes.io/arch\":\"amd64\"}}}",
                      NULL),
                  403, "Forbidden",
                  "nodes \"n1\" is forbidden: node \"n1\" is not allowed to set the following labels: foo.k8s.io/b, "
                  "node-restriction.kubernetes.io/a");
    const char *up = "{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\",\"labels\":{\"kubernetes.io/hostname\":\"n1\","
                     "\"node.kubernetes.io/exclude-from-external-load-balancers\":\"\",\"team\":\"b\",\"foo."
                     "node-restriction.kubernetes.io/foo\":\"\",\"other.kubernetes.io/foo\":\"\"}}}";
    assert_status(run(f, N1, KG_ADMISSION_UPDATE, "", "nodes", "", "", "n1", up, n1), 403, "Forbidden",
                  "nodes \"n1\" is forbidden: is not allowed to modify labels: foo.node-restriction.kubernetes.io/foo, "
                  "other.kubernetes.io/foo");
    const char *tainted = "{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},\"spec\":{\"taints\":[{\"key\":\"k\","
                          "\"effect\":\"NoSchedule\"}]}}";
    assert_status(run(f, N1, KG_ADMISSION_UPDATE, "", "nodes", "", "", "n1",
                      "{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"}}", tainted),
                  403, "Forbidden", "nodes \"n1\" is forbidden: node \"n1\" is not allowed to modify taints");
    assert_null(run(f, N1, KG_ADMISSION_UPDATE, "", "nodes", "status", "", "n1", tainted, tainted));
    assert_null(run(f, N1, KG_ADMISSION_DELETE, "", "nodes", "", "", "n1", NULL, NULL));
}

static void leases_pvcs_csrs(void **state)
{
    fixture *f = *state;
    const char *lease = "{\"kind\":\"Lease\",\"metadata\":{\"name\":\"n1\",\"namespace\":\"kube-node-lease\"}}";
    assert_null(
        run(f, N1, KG_ADMISSION_CREATE, "coordination.k8s.io", "leases", "", "kube-node-lease", "", lease, NULL));
    assert_status(
        run(f, N1, KG_ADMISSION_UPDATE, "coordination.k8s.io", "leases", "", "kube-node-lease", "n2", lease, lease),
        403, "Forbidden",
        "leases.coordination.k8s.io \"n2\" is forbidden: can only access node lease with the same name as "
        "the requesting node");
    assert_status(run(f, N1, KG_ADMISSION_UPDATE, "coordination.k8s.io", "leases", "", "default", "n1", lease, lease),
                  403, "Forbidden",
                  "leases.coordination.k8s.io \"n1\" is forbidden: can only access leases in the \"kube-node-lease\" "
                  "system namespace");
    const char *pvc = "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\",\"resourceVersion\":\"1\"},"
                      "\"spec\":{\"volumeName\":\"v\"},\"status\":{\"phase\":\"Bound\"}}";
    const char *pvc_cap = "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\",\"resourceVersion\":\"2\"},"
                          "\"spec\":{\"volumeName\":\"v\"},\"status\":{\"phase\":\"Bound\",\"capacity\":{\"storage\":"
                          "\"2Gi\"}}}";
    assert_null(run(f, N1, KG_ADMISSION_UPDATE, "", "persistentvolumeclaims", "status", "ns1", "c", pvc_cap, pvc));
    assert_status(run(f, N1, KG_ADMISSION_UPDATE, "", "persistentvolumeclaims", "", "ns1", "c", pvc_cap, pvc), 403,
                  "Forbidden", "persistentvolumeclaims \"c\" is forbidden: may only update PVC status");
    const char *pvc_phase = "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\"},\"spec\":{"
                            "\"volumeName\":\"v\"},\"status\":{\"phase\":\"Lost\"}}";
    kg_status *st = run(f, N1, KG_ADMISSION_UPDATE, "", "persistentvolumeclaims", "status", "ns1", "c", pvc_phase, pvc);
    assert_non_null(st);
    assert_non_null(strstr(st->message, "persistentvolumeclaims \"c\" is forbidden: node \"n1\" is not allowed to "
                                        "update fields other than status.quantity and status.conditions: "));
    /* openssl req -new -subj "/CN=alice/O=dev/O=system:masters": not this node's CN */
    const char *csr =
        "{\"kind\":\"CertificateSigningRequest\",\"metadata\":{\"name\":\"csr1\"},\"spec\":{\"signerName\":"
        "\"kubernetes.io/kube-apiserver-client-kubelet\",\"request\":\"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K"
        "TUlIeE1JR1pBZ0VBTURjeERqQU1CZ05WQkFNTUJXRnNhV05sTVF3d0NnWURWUVFLREFOa1pYWXhGekFWQmdOVgpCQW9NRG5ONWMzUmxiVHB0"
        "WVhOMFpYSnpNRmt3RXdZSEtvWkl6ajBDQVFZSUtvWkl6ajBEQVFjRFFnQUUzYlVlClQ3TTVTOG5Ld1NkdXlxVGJGNlBjUndwbCtlSk5hMTFz"
        "cE5HR1djV0M1STh5NnZYSEM1bzNhWWhZTUlESlBYRFAKcnQ5cWRoSUpWQlo0VG82MHphQUFNQW9HQ0NxR1NNNDlCQU1DQTBjQU1FUUNJR1FK"
        "eTd5SGNUdHJlazNNaTVYdApveElST0RXcHcrQlo2OHdSZTQzQ2hXOXZBaUJuUHZFZmpmZ1dLUVVQY2lpYytEL2dHdkFhSmdiZ29pYVFPNGdr"
        "ClRTR3VIZz09Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=\"}}";
    assert_status(
        run(f, N1, KG_ADMISSION_CREATE, "certificates.k8s.io", "certificatesigningrequests", "", "", "", csr, NULL),
        403, "Forbidden",
        "certificatesigningrequests.certificates.k8s.io \"csr1\" is forbidden: can only create a node CSR "
        "with CN=system:node:n1");
    const char *bad = "{\"kind\":\"CertificateSigningRequest\",\"metadata\":{\"name\":\"csr1\"},\"spec\":{"
                      "\"signerName\":\"kubernetes.io/kubelet-serving\",\"request\":\"\"}}";
    assert_status(
        run(f, N1, KG_ADMISSION_CREATE, "certificates.k8s.io", "certificatesigningrequests", "", "", "", bad, NULL),
        403, "Forbidden",
        "certificatesigningrequests.certificates.k8s.io \"csr1\" is forbidden: unable to parse csr: PEM "
        "block type must be CERTIFICATE REQUEST");
}

static const char *treq(kg_arena *a, const char *ref, const char *auds)
{
    return kg_arena_sprintf(a,
                            "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenRequest\",\"spec\":{"
                            "\"audiences\":[%s]%s%s}}",
                            auds, ref ? ",\"boundObjectRef\":" : "", ref ? ref : "");
}

static void tokens(void **state)
{
    fixture *f = *state;
    kg_arena *a = &f->a;
    const char *pfx = "serviceaccounts \"sa1\" is forbidden: ";
#define TOK(ref, auds)                                                                                                 \
    run(f, N1, KG_ADMISSION_CREATE, "", "serviceaccounts", "token", "ns1", "sa1", treq(a, ref, auds), NULL)
    assert_status(TOK(NULL, ""), 403, "Forbidden",
                  kg_arena_sprintf(a, "%snode requested token not bound to a pod", pfx));
    assert_status(TOK("{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"name\":\"s\"}", ""), 403, "Forbidden",
                  kg_arena_sprintf(a, "%snode requested token not bound to a pod", pfx));
    assert_status(TOK("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"p1\"}", ""), 403, "Forbidden",
                  kg_arena_sprintf(a, "%snode requested token with a pod binding without a uid", pfx));
    assert_status(TOK("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"p1\",\"uid\":\"old\"}", ""), 403, "Forbidden",
                  kg_arena_sprintf(a,
                                   "%sthe UID in the bound object reference (old) does not match the UID in record. "
                                   "The object might have been deleted and then recreated",
                                   pfx));
    assert_status(TOK("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"p2\",\"uid\":\"pu2\"}", ""), 403, "Forbidden",
                  kg_arena_sprintf(a, "%snode requested token bound to a pod scheduled on a different node", pfx));
    const char *p1 = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"p1\",\"uid\":\"pu1\"}";
    assert_null(TOK(p1, ""));
    assert_null(TOK(p1, "\"vault\""));
    assert_status(TOK(p1, "\"vault\",\"x\""), 403, "Forbidden",
                  kg_arena_sprintf(a, "%snode may only request 0 or 1 audiences", pfx));
    assert_status(TOK(p1, "\"other\""), 403, "Forbidden",
                  kg_arena_sprintf(a,
                                   "%saudience \"other\" not found in pod spec volume, system:node:n1 is not "
                                   "authorized to request tokens for this audience",
                                   pfx));
    /* the authorizer may allow an audience the pod does not reference */
    assert_null(TOK(p1, "\"allowed-aud\""));
    assert_string_equal(f->fz.last, "system:node:n1 request-serviceaccounts-token-audience core allowed-aud ns1 sa1");
#undef TOK
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registered),
        cmocka_unit_test_setup_teardown(non_nodes_untouched, setup, teardown),
        cmocka_unit_test_setup_teardown(mirror_pods, setup, teardown),
        cmocka_unit_test_setup_teardown(own_pods, setup, teardown),
        cmocka_unit_test_setup_teardown(nodes, setup, teardown),
        cmocka_unit_test_setup_teardown(leases_pvcs_csrs, setup, teardown),
        cmocka_unit_test_setup_teardown(tokens, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
