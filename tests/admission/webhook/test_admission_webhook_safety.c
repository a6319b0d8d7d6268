/* Webhook-safety warnings on writing a webhook configuration (admission/webhook/safety.c): the deadline sum over the
 * webhooks that can match one request (stored configurations and the one being written), and failurePolicy Fail
 * webhooks that match the creation of their own pods. Runs the ValidatingAdmissionWebhook plugin in a chain over an
 * in-memory cluster; no webhook is called. */
#include "../admission_testutil.h"
#include "admission/webhook/webhook.h"

typedef struct fx {
    kg_arena a;
    kg_admission_memcluster *m;
    kg_admission_services svc;
    kg_admission_chain *chain;
    kg_warnings warnings;
} fx;

static void fx_init(fx *f)
{
    kg_arena_init(&f->a, 0);
    f->m = kg_admission_memcluster_new();
    f->svc = kg_admission_memcluster_services(f->m, NULL);
    const kg_admission_plugin *plugins[] = {&kg_admission_plugin_validating_admission_webhook};
    kg_error e = {0};
    f->chain = kg_admission_chain_new_from(plugins, 1, NULL, &f->svc, NULL, &e);
    assert_non_null(f->chain);
    kg_warnings_init(&f->warnings, &f->a);
}

static void fx_free(fx *f)
{
    kg_admission_chain_free(f->chain);
    kg_admission_memcluster_free(f->m);
    kg_arena_free(&f->a);
}

/* A webhook named name with timeoutSeconds t, rules over resources (a JSON list body) in group g; extra members. */
static const char *hook(fx *f, const char *name, int t, const char *g, const char *resources, const char *extra)
{
    return kg_arena_sprintf(&f->a,
                            "{\"name\":\"%s\",\"clientConfig\":{\"url\":\"https://hook.example.com/x\"},"
                            "\"rules\":[{\"operations\":[\"CREATE\",\"UPDATE\"],\"apiGroups\":[\"%s\"],\"apiVersions\":"
                            "[\"*\"],\"resources\":[%s]}],\"sideEffects\":\"None\",\"timeoutSeconds\":%d,"
                            "\"failurePolicy\":\"Ignore\",\"admissionReviewVersions\":[\"v1\"]%s}",
                            name, g, resources, t, extra ? extra : "");
}

static const char *config(fx *f, bool mutating, const char *name, const char *hooks)
{
    return kg_arena_sprintf(&f->a,
                            "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"%sWebhookConfiguration\","
                            "\"metadata\":{\"name\":\"%s\"},\"webhooks\":[%s]}",
                            mutating ? "Mutating" : "Validating", name, hooks);
}

static void store(fx *f, bool mutating, const char *name, const char *hooks)
{
    tput(f->m, mutating ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations",
         config(f, mutating, name, hooks), 0);
}

/* Write (CREATE) a configuration through the chain; returns the number of warnings, texts in f->warnings. */
static size_t write_config(fx *f, bool mutating, const char *name, const char *hooks)
{
    kg_warnings_init(&f->warnings, &f->a);
    kg_admission_attributes at;
    kg_admission_attrs_init(&at, &f->a);
    at.operation = KG_ADMISSION_CREATE;
    at.kind = (kg_gvk){"admissionregistration.k8s.io", "v1",
                       mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration"};
    at.resource = (kg_gvr){"admissionregistration.k8s.io", "v1",
                           mutating ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations"};
    at.name = name;
    at.object = tj(&f->a, config(f, mutating, name, hooks));
    at.warnings = &f->warnings;
    assert_null(kg_admission_chain_run(f->chain, &at));
    return f->warnings.n;
}

static void deadline_sum(void **state)
{
    (void)state;
    fx f;
    fx_init(&f);
    /* 30 + 20 mutating on pods, validating 10: 60 is not more than the deadline */
    store(&f, true, "m1", hook(&f, "a.example.com", 30, "", "\"pods\"", NULL));
    assert_int_equal(write_config(&f, true, "m2", hook(&f, "b.example.com", 20, "", "\"pods\"", NULL)), 0);
    store(&f, true, "m2", hook(&f, "b.example.com", 20, "", "\"pods\"", NULL));
    assert_int_equal(write_config(&f, false, "v1", hook(&f, "v.example.com", 10, "", "\"pods\"", NULL)), 0);
    store(&f, false, "v1", hook(&f, "v.example.com", 10, "", "\"pods\"", NULL));
    /* a slower validating webhook on every resource of every group: 30 + 20 + 15 */
    assert_int_equal(write_config(&f, false, "v2", hook(&f, "w.example.com", 15, "*", "\"*\"", NULL)), 1);
    assert_string_equal(f.warnings.items[0],
                        "webhook timeouts exceed the request deadline: the webhooks that can match one request "
                        "(CREATE pods) may take 65s (2 mutating webhooks in sequence: 50s, slowest validating "
                        "webhook: 15s), more than the 60s request deadline");
    /* validating webhooks run in parallel: only the slowest counts (10 and 10 with the mutating 50) */
    assert_int_equal(write_config(&f, false, "v2", hook(&f, "w.example.com", 10, "*", "\"*\"", NULL)), 0);
    /* the written configuration replaces its stored version: m2 at 5 s leaves 30 + 5 + 10 */
    store(&f, false, "v2", hook(&f, "w.example.com", 30, "*", "\"*\"", NULL));
    assert_int_equal(write_config(&f, true, "m2", hook(&f, "b.example.com", 5, "", "\"pods\"", NULL)), 1);
    assert_non_null(strstr(f.warnings.items[0], "(CREATE pods) may take 65s (2 mutating webhooks in sequence: 35s"));
    assert_int_equal(write_config(&f, true, "m2", hook(&f, "b.example.com", 5, "", "\"configmaps\"", NULL)), 0);
    /* webhooks that cannot match one request do not add up: deployments.apps vs pods */
    assert_int_equal(write_config(&f, true, "m3", hook(&f, "c.example.com", 30, "apps", "\"deployments\"", NULL)), 0);
    /* wildcards meet on a request named by neither: every resource of apps with deployments of every group */
    store(&f, true, "m4", hook(&f, "d.example.com", 25, "apps", "\"*\"", NULL));
    assert_int_equal(write_config(&f, true, "m5", hook(&f, "e.example.com", 25, "*", "\"deployments\"", NULL)), 1);
    assert_non_null(strstr(f.warnings.items[0], "(CREATE deployments.apps) may take 80s (2 mutating webhooks"));
    /* subresources: every subresource of pods and the status of every resource meet on pods/status ("*" covers no
     * subresource) */
    store(&f, false, "v3", hook(&f, "s.example.com", 5, "", "\"pods/status\"", NULL));
    assert_int_equal(write_config(&f, true, "m6",
                                  kg_arena_sprintf(&f.a, "%s,%s", hook(&f, "f.example.com", 30, "", "\"pods/*\"", NULL),
                                                   hook(&f, "g.example.com", 30, "", "\"*/status\"", NULL))),
                     1);
    assert_string_equal(f.warnings.items[0],
                        "webhook timeouts exceed the request deadline: the webhooks that can match one request "
                        "(CREATE pods/status) may take 65s (2 mutating webhooks in sequence: 60s, slowest validating "
                        "webhook: 5s), more than the 60s request deadline");
    fx_free(&f);
}

static const char *svc_hook(fx *f, const char *name, const char *fp, const char *ns, const char *extra)
{
    return kg_arena_sprintf(&f->a,
                            "{\"name\":\"%s\",\"clientConfig\":{\"service\":{\"name\":\"hook\",\"namespace\":\"%s\","
                            "\"port\":443}},\"rules\":[{\"operations\":[\"*\"],\"apiGroups\":[\"*\"],\"apiVersions\":"
                            "[\"*\"],\"resources\":[\"*\"]}],\"sideEffects\":\"None\",\"timeoutSeconds\":5,"
                            "\"failurePolicy\":\"%s\",\"admissionReviewVersions\":[\"v1\"]%s}",
                            name, ns, fp, extra ? extra : "");
}

static void self_blocking(void **state)
{
    (void)state;
    fx f;
    fx_init(&f);
    tput(
        f.m, "namespaces",
        "{\"metadata\":{\"name\":\"hooks\",\"labels\":{\"kubernetes.io/metadata.name\":\"hooks\",\"tier\":\"infra\"}}}",
        0);
    tput(f.m, "services",
         "{\"metadata\":{\"name\":\"hook\",\"namespace\":\"hooks\"},\"spec\":{\"selector\":{\"app\":\"hook\"},"
         "\"ports\":[{\"port\":443}]}}",
         0);
    const char *want = "webhook \"a.example.com\" has failurePolicy Fail and matches the creation of pods in "
                       "namespace \"hooks\", where its own service \"hook\" runs: while the webhook is down its pods "
                       "cannot be recreated; exclude them with namespaceSelector or objectSelector, or use "
                       "failurePolicy Ignore";
    assert_int_equal(write_config(&f, false, "c", svc_hook(&f, "a.example.com", "Fail", "hooks", NULL)), 1);
    assert_string_equal(f.warnings.items[0], want);
    assert_int_equal(write_config(&f, true, "c", svc_hook(&f, "a.example.com", "Fail", "hooks", NULL)), 1);
    /* Ignore: no warning */
    assert_int_equal(write_config(&f, false, "c", svc_hook(&f, "a.example.com", "Ignore", "hooks", NULL)), 0);
    /* namespaceSelector excluding the namespace by its labels */
    assert_int_equal(
        write_config(&f, false, "c",
                     svc_hook(&f, "a.example.com", "Fail", "hooks",
                              ",\"namespaceSelector\":{\"matchExpressions\":[{\"key\":\"tier\",\"operator\":"
                              "\"NotIn\",\"values\":[\"infra\"]}]}")),
        0);
    /* a namespaceSelector that still selects it */
    assert_int_equal(write_config(&f, false, "c",
                                  svc_hook(&f, "a.example.com", "Fail", "hooks",
                                           ",\"namespaceSelector\":{\"matchLabels\":{\"tier\":\"infra\"}}")),
                     1);
    /* objectSelector against the Service's pod selector: excluding the webhook's own pods */
    assert_int_equal(
        write_config(&f, false, "c",
                     svc_hook(&f, "a.example.com", "Fail", "hooks",
                              ",\"objectSelector\":{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"NotIn\","
                              "\"values\":[\"hook\"]}]}")),
        0);
    assert_int_equal(write_config(&f, false, "c",
                                  svc_hook(&f, "a.example.com", "Fail", "hooks",
                                           ",\"objectSelector\":{\"matchLabels\":{\"app\":\"hook\"}}")),
                     1);
    /* a namespace not created yet: its automatic name label; excluded by name */
    assert_int_equal(write_config(&f, false, "c", svc_hook(&f, "a.example.com", "Fail", "later", NULL)), 1);
    assert_non_null(strstr(f.warnings.items[0], "namespace \"later\""));
    assert_int_equal(
        write_config(&f, false, "c",
                     svc_hook(&f, "a.example.com", "Fail", "later",
                              ",\"namespaceSelector\":{\"matchExpressions\":[{\"key\":\"kubernetes.io/metadata.name\","
                              "\"operator\":\"NotIn\",\"values\":[\"later\"]}]}")),
        0);
    /* rules that do not cover pods CREATE, and a URL webhook: no warning */
    assert_int_equal(write_config(&f, false, "c",
                                  svc_hook(&f, "a.example.com", "Fail", "hooks",
                                           ",\"rules\":[{\"operations\":[\"UPDATE\"],\"apiGroups\":[\"\"],"
                                           "\"apiVersions\":[\"v1\"],\"resources\":[\"pods\"]}]")),
                     0);
    assert_int_equal(write_config(&f, false, "c", hook(&f, "u.example.com", 5, "", "\"pods\"", NULL)), 0);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deadline_sum),
        cmocka_unit_test(self_blocking),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
