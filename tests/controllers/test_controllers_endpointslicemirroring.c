/* The EndpointSlice mirroring controller's reconciler (controllers/endpointslicemirroring.h) over an in-memory
 * cluster: what a mirrored slice carries (labels, annotations, owner, endpoints, ports), no write on a resync with
 * nothing changed, updates in place, the IPv4/IPv6 split, repacking of subsets, the per-subset limit, recycling on a
 * port change, Warning Events for skipped addresses, and deletion when the Endpoints is gone, skips mirroring, or its
 * Service is gone or has a selector. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "client_memcluster.h"
#include "controllers/endpointslicemirroring.h"

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

static void put(fixture *f, const char *resource, const char *json)
{
    kg_error e = {0};
    kg_json *o = kg_json_parse(&f->a, json, strlen(json), &e);
    assert_non_null(o);
    assert_true(kg_admission_memcluster_put(f->m, resource, o, 0, &e));
}

static kg_epsm_result sync_max(fixture *f, const char *name, int max)
{
    kg_epsm_result r;
    kg_error e = {0};
    assert_true(kg_epsm_sync(&f->tc.c, &f->a, "ns1", name, max, &r, &e));
    return r;
}

static kg_epsm_result sync(fixture *f, const char *name)
{
    return sync_max(f, name, 0);
}

/* the slices of ns1 (every one, mirrored or not) */
static kg_json *slices(fixture *f)
{
    kg_error e = {0};
    kg_json *l = f->tc.c.list(f->tc.c.ctx, &f->a, "endpointslices", "ns1", &e);
    assert_non_null(l);
    return l;
}

/* "reason: message" of the Events in ns1, joined with " | " (each a Warning about the Endpoints db) */
static const char *events(fixture *f)
{
    kg_error e = {0};
    kg_json *l = f->tc.c.list(f->tc.c.ctx, &f->a, "events", "ns1", &e);
    assert_non_null(l);
    char *out = "";
    for (size_t i = 0; i < l->len; i++) {
        kg_json *ev = kg_json_at(l, i);
        assert_string_equal(kg_json_get_str(ev, "type"), "Warning");
        assert_string_equal(kg_json_path_str(ev, "involvedObject.kind"), "Endpoints");
        assert_string_equal(kg_json_path_str(ev, "involvedObject.name"), "db");
        assert_string_equal(kg_json_path_str(ev, "source.component"), "endpoint-slice-mirroring-controller");
        out = kg_arena_sprintf(&f->a, "%s%s%s: %s", out, i ? " | " : "", kg_json_get_str(ev, "reason"),
                               kg_json_get_str(ev, "message"));
    }
    return out;
}

static kg_json *slice_of_type(fixture *f, const char *type)
{
    kg_json *l = slices(f);
    for (size_t i = 0; i < l->len; i++)
        if (!strcmp(kg_json_get_str(kg_json_at(l, i), "addressType"), type))
            return kg_json_at(l, i);
    return NULL;
}

/* "ip/ready ip/ready" of a slice's endpoints, in order */
static const char *eps_of(fixture *f, const kg_json *s)
{
    char *out = "";
    const kg_json *eps = kg_json_get(s, "endpoints");
    for (size_t i = 0; i < eps->len; i++) {
        const kg_json *ep = kg_json_at(eps, i);
        assert_int_equal(kg_json_get(ep, "addresses")->len, 1);
        out = kg_arena_sprintf(&f->a, "%s%s%s/%s", out, i ? " " : "", kg_json_at(kg_json_get(ep, "addresses"), 0)->u.s,
                               kg_json_path(ep, "conditions.ready")->b ? "ready" : "notready");
    }
    return out;
}

#define SVC_NOSEL                                                                                                      \
    "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"db\",\"namespace\":\"ns1\"},"                \
    "\"spec\":{\"ports\":[{\"port\":5432}]}}"

#define EPS(labels, subsets)                                                                                           \
    "{\"apiVersion\":\"v1\",\"kind\":\"Endpoints\",\"metadata\":{\"name\":\"db\",\"namespace\":\"ns1\","               \
    "\"uid\":\"u-1\"" labels "},\"subsets\":" subsets "}"

static void test_create_and_resync(void **state)
{
    fixture *f = *state;
    put(f, "services", SVC_NOSEL);
    put(f, "endpoints",
        EPS(",\"labels\":{\"app\":\"db\"},\"annotations\":{\"note\":\"x\","
            "\"endpoints.kubernetes.io/last-change-trigger-time\":\"2024-01-01T00:00:00Z\","
            "\"kubectl.kubernetes.io/last-applied-configuration\":\"{}\"}",
            "[{\"addresses\":[{\"ip\":\"10.0.0.2\",\"hostname\":\"db-1\",\"nodeName\":\"n1\","
            "\"targetRef\":{\"kind\":\"Pod\",\"name\":\"db-1\",\"namespace\":\"ns1\",\"uid\":\"p1\"}},"
            "{\"ip\":\"10.0.0.1\"}],\"notReadyAddresses\":[{\"ip\":\"10.0.0.3\"}],"
            "\"ports\":[{\"name\":\"pg\",\"port\":5432}]}]"));
    kg_epsm_result r = sync(f, "db");
    assert_int_equal(r.created, 1);
    assert_int_equal(r.updated + r.deleted, 0);
    kg_json *l = slices(f);
    assert_int_equal(l->len, 1);
    kg_json *s = kg_json_at(l, 0);
    const char *name = kg_json_path_str(s, "metadata.name");
    assert_int_equal(strncmp(name, "db-", 3), 0);
    assert_int_equal(strlen(name), 8);
    kg_json *md = kg_json_get(s, "metadata");
    kg_json *labels = kg_json_get(md, "labels");
    assert_int_equal(labels->len, 3);
    assert_string_equal(kg_json_get_str(labels, "app"), "db");
    assert_string_equal(kg_json_get_str(labels, "kubernetes.io/service-name"), "db");
    assert_string_equal(kg_json_get_str(labels, "endpointslice.kubernetes.io/managed-by"),
                        "endpointslicemirroring-controller.k8s.io");
    kg_json *ann = kg_json_get(md, "annotations");
    assert_int_equal(ann->len, 1); /* the trigger time and last-applied are not copied */
    assert_string_equal(kg_json_get_str(ann, "note"), "x");
    kg_json *owner = kg_json_at(kg_json_get(md, "ownerReferences"), 0);
    assert_string_equal(kg_json_get_str(owner, "apiVersion"), "v1");
    assert_string_equal(kg_json_get_str(owner, "kind"), "Endpoints");
    assert_string_equal(kg_json_get_str(owner, "name"), "db");
    assert_string_equal(kg_json_get_str(owner, "uid"), "u-1");
    assert_true(kg_json_get(owner, "controller")->b);
    assert_true(kg_json_get(owner, "blockOwnerDeletion")->b);
    assert_string_equal(kg_json_get_str(s, "addressType"), "IPv4");
    assert_string_equal(eps_of(f, s), "10.0.0.1/ready 10.0.0.2/ready 10.0.0.3/notready");
    kg_json *ep = kg_json_at(kg_json_get(s, "endpoints"), 1);
    assert_string_equal(kg_json_get_str(ep, "hostname"), "db-1");
    assert_string_equal(kg_json_get_str(ep, "nodeName"), "n1");
    assert_string_equal(kg_json_path_str(ep, "targetRef.uid"), "p1");
    assert_null(kg_json_get(kg_json_at(kg_json_get(s, "endpoints"), 0), "hostname"));
    kg_json *port = kg_json_at(kg_json_get(s, "ports"), 0);
    assert_string_equal(kg_json_get_str(port, "name"), "pg");
    assert_int_equal(kg_json_get(port, "port")->u.i, 5432);
    assert_string_equal(kg_json_get_str(port, "protocol"), "TCP");

    /* a resync with nothing changed writes nothing */
    const char *rv = kg_arena_strdup(&f->a, kg_json_path_str(s, "metadata.resourceVersion"));
    kg_admission_memcluster_stats before = kg_admission_memcluster_get_stats(f->m);
    r = sync(f, "db");
    assert_int_equal(r.created + r.updated + r.deleted, 0);
    kg_admission_memcluster_stats after = kg_admission_memcluster_get_stats(f->m);
    assert_int_equal(after.creates, before.creates);
    assert_int_equal(after.updates, before.updates);
    assert_string_equal(kg_json_path_str(kg_json_at(slices(f), 0), "metadata.resourceVersion"), rv);

    /* an address change updates the same slice */
    put(f, "endpoints",
        EPS(",\"labels\":{\"app\":\"db\"},\"annotations\":{\"note\":\"x\"}",
            "[{\"addresses\":[{\"ip\":\"10.0.0.9\"}],\"ports\":[{\"name\":\"pg\",\"port\":5432}]}]"));
    r = sync(f, "db");
    assert_int_equal(r.updated, 1);
    assert_int_equal(r.created + r.deleted, 0);
    l = slices(f);
    assert_int_equal(l->len, 1);
    assert_string_equal(kg_json_path_str(kg_json_at(l, 0), "metadata.name"), name);
    assert_string_equal(eps_of(f, kg_json_at(l, 0)), "10.0.0.9/ready");

    /* a label change alone is mirrored too */
    put(f, "endpoints",
        EPS(",\"labels\":{\"app\":\"db2\"},\"annotations\":{\"note\":\"x\"}",
            "[{\"addresses\":[{\"ip\":\"10.0.0.9\"}],\"ports\":[{\"name\":\"pg\",\"port\":5432}]}]"));
    r = sync(f, "db");
    assert_int_equal(r.updated, 1);
    assert_string_equal(kg_json_path_str(kg_json_at(slices(f), 0), "metadata.labels.app"), "db2");

    /* the Endpoints deleted and created again (another uid) while the slice stayed: the slice gets the new owner */
    put(f, "endpoints",
        "{\"apiVersion\":\"v1\",\"kind\":\"Endpoints\",\"metadata\":{\"name\":\"db\",\"namespace\":\"ns1\","
        "\"uid\":\"u-2\",\"labels\":{\"app\":\"db2\"},\"annotations\":{\"note\":\"x\"}},\"subsets\":[{"
        "\"addresses\":[{\"ip\":\"10.0.0.9\"}],\"ports\":[{\"name\":\"pg\",\"port\":5432}]}]}");
    r = sync(f, "db");
    assert_int_equal(r.updated, 1);
    assert_string_equal(
        kg_json_get_str(kg_json_at(kg_json_path(kg_json_at(slices(f), 0), "metadata.ownerReferences"), 0), "uid"),
        "u-2");
}

static void test_ipv6_split_and_invalid(void **state)
{
    fixture *f = *state;
    put(f, "services", SVC_NOSEL);
    put(f, "endpoints",
        EPS("", "[{\"addresses\":[{\"ip\":\"2001:db8:0:0::1\"},{\"ip\":\"10.0.0.1\"},"
                "{\"ip\":\"::ffff:10.0.0.7\"},{\"ip\":\"not-an-ip\"},{\"ip\":\"010.000.0.8\"}],"
                "\"ports\":[{\"port\":80,\"protocol\":\"UDP\"}]}]"));
    kg_epsm_result r = sync(f, "db");
    assert_int_equal(r.created, 2);
    assert_int_equal(r.skipped_invalid, 1);
    assert_int_equal(r.skipped_over_capacity, 0);
    kg_json *v4 = slice_of_type(f, "IPv4"), *v6 = slice_of_type(f, "IPv6");
    assert_non_null(v4);
    assert_non_null(v6);
    /* ordered by the IP as written; re-formatted as Go's IP.String(): leading zeros dropped, IPv4-mapped IPv6 as
     * IPv4, IPv6 compressed */
    assert_string_equal(eps_of(f, v4), "10.0.0.8/ready 10.0.0.1/ready 10.0.0.7/ready");
    assert_string_equal(eps_of(f, v6), "2001:db8::1/ready");
    kg_json *port = kg_json_at(kg_json_get(v4, "ports"), 0);
    assert_string_equal(kg_json_get_str(port, "name"), "");
    assert_string_equal(kg_json_get_str(port, "protocol"), "UDP");
    assert_string_equal(events(f), "InvalidIPAddress: Skipped 1 invalid IP addresses when mirroring to EndpointSlices");
    assert_int_equal(sync(f, "db").created + sync(f, "db").updated, 0);
    assert_non_null(strstr(events(f), "InvalidIPAddress")); /* a resync that writes nothing records nothing more */
    assert_null(strstr(events(f), " | "));

    /* the IPv6 address goes: its slice is deleted, the IPv4 one stays */
    put(f, "endpoints",
        EPS("", "[{\"addresses\":[{\"ip\":\"10.0.0.1\"}],\"ports\":[{\"port\":80,"
                "\"protocol\":\"UDP\"}]}]"));
    r = sync(f, "db");
    assert_int_equal(r.deleted, 1);
    assert_int_equal(r.updated, 1);
    assert_null(slice_of_type(f, "IPv6"));
    assert_string_equal(eps_of(f, slice_of_type(f, "IPv4")), "10.0.0.1/ready");
}

static void test_repack_limit_and_ports(void **state)
{
    fixture *f = *state;
    put(f, "services", SVC_NOSEL);
    /* two subsets with the same ports (in another order) are one slice; an address ready in one and not ready in the
     * other is ready; a third port set is a slice of its own */
    put(f, "endpoints",
        EPS("", "[{\"addresses\":[{\"ip\":\"10.0.0.2\"}],\"notReadyAddresses\":[{\"ip\":\"10.0.0.1\"}],"
                "\"ports\":[{\"name\":\"a\",\"port\":1},{\"name\":\"b\",\"port\":2}]},"
                "{\"addresses\":[{\"ip\":\"10.0.0.1\"},{\"ip\":\"10.0.0.2\"}],"
                "\"ports\":[{\"name\":\"b\",\"port\":2},{\"name\":\"a\",\"port\":1}]},"
                "{\"addresses\":[{\"ip\":\"10.0.0.5\"}],\"ports\":[{\"name\":\"c\",\"port\":3}]}]"));
    kg_epsm_result r = sync(f, "db");
    assert_int_equal(r.created, 2);
    kg_json *l = slices(f);
    assert_int_equal(l->len, 2);
    const kg_json *two = kg_json_get(kg_json_at(l, 0), "ports")->len == 2 ? kg_json_at(l, 0) : kg_json_at(l, 1);
    assert_string_equal(eps_of(f, two), "10.0.0.1/ready 10.0.0.2/ready");
    assert_int_equal(sync(f, "db").updated, 0);

    /* the port of the third subset changes: its slice is recycled (updated), not deleted and created */
    put(f, "endpoints",
        EPS("", "[{\"addresses\":[{\"ip\":\"10.0.0.1\"},{\"ip\":\"10.0.0.2\"}],"
                "\"ports\":[{\"name\":\"b\",\"port\":2},{\"name\":\"a\",\"port\":1}]},"
                "{\"addresses\":[{\"ip\":\"10.0.0.5\"}],\"ports\":[{\"name\":\"c\",\"port\":4}]}]"));
    r = sync(f, "db");
    assert_int_equal(r.updated, 1);
    assert_int_equal(r.created + r.deleted, 0);
    assert_int_equal(slices(f)->len, 2);

    /* at most max addresses per subset, ready ones first */
    put(f, "endpoints",
        EPS("", "[{\"addresses\":[{\"ip\":\"10.0.0.3\"},{\"ip\":\"10.0.0.1\"}],"
                "\"notReadyAddresses\":[{\"ip\":\"10.0.0.0\"}],\"ports\":[{\"name\":\"c\",\"port\":4}]}]"));
    r = sync_max(f, "db", 2);
    assert_int_equal(r.skipped_over_capacity, 1);
    assert_int_equal(r.deleted, 1);
    l = slices(f);
    assert_int_equal(l->len, 1);
    assert_string_equal(eps_of(f, kg_json_at(l, 0)), "10.0.0.1/ready 10.0.0.3/ready");
    assert_string_equal(events(f), "TooManyAddressesToMirror: A max of 2 addresses can be mirrored to EndpointSlices "
                                   "per Endpoints subset. 1 addresses were skipped");
}

static void test_deletes(void **state)
{
    fixture *f = *state;
    /* a slice of another controller for the same Service is never touched */
    put(f, "endpointslices",
        "{\"apiVersion\":\"discovery.k8s.io/v1\",\"kind\":\"EndpointSlice\",\"metadata\":{"
        "\"name\":\"db-other\",\"namespace\":\"ns1\",\"labels\":{\"kubernetes.io/service-name\":"
        "\"db\",\"endpointslice.kubernetes.io/managed-by\":\"someone\"}},\"addressType\":\"IPv4\","
        "\"endpoints\":[]}");
    const char *eps = EPS("", "[{\"addresses\":[{\"ip\":\"10.0.0.1\"}],\"ports\":[{\"port\":80}]}]");
    put(f, "endpoints", eps);
    /* no Service: nothing mirrored */
    assert_int_equal(sync(f, "db").created, 0);
    put(f, "services", SVC_NOSEL);
    assert_int_equal(sync(f, "db").created, 1);
    assert_int_equal(slices(f)->len, 2);

    /* the Service gains a selector */
    put(f, "services",
        "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"db\",\"namespace\":"
        "\"ns1\"},\"spec\":{\"selector\":{\"app\":\"db\"},\"ports\":[{\"port\":80}]}}");
    assert_int_equal(sync(f, "db").deleted, 1);
    assert_int_equal(slices(f)->len, 1);
    put(f, "services", SVC_NOSEL);
    assert_int_equal(sync(f, "db").created, 1);

    /* the Endpoints is labelled skip-mirror */
    put(f, "endpoints",
        EPS(",\"labels\":{\"endpointslice.kubernetes.io/skip-mirror\":\"true\"}",
            "[{\"addresses\":[{\"ip\":\"10.0.0.1\"}],\"ports\":[{\"port\":80}]}]"));
    assert_int_equal(sync(f, "db").deleted, 1);
    put(f, "endpoints", eps);
    assert_int_equal(sync(f, "db").created, 1);

    /* the Service is deleted */
    kg_admission_memcluster_remove(f->m, "services", "ns1", "db");
    assert_int_equal(sync(f, "db").deleted, 1);
    put(f, "services", SVC_NOSEL);
    assert_int_equal(sync(f, "db").created, 1);

    /* the Endpoints is deleted; one being deleted gets no new slice */
    kg_admission_memcluster_remove(f->m, "endpoints", "ns1", "db");
    assert_int_equal(sync(f, "db").deleted, 1);
    put(f, "endpoints",
        EPS(",\"deletionTimestamp\":\"2024-01-01T00:00:00Z\"",
            "[{\"addresses\":[{\"ip\":\"10.0.0.1\"}],\"ports\":[{\"port\":80}]}]"));
    assert_int_equal(sync(f, "db").created, 0);
    kg_json *l = slices(f);
    assert_int_equal(l->len, 1);
    assert_string_equal(kg_json_path_str(kg_json_at(l, 0), "metadata.name"), "db-other");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_and_resync, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ipv6_split_and_invalid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_repack_limit_and_ports, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deletes, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
