/* The Node authorizer and its graph: pods bound to a node make their secrets, configmaps, PVCs, service accounts
 * (tokens) and, through PVs' claimRefs, PVs and the PVs' secrets reachable; unbinding, deleting and relisting pods
 * take that away again; the subdivided rules (leases, CSINodes, own Node, pods with the nodeName selector) and the
 * static system:node rules; non-node users get no opinion. Reasons as upstream. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "auth/node/authorizer.h"
#include "auth/node/graph.h"
#include "auth/nodeidentity.h"

static kg_json *tj(kg_arena *a, const char *text)
{
    kg_error e = {0};
    kg_json *j = kg_json_parse(a, text, strlen(text), &e);
    if (!j)
        fail_msg("bad test JSON: %s: %s", e.msg, text);
    return j;
}

static const char *pod_json(kg_arena *a, const char *ns, const char *name, const char *node, const char *spec_extra)
{
    return kg_arena_sprintf(a,
                            "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\"},\"spec\":{"
                            "\"nodeName\":\"%s\",\"containers\":[{\"name\":\"c\",\"envFrom\":[{\"configMapRef\":{"
                            "\"name\":\"cm-env\"}}],\"env\":[{\"name\":\"X\",\"valueFrom\":{\"secretKeyRef\":{"
                            "\"name\":\"s-env\",\"key\":\"k\"}}}]}]%s}}",
                            name, ns, node, spec_extra);
}

#define VOLS                                                                                                           \
    ",\"serviceAccountName\":\"sa1\",\"imagePullSecrets\":[{\"name\":\"pull\"}],\"volumes\":["                         \
    "{\"name\":\"a\",\"secret\":{\"secretName\":\"s-vol\"}},"                                                          \
    "{\"name\":\"b\",\"projected\":{\"sources\":[{\"configMap\":{\"name\":\"cm-proj\"}},{\"secret\":{\"name\":"        \
    "\"s-proj\"}}]}},"                                                                                                 \
    "{\"name\":\"c\",\"persistentVolumeClaim\":{\"claimName\":\"claim1\"}},"                                           \
    "{\"name\":\"d\",\"ephemeral\":{\"volumeClaimTemplate\":{\"spec\":{}}}}]"

static void graph_edges(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_node_graph *g = kg_node_graph_new();
    kg_node_graph_set_pod(g, tj(&a, pod_json(&a, "ns1", "p1", "n1", VOLS)));
    static const struct {
        kg_node_vertex k;
        const char *ns, *name;
    } reach[] = {
        {KG_NODE_V_POD, "ns1", "p1"},
        {KG_NODE_V_SECRET, "ns1", "s-env"},
        {KG_NODE_V_SECRET, "ns1", "s-vol"},
        {KG_NODE_V_SECRET, "ns1", "s-proj"},
        {KG_NODE_V_SECRET, "ns1", "pull"},
        {KG_NODE_V_CONFIGMAP, "ns1", "cm-env"},
        {KG_NODE_V_CONFIGMAP, "ns1", "cm-proj"},
        {KG_NODE_V_PVC, "ns1", "claim1"},
        {KG_NODE_V_PVC, "ns1", "p1-d"},
        {KG_NODE_V_SERVICEACCOUNT, "ns1", "sa1"},
    };
    for (size_t i = 0; i < sizeof reach / sizeof reach[0]; i++) {
        if (!kg_node_graph_reachable(g, "n1", reach[i].k, reach[i].ns, reach[i].name))
            fail_msg("%s/%s should be reachable from n1", reach[i].ns, reach[i].name);
        assert_false(kg_node_graph_reachable(g, "n2", reach[i].k, reach[i].ns, reach[i].name));
        /* the namespace is part of the identity */
        assert_false(kg_node_graph_reachable(g, "n1", reach[i].k, "ns2", reach[i].name));
    }
    assert_false(kg_node_graph_reachable(g, "n1", KG_NODE_V_SECRET, "ns1", "unrelated"));
    assert_false(kg_node_graph_reachable(g, "n1", KG_NODE_V_CONFIGMAP, "ns1", "s-vol")); /* kinds are distinct */

    /* PV -> PVC (claimRef) and the PV's secrets */
    assert_false(kg_node_graph_reachable(g, "n1", KG_NODE_V_PV, "", "pv1"));
    kg_node_graph_set_pv(g, tj(&a, "{\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"pv1\"},\"spec\":{"
                                   "\"claimRef\":{\"namespace\":\"ns1\",\"name\":\"claim1\"},\"csi\":{\"driver\":\"d\","
                                   "\"nodePublishSecretRef\":{\"name\":\"csi-s\",\"namespace\":\"storage\"}}}}"));
    assert_true(kg_node_graph_reachable(g, "n1", KG_NODE_V_PV, "", "pv1"));
    assert_true(kg_node_graph_reachable(g, "n1", KG_NODE_V_SECRET, "storage", "csi-s"));
    assert_false(kg_node_graph_reachable(g, "n2", KG_NODE_V_SECRET, "storage", "csi-s"));

    /* a second pod on n1 sharing a secret: removing one pod keeps the shared one */
    kg_node_graph_set_pod(g, tj(&a, pod_json(&a, "ns1", "p2", "n1", "")));
    kg_node_graph_delete_pod(g, "ns1", "p1");
    assert_true(kg_node_graph_reachable(g, "n1", KG_NODE_V_SECRET, "ns1", "s-env"));
    assert_false(kg_node_graph_reachable(g, "n1", KG_NODE_V_SECRET, "ns1", "s-vol"));
    assert_false(kg_node_graph_reachable(g, "n1", KG_NODE_V_PV, "", "pv1"));
    assert_false(kg_node_graph_reachable(g, "n1", KG_NODE_V_SECRET, "storage", "csi-s"));
    /* moving a pod (an update) moves its edges */
    kg_node_graph_set_pod(g, tj(&a, pod_json(&a, "ns1", "p2", "n2", "")));
    assert_false(kg_node_graph_reachable(g, "n1", KG_NODE_V_SECRET, "ns1", "s-env"));
    assert_true(kg_node_graph_reachable(g, "n2", KG_NODE_V_SECRET, "ns1", "s-env"));
    /* an unscheduled pod is not in the graph */
    kg_node_graph_set_pod(g, tj(&a, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p3\",\"namespace\":\"ns1\"},"
                                    "\"spec\":{\"serviceAccountName\":\"x\"}}"));
    assert_int_equal(kg_node_graph_get_stats(g).pods, 1);
    /* PV deleted: its secrets go */
    kg_node_graph_set_pod(g, tj(&a, pod_json(&a, "ns1", "p1", "n1", VOLS)));
    assert_true(kg_node_graph_reachable(g, "n1", KG_NODE_V_SECRET, "storage", "csi-s"));
    kg_node_graph_delete_pv(g, "pv1");
    assert_false(kg_node_graph_reachable(g, "n1", KG_NODE_V_SECRET, "storage", "csi-s"));
    /* a relist replaces everything */
    const kg_json *objs[] = {tj(&a, pod_json(&a, "ns9", "q", "n9", ""))};
    kg_node_graph_replace(g, KG_NODE_V_POD, objs, 1);
    assert_false(kg_node_graph_reachable(g, "n1", KG_NODE_V_POD, "ns1", "p1"));
    assert_true(kg_node_graph_reachable(g, "n9", KG_NODE_V_CONFIGMAP, "ns9", "cm-env"));
    kg_node_graph_stats st = kg_node_graph_get_stats(g);
    assert_int_equal(st.pods, 1);
    assert_int_equal(st.nodes, 1);
    /* volume attachments */
    kg_node_graph_set_attachment(g, tj(&a, "{\"metadata\":{\"name\":\"va1\"},\"spec\":{\"nodeName\":\"n9\"}}"));
    assert_true(kg_node_graph_reachable(g, "n9", KG_NODE_V_VOLUMEATTACHMENT, "", "va1"));
    assert_false(kg_node_graph_reachable(g, "n1", KG_NODE_V_VOLUMEATTACHMENT, "", "va1"));
    kg_node_graph_delete_attachment(g, "va1");
    assert_false(kg_node_graph_reachable(g, "n9", KG_NODE_V_VOLUMEATTACHMENT, "", "va1"));
    kg_node_graph_free(g);
    kg_arena_free(&a);
}

/* ---- the authorizer ---- */

static const char *const node_groups[] = {KG_GROUP_NODES, "system:authenticated"};

typedef struct fx {
    kg_arena a;
    kg_node_graph *g;
    kg_authorizer *z;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    kg_arena_init(&f->a, 0);
    f->g = kg_node_graph_new();
    kg_node_authorizer_options o = {.authorize_with_selectors = true};
    f->z = kg_node_authorizer_new(f->g, &o);
    kg_node_graph_set_pod(f->g, tj(&f->a, pod_json(&f->a, "ns1", "p1", "n1", VOLS)));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    kg_authorizer_free(f->z);
    kg_node_graph_free(f->g);
    kg_arena_free(&f->a);
    free(f);
    return 0;
}

static kg_authz_decision ask(fx *f, const char *user, const char *verb, const char *group, const char *resource,
                             const char *sub, const char *ns, const char *name, const char *fieldsel,
                             const char **reason)
{
    kg_user_info u = {.name = user, .groups = node_groups, .ngroups = 2};
    kg_authz_attributes at = {.user = &u,
                              .verb = verb,
                              .resource_request = true,
                              .api_group = group,
                              .api_version = "v1",
                              .resource = resource,
                              .subresource = sub,
                              .namespace_ = ns,
                              .name = name,
                              .field_selector = fieldsel};
    return kg_authz_authorize(f->z, &at, &f->a, reason, NULL);
}

#define N1 "system:node:n1"
#define ALLOW(...)                                                                                                     \
    do {                                                                                                               \
        const char *r_;                                                                                                \
        assert_int_equal(ask(f, __VA_ARGS__, &r_), KG_AUTHZ_ALLOW);                                                    \
    } while (0)
#define NOOP(why, ...)                                                                                                 \
    do {                                                                                                               \
        const char *r_;                                                                                                \
        assert_int_equal(ask(f, __VA_ARGS__, &r_), KG_AUTHZ_NO_OPINION);                                               \
        assert_string_equal(r_ ? r_ : "", why);                                                                        \
    } while (0)

static void graph_rules(void **state)
{
    fx *f = *state;
    const char *none = "no relationship found between node 'n1' and this object";
    ALLOW(N1, "get", "", "secrets", "", "ns1", "s-vol", NULL);
    ALLOW(N1, "watch", "", "configmaps", "", "ns1", "cm-env", NULL);
    NOOP(none, N1, "get", "", "secrets", "", "ns1", "other", NULL);
    NOOP("can only read resources of this type", N1, "update", "", "secrets", "", "ns1", "s-vol", NULL);
    NOOP("No Object name found", N1, "list", "", "secrets", "", "ns1", "", NULL);
    NOOP("can only read namespaced object of this type", N1, "list", "", "secrets", "", "", "", NULL);
    ALLOW(N1, "get", "", "persistentvolumeclaims", "", "ns1", "claim1", NULL);
    NOOP("can only get individual resources of this type", N1, "list", "", "persistentvolumeclaims", "", "ns1", "",
         NULL);
    ALLOW(N1, "patch", "", "persistentvolumeclaims", "status", "ns1", "claim1", NULL);
    NOOP("can only get/update/patch this type", N1, "get", "", "persistentvolumeclaims", "status", "ns1", "claim1",
         NULL);
    ALLOW(N1, "create", "", "serviceaccounts", "token", "ns1", "sa1", NULL);
    NOOP(none, N1, "create", "", "serviceaccounts", "token", "ns1", "default", NULL);
    NOOP("can only create token subresource of serviceaccount", N1, "create", "", "serviceaccounts", "", "ns1", "sa1",
         NULL);
    NOOP("can only create tokens for individual service accounts", N1, "get", "", "serviceaccounts", "token", "ns1",
         "sa1", NULL);
    /* another node sees nothing of n1's */
    NOOP("no relationship found between node 'n2' and this object", "system:node:n2", "get", "", "secrets", "", "ns1",
         "s-vol", NULL);
}

static void subdivided_and_static_rules(void **state)
{
    fx *f = *state;
    ALLOW(N1, "update", "coordination.k8s.io", "leases", "", "kube-node-lease", "n1", NULL);
    ALLOW(N1, "create", "coordination.k8s.io", "leases", "", "kube-node-lease", "", NULL);
    NOOP("can only access node lease with the same name as the requesting node", N1, "update", "coordination.k8s.io",
         "leases", "", "kube-node-lease", "n2", NULL);
    NOOP("can only access leases in the \"kube-node-lease\" system namespace", N1, "get", "coordination.k8s.io",
         "leases", "", "default", "n1", NULL);
    NOOP("can only get, create, update, patch, or delete a node lease", N1, "list", "coordination.k8s.io", "leases", "",
         "kube-node-lease", "", NULL);
    ALLOW(N1, "get", "storage.k8s.io", "csinodes", "", "", "n1", NULL);
    NOOP("can only access CSINode with the same name as the requesting node", N1, "get", "storage.k8s.io", "csinodes",
         "", "", "n2", NULL);
    /* own Node; pods by selector */
    ALLOW(N1, "get", "", "nodes", "", "", "n1", NULL);
    ALLOW(N1, "patch", "", "nodes", "status", "", "n2", NULL); /* NodeRestriction checks the name */
    NOOP("node 'n1' cannot read 'n2', only its own Node object", N1, "get", "", "nodes", "", "", "n2", NULL);
    NOOP("node 'n1' cannot read all nodes, only its own Node object", N1, "list", "", "nodes", "", "", "", NULL);
    ALLOW(N1, "list", "", "pods", "", "", "", "spec.nodeName=n1");
    NOOP("can only list/watch pods with spec.nodeName field selector", N1, "watch", "", "pods", "", "", "",
         "spec.nodeName=n2");
    NOOP("can only list/watch pods with spec.nodeName field selector", N1, "list", "", "pods", "", "", "", NULL);
    ALLOW(N1, "get", "", "pods", "", "ns1", "p1", NULL);
    NOOP("no relationship found between node 'n1' and this object", N1, "get", "", "pods", "", "ns1", "p9", NULL);
    ALLOW(N1, "create", "", "pods", "", "ns1", "", NULL);
    ALLOW(N1, "update", "", "pods", "status", "ns1", "p1", NULL);
    ALLOW(N1, "create", "", "pods", "eviction", "ns1", "p1", NULL);
    NOOP("", N1, "update", "", "pods", "", "ns1", "p1", NULL);
    /* the static system:node rules */
    ALLOW(N1, "create", "", "events", "", "ns1", "", NULL);
    ALLOW(N1, "list", "", "services", "", "", "", NULL);
    ALLOW(N1, "create", "certificates.k8s.io", "certificatesigningrequests", "", "", "", NULL);
    ALLOW(N1, "list", "node.k8s.io", "runtimeclasses", "", "", "", NULL);
    NOOP("", N1, "delete", "", "namespaces", "", "", "ns1", NULL);
    NOOP("", N1, "create", "apps", "deployments", "", "ns1", "", NULL);
}

static void identities(void **state)
{
    fx *f = *state;
    const char *r;
    /* not a node: no opinion, no reason */
    kg_user_info bob = {.name = "bob"};
    kg_authz_attributes at = {.user = &bob,
                              .verb = "get",
                              .resource_request = true,
                              .resource = "secrets",
                              .namespace_ = "ns1",
                              .name = "s-vol"};
    assert_int_equal(kg_authz_authorize(f->z, &at, &f->a, &r, NULL), KG_AUTHZ_NO_OPINION);
    assert_null(r);
    /* the node name alone, without the group, is not a node */
    kg_user_info fake = {.name = N1};
    at.user = &fake;
    assert_int_equal(kg_authz_authorize(f->z, &at, &f->a, &r, NULL), KG_AUTHZ_NO_OPINION);
    assert_null(r);
    NOOP("unknown node for user \"system:node:\"", "system:node:", "get", "", "secrets", "", "ns1", "s-vol", NULL);
    const char *name;
    kg_user_info n = {.name = N1, .groups = node_groups, .ngroups = 2};
    assert_true(kg_node_identity(&n, &name));
    assert_string_equal(name, "n1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(graph_edges),
        cmocka_unit_test_setup_teardown(graph_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(subdivided_and_static_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(identities, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
