/* EventRateLimit: upstream scenarios (plugin/pkg/admission/eventratelimit/admission_test.go, fake clock, qps 1),
 * 429 messages, configuration validation messages. */
#include <pthread.h>
#include <stdatomic.h>

#include "admission/plugins/eventratelimit.h"
#include "admission_testutil.h"

typedef struct fixture {
    kg_admission_memcluster *m;
    kg_admission_services svc;
    kg_admission_chain *chain;
    kg_arena a;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->m = kg_admission_memcluster_new();
    kg_admission_memcluster_set_clock(f->m, 1700000000LL * 1000000000LL);
    f->svc = kg_admission_memcluster_services(f->m, NULL);
    kg_arena_init(&f->a, 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    if (f->chain)
        kg_admission_chain_free(f->chain);
    kg_arena_free(&f->a);
    kg_admission_memcluster_free(f->m);
    free(f);
    return 0;
}

static void with_limits(fixture *f, const char *limits)
{
    const kg_admission_plugin *ps[] = {&kg_admission_plugin_event_rate_limit};
    const kg_json *cfg[] = {tj(&f->a, kg_arena_sprintf(&f->a,
                                                       "{\"apiVersion\":\"eventratelimit.admission.k8s.io/v1alpha1\","
                                                       "\"kind\":\"Configuration\",\"limits\":%s}",
                                                       limits))};
    kg_error e = {0};
    f->chain = kg_admission_chain_new_from(ps, 1, cfg, &f->svc, NULL, &e);
    if (!f->chain)
        fail_msg("chain: %s", e.msg);
}

typedef struct req {
    const char *ns, *user, *component, *host, *kind, *obj_ns, *name, *uid, *api_version;
    bool non_event, dry_run;
} req;

static kg_status *send(fixture *f, req r)
{
    kg_admission_attributes at;
    kg_json *ev = tj(&f->a, kg_arena_sprintf(&f->a,
                                             "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"e\"},"
                                             "\"source\":{\"component\":\"%s\",\"host\":\"%s\"},\"involvedObject\":{"
                                             "\"kind\":\"%s\",\"namespace\":\"%s\",\"name\":\"%s\",\"uid\":\"%s\","
                                             "\"apiVersion\":\"%s\"}}",
                                             r.component ? r.component : "", r.host ? r.host : "", r.kind ? r.kind : "",
                                             r.obj_ns ? r.obj_ns : "", r.name ? r.name : "", r.uid ? r.uid : "",
                                             r.api_version ? r.api_version : ""));
    const char *ns = r.ns ? r.ns : "default";
    if (r.non_event)
        tattrs(&at, &f->a, KG_ADMISSION_CREATE, "Pod", "pods", ns, "p",
               tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"}}"), NULL);
    else
        tattrs(&at, &f->a, KG_ADMISSION_CREATE, "Event", "events", ns, "e", ev, NULL);
    at.user.name = r.user ? r.user : "";
    at.dry_run = r.dry_run;
    return kg_admission_chain_run(f->chain, &at);
}

#define OK(f, ...) assert_null(send(f, (req){__VA_ARGS__}))
#define LIMITED(f, msg, ...) assert_status(send(f, (req){__VA_ARGS__}), 429, "TooManyRequests", msg)

static void advance(fixture *f, double secs)
{
    kg_admission_sleep_ns(&f->svc, (int64_t)(secs * 1e9));
}

static void server_burst_and_refill(void **state)
{
    fixture *f = *state;
    with_limits(f, "[{\"type\":\"Server\",\"qps\":1,\"burst\":3}]");
    OK(f, .ns = "a");
    OK(f, .non_event = true); /* non-events are never counted */
    OK(f, .ns = "a");
    OK(f, .ns = "b", .dry_run = true); /* dry-run is neither limited nor counted */
    OK(f, .ns = "b");
    LIMITED(f, "Too many requests: limit reached on type Server for key ", .ns = "a");
    OK(f, .non_event = true);
    for (int i = 0; i < 5; i++)
        OK(f, .dry_run = true);
    advance(f, 0.5);
    LIMITED(f, "Too many requests: limit reached on type Server for key ", .ns = "a");
    advance(f, 0.5); /* one token after 1 s at qps 1 */
    OK(f, .ns = "a");
    LIMITED(f, "Too many requests: limit reached on type Server for key ", .ns = "a");
    /* refill is capped at burst */
    advance(f, 100);
    OK(f);
    OK(f);
    OK(f);
    LIMITED(f, "Too many requests: limit reached on type Server for key ");
}

static void namespace_buckets(void **state)
{
    fixture *f = *state;
    with_limits(f, "[{\"type\":\"Server\",\"qps\":1,\"burst\":100},{\"type\":\"Namespace\",\"qps\":1,\"burst\":3,"
                   "\"cacheSize\":10}]");
    OK(f, .ns = "A");
    OK(f, .ns = "A");
    OK(f, .ns = "B");
    OK(f, .ns = "A");
    LIMITED(f, "Too many requests: limit reached on type Namespace for key A", .ns = "A");
    OK(f, .ns = "B");
    OK(f, .ns = "B");
    LIMITED(f, "Too many requests: limit reached on type Namespace for key B", .ns = "B");
    advance(f, 1);
    OK(f, .ns = "A");
    LIMITED(f, "Too many requests: limit reached on type Namespace for key A", .ns = "A");
}

static void namespace_lru_eviction(void **state)
{
    fixture *f = *state;
    with_limits(f, "[{\"type\":\"Server\",\"qps\":1,\"burst\":100},{\"type\":\"Namespace\",\"qps\":1,\"burst\":3,"
                   "\"cacheSize\":2}]");
    OK(f, .ns = "A");
    OK(f, .ns = "A");
    OK(f, .ns = "B");
    OK(f, .ns = "B");
    OK(f, .ns = "B");
    OK(f, .ns = "A");
    LIMITED(f, "Too many requests: limit reached on type Namespace for key B", .ns = "B");
    LIMITED(f, "Too many requests: limit reached on type Namespace for key A", .ns = "A"); /* A most recent */
    OK(f, .ns = "C");                                                                      /* evicts B */
    LIMITED(f, "Too many requests: limit reached on type Namespace for key A", .ns = "A");
    OK(f, .ns = "B"); /* fresh bucket; evicts C */
    OK(f, .ns = "B");
    OK(f, .ns = "B");
    LIMITED(f, "Too many requests: limit reached on type Namespace for key B", .ns = "B");
}

static void source_and_object(void **state)
{
    fixture *f = *state;
    with_limits(f, "[{\"type\":\"Server\",\"qps\":1,\"burst\":100},{\"type\":\"SourceAndObject\",\"qps\":1,\"burst\":"
                   "3,\"cacheSize\":10}]");
    OK(f, .component = "A");
    OK(f, .component = "A");
    OK(f, .component = "B");
    OK(f, .component = "A");
    LIMITED(f, "Too many requests: limit reached on type SourceAndObject for key A", .component = "A");
    OK(f, .component = "B");
    advance(f, 1);
    OK(f, .component = "A");
    /* the key is the concatenation without separators */
    OK(f, .component = "kubelet", .host = "n1", .kind = "Pod", .obj_ns = "ns", .name = "p", .uid = "u1",
       .api_version = "v1");
    OK(f, .component = "kubelet", .host = "n1", .kind = "Pod", .obj_ns = "ns", .name = "p", .uid = "u1",
       .api_version = "v1");
    OK(f, .component = "kubelet", .host = "n1", .kind = "Pod", .obj_ns = "ns", .name = "p", .uid = "u1",
       .api_version = "v1");
    LIMITED(f, "Too many requests: limit reached on type SourceAndObject for key kubeletn1Podnspu1v1",
            .component = "kubelet", .host = "n1", .kind = "Pod", .obj_ns = "ns", .name = "p", .uid = "u1",
            .api_version = "v1");
}

static void every_field_is_part_of_the_key(void **state)
{
    fixture *f = *state;
    with_limits(f, "[{\"type\":\"SourceAndObject\",\"qps\":1,\"burst\":1}]");
    /* for each field: A ok, A limited, B (differing only in that field) ok */
    OK(f, .host = "h1");
    LIMITED(f, "Too many requests: limit reached on type SourceAndObject for key h1", .host = "h1");
    OK(f, .host = "h2");
    OK(f, .kind = "Pod");
    LIMITED(f, "Too many requests: limit reached on type SourceAndObject for key Pod", .kind = "Pod");
    OK(f, .kind = "Node");
    OK(f, .obj_ns = "n1");
    LIMITED(f, "Too many requests: limit reached on type SourceAndObject for key n1", .obj_ns = "n1");
    OK(f, .obj_ns = "n2");
    OK(f, .name = "x1");
    LIMITED(f, "Too many requests: limit reached on type SourceAndObject for key x1", .name = "x1");
    OK(f, .name = "x2");
    OK(f, .uid = "u-1");
    LIMITED(f, "Too many requests: limit reached on type SourceAndObject for key u-1", .uid = "u-1");
    OK(f, .uid = "u-2");
    OK(f, .api_version = "apps/v1");
    LIMITED(f, "Too many requests: limit reached on type SourceAndObject for key apps/v1", .api_version = "apps/v1");
    OK(f, .api_version = "batch/v1");
}

static void user_buckets(void **state)
{
    fixture *f = *state;
    with_limits(f, "[{\"type\":\"User\",\"qps\":1,\"burst\":3,\"cacheSize\":10}]");
    OK(f, .user = "alice");
    OK(f, .user = "alice");
    OK(f, .user = "alice");
    LIMITED(f, "Too many requests: limit reached on type User for key alice", .user = "alice");
    OK(f, .user = "bob");
    OK(f, .user = "bob");
    OK(f, .user = "bob");
    LIMITED(f, "Too many requests: limit reached on type User for key bob", .user = "bob");
}

static void several_limits_aggregate(void **state)
{
    fixture *f = *state;
    with_limits(f, "[{\"type\":\"Server\",\"qps\":1,\"burst\":2},{\"type\":\"Namespace\",\"qps\":1,\"burst\":1},"
                   "{\"type\":\"Namespace\",\"qps\":1,\"burst\":1}]");
    OK(f, .ns = "ns1");
    /* both Namespace limits report the same text: de-duplicated; every limit still consumed a token */
    LIMITED(f, "Too many requests: limit reached on type Namespace for key ns1", .ns = "ns1");
    LIMITED(f,
            "Too many requests: [limit reached on type Server for key , limit reached on type Namespace for key "
            "ns1]",
            .ns = "ns1");
    LIMITED(f, "Too many requests: limit reached on type Server for key ", .ns = "ns2");
}

static void events_group_kind_only(void **state)
{
    fixture *f = *state;
    with_limits(f, "[{\"type\":\"Server\",\"qps\":1,\"burst\":1}]");
    kg_admission_attributes at;
    for (int i = 0; i < 3; i++) { /* events.k8s.io Events are not limited */
        tattrs(&at, &f->a, KG_ADMISSION_CREATE, "Event", "events", "default", "e",
               tj(&f->a, "{\"kind\":\"Event\",\"metadata\":{\"name\":\"e\"}}"), NULL);
        at.kind.group = at.resource.group = "events.k8s.io";
        assert_null(kg_admission_chain_run(f->chain, &at));
    }
    assert_int_equal(kg_admission_plugin_event_rate_limit.handles, KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE);
    assert_null(kg_admission_plugin_event_rate_limit.admit);
    OK(f);
    LIMITED(f, "Too many requests: limit reached on type Server for key ");
}

/* Many threads on the same buckets: exactly `burst` events pass per bucket while the clock stands still. */
typedef struct hammer {
    fixture *f;
    int id;
    atomic_int *accepted;
} hammer;

static void *hammer_run(void *arg)
{
    hammer *h = arg;
    kg_arena a;
    kg_arena_init(&a, 0);
    for (int i = 0; i < 400; i++) {
        kg_admission_attributes at;
        char ns[16];
        snprintf(ns, sizeof ns, "ns%d", i % 8);
        tattrs(&at, &a, KG_ADMISSION_CREATE, "Event", "events", kg_arena_strdup(&a, ns), "e",
               tj(&a, "{\"kind\":\"Event\",\"metadata\":{\"name\":\"e\"}}"), NULL);
        at.user.name = h->id % 2 ? "odd" : "even";
        if (!kg_admission_chain_run(h->f->chain, &at))
            atomic_fetch_add(h->accepted, 1);
    }
    kg_arena_free(&a);
    return NULL;
}

static void concurrent_requests(void **state)
{
    fixture *f = *state;
    with_limits(f, "[{\"type\":\"Namespace\",\"qps\":1,\"burst\":50,\"cacheSize\":16}]");
    atomic_int accepted = 0;
    pthread_t th[4];
    hammer h[4];
    for (int i = 0; i < 4; i++) {
        h[i] = (hammer){f, i, &accepted};
        assert_int_equal(pthread_create(&th[i], NULL, hammer_run, &h[i]), 0);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(atomic_load(&accepted), 8 * 50); /* 8 namespaces, 200 attempts each */
    kg_admission_chain_free(f->chain);
    /* a single Server bucket: exactly burst accepted */
    with_limits(f, "[{\"type\":\"Server\",\"qps\":1,\"burst\":123},{\"type\":\"User\",\"qps\":1,\"burst\":"
                   "1000}]");
    atomic_store(&accepted, 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, hammer_run, &h[i]), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(atomic_load(&accepted), 123);
}

static void init_err(fixture *f, const char *config_json, const char *want)
{
    kg_error e = {0};
    void *st = NULL;
    const kg_json *cfg = config_json ? tj(&f->a, config_json) : NULL;
    assert_false(kg_admission_plugin_event_rate_limit.init(cfg, &f->svc, &st, &e));
    assert_null(st);
    assert_string_equal(e.msg, want);
}

#define CFG(limits)                                                                                                    \
    "{\"apiVersion\":\"eventratelimit.admission.k8s.io/v1alpha1\",\"kind\":\"Configuration\",\"limits\":" limits "}"

static void configuration_errors(void **state)
{
    fixture *f = *state;
    init_err(f, NULL, "limits: Invalid value: []eventratelimit.Limit(nil): must not be empty");
    init_err(f, CFG("[]"), "limits: Invalid value: []eventratelimit.Limit{}: must not be empty");
    init_err(f, CFG("[{\"type\":\"Server\",\"qps\":0,\"burst\":1}]"),
             "limits[0].qps: Invalid value: 0: must be positive");
    init_err(f, CFG("[{\"type\":\"Server\",\"qps\":1,\"burst\":1},{\"type\":\"Foo\",\"qps\":-1,\"burst\":0}]"),
             "[limits[1].type: Unsupported value: \"Foo\": supported values: \"Namespace\", \"Server\", "
             "\"SourceAndObject\", \"User\", limits[1].burst: Invalid value: 0: must be positive, limits[1].qps: "
             "Invalid value: -1: must be positive]");
    init_err(f, CFG("[{\"type\":\"User\",\"qps\":1,\"burst\":1,\"cacheSize\":-1}]"),
             "limits[0].cacheSize: Invalid value: -1: must not be negative");
    init_err(f, CFG("[{\"type\":\"User\",\"qps\":\"5\",\"burst\":1}]"),
             "json: cannot unmarshal string into Go struct field Limit.limits.qps of type int32");
    init_err(f, CFG("[{\"type\":\"User\",\"qps\":1,\"burst\":1.5}]"),
             "json: cannot unmarshal number 1.5 into Go struct field Limit.limits.burst of type int32");
    init_err(f, CFG("[{\"type\":\"User\",\"qps\":1,\"burst\":1,\"cacheSize\":4294967296}]"),
             "json: cannot unmarshal number 4294967296 into Go struct field Limit.limits.cacheSize of type int32");
    init_err(f, "{\"limits\":[{\"type\":\"Server\",\"qps\":1,\"burst\":1}]}",
             "Object 'Kind' is missing in EventRateLimit configuration");
    /* a negative cacheSize is ignored for Server */
    kg_error e = {0};
    void *st = NULL;
    assert_true(kg_admission_plugin_event_rate_limit.init(
        tj(&f->a, CFG("[{\"type\":\"Server\",\"qps\":1,\"burst\":1,\"cacheSize\":-1}]")), &f->svc, &st, &e));
    kg_admission_plugin_event_rate_limit.destroy(st);
    /* through the chain: the plugin is named */
    const kg_admission_plugin *ps[] = {&kg_admission_plugin_event_rate_limit};
    assert_null(kg_admission_chain_new_from(ps, 1, NULL, &f->svc, NULL, &e));
    assert_non_null(strstr(e.msg, "EventRateLimit"));
    assert_non_null(strstr(e.msg, "limits: Invalid value"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(server_burst_and_refill, setup, teardown),
        cmocka_unit_test_setup_teardown(namespace_buckets, setup, teardown),
        cmocka_unit_test_setup_teardown(namespace_lru_eviction, setup, teardown),
        cmocka_unit_test_setup_teardown(source_and_object, setup, teardown),
        cmocka_unit_test_setup_teardown(every_field_is_part_of_the_key, setup, teardown),
        cmocka_unit_test_setup_teardown(user_buckets, setup, teardown),
        cmocka_unit_test_setup_teardown(several_limits_aggregate, setup, teardown),
        cmocka_unit_test_setup_teardown(events_group_kind_only, setup, teardown),
        cmocka_unit_test_setup_teardown(configuration_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(concurrent_requests, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
