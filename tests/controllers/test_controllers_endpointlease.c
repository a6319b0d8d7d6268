/* The `kubernetes` Service endpoints lease reconciler (controllers/endpointlease.h) over an in-memory cluster:
 * each replica's Lease, the Endpoints listing the live replicas (grouped by port, sorted), expired Leases left
 * out, a stopping replica removing itself, the Service created once, and the EndpointSlice default/kubernetes kept in
 * step (written only on change). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "client_memcluster.h"
#include "controllers/endpointlease.h"

typedef struct fixture {
    kg_admission_memcluster *m;
    test_client tc;
    kg_arena a;
} fixture;

static kg_admission_memcluster *g_m; /* the delete below has no context of its own */

static bool tc_delete(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name, const char *rv,
                      kg_error *err)
{
    (void)ctx;
    (void)a;
    (void)rv;
    if (kg_admission_memcluster_remove(g_m, resource, ns, name))
        return true;
    kg_err_set(err, KG_ENOTFOUND, "not found");
    return false;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->m = kg_admission_memcluster_new();
    g_m = f->m;
    test_client_init(&f->tc, f->m);
    f->tc.c.delete_object = tc_delete;
    kg_arena_init(&f->a, 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    kg_arena_free(&f->a);
    kg_admission_memcluster_free(f->m);
    free(f);
    return 0;
}

/* the Endpoints default/kubernetes as "ip:port ip:port" in subset order */
static const char *endpoints(fixture *f)
{
    kg_error e = {0};
    kg_json *ep = f->tc.c.get(f->tc.c.ctx, &f->a, "endpoints", "default", "kubernetes", &e);
    if (!ep)
        return "<absent>";
    char *out = "";
    kg_json *subsets = kg_json_get(ep, "subsets");
    for (size_t i = 0; subsets && i < subsets->len; i++) {
        kg_json *ss = kg_json_at(subsets, i), *addrs = kg_json_get(ss, "addresses");
        kg_json *port = kg_json_get(kg_json_at(kg_json_get(ss, "ports"), 0), "port");
        assert_string_equal(kg_json_path_str(kg_json_at(kg_json_get(ss, "ports"), 0), "name"), "https");
        for (size_t k = 0; k < addrs->len; k++)
            out = kg_arena_sprintf(&f->a, "%s%s%s:%lld", out, *out ? " " : "",
                                   kg_json_path_str(kg_json_at(addrs, k), "ip"), (long long)port->u.i);
    }
    assert_string_equal(
        kg_json_get_str(kg_json_get(kg_json_get(ep, "metadata"), "labels"), "endpointslice.kubernetes.io/skip-mirror"),
        "true");
    return out;
}

/* the EndpointSlice default/kubernetes as "ip ip|port" (checking its shape as upstream's EndpointsAdapter writes it) */
static const char *slice(fixture *f)
{
    kg_error e = {0};
    kg_json *s = f->tc.c.get(f->tc.c.ctx, &f->a, "endpointslices", "default", "kubernetes", &e);
    if (!s)
        return "<absent>";
    kg_json *labels = kg_json_path(s, "metadata.labels");
    assert_int_equal(labels->len, 1);
    assert_string_equal(kg_json_get_str(labels, "kubernetes.io/service-name"), "kubernetes");
    assert_string_equal(kg_json_get_str(s, "addressType"), "IPv4");
    char *out = "";
    kg_json *eps = kg_json_get(s, "endpoints");
    for (size_t i = 0; i < eps->len; i++) {
        kg_json *ep = kg_json_at(eps, i);
        assert_true(kg_json_path(ep, "conditions.ready")->b);
        out = kg_arena_sprintf(&f->a, "%s%s%s", out, i ? " " : "", kg_json_at(kg_json_get(ep, "addresses"), 0)->u.s);
    }
    kg_json *p = kg_json_at(kg_json_get(s, "ports"), 0);
    assert_string_equal(kg_json_get_str(p, "name"), "https");
    assert_string_equal(kg_json_get_str(p, "protocol"), "TCP");
    return kg_arena_sprintf(&f->a, "%s|%lld", out, (long long)kg_json_get(p, "port")->u.i);
}

static const char *slice_rv(fixture *f)
{
    kg_error e = {0};
    return kg_json_path_str(f->tc.c.get(f->tc.c.ctx, &f->a, "endpointslices", "default", "kubernetes", &e),
                            "metadata.resourceVersion");
}

static kg_endpoint_lease *start(fixture *f, const char *addr, int port, const char *host)
{
    kg_endpoint_lease_config c = {
        .advertise_address = addr, .port = port, .hostname = host, .lease_duration_ms = 60000};
    kg_error e = {0};
    kg_endpoint_lease *l = kg_endpoint_lease_start(&f->tc.c, &c, &e);
    assert_non_null(l);
    return l;
}

static void test_endpoints_follow_leases(void **state)
{
    fixture *f = *state;
    kg_endpoint_lease *a = start(f, "127.0.0.1", 6443, "h1");
    assert_string_equal(endpoints(f), "127.0.0.1:6443");
    assert_string_equal(slice(f), "127.0.0.1|6443");
    /* the Lease: identity labels, holder = its name, the address annotation */
    kg_error e = {0};
    const char *name = kg_endpoint_lease_name(a);
    assert_int_equal(strncmp(name, "apiserver-", 10), 0);
    assert_int_equal(strlen(name), 26);
    kg_json *lease = f->tc.c.get(f->tc.c.ctx, &f->a, "leases", "kube-system", name, &e);
    assert_non_null(lease);
    assert_string_equal(kg_json_path_str(lease, "spec.holderIdentity"), name);
    assert_int_equal(kg_json_get(kg_json_get(lease, "spec"), "leaseDurationSeconds")->u.i, 60);
    kg_json *md = kg_json_get(lease, "metadata");
    assert_string_equal(kg_json_get_str(kg_json_get(md, "labels"), "apiserver.kubernetes.io/identity"),
                        "kube-apiserver");
    assert_string_equal(kg_json_get_str(kg_json_get(md, "labels"), "kubernetes.io/hostname"), "h1");
    assert_string_equal(kg_json_get_str(kg_json_get(md, "annotations"), "kgate.io/advertise-address"),
                        "127.0.0.1:6443");
    /* the Service, created once, port 443 -> the secure port */
    kg_json *svc = f->tc.c.get(f->tc.c.ctx, &f->a, "services", "default", "kubernetes", &e);
    assert_non_null(svc);
    kg_json *p = kg_json_at(kg_json_path(svc, "spec.ports"), 0);
    assert_int_equal(kg_json_get(p, "port")->u.i, 443);
    assert_int_equal(kg_json_get(p, "targetPort")->u.i, 6443);
    assert_string_equal(kg_json_get_str(kg_json_get(kg_json_get(svc, "metadata"), "labels"), "provider"), "kubernetes");

    /* a second replica on the same port joins the subset, sorted; one on another port gets its own subset */
    kg_endpoint_lease *b = start(f, "10.0.0.2", 6443, "h2");
    kg_endpoint_lease *c = start(f, "127.0.0.1", 7443, "h1");
    assert_int_not_equal(strcmp(kg_endpoint_lease_name(a), kg_endpoint_lease_name(c)), 0);
    assert_true(kg_endpoint_lease_sync(a, &e));
    assert_string_equal(endpoints(f), "10.0.0.2:6443 127.0.0.1:6443 127.0.0.1:7443");
    assert_string_equal(slice(f), "10.0.0.2 127.0.0.1|6443"); /* one slice, one port list: the lowest port's */
    /* nothing changed: nothing written; another slice labelled for the Service is deleted */
    const char *rv = kg_arena_strdup(&f->a, slice_rv(f));
    const char *extra_text =
        "{\"apiVersion\":\"discovery.k8s.io/v1\",\"kind\":\"EndpointSlice\",\"metadata\":{"
        "\"name\":\"kubernetes-old\",\"namespace\":\"default\",\"labels\":{"
        "\"kubernetes.io/service-name\":\"kubernetes\"}},\"addressType\":\"IPv4\",\"endpoints\":[]}";
    assert_non_null(f->tc.c.create(f->tc.c.ctx, &f->a, "endpointslices", "default",
                                   kg_json_parse(&f->a, extra_text, strlen(extra_text), &e), &e));
    assert_true(kg_endpoint_lease_sync(a, &e));
    assert_string_equal(slice_rv(f), rv);
    assert_null(f->tc.c.get(f->tc.c.ctx, &f->a, "endpointslices", "default", "kubernetes-old", &e));

    /* a Lease not renewed within its duration is left out; one without the identity label is ignored */
    const char *stale_text =
        "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":\"apiserver-old\","
        "\"namespace\":\"kube-system\",\"labels\":{\"apiserver.kubernetes.io/identity\":\"kube-apiserver\"},"
        "\"annotations\":{\"kgate.io/advertise-address\":\"10.9.9.9:6443\"}},\"spec\":{\"holderIdentity\":"
        "\"apiserver-old\",\"leaseDurationSeconds\":15,\"renewTime\":\"2020-01-01T00:00:00.000000Z\"}}";
    assert_non_null(f->tc.c.create(f->tc.c.ctx, &f->a, "leases", "kube-system",
                                   kg_json_parse(&f->a, stale_text, strlen(stale_text), &e), &e));
    const char *other_text = "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":"
                             "\"kgate-controller-manager\",\"namespace\":\"kube-system\"},\"spec\":{}}";
    assert_non_null(f->tc.c.create(f->tc.c.ctx, &f->a, "leases", "kube-system",
                                   kg_json_parse(&f->a, other_text, strlen(other_text), &e), &e));
    assert_true(kg_endpoint_lease_sync(b, &e));
    assert_string_equal(endpoints(f), "10.0.0.2:6443 127.0.0.1:6443 127.0.0.1:7443");

    /* a stopping replica deletes its Lease and drops out at once */
    const char *bname = kg_arena_strdup(&f->a, kg_endpoint_lease_name(b));
    kg_endpoint_lease_stop(b);
    assert_string_equal(endpoints(f), "127.0.0.1:6443 127.0.0.1:7443");
    assert_string_equal(slice(f), "127.0.0.1|6443");
    assert_null(f->tc.c.get(f->tc.c.ctx, &f->a, "leases", "kube-system", bname, &e));
    kg_endpoint_lease_stop(c);
    kg_endpoint_lease_stop(a);
    assert_string_equal(endpoints(f), "");
    assert_string_equal(slice(f), "|6443"); /* no live replica: no endpoints, the port kept */
}

static void test_bad_config(void **state)
{
    fixture *f = *state;
    kg_endpoint_lease_config c = {.advertise_address = "", .port = 6443};
    kg_error e = {0};
    assert_null(kg_endpoint_lease_start(&f->tc.c, &c, &e));
    assert_int_equal(e.code, KG_EINVAL);
    c.advertise_address = "127.0.0.1";
    c.port = 0;
    assert_null(kg_endpoint_lease_start(&f->tc.c, &c, &e));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_endpoints_follow_leases, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_config, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
