/* The in-memory services implementation: get/list visibility, copies, writer semantics, failure injection, change
 * notification, the authorizer it carries. */
#include "admission_testutil.h"
#include "faulty_services.h"

static const char *names_of(kg_arena *a, const kg_json *arr)
{
    assert_true(kg_json_is(arr, KG_JSON_ARRAY));
    char *out = kg_arena_strdup(a, "");
    for (size_t i = 0; i < arr->len; i++) {
        const char *ns = kg_json_path_str(kg_json_at(arr, i), "metadata.namespace");
        out = kg_arena_sprintf(a, "%s%s%s/%s", out, i ? "," : "", ns ? ns : "",
                               kg_json_path_str(kg_json_at(arr, i), "metadata.name"));
    }
    return out;
}

static void get_and_list(void **state)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_services s = kg_admission_memcluster_services(m, NULL);
    tput(m, "limitranges", "{\"metadata\":{\"name\":\"b\",\"namespace\":\"ns1\"}}", 0);
    tput(m, "limitranges", "{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns1\"}}", 0);
    tput(m, "limitranges", "{\"metadata\":{\"name\":\"z\",\"namespace\":\"ns0\"}}", 0);
    tput(m, "limitranges", "{\"metadata\":{\"name\":\"hidden\",\"namespace\":\"ns1\"}}", KG_MEMCLUSTER_STORE_ONLY);
    tput(m, "resourcequotas", "{\"metadata\":{\"name\":\"q\",\"namespace\":\"ns1\"}}", 0);
    tput(m, "priorityclasses", "{\"metadata\":{\"name\":\"high\"},\"value\":1000}", 0);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error e = {0};
    assert_string_equal(names_of(&a, s.list(m, &a, "limitranges", "ns1", 0, &e)), "ns1/a,ns1/b");
    assert_string_equal(names_of(&a, s.list(m, &a, "limitranges", "ns1", KG_ADMISSION_GET_LIVE, &e)),
                        "ns1/a,ns1/b,ns1/hidden");
    assert_string_equal(names_of(&a, s.list(m, &a, "limitranges", "", 0, &e)), "ns0/z,ns1/a,ns1/b");
    assert_string_equal(names_of(&a, s.list(m, &a, "limitranges", "nope", 0, &e)), "");
    assert_string_equal(names_of(&a, s.list(m, &a, "priorityclasses", "", 0, &e)), "/high");
    assert_string_equal(names_of(&a, s.list(m, &a, "secrets", "", 0, &e)), "");
    /* get: copies, visibility, not found */
    kg_json *pc = s.get(m, &a, "priorityclasses", "", "high", 0, &e);
    assert_int_equal(kg_json_get(pc, "value")->u.i, 1000);
    kg_json_set(&a, pc, "value", kg_json_new_int(&a, 1)); /* editing the copy leaves the state alone */
    assert_int_equal(kg_json_get(s.get(m, &a, "priorityclasses", "", "high", 0, &e), "value")->u.i, 1000);
    assert_null(s.get(m, &a, "limitranges", "ns1", "hidden", 0, &e));
    assert_int_equal(e.code, KG_ENOTFOUND);
    assert_string_equal(e.msg, "limitranges \"hidden\" not found");
    assert_non_null(s.get(m, &a, "limitranges", "ns1", "hidden", KG_ADMISSION_GET_LIVE, &e));
    assert_null(s.get(m, &a, "limitranges", "ns0", "a", 0, &e)); /* namespaces are separate */
    /* replace and remove */
    tput(m, "limitranges", "{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns1\"},\"spec\":{\"v\":2}}", 0);
    assert_int_equal(kg_json_path(s.get(m, &a, "limitranges", "ns1", "a", 0, &e), "spec.v")->u.i, 2);
    assert_string_equal(names_of(&a, s.list(m, &a, "limitranges", "ns1", 0, &e)), "ns1/a,ns1/b");
    assert_true(kg_admission_memcluster_remove(m, "limitranges", "ns1", "a"));
    assert_false(kg_admission_memcluster_remove(m, "limitranges", "ns1", "a"));
    assert_string_equal(names_of(&a, s.list(m, &a, "limitranges", "", 0, &e)), "ns0/z,ns1/b");
    /* objects need a name */
    assert_false(kg_admission_memcluster_put(m, "pods", tj(&a, "{\"metadata\":{}}"), 0, &e));
    kg_admission_memcluster_stats st = kg_admission_memcluster_get_stats(m);
    assert_int_equal(st.lists, 8);
    kg_arena_free(&a);
    kg_admission_memcluster_free(m);
}

/* Groups stay ordered by (namespace, name) through inserts, replacements and removals in any order: list() and
 * view_list() return that order without sorting, and every object stays reachable by get()/view(). */
static void ordered_groups(void **state)
{
    (void)state;
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_services s = kg_admission_memcluster_services(m, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error e = {0};
    enum { N = 240 };
    bool present[N] = {false};
    uint32_t x = 12345;
    for (int round = 0; round < 3 * N; round++) {
        x = x * 1103515245u + 12345u;
        int k = (int)((x >> 8) % N);
        char ns[16], name[48];
        snprintf(ns, sizeof ns, "ns-%d", k % 7);
        /* names of every length around the hash's 8-byte steps */
        snprintf(name, sizeof name, "%.*s-%d", k % 20, "abcdefghijklmnopqrstuvwxyz", k);
        if (present[k] && (x >> 20) % 3 == 0) {
            assert_true(kg_admission_memcluster_remove(m, "configmaps", ns, name));
            present[k] = false;
        } else {
            char *doc = kg_arena_sprintf(&a, "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\"}}", name, ns);
            tput(m, "configmaps", doc, 0);
            present[k] = true;
        }
    }
    for (int scope = 0; scope < 8; scope++) {
        char ns[16];
        snprintf(ns, sizeof ns, "ns-%d", scope);
        const char *want_ns = scope == 7 ? "" : ns;
        kg_json *arr = s.list(m, &a, "configmaps", want_ns, 0, &e);
        kg_json_shared **docs;
        size_t nv = kg_admission_view_list(&s, &a, "configmaps", want_ns, &docs, &e);
        assert_int_equal(nv, arr->len);
        size_t expect = 0;
        for (int k = 0; k < N; k++)
            expect += present[k] && (scope == 7 || k % 7 == scope);
        assert_int_equal(arr->len, expect);
        for (size_t i = 0; i < arr->len; i++) {
            const kg_json *it = kg_json_at(arr, i);
            const char *in = kg_json_path_str(it, "metadata.namespace"), *nm = kg_json_path_str(it, "metadata.name");
            assert_string_equal(nm, kg_json_path_str(kg_json_shared_root(docs[i]), "metadata.name"));
            assert_non_null(kg_admission_view_obj(&s, &a, "configmaps", in, nm, &e));
            if (i) {
                const kg_json *pv = kg_json_at(arr, i - 1);
                int c = strcmp(kg_json_path_str(pv, "metadata.namespace"), in);
                assert_true(c < 0 || (c == 0 && strcmp(kg_json_path_str(pv, "metadata.name"), nm) < 0));
            }
        }
    }
    for (int k = 0; k < N; k++) {
        char ns[16], name[48];
        snprintf(ns, sizeof ns, "ns-%d", k % 7);
        snprintf(name, sizeof name, "%.*s-%d", k % 20, "abcdefghijklmnopqrstuvwxyz", k);
        KG_ERROR_DECL(ge);
        assert_int_equal(kg_admission_view_obj(&s, &a, "configmaps", ns, name, &ge) != NULL, present[k]);
        assert_null(kg_admission_view_obj(&s, &a, "secrets", ns, name, &ge));
    }
    kg_arena_free(&a);
    kg_admission_memcluster_free(m);
}

static void writer(void **state)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_services s = kg_admission_memcluster_services(m, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error e = {0};
    kg_json *q =
        s.create(m, &a, "resourcequotas", "ns", tj(&a, "{\"metadata\":{\"name\":\"q\",\"namespace\":\"ns\"}}"), &e);
    assert_non_null(q);
    const char *rv = kg_json_path_str(q, "metadata.resourceVersion");
    assert_non_null(rv);
    assert_null(s.create(m, &a, "resourcequotas", "ns", q, &e));
    assert_int_equal(e.code, KG_EEXIST);
    assert_string_equal(e.msg, "resourcequotas \"q\" already exists");
    /* update with the current resourceVersion succeeds and bumps it; a stale one conflicts */
    kg_json *q2 = s.update(m, &a, "resourcequotas", "ns", q, &e);
    assert_non_null(q2);
    assert_string_not_equal(kg_json_path_str(q2, "metadata.resourceVersion"), rv);
    assert_null(s.update(m, &a, "resourcequotas", "ns", q, &e));
    assert_int_equal(e.code, KG_ECONFLICT);
    assert_null(s.update(m, &a, "resourcequotas", "ns",
                         tj(&a, "{\"metadata\":{\"name\":\"missing\",\"namespace\":\"ns\"}}"), &e));
    assert_int_equal(e.code, KG_ENOTFOUND);
    /* injected failures come from a wrapper (tests/admission/faulty_services.h), not from the cluster */
    kg_faulty_services *fs = kg_faulty_services_new(&s);
    kg_admission_services fsvc = kg_faulty_services_get(fs);
    kg_faulty_fail_writes(fs, 1, KG_EIO);
    assert_null(fsvc.create(fsvc.ctx, &a, "namespaces", "", tj(&a, "{\"metadata\":{\"name\":\"n\"}}"), &e));
    assert_int_equal(e.code, KG_EIO);
    assert_non_null(fsvc.create(fsvc.ctx, &a, "namespaces", "", tj(&a, "{\"metadata\":{\"name\":\"n\"}}"), &e));
    kg_faulty_services_free(fs);
    /* features, readiness, fake clock */
    assert_false(s.feature_enabled(m, "PodLevelResources"));
    kg_admission_memcluster_set_feature(m, "PodLevelResources", true);
    assert_true(kg_admission_feature(&s, "PodLevelResources"));
    assert_true(kg_admission_ready(&s, "namespaces"));
    kg_admission_memcluster_set_ready(m, "namespaces", false);
    assert_false(kg_admission_ready(&s, "namespaces"));
    kg_admission_memcluster_set_clock(m, 42);
    kg_admission_sleep_ns(&s, 8);
    assert_int_equal(kg_admission_now_ns(&s), 50);
    kg_arena_free(&a);
    kg_admission_memcluster_free(m);
}

/* A subscriber that records "<TYPE> ns/name=data.v" lines. */
typedef struct recorder {
    kg_arena *a;
    const char *log;
    const kg_admission_services *svc; /* when set: read the object back through the services in the callback */
} recorder;

static void record(void *ud, const kg_admission_event *ev)
{
    recorder *r = ud;
    static const char *const names[] = {"", "ADDED", "MODIFIED", "DELETED", "RESYNC"};
    const char *v = ev->object ? kg_json_path_str(ev->object, "data.v") : NULL;
    r->log = kg_arena_sprintf(r->a, "%s%s%s %s %s/%s=%s", r->log, r->log[0] ? "," : "", names[ev->type], ev->resource,
                              ev->ns, ev->name, v ? v : "-");
    if (r->svc) {
        kg_error e = {0};
        kg_arena tmp;
        kg_arena_init(&tmp, 0);
        kg_json *now = kg_admission_get(r->svc, &tmp, ev->resource, ev->ns, ev->name, 0, &e);
        r->log = kg_arena_sprintf(r->a, "%s(%s)", r->log, now ? "present" : "absent");
        kg_arena_free(&tmp);
    }
}

static void subscribers_see_changes_in_order(void **state)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_services s = kg_admission_memcluster_services(m, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error e = {0};
    assert_true(kg_admission_memcluster_put(m, "configmaps",
                                          tj(&a, "{\"metadata\":{\"name\":\"before\",\"namespace\":\"ns\"}}"), 0, &e));
    recorder cm = {&a, "", &s}, other = {&a, "", NULL};
    uint64_t id = kg_admission_subscribe(&s, "configmaps", record, &cm, &e);
    assert_true(id > 0);
    uint64_t id2 = kg_admission_subscribe(&s, "secrets", record, &other, &e);
    assert_true(id2 > 0 && id2 != id);
    /* existing objects are not replayed; put, the writer and remove notify in order */
    assert_true(kg_admission_memcluster_put(
        m, "configmaps", tj(&a, "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"data\":{\"v\":\"1\"}}"), 0, &e));
    assert_true(kg_admission_memcluster_put(
        m, "configmaps", tj(&a, "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"data\":{\"v\":\"2\"}}"), 0, &e));
    kg_json *d =
        s.create(m, &a, "configmaps", "ns", tj(&a, "{\"metadata\":{\"name\":\"d\"},\"data\":{\"v\":\"3\"}}"), &e);
    assert_non_null(d);
    kg_json_set(&a, kg_json_get(d, "data"), "v", kg_json_new_str(&a, "4"));
    assert_non_null(s.update(m, &a, "configmaps", "ns", d, &e));
    assert_true(kg_admission_memcluster_remove(m, "configmaps", "ns", "c"));
    assert_false(kg_admission_memcluster_remove(m, "configmaps", "ns", "c")); /* nothing removed: no event */
    /* a failed write notifies nothing */
    assert_null(s.create(m, &a, "configmaps", "ns", d, &e));
    assert_int_equal(e.code, KG_EEXIST);
    assert_string_equal(cm.log, "ADDED configmaps ns/c=1(present),MODIFIED configmaps ns/c=2(present),"
                                "ADDED configmaps ns/d=3(present),MODIFIED configmaps ns/d=4(present),"
                                "DELETED configmaps ns/c=2(absent)");
    assert_string_equal(other.log, "");

    /* store-only objects are not in the cache: they notify when a normal put makes them visible */
    cm.log = "";
    assert_true(kg_admission_memcluster_put(
        m, "configmaps", tj(&a, "{\"metadata\":{\"name\":\"lag\",\"namespace\":\"ns\"}}"), KG_MEMCLUSTER_STORE_ONLY, &e));
    assert_string_equal(cm.log, "");
    assert_true(kg_admission_memcluster_put(m, "configmaps",
                                          tj(&a, "{\"metadata\":{\"name\":\"lag\",\"namespace\":\"ns\"}}"), 0, &e));
    assert_string_equal(cm.log, "ADDED configmaps ns/lag=-(present)");

    /* after unsubscribe: silence */
    kg_admission_unsubscribe(&s, id);
    kg_admission_unsubscribe(&s, id); /* unknown id: no-op */
    cm.log = "";
    assert_true(kg_admission_memcluster_remove(m, "configmaps", "ns", "d"));
    assert_string_equal(cm.log, "");
    kg_admission_unsubscribe(&s, id2);
    kg_arena_free(&a);
    kg_admission_memcluster_free(m);
}

/* A callback that writes through the services: the nested event is delivered after the current one. */
typedef struct chained {
    kg_admission_services *svc;
    kg_arena *a;
    const char *log;
} chained;

static void copy_on_add(void *ud, const kg_admission_event *ev)
{
    chained *c = ud;
    c->log = kg_arena_sprintf(c->a, "%s%s/%s,", c->log, ev->type == KG_ADMISSION_EVENT_ADDED ? "+" : "~", ev->name);
    if (ev->type == KG_ADMISSION_EVENT_ADDED && strncmp(ev->name, "copy-", 5) != 0) {
        kg_error e = {0};
        kg_json *o = kg_json_new_object(c->a);
        kg_json *md = kg_json_get_or_add_object(c->a, o, "metadata");
        kg_json_set(c->a, md, "name", kg_json_new_str(c->a, kg_arena_sprintf(c->a, "copy-%s", ev->name)));
        assert_non_null(c->svc->create(c->svc->ctx, c->a, ev->resource, ev->ns, o, &e));
    }
}

static void callbacks_may_write(void **state)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_services s = kg_admission_memcluster_services(m, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error e = {0};
    chained c = {&s, &a, ""};
    assert_true(kg_admission_subscribe(&s, "configmaps", copy_on_add, &c, &e) > 0);
    assert_true(kg_admission_memcluster_put(m, "configmaps", tj(&a, "{\"metadata\":{\"name\":\"a\"}}"), 0, &e));
    assert_string_equal(c.log, "+/a,+/copy-a,");
    kg_arena_free(&a);
    kg_admission_memcluster_free(m);
}

/* The services carry an authorizer (auth/authorizer.h); memcluster's default is none = no opinion. */
static kg_authz_decision only_alice(void *ctx, const kg_authz_attributes *at, kg_arena *a, const char **reason,
                                    kg_error *err)
{
    (void)ctx;
    (void)err;
    if (at->user && strcmp(at->user->name, "alice") == 0)
        return KG_AUTHZ_ALLOW;
    *reason = kg_arena_sprintf(a, "not alice: %s %s", at->verb, at->resource);
    return KG_AUTHZ_DENY;
}

static void services_authorizer(void **state)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    kg_admission_services s = kg_admission_memcluster_services(m, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_user alice = {.name = "alice"}, bob = {.name = "bob"};
    kg_authz_attributes at = {
        .user = &alice, .verb = "use", .resource_request = true, .resource = "podsecuritypolicies"};
    const char *reason;
    assert_int_equal(kg_admission_authorize(&s, &at, &a, &reason, NULL), KG_AUTHZ_NO_OPINION);
    kg_authorizer z = {.authorize = only_alice};
    s.authorizer = &z;
    assert_int_equal(kg_admission_authorize(&s, &at, &a, &reason, NULL), KG_AUTHZ_ALLOW);
    at.user = &bob;
    assert_int_equal(kg_admission_authorize(&s, &at, &a, &reason, NULL), KG_AUTHZ_DENY);
    assert_string_equal(reason, "not alice: use podsecuritypolicies");
    kg_arena_free(&a);
    kg_admission_memcluster_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(get_and_list),        cmocka_unit_test(writer),
        cmocka_unit_test(ordered_groups),      cmocka_unit_test(subscribers_see_changes_in_order),
        cmocka_unit_test(callbacks_may_write), cmocka_unit_test(services_authorizer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
