/* --admission-control-config-file: AdmissionConfiguration decoding, per-plugin path/embedded configuration, errors
 * naming file and field. */
#include "admission_testutil.h"

static char g_dir[64];

static int mkdir_tmp(void **state)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/kgate-adm-cfg-XXXXXX");
    assert_non_null(mkdtemp(g_dir));
    return 0;
}

static int rm_tmp(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *write_file(const char *name, const char *text)
{
    static char path[4][256];
    static int k;
    char *p = path[k++ % 4];
    snprintf(p, 256, "%s/%s", g_dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

static void v1_yaml_embedded_and_path(void **state)
{
    write_file("rq.yaml", "apiVersion: apiserver.config.k8s.io/v1\n"
                          "kind: ResourceQuotaConfiguration\n"
                          "limitedResources:\n"
                          "- resource: pods\n"
                          "  matchContains: [\"x\"]\n");
    const char *file = write_file("admission.yaml", "apiVersion: apiserver.config.k8s.io/v1\n"
                                                    "kind: AdmissionConfiguration\n"
                                                    "plugins:\n"
                                                    "- name: EventRateLimit\n"
                                                    "  configuration:\n"
                                                    "    apiVersion: eventratelimit.admission.k8s.io/v1alpha1\n"
                                                    "    kind: Configuration\n"
                                                    "    limits:\n"
                                                    "    - type: Server\n"
                                                    "      qps: 50\n"
                                                    "      burst: 100\n"
                                                    "- name: ResourceQuota\n"
                                                    "  path: rq.yaml\n"
                                                    "- name: ResourceQuota\n"
                                                    "  path: ignored-second-entry.yaml\n");
    kg_admission_config c;
    kg_admission_config_init(&c);
    kg_error e = {0};
    assert_true(kg_admission_config_load(&c, file, &e));
    assert_int_equal(c.nentries, 3);
    char want[256];
    snprintf(want, sizeof want, "%s/rq.yaml", g_dir);
    assert_string_equal(c.entries[1].path, want);

    kg_arena a;
    kg_arena_init(&a, 0);
    const kg_json *erl = kg_admission_config_for(&c, "EventRateLimit", &e);
    assert_non_null(erl);
    assert_string_equal(kg_json_to_string(&a, erl, 0, NULL),
                        "{\"apiVersion\":\"eventratelimit.admission.k8s.io/v1alpha1\",\"kind\":\"Configuration\","
                        "\"limits\":[{\"type\":\"Server\",\"qps\":50,\"burst\":100}]}");
    const kg_json *rq = kg_admission_config_for(&c, "ResourceQuota", &e);
    assert_non_null(rq);
    assert_string_equal(kg_json_get_str(rq, "kind"), "ResourceQuotaConfiguration");
    assert_string_equal(kg_json_path_str(kg_json_at(kg_json_get(rq, "limitedResources"), 0), "resource"), "pods");
    /* loaded once, the same DOM afterwards */
    assert_ptr_equal(kg_admission_config_for(&c, "ResourceQuota", &e), rq);
    /* a plugin without an entry gets no configuration and no error */
    assert_null(kg_admission_config_for(&c, "PodNodeSelector", &e));
    assert_int_equal(e.code, KG_OK);
    kg_arena_free(&a);
    kg_admission_config_free(&c);
}

static void v1alpha1_json_embedded_wins(void **state)
{
    write_file("ptr.json", "{\"from\":\"path\"}");
    const char *file = write_file("admission.json", "{\"apiVersion\":\"apiserver.k8s.io/v1alpha1\","
                                                    "\"kind\":\"AdmissionConfiguration\",\"plugins\":["
                                                    "{\"name\":\"PodTolerationRestriction\",\"path\":\"ptr.json\","
                                                    "\"configuration\":{\"from\":\"embedded\"}},"
                                                    "{\"name\":\"PodNodeSelector\",\"path\":\"./ptr.json\"}]}");
    kg_admission_config c;
    kg_admission_config_init(&c);
    kg_error e = {0};
    assert_true(kg_admission_config_load(&c, file, &e));
    assert_string_equal(kg_json_get_str(kg_admission_config_for(&c, "PodTolerationRestriction", &e), "from"),
                        "embedded");
    assert_string_equal(kg_json_get_str(kg_admission_config_for(&c, "PodNodeSelector", &e), "from"), "path");
    kg_admission_config_free(&c);
}

static void absolute_and_cwd_relative_paths(void **state)
{
    char abs[256];
    snprintf(abs, sizeof abs, "%s/abs.yaml", g_dir);
    write_file("abs.yaml", "x: 1\n");
    char text[512];
    snprintf(text, sizeof text,
             "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n"
             "- name: A\n  path: %s\n- name: B\n  path: abs.yaml\n",
             abs);
    kg_admission_config c;
    kg_admission_config_init(&c);
    kg_error e = {0};
    /* a config file named without a directory resolves against the working directory */
    char old[512];
    assert_non_null(getcwd(old, sizeof old));
    assert_int_equal(chdir(g_dir), 0);
    assert_true(kg_admission_config_parse(&c, "admission.yaml", text, strlen(text), &e));
    assert_string_equal(c.entries[0].path, abs);
    char cwd[512];
    assert_non_null(getcwd(cwd, sizeof cwd));
    char want[600];
    snprintf(want, sizeof want, "%s/abs.yaml", cwd);
    assert_string_equal(c.entries[1].path, want);
    assert_int_equal(kg_json_get(kg_admission_config_for(&c, "B", &e), "x")->u.i, 1);
    assert_int_equal(chdir(old), 0);
    kg_admission_config_free(&c);
}

/* Parse text as file "/etc/kgate/adm.yaml" and return the error message ("" on success). */
static char g_msg[KG_ERR_MSG_MAX];
static const char *parse_err(const char *text)
{
    kg_admission_config c;
    kg_admission_config_init(&c);
    kg_error e = {0};
    g_msg[0] = '\0';
    if (!kg_admission_config_parse(&c, "/etc/kgate/adm.yaml", text, strlen(text), &e))
        snprintf(g_msg, sizeof g_msg, "%s", e.msg);
    kg_admission_config_free(&c);
    return g_msg;
}

#define HDR "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n"

static void malformed_files_name_file_and_field(void **state)
{
    assert_string_equal(parse_err(HDR "plugins: []\n"), "");
    assert_string_equal(parse_err(HDR), "");
    assert_string_equal(parse_err(""), "");
    assert_string_equal(parse_err(HDR "plugin:\n- name: x\n"),
                        "\"/etc/kgate/adm.yaml\": strict decoding error: unknown field \"plugin\"");
    assert_string_equal(parse_err(HDR "plugins:\n- name: x\n  paht: y\n"),
                        "\"/etc/kgate/adm.yaml\": strict decoding error: unknown field \"plugins[0].paht\"");
    assert_string_equal(parse_err(HDR "plugins:\n- name: a\n- name: 5\n"),
                        "\"/etc/kgate/adm.yaml\": plugins[1].name: expected a string, got number");
    assert_string_equal(parse_err(HDR "plugins:\n- name: a\n  configuration: [1]\n"),
                        "\"/etc/kgate/adm.yaml\": plugins[0].configuration: expected an object, got array");
    assert_string_equal(parse_err(HDR "plugins: {name: a}\n"),
                        "\"/etc/kgate/adm.yaml\": plugins: expected an array, got object");
    assert_string_equal(parse_err(HDR "plugins:\n- just-a-string\n"),
                        "\"/etc/kgate/adm.yaml\": plugins[0]: expected an object, got string");
    assert_string_equal(parse_err("kind: AdmissionConfiguration\nplugins: []\n"),
                        "\"/etc/kgate/adm.yaml\": apiVersion: Object 'apiVersion' is missing");
    assert_string_equal(parse_err("apiVersion: apiserver.config.k8s.io/v1\nplugins: []\n"),
                        "\"/etc/kgate/adm.yaml\": kind: Object 'Kind' is missing");
    assert_string_equal(parse_err("apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AdmissionConfiguration\n"),
                        "\"/etc/kgate/adm.yaml\": apiVersion/kind: no kind \"AdmissionConfiguration\" is registered "
                        "for version \"apiserver.config.k8s.io/v1beta1\"");
    /* v1alpha1 lives in group apiserver.k8s.io, not apiserver.config.k8s.io */
    assert_string_equal(parse_err("apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: AdmissionConfiguration\n"),
                        "\"/etc/kgate/adm.yaml\": apiVersion/kind: no kind \"AdmissionConfiguration\" is registered "
                        "for version \"apiserver.config.k8s.io/v1alpha1\"");
    assert_string_equal(parse_err("apiVersion: apiserver.config.k8s.io/v1\nkind: Foo\n"),
                        "\"/etc/kgate/adm.yaml\": apiVersion/kind: no kind \"Foo\" is registered for version "
                        "\"apiserver.config.k8s.io/v1\"");
    assert_string_equal(parse_err("- a\n- b\n"),
                        "\"/etc/kgate/adm.yaml\": expected an AdmissionConfiguration object, got array");
    assert_string_equal(parse_err("{\"apiVersion\":\"apiserver.config.k8s.io/v1\",\"kind\":\"AdmissionConfiguration\","
                                  "\"plugins\":[],\"plugins\":[]}"),
                        "\"/etc/kgate/adm.yaml\": strict decoding error: duplicate field \"plugins\"");
    /* syntax errors carry the parser's position */
    const char *m = parse_err(HDR "plugins:\n- name: [unclosed\n");
    assert_true(strncmp(m, "\"/etc/kgate/adm.yaml\": ", 23) == 0);
    assert_non_null(strstr(m, "line"));
    m = parse_err("{\"apiVersion\": ");
    assert_true(strncmp(m, "\"/etc/kgate/adm.yaml\": ", 23) == 0);
    assert_non_null(strstr(m, "unexpected end of JSON input"));
}

static void unreadable_path_file_names_it(void **state)
{
    write_file("bad.yaml", "a: [1, 2\n");
    const char *file = write_file("admission.yaml", HDR "plugins:\n- name: X\n  path: bad.yaml\n");
    kg_admission_config c;
    kg_admission_config_init(&c);
    kg_error e = {0};
    assert_true(kg_admission_config_load(&c, file, &e));
    assert_null(kg_admission_config_for(&c, "X", &e));
    char want[256];
    snprintf(want, sizeof want, "\"%s/bad.yaml\": ", g_dir);
    assert_true(strncmp(e.msg, want, strlen(want)) == 0);
    assert_int_equal(e.code, KG_EINVAL);
    kg_admission_config_free(&c);
}

static void legacy_unversioned_file(void **state)
{
    const char *text = "podNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: env=prod\n";
    kg_admission_config c;
    kg_admission_config_init(&c);
    kg_error e = {0};
    assert_true(kg_admission_config_parse(&c, "/etc/adm.yaml", text, strlen(text), &e));
    const kg_json *cfg = kg_admission_config_for(&c, "PodNodeSelector", &e);
    assert_non_null(cfg);
    assert_string_equal(kg_json_path_str(cfg, "podNodeSelectorPluginConfig.clusterDefaultNodeSelector"), "env=prod");
    assert_null(kg_admission_config_for(&c, "ImagePolicyWebhook", &e));
    assert_null(kg_admission_config_for(&c, "ResourceQuota", &e));
    kg_admission_config_free(&c);
    /* without a legacy key the missing apiVersion is an error */
    assert_string_equal(parse_err("somethingElse: 1\n"),
                        "\"/etc/kgate/adm.yaml\": apiVersion: Object 'apiVersion' is missing");
}

/* Every prefix of valid files, and every single-byte corruption of a JSON one, either parses or fails with a
 * message naming the file — never crashes (ASan/UBSan build). */
static void truncated_and_corrupted_inputs(void **state)
{
    const char *yaml = HDR "plugins:\n- name: A\n  configuration:\n    k: [1, {x: y}]\n- name: B\n  path: b.yaml\n";
    const char *json = "{\"apiVersion\":\"apiserver.config.k8s.io/v1\",\"kind\":\"AdmissionConfiguration\","
                       "\"plugins\":[{\"name\":\"A\",\"configuration\":{\"k\":[1,{\"x\":\"y\"}]}}]}";
    const char *inputs[] = {yaml, json};
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(inputs[k]);
        char *buf = malloc(n + 1);
        for (size_t len = 0; len <= n; len++) {
            memcpy(buf, inputs[k], len);
            kg_admission_config c;
            kg_admission_config_init(&c);
            kg_error e = {0};
            if (!kg_admission_config_parse(&c, "/f.yaml", buf, len, &e))
                assert_true(strncmp(e.msg, "\"/f.yaml\": ", 11) == 0);
            kg_admission_config_free(&c);
        }
        for (size_t i = 0; k == 1 && i < n; i++) {
            memcpy(buf, inputs[k], n);
            buf[i] = (char)(buf[i] ^ 0x5a);
            kg_admission_config c;
            kg_admission_config_init(&c);
            kg_error e = {0};
            if (!kg_admission_config_parse(&c, "/f.yaml", buf, n, &e))
                assert_true(strncmp(e.msg, "\"/f.yaml\": ", 11) == 0);
            kg_admission_config_free(&c);
        }
        free(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(v1_yaml_embedded_and_path),       cmocka_unit_test(v1alpha1_json_embedded_wins),
        cmocka_unit_test(absolute_and_cwd_relative_paths), cmocka_unit_test(malformed_files_name_file_and_field),
        cmocka_unit_test(unreadable_path_file_names_it),   cmocka_unit_test(legacy_unversioned_file),
        cmocka_unit_test(truncated_and_corrupted_inputs),
    };
    return cmocka_run_group_tests(tests, mkdir_tmp, rm_tmp);
}
