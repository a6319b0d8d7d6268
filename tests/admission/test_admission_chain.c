/* The chain: phases, order, first rejection wins, mutation visibility, handles masks, reinvocation, init and
 * configuration errors, metrics. */
#include "admission_testutil.h"

static char g_log[1024];
static void logf_(const char *s)
{
    if (g_log[0])
        strcat(g_log, ",");
    strcat(g_log, s);
}

/* ---- test plugins ---- */

static kg_status *label_admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    logf_("label.admit");
    kg_json *md = kg_json_get_or_add_object(a->arena, a->object, "metadata");
    kg_json *labels = kg_json_get_or_add_object(a->arena, md, "labels");
    kg_json_set(a->arena, labels, "stamped", kg_json_new_str(a->arena, "yes"));
    return NULL;
}
static const kg_admission_plugin p_label = {"Label", KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE, NULL, label_admit, NULL,
                                            NULL};

static char g_seen[64];
static kg_status *reader_admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    logf_("reader.admit");
    const char *v = kg_json_path_str(a->object, "metadata.labels.stamped");
    snprintf(g_seen, sizeof g_seen, "%s", v ? v : "(none)");
    return NULL;
}
static kg_status *reader_validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    logf_("reader.validate");
    return NULL;
}
static const kg_admission_plugin p_reader = {"Reader", KG_ADMISSION_ALL_OPS, NULL, reader_admit, reader_validate, NULL};

static kg_status *deny1_validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    logf_("deny1.validate");
    return kg_admission_forbidden(a, "first says no");
}
static const kg_admission_plugin p_deny1 = {"Deny1", KG_ADMISSION_ALL_OPS, NULL, NULL, deny1_validate, NULL};

static kg_status *deny2_validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    logf_("deny2.validate");
    return kg_admission_forbidden(a, "second says no");
}
static const kg_admission_plugin p_deny2 = {"Deny2", KG_ADMISSION_ALL_OPS, NULL, NULL, deny2_validate, NULL};

static kg_status *mdeny_admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    logf_("mdeny.admit");
    return kg_status_bad_request(a->arena, "mutating rejection");
}
static const kg_admission_plugin p_mdeny = {"MDeny", KG_ADMISSION_CREATE, NULL, mdeny_admit, NULL, NULL};

static kg_status *delonly_validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    logf_("delonly.validate");
    return NULL;
}
static const kg_admission_plugin p_delonly = {"DeleteOnly", KG_ADMISSION_DELETE, NULL, NULL, delonly_validate, NULL};

/* asks for reinvocation on every call: the chain must run the mutating phase at most twice */
static kg_status *reinvoker_admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    logf_(a->is_reinvoke ? "reinvoker.admit(re)" : "reinvoker.admit");
    a->reinvoke_requested = true;
    return NULL;
}
static const kg_admission_plugin p_reinvoker = {"Reinvoker", KG_ADMISSION_ALL_OPS, NULL, reinvoker_admit, NULL, NULL};

/* configured plugin: reads "message" from its config, fails init when config says so */
static bool cfg_init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    const char *bad = kg_json_get_str(config, "bad");
    if (bad)
        return kg_err_set(err, KG_EINVAL, "%s: Invalid value", bad);
    char *msg = strdup(config ? kg_json_get_str(config, "message") : "default");
    *state = msg;
    return true;
}
static kg_status *cfg_validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    return kg_admission_forbidden(a, "%s", (const char *)state);
}
static void cfg_destroy(void *state)
{
    free(state);
}
static const kg_admission_plugin p_cfg = {"Configured", KG_ADMISSION_ALL_OPS, cfg_init,
                                          NULL,         cfg_validate,         cfg_destroy};

/* ---- helpers ---- */

static kg_admission_chain *mk(const kg_admission_plugin *const *p, size_t n, const kg_apiserver_metrics *m)
{
    kg_error e = {0};
    kg_admission_chain *c = kg_admission_chain_new_from(p, n, NULL, NULL, m, &e);
    assert_non_null(c);
    return c;
}

static void pod_create(kg_admission_attributes *at, kg_arena *a)
{
    tattrs(at, a, KG_ADMISSION_CREATE, "Pod", "pods", "default", "x",
           tj(a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"}}"), NULL);
}

static int reset(void **state)
{
    g_log[0] = g_seen[0] = '\0';
    return 0;
}

/* ---- tests ---- */

static void mutating_phase_runs_before_validating(void **state)
{
    /* Reader comes first in the chain but its validate must still run after Label's admit */
    const kg_admission_plugin *p[] = {&p_reader, &p_label};
    kg_admission_chain *c = mk(p, 2, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    pod_create(&at, &a);
    assert_null(kg_admission_chain_run(c, &at));
    assert_string_equal(g_log, "reader.admit,label.admit,reader.validate");
    kg_arena_free(&a);
    kg_admission_chain_free(c);
}

static void mutation_visible_to_later_plugins(void **state)
{
    const kg_admission_plugin *p[] = {&p_label, &p_reader};
    kg_admission_chain *c = mk(p, 2, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    pod_create(&at, &a);
    assert_null(kg_admission_chain_admit(c, &at));
    assert_string_equal(g_seen, "yes");
    assert_string_equal(kg_json_path_str(at.object, "metadata.labels.stamped"), "yes");
    kg_arena_free(&a);
    kg_admission_chain_free(c);
    /* reversed order: the reader runs first and sees nothing */
    const kg_admission_plugin *q[] = {&p_reader, &p_label};
    c = mk(q, 2, NULL);
    kg_arena_init(&a, 0);
    pod_create(&at, &a);
    assert_null(kg_admission_chain_admit(c, &at));
    assert_string_equal(g_seen, "(none)");
    kg_arena_free(&a);
    kg_admission_chain_free(c);
}

static void first_rejection_wins(void **state)
{
    const kg_admission_plugin *p[] = {&p_reader, &p_deny1, &p_deny2};
    kg_admission_chain *c = mk(p, 3, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    pod_create(&at, &a);
    kg_status *st = kg_admission_chain_run(c, &at);
    assert_status(st, 403, "Forbidden", "pods \"x\" is forbidden: first says no");
    assert_string_equal(g_log, "reader.admit,reader.validate,deny1.validate"); /* deny2 never called */
    kg_arena_free(&a);
    kg_admission_chain_free(c);
}

static void mutating_rejection_skips_validation(void **state)
{
    const kg_admission_plugin *p[] = {&p_label, &p_mdeny, &p_reader, &p_deny1};
    kg_admission_chain *c = mk(p, 4, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    pod_create(&at, &a);
    kg_status *st = kg_admission_chain_run(c, &at);
    assert_status(st, 400, "BadRequest", "mutating rejection");
    assert_string_equal(g_log, "label.admit,mdeny.admit");
    kg_arena_free(&a);
    kg_admission_chain_free(c);
}

static void plugins_skipped_for_unhandled_operations(void **state)
{
    const kg_admission_plugin *p[] = {&p_label, &p_mdeny, &p_delonly, &p_reader};
    kg_admission_chain *c = mk(p, 4, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    tattrs(&at, &a, KG_ADMISSION_DELETE, "Pod", "pods", "default", "x", NULL,
           tj(&a, "{\"metadata\":{\"name\":\"x\"}}"));
    assert_null(kg_admission_chain_run(c, &at));
    /* Label (CREATE/UPDATE) and MDeny (CREATE) are not called for DELETE */
    assert_string_equal(g_log, "reader.admit,delonly.validate,reader.validate");
    g_log[0] = '\0';
    tattrs(&at, &a, KG_ADMISSION_CONNECT, "PodExecOptions", "pods", "default", "x", tj(&a, "{}"), NULL);
    at.subresource = "exec";
    assert_null(kg_admission_chain_run(c, &at));
    assert_string_equal(g_log, "reader.admit,reader.validate");
    kg_arena_free(&a);
    kg_admission_chain_free(c);
}

static void reinvocation_runs_mutators_once_more(void **state)
{
    const kg_admission_plugin *p[] = {&p_label, &p_reinvoker};
    kg_admission_chain *c = mk(p, 2, NULL);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    pod_create(&at, &a);
    assert_null(kg_admission_chain_admit(c, &at));
    assert_string_equal(g_log, "label.admit,reinvoker.admit,label.admit,reinvoker.admit(re)");
    assert_true(at.is_reinvoke);
    /* the mutation applied twice yields the same object (Label is idempotent) */
    assert_string_equal(kg_json_to_string(&a, at.object, 0, NULL),
                        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\",\"labels\":{"
                        "\"stamped\":\"yes\"}}}");
    kg_arena_free(&a);
    kg_admission_chain_free(c);
}

static void plugin_config_and_init_errors(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const kg_admission_plugin *p[] = {&p_cfg};
    const kg_json *cfgs[] = {tj(&a, "{\"message\":\"configured no\"}")};
    kg_error e = {0};
    kg_admission_chain *c = kg_admission_chain_new_from(p, 1, cfgs, NULL, NULL, &e);
    assert_non_null(c);
    kg_admission_attributes at;
    pod_create(&at, &a);
    assert_status(kg_admission_chain_validate(c, &at), 403, "Forbidden", "pods \"x\" is forbidden: configured no");
    kg_admission_chain_free(c);
    /* no configuration → NULL config */
    c = kg_admission_chain_new_from(p, 1, NULL, NULL, NULL, &e);
    assert_status(kg_admission_chain_validate(c, &at), 403, "Forbidden", "pods \"x\" is forbidden: default");
    kg_admission_chain_free(c);
    const kg_json *bad[] = {tj(&a, "{\"bad\":\"spec.limit\"}")};
    assert_null(kg_admission_chain_new_from(p, 1, bad, NULL, NULL, &e));
    assert_string_equal(e.msg, "couldn't init admission plugin \"Configured\": spec.limit: Invalid value");
    kg_arena_free(&a);
}

static void config_file_errors_stop_startup(void **state)
{
    kg_admission_options o = {NULL, NULL, NULL, "/nonexistent/admission.yaml"};
    kg_error e = {0};
    assert_null(kg_admission_chain_new(&o, NULL, NULL, &e));
    assert_string_equal(e.msg, "failed to read plugin config: unable to read admission control configuration from "
                               "\"/nonexistent/admission.yaml\" [open /nonexistent/admission.yaml: no such file or "
                               "directory]");
    /* a plugin whose path file is missing */
    char dir[] = "/tmp/kgate-adm-chain-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char file[256];
    snprintf(file, sizeof file, "%s/adm.json", dir);
    FILE *f = fopen(file, "w");
    fputs("{\"apiVersion\":\"apiserver.config.k8s.io/v1\",\"kind\":\"AdmissionConfiguration\",\"plugins\":["
          "{\"name\":\"NamespaceLifecycle\",\"path\":\"missing.yaml\"}]}",
          f);
    fclose(f);
    o.config_file = file;
    assert_null(kg_admission_chain_new(&o, NULL, NULL, &e));
    char want[1024];
    snprintf(want, sizeof want,
             "couldn't get config for admission plugin NamespaceLifecycle: open %s/missing.yaml: no such file or "
             "directory",
             dir);
    assert_string_equal(e.msg, want);
    /* entries for plugins that are not enabled are ignored */
    f = fopen(file, "w");
    fputs("{\"apiVersion\":\"apiserver.config.k8s.io/v1\",\"kind\":\"AdmissionConfiguration\",\"plugins\":["
          "{\"name\":\"EventRateLimit\",\"path\":\"missing.yaml\"}]}",
          f);
    fclose(f);
    kg_admission_chain *c = kg_admission_chain_new(&o, NULL, NULL, &e);
    assert_non_null(c);
    kg_admission_chain_free(c);
    unlink(file);
    rmdir(dir);
}

static void metrics_recorded(void **state)
{
    kg_metrics_registry *r = kg_metrics_registry_new();
    kg_apiserver_metrics m;
    assert_true(kg_metrics_apiserver_register(r, &m));
    const kg_admission_plugin *p[] = {&p_label, &p_reader, &p_deny1};
    kg_admission_chain *c = mk(p, 3, &m);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_admission_attributes at;
    pod_create(&at, &a);
    assert_non_null(kg_admission_chain_run(c, &at));
    tattrs(&at, &a, KG_ADMISSION_UPDATE, "Pod", "pods", "default", "x", tj(&a, "{\"metadata\":{}}"),
           tj(&a, "{\"metadata\":{}}"));
    assert_non_null(kg_admission_chain_run(c, &at));

    kg_metric *ctl = m.admission_controller_duration, *step = m.admission_step_duration;
    assert_int_equal(kg_metric_hist_count(ctl, (const char *const[]){"Label", "admit", "CREATE", "false"}), 1);
    assert_int_equal(kg_metric_hist_count(ctl, (const char *const[]){"Label", "admit", "UPDATE", "false"}), 1);
    assert_int_equal(kg_metric_hist_count(ctl, (const char *const[]){"Reader", "admit", "CREATE", "false"}), 1);
    assert_int_equal(kg_metric_hist_count(ctl, (const char *const[]){"Reader", "validate", "CREATE", "false"}), 1);
    assert_int_equal(kg_metric_hist_count(ctl, (const char *const[]){"Deny1", "validate", "CREATE", "true"}), 1);
    /* plugins without a function for the phase are not observed */
    assert_int_equal(kg_metric_hist_count(ctl, (const char *const[]){"Deny1", "admit", "CREATE", "false"}), 0);
    assert_int_equal(kg_metric_hist_count(ctl, (const char *const[]){"Label", "validate", "CREATE", "false"}), 0);
    assert_int_equal(kg_metric_hist_count(step, (const char *const[]){"admit", "CREATE", "false"}), 1);
    assert_int_equal(kg_metric_hist_count(step, (const char *const[]){"validate", "CREATE", "true"}), 1);
    assert_int_equal(kg_metric_hist_count(step, (const char *const[]){"validate", "UPDATE", "true"}), 1);
    assert_int_equal(kg_metric_hist_count(step, (const char *const[]){"validate", "CREATE", "false"}), 0);
    /* durations are real and small */
    double s = kg_metric_hist_sum(step, (const char *const[]){"admit", "CREATE", "false"});
    assert_true(s > 0 && s < 1);
    kg_buf out = KG_BUF_INIT;
    kg_metrics_write(r, &out);
    assert_non_null(strstr(kg_buf_cstr(&out), "apiserver_admission_controller_admission_duration_seconds_count{"
                                              "name=\"Deny1\",operation=\"CREATE\",rejected=\"true\","
                                              "type=\"validate\"} 1\n"));
    kg_buf_free(&out);
    kg_arena_free(&a);
    kg_admission_chain_free(c);
    kg_metrics_registry_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(mutating_phase_runs_before_validating, reset),
        cmocka_unit_test_setup(mutation_visible_to_later_plugins, reset),
        cmocka_unit_test_setup(first_rejection_wins, reset),
        cmocka_unit_test_setup(mutating_rejection_skips_validation, reset),
        cmocka_unit_test_setup(plugins_skipped_for_unhandled_operations, reset),
        cmocka_unit_test_setup(reinvocation_runs_mutators_once_more, reset),
        cmocka_unit_test_setup(plugin_config_and_init_errors, reset),
        cmocka_unit_test_setup(config_file_errors_stop_startup, reset),
        cmocka_unit_test_setup(metrics_recorded, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
